/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Link impairment as an ethdev RX callback.
 *
 * Data path (runs on the lcore polling the queue, no locks, no division):
 *  - every frame of a burst gets its decisions from a xorshift64* PRNG:
 *    drop, then corrupt, then duplicate, then reorder; a probability of
 *    p ppm is a threshold p * 2^32 / 10^6 (computed by the control path)
 *    compared with the upper 32 bits of one PRNG draw. A probability of 0
 *    draws nothing, so equal settings and seed give equal decisions.
 *  - the burst is processed in the caller's array, which may hold up to
 *    max_pkts frames: the input is first moved to the end of the array
 *    ([rd, max) is unread input), output is written from index 0 (w), so
 *    output can never overwrite unread input. A frame that has no slot yet
 *    (extra frames: duplicates and released held frames) goes to a small
 *    FIFO, the carry, which is drained in order as slots free up, and
 *    first thing in later bursts. Extra frames are only created while
 *    w + carry + 1 <= rd + NETEM_CARRY_SLOTS, which bounds the carry to its
 *    size whatever the rest of the burst does; a duplicate beyond that is
 *    simply not made, a due held frame waits.
 *  - reordered frames wait in a FIFO hold ring of NETEM_HOLD_SLOTS until
 *    reorder_gap later frames have been delivered, or NETEM_HOLD_MAX_POLLS
 *    callbacks have passed (the callback also runs for empty polls), so a
 *    frame is never held forever on an idle link. With the hold ring full
 *    a frame chosen for reordering is passed in order.
 *  - a frame to corrupt whose first segment is shared (refcnt > 1, clone,
 *    external buffer) is copied first so that nobody else's data changes
 *    (e.g. a sender keeping a reference for retransmission on net_ring).
 *
 * Configuration: a triple buffer. The writer (ndk_netem_set, serialized by
 * a spinlock among writers only) fills its private slot and exchanges it
 * with the shared "middle" index, setting a fresh bit; the reader exchanges
 * its slot with the middle when the fresh bit is set, once per burst. Both
 * sides are wait-free and the reader always sees one whole configuration.
 * A new configuration whose seed differs from the seed in effect re-seeds
 * the PRNG; with the same seed the PRNG sequence continues.
 *
 * Statistics: written only by the polling lcore with relaxed 64-bit atomic
 * stores once per burst, read with relaxed loads.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_spinlock.h>

#include "ndk_netem.h"
#include "netem_priv.h"

#ifndef RTE_LOG_DEFAULT_LOGTYPE
#define RTE_LOG_DEFAULT_LOGTYPE ndk.netem
#endif
RTE_LOG_REGISTER(ndk_netem_logtype, ndk.netem, NOTICE);

#define NETEM_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, ndk_netem_logtype, "ndk_netem: " fmt "\n", \
		##__VA_ARGS__)

#define NETEM_PPM_MAX		1000000u
#define NETEM_ALWAYS		(UINT64_C(1) << 32)
#define NETEM_DEFAULT_GAP	3u
#define NETEM_ETH_HLEN		14u
#define NETEM_HOLD_SLOTS	64u	/* power of two */
#define NETEM_HOLD_MAX_POLLS	8u
#define NETEM_CARRY_SLOTS	64u	/* power of two */
#define NETEM_SLOT_MASK		3u
#define NETEM_FRESH		4u

/* One configuration in the form the data path uses. */
struct netem_params {
	uint64_t drop_thr;	/* 0: never, NETEM_ALWAYS: always */
	uint64_t dup_thr;
	uint64_t reorder_thr;
	uint64_t corrupt_thr;
	uint64_t seed;		/* effective seed, never 0 */
	uint32_t gap;		/* >= 1 */
	bool active;		/* any threshold non-zero */
};

struct netem_held {
	struct rte_mbuf *m;
	uint64_t release_at;	/* value of 'passed' that releases it */
	uint64_t held_poll;	/* value of 'polls' when it was held */
};

struct ndk_netem {
	/* Control path. */
	uint16_t port_id;
	uint16_t queue_id;
	const struct rte_eth_rxtx_callback *cb;
	rte_spinlock_t set_lock;	/* serializes writers only */
	uint32_t back;			/* writer's slot, under set_lock */
	uint32_t mid;			/* shared: slot | NETEM_FRESH */
	struct netem_params slot[3];

