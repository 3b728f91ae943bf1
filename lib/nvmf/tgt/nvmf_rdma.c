/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 ndk-roce authors
 */

/*
 * The NVMe/RDMA transport of the target: one RDMA connection per queue
 * pair, set up from the RDMA CM private data; command capsules arrive by
 * SEND into receive buffers of the arena (64-byte command + in-capsule
 * data); keyed SGL data moves by RDMA READ (host to controller) and RDMA
 * WRITE (controller to host) through the target's registered data
 * buffers; the response capsule goes back by SEND, or by SEND with
 * Invalidate when the keyed SGL asked for it (sub-type Fh).
 *
 * A request lives from its capsule's receive completion until its last
 * work request (RDMA READ, the response SEND) has completed; its RDMA
 * WRITEs complete only when they fail (silent success: the SEND behind
 * them completes after them); a response posted inline and silent frees
 * its request at once (nvmf_rdma_respond()); its capsule's receive
 * buffer is posted again just before the response is sent, so the host
 * always finds the receive its next command needs. The responses of the
 * requests that complete while a batch of completions is handled are
 * held back until the batch's receives have been posted again in one
 * list (nvmf_rdma_flush_held()).
 *
 * Queue pair teardown (the host disconnects, the connection fails, a
 * keep-alive expires, the target ends): the QP is flushed, then (from the
 * poll loop) its connector closed, which sends a DREQ without waiting for
 * the DREP; the queue pair is freed once every work request has
 * completed (flushed), every request has come back from its back end and
 * no CM callback is due.
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>

#include "nvmf_tgt_int.h"

#define NVMF_CQ_BATCH 32

static void nvmf_rdma_complete(struct nvmf_req *req);

enum nvmf_xfer
nvmf_cmd_xfer(const struct nvme_cmd *cmd)
{
	if (cmd->opc == NVME_OPC_FABRICS)
		return (enum nvmf_xfer)(((const struct nvmf_cmd *)cmd)->fctype &
					3);
	return (enum nvmf_xfer)(cmd->opc & 3);
}

/*
 * A Last Segment descriptor in the capsule: its in-capsule data (offset
 * sub-type) holds up to NVMF_MAX_SGL_DESC keyed data block descriptors,
 * filled in order. Zero-length ones move nothing.
 */
static uint16_t
nvmf_req_parse_segment(struct nvmf_req *req, uint32_t icd_len,
		       uint32_t icd_max, uint32_t max_io)
{
	const struct nvme_sgl_desc *d = &req->cmd.dptr;
	const struct nvme_sgl_desc *list;
	uint32_t len = nvme_sgl_length(d), n, total = 0;
	uint64_t off = d->addr;
	bool inv_set = false;

	if (NVME_SGL_ID_SUBTYPE(d->id) != NVME_SGL_SUBTYPE_OFFSET)
		/* A segment in host memory: nothing to fetch it with. */
		return nvme_status(NVME_SCT_GENERIC,
				   NVME_SC_SGL_DESC_TYPE_INVALID, 1);
	if (len == 0 || len % sizeof(*d) != 0)
		return nvme_status(NVME_SCT_GENERIC,
				   NVME_SC_INVALID_SGL_SEG_DESC, 1);
	n = len / (uint32_t)sizeof(*d);
	if (n > NVMF_MAX_SGL_DESC)
		return nvme_status(NVME_SCT_GENERIC,
				   NVME_SC_INVALID_NUM_SGL_DESC, 1);
	if (off > icd_max)
		return nvme_status(NVME_SCT_GENERIC,
				   NVME_SC_INVALID_SGL_OFFSET, 1);
	if (len > icd_max - off || len > icd_len || off > icd_len - len)
		return nvme_status(NVME_SCT_GENERIC,
				   NVME_SC_INVALID_SGL_SEG_DESC, 1);
	list = (const void *)(req->recv->buf + sizeof(struct nvme_cmd) + off);
	for (uint32_t i = 0; i < n; i++) {
		struct nvme_sgl_desc e;
		uint8_t type, sub;
		uint32_t l;

		memcpy(&e, &list[i], sizeof(e));     /* may be unaligned */
		type = NVME_SGL_ID_TYPE(e.id);
		sub = NVME_SGL_ID_SUBTYPE(e.id);
		if (type == NVME_SGL_TYPE_SEGMENT ||
		    type == NVME_SGL_TYPE_LAST_SEGMENT)
			return nvme_status(NVME_SCT_GENERIC,
					   NVME_SC_INVALID_SGL_SEG_DESC, 1);
		if (type != NVME_SGL_TYPE_KEYED_DATA_BLOCK ||
		    (sub != NVME_SGL_SUBTYPE_ADDRESS &&
		     sub != NVME_SGL_SUBTYPE_INVALIDATE_KEY))
			return nvme_status(NVME_SCT_GENERIC,
					   NVME_SC_SGL_DESC_TYPE_INVALID, 1);
		/* One key goes with the response (SEND with Invalidate):
		 * the first one asked for; the host invalidates the rest. */
		if (sub == NVME_SGL_SUBTYPE_INVALIDATE_KEY && !inv_set) {
			req->invalidate = true;
			req->inv_key = nvme_sgl_keyed_key(&e);
			inv_set = true;
		}
		l = nvme_sgl_keyed_length(&e);
		if (l > max_io - total)
			return nvme_status(NVME_SCT_GENERIC,
					   NVME_SC_DATA_SGL_LENGTH_INVALID, 1);
		if (l == 0)
			continue;
		total += l;
		req->seg[req->nseg].addr = e.addr;
		req->seg[req->nseg].len = l;
		req->seg[req->nseg].key = nvme_sgl_keyed_key(&e);
		req->nseg++;
	}
	if (total == 0)
		return 0;
	req->loc = NVMF_DATA_KEYED;
	req->length = total;
	return 0;
}

