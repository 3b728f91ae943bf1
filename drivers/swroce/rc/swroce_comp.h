/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef SWROCE_COMP_H
#define SWROCE_COMP_H

/**
 * @file
 * swroce completer, private to its two halves: ACK and NAK handling
 * (rc/swroce_comp.c) and READ responses placed in order or not
 * (rc/swroce_comp_read.c). The calls the rest of swroce makes are in
 * swroce_rc.h.
 */

#include <stdbool.h>
#include <stdint.h>

#include "ndk_roce.h"
#include "swroce_qp.h"
#include "swroce_rtx.h"

/** The PSN before @p psn. */
static inline uint32_t
swr_psn_prev(uint32_t psn)
{
	return ndk_roce_psn_add(psn, NDK_ROCE_PSN_MASK);
}

/**
 * Requester (swroce_sr.c): una_psn passed the first request a SACK round
 * sent again (sr_rs_t set): if that came sooner than half a round trip
 * after the resend, the original arrived, late: widen the reorder window.
 */
void swr_sr_progress(struct swr_qp *qp);

/**
 * The oldest unacknowledged PSN moved: skip what a rewind would resend
 * needlessly; retries and the timer: swr_rtx_progress().
 */
static inline void
swr_comp_progress(struct swr_qp *qp, uint32_t una)
{
	/* A go-back-N window after go-backs: + MIN per window answered. */
	if (unlikely(qp->gbn_wnd < SWR_MAX_UNACKED_PSN)) {
		qp->gbn_acked += (uint32_t)ndk_roce_psn_diff(una, qp->una_psn);
		if (qp->gbn_acked >= qp->gbn_wnd) {
			qp->gbn_acked = 0;
			qp->gbn_wnd += SWR_GBN_WND_MIN;
		}
	}
	qp->una_psn = una;
	/* Rewound to this WQE: skip what the peer confirmed meanwhile. */
	if (qp->req_idx == qp->sq_tail && swr_sq_tail_started(qp) &&
	    ndk_roce_psn_diff(una, qp->req_psn) > 0) {
		const struct swr_swqe *wqe = swr_swqe(qp, qp->sq_tail);
		int32_t k = ndk_roce_psn_diff(una, wqe->first_psn);

		if (k > 0 && (uint32_t)k < wqe->npkts) {
			qp->req_pkt = (uint32_t)k;
			qp->req_psn = una;
		}
	}
	/* Selective repeat: was the last SACK round's resend needed? */
	if (unlikely(qp->sr_rs_t != 0) &&
	    ndk_roce_psn_diff(una, qp->sr_rs_psn) > 0)
		swr_sr_progress(qp);
	swr_rtx_progress(qp, una);
	/* The window moved, a probe is answered: the requester goes on. */
	if (qp->req_parked) {
		qp->req_parked = false;
		swr_qp_activate(qp);
	}
}

/**
 * Reordering shown (a range or request sent again whose original then
 * arrived): widen the reorder window (reo_mult, at most 4), once until
 * what was out then is answered.
 */
static inline void
swr_reo_widen(struct swr_qp *qp)
{
	qp->reo_quiet = 0;
	if (ndk_roce_psn_diff(qp->una_psn, qp->reo_psn) < 0)
		return;
	qp->reo_psn = qp->psn_max;
	if (qp->reo_mult < 4)
		qp->reo_mult++;
}

/**
 * READ responses [@p lo, @p hi) were asked again because they were
 * shown lost: one of them arriving twice shows reordering
 * (swr_reo_spurious()). SWR_RR_RANGES such ranges are kept, each until a
 * copy of it came or una_psn passed it by SWR_RR_KEEP: a copy comes a
 * round trip after the ask, behind what the link holds (a window of
 * READs), and with many gaps shown (reordering not learnt yet) the
 * latest ranges alone were overwritten before any copy came. A range
 * not kept is asked all the same.
 */
static inline void
swr_rr_note(struct swr_qp *qp, uint32_t lo, uint32_t hi)
{
	for (uint32_t n = 0; n < SWR_RR_RANGES; n++) {
		uint32_t i = qp->rr_i++ % SWR_RR_RANGES;

		if (qp->rr_lo[i] == qp->rr_hi[i] ||
		    ndk_roce_psn_diff(qp->una_psn, qp->rr_hi[i]) >
		    SWR_RR_KEEP) {
			qp->rr_lo[i] = lo;
			qp->rr_hi[i] = hi;
			return;
		}
	}
}

/**
 * A round that took gaps for losses (ranges or requests sent again): after
 * 16 such rounds (una_psn passing what was out) with no reordering shown,
 * narrow the reorder window again.
 */
static inline void
swr_reo_round(struct swr_qp *qp)
{
	if (qp->reo_mult != 0 &&
	    ndk_roce_psn_diff(qp->una_psn, qp->reo_qpsn) >= 0) {
		qp->reo_qpsn = qp->psn_max;
		if (++qp->reo_quiet >= 16) {
			qp->reo_quiet = 0;
			qp->reo_mult--;
		}
	}
}

/**
 * Retire every WQE acknowledged through @p psn (inclusive).
 * @return true if it passes a READ whose responses were lost (the READ
 * was asked again, once per gap; @p selective as for swr_comp_gap()).
 */
bool swr_comp_acked(struct swr_qp *qp, uint32_t psn, bool selective);

/**
 * Responses of the READ at the tail were lost (an ACK or NAK passed them):
 * ask for its first missing range again at once, once per range.
 * @p selective: that READ alone, the later ones keep streaming; otherwise
 * (requests were lost too) go back N.
 */
void swr_comp_gap(struct swr_qp *qp, bool selective);

/**
 * A READ response (or a NAK) at @p psn, past the highest so far: ask every
 * READ still missing a response before it for its first missing range.
 */
void swr_comp_reveal(struct swr_qp *qp, uint32_t psn);

/** Complete the READ at the tail, all of whose responses are placed. */
void swr_comp_read_done(struct swr_qp *qp);

/**
 * The READ that response PSN @p psn belongs to, walking from the tail:
 * *k its packet, *idx its WQE index, *local whether a local operation not
 * retired yet comes before it. NULL if @p psn lies in a SEND or WRITE,
 * before the tail or past everything started. Looks only.
 */
struct swr_swqe *swr_comp_read_find(const struct swr_qp *qp, uint32_t psn,
				    uint32_t *k, uint32_t *idx, bool *local);

/**
 * Check the ICRC of READ response @p p; if it fills a missing place of a
 * READ its payload goes into that READ's sink in the same pass (*copied).
 * @return false if the ICRC does not match (counted; drop the frame).
 */
bool swr_comp_icrc(struct swr_qp *qp, const struct ndk_roce_pkt *p,
		   const struct swr_swqe **copied);

/**
 * A READ response: retire the SENDs and WRITEs before it, place it (in
 * order or not), complete what it completes, ask for what it shows lost.
 * @p copied: the READ whose sink holds its payload already, if any.
 */
void swr_comp_read_resp(struct swr_qp *qp, const struct ndk_roce_pkt *p,
			const struct swr_swqe *copied);

#endif /* SWROCE_COMP_H */
