/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: the connection manager when MADs are lost, and its
 * parameters, between two swroce adapters on a net_ring pair (A
 * connects, B listens). An RX callback drops chosen CM messages on
 * arrival: lost REP, RTU, DREQ and DREP, every exchange ends by
 * retransmission or timeout and the listener takes new connections after;
 * a connector closed while its DREQ is lost; ndk_adapter_set_cm_params()
 * ranges, and what the REQ announces and both QPs get.
 */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "ndk_roce.h"
#include "cm_common.h"

/* ------------------------------------------------------------------ */
/* Lost MADs: an RX callback drops chosen CM messages on arrival       */
/* ------------------------------------------------------------------ */

/* Per receiving side: the CM attribute to drop (0: none), how many more. */
static struct {
	uint16_t attr;
	int left;                     /* < 0: every one */
	int dropped;
} g_drop[2];
static uint16_t g_drop_port[2] = { UINT16_MAX, UINT16_MAX };

/* The last REQ each side received (t_cm_params), and whether one came. */
static struct ndk_roce_cm_msg g_req[2];
static int g_req_seen[2];

/* Is @p m a CM MAD @p attr? A REQ arriving at side @p s is kept. */
static bool
cm_attr_is(int s, struct rte_mbuf *m, uint16_t attr)
{
	uint8_t mad[NDK_ROCE_MAD_LEN];
	struct ndk_roce_cm_msg msg;
	struct ndk_roce_pkt p;

	if (ndk_roce_parse(m, &p, false) != NDK_ROCE_PARSE_OK ||
	    p.qpn != 1 || p.payload_len < NDK_ROCE_MAD_LEN)
		return false;
	ndk_roce_mbuf_copy_out(m, p.payload_off, mad, sizeof(mad));
	if (ndk_roce_cm_decode(mad, sizeof(mad), &msg) != 0)
		return false;
	if (msg.attr_id == NDK_ROCE_CM_REQ) {
		g_req[s] = msg;
		__atomic_store_n(&g_req_seen[s], 1, __ATOMIC_RELEASE);
	}
	return msg.attr_id == attr;
}

static uint16_t
drop_cm_cb(uint16_t port, uint16_t queue, struct rte_mbuf **pkts,
	   uint16_t n, uint16_t max, void *arg)
{
	int s = (int)(uintptr_t)arg;
	uint16_t attr = __atomic_load_n(&g_drop[s].attr, __ATOMIC_ACQUIRE);
	uint16_t k = 0;

	RTE_SET_USED(port);
	RTE_SET_USED(queue);
	RTE_SET_USED(max);
	for (uint16_t i = 0; i < n; i++) {
		if (cm_attr_is(s, pkts[i], attr) && attr != 0 &&
		    g_drop[s].left != 0) {
			if (g_drop[s].left > 0)
				g_drop[s].left--;
			__atomic_fetch_add(&g_drop[s].dropped, 1,
					   __ATOMIC_RELEASE);
			rte_pktmbuf_free(pkts[i]);
			continue;
		}
		pkts[k++] = pkts[i];
	}
	return k;
}

/* Drop the next @p count (< 0: all) CM @p attr MADs arriving at @p side. */
static int
drop_cm(struct ndk_pair *p, int side, uint16_t attr, int count)
{
	if (g_drop_port[side] != p->port[side]) {
		/* Once per port, on every queue (the CM is queue 0's). */
		for (uint16_t q = 0; q < p->nb_queues; q++)
			TEST_ASSERT(rte_eth_add_rx_callback(p->port[side], q,
					drop_cm_cb, (void *)(uintptr_t)side) !=
				    NULL, "RX callback");
		g_drop_port[side] = p->port[side];
	}
	__atomic_store_n(&g_drop[side].attr, 0, __ATOMIC_RELEASE);
	g_drop[side].left = count;
	__atomic_store_n(&g_drop[side].dropped, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&g_drop[side].attr, attr, __ATOMIC_RELEASE);
	return 0;
}

static int
dropped(int side)
{
	return __atomic_load_n(&g_drop[side].dropped, __ATOMIC_ACQUIRE);
}

/* ------------------------------------------------------------------ */
/* Cases                                                               */
/* ------------------------------------------------------------------ */

