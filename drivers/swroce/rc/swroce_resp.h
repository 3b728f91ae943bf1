/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef SWROCE_RESP_H
#define SWROCE_RESP_H

/**
 * @file
 * swroce responder (rc/swroce_resp.c): what the receive loop inlines of
 * it. The expected WRITE ONLY (the common small WRITE) is carried out in
 * the loop itself (swr_resp_rx_write_only()); every other request goes to
 * swr_resp_rx() (rc/swroce_rc.h).
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_mbuf.h>

#include "ndk_roce.h"
#include "swroce_copy.h"
#include "swroce_mr.h"
#include "swroce_qp.h"

/** Queue the ACK/NAK to send once READ responses are out (latest wins). */
static inline void
swr_resp_ack(struct swr_qp *qp, uint8_t syndrome, uint32_t psn)
{
	qp->ack_pending = true;
	qp->ack_syndrome = syndrome;
	qp->ack_psn = psn;
	swr_qp_activate(qp);
}

/**
 * An ONLY request carried out: the message counted, the next PSN
 * expected, and the ACK it asks for queued.
 */
static inline void
swr_resp_only_done(struct swr_qp *qp, const struct ndk_roce_pkt *p)
{
	qp->msn = (qp->msn + 1) & NDK_ROCE_MSN_MASK;
	qp->epsn = ndk_roce_psn_add(qp->epsn, 1);
	if (p->ackreq)
		swr_resp_ack(qp, NDK_ROCE_AETH_ACK, p->psn);
}

/**
 * Place @p len payload bytes of @p p at @p va of region @p mr: into a
 * plain region from the frame's first segment (every frame of a buffer's
 * size) with the copy inline, else through swr_mr_copy_from_mbuf().
 */
static inline void
swr_resp_place(const struct swr_mr *mr, uint64_t va,
	       const struct ndk_roce_pkt *p, uint32_t len)
{
	const struct rte_mbuf *m = p->m;

	if (likely(mr->kind == SWR_MR_PLAIN &&
		   p->payload_off + len <= m->data_len)) {
		memcpy((void *)(uintptr_t)va, rte_pktmbuf_mtod_offset(m,
		       const uint8_t *, p->payload_off), len);
		return;
	}
	swr_mr_copy_from_mbuf(mr, va, m, p->payload_off, len, NULL);
}

/**
 * A WRITE ONLY at the expected PSN, outside any message and with no
 * request kept for selective repeat, with a payload of at most the path
 * MTU that its RETH's length names, into a region its token allows: what
 * swr_resp_rx() does for it, checks and all, without its general walk
 * (wr_va, wr_rkey and wr_left are read only by a WRITE FIRST's later
 * packets, and the QP stays outside a message). Anything else, and any
 * request this does not accept (no payload, a bad length, a token the
 * lookup refuses), is swr_resp_rx()'s, which answers it as always.
 * @return true if carried out.
 */
static __rte_always_inline bool
swr_resp_rx_write_only(struct swr_qp *qp, const struct ndk_roce_pkt *p)
{
	const struct ndk_roce_reth *reth;
	uint32_t plen = p->payload_len;
	const struct swr_mr *mr;
	uint64_t va;

	if (p->opcode != NDK_ROCE_OP_RC_WRITE_ONLY || p->psn != qp->epsn ||
	    qp->rcv_class != SWR_RCV_NONE || unlikely(qp->sr_cnt != 0))
		return false;
	reth = (const struct ndk_roce_reth *)(p->bth + 1);
	va = rte_be_to_cpu_64(reth->va);
	if (unlikely(plen == 0 || plen > qp->pmtu ||
		     rte_be_to_cpu_32(reth->len) != plen))
		return false;
	mr = swr_mr_lookup(qp->ad, qp->pd, rte_be_to_cpu_32(reth->rkey), va,
			   plen, SWR_ACC_REMOTE_WRITE);
	if (unlikely(mr == NULL))
		return false;
	qp->seq_nak_sent = false;
	swr_resp_place(mr, va, p, plen);
	swr_resp_only_done(qp, p);
	return true;
}

#endif /* SWROCE_RESP_H */
