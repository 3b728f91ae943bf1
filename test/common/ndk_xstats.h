/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_TEST_XSTATS_H
#define NDK_TEST_XSTATS_H

/**
 * @file
 * Tests read the provider's counters by name (ndk_adapter_xstats_*()): one
 * counter now, or a snapshot to compare with a later one. An unknown name
 * fails the running case (ndk_test_fail_later()): a typo must not read 0.
 */

#include <stdint.h>

#include "ndk.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most counters a snapshot holds. */
#define NDK_TEST_XSTATS_MAX 256

/** A snapshot of an adapter's (or one queue's) extended counters. */
struct ndk_test_xstats {
	unsigned int n;                  /**< counters read; 0: none */
	uint64_t v[NDK_TEST_XSTATS_MAX]; /**< in ndk_test_xstat_name() order */
};

/**
 * Read every extended counter of @p a (all zero, n 0, if @p a is NULL).
 * @return 0, or -1 after printing why (the case then fails too).
 */
int ndk_test_xstats_read(struct ndk_adapter *a, struct ndk_test_xstats *s);

/** ndk_test_xstats_read() for queue @p queue of @p a. */
int ndk_test_queue_xstats_read(struct ndk_adapter *a, uint16_t queue,
			       struct ndk_test_xstats *s);

/**
 * The counter @p name of snapshot @p s. An unknown name prints a FAIL line,
 * fails the running case and reads UINT64_MAX.
 */
uint64_t ndk_test_xstats_val(const struct ndk_test_xstats *s,
			     const char *name);

/** Counter @p name of snapshot @p s (ndk_test_xstats_val()). */
#define XS(s, name) ndk_test_xstats_val((s), (name))

/** How much counter @p name grew from snapshot @p s0 to snapshot @p s1. */
#define XS_DIFF(s1, s0, name) (XS((s1), (name)) - XS((s0), (name)))

/** The counter @p name of @p a now (as ndk_test_xstats_val()). */
uint64_t ndk_test_xstat(struct ndk_adapter *a, const char *name);

/** The counter @p name of queue @p queue of @p a now. */
uint64_t ndk_test_queue_xstat(struct ndk_adapter *a, uint16_t queue,
			      const char *name);

/** Name of counter @p i of the last snapshot read ("" past the end). */
const char *ndk_test_xstat_name(unsigned int i);

/** Description of counter @p i of the last snapshot read. */
const char *ndk_test_xstat_desc(unsigned int i);

struct ndk_pair;

/**
 * Read the extended counters of adapter @p side of a pair (ndk_pair.h; read
 * one with XS()).
 */
void ndk_pair_stats(const struct ndk_pair *pair, int side,
		    struct ndk_test_xstats *stats);

/** Counter @p name of adapter @p side of a pair now. */
uint64_t ndk_pair_xstat(const struct ndk_pair *pair, int side,
			const char *name);

#ifdef __cplusplus
}
#endif

#endif /* NDK_TEST_XSTATS_H */
