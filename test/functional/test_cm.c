/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: the connection manager (IB CM over QP1 with RDMA-CM
 * addressing) behind NDK connectors and listeners, between two swroce
 * adapters on a net_ring pair: A (10.0.0.1) connects, B (10.0.0.2)
 * listens. Connect/Accept/CompleteConnect with private data both ways,
 * data over the connected QPs, Disconnect from either side and crossing,
 * Reject, nobody listening, paused listeners, an unreachable host,
 * unanswered requests closed, API misuse, many connections at once, and
 * lost MADs (REP, RTU, DREQ, DREP): every exchange ends by retransmission
 * or timeout, and the listener takes new connections after.
 *
 * Callbacks run on the poller lcore: they record into structures the test
 * thread waits on with acquire loads.
 */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "ndk_roce.h"
#include "ndk_xstats.h"
#include "rc_common.h"

#define PORT 7174
#define MAX_INCOMING 64

/* A request completion. */
struct req {
	int done;
	ndk_status_t st;
};

static void
req_done(void *ctx, ndk_status_t st)
{
	struct req *r = ctx;

	r->st = st;
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
}

/* A disconnect event. */
struct disc {
	int fired;
	uint32_t reason;
};

static void
disc_event(void *ctx, uint32_t reason)
{
	struct disc *d = ctx;

	d->reason = reason;
	__atomic_fetch_add(&d->fired, 1, __ATOMIC_RELEASE);
}

/* A listener's connect events. */
struct incoming {
	int n;
	struct ndk_connector *c[MAX_INCOMING];
	bool close_at_once;   /* close each new connector in the callback */
};

static void
connect_event(void *ctx, struct ndk_connector *c)
{
	struct incoming *in = ctx;
	int i = __atomic_load_n(&in->n, __ATOMIC_RELAXED);

	if (in->close_at_once || i == MAX_INCOMING) {
		ndk_close_connector(c, NULL, NULL);
		if (in->close_at_once)
			__atomic_store_n(&in->n, i + 1, __ATOMIC_RELEASE);
		return;
	}
	in->c[i] = c;
	__atomic_store_n(&in->n, i + 1, __ATOMIC_RELEASE);
}

/* Wait until *@p flag >= @p want; @return 0 or -1 on timeout. */
static int
wait_int(const int *flag, int want)
{
	double t0 = ndk_pair_now();

	while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) < want) {
		if (ndk_pair_now() - t0 > WAIT_S)
			return -1;
		ndk_pair_sleep_ms(1);
	}
	return 0;
}

#define WAIT_REQ(r, want, what) do { \
	TEST_ASSERT(wait_int(&(r)->done, 1) == 0, "%s: no completion", what); \
	TEST_ASSERT_EQ((r)->st, want, "%s: %s", what, \
		       ndk_status_str((r)->st)); \
} while (0)

#define SA(s) ((const struct sockaddr *)&(s))

/* A listener of B on @p port. */
static struct ndk_listener *
listen_b(struct ndk_pair *p, struct incoming *in, uint16_t port)
{
	struct ndk_listener *l = NULL;
	struct sockaddr_in a = ndk_pair_sin(INADDR_ANY, port);

	if (ndk_create_listener(p->ad[NDK_PAIR_B], connect_event, in, &l) !=
	    NDK_STATUS_SUCCESS)
		return NULL;
	if (ndk_listen(l, SA(a), sizeof(a)) != NDK_STATUS_SUCCESS) {
		ndk_close_listener(l, NULL, NULL);
		return NULL;
	}
	return l;
}

/* Start A's connect to B:@p port with @p pdata (NUL-terminated). */
static ndk_status_t
connect_a(struct ndk_pair *p, struct ndk_connector *ca, struct ndk_qp *qp,
	  uint16_t port, const char *pdata, struct req *r)
{
	struct sockaddr_in src = ndk_pair_sin(INADDR_ANY, 0);
	struct sockaddr_in dst = ndk_pair_sin(p->ipv4[NDK_PAIR_B], port);

	return ndk_connect(ca, qp, SA(src), sizeof(src), SA(dst), sizeof(dst),
			   4, 4, pdata, pdata ? (uint32_t)strlen(pdata) + 1 : 0,
			   req_done, r);
}

/* One full handshake on @p c; @p in receives B's connector. */
static int
handshake(struct ndk_pair *p, struct ndk_pair_conn *c, struct incoming *in,
	  struct ndk_connector **ca, struct ndk_connector **cb,
	  struct disc *da, struct disc *db)
{
	/* static: callbacks of a failed case may still fire */
	static struct req rc, ra, rcc;
	int n0 = __atomic_load_n(&in->n, __ATOMIC_ACQUIRE);
	ndk_status_t st;

