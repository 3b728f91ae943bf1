/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_H
#define NDK_H

/**
 * @file
 * ndk-roce public API: Microsoft NDKPI semantics carried into user-space C.
 *
 * Object model (NDKPI): an adapter (one DPDK ethdev port with an IPv4
 * address) is the parent of CQs and PDs; a PD is the parent of MRs and QPs;
 * CQs are antecedents of the QPs that use them. Every object starts with an
 * ndk_object_header and a provider dispatch table. Fast-path calls (posting,
 * polling CQs) are inline wrappers over the dispatch table, like ethdev's.
 *
 * Differences from the kernel NDKPI, all forced by user space:
 * - MDLs become {virtual address, length} pairs in DPDK hugepage memory;
 *   the "logical address" of NDK_SGE is the virtual address. Buffers
 *   come from ndk_adapter_alloc_buffer() (which attached applications
 *   must use: the daemon registers nothing else) or rte_malloc.
 * - ndk_create_xxx() completes inline (STATUS_SUCCESS or an error, never
 *   STATUS_PENDING), which NDKPI allows; ndk_create_xxx_async() takes
 *   NDK's CreateCompletion and returns STATUS_PENDING (ndk_ext.h).
 * - Notification callbacks run on the lcore that polls the adapter (or on
 *   the thread that arms the CQ); they must be short and must not block.
 * - The provider's protocol engines run when the adapter is polled: by an
 *   ndk_poller on a dedicated lcore, or by the embedder's own loop calling
 *   ndk_adapter_poll(). Control calls from other threads are handed to the
 *   polling thread and wait for it.
 * - QPs connect through NDK connectors and listeners (ndk_conn.h: the IB
 *   CM over QP1 with RDMA-CM addressing), or out of band as
 *   ibv_rc_pingpong does: ndk_qp_connect() with the peer's address, QPN
 *   and PSN (ndk_qp_modify() gives verbs-style state control).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ndk_status.h"
#include "ndk_cc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Versions, object types, common types                                */
/* ------------------------------------------------------------------ */

/** Interface version (NDK_VERSION). */
struct ndk_version {
	uint16_t major;
	uint16_t minor;
};

/**
 * Highest NDK interface version this library implements: NDKPI 2.1, whose
 * forms the API has (NdkAcceptEx and NdkCompleteConnectEx with the
 * disconnect callback's provider reason, NDK_RESULT_EX's
 * ProviderErrorCode: ndk_accept(), ndk_complete_connect(),
 * ndk_get_cq_results_ex()). Reported, as NDK wants the provider's highest
 * version, in ndk_adapter_info.version and in every object header. Higher
 * versions are supersets: a consumer of the 1.x forms uses the same calls
 * (a disconnect callback may ignore the reason). NDK's pages do not state
 * the numbers 2.x writes into headers; 2.1 is the interface's own name.
 */
#define NDK_VERSION_MAJOR 2
#define NDK_VERSION_MINOR 1

/** Object types (NDK_OBJECT_TYPE). */
enum ndk_object_type {
	NDK_OBJECT_TYPE_UNDEFINED = 0,
	NDK_OBJECT_TYPE_ADAPTER = 1,
	NDK_OBJECT_TYPE_QP = 2,
	NDK_OBJECT_TYPE_CQ = 3,
	NDK_OBJECT_TYPE_MR = 4,
	NDK_OBJECT_TYPE_MW = 5,
	NDK_OBJECT_TYPE_PD = 6,
	NDK_OBJECT_TYPE_SHARED_ENDPOINT = 7,
	NDK_OBJECT_TYPE_CONNECTOR = 8,
	NDK_OBJECT_TYPE_LISTENER = 9,
	NDK_OBJECT_TYPE_SRQ = 10,
	NDK_OBJECT_TYPE_MAX = 11,
};

/** Header at the start of every NDK object (NDK_OBJECT_HEADER). */
struct ndk_object_header {
	struct ndk_version version;   /**< highest minor of the provider */
	enum ndk_object_type type;    /**< never UNDEFINED */
	void *ndk_reserved[4];        /**< zeroed, never touched by providers */
};

/** Scatter/gather element (NDK_SGE). */
struct ndk_sge {
	/** Buffer address inside a registered region (or any, with INLINE). */
	void *va;
	/** Bytes. */
	uint32_t length;
	/** Local token of the region holding @p va (ignored with INLINE). */
	uint32_t token;
};

/** Completed operation types (NDK_OPERATION_TYPE). */
enum ndk_operation_type {
	NDK_OP_RECEIVE = 1,
	NDK_OP_RECEIVE_AND_INVALIDATE = 0x8001,
	NDK_OP_SEND = 2,
	NDK_OP_FAST_REGISTER = 4,
	NDK_OP_BIND = 8,
	NDK_OP_INVALIDATE = 16,
	NDK_OP_READ = 32,
	NDK_OP_WRITE = 64,
};

/** A completion (NDK_RESULT). */
struct ndk_result {
	ndk_status_t status;
	/** Bytes received; defined for receive completions only. */
	uint32_t bytes_transferred;
	void *qp_context;       /**< QPContext given to ndk_create_qp() */
	void *request_context;  /**< RequestContext given when posting */
};

/** A completion with its type (NDK_RESULT_EX, NDKPI 2.1 layout). */
struct ndk_result_ex {
	ndk_status_t status;
	uint32_t bytes_transferred;
	void *qp_context;
	void *request_context;
	enum ndk_operation_type type;
	/** 0 on success; on failure an enum ndk_provider_error value. */
	uint32_t provider_error;
	/** For NDK_OP_RECEIVE_AND_INVALIDATE: the token invalidated. */
	uintptr_t type_specific;
};

