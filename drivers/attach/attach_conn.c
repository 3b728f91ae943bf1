/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The attach provider's connection management and events: connectors and
 * listeners are daemon objects driven over rte_mp; no request waits for
 * the network. A CM step (connect, complete connect, accept, disconnect)
 * answers STATUS_PENDING at once and the daemon later queues its
 * completion in this application's event ring (struct ndk_attach_evq, in
 * shared memory, made at HELLO), with connection requests, disconnect
 * events, CQ and SRQ notifications and the completions of closes that
 * pended (listeners, shared endpoints, SRQs). Shared endpoints are here
 * too. ndk_adapter_poll() drains the ring here
 * and calls the application's callbacks. See doc/attach.md.
 */

#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "attach_priv.h"

#define ATT_EV_BURST 32

static const struct ndk_listener_dispatch att_lis_ops;

/* ------------------------------------------------------------------ */
/* Events                                                              */
/* ------------------------------------------------------------------ */

/* A connection request: a proxy for the daemon's new connector. */
static void
att_ev_connect(struct att_adapter *aa, const struct ndk_attach_ev *ev)
{
	struct att_obj *l = (struct att_obj *)(uintptr_t)ev->connect.listener;
	struct att_obj *c = NULL;

	/* A listener closed meanwhile owes no more connect events. */
	if (l->pub.header.type == NDK_OBJECT_TYPE_LISTENER)
		c = att_new(aa, NDK_OBJECT_TYPE_CONNECTOR, &att_conn_ops,
			    ev->connect.conn, 0);
	if (c == NULL) {
		struct ndk_attach_req rq = { .hdr.op = NDK_ATT_CLOSE };
		struct ndk_attach_rep rp;

		rq.obj.h = ev->connect.conn; /* closed unanswered: rejected */
		att_call(aa, &rq, &rp);
		return;
	}
	((ndk_connect_event_fn)l->fn)(l->fn_ctx, &c->pub.conn);
}

static void
att_ev_deliver(struct att_adapter *aa, const struct ndk_attach_ev *ev)
{
	struct att_obj *o;

	switch (ev->kind) {
	case NDK_ATT_EV_DONE:
		((ndk_request_completion_fn)(uintptr_t)ev->done.cb.fn)(
			(void *)(uintptr_t)ev->done.cb.ctx, ev->done.status);
		break;
	case NDK_ATT_EV_CONNECT:
		att_ev_connect(aa, ev);
		break;
	case NDK_ATT_EV_DISCONNECT:
		o = (struct att_obj *)(uintptr_t)ev->disconnect.conn;
		/* Not after the connector's close (NDK: at most once). */
		if (o->pub.header.type == NDK_OBJECT_TYPE_CONNECTOR &&
		    o->disc_fn != NULL)
			((ndk_disconnect_event_fn)o->disc_fn)(
				o->disc_ctx, ev->disconnect.reason);
		break;
	case NDK_ATT_EV_CQ:
		o = (struct att_obj *)(uintptr_t)ev->cq.cq;
		/* A closing CQ owes no more notifications. */
		if (o->pub.header.type == NDK_OBJECT_TYPE_CQ && o->fn != NULL)
			((ndk_cq_notify_fn)o->fn)(o->fn_ctx, ev->cq.status);
		break;
	case NDK_ATT_EV_SRQ:
		o = (struct att_obj *)(uintptr_t)ev->srq.srq;
		/* Nor a closing SRQ. */
		if (o->pub.header.type == NDK_OBJECT_TYPE_SRQ && o->fn != NULL)
			((ndk_srq_notify_fn)o->fn)(o->fn_ctx, ev->srq.status);
		break;
	case NDK_ATT_EV_CLOSED:
		/* Its last event: nothing names it after this one. */
		att_close_done(aa, (struct att_obj *)(uintptr_t)
			       ev->closed.obj);
		break;
	default:
		NDK_LOG(ERR, "attach: unknown event %u from the daemon",
			ev->kind);
		break;
	}
}

