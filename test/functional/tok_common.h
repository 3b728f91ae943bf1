/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef TOK_COMMON_H
#define TOK_COMMON_H

/**
 * @file
 * Helpers shared by the token programs (test_frmr.c, test_access.c,
 * test_mw.c, test_send_inv.c) and the NDK_OP_FLAG_DEFER programs
 * (test_defer.c, test_defer_flags.c), on top of rc_common.h: a test context
 * with its own PDs (so that several connections, made one after another
 * because access errors kill them, reach the same regions), fast-register
 * MRs over scattered pages with a shadow copy of their memory, the checks
 * of a remote access error, buffers with a shadow, memory windows, and the
 * connections and checks of deferred chains.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rc_common.h"

/** Request contexts of the helpers' own posts. */
#define TOK_REQ_FR ((void *)(uintptr_t)0xF4)
#define TOK_REQ_INV ((void *)(uintptr_t)0x14)
#define TOK_REQ_BIND ((void *)(uintptr_t)0xB1)
#define TOK_REQ_OP ((void *)(uintptr_t)0x0B)

/** A pair, its PDs (one per side) and the current connection. */
struct tok_ctx {
	struct ndk_pair *p;
	struct ndk_pd *pd[2];
	struct ndk_pair_conn *c;
	struct ndk_pair_conn_opts opts;   /**< of every new connection */
};

/**
 * Open the context on pair_get(@p mtu): PDs on both adapters and a first
 * connection using them (conn_new(), QP contexts qctx_a/qctx_b).
 * @return 0, -1 on failure, NDK_TEST_SKIPPED if the provider lacks the
 *   token calls (message printed).
 */
int tok_open(struct tok_ctx *t, uint32_t mtu,
	     const struct ndk_pair_conn_opts *opts);

/** Replace the connection by a new one on the same PDs. @return 0 or -1. */
int tok_reconnect(struct tok_ctx *t);

/** Close the connection and the PDs (their regions must be closed). */
void tok_close(struct tok_ctx *t);

/** The QP's state, or -1 if it cannot be queried. */
enum ndk_qp_state tok_qp_state(struct ndk_qp *qp);

/**
 * Wait (up to WAIT_S) for both QPs of @p c to be in ERROR; fail with the
 * states otherwise.
 */
int tok_expect_both_error(struct ndk_pair_conn *c, const char *what);

/**
 * Wait for one completion on @p cq and check it is the failure of a
 * remote access: status STATUS_REMOTE_RESOURCES, provider error
 * NDK_PERR_REM_ACCESS, type @p type, request context @p req.
 */
int tok_expect_access_error(struct ndk_cq *cq, enum ndk_operation_type type,
			    void *req, const char *what);

/** Wait for one completion and check only that it failed (printed). */
int tok_expect_failure(struct ndk_cq *cq, enum ndk_operation_type type,
		       void *req, struct ndk_result_ex *out, const char *what);

/* ------------------------------------------------------------------ */
/* Fast-register MRs                                                   */
/* ------------------------------------------------------------------ */

/**
 * A fast-register MR with a pool of NDK_PAGE_SIZE pages (rte_malloc,
 * page aligned) that its mappings take pages from, and a shadow of what
 * the pool must contain.
 */
struct tok_frmr {
	struct ndk_mr *mr;
	struct ndk_pd *pd;
	uint8_t *mem;            /**< the pool */
	uint8_t *shadow;         /**< expected pool content */
	uint32_t pool_pages;
	uint32_t max_pages;      /**< page count it was initialised with */
	bool remote_access;
	/* Current mapping (tok_frmr_map). */
	uint32_t npages;
	uint64_t *pages;         /**< max_pages entries */
	uint32_t *page_idx;      /**< pool index of each mapped page */
	uint32_t fbo;
	size_t len;
	uint64_t base_va;
	/* Tokens of the latest fast register posted. */
	uint32_t rtoken;
	uint32_t ltoken;
};