	/* Data path: touched by the polling lcore only. */
	uint32_t front __rte_cache_aligned;	/* reader's slot */
	uint64_t seed;			/* seed in effect */
	uint64_t rng;			/* xorshift64* state, never 0 */
	uint64_t polls;			/* callbacks so far */
	uint64_t passed;		/* frames delivered in input order */
	uint32_t hold_head;
	uint32_t hold_count;
	uint32_t carry_head;
	uint32_t carry_count;
	struct netem_held hold[NETEM_HOLD_SLOTS];
	struct rte_mbuf *carry[NETEM_CARRY_SLOTS];

	/* Written by the polling lcore, read by anyone. */
	struct ndk_netem_stats stats __rte_cache_aligned;
};

/* Output state of one burst in the caller's array. */
struct netem_io {
	struct rte_mbuf **pkts;
	uint32_t w;	/* next output slot */
	uint32_t rd;	/* next unread input slot; [rd, max) is unread */
	uint32_t max;
};

static inline uint64_t
netem_rand(struct ndk_netem *ne)
{
	return netem_rand_next(&ne->rng);
}

static inline bool
netem_hit(struct ndk_netem *ne, uint64_t thr)
{
	if (thr == 0)
		return false;
	if (thr >= NETEM_ALWAYS)
		return true;
	return (netem_rand(ne) >> 32) < thr;
}

static inline uint64_t
netem_threshold(uint32_t ppm)
{
	return ((uint64_t)ppm << 32) / NETEM_PPM_MAX;
}

static int
netem_params_from(const struct ndk_netem_config *c, struct netem_params *p)
{
	if (c == NULL || c->drop_ppm > NETEM_PPM_MAX ||
	    c->dup_ppm > NETEM_PPM_MAX || c->reorder_ppm > NETEM_PPM_MAX ||
	    c->corrupt_ppm > NETEM_PPM_MAX)
		return -EINVAL;
	p->drop_thr = netem_threshold(c->drop_ppm);
	p->dup_thr = netem_threshold(c->dup_ppm);
	p->reorder_thr = netem_threshold(c->reorder_ppm);
	p->corrupt_thr = netem_threshold(c->corrupt_ppm);
	p->seed = c->seed != 0 ? c->seed : NETEM_DEFAULT_SEED;
	p->gap = c->reorder_gap != 0 ? c->reorder_gap : NETEM_DEFAULT_GAP;
	p->active = (p->drop_thr | p->dup_thr | p->reorder_thr |
		     p->corrupt_thr) != 0;
	return 0;
}

/* Writer side of the triple buffer. */
static void
netem_publish(struct ndk_netem *ne, const struct netem_params *p)
{
	uint32_t old;

	rte_spinlock_lock(&ne->set_lock);
	ne->slot[ne->back] = *p;
	old = __atomic_exchange_n(&ne->mid, ne->back | NETEM_FRESH,
				  __ATOMIC_ACQ_REL);
	ne->back = old & NETEM_SLOT_MASK;
	rte_spinlock_unlock(&ne->set_lock);
}

/* Reader side: the configuration for this burst. */
static inline const struct netem_params *
netem_params_get(struct ndk_netem *ne)
{
	const struct netem_params *p;
	uint32_t old;

	if (likely((__atomic_load_n(&ne->mid, __ATOMIC_RELAXED) &
		    NETEM_FRESH) == 0))
		return &ne->slot[ne->front];
	old = __atomic_exchange_n(&ne->mid, ne->front, __ATOMIC_ACQ_REL);
	ne->front = old & NETEM_SLOT_MASK;
	p = &ne->slot[ne->front];
	if (p->seed != ne->seed) {
		ne->seed = p->seed;
		ne->rng = netem_seed_state(p->seed);
	}
	return p;
}

static inline void
netem_stat_add(uint64_t *counter, uint64_t n)
{
	if (n != 0)
		__atomic_store_n(counter, *counter + n, __ATOMIC_RELAXED);
}

/* Deep copy from the pool that owns the frame's data buffer. */
struct rte_mbuf *
netem_copy(struct rte_mbuf *m)
{
	struct rte_mempool *mp = m->pool;

	if (RTE_MBUF_CLONED(m))
		mp = rte_mbuf_from_indirect(m)->pool;
	/* A pool without data room (clone-only pool) would never fit data. */
	if (mp == NULL ||
	    rte_pktmbuf_data_room_size(mp) <= RTE_PKTMBUF_HEADROOM)
		return NULL;
	return rte_pktmbuf_copy(m, mp, 0, UINT32_MAX);
}

