/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: the connection manager at scale, between two swroce adapters
 * on a net_ring pair. A (10.0.0.1) opens NDK_CM_SCALE_N connections
 * (default 16,384: every ephemeral port of A at once) to one listener of
 * B (10.0.0.2), with at most WINDOW handshakes in flight; B accepts each
 * on the QP the request's private data names. Every connection then
 * carries one checked message, and all are disconnected from A, B seeing
 * each disconnect event. Then a full listener backlog: requests beyond it
 * are refused at once (CONNECTION_REFUSED, cm_backlog_rejects) and taken
 * again when the listener has answered.
 *
 * Set-up and tear-down rates are printed (information only: never
 * asserted, a loaded machine runs slower).
 *
 * Callbacks run on the poller lcore: they put the connection's index into
 * rings that the test thread drains, so that nothing here scans all
 * connections per event.
 */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#include "ndk.h"
#include "ndk_conn.h"
#include "ndk_pair_test.h"
#include "ndk_test.h"

#define PORT 7180
#define WINDOW 256           /* handshakes or disconnects in flight */
#define WAIT_S 120.0         /* no progress for this long: fail */
#define BURST 64
#define MAGIC 0x9E3779B97F4A7C15ull

/* Which callback completed (one ring each). */
enum ev_kind {
	EV_CONNECT,          /* A: Connect done */
	EV_COMPLETE,         /* A: CompleteConnect done */
	EV_ACCEPT,           /* B: Accept done */
	EV_DISCONNECT,       /* A: Disconnect done */
	EV_PEER_GONE,        /* B: disconnect event */
	EV_N
};

/* One connection: both QPs, both connectors, the callbacks' outcomes. */
struct conn {
	uint32_t i;
	struct ndk_qp *qp[2];
	struct ndk_connector *ca, *cb;
	ndk_status_t st[EV_N];
	uint8_t done;        /* EV_COMPLETE and EV_ACCEPT seen: bits */
};

static struct {
	uint32_t n;
	struct ndk_pair *p;
	struct ndk_pd *pd[2];
	struct ndk_cq *cq[2];
	struct ndk_listener *l;
	struct conn *c;              /* n of them */
	uint64_t *buf;               /* B's receive buffers, 8 B each */
	struct ndk_mr *mr;
	struct rte_ring *ev[EV_N];   /* struct conn * */
	struct rte_ring *incoming;   /* B's new connectors, held */
	bool hold;                   /* B holds requests (else accepts) */
	int cb_failed;               /* a callback's call failed */
} g;

static void complete_done(void *ctx, ndk_status_t st);
static void accept_done(void *ctx, ndk_status_t st);
static void peer_gone(void *ctx, uint32_t reason);
static void a_disc(void *ctx, uint32_t reason);

static void
ev_put(enum ev_kind k, void *ctx, ndk_status_t st)
{
	struct conn *c = ctx;

	c->st[k] = st;
	/* Rings hold every connection: the enqueue cannot fail. */
	rte_ring_enqueue(g.ev[k], c);
}

/*
 * A's Connect completed: CompleteConnect at once, from the callback, as a
 * consumer that wants connections fast does (held requests: reported).
 */
static void
connect_done(void *ctx, ndk_status_t st)
{
	struct conn *c = ctx;

	if (st != NDK_STATUS_SUCCESS || g.hold) {
		ev_put(EV_CONNECT, ctx, st);
		return;
	}
	c->st[EV_CONNECT] = st;
	if (ndk_complete_connect(c->ca, a_disc, c, complete_done, c) !=
	    NDK_STATUS_PENDING)
		__atomic_store_n(&g.cb_failed, 1, __ATOMIC_RELEASE);
}

static void
complete_done(void *ctx, ndk_status_t st)
{
	ev_put(EV_COMPLETE, ctx, st);
}

static void
accept_done(void *ctx, ndk_status_t st)
{
	ev_put(EV_ACCEPT, ctx, st);
}

static void
disconnect_done(void *ctx, ndk_status_t st)
{
	ev_put(EV_DISCONNECT, ctx, st);
}

static void
peer_gone(void *ctx, uint32_t reason)
{
	RTE_SET_USED(reason);
	ev_put(EV_PEER_GONE, ctx, NDK_STATUS_SUCCESS);
}

