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

#include <rte_mbuf.h>

#include "ndk_roce.h"
#include "swroce_adapter.h"

struct swr_qp;

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

/** Pointer to a new frame's payload area. */
static inline uint8_t *
swr_pkt_payload(struct ndk_roce_bth *bth)
{
	return (uint8_t *)bth + ndk_roce_opcode(bth->opcode)->hdr_len;
}

/** Zero the pad and write the ICRC of a finished frame. */
void swr_frame_seal(struct rte_mbuf *m);

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

/** Stage a frame whose ICRC is already written (swr_pkt_send() after it). */
void swr_pkt_xmit(struct swr_qp *qp, struct rte_mbuf *m);

/** Send an ACK/NAK now (ahead of pending READ responses). */
void swr_send_ack(struct swr_qp *qp, uint8_t syndrome, uint32_t psn);

/** Stage a finished frame for transmission on queue 0. */
void swr_tx_stage(struct swr_adapter *ad, struct rte_mbuf *m);

/** Stage a finished frame for transmission on @p q (its owner). */
void swr_q_tx_stage(struct swr_queue *q, struct rte_mbuf *m);

/**
 * A finished frame of a QP on queue > 0 whose neighbour is not REACHABLE:
 * handed to queue 0, which owns the neighbour table (swr_held_drain()).
 */
void swr_q_neigh_handoff(struct swr_queue *q, struct rte_mbuf *m);

/** Hand the queue's staged frames to the port (end of a poll). */
void swr_tx_flush(struct swr_queue *q);

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
