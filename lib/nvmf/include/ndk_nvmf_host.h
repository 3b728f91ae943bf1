/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_NVMF_HOST_H
#define NDK_NVMF_HOST_H

/**
 * @file
 * NVMe over Fabrics (RDMA) host: an initiator written on the public NDK
 * API (ndk.h), for an application that embeds it in its own DPDK process.
 *
 * A controller (ndk_nvmf_ctrlr_connect()) is one admin queue and several
 * I/O queues (ndk_nvmf_qpair), each its own QP and CQ connected through an
 * NDK connector with the NVMe/RDMA private data. Every I/O's data buffer
 * is fast-registered on an FR MR of its queue and described by a keyed
 * SGL asking for remote invalidation; when the controller's response does
 * not invalidate the token (SEND with Invalidate), the host invalidates it
 * locally before the I/O completes; unless the buffer lies in a region
 * registered with NDK_NVMF_BUF_REMOTE, whose one long-lived token it
 * carries instead (ndk_nvmf_ctrlr_register_buffers()). Small writes
 * travel as in-capsule data, up to the controller's IOCCSZ: copied into
 * the command's capsule, or sent from the buffer itself when it lies in a
 * registered region.
 *
 * Threads: connect and close are control calls (they block, bounded by
 * the options' timeout). The data path (submit, ndk_nvmf_qpair_poll(),
 * ndk_nvmf_ctrlr_process_admin()) makes no system call, allocates
 * nothing and takes no lock; each queue belongs to one lcore. Somebody
 * polls the adapter: an ndk_poller, or the embedder's loop with
 * ndk_adapter_poll() (then set ndk_nvmf_host_opts::poll_adapter so the
 * blocking calls poll it while they wait).
 *
 * Data buffers lie in DPDK memory (rte_malloc, ndk_adapter_alloc_buffer)
 * and stay untouched until their I/O completes. A buffer may span at
 * most the adapter's frmr_page_count pages of NDK_PAGE_SIZE.
 */

#include <stdbool.h>
#include <stdint.h>

#include "ndk.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Longest NQN, terminating NUL excluded (NVMe-oF 1.1). */
#define NDK_NVMF_NQN_MAX 223
/** Deepest admin queue (entries): Linux nvmet's NVME_AQ_DEPTH. */
#define NDK_NVMF_ADMIN_QUEUE_MAX 32
/** Deepest I/O queue this host builds (entries). */
#define NDK_NVMF_IO_QUEUE_MAX 1024
/** Most I/O queues per controller. */
#define NDK_NVMF_IO_QUEUES_MAX 64
/** Most ranges of one Dataset Management command (ndk_nvmf_deallocate). */
#define NDK_NVMF_DSM_RANGES_MAX 16
/** Most namespaces a controller reports in ndk_nvmf_ctrlr_info. */
#define NDK_NVMF_NS_MAX 32

