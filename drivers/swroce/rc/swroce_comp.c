/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * swroce completer: ACKs, NAKs and READ responses retire send-queue WQEs in
 * order. ACKs are cumulative; a READ response implicitly acknowledges every
 * earlier request; an ACK that passes a READ whose responses did not all
 * arrive means they were lost, and the READ is asked again.
 *
 * Lost READ responses are asked for again selectively: the READ at the
 * tail alone, from its first missing PSN, at once (once per gap); the
 * responses of later READs that arrive meanwhile are placed in their
 * buffers (each READ in its own PSN order) and those READs complete, in
 * order, once the tail does. A PSN sequence NAK or a timeout goes back N.
 *
 * READ responses arrive with their ICRC unchecked (swr_rx_one): the next
 * response of the READ at the tail is copied into that READ's sink in the
 * same pass as its ICRC is computed (one pass over the payload instead of
 * two), before anything about the QP changes; any other response is only
 * checked. A mismatch drops the frame as a check before the copy would:
 * the sink then holds garbage where that response goes, but that range is
 * the READ's first missing one (only the tail's next response is placed
 * this way), which nothing accepted yet and which the READ must still
 * receive whole before it completes, so there is nothing to roll back: the
 * frame counts as lost and the READ asks again from there (a gap re-read
 * or the timer). A corrupted PSN that points at data already received
 * never reaches the sink: that frame is a duplicate, checked and dropped.
 */

#include "swroce_adapter.h"
#include "swroce_copy.h"
#include "swroce_mr.h"
#include "swroce_qp.h"
#include "swroce_rc.h"
#include "swroce_rtx.h"

static inline uint32_t
swr_psn_prev(uint32_t psn)
{
	return ndk_roce_psn_add(psn, NDK_ROCE_PSN_MASK);
}

/*
 * The oldest unacknowledged PSN moved: skip what a rewind would resend
 * needlessly; retries and the timer: swr_rtx_progress().
 */
static void
swr_comp_progress(struct swr_qp *qp, uint32_t una)
{
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
	qp->rd_gap_valid = false;
	swr_rtx_progress(qp, una);
}

/*
 * Responses of the READ at the tail were lost: ask for them again at once
 * instead of waiting for the timer. Once per gap: the later responses
 * still in flight (and the ones the responder sends before our new
 * request reaches it) are all beyond the gap, and must not ask again and
 * again. @p selective: re-ask that READ alone, the later ones keep
 * streaming (their responses are placed ahead, swr_comp_read_ahead);
 * otherwise (a sequence NAK: requests were lost too) go back N.
 */
static void
swr_comp_gap(struct swr_qp *qp, bool selective)
{
	const struct swr_swqe *wqe = swr_swqe(qp, qp->sq_tail);

	if (qp->rd_gap_valid && qp->rd_gap_psn == qp->una_psn)
		return;
	qp->rd_gap_valid = true;
	qp->rd_gap_psn = qp->una_psn;
	SWR_STAT(qp->q, read_gap_retries);
	/* Its request must have gone out (not waiting to after a rewind). */
	if (selective && qp->req_idx != qp->sq_tail && wqe->op == SWR_WR_READ &&
	    swr_req_reread(qp, wqe)) {
		swr_rto_arm(qp);
		return;
	}
	swr_req_rewind(qp);
}

/* Complete the READ at the tail, all of whose responses are placed. */
static void
swr_comp_read_done(struct swr_qp *qp)
{
	const struct swr_swqe *wqe = swr_swqe(qp, qp->sq_tail);

	if (wqe->flags & NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE) {
		/* Done reading into it: the first SGE's region is spent. */
		struct swr_mr *r = swr_mr_find_invalidatable(qp->ad, qp->pd,
							     wqe->sge[0].token);

		if (r != NULL && r->token == wqe->sge[0].token)
			__atomic_store_n(&r->state, SWR_MR_UNREGISTERED,
					 __ATOMIC_RELEASE);
	}
	swr_qp_complete_send(qp, NDK_STATUS_SUCCESS, 0);
	/* No READ left: later SENDs/WRITEs are no stream, a later READ anew. */
	if (qp->rd_outstanding == 0)
		qp->rd_meter_n = 0;
}

