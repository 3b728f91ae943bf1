/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef SWROCE_PRIV_H
#define SWROCE_PRIV_H

/**
 * @file
 * swroce: the software RoCEv2 provider. Internal structures shared by its
 * files:
 *
 *   swroce_adapter.c  adapter open/close, port set-up, packet build, stats
 *   swroce_poll.c     queues: poll loop, RX steering, TX staging, control
 *                     mailbox (ctl), ownership, pausing and quiescence
 *   swroce_cq.c       completion queues, arming and notification
 *   swroce_mr.c       protection domains, memory regions, token lookup
 *   swroce_qp.c       QP create/close/modify, posting, flush, error handling
 *   swroce_req.c      requester: WQE -> request packets, retransmission
 *                     (timer values and RTT sampling in swroce_rto.h)
 *   swroce_comp.c     completer: ACK/NAK and READ responses -> completions
 *   swroce_resp.c     responder: requests -> placement, READ responses, ACKs
 *   swroce_neigh.c    ARP and ICMP echo (declarations in swroce_neigh.h)
 *   swroce_dbell.c    doorbell rings: the queues' and attached
 *                     applications' (drained by queue 0's poller)
 *
 * Threading: an adapter has 1..SWR_MAX_QUEUES queues (RX/TX queue pairs
 * of its port, struct swr_queue), each polled by exactly one thread at a
 * time (its "owner"); one thread may own several. A QP belongs to queue
 * (qpn & q_mask) and its lcore-private state is touched only by that
 * queue's owner. Adapter-wide work (ARP, ICMP, CM on QP1, the control
 * mailbox, attached applications) belongs to queue 0. Frames that arrive on
 * the wrong queue are handed to the right one through its inbound ring
 * (swroce_poll.c). Applications post through single-producer indices
 * published with release stores and ring the QP's doorbell (an MP/SC
 * rte_ring: its queue's, or its attached application's) when it needs
 * attention. Control operations that change lcore-private state run
 * through swr_ctl_exec(), which executes them on queue 0's owner (or
 * inline when nobody polls it) while the other queues are paused between
 * two polls. All objects live in rte_malloc memory.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_spinlock.h>

#include "ndk_provider.h"
#include "ndk_roce.h"
#include "swroce_timer.h"
#include "ndk_roce_rtt.h"
#include "swroce_xstats.h"
#include "swroce_shared.h"

/* ------------------------------------------------------------------ */
/* Limits and defaults                                                 */
/* ------------------------------------------------------------------ */

#define SWR_MAX_SGE 16            /**< SGEs per request (all kinds) */
#define SWR_MAX_INLINE 512        /**< inline bytes per send/write */
#define SWR_MAX_QUEUE_DEPTH 16384 /**< initiator and receive queues */
#define SWR_MAX_CQ_DEPTH 65536
#define SWR_MAX_RD_ATOMIC 16      /**< ORD and IRD */
#define SWR_MAX_TRANSFER (1u << 30)
#define SWR_DEF_MAX_QP 4096
#define SWR_DEF_MAX_CQ 4096
#define SWR_DEF_MAX_MR 16384
#define SWR_FIRST_QP_INDEX 2      /**< QPN 0 and 1 are reserved (SMI, GSI) */

/** Unacknowledged PSNs a requester may have in flight. */
#define SWR_MAX_UNACKED_PSN 256
/** Request AckReq at least every this many packets of a long message. */
#define SWR_ACKREQ_EVERY 32
/** Doublings of the retransmission timeout on timeouts in a row. */
#define SWR_RTO_MAX_BACKOFF 3
/** Doublings of the adaptive timeout on adaptive expiries in a row. */
#define SWR_RTO_MAX_ADAPT_SHIFT 10
/** Expiries in a row re-armed because this side was not polled. */
#define SWR_RTO_MAX_DEFERS 8
/** Packets one QP may generate per poll before the next QP's turn. */
#define SWR_QP_TX_QUOTA 32

