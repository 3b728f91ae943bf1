/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_PAIR_H
#define NDK_PAIR_H

/**
 * @file
 * Two NDK adapters joined by an in-memory link, in one process, with the
 * connections and registered buffers a program moves data between: what
 * ndk-demo runs on, and the base of the functional tests' fixture
 * (test/common/ndk_pair_test.h adds the test-only helpers).
 *
 * The link is a crossed pair of net_ring ports built with
 * rte_eth_from_rings():
 *
 *     port A: rx = ring BA, tx = ring AB
 *     port B: rx = ring AB, tx = ring BA
 *
 * so whatever A transmits is received by B and vice versa. The adapters are
 * opened with configure_port = true (the provider configures and starts the
 * ports); the ports themselves belong to the pair, which stops and removes
 * them (and frees the rings) when it is destroyed. The adapters are the
 * default provider's (swroce): link it into the program.
 *
 * Side 0 is A (10.0.0.1), side 1 is B (10.0.0.2).
 *
 * Pollers: by default one poller on lcore 1 polls both adapters, leaving
 * the main lcore (0) to the program; with lcore_per_adapter, A is polled by
 * lcore 1 and B by lcore 2; with lcore_per_queue, queue k of both adapters
 * by lcore 1 + k.
 *
 * Everything created through the helpers (connections, buffers) is
 * remembered by the pair, so a program that returns early still has its
 * objects closed, in the right order, by ndk_pair_destroy().
 *
 * Nothing here prints unless something fails (then one line to stderr),
 * except ndk_pair_print_stats().
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ring.h>

#include "ndk.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Side of adapter A (10.0.0.1). */
#define NDK_PAIR_A 0
/** Side of adapter B (10.0.0.2). */
#define NDK_PAIR_B 1

/** Locally administered MAC of adapter side @p s (0 or 1). */
#define NDK_PAIR_MAC(s) { 0x02, 0x00, 0x00, 0x00, 0x00, (uint8_t)((s) + 1) }

/** How a pair is made. Zeroed fields take the defaults in brackets. */
struct ndk_pair_config {
	/** Largest path MTU of both adapters [4096]. */
	uint32_t max_path_mtu;
	/** QPs per adapter [provider default]. */
	uint32_t max_qp;
	/** CQs per adapter [provider default]. */
	uint32_t max_cq;
	/** MRs per adapter [provider default]. */
	uint32_t max_mr;
	/** Slots of each ring, a power of two [4096]. */
	unsigned int ring_size;
	/** Poll A on lcore 1 and B on lcore 2 [one poller, lcore 1]. */
	bool lcore_per_adapter;
	/** Do not start the pollers (start them with ndk_pair_start()). */
	bool no_pollers;
	/**
	 * Make the rings multi-producer, so that frames may be put into them
	 * (ndk_pair_rx_ring()) while the pollers transmit [single-producer
	 * rings: only while the pollers are stopped].
	 */
	bool mp_rings;
	/**
	 * Queues per adapter (ndk_adapter_config.nb_queues), each with its
	 * own ring per direction [1]; at most NDK_PAIR_MAX_QUEUES.
	 */
	uint16_t nb_queues;
	/**
	 * Cross the queues: what A sends on queue k, B receives on queue
	 * k + 1 (mod nb_queues), and back, so frames land on a queue that
	 * does not serve their QP and must be handed over.
	 */
	bool cross_queues;
	/**
	 * One poller per queue: lcore 1 + k polls queue k of both adapters
	 * (overrides lcore_per_adapter).
	 */
	bool lcore_per_queue;
	/**
	 * Addresses of the adapters: NDK_PAIR_IPV4 (10.0.0.1 and 10.0.0.2)
	 * [the default], NDK_PAIR_IPV6 (fd00::1 and fd00::2) or both
	 * (dual-stack adapters).
	 */
	unsigned int families;
	/** ndk_adapter_config.trust_link_crc of both adapters [false]. */
	bool trust_link_crc;
	/** Congestion control of both adapters (ndk_adapter_config.cc)
	 *  [NDK_CC_NONE]. */
	uint32_t cc;
	/** ndk_adapter_config.cc_line_mbps of both [the port's]. */
	uint32_t cc_line_mbps;
	/** ndk_adapter_config.cnp_interval_us of both [the provider's]. */
	uint32_t cnp_interval_us;
	/** ndk_adapter_config.cc_delay_us of both [the provider's]. */
	uint32_t cc_delay_us;
	/** ndk_adapter_config.cc_window_init of both [the provider's]. */
	uint32_t cc_window_init;
	/** ndk_adapter_config.cc_start_mbps of both [the line rate]. */
	uint32_t cc_start_mbps;
};

