/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: tokens. Fast-register MRs (scattered pages, first byte
 * offsets, I/O address spaces, a new token per registration), memory
 * windows, NdkInvalidate, NdkSendAndInvalidate, READ with local
 * invalidate, invalidation in the middle of a READ, and every remote
 * access violation a token can cause (the requester gets a remote access
 * error, both QPs end in ERROR, the target memory is untouched).
 *
 * Side A (index 0) is the requester of the remote operations, side B
 * (index 1) owns the regions, unless a case says otherwise.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "tok_common.h"

/* I/O addresses of FRMR mappings: any non-zero value = fbo mod 4096. */
#define VA1(fbo) (UINT64_C(0x0000123456780000) + (fbo))
#define VA2(fbo) (UINT64_C(0x00000ABC00000000) + (fbo))
#define VA3(fbo) (UINT64_C(0xFFFF800000000000) + (fbo))

#define RW_FLAGS \
	(NDK_OP_FLAG_ALLOW_REMOTE_READ | NDK_OP_FLAG_ALLOW_REMOTE_WRITE)
#define MR_RW (NDK_MR_FLAG_ALLOW_REMOTE_READ | NDK_MR_FLAG_ALLOW_REMOTE_WRITE)
#define RLI_FLAG NDK_ADAPTER_FLAG_RDMA_READ_LOCAL_INVALIDATE_SUPPORTED

/* FRMR flags for a local READ sink. */
static uint32_t
fr_sink_flags(const struct ndk_pair *p)
{
	return NDK_OP_FLAG_ALLOW_LOCAL_WRITE |
		((p->info[0].adapter_flags &
		  NDK_ADAPTER_FLAG_RDMA_READ_SINK_NOT_REQUIRED) ? 0 :
		 NDK_OP_FLAG_RDMA_READ_SINK);
}

/* The FRMR's pool is exactly what its shadow says. */
static int
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
static int
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
static int
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

/* ------------------------------------------------------------------ */
/* Adapter                                                             */
/* ------------------------------------------------------------------ */

