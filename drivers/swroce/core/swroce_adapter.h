/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef SWROCE_ADAPTER_H
#define SWROCE_ADAPTER_H

/**
 * @file
 * swroce: the adapter and its queues (core/swroce_adapter.c), the limits,
 * and the counters. Private to the driver.
 *
 * Threading: an adapter has 1..SWR_MAX_QUEUES queues (RX/TX queue pairs
 * of its port, struct swr_queue), each polled by exactly one thread at a
 * time (its "owner"); one thread may own several. A QP belongs to queue
 * (qpn & q_mask) and its lcore-private state is touched only by that
 * queue's owner. Adapter-wide work (ARP, ICMP, CM on QP1, the control
 * mailbox, attached applications) belongs to queue 0. Frames that arrive on
 * the wrong queue are handed to the right one through its inbound ring
 * (net/swroce_rx.c). Applications post through single-producer indices
 * published with release stores and ring the QP's doorbell (an MP/SC
 * rte_ring: its queue's, or its attached application's) when it needs
 * attention. Control operations that change lcore-private state run
 * through swr_ctl_exec() (core/swroce_ctl.h), which executes them on queue
 * 0's owner (or inline when nobody polls it) while the other queues are
 * paused between two polls. All objects live in rte_malloc memory.
 *
 * The other private headers, by topic: swroce_ctl.h (control mailbox,
 * ownership), swroce_sched.h (the poll loop), swroce_rx.h, swroce_tx.h,
 * swroce_neigh.h, swroce_dbell.h (net/), swroce_qp.h, swroce_rc.h (the
 * engines), swroce_rtx.h (retransmission), swroce_cq.h, swroce_timer.h
 * (rc/), swroce_mr.h, swroce_copy.h (mem/), swroce_cm.h (cm/).
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_spinlock.h>

#include "ndk_provider.h"
#include "ndk_roce.h"
#include "swroce_attach_srv.h"
#include "swroce_cq.h"
#include "swroce_dcqcn.h"
#include "swroce_delay.h"
#include "swroce_timer.h"
#include "swroce_xstats.h"

/* ------------------------------------------------------------------ */
/* Limits and defaults                                                 */
/* ------------------------------------------------------------------ */

#define SWR_MAX_SGE 16            /**< SGEs per request (all kinds) */
#define SWR_MAX_INLINE 512        /**< inline bytes per send/write */
#define SWR_MAX_QUEUE_DEPTH 16384 /**< initiator and receive queues */
#define SWR_MAX_SRQ_DEPTH 32768   /**< shared receive queues */
#define SWR_MAX_CQ_DEPTH 65536
#define SWR_MAX_RD_ATOMIC 64      /**< ORD and IRD at most */
#define SWR_DEF_RD_ATOMIC 16      /**< ORD and IRD of a new QP */
/** Frames a queue's responders keep at most for selective repeat. */
#define SWR_SR_QUEUE_MAX 2048
#define SWR_MAX_TRANSFER (1u << 30)
#define SWR_DEF_MAX_QP 4096
#define SWR_DEF_MAX_CQ 4096
#define SWR_DEF_MAX_MR 16384
#define SWR_FIRST_QP_INDEX 2      /**< QPN 0 and 1 are reserved (SMI, GSI) */

#define SWR_RX_BURST 32
#define SWR_RX_BURSTS 8           /**< full RX bursts taken in one poll */
#define SWR_TX_BURST 32
#define SWR_TX_STAGE 512          /**< staged frames before refusing more */
#define SWR_DB_BURST 64
#define SWR_MAX_DB_RINGS SWR_ATTACH_DB_RINGS_MAX /**< rings besides the adapter's */
#define SWR_RING_DESC 1024
#define SWR_MAX_QUEUES 16         /**< queues per adapter (power of 2) */
#define SWR_INBOUND_RING 4096     /**< frames steered to a queue */
/** log2 of a queue's timer wheel slots: 1-2 us ticks, a lap of 66-131 ms
 *  (> the default ACK timeout: a timer re-armed later by every ACK comes
 *  off the wheel about once a timeout). */
#define SWR_TW_BITS 16

/* ------------------------------------------------------------------ */
/* Adapter                                                             */
/* ------------------------------------------------------------------ */

struct swr_qp;
struct swr_cq;
struct swr_pd;
struct swr_mr;
struct swr_srq;
struct swr_mr_slot;
struct swr_cm;
struct swr_neigh_tbl;

/**
 * One queue of an adapter: an RX/TX queue pair of the port with its own
 * poll context. Polled by one thread at a time (its owner).
 */
struct swr_queue {
	struct swr_adapter *ad;
	uint16_t id;
	uint16_t rxq;
	uint16_t txq;

	/* --- shared between threads --- */
	uint32_t owner;           /**< tid of the polling thread, 0 = none */
	uint32_t busy;            /**< a poll runs (queues > 0; seq_cst) */
	uint64_t epoch;           /**< polls completed (release store) */
	struct rte_ring *db_ring; /**< struct swr_qp *, MP/SC */
	struct rte_ring *in_ring; /**< frames steered here, MP/SC; NULL: 1 q */

