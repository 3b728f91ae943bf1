/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The attach server's requests: one handler per request code of the
 * protocol (ndk_attach_proto.h), each decoding its own typed request and
 * filling its own typed reply, found in one table (att_ops, at the end);
 * HELLO and BYE, which make and end an application, are roced_attach.c's.
 * Also the per-application event queues and the callbacks that fill them.
 * No request waits for the network: a CM step is started with the public
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
 *     CQ: one pending arm, one firing); given back when the CQ's close
 *     completes;
 *   - a listener reserves its EV_CLOSED at creation (its close may pend
 *     while connectors it handed up are open; roced_att_ent_close());
 *     SRQs, shared endpoints, CQs, PDs and MRs likewise
 *     (roced_attach_ext.c);
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
#include "swroce_attach_srv.h"

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
			  "reservations (event %u lost)", a->pid,
			  (unsigned int)ev->kind);
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

/* A CM step finished: its completion was reserved when it started. */
static void
cm_done(void *ctx, ndk_status_t st)
{
	struct att_areq *r = ctx;
	struct ndk_attach_ev ev = {
		.kind = NDK_ATT_EV_DONE,
		.done = { .cb = r->cb, .status = st },
	};

	roced_att_ev_put(r->e->owner, &ev);
}

static void
disc_event(void *ctx, uint32_t reason)
{
	struct att_ent *e = ctx;
	struct ndk_attach_ev ev = {
		.kind = NDK_ATT_EV_DISCONNECT,
		.disconnect = { .conn = e->pctx, .reason = reason },
	};

	/* Reserved at CompleteConnect / Accept; at most once (NDK). */
	if (__atomic_exchange_n(&e->disc_owed, 0, __ATOMIC_ACQ_REL) != 0)
		roced_att_ev_put(e->owner, &ev);
}

void
roced_att_notify_put(struct att_ent *e, const struct ndk_attach_ev *ev,
		     const char *what)
{
	uint32_t n = __atomic_load_n(&e->notify_owed, __ATOMIC_ACQUIRE);

	do {
		if (n == 0) {
			/* Never expected: every arm reserved first. */
			if (!roced_att_ev_reserve(e->owner, 1)) {
				ROCED_LOG(ERR, "attach: pid %d: %s "
					  "notification without a slot",
					  e->owner->pid, what);
				return;
			}
			break;
		}
	} while (!__atomic_compare_exchange_n(&e->notify_owed, &n, n - 1,
					      false, __ATOMIC_ACQ_REL,
					      __ATOMIC_ACQUIRE));
	roced_att_ev_put(e->owner, ev);
}

/* A connection request on an application's listener (lcore). */
static void
connect_event(void *ctx, struct ndk_connector *c)
{
	struct att_ent *l = ctx;
	struct att_app *a = l->owner;
	struct ndk_attach_ev ev = {
		.kind = NDK_ATT_EV_CONNECT,
		.connect = { .listener = l->pctx },
	};
	uint64_t h;

	if (!roced_att_ev_reserve(a, 1)) {
		a->ev_refused++;
		ndk_close_connector(c, NULL, NULL);   /* unanswered: REJ */
		return;
	}
	if (!NDK_SUCCESS(roced_att_ent_add(a->srv, l->app,
					   NDK_OBJECT_TYPE_CONNECTOR, c,
					   &h))) {
		roced_att_ev_release(a, 1);
		a->ev_refused++;
		ndk_close_connector(c, NULL, NULL);
		return;
	}
	ev.connect.conn = h;
	roced_att_ev_put(a, &ev);
}

/* ------------------------------------------------------------------ */
/* Requests: one handler per request code                              */
/* ------------------------------------------------------------------ */

/* The daemon's adapter of application @p ai. */
static struct ndk_adapter *
app_ad(struct roced_attach *s, unsigned int ai)
{
	return s->apps[ai].port->ad;
}

