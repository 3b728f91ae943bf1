/* SPDX-License-Identifier: BSD-3-Clause */

/**
 * @file
 * The NVMe-oF/RDMA host's private parts: the codecs (host_codec.c: RDMA
 * CM private data, capsules, SGLs, responses), the queue pair
 * (host_qpair_setup.c: QP, CQ, receive ring, slots, fast-register MRs,
 * RDMA CM connection, Fabrics Connect, destruction; host_qpair.c:
 * submission and completion), the controller (host_ctrlr.c) and the I/O
 * commands (host_io.c).
 */

#ifndef NVMF_HOST_PRIV_H
#define NVMF_HOST_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_cycles.h>
#include <rte_log.h>

#include "ndk.h"
#include "ndk_nvmf_host.h"
#include "nvme_spec.h"

extern int nvmf_host_logtype;
#define NVMF_HOST_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, nvmf_host_logtype, "nvmf host: " fmt "\n", \
		##__VA_ARGS__)

/* ------------------------------------------------------------------ */
/* Codecs (host_codec.c): pure functions, unit tested                  */
/* ------------------------------------------------------------------ */

/** Fill an RDMA_CM_REQUEST private data. */
void nvmf_cm_req_encode(struct nvmf_rdma_cm_req *req, uint16_t qid,
			uint16_t hrqsize, uint16_t hsqsize, uint16_t cntlid);

/**
 * Decode an RDMA_CM_ACCEPT private data of @p len bytes.
 * @return 0 (*@p crqsize set), -EPROTO (too short, recfmt not 0, crqsize 0).
 */
int nvmf_cm_rep_decode(const void *pdata, uint32_t len, uint16_t *crqsize);

/**
 * Decode an RDMA_CM_REJECT private data of @p len bytes.
 * @return 0 (*@p sts set to an nvmf_rdma_cm_status), -ENODATA (no
 *   NVMe/RDMA reject in it: too short, recfmt not 0 or status 0).
 */
int nvmf_cm_rej_decode(const void *pdata, uint32_t len, uint16_t *sts);

/** Name of an nvmf_rdma_cm_status. */
const char *nvmf_cm_status_str(uint16_t sts);

/** Name of an NVMe status field ("SCT 1h SC 84h: connect invalid host"). */
const char *nvmf_status_str(uint16_t status, char *buf, size_t len);

/** Fabrics Connect command for queue @p qid of @p qsize entries. */
void nvmf_build_connect(struct nvme_cmd *cmd, uint16_t qid, uint16_t qsize,
			uint32_t kato_ms);

/**
 * Connect data.
 * @return 0, or -EINVAL (an NQN empty or longer than NDK_NVMF_NQN_MAX).
 */
int nvmf_build_connect_data(struct nvmf_connect_data *d,
			    const uint8_t hostid[16], uint16_t cntlid,
			    const char *subnqn, const char *hostnqn);

/** Property Get of @p offset (8 bytes when @p size8). */
void nvmf_build_prop_get(struct nvme_cmd *cmd, uint32_t offset, bool size8);

/** Property Set of @p offset to @p value (4 bytes). */
void nvmf_build_prop_set(struct nvme_cmd *cmd, uint32_t offset,
			 uint32_t value);

/** Identify @p cns of @p nsid. */
void nvmf_build_identify(struct nvme_cmd *cmd, uint8_t cns, uint32_t nsid);

/** Set Features @p fid with CDW11 @p cdw11. */
void nvmf_build_set_features(struct nvme_cmd *cmd, uint8_t fid,
			     uint32_t cdw11);

/** Keep Alive. */
void nvmf_build_keep_alive(struct nvme_cmd *cmd);

/**
 * Get Log Page @p lid of @p nsid: @p len bytes (a multiple of 4) from
 * byte @p offset; @p rae retains the asynchronous event.
 */
void nvmf_build_get_log_page(struct nvme_cmd *cmd, uint8_t lid, uint32_t nsid,
			     uint32_t len, uint64_t offset, bool rae);

/** Asynchronous Event Request. */
void nvmf_build_aer(struct nvme_cmd *cmd);

/** A discovery log entry as the public structure (text padding cut). */
void nvmf_disc_entry_decode(const struct nvmf_disc_entry *e,
			    struct ndk_nvmf_disc_entry *out);

/** Read or Write (@p opc) of @p nlb (1-based) blocks at @p lba. */
void nvmf_build_rw(struct nvme_cmd *cmd, uint8_t opc, uint32_t nsid,
		   uint64_t lba, uint32_t nlb);

/** Flush. */
void nvmf_build_flush(struct nvme_cmd *cmd, uint32_t nsid);