	rc = (struct req){ 0 };
	ra = (struct req){ 0 };
	rcc = (struct req){ 0 };

	TEST_ASSERT_EQ(ndk_create_connector(p->ad[NDK_PAIR_A], ca),
		       NDK_STATUS_SUCCESS, "connector");
	st = connect_a(p, *ca, c->qp[0], PORT, "hello", &rc);
	TEST_ASSERT_EQ(st, NDK_STATUS_PENDING, "connect: %s",
		       ndk_status_str(st));
	TEST_ASSERT(wait_int(&in->n, n0 + 1) == 0, "no connect event");
	*cb = in->c[n0];
	st = ndk_accept(*cb, c->qp[1], 4, 4, "welcome", 8, disc_event, db,
			req_done, &ra);
	TEST_ASSERT_EQ(st, NDK_STATUS_PENDING, "accept: %s",
		       ndk_status_str(st));
	WAIT_REQ(&rc, NDK_STATUS_SUCCESS, "connect");
	st = ndk_complete_connect(*ca, disc_event, da, req_done, &rcc);
	TEST_ASSERT_EQ(st, NDK_STATUS_PENDING, "complete: %s",
		       ndk_status_str(st));
	WAIT_REQ(&rcc, NDK_STATUS_SUCCESS, "complete connect");
	WAIT_REQ(&ra, NDK_STATUS_SUCCESS, "accept");
	return 0;
}

static int
qp_state(struct ndk_qp *qp)
{
	struct ndk_qp_attr a;

	if (ndk_qp_query(qp, &a) != NDK_STATUS_SUCCESS)
		return -1;
	return (int)a.state;
}

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