static void
att_graves_free_list(struct att_obj *o)
{
	while (o != NULL) {
		struct att_obj *n = o->next;

		free(o);
		o = n;
	}
}

unsigned int
att_events(struct att_adapter *aa)
{
	struct ndk_attach_ev ev[ATT_EV_BURST];
	struct att_obj *dead;
	unsigned int total = 0, n;

	if (aa->evq == NULL)
		return 0;
	/* Proxies closed before this drain: no event names them after it. */
	dead = __atomic_load_n(&aa->grave, __ATOMIC_ACQUIRE);
	if (dead == NULL && rte_ring_count(aa->evq->ring) == 0)
		return 0;                 /* the common case: nothing to do */
	/* One drainer at a time (the ring has a single consumer). */
	if (__atomic_exchange_n(&aa->draining, 1, __ATOMIC_ACQUIRE) != 0)
		return 0;
	do {
		n = rte_ring_sc_dequeue_burst_elem(aa->evq->ring, ev,
						   sizeof(ev[0]), ATT_EV_BURST,
						   NULL);
		if (n == 0)
			break;
		__atomic_fetch_sub(&aa->evq->used, n, __ATOMIC_RELEASE);
		for (unsigned int i = 0; i < n; i++)
			att_ev_deliver(aa, &ev[i]);
		total += n;
	} while (n == ATT_EV_BURST);
	if (dead != NULL && rte_ring_count(aa->evq->ring) == 0) {
		struct att_obj **pp;

		rte_spinlock_lock(&aa->cb_lock);
		for (pp = &aa->grave; *pp != NULL && *pp != dead;
		     pp = &(*pp)->next)
			;
		*pp = NULL;                /* cut the list at dead */
		rte_spinlock_unlock(&aa->cb_lock);
		att_graves_free_list(dead);
	}
	__atomic_store_n(&aa->draining, 0, __ATOMIC_RELEASE);
	return total;
}

void
att_graves_free(struct att_adapter *aa)
{
	att_graves_free_list(aa->grave);
	aa->grave = NULL;
}

/* ------------------------------------------------------------------ */
/* CQ with a notification callback                                     */
/* ------------------------------------------------------------------ */

/*
 * Create an object whose events name its proxy (CQ, listener, SRQ,
 * shared endpoint; PD and MR, whose close may pend: EV_CLOSED): the
 * proxy exists before the request, as its context.
 */
ndk_status_t
att_create_evobj(struct att_adapter *aa, struct ndk_attach_req *rq,
		 enum ndk_object_type type, const void *ops, void *fn,
		 void *ctx, struct att_obj **out)
{
	struct ndk_attach_rep rp;
	struct att_obj *o = calloc(1, sizeof(*o));
	ndk_status_t st;

	if (o == NULL)
		return NDK_STATUS_NO_MEMORY;
	if (rq->hdr.op == NDK_ATT_CREATE_CQ)
		rq->create_cq.proxy = (uintptr_t)o;
	else if (rq->hdr.op == NDK_ATT_CREATE_SRQ)
		rq->create_srq.proxy = (uintptr_t)o;
	else if (rq->hdr.op == NDK_ATT_CREATE_SEP)
		rq->create_sep.proxy = (uintptr_t)o;
	else if (rq->hdr.op == NDK_ATT_CREATE_PD)
		rq->create_pd.proxy = (uintptr_t)o;
	else if (rq->hdr.op == NDK_ATT_CREATE_MR)
		rq->create_mr.proxy = (uintptr_t)o;
	else
		rq->create_listener.proxy = (uintptr_t)o;
	st = att_call(aa, rq, &rp);
	if (!NDK_SUCCESS(st)) {
		free(o);
		return st;
	}
	ndk_object_header_init(&o->pub.header, type);
	o->pub.pd.dispatch = ops;     /* { header, dispatch, ... } */
	o->aa = aa;
	o->h = rp.new_obj.handle;
	o->shared = (void *)(uintptr_t)rp.new_obj.obj;
	o->fn = fn;
	o->fn_ctx = ctx;
	att_link(o);
	*out = o;
	return NDK_STATUS_SUCCESS;
}