/* A's disconnect event: B never disconnects first here. */
static void
a_disc(void *ctx, uint32_t reason)
{
	RTE_SET_USED(ctx);
	RTE_SET_USED(reason);
}

/*
 * B's connect event: accept at once on the QP the request's private data
 * names (or hold the request for the test thread).
 */
static void
connect_event(void *ctx, struct ndk_connector *cb)
{
	uint8_t pd[64];
	uint32_t len = sizeof(pd), ird, ord, i;
	struct conn *c;

	RTE_SET_USED(ctx);
	if (g.hold) {
		if (rte_ring_enqueue(g.incoming, cb) != 0)
			ndk_close_connector(cb, NULL, NULL);
		return;
	}
	if (ndk_get_connection_data(cb, &ird, &ord, pd, &len) !=
	    NDK_STATUS_SUCCESS || len < sizeof(i))
		goto fail;
	memcpy(&i, pd, sizeof(i));
	if (i >= g.n || g.c[i].cb != NULL)
		goto fail;
	c = &g.c[i];
	c->cb = cb;
	if (ndk_accept(cb, c->qp[1], 1, 1, NULL, 0, peer_gone, c, accept_done,
		       c) == NDK_STATUS_PENDING)
		return;
fail:
	__atomic_store_n(&g.cb_failed, 1, __ATOMIC_RELEASE);
}

#define SA(s) ((const struct sockaddr *)&(s))

/* A's Connect of connection @p c, its index as private data. */
static ndk_status_t
connect_one(struct conn *c)
{
	struct sockaddr_in src = ndk_pair_sin(INADDR_ANY, 0);
	struct sockaddr_in dst = ndk_pair_sin(g.p->ipv4[NDK_PAIR_B], PORT);

	return ndk_connect(c->ca, c->qp[0], SA(src), sizeof(src), SA(dst),
			   sizeof(dst), 1, 1, &c->i, sizeof(c->i),
			   connect_done, c);
}

/*
 * Drain ring @p k; @p fn gets each connection. @return connections taken,
 * or -1 if @p fn failed.
 */
static int
drain(enum ev_kind k, int (*fn)(struct conn *))
{
	void *objs[BURST];
	unsigned int n = rte_ring_dequeue_burst(g.ev[k], objs, BURST, NULL);

	for (unsigned int j = 0; j < n; j++)
		if (fn != NULL && fn(objs[j]) != 0)
			return -1;
	return (int)n;
}

static uint32_t g_established;

static int
on_half(struct conn *c, enum ev_kind k)
{
	TEST_ASSERT_EQ(c->st[k], NDK_STATUS_SUCCESS, "%s %u: %s",
		       k == EV_ACCEPT ? "accept" : "complete connect", c->i,
		       ndk_status_str(c->st[k]));
	c->done |= (uint8_t)(1u << k);
	if (c->done == ((1u << EV_ACCEPT) | (1u << EV_COMPLETE)))
		g_established++;
	return 0;
}

static int
on_complete(struct conn *c)
{
	return on_half(c, EV_COMPLETE);
}

static int
on_accept(struct conn *c)
{
	return on_half(c, EV_ACCEPT);
}

/* Fail if nothing moved for WAIT_S; remember when something did. */
static int
progress(int moved, double *last, const char *what, uint32_t done)
{
	double now = ndk_pair_now();

	if (moved > 0)
		*last = now;
	else if (now - *last > WAIT_S)
		TEST_FAIL("%s: stuck at %u of %u", what, done, g.n);
	else
		ndk_pair_sleep_ms(0);
	return 0;
}

