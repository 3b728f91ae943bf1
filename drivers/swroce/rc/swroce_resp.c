/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * swroce responder: checks each request's PSN and opcode sequence, places
 * SEND and WRITE payloads, queues READ responses (kept for replay of
 * duplicate READs), and acknowledges.
 *
 * Output order matters: an ACK or NAK names a PSN and implicitly
 * acknowledges everything before it, so the pending ACK/NAK is only sent
 * once every earlier READ response is out. Fatal NAKs go at once; the QP
 * is dead anyway. Error classes follow IBA: sequence errors and RNR are
 * recoverable (the requester retries), invalid request, remote access and
 * remote operational errors are fatal (NAK, QP to ERROR).
 */

#include <errno.h>
#include <string.h>

#include "swroce_adapter.h"
#include "swroce_copy.h"
#include "swroce_mr.h"
#include "swroce_qp.h"
#include "swroce_rc.h"
#include "swroce_resp.h"
#include "swroce_srq.h"
#include "swroce_tx.h"
#include "swroce_zc.h"

/*
 * A READ response's payload: attached from a plain region when the port
 * takes chains and it is large enough (zero-copy), else copied out of the
 * region (in the same pass as the ICRC when large); then out the frame
 * goes.
 */
static void
swr_resp_read_payload(struct swr_qp *qp, struct rte_mbuf *m,
		      struct ndk_roce_bth *bth, struct swr_mr *mr,
		      uint64_t va, uint32_t plen)
{
	uint8_t *payload = swr_pkt_payload(bth);
	uint32_t crc;

	if (plen < SWR_CRC_COPY_MIN) {
		if (plen != 0)
			swr_mr_copy(mr, va, payload, plen, false);
		swr_pkt_send(qp, m);
		return;
	}
	if (plen >= qp->ad->zc_min && mr->kind == SWR_MR_PLAIN &&
	    swr_pkt_attach_zc(qp, m, bth, mr, va, plen) == 0) {
		swr_pkt_xmit(qp, m);
		return;
	}
	crc = swr_frame_icrc_start(m, payload);
	crc = swr_mr_copy_out_crc(mr, va, payload, plen, crc);
	swr_frame_seal_crc(bth, payload, plen, crc);
	swr_pkt_xmit(qp, m);
}

/* The syndrome of a positive ACK: the credits we can advertise. */
static uint8_t
swr_resp_credits(const struct swr_qp *qp)
{
	uint32_t posted;

	/* An SRQ's receives are not this QP's to promise (as rdmavt). */
	if (qp->srq != NULL)
		return NDK_ROCE_AETH_ACK | NDK_ROCE_AETH_CREDIT_INVALID;
	posted = __atomic_load_n(&qp->rq_prod, __ATOMIC_ACQUIRE) - qp->rq_tail;
	return NDK_ROCE_AETH_ACK | ndk_roce_credits_encode(posted);
}

/*
 * Fatal error (class C/J/A): NAK at once, fail the receive in progress (if
 * @recv_status is not success) and move the QP to ERROR.
 */
static void
swr_resp_fatal(struct swr_qp *qp, uint8_t nak, uint32_t psn,
	       ndk_status_t recv_status, uint32_t perr)
{
	NDK_LOG(DEBUG, "%s: QP %#x: fatal NAK %u at PSN %#x (ePSN %#x)",
		qp->ad->name, qp->pub.qpn, nak, psn, qp->epsn);
	switch (nak) {
	case NDK_ROCE_NAK_INVALID_REQUEST:
		SWR_QP_STAT(qp, nak_inv_sent, naks_sent);
		break;
	case NDK_ROCE_NAK_REMOTE_ACCESS:
		SWR_QP_STAT(qp, nak_access_sent, naks_sent);
		break;
	default:
		SWR_QP_STAT(qp, nak_op_sent, naks_sent);
		break;
	}
	swr_send_ack(qp, NDK_ROCE_AETH_NAK | nak, psn);
	if (recv_status != NDK_STATUS_SUCCESS && swr_qp_cur_recv(qp) != NULL)
		swr_qp_complete_recv(qp, recv_status, perr, 0, false, 0);
	swr_qp_to_error(qp);
}

