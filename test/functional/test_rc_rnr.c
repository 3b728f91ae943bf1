/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: the requester's RNR wait (drivers/swroce/rc/swroce_rtx.c)
 * when a copy of the refused request is taken after all. Both adapters
 * are polled from this thread (no pollers) and the test moves the frames
 * between them:
 *
 * - A SENDs to B, which has no receive posted; A's retransmission timer
 *   fires before B answers, so two copies of the SEND are on the link;
 * - B gets the first and RNR-NAKs it: A starts its RNR wait (491 ms);
 * - B posts a receive and gets the second copy: it takes it and ACKs; A's
 *   SEND completes, its wait begun and nothing sent left to resend;
 * - the ACK ended the wait (nothing is left to resend): a WRITE A posts
 *   then goes at A's next poll and completes, its bytes in place. (A QP
 *   whose wait ends must go back to the engines, or what was posted
 *   meanwhile waits for ever.)
 *
 * Twice: B's QP with its own receive queue, and on a shared receive
 * queue. Nothing depends on speed: every wait is for a frame or a
 * completion, bounded by WAIT_S only to fail instead of hanging.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "ndk.h"
#include "ndk_pair_test.h"
#include "ndk_test.h"
#include "ndk_xstats.h"

#define WAIT_S 60.0
#define A NDK_PAIR_A
#define B NDK_PAIR_B
#define LEN 512
#define SEED_SEND 0x51
#define SEED_WRITE 0x57

static struct ndk_pair *g_pair;

/* Counter @p f of adapter @p side now. */
#define CTR(side, f) ndk_pair_xstat(g_pair, (side), #f)
/* Poll @p side until the ring it transmits into holds @p n frames. */
#define SENT(side, n) ndk_pair_poll_until_sent(g_pair, (side), (n), WAIT_S)

/* Poll @p side (and, if @p both, the other too) until @p cq has one. */
static bool
poll_until_result(int side, bool both, struct ndk_cq *cq,
		  struct ndk_result_ex *r)
{
	double end = ndk_pair_now() + WAIT_S;

	while (ndk_pair_now() < end) {
		if (ndk_get_cq_results_ex(cq, r, 1) == 1)
			return true;
		ndk_adapter_poll(g_pair->ad[side]);
		if (both)
			ndk_adapter_poll(g_pair->ad[1 - side]);
	}
	return false;
}

