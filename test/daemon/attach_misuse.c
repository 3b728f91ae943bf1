/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * attach-misuse: speaks the attach protocol (ndk_attach_proto.h) directly
 * to ndk-roced as two applications X and Y of this one process. First a
 * HELLO of another protocol version must be refused with
 * STATUS_BAD_VERSION (the reply in the daemon's version), and requests
 * of a length other than their code's with STATUS_INVALID_BUFFER_SIZE.
 * X creates one object of each kind; then each request kind naming an
 * object is sent by Y naming X's objects, and must be refused with
 * STATUS_INVALID_HANDLE, and the same request sent by X must not be (so
 * the test fails if handles stopped being checked or stopped working).
 * A request with X's id but another pid is refused too, and QP_LIST and
 * QP_INFO show Y none of X's QPs. Last, X connects to an address nobody
 * answers: the daemon must answer STATUS_PENDING before the completion
 * exists (a CM step no longer holds its multi-process thread), promise
 * the completion in X's event ring, and queue it there later, with the
 * callback and context X gave, once the CM gives up. A third, Z, asks
 * for a ring of 8 events, fills it with promises (CQ arms) and sees a
 * CONNECT refused inline until a CQ's close gives slots back. SRQs: Y
 * may neither modify X's SRQ nor put a QP of its own on it.
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
#include "ndk_attach_proto.h"

struct app {
	uint64_t id;
	struct ndk_attach_evq *evq;
	uint64_t pd, cq, qp, conn, lis, fr, mw, srq;
	uint32_t qpn;
};

static unsigned int checked;

/* An IPv4 address (network order) into a protocol address's bytes. */
static void
put_ip4(uint8_t *addr, in_addr_t ip)
{
	memcpy(addr, &ip, sizeof(ip));
}

static void
fail(const char *what)
{
	fprintf(stderr, "attach-misuse: %s\n", what);
	exit(1);
}

/* Send @p rq as it is (header included), @p len bytes of it. */
static ndk_status_t
send_raw(const struct ndk_attach_req *rq, int len, struct ndk_attach_rep *rp)
{
	struct timespec ts = { .tv_sec = NDK_ATTACH_TIMEOUT_S };
	struct rte_mp_reply r = { 0 };
	struct rte_mp_msg m;

	memset(&m, 0, sizeof(m));
	memset(rp, 0, sizeof(*rp));
	rte_strlcpy(m.name, NDK_ATTACH_MP_NAME, sizeof(m.name));
	memcpy(m.param, rq, (size_t)len);
	m.len_param = len;
	if (rte_mp_request_sync(&m, &r, &ts) != 0 || r.nb_received != 1)
		fail("no answer from the daemon");
	len = r.msgs[0].len_param;
	if (len < (int)sizeof(rp->hdr) || len > (int)sizeof(*rp))
		fail("a reply of a wrong length");
	memcpy(rp, r.msgs[0].param, (size_t)len);
	free(r.msgs);
	/* Whatever the request's version, the reply is in the daemon's. */
	if (rp->hdr.version != NDK_ATTACH_VERSION ||
	    rp->hdr.len != (uint32_t)len)
		fail("a reply of another protocol version, or whose header "
		     "says another length");
	return rp->hdr.status;
}

/* A request of @p app (as process @p pid), of its code's length. */
static ndk_status_t
call(uint64_t app, int32_t pid, struct ndk_attach_req *rq,
     struct ndk_attach_rep *rp)
{
	ndk_status_t st;

	rq->hdr.version = NDK_ATTACH_VERSION;
	rq->hdr.len = ndk_attach_req_len(rq->hdr.op);
	rq->hdr.pid = pid;
	rq->hdr.app = app;
	st = send_raw(rq, (int)rq->hdr.len, rp);
	if (rp->hdr.op != rq->hdr.op ||
	    rp->hdr.len != ndk_attach_rep_len(rq->hdr.op))
		fail("a reply to another request, or of a wrong length");
	return st;
}

/* A zeroed request of code @p op. */
static struct ndk_attach_req
req(uint32_t op)
{
	struct ndk_attach_req rq;

	memset(&rq, 0, sizeof(rq));
	rq.hdr.op = (uint16_t)op;
	return rq;
}

/* A request that must succeed. @return the new object's handle. */
static uint64_t
make(uint64_t app, struct ndk_attach_req rq, struct ndk_attach_rep *rp)
{
	if (call(app, getpid(), &rq, rp) != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "attach-misuse: request %u: %s\n",
			rq.hdr.op, ndk_status_str(rp->hdr.status));
		exit(1);
	}
	return rp->new_obj.handle;
}

