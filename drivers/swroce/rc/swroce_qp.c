/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * swroce QP: creation and close, modify (what each state transition does
 * to the QP; which transitions and attributes are legal is the table of
 * swroce_qp_fsm.c), completions and the error state. Posting (the
 * application side of the rings) is in swroce_post.c, the retransmission
 * state in swroce_rtx.h.
 */

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <rte_malloc.h>

#include "swroce_adapter.h"
#include "swroce_cq.h"
#include "swroce_ctl.h"
#include "swroce_dbell.h"
#include "swroce_mr.h"
#include "swroce_neigh.h"
#include "swroce_qp.h"
#include "swroce_rc.h"
#include "swroce_rtx.h"
#include "swroce_srq.h"
#include "swroce_tx.h"

/* ------------------------------------------------------------------ */
/* Completions and the error state (polling thread)                    */
/* ------------------------------------------------------------------ */

static const enum ndk_operation_type swr_wr_type[] = {
	[SWR_WR_SEND] = NDK_OP_SEND,
	[SWR_WR_WRITE] = NDK_OP_WRITE,
	[SWR_WR_READ] = NDK_OP_READ,
	[SWR_WR_SEND_INV] = NDK_OP_SEND,   /* NDK: the initiator sees a Send */
	[SWR_WR_FAST_REG] = NDK_OP_FAST_REGISTER,
	[SWR_WR_INVALIDATE] = NDK_OP_INVALIDATE,
	[SWR_WR_BIND] = NDK_OP_BIND,
};

/* The CQ is dead (overrun): so is every QP completing to it. */
static void
swr_qp_cq_dead(struct swr_qp *qp)
{
	__atomic_store_n(&qp->flush_req, 1, __ATOMIC_RELEASE);
	swr_qp_activate(qp);
}

void
swr_cq_stage_flush(struct swr_cq_stage *s)
{
	uint32_t k = swr_cq_post_bulk(s->cq, s->r, s->n, s->need, s->all_ok);

	for (uint32_t i = k; i < s->n; i++)
		swr_qp_cq_dead(s->qp[i]);
	s->n = 0;
	s->cq = NULL;
}

/* Straight to the CQ (not while its queue's poller handles its frame). */
static __rte_noinline void
swr_qp_cq_post_now(struct swr_qp *qp, struct swr_cq *cq,
		   const struct ndk_result_ex *r, bool solicited)
{
	if (unlikely(swr_cq_post(cq, r, solicited) != 0))
		swr_qp_cq_dead(qp);
}

/*
 * While its queue's poller handles one of its frames, a QP's completions
 * go to the queue's stage (posted at the burst's end); any other time
 * straight to the CQ.
 */
static __rte_always_inline void
swr_qp_cq_post(struct swr_qp *qp, struct swr_cq *cq,
	       const struct ndk_result_ex *r, bool solicited)
{
	struct swr_cq_stage *s = &qp->q->cqs;
	bool ok = NDK_SUCCESS(r->status);

	if (s->cur != qp) {
		swr_qp_cq_post_now(qp, cq, r, solicited);
		return;
	}
	if (unlikely(s->cq != cq || s->n == SWR_CQ_STAGE)) {
		if (s->n != 0)
			swr_cq_stage_flush(s);
		s->cq = cq;
		s->need = SWR_ARM_ANY;
		s->all_ok = true;
	}
	if (solicited || !ok)
		s->need = SWR_ARM_SOLICITED;
	s->all_ok &= ok;
	s->qp[s->n] = qp;
	s->r[s->n++] = *r;
}

void
swr_qp_complete_send(struct swr_qp *qp, ndk_status_t status, uint32_t perr)
{
	struct swr_swqe *wqe = swr_swqe(qp, qp->sq_tail);
	struct ndk_result_ex r = {
		.status = status,
		.qp_context = qp->qp_ctx,
		.request_context = wqe->ctx,
		.type = swr_wr_type[wqe->op],
		.provider_error = perr,
	};
	bool report = status != NDK_STATUS_SUCCESS ||
		!(wqe->flags & NDK_OP_FLAG_SILENT_SUCCESS);

	/* A READ counts against ORD from its request to its completion. */
	if (wqe->op == SWR_WR_READ && qp->sq_tail != qp->req_idx &&
	    qp->rd_outstanding != 0)
		qp->rd_outstanding--;
	if (qp->req_idx == qp->sq_tail) {
		/*
		 * Retired before it was (re)sent in full: by a flush, or by a
		 * late ACK after a rewind. The next WQE starts after it.
		 */
		if (wqe->started)
			qp->req_psn = ndk_roce_psn_add(wqe->first_psn,
						       wqe->npkts);
		qp->req_idx++;
		qp->req_pkt = 0;
	}
	/* Free the slot before the consumer can see the completion. */
	qp->sq_tail++;
	__atomic_store_n(&qp->sq_done, qp->sq_tail, __ATOMIC_RELEASE);
	if (report)
		swr_qp_cq_post(qp, qp->icq, &r, false);
	if (status == NDK_STATUS_CANCELLED)
		SWR_STAT(qp->q, wqe_flushed);
	SWR_STAT(qp->q, wqe_completed);
}

