/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * swroce poll loop. One poll of a queue, top to bottom: the control
 * mailbox (queue 0, core/swroce_ctl.c), doorbells (net/swroce_dbell.c),
 * frames other queues handed over and the RX burst (net/swroce_rx.c:
 * parse, steer, dispatch to the engines), expired timers
 * (rc/swroce_rtx.c), the active QPs' engines (rc/: responder output, then
 * requester), queue 0's adapter-wide work (held frames, neighbour timers,
 * the CM) and the TX flush (net/swroce_tx.c). Calls go down only.
 *
 * An adapter has nb_queues RX/TX queue pairs of its port. QP n belongs to
 * queue (n & q_mask); only that queue's poller touches its lcore-private
 * state.
 */

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_prefetch.h>
#include <rte_ring.h>

#include "swroce_adapter.h"
#include "swroce_cc.h"
#include "swroce_cm.h"
#include "swroce_cq.h"
#include "swroce_ctl.h"
#include "swroce_dbell.h"
#include "swroce_neigh.h"
#include "swroce_qp.h"
#include "swroce_rc.h"
#include "swroce_rtx.h"
#include "swroce_rx.h"
#include "swroce_sched.h"
#include "swroce_tx.h"

/* Service one active QP; returns packets generated, sets *idle. */
static unsigned int
swr_service(struct swr_qp *qp, bool *idle)
{
	uint32_t state = swr_qp_state(qp);
	unsigned int made = 0;
	bool parked = false;

	if (unlikely(__atomic_load_n(&qp->flush_req, __ATOMIC_ACQUIRE) != 0 ||
		     state == NDK_QP_STATE_ERROR)) {
		/* NdkFlush, or posts made since the QP failed. */
		swr_qp_flush_all(qp);
		*idle = true;
		return 0;
	}
	if (state >= NDK_QP_STATE_RTR) {
		if (swr_resp_busy(qp))
			made += swr_resp_tx(qp, SWR_QP_TX_QUOTA);
	}
	if (state == NDK_QP_STATE_RTS || state == NDK_QP_STATE_SQD) {
		if (likely(!qp->cc_on)) {
			made += swr_req_run(qp, SWR_QP_TX_QUOTA);
			parked = qp->req_parked;
		} else {
			made += swr_cc_req_run(qp, SWR_QP_TX_QUOTA);
		}
	}
	/*
	 * Everything sent, waiting for the RNR timer, or stopped at the PSN
	 * window or a probe (parked): only an answer (the completer), a
	 * doorbell or a timer (the wheel) gives it work again.
	 */
	*idle = !swr_resp_busy(qp) && (qp->rnr_until != 0 || parked ||
		qp->req_idx == __atomic_load_n(&qp->sq_prod, __ATOMIC_ACQUIRE));
	if (!*idle)
		qp->req_parked = false; /* on the list: no wake-up needed */
	return made;
}

/* The lines of a QP swr_service() reads first. */
static inline void
swr_service_prefetch(const struct swr_qp *qp)
{
	rte_prefetch0(&qp->state);
	rte_prefetch0(&qp->sq_prod);
	rte_prefetch0(&qp->sq_tail);
	rte_prefetch0(&qp->ack_pending);
}

static unsigned int
swr_tx_engines(struct swr_queue *q)
{
	unsigned int made = 0, kept = 0, n = q->n_active;

	/* Visit every active QP once; drop the idle ones from the list. */
	for (unsigned int i = 0; i < n; i++) {
		struct swr_qp *qp = q->active[i];
		bool idle = false;

		if (i + 1 < n)
			swr_service_prefetch(q->active[i + 1]);

		/*
		 * The port's budget: while its TX queue refuses what is
		 * staged (since a burst of this poll, or the last poll's
		 * final flush, left frames waiting), nothing more is built:
		 * it would wait in the stage with its retransmission timer
		 * running. The QPs keep their place on the list.
		 */
		if (swr_tx_room(q) > SWR_QP_TX_QUOTA * 2 && !q->tx_blocked)
			made += swr_service(qp, &idle);
		if (idle) {
			qp->in_active = false;
		} else {
			q->active[kept++] = qp;
		}
	}
	/* QPs activated during this pass were appended after n. */
	for (unsigned int i = n; i < q->n_active; i++)
		q->active[kept++] = q->active[i];
	q->n_active = kept;
	return made;
}

/*
 * A poll that found nothing to do (no doorbell, no frame, no timer, no
 * packet built) looks at the adapter-wide work due at a time (queue 0's
 * neighbour and CM timers, CQ moderation and frames held for ARP, the
 * zero-copy reap) only every this many times: natively a fraction of a
 * microsecond later. A poll with work, and every poll on the caller's
 * clock, looks each time; the timer wheel is looked at on every poll.
 */
