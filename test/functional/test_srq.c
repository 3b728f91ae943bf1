/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: shared receive queues. Side B's QPs take their receives
 * from one SRQ; side A sends. Cases: 1, 2 and 1,024 QPs sharing an SRQ
 * with every message's bytes and QP checked; RNR while the SRQ is empty,
 * then recovery; the threshold notification (once per arm, re-armed by
 * modify, at once when already below); SEND with Invalidate through the
 * SRQ; close ordering (pending while QPs use it, completed by the last
 * QP's close); the SRQ dying with its adapter; misuse.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "ndk_xstats.h"
#include "tok_common.h"

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

struct srq_cb {
	uint32_t calls;           /* STATUS_SUCCESS notifications (atomic) */
	uint32_t errors;          /* STATUS_INTERNAL_ERROR ones (atomic) */
	uint32_t other;           /* anything else (atomic) */
};

static void
srq_notify(void *ctx, ndk_status_t st)
{
	struct srq_cb *cb = ctx;
	uint32_t *n = st == NDK_STATUS_SUCCESS ? &cb->calls :
		st == NDK_STATUS_INTERNAL_ERROR ? &cb->errors : &cb->other;

	__atomic_fetch_add(n, 1, __ATOMIC_SEQ_CST);
}

static uint32_t
cb_get(uint32_t *n)
{
	return __atomic_load_n(n, __ATOMIC_SEQ_CST);
}

static void
close_cb(void *ctx)
{
	__atomic_fetch_add((uint32_t *)ctx, 1, __ATOMIC_SEQ_CST);
}

/* Bytes of message @p k on connection @p i (1 to 3000). */
static uint32_t
msg_len(uint32_t i, uint32_t k)
{
	return 1 + (i * 131 + k * 977) % 3000;
}

static uint32_t
msg_seed(uint32_t i, uint32_t k)
{
	return 0x5000 + i * 64 + k;
}

#define RBUF 4096                 /* bytes per SRQ receive */

/* Path MTU: messages of up to 3000 bytes take up to three packets. */
#define SRQ_MTU 1024

/*
 * Post receive @p slot of @p rb (RBUF bytes each, zeroed first) to
 * @p srq; request context slot + 1.
 */
static ndk_status_t
srq_post(struct ndk_srq *srq, struct ndk_pair_buf *rb, uint32_t slot)
{
	struct ndk_sge s = ndk_pair_sge(rb, (size_t)slot * RBUF, RBUF);

	memset(rb->data + (size_t)slot * RBUF, 0, RBUF);
	return ndk_srq_receive(srq, (void *)(uintptr_t)(slot + 1), &s, 1);
}

/* A PD on side B, an SRQ in it and @p nbuf receive buffers of RBUF. */
struct srq_fix {
	struct ndk_pd *pd;
	struct ndk_srq *srq;
	struct ndk_pair_buf *rb;
};

static int
fix_open(struct ndk_pair *p, struct srq_fix *f, uint32_t depth,
	 uint32_t threshold, struct srq_cb *cb, uint32_t nbuf)
{
	ndk_status_t st;

	TEST_ASSERT(p != NULL, "pair");
	TEST_ASSERT_EQ(ndk_create_pd(p->ad[1], &f->pd), NDK_STATUS_SUCCESS,
		       "PD");
	st = ndk_create_srq(f->pd, depth, 1, threshold,
			    cb != NULL ? srq_notify : NULL, cb, &f->srq);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "create SRQ: %s",
		       ndk_status_str(st));
	f->rb = ndk_pair_buf_alloc(p, f->pd, (size_t)nbuf * RBUF,
				   NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	TEST_ASSERT(f->rb != NULL, "receive buffers");
	return 0;
}

/* Close what fix_open() made; its QPs are closed: the SRQ closes inline. */
static int
fix_close(struct srq_fix *f)
{
	ndk_pair_buf_free(f->rb);
	TEST_ASSERT_EQ(ndk_close_srq(f->srq, NULL, NULL), NDK_STATUS_SUCCESS,
		       "close SRQ after its QPs");
	TEST_ASSERT_EQ(ndk_close_pd(f->pd, NULL, NULL), NDK_STATUS_SUCCESS,
		       "close PD");
	return 0;
}

/*
 * @p n connections whose B side uses @p srq (in @p pd); QP contexts are
 * &ctx[i] on both sides.
 */
static int
conns_on_srq(struct ndk_pair *p, struct ndk_pd *pd, struct ndk_srq *srq,
	     struct ndk_pair_conn **c, uint32_t *ctx, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		struct ndk_pair_conn_opts o = {
			.sq_depth = 8, .max_isge = 1, .rq_depth = 1,
			.max_rsge = 1, .shared_cq = true, .cq_depth = 32,
			.min_rnr_timer = 1, .rnr_retry = 7,
		};
		ndk_status_t st;

		ctx[i] = i;
		o.pd[1] = pd;
		o.srq[1] = srq;
		o.qp_ctx[0] = o.qp_ctx[1] = &ctx[i];
		c[i] = ndk_pair_conn_create(p, &o, &st);
		TEST_ASSERT(c[i] != NULL, "connection %u on the SRQ: %s", i,
			    ndk_status_str(st));
	}
	return 0;
}

