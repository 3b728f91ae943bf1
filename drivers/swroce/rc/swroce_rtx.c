/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * swroce retransmission: what a QP's timer expiring on its queue's wheel
 * means. The RNR timer resends from the oldest unacknowledged PSN. The
 * retransmission timer, when early (adaptive retransmission, before the
 * full local ACK timeout), re-asks the READ at the tail from its first
 * missing response or probes a SEND/WRITE with one AckReq packet, without
 * spending a retry; at the full timeout it spends one, doubles the timeout
 * (up to SWR_RTO_MAX_BACKOFF) and goes back N, or, after retry_cnt, fails
 * the QP. An expiry after the lcore was not polled for longer than the
 * timeout is re-armed instead (bounded). Each expiry is classified in the
 * counters. Timer values, sampling, arming: swroce_rtx.h.
 */

#include <inttypes.h>

#include <rte_common.h>

#include "swroce_adapter.h"
#include "swroce_qp.h"
#include "swroce_rc.h"
#include "swroce_rtx.h"

/* Retries exhausted: the oldest request fails, the QP goes to ERROR. */
static void
swr_req_give_up(struct swr_qp *qp, uint32_t perr)
{
	if (swr_sq_tail_started(qp))
		swr_qp_complete_send(qp, NDK_STATUS_IO_TIMEOUT, perr);
	swr_qp_to_error(qp);
}

/*
 * Which loss a timer expiry stands for (counters, and a debug trace):
 * only losses that nothing after them reveals should ever get here.
 */
static void
swr_rto_classify(struct swr_qp *qp, bool adaptive)
{
	const struct swr_swqe *wqe;
	const char *what;

	/* How long it waited, and whether it knew the round trip. */
	if (qp->rtt.srtt == 0)
		SWR_STAT(qp->q, rto_no_rtt);
	if (qp->rto_start != 0 && qp->q->now > qp->rto_start)
		qp->q->stats.rto_wait_us += (qp->q->now - qp->rto_start) *
			1000000 / qp->ad->tsc_hz;
	if (!swr_sq_tail_started(qp))
		return;
	wqe = swr_swqe(qp, qp->sq_tail);
	if (wqe->op != SWR_WR_READ) {
		SWR_STAT(qp->q, rto_ack_missing);
		what = "ACK of a SEND/WRITE missing";
	} else if (wqe->rd_pkts < wqe->rd_rr_end) {
		SWR_STAT(qp->q, rto_read_reread);
		what = "gap re-read (or its answer) lost";
	} else if (wqe->rd_pkts == 0) {
		SWR_STAT(qp->q, rto_read_unanswered);
		what = "READ unanswered";
	} else {
		SWR_STAT(qp->q, rto_read_tail);
		what = "READ tail responses lost";
	}
	NDK_LOG(DEBUG, "QP %u: %s expiry at PSN %u after %" PRIu64 " us "
		"(srtt %" PRIu64 " us, shift %u, backoff %u; READ %u/%u, "
		"asked up to %u, %u placed out of order, %u READs out, %u WQEs "
		"sent, %d PSNs past it, next %u/%u): %s", qp->pub.qpn,
		adaptive ? "adaptive" : "timeout", qp->una_psn,
		qp->rto_start == 0 ? 0 : (qp->q->now - qp->rto_start) *
		1000000 / qp->ad->tsc_hz,
		qp->rtt.srtt * 1000000 / qp->ad->tsc_hz, qp->rto_adapt_shift,
		qp->rto_backoff, wqe->rd_pkts,
		wqe->npkts, wqe->rd_rr_end, qp->ooo_cnt, qp->rd_outstanding,
		qp->req_idx - qp->sq_tail,
		ndk_roce_psn_diff(qp->psn_max, qp->una_psn),
		swr_swqe(qp, qp->sq_tail + 1)->rd_pkts,
		swr_swqe(qp, qp->sq_tail + 1)->npkts, what);
}

/*
 * An adaptive expiry (before the full local ACK timeout): retransmit
 * without spending a retry. The READ at the tail is asked again alone
 * for its first missing range, as for a gap (the READs after it keep
 * streaming). A SEND or WRITE sends one probe, the packet at una_psn with
 * AckReq (a tail loss probe): a responder that has it all re-ACKs the
 * duplicate with its latest PSN, one that missed it takes it and ACKs;
 * either answer is progress, after which the requester goes on from the
 * PSN after the acknowledged one (go-back-N only of what is missing). A
 * spurious expiry so costs one packet, not the window.
 */
