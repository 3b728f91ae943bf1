/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * swroce requester: turns send-queue WQEs into request packets, segmented
 * by path MTU, within the PSN window, ORD and READ_FENCE; go-back-N
 * rewinds and selective READ re-asks (what the timers decide to resend,
 * rc/swroce_rtx.c, and the completer's gaps).
 *
 * Packets are built from the WQE every time they are sent, so nothing is
 * kept for retransmission but the WQE itself. Each is sealed (ICRC) as it
 * is built; large payloads are copied out of the region in the same pass
 * as their ICRC.
 */

#include <errno.h>
#include <string.h>

#include "swroce_adapter.h"
#include "swroce_copy.h"
#include "swroce_mr.h"
#include "swroce_qp.h"
#include "swroce_rc.h"
#include "swroce_rtx.h"
#include "swroce_tx.h"
#include "swroce_zc.h"

/* A data packet's opcode by its WQE's operation (SEND, WRITE, SEND with
 * invalidate: the only ones swr_req_data_pkt() builds) and position. */
static const uint8_t swr_data_ops[SWR_WR_SEND_INV + 1][4] = {
	[SWR_WR_SEND] = {
		NDK_ROCE_OP_RC_SEND_FIRST, NDK_ROCE_OP_RC_SEND_MIDDLE,
		NDK_ROCE_OP_RC_SEND_LAST, NDK_ROCE_OP_RC_SEND_ONLY,
	},
	[SWR_WR_WRITE] = {
		NDK_ROCE_OP_RC_WRITE_FIRST, NDK_ROCE_OP_RC_WRITE_MIDDLE,
		NDK_ROCE_OP_RC_WRITE_LAST, NDK_ROCE_OP_RC_WRITE_ONLY,
	},
	[SWR_WR_SEND_INV] = {
		NDK_ROCE_OP_RC_SEND_FIRST, NDK_ROCE_OP_RC_SEND_MIDDLE,
		NDK_ROCE_OP_RC_SEND_LAST_INV, NDK_ROCE_OP_RC_SEND_ONLY_INV,
	},
};

/* Position of packet @k of @n: 0 first, 1 middle, 2 last, 3 only. */
static inline unsigned int
swr_pkt_pos(uint32_t k, uint32_t n)
{
	if (n == 1)
		return 3;
	if (k == 0)
		return 0;
	return k + 1 == n ? 2 : 1;
}

/*
 * swr_sge_copy_out() for a small payload: one SGE holding all of it in a
 * plain region (the common small message) is copied here, with the same
 * region check; anything else takes the general walk.
 */
static __rte_always_inline int
swr_sge_copy_out_small(struct swr_qp *qp, const struct ndk_sge *sge,
		       uint32_t nsge, uint32_t off, void *dst, uint32_t len)
{
	if (likely(nsge == 1 && off <= sge->length &&
		   len <= sge->length - off && len != 0)) {
		uint64_t va = (uintptr_t)sge->va + off;
		const struct swr_mr *mr = swr_mr_lookup(qp->ad, qp->pd,
							sge->token, va, len, 0);

		if (unlikely(mr == NULL))
			return -EACCES;
		if (likely(mr->kind == SWR_MR_PLAIN))
			memcpy(dst, (const void *)(uintptr_t)va, len);
		else
			swr_mr_copy(mr, va, dst, len, false);
		return 0;
	}
	return swr_sge_copy_out(qp, sge, nsge, off, dst, len);
}

/*
 * Attach a data packet's payload from its region (zero-copy) when it lies
 * in one SGE of a plain region, with the same region check as a copy.
 * @return 1 if attached (the frame is sealed), 0 to copy instead, or
 *   -EACCES if the region is no longer valid.
 */
static int
swr_req_attach_zc(struct swr_qp *qp, const struct swr_swqe *wqe,
		  uint32_t off, uint32_t plen, struct rte_mbuf *m,
		  const struct ndk_roce_bth *bth)
{
	for (uint32_t i = 0; i < wqe->nsge; i++) {
		const struct ndk_sge *s = &wqe->sge[i];
		struct swr_mr *mr;
		uint64_t va;

		if (off >= s->length) {
			off -= s->length;
			continue;
		}
		if (plen > s->length - off)
			return 0;       /* spans SGEs: copied */
		va = (uintptr_t)s->va + off;
		mr = swr_mr_lookup(qp->ad, qp->pd, s->token, va, plen, 0);
		if (unlikely(mr == NULL))
			return -EACCES;
		if (mr->kind != SWR_MR_PLAIN)
			return 0;
		return swr_pkt_attach_zc(qp, m, bth, mr, va, plen) == 0;
	}
	return 0;
}

static inline uint32_t
swr_npkts(const struct swr_qp *qp, uint32_t len)
{
	return len == 0 ? 1 : (len + qp->pmtu - 1) >> qp->pmtu_shift;
}

/*
 * A WQE cannot be carried out (its local memory went away): complete the
 * ones before it as flushed, it with @status, and move the QP to ERROR.
 */
static void
swr_req_fail(struct swr_qp *qp, uint32_t idx, ndk_status_t status,
	     uint32_t perr)
{
	while (qp->sq_tail != idx)
		swr_qp_complete_flushed(qp);
	swr_qp_complete_send(qp, status, perr);
	swr_qp_to_error(qp);
}

/*
 * A READ request for the responses of @p wqe from packet @p k up to packet
 * @p end (exclusive): VA moved on by k MTUs, PSN first_psn + k, the length
 * of those packets' data.
 */
static struct rte_mbuf *
swr_req_read_build(struct swr_qp *qp, const struct swr_swqe *wqe, uint32_t k,
		   uint32_t end)
{
	uint32_t off = k << qp->pmtu_shift;
	uint64_t stop = RTE_MIN((uint64_t)end << qp->pmtu_shift,
				(uint64_t)wqe->length);
	struct ndk_roce_reth *reth;
	struct ndk_roce_bth *bth;
	struct rte_mbuf *m;

	m = swr_pkt_new(qp, NDK_ROCE_OP_RC_READ_REQUEST, 0, false, false,
			ndk_roce_psn_add(wqe->first_psn, k), &bth);
	if (m == NULL)
		return NULL;
	reth = (struct ndk_roce_reth *)(bth + 1);
	reth->va = rte_cpu_to_be_64(wqe->raddr + off);
	reth->rkey = rte_cpu_to_be_32(wqe->rkey);
	reth->len = rte_cpu_to_be_32((uint32_t)stop - off);
	return m;
}

static struct rte_mbuf *
swr_req_read_pkt(struct swr_qp *qp, struct swr_swqe *wqe)
{
	/*
	 * A resumed READ asks only for the responses still missing: from
	 * the rewind point, or past those already placed (received while an
	 * older READ waited for a re-read); never for none.
	 */
	uint32_t k = RTE_MAX(qp->req_pkt, wqe->rd_pkts);
	struct rte_mbuf *m;

	k = RTE_MIN(k, wqe->npkts - 1);
	m = swr_req_read_build(qp, wqe, k, wqe->npkts);
	if (m == NULL)
		return NULL;
	/*
	 * Sent again (a rewind): everything missing is asked for now; but
	 * a READ the responder never executed (past a go-back-N NAK) is
	 * asked for the first time.
	 */
	if (unlikely(ndk_roce_psn_diff(ndk_roce_psn_add(wqe->first_psn, k),
				       qp->psn_max) < 0)) {
		if (qp->rd_fresh && ndk_roce_psn_diff(wqe->first_psn,
						      qp->rd_fresh_psn) >= 0) {
			wqe->rd_rr_end = 0;
		} else {
			wqe->rd_rr_end = wqe->npkts;
			wqe->rd_rr_seq = qp->rd_seq + 1; /* this request */
			wqe->rd_rr_t = qp->q->now;
		}
		wqe->rd_rr_gap = 0;
	}
	/* No READ out before it: no response seen counts (PSNs wrap). */
	if (qp->rd_outstanding == 0)
		qp->rd_hi = ndk_roce_psn_add(wqe->first_psn, k);
	qp->req_psn = ndk_roce_psn_add(wqe->first_psn, wqe->npkts);
	qp->req_pkt = 0;
	qp->req_idx++;
	qp->rd_outstanding++;
	wqe->rd_tx_seq = ++qp->rd_seq;
	if (unlikely(qp->rd_ord_t0 != 0)) {
		/* It waited for ORD: count how long (rd_ord_wait_us). */
		uint64_t us = (qp->q->now - qp->rd_ord_t0) * 1000000 /
			qp->ad->tsc_hz;

		qp->q->stats.rd_ord_wait_us += us;
		if (qp->rd_ord_loss)
			qp->q->stats.rd_ord_loss_us += us;
		qp->rd_ord_t0 = 0;
	}
	swr_frame_seal(m);
	return m;
}

/*
 * A data packet's payload of @p plen bytes at offset @p off of its WQE,
 * copied (inline data, or out of one or more SGEs) into the frame, which
 * is then sealed. @return 0, or -EACCES if a region no longer allows it.
 */
static __rte_always_inline int
swr_req_payload_small(struct swr_qp *qp, const struct swr_swqe *wqe,
		      uint32_t off, uint32_t plen, struct rte_mbuf *m,
		      uint8_t *payload)
{
	if (wqe->nsge == 0)
		memcpy(payload, wqe->inline_data + off, plen);
	else if (swr_sge_copy_out_small(qp, wqe->sge, wqe->nsge, off,
					payload, plen) != 0)
		return -EACCES;
	swr_frame_seal(m);
	return 0;
}

/*
 * The payload of a data packet with SGEs from SWR_CRC_COPY_MIN or the
 * zero-copy threshold on: attached from its region (sealed by the
 * attach), else copied out in the same pass as the ICRC, else copied.
 * @return 0, or -EACCES if a region no longer allows it.
 */
static int
swr_req_payload(struct swr_qp *qp, const struct swr_swqe *wqe, uint32_t off,
		uint32_t plen, struct rte_mbuf *m,
		const struct ndk_roce_bth *bth, uint8_t *payload)
{
	if (plen >= qp->ad->zc_min) {
		int zc = swr_req_attach_zc(qp, wqe, off, plen, m, bth);

		if (zc != 0)
			return zc < 0 ? zc : 0;
	}
	if (plen >= SWR_CRC_COPY_MIN) {
		/* Out of the regions in the same pass as the ICRC. */
		uint32_t crc = swr_frame_icrc_start(m, payload);

		if (swr_sge_copy_out_crc(qp, wqe->sge, wqe->nsge, off, payload,
					 plen, &crc) != 0)
			return -EACCES;
		swr_frame_seal_crc(bth, payload, plen, crc);
		return 0;
	}
	return swr_req_payload_small(qp, wqe, off, plen, m, payload);
}

static struct rte_mbuf *
swr_req_data_pkt(struct swr_qp *qp, struct swr_swqe *wqe, bool *bad)
{
	uint32_t k = qp->req_pkt;
	uint32_t off = k << qp->pmtu_shift;
	uint32_t plen = RTE_MIN(qp->pmtu, wqe->length - off);
	unsigned int pos = swr_pkt_pos(k, wqe->npkts);
	bool last = pos >= 2;
	uint8_t opcode = swr_data_ops[wqe->op][pos];
	const struct ndk_roce_opcode_info *oi = ndk_roce_opcode(opcode);
	/* A SEND's last packet carries the solicited event (WRITE: none). */
	bool se = last && (wqe->flags & NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT) &&
		wqe->op != SWR_WR_WRITE;
	bool ackreq = last || ++qp->pkts_since_ackreq >= SWR_ACKREQ_EVERY ||
		qp->rto_probe != 0;
	struct ndk_roce_bth *bth;
	struct rte_mbuf *m;
	uint8_t *payload;
	int rc;

	m = swr_pkt_build(qp, opcode, oi, plen, se, ackreq, qp->req_psn,
			  &bth);
	if (m == NULL)
		return NULL;
	if (ackreq)
		qp->pkts_since_ackreq = 0;
	if (oi->flags & NDK_ROCE_OPF_IETH) {
		struct ndk_roce_ieth *ieth = (struct ndk_roce_ieth *)
			((uint8_t *)bth + oi->offset[NDK_ROCE_IETH]);

		ieth->rkey = rte_cpu_to_be_32(wqe->rkey);
	}
	if (oi->flags & NDK_ROCE_OPF_RETH) {
		struct ndk_roce_reth *reth = (struct ndk_roce_reth *)(bth + 1);

		reth->va = rte_cpu_to_be_64(wqe->raddr);
		reth->rkey = rte_cpu_to_be_32(wqe->rkey);
		reth->len = rte_cpu_to_be_32(wqe->length);
	}
	payload = (uint8_t *)bth + oi->hdr_len;
	/* A small payload is neither attached nor copied with its ICRC. */
	if (wqe->nsge == 0 ||
	    (plen < SWR_CRC_COPY_MIN && plen < qp->ad->zc_min))
		rc = swr_req_payload_small(qp, wqe, off, plen, m, payload);
	else
		rc = swr_req_payload(qp, wqe, off, plen, m, bth, payload);
	if (unlikely(rc != 0)) {
		rte_pktmbuf_free(m);
		*bad = true;
		return NULL;
	}
	qp->req_psn = ndk_roce_psn_add(qp->req_psn, 1);
	if (++qp->req_pkt == wqe->npkts) {
		qp->req_pkt = 0;
		qp->req_idx++;
	}
	return m;
}

/*
 * swr_req_data_pkt() for a SEND or WRITE of one packet whose payload is
 * copied (inline data, or fewer bytes than SWR_CRC_COPY_MIN and the
 * zero-copy threshold; SEND with Invalidate excluded): its ONLY opcode,
 * the solicited event of a SEND, AckReq (the last packet's), the RETH of a
 * WRITE, the payload and the seal without the general walk. The same
 * frame and the same checks.
 */
static __rte_always_inline struct rte_mbuf *
swr_req_only_pkt(struct swr_qp *qp, struct swr_swqe *wqe, bool *bad)
{
	bool write = wqe->op == SWR_WR_WRITE;
	uint8_t opcode = write ? NDK_ROCE_OP_RC_WRITE_ONLY :
		NDK_ROCE_OP_RC_SEND_ONLY;
	const struct ndk_roce_opcode_info *oi = ndk_roce_opcode(opcode);
	uint32_t plen = wqe->length;
	bool se = !write && (wqe->flags & NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT);
	struct ndk_roce_bth *bth;
	struct rte_mbuf *m;

	m = swr_pkt_build(qp, opcode, oi, plen, se, true, qp->req_psn, &bth);
	if (m == NULL)
		return NULL;
	qp->pkts_since_ackreq = 0;
	if (write) {
		struct ndk_roce_reth *reth = (struct ndk_roce_reth *)(bth + 1);

		reth->va = rte_cpu_to_be_64(wqe->raddr);
		reth->rkey = rte_cpu_to_be_32(wqe->rkey);
		reth->len = rte_cpu_to_be_32(plen);
	}
	if (unlikely(swr_req_payload_small(qp, wqe, 0, plen, m,
					   (uint8_t *)bth + oi->hdr_len) != 0)) {
		rte_pktmbuf_free(m);
		*bad = true;
		return NULL;
	}
	qp->req_psn = ndk_roce_psn_add(qp->req_psn, 1);
	qp->req_idx++;                  /* req_pkt stays 0 */
	return m;
}

/*
 * ORD counts the READs the responder may still be streaming for the
 * first time (its IRD limit, swr_resp_rd_over()); it answers in PSN
 * order, so those are the READs sent whose last response PSN lies at or
 * past the highest response received (rd_hi). A READ not completed only
 * because an older one waits for a range asked again frees its slot. But
 * a re-read is served from the resource the responder keeps for that
 * READ, and a standard responder keeps only its IRD latest (rdma_rxe; IB
 * requires no more): so only with selective repeat, between two ndk-roce
 * peers whose responders keep SWR_MAX_RD_ATOMIC (doc/recovery.md), may
 * the READs not completed exceed ORD, up to that many. Called at the ORD
 * limit only; the walk is skipped while rd_hi has not moved since it
 * last found no room.
 */
static __rte_noinline bool
swr_req_ord_room(struct swr_qp *qp)
{
	uint32_t streaming = 0;

	if (!qp->sr_on || qp->rd_outstanding >= SWR_MAX_RD_ATOMIC ||
	    (qp->rd_ord_t0 != 0 && qp->rd_ord_hi == qp->rd_hi))
		return false;
	for (uint32_t i = qp->sq_tail; i != qp->req_idx; i++) {
		const struct swr_swqe *w = swr_swqe(qp, i);
		uint32_t end = ndk_roce_psn_add(w->first_psn, w->npkts);

		if (w->op == SWR_WR_READ &&
		    ndk_roce_psn_diff(end, qp->rd_hi) > 0)
			streaming++;
	}
	if (streaming < qp->attr.max_rd_atomic) {
		SWR_STAT(qp->q, read_ord_freed);
		return true;
	}
	qp->rd_ord_hi = qp->rd_hi;
	return false;
}

/*
 * A READ to send is held by ORD: note since when, and whether a loss
 * holds the READs out (the tail READ waits for a range asked again).
 */
static __rte_noinline void
swr_req_ord_held(struct swr_qp *qp)
{
	const struct swr_swqe *t = swr_swqe(qp, qp->sq_tail);

	qp->rd_ord_t0 = RTE_MAX(qp->q->now, UINT64_C(1));
	qp->rd_ord_loss = swr_sq_tail_started(qp) && t->op == SWR_WR_READ &&
		t->rd_pkts < t->rd_rr_end;
}

/* True if swr_comp_tail() has something to retire at sq_tail. */
static inline bool
swr_comp_tail_due(const struct swr_qp *qp)
{
	const struct swr_swqe *wqe;

	if (!swr_sq_tail_started(qp))
		return false;
	wqe = swr_swqe(qp, qp->sq_tail);
	return swr_wr_is_local(wqe->op) ||
		(wqe->op == SWR_WR_READ && wqe->rd_pkts == wqe->npkts);
}

unsigned int
swr_req_run(struct swr_qp *qp, unsigned int quota)
{
	struct swr_queue *q = qp->q;
	uint32_t prod = __atomic_load_n(&qp->sq_prod, __ATOMIC_ACQUIRE);
	uint32_t state = swr_qp_state(qp);
	unsigned int made = 0;

	qp->req_parked = false;
	if (qp->rnr_until != 0)
		return 0;
	if (qp->rto_probe > 1) {
		qp->req_parked = true;  /* the probe's answer wakes it */
		return 0;
	}
	while (made < quota && qp->req_idx != prod && swr_tx_room(q) != 0 &&
	       qp->rto_probe < 2) {
		struct swr_swqe *wqe = swr_swqe(qp, qp->req_idx);
		uint32_t idx = qp->req_idx;
		uint32_t psn = qp->req_psn;
		struct rte_mbuf *m;
		bool bad = false;

		if (swr_wr_is_local(wqe->op)) {
			/* Carried out once, in order; skipped on a rewind. */
			if (!wqe->started) {
				if (state == NDK_QP_STATE_SQD ||
				    ((wqe->flags & NDK_OP_FLAG_READ_FENCE) &&
				     qp->rd_outstanding != 0))
					break;
				wqe->lstatus = swr_local_exec(qp, wqe);
				wqe->first_psn = qp->req_psn;
				wqe->npkts = 0;
				wqe->started = 1;
			}
			qp->req_idx++;
			qp->req_pkt = 0;
			continue;
		}
		if (!wqe->started) {
			/* SQD: what started finishes, nothing new starts. */
			if (state == NDK_QP_STATE_SQD)
				break;
			wqe->npkts = swr_npkts(qp, wqe->length);
			wqe->first_psn = qp->req_psn;
			wqe->started = wqe->op != SWR_WR_READ &&
				(wqe->flags & NDK_OP_FLAG_SILENT_SUCCESS) ?
				SWR_WQE_STARTED_SILENT : 1;
			wqe->wr_tx_t = q->now;  /* a READ's fields follow */
		}
		if ((wqe->flags & NDK_OP_FLAG_READ_FENCE) &&
		    qp->rd_outstanding != 0)
			break;
		/* READs: their responses' PSNs, up to the out-of-order map's
		 * half; requests with data: the peer's window. */
		if (ndk_roce_psn_diff(qp->req_psn, qp->una_psn) >=
		    (wqe->op == SWR_WR_READ ? SWR_MAX_UNACKED_RD_PSN :
		     (int32_t)qp->gbn_wnd)) {
			qp->req_parked = true;  /* una_psn moving wakes it */
			break;
		}
		if (wqe->op == SWR_WR_READ) {
			if (qp->rd_outstanding >= qp->attr.max_rd_atomic &&
			    !swr_req_ord_room(qp)) {
				if (qp->rd_ord_t0 == 0)
					swr_req_ord_held(qp);
				break;
			}
			m = swr_req_read_pkt(qp, wqe);
		} else if (wqe->npkts == 1 && wqe->op != SWR_WR_SEND_INV &&
			   (wqe->nsge == 0 ||
			    (wqe->length < SWR_CRC_COPY_MIN &&
			     wqe->length < qp->ad->zc_min))) {
			m = swr_req_only_pkt(qp, wqe, &bad);
		} else {
			m = swr_req_data_pkt(qp, wqe, &bad);
		}
		if (unlikely(m == NULL)) {
			if (bad)
				swr_req_fail(qp, idx, NDK_STATUS_ACCESS_VIOLATION,
					     NDK_PERR_LOC_PROT);
			break;
		}
		/* Time the answer to a READ or an AckReq packet sent once. */
		if (wqe->op == SWR_WR_READ || qp->pkts_since_ackreq == 0)
			swr_rtt_start(qp, psn);
		if (ndk_roce_psn_diff(qp->req_psn, qp->psn_max) > 0)
			qp->psn_max = qp->req_psn;
		if (qp->rto_deadline == 0)
			swr_rto_arm(qp);
		swr_pkt_xmit(qp, m);    /* sealed when built */
		made++;
		if (unlikely(qp->rto_probe != 0)) {
			qp->rto_probe = 2;      /* the probe: wait for its answer */
			qp->req_parked = true;
		}
	}
	/*
	 * Local operations with nothing ahead of them complete now (and
	 * READs placed in full); the common case, a SEND or WRITE waiting
	 * for its ACK at the tail, costs a look at one WQE.
	 */
	if (swr_comp_tail_due(qp))
		swr_comp_tail(qp);
	return made;
}

bool
swr_req_resend(struct swr_qp *qp, uint32_t idx, uint32_t k)
{
	struct swr_swqe *wqe = swr_swqe(qp, idx);
	uint32_t s_idx = qp->req_idx, s_pkt = qp->req_pkt;
	uint32_t s_psn = qp->req_psn, s_ack = qp->pkts_since_ackreq;
	uint32_t psn = ndk_roce_psn_add(wqe->first_psn, k);
	struct rte_mbuf *m;
	bool bad = false;

	if (swr_tx_room(qp->q) == 0)
		return false;
	/* Built as the requester would, from where that packet is. */
	qp->req_idx = idx;
	qp->req_pkt = k;
	qp->req_psn = psn;
	qp->pkts_since_ackreq = SWR_ACKREQ_EVERY;      /* with AckReq */
	m = swr_req_data_pkt(qp, wqe, &bad);
	qp->req_idx = s_idx;
	qp->req_pkt = s_pkt;
	qp->req_psn = s_psn;
	qp->pkts_since_ackreq = s_ack;
	/* A region gone meanwhile: the WQE fails when it is resent in order
	 * (go-back-N), as it would have. */
	if (m == NULL)
		return false;
	qp->q->stats.retransmit_packets++;
	qp->ev.retransmit_packets++;
	swr_rtt_void_from(qp, psn);
	swr_pkt_xmit(qp, m);            /* sealed when built */
	return true;
}

bool
swr_req_reread(struct swr_qp *qp, struct swr_swqe *wqe, uint32_t end)
{
	uint32_t k = RTE_MIN(wqe->rd_pkts, wqe->npkts - 1);
	struct rte_mbuf *m;

	if (swr_tx_room(qp->q) == 0)
		return false;
	end = RTE_MIN(end, wqe->npkts);
	end = RTE_MAX(end, k + 1);
	m = swr_req_read_build(qp, wqe, k, end);
	if (m == NULL)
		return false;
	wqe->rd_rr_end = end;
	wqe->rd_rr_gap = 0;             /* swr_comp_ask() sets it */
	wqe->rd_rr_seq = ++qp->rd_seq;
	wqe->rd_rr_t = qp->q->now;
	qp->q->stats.retransmit_packets += end - k;
	qp->ev.retransmit_packets += end - k;
	/*
	 * From its first response: the request itself may be what was lost,
	 * and the responder answers later requests only after it. Past it,
	 * the request arrived: only the range is asked again.
	 */
	if (k == 0)
		swr_rtt_void_from(qp, wqe->first_psn);
	else
		swr_rtt_void_range(qp, ndk_roce_psn_add(wqe->first_psn, k),
				   ndk_roce_psn_add(wqe->first_psn, end));
	swr_pkt_send(qp, m);
	return true;
}

void
swr_req_rewind(struct swr_qp *qp)
{
	struct swr_swqe *wqe;
	uint32_t n;
	int32_t k;

	if (!swr_sq_tail_started(qp))
		return;                 /* nothing sent and unacknowledged */
	wqe = swr_swqe(qp, qp->sq_tail);
	k = ndk_roce_psn_diff(qp->una_psn, wqe->first_psn);
	if (k < 0 || wqe->npkts == 0)
		k = 0;
	else if ((uint32_t)k >= wqe->npkts)
		k = wqe->npkts - 1;
	n = (uint32_t)RTE_MAX(ndk_roce_psn_diff(qp->req_psn, qp->una_psn), 0);
	qp->q->stats.retransmit_packets += n;
	qp->ev.retransmit_packets += n;
	swr_rtt_void_from(qp, qp->una_psn);
	qp->rd_fresh = false;
	qp->rew_max = qp->psn_max;
	/* Resume mid-message; a READ re-asks from its first missing response. */
	qp->req_idx = qp->sq_tail;
	qp->req_pkt = (uint32_t)k;
	qp->req_psn = ndk_roce_psn_add(wqe->first_psn, (uint32_t)k);
	qp->rd_outstanding = 0;
	qp->pkts_since_ackreq = 0;
	qp->rto_deadline = 0;
	qp->rto_probe = 0;
	qp->nak_t = 0;                  /* a waiting NAK: resent anyway */
	swr_qp_activate(qp);
}

void
swr_req_rewind_to(struct swr_qp *qp, uint32_t psn)
{
	uint32_t rd = 0;
	int32_t n;

	for (uint32_t i = qp->sq_tail; i != qp->req_idx; i++) {
		struct swr_swqe *wqe = swr_swqe(qp, i);
		int32_t k;

		if (swr_wr_is_local(wqe->op))
			continue;
		k = ndk_roce_psn_diff(psn, wqe->first_psn);
		if (k < 0)
			break;
		if ((uint32_t)k >= wqe->npkts) {
			rd += wqe->op == SWR_WR_READ;
			continue;
		}
		n = ndk_roce_psn_diff(qp->req_psn, psn);
		if (n > 0) {
			qp->q->stats.retransmit_packets += (uint32_t)n;
			qp->ev.retransmit_packets += (uint32_t)n;
		}
		swr_rtt_void_from(qp, psn);
		qp->rew_max = qp->psn_max;
		qp->rd_fresh = false;
		qp->req_idx = i;
		qp->req_pkt = (uint32_t)k;
		qp->req_psn = psn;
		qp->rd_outstanding = rd;
		qp->pkts_since_ackreq = 0;
		qp->rto_probe = 0;
		swr_qp_activate(qp);
		return;
	}
	swr_req_rewind(qp);             /* not a PSN sent: all of it */
}