/** struct ndk_pair_config.families: IPv4 addresses. */
#define NDK_PAIR_IPV4 1u
/** struct ndk_pair_config.families: IPv6 addresses. */
#define NDK_PAIR_IPV6 2u

/** Most queues per adapter (struct ndk_pair_config.nb_queues). */
#define NDK_PAIR_MAX_QUEUES 4

/** The two adapters and their link. */
struct ndk_pair {
	unsigned int id;                   /**< unique in the process */
	char vdev_name[2][48];             /**< net_ring vdev names */
	struct rte_ring *ring_ab;          /**< A transmits, B receives */
	struct rte_ring *ring_ba;          /**< B transmits, A receives */
	uint16_t port[2];                  /**< ethdev ports of A and B */
	struct ndk_adapter *ad[2];         /**< adapters A and B */
	struct ndk_adapter_info info[2];   /**< their information */
	uint32_t ipv4[2];                  /**< network byte order; 0: none */
	uint8_t ipv6[2][16];               /**< all-zero: none */
	uint32_t max_path_mtu;             /**< of both adapters */
	bool lcore_per_adapter;            /**< from the configuration */
	bool mp_rings;                     /**< from the configuration */
	uint16_t nb_queues;                /**< queues per adapter */
	bool lcore_per_queue;              /**< from the configuration */
	/** ring_q[s][k]: side s transmits on queue k (ring_q[.][0] above). */
	struct rte_ring *ring_q[2][NDK_PAIR_MAX_QUEUES];
	struct ndk_poller *poller[NDK_PAIR_MAX_QUEUES]; /**< running pollers */
	unsigned int n_pollers;            /**< running pollers */
	struct ndk_pair_conn *conns;       /**< live connections */
	struct ndk_pair_buf *bufs;         /**< live buffers */
};

/**
 * Create the link, open both adapters and start the pollers.
 * @param config NULL for all defaults.
 * @return the pair, or NULL (reason printed).
 */
struct ndk_pair *ndk_pair_create(const struct ndk_pair_config *config);

/**
 * Stop the pollers, close every connection and buffer still open, close
 * the adapters, stop and remove the ports and free the rings.
 */
void ndk_pair_destroy(struct ndk_pair *pair);

/** Start the pollers (if stopped). @return 0 or a negative errno. */
int ndk_pair_start(struct ndk_pair *pair);

/** Stop the pollers (if running); nobody polls the adapters after. */
void ndk_pair_stop(struct ndk_pair *pair);

/** The ring adapter @p side receives from (the ring its peer transmits into). */
static inline struct rte_ring *
ndk_pair_rx_ring(const struct ndk_pair *pair, int side)
{
	return side == NDK_PAIR_A ? pair->ring_ba : pair->ring_ab;
}

/* The adapters' counters: ndk_adapter_get_stats(), ndk_adapter_xstats_get(). */

/**
 * Print the non-zero extended counters of both adapters, two columns, each
 * line prefixed with @p indent.
 */
void ndk_pair_print_stats(const struct ndk_pair *pair, const char *indent);

/* ------------------------------------------------------------------ */
/* Connections: a PD, CQs and an RC QP on each side, connected         */
/* ------------------------------------------------------------------ */

