/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SWROCE_RTO_H
#define SWROCE_RTO_H

/*
 * swroce retransmission timer values and RTT sampling (adaptive
 * retransmission, ndk_adapter_set_adaptive_rto()): inlines for the
 * requester and completer, included by swroce_priv.h (whose swr_rto_arm()
 * arms the deadline with them). Where the timers are
 * kept and visited is swroce_poll.c's; the expiry decision is
 * swr_req_timers() (swroce_req.c).
 */

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

/** The requests from @p psn on are sent again: a sample there is void. */
static inline void
swr_rtt_void_from(struct swr_qp *qp, uint32_t psn)
{
	if (qp->rtt_active && ndk_roce_psn_diff(qp->rtt_psn, psn) >= 0)
		qp->rtt_active = false;
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
	}
}

#endif /* SWROCE_RTO_H */