static void
swr_req_adaptive_expiry(struct swr_qp *qp, uint64_t gap)
{
	struct swr_swqe *wqe = swr_swqe(qp, qp->sq_tail);

	/* Not polled for longer than it: the answer may be waiting. */
	if (gap > swr_rto_value(qp)) {
		SWR_STAT(qp->q, adaptive_deferred);
		swr_rto_arm(qp);
		return;
	}
	swr_rto_classify(qp, true);
	SWR_QP_STAT(qp, adaptive_retransmits, adaptive_retransmits);
	swr_rd_meter_skip(qp);
	if (qp->rto_adapt_shift < SWR_RTO_MAX_ADAPT_SHIFT)
		qp->rto_adapt_shift++;
	qp->rto_adapt_psn = qp->psn_max;
	if (swr_sq_tail_started(qp) && wqe->op == SWR_WR_READ &&
	    qp->req_idx != qp->sq_tail && swr_comp_read_silent(qp, wqe)) {
		/*
		 * Asking it alone would leave each request after it to a
		 * timer: go back N, and as after a NAK the READs sent again
		 * were never executed (their gaps asked as in a first answer).
		 */
		swr_req_rewind(qp);
		qp->rd_fresh = true;
		qp->rd_fresh_psn = qp->una_psn;
		swr_rd_meter_restart(qp);       /* the stream starts again */
		return;
	}
	if (qp->rd_fresh && !qp->sr_on && swr_rd_fresh_waits(qp) &&
	    ndk_roce_psn_diff(qp->una_psn, qp->rd_fresh_psn) < 0) {
		/*
		 * The go-back after a sequence NAK past READs missing
		 * responses (swr_req_rewind_to()): nothing from the NAK's PSN
		 * came, so that resend was lost too and the responder, which
		 * NAKs a gap once, waits for it in silence. Go back there
		 * again, and ask the tail READ's range again as well (the ask
		 * or its answer lost with it, or only late: a short range).
		 */
		uint32_t psn = qp->rd_fresh_psn;

		if (wqe->op == SWR_WR_READ && qp->req_idx != qp->sq_tail)
			swr_comp_reread(qp, wqe);
		swr_req_rewind_to(qp, psn);
		qp->rd_fresh = true;
		qp->rd_fresh_psn = psn;
		swr_rto_arm(qp);
		return;
	}
	if (swr_sq_tail_started(qp) && wqe->op == SWR_WR_READ &&
	    qp->req_idx != qp->sq_tail && swr_comp_reread(qp, wqe)) {
		/*
		 * A range asked again: the back-off is for that range lost
		 * again, and ends with its answer (progress past una_psn).
		 * Each new loss of a READ stream starts from the round trip;
		 * a spurious expiry costs a range, not a window.
		 */
		qp->rto_adapt_psn = ndk_roce_psn_add(qp->una_psn, 1);
		swr_rto_arm(qp);
		return;
	}
	/* Selective repeat: the responder keeps what came after it. */
	if (qp->sr_on && swr_sr_resend_una(qp)) {
		swr_rto_arm(qp);
		return;
	}
	if (swr_sq_tail_started(qp) && wqe->op != SWR_WR_READ) {
		uint64_t before = qp->ev.retransmit_packets;

		swr_req_rewind(qp);
		/* One packet goes now; the rest when the answer shows it. */
		qp->q->stats.retransmit_packets -= qp->ev.retransmit_packets -
			before;
		qp->ev.retransmit_packets = before;
		SWR_QP_STAT(qp, retransmit_packets, retransmit_packets);
		qp->rto_probe = 1;
		return;
	}
	swr_req_rewind(qp);
}