#define SWR_POLL_TIMED 8

/*
 * Inline in its callers: its call would be a tenth of an idle poll. With
 * @p clocked (a constant) the poll's time is the caller's clock
 * (swr_hook_set_clock(): the adapter then polls through the _clocked
 * entries), else the TSC, with no test for it.
 */
static __rte_always_inline unsigned int
swr_poll_q(struct swr_queue *q, uint32_t self, bool clocked)
{
	struct swr_adapter *ad = q->ad;
	/* Read once: the stores below could alias it for the compiler. */
	const bool q0 = q->id == 0;
	unsigned int work = 0;
	bool timed;

	if (unlikely(!swr_try_own(q, self)))
		return 0;
	if (!q0 && unlikely(!swr_enter(q))) {
		__atomic_store_n(&q->epoch, q->epoch + 1, __ATOMIC_RELEASE);
		return 0;
	}
	q->last_now = q->now;
	q->now = clocked ? q->clock(q->clock_arg) : rte_rdtsc();
	if (q0) {
		ad->now = q->now;
		if (unlikely(!rte_ring_empty(ad->ctl_ring)))
			swr_ctl_drain(ad);
	}
	/* Most polls find no doorbell: a look at the rings' indexes. */
	if (!rte_ring_empty(q->db_ring) || (q0 && ad->n_db_more != 0))
		work += swr_doorbells(q);
	if (q->in_ring != NULL)
		work += swr_inbound(q);
	work += swr_rx(q);
	/* No timer's slot passed: only the wheel's clock moves (no call). */
	if (swr_tw_tick(&q->tw, q->now))
		work += swr_rtx_advance(q);
	if (q->n_active != 0)
		work += swr_tx_engines(q);
	timed = clocked || work != 0 || ++q->idle_polls >= SWR_POLL_TIMED;
	if (timed) {
		q->idle_polls = 0;
		if (q0) {
			if (ad->held_ring != NULL)
				work += swr_held_drain(ad);
			if (unlikely(ad->now >= ad->neigh_tick))
				swr_neigh_timers(ad);
			if (unlikely(ad->mod_list != NULL))
				swr_cq_moderation_timers(ad);
			if (unlikely(swr_cm_due(ad->cm, ad->now)))
				swr_cm_poll(ad);
		}
	}
	q->tx_blocked = false;
	if (q->tx_n != 0)
		swr_tx_flush(q);
	/*
	 * A region waits for frames sent from it (zero-copy transmit): free
	 * what the port has sent, which an idle TX queue would keep.
	 */
	if (timed && unlikely(q->now < __atomic_load_n(&ad->zc_cleanup_until,
						       __ATOMIC_RELAXED)))
		rte_eth_tx_done_cleanup(ad->port_id, q->txq, 0);
	if (!q0)
		__atomic_store_n(&q->busy, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&q->epoch, q->epoch + 1, __ATOMIC_RELEASE);
	return work + q->n_active;
}

static __rte_always_inline unsigned int
swr_poll_all(struct ndk_adapter *adapter, bool clocked)
{
	struct swr_adapter *ad = swr_adapter_of(adapter);
	uint32_t self = swr_self();
	unsigned int work = 0;

	/* One queue (the common case): no loop. */
	if (likely(ad->nb_queues == 1))
		return swr_poll_q(&ad->q[0], self, clocked);
	for (uint16_t i = 0; i < ad->nb_queues; i++)
		work += swr_poll_q(&ad->q[i], self, clocked);
	return work;
}

static __rte_always_inline unsigned int
swr_poll_one(struct ndk_adapter *adapter, uint16_t queue, bool clocked)
{
	struct swr_adapter *ad = swr_adapter_of(adapter);

	if (unlikely(queue >= ad->nb_queues))
		return 0;
	return swr_poll_q(&ad->q[queue], swr_self(), clocked);
}

unsigned int
swr_poll(struct ndk_adapter *adapter)
{
	return swr_poll_all(adapter, false);
}

unsigned int
swr_poll_queue(struct ndk_adapter *adapter, uint16_t queue)
{
	return swr_poll_one(adapter, queue, false);
}

unsigned int
swr_poll_clocked(struct ndk_adapter *adapter)
{
	return swr_poll_all(adapter, true);
}

unsigned int
swr_poll_queue_clocked(struct ndk_adapter *adapter, uint16_t queue)
{
	return swr_poll_one(adapter, queue, true);
}