#define SWR_RX_BURST 32
#define SWR_TX_BURST 32
#define SWR_TX_STAGE 512          /**< staged frames before refusing more */
#define SWR_DB_BURST 64
#define SWR_MAX_DB_RINGS 64       /**< doorbell rings besides the adapter's */
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

struct swr_adapter;
struct swr_qp;
struct swr_cq;
struct swr_pd;
struct swr_mr;
struct swr_cm;
struct swr_conn;

/** A control request handed to the polling thread. */
struct swr_ctl {
	ndk_status_t (*fn)(struct swr_adapter *ad, void *arg);
	void *arg;
	ndk_status_t status;
	uint32_t done;            /**< set (release) when executed */
};

/** One slot of the MR table; the token names slot and generation. */
struct swr_mr_slot {
	struct swr_mr *mr;        /**< NULL when free (atomic) */
	uint32_t gen;             /**< bumped on every registration */
};

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
	uint64_t now;             /**< TSC at the start of this poll */
	uint64_t last_now;        /**< TSC at the start of the poll before */
	uint32_t n_active;
	struct swr_qp **active;   /**< QPs with something to send */
	struct swr_tw tw;         /**< its QPs' RTO and RNR timers */
	uint16_t tx_n;
	/** The port refused a burst this poll: stage, retry at its end. */
	bool tx_blocked;
	struct rte_mbuf *tx_stage[SWR_TX_STAGE];

	struct swr_stats stats;   /**< summed by swr_stats_sum() */
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
	rte_be32_t ipv4;
	uint32_t max_path_mtu;
	struct rte_mempool *mp;
	struct ndk_adapter_info info;
	uint64_t tsc_hz;

	/* --- adaptive retransmission (ndk_adapter_set_adaptive_rto();
	 *     written by the control path, read by pollers, atomic) --- */
	uint32_t rto_adaptive;    /**< 1: on (the default) */
	uint64_t rto_floor_tsc;   /**< smallest adaptive timeout */

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

	/* --- queue 0's owner only (adapter-wide work) --- */
	uint64_t now;             /**< TSC at the start of queue 0's poll */
	struct swr_stats stats;   /**< ARP, CM, CQ: adapter-wide */

	/* --- neighbours (owner only; see the Neighbours section) --- */
	struct swr_neigh_tbl *neigh;
	uint64_t neigh_tick;      /**< next swr_neigh_timers() run (TSC) */
	uint32_t link_up;         /**< port link state (atomic, LSC events) */
	uint32_t link_gen;        /**< link-up transitions (atomic) */
	uint32_t neigh_link_gen;  /**< link_gen the resolver last saw */

	/* --- connection manager (owner only; swroce_cm.h) --- */
	struct swr_cm *cm;
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

/* ------------------------------------------------------------------ */
/* CQ                                                                  */
/* ------------------------------------------------------------------ */

/** Arm levels in strength order (merging keeps the strongest). */
enum swr_arm {
	SWR_ARM_NONE = 0,
	SWR_ARM_ERRORS = 1,
	SWR_ARM_SOLICITED = 2,
	SWR_ARM_ANY = 3,
};

struct swr_cq {
	struct ndk_cq pub;        /**< must be first */
	struct swr_adapter *ad;
	struct rte_ring *ring;    /**< struct ndk_result_ex elements */
	uint32_t depth;
	ndk_cq_notify_fn notify;
	void *notify_ctx;
	uint32_t armed;           /**< enum swr_arm (atomic) */
	uint32_t cb_state;        /**< callback running / owed / dead bits */
	uint64_t n_posted;        /**< completions posted (atomic) */
	uint64_t n_at_notify;     /**< n_posted when the last callback fired */
	uint32_t overflow;        /**< CQ overran: dead (atomic) */
	uint32_t refcnt;          /**< QPs using this CQ (atomic) */
	bool closing;
	ndk_close_completion_fn close_done;
	void *close_ctx;
	struct swr_cq *next;      /**< adapter list (obj_lock) */
};

/**
 * Post a completion (polling thread). @p solicited: a receive whose send
 * carried SE. Error completions satisfy SOLICITED arms.
 * @return 0, or -ENOSPC if the CQ overflowed (it is then dead).
 */
