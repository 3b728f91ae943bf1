/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef SWROCE_CM_H
#define SWROCE_CM_H

/**
 * @file
 * swroce connection manager: IB CM over QP1 with RDMA-CM addressing,
 * behind NDK connectors and listeners.
 *
 *   swroce_conn.c  the NDK objects: create/close, argument checks; each
 *                  call runs its state change on the polling thread
 *                  through swr_ctl_exec()
 *   swroce_cm.c    the protocol on the polling thread: MAD receive and
 *                  transmit, the per-connection state machine, timers,
 *                  deferred delivery of consumer callbacks
 *   swroce_cm_act.c  the actions consumers start (connect, accept, ...)
 *                  and local port allocation, on the polling thread
 *   swroce_cm_fsm.c  the connection state machine as one transition
 *                  table: every state change goes through
 *                  swr_cm_set_state()
 *   swroce_cm_tbl.c  the tables that find a message's connection, a
 *                  duplicate REQ, due timers and ports in use in
 *                  constant time (struct swr_cm)
 *   swroce_sep.c   shared endpoints: a local address and port that
 *                  several active connectors connect from
 *
 * All CM state is lcore-private (touched through swr_ctl_exec() by the
 * API side), so there are no locks. Connection objects come from a
 * per-adapter mempool, so an incoming REQ allocates nothing on the lcore.
 * Consumer callbacks never run inside a handler: handlers set event bits
 * on the connection and swr_cm_poll() delivers them at the top of a poll,
 * where a callback may call back into the API (even close the object).
 */

#include <stdbool.h>
#include <stdint.h>

#include "ndk_provider.h"
#include "ndk_roce.h"
#include "swroce_adapter.h"

#define SWR_CM_RETRY_MS 1000      /**< MAD retransmission interval */
#define SWR_CM_RETRIES 8          /**< retransmissions before giving up */
#define SWR_CM_TICK_MS 10         /**< timer period */
#define SWR_CM_EPHEMERAL_LO 49152 /**< NDK's ephemeral port range */
#define SWR_CM_EPHEMERAL_HI 65535
#define SWR_CM_CALLER_DATA 56     /**< REQ private data after cma_hdr */
#define SWR_CM_CALLEE_DATA 196    /**< REP private data */
#define SWR_CM_REJECT_DATA 148    /**< REJ private data */
#define SWR_CM_MAX_MRA_MS 60000   /**< longest wait an MRA may ask for */
/**
 * REQs, REPs and DREQs (first transmissions and retransmissions) sent per
 * poll at most; beyond, they wait their turn in order (swr_cm::tx_head),
 * so thousands of connections started at once, or timing out at once,
 * do not overflow the port's ring and lose each other's MADs.
 */
#define SWR_CM_TX_BUDGET 32u
/*
 * What the messages announce is what Linux rdma_cm (and so librdmacm,
 * rping, perftest -R) announces by default, so that a peer treats our
 * connections as it treats its own (doc/cm.md, "Negotiated QP
 * attributes"): the values of drivers/infiniband/core/cma.c and cm.c.
 */
/** CM response timeout we announce: 4.096 us << 20 = 4.3 s (rdma_cm's). */
#define SWR_CM_RESPONSE_TIMEOUT 20
/** Max CM retries we announce in REQs (rdma_cm's). */
#define SWR_CM_MAX_CM_RETRIES 15
/**
 * Packet lifetime rdma_cm assumes on RoCE, where no SA answers path
 * queries, in current kernels (4.096 us << 16 = 268 ms; older ones, such
 * as 6.1, 18: their REQs carry a local ACK timeout of 19).
 */
#define SWR_CM_PACKET_LIFETIME 16
/** Target ACK delay we announce in REPs: 4.096 us << 15 = 134 ms. */
#define SWR_CM_TARGET_ACK_DELAY 15
/**
 * Retry count a REQ asks of the peer's QP: 7, as librdmacm applications
 * (rping, perftest) ask. Linux rxe takes 7 as "retry for ever", as we do;
 * a smaller count lets a lossy link fail the peer's QP (RETRY_EXC_ERR).
 */
#define SWR_CM_REQ_RETRY_CNT 7
/**
 * Retry count of our own connected QPs, either side (at most the REQ's):
 * finite, so a vanished peer ends the QP. Loss alone does not spend it:
 * retries are restored on every progress and adaptive retransmission
 * spends none (doc/recovery.md).
 */