static int
t_adapter_flags(void)
{
	struct ndk_pair *p = pair_get(0);

	TEST_ASSERT(p != NULL, "pair");
	for (int s = 0; s < 2; s++) {
		const struct ndk_adapter_info *i = &p->info[s];

		printf("  adapter %c: flags 0x%08x, frmr_page_count %u, "
		       "max_window_size %zu\n", 'A' + s, i->adapter_flags,
		       i->frmr_page_count, i->max_window_size);
		TEST_ASSERT(i->adapter_flags &
			    NDK_ADAPTER_FLAG_X_REMOTE_INVALIDATE_SUPPORTED,
			    "X_REMOTE_INVALIDATE_SUPPORTED missing");
		TEST_ASSERT(i->adapter_flags & RLI_FLAG,
			    "RDMA_READ_LOCAL_INVALIDATE_SUPPORTED missing");
		TEST_ASSERT(i->frmr_page_count >= 16,
			    "NDK requires frmr_page_count >= 16");
		TEST_ASSERT(i->max_window_size != 0, "max_window_size 0");
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Fast register: inline checks                                        */
/* ------------------------------------------------------------------ */

static int
t_frmr_inline_checks(void)
{
	struct tok_ctx t;
	struct ndk_pair_buf *plain;
	struct tok_frmr *loc, *g;
	struct ndk_mr *mr;
	struct ndk_qp *qb;
	uint64_t saved;
	void *heap;
	ndk_status_t st;
	int rc = tok_open(&t, 0, NULL);

	if (rc != 0)
		return rc;
	qb = t.c->qp[1];
	plain = ndk_pair_buf_alloc(t.p, t.pd[1], 8192, MR_RW);
	TEST_ASSERT(plain != NULL, "buffer");

	/* MR kinds are not interchangeable. */
	st = ndk_initialize_fast_register_mr(plain->mr, 4, true);
	TEST_ASSERT_EQ(st, NDK_STATUS_INVALID_DEVICE_REQUEST,
		       "initialize on a plain MR: %s", ndk_status_str(st));
	TEST_ASSERT_EQ(ndk_create_mr(t.pd[1], true, &mr), NDK_STATUS_SUCCESS,
		       "create FRMR");
	st = ndk_register_mr(mr, plain->data, 4096, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_INVALID_DEVICE_REQUEST,
		       "ndk_register_mr on an FRMR: %s", ndk_status_str(st));
	st = ndk_initialize_fast_register_mr(mr, t.p->info[1].frmr_page_count
					     + 1, true);
	TEST_ASSERT_EQ(st, NDK_STATUS_IMPLEMENTATION_LIMIT,
		       "initialize above frmr_page_count: %s",
		       ndk_status_str(st));
	TEST_ASSERT_EQ(ndk_close_mr(mr, NULL, NULL), NDK_STATUS_SUCCESS,
		       "close");

	/* Remote rights of an FRMR initialised without remote access. */
	loc = tok_frmr_new(t.pd[1], 4, false, 4, 0x1A);
	TEST_ASSERT(loc != NULL, "local-only FRMR");
	tok_frmr_map(loc, 4, false, 0, 4 * NDK_PAGE_SIZE, VA1(0));
	{
		static const uint32_t fl[] = {
			NDK_OP_FLAG_ALLOW_REMOTE_READ,
			NDK_OP_FLAG_ALLOW_REMOTE_WRITE,
			RW_FLAGS,
			NDK_OP_FLAG_ALLOW_LOCAL_WRITE |
			NDK_OP_FLAG_ALLOW_REMOTE_READ,
		};

		for (unsigned int i = 0; i < RTE_DIM(fl); i++) {
			st = tok_frmr_post(loc, qb, TOK_REQ_FR, fl[i]);
			TEST_ASSERT_EQ(st, NDK_STATUS_ACCESS_VIOLATION,
				       "remote flags 0x%x on a local-only "
				       "FRMR: %s", fl[i], ndk_status_str(st));
		}
	}

	/* Bad page lists, lengths and addresses. */
	g = tok_frmr_new(t.pd[1], 4, true, 8, 0x1B);
	TEST_ASSERT(g != NULL, "FRMR");
#define BAD_FR(what) do { \
		st = tok_frmr_post(g, qb, TOK_REQ_FR, RW_FLAGS); \
		TEST_ASSERT_EQ(st, NDK_STATUS_INVALID_PARAMETER, "%s: %s", \
			       what, ndk_status_str(st)); \
	} while (0)
	tok_frmr_map(g, 5, false, 0, 5 * NDK_PAGE_SIZE, VA1(0));
	BAD_FR("more pages than initialised");
	tok_frmr_map(g, 4, false, 0, 4 * NDK_PAGE_SIZE + 1, VA1(0));
	BAD_FR("length one byte more than the pages");
	tok_frmr_map(g, 4, false, 100, 4 * NDK_PAGE_SIZE - 99, VA1(100));
	BAD_FR("length one byte more than the pages after fbo");
	tok_frmr_map(g, 4, false, 100, 1000, VA1(101));
	BAD_FR("base_va not = fbo mod page size");
	tok_frmr_map(g, 4, false, 0, 1000, 0);
	BAD_FR("base_va 0");
	tok_frmr_map(g, 4, false, NDK_PAGE_SIZE, 1000, VA1(0));
	BAD_FR("fbo = page size");
	tok_frmr_map(g, 4, false, 0, 4 * NDK_PAGE_SIZE, VA1(0));
	saved = g->pages[2];
	g->pages[2] += 8;
	BAD_FR("a page not page-aligned");
	g->pages[2] = saved;
	heap = aligned_alloc(NDK_PAGE_SIZE, NDK_PAGE_SIZE);
	TEST_ASSERT(heap != NULL, "memory");
	g->pages[1] = (uint64_t)(uintptr_t)heap;
	BAD_FR("a page outside DPDK memory");
	free(heap);
#undef BAD_FR
	ndk_pair_sleep_ms(50);
	if (expect_none(t.c->icq[1], "failed posts") != 0)
		return -1;
	TEST_ASSERT_EQ(tok_qp_state(qb), NDK_QP_STATE_RTS,
		       "QP B after failed posts");

	/* The QP still works: a correct fast register and a WRITE. */
	tok_frmr_map(g, 4, true, 0, 4 * NDK_PAGE_SIZE, VA1(0));
	if (tok_frmr_register(g, t.c, 1, RW_FLAGS, "good fast register") != 0 ||
	    frmr_write_ok(&t, g, 1000, 5000, 0x1C, "WRITE after") != 0)
		return -1;
	/* Not re-initialisable while registered; again once invalid. */
	st = ndk_initialize_fast_register_mr(g->mr, 4, true);
	TEST_ASSERT_EQ(st, NDK_STATUS_INVALID_DEVICE_STATE,
		       "initialize a valid FRMR: %s", ndk_status_str(st));
	if (tok_invalidate(t.c, 1, &g->mr->header, "invalidate") != 0)
		return -1;
	st = ndk_initialize_fast_register_mr(g->mr, 4, true);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "initialize an invalid FRMR: "
		       "%s", ndk_status_str(st));
	tok_frmr_map(g, 4, false, 8, 4 * NDK_PAGE_SIZE - 8, VA2(8));
	if (tok_frmr_register(g, t.c, 1, RW_FLAGS,
			      "after re-initialise") != 0 ||
	    frmr_write_ok(&t, g, 0, 4 * NDK_PAGE_SIZE - 8, 0x1D,
			  "WRITE after re-initialise") != 0)
		return -1;
	/* The local-only FRMR takes local rights. */
	if (tok_frmr_register(loc, t.c, 1, NDK_OP_FLAG_ALLOW_LOCAL_WRITE,
			      "local-only FRMR, local rights") != 0)
		return -1;
	tok_frmr_free(loc);
	tok_frmr_free(g);
	ndk_pair_buf_free(plain);
	tok_close(&t);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Fast register: remote READ/WRITE land in the right pages            */
/* ------------------------------------------------------------------ */

struct map_case {
	uint32_t npages;
	uint32_t pool;
	uint32_t fbo;
	uint32_t tail;      /* unmapped bytes at the end of the last page */
	uint64_t va0;
};

static int
frmr_rw_case(struct tok_ctx *t, const struct map_case *mc, uint32_t seed)
{
	size_t len = (size_t)mc->npages * NDK_PAGE_SIZE - mc->fbo - mc->tail;
	struct tok_frmr *f;
	char what[96];

	f = tok_frmr_new(t->pd[1], 16, true, mc->pool, seed);
	TEST_ASSERT(f != NULL, "FRMR");
	tok_frmr_map(f, mc->npages, true, mc->fbo, len, mc->va0 + mc->fbo);
	printf("  %u pages (pool %u, pages", mc->npages, mc->pool);
	for (uint32_t i = 0; i < mc->npages; i++)
		printf(" %u", f->page_idx[i]);
	printf("), fbo %u, length %zu, base_va 0x%" PRIx64 "\n", mc->fbo, len,
	       f->base_va);
	snprintf(what, sizeof(what), "FRMR %u pages fbo %u", mc->npages,
		 mc->fbo);
	if (tok_frmr_register(f, t->c, 1, RW_FLAGS, what) != 0)
		return -1;
	TEST_ASSERT(f->rtoken != 0, "remote token 0");

	/* The whole range, then pieces across every page boundary. */
	if (frmr_write_ok(t, f, 0, (uint32_t)len, seed + 1, "WRITE all") != 0 ||
	    frmr_read_ok(t, f, 0, (uint32_t)len, "READ all") != 0)
		return -1;
	for (uint32_t k = 1; k < mc->npages; k++) {
		uint64_t b = (uint64_t)k * NDK_PAGE_SIZE - mc->fbo;

		uint64_t wlo = b > 33 ? b - 33 : 0, whi = RTE_MIN(b + 37, len);
		uint64_t rlo = b > 50 ? b - 50 : 0, rhi = RTE_MIN(b + 50, len);

		snprintf(what, sizeof(what), "boundary %u", k);
		if (frmr_write_ok(t, f, wlo, (uint32_t)(whi - wlo),
				  seed + 10 + k, what) != 0 ||
		    frmr_read_ok(t, f, rlo, (uint32_t)(rhi - rlo), what) != 0 ||
		    frmr_write_ok(t, f, b - 1, 1, seed + 40 + k, what) != 0 ||
		    frmr_read_ok(t, f, b, 1, what) != 0)
			return -1;
	}
	/* First and last bytes. */
	if (frmr_write_ok(t, f, 0, 1, seed + 80, "first byte") != 0 ||
	    frmr_write_ok(t, f, len - 1, 1, seed + 81, "last byte") != 0 ||
	    frmr_read_ok(t, f, len - 1, 1, "last byte") != 0 ||
	    frmr_read_ok(t, f, 0, 1, "first byte") != 0)
		return -1;
	tok_frmr_free(f);
	return 0;
}

static int
t_frmr_remote_rw(void)
{
	static const struct map_case mcs[] = {
		{ 8, 17, 100, 37, VA1(0) },
		{ 3, 7, 4095, 4095, VA2(0) },  /* 1 + 4096 + 1 bytes */
		{ 1, 1, 0, 0, VA3(0) },
		{ 16, 33, 2048, 0, VA1(0) },
		{ 5, 5, 1, 1, VA2(0) },
	};
	struct tok_ctx t;
	int rc = tok_open(&t, 0, NULL);

	if (rc != 0)
		return rc;
	for (unsigned int i = 0; i < RTE_DIM(mcs); i++)
		if (frmr_rw_case(&t, &mcs[i], 0x200 + i * 0x100) != 0)
			return -1;
	tok_close(&t);
	return 0;
}

/* Same at MTU 256: many packets, each across pages at odd offsets. */
static int
t_frmr_remote_rw_mtu256(void)
{
	static const struct map_case mc = { 12, 25, 777, 333, VA2(0) };
	struct tok_ctx t;
	int rc = tok_open(&t, 256, NULL);

	if (rc != 0)
		return rc;
	if (frmr_rw_case(&t, &mc, 0x900) != 0)
		return -1;
	tok_close(&t);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Fast register: the local token in local SGEs (base_va addresses)    */
/* ------------------------------------------------------------------ */

static struct ndk_sge
fsge(const struct tok_frmr *f, uint64_t x, uint32_t len)
{
	struct ndk_sge s = {
		.va = (void *)(uintptr_t)(f->base_va + x),
		.length = len,
		.token = f->ltoken,
	};
	return s;
}

/* A WRITE whose local SGE @p s is bad must fail, inline or completed. */
static int
bad_local_write(struct tok_ctx *t, const struct ndk_sge *s,
		struct ndk_pair_buf *peer, const char *what)
{
	ndk_status_t st = ndk_write(t->c->qp[0], (void *)0x57, s, 1,
				    ndk_pair_raddr(peer, 0), peer->rtoken, 0);

	if (st != NDK_STATUS_SUCCESS) {
		printf("    %-40s -> refused inline: %s\n", what,
		       ndk_status_str(st));
		return 0;
	}
	if (tok_expect_failure(t->c->icq[0], NDK_OP_WRITE, (void *)0x57, NULL,
			       what) != 0)
		return -1;
	return tok_reconnect(t);
}

/* A receive whose SGE @p s is bad must fail, inline or when used. */
static int
bad_local_recv(struct tok_ctx *t, const struct ndk_sge *s, const char *what)
{
	struct ndk_pair_buf *src;
	struct ndk_sge ss;
	ndk_status_t st = ndk_receive(t->c->qp[0], (void *)0x58, s, 1);

	if (st != NDK_STATUS_SUCCESS) {
		printf("    %-40s -> refused inline: %s\n", what,
		       ndk_status_str(st));
		return 0;
	}
	src = ndk_pair_buf_alloc(t->p, t->pd[1], s->length, 0);
	TEST_ASSERT(src != NULL, "buffer");
	ss = ndk_pair_sge(src, 0, s->length);
	TEST_ASSERT_EQ(ndk_send(t->c->qp[1], (void *)0x59, &ss, 1, 0),
		       NDK_STATUS_SUCCESS, "send");
	if (tok_expect_failure(t->c->rcq[0], NDK_OP_RECEIVE, (void *)0x58,
			       NULL, what) != 0)
		return -1;
	ndk_pair_buf_free(src);
	return tok_reconnect(t);
}

static int
t_frmr_local_token(void)
{
	struct tok_ctx t;
	struct tok_frmr *f;
	struct ndk_pair_buf *bsrc, *bdst;
	struct ndk_pair_conn *c;
	struct ndk_result_ex r;
	struct ndk_sge s[2];
	uint8_t *tmp;
	ndk_status_t st;
	char d[200];
	int rc = tok_open(&t, 0, NULL);

	if (rc != 0)
		return rc;
	c = t.c;
	f = tok_frmr_new(t.pd[0], 8, false, 9, 0x300);
	TEST_ASSERT(f != NULL, "FRMR");
	tok_frmr_map(f, 4, true, 300, 4 * NDK_PAGE_SIZE - 300, VA3(300));
	if (tok_frmr_register(f, c, 0, fr_sink_flags(t.p), "A's FRMR") != 0)
		return -1;
	printf("  A's FRMR: local token 0x%08x, remote token 0x%08x, base_va "
	       "0x%" PRIx64 "\n", f->ltoken, f->rtoken, f->base_va);
	bsrc = ndk_pair_buf_alloc(t.p, t.pd[1], 16384,
				  NDK_MR_FLAG_ALLOW_REMOTE_READ);
	bdst = ndk_pair_buf_alloc(t.p, t.pd[1], 16384, MR_RW);
	tmp = malloc(16384);
	TEST_ASSERT(bsrc != NULL && bdst != NULL && tmp != NULL, "buffers");
	ndk_pair_fill(bsrc->data, 16384, 0x301);

	/* RECEIVE into two SGEs of the FRMR, each across a page boundary. */
	s[0] = fsge(f, 10, 5000);
	s[1] = fsge(f, 9000, 3000);
	st = ndk_receive(c->qp[0], (void *)0x51, s, 2);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "receive into the FRMR: %s",
		       ndk_status_str(st));
	s[0] = ndk_pair_sge(bsrc, 0, 8000);
	st = ndk_send(c->qp[1], (void *)0x52, s, 1, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "send: %s", ndk_status_str(st));
	if (expect_one(c->icq[1], NDK_OP_SEND, &qctx_b, (void *)0x52, -1,
		       "B's SEND") != 0 ||
	    expect_one(c->rcq[0], NDK_OP_RECEIVE, &qctx_a, (void *)0x51, 8000,
		       "receive into the FRMR") != 0)
		return -1;
	tok_frmr_expect(f, 10, bsrc->data, 5000);
	tok_frmr_expect(f, 9000, bsrc->data + 5000, 3000);
	if (frmr_check(f, "receive into the FRMR") != 0)
		return -1;

	/* The sink of a READ. */
	s[0] = fsge(f, 4000, 6000);
	st = ndk_read(c->qp[0], (void *)0x53, s, 1, ndk_pair_raddr(bsrc, 100),
		      bsrc->rtoken, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "READ into the FRMR: %s",
		       ndk_status_str(st));
	if (expect_one(c->icq[0], NDK_OP_READ, &qctx_a, (void *)0x53, -1,
		       "READ into the FRMR") != 0)
		return -1;
	tok_frmr_expect(f, 4000, bsrc->data + 100, 6000);
	if (frmr_check(f, "READ into the FRMR") != 0)
		return -1;

	/* The source of a WRITE (two SGEs) and of a SEND. */
	s[0] = fsge(f, 100, 4500);
	s[1] = fsge(f, 12000, 3000);
	st = ndk_write(c->qp[0], (void *)0x54, s, 2, ndk_pair_raddr(bdst, 7),
		       bdst->rtoken, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "WRITE from the FRMR: %s",
		       ndk_status_str(st));
	if (expect_one(c->icq[0], NDK_OP_WRITE, &qctx_a, (void *)0x54, -1,
		       "WRITE from the FRMR") != 0)
		return -1;
	tok_frmr_gather(f, 100, tmp, 4500);
	tok_frmr_gather(f, 12000, tmp + 4500, 3000);
	TEST_ASSERT(memcmp(bdst->data + 7, tmp, 7500) == 0,
		    "WRITE from the FRMR: wrong bytes at the peer");
	TEST_ASSERT(all_zero(bdst->data, 7) &&
		    all_zero(bdst->data + 7507, 16384 - 7507),
		    "WRITE from the FRMR: bytes outside the target");

	s[0] = ndk_pair_sge(bdst, 0, 16384);
	TEST_ASSERT_EQ(ndk_receive(c->qp[1], (void *)0x55, s, 1),
		       NDK_STATUS_SUCCESS, "receive");
	s[0] = fsge(f, 4090, 9000);
	st = ndk_send(c->qp[0], (void *)0x56, s, 1, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "SEND from the FRMR: %s",
		       ndk_status_str(st));
	if (expect_one(c->icq[0], NDK_OP_SEND, &qctx_a, (void *)0x56, -1,
		       "SEND from the FRMR") != 0 ||
	    expect_one(c->rcq[1], NDK_OP_RECEIVE, &qctx_b, (void *)0x55, 9000,
		       "receive of the SEND") != 0)
		return -1;
	tok_frmr_gather(f, 4090, tmp, 9000);
	TEST_ASSERT(memcmp(bdst->data, tmp, 9000) == 0,
		    "SEND from the FRMR: wrong bytes");

	/*
	 * Local SGEs outside the mapping fail: refused at post time, or (NDK
	 * allows it) accepted and failed at execution.
	 */
	s[0] = fsge(f, f->len - 10, 11);
	if (bad_local_write(&t, s, bdst, "SGE one byte past the FRMR") != 0)
		return -1;
	s[0] = fsge(f, 0, 10);
	s[0].va = (void *)(uintptr_t)(f->base_va - 1);
	if (bad_local_recv(&t, s, "SGE one byte before the FRMR") != 0)
		return -1;
	/* Host addresses are not the FRMR's addresses. */
	s[0].va = f->mem + (size_t)f->page_idx[0] * NDK_PAGE_SIZE + 300;
	if (bad_local_recv(&t, s, "FRMR SGE with a host address") != 0)
		return -1;
	ndk_pair_sleep_ms(20);
	c = t.c;
	if (ndk_get_cq_results_ex(c->icq[0], &r, 1) != 0)
		TEST_FAIL("completion after refused posts: %s",
			  ndk_pair_result_str(&r, d, sizeof(d)));
	if (frmr_check(f, "end") != 0)
		return -1;
	free(tmp);
	tok_frmr_free(f);
	ndk_pair_buf_free(bsrc);
	ndk_pair_buf_free(bdst);
	tok_close(&t);
	return 0;
}

/*
 * A request posted right after a fast register may use the new
 * registration: requests execute in send-queue order (IB, and ndk.h:
 * "Executes in order with the QP's other requests"). The fast register is
 * posted with DEFER so that it certainly has not executed yet when the
 * WRITE is posted (the result does not depend on timing).
 */
static int
t_frmr_in_order_use(void)
{
	struct tok_ctx t;
	struct tok_frmr *f;
	struct ndk_pair_buf *bdst;
	struct ndk_pair_conn *c;
	struct ndk_sge s;
	uint8_t *tmp;
	ndk_status_t st;
	int rc = tok_open(&t, 0, NULL);

	if (rc != 0)
		return rc;
	c = t.c;
	f = tok_frmr_new(t.pd[0], 4, false, 8, 0x380);
	bdst = ndk_pair_buf_alloc(t.p, t.pd[1], 8192, MR_RW);
	tmp = malloc(8192);
	TEST_ASSERT(f != NULL && bdst != NULL && tmp != NULL, "objects");
	tok_frmr_map(f, 2, true, 64, 8192 - 64, VA1(64));
	st = tok_frmr_post(f, c->qp[0], TOK_REQ_FR,
			   NDK_OP_FLAG_ALLOW_LOCAL_WRITE | NDK_OP_FLAG_DEFER);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "fast register: %s",
		       ndk_status_str(st));
	s = fsge(f, 0, 8000);
	st = ndk_write(c->qp[0], (void *)0x61, &s, 1, ndk_pair_raddr(bdst, 0),
		       bdst->rtoken, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "WRITE from the FRMR posted "
		       "right after its fast register: %s (the SGE is checked "
		       "at post time, before the registration executes)",
		       ndk_status_str(st));
	if (expect_one(c->icq[0], NDK_OP_FAST_REGISTER, &qctx_a, TOK_REQ_FR,
		       -1, "fast register") != 0 ||
	    expect_one(c->icq[0], NDK_OP_WRITE, &qctx_a, (void *)0x61, -1,
		       "WRITE") != 0)
		return -1;
	tok_frmr_gather(f, 0, tmp, 8000);
	TEST_ASSERT(memcmp(bdst->data, tmp, 8000) == 0, "WRITE: wrong bytes");
	free(tmp);
	tok_frmr_free(f);
	ndk_pair_buf_free(bdst);
	tok_close(&t);
	return 0;
}

