/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * swroce connectors and listeners: the NDK objects of the connection
 * manager. Calls check their arguments on the caller's thread, then run
 * their state change on the polling thread through swr_ctl_exec(), where
 * swroce_cm_act.c sends what the protocol needs. Connector objects come
 * from the adapter's CM mempool (incoming requests take theirs on the
 * polling thread); listeners from rte_malloc.
 */

#include <netinet/in.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_mempool.h>

#include "swroce_adapter.h"
#include "swroce_cm.h"
#include "swroce_ctl.h"
#include "swroce_qp.h"

static const struct ndk_connector_dispatch swr_conn_dispatch;
static const struct ndk_listener_dispatch swr_lis_dispatch;

static inline struct swr_conn *
swr_conn_of(struct ndk_connector *c)
{
	return (struct swr_conn *)c;
}

static inline struct swr_lis *
swr_lis_of(struct ndk_listener *l)
{
	return (struct swr_lis *)l;
}

struct swr_conn *
swr_conn_alloc(struct swr_adapter *ad)
{
	struct swr_conn *c;
	uint32_t slot, gen;
	void *obj;

	if (rte_mempool_get(ad->cm->pool, &obj) != 0)
		return NULL;
	c = obj;
	/* The slot and its generation outlive the object (local IDs). */
	slot = c->slot;
	gen = c->gen;
	memset(c, 0, sizeof(*c));
	c->slot = slot;
	c->gen = gen;
	ndk_object_header_init(&c->pub.header, NDK_OBJECT_TYPE_CONNECTOR);
	c->pub.dispatch = &swr_conn_dispatch;
	c->ad = ad;
	return c;
}

void
swr_conn_free(struct swr_conn *c)
{
	c->pub.header.type = NDK_OBJECT_TYPE_UNDEFINED;
	rte_mempool_put(c->ad->cm->pool, c);
}

/** A QP can be bound if it is RESET or INIT and not bound yet. */
static bool
swr_qp_bindable(const struct swr_qp *qp, const struct swr_adapter *ad)
{
	uint32_t st = swr_qp_state(qp);

	return qp->ad == ad && qp->conn == NULL &&
		(st == NDK_QP_STATE_RESET || st == NDK_QP_STATE_INIT);
}