/*
 * @p n connections on one SRQ of depth @p depth, @p per messages sent on
 * each by A; B's receives come from the SRQ, reposted as they complete.
 * Each receive completion must name its QP (context) and hold that QP's
 * next message, byte for byte.
 */
static int
shared_case(uint32_t n, uint32_t per, uint32_t depth)
{
	struct ndk_pair *p = pair_get(SRQ_MTU);
	struct ndk_pair_conn **c = calloc(n, sizeof(*c));
	uint32_t *ctx = calloc(n, sizeof(*ctx));
	uint32_t *got = calloc(n, sizeof(*got));
	uint32_t *sent = calloc(n, sizeof(*sent));
	uint32_t *sdn = calloc(n, sizeof(*sdn));
	uint32_t total = n * per, recvd = 0, sdone = 0, posted = 0;
	struct ndk_pair_buf **src = calloc(n, sizeof(*src));
	struct ndk_pair_buf *rb;
	struct ndk_srq *srq;
	struct srq_fix f;
	ndk_status_t st;
	uint64_t spins = 0;

	TEST_ASSERT(c != NULL && ctx != NULL && got != NULL &&
		    sent != NULL && sdn != NULL && src != NULL, "setup");
	if (fix_open(p, &f, depth, 0, NULL, depth) != 0)
		return -1;
	srq = f.srq;
	rb = f.rb;
	for (uint32_t s = 0; s < depth; s++) {
		TEST_ASSERT_EQ(srq_post(srq, rb, s), NDK_STATUS_SUCCESS,
			       "SRQ receive %u", s);
		posted++;
	}
	if (conns_on_srq(p, f.pd, srq, c, ctx, n) != 0)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		src[i] = ndk_pair_buf_alloc(p, c[i]->pd[0], (size_t)per * 3000,
					    0);
		TEST_ASSERT(src[i] != NULL, "send buffer %u", i);
	}
	while (recvd < total || sdone < total) {
		struct ndk_result_ex r[16];
		bool moved = false;

		/* A: keep up to 4 SENDs outstanding per connection. */
		for (uint32_t i = 0; i < n; i++) {
			while (sent[i] < per && sent[i] - got[i] < 4 &&
			       sent[i] - sdn[i] < 8) {
				uint32_t k = sent[i];
				uint8_t *d = src[i]->data + (size_t)k * 3000;
				struct ndk_sge s = ndk_pair_sge(src[i],
					(size_t)k * 3000, msg_len(i, k));

				ndk_pair_fill(d, msg_len(i, k), msg_seed(i, k));
				st = ndk_send(c[i]->qp[0], (void *)(uintptr_t)k,
					      &s, 1, 0);
				TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS,
					       "send %u/%u: %s", i, k,
					       ndk_status_str(st));
				sent[i]++;
				moved = true;
			}
			uint32_t m = ndk_get_cq_results_ex(c[i]->icq[0], r, 16);

			for (uint32_t j = 0; j < m; j++) {
				TEST_ASSERT(r[j].status == NDK_STATUS_SUCCESS &&
					    r[j].type == NDK_OP_SEND,
					    "send completion %u: %s", i,
					    ndk_status_str(r[j].status));
				sdone++;
				sdn[i]++;
				moved = true;
			}
		}
		/* B: each QP's receive CQ; check, repost. */
		for (uint32_t i = 0; i < n; i++) {
			uint32_t m = ndk_get_cq_results_ex(c[i]->rcq[1], r, 16);

			for (uint32_t j = 0; j < m; j++) {
				uint32_t slot = (uint32_t)(uintptr_t)
					r[j].request_context - 1;
				uint32_t q = *(uint32_t *)r[j].qp_context;
				uint32_t k = got[i];

				TEST_ASSERT(r[j].status == NDK_STATUS_SUCCESS &&
					    r[j].type == NDK_OP_RECEIVE &&
					    slot < depth,
					    "receive on QP %u: %s slot %u", i,
					    ndk_status_str(r[j].status), slot);
				TEST_ASSERT_EQ(q, i, "receive on QP %u names "
					       "QP %u", i, q);
				TEST_ASSERT(k < per, "QP %u: extra receive", i);
				TEST_ASSERT_EQ(r[j].bytes_transferred,
					       msg_len(i, k), "QP %u msg %u "
					       "length", i, k);
				TEST_ASSERT(ndk_pair_check(rb->data +
					(size_t)slot * RBUF, msg_len(i, k),
					msg_seed(i, k)) < 0 &&
					all_zero(rb->data + (size_t)slot *
						 RBUF + msg_len(i, k),
						 RBUF - msg_len(i, k)),
					"QP %u msg %u: data in slot %u", i, k,
					slot);
				got[i]++;
				recvd++;
				moved = true;
				if (posted < total) {
					TEST_ASSERT_EQ(srq_post(srq, rb, slot),
						       NDK_STATUS_SUCCESS,
						       "repost slot %u", slot);
					posted++;
				}
			}
		}
		if (!moved && ++spins % 100000 == 0) {
			TEST_ASSERT(spins < 100000ull * 600, "stuck: %u of %u "
				    "received, %u of %u sends done", recvd,
				    total, sdone, total);
			ndk_pair_sleep_ms(1);
		}
	}
	printf("  %u QPs on one SRQ (depth %u): %u messages checked\n", n,
	       depth, recvd);
	for (uint32_t i = 0; i < n; i++) {
		ndk_pair_buf_free(src[i]);
		ndk_pair_conn_destroy(c[i]);
	}
	if (fix_close(&f) != 0)
		return -1;
	free(c);
	free(ctx);
	free(got);
	free(sent);
	free(sdn);
	free(src);
	return 0;
}

