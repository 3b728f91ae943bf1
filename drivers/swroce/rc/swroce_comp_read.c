/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * swroce completer, READ responses (ACKs and NAKs: swroce_comp.c): READ
 * responses retire READs, and the WQEs before them, in order. ACKs are cumulative; a READ response implicitly acknowledges every
 * earlier request; an ACK that passes a READ whose responses did not all
 * arrive means they were lost, and the READ is asked again.
 *
 * READ responses are placed where their PSN says (an offset into their
 * READ), in order or not: a READ keeps a prefix of responses placed in
 * order (rd_pkts) and the QP a bitmap of the ones placed beyond a prefix
 * (ooo_map, a window of PSNs from una_psn). The responder answers in PSN
 * order, so a response reveals that every response before it still
 * missing was lost: the READ is asked again for its first missing range
 * only (up to its next response placed), at once, once; its next range
 * when that one is in. Never lower than an earlier request for the same
 * READ: a responder may keep only the latest start of a READ it replays
 * (rdma_rxe does). A PSN sequence NAK or a timeout goes back N.
 *
 * READ responses arrive with their ICRC unchecked (swr_rx_one): a response
 * that fills a missing place of a READ is copied into that READ's sink in
 * the same pass as its ICRC is computed (one pass over the payload instead
 * of two), before anything about the QP changes; any other response is
 * only checked. A mismatch drops the frame as a check before the copy
 * would: the sink then holds garbage where that response goes, but that
 * place is a missing one, which nothing accepted yet and which the READ
 * must still receive whole before it completes, so there is nothing to
 * roll back: the frame counts as lost. A corrupted PSN that points at data
 * already received never reaches the sink: that frame is a duplicate,
 * checked and dropped.
 */

#include "swroce_adapter.h"
#include "swroce_comp.h"
#include "swroce_copy.h"
#include "swroce_mr.h"
#include "swroce_qp.h"
#include "swroce_rc.h"
#include "swroce_rtx.h"

/* ------------------------------------------------------------------ */
/* READ responses placed out of order                                  */
/* ------------------------------------------------------------------ */

/* True if the READ response at @p psn was placed out of order. */
static inline bool
swr_ooo_has(const struct swr_qp *qp, uint32_t psn)
{
	uint32_t i = psn & (SWR_OOO_BITS - 1);

	return qp->ooo_cnt != 0 &&
		(uint32_t)ndk_roce_psn_diff(psn, qp->una_psn) < SWR_OOO_BITS &&
		((qp->ooo_map[i >> 6] >> (i & 63)) & 1) != 0;
}

static inline void
swr_ooo_flip(struct swr_qp *qp, uint32_t psn)
{
	uint32_t i = psn & (SWR_OOO_BITS - 1);

	qp->ooo_map[i >> 6] ^= UINT64_C(1) << (i & 63);
}

/* READ @p w's responses placed out of order right after its prefix join it. */
static inline void
swr_rd_absorb(struct swr_qp *qp, struct swr_swqe *w)
{
	while (qp->ooo_cnt != 0 && w->rd_pkts < w->npkts) {
		uint32_t psn = ndk_roce_psn_add(w->first_psn, w->rd_pkts);

		if (!swr_ooo_has(qp, psn))
			break;
		swr_ooo_flip(qp, psn);
		qp->ooo_cnt--;
		w->rd_pkts++;
	}
}

/*
 * End (packet, exclusive) of READ @p w's first missing range: its first
 * response past rd_pkts placed out of order; its end when there is none,
 * or none known (past the window).
 */
static uint32_t
swr_rd_hole_end(const struct swr_qp *qp, const struct swr_swqe *w)
{
	uint32_t k = w->rd_pkts + 1, lim = w->npkts;
	int32_t room;

	if (qp->ooo_cnt == 0 || k >= lim)
		return w->npkts;
	room = SWR_OOO_BITS - ndk_roce_psn_diff(ndk_roce_psn_add(w->first_psn,
							      k), qp->una_psn);
	if (room <= 0)
		return w->npkts;
	if ((uint32_t)room < lim - k)
		lim = k + (uint32_t)room;
	while (k < lim) {
		uint32_t i = ndk_roce_psn_add(w->first_psn, k) &
			(SWR_OOO_BITS - 1);
		uint64_t word = qp->ooo_map[i >> 6] >> (i & 63);

		if (word != 0) {
			k += (uint32_t)__builtin_ctzll(word);
			return k < lim ? k : w->npkts;
		}
		k += 64 - (i & 63);
	}
	return w->npkts;
}

