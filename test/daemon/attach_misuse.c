/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * attach-misuse: speaks the attach protocol (swroce_attach.h) directly to
 * ndk-roced as two applications X and Y of this one process. X creates one
 * object of each kind; then every request kind of protocol version 2 is
 * sent by Y naming X's objects, and must be refused with
 * STATUS_INVALID_HANDLE, and the same request sent by X must not be (so
 * the test fails if handles stopped being checked or stopped working).
 * A request with X's id but another pid is refused too, and QP_LIST and
 * QP_INFO show Y none of X's QPs. Last, X connects to an address nobody
 * answers: the daemon must answer STATUS_PENDING before the completion
 * exists (a CM step no longer holds its multi-process thread), promise
 * the completion in X's event ring, and queue it there later, with the
 * callback and context X gave, once the CM gives up. A third, Z, asks
 * for a ring of 8 events, fills it with promises (CQ arms) and sees a
 * CONNECT refused inline until a CQ's close gives slots back.
 *
 *   attach-misuse <EAL args, secondary of the daemon> -- --port-name NAME
 *   prints "MISUSE OK <n> requests" and exits 0, or a reason and exits 1.
 */

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>
#include <rte_string_fns.h>

#include "ndk.h"
#include "swroce_attach.h"

struct app {
	uint64_t id;
	struct ndk_attach_evq *evq;
	uint64_t pd, cq, qp, conn, lis, fr, mw;
	uint32_t qpn;
};

static unsigned int checked;

static void
fail(const char *what)
{
	fprintf(stderr, "attach-misuse: %s\n", what);
	exit(1);
}

static ndk_status_t
call(uint64_t app, int32_t pid, struct ndk_attach_req *rq,
     struct ndk_attach_rep *rp)
{
	struct timespec ts = { .tv_sec = NDK_ATTACH_TIMEOUT_S };
	struct rte_mp_reply r = { 0 };
	struct rte_mp_msg m;

	memset(&m, 0, sizeof(m));
	memset(rp, 0, sizeof(*rp));
	rq->version = NDK_ATTACH_VERSION;
	rq->pid = pid;
	rq->app = app;
	rte_strlcpy(m.name, NDK_ATTACH_MP_NAME, sizeof(m.name));
	memcpy(m.param, rq, sizeof(*rq));
	m.len_param = sizeof(*rq);
	if (rte_mp_request_sync(&m, &r, &ts) != 0 || r.nb_received != 1)
		fail("no answer from the daemon");
	memcpy(rp, r.msgs[0].param, sizeof(*rp));
	free(r.msgs);
	return rp->status;
}

static uint64_t
make(uint64_t app, uint32_t op, uint64_t h0, uint32_t u0,
     struct ndk_attach_rep *rp)
{
	struct ndk_attach_req rq = { .op = op };

	rq.h[0] = h0;
	rq.u[0] = u0;
	rq.ctx = 1;                       /* a proxy address, never used */
	if (call(app, getpid(), &rq, rp) != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "attach-misuse: request %u: %s\n", op,
			ndk_status_str(rp->status));
		exit(1);
	}
	return rp->handle;
}

static void
hello(const char *port, struct app *a, uint32_t slots)
{
	struct ndk_attach_req rq = { .op = NDK_ATT_HELLO };
	struct ndk_attach_rep rp;

	rte_strlcpy(rq.name, port, sizeof(rq.name));
	rq.u[0] = slots;
	if (call(0, getpid(), &rq, &rp) != NDK_STATUS_SUCCESS)
		fail("HELLO refused");
	a->id = rp.handle;
	a->evq = (struct ndk_attach_evq *)(uintptr_t)rp.obj2;
	a->pd = make(a->id, NDK_ATT_CREATE_PD, 0, 0, &rp);
	a->cq = make(a->id, NDK_ATT_CREATE_CQ, 0, 64, &rp);
	{
		struct ndk_attach_req q = { .op = NDK_ATT_CREATE_QP };

		q.h[0] = a->pd;
		q.h[1] = a->cq;
		q.h[2] = a->cq;
		q.u[0] = q.u[1] = 8;
		q.u[2] = q.u[3] = 1;
		if (call(a->id, getpid(), &q, &rp) != NDK_STATUS_SUCCESS)
			fail("create QP");
		a->qp = rp.handle;
		a->qpn = rp.u[0];
	}
	a->conn = make(a->id, NDK_ATT_CREATE_CONNECTOR, 0, 0, &rp);
	a->lis = make(a->id, NDK_ATT_CREATE_LISTENER, 0, 0, &rp);
	a->fr = make(a->id, NDK_ATT_CREATE_MR, a->pd, 1, &rp);
	a->mw = make(a->id, NDK_ATT_CREATE_MW, a->pd, 0, &rp);
}

