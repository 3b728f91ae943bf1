/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef SWROCE_RX_H
#define SWROCE_RX_H

/**
 * @file
 * swroce reception (net/swroce_rx.c): a packet's way in: RX bursts, the
 * steering of frames to the queue that owns their QP (hand-off through its
 * inbound ring), the parse and checks, and the dispatch to the responder,
 * the completer, the CM (QP1) or the neighbour code (ARP, ICMP).
 */

#include <rte_ethdev.h>

#include "swroce_adapter.h"

/* swroce_rx.c */

/** Receive a burst on @p q's RX queue and process it. @return frames. */
/**
 * Handle a first RX burst of @p n > 0 frames at @p pkts, and further
 * ones while they come full (up to SWR_RX_BURSTS).
 * @return frames of this queue handled.
 */
unsigned int swr_rx_bursts(struct swr_queue *q, struct rte_mbuf **pkts,
			   uint16_t n);

/**
 * Receive and handle what the port has for queue @p q. Inline in the poll
 * loop: a poll that finds nothing costs the PMD's RX burst and a compare.
 */
static __rte_always_inline unsigned int
swr_rx(struct swr_queue *q)
{
	struct rte_mbuf *pkts[SWR_RX_BURST];
	uint16_t n;

	n = rte_eth_rx_burst(q->ad->port_id, q->rxq, pkts, SWR_RX_BURST);
	return n == 0 ? 0 : swr_rx_bursts(q, pkts, n);
}

/** Process the frames other queues handed to @p q. @return frames. */
unsigned int swr_inbound(struct swr_queue *q);

#endif /* SWROCE_RX_H */
