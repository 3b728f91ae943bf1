/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef SWROCE_RTX_H
#define SWROCE_RTX_H

/**
 * @file
 * swroce retransmission, in one place: the timer values (the full local
 * ACK timeout with its back-off; adaptive retransmission's RTT-based
 * timeout, ndk_adapter_set_adaptive_rto()), RTT sampling (Karn), arming
 * and cancelling the retransmission and RNR timers on the queue's wheel,
 * and what an answer's progress resets: inlines for the engines and the
 * QP. What an expiry means (retry, adaptive probe or re-read, back-off,
 * deferral after a stall, giving up) and the wheel's visit are
 * rc/swroce_rtx.c's.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>

#include "ndk_roce.h"
#include "ndk_roce_rtt.h"
#include "swroce_adapter.h"
#include "swroce_qp.h"
#include "swroce_rc.h"
#include "swroce_timer.h"

/** Doublings of the retransmission timeout on timeouts in a row. */
#define SWR_RTO_MAX_BACKOFF 3
/** Doublings of the adaptive timeout on adaptive expiries in a row. */
#define SWR_RTO_MAX_ADAPT_SHIFT 10
/** Expiries in a row re-armed because this side was not polled. */
#define SWR_RTO_MAX_DEFERS 8
/** READ responses the stream meter counts at most: then it keeps the
 *  later half of its time and count (the rate of the last 512 to 1,024). */
#define SWR_RD_METER_MAX 1024

/** The full local ACK timeout now: doubled per timeout in a row. */
static inline uint64_t
swr_rto_full(const struct swr_qp *qp)
{
	return qp->rto_tsc << qp->rto_backoff;
}

/** Adaptive retransmission on (ndk_adapter_set_adaptive_rto()). */
static inline bool
swr_rto_adaptive(const struct swr_qp *qp)
{
	return __atomic_load_n(&qp->ad->rto_adaptive, __ATOMIC_RELAXED) != 0;
}

/**
 * The retransmission timeout to arm: with adaptive retransmission
 * (ndk_adapter_set_adaptive_rto()) clamp(SRTT + 4 RTTVAR, floor, the QP's
 * timeout), doubled per adaptive expiry in a row; otherwise (or before
 * any RTT sample) the full local ACK timeout. Never above the full one.
 */
static inline uint64_t
swr_rto_value(const struct swr_qp *qp)
{
	uint64_t full = swr_rto_full(qp), v;

	if (!swr_rto_adaptive(qp))
		return full;
	v = ndk_roce_rtt_rto(&qp->rtt, __atomic_load_n(&qp->ad->rto_floor_tsc,
				__ATOMIC_RELAXED), qp->rto_tsc);
	v <<= qp->rto_adapt_shift;
	return v < full ? v : full;
}

/**
 * Start timing an RTT sample on the first transmission of @p psn (Karn:
 * never on a retransmission, i.e. a PSN below psn_max), unless one is
 * being timed. Its end: una_psn passing @p psn (swr_rtt_progress()).
 */
static inline void
swr_rtt_start(struct swr_qp *qp, uint32_t psn)
{
	if (qp->rtt_active || ndk_roce_psn_diff(psn, qp->psn_max) < 0)
		return;
	qp->rtt_active = true;
	qp->rtt_psn = psn;
	qp->rtt_t0 = qp->q->now;
}

/**
 * The requests from @p psn on are sent again, or one at @p psn is whose
 * answer the later ones wait for (the responder executes in PSN order): a
 * sample there is void (Karn).
 */
static inline void
swr_rtt_void_from(struct swr_qp *qp, uint32_t psn)
{
	if (qp->rtt_active && ndk_roce_psn_diff(qp->rtt_psn, psn) >= 0) {
		qp->rtt_active = false;
		SWR_STAT(qp->q, rtt_voided);
	}
}

/**
 * READ responses [@p lo, @p hi) are asked again, their request having
 * arrived (a range past the first response of its READ): only a sample
 * timed inside that range is ambiguous. Later requests were executed
 * already: their answers neither wait for it nor can be taken for it.
 */
static inline void
swr_rtt_void_range(struct swr_qp *qp, uint32_t lo, uint32_t hi)
{
	if (qp->rtt_active && ndk_roce_psn_diff(qp->rtt_psn, lo) >= 0 &&
	    ndk_roce_psn_diff(qp->rtt_psn, hi) < 0) {
		qp->rtt_active = false;
		SWR_STAT(qp->q, rtt_voided);
	}
}

/**
 * Delay-based congestion control (doc/cc.md) takes RTT sample @p rtt: its
 * target is relative to the smallest RTT any QP of the queue has seen to
 * the same peer (rc/swroce_delay.h).
 */
