/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * libndk: provider registry, control-path wrappers over the dispatch tables
 * (with object-type validation), status and state names.
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_memory.h>

#include "ndk_provider.h"

RTE_LOG_REGISTER(ndk_logtype, ndk, NOTICE);

static struct ndk_provider *providers;

#define NDK_DEFAULT_PROVIDER "swroce"
/* A secondary process uses its primary's (ndk-roced's) adapters. */
#define NDK_SECONDARY_PROVIDER "attach"

void
ndk_provider_register(struct ndk_provider *provider)
{
	provider->next = providers;
	providers = provider;
}

void
ndk_object_header_init(struct ndk_object_header *h, enum ndk_object_type type)
{
	memset(h, 0, sizeof(*h));
	h->version.major = NDK_VERSION_MAJOR;
	h->version.minor = NDK_VERSION_MINOR;
	h->type = type;
}

/* A handle is usable if it is non-NULL and its header names its type. */
static inline bool
obj_ok(const void *obj, enum ndk_object_type type)
{
	const struct ndk_object_header *h = obj;

	return h != NULL && h->type == type;
}

ndk_status_t
ndk_adapter_open(const struct ndk_adapter_config *config,
		 struct ndk_adapter **adapter)
{
	const char *name;

	if (config == NULL || adapter == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	name = config->provider;
	if (name == NULL)
		name = rte_eal_process_type() == RTE_PROC_SECONDARY ?
			NDK_SECONDARY_PROVIDER : NDK_DEFAULT_PROVIDER;
	for (struct ndk_provider *p = providers; p != NULL; p = p->next)
		if (strcmp(p->name, name) == 0)
			return p->open(config, adapter);
	NDK_LOG(ERR, "no provider named '%s'", name);
	return NDK_STATUS_NOT_SUPPORTED;
}

ndk_status_t
ndk_query_adapter_info(struct ndk_adapter *adapter,
		       struct ndk_adapter_info *info, uint32_t *size)
{
	if (!obj_ok(adapter, NDK_OBJECT_TYPE_ADAPTER) || size == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	return adapter->dispatch->query_adapter_info(adapter, info, size);
}

ndk_status_t
ndk_query_extension(const struct ndk_object_header *object,
		    const struct ndk_guid *extension, struct ndk_version version,
		    void *iface)
{
	RTE_SET_USED(version);
	if (object == NULL || extension == NULL || iface == NULL ||
	    object->type <= NDK_OBJECT_TYPE_UNDEFINED ||
	    object->type >= NDK_OBJECT_TYPE_MAX)
		return NDK_STATUS_INVALID_PARAMETER;
	/* No extension interface is defined (NDKPI defines none either). */
	return NDK_STATUS_NOT_SUPPORTED;
}

ndk_status_t
ndk_adapter_alloc_buffer(struct ndk_adapter *adapter, size_t len,
			 size_t align, void **buf)
{
	if (!obj_ok(adapter, NDK_OBJECT_TYPE_ADAPTER) || buf == NULL ||
	    len == 0 || (align & (align - 1)) != 0)
		return NDK_STATUS_INVALID_PARAMETER;
	if (adapter->dispatch->alloc_buffer != NULL)
		return adapter->dispatch->alloc_buffer(adapter, len, align,
						       buf);
	*buf = rte_zmalloc("ndk_buffer", len, (unsigned int)align);
	return *buf != NULL ? NDK_STATUS_SUCCESS : NDK_STATUS_NO_MEMORY;
}

ndk_status_t
ndk_adapter_free_buffer(struct ndk_adapter *adapter, void *buf)
{
	if (!obj_ok(adapter, NDK_OBJECT_TYPE_ADAPTER) || buf == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	if (adapter->dispatch->free_buffer != NULL)
		return adapter->dispatch->free_buffer(adapter, buf);
	rte_free(buf);
	return NDK_STATUS_SUCCESS;
}

ndk_status_t
ndk_adapter_health(struct ndk_adapter *adapter)
{
	if (!obj_ok(adapter, NDK_OBJECT_TYPE_ADAPTER))
		return NDK_STATUS_INVALID_HANDLE;
	if (adapter->dispatch->health == NULL)
		return NDK_STATUS_SUCCESS;
	return adapter->dispatch->health(adapter);
}

ndk_status_t
ndk_adapter_set_adaptive_rto(struct ndk_adapter *adapter, bool enable,
			     uint32_t floor_us)
{
	if (!obj_ok(adapter, NDK_OBJECT_TYPE_ADAPTER))
		return NDK_STATUS_INVALID_HANDLE;
	if (floor_us > 1000000)
		return NDK_STATUS_INVALID_PARAMETER;
	if (adapter->dispatch->set_adaptive_rto == NULL)
		return NDK_STATUS_NOT_SUPPORTED;
	return adapter->dispatch->set_adaptive_rto(adapter, enable,
			floor_us == 0 ? NDK_ADAPTIVE_RTO_FLOOR_US : floor_us);
}

void
ndk_adapter_release(struct ndk_adapter *adapter)
{
	if (obj_ok(adapter, NDK_OBJECT_TYPE_ADAPTER))
		adapter->dispatch->release(adapter);
}

void
ndk_adapter_get_stats(struct ndk_adapter *adapter,
		      struct ndk_adapter_stats *stats)
{
	if (stats == NULL)
		return;
	memset(stats, 0, sizeof(*stats));
	if (obj_ok(adapter, NDK_OBJECT_TYPE_ADAPTER) &&
	    adapter->dispatch->get_stats != NULL)
		adapter->dispatch->get_stats(adapter, stats);
}

int
ndk_adapter_get_queue_stats(struct ndk_adapter *adapter, uint16_t queue,
			    struct ndk_adapter_stats *stats)
{
	if (!obj_ok(adapter, NDK_OBJECT_TYPE_ADAPTER) || stats == NULL)
		return -EINVAL;
	if (adapter->dispatch->get_queue_stats == NULL)
		return -ENOTSUP;
	return adapter->dispatch->get_queue_stats(adapter, queue, stats);
}

ndk_status_t
ndk_create_cq(struct ndk_adapter *adapter, uint32_t depth,
	      ndk_cq_notify_fn notify, void *notify_context,
	      struct ndk_cq **cq)
{
	if (!obj_ok(adapter, NDK_OBJECT_TYPE_ADAPTER) || cq == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	return adapter->dispatch->create_cq(adapter, depth, notify,
					    notify_context, cq);
}

ndk_status_t
ndk_close_cq(struct ndk_cq *cq, ndk_close_completion_fn done, void *context)
{
	if (!obj_ok(cq, NDK_OBJECT_TYPE_CQ))
		return NDK_STATUS_INVALID_HANDLE;
	return cq->dispatch->close(cq, done, context);
}

ndk_status_t
ndk_resize_cq(struct ndk_cq *cq, uint32_t depth)
{
	if (!obj_ok(cq, NDK_OBJECT_TYPE_CQ))
		return NDK_STATUS_INVALID_HANDLE;
	if (cq->dispatch->resize == NULL)
		return NDK_STATUS_NOT_SUPPORTED;
	return cq->dispatch->resize(cq, depth);
}

ndk_status_t
ndk_control_cq_interrupt_moderation(struct ndk_cq *cq, uint32_t interval_us,
				    uint32_t count)
{
	if (!obj_ok(cq, NDK_OBJECT_TYPE_CQ))
		return NDK_STATUS_INVALID_HANDLE;
	if (cq->dispatch->moderate == NULL)
		return NDK_STATUS_NOT_SUPPORTED;
	return cq->dispatch->moderate(cq, interval_us, count);
}

ndk_status_t
ndk_receive_list(struct ndk_qp *qp, const struct ndk_receive_request *requests,
		 uint32_t count, uint32_t *posted)
{
	ndk_status_t st = NDK_STATUS_SUCCESS;
	uint32_t i;

	if (posted != NULL)
		*posted = 0;
	if (!obj_ok(qp, NDK_OBJECT_TYPE_QP))
		return NDK_STATUS_INVALID_HANDLE;
	if (posted == NULL || (requests == NULL && count != 0))
		return NDK_STATUS_INVALID_PARAMETER;
	if (count == 0)
		return NDK_STATUS_SUCCESS;
	if (qp->dispatch->receive_list != NULL)
		return qp->dispatch->receive_list(qp, requests, count, posted);
	for (i = 0; i < count; i++) {
		st = qp->dispatch->receive(qp, requests[i].request_context,
					   requests[i].sgl, requests[i].nsge);
		if (st != NDK_STATUS_SUCCESS)
			break;
	}
	*posted = i;
	return st;
}

ndk_status_t
ndk_create_pd(struct ndk_adapter *adapter, struct ndk_pd **pd)
{
	if (!obj_ok(adapter, NDK_OBJECT_TYPE_ADAPTER) || pd == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	return adapter->dispatch->create_pd(adapter, pd);
}

ndk_status_t
ndk_close_pd(struct ndk_pd *pd, ndk_close_completion_fn done, void *context)
{
	if (!obj_ok(pd, NDK_OBJECT_TYPE_PD))
		return NDK_STATUS_INVALID_HANDLE;
	return pd->dispatch->close(pd, done, context);
}

ndk_status_t
ndk_create_mr(struct ndk_pd *pd, bool fast_register, struct ndk_mr **mr)
{
	if (!obj_ok(pd, NDK_OBJECT_TYPE_PD) || mr == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	return pd->dispatch->create_mr(pd, fast_register, mr);
}

ndk_status_t
ndk_register_mr(struct ndk_mr *mr, void *va, size_t length, uint32_t flags)
{
	if (!obj_ok(mr, NDK_OBJECT_TYPE_MR))
		return NDK_STATUS_INVALID_HANDLE;
	return mr->dispatch->register_mr(mr, va, length, flags);
}

ndk_status_t
ndk_deregister_mr(struct ndk_mr *mr)
{
	if (!obj_ok(mr, NDK_OBJECT_TYPE_MR))
		return NDK_STATUS_INVALID_HANDLE;
	return mr->dispatch->deregister_mr(mr);
}

ndk_status_t
ndk_close_mr(struct ndk_mr *mr, ndk_close_completion_fn done, void *context)
{
	if (!obj_ok(mr, NDK_OBJECT_TYPE_MR))
		return NDK_STATUS_INVALID_HANDLE;
	return mr->dispatch->close(mr, done, context);
}

uint32_t
ndk_mr_local_token(struct ndk_mr *mr)
{
	return obj_ok(mr, NDK_OBJECT_TYPE_MR) ? mr->dispatch->local_token(mr) :
		0;
}

uint32_t
ndk_mr_remote_token(struct ndk_mr *mr)
{
	return obj_ok(mr, NDK_OBJECT_TYPE_MR) ? mr->dispatch->remote_token(mr) :
		0;
}

ndk_status_t
ndk_initialize_fast_register_mr(struct ndk_mr *mr, uint32_t page_count,
				bool remote_access)
{
	if (!obj_ok(mr, NDK_OBJECT_TYPE_MR))
		return NDK_STATUS_INVALID_HANDLE;
	return mr->dispatch->initialize_fast_register(mr, page_count,
						      remote_access);
}

ndk_status_t
ndk_create_mw(struct ndk_pd *pd, struct ndk_mw **mw)
{
	if (!obj_ok(pd, NDK_OBJECT_TYPE_PD) || mw == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	return pd->dispatch->create_mw(pd, mw);
}

ndk_status_t
ndk_close_mw(struct ndk_mw *mw, ndk_close_completion_fn done, void *context)
{
	if (!obj_ok(mw, NDK_OBJECT_TYPE_MW))
		return NDK_STATUS_INVALID_HANDLE;
	return mw->dispatch->close(mw, done, context);
}

uint32_t
ndk_mw_remote_token(struct ndk_mw *mw)
{
	return obj_ok(mw, NDK_OBJECT_TYPE_MW) ? mw->dispatch->remote_token(mw) :
		0;
}

void
ndk_qp_get_stats(struct ndk_qp *qp, struct ndk_qp_stats *stats)
{
	if (obj_ok(qp, NDK_OBJECT_TYPE_QP) && stats != NULL)
		qp->dispatch->get_stats(qp, stats);
}

ndk_status_t
ndk_create_qp(struct ndk_pd *pd, struct ndk_cq *receive_cq,
	      struct ndk_cq *initiator_cq, void *qp_context,
	      uint32_t receive_queue_depth, uint32_t initiator_queue_depth,
	      uint32_t max_receive_request_sge,
	      uint32_t max_initiator_request_sge, uint32_t inline_data_size,
	      struct ndk_qp **qp)
{
	if (!obj_ok(pd, NDK_OBJECT_TYPE_PD) ||
	    !obj_ok(receive_cq, NDK_OBJECT_TYPE_CQ) ||
	    !obj_ok(initiator_cq, NDK_OBJECT_TYPE_CQ) || qp == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	return pd->dispatch->create_qp(pd, receive_cq, initiator_cq,
				       qp_context, receive_queue_depth,
				       initiator_queue_depth,
				       max_receive_request_sge,
				       max_initiator_request_sge,
				       inline_data_size, qp);
}

ndk_status_t
ndk_close_qp(struct ndk_qp *qp, ndk_close_completion_fn done, void *context)
{
	if (!obj_ok(qp, NDK_OBJECT_TYPE_QP))
		return NDK_STATUS_INVALID_HANDLE;
	return qp->dispatch->close(qp, done, context);
}

/* ------------------------------------------------------------------ */
/* Shared receive queues (ndk_srq.h)                                   */
/* ------------------------------------------------------------------ */

ndk_status_t
ndk_create_srq(struct ndk_pd *pd, uint32_t depth, uint32_t max_sges,
	       uint32_t notify_threshold, ndk_srq_notify_fn notify,
	       void *notify_context, struct ndk_srq **srq)
{
	if (!obj_ok(pd, NDK_OBJECT_TYPE_PD) || srq == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	if (pd->dispatch->create_srq == NULL)
		return NDK_STATUS_NOT_SUPPORTED;
	return pd->dispatch->create_srq(pd, depth, max_sges, notify_threshold,
					notify, notify_context, srq);
}

ndk_status_t
ndk_modify_srq(struct ndk_srq *srq, uint32_t depth, uint32_t notify_threshold)
{
	if (!obj_ok(srq, NDK_OBJECT_TYPE_SRQ))
		return NDK_STATUS_INVALID_HANDLE;
	return srq->dispatch->modify(srq, depth, notify_threshold);
}

ndk_status_t
ndk_close_srq(struct ndk_srq *srq, ndk_close_completion_fn done, void *context)
{
	if (!obj_ok(srq, NDK_OBJECT_TYPE_SRQ))
		return NDK_STATUS_INVALID_HANDLE;
	return srq->dispatch->close(srq, done, context);
}

ndk_status_t
ndk_create_qp_with_srq(struct ndk_pd *pd, struct ndk_cq *receive_cq,
		       struct ndk_cq *initiator_cq, struct ndk_srq *srq,
		       void *qp_context, uint32_t initiator_queue_depth,
		       uint32_t max_initiator_request_sge,
		       uint32_t inline_data_size, struct ndk_qp **qp)
{
	if (!obj_ok(pd, NDK_OBJECT_TYPE_PD) ||
	    !obj_ok(receive_cq, NDK_OBJECT_TYPE_CQ) ||
	    !obj_ok(initiator_cq, NDK_OBJECT_TYPE_CQ) ||
	    !obj_ok(srq, NDK_OBJECT_TYPE_SRQ) || qp == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	if (pd->dispatch->create_qp_with_srq == NULL)
		return NDK_STATUS_NOT_SUPPORTED;
	return pd->dispatch->create_qp_with_srq(pd, receive_cq, initiator_cq,
						srq, qp_context,
						initiator_queue_depth,
						max_initiator_request_sge,
						inline_data_size, qp);
}

void
ndk_flush(struct ndk_qp *qp)
{
	if (obj_ok(qp, NDK_OBJECT_TYPE_QP))
		qp->dispatch->flush(qp);
}

ndk_status_t
ndk_qp_modify(struct ndk_qp *qp, const struct ndk_qp_attr *attr,
	      uint32_t mask)
{
	if (!obj_ok(qp, NDK_OBJECT_TYPE_QP))
		return NDK_STATUS_INVALID_HANDLE;
	if (attr == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	return qp->dispatch->modify(qp, attr, mask);
}

ndk_status_t
ndk_qp_query(struct ndk_qp *qp, struct ndk_qp_attr *attr)
{
	if (!obj_ok(qp, NDK_OBJECT_TYPE_QP))
		return NDK_STATUS_INVALID_HANDLE;
	if (attr == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	return qp->dispatch->query(qp, attr);
}

uint32_t
ndk_qp_num(const struct ndk_qp *qp)
{
	return obj_ok(qp, NDK_OBJECT_TYPE_QP) ? qp->qpn : 0;
}

ndk_status_t
ndk_qp_connect(struct ndk_qp *qp, const struct ndk_qp_attr *attr)
{
	struct ndk_qp_attr a;
	ndk_status_t st;

	if (!obj_ok(qp, NDK_OBJECT_TYPE_QP))
		return NDK_STATUS_INVALID_HANDLE;
	if (attr == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	a = *attr;
	/* Zeroed fields take the defaults documented in ndk.h. */
	if (a.path_mtu == 0) {
		struct ndk_qp_attr cur;

		st = qp->dispatch->query(qp, &cur);
		if (!NDK_SUCCESS(st))
			return st;
		a.path_mtu = cur.path_mtu;   /* the adapter's maximum */
	}
	if (a.timeout == 0)
		a.timeout = 14;
	if (a.retry_cnt == 0)
		a.retry_cnt = 7;
	if (a.rnr_retry == 0)
		a.rnr_retry = 7;
	if (a.min_rnr_timer == 0)
		a.min_rnr_timer = 12;

	a.state = NDK_QP_STATE_RTR;
	st = qp->dispatch->modify(qp, &a, NDK_QP_ATTR_STATE | NDK_QP_ATTR_AV |
		NDK_QP_ATTR_DEST_QPN | NDK_QP_ATTR_RQ_PSN | NDK_QP_ATTR_PATH_MTU |
		(a.max_dest_rd_atomic != 0 ? NDK_QP_ATTR_MAX_DEST_RD_ATOMIC : 0) |
		(a.selective_repeat != 0 ? NDK_QP_ATTR_SELECTIVE_REPEAT : 0) |
		NDK_QP_ATTR_MIN_RNR_TIMER);
	if (!NDK_SUCCESS(st))
		return st;
	a.state = NDK_QP_STATE_RTS;
	return qp->dispatch->modify(qp, &a, NDK_QP_ATTR_STATE |
		NDK_QP_ATTR_SQ_PSN | NDK_QP_ATTR_TIMEOUT |
		NDK_QP_ATTR_RETRY_CNT | NDK_QP_ATTR_RNR_RETRY |
		(a.max_rd_atomic != 0 ? NDK_QP_ATTR_MAX_RD_ATOMIC : 0));
}

const char *
ndk_qp_state_str(enum ndk_qp_state state)
{
	static const char *const names[] = {
		[NDK_QP_STATE_RESET] = "RESET",
		[NDK_QP_STATE_INIT] = "INIT",
		[NDK_QP_STATE_RTR] = "RTR",
		[NDK_QP_STATE_RTS] = "RTS",
		[NDK_QP_STATE_SQD] = "SQD",
		[NDK_QP_STATE_SQE] = "SQE",
		[NDK_QP_STATE_ERROR] = "ERROR",
	};

	if ((unsigned int)state < RTE_DIM(names))
		return names[state];
	return "UNKNOWN";
}

const char *
ndk_status_str(ndk_status_t status)
{
	switch ((uint32_t)status) {
#define NDK_STATUS_CASE_(name, value) \
	case (uint32_t)(value): return "STATUS_" #name;
	NDK_STATUS_LIST(NDK_STATUS_CASE_)
#undef NDK_STATUS_CASE_
	default:
		return "STATUS_UNKNOWN";
	}
}

int
ndk_status_to_errno(ndk_status_t status)
{
	switch (status) {
	case NDK_STATUS_SUCCESS:
		return 0;
	case NDK_STATUS_PENDING:
		return -EINPROGRESS;
	case NDK_STATUS_INVALID_PARAMETER:
	case NDK_STATUS_INVALID_PARAMETER_MIX:
	case NDK_STATUS_INVALID_HANDLE:
		return -EINVAL;
	case NDK_STATUS_INSUFFICIENT_RESOURCES:
	case NDK_STATUS_NO_MEMORY:
		return -ENOMEM;
	case NDK_STATUS_NO_MORE_ENTRIES:
		return -ENOSPC;
	case NDK_STATUS_NOT_SUPPORTED:
		return -ENOTSUP;
	case NDK_STATUS_ACCESS_VIOLATION:
		return -EACCES;
	case NDK_STATUS_IO_TIMEOUT:
	case NDK_STATUS_TIMEOUT:
		return -ETIMEDOUT;
	case NDK_STATUS_CANCELLED:
		return -ECANCELED;
	case NDK_STATUS_CONNECTION_INVALID:
	case NDK_STATUS_INVALID_DEVICE_STATE:
		return -ENOTCONN;
	case NDK_STATUS_CONNECTION_REFUSED:
		return -ECONNREFUSED;
	case NDK_STATUS_CONNECTION_RESET:
	case NDK_STATUS_CONNECTION_ABORTED:
		return -ECONNRESET;
	case NDK_STATUS_BUFFER_TOO_SMALL:
	case NDK_STATUS_BUFFER_OVERFLOW:
	case NDK_STATUS_DATA_OVERRUN:
		return -EOVERFLOW;
	case NDK_STATUS_REMOTE_RESOURCES:
		return -EREMOTEIO;
	default:
		return NDK_SUCCESS(status) ? 0 : -EIO;
	}
}