uint32_t
swr_qp_retire_silent(struct swr_qp *qp, uint32_t psn)
{
	uint32_t prod = __atomic_load_n(&qp->sq_prod, __ATOMIC_ACQUIRE);
	uint32_t tail = qp->sq_tail, n;

	/* Fully sent, acknowledged SENDs and WRITEs without a CQ entry. */
	while (tail != qp->req_idx && tail != prod) {
		const struct swr_swqe *wqe = swr_swqe(qp, tail);

		/* Started, a SEND or WRITE, silent: one byte says it. */
		if (wqe->started != SWR_WQE_STARTED_SILENT ||
		    ndk_roce_psn_diff(psn, ndk_roce_psn_add(wqe->first_psn,
							   wqe->npkts - 1)) < 0)
			break;
		tail++;
	}
	n = tail - qp->sq_tail;
	if (n == 0)
		return 0;
	/* Free the slots: one store for the run. */
	qp->sq_tail = tail;
	__atomic_store_n(&qp->sq_done, tail, __ATOMIC_RELEASE);
	qp->q->stats.wqe_completed += n;
	return n;
}

void
swr_qp_complete_flushed(struct swr_qp *qp)
{
	const struct swr_swqe *wqe = swr_swqe(qp, qp->sq_tail);

	if (swr_wr_is_local(wqe->op) && wqe->started)
		swr_qp_complete_send(qp, wqe->lstatus,
				     wqe->lstatus == NDK_STATUS_SUCCESS ? 0 :
				     NDK_PERR_LOC_QP_OP);
	else
		swr_qp_complete_send(qp, NDK_STATUS_CANCELLED,
				     NDK_PERR_FLUSHED);
}

bool
swr_qp_retire_local(struct swr_qp *qp)
{
	struct swr_swqe *wqe = swr_swqe(qp, qp->sq_tail);
	ndk_status_t st = wqe->lstatus;

	swr_qp_complete_send(qp, st, st == NDK_STATUS_SUCCESS ? 0 :
			     NDK_PERR_LOC_QP_OP);
	if (st == NDK_STATUS_SUCCESS)
		return true;
	swr_qp_to_error(qp);     /* a failed local operation is fatal (IB) */
	return false;
}

void
swr_qp_complete_recv(struct swr_qp *qp, ndk_status_t status, uint32_t perr,
		     uint32_t bytes, bool solicited, uint32_t inv_token)
{
	struct swr_rwqe *wqe = swr_qp_cur_recv(qp);
	struct ndk_result_ex r = {
		.status = status,
		.bytes_transferred = bytes,
		.qp_context = qp->qp_ctx,
		.request_context = wqe->ctx,
		.type = inv_token != 0 ? NDK_OP_RECEIVE_AND_INVALIDATE :
			NDK_OP_RECEIVE,
		.provider_error = perr,
		.type_specific = inv_token,
	};

	/* Free the slot before the consumer can see the completion. */
	if (qp->srq != NULL) {
		qp->srq_wqe = NULL;
		swr_srq_release(qp->srq, wqe);
	} else {
		qp->rq_tail++;
		__atomic_store_n(&qp->rq_done, qp->rq_tail, __ATOMIC_RELEASE);
	}
	swr_qp_cq_post(qp, qp->rcq, &r, solicited);
	if (status == NDK_STATUS_CANCELLED)
		SWR_STAT(qp->q, wqe_flushed);
	SWR_STAT(qp->q, wqe_completed);
}