/*
 * SEND with Invalidate: the token must name a valid fast-register MR or
 * window of this QP's PD. Anything else aborts the connection, as the
 * NdkSendAndInvalidate page requires of the receiving provider: an
 * invalid-request NAK (the sender's SEND fails), the receive completes
 * STATUS_CONNECTION_ABORTED with NDK_PERR_REM_INV_REQ and the QP moves to
 * ERROR (ndk.h, ndk_send_and_invalidate()).
 */
static int
swr_resp_remote_invalidate(struct swr_qp *qp, const struct ndk_roce_pkt *p,
			   uint32_t *token)
{
	const struct ndk_roce_ieth *ieth =
		ndk_roce_pkt_ext(p, p->op->offset[NDK_ROCE_IETH]);
	uint32_t tok = rte_be_to_cpu_32(ieth->rkey);
	struct swr_mr *r = swr_mr_find_invalidatable(qp->ad, qp->pd, tok);

	if (r == NULL || r->token != tok ||
	    __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) != SWR_MR_VALID) {
		SWR_STAT(qp->q, inv_rejected);
		swr_resp_fatal(qp, NDK_ROCE_NAK_INVALID_REQUEST, p->psn,
			       NDK_STATUS_CONNECTION_ABORTED,
			       NDK_PERR_REM_INV_REQ);
		return -1;
	}
	__atomic_store_n(&r->state, SWR_MR_UNREGISTERED, __ATOMIC_RELEASE);
	SWR_STAT(qp->q, inv_remote);
	*token = tok;
	return 0;
}

/*
 * Place a SEND's payload at offset @p off of the receive @p wqe: one SGE
 * holding all of it (the common case) is checked and copied here, any
 * other list takes the general walk. Same checks either way.
 */
static inline int
swr_resp_recv_copy(struct swr_qp *qp, const struct swr_rwqe *wqe,
		   uint32_t off, const struct ndk_roce_pkt *p)
{
	const struct ndk_sge *sge = &wqe->sge[0];
	uint32_t len = p->payload_len;

	if (likely(wqe->nsge == 1 && off <= sge->length &&
		   len <= sge->length - off)) {
		uint64_t va = (uintptr_t)sge->va + off;
		const struct swr_mr *mr = swr_mr_lookup(qp->ad, qp->pd,
							sge->token, va, len,
							SWR_ACC_LOCAL_WRITE);

		if (unlikely(mr == NULL))
			return -EACCES;
		swr_resp_place(mr, va, p, len);
		return 0;
	}
	return swr_sge_copy_from_pkt(qp, wqe->sge, wqe->nsge, off, p, NULL);
}

static void
swr_resp_send(struct swr_qp *qp, const struct ndk_roce_pkt *p)
{
	uint32_t flags = p->op->flags;
	struct swr_rwqe *wqe;

	if (flags & NDK_ROCE_OPF_IMMDT) {
		/* NDK has no immediate data: refuse it. */
		swr_resp_fatal(qp, NDK_ROCE_NAK_INVALID_REQUEST, p->psn,
			       NDK_STATUS_INVALID_DEVICE_REQUEST,
			       NDK_PERR_REM_INV_REQ);
		return;
	}
	if (flags & NDK_ROCE_OPF_FIRST) {
		if (qp->srq != NULL && qp->srq_wqe == NULL)
			qp->srq_wqe = swr_srq_take(qp->srq);
		if (swr_qp_cur_recv(qp) == NULL) {
			/*
			 * No receive posted: the requester waits and retries.
			 * The rest of the message is now out of sequence; it
			 * must not turn this RNR NAK into a sequence NAK.
			 */
			qp->seq_nak_sent = true;
			SWR_QP_STAT(qp, nak_rnr_sent, rnr_naks_sent);
			swr_resp_ack(qp, NDK_ROCE_AETH_RNR_NAK |
				     qp->attr.min_rnr_timer, p->psn);
			return;
		}
		qp->rcv_off = 0;
		qp->rcv_class = SWR_RCV_SEND;
	}
	wqe = swr_qp_cur_recv(qp);
	if (p->payload_len > wqe->length - qp->rcv_off) {
		NDK_LOG(DEBUG, "%s: QP %#x: %s PSN %#x carries %u bytes, the "
			"receive has %u left", qp->ad->name, qp->pub.qpn,
			p->op->name, p->psn, p->payload_len,
			wqe->length - qp->rcv_off);
		/* Longer than the posted receive: a length error. */
		swr_resp_fatal(qp, NDK_ROCE_NAK_INVALID_REQUEST, p->psn,
			       NDK_STATUS_BUFFER_OVERFLOW, NDK_PERR_LOC_LEN);
		return;
	}
	if (p->payload_len != 0 &&
	    swr_resp_recv_copy(qp, wqe, qp->rcv_off, p) != 0) {
		swr_resp_fatal(qp, NDK_ROCE_NAK_REMOTE_OP, p->psn,
			       NDK_STATUS_ACCESS_VIOLATION, NDK_PERR_LOC_PROT);
		return;
	}
	qp->rcv_off += p->payload_len;
	if (flags & NDK_ROCE_OPF_LAST) {
		uint32_t inv = 0;

		if ((flags & NDK_ROCE_OPF_IETH) &&
		    swr_resp_remote_invalidate(qp, p, &inv) != 0)
			return;
		swr_qp_complete_recv(qp, NDK_STATUS_SUCCESS, 0, qp->rcv_off,
				     p->se, inv);
		qp->rcv_class = SWR_RCV_NONE;
		qp->msn = (qp->msn + 1) & NDK_ROCE_MSN_MASK;
	}
	qp->epsn = ndk_roce_psn_add(qp->epsn, 1);
	if (p->ackreq)
		swr_resp_ack(qp, NDK_ROCE_AETH_ACK, p->psn);
}