/* Connect, accept, complete; private data, addresses, data, disconnect. */
static int
t_connect_accept(void)
{
	struct ndk_pair *p = pair_get(0);
	struct ndk_pair_conn_opts o = { .no_connect = true };
	struct ndk_pair_conn *c;
	/* static: callbacks of a failed case may still fire */
	static struct incoming in;
	struct ndk_listener *l;
	struct ndk_connector *ca, *cb;
	static struct req rc, ra, rcc, rd, rd2;
	static struct disc da, db;
	uint8_t pd[256];
	uint32_t ird, ord, len;
	struct sockaddr_in sa;
	socklen_t salen;
	ndk_status_t st;

	in = (struct incoming){ 0 };
	rc = (struct req){ 0 };
	ra = (struct req){ 0 };
	rcc = (struct req){ 0 };
	rd = (struct req){ 0 };
	rd2 = (struct req){ 0 };
	da = (struct disc){ 0 };
	db = (struct disc){ 0 };

	TEST_ASSERT(p != NULL, "pair");
	c = conn_new(p, &o);
	TEST_ASSERT(c != NULL, "QPs");
	l = listen_b(p, &in, PORT);
	TEST_ASSERT(l != NULL, "listen");
	salen = sizeof(sa);
	TEST_ASSERT_EQ(ndk_listener_get_local_address(l, (struct sockaddr *)&sa,
						      &salen),
		       NDK_STATUS_SUCCESS, "listener address");
	TEST_ASSERT_EQ(ntohs(sa.sin_port), PORT, "listener port");

	TEST_ASSERT_EQ(ndk_create_connector(p->ad[NDK_PAIR_A], &ca),
		       NDK_STATUS_SUCCESS, "connector");
	st = connect_a(p, ca, c->qp[0], PORT, "hello from A", &rc);
	TEST_ASSERT_EQ(st, NDK_STATUS_PENDING, "connect: %s",
		       ndk_status_str(st));
	TEST_ASSERT(wait_int(&in.n, 1) == 0, "no connect event");
	cb = in.c[0];

	/* B reads the request: caller data, limits, addresses. */
	len = 0;
	TEST_ASSERT_EQ(ndk_get_connection_data(cb, NULL, NULL, NULL, &len),
		       NDK_STATUS_SUCCESS, "size query");
	TEST_ASSERT_EQ(len, 56u, "caller data field (REQ 92 - 36)");
	len = 4;
	TEST_ASSERT_EQ(ndk_get_connection_data(cb, &ird, &ord, pd, &len),
		       NDK_STATUS_BUFFER_TOO_SMALL, "small buffer");
	TEST_ASSERT(memcmp(pd, "hell", 4) == 0, "partial copy");
	len = sizeof(pd);
	TEST_ASSERT_EQ(ndk_get_connection_data(cb, &ird, &ord, pd, &len),
		       NDK_STATUS_SUCCESS, "connection data");
	TEST_ASSERT(strcmp((char *)pd, "hello from A") == 0, "caller data");
	TEST_ASSERT_EQ(ird, 4u, "inbound = A's outbound");
	TEST_ASSERT_EQ(ord, 4u, "outbound = A's inbound");
	salen = sizeof(sa);
	TEST_ASSERT_EQ(ndk_get_peer_address(cb, (struct sockaddr *)&sa, &salen),
		       NDK_STATUS_SUCCESS, "peer address");
	TEST_ASSERT_EQ(sa.sin_addr.s_addr, p->ipv4[NDK_PAIR_A], "peer ip");
	TEST_ASSERT(ntohs(sa.sin_port) >= 49152, "ephemeral source port %u",
		    ntohs(sa.sin_port));
	salen = 2;
	TEST_ASSERT_EQ(ndk_get_local_address(cb, (struct sockaddr *)&sa, &salen),
		       NDK_STATUS_BUFFER_TOO_SMALL, "small sockaddr");
	TEST_ASSERT_EQ(salen, sizeof(sa), "size needed");

	st = ndk_accept(cb, c->qp[1], 2, 3, "welcome to B", 13, disc_event,
			&db, req_done, &ra);
	TEST_ASSERT_EQ(st, NDK_STATUS_PENDING, "accept: %s",
		       ndk_status_str(st));
	WAIT_REQ(&rc, NDK_STATUS_SUCCESS, "connect");
	len = sizeof(pd);
	TEST_ASSERT_EQ(ndk_get_connection_data(ca, &ird, &ord, pd, &len),
		       NDK_STATUS_SUCCESS, "callee data");
	TEST_ASSERT_EQ(len, 196u, "REP private data field");
	TEST_ASSERT(strcmp((char *)pd, "welcome to B") == 0, "callee data");
	TEST_ASSERT_EQ(ird, 3u, "A inbound = B's outbound");
	TEST_ASSERT_EQ(ord, 2u, "A outbound = B's inbound");
	TEST_ASSERT_EQ(ra.done, 0, "accept waits for the RTU");
	TEST_ASSERT_EQ(qp_state(c->qp[1]), NDK_QP_STATE_RTR, "B in RTR");

	st = ndk_complete_connect(ca, disc_event, &da, req_done, &rcc);
	TEST_ASSERT_EQ(st, NDK_STATUS_PENDING, "complete");
	WAIT_REQ(&rcc, NDK_STATUS_SUCCESS, "complete connect");
	WAIT_REQ(&ra, NDK_STATUS_SUCCESS, "accept");
	TEST_ASSERT_EQ(qp_state(c->qp[0]), NDK_QP_STATE_RTS, "A in RTS");
	TEST_ASSERT_EQ(qp_state(c->qp[1]), NDK_QP_STATE_RTS, "B in RTS");

	/* The connected QPs carry data both ways. */
	TEST_ASSERT(xfer(p, c, XOP_SEND, 100000, 1) == 0, "SEND");
	TEST_ASSERT(xfer(p, c, XOP_WRITE, 70000, 2) == 0, "WRITE");
	TEST_ASSERT(xfer(p, c, XOP_READ, 50000, 3) == 0, "READ");

	/* A disconnects: B is told once, then its Disconnect completes. */
	TEST_ASSERT_EQ(ndk_disconnect(ca, req_done, &rd), NDK_STATUS_PENDING,
		       "disconnect");
	WAIT_REQ(&rd, NDK_STATUS_SUCCESS, "disconnect A");
	TEST_ASSERT(wait_int(&db.fired, 1) == 0, "B's disconnect event");
	TEST_ASSERT_EQ(db.reason, 0u, "graceful");
	TEST_ASSERT_EQ(da.fired, 0, "no event for the side that asked");
	TEST_ASSERT_EQ(qp_state(c->qp[0]), NDK_QP_STATE_ERROR, "A flushed");
	TEST_ASSERT_EQ(ndk_disconnect(cb, req_done, &rd2), NDK_STATUS_PENDING,
		       "disconnect B");
	WAIT_REQ(&rd2, NDK_STATUS_SUCCESS, "disconnect B");
	TEST_ASSERT_EQ(qp_state(c->qp[1]), NDK_QP_STATE_ERROR, "B flushed");
	TEST_ASSERT_EQ(ndk_disconnect(cb, req_done, &rd2),
		       NDK_STATUS_DEVICE_BUSY, "second disconnect");
	TEST_ASSERT_EQ(db.fired, 1, "one event");
	ndk_close_connector(ca, NULL, NULL);
	ndk_close_connector(cb, NULL, NULL);
	ndk_close_listener(l, NULL, NULL);
	ndk_pair_conn_destroy(c);
	return 0;
}