#define SWR_CM_QP_RETRY_CNT 6
/** RNR retry count asked and granted: 7, for ever (rdma_cm's). */
#define SWR_CM_RNR_RETRY_CNT 7

/**
 * The local ACK timeout rdma_cm gives a RoCE QP: the packet's round trip
 * (SWR_CM_PACKET_LIFETIME + 1) or the responder's ACK delay @p ack_delay,
 * whichever is longer, once more doubled when the two are within a factor
 * of two of each other (IB time codes: 4.096 us << code). 17 (0.54 s) for
 * our ACK delay 15.
 */
static inline uint8_t
swr_cm_ack_timeout(uint8_t ack_delay)
{
	int a = SWR_CM_PACKET_LIFETIME + 1, b = ack_delay;
	int hi = a > b ? a : b, d = a > b ? a - b : b - a;

	hi += d <= 1;
	return (uint8_t)(hi < 31 ? hi : 31);
}

/** ACK timeout of the QPs we connect, the REQ's: 17 (0.54 s). */
#define SWR_CM_QP_ACK_TIMEOUT swr_cm_ack_timeout(SWR_CM_TARGET_ACK_DELAY)

/* The constants above are the defaults of struct ndk_cm_params. */
_Static_assert(SWR_CM_REQ_RETRY_CNT == 7 && SWR_CM_RNR_RETRY_CNT == 7 &&
	       SWR_CM_QP_RETRY_CNT == 6 && SWR_CM_RESPONSE_TIMEOUT == 20 &&
	       SWR_CM_MAX_CM_RETRIES == 15, "NDK_CM_PARAMS_DEFAULT");

/** Connection states (IB CM's, folded to what NDK can observe). */
enum swr_cm_state {
	SWR_CM_IDLE = 0,          /**< new connector */
	SWR_CM_REQ_SENT,          /**< active: waiting for REP */
	SWR_CM_REP_RCVD,          /**< active: Connect done, no RTU yet */
	SWR_CM_REQ_RCVD,          /**< passive: connect event, no answer */
	SWR_CM_REP_SENT,          /**< passive: accepted, waiting for RTU */
	SWR_CM_ESTABLISHED,
	SWR_CM_DREQ_SENT,         /**< our Disconnect under way */
	SWR_CM_DISCONNECTED,      /**< DREQ/DREP done: connection over */
	SWR_CM_ABORTED,           /**< rejected, timed out or abandoned */
	SWR_CM_N_STATES
};

/**
 * What makes a connection change state (the trigger of a transition in
 * swroce_cm_fsm.c's table). An MRA changes no state (only the
 * retransmission timer), so it is none.
 */
enum swr_cm_event {
	SWR_CM_RX_REQ = 0,        /**< REQ received (a new passive one) */
	SWR_CM_RX_REP,            /**< REP received */
	SWR_CM_RX_RTU,            /**< RTU received */
	SWR_CM_RX_REJ,            /**< REJ received */
	SWR_CM_RX_DREQ,           /**< DREQ received */
	SWR_CM_RX_DREP,           /**< DREP received */
	SWR_CM_QP_RX,             /**< first packet on the QP: RTU implied */
	SWR_CM_API_CONNECT,       /**< consumer: Connect */
	SWR_CM_API_COMPLETE,      /**< consumer: CompleteConnect */
	SWR_CM_API_ACCEPT,        /**< consumer: Accept */
	SWR_CM_API_REJECT,        /**< consumer: Reject */
	SWR_CM_API_DISCONNECT,    /**< consumer: Disconnect */
	SWR_CM_API_CLOSE,         /**< consumer: close (or nobody takes it) */
	SWR_CM_TIMED_OUT,         /**< retransmissions used up */
	SWR_CM_QP_ERROR,          /**< the bound QP failed to move (or is gone) */
	SWR_CM_N_EVENTS
};

/** Consumer callbacks owed (swr_conn.events bits). */
#define SWR_CM_EV_DONE 0x1        /**< request completion (done_status) */
#define SWR_CM_EV_DISCONNECT 0x2  /**< disconnect event (disc_reason) */
#define SWR_CM_EV_CONNECT 0x4     /**< listener's connect event */

struct swr_lis;
struct swr_sep;