/*
 * Lost MADs, each exchange ends: a lost REP and a lost RTU are
 * retransmitted for; a DREQ lost once is sent again; a server whose
 * DREQ is never answered (every DREP lost) times out, tears the
 * connection down locally (QP flushed) and, closed, frees it; its
 * listener then takes a new connection.
 */
static int
t_lost_mads(void)
{
	struct ndk_pair *p = pair_get(0);
	struct ndk_pair_conn_opts o = { .no_connect = true };
	/* static: callbacks of a failed case may still fire */
	static struct incoming in;
	struct ndk_listener *l = listen_b(p, &in, PORT);
	struct ndk_connector *ca, *cb;
	static struct disc da, db;
	static struct req r1, r2;
	struct ndk_pair_conn *c;
	uint64_t rtx0 = ndk_test_xstat(p->ad[NDK_PAIR_A], "cm_retransmits");
	uint64_t rtxb0 = ndk_test_xstat(p->ad[NDK_PAIR_B], "cm_retransmits");
	uint64_t to0 = ndk_test_xstat(p->ad[NDK_PAIR_B], "cm_timeouts");
	const struct ndk_cm_params def = NDK_CM_PARAMS_DEFAULT;
	struct ndk_cm_params cp;

	in = (struct incoming){ 0 };
	da = (struct disc){ 0 };
	db = (struct disc){ 0 };
	r1 = (struct req){ 0 };
	TEST_ASSERT(l != NULL, "listen");

	/* The REP lost once: A's REQ again, B's REP again. */
	c = conn_new(p, &o);
	TEST_ASSERT(c != NULL, "QPs");
	TEST_ASSERT(drop_cm(p, NDK_PAIR_A, NDK_ROCE_CM_REP, 1) == 0, "drop");
	TEST_ASSERT(handshake(p, c, &in, &ca, &cb, &da, &db) == 0,
		    "handshake, REP lost");
	TEST_ASSERT_EQ(dropped(NDK_PAIR_A), 1, "REP dropped");
	/* The DREQ lost once: A sends it again, B answers. */
	TEST_ASSERT(drop_cm(p, NDK_PAIR_B, NDK_ROCE_CM_DREQ, 1) == 0, "drop");
	TEST_ASSERT_EQ(ndk_disconnect(ca, req_done, &r1), NDK_STATUS_PENDING,
		       "A disconnects");
	WAIT_REQ(&r1, NDK_STATUS_SUCCESS, "A's disconnect, DREQ lost once");
	TEST_ASSERT(wait_int(&db.fired, 1) == 0, "B's event");
	TEST_ASSERT_EQ(dropped(NDK_PAIR_B), 1, "DREQ dropped");
	/*
	 * The lost REP is made good by whichever 1 s timer fires first: A's
	 * REQ (B answers a duplicate REQ with its REP) or B's REP. The DREQ
	 * is A's alone.
	 */
	TEST_ASSERT(ndk_test_xstat(p->ad[NDK_PAIR_A], "cm_retransmits") >=
		    rtx0 + 1, "DREQ retransmitted");
	TEST_ASSERT(ndk_test_xstat(p->ad[NDK_PAIR_A], "cm_retransmits") +
		    ndk_test_xstat(p->ad[NDK_PAIR_B], "cm_retransmits") >=
		    rtx0 + rtxb0 + 2, "REQ or REP, and DREQ, retransmitted");
	ndk_close_connector(ca, NULL, NULL);
	ndk_close_connector(cb, NULL, NULL);
	ndk_pair_conn_destroy(c);

	/* The RTU lost once: B's REP again, A's RTU again. */
	da = (struct disc){ 0 };
	db = (struct disc){ 0 };
	r1 = (struct req){ 0 };
	c = conn_new(p, &o);
	TEST_ASSERT(c != NULL, "QPs");
	TEST_ASSERT(drop_cm(p, NDK_PAIR_B, NDK_ROCE_CM_RTU, 1) == 0, "drop");
	TEST_ASSERT(handshake(p, c, &in, &ca, &cb, &da, &db) == 0,
		    "handshake, RTU lost");
	TEST_ASSERT_EQ(dropped(NDK_PAIR_B), 1, "RTU dropped");
	/*
	 * The server disconnects; every DREP lost: it times out, after its
	 * max_cm_retries retransmissions (3 here: 1, 2 and 4 s apart, then
	 * the 4.8 s answer time of rdma_cm's response timeout 20).
	 */
	TEST_ASSERT(drop_cm(p, NDK_PAIR_B, NDK_ROCE_CM_DREP, -1) == 0, "drop");
	cp = def;
	cp.max_cm_retries = 3;
	TEST_ASSERT_EQ(ndk_adapter_set_cm_params(p->ad[NDK_PAIR_B], &cp),
		       NDK_STATUS_SUCCESS, "3 retries");
	TEST_ASSERT_EQ(ndk_disconnect(cb, req_done, &r1), NDK_STATUS_PENDING,
		       "B disconnects");
	WAIT_REQ(&r1, NDK_STATUS_IO_TIMEOUT, "B's disconnect, no DREP");
	TEST_ASSERT_EQ(ndk_adapter_set_cm_params(p->ad[NDK_PAIR_B], &def),
		       NDK_STATUS_SUCCESS, "defaults");
	TEST_ASSERT(dropped(NDK_PAIR_B) >= 2, "DREPs dropped: %d",
		    dropped(NDK_PAIR_B));
	TEST_ASSERT(ndk_test_xstat(p->ad[NDK_PAIR_B], "cm_retransmits") >=
		    rtxb0 + 2, "REP and DREQ retransmitted");
	TEST_ASSERT_EQ(ndk_test_xstat(p->ad[NDK_PAIR_B], "cm_timeouts"),
		       to0 + 1, "B's timeout");
	TEST_ASSERT_EQ(qp_state(c->qp[1]), NDK_QP_STATE_ERROR,
		       "B's QP flushed");
	TEST_ASSERT(wait_int(&da.fired, 1) == 0, "A's event");
	drop_cm(p, NDK_PAIR_B, 0, 0);
	ndk_close_connector(ca, NULL, NULL);
	ndk_close_connector(cb, NULL, NULL);
	ndk_pair_conn_destroy(c);

	/* The listener takes the next connection. */
	da = (struct disc){ 0 };
	db = (struct disc){ 0 };
	r1 = (struct req){ 0 };
	r2 = (struct req){ 0 };
	c = conn_new(p, &o);
	TEST_ASSERT(c != NULL && handshake(p, c, &in, &ca, &cb, &da, &db) == 0,
		    "handshake after");
	TEST_ASSERT_EQ(ndk_disconnect(ca, req_done, &r2), NDK_STATUS_PENDING,
		       "A disconnects");
	WAIT_REQ(&r2, NDK_STATUS_SUCCESS, "A's disconnect");
	ndk_close_connector(ca, NULL, NULL);
	ndk_close_connector(cb, NULL, NULL);
	ndk_close_listener(l, NULL, NULL);
	ndk_pair_conn_destroy(c);
	return 0;
}

