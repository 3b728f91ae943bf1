/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef SWROCE_TIMER_H
#define SWROCE_TIMER_H

/**
 * @file
 * swroce timer wheel: a hashed timing wheel per queue for the QPs'
 * retransmission and RNR timers, so that a QP that only waits for an
 * answer is off the queue's active list and costs nothing per poll.
 *
 * Time is the TSC in ticks of 1 << shift cycles; a timer armed for tick t
 * hangs in slot (t & mask) on an intrusive doubly linked list (O(1) arm
 * and cancel, no division). swr_tw_advance() visits the slots of the
 * ticks that have fully passed: a timer fires at most one tick plus one
 * poll late, never early. A deadline further out than the wheel's span
 * lands in a slot visited earlier and is put back there until its tick
 * has passed ("re-insert if not yet due"); so is a timer that was moved
 * later lazily (swr_tw_arm() leaves a timer that is slotted earlier than
 * the new deadline where it is, and the expiry callback re-arms it).
 * Ticks are compared by signed difference. The wheel keeps a lower
 * bound of the first tick whose slot holds a timer (next): ticks before
 * it pass without a visit (swr_tw_pending()), and a visit starts there
 * and looks a few words of the slot bitmap ahead for the next bound.
 * Owner of the queue only.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>

/** A timer, embedded in its owner (intrusive). */
struct swr_tw_node {
	struct swr_tw_node *next;
	struct swr_tw_node **pprev; /**< NULL: not armed */
	uint64_t when;              /**< tick it hangs at */
};

/** Expiry callback: @p nd is no longer armed and may be armed again. */
typedef void (*swr_tw_fn)(struct swr_tw_node *nd, void *arg);

/** A wheel of (mask + 1) slots, at least 64. */
struct swr_tw {
	struct swr_tw_node **slot; /**< list heads, mask + 1 of them */
	uint64_t *occ;             /**< bit per slot: its list is not empty */
	uint64_t mask;
	uint64_t cur;              /**< first tick not yet visited */
	/** While timers are armed: no slot holds one for a tick in
	 *  [cur, next) */
	uint64_t next;
	uint32_t shift;            /**< tick = TSC >> shift */
	uint32_t n;                /**< timers armed */
};

/** Bytes of memory a wheel of 1 << @p bits slots needs (swr_tw_init()). */
static inline size_t
swr_tw_mem_size(uint32_t bits)
{
	return (sizeof(struct swr_tw_node *) << bits) + ((size_t)1 << bits) / 8;
}

/**
 * Set up @p tw in @p mem (zeroed, swr_tw_mem_size(@p bits) bytes, 8-byte
 * aligned; bits >= 6) with ticks of 1 << @p shift TSC cycles, starting at
 * TSC @p now.
 */
static inline void
swr_tw_init(struct swr_tw *tw, void *mem, uint32_t bits, uint32_t shift,
	    uint64_t now)
{
	tw->slot = mem;
	tw->occ = (uint64_t *)(tw->slot + ((size_t)1 << bits));
	tw->mask = (UINT64_C(1) << bits) - 1;
	tw->shift = shift;
	tw->cur = now >> shift;
	tw->next = tw->cur;
	tw->n = 0;
}

/** True if @p nd is armed. */
static inline bool
swr_tw_armed(const struct swr_tw_node *nd)
{
	return nd->pprev != NULL;
}

/* Hang @p nd at tick @p when (not before the first tick still to visit). */
static inline void
swr_tw_link(struct swr_tw *tw, struct swr_tw_node *nd, uint64_t when)
{
	struct swr_tw_node **h;
	uint64_t visit;

	if ((int64_t)(when - tw->cur) < 0)
		when = tw->cur;
	/* The first tick from cur on whose visit finds its slot. */
	visit = tw->cur + ((when - tw->cur) & tw->mask);
	if (tw->n == 0 || (int64_t)(visit - tw->next) < 0)
		tw->next = visit;
	h = &tw->slot[when & tw->mask];
	tw->occ[(when & tw->mask) >> 6] |= UINT64_C(1) << (when & 63);
	nd->when = when;
	nd->next = *h;
	if (nd->next != NULL)
		nd->next->pprev = &nd->next;
	nd->pprev = h;
	*h = nd;
	tw->n++;
}

/** Disarm @p nd (nothing if it is not armed). */
static inline void
swr_tw_cancel(struct swr_tw *tw, struct swr_tw_node *nd)
{
	struct swr_tw_node **h;

	if (nd->pprev == NULL)
		return;
	h = &tw->slot[nd->when & tw->mask];
	if (nd->pprev == h && nd->next == NULL)  /* the slot's last one */
		tw->occ[(nd->when & tw->mask) >> 6] &=
			~(UINT64_C(1) << (nd->when & 63));
	*nd->pprev = nd->next;
	if (nd->next != NULL)
		nd->next->pprev = nd->pprev;
	nd->pprev = NULL;
	nd->next = NULL;
	tw->n--;
}

