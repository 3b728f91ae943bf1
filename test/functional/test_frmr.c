/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: fast-register MRs. The adapter flags of tokens, the
 * inline checks of NdkFastRegister, remote READ/WRITE through scattered
 * pages, first byte offsets and I/O address spaces, the local token in
 * local SGEs, execution in send-queue order with the requests around a
 * fast register or an invalidate, and a new token per registration.
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

#define RLI_FLAG NDK_ADAPTER_FLAG_RDMA_READ_LOCAL_INVALIDATE_SUPPORTED

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
/* New token per fast register                                         */
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

static const struct ndk_test_case cases[] = {
	{ "adapter_flags", t_adapter_flags },
	{ "frmr_inline_checks", t_frmr_inline_checks },
	{ "frmr_remote_rw", t_frmr_remote_rw },
	{ "frmr_local_token", t_frmr_local_token },
	{ "frmr_in_order_use", t_frmr_in_order_use },
	{ "frmr_in_order_invalidate", t_frmr_in_order_invalidate },
	{ "frmr_new_token", t_frmr_new_token },
	{ "frmr_remote_rw_mtu256", t_frmr_remote_rw_mtu256 },
};

int
main(int argc, char **argv)
{
	return rc_main("test_func_frmr", "frmr", cases, RTE_DIM(cases),
		       argc, argv);
}
