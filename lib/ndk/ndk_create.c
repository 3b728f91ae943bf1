/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * libndk: asynchronous creation (NDK's CreateCompletion). A create given
 * a completion is handed to the EAL's interrupt thread (an EAL alarm of
 * 1 us) and returns STATUS_PENDING; there the ordinary create runs, for
 * any provider, and its outcome goes to the completion. Without a
 * completion, or in a DPDK secondary process (an attached application:
 * its creates are requests to the daemon, made on the caller's thread),
 * the create completes inline, as NDK allows. ndk_adapter_close() lives
 * here: it waits until no deferred create is left before the provider
 * closes the adapter.
 */

#include <stdlib.h>
#include <string.h>

#include <rte_alarm.h>
#include <rte_cycles.h>
#include <rte_eal.h>

#include "ndk_provider.h"

/* Deferred creates not yet completed, all adapters together. */
static uint32_t create_pending;

enum create_kind {
	CK_CQ, CK_PD, CK_MR, CK_MW, CK_QP, CK_SRQ, CK_QP_SRQ,
	CK_CONNECTOR, CK_LISTENER, CK_SEP,
};

/* A create and its arguments, copied for the interrupt thread. */
struct create_req {
	enum create_kind kind;
	ndk_create_completion_fn done;
	void *ctx;
	struct ndk_adapter *adapter;
	struct ndk_pd *pd;
	struct ndk_cq *rcq, *icq;
	struct ndk_srq *srq;
	void *cb_ctx;             /* notify / QPContext / connect-event ctx */
	ndk_cq_notify_fn cq_notify;
	ndk_srq_notify_fn srq_notify;
	ndk_connect_event_fn connect_event;
	uint32_t n[5];            /* depths, SGE counts, inline size ... */
	bool fast_register;
	union ndk_sockaddr addr;  /* CK_SEP */
	socklen_t addr_len;
};

/* Run the create @p r describes (any thread). */
static ndk_status_t
create_run(const struct create_req *r, struct ndk_object_header **obj)
{
	ndk_status_t st = NDK_STATUS_INVALID_PARAMETER;

	*obj = NULL;
	switch (r->kind) {
	case CK_CQ: {
		struct ndk_cq *o = NULL;

		st = ndk_create_cq(r->adapter, r->n[0], r->cq_notify,
				   r->cb_ctx, &o);
		*obj = o != NULL ? &o->header : NULL;
		break;
	}
	case CK_PD: {
		struct ndk_pd *o = NULL;

		st = ndk_create_pd(r->adapter, &o);
		*obj = o != NULL ? &o->header : NULL;
		break;
	}
	case CK_MR: {
		struct ndk_mr *o = NULL;

		st = ndk_create_mr(r->pd, r->fast_register, &o);
		*obj = o != NULL ? &o->header : NULL;
		break;
	}
	case CK_MW: {
		struct ndk_mw *o = NULL;

		st = ndk_create_mw(r->pd, &o);
		*obj = o != NULL ? &o->header : NULL;
		break;
	}
	case CK_QP: {
		struct ndk_qp *o = NULL;

		st = ndk_create_qp(r->pd, r->rcq, r->icq, r->cb_ctx, r->n[0],
				   r->n[1], r->n[2], r->n[3], r->n[4], &o);
		*obj = o != NULL ? &o->header : NULL;
		break;
	}
	case CK_SRQ: {
		struct ndk_srq *o = NULL;

		st = ndk_create_srq(r->pd, r->n[0], r->n[1], r->n[2],
				    r->srq_notify, r->cb_ctx, &o);
		*obj = o != NULL ? &o->header : NULL;
		break;
	}
	case CK_QP_SRQ: {
		struct ndk_qp *o = NULL;

		st = ndk_create_qp_with_srq(r->pd, r->rcq, r->icq, r->srq,
					    r->cb_ctx, r->n[0], r->n[1],
					    r->n[2], &o);
		*obj = o != NULL ? &o->header : NULL;
		break;
	}
	case CK_CONNECTOR: {
		struct ndk_connector *o = NULL;

		st = ndk_create_connector(r->adapter, &o);
		*obj = o != NULL ? &o->header : NULL;
		break;
	}
	case CK_LISTENER: {
		struct ndk_listener *o = NULL;

		st = ndk_create_listener(r->adapter, r->connect_event,
					 r->cb_ctx, &o);
		*obj = o != NULL ? &o->header : NULL;
		break;
	}
	case CK_SEP: {
		struct ndk_shared_endpoint *o = NULL;

		st = ndk_create_shared_endpoint(r->adapter, &r->addr.sa,
						r->addr_len, &o);
		*obj = o != NULL ? &o->header : NULL;
		break;
	}
	}
	if (!NDK_SUCCESS(st))
		*obj = NULL;
	return st;
}

/* EAL alarm (the interrupt thread): one deferred create. */
static void
create_alarm(void *arg)
{
	struct create_req *r = arg;
	struct ndk_object_header *obj;
	ndk_status_t st = create_run(r, &obj);

	r->done(r->ctx, st, obj);
	free(r);
	/* After the completion returned: ndk_adapter_close() may go on. */
	__atomic_sub_fetch(&create_pending, 1, __ATOMIC_RELEASE);
}

/* Defer @p r to the interrupt thread. @return PENDING or why not. */
static ndk_status_t
create_submit(const struct create_req *r)
{
	struct create_req *copy;

	copy = malloc(sizeof(*copy));
	if (copy == NULL)
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	*copy = *r;
	__atomic_add_fetch(&create_pending, 1, __ATOMIC_ACQ_REL);
	if (rte_eal_alarm_set(1, create_alarm, copy) != 0) {
		__atomic_sub_fetch(&create_pending, 1, __ATOMIC_RELEASE);
		free(copy);
		NDK_LOG(ERR, "cannot defer a create (EAL alarm)");
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	}
	return NDK_STATUS_PENDING;
}

/* Whether a create given a completion is deferred in this process. */
static inline bool
create_defers(ndk_create_completion_fn done)
{
	return done != NULL && rte_eal_process_type() == RTE_PROC_PRIMARY;
}

void
ndk_adapter_close(struct ndk_adapter *adapter)
{
	if (adapter == NULL || adapter->header.type != NDK_OBJECT_TYPE_ADAPTER)
		return;
	/*
	 * Deferred creates complete first (their callbacks return). One
	 * may need the adapter's control mailbox, which the queues' owner
	 * serves: give up our polling while we wait.
	 */
	if (__atomic_load_n(&create_pending, __ATOMIC_ACQUIRE) != 0) {
		if (adapter->dispatch->release != NULL)
			adapter->dispatch->release(adapter);
		while (__atomic_load_n(&create_pending, __ATOMIC_ACQUIRE) != 0)
			rte_delay_us_sleep(1000);
	}
	adapter->dispatch->close(adapter);
}

static inline bool
is(const void *obj, enum ndk_object_type type)
{
	const struct ndk_object_header *h = obj;

	return h != NULL && h->type == type;
}

ndk_status_t
ndk_create_cq_async(struct ndk_adapter *adapter, uint32_t depth,
		    ndk_cq_notify_fn notify, void *notify_context,
		    ndk_create_completion_fn done, void *context,
		    struct ndk_cq **cq)
{
	struct create_req r = {
		.kind = CK_CQ, .done = done, .ctx = context,
		.adapter = adapter, .cq_notify = notify,
		.cb_ctx = notify_context, .n = { depth },
	};

	if (!is(adapter, NDK_OBJECT_TYPE_ADAPTER) || cq == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	if (!create_defers(done))
		return ndk_create_cq(adapter, depth, notify, notify_context,
				     cq);
	return create_submit(&r);
}

ndk_status_t
ndk_create_pd_async(struct ndk_adapter *adapter,
		    ndk_create_completion_fn done, void *context,
		    struct ndk_pd **pd)
{
	struct create_req r = {
		.kind = CK_PD, .done = done, .ctx = context,
		.adapter = adapter,
	};

	if (!is(adapter, NDK_OBJECT_TYPE_ADAPTER) || pd == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	if (!create_defers(done))
		return ndk_create_pd(adapter, pd);
	return create_submit(&r);
}

ndk_status_t
ndk_create_mr_async(struct ndk_pd *pd, bool fast_register,
		    ndk_create_completion_fn done, void *context,
		    struct ndk_mr **mr)
{
	struct create_req r = {
		.kind = CK_MR, .done = done, .ctx = context, .pd = pd,
		.fast_register = fast_register,
	};

	if (!is(pd, NDK_OBJECT_TYPE_PD) || mr == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	if (!create_defers(done))
		return ndk_create_mr(pd, fast_register, mr);
	return create_submit(&r);
}

ndk_status_t
ndk_create_mw_async(struct ndk_pd *pd, ndk_create_completion_fn done,
		    void *context, struct ndk_mw **mw)
{
	struct create_req r = {
		.kind = CK_MW, .done = done, .ctx = context, .pd = pd,
	};

	if (!is(pd, NDK_OBJECT_TYPE_PD) || mw == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	if (!create_defers(done))
		return ndk_create_mw(pd, mw);
	return create_submit(&r);
}

ndk_status_t
ndk_create_qp_async(struct ndk_pd *pd, struct ndk_cq *receive_cq,
		    struct ndk_cq *initiator_cq, void *qp_context,
		    uint32_t receive_queue_depth,
		    uint32_t initiator_queue_depth,
		    uint32_t max_receive_request_sge,
		    uint32_t max_initiator_request_sge,
		    uint32_t inline_data_size, ndk_create_completion_fn done,
		    void *context, struct ndk_qp **qp)
{
	struct create_req r = {
		.kind = CK_QP, .done = done, .ctx = context, .pd = pd,
		.rcq = receive_cq, .icq = initiator_cq, .cb_ctx = qp_context,
		.n = { receive_queue_depth, initiator_queue_depth,
		       max_receive_request_sge, max_initiator_request_sge,
		       inline_data_size },
	};

	if (!is(pd, NDK_OBJECT_TYPE_PD) || qp == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	if (!create_defers(done))
		return ndk_create_qp(pd, receive_cq, initiator_cq, qp_context,
				     receive_queue_depth,
				     initiator_queue_depth,
				     max_receive_request_sge,
				     max_initiator_request_sge,
				     inline_data_size, qp);
	return create_submit(&r);
}

ndk_status_t
ndk_create_srq_async(struct ndk_pd *pd, uint32_t depth, uint32_t max_sges,
		     uint32_t notify_threshold, ndk_srq_notify_fn notify,
		     void *notify_context, ndk_create_completion_fn done,
		     void *context, struct ndk_srq **srq)
{
	struct create_req r = {
		.kind = CK_SRQ, .done = done, .ctx = context, .pd = pd,
		.srq_notify = notify, .cb_ctx = notify_context,
		.n = { depth, max_sges, notify_threshold },
	};

	if (!is(pd, NDK_OBJECT_TYPE_PD) || srq == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	if (!create_defers(done))
		return ndk_create_srq(pd, depth, max_sges, notify_threshold,
				      notify, notify_context, srq);
	return create_submit(&r);
}

ndk_status_t
ndk_create_qp_with_srq_async(struct ndk_pd *pd, struct ndk_cq *receive_cq,
			     struct ndk_cq *initiator_cq, struct ndk_srq *srq,
			     void *qp_context, uint32_t initiator_queue_depth,
			     uint32_t max_initiator_request_sge,
			     uint32_t inline_data_size,
			     ndk_create_completion_fn done, void *context,
			     struct ndk_qp **qp)
{
	struct create_req r = {
		.kind = CK_QP_SRQ, .done = done, .ctx = context, .pd = pd,
		.rcq = receive_cq, .icq = initiator_cq, .srq = srq,
		.cb_ctx = qp_context,
		.n = { initiator_queue_depth, max_initiator_request_sge,
		       inline_data_size },
	};

	if (!is(pd, NDK_OBJECT_TYPE_PD) || qp == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	if (!create_defers(done))
		return ndk_create_qp_with_srq(pd, receive_cq, initiator_cq,
					      srq, qp_context,
					      initiator_queue_depth,
					      max_initiator_request_sge,
					      inline_data_size, qp);
	return create_submit(&r);
}

ndk_status_t
ndk_create_connector_async(struct ndk_adapter *adapter,
			   ndk_create_completion_fn done, void *context,
			   struct ndk_connector **connector)
{
	struct create_req r = {
		.kind = CK_CONNECTOR, .done = done, .ctx = context,
		.adapter = adapter,
	};

	if (!is(adapter, NDK_OBJECT_TYPE_ADAPTER) || connector == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	if (!create_defers(done))
		return ndk_create_connector(adapter, connector);
	return create_submit(&r);
}

ndk_status_t
ndk_create_listener_async(struct ndk_adapter *adapter,
			  ndk_connect_event_fn connect_event,
			  void *event_context, ndk_create_completion_fn done,
			  void *context, struct ndk_listener **listener)
{
	struct create_req r = {
		.kind = CK_LISTENER, .done = done, .ctx = context,
		.adapter = adapter, .connect_event = connect_event,
		.cb_ctx = event_context,
	};

	if (!is(adapter, NDK_OBJECT_TYPE_ADAPTER) || listener == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	if (!create_defers(done))
		return ndk_create_listener(adapter, connect_event,
					   event_context, listener);
	return create_submit(&r);
}

ndk_status_t
ndk_create_shared_endpoint_async(struct ndk_adapter *adapter,
				 const struct sockaddr *addr, socklen_t len,
				 ndk_create_completion_fn done, void *context,
				 struct ndk_shared_endpoint **sep)
{
	struct create_req r = {
		.kind = CK_SEP, .done = done, .ctx = context,
		.adapter = adapter,
	};

	if (!is(adapter, NDK_OBJECT_TYPE_ADAPTER) || sep == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	if (!create_defers(done))
		return ndk_create_shared_endpoint(adapter, addr, len, sep);
	/* The caller's address need not outlive the call. */
	if (addr == NULL || len <= 0)
		return NDK_STATUS_INVALID_ADDRESS;
	r.addr_len = len < (socklen_t)sizeof(r.addr) ? len :
		(socklen_t)sizeof(r.addr);
	memcpy(&r.addr, addr, (size_t)r.addr_len);
	return create_submit(&r);
}
