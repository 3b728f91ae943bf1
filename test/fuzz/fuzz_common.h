/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_FUZZ_COMMON_H
#define NDK_FUZZ_COMMON_H

/**
 * @file
 * What the fuzz targets of test/fuzz share: the EAL started once per
 * process, a pool of large mbufs, frames copied into (possibly chained)
 * mbufs, the ICRC of a frame recomputed so that a mutated frame gets past
 * the check, and a hard failure that libFuzzer reports as a crash.
 *
 * Each target defines LLVMFuzzerInitialize() and LLVMFuzzerTestOneInput();
 * it is linked either with libFuzzer (-Dfuzz=true, clang) or with
 * fuzz_replay.c, which runs the inputs of given files and directories
 * (seed corpora and regression inputs: the unit suite's fuzz_* tests).
 */

#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

/** Data room of the pool's mbufs: the largest frame in one segment. */
#define FUZZ_MBUF_ROOM (10240 + RTE_PKTMBUF_HEADROOM)

/** Abort (a crash libFuzzer keeps the input of) with a message. */
#define FUZZ_CHECK(cond, fmt, ...) do { \
	if (!(cond)) \
		fuzz_fail(__FILE__, __LINE__, #cond, fmt, ##__VA_ARGS__); \
} while (0)

/** Print where and what, then abort(). */
void fuzz_fail(const char *file, int line, const char *cond,
	       const char *fmt, ...) __attribute__((noreturn, format(printf, 4, 5)));

/**
 * Start the EAL (no hugepages, lcores @p lcores, no PCI, logs at error
 * level unless NDK_FUZZ_LOG=debug) once; later calls return 0.
 * @return 0, -1 if the EAL does not start.
 */
int fuzz_eal_init(const char *name, const char *lcores);

/** The shared pool of FUZZ_MBUF_ROOM mbufs (created on first use). */
struct rte_mempool *fuzz_pool(void);

/**
 * Copy @p len bytes into a packet of up to three segments: the first
 * holds @p seg0 bytes, the second @p seg1, the third the rest (0: one
 * segment). NULL if the pool is empty or @p len does not fit.
 */
struct rte_mbuf *fuzz_mbuf(const uint8_t *data, size_t len, size_t seg0,
			   size_t seg1);

/**
 * If @p frame (@p len bytes, one flat buffer) parses as RoCEv2 apart
 * from its ICRC, write the right ICRC into it.
 * @return true if it did.
 */
bool fuzz_fix_icrc(uint8_t *frame, size_t len);

/** Read a little-endian field of @p n bytes from @p *d, advancing it. */
uint32_t fuzz_take(const uint8_t **d, size_t *len, unsigned int n);

#endif /* NDK_FUZZ_COMMON_H */