/* The passive side disconnects; then both sides at the same time. */
static int
t_disconnect_both_ways(void)
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

	in = (struct incoming){ 0 };
	da = (struct disc){ 0 };
	db = (struct disc){ 0 };
	r1 = (struct req){ 0 };
	r2 = (struct req){ 0 };

	TEST_ASSERT(l != NULL, "listen");
	c = conn_new(p, &o);
	TEST_ASSERT(c != NULL && handshake(p, c, &in, &ca, &cb, &da, &db) == 0,
		    "handshake 1");
	TEST_ASSERT_EQ(ndk_disconnect(cb, req_done, &r1), NDK_STATUS_PENDING,
		       "B disconnects");
	WAIT_REQ(&r1, NDK_STATUS_SUCCESS, "B's disconnect");
	TEST_ASSERT(wait_int(&da.fired, 1) == 0, "A's event");
	TEST_ASSERT_EQ(ndk_disconnect(ca, req_done, &r2), NDK_STATUS_PENDING,
		       "A disconnects");
	WAIT_REQ(&r2, NDK_STATUS_SUCCESS, "A's disconnect");
	ndk_close_connector(ca, NULL, NULL);
	ndk_close_connector(cb, NULL, NULL);
	ndk_pair_conn_destroy(c);

	/* Crossing DREQs: both complete, no events needed. */
	memset(&da, 0, sizeof(da));
	memset(&db, 0, sizeof(db));
	memset(&r1, 0, sizeof(r1));
	memset(&r2, 0, sizeof(r2));
	c = conn_new(p, &o);
	TEST_ASSERT(c != NULL && handshake(p, c, &in, &ca, &cb, &da, &db) == 0,
		    "handshake 2");
	TEST_ASSERT_EQ(ndk_disconnect(ca, req_done, &r1), NDK_STATUS_PENDING,
		       "A");
	TEST_ASSERT(ndk_disconnect(cb, req_done, &r2) == NDK_STATUS_PENDING,
		    "B");
	WAIT_REQ(&r1, NDK_STATUS_SUCCESS, "A's disconnect");
	WAIT_REQ(&r2, NDK_STATUS_SUCCESS, "B's disconnect");
	ndk_close_connector(ca, NULL, NULL);
	ndk_close_connector(cb, NULL, NULL);
	ndk_close_listener(l, NULL, NULL);
	ndk_pair_conn_destroy(c);
	return 0;
}

/* An accepted connection keeps its listener's port until it is closed. */
static int
t_endpoint(void)
{
	struct ndk_pair *p = pair_get(0);
	struct ndk_pair_conn_opts o = { .no_connect = true };
	/* static: callbacks of a failed case may still fire */
	static struct incoming in, in2;
	static struct disc da, db;
	static struct req r;
	struct ndk_listener *l = listen_b(p, &in, PORT), *l2 = NULL;
	struct sockaddr_in a = ndk_pair_sin(INADDR_ANY, PORT);
	struct ndk_connector *ca, *cb;
	struct ndk_pair_conn *c = conn_new(p, &o);

	TEST_ASSERT(l != NULL && c != NULL, "set-up");
	TEST_ASSERT(handshake(p, c, &in, &ca, &cb, &da, &db) == 0, "handshake");
	ndk_close_listener(l, NULL, NULL);
	TEST_ASSERT_EQ(ndk_create_listener(p->ad[NDK_PAIR_B], connect_event,
					   &in2, &l2), NDK_STATUS_SUCCESS,
		       "listener");
	TEST_ASSERT_EQ(ndk_listen(l2, SA(a), sizeof(a)),
		       NDK_STATUS_SHARING_VIOLATION,
		       "port held by the accepted connection");
	TEST_ASSERT_EQ(ndk_disconnect(ca, req_done, &r), NDK_STATUS_PENDING,
		       "disconnect");
	TEST_ASSERT(wait_int(&r.done, 1) == 0, "disconnect done");
	TEST_ASSERT_EQ(ndk_listen(l2, SA(a), sizeof(a)),
		       NDK_STATUS_SHARING_VIOLATION,
		       "disconnected but not closed");
	ndk_close_connector(cb, NULL, NULL);
	ndk_close_connector(ca, NULL, NULL);
	TEST_ASSERT_EQ(ndk_listen(l2, SA(a), sizeof(a)), NDK_STATUS_SUCCESS,
		       "port free once the connector is closed");
	ndk_close_listener(l2, NULL, NULL);
	ndk_pair_conn_destroy(c);
	return 0;
}

