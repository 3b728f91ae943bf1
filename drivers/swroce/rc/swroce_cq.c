/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * swroce completion queues: storage, arming and notification callbacks.
 *
 * Completions live in an rte_ring of 8-byte words, CQ_WORDS per struct
 * ndk_result_ex, always enqueued and dequeued whole (bulk, so a
 * producer's tail moves by whole entries): the ring copies 64-bit words,
 * not the 32-bit ones of a 40-byte element. Multi-producer because
 * several polling lcores may complete into one CQ, single-consumer
 * because NDK serializes GetCqResults/ArmCq per CQ.
 *
 * Notification state, all in atomics:
 *   armed       the pending arm level (enum swr_arm), consumed by one CAS;
 *   cb_state    a small state word (CQ_CB_* below) that serializes the
 *               callbacks and the teardown: whoever holds CQ_CB_RUN delivers
 *               every owed callback (CQ_CB_OWED) before letting go, and if
 *               the CQ was finally closed meanwhile (CQ_CB_DEAD) it frees it.
 *               One word, so that "stop running" can never race with "one
 *               more is owed" or "free it when you are done".
 *   refcnt      QPs using the CQ plus one for the open handle, so that close
 *               and the last swr_cq_put() agree on who frees without a lock.
 *
 * Resize (NdkResizeCq) builds a ring of the new depth on the caller's
 * thread, then moves the entries and swaps the ring pointer through
 * swr_ctl_exec(), with every poller of the adapter paused: nothing posts
 * meanwhile, and the consumer, the only other user of the ring, is the
 * caller (NDK serializes calls on one CQ).
 *
 * Interrupt moderation (NdkControlCqInterruptModeration) holds an armed
 * CQ's notification back (cq_hold) until mod_count completions arrived
 * since the last notification, or mod_tsc after the first held one, which
 * ever comes first; error completions and overruns are never held. Queue
 * 0's owner keeps the clock (swr_cq_moderation_timers, over ad->mod_list).
 */

#include <errno.h>
#include <stdio.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_pause.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "swroce_adapter.h"
#include "swroce_cq.h"
#include "swroce_ctl.h"

#define CQ_WSIZE 8u /* ring element: a word */
#define CQ_WORDS ((unsigned int)(sizeof(struct ndk_result_ex) / CQ_WSIZE))

/* cb_state bits. */
#define CQ_CB_RUN 1u   /* a delivery loop owns the callback */
#define CQ_CB_OWED 2u  /* one more callback is owed by that loop */
#define CQ_CB_DEAD 4u  /* all references gone: the loop owner frees */

/* cq->overflow values: a dead CQ reports BUFFER_OVERFLOW exactly once. */
#define CQ_OVF_NONE 0u
#define CQ_OVF_UNREPORTED 1u
#define CQ_OVF_REPORTED 2u

#define CQ_CONVERT_BURST 32 /* get_results' stack buffer */

static uint32_t cq_ring_seq; /* ring names, for rte_ring_dump only */

static const struct ndk_cq_dispatch swr_cq_ops;

static inline struct swr_cq *
cq_of(struct ndk_cq *c)
{
	return (struct swr_cq *)c;
}

/* ------------------------------------------------------------------ */
/* Teardown                                                            */
/* ------------------------------------------------------------------ */

/* Unlink and free; the caller guarantees nothing else touches @p cq. */
static void
cq_free(struct swr_cq *cq)
{
	struct swr_adapter *ad = cq->ad;
	struct swr_cq **pp;

	rte_spinlock_lock(&ad->obj_lock);
	for (pp = &ad->cq_list; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == cq) {
			*pp = cq->next;
			break;
		}
	}
	ad->n_cq--;
	rte_spinlock_unlock(&ad->obj_lock);
	/* The ring lives in the same allocation (cq_alloc) until a resize. */
	rte_free(cq->ring_mem);
	rte_free(cq);
}

/* Free, then tell the consumer: its completion is the last thing we do. */
static void
cq_free_and_complete(struct swr_cq *cq)
{
	ndk_close_completion_fn done = cq->close_done;
	void *ctx = cq->close_ctx;

	cq_free(cq);
	if (done != NULL)
		done(ctx);
}

/* Drop one reference. @return true if it was the last. */
static inline bool
cq_unref(struct swr_cq *cq)
{
	return __atomic_sub_fetch(&cq->refcnt, 1, __ATOMIC_ACQ_REL) == 0;
}