/*
 * The other direction: a request posted right after an invalidate of its
 * region must not use the region (refused at post time or failed), and
 * the invalidate, executed, completes with success. The invalidate is
 * posted with DEFER so that both run in the same pass of the engine.
 */
static int
t_frmr_in_order_invalidate(void)
{
	struct tok_ctx t;
	struct tok_frmr *f;
	struct ndk_pair_buf *bdst;
	struct ndk_pair_conn *c;
	struct ndk_result_ex r[2];
	struct ndk_sge s;
	ndk_status_t st;
	char d[200];
	int rc = tok_open(&t, 0, NULL);

	if (rc != 0)
		return rc;
	c = t.c;
	f = tok_frmr_new(t.pd[0], 2, false, 2, 0x390);
	bdst = ndk_pair_buf_alloc(t.p, t.pd[1], 8192, MR_RW);
	TEST_ASSERT(f != NULL && bdst != NULL, "objects");
	tok_frmr_map(f, 2, false, 0, 8192, VA2(0));
	if (tok_frmr_register(f, c, 0, NDK_OP_FLAG_ALLOW_LOCAL_WRITE,
			      "fast register") != 0)
		return -1;
	st = ndk_invalidate(c->qp[0], TOK_REQ_INV, &f->mr->header,
			    NDK_OP_FLAG_DEFER);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "invalidate: %s",
		       ndk_status_str(st));
	s = fsge(f, 0, 4000);
	st = ndk_write(c->qp[0], (void *)0x62, &s, 1, ndk_pair_raddr(bdst, 0),
		       bdst->rtoken, 0);
	if (st != NDK_STATUS_SUCCESS) {
		printf("  WRITE after the invalidate: refused inline, %s\n",
		       ndk_status_str(st));
		if (expect_one(c->icq[0], NDK_OP_INVALIDATE, &qctx_a,
			       TOK_REQ_INV, -1, "invalidate") != 0)
			return -1;
	} else {
		/* The invalidate was executed: it completes with success,
		 * then the WRITE fails (IB: the erring WR completes with its
		 * error, the ones before it are not flushed). */
		TEST_ASSERT_EQ(ndk_pair_wait(c->icq[0], r, 2, WAIT_S), 2,
			       "completions");
		printf("  invalidate: %s\n",
		       ndk_pair_result_str(&r[0], d, sizeof(d)));
		printf("  WRITE after the invalidate: %s\n",
		       ndk_pair_result_str(&r[1], d, sizeof(d)));
		ndk_pair_result_str(&r[0], d, sizeof(d));
		TEST_ASSERT(r[0].status == NDK_STATUS_SUCCESS &&
			    r[0].type == NDK_OP_INVALIDATE &&
			    r[0].request_context == TOK_REQ_INV,
			    "the executed invalidate completed as: %s", d);
		ndk_pair_result_str(&r[1], d, sizeof(d));
		TEST_ASSERT(r[1].status != NDK_STATUS_SUCCESS &&
			    r[1].type == NDK_OP_WRITE, "a WRITE from an "
			    "FRMR invalidated before it: %s", d);
	}
	TEST_ASSERT(all_zero(bdst->data, 8192), "data reached the peer");
	tok_frmr_free(f);
	ndk_pair_buf_free(bdst);
	tok_close(&t);
	return 0;
}

/* ------------------------------------------------------------------ */
/* New token per fast register; invalidation                           */
/* ------------------------------------------------------------------ */

static int
t_frmr_new_token(void)
{
	struct tok_ctx t;
	struct tok_frmr *f;
	uint32_t tok[6], lt[6];
	int rc = tok_open(&t, 0, NULL);

	if (rc != 0)
		return rc;
	f = tok_frmr_new(t.pd[1], 8, true, 16, 0x400);
	TEST_ASSERT(f != NULL, "FRMR");
	for (int i = 0; i < 6; i++) {
		uint32_t fbo = (uint32_t)(i * 512 + 64);

		tok_frmr_map(f, 4, i & 1, fbo, 3 * NDK_PAGE_SIZE, VA2(fbo) +
			     (uint64_t)i * 0x100000);
		if (tok_frmr_register(f, t.c, 1, RW_FLAGS,
				      "fast register") != 0)
			return -1;
		tok[i] = f->rtoken;
		lt[i] = f->ltoken;
		printf("  registration %d: remote token 0x%08x, local token "
		       "0x%08x\n", i, tok[i], lt[i]);
		for (int j = 0; j < i; j++)
			TEST_ASSERT(tok[j] != tok[i] && lt[j] != lt[i],
				    "registrations %d and %d share a token",
				    j, i);
		if (frmr_write_ok(&t, f, 100, 9000, 0x410 + i, "WRITE") != 0)
			return -1;
		if (i < 5 && tok_invalidate(t.c, 1, &f->mr->header,
					    "invalidate") != 0)
			return -1;
	}
	/* Every old token is refused, even at addresses valid now. */
	for (int i = 0; i < 5; i++) {
		char what[64];

		snprintf(what, sizeof(what), "WRITE with registration %d's "
			 "token", i);
		if (tok_remote_fails(&t, 0, true, false, f->base_va + 100,
				     tok[i], 64, what) != 0 ||
		    frmr_check(f, what) != 0)
			return -1;
	}
	/* The current one still works (on a new connection too). */
	if (tok_reconnect(&t) != 0 ||
	    frmr_read_ok(&t, f, 0, 3 * NDK_PAGE_SIZE, "current token") != 0)
		return -1;
	tok_frmr_free(f);
	tok_close(&t);
	return 0;
}

static int
t_invalidate_frmr(void)
{
	struct tok_ctx t;
	struct tok_frmr *f;
	int rc = tok_open(&t, 0, NULL);

	if (rc != 0)
		return rc;
	f = tok_frmr_new(t.pd[1], 4, true, 9, 0x500);
	TEST_ASSERT(f != NULL, "FRMR");
	tok_frmr_map(f, 4, true, 1000, 4 * NDK_PAGE_SIZE - 2000, VA1(1000));
	if (tok_frmr_register(f, t.c, 1, RW_FLAGS, "fast register") != 0 ||
	    frmr_write_ok(&t, f, 0, 8000, 0x501, "WRITE before") != 0 ||
	    frmr_read_ok(&t, f, 0, 8000, "READ before") != 0)
		return -1;
	if (tok_invalidate(t.c, 1, &f->mr->header, "invalidate") != 0)
		return -1;
	/* Same connection first: the token is dead, not the connection. */
	if (tok_remote_fails(&t, 0, false, false, f->base_va + 10, f->rtoken,
			     5000, "WRITE after invalidate") != 0 ||
	    frmr_check(f, "WRITE after invalidate") != 0 ||
	    tok_remote_fails(&t, 0, true, true, f->base_va, f->rtoken, 100,
			     "READ after invalidate") != 0 ||
	    frmr_check(f, "READ after invalidate") != 0 ||
	    tok_remote_fails(&t, 0, true, false, f->base_va + f->len - 1,
			     f->rtoken, 1,
			     "1-byte WRITE after invalidate") != 0 ||
	    frmr_check(f, "1-byte WRITE after invalidate") != 0)
		return -1;
	/* Invalid now: it can be fast-registered again. */
	if (tok_reconnect(&t) != 0)
		return -1;
	tok_frmr_map(f, 2, false, 0, 2 * NDK_PAGE_SIZE, VA3(0));
	if (tok_frmr_register(f, t.c, 1, RW_FLAGS,
			      "fast register again") != 0 ||
	    frmr_write_ok(&t, f, 4000, 200, 0x502, "WRITE, new token") != 0)
		return -1;
	tok_frmr_free(f);
	tok_close(&t);
	return 0;
}