static void
swr_bind(struct swr_conn *c, struct swr_qp *qp)
{
	c->qp = qp;
	qp->conn = c;
	/* A failure of an earlier life of the QP is not this connection's. */
	__atomic_store_n(&qp->failed, 0, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------------ */
/* Connector calls                                                     */
/* ------------------------------------------------------------------ */

/** Arguments of every connector call, carried to the polling thread. */
struct conn_arg {
	struct swr_conn *c;
	struct swr_qp *qp;
	const union ndk_sockaddr *src, *dst;
	uint32_t ird, ord;
	const void *pdata;
	uint32_t pdata_len;
	ndk_request_completion_fn done;
	void *ctx;
	ndk_disconnect_event_fn disc;
	void *disc_ctx;
	struct swr_sep *sep;       /* ConnectWithSharedEndpoint's */
	/* out */
	uint32_t *o_ird, *o_ord;
	void *o_pdata;
	uint32_t *o_len;
	union ndk_sockaddr *o_local, *o_peer;
	struct swr_sep *o_dead_sep; /* close: an endpoint to finish */
	/* close: a listener whose pending close this one completed */
	ndk_close_completion_fn o_lis_done;
	void *o_lis_ctx;
};

/*
 * A sockaddr as a CM address (IPv4-mapped for AF_INET and for an
 * IPv4-mapped AF_INET6 address; the wildcards all-zero) and its port.
 */
void
swr_sa_in(const union ndk_sockaddr *sa, uint8_t a[16], uint16_t *port)
{
	if (sa->sa.sa_family == AF_INET6) {
		memcpy(a, &sa->sin6.sin6_addr, 16);
		*port = rte_be_to_cpu_16(sa->sin6.sin6_port);
		return;
	}
	if (sa->sin.sin_addr.s_addr == INADDR_ANY)
		memset(a, 0, 16);
	else
		ndk_roce_gid_from_ipv4(a, sa->sin.sin_addr.s_addr);
	*port = rte_be_to_cpu_16(sa->sin.sin_port);
}

/*
 * A CM address and port as a sockaddr: sockaddr_in for an IPv4 one, and
 * for the wildcard if @p family is AF_INET; sockaddr_in6 otherwise.
 */
void
swr_sa_out(union ndk_sockaddr *sa, const uint8_t a[16], uint16_t port,
	   int family)
{
	memset(sa, 0, sizeof(*sa));
	if (swr_cm_addr_v4(a) || (swr_ip6_is_zero(a) && family == AF_INET)) {
		sa->sin.sin_family = AF_INET;
		sa->sin.sin_addr.s_addr = ndk_roce_gid_to_ipv4(a);
		sa->sin.sin_port = rte_cpu_to_be_16(port);
		return;
	}
	sa->sin6.sin6_family = AF_INET6;
	memcpy(&sa->sin6.sin6_addr, a, 16);
	sa->sin6.sin6_port = rte_cpu_to_be_16(port);
}

static ndk_status_t
swr_link_ctl(struct swr_adapter *ad, void *arg)
{
	struct swr_conn *c = arg;

	RTE_SET_USED(ad);
	swr_cm_link(c);
	return NDK_STATUS_SUCCESS;
}

ndk_status_t
swr_connector_create(struct ndk_adapter *adapter, struct ndk_connector **out)
{
	struct swr_adapter *ad = swr_adapter_of(adapter);
	struct swr_conn *c = swr_conn_alloc(ad);

	if (c == NULL)
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	swr_ctl_exec(ad, swr_link_ctl, c);
	*out = &c->pub;
	return NDK_STATUS_SUCCESS;
}

void
swr_conn_bury(struct swr_conn *c)
{
	struct swr_cm *cm = c->ad->cm;

	c->closed = true;
	swr_cm_unlink(c);
	/* Freed at the end of a poll: a callback may be running on it now. */
	c->next = cm->dead_conns;
	cm->dead_conns = c;
}

static ndk_status_t
swr_conn_close_ctl(struct swr_adapter *ad, void *arg)
{
	struct conn_arg *a = arg;
	struct swr_conn *c = a->c;

	/* A request still pending completes (cancelled) on the caller. */
	a->done = c->done;
	a->ctx = c->done_ctx;
	c->done = NULL;
	swr_cm_abort(c);
	swr_conn_bury(c);
	/* Its shared endpoint's reference goes with it (port last). */
	a->o_dead_sep = swr_sep_detach(c);
	/* And its listener's: the last one completes a pending close. */
	if (c->held_lis != NULL) {
		struct swr_lis *l = c->held_lis;

		c->held_lis = NULL;
		if (swr_lis_unref(ad, l)) {
			a->o_lis_done = l->done;
			a->o_lis_ctx = l->done_ctx;
		}
	}
	return NDK_STATUS_SUCCESS;
}

static ndk_status_t
swr_conn_close(struct ndk_connector *pub, ndk_close_completion_fn done,
	       void *ctx)
{
	struct swr_conn *c = swr_conn_of(pub);
	struct conn_arg a = { .c = c };

	RTE_SET_USED(done);
	RTE_SET_USED(ctx);
	c->pub.header.type = NDK_OBJECT_TYPE_UNDEFINED;
	swr_ctl_exec(c->ad, swr_conn_close_ctl, &a);
	if (a.done != NULL)
		a.done(a.ctx, NDK_STATUS_CANCELLED);
	/* The endpoint's pending close completes (after the port went). */
	if (a.o_dead_sep != NULL)
		swr_sep_finish(a.o_dead_sep);
	/* So does the listener's whose last connector this was. */
	if (a.o_lis_done != NULL)
		a.o_lis_done(a.o_lis_ctx);
	/* Closed inline: no close completion (NDK). */
	return NDK_STATUS_SUCCESS;
}

/*
 * Bind the QP and send the REQ from (@p lip, @p port) to (@p dip,
 * @p dport), addresses checked (Connect, ConnectWithSharedEndpoint).
 */
static ndk_status_t
conn_start(struct swr_adapter *ad, struct conn_arg *a, const uint8_t lip[16],
	   uint16_t port, const uint8_t dip[16], uint16_t dport)
{
	struct swr_conn *c = a->c;
	ndk_status_t st;

	memcpy(c->lip, lip, 16);
	c->lport = port;
	memcpy(c->rip, dip, 16);
	c->rport = dport;
	c->ird = (uint8_t)RTE_MIN(a->ird, ad->info.max_inbound_read_limit);
	c->ord = (uint8_t)RTE_MIN(a->ord, ad->info.max_outbound_read_limit);
	swr_bind(c, a->qp);
	c->done = a->done;
	c->done_ctx = a->ctx;
	/* swr_cm_connect() leaves the state IDLE when it fails. */
	st = swr_cm_connect(c, a->pdata, a->pdata_len);
	if (st != NDK_STATUS_PENDING) {
		swr_cm_qp_gone(a->qp);
		c->done = NULL;
	} else {
		swr_cm_port_hold(c);
	}
	return st;
}

static ndk_status_t
swr_connect_ctl(struct swr_adapter *ad, void *arg)
{
	struct conn_arg *a = arg;
	struct swr_conn *c = a->c;
	uint8_t sip[16], dip[16], lip[16];
	uint16_t port, dport;
	ndk_status_t st;

	swr_sa_in(a->src, sip, &port);
	swr_sa_in(a->dst, dip, &dport);
	if (c->state != SWR_CM_IDLE)
		return NDK_STATUS_CONNECTION_ACTIVE;
	if (!swr_qp_bindable(a->qp, ad))
		return NDK_STATUS_INVALID_DEVICE_STATE;
	/* Our address of the peer's family (none: not reachable from here). */
	if (swr_ip6_is_zero(dip) ||
	    (!swr_cm_addr_v4(dip) && !swr_ip6_unicast(dip)) ||
	    !swr_cm_local_addr(ad, dip, lip) ||
	    (!swr_ip6_is_zero(sip) && memcmp(sip, lip, 16) != 0) ||
	    memcmp(dip, lip, 16) == 0)
		return NDK_STATUS_INVALID_ADDRESS;
	st = swr_cm_port_claim(ad, lip, &port);
	if (!NDK_SUCCESS(st))
		return st;
	return conn_start(ad, a, lip, port, dip, dport);
}

static ndk_status_t
swr_conn_connect(struct ndk_connector *pub, struct ndk_qp *qp,
		 const union ndk_sockaddr *src, const union ndk_sockaddr *dst,
		 uint32_t ird, uint32_t ord, const void *pdata,
		 uint32_t pdata_len, ndk_request_completion_fn done, void *ctx)
{
	struct swr_conn *c = swr_conn_of(pub);
	struct conn_arg a = {
		.c = c, .qp = swr_qp_of(qp), .src = src, .dst = dst,
		.ird = ird, .ord = ord, .pdata = pdata,
		.pdata_len = pdata_len, .done = done, .ctx = ctx,
	};

	if (pdata_len > SWR_CM_CALLER_DATA)
		return NDK_STATUS_INVALID_BUFFER_SIZE;
	return swr_ctl_exec(c->ad, swr_connect_ctl, &a);
}

/*
 * ConnectWithSharedEndpoint: Connect from the endpoint's address and
 * port, to a peer no other connector of the endpoint has (lcore).
 */
static ndk_status_t
swr_connect_shared_ctl(struct swr_adapter *ad, void *arg)
{
	struct conn_arg *a = arg;
	struct swr_conn *c = a->c;
	struct swr_sep *s = a->sep;
	uint8_t dip[16];
	uint16_t dport;
	ndk_status_t st;

	swr_sa_in(a->dst, dip, &dport);
	if (s->ad != ad)
		return NDK_STATUS_INVALID_PARAMETER;
	if (c->state != SWR_CM_IDLE)
		return NDK_STATUS_CONNECTION_ACTIVE;
	if (!swr_qp_bindable(a->qp, ad))
		return NDK_STATUS_INVALID_DEVICE_STATE;
	if (swr_ip6_is_zero(dip) ||
	    swr_cm_addr_v4(dip) != swr_cm_addr_v4(s->ip) ||
	    (!swr_cm_addr_v4(dip) && !swr_ip6_unicast(dip)) ||
	    memcmp(dip, s->ip, 16) == 0)
		return NDK_STATUS_INVALID_ADDRESS;
	/* NDK: one connection per four-tuple (connectors not yet closed). */
	for (struct swr_conn *o = s->conns; o != NULL; o = o->sep_next)
		if (o->rport == dport && memcmp(o->rip, dip, 16) == 0)
			return NDK_STATUS_ADDRESS_ALREADY_EXISTS;
	st = conn_start(ad, a, s->ip, s->port, dip, dport);
	if (st == NDK_STATUS_PENDING)
		swr_sep_attach(s, c);
	return st;
}

static ndk_status_t
swr_conn_connect_shared(struct ndk_connector *pub, struct ndk_qp *qp,
			struct ndk_shared_endpoint *sep,
			const union ndk_sockaddr *dst, uint32_t ird,
			uint32_t ord, const void *pdata, uint32_t pdata_len,
			ndk_request_completion_fn done, void *ctx)
{
	struct swr_conn *c = swr_conn_of(pub);
	struct conn_arg a = {
		.c = c, .qp = swr_qp_of(qp), .dst = dst, .ird = ird,
		.ord = ord, .pdata = pdata, .pdata_len = pdata_len,
		.done = done, .ctx = ctx, .sep = (struct swr_sep *)sep,
	};

	if (pdata_len > SWR_CM_CALLER_DATA)
		return NDK_STATUS_INVALID_BUFFER_SIZE;
	return swr_ctl_exec(c->ad, swr_connect_shared_ctl, &a);
}

static ndk_status_t
swr_complete_ctl(struct swr_adapter *ad, void *arg)
{
	struct conn_arg *a = arg;
	struct swr_conn *c = a->c;
	ndk_status_t st;

	RTE_SET_USED(ad);
	c->done = a->done;
	c->done_ctx = a->ctx;
	c->disc = a->disc;
	c->disc_ctx = a->disc_ctx;
	st = swr_cm_complete_connect(c);
	if (st != NDK_STATUS_PENDING)
		c->done = NULL;
	return st;
}

static ndk_status_t
swr_conn_complete(struct ndk_connector *pub, ndk_disconnect_event_fn ev,
		  void *ev_ctx, ndk_request_completion_fn done, void *ctx)
{
	struct swr_conn *c = swr_conn_of(pub);
	struct conn_arg a = { .c = c, .done = done, .ctx = ctx, .disc = ev,
			      .disc_ctx = ev_ctx };

	return swr_ctl_exec(c->ad, swr_complete_ctl, &a);
}

static ndk_status_t
swr_accept_ctl(struct swr_adapter *ad, void *arg)
{
	struct conn_arg *a = arg;
	struct swr_conn *c = a->c;
	ndk_status_t st;

	if (c->state == SWR_CM_REQ_RCVD && !swr_qp_bindable(a->qp, ad))
		return NDK_STATUS_INVALID_DEVICE_STATE;
	if (c->state == SWR_CM_REQ_RCVD) {
		c->ird = (uint8_t)RTE_MIN(a->ird,
					  ad->info.max_inbound_read_limit);
		c->ord = (uint8_t)RTE_MIN(a->ord,
					  ad->info.max_outbound_read_limit);
		swr_bind(c, a->qp);
	}
	c->done = a->done;
	c->done_ctx = a->ctx;
	c->disc = a->disc;
	c->disc_ctx = a->disc_ctx;
	st = swr_cm_accept(c, a->pdata, a->pdata_len);
	if (st != NDK_STATUS_PENDING) {
		if (c->qp == a->qp)
			swr_cm_qp_gone(a->qp);
		c->done = NULL;
		c->disc = NULL;
	}
	return st;
}

static ndk_status_t
swr_conn_accept(struct ndk_connector *pub, struct ndk_qp *qp, uint32_t ird,
		uint32_t ord, const void *pdata, uint32_t pdata_len,
		ndk_disconnect_event_fn ev, void *ev_ctx,
		ndk_request_completion_fn done, void *ctx)
{
	struct swr_conn *c = swr_conn_of(pub);
	struct conn_arg a = {
		.c = c, .qp = swr_qp_of(qp), .ird = ird, .ord = ord,
		.pdata = pdata, .pdata_len = pdata_len, .done = done,
		.ctx = ctx, .disc = ev, .disc_ctx = ev_ctx,
	};

	if (pdata_len > SWR_CM_CALLEE_DATA)
		return NDK_STATUS_INVALID_BUFFER_SIZE;
	return swr_ctl_exec(c->ad, swr_accept_ctl, &a);
}

static ndk_status_t
swr_reject_ctl(struct swr_adapter *ad, void *arg)
{
	struct conn_arg *a = arg;

	RTE_SET_USED(ad);
	return swr_cm_reject(a->c, a->pdata, a->pdata_len);
}

static ndk_status_t
swr_conn_reject(struct ndk_connector *pub, const void *pdata,
		uint32_t pdata_len)
{
	struct swr_conn *c = swr_conn_of(pub);
	struct conn_arg a = { .c = c, .pdata = pdata, .pdata_len = pdata_len };

	if (pdata_len > SWR_CM_REJECT_DATA)
		return NDK_STATUS_INVALID_BUFFER_SIZE;
	return swr_ctl_exec(c->ad, swr_reject_ctl, &a);
}

static ndk_status_t
swr_data_ctl(struct swr_adapter *ad, void *arg)
{
	struct conn_arg *a = arg;
	struct swr_conn *c = a->c;
	uint32_t have = *a->o_len;

	if (!c->pdata_valid)
		return NDK_STATUS_CONNECTION_INVALID;
	if (a->o_ird != NULL)
		*a->o_ird = c->passive ?
			RTE_MIN(c->peer_ord, ad->info.max_inbound_read_limit) :
			c->ird;
	if (a->o_ord != NULL)
		*a->o_ord = c->passive ?
			RTE_MIN(c->peer_ird, ad->info.max_outbound_read_limit) :
			c->ord;
	*a->o_len = c->pdata_len;
	if (a->o_pdata == NULL)
		return NDK_STATUS_SUCCESS;   /* size query */
	memcpy(a->o_pdata, c->pdata, RTE_MIN(have, (uint32_t)c->pdata_len));
	return have >= c->pdata_len ? NDK_STATUS_SUCCESS :
		NDK_STATUS_BUFFER_TOO_SMALL;
}

static ndk_status_t
swr_conn_data(struct ndk_connector *pub, uint32_t *ird, uint32_t *ord,
	      void *pdata, uint32_t *len)
{
	struct swr_conn *c = swr_conn_of(pub);
	struct conn_arg a = { .c = c, .o_ird = ird, .o_ord = ord,
			      .o_pdata = pdata, .o_len = len };

	return swr_ctl_exec(c->ad, swr_data_ctl, &a);
}

static ndk_status_t
swr_addr_ctl(struct swr_adapter *ad, void *arg)
{
	struct conn_arg *a = arg;
	struct swr_conn *c = a->c;

	RTE_SET_USED(ad);
	if (c->state == SWR_CM_IDLE)
		return NDK_STATUS_CONNECTION_INVALID;
	swr_sa_out(a->o_local, c->lip, c->lport, AF_INET6);
	swr_sa_out(a->o_peer, c->rip, c->rport, AF_INET6);
	return NDK_STATUS_SUCCESS;
}

static ndk_status_t
swr_conn_addresses(struct ndk_connector *pub, union ndk_sockaddr *local,
		   union ndk_sockaddr *peer)
{
	struct swr_conn *c = swr_conn_of(pub);
	struct conn_arg a = { .c = c, .o_local = local, .o_peer = peer };

	return swr_ctl_exec(c->ad, swr_addr_ctl, &a);
}

static ndk_status_t
swr_disconnect_ctl(struct swr_adapter *ad, void *arg)
{
	struct conn_arg *a = arg;
	struct swr_conn *c = a->c;
	ndk_status_t st;

	RTE_SET_USED(ad);
	if (c->done != NULL)
		return NDK_STATUS_DEVICE_BUSY;   /* a request is pending */
	c->done = a->done;
	c->done_ctx = a->ctx;
	st = swr_cm_disconnect(c);
	if (st != NDK_STATUS_PENDING)
		c->done = NULL;
	return st;
}

static ndk_status_t
swr_conn_disconnect(struct ndk_connector *pub, ndk_request_completion_fn done,
		    void *ctx)
{
	struct swr_conn *c = swr_conn_of(pub);
	struct conn_arg a = { .c = c, .done = done, .ctx = ctx };

	return swr_ctl_exec(c->ad, swr_disconnect_ctl, &a);
}

static const struct ndk_connector_dispatch swr_conn_dispatch = {
	.close = swr_conn_close,
	.connect = swr_conn_connect,
	.complete_connect = swr_conn_complete,
	.accept = swr_conn_accept,
	.reject = swr_conn_reject,
	.get_connection_data = swr_conn_data,
	.get_addresses = swr_conn_addresses,
	.disconnect = swr_conn_disconnect,
	.connect_shared = swr_conn_connect_shared,
};

/* ------------------------------------------------------------------ */
/* Listener calls                                                      */
/* ------------------------------------------------------------------ */

struct lis_arg {
	struct swr_lis *l;
	const union ndk_sockaddr *addr;
	union ndk_sockaddr *o_addr;
	bool pause;
};

static ndk_status_t
swr_lis_link_ctl(struct swr_adapter *ad, void *arg)
{
	struct swr_lis *l = arg;

	l->next = ad->cm->listeners;
	ad->cm->listeners = l;
	return NDK_STATUS_SUCCESS;
}

/* The CM's parameters, on the thread that owns its state. */
struct cm_params_arg {
	struct ndk_cm_params *params;
	bool set;
};

static ndk_status_t
swr_cm_params_ctl(struct swr_adapter *ad, void *arg)
{
	struct cm_params_arg *a = arg;

	if (a->set)
		ad->cm->params = *a->params;
	else
		*a->params = ad->cm->params;
	return NDK_STATUS_SUCCESS;
}

ndk_status_t
swr_cm_set_params(struct ndk_adapter *adapter,
		  const struct ndk_cm_params *params)
{
	struct ndk_cm_params p = *params;
	struct cm_params_arg a = { &p, true };

	return swr_ctl_exec(swr_adapter_of(adapter), swr_cm_params_ctl, &a);
}

ndk_status_t
swr_cm_get_params(struct ndk_adapter *adapter, struct ndk_cm_params *params)
{
	struct cm_params_arg a = { params, false };

	return swr_ctl_exec(swr_adapter_of(adapter), swr_cm_params_ctl, &a);
}

ndk_status_t
swr_listener_create(struct ndk_adapter *adapter, ndk_connect_event_fn event,
		    void *ctx, struct ndk_listener **out)
{
	struct swr_adapter *ad = swr_adapter_of(adapter);
	struct swr_lis *l;

	l = rte_zmalloc_socket("swr_lis", sizeof(*l), RTE_CACHE_LINE_SIZE,
			       ad->socket_id);
	if (l == NULL)
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	ndk_object_header_init(&l->pub.header, NDK_OBJECT_TYPE_LISTENER);
	l->pub.dispatch = &swr_lis_dispatch;
	l->ad = ad;
	l->event = event;
	l->event_ctx = ctx;
	l->refs = 1;          /* its own; connectors it hands up add theirs */
	swr_ctl_exec(ad, swr_lis_link_ctl, l);
	*out = &l->pub;
	return NDK_STATUS_SUCCESS;
}

/* Unlink @p l from the list at @p head (lcore). */
static void
lis_unlink(struct swr_lis **head, struct swr_lis *l)
{
	for (struct swr_lis **pp = head; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == l) {
			*pp = l->next;
			break;
		}
	}
}

bool
swr_lis_unref(struct swr_adapter *ad, struct swr_lis *l)
{
	if (--l->refs != 0)
		return false;
	/* Closed (only its close drops its own reference): freed at the
	 * end of the poll, when no callback can be running on it. */
	lis_unlink(&ad->cm->pend_lis, l);
	l->next = ad->cm->dead_lis;
	ad->cm->dead_lis = l;
	return true;
}

void
swr_lis_fini(struct swr_adapter *ad)
{
	struct swr_cm *cm = ad->cm;

	while (cm->listeners != NULL) {
		struct swr_lis *l = cm->listeners;

		cm->listeners = l->next;
		l->pub.header.type = NDK_OBJECT_TYPE_UNDEFINED;
		rte_free(l);
	}
	while (cm->dead_lis != NULL) {
		struct swr_lis *l = cm->dead_lis;

		cm->dead_lis = l->next;
		rte_free(l);
	}
	/* Closes pending on connectors left open: those die with the
	 * adapter, and the completion is the listener's last callback. */
	while (cm->pend_lis != NULL) {
		struct swr_lis *l = cm->pend_lis;

		cm->pend_lis = l->next;
		if (l->done != NULL)
			l->done(l->done_ctx);
		rte_free(l);
	}
}

/*
 * No more connect events: off the list, and requests not yet handed out
 * are refused at delivery. Its own reference goes; connectors it handed
 * up keep theirs (STATUS_PENDING: the last one's close completes it).
 */
static ndk_status_t
swr_lis_close_ctl(struct swr_adapter *ad, void *arg)
{
	struct swr_lis *l = arg;

	l->closed = true;
	lis_unlink(&ad->cm->listeners, l);
	for (struct swr_conn *c = ad->cm->conns; c != NULL; c = c->next)
		if (c->lis == l)
			c->lis = NULL;
	l->next = ad->cm->pend_lis;
	ad->cm->pend_lis = l;
	return swr_lis_unref(ad, l) ? NDK_STATUS_SUCCESS : NDK_STATUS_PENDING;
}

static ndk_status_t
swr_lis_close(struct ndk_listener *pub, ndk_close_completion_fn done,
	      void *ctx)
{
	struct swr_lis *l = swr_lis_of(pub);
	ndk_status_t st;

	/* Set before the last connector's close can complete it. */
	l->done = done;
	l->done_ctx = ctx;
	l->pub.header.type = NDK_OBJECT_TYPE_UNDEFINED;
	st = swr_ctl_exec(l->ad, swr_lis_close_ctl, l);
	if (st == NDK_STATUS_PENDING)
		NDK_LOG(DEBUG, "%s: listener close pending: connectors it "
			"handed up are open", l->ad->name);
	/* Inline: no completion (NDK). */
	return st;
}

static ndk_status_t
swr_listen_ctl(struct swr_adapter *ad, void *arg)
{
	struct lis_arg *a = arg;
	struct swr_lis *l = a->l;
	uint8_t ip[16], lip[16];
	uint16_t port;
	ndk_status_t st;

	swr_sa_in(a->addr, ip, &port);
	if (l->listening)
		return NDK_STATUS_INVALID_DEVICE_STATE;
	/* The wildcard, or our address of that family. */
	if (!swr_ip6_is_zero(ip) && (!swr_cm_local_addr(ad, ip, lip) ||
				     memcmp(ip, lip, 16) != 0))
		return NDK_STATUS_INVALID_ADDRESS;
	st = swr_cm_port_claim(ad, ip, &port);
	if (!NDK_SUCCESS(st))
		return st;
	memcpy(l->ip, ip, 16);
	l->family = a->addr->sa.sa_family;
	l->port = port;
	l->listening = true;
	return NDK_STATUS_SUCCESS;
}

static ndk_status_t
swr_lis_listen(struct ndk_listener *pub, const union ndk_sockaddr *addr)
{
	struct swr_lis *l = swr_lis_of(pub);
	struct lis_arg a = { .l = l, .addr = addr };

	return swr_ctl_exec(l->ad, swr_listen_ctl, &a);
}

static ndk_status_t
swr_lis_addr_ctl(struct swr_adapter *ad, void *arg)
{
	struct lis_arg *a = arg;

	RTE_SET_USED(ad);
	if (!a->l->listening)
		return NDK_STATUS_INVALID_DEVICE_STATE;
	swr_sa_out(a->o_addr, a->l->ip, a->l->port, a->l->family);
	return NDK_STATUS_SUCCESS;
}

static ndk_status_t
swr_lis_addr(struct ndk_listener *pub, union ndk_sockaddr *addr)
{
	struct swr_lis *l = swr_lis_of(pub);
	struct lis_arg a = { .l = l, .o_addr = addr };

	return swr_ctl_exec(l->ad, swr_lis_addr_ctl, &a);
}

static ndk_status_t
swr_lis_pause_ctl(struct swr_adapter *ad, void *arg)
{
	struct lis_arg *a = arg;

	RTE_SET_USED(ad);
	a->l->paused = a->pause;
	return NDK_STATUS_SUCCESS;
}

static ndk_status_t
swr_lis_pause(struct ndk_listener *pub, bool pause)
{
	struct swr_lis *l = swr_lis_of(pub);
	struct lis_arg a = { .l = l, .pause = pause };

	return swr_ctl_exec(l->ad, swr_lis_pause_ctl, &a);
}

static const struct ndk_listener_dispatch swr_lis_dispatch = {
	.close = swr_lis_close,
	.listen = swr_lis_listen,
	.get_local_address = swr_lis_addr,
	.control_connect_events = swr_lis_pause,
};
