/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_NETEM_H
#define NDK_NETEM_H

/**
 * @file
 * Link impairment for tests and benchmarks: drops, duplicates, reorders and
 * corrupts frames on an ethdev RX queue through an RX callback, so that any
 * port (net_ring, memif, ...) can be made lossy without a kernel qdisc.
 *
 * The callback runs on the lcore that polls the queue; it keeps its own
 * xorshift PRNG (seeded, reproducible), its own small holding area for
 * reordered frames and its counters. No locks, no allocations per frame
 * (duplicates use rte_pktmbuf_copy from the frame's own pool).
 */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ndk_netem;

/** Impairment settings; probabilities in parts per million. */
struct ndk_netem_config {
	uint32_t drop_ppm;      /**< drop a frame */
	uint32_t dup_ppm;       /**< deliver a frame twice */
	uint32_t reorder_ppm;   /**< hold a frame back behind later ones */
	uint32_t corrupt_ppm;   /**< flip one random byte after the Ethernet header */
	uint32_t reorder_gap;   /**< frames that overtake a held one (default 3) */
	uint64_t seed;          /**< PRNG seed; 0 picks a fixed default */
};

/** Counters of what was done to the traffic. */
struct ndk_netem_stats {
	uint64_t seen;
	uint64_t dropped;
	uint64_t duplicated;
	uint64_t reordered;
	uint64_t corrupted;
};

/**
 * Attach an impairment to RX queue @p queue_id of @p port_id.
 * @return NULL on failure (rte_errno set).
 */
struct ndk_netem *ndk_netem_attach(uint16_t port_id, uint16_t queue_id,
				   const struct ndk_netem_config *config);

/**
 * Change the settings of an attached impairment (takes effect on the next
 * burst; safe while traffic flows).
 */
void ndk_netem_set(struct ndk_netem *netem,
		   const struct ndk_netem_config *config);

/** Read the counters. */
void ndk_netem_get_stats(const struct ndk_netem *netem,
			 struct ndk_netem_stats *stats);

/**
 * Detach and free. Frames still held for reordering are freed. The caller
 * guarantees the queue is not being polled (port stopped, or poller stopped).
 */
void ndk_netem_detach(struct ndk_netem *netem);

#ifdef __cplusplus
}
#endif

#endif /* NDK_NETEM_H */