/* The retransmission timer expired (@p gap: ticks since the last check). */
static __rte_noinline void
swr_req_expired(struct swr_qp *qp, uint64_t gap)
{
	uint64_t now = qp->q->now;

	if (qp->una_psn == qp->req_psn && qp->sq_tail == qp->req_idx) {
		qp->rto_deadline = 0;    /* nothing outstanding */
		qp->rto_start = 0;
		return;
	}
	/* A sequence NAK waited for reordering: it was right after all. */
	if (unlikely(qp->nak_t != 0)) {
		swr_comp_nak_due(qp, true);
		if (swr_qp_state(qp) != NDK_QP_STATE_ERROR)
			swr_rto_arm(qp);
		return;
	}
	/* Early: the adaptive timeout, not yet the QP's. */
	if (swr_rto_adaptive(qp) && now - qp->rto_start < swr_rto_full(qp)) {
		swr_req_adaptive_expiry(qp, gap);
		return;
	}
	/*
	 * Not looked at for longer than the timeout: this lcore was
	 * descheduled (or the machine stalled both sides). The answers may be
	 * waiting in our receive queue, or the peer stalled with us: give it
	 * a full timeout from now rather than spend a retry. Bounded, so a
	 * peer that is gone still ends the QP.
	 */
	if (gap > qp->rto_tsc && qp->rto_defers < SWR_RTO_MAX_DEFERS) {
		qp->rto_defers++;
		SWR_STAT(qp->q, rto_deferred);
		qp->rto_start = now;
		swr_rto_arm(qp);
		return;
	}
	swr_rto_classify(qp, false);
	SWR_QP_STAT(qp, retransmit_timeouts, retransmit_timeouts);
	/* A loss the window did not prevent: delay mode halves it. */
	if (qp->cc_on && qp->ad->cc_mode == NDK_CC_DELAY)
		swr_delay_timeout(&qp->dly, &qp->ad->delay);
	if (qp->attr.retry_cnt != 7) {  /* 7 = retry forever */
		if (qp->retry_left == 0) {
			swr_req_give_up(qp, NDK_PERR_RETRY_EXCEEDED);
			return;
		}
		qp->retry_left--;
	}
	/* Timeouts in a row at this PSN wait longer (reset on progress). */
	if (qp->rto_backoff < SWR_RTO_MAX_BACKOFF)
		qp->rto_backoff++;
	qp->rto_start = now;            /* the next full timeout from here */
	/* A stream that stopped for a timeout: its rate is measured anew. */
	swr_rd_meter_restart(qp);
	/* Only a READ's last responses or its re-read lost: ask them alone. */
	if (swr_comp_timeout_reread(qp)) {
		swr_rto_arm(qp);
		return;
	}
	swr_req_rewind(qp);
}

/*
 * The QP's RNR or retransmission timer is due: resend after the RNR wait;
 * or retry, back off, defer after a stall or give up (swr_req_expired).
 */
static void
swr_req_timers(struct swr_qp *qp)
{
	uint64_t now = qp->q->now;
	/* The queue's polls, not this QP's visits: it is off the active list. */
	uint64_t gap = now - qp->q->last_now;

	/* A READ gap or ask waited for the reorder window: look again. */
	if (qp->reo_due != 0 && now >= qp->reo_due) {
		uint64_t next;

		qp->reo_due = 0;
		/* A sequence NAK waiting for it first: it may go back N. */
		if (qp->nak_t != 0)
			swr_comp_nak_due(qp, false);
		if (swr_qp_state(qp) != NDK_QP_STATE_ERROR)
			swr_comp_reo_due(qp);
		/* Off the wheel now: back on for the RNR or retransmission
		 * timer, whichever is armed (an earlier reorder time stays). */
		next = qp->rnr_until != 0 ? qp->rnr_until : qp->rto_deadline;
		if (next > now)
			swr_tw_arm(&qp->q->tw, &qp->tm, next);
	}
	if (qp->rnr_until != 0) {
		if (now < qp->rnr_until)
			return;
		qp->rnr_until = 0;
		swr_req_rewind(qp);
		/*
		 * The wait kept the QP off the active list (swr_service()),
		 * posts made meanwhile included; the rewind activates it only
		 * when something sent is still unacknowledged.
		 */
		swr_qp_activate(qp);
		return;
	}
	if (qp->rto_deadline == 0 || now < qp->rto_deadline)
		return;
	swr_req_expired(qp, gap);
}

/* A QP's timer came off the wheel: if still due, swr_req_timers() acts. */
static void
swr_qp_timer_fire(struct swr_tw_node *nd, void *arg)
{
	struct swr_queue *q = arg;
	struct swr_qp *qp = container_of(nd, struct swr_qp, tm);
	uint64_t due = qp->rnr_until != 0 ? qp->rnr_until : qp->rto_deadline;
	uint32_t state;

	if (qp->reo_due != 0 && (due == 0 || qp->reo_due < due))
		due = qp->reo_due;

	SWR_STAT(q, qp_timer_fires);
	if (due == 0)
		return;                 /* disarmed since: nothing to do */
	if (due > q->now) {
		swr_tw_arm(&q->tw, nd, due);    /* moved later meanwhile */
		return;
	}
	state = swr_qp_state(qp);
	if (state == NDK_QP_STATE_RTS || state == NDK_QP_STATE_SQD)
		swr_req_timers(qp);
}

unsigned int
swr_rtx_advance(struct swr_queue *q)
{
	return swr_tw_advance(&q->tw, q->now, swr_qp_timer_fire, q);
}
