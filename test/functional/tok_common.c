/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Helpers shared by the token and the NDK_OP_FLAG_DEFER programs: see
 * tok_common.h.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>

#include "tok_common.h"

/* ------------------------------------------------------------------ */
/* Context                                                             */
/* ------------------------------------------------------------------ */

int
tok_open(struct tok_ctx *t, uint32_t mtu,
	 const struct ndk_pair_conn_opts *opts)
{
	ndk_status_t st;

	memset(t, 0, sizeof(*t));
	t->p = pair_get(mtu);
	TEST_ASSERT(t->p != NULL, "pair (mtu %u)", mtu);
	if (opts != NULL)
		t->opts = *opts;
	for (int s = 0; s < 2; s++) {
		st = ndk_create_pd(t->p->ad[s], &t->pd[s]);
		TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "ndk_create_pd %d: %s",
			       s, ndk_status_str(st));
		t->opts.pd[s] = t->pd[s];
	}
	if (tok_reconnect(t) != 0)
		return -1;
	return 0;
}

int
tok_reconnect(struct tok_ctx *t)
{
	struct ndk_pair_conn_opts o = t->opts;

	ndk_pair_conn_destroy(t->c);
	t->c = conn_new(t->p, &o);
	TEST_ASSERT(t->c != NULL, "connection");
	return 0;
}

void
tok_close(struct tok_ctx *t)
{
	ndk_pair_conn_destroy(t->c);
	t->c = NULL;
	for (int s = 0; s < 2; s++) {
		if (t->pd[s] != NULL) {
			ndk_status_t st = ndk_close_pd(t->pd[s], NULL, NULL);

			if (st != NDK_STATUS_SUCCESS)
				printf("  note: ndk_close_pd(%d): %s (objects "
				       "left in it)\n", s, ndk_status_str(st));
		}
		t->pd[s] = NULL;
	}
}

/* ------------------------------------------------------------------ */
/* States and completions                                              */
/* ------------------------------------------------------------------ */

enum ndk_qp_state
tok_qp_state(struct ndk_qp *qp)
{
	struct ndk_qp_attr a;

	if (ndk_qp_query(qp, &a) != NDK_STATUS_SUCCESS)
		return (enum ndk_qp_state)-1;
	return a.state;
}

int
tok_expect_both_error(struct ndk_pair_conn *c, const char *what)
{
	double end = ndk_pair_now() + WAIT_S;

	while ((tok_qp_state(c->qp[0]) != NDK_QP_STATE_ERROR ||
		tok_qp_state(c->qp[1]) != NDK_QP_STATE_ERROR) &&
	       ndk_pair_now() < end)
		ndk_pair_sleep_ms(1);
	TEST_ASSERT(tok_qp_state(c->qp[0]) == NDK_QP_STATE_ERROR &&
		    tok_qp_state(c->qp[1]) == NDK_QP_STATE_ERROR,
		    "%s: QP A %s, QP B %s (both must be ERROR)", what,
		    ndk_qp_state_str(tok_qp_state(c->qp[0])),
		    ndk_qp_state_str(tok_qp_state(c->qp[1])));
	return 0;
}

int
tok_expect_failure(struct ndk_cq *cq, enum ndk_operation_type type,
		   void *req, struct ndk_result_ex *out, const char *what)
{
	struct ndk_result_ex r;
	char d[200];

	if (ndk_pair_wait(cq, &r, 1, WAIT_S) != 1)
		TEST_FAIL("%s: no completion within %.0f s", what, WAIT_S);
	ndk_pair_result_str(&r, d, sizeof(d));
	printf("    %-40s -> %s\n", what, d);
	TEST_ASSERT(r.status != NDK_STATUS_SUCCESS, "%s succeeded: %s", what,
		    d);
	TEST_ASSERT(r.type == type && r.request_context == req,
		    "%s: want %s req %p: %s", what, ndk_pair_op_str(type), req,
		    d);
	TEST_ASSERT(r.provider_error != NDK_PERR_NONE,
		    "%s: failed without a provider error: %s", what, d);
	if (out != NULL)
		*out = r;
	return 0;
}