/** Provider error codes carried in ndk_result_ex::provider_error. */
enum ndk_provider_error {
	NDK_PERR_NONE = 0,
	NDK_PERR_FLUSHED,          /**< flushed: QP in error or NdkFlush */
	NDK_PERR_RETRY_EXCEEDED,   /**< transport retries exhausted */
	NDK_PERR_RNR_RETRY_EXCEEDED, /**< RNR retries exhausted */
	NDK_PERR_REM_INV_REQ,      /**< peer NAKed: invalid request */
	NDK_PERR_REM_ACCESS,       /**< peer NAKed: remote access error */
	NDK_PERR_REM_OP,           /**< peer NAKed: remote operational error */
	NDK_PERR_LOC_LEN,          /**< local length error (receive too small) */
	NDK_PERR_LOC_PROT,         /**< local protection error (bad SGE token) */
	NDK_PERR_LOC_QP_OP,        /**< local QP operation error */
	NDK_PERR_BAD_RESP,         /**< unexpected response from the peer */
};

/* ------------------------------------------------------------------ */
/* Flags                                                               */
/* ------------------------------------------------------------------ */

/** Work-request flags (NDK_OP_FLAG_*). */
#define NDK_OP_FLAG_SILENT_SUCCESS 0x00000001u
#define NDK_OP_FLAG_READ_FENCE 0x00000002u
#define NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT 0x00000004u
#define NDK_OP_FLAG_ALLOW_REMOTE_READ 0x00000008u
#define NDK_OP_FLAG_ALLOW_LOCAL_WRITE 0x00000010u
#define NDK_OP_FLAG_ALLOW_REMOTE_WRITE 0x00000030u
#define NDK_OP_FLAG_INLINE 0x00000040u
#define NDK_OP_FLAG_RDMA_READ_SINK 0x00000080u
/**
 * NdkRead with local invalidate of SGE 0's token. 0x100 as ndkpi.h
 * defines it: the NdkRead DDI page prints 0x200, which is DEFER's value
 * and a documentation erratum.
 */
#define NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE 0x00000100u
#define NDK_OP_FLAG_DEFER 0x00000200u

/** Memory registration flags (NDK_MR_FLAG_*). */
#define NDK_MR_FLAG_ALLOW_LOCAL_READ 0x00000000u
#define NDK_MR_FLAG_ALLOW_LOCAL_WRITE 0x00000001u
#define NDK_MR_FLAG_ALLOW_REMOTE_READ 0x00000002u
#define NDK_MR_FLAG_ALLOW_REMOTE_WRITE 0x00000005u
#define NDK_MR_FLAG_RDMA_READ_SINK 0x00000008u

/** CQ arm types (NDK_CQ_NOTIFY_*). */
#define NDK_CQ_NOTIFY_ERRORS 0
#define NDK_CQ_NOTIFY_ANY 1
#define NDK_CQ_NOTIFY_SOLICITED 2

/** Adapter flags (NDK_ADAPTER_FLAG_*). */
#define NDK_ADAPTER_FLAG_IN_ORDER_DMA_SUPPORTED 0x00000001u
#define NDK_ADAPTER_FLAG_RDMA_READ_SINK_NOT_REQUIRED 0x00000002u
#define NDK_ADAPTER_FLAG_CQ_INTERRUPT_MODERATION_SUPPORTED 0x00000004u
#define NDK_ADAPTER_FLAG_MULTI_ENGINE_SUPPORTED 0x00000008u
#define NDK_ADAPTER_FLAG_RDMA_READ_LOCAL_INVALIDATE_SUPPORTED 0x00000010u
#define NDK_ADAPTER_FLAG_CQ_RESIZE_SUPPORTED 0x00000100u
#define NDK_ADAPTER_FLAG_LOOPBACK_CONNECTIONS_SUPPORTED 0x00010000u
/**
 * ndk-roce extension: the adapter honours NdkSendAndInvalidate as a
 * receiver (NDK leaves this to out-of-band negotiation; we report it).
 */
#define NDK_ADAPTER_FLAG_X_REMOTE_INVALIDATE_SUPPORTED 0x01000000u

/** Page size of fast-register page lists (NDK's PAGE_SIZE). */
#define NDK_PAGE_SIZE 4096u

/** RDMA technology (NDK_RDMA_TECHNOLOGY). */
enum ndk_rdma_technology {
	NDK_RDMA_UNDEFINED = 0,
	NDK_RDMA_IWARP = 1,
	NDK_RDMA_INFINIBAND = 2,
	NDK_RDMA_ROCE = 3,
	NDK_RDMA_ROCEV2 = 4,
};

/**
 * Adapter limits (NDK_ADAPTER_INFO), followed by user-space extensions
 * (path MTU, addresses, object counts) that NDK carries elsewhere.
 */
struct ndk_adapter_info {
	struct ndk_version version;
	uint32_t vendor_id;
	uint32_t device_id;
	size_t max_registration_size;
	size_t max_window_size;
	uint32_t frmr_page_count;
	uint32_t max_initiator_request_sge;
	uint32_t max_receive_request_sge;
	uint32_t max_read_request_sge;
	uint32_t max_transfer_length;
	uint32_t max_inline_data_size;
	uint32_t max_inbound_read_limit;
	uint32_t max_outbound_read_limit;
	uint32_t max_receive_queue_depth;
	uint32_t max_initiator_queue_depth;
	uint32_t max_srq_depth;
	uint32_t max_cq_depth;
	uint32_t large_request_threshold;
	uint32_t max_caller_data;
	uint32_t max_callee_data;
	uint32_t adapter_flags;
	enum ndk_rdma_technology rdma_technology;
	/* --- user-space extensions --- */
	uint32_t max_path_mtu;  /**< largest RDMA path MTU in bytes */
	uint32_t max_qp;        /**< QPs per adapter */
	uint32_t max_cq;        /**< CQs per adapter */
	uint32_t max_mr;        /**< MRs per adapter */
	uint16_t port_id;       /**< DPDK ethdev port */
	uint8_t mac[6];         /**< adapter MAC (configured or the port's) */
	uint32_t ipv4;          /**< adapter address, network byte order */
	uint16_t nb_queues;     /**< queues (ndk_adapter_poll_queue()) */
	uint8_t ipv6[16];       /**< IPv6 address; all-zero: none */
};