/* Reject with private data; nobody listening; paused; closed unanswered. */
static int
t_refusals(void)
{
	struct ndk_pair *p = pair_get(0);
	struct ndk_pair_conn_opts o = { .no_connect = true };
	struct ndk_pair_conn *c = conn_new(p, &o);
	/* static: callbacks of a failed case may still fire */
	static struct incoming in, drop;
	struct ndk_listener *l, *l2;
	struct ndk_connector *ca;
	static struct req r;
	uint8_t pd[200];
	uint32_t len = sizeof(pd);

	in = (struct incoming){ 0 };
	drop = (struct incoming){ .close_at_once = true };
	r = (struct req){ 0 };

	TEST_ASSERT(c != NULL, "QPs");
	l = listen_b(p, &in, PORT);
	TEST_ASSERT(l != NULL, "listen");

	/* B rejects, saying why. */
	TEST_ASSERT_EQ(ndk_create_connector(p->ad[NDK_PAIR_A], &ca),
		       NDK_STATUS_SUCCESS, "connector");
	TEST_ASSERT_EQ(connect_a(p, ca, c->qp[0], PORT, "let me in", &r),
		       NDK_STATUS_PENDING, "connect");
	TEST_ASSERT(wait_int(&in.n, 1) == 0, "connect event");
	TEST_ASSERT_EQ(ndk_reject(in.c[0], "go away", 8), NDK_STATUS_SUCCESS,
		       "reject");
	TEST_ASSERT_EQ(ndk_reject(in.c[0], NULL, 0),
		       NDK_STATUS_CONNECTION_ABORTED, "reject twice");
	WAIT_REQ(&r, NDK_STATUS_CONNECTION_REFUSED, "rejected connect");
	TEST_ASSERT_EQ(ndk_get_connection_data(ca, NULL, NULL, pd, &len),
		       NDK_STATUS_SUCCESS, "REJ data");
	TEST_ASSERT_EQ(len, 148u, "REJ private data field");
	TEST_ASSERT(strcmp((char *)pd, "go away") == 0, "REJ data");
	ndk_close_connector(in.c[0], NULL, NULL);
	ndk_close_connector(ca, NULL, NULL);
	/* The QP never left INIT; a new connector can use it again. */
	TEST_ASSERT_EQ(qp_state(c->qp[0]), NDK_QP_STATE_ERROR,
		       "refused QP flushed");
	ndk_pair_conn_destroy(c);

	/* Nobody listens on that port. */
	c = conn_new(p, &o);
	memset(&r, 0, sizeof(r));
	TEST_ASSERT_EQ(ndk_create_connector(p->ad[NDK_PAIR_A], &ca),
		       NDK_STATUS_SUCCESS, "connector");
	TEST_ASSERT_EQ(connect_a(p, ca, c->qp[0], PORT + 1, NULL, &r),
		       NDK_STATUS_PENDING, "connect");
	WAIT_REQ(&r, NDK_STATUS_CONNECTION_REFUSED, "no listener");
	ndk_close_connector(ca, NULL, NULL);
	ndk_pair_conn_destroy(c);

	/* Paused: refused as if nobody listened; resumed: accepted. */
	TEST_ASSERT_EQ(ndk_control_connect_events(l, true), NDK_STATUS_SUCCESS,
		       "pause");
	c = conn_new(p, &o);
	memset(&r, 0, sizeof(r));
	TEST_ASSERT_EQ(ndk_create_connector(p->ad[NDK_PAIR_A], &ca),
		       NDK_STATUS_SUCCESS, "connector");
	TEST_ASSERT_EQ(connect_a(p, ca, c->qp[0], PORT, NULL, &r),
		       NDK_STATUS_PENDING, "connect");
	WAIT_REQ(&r, NDK_STATUS_CONNECTION_REFUSED, "paused listener");
	TEST_ASSERT_EQ(in.n, 1, "no event while paused");
	ndk_close_connector(ca, NULL, NULL);
	ndk_pair_conn_destroy(c);
	TEST_ASSERT_EQ(ndk_control_connect_events(l, false), NDK_STATUS_SUCCESS,
		       "resume");
	ndk_close_listener(l, NULL, NULL);

	/* A consumer that closes the request unanswered refuses it. */
	l2 = listen_b(p, &drop, PORT);
	TEST_ASSERT(l2 != NULL, "listen again on a freed port");
	c = conn_new(p, &o);
	memset(&r, 0, sizeof(r));
	TEST_ASSERT_EQ(ndk_create_connector(p->ad[NDK_PAIR_A], &ca),
		       NDK_STATUS_SUCCESS, "connector");
	TEST_ASSERT_EQ(connect_a(p, ca, c->qp[0], PORT, NULL, &r),
		       NDK_STATUS_PENDING, "connect");
	WAIT_REQ(&r, NDK_STATUS_CONNECTION_REFUSED, "closed unanswered");
	TEST_ASSERT_EQ(drop.n, 1, "one event");
	ndk_close_connector(ca, NULL, NULL);
	ndk_close_listener(l2, NULL, NULL);
	ndk_pair_conn_destroy(c);
	return 0;
}