/** A connector (one end of one connection). */
struct swr_conn {
	struct ndk_connector pub;  /**< must be first */
	struct swr_adapter *ad;
	struct swr_conn *next;     /**< adapter's list (lcore) */
	struct swr_conn *prev;
	struct swr_conn *t_next;   /**< armed timers (deadline != 0) */
	struct swr_conn *t_prev;
	struct swr_conn *ev_next;  /**< FIFO of connections owing callbacks */
	struct swr_conn *h_next;   /**< passive: chain of the REQ table */
	struct swr_conn *tx_next;  /**< waiting to send its kept MAD */
	struct swr_conn *tx_prev;
	uint32_t slot;             /**< index in the pool (kept by alloc) */
	uint32_t gen;              /**< slot reuse count (kept by alloc) */
	bool listed;               /**< on the adapter's list */
	bool ev_queued;            /**< on the callback FIFO */
	bool tx_queued;            /**< on the transmit FIFO */
	bool hashed;               /**< in the REQ table */
	bool port_held;            /**< counted in swr_cm::port_use */
	bool unanswered;           /**< counted in its listener's backlog */

	uint8_t state;             /**< enum swr_cm_state */
	bool passive;
	bool closed;               /**< consumer closed it: no callbacks */
	bool disconnect_called;    /**< consumer called Disconnect */
	uint8_t events;            /**< SWR_CM_EV_* owed */
	uint8_t retries;           /**< retransmissions left */
	/** Retransmissions of the kept MAD and the longest interval between
	 *  two (ms): the peer's while a REP waits for its RTU
	 *  (swr_cm_peer_timing(), peer_timing set), else our CM
	 *  parameters' (swr_cm_timing()). */
	bool peer_timing;
	uint8_t max_retries;
	uint32_t retry_ms;
	/** Next retransmission (TSC), 0 = none: swr_cm_arm()/_disarm(). */
	uint64_t deadline;

	struct swr_qp *qp;         /**< bound QP (qp->conn points back) */
	struct swr_lis *lis;       /**< passive: whose connect event */
	/** passive: the listener that handed it up; holds a reference on
	 *  it until closed (NDK: the listener's close pends until then) */
	struct swr_lis *held_lis;
	struct swr_sep *sep;       /**< active: the shared endpoint it
				    *   connected from (holds a reference) */
	struct swr_conn *sep_next; /**< that endpoint's connectors */
	struct swr_conn *sep_prev;

	/* addressing (swr_cm_addr form, host order ports) */
	uint8_t lip[16], rip[16];
	uint16_t lport, rport;
	struct swr_neigh *neigh;   /**< next hop of rip */

	/* CM identifiers */
	uint32_t local_id, remote_id;
	uint64_t tid;
	uint64_t remote_guid;

	/*
	 * Negotiated parameters. A REQ's or REP's Starting PSN is the PSN
	 * its sender expects to receive first (Linux rxe sends its first
	 * request with the PSN of the REP it got, and the passive side
	 * with the REQ's): local_psn is ours (our RQ PSN), remote_psn the
	 * peer's (our SQ PSN).
	 */
	uint32_t local_psn, remote_psn, remote_qpn;
	uint8_t ird, ord;          /**< ours: inbound / outbound read limit */
	uint8_t peer_ird, peer_ord;/**< what the peer announced */
	uint8_t mtu_code;
	uint8_t ack_timeout;       /**< passive: from the REQ */
	uint8_t retry_cnt;         /**< passive: from the REQ */
	uint8_t rnr_retry;         /**< from the peer */
	/** Selective repeat: passive, the REQ offered it (ECE); once
	 *  negotiated (both sides have it on), the QP gets it at RTR */
	bool sr_offered;
	bool sr;

	/* peer's private data (REQ after cma_hdr, REP or REJ) */
	uint16_t pdata_len;        /**< size of the field */
	bool pdata_valid;
	uint8_t pdata[NDK_ROCE_CM_PDATA_MAX];

	/* owed callbacks */
	ndk_status_t done_status;
	ndk_request_completion_fn done;
	void *done_ctx;
	uint32_t disc_reason;
	ndk_disconnect_event_fn disc;
	void *disc_ctx;

	/* the last MAD sent, for retransmission */
	uint8_t mad[NDK_ROCE_MAD_LEN];
};