/** Options of a connection. Zeroed fields take the defaults in brackets. */
struct ndk_pair_conn_opts {
	uint32_t rq_depth;          /**< receive queue depth [64] */
	uint32_t sq_depth;          /**< initiator queue depth [64] */
	uint32_t max_rsge;          /**< receive SGEs [4] */
	uint32_t max_isge;          /**< initiator SGEs [4] */
	uint32_t inline_size;       /**< inline bytes [0] */
	uint32_t cq_depth;          /**< each CQ [rq_depth + sq_depth] */
	bool shared_cq;             /**< one CQ per side for both queues */
	/** Use these PDs instead of creating one per side (NULL: create). */
	struct ndk_pd *pd[2];
	/**
	 * Side s's receives come from SRQ srq[s] (ndk_create_qp_with_srq();
	 * pd[s] must be its PD; rq_depth and max_rsge are then unused)
	 * [NULL: the QP's own receive queue].
	 */
	struct ndk_srq *srq[2];
	/** CQ notification callbacks per side (NULL: none). */
	ndk_cq_notify_fn notify;
	void *notify_ctx[2];
	/** QP context per side [the ndk_pair_conn itself]. */
	void *qp_ctx[2];
	/** Leave the QPs in INIT (connect later with ndk_pair_connect()). */
	bool no_connect;
	/**
	 * Leave dest_mac zero: the adapters resolve each other by ARP (or
	 * neighbour discovery with ipv6).
	 */
	bool resolve_mac;
	/** Connect over IPv6 (the pair needs NDK_PAIR_IPV6) [IPv4]. */
	bool ipv6;
	/* --- connection attributes (see struct ndk_qp_attr) --- */
	uint32_t path_mtu;          /**< [the pair's max_path_mtu] */
	uint8_t timeout;            /**< [provider default] */
	uint8_t retry_cnt;          /**< [provider default] */
	uint8_t rnr_retry;          /**< [provider default] */
	uint8_t min_rnr_timer;      /**< [provider default] */
	uint8_t max_rd_atomic;      /**< [provider default] */
	uint8_t max_dest_rd_atomic; /**< [provider default] */
	/** Selective repeat on both QPs (ndk-roce peers) [0: go-back-N] */
	uint8_t selective_repeat;
	/** Use sq_psn below instead of random PSNs. */
	bool fixed_psn;
	uint32_t sq_psn[2];         /**< first request PSN per side */
};

/** A connected QP pair. Index 0 is on adapter A, 1 on adapter B. */
struct ndk_pair_conn {
	struct ndk_pair *pair;      /**< the pair it lives on */
	struct ndk_pd *pd[2];       /**< PDs of the QPs */
	bool own_pd[2];             /**< pd[s] was created here */
	struct ndk_cq *rcq[2];      /**< receive CQs */
	struct ndk_cq *icq[2];      /**< initiator CQs (== rcq if shared) */
	struct ndk_qp *qp[2];       /**< the QPs */
	uint32_t qpn[2];            /**< their numbers */
	uint32_t sq_psn[2];         /**< first request PSN of each side */
	uint32_t path_mtu;          /**< of both QPs */
	struct ndk_pair_conn_opts opts; /**< with the defaults filled in */
	struct ndk_pair_conn *next; /**< pair's list */
};

/**
 * Create PDs (unless given), CQs and a QP on each adapter and connect the
 * QPs to each other (unless opts->no_connect).
 * @param opts NULL for all defaults.
 * @param st   if not NULL, receives the status of the call that failed.
 * @return the connection, or NULL (reason printed).
 */
struct ndk_pair_conn *ndk_pair_conn_create(struct ndk_pair *pair,
					   const struct ndk_pair_conn_opts *opts,
					   ndk_status_t *st);

/**
 * Connect side @p side's QP to the other side's with ndk_qp_connect()
 * (peer IP, peer MAC, peer QPN, PSNs and the options' attributes).
 */