/* ------------------------------------------------------------------ */
/* Callbacks                                                           */
/* ------------------------------------------------------------------ */

/** CQ notification (NDK_FN_CQ_NOTIFICATION_CALLBACK). */
typedef void (*ndk_cq_notify_fn)(void *context, ndk_status_t cq_status);

/** Close completion (NDK_FN_CLOSE_COMPLETION). */
typedef void (*ndk_close_completion_fn)(void *context);

/**
 * SRQ notification (NDK_FN_SRQ_NOTIFICATION_CALLBACK): STATUS_SUCCESS when
 * the receives posted fell below the armed threshold, STATUS_INTERNAL_ERROR
 * when the SRQ died (ndk_srq.h).
 */
typedef void (*ndk_srq_notify_fn)(void *context, ndk_status_t srq_status);

/* Connectors and listeners (the connection manager). */
#include "ndk_conn.h"

/* Introspection: QP lists and QP state snapshots. */
#include "ndk_info.h"

/* ------------------------------------------------------------------ */
/* Objects and dispatch tables                                         */
/* ------------------------------------------------------------------ */

#include "ndk_core.h"

/* Shared receive queues. */
#include "ndk_srq.h"

/* NdkQueryExtension, NdkResizeCq, NdkControlCqInterruptModeration,
 * ndk_receive_list(). */
#include "ndk_ext.h"

/* ------------------------------------------------------------------ */
/* Adapter                                                             */
/* ------------------------------------------------------------------ */

/** How an adapter is opened on a DPDK port. */
struct ndk_adapter_config {
	/**
	 * Provider name; NULL selects the default: "swroce", or "attach" in
	 * a DPDK secondary process, which then uses the adapter of its
	 * primary (ndk-roced) on @p port_id (doc/attach.md).
	 */
	const char *provider;
	/** DPDK ethdev port. */
	uint16_t port_id;
	/**
	 * If true the provider configures and starts the port with
	 * @p nb_queues RX and TX queues, and ndk_adapter_close() stops it;
	 * if false the application did, and queues 0..nb_queues-1 are used.
	 */
	bool configure_port;
	/**
	 * Adapter IPv4 address, network byte order; 0: none (the adapter
	 * then needs @p ipv6). An adapter with both is dual-stack: it
	 * answers ARP and neighbour discovery, and connects and listens
	 * on either family.
	 */
	uint32_t ipv4;
	/** Largest RDMA path MTU in bytes (256..4096); 0 = 4096. */
	uint32_t max_path_mtu;
	/** Object limits; 0 selects the provider default. */
	uint32_t max_qp;
	uint32_t max_cq;
	uint32_t max_mr;
	/**
	 * Packet buffers; NULL lets the provider use a pool of its own for
	 * the port, which lives until the port is destroyed.
	 */
	struct rte_mempool *mbuf_pool;
	/** NUMA socket for memory; SOCKET_ID_ANY (-1) follows the port. */
	int socket_id;
	/**
	 * Adapter MAC address (unicast); all-zero uses the port's. The
	 * provider tries to make it the port's address and, if the port
	 * refuses (net_ring), uses it in software and enables promiscuous
	 * mode. It is the address ARP replies announce and frames carry.
	 */
	uint8_t mac[6];
	/**
	 * RX/TX queue pairs the adapter uses (a power of 2 up to 16; 0 = 1).
	 * QP n is served by queue (n & (nb_queues - 1)); each queue can be
	 * polled by its own lcore (ndk_adapter_poll_queue()). Frames that
	 * arrive on another queue than their QP's are handed over in
	 * software; ARP, ICMP and CM (QP1) are queue 0's.
	 */
	uint16_t nb_queues;
	/**
	 * Adapter IPv6 address (16 bytes, network order); all-zero: none.
	 * Global or unique-local unicast (not ::, loopback, multicast or
	 * IPv4-mapped). The adapter answers neighbour solicitations for it
	 * (sent to its solicited-node group or to it) and ICMPv6 echo.
	 */
	uint8_t ipv6[16];
	/**
	 * Trust the link's own integrity instead of checking the ICRC of
	 * received frames, on links that cannot corrupt a frame (net_ring,
	 * net_memif: memory to memory); refused with a warning on any other
	 * port. Off by default; frames accepted unchecked are counted in
	 * the adapter counter rx_icrc_trusted. Transmitted frames always
	 * carry their ICRC.
	 */
	bool trust_link_crc;
	/**
	 * Congestion control of the adapter's QPs (enum ndk_cc_mode;
	 * doc/cc.md). Whatever it is, a frame received marked CE is answered
	 * with a CNP (at most one per QP per @p cnp_interval_us).
	 */
	uint32_t cc;
	/** DCQCN: the line rate in Mbit/s, a QP's highest (unpaced);
	 *  0 = the port's link speed, or 10000 when it reports none. */
	uint32_t cc_line_mbps;
	/** Smallest interval between two CNPs of a QP, µs; 0 = 50 µs at
	 *  40 Gbit/s, scaled as 40000 / cc_line_mbps (200 µs at 10 Gbit/s). */
	uint32_t cnp_interval_us;
	/** NDK_CC_DELAY: queueing delay allowed over the smallest round
	 *  trip, µs; 0 = 10 µs at 40 Gbit/s scaled as cnp_interval_us. */
	uint32_t cc_delay_us;
	/** NDK_CC_DELAY: a QP's first congestion window, packets; 0 = 16. */
	uint32_t cc_window_init;
	/** NDK_CC_DCQCN: a QP's first rate, Mbit/s (at most the line
	 *  rate); 0 = the line rate (DCQCN's own start). */
	uint32_t cc_start_mbps;
};