uint16_t
nvmf_req_parse_sgl(struct nvmf_req *req, uint32_t icd_len, uint32_t icd_max,
		   uint32_t max_io)
{
	const struct nvme_sgl_desc *d = &req->cmd.dptr;
	uint8_t type = NVME_SGL_ID_TYPE(d->id);
	uint8_t sub = NVME_SGL_ID_SUBTYPE(d->id);
	uint32_t len;
	uint64_t off;

	req->xfer = (uint8_t)nvmf_cmd_xfer(&req->cmd);
	req->loc = NVMF_DATA_NONE;
	req->length = 0;
	req->xfer_len = 0;
	req->invalidate = false;
	req->nseg = 0;
	req->data = NULL;
	if (req->xfer == NVMF_XFER_NONE)
		return 0;
	if (req->xfer == NVMF_XFER_BIDI)
		return nvme_status(NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD, 1);
	if ((req->cmd.flags & NVME_CMD_PSDT_MASK) == 0)
		return nvme_status(NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD, 1);
	if (type == NVME_SGL_TYPE_KEYED_DATA_BLOCK) {
		if (sub != NVME_SGL_SUBTYPE_ADDRESS &&
		    sub != NVME_SGL_SUBTYPE_INVALIDATE_KEY)
			return nvme_status(NVME_SCT_GENERIC,
					   NVME_SC_SGL_DESC_TYPE_INVALID, 1);
		req->invalidate = sub == NVME_SGL_SUBTYPE_INVALIDATE_KEY;
		req->inv_key = nvme_sgl_keyed_key(d);
		len = nvme_sgl_keyed_length(d);
		if (len == 0)
			return 0;
		if (len > max_io)
			return nvme_status(NVME_SCT_GENERIC,
					   NVME_SC_DATA_SGL_LENGTH_INVALID, 1);
		req->loc = NVMF_DATA_KEYED;
		req->seg[0].addr = d->addr;
		req->seg[0].len = len;
		req->seg[0].key = req->inv_key;
		req->nseg = 1;
		req->length = len;
		return 0;
	}
	if (type == NVME_SGL_TYPE_LAST_SEGMENT)
		return nvmf_req_parse_segment(req, icd_len, icd_max, max_io);
	if (type == NVME_SGL_TYPE_DATA_BLOCK &&
	    sub == NVME_SGL_SUBTYPE_OFFSET) {
		if (req->xfer != NVMF_XFER_H2C)
			return nvme_status(NVME_SCT_GENERIC,
					   NVME_SC_SGL_DESC_TYPE_INVALID, 1);
		off = d->addr;
		len = nvme_sgl_length(d);
		if (off > icd_max)
			return nvme_status(NVME_SCT_GENERIC,
					   NVME_SC_INVALID_SGL_OFFSET, 1);
		if (len > icd_max - off || len > icd_len ||
		    off > icd_len - len)
			return nvme_status(NVME_SCT_GENERIC,
					   NVME_SC_DATA_SGL_LENGTH_INVALID, 1);
		if (len == 0)
			return 0;
		req->loc = NVMF_DATA_IN_CAPSULE;
		req->data = req->recv->buf + sizeof(struct nvme_cmd) + off;
		req->length = len;
		return 0;
	}
	/* An unkeyed data block of length 0 describes no data; with a length
	 * it names host memory the target has no key for. */
	if (type == NVME_SGL_TYPE_DATA_BLOCK &&
	    sub == NVME_SGL_SUBTYPE_ADDRESS && nvme_sgl_length(d) == 0)
		return 0;
	return nvme_status(NVME_SCT_GENERIC, NVME_SC_SGL_DESC_TYPE_INVALID, 1);
}

/* ------------------------------------------------------------------ */
/* Requests                                                            */
/* ------------------------------------------------------------------ */

static void nvmf_rdma_sgl_retry(struct nvmf_qpair *qp);
static bool nvmf_qp_alive(const struct nvmf_qpair *qp);