/* A new object in the table: its handle and address into the reply. */
static ndk_status_t
new_obj(struct roced_attach *s, unsigned int ai, uint16_t type, void *o,
	struct ndk_attach_rep *rp)
{
	uint64_t h;
	ndk_status_t st = roced_att_ent_add(s, ai, type, o, &h);

	if (!NDK_SUCCESS(st))
		return st;
	rp->new_obj.handle = h;
	rp->new_obj.obj = (uintptr_t)o;
	return st;
}

static ndk_status_t
op_create_qp(struct roced_attach *s, unsigned int ai,
	     const struct ndk_attach_req *rq, struct ndk_attach_rep *rp)
{
	const struct ndk_attach_create_qp *b = &rq->create_qp;
	struct att_ent *pd = roced_att_ent_get(s, ai, b->pd,
					       NDK_OBJECT_TYPE_PD);
	struct att_app *a = &s->apps[ai];
	struct att_ent *rc, *ic, *srq;
	struct ndk_qp *qp;
	ndk_status_t st;
	uint64_t h;

	if (pd == NULL)
		return NDK_STATUS_INVALID_HANDLE;
	rc = roced_att_ent_get(s, ai, b->rcq, NDK_OBJECT_TYPE_CQ);
	ic = roced_att_ent_get(s, ai, b->icq, NDK_OBJECT_TYPE_CQ);
	srq = b->srq == 0 ? NULL :
		roced_att_ent_get(s, ai, b->srq, NDK_OBJECT_TYPE_SRQ);
	if (rc == NULL || ic == NULL || (b->srq != 0 && srq == NULL))
		return NDK_STATUS_INVALID_HANDLE;
	if (srq != NULL)
		st = ndk_create_qp_with_srq(pd->obj, rc->obj, ic->obj,
					    srq->obj,
					    (void *)(uintptr_t)b->qp_ctx,
					    b->iq_depth, b->max_isge,
					    b->inline_size, &qp);
	else
		st = ndk_create_qp(pd->obj, rc->obj, ic->obj,
				   (void *)(uintptr_t)b->qp_ctx, b->rq_depth,
				   b->iq_depth, b->max_rsge, b->max_isge,
				   b->inline_size, &qp);
	if (!NDK_SUCCESS(st))
		return st;
	/* Its doorbells go to the application's own ring. */
	swr_attach_qp_use_db(qp, a->res.db);
	/* Its fast registers name pages of its own heap only. */
	swr_attach_qp_limit_fr(qp, a->res.va, a->res.len);
	st = roced_att_ent_add(s, ai, NDK_OBJECT_TYPE_QP, qp, &h);
	if (!NDK_SUCCESS(st)) {
		ndk_close_qp(qp, NULL, NULL);
		return st;
	}
	rp->create_qp.handle = h;
	rp->create_qp.obj = (uintptr_t)qp;
	rp->create_qp.qpn = ndk_qp_num(qp);
	return st;
}

static ndk_status_t
op_register_mr(struct roced_attach *s, unsigned int ai,
	       const struct ndk_attach_req *rq, struct ndk_attach_rep *rp)
{
	const struct ndk_attach_register_mr *b = &rq->register_mr;
	struct att_ent *e = roced_att_ent_get(s, ai, b->mr,
					      NDK_OBJECT_TYPE_MR);
	struct att_app *a = &s->apps[ai];
	ndk_status_t st;

	if (e == NULL)
		return NDK_STATUS_INVALID_HANDLE;
	/* Only the application's own buffers (its heap). */
	if (!roced_app_owns(&a->res, b->va, b->len)) {
		ROCED_LOG(ERR, "attach: application pid %d registers "
			  "[0x%" PRIx64 ", +%" PRIu64 "): not inside its heap "
			  "%s", a->pid, (uint64_t)b->va, (uint64_t)b->len,
			  a->res.heap);
		return NDK_STATUS_ACCESS_VIOLATION;
	}
	st = ndk_register_mr(e->obj, (void *)(uintptr_t)b->va, b->len,
			     b->flags);
	rp->register_mr.ltoken = ndk_mr_local_token(e->obj);
	rp->register_mr.rtoken = ndk_mr_remote_token(e->obj);
	return st;
}