int swr_cq_post(struct swr_cq *cq, const struct ndk_result_ex *r,
		bool solicited);

/** Drop a QP's reference; completes a pending close at zero. */
void swr_cq_put(struct swr_cq *cq);

ndk_status_t swr_cq_create(struct ndk_adapter *adapter, uint32_t depth,
			   ndk_cq_notify_fn notify, void *ctx,
			   struct ndk_cq **cq);

/** Free a CQ immediately (adapter close). */
void swr_cq_destroy(struct swr_cq *cq);

/* Taking completions: declared in include/swroce_shared.h. */

#include "swroce_mr.h"

/* ------------------------------------------------------------------ */
/* QP                                                                  */
/* ------------------------------------------------------------------ */

/** Initiator operation of a send-queue WQE. */
enum swr_wr_op {
	SWR_WR_SEND = 0,
	SWR_WR_WRITE,
	SWR_WR_READ,
	SWR_WR_SEND_INV,          /**< SEND with IETH = rkey */
	SWR_WR_FAST_REG,          /**< local: reg, raddr = base VA */
	SWR_WR_INVALIDATE,        /**< local: reg */
	SWR_WR_BIND,              /**< local: reg = MW, parent, raddr, length */
};

/** True for operations that never reach the wire. */
static inline bool
swr_wr_is_local(uint8_t op)
{
	return op >= SWR_WR_FAST_REG;
}

/** Send-queue WQE; followed by SGEs or inline bytes (qp->sq_stride). */
struct swr_swqe {
	uint8_t op;               /**< enum swr_wr_op */
	uint8_t started;          /**< PSNs assigned (first transmission) */
	uint16_t nsge;            /**< 0 with inline data */
	uint32_t flags;           /**< NDK_OP_FLAG_* */
	void *ctx;
	uint64_t raddr;
	uint32_t rkey;
	uint32_t length;          /**< total bytes */
	uint32_t first_psn;
	uint32_t npkts;           /**< PSNs consumed */
	uint32_t rd_pkts;         /**< READ: response packets placed */
	uint32_t acc;             /**< local ops: SWR_ACC_* granted */
	struct swr_mr *reg;       /**< local ops: the FRMR or MW */
	struct swr_mr *parent;    /**< bind: the MR */
	ndk_status_t lstatus;     /**< local ops: result once executed */
	uint32_t npages;          /**< fast register: pages */
	uint32_t fbo;             /**< fast register: first byte offset */
	uint32_t pad_;
	union {
		struct ndk_sge sge[0];
		uint8_t inline_data[0];
	};
};

/** Receive-queue WQE; followed by SGEs (qp->rq_stride). */
struct swr_rwqe {
	void *ctx;
	uint32_t nsge;
	uint32_t length;          /**< total bytes */
	struct ndk_sge sge[0];
};

/** Responder resource for one inbound READ (kept for replay). */
struct swr_rd_res {
	uint64_t va;
	uint32_t rkey;
	uint32_t len;
	uint32_t first_psn;
	uint32_t npkts;
	uint32_t next_pkt;        /**< next response packet to send */
	bool streaming;           /**< packets left to send */
	bool replay;              /**< re-sent for a duplicate READ */
};

/** Kind of multi-packet message the responder is in the middle of. */
enum swr_rcv_class {
	SWR_RCV_NONE = 0,
	SWR_RCV_SEND,
	SWR_RCV_WRITE,
};

/**
 * Count an event in the adapter's counters and the QP's protocol events
 * (struct ndk_qp_events; owner only).
 */
#define SWR_QP_STAT(qp, field, event) do { \
	SWR_STAT((qp)->q, field); \
	(qp)->ev.event++; \
} while (0)

struct swr_qp {
	struct ndk_qp pub;        /**< must be first */
	struct swr_adapter *ad;
	struct swr_queue *q;      /**< the queue polling it (from the QPN) */
	struct swr_pd *pd;
	struct swr_cq *rcq;
	struct swr_cq *icq;
	void *qp_ctx;

