/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: NDK_OP_FLAG_DEFER (NDKPI's deferred processing scheme),
 * chains and their release. Requests posted with DEFER are held back
 * until a post without it: no frame leaves the adapter meanwhile; then
 * the whole chain runs. Every initiator request type may be deferred. A
 * failing post or NdkFlush releases a chain too. Flags inside a chain:
 * test_defer_flags.c.
 */

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "tok_common.h"

#define HOLD_MS 50

/* Nothing left A and nothing reached B since @p a0 / @p b0. */
static int
nothing_sent(struct ndk_pair *p, const struct ndk_test_xstats *a0,
	     const struct ndk_test_xstats *b0, const char *what)
{
	struct ndk_test_xstats a1, b1;

	ndk_pair_stats(p, 0, &a1);
	ndk_pair_stats(p, 1, &b1);
	TEST_ASSERT(XS(&a1, "tx_packets") == XS(a0, "tx_packets") &&
		    XS(&b1, "rx_packets") == XS(b0, "rx_packets"),
		    "%s: deferred requests went out: A tx_packets +%" PRIu64
		    ", B rx_packets +%" PRIu64, what,
		    XS_DIFF(&a1, a0, "tx_packets"),
		    XS_DIFF(&b1, b0, "rx_packets"));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Chains of one request type                                          */
/* ------------------------------------------------------------------ */

static int
chain_case(enum xop op)
{
	static const char *const nm[] = { "SEND", "WRITE", "READ" };
	struct ndk_test_xstats a0, b0;
	struct ndk_pair_buf *src, *dst;
	struct ndk_pair_conn *c;
	struct ndk_pair *p;
	struct ndk_sge s;
	ndk_status_t st;
	size_t len = (N_CHAIN + 1) * DEFER_MSG;
	int rc = dconn(&p, &c, NULL);

	if (rc != 0)
		return rc;
	if (op == XOP_READ) {
		src = ndk_pair_buf_alloc(p, c->pd[1], len,
					 NDK_MR_FLAG_ALLOW_REMOTE_READ);
		dst = ndk_pair_buf_alloc(p, c->pd[0], len, read_sink_flags(p));
	} else {
		src = ndk_pair_buf_alloc(p, c->pd[0], len, 0);
		dst = ndk_pair_buf_alloc(p, c->pd[1], len,
					 NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
	}
	TEST_ASSERT(src != NULL && dst != NULL, "buffers");
	ndk_pair_fill(src->data, len, 0xD0 + op);
	if (op == XOP_SEND)
		for (uint32_t i = 0; i <= N_CHAIN; i++) {
			s = ndk_pair_sge(dst, i * DEFER_MSG, DEFER_MSG);
			TEST_ASSERT_EQ(ndk_receive(c->qp[1],
						   (void *)(uintptr_t)(100 + i),
						   &s, 1),
				       NDK_STATUS_SUCCESS, "receive %u", i);
		}
	ndk_pair_stats(p, 0, &a0);
	ndk_pair_stats(p, 1, &b0);
	for (uint32_t i = 0; i <= N_CHAIN; i++) {
		uint32_t fl = i < N_CHAIN ? NDK_OP_FLAG_DEFER : 0;
		void *req = (void *)(uintptr_t)(i + 1);

		if (i == N_CHAIN) {
			/* The chain is held: nothing went out. */
			ndk_pair_sleep_ms(HOLD_MS);
			if (nothing_sent(p, &a0, &b0, nm[op]) != 0 ||
			    expect_none(c->icq[0], "held chain") != 0 ||
			    expect_none(c->rcq[1], "held chain") != 0 ||
			    expect_chain_stats(c->qp[0], N_CHAIN, N_CHAIN, 0, 0,
					       0, "held") != 0)
				return -1;
			TEST_ASSERT(all_zero(dst->data, len),
				    "held chain: destination written");
		}
		if (op == XOP_READ) {
			s = ndk_pair_sge(dst, i * DEFER_MSG, DEFER_MSG);
			st = ndk_read(c->qp[0], req, &s, 1,
				      ndk_pair_raddr(src, i * DEFER_MSG),
				      src->rtoken, fl);
		} else if (op == XOP_WRITE) {
			s = ndk_pair_sge(src, i * DEFER_MSG, DEFER_MSG);
			st = ndk_write(c->qp[0], req, &s, 1,
				       ndk_pair_raddr(dst, i * DEFER_MSG),
				       dst->rtoken, fl);
		} else {
			s = ndk_pair_sge(src, i * DEFER_MSG, DEFER_MSG);
			st = ndk_send(c->qp[0], req, &s, 1, fl);
		}
		TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "%s %u: %s", nm[op], i,
			       ndk_status_str(st));
	}
	if (expect_in_order(c->icq[0], N_CHAIN + 1,
			    op == XOP_SEND ? NDK_OP_SEND : op == XOP_WRITE ?
			    NDK_OP_WRITE : NDK_OP_READ, 1, -1, nm[op]) != 0)
		return -1;
	if (op == XOP_SEND &&
	    expect_in_order(c->rcq[1], N_CHAIN + 1, NDK_OP_RECEIVE, 100,
			    DEFER_MSG, "receives") != 0)
		return -1;
	TEST_ASSERT(ndk_pair_check(dst->data, len, 0xD0 + op) < 0,
		    "%s: data", nm[op]);
	TEST_ASSERT(ndk_pair_buf_guards_ok(dst) && ndk_pair_buf_guards_ok(src),
		    "guards");
	if (expect_chain_stats(c->qp[0], N_CHAIN + 1, N_CHAIN, 1, N_CHAIN + 1,
			       N_CHAIN + 1, "released") != 0)
		return -1;
	ndk_pair_sleep_ms(20);
	if (expect_none(c->icq[0], "after") != 0 ||
	    expect_none(c->rcq[1], "after") != 0)
		return -1;
	ndk_pair_buf_free(src);
	ndk_pair_buf_free(dst);
	ndk_pair_conn_destroy(c);
	return 0;
}

static int
t_chain_writes(void)
{
	return chain_case(XOP_WRITE);
}

static int
t_chain_sends(void)
{
	return chain_case(XOP_SEND);
}

static int
t_chain_reads(void)
{
	return chain_case(XOP_READ);
}

/* ------------------------------------------------------------------ */
/* Every initiator request type in one chain                           */
/* ------------------------------------------------------------------ */

static int
t_chain_mixed(void)
{
	static const enum ndk_operation_type want[] = {
		NDK_OP_FAST_REGISTER, NDK_OP_BIND, NDK_OP_READ, NDK_OP_SEND,
		NDK_OP_WRITE, NDK_OP_SEND, NDK_OP_INVALIDATE, NDK_OP_WRITE,
	};
	struct ndk_test_xstats a0, b0;
	struct ndk_pair_buf *asrc, *asink, *amw, *bsrc, *bdst, *brcv;
	struct ndk_result_ex r[16];
	struct tok_frmr *fa, *fb;
	struct ndk_mw *mw;
	struct tok_ctx t;
	struct ndk_pair_conn *c;
	struct ndk_sge s;
	ndk_status_t st;
	uint32_t n;
	char d[200];
	const uint32_t D = NDK_OP_FLAG_DEFER;
	int rc = tok_open(&t, 0, NULL);

	if (rc != 0)
		return rc;
	c = t.c;
	asrc = ndk_pair_buf_alloc(t.p, t.pd[0], 4096, 0);
	asink = ndk_pair_buf_alloc(t.p, t.pd[0], 4096, read_sink_flags(t.p));
	amw = ndk_pair_buf_alloc(t.p, t.pd[0], 4096,
				 NDK_MR_FLAG_ALLOW_REMOTE_READ |
				 NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
	bsrc = ndk_pair_buf_alloc(t.p, t.pd[1], 4096,
				  NDK_MR_FLAG_ALLOW_REMOTE_READ);
	bdst = ndk_pair_buf_alloc(t.p, t.pd[1], 4096,
				  NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
	brcv = ndk_pair_buf_alloc(t.p, t.pd[1], 2 * 4096,
				  NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	fa = tok_frmr_new(t.pd[0], 2, true, 4, 0xE0);
	fb = tok_frmr_new(t.pd[1], 2, true, 2, 0xE1);
	TEST_ASSERT(asrc && asink && amw && bsrc && bdst && brcv && fa && fb,
		    "objects");
	TEST_ASSERT_EQ(ndk_create_mw(t.pd[0], &mw), NDK_STATUS_SUCCESS,
		       "window");
	ndk_pair_fill(asrc->data, 4096, 0xE2);
	ndk_pair_fill(bsrc->data, 4096, 0xE3);
	/* B's FRMR, registered beforehand: the chain's SEND invalidates it. */
	tok_frmr_map(fb, 2, false, 0, 2 * NDK_PAGE_SIZE, UINT64_C(0x5000000));
	if (tok_frmr_register(fb, c, 1, NDK_OP_FLAG_ALLOW_REMOTE_WRITE,
			      "B's FRMR") != 0)
		return -1;
	for (int i = 0; i < 2; i++) {
		s = ndk_pair_sge(brcv, (size_t)i * 4096, 4096);
		TEST_ASSERT_EQ(ndk_receive(c->qp[1], (void *)(uintptr_t)
					   (0x200 + i), &s, 1),
			       NDK_STATUS_SUCCESS, "receive");
	}
	tok_frmr_map(fa, 2, true, 0, 2 * NDK_PAGE_SIZE, UINT64_C(0x7000000));
	ndk_pair_sleep_ms(20);
	ndk_pair_stats(t.p, 0, &a0);
	ndk_pair_stats(t.p, 1, &b0);

	st = tok_frmr_post(fa, c->qp[0], (void *)1,
			   NDK_OP_FLAG_ALLOW_LOCAL_WRITE | D |
			   ((t.p->info[0].adapter_flags &
			     NDK_ADAPTER_FLAG_RDMA_READ_SINK_NOT_REQUIRED) ? 0 :
			    NDK_OP_FLAG_RDMA_READ_SINK));
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "FR: %s", ndk_status_str(st));
	st = ndk_bind(c->qp[0], (void *)2, amw->mr, mw, amw->data, 4096,
		      NDK_OP_FLAG_ALLOW_REMOTE_READ | D);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "BIND: %s", ndk_status_str(st));
	s = ndk_pair_sge(asink, 0, 4096);
	st = ndk_read(c->qp[0], (void *)3, &s, 1, ndk_pair_raddr(bsrc, 0),
		      bsrc->rtoken, D);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "READ: %s", ndk_status_str(st));
	s = ndk_pair_sge(asrc, 0, 1000);
	st = ndk_send(c->qp[0], (void *)4, &s, 1, D);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "SEND: %s", ndk_status_str(st));
	s = ndk_pair_sge(asrc, 1000, 2000);
	st = ndk_write(c->qp[0], (void *)5, &s, 1, ndk_pair_raddr(bdst, 0),
		       bdst->rtoken, D);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "WRITE: %s", ndk_status_str(st));
	s = ndk_pair_sge(asrc, 3000, 500);
	st = ndk_send_and_invalidate(c->qp[0], (void *)6, &s, 1, D,
				     fb->rtoken);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "SEND_AND_INVALIDATE: %s",
		       ndk_status_str(st));
	st = ndk_invalidate(c->qp[0], (void *)7, &mw->header, D);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "INVALIDATE: %s",
		       ndk_status_str(st));

	ndk_pair_sleep_ms(HOLD_MS);
	if (nothing_sent(t.p, &a0, &b0, "mixed chain") != 0 ||
	    expect_none(c->icq[0], "held chain") != 0 ||
	    expect_none(c->rcq[1], "held chain") != 0)
		return -1;
	TEST_ASSERT(all_zero(asink->data, 4096) && all_zero(bdst->data, 4096),
		    "held chain: data moved");

	s = ndk_pair_sge(asrc, 3500, 596);
	st = ndk_write(c->qp[0], (void *)8, &s, 1,
		       ndk_pair_raddr(bdst, 3500), bdst->rtoken, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "last WRITE: %s",
		       ndk_status_str(st));
	n = ndk_pair_wait(c->icq[0], r, RTE_DIM(want), WAIT_S);
	TEST_ASSERT_EQ(n, RTE_DIM(want), "chain completions");
	for (uint32_t i = 0; i < n; i++) {
		ndk_pair_result_str(&r[i], d, sizeof(d));
		TEST_ASSERT(r[i].status == NDK_STATUS_SUCCESS &&
			    r[i].type == want[i] &&
			    r[i].request_context == (void *)(uintptr_t)(i + 1),
			    "completion %u: want %s: %s", i,
			    ndk_pair_op_str(want[i]), d);
	}
	TEST_ASSERT_EQ(ndk_pair_wait(c->rcq[1], r, 2, WAIT_S), 2, "receives");
	TEST_ASSERT(r[0].status == NDK_STATUS_SUCCESS &&
		    r[0].type == NDK_OP_RECEIVE &&
		    r[0].bytes_transferred == 1000,
		    "receive 1: %s", ndk_pair_result_str(&r[0], d, sizeof(d)));
	TEST_ASSERT(r[1].status == NDK_STATUS_SUCCESS &&
		    r[1].type == NDK_OP_RECEIVE_AND_INVALIDATE &&
		    r[1].type_specific == fb->rtoken &&
		    r[1].bytes_transferred == 500,
		    "receive 2: %s", ndk_pair_result_str(&r[1], d, sizeof(d)));
	TEST_ASSERT(memcmp(asink->data, bsrc->data, 4096) == 0, "READ data");
	TEST_ASSERT(memcmp(brcv->data, asrc->data, 1000) == 0 &&
		    memcmp(brcv->data + 4096, asrc->data + 3000, 500) == 0,
		    "SEND data");
	TEST_ASSERT(memcmp(bdst->data, asrc->data + 1000, 2000) == 0 &&
		    memcmp(bdst->data + 3500, asrc->data + 3500, 596) == 0,
		    "WRITE data");
	if (expect_chain_stats(c->qp[0], 8, 7, 1, 8, 8, "mixed chain") != 0)
		return -1;
	/* The chain's FR took effect: A's FRMR works as a local sink. */
	s.va = (void *)(uintptr_t)fa->base_va;
	s.length = 100;
	s.token = fa->ltoken;
	st = ndk_read(c->qp[0], (void *)9, &s, 1, ndk_pair_raddr(bsrc, 0),
		      bsrc->rtoken, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "READ into the FRMR: %s",
		       ndk_status_str(st));
	if (expect_ok(c->icq[0], NDK_OP_READ, (void *)9, "READ into the "
		      "chain's FRMR") != 0)
		return -1;
	TEST_ASSERT(memcmp(tok_frmr_host(fa, 0), bsrc->data, 100) == 0,
		    "READ into the chain's FRMR: data");
	/* ... and its SEND invalidated B's FRMR. */
	if (tok_remote_fails(&t, 0, false, false, fb->base_va, fb->rtoken, 64,
			     "WRITE to the FRMR the chain invalidated") != 0)
		return -1;
	TEST_ASSERT_EQ(ndk_close_mw(mw, NULL, NULL), NDK_STATUS_SUCCESS,
		       "close window");
	tok_frmr_free(fa);
	tok_frmr_free(fb);
	ndk_pair_buf_free(asrc);
	ndk_pair_buf_free(asink);
	ndk_pair_buf_free(amw);
	ndk_pair_buf_free(bsrc);
	ndk_pair_buf_free(bdst);
	ndk_pair_buf_free(brcv);
	tok_close(&t);
	return 0;
}

