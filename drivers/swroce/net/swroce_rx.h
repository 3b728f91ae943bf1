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

#include "swroce_adapter.h"

/* swroce_rx.c */

/** Receive a burst on @p q's RX queue and process it. @return frames. */
unsigned int swr_rx(struct swr_queue *q);

/** Process the frames other queues handed to @p q. @return frames. */
unsigned int swr_inbound(struct swr_queue *q);

#endif /* SWROCE_RX_H */