/* @p rq as Y must be refused; as X it must get past the handle checks. */
static void
both(const struct app *x, const struct app *y, struct ndk_attach_req *rq,
     const char *what)
{
	struct ndk_attach_rep rp;
	ndk_status_t st;

	rq->cb = 1;                       /* a callback address, never used */
	rq->cb_ctx = 1;
	st = call(y->id, getpid(), rq, &rp);
	if (st != NDK_STATUS_INVALID_HANDLE) {
		fprintf(stderr, "attach-misuse: %s by another application: "
			"%s\n", what, ndk_status_str(st));
		exit(1);
	}
	st = call(x->id, getpid() + 1, rq, &rp);
	if (st != NDK_STATUS_INVALID_HANDLE) {
		fprintf(stderr, "attach-misuse: %s with a forged pid: %s\n",
			what, ndk_status_str(st));
		exit(1);
	}
	st = call(x->id, getpid(), rq, &rp);
	if (st == NDK_STATUS_INVALID_HANDLE) {
		fprintf(stderr, "attach-misuse: %s by its owner: %s\n", what,
			ndk_status_str(st));
		exit(1);
	}
	printf("  %-24s foreign: refused, owner: %s\n", what,
	       ndk_status_str(st));
	checked++;
}

static void
one(const struct app *x, const struct app *y, uint32_t op, uint64_t h0,
    uint64_t h1, uint32_t u0, const char *what)
{
	struct ndk_attach_req rq = { .op = op };

	rq.h[0] = h0;
	rq.h[1] = h1;
	rq.u[0] = u0;
	both(x, y, &rq, what);
}

/* X's connect to nobody: answered at once, completed by an event. */
static void
pending_connect(const struct app *x)
{
	struct ndk_attach_req rq = { .op = NDK_ATT_CONNECT };
	struct ndk_attach_rep rp;
	struct ndk_attach_ev ev;
	uint32_t used0 = __atomic_load_n(&x->evq->used, __ATOMIC_ACQUIRE);
	uint64_t t0;

	rq.h[0] = x->conn;
	rq.h[1] = x->qp;
	rq.addr.dst_ip = inet_addr("10.255.255.1");
	rq.addr.dst_port = htons(7000);
	rq.u[0] = rq.u[1] = 1;
	rq.cb = 0x1234;
	rq.cb_ctx = 0x5678;
	if (call(x->id, getpid(), &rq, &rp) != NDK_STATUS_PENDING)
		fail("CONNECT did not answer STATUS_PENDING");
	if (rte_ring_count(x->evq->ring) != 0 ||
	    __atomic_load_n(&x->evq->used, __ATOMIC_ACQUIRE) != used0 + 1)
		fail("CONNECT answered after its completion, or promised "
		     "no event");
	t0 = rte_get_timer_cycles();
	while (rte_ring_sc_dequeue_elem(x->evq->ring, &ev, sizeof(ev)) != 0) {
		if (rte_get_timer_cycles() - t0 > 120 * rte_get_timer_hz())
			fail("no completion event for the CONNECT");
		rte_delay_us_sleep(10000);
	}
	__atomic_fetch_sub(&x->evq->used, 1, __ATOMIC_RELEASE);
	if (ev.kind != NDK_ATT_EV_DONE || ev.fn != 0x1234 ||
	    ev.ctx != 0x5678 || ev.status == NDK_STATUS_SUCCESS)
		fail("the CONNECT's completion event is wrong");
	printf("  CONNECT to nobody       PENDING, then event %s\n",
	       ndk_status_str(ev.status));
}

static uint32_t
used_of(const struct app *a)
{
	return __atomic_load_n(&a->evq->used, __ATOMIC_ACQUIRE);
}

/*
 * Z's event ring has 8 slots: 4 CQs armed twice promise them all, so a
 * CONNECT (which must promise its completion) is refused inline; closing
 * a CQ gives its 2 back and the CONNECT is accepted.
 */
static void
ring_full(const char *port)
{
	struct ndk_attach_req rq = { .op = NDK_ATT_CONNECT };
	struct ndk_attach_rep rp;
	uint64_t cq[4];
	struct app z;
	ndk_status_t st;

	hello(port, &z, NDK_ATTACH_EV_SLOTS_MIN);
	if (z.evq->cap != NDK_ATTACH_EV_SLOTS_MIN)
		fail("HELLO did not size the event ring as asked");
	for (int i = 0; i < 4; i++) {
		cq[i] = make(z.id, NDK_ATT_CREATE_CQ, 0, 16, &rp);
		for (int k = 0; k < 2; k++)
			make(z.id, NDK_ATT_CQ_ARM, cq[i], NDK_CQ_NOTIFY_ANY,
			     &rp);
	}
	if (used_of(&z) != NDK_ATTACH_EV_SLOTS_MIN)
		fail("8 arms did not promise 8 events");
	/* A ninth arm of an armed CQ promises nothing more. */
	make(z.id, NDK_ATT_CQ_ARM, cq[0], NDK_CQ_NOTIFY_ANY, &rp);
	rq.h[0] = z.conn;
	rq.h[1] = z.qp;
	rq.addr.dst_ip = inet_addr("10.255.255.1");
	rq.addr.dst_port = htons(7000);
	rq.cb = 1;
	st = call(z.id, getpid(), &rq, &rp);
	if (st != NDK_STATUS_INSUFFICIENT_RESOURCES ||
	    used_of(&z) != NDK_ATTACH_EV_SLOTS_MIN)
		fail("CONNECT with a full event ring was not refused inline");
	make(z.id, NDK_ATT_CLOSE, cq[3], 0, &rp);
	if (used_of(&z) != NDK_ATTACH_EV_SLOTS_MIN - 2)
		fail("closing an armed CQ did not give its events back");
	if (call(z.id, getpid(), &rq, &rp) != NDK_STATUS_PENDING)
		fail("CONNECT refused with room in the event ring");
	printf("  event ring of %u full   CONNECT refused, accepted after "
	       "a CQ closed\n", NDK_ATTACH_EV_SLOTS_MIN);
	memset(&rq, 0, sizeof(rq));
	rq.op = NDK_ATT_BYE;
	call(z.id, getpid(), &rq, &rp);
}