/*
 * A chain whose last request fails when it executes (its local region was
 * invalidated by a request ahead of it in the chain): the requests ahead,
 * carried out, complete with success (a fast register took effect: its
 * token works), then the failing one with its error.
 */
static int
t_chain_local_error(void)
{
	struct ndk_result_ex r[4];
	struct ndk_pair_buf *bdst;
	struct tok_frmr *f1, *f2;
	struct ndk_pair_conn *c;
	struct tok_ctx t;
	struct ndk_sge s;
	ndk_status_t st;
	uint32_t n;
	char d[200];
	int rc = tok_open(&t, 0, NULL);

	if (rc != 0)
		return rc;
	c = t.c;
	f1 = tok_frmr_new(t.pd[0], 2, false, 2, 0xC1);
	f2 = tok_frmr_new(t.pd[0], 2, true, 2, 0xC2);
	bdst = ndk_pair_buf_alloc(t.p, t.pd[1], 8192,
				  NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
	TEST_ASSERT(f1 != NULL && f2 != NULL && bdst != NULL, "objects");
	tok_frmr_map(f1, 2, false, 0, 8192, UINT64_C(0x10000));
	tok_frmr_map(f2, 2, false, 0, 8192, UINT64_C(0x20000));
	if (tok_frmr_register(f1, c, 0, NDK_OP_FLAG_ALLOW_LOCAL_WRITE,
			      "f1") != 0)
		return -1;
	st = tok_frmr_post(f2, c->qp[0], (void *)1,
			   NDK_OP_FLAG_ALLOW_REMOTE_WRITE | NDK_OP_FLAG_DEFER);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "FR f2: %s", ndk_status_str(st));
	st = ndk_invalidate(c->qp[0], (void *)2, &f1->mr->header,
			    NDK_OP_FLAG_DEFER);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "INVALIDATE f1: %s",
		       ndk_status_str(st));
	s.va = (void *)(uintptr_t)f1->base_va;
	s.length = 100;
	s.token = f1->ltoken;
	st = ndk_write(c->qp[0], (void *)3, &s, 1, ndk_pair_raddr(bdst, 0),
		       bdst->rtoken, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "WRITE from f1 (valid at post "
		       "time): %s", ndk_status_str(st));
	n = ndk_pair_wait(c->icq[0], r, 3, WAIT_S);
	for (uint32_t i = 0; i < n; i++)
		printf("  %u: %s\n", i, ndk_pair_result_str(&r[i], d,
							    sizeof(d)));
	TEST_ASSERT_EQ(n, 3, "completions");
	TEST_ASSERT(r[2].status != NDK_STATUS_SUCCESS &&
		    r[2].type == NDK_OP_WRITE &&
		    r[2].request_context == (void *)3, "the WRITE");
	TEST_ASSERT(all_zero(bdst->data, 8192), "data reached the peer");
	/* Whatever was reported, f2's registration is in force. */
	if (tok_reconnect(&t) != 0 ||
	    tok_remote_ok(&t, 1, false, f2->base_va, f2->rtoken, 64, 0xC3,
			  NULL, "peer WRITE to f2") != 0)
		return -1;
	printf("  the peer's WRITE with f2's token succeeded: the fast "
	       "register took effect\n");
	TEST_ASSERT(r[0].status == NDK_STATUS_SUCCESS &&
		    r[0].type == NDK_OP_FAST_REGISTER &&
		    r[1].status == NDK_STATUS_SUCCESS &&
		    r[1].type == NDK_OP_INVALIDATE,
		    "the fast register and the invalidate were carried out "
		    "but did not complete with success");
	tok_frmr_free(f1);
	tok_frmr_free(f2);
	ndk_pair_buf_free(bdst);
	tok_close(&t);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Release by a failing post, by NdkFlush                              */