static ndk_status_t
op_deregister_mr(struct roced_attach *s, unsigned int ai,
		 const struct ndk_attach_req *rq, struct ndk_attach_rep *rp)
{
	struct att_ent *e = roced_att_ent_get(s, ai, rq->obj.h,
					      NDK_OBJECT_TYPE_MR);

	RTE_SET_USED(rp);
	return e != NULL ? ndk_deregister_mr(e->obj) :
		NDK_STATUS_INVALID_HANDLE;
}

/* SUCCESS, or PENDING (EV_CLOSED follows): roced_att_ent_close(). */
static ndk_status_t
op_close(struct roced_attach *s, unsigned int ai,
	 const struct ndk_attach_req *rq, struct ndk_attach_rep *rp)
{
	struct att_ent *e = roced_att_ent_get(s, ai, rq->obj.h, 0);

	RTE_SET_USED(rp);
	if (e == NULL)
		return NDK_STATUS_INVALID_HANDLE;
	return roced_att_ent_close(s, e);
}

static ndk_status_t
op_qp_modify(struct roced_attach *s, unsigned int ai,
	     const struct ndk_attach_req *rq, struct ndk_attach_rep *rp)
{
	struct att_ent *e = roced_att_ent_get(s, ai, rq->qp_modify.qp,
					      NDK_OBJECT_TYPE_QP);
	struct ndk_qp_attr attr = rq->qp_modify.attr;

	RTE_SET_USED(rp);
	return e != NULL ? ndk_qp_modify(e->obj, &attr, rq->qp_modify.mask) :
		NDK_STATUS_INVALID_HANDLE;
}

static ndk_status_t
op_qp_query(struct roced_attach *s, unsigned int ai,
	    const struct ndk_attach_req *rq, struct ndk_attach_rep *rp)
{
	struct att_ent *e = roced_att_ent_get(s, ai, rq->obj.h,
					      NDK_OBJECT_TYPE_QP);
	struct ndk_qp_attr attr;
	ndk_status_t st;

	if (e == NULL)
		return NDK_STATUS_INVALID_HANDLE;
	memset(&attr, 0, sizeof(attr));
	st = ndk_qp_query(e->obj, &attr);
	rp->qp_query.attr = attr;
	return st;
}

static ndk_status_t
op_create_connector(struct roced_attach *s, unsigned int ai,
		    const struct ndk_attach_req *rq,
		    struct ndk_attach_rep *rp)
{
	struct ndk_connector *c;
	ndk_status_t st = ndk_create_connector(app_ad(s, ai), &c);

	RTE_SET_USED(rq);
	if (NDK_SUCCESS(st) &&
	    !NDK_SUCCESS(st = new_obj(s, ai, NDK_OBJECT_TYPE_CONNECTOR, c,
				      rp)))
		ndk_close_connector(c, NULL, NULL);
	return st;
}

static ndk_status_t
op_create_listener(struct roced_attach *s, unsigned int ai,
		   const struct ndk_attach_req *rq, struct ndk_attach_rep *rp)
{
	struct ndk_listener *l;
	struct att_ent *e;
	ndk_status_t st;
	uint64_t h;

	/* Its close may pend (connectors it handed up): EV_CLOSED. */
	if (!roced_att_ev_reserve(&s->apps[ai], 1))
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	st = roced_att_ent_add(s, ai, NDK_OBJECT_TYPE_LISTENER, NULL, &h);
	if (!NDK_SUCCESS(st)) {
		roced_att_ev_release(&s->apps[ai], 1);
		return st;
	}
	e = &s->ent[(uint32_t)h];
	e->pctx = rq->create_listener.proxy;
	e->close_owed = 1;
	st = ndk_create_listener(app_ad(s, ai), connect_event, e, &l);
	if (!NDK_SUCCESS(st)) {
		roced_att_ev_release(&s->apps[ai], 1);
		roced_att_ent_free(s, e);
		return st;
	}
	e->obj = l;
	rp->new_obj.handle = h;
	rp->new_obj.obj = 0;          /* nothing to use in shared memory */
	return NDK_STATUS_SUCCESS;
}