/* A peer that does not exist: ARP fails, Connect ends HOST_UNREACHABLE. */
static int
t_unreachable(void)
{
	struct ndk_pair *p = pair_get(0);
	struct ndk_pair_conn_opts o = { .no_connect = true };
	struct ndk_pair_conn *c = conn_new(p, &o);
	struct sockaddr_in src = ndk_pair_sin(INADDR_ANY, 0);
	struct sockaddr_in dst = ndk_pair_sin(htonl(0x0A000063), PORT); /* .99 */
	struct ndk_test_xstats s;
	struct ndk_connector *ca;
	/* static: callbacks of a failed case may still fire */
	static struct req r;

	r = (struct req){ 0 };

	TEST_ASSERT(c != NULL, "QPs");
	TEST_ASSERT_EQ(ndk_create_connector(p->ad[NDK_PAIR_A], &ca),
		       NDK_STATUS_SUCCESS, "connector");
	TEST_ASSERT_EQ(ndk_connect(ca, c->qp[0], SA(src), sizeof(src), SA(dst),
				   sizeof(dst), 1, 1, NULL, 0, req_done, &r),
		       NDK_STATUS_PENDING, "connect");
	WAIT_REQ(&r, NDK_STATUS_HOST_UNREACHABLE, "unreachable");
	ndk_pair_stats(p, NDK_PAIR_A, &s);
	TEST_ASSERT(XS(&s, "cm_timeouts") >= 1 && XS(&s, "neigh_failed") >= 1,
		    "counted: %" PRIu64 " timeouts, %" PRIu64 " ARP failures",
		    XS(&s, "cm_timeouts"), XS(&s, "neigh_failed"));
	ndk_close_connector(ca, NULL, NULL);
	ndk_pair_conn_destroy(c);
	return 0;
}