/* A request naming object @p h and nothing else. */
static struct ndk_attach_req
req_obj(uint32_t op, uint64_t h)
{
	struct ndk_attach_req rq = req(op);

	rq.obj.h = h;
	return rq;
}

static struct ndk_attach_req
req_cq_arm(uint64_t cq)
{
	struct ndk_attach_req rq = req(NDK_ATT_CQ_ARM);

	rq.cq_arm.cq = cq;
	rq.cq_arm.type = NDK_CQ_NOTIFY_ANY;
	return rq;
}

static struct ndk_attach_req
req_create_cq(uint32_t depth)
{
	struct ndk_attach_req rq = req(NDK_ATT_CREATE_CQ);

	rq.create_cq.depth = depth;
	rq.create_cq.proxy = 1;           /* a proxy address, never used */
	return rq;
}

static void
hello(const char *port, struct app *a, uint32_t slots)
{
	struct ndk_attach_req rq = req(NDK_ATT_HELLO);
	struct ndk_attach_rep rp;

	rte_strlcpy(rq.hello.name, port, sizeof(rq.hello.name));
	rq.hello.ev_slots = slots;
	if (call(0, getpid(), &rq, &rp) != NDK_STATUS_SUCCESS)
		fail("HELLO refused");
	a->id = rp.hello.app;
	a->evq = (struct ndk_attach_evq *)(uintptr_t)rp.hello.evq;
	a->pd = make(a->id, req(NDK_ATT_CREATE_PD), &rp);
	a->cq = make(a->id, req_create_cq(64), &rp);
	rq = req(NDK_ATT_CREATE_QP);
	rq.create_qp.pd = a->pd;
	rq.create_qp.rcq = a->cq;
	rq.create_qp.icq = a->cq;
	rq.create_qp.rq_depth = rq.create_qp.iq_depth = 8;
	rq.create_qp.max_rsge = rq.create_qp.max_isge = 1;
	if (call(a->id, getpid(), &rq, &rp) != NDK_STATUS_SUCCESS)
		fail("create QP");
	a->qp = rp.create_qp.handle;
	a->qpn = rp.create_qp.qpn;
	a->conn = make(a->id, req(NDK_ATT_CREATE_CONNECTOR), &rp);
	rq = req(NDK_ATT_CREATE_LISTENER);
	rq.create_listener.proxy = 1;
	a->lis = make(a->id, rq, &rp);
	rq = req(NDK_ATT_CREATE_MR);
	rq.create_mr.pd = a->pd;
	rq.create_mr.fast_register = 1;
	a->fr = make(a->id, rq, &rp);
	a->mw = make(a->id, req_obj(NDK_ATT_CREATE_MW, a->pd), &rp);
	rq = req(NDK_ATT_CREATE_SRQ);
	rq.create_srq.pd = a->pd;
	rq.create_srq.depth = 4;
	rq.create_srq.max_sge = 1;
	a->srq = make(a->id, rq, &rp);
}

/*
 * The version is checked at HELLO: another one is refused (and logged by
 * the daemon); a request of a length other than its code's is refused.
 */
