/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * swroce completer, ACKs and NAKs: an ACK retires send-queue WQEs in order
 * (cumulative; one that passes a READ whose responses did not all arrive
 * means they were lost, and the READ is asked again), a sequence NAK goes
 * back to the request it names (or waits the reorder window first), an
 * RNR NAK waits, a fatal NAK fails the QP. The entry point for every
 * answer a requester receives (swr_comp_rx()). READ responses and their
 * placement: swroce_comp_read.c; the helpers both share: swroce_comp.h.
 */

#include "swroce_adapter.h"
#include "swroce_comp.h"
#include "swroce_mr.h"
#include "swroce_qp.h"
#include "swroce_rc.h"
#include "swroce_rtx.h"

bool
swr_comp_acked(struct swr_qp *qp, uint32_t psn, bool selective)
{
	while (swr_sq_tail_started(qp)) {
		struct swr_swqe *wqe = swr_swqe(qp, qp->sq_tail);
		uint32_t last;

		if (swr_wr_is_local(wqe->op)) {
			if (!swr_qp_retire_local(qp))
				return false;
			continue;
		}
		if (wqe->op == SWR_WR_READ) {
			uint32_t missing = ndk_roce_psn_add(wqe->first_psn,
							    wqe->rd_pkts);

			if (wqe->rd_pkts == wqe->npkts) {
				/* Its responses all came ahead. */
				swr_comp_read_done(qp);
				continue;
			}
			if (ndk_roce_psn_diff(psn, missing) < 0)
				break;
			if (ndk_roce_psn_diff(missing, qp->una_psn) > 0)
				swr_comp_progress(qp, missing);
			/* The answer passed it: as a later response would. */
			if (ndk_roce_psn_diff(ndk_roce_psn_add(psn, 1),
					      qp->rd_hi) > 0)
				qp->rd_hi = ndk_roce_psn_add(psn, 1);
			swr_comp_gap(qp, selective);
			return true;
		}
		last = ndk_roce_psn_add(wqe->first_psn, wqe->npkts - 1);
		if (ndk_roce_psn_diff(psn, last) < 0)
			break;
		if (swr_qp_retire_silent(qp, psn) == 0)
			swr_qp_complete_send(qp, NDK_STATUS_SUCCESS, 0);
	}
	if (ndk_roce_psn_diff(ndk_roce_psn_add(psn, 1), qp->una_psn) > 0)
		swr_comp_progress(qp, ndk_roce_psn_add(psn, 1));
	return false;
}

static void
swr_comp_fatal_nak(struct swr_qp *qp, uint8_t code)
{
	uint32_t perr;

	switch (code) {
	case NDK_ROCE_NAK_INVALID_REQUEST:
		perr = NDK_PERR_REM_INV_REQ;
		break;
	case NDK_ROCE_NAK_REMOTE_ACCESS:
		perr = NDK_PERR_REM_ACCESS;
		break;
	default:
		perr = NDK_PERR_REM_OP;
		break;
	}
	SWR_QP_STAT(qp, nak_fatal_rcvd, naks_rcvd);
	/* The request the NAK names is the oldest one left. */
	if (swr_sq_tail_started(qp))
		swr_qp_complete_send(qp, NDK_STATUS_REMOTE_RESOURCES, perr);
	swr_qp_to_error(qp);
}

/*
 * A sequence NAK for the PSN (or one before it) a sequence NAK went back to
 * less than a retransmission timeout ago (the one armed: from the RTT
 * estimate with adaptive retransmission, at least its floor; else the
 * QP's): the responder sent it before our resend could reach it (a
 * go-back-N peer NAKs what still arrives out of order). Going back again
 * would send the same packets once more. A NAK for a later PSN is a new
 * loss; a resend lost as well is NAKed again after the window, or the
 * retransmission timer (still armed) resends it.
 */
static bool
swr_comp_nak_stale(struct swr_qp *qp, uint32_t psn)
{
	if (qp->nak_rew_t == 0 ||
	    ndk_roce_psn_diff(psn, qp->nak_rew_psn) > 0 ||
	    qp->q->now - qp->nak_rew_t >= swr_rto_value(qp))
		return false;
	SWR_STAT(qp->q, nak_seq_stale);
	return true;
}