/* True if a READ response past READ @p w's first missing one arrived. */
static inline bool
swr_rd_revealed(const struct swr_qp *qp, const struct swr_swqe *w)
{
	uint32_t missing = ndk_roce_psn_add(w->first_psn, w->rd_pkts);

	return ndk_roce_psn_diff(qp->rd_hi, ndk_roce_psn_add(missing, 1)) > 0;
}

/*
 * True if READ @p w's first missing response counts as lost (RACK): a
 * later response arrived, and, once reordering was seen (reo_mult), more
 * than a window of responses (4 << reo_mult) came after it: PSNs past it
 * (rd_hi), or responses arrived (rd_arrivals) since the first check that
 * found it shown (rd_seen); or a window of time passed since that check
 * (SRTT << (reo_mult - 1)). Later responses check again, and the QP's
 * timer when that window has passed (swr_reo_arm()).
 */
static bool
swr_rd_lost(struct swr_qp *qp, struct swr_swqe *w)
{
	uint32_t missing = ndk_roce_psn_add(w->first_psn, w->rd_pkts);
	uint32_t n = UINT32_C(4) << qp->reo_mult;
	int32_t past = ndk_roce_psn_diff(qp->rd_hi, missing) - 1;
	uint64_t wnd;

	if (past <= 0)
		return false;
	/* Responders answer in PSN order: PSNs past it count as arrivals. */
	if (likely(qp->reo_mult == 0) || (uint32_t)past > n)
		return true;
	wnd = qp->rtt.srtt << (qp->reo_mult - 1);
	if (w->rd_seen == 0 || w->rd_seen_pkt != w->rd_pkts) {
		w->rd_seen = RTE_MAX(qp->q->now, UINT64_C(1));
		w->rd_seen_pkt = w->rd_pkts;
		w->rd_seen_arr = qp->rd_arrivals;
		if (qp->rtt.srtt != 0)
			swr_reo_arm(qp, w->rd_seen + wnd);
		return false;
	}
	if (qp->rd_arrivals - w->rd_seen_arr > n)
		return true;
	if (qp->rtt.srtt != 0 && qp->q->now >= w->rd_seen &&
	    qp->q->now - w->rd_seen >= wnd)
		return true;
	/* Look again when the window has passed, responses or not. */
	if (qp->rtt.srtt != 0)
		swr_reo_arm(qp, w->rd_seen + wnd);
	return false;
}

/*
 * READ response @p psn came twice: if it lies in one of the last ranges
 * asked again because they were shown lost (swr_rr_note(); its READ may
 * be done: rdma_rxe answers a re-read after the stream it is sending),
 * the original was late, not lost. Widen the reorder window (once until
 * what was out then is answered); it narrows again after 16 rounds (what
 * was out answered) that asked ranges and saw no such duplicate
 * (swr_comp_ask()). Only the range asked counts, not the rest of its
 * READ: a copy of a response below it is the answer to an earlier ask
 * that a later one overtook.
 */
static void
swr_reo_spurious(struct swr_qp *qp, uint32_t psn)
{
	bool asked = false;
	uint32_t i;

	for (i = 0; !asked && i < SWR_RR_RANGES; i++) {
		if (ndk_roce_psn_diff(psn, qp->rr_lo[i]) >= 0 &&
		    ndk_roce_psn_diff(psn, qp->rr_hi[i]) < 0) {
			qp->rr_hi[i] = qp->rr_lo[i];    /* once per range */
			asked = true;
		}
	}
	if (!asked)
		return;
	SWR_STAT(qp->q, read_spurious);
	swr_reo_widen(qp);
}

