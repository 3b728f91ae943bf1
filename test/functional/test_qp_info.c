/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: the introspection API (ndk_info.h) on the net_ring pair,
 * with the pollers running: QP lists follow creation and close, snapshots
 * follow the state machine, PSNs move with the messages, outstanding
 * receives are counted, and RNR NAKs show on both QPs of a connection.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include "rc_common.h"

/* Is @p qpn among the open QPs of @p ad? -1 on error. */
static int
listed(struct ndk_adapter *ad, uint32_t qpn)
{
	uint32_t qpns[256];
	int n = ndk_adapter_qp_list(ad, qpns, RTE_DIM(qpns));

	if (n < 0 || n > (int)RTE_DIM(qpns))
		return -1;
	for (int i = 0; i < n; i++)
		if (qpns[i] == qpn)
			return 1;
	return 0;
}

static int
t_list(void)
{
	struct ndk_pair *p = pair_get(0);
	struct ndk_pair_conn *c1, *c2;
	uint32_t qpns[4], one;
	int n0, n;

	TEST_ASSERT(p != NULL, "pair");
	n0 = ndk_adapter_qp_list(p->ad[0], NULL, 0);
	TEST_ASSERT(n0 >= 0, "count: %d", n0);
	c1 = conn_new(p, NULL);
	c2 = conn_new(p, NULL);
	TEST_ASSERT(c1 != NULL && c2 != NULL, "connections");
	n = ndk_adapter_qp_list(p->ad[0], NULL, 0);
	TEST_ASSERT_EQ(n, n0 + 2, "count after two QPs on A");
	TEST_ASSERT_EQ(listed(p->ad[0], c1->qpn[0]), 1, "first QP of A");
	TEST_ASSERT_EQ(listed(p->ad[0], c2->qpn[0]), 1, "second QP of A");
	TEST_ASSERT_EQ(listed(p->ad[1], c1->qpn[1]), 1, "first QP of B");
	/* A short array: the count is still the whole, one QPN stored. */
	one = 0;
	n = ndk_adapter_qp_list(p->ad[0], &one, 1);
	TEST_ASSERT_EQ(n, n0 + 2, "count with a short array");
	TEST_ASSERT(one > 1, "stored QPN %#x", one);
	ndk_pair_conn_destroy(c1);
	TEST_ASSERT_EQ(listed(p->ad[0], c2->qpn[0]), 1, "survivor listed");
	n = ndk_adapter_qp_list(p->ad[0], qpns, RTE_DIM(qpns));
	TEST_ASSERT_EQ(n, n0 + 1, "count after a close");
	ndk_pair_conn_destroy(c2);
	TEST_ASSERT_EQ(ndk_adapter_qp_list(p->ad[0], NULL, 0), n0,
		       "count after both closed");
	return 0;
}

static int
t_bad_args(void)
{
	struct ndk_pair *p = pair_get(0);
	struct ndk_pair_conn *c;
	struct ndk_qp_info info;
	uint32_t closed;
	ndk_status_t st;

	TEST_ASSERT(p != NULL, "pair");
	TEST_ASSERT_EQ(ndk_adapter_qp_list(NULL, NULL, 0), -EINVAL,
		       "NULL adapter");
	TEST_ASSERT_EQ(ndk_adapter_qp_list(p->ad[0], NULL, 4), -EINVAL,
		       "NULL array with room");
	st = ndk_qp_query_info(NULL, 2, &info);
	TEST_ASSERT_EQ(st, NDK_STATUS_INVALID_PARAMETER, "NULL adapter: %s",
		       ndk_status_str(st));
	c = conn_new(p, NULL);
	TEST_ASSERT(c != NULL, "connection");
	st = ndk_qp_query_info(p->ad[0], c->qpn[0], NULL);
	TEST_ASSERT_EQ(st, NDK_STATUS_INVALID_PARAMETER, "NULL info: %s",
		       ndk_status_str(st));
	/*
	 * A number that differs from an open QP's in its high bits only (a
	 * later generation of the same table slot); numbers out of range; a
	 * closed QP.
	 */
	st = ndk_qp_query_info(p->ad[0], c->qpn[0] ^ (1u << 23), &info);
	TEST_ASSERT_EQ(st, NDK_STATUS_INVALID_HANDLE, "QPN %#x: %s",
		       c->qpn[0] ^ (1u << 23), ndk_status_str(st));
	st = ndk_qp_query_info(p->ad[0], 1u << 24, &info);
	TEST_ASSERT_EQ(st, NDK_STATUS_INVALID_HANDLE, "QPN 2^24: %s",
		       ndk_status_str(st));
	st = ndk_qp_query_info(p->ad[0], 1, &info);
	TEST_ASSERT_EQ(st, NDK_STATUS_INVALID_HANDLE, "QPN 1 (GSI): %s",
		       ndk_status_str(st));
	closed = c->qpn[0];
	ndk_pair_conn_destroy(c);
	st = ndk_qp_query_info(p->ad[0], closed, &info);
	TEST_ASSERT_EQ(st, NDK_STATUS_INVALID_HANDLE, "closed QP: %s",
		       ndk_status_str(st));
	return 0;
}

