/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The attach server's asynchronous side: per-application event queues
 * and the requests that produce events (CM steps, listeners, CQ
 * notification), plus FRMRs, memory windows and QP introspection. No
 * request waits for the network: a CM step is started with the public
 * NDK API and answered STATUS_PENDING; its completion callback (on the
 * polling lcore) queues an event in the application's ring, which the
 * application's ndk_adapter_poll() drains.
 *
 * No event is ever dropped: every event is promised (reserved) before it
 * can happen, and the ring holds every promise (doc/attach.md):
 *   - a CM step reserves its completion when it starts (else it fails
 *     inline with STATUS_INSUFFICIENT_RESOURCES);
 *   - CompleteConnect / Accept with a disconnect event reserve it; the
 *     connector's close gives it back if it never fired;
 *   - each arm of a CQ reserves its notification (at most two owed per
 *     CQ: one pending arm, one firing); the CQ's close gives them back;
 *   - a connection request reserves its event on arrival on the lcore;
 *     with the ring full it is refused (REJ), counted and logged.
 */

#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "roced_attach.h"

/* ------------------------------------------------------------------ */
/* Event queues                                                        */
/* ------------------------------------------------------------------ */

bool
roced_att_ev_reserve(struct att_app *a, uint32_t n)
{
	uint32_t u = __atomic_load_n(&a->evq->used, __ATOMIC_RELAXED);

	do {
		if (u + n > a->evq->cap)
			return false;
	} while (!__atomic_compare_exchange_n(&a->evq->used, &u, u + n, false,
					      __ATOMIC_ACQ_REL,
					      __ATOMIC_RELAXED));
	return true;
}

void
roced_att_ev_release(struct att_app *a, uint32_t n)
{
	if (n != 0)
		__atomic_fetch_sub(&a->evq->used, n, __ATOMIC_RELEASE);
}

void
roced_att_ev_put(struct att_app *a, const struct ndk_attach_ev *ev)
{
	/* Reserved: the ring (exactly cap slots) has room. */
	if (rte_ring_mp_enqueue_elem(a->evq->ring, (void *)(uintptr_t)ev,
				     sizeof(*ev)) != 0)
		ROCED_LOG(ERR, "attach: pid %d: event ring full despite its "
			  "reservations (event %u lost)", a->pid, ev->kind);
}

int
roced_att_evq_create(struct att_app *a, unsigned int ai, uint32_t slots)
{
	char name[RTE_RING_NAMESIZE];
	struct ndk_attach_evq *q;

	if (slots == 0 || slots > NDK_ATTACH_EV_SLOTS)
		slots = NDK_ATTACH_EV_SLOTS;
	slots = RTE_MAX(slots, (uint32_t)NDK_ATTACH_EV_SLOTS_MIN);
	q = rte_zmalloc("ndk_att_evq", sizeof(*q), RTE_CACHE_LINE_SIZE);
	if (q == NULL)
		return -ENOMEM;
	snprintf(name, sizeof(name), "ndkev%u_%" PRIx64, ai, a->id);
	/* Producers: polling lcores and the rte_mp thread; consumer: the
	 * application's ndk_adapter_poll(). */
	q->ring = rte_ring_create_elem(name, sizeof(struct ndk_attach_ev),
				       slots, SOCKET_ID_ANY,
				       RING_F_SC_DEQ | RING_F_EXACT_SZ);
	if (q->ring == NULL) {
		ROCED_LOG(ERR, "attach: event ring %s: %s", name,
			  rte_strerror(rte_errno));
		rte_free(q);
		return -ENOMEM;
	}
	q->cap = slots;
	a->evq = q;
	return 0;
}

void
roced_att_evq_free(struct att_app *a)
{
	if (a->evq == NULL)
		return;
	if (a->ev_refused != 0)
		ROCED_LOG(WARNING, "attach: pid %d: %" PRIu64 " connection "
			  "request(s) were refused: its event ring was full",
			  a->pid, a->ev_refused);
	rte_ring_free(a->evq->ring);
	rte_free(a->evq);
	a->evq = NULL;
}

void
roced_att_ent_unreserve(struct roced_attach *s, struct att_ent *e)
{
	struct att_app *a = &s->apps[e->app];

	roced_att_ev_release(a, __atomic_exchange_n(&e->disc_owed, 0,
						    __ATOMIC_ACQ_REL));
	roced_att_ev_release(a, __atomic_exchange_n(&e->notify_owed, 0,
						    __ATOMIC_ACQ_REL));
}