/* ------------------------------------------------------------------ */

#define N_BEFORE 5

static int
failed_post_case(int how)
{
	static const char *const nm[] = {
		"too many SGEs", "unknown flag", "bad fast register",
		"initiator queue full",
	};
	struct ndk_pair_conn_opts o = {
		.rq_depth = 64, .sq_depth = how == 3 ? 8 : 64, .cq_depth = 256,
	};
	const uint32_t nb = how == 3 ? 8 : N_BEFORE;
	struct ndk_test_xstats a0, b0;
	struct ndk_pair_buf *src, *dst;
	struct ndk_pair_conn *c;
	struct ndk_pair *p;
	struct ndk_sge sg[8];
	ndk_status_t st;
	int rc = dconn(&p, &c, &o);

	if (rc != 0)
		return rc;
	src = ndk_pair_buf_alloc(p, c->pd[0], 8 * DEFER_MSG, 0);
	dst = ndk_pair_buf_alloc(p, c->pd[1], 8 * DEFER_MSG,
				 NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
	TEST_ASSERT(src != NULL && dst != NULL, "buffers");
	ndk_pair_fill(src->data, 8 * DEFER_MSG, 0xF0 + how);
	ndk_pair_stats(p, 0, &a0);
	ndk_pair_stats(p, 1, &b0);
	for (uint32_t i = 0; i < nb; i++) {
		sg[0] = ndk_pair_sge(src, i * DEFER_MSG, DEFER_MSG);
		st = ndk_write(c->qp[0], (void *)(uintptr_t)(i + 1), sg, 1,
			       ndk_pair_raddr(dst, i * DEFER_MSG), dst->rtoken,
			       NDK_OP_FLAG_DEFER);
		TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "WRITE %u", i);
	}
	ndk_pair_sleep_ms(HOLD_MS);
	if (nothing_sent(p, &a0, &b0, "held chain") != 0)
		return -1;

	/* Posted with DEFER, refused inline: the chain must go anyway. */
	if (how == 0) {
		/* One more SGE than the QP's maximum (opts default: 4). */
		for (int i = 0; i < 5; i++)
			sg[i] = ndk_pair_sge(src, (size_t)i * 16, 16);
		st = ndk_write(c->qp[0], (void *)99, sg, 5,
			       ndk_pair_raddr(dst, 0), dst->rtoken,
			       NDK_OP_FLAG_DEFER);
	} else if (how == 1) {
		sg[0] = ndk_pair_sge(src, 0, 16);
		st = ndk_send(c->qp[0], (void *)99, sg, 1,
			      NDK_OP_FLAG_DEFER | 0x40000000u);
	} else if (how == 3) {
		/* The queue (depth 8) is full of the deferred chain. */
		sg[0] = ndk_pair_sge(src, 0, 16);
		st = ndk_write(c->qp[0], (void *)99, sg, 1,
			       ndk_pair_raddr(dst, 0), dst->rtoken,
			       NDK_OP_FLAG_DEFER);
	} else {
		struct tok_frmr *f;

		f = tok_frmr_new(c->pd[0], 2, false, 2, 0xF9);
		TEST_ASSERT(f != NULL, "FRMR");
		tok_frmr_map(f, 2, false, 0, 2 * NDK_PAGE_SIZE, 12345); /* va */
		st = tok_frmr_post(f, c->qp[0], (void *)99,
				   NDK_OP_FLAG_ALLOW_LOCAL_WRITE |
				   NDK_OP_FLAG_DEFER);
		tok_frmr_free(f);
	}
	printf("  %s, posted with DEFER: %s\n", nm[how], ndk_status_str(st));
	TEST_ASSERT(st != NDK_STATUS_SUCCESS, "%s accepted", nm[how]);
	if (expect_in_order(c->icq[0], nb, NDK_OP_WRITE, 1, -1,
			    "chain released by the failed post") != 0)
		return -1;
	TEST_ASSERT(ndk_pair_check(dst->data, nb * DEFER_MSG, 0xF0 + how) < 0,
		    "data of the released chain");
	ndk_pair_sleep_ms(50);
	if (expect_none(c->icq[0], "the failed post") != 0 ||
	    expect_chain_stats(c->qp[0], nb, nb, 1, nb, nb,
			       "after the failed post") != 0)
		return -1;
	TEST_ASSERT_EQ(tok_qp_state(c->qp[0]), NDK_QP_STATE_RTS,
		       "QP A after an inline failure");
	/* The QP goes on. */
	sg[0] = ndk_pair_sge(src, 7 * DEFER_MSG, DEFER_MSG);
	st = ndk_write(c->qp[0], (void *)50, sg, 1,
		       ndk_pair_raddr(dst, 7 * DEFER_MSG), dst->rtoken, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "WRITE after");
	if (expect_ok(c->icq[0], NDK_OP_WRITE, (void *)50, "WRITE after") != 0)
		return -1;
	ndk_pair_buf_free(src);
	ndk_pair_buf_free(dst);
	ndk_pair_conn_destroy(c);
	return 0;
}