void
swr_qp_to_error(struct swr_qp *qp)
{
	if (swr_qp_state(qp) != NDK_QP_STATE_ERROR) {
		/* Before the count the CM watches (swroce_cm.c). */
		__atomic_store_n(&qp->failed, 1, __ATOMIC_RELEASE);
		SWR_STAT(qp->q, qp_errors);
	}
	swr_qp_flush_all(qp);
}

void
swr_qp_flush_all(struct swr_qp *qp)
{
	uint32_t prod;

	__atomic_store_n(&qp->state, NDK_QP_STATE_ERROR, __ATOMIC_RELEASE);
	/*
	 * Everything outstanding completes, in order, as flushed — except
	 * local operations already carried out: they took effect, and say so.
	 */
	prod = __atomic_load_n(&qp->sq_prod, __ATOMIC_ACQUIRE);
	while (qp->sq_tail != prod)
		swr_qp_complete_flushed(qp);
	qp->req_idx = qp->sq_tail;
	qp->req_pkt = 0;
	qp->rd_outstanding = 0;
	swr_qp_timers_cancel(qp);
	prod = __atomic_load_n(&qp->rq_prod, __ATOMIC_ACQUIRE);
	while (qp->rq_tail != prod)
		swr_qp_complete_recv(qp, NDK_STATUS_CANCELLED, NDK_PERR_FLUSHED,
				     0, false, 0);
	/* An SRQ's receives stay for its other QPs, but for the one held. */
	if (qp->srq_wqe != NULL)
		swr_qp_complete_recv(qp, NDK_STATUS_CANCELLED, NDK_PERR_FLUSHED,
				     0, false, 0);
	qp->rcv_class = SWR_RCV_NONE;
	qp->ack_pending = false;
	qp->rd_cnt = 0;
	swr_sr_release(qp);
}

/* ------------------------------------------------------------------ */
/* Modify (runs through swr_ctl_exec; the table: swroce_qp_fsm.c)     */
/* ------------------------------------------------------------------ */

struct swr_modify_arg {
	struct swr_qp *qp;
	const struct ndk_qp_attr *attr;
	uint32_t mask;
};

static void
swr_remove_active(struct swr_qp *qp)
{
	struct swr_queue *q = qp->q;

	/* Off the wheel too: nothing of a QP reset or destroyed may fire. */
	swr_qp_timers_cancel(qp);
	if (!qp->in_active)
		return;
	for (uint32_t i = 0; i < q->n_active; i++) {
		if (q->active[i] == qp) {
			q->active[i] = q->active[--q->n_active];
			break;
		}
	}
	qp->in_active = false;
}

/*
 * No READ resource kept or streaming (RESET, RTR): a slot taken later
 * must not look busy.
 */
static void
swr_qp_rd_clear(struct swr_qp *qp)
{
	memset(qp->rd_res, 0, SWR_MAX_RD_ATOMIC * sizeof(*qp->rd_res));
	qp->rd_cnt = 0;
	qp->rd_valid = 0;
	qp->rd_head = 0;
}

/* RESET discards every queued request without completions (IB). */
static void
swr_qp_reset(struct swr_qp *qp)
{
	swr_remove_active(qp);
	qp->sq_tail = qp->req_idx = qp->sq_prod;
	qp->sq_prod_priv = qp->sq_prod;
	qp->req_pkt = 0;
	qp->rd_outstanding = 0;
	__atomic_store_n(&qp->sq_done, qp->sq_tail, __ATOMIC_RELEASE);
	qp->rq_tail = qp->rq_prod;
	qp->rq_prod_priv = qp->rq_prod;
	__atomic_store_n(&qp->rq_done, qp->rq_tail, __ATOMIC_RELEASE);
	if (qp->srq_wqe != NULL) {
		/* Discarded like the QP's own: back to the SRQ's free slots. */
		swr_srq_release(qp->srq, qp->srq_wqe);
		qp->srq_wqe = NULL;
	}
	qp->rcv_class = SWR_RCV_NONE;
	qp->ack_pending = false;
	swr_qp_rd_clear(qp);
	swr_sr_release(qp);
	__atomic_store_n(&qp->flush_req, 0, __ATOMIC_RELEASE);
}

