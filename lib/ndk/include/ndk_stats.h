/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_STATS_H
#define NDK_STATS_H

/**
 * @file
 * An adapter's counters: the generic ones every provider can report
 * (struct ndk_adapter_stats), per adapter and per queue, and the
 * provider's extended counters (xstats), by index or by name. Part of
 * ndk.h: include that, not this.
 */

#ifndef NDK_H
#error "include ndk.h, not ndk_stats.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Generic adapter counters: the few that every provider can report (as
 * rte_eth_stats is to an ethdev). A provider's own, detailed counters are
 * its extended statistics (ndk_adapter_xstats_get_names(),
 * ndk_adapter_xstats_get()); each of these is the sum of some of them.
 */
struct ndk_adapter_stats {
	/** Frames received from the port (RoCEv2 or not). */
	uint64_t rx_packets;
	/** Bytes of the frames in rx_packets (Ethernet header included). */
	uint64_t rx_bytes;
	/** Frames handed to the port for transmission. */
	uint64_t tx_packets;
	/** Bytes of the frames in tx_packets (Ethernet header included). */
	uint64_t tx_bytes;
	/**
	 * Received frames dropped as malformed or corrupt: truncated, bad
	 * headers, undefined opcodes, ICRC mismatches, wrong payload length.
	 */
	uint64_t rx_errors;
	/**
	 * Well-formed received frames dropped because nothing could take
	 * them: not for this adapter or not RoCEv2, no such QP, a QP not in
	 * a state to accept them, a response to nothing outstanding, no room
	 * to hand them to their queue.
	 */
	uint64_t rx_dropped;
	/**
	 * Frames that could not be sent: no packet buffer to build them in,
	 * or dropped while waiting for the peer's address to resolve.
	 */
	uint64_t tx_errors;
	/** Packets sent again by the transport (loss recovery). */
	uint64_t retransmits;
};

/**
 * Read the adapter's generic counters (a consistent-enough snapshot: they
 * may lag by a poll). All zero if the provider has none.
 */
void ndk_adapter_get_stats(struct ndk_adapter *adapter,
			   struct ndk_adapter_stats *stats);

/**
 * Read the generic counters of one queue (what its poller counted: frames
 * it received, steered, sent, and the events of the QPs it serves). The
 * adapter-wide part (ARP, CM) is only in ndk_adapter_get_stats(), which
 * sums everything.
 * @return 0, -EINVAL (no such queue) or -ENOTSUP.
 */
int ndk_adapter_get_queue_stats(struct ndk_adapter *adapter, uint16_t queue,
				struct ndk_adapter_stats *stats);

/** Size of ndk_xstat_name::name, terminating NUL included. */
#define NDK_XSTAT_NAME_SIZE 64
/** Size of ndk_xstat_name::desc, terminating NUL included. */
#define NDK_XSTAT_DESC_SIZE 128

/**
 * The name of one extended counter (ndk_adapter_xstats_get_names()), as
 * rte_eth_xstat_name, with a one-line description.
 */
struct ndk_xstat_name {
	/** The counter's name: lower case, '_' between words. */
	char name[NDK_XSTAT_NAME_SIZE];
	/** What it counts, for people (may be cut short). */
	char desc[NDK_XSTAT_DESC_SIZE];
};

/** The value of one extended counter (ndk_adapter_xstats_get()). */
struct ndk_xstat {
	/** Its index in the array of ndk_adapter_xstats_get_names(). */
	uint64_t id;
	/** Its value. */
	uint64_t value;
};

/**
 * The names of the adapter's extended counters: the provider's own,
 * detailed counters (for swroce: ARP, CM, NAKs, retransmission causes and
 * more), which may change between releases; a program looks them up by
 * name. As rte_eth_xstats_get_names(): call with @p names NULL and @p n 0
 * for the count. The order is the order of ndk_adapter_xstats_get() and
 * ndk_adapter_queue_xstats_get(), and does not change while the adapter
 * is open.
 * @param names  @p n entries to fill, or NULL when @p n is 0.
 * @return the number of counters: entries filled when it is at most @p n,
 *   else the size needed (nothing filled); 0 if the provider has none;
 *   -EINVAL (bad adapter or arguments).
 */
int ndk_adapter_xstats_get_names(struct ndk_adapter *adapter,
				 struct ndk_xstat_name *names, unsigned int n);

/**
 * The values of the adapter's extended counters (every queue's summed with
 * the adapter-wide ones), in the order of ndk_adapter_xstats_get_names()
 * (@p values[i].id is i). A snapshot that may lag by a poll.
 * @param values  @p n entries to fill, or NULL when @p n is 0.
 * @return as ndk_adapter_xstats_get_names(): the count, filled when it is
 *   at most @p n, else the size needed; 0 if none; -EINVAL.
 */
int ndk_adapter_xstats_get(struct ndk_adapter *adapter,
			   struct ndk_xstat *values, unsigned int n);

/**
 * The values of one queue's extended counters (see
 * ndk_adapter_get_queue_stats()): the same names and order as
 * ndk_adapter_xstats_get_names(); counters only the adapter as a whole
 * keeps (ARP, CM) are 0.
 * @return as ndk_adapter_xstats_get(), or -EINVAL (no such queue), or
 *   -ENOTSUP (the provider has no per-queue counters).
 */
int ndk_adapter_queue_xstats_get(struct ndk_adapter *adapter, uint16_t queue,
				 struct ndk_xstat *values, unsigned int n);

/**
 * Read one extended counter of the adapter by name (a convenience over
 * ndk_adapter_xstats_get_names() and ndk_adapter_xstats_get(); not for a
 * fast path: it allocates).
 * @return 0 (*@p value set), -ENOENT (no counter of that name), -ENOMEM or
 *   -EINVAL.
 */
int ndk_adapter_xstats_get_by_name(struct ndk_adapter *adapter,
				   const char *name, uint64_t *value);

#ifdef __cplusplus
}
#endif

#endif /* NDK_STATS_H */