static int
t_one_qp(void)
{
	return shared_case(1, 64, 16);
}

static int
t_two_qps(void)
{
	return shared_case(2, 64, 16);
}

static int
t_1024_qps(void)
{
	return shared_case(1024, 3, 256);
}

/* ------------------------------------------------------------------ */
/* RNR                                                                 */
/* ------------------------------------------------------------------ */

/* A SEND meets an empty SRQ: RNR NAK, the sender waits; a receive posted
 * to the SRQ lets it through, on the right QP. */
static int
t_rnr(void)
{
	struct ndk_pair *p = pair_get(SRQ_MTU);
	struct ndk_test_xstats a0, b0, a1, b1;
	struct ndk_pair_conn *c[2];
	struct ndk_pair_buf *src;
	uint32_t ctx[2];
	struct ndk_result_ex r;
	struct srq_fix f;
	struct ndk_sge s;

	if (fix_open(p, &f, 4, 0, NULL, 4) != 0 ||
	    conns_on_srq(p, f.pd, f.srq, c, ctx, 2) != 0)
		return -1;
	src = ndk_pair_buf_alloc(p, c[1]->pd[0], 1000, 0);
	TEST_ASSERT(src != NULL, "buffers");
	ndk_pair_fill(src->data, 1000, 77);
	ndk_pair_stats(p, 0, &a0);
	ndk_pair_stats(p, 1, &b0);
	s = ndk_pair_sge(src, 0, 1000);
	TEST_ASSERT_EQ(ndk_send(c[1]->qp[0], (void *)1, &s, 1, 0),
		       NDK_STATUS_SUCCESS, "send");
	ndk_pair_sleep_ms(300);
	if (expect_none(c[1]->icq[0], "send with the SRQ empty") != 0 ||
	    expect_none(c[1]->rcq[1], "receive side") != 0)
		return -1;
	TEST_ASSERT_EQ(srq_post(f.srq, f.rb, 2), NDK_STATUS_SUCCESS, "receive");
	if (expect_ok(c[1]->icq[0], NDK_OP_SEND, (void *)1, "RNR send") != 0)
		return -1;
	TEST_ASSERT_EQ(ndk_pair_wait(c[1]->rcq[1], &r, 1, WAIT_S), 1,
		       "receive completion");
	TEST_ASSERT(r.status == NDK_STATUS_SUCCESS &&
		    r.request_context == (void *)3 &&
		    r.qp_context == &ctx[1] && r.bytes_transferred == 1000,
		    "receive: %s", ndk_status_str(r.status));
	TEST_ASSERT(ndk_pair_check(f.rb->data + 2 * RBUF, 1000, 77) < 0,
		    "data");
	if (expect_none(c[0]->rcq[1], "the other QP") != 0)
		return -1;
	ndk_pair_stats(p, 0, &a1);
	ndk_pair_stats(p, 1, &b1);
	printf("  B nak_rnr_sent +%" PRIu64 ", A nak_rnr_rcvd +%" PRIu64 "\n",
	       XS_DIFF(&b1, &b0, "nak_rnr_sent"),
	       XS_DIFF(&a1, &a0, "nak_rnr_rcvd"));
	TEST_ASSERT(XS_DIFF(&b1, &b0, "nak_rnr_sent") > 0 &&
		    XS_DIFF(&a1, &a0, "nak_rnr_rcvd") > 0, "no RNR NAK");
	for (int i = 0; i < 2; i++)
		ndk_pair_conn_destroy(c[i]);
	ndk_pair_buf_free(src);
	return fix_close(&f);
}

/* ------------------------------------------------------------------ */
/* Threshold notification                                              */
/* ------------------------------------------------------------------ */