	/* --- limits (constant) --- */
	uint32_t sq_depth;        /**< consumer-visible depth */
	uint32_t sq_mask;         /**< ring size - 1 */
	uint32_t sq_stride;
	uint32_t rq_depth;
	uint32_t rq_mask;
	uint32_t rq_stride;
	uint32_t max_isge;
	uint32_t max_rsge;
	uint32_t inline_size;
	uint8_t *sq;
	uint8_t *rq;

	/* --- state and attributes (modified through swr_ctl_exec) --- */
	uint32_t state;           /**< enum ndk_qp_state (atomic) */
	struct ndk_qp_attr attr;
	uint32_t pmtu;            /**< bytes */
	uint32_t pmtu_shift;
	uint64_t rto_tsc;         /**< ACK timeout in TSC ticks, 0 = none */
	struct ndk_roce_l2l4 l2l4;

	/* --- application side (single producer per queue) --- */
	uint32_t sq_prod_priv __rte_cache_aligned; /**< incl. deferred */
	uint32_t rq_prod_priv;
	uint32_t sq_prod;         /**< published (release) */
	uint32_t rq_prod;         /**< published (release) */
	uint32_t db_pending;      /**< doorbell queued (atomic) */
	struct rte_ring *db_ring; /**< where its doorbells go (set once) */
	uint64_t fr_lo, fr_hi;    /**< FRMR pages inside [lo, hi) (set
				   *  once; hi 0: any DPDK memory) */
	uint32_t flush_req;       /**< NdkFlush asked (atomic) */
	struct ndk_qp_stats pstats; /**< posting counters (the poster's) */

	/* --- published by the polling thread --- */
	uint32_t sq_done __rte_cache_aligned; /**< WQEs retired (release) */
	uint32_t rq_done;         /**< receives retired (release) */

	/* --- requester/completer (lcore-private) --- */
	uint32_t sq_tail __rte_cache_aligned; /**< oldest not completed */
	uint32_t req_idx;         /**< WQE being transmitted */
	uint32_t req_pkt;         /**< its next packet */
	uint32_t req_psn;         /**< next PSN to send */
	uint32_t una_psn;         /**< oldest unacknowledged PSN */
	uint32_t psn_max;         /**< PSN after the highest ever sent */
	uint32_t pkts_since_ackreq;
	uint32_t rd_outstanding;  /**< READs sent and not completed */
	uint32_t retry_left;
	uint32_t rnr_left;
	uint64_t rto_deadline;    /**< 0 = timer not armed */
	uint8_t rto_backoff;      /**< timeouts in a row at una_psn (shift) */
	uint8_t rto_defers;       /**< expiries re-armed in a row (stalls) */
	uint8_t rto_adapt_shift;  /**< adaptive back-off (shift), undone by
				   *  an RTT sample or progress to: */
	uint32_t rto_adapt_psn;   /**< psn_max at the last adaptive expiry */
	/** Adaptive expiry of a SEND/WRITE: 1 = send one probe (the packet
	 *  at una_psn, AckReq) and nothing more until an answer, 2 = sent */
	uint8_t rto_probe;
	bool rtt_active;          /**< an RTT sample is being timed */
	uint32_t rtt_psn;         /**< ... ending when una_psn passes it */
	uint64_t rtt_t0;          /**< ... sent at this TSC */
	uint64_t rto_start;       /**< TSC the wait for progress began
				   *  (0 = none): full timeout from here */
	struct ndk_roce_rtt rtt;  /**< answers' round-trip time, TSC */
	uint64_t rnr_until;       /**< 0 = not waiting for RNR */

	/* --- the poller's per-operation bookkeeping (lcore-private): one
	 * line besides the requester's and responder's, so that with many
	 * QPs an operation misses few (swr_qp_create() checks it) --- */
	bool in_active __rte_cache_aligned;
	bool detached;
	bool cm_wait_rtu;         /**< accepted: first packet = RTU (CM) */
	bool ack_pending;         /**< responder */
	bool rd_gap_valid;        /**< requester */
	uint32_t rd_cnt;          /**< responder: resources still streaming */
	uint32_t rd_gap_psn;      /**< READ gap already retried at this PSN */
	/** ARP-resolved next hop; NULL when attr.dest_mac is static. */
	struct swr_neigh *neigh;
	/** On qp->q->tw while rto_deadline or rnr_until is set (or was). */
	struct swr_tw_node tm;
	uint32_t epsn;            /**< responder: expected request PSN */
	uint32_t msn;