/*
 * Retire every WQE acknowledged through @psn (inclusive).
 * @return true if it passes a READ whose responses were lost (the READ
 * was asked again, once per gap; @p selective as for swr_comp_gap()).
 */
static bool
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
		/*
		 * Everything before the NAK's PSN arrived. If that passes a
		 * READ with lost responses, the READ was just asked again
		 * from there (go-back-N from an earlier PSN); a NAK behind
		 * the oldest unacknowledged PSN is an old one.
		 */
		if (swr_comp_acked(qp, swr_psn_prev(psn), false)) {
			/*
			 * A re-read already asked for that gap (once per gap)
			 * and nothing went back: but the NAK says requests
			 * were lost too, and the responder NAKs once. Go back
			 * N now, or they wait for the timer.
			 */
			if (qp->req_idx != qp->sq_tail) {
				SWR_STAT(qp->q, nak_seq_rewinds);
				swr_req_rewind(qp);
			}
			return;
		}
		if (psn != qp->una_psn) {
			SWR_STAT(qp->q, rx_ghost_resp);  /* stale NAK */
			return;
		}
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
		swr_req_rewind(qp);
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

/* True if @p p has the opcode and length of packet @p k of READ @p wqe. */
static bool
swr_comp_read_fits(const struct swr_qp *qp, const struct swr_swqe *wqe,
		   const struct ndk_roce_pkt *p, uint32_t k)
{
	static const uint8_t want[4] = {
		NDK_ROCE_OP_RC_READ_RESP_FIRST, NDK_ROCE_OP_RC_READ_RESP_MIDDLE,
		NDK_ROCE_OP_RC_READ_RESP_LAST, NDK_ROCE_OP_RC_READ_RESP_ONLY,
	};
	unsigned int pos = k == 0 ? (wqe->npkts == 1 ? 3 : 0) :
		(k + 1 == wqe->npkts ? 2 : 1);
	uint32_t off = k << qp->pmtu_shift;

	return p->opcode == want[pos] &&
		p->payload_len == RTE_MIN(qp->pmtu, wqe->length - off);
}

/*
 * Place response @p p as packet @p k of READ @p wqe (its next one); if
 * @p copied, its payload is in the sink already (swr_comp_icrc()).
 * @return 0 placed; 1 not the response asked for (dropped, the timer or a
 * re-read asks again); -1 the sink is no longer accessible.
 */
static int
swr_comp_read_place(struct swr_qp *qp, struct swr_swqe *wqe,
		    const struct ndk_roce_pkt *p, uint32_t k, bool copied)
{
	if (!swr_comp_read_fits(qp, wqe, p, k)) {
		SWR_STAT(qp->q, rx_bad_length);
		return 1;
	}
	if (!copied && p->payload_len != 0 &&
	    swr_sge_copy_from_pkt(qp, wqe->sge, wqe->nsge,
				  k << qp->pmtu_shift, p, NULL) != 0)
		return -1;
	wqe->rd_pkts++;
	return 0;
}

/*
 * A response for a READ after the tail (which waits for a re-read): place
 * it if it is that READ's next one, so that one lost frame costs one
 * READ's remainder, not every READ in flight. Out-of-order ones are
 * dropped: that READ is asked again when it reaches the tail.
 */