/** Write Zeroes of @p nlb (1-based) blocks at @p lba. */
void nvmf_build_write_zeroes(struct nvme_cmd *cmd, uint32_t nsid,
			     uint64_t lba, uint32_t nlb);

/** Dataset Management, deallocate, @p nr ranges (1-based). */
void nvmf_build_dsm(struct nvme_cmd *cmd, uint32_t nsid, uint32_t nr);

/** SGL 1: in-capsule data of @p len bytes at offset 0. */
void nvmf_sgl_in_capsule(struct nvme_cmd *cmd, uint32_t len);

/** SGL 1: keyed data block, remote invalidation requested. */
void nvmf_sgl_keyed_inv(struct nvme_cmd *cmd, uint64_t addr, uint32_t len,
			uint32_t key);

/** SGL 1: keyed data block, no invalidation (a long-lived key). */
void nvmf_sgl_keyed(struct nvme_cmd *cmd, uint64_t addr, uint32_t len,
		    uint32_t key);

/** SGL 1: no data (a keyed data block of length 0). */
void nvmf_sgl_none(struct nvme_cmd *cmd);

/**
 * Check a received response capsule of @p len bytes against a queue of
 * @p nslots command slots.
 * @return the CID's slot (0 .. nslots - 1), -EPROTO (shorter than a
 *   completion entry), -ENOENT (CID out of range).
 */
int nvmf_cpl_slot(const struct nvme_cpl *cpl, uint32_t len, uint32_t nslots);

struct nvmf_req;

/** What a response means for its command (nvmf_resp_classify()). */
enum nvmf_resp_action {
	NVMF_RESP_DROP,         /**< no command waits for it: drop it */
	NVMF_RESP_DONE,         /**< no token of the command left valid */
	NVMF_RESP_REMOTE_INV,   /**< the controller invalidated its token */
	NVMF_RESP_LOCAL_INV,    /**< its token is valid: invalidate it */
};

/**
 * Classify a response for command slot @p r (NULL: no such CID) that
 * arrived as SEND with Invalidate of @p token when @p inv.
 * @param stray out: @p inv named a token that is not the command's.
 */
enum nvmf_resp_action nvmf_resp_classify(const struct nvmf_req *r, bool inv,
					 uint32_t token, bool *stray);

/** Pages of NDK_PAGE_SIZE that [va, va + len) touches. */
static inline uint32_t
nvmf_page_count(uint64_t va, uint32_t len)
{
	uint64_t first = va & ~(uint64_t)(NDK_PAGE_SIZE - 1);
	uint64_t end = va + len;

	return (uint32_t)((end - first + NDK_PAGE_SIZE - 1) / NDK_PAGE_SIZE);
}

/* ------------------------------------------------------------------ */
/* Queue pair (host_qpair_setup.c, host_qpair.c)                       */
/* ------------------------------------------------------------------ */

/** CQ entries a queue poll takes at a time. */
#define NVMF_QP_POLL_BURST 32

/** Timer cycles of @p ms milliseconds. */
static inline uint64_t
nvmf_ms_to_tsc(uint32_t ms)
{
	return rte_get_timer_hz() / 1000 * ms;
}

/** Direction of a command's data. */
enum nvmf_xfer {
	NVMF_XFER_NONE,
	NVMF_XFER_TO_CTRLR,     /**< host to controller (write) */
	NVMF_XFER_FROM_CTRLR,   /**< controller to host (read) */
};

/** One command slot: its capsule, its FR MR, its completion state. */
struct nvmf_req {
	struct ndk_nvmf_qpair *qp;
	struct nvme_cmd *capsule;     /**< in the queue's capsule region */
	struct ndk_mr *mr;            /**< fast-register MR of the slot */
	uint64_t *pages;              /**< page list for ndk_fast_register */
	uint32_t rkey;                /**< token of the current registration */
	uint16_t cid;                 /**< == slot index */
	uint8_t wr_out;               /**< signaled work requests posted */
	bool busy;                    /**< submitted, callback not yet called */
	bool resp;                    /**< response received */
	bool mr_valid;                /**< rkey registered, not invalidated */
	bool keyed;                   /**< a keyed SGL was sent */
	bool untimed;                 /**< exempt from the timeout (AER) */
	bool quiet_ref;               /**< its capsule SEND is silent and
				       *  not inline: it reads the slot's
				       *  and the caller's buffers */
	uint32_t send_seq;            /**< its SEND's place in the SQ */
	uint32_t inv_seq;             /**< its local invalidate's */
	uint64_t tsc;                 /**< submission time */
	struct nvme_cpl cpl;
	ndk_nvmf_cb cb;
	void *cb_arg;
	struct nvmf_req *next_free;
};