/** A listener. */
struct swr_lis {
	struct ndk_listener pub;   /**< must be first */
	struct swr_adapter *ad;
	struct swr_lis *next;      /**< adapter's list (lcore) */
	ndk_connect_event_fn event;
	void *event_ctx;
	uint8_t ip[16];            /**< all-zero (any) or the adapter's */
	int family;                /**< AF_INET or AF_INET6 of the listen */
	uint16_t port;
	bool listening;
	bool paused;
	bool closed;
	/** Requests connect events are owed or delivered for and that the
	 *  consumer has not answered (ndk_cm_params.listen_backlog). */
	uint32_t unanswered;
	/** References (lcore): its own until closed, and one per connector
	 *  it handed up until that one is closed. A close that leaves some
	 *  stays pending (NDK's endpoint reference count). */
	uint32_t refs;
	ndk_close_completion_fn done;  /**< pending close's completion */
	void *done_ctx;
};

/**
 * A shared endpoint (NdkCreateSharedEndpoint): a local address and port
 * reserved for active connectors. It holds the port (swr_cm::port_use)
 * until its last reference goes: its own (dropped by close) and one per
 * connector that connected through it (dropped when that one is closed).
 */
struct swr_sep {
	struct ndk_shared_endpoint pub;  /**< must be first */
	struct swr_adapter *ad;
	struct swr_sep *next;      /**< swr_cm::seps (lcore) */
	struct swr_sep *prev;
	uint8_t ip[16];            /**< the adapter's address (CM form) */
	uint16_t port;             /**< host order */
	uint32_t refs;             /**< lcore */
	/** Connectors connected through it, not yet closed (the four-tuple
	 *  check looks at these only). */
	struct swr_conn *conns;
	bool closed;               /**< its consumer closed it */
	ndk_close_completion_fn done;  /**< pending close's completion */
	void *done_ctx;
};

/** Per-adapter CM state (lcore-private). */
/**
 * A connection closed while established (TimeWait-style): its connector
 * is gone, but its DREQ is retransmitted as Disconnect's would be, until
 * the peer answers (a DREP, or a DREQ of its own) or the retries run out,
 * so a peer that lost the first one still learns the connection is over.
 * deadline 0: a free slot.
 */
struct swr_cm_linger {
	uint64_t deadline;
	struct swr_neigh *neigh;   /**< next hop cache of rip */
	uint8_t rip[16];
	uint32_t local_id;         /**< the closed connection's */
	uint8_t retries;
	uint8_t mad[NDK_ROCE_MAD_LEN];
};

/** Closed connections whose DREQ is retried at once; beyond: sent once. */
#define SWR_CM_LINGER 32

/*
 * Everything a message or a tick looks up is found in constant time, so
 * that an adapter holds tens of thousands of connections (doc/cm.md,
 * "Scale"): a local communication ID names its pool slot, a REQ's
 * (remote ID, address) is hashed, the timer scan sees only connections
 * with a deadline, callbacks owed wait in a FIFO and ports in use are
 * counted per family.
 */
struct swr_cm {
	struct rte_mempool *pool;  /**< struct swr_conn objects */
	struct swr_conn **slots;   /**< pool objects by swr_conn::slot */
	uint32_t n_slots;
	uint32_t slot_bits;        /**< low bits of a local ID: the slot */
	uint32_t id_xor;           /**< random: local IDs are not guessable */
	struct swr_conn **req_tbl; /**< passive connections by REQ */
	uint32_t req_mask;
	uint32_t *port_use;        /**< [family][port]: connections on it */
	struct swr_conn *conns;
	struct swr_conn *timers;   /**< connections with a deadline */
	struct swr_conn *ev_head;  /**< connections owing callbacks */
	struct swr_conn *ev_tail;
	/** Connections whose kept MAD (REQ, REP, DREQ: first transmission or
	 *  retransmission) waits for the poll's transmit budget. */
	struct swr_conn *tx_head;
	struct swr_conn *tx_tail;
	unsigned int tx_budget;    /**< kept MADs this poll may still send */
	struct swr_lis *listeners;
	struct swr_sep *seps;      /**< shared endpoints holding a port */
	struct swr_conn *dead_conns;  /**< closed on the lcore: free later */
	struct swr_lis *dead_lis;
	/** Closed listeners whose close pends: connectors they handed up
	 *  are still open (swr_lis::refs). */
	struct swr_lis *pend_lis;
	uint32_t gsi_psn;
	uint16_t next_port;
	uint64_t tick;             /**< next timer run (TSC) */
	uint64_t bad_transitions;  /**< state changes the table refused */
	uint64_t qp_errors_seen;   /**< qp_errors of every queue, last tick */
	struct ndk_cm_params params;  /**< ndk_adapter_set_cm_params() */
	unsigned int n_linger;     /**< slots of linger[] in use */
	struct swr_cm_linger linger[SWR_CM_LINGER];
};