static ndk_status_t
swr_qp_modify_ctl(struct swr_adapter *ad, void *arg)
{
	struct swr_modify_arg *m = arg;
	struct swr_qp *qp = m->qp;
	const struct ndk_qp_attr *a = m->attr;
	uint32_t from = swr_qp_state(qp);
	uint32_t to = (m->mask & NDK_QP_ATTR_STATE) ? a->state : from;
	ndk_status_t st;

	st = swr_qp_modify_check(qp, a, m->mask, from, to);
	if (st != NDK_STATUS_SUCCESS)
		return st;

	if (m->mask & NDK_QP_ATTR_AV) {
		qp->attr.dest_ip = a->dest_ip;
		memcpy(qp->attr.dest_ip6, a->dest_ip6, sizeof(a->dest_ip6));
		memcpy(qp->attr.dest_mac, a->dest_mac, sizeof(a->dest_mac));
		qp->attr.tos = a->tos;
	}
	if (m->mask & NDK_QP_ATTR_DEST_QPN)
		qp->attr.dest_qpn = a->dest_qpn;
	if (m->mask & NDK_QP_ATTR_RQ_PSN)
		qp->attr.rq_psn = a->rq_psn;
	if (m->mask & NDK_QP_ATTR_SQ_PSN)
		qp->attr.sq_psn = a->sq_psn;
	if (m->mask & NDK_QP_ATTR_PATH_MTU)
		qp->attr.path_mtu = a->path_mtu;
	if (m->mask & NDK_QP_ATTR_MAX_RD_ATOMIC)
		qp->attr.max_rd_atomic = a->max_rd_atomic;
	if (m->mask & NDK_QP_ATTR_MAX_DEST_RD_ATOMIC)
		qp->attr.max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (m->mask & NDK_QP_ATTR_TIMEOUT) {
		qp->attr.timeout = a->timeout;
		/* 4.096 us << timeout; 0 means wait forever. */
		qp->rto_tsc = a->timeout == 0 ? 0 : (uint64_t)
			((double)(4096ull << a->timeout) * ad->tsc_hz / 1e9);
	}
	if (m->mask & NDK_QP_ATTR_RETRY_CNT)
		qp->attr.retry_cnt = a->retry_cnt;
	if (m->mask & NDK_QP_ATTR_RNR_RETRY)
		qp->attr.rnr_retry = a->rnr_retry;
	if (m->mask & NDK_QP_ATTR_MIN_RNR_TIMER)
		qp->attr.min_rnr_timer = a->min_rnr_timer;
	if (m->mask & NDK_QP_ATTR_SELECTIVE_REPEAT)
		qp->attr.selective_repeat = a->selective_repeat;

	if (to == NDK_QP_STATE_RESET) {
		swr_qp_reset(qp);
	} else if (from == NDK_QP_STATE_INIT && to == NDK_QP_STATE_RTR) {
		struct rte_ether_addr dmac;

		qp->pmtu = qp->attr.path_mtu;
		qp->pmtu_shift = rte_bsf32(qp->pmtu);
		memcpy(dmac.addr_bytes, qp->attr.dest_mac, sizeof(dmac));
		/*
		 * All-zero dest_mac: resolve the peer by ARP or neighbour
		 * discovery (swroce_neigh.c, swroce_nd.c).
		 */
		swr_qp_set_path(qp, &dmac);
		qp->epsn = qp->attr.rq_psn;
		qp->msn = 0;
		qp->sr_on = qp->attr.selective_repeat != 0;
		swr_sr_release(qp);
		qp->seq_nak_sent = false;
		qp->rcv_class = SWR_RCV_NONE;
		qp->ack_pending = false;
		swr_qp_rd_clear(qp);
		/*
		 * READs kept for replay: as many as the IRD granted, a power
		 * of two (the ring holds SWR_MAX_RD_ATOMIC); a later READ
		 * takes the oldest slot. With selective repeat (an ndk-roce
		 * requester) the whole ring: that requester lets READs not
		 * completed exceed ORD up to it (swr_req_ord_room()).
		 */
		qp->rd_mask = qp->sr_on ? SWR_MAX_RD_ATOMIC - 1 :
			rte_align32pow2(RTE_MAX(qp->attr.max_dest_rd_atomic,
						1u)) - 1;
	} else if (from == NDK_QP_STATE_RTR && to == NDK_QP_STATE_RTS) {
		qp->req_psn = qp->una_psn = qp->attr.sq_psn;
		qp->psn_max = qp->attr.sq_psn;
		qp->pkts_since_ackreq = 0;
		swr_rtx_reset(qp);
	} else if (to == NDK_QP_STATE_ERROR) {
		swr_qp_flush_all(qp);   /* asked for: not counted as an error */
		return NDK_STATUS_SUCCESS;
	}
	__atomic_store_n(&qp->state, to, __ATOMIC_RELEASE);
	if (to == NDK_QP_STATE_RTS)
		swr_qp_activate(qp);   /* resume after SQD */
	return NDK_STATUS_SUCCESS;
}