ndk_status_t
att_create_cq(struct ndk_adapter *a, uint32_t depth,
	      ndk_cq_notify_fn notify, void *ctx, struct ndk_cq **cq)
{
	struct ndk_attach_req rq = { .hdr.op = NDK_ATT_CREATE_CQ };

	rq.create_cq.depth = depth;
	rq.create_cq.notify = notify != NULL; /* the daemon: by events */
	return att_create_evobj(att_ad(a), &rq, NDK_OBJECT_TYPE_CQ,
				&att_cq_ops, (void *)notify, ctx,
				(struct att_obj **)cq);
}

/*
 * Arming runs at the daemon: swroce may find the arm satisfied at once
 * and call the notification from inside the arm, which must happen in
 * the process whose function pointer the CQ holds.
 */
void
att_cq_arm(struct ndk_cq *cq, uint32_t type)
{
	struct att_obj *o = att_obj(cq);
	struct ndk_attach_req rq = { .hdr.op = NDK_ATT_CQ_ARM };
	struct ndk_attach_rep rp;
	ndk_status_t st;

	if (o->fn == NULL)
		return;                   /* nothing to notify */
	rq.cq_arm.cq = o->h;
	rq.cq_arm.type = type;
	st = att_call(o->aa, &rq, &rp);
	if (!NDK_SUCCESS(st))
		NDK_LOG(ERR, "attach: arm CQ: %s", ndk_status_str(st));
}

/* ------------------------------------------------------------------ */
/* Connector                                                           */
/* ------------------------------------------------------------------ */

static ndk_status_t
att_conn_close(struct ndk_connector *c, ndk_close_completion_fn done,
	       void *ctx)
{
	return att_close(c, done, ctx);
}

/*
 * A CM step: the daemon starts it and answers STATUS_PENDING (the
 * completion then comes as an event) or fails it inline.
 */
