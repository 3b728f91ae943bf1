/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef SWROCE_QP_H
#define SWROCE_QP_H

/**
 * @file
 * swroce queue pairs: the QP structure, its WQEs, lookups, and the calls
 * of rc/swroce_qp.c (lifetime, completions, error state), rc/swroce_post.c
 * (posting) and rc/swroce_qp_fsm.c (the IB state transition table).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>

#include "ndk_provider.h"
#include "ndk_roce.h"
#include "ndk_roce_rtt.h"
#include "swroce_adapter.h"
#include "swroce_shared.h"
#include "swroce_timer.h"

struct swr_pd;
struct swr_cq;
struct swr_mr;
struct swr_neigh;
struct swr_conn;
struct swr_srq;

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

/**
 * swr_swqe.started of a SEND or WRITE posted with
 * NDK_OP_FLAG_SILENT_SUCCESS: once acknowledged, retired without a
 * completion (swr_qp_retire_silent() tests this one byte).
 */
#define SWR_WQE_STARTED_SILENT 2

/** Send-queue WQE; followed by SGEs or inline bytes (qp->sq_stride). */
struct swr_swqe {
	uint8_t op;               /**< enum swr_wr_op */
	uint8_t started;          /**< PSNs assigned (first transmission):
				   *  0 not yet, else 1 or
				   *  SWR_WQE_STARTED_SILENT */
	uint16_t nsge;            /**< 0 with inline data */
	uint32_t flags;           /**< NDK_OP_FLAG_* */
	void *ctx;
	uint64_t raddr;
	uint32_t rkey;
	uint32_t length;          /**< total bytes */
	uint32_t first_psn;
	uint32_t npkts;           /**< PSNs consumed */
	uint32_t rd_pkts;         /**< READ: responses placed in order (a
				   *  prefix; later ones: qp->ooo_map) */
	uint32_t acc;             /**< local ops: SWR_ACC_* granted */
	union {
		struct {
			struct swr_mr *reg;    /**< local ops: FRMR or MW */
			struct swr_mr *parent; /**< bind: the MR */
		};
		/** SEND, WRITE: TSC its first packet was first sent */
		uint64_t wr_tx_t;
		struct {
			/** READ: qp->rd_seq when its request was last
			 *  sent whole */
			uint32_t rd_tx_seq;
			/** READ: qp->rd_seq, and the TSC, when the range
			 *  up to rd_rr_end was asked */
			uint32_t rd_rr_seq;
			uint64_t rd_rr_t;
		};
	};
	ndk_status_t lstatus;     /**< local ops: result once executed */
	uint32_t npages;          /**< fast register: pages */
	uint32_t fbo;             /**< fast register: first byte offset */
	/** READ: a request for its responses up to this packet (exclusive)
	 *  is out, so a hole before it is not asked again (0: none) */
	uint32_t rd_rr_end;
	uint32_t rd_rr_gap;       /**< READ: rd_rr_end was asked because a
				   *  later response arrived (not by a rewind,
				   *  the timer or a guess) */
	uint32_t rd_seen_pkt;     /**< READ: rd_pkts when rd_seen was taken */
	uint32_t rd_seen_arr;     /**< READ: qp->rd_arrivals then */
	uint64_t rd_seen;         /**< READ: TSC a later response first showed
				   *  its first missing one (0: not yet) */
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
	uint32_t next_pkt;        /**< next response packet of the READ */
	uint32_t rp_next;         /**< replay for a duplicate READ: packets */
	uint32_t rp_end;          /**< [rp_next, rp_end), sent first */
	bool streaming;           /**< the READ itself has packets left */
};

/** True if READ resource @p r has responses to send (READ or replay). */
static inline bool
swr_rd_busy(const struct swr_rd_res *r)
{
	return r->streaming || r->rp_next != r->rp_end;
}

/**
 * PSNs past una_psn whose READ responses may be placed out of order
 * (qp->ooo_map, one bit each; a power of two).
 */
#define SWR_OOO_BITS 4096

/**
 * PSNs past a missing request within which a responder keeps requests
 * with selective repeat (qp->sr_buf, a slot per PSN; a power of two): the
 * peer requester's window for READs (SWR_MAX_UNACKED_RD_PSN: 64 READs of
 * 16 responses). A selective acknowledgement shows the first
 * NDK_ROCE_SACK_BITS of it; kept requests past them show in later ones.
 */