static void
nvmf_req_free(struct nvmf_req *req)
{
	struct nvmf_qpair *qp = req->qp;

	if (req->has_buf) {
		nvmf_buf_put(qp->tgt, req->buf_idx);
		req->has_buf = false;
	}
	req->recv = NULL;
	TAILQ_INSERT_HEAD(&qp->free_reqs, req, link);
	qp->reqs_busy--;
	qp->tgt->stats.inflight_now--;
	if (req->extra_wr != 0) {
		qp->extra_wr_used -= req->extra_wr;
		req->extra_wr = 0;
		if (nvmf_qp_alive(qp))
			nvmf_rdma_sgl_retry(qp);
	}
}

/* A request whose response went out (or was abandoned): free it when its
 * work requests have completed. */
static void
nvmf_req_release(struct nvmf_req *req)
{
	req->xfer = 0xFF;       /* marks "done" */
	if (req->pending == 0)
		nvmf_req_free(req);
}

static bool
nvmf_req_is_done(const struct nvmf_req *req)
{
	return req->xfer == 0xFF;
}

static bool
nvmf_qp_alive(const struct nvmf_qpair *qp)
{
	return qp->state == NVMF_QP_ACTIVE || qp->state == NVMF_QP_ACCEPTING;
}

/* The receive of @p recv: a command and the in-capsule data. */
static void
nvmf_rdma_recv_sge(const struct nvmf_qpair *qp, struct nvmf_recv *recv,
		   struct ndk_sge *s)
{
	s->va = recv->buf;
	s->length = (uint32_t)sizeof(struct nvme_cmd) +
		qp->tgt->cfg.in_capsule_data_size;
	s->token = qp->tgt->arena_ltoken;
}

static int
nvmf_rdma_post_recv(struct nvmf_qpair *qp, struct nvmf_recv *recv)
{
	struct ndk_sge s;
	ndk_status_t st;

	nvmf_rdma_recv_sge(qp, recv, &s);
	st = ndk_receive(qp->ndkqp, recv, &s, 1);
	if (st != NDK_STATUS_SUCCESS) {
		NVMF_LOG(ERR, "qpair %u: post receive: %s\n", qp->idx,
			 ndk_status_str(st));
		return -EIO;
	}
	qp->wr_outstanding++;
	return 0;
}

/* Data in place (H2C fetched or in-capsule, or a C2H buffer): run it. */
static void
nvmf_rdma_data_ready(struct nvmf_req *req)
{
	struct nvmf_qpair *qp = req->qp;
	struct ndk_sge s;
	ndk_status_t st;

	if (req->loc == NVMF_DATA_KEYED && req->xfer == NVMF_XFER_H2C) {
		uint32_t at = 0;

		/* One RDMA READ per descriptor; the command runs when the
		 * last one has completed (nvmf_rdma_req_wc()). */
		for (uint8_t i = 0; i < req->nseg; i++) {
			s.va = req->data + at;
			s.length = req->seg[i].len;
			s.token = req->data_token;
			st = ndk_read(qp->ndkqp, req, &s, 1, req->seg[i].addr,
				      req->seg[i].key, 0);
			if (st != NDK_STATUS_SUCCESS) {
				NVMF_LOG(ERR, "qpair %u: post read: %s\n",
					 qp->idx, ndk_status_str(st));
				if (req->pending > 0) {
					/* The posted ones still complete. */
					nvmf_qpair_close(qp);
					return;
				}
				nvmf_req_complete_status(req, NVME_SCT_GENERIC,
							 NVME_SC_DATA_TRANSFER_ERROR);
				return;
			}
			at += req->seg[i].len;
			req->pending++;
			qp->wr_outstanding++;
		}
		return;
	}
	nvmf_req_exec(req);
}

/* Give @p req a data buffer, or queue it until one is free. */
static void
nvmf_rdma_need_buf(struct nvmf_req *req)
{
	struct ndk_nvmf_tgt *tgt = req->qp->tgt;

	if (!TAILQ_EMPTY(&tgt->buf_wait) ||
	    nvmf_buf_get(tgt, req->length, &req->buf_idx) != 0) {
		TAILQ_INSERT_TAIL(&tgt->buf_wait, req, link);
		tgt->stats.buffer_waits++;
		return;
	}
	req->has_buf = true;
	req->data = nvmf_buf_addr(tgt, req->buf_idx);
	req->data_token = tgt->bufs_ltoken;
	nvmf_rdma_data_ready(req);
}

void
nvmf_rdma_retry_buffers(struct ndk_nvmf_tgt *tgt)
{
	struct nvmf_req *req;

	while ((req = TAILQ_FIRST(&tgt->buf_wait)) != NULL &&
	       nvmf_buf_get(tgt, req->length, &req->buf_idx) == 0) {
		TAILQ_REMOVE(&tgt->buf_wait, req, link);
		req->has_buf = true;
		req->data = nvmf_buf_addr(tgt, req->buf_idx);
		req->data_token = tgt->bufs_ltoken;
		nvmf_rdma_data_ready(req);
	}
}