static int
query(struct ndk_adapter *ad, uint32_t qpn, struct ndk_qp_info *info)
{
	ndk_status_t st = ndk_qp_query_info(ad, qpn, info);

	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "query QP %#x: %s", qpn,
		       ndk_status_str(st));
	TEST_ASSERT_EQ(info->qpn, qpn, "QPN reported");
	return 0;
}

static int
t_states_and_psns(void)
{
	struct ndk_pair *p = pair_get(0);
	struct ndk_pair_conn_opts o = {
		.no_connect = true, .fixed_psn = true,
		.sq_psn = { 0xFFFFF0, 0x1234 }, .rq_depth = 16,
	};
	const unsigned int k = 20;  /* one-packet SENDs, across PSN wrap */
	struct ndk_pair_conn *c;
	struct ndk_qp_info a, b;

	TEST_ASSERT(p != NULL, "pair");
	c = conn_new(p, &o);
	TEST_ASSERT(c != NULL, "connection");
	if (query(p->ad[0], c->qpn[0], &a) != 0)
		return -1;
	TEST_ASSERT_EQ(a.state, NDK_QP_STATE_INIT, "new QP");
	TEST_ASSERT_EQ(a.sq_depth, 64, "initiator depth");
	TEST_ASSERT_EQ(a.rq_depth, 16, "receive depth");
	TEST_ASSERT(a.sq_outstanding == 0 && a.rq_outstanding == 0,
		    "nothing posted: %u/%u", a.sq_outstanding,
		    a.rq_outstanding);

	TEST_ASSERT_EQ(ndk_pair_connect(c, 0), NDK_STATUS_SUCCESS, "A");
	TEST_ASSERT_EQ(ndk_pair_connect(c, 1), NDK_STATUS_SUCCESS, "B");
	if (query(p->ad[0], c->qpn[0], &a) != 0 ||
	    query(p->ad[1], c->qpn[1], &b) != 0)
		return -1;
	TEST_ASSERT_EQ(a.state, NDK_QP_STATE_RTS, "connected A");
	TEST_ASSERT_EQ(b.state, NDK_QP_STATE_RTS, "connected B");
	TEST_ASSERT_EQ(a.dest_qpn, c->qpn[1], "A's peer");
	TEST_ASSERT_EQ(a.dest_ip, p->ipv4[1], "A's peer address");
	TEST_ASSERT_EQ(a.path_mtu, c->path_mtu, "path MTU");
	TEST_ASSERT_EQ(a.send_psn, 0xFFFFF0, "A's first PSN");
	TEST_ASSERT_EQ(a.unacked_psn, 0xFFFFF0, "nothing unacked");
	TEST_ASSERT_EQ(b.expected_psn, 0xFFFFF0, "B expects A's first PSN");
	TEST_ASSERT_EQ(a.expected_psn, 0x1234, "A expects B's first PSN");

	for (unsigned int i = 0; i < k; i++)
		if (xfer(p, c, XOP_SEND, 64, i + 1) != 0)
			return -1;
	if (query(p->ad[0], c->qpn[0], &a) != 0 ||
	    query(p->ad[1], c->qpn[1], &b) != 0)
		return -1;
	/* Completed SENDs were acknowledged: nothing is left unacked. */
	TEST_ASSERT_EQ(a.send_psn, (0xFFFFF0 + k) & 0xFFFFFF, "A's next PSN");
	TEST_ASSERT_EQ(a.unacked_psn, a.send_psn, "A unacked");
	TEST_ASSERT_EQ(b.expected_psn, a.send_psn, "B's expected PSN");
	TEST_ASSERT_EQ(b.send_psn, 0x1234, "B sent no request");
	TEST_ASSERT(a.sq_outstanding == 0 && b.rq_outstanding == 0,
		    "outstanding %u/%u", a.sq_outstanding, b.rq_outstanding);
	TEST_ASSERT(a.events.naks_sent == 0 && a.events.naks_rcvd == 0 &&
		    b.events.naks_sent == 0 &&
		    a.events.retransmit_packets == 0 &&
		    a.events.rnr_naks_rcvd == 0 &&
		    b.events.rnr_naks_sent == 0,
		    "protocol events on a clean link");

	/* Receives posted on B and not consumed are outstanding there. */
	{
		struct ndk_pair_buf *buf = ndk_pair_buf_alloc(p, c->pd[1],
			4096, NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
		struct ndk_sge s;

		TEST_ASSERT(buf != NULL, "buffer");
		s = ndk_pair_sge(buf, 0, 4096);
		for (unsigned int i = 0; i < 5; i++)
			TEST_ASSERT_EQ(ndk_receive(c->qp[1], NULL, &s, 1),
				       NDK_STATUS_SUCCESS, "receive %u", i);
		if (query(p->ad[1], c->qpn[1], &b) != 0)
			return -1;
		TEST_ASSERT_EQ(b.rq_outstanding, 5, "posted receives");
	}
	/* ERROR flushes: the receives are gone. */
	TEST_ASSERT_EQ(ndk_qp_modify(c->qp[1], &(struct ndk_qp_attr){
		.state = NDK_QP_STATE_ERROR }, NDK_QP_ATTR_STATE),
		NDK_STATUS_SUCCESS, "to ERROR");
	if (query(p->ad[1], c->qpn[1], &b) != 0)
		return -1;
	TEST_ASSERT_EQ(b.state, NDK_QP_STATE_ERROR, "B after modify");
	TEST_ASSERT_EQ(b.rq_outstanding, 0, "flushed receives");
	ndk_pair_conn_destroy(c);
	return 0;
}

/* A SEND with no receive posted: B sends RNR NAKs, A receives them. */
static int
t_rnr_events(void)
{
	struct ndk_pair *p = pair_get(0);
	struct ndk_pair_conn_opts o = { .min_rnr_timer = 8, .rnr_retry = 7 };
	struct ndk_pair_buf *src, *dst;
	struct ndk_pair_conn *c;
	struct ndk_qp_info a, b;
	struct ndk_sge s;
	double t0;

	TEST_ASSERT(p != NULL, "pair");
	c = conn_new(p, &o);
	TEST_ASSERT(c != NULL, "connection");
	src = ndk_pair_buf_alloc(p, c->pd[0], 100, 0);
	dst = ndk_pair_buf_alloc(p, c->pd[1], 100,
				 NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	TEST_ASSERT(src != NULL && dst != NULL, "buffers");
	s = ndk_pair_sge(src, 0, 100);
	TEST_ASSERT_EQ(ndk_send(c->qp[0], (void *)1, &s, 1, 0),
		       NDK_STATUS_SUCCESS, "send");
	/* Wait (bounded) for the first RNR NAK to come back to A. */
	t0 = ndk_pair_now();
	do {
		if (query(p->ad[0], c->qpn[0], &a) != 0)
			return -1;
		if (a.events.rnr_naks_rcvd != 0)
			break;
		ndk_pair_sleep_ms(1);
	} while (ndk_pair_now() - t0 < WAIT_S);
	TEST_ASSERT(a.events.rnr_naks_rcvd != 0, "no RNR NAK reached A");
	TEST_ASSERT_EQ(a.sq_outstanding, 1, "the SEND waits");
	TEST_ASSERT_EQ(a.unacked_psn, c->sq_psn[0], "unacked is the SEND");
	if (query(p->ad[1], c->qpn[1], &b) != 0)
		return -1;
	TEST_ASSERT(b.events.rnr_naks_sent >= a.events.rnr_naks_rcvd,
		    "B sent %lu RNR NAKs, A got %lu",
		    (unsigned long)b.events.rnr_naks_sent,
		    (unsigned long)a.events.rnr_naks_rcvd);
	TEST_ASSERT(b.events.naks_sent == 0 && a.events.naks_rcvd == 0,
		    "RNR NAKs counted as other NAKs");

	s = ndk_pair_sge(dst, 0, 100);
	TEST_ASSERT_EQ(ndk_receive(c->qp[1], (void *)2, &s, 1),
		       NDK_STATUS_SUCCESS, "receive");
	if (expect_ok(c->icq[0], NDK_OP_SEND, (void *)1, "send") != 0 ||
	    expect_ok(c->rcq[1], NDK_OP_RECEIVE, (void *)2, "receive") != 0)
		return -1;
	if (query(p->ad[0], c->qpn[0], &a) != 0)
		return -1;
	TEST_ASSERT_EQ(a.sq_outstanding, 0, "SEND completed");
	TEST_ASSERT(a.events.retransmit_packets >= 1, "the SEND went again "
		    "after the RNR wait: %lu",
		    (unsigned long)a.events.retransmit_packets);
	ndk_pair_conn_destroy(c);
	return 0;
}

static const struct ndk_test_case cases[] = {
	{ "list", t_list },
	{ "bad_args", t_bad_args },
	{ "states_and_psns", t_states_and_psns },
	{ "rnr_events", t_rnr_events },
};

int
main(int argc, char **argv)
{
	return rc_main("test_func_qp_info", "qp_info", cases, RTE_DIM(cases),
		       argc, argv);
}