	/* --- responder (lcore-private) --- */
	bool seq_nak_sent;
	uint8_t rcv_class;        /**< enum swr_rcv_class */
	bool rcv_se;
	uint32_t rcv_off;         /**< bytes of the current message so far */
	uint32_t rq_tail;         /**< oldest receive not completed */
	uint32_t wr_rkey;         /**< current WRITE */
	uint64_t wr_va;
	uint32_t wr_left;
	uint8_t ack_syndrome;
	uint32_t ack_psn;
	uint32_t rd_mask;         /**< read resource ring size - 1 */
	uint32_t rd_head;         /**< next resource to allocate */
	uint32_t rd_valid;        /**< resources kept for replay (<= ring) */
	struct swr_rd_res *rd_res;

	/* --- connection manager (lcore-private) --- */
	struct swr_conn *conn;    /**< connector bound to this QP */

	/* --- per-QP protocol events (lcore-private; swroce_info.c) --- */
	struct ndk_qp_events ev;
};

static inline struct swr_qp *
swr_qp_of(struct ndk_qp *q)
{
	return (struct swr_qp *)q;
}

static inline struct swr_swqe *
swr_swqe(const struct swr_qp *qp, uint32_t idx)
{
	return (struct swr_swqe *)(qp->sq + (size_t)(idx & qp->sq_mask) *
				   qp->sq_stride);
}

static inline struct swr_rwqe *
swr_rwqe(const struct swr_qp *qp, uint32_t idx)
{
	return (struct swr_rwqe *)(qp->rq + (size_t)(idx & qp->rq_mask) *
				   qp->rq_stride);
}

/**
 * True if the oldest WQE has been transmitted at least in part (it may be
 * behind req_idx after a rewind, yet still be acknowledged).
 */
static inline bool
swr_sq_tail_started(const struct swr_qp *qp)
{
	return qp->sq_tail != __atomic_load_n(&qp->sq_prod, __ATOMIC_ACQUIRE) &&
		swr_swqe(qp, qp->sq_tail)->started;
}

static inline uint32_t
swr_qp_state(const struct swr_qp *qp)
{
	return __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE);
}

/** Look up a QP by number (polling thread). */
static inline struct swr_qp *
swr_qp_lookup(struct swr_adapter *ad, uint32_t qpn)
{
	struct swr_qp *qp = __atomic_load_n(&ad->qp_tbl[qpn & ad->qp_mask],
					    __ATOMIC_ACQUIRE);

	return (qp != NULL && qp->pub.qpn == qpn) ? qp : NULL;
}

ndk_status_t swr_qp_create(struct ndk_pd *pd, struct ndk_cq *rcq,
			   struct ndk_cq *icq, void *qp_context,
			   uint32_t rq_depth, uint32_t iq_depth,
			   uint32_t max_rsge, uint32_t max_isge,
			   uint32_t inline_size, struct ndk_qp **qp);

/* Posting (swroce_post.c): declared in include/swroce_shared.h. */

/**
 * Check a fast-register page list against the MR's capacity: page
 * alignment, DPDK memory, fbo/base_va/length rules. Application thread.
 */
ndk_status_t swr_frmr_check_pages(const struct swr_qp *qp,
				  const struct swr_mr *mr,
				  uint32_t page_count, const uint64_t *pages,
				  uint32_t fbo, size_t length,
				  uint64_t base_va);

/**
 * Carry out a fast register, invalidate or bind in send-queue order
 * (polling thread). @return its completion status.
 */
ndk_status_t swr_local_exec(struct swr_qp *qp, struct swr_swqe *wqe);

/** Put a QP on the active list (polling thread). */
void swr_qp_activate(struct swr_qp *qp);
/**
 * Serve the queued doorbells of queue @p q (its poller), and on queue 0
 * those of the attached applications' rings (swroce_dbell.c).
 */