static int
rnr_then_ack(bool use_srq)
{
	struct ndk_pair_conn_opts o = {
		.rq_depth = 1, .sq_depth = 4, .max_rsge = 1, .max_isge = 1,
		.shared_cq = true,
		/* 8 us, strict: it fires while B has not answered yet. */
		.timeout = 1, .retry_cnt = 7,
		.rnr_retry = 7, .min_rnr_timer = 31,
	};
	struct rte_ring *ab = ndk_pair_rx_ring(g_pair, B);
	struct rte_ring *ba = ndk_pair_rx_ring(g_pair, A);
	struct ndk_pair_buf *src, *dst;
	struct ndk_pd *pd = NULL;
	struct ndk_srq *srq = NULL;
	struct ndk_pair_conn *c;
	struct rte_mbuf *m[8];
	struct ndk_result_ex r;
	struct ndk_sge s, d;
	uint64_t waits0, naks0;
	ndk_status_t st;
	unsigned int n;

	if (use_srq) {
		TEST_ASSERT_EQ(ndk_create_pd(g_pair->ad[B], &pd),
			       NDK_STATUS_SUCCESS, "PD");
		TEST_ASSERT_EQ(ndk_create_srq(pd, 4, 1, 0, NULL, NULL, &srq),
			       NDK_STATUS_SUCCESS, "SRQ");
		o.pd[B] = pd;
		o.srq[B] = srq;
	}
	c = ndk_pair_conn_create(g_pair, &o, &st);
	TEST_ASSERT(c != NULL, "connection: %s", ndk_status_str(st));
	src = ndk_pair_buf_alloc(g_pair, c->pd[A], 2 * LEN, 0);
	dst = ndk_pair_buf_alloc(g_pair, c->pd[B], 2 * LEN,
				 NDK_MR_FLAG_ALLOW_LOCAL_WRITE |
				 NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
	TEST_ASSERT(src != NULL && dst != NULL, "buffers");
	ndk_pair_fill(src->data, LEN, SEED_SEND);
	ndk_pair_fill(src->data + LEN, LEN, SEED_WRITE);
	waits0 = CTR(A, rnr_waits);
	naks0 = CTR(B, nak_rnr_sent);

	/* Two copies of the SEND: the first and a retransmission. */
	s = ndk_pair_sge(src, 0, LEN);
	TEST_ASSERT_EQ(ndk_send(c->qp[A], (void *)1, &s, 1, 0),
		       NDK_STATUS_SUCCESS, "post SEND");
	TEST_ASSERT(SENT(A, 2), "A sent %u copies of the SEND",
		    rte_ring_count(ab));
	n = rte_ring_dequeue_burst(ab, (void **)m, RTE_DIM(m), NULL);
	TEST_ASSERT(n >= 2, "%u frames", n);
	rte_pktmbuf_free_bulk(m + 2, n - 2);
	TEST_ASSERT_EQ(rte_ring_enqueue(ab, m[0]), 0, "first copy back");

	/* B has no receive: RNR NAK; A waits. */
	TEST_ASSERT(SENT(B, 1), "B did not answer");
	TEST_ASSERT_EQ(CTR(B, nak_rnr_sent), naks0 + 1, "B's RNR NAKs");
	ndk_adapter_poll(g_pair->ad[A]);
	TEST_ASSERT_EQ(CTR(A, rnr_waits), waits0 + 1, "A's RNR waits");
	TEST_ASSERT_EQ(rte_ring_count(ab), 0, "A sent during its RNR wait");

	/* B posts; the second copy is taken and ACKed: A's SEND completes. */
	d = ndk_pair_sge(dst, 0, LEN);
	st = use_srq ? ndk_srq_receive(srq, (void *)2, &d, 1) :
		ndk_receive(c->qp[B], (void *)2, &d, 1);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "post receive");
	TEST_ASSERT_EQ(rte_ring_enqueue(ab, m[1]), 0, "second copy");
	TEST_ASSERT(poll_until_result(B, false, c->rcq[B], &r), "receive");
	TEST_ASSERT(r.status == NDK_STATUS_SUCCESS &&
		    r.type == NDK_OP_RECEIVE && r.bytes_transferred == LEN,
		    "receive: %s, %u bytes", ndk_status_str(r.status),
		    r.bytes_transferred);
	TEST_ASSERT_EQ(ndk_pair_check(dst->data, LEN, SEED_SEND), -1,
		       "SEND bytes");
	TEST_ASSERT(rte_ring_count(ba) >= 1, "B's ACK");
	TEST_ASSERT(poll_until_result(A, false, c->icq[A], &r), "SEND");
	TEST_ASSERT(r.status == NDK_STATUS_SUCCESS && r.type == NDK_OP_SEND,
		    "SEND: %s", ndk_status_str(r.status));
	TEST_ASSERT_EQ(CTR(A, rnr_waits), waits0 + 1, "A's RNR waits");

	/* The next request goes, with the wait begun before it. */
	s = ndk_pair_sge(src, LEN, LEN);
	TEST_ASSERT_EQ(ndk_write(c->qp[A], (void *)3, &s, 1,
				 ndk_pair_raddr(dst, LEN), dst->rtoken, 0),
		       NDK_STATUS_SUCCESS, "post WRITE");
	/* Nothing left to resend: the ACK ended the wait, it goes now. */
	ndk_adapter_poll(g_pair->ad[A]);
	TEST_ASSERT_EQ(rte_ring_count(ab), 1, "the WRITE waits for the RNR "
		       "timer with nothing to resend");
	TEST_ASSERT(poll_until_result(A, true, c->icq[A], &r),
		    "the WRITE posted after the RNR wait began never "
		    "completed");
	TEST_ASSERT(r.status == NDK_STATUS_SUCCESS && r.type == NDK_OP_WRITE &&
		    r.request_context == (void *)3, "WRITE: %s",
		    ndk_status_str(r.status));
	TEST_ASSERT_EQ(ndk_pair_check(dst->data + LEN, LEN, SEED_WRITE), -1,
		       "WRITE bytes");
	TEST_ASSERT(ndk_pair_buf_guards_ok(dst), "guards");
	ndk_pair_buf_free(src);
	ndk_pair_buf_free(dst);
	ndk_pair_conn_destroy(c);
	if (srq != NULL)
		TEST_ASSERT_EQ(ndk_close_srq(srq, NULL, NULL),
			       NDK_STATUS_SUCCESS, "close SRQ");
	if (pd != NULL)
		TEST_ASSERT_EQ(ndk_close_pd(pd, NULL, NULL),
			       NDK_STATUS_SUCCESS, "close PD");
	return 0;
}

static int
t_rq(void)
{
	return rnr_then_ack(false);
}

static int
t_srq(void)
{
	return rnr_then_ack(true);
}

static const struct ndk_test_case cases[] = {
	{ "ack_in_rnr_wait_rq", t_rq },
	{ "ack_in_rnr_wait_srq", t_srq },
};

int
main(int argc, char **argv)
{
	const struct ndk_pair_config pc = { .no_pollers = true };

	return ndk_pair_test_main("test_func_rc_rnr", "rc_rnr", &pc, &g_pair, cases,
				  RTE_DIM(cases), argc, argv);
}