/* ------------------------------------------------------------------ */
/* Callbacks (polling lcore, or the rte_mp thread inside a call)       */
/* ------------------------------------------------------------------ */

static void
ev_queue(struct att_app *a, uint32_t kind, int32_t status, uint64_t fn,
	 uint64_t ctx, uint64_t handle)
{
	struct ndk_attach_ev ev = {
		.kind = kind, .status = status, .fn = fn, .ctx = ctx,
		.handle = handle,
	};

	roced_att_ev_put(a, &ev);
}

/* A CM step finished: its completion was reserved when it started. */
static void
cm_done(void *ctx, ndk_status_t st)
{
	struct att_areq *r = ctx;

	ev_queue(r->e->owner, NDK_ATT_EV_DONE, st, r->fn, r->ctx, 0);
}

static void
disc_event(void *ctx, uint32_t reason)
{
	struct att_ent *e = ctx;

	/* Reserved at CompleteConnect / Accept; at most once (NDK). */
	if (__atomic_exchange_n(&e->disc_owed, 0, __ATOMIC_ACQ_REL) != 0)
		ev_queue(e->owner, NDK_ATT_EV_DISCONNECT, (int32_t)reason, 0,
			 e->pctx, 0);
}

static void
cq_notify(void *ctx, ndk_status_t st)
{
	struct att_ent *e = ctx;
	uint32_t n = __atomic_load_n(&e->notify_owed, __ATOMIC_ACQUIRE);

	do {
		if (n == 0) {
			/* Never expected: every arm reserved first. */
			if (!roced_att_ev_reserve(e->owner, 1)) {
				ROCED_LOG(ERR, "attach: pid %d: CQ "
					  "notification without a slot",
					  e->owner->pid);
				return;
			}
			break;
		}
	} while (!__atomic_compare_exchange_n(&e->notify_owed, &n, n - 1,
					      false, __ATOMIC_ACQ_REL,
					      __ATOMIC_ACQUIRE));
	ev_queue(e->owner, NDK_ATT_EV_CQ, st, 0, e->pctx, 0);
}

/* A connection request on an application's listener (lcore). */
static void
connect_event(void *ctx, struct ndk_connector *c)
{
	struct att_ent *l = ctx;
	struct att_app *a = l->owner;
	struct ndk_attach_rep rp;

	if (!roced_att_ev_reserve(a, 1)) {
		a->ev_refused++;
		ndk_close_connector(c, NULL, NULL);   /* unanswered: REJ */
		return;
	}
	if (!NDK_SUCCESS(roced_att_ent_add(a->srv, l->app,
					   NDK_OBJECT_TYPE_CONNECTOR, c,
					   &rp))) {
		roced_att_ev_release(a, 1);
		a->ev_refused++;
		ndk_close_connector(c, NULL, NULL);
		return;
	}
	ev_queue(a, NDK_ATT_EV_CONNECT, 0, 0, l->pctx, rp.handle);
}

/* ------------------------------------------------------------------ */
/* Requests                                                            */
/* ------------------------------------------------------------------ */

ndk_status_t
roced_att_create_cq(struct roced_attach *s, unsigned int ai,
		    const struct ndk_attach_req *rq, struct ndk_attach_rep *rp)
{
	struct ndk_adapter *ad = s->apps[ai].port->ad;
	struct att_ent *e;
	ndk_status_t st;
	struct ndk_cq *cq;

	/* The entry first: it is the notification's context. */
	st = roced_att_ent_add(s, ai, NDK_OBJECT_TYPE_CQ, NULL, rp);
	if (!NDK_SUCCESS(st))
		return st;
	e = &s->ent[(uint32_t)rp->handle];
	e->pctx = rq->ctx;
	st = ndk_create_cq(ad, rq->u[0], rq->u[1] != 0 ? cq_notify : NULL, e,
			   &cq);
	if (!NDK_SUCCESS(st)) {
		roced_att_ent_free(s, e);
		return st;
	}
	e->obj = cq;
	rp->obj = (uintptr_t)cq;
	return NDK_STATUS_SUCCESS;
}

