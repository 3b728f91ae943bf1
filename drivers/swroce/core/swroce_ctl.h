/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef SWROCE_CTL_H
#define SWROCE_CTL_H

/**
 * @file
 * swroce control (core/swroce_ctl.c): polling ownership of the queues, the
 * control mailbox that runs operations on queue 0's owner, pausing the
 * other queues while one runs, and quiescence.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_eal.h>

#include "ndk_provider.h"
#include "swroce_adapter.h"

/** A control request handed to the polling thread. */
struct swr_ctl {
	ndk_status_t (*fn)(struct swr_adapter *ad, void *arg);
	void *arg;
	ndk_status_t status;
	uint32_t done;            /**< set (release) when executed */
};

/** The calling thread's id: what queue owners are named by. */
static inline uint32_t
swr_self(void)
{
	return (uint32_t)rte_gettid();
}

/** Take queue @p q for thread @p self (or find it ours). */
static inline bool
swr_try_own(struct swr_queue *q, uint32_t self)
{
	uint32_t owner = __atomic_load_n(&q->owner, __ATOMIC_ACQUIRE);

	if (owner == self)
		return true;
	if (owner != 0)
		return false;
	return __atomic_compare_exchange_n(&q->owner, &owner, self, false,
					   __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

/**
 * Enter a poll of queue > 0: false if the adapter is paused. A poller sets
 * busy before it looks at paused, both sequentially consistent, so it and
 * a control operation pausing the queues cannot miss each other.
 */
static inline bool
swr_enter(struct swr_queue *q)
{
	__atomic_store_n(&q->busy, 1, __ATOMIC_SEQ_CST);
	if (likely(__atomic_load_n(&q->ad->paused, __ATOMIC_SEQ_CST) == 0))
		return true;
	__atomic_store_n(&q->busy, 0, __ATOMIC_RELEASE);
	return false;
}

/* swroce_ctl.c */

/**
 * Run @p fn with exclusive access to the adapter's lcore-private state (of
 * every queue): inline when the caller polls queue 0 or nobody does,
 * otherwise on queue 0's polling thread (the caller waits). The other
 * queues' pollers are paused between two polls while @p fn runs.
 */
ndk_status_t swr_ctl_exec(struct swr_adapter *ad,
			  ndk_status_t (*fn)(struct swr_adapter *, void *),
			  void *arg);

/**
 * Wait until the polling threads have finished every poll that was running
 * when called (queues the caller polls or nobody does are skipped).
 * Control path.
 */
void swr_quiesce(struct swr_adapter *ad);

/** Run the control requests queued in the mailbox (queue 0's owner). */
void swr_ctl_drain(struct swr_adapter *ad);

/** ndk_adapter_release(): give up the queues the caller owns. */
void swr_release(struct ndk_adapter *adapter);

/** Take every queue, waiting for their pollers to stop (adapter close). */
void swr_own_all(struct swr_adapter *ad);

#endif /* SWROCE_CTL_H */