/* True if the WQE at index @p idx has been transmitted (not rewound to). */
static inline bool
swr_sq_sent(const struct swr_qp *qp, uint32_t idx)
{
	return idx - qp->sq_tail < qp->req_idx - qp->sq_tail;
}

/*
 * Ask READ @p w (its request out) for its first missing range at once,
 * unless it was asked already and not all of that is in: once per range.
 */
static void
swr_comp_ask(struct swr_qp *qp, struct swr_swqe *w)
{
	uint32_t k;

	if (w->rd_pkts < w->rd_rr_end)
		return;
	SWR_STAT(qp->q, read_gap_retries);
	swr_reo_round(qp);
	k = w->rd_pkts;
	if (swr_req_reread(qp, w, swr_rd_hole_end(qp, w))) {
		/* READs held by ORD now wait for this range too. */
		if (qp->rd_ord_t0 != 0 && w == swr_swqe(qp, qp->sq_tail))
			qp->rd_ord_loss = true;
		w->rd_rr_gap = 1;
		swr_rr_note(qp, ndk_roce_psn_add(w->first_psn, k),
			    ndk_roce_psn_add(w->first_psn, w->rd_rr_end));
	}
}

bool
swr_comp_timeout_reread(struct swr_qp *qp)
{
	struct swr_swqe *t = swr_swqe(qp, qp->sq_tail);
	uint32_t sent = qp->req_idx - qp->sq_tail;

	if (!swr_sq_tail_started(qp) || t->op != SWR_WR_READ || sent == 0 ||
	    (t->rd_pkts == 0 && !swr_rd_revealed(qp, t)))
		return false;
	for (uint32_t n = 1; n < sent; n++) {
		const struct swr_swqe *w = swr_swqe(qp, qp->sq_tail + n);

		if (w->op == SWR_WR_READ && w->rd_pkts == 0 &&
		    !swr_rd_revealed(qp, w))
			return false;   /* unanswered: go back N */
	}
	return swr_comp_reread(qp, t);
}

bool
swr_comp_reread(struct swr_qp *qp, struct swr_swqe *wqe)
{
	return swr_req_reread(qp, wqe, swr_rd_hole_end(qp, wqe));
}

bool
swr_comp_read_silent(const struct swr_qp *qp, const struct swr_swqe *wqe)
{
	return !qp->sr_on && wqe->rd_pkts == 0 && !swr_rd_revealed(qp, wqe);
}

/*
 * RACK for a range asked again (a re-read, or a READ sent again whole by
 * a rewind): the responder serves READ requests in the order they arrive
 * (ours replays a range ahead of later READs' streams, rdma_rxe after the
 * stream it is sending), so once a response to a READ request sent after
 * that ask has arrived (rack_seq, counted from responses only their
 * first request can have caused), the ask or its answer was lost. Past
 * the reorder window (reordering seen: SRTT << (reo_mult - 1) more than a
 * round trip since the ask) it is asked again at once, instead of after
 * the timer. The READ at the tail only; a READ reaching the tail is
 * checked then. @return true if asked again.
 */
static bool
swr_comp_rack(struct swr_qp *qp)
{
	struct swr_swqe *t = swr_swqe(qp, qp->sq_tail);
	uint64_t srtt = qp->rtt.srtt;

	if ((int32_t)(qp->rack_seq - t->rd_rr_seq) <= 0 ||
	    !swr_sq_tail_started(qp) || t->op != SWR_WR_READ ||
	    t->rd_pkts >= t->rd_rr_end || qp->req_idx == qp->sq_tail)
		return false;
	if (qp->reo_mult != 0 &&
	    (srtt == 0 || qp->q->now - t->rd_rr_t <
	     srtt + (srtt << (qp->reo_mult - 1)))) {
		if (srtt != 0)
			swr_reo_arm(qp, t->rd_rr_t + srtt +
				    (srtt << (qp->reo_mult - 1)));
		return false;
	}
	SWR_STAT(qp->q, read_reread_lost);
	t->rd_rr_end = t->rd_pkts;
	swr_comp_ask(qp, t);
	/* The earlier ask may yet be answered: no evidence (RACK) here. */
	t->rd_rr_gap = 0;
	return true;
}

