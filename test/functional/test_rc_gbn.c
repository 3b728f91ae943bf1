/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: go-back-N against a go-back-N responder (selective repeat
 * off, as with rdma_rxe): a sequence NAK for the PSN the requester already
 * went back to is stale and must not send the window again
 * (drivers/swroce/rc/swroce_comp.c, swr_comp_nak_stale()). Both adapters
 * are polled from this thread (no pollers) and the test moves the frames
 * between them:
 *
 * - A WRITEs four packets; the first is lost: B NAKs PSN 0;
 * - A gets the NAK and goes back: the four packets again;
 * - A gets a copy of that NAK (one the responder sent before the resend
 *   reached it): nothing is sent (nak_seq_stale);
 * - of the resend, the second packet is lost: B NAKs PSN 1, a new loss:
 *   A goes back to it, three packets;
 * - the rest flows: the WRITE completes, its bytes in place.
 *
 * Adaptive retransmission is off on A and its ACK timeout about 4 s: the
 * stale window (one retransmission timeout) and the timer stay far away.
 * Nothing else depends on speed: every wait is for a frame or a
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
#define MTU 1024
#define NPKTS 4
#define LEN (NPKTS * MTU)
#define SEED 0x6b
/* Extra polls after a wait: what else a side would send shows up. */
#define SETTLE 64

static struct ndk_pair *g_pair;

/* Counter @p f of adapter @p side now. */
#define CTR(side, f) ndk_pair_xstat(g_pair, (side), #f)
/* Poll @p side until the ring it transmits into holds @p n frames. */
#define SENT(side, n) ndk_pair_poll_until_sent(g_pair, (side), (n), WAIT_S)

static void
poll_n(int side, unsigned int n)
{
	while (n-- > 0)
		ndk_adapter_poll(g_pair->ad[side]);
}

/* Poll both sides until @p cq has one. */
static bool
poll_until_result(struct ndk_cq *cq, struct ndk_result_ex *r)
{
	double end = ndk_pair_now() + WAIT_S;

	while (ndk_pair_now() < end) {
		if (ndk_get_cq_results_ex(cq, r, 1) == 1)
			return true;
		ndk_adapter_poll(g_pair->ad[A]);
		ndk_adapter_poll(g_pair->ad[B]);
	}
	return false;
}