/*
 * Go-back-N resends everything from the lost request on, so Karn's rule
 * voids every sample in flight, and under steady loss no request is
 * answered before the next go-back: the estimate stayed empty and every
 * adaptive timeout was the full one. The NAK itself is an answer: a
 * responder sends it when the first request past the gap arrives, which
 * is the one after @p psn unless that was lost too (then a later one, and
 * the sample only errs long). If that request was sent once (at or past
 * the last go-back's psn_max), the time since its WQE's first packet was
 * sent is a sample (long by at most that WQE's own transmission). SEND and
 * WRITE WQEs only: a READ's request is timed by its responses.
 */
static void
swr_comp_nak_sample(struct swr_qp *qp, uint32_t psn)
{
	uint32_t next = ndk_roce_psn_add(psn, 1);

	if (ndk_roce_psn_diff(next, qp->rew_max) < 0 ||
	    ndk_roce_psn_diff(next, qp->psn_max) >= 0)
		return;
	for (uint32_t i = qp->sq_tail; i != qp->req_idx; i++) {
		const struct swr_swqe *w = swr_swqe(qp, i);
		int32_t d;

		if (swr_wr_is_local(w->op))
			continue;
		d = ndk_roce_psn_diff(next, w->first_psn);
		if (d < 0)
			return;
		if ((uint32_t)d >= w->npkts)
			continue;
		if (w->op == SWR_WR_READ || qp->q->now <= w->wr_tx_t)
			return;
		ndk_roce_rtt_sample(&qp->rtt, qp->q->now - w->wr_tx_t);
		SWR_STAT(qp->q, rtt_samples);
		SWR_STAT(qp->q, rtt_nak_samples);
		return;
	}
}

/*
 * A go-back-N responder NAKed @p psn: it dropped every request from there
 * on (IB's in-order rule; selective repeat may have kept some), so the
 * READs from it that the go-back sends again were never executed: their
 * answers answer that request, and a gap in them is asked for as in a
 * first one's (swr_req_read_pkt()), not left to the timer.
 */
static inline void
swr_comp_nak_fresh(struct swr_qp *qp, uint32_t psn)
{
	if (!qp->sr_on) {
		qp->rd_fresh = true;
		qp->rd_fresh_psn = psn;
	}
}

/*
 * A PSN sequence NAK at @p psn: requests were lost from there on.
 */
static void
swr_comp_nak_seq(struct swr_qp *qp, uint32_t psn)
{
	/*
	 * Everything before the NAK's PSN arrived. If that passes a
	 * READ with lost responses, the responder has answered every
	 * READ before the PSN: what any of them misses was lost and
	 * is asked again alone (selectively, once per range), and
	 * the requests go back to the NAK's PSN, not further. A NAK
	 * behind the oldest unacknowledged PSN is an old one.
	 */
	if (swr_comp_acked(qp, swr_psn_prev(psn), true)) {
		if (ndk_roce_psn_diff(psn, qp->rd_hi) > 0)
			qp->rd_hi = psn;
		if (qp->req_idx != qp->sq_tail) {
			swr_comp_reveal(qp, psn);
			SWR_STAT(qp->q, nak_seq_rewinds);
			swr_req_rewind_to(qp, psn);
			swr_comp_nak_fresh(qp, psn);
		}
		return;
	}
	if (psn != qp->una_psn) {
		SWR_STAT(qp->q, rx_ghost_resp);  /* stale NAK */
		return;
	}
	if (swr_comp_nak_stale(qp, psn))
		return;
	if (qp->attr.retry_cnt != 7) {
		if (qp->retry_left == 0) {
			if (swr_sq_tail_started(qp))
				swr_qp_complete_send(qp,
					NDK_STATUS_IO_TIMEOUT,
					NDK_PERR_RETRY_EXCEEDED);
			swr_qp_to_error(qp);
			return;
		}
		qp->retry_left--;
	}
	qp->nak_rew_psn = psn;
	qp->nak_rew_t = RTE_MAX(qp->q->now, UINT64_C(1));
	swr_comp_nak_sample(qp, psn);
	/*
	 * Go-back-N: each go-back costs what is in flight; a NAK is loss
	 * shown, so halve the window (a timer expiry is not: on a loaded
	 * host most adaptive ones are spurious).
	 */
	if (!qp->sr_on && qp->gbn_wnd > SWR_GBN_WND_MIN)
		qp->gbn_wnd >>= 1;
	qp->gbn_acked = 0;
	swr_req_rewind(qp);
	/*
	 * The NAK is the responder's answer: the wait for progress begins
	 * again with the resend (as after a full expiry). Left at the last
	 * progress, a NAK acted on late (after its reorder window) armed a
	 * deadline already past: a full expiry at once, the window sent twice.
	 */
	qp->rto_start = qp->q->now;
	swr_comp_nak_fresh(qp, psn);
}