void
swr_comp_reo_due(struct swr_qp *qp)
{
	if (!swr_sq_tail_started(qp) || qp->req_idx == qp->sq_tail)
		return;
	/* Every READ sent whose first missing response now counts lost. */
	swr_comp_reveal(qp, swr_psn_prev(qp->rd_hi));
	swr_comp_rack(qp);
}

/*
 * Responses of the READ at the tail were lost (an ACK or NAK passed them):
 * ask for its first missing range again at once instead of waiting for
 * the timer, once per range. @p selective: re-ask that READ alone, the
 * later ones keep streaming; otherwise (a sequence NAK: requests were
 * lost too) go back N.
 */
void
swr_comp_gap(struct swr_qp *qp, bool selective)
{
	struct swr_swqe *wqe = swr_swqe(qp, qp->sq_tail);

	if (wqe->rd_pkts < wqe->rd_rr_end)
		return;
	/* Its request must have gone out (not waiting to after a rewind). */
	if (selective && qp->req_idx != qp->sq_tail) {
		if (swr_rd_lost(qp, wqe))
			swr_comp_ask(qp, wqe);
		swr_rto_arm(qp);
		return;
	}
	SWR_STAT(qp->q, read_gap_retries);
	swr_req_rewind(qp);
}

/*
 * A READ response arrived past the highest one so far (@p psn): every READ
 * from the tail on still missing a response before it lost that one (the
 * responder answers in PSN order). Ask each for its first missing range.
 */
void
swr_comp_reveal(struct swr_qp *qp, uint32_t psn)
{
	uint32_t sent = qp->req_idx - qp->sq_tail;

	for (uint32_t n = 0; n < sent; n++) {
		struct swr_swqe *w = swr_swqe(qp, qp->sq_tail + n);

		if (w->op != SWR_WR_READ || w->rd_pkts == w->npkts)
			continue;
		if (ndk_roce_psn_diff(psn, ndk_roce_psn_add(w->first_psn,
							    w->rd_pkts)) <= 0)
			break;
		if (swr_rd_lost(qp, w))
			swr_comp_ask(qp, w);
	}
}

/* Complete the READ at the tail, all of whose responses are placed. */
void
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
		swr_rd_meter_end(qp);
}

/*
 * True if @p p can be packet @p k of READ @p wqe: the length of that
 * packet's data. Any READ response opcode: a responder answering a request
 * for part of a READ numbers its responses from that request (FIRST or
 * MIDDLE up to a LAST), not from the READ; a FIRST or MIDDLE is a full MTU.
 */
static bool
swr_comp_read_fits(const struct swr_qp *qp, const struct swr_swqe *wqe,
		   const struct ndk_roce_pkt *p, uint32_t k)
{
	uint32_t off = k << qp->pmtu_shift;
	uint32_t len = RTE_MIN(qp->pmtu, wqe->length - off);

	if (p->payload_len != len)
		return false;
	return (p->op->flags & NDK_ROCE_OPF_LAST) || len == qp->pmtu;
}

/*
 * Place response @p p as packet @p k of READ @p wqe (a missing one); if
 * @p copied, its payload is in the sink already (swr_comp_icrc()).
 * @return 0 placed (not counted yet); 1 not the response asked for
 * (dropped); -1 the sink is no longer accessible.
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
	return 0;
}

/*
 * The READ that response PSN @p psn belongs to, walking from the tail:
 * *k its packet, *idx its WQE index, *local whether a local operation not
 * retired yet comes before it. NULL if @p psn lies in a SEND or WRITE,
 * before the tail or past everything started. Looks only.
 */