static int
t_invalidate_plain_mr(void)
{
	struct tok_ctx t;
	struct ndk_pair_buf *b;
	ndk_status_t st;
	uint8_t *pat;
	int rc = tok_open(&t, 0, NULL);

	if (rc != 0)
		return rc;
	b = ndk_pair_buf_alloc(t.p, t.pd[1], 4096, MR_RW);
	TEST_ASSERT(b != NULL, "buffer");
	st = ndk_invalidate(t.c->qp[1], TOK_REQ_INV, &b->mr->header, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_INVALID_DEVICE_REQUEST,
		       "invalidate a plain MR: %s", ndk_status_str(st));
	st = ndk_invalidate(t.c->qp[1], TOK_REQ_INV, &b->mr->header,
			    NDK_OP_FLAG_SILENT_SUCCESS);
	TEST_ASSERT_EQ(st, NDK_STATUS_INVALID_DEVICE_REQUEST,
		       "invalidate a plain MR (silent): %s",
		       ndk_status_str(st));
	ndk_pair_sleep_ms(50);
	if (expect_none(t.c->icq[1], "after refused invalidates") != 0)
		return -1;
	TEST_ASSERT_EQ(tok_qp_state(t.c->qp[1]), NDK_QP_STATE_RTS, "QP B");
	/* The MR and the QP are fine. */
	if (tok_remote_ok(&t, 0, false, ndk_pair_raddr(b, 0), b->rtoken, 4096,
			  0x601, NULL, "WRITE to the MR") != 0)
		return -1;
	pat = tok_pattern(4096, 0x601);
	TEST_ASSERT(pat != NULL && memcmp(pat, b->data, 4096) == 0,
		    "WRITE to the MR: data");
	free(pat);
	TEST_ASSERT(ndk_pair_buf_guards_ok(b), "guards");
	ndk_pair_buf_free(b);
	tok_close(&t);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Access violations                                                   */
/* ------------------------------------------------------------------ */

/* Plain buffer with a copy of what it must hold. */
struct shadow_buf {
	struct ndk_pair_buf *b;
	uint8_t *want;
};

static int
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

static int
sbuf_check(const struct shadow_buf *s, const char *what)
{
	TEST_ASSERT(memcmp(s->b->data, s->want, s->b->len) == 0,
		    "%s: target buffer changed", what);
	TEST_ASSERT(ndk_pair_buf_guards_ok(s->b), "%s: target guards", what);
	return 0;
}

static void
sbuf_free(struct shadow_buf *s)
{
	ndk_pair_buf_free(s->b);
	free(s->want);
}

/* Both a READ and a WRITE fail with @p tok at @p raddr; FRMR untouched. */
static int
both_fail(struct tok_ctx *t, const struct tok_frmr *f, uint64_t raddr,
	  uint32_t tok, uint32_t len, const char *what)
{
	char w[128];

	snprintf(w, sizeof(w), "%s (WRITE)", what);
	if (tok_remote_fails(t, 0, true, false, raddr, tok, len, w) != 0 ||
	    (f != NULL && frmr_check(f, w) != 0))
		return -1;
	snprintf(w, sizeof(w), "%s (READ)", what);
	if (tok_remote_fails(t, 0, true, true, raddr, tok, len, w) != 0 ||
	    (f != NULL && frmr_check(f, w) != 0))
		return -1;
	return 0;
}

static int
t_access_violations(void)
{
	struct tok_ctx t, t2;
	struct tok_frmr *f, *finv, *fro, *fwo, *floc, *fclosed, *fnr, *ffor;
	struct shadow_buf foreign;
	uint32_t len, n = 64;
	ndk_status_t st;
	int rc = tok_open(&t, 0, NULL);

	if (rc != 0)
		return rc;
	rc = tok_open(&t2, 0, NULL);
	if (rc != 0)
		return rc;
	len = 4 * NDK_PAGE_SIZE - 200 - 100;

	/* The main target: 4 pages, fbo 200, 100 bytes unmapped at the end. */
	f = tok_frmr_new(t.pd[1], 4, true, 9, 0x700);
	TEST_ASSERT(f != NULL, "FRMR");
	tok_frmr_map(f, 4, true, 200, len, VA1(200));
	if (tok_frmr_register(f, t.c, 1, RW_FLAGS, "target") != 0 ||
	    frmr_write_ok(&t, f, 0, len, 0x701, "control WRITE") != 0 ||
	    frmr_read_ok(&t, f, 0, len, "control READ") != 0)
		return -1;
	if (both_fail(&t, f, f->base_va, ~f->rtoken, n,
		      "wrong token ~T") != 0 ||
	    both_fail(&t, f, f->base_va, f->rtoken ^ 0x80000000u, n,
		      "wrong token T^0x80000000") != 0 ||
	    both_fail(&t, f, f->base_va, f->rtoken + 1, n,
		      "wrong token T+1") != 0 ||
	    both_fail(&t, f, f->base_va - 1, f->rtoken, n,
		      "one byte before base_va") != 0 ||
	    both_fail(&t, f, f->base_va + len - n + 1, f->rtoken, n,
		      "one byte past the end") != 0 ||
	    both_fail(&t, f, f->base_va + len, f->rtoken, 1,
		      "the byte after the end") != 0 ||
	    both_fail(&t, f, f->base_va - f->fbo, f->rtoken, n,
		      "start of the first page (before fbo)") != 0 ||
	    both_fail(&t, f, (uint64_t)(uintptr_t)tok_frmr_host(f, 0),
		      f->rtoken, n, "host address of the first byte") != 0)
		return -1;
	/* The target is still fine after all that. */
	if (tok_reconnect(&t) != 0 ||
	    frmr_read_ok(&t, f, 0, len, "READ after the violations") != 0)
		return -1;

	/* An invalidated token. */
	finv = tok_frmr_new(t.pd[1], 4, true, 4, 0x710);
	TEST_ASSERT(finv != NULL, "FRMR");
	tok_frmr_map(finv, 4, false, 0, 4 * NDK_PAGE_SIZE, VA2(0));
	if (tok_frmr_register(finv, t.c, 1, RW_FLAGS, "FRMR") != 0 ||
	    tok_invalidate(t.c, 1, &finv->mr->header, "invalidate") != 0 ||
	    both_fail(&t, finv, finv->base_va, finv->rtoken, n,
		      "invalidated token") != 0)
		return -1;

	/* Tokens of another PD on the same adapter: an FRMR and a plain MR. */
	ffor = tok_frmr_new(t2.pd[1], 4, true, 4, 0x720);
	TEST_ASSERT(ffor != NULL, "FRMR");
	tok_frmr_map(ffor, 4, false, 0, 4 * NDK_PAGE_SIZE, VA3(0));
	if (tok_frmr_register(ffor, t2.c, 1, RW_FLAGS, "other PD's FRMR") != 0)
		return -1;
	if (sbuf_new(&foreign, t.p, t2.pd[1], 8192, MR_RW, 0x721) != 0)
		return -1;
	if (both_fail(&t, ffor, ffor->base_va, ffor->rtoken, n,
		      "another PD's FRMR") != 0 ||
	    both_fail(&t, NULL, ndk_pair_raddr(foreign.b, 0), foreign.b->rtoken,
		      n, "another PD's plain MR") != 0 ||
	    sbuf_check(&foreign, "another PD's plain MR") != 0)
		return -1;
	/* ... which work on their own PD's connection. */
	{
		struct tok_frmr *keep = ffor;

		if (tok_remote_ok(&t2, 0, false, keep->base_va, keep->rtoken,
				  100, 0x722, NULL, "own PD's WRITE") != 0)
			return -1;
		{
			uint8_t *pat = tok_pattern(100, 0x722);

			tok_frmr_expect(keep, 0, pat, 100);
			free(pat);
		}
		if (frmr_check(keep, "own PD's WRITE") != 0)
			return -1;
	}

	/* Missing rights. */
	fro = tok_frmr_new(t.pd[1], 2, true, 2, 0x730);
	fwo = tok_frmr_new(t.pd[1], 2, true, 2, 0x740);
	floc = tok_frmr_new(t.pd[1], 2, true, 2, 0x750);
	TEST_ASSERT(fro != NULL && fwo != NULL && floc != NULL, "FRMRs");
	tok_frmr_map(fro, 2, false, 0, 2 * NDK_PAGE_SIZE, VA1(0));
	tok_frmr_map(fwo, 2, false, 0, 2 * NDK_PAGE_SIZE, VA2(0));
	tok_frmr_map(floc, 2, false, 0, 2 * NDK_PAGE_SIZE, VA3(0));
	if (tok_reconnect(&t) != 0 ||
	    tok_frmr_register(fro, t.c, 1, NDK_OP_FLAG_ALLOW_REMOTE_READ,
			      "read-only FRMR") != 0 ||
	    tok_frmr_register(fwo, t.c, 1, NDK_OP_FLAG_ALLOW_REMOTE_WRITE,
			      "write-only FRMR") != 0 ||
	    tok_frmr_register(floc, t.c, 1, NDK_OP_FLAG_ALLOW_LOCAL_WRITE,
			      "local-rights FRMR") != 0)
		return -1;
	if (frmr_read_ok(&t, fro, 0, 100, "READ of the read-only FRMR") != 0 ||
	    tok_remote_fails(&t, 0, false, false, fro->base_va, fro->rtoken, n,
			     "WRITE without REMOTE_WRITE") != 0 ||
	    frmr_check(fro, "WRITE without REMOTE_WRITE") != 0)
		return -1;
	if (tok_reconnect(&t) != 0 ||
	    frmr_write_ok(&t, fwo, 0, 100, 0x741, "WRITE of the write-only "
			  "FRMR") != 0 ||
	    tok_remote_fails(&t, 0, false, true, fwo->base_va, fwo->rtoken, n,
			     "READ without REMOTE_READ") != 0 ||
	    frmr_check(fwo, "READ without REMOTE_READ") != 0)
		return -1;
	if (both_fail(&t, floc, floc->base_va, floc->rtoken, n,
		      "FRMR with local rights only") != 0)
		return -1;

	/* Initialised without remote access: remote rights refused inline,
	 * local rights accepted and its token refused to the peer. */
	fnr = tok_frmr_new(t.pd[1], 2, false, 2, 0x760);
	TEST_ASSERT(fnr != NULL, "FRMR");
	tok_frmr_map(fnr, 2, false, 0, 2 * NDK_PAGE_SIZE, VA1(0));
	if (tok_reconnect(&t) != 0)
		return -1;
	st = tok_frmr_post(fnr, t.c->qp[1], TOK_REQ_FR, RW_FLAGS);
	TEST_ASSERT_EQ(st, NDK_STATUS_ACCESS_VIOLATION, "remote rights on an "
		       "FRMR without remote access: %s", ndk_status_str(st));
	ndk_pair_sleep_ms(20);
	if (expect_none(t.c->icq[1], "refused fast register") != 0 ||
	    tok_frmr_register(fnr, t.c, 1, NDK_OP_FLAG_ALLOW_LOCAL_WRITE,
			      "local rights") != 0 ||
	    both_fail(&t, fnr, fnr->base_va, fnr->rtoken, n,
		      "FRMR without remote access") != 0)
		return -1;

	/* A closed MR. */
	fclosed = tok_frmr_new(t.pd[1], 2, true, 2, 0x770);
	TEST_ASSERT(fclosed != NULL, "FRMR");
	tok_frmr_map(fclosed, 2, false, 0, 2 * NDK_PAGE_SIZE, VA2(0));
	if (tok_reconnect(&t) != 0 ||
	    tok_frmr_register(fclosed, t.c, 1, RW_FLAGS, "FRMR") != 0 ||
	    frmr_write_ok(&t, fclosed, 0, 100, 0x771,
			  "WRITE before close") != 0)
		return -1;
	st = ndk_close_mr(fclosed->mr, NULL, NULL);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "close: %s", ndk_status_str(st));
	fclosed->mr = NULL;
	if (both_fail(&t, fclosed, fclosed->base_va, fclosed->rtoken, n,
		      "closed FRMR") != 0)
		return -1;

	/* A closed plain MR too. */
	{
		struct shadow_buf pb;
		uint32_t tokp;
		uint64_t addr;

		if (sbuf_new(&pb, t.p, t.pd[1], 4096, MR_RW, 0x780) != 0)
			return -1;
		tokp = pb.b->rtoken;
		addr = ndk_pair_raddr(pb.b, 0);
		TEST_ASSERT_EQ(ndk_close_mr(pb.b->mr, NULL, NULL),
			       NDK_STATUS_SUCCESS, "close plain MR");
		pb.b->mr = NULL;
		if (both_fail(&t, NULL, addr, tokp, n,
			      "closed plain MR") != 0 ||
		    sbuf_check(&pb, "closed plain MR") != 0)
			return -1;
		sbuf_free(&pb);
	}

	tok_frmr_free(f);
	tok_frmr_free(finv);
	tok_frmr_free(fro);
	tok_frmr_free(fwo);
	tok_frmr_free(floc);
	tok_frmr_free(fnr);
	tok_frmr_free(fclosed);
	tok_frmr_free(ffor);
	sbuf_free(&foreign);
	tok_close(&t);
	tok_close(&t2);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Memory windows                                                      */
/* ------------------------------------------------------------------ */

#define MW_OFF 1000u
#define MW_LEN 5000u

/* Create a window on B and bind it to [MW_OFF, MW_OFF + MW_LEN) of @p b. */
static int
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

/* A negative window case on a new connection with a new window. */
static int
mw_fails(struct tok_ctx *t, struct shadow_buf *sb, uint32_t flags, bool read,
	 int64_t off, uint32_t len, const char *what)
{
	struct ndk_mw *mw;
	uint32_t tok;

	if (tok_reconnect(t) != 0 ||
	    mw_bind(t, sb->b, flags, &mw, &tok, what) != 0)
		return -1;
	if (tok_remote_fails(t, 0, false, read,
			     ndk_pair_raddr(sb->b, 0) + (uint64_t)off, tok, len,
			     what) != 0 ||
	    sbuf_check(sb, what) != 0)
		return -1;
	TEST_ASSERT_EQ(ndk_close_mw(mw, NULL, NULL), NDK_STATUS_SUCCESS,
		       "close window");
	return 0;
}

static int
t_mw_basic(void)
{
	struct tok_ctx t;
	struct shadow_buf sb;
	struct ndk_mw *mw;
	uint32_t tok;
	uint8_t *got;
	uint8_t *pat;
	int rc = tok_open(&t, 0, NULL);

	if (rc != 0)
		return rc;
	if (sbuf_new(&sb, t.p, t.pd[1], 16384, MR_RW, 0x800) != 0 ||
	    mw_bind(&t, sb.b, RW_FLAGS, &mw, &tok, "bind") != 0)
		return -1;
	printf("  MR token 0x%08x, window token 0x%08x\n", sb.b->rtoken, tok);

	/* Inside the window: WRITE the whole window, READ it back. */
	if (tok_remote_ok(&t, 0, false, ndk_pair_raddr(sb.b, MW_OFF), tok,
			  MW_LEN, 0x801, NULL, "WRITE the window") != 0)
		return -1;
	pat = tok_pattern(MW_LEN, 0x801);
	TEST_ASSERT(pat != NULL, "memory");
	memcpy(sb.want + MW_OFF, pat, MW_LEN);
	if (sbuf_check(&sb, "WRITE the window") != 0)
		return -1;
	got = malloc(MW_LEN);
	TEST_ASSERT(got != NULL, "memory");
	if (tok_remote_ok(&t, 0, true, ndk_pair_raddr(sb.b, MW_OFF), tok,
			  MW_LEN, 0, got, "READ the window") != 0)
		return -1;
	TEST_ASSERT(memcmp(got, pat, MW_LEN) == 0, "READ the window: data");
	if (tok_remote_ok(&t, 0, true,
			  ndk_pair_raddr(sb.b, MW_OFF + MW_LEN - 1), tok, 1, 0,
			  got, "READ the last byte") != 0)
		return -1;
	TEST_ASSERT(got[0] == pat[MW_LEN - 1], "READ the last byte: data");
	free(got);
	free(pat);
	/* The MR's own token still works alongside. */
	if (tok_remote_ok(&t, 0, false, ndk_pair_raddr(sb.b, 0), sb.b->rtoken,
			  16, 0x802, NULL, "WRITE with the MR's token") != 0)
		return -1;
	pat = tok_pattern(16, 0x802);
	memcpy(sb.want, pat, 16);
	free(pat);
	if (sbuf_check(&sb, "WRITE with the MR's token") != 0)
		return -1;
	TEST_ASSERT_EQ(ndk_close_mw(mw, NULL, NULL), NDK_STATUS_SUCCESS,
		       "close window");

	/* One byte outside, at each end, both directions. */
	if (mw_fails(&t, &sb, RW_FLAGS, false, MW_OFF - 1, 16,
		     "WRITE one byte before the window") != 0 ||
	    mw_fails(&t, &sb, RW_FLAGS, false, MW_OFF + MW_LEN - 15, 16,
		     "WRITE one byte past the window") != 0 ||
	    mw_fails(&t, &sb, RW_FLAGS, true, MW_OFF - 1, 16,
		     "READ one byte before the window") != 0 ||
	    mw_fails(&t, &sb, RW_FLAGS, true, MW_OFF + MW_LEN - 15, 16,
		     "READ one byte past the window") != 0 ||
	    mw_fails(&t, &sb, RW_FLAGS, false, 0, 16,
		     "WRITE in the MR, outside the window") != 0)
		return -1;
	/* Rights of the window. */
	if (mw_fails(&t, &sb, NDK_OP_FLAG_ALLOW_REMOTE_READ, false, MW_OFF, 16,
		     "WRITE to a read-only window") != 0 ||
	    mw_fails(&t, &sb, NDK_OP_FLAG_ALLOW_REMOTE_WRITE, true, MW_OFF, 16,
		     "READ of a write-only window") != 0)
		return -1;
	sbuf_free(&sb);
	tok_close(&t);
	return 0;
}

static int
t_mw_invalidate(void)
{
	struct tok_ctx t;
	struct shadow_buf sb;
	struct ndk_mw *mw;
	uint32_t tok, tok2;
	uint8_t *pat;
	ndk_status_t st;
	int rc = tok_open(&t, 0, NULL);

	if (rc != 0)
		return rc;
	if (sbuf_new(&sb, t.p, t.pd[1], 16384, MR_RW, 0x900) != 0 ||
	    mw_bind(&t, sb.b, RW_FLAGS, &mw, &tok, "bind") != 0 ||
	    tok_remote_ok(&t, 0, false, ndk_pair_raddr(sb.b, MW_OFF), tok, 100,
			  0x901, NULL, "WRITE before") != 0)
		return -1;
	pat = tok_pattern(100, 0x901);
	memcpy(sb.want + MW_OFF, pat, 100);
	free(pat);
	if (tok_invalidate(t.c, 1, &mw->header, "invalidate the window") != 0 ||
	    tok_remote_fails(&t, 0, false, false, ndk_pair_raddr(sb.b, MW_OFF),
			     tok, 100, "WRITE after invalidate") != 0 ||
	    sbuf_check(&sb, "WRITE after invalidate") != 0 ||
	    tok_remote_fails(&t, 0, true, true, ndk_pair_raddr(sb.b, MW_OFF),
			     tok, 100, "READ after invalidate") != 0)
		return -1;

	/* Bound again: a new token; the old one stays refused. */
	if (tok_reconnect(&t) != 0)
		return -1;
	st = ndk_bind(t.c->qp[1], TOK_REQ_BIND, sb.b->mr, mw,
		      sb.b->data + MW_OFF, MW_LEN, RW_FLAGS);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "bind again: %s",
		       ndk_status_str(st));
	tok2 = ndk_mw_remote_token(mw);
	printf("  window tokens: first 0x%08x, after re-bind 0x%08x\n", tok,
	       tok2);
	TEST_ASSERT(tok2 != tok, "re-bind kept the token");
	if (expect_one(t.c->icq[1], NDK_OP_BIND, &qctx_b, TOK_REQ_BIND, -1,
		       "bind again") != 0 ||
	    tok_remote_ok(&t, 0, false, ndk_pair_raddr(sb.b, MW_OFF + 200),
			  tok2, 100, 0x902, NULL, "WRITE, new token") != 0)
		return -1;
	pat = tok_pattern(100, 0x902);
	memcpy(sb.want + MW_OFF + 200, pat, 100);
	free(pat);
	if (sbuf_check(&sb, "WRITE, new token") != 0 ||
	    tok_remote_fails(&t, 0, false, false,
			     ndk_pair_raddr(sb.b, MW_OFF + 200), tok, 100,
			     "WRITE, old token") != 0 ||
	    sbuf_check(&sb, "WRITE, old token") != 0)
		return -1;

	/* Closing a bound window refuses its token too. */
	if (tok_reconnect(&t) != 0)
		return -1;
	st = ndk_bind(t.c->qp[1], TOK_REQ_BIND, sb.b->mr, mw,
		      sb.b->data + MW_OFF, MW_LEN, RW_FLAGS);
	/* Binding a bound window: whatever the provider says, report it. */
	if (st == NDK_STATUS_SUCCESS) {
		struct ndk_result_ex r;
		char d[200];

		TEST_ASSERT_EQ(ndk_pair_wait(t.c->icq[1], &r, 1, WAIT_S), 1,
			       "bind of a bound window: completion");
		printf("  bind of a bound window: %s\n",
		       ndk_pair_result_str(&r, d, sizeof(d)));
		if (r.status != NDK_STATUS_SUCCESS && tok_reconnect(&t) != 0)
			return -1;
	} else {
		printf("  bind of a bound window: %s\n", ndk_status_str(st));
	}
	if (tok_reconnect(&t) != 0)
		return -1;
	TEST_ASSERT_EQ(ndk_close_mw(mw, NULL, NULL), NDK_STATUS_SUCCESS,
		       "close window");
	if (mw_bind(&t, sb.b, RW_FLAGS, &mw, &tok, "bind a new window") != 0 ||
	    tok_remote_ok(&t, 0, true, ndk_pair_raddr(sb.b, MW_OFF), tok, 100,
			  0, NULL, "READ before close") != 0)
		return -1;
	TEST_ASSERT_EQ(ndk_close_mw(mw, NULL, NULL), NDK_STATUS_SUCCESS,
		       "close the bound window");
	if (tok_remote_fails(&t, 0, false, true, ndk_pair_raddr(sb.b, MW_OFF),
			     tok, 100, "READ after close") != 0 ||
	    tok_remote_fails(&t, 0, true, false, ndk_pair_raddr(sb.b, MW_OFF),
			     tok, 100, "WRITE after close") != 0 ||
	    sbuf_check(&sb, "WRITE after close") != 0)
		return -1;
	/* The MR itself is untouched by all this. */
	if (tok_reconnect(&t) != 0 ||
	    tok_remote_ok(&t, 0, true, ndk_pair_raddr(sb.b, 0), sb.b->rtoken,
			  16384, 0, NULL, "READ with the MR's token") != 0)
		return -1;
	sbuf_free(&sb);
	tok_close(&t);
	return 0;
}

