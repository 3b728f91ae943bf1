/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_NETEM_QUEUE_H
#define NDK_NETEM_QUEUE_H

/**
 * @file
 * A switch-like bottleneck for tests and benchmarks: a FIFO buffer drained
 * at a fixed rate, with ECN marking above a threshold (step or RED-like)
 * and tail drop when the buffer is full, so that an incast (several
 * senders, one receiver) can be run on one machine.
 *
 * The queue is a pure data structure driven by a clock the caller passes
 * (TSC ticks at @p hz): ndk_netem_queue_enqueue() at arrival,
 * ndk_netem_queue_dequeue() releases the frames whose departure time has
 * come. Each frame's departure is fixed at arrival: the link is busy
 * until the previous frame left, then for (frame bytes + overhead) * 8 /
 * rate. Nothing sleeps. ndk_netem_queue_attach() runs it as an ethdev RX
 * callback on the lcore that polls the queue (every poll, empty or not,
 * releases what is due), with rte_rdtsc() as its clock (or the one in its
 * configuration).
 *
 * ECN: a frame arriving while the buffer holds at least @p ecn_kmin
 * (packets or bytes, see @p ecn_bytes) is marked CE if it is ECT(0) or
 * ECT(1), in the IPv4 TOS (checksum updated) or the IPv6 traffic class;
 * from ecn_kmin to ecn_kmax the probability grows linearly from 0 to
 * ecn_pmax_ppm (RED-like), at ecn_kmax and above every ECT frame is
 * marked. ecn_kmax <= ecn_kmin marks every ECT frame from ecn_kmin (step).
 * RoCEv2's ICRC does not cover the ECN bits, so a mark keeps it valid.
 * A frame that must be marked but is shared (another reference, e.g. a
 * sender's kept copy) is copied first.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Bytes a frame takes on an Ethernet wire beyond its own (preamble,
 * start delimiter, FCS, inter-frame gap). */
#define NDK_NETEM_QUEUE_ETH_OVERHEAD 24u

/** Bottleneck settings. */
struct ndk_netem_queue_config {
	uint64_t rate_bps;      /**< drain rate in bits/s (> 0) */
	uint32_t limit_pkts;    /**< buffer in packets; 0: no packet limit */
	uint32_t limit_bytes;   /**< buffer in bytes; 0: no byte limit */
	uint32_t ecn_kmin;      /**< marking threshold; 0: no marking */
	uint32_t ecn_kmax;      /**< RED: always mark from here */
	uint32_t ecn_pmax_ppm;  /**< RED: probability at ecn_kmax (ppm) */
	bool ecn_bytes;         /**< thresholds in bytes, not packets */
	uint32_t overhead;      /**< wire bytes added per frame (e.g.
				     NDK_NETEM_QUEUE_ETH_OVERHEAD) */
	uint64_t seed;          /**< RED's PRNG seed; 0 picks a default */
	/**
	 * ndk_netem_queue_attach(): the callback's clock, ticks at
	 * rte_get_tsc_hz(), never decreasing (a simulated time, e.g. the
	 * one the adapters polling the port run on); NULL: rte_rdtsc().
	 */
	uint64_t (*clock)(void *arg);
	void *clock_arg;        /**< @p clock's argument */
};

/** What the queue did. */
struct ndk_netem_queue_stats {
	uint64_t enqueued;      /**< frames accepted into the buffer */
	uint64_t dropped;       /**< frames dropped: buffer full */
	uint64_t marked;        /**< frames marked CE */
	uint64_t not_ect;       /**< frames above the threshold that were
				     not ECT (passed unmarked) */
	uint64_t dequeued;      /**< frames released */
	uint64_t bytes_out;     /**< bytes released (frames only) */
	uint32_t depth_pkts;    /**< frames in the buffer now */
	uint32_t depth_bytes;   /**< bytes in the buffer now */
	uint32_t max_depth_pkts; /**< largest depth seen, frames */
};

/** Result of ndk_netem_queue_enqueue(). */
enum ndk_netem_queue_verdict {
	NDK_NETEM_QUEUE_QUEUED = 0,     /**< in the buffer, unchanged */
	NDK_NETEM_QUEUE_MARKED = 1,     /**< in the buffer, marked CE */
	NDK_NETEM_QUEUE_DROPPED = 2,    /**< buffer full: freed */
};

struct ndk_netem_queue;

/**
 * Create a queue (hugepage memory on @p socket, SOCKET_ID_ANY allowed).
 * @param hz  clock ticks per second of the times passed to it.
 * @return NULL on a bad configuration or no memory (rte_errno set).
 */
struct ndk_netem_queue *
ndk_netem_queue_create(const struct ndk_netem_queue_config *config,
		       uint64_t hz, int socket);

/**
 * A frame arrives at time @p now (ticks, never decreasing): it is queued
 * (perhaps marked) or dropped and freed.
 */
enum ndk_netem_queue_verdict
ndk_netem_queue_enqueue(struct ndk_netem_queue *q, struct rte_mbuf *m,
			uint64_t now);

/**
 * Release, oldest first, up to @p max frames whose departure time is at
 * or before @p now. @return frames written to @p pkts.
 */
unsigned int ndk_netem_queue_dequeue(struct ndk_netem_queue *q, uint64_t now,
				     struct rte_mbuf **pkts, unsigned int max);

/** Departure time of the oldest frame, or UINT64_MAX when empty. */
uint64_t ndk_netem_queue_next(const struct ndk_netem_queue *q);

/** Read the counters (safe from any thread). */
void ndk_netem_queue_get_stats(const struct ndk_netem_queue *q,
			       struct ndk_netem_queue_stats *stats);

/** Free the queue and the frames still in it. */
void ndk_netem_queue_free(struct ndk_netem_queue *q);

/**
 * Put a bottleneck on RX queue @p queue_id of @p port_id: every received
 * frame goes through the queue, and each poll returns the frames due by
 * then (rte_rdtsc() clock, or @p config->clock).
 * @return the queue, or NULL (rte_errno set).
 */
struct ndk_netem_queue *
ndk_netem_queue_attach(uint16_t port_id, uint16_t queue_id,
		       const struct ndk_netem_queue_config *config);

/**
 * Detach and free a queue made by ndk_netem_queue_attach(). The caller
 * guarantees the RX queue is not being polled.
 */
void ndk_netem_queue_detach(struct ndk_netem_queue *q);

#ifdef __cplusplus
}
#endif

#endif /* NDK_NETEM_QUEUE_H */
