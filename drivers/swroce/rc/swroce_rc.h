/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef SWROCE_RC_H
#define SWROCE_RC_H

/**
 * @file
 * swroce RC engines: the requester (rc/swroce_req.c: WQEs -> request
 * packets), the responder (rc/swroce_resp.c: requests -> placement, READ
 * responses, ACKs) and the completer (rc/swroce_comp.c: ACKs, NAKs, READ
 * responses -> completions; rc/swroce_comp_read.c places READ responses).
 * Called by the poll loop (transmission) and by
 * net/swroce_rx.c (dispatch); they send through net/swroce_tx.h.
 */

#include <stdbool.h>
#include <stdint.h>

#include "ndk_roce.h"
#include "swroce_qp.h"

/* swroce_req.c */

/** Unacknowledged PSNs a requester may have in flight. */
#define SWR_MAX_UNACKED_PSN 256
/**
 * Go-back-N peers: the SEND/WRITE window after go-backs, at least (it
 * halves per go-back and grows back by this much per window acknowledged).
 */
#define SWR_GBN_WND_MIN 16
/**
 * ... counting a READ's responses, before a READ is sent: what a selective
 * repeat responder keeps (SWR_SR_WND, a quarter of the PSNs whose
 * responses may be placed out of order), so that more than 16 READs of 16
 * responses each can be outstanding (ORD above 16).
 */
#define SWR_MAX_UNACKED_RD_PSN SWR_SR_WND
/** Request AckReq at least every this many packets of a long message. */
#define SWR_ACKREQ_EVERY 32

/** Requester: generate up to @p quota packets. @return packets made. */
unsigned int swr_req_run(struct swr_qp *qp, unsigned int quota);

/** Requester: go back to the oldest unacknowledged PSN. */
void swr_req_rewind(struct swr_qp *qp);

/**
 * Requester: go back to @p psn, a request PSN sent after una_psn that the
 * peer did not receive (a sequence NAK's): the requests before it arrived
 * and are not sent again. A PSN not sent: swr_req_rewind().
 */
void swr_req_rewind_to(struct swr_qp *qp, uint32_t psn);

/**
 * Requester: ask again for the responses of the READ @p wqe from its
 * first missing one (rd_pkts) up to packet @p end (exclusive), without
 * going back: the READs after it keep streaming. Marks them asked
 * (rd_rr_end). @return false if no frame could be sent now.
 */
bool swr_req_reread(struct swr_qp *qp, struct swr_swqe *wqe, uint32_t end);

/* swroce_comp.c */

/**
 * Completer: ask the READ @p wqe again for its first missing range (up to
 * its next response placed out of order, or its end) at once.
 * @return false if no frame could be sent now.
 */
bool swr_comp_reread(struct swr_qp *qp, struct swr_swqe *wqe);

/**
 * Completer: the reorder window a READ gap or ask waited for has passed
 * (swr_reo_arm()): ask what now counts as lost, as a response arriving
 * would have.
 */
void swr_comp_reo_due(struct swr_qp *qp);

/**
 * Completer: true if, with a go-back-N peer, nothing of READ @p wqe (sent)
 * nor of anything after it was answered: its request was lost and the
 * sequence NAK with it, and the responder dropped every request after it.
 */
bool swr_comp_read_silent(const struct swr_qp *qp,
			  const struct swr_swqe *wqe);

/**
 * Completer: at a full timeout, ask the READ at the tail again for its
 * first missing range alone if its stream and every later READ's were
 * answered (responses placed or shown lost): only its last responses or
 * a re-read went missing. @return false: go back N.
 */
bool swr_comp_timeout_reread(struct swr_qp *qp);

/**
 * Completer: the sequence NAK that waits for the reorder window
 * (qp->nak_t): act on it if the window has passed or @p now (the
 * retransmission timer expired first), else look again when it passes.
 */
void swr_comp_nak_due(struct swr_qp *qp, bool now);

/**
 * Completer: retire what needs no answer at the tail: local operations
 * carried out, READs whose responses all came ahead.
 */
void swr_comp_tail(struct swr_qp *qp);

/**
 * Completer: an ACK, NAK or READ response for @p qp; @p icrc_unchecked: its
 * ICRC is not checked yet (READ responses: checked as they are placed).
 */
void swr_comp_rx(struct swr_qp *qp, const struct ndk_roce_pkt *p,
		 bool icrc_unchecked);

/**
 * Requester: send packet @p k of the SEND or WRITE at index @p idx again,
 * alone, with AckReq, without going back (selective repeat).
 * @return false if it could not be sent now.
 */
bool swr_req_resend(struct swr_qp *qp, uint32_t idx, uint32_t k);

/* swroce_resp.c */

/** Responder: a request packet for @p qp. */
void swr_resp_rx(struct swr_qp *qp, const struct ndk_roce_pkt *p);

/**
 * Responder: execute request @p p, which is at the expected PSN (its
 * PSN checked by swr_resp_rx(); selective repeat's kept requests too).
 */
void swr_resp_exec(struct swr_qp *qp, const struct ndk_roce_pkt *p);

/* swroce_sr.c: selective repeat */

/**
 * Responder: keep request @p p, @p d PSNs past the expected one, and
 * queue a SACK. @return false if it cannot be kept (past the window, the
 * queue's bound): drop it as IB does.
 */
bool swr_sr_hold(struct swr_qp *qp, const struct ndk_roce_pkt *p, int32_t d);

/**
 * Responder: execute the kept requests that now follow in order, then
 * SACK what is still kept past another missing one, or ACK.
 */
void swr_sr_drain(struct swr_qp *qp);

/** Responder: free every request kept (reset, error, destroy). */
void swr_sr_release(struct swr_qp *qp);

/** Responder: send a SACK of what is kept past the expected PSN now. */
void swr_sr_send_sack(struct swr_qp *qp);

/** Requester: a SACK: acknowledge, and resend the packets it shows lost. */
void swr_sr_sack_rx(struct swr_qp *qp, const struct ndk_roce_pkt *p);

/**
 * Requester, adaptive expiry: send the packet at una_psn (a SEND or WRITE
 * at the tail) again alone. @return false if there is no such packet.
 */
bool swr_sr_resend_una(struct swr_qp *qp);

/** Responder: READ responses and the pending ACK. @return packets made. */
unsigned int swr_resp_tx(struct swr_qp *qp, unsigned int quota);

/** True if the responder has output waiting. */
static inline bool
swr_resp_busy(const struct swr_qp *qp)
{
	return qp->ack_pending || qp->rd_cnt != 0;
}

#endif /* SWROCE_RC_H */