/* A window over an FRMR: the FRMR's translation, its pages. */
static int
t_mw_over_frmr(void)
{
	struct tok_ctx t;
	struct tok_frmr *f;
	struct ndk_mw *mw;
	ndk_status_t st;
	uint32_t tok;
	uint8_t *pat, *got;
	const uint64_t woff = 3000, wlen = 6000;
	int rc = tok_open(&t, 0, NULL);

	if (rc != 0)
		return rc;
	f = tok_frmr_new(t.pd[1], 4, true, 9, 0xA80);
	TEST_ASSERT(f != NULL, "FRMR");
	tok_frmr_map(f, 4, true, 700, 4 * NDK_PAGE_SIZE - 700, VA1(700));
	if (tok_frmr_register(f, t.c, 1, RW_FLAGS, "fast register") != 0)
		return -1;
	TEST_ASSERT_EQ(ndk_create_mw(t.pd[1], &mw), NDK_STATUS_SUCCESS, "mw");
	st = ndk_bind(t.c->qp[1], TOK_REQ_BIND, f->mr, mw,
		      (void *)(uintptr_t)(f->base_va + woff), wlen, RW_FLAGS);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "bind over the FRMR: %s",
		       ndk_status_str(st));
	tok = ndk_mw_remote_token(mw);
	if (expect_one(t.c->icq[1], NDK_OP_BIND, &qctx_b, TOK_REQ_BIND, -1,
		       "bind over the FRMR") != 0)
		return -1;
	pat = tok_pattern(wlen, 0xA81);
	got = malloc(wlen);
	TEST_ASSERT(pat != NULL && got != NULL, "memory");
	if (tok_remote_ok(&t, 0, false, f->base_va + woff, tok, (uint32_t)wlen,
			  0xA81, NULL, "WRITE the window") != 0)
		return -1;
	tok_frmr_expect(f, woff, pat, wlen);
	if (frmr_check(f, "WRITE the window") != 0 ||
	    tok_remote_ok(&t, 0, true, f->base_va + woff, tok, (uint32_t)wlen,
			  0, got, "READ the window") != 0)
		return -1;
	TEST_ASSERT(memcmp(got, pat, wlen) == 0, "READ the window: data");
	free(pat);
	free(got);
	if (tok_remote_fails(&t, 0, false, false, f->base_va + woff + wlen - 1,
			     tok, 2, "WRITE one byte past the window") != 0 ||
	    frmr_check(f, "WRITE one byte past the window") != 0)
		return -1;
	/* The FRMR invalidated: nothing reaches its pages any more. */
	if (tok_reconnect(&t) != 0 ||
	    tok_invalidate(t.c, 1, &f->mr->header,
			   "invalidate the FRMR") != 0 ||
	    tok_remote_fails(&t, 0, false, false, f->base_va + woff, tok, 100,
			     "WRITE via the window, FRMR invalid") != 0 ||
	    frmr_check(f, "WRITE via the window, FRMR invalid") != 0)
		return -1;
	/* Registered again (new pages): the old window stays dead. */
	tok_frmr_map(f, 4, false, 700, 4 * NDK_PAGE_SIZE - 700, VA1(700));
	if (tok_reconnect(&t) != 0 ||
	    tok_frmr_register(f, t.c, 1, RW_FLAGS,
			      "fast register again") != 0 ||
	    tok_remote_fails(&t, 0, false, true, f->base_va + woff, tok, 100,
			     "READ via the window, FRMR re-registered") != 0)
		return -1;
	TEST_ASSERT_EQ(ndk_close_mw(mw, NULL, NULL), NDK_STATUS_SUCCESS,
		       "close window");
	tok_frmr_free(f);
	tok_close(&t);
	return 0;
}