#define SWR_SR_WND 1024

/** Ranges asked for gaps a QP remembers, to tell reordering from loss. */
#define SWR_RR_RANGES 8
/** ... each until una_psn passed it by this many PSNs (swr_rr_note()). */
#define SWR_RR_KEEP 1024

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
/**
 * The head of every IPv4 frame a QP sends, built when its path is set
 * (swr_qp_set_path()): Ethernet, IPv4 and UDP from the QP's template and
 * the BTH's constant P_Key. swr_pkt_new() copies all 64 bytes into the
 * frame (what follows the BTH is written over by the frame's own headers,
 * payload and ICRC) and writes the lengths, the IPv4 checksum and the
 * BTH's per-packet fields.
 */
struct swr_tx_tpl {
	uint8_t hdr[56];          /**< Ethernet, IPv4, UDP, BTH: 54 bytes */
	uint32_t csum_base;       /**< IPv4 checksum: the constant words' sum */
	bool on;                  /**< IPv4 (IPv6: ndk_roce_l2l4_write()) */
} __rte_aligned(64);

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
	/** Receives come from this SRQ (rq unused) when not NULL. */
	struct swr_srq *srq;

	/* --- state and attributes (modified through swr_ctl_exec); the
	 * state, the path MTU and attr.dest_ip, which every received frame
	 * reads, in one line (swr_qp_create() checks it) --- */
	uint32_t state;           /**< enum ndk_qp_state (atomic) */
	uint32_t pmtu;            /**< bytes */
	uint32_t pmtu_shift;
	struct ndk_qp_attr attr;
	uint64_t rto_tsc;         /**< ACK timeout in TSC ticks, 0 = none */
	struct ndk_roce_l2l4 l2l4;
	struct swr_tx_tpl tpl;    /**< l2l4 and the BTH, IPv4, prebuilt */

	/* --- application side (single producer per queue) --- */
	uint32_t sq_prod_priv __rte_cache_aligned; /**< incl. deferred */
	uint32_t rq_prod_priv;
	uint32_t sq_prod;         /**< published (release) */
	uint32_t rq_prod;         /**< published (release) */
	uint32_t db_pending;      /**< doorbell queued (atomic) */
	struct rte_ring *db_ring; /**< where its doorbells go (set once) */
	uint64_t fr_lo, fr_hi;    /**< FRMR pages inside [lo, hi) (set
				   *  once; hi 0: any DPDK memory) */
	/** The DPDK memory list of the last fast register's pages (the
	 *  lists stay where they are: no lookup while they hit it). */
	const struct rte_memseg_list *fr_msl;
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
	/** READ responses placed out of order: bit psn % SWR_OOO_BITS for a
	 *  PSN in [una_psn, una_psn + SWR_OOO_BITS) past its READ's prefix */
	uint64_t *ooo_map;
	uint32_t ooo_cnt;         /**< bits set in ooo_map */
	uint32_t rd_hi;           /**< one past the highest READ response PSN
				   *  received (lags: read as at least una) */
	/** Reordering tolerance (RACK): 0 = a later response shows a missing
	 *  one lost at once; n = only after 4 << n more responses or n/4
	 *  SRTT. Raised when a range asked again came twice. */
	uint8_t reo_mult;
	uint8_t reo_quiet;        /**< rounds with ranges asked and no
				   *  reordering seen */
	uint32_t reo_qpsn;        /**< ... a round ends when una passes it */
	uint32_t rd_arrivals;     /**< READ responses not the tail's next */
	/** PSNs of the last SWR_RR_RANGES ranges asked because a later
	 *  response arrived: a response there coming twice was reordered
	 *  (rr_lo == rr_hi: none); rr_i the next slot */
	uint32_t rr_lo[SWR_RR_RANGES], rr_hi[SWR_RR_RANGES];
	uint32_t rr_i;
	/** Selective repeat negotiated (attr.selective_repeat at RTR) */
	bool sr_on;
	uint32_t gbn_wnd;         /**< go-back-N: PSNs of SEND/WRITE data in
				   *  flight at most (halved per go-back) */
	uint32_t gbn_acked;       /**< ... PSNs acknowledged since it last
				   *  grew */
	uint32_t rew_max;         /**< psn_max at the last go-back: PSNs from
				   *  it on were sent once */
	uint32_t sr_rs_psn;       /**< requester: the first request a SACK
				   *  round sent again ... */
	uint64_t sr_rs_t;         /**< ... at this TSC (0: none to judge) */
	uint32_t sr_hole_psn;     /**< requester: the first missing PSN of
				   *  the SACKs (reordering seen) ... */
	uint64_t sr_hole_t;       /**< ... shown since this TSC */
	uint32_t sr_hi;           /**< requester: holes a SACK showed below
				   *  this PSN were sent again already */
	uint32_t nak_psn;         /**< a sequence NAK waiting (reordering) */
	uint64_t nak_t;           /**< ... since this TSC; 0 = none */
	uint32_t nak_rew_psn;     /**< a sequence NAK went back to this PSN */
	uint64_t nak_rew_t;       /**< ... at this TSC; 0 = none */
	/** A go-back-N responder NAKed rd_fresh_psn (or nothing from it on
	 *  was answered) and dropped every request from it: the READs from
	 *  there sent again by that go-back are first executions (their
	 *  gaps asked as in a first answer) */
	uint32_t rd_fresh_psn;
	bool rd_fresh;
	uint32_t reo_psn;         /**< raised at most once until una passes */
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
	/** READ response meter (adaptive timeout of a stream): responses
	 *  placed since the stream began at rd_meter_t0; 0 = no stream */
	uint32_t rd_meter_n;
	uint64_t rd_meter_t0;
	uint64_t rd_meter_last;   /**< ... its latest response (TSC) */
	uint64_t rd_ord_t0;       /**< TSC a READ to send was first held by
				   *  ORD (0: not held; rd_ord_wait_us) */
	bool rd_ord_loss;         /**< ... while the tail READ waited for a
				   *  range asked again (rd_ord_loss_us) */
	/** READ requests sent (whole or for a range), numbered: their
	 *  order (RACK: WQE rd_tx_seq, rd_rr_seq) */
	uint32_t rd_seq;
	/** RACK: the number (rd_seq) of the latest READ request one of
	 *  whose responses, answering it alone, arrived */
	uint32_t rack_seq;
	uint32_t rd_ord_hi;       /**< rd_hi when swr_req_ord_room() last
				   *  found no room (no change: none still) */
	uint64_t rnr_until;       /**< 0 = not waiting for RNR */
	uint64_t reo_due;         /**< a READ gap or ask waits for the reorder
				   *  window until this TSC (0: none) */

	/* --- the poller's per-operation bookkeeping (lcore-private): one
	 * line besides the requester's and responder's, so that with many
	 * QPs an operation misses few (swr_qp_create() checks it) --- */
	bool in_active __rte_cache_aligned;
	bool detached;
	bool cm_wait_rtu;         /**< accepted: first packet = RTU (CM) */
	bool ack_pending;         /**< responder */
	bool cc_on;               /**< DCQCN: served by swr_cc_req_run() */
	/** The requester stopped at its PSN window or waits for a probe's
	 *  answer: off the active list until una_psn moves
	 *  (swr_comp_progress()) or a rewind or timer activates it */
	bool req_parked;
	uint32_t rd_cnt;          /**< responder: resources with responses to
				   *  send (swr_rd_busy()) */
	/** ARP-resolved next hop; NULL when attr.dest_mac is static. */
	struct swr_neigh *neigh;
	/** On qp->q->tw while rto_deadline or rnr_until is set (or was). */
	struct swr_tw_node tm;
	uint32_t epsn;            /**< responder: expected request PSN */
	uint32_t msn;

	/* --- responder (lcore-private) --- */
	bool seq_nak_sent;
	uint32_t sr_cnt;          /**< requests kept (selective repeat) */
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
	/** With an SRQ: the receive the current SEND fills (taken at its
	 *  first packet), NULL between messages */
	struct swr_rwqe *srq_wqe;
	/** Selective repeat: requests kept past a missing one, slot
	 *  psn % SWR_SR_WND (held in sr_map), sr_cnt of them */
	struct rte_mbuf **sr_buf;
	uint64_t sr_map[SWR_SR_WND / 64];

	/* --- connection manager (lcore-private) --- */
	struct swr_conn *conn;    /**< connector bound to this QP */
	/** swr_qp_to_error() moved it to ERROR (a transport or local
	 *  error, not a flush asked for): set by the QP's lcore, read by
	 *  the CM's (atomic); cleared when the CM binds the QP. */
	uint8_t failed;

	/* --- congestion control (lcore-private; net/swroce_cc.c) --- */
	uint64_t cnp_last;        /**< TSC of the last CNP sent; 0 = none */
	struct swr_dcqcn dcqcn;   /**< reaction point (cc_on) */
	struct swr_delay dly;     /**< delay-based window (NDK_CC_DELAY) */

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