ndk_status_t ndk_pair_connect(struct ndk_pair_conn *conn, int side);

/** Close QPs, CQs and owned PDs of a connection and forget it. */
void ndk_pair_conn_destroy(struct ndk_pair_conn *conn);

/* ------------------------------------------------------------------ */
/* Buffers: rte_malloc memory with guard bytes, registered             */
/* ------------------------------------------------------------------ */

/** Guard bytes on each side of a buffer's registered area. */
#define NDK_PAIR_GUARD 64
/** Value of every guard byte. */
#define NDK_PAIR_GUARD_BYTE 0xA5

/**
 * A registered buffer:
 *   [guard NDK_PAIR_GUARD][data len][guard NDK_PAIR_GUARD]
 * Only the data area is registered, so a transfer touching one byte
 * outside it is a protection error, and any byte written outside it shows
 * in the guards.
 */
struct ndk_pair_buf {
	struct ndk_pair *pair;      /**< the pair it lives on */
	uint8_t *base;              /**< the allocation */
	uint8_t *data;              /**< the registered area */
	size_t len;                 /**< bytes at data */
	struct ndk_mr *mr;          /**< NULL if not registered */
	uint32_t ltoken;            /**< local token */
	uint32_t rtoken;            /**< remote token */
	struct ndk_pair_buf *next;  /**< pair's list */
};

/**
 * Allocate @p len bytes (zeroed; len 0 allowed: nothing is registered) in
 * DPDK memory, with guards, and register them in @p pd with @p mr_flags
 * (NDK_MR_FLAG_*; pass UINT32_MAX to leave the buffer unregistered).
 * @return the buffer, or NULL (reason printed).
 */
struct ndk_pair_buf *ndk_pair_buf_alloc(struct ndk_pair *pair,
					struct ndk_pd *pd, size_t len,
					uint32_t mr_flags);

/** Deregister, close and free a buffer. */
void ndk_pair_buf_free(struct ndk_pair_buf *buf);

/** @return true if every guard byte of @p buf is intact. */
bool ndk_pair_buf_guards_ok(const struct ndk_pair_buf *buf);

/** An SGE covering @p len bytes at @p off of @p buf. */
static inline struct ndk_sge
ndk_pair_sge(const struct ndk_pair_buf *buf, size_t off, uint32_t len)
{
	struct ndk_sge s = {
		.va = buf->data + off,
		.length = len,
		.token = buf->ltoken,
	};
	return s;
}

/** Remote address of byte @p off of @p buf (for ndk_read/ndk_write). */
static inline uint64_t
ndk_pair_raddr(const struct ndk_pair_buf *buf, size_t off)
{
	return (uint64_t)(uintptr_t)(buf->data + off);
}

/**
 * Fill @p len bytes with the pattern of @p seed (a byte sequence that
 * differs between seeds and does not repeat at short periods).
 */
void ndk_pair_fill(void *dst, size_t len, uint32_t seed);

/**
 * Compare @p len bytes with the pattern of @p seed.
 * @return -1 if equal, else the offset of the first wrong byte.
 */
long ndk_pair_check(const void *src, size_t len, uint32_t seed);

/* ------------------------------------------------------------------ */
/* Completions                                                         */
/* ------------------------------------------------------------------ */

/** Name of an NDK operation type (ndk_names_op()). */
const char *ndk_pair_op_str(enum ndk_operation_type type);

/**
 * Describe a completion ("RECEIVE STATUS_SUCCESS bytes 12 perr 0 qp 0x..
 * req 0x..") into @p buf. @return @p buf.
 */
const char *ndk_pair_result_str(const struct ndk_result_ex *r, char *buf,
				size_t size);

/** Seconds since an arbitrary start (TSC based). */
double ndk_pair_now(void);

#ifdef __cplusplus
}
#endif

#endif /* NDK_PAIR_H */