	/* --- lcore-private (owner only) --- */
	uint64_t now;             /**< clock at the start of this poll */
	uint64_t last_now;        /**< clock at the start of the poll before */
	/** The clock of swr_poll_clocked() (swr_hook_set_clock()). */
	uint64_t (*clock)(void *arg);
	void *clock_arg;
	uint32_t n_active;
	/** Polls with nothing to do since one looked at the adapter-wide
	 *  work due at a time (swr_poll_q(), SWR_POLL_TIMED) */
	uint32_t idle_polls;
	struct swr_qp **active;   /**< QPs with something to send */
	struct swr_tw tw;         /**< its QPs' RTO and RNR timers */
	uint16_t tx_n;
	/** Frames its QPs' responders keep for selective repeat. */
	uint32_t sr_held;
	/** The port refused a burst this poll: stage, retry at its end. */
	bool tx_blocked;
	struct rte_mbuf *tx_stage[SWR_TX_STAGE];
	/** Completions of the RX burst, posted at its end (rc/swroce_cq.h). */
	struct swr_cq_stage cqs;

	struct swr_stats stats;   /**< summed by swr_stats_sum() */
	/** Delay-based control: base RTTs to its QPs' peers. */
	struct swr_delay_peer cc_peer[SWR_DELAY_PEERS];
} __rte_cache_aligned;

struct swr_adapter {
	struct ndk_adapter pub;   /**< must be first */
	char name[32];

	/* --- configuration, read-only after open --- */
	uint16_t port_id;
	uint16_t nb_queues;       /**< power of 2, <= SWR_MAX_QUEUES */
	uint16_t q_mask;          /**< nb_queues - 1: queue of a QPN */
	bool own_port;            /**< we configured and started the port */
	int socket_id;
	struct rte_ether_addr mac;
	rte_be32_t ipv4;          /**< 0: none */
	uint8_t ipv6[16];         /**< all-zero: none */
	bool has_ipv6;
	uint32_t max_path_mtu;
	struct rte_mempool *mp;
	/** Payloads from this size on go out attached from their region
	 *  (mem/swroce_zc.c); UINT32_MAX: the port cannot take them. */
	uint32_t zc_min;
	bool zc_iova_va;          /**< an attached payload's IOVA is its VA */
	/** Received frames' ICRCs are not checked (trust_link_crc). */
	bool trust_crc;
	/** Until this TSC (atomic), pollers free what their TX queue has
	 *  sent: a region deregistered with frames out waits for them
	 *  (mem/swroce_zc.c), and an idle TX queue would keep them. */
	uint64_t zc_cleanup_until;
	/** Closed regions whose frames are all back, for the control path's
	 *  reap (lock-free list, mem/swroce_zc.c). */
	struct swr_mr *zc_done;
	uint32_t zc_draining;     /**< regions with frames out (atomic) */
	uint32_t zc_closing;      /**< asynchronous closes pending (atomic) */
	struct ndk_adapter_info info;
	uint64_t tsc_hz;

	/* --- adaptive retransmission (ndk_adapter_set_adaptive_rto();
	 *     written by the control path, read by pollers, atomic) --- */
	uint32_t rto_adaptive;    /**< 1: on (the default) */
	uint64_t rto_floor_tsc;   /**< smallest adaptive timeout */

	/* --- congestion control (constant after open; doc/cc.md) --- */
	uint32_t cc_mode;         /**< enum ndk_cc_mode */
	uint64_t cnp_interval_tsc;/**< smallest gap between a QP's CNPs */
	struct swr_dcqcn_params dcqcn;
	struct swr_delay_params delay; /**< NDK_CC_DELAY's window */

	struct swr_queue *q;      /**< nb_queues queues */

	/* --- shared between threads --- */
	struct rte_ring *ctl_ring;/**< struct swr_ctl *, MP/SC */
	struct rte_ring *db_ring; /**< queue 0's doorbells (q[0].db_ring) */
	struct rte_ring *held_ring; /**< frames of queues > 0 for ARP, MP/SC */
	uint32_t paused;          /**< queues > 0 must not poll (seq_cst) */
	uint32_t pause_depth;     /**< nesting (queue 0's owner only) */
	/** More doorbell rings (attached applications'; queue 0's owner
	 *  only, changed only through swr_ctl_exec(): swroce_dbell.c). */
	struct rte_ring *db_more[SWR_MAX_DB_RINGS];
	uint32_t n_db_more;
	rte_spinlock_t obj_lock;  /**< control path only: tables, lists */

	uint32_t qp_bits;         /**< log2 of the QP table size */
	uint32_t qp_mask;
	uint32_t qp_cursor;       /**< next index to try (obj_lock) */
	uint32_t n_qp;            /**< QPs in use (obj_lock) */
	struct swr_qp **qp_tbl;   /**< index -> QP (atomic pointers) */
	uint16_t *qp_gen;         /**< per-index generation (obj_lock) */