int
tok_expect_access_error(struct ndk_cq *cq, enum ndk_operation_type type,
			void *req, const char *what)
{
	struct ndk_result_ex r;
	char d[200];

	if (tok_expect_failure(cq, type, req, &r, what) != 0)
		return -1;
	ndk_pair_result_str(&r, d, sizeof(d));
	TEST_ASSERT(r.status == NDK_STATUS_REMOTE_RESOURCES &&
		    r.provider_error == NDK_PERR_REM_ACCESS,
		    "%s: want STATUS_REMOTE_RESOURCES / NDK_PERR_REM_ACCESS "
		    "(%d), got %s", what, NDK_PERR_REM_ACCESS, d);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Fast-register MRs                                                   */
/* ------------------------------------------------------------------ */

struct tok_frmr *
tok_frmr_new(struct ndk_pd *pd, uint32_t max_pages, bool remote_access,
	     uint32_t pool_pages, uint32_t seed)
{
	size_t bytes = (size_t)pool_pages * NDK_PAGE_SIZE;
	struct tok_frmr *f = calloc(1, sizeof(*f));
	ndk_status_t st;

	if (f == NULL)
		return NULL;
	f->pd = pd;
	f->pool_pages = pool_pages;
	f->max_pages = max_pages;
	f->remote_access = remote_access;
	f->mem = rte_malloc("tok_frmr", bytes, NDK_PAGE_SIZE);
	f->shadow = malloc(bytes);
	f->pages = calloc(max_pages + 1, sizeof(*f->pages));
	f->page_idx = calloc(max_pages + 1, sizeof(*f->page_idx));
	if (f->mem == NULL || f->shadow == NULL || f->pages == NULL ||
	    f->page_idx == NULL) {
		fprintf(stderr, "  tok_frmr_new: out of memory (%zu B)\n",
			bytes);
		goto fail;
	}
	ndk_pair_fill(f->mem, bytes, seed);
	memcpy(f->shadow, f->mem, bytes);
	st = ndk_create_mr(pd, true, &f->mr);
	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "  ndk_create_mr(fast): %s\n",
			ndk_status_str(st));
		f->mr = NULL;
		goto fail;
	}
	st = ndk_initialize_fast_register_mr(f->mr, max_pages, remote_access);
	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "  ndk_initialize_fast_register_mr(%u, %d): "
			"%s\n", max_pages, remote_access, ndk_status_str(st));
		goto fail;
	}
	return f;
fail:
	tok_frmr_free(f);
	return NULL;
}

void
tok_frmr_map(struct tok_frmr *f, uint32_t npages, bool scramble,
	     uint32_t fbo, size_t len, uint64_t base_va)
{
	bool scr = scramble && f->pool_pages >= 2 * npages;

	f->npages = npages;
	for (uint32_t i = 0; i < npages && i <= f->max_pages; i++) {
		f->page_idx[i] = scr ? f->pool_pages - 1 - 2 * i :
			i % f->pool_pages;
		f->pages[i] = (uint64_t)(uintptr_t)
			(f->mem + (size_t)f->page_idx[i] * NDK_PAGE_SIZE);
	}
	f->fbo = fbo;
	f->len = len;
	f->base_va = base_va;
}

ndk_status_t
tok_frmr_post(struct tok_frmr *f, struct ndk_qp *qp, void *req,
	      uint32_t flags)
{
	ndk_status_t st = ndk_fast_register(qp, req, f->mr, f->npages,
					    f->pages, f->fbo, f->len,
					    f->base_va, flags);

	if (st == NDK_STATUS_SUCCESS) {
		f->rtoken = ndk_mr_remote_token(f->mr);
		f->ltoken = ndk_mr_local_token(f->mr);
	}
	return st;
}

int
tok_frmr_register(struct tok_frmr *f, struct ndk_pair_conn *c, int side,
		  uint32_t flags, const char *what)
{
	ndk_status_t st = tok_frmr_post(f, c->qp[side], TOK_REQ_FR, flags);

	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "%s: ndk_fast_register: %s",
		       what, ndk_status_str(st));
	return expect_one(c->icq[side], NDK_OP_FAST_REGISTER,
			  side == 0 ? (void *)&qctx_a : (void *)&qctx_b,
			  TOK_REQ_FR, -1, what);
}

int
tok_invalidate(struct ndk_pair_conn *c, int side, struct ndk_object_header *h,
	       const char *what)
{
	ndk_status_t st = ndk_invalidate(c->qp[side], TOK_REQ_INV, h, 0);

	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "%s: ndk_invalidate: %s", what,
		       ndk_status_str(st));
	return expect_one(c->icq[side], NDK_OP_INVALIDATE,
			  side == 0 ? (void *)&qctx_a : (void *)&qctx_b,
			  TOK_REQ_INV, -1, what);
}

uint8_t *
tok_frmr_host(const struct tok_frmr *f, uint64_t x)
{
	uint64_t off = f->fbo + x;

	return (uint8_t *)(uintptr_t)f->pages[off / NDK_PAGE_SIZE] +
		off % NDK_PAGE_SIZE;
}