/** How to reach and use a controller. */
struct ndk_nvmf_host_opts {
	/** Controller IPv4 address, network byte order. */
	uint32_t traddr;
	/** Controller port (host order); 0: 4420. */
	uint16_t trsvcid;
	/** Subsystem NQN (required). */
	char subnqn[NDK_NVMF_NQN_MAX + 1];
	/** Host NQN (required; ndk_nvmf_host_opts_init() makes one). */
	char hostnqn[NDK_NVMF_NQN_MAX + 1];
	/** Host identifier (a UUID; ndk_nvmf_host_opts_init() derives one). */
	uint8_t hostid[16];
	/** Admin queue entries, 2..NDK_NVMF_ADMIN_QUEUE_MAX. Default 32. */
	uint16_t admin_queue_size;
	/**
	 * I/O queue entries, 2..NDK_NVMF_IO_QUEUE_MAX; one I/O fewer may be
	 * outstanding per queue. Default 128.
	 */
	uint16_t io_queue_size;
	/** I/O queues asked for, 1..NDK_NVMF_IO_QUEUES_MAX. Default 1. */
	uint16_t num_io_queues;
	/** Keep-alive timeout in ms (0: none). Default 10000. */
	uint32_t kato_ms;
	/**
	 * Largest I/O in bytes, capped by the controller's MDTS and the
	 * adapter's fast-register page count (frmr_page_count pages: a
	 * buffer that long must be page aligned, an unaligned one spans a
	 * page more). Default 131072.
	 */
	uint32_t max_io_size;
	/**
	 * Bound of every control step (connection, command, CSTS wait) and
	 * of an outstanding I/O, in ms. Default 10000.
	 */
	uint32_t timeout_ms;
	/**
	 * ndk_nvmf_ctrlr_reconnect(): pause between two attempts, in ms.
	 * Default 0 (the attempts follow each other at once).
	 */
	uint32_t reconnect_delay_ms;
	/**
	 * ndk_nvmf_ctrlr_reconnect(): give up when no attempt has succeeded
	 * after this many ms (like the kernel's ctrl_loss_tmo). Default 0:
	 * one attempt only.
	 */
	uint32_t ctrl_loss_tmo_ms;
	/** Never send in-capsule data (every write by keyed SGL). */
	bool no_in_capsule;
	/** The blocking calls poll the adapter while they wait. */
	bool poll_adapter;
};

/**
 * Fill @p opts with the defaults, a host NQN made of the host identifier
 * ("nqn.2014-08.org.nvmexpress:uuid:<hostid>") and a host identifier
 * drawn from rte_rand(). The caller sets traddr and subnqn.
 */
void ndk_nvmf_host_opts_init(struct ndk_nvmf_host_opts *opts);

/** One namespace of a controller. */
struct ndk_nvmf_ns_info {
	uint32_t nsid;          /**< namespace ID */
	uint64_t nsze;          /**< size in logical blocks */
	uint32_t block_size;    /**< bytes per logical block */
};

/** What the controller reported, after ndk_nvmf_ctrlr_connect(). */
struct ndk_nvmf_ctrlr_info {
	uint16_t cntlid;        /**< controller ID */
	uint32_t vs;            /**< VS property */
	uint64_t cap;           /**< CAP property */
	char sn[21];            /**< serial number, trailing spaces cut */
	char mn[41];            /**< model number */
	char fr[9];             /**< firmware revision */
	char subnqn[NDK_NVMF_NQN_MAX + 1]; /**< from Identify */
	uint32_t ioccsz;        /**< I/O command capsule size, bytes */
	uint32_t in_capsule_max;/**< in-capsule data used up to, bytes */
	uint32_t max_io_size;   /**< largest I/O this host sends, bytes */
	uint16_t oncs;          /**< optional NVM commands supported */
	uint16_t kas;           /**< keep-alive granularity, 100 ms units */
	uint32_t kato_ms;       /**< keep-alive timeout in use (0: none) */
	uint16_t num_io_queues; /**< I/O queues connected */
	uint16_t io_queue_depth;/**< I/Os outstanding at most per queue */
	uint32_t nn;            /**< Identify NN */
	uint32_t num_ns;        /**< active namespaces in @p ns */
	uint32_t reconnects;    /**< calls of ndk_nvmf_ctrlr_reconnect() */
	struct ndk_nvmf_ns_info ns[NDK_NVMF_NS_MAX]; /**< active namespaces */
};

/** A controller (admin queue, I/O queues, keep-alive). */
struct ndk_nvmf_ctrlr;
/** One I/O queue of a controller. */
struct ndk_nvmf_qpair;

/**
 * Connect to a controller and bring it up: admin queue (RDMA CM and
 * Fabrics Connect), CAP and VS, CC.EN and CSTS.RDY, Identify controller,
 * Number of Queues, the active namespaces and their Identify, then each
 * I/O queue. Control path: blocks, each step bounded by
 * ndk_nvmf_host_opts::timeout_ms.
 * @param adapter  an open adapter (someone polls it, see the file comment).
 * @param ctrlr    out: the controller.
 * @return 0, -EINVAL (bad options), -ENOMEM, -ECONNREFUSED (rejected: the
 *   NVMe/RDMA reject status or the Connect status is logged),
 *   -ETIMEDOUT, -EPROTO (the controller answered something impossible),
 *   -EIO (a command failed, its status logged), -ENODEV (no adapter).
 */