/* swroce_cm_fsm.c: the state machine (polling thread) */

/** Name of connection state @p s for logs ("?" when out of range). */
const char *swr_cm_state_name(unsigned int s);

/** Name of event @p ev for logs ("?" when out of range). */
const char *swr_cm_event_name(unsigned int ev);

/** Does the table let @p ev move a connection from @p from to @p to? */
bool swr_cm_fsm_allows(unsigned int from, unsigned int to, unsigned int ev);

/**
 * The one way a connection changes state: check the move against the
 * table, log it (debug) and make it; a move the table does not have is
 * logged (error), counted (swr_cm::bad_transitions) and not made.
 * @return 0, or -EPERM if refused (the caller handles it as the protocol
 * does a message or call that does not fit the state).
 */
int swr_cm_set_state(struct swr_conn *c, enum swr_cm_state to,
		     enum swr_cm_event ev);

/* swroce_cm.c: the polling thread */

/** Create the connection pool. @return 0 or -ENOMEM. */
int swr_cm_init(struct swr_adapter *ad);

/** Free everything (adapter close; nobody polls any more). */
void swr_cm_fini(struct swr_adapter *ad);

/** A UD packet for QP1 (after ndk_roce_parse). */
void swr_cm_rx(struct swr_adapter *ad, const struct ndk_roce_pkt *p);

/** Timers, callback delivery, freeing closed objects (swr_cm_due()). */
void swr_cm_poll(struct swr_adapter *ad);

/**
 * Whether swr_cm_poll() has anything to do at TSC @p now: objects closed
 * on the lcore to free, a timer tick, callbacks owed, kept MADs waiting
 * for the transmit budget. Inline: every poll of queue 0 asks, and an
 * idle one should cost a few instructions.
 */
static inline bool
swr_cm_due(const struct swr_cm *cm, uint64_t now)
{
	return cm->dead_conns != NULL || cm->dead_lis != NULL ||
		now >= cm->tick || cm->ev_head != NULL || cm->tx_head != NULL;
}

/** A packet arrived on a QP waiting for its RTU: take it as the RTU. */
void swr_cm_qp_rx(struct swr_qp *qp);

/** The QP is being closed: unbind it from its connection. */
void swr_cm_qp_gone(struct swr_qp *qp);

/*
 * CM addresses (the swr_cm_addr form): 16 bytes, an IPv6 address or an
 * IPv4 address IPv4-mapped (::ffff:a.b.c.d), which is also the GID the
 * REQ's path carries; all-zero is the wildcard.
 */

/** True if CM address @p a is an IPv4 one. */
static inline bool
swr_cm_addr_v4(const uint8_t a[16])
{
	return ndk_roce_gid_is_ipv4(a);
}

/**
 * The adapter's address of the family of @p like (IPv4 if it is
 * IPv4-mapped, else IPv6) into @p out. @return false if it has none.
 */
static inline bool
swr_cm_local_addr(const struct swr_adapter *ad, const uint8_t like[16],
		  uint8_t out[16])
{
	if (swr_cm_addr_v4(like)) {
		ndk_roce_gid_from_ipv4(out, ad->ipv4);
		return ad->ipv4 != 0;
	}
	memcpy(out, ad->ipv6, 16);
	return ad->has_ipv6;
}

/** Is (ip, port) used by a listener or connection? (lcore) */
bool swr_cm_port_busy(struct swr_adapter *ad, const uint8_t ip[16],
		      uint16_t port);

/** Pick a free ephemeral port for @p ip, 0 if none. (lcore) */
uint16_t swr_cm_ephemeral(struct swr_adapter *ad, const uint8_t ip[16]);

/**
 * A local port for a new endpoint on @p ip (lcore): *@p port if free,
 * an ephemeral one if *@p port is 0 (written back).
 * @return STATUS_SUCCESS, STATUS_SHARING_VIOLATION (in use) or
 *   STATUS_TOO_MANY_ADDRESSES (no ephemeral port free).
 */
ndk_status_t swr_cm_port_claim(struct swr_adapter *ad, const uint8_t ip[16],
			       uint16_t *port);

/* Shared by swroce_cm.c and swroce_cm_act.c (polling thread) */

/** A message of @p c's connection: its IDs and TID filled in. */
void swr_cm_msg_init(struct ndk_roce_cm_msg *m, uint16_t attr,
		     const struct swr_conn *c);