void
tok_frmr_gather(const struct tok_frmr *f, uint64_t x, void *dst, size_t n)
{
	uint8_t *d = dst;

	while (n != 0) {
		uint64_t off = f->fbo + x;
		size_t k = NDK_PAGE_SIZE - off % NDK_PAGE_SIZE;

		if (k > n)
			k = n;
		memcpy(d, tok_frmr_host(f, x), k);
		d += k;
		x += k;
		n -= k;
	}
}

void
tok_frmr_expect(struct tok_frmr *f, uint64_t x, const void *src, size_t n)
{
	const uint8_t *s = src;

	while (n != 0) {
		uint64_t off = f->fbo + x;
		size_t k = NDK_PAGE_SIZE - off % NDK_PAGE_SIZE;
		size_t pool_off = (size_t)(tok_frmr_host(f, x) - f->mem);

		if (k > n)
			k = n;
		memcpy(f->shadow + pool_off, s, k);
		s += k;
		x += k;
		n -= k;
	}
}

long
tok_frmr_diff(const struct tok_frmr *f)
{
	size_t bytes = (size_t)f->pool_pages * NDK_PAGE_SIZE;

	if (memcmp(f->mem, f->shadow, bytes) == 0)
		return -1;
	for (size_t i = 0; i < bytes; i++)
		if (f->mem[i] != f->shadow[i])
			return (long)i;
	return -1;
}

void
tok_frmr_free(struct tok_frmr *f)
{
	if (f == NULL)
		return;
	if (f->mr != NULL) {
		ndk_status_t st = ndk_close_mr(f->mr, NULL, NULL);

		if (st != NDK_STATUS_SUCCESS)
			printf("  note: ndk_close_mr(FRMR): %s\n",
			       ndk_status_str(st));
	}
	rte_free(f->mem);
	free(f->shadow);
	free(f->pages);
	free(f->page_idx);
	free(f);
}

/* ------------------------------------------------------------------ */
/* Remote operations                                                   */
/* ------------------------------------------------------------------ */

uint8_t *
tok_pattern(size_t len, uint32_t seed)
{
	uint8_t *b = malloc(len == 0 ? 1 : len);

	if (b != NULL)
		ndk_pair_fill(b, len, seed);
	return b;
}

int
tok_remote_fails(struct tok_ctx *t, int from, bool fresh, bool read,
		 uint64_t raddr, uint32_t rtoken, uint32_t len,
		 const char *what)
{
	int to = 1 - from;
	struct ndk_pair_buf *loc;
	struct ndk_pair_conn *c;
	struct ndk_sge s;
	ndk_status_t st;

	if (fresh && tok_reconnect(t) != 0)
		return -1;
	c = t->c;
	loc = ndk_pair_buf_alloc(t->p, c->pd[from], len,
				 read_sink_flags(t->p));
	TEST_ASSERT(loc != NULL, "%s: buffer", what);
	ndk_pair_fill(loc->data, len, 0x10C);
	s = ndk_pair_sge(loc, 0, len);
	if (read)
		st = ndk_read(c->qp[from], TOK_REQ_OP, &s, 1, raddr, rtoken,
			      0);
	else
		st = ndk_write(c->qp[from], TOK_REQ_OP, &s, 1, raddr, rtoken,
			       0);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "%s: post: %s", what,
		       ndk_status_str(st));
	if (tok_expect_access_error(c->icq[from], read ? NDK_OP_READ :
				    NDK_OP_WRITE, TOK_REQ_OP, what) != 0 ||
	    tok_expect_both_error(c, what) != 0)
		return -1;
	if (!read)
		TEST_ASSERT(ndk_pair_check(loc->data, len, 0x10C) < 0,
			    "%s: the WRITE's source changed", what);
	TEST_ASSERT(ndk_pair_buf_guards_ok(loc), "%s: local guards", what);
	if (expect_none(c->rcq[to], what) != 0 ||
	    expect_none(c->icq[to], what) != 0 ||
	    expect_none(c->icq[from], what) != 0)
		return -1;
	ndk_pair_buf_free(loc);
	return 0;
}