/**
 * The receive the responder would fill or fail now: the SRQ's receive held
 * for the current SEND, or the oldest posted to the QP. NULL: none.
 */
static inline struct swr_rwqe *
swr_qp_cur_recv(const struct swr_qp *qp)
{
	if (qp->srq != NULL)
		return qp->srq_wqe;
	if (qp->rq_tail == __atomic_load_n(&qp->rq_prod, __ATOMIC_ACQUIRE))
		return NULL;
	return swr_rwqe(qp, qp->rq_tail);
}

/** Look up a QP by number (polling thread). */
static inline struct swr_qp *
swr_qp_lookup(struct swr_adapter *ad, uint32_t qpn)
{
	struct swr_qp *qp = __atomic_load_n(&ad->qp_tbl[qpn & ad->qp_mask],
					    __ATOMIC_ACQUIRE);

	return (qp != NULL && qp->pub.qpn == qpn) ? qp : NULL;
}

/**
 * Put a QP on its queue's active list, the QPs the poll loop serves
 * (polling thread).
 */
static inline void
swr_qp_activate(struct swr_qp *qp)
{
	struct swr_queue *q = qp->q;

	if (qp->in_active || qp->detached)
		return;
	qp->in_active = true;
	q->active[q->n_active++] = qp;
}

/** True if the WQE at sq_tail is a local operation already carried out. */
static inline bool
swr_sq_tail_local_done(const struct swr_qp *qp)
{
	const struct swr_swqe *wqe = swr_swqe(qp, qp->sq_tail);

	return swr_wr_is_local(wqe->op) && wqe->started;
}