unsigned int swr_doorbells(struct swr_queue *q);
/** Serve every doorbell queued on @p r (control operation: swr_ctl_exec). */
void swr_db_drain_all(struct rte_ring *r);

/**
 * Move a QP to ERROR and flush both queues (polling thread). The WQE that
 * failed, if any, was already completed with its own status.
 */
void swr_qp_to_error(struct swr_qp *qp);

/**
 * Move a QP to ERROR and flush both queues without counting a QP error
 * (NdkFlush, close, or a modify to ERROR asked by the consumer).
 */
void swr_qp_flush_all(struct swr_qp *qp);

/**
 * Complete the receive at rq_tail (polling thread). A non-zero
 * @p inv_token makes it a ReceiveAndInvalidate completion naming it.
 */
void swr_qp_complete_recv(struct swr_qp *qp, ndk_status_t status,
			  uint32_t perr, uint32_t bytes, bool solicited,
			  uint32_t inv_token);

/**
 * Retire the executed local operation at sq_tail with its own status.
 * @return false if it failed (the QP is then in ERROR).
 */
bool swr_qp_retire_local(struct swr_qp *qp);

/**
 * Retire the WQE at sq_tail as flushed (STATUS_CANCELLED), or, for a
 * local operation already carried out, with its own status.
 */
void swr_qp_complete_flushed(struct swr_qp *qp);

/** True if the WQE at sq_tail is a local operation already carried out. */
static inline bool
swr_sq_tail_local_done(const struct swr_qp *qp)
{
	const struct swr_swqe *wqe = swr_swqe(qp, qp->sq_tail);

	return swr_wr_is_local(wqe->op) && wqe->started;
}

/**
 * Retire, from sq_tail on, the run of fully sent SENDs and WRITEs posted
 * with SILENT_SUCCESS that PSN @p psn acknowledges: no CQ entries, one
 * store freeing their slots (polling thread).
 * @return how many were retired (0: the WQE at sq_tail is not one).
 */
uint32_t swr_qp_retire_silent(struct swr_qp *qp, uint32_t psn);

/** Retire the WQE at sq_tail with @p status (polling thread). */
void swr_qp_complete_send(struct swr_qp *qp, ndk_status_t status,
			  uint32_t perr);

/**
 * Copy between an SGE list and a flat buffer at message offset @p off.
 * Each SGE's region is looked up again (with @p access) so a region
 * deregistered meanwhile is never touched.
 * @return 0, or -EACCES if a region is no longer valid.
 */
int swr_sge_copy_out(struct swr_qp *qp, const struct ndk_sge *sge,
		     uint32_t nsge, uint32_t off, void *dst, uint32_t len);
/** swr_sge_copy_out() that also runs the CRC-32 register @p *crc on. */
int swr_sge_copy_out_crc(struct swr_qp *qp, const struct ndk_sge *sge,
			 uint32_t nsge, uint32_t off, void *dst, uint32_t len,
			 uint32_t *crc);
int swr_sge_copy_in(struct swr_qp *qp, const struct ndk_sge *sge,
		    uint32_t nsge, uint32_t off, const void *src,
		    uint32_t len);

/**
 * Same, copying straight from a received packet's payload; a @p crc not
 * NULL is updated with the payload as it is copied (a READ response's
 * ICRC checked in the copy's pass, see swroce_comp.c).
 */
int swr_sge_copy_from_pkt(struct swr_qp *qp, const struct ndk_sge *sge,
			  uint32_t nsge, uint32_t off,
			  const struct ndk_roce_pkt *p, uint32_t *crc);

/* ------------------------------------------------------------------ */
/* Engines                                                             */
/* ------------------------------------------------------------------ */

/** Requester: generate up to @p quota packets. @return packets made. */
unsigned int swr_req_run(struct swr_qp *qp, unsigned int quota);

/**
 * Requester: the QP's retransmission or RNR timer expired on its queue's
 * wheel (swroce_poll.c): retry, back off, defer after a stall or give up.
 */
