/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * swroce selective repeat, between two ndk-roce peers that negotiated it
 * at connection set-up (the CM's ECE vendor option, doc/recovery.md; or
 * attr.selective_repeat on both QPs connected by hand).
 *
 * Responder: a request that arrives past a missing one is kept (a
 * reference to its frame, slot psn % SWR_SR_WND, at most SWR_SR_WND per
 * QP and SWR_SR_QUEUE_MAX per queue) instead of dropped, and answered with
 * a selective acknowledgement (NDK_ROCE_OP_NDK_SACK: the first missing PSN
 * and a bitmap of what is kept after it). When the missing request comes,
 * the kept ones are executed after it in PSN order through the ordinary
 * path (swr_resp_exec()), so placement, completions and every check are
 * those of in-order arrival: IB's ordering to the consumer holds.
 *
 * Requester: a SACK acknowledges everything before its PSN; each request
 * packet (a SEND or WRITE packet, a READ request) between it and the
 * highest PSN it shows kept that is not kept was lost and is sent again
 * alone (swr_req_resend(), a READ by swr_req_reread()), once per SACK
 * round (sr_hi); the packets after it are not. A lost retransmission is
 * found by the timer, whose adaptive expiry resends the oldest packet alone
 * (swr_sr_resend_una()). Anything the responder could not keep falls back
 * to IB's sequence NAK and go-back-N.
 */

#include <rte_mbuf.h>

#include "swroce_adapter.h"
#include "swroce_comp.h"
#include "swroce_qp.h"
#include "swroce_rc.h"
#include "swroce_rtx.h"
#include "swroce_tx.h"

static inline bool
swr_sr_has(const struct swr_qp *qp, uint32_t slot)
{
	return (qp->sr_map[slot >> 6] >> (slot & 63)) & 1;
}

static inline void
swr_sr_flip(struct swr_qp *qp, uint32_t slot)
{
	qp->sr_map[slot >> 6] ^= UINT64_C(1) << (slot & 63);
}

/* Take the frame out of slot @p slot (held). */
static struct rte_mbuf *
swr_sr_take(struct swr_qp *qp, uint32_t slot)
{
	struct rte_mbuf *m = qp->sr_buf[slot];

	qp->sr_buf[slot] = NULL;
	swr_sr_flip(qp, slot);
	qp->sr_cnt--;
	qp->q->sr_held--;
	return m;
}

/* Queue an ACK of everything before the expected PSN (swr_resp_tx()). */
static inline void
swr_sr_ack_due(struct swr_qp *qp)
{
	qp->ack_pending = true;
	qp->ack_syndrome = NDK_ROCE_AETH_ACK;
	qp->ack_psn = ndk_roce_psn_add(qp->epsn, NDK_ROCE_PSN_MASK);
	swr_qp_activate(qp);
}

/* Queue a SACK at the expected PSN (sent by swr_resp_tx()). */
static inline void
swr_sr_sack_due(struct swr_qp *qp)
{
	qp->ack_pending = true;
	qp->ack_syndrome = NDK_ROCE_AETH_NAK | NDK_ROCE_NAK_PSN_SEQ;
	qp->ack_psn = qp->epsn;
	swr_qp_activate(qp);
}

bool
swr_sr_hold(struct swr_qp *qp, const struct ndk_roce_pkt *p, int32_t d)
{
	uint32_t slot = p->psn & (SWR_SR_WND - 1);

	if ((uint32_t)d >= SWR_SR_WND)
		return false;
	if (swr_sr_has(qp, slot)) {
		/* The same request again (a resend crossed the SACK): keep
		 * one. Another PSN in its slot is stale: replace it. */
		if (qp->sr_buf[slot]->hash.usr == p->psn) {
			SWR_STAT(qp->q, sr_dup_held);
			swr_sr_sack_due(qp);
			return true;
		}
		rte_pktmbuf_free(swr_sr_take(qp, slot));
	}
	if (qp->q->sr_held >= SWR_SR_QUEUE_MAX)
		return false;
	/* The frame is ours now (the poll frees its reference): its PSN
	 * goes where the RX hash was. */
	rte_pktmbuf_refcnt_update(p->m, 1);     /* every segment */
	p->m->hash.usr = p->psn;
	qp->sr_buf[slot] = p->m;
	swr_sr_flip(qp, slot);
	qp->sr_cnt++;
	qp->q->sr_held++;
	SWR_STAT(qp->q, sr_held);
	swr_sr_sack_due(qp);
	return true;
}