/* One SEND of 100 bytes on @p c, received from the SRQ. */
static int
one_send(struct ndk_pair_conn *c, struct ndk_pair_buf *src, const char *what)
{
	struct ndk_sge s = ndk_pair_sge(src, 0, 100);
	struct ndk_result_ex r;

	TEST_ASSERT_EQ(ndk_send(c->qp[0], (void *)9, &s, 1, 0),
		       NDK_STATUS_SUCCESS, "%s: send", what);
	if (expect_ok(c->icq[0], NDK_OP_SEND, (void *)9, what) != 0)
		return -1;
	TEST_ASSERT_EQ(ndk_pair_wait(c->rcq[1], &r, 1, WAIT_S), 1,
		       "%s: receive", what);
	TEST_ASSERT(r.status == NDK_STATUS_SUCCESS, "%s: receive %s", what,
		    ndk_status_str(r.status));
	return 0;
}

static int
t_threshold(void)
{
	struct ndk_pair *p = pair_get(SRQ_MTU);
	struct srq_cb cb = { 0 };
	struct ndk_pair_conn *c;
	struct ndk_pair_buf *src, *rb;
	struct ndk_srq *srq;
	struct srq_fix f;
	uint32_t ctx;

	/* Armed at creation at 3: fires when a take leaves fewer than 3. */
	if (fix_open(p, &f, 8, 3, &cb, 8) != 0)
		return -1;
	srq = f.srq;
	rb = f.rb;
	for (uint32_t i = 0; i < 5; i++)
		TEST_ASSERT_EQ(srq_post(srq, rb, i), NDK_STATUS_SUCCESS, "post");
	if (conns_on_srq(p, f.pd, srq, &c, &ctx, 1) != 0)
		return -1;
	src = ndk_pair_buf_alloc(p, c->pd[0], 100, 0);
	TEST_ASSERT(src != NULL, "buffers");
	if (one_send(c, src, "5 -> 4") != 0 || one_send(c, src, "4 -> 3") != 0)
		return -1;
	TEST_ASSERT_EQ(cb_get(&cb.calls), 0, "fired at 3 posted (not below)");
	if (one_send(c, src, "3 -> 2") != 0)
		return -1;
	TEST_ASSERT_EQ(cb_get(&cb.calls), 1, "not fired below the threshold");
	if (one_send(c, src, "2 -> 1") != 0)
		return -1;
	TEST_ASSERT_EQ(cb_get(&cb.calls), 1, "fired twice for one arm");
	/* Re-armed below the level: fires at once, from the modify. */
	TEST_ASSERT_EQ(ndk_modify_srq(srq, 0, 3), NDK_STATUS_SUCCESS, "modify");
	TEST_ASSERT_EQ(cb_get(&cb.calls), 2, "re-arm below did not fire");
	/* Threshold 0 keeps the (disarmed) state: nothing more. */
	TEST_ASSERT_EQ(ndk_modify_srq(srq, 0, 0), NDK_STATUS_SUCCESS, "modify");
	TEST_ASSERT_EQ(cb_get(&cb.calls), 2, "threshold 0 armed it");
	/* Armed at 1 with 1 posted: the next take fires it. */
	TEST_ASSERT_EQ(ndk_modify_srq(srq, 0, 1), NDK_STATUS_SUCCESS, "modify");
	TEST_ASSERT_EQ(cb_get(&cb.calls), 2, "fired at 1 posted, level 1");
	if (one_send(c, src, "1 -> 0") != 0)
		return -1;
	TEST_ASSERT_EQ(cb_get(&cb.calls), 3, "re-armed notification missing");
	/* Depth: shrink to 2, then posting a third is refused. */
	TEST_ASSERT_EQ(ndk_modify_srq(srq, 2, 0), NDK_STATUS_SUCCESS, "depth");
	TEST_ASSERT_EQ(srq_post(srq, rb, 0), NDK_STATUS_SUCCESS, "post");
	TEST_ASSERT_EQ(srq_post(srq, rb, 1), NDK_STATUS_SUCCESS, "post");
	TEST_ASSERT_EQ(srq_post(srq, rb, 2), NDK_STATUS_NO_MORE_ENTRIES,
		       "post beyond the modified depth");
	TEST_ASSERT_EQ(ndk_modify_srq(srq, 1, 0), NDK_STATUS_INVALID_PARAMETER,
		       "depth below the receives held");
	TEST_ASSERT_EQ(ndk_modify_srq(srq, 9, 0), NDK_STATUS_INVALID_PARAMETER,
		       "depth above the capacity");
	TEST_ASSERT_EQ(ndk_modify_srq(srq, 8, 0), NDK_STATUS_SUCCESS,
		       "depth back to 8");
	TEST_ASSERT_EQ(cb.errors + cb.other, 0, "other notifications");
	ndk_pair_conn_destroy(c);
	ndk_pair_buf_free(src);
	return fix_close(&f);   /* receives left in the SRQ */
}

