/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: NdkSendAndInvalidate. The receiver's FRMR or window is
 * invalidated by the SEND (RECEIVE_AND_INVALIDATE completion with the
 * token, through both result getters); a token the receiver cannot
 * invalidate aborts the connection (the SEND completes
 * STATUS_REMOTE_RESOURCES, the receive STATUS_CONNECTION_ABORTED, both
 * NDK_PERR_REM_INV_REQ); NdkInvalidate of an FRMR the peer invalidated
 * first succeeds and the connection lives on.
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
	struct ndk_test_xstats s0, s1;
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
	       XS_DIFF(&s1, &s0, "inv_remote"));
	TEST_ASSERT_EQ(XS_DIFF(&s1, &s0, "inv_remote"), 1,
		       "inv_remote counter");
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
	/*
	 * The storage race: the peer's SEND with Invalidate got there first
	 * and B invalidates the FRMR too, on the same connection. That
	 * succeeds (the token is dead, as asked), and so does a second
	 * one; the connection lives on: fast-registered again, the FRMR
	 * takes A's WRITE (ndk.h, ndk_invalidate()).
	 */
	if (tok_reconnect(&t) != 0)
		return -1;
	tok_frmr_map(f, 2, false, 0, 2 * NDK_PAGE_SIZE, VA2(0));
	if (tok_frmr_register(f, t.c, 1, RW_FLAGS, "fast register (3)") != 0 ||
	    send_inv_ok(&t, f->rtoken, false,
			"SEND with Invalidate, then NdkInvalidate") != 0 ||
	    tok_invalidate(t.c, 1, &f->mr->header,
			   "NdkInvalidate of the FRMR the peer invalidated") != 0 ||
	    tok_invalidate(t.c, 1, &f->mr->header,
			   "NdkInvalidate of it once more") != 0 ||
	    tok_frmr_register(f, t.c, 1, RW_FLAGS,
			      "fast register on the same connection") != 0 ||
	    frmr_write_ok(&t, f, 0, 500, 0xC03,
			  "WRITE on the same connection") != 0)
		return -1;
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
	struct ndk_test_xstats s0, s1;
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
	/* The connection is aborted (ndk.h, ndk_send_and_invalidate()):
	 * the SEND fails as a request the peer NAKed, the receive says so. */
	if (tok_expect_failure(c->icq[0], NDK_OP_SEND, (void *)0xB1, &r,
			       what) != 0)
		return -1;
	ndk_pair_result_str(&r, d, sizeof(d));
	TEST_ASSERT(r.status == NDK_STATUS_REMOTE_RESOURCES &&
		    r.provider_error == NDK_PERR_REM_INV_REQ,
		    "%s: want the SEND STATUS_REMOTE_RESOURCES / "
		    "NDK_PERR_REM_INV_REQ: %s", what, d);
	TEST_ASSERT_EQ(ndk_pair_wait(c->rcq[1], &r, 1, WAIT_S), 1,
		       "%s: receive completion", what);
	ndk_pair_result_str(&r, d, sizeof(d));
	printf("    %-40s    receiver: %s\n", "", d);
	TEST_ASSERT(r.status == NDK_STATUS_CONNECTION_ABORTED &&
		    r.provider_error == NDK_PERR_REM_INV_REQ &&
		    r.request_context == (void *)0xB2,
		    "%s: want the receive STATUS_CONNECTION_ABORTED / "
		    "NDK_PERR_REM_INV_REQ: %s", what, d);
	if (tok_expect_both_error(c, what) != 0)
		return -1;
	ndk_pair_stats(t->p, 1, &s1);
	TEST_ASSERT(XS(&s1, "inv_rejected") > XS(&s0, "inv_rejected") &&
		    XS(&s1, "inv_remote") == XS(&s0, "inv_remote"),
		    "%s: inv_rejected +%" PRIu64 ", inv_remote +%" PRIu64, what,
		    XS_DIFF(&s1, &s0, "inv_rejected"),
		    XS_DIFF(&s1, &s0, "inv_remote"));
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

static const struct ndk_test_case cases[] = {
	{ "send_inv_frmr", t_send_inv_frmr },
	{ "send_inv_mw", t_send_inv_mw },
	{ "send_inv_basic_getter", t_send_inv_basic_getter },
	{ "send_inv_bad_token", t_send_inv_bad_token },
};

int
main(int argc, char **argv)
{
	return rc_main("test_func_send_inv", "send_inv", cases, RTE_DIM(cases),
		       argc, argv);
}