static void
swr_resp_write(struct swr_qp *qp, const struct ndk_roce_pkt *p)
{
	uint32_t flags = p->op->flags;
	uint32_t plen = p->payload_len;
	const struct swr_mr *mr = NULL;

	if (flags & NDK_ROCE_OPF_IMMDT) {
		/* WRITE with immediate consumes a receive NDK never has. */
		swr_resp_fatal(qp, NDK_ROCE_NAK_INVALID_REQUEST, p->psn,
			       NDK_STATUS_SUCCESS, 0);
		return;
	}
	if (flags & NDK_ROCE_OPF_FIRST) {
		const struct ndk_roce_reth *reth =
			ndk_roce_pkt_ext(p, p->op->offset[NDK_ROCE_RETH]);
		uint32_t len = rte_be_to_cpu_32(reth->len);

		qp->wr_va = rte_be_to_cpu_64(reth->va);
		qp->wr_rkey = rte_be_to_cpu_32(reth->rkey);
		qp->wr_left = len;
		if (((flags & NDK_ROCE_OPF_LAST) && plen != len) ||
		    (!(flags & NDK_ROCE_OPF_LAST) && len <= plen)) {
			swr_resp_fatal(qp, NDK_ROCE_NAK_INVALID_REQUEST,
				       p->psn, NDK_STATUS_SUCCESS, 0);
			return;
		}
		if (len != 0) {
			mr = swr_mr_lookup(qp->ad, qp->pd, qp->wr_rkey,
					   qp->wr_va, len,
					   SWR_ACC_REMOTE_WRITE);
			if (mr == NULL) {
				swr_resp_fatal(qp, NDK_ROCE_NAK_REMOTE_ACCESS,
					       p->psn, NDK_STATUS_SUCCESS, 0);
				return;
			}
		}
		/* Still not placed: the check below finds the region. */
		if (!(flags & NDK_ROCE_OPF_LAST))
			qp->rcv_class = SWR_RCV_WRITE;
	} else {
		if (plen > qp->wr_left ||
		    ((flags & NDK_ROCE_OPF_LAST) && plen != qp->wr_left)) {
			swr_resp_fatal(qp, NDK_ROCE_NAK_INVALID_REQUEST,
				       p->psn, NDK_STATUS_SUCCESS, 0);
			return;
		}
	}
	if (plen != 0) {
		/*
		 * The token is checked again on every later packet; the first
		 * one's range lies inside the whole message's, just checked.
		 */
		if (!(flags & NDK_ROCE_OPF_FIRST))
			mr = swr_mr_lookup(qp->ad, qp->pd, qp->wr_rkey,
					   qp->wr_va, plen,
					   SWR_ACC_REMOTE_WRITE);
		if (mr == NULL) {
			swr_resp_fatal(qp, NDK_ROCE_NAK_REMOTE_ACCESS, p->psn,
				       NDK_STATUS_SUCCESS, 0);
			return;
		}
		swr_resp_place(mr, qp->wr_va, p, plen);
	}
	qp->wr_va += plen;
	qp->wr_left -= plen;
	if (flags & NDK_ROCE_OPF_LAST) {
		qp->rcv_class = SWR_RCV_NONE;
		qp->msn = (qp->msn + 1) & NDK_ROCE_MSN_MASK;
	}
	qp->epsn = ndk_roce_psn_add(qp->epsn, 1);
	if (p->ackreq)
		swr_resp_ack(qp, NDK_ROCE_AETH_ACK, p->psn);
}