int
tok_remote_ok(struct tok_ctx *t, int from, bool read, uint64_t raddr,
	      uint32_t rtoken, uint32_t len, uint32_t seed, uint8_t *out,
	      const char *what)
{
	struct ndk_pair_conn *c = t->c;
	struct ndk_pair_buf *loc;
	struct ndk_sge s;
	ndk_status_t st;

	loc = ndk_pair_buf_alloc(t->p, c->pd[from], len,
				 read_sink_flags(t->p));
	TEST_ASSERT(loc != NULL, "%s: buffer", what);
	if (!read)
		ndk_pair_fill(loc->data, len, seed);
	s = ndk_pair_sge(loc, 0, len);
	if (read)
		st = ndk_read(c->qp[from], TOK_REQ_OP, &s, 1, raddr, rtoken,
			      0);
	else
		st = ndk_write(c->qp[from], TOK_REQ_OP, &s, 1, raddr, rtoken,
			       0);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "%s: post: %s", what,
		       ndk_status_str(st));
	if (expect_one(c->icq[from], read ? NDK_OP_READ : NDK_OP_WRITE,
		       from == 0 ? (void *)&qctx_a : (void *)&qctx_b,
		       TOK_REQ_OP, -1, what) != 0)
		return -1;
	if (read && out != NULL)
		memcpy(out, loc->data, len);
	TEST_ASSERT(ndk_pair_buf_guards_ok(loc), "%s: local guards", what);
	ndk_pair_buf_free(loc);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Shared by the token programs                                        */
/* ------------------------------------------------------------------ */

/* FRMR flags for a local READ sink. */
uint32_t
fr_sink_flags(const struct ndk_pair *p)
{
	return NDK_OP_FLAG_ALLOW_LOCAL_WRITE |
		((p->info[0].adapter_flags &
		  NDK_ADAPTER_FLAG_RDMA_READ_SINK_NOT_REQUIRED) ? 0 :
		 NDK_OP_FLAG_RDMA_READ_SINK);
}

/* The FRMR's pool is exactly what its shadow says. */
int
frmr_check(const struct tok_frmr *f, const char *what)
{
	long d = tok_frmr_diff(f);

	TEST_ASSERT(d < 0, "%s: FRMR memory differs at pool offset %ld (page "
		    "%ld + %ld): 0x%02x, expected 0x%02x", what, d,
		    d / (long)NDK_PAGE_SIZE, d % (long)NDK_PAGE_SIZE,
		    f->mem[d], f->shadow[d]);
	return 0;
}

/* A WRITE of pattern @p seed by A at FRMR offset @p x: checked placement. */
int
frmr_write_ok(struct tok_ctx *t, struct tok_frmr *f, uint64_t x, uint32_t len,
	      uint32_t seed, const char *what)
{
	uint8_t *pat = tok_pattern(len, seed);

	TEST_ASSERT(pat != NULL, "memory");
	if (tok_remote_ok(t, 0, false, f->base_va + x, f->rtoken, len, seed,
			  NULL, what) != 0) {
		free(pat);
		return -1;
	}
	tok_frmr_expect(f, x, pat, len);
	free(pat);
	return frmr_check(f, what);
}

/* A READ by A at FRMR offset @p x returns exactly the mapped bytes. */
int
frmr_read_ok(struct tok_ctx *t, struct tok_frmr *f, uint64_t x, uint32_t len,
	     const char *what)
{
	uint8_t *got = malloc(len), *want = malloc(len);
	int rc = -1;

	TEST_ASSERT(got != NULL && want != NULL, "memory");
	if (tok_remote_ok(t, 0, true, f->base_va + x, f->rtoken, len, 0, got,
			  what) != 0)
		goto out;
	tok_frmr_gather(f, x, want, len);
	for (uint32_t i = 0; i < len; i++) {
		if (got[i] != want[i]) {
			fprintf(stderr, "  FAIL %s: READ byte %u (FRMR offset "
				"%" PRIu64 ") is 0x%02x, mapped byte 0x%02x\n",
				what, i, x + i, got[i], want[i]);
			goto out;
		}
	}
	rc = frmr_check(f, what);
out:
	free(got);
	free(want);
	return rc;
}

struct ndk_sge
fsge(const struct tok_frmr *f, uint64_t x, uint32_t len)
{
	struct ndk_sge s = {
		.va = (void *)(uintptr_t)(f->base_va + x),
		.length = len,
		.token = f->ltoken,
	};
	return s;
}

int
sbuf_new(struct shadow_buf *s, struct ndk_pair *p, struct ndk_pd *pd,
	 size_t len, uint32_t flags, uint32_t seed)
{
	s->b = ndk_pair_buf_alloc(p, pd, len, flags);
	s->want = malloc(len);
	TEST_ASSERT(s->b != NULL && s->want != NULL, "buffer");
	ndk_pair_fill(s->b->data, len, seed);
	memcpy(s->want, s->b->data, len);
	return 0;
}

int
sbuf_check(const struct shadow_buf *s, const char *what)
{
	TEST_ASSERT(memcmp(s->b->data, s->want, s->b->len) == 0,
		    "%s: target buffer changed", what);
	TEST_ASSERT(ndk_pair_buf_guards_ok(s->b), "%s: target guards", what);
	return 0;
}