/* ------------------------------------------------------------------ */
/* SEND with Invalidate through the SRQ                                */
/* ------------------------------------------------------------------ */

static int
t_send_inv(void)
{
	struct tok_ctx t;
	struct tok_frmr *f;
	struct ndk_pair_buf *src, *rb;
	struct ndk_result_ex r;
	struct ndk_srq *srq;
	struct ndk_sge s, s2;
	ndk_status_t st;
	int rc = tok_open(&t, SRQ_MTU, NULL);

	if (rc != 0)
		return rc;
	TEST_ASSERT_EQ(ndk_create_srq(t.pd[1], 4, 2, 0, NULL, NULL, &srq),
		       NDK_STATUS_SUCCESS, "SRQ");
	t.opts.srq[1] = srq;
	if (tok_reconnect(&t) != 0)
		return -1;
	f = tok_frmr_new(t.pd[1], 4, true, 8, 0xC00);
	TEST_ASSERT(f != NULL, "FRMR");
	tok_frmr_map(f, 2, true, 10, 2 * NDK_PAGE_SIZE - 10, VA1(10));
	if (tok_frmr_register(f, t.c, 1, RW_FLAGS, "fast register") != 0)
		return -1;
	src = ndk_pair_buf_alloc(t.p, t.pd[0], 300, 0);
	rb = ndk_pair_buf_alloc(t.p, t.pd[1], 2 * RBUF,
				NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	TEST_ASSERT(src != NULL && rb != NULL, "buffers");
	ndk_pair_fill(src->data, 300, 0xD00);
	s2 = ndk_pair_sge(rb, RBUF, RBUF);
	{
		/* Two SGEs: 200 bytes into the first, the rest the second. */
		struct ndk_sge two[2] = {
			ndk_pair_sge(rb, 0, 200), ndk_pair_sge(rb, RBUF, 200),
		};

		memset(rb->data, 0, 2 * RBUF);
		TEST_ASSERT_EQ(ndk_srq_receive(srq, (void *)0x51, two, 2),
			       NDK_STATUS_SUCCESS, "SRQ receive");
	}
	s = ndk_pair_sge(src, 0, 300);
	st = ndk_send_and_invalidate(t.c->qp[0], (void *)0x52, &s, 1, 0,
				     f->rtoken);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "post: %s", ndk_status_str(st));
	if (expect_ok(t.c->icq[0], NDK_OP_SEND, (void *)0x52, "SEND inv") != 0)
		return -1;
	TEST_ASSERT_EQ(ndk_pair_wait(t.c->rcq[1], &r, 1, WAIT_S), 1,
		       "receive completion");
	TEST_ASSERT(r.status == NDK_STATUS_SUCCESS &&
		    r.type == NDK_OP_RECEIVE_AND_INVALIDATE &&
		    r.type_specific == f->rtoken &&
		    r.request_context == (void *)0x51 &&
		    r.qp_context == &qctx_b && r.bytes_transferred == 300,
		    "receive: %s type %#x", ndk_status_str(r.status), r.type);
	{
		uint8_t want[300];

		ndk_pair_fill(want, sizeof(want), 0xD00);
		TEST_ASSERT(memcmp(rb->data, want, 200) == 0 &&
			    memcmp(rb->data + RBUF, want + 200, 100) == 0 &&
			    all_zero(rb->data + 200, RBUF - 200) &&
			    all_zero(rb->data + RBUF + 100, RBUF - 100),
			    "data across the two SGEs");
	}
	/* The token is dead now. */
	if (tok_remote_fails(&t, 0, false, false, f->base_va, f->rtoken, 100,
			     "WRITE after remote invalidate") != 0)
		return -1;
	/*
	 * A token B cannot invalidate, on a fresh connection: the receive
	 * the SEND took from the SRQ completes STATUS_CONNECTION_ABORTED on
	 * that QP and its slot goes back (all 4 can be posted again).
	 */
	if (tok_reconnect(&t) != 0)
		return -1;
	TEST_ASSERT_EQ(ndk_srq_receive(srq, (void *)0x53, &s2, 1),
		       NDK_STATUS_SUCCESS, "SRQ receive");
	st = ndk_send_and_invalidate(t.c->qp[0], (void *)0x54, &s, 1, 0,
				     f->rtoken);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "post: %s", ndk_status_str(st));
	if (tok_expect_failure(t.c->icq[0], NDK_OP_SEND, (void *)0x54, &r,
			       "SEND inv of a dead token") != 0)
		return -1;
	TEST_ASSERT_EQ(ndk_pair_wait(t.c->rcq[1], &r, 1, WAIT_S), 1,
		       "receive completion of the failed SEND");
	TEST_ASSERT(r.status == NDK_STATUS_CONNECTION_ABORTED &&
		    r.request_context == (void *)0x53 &&
		    r.qp_context == &qctx_b &&
		    r.provider_error == NDK_PERR_REM_INV_REQ,
		    "receive: %s perr %u", ndk_status_str(r.status),
		    r.provider_error);
	if (tok_expect_both_error(t.c, "dead token") != 0)
		return -1;
	for (int i = 0; i < 4; i++)
		TEST_ASSERT_EQ(ndk_srq_receive(srq, NULL, &s2, 1),
			       NDK_STATUS_SUCCESS, "slot %d back in the SRQ", i);
	ndk_pair_buf_free(src);
	ndk_pair_buf_free(rb);
	ndk_pair_conn_destroy(t.c);
	t.c = NULL;
	tok_frmr_free(f);
	TEST_ASSERT_EQ(ndk_close_srq(srq, NULL, NULL), NDK_STATUS_SUCCESS,
		       "close SRQ");
	tok_close(&t);
	return 0;
}