/**
 * Open an adapter (NDIS OPEN_NDK_ADAPTER analogue).
 *
 * @return STATUS_SUCCESS, STATUS_INVALID_PARAMETER (bad port, address or
 *   MTU), STATUS_NOT_SUPPORTED (unknown provider), or
 *   STATUS_INSUFFICIENT_RESOURCES.
 */
ndk_status_t ndk_adapter_open(const struct ndk_adapter_config *config,
			      struct ndk_adapter **adapter);

/**
 * Close an adapter. Blocking: when it returns every object of the adapter
 * has been closed and no callback of it is running. Objects still open are
 * closed as if by their close calls (their QPs are flushed first).
 */
void ndk_adapter_close(struct ndk_adapter *adapter);

/**
 * Allocate a buffer the application may register on @p adapter (zeroed,
 * in hugepage memory). Embedded, it comes from the adapter's socket heap;
 * attached to ndk-roced, from the application's own heap in the daemon,
 * the only memory the daemon lets it register (doc/attach.md).
 * Control path: attached, one request to the daemon.
 * @param align a power of two, or 0 for a cache line.
 * @param buf out: the buffer.
 * @return STATUS_SUCCESS, STATUS_INVALID_PARAMETER, STATUS_NO_MEMORY,
 *   STATUS_INSUFFICIENT_RESOURCES or STATUS_DEVICE_REMOVED.
 */
ndk_status_t ndk_adapter_alloc_buffer(struct ndk_adapter *adapter,
				      size_t len, size_t align, void **buf);

/**
 * Free a buffer of ndk_adapter_alloc_buffer() (deregister it first).
 * @return STATUS_SUCCESS, STATUS_INVALID_PARAMETER (not such a buffer) or
 *   STATUS_DEVICE_REMOVED (the daemon freed it already).
 */
ndk_status_t ndk_adapter_free_buffer(struct ndk_adapter *adapter, void *buf);

/**
 * Whether the adapter still works: STATUS_SUCCESS, or
 * STATUS_DEVICE_REMOVED once the daemon an attached application uses has
 * stopped or died. From then on every call on the adapter's objects
 * returns STATUS_DEVICE_REMOVED (closes succeed and free what the
 * application holds); a DPDK secondary process cannot join a restarted
 * daemon, so the application closes its objects and exits. Cheap: a
 * shared-memory read, no syscall.
 */
ndk_status_t ndk_adapter_health(struct ndk_adapter *adapter);

/** Default floor of the adaptive retransmission timeout, microseconds. */
#define NDK_ADAPTIVE_RTO_FLOOR_US 50

/**
 * Adaptive retransmission (on by default, as ConnectX's lossy-RoCE
 * "adaptive retransmission"): each QP keeps a smoothed round-trip time
 * of its requests' answers (SRTT and RTTVAR after RFC 6298, sampled only
 * from requests sent once) and retransmits when no answer came for
 * clamp(SRTT + 4 RTTVAR, @p floor_us, the QP's local ACK timeout),
 * doubling on expiries in a row, instead of waiting the full local ACK
 * timeout. An early retransmission is a duplicate the responder
 * tolerates (IB RC) and spends no retry: the QP still fails with
 * RETRY_EXCEEDED only after retry_cnt + 1 expiries of the full local ACK
 * timeout without progress, so a dead peer is detected as before.
 * Counted in adapter counter adaptive_retransmits and QP event
 * adaptive_retransmits; ndk_qp_query_info() shows srtt_ns and rto_ns.
 *
 * @param enable false: strict IB behaviour, the local ACK timeout alone.
 * @param floor_us smallest adaptive timeout (1 to 1000000); 0 selects
 *   NDK_ADAPTIVE_RTO_FLOOR_US.
 * @return STATUS_SUCCESS (applies to every QP of the adapter from their
 *   next timer arming), STATUS_INVALID_HANDLE, STATUS_INVALID_PARAMETER
 *   (@p floor_us too large), or STATUS_NOT_SUPPORTED (the provider has no
 *   such timer, e.g. an attached application: the daemon's port
 *   configuration decides).
 */
ndk_status_t ndk_adapter_set_adaptive_rto(struct ndk_adapter *adapter,
					  bool enable, uint32_t floor_us);

/**
 * NdkQueryAdapterInfo: copy the adapter's limits.
 * @param size in: size of @p info; out: bytes written (or needed).
 * @return STATUS_SUCCESS or STATUS_BUFFER_TOO_SMALL.
 */
ndk_status_t ndk_query_adapter_info(struct ndk_adapter *adapter,
				    struct ndk_adapter_info *info,
				    uint32_t *size);

/**
 * Run the provider's engines once: receive a burst, run responders,
 * completers, requesters and timers, transmit. An adapter is polled by one
 * thread; the first thread to poll it owns it until ndk_adapter_release().
 * @return number of packets and work items handled (0 when idle).
 */
static inline unsigned int
ndk_adapter_poll(struct ndk_adapter *adapter)
{
	return adapter->dispatch->poll(adapter);
}