/* Misuse gets its status; a close cancels a pending Connect. */
static int
t_api_errors(void)
{
	struct ndk_pair *p = pair_get(0);
	struct ndk_pair_conn_opts o = { .no_connect = true };
	struct ndk_pair_conn *c = conn_new(p, &o), *live = conn_new(p, NULL);
	/* static: callbacks of a failed case may still fire */
	static struct incoming in, in2;
	struct ndk_listener *l = listen_b(p, &in, PORT), *l2 = NULL;
	struct sockaddr_in any = ndk_pair_sin(INADDR_ANY, 0);
	struct sockaddr_in dst = ndk_pair_sin(p->ipv4[NDK_PAIR_B], PORT);
	struct sockaddr_in self = ndk_pair_sin(p->ipv4[NDK_PAIR_A], PORT);
	struct sockaddr_in other = ndk_pair_sin(htonl(0x0A000009), 0);
	struct sockaddr_in6 v6 = { .sin6_family = AF_INET6 };
	struct ndk_connector *ca;
	static struct req r, r2;
	char big[200] = "x";
	uint32_t len = 0;
	socklen_t sl = sizeof(any);

	in = (struct incoming){ 0 };
	in2 = (struct incoming){ 0 };
	r = (struct req){ 0 };
	r2 = (struct req){ 0 };

	TEST_ASSERT(c != NULL && live != NULL && l != NULL, "set-up");
	TEST_ASSERT_EQ(ndk_create_connector(p->ad[NDK_PAIR_A], &ca),
		       NDK_STATUS_SUCCESS, "connector");
	TEST_ASSERT_EQ(ndk_complete_connect(ca, NULL, NULL, req_done, &r),
		       NDK_STATUS_CONNECTION_INVALID, "complete before connect");
	TEST_ASSERT_EQ(ndk_accept(ca, c->qp[0], 1, 1, NULL, 0, NULL, NULL,
				  req_done, &r),
		       NDK_STATUS_CONNECTION_INVALID, "accept on active");
	TEST_ASSERT_EQ(ndk_reject(ca, NULL, 0), NDK_STATUS_CONNECTION_INVALID,
		       "reject nothing");
	TEST_ASSERT_EQ(ndk_disconnect(ca, req_done, &r),
		       NDK_STATUS_CONNECTION_INVALID, "disconnect unconnected");
	TEST_ASSERT_EQ(ndk_get_connection_data(ca, NULL, NULL, NULL, &len),
		       NDK_STATUS_CONNECTION_INVALID, "no data yet");
	TEST_ASSERT_EQ(ndk_get_local_address(ca, (struct sockaddr *)&any, &sl),
		       NDK_STATUS_CONNECTION_INVALID, "no address yet");
	len = 4;
	TEST_ASSERT_EQ(ndk_get_connection_data(ca, NULL, NULL, NULL, &len),
		       NDK_STATUS_INVALID_PARAMETER, "NULL buffer, length 4");
	TEST_ASSERT_EQ(ndk_connect(ca, live->qp[0], SA(any), sizeof(any),
				   SA(dst), sizeof(dst), 1, 1, NULL, 0,
				   req_done, &r),
		       NDK_STATUS_INVALID_DEVICE_STATE, "QP already in RTS");
	TEST_ASSERT_EQ(ndk_connect(ca, c->qp[0], SA(any), sizeof(any),
				   SA(dst), sizeof(dst), 1, 1, big, 57,
				   req_done, &r),
		       NDK_STATUS_INVALID_BUFFER_SIZE, "57 bytes of caller data");
	TEST_ASSERT_EQ(ndk_connect(ca, c->qp[0], (struct sockaddr *)&v6,
				   sizeof(v6), SA(dst), sizeof(dst), 1, 1,
				   NULL, 0, req_done, &r),
		       NDK_STATUS_INVALID_ADDRESS, "IPv6 source");
	TEST_ASSERT_EQ(ndk_connect(ca, c->qp[0], SA(other), sizeof(other),
				   SA(dst), sizeof(dst), 1, 1, NULL, 0,
				   req_done, &r),
		       NDK_STATUS_INVALID_ADDRESS, "not our address");
	TEST_ASSERT_EQ(ndk_connect(ca, c->qp[0], SA(any), sizeof(any),
				   SA(self), sizeof(self), 1, 1, NULL, 0,
				   req_done, &r),
		       NDK_STATUS_INVALID_ADDRESS, "to ourselves");
	TEST_ASSERT_EQ(ndk_connect(ca, c->qp[0], SA(any), sizeof(any),
				   SA(dst), sizeof(dst), 1, 1, NULL, 0, NULL,
				   NULL),
		       NDK_STATUS_INVALID_PARAMETER, "no completion callback");

	/* Listen errors. */
	TEST_ASSERT_EQ(ndk_create_listener(p->ad[NDK_PAIR_B], connect_event,
					   &in2, &l2), NDK_STATUS_SUCCESS,
		       "listener 2");
	dst.sin_addr.s_addr = INADDR_ANY;
	TEST_ASSERT_EQ(ndk_listen(l2, SA(dst), sizeof(dst)),
		       NDK_STATUS_SHARING_VIOLATION, "port taken");
	TEST_ASSERT_EQ(ndk_listen(l2, SA(other), sizeof(other)),
		       NDK_STATUS_INVALID_ADDRESS, "foreign address");
	TEST_ASSERT_EQ(ndk_listen(l2, SA(any), sizeof(any)), NDK_STATUS_SUCCESS,
		       "ephemeral");
	sl = sizeof(other);
	TEST_ASSERT_EQ(ndk_listener_get_local_address(l2,
						      (struct sockaddr *)&other,
						      &sl),
		       NDK_STATUS_SUCCESS, "address");
	TEST_ASSERT(ntohs(other.sin_port) >= 49152, "ephemeral port %u",
		    ntohs(other.sin_port));
	TEST_ASSERT_EQ(ndk_listen(l2, SA(any), sizeof(any)),
		       NDK_STATUS_INVALID_DEVICE_STATE, "listen twice");
	ndk_close_listener(l2, NULL, NULL);

	/* Closing a connector cancels its pending Connect. */
	dst.sin_addr.s_addr = p->ipv4[NDK_PAIR_B];
	TEST_ASSERT_EQ(ndk_connect(ca, c->qp[0], SA(any), sizeof(any),
				   SA(dst), sizeof(dst), 1, 1, NULL, 0,
				   req_done, &r2), NDK_STATUS_PENDING, "connect");
	TEST_ASSERT_EQ(ndk_connect(ca, c->qp[0], SA(any), sizeof(any),
				   SA(dst), sizeof(dst), 1, 1, NULL, 0,
				   req_done, &r),
		       NDK_STATUS_CONNECTION_ACTIVE, "connect twice");
	TEST_ASSERT(wait_int(&in.n, 1) == 0, "connect event");
	ndk_close_connector(ca, NULL, NULL);
	TEST_ASSERT_EQ(r2.done, 1, "completed by the close");
	TEST_ASSERT_EQ(r2.st, NDK_STATUS_CANCELLED, "%s",
		       ndk_status_str(r2.st));
	/* B's request is now stale: accepting it fails in the end. */
	memset(&r, 0, sizeof(r));
	ndk_close_connector(in.c[0], NULL, NULL);
	ndk_close_listener(l, NULL, NULL);
	ndk_pair_conn_destroy(c);
	ndk_pair_conn_destroy(live);
	return 0;
}