/** A CM request the control path waits for (completed on the poller). */
struct nvmf_cm_wait {
	int done;
	ndk_status_t st;
};

/** One receive buffer (a response capsule). */
struct nvmf_recv {
	struct nvme_cpl *buf;
};

/** Queue pair (admin or I/O): what ndk_nvmf_qpair is. */
struct ndk_nvmf_qpair {
	struct nvmf_ctrlr_base *ctrlr;
	uint16_t qid;
	uint16_t qsize;               /**< entries (Connect SQSIZE + 1) */
	uint16_t nreq;                /**< command slots: qsize - 1 */
	uint32_t capsule_len;         /**< bytes of a slot's capsule buffer */
	uint32_t icd_max;             /**< in-capsule data bytes, 0: none */
	uint32_t max_pages;           /**< pages per FR MR */
	/** NDK_OP_FLAG_INLINE when a 64-byte command goes inline (copied
	 *  at the post: no region lookup at the post nor in the frame),
	 *  else 0. */
	uint32_t cmd_flags;
	/*
	 * Send queue room (qp_submit()): work requests posted (sq_seq) and
	 * known retired (sq_known: up to the last signalled one that
	 * completed; completions come in order), of sq_depth.
	 */
	uint32_t sq_depth;
	uint32_t quiet_run;           /**< silent SENDs since a signalled one */
	uint32_t quiet_max;           /**< at most that many in a row */
	uint32_t sq_seq;
	uint32_t sq_known;
	uint8_t silent_ctx;           /**< request context of silent SENDs */
	uint8_t drain_ctx;            /**< request context of the drain */
	bool failed;
	bool drain_posted;            /**< the drain is posted */
	bool drained;                 /**< the drain behind the flush is back
				       *  (or the QP takes no request) */
	bool connected;
	bool disconnected;            /**< the disconnect event came */
	struct ndk_cq *cq;
	struct ndk_qp *ndkqp;
	struct ndk_connector *conn;
	struct nvmf_cm_wait cm;       /**< the connector's request waited for */
	struct ndk_mr *cap_mr, *rcv_mr;
	struct ndk_mr *drain_mr;      /**< FR MR the drain invalidates */
	uint32_t cap_ltoken, rcv_ltoken;
	uint8_t *cap_region;
	struct nvme_cpl *rcv_region;
	struct nvmf_recv *recvs;
	struct nvmf_req *reqs;
	struct nvmf_req *free_list;
	uint32_t outstanding;
	uint64_t timeout_tsc;
	uint64_t next_check_tsc;
	struct ndk_nvmf_qpair_stats stats;
};

/** A registered data buffer region (ndk_nvmf_ctrlr_register_buffers()). */
struct nvmf_buf_region {
	uint64_t va;
	uint64_t len;
	uint32_t ltoken;
	uint32_t rtoken;        /**< with NDK_NVMF_BUF_REMOTE */
	bool remote;            /**< NDK_NVMF_BUF_REMOTE */
	struct ndk_mr *mr;
};

/** What a queue needs of its controller (host_ctrlr.c fills it). */
struct nvmf_ctrlr_base {
	struct ndk_adapter *ad;
	struct ndk_pd *pd;
	uint32_t nregions;
	struct nvmf_buf_region regions[NDK_NVMF_BUF_REGIONS_MAX];
	struct ndk_nvmf_host_opts opts;
	uint32_t frmr_pages;          /**< adapter frmr_page_count */
	uint32_t max_inline;          /**< adapter max_inline_data_size */
	const struct ndk_nvmf_ctrlr_info *info; /**< namespaces, limits */
};

/** A controller: what ndk_nvmf_ctrlr is. */
struct ndk_nvmf_ctrlr {
	struct nvmf_ctrlr_base base;
	struct ndk_nvmf_ctrlr_info info;
	struct ndk_nvmf_qpair *admin;
	struct ndk_nvmf_qpair *io[NDK_NVMF_IO_QUEUES_MAX];
	uint32_t cc;                 /**< CC as last set */
	void *dma;                   /**< control-path data buffer, 4 KiB */
	bool discovery;              /**< a discovery controller */
	bool closing;                /**< no new AER once set */
	uint64_t ka_interval_tsc;
	uint64_t ka_next_tsc;
	bool ka_pending;
	bool ka_failed;
	/* Asynchronous events (host_events.c) */
	uint32_t oaes;               /**< Identify OAES */
	bool aer_out;                /**< an AER is outstanding */
	ndk_nvmf_event_cb ev_cb;
	void *ev_arg;
	struct ndk_nvmf_async_event ev[NDK_NVMF_EVENTS_MAX];
	uint32_t ev_head, ev_tail;   /**< kept events: [head, tail) */
	uint64_t ev_dropped;
};