static void
bad_messages(const char *port, const struct app *x)
{
	struct ndk_attach_req rq = req(NDK_ATT_HELLO);
	struct ndk_attach_rep rp;
	ndk_status_t st;
	int len;

	rte_strlcpy(rq.hello.name, port, sizeof(rq.hello.name));
	rq.hdr.version = NDK_ATTACH_VERSION - 1;
	rq.hdr.len = ndk_attach_req_len(NDK_ATT_HELLO);
	rq.hdr.pid = getpid();
	st = send_raw(&rq, (int)rq.hdr.len, &rp);
	if (st != NDK_STATUS_BAD_VERSION)
		fail("a HELLO of another protocol version was not refused "
		     "with STATUS_BAD_VERSION");
	printf("  HELLO of version %u     %s (daemon: version %u)\n",
	       NDK_ATTACH_VERSION - 1, ndk_status_str(st), rp.hdr.version);
	checked++;
	/* One byte short and one too many, header and message agreeing. */
	for (int d = -1; d <= 1; d += 2) {
		rq = req_obj(NDK_ATT_CLOSE, x->mw);
		rq.hdr.version = NDK_ATTACH_VERSION;
		rq.hdr.pid = getpid();
		rq.hdr.app = x->id;
		len = (int)ndk_attach_req_len(NDK_ATT_CLOSE) + d;
		rq.hdr.len = (uint32_t)len;
		st = send_raw(&rq, len, &rp);
		if (st != NDK_STATUS_INVALID_BUFFER_SIZE)
			fail("a request of a wrong length was not refused "
			     "with STATUS_INVALID_BUFFER_SIZE");
	}
	/* The message's length right, its header's wrong. */
	rq.hdr.len = ndk_attach_req_len(NDK_ATT_CLOSE) + 8;
	st = send_raw(&rq, (int)ndk_attach_req_len(NDK_ATT_CLOSE), &rp);
	if (st != NDK_STATUS_INVALID_BUFFER_SIZE)
		fail("a request whose header says another length was not "
		     "refused");
	printf("  CLOSE of a wrong length %s\n", ndk_status_str(st));
	checked++;
}