/*
 * Start a CM step of connector @p e whose completion (@p cb) goes to the
 * application's queue; @p disc: it also owes a disconnect event naming
 * the application's connector @p proxy.
 */
static ndk_status_t
cm_start(struct att_ent *e, unsigned int slot,
	 const struct ndk_attach_cb *cb, uint64_t proxy, bool disc,
	 struct att_areq **r)
{
	uint32_t need = 1;

	if (cb->fn == 0)
		return NDK_STATUS_INVALID_PARAMETER;
	if (disc && e->disc_owed == 0)
		need++;
	if (!roced_att_ev_reserve(e->owner, need))
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	if (need == 2)
		__atomic_store_n(&e->disc_owed, 1, __ATOMIC_RELEASE);
	if (disc)
		e->pctx = proxy;
	e->rq[slot].e = e;
	e->rq[slot].cb = *cb;
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
	   const struct ndk_attach_req *rq, struct ndk_attach_rep *rp)
{
	const struct ndk_attach_connect *b = &rq->connect;
	struct att_ent *c = roced_att_ent_get(s, ai, b->conn,
					      NDK_OBJECT_TYPE_CONNECTOR);
	union ndk_sockaddr src, dst;
	socklen_t slen, dlen;
	struct att_ent *q, *sep = NULL;
	struct att_areq *r;
	ndk_status_t st;

	RTE_SET_USED(rp);
	if (c == NULL)
		return NDK_STATUS_INVALID_HANDLE;
	q = roced_att_ent_get(s, ai, b->qp, NDK_OBJECT_TYPE_QP);
	if (b->sep != 0)
		sep = roced_att_ent_get(s, ai, b->sep,
					NDK_OBJECT_TYPE_SHARED_ENDPOINT);
	if (q == NULL || (b->sep != 0 && sep == NULL))
		return NDK_STATUS_INVALID_HANDLE;
	if (b->pdata_len > NDK_ATTACH_PDATA_MAX)
		return NDK_STATUS_INVALID_BUFFER_SIZE;
	slen = sep != NULL ? 1 : ndk_attach_addr_get(&b->src, &src);
	dlen = ndk_attach_addr_get(&b->dst, &dst);
	if (slen == 0 || dlen == 0)
		return NDK_STATUS_INVALID_ADDRESS;
	st = cm_start(c, 0, &b->cb, 0, false, &r);
	if (st != NDK_STATUS_PENDING)
		return st;
	if (sep != NULL)   /* NdkConnectWithSharedEndpoint */
		return cm_started(c, ndk_connect_with_shared_endpoint(c->obj,
			q->obj, sep->obj, &dst.sa, dlen, b->ird, b->ord,
			b->pdata_len != 0 ? b->pdata : NULL, b->pdata_len,
			cm_done, r), false);
	return cm_started(c, ndk_connect(c->obj, q->obj,
		&src.sa, slen, &dst.sa, dlen, b->ird, b->ord,
		b->pdata_len != 0 ? b->pdata : NULL, b->pdata_len, cm_done,
		r), false);
}

static ndk_status_t
op_complete_connect(struct roced_attach *s, unsigned int ai,
		    const struct ndk_attach_req *rq,
		    struct ndk_attach_rep *rp)
{
	const struct ndk_attach_complete_connect *b = &rq->complete_connect;
	struct att_ent *c = roced_att_ent_get(s, ai, b->conn,
					      NDK_OBJECT_TYPE_CONNECTOR);
	bool disc = b->disc_event != 0;
	struct att_areq *r;
	ndk_status_t st;