/**
 * Send DREQ @p m of @p c, which is being closed, and keep retransmitting
 * it after the connector is gone (struct swr_cm_linger).
 */
void swr_cm_send_linger(struct swr_conn *c, const struct ndk_roce_cm_msg *m);
/** Send @p m to @p c's peer; @p retry keeps it for retransmission. */
void swr_cm_send(struct swr_conn *c, const struct ndk_roce_cm_msg *m,
		 bool retry);
/** QP transitions: RESET->INIT, INIT->RTR, RTR->RTS, flush. */
ndk_status_t swr_cm_qp_init(struct swr_qp *qp);
ndk_status_t swr_cm_qp_rtr(struct swr_conn *c);
ndk_status_t swr_cm_qp_rts(struct swr_conn *c);
void swr_cm_qp_flush(struct swr_conn *c);
/**
 * The connection is up (no more timer, no more RTU wait); the caller has
 * moved it to SWR_CM_ESTABLISHED.
 */
void swr_cm_established(struct swr_conn *c);
/** The RTU (or, as @p ev says, what implies it) of an accepted one arrived. */
void swr_cm_accept_done(struct swr_conn *c, enum swr_cm_event ev);

/* Protocol actions started by the API (run through swr_ctl_exec) */
ndk_status_t swr_cm_connect(struct swr_conn *c, const uint8_t *pdata,
			    uint32_t pdata_len);
ndk_status_t swr_cm_complete_connect(struct swr_conn *c);
ndk_status_t swr_cm_accept(struct swr_conn *c, const uint8_t *pdata,
			   uint32_t pdata_len);
ndk_status_t swr_cm_reject(struct swr_conn *c, const uint8_t *pdata,
			   uint32_t pdata_len);
ndk_status_t swr_cm_disconnect(struct swr_conn *c);
/**
 * Owe the disconnect event (reason NDK_DISCONNECT_REASON_QP_ERROR) of
 * every established connection whose QP failed since the last call
 * (the CM's tick; cheap when no queue counted a QP error).
 */
void swr_cm_qp_failures(struct swr_adapter *ad);
/** Tear a connection down for close (REJ or DREQ as its state needs). */
void swr_cm_abort(struct swr_conn *c);

/**
 * The interval an IB CM waits for an answer to a message whose answerer
 * announced CM response timeout @p resp_timeout (4.096 us << n): 2 x
 * packet lifetime + that, in ms, within SWR_CM_RETRY_MS and
 * SWR_CM_MAX_MRA_MS (4.8 s for rdma_cm's 20).
 */
static inline uint32_t
swr_cm_answer_ms(uint8_t resp_timeout)
{
	uint64_t ms = (4096ull << (resp_timeout < 31 ? resp_timeout : 31)) /
		1000000 + 2 * ((4096ull << SWR_CM_PACKET_LIFETIME) / 1000000);

	if (ms < SWR_CM_RETRY_MS)
		ms = SWR_CM_RETRY_MS;
	if (ms > SWR_CM_MAX_MRA_MS)
		ms = SWR_CM_MAX_MRA_MS;
	return (uint32_t)ms;
}

/**
 * @p c's kept MAD is retransmitted as its peer would expect (IB CM): at
 * most the CM parameters' max_cm_retries times, the interval starting at
 * SWR_CM_RETRY_MS and doubling up to swr_cm_answer_ms() of the response
 * timeout our REQs announce (cm_response_timeout), so that a lost MAD is
 * found within a second and a peer that is only slow (thousands of
 * handshakes in flight, a loaded host) gets the time we told it it had.
 */
static inline void
swr_cm_timing(struct swr_conn *c)
{
	const struct ndk_cm_params *p = &c->ad->cm->params;

	c->peer_timing = false;
	c->retry_ms = swr_cm_answer_ms(p->cm_response_timeout);
	c->max_retries = p->max_cm_retries;
}

/**
 * A passive connection's REP is retransmitted as the REQ asks: its CM
 * response timeout (@p resp_timeout, for swr_cm_answer_ms()) and
 * @p max_retries, as the peer's IB CM does with its own messages.
 */
static inline void
swr_cm_peer_timing(struct swr_conn *c, uint8_t resp_timeout,
		   uint8_t max_retries)
{
	c->peer_timing = true;
	c->retry_ms = swr_cm_answer_ms(resp_timeout);
	c->max_retries = max_retries;
}