/* ------------------------------------------------------------------ */
/* A QP of the SRQ flushed                                             */
/* ------------------------------------------------------------------ */

/*
 * NdkFlush on one QP of an SRQ completes none of the SRQ's receives (they
 * are not that QP's): the other QP then gets both messages.
 */
static int
t_flush(void)
{
	struct ndk_pair *p = pair_get(SRQ_MTU);
	struct ndk_pair_conn *c[2];
	struct ndk_pair_buf *src;
	struct ndk_result_ex r;
	uint32_t ctx[2];
	struct srq_fix f;

	if (fix_open(p, &f, 4, 0, NULL, 2) != 0 ||
	    conns_on_srq(p, f.pd, f.srq, c, ctx, 2) != 0)
		return -1;
	TEST_ASSERT(srq_post(f.srq, f.rb, 0) == NDK_STATUS_SUCCESS &&
		    srq_post(f.srq, f.rb, 1) == NDK_STATUS_SUCCESS, "receives");
	ndk_flush(c[0]->qp[1]);
	for (int i = 0; i < 5000 &&
	     tok_qp_state(c[0]->qp[1]) != NDK_QP_STATE_ERROR; i++)
		ndk_pair_sleep_ms(1);
	TEST_ASSERT_EQ(tok_qp_state(c[0]->qp[1]), NDK_QP_STATE_ERROR,
		       "flushed QP state");
	ndk_pair_sleep_ms(50);
	if (expect_none(c[0]->rcq[1], "the flushed QP") != 0)
		return -1;
	src = ndk_pair_buf_alloc(p, c[1]->pd[0], 2000, 0);
	TEST_ASSERT(src != NULL, "buffers");
	for (uint32_t k = 0; k < 2; k++) {
		struct ndk_sge s = ndk_pair_sge(src, (size_t)k * 1000, 1000);

		ndk_pair_fill(src->data + (size_t)k * 1000, 1000, 90 + k);
		TEST_ASSERT_EQ(ndk_send(c[1]->qp[0], NULL, &s, 1, 0),
			       NDK_STATUS_SUCCESS, "send %u", k);
		TEST_ASSERT_EQ(ndk_pair_wait(c[1]->rcq[1], &r, 1, WAIT_S), 1,
			       "receive %u on the other QP", k);
		TEST_ASSERT(r.status == NDK_STATUS_SUCCESS &&
			    r.qp_context == &ctx[1] &&
			    r.request_context == (void *)(uintptr_t)(k + 1) &&
			    ndk_pair_check(f.rb->data + (size_t)k * RBUF, 1000,
					   90 + k) < 0,
			    "receive %u: %s", k, ndk_status_str(r.status));
	}
	for (int i = 0; i < 2; i++)
		ndk_pair_conn_destroy(c[i]);
	ndk_pair_buf_free(src);
	return fix_close(&f);
}

/* ------------------------------------------------------------------ */
/* Close ordering, death                                               */
/* ------------------------------------------------------------------ */

static int
t_close_order(void)
{
	struct ndk_pair *p = pair_get(SRQ_MTU);
	struct ndk_pair_conn *c[2];
	uint32_t ctx[2], closed = 0;
	struct ndk_srq *srq;
	struct ndk_pd *pd;
	ndk_status_t st;

	TEST_ASSERT(p != NULL, "pair");
	TEST_ASSERT_EQ(ndk_create_pd(p->ad[1], &pd), NDK_STATUS_SUCCESS, "PD");
	TEST_ASSERT_EQ(ndk_create_srq(pd, 4, 1, 0, NULL, NULL, &srq),
		       NDK_STATUS_SUCCESS, "SRQ");
	if (conns_on_srq(p, pd, srq, c, ctx, 2) != 0)
		return -1;
	st = ndk_close_srq(srq, close_cb, &closed);
	TEST_ASSERT_EQ(st, NDK_STATUS_PENDING, "close while 2 QPs use it: %s",
		       ndk_status_str(st));
	ndk_pair_conn_destroy(c[0]);
	TEST_ASSERT_EQ(cb_get(&closed), 0, "completed with a QP left");
	ndk_pair_conn_destroy(c[1]);
	TEST_ASSERT_EQ(cb_get(&closed), 1, "close not completed by the last "
		       "QP's close");
	/* A fresh SRQ whose QPs are gone closes inline, no callback. */
	closed = 0;
	TEST_ASSERT_EQ(ndk_create_srq(pd, 4, 1, 0, NULL, NULL, &srq),
		       NDK_STATUS_SUCCESS, "SRQ");
	if (conns_on_srq(p, pd, srq, c, ctx, 1) != 0)
		return -1;
	ndk_pair_conn_destroy(c[0]);
	TEST_ASSERT_EQ(ndk_close_srq(srq, close_cb, &closed),
		       NDK_STATUS_SUCCESS, "close after its QPs");
	TEST_ASSERT_EQ(cb_get(&closed), 0, "callback after an inline close");
	TEST_ASSERT_EQ(ndk_close_pd(pd, NULL, NULL), NDK_STATUS_SUCCESS, "PD");
	return 0;
}