void
sbuf_free(struct shadow_buf *s)
{
	ndk_pair_buf_free(s->b);
	free(s->want);
}

/* Create a window on B and bind it to [MW_OFF, MW_OFF + MW_LEN) of @p b. */
int
mw_bind(struct tok_ctx *t, struct ndk_pair_buf *b, uint32_t flags,
	struct ndk_mw **mw, uint32_t *token, const char *what)
{
	ndk_status_t st;

	st = ndk_create_mw(t->pd[1], mw);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "%s: ndk_create_mw: %s", what,
		       ndk_status_str(st));
	st = ndk_bind(t->c->qp[1], TOK_REQ_BIND, b->mr, *mw, b->data + MW_OFF,
		      MW_LEN, flags);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "%s: ndk_bind: %s", what,
		       ndk_status_str(st));
	*token = ndk_mw_remote_token(*mw);
	TEST_ASSERT(*token != 0 && *token != b->rtoken,
		    "%s: window token 0x%08x (MR's 0x%08x)", what, *token,
		    b->rtoken);
	return expect_one(t->c->icq[1], NDK_OP_BIND, &qctx_b, TOK_REQ_BIND, -1,
			  what);
}

/* ------------------------------------------------------------------ */
/* NDK_OP_FLAG_DEFER (test_defer.c, test_defer_flags.c)                */
/* ------------------------------------------------------------------ */

/* A connection (QP contexts qctx_a/qctx_b); skipped if no get_stats. */
int
dconn(struct ndk_pair **pp, struct ndk_pair_conn **cp,
      struct ndk_pair_conn_opts *o)
{
	struct ndk_pair_conn_opts def = {
		.rq_depth = 64, .sq_depth = 64, .cq_depth = 256,
	};
	*pp = pair_get(0);
	TEST_ASSERT(*pp != NULL, "pair");
	if (o == NULL)
		o = &def;
	*cp = conn_new(*pp, o);
	TEST_ASSERT(*cp != NULL, "connection");
	/* Let anything of earlier cases drain before counting frames. */
	ndk_pair_sleep_ms(20);
	return 0;
}

void
qstats(struct ndk_qp *qp, struct ndk_qp_stats *s)
{
	memset(s, 0xff, sizeof(*s));
	ndk_qp_get_stats(qp, s);
}
int
expect_chain_stats(struct ndk_qp *qp, uint64_t posted, uint64_t deferred,
		   uint64_t chains, uint64_t chain_requests, uint64_t chain_max,
		   const char *what)
{
	struct ndk_qp_stats s;

	qstats(qp, &s);
	printf("  %s: posted %" PRIu64 " deferred %" PRIu64 " chains %" PRIu64
	       " chain_requests %" PRIu64 " chain_max %" PRIu64 "\n", what,
	       s.posted, s.deferred, s.chains, s.chain_requests, s.chain_max);
	TEST_ASSERT(s.posted == posted && s.deferred == deferred &&
		    s.chains == chains && s.chain_requests == chain_requests &&
		    s.chain_max == chain_max, "%s: want posted %" PRIu64
		    " deferred %" PRIu64 " chains %" PRIu64 " chain_requests %"
		    PRIu64 " chain_max %" PRIu64, what, posted, deferred,
		    chains, chain_requests, chain_max);
	return 0;
}

/* Wait for @p n completions on @p cq, each of @p type, req 1..n, success. */
int
expect_in_order(struct ndk_cq *cq, uint32_t n, enum ndk_operation_type type,
		uintptr_t req0, int64_t bytes, const char *what)
{
	struct ndk_result_ex r[N_CHAIN * 4];
	char d[200];
	uint32_t got = ndk_pair_wait(cq, r, n, WAIT_S);

	TEST_ASSERT_EQ(got, n, "%s: completions", what);
	for (uint32_t i = 0; i < n; i++) {
		ndk_pair_result_str(&r[i], d, sizeof(d));
		TEST_ASSERT(r[i].status == NDK_STATUS_SUCCESS &&
			    r[i].type == type &&
			    r[i].request_context == (void *)(req0 + i) &&
			    (bytes < 0 || r[i].bytes_transferred ==
			     (uint32_t)bytes),
			    "%s: completion %u: %s", what, i, d);
	}
	return 0;
}

void
conn_free_all(struct ndk_pair_conn *c, struct ndk_pair_buf *const *b,
	      unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		ndk_pair_buf_free(b[i]);
	ndk_pair_conn_destroy(c);
}