static void swr_comp_nak_check(struct swr_qp *qp, bool now);

/* How long a sequence NAK naming a READ waits for it (reo_mult > 0). */
static inline uint64_t
swr_comp_nak_window(const struct swr_qp *qp)
{
	return qp->rtt.srtt << (qp->reo_mult - 1);
}

/*
 * Reordering seen (reo_mult, adaptive retransmission on): a sequence NAK
 * naming a READ request may name one that was only late, and going back
 * would make the peer stream that READ twice. Wait the reorder window
 * first (RACK): an answer at or past its PSN cancels it
 * (swr_comp_nak_check()). A SEND or WRITE packet goes back at once: the
 * peer dropped what followed it anyway, and waiting would only delay
 * that. @return true if it waits.
 */
static bool
swr_comp_nak_defer(struct swr_qp *qp, uint32_t psn)
{
	uint32_t k, idx;
	bool local;

	if (likely(qp->reo_mult == 0) || qp->rtt.srtt == 0 ||
	    !swr_rto_adaptive(qp) ||
	    ndk_roce_psn_diff(psn, qp->una_psn) < 0 ||
	    swr_comp_read_find(qp, psn, &k, &idx, &local) == NULL || k != 0)
		return false;
	if (qp->nak_t == 0 || qp->nak_psn != psn) {
		qp->nak_psn = psn;
		qp->nak_t = RTE_MAX(qp->q->now, UINT64_C(1));
		SWR_STAT(qp->q, nak_seq_deferred);
		/* The responder dropped what followed: nothing more may come
		 * to show it, so the window's end is a timer of its own
		 * (armed by the check). */
		swr_comp_nak_check(qp, false);
	}
	return true;
}

/*
 * A sequence NAK waits: an answer at or past its PSN (a READ response, an
 * ACK's progress) shows the request arrived late: forget it. Otherwise act
 * on it once the reorder window passed (the reorder timer looks then), or
 * now if @p now.
 */
static void
swr_comp_nak_check(struct swr_qp *qp, bool now)
{
	uint32_t psn = qp->nak_psn;

	if (ndk_roce_psn_diff(qp->rd_hi, psn) > 0 ||
	    ndk_roce_psn_diff(qp->una_psn, psn) > 0) {
		qp->nak_t = 0;
		SWR_STAT(qp->q, nak_seq_late);
		return;
	}
	/*
	 * The response just before the NAK's PSN came (rd_hi at it): the
	 * responder, which answers in PSN order, has sent all it executed
	 * before that request. One only late is answered right after, once
	 * it arrives: wait a quarter SRTT more for it (RACK's window of a
	 * quarter round trip), not the rest of the window, which is sized
	 * for the streams queued ahead. The NAK's wait ends then at the
	 * latest (nak_t moved so that the window ends there).
	 */
	if (ndk_roce_psn_diff(qp->rd_hi, psn) == 0) {
		uint64_t soon = qp->q->now + (qp->rtt.srtt >> 2);

		if (soon < qp->nak_t + swr_comp_nak_window(qp))
			qp->nak_t = RTE_MAX(soon - swr_comp_nak_window(qp),
					    UINT64_C(1));
	}
	if (!now && qp->q->now - qp->nak_t < swr_comp_nak_window(qp)) {
		swr_reo_arm(qp, qp->nak_t + swr_comp_nak_window(qp));
		return;
	}
	qp->nak_t = 0;
	swr_comp_nak_seq(qp, psn);
}

void
swr_comp_nak_due(struct swr_qp *qp, bool now)
{
	swr_comp_nak_check(qp, now);
}