/* Sixteen connections at once, each carrying data, closed by B. */
static int
t_many(void)
{
	enum { N = 16 };
	struct ndk_pair *p = pair_get(0);
	struct ndk_pair_conn_opts o = { .no_connect = true };
	struct ndk_pair_conn *c[N];
	/* static: callbacks of a failed case may still fire */
	static struct incoming in;
	struct ndk_listener *l = listen_b(p, &in, PORT);
	struct ndk_connector *ca[N], *cb[N];
	static struct req rc[N], ra[N], rcc[N], rd[N];
	static struct disc da[N], db[N];

	in = (struct incoming){ 0 };

	TEST_ASSERT(l != NULL, "listen");
	memset(rc, 0, sizeof(rc));
	memset(ra, 0, sizeof(ra));
	memset(rcc, 0, sizeof(rcc));
	memset(rd, 0, sizeof(rd));
	memset(da, 0, sizeof(da));
	memset(db, 0, sizeof(db));
	for (int i = 0; i < N; i++) {
		c[i] = conn_new(p, &o);
		TEST_ASSERT(c[i] != NULL, "QPs %d", i);
		TEST_ASSERT_EQ(ndk_create_connector(p->ad[NDK_PAIR_A], &ca[i]),
			       NDK_STATUS_SUCCESS, "connector %d", i);
		TEST_ASSERT_EQ(connect_a(p, ca[i], c[i]->qp[0], PORT, NULL,
					 &rc[i]), NDK_STATUS_PENDING, "%d", i);
	}
	TEST_ASSERT(wait_int(&in.n, N) == 0, "%d connect events", in.n);
	for (int i = 0; i < N; i++) {
		struct sockaddr_in peer;
		socklen_t sl = sizeof(peer);
		int j;

		/* Match each request to its QP pair by source port. */
		TEST_ASSERT_EQ(ndk_get_peer_address(in.c[i],
						    (struct sockaddr *)&peer,
						    &sl), NDK_STATUS_SUCCESS,
			       "peer %d", i);
		for (j = 0; j < N; j++) {
			struct sockaddr_in me;
			socklen_t ml = sizeof(me);

			if (ndk_get_local_address(ca[j], (struct sockaddr *)&me,
						  &ml) == NDK_STATUS_SUCCESS &&
			    me.sin_port == peer.sin_port)
				break;
		}
		TEST_ASSERT(j < N, "request %d matches no connector", i);
		cb[j] = in.c[i];
		TEST_ASSERT_EQ(ndk_accept(cb[j], c[j]->qp[1], 1, 1, NULL, 0,
					  disc_event, &db[j], req_done, &ra[j]),
			       NDK_STATUS_PENDING, "accept %d", j);
	}
	for (int i = 0; i < N; i++) {
		WAIT_REQ(&rc[i], NDK_STATUS_SUCCESS, "connect");
		TEST_ASSERT_EQ(ndk_complete_connect(ca[i], disc_event, &da[i],
						    req_done, &rcc[i]),
			       NDK_STATUS_PENDING, "complete %d", i);
	}
	for (int i = 0; i < N; i++) {
		WAIT_REQ(&rcc[i], NDK_STATUS_SUCCESS, "complete");
		WAIT_REQ(&ra[i], NDK_STATUS_SUCCESS, "accept");
		TEST_ASSERT(xfer(p, c[i], XOP_SEND, 3000 + i, 10 + i) == 0,
			    "SEND on %d", i);
	}
	for (int i = 0; i < N; i++)
		TEST_ASSERT_EQ(ndk_disconnect(cb[i], req_done, &rd[i]),
			       NDK_STATUS_PENDING, "disconnect %d", i);
	for (int i = 0; i < N; i++) {
		WAIT_REQ(&rd[i], NDK_STATUS_SUCCESS, "disconnect");
		TEST_ASSERT(wait_int(&da[i].fired, 1) == 0, "event %d", i);
		ndk_close_connector(ca[i], NULL, NULL);
		ndk_close_connector(cb[i], NULL, NULL);
		ndk_pair_conn_destroy(c[i]);
	}
	ndk_close_listener(l, NULL, NULL);
	return 0;
}

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
	{ "connect_accept", t_connect_accept },
	{ "disconnect_both_ways", t_disconnect_both_ways },
	{ "refusals", t_refusals },
	{ "endpoint", t_endpoint },
	{ "api_errors", t_api_errors },
	{ "many", t_many },
	{ "unreachable", t_unreachable },
	{ "lost_mads", t_lost_mads },
	{ "close_lost_dreq", t_close_lost_dreq },
	{ "cm_params", t_cm_params },
	{ "selective_repeat", t_selective_repeat },
};

int
main(int argc, char **argv)
{
	return rc_main("test_cm", "cm", cases, RTE_DIM(cases), argc, argv);
}