/**
 * Poll one queue of an adapter opened with several (nb_queues): its RX
 * queue, frames other queues handed to it, and the QPs it serves; queue
 * 0 also does the adapter-wide work (ARP, CM, control requests). Each
 * queue is owned by the first thread to poll it, so one lcore per queue
 * runs with no lock between them. ndk_adapter_poll() polls every queue.
 * @return work done as ndk_adapter_poll(); 0 for a queue that does not
 * exist or another thread owns.
 */
static inline unsigned int
ndk_adapter_poll_queue(struct ndk_adapter *adapter, uint16_t queue)
{
	if (adapter->dispatch->poll_queue == NULL)
		return queue == 0 ? adapter->dispatch->poll(adapter) : 0;
	return adapter->dispatch->poll_queue(adapter, queue);
}

/**
 * Give up polling ownership (of every queue the calling thread polls) so
 * another thread may poll the adapter.
 */
void ndk_adapter_release(struct ndk_adapter *adapter);

/* The adapter's counters: generic and extended (xstats). */
#include "ndk_stats.h"

/* ------------------------------------------------------------------ */
/* Pollers: dedicated lcores running ndk_adapter_poll()                */
/* ------------------------------------------------------------------ */

struct ndk_poller;

/**
 * Launch a poll loop on worker lcore @p lcore_id over @p n adapters (every
 * queue of each).
 * @return 0 or a negative errno (-EBUSY if the lcore is not free).
 */
int ndk_poller_start(unsigned int lcore_id, struct ndk_adapter *const *adapters,
		     unsigned int n, struct ndk_poller **poller);

/** ndk_poller_start_queues(): poll every queue of the adapter. */
#define NDK_POLL_ALL_QUEUES UINT16_MAX

/**
 * Launch a poll loop on worker lcore @p lcore_id over @p n (adapter,
 * queue) pairs: @p queues[i] is a queue of @p adapters[i], or
 * NDK_POLL_ALL_QUEUES. Give each queue of a multi-queue adapter its own
 * poller to spread it over lcores.
 * @return 0 or a negative errno (-EBUSY if the lcore is not free).
 */
int ndk_poller_start_queues(unsigned int lcore_id,
			    struct ndk_adapter *const *adapters,
			    const uint16_t *queues, unsigned int n,
			    struct ndk_poller **poller);

/** Stop a poll loop, wait for the lcore, release its adapters and free it. */
void ndk_poller_stop(struct ndk_poller *poller);

/* ------------------------------------------------------------------ */
/* CQ                                                                  */
/* ------------------------------------------------------------------ */

/**
 * NdkCreateCq.
 * @param depth entries; STATUS_INVALID_PARAMETER above max_cq_depth.
 * @param notify called once per arm (may be NULL).
 */
ndk_status_t ndk_create_cq(struct ndk_adapter *adapter, uint32_t depth,
			   ndk_cq_notify_fn notify, void *notify_context,
			   struct ndk_cq **cq);

/**
 * NdkCloseCq. @return STATUS_SUCCESS, or STATUS_PENDING while QPs still use
 * the CQ: @p done is then called when the last one is closed.
 */
ndk_status_t ndk_close_cq(struct ndk_cq *cq, ndk_close_completion_fn done,
			  void *context);

/** NdkArmCq: request one notification (NDK_CQ_NOTIFY_*). */
static inline void
ndk_arm_cq(struct ndk_cq *cq, uint32_t type)
{
	cq->dispatch->arm(cq, type);
}

/** NdkGetCqResults: remove up to @p n completions. @return count. */
static inline uint32_t
ndk_get_cq_results(struct ndk_cq *cq, struct ndk_result *results, uint32_t n)
{
	return cq->dispatch->get_results(cq, results, n);
}

/** NdkGetCqResultsEx: same with types and provider codes. */
static inline uint32_t
ndk_get_cq_results_ex(struct ndk_cq *cq, struct ndk_result_ex *results,
		      uint32_t n)
{
	return cq->dispatch->get_results_ex(cq, results, n);
}

/* ------------------------------------------------------------------ */
/* PD and MR                                                           */
/* ------------------------------------------------------------------ */

/** NdkCreatePd. */
ndk_status_t ndk_create_pd(struct ndk_adapter *adapter, struct ndk_pd **pd);

/** NdkClosePd. STATUS_PENDING while MRs or QPs remain (see ndk_close_cq). */
ndk_status_t ndk_close_pd(struct ndk_pd *pd, ndk_close_completion_fn done,
			  void *context);

/**
 * NdkCreateMr. @p fast_register selects a fast-register-only MR (set up
 * with ndk_initialize_fast_register_mr(), mapped by ndk_fast_register());
 * plain MRs are registered with ndk_register_mr().
 */
ndk_status_t ndk_create_mr(struct ndk_pd *pd, bool fast_register,
			   struct ndk_mr **mr);

/**
 * NdkRegisterMr: register @p length bytes at @p va, which must lie in DPDK
 * memory (rte_malloc, mempools, memzones). @p flags NDK_MR_FLAG_*.
 * @return STATUS_SUCCESS, STATUS_INVALID_PARAMETER (not DPDK memory, zero
 *   length, too large, unknown flags), STATUS_INVALID_DEVICE_STATE (already
 *   registered), STATUS_INVALID_DEVICE_REQUEST (a fast-register MR),
 *   STATUS_INSUFFICIENT_RESOURCES (table full), STATUS_DEVICE_BUSY
 *   (deregistered, but frames sent from it are still out: see
 *   ndk_deregister_mr()).
 */
ndk_status_t ndk_register_mr(struct ndk_mr *mr, void *va, size_t length,
			     uint32_t flags);