/*
 * A multi-descriptor command needs send queue entries beyond the two every
 * request has (its descriptors but one): reserve them, or wait in the
 * queue pair's FIFO until requests that hold some are freed.
 */
static bool
nvmf_rdma_sgl_reserve(struct nvmf_req *req)
{
	struct nvmf_qpair *qp = req->qp;
	uint32_t need = req->nseg - 1u;

	if (qp->extra_wr_used + need > NVMF_SGL_EXTRA_WR)
		return false;
	qp->extra_wr_used += need;
	req->extra_wr = (uint8_t)need;
	return true;
}

static void
nvmf_rdma_sgl_admit(struct nvmf_req *req)
{
	struct nvmf_qpair *qp = req->qp;

	if (!TAILQ_EMPTY(&qp->sgl_wait) || !nvmf_rdma_sgl_reserve(req)) {
		TAILQ_INSERT_TAIL(&qp->sgl_wait, req, link);
		return;
	}
	nvmf_rdma_need_buf(req);
}

/* Requests freed gave send queue entries back: admit the waiting. */
static void
nvmf_rdma_sgl_retry(struct nvmf_qpair *qp)
{
	struct nvmf_req *req;

	while ((req = TAILQ_FIRST(&qp->sgl_wait)) != NULL &&
	       nvmf_rdma_sgl_reserve(req)) {
		TAILQ_REMOVE(&qp->sgl_wait, req, link);
		nvmf_rdma_need_buf(req);
	}
}

/* A command capsule arrived in @p recv (@p len bytes). */
static void
nvmf_rdma_recv(struct nvmf_qpair *qp, struct nvmf_recv *recv, uint32_t len)
{
	struct ndk_nvmf_tgt *tgt = qp->tgt;
	struct nvmf_req *req = TAILQ_FIRST(&qp->free_reqs);
	uint16_t status;

	if (req == NULL || len < sizeof(struct nvme_cmd)) {
		/* More commands than the SQ holds, or a capsule without a
		 * command: the host broke the binding's rules. */
		NVMF_LOG(ERR, "qpair %u: %s: closing\n", qp->idx,
			 req == NULL ? "SQ overflow" : "short capsule");
		nvmf_qpair_close(qp);
		return;
	}
	TAILQ_REMOVE(&qp->free_reqs, req, link);
	qp->reqs_busy++;
	qp->commands++;
	tgt->stats.commands++;
	tgt->stats.qid_commands[RTE_MIN(qp->qid,
					(uint16_t)(NDK_NVMF_STATS_QIDS - 1))]++;
	tgt->stats.inflight_now++;
	req->qp = qp;
	req->recv = recv;
	req->pending = 0;
	req->has_buf = false;
	req->in_backend = false;
	req->ns = NULL;
	memcpy(&req->cmd, recv->buf, sizeof(req->cmd));
	memset(req->cpl, 0, sizeof(*req->cpl));
	qp->sqhd = (uint16_t)((qp->sqhd + 1) % qp->entries);
	status = nvmf_req_parse_sgl(req, len - (uint32_t)sizeof(struct nvme_cmd),
				    tgt->cfg.in_capsule_data_size,
				    tgt->cfg.max_io_size);
	if (status != 0) {
		req->cpl->status = status;
		nvmf_req_complete(req);
		return;
	}
	if (req->loc != NVMF_DATA_KEYED)
		nvmf_req_exec(req);
	else if (req->nseg > 1)
		nvmf_rdma_sgl_admit(req);
	else if (req->xfer != NVMF_XFER_C2H || !nvmf_io_read_direct(req))
		nvmf_rdma_need_buf(req);
}

/*
 * Post the data (C2H: RDMA WRITEs) and the response of @p req, whose
 * receive is posted again already. The WRITEs are deferred
 * (NDK_OP_FLAG_DEFER): the provider takes them with the response; so is
 * the response when @p more, another one following it at once
 * (nvmf_rdma_flush_held()): a batch reaches the provider in one chain.
 *
 * An inline response of a request that holds nothing else the provider
 * reads (no data buffer of ours: its data, if any, comes from a
 * namespace's memory; no extra send queue entries) goes silent
 * (NDK_OP_FLAG_SILENT_SUCCESS, context qp->silent_ctx) and the request
 * is freed at once: no completion to wait for, none to handle. The send
 * queue then holds such responses until the host acknowledges them, as
 * it held their requests before; a host that keeps sending commands and
 * never acknowledges fills it, and the post fails: the queue pair closes
 * (as it does when such a host exhausts the requests).
 */