static int
t_failed_post_releases(void)
{
	for (int how = 0; how < 4; how++) {
		int rc = failed_post_case(how);

		if (rc != 0)
			return rc;
	}
	return 0;
}

/*
 * A mixed chain whose middle request fails validation when posted (its
 * local token names no region): the failing post releases the requests
 * ahead of it (NDK's deferral rule), which complete in order; the failed
 * one never completes; the consumer's chain goes on after it, and the
 * requests posted next, the last without DEFER, complete in order too.
 */
static int
t_chain_middle_fails(void)
{
	static const enum ndk_operation_type want[] = {
		NDK_OP_WRITE, NDK_OP_SEND, NDK_OP_READ, NDK_OP_WRITE,
		NDK_OP_SEND,
	};
	const uint32_t D = NDK_OP_FLAG_DEFER;
	struct ndk_pair_buf *src, *sink, *dst, *rsrc, *rcv;
	struct ndk_test_xstats a0, b0;
	struct ndk_result_ex r[8];
	struct ndk_pair_conn *c;
	struct ndk_pair *p;
	struct ndk_sge s;
	ndk_status_t st;
	uint32_t n;
	char d[200];
	int rc = dconn(&p, &c, NULL);

	if (rc != 0)
		return rc;
	src = ndk_pair_buf_alloc(p, c->pd[0], 4096, 0);
	sink = ndk_pair_buf_alloc(p, c->pd[0], 4096, read_sink_flags(p));
	dst = ndk_pair_buf_alloc(p, c->pd[1], 4096,
				 NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
	rsrc = ndk_pair_buf_alloc(p, c->pd[1], 4096,
				  NDK_MR_FLAG_ALLOW_REMOTE_READ);
	rcv = ndk_pair_buf_alloc(p, c->pd[1], 2 * 4096,
				 NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	TEST_ASSERT(src && sink && dst && rsrc && rcv, "buffers");
	ndk_pair_fill(src->data, 4096, 0xA1);
	ndk_pair_fill(rsrc->data, 4096, 0xA2);
	for (int i = 0; i < 2; i++) {
		s = ndk_pair_sge(rcv, (size_t)i * 4096, 4096);
		TEST_ASSERT_EQ(ndk_receive(c->qp[1], (void *)(uintptr_t)
					   (0x300 + i), &s, 1),
			       NDK_STATUS_SUCCESS, "receive %d", i);
	}
	ndk_pair_stats(p, 0, &a0);
	ndk_pair_stats(p, 1, &b0);
	s = ndk_pair_sge(src, 0, 512);
	st = ndk_write(c->qp[0], (void *)1, &s, 1, ndk_pair_raddr(dst, 0),
		       dst->rtoken, D);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "WRITE 1");
	s = ndk_pair_sge(src, 512, 512);
	st = ndk_send(c->qp[0], (void *)2, &s, 1, D);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "SEND 2");
	s = ndk_pair_sge(sink, 0, 1024);
	st = ndk_read(c->qp[0], (void *)3, &s, 1, ndk_pair_raddr(rsrc, 0),
		      rsrc->rtoken, D);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "READ 3");
	ndk_pair_sleep_ms(HOLD_MS);
	if (nothing_sent(p, &a0, &b0, "held chain") != 0)
		return -1;

	/* The middle of the consumer's chain: a token naming nothing. */
	s = ndk_pair_sge(src, 1024, 512);
	s.token = 0;
	st = ndk_write(c->qp[0], (void *)99, &s, 1,
		       ndk_pair_raddr(dst, 1024), dst->rtoken, D);
	printf("  WRITE with a bad local token, DEFER: %s\n",
	       ndk_status_str(st));
	TEST_ASSERT_EQ(st, NDK_STATUS_ACCESS_VIOLATION, "bad WRITE");
	n = ndk_pair_wait(c->icq[0], r, 3, WAIT_S);
	TEST_ASSERT_EQ(n, 3, "completions of the part released");

	/* The chain goes on: more deferred, then its end. */
	s = ndk_pair_sge(src, 2048, 512);
	st = ndk_write(c->qp[0], (void *)4, &s, 1, ndk_pair_raddr(dst, 2048),
		       dst->rtoken, D);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "WRITE 4");
	s = ndk_pair_sge(src, 2560, 512);
	st = ndk_send(c->qp[0], (void *)5, &s, 1, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "SEND 5");
	TEST_ASSERT_EQ(ndk_pair_wait(c->icq[0], r + 3, 2, WAIT_S), 2,
		       "completions of the rest");
	for (uint32_t i = 0; i < RTE_DIM(want); i++) {
		ndk_pair_result_str(&r[i], d, sizeof(d));
		TEST_ASSERT(r[i].status == NDK_STATUS_SUCCESS &&
			    r[i].type == want[i] &&
			    r[i].request_context == (void *)(uintptr_t)(i + 1),
			    "completion %u: want %s: %s", i,
			    ndk_pair_op_str(want[i]), d);
	}
	ndk_pair_sleep_ms(20);
	if (expect_none(c->icq[0], "the failed post") != 0)
		return -1;
	TEST_ASSERT_EQ(ndk_pair_wait(c->rcq[1], r, 2, WAIT_S), 2, "receives");
	for (int i = 0; i < 2; i++)
		TEST_ASSERT(r[i].status == NDK_STATUS_SUCCESS &&
			    r[i].bytes_transferred == 512 &&
			    r[i].request_context ==
			    (void *)(uintptr_t)(0x300 + i),
			    "receive %d: %s", i,
			    ndk_pair_result_str(&r[i], d, sizeof(d)));
	TEST_ASSERT(memcmp(dst->data, src->data, 512) == 0 &&
		    memcmp(dst->data + 2048, src->data + 2048, 512) == 0,
		    "WRITE data");
	TEST_ASSERT(all_zero(dst->data + 1024, 512),
		    "the refused WRITE's target was written");
	TEST_ASSERT(memcmp(rcv->data, src->data + 512, 512) == 0 &&
		    memcmp(rcv->data + 4096, src->data + 2560, 512) == 0,
		    "SEND data");
	TEST_ASSERT(memcmp(sink->data, rsrc->data, 1024) == 0, "READ data");
	TEST_ASSERT_EQ(tok_qp_state(c->qp[0]), NDK_QP_STATE_RTS,
		       "QP A after the refused post");
	/* Five accepted, four deferred; chains of 3 (released) and 2. */
	if (expect_chain_stats(c->qp[0], 5, 4, 2, 5, 3,
			       "chain with a refused middle") != 0)
		return -1;
	conn_free_all(c, (struct ndk_pair_buf *const[]){ src, sink, dst, rsrc,
							 rcv }, 5);
	return 0;
}