static inline void
swr_rtt_delay_cc(struct swr_qp *qp, uint64_t rtt)
{
	uint32_t key = qp->attr.dest_ip, cuts = (uint32_t)qp->dly.cuts;
	uint64_t base;

	if (key == 0)           /* IPv6: the address folded */
		for (unsigned int i = 0; i < 16; i += 4)
			key ^= (uint32_t)qp->attr.dest_ip6[i] << 24 |
				(uint32_t)qp->attr.dest_ip6[i + 1] << 16 |
				(uint32_t)qp->attr.dest_ip6[i + 2] << 8 |
				qp->attr.dest_ip6[i + 3];
	base = swr_delay_peer_min(qp->q->cc_peer, key, rtt);
	swr_delay_sample(&qp->dly, &qp->ad->delay, rtt, base, qp->q->now);
	qp->q->stats.cc_wnd_cuts += (uint32_t)qp->dly.cuts - cuts;
}

/**
 * Everything before @p una is answered: end the sample if it passed. A
 * valid sample undoes the adaptive back-off; so does progress past all
 * that was out at the last adaptive expiry (swr_comp_progress()), but not
 * any progress (Karn: the answers to retransmitted requests may be the
 * originals', which the timeout was too short for).
 */
static inline void
swr_rtt_progress(struct swr_qp *qp, uint32_t una)
{
	if (qp->rtt_active && ndk_roce_psn_diff(una, qp->rtt_psn) > 0) {
		qp->rtt_active = false;
		qp->rto_adapt_shift = 0;
		ndk_roce_rtt_sample(&qp->rtt, qp->q->now - qp->rtt_t0);
		SWR_STAT(qp->q, rtt_samples);
		/* Delay-based congestion control (doc/cc.md) takes it too. */
		if (unlikely(qp->cc_on) && qp->ad->cc_mode == NDK_CC_DELAY)
			swr_rtt_delay_cc(qp, qp->q->now - qp->rtt_t0);
	}
}

/**
 * A READ response was placed (in order or ahead): count it in the
 * stream's meter. A stream begins with the wait for its first response
 * (rto_start: the request's transmission, or the last progress before
 * it), so the first response already gives a rate, the round trip. A
 * stream that never ends (READs posted as others complete) is measured
 * over its last 512 to 1,024 responses: a stall long ago (a lost request
 * and its NAK, a full timeout) would otherwise slow its rate for good,
 * and stretch every later deadline to the full timeout.
 */
static inline void
swr_rd_meter(struct swr_qp *qp)
{
	if (qp->rd_meter_n++ == 0) {
		/* Or from a restart after an expiry (rd_meter_t0 then). */
		qp->rd_meter_t0 = RTE_MAX(qp->rto_start != 0 ? qp->rto_start :
					  qp->q->now, qp->rd_meter_t0);
	} else if (unlikely(qp->rd_meter_n > SWR_RD_METER_MAX)) {
		qp->rd_meter_t0 += (qp->q->now - qp->rd_meter_t0) >> 1;
		qp->rd_meter_n >>= 1;
	}
	qp->rd_meter_last = qp->q->now;
}

/**
 * A go-back-N responder NAKed rd_fresh_psn (or went silent from there), the
 * requests from it were sent again, and nothing at or past it has been
 * answered since: it still waits for that request (with rd_fresh set).
 */
static inline bool
swr_rd_fresh_waits(const struct swr_qp *qp)
{
	return ndk_roce_psn_diff(qp->rd_hi, qp->rd_fresh_psn) <= 0 &&
		ndk_roce_psn_diff(qp->una_psn, qp->rd_fresh_psn) <= 0 &&
		ndk_roce_psn_diff(qp->req_psn, qp->rd_fresh_psn) > 0;
}

/**
 * No READ is outstanding: the next stream is measured from the wait for
 * its first response (rto_start then).
 */
static inline void
swr_rd_meter_end(struct swr_qp *qp)
{
	qp->rd_meter_n = 0;
	qp->rd_meter_t0 = 0;
}

/**
 * The stream stopped (a full expiry, or a go-back for a silent READ):
 * measure its rate anew from now.
 */
static inline void
swr_rd_meter_restart(struct swr_qp *qp)
{
	qp->rd_meter_n = 0;
	qp->rd_meter_t0 = qp->q->now;
}

/**
 * An adaptive expiry: the time since the stream's latest response was a
 * wait for a lost one, no part of the stream's rate; take it out (the
 * rate of what came before stays: a slow stream stays slow). Kept, each
 * wait made the next deadlines longer (at 5 % loss, after the first
 * losses, stream times of 8 to 33 ms for an SRTT of 163 µs), so that the
 * next loss waited longer still.
 */
static inline void
swr_rd_meter_skip(struct swr_qp *qp)
{
	uint64_t now = qp->q->now;

	if (qp->rd_meter_n != 0 && now > qp->rd_meter_last) {
		qp->rd_meter_t0 += now - qp->rd_meter_last;
		qp->rd_meter_last = now;
	}
}