/*
 * The last reference is gone. A callback may still be running (the
 * consumer may even be closing from inside it): then its loop frees the
 * CQ when the callback returns. @return true if the caller must free it.
 */
static bool
cq_mark_dead(struct swr_cq *cq)
{
	uint32_t old = __atomic_fetch_or(&cq->cb_state, CQ_CB_DEAD,
					 __ATOMIC_ACQ_REL);

	return (old & CQ_CB_RUN) == 0;
}

/* ------------------------------------------------------------------ */
/* Notification                                                        */
/* ------------------------------------------------------------------ */

static void
cq_call(struct swr_cq *cq)
{
	ndk_status_t st = NDK_STATUS_SUCCESS;

	if (__atomic_load_n(&cq->overflow, __ATOMIC_ACQUIRE) != CQ_OVF_NONE) {
		__atomic_store_n(&cq->overflow, CQ_OVF_REPORTED,
				 __ATOMIC_RELAXED);
		st = NDK_STATUS_BUFFER_OVERFLOW;
	}
	/* Entries posted up to here are covered by this callback. */
	__atomic_store_n(&cq->n_at_notify,
			 __atomic_load_n(&cq->n_posted, __ATOMIC_ACQUIRE),
			 __ATOMIC_RELAXED);
	/* Nothing held back any more (moderation). */
	__atomic_store_n(&cq->mod_due, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&cq->mod_need, SWR_ARM_NONE, __ATOMIC_RELAXED);
	/* A closing CQ owes no more notifications, only the close. */
	if (cq->notify != NULL && !__atomic_load_n(&cq->closing,
						   __ATOMIC_ACQUIRE))
		cq->notify(cq->notify_ctx, st);
}

/*
 * Delivery loop: we hold CQ_CB_RUN. Deliver until nothing is owed, then
 * let go with a CAS on the whole word so that a callback owed (or a close
 * finished) meanwhile is never left behind.
 */