/**
 * Create and initialise an FRMR in @p pd for @p max_pages pages with a pool
 * of @p pool_pages pages filled with the pattern of @p seed.
 * @return the FRMR or NULL (reason printed).
 */
struct tok_frmr *tok_frmr_new(struct ndk_pd *pd, uint32_t max_pages,
			      bool remote_access, uint32_t pool_pages,
			      uint32_t seed);

/**
 * Choose the mapping of the next fast register: @p npages pages of the
 * pool, scattered (taken backwards, every other page, when @p scramble and
 * the pool is large enough) or the first ones in order; first byte at
 * @p fbo of the first page; @p len bytes; I/O address @p base_va.
 */
void tok_frmr_map(struct tok_frmr *f, uint32_t npages, bool scramble,
		  uint32_t fbo, size_t len, uint64_t base_va);

/** Post ndk_fast_register() of the current mapping on @p qp. */
ndk_status_t tok_frmr_post(struct tok_frmr *f, struct ndk_qp *qp, void *req,
			   uint32_t flags);

/**
 * Post the fast register on @p c's side @p side and wait for its
 * successful NDK_OP_FAST_REGISTER completion.
 */
int tok_frmr_register(struct tok_frmr *f, struct ndk_pair_conn *c, int side,
		      uint32_t flags, const char *what);

/** Post ndk_invalidate() on side @p side and wait for its completion. */
int tok_invalidate(struct ndk_pair_conn *c, int side,
		   struct ndk_object_header *h, const char *what);

/** Host address of byte @p x (offset from base_va) of the mapping. */
uint8_t *tok_frmr_host(const struct tok_frmr *f, uint64_t x);

/** Copy @p n bytes of the mapping at @p x into @p dst. */
void tok_frmr_gather(const struct tok_frmr *f, uint64_t x, void *dst,
		     size_t n);

/** Record in the shadow that @p n bytes of @p src were placed at @p x. */
void tok_frmr_expect(struct tok_frmr *f, uint64_t x, const void *src,
		     size_t n);

/**
 * Compare the pool with its shadow. @return -1 if equal, else the pool
 * offset of the first difference.
 */
long tok_frmr_diff(const struct tok_frmr *f);

/** Close the MR (if still open) and free the pool. */
void tok_frmr_free(struct tok_frmr *f);

/* ------------------------------------------------------------------ */
/* Remote operations that must fail                                    */
/* ------------------------------------------------------------------ */

/**
 * Let side @p from READ or WRITE @p len bytes at @p raddr of its peer with
 * @p rtoken, on a new connection of @p t (@p fresh, tok_reconnect) or on
 * the current one; check the access error (status, provider error), that
 * both QPs end in ERROR, that no other completion appears and that the
 * local buffer's guards hold (and a WRITE's source). The caller checks the
 * target memory.
 */
int tok_remote_fails(struct tok_ctx *t, int from, bool fresh, bool read,
		     uint64_t raddr, uint32_t rtoken, uint32_t len,
		     const char *what);

/**
 * On the current connection, let side @p from READ or WRITE @p len bytes
 * at @p raddr of its peer with @p rtoken and check success (WRITE: data
 * from pattern @p seed; READ: the bytes read are returned in @p out if not
 * NULL).
 */
int tok_remote_ok(struct tok_ctx *t, int from, bool read, uint64_t raddr,
		  uint32_t rtoken, uint32_t len, uint32_t seed, uint8_t *out,
		  const char *what);

/** The pattern of @p seed into a malloc'ed buffer (caller frees). */
uint8_t *tok_pattern(size_t len, uint32_t seed);

/* ------------------------------------------------------------------ */
/* Shared by the token programs                                        */
/* ------------------------------------------------------------------ */

/*
 * Side A (index 0) is the requester of the remote operations, side B
 * (index 1) owns the regions, unless a case says otherwise.
 */

