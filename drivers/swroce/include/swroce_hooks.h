/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef SWROCE_HOOKS_H
#define SWROCE_HOOKS_H

/**
 * @file
 * Named hooks into swroce's state for the project's own tests and tools,
 * where the NDK API has no word for what they measure or control. Each
 * has one stable meaning; only swr_hook_set_clock() changes what the
 * driver does (the time it runs on, nothing else). Applications never
 * need them, and tests never include swroce's private headers instead.
 */

#include <stdint.h>

#include "ndk.h"

/**
 * Polls that queue @p queue of swroce adapter @p a has completed since it
 * opened (any thread; read with acquire). Two reads a known time apart
 * give a poll's cost on an idle adapter.
 * @return the count, or 0 for a queue the adapter does not have.
 */
uint64_t swr_hook_polls(struct ndk_adapter *a, uint16_t queue);

/**
 * Run swroce adapter @p a on clock @p fn instead of the TSC (@p fn NULL:
 * the TSC again). Every poll of its queues takes @p fn(@p arg) as its
 * time: retransmission and RNR timers, RTT samples, pacing, congestion
 * control and CNP intervals, the CM's timers (neighbour, CQ moderation
 * and zero-copy clean-up deadlines are still set from the TSC). The
 * adapter then polls through a second dispatch table whose poll entries
 * read @p fn: the TSC's poll loop pays nothing for the hook. The clock
 * ticks at rte_get_tsc_hz() and never goes back; it starts at or after
 * the TSC's value when set (the deadlines armed so far stay valid).
 * For simulated time: a program that polls the adapters itself and moves
 * the clock a fixed step per poll (test/functional/test_incast.c) runs
 * the same however loaded the machine is. Set only while no thread polls
 * the adapter (its pollers stopped, ownership released).
 * @return 0, or -EBUSY if a thread owns a queue of the adapter.
 */
int swr_hook_set_clock(struct ndk_adapter *a, uint64_t (*fn)(void *arg),
		       void *arg);

#endif /* SWROCE_HOOKS_H */