void swr_req_timers(struct swr_qp *qp);

/** Requester: go back to the oldest unacknowledged PSN. */
void swr_req_rewind(struct swr_qp *qp);

/**
 * Requester: ask again for the responses of the READ @p wqe still
 * missing (from rd_pkts on), without going back: the READs after it keep
 * streaming. @return false if no frame could be sent now.
 */
bool swr_req_reread(struct swr_qp *qp, const struct swr_swqe *wqe);

/**
 * Completer: retire what needs no answer at the tail: local operations
 * carried out, READs whose responses all came ahead.
 */
void swr_comp_tail(struct swr_qp *qp);

/**
 * Completer: an ACK, NAK or READ response for @p qp; @p icrc_unchecked: its
 * ICRC is not checked yet (READ responses: checked as they are placed).
 */
void swr_comp_rx(struct swr_qp *qp, const struct ndk_roce_pkt *p,
		 bool icrc_unchecked);

/** Responder: a request packet for @p qp. */
void swr_resp_rx(struct swr_qp *qp, const struct ndk_roce_pkt *p);

/** Responder: READ responses and the pending ACK. @return packets made. */
unsigned int swr_resp_tx(struct swr_qp *qp, unsigned int quota);

/** True if the responder has output waiting. */
static inline bool
swr_resp_busy(const struct swr_qp *qp)
{
	return qp->ack_pending || qp->rd_cnt != 0;
}

/* ------------------------------------------------------------------ */
/* Adapter services                                                    */
/* ------------------------------------------------------------------ */

/**
 * Allocate a frame for @p qp with room for an opcode's headers, @p payload
 * bytes and the pad; writes L2-L4 and the BTH.
 * @param bth_out  the BTH (extension headers follow at their offsets).
 * @return the mbuf, or NULL (counted) when buffers run out.
 */
struct rte_mbuf *swr_pkt_new(struct swr_qp *qp, uint8_t opcode,
			     uint32_t payload, bool se, bool ackreq,
			     uint32_t psn, struct ndk_roce_bth **bth_out);

/** Pointer to a new frame's payload area. */
static inline uint8_t *
swr_pkt_payload(struct ndk_roce_bth *bth)
{
	return (uint8_t *)bth + ndk_roce_opcode(bth->opcode)->hdr_len;
}

/** Zero the pad, compute the ICRC and stage the frame for transmission. */
void swr_pkt_send(struct swr_qp *qp, struct rte_mbuf *m);

/** Stage a frame whose ICRC is already written (swr_pkt_send() after it). */
void swr_pkt_xmit(struct swr_qp *qp, struct rte_mbuf *m);

/** Zero the pad and write the ICRC of a finished frame. */
void swr_frame_seal(struct rte_mbuf *m);

/*
 * Payloads from this size on are copied out of their region in the same
 * pass as their ICRC (one pass over the data): swr_frame_icrc_start(), the
 * copy with ndk_roce_crc32_copy(), swr_frame_seal_crc(), swr_pkt_xmit().
 * Smaller frames are copied, then sealed in one pass over the whole frame.
 */
#define SWR_CRC_COPY_MIN 256

/** ICRC register over a new frame's headers, up to its @p payload. */
uint32_t swr_frame_icrc_start(const struct rte_mbuf *m,
			      const uint8_t *payload);

/**
 * Zero the pad after a payload of @p plen bytes that the ICRC register
 * @p crc has run over, and write the ICRC: the frame is sealed.
 */
void swr_frame_seal_crc(const struct ndk_roce_bth *bth, uint8_t *payload,
			uint32_t plen, uint32_t crc);

/** Frames the queue's TX stage can still take this poll. */
static inline unsigned int
swr_tx_room(const struct swr_queue *q)
{
	return SWR_TX_STAGE - q->tx_n;
}

/** Send an ACK/NAK now (ahead of pending READ responses). */
void swr_send_ack(struct swr_qp *qp, uint8_t syndrome, uint32_t psn);

/**
 * Run @p fn with exclusive access to the adapter's lcore-private state (of
 * every queue): inline when the caller polls queue 0 or nobody does,
 * otherwise on queue 0's polling thread (the caller waits). The other
 * queues' pollers are paused between two polls while @p fn runs.
 */