/*
 * True if a new READ would exceed the IRD we granted. Only first
 * executions count: a replay for a duplicate may still be sending for a READ
 * the requester has long completed (it asked again after a spurious
 * timeout and then got the original responses), and a new READ at ePSN
 * tells us it has at most IRD - 1 others outstanding. Counted only when
 * every slot is busy, so the common case costs one compare.
 */
static bool
swr_resp_rd_over(const struct swr_qp *qp)
{
	/* The ring is sized at RTR: an IRD raised later cannot pass it. */
	uint32_t ird = RTE_MIN((uint32_t)qp->attr.max_dest_rd_atomic,
			       qp->rd_mask + 1);
	uint32_t first = 0;

	if (qp->rd_cnt < ird)
		return false;
	for (uint32_t i = 1; i <= qp->rd_valid; i++) {
		const struct swr_rd_res *r = &qp->rd_res[(qp->rd_head - i) &
							 qp->rd_mask];

		first += r->streaming;
	}
	return first >= ird;
}

static void
swr_resp_read(struct swr_qp *qp, const struct ndk_roce_pkt *p)
{
	const struct ndk_roce_reth *reth =
		ndk_roce_pkt_ext(p, p->op->offset[NDK_ROCE_RETH]);
	uint64_t va = rte_be_to_cpu_64(reth->va);
	uint32_t rkey = rte_be_to_cpu_32(reth->rkey);
	uint32_t len = rte_be_to_cpu_32(reth->len);
	struct swr_rd_res *r;
	uint32_t npkts;

	if (len > SWR_MAX_TRANSFER || swr_resp_rd_over(qp)) {
		/* Too long, or more READs in flight than we granted. */
		swr_resp_fatal(qp, NDK_ROCE_NAK_INVALID_REQUEST, p->psn,
			       NDK_STATUS_SUCCESS, 0);
		return;
	}
	if (len != 0 && swr_mr_lookup(qp->ad, qp->pd, rkey, va, len,
				      SWR_ACC_REMOTE_READ) == NULL) {
		swr_resp_fatal(qp, NDK_ROCE_NAK_REMOTE_ACCESS, p->psn,
			       NDK_STATUS_SUCCESS, 0);
		return;
	}
	npkts = len == 0 ? 1 : (len + qp->pmtu - 1) >> qp->pmtu_shift;
	r = &qp->rd_res[qp->rd_head & qp->rd_mask];
	if (swr_rd_busy(r))
		qp->rd_cnt--;           /* oldest slot: done at the requester */
	qp->rd_head++;
	if (qp->rd_valid <= qp->rd_mask)
		qp->rd_valid++;
	r->va = va;
	r->rkey = rkey;
	r->len = len;
	r->first_psn = p->psn;
	r->npkts = npkts;
	r->next_pkt = 0;
	r->rp_next = 0;
	r->rp_end = 0;
	r->streaming = true;
	qp->rd_cnt++;
	qp->epsn = ndk_roce_psn_add(qp->epsn, npkts);
	qp->msn = (qp->msn + 1) & NDK_ROCE_MSN_MASK;
	/* The responses acknowledge everything before; an older ACK is moot. */
	if (qp->ack_pending &&
	    (qp->ack_syndrome & NDK_ROCE_AETH_TYPE_MASK) == NDK_ROCE_AETH_ACK)
		qp->ack_pending = false;
	swr_qp_activate(qp);
}