/* @p rq as Y must be refused; as X it must get past the handle checks. */
static void
both(const struct app *x, const struct app *y, struct ndk_attach_req *rq,
     const char *what)
{
	struct ndk_attach_rep rp;
	ndk_status_t st;

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

/* A callback address, never used. */
static const struct ndk_attach_cb cb_1 = { .fn = 1, .ctx = 1 };

/* X's connect to nobody: answered at once, completed by an event. */
static void
pending_connect(const struct app *x)
{
	struct ndk_attach_req rq = req(NDK_ATT_CONNECT);
	struct ndk_attach_rep rp;
	struct ndk_attach_ev ev;
	uint32_t used0 = __atomic_load_n(&x->evq->used, __ATOMIC_ACQUIRE);
	uint64_t t0;

	rq.connect.conn = x->conn;
	rq.connect.qp = x->qp;
	rq.connect.src.family = AF_INET;
	rq.connect.dst.family = AF_INET;
	put_ip4(rq.connect.dst.addr, inet_addr("10.255.255.1"));
	rq.connect.dst.port = htons(7000);
	rq.connect.ird = rq.connect.ord = 1;
	rq.connect.cb.fn = 0x1234;
	rq.connect.cb.ctx = 0x5678;
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
	if (ev.kind != NDK_ATT_EV_DONE || ev.done.cb.fn != 0x1234 ||
	    ev.done.cb.ctx != 0x5678 || ev.done.status == NDK_STATUS_SUCCESS)
		fail("the CONNECT's completion event is wrong");
	printf("  CONNECT to nobody       PENDING, then event %s\n",
	       ndk_status_str(ev.done.status));
}

static uint32_t
used_of(const struct app *a)
{
	return __atomic_load_n(&a->evq->used, __ATOMIC_ACQUIRE);
}

/*
 * Z's event ring has 8 slots: its PD, CQ, listener, MR and SRQ promise
 * their close's event (the close may pend), one more CQ its close and two
 * arms the other 3, so a CONNECT (which must promise its completion) is
 * refused inline; closing that CQ gives its 3 back and the CONNECT is
 * accepted.
 */
static void
ring_full(const char *port)
{
	struct ndk_attach_req rq = req(NDK_ATT_CONNECT);
	struct ndk_attach_rep rp;
	uint64_t cq;
	struct app z;
	ndk_status_t st;

	hello(port, &z, NDK_ATTACH_EV_SLOTS_MIN);
	if (z.evq->cap != NDK_ATTACH_EV_SLOTS_MIN)
		fail("HELLO did not size the event ring as asked");
	if (used_of(&z) != 5)
		fail("a PD, CQ, listener, MR and SRQ did not promise their "
		     "closes");
	cq = make(z.id, req_create_cq(16), &rp);
	for (int k = 0; k < 2; k++)
		make(z.id, req_cq_arm(cq), &rp);
	if (used_of(&z) != NDK_ATTACH_EV_SLOTS_MIN)
		fail("a CQ and 2 arms did not promise the 3 events left");
	/* A third arm of an armed CQ promises nothing more. */
	make(z.id, req_cq_arm(cq), &rp);
	rq.connect.conn = z.conn;
	rq.connect.qp = z.qp;
	rq.connect.src.family = AF_INET;
	rq.connect.dst.family = AF_INET;
	put_ip4(rq.connect.dst.addr, inet_addr("10.255.255.1"));
	rq.connect.dst.port = htons(7000);
	rq.connect.cb.fn = 1;
	st = call(z.id, getpid(), &rq, &rp);
	if (st != NDK_STATUS_INSUFFICIENT_RESOURCES ||
	    used_of(&z) != NDK_ATTACH_EV_SLOTS_MIN)
		fail("CONNECT with a full event ring was not refused inline");
	make(z.id, req_obj(NDK_ATT_CLOSE, cq), &rp);
	if (used_of(&z) != NDK_ATTACH_EV_SLOTS_MIN - 3)
		fail("closing an armed CQ did not give its events back");
	if (call(z.id, getpid(), &rq, &rp) != NDK_STATUS_PENDING)
		fail("CONNECT refused with room in the event ring");
	printf("  event ring of %u full   CONNECT refused, accepted after "
	       "a CQ closed\n", NDK_ATTACH_EV_SLOTS_MIN);
	rq = req(NDK_ATT_BYE);
	call(z.id, getpid(), &rq, &rp);
}

int
main(int argc, char **argv)
{
	struct ndk_attach_req rq;
	struct ndk_attach_rep rp;
	struct app x, y;
	const char *port;
	uint64_t sep;
	int n = rte_eal_init(argc, argv);

	if (n < 0)
		fail("EAL");
	if (argc - n != 3 || strcmp(argv[n + 1], "--port-name") != 0)
		fail("usage: attach-misuse <EAL> -- --port-name NAME");
	port = argv[n + 2];
	hello(port, &x, 0);
	hello(port, &y, 0);
	bad_messages(port, &x);
	rq = req_obj(NDK_ATT_LISTENER_ADDR, x.lis);
	both(&x, &y, &rq, "LISTENER_ADDR");
	rq = req(NDK_ATT_LISTENER_PAUSE);
	rq.listener_pause.listener = x.lis;
	both(&x, &y, &rq, "LISTENER_PAUSE");
	rq = req(NDK_ATT_LISTEN);
	rq.listen.listener = x.lis;
	rq.listen.addr.family = AF_INET;
	rq.listen.addr.port = htons(7999);
	both(&x, &y, &rq, "LISTEN");
	rq = req(NDK_ATT_ACCEPT);
	rq.accept.conn = x.conn;
	rq.accept.qp = x.qp;
	rq.accept.cb = cb_1;
	both(&x, &y, &rq, "ACCEPT");
	/* Y's own connector with X's QP. */
	rq.accept.conn = y.conn;
	if (call(y.id, getpid(), &rq, &rp) != NDK_STATUS_INVALID_HANDLE)
		fail("ACCEPT of one's connector with another's QP");
	rq = req(NDK_ATT_REJECT);
	rq.reject.conn = x.conn;
	both(&x, &y, &rq, "REJECT");
	rq = req(NDK_ATT_CONN_DATA);
	rq.conn_data.conn = x.conn;
	rq.conn_data.want = 64;
	both(&x, &y, &rq, "CONN_DATA");
	rq = req_obj(NDK_ATT_CONN_ADDR, x.conn);
	both(&x, &y, &rq, "CONN_ADDR");
	rq = req(NDK_ATT_COMPLETE_CONNECT);
	rq.complete_connect.conn = x.conn;
	rq.complete_connect.cb = cb_1;
	both(&x, &y, &rq, "COMPLETE_CONNECT");
	rq = req(NDK_ATT_DISCONNECT);
	rq.disconnect.conn = x.conn;
	rq.disconnect.cb = cb_1;
	both(&x, &y, &rq, "DISCONNECT");
	rq = req_cq_arm(x.cq);
	both(&x, &y, &rq, "CQ_ARM");
	rq = req(NDK_ATT_INIT_FR);
	rq.init_fr.mr = x.fr;
	rq.init_fr.pages = 2;
	rq.init_fr.remote = 1;
	both(&x, &y, &rq, "INIT_FR");
	rq = req_obj(NDK_ATT_CREATE_MW, x.pd);
	both(&x, &y, &rq, "CREATE_MW");
	rq = req_obj(NDK_ATT_CLOSE, x.mw);
	both(&x, &y, &rq, "CLOSE (window)");
	rq = req(NDK_ATT_CREATE_SRQ);
	rq.create_srq.pd = x.pd;
	rq.create_srq.depth = 4;
	rq.create_srq.max_sge = 1;
	both(&x, &y, &rq, "CREATE_SRQ");
	rq = req(NDK_ATT_SRQ_MODIFY);
	rq.srq_modify.srq = x.srq;
	rq.srq_modify.depth = 4;
	both(&x, &y, &rq, "SRQ_MODIFY");
	rq = req(NDK_ATT_CQ_RESIZE);
	rq.cq_resize.cq = x.cq;
	rq.cq_resize.depth = 128;
	both(&x, &y, &rq, "CQ_RESIZE");
	rq = req(NDK_ATT_CQ_MODERATE);
	rq.cq_moderate.cq = x.cq;
	rq.cq_moderate.interval_us = 100;
	rq.cq_moderate.count = 4;
	both(&x, &y, &rq, "CQ_MODERATE");
	rq = req(NDK_ATT_CREATE_SEP);
	rq.create_sep.proxy = 1;
	rq.create_sep.addr.family = AF_INET;
	sep = make(x.id, rq, &rp);
	rq = req_obj(NDK_ATT_SEP_ADDR, sep);
	both(&x, &y, &rq, "SEP_ADDR");
	/* Y's connector connecting from X's endpoint. */
	rq = req(NDK_ATT_CONNECT);
	rq.connect.conn = y.conn;
	rq.connect.qp = y.qp;
	rq.connect.sep = sep;
	rq.connect.dst.family = AF_INET;
	put_ip4(rq.connect.dst.addr, inet_addr("10.255.255.1"));
	rq.connect.dst.port = htons(7000);
	rq.connect.cb = cb_1;
	if (call(y.id, getpid(), &rq, &rp) != NDK_STATUS_INVALID_HANDLE)
		fail("a connect from another application's endpoint");
	checked++;
	rq = req_obj(NDK_ATT_CLOSE, sep);
	both(&x, &y, &rq, "CLOSE (endpoint)");
	/* Y's QP on X's SRQ. */
	rq = req(NDK_ATT_CREATE_QP);
	rq.create_qp.pd = y.pd;
	rq.create_qp.rcq = rq.create_qp.icq = y.cq;
	rq.create_qp.srq = x.srq;
	rq.create_qp.iq_depth = 8;
	rq.create_qp.max_isge = 1;
	if (call(y.id, getpid(), &rq, &rp) != NDK_STATUS_INVALID_HANDLE)
		fail("a QP on another application's SRQ");
	checked++;
	/* Y sees none of X's QPs; X sees its one. */
	rq = req(NDK_ATT_QP_INFO);
	rq.qp_info.qpn = x.qpn;
	both(&x, &y, &rq, "QP_INFO");
	rq = req(NDK_ATT_QP_LIST);
	if (call(y.id, getpid(), &rq, &rp) != NDK_STATUS_SUCCESS ||
	    rp.qp_list.total != 1 || rp.qp_list.qpns[0] != y.qpn)
		fail("QP_LIST of Y lists other than its own QP");
	if (call(x.id, getpid(), &rq, &rp) != NDK_STATUS_SUCCESS ||
	    rp.qp_list.total != 1 || rp.qp_list.qpns[0] != x.qpn)
		fail("QP_LIST of X lists other than its own QP");
	checked++;
	pending_connect(&x);
	ring_full(port);
	rq = req(NDK_ATT_BYE);
	call(y.id, getpid(), &rq, &rp);
	call(x.id, getpid(), &rq, &rp);
	printf("MISUSE OK %u requests\n", checked);
	rte_eal_cleanup();
	return 0;
}