int ndk_nvmf_ctrlr_connect(struct ndk_adapter *adapter,
			   const struct ndk_nvmf_host_opts *opts,
			   struct ndk_nvmf_ctrlr **ctrlr);

/**
 * Disconnect and free a controller: the I/O queues are disconnected (I/Os
 * still outstanding complete with an aborted status), the controller is
 * shut down (CC.SHN, CSTS.SHST awaited within the timeout), the admin
 * queue disconnected, every QP, CQ, MR and buffer freed. Control path.
 * @return 0, or the first error met (everything is freed regardless).
 */
int ndk_nvmf_ctrlr_close(struct ndk_nvmf_ctrlr *ctrlr);

/**
 * Connect a controller again after its connection was lost (an I/O queue
 * or the admin queue failed: ndk_nvmf_qpair_poll() or
 * ndk_nvmf_ctrlr_process_admin() returned -ENOTCONN), or on demand.
 * Every queue is disconnected and freed first (a controller whose admin
 * queue still works is shut down): commands still outstanding complete
 * with SCT 3h (path related), SC 70h (internal path error) when their
 * queue had failed, SC 71h (aborted by host) otherwise; none is retried.
 * Then the bring-up of ndk_nvmf_ctrlr_connect() runs again, every
 * ndk_nvmf_host_opts::reconnect_delay_ms, until it succeeds or
 * ctrl_loss_tmo_ms has passed. The controller handle stays valid; the
 * I/O queue handles are new (ndk_nvmf_ctrlr_get_qpair() again) and the
 * controller information is read anew (CNTLID, namespaces). Event
 * callback and kept events survive. Control path (blocks).
 * @return 0 (connected), or the last attempt's error as
 *   ndk_nvmf_ctrlr_connect() (the controller then has no queue: call
 *   reconnect again or close it).
 */
int ndk_nvmf_ctrlr_reconnect(struct ndk_nvmf_ctrlr *ctrlr);

/** The controller's identity and limits (valid until close). */
const struct ndk_nvmf_ctrlr_info *
ndk_nvmf_ctrlr_get_info(const struct ndk_nvmf_ctrlr *ctrlr);

/**
 * I/O queue @p i (0 .. num_io_queues - 1), or NULL.
 */
struct ndk_nvmf_qpair *ndk_nvmf_ctrlr_get_qpair(struct ndk_nvmf_ctrlr *ctrlr,
						uint16_t i);

/** Data buffer regions a controller registers at most
 *  (ndk_nvmf_ctrlr_register_buffers()). */
#define NDK_NVMF_BUF_REGIONS_MAX 4

/**
 * ndk_nvmf_ctrlr_register_buffers() flag: the region also gets one
 * long-lived remote token, which every keyed command whose buffer lies in
 * it carries (keyed SGL sub-type 0): no fast register and no
 * invalidation per I/O, but the controller can read and write the whole
 * region for as long as the controller is open (the trade SPDK's host
 * makes, or the Linux host with register_always=N). Without it every
 * keyed command fast-registers its buffer and asks for its token's
 * invalidation.
 */
#define NDK_NVMF_BUF_REMOTE (1u << 0)

/**
 * Register the data buffers in [@p addr, @p addr + @p len) (DPDK memory
 * the caller keeps until ndk_nvmf_ctrlr_close()) with the controller's
 * protection domain. A write whose buffer lies in such a region and that
 * travels as in-capsule data is sent from the buffer itself (one SEND of
 * two SGEs: the command, then the data) instead of being copied into its
 * capsule first. With NDK_NVMF_BUF_REMOTE, keyed commands from the region
 * use its remote token (see there); without, no remote token is made and
 * they are unchanged. The regions stay registered until the controller is
 * closed (they survive ndk_nvmf_ctrlr_reconnect()). Control path.
 * @param flags 0 or NDK_NVMF_BUF_REMOTE.
 * @return 0, -EINVAL (NULL controller or address, zero length, an unknown
 *   flag, or a region overlapping one already registered), -ENOSPC
 *   (NDK_NVMF_BUF_REGIONS_MAX regions already), -ENOMEM (the adapter
 *   would not register it).
 */