void
swr_sr_drain(struct swr_qp *qp)
{
	bool any = false;

	while (qp->sr_cnt != 0 &&
	       swr_qp_state(qp) != NDK_QP_STATE_ERROR) {
		uint32_t slot = qp->epsn & (SWR_SR_WND - 1);
		struct ndk_roce_pkt p;
		struct rte_mbuf *m;

		if (!swr_sr_has(qp, slot))
			break;
		m = swr_sr_take(qp, slot);
		/* Parsed and checked once already; only its PSN may be stale. */
		if (ndk_roce_parse(m, &p, false) == NDK_ROCE_PARSE_OK &&
		    p.psn == qp->epsn) {
			swr_resp_exec(qp, &p);
			any = true;
		}
		rte_pktmbuf_free(m);
		/* An RNR NAK stops at that SEND: the peer resends from it. */
		if (qp->seq_nak_sent)
			return;
	}
	if (swr_qp_state(qp) == NDK_QP_STATE_ERROR) {
		swr_sr_release(qp);
		return;
	}
	/*
	 * Still requests kept past another missing one: SACK it. Else
	 * acknowledge what was executed (a SACK queued before must not go
	 * out as a plain NAK for a gap that is filled).
	 */
	if (qp->sr_cnt != 0)
		swr_sr_sack_due(qp);
	else if (any || (qp->ack_pending && (qp->ack_syndrome &
		 NDK_ROCE_AETH_TYPE_MASK) == NDK_ROCE_AETH_NAK &&
		 (qp->ack_syndrome & NDK_ROCE_AETH_VALUE_MASK) ==
		 NDK_ROCE_NAK_PSN_SEQ))
		swr_sr_ack_due(qp);
}

void
swr_sr_release(struct swr_qp *qp)
{
	for (uint32_t w = 0; qp->sr_cnt != 0 && w < SWR_SR_WND / 64; w++) {
		while (qp->sr_map[w] != 0) {
			uint32_t slot = w * 64 +
				(uint32_t)__builtin_ctzll(qp->sr_map[w]);

			rte_pktmbuf_free(swr_sr_take(qp, slot));
		}
	}
}

void
swr_sr_send_sack(struct swr_qp *qp)
{
	uint32_t psn = qp->epsn;
	struct ndk_roce_bth *bth;
	struct rte_mbuf *m;
	uint8_t *map;

	m = swr_pkt_new(qp, NDK_ROCE_OP_NDK_SACK, 0, false, false, psn, &bth);
	if (m == NULL)
		return;
	ndk_roce_aeth_set((struct ndk_roce_aeth *)(bth + 1),
			  NDK_ROCE_AETH_NAK | NDK_ROCE_NAK_PSN_SEQ, qp->msn);
	map = (uint8_t *)(bth + 1) + NDK_ROCE_AETH_LEN;
	memset(map, 0, NDK_ROCE_SACK_LEN);
	/* Each kept request, at its offset from the first missing PSN. */
	for (uint32_t w = 0; w < SWR_SR_WND / 64; w++) {
		for (uint64_t b = qp->sr_map[w]; b != 0; b &= b - 1) {
			uint32_t j = (w * 64 + (uint32_t)__builtin_ctzll(b) -
				      psn) & (SWR_SR_WND - 1);

			if (j < NDK_ROCE_SACK_BITS)
				map[j >> 3] |= (uint8_t)(1u << (j & 7));
		}
	}
	SWR_STAT(qp->q, sack_sent);
	SWR_QP_STAT(qp, nak_seq_sent, naks_sent);
	swr_pkt_send(qp, m);
}

/* ------------------------------------------------------------------ */
/* Requester                                                           */
/* ------------------------------------------------------------------ */

