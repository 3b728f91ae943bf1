/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * swroce introspection (ndk_info.h): the list of an adapter's QPs and a
 * snapshot of one QP's state.
 *
 * Why through swr_ctl_exec: most of what is reported (PSNs, queue tails,
 * event counters) is private to the polling thread and changes under it
 * with plain stores; and a QP leaves the table (swr_qp_detach_ctl) on that
 * same thread before it is freed. Run there, the walk of the QP table
 * cannot meet a QP being freed, and one QP's values are read between two
 * of its packets, so they agree with each other. When nobody polls the
 * adapter the function runs inline on the caller under the same
 * ownership. The cost is a short wait for the caller and a few
 * microseconds of the polling thread (one pass over the QP table for a
 * list): control path only, never called by the engines.
 *
 * Also the named hooks of include/swroce_hooks.h (what tests measure that
 * the NDK API has no word for).
 */

#include <errno.h>
#include <string.h>

#include "swroce_adapter.h"
#include "swroce_ctl.h"
#include "swroce_hooks.h"
#include "swroce_qp.h"
#include "swroce_rtx.h"

struct swr_list_arg {
	uint32_t *qpns;
	uint32_t max;
	uint32_t n;                /* QPs found, stored or not */
};

static ndk_status_t
swr_info_list_ctl(struct swr_adapter *ad, void *arg)
{
	struct swr_list_arg *l = arg;

	for (uint32_t i = 0; i <= ad->qp_mask; i++) {
		const struct swr_qp *qp = ad->qp_tbl[i];

		if (qp == NULL)
			continue;
		if (l->n < l->max)
			l->qpns[l->n] = qp->pub.qpn;
		l->n++;
	}
	return NDK_STATUS_SUCCESS;
}

int
swr_info_qp_list(struct ndk_adapter *adapter, uint32_t *qpns, uint32_t max)
{
	struct swr_list_arg l = { .qpns = qpns, .max = max, .n = 0 };

	swr_ctl_exec(swr_adapter_of(adapter), swr_info_list_ctl, &l);
	return (int)RTE_MIN(l.n, (uint32_t)INT32_MAX);
}

struct swr_query_arg {
	uint32_t qpn;
	struct ndk_qp_info *info;
};

static ndk_status_t
swr_info_query_ctl(struct swr_adapter *ad, void *arg)
{
	struct swr_query_arg *q = arg;
	struct ndk_qp_info *i = q->info;
	const struct swr_qp *qp = swr_qp_lookup(ad, q->qpn);

	if (qp == NULL)
		return NDK_STATUS_INVALID_HANDLE;
	i->qpn = qp->pub.qpn;
	i->state = swr_qp_state(qp);
	i->dest_qpn = qp->attr.dest_qpn;
	i->dest_ip = qp->attr.dest_ip;
	memcpy(i->dest_ip6, qp->attr.dest_ip6, sizeof(i->dest_ip6));
	i->path_mtu = qp->attr.path_mtu;
	i->send_psn = qp->req_psn;
	i->unacked_psn = qp->una_psn;
	i->expected_psn = qp->epsn;
	i->sq_depth = qp->sq_depth;
	i->rq_depth = qp->rq_depth;
	/* Published producer indices; deferred posts are not counted yet. */
	i->sq_outstanding = __atomic_load_n(&qp->sq_prod, __ATOMIC_ACQUIRE) -
		qp->sq_tail;
	i->rq_outstanding = __atomic_load_n(&qp->rq_prod, __ATOMIC_ACQUIRE) -
		qp->rq_tail;
	i->reads_outstanding = qp->rd_outstanding;
	i->events = qp->ev;
	i->srtt_ns = (uint32_t)RTE_MIN(qp->rtt.srtt * 1000000000.0 /
				       ad->tsc_hz, (double)UINT32_MAX);
	i->rto_ns = qp->rto_tsc == 0 ? 0 : (uint64_t)
		(swr_rto_value(qp) * 1000000000.0 / ad->tsc_hz);
	return NDK_STATUS_SUCCESS;
}

ndk_status_t
swr_info_qp_query(struct ndk_adapter *adapter, uint32_t qpn,
		  struct ndk_qp_info *info)
{
	struct swr_query_arg q = { .qpn = qpn, .info = info };

	if (qpn > NDK_ROCE_QPN_MASK)
		return NDK_STATUS_INVALID_HANDLE;
	return swr_ctl_exec(swr_adapter_of(adapter), swr_info_query_ctl, &q);
}

uint64_t
swr_hook_polls(struct ndk_adapter *a, uint16_t queue)
{
	const struct swr_adapter *ad = swr_adapter_of(a);

	if (queue >= ad->nb_queues)
		return 0;
	return __atomic_load_n(&ad->q[queue].epoch, __ATOMIC_ACQUIRE);
}

int
swr_hook_set_clock(struct ndk_adapter *a, uint64_t (*fn)(void *arg),
		   void *arg)
{
	struct swr_adapter *ad = swr_adapter_of(a);

	for (uint16_t i = 0; i < ad->nb_queues; i++)
		if (__atomic_load_n(&ad->q[i].owner, __ATOMIC_ACQUIRE) != 0)
			return -EBUSY;
	swr_adapter_set_clock(ad, fn, arg);
	return 0;
}