/* A window whose plain MR is deregistered must not reach the memory. */
static int
t_mw_parent_deregistered(void)
{
	struct tok_ctx t;
	struct shadow_buf sb;
	struct ndk_mw *mw;
	ndk_status_t st;
	uint32_t tok;
	int rc = tok_open(&t, 0, NULL);

	if (rc != 0)
		return rc;
	if (sbuf_new(&sb, t.p, t.pd[1], 16384, MR_RW, 0xA90) != 0 ||
	    mw_bind(&t, sb.b, RW_FLAGS, &mw, &tok, "bind") != 0)
		return -1;
	st = ndk_deregister_mr(sb.b->mr);
	printf("  ndk_deregister_mr with a bound window: %s\n",
	       ndk_status_str(st));
	if (st == NDK_STATUS_SUCCESS) {
		if (tok_remote_fails(&t, 0, false, false,
				     ndk_pair_raddr(sb.b, MW_OFF), tok, 100,
				     "WRITE via the window, MR deregistered")
		    != 0 || sbuf_check(&sb, "WRITE via the window") != 0 ||
		    tok_remote_fails(&t, 0, true, true,
				     ndk_pair_raddr(sb.b, MW_OFF), tok, 100,
				     "READ via the window, MR deregistered")
		    != 0)
			return -1;
		/* Registered again at the same place: still dead. */
		st = ndk_register_mr(sb.b->mr, sb.b->data, sb.b->len, MR_RW);
		TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "register again: %s",
			       ndk_status_str(st));
		sb.b->rtoken = ndk_mr_remote_token(sb.b->mr);
		sb.b->ltoken = ndk_mr_local_token(sb.b->mr);
		if (tok_remote_fails(&t, 0, true, false,
				     ndk_pair_raddr(sb.b, MW_OFF), tok, 100,
				     "WRITE via the window, MR re-registered")
		    != 0 || sbuf_check(&sb, "re-registered") != 0)
			return -1;
	} else {
		TEST_ASSERT(st == NDK_STATUS_DEVICE_BUSY, "deregister with a "
			    "bound window: %s", ndk_status_str(st));
	}
	TEST_ASSERT_EQ(ndk_close_mw(mw, NULL, NULL), NDK_STATUS_SUCCESS,
		       "close window");
	sbuf_free(&sb);
	tok_close(&t);
	return 0;
}

static int
t_mw_bind_checks(void)
{
	struct tok_ctx t;
	struct ndk_pair_buf *b0, *bro, *blw;
	struct ndk_mw *mw;
	uint32_t tok;
	ndk_status_t st;
	int rc = tok_open(&t, 0, NULL);

	if (rc != 0)
		return rc;
	b0 = ndk_pair_buf_alloc(t.p, t.pd[1], 16384,
				NDK_MR_FLAG_ALLOW_LOCAL_READ);
	bro = ndk_pair_buf_alloc(t.p, t.pd[1], 16384,
				 NDK_MR_FLAG_ALLOW_REMOTE_READ);
	blw = ndk_pair_buf_alloc(t.p, t.pd[1], 16384,
				 NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	TEST_ASSERT(b0 != NULL && bro != NULL && blw != NULL, "buffers");
	TEST_ASSERT_EQ(ndk_create_mw(t.pd[1], &mw), NDK_STATUS_SUCCESS,
		       "create window");
#define BIND(buf, off, len, fl) ndk_bind(t.c->qp[1], TOK_REQ_BIND, (buf)->mr, \
					 mw, (buf)->data + (off), (len), (fl))
	/* Remote write through a window needs local write on the MR. */
	st = BIND(b0, 0, 100, NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
	TEST_ASSERT_EQ(st, NDK_STATUS_ACCESS_VIOLATION, "REMOTE_WRITE window "
		       "on a read-only MR: %s", ndk_status_str(st));
	st = BIND(bro, 0, 100, RW_FLAGS);
	TEST_ASSERT_EQ(st, NDK_STATUS_ACCESS_VIOLATION, "REMOTE_WRITE window "
		       "on an MR with REMOTE_READ only: %s",
		       ndk_status_str(st));
	/* Ranges outside the MR. */
	st = BIND(blw, 16384 - 99, 100, NDK_OP_FLAG_ALLOW_REMOTE_READ);
	TEST_ASSERT_EQ(st, NDK_STATUS_INVALID_PARAMETER, "window one byte past "
		       "the MR: %s", ndk_status_str(st));
	st = ndk_bind(t.c->qp[1], TOK_REQ_BIND, blw->mr, mw, blw->data - 1,
		      100, NDK_OP_FLAG_ALLOW_REMOTE_READ);
	TEST_ASSERT_EQ(st, NDK_STATUS_INVALID_PARAMETER, "window one byte "
		       "before the MR: %s", ndk_status_str(st));
	ndk_pair_sleep_ms(20);
	if (expect_none(t.c->icq[1], "refused binds") != 0)
		return -1;
	TEST_ASSERT_EQ(tok_qp_state(t.c->qp[1]), NDK_QP_STATE_RTS, "QP B");
	/* What NDK allows: any window on a locally writable MR; a READ
	 * window on MRs without remote rights (the window grants them). */
	st = BIND(blw, 0, 16384, RW_FLAGS);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "RW window on a local-write MR: "
		       "%s", ndk_status_str(st));
	tok = ndk_mw_remote_token(mw);
	if (expect_one(t.c->icq[1], NDK_OP_BIND, &qctx_b, TOK_REQ_BIND, -1,
		       "bind") != 0 ||
	    tok_remote_ok(&t, 0, false, ndk_pair_raddr(blw, 5), tok, 16379,
			  0xA01, NULL, "WRITE through the window") != 0)
		return -1;
	TEST_ASSERT(ndk_pair_check(blw->data + 5, 16379, 0xA01) < 0 &&
		    ndk_pair_buf_guards_ok(blw),
		    "WRITE through the window: data");
#undef BIND
	TEST_ASSERT_EQ(ndk_close_mw(mw, NULL, NULL), NDK_STATUS_SUCCESS,
		       "close window");
	ndk_pair_buf_free(b0);
	ndk_pair_buf_free(bro);
	ndk_pair_buf_free(blw);
	tok_close(&t);
	return 0;
}

/* ------------------------------------------------------------------ */
/* SEND with Invalidate                                                */
/* ------------------------------------------------------------------ */

/*
 * B posts a receive, A sends 100 bytes with @p token to invalidate; check
 * both completions (through the ex getter, or the basic one if @p basic).
 */
static int
send_inv_ok(struct tok_ctx *t, uint32_t token, bool basic, const char *what)
{
	struct ndk_pair_conn *c = t->c;
	struct ndk_pair_buf *src, *dst;
	struct ndk_adapter_stats s0, s1;
	struct ndk_sge s;
	ndk_status_t st;
	char d[200];

	src = ndk_pair_buf_alloc(t->p, t->pd[0], 100, 0);
	dst = ndk_pair_buf_alloc(t->p, t->pd[1], 256,
				 NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	TEST_ASSERT(src != NULL && dst != NULL, "buffers");
	ndk_pair_fill(src->data, 100, 0xB00);
	s = ndk_pair_sge(dst, 0, 256);
	TEST_ASSERT_EQ(ndk_receive(c->qp[1], (void *)0xB2, &s, 1),
		       NDK_STATUS_SUCCESS, "receive");
	ndk_pair_stats(t->p, 1, &s0);
	s = ndk_pair_sge(src, 0, 100);
	st = ndk_send_and_invalidate(c->qp[0], (void *)0xB1, &s, 1, 0, token);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "%s: post: %s", what,
		       ndk_status_str(st));
	if (expect_one(c->icq[0], NDK_OP_SEND, &qctx_a, (void *)0xB1, -1,
		       what) != 0)
		return -1;
	if (basic) {
		struct ndk_result r;

		TEST_ASSERT_EQ(ndk_pair_wait_basic(c->rcq[1], &r, 1, WAIT_S), 1,
			       "%s: receive completion", what);
		printf("    %s: basic getter: status %s bytes %u req %p\n",
		       what, ndk_status_str(r.status), r.bytes_transferred,
		       r.request_context);
		TEST_ASSERT(r.status == NDK_STATUS_SUCCESS &&
			    r.bytes_transferred == 100 &&
			    r.request_context == (void *)0xB2 &&
			    r.qp_context == &qctx_b, "%s: receive", what);
	} else {
		struct ndk_result_ex r;

		TEST_ASSERT_EQ(ndk_pair_wait(c->rcq[1], &r, 1, WAIT_S), 1,
			       "%s: receive completion", what);
		ndk_pair_result_str(&r, d, sizeof(d));
		printf("    %s: %s type_specific 0x%08" PRIxPTR "\n", what, d,
		       r.type_specific);
		TEST_ASSERT(r.status == NDK_STATUS_SUCCESS &&
			    r.type == NDK_OP_RECEIVE_AND_INVALIDATE &&
			    r.bytes_transferred == 100 &&
			    r.request_context == (void *)0xB2 &&
			    r.qp_context == &qctx_b && r.provider_error == 0,
			    "%s: receive: %s", what, d);
		TEST_ASSERT(r.type & NDK_OP_RECEIVE, "receive bit");
		TEST_ASSERT_EQ(r.type_specific, token,
			       "%s: type_specific is not the token", what);
	}
	TEST_ASSERT(ndk_pair_check(dst->data, 100, 0xB00) < 0 &&
		    all_zero(dst->data + 100, 156), "%s: received data", what);
	ndk_pair_stats(t->p, 1, &s1);
	printf("    B inv_remote +%" PRIu64 "\n",
	       s1.inv_remote - s0.inv_remote);
	TEST_ASSERT_EQ(s1.inv_remote - s0.inv_remote, 1, "inv_remote counter");
	ndk_pair_buf_free(src);
	ndk_pair_buf_free(dst);
	return 0;
}

static int
t_send_inv_frmr(void)
{
	struct tok_ctx t;
	struct tok_frmr *f;
	int rc = tok_open(&t, 0, NULL);

	if (rc != 0)
		return rc;
	f = tok_frmr_new(t.pd[1], 4, true, 8, 0xC00);
	TEST_ASSERT(f != NULL, "FRMR");
	tok_frmr_map(f, 3, true, 10, 3 * NDK_PAGE_SIZE - 10, VA1(10));
	if (tok_frmr_register(f, t.c, 1, RW_FLAGS, "fast register") != 0 ||
	    frmr_write_ok(&t, f, 0, 1000, 0xC01, "WRITE before") != 0 ||
	    send_inv_ok(&t, f->rtoken, false,
			"SEND with Invalidate (FRMR)") != 0)
		return -1;
	/* The token is dead (the same connection sees it first). */
	if (tok_remote_fails(&t, 0, false, false, f->base_va, f->rtoken, 100,
			     "WRITE after remote invalidate") != 0 ||
	    frmr_check(f, "WRITE after remote invalidate") != 0 ||
	    tok_remote_fails(&t, 0, true, true, f->base_va, f->rtoken, 100,
			     "READ after remote invalidate") != 0)
		return -1;
	/* The FRMR is invalid, not broken: registered again it works, and
	 * B can invalidate and send-invalidate again. */
	if (tok_reconnect(&t) != 0)
		return -1;
	tok_frmr_map(f, 4, false, 0, 4 * NDK_PAGE_SIZE, VA2(0));
	if (tok_frmr_register(f, t.c, 1, RW_FLAGS,
			      "fast register again") != 0 ||
	    frmr_write_ok(&t, f, 5000, 100, 0xC02, "WRITE, new token") != 0 ||
	    send_inv_ok(&t, f->rtoken, false,
			"SEND with Invalidate again") != 0 ||
	    tok_remote_fails(&t, 0, false, true, f->base_va, f->rtoken, 1,
			     "READ after the second one") != 0)
		return -1;
	/* B's own NdkInvalidate of the remotely invalidated FRMR fails. */
	if (tok_reconnect(&t) != 0)
		return -1;
	{
		ndk_status_t st = ndk_invalidate(t.c->qp[1], TOK_REQ_INV,
						 &f->mr->header, 0);
		struct ndk_result_ex r;
		char d[200];

		if (st == NDK_STATUS_SUCCESS) {
			TEST_ASSERT_EQ(ndk_pair_wait(t.c->icq[1], &r, 1,
						     WAIT_S), 1,
				       "invalidate completion");
			ndk_pair_result_str(&r, d, sizeof(d));
			printf("  NdkInvalidate after the remote invalidation: "
			       "%s\n", d);
			TEST_ASSERT(r.status != NDK_STATUS_SUCCESS &&
				    r.type == NDK_OP_INVALIDATE,
				    "invalidating an invalid FRMR succeeded");
		} else {
			printf("  NdkInvalidate after the remote invalidation: "
			       "refused inline, %s\n", ndk_status_str(st));
		}
	}
	tok_frmr_free(f);
	tok_close(&t);
	return 0;
}