static ndk_status_t
att_conn_step(struct att_obj *o, struct ndk_attach_req *rq,
	      ndk_request_completion_fn done)
{
	struct ndk_attach_rep rp;

	if (done == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	return att_call(o->aa, rq, &rp);
}

/* The completion callback of a CM step, as the daemon carries it. */
static struct ndk_attach_cb
att_cb_of(ndk_request_completion_fn done, void *ctx)
{
	struct ndk_attach_cb cb = {
		.fn = (uintptr_t)done, .ctx = (uintptr_t)ctx,
	};

	return cb;
}

/*
 * CONNECT from @p sep (NdkConnectWithSharedEndpoint) or, NULL, from
 * @p src (NdkConnect).
 */
static ndk_status_t
att_connect_from(struct ndk_connector *c, struct ndk_qp *qp,
		 struct ndk_shared_endpoint *sep,
		 const union ndk_sockaddr *src, const union ndk_sockaddr *dst,
		 uint32_t ird, uint32_t ord, const void *pdata,
		 uint32_t pdata_len, ndk_request_completion_fn done, void *ctx)
{
	struct ndk_attach_req rq = { .hdr.op = NDK_ATT_CONNECT };

	if (qp->dispatch != &att_qp_ops ||
	    (sep != NULL && sep->dispatch != &att_sep_ops))
		return NDK_STATUS_INVALID_HANDLE;
	if (pdata_len > NDK_ATTACH_PDATA_MAX)
		return NDK_STATUS_INVALID_BUFFER_SIZE;
	rq.connect.conn = att_obj(c)->h;
	rq.connect.qp = att_obj(qp)->h;
	rq.connect.cb = att_cb_of(done, ctx);
	if (sep != NULL)
		rq.connect.sep = att_obj(sep)->h;
	else
		ndk_attach_addr_put(&rq.connect.src, src);
	ndk_attach_addr_put(&rq.connect.dst, dst);
	rq.connect.pdata_len = pdata_len;
	if (pdata_len != 0)
		memcpy(rq.connect.pdata, pdata, pdata_len);
	rq.connect.ird = ird;
	rq.connect.ord = ord;
	return att_conn_step(att_obj(c), &rq, done);
}

static ndk_status_t
att_connect_shared(struct ndk_connector *c, struct ndk_qp *qp,
		   struct ndk_shared_endpoint *sep,
		   const union ndk_sockaddr *dst, uint32_t ird, uint32_t ord,
		   const void *pdata, uint32_t pdata_len,
		   ndk_request_completion_fn done, void *ctx)
{
	return att_connect_from(c, qp, sep, NULL, dst, ird, ord, pdata,
				pdata_len, done, ctx);
}

static ndk_status_t
att_connect(struct ndk_connector *c, struct ndk_qp *qp,
	    const union ndk_sockaddr *src, const union ndk_sockaddr *dst,
	    uint32_t ird, uint32_t ord, const void *pdata, uint32_t pdata_len,
	    ndk_request_completion_fn done, void *ctx)
{
	return att_connect_from(c, qp, NULL, src, dst, ird, ord, pdata,
				pdata_len, done, ctx);
}

/*
 * Remember the disconnect event (the daemon reserves its slot and names
 * the proxy in it). @return whether one is wanted.
 */
static uint32_t
att_conn_disc(struct att_obj *o, ndk_disconnect_event_fn ev, void *ev_ctx)
{
	o->disc_fn = (void *)ev;
	o->disc_ctx = ev_ctx;
	return ev != NULL;
}

static ndk_status_t
att_complete_connect(struct ndk_connector *c, ndk_disconnect_event_fn ev,
		     void *ev_ctx, ndk_request_completion_fn done, void *ctx)
{
	struct ndk_attach_req rq = { .hdr.op = NDK_ATT_COMPLETE_CONNECT };

	rq.complete_connect.conn = att_obj(c)->h;
	rq.complete_connect.cb = att_cb_of(done, ctx);
	rq.complete_connect.proxy = (uintptr_t)c;
	rq.complete_connect.disc_event = att_conn_disc(att_obj(c), ev, ev_ctx);
	return att_conn_step(att_obj(c), &rq, done);
}

static ndk_status_t
att_disconnect(struct ndk_connector *c, ndk_request_completion_fn done,
	       void *ctx)
{
	struct ndk_attach_req rq = { .hdr.op = NDK_ATT_DISCONNECT };

	rq.disconnect.conn = att_obj(c)->h;
	rq.disconnect.cb = att_cb_of(done, ctx);
	return att_conn_step(att_obj(c), &rq, done);
}

static ndk_status_t
att_accept(struct ndk_connector *c, struct ndk_qp *qp, uint32_t ird,
	   uint32_t ord, const void *pdata, uint32_t pdata_len,
	   ndk_disconnect_event_fn ev, void *ev_ctx,
	   ndk_request_completion_fn done, void *ctx)
{
	struct ndk_attach_req rq = { .hdr.op = NDK_ATT_ACCEPT };

	if (qp->dispatch != &att_qp_ops)
		return NDK_STATUS_INVALID_HANDLE;
	if (pdata_len > NDK_ATTACH_DATA_MAX) {
		NDK_LOG(ERR, "attach: Accept carries at most %u bytes of "
			"private data attached (%u asked)",
			NDK_ATTACH_DATA_MAX, pdata_len);
		return NDK_STATUS_INVALID_BUFFER_SIZE;
	}
	if (pdata_len != 0 && pdata == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	rq.accept.conn = att_obj(c)->h;
	rq.accept.qp = att_obj(qp)->h;
	rq.accept.cb = att_cb_of(done, ctx);
	rq.accept.proxy = (uintptr_t)c;
	rq.accept.ird = ird;
	rq.accept.ord = ord;
	rq.accept.data_len = pdata_len;
	if (pdata_len != 0)
		memcpy(rq.accept.data, pdata, pdata_len);
	rq.accept.disc_event = att_conn_disc(att_obj(c), ev, ev_ctx);
	return att_conn_step(att_obj(c), &rq, done);
}

static ndk_status_t
att_reject(struct ndk_connector *c, const void *pdata, uint32_t pdata_len)
{
	struct ndk_attach_req rq = { .hdr.op = NDK_ATT_REJECT };
	struct ndk_attach_rep rp;

	if (pdata_len > NDK_ATTACH_DATA_MAX) {
		NDK_LOG(ERR, "attach: Reject carries at most %u bytes of "
			"private data attached (%u asked)",
			NDK_ATTACH_DATA_MAX, pdata_len);
		return NDK_STATUS_INVALID_BUFFER_SIZE;
	}
	if (pdata_len != 0 && pdata == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	rq.reject.conn = att_obj(c)->h;
	rq.reject.data_len = pdata_len;
	if (pdata_len != 0)
		memcpy(rq.reject.data, pdata, pdata_len);
	return att_call(att_obj(c)->aa, &rq, &rp);
}

static inline uint32_t
att_min3(uint32_t a, uint32_t b, uint32_t c)
{
	return a < b ? (a < c ? a : c) : (b < c ? b : c);
}

static ndk_status_t
att_conn_data(struct ndk_connector *c, uint32_t *ird, uint32_t *ord,
	      void *pdata, uint32_t *pdata_len)
{
	struct ndk_attach_req rq = { .hdr.op = NDK_ATT_CONN_DATA };
	struct ndk_attach_rep rp;
	uint32_t want = pdata_len != NULL ? *pdata_len : 0;
	ndk_status_t st;

	rq.conn_data.conn = att_obj(c)->h;
	rq.conn_data.want = want;
	st = att_call(att_obj(c)->aa, &rq, &rp);
	if (st != NDK_STATUS_SUCCESS && st != NDK_STATUS_BUFFER_TOO_SMALL)
		return st;
	if (ird != NULL)
		*ird = rp.conn_data.ird;
	if (ord != NULL)
		*ord = rp.conn_data.ord;
	if (pdata_len != NULL) {
		if (pdata != NULL)
			memcpy(pdata, rp.conn_data.bytes, att_min3(want,
			       rp.conn_data.len,
			       (uint32_t)sizeof(rp.conn_data.bytes)));
		*pdata_len = rp.conn_data.len;
	}
	return st;
}

static ndk_status_t
att_conn_addresses(struct ndk_connector *c, union ndk_sockaddr *local,
		   union ndk_sockaddr *peer)
{
	struct ndk_attach_req rq = { .hdr.op = NDK_ATT_CONN_ADDR };
	struct ndk_attach_rep rp;
	ndk_status_t st;

	rq.obj.h = att_obj(c)->h;
	st = att_call(att_obj(c)->aa, &rq, &rp);
	if (!NDK_SUCCESS(st))
		return st;
	if ((local != NULL &&
	     ndk_attach_addr_get(&rp.conn_addr.local, local) == 0) ||
	    (peer != NULL && ndk_attach_addr_get(&rp.conn_addr.peer, peer) == 0))
		return NDK_STATUS_INTERNAL_ERROR;
	return NDK_STATUS_SUCCESS;
}

const struct ndk_connector_dispatch att_conn_ops = {
	.close = att_conn_close,
	.connect = att_connect,
	.complete_connect = att_complete_connect,
	.accept = att_accept,
	.reject = att_reject,
	.get_connection_data = att_conn_data,
	.get_addresses = att_conn_addresses,
	.disconnect = att_disconnect,
	.connect_shared = att_connect_shared,
};

/* ------------------------------------------------------------------ */
/* Listener                                                            */
/* ------------------------------------------------------------------ */

ndk_status_t
att_create_listener(struct ndk_adapter *a, ndk_connect_event_fn ev,
		    void *ctx, struct ndk_listener **l)
{
	struct ndk_attach_req rq = { .hdr.op = NDK_ATT_CREATE_LISTENER };

	if (ev == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	return att_create_evobj(att_ad(a), &rq, NDK_OBJECT_TYPE_LISTENER,
				&att_lis_ops, (void *)ev, ctx,
				(struct att_obj **)l);
}

static ndk_status_t
att_lis_close(struct ndk_listener *l, ndk_close_completion_fn done,
	      void *ctx)
{
	return att_close(l, done, ctx);
}

static ndk_status_t
att_listen(struct ndk_listener *l, const union ndk_sockaddr *addr)
{
	struct ndk_attach_req rq = { .hdr.op = NDK_ATT_LISTEN };
	struct ndk_attach_rep rp;

	rq.listen.listener = att_obj(l)->h;
	ndk_attach_addr_put(&rq.listen.addr, addr);
	return att_call(att_obj(l)->aa, &rq, &rp);
}

/* The local address of listener or endpoint @p o (request @p op). */
static ndk_status_t
att_local_addr(struct att_obj *o, uint16_t op, union ndk_sockaddr *addr)
{
	struct ndk_attach_req rq = { .hdr.op = op };
	struct ndk_attach_rep rp;
	ndk_status_t st;

	rq.obj.h = o->h;
	st = att_call(o->aa, &rq, &rp);
	if (!NDK_SUCCESS(st))
		return st;
	return ndk_attach_addr_get(&rp.listener_addr.addr, addr) != 0 ?
		NDK_STATUS_SUCCESS : NDK_STATUS_INTERNAL_ERROR;
}

static ndk_status_t
att_lis_addr(struct ndk_listener *l, union ndk_sockaddr *addr)
{
	return att_local_addr(att_obj(l), NDK_ATT_LISTENER_ADDR, addr);
}

static ndk_status_t
att_lis_pause(struct ndk_listener *l, bool pause)
{
	struct ndk_attach_req rq = { .hdr.op = NDK_ATT_LISTENER_PAUSE };
	struct ndk_attach_rep rp;

	rq.listener_pause.listener = att_obj(l)->h;
	rq.listener_pause.pause = pause;
	return att_call(att_obj(l)->aa, &rq, &rp);
}

static const struct ndk_listener_dispatch att_lis_ops = {
	.close = att_lis_close,
	.listen = att_listen,
	.get_local_address = att_lis_addr,
	.control_connect_events = att_lis_pause,
};

/* ------------------------------------------------------------------ */
/* Shared endpoint                                                     */
/* ------------------------------------------------------------------ */

ndk_status_t
att_create_sep(struct ndk_adapter *a, const union ndk_sockaddr *addr,
	       struct ndk_shared_endpoint **sep)
{
	struct ndk_attach_req rq = { .hdr.op = NDK_ATT_CREATE_SEP };

	ndk_attach_addr_put(&rq.create_sep.addr, addr);
	return att_create_evobj(att_ad(a), &rq,
				NDK_OBJECT_TYPE_SHARED_ENDPOINT, &att_sep_ops,
				NULL, NULL, (struct att_obj **)sep);
}

/* STATUS_PENDING while connectors connected through it are open. */
static ndk_status_t
att_sep_close(struct ndk_shared_endpoint *sep, ndk_close_completion_fn done,
	      void *ctx)
{
	return att_close(sep, done, ctx);
}

static ndk_status_t
att_sep_addr(struct ndk_shared_endpoint *sep, union ndk_sockaddr *addr)
{
	return att_local_addr(att_obj(sep), NDK_ATT_SEP_ADDR, addr);
}

const struct ndk_shared_endpoint_dispatch att_sep_ops = {
	.close = att_sep_close,
	.get_local_address = att_sep_addr,
};