int ndk_nvmf_ctrlr_register_buffers(struct ndk_nvmf_ctrlr *ctrlr,
				    void *addr, size_t len, uint32_t flags);

/**
 * Admin queue upkeep on the lcore that owns the controller: its
 * completions and a Keep Alive every KATO/2. Call it at least every few
 * milliseconds while the controller is connected. Data path (no syscall).
 * @return 0, or -ENOTCONN once the admin queue failed or a Keep Alive
 *   went unanswered (the controller must be closed).
 */
int ndk_nvmf_ctrlr_process_admin(struct ndk_nvmf_ctrlr *ctrlr);

/** Completion of a command. */
struct ndk_nvmf_cpl {
	/** Command specific dword 0. */
	uint32_t cdw0;
	/** Command specific dword 1. */
	uint32_t cdw1;
	/**
	 * NVMe status field without the phase bit: 0 on success; the
	 * controller's status, or SCT 3 (path) SC 70h when the queue failed
	 * and SC 71h when the host gave up (timeout, queue closed).
	 */
	uint16_t status;
};

/** Status code type of ndk_nvmf_cpl::status. */
static inline uint8_t
ndk_nvmf_status_sct(uint16_t status)
{
	return (uint8_t)((status >> 9) & 0x7);
}

/** Status code of ndk_nvmf_cpl::status. */
static inline uint8_t
ndk_nvmf_status_sc(uint16_t status)
{
	return (uint8_t)(status >> 1);
}

/** A command's completion callback, called from ndk_nvmf_qpair_poll(). */
typedef void (*ndk_nvmf_cb)(void *arg, const struct ndk_nvmf_cpl *cpl);

/**
 * Read @p nlb blocks at @p lba of namespace @p nsid into @p buf.
 * @return 0 (@p cb will be called exactly once), -EAGAIN (queue full:
 *   every command slot taken, or, rarely, a send queue still holding
 *   command capsules the controller has not acknowledged; submit again
 *   after ndk_nvmf_qpair_poll()), -EINVAL (size past max_io_size, NULL
 *   buffer, zero blocks, unknown namespace), -ENOTCONN (the queue
 *   failed). Data path.
 */
int ndk_nvmf_read(struct ndk_nvmf_qpair *qp, uint32_t nsid, void *buf,
		  uint64_t lba, uint32_t nlb, ndk_nvmf_cb cb, void *arg);

/** Write @p nlb blocks from @p buf at @p lba. As ndk_nvmf_read(). */
int ndk_nvmf_write(struct ndk_nvmf_qpair *qp, uint32_t nsid, const void *buf,
		   uint64_t lba, uint32_t nlb, ndk_nvmf_cb cb, void *arg);

/** Flush namespace @p nsid. As ndk_nvmf_read(). */
int ndk_nvmf_flush(struct ndk_nvmf_qpair *qp, uint32_t nsid, ndk_nvmf_cb cb,
		   void *arg);

/** Write Zeroes to @p nlb blocks at @p lba. As ndk_nvmf_read(). */
int ndk_nvmf_write_zeroes(struct ndk_nvmf_qpair *qp, uint32_t nsid,
			  uint64_t lba, uint32_t nlb, ndk_nvmf_cb cb,
			  void *arg);

/** One range of ndk_nvmf_deallocate(). */
struct ndk_nvmf_range {
	uint64_t lba;   /**< first block */
	uint32_t nlb;   /**< blocks (1 or more) */
};

