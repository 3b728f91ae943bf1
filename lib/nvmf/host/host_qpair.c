/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The data path of one NVMe-oF/RDMA queue of the host: submission (the
 * capsule, its data in the capsule or by keyed SGL through the slot's
 * FR MR or a registered region's token) and completion (the CQ poll,
 * responses, invalidation, timeouts, a failed queue's flush).
 * host_qpair_setup.c creates, connects and destroys the queue.
 *
 * A command completes when three things have happened: its SEND
 * completed (the capsule buffer is free again), its response arrived,
 * and, if it carried a keyed SGL, its token is invalid: invalidated by
 * the controller (the response came as SEND with Invalidate naming it)
 * or by us (ndk_invalidate() posted on the response, completed). Until
 * then the slot and the caller's buffer stay the command's. A capsule of
 * the command alone goes inline (copied at the post). While the send
 * queue has room to spare a capsule SEND, inline or not, is silent: the
 * response proves the controller has received it, so nothing of it is
 * left to wait for (qp_submit()).
 *
 * A response's receive is posted again before its command completes: a
 * burst's receives in one list, before any of its callbacks runs
 * (qp_repost_burst()), so that the controller always finds the receive
 * the response to the next command needs.
 *
 * A queue that fails (an error completion, the peer's disconnect, an I/O
 * past the timeout) is flushed: every posted request comes back, and
 * each command completes with a path status once nothing of it is
 * posted any more. A command whose silent capsule SEND reads memory (not
 * inline) and that has no response waits for the drain: a local
 * invalidate posted behind the flush, whose completion says the provider
 * holds nothing posted before it (qp_flush()).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_pause.h>

#include "host_priv.h"

#define QP_CHECK_MS 1            /* timeout scan interval */
#define QP_LOG_BAD 8             /* bad responses logged per queue */

void
nvmf_ctrlr_idle(struct nvmf_ctrlr_base *c)
{
	if (c->opts.poll_adapter)
		ndk_adapter_poll(c->ad);
	else
		rte_pause();
}

/* ------------------------------------------------------------------ */
/* Completion                                                          */
/* ------------------------------------------------------------------ */

static uint16_t
fail_status(const struct ndk_nvmf_qpair *qp)
{
	RTE_SET_USED(qp);
	return nvme_status(NVME_SCT_PATH, NVME_SC_HOST_PATHING_ERROR, 1);
}

static void
req_complete(struct ndk_nvmf_qpair *qp, struct nvmf_req *r, uint16_t status)
{
	struct ndk_nvmf_cpl cpl = {
		.cdw0 = r->cpl.cdw0,
		.cdw1 = r->cpl.cdw1,
		.status = status,
	};
	ndk_nvmf_cb cb = r->cb;
	void *arg = r->cb_arg;

	r->busy = false;
	r->cb = NULL;
	r->next_free = qp->free_list;
	qp->free_list = r;
	qp->outstanding--;
	qp->stats.completed++;
	if (status != 0)
		qp->stats.errors++;
	if (cb != NULL)
		cb(arg, &cpl);
}

/* Complete @p r if nothing of it is pending any more. @return 1 if so. */
static int
req_try_complete(struct ndk_nvmf_qpair *qp, struct nvmf_req *r)
{
	if (!r->busy || r->wr_out != 0)
		return 0;
	if (qp->failed) {
		if (r->quiet_ref && !r->resp && !qp->drained)
			return 0;
		req_complete(qp, r, r->resp ? r->cpl.status & ~NVME_STATUS_P :
			     fail_status(qp));
		return 1;
	}
	if (!r->resp || (r->keyed && r->mr_valid))
		return 0;
	req_complete(qp, r, r->cpl.status & ~NVME_STATUS_P);
	return 1;
}

/*
 * Post the drain: a signalled local invalidate of the queue's own FR MR,
 * which comes back (flushed, or done) after every request posted before
 * it. A QP that takes no request any more (not connected) sends nothing
 * either: drained at once. Any other refusal (a full send queue) is
 * tried again by the next poll. @return the post's status.
 */
static ndk_status_t
qp_post_drain(struct ndk_nvmf_qpair *qp)
{
	ndk_status_t st = NDK_STATUS_CONNECTION_INVALID;

	if (qp->ndkqp != NULL && qp->drain_mr != NULL)
		st = ndk_invalidate(qp->ndkqp, &qp->drain_ctx,
				    &qp->drain_mr->header, 0);
	if (st == NDK_STATUS_SUCCESS)
		qp->drain_posted = true;
	else if (st == NDK_STATUS_CONNECTION_INVALID)
		qp->drained = true;
	return st;
}

/* Fail the queue: flush its QP and post the drain behind the flush. */
static void
qp_flush(struct ndk_nvmf_qpair *qp)
{
	ndk_status_t st;

	qp->failed = true;
	if (qp->ndkqp == NULL)
		return;
	ndk_flush(qp->ndkqp);
	st = qp_post_drain(qp);
	if (st != NDK_STATUS_SUCCESS && !qp->drained)
		NVMF_HOST_LOG(WARNING, "queue %u: cannot post the drain yet: "
			      "%s", qp->qid, ndk_status_str(st));
}

void
nvmf_qpair_fail(struct ndk_nvmf_qpair *qp, const char *why)
{
	if (qp->failed)
		return;
	NVMF_HOST_LOG(ERR, "queue %u failed: %s (%u I/Os outstanding)",
		      qp->qid, why, qp->outstanding);
	qp_flush(qp);
}

/* Complete what a failed queue holds and no longer waits for. */
static int
qp_sweep(struct ndk_nvmf_qpair *qp)
{
	int n = 0;

	for (uint32_t i = 0; i < qp->nreq && qp->outstanding > 0; i++)
		n += req_try_complete(qp, &qp->reqs[i]);
	return n;
}


/* The controller named a token that is not the command's: find it. */
static void
stray_invalidation(struct ndk_nvmf_qpair *qp, uint32_t token, bool counted)
{
	if (!counted)
		qp->stats.bad_responses++;
	if (qp->stats.bad_responses <= QP_LOG_BAD)
		NVMF_HOST_LOG(WARNING, "queue %u: controller invalidated token "
			      "%#x that is not its command's", qp->qid, token);
	for (uint32_t i = 0; i < qp->nreq; i++) {
		struct nvmf_req *r = &qp->reqs[i];

		if (r->mr_valid && r->rkey == token) {
			r->mr_valid = false;
			req_try_complete(qp, r);
		}
	}
}

/*
 * A burst's receives go back to the receive queue in one list
 * (ndk_receive_list()) before any of its responses is handled: the
 * response capsules are copied out first (into @p cpls, by result), and
 * no callback, hence no new command, runs before the receives its
 * responses need are posted.
 */
static void
qp_repost_burst(struct ndk_nvmf_qpair *qp, const struct ndk_result_ex *res,
		uint32_t n, struct nvme_cpl *cpls)
{
	struct ndk_receive_request rr[NVMF_QP_POLL_BURST];
	struct ndk_sge sg[NVMF_QP_POLL_BURST];
	uint32_t k = 0, posted;

	for (uint32_t i = 0; i < n; i++) {
		struct nvmf_recv *rv = res[i].request_context;

		if ((res[i].type != NDK_OP_RECEIVE &&
		     res[i].type != NDK_OP_RECEIVE_AND_INVALIDATE) ||
		    res[i].status != NDK_STATUS_SUCCESS)
			continue;
		cpls[i] = *rv->buf;
		sg[k].va = rv->buf;
		sg[k].length = sizeof(struct nvme_cpl);
		sg[k].token = qp->rcv_ltoken;
		rr[k].request_context = rv;
		rr[k].sgl = &sg[k];
		rr[k].nsge = 1;
		k++;
	}
	if (k == 0 || qp->failed)
		return;
	if (ndk_receive_list(qp->ndkqp, rr, k, &posted) != NDK_STATUS_SUCCESS)
		nvmf_qpair_fail(qp, "cannot post a receive");
}

static int
on_response(struct ndk_nvmf_qpair *qp, const struct ndk_result_ex *res,
	    const struct nvme_cpl *cpl)
{
	bool inv = res->type == NDK_OP_RECEIVE_AND_INVALIDATE, stray;
	uint32_t token = (uint32_t)res->type_specific;
	struct nvmf_req *r;
	int slot;

	slot = nvmf_cpl_slot(cpl, res->bytes_transferred, qp->nreq);
	r = slot >= 0 ? &qp->reqs[slot] : NULL;
	switch (nvmf_resp_classify(r, inv, token, &stray)) {
	case NVMF_RESP_DROP:
		/* Logged a few times only: a peer must not flood the log. */
		if (++qp->stats.bad_responses <= QP_LOG_BAD)
			NVMF_HOST_LOG(WARNING, "queue %u: response for %s CID %u "
				      "(%u bytes) dropped", qp->qid,
				      slot == -EPROTO ? "a short" :
				      r == NULL ? "an unknown" : "an idle",
				      res->bytes_transferred >= sizeof(*cpl) ?
				      cpl->cid : 0, res->bytes_transferred);
		if (stray)
			stray_invalidation(qp, token, true);
		return 0;
	case NVMF_RESP_REMOTE_INV:
		r->mr_valid = false;
		qp->stats.remote_invalidations++;
		break;
	case NVMF_RESP_LOCAL_INV:
		if (ndk_invalidate(qp->ndkqp, r, &r->mr->header, 0) !=
		    NDK_STATUS_SUCCESS) {
			nvmf_qpair_fail(qp, "cannot post an invalidate");
		} else {
			r->wr_out++;
			r->inv_seq = qp->sq_seq++;
			qp->stats.local_invalidations++;
		}
		break;
	case NVMF_RESP_DONE:
		break;
	}
	if (stray)
		stray_invalidation(qp, token, false);
	r->cpl = *cpl;
	r->resp = true;
	return req_try_complete(qp, r);
}

/* A work request failed: fail the queue, saying which. Out of line: its
 * message buffer would cost on_result() a stack guard per completion. */
static void __rte_noinline
wr_failed(struct ndk_nvmf_qpair *qp, const struct ndk_result_ex *res)
{
	char why[96];

	snprintf(why, sizeof(why), "work request type %d: %s, "
		 "provider error %u", (int)res->type,
		 ndk_status_str(res->status), res->provider_error);
	nvmf_qpair_fail(qp, why);
}

/* The send queue's work requests up to the one at @p seq have retired
 * (a signalled one completed: they complete in order). */
static void
sq_retired(struct ndk_nvmf_qpair *qp, uint32_t seq)
{
	if ((int32_t)(seq + 1 - qp->sq_known) > 0)
		qp->sq_known = seq + 1;
}

/* @p cpl: the response capsule of a receive (qp_repost_burst()). */
static int
on_result(struct ndk_nvmf_qpair *qp, const struct ndk_result_ex *res,
	  const struct nvme_cpl *cpl)
{
	struct nvmf_req *r;

	if (res->type == NDK_OP_RECEIVE ||
	    res->type == NDK_OP_RECEIVE_AND_INVALIDATE) {
		if (res->status == NDK_STATUS_SUCCESS)
			return on_response(qp, res, cpl);
		nvmf_qpair_fail(qp, res->status == NDK_STATUS_CANCELLED ?
				"receive flushed" : "receive failed");
		return 0;
	}
	if (res->request_context == &qp->drain_ctx) {
		/* Nothing posted before it is the provider's any more. */
		qp->drained = true;
		return 0;
	}
	if (res->request_context == &qp->silent_ctx) {
		/* A silent SEND: here only when it failed or was flushed. */
		if (res->status != NDK_STATUS_SUCCESS && !qp->failed)
			wr_failed(qp, res);
		return 0;
	}
	r = res->request_context;
	if (r == NULL || r < qp->reqs || r >= qp->reqs + qp->nreq) {
		qp->stats.bad_responses++;
		return 0;
	}
	if (res->status != NDK_STATUS_SUCCESS && !qp->failed)
		wr_failed(qp, res);
	switch (res->type) {
	case NDK_OP_SEND:
	case NDK_OP_INVALIDATE:
		if (res->status == NDK_STATUS_SUCCESS)
			sq_retired(qp, res->type == NDK_OP_SEND ? r->send_seq :
				   r->inv_seq);
		if (res->type == NDK_OP_INVALIDATE &&
		    res->status == NDK_STATUS_SUCCESS)
			r->mr_valid = false;
		if (r->wr_out > 0)
			r->wr_out--;
		return req_try_complete(qp, r);
	default:
		/* A fast register, signalled only when it failed. */
		return 0;
	}
}

static void
qp_check_timeouts(struct ndk_nvmf_qpair *qp, uint64_t now)
{
	qp->next_check_tsc = now + nvmf_ms_to_tsc(QP_CHECK_MS);
	if (qp->outstanding == 0 || qp->failed)
		return;
	for (uint32_t i = 0; i < qp->nreq; i++) {
		const struct nvmf_req *r = &qp->reqs[i];

		if (r->busy && !r->untimed && now - r->tsc > qp->timeout_tsc) {
			qp->stats.timeouts++;
			nvmf_qpair_fail(qp, "a command timed out");
			return;
		}
	}
}

int
ndk_nvmf_qpair_poll(struct ndk_nvmf_qpair *qp, uint32_t max)
{
	struct ndk_result_ex res[NVMF_QP_POLL_BURST];
	struct nvme_cpl cpls[NVMF_QP_POLL_BURST];
	uint64_t now;
	int done = 0;
	uint32_t n;

	if (qp == NULL)
		return -EINVAL;
	if (__atomic_load_n(&qp->disconnected, __ATOMIC_ACQUIRE))
		nvmf_qpair_fail(qp, "the controller disconnected");
	do {
		n = ndk_get_cq_results_ex(qp->cq, res, NVMF_QP_POLL_BURST);
		if (n != 0)
			qp_repost_burst(qp, res, n, cpls);
		for (uint32_t i = 0; i < n; i++)
			done += on_result(qp, &res[i], &cpls[i]);
	} while (n == NVMF_QP_POLL_BURST && (max == 0 || (uint32_t)done < max));
	now = rte_get_timer_cycles();
	if (now >= qp->next_check_tsc)
		qp_check_timeouts(qp, now);
	if (qp->failed) {
		if (!qp->drain_posted && !qp->drained)
			qp_post_drain(qp);
		done += qp_sweep(qp);
		if (qp->outstanding == 0)
			return done > 0 ? done : -ENOTCONN;
	}
	return done;
}

uint32_t
ndk_nvmf_qpair_outstanding(const struct ndk_nvmf_qpair *qp)
{
	return qp != NULL ? qp->outstanding : 0;
}

void
ndk_nvmf_qpair_get_stats(const struct ndk_nvmf_qpair *qp,
			 struct ndk_nvmf_qpair_stats *stats)
{
	if (qp == NULL)
		memset(stats, 0, sizeof(*stats));
	else
		*stats = qp->stats;
}

/* ------------------------------------------------------------------ */
/* Submission                                                          */
/* ------------------------------------------------------------------ */

static int
qp_map(struct ndk_nvmf_qpair *qp, struct nvmf_req *r, void *buf,
       uint32_t len, enum nvmf_xfer xfer)
{
	uint64_t va = (uint64_t)(uintptr_t)buf;
	uint64_t page = va & ~(uint64_t)(NDK_PAGE_SIZE - 1);
	uint32_t np = nvmf_page_count(va, len);
	/* Deferred: the capsule's SEND, posted next, takes it along. */
	uint32_t flags = NDK_OP_FLAG_SILENT_SUCCESS | NDK_OP_FLAG_DEFER;
	ndk_status_t st;

	if (np > qp->max_pages || len > NVME_SGL_KEYED_MAX_LEN)
		return -EINVAL;
	for (uint32_t i = 0; i < np; i++)
		r->pages[i] = page + (uint64_t)i * NDK_PAGE_SIZE;
	flags |= xfer == NVMF_XFER_FROM_CTRLR ?
		NDK_OP_FLAG_ALLOW_REMOTE_WRITE | NDK_OP_FLAG_ALLOW_LOCAL_WRITE :
		NDK_OP_FLAG_ALLOW_REMOTE_READ;
	st = ndk_fast_register(qp->ndkqp, r, r->mr, np, r->pages,
			       (uint32_t)(va - page), len, va, flags);
	if (st == NDK_STATUS_NO_MORE_ENTRIES)
		return -EAGAIN;
	if (st == NDK_STATUS_INVALID_PARAMETER)
		return -EINVAL;
	if (st != NDK_STATUS_SUCCESS) {
		nvmf_qpair_fail(qp, "cannot post a fast register");
		return -ENOTCONN;
	}
	qp->sq_seq++;
	r->rkey = ndk_mr_remote_token(r->mr);
	r->mr_valid = true;
	r->keyed = true;
	nvmf_sgl_keyed_inv(r->capsule, va, len, r->rkey);
	return 0;
}

/* The registered region holding [buf, buf + len), or NULL. */
static const struct nvmf_buf_region *
qp_buf_region(const struct ndk_nvmf_qpair *qp, const void *buf, uint32_t len)
{
	const struct nvmf_ctrlr_base *c = qp->ctrlr;
	uint64_t va = (uint64_t)(uintptr_t)buf;

	for (uint32_t i = 0; i < c->nregions; i++) {
		const struct nvmf_buf_region *g = &c->regions[i];

		if (va >= g->va && len <= g->len &&
		    va - g->va <= g->len - len)
			return g;
	}
	return NULL;
}

/* How qp_submit() may carry host-to-controller data. */
enum {
	QP_ICD = 1u << 0,       /* in the capsule if it fits */
	QP_STAGE = 1u << 1,     /* copy into the slot, map from there */
	QP_UNTIMED = 1u << 2,   /* no timeout: the controller answers when
				 * it has something to say (AER) */
};

/*
 * Submit a command. Its capsule SEND is silent while the send queue has
 * room to spare: the slot, its capsule buffer and the caller's buffer
 * (in-capsule data from a registered region, a second SGE) are free
 * again once the response has come (and the token is invalid). The
 * response proves the controller has received the whole capsule: the
 * provider has read the buffers, and a retransmission it still makes
 * reaches the controller as a duplicate, which is acknowledged and
 * dropped whatever the buffers hold by then (on a failed queue, a
 * command without a response waits for the drain instead: qp_flush()).
 * A silent SEND still takes its send queue entry until the controller
 * acknowledges it, and the acknowledgement of a SEND comes about a
 * queue's worth of responses later (those to the commands before it).
 * The queue has room for three entries a slot (fast register, SEND,
 * local invalidate) and three more a slot for such SENDs and the fast
 * registers before them. The entries posted since the
 * last signalled SEND that completed (sq_seq - sq_known: completions
 * come in order, so it retired all before it), with a local invalidate
 * for each command in flight, are counted; one SEND in quiet_max is
 * signalled, and every one while less than a slot's worth a slot is
 * left; a command waits (-EAGAIN, "queue full") only when it would not
 * fit: a controller that answers but does not acknowledge.
 */
static int
qp_submit(struct ndk_nvmf_qpair *qp, const struct nvme_cmd *cmd, void *buf,
	  uint32_t len, enum nvmf_xfer xfer, unsigned int how, ndk_nvmf_cb cb,
	  void *arg, struct nvmf_req **out)
{
	struct nvmf_req *r = qp->free_list;
	uint32_t send_len = sizeof(struct nvme_cmd), nsge = 1, flags = 0;
	/* Entries this command and those in flight may take, beside those
	 * posted since the last known retirement (a local invalidate each). */
	uint32_t need = qp->sq_seq - qp->sq_known + 3 + qp->outstanding;
	const struct nvmf_buf_region *g = NULL;
	struct ndk_sge s[2];
	bool quiet = false;
	ndk_status_t st;
	int rc;

	if (qp->failed || !qp->connected)
		return -ENOTCONN;
	if (r == NULL || need > qp->sq_depth)
		return -EAGAIN;
	if (xfer != NVMF_XFER_NONE && (buf == NULL || len == 0))
		return -EINVAL;
	memcpy(r->capsule, cmd, sizeof(*cmd));
	r->capsule->cid = r->cid;
	r->keyed = false;
	if (xfer != NVMF_XFER_NONE && !(how & QP_STAGE))
		g = qp_buf_region(qp, buf, len);
	if (xfer == NVMF_XFER_NONE) {
		nvmf_sgl_none(r->capsule);
	} else if (xfer == NVMF_XFER_TO_CTRLR && (how & QP_ICD) &&
		   len <= qp->icd_max) {
		/* From a registered buffer: its own SGE, no copy. */
		if (g != NULL) {
			s[1].token = g->ltoken;
			s[1].va = buf;
			s[1].length = len;
			nsge = 2;
			qp->stats.in_capsule_direct++;
		} else {
			memcpy(r->capsule + 1, buf, len);
			send_len += len;
		}
		nvmf_sgl_in_capsule(r->capsule, len);
		qp->stats.in_capsule++;
	} else if (g != NULL && g->remote && len <= NVME_SGL_KEYED_MAX_LEN) {
		/* The region's long-lived token: nothing to register, nothing
		 * to invalidate (r->keyed stays false). */
		nvmf_sgl_keyed(r->capsule, (uint64_t)(uintptr_t)buf, len,
			       g->rtoken);
		qp->stats.keyed++;
		qp->stats.keyed_region++;
	} else {
		if (how & QP_STAGE) {
			if (len > qp->capsule_len - sizeof(*cmd))
				return -EINVAL;
			memcpy(r->capsule + 1, buf, len);
			buf = r->capsule + 1;
		}
		rc = qp_map(qp, r, buf, len, xfer);
		if (rc != 0)
			return rc;
		qp->stats.keyed++;
	}
	s[0].va = r->capsule;
	s[0].length = send_len;
	s[0].token = qp->cap_ltoken;
	if (nsge == 1 && send_len == sizeof(*cmd))
		flags = qp->cmd_flags;
	quiet = qp->quiet_run < qp->quiet_max &&
		need + qp->nreq <= qp->sq_depth;
	if (quiet)
		flags |= NDK_OP_FLAG_SILENT_SUCCESS;
	qp->quiet_run = quiet ? qp->quiet_run + 1 : 0;
	st = ndk_send(qp->ndkqp, quiet ? (void *)&qp->silent_ctx : (void *)r,
		      s, nsge, flags);
	if (st != NDK_STATUS_SUCCESS) {
		/* Room was counted: the QP is gone. */
		nvmf_qpair_fail(qp, ndk_status_str(st));
		return -ENOTCONN;
	}
	r->send_seq = qp->sq_seq++;
	qp->free_list = r->next_free;
	r->next_free = NULL;
	r->busy = true;
	r->resp = false;
	r->wr_out = quiet ? 0 : 1;
	r->quiet_ref = quiet && !(flags & NDK_OP_FLAG_INLINE);
	r->cb = cb;
	r->cb_arg = arg;
	r->untimed = (how & QP_UNTIMED) != 0;
	r->tsc = rte_get_timer_cycles();
	qp->outstanding++;
	qp->stats.submitted++;
	if (out != NULL)
		*out = r;
	return 0;
}

int
nvmf_qpair_submit(struct ndk_nvmf_qpair *qp, const struct nvme_cmd *cmd,
		  void *buf, uint32_t len, enum nvmf_xfer xfer,
		  ndk_nvmf_cb cb, void *arg)
{
	return qp_submit(qp, cmd, buf, len, xfer, QP_ICD, cb, arg, NULL);
}

int
nvmf_qpair_submit_untimed(struct ndk_nvmf_qpair *qp,
			  const struct nvme_cmd *cmd, ndk_nvmf_cb cb,
			  void *arg)
{
	return qp_submit(qp, cmd, NULL, 0, NVMF_XFER_NONE, QP_UNTIMED, cb,
			 arg, NULL);
}

int
nvmf_qpair_submit_staged(struct ndk_nvmf_qpair *qp,
			 const struct nvme_cmd *cmd, const void *data,
			 uint32_t len, ndk_nvmf_cb cb, void *arg)
{
	return qp_submit(qp, cmd, (void *)(uintptr_t)data, len,
			 NVMF_XFER_TO_CTRLR, QP_ICD | QP_STAGE, cb, arg, NULL);
}

struct exec_ctx {
	bool done;
	struct nvme_cpl cpl;
};

static void
exec_done(void *arg, const struct ndk_nvmf_cpl *cpl)
{
	struct exec_ctx *x = arg;

	x->cpl.cdw0 = cpl->cdw0;
	x->cpl.cdw1 = cpl->cdw1;
	x->cpl.status = cpl->status;
	x->done = true;
}

static int
qp_exec(struct ndk_nvmf_qpair *qp, const struct nvme_cmd *cmd, void *buf,
	uint32_t len, enum nvmf_xfer xfer, unsigned int how,
	struct nvme_cpl *cpl)
{
	struct nvmf_ctrlr_base *c = qp->ctrlr;
	struct exec_ctx x = { .done = false };
	uint64_t end = rte_get_timer_cycles() +
		nvmf_ms_to_tsc(c->opts.timeout_ms);
	struct nvmf_req *r = NULL;
	int rc;

	rc = qp_submit(qp, cmd, buf, len, xfer, how, exec_done, &x, &r);
	if (rc != 0)
		return rc;
	/*
	 * The queue's own timeout fails it; the flush then completes the
	 * command. The extra bound is for a provider that never flushes.
	 */
	end += nvmf_ms_to_tsc(c->opts.timeout_ms);
	while (!x.done) {
		if (rte_get_timer_cycles() > end) {
			r->cb = NULL;   /* x dies with this frame */
			nvmf_qpair_fail(qp, "no answer");
			return -ETIMEDOUT;
		}
		ndk_nvmf_qpair_poll(qp, 0);
		if (!x.done)
			nvmf_ctrlr_idle(c);
	}
	*cpl = x.cpl;
	if (nvme_status_sct(x.cpl.status) == NVME_SCT_PATH && qp->failed)
		return -ETIMEDOUT;
	return 0;
}

int
nvmf_qpair_exec(struct ndk_nvmf_qpair *qp, const struct nvme_cmd *cmd,
		void *buf, uint32_t len, enum nvmf_xfer xfer,
		struct nvme_cpl *cpl)
{
	return qp_exec(qp, cmd, buf, len, xfer, QP_ICD, cpl);
}
int
nvmf_qpair_exec_keyed(struct ndk_nvmf_qpair *qp, const struct nvme_cmd *cmd,
		      void *buf, uint32_t len, enum nvmf_xfer xfer,
		      struct nvme_cpl *cpl)
{
	return qp_exec(qp, cmd, buf, len, xfer, 0, cpl);
}

void
nvmf_qpair_abort_all(struct ndk_nvmf_qpair *qp)
{
	uint64_t end = rte_get_timer_cycles() +
		nvmf_ms_to_tsc(qp->ctrlr->opts.timeout_ms);

	if (!qp->failed)
		qp_flush(qp);
	while (qp->outstanding > 0 && rte_get_timer_cycles() < end) {
		ndk_nvmf_qpair_poll(qp, 0);
		nvmf_ctrlr_idle(qp->ctrlr);
	}
	for (uint32_t i = 0; i < qp->nreq; i++)
		if (qp->reqs[i].busy)
			req_complete(qp, &qp->reqs[i],
				     nvme_status(NVME_SCT_PATH,
						 NVME_SC_ABORTED_BY_HOST, 1));
}
