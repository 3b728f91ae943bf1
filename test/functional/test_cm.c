/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: the connection manager (IB CM over QP1 with RDMA-CM
 * addressing) behind NDK connectors and listeners, between two swroce
 * adapters on a net_ring pair: A (10.0.0.1) connects, B (10.0.0.2)
 * listens. Connect/Accept/CompleteConnect with private data both ways,
 * data over the connected QPs, Disconnect from either side and crossing,
 * Reject, nobody listening, paused listeners, an unreachable host,
 * unanswered requests closed, API misuse and many connections at once.
 * Lost MADs and the CM parameters: test_cm_loss.c; shared endpoints,
 * asynchronous creation and the disconnect reasons: test_cm_ndk.c.
 */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include "ndk_xstats.h"
#include "cm_common.h"

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

static const struct ndk_test_case cases[] = {
	{ "connect_accept", t_connect_accept },
	{ "disconnect_both_ways", t_disconnect_both_ways },
	{ "refusals", t_refusals },
	{ "endpoint", t_endpoint },
	{ "api_errors", t_api_errors },
	{ "many", t_many },
	{ "unreachable", t_unreachable },
};

int
main(int argc, char **argv)
{
	return rc_main("test_cm", "cm", cases, RTE_DIM(cases), argc, argv);
}