/* swroce_qp.c: lifetime, completions, the error state */

/**
 * Post the completions staged in @p s (a queue's RX burst, its poller) to
 * their CQ; a QP whose completion the CQ could not take (overrun) is
 * flushed.
 */
void swr_cq_stage_flush(struct swr_cq_stage *s);

/** Post what @p q's RX burst staged, if anything (its poller). */
static inline void
swr_cq_stage_end(struct swr_queue *q)
{
	if (q->cqs.n != 0)
		swr_cq_stage_flush(&q->cqs);
}

ndk_status_t swr_qp_create(struct ndk_pd *pd, struct ndk_cq *rcq,
			   struct ndk_cq *icq, void *qp_context,
			   uint32_t rq_depth, uint32_t iq_depth,
			   uint32_t max_rsge, uint32_t max_isge,
			   uint32_t inline_size, struct ndk_qp **qp);

/** NdkCreateQpWithSrq (the PD dispatch entry). */
ndk_status_t swr_qp_create_with_srq(struct ndk_pd *pd, struct ndk_cq *rcq,
				    struct ndk_cq *icq, struct ndk_srq *srq,
				    void *qp_context, uint32_t iq_depth,
				    uint32_t max_isge, uint32_t inline_size,
				    struct ndk_qp **qp);

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
 * Complete the receive at rq_tail, or with an SRQ the one the current SEND
 * holds (polling thread). A non-zero
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

/* swroce_qp_fsm.c: the IB state transition table */

/**
 * Check a modify of @p qp from state @p from to @p to with the attributes
 * @p mask of @p a: the transition must be legal, carry the attributes it
 * requires and only those it allows, each in its range.
 * @return NDK_STATUS_SUCCESS, INVALID_DEVICE_STATE or INVALID_PARAMETER.
 */
ndk_status_t swr_qp_modify_check(const struct swr_qp *qp,
				 const struct ndk_qp_attr *a, uint32_t mask,
				 uint32_t from, uint32_t to);

/* swroce_post.c: the QP dispatch entries, in include/swroce_shared.h */

#endif /* SWROCE_QP_H */