/* True if the SACK bitmap @p map shows the request at @p psn + @p j kept. */
static inline bool
swr_sack_has(const uint8_t *map, uint32_t j)
{
	return j < NDK_ROCE_SACK_BITS && ((map[j >> 3] >> (j & 7)) & 1) != 0;
}

/* One past the highest PSN offset @p map shows kept; 0 if none. */
static uint32_t
swr_sack_top(const uint8_t *map)
{
	for (int32_t b = NDK_ROCE_SACK_LEN - 1; b >= 0; b--)
		if (map[b] != 0)
			return (uint32_t)b * 8 + 32 - (uint32_t)__builtin_clz(map[b]);
	return 0;
}

/*
 * Send again, alone, each request packet the SACK at @p psn (bitmap
 * @p map, kept up to offset @p top) shows lost from offset @p from on.
 * @return true if a SEND or WRITE packet went, the first at *@p first.
 */
static bool
swr_sr_resend_holes(struct swr_qp *qp, uint32_t psn, const uint8_t *map,
		    uint32_t from, uint32_t top, uint32_t *first)
{
	bool wr = false;

	for (uint32_t i = qp->sq_tail; i != qp->req_idx + 1; i++) {
		struct swr_swqe *w = swr_swqe(qp, i);
		int32_t d0;
		uint32_t n;

		if (i == qp->req_idx && qp->req_pkt == 0)
			break;          /* nothing of it sent yet */
		if (!w->started)
			break;
		if (swr_wr_is_local(w->op))
			continue;
		d0 = ndk_roce_psn_diff(w->first_psn, psn);
		if (d0 >= (int32_t)top)
			break;
		if (w->op == SWR_WR_READ) {
			/*
			 * Its request lost (not its responses: nothing came):
			 * sent again, the request's first execution, so its
			 * answers are its own (RACK) and a gap in them is
			 * asked for as in a first answer.
			 */
			if (d0 >= (int32_t)from && !swr_sack_has(map, (uint32_t)d0)
			    && w->rd_pkts == 0 && w->rd_rr_end == 0 &&
			    swr_req_reread(qp, w, w->npkts)) {
				SWR_STAT(qp->q, sr_resent);
				w->rd_rr_end = 0;
				w->rd_tx_seq = w->rd_rr_seq;
				/* Its answer twice: the request was late. */
				swr_rr_note(qp, w->first_psn, ndk_roce_psn_add(
						w->first_psn, w->npkts));
			}
			continue;
		}
		/* Packets sent: all, or up to req_pkt of the one at req_idx. */
		n = i == qp->req_idx ? qp->req_pkt : w->npkts;
		for (uint32_t k = 0; k < n; k++) {
			int32_t j = d0 + (int32_t)k;

			if (j < (int32_t)from)
				continue;
			if (j >= (int32_t)top)
				break;
			if (swr_sack_has(map, (uint32_t)j))
				continue;
			if (!swr_req_resend(qp, i, k))
				return wr;
			SWR_STAT(qp->q, sr_resent);
			if (!wr)
				*first = ndk_roce_psn_add(psn, (uint32_t)j);
			wr = true;
		}
	}
	return wr;
}

/*
 * The reorder window of a SACK whose first missing PSN is @p psn, in PSNs
 * that must be shown kept past a hole before it counts as lost (RACK, as
 * for READ responses): 0 until reordering was seen (reo_mult, grown by
 * late READ responses and by SACK rounds found spurious), then 4 <<
 * reo_mult; 0 again once the same first hole has been shown for
 * SRTT << (reo_mult - 1) (a window of time), so a hole with few requests
 * after it is not left to the timer.
 */
static uint32_t
swr_sr_reorder(struct swr_qp *qp, uint32_t psn)
{
	uint64_t srtt = qp->rtt.srtt;

	if (likely(qp->reo_mult == 0))
		return 0;
	if (qp->sr_hole_t == 0 || qp->sr_hole_psn != psn) {
		qp->sr_hole_psn = psn;
		qp->sr_hole_t = RTE_MAX(qp->q->now, UINT64_C(1));
	} else if (srtt != 0 && qp->q->now - qp->sr_hole_t >=
		   (srtt << (qp->reo_mult - 1))) {
		return 0;
	}
	return UINT32_C(4) << qp->reo_mult;
}