static int
t_send_inv_mw(void)
{
	struct tok_ctx t;
	struct shadow_buf sb;
	struct ndk_mw *mw;
	uint32_t tok;
	int rc = tok_open(&t, 0, NULL);

	if (rc != 0)
		return rc;
	if (sbuf_new(&sb, t.p, t.pd[1], 16384, MR_RW, 0xD00) != 0 ||
	    mw_bind(&t, sb.b, RW_FLAGS, &mw, &tok, "bind") != 0 ||
	    tok_remote_ok(&t, 0, true, ndk_pair_raddr(sb.b, MW_OFF), tok, 100,
			  0, NULL, "READ before") != 0 ||
	    send_inv_ok(&t, tok, false, "SEND with Invalidate (window)") != 0 ||
	    tok_remote_fails(&t, 0, false, false, ndk_pair_raddr(sb.b, MW_OFF),
			     tok, 100, "WRITE after remote invalidate") != 0 ||
	    sbuf_check(&sb, "WRITE after remote invalidate") != 0)
		return -1;
	/* The MR stays valid. */
	if (tok_reconnect(&t) != 0 ||
	    tok_remote_ok(&t, 0, true, ndk_pair_raddr(sb.b, 0), sb.b->rtoken,
			  100, 0, NULL, "READ with the MR's token") != 0)
		return -1;
	TEST_ASSERT_EQ(ndk_close_mw(mw, NULL, NULL), NDK_STATUS_SUCCESS,
		       "close window");
	sbuf_free(&sb);
	tok_close(&t);
	return 0;
}

static int
t_send_inv_basic_getter(void)
{
	struct tok_ctx t;
	struct tok_frmr *f;
	int rc = tok_open(&t, 0, NULL);

	if (rc != 0)
		return rc;
	f = tok_frmr_new(t.pd[1], 2, true, 2, 0xE00);
	TEST_ASSERT(f != NULL, "FRMR");
	tok_frmr_map(f, 2, false, 0, 2 * NDK_PAGE_SIZE, VA3(0));
	if (tok_frmr_register(f, t.c, 1, RW_FLAGS, "fast register") != 0 ||
	    send_inv_ok(&t, f->rtoken, true, "SEND with Invalidate, "
			"ndk_get_cq_results") != 0 ||
	    tok_remote_fails(&t, 0, false, false, f->base_va, f->rtoken, 100,
			     "WRITE after") != 0 ||
	    frmr_check(f, "WRITE after") != 0)
		return -1;
	tok_frmr_free(f);
	tok_close(&t);
	return 0;
}

/*
 * A SEND with Invalidate naming @p token that the receiver must refuse:
 * the receiver aborts the connection.
 */
static int
send_inv_refused(struct tok_ctx *t, uint32_t token, const char *what)
{
	struct ndk_pair_conn *c;
	struct ndk_pair_buf *src, *dst;
	struct ndk_adapter_stats s0, s1;
	struct ndk_result_ex r;
	struct ndk_sge s;
	ndk_status_t st;
	char d[200];

	if (tok_reconnect(t) != 0)
		return -1;
	c = t->c;
	src = ndk_pair_buf_alloc(t->p, t->pd[0], 100, 0);
	dst = ndk_pair_buf_alloc(t->p, t->pd[1], 256,
				 NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	TEST_ASSERT(src != NULL && dst != NULL, "buffers");
	s = ndk_pair_sge(dst, 0, 256);
	TEST_ASSERT_EQ(ndk_receive(c->qp[1], (void *)0xB2, &s, 1),
		       NDK_STATUS_SUCCESS, "receive");
	ndk_pair_stats(t->p, 1, &s0);
	s = ndk_pair_sge(src, 0, 100);
	st = ndk_send_and_invalidate(c->qp[0], (void *)0xB1, &s, 1, 0, token);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "%s: post: %s", what,
		       ndk_status_str(st));
	if (tok_expect_failure(c->icq[0], NDK_OP_SEND, (void *)0xB1, NULL,
			       what) != 0)
		return -1;
	TEST_ASSERT_EQ(ndk_pair_wait(c->rcq[1], &r, 1, WAIT_S), 1,
		       "%s: receive completion", what);
	ndk_pair_result_str(&r, d, sizeof(d));
	printf("    %-40s    receiver: %s\n", "", d);
	TEST_ASSERT(r.status != NDK_STATUS_SUCCESS &&
		    r.request_context == (void *)0xB2,
		    "%s: the receive did not fail: %s", what, d);
	if (tok_expect_both_error(c, what) != 0)
		return -1;
	ndk_pair_stats(t->p, 1, &s1);
	TEST_ASSERT(s1.inv_rejected > s0.inv_rejected &&
		    s1.inv_remote == s0.inv_remote,
		    "%s: inv_rejected +%" PRIu64 ", inv_remote +%" PRIu64, what,
		    s1.inv_rejected - s0.inv_rejected,
		    s1.inv_remote - s0.inv_remote);
	ndk_pair_buf_free(src);
	ndk_pair_buf_free(dst);
	return 0;
}

static int
t_send_inv_bad_token(void)
{
	struct tok_ctx t, t2;
	struct tok_frmr *fother, *fdead, *fown;
	struct shadow_buf plain;
	int rc = tok_open(&t, 0, NULL);

	if (rc != 0)
		return rc;
	rc = tok_open(&t2, 0, NULL);
	if (rc != 0)
		return rc;
	fother = tok_frmr_new(t2.pd[1], 2, true, 2, 0xF00);
	fdead = tok_frmr_new(t.pd[1], 2, true, 2, 0xF10);
	fown = tok_frmr_new(t.pd[0], 2, true, 2, 0xF20);
	TEST_ASSERT(fother != NULL && fdead != NULL && fown != NULL, "FRMRs");
	tok_frmr_map(fother, 2, false, 0, 2 * NDK_PAGE_SIZE, VA1(0));
	tok_frmr_map(fdead, 2, false, 0, 2 * NDK_PAGE_SIZE, VA2(0));
	tok_frmr_map(fown, 2, false, 0, 2 * NDK_PAGE_SIZE, VA3(0));
	if (tok_frmr_register(fother, t2.c, 1, RW_FLAGS, "other PD") != 0 ||
	    tok_frmr_register(fdead, t.c, 1, RW_FLAGS, "FRMR") != 0 ||
	    tok_invalidate(t.c, 1, &fdead->mr->header, "invalidate") != 0 ||
	    tok_frmr_register(fown, t.c, 0, RW_FLAGS, "sender's FRMR") != 0)
		return -1;
	if (sbuf_new(&plain, t.p, t.pd[1], 4096, MR_RW, 0xF30) != 0)
		return -1;

	if (send_inv_refused(&t, 0x13572468u, "no such token") != 0 ||
	    send_inv_refused(&t, 0, "token 0") != 0 ||
	    send_inv_refused(&t, fdead->rtoken, "an invalidated FRMR") != 0 ||
	    send_inv_refused(&t, fother->rtoken, "another PD's FRMR") != 0 ||
	    send_inv_refused(&t, plain.b->rtoken, "a plain MR") != 0 ||
	    send_inv_refused(&t, fown->rtoken, "the sender's own FRMR") != 0)
		return -1;
	/* None of them was invalidated. */
	if (tok_remote_ok(&t2, 0, false, fother->base_va, fother->rtoken, 100,
			  0xF01, NULL, "other PD's FRMR still valid") != 0 ||
	    tok_reconnect(&t) != 0 ||
	    tok_remote_ok(&t, 0, true, ndk_pair_raddr(plain.b, 0),
			  plain.b->rtoken, 4096, 0, NULL,
			  "plain MR still valid") != 0 ||
	    tok_remote_ok(&t, 1, true, fown->base_va, fown->rtoken, 100, 0,
			  NULL, "sender's FRMR still valid") != 0 ||
	    sbuf_check(&plain, "plain MR") != 0)
		return -1;
	tok_frmr_free(fother);
	tok_frmr_free(fdead);
	tok_frmr_free(fown);
	sbuf_free(&plain);
	tok_close(&t);
	tok_close(&t2);
	return 0;
}

/* ------------------------------------------------------------------ */
/* READ with local invalidate                                          */
/* ------------------------------------------------------------------ */