struct rte_mbuf *
netem_writable(struct rte_mbuf *m)
{
	struct rte_mbuf *c;

	if (RTE_MBUF_DIRECT(m) && rte_mbuf_refcnt_read(m) == 1)
		return m;
	c = netem_copy(m);
	if (c != NULL)
		rte_pktmbuf_free(m);
	return c;
}

/* Flip one byte at a random offset >= 14 of the first segment. */
static struct rte_mbuf *
netem_corrupt(struct ndk_netem *ne, struct rte_mbuf *m, uint64_t *count)
{
	uint64_t r;
	uint32_t off;
	uint8_t flip;

	if (m->data_len <= NETEM_ETH_HLEN)
		return m;
	if (!RTE_MBUF_DIRECT(m) || rte_mbuf_refcnt_read(m) != 1) {
		struct rte_mbuf *c = netem_writable(m);

		if (c == NULL)
			return m;	/* no buffer: leave the frame intact */
		m = c;
		if (m->data_len <= NETEM_ETH_HLEN)
			return m;
	}
	r = netem_rand(ne);
	off = NETEM_ETH_HLEN + (uint32_t)(((r >> 32) *
		(uint64_t)(m->data_len - NETEM_ETH_HLEN)) >> 32);
	flip = (uint8_t)(r >> 8);
	if (flip == 0)
		flip = 0xff;
	*rte_pktmbuf_mtod_offset(m, uint8_t *, off) ^= flip;
	(*count)++;
	return m;
}

static inline void
netem_drain(struct ndk_netem *ne, struct netem_io *io)
{
	while (ne->carry_count > 0 && io->w < io->rd) {
		io->pkts[io->w++] = ne->carry[ne->carry_head];
		ne->carry_head = (ne->carry_head + 1) & (NETEM_CARRY_SLOTS - 1);
		ne->carry_count--;
	}
}

/* Deliver @m after everything delivered so far. */
static inline void
netem_emit(struct ndk_netem *ne, struct netem_io *io, struct rte_mbuf *m)
{
	netem_drain(ne, io);
	if (likely(ne->carry_count == 0 && io->w < io->rd)) {
		io->pkts[io->w++] = m;
		return;
	}
	/* Here w == rd: the carry stays within its size (see top). */
	ne->carry[(ne->carry_head + ne->carry_count) &
		  (NETEM_CARRY_SLOTS - 1)] = m;
	ne->carry_count++;
}

/* May one frame that is not from the input be delivered now? */
static inline bool
netem_room_for_extra(const struct ndk_netem *ne, const struct netem_io *io)
{
	return io->w + ne->carry_count + 1 <= io->rd + NETEM_CARRY_SLOTS;
}

/* Deliver the held frames that are due, oldest first. */
static void
netem_release(struct ndk_netem *ne, struct netem_io *io)
{
	while (ne->hold_count > 0) {
		struct netem_held *h = &ne->hold[ne->hold_head];

		if (h->release_at > ne->passed &&
		    ne->polls - h->held_poll < NETEM_HOLD_MAX_POLLS)
			break;
		if (!netem_room_for_extra(ne, io))
			break;
		netem_emit(ne, io, h->m);
		h->m = NULL;
		ne->hold_head = (ne->hold_head + 1) & (NETEM_HOLD_SLOTS - 1);
		ne->hold_count--;
	}
}

static void
netem_frame(struct ndk_netem *ne, struct netem_io *io,
	    const struct netem_params *p, struct rte_mbuf *m,
	    struct ndk_netem_stats *st)
{
	bool dup, hold;

