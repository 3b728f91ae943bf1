/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: invalidation and access violations. NdkInvalidate of an
 * FRMR and of a plain MR, every remote access violation a token can
 * cause (the requester gets a remote access error, both QPs end in
 * ERROR, the target memory is untouched), a SEND into a receive whose
 * region was invalidated after it was posted, READ with local invalidate
 * and invalidation in the middle of a READ.
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
/* Invalidation                                                        */
/* ------------------------------------------------------------------ */

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

/*
 * A SEND into a receive whose region was invalidated after the receive
 * was posted: the receive fails with a local protection error, the SEND
 * fails, both QPs end in ERROR and the region's memory is untouched.
 */
static int
t_receive_invalidated(void)
{
	struct tok_ctx t;
	struct tok_frmr *f;
	struct ndk_pair_buf *src;
	struct ndk_result_ex r;
	struct ndk_sge s;
	ndk_status_t st;
	int rc = tok_open(&t, 0, NULL);

	if (rc != 0)
		return rc;
	f = tok_frmr_new(t.pd[1], 2, false, 2, 0x700);
	src = ndk_pair_buf_alloc(t.p, t.pd[0], 64, 0);
	TEST_ASSERT(f != NULL && src != NULL, "FRMR and buffer");
	tok_frmr_map(f, 1, false, 0, NDK_PAGE_SIZE, VA2(0));
	if (tok_frmr_register(f, t.c, 1, NDK_OP_FLAG_ALLOW_LOCAL_WRITE,
			      "fast register") != 0)
		return -1;
	s = fsge(f, 100, 64);
	st = ndk_receive(t.c->qp[1], (void *)(uintptr_t)0x71, &s, 1);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "receive: %s",
		       ndk_status_str(st));
	if (tok_invalidate(t.c, 1, &f->mr->header, "invalidate") != 0)
		return -1;
	ndk_pair_fill(src->data, 64, 0x72);
	s = ndk_pair_sge(src, 0, 64);
	st = ndk_send(t.c->qp[0], (void *)(uintptr_t)0x72, &s, 1, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "send: %s", ndk_status_str(st));
	if (tok_expect_failure(t.c->rcq[1], NDK_OP_RECEIVE,
			       (void *)(uintptr_t)0x71, &r,
			       "receive in an invalidated region") != 0)
		return -1;
	TEST_ASSERT(r.status == NDK_STATUS_ACCESS_VIOLATION &&
		    r.provider_error == NDK_PERR_LOC_PROT,
		    "receive: want STATUS_ACCESS_VIOLATION / NDK_PERR_LOC_PROT, "
		    "got %#x / %d", (unsigned int)r.status, r.provider_error);
	if (tok_expect_failure(t.c->icq[0], NDK_OP_SEND,
			       (void *)(uintptr_t)0x72, NULL,
			       "SEND into it") != 0 ||
	    tok_expect_both_error(t.c, "SEND into an invalidated region") != 0 ||
	    frmr_check(f, "SEND into an invalidated region") != 0)
		return -1;
	TEST_ASSERT(ndk_pair_buf_guards_ok(src), "guards");
	ndk_pair_buf_free(src);
	tok_frmr_free(f);
	tok_close(&t);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Access violations                                                   */
/* ------------------------------------------------------------------ */

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
	struct ndk_test_xstats b0, b1;
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
	} while (XS_DIFF(&b1, &b0, "read_resp_sent") < thr &&
		 ndk_pair_now() < end);
	TEST_ASSERT(XS_DIFF(&b1, &b0, "read_resp_sent") >= thr,
		    "the READs did not progress");
	if (tok_invalidate(t.c, 1, &f->mr->header, "invalidate mid-READ") != 0)
		return -1;
	ndk_pair_stats(t.p, 1, &b1);
	S = XS_DIFF(&b1, &b0, "read_resp_sent");

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
	{ "invalidate_frmr", t_invalidate_frmr },
	{ "invalidate_plain_mr", t_invalidate_plain_mr },
	{ "receive_invalidated", t_receive_invalidated },
	{ "access_violations", t_access_violations },
	{ "read_local_invalidate", t_read_local_invalidate },
	{ "mid_read_invalidate", t_mid_read_invalidate },
};

int
main(int argc, char **argv)
{
	return rc_main("test_func_access", "access", cases, RTE_DIM(cases),
		       argc, argv);
}