static ndk_status_t
op_cq_arm(struct att_ent *e, uint32_t type)
{
	uint32_t n = __atomic_load_n(&e->notify_owed, __ATOMIC_ACQUIRE);

	/* One pending arm and one firing notification at most are owed. */
	if (n < 2) {
		if (!roced_att_ev_reserve(e->owner, 1))
			return NDK_STATUS_INSUFFICIENT_RESOURCES;
		__atomic_fetch_add(&e->notify_owed, 1, __ATOMIC_ACQ_REL);
	}
	ndk_arm_cq(e->obj, type);
	return NDK_STATUS_SUCCESS;
}

static ndk_status_t
op_create_listener(struct roced_attach *s, unsigned int ai,
		   const struct ndk_attach_req *rq, struct ndk_attach_rep *rp)
{
	struct ndk_listener *l;
	struct att_ent *e;
	ndk_status_t st;

	st = roced_att_ent_add(s, ai, NDK_OBJECT_TYPE_LISTENER, NULL, rp);
	if (!NDK_SUCCESS(st))
		return st;
	e = &s->ent[(uint32_t)rp->handle];
	e->pctx = rq->ctx;
	st = ndk_create_listener(s->apps[ai].port->ad, connect_event, e, &l);
	if (!NDK_SUCCESS(st)) {
		roced_att_ent_free(s, e);
		return st;
	}
	e->obj = l;
	rp->obj = 0;                      /* nothing to use in shared memory */
	return NDK_STATUS_SUCCESS;
}

static void
sin_of(struct sockaddr_in *sin, uint32_t ip, uint16_t port)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = ip;
	sin->sin_port = port;
}

/* Start a CM step whose completion goes to the application's queue. */
static ndk_status_t
cm_start(struct att_ent *e, unsigned int slot, const struct ndk_attach_req *rq,
	 bool disc, struct att_areq **r)
{
	uint32_t need = 1;

	if (rq->cb == 0)
		return NDK_STATUS_INVALID_PARAMETER;
	if (disc && e->disc_owed == 0)
		need++;
	if (!roced_att_ev_reserve(e->owner, need))
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	if (need == 2)
		__atomic_store_n(&e->disc_owed, 1, __ATOMIC_RELEASE);
	if (disc)
		e->pctx = rq->ctx;
	e->rq[slot].e = e;
	e->rq[slot].fn = rq->cb;
	e->rq[slot].ctx = rq->cb_ctx;
	*r = &e->rq[slot];
	return NDK_STATUS_PENDING;
}

/* The step did not start (inline failure): give its slots back. */
static ndk_status_t
cm_started(struct att_ent *e, ndk_status_t st, bool disc)
{
	if (st == NDK_STATUS_PENDING)
		return st;
	roced_att_ev_release(e->owner, 1);
	if (disc)
		roced_att_ev_release(e->owner,
				     __atomic_exchange_n(&e->disc_owed, 0,
							 __ATOMIC_ACQ_REL));
	/* Completed inline with success (not expected of swroce): the
	 * application hears it from the return value alone. */
	return st;
}

static ndk_status_t
op_connect(struct roced_attach *s, unsigned int ai,
	   const struct ndk_attach_req *rq, struct att_ent *c)
{
	struct att_ent *q = roced_att_ent_get(s, ai, rq->h[1],
					      NDK_OBJECT_TYPE_QP);
	struct sockaddr_in src, dst;
	struct att_areq *r;
	ndk_status_t st;

	if (q == NULL)
		return NDK_STATUS_INVALID_HANDLE;
	if (rq->addr.pdata_len > NDK_ATTACH_PDATA_MAX)
		return NDK_STATUS_INVALID_BUFFER_SIZE;
	st = cm_start(c, 0, rq, false, &r);
	if (st != NDK_STATUS_PENDING)
		return st;
	sin_of(&src, rq->addr.src_ip, rq->addr.src_port);
	sin_of(&dst, rq->addr.dst_ip, rq->addr.dst_port);
	return cm_started(c, ndk_connect(c->obj, q->obj,
		(struct sockaddr *)&src, sizeof(src),
		(struct sockaddr *)&dst, sizeof(dst), rq->u[0], rq->u[1],
		rq->addr.pdata_len != 0 ? rq->addr.pdata : NULL,
		rq->addr.pdata_len, cm_done, r), false);
}

