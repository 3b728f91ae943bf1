/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * swroce control: polling ownership of the queues, the control mailbox,
 * pausing the other queues while a control operation runs, quiescence.
 *
 * Control operations run on queue 0's owner with the other queues paused:
 * the executor raises ad->paused and waits until no other queue is inside
 * a poll (queue->busy); a poller sets busy before it looks at paused, both
 * sequentially consistent, so the two cannot miss each other
 * (swr_enter(), swroce_ctl.h). A poller that itself waits for a control
 * operation (a callback inside its poll calling the API) drops busy while
 * it waits.
 */

#include <rte_cycles.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include "swroce_adapter.h"
#include "swroce_ctl.h"

/*
 * Stop every other queue between two polls (queue 0's owner). Queues the
 * caller owns are not inside a poll of another thread: skipped.
 */
static void
swr_pause_others(struct swr_adapter *ad, uint32_t self)
{
	if (ad->nb_queues == 1 || ad->pause_depth++ != 0)
		return;
	__atomic_store_n(&ad->paused, 1, __ATOMIC_SEQ_CST);
	for (uint16_t i = 1; i < ad->nb_queues; i++) {
		struct swr_queue *q = &ad->q[i];

		if (__atomic_load_n(&q->owner, __ATOMIC_ACQUIRE) == self)
			continue;
		while (__atomic_load_n(&q->busy, __ATOMIC_SEQ_CST) != 0)
			rte_pause();
	}
}

static void
swr_resume_others(struct swr_adapter *ad)
{
	if (ad->nb_queues == 1 || --ad->pause_depth != 0)
		return;
	__atomic_store_n(&ad->paused, 0, __ATOMIC_RELEASE);
}

void
swr_ctl_drain(struct swr_adapter *ad)
{
	uint32_t self = swr_self();
	struct swr_ctl *c;

	if (rte_ring_empty(ad->ctl_ring))
		return;
	swr_pause_others(ad, self);
	while (rte_ring_sc_dequeue(ad->ctl_ring, (void **)&c) == 0) {
		c->status = c->fn(ad, c->arg);
		__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
	}
	swr_resume_others(ad);
}

static void
swr_disown(struct swr_queue *q)
{
	if (q->id == 0)
		swr_ctl_drain(q->ad);
	__atomic_store_n(&q->owner, 0, __ATOMIC_RELEASE);
}

static ndk_status_t
swr_ctl_inline(struct swr_adapter *ad, uint32_t self,
	       ndk_status_t (*fn)(struct swr_adapter *, void *), void *arg)
{
	ndk_status_t st;

	swr_pause_others(ad, self);
	st = fn(ad, arg);
	swr_resume_others(ad);
	return st;
}

/* Queues > 0 this thread is inside a poll of: let a pause through. */
static uint32_t
swr_park(struct swr_adapter *ad, uint32_t self)
{
	uint32_t parked = 0;

	for (uint16_t i = 1; i < ad->nb_queues; i++) {
		struct swr_queue *q = &ad->q[i];

		if (__atomic_load_n(&q->owner, __ATOMIC_ACQUIRE) == self &&
		    __atomic_load_n(&q->busy, __ATOMIC_RELAXED) != 0) {
			__atomic_store_n(&q->busy, 0, __ATOMIC_RELEASE);
			parked |= 1u << i;
		}
	}
	return parked;
}

static void
swr_unpark(struct swr_adapter *ad, uint32_t parked)
{
	for (uint16_t i = 1; i < ad->nb_queues; i++) {
		if (!(parked & (1u << i)))
			continue;
		/* Back inside our poll, once no pause is in force. */
		while (!swr_enter(&ad->q[i]))
			rte_pause();
	}
}

ndk_status_t
swr_ctl_exec(struct swr_adapter *ad,
	     ndk_status_t (*fn)(struct swr_adapter *, void *), void *arg)
{
	struct swr_queue *q0 = &ad->q[0];
	uint32_t self = swr_self();
	struct swr_ctl c = { .fn = fn, .arg = arg };
	uint32_t parked;
	ndk_status_t st;

	if (__atomic_load_n(&q0->owner, __ATOMIC_ACQUIRE) == self)
		return swr_ctl_inline(ad, self, fn, arg);
	parked = swr_park(ad, self);
	if (swr_try_own(q0, self)) {
		st = swr_ctl_inline(ad, self, fn, arg);
		swr_disown(q0);
		swr_unpark(ad, parked);
		return st;
	}
	while (rte_ring_mp_enqueue(ad->ctl_ring, &c) != 0)
		rte_delay_us_sleep(10);
	while (!__atomic_load_n(&c.done, __ATOMIC_ACQUIRE)) {
		/* The poller may stop after we queued: run it ourselves. */
		if (swr_try_own(q0, self))
			swr_disown(q0);
		else
			rte_delay_us_sleep(5);
	}
	swr_unpark(ad, parked);
	return c.status;
}

void
swr_quiesce(struct swr_adapter *ad)
{
	uint32_t self = swr_self();
	uint32_t parked = swr_park(ad, self);

	for (uint16_t i = 0; i < ad->nb_queues; i++) {
		struct swr_queue *q = &ad->q[i];
		uint64_t e;

		if (__atomic_load_n(&q->owner, __ATOMIC_ACQUIRE) == self)
			continue;
		e = __atomic_load_n(&q->epoch, __ATOMIC_ACQUIRE);
		/* Two completed polls guarantee the one in progress ended. */
		while (__atomic_load_n(&q->owner, __ATOMIC_ACQUIRE) != 0 &&
		       __atomic_load_n(&q->epoch, __ATOMIC_ACQUIRE) < e + 2) {
			/*
			 * Queue 0's poller (a callback of its poll) serves
			 * the mailbox meanwhile: that queue's poller may be
			 * waiting in swr_ctl_exec() in the middle of a poll.
			 */
			if (__atomic_load_n(&ad->q[0].owner,
					    __ATOMIC_ACQUIRE) == self)
				swr_ctl_drain(ad);
			rte_delay_us_sleep(5);
		}
	}
	swr_unpark(ad, parked);
}

void
swr_release(struct ndk_adapter *adapter)
{
	struct swr_adapter *ad = swr_adapter_of(adapter);
	uint32_t self = swr_self();

	/* Queue 0 last: its ctl drain may still need the others paused. */
	for (uint16_t i = ad->nb_queues; i-- > 0;) {
		if (__atomic_load_n(&ad->q[i].owner, __ATOMIC_ACQUIRE) == self)
			swr_disown(&ad->q[i]);
	}
}

void
swr_own_all(struct swr_adapter *ad)
{
	uint32_t self = swr_self();
	bool warned = false;

	for (uint16_t i = 0; i < ad->nb_queues; i++) {
		while (!swr_try_own(&ad->q[i], self)) {
			if (!warned)
				NDK_LOG(WARNING, "%s: close waits for its "
					"pollers to stop", ad->name);
			warned = true;
			rte_delay_us_sleep(1000);
		}
	}
}
