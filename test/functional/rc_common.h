/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RC_COMMON_H
#define RC_COMMON_H

/**
 * @file
 * Helpers shared by the RC functional programs (test_rc_basic.c,
 * test_rc_data.c, test_rc_qps.c, test_rc_errors.c): the process's adapter
 * pair, connections whose QP contexts completions must return, completion
 * checks, and a checked transfer of one message.
 *
 * The checks use the TEST_* macros of ndk_test.h: they print the failure
 * and return -1, and return 0 when everything held.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ndk.h"
#include "ndk_pair_test.h"
#include "ndk_test.h"

/** Seconds to wait for a completion before failing. */
#define WAIT_S 60.0

/** QP contexts of conn_new()'s QPs (A, B): completions must return them. */
extern int qctx_a, qctx_b;

enum xop { XOP_SEND, XOP_WRITE, XOP_READ };

/**
 * The process's adapter pair with path MTU @p mtu (0: the pair's default,
 * 4096), created on first use; a different MTU replaces the pair.
 * @return the pair, or NULL if it could not be created.
 */
struct ndk_pair *pair_get(uint32_t mtu);

/** pair_get() with the adapters' trust_link_crc as given. */
struct ndk_pair *pair_get_opts(uint32_t mtu, bool trust_link_crc);

/** A connection with qctx_a/qctx_b as QP contexts; @p o may be NULL. */
struct ndk_pair_conn *conn_new(struct ndk_pair *p,
			       struct ndk_pair_conn_opts *o);

/** MR flags of a READ destination. */
uint32_t read_sink_flags(const struct ndk_pair *p);

/**
 * Wait for one successful completion and check its type, QP context,
 * request context, provider error and (when @p bytes >= 0) byte count.
 */
int expect_one(struct ndk_cq *cq, enum ndk_operation_type type, void *qp_ctx,
	       void *req_ctx, int64_t bytes, const char *what);

/** Wait for one successful completion of @p type carrying @p req. */
int expect_ok(struct ndk_cq *cq, enum ndk_operation_type type, void *req,
	      const char *what);

/**
 * CQ notification callback that counts its calls in the uint32_t
 * @p ctx points to (atomically; the status is not looked at).
 */
void cq_count_cb(void *ctx, ndk_status_t cq_status);

/** The count cq_count_cb() keeps at @p counter. */
uint32_t cq_count_get(uint32_t *counter);

/** Wait until cq_count_get(@p counter) reaches @p n (or WAIT_S). */
bool cq_count_wait(uint32_t *counter, uint32_t n);

/** No completion is waiting on @p cq. */
int expect_none(struct ndk_cq *cq, const char *what);

/** Every one of the @p n bytes at @p p is zero. */
bool all_zero(const uint8_t *p, size_t n);

/**
 * Move @p len bytes A -> B (SEND, WRITE) or B -> A (READ, issued by A) on a
 * conn_new() connection and check data, completions and guards.
 */
int xfer(struct ndk_pair *p, struct ndk_pair_conn *c, enum xop op,
	 size_t len, uint32_t seed);

/**
 * main() of an RC program: start the EAL on lcores 0-1 as @p prog, run
 * @p cases as suite @p suite, print the pair's counters and free it.
 * @return the process exit status.
 */
int rc_main(const char *prog, const char *suite,
	    const struct ndk_test_case *cases, unsigned int n, int argc,
	    char **argv);

#endif /* RC_COMMON_H */