static int
t_flush_releases(void)
{
	struct ndk_test_xstats a0, b0, a1;
	struct ndk_result_ex r[N_CHAIN];
	struct ndk_pair_buf *src, *dst;
	struct ndk_pair_conn *c;
	struct ndk_pair *p;
	struct ndk_sge s;
	ndk_status_t st;
	uint32_t n;
	char d[200];
	int rc = dconn(&p, &c, NULL);

	if (rc != 0)
		return rc;
	src = ndk_pair_buf_alloc(p, c->pd[0], N_CHAIN * DEFER_MSG, 0);
	dst = ndk_pair_buf_alloc(p, c->pd[1], N_CHAIN * DEFER_MSG,
				 NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
	TEST_ASSERT(src != NULL && dst != NULL, "buffers");
	ndk_pair_stats(p, 0, &a0);
	ndk_pair_stats(p, 1, &b0);
	for (uint32_t i = 0; i < N_CHAIN; i++) {
		s = ndk_pair_sge(src, i * DEFER_MSG, DEFER_MSG);
		if (i % 2 == 0)
			st = ndk_write(c->qp[0], (void *)(uintptr_t)(i + 1), &s,
				       1, ndk_pair_raddr(dst, i * DEFER_MSG),
				       dst->rtoken, NDK_OP_FLAG_DEFER);
		else
			st = ndk_send(c->qp[0], (void *)(uintptr_t)(i + 1), &s,
				      1, NDK_OP_FLAG_DEFER);
		TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "post %u", i);
	}
	ndk_pair_sleep_ms(HOLD_MS);
	if (nothing_sent(p, &a0, &b0, "held chain") != 0)
		return -1;
	ndk_flush(c->qp[0]);
	n = ndk_pair_wait(c->icq[0], r, N_CHAIN, WAIT_S);
	TEST_ASSERT_EQ(n, N_CHAIN, "completions after NdkFlush");
	for (uint32_t i = 0; i < n; i++) {
		ndk_pair_result_str(&r[i], d, sizeof(d));
		TEST_ASSERT(r[i].status == NDK_STATUS_CANCELLED &&
			    r[i].request_context ==
			    (void *)(uintptr_t)(i + 1) &&
			    r[i].type == (i % 2 == 0 ? NDK_OP_WRITE :
					  NDK_OP_SEND),
			    "completion %u: %s", i, d);
	}
	ndk_pair_sleep_ms(20);
	ndk_pair_stats(p, 0, &a1);
	printf("  after NdkFlush: A tx_packets +%" PRIu64 ", QP A %s\n",
	       XS_DIFF(&a1, &a0, "tx_packets"),
	       ndk_qp_state_str(tok_qp_state(c->qp[0])));
	if (expect_none(c->icq[0], "after the flush") != 0)
		return -1;
	{
		struct ndk_qp_stats qs;

		qstats(c->qp[0], &qs);
		printf("  qp stats: posted %" PRIu64 " deferred %" PRIu64
		       " chains %" PRIu64 " chain_requests %" PRIu64 "\n",
		       qs.posted, qs.deferred, qs.chains, qs.chain_requests);
	}
	ndk_pair_buf_free(src);
	ndk_pair_buf_free(dst);
	ndk_pair_conn_destroy(c);
	return 0;
}

static const struct ndk_test_case cases[] = {
	{ "chain_writes", t_chain_writes },
	{ "chain_sends", t_chain_sends },
	{ "chain_reads", t_chain_reads },
	{ "chain_mixed", t_chain_mixed },
	{ "chain_local_error", t_chain_local_error },
	{ "failed_post_releases", t_failed_post_releases },
	{ "chain_middle_fails", t_chain_middle_fails },
	{ "flush_releases", t_flush_releases },
};

int
main(int argc, char **argv)
{
	return rc_main("test_func_defer", "defer", cases, RTE_DIM(cases),
		       argc, argv);
}