static void
swr_comp_ack(struct swr_qp *qp, const struct ndk_roce_pkt *p)
{
	const struct ndk_roce_aeth *aeth =
		ndk_roce_pkt_ext(p, p->op->offset[NDK_ROCE_AETH]);
	uint8_t syn = ndk_roce_aeth_syndrome(aeth);
	uint32_t psn = p->psn;

	switch (syn & NDK_ROCE_AETH_TYPE_MASK) {
	case NDK_ROCE_AETH_ACK:
		SWR_STAT(qp->q, acks_rcvd);
		swr_comp_acked(qp, psn, true);
		return;
	case NDK_ROCE_AETH_RNR_NAK:
		SWR_QP_STAT(qp, nak_rnr_rcvd, rnr_naks_rcvd);
		swr_comp_acked(qp, swr_psn_prev(psn), false);
		if (psn != qp->una_psn || qp->rnr_until != 0)
			return;         /* stale */
		if (qp->attr.rnr_retry != 7) {  /* 7 = retry forever */
			if (qp->rnr_left == 0) {
				if (swr_sq_tail_started(qp))
					swr_qp_complete_send(qp,
						NDK_STATUS_IO_TIMEOUT,
						NDK_PERR_RNR_RETRY_EXCEEDED);
				swr_qp_to_error(qp);
				return;
			}
			qp->rnr_left--;
		}
		SWR_STAT(qp->q, rnr_waits);
		swr_rnr_arm(qp, RTE_MAX(qp->q->now + swr_us_to_tsc(qp->ad,
			ndk_roce_rnr_timer_us(syn & NDK_ROCE_AETH_VALUE_MASK)),
			UINT64_C(1)));
		return;
	case NDK_ROCE_AETH_NAK:
		break;
	default:
		SWR_STAT(qp->q, rx_ghost_resp);
		return;
	}

	switch (syn & NDK_ROCE_AETH_VALUE_MASK) {
	case NDK_ROCE_NAK_PSN_SEQ:
		SWR_QP_STAT(qp, nak_seq_rcvd, naks_rcvd);
		if (!swr_comp_nak_defer(qp, psn))
			swr_comp_nak_seq(qp, psn);
		return;
	case NDK_ROCE_NAK_INVALID_REQUEST:
	case NDK_ROCE_NAK_REMOTE_ACCESS:
	case NDK_ROCE_NAK_REMOTE_OP:
		/*
		 * The responder's QP is in ERROR now: nothing outstanding can
		 * complete any more, whatever READ responses went missing
		 * before the NAK's PSN. One behind the oldest unacknowledged
		 * PSN names a request we have finished: not ours to act on.
		 */
		if (ndk_roce_psn_diff(psn, qp->una_psn) < 0) {
			SWR_STAT(qp->q, rx_ghost_resp);
			return;
		}
		swr_comp_acked(qp, swr_psn_prev(psn), false);
		swr_comp_fatal_nak(qp, syn & NDK_ROCE_AETH_VALUE_MASK);
		return;
	default:
		SWR_STAT(qp->q, rx_ghost_resp);
		return;
	}
}

void
swr_comp_tail(struct swr_qp *qp)
{
	while (swr_sq_tail_started(qp)) {
		struct swr_swqe *wqe = swr_swqe(qp, qp->sq_tail);

		if (swr_wr_is_local(wqe->op) && wqe->started) {
			if (!swr_qp_retire_local(qp))
				return;
		} else if (wqe->op == SWR_WR_READ &&
			   wqe->rd_pkts == wqe->npkts) {
			swr_comp_read_done(qp);
		} else {
			return;
		}
	}
}

void
swr_comp_rx(struct swr_qp *qp, const struct ndk_roce_pkt *p, bool icrc_unchecked)
{
	const struct swr_swqe *copied = NULL;

	if (ndk_roce_psn_diff(p->psn, qp->psn_max) >= 0) {
		/* Answers something never sent. */
		if (icrc_unchecked && !ndk_roce_pkt_icrc_ok(p))
			SWR_STAT(qp->q, rx_icrc_errors);
		else
			SWR_STAT(qp->q, rx_ghost_resp);
		return;
	}
	if (icrc_unchecked && !swr_comp_icrc(qp, p, &copied))
		return;
	if (p->opcode == NDK_ROCE_OP_RC_ACK)
		swr_comp_ack(qp, p);
	else if (p->op->flags & NDK_ROCE_OPF_READ)
		swr_comp_read_resp(qp, p, copied);
	else if (p->opcode == NDK_ROCE_OP_NDK_SACK)
		swr_sr_sack_rx(qp, p);
	else
		SWR_STAT(qp->q, rx_ghost_resp); /* atomics: never asked */
	if (unlikely(qp->nak_t != 0) &&
	    swr_qp_state(qp) != NDK_QP_STATE_ERROR)
		swr_comp_nak_check(qp, false);
}
