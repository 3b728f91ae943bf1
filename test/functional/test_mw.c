/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: memory windows. Bind and use within the window's bounds
 * and rights, invalidation, re-bind and close, the checks of NdkBind, a
 * window over an FRMR and a window whose MR is deregistered.
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
/* Memory windows                                                      */
/* ------------------------------------------------------------------ */

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

static const struct ndk_test_case cases[] = {
	{ "mw_basic", t_mw_basic },
	{ "mw_invalidate", t_mw_invalidate },
	{ "mw_bind_checks", t_mw_bind_checks },
	{ "mw_over_frmr", t_mw_over_frmr },
	{ "mw_parent_deregistered", t_mw_parent_deregistered },
};

int
main(int argc, char **argv)
{
	return rc_main("test_func_mw", "mw", cases, RTE_DIM(cases),
		       argc, argv);
}