static int
t_stale_nak(void)
{
	struct ndk_pair_conn_opts o = {
		.rq_depth = 1, .sq_depth = 4, .max_rsge = 1, .max_isge = 1,
		.shared_cq = true, .path_mtu = MTU,
		.timeout = 20, .retry_cnt = 7, .rnr_retry = 7,
	};
	struct rte_ring *ab = ndk_pair_rx_ring(g_pair, B);
	struct rte_ring *ba = ndk_pair_rx_ring(g_pair, A);
	uint64_t stale0, rtx0, nakr0, naks0;
	struct ndk_pair_buf *src, *dst;
	struct rte_mbuf *m[16], *nak, *dup;
	struct ndk_pair_conn *c;
	struct ndk_result_ex r;
	struct ndk_sge s;
	ndk_status_t st;
	unsigned int n;

	TEST_ASSERT_EQ(ndk_adapter_set_adaptive_rto(g_pair->ad[A], false,
			NDK_ADAPTIVE_RTO_FLOOR_US), NDK_STATUS_SUCCESS,
		       "adaptive off");
	c = ndk_pair_conn_create(g_pair, &o, &st);
	TEST_ASSERT(c != NULL, "connection: %s", ndk_status_str(st));
	TEST_ASSERT_EQ(c->path_mtu, MTU, "path MTU");
	src = ndk_pair_buf_alloc(g_pair, c->pd[A], LEN, 0);
	dst = ndk_pair_buf_alloc(g_pair, c->pd[B], LEN,
				 NDK_MR_FLAG_ALLOW_LOCAL_WRITE |
				 NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
	TEST_ASSERT(src != NULL && dst != NULL, "buffers");
	ndk_pair_fill(src->data, LEN, SEED);
	stale0 = CTR(A, nak_seq_stale);
	rtx0 = CTR(A, retransmit_packets);
	nakr0 = CTR(A, nak_seq_rcvd);
	naks0 = CTR(B, nak_seq_sent);

	s = ndk_pair_sge(src, 0, LEN);
	TEST_ASSERT_EQ(ndk_write(c->qp[A], (void *)1, &s, 1,
				 ndk_pair_raddr(dst, 0), dst->rtoken, 0),
		       NDK_STATUS_SUCCESS, "post WRITE");
	TEST_ASSERT(SENT(A, NPKTS), "A sent %u packets",
		    rte_ring_count(ab));
	poll_n(A, SETTLE);
	n = rte_ring_dequeue_burst(ab, (void **)m, RTE_DIM(m), NULL);
	TEST_ASSERT_EQ(n, NPKTS, "A's WRITE packets");

	/* The first is lost: B NAKs PSN 0 once and drops the rest. */
	rte_pktmbuf_free(m[0]);
	TEST_ASSERT_EQ(rte_ring_enqueue_bulk(ab, (void **)(m + 1), NPKTS - 1,
					     NULL), NPKTS - 1, "to B");
	TEST_ASSERT(SENT(B, 1), "B did not NAK");
	poll_n(B, SETTLE);
	TEST_ASSERT_EQ(CTR(B, nak_seq_sent), naks0 + 1, "B's sequence NAKs");
	TEST_ASSERT_EQ(rte_ring_count(ba), 1, "B's answers");
	TEST_ASSERT_EQ(rte_ring_dequeue(ba, (void **)&nak), 0, "NAK");
	dup = rte_pktmbuf_copy(nak, nak->pool, 0, UINT32_MAX);
	TEST_ASSERT(dup != NULL, "copy of the NAK");

	/* A goes back N: the four packets again. */
	TEST_ASSERT_EQ(rte_ring_enqueue(ba, nak), 0, "NAK to A");
	TEST_ASSERT(SENT(A, NPKTS), "A resent %u packets",
		    rte_ring_count(ab));
	poll_n(A, SETTLE);
	TEST_ASSERT_EQ(rte_ring_count(ab), NPKTS, "A's resend");
	TEST_ASSERT_EQ(CTR(A, retransmit_packets), rtx0 + NPKTS,
		       "packets sent again");

	/* The same NAK again, before the resend could be answered. */
	TEST_ASSERT_EQ(rte_ring_enqueue(ba, dup), 0, "copy to A");
	poll_n(A, SETTLE);
	TEST_ASSERT_EQ(CTR(A, nak_seq_rcvd), nakr0 + 2, "A's NAKs");
	TEST_ASSERT_EQ(CTR(A, nak_seq_stale), stale0 + 1, "stale NAKs");
	TEST_ASSERT_EQ(rte_ring_count(ab), NPKTS,
		       "a stale NAK sent the window again");
	TEST_ASSERT_EQ(CTR(A, retransmit_packets), rtx0 + NPKTS,
		       "packets sent again after the stale NAK");

	/* Of the resend the second is lost: B NAKs PSN 1, a new loss. */
	n = rte_ring_dequeue_burst(ab, (void **)m, RTE_DIM(m), NULL);
	TEST_ASSERT_EQ(n, NPKTS, "resent packets");
	rte_pktmbuf_free(m[1]);
	m[1] = m[0];
	TEST_ASSERT_EQ(rte_ring_enqueue_bulk(ab, (void **)(m + 1), NPKTS - 1,
					     NULL), NPKTS - 1, "to B");
	TEST_ASSERT(SENT(B, 1), "B did not answer");
	poll_n(B, SETTLE);
	TEST_ASSERT_EQ(CTR(B, nak_seq_sent), naks0 + 2, "B's sequence NAKs");
	TEST_ASSERT(SENT(A, NPKTS - 1), "A resent %u packets",
		    rte_ring_count(ab));
	poll_n(A, SETTLE);
	TEST_ASSERT_EQ(rte_ring_count(ab), NPKTS - 1, "A's second resend");
	TEST_ASSERT_EQ(CTR(A, nak_seq_stale), stale0 + 1,
		       "a NAK for a later PSN taken for stale");
	TEST_ASSERT_EQ(CTR(A, retransmit_packets), rtx0 + 2 * NPKTS - 1,
		       "packets sent again");

	/* The rest flows. */
	TEST_ASSERT(poll_until_result(c->icq[A], &r), "the WRITE never "
		    "completed");
	TEST_ASSERT(r.status == NDK_STATUS_SUCCESS && r.type == NDK_OP_WRITE &&
		    r.request_context == (void *)1, "WRITE: %s",
		    ndk_status_str(r.status));
	TEST_ASSERT_EQ(ndk_pair_check(dst->data, LEN, SEED), -1,
		       "WRITE bytes");
	TEST_ASSERT(ndk_pair_buf_guards_ok(dst), "guards");
	ndk_pair_buf_free(src);
	ndk_pair_buf_free(dst);
	ndk_pair_conn_destroy(c);
	TEST_ASSERT_EQ(ndk_adapter_set_adaptive_rto(g_pair->ad[A], true,
			NDK_ADAPTIVE_RTO_FLOOR_US), NDK_STATUS_SUCCESS,
		       "adaptive on");
	return 0;
}

static const struct ndk_test_case cases[] = {
	{ "stale_seq_nak", t_stale_nak },
};

int
main(int argc, char **argv)
{
	const struct ndk_pair_config pc = { .no_pollers = true };

	return ndk_pair_test_main("test_func_rc_gbn", "rc_gbn", &pc, &g_pair, cases,
				  RTE_DIM(cases), argc, argv);
}
