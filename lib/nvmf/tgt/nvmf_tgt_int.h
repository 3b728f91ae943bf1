/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 ndk-roce authors
 */

/**
 * @file
 * The NVMe-oF target's internals, shared by its modules:
 *
 *  - nvmf_tgt.c    target, subsystems, listeners, data buffers, the poll loop
 *  - nvmf_rdma.c   RDMA transport queue pairs: CM private data, capsules
 *                  over SEND/RECV, data by RDMA READ/WRITE, responses
 *  - nvmf_ctrlr.c  command dispatch, Fabrics commands (Connect, Property
 *                  Get/Set), controller life (enable, reset, shutdown,
 *                  keep-alive)
 *  - nvmf_admin.c  admin commands (Identify, Get Log Page, Features, ...)
 *  - nvmf_disc.c   the discovery log page
 *  - nvmf_io.c     NVM commands (Read, Write, Flush, Write Zeroes, DSM)
 *  - nvmf_bdev.c   namespace back ends (memory; file through io_uring)
 *
 * Command execution does not depend on the NIC: a request (command, data
 * buffer, SGL length) goes into nvmf_req_exec() and its completion comes
 * out through the queue pair's complete() hook, which the RDMA transport
 * (or a unit test) sets.
 */

#ifndef NVMF_TGT_INT_H
#define NVMF_TGT_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <rte_log.h>

#include "ndk.h"
#include "ndk_nvmf.h"
#include "nvme_spec.h"