/* Every connection up, WINDOW handshakes at a time. @return 0. */
static int
set_up(double *secs)
{
	double t0 = ndk_pair_now(), last = t0;
	uint32_t next = 0;

	g_established = 0;
	while (g_established < g.n) {
		int moved = 0, r;

		while (next < g.n && next - g_established < WINDOW) {
			struct conn *c = &g.c[next];

			TEST_ASSERT_EQ(ndk_create_connector(
					       g.p->ad[NDK_PAIR_A], &c->ca),
				       NDK_STATUS_SUCCESS, "connector %u", next);
			TEST_ASSERT_EQ(connect_one(c), NDK_STATUS_PENDING,
				       "connect %u", next);
			next++;
			moved++;
		}
		TEST_ASSERT(!__atomic_load_n(&g.cb_failed, __ATOMIC_ACQUIRE),
			    "a callback's accept or complete connect failed");
		TEST_ASSERT(rte_ring_count(g.ev[EV_CONNECT]) == 0,
			    "a connect failed");
		TEST_ASSERT((r = drain(EV_COMPLETE, on_complete)) >= 0, "cc");
		moved += r;
		TEST_ASSERT((r = drain(EV_ACCEPT, on_accept)) >= 0, "accept");
		moved += r;
		TEST_ASSERT(progress(moved, &last, "set-up", g_established) ==
			    0, "set-up");
	}
	*secs = ndk_pair_now() - t0;
	return 0;
}

/* One 8-byte SEND per connection, each checked where it lands. */
static int
messages(void)
{
	struct ndk_result res[BURST];
	uint32_t got = 0, sent = 0;
	double last = ndk_pair_now();

	for (uint32_t i = 0; i < g.n; i++) {
		struct ndk_sge sge = {
			.va = &g.buf[i], .length = sizeof(uint64_t),
			.token = ndk_mr_local_token(g.mr),
		};

		g.buf[i] = 0;
		TEST_ASSERT_EQ(ndk_receive(g.c[i].qp[1], &g.c[i], &sge, 1),
			       NDK_STATUS_SUCCESS, "receive %u", i);
	}
	for (uint32_t i = 0; i < g.n; i++) {
		uint64_t v = (i + 1) * MAGIC;
		struct ndk_sge sge = { .va = &v, .length = sizeof(v) };

		TEST_ASSERT_EQ(ndk_send(g.c[i].qp[0], &g.c[i], &sge, 1,
					NDK_OP_FLAG_INLINE),
			       NDK_STATUS_SUCCESS, "send %u", i);
	}
	while (got < g.n || sent < g.n) {
		uint32_t k = ndk_get_cq_results(g.cq[NDK_PAIR_B], res, BURST);
		uint32_t s;

		for (uint32_t j = 0; j < k; j++) {
			struct conn *c = res[j].request_context;

			TEST_ASSERT_EQ(res[j].status, NDK_STATUS_SUCCESS,
				       "receive: %s",
				       ndk_status_str(res[j].status));
			TEST_ASSERT(res[j].qp_context == c &&
				    res[j].bytes_transferred == 8,
				    "receive of %u: %u bytes, wrong QP?", c->i,
				    res[j].bytes_transferred);
			TEST_ASSERT_EQ(g.buf[c->i], (c->i + 1) * MAGIC,
				       "message of connection %u", c->i);
		}
		got += k;
		s = ndk_get_cq_results(g.cq[NDK_PAIR_A], res, BURST);
		for (uint32_t j = 0; j < s; j++)
			TEST_ASSERT_EQ(res[j].status, NDK_STATUS_SUCCESS,
				       "send: %s",
				       ndk_status_str(res[j].status));
		sent += s;
		TEST_ASSERT(progress((int)(k + s), &last, "messages", got) == 0,
			    "messages");
	}
	return 0;
}

static uint32_t g_gone, g_disconnected;

static int
on_disconnect(struct conn *c)
{
	TEST_ASSERT_EQ(c->st[EV_DISCONNECT], NDK_STATUS_SUCCESS,
		       "disconnect %u: %s", c->i,
		       ndk_status_str(c->st[EV_DISCONNECT]));
	g_disconnected++;
	return 0;
}

static int
on_gone(struct conn *c)
{
	RTE_SET_USED(c);
	g_gone++;
	return 0;
}

/* A disconnects all, WINDOW at a time; B sees each. @return 0. */
static int
tear_down(double *secs)
{
	double t0 = ndk_pair_now(), last = t0;
	uint32_t next = 0;

	g_gone = g_disconnected = 0;
	while (g_disconnected < g.n || g_gone < g.n) {
		int moved = 0, r;

		while (next < g.n && next - g_disconnected < WINDOW) {
			TEST_ASSERT_EQ(ndk_disconnect(g.c[next].ca,
						      disconnect_done,
						      &g.c[next]),
				       NDK_STATUS_PENDING, "disconnect %u",
				       next);
			next++;
			moved++;
		}
		TEST_ASSERT((r = drain(EV_DISCONNECT, on_disconnect)) >= 0,
			    "disconnect");
		moved += r;
		TEST_ASSERT((r = drain(EV_PEER_GONE, on_gone)) >= 0, "gone");
		moved += r;
		if (g_disconnected == g.n && *secs == 0)
			*secs = ndk_pair_now() - t0;
		TEST_ASSERT(progress(moved, &last, "tear-down",
				     g_disconnected) == 0, "tear-down");
	}
	return 0;
}