	RTE_SET_USED(rp);
	if (c == NULL)
		return NDK_STATUS_INVALID_HANDLE;
	st = cm_start(c, 0, &b->cb, b->proxy, disc, &r);
	if (st != NDK_STATUS_PENDING)
		return st;
	return cm_started(c, ndk_complete_connect(c->obj,
		disc ? disc_event : NULL, c, cm_done, r), disc);
}

static ndk_status_t
op_disconnect(struct roced_attach *s, unsigned int ai,
	      const struct ndk_attach_req *rq, struct ndk_attach_rep *rp)
{
	struct att_ent *c = roced_att_ent_get(s, ai, rq->disconnect.conn,
					      NDK_OBJECT_TYPE_CONNECTOR);
	struct att_areq *r;
	ndk_status_t st;

	RTE_SET_USED(rp);
	if (c == NULL)
		return NDK_STATUS_INVALID_HANDLE;
	st = cm_start(c, 1, &rq->disconnect.cb, 0, false, &r);
	if (st != NDK_STATUS_PENDING)
		return st;
	return cm_started(c, ndk_disconnect(c->obj, cm_done, r), false);
}

static ndk_status_t
op_accept(struct roced_attach *s, unsigned int ai,
	  const struct ndk_attach_req *rq, struct ndk_attach_rep *rp)
{
	const struct ndk_attach_accept *b = &rq->accept;
	struct att_ent *c = roced_att_ent_get(s, ai, b->conn,
					      NDK_OBJECT_TYPE_CONNECTOR);
	bool disc = b->disc_event != 0;
	struct att_ent *q;
	struct att_areq *r;
	ndk_status_t st;

	RTE_SET_USED(rp);
	if (c == NULL)
		return NDK_STATUS_INVALID_HANDLE;
	q = roced_att_ent_get(s, ai, b->qp, NDK_OBJECT_TYPE_QP);
	if (q == NULL)
		return NDK_STATUS_INVALID_HANDLE;
	if (b->data_len > NDK_ATTACH_DATA_MAX)
		return NDK_STATUS_INVALID_BUFFER_SIZE;
	st = cm_start(c, 0, &b->cb, b->proxy, disc, &r);
	if (st != NDK_STATUS_PENDING)
		return st;
	return cm_started(c, ndk_accept(c->obj, q->obj, b->ird, b->ord,
		b->data_len != 0 ? b->data : NULL, b->data_len,
		disc ? disc_event : NULL, c, cm_done, r), disc);
}

static ndk_status_t
op_reject(struct roced_attach *s, unsigned int ai,
	  const struct ndk_attach_req *rq, struct ndk_attach_rep *rp)
{
	const struct ndk_attach_reject *b = &rq->reject;
	struct att_ent *c = roced_att_ent_get(s, ai, b->conn,
					      NDK_OBJECT_TYPE_CONNECTOR);

	RTE_SET_USED(rp);
	if (c == NULL)
		return NDK_STATUS_INVALID_HANDLE;
	if (b->data_len > NDK_ATTACH_DATA_MAX)
		return NDK_STATUS_INVALID_BUFFER_SIZE;
	return ndk_reject(c->obj, b->data_len != 0 ? b->data : NULL,
			  b->data_len);
}