/**
 * Dataset Management with the deallocate attribute on @p n ranges
 * (1..NDK_NVMF_DSM_RANGES_MAX; copied, the caller may reuse them at
 * once). As ndk_nvmf_read().
 */
int ndk_nvmf_deallocate(struct ndk_nvmf_qpair *qp, uint32_t nsid,
			const struct ndk_nvmf_range *ranges, uint32_t n,
			ndk_nvmf_cb cb, void *arg);

/**
 * Process up to @p max completions of the queue (0: all there are),
 * calling their callbacks; checks the outstanding I/Os against the
 * timeout now and then. Data path.
 * @return I/Os completed (>= 0), or -ENOTCONN once the queue has failed
 *   and every I/O it held has completed.
 */
int ndk_nvmf_qpair_poll(struct ndk_nvmf_qpair *qp, uint32_t max);

/** I/Os submitted and not yet completed on the queue. */
uint32_t ndk_nvmf_qpair_outstanding(const struct ndk_nvmf_qpair *qp);

/** Counters of one queue. */
struct ndk_nvmf_qpair_stats {
	uint64_t submitted;      /**< commands sent */
	uint64_t completed;      /**< callbacks called */
	uint64_t errors;         /**< completions with a non-zero status */
	uint64_t in_capsule;     /**< writes sent as in-capsule data */
	/** Of those, sent from a registered buffer without a copy
	 *  (ndk_nvmf_ctrlr_register_buffers()). */
	uint64_t in_capsule_direct;
	/** Keyed commands that used a region's long-lived token
	 *  (NDK_NVMF_BUF_REMOTE; counted in @p keyed too). */
	uint64_t keyed_region;
	uint64_t keyed;          /**< commands with a keyed SGL */
	uint64_t remote_invalidations; /**< tokens the peer invalidated */
	uint64_t local_invalidations;  /**< tokens we invalidated */
	uint64_t bad_responses;  /**< unknown CID, short or stray response */
	uint64_t timeouts;       /**< I/Os that exceeded the timeout */
};

/** Read a queue's counters. */
void ndk_nvmf_qpair_get_stats(const struct ndk_nvmf_qpair *qp,
			      struct ndk_nvmf_qpair_stats *stats);

/* ------------------------------------------------------------------ */
/* Asynchronous events and log pages                                   */
/* ------------------------------------------------------------------ */

/** Log page identifiers for ndk_nvmf_ctrlr_get_log_page(). */
#define NDK_NVMF_LOG_ERROR 0x01      /**< error information */
#define NDK_NVMF_LOG_SMART 0x02      /**< SMART / health information */
#define NDK_NVMF_LOG_CHANGED_NS 0x04 /**< changed namespace list */
#define NDK_NVMF_LOG_DISCOVERY 0x70  /**< discovery log (discovery ctrlr) */

/** Events kept for ndk_nvmf_ctrlr_get_event() when no callback is set. */
#define NDK_NVMF_EVENTS_MAX 16

/** An asynchronous event the controller reported (AER completion). */
struct ndk_nvmf_async_event {
	uint8_t type;       /**< 0 error, 1 SMART / health, 2 notice, ... */
	uint8_t info;       /**< event information (notice 00h: namespace
			     *   attribute changed; F0h: discovery log
			     *   changed) */
	uint8_t log_page;   /**< the log page that tells more; reading it
			     *   (without RAE) re-arms events of this type */
	uint32_t cdw0;      /**< the whole completion dword 0 */
};

/** Callback of an asynchronous event, from ndk_nvmf_ctrlr_process_admin(). */
typedef void (*ndk_nvmf_event_cb)(void *arg,
				  const struct ndk_nvmf_async_event *ev);

/**
 * Deliver asynchronous events to @p cb (NULL: keep up to
 * NDK_NVMF_EVENTS_MAX of them for ndk_nvmf_ctrlr_get_event(); more are
 * dropped and counted). The host keeps one Asynchronous Event Request
 * outstanding from connect to close (exempt from the command timeout),
 * after Set Features Asynchronous Event Configuration has enabled the
 * notices the controller supports (OAES). Events arrive while
 * ndk_nvmf_ctrlr_process_admin() runs; the callback may submit admin
 * commands (ndk_nvmf_ctrlr_get_log_page()).
 */