/* Close every connection's connectors and QPs (fresh ones next time). */
static void
conns_close(void)
{
	for (uint32_t i = 0; i < g.n; i++) {
		struct conn *c = &g.c[i];

		if (c->ca != NULL)
			ndk_close_connector(c->ca, NULL, NULL);
		if (c->cb != NULL)
			ndk_close_connector(c->cb, NULL, NULL);
		for (int s = 0; s < 2; s++)
			if (c->qp[s] != NULL)
				ndk_close_qp(c->qp[s], NULL, NULL);
		memset(c, 0, sizeof(*c));
	}
}

static struct ndk_qp *
new_qp(int side, void *ctx)
{
	struct ndk_qp *qp = NULL;

	if (ndk_create_qp(g.pd[side], g.cq[side], g.cq[side], ctx, 1, 1, 1, 1,
			  8, &qp) != NDK_STATUS_SUCCESS)
		return NULL;
	return qp;
}

static int
t_scale(void)
{
	double up = 0, down = 0;
	struct conn extra = { .i = UINT32_MAX };

	for (uint32_t i = 0; i < g.n; i++) {
		g.c[i].i = i;
		for (int s = 0; s < 2; s++) {
			g.c[i].qp[s] = new_qp(s, &g.c[i]);
			TEST_ASSERT(g.c[i].qp[s] != NULL, "QP %u side %d", i,
				    s);
		}
	}
	TEST_ASSERT(set_up(&up) == 0, "set-up");
	printf("    %u connections set up in %.2f s: %.0f connections/s\n",
	       g.n, up, g.n / up);
	/* Every ephemeral port of A is taken: one more finds none. */
	if (g.n >= 16384) {
		extra.qp[0] = new_qp(NDK_PAIR_A, &extra);
		TEST_ASSERT(extra.qp[0] != NULL, "extra QP");
		TEST_ASSERT_EQ(ndk_create_connector(g.p->ad[NDK_PAIR_A],
						    &extra.ca),
			       NDK_STATUS_SUCCESS, "extra connector");
		TEST_ASSERT_EQ(connect_one(&extra),
			       NDK_STATUS_TOO_MANY_ADDRESSES,
			       "a connection beyond the ephemeral ports");
		ndk_close_connector(extra.ca, NULL, NULL);
		ndk_close_qp(extra.qp[0], NULL, NULL);
	}
	TEST_ASSERT(messages() == 0, "messages");
	TEST_ASSERT(tear_down(&down) == 0, "tear-down");
	printf("    %u connections torn down in %.2f s: %.0f connections/s\n",
	       g.n, down, g.n / down);
	conns_close();
	TEST_ASSERT_EQ(ndk_test_xstat(g.p->ad[NDK_PAIR_B],
				      "cm_backlog_rejects"), 0,
		       "backlog rejects with %u in flight", WINDOW);
	TEST_ASSERT_EQ(ndk_test_xstat(g.p->ad[NDK_PAIR_A], "cm_timeouts") +
		       ndk_test_xstat(g.p->ad[NDK_PAIR_B], "cm_timeouts"), 0,
		       "CM timeouts on a lossless link");
	return 0;
}

/*
 * A full backlog: B holds BACKLOG requests unanswered; the next ones are
 * refused at once and counted; once B answers, requests are taken again.
 */