/**
 * TSC ticks until @p c's next retransmission: SWR_CM_RETRY_MS doubled
 * per retransmission already made, at most c->retry_ms.
 */
static inline uint64_t
swr_cm_retry_tsc(const struct swr_conn *c)
{
	unsigned int done = c->max_retries > c->retries ?
		(unsigned int)(c->max_retries - c->retries) : 0;
	uint64_t ms = (uint64_t)SWR_CM_RETRY_MS << (done < 16 ? done : 16);

	if (ms > c->retry_ms)
		ms = c->retry_ms;
	return swr_us_to_tsc(c->ad, ms * 1000);
}

/** Queue a consumer callback (delivered by swr_cm_poll()). */
static inline void
swr_cm_owe(struct swr_conn *c, uint8_t ev)
{
	struct swr_cm *cm = c->ad->cm;

	c->events |= ev;
	if (c->ev_queued)
		return;
	c->ev_queued = true;
	c->ev_next = NULL;
	if (cm->ev_tail != NULL)
		cm->ev_tail->ev_next = c;
	else
		cm->ev_head = c;
	cm->ev_tail = c;
}

/** Set @p c's retransmission deadline to TSC @p when (non-zero). */
static inline void
swr_cm_arm(struct swr_conn *c, uint64_t when)
{
	struct swr_cm *cm = c->ad->cm;

	if (c->deadline == 0) {
		c->t_prev = NULL;
		c->t_next = cm->timers;
		if (cm->timers != NULL)
			cm->timers->t_prev = c;
		cm->timers = c;
	}
	c->deadline = when;
}

/** No more deadline for @p c. */
static inline void
swr_cm_disarm(struct swr_conn *c)
{
	if (c->deadline == 0)
		return;
	if (c->t_prev != NULL)
		c->t_prev->t_next = c->t_next;
	else
		c->ad->cm->timers = c->t_next;
	if (c->t_next != NULL)
		c->t_next->t_prev = c->t_prev;
	c->deadline = 0;
}

/* swroce_cm_tbl.c: the CM's tables (polling thread) */

/**
 * Create the connection pool of @p n objects and the tables that find
 * them. @return 0 or -ENOMEM (nothing left allocated).
 */
int swr_cm_tables_init(struct swr_adapter *ad, struct swr_cm *cm,
		       uint32_t n);

/** Free the pool and the tables. */
void swr_cm_tables_fini(struct swr_cm *cm);

/**
 * The live connection whose local communication ID is @p local_id and
 * whose peer is @p rip (a message's connection), NULL if none.
 */
struct swr_conn *swr_cm_find(struct swr_adapter *ad, uint32_t local_id,
			     const uint8_t rip[16]);

/**
 * The passive connection the REQ that peer @p rip calls @p remote_id
 * created (a duplicate REQ's), NULL if none.
 */
struct swr_conn *swr_cm_find_req(struct swr_adapter *ad, uint32_t remote_id,
				 const uint8_t rip[16]);

/** Queue @p c to send its kept MAD when the budget allows (once). */
void swr_cm_txq_push(struct swr_conn *c);

/** The first connection waiting to send, taken off the queue; or NULL. */
struct swr_conn *swr_cm_txq_pop(struct swr_cm *cm);

/** Enter new passive connection @p c in the REQ table. */
void swr_cm_req_insert(struct swr_conn *c);

/** Put @p c on the adapter's list of connections (lcore). */
void swr_cm_link(struct swr_conn *c);

/**
 * Take @p c off every list and table of the CM and give back its port
 * and backlog slot (closing it).
 */
void swr_cm_unlink(struct swr_conn *c);

/** Does a connection use (@p ip, @p port)? @p ip all-zero: either family. */
bool swr_cm_port_used(const struct swr_adapter *ad, const uint8_t ip[16],
		      uint16_t port);

/** A fresh local communication ID for @p c (its slot, a new generation). */
void swr_cm_new_local_id(struct swr_conn *c);

/**
 * @p c now uses its local port (c->lip, c->lport) until it is closed:
 * swr_cm_port_busy() sees it.
 */
void swr_cm_port_hold(struct swr_conn *c);

/** One more (@p delta 1) or one less (-1) user of (@p ip, @p port). */
void swr_cm_port_count(struct swr_adapter *ad, const uint8_t ip[16],
		       uint16_t port, int delta);