/**
 * NdkDeregisterMr: after it returns the region's tokens are refused by
 * both local posts and remote peers.
 * @return STATUS_SUCCESS: the memory is the application's again;
 *   STATUS_PENDING: frames the provider sent straight from the region
 *   (zero-copy transmit) are still out, so the memory must stay as it is
 *   until ndk_close_mr() of the MR completes; STATUS_INVALID_DEVICE_STATE
 *   (not registered), STATUS_INVALID_DEVICE_REQUEST (a fast-register MR).
 */
ndk_status_t ndk_deregister_mr(struct ndk_mr *mr);

/**
 * NdkCloseMr (deregisters first if needed). Once it has completed, no
 * frame points into the region any more: the memory is the application's.
 * Frames sent straight from the region (zero-copy transmit, see
 * ndk_deregister_mr()) may still be out when it is called:
 * - with @p done: STATUS_PENDING, and @p done is called on a control
 *   thread (the EAL's interrupt thread, or the thread of a later control
 *   call on the adapter) once the last one is back, or by
 *   ndk_adapter_close();
 * - without (@p done NULL): the call waits for them (the adapter's queues
 *   must keep being polled by their lcores, or by nobody: then the caller
 *   frees what the port has sent) and returns STATUS_SUCCESS. If they are
 *   not back within 5 s (a ring peer that does not receive) it logs an
 *   error and returns STATUS_PENDING: the memory must then stay as it is.
 * Control path: not from a callback run by the adapter's poll.
 */
ndk_status_t ndk_close_mr(struct ndk_mr *mr, ndk_close_completion_fn done,
			  void *context);

/** NdkGetLocalTokenFromMr. */
uint32_t ndk_mr_local_token(struct ndk_mr *mr);

/**
 * NdkGetRemoteTokenFromMr: the R_Key peers put in RETH. For a
 * fast-register MR, the token of the latest ndk_fast_register() posted on
 * it (usable once that request has executed).
 */
uint32_t ndk_mr_remote_token(struct ndk_mr *mr);

/**
 * NdkInitializeFastRegisterMr: make a fast-register MR able to map up to
 * @p page_count NDK_PAGE_SIZE pages; @p remote_access must be true if
 * later fast registers will grant remote rights.
 * @return STATUS_IMPLEMENTATION_LIMIT above frmr_page_count,
 *   STATUS_INVALID_DEVICE_REQUEST on a plain MR, STATUS_INVALID_DEVICE_STATE
 *   while a registration is valid, STATUS_INSUFFICIENT_RESOURCES.
 */
ndk_status_t ndk_initialize_fast_register_mr(struct ndk_mr *mr,
					     uint32_t page_count,
					     bool remote_access);

/** NdkCreateMw: a memory window, bound later with ndk_bind(). */
ndk_status_t ndk_create_mw(struct ndk_pd *pd, struct ndk_mw **mw);

/** NdkCloseMw (invalidates it first if bound). */
ndk_status_t ndk_close_mw(struct ndk_mw *mw, ndk_close_completion_fn done,
			  void *context);

/**
 * NdkGetRemoteTokenFromMw: valid as soon as ndk_bind() returns (the bind
 * itself takes effect in initiator-queue order).
 */
uint32_t ndk_mw_remote_token(struct ndk_mw *mw);

/* ------------------------------------------------------------------ */
/* QP                                                                  */
/* ------------------------------------------------------------------ */

/**
 * NdkCreateQp: a QP in the INIT state (receives may be posted).
 * @return STATUS_INVALID_PARAMETER when a depth, SGE count or inline size
 *   exceeds the adapter limits, or a CQ belongs to another adapter;
 *   STATUS_INSUFFICIENT_RESOURCES when QPs or memory run out.
 */
ndk_status_t ndk_create_qp(struct ndk_pd *pd, struct ndk_cq *receive_cq,
			   struct ndk_cq *initiator_cq, void *qp_context,
			   uint32_t receive_queue_depth,
			   uint32_t initiator_queue_depth,
			   uint32_t max_receive_request_sge,
			   uint32_t max_initiator_request_sge,
			   uint32_t inline_data_size, struct ndk_qp **qp);

/**
 * NdkCloseQp: flushes the QP (outstanding requests complete with
 * STATUS_CANCELLED), detaches it from the lcore and frees it.
 */
ndk_status_t ndk_close_qp(struct ndk_qp *qp, ndk_close_completion_fn done,
			  void *context);

/** NdkFlush: every pending request completes with STATUS_CANCELLED. */
void ndk_flush(struct ndk_qp *qp);

/** IB QP states. */
enum ndk_qp_state {
	NDK_QP_STATE_RESET = 0,
	NDK_QP_STATE_INIT,
	NDK_QP_STATE_RTR,
	NDK_QP_STATE_RTS,
	NDK_QP_STATE_SQD,
	NDK_QP_STATE_SQE,
	NDK_QP_STATE_ERROR,
};

/** Name of a QP state. */
const char *ndk_qp_state_str(enum ndk_qp_state state);

