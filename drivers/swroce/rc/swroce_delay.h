/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef SWROCE_DELAY_H
#define SWROCE_DELAY_H

/**
 * @file
 * Delay-based congestion control (rc/swroce_delay.c, doc/cc.md), in the
 * manner of Swift: each QP has a congestion window in packets, fractional
 * (16.16 fixed point), driven by the round-trip samples the requester
 * takes (rc/swroce_rtx.h: one in flight at a time, none from a
 * retransmitted PSN). The target round trip is the smallest seen plus
 * the allowed queueing delay plus a flow-scaled allowance that is larger
 * for a smaller window (so that small windows grow, large ones give way:
 * fairness). A sample within the target adds ai to the window (about one
 * sample a round trip: additive increase per round trip); a sample above
 * it cuts the window by beta (rtt - target) / rtt, at most max_mdf, at most
 * once per round trip. A retransmission timeout halves it. The window
 * never goes below wnd_min nor above wnd_max; below one packet the QP
 * sends one packet every rtt / cwnd (pacing). Pure: the caller passes the
 * time (TSC ticks), tested with a fake clock (test/test_delay.c).
 *
 * The base RTT is the smallest any QP of the queue has seen to the same
 * peer, not the QP's own: a QP that starts while others already fill the
 * bottleneck never sees the empty path, and with its own minimum as base
 * it would aim at a longer round trip than theirs and take more than its
 * share (measured: Jain's index 0.2-0.6 in the 16-to-1 incast).
 */

#include <stdint.h>

/** One packet in the window's fixed point. */
#define SWR_DELAY_ONE (1u << 16)

/** Parameters shared by an adapter's QPs (set at adapter open). */
struct swr_delay_params {
	uint64_t target_tsc;  /**< queueing allowed over the base RTT */
	uint64_t fs_tsc;      /**< flow scaling: extra target at 1/10 pkt */
	uint32_t wnd_init;    /**< a QP's first window (16.16 packets) */
	uint32_t wnd_min;     /**< smallest window */
	uint32_t wnd_max;     /**< largest window */
	uint32_t ai;          /**< additive increase per sample */
	uint32_t beta;        /**< decrease gain, 1/1024 units (0.8) */
	uint32_t max_mdf;     /**< largest cut, 1/1024 units (0.5) */
	uint64_t fs_lo;       /**< 1/sqrt of the flow-scaling range's ends, */
	uint64_t fs_hi;       /**< (256 packets, 1/10 packet): constants */
};

/** Base round trips to the peers of a queue's QPs (struct swr_queue). */
#define SWR_DELAY_PEERS 16

/** The smallest round trip any QP of a queue has seen to one peer. */
struct swr_delay_peer {
	uint32_t key;         /**< the peer's address, folded */
	uint64_t rtt_min;     /**< 0: empty */
};

/** One QP's window. */
struct swr_delay {
	uint32_t cwnd;        /**< window, 16.16 packets */
	uint64_t rtt_min;     /**< smallest RTT this QP has seen */
	uint64_t base;        /**< base RTT of the last sample's target */
	uint64_t rtt_last;    /**< latest sample */
	uint64_t last_dec;    /**< TSC of the last cut; 0: none */
	uint64_t cuts;        /**< cuts by delay */
};

/**
 * Parameters for queueing @p target_tsc over the base RTT, a first window
 * of @p init_pkts packets (0: 16) and at most @p max_pkts.
 */
void swr_delay_params_init(struct swr_delay_params *p, uint64_t target_tsc,
			   uint32_t init_pkts, uint32_t max_pkts);

/** A QP starts with the first window and no RTT known. */
void swr_delay_init(struct swr_delay *d, const struct swr_delay_params *p);

/** The target RTT at the QP's current window (0 before any sample). */
uint64_t swr_delay_target(const struct swr_delay *d,
			  const struct swr_delay_params *p);

/**
 * One RTT sample @p rtt (TSC) taken at @p now. The target is relative to
 * the smaller of the QP's own smallest RTT and @p base (0: none), the
 * smallest any QP has seen on the same path (swr_delay_peer_min()).
 */
void swr_delay_sample(struct swr_delay *d, const struct swr_delay_params *p,
		      uint64_t rtt, uint64_t base, uint64_t now);

/**
 * Take a sample @p rtt to the peer @p key into the table @p tbl
 * (SWR_DELAY_PEERS entries; a peer hashed onto another's entry takes it
 * over). @return the smallest RTT seen to that peer, @p rtt included.
 */
uint64_t swr_delay_peer_min(struct swr_delay_peer *tbl, uint32_t key,
			    uint64_t rtt);

/** A retransmission timeout: the window halves. */
void swr_delay_timeout(struct swr_delay *d, const struct swr_delay_params *p);

/** Packets the QP may have unacknowledged: the window, at least 1. */
static inline uint32_t
swr_delay_pkts(const struct swr_delay *d)
{
	uint32_t n = d->cwnd >> 16;

	return n != 0 ? n : 1;
}

/**
 * The time between two packets when the window is below one packet:
 * rtt / cwnd, with the latest sample but at most the target (one sample
 * inflated by a stall of either host must not hold the QP for a hundred
 * of them); 0 at a window of one or more.
 */
uint64_t swr_delay_gap(const struct swr_delay *d,
		       const struct swr_delay_params *p);

#endif /* SWROCE_DELAY_H */