static void
swr_comp_read_ahead(struct swr_qp *qp, const struct ndk_roce_pkt *p)
{
	uint32_t prod = __atomic_load_n(&qp->sq_prod, __ATOMIC_ACQUIRE);

	for (uint32_t i = qp->sq_tail + 1; i != prod; i++) {
		struct swr_swqe *w = swr_swqe(qp, i);
		int32_t k;

		if (!w->started)
			break;
		k = ndk_roce_psn_diff(p->psn, w->first_psn);
		if (k < 0)
			break;
		if ((uint32_t)k >= w->npkts)
			continue;
		if (w->op != SWR_WR_READ)
			break;
		if ((uint32_t)k != w->rd_pkts ||
		    swr_comp_read_place(qp, w, p, (uint32_t)k, false) != 0) {
			SWR_STAT(qp->q, rx_duplicate);
			return;
		}
		SWR_STAT(qp->q, read_resp_ahead);
		swr_rd_meter(qp);
		/* The first answer of a timed READ ends its RTT sample. */
		if (k == 0)
			swr_rtt_progress(qp, ndk_roce_psn_add(p->psn, 1));
		/*
		 * The peer is answering: the re-read's answer queues behind
		 * these. The adaptive timer counts from the last of them (the
		 * full timeout still from the last progress, rto_start).
		 */
		if (swr_rto_adaptive(qp))
			swr_rto_arm(qp);
		/*
		 * The last READ in flight has all its responses: nothing more
		 * will come to reveal that the re-read at the tail was lost
		 * (the request or its first response). Ask once more.
		 */
		if (w->rd_pkts == w->npkts && i + 1 == qp->req_idx) {
			qp->rd_gap_valid = false;
			swr_comp_gap(qp, true);
		}
		return;
	}
	SWR_STAT(qp->q, rx_ghost_resp);
}

/*
 * The READ now at the tail still misses responses: true if the next READ
 * already had some placed. The responder answers in order, so the tail
 * READ's stream is over: what it misses was lost (dropped out of order
 * while it was not the tail), and nothing more will come to reveal it.
 */
static bool
swr_comp_stream_passed(const struct swr_qp *qp)
{
	uint32_t prod = __atomic_load_n(&qp->sq_prod, __ATOMIC_ACQUIRE);

	for (uint32_t i = qp->sq_tail + 1; i != prod; i++) {
		const struct swr_swqe *w = swr_swqe(qp, i);

		if (!w->started)
			return false;
		if (w->op == SWR_WR_READ)
			return w->rd_pkts != 0;
	}
	return false;
}

/*
 * The READ whose next response @p p is, if it is the READ the tail reaches
 * (after the WQEs swr_comp_read_resp() would retire first) and @p p its
 * next response by PSN, opcode and length: where swr_comp_read_resp()
 * would place it. NULL otherwise (or when unsure: local operations). Looks
 * only: nothing changes.
 */
static struct swr_swqe *
swr_comp_read_target(const struct swr_qp *qp, const struct ndk_roce_pkt *p)
{
	uint32_t prod = __atomic_load_n(&qp->sq_prod, __ATOMIC_ACQUIRE);

	for (uint32_t i = qp->sq_tail; i != prod; i++) {
		struct swr_swqe *w = swr_swqe(qp, i);

		if (!w->started || swr_wr_is_local(w->op))
			return NULL;
		if (w->op == SWR_WR_READ) {
			if (w->rd_pkts == w->npkts)
				continue;       /* placed ahead: completes */
			if (p->psn != ndk_roce_psn_add(w->first_psn,
						       w->rd_pkts) ||
			    !swr_comp_read_fits(qp, w, p, w->rd_pkts))
				return NULL;
			return w;
		}
		/* A SEND or WRITE before: implicitly acknowledged, or not. */
		if (ndk_roce_psn_diff(p->psn, ndk_roce_psn_add(w->first_psn,
					w->npkts - 1)) <= 0)
			return NULL;
	}
	return NULL;
}

/*
 * The ICRC of READ response @p p (not checked on receive). If it is the
 * next response of the READ at the tail, its payload goes into that
 * READ's sink in the same pass (*copied: where). false: the ICRC does not
 * match (counted; drop the frame, nothing else changes).
 */