/*
 * A duplicate READ (IBA responder rules for duplicate RDMA READs):
 * re-execute it from the kept resource that covers its PSN, also when the
 * PSN lies inside an earlier READ's response range and when it asks for
 * part of what is left (the requester asks again for a missing range:
 * VA moved on by as many MTUs as its PSN, a length of whole MTUs or up to
 * the READ's end). The range is replayed ahead of what the READ itself
 * still has to send (what it will send anyway is not replayed); a second
 * request while a replay runs widens it. Replays re-check the R_Key at
 * every packet (swr_resp_tx) and go out before the later READs'
 * responses, which keep streaming: a requester that re-asks one READ
 * places them meanwhile; one that goes back N asks for them again too.
 * An honest duplicate never NAKs; one too old to replay, or whose VA and
 * length are not a range of the kept READ, is dropped and counted.
 */
static void
swr_resp_dup_read(struct swr_qp *qp, const struct ndk_roce_pkt *p)
{
	const struct ndk_roce_reth *reth =
		ndk_roce_pkt_ext(p, p->op->offset[NDK_ROCE_RETH]);
	uint32_t rkey = rte_be_to_cpu_32(reth->rkey);
	uint32_t len = rte_be_to_cpu_32(reth->len);
	uint64_t va = rte_be_to_cpu_64(reth->va);

	for (uint32_t i = 1; i <= qp->rd_valid; i++) {
		struct swr_rd_res *r = &qp->rd_res[(qp->rd_head - i) &
						   qp->rd_mask];
		int32_t k = ndk_roce_psn_diff(p->psn, r->first_psn);
		uint32_t off, end;
		bool busy;

		if (k < 0 || (uint32_t)k >= r->npkts || r->rkey != rkey)
			continue;
		off = (uint32_t)k << qp->pmtu_shift;
		if (r->len != 0 && (va != r->va + off || len == 0 ||
				    len > r->len - off ||
				    (len != r->len - off &&
				     (len & (qp->pmtu - 1)) != 0))) {
			/* Same PSN, another request: not a re-read of it. */
			break;
		}
		end = r->len == 0 ? 1 : (uint32_t)k +
			((len + qp->pmtu - 1) >> qp->pmtu_shift);
		/* What the READ itself still sends goes anyway. */
		if (r->streaming && end > r->next_pkt)
			end = r->next_pkt;
		SWR_STAT(qp->q, read_replays);
		if ((uint32_t)k >= end)
			return;
		busy = swr_rd_busy(r);
		if (r->rp_next != r->rp_end) {
			r->rp_next = RTE_MIN(r->rp_next, (uint32_t)k);
			r->rp_end = RTE_MAX(r->rp_end, end);
		} else {
			r->rp_next = (uint32_t)k;
			r->rp_end = end;
		}
		if (!busy)
			qp->rd_cnt++;
		swr_qp_activate(qp);
		return;
	}
	/* Too old to replay, or not matching: the requester's retries end it. */
	SWR_STAT(qp->q, read_dup_ignored);
}

/*
 * The expected SEND ONLY into a QP's own receive queue, outside any
 * message (the common small SEND): what swr_resp_exec() and
 * swr_resp_send() do for it, without their general walk. A SEND longer
 * than the path MTU or than the posted receive, one with no receive
 * posted (RNR) and a QP with a shared receive queue are left to
 * swr_resp_exec(), which answers them as always; a region that refuses
 * the copy gets the same answer here. @return true if carried out.
 */
static inline bool
swr_resp_send_only(struct swr_qp *qp, const struct ndk_roce_pkt *p)
{
	uint32_t len = p->payload_len;
	const struct swr_rwqe *wqe;

	if (unlikely(len > qp->pmtu || qp->srq != NULL))
		return false;
	wqe = swr_qp_cur_recv(qp);
	if (unlikely(wqe == NULL || len > wqe->length))
		return false;
	qp->seq_nak_sent = false;
	if (len != 0 && unlikely(swr_resp_recv_copy(qp, wqe, 0, p) != 0)) {
		qp->rcv_off = 0;
		qp->rcv_class = SWR_RCV_SEND;
		swr_resp_fatal(qp, NDK_ROCE_NAK_REMOTE_OP, p->psn,
			       NDK_STATUS_ACCESS_VIOLATION, NDK_PERR_LOC_PROT);
		return true;
	}
	qp->rcv_off = len;
	swr_qp_complete_recv(qp, NDK_STATUS_SUCCESS, 0, len, p->se, 0);
	swr_resp_only_done(qp, p);
	return true;
}