/*
 * A client closes its connector while established (no Disconnect, as a
 * program that exits), and its one DREQ is lost: the closed connection's
 * DREQ is retransmitted all the same, so the server still learns that
 * the connection is over, frees it and takes the next one.
 */
static int
t_close_lost_dreq(void)
{
	struct ndk_pair *p = pair_get(0);
	struct ndk_pair_conn_opts o = { .no_connect = true };
	/* static: callbacks of a failed case may still fire */
	static struct incoming in;
	struct ndk_listener *l = listen_b(p, &in, PORT);
	struct ndk_connector *ca, *cb;
	static struct disc da, db;
	struct ndk_pair_conn *c;
	uint64_t rtx0 = ndk_test_xstat(p->ad[NDK_PAIR_A], "cm_retransmits");
	uint64_t drop0 = ndk_test_xstat(p->ad[NDK_PAIR_A], "cm_rx_dropped");

	in = (struct incoming){ 0 };
	da = (struct disc){ 0 };
	db = (struct disc){ 0 };
	TEST_ASSERT(l != NULL, "listen");
	c = conn_new(p, &o);
	TEST_ASSERT(c != NULL && handshake(p, c, &in, &ca, &cb, &da, &db) == 0,
		    "handshake");
	TEST_ASSERT(drop_cm(p, NDK_PAIR_B, NDK_ROCE_CM_DREQ, 1) == 0, "drop");
	ndk_close_connector(ca, NULL, NULL);
	TEST_ASSERT(wait_int(&db.fired, 1) == 0, "B never learnt");
	TEST_ASSERT_EQ(dropped(NDK_PAIR_B), 1, "DREQ dropped");
	TEST_ASSERT(ndk_test_xstat(p->ad[NDK_PAIR_A], "cm_retransmits") >
		    rtx0, "DREQ retransmitted");
	ndk_close_connector(cb, NULL, NULL);
	ndk_pair_conn_destroy(c);
	/* B's DREP ended A's retransmissions (taken, not dropped). */
	ndk_pair_sleep_ms(50);
	TEST_ASSERT_EQ(ndk_test_xstat(p->ad[NDK_PAIR_A], "cm_rx_dropped"),
		       drop0, "DREP not taken");

	da = (struct disc){ 0 };
	db = (struct disc){ 0 };
	c = conn_new(p, &o);
	TEST_ASSERT(c != NULL && handshake(p, c, &in, &ca, &cb, &da, &db) == 0,
		    "handshake after");
	ndk_close_connector(ca, NULL, NULL);
	TEST_ASSERT(wait_int(&db.fired, 1) == 0, "B's event");
	ndk_close_connector(cb, NULL, NULL);
	ndk_close_listener(l, NULL, NULL);
	ndk_pair_conn_destroy(c);
	return 0;
}

