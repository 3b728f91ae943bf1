/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef SWROCE_SCHED_H
#define SWROCE_SCHED_H

/**
 * @file
 * swroce poll loop (core/swroce_sched.c): one poll of a queue runs, top to
 * bottom, the control mailbox (queue 0), doorbells, received frames
 * (net/swroce_rx.c, which dispatches to the engines), expired timers
 * (rc/swroce_rtx.c), the engines' transmissions and the TX flush
 * (net/swroce_tx.c). Nothing below calls back into it.
 */

#include <stdint.h>

struct ndk_adapter;

/** Packets one QP may generate per poll before the next QP's turn. */
#define SWR_QP_TX_QUOTA 32

/* swroce_sched.c */

/** ndk_adapter_poll(): every queue the caller can own. */
unsigned int swr_poll(struct ndk_adapter *adapter);

/** ndk_adapter_poll_queue(). */
unsigned int swr_poll_queue(struct ndk_adapter *adapter, uint16_t queue);

/** swr_poll() on the clock of swr_hook_set_clock() instead of the TSC. */
unsigned int swr_poll_clocked(struct ndk_adapter *adapter);

/** swr_poll_queue() on the clock of swr_hook_set_clock(). */
unsigned int swr_poll_queue_clocked(struct ndk_adapter *adapter,
				    uint16_t queue);

#endif /* SWROCE_SCHED_H */