struct swr_swqe *
swr_comp_read_find(const struct swr_qp *qp, uint32_t psn, uint32_t *k,
		   uint32_t *idx, bool *local)
{
	uint32_t prod = __atomic_load_n(&qp->sq_prod, __ATOMIC_ACQUIRE);

	*local = false;
	for (uint32_t i = qp->sq_tail; i != prod; i++) {
		struct swr_swqe *w = swr_swqe(qp, i);
		int32_t d;

		if (!w->started)
			return NULL;
		if (swr_wr_is_local(w->op)) {
			*local = true;
			continue;
		}
		d = ndk_roce_psn_diff(psn, w->first_psn);
		if (d < 0)
			return NULL;
		if ((uint32_t)d >= w->npkts)
			continue;
		if (w->op != SWR_WR_READ)
			return NULL;
		*k = (uint32_t)d;
		*idx = i;
		return w;
	}
	return NULL;
}

/*
 * The READ whose missing packet @p p is, by PSN, opcode and length, if
 * swr_comp_read_resp() would place it: *kp its packet. NULL otherwise (or
 * when unsure: a local operation before it). Looks only.
 */
static struct swr_swqe *
swr_comp_read_target(const struct swr_qp *qp, const struct ndk_roce_pkt *p,
		     uint32_t *kp)
{
	struct swr_swqe *w;
	uint32_t k, idx;
	bool local;

	/* The common case: the next response of the READ at the tail. */
	if (likely(swr_sq_tail_started(qp))) {
		w = swr_swqe(qp, qp->sq_tail);
		if (w->op == SWR_WR_READ && w->rd_pkts != w->npkts &&
		    p->psn == ndk_roce_psn_add(w->first_psn, w->rd_pkts)) {
			if (!swr_comp_read_fits(qp, w, p, w->rd_pkts))
				return NULL;
			*kp = w->rd_pkts;
			return w;
		}
	}
	w = swr_comp_read_find(qp, p->psn, &k, &idx, &local);
	if (w == NULL || local || k < w->rd_pkts || swr_ooo_has(qp, p->psn) ||
	    (k != w->rd_pkts && (uint32_t)ndk_roce_psn_diff(p->psn,
				qp->una_psn) >= SWR_OOO_BITS) ||
	    !swr_comp_read_fits(qp, w, p, k))
		return NULL;
	*kp = k;
	return w;
}

/*
 * The ICRC of READ response @p p (not checked on receive). If it fills a
 * missing place of a READ, its payload goes into that READ's sink in the
 * same pass (*copied: which READ). false: the ICRC does not match
 * (counted; drop the frame, nothing else changes).
 */
