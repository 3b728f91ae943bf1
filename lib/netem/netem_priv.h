/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NETEM_PRIV_H
#define NETEM_PRIV_H

/*
 * What lib/netem's impairment (ndk_netem.c) and bottleneck queue
 * (ndk_netem_queue.c) share: the PRNG and the deep copy of a frame that
 * must be modified while someone else may still hold a reference to it.
 */

#include <stdint.h>

#include <rte_mbuf.h>

#define NETEM_DEFAULT_SEED	UINT64_C(0x6e646b2d6e65746d) /* "ndk-netm" */

/* xorshift64* state from a seed (splitmix64 finalizer), never 0. */
static inline uint64_t
netem_seed_state(uint64_t seed)
{
	uint64_t z = seed + UINT64_C(0x9e3779b97f4a7c15);

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	z ^= z >> 31;
	return z != 0 ? z : NETEM_DEFAULT_SEED;
}

/* Next xorshift64* draw. */
static inline uint64_t
netem_rand_next(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * UINT64_C(0x2545f4914f6cdd1d);
}

/* Deep copy from the pool that owns the frame's data; NULL if none. */
struct rte_mbuf *netem_copy(struct rte_mbuf *m);

/*
 * @m itself if its first segment may be written (direct, one reference),
 * else a private copy that replaces it (@m freed); NULL, @m untouched, if
 * no buffer is left.
 */
struct rte_mbuf *netem_writable(struct rte_mbuf *m);

#endif /* NETEM_PRIV_H */