static ndk_status_t
op_conn_data(struct roced_attach *s, unsigned int ai,
	     const struct ndk_attach_req *rq, struct ndk_attach_rep *rp)
{
	struct att_ent *c = roced_att_ent_get(s, ai, rq->conn_data.conn,
					      NDK_OBJECT_TYPE_CONNECTOR);
	uint32_t ird = 0, ord = 0, len;
	ndk_status_t st;

	if (c == NULL)
		return NDK_STATUS_INVALID_HANDLE;
	len = RTE_MIN((uint32_t)rq->conn_data.want,
		      (uint32_t)sizeof(rp->conn_data.bytes));
	st = ndk_get_connection_data(c->obj, &ird, &ord, rp->conn_data.bytes,
				     &len);
	rp->conn_data.ird = ird;
	rp->conn_data.ord = ord;
	rp->conn_data.len = len;
	return st;
}

static ndk_status_t
op_conn_addr(struct roced_attach *s, unsigned int ai,
	     const struct ndk_attach_req *rq, struct ndk_attach_rep *rp)
{
	struct att_ent *c = roced_att_ent_get(s, ai, rq->obj.h,
					      NDK_OBJECT_TYPE_CONNECTOR);
	union ndk_sockaddr sa;
	socklen_t len = sizeof(sa);
	ndk_status_t st;

	if (c == NULL)
		return NDK_STATUS_INVALID_HANDLE;
	st = ndk_get_local_address(c->obj, &sa.sa, &len);
	if (!NDK_SUCCESS(st))
		return st;
	ndk_attach_addr_put(&rp->conn_addr.local, &sa);
	len = sizeof(sa);
	st = ndk_get_peer_address(c->obj, &sa.sa, &len);
	if (NDK_SUCCESS(st))
		ndk_attach_addr_put(&rp->conn_addr.peer, &sa);
	return st;
}

static ndk_status_t
op_listen(struct roced_attach *s, unsigned int ai,
	  const struct ndk_attach_req *rq, struct ndk_attach_rep *rp)
{
	struct att_ent *l = roced_att_ent_get(s, ai, rq->listen.listener,
					      NDK_OBJECT_TYPE_LISTENER);
	union ndk_sockaddr sa;
	socklen_t len;

	RTE_SET_USED(rp);
	if (l == NULL)
		return NDK_STATUS_INVALID_HANDLE;
	len = ndk_attach_addr_get(&rq->listen.addr, &sa);
	if (len == 0)
		return NDK_STATUS_INVALID_ADDRESS;
	return ndk_listen(l->obj, &sa.sa, len);
}

static ndk_status_t
op_listener_addr(struct roced_attach *s, unsigned int ai,
		 const struct ndk_attach_req *rq, struct ndk_attach_rep *rp)
{
	struct att_ent *l = roced_att_ent_get(s, ai, rq->obj.h,
					      NDK_OBJECT_TYPE_LISTENER);
	union ndk_sockaddr sa;
	socklen_t len = sizeof(sa);
	ndk_status_t st;

	if (l == NULL)
		return NDK_STATUS_INVALID_HANDLE;
	st = ndk_listener_get_local_address(l->obj, &sa.sa, &len);
	if (NDK_SUCCESS(st))
		ndk_attach_addr_put(&rp->listener_addr.addr, &sa);
	return st;
}

static ndk_status_t
op_listener_pause(struct roced_attach *s, unsigned int ai,
		  const struct ndk_attach_req *rq, struct ndk_attach_rep *rp)
{
	struct att_ent *l = roced_att_ent_get(s, ai,
					      rq->listener_pause.listener,
					      NDK_OBJECT_TYPE_LISTENER);

	RTE_SET_USED(rp);
	if (l == NULL)
		return NDK_STATUS_INVALID_HANDLE;
	return ndk_control_connect_events(l->obj,
					  rq->listener_pause.pause != 0);
}