bool
swr_comp_icrc(struct swr_qp *qp, const struct ndk_roce_pkt *p,
	      const struct swr_swqe **copied)
{
	uint32_t k = 0;
	struct swr_swqe *w = swr_comp_read_target(qp, p, &k);

	*copied = NULL;
	if (w != NULL && p->payload_len != 0) {
		uint32_t crc = ndk_roce_pkt_icrc_hdr(p);

		if (swr_sge_copy_from_pkt(qp, w->sge, w->nsge,
					  k << qp->pmtu_shift, p, &crc) == 0) {
			if (likely(ndk_roce_pkt_icrc_end(p, crc))) {
				*copied = w;
				return true;
			}
			/* A missing place of the sink holds garbage. */
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

/*
 * The READ now at the tail still misses responses: the READs before it
 * are done. Progress to its first missing one; ask for it at once if a
 * later response showed it lost. Also the SENDs and WRITEs now at the
 * tail that a later response passed (implicitly acknowledged).
 */
static void
swr_comp_next_reads(struct swr_qp *qp)
{
	while (swr_sq_tail_started(qp)) {
		struct swr_swqe *wqe = swr_swqe(qp, qp->sq_tail);
		uint32_t end = ndk_roce_psn_add(wqe->first_psn, wqe->npkts);

		if (wqe->op != SWR_WR_READ) {
			if (swr_wr_is_local(wqe->op) ||
			    ndk_roce_psn_diff(qp->rd_hi, end) <= 0)
				break;
			swr_qp_complete_send(qp, NDK_STATUS_SUCCESS, 0);
			swr_comp_progress(qp, end);
			continue;
		}
		if (wqe->rd_pkts != wqe->npkts) {
			if (wqe->rd_pkts != 0)
				swr_comp_progress(qp, ndk_roce_psn_add(
					wqe->first_psn, wqe->rd_pkts));
			/* Its ask lost (RACK), or its gap shown lost. */
			if (qp->req_idx == qp->sq_tail)
				break;
			if (wqe->rd_pkts < wqe->rd_rr_end)
				swr_comp_rack(qp);
			else if (swr_rd_lost(qp, wqe))
				swr_comp_ask(qp, wqe);
			break;
		}
		swr_comp_read_done(qp);
		swr_comp_progress(qp, end);
	}
}

/*
 * The last READ sent has all its responses placed ahead, while the one at
 * the tail waits for a range it asked again: nothing more will come to
 * show that request or its answer lost. Ask once more. (A guess: the
 * answer is normally right behind; when it is one poll late, the range is
 * read twice.)
 */
static void
swr_comp_last_in(struct swr_qp *qp)
{
	struct swr_swqe *t = swr_swqe(qp, qp->sq_tail);

	if (t->op == SWR_WR_READ && t->rd_pkts < t->rd_rr_end &&
	    qp->req_idx != qp->sq_tail && qp->reo_mult == 0) {
		t->rd_rr_end = 0;
		swr_comp_ask(qp, t);
		/*
		 * A guess: a late answer is no reorder, and the earlier ask's
		 * answer may still come, its copy then no reorder either.
		 */
		for (uint32_t i = 0; i < SWR_RR_RANGES; i++)
			if ((uint32_t)ndk_roce_psn_diff(qp->rr_lo[i],
					t->first_psn) < t->npkts)
				qp->rr_hi[i] = qp->rr_lo[i];
		t->rd_rr_gap = 0;
	}
}

/*
 * A READ response that is not the next one of the READ at the tail: a
 * later READ's (placed ahead), one past a missing response of its own
 * READ (placed out of order), or a duplicate. Anything past the highest
 * response so far shows the missing ones before it lost.
 */
static __rte_noinline void
swr_comp_read_other(struct swr_qp *qp, const struct ndk_roce_pkt *p,
		    const struct swr_swqe *copied)
{
	uint32_t psn = p->psn, k = 0, idx = 0;
	struct swr_swqe *w;
	bool local;
	int rc;

	qp->rd_arrivals++;
	w = swr_comp_read_find(qp, psn, &k, &idx, &local);
	if (w == NULL) {
		if (ndk_roce_psn_diff(psn, qp->una_psn) < 0) {
			SWR_STAT(qp->q, rx_duplicate);
			swr_reo_spurious(qp, psn);
		} else {
			SWR_STAT(qp->q, rx_ghost_resp);
		}
		return;
	}
	if (k < w->rd_pkts || swr_ooo_has(qp, psn)) {
		SWR_STAT(qp->q, rx_duplicate);
		/* Asked again for a gap, and the original came too? */
		swr_reo_spurious(qp, psn);
		return;
	}
	if (k != w->rd_pkts &&
	    (uint32_t)ndk_roce_psn_diff(psn, qp->una_psn) >= SWR_OOO_BITS) {
		/* Past the window: not kept, asked again with its range. */
		SWR_STAT(qp->q, read_resp_ooo_dropped);
	} else {
		rc = swr_comp_read_place(qp, w, p, k, w == copied);
		if (rc != 0) {
			if (rc < 0 && idx == qp->sq_tail) {
				swr_qp_complete_send(qp,
						     NDK_STATUS_ACCESS_VIOLATION,
						     NDK_PERR_LOC_PROT);
				swr_qp_to_error(qp);
			}
			/* A later READ's sink: it fails at the tail. */
			return;
		}
		swr_rd_meter(qp);
		/*
		 * Beyond what was asked again: the answer to its request.
		 * Inside a range asked once because its responses were shown
		 * lost: the answer to that ask.
		 */
		if (k >= w->rd_rr_end) {
			if ((int32_t)(w->rd_tx_seq - qp->rack_seq) > 0)
				qp->rack_seq = w->rd_tx_seq;
		} else if (w->rd_rr_gap &&
			   (int32_t)(w->rd_rr_seq - qp->rack_seq) > 0) {
			qp->rack_seq = w->rd_rr_seq;
		}
		if (idx != qp->sq_tail)
			SWR_STAT(qp->q, read_resp_ahead);
		if (k == w->rd_pkts) {
			w->rd_pkts++;
			swr_rd_absorb(qp, w);
			/* The first answer of a timed READ ends its sample. */
			if (k == 0)
				swr_rtt_progress(qp, ndk_roce_psn_add(psn, 1));
			if (w->rd_pkts == w->npkts && idx + 1 == qp->req_idx)
				swr_comp_last_in(qp);
		} else {
			swr_ooo_flip(qp, psn);
			qp->ooo_cnt++;
			SWR_STAT(qp->q, read_resp_ooo);
		}
		/*
		 * The peer is answering: a pending re-read's answer queues
		 * behind these. The adaptive timer counts from the last of
		 * them (the full timeout still from the last progress).
		 */
		if (swr_rto_adaptive(qp))
			swr_rto_arm(qp);
	}
	if (ndk_roce_psn_diff(ndk_roce_psn_add(psn, 1), qp->rd_hi) > 0) {
		qp->rd_hi = ndk_roce_psn_add(psn, 1);
		swr_comp_reveal(qp, psn);
	} else if (w->rd_pkts != w->npkts && swr_sq_sent(qp, idx) &&
		   swr_rd_lost(qp, w)) {
		/* Its first missing range is in: the next one is known lost. */
		swr_comp_ask(qp, w);
	}
	/* A request sent after the tail's ask answered first? */
	swr_comp_rack(qp);
}

void
swr_comp_read_resp(struct swr_qp *qp, const struct ndk_roce_pkt *p,
		   const struct swr_swqe *copied)
{
	uint32_t psn = p->psn;
	struct swr_swqe *wqe;
	uint32_t expect;
	int rc;

	/* Earlier SENDs and WRITEs are implicitly acknowledged. */
	for (;;) {
		if (!swr_sq_tail_started(qp)) {
			SWR_STAT(qp->q, rx_ghost_resp);
			swr_reo_spurious(qp, psn); /* all done: late? */
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

	expect = ndk_roce_psn_add(wqe->first_psn, wqe->rd_pkts);
	if (ndk_roce_psn_diff(expect, qp->una_psn) > 0)
		swr_comp_progress(qp, expect);
	if (unlikely(psn != expect)) {
		swr_comp_read_other(qp, p, copied);
		return;
	}
	/* The next response of the READ at the tail: in order. */
	rc = swr_comp_read_place(qp, wqe, p, wqe->rd_pkts, wqe == copied);
	if (rc > 0)
		return;
	if (rc < 0) {
		swr_qp_complete_send(qp, NDK_STATUS_ACCESS_VIOLATION,
				     NDK_PERR_LOC_PROT);
		swr_qp_to_error(qp);
		return;
	}
	wqe->rd_pkts++;
	swr_rd_absorb(qp, wqe);
	if (ndk_roce_psn_diff(ndk_roce_psn_add(psn, 1), qp->rd_hi) > 0)
		qp->rd_hi = ndk_roce_psn_add(psn, 1);
	/* Progress re-arms the timer, with the stream still expected. */
	swr_rd_meter(qp);
	swr_comp_progress(qp, ndk_roce_psn_add(wqe->first_psn, wqe->rd_pkts));
	if (wqe->rd_pkts != wqe->npkts) {
		/* Its next missing range was shown lost already: ask now. */
		if (unlikely(swr_rd_revealed(qp, wqe)) &&
		    qp->req_idx != qp->sq_tail && swr_rd_lost(qp, wqe))
			swr_comp_ask(qp, wqe);
		return;
	}
	swr_comp_read_done(qp);
	/* READs after it whose responses all came ahead complete now. */
	swr_comp_next_reads(qp);
}