/*
 * The CM's parameters (ndk_adapter_set_cm_params()): rdma_cm's defaults,
 * ranges checked, and what is set is what the REQ announces and what both
 * sides' QPs get (the passive one at most its own retry count).
 */
static int
t_cm_params(void)
{
	struct ndk_pair *p = pair_get(0);
	struct ndk_adapter *a = p->ad[NDK_PAIR_A];
	struct ndk_pair_conn_opts o = { .no_connect = true };
	const struct ndk_cm_params def = NDK_CM_PARAMS_DEFAULT;
	const struct ndk_cm_params mine = {
		.retry_count = 3, .rnr_retry_count = 5, .qp_retry_count = 4,
		.local_ack_timeout = 14, .cm_response_timeout = 18,
		.max_cm_retries = 9, .path_mtu = 1024, .listen_backlog = 7,
	};
	struct ndk_cm_params got, bad;
	/* static: callbacks of a failed case may still fire */
	static struct incoming in;
	struct ndk_listener *l = listen_b(p, &in, PORT);
	struct ndk_connector *ca, *cb;
	static struct disc da, db;
	static struct req r1;
	struct ndk_qp_attr qa, qb;
	struct ndk_pair_conn *c;

	in = (struct incoming){ 0 };
	da = (struct disc){ 0 };
	db = (struct disc){ 0 };
	r1 = (struct req){ 0 };
	TEST_ASSERT(l != NULL, "listen");
	TEST_ASSERT_EQ(ndk_adapter_get_cm_params(a, &got), NDK_STATUS_SUCCESS,
		       "get");
	TEST_ASSERT(memcmp(&got, &def, sizeof(got)) == 0, "not rdma_cm's");
	bad = def;
	bad.retry_count = 8;
	TEST_ASSERT_EQ(ndk_adapter_set_cm_params(a, &bad),
		       NDK_STATUS_INVALID_PARAMETER, "retry count 8");
	bad = def;
	bad.max_cm_retries = 16;
	TEST_ASSERT_EQ(ndk_adapter_set_cm_params(a, &bad),
		       NDK_STATUS_INVALID_PARAMETER, "16 CM retries");
	bad = def;
	bad.listen_backlog = 0;
	TEST_ASSERT_EQ(ndk_adapter_set_cm_params(a, &bad),
		       NDK_STATUS_INVALID_PARAMETER, "backlog 0");
	bad = def;
	bad.path_mtu = 1500;
	TEST_ASSERT_EQ(ndk_adapter_set_cm_params(a, &bad),
		       NDK_STATUS_INVALID_PARAMETER, "path MTU 1500");
	TEST_ASSERT_EQ(ndk_adapter_set_cm_params(a, NULL),
		       NDK_STATUS_INVALID_PARAMETER, "NULL");
	TEST_ASSERT_EQ(ndk_adapter_set_cm_params(a, &mine), NDK_STATUS_SUCCESS,
		       "set");
	TEST_ASSERT_EQ(ndk_adapter_get_cm_params(a, &got), NDK_STATUS_SUCCESS,
		       "get");
	TEST_ASSERT(memcmp(&got, &mine, sizeof(got)) == 0, "not kept");

	TEST_ASSERT(drop_cm(p, NDK_PAIR_B, 0, 0) == 0, "watch");
	__atomic_store_n(&g_req_seen[NDK_PAIR_B], 0, __ATOMIC_RELEASE);
	c = conn_new(p, &o);
	TEST_ASSERT(c != NULL && handshake(p, c, &in, &ca, &cb, &da, &db) == 0,
		    "handshake");
	TEST_ASSERT_EQ(ndk_adapter_set_cm_params(a, &def), NDK_STATUS_SUCCESS,
		       "defaults again");
	TEST_ASSERT(__atomic_load_n(&g_req_seen[NDK_PAIR_B], __ATOMIC_ACQUIRE),
		    "no REQ seen");
	TEST_ASSERT_EQ(g_req[NDK_PAIR_B].retry_count, 3, "REQ retry count");
	TEST_ASSERT_EQ(g_req[NDK_PAIR_B].rnr_retry_count, 5, "REQ RNR retry");
	TEST_ASSERT_EQ(g_req[NDK_PAIR_B].path_mtu, 3, "REQ path MTU 1024");
	TEST_ASSERT_EQ(g_req[NDK_PAIR_B].primary.local_ack_timeout, 14,
		       "REQ ACK timeout");
	TEST_ASSERT_EQ(g_req[NDK_PAIR_B].remote_cm_response_timeout, 18,
		       "REQ response timeout");
	TEST_ASSERT_EQ(g_req[NDK_PAIR_B].max_cm_retries, 9, "REQ CM retries");
	TEST_ASSERT_EQ(ndk_qp_query(c->qp[0], &qa), NDK_STATUS_SUCCESS, "A");
	TEST_ASSERT_EQ(ndk_qp_query(c->qp[1], &qb), NDK_STATUS_SUCCESS, "B");
	TEST_ASSERT_EQ(qa.retry_cnt, 4, "A's retry count");
	TEST_ASSERT_EQ(qa.timeout, 14, "A's ACK timeout");
	TEST_ASSERT_EQ(qa.rnr_retry, 7, "A's RNR retry (B's REP)");
	TEST_ASSERT_EQ(qb.retry_cnt, 3, "B's retry count (the REQ's)");
	TEST_ASSERT_EQ(qb.timeout, 14, "B's ACK timeout (the REQ's)");
	TEST_ASSERT_EQ(qb.rnr_retry, 5, "B's RNR retry (the REQ's)");
	TEST_ASSERT(qa.path_mtu == 1024 && qb.path_mtu == 1024,
		    "path MTU: A %u, B %u (the REQ's)", qa.path_mtu,
		    qb.path_mtu);
	TEST_ASSERT_EQ(ndk_disconnect(ca, req_done, &r1), NDK_STATUS_PENDING,
		       "A disconnects");
	WAIT_REQ(&r1, NDK_STATUS_SUCCESS, "A's disconnect");
	ndk_close_connector(ca, NULL, NULL);
	ndk_close_connector(cb, NULL, NULL);
	ndk_close_listener(l, NULL, NULL);
	ndk_pair_conn_destroy(c);
	return 0;
}

