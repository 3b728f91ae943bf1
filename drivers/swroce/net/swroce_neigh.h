/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef SWROCE_NEIGH_H
#define SWROCE_NEIGH_H

/**
 * @file
 * swroce: neighbours (net/swroce_neigh.c): the table, ARP and ICMP echo;
 * IPv6 neighbour discovery and ICMPv6 echo (net/swroce_nd.c).
 */

#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

struct swr_adapter;
struct swr_qp;

/*
 * ARP responder and resolver, and the ICMP echo responder, all on the
 * polling thread, and their IPv6 counterparts (neighbour solicitation and
 * advertisement, ICMPv6 echo). Each adapter has a fixed open-addressing
 * table of neighbours keyed by 16-byte address (IPv6, or IPv4-mapped for
 * IPv4), in rte_malloc memory. A QP whose
 * dest_mac is all-zero points at its entry (qp->neigh, set at INIT ->
 * RTR); swr_pkt_xmit() copies the entry's MAC into REACHABLE frames and
 * hands the others to swr_neigh_output(). Entries never move, and slots
 * live as long as the adapter, so a QP's pointer stays safe to read even
 * after its entry was deleted: it checks the state and the address.
 */

#define SWR_NEIGH_BITS 10         /**< 1024 slots */
#define SWR_NEIGH_PENDING 64      /**< frames held per unresolved entry */
#define SWR_NEIGH_PROBES 3        /**< requests before giving up */
#define SWR_NEIGH_RETRY_MS 1000   /**< between requests */
#define SWR_NEIGH_HOLD_MS 5000    /**< FAILED hold-down */
#define SWR_NEIGH_PENDING_MS 1000 /**< longest a frame is held */
#define SWR_NEIGH_REACHABLE_MS 60000 /**< re-validate after */
#define SWR_NEIGH_IDLE_MS 60000   /**< unused INCOMPLETE entries expire */
#define SWR_NEIGH_TICK_MS 10      /**< timer period */

/** Neighbour states (the slot states FREE and DELETED first). */
enum swr_neigh_state {
	SWR_NEIGH_FREE = 0,       /**< never used: ends a probe sequence */
	SWR_NEIGH_DELETED,        /**< tombstone */
	SWR_NEIGH_INCOMPLETE,     /**< resolving (probes > 0) or idle */
	SWR_NEIGH_REACHABLE,      /**< MAC known (re-validating if probes) */
	SWR_NEIGH_FAILED,         /**< no answer: hold-down until deadline */
};

struct swr_neigh {
	uint8_t addr[16];         /**< key: IPv6, or IPv4-mapped */
	rte_be32_t ip;            /**< IPv4 of a mapped key, else 0 (IPv6) */
	uint8_t state;            /**< enum swr_neigh_state */
	uint8_t probes;           /**< requests sent in this round */
	uint8_t n_pending;
	uint8_t pad_;
	struct rte_ether_addr mac;
	uint16_t live_pos;        /**< index in the table's live list */
	uint64_t deadline;        /**< next timer event (TSC) */
	uint64_t pending_since;   /**< when the oldest held frame came */
	struct rte_mbuf *pending[SWR_NEIGH_PENDING];
};

/** What swr_neigh_input() did with a frame. */
enum swr_neigh_rx {
	SWR_NEIGH_RX_IGNORED = 0, /**< not ours or malformed: count, free */
	SWR_NEIGH_RX_DONE,        /**< handled: the caller frees it */
	SWR_NEIGH_RX_TAKEN,       /**< reused for the reply: do not free */
};

/* swroce_neigh.c */

/** Allocate the adapter's table. @return 0 or -ENOMEM. */
int swr_neigh_init(struct swr_adapter *ad);

/** Free held frames and the table (adapter close). */
void swr_neigh_fini(struct swr_adapter *ad);

/**
 * The entry for @p ip, created INCOMPLETE if absent; resolution starts if
 * it is not under way. Never NULL: when the table is full, a dummy entry
 * every frame is dropped through.
 */
struct swr_neigh *swr_neigh_attach(struct swr_adapter *ad, rte_be32_t ip);

/** swr_neigh_attach() for an IPv6 address (16 bytes, network order). */
struct swr_neigh *swr_neigh_attach6(struct swr_adapter *ad,
				    const uint8_t ip[16]);

/** Slow path of swr_pkt_xmit(): the QP's neighbour is not REACHABLE. */
void swr_neigh_output(struct swr_qp *qp, struct rte_mbuf *m);

/**
 * Send a finished IPv4 frame to @p ip through the neighbour table (MAC
 * filled in, or the frame held while @p ip resolves). @p cache remembers
 * the entry between calls (may be NULL); *@p cache NULL looks it up.
 */
void swr_neigh_send(struct swr_adapter *ad, struct swr_neigh **cache,
		    rte_be32_t ip, struct rte_mbuf *m);

/** swr_neigh_send() of a finished IPv6 frame to @p ip. */
void swr_neigh_send6(struct swr_adapter *ad, struct swr_neigh **cache,
		     const uint8_t ip[16], struct rte_mbuf *m);

/**
 * Would a frame for @p ip (through @p cache, as swr_neigh_send6()) be
 * dropped now, its neighbour unresolved with SWR_NEIGH_PENDING frames
 * already held? Senders that can wait (the CM's queue) ask first.
 */
bool swr_neigh_held_full(struct swr_adapter *ad, struct swr_neigh **cache,
			 const uint8_t ip[16]);

/** A frame ndk_roce_parse() found not to be RoCEv2 (ARP, ICMP, ...). */
enum swr_neigh_rx swr_neigh_input(struct swr_adapter *ad, struct rte_mbuf *m);

/** Retries, hold-downs, re-validation, expiry (every SWR_NEIGH_TICK_MS). */
void swr_neigh_timers(struct swr_adapter *ad);

/*
 * Shared with swroce_nd.c.
 */

/**
 * Merge what a neighbour said about itself: update @p ip's entry (16-byte
 * key) with @p mac, making it REACHABLE and sending its held frames;
 * create it first if @p add (the packet was addressed to us).
 */
void swr_neigh_learn(struct swr_adapter *ad, const uint8_t ip[16],
		     const struct rte_ether_addr *mac, bool add);

/** Pad a frame to the Ethernet minimum (60 bytes) with zeros. */
void swr_eth_pad(struct rte_mbuf *m);

/**
 * Folded one's complement sum of @p len bytes at @p off, which must lie in
 * the packet (any segmentation).
 */
uint16_t swr_cksum_mbuf(const struct rte_mbuf *m, uint32_t off, uint32_t len);

/* swroce_nd.c */

/**
 * Send a neighbour solicitation for @p target: to its solicited-node
 * group, or unicast to @p mac (re-validation) if not NULL.
 */
void swr_nd_solicit(struct swr_adapter *ad, const uint8_t target[16],
		    const struct rte_ether_addr *mac);

/** An IPv6 frame that is not RoCEv2: ND, ICMPv6 echo, or ignored. */
enum swr_neigh_rx swr_nd_input(struct swr_adapter *ad, struct rte_mbuf *m);

#endif /* SWROCE_NEIGH_H */