extern int nvmf_tgt_logtype;
#define NVMF_LOG(level, ...) \
	rte_log(RTE_LOG_ ## level, nvmf_tgt_logtype, "nvmf-tgt: " __VA_ARGS__)

#define NVMF_MAX_NS 32          /**< NSIDs 1..32 per subsystem */
#define NVMF_MAX_HOSTS 16       /**< allowed hosts per subsystem */
#define NVMF_MAX_SUBSYS 16      /**< subsystems, discovery included */
#define NVMF_MAX_LISTENERS 4
#define NVMF_MAX_IO_QUEUES 64
#define NVMF_AER_MAX 4          /**< AERL + 1 */
#define NVMF_ERR_LOG 16         /**< error log entries kept (ELPE + 1) */
#define NVMF_ADMIN_DEPTH 32     /**< admin queue entries we accept */
#define NVMF_PENDING_CONNECTS 16
#define NVMF_NQN_SIZE (NVMF_NQN_MAX_LEN + 1)
#define NVMF_KATO_DEFAULT_MS 120000 /**< when a host asks for none */
#define NVMF_CNTLID_MIN 1
/** Keyed data block descriptors a Last Segment may hold (MSDBD). */
#define NVMF_MAX_SGL_DESC 8
/** Send queue entries of a queue pair beyond two per request, for the
 *  RDMA READs / WRITEs of multi-descriptor commands (reserved per
 *  command: its descriptors but one). */
#define NVMF_SGL_EXTRA_WR (2 * NVMF_MAX_SGL_DESC)
/** Responses a queue pair holds back while it handles a batch of
 *  completions (nvmf_rdma_poll_qpair()): their receives go back to the
 *  receive queue in one list first. */
#define NVMF_HELD_MAX 64

/** request_context kinds (first byte of what it points to). */
enum nvmf_ctx_kind {
	NVMF_CTX_RECV = 1,
	NVMF_CTX_REQ = 2,
	/** A silent response (nvmf_qpair::silent_ctx): reported only when
	 *  it failed or was flushed, its request long freed. */
	NVMF_CTX_SILENT = 3,
};

/** Data direction of a command. */
enum nvmf_xfer {
	NVMF_XFER_NONE = 0,
	NVMF_XFER_H2C = 1,      /**< host to controller (write) */
	NVMF_XFER_C2H = 2,      /**< controller to host (read) */
	NVMF_XFER_BIDI = 3,
};

/** Where a request's data lives. */
enum nvmf_data_loc {
	NVMF_DATA_NONE = 0,
	NVMF_DATA_IN_CAPSULE,   /**< offset SGL: in the receive buffer */
	NVMF_DATA_KEYED,        /**< keyed SGL: in the host's memory */
};

/** A receive buffer (command capsule) of a queue pair. */
struct nvmf_recv {
	uint8_t kind;           /**< NVMF_CTX_RECV */
	uint32_t len;           /**< bytes received */
	uint8_t *buf;           /**< 64-byte command + in-capsule data */
};

struct nvmf_qpair;
struct nvmf_ctrlr;
struct nvmf_ns;

/** One command from receipt to its response's completion. */
struct nvmf_req {
	uint8_t kind;           /**< NVMF_CTX_REQ */
	uint8_t xfer;           /**< enum nvmf_xfer */
	uint8_t loc;            /**< enum nvmf_data_loc */
	bool invalidate;        /**< keyed SGL sub-type Fh: SEND w/ Invalidate */
	bool has_buf;           /**< data is a target data buffer */
	bool in_backend;        /**< handed to a namespace back end */
	uint16_t pending;       /**< work requests not completed yet
				 *   (not its silent RDMA WRITEs) */
	struct nvmf_qpair *qp;
	struct nvmf_recv *recv; /**< its capsule; reposted at completion */
	struct nvme_cmd cmd;    /**< copy of the SQE */
	struct nvme_cpl *cpl;   /**< response capsule (registered memory) */
	uint8_t *data;          /**< data buffer (in-capsule or target's) */
	uint32_t data_token;    /**< local token of @p data for RDMA */
	uint32_t length;        /**< SGL data length */
	uint32_t xfer_len;      /**< C2H: bytes to send back (<= length) */
	uint8_t nseg;           /**< keyed descriptors in @p seg */
	uint8_t extra_wr;       /**< send queue entries reserved beyond 2 */
	uint32_t inv_key;       /**< key to invalidate with the response */
	/** Keyed descriptors, in the order the data fills them. */
	struct nvmf_keyed_seg {
		uint64_t addr;
		uint32_t len;
		uint32_t key;
	} seg[NVMF_MAX_SGL_DESC];
	uint32_t buf_idx;       /**< data buffer index when has_buf */
	struct nvmf_ns *ns;     /**< back-end I/O: its namespace */
	uint8_t bdev_op;        /**< enum nvmf_bdev_op */
	int32_t bdev_res;       /**< worker's result: 0 or -errno */
	uint64_t bdev_off;      /**< byte offset */
	uint64_t bdev_len;      /**< bytes */
	TAILQ_ENTRY(nvmf_req) link; /**< free list / buffer wait queue */
};
TAILQ_HEAD(nvmf_req_list, nvmf_req);

/** Queue pair states. */
enum nvmf_qp_state {
	NVMF_QP_FREE = 0,
	NVMF_QP_ACCEPTING,      /**< REP sent, waiting for the RTU */
	NVMF_QP_ACTIVE,
	NVMF_QP_CLOSING,        /**< draining; freed when nothing is left */
};

/** A queue pair: one RDMA connection, one NVMe submission queue. */
struct nvmf_qpair {
	struct ndk_nvmf_tgt *tgt;
	enum nvmf_qp_state state;
	uint16_t qid;           /**< from the CM request */
	uint16_t entries;       /**< SQ entries (hsqsize + 1) */
	uint16_t sqhd;          /**< SQ head we report */
	uint16_t hrqsize;       /**< host receive queue size */
	uint32_t idx;           /**< slot in tgt->qpairs */
	/** Completion hook: the transport sends the response. */
	void (*complete)(struct nvmf_req *req);
	struct nvmf_ctrlr *ctrlr;
	struct ndk_connector *conn;
	struct ndk_qp *ndkqp;
	struct ndk_cq *cq;
	uint32_t wr_outstanding; /**< posted, not completed (recvs too;
				  *   not the silent RDMA WRITEs and
				  *   responses) */
	uint32_t reqs_busy;     /**< requests taken from the free list */
	bool cm_pending;        /**< accept callback due */
	uint32_t nrecv;
	struct nvmf_recv *recvs;
	struct nvmf_req *reqs;  /**< 2 * entries */
	struct nvmf_req_list free_reqs;
	/** Multi-descriptor commands waiting for send queue room. */
	struct nvmf_req_list sgl_wait;
	uint32_t extra_wr_used; /**< of NVMF_SGL_EXTRA_WR */
	/** NDK_OP_FLAG_INLINE when the adapter takes a response capsule
	 *  inline (copied at the post: no region lookup, no SGE), else 0. */
	uint32_t rsp_flags;
	/** NVMF_CTX_SILENT: the request context of silent responses. */
	uint8_t silent_ctx;
	uint64_t commands;
	/** In a batch of completions: responses are held in @p held. */
	bool holding;
	uint32_t nheld;
	/** Completed requests whose receive and response are not posted
	 *  yet (nvmf_rdma_flush_held()). */
	struct nvmf_req *held[NVMF_HELD_MAX];
};

/** A namespace back end. */
struct nvmf_bdev;

/** A namespace of a subsystem. */
struct nvmf_ns {
	uint32_t nsid;
	uint32_t block_shift;
	uint64_t nblocks;
	uint8_t uuid[16];
	bool read_zeroes;       /**< deallocated blocks read as zeroes */
	struct nvmf_bdev *bdev;
	/** Memory back end registered: Reads are RDMA-written from it
	 *  (nvmf_io_read_direct()); NULL when not (a file, or memory the
	 *  adapter would not register). */
	struct ndk_mr *mr;
	uint32_t ltoken;        /**< @p mr's local token */
};

/** An NVM (or the discovery) subsystem. */
struct ndk_nvmf_subsystem {
	struct ndk_nvmf_tgt *tgt;
	bool used;
	bool discovery;
	bool allow_any_host;
	char nqn[NVMF_NQN_SIZE];
	char sn[21];
	uint32_t nhosts;
	char hosts[NVMF_MAX_HOSTS][NVMF_NQN_SIZE];
	struct nvmf_ns *ns[NVMF_MAX_NS];
};

/** A controller (dynamic model: one per admin queue connect). */
struct nvmf_ctrlr {
	bool used;
	uint16_t cntlid;
	struct ndk_nvmf_subsystem *subsys;
	char hostnqn[NVMF_NQN_SIZE];
	uint8_t hostid[16];
	uint32_t cc;
	uint32_t csts;
	uint32_t kato_ms;
	uint64_t ka_last;       /**< TSC of the last admin command */
	uint32_t nqpairs;       /**< queue pairs attached (admin included) */
	struct nvmf_qpair *admin;
	struct nvmf_qpair *io[NVMF_MAX_IO_QUEUES + 1];
	uint16_t num_io_queues; /**< granted (Set Features Number of Queues) */
	bool num_io_set;
	uint32_t aec;           /**< async event configuration */
	uint32_t vwc;           /**< volatile write cache feature */
	uint32_t feat[16];      /**< other stored features by FID */
	uint32_t naer;
	struct nvmf_req *aer[NVMF_AER_MAX];
	bool ns_changed;        /**< notice pending, changed-ns log filled */
	bool ns_event_masked;   /**< notice sent, log not read yet */
	uint32_t nchanged;
	uint32_t changed[NVMF_MAX_NS];
	bool shn_pending;       /**< CSTS.SHST occurring: syncs under way */
	uint64_t shn_ticket[NVMF_MAX_NS]; /**< per namespace */
	uint64_t err_count;
	struct nvme_error_log_entry errlog[NVMF_ERR_LOG];
	uint64_t host_reads, host_writes, units_read, units_written;
};

/** A listener of the target. */
struct nvmf_listener {
	struct ndk_listener *lis;
	uint32_t ipv4;          /**< address in the discovery log (net order) */
	uint16_t port;
};

/** The target. */
struct ndk_nvmf_tgt {
	struct ndk_nvmf_tgt_config cfg;
	struct ndk_adapter *ad;
	struct ndk_adapter_info info;
	struct ndk_pd *pd;
	char model[41];
	/* Receive buffers and response capsules of all queue pairs. */
	uint8_t *arena;
	size_t arena_qp_size;   /**< bytes per queue pair slot */
	struct ndk_mr *arena_mr;
	uint32_t arena_ltoken;
	/* Data (bounce) buffers. */
	uint8_t *bufs;
	struct ndk_mr *bufs_mr;
	uint32_t bufs_ltoken;
	uint32_t *buf_free;     /**< stack of free indices */
	uint32_t nbuf_free;
	uint32_t *small_free;   /**< free small buffers (nvmf_buf_get()) */
	uint32_t nsmall_free;
	uint32_t nb_small;
	struct nvmf_req_list buf_wait; /**< requests waiting for a buffer */
	/* Objects. */
	struct nvmf_qpair *qpairs;
	/** The queue pairs not FREE, which the poll loop visits. */
	struct nvmf_qpair **live;
	uint32_t nlive;
	struct nvmf_recv *recv_pool;
	struct nvmf_req *req_pool;
	struct nvmf_ctrlr *ctrlrs;
	uint16_t next_cntlid;
	struct ndk_nvmf_subsystem subsys[NVMF_MAX_SUBSYS];
	struct nvmf_listener listeners[NVMF_MAX_LISTENERS];
	uint32_t nlisteners;
	uint64_t genctr;        /**< discovery log generation */
	/* Connect events, handled after the adapter poll. */
	struct ndk_connector *incoming[NVMF_PENDING_CONNECTS];
	uint32_t nincoming;
	uint64_t next_timer;    /**< TSC of the next keep-alive check */
	struct nvmf_bdev *workers[NVMF_MAX_SUBSYS]; /**< file back ends */
	uint32_t nworkers;
	uint8_t *scratch;       /**< log page assembly (hugepage) */
	size_t scratch_size;
	struct ndk_nvmf_tgt_stats stats;
};

/* ---- nvmf_tgt.c ---- */
struct ndk_nvmf_subsystem *nvmf_tgt_find_subsys(struct ndk_nvmf_tgt *tgt,
					       const char *nqn);
bool nvmf_subsys_host_allowed(const struct ndk_nvmf_subsystem *s,
			      const char *hostnqn);
/** A data buffer for @p len bytes: a small one if it fits and one is
 *  free, else a max_io_size one; @return 0 or -ENOBUFS. */
int nvmf_buf_get(struct ndk_nvmf_tgt *tgt, uint32_t len, uint32_t *idx);
void nvmf_buf_put(struct ndk_nvmf_tgt *tgt, uint32_t idx);
uint8_t *nvmf_buf_addr(struct ndk_nvmf_tgt *tgt, uint32_t idx);

/* ---- nvmf_rdma.c ---- */
void nvmf_rdma_connect_event(void *ctx, struct ndk_connector *conn);
void nvmf_rdma_accept_pending(struct ndk_nvmf_tgt *tgt);
unsigned int nvmf_rdma_poll_qpair(struct nvmf_qpair *qp);
void nvmf_qpair_close(struct nvmf_qpair *qp);
void nvmf_rdma_retry_buffers(struct ndk_nvmf_tgt *tgt);
/** Parse the data pointer of @p req (SGL) given @p icd_len bytes of
 *  in-capsule data; @return 0 or an NVMe status field. */
uint16_t nvmf_req_parse_sgl(struct nvmf_req *req, uint32_t icd_len,
			    uint32_t icd_max, uint32_t max_io);
/** Data direction of a command. */
enum nvmf_xfer nvmf_cmd_xfer(const struct nvme_cmd *cmd);

/* ---- nvmf_ctrlr.c ---- */
/** Execute a request whose data (H2C) is in req->data; the completion
 *  comes through req->qp->complete(), now or later. */
void nvmf_req_exec(struct nvmf_req *req);
/** Complete @p req with status (SCT, SC). */
void nvmf_req_complete_status(struct nvmf_req *req, uint8_t sct, uint8_t sc);
/** Complete @p req with its cpl as filled. */
void nvmf_req_complete(struct nvmf_req *req);
void nvmf_ctrlr_qpair_gone(struct nvmf_qpair *qp);
/** Keep-alive expiry and shutdown progress of every controller. */
void nvmf_ctrlr_keep_alive_check(struct ndk_nvmf_tgt *tgt, uint64_t now);
/** CSTS.SHST complete once the shutdown's syncs are done. */
void nvmf_ctrlr_shutdown_check(struct nvmf_ctrlr *c);
void nvmf_ctrlr_ns_changed(struct ndk_nvmf_subsystem *s, uint32_t nsid);
void nvmf_ctrlr_aer_fire(struct nvmf_ctrlr *c);
void nvmf_ctrlr_release_aers(struct nvmf_ctrlr *c);
uint64_t nvmf_ctrlr_cap(const struct ndk_nvmf_tgt *tgt);

/* ---- nvmf_admin.c ---- */
void nvmf_admin_exec(struct nvmf_req *req);

/* ---- nvmf_disc.c ---- */
/** Build the discovery log for @p hostnqn into @p buf; @return bytes. */
size_t nvmf_disc_log(struct ndk_nvmf_tgt *tgt, const char *hostnqn,
		     uint8_t *buf, size_t size);

/* ---- nvmf_io.c ---- */
void nvmf_io_exec(struct nvmf_req *req);
/**
 * A valid Read on an I/O queue of a ready controller, of a namespace
 * whose memory is registered, within its range: point req->data into the
 * namespace, count the read and complete @p req (the response's RDMA
 * WRITE goes from the namespace, nothing is copied), @return true; else
 * false, nothing done (the request takes a data buffer and runs through
 * nvmf_req_exec(), whose checks fail it if it is wrong).
 */
bool nvmf_io_read_direct(struct nvmf_req *req);

/** Count a Read of @p len bytes done for controller @p c (or NULL). */
static inline void
nvmf_count_read(struct ndk_nvmf_tgt *tgt, struct nvmf_ctrlr *c, uint64_t len)
{
	tgt->stats.read_ops++;
	tgt->stats.read_bytes += len;
	if (c != NULL) {
		c->host_reads++;
		c->units_read += len >> 9;
	}
}

/* ---- nvmf_bdev.c ---- */
/** Back-end operations. */
enum nvmf_bdev_op {
	NVMF_BDEV_READ,
	NVMF_BDEV_WRITE,
	NVMF_BDEV_FLUSH,
	NVMF_BDEV_ZEROES,
	NVMF_BDEV_DEALLOC,
};
int nvmf_bdev_create(const struct ndk_nvmf_ns_config *cfg, int socket_id,
		     struct nvmf_bdev **bdev, uint64_t *size, bool *zeroes);
void nvmf_bdev_destroy(struct nvmf_bdev *bdev);
/** The memory of a memory back end (NULL for a file) and its size. */
void *nvmf_bdev_mem(const struct nvmf_bdev *bdev, uint64_t *size);
/**
 * Submit an operation for @p req on its namespace: @p off, @p len in
 * bytes, data in req->data. Either completes @p req (memory) or hands it
 * to the worker (file) and completes it later from nvmf_bdev_poll().
 */
void nvmf_bdev_submit(struct nvmf_req *req, enum nvmf_bdev_op op,
		      uint64_t off, uint64_t len);
/** Ask the back end to make every write so far durable (its worker's
 *  fdatasync()); @return a ticket for nvmf_bdev_sync_done() (0: nothing
 *  to do). */
uint64_t nvmf_bdev_sync_request(struct nvmf_bdev *bdev);
/** Whether the sync of @p ticket is done. */
bool nvmf_bdev_sync_done(struct nvmf_bdev *bdev, uint64_t ticket);
/** Completions of worker-thread back ends; @return how many. */
unsigned int nvmf_bdev_poll(struct ndk_nvmf_tgt *tgt);

#endif /* NVMF_TGT_INT_H */