static void
nvmf_rdma_respond(struct nvmf_req *req, bool more)
{
	struct nvmf_qpair *qp = req->qp;
	struct nvme_cpl *cpl = req->cpl;
	bool quiet = qp->rsp_flags != 0 && !req->has_buf && req->extra_wr == 0;
	uint32_t flags = qp->rsp_flags | (more ? NDK_OP_FLAG_DEFER : 0) |
		(quiet ? NDK_OP_FLAG_SILENT_SUCCESS : 0);
	void *ctx = quiet ? (void *)&qp->silent_ctx : (void *)req;
	struct ndk_sge s;
	ndk_status_t st;

	if (!nvmf_qp_alive(qp)) {
		nvmf_req_release(req);
		return;
	}
	if (req->xfer == NVMF_XFER_C2H && req->loc == NVMF_DATA_KEYED &&
	    cpl->status == 0 && req->xfer_len > 0) {
		uint32_t left = RTE_MIN(req->xfer_len, req->length), at = 0;

		/*
		 * One RDMA WRITE per descriptor, as far as the data goes,
		 * without a completion when it succeeds: the response SEND
		 * behind it completes after it, and only a failed or flushed
		 * WRITE completes (nvmf_rdma_poll_qpair()).
		 */
		for (uint8_t i = 0; i < req->nseg && left > 0; i++) {
			s.va = req->data + at;
			s.length = RTE_MIN(left, req->seg[i].len);
			s.token = req->data_token;
			st = ndk_write(qp->ndkqp, req, &s, 1, req->seg[i].addr,
				       req->seg[i].key,
				       NDK_OP_FLAG_SILENT_SUCCESS |
				       NDK_OP_FLAG_DEFER);
			if (st != NDK_STATUS_SUCCESS)
				goto fail;
			at += s.length;
			left -= s.length;
		}
	}
	s.va = cpl;
	s.length = sizeof(*cpl);
	s.token = qp->tgt->arena_ltoken;
	if (req->invalidate) {
		st = ndk_send_and_invalidate(qp->ndkqp, ctx, &s, 1, flags,
					     req->inv_key);
		qp->tgt->stats.remote_invalidates++;
	} else {
		st = ndk_send(qp->ndkqp, ctx, &s, 1, flags);
	}
	if (st != NDK_STATUS_SUCCESS)
		goto fail;
	if (!quiet) {
		req->pending++;
		qp->wr_outstanding++;
	}
	nvmf_req_release(req);
	return;
fail:
	NVMF_LOG(ERR, "qpair %u: cannot post the response: closing\n",
		 qp->idx);
	nvmf_req_release(req);
	nvmf_qpair_close(qp);
}

/*
 * The responses held back during a batch of completions: their receives
 * go back to the receive queue first, in one list (ndk_receive_list()),
 * then the responses, each after its own receive as the binding wants
 * (the host never meets a missing receive: it sends a command only into
 * a slot a response freed).
 */