	uint32_t mr_bits;
	uint32_t mr_mask;
	uint32_t mr_cursor;       /**< obj_lock */
	uint32_t n_mr;            /**< registered MRs (obj_lock) */
	struct swr_mr_slot *mr_tbl;

	uint32_t n_cq;            /**< obj_lock */
	uint32_t n_pd;            /**< obj_lock */
	struct swr_cq *cq_list;   /**< obj_lock, for adapter close */
	struct swr_pd *pd_list;   /**< obj_lock */
	struct swr_srq *srq_list; /**< obj_lock, for adapter close */

	/* --- queue 0's owner only (adapter-wide work) --- */
	uint64_t now;             /**< TSC at the start of queue 0's poll */
	/** CQs with an interrupt moderation interval (swr_ctl_exec adds and
	 * removes them), whose held notifications queue 0 delivers when due. */
	struct swr_cq *mod_list;
	struct swr_stats stats;   /**< ARP, CM, CQ: adapter-wide */

	/* --- neighbours (owner only; see the Neighbours section) --- */
	struct swr_neigh_tbl *neigh;
	uint64_t neigh_tick;      /**< next swr_neigh_timers() run (TSC) */
	uint32_t link_up;         /**< port link state (atomic, LSC events) */
	uint32_t link_gen;        /**< link-up transitions (atomic) */
	uint32_t neigh_link_gen;  /**< link_gen the resolver last saw */

	/* --- connection manager (owner only; swroce_cm.h) --- */
	struct swr_cm *cm;
	/**
	 * Told when a QP goes away (rc/swroce_qp.c), so that what refers to
	 * it above the QP layer lets go: the CM's swr_cm_qp_gone(), set at
	 * open. A hook, not a call: the QP layer does not call up.
	 */
	void (*qp_gone)(struct swr_qp *qp);
} __rte_cache_aligned;

static inline struct swr_adapter *
swr_adapter_of(struct ndk_adapter *a)
{
	return (struct swr_adapter *)a;
}

/**
 * Count an event in the statistics of an adapter (adapter-wide work, queue
 * 0's owner) or of a queue (its owner).
 */
#define SWR_STAT(ad, field) ((ad)->stats.field++)

/** The queue owning QP number @p qpn (QP1 and non-RoCE frames: 0). */
static inline uint16_t
swr_qpn_queue(const struct swr_adapter *ad, uint32_t qpn)
{
	return qpn == NDK_ROCE_GSI_QPN ? 0 : (uint16_t)(qpn & ad->q_mask);
}

/** True if IPv6 address @p a is :: (no address). */
static inline bool
swr_ip6_is_zero(const uint8_t a[16])
{
	static const uint8_t zero[16];

	return memcmp(a, zero, sizeof(zero)) == 0;
}

/**
 * True if @p a can be a host's own IPv6 address: not ::, ::1, multicast
 * (ff00::/8) or IPv4-mapped.
 */
static inline bool
swr_ip6_unicast(const uint8_t a[16])
{
	static const uint8_t loop[16] = { [15] = 1 };

	return !swr_ip6_is_zero(a) && memcmp(a, loop, sizeof(loop)) != 0 &&
		a[0] != 0xFF && !ndk_roce_gid_is_ipv4(a);
}

/** Microseconds to TSC ticks. */
static inline uint64_t
swr_us_to_tsc(const struct swr_adapter *ad, uint64_t us)
{
	return us * ad->tsc_hz / 1000000;
}

/* swroce_adapter.c: queues and counters */


/** Allocate the queues' rings and lists. @return 0 or -ENOMEM. */
int swr_queues_init(struct swr_adapter *ad, uint32_t seq);

/** Free what swr_queues_init() allocated and frames still staged. */
void swr_queues_fini(struct swr_adapter *ad);

/** Adapter-wide counters plus every queue's (any thread; may lag). */
void swr_stats_sum(const struct swr_adapter *ad, struct swr_stats *out);

/**
 * Run @p ad's polls on @p fn(@p arg) instead of the TSC (NULL: the TSC):
 * its queues' clock and the dispatch table whose poll entries read it
 * (swr_hook_set_clock(), which checks that nobody polls).
 */
void swr_adapter_set_clock(struct swr_adapter *ad, uint64_t (*fn)(void *arg),
			   void *arg);

/* swroce_info.c: introspection */

/** ndk_adapter_qp_list(): runs on the polling thread (swr_ctl_exec). */
int swr_info_qp_list(struct ndk_adapter *adapter, uint32_t *qpns,
		     uint32_t max);

/** ndk_qp_query_info(): runs on the polling thread (swr_ctl_exec). */
ndk_status_t swr_info_qp_query(struct ndk_adapter *adapter, uint32_t qpn,
			       struct ndk_qp_info *info);

#endif /* SWROCE_ADAPTER_H */