static int
t_read_local_invalidate(void)
{
	struct tok_ctx t;
	struct tok_frmr *f;
	struct ndk_pair_buf *src, *dst;
	struct ndk_pair_conn *c;
	struct ndk_result_ex r;
	struct ndk_sge s[2];
	ndk_status_t st;
	char d[200];
	int rc = tok_open(&t, 0, NULL);

	if (rc != 0)
		return rc;
	c = t.c;
	src = ndk_pair_buf_alloc(t.p, t.pd[1], 16384,
				 NDK_MR_FLAG_ALLOW_REMOTE_READ);
	dst = ndk_pair_buf_alloc(t.p, t.pd[1], 16384, MR_RW);
	TEST_ASSERT(src != NULL && dst != NULL, "buffers");
	ndk_pair_fill(src->data, 16384, 0x1100);
	f = tok_frmr_new(t.pd[0], 4, true, 8, 0x1101);
	TEST_ASSERT(f != NULL, "FRMR");
	tok_frmr_map(f, 4, true, 512, 4 * NDK_PAGE_SIZE - 512, VA1(512));

	/* Without the flag the sink stays valid. */
	if (tok_frmr_register(f, c, 0, RW_FLAGS | fr_sink_flags(t.p),
			      "A's sink FRMR") != 0)
		return -1;
	s[0] = fsge(f, 0, 10000);
	st = ndk_read(c->qp[0], (void *)0x71, s, 1, ndk_pair_raddr(src, 0),
		      src->rtoken, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "READ: %s", ndk_status_str(st));
	if (expect_one(c->icq[0], NDK_OP_READ, &qctx_a, (void *)0x71, -1,
		       "READ without the flag") != 0)
		return -1;
	tok_frmr_expect(f, 0, src->data, 10000);
	if (frmr_check(f, "READ without the flag") != 0)
		return -1;
	s[0] = fsge(f, 0, 100);
	st = ndk_write(c->qp[0], (void *)0x72, s, 1, ndk_pair_raddr(dst, 0),
		       dst->rtoken, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "WRITE from the sink: %s",
		       ndk_status_str(st));
	if (expect_one(c->icq[0], NDK_OP_WRITE, &qctx_a, (void *)0x72, -1,
		       "WRITE from the sink") != 0 ||
	    tok_remote_ok(&t, 1, false, f->base_va + 12000, f->rtoken, 100,
			  0x1102, NULL, "B's WRITE into the sink") != 0)
		return -1;
	{
		uint8_t *pat = tok_pattern(100, 0x1102);

		tok_frmr_expect(f, 12000, pat, 100);
		free(pat);
	}
	if (frmr_check(f, "B's WRITE into the sink") != 0 ||
	    tok_invalidate(c, 0, &f->mr->header, "invalidate") != 0)
		return -1;

	/* With it: the first SGE's region is invalid after the READ. */
	tok_frmr_map(f, 4, true, 512, 4 * NDK_PAGE_SIZE - 512, VA2(512));
	if (tok_frmr_register(f, c, 0, RW_FLAGS | fr_sink_flags(t.p),
			      "A's sink FRMR again") != 0)
		return -1;
	s[0] = fsge(f, 3000, 6000);
	{
		struct ndk_pair_buf *plain;

		plain = ndk_pair_buf_alloc(t.p, t.pd[0], 4096,
					   read_sink_flags(t.p));
		TEST_ASSERT(plain != NULL, "buffer");
		s[1] = ndk_pair_sge(plain, 0, 4096);
		st = ndk_read(c->qp[0], (void *)0x73, s, 2,
			      ndk_pair_raddr(src, 1), src->rtoken,
			      NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE);
		TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "READ with local "
			       "invalidate: %s", ndk_status_str(st));
		if (expect_one(c->icq[0], NDK_OP_READ, &qctx_a, (void *)0x73,
			       -1, "READ with local invalidate") != 0)
			return -1;
		tok_frmr_expect(f, 3000, src->data + 1, 6000);
		if (frmr_check(f, "READ with local invalidate") != 0)
			return -1;
		TEST_ASSERT(memcmp(plain->data, src->data + 6001, 4096) == 0,
			    "second SGE data");
		/* The second SGE's (plain) region is still valid. */
		s[1] = ndk_pair_sge(plain, 0, 100);
		st = ndk_write(c->qp[0], (void *)0x74, &s[1], 1,
			       ndk_pair_raddr(dst, 0), dst->rtoken, 0);
		TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "plain SGE after: %s",
			       ndk_status_str(st));
		if (expect_one(c->icq[0], NDK_OP_WRITE, &qctx_a, (void *)0x74,
			       -1, "plain SGE after") != 0)
			return -1;
		ndk_pair_buf_free(plain);
	}
	/* A local post with the FRMR's token fails (inline or completion). */
	s[0] = fsge(f, 3000, 100);
	st = ndk_write(c->qp[0], (void *)0x75, s, 1, ndk_pair_raddr(dst, 0),
		       dst->rtoken, 0);
	if (st == NDK_STATUS_SUCCESS) {
		TEST_ASSERT_EQ(ndk_pair_wait(c->icq[0], &r, 1, WAIT_S), 1,
			       "local post with the invalidated token: "
			       "completion");
		ndk_pair_result_str(&r, d, sizeof(d));
		printf("  local post with the invalidated token: %s\n", d);
		TEST_ASSERT(r.status != NDK_STATUS_SUCCESS,
			    "a local post with the invalidated token "
			    "succeeded: %s", d);
	} else {
		printf("  local post with the invalidated token: refused "
		       "inline, %s\n", ndk_status_str(st));
	}
	/* And the peer's WRITE with its remote token. */
	if (tok_remote_fails(&t, 1, true, false, f->base_va + 3000, f->rtoken,
			     100,
			     "B's WRITE after the local invalidate") != 0 ||
	    frmr_check(f, "B's WRITE after the local invalidate") != 0)
		return -1;
	ndk_pair_buf_free(src);
	ndk_pair_buf_free(dst);
	tok_frmr_free(f);
	tok_close(&t);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Invalidation while a READ streams                                   */
/* ------------------------------------------------------------------ */

#define MID_MTU 1024u
#define MID_TOTAL (8u << 20)
#define MID_TRIES 6

/*
 * A reads the FRMR of B (its whole 1..8 MiB) several times, 8 MiB in
 * all; once B has sent @p frac / 8 of the responses (at least 64), B
 * invalidates the FRMR. The READ counter of B after the invalidation
 * completed (S) bounds what was sent before it: every READ needing a
 * response beyond S must fail.
 * @return 0 (overlap seen and checked), 1 (no overlap: try again), -1,
 *   -2 (skipped).
 */
static int
mid_read_try(int attempt, uint32_t frac)
{
	struct ndk_pair_conn_opts o = { .sq_depth = 64, .cq_depth = 256 };
	struct ndk_adapter_stats b0, b1;
	struct ndk_result_ex r[64];
	struct ndk_pair_buf *sink;
	struct tok_frmr *f;
	struct tok_ctx t;
	uint32_t npages, flen, nreads, per, n, succ;
	uint64_t S, total, thr;
	double end;
	ndk_status_t st;
	char d[200];
	int rc = tok_open(&t, MID_MTU, &o);

	if (rc != 0)
		return rc == NDK_TEST_SKIPPED ? -2 : -1;
	npages = RTE_MIN(t.p->info[1].frmr_page_count,
			 MID_TOTAL / NDK_PAGE_SIZE);
	flen = npages * NDK_PAGE_SIZE;
	nreads = RTE_MIN((MID_TOTAL + flen - 1) / flen, 32u);
	per = (flen + MID_MTU - 1) / MID_MTU;
	total = (uint64_t)nreads * per;
	thr = RTE_MAX(total * frac / 8, (uint64_t)64);
	f = tok_frmr_new(t.pd[1], npages, true, npages, 0x1200 + attempt);
	sink = ndk_pair_buf_alloc(t.p, t.pd[0], flen, read_sink_flags(t.p));
	TEST_ASSERT(f != NULL && sink != NULL, "FRMR and sink");
	tok_frmr_map(f, npages, false, 0, flen, VA1(0));
	if (tok_frmr_register(f, t.c, 1, NDK_OP_FLAG_ALLOW_REMOTE_READ,
			      "fast register") != 0)
		return -1;
	if (attempt == 1)
		printf("  FRMR of %u pages; %u READs of %u B = %" PRIu64
		       " response packets at MTU %u\n", npages, nreads, flen,
		       total, MID_MTU);

	ndk_pair_stats(t.p, 1, &b0);
	for (uint32_t i = 0; i < nreads; i++) {
		struct ndk_sge s = ndk_pair_sge(sink, 0, flen);

		st = ndk_read(t.c->qp[0], (void *)(uintptr_t)(i + 1), &s, 1,
			      f->base_va, f->rtoken, 0);
		TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "READ %u: %s", i,
			       ndk_status_str(st));
	}
	/* Let the responses start, then pull the region away. */
	end = ndk_pair_now() + WAIT_S;
	do {
		ndk_pair_stats(t.p, 1, &b1);
	} while (b1.read_resp_sent - b0.read_resp_sent < thr &&
		 ndk_pair_now() < end);
	TEST_ASSERT(b1.read_resp_sent - b0.read_resp_sent >= thr,
		    "the READs did not progress");
	if (tok_invalidate(t.c, 1, &f->mr->header, "invalidate mid-READ") != 0)
		return -1;
	ndk_pair_stats(t.p, 1, &b1);
	S = b1.read_resp_sent - b0.read_resp_sent;

	n = ndk_pair_wait(t.c->icq[0], r, nreads, WAIT_S);
	TEST_ASSERT_EQ(n, nreads, "READ completions");
	for (succ = 0; succ < n && r[succ].status == NDK_STATUS_SUCCESS; succ++)
		;
	printf("  attempt %d: %" PRIu64 " of %" PRIu64 " responses sent when "
	       "the invalidation completed; %u of %u READs succeeded\n",
	       attempt, S, total, succ, nreads);
	if (succ == nreads) {
		/* All succeeded: right only if nothing was left to send. */
		TEST_ASSERT(S >= total, "every READ succeeded although "
			    "only %" PRIu64 " of %" PRIu64 " responses had "
			    "been sent when the invalidation completed", S,
			    total);
		tok_frmr_free(f);
		ndk_pair_buf_free(sink);
		tok_close(&t);
		return 1;
	}
	for (uint32_t i = 0; i < n; i++) {
		ndk_pair_result_str(&r[i], d, sizeof(d));
		TEST_ASSERT(r[i].type == NDK_OP_READ &&
			    r[i].request_context == (void *)(uintptr_t)(i + 1),
			    "READ %u: out of order or wrong type: %s", i, d);
		if (i < succ)
			continue;
		if (i == succ) {
			printf("  first failed READ (#%u): %s\n", i, d);
			TEST_ASSERT(r[i].status ==
				    NDK_STATUS_REMOTE_RESOURCES &&
				    r[i].provider_error == NDK_PERR_REM_ACCESS,
				    "READ %u: want REMOTE_RESOURCES / "
				    "REM_ACCESS: %s", i, d);
		} else {
			TEST_ASSERT(r[i].status == NDK_STATUS_CANCELLED,
				    "READ %u after the failed one: %s", i, d);
		}
	}
	/* A READ that succeeded had all its responses sent before. */
	TEST_ASSERT((uint64_t)succ * per <= S, "%u READs (%" PRIu64 " packets) "
		    "succeeded but only %" PRIu64 " responses preceded the "
		    "invalidation", succ, (uint64_t)succ * per, S);
	TEST_ASSERT(S < total, "a READ failed although every response had "
		    "been sent before the invalidation");
	if (tok_expect_both_error(t.c,
				  "after the mid-READ invalidation") != 0 ||
	    frmr_check(f, "READ source") != 0)
		return -1;
	TEST_ASSERT(ndk_pair_buf_guards_ok(sink), "sink guards");
	tok_frmr_free(f);
	ndk_pair_buf_free(sink);
	tok_close(&t);
	return 0;
}

static int
t_mid_read_invalidate(void)
{
	/* Early (the first READ fails) and half-way (later ones fail). */
	static const uint32_t fracs[] = { 0, 4 };

	for (unsigned int k = 0; k < RTE_DIM(fracs); k++) {
		int a, rc = 1;

		printf("  invalidating after %u/8 of the responses:\n",
		       fracs[k]);
		for (a = 1; a <= MID_TRIES && rc == 1; a++)
			rc = mid_read_try(a, fracs[k]);
		if (rc == -2)
			return NDK_TEST_SKIPPED;
		if (rc < 0)
			return rc;
		if (rc == 1) {
			printf("  skipped: the READs finished before the "
			       "invalidation in %d attempts\n", MID_TRIES);
			return NDK_TEST_SKIPPED;
		}
	}
	return 0;
}

static const struct ndk_test_case cases[] = {
	{ "adapter_flags", t_adapter_flags },
	{ "frmr_inline_checks", t_frmr_inline_checks },
	{ "frmr_remote_rw", t_frmr_remote_rw },
	{ "frmr_local_token", t_frmr_local_token },
	{ "frmr_in_order_use", t_frmr_in_order_use },
	{ "frmr_in_order_invalidate", t_frmr_in_order_invalidate },
	{ "frmr_new_token", t_frmr_new_token },
	{ "invalidate_frmr", t_invalidate_frmr },
	{ "invalidate_plain_mr", t_invalidate_plain_mr },
	{ "access_violations", t_access_violations },
	{ "mw_basic", t_mw_basic },
	{ "mw_invalidate", t_mw_invalidate },
	{ "mw_bind_checks", t_mw_bind_checks },
	{ "mw_over_frmr", t_mw_over_frmr },
	{ "mw_parent_deregistered", t_mw_parent_deregistered },
	{ "send_inv_frmr", t_send_inv_frmr },
	{ "send_inv_mw", t_send_inv_mw },
	{ "send_inv_basic_getter", t_send_inv_basic_getter },
	{ "send_inv_bad_token", t_send_inv_bad_token },
	{ "read_local_invalidate", t_read_local_invalidate },
	{ "frmr_remote_rw_mtu256", t_frmr_remote_rw_mtu256 },
	{ "mid_read_invalidate", t_mid_read_invalidate },
};

int
main(int argc, char **argv)
{
	return rc_main("test_func_tokens", "tokens", cases, RTE_DIM(cases),
		       argc, argv);
}