/**
 * The time the READ responses still to stream take at the rate the
 * stream came in so far: elapsed x left / responses, the ratio rounded up
 * to a power of two (shifts only; at most 4x too long, never too short).
 * Left: the PSNs past both una_psn and the highest response received
 * (rd_hi): holes below rd_hi are ranges lost and asked again, whose
 * answers are due a round trip after the request, not after the stream
 * (counting them made a lost re-read wait for a whole window's stream);
 * with selective repeat at most what the READ at the tail still misses.
 * 0 without a stream. At most @p cap (the caller caps the deadline at the
 * full timeout anyway).
 */
static inline uint64_t
swr_rd_stream_time(const struct swr_qp *qp, uint64_t cap)
{
	uint32_t from = qp->una_psn;
	uint64_t el;
	int32_t left;
	int sh;

	if (qp->rd_meter_n == 0)
		return 0;
	/*
	 * A go-back-N responder that NAKed a PSN (or went silent from there:
	 * swr_comp_read_silent()) was sent that request again and waits for
	 * it: it has nothing to stream before its answer but the short
	 * ranges asked below it, and the answer is due a round trip after
	 * the resend. Its resend lost as well (the responder NAKs a gap
	 * once) is then found after the adaptive timeout, not after the
	 * window's stream time.
	 */
	if (unlikely(qp->rd_fresh) && swr_rd_fresh_waits(qp))
		return 0;
	if (ndk_roce_psn_diff(qp->rd_hi, from) > 0)
		from = qp->rd_hi;
	left = ndk_roce_psn_diff(qp->psn_max, from);
	/*
	 * An ndk-roce responder (selective repeat) streams its oldest READ
	 * first and replays a range ahead of the rest: what the READ at the
	 * tail waits for comes before the later READs' streams. (rdma_rxe
	 * answers a re-read after the streams queued before it.)
	 */
	if (qp->sr_on && swr_sq_tail_started(qp)) {
		const struct swr_swqe *t = swr_swqe(qp, qp->sq_tail);

		if (t->op == SWR_WR_READ &&
		    (int32_t)(t->npkts - t->rd_pkts) < left)
			left = (int32_t)(t->npkts - t->rd_pkts);
	}
	if (left <= 0)
		return 0;
	el = qp->q->now - qp->rd_meter_t0;
	/* floor(log2 left) - floor(log2 n) + 1 >= log2(left / n) */
	sh = __builtin_clz(qp->rd_meter_n) - __builtin_clz((uint32_t)left) + 1;
	if (sh <= 0)
		return RTE_MIN(el >> -sh, cap);
	if (sh >= 32 || el > (cap >> sh))
		return cap;
	return el << sh;
}

/**
 * Arm the retransmission timer on the queue's wheel (the one place that
 * sets rto_deadline). Strict (adaptive retransmission off): the full local
 * ACK timeout from now. Adaptive: swr_rto_value() from now, plus the time
 * the READ responses still expected take at the stream's observed rate
 * (swr_rd_stream_time(): a READ never times out while its responses keep
 * coming, however slowly), but no later than a full local ACK timeout
 * after the wait for progress began (rto_start), which swr_req_timers()
 * counts against retry_cnt.
 */
static inline void
swr_rto_arm(struct swr_qp *qp)
{
	uint64_t now = qp->q->now, end;

	if (qp->rto_tsc == 0)
		return;
	if (qp->rto_start == 0)
		qp->rto_start = now;
	if (!swr_rto_adaptive(qp)) {
		qp->rto_deadline = now + swr_rto_full(qp);
	} else {
		end = qp->rto_start + swr_rto_full(qp);
		qp->rto_deadline = now + swr_rto_value(qp) +
			swr_rd_stream_time(qp, swr_rto_full(qp));
		if (qp->rto_deadline > end)
			qp->rto_deadline = end;
		if (qp->rto_deadline == 0)
			qp->rto_deadline = 1;
	}
	swr_tw_arm(&qp->q->tw, &qp->tm, qp->rto_deadline);
}


/**
 * A READ gap, or a range asked, waits for the reorder window until TSC
 * @p due (RACK's reorder timer): look again then, even if no response
 * comes meanwhile (swr_comp_reo_due()). The QP's node on the wheel serves
 * it too: it comes off at the earlier of this and rto_deadline.
 */
static inline void
swr_reo_arm(struct swr_qp *qp, uint64_t due)
{
	if (due == 0 || (qp->reo_due != 0 && qp->reo_due <= due))
		return;
	qp->reo_due = due;
	swr_tw_arm(&qp->q->tw, &qp->tm, due);
}

/** Wait for the RNR timer until TSC @p until (not 0) before resending. */
static inline void
swr_rnr_arm(struct swr_qp *qp, uint64_t until)
{
	qp->rto_deadline = 0;
	qp->rnr_until = until;
	swr_tw_arm(&qp->q->tw, &qp->tm, until);
}

