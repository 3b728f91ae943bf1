/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef SWROCE_TX_H
#define SWROCE_TX_H

/**
 * @file
 * swroce transmission (net/swroce_tx.c): a packet's way out: build (L2-L4
 * and BTH from the QP's template), seal (pad, ICRC), transmit (neighbour
 * MAC or hand-off), the queues' TX stage and its flush, ACK/NAK frames.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_mbuf.h>

#include "ndk_roce.h"
#include "swroce_adapter.h"
#include "swroce_qp.h"

/**
 * Set up the frame template of @p qp from its address vector at INIT ->
 * RTR: IPv4 if attr.dest_ip is set, else IPv6 to attr.dest_ip6 (traffic
 * class attr.tos, flow label 0, hop limit 64). An all-zero @p dmac
 * attaches the QP to its neighbour entry (ARP or neighbour discovery).
 */
void swr_qp_set_path(struct swr_qp *qp, const struct rte_ether_addr *dmac);

/* swroce_tx.c: build and seal */

/**
 * Allocate a frame for @p qp with room for an opcode's headers, @p payload
 * bytes and the pad; writes L2-L4 and the BTH.
 * @param bth_out  the BTH (extension headers follow at their offsets).
 * @return the mbuf, or NULL (counted) when buffers run out.
 */
struct rte_mbuf *swr_pkt_new(struct swr_qp *qp, uint8_t opcode,
			     uint32_t payload, bool se, bool ackreq,
			     uint32_t psn, struct ndk_roce_bth **bth_out);

/* Offsets in an IPv4 frame's head (struct swr_tx_tpl). */
#define SWR_TPL_IP_LEN (RTE_ETHER_HDR_LEN + 2)
#define SWR_TPL_IP_CSUM (RTE_ETHER_HDR_LEN + 10)
#define SWR_TPL_UDP_LEN (RTE_ETHER_HDR_LEN + 20 + 4)

/**
 * swr_pkt_new() inline, for the paths that build a frame per packet
 * (requester data packets, READ responses), with the opcode's @p op
 * (ndk_roce_opcode()) the caller has at hand. IPv4: the QP's prebuilt
 * head (struct swr_tx_tpl) with the lengths, the checksum and the BTH's
 * per-packet fields written; IPv6: its L2-L4 template and the BTH.
 */
static __rte_always_inline struct rte_mbuf *
swr_pkt_build(struct swr_qp *qp, uint8_t opcode,
	      const struct ndk_roce_opcode_info *op, uint32_t payload, bool se,
	      bool ackreq, uint32_t psn, struct ndk_roce_bth **bth_out)
{
	uint32_t pad = (-payload) & 3;
	uint32_t l4 = op->hdr_len + payload + pad + NDK_ROCE_ICRC_LEN;
	struct ndk_roce_bth *bth;
	struct rte_mbuf *m;
	uint8_t *frame;

	m = rte_pktmbuf_alloc(qp->ad->mp);
	if (unlikely(m == NULL)) {
		SWR_STAT(qp->q, mbuf_alloc_fail);
		return NULL;
	}
	frame = (uint8_t *)rte_pktmbuf_append(m, qp->l2l4.len + l4);
	if (unlikely(frame == NULL)) {
		rte_pktmbuf_free(m);
		SWR_STAT(qp->q, mbuf_alloc_fail);
		return NULL;
	}
	if (likely(qp->tpl.on)) {
		/* The prebuilt head, then what changes per packet. */
		rte_be16_t ip_len = rte_cpu_to_be_16((uint16_t)(20 + 8 + l4));
		rte_be16_t udp_len = rte_cpu_to_be_16((uint16_t)(8 + l4));
		uint32_t sum = qp->tpl.csum_base + ip_len;
		uint16_t csum;

		memcpy(frame, &qp->tpl, sizeof(qp->tpl));
		sum = (sum & 0xFFFF) + (sum >> 16);
		csum = (uint16_t)~((sum & 0xFFFF) + (sum >> 16));
		memcpy(frame + SWR_TPL_IP_LEN, &ip_len, sizeof(ip_len));
		memcpy(frame + SWR_TPL_IP_CSUM, &csum, sizeof(csum));
		memcpy(frame + SWR_TPL_UDP_LEN, &udp_len, sizeof(udp_len));
		bth = (struct ndk_roce_bth *)(frame + NDK_ROCE_L2L4_LEN);
		bth->opcode = opcode;
		bth->flags = (se ? NDK_ROCE_BTH_SE : 0) |
			     (uint8_t)(pad << NDK_ROCE_BTH_PAD_SHIFT);
		bth->qpn = rte_cpu_to_be_32(qp->attr.dest_qpn &
					    NDK_ROCE_QPN_MASK);
		bth->apsn = rte_cpu_to_be_32((ackreq ? NDK_ROCE_BTH_ACKREQ :
					      0) | (psn & NDK_ROCE_PSN_MASK));
	} else {
		bth = (struct ndk_roce_bth *)ndk_roce_l2l4_write(&qp->l2l4,
								 frame, l4);
		ndk_roce_bth_set(bth, opcode, se, pad, qp->attr.dest_qpn,
				 ackreq, psn);
	}
	*bth_out = bth;
	return m;
}