static void
nvmf_rdma_flush_held(struct nvmf_qpair *qp)
{
	struct ndk_receive_request rr[NVMF_HELD_MAX];
	struct ndk_sge sg[NVMF_HELD_MAX];
	uint32_t n = qp->nheld, posted = 0;
	bool holding = qp->holding;
	ndk_status_t st = NDK_STATUS_SUCCESS;

	if (n == 0)
		return;
	qp->nheld = 0;
	/* What completes while these go out (a freed request lets a waiting
	 * one run) is answered at once. */
	qp->holding = false;
	if (nvmf_qp_alive(qp)) {
		for (uint32_t i = 0; i < n; i++) {
			nvmf_rdma_recv_sge(qp, qp->held[i]->recv, &sg[i]);
			rr[i].request_context = qp->held[i]->recv;
			rr[i].sgl = &sg[i];
			rr[i].nsge = 1;
		}
		st = ndk_receive_list(qp->ndkqp, rr, n, &posted);
		qp->wr_outstanding += posted;
		if (st != NDK_STATUS_SUCCESS) {
			NVMF_LOG(ERR, "qpair %u: post receives: %s: closing\n",
				 qp->idx, ndk_status_str(st));
			nvmf_qpair_close(qp);
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		struct nvmf_req *req = qp->held[i];

		if (i >= posted) {
			nvmf_req_release(req);
			continue;
		}
		req->recv = NULL;
		nvmf_rdma_respond(req, i + 1 < posted);
	}
	qp->holding = holding;
}

static void
nvmf_rdma_complete(struct nvmf_req *req)
{
	struct nvmf_qpair *qp = req->qp;
	struct nvme_cpl *cpl = req->cpl;

	if (!nvmf_qp_alive(qp)) {
		nvmf_req_release(req);
		return;
	}
	cpl->sqhd = qp->sqhd;
	cpl->sqid = qp->qid;
	cpl->cid = req->cmd.cid;
	cpl->status &= (uint16_t)~NVME_STATUS_P;
	if (cpl->status != 0)
		qp->tgt->stats.errors++;
	if (qp->holding) {
		if (qp->nheld == NVMF_HELD_MAX)
			nvmf_rdma_flush_held(qp);
		qp->held[qp->nheld++] = req;
		return;
	}
	if (nvmf_rdma_post_recv(qp, req->recv) != 0) {
		NVMF_LOG(ERR, "qpair %u: cannot post the response: closing\n",
			 qp->idx);
		nvmf_req_release(req);
		nvmf_qpair_close(qp);
		return;
	}
	req->recv = NULL;
	nvmf_rdma_respond(req, false);
}

/* ------------------------------------------------------------------ */
/* Connections                                                         */
/* ------------------------------------------------------------------ */

void
nvmf_rdma_connect_event(void *ctx, struct ndk_connector *conn)
{
	struct ndk_nvmf_tgt *tgt = ctx;
	struct nvmf_rdma_cm_rej rej = { 0, NVMF_RDMA_CM_NO_RESOURCES };

	if (tgt->nincoming == NVMF_PENDING_CONNECTS) {
		ndk_reject(conn, &rej, sizeof(rej));
		ndk_close_connector(conn, NULL, NULL);
		tgt->stats.connect_rejects++;
		return;
	}
	tgt->incoming[tgt->nincoming++] = conn;
}

static void
nvmf_rdma_disconnect_event(void *ctx, uint32_t reason)
{
	struct nvmf_qpair *qp = ctx;

	NVMF_LOG(DEBUG, "qpair %u (qid %u): disconnected, reason %u\n",
		 qp->idx, qp->qid, reason);
	nvmf_qpair_close(qp);
}

static void
nvmf_rdma_accept_done(void *ctx, ndk_status_t st)
{
	struct nvmf_qpair *qp = ctx;

	qp->cm_pending = false;
	if (st == NDK_STATUS_SUCCESS && qp->state == NVMF_QP_ACCEPTING) {
		qp->state = NVMF_QP_ACTIVE;
		qp->tgt->stats.connects++;
		return;
	}
	if (st != NDK_STATUS_SUCCESS)
		NVMF_LOG(NOTICE, "qpair %u: accept: %s\n", qp->idx,
			 ndk_status_str(st));
	nvmf_qpair_close(qp);
}

/* Check the CM request; @return 0 or an NVMF_RDMA_CM_* status. */
static uint16_t
nvmf_rdma_check_req(const struct ndk_nvmf_tgt *tgt,
		    const struct nvmf_rdma_cm_req *r, uint32_t len)
{
	uint32_t max = r->qid == 0 ? NVMF_ADMIN_DEPTH :
		tgt->cfg.max_queue_depth;

	if (len < sizeof(*r))
		return NVMF_RDMA_CM_INVALID_LENGTH;
	if (r->recfmt != 0)
		return NVMF_RDMA_CM_INVALID_RECFMT;
	if (r->qid > tgt->cfg.max_io_queues)
		return NVMF_RDMA_CM_INVALID_QID;
	if (r->hsqsize == 0 || (uint32_t)r->hsqsize + 1 > max)
		return NVMF_RDMA_CM_INVALID_HSQSIZE;
	if (r->hrqsize == 0)
		return NVMF_RDMA_CM_INVALID_HRQSIZE;
	return 0;
}

static void
nvmf_rdma_reject(struct ndk_nvmf_tgt *tgt, struct ndk_connector *conn,
		 uint16_t sts)
{
	struct nvmf_rdma_cm_rej rej = { .recfmt = 0, .sts = sts };

	NVMF_LOG(NOTICE, "connect rejected: status %u\n", sts);
	ndk_reject(conn, &rej, sizeof(rej));
	ndk_close_connector(conn, NULL, NULL);
	tgt->stats.connect_rejects++;
}

static struct nvmf_qpair *
nvmf_qpair_get(struct ndk_nvmf_tgt *tgt)
{
	for (uint32_t i = 0; i < tgt->cfg.max_qpairs; i++)
		if (tgt->qpairs[i].state == NVMF_QP_FREE)
			return &tgt->qpairs[i];
	return NULL;
}

static int
nvmf_rdma_setup_qpair(struct nvmf_qpair *qp, struct ndk_connector *conn,
		      const struct nvmf_rdma_cm_req *r)
{
	struct ndk_nvmf_tgt *tgt = qp->tgt;
	uint32_t n = (uint32_t)r->hsqsize + 1;
	ndk_status_t st;

	qp->qid = r->qid;
	qp->entries = (uint16_t)n;
	qp->hrqsize = r->hrqsize;
	qp->sqhd = 0;
	qp->ctrlr = NULL;
	qp->conn = conn;
	qp->ndkqp = NULL;
	qp->cq = NULL;
	qp->wr_outstanding = 0;
	qp->reqs_busy = 0;
	qp->cm_pending = false;
	qp->commands = 0;
	qp->nrecv = n;
	qp->complete = nvmf_rdma_complete;
	TAILQ_INIT(&qp->free_reqs);
	TAILQ_INIT(&qp->sgl_wait);
	qp->extra_wr_used = 0;
	qp->rsp_flags = tgt->info.max_inline_data_size >=
		sizeof(struct nvme_cpl) ? NDK_OP_FLAG_INLINE : 0;
	qp->holding = false;
	qp->nheld = 0;
	for (uint32_t i = 0; i < 2 * n; i++) {
		qp->reqs[i].qp = qp;
		TAILQ_INSERT_TAIL(&qp->free_reqs, &qp->reqs[i], link);
	}
	/* Send queue: two per request, and room for multi-descriptor
	 * commands' extra RDMA READs and WRITEs (nvmf_rdma_sgl_reserve()). */
	st = ndk_create_cq(tgt->ad, 5 * n + NVMF_SGL_EXTRA_WR, NULL, NULL,
			   &qp->cq);
	if (st == NDK_STATUS_SUCCESS)
		st = ndk_create_qp(tgt->pd, qp->cq, qp->cq, qp, n,
				   4 * n + NVMF_SGL_EXTRA_WR, 1, 1,
				   qp->rsp_flags != 0 ?
				   (uint32_t)sizeof(struct nvme_cpl) : 0,
				   &qp->ndkqp);
	if (st != NDK_STATUS_SUCCESS) {
		NVMF_LOG(ERR, "qpair for qid %u: %s\n", r->qid,
			 ndk_status_str(st));
		if (qp->cq != NULL)
			ndk_close_cq(qp->cq, NULL, NULL);
		qp->cq = NULL;
		return -EIO;
	}
	for (uint32_t i = 0; i < n; i++)
		if (nvmf_rdma_post_recv(qp, &qp->recvs[i]) != 0)
			return -EIO;
	return 0;
}

static void
nvmf_rdma_accept_one(struct ndk_nvmf_tgt *tgt, struct ndk_connector *conn)
{
	uint8_t pdata[256];
	uint32_t plen = sizeof(pdata), ird = 0, ord = 0;
	struct nvmf_rdma_cm_req r;
	struct nvmf_rdma_cm_rep rep;
	struct nvmf_qpair *qp;
	ndk_status_t st;
	uint16_t sts;

	memset(&r, 0, sizeof(r));
	st = ndk_get_connection_data(conn, &ird, &ord, pdata, &plen);
	if (st != NDK_STATUS_SUCCESS && st != NDK_STATUS_BUFFER_TOO_SMALL) {
		nvmf_rdma_reject(tgt, conn, NVMF_RDMA_CM_INVALID_LENGTH);
		return;
	}
	memcpy(&r, pdata, RTE_MIN(plen, (uint32_t)sizeof(r)));
	sts = nvmf_rdma_check_req(tgt, &r, plen);
	qp = sts == 0 ? nvmf_qpair_get(tgt) : NULL;
	if (sts == 0 && qp == NULL)
		sts = NVMF_RDMA_CM_NO_RESOURCES;
	if (sts != 0) {
		nvmf_rdma_reject(tgt, conn, sts);
		return;
	}
	qp->state = NVMF_QP_ACCEPTING;
	tgt->live[tgt->nlive++] = qp;
	tgt->stats.qpairs_now++;
	if (nvmf_rdma_setup_qpair(qp, conn, &r) != 0) {
		nvmf_rdma_reject(tgt, conn, NVMF_RDMA_CM_NO_RESOURCES);
		qp->conn = NULL;
		nvmf_qpair_close(qp);
		return;
	}
	ird = RTE_MIN(ird, tgt->info.max_inbound_read_limit);
	ord = RTE_MIN(ord, tgt->info.max_outbound_read_limit);
	memset(&rep, 0, sizeof(rep));
	rep.crqsize = qp->entries;
	qp->cm_pending = true;
	st = ndk_accept(conn, qp->ndkqp, ird, ord, &rep, sizeof(rep),
			nvmf_rdma_disconnect_event, qp, nvmf_rdma_accept_done,
			qp);
	if (st != NDK_STATUS_PENDING) {
		NVMF_LOG(ERR, "accept: %s\n", ndk_status_str(st));
		qp->cm_pending = false;
		nvmf_qpair_close(qp);
	}
}

void
nvmf_rdma_accept_pending(struct ndk_nvmf_tgt *tgt)
{
	/* ndk_accept() and ndk_reject() do not poll: no connect event can
	 * arrive while this runs. */
	for (uint32_t i = 0; i < tgt->nincoming; i++)
		nvmf_rdma_accept_one(tgt, tgt->incoming[i]);
	tgt->nincoming = 0;
}

/* ------------------------------------------------------------------ */
/* Teardown                                                            */
/* ------------------------------------------------------------------ */

void
nvmf_qpair_close(struct nvmf_qpair *qp)
{
	struct ndk_nvmf_tgt *tgt = qp->tgt;
	struct nvmf_req *req, *next;

	if (qp->state == NVMF_QP_FREE || qp->state == NVMF_QP_CLOSING)
		return;
	qp->state = NVMF_QP_CLOSING;
	/* Requests waiting for a data buffer: abandoned. */
	for (req = TAILQ_FIRST(&tgt->buf_wait); req != NULL; req = next) {
		next = TAILQ_NEXT(req, link);
		if (req->qp != qp)
			continue;
		TAILQ_REMOVE(&tgt->buf_wait, req, link);
		nvmf_req_release(req);
	}
	while ((req = TAILQ_FIRST(&qp->sgl_wait)) != NULL) {
		TAILQ_REMOVE(&qp->sgl_wait, req, link);
		nvmf_req_release(req);
	}
	if (qp->ctrlr != NULL)
		nvmf_ctrlr_qpair_gone(qp);
	/* The connector is closed from the poll loop, never from inside one
	 * of its own callbacks (nvmf_rdma_poll_qpair()). */
	if (qp->ndkqp != NULL)
		ndk_flush(qp->ndkqp);
}

static void
nvmf_qpair_try_free(struct nvmf_qpair *qp)
{
	struct ndk_nvmf_tgt *tgt = qp->tgt;

	/* Closing the connector tears the connection down abortively (DREQ,
	 * no DREP awaited: a vanished host costs no CM timeout) and completes
	 * a pending accept with STATUS_CANCELLED first, inline. */
	if (qp->conn != NULL) {
		struct ndk_connector *conn = qp->conn;

		qp->conn = NULL;
		ndk_close_connector(conn, NULL, NULL);
	}
	if (qp->wr_outstanding != 0 || qp->reqs_busy != 0 || qp->cm_pending)
		return;
	if (qp->ndkqp != NULL)
		ndk_close_qp(qp->ndkqp, NULL, NULL);
	if (qp->cq != NULL)
		ndk_close_cq(qp->cq, NULL, NULL);
	qp->ndkqp = NULL;
	qp->cq = NULL;
	qp->state = NVMF_QP_FREE;
	tgt->stats.qpairs_now--;
	tgt->stats.disconnects++;
	NVMF_LOG(DEBUG, "qpair %u (qid %u) freed after %lu commands\n",
		 qp->idx, qp->qid, (unsigned long)qp->commands);
}

/* ------------------------------------------------------------------ */
/* Completions                                                         */
/* ------------------------------------------------------------------ */

static void
nvmf_rdma_req_wc(struct nvmf_qpair *qp, struct nvmf_req *req,
		 const struct ndk_result_ex *r)
{
	req->pending--;
	if (r->status != NDK_STATUS_SUCCESS) {
		if (r->status != NDK_STATUS_CANCELLED)
			NVMF_LOG(NOTICE, "qpair %u: op %d failed: %s (%u)\n",
				 qp->idx, (int)r->type,
				 ndk_status_str(r->status), r->provider_error);
		nvmf_qpair_close(qp);
		if (nvmf_req_is_done(req) || r->type == NDK_OP_READ)
			nvmf_req_release(req);
		return;
	}
	if (nvmf_req_is_done(req)) {
		if (req->pending == 0)
			nvmf_req_free(req);
		return;
	}
	if (r->type == NDK_OP_READ && req->pending == 0) {
		/* The last of its RDMA READs: the data is all here. */
		if (nvmf_qp_alive(qp))
			nvmf_req_exec(req);
		else
			nvmf_req_release(req);
	}
}

unsigned int
nvmf_rdma_poll_qpair(struct nvmf_qpair *qp)
{
	struct ndk_result_ex r[NVMF_CQ_BATCH];
	uint32_t n = 0;

	if (qp->cq != NULL)
		n = ndk_get_cq_results_ex(qp->cq, r, NVMF_CQ_BATCH);
	/* The batch's responses wait for their receives' list. */
	qp->holding = true;
	for (uint32_t i = 0; i < n; i++) {
		uint8_t kind = *(const uint8_t *)r[i].request_context;

		if (r[i].type == NDK_OP_WRITE || kind == NVMF_CTX_SILENT) {
			/*
			 * A silent RDMA WRITE or response that failed or was
			 * flushed: not counted in. The WRITE's request is
			 * freed by its response SEND's completion (or was, when
			 * that could not be posted or went silent), a silent
			 * response's when it was posted. The queue pair is done
			 * for.
			 */
			if (r[i].status != NDK_STATUS_CANCELLED)
				NVMF_LOG(NOTICE, "qpair %u: %s failed: %s (%u)\n",
					 qp->idx, r[i].type == NDK_OP_WRITE ?
					 "RDMA WRITE" : "response",
					 ndk_status_str(r[i].status),
					 r[i].provider_error);
			nvmf_qpair_close(qp);
			continue;
		}
		qp->wr_outstanding--;
		if (kind == NVMF_CTX_RECV) {
			if (r[i].status != NDK_STATUS_SUCCESS)
				nvmf_qpair_close(qp);
			else if (nvmf_qp_alive(qp))
				nvmf_rdma_recv(qp, r[i].request_context,
					       r[i].bytes_transferred);
		} else {
			nvmf_rdma_req_wc(qp, r[i].request_context, &r[i]);
		}
	}
	qp->holding = false;
	if (qp->nheld != 0)     /* not called idle: its frame is large */
		nvmf_rdma_flush_held(qp);
	if (qp->state == NVMF_QP_CLOSING)
		nvmf_qpair_try_free(qp);
	return n;
}