/*
 * Disarm both timers of @p qp and take it off its queue's wheel (QP reset,
 * flush, destroy; the queue's owner or a control operation).
 */
static inline void
swr_qp_timers_cancel(struct swr_qp *qp)
{
	qp->rto_deadline = 0;
	qp->rto_start = 0;
	qp->rnr_until = 0;
	qp->reo_due = 0;
	swr_tw_cancel(&qp->q->tw, &qp->tm);
}

/**
 * The oldest unacknowledged PSN moved to @p una (swr_comp_progress()):
 * end the RTT sample it passes, reset retries and back-offs, answer a
 * probe, and re-arm the timer for what is still out (or disarm it).
 */
static inline void
swr_rtx_progress(struct swr_qp *qp, uint32_t una)
{
	swr_rtt_progress(qp, una);
	/* Both retry counts are per message (IB; rxe likewise). */
	qp->retry_left = qp->attr.retry_cnt;
	qp->rnr_left = qp->attr.rnr_retry;
	qp->rto_backoff = 0;
	qp->rto_defers = 0;
	/*
	 * All that was out at the last adaptive expiry is answered. Under
	 * congestion control the back-off stays until a valid sample (Karn):
	 * there queues grow by design, and a timeout undone by the answer to
	 * its own probe stayed short of the growing round trip, probed again
	 * and voided every sample (incast: 9,000 spurious probes a second).
	 */
	if (qp->rto_adapt_shift != 0 && !qp->cc_on &&
	    ndk_roce_psn_diff(una, qp->rto_adapt_psn) >= 0)
		qp->rto_adapt_shift = 0;
	if (unlikely(qp->rto_probe != 0)) {
		/* The probe was answered: what is still missing goes again. */
		int32_t n = ndk_roce_psn_diff(qp->psn_max, qp->req_psn);

		qp->rto_probe = 0;
		if (n > 0) {
			qp->q->stats.retransmit_packets += (uint32_t)n;
			qp->ev.retransmit_packets += (uint32_t)n;
		}
	}
	if (una != qp->req_psn) {
		qp->rto_start = qp->q->now;
		swr_rto_arm(qp);
	} else {
		qp->rto_deadline = 0;
		qp->rto_start = 0;
		swr_rd_meter_end(qp);   /* nothing out: a later stream anew */
		/*
		 * An RNR wait with everything acknowledged (a copy of the
		 * refused request was taken after all) has nothing to resend:
		 * it ends, and what was posted during it goes now.
		 */
		if (unlikely(qp->rnr_until != 0)) {
			qp->rnr_until = 0;
			swr_qp_activate(qp);
		}
	}
}

/** The retransmission state of a QP entering RTS (control path). */
static inline void
swr_rtx_reset(struct swr_qp *qp)
{
	qp->retry_left = qp->attr.retry_cnt;
	qp->rnr_left = qp->attr.rnr_retry;
	qp->rto_backoff = 0;
	qp->rto_defers = 0;
	qp->rto_adapt_shift = 0;
	qp->rto_probe = 0;
	qp->rtt_active = false;
	swr_rd_meter_end(qp);
	qp->rd_ord_t0 = 0;
	qp->rack_seq = qp->rd_seq;
	memset(&qp->rtt, 0, sizeof(qp->rtt));
	/* No READ response placed out of order is left from before. */
	if (qp->ooo_cnt != 0)
		memset(qp->ooo_map, 0, SWR_OOO_BITS / 8);
	qp->ooo_cnt = 0;
	qp->rd_hi = qp->una_psn;
	qp->reo_mult = 0;
	qp->reo_quiet = 0;
	qp->reo_psn = qp->una_psn;
	qp->reo_qpsn = qp->una_psn;
	qp->nak_t = 0;
	qp->nak_rew_t = 0;
	qp->rd_fresh = false;
	qp->reo_due = 0;
	qp->sr_hi = qp->una_psn;
	qp->sr_rs_t = 0;
	qp->sr_hole_t = 0;
	qp->rew_max = qp->una_psn;
	qp->gbn_wnd = SWR_MAX_UNACKED_PSN;
	qp->gbn_acked = 0;
	memset(qp->rr_hi, 0, sizeof(qp->rr_hi));
	memcpy(qp->rr_lo, qp->rr_hi, sizeof(qp->rr_lo));
}

/* swroce_rtx.c */

/**
 * Advance queue @p q's timer wheel to its poll's time and act on the QPs'
 * expired retransmission and RNR timers: retry, back off, defer after a
 * stall or give up (the poll loop, once a poll). @return timers fired.
 */
unsigned int swr_rtx_advance(struct swr_queue *q);

#endif /* SWROCE_RTX_H */