static bool
swr_comp_icrc(struct swr_qp *qp, const struct ndk_roce_pkt *p,
	      const struct swr_swqe **copied)
{
	struct swr_swqe *w = swr_comp_read_target(qp, p);

	*copied = NULL;
	if (w != NULL && p->payload_len != 0) {
		uint32_t crc = ndk_roce_pkt_icrc_hdr(p);

		if (swr_sge_copy_from_pkt(qp, w->sge, w->nsge,
					  w->rd_pkts << qp->pmtu_shift, p,
					  &crc) == 0) {
			if (likely(ndk_roce_pkt_icrc_end(p, crc))) {
				*copied = w;
				return true;
			}
			/* The sink's first missing range holds garbage. */
			SWR_STAT(qp->q, rx_icrc_read_sink);
			SWR_STAT(qp->q, rx_icrc_errors);
			return false;
		}
		/* The sink is gone: the check alone decides, as before. */
	}
	if (likely(ndk_roce_pkt_icrc_ok(p)))
		return true;
	SWR_STAT(qp->q, rx_icrc_errors);
	return false;
}

static void
swr_comp_read_resp(struct swr_qp *qp, const struct ndk_roce_pkt *p,
		   const struct swr_swqe *copied)
{
	uint32_t psn = p->psn;
	struct swr_swqe *wqe;
	uint32_t expect, k;
	int32_t d;
	int rc;

	/* Earlier SENDs and WRITEs are implicitly acknowledged. */
	for (;;) {
		if (!swr_sq_tail_started(qp)) {
			SWR_STAT(qp->q, rx_ghost_resp);
			return;
		}
		wqe = swr_swqe(qp, qp->sq_tail);
		if (wqe->op == SWR_WR_READ) {
			if (wqe->rd_pkts != wqe->npkts)
				break;
			swr_comp_read_done(qp);  /* placed ahead */
			continue;
		}
		if (swr_wr_is_local(wqe->op)) {
			if (!swr_qp_retire_local(qp))
				return;
			continue;
		}
		if (ndk_roce_psn_diff(psn, ndk_roce_psn_add(wqe->first_psn,
					wqe->npkts - 1)) <= 0) {
			SWR_STAT(qp->q, rx_ghost_resp);
			return;
		}
		swr_qp_complete_send(qp, NDK_STATUS_SUCCESS, 0);
	}

	k = wqe->rd_pkts;
	expect = ndk_roce_psn_add(wqe->first_psn, k);
	if (ndk_roce_psn_diff(expect, qp->una_psn) > 0)
		swr_comp_progress(qp, expect);
	d = ndk_roce_psn_diff(psn, expect);
	if (d < 0) {
		SWR_STAT(qp->q, rx_duplicate);
		return;
	}
	if (d > 0) {
		/* Responses were lost; this one may belong to a later READ. */
		swr_comp_gap(qp, true);
		if ((uint32_t)d >= wqe->npkts - k)
			swr_comp_read_ahead(qp, p);
		return;
	}
	rc = swr_comp_read_place(qp, wqe, p, k, wqe == copied);
	if (rc > 0)
		return;
	if (rc < 0) {
		swr_qp_complete_send(qp, NDK_STATUS_ACCESS_VIOLATION,
				     NDK_PERR_LOC_PROT);
		swr_qp_to_error(qp);
		return;
	}
	/* Progress re-arms the timer, with the stream still expected. */
	swr_rd_meter(qp);
	swr_comp_progress(qp, ndk_roce_psn_add(psn, 1));
	if (wqe->rd_pkts != wqe->npkts)
		return;
	swr_comp_read_done(qp);
	/* READs after it whose responses all came ahead complete now. */
	while (swr_sq_tail_started(qp)) {
		wqe = swr_swqe(qp, qp->sq_tail);
		if (wqe->op != SWR_WR_READ)
			break;
		if (wqe->rd_pkts != wqe->npkts) {
			if (wqe->rd_pkts != 0)
				swr_comp_progress(qp, ndk_roce_psn_add(
					wqe->first_psn, wqe->rd_pkts));
			if (swr_comp_stream_passed(qp))
				swr_comp_gap(qp, true);
			break;
		}
		swr_comp_read_done(qp);
		swr_comp_progress(qp, ndk_roce_psn_add(wqe->first_psn,
						       wqe->npkts));
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
	else
		SWR_STAT(qp->q, rx_ghost_resp); /* atomics: never asked */
}