/*
 * Selective repeat is negotiated in the CM's ECE vendor option
 * (doc/recovery.md): the REQ offers it when A has it on, the REP accepts
 * it when B has it on too, and only then do both QPs get it; with either
 * side off both QPs keep go-back-N. Data moves either way.
 */
static int
t_selective_repeat(void)
{
	static const struct { uint8_t a, b; } cfg[] = {
		{ 1, 1 }, { 1, 0 }, { 0, 1 },
	};
	struct ndk_pair *p = pair_get(0);
	struct ndk_pair_conn_opts o = { .no_connect = true };
	const struct ndk_cm_params def = NDK_CM_PARAMS_DEFAULT;
	/* static: callbacks of a failed case may still fire */
	static struct incoming in;
	struct ndk_listener *l = listen_b(p, &in, PORT);
	static struct disc da, db;
	static struct req r1;

	in = (struct incoming){ 0 };
	TEST_ASSERT(l != NULL, "listen");
	TEST_ASSERT(drop_cm(p, NDK_PAIR_B, 0, 0) == 0, "watch");
	for (unsigned int i = 0; i < RTE_DIM(cfg); i++) {
		struct ndk_cm_params ca_p = def, cb_p = def;
		uint8_t want = cfg[i].a && cfg[i].b;
		struct ndk_connector *ca, *cb;
		struct ndk_qp_attr qa, qb;
		struct ndk_pair_conn *c;

		da = (struct disc){ 0 };
		db = (struct disc){ 0 };
		r1 = (struct req){ 0 };
		ca_p.selective_repeat = cfg[i].a;
		cb_p.selective_repeat = cfg[i].b;
		TEST_ASSERT_EQ(ndk_adapter_set_cm_params(p->ad[NDK_PAIR_A],
							 &ca_p),
			       NDK_STATUS_SUCCESS, "A's params");
		TEST_ASSERT_EQ(ndk_adapter_set_cm_params(p->ad[NDK_PAIR_B],
							 &cb_p),
			       NDK_STATUS_SUCCESS, "B's params");
		__atomic_store_n(&g_req_seen[NDK_PAIR_B], 0, __ATOMIC_RELEASE);
		c = conn_new(p, &o);
		TEST_ASSERT(c != NULL &&
			    handshake(p, c, &in, &ca, &cb, &da, &db) == 0,
			    "handshake %u", i);
		TEST_ASSERT(__atomic_load_n(&g_req_seen[NDK_PAIR_B],
					    __ATOMIC_ACQUIRE), "no REQ seen");
		TEST_ASSERT_EQ(g_req[NDK_PAIR_B].vendor_id,
			       cfg[i].a ? NDK_ROCE_ECE_VENDOR : 0u,
			       "REQ vendor ID (A %u B %u)", cfg[i].a, cfg[i].b);
		TEST_ASSERT_EQ(g_req[NDK_PAIR_B].attr_mod,
			       cfg[i].a ? NDK_ROCE_ECE_SR_OFFER : 0u,
			       "REQ options (A %u B %u)", cfg[i].a, cfg[i].b);
		TEST_ASSERT_EQ(ndk_qp_query(c->qp[0], &qa), NDK_STATUS_SUCCESS,
			       "A");
		TEST_ASSERT_EQ(ndk_qp_query(c->qp[1], &qb), NDK_STATUS_SUCCESS,
			       "B");
		TEST_ASSERT(qa.selective_repeat == want &&
			    qb.selective_repeat == want,
			    "A %u B %u: QPs' selective repeat %u and %u, not %u",
			    cfg[i].a, cfg[i].b, qa.selective_repeat,
			    qb.selective_repeat, want);
		TEST_ASSERT(xfer(p, c, XOP_WRITE, 100000, i) == 0, "WRITE");
		TEST_ASSERT(xfer(p, c, XOP_READ, 100000, i) == 0, "READ");
		TEST_ASSERT_EQ(ndk_disconnect(ca, req_done, &r1),
			       NDK_STATUS_PENDING, "A disconnects");
		WAIT_REQ(&r1, NDK_STATUS_SUCCESS, "A's disconnect");
		ndk_close_connector(ca, NULL, NULL);
		ndk_close_connector(cb, NULL, NULL);
		ndk_pair_conn_destroy(c);
	}
	TEST_ASSERT_EQ(ndk_adapter_set_cm_params(p->ad[NDK_PAIR_A], &def),
		       NDK_STATUS_SUCCESS, "A's defaults");
	TEST_ASSERT_EQ(ndk_adapter_set_cm_params(p->ad[NDK_PAIR_B], &def),
		       NDK_STATUS_SUCCESS, "B's defaults");
	ndk_close_listener(l, NULL, NULL);
	return 0;
}

static const struct ndk_test_case cases[] = {
	{ "lost_mads", t_lost_mads },
	{ "close_lost_dreq", t_close_lost_dreq },
	{ "cm_params", t_cm_params },
	{ "selective_repeat", t_selective_repeat },
};

int
main(int argc, char **argv)
{
	return rc_main("test_cm_loss", "cm_loss", cases, RTE_DIM(cases), argc,
		       argv);
}