	if (netem_hit(ne, p->drop_thr)) {
		rte_pktmbuf_free(m);
		st->dropped++;
		return;
	}
	if (netem_hit(ne, p->corrupt_thr))
		m = netem_corrupt(ne, m, &st->corrupted);
	dup = netem_hit(ne, p->dup_thr);
	hold = netem_hit(ne, p->reorder_thr) &&
		ne->hold_count < NETEM_HOLD_SLOTS;
	if (hold) {
		struct netem_held *h = &ne->hold[(ne->hold_head +
			ne->hold_count) & (NETEM_HOLD_SLOTS - 1)];

		h->m = m;
		h->release_at = ne->passed + p->gap;
		h->held_poll = ne->polls;
		ne->hold_count++;
		st->reordered++;
	} else {
		netem_emit(ne, io, m);
		ne->passed++;
	}
	if (dup && netem_room_for_extra(ne, io)) {
		struct rte_mbuf *c = netem_copy(m);

		if (c != NULL) {
			netem_emit(ne, io, c);
			st->duplicated++;
		}
	}
	if (!hold)
		netem_release(ne, io);
}

static uint16_t
netem_rx_cb(uint16_t port_id __rte_unused, uint16_t queue_id __rte_unused,
	    struct rte_mbuf **pkts, uint16_t nb_rx, uint16_t max_pkts,
	    void *arg)
{
	struct ndk_netem *ne = arg;
	struct ndk_netem_stats st = { .seen = nb_rx };
	const struct netem_params *p;
	struct netem_io io;

	ne->polls++;
	p = netem_params_get(ne);
	if (likely(!p->active && ne->hold_count == 0 &&
		   ne->carry_count == 0)) {
		netem_stat_add(&ne->stats.seen, nb_rx);
		return nb_rx;
	}
	if (unlikely(max_pkts == 0))
		return 0;

	/* Unread input at the end of the array, output from its start. */
	if (nb_rx != 0 && nb_rx < max_pkts)
		memmove(&pkts[max_pkts - nb_rx], pkts, nb_rx * sizeof(*pkts));
	io.pkts = pkts;
	io.w = 0;
	io.rd = max_pkts - nb_rx;
	io.max = max_pkts;

	netem_drain(ne, &io);
	netem_release(ne, &io);		/* frames held for too many polls */
	while (io.rd < io.max) {
		struct rte_mbuf *m = pkts[io.rd++];

		netem_frame(ne, &io, p, m, &st);
	}
	netem_release(ne, &io);		/* the whole array is free now */
	netem_drain(ne, &io);

	netem_stat_add(&ne->stats.seen, st.seen);
	netem_stat_add(&ne->stats.dropped, st.dropped);
	netem_stat_add(&ne->stats.duplicated, st.duplicated);
	netem_stat_add(&ne->stats.reordered, st.reordered);
	netem_stat_add(&ne->stats.corrupted, st.corrupted);
	return (uint16_t)io.w;
}

struct ndk_netem *
ndk_netem_attach(uint16_t port_id, uint16_t queue_id,
		 const struct ndk_netem_config *config)
{
	struct rte_eth_dev_info info;
	struct netem_params p;
	struct ndk_netem *ne;
	int socket, rc;

	if (!rte_eth_dev_is_valid_port(port_id)) {
		NETEM_LOG(ERR, "attach: invalid port %u", port_id);
		rte_errno = ENODEV;
		return NULL;
	}
	if (netem_params_from(config, &p) != 0) {
		NETEM_LOG(ERR, "attach: invalid config (NULL or ppm > %u)",
			  NETEM_PPM_MAX);
		rte_errno = EINVAL;
		return NULL;
	}
	rc = rte_eth_dev_info_get(port_id, &info);
	if (rc != 0) {
		NETEM_LOG(ERR, "attach: port %u: no device info (%d)",
			  port_id, rc);
		rte_errno = -rc;
		return NULL;
	}
	if (queue_id >= info.nb_rx_queues) {
		NETEM_LOG(ERR, "attach: port %u has %u RX queues, not %u",
			  port_id, info.nb_rx_queues, queue_id + 1u);
		rte_errno = EINVAL;
		return NULL;
	}

	socket = rte_eth_dev_socket_id(port_id);
	if (socket < 0)
		socket = SOCKET_ID_ANY;
	ne = rte_zmalloc_socket("ndk_netem", sizeof(*ne), RTE_CACHE_LINE_SIZE,
				socket);
	if (ne == NULL) {
		NETEM_LOG(ERR, "attach: out of memory");
		rte_errno = ENOMEM;
		return NULL;
	}
	ne->port_id = port_id;
	ne->queue_id = queue_id;
	rte_spinlock_init(&ne->set_lock);
	ne->slot[0] = p;
	ne->front = 0;
	ne->mid = 1;
	ne->back = 2;
	ne->seed = p.seed;
	ne->rng = netem_seed_state(p.seed);

	/* The callback list insertion publishes ne with release semantics. */
	ne->cb = rte_eth_add_rx_callback(port_id, queue_id, netem_rx_cb, ne);
	if (ne->cb == NULL) {
		rc = rte_errno;
		NETEM_LOG(ERR, "attach: port %u queue %u: cannot add RX "
			  "callback: %s", port_id, queue_id, rte_strerror(rc));
		rte_free(ne);
		rte_errno = rc;
		return NULL;
	}
	NETEM_LOG(INFO, "port %u queue %u: drop %u dup %u reorder %u "
		  "corrupt %u ppm, gap %u, seed 0x%" PRIx64, port_id, queue_id,
		  config->drop_ppm, config->dup_ppm, config->reorder_ppm,
		  config->corrupt_ppm, p.gap, p.seed);
	return ne;
}