static ndk_status_t
op_cq_arm(struct roced_attach *s, unsigned int ai,
	  const struct ndk_attach_req *rq, struct ndk_attach_rep *rp)
{
	struct att_ent *e = roced_att_ent_get(s, ai, rq->cq_arm.cq,
					      NDK_OBJECT_TYPE_CQ);
	uint32_t n;

	RTE_SET_USED(rp);
	if (e == NULL)
		return NDK_STATUS_INVALID_HANDLE;
	n = __atomic_load_n(&e->notify_owed, __ATOMIC_ACQUIRE);
	/* One pending arm and one firing notification at most are owed. */
	if (n < 2) {
		if (!roced_att_ev_reserve(e->owner, 1))
			return NDK_STATUS_INSUFFICIENT_RESOURCES;
		__atomic_fetch_add(&e->notify_owed, 1, __ATOMIC_ACQ_REL);
	}
	ndk_arm_cq(e->obj, rq->cq_arm.type);
	return NDK_STATUS_SUCCESS;
}

static ndk_status_t
op_init_fr(struct roced_attach *s, unsigned int ai,
	   const struct ndk_attach_req *rq, struct ndk_attach_rep *rp)
{
	struct att_ent *e = roced_att_ent_get(s, ai, rq->init_fr.mr,
					      NDK_OBJECT_TYPE_MR);

	RTE_SET_USED(rp);
	if (e == NULL)
		return NDK_STATUS_INVALID_HANDLE;
	return ndk_initialize_fast_register_mr(e->obj, rq->init_fr.pages,
					       rq->init_fr.remote != 0);
}

static ndk_status_t
op_create_mw(struct roced_attach *s, unsigned int ai,
	     const struct ndk_attach_req *rq, struct ndk_attach_rep *rp)
{
	struct att_ent *pd = roced_att_ent_get(s, ai, rq->obj.h,
					       NDK_OBJECT_TYPE_PD);
	struct ndk_mw *mw;
	ndk_status_t st;

	if (pd == NULL)
		return NDK_STATUS_INVALID_HANDLE;
	st = ndk_create_mw(pd->obj, &mw);
	if (NDK_SUCCESS(st) &&
	    !NDK_SUCCESS(st = new_obj(s, ai, NDK_OBJECT_TYPE_MW, mw, rp)))
		ndk_close_mw(mw, NULL, NULL);
	return st;
}

/* This application's QPs: QP numbers, or the state of one. */
static ndk_status_t
op_qp_list(struct roced_attach *s, unsigned int ai,
	   const struct ndk_attach_req *rq, struct ndk_attach_rep *rp)
{
	uint32_t total = 0, n = 0;

	for (uint32_t i = 0; i < ATT_MAX_OBJS; i++) {
		struct att_ent *e = &s->ent[i];

		if (e->type != NDK_OBJECT_TYPE_QP || e->app != ai)
			continue;
		if (total >= rq->qp_list.skip && n < NDK_ATTACH_QPN_MAX)
			rp->qp_list.qpns[n++] = ndk_qp_num(e->obj);
		total++;
	}
	rp->qp_list.total = total;
	rp->qp_list.n = n;
	return NDK_STATUS_SUCCESS;
}

static ndk_status_t
op_qp_info(struct roced_attach *s, unsigned int ai,
	   const struct ndk_attach_req *rq, struct ndk_attach_rep *rp)
{
	uint32_t qpn = rq->qp_info.qpn;
	struct ndk_qp_info info;
	ndk_status_t st;

	for (uint32_t i = 0; i < ATT_MAX_OBJS; i++) {
		struct att_ent *e = &s->ent[i];

		if (e->type != NDK_OBJECT_TYPE_QP || e->app != ai ||
		    ndk_qp_num(e->obj) != qpn)
			continue;
		memset(&info, 0, sizeof(info));
		st = ndk_qp_query_info(app_ad(s, ai), qpn, &info);
		rp->qp_info.info = info;
		return st;
	}
	/* Another application's QP is no QP of this one. */
	return NDK_STATUS_INVALID_HANDLE;
}