/** QP attributes (ibv_qp_attr analogue for RoCEv2 RC). */
struct ndk_qp_attr {
	enum ndk_qp_state state;
	uint32_t dest_ip;        /**< peer IPv4, network byte order */
	/**
	 * Peer (or gateway) MAC, taken at INIT -> RTR. Non-zero: used as
	 * given (static). All-zero: resolved by ARP from dest_ip (the
	 * adapter's neighbour table); frames wait briefly while the
	 * neighbour is being resolved and are dropped (counted in
	 * neigh_pending_drops) if it does not answer.
	 */
	uint8_t dest_mac[6];
	uint32_t dest_qpn;       /**< peer QP number */
	uint32_t rq_psn;         /**< PSN expected of the peer's first request */
	uint32_t sq_psn;         /**< PSN of our first request */
	uint32_t path_mtu;       /**< bytes: 256, 512, 1024, 2048 or 4096 */
	uint8_t max_rd_atomic;   /**< ORD: our outstanding READs */
	uint8_t max_dest_rd_atomic; /**< IRD: peer READs we serve at once */
	uint8_t timeout;         /**< ACK timeout 4.096 us << n; 0 = none */
	uint8_t retry_cnt;       /**< 0..7; 7 = retry forever */
	uint8_t rnr_retry;       /**< 0..7; 7 = retry forever */
	uint8_t min_rnr_timer;   /**< RNR timer code we send in RNR NAKs */
	uint8_t tos;             /**< IPv4 TOS / IPv6 traffic class */
	/**
	 * Peer IPv6 address (16 bytes, network order), used when dest_ip
	 * is 0 (set with NDK_QP_ATTR_AV): the QP then speaks RoCEv2 over
	 * IPv6 from the adapter's IPv6 address, which it must have, and an
	 * all-zero dest_mac is resolved by neighbour discovery.
	 */
	uint8_t dest_ip6[16];
	/**
	 * 1: selective repeat with the peer (doc/recovery.md): it keeps
	 * requests that arrive after a lost one and acknowledges them
	 * selectively, and this QP resends only what was lost; 0: IB's
	 * go-back-N. Both sides must agree: the connection manager sets it
	 * when both offer it; a QP connected by hand sets it only towards an
	 * ndk-roce peer that has it too. Set at INIT -> RTR.
	 */
	uint8_t selective_repeat;
};

/** Which ndk_qp_attr fields a modify sets. */
enum ndk_qp_attr_mask {
	NDK_QP_ATTR_STATE = 1u << 0,
	NDK_QP_ATTR_AV = 1u << 1,   /**< dest_ip or dest_ip6, dest_mac, tos */
	NDK_QP_ATTR_DEST_QPN = 1u << 2,
	NDK_QP_ATTR_RQ_PSN = 1u << 3,
	NDK_QP_ATTR_SQ_PSN = 1u << 4,
	NDK_QP_ATTR_PATH_MTU = 1u << 5,
	NDK_QP_ATTR_MAX_RD_ATOMIC = 1u << 6,
	NDK_QP_ATTR_MAX_DEST_RD_ATOMIC = 1u << 7,
	NDK_QP_ATTR_TIMEOUT = 1u << 8,
	NDK_QP_ATTR_RETRY_CNT = 1u << 9,
	NDK_QP_ATTR_RNR_RETRY = 1u << 10,
	NDK_QP_ATTR_MIN_RNR_TIMER = 1u << 11,
	NDK_QP_ATTR_SELECTIVE_REPEAT = 1u << 12,
};

/**
 * Change QP state and attributes with IB's rules: only the transitions of
 * the IB state table are legal, and each needs its attributes (INIT->RTR:
 * AV, DEST_QPN, RQ_PSN, PATH_MTU; RTR->RTS: SQ_PSN).
 * @return STATUS_INVALID_DEVICE_STATE for an illegal transition,
 *   STATUS_INVALID_PARAMETER for missing or out-of-range attributes.
 */
ndk_status_t ndk_qp_modify(struct ndk_qp *qp, const struct ndk_qp_attr *attr,
			   uint32_t mask);

/** Read the QP's current state and attributes. */
ndk_status_t ndk_qp_query(struct ndk_qp *qp, struct ndk_qp_attr *attr);

/** The QP number peers address (24 bits). */
uint32_t ndk_qp_num(const struct ndk_qp *qp);

/**
 * Connect like ibv_rc_pingpong: INIT -> RTR -> RTS with @p attr. Fields
 * left 0 take defaults: path_mtu = adapter maximum, ORD/IRD = adapter
 * limits, timeout 14 (~67 ms), retry_cnt 7, rnr_retry 7, min_rnr_timer 12.
 */
ndk_status_t ndk_qp_connect(struct ndk_qp *qp, const struct ndk_qp_attr *attr);

/**
 * NdkSend. @p flags SILENT_SUCCESS, READ_FENCE, SEND_AND_SOLICIT_EVENT,
 * INLINE, DEFER.
 * @return STATUS_SUCCESS (one completion will follow unless SILENT_SUCCESS
 *   and success), STATUS_CONNECTION_INVALID (QP not connected),
 *   STATUS_NO_MORE_ENTRIES (initiator queue full), STATUS_DATA_OVERRUN (too
 *   many SGEs or bytes), STATUS_INVALID_PARAMETER (bad flags or inline size).
 *   A failed post never produces a completion.
 */
static inline ndk_status_t
ndk_send(struct ndk_qp *qp, void *request_context, const struct ndk_sge *sgl,
	 uint32_t nsge, uint32_t flags)
{
	return qp->dispatch->send(qp, request_context, sgl, nsge, flags);
}

/** NdkReceive: post a receive buffer (allowed from INIT on). */
static inline ndk_status_t
ndk_receive(struct ndk_qp *qp, void *request_context,
	    const struct ndk_sge *sgl, uint32_t nsge)
{
	return qp->dispatch->receive(qp, request_context, sgl, nsge);
}

/**
 * NdkRead: read @p remote_address (host order, peer's address space) of the
 * region named by @p remote_token into @p sgl. Flags SILENT_SUCCESS,
 * READ_FENCE, RDMA_READ_LOCAL_INVALIDATE, DEFER.
 */