static ndk_status_t
op_accept(struct roced_attach *s, unsigned int ai,
	  const struct ndk_attach_req *rq, struct att_ent *c)
{
	struct att_ent *q = roced_att_ent_get(s, ai, rq->h[1],
					      NDK_OBJECT_TYPE_QP);
	bool disc = rq->u[2] != 0;
	struct att_areq *r;
	ndk_status_t st;

	if (q == NULL)
		return NDK_STATUS_INVALID_HANDLE;
	if (rq->data.len > NDK_ATTACH_DATA_MAX)
		return NDK_STATUS_INVALID_BUFFER_SIZE;
	st = cm_start(c, 0, rq, disc, &r);
	if (st != NDK_STATUS_PENDING)
		return st;
	return cm_started(c, ndk_accept(c->obj, q->obj, rq->u[0], rq->u[1],
		rq->data.len != 0 ? rq->data.bytes : NULL, rq->data.len,
		disc ? disc_event : NULL, c, cm_done, r), disc);
}

static ndk_status_t
op_conn(struct att_ent *c, const struct ndk_attach_req *rq,
	struct ndk_attach_rep *rp)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	bool disc = rq->u[2] != 0;
	struct att_areq *r;
	ndk_status_t st;

	switch (rq->op) {
	case NDK_ATT_COMPLETE_CONNECT:
		st = cm_start(c, 0, rq, disc, &r);
		if (st != NDK_STATUS_PENDING)
			return st;
		return cm_started(c, ndk_complete_connect(c->obj,
			disc ? disc_event : NULL, c, cm_done, r), disc);
	case NDK_ATT_DISCONNECT:
		st = cm_start(c, 1, rq, false, &r);
		if (st != NDK_STATUS_PENDING)
			return st;
		return cm_started(c, ndk_disconnect(c->obj, cm_done, r),
				  false);
	case NDK_ATT_REJECT:
		if (rq->data.len > NDK_ATTACH_DATA_MAX)
			return NDK_STATUS_INVALID_BUFFER_SIZE;
		return ndk_reject(c->obj, rq->data.len != 0 ?
				  rq->data.bytes : NULL, rq->data.len);
	case NDK_ATT_CONN_DATA:
		rp->data.len = RTE_MIN(rq->u[0],
				       (uint32_t)sizeof(rp->data.bytes));
		return ndk_get_connection_data(c->obj, &rp->u[0], &rp->u[1],
					       rp->data.bytes, &rp->data.len);
	case NDK_ATT_CONN_ADDR:
		st = ndk_get_local_address(c->obj, (struct sockaddr *)&sin,
					   &len);
		if (!NDK_SUCCESS(st))
			return st;
		rp->addr.local_ip = sin.sin_addr.s_addr;
		rp->addr.local_port = sin.sin_port;
		len = sizeof(sin);
		st = ndk_get_peer_address(c->obj, (struct sockaddr *)&sin,
					  &len);
		rp->addr.peer_ip = sin.sin_addr.s_addr;
		rp->addr.peer_port = sin.sin_port;
		return st;
	default:
		return NDK_STATUS_INVALID_DEVICE_REQUEST;
	}
}

static ndk_status_t
op_listener(struct att_ent *l, const struct ndk_attach_req *rq,
	    struct ndk_attach_rep *rp)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	ndk_status_t st;

	switch (rq->op) {
	case NDK_ATT_LISTEN:
		sin_of(&sin, rq->addr.src_ip, rq->addr.src_port);
		return ndk_listen(l->obj, (struct sockaddr *)&sin,
				  sizeof(sin));
	case NDK_ATT_LISTENER_ADDR:
		st = ndk_listener_get_local_address(l->obj,
						    (struct sockaddr *)&sin,
						    &len);
		rp->addr.local_ip = sin.sin_addr.s_addr;
		rp->addr.local_port = sin.sin_port;
		return st;
	case NDK_ATT_LISTENER_PAUSE:
		return ndk_control_connect_events(l->obj, rq->u[0] != 0);
	default:
		return NDK_STATUS_INVALID_DEVICE_REQUEST;
	}
}

/* This application's QPs: QP numbers, or the entry of one. */
static ndk_status_t
op_qp_list(struct roced_attach *s, unsigned int ai, uint32_t skip,
	   struct ndk_attach_rep *rp)
{
	uint32_t total = 0, n = 0;

	for (uint32_t i = 0; i < ATT_MAX_OBJS; i++) {
		struct att_ent *e = &s->ent[i];

		if (e->type != NDK_OBJECT_TYPE_QP || e->app != ai)
			continue;
		if (total >= skip && n < NDK_ATTACH_QPN_MAX)
			rp->qpns[n++] = ndk_qp_num(e->obj);
		total++;
	}
	rp->u[0] = total;
	rp->u[1] = n;
	return NDK_STATUS_SUCCESS;
}