void
swr_sr_sack_rx(struct swr_qp *qp, const struct ndk_roce_pkt *p)
{
	const uint8_t *map = (const uint8_t *)ndk_roce_pkt_ext(p,
		p->op->offset[NDK_ROCE_AETH]) + NDK_ROCE_AETH_LEN;
	uint32_t psn = p->psn, top, from, thr, first = 0;
	uint64_t resent;
	int32_t d;

	SWR_STAT(qp->q, sack_rcvd);
	if (unlikely(!qp->sr_on)) {
		SWR_STAT(qp->q, rx_ghost_resp);   /* never negotiated */
		return;
	}
	SWR_QP_STAT(qp, nak_seq_rcvd, naks_rcvd);
	if (ndk_roce_psn_diff(psn, qp->una_psn) < 0) {
		SWR_STAT(qp->q, rx_ghost_resp);   /* an old one */
		return;
	}
	/*
	 * Everything before its PSN arrived; a READ before it missing
	 * responses has been answered in full: those are asked again alone
	 * (as for a sequence NAK, swr_comp_nak_seq()).
	 */
	if (swr_comp_acked(qp, swr_psn_prev(psn), true)) {
		if (ndk_roce_psn_diff(psn, qp->rd_hi) > 0)
			qp->rd_hi = psn;
		swr_comp_reveal(qp, psn);
	}
	if (swr_qp_state(qp) == NDK_QP_STATE_ERROR)
		return;
	top = swr_sack_top(map);
	if (top == 0)
		return;
	thr = swr_sr_reorder(qp, psn);
	if (top <= thr + 1) {
		SWR_STAT(qp->q, sack_deferred);
		return;
	}
	top -= thr;
	d = ndk_roce_psn_diff(qp->sr_hi, psn);
	from = d > 0 ? (uint32_t)d : 0;
	if (from >= top)
		return;
	resent = qp->q->stats.sr_resent;
	/*
	 * A round that sent a SEND or WRITE packet again is judged when
	 * una_psn passes that packet (swr_sr_progress()). Not a READ
	 * request: its answer does not queue behind the READs after it
	 * (the responder kept them unexecuted), so it comes much sooner
	 * than a round trip whether or not the request was late; a late
	 * one shows as its responses coming twice (swr_rr_note()).
	 */
	if (swr_sr_resend_holes(qp, psn, map, from, top, &first)) {
		qp->sr_rs_psn = first;
		qp->sr_rs_t = RTE_MAX(qp->q->now, UINT64_C(1));
	}
	if (qp->q->stats.sr_resent != resent)
		swr_reo_round(qp);
	qp->sr_hi = ndk_roce_psn_add(psn, top);
	swr_rto_arm(qp);
}

void
swr_sr_progress(struct swr_qp *qp)
{
	uint64_t srtt = qp->rtt.srtt;

	if (srtt != 0 && qp->q->now - qp->sr_rs_t < (srtt >> 1)) {
		SWR_STAT(qp->q, sack_spurious);
		swr_reo_widen(qp);
	}
	qp->sr_rs_t = 0;
}

bool
swr_sr_resend_una(struct swr_qp *qp)
{
	struct swr_swqe *w = swr_swqe(qp, qp->sq_tail);
	int32_t k = ndk_roce_psn_diff(qp->una_psn, w->first_psn);

	if (!swr_sq_tail_started(qp) || w->op == SWR_WR_READ ||
	    swr_wr_is_local(w->op) || k < 0 || (uint32_t)k >= w->npkts ||
	    (qp->req_idx == qp->sq_tail && (uint32_t)k >= qp->req_pkt))
		return false;
	if (!swr_req_resend(qp, qp->sq_tail, (uint32_t)k))
		return false;
	SWR_STAT(qp->q, sr_resent);
	return true;
}