void ndk_nvmf_ctrlr_set_event_cb(struct ndk_nvmf_ctrlr *ctrlr,
				 ndk_nvmf_event_cb cb, void *arg);

/**
 * Take the oldest event kept (no callback set). Data path.
 * @return 0 (*@p ev filled), -EAGAIN (none), -EINVAL.
 */
int ndk_nvmf_ctrlr_get_event(struct ndk_nvmf_ctrlr *ctrlr,
			     struct ndk_nvmf_async_event *ev);

/** Events dropped because nobody took them. */
uint64_t ndk_nvmf_ctrlr_events_dropped(const struct ndk_nvmf_ctrlr *ctrlr);

/**
 * Get Log Page @p lid (e.g. 01h error information, 02h SMART / health,
 * 04h changed namespace list, 70h discovery) of namespace @p nsid
 * (FFFFFFFFh: the controller) into @p buf: @p len bytes (a multiple of 4,
 * at most max_io_size) from byte @p offset (a multiple of 4) of the page.
 * @p rae keeps the event that the page reports armed (Retain
 * Asynchronous Event). The command runs on the admin queue: @p cb is
 * called from ndk_nvmf_ctrlr_process_admin(). @p buf lies in DPDK memory
 * and stays untouched until then. Data path.
 * @return 0, -EAGAIN (admin queue full), -EINVAL, -ENOTCONN.
 */
int ndk_nvmf_ctrlr_get_log_page(struct ndk_nvmf_ctrlr *ctrlr, uint8_t lid,
				uint32_t nsid, void *buf, uint32_t len,
				uint64_t offset, bool rae, ndk_nvmf_cb cb,
				void *arg);

/* ------------------------------------------------------------------ */
/* Discovery                                                           */
/* ------------------------------------------------------------------ */

/** The discovery subsystem's well-known NQN. */
#define NDK_NVMF_DISCOVERY_NQN "nqn.2014-08.org.nvmexpress.discovery"

/** One discovery log page entry, its text fields without padding. */
struct ndk_nvmf_disc_entry {
	uint8_t trtype;      /**< transport: 1 RDMA, 3 TCP, ... */
	uint8_t adrfam;      /**< address family: 1 IPv4, 2 IPv6, ... */
	uint8_t subtype;     /**< 1 referral, 2 NVM subsystem, 3 discovery */
	uint8_t treq;        /**< transport requirements */
	uint16_t portid;     /**< port ID */
	uint16_t cntlid;     /**< controller ID (FFFFh: dynamic) */
	uint16_t asqsz;      /**< admin queue size the controller takes */
	char trsvcid[33];    /**< service (port), text */
	char traddr[257];    /**< address, text */
	char subnqn[NDK_NVMF_NQN_MAX + 1]; /**< subsystem NQN */
};

/**
 * Read a discovery controller's log page: connect to the discovery
 * subsystem at @p opts' address (subnqn is ignored; kato_ms 0 is fine),
 * read the header and the entries, read the header again and start over
 * when the generation counter moved (at most a few times), then shut the
 * controller down and disconnect. Control path (blocks, bounded by the
 * options' timeout per step).
 * @param entries  out: up to @p max entries (may be NULL when @p max is 0).
 * @param num      out: the records the page holds (may exceed @p max).
 * @param genctr   out (may be NULL): the generation counter read.
 * @return 0, -EAGAIN (the counter kept moving), or as
 *   ndk_nvmf_ctrlr_connect().
 */
int ndk_nvmf_discover(struct ndk_adapter *adapter,
		      const struct ndk_nvmf_host_opts *opts,
		      struct ndk_nvmf_disc_entry *entries, uint32_t max,
		      uint32_t *num, uint64_t *genctr);

#ifdef __cplusplus
}
#endif

#endif /* NDK_NVMF_HOST_H */