static int
t_backlog(void)
{
	enum { BACKLOG = 8, EXTRA = 4 };
	const struct ndk_cm_params def = NDK_CM_PARAMS_DEFAULT;
	struct ndk_cm_params cp;
	uint64_t rej0 = ndk_test_xstat(g.p->ad[NDK_PAIR_B],
				       "cm_backlog_rejects");
	uint32_t refused = 0, taken = 0;
	double last = ndk_pair_now();

	TEST_ASSERT(g.n >= BACKLOG + EXTRA + 1, "NDK_CM_SCALE_N too small");
	g.hold = true;
	TEST_ASSERT_EQ(ndk_adapter_get_cm_params(g.p->ad[NDK_PAIR_B], &cp),
		       NDK_STATUS_SUCCESS, "get");
	cp.listen_backlog = BACKLOG;
	TEST_ASSERT_EQ(ndk_adapter_set_cm_params(g.p->ad[NDK_PAIR_B], &cp),
		       NDK_STATUS_SUCCESS, "set");
	for (uint32_t i = 0; i <= BACKLOG + EXTRA; i++) {
		g.c[i].i = i;
		g.c[i].qp[0] = new_qp(NDK_PAIR_A, &g.c[i]);
		TEST_ASSERT(g.c[i].qp[0] != NULL, "QP %u", i);
	}
	for (uint32_t i = 0; i < BACKLOG + EXTRA; i++) {
		struct conn *c = &g.c[i];

		TEST_ASSERT_EQ(ndk_create_connector(g.p->ad[NDK_PAIR_A],
						    &c->ca),
			       NDK_STATUS_SUCCESS, "connector %u", i);
		/* In order: the first BACKLOG fill it, the rest find it full. */
		TEST_ASSERT_EQ(connect_one(c), NDK_STATUS_PENDING, "%u", i);
		while (rte_ring_count(i < BACKLOG ? g.incoming :
				      g.ev[EV_CONNECT]) < (i < BACKLOG ?
							   i + 1 : i + 1 -
							   BACKLOG))
			TEST_ASSERT(progress(0, &last, "backlog", i) == 0,
				    "request %u", i);
	}
	for (void *obj; rte_ring_dequeue(g.ev[EV_CONNECT], &obj) == 0;) {
		struct conn *c = obj;

		TEST_ASSERT(c->i >= BACKLOG, "request %u refused", c->i);
		TEST_ASSERT_EQ(c->st[EV_CONNECT], NDK_STATUS_CONNECTION_REFUSED,
			       "request %u beyond the backlog: %s", c->i,
			       ndk_status_str(c->st[EV_CONNECT]));
		refused++;
	}
	TEST_ASSERT_EQ(refused, EXTRA, "refused");
	TEST_ASSERT_EQ(ndk_test_xstat(g.p->ad[NDK_PAIR_B],
				      "cm_backlog_rejects") - rej0, EXTRA,
		       "cm_backlog_rejects");
	/* B answers the held ones (Reject): room again for a new request. */
	for (void *obj; rte_ring_dequeue(g.incoming, &obj) == 0;) {
		TEST_ASSERT_EQ(ndk_reject(obj, NULL, 0), NDK_STATUS_SUCCESS,
			       "reject");
		ndk_close_connector(obj, NULL, NULL);
		taken++;
	}
	TEST_ASSERT_EQ(taken, BACKLOG, "held requests");
	TEST_ASSERT_EQ(ndk_create_connector(g.p->ad[NDK_PAIR_A],
					    &g.c[BACKLOG + EXTRA].ca),
		       NDK_STATUS_SUCCESS, "connector");
	TEST_ASSERT_EQ(connect_one(&g.c[BACKLOG + EXTRA]), NDK_STATUS_PENDING,
		       "after the backlog drained");
	last = ndk_pair_now();
	while (rte_ring_count(g.incoming) == 0)
		TEST_ASSERT(progress(0, &last, "backlog", 0) == 0,
			    "a request after the backlog drained");
	while (rte_ring_count(g.ev[EV_CONNECT]) < BACKLOG)
		TEST_ASSERT(progress(0, &last, "backlog", 0) == 0,
			    "rejected requests' completions");
	for (void *obj; rte_ring_dequeue(g.ev[EV_CONNECT], &obj) == 0;) {
		struct conn *c = obj;

		TEST_ASSERT(c->i < BACKLOG, "completion of %u", c->i);
		TEST_ASSERT_EQ(c->st[EV_CONNECT], NDK_STATUS_CONNECTION_REFUSED,
			       "rejected %u: %s", c->i,
			       ndk_status_str(c->st[EV_CONNECT]));
	}
	cp.listen_backlog = def.listen_backlog;
	TEST_ASSERT_EQ(ndk_adapter_set_cm_params(g.p->ad[NDK_PAIR_B], &cp),
		       NDK_STATUS_SUCCESS, "set");
	for (void *obj; rte_ring_dequeue(g.incoming, &obj) == 0;)
		ndk_close_connector(obj, NULL, NULL);
	conns_close();
	g.hold = false;
	return 0;
}