/**
 * Admin command on the control path: submit, wait; a non-zero NVMe
 * status is -EIO (logged with @p what).
 */
int nvmf_host_admin_exec(struct ndk_nvmf_ctrlr *c,
			 const struct nvme_cmd *cmd, void *buf, uint32_t len,
			 enum nvmf_xfer xfer, struct nvme_cpl *cpl,
			 const char *what);

/**
 * Enable the asynchronous events the controller supports (Set Features
 * Asynchronous Event Configuration) and post the first AER. Control path.
 */
int nvmf_events_start(struct ndk_nvmf_ctrlr *c);

/**
 * Create queue @p qid of @p qsize entries, connect it (RDMA CM) and run
 * the Fabrics Connect with @p cdata (1024 bytes in DPDK memory).
 * @param icd_max in-capsule data bytes a command may carry (0: none).
 * @param cntlid  out: the controller ID of the Connect response.
 * @return 0 or a negative errno (the queue is destroyed on failure).
 */
int nvmf_qpair_create(struct nvmf_ctrlr_base *c, uint16_t qid, uint16_t qsize,
		      uint32_t icd_max, struct nvmf_connect_data *cdata,
		      uint16_t *cntlid, struct ndk_nvmf_qpair **qpp);

/**
 * Disconnect (bounded), fail what is outstanding, free everything.
 * @return 0 or the disconnect's error.
 */
int nvmf_qpair_destroy(struct ndk_nvmf_qpair *qp);

/**
 * Submit @p cmd (64 bytes, CID set by the queue) with data @p buf of
 * @p len bytes in direction @p xfer. A write of at most icd_max bytes
 * travels in the capsule; other data through the slot's FR MR.
 * @return 0, -EAGAIN, -EINVAL, -ENOTCONN.
 */
int nvmf_qpair_submit(struct ndk_nvmf_qpair *qp, const struct nvme_cmd *cmd,
		      void *buf, uint32_t len, enum nvmf_xfer xfer,
		      ndk_nvmf_cb cb, void *arg);

/**
 * Submit @p cmd without data and without a timeout: for an Asynchronous
 * Event Request, which the controller holds until it has an event.
 * @return as nvmf_qpair_submit().
 */
int nvmf_qpair_submit_untimed(struct ndk_nvmf_qpair *qp,
			      const struct nvme_cmd *cmd, ndk_nvmf_cb cb,
			      void *arg);

/**
 * Submit @p cmd with @p len bytes (at most the staging size, 256) copied
 * into the command's slot first: in the capsule when they fit the
 * in-capsule size, else by keyed SGL from the slot. For small host data
 * the caller cannot keep (Dataset Management ranges).
 * @return as nvmf_qpair_submit().
 */
int nvmf_qpair_submit_staged(struct ndk_nvmf_qpair *qp,
			     const struct nvme_cmd *cmd, const void *data,
			     uint32_t len, ndk_nvmf_cb cb, void *arg);

/**
 * A control-path command: submit, wait (polling the queue, and the
 * adapter when the options say so) at most the options' timeout.
 * @param cpl out: the completion.
 * @return 0 (the command completed; its status is in @p cpl), or a
 *   negative errno (not submitted, or no answer in time: the queue is
 *   then failed).
 */
int nvmf_qpair_exec(struct ndk_nvmf_qpair *qp, const struct nvme_cmd *cmd,
		    void *buf, uint32_t len, enum nvmf_xfer xfer,
		    struct nvme_cpl *cpl);

/**
 * As nvmf_qpair_exec(), the data always by keyed SGL, never in the
 * capsule (the Fabrics Connect, as Linux sends it).
 */
int nvmf_qpair_exec_keyed(struct ndk_nvmf_qpair *qp,
			  const struct nvme_cmd *cmd, void *buf, uint32_t len,
			  enum nvmf_xfer xfer, struct nvme_cpl *cpl);

/**
 * Fail the queue (flushing its QP), poll it until what was posted has
 * come back (bounded by the options' timeout), then complete every
 * command still outstanding with a path status (aborted by host).
 * Control path: before the queue's QP is closed.
 */
void nvmf_qpair_abort_all(struct ndk_nvmf_qpair *qp);

/** Wait helper: poll the adapter when the options say so. */
void nvmf_ctrlr_idle(struct nvmf_ctrlr_base *c);

/** Mark the queue failed and flush its QP (outstanding I/Os abort). */
void nvmf_qpair_fail(struct ndk_nvmf_qpair *qp, const char *why);

#endif /* NVMF_HOST_PRIV_H */