int
main(int argc, char **argv)
{
	struct ndk_attach_req rq;
	struct ndk_attach_rep rp;
	struct app x, y;
	const char *port;
	int n = rte_eal_init(argc, argv);

	if (n < 0)
		fail("EAL");
	if (argc - n != 3 || strcmp(argv[n + 1], "--port-name") != 0)
		fail("usage: attach-misuse <EAL> -- --port-name NAME");
	port = argv[n + 2];
	hello(port, &x, 0);
	hello(port, &y, 0);
	one(&x, &y, NDK_ATT_LISTENER_ADDR, x.lis, 0, 0, "LISTENER_ADDR");
	one(&x, &y, NDK_ATT_LISTENER_PAUSE, x.lis, 0, 0, "LISTENER_PAUSE");
	memset(&rq, 0, sizeof(rq));
	rq.op = NDK_ATT_LISTEN;
	rq.h[0] = x.lis;
	rq.addr.src_port = htons(7999);
	both(&x, &y, &rq, "LISTEN");
	one(&x, &y, NDK_ATT_ACCEPT, x.conn, x.qp, 1, "ACCEPT");
	/* Y's own connector with X's QP. */
	memset(&rq, 0, sizeof(rq));
	rq.op = NDK_ATT_ACCEPT;
	rq.h[0] = y.conn;
	rq.h[1] = x.qp;
	rq.cb = 1;
	if (call(y.id, getpid(), &rq, &rp) != NDK_STATUS_INVALID_HANDLE)
		fail("ACCEPT of one's connector with another's QP");
	one(&x, &y, NDK_ATT_REJECT, x.conn, 0, 0, "REJECT");
	one(&x, &y, NDK_ATT_CONN_DATA, x.conn, 0, 64, "CONN_DATA");
	one(&x, &y, NDK_ATT_CONN_ADDR, x.conn, 0, 0, "CONN_ADDR");
	one(&x, &y, NDK_ATT_COMPLETE_CONNECT, x.conn, 0, 0,
	    "COMPLETE_CONNECT");
	one(&x, &y, NDK_ATT_DISCONNECT, x.conn, 0, 0, "DISCONNECT");
	one(&x, &y, NDK_ATT_CQ_ARM, x.cq, 0, NDK_CQ_NOTIFY_ANY, "CQ_ARM");
	memset(&rq, 0, sizeof(rq));
	rq.op = NDK_ATT_INIT_FR;
	rq.h[0] = x.fr;
	rq.u[0] = 2;
	rq.u[1] = 1;
	both(&x, &y, &rq, "INIT_FR");
	one(&x, &y, NDK_ATT_CREATE_MW, x.pd, 0, 0, "CREATE_MW");
	one(&x, &y, NDK_ATT_CLOSE, x.mw, 0, 0, "CLOSE (window)");
	/* Y sees none of X's QPs; X sees its one. */
	memset(&rq, 0, sizeof(rq));
	rq.op = NDK_ATT_QP_INFO;
	rq.u[0] = x.qpn;
	both(&x, &y, &rq, "QP_INFO");
	memset(&rq, 0, sizeof(rq));
	rq.op = NDK_ATT_QP_LIST;
	if (call(y.id, getpid(), &rq, &rp) != NDK_STATUS_SUCCESS ||
	    rp.u[0] != 1 || rp.qpns[0] != y.qpn)
		fail("QP_LIST of Y lists other than its own QP");
	if (call(x.id, getpid(), &rq, &rp) != NDK_STATUS_SUCCESS ||
	    rp.u[0] != 1 || rp.qpns[0] != x.qpn)
		fail("QP_LIST of X lists other than its own QP");
	checked++;
	pending_connect(&x);
	ring_full(port);
	memset(&rq, 0, sizeof(rq));
	rq.op = NDK_ATT_BYE;
	call(y.id, getpid(), &rq, &rp);
	call(x.id, getpid(), &rq, &rp);
	printf("MISUSE OK %u requests\n", checked);
	rte_eal_cleanup();
	return 0;
}