/**
 * Make @p nd fire once TSC @p deadline has passed. A timer armed for an
 * earlier tick stays where it is (its callback finds the deadline not yet
 * due and arms it again); one armed later moves.
 */
static inline void
swr_tw_arm(struct swr_tw *tw, struct swr_tw_node *nd, uint64_t deadline)
{
	uint64_t when = deadline >> tw->shift;

	if (nd->pprev != NULL) {
		if ((int64_t)(nd->when - when) <= 0)
			return;
		swr_tw_cancel(tw, nd);
	}
	swr_tw_link(tw, nd, when);
}

/**
 * Whether swr_tw_advance() at TSC @p now has a tick to visit: a poll
 * within the tick of the one before skips the call altogether.
 */
static inline bool
swr_tw_due(const struct swr_tw *tw, uint64_t now)
{
	return (int64_t)((now >> tw->shift) - tw->cur) > 0;
}

/**
 * Whether the ticks passed by TSC @p now hold a slot that may have a
 * timer: if not, the poll moves the wheel's clock (cur) without a visit.
 */
static inline bool
swr_tw_pending(const struct swr_tw *tw, uint64_t now)
{
	return tw->n != 0 && (int64_t)((now >> tw->shift) - tw->next) > 0;
}

/**
 * The poll loop's look at the wheel at TSC @p now: true if
 * swr_tw_advance() has a slot to visit; otherwise the wheel's clock
 * moves on here (no call).
 */
static inline bool
swr_tw_tick(struct swr_tw *tw, uint64_t now)
{
	if (!swr_tw_due(tw, now))
		return false;
	if (swr_tw_pending(tw, now))
		return true;
	tw->cur = now >> tw->shift;
	return false;
}

/*
 * After a visit up to tick @p t: the next bound, the first occupied slot
 * within a few words of the bitmap from @p t, or the end of those words
 * (never more than the wheel's span ahead).
 */
static inline uint64_t
swr_tw_scan(const struct swr_tw *tw, uint64_t t)
{
	unsigned int words = RTE_MIN(4u, (unsigned int)((tw->mask + 1) >> 6));

	for (unsigned int k = 0; k < words; k++) {
		uint64_t bits = tw->occ[(t & tw->mask) >> 6] >> (t & 63);

		if (bits != 0)
			return t + (uint64_t)__builtin_ctzll(bits);
		t = (t | 63) + 1;
	}
	return t;
}

/**
 * Fire the timers of every tick that has passed by TSC @p now, calling
 * @p fn for each (in no particular order within a tick). Timers armed by
 * the callbacks fire at a later call. After a long pause every slot is
 * visited once. @return timers fired.
 */
static inline unsigned int
swr_tw_advance(struct swr_tw *tw, uint64_t now, swr_tw_fn fn, void *arg)
{
	uint64_t end = now >> tw->shift;
	uint64_t t = tw->cur, stop;
	unsigned int fired = 0;

	if ((int64_t)(end - t) <= 0)
		return 0;
	tw->cur = end;
	if (tw->n == 0 || (int64_t)(end - tw->next) <= 0)
		return 0;
	if ((int64_t)(tw->next - t) > 0)
		t = tw->next;           /* the slots before it are empty */
	stop = end - t > tw->mask ? t + tw->mask + 1 : end;
	while ((int64_t)(stop - t) > 0) {
		uint64_t *w = &tw->occ[(t & tw->mask) >> 6];
		uint64_t bits = *w >> (t & 63);
		struct swr_tw_node **h;
		struct swr_tw_node *list;

		if (bits == 0) {
			t = (t | 63) + 1;       /* the next word's first tick */
			continue;
		}
		t += (uint64_t)__builtin_ctzll(bits);
		if ((int64_t)(stop - t) <= 0)
			break;
		h = &tw->slot[t & tw->mask];
		list = *h;
		/* Detach the slot; callbacks may cancel what is still on it. */
		*h = NULL;
		*w &= ~(UINT64_C(1) << (t & 63));
		t++;
		list->pprev = &list;
		while (list != NULL) {
			struct swr_tw_node *nd = list;

			list = nd->next;
			if (list != NULL)
				list->pprev = &list;
			nd->pprev = NULL;
			nd->next = NULL;
			tw->n--;
			if ((int64_t)(nd->when - end) >= 0) {
				swr_tw_link(tw, nd, nd->when); /* a later lap */
				continue;
			}
			fn(nd, arg);
			fired++;
		}
	}
	tw->next = swr_tw_scan(tw, end);
	return fired;
}

#endif /* SWROCE_TIMER_H */