void
swr_resp_rx(struct swr_qp *qp, const struct ndk_roce_pkt *p)
{
	uint32_t flags = p->op->flags;
	int32_t d = ndk_roce_psn_diff(p->psn, qp->epsn);

	/* (The expected WRITE ONLY: swr_resp_rx_write_only(), inline.) */
	if (likely(d == 0 && qp->rcv_class == SWR_RCV_NONE) &&
	    p->opcode == NDK_ROCE_OP_RC_SEND_ONLY &&
	    swr_resp_send_only(qp, p)) {
		if (unlikely(qp->sr_cnt != 0))
			swr_sr_drain(qp);
		return;
	}

	if (d > 0) {
		SWR_STAT(qp->q, rx_out_of_seq);
		/* Selective repeat: kept and SACKed (not past an RNR NAK). */
		if (qp->sr_on && !qp->seq_nak_sent && swr_sr_hold(qp, p, d))
			return;
		/* Ahead: one NAK per gap, drop the rest until it is filled. */
		if (!qp->seq_nak_sent) {
			qp->seq_nak_sent = true;
			SWR_QP_STAT(qp, nak_seq_sent, naks_sent);
			swr_resp_ack(qp, NDK_ROCE_AETH_NAK |
				     NDK_ROCE_NAK_PSN_SEQ, qp->epsn);
		}
		return;
	}
	if (d < 0) {
		/* Duplicate: never execute twice; re-ACK or replay a READ. */
		SWR_STAT(qp->q, rx_duplicate);
		if (flags & NDK_ROCE_OPF_READ)
			swr_resp_dup_read(qp, p);
		else
			swr_resp_ack(qp, NDK_ROCE_AETH_ACK,
				     ndk_roce_psn_add(qp->epsn,
						      NDK_ROCE_PSN_MASK));
		return;
	}
	swr_resp_exec(qp, p);
	/* Requests kept past the one that was missing follow it. */
	if (unlikely(qp->sr_cnt != 0))
		swr_sr_drain(qp);
}

void
swr_resp_exec(struct swr_qp *qp, const struct ndk_roce_pkt *p)
{
	uint32_t flags = p->op->flags;

	qp->seq_nak_sent = false;

	/* Opcode sequence: continue the message in progress, or start one. */
	switch (qp->rcv_class) {
	case SWR_RCV_SEND:
		if (!(flags & NDK_ROCE_OPF_SEND) || (flags & NDK_ROCE_OPF_FIRST))
			goto bad_sequence;
		break;
	case SWR_RCV_WRITE:
		if (!(flags & NDK_ROCE_OPF_WRITE) ||
		    (flags & NDK_ROCE_OPF_FIRST))
			goto bad_sequence;
		break;
	default:
		if (!(flags & (NDK_ROCE_OPF_FIRST | NDK_ROCE_OPF_READ)))
			goto bad_sequence;
		break;
	}
	/* Payload length for the packet's place in the message. */
	if (flags & NDK_ROCE_OPF_LAST) {
		if (p->payload_len > qp->pmtu ||
		    (!(flags & NDK_ROCE_OPF_FIRST) && p->payload_len == 0))
			goto bad_length;
	} else if (flags & NDK_ROCE_OPF_PAYLOAD) {
		if (p->payload_len != qp->pmtu || p->padcnt != 0)
			goto bad_length;
	}

	if (flags & NDK_ROCE_OPF_SEND)
		swr_resp_send(qp, p);
	else if (flags & NDK_ROCE_OPF_WRITE)
		swr_resp_write(qp, p);
	else if (p->opcode == NDK_ROCE_OP_RC_READ_REQUEST)
		swr_resp_read(qp, p);
	else
		goto bad_sequence;      /* atomics: NDK has none */
	return;

bad_length:
	SWR_STAT(qp->q, rx_bad_length);
bad_sequence:
	NDK_LOG(DEBUG, "%s: QP %#x: %s PSN %#x (payload %u) not valid in "
		"message state %u", qp->ad->name, qp->pub.qpn, p->op->name,
		p->psn, p->payload_len, qp->rcv_class);
	swr_resp_fatal(qp, NDK_ROCE_NAK_INVALID_REQUEST, p->psn,
		       qp->rcv_class == SWR_RCV_SEND ?
		       NDK_STATUS_INVALID_DEVICE_REQUEST : NDK_STATUS_SUCCESS,
		       NDK_PERR_REM_INV_REQ);
}