static ndk_status_t
op_alloc(struct roced_attach *s, unsigned int ai,
	 const struct ndk_attach_req *rq, struct ndk_attach_rep *rp)
{
	void *va;
	ndk_status_t st = roced_app_alloc(&s->apps[ai].res, rq->alloc.len,
					  rq->alloc.align, &va);

	if (NDK_SUCCESS(st))
		rp->alloc.va = (uintptr_t)va;
	return st;
}

static ndk_status_t
op_free(struct roced_attach *s, unsigned int ai,
	const struct ndk_attach_req *rq, struct ndk_attach_rep *rp)
{
	RTE_SET_USED(rp);
	return roced_app_free(&s->apps[ai].res,
			      (void *)(uintptr_t)rq->free.va);
}

/* A request's handler: decodes its body, fills its reply's. */
typedef ndk_status_t (*att_op_fn)(struct roced_attach *s, unsigned int ai,
				  const struct ndk_attach_req *rq,
				  struct ndk_attach_rep *rp);

/* Every request of an attached application but HELLO and BYE. */
static const att_op_fn att_ops[NDK_ATT_OP_MAX] = {
	[NDK_ATT_CREATE_PD] = roced_att_op_create_pd,
	[NDK_ATT_CREATE_CQ] = roced_att_op_create_cq,
	[NDK_ATT_CREATE_QP] = op_create_qp,
	[NDK_ATT_CREATE_MR] = roced_att_op_create_mr,
	[NDK_ATT_REGISTER_MR] = op_register_mr,
	[NDK_ATT_DEREGISTER_MR] = op_deregister_mr,
	[NDK_ATT_CLOSE] = op_close,
	[NDK_ATT_QP_MODIFY] = op_qp_modify,
	[NDK_ATT_QP_QUERY] = op_qp_query,
	[NDK_ATT_CREATE_CONNECTOR] = op_create_connector,
	[NDK_ATT_CONNECT] = op_connect,
	[NDK_ATT_COMPLETE_CONNECT] = op_complete_connect,
	[NDK_ATT_DISCONNECT] = op_disconnect,
	[NDK_ATT_CREATE_LISTENER] = op_create_listener,
	[NDK_ATT_LISTEN] = op_listen,
	[NDK_ATT_LISTENER_ADDR] = op_listener_addr,
	[NDK_ATT_LISTENER_PAUSE] = op_listener_pause,
	[NDK_ATT_ACCEPT] = op_accept,
	[NDK_ATT_REJECT] = op_reject,
	[NDK_ATT_CONN_DATA] = op_conn_data,
	[NDK_ATT_CONN_ADDR] = op_conn_addr,
	[NDK_ATT_CQ_ARM] = op_cq_arm,
	[NDK_ATT_INIT_FR] = op_init_fr,
	[NDK_ATT_CREATE_MW] = op_create_mw,
	[NDK_ATT_QP_LIST] = op_qp_list,
	[NDK_ATT_QP_INFO] = op_qp_info,
	[NDK_ATT_ALLOC] = op_alloc,
	[NDK_ATT_FREE] = op_free,
	[NDK_ATT_CREATE_SRQ] = roced_att_op_create_srq,
	[NDK_ATT_SRQ_MODIFY] = roced_att_op_srq_modify,
	[NDK_ATT_CQ_RESIZE] = roced_att_op_cq_resize,
	[NDK_ATT_CQ_MODERATE] = roced_att_op_cq_moderate,
	[NDK_ATT_CREATE_SEP] = roced_att_op_create_sep,
	[NDK_ATT_SEP_ADDR] = roced_att_op_sep_addr,
};

ndk_status_t
roced_att_ops(struct roced_attach *s, unsigned int ai,
	      const struct ndk_attach_req *rq, struct ndk_attach_rep *rp)
{
	if (rq->hdr.op >= RTE_DIM(att_ops) || att_ops[rq->hdr.op] == NULL)
		return NDK_STATUS_INVALID_DEVICE_REQUEST;
	return att_ops[rq->hdr.op](s, ai, rq, rp);
}