/* An SRQ left open when its adapter closes dies: INTERNAL_ERROR, once. */
static int
t_dies(void)
{
	struct ndk_pair_config cfg = { .no_pollers = true };
	struct srq_cb cb = { 0 };
	struct ndk_pair *p2 = ndk_pair_create(&cfg);
	struct ndk_srq *srq;
	struct ndk_pd *pd;

	TEST_ASSERT(p2 != NULL, "second pair");
	TEST_ASSERT_EQ(ndk_create_pd(p2->ad[1], &pd), NDK_STATUS_SUCCESS,
		       "PD");
	TEST_ASSERT_EQ(ndk_create_srq(pd, 4, 1, 2, srq_notify, &cb, &srq),
		       NDK_STATUS_SUCCESS, "SRQ");
	ndk_pair_destroy(p2);
	printf("  adapter closed under the SRQ: %u error, %u other "
	       "notifications\n", cb_get(&cb.errors),
	       cb_get(&cb.calls) + cb_get(&cb.other));
	TEST_ASSERT(cb_get(&cb.errors) == 1 && cb_get(&cb.calls) == 0 &&
		    cb_get(&cb.other) == 0, "STATUS_INTERNAL_ERROR once");
	return 0;
}

/* ------------------------------------------------------------------ */
/* Misuse                                                              */
/* ------------------------------------------------------------------ */