unsigned int
swr_resp_tx(struct swr_qp *qp, unsigned int quota)
{
	static const uint8_t ops[4] = {
		NDK_ROCE_OP_RC_READ_RESP_FIRST, NDK_ROCE_OP_RC_READ_RESP_MIDDLE,
		NDK_ROCE_OP_RC_READ_RESP_LAST, NDK_ROCE_OP_RC_READ_RESP_ONLY,
	};
	struct swr_adapter *ad = qp->ad;
	unsigned int made = 0;

	/*
	 * READ responses oldest kept resource first; of a resource, a replay
	 * before what the READ itself has left: so in PSN order, but for a
	 * replay that goes back.
	 */
	for (uint32_t i = qp->rd_valid; i >= 1 && qp->rd_cnt != 0; i--) {
		struct swr_rd_res *r = &qp->rd_res[(qp->rd_head - i) &
						   qp->rd_mask];

		while (swr_rd_busy(r)) {
			bool rp = r->rp_next != r->rp_end;
			uint32_t k = rp ? r->rp_next : r->next_pkt;
			uint32_t off = k << qp->pmtu_shift;
			uint32_t plen = RTE_MIN(qp->pmtu, r->len - off);
			unsigned int pos = r->npkts == 1 ? 3 : k == 0 ? 0 :
				k + 1 == r->npkts ? 2 : 1;
			uint32_t psn = ndk_roce_psn_add(r->first_psn, k);
			struct swr_mr *mr;
			struct ndk_roce_bth *bth;
			struct rte_mbuf *m;

			if (made >= quota || swr_tx_room(qp->q) == 0)
				return made;
			/* Re-check the token: it may be gone mid-READ. */
			mr = plen == 0 ? NULL : swr_mr_lookup(ad, qp->pd,
				r->rkey, r->va + off, plen, SWR_ACC_REMOTE_READ);
			if (plen != 0 && mr == NULL) {
				if (rp) {
					/*
					 * A late duplicate of a READ whose
					 * region is gone: the requester may
					 * well have its data already. Stop
					 * the replay; if it still needs the
					 * data its retries will run out.
					 */
					SWR_STAT(qp->q, read_replay_dropped);
					r->rp_next = r->rp_end;
					if (!swr_rd_busy(r))
						qp->rd_cnt--;
					continue;
				}
				swr_resp_fatal(qp, NDK_ROCE_NAK_REMOTE_ACCESS,
					       psn, NDK_STATUS_SUCCESS, 0);
				return made;
			}
			m = swr_pkt_build(qp, ops[pos],
					  ndk_roce_opcode(ops[pos]), plen,
					  false, false, psn, &bth);
			if (m == NULL)
				return made;
			if (pos != 1)
				ndk_roce_aeth_set((struct ndk_roce_aeth *)
						  (bth + 1),
						  swr_resp_credits(qp),
						  qp->msn);
			SWR_STAT(qp->q, read_resp_sent);
			swr_resp_read_payload(qp, m, bth, mr, r->va + off,
					      plen);
			made++;
			if (rp)
				r->rp_next++;
			else if (++r->next_pkt == r->npkts)
				r->streaming = false;
			if (!swr_rd_busy(r))
				qp->rd_cnt--;
		}
	}
	if (qp->rd_cnt == 0 && qp->ack_pending && swr_tx_room(qp->q) != 0) {
		uint8_t syn = qp->ack_syndrome;

		if ((syn & NDK_ROCE_AETH_TYPE_MASK) == NDK_ROCE_AETH_ACK)
			syn = swr_resp_credits(qp);
		qp->ack_pending = false;
		if (unlikely(qp->sr_cnt != 0) &&
		    syn == (NDK_ROCE_AETH_NAK | NDK_ROCE_NAK_PSN_SEQ))
			swr_sr_send_sack(qp);
		else
			swr_send_ack(qp, syn, qp->ack_psn);
		made++;
	}
	return made;
}