/* What both cases share: PDs, CQs, B's receive buffer and listener. */
static int
shared_set_up(void)
{
	struct sockaddr_in any = ndk_pair_sin(INADDR_ANY, PORT);

	for (int s = 0; s < 2; s++) {
		TEST_ASSERT_EQ(ndk_create_pd(g.p->ad[s], &g.pd[s]),
			       NDK_STATUS_SUCCESS, "PD");
		TEST_ASSERT_EQ(ndk_create_cq(g.p->ad[s], g.n + WINDOW, NULL,
					     NULL, &g.cq[s]),
			       NDK_STATUS_SUCCESS, "CQ");
	}
	TEST_ASSERT_EQ(ndk_create_mr(g.pd[NDK_PAIR_B], false, &g.mr),
		       NDK_STATUS_SUCCESS, "MR");
	TEST_ASSERT_EQ(ndk_register_mr(g.mr, g.buf, g.n * sizeof(uint64_t),
				       NDK_MR_FLAG_ALLOW_LOCAL_WRITE),
		       NDK_STATUS_SUCCESS, "register");
	TEST_ASSERT_EQ(ndk_create_listener(g.p->ad[NDK_PAIR_B], connect_event,
					   NULL, &g.l),
		       NDK_STATUS_SUCCESS, "listener");
	TEST_ASSERT_EQ(ndk_listen(g.l, SA(any), sizeof(any)),
		       NDK_STATUS_SUCCESS, "listen");
	return 0;
}

static void
shared_close(void)
{
	conns_close();
	if (g.l != NULL)
		ndk_close_listener(g.l, NULL, NULL);
	if (g.mr != NULL)
		ndk_close_mr(g.mr, NULL, NULL);
	for (int s = 0; s < 2; s++) {
		if (g.cq[s] != NULL)
			ndk_close_cq(g.cq[s], NULL, NULL);
		if (g.pd[s] != NULL)
			ndk_close_pd(g.pd[s], NULL, NULL);
	}
}

static const struct ndk_test_case cases[] = {
	{ "scale", t_scale },
	{ "backlog", t_backlog },
};

int
main(int argc, char **argv)
{
	struct ndk_pair_config pc = { 0 };
	const char *v = getenv("NDK_CM_SCALE_N");
	int rc;

	g.n = v != NULL ? (uint32_t)strtoul(v, NULL, 0) : 16384;
	if (g.n < 16 || g.n > 60000) {
		fprintf(stderr, "NDK_CM_SCALE_N: 16 to 60000\n");
		return 2;
	}
	if (ndk_test_eal_init("test_cm_scale", "0-1", NULL) != 0)
		return 1;
	pc.max_qp = g.n + 16;
	pc.max_cq = 16;
	g.p = ndk_pair_create(&pc);
	g.c = rte_zmalloc("conns", g.n * sizeof(*g.c), 0);
	g.buf = rte_zmalloc("bufs", g.n * sizeof(uint64_t), 0);
	g.incoming = rte_ring_create("incoming", rte_align32pow2(g.n + 1),
				     SOCKET_ID_ANY, 0);
	for (int k = 0; k < EV_N; k++) {
		char name[16];

		snprintf(name, sizeof(name), "ev%d", k);
		g.ev[k] = rte_ring_create(name, rte_align32pow2(g.n + 1),
					  SOCKET_ID_ANY, 0);
	}
	if (g.p == NULL || g.c == NULL || g.buf == NULL ||
	    g.incoming == NULL || g.ev[EV_N - 1] == NULL ||
	    shared_set_up() != 0) {
		fprintf(stderr, "test_cm_scale: set-up failed\n");
		return 1;
	}
	rc = ndk_test_run("cm_scale", cases, RTE_DIM(cases), argc, argv);
	shared_close();
	ndk_pair_destroy(g.p);
	rte_eal_cleanup();
	return rc;
}