static inline ndk_status_t
ndk_read(struct ndk_qp *qp, void *request_context, const struct ndk_sge *sgl,
	 uint32_t nsge, uint64_t remote_address, uint32_t remote_token,
	 uint32_t flags)
{
	return qp->dispatch->read(qp, request_context, sgl, nsge,
				  remote_address, remote_token, flags);
}

/**
 * NdkWrite: write @p sgl to the peer's region. Flags SILENT_SUCCESS,
 * READ_FENCE, INLINE, DEFER.
 */
static inline ndk_status_t
ndk_write(struct ndk_qp *qp, void *request_context, const struct ndk_sge *sgl,
	  uint32_t nsge, uint64_t remote_address, uint32_t remote_token,
	  uint32_t flags)
{
	return qp->dispatch->write(qp, request_context, sgl, nsge,
				   remote_address, remote_token, flags);
}

/**
 * NdkSendAndInvalidate: a SEND whose last packet carries @p remote_token
 * (IETH); the peer invalidates that token when the receive completes and
 * reports NDK_OP_RECEIVE_AND_INVALIDATE with the token. Completes locally
 * as NDK_OP_SEND. Flags as ndk_send().
 *
 * A token the receiver cannot invalidate (unknown, a plain MR, another
 * PD's, an FRMR or window that is not valid) aborts the connection, as
 * the NDK page requires of the receiving provider (IB: an invalid-request
 * NAK, both QPs to ERROR): the receiver's receive completes
 * STATUS_CONNECTION_ABORTED and this SEND completes
 * STATUS_REMOTE_RESOURCES, both with provider_error NDK_PERR_REM_INV_REQ;
 * later requests on either side flush (STATUS_CANCELLED). The region is
 * left as it was. A receiver that ACKs instead (Linux rxe) lets this SEND
 * succeed and fails only its own receive.
 */
static inline ndk_status_t
ndk_send_and_invalidate(struct ndk_qp *qp, void *request_context,
			const struct ndk_sge *sgl, uint32_t nsge,
			uint32_t flags, uint32_t remote_token)
{
	return qp->dispatch->send_and_invalidate(qp, request_context, sgl, nsge,
						 flags, remote_token);
}

/**
 * NdkFastRegister: map the fast-register MR @p mr onto @p page_count
 * NDK_PAGE_SIZE-aligned pages (@p pages: their addresses in DPDK memory,
 * NDK's "logical addresses") so that [base_va, base_va + length) is
 * reachable through the MR's tokens. @p fbo is the offset of the first byte
 * in the first page; base_va must be fbo + n * NDK_PAGE_SIZE and not 0.
 * Flags: ALLOW_REMOTE_READ, ALLOW_LOCAL_WRITE, ALLOW_REMOTE_WRITE,
 * RDMA_READ_SINK, SILENT_SUCCESS, READ_FENCE, DEFER. The MR gets a new
 * token (ndk_mr_remote_token) at each fast register. Executes in order
 * with the QP's other requests; the MR must be invalid by then.
 * @return STATUS_ACCESS_VIOLATION if remote rights are asked of an MR
 *   initialised without remote access; STATUS_INVALID_PARAMETER for a bad
 *   page list, length or address.
 */
static inline ndk_status_t
ndk_fast_register(struct ndk_qp *qp, void *request_context, struct ndk_mr *mr,
		  uint32_t page_count, const uint64_t *pages, uint32_t fbo,
		  size_t length, uint64_t base_va, uint32_t flags)
{
	return qp->dispatch->fast_register(qp, request_context, mr, page_count,
					   pages, fbo, length, base_va, flags);
}

/**
 * NdkInvalidate: invalidate a fast-registered MR or a bound MW (given by
 * its object header) in order with the QP's other requests. A plain
 * registered MR is refused (STATUS_INVALID_DEVICE_REQUEST): deregister it.
 *
 * A fast-register MR that is already invalid (typically: the peer's
 * SEND with Invalidate invalidated it first, the storage race of target
 * and host both invalidating) completes STATUS_SUCCESS and stays invalid;
 * the QP stays connected. A window that is not bound completes
 * STATUS_INVALID_DEVICE_REQUEST and the QP moves to ERROR.
 */
static inline ndk_status_t
ndk_invalidate(struct ndk_qp *qp, void *request_context,
	       struct ndk_object_header *mr_or_mw, uint32_t flags)
{
	return qp->dispatch->invalidate(qp, request_context, mr_or_mw, flags);
}

/**
 * NdkBind: bind @p mw to [va, va + length) of @p mr with
 * ALLOW_REMOTE_READ and/or ALLOW_REMOTE_WRITE. The window's new token is
 * available from ndk_mw_remote_token() when this returns.
 * @return STATUS_ACCESS_VIOLATION if the MR lacks the rights (remote write
 *   needs an MR registered with local write), STATUS_INVALID_PARAMETER if
 *   the range is outside the MR.
 */
static inline ndk_status_t
ndk_bind(struct ndk_qp *qp, void *request_context, struct ndk_mr *mr,
	 struct ndk_mw *mw, void *va, size_t length, uint32_t flags)
{
	return qp->dispatch->bind(qp, request_context, mr, mw,
				  (uint64_t)(uintptr_t)va, length, flags);
}

/** Per-QP counters (posting side and engines). */
struct ndk_qp_stats {
	uint64_t posted;          /**< initiator requests accepted */
	uint64_t deferred;        /**< of which posted with DEFER */
	uint64_t chains;          /**< deferred chains released */
	uint64_t chain_requests;  /**< requests in those chains */
	uint64_t chain_max;       /**< longest chain released */
};

/** Read a QP's counters. */
void ndk_qp_get_stats(struct ndk_qp *qp, struct ndk_qp_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* NDK_H */