static int
t_misuse(void)
{
	struct ndk_pair *p = pair_get(SRQ_MTU);
	const struct ndk_adapter_info *info;
	struct ndk_pair_conn *c;
	struct ndk_pair_buf *rb, *other;
	struct ndk_sge s[20];
	struct ndk_srq *srq;
	struct ndk_pd *pd, *pd2;
	struct ndk_qp *qp;
	uint32_t ctx;

	TEST_ASSERT(p != NULL, "pair");
	info = &p->info[1];
	printf("  max_srq_depth %u, max_receive_request_sge %u\n",
	       info->max_srq_depth, info->max_receive_request_sge);
	TEST_ASSERT(info->max_srq_depth != 0, "max_srq_depth is 0");
	TEST_ASSERT_EQ(ndk_create_pd(p->ad[1], &pd), NDK_STATUS_SUCCESS, "PD");
	TEST_ASSERT_EQ(ndk_create_pd(p->ad[1], &pd2), NDK_STATUS_SUCCESS, "PD");
	TEST_ASSERT_EQ(ndk_create_srq(NULL, 4, 1, 0, NULL, NULL, &srq),
		       NDK_STATUS_INVALID_PARAMETER, "NULL PD");
	TEST_ASSERT_EQ(ndk_create_srq(pd, 4, 1, 0, NULL, NULL, NULL),
		       NDK_STATUS_INVALID_PARAMETER, "NULL out");
	TEST_ASSERT_EQ(ndk_create_srq(pd, 0, 1, 0, NULL, NULL, &srq),
		       NDK_STATUS_INVALID_PARAMETER, "zero depth");
	TEST_ASSERT_EQ(ndk_create_srq(pd, info->max_srq_depth + 1, 1, 0, NULL,
				      NULL, &srq),
		       NDK_STATUS_INVALID_PARAMETER, "depth above the limit");
	TEST_ASSERT_EQ(ndk_create_srq(pd, 4, info->max_receive_request_sge + 1,
				      0, NULL, NULL, &srq),
		       NDK_STATUS_INVALID_PARAMETER, "too many SGEs");
	TEST_ASSERT_EQ(ndk_create_srq(pd, 4, 1, 5, NULL, NULL, &srq),
		       NDK_STATUS_INVALID_PARAMETER, "threshold above depth");
	TEST_ASSERT_EQ(ndk_modify_srq(NULL, 4, 0), NDK_STATUS_INVALID_HANDLE,
		       "modify NULL");
	TEST_ASSERT_EQ(ndk_close_srq(NULL, NULL, NULL),
		       NDK_STATUS_INVALID_HANDLE, "close NULL");
	TEST_ASSERT_EQ(ndk_create_srq(pd, 2, 2, 0, NULL, NULL, &srq),
		       NDK_STATUS_SUCCESS, "SRQ");
	TEST_ASSERT_EQ(ndk_modify_srq(srq, info->max_srq_depth + 1, 0),
		       NDK_STATUS_INVALID_PARAMETER, "modify above the limit");
	rb = ndk_pair_buf_alloc(p, pd, 3 * RBUF, NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	other = ndk_pair_buf_alloc(p, pd2, RBUF, NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	TEST_ASSERT(rb != NULL && other != NULL, "buffers");
	for (int i = 0; i < 3; i++)
		s[i] = ndk_pair_sge(rb, (size_t)i * RBUF, RBUF);
	TEST_ASSERT_EQ(ndk_srq_receive(srq, NULL, s, 3),
		       NDK_STATUS_DATA_OVERRUN, "3 SGEs on a 2-SGE SRQ");
	TEST_ASSERT_EQ(ndk_srq_receive(srq, NULL, NULL, 1),
		       NDK_STATUS_INVALID_PARAMETER, "NULL list");
	s[3] = ndk_pair_sge(other, 0, RBUF);
	TEST_ASSERT_EQ(ndk_srq_receive(srq, NULL, &s[3], 1),
		       NDK_STATUS_ACCESS_VIOLATION, "region of another PD");
	s[4] = s[0];
	s[4].token = ~s[4].token;
	TEST_ASSERT_EQ(ndk_srq_receive(srq, NULL, &s[4], 1),
		       NDK_STATUS_ACCESS_VIOLATION, "bad token");
	TEST_ASSERT_EQ(ndk_srq_receive(srq, NULL, &s[0], 1),
		       NDK_STATUS_SUCCESS, "receive 1");
	TEST_ASSERT_EQ(ndk_srq_receive(srq, NULL, &s[1], 1),
		       NDK_STATUS_SUCCESS, "receive 2");
	TEST_ASSERT_EQ(ndk_srq_receive(srq, NULL, &s[2], 1),
		       NDK_STATUS_NO_MORE_ENTRIES, "beyond the depth");
	/* QPs: another PD, NULL SRQ; and no receive queue of its own. */
	TEST_ASSERT_EQ(ndk_create_qp_with_srq(pd, NULL, NULL, srq, NULL, 4, 1,
					      0, &qp),
		       NDK_STATUS_INVALID_PARAMETER, "NULL CQs");
	{
		struct ndk_cq *cq;

		TEST_ASSERT_EQ(ndk_create_cq(p->ad[1], 8, NULL, NULL, &cq),
			       NDK_STATUS_SUCCESS, "CQ");
		TEST_ASSERT_EQ(ndk_create_qp_with_srq(pd2, cq, cq, srq, NULL,
						      4, 1, 0, &qp),
			       NDK_STATUS_INVALID_PARAMETER, "another PD");
		TEST_ASSERT_EQ(ndk_create_qp_with_srq(pd, cq, cq, NULL, NULL,
						      4, 1, 0, &qp),
			       NDK_STATUS_INVALID_PARAMETER, "NULL SRQ");
		TEST_ASSERT_EQ(ndk_close_cq(cq, NULL, NULL),
			       NDK_STATUS_SUCCESS, "CQ");
	}
	if (conns_on_srq(p, pd, srq, &c, &ctx, 1) != 0)
		return -1;
	TEST_ASSERT_EQ(ndk_receive(c->qp[1], NULL, &s[2], 1),
		       NDK_STATUS_INVALID_DEVICE_REQUEST,
		       "ndk_receive on a QP of an SRQ");
	ndk_pair_conn_destroy(c);
	ndk_pair_buf_free(rb);
	ndk_pair_buf_free(other);
	TEST_ASSERT_EQ(ndk_close_srq(srq, NULL, NULL), NDK_STATUS_SUCCESS,
		       "close");
	TEST_ASSERT_EQ(ndk_close_pd(pd, NULL, NULL), NDK_STATUS_SUCCESS, "PD");
	TEST_ASSERT_EQ(ndk_close_pd(pd2, NULL, NULL), NDK_STATUS_SUCCESS,
		       "PD");
	return 0;
}

static const struct ndk_test_case cases[] = {
	{ "misuse", t_misuse },
	{ "one_qp", t_one_qp },
	{ "two_qps", t_two_qps },
	{ "rnr", t_rnr },
	{ "threshold", t_threshold },
	{ "send_inv", t_send_inv },
	{ "flush", t_flush },
	{ "close_order", t_close_order },
	{ "qps_1024", t_1024_qps },
	{ "dies", t_dies },
};

int
main(int argc, char **argv)
{
	return rc_main("test_func_srq", "srq", cases, RTE_DIM(cases), argc,
		       argv);
}