static ndk_status_t
swr_qp_modify(struct ndk_qp *q, const struct ndk_qp_attr *attr, uint32_t mask)
{
	struct swr_qp *qp = swr_qp_of(q);
	struct swr_modify_arg m = { .qp = qp, .attr = attr, .mask = mask };

	return swr_ctl_exec(qp->ad, swr_qp_modify_ctl, &m);
}

static ndk_status_t
swr_qp_query(struct ndk_qp *q, struct ndk_qp_attr *attr)
{
	struct swr_qp *qp = swr_qp_of(q);

	*attr = qp->attr;
	attr->state = swr_qp_state(qp);
	return NDK_STATUS_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Create and close                                                    */
/* ------------------------------------------------------------------ */

static ndk_status_t
swr_qp_detach_ctl(struct swr_adapter *ad, void *arg)
{
	struct swr_qp *qp = arg;

	if (swr_qp_state(qp) != NDK_QP_STATE_RESET)
		swr_qp_flush_all(qp);
	if (ad->qp_gone != NULL)
		ad->qp_gone(qp);
	swr_remove_active(qp);
	qp->detached = true;
	__atomic_store_n(&ad->qp_tbl[qp->pub.qpn & ad->qp_mask], NULL,
			 __ATOMIC_RELEASE);
	/* No doorbell may outlive the QP: serve the queued ones now. */
	swr_db_drain_all(qp->db_ring);
	if (qp->db_ring != qp->q->db_ring)
		swr_db_drain_all(qp->q->db_ring);
	return NDK_STATUS_SUCCESS;
}

static void
swr_qp_free(struct swr_qp *qp)
{
	rte_free(qp->sq);
	rte_free(qp->rq);
	rte_free(qp->rd_res);
	rte_free(qp->ooo_map);
	rte_free(qp->sr_buf);
	rte_free(qp);
}

static ndk_status_t
swr_qp_close(struct ndk_qp *q, ndk_close_completion_fn done __rte_unused,
	     void *ctx __rte_unused)
{
	struct swr_qp *qp = swr_qp_of(q);
	struct swr_adapter *ad = qp->ad;
	struct swr_cq *rcq = qp->rcq, *icq = qp->icq;
	struct swr_pd *pd = qp->pd;
	struct swr_srq *srq = qp->srq;

	/* Closing must not race posts (NDK): release any deferred chain. */
	if (qp->sq_prod_priv != qp->sq_prod)
		__atomic_store_n(&qp->sq_prod, qp->sq_prod_priv,
				 __ATOMIC_RELEASE);
	swr_ctl_exec(ad, swr_qp_detach_ctl, qp);
	rte_spinlock_lock(&ad->obj_lock);
	ad->n_qp--;
	rte_spinlock_unlock(&ad->obj_lock);
	qp->pub.header.type = NDK_OBJECT_TYPE_UNDEFINED;
	swr_qp_free(qp);
	swr_cq_put(rcq);
	swr_cq_put(icq);
	if (srq != NULL)
		swr_srq_put(srq);  /* may complete a pending SRQ close */
	swr_pd_put(pd);
	/* Closed inline: NDK forbids the completion callback then. */
	return NDK_STATUS_SUCCESS;
}

static const struct ndk_qp_dispatch swr_qp_dispatch = {
	.close = swr_qp_close,
	.flush = swr_post_flush,
	.send = swr_post_send,
	.receive = swr_post_receive,
	.read = swr_post_read,
	.write = swr_post_write,
	.send_and_invalidate = swr_post_send_inv,
	.fast_register = swr_post_fast_register,
	.invalidate = swr_post_invalidate,
	.bind = swr_post_bind,
	.get_stats = swr_post_get_stats,
	.receive_list = swr_post_receive_list,
	.modify = swr_qp_modify,
	.query = swr_qp_query,
};

static uint32_t
swr_pow2(uint32_t n)
{
	return rte_align32pow2(n < 2 ? 2 : n);
}

/* Reserve a table index and a QPN (obj_lock held). */
static int
swr_qpn_alloc(struct swr_adapter *ad, uint32_t *qpn)
{
	uint32_t size = ad->qp_mask + 1;

	if (ad->n_qp >= ad->info.max_qp)
		return -ENOSPC;
	for (uint32_t tries = 0; tries < size; tries++) {
		uint32_t idx = ad->qp_cursor;
		uint32_t q;

		ad->qp_cursor = (idx + 1) & ad->qp_mask;
		if (idx < SWR_FIRST_QP_INDEX || ad->qp_tbl[idx] != NULL)
			continue;
		/* A generation in the high bits delays QPN reuse. */
		ad->qp_gen[idx]++;
		q = (((uint32_t)ad->qp_gen[idx] << ad->qp_bits) | idx) &
			NDK_ROCE_QPN_MASK;
		if (q < SWR_FIRST_QP_INDEX)
			continue;
		*qpn = q;
		return (int)idx;
	}
	return -ENOSPC;
}

/* A QP with its own receive queue, or (@p srq) one of rq_depth 0. */
static ndk_status_t
swr_qp_make(struct ndk_pd *pd_pub, struct ndk_cq *rcq_pub,
	    struct ndk_cq *icq_pub, struct swr_srq *srq, void *qp_context,
	    uint32_t rq_depth, uint32_t iq_depth, uint32_t max_rsge,
	    uint32_t max_isge, uint32_t inline_size, struct ndk_qp **out)
{
	struct swr_pd *pd = (struct swr_pd *)pd_pub;
	struct swr_cq *rcq = (struct swr_cq *)rcq_pub;
	struct swr_cq *icq = (struct swr_cq *)icq_pub;
	struct swr_adapter *ad = pd->ad;
	const struct ndk_adapter_info *info = &ad->info;
	struct swr_qp *qp;
	uint32_t qpn;
	int idx;

	/* The poller's per-operation bookkeeping: one line. */
#define SWR_QP_LINE(f) (offsetof(struct swr_qp, f) / RTE_CACHE_LINE_SIZE)
	RTE_BUILD_BUG_ON(SWR_QP_LINE(tm) != SWR_QP_LINE(in_active) ||
			 SWR_QP_LINE(msn) != SWR_QP_LINE(in_active));
	/* What every received frame reads of the attributes: one line. */
	RTE_BUILD_BUG_ON(SWR_QP_LINE(pmtu_shift) != SWR_QP_LINE(state) ||
			 SWR_QP_LINE(attr.dest_ip) != SWR_QP_LINE(state));
#undef SWR_QP_LINE
	if (rcq->ad != ad || icq->ad != ad ||
	    (rq_depth == 0) != (srq != NULL) || iq_depth == 0 || rq_depth > info->max_receive_queue_depth ||
	    iq_depth > info->max_initiator_queue_depth ||
	    max_rsge > info->max_receive_request_sge ||
	    max_isge > info->max_initiator_request_sge ||
	    inline_size > info->max_inline_data_size) {
		NDK_LOG(DEBUG, "%s: QP parameters beyond adapter limits",
			ad->name);
		return NDK_STATUS_INVALID_PARAMETER;
	}
	qp = rte_zmalloc_socket("ndk_qp", sizeof(*qp), RTE_CACHE_LINE_SIZE,
				ad->socket_id);
	if (qp == NULL)
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	qp->ad = ad;
	qp->pd = pd;
	qp->rcq = rcq;
	qp->icq = icq;
	qp->qp_ctx = qp_context;
	qp->srq = srq;
	qp->sq_depth = iq_depth;
	qp->sq_mask = swr_pow2(iq_depth) - 1;
	qp->max_isge = max_isge;
	qp->inline_size = inline_size;
	qp->sq_stride = RTE_ALIGN_CEIL(sizeof(struct swr_swqe) +
		RTE_MAX(max_isge * sizeof(struct ndk_sge), inline_size), 16);
	qp->rq_depth = rq_depth;
	qp->rq_mask = swr_pow2(rq_depth) - 1;
	qp->max_rsge = max_rsge;
	qp->rq_stride = RTE_ALIGN_CEIL(sizeof(struct swr_rwqe) +
				       max_rsge * sizeof(struct ndk_sge), 16);
	qp->rd_mask = SWR_MAX_RD_ATOMIC - 1;
	qp->sq = rte_zmalloc_socket("ndk_sq", (size_t)(qp->sq_mask + 1) *
				    qp->sq_stride, RTE_CACHE_LINE_SIZE,
				    ad->socket_id);
	qp->rq = rte_zmalloc_socket("ndk_rq", (size_t)(qp->rq_mask + 1) *
				    qp->rq_stride, RTE_CACHE_LINE_SIZE,
				    ad->socket_id);
	qp->rd_res = rte_zmalloc_socket("ndk_rd", SWR_MAX_RD_ATOMIC *
					sizeof(struct swr_rd_res),
					RTE_CACHE_LINE_SIZE, ad->socket_id);
	qp->ooo_map = rte_zmalloc_socket("ndk_ooo", SWR_OOO_BITS / 8,
					 RTE_CACHE_LINE_SIZE, ad->socket_id);
	qp->sr_buf = rte_zmalloc_socket("ndk_sr", SWR_SR_WND *
					sizeof(*qp->sr_buf),
					RTE_CACHE_LINE_SIZE, ad->socket_id);
	if (qp->sq == NULL || qp->rq == NULL || qp->rd_res == NULL ||
	    qp->ooo_map == NULL || qp->sr_buf == NULL) {
		swr_qp_free(qp);
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	}
	ndk_object_header_init(&qp->pub.header, NDK_OBJECT_TYPE_QP);
	qp->pub.dispatch = &swr_qp_dispatch;
	qp->attr.path_mtu = ad->max_path_mtu;
	qp->attr.max_rd_atomic = SWR_DEF_RD_ATOMIC;
	qp->attr.max_dest_rd_atomic = SWR_DEF_RD_ATOMIC;
	qp->state = NDK_QP_STATE_INIT;

	rte_spinlock_lock(&ad->obj_lock);
	idx = swr_qpn_alloc(ad, &qpn);
	if (idx >= 0) {
		ad->n_qp++;
		qp->pub.qpn = qpn;
		qp->q = &ad->q[swr_qpn_queue(ad, qpn)];
		/* An attached application's QP: its own ring, set later. */
		qp->db_ring = qp->q->db_ring;
		__atomic_fetch_add(&rcq->refcnt, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&icq->refcnt, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&pd->refcnt, 1, __ATOMIC_RELAXED);
		if (srq != NULL)
			swr_srq_get(srq);
		/* Visible to the polling thread only when fully built. */
		__atomic_store_n(&ad->qp_tbl[idx], qp, __ATOMIC_RELEASE);
	}
	rte_spinlock_unlock(&ad->obj_lock);
	if (idx < 0) {
		NDK_LOG(DEBUG, "%s: no QP left (%u in use)", ad->name,
			ad->n_qp);
		swr_qp_free(qp);
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	}
	*out = &qp->pub;
	return NDK_STATUS_SUCCESS;
}

ndk_status_t
swr_qp_create(struct ndk_pd *pd, struct ndk_cq *rcq, struct ndk_cq *icq,
	      void *qp_context, uint32_t rq_depth, uint32_t iq_depth,
	      uint32_t max_rsge, uint32_t max_isge, uint32_t inline_size,
	      struct ndk_qp **out)
{
	if (rq_depth == 0)
		return NDK_STATUS_INVALID_PARAMETER;
	return swr_qp_make(pd, rcq, icq, NULL, qp_context, rq_depth, iq_depth,
			   max_rsge, max_isge, inline_size, out);
}

ndk_status_t
swr_qp_create_with_srq(struct ndk_pd *pd, struct ndk_cq *rcq,
		       struct ndk_cq *icq, struct ndk_srq *srq_pub,
		       void *qp_context, uint32_t iq_depth, uint32_t max_isge,
		       uint32_t inline_size, struct ndk_qp **out)
{
	struct swr_srq *srq = (struct swr_srq *)srq_pub;

	/* The responder checks receives against the QP's PD: one PD. */
	if (srq->pd != (struct swr_pd *)pd ||
	    __atomic_load_n(&srq->closing, __ATOMIC_ACQUIRE)) {
		NDK_LOG(DEBUG, "%s: QP on an SRQ of another PD or closing",
			srq->ad->name);
		return NDK_STATUS_INVALID_PARAMETER;
	}
	return swr_qp_make(pd, rcq, icq, srq, qp_context, 0, iq_depth,
			   srq->max_sge, max_isge, inline_size, out);
}