/** Pointer to a new frame's payload area. */
static inline uint8_t *
swr_pkt_payload(struct ndk_roce_bth *bth)
{
	return (uint8_t *)bth + ndk_roce_opcode(bth->opcode)->hdr_len;
}

/**
 * Zero the pad and write the ICRC of a finished frame (inline: it is
 * the per-packet seal of every small frame).
 */
static inline void
swr_frame_seal(struct rte_mbuf *m)
{
	uint8_t *frame = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m);
	struct ndk_roce_bth *bth =
		(struct ndk_roce_bth *)(frame + ndk_roce_frame_l2l4_len(frame));
	uint32_t pad = ndk_roce_bth_padcnt(bth);
	uint32_t icrc;

	if (pad != 0)
		memset(frame + len - NDK_ROCE_ICRC_LEN - pad, 0, pad);
	icrc = ndk_roce_icrc_frame(frame + RTE_ETHER_HDR_LEN,
				   len - RTE_ETHER_HDR_LEN - NDK_ROCE_ICRC_LEN,
				   rte_pktmbuf_headroom(m) + RTE_ETHER_HDR_LEN);
	icrc = rte_cpu_to_le_32(icrc);
	memcpy(frame + len - NDK_ROCE_ICRC_LEN, &icrc, sizeof(icrc));
}

/*
 * Payloads from this size on are copied out of their region in the same
 * pass as their ICRC (one pass over the data): swr_frame_icrc_start(), the
 * copy with ndk_roce_crc32_copy(), swr_frame_seal_crc(), swr_pkt_xmit().
 * Smaller frames are copied, then sealed in one pass over the whole frame.
 */
#define SWR_CRC_COPY_MIN 256

/** ICRC register over a new frame's headers, up to its @p payload. */
uint32_t swr_frame_icrc_start(const struct rte_mbuf *m,
			      const uint8_t *payload);

/**
 * Zero the pad after a payload of @p plen bytes that the ICRC register
 * @p crc has run over, and write the ICRC: the frame is sealed.
 */
void swr_frame_seal_crc(const struct ndk_roce_bth *bth, uint8_t *payload,
			uint32_t plen, uint32_t crc);


/* swroce_tx.c: transmit and stage */

/** Zero the pad, compute the ICRC and stage the frame for transmission. */
void swr_pkt_send(struct swr_qp *qp, struct rte_mbuf *m);


/** Send an ACK/NAK now (ahead of pending READ responses). */
void swr_send_ack(struct swr_qp *qp, uint8_t syndrome, uint32_t psn);

/** Stage a finished frame for transmission on queue 0. */
void swr_tx_stage(struct swr_adapter *ad, struct rte_mbuf *m);

/** Hand the queue's staged frames to the port (end of a poll). */
void swr_tx_flush(struct swr_queue *q);

/** swr_q_tx_stage() with the stage full: flush, then stage or drop. */
void swr_q_tx_stage_full(struct swr_queue *q, struct rte_mbuf *m);

/**
 * Stage a finished frame for transmission on @p q (its owner). Inline:
 * every frame sent passes here.
 */
static inline void
swr_q_tx_stage(struct swr_queue *q, struct rte_mbuf *m)
{
	if (unlikely(q->tx_n == SWR_TX_STAGE)) {
		swr_q_tx_stage_full(q, m);
		return;
	}
	q->tx_stage[q->tx_n++] = m;
	/*
	 * Once the port has refused a burst, frames only pile up in the
	 * stage until the poll's final flush: no tx_burst per frame against
	 * a full ring.
	 */
	if (q->tx_n >= SWR_TX_BURST && !q->tx_blocked)
		swr_tx_flush(q);
}

/**
 * swr_pkt_xmit() for a QP whose peer's MAC comes from the neighbour
 * table: its MAC written, or the frame held while it resolves.
 */
void swr_pkt_xmit_neigh(struct swr_qp *qp, struct rte_mbuf *m);

/**
 * Stage a frame whose ICRC is already written (swr_pkt_send() after it).
 * Inline: every data packet and READ response passes here.
 */
static inline void
swr_pkt_xmit(struct swr_qp *qp, struct rte_mbuf *m)
{
	if (qp->neigh != NULL)
		swr_pkt_xmit_neigh(qp, m);
	else
		swr_q_tx_stage(qp->q, m);
}

/**
 * A finished frame of a QP on queue > 0 whose neighbour is not REACHABLE:
 * handed to queue 0, which owns the neighbour table (swr_held_drain()).
 */
void swr_q_neigh_handoff(struct swr_queue *q, struct rte_mbuf *m);

/**
 * Queue 0: send the frames other queues handed over while their
 * neighbour resolves. @return frames taken.
 */
unsigned int swr_held_drain(struct swr_adapter *ad);

/** Frames the queue's TX stage can still take this poll. */
static inline unsigned int
swr_tx_room(const struct swr_queue *q)
{
	return SWR_TX_STAGE - q->tx_n;
}

#endif /* SWROCE_TX_H */