void
ndk_netem_set(struct ndk_netem *netem, const struct ndk_netem_config *config)
{
	struct netem_params p;

	if (netem == NULL || netem_params_from(config, &p) != 0) {
		NETEM_LOG(ERR, "set: invalid argument (NULL or ppm > %u); "
			  "settings unchanged", NETEM_PPM_MAX);
		rte_errno = EINVAL;
		return;
	}
	netem_publish(netem, &p);
}

void
ndk_netem_get_stats(const struct ndk_netem *netem,
		    struct ndk_netem_stats *stats)
{
	if (netem == NULL || stats == NULL) {
		rte_errno = EINVAL;
		return;
	}
	stats->seen = __atomic_load_n(&netem->stats.seen, __ATOMIC_RELAXED);
	stats->dropped = __atomic_load_n(&netem->stats.dropped,
					 __ATOMIC_RELAXED);
	stats->duplicated = __atomic_load_n(&netem->stats.duplicated,
					    __ATOMIC_RELAXED);
	stats->reordered = __atomic_load_n(&netem->stats.reordered,
					   __ATOMIC_RELAXED);
	stats->corrupted = __atomic_load_n(&netem->stats.corrupted,
					   __ATOMIC_RELAXED);
}

/* Free frames still held or carried. Needs the queue not to be polled. */
static unsigned int
netem_flush(struct ndk_netem *ne)
{
	unsigned int n = ne->hold_count + ne->carry_count;

	while (ne->hold_count > 0) {
		rte_pktmbuf_free(ne->hold[ne->hold_head].m);
		ne->hold[ne->hold_head].m = NULL;
		ne->hold_head = (ne->hold_head + 1) & (NETEM_HOLD_SLOTS - 1);
		ne->hold_count--;
	}
	while (ne->carry_count > 0) {
		rte_pktmbuf_free(ne->carry[ne->carry_head]);
		ne->carry_head = (ne->carry_head + 1) & (NETEM_CARRY_SLOTS - 1);
		ne->carry_count--;
	}
	return n;
}

void
ndk_netem_detach(struct ndk_netem *netem)
{
	struct netem_params off;
	unsigned int freed;
	int rc;

	if (netem == NULL)
		return;
	rc = rte_eth_remove_rx_callback(netem->port_id, netem->queue_id,
					netem->cb);
	/*
	 * The caller guarantees that the queue is not being polled, so no
	 * callback is in flight: the held frames, the callback record (which
	 * ethdev unlinks but does not free) and the state can go now.
	 */
	freed = netem_flush(netem);
	if (rc != 0) {
		/*
		 * Still linked (e.g. port closed before detach: ethdev keeps
		 * the list, and a port reusing the id would call us). Keep
		 * the memory and make the callback a plain pass-through.
		 */
		NETEM_LOG(ERR, "detach: port %u queue %u: cannot remove RX "
			  "callback (%s); state leaked as pass-through",
			  netem->port_id, netem->queue_id, rte_strerror(-rc));
		memset(&off, 0, sizeof(off));
		off.seed = netem->seed;
		off.gap = NETEM_DEFAULT_GAP;
		netem_publish(netem, &off);
		rte_errno = -rc;
		return;
	}
	NETEM_LOG(DEBUG, "port %u queue %u detached, %u held frames freed",
		  netem->port_id, netem->queue_id, freed);
	rte_free((void *)(uintptr_t)netem->cb);
	rte_free(netem);
}