/**
 * @p c is leaving REQ_RCVD (answered, refused or given up): its listener's
 * backlog has room again (swroce_cm_fsm.c, on every move out of it).
 */
static inline void
swr_cm_answered(struct swr_conn *c)
{
	if (!c->unanswered)
		return;
	c->unanswered = false;
	if (c->lis != NULL)
		c->lis->unanswered--;
}

/** Complete the pending request of @p c with @p st (deferred). */
static inline void
swr_cm_complete(struct swr_conn *c, ndk_status_t st)
{
	c->done_status = st;
	swr_cm_owe(c, SWR_CM_EV_DONE);
}

/* swroce_conn.c: the NDK objects */
ndk_status_t swr_connector_create(struct ndk_adapter *adapter,
				  struct ndk_connector **out);
ndk_status_t swr_listener_create(struct ndk_adapter *adapter,
				 ndk_connect_event_fn event, void *ctx,
				 struct ndk_listener **out);
/**
 * Path MTU code our REQs announce and REQs are capped to: the adapter's
 * max_path_mtu, or the smaller path_mtu of ndk_adapter_set_cm_params().
 */
static inline uint8_t
swr_cm_mtu_code(const struct swr_adapter *ad)
{
	uint32_t mtu = ad->max_path_mtu;

	if (ad->cm->params.path_mtu != 0 && ad->cm->params.path_mtu < mtu)
		mtu = ad->cm->params.path_mtu;
	return ndk_roce_mtu_from_bytes(mtu);
}

/** ndk_adapter_set_cm_params() (values checked by libndk). */
ndk_status_t swr_cm_set_params(struct ndk_adapter *adapter,
			       const struct ndk_cm_params *params);
/** ndk_adapter_get_cm_params(). */
ndk_status_t swr_cm_get_params(struct ndk_adapter *adapter,
			       struct ndk_cm_params *params);
/* swroce_sep.c: shared endpoints */

/** NdkCreateSharedEndpoint (the adapter dispatch entry). */
ndk_status_t swr_sep_create(struct ndk_adapter *adapter,
			    const union ndk_sockaddr *addr,
			    struct ndk_shared_endpoint **out);
/**
 * Drop a reference of @p s (lcore). The last one gives its port back and
 * takes it off the CM's list. @return true if it was the last: the
 * caller then calls swr_sep_finish() off the lcore.
 */
bool swr_sep_unref(struct swr_sep *s);
/** @p c connected through @p s: a reference, on its list (lcore). */
void swr_sep_attach(struct swr_sep *s, struct swr_conn *c);
/**
 * @p c (being closed) leaves its endpoint: off the list, its reference
 * dropped. @return the endpoint if that was the last reference (the
 * caller then calls swr_sep_finish() off the lcore), else NULL.
 */
struct swr_sep *swr_sep_detach(struct swr_conn *c);
/** Free @p s and call its pending close completion (its last act). */
void swr_sep_finish(struct swr_sep *s);
/**
 * Drop a reference on listener @p l (lcore): a connector it handed up is
 * closed, or its own close. @return true if that was the last (the
 * listener, closed, goes to the dead list; the caller then calls its
 * pending close completion, if any, off the lcore).
 */
bool swr_lis_unref(struct swr_adapter *ad, struct swr_lis *l);
/** Free every listener (adapter close); pending closes complete. */
void swr_lis_fini(struct swr_adapter *ad);
/** Adapter close: free every endpoint left (nobody polls any more). */
void swr_sep_fini(struct swr_adapter *ad);

/* A sockaddr as a CM address (IPv4-mapped for AF_INET; wildcards
 * all-zero) and its port (host order). */
void swr_sa_in(const union ndk_sockaddr *sa, uint8_t a[16], uint16_t *port);
/* A CM address and port as a sockaddr (sockaddr_in for an IPv4 one, and
 * for the wildcard if @p family is AF_INET). */
void swr_sa_out(union ndk_sockaddr *sa, const uint8_t a[16], uint16_t port,
		int family);

/** Connector object for an incoming REQ (lcore), NULL if none free. */
struct swr_conn *swr_conn_alloc(struct swr_adapter *ad);
/** Return a connector object to the pool. */
void swr_conn_free(struct swr_conn *c);
/**
 * Unlink a connection that is over for good (closed by its consumer, or a
 * request nobody took) and queue it to be freed at the next poll. (lcore)
 */
void swr_conn_bury(struct swr_conn *c);

#endif /* SWROCE_CM_H */