static ndk_status_t
op_qp_info(struct roced_attach *s, unsigned int ai, uint32_t qpn,
	   struct ndk_attach_rep *rp)
{
	for (uint32_t i = 0; i < ATT_MAX_OBJS; i++) {
		struct att_ent *e = &s->ent[i];

		if (e->type == NDK_OBJECT_TYPE_QP && e->app == ai &&
		    ndk_qp_num(e->obj) == qpn)
			return ndk_qp_query_info(s->apps[ai].port->ad, qpn,
						 &rp->info);
	}
	/* Another application's QP is no QP of this one. */
	return NDK_STATUS_INVALID_HANDLE;
}

static ndk_status_t
op_create_mw(struct roced_attach *s, unsigned int ai, struct att_ent *pd,
	     struct ndk_attach_rep *rp)
{
	struct ndk_mw *mw;
	ndk_status_t st = ndk_create_mw(pd->obj, &mw);

	if (!NDK_SUCCESS(st))
		return st;
	st = roced_att_ent_add(s, ai, NDK_OBJECT_TYPE_MW, mw, rp);
	if (!NDK_SUCCESS(st))
		ndk_close_mw(mw, NULL, NULL);
	return st;
}

ndk_status_t
roced_att_ops(struct roced_attach *s, unsigned int ai,
	      const struct ndk_attach_req *rq, struct ndk_attach_rep *rp)
{
	static const uint16_t type_of[] = {
		[NDK_ATT_CONNECT] = NDK_OBJECT_TYPE_CONNECTOR,
		[NDK_ATT_COMPLETE_CONNECT] = NDK_OBJECT_TYPE_CONNECTOR,
		[NDK_ATT_DISCONNECT] = NDK_OBJECT_TYPE_CONNECTOR,
		[NDK_ATT_LISTEN] = NDK_OBJECT_TYPE_LISTENER,
		[NDK_ATT_LISTENER_ADDR] = NDK_OBJECT_TYPE_LISTENER,
		[NDK_ATT_LISTENER_PAUSE] = NDK_OBJECT_TYPE_LISTENER,
		[NDK_ATT_ACCEPT] = NDK_OBJECT_TYPE_CONNECTOR,
		[NDK_ATT_REJECT] = NDK_OBJECT_TYPE_CONNECTOR,
		[NDK_ATT_CONN_DATA] = NDK_OBJECT_TYPE_CONNECTOR,
		[NDK_ATT_CONN_ADDR] = NDK_OBJECT_TYPE_CONNECTOR,
		[NDK_ATT_CQ_ARM] = NDK_OBJECT_TYPE_CQ,
		[NDK_ATT_INIT_FR] = NDK_OBJECT_TYPE_MR,
		[NDK_ATT_CREATE_MW] = NDK_OBJECT_TYPE_PD,
	};
	struct att_ent *e;

	switch (rq->op) {
	case NDK_ATT_CREATE_LISTENER:
		return op_create_listener(s, ai, rq, rp);
	case NDK_ATT_QP_LIST:
		return op_qp_list(s, ai, rq->u[0], rp);
	case NDK_ATT_QP_INFO:
		return op_qp_info(s, ai, rq->u[0], rp);
	default:
		break;
	}
	if (rq->op >= RTE_DIM(type_of) || type_of[rq->op] == 0)
		return NDK_STATUS_INVALID_DEVICE_REQUEST;
	e = roced_att_ent_get(s, ai, rq->h[0], type_of[rq->op]);
	if (e == NULL)
		return NDK_STATUS_INVALID_HANDLE;
	switch (rq->op) {
	case NDK_ATT_CONNECT:
		return op_connect(s, ai, rq, e);
	case NDK_ATT_ACCEPT:
		return op_accept(s, ai, rq, e);
	case NDK_ATT_LISTEN:
	case NDK_ATT_LISTENER_ADDR:
	case NDK_ATT_LISTENER_PAUSE:
		return op_listener(e, rq, rp);
	case NDK_ATT_CQ_ARM:
		return op_cq_arm(e, rq->u[0]);
	case NDK_ATT_INIT_FR:
		return ndk_initialize_fast_register_mr(e->obj, rq->u[0],
						       rq->u[1] != 0);
	case NDK_ATT_CREATE_MW:
		return op_create_mw(s, ai, e, rp);
	default:
		return op_conn(e, rq, rp);
	}
}