static void
cq_run_callbacks(struct swr_cq *cq)
{
	uint32_t s = __atomic_load_n(&cq->cb_state, __ATOMIC_ACQUIRE);

	for (;;) {
		if (s & CQ_CB_DEAD) {
			cq_free_and_complete(cq);
			return;
		}
		if (s & CQ_CB_OWED) {
			__atomic_fetch_and(&cq->cb_state, ~CQ_CB_OWED,
					   __ATOMIC_ACQ_REL);
			cq_call(cq);
			s = __atomic_load_n(&cq->cb_state, __ATOMIC_ACQUIRE);
			continue;
		}
		if (__atomic_compare_exchange_n(&cq->cb_state, &s, 0, false,
						__ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			return;
	}
}

/*
 * An arm was consumed: owe a callback. If one is running (on another
 * lcore, or this very thread re-armed from inside it) the running loop
 * delivers it after the current callback returns: never nested, never
 * concurrent. Callers must not touch @p cq afterwards (it may be freed).
 */
static void
cq_deliver(struct swr_cq *cq)
{
	uint32_t old = __atomic_fetch_or(&cq->cb_state,
					 CQ_CB_RUN | CQ_CB_OWED,
					 __ATOMIC_ACQ_REL);

	if ((old & (CQ_CB_RUN | CQ_CB_DEAD)) == 0)
		cq_run_callbacks(cq);
}

/*
 * Consume the arm if its level is at least @p need (ERRORS < SOLICITED <
 * ANY: an event needing SOLICITED satisfies SOLICITED and ANY arms).
 * @return true if this caller consumed it and owes the callback.
 */
static inline bool
cq_take_arm(struct swr_cq *cq, uint32_t need)
{
	uint32_t a = __atomic_load_n(&cq->armed, __ATOMIC_SEQ_CST);

	do {
		if (a < need)
			return false;
	} while (!__atomic_compare_exchange_n(&cq->armed, &a, SWR_ARM_NONE,
					      false, __ATOMIC_SEQ_CST,
					      __ATOMIC_SEQ_CST));
	return true;
}

static inline void
cq_fire(struct swr_cq *cq, uint32_t need)
{
	if (cq_take_arm(cq, need))
		cq_deliver(cq);
}

/*
 * Moderation: an armed CQ's notification of level @p need is held back
 * unless mod_count completions arrived since the last notification; with
 * an interval, the first held one starts its clock (queue 0 delivers it
 * when due). @return true if held.
 */
static bool
cq_hold(struct swr_cq *cq, uint32_t need)
{
	uint64_t n = __atomic_load_n(&cq->n_posted, __ATOMIC_RELAXED) -
		__atomic_load_n(&cq->n_at_notify, __ATOMIC_RELAXED);
	uint32_t cur = __atomic_load_n(&cq->mod_need, __ATOMIC_RELAXED);
	uint64_t due = 0;

	if (cq->mod_count != 0 && n >= cq->mod_count)
		return false;
	while (cur < need &&
	       !__atomic_compare_exchange_n(&cq->mod_need, &cur, need, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	/* Release: the level above is seen with the due time. */
	if (cq->mod_tsc != 0)
		__atomic_compare_exchange_n(&cq->mod_due, &due,
					    rte_rdtsc() + cq->mod_tsc, false,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
	return true;
}

/* The ring is full: the CQ is dead (NDKPI: programming error). */
static void __rte_cold
cq_overflowed(struct swr_cq *cq)
{
	uint32_t expected = CQ_OVF_NONE;

	if (__atomic_compare_exchange_n(&cq->overflow, &expected,
					CQ_OVF_UNREPORTED, false,
					__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		NDK_LOG(ERR, "CQ %p overran (depth %u): CQ and QPs are dead",
			(void *)cq, cq->depth);
	/* An overrun satisfies any arm, even ERRORS. */
	cq_fire(cq, SWR_ARM_ERRORS);
}

/* ------------------------------------------------------------------ */
/* Polling-thread interface                                            */
/* ------------------------------------------------------------------ */

/*
 * @p n completions are in the ring: count them and notify. Seq-cst
 * increment, then seq-cst load of the arm; ndk_arm_cq does the mirror
 * image (store arm, load n_posted). One of the two sides sees the other,
 * so "poll empty -> completion lands -> arm" never loses its notification.
 * On x86 the load is a plain mov: an unarmed CQ costs one load per post.
 */
static inline void
cq_posted(struct swr_cq *cq, uint32_t n, uint32_t need, bool all_ok)
{
	__atomic_fetch_add(&cq->n_posted, n, __ATOMIC_SEQ_CST);
	if (likely(__atomic_load_n(&cq->armed, __ATOMIC_SEQ_CST) < need))
		return;
	if (unlikely(cq->mod_on) && all_ok && cq_hold(cq, need))
		return;
	cq_fire(cq, need);
}

int
swr_cq_post(struct swr_cq *cq, const struct ndk_result_ex *r, bool solicited)
{
	bool ok = NDK_SUCCESS(r->status);

	if (unlikely(__atomic_load_n(&cq->overflow, __ATOMIC_RELAXED) !=
		     CQ_OVF_NONE)) {
		__atomic_fetch_add(&cq->ad->stats.cq_overflows, 1,
				   __ATOMIC_RELAXED); /* any queue */
		return -ENOSPC;
	}
	if (unlikely(rte_ring_mp_enqueue_bulk_elem(cq->ring, r, CQ_WSIZE,
						   CQ_WORDS, NULL) == 0)) {
		__atomic_fetch_add(&cq->ad->stats.cq_overflows, 1,
				   __ATOMIC_RELAXED); /* any queue */
		cq_overflowed(cq);
		return -ENOSPC;
	}
	cq_posted(cq, 1, (solicited || !ok) ? SWR_ARM_SOLICITED : SWR_ARM_ANY,
		  ok);
	return 0;
}

uint32_t
swr_cq_post_bulk(struct swr_cq *cq, const struct ndk_result_ex *r,
		 uint32_t n, uint32_t need, bool all_ok)
{
	bool dead = __atomic_load_n(&cq->overflow, __ATOMIC_RELAXED) !=
		CQ_OVF_NONE;
	uint32_t k = 0;

	if (likely(!dead)) {
		k = rte_ring_mp_enqueue_bulk_elem(cq->ring, r, CQ_WSIZE,
						  n * CQ_WORDS, NULL) /
			CQ_WORDS;
		/* Not all fit: as many as do, one at a time. */
		while (unlikely(k < n) &&
		       rte_ring_mp_enqueue_bulk_elem(cq->ring, &r[k], CQ_WSIZE,
						     CQ_WORDS, NULL) != 0)
			k++;
	}
	if (likely(k != 0))
		cq_posted(cq, k, need, all_ok);
	if (unlikely(k < n)) {
		__atomic_fetch_add(&cq->ad->stats.cq_overflows, n - k,
				   __ATOMIC_RELAXED); /* any queue */
		if (!dead)
			cq_overflowed(cq);
	}
	return k;
}

void
swr_cq_moderation_timers(struct swr_adapter *ad)
{
	struct swr_cq *cq;
	uint64_t due;
	uint32_t need;

	/*
	 * From the head again after each delivery: the callback may have
	 * closed (unlinked) any CQ of the list. Each CQ is delivered at most
	 * once per pass (its due time is cleared first).
	 */
again:
	for (cq = ad->mod_list; cq != NULL; cq = cq->mod_next) {
		due = __atomic_load_n(&cq->mod_due, __ATOMIC_ACQUIRE);
		if (due == 0 || ad->now < due ||
		    !__atomic_compare_exchange_n(&cq->mod_due, &due, 0, false,
						 __ATOMIC_ACQ_REL,
						 __ATOMIC_RELAXED))
			continue;
		need = __atomic_exchange_n(&cq->mod_need, SWR_ARM_NONE,
					   __ATOMIC_ACQUIRE);
		cq_fire(cq, RTE_MAX(need, (uint32_t)SWR_ARM_SOLICITED));
		goto again;
	}
}

void
swr_cq_put(struct swr_cq *cq)
{
	/* The handle's reference is only dropped by close, which stored the
	 * completion before: the consumer is owed it.
	 */
	if (cq_unref(cq) && cq_mark_dead(cq))
		cq_free_and_complete(cq);
}

/* Free a CQ immediately (adapter close). */
void
swr_cq_destroy(struct swr_cq *cq)
{
	/*
	 * Adapter close runs after polling stopped and with no call on the
	 * CQ in progress (NDKPI), so no callback can start; one still
	 * returning on another thread is waited for.
	 */
	while (__atomic_load_n(&cq->cb_state, __ATOMIC_ACQUIRE) & CQ_CB_RUN)
		rte_pause();
	/* A close left pending by QPs is owed its completion. */
	if (__atomic_load_n(&cq->closing, __ATOMIC_ACQUIRE))
		cq_free_and_complete(cq);
	else
		cq_free(cq);
}

/* ------------------------------------------------------------------ */
/* Dispatch                                                            */
/* ------------------------------------------------------------------ */

/* Off ad->mod_list (swr_ctl_exec: queue 0's list). */
static void
cq_mod_unlink(struct swr_adapter *ad, struct swr_cq *cq)
{
	struct swr_cq **pp;

	for (pp = &ad->mod_list; *pp != NULL; pp = &(*pp)->mod_next) {
		if (*pp == cq) {
			*pp = cq->mod_next;
			break;
		}
	}
	cq->mod_linked = false;
}

static ndk_status_t
cq_mod_unlink_ctl(struct swr_adapter *ad, void *arg)
{
	cq_mod_unlink(ad, arg);
	return NDK_STATUS_SUCCESS;
}

static ndk_status_t
swr_cq_close(struct ndk_cq *c, ndk_close_completion_fn done, void *ctx)
{
	struct swr_cq *cq = cq_of(c);

	/* Queue 0 keeps no clock for it any more. */
	if (cq->mod_linked)
		swr_ctl_exec(cq->ad, cq_mod_unlink_ctl, cq);
	cq->close_done = done;
	cq->close_ctx = ctx;
	__atomic_store_n(&cq->closing, true, __ATOMIC_RELEASE);
	/*
	 * Drop the handle's reference (release: the completion above is
	 * visible to whoever drops the last one). QPs still using the CQ,
	 * or a callback still running (we may be inside it), finish the
	 * close later and call @p done.
	 */
	if (!cq_unref(cq) || !cq_mark_dead(cq))
		return NDK_STATUS_PENDING;
	cq_free(cq);
	return NDK_STATUS_SUCCESS;
}

/*
 * Lost-race rule (spec 3.3): entries that arrived since the last callback
 * satisfy a new arm at once. Choice: ANY and SOLICITED arms fire; we do not
 * know whether those entries were solicited or errors, and a spurious
 * callback is harmless while a missed one hangs the consumer. An ERRORS
 * arm fires only for an overrun, which is sticky and checked here, so it
 * cannot be lost.
 */
static void
cq_arm_catch_up(struct swr_cq *cq)
{
	uint64_t posted;

	if (__atomic_load_n(&cq->overflow, __ATOMIC_SEQ_CST) ==
	    CQ_OVF_UNREPORTED) {
		cq_fire(cq, SWR_ARM_ERRORS);
		return;
	}
	/* Pairs with swr_cq_post: its increment or our arm is seen. */
	posted = __atomic_load_n(&cq->n_posted, __ATOMIC_SEQ_CST);
	if (posted != __atomic_load_n(&cq->n_at_notify, __ATOMIC_RELAXED) &&
	    rte_ring_count(cq->ring) != 0 &&
	    !(cq->mod_on && cq_hold(cq, SWR_ARM_SOLICITED)))
		cq_fire(cq, SWR_ARM_SOLICITED);
}

static void
swr_cq_arm(struct ndk_cq *c, uint32_t type)
{
	struct swr_cq *cq = cq_of(c);
	uint32_t want, cur;

	switch (type) {
	case NDK_CQ_NOTIFY_ANY:
		want = SWR_ARM_ANY;
		break;
	case NDK_CQ_NOTIFY_SOLICITED:
		want = SWR_ARM_SOLICITED;
		break;
	case NDK_CQ_NOTIFY_ERRORS:
		want = SWR_ARM_ERRORS;
		break;
	default:
		NDK_LOG(ERR, "arm CQ %p: unknown notification type %u",
			(void *)cq, type);
		return;
	}
	/* Strongest wins; always a seq-cst RMW (see swr_cq_post). */
	cur = __atomic_load_n(&cq->armed, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&cq->armed, &cur,
					    RTE_MAX(cur, want), false,
					    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
		;
	cq_arm_catch_up(cq);
}

uint32_t
swr_cq_get_results_ex(struct ndk_cq *c, struct ndk_result_ex *r, uint32_t n)
{
	return rte_ring_sc_dequeue_burst_elem(cq_of(c)->ring, r, CQ_WSIZE,
					      n * CQ_WORDS, NULL) / CQ_WORDS;
}

/* Plain results: same entries without the Ex fields (incl. R&I's). */
uint32_t
swr_cq_get_results(struct ndk_cq *c, struct ndk_result *r, uint32_t n)
{
	struct ndk_result_ex buf[CQ_CONVERT_BURST];
	struct rte_ring *ring = cq_of(c)->ring;
	uint32_t got = 0;

	while (got < n) {
		uint32_t want = RTE_MIN(n - got, (uint32_t)CQ_CONVERT_BURST);
		uint32_t k = rte_ring_sc_dequeue_burst_elem(ring, buf, CQ_WSIZE,
				want * CQ_WORDS, NULL) / CQ_WORDS;

		for (uint32_t i = 0; i < k; i++) {
			r[got + i].status = buf[i].status;
			r[got + i].bytes_transferred = buf[i].bytes_transferred;
			r[got + i].qp_context = buf[i].qp_context;
			r[got + i].request_context = buf[i].request_context;
		}
		got += k;
		if (k < want)
			break;
	}
	return got;
}

/* Ring of @p depth entries in @p mem (cq_ring_size() bytes). */
static int
cq_ring_init(struct rte_ring *ring, uint32_t depth)
{
	char name[RTE_RING_NAMESIZE];

	snprintf(name, sizeof(name), "ndkcq%u",
		 __atomic_fetch_add(&cq_ring_seq, 1, __ATOMIC_RELAXED));
	/* RING_F_EXACT_SZ: slots are the next power of two above depth. */
	return rte_ring_init(ring, name, depth * CQ_WORDS,
			     RING_F_SC_DEQ | RING_F_EXACT_SZ);
}

static ssize_t
cq_ring_size(uint32_t depth)
{
	return rte_ring_get_memsize_elem(CQ_WSIZE,
					 rte_align32pow2(depth * CQ_WORDS + 1));
}

struct cq_resize {
	struct swr_cq *cq;
	struct rte_ring *ring;   /* in: the new one; out: the one to free */
	uint32_t depth;
};

/* Every poller paused (swr_ctl_exec): move the entries, swap the rings. */
static ndk_status_t
cq_resize_ctl(struct swr_adapter *ad, void *arg)
{
	struct cq_resize *rs = arg;
	struct swr_cq *cq = rs->cq;
	struct rte_ring *old = cq->ring;
	struct ndk_result_ex e;

	RTE_SET_USED(ad);
	if (__atomic_load_n(&cq->overflow, __ATOMIC_ACQUIRE) != CQ_OVF_NONE)
		return NDK_STATUS_INVALID_DEVICE_STATE;
	/* NDSPI's rule: never below what it holds, nothing lost. */
	if (rte_ring_count(old) / CQ_WORDS > rs->depth)
		return NDK_STATUS_BUFFER_OVERFLOW;
	while (rte_ring_sc_dequeue_bulk_elem(old, &e, CQ_WSIZE, CQ_WORDS,
					     NULL) != 0)
		rte_ring_mp_enqueue_bulk_elem(rs->ring, &e, CQ_WSIZE,
					      CQ_WORDS, NULL);
	cq->ring = rs->ring;
	cq->depth = rs->depth;
	/* The old ring's memory: its own allocation, or (as created) part
	 * of the CQ's, which stays until the CQ is freed. */
	rs->ring = cq->ring_mem != NULL ? old : NULL;
	cq->ring_mem = cq->ring;
	return NDK_STATUS_SUCCESS;
}

static ndk_status_t
swr_cq_resize(struct ndk_cq *c, uint32_t depth)
{
	struct swr_cq *cq = cq_of(c);
	struct cq_resize rs = { .cq = cq, .depth = depth };
	ndk_status_t st;
	ssize_t rsz;

	if (depth == 0 || depth > cq->ad->info.max_cq_depth)
		return NDK_STATUS_INVALID_PARAMETER;
	rsz = cq_ring_size(depth);
	if (rsz < 0)
		return NDK_STATUS_INVALID_PARAMETER;
	rs.ring = rte_zmalloc_socket("swr_cq_ring", (size_t)rsz,
				     RTE_CACHE_LINE_SIZE, cq->ad->socket_id);
	if (rs.ring == NULL || cq_ring_init(rs.ring, depth) != 0) {
		NDK_LOG(ERR, "resize CQ %p to %u: out of memory", (void *)cq,
			depth);
		rte_free(rs.ring);
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	}
	st = swr_ctl_exec(cq->ad, cq_resize_ctl, &rs);
	if (st != NDK_STATUS_SUCCESS)
		NDK_LOG(DEBUG, "resize CQ %p (depth %u) to %u: %s", (void *)cq,
			cq->depth, depth, ndk_status_str(st));
	/* Failed: the new ring, unused; done: the old one if separate. */
	rte_free(rs.ring);
	return st;
}

struct cq_moderate {
	struct swr_cq *cq;
	uint32_t count;
	uint64_t tsc;
	uint32_t held;   /* out: the level of one held under the old ones */
};

/* Pollers paused: the new settings, the list, a held notification. */
static ndk_status_t
cq_moderate_ctl(struct swr_adapter *ad, void *arg)
{
	struct cq_moderate *m = arg;
	struct swr_cq *cq = m->cq;
	bool link = m->tsc != 0;

	cq->mod_on = m->count != 0 || m->tsc != 0;
	cq->mod_count = m->count;
	cq->mod_tsc = m->tsc;
	if (link && !cq->mod_linked) {
		cq->mod_next = ad->mod_list;
		ad->mod_list = cq;
		cq->mod_linked = true;
	} else if (!link && cq->mod_linked) {
		cq_mod_unlink(ad, cq);
	}
	/* One held under the old settings goes now (latest settings win),
	 * from the caller, outside the pause. */
	__atomic_store_n(&cq->mod_due, 0, __ATOMIC_RELAXED);
	m->held = __atomic_exchange_n(&cq->mod_need, SWR_ARM_NONE,
				      __ATOMIC_RELAXED);
	return NDK_STATUS_SUCCESS;
}

static ndk_status_t
swr_cq_moderate(struct ndk_cq *c, uint32_t interval_us, uint32_t count)
{
	struct swr_cq *cq = cq_of(c);
	/* NDK: MAXULONG or above the depth, the interval alone governs. */
	bool no_count = count == UINT32_MAX || count > cq->depth;
	struct cq_moderate m = { .cq = cq };

	if (interval_us == UINT32_MAX && no_count)
		return NDK_STATUS_INVALID_PARAMETER_MIX;
	/* Interval 0: off. A count of 0 or 1 is reached by every completion:
	 * off too, whatever the interval. */
	if (interval_us != 0 && (no_count || count > 1)) {
		m.count = no_count ? 0 : count;
		if (interval_us != UINT32_MAX)
			m.tsc = RTE_MAX((uint64_t)1, (uint64_t)interval_us *
					rte_get_tsc_hz() / 1000000);
	}
	swr_ctl_exec(cq->ad, cq_moderate_ctl, &m);
	if (m.held != SWR_ARM_NONE)
		cq_fire(cq, m.held);
	return NDK_STATUS_SUCCESS;
}

static const struct ndk_cq_dispatch swr_cq_ops = {
	.close = swr_cq_close,
	.resize = swr_cq_resize,
	.moderate = swr_cq_moderate,
	.arm = swr_cq_arm,
	.get_results = swr_cq_get_results,
	.get_results_ex = swr_cq_get_results_ex,
};

/* ------------------------------------------------------------------ */
/* Creation                                                            */
/* ------------------------------------------------------------------ */

/* Count a CQ against the adapter limit. @return false if at the limit. */
static bool
cq_reserve(struct swr_adapter *ad)
{
	bool ok;

	rte_spinlock_lock(&ad->obj_lock);
	ok = ad->n_cq < ad->info.max_cq;
	if (ok)
		ad->n_cq++;
	rte_spinlock_unlock(&ad->obj_lock);
	return ok;
}

static void
cq_unreserve(struct swr_adapter *ad)
{
	rte_spinlock_lock(&ad->obj_lock);
	ad->n_cq--;
	rte_spinlock_unlock(&ad->obj_lock);
}

/*
 * One allocation holds the CQ and then its ring (rte_ring_init, not
 * rte_ring_create_elem: a memzone per CQ would hit RTE_MAX_MEMZONE, 2560,
 * before the default CQ limit).
 */
static struct swr_cq *
cq_alloc(struct swr_adapter *ad, uint32_t depth)
{
	size_t hdr = RTE_ALIGN_CEIL(sizeof(struct swr_cq),
				    RTE_CACHE_LINE_SIZE);
	struct swr_cq *cq;
	ssize_t rsz;

	rsz = cq_ring_size(depth);
	if (rsz < 0)
		return NULL;
	cq = rte_zmalloc_socket("swr_cq", hdr + (size_t)rsz,
				RTE_CACHE_LINE_SIZE, ad->socket_id);
	if (cq == NULL)
		return NULL;
	cq->ring = (struct rte_ring *)((uint8_t *)cq + hdr);
	if (cq_ring_init(cq->ring, depth) != 0) {
		rte_free(cq);
		return NULL;
	}
	return cq;
}

ndk_status_t
swr_cq_create(struct ndk_adapter *adapter, uint32_t depth,
	      ndk_cq_notify_fn notify, void *ctx, struct ndk_cq **out)
{
	struct swr_adapter *ad = swr_adapter_of(adapter);
	struct swr_cq *cq;

	RTE_BUILD_BUG_ON(sizeof(struct ndk_result_ex) % CQ_WSIZE != 0);
	if (depth == 0 || depth > ad->info.max_cq_depth)
		return NDK_STATUS_INVALID_PARAMETER;
	if (!cq_reserve(ad))
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	cq = cq_alloc(ad, depth);
	if (cq == NULL) {
		cq_unreserve(ad);
		NDK_LOG(ERR, "create CQ of depth %u: out of memory", depth);
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	}
	ndk_object_header_init(&cq->pub.header, NDK_OBJECT_TYPE_CQ);
	cq->pub.dispatch = &swr_cq_ops;
	cq->ad = ad;
	cq->depth = depth;
	cq->notify = notify;
	cq->notify_ctx = ctx;
	cq->armed = SWR_ARM_NONE;
	cq->refcnt = 1; /* the handle; QPs add theirs */

	rte_spinlock_lock(&ad->obj_lock);
	cq->next = ad->cq_list;
	ad->cq_list = cq;
	rte_spinlock_unlock(&ad->obj_lock);
	*out = &cq->pub;
	return NDK_STATUS_SUCCESS;
}