ndk_status_t swr_ctl_exec(struct swr_adapter *ad,
			  ndk_status_t (*fn)(struct swr_adapter *, void *),
			  void *arg);

/**
 * Wait until the polling threads have finished every poll that was running
 * when called (queues the caller polls or nobody does are skipped).
 * Control path.
 */
void swr_quiesce(struct swr_adapter *ad);

/* Queues and polling (swroce_poll.c). */

/** Allocate the queues' rings and lists. @return 0 or -ENOMEM. */
int swr_queues_init(struct swr_adapter *ad, uint32_t seq);

/** Free what swr_queues_init() allocated and frames still staged. */
void swr_queues_fini(struct swr_adapter *ad);

/** ndk_adapter_poll(): every queue the caller can own. */
unsigned int swr_poll(struct ndk_adapter *adapter);

/** ndk_adapter_poll_queue(). */
unsigned int swr_poll_queue(struct ndk_adapter *adapter, uint16_t queue);

/** ndk_adapter_release(): give up the queues the caller owns. */
void swr_release(struct ndk_adapter *adapter);

/** Take every queue, waiting for their pollers to stop (adapter close). */
void swr_own_all(struct swr_adapter *ad);

/** Adapter-wide counters plus every queue's (any thread; may lag). */
void swr_stats_sum(const struct swr_adapter *ad, struct swr_stats *out);

#include "swroce_rto.h"

/**
 * Arm the retransmission timer on the queue's wheel (the one place that
 * sets rto_deadline). Strict (adaptive retransmission off): the full local
 * ACK timeout from now. Adaptive: swr_rto_value() from now, but no later
 * than a full local ACK timeout after the wait for progress began
 * (rto_start), which swr_req_timers() counts against retry_cnt.
 */
static inline void
swr_rto_arm(struct swr_qp *qp)
{
	uint64_t now = qp->q->now, end;

	if (qp->rto_tsc == 0)
		return;
	if (qp->rto_start == 0)
		qp->rto_start = now;
	if (!swr_rto_adaptive(qp)) {
		qp->rto_deadline = now + swr_rto_full(qp);
	} else {
		end = qp->rto_start + swr_rto_full(qp);
		qp->rto_deadline = now + swr_rto_value(qp);
		if (qp->rto_deadline > end)
			qp->rto_deadline = end;
		if (qp->rto_deadline == 0)
			qp->rto_deadline = 1;
	}
	swr_tw_arm(&qp->q->tw, &qp->tm, qp->rto_deadline);
}


/** Microseconds to TSC ticks. */
static inline uint64_t
swr_us_to_tsc(const struct swr_adapter *ad, uint64_t us)
{
	return us * ad->tsc_hz / 1000000;
}

#include "swroce_neigh.h"

/** Stage a finished frame for transmission on queue 0 (swroce_poll.c). */
void swr_tx_stage(struct swr_adapter *ad, struct rte_mbuf *m);

/** Stage a finished frame for transmission on @p q (its owner). */
void swr_q_tx_stage(struct swr_queue *q, struct rte_mbuf *m);

/**
 * A finished frame of a QP on queue > 0 whose neighbour is not REACHABLE:
 * handed to queue 0, which owns the neighbour table (swroce_poll.c).
 */
void swr_q_neigh_handoff(struct swr_queue *q, struct rte_mbuf *m);

/* ------------------------------------------------------------------ */
/* Introspection (swroce_info.c)                                       */
/* ------------------------------------------------------------------ */

/** ndk_adapter_qp_list(): runs on the polling thread (swr_ctl_exec). */
int swr_info_qp_list(struct ndk_adapter *adapter, uint32_t *qpns,
		     uint32_t max);

/** ndk_qp_query_info(): runs on the polling thread (swr_ctl_exec). */
ndk_status_t swr_info_qp_query(struct ndk_adapter *adapter, uint32_t qpn,
			       struct ndk_qp_info *info);

#endif /* SWROCE_PRIV_H */