/* I/O addresses of FRMR mappings: any non-zero value = fbo mod 4096. */
#define VA1(fbo) (UINT64_C(0x0000123456780000) + (fbo))
#define VA2(fbo) (UINT64_C(0x00000ABC00000000) + (fbo))
#define VA3(fbo) (UINT64_C(0xFFFF800000000000) + (fbo))

#define RW_FLAGS \
	(NDK_OP_FLAG_ALLOW_REMOTE_READ | NDK_OP_FLAG_ALLOW_REMOTE_WRITE)
#define MR_RW (NDK_MR_FLAG_ALLOW_REMOTE_READ | NDK_MR_FLAG_ALLOW_REMOTE_WRITE)

/** FRMR flags for a local READ sink. */
uint32_t fr_sink_flags(const struct ndk_pair *p);

/** The FRMR's pool is exactly what its shadow says. */
int frmr_check(const struct tok_frmr *f, const char *what);

/** A WRITE of pattern @p seed by A at FRMR offset @p x: checked placement. */
int frmr_write_ok(struct tok_ctx *t, struct tok_frmr *f, uint64_t x,
		  uint32_t len, uint32_t seed, const char *what);

/** A READ by A at FRMR offset @p x returns exactly the mapped bytes. */
int frmr_read_ok(struct tok_ctx *t, struct tok_frmr *f, uint64_t x,
		 uint32_t len, const char *what);

/** A local SGE of @p len bytes at offset @p x of the FRMR (local token). */
struct ndk_sge fsge(const struct tok_frmr *f, uint64_t x, uint32_t len);

/** Plain buffer with a copy of what it must hold. */
struct shadow_buf {
	struct ndk_pair_buf *b;
	uint8_t *want;
};

/** Allocate @p s's buffer in @p pd, filled with the pattern of @p seed. */
int sbuf_new(struct shadow_buf *s, struct ndk_pair *p, struct ndk_pd *pd,
	     size_t len, uint32_t flags, uint32_t seed);

/** The buffer still holds its copy and its guards. */
int sbuf_check(const struct shadow_buf *s, const char *what);

void sbuf_free(struct shadow_buf *s);

/** Offset and length of the windows mw_bind() binds. */
#define MW_OFF 1000u
#define MW_LEN 5000u

/** Create a window on B and bind it to [MW_OFF, MW_OFF + MW_LEN) of @p b. */
int mw_bind(struct tok_ctx *t, struct ndk_pair_buf *b, uint32_t flags,
	    struct ndk_mw **mw, uint32_t *token, const char *what);

/* ------------------------------------------------------------------ */
/* NDK_OP_FLAG_DEFER (test_defer.c, test_defer_flags.c)                */
/* ------------------------------------------------------------------ */

/** Requests of a chain; expect_in_order() takes up to 4 times as many. */
#define N_CHAIN 16
/** Bytes of each request's message. */
#define DEFER_MSG 256

/**
 * A connection (QP contexts qctx_a/qctx_b) on pair_get(0), with @p o or
 * default queue depths; NDK_TEST_SKIPPED if no get_stats.
 */
int dconn(struct ndk_pair **pp, struct ndk_pair_conn **cp,
	  struct ndk_pair_conn_opts *o);

/** The QP's statistics (all ones where ndk_qp_get_stats() fails). */
void qstats(struct ndk_qp *qp, struct ndk_qp_stats *s);

/** The QP's chain counters (printed) are exactly these. */
int expect_chain_stats(struct ndk_qp *qp, uint64_t posted, uint64_t deferred,
		       uint64_t chains, uint64_t chain_requests,
		       uint64_t chain_max, const char *what);

/** Wait for @p n completions on @p cq, each of @p type, req 1..n, success. */
int expect_in_order(struct ndk_cq *cq, uint32_t n, enum ndk_operation_type type,
		    uintptr_t req0, int64_t bytes, const char *what);

/** Free the @p n buffers of @p b, then the connection @p c. */
void conn_free_all(struct ndk_pair_conn *c, struct ndk_pair_buf *const *b,
		   unsigned int n);

#endif /* TOK_COMMON_H */
