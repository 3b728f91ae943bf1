/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Set-up and teardown of a host queue (host_qpair.c has its data path):
 * the slots, capsule and response buffers and their MRs, the QP and CQ,
 * the receive ring posted; the RDMA CM connection with the NVMe/RDMA
 * private data; the Fabrics Connect; and the destruction, which
 * disconnects, ends what is outstanding with a path status and closes
 * every MR, so that no token of the queue stays valid.
 */

#include <errno.h>
#include <string.h>

#include <netinet/in.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_malloc.h>

#include "host_priv.h"

#define QP_DSM_BYTES (NDK_NVMF_DSM_RANGES_MAX * sizeof(struct nvme_dsm_range))

static void
cm_wait_done(void *ctx, ndk_status_t st)
{
	struct nvmf_cm_wait *w = ctx;

	w->st = st;
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
}

static void
qp_disconnect_event(void *ctx, uint32_t reason)
{
	struct ndk_nvmf_qpair *qp = ctx;

	RTE_SET_USED(reason);
	__atomic_store_n(&qp->disconnected, true, __ATOMIC_RELEASE);
}

/*
 * Wait for a CM request started with @p st; bounded by the timeout. @p w
 * is the queue's own (ndk_nvmf_qpair::cm): a request that timed out
 * still completes, at the latest when the connector is closed, and must
 * find it alive.
 */
static ndk_status_t
cm_wait(struct nvmf_ctrlr_base *c, struct nvmf_cm_wait *w, ndk_status_t st)
{
	uint64_t end = rte_get_timer_cycles() +
		nvmf_ms_to_tsc(c->opts.timeout_ms);

	if (st != NDK_STATUS_PENDING)
		return st;
	while (!__atomic_load_n(&w->done, __ATOMIC_ACQUIRE)) {
		if (rte_get_timer_cycles() > end)
			return NDK_STATUS_IO_TIMEOUT;
		nvmf_ctrlr_idle(c);
	}
	w->done = 0;
	return w->st;
}

static int
recv_post(struct ndk_nvmf_qpair *qp, struct nvmf_recv *rv)
{
	struct ndk_sge s = { rv->buf, sizeof(struct nvme_cpl),
			     qp->rcv_ltoken };

	if (qp->failed)
		return 0;
	if (ndk_receive(qp->ndkqp, rv, &s, 1) != NDK_STATUS_SUCCESS) {
		nvmf_qpair_fail(qp, "cannot post a receive");
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Creation, connection, destruction                                   */
/* ------------------------------------------------------------------ */

static int
st_errno(ndk_status_t st)
{
	switch (st) {
	case NDK_STATUS_SUCCESS:
		return 0;
	case NDK_STATUS_NO_MEMORY:
	case NDK_STATUS_INSUFFICIENT_RESOURCES:
		return -ENOMEM;
	case NDK_STATUS_IO_TIMEOUT:
		return -ETIMEDOUT;
	case NDK_STATUS_CONNECTION_REFUSED:
	case NDK_STATUS_CONNECTION_ABORTED:
		return -ECONNREFUSED;
	case NDK_STATUS_HOST_UNREACHABLE:
		return -EHOSTUNREACH;
	case NDK_STATUS_DEVICE_REMOVED:
		return -ENODEV;
	default:
		return -EINVAL;
	}
}

static int
qp_alloc(struct nvmf_ctrlr_base *c, struct ndk_nvmf_qpair *qp)
{
	uint32_t io = RTE_MAX(c->opts.max_io_size, (uint32_t)NVME_IDENTIFY_SIZE);
	/* Fast register, SEND, local invalidate, and a silent SEND not
	 * acknowledged yet with its fast register, a slot (qp_submit()). */
	uint32_t isize = (uint32_t)qp->nreq * 6 + 4;
	ndk_status_t st;

	qp->max_pages = RTE_MIN(io / NDK_PAGE_SIZE + 1, c->frmr_pages);
	qp->capsule_len = RTE_ALIGN_CEIL(sizeof(struct nvme_cmd) +
					 RTE_MAX(qp->icd_max,
						 (uint32_t)QP_DSM_BYTES), 64);
	qp->reqs = rte_zmalloc("nvmf_reqs", qp->nreq * sizeof(*qp->reqs), 64);
	qp->recvs = rte_zmalloc("nvmf_recvs", qp->qsize * sizeof(*qp->recvs),
				64);
	qp->cap_region = rte_zmalloc("nvmf_capsules",
				     (size_t)qp->nreq * qp->capsule_len, 4096);
	qp->rcv_region = rte_zmalloc("nvmf_responses",
				     qp->qsize * sizeof(struct nvme_cpl), 64);
	if (qp->reqs == NULL || qp->recvs == NULL || qp->cap_region == NULL ||
	    qp->rcv_region == NULL)
		return -ENOMEM;
	qp->cmd_flags = c->max_inline >= sizeof(struct nvme_cmd) ?
		NDK_OP_FLAG_INLINE : 0;
	qp->sq_depth = isize;
	qp->quiet_max = RTE_MAX(qp->nreq / 4u, 1u);
	st = ndk_create_cq(c->ad, qp->qsize + isize, NULL, NULL, &qp->cq);
	if (st == NDK_STATUS_SUCCESS)
		st = ndk_create_qp(c->pd, qp->cq, qp->cq, qp, qp->qsize, isize,
				   1, 2, qp->cmd_flags != 0 ?
				   (uint32_t)sizeof(struct nvme_cmd) : 0,
				   &qp->ndkqp);
	if (st == NDK_STATUS_SUCCESS)
		st = ndk_create_mr(c->pd, false, &qp->cap_mr);
	if (st == NDK_STATUS_SUCCESS)
		st = ndk_register_mr(qp->cap_mr, qp->cap_region,
				     (size_t)qp->nreq * qp->capsule_len, 0);
	if (st == NDK_STATUS_SUCCESS)
		st = ndk_create_mr(c->pd, true, &qp->drain_mr);
	if (st == NDK_STATUS_SUCCESS)
		st = ndk_initialize_fast_register_mr(qp->drain_mr, 1, false);
	if (st == NDK_STATUS_SUCCESS)
		st = ndk_create_mr(c->pd, false, &qp->rcv_mr);
	if (st == NDK_STATUS_SUCCESS)
		st = ndk_register_mr(qp->rcv_mr, qp->rcv_region,
				     qp->qsize * sizeof(struct nvme_cpl),
				     NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	if (st != NDK_STATUS_SUCCESS) {
		NVMF_HOST_LOG(ERR, "queue %u: QP, CQ or MR: %s", qp->qid,
			      ndk_status_str(st));
		return st_errno(st);
	}
	qp->cap_ltoken = ndk_mr_local_token(qp->cap_mr);
	qp->rcv_ltoken = ndk_mr_local_token(qp->rcv_mr);
	for (uint16_t i = 0; i < qp->nreq; i++) {
		struct nvmf_req *r = &qp->reqs[i];

		r->qp = qp;
		r->cid = i;
		r->capsule = (struct nvme_cmd *)(qp->cap_region +
						 (size_t)i * qp->capsule_len);
		r->pages = rte_zmalloc("nvmf_pages",
				       qp->max_pages * sizeof(uint64_t), 64);
		if (r->pages == NULL)
			return -ENOMEM;
		st = ndk_create_mr(c->pd, true, &r->mr);
		if (st == NDK_STATUS_SUCCESS)
			st = ndk_initialize_fast_register_mr(r->mr,
							     qp->max_pages,
							     true);
		if (st != NDK_STATUS_SUCCESS) {
			NVMF_HOST_LOG(ERR, "queue %u: FR MR: %s", qp->qid,
				      ndk_status_str(st));
			return st_errno(st);
		}
		r->next_free = qp->free_list;
		qp->free_list = r;
	}
	for (uint16_t i = 0; i < qp->qsize; i++) {
		qp->recvs[i].buf = &qp->rcv_region[i];
		if (recv_post(qp, &qp->recvs[i]) != 0)
			return -ENOMEM;
	}
	return 0;
}

/* RDMA CM: REQ with the binding's private data; REP, RTU. */
static int
qp_cm_connect(struct nvmf_ctrlr_base *c, struct ndk_nvmf_qpair *qp,
	      uint16_t cntlid)
{
	struct sockaddr_in src = { .sin_family = AF_INET };
	struct sockaddr_in dst = { .sin_family = AF_INET };
	struct nvmf_rdma_cm_req req;
	uint8_t pdata[256];
	uint32_t plen = sizeof(pdata), ird = 0, ord = 0;
	uint16_t crqsize = 0, sts = 0;
	ndk_status_t st;

	dst.sin_addr.s_addr = c->opts.traddr;
	dst.sin_port = htons(c->opts.trsvcid);
	nvmf_cm_req_encode(&req, qp->qid, qp->qsize,
			   (uint16_t)(qp->qsize - 1), cntlid);
	st = ndk_create_connector(c->ad, &qp->conn);
	if (st != NDK_STATUS_SUCCESS)
		return st_errno(st);
	/* Reads are the controller's: it READs our buffers (ORD 0). */
	st = cm_wait(c, &qp->cm,
		     ndk_connect(qp->conn, qp->ndkqp,
				 (struct sockaddr *)&src, sizeof(src),
				 (struct sockaddr *)&dst, sizeof(dst),
				 16, 0, &req, sizeof(req),
				 cm_wait_done, &qp->cm));
	if (st != NDK_STATUS_SUCCESS) {
		if (st == NDK_STATUS_CONNECTION_REFUSED &&
		    ndk_get_connection_data(qp->conn, NULL, NULL, pdata,
					    &plen) != NDK_STATUS_CONNECTION_INVALID &&
		    nvmf_cm_rej_decode(pdata, plen, &sts) == 0)
			NVMF_HOST_LOG(ERR, "queue %u: the controller rejected "
				      "the connection: %s (%u)", qp->qid,
				      nvmf_cm_status_str(sts), sts);
		else
			NVMF_HOST_LOG(ERR, "queue %u: connect: %s", qp->qid,
				      ndk_status_str(st));
		return st_errno(st);
	}
	plen = sizeof(pdata);
	st = ndk_get_connection_data(qp->conn, &ird, &ord, pdata, &plen);
	if ((st != NDK_STATUS_SUCCESS && st != NDK_STATUS_BUFFER_TOO_SMALL) ||
	    nvmf_cm_rep_decode(pdata, RTE_MIN(plen, (uint32_t)sizeof(pdata)),
			       &crqsize) != 0) {
		NVMF_HOST_LOG(ERR, "queue %u: the controller's accept has no "
			      "NVMe/RDMA private data", qp->qid);
		ndk_reject(qp->conn, NULL, 0);
		return -EPROTO;
	}
	if (crqsize < qp->nreq) {
		/* Send no more commands than the controller can receive. */
		NVMF_HOST_LOG(INFO, "queue %u: controller receives %u, "
			      "queue depth %u -> %u", qp->qid, crqsize,
			      qp->nreq, crqsize);
		qp->nreq = crqsize;
	}
	st = cm_wait(c, &qp->cm, ndk_complete_connect(qp->conn,
						      qp_disconnect_event, qp,
						      cm_wait_done, &qp->cm));
	if (st != NDK_STATUS_SUCCESS) {
		NVMF_HOST_LOG(ERR, "queue %u: complete connect: %s", qp->qid,
			      ndk_status_str(st));
		return st_errno(st);
	}
	qp->connected = true;
	return 0;
}

/* Drop the free slots beyond nreq (after the controller's crqsize). */
static void
qp_trim_slots(struct ndk_nvmf_qpair *qp)
{
	struct nvmf_req **pp = &qp->free_list;

	while (*pp != NULL) {
		if ((*pp)->cid >= qp->nreq)
			*pp = (*pp)->next_free;
		else
			pp = &(*pp)->next_free;
	}
}

int
nvmf_qpair_create(struct nvmf_ctrlr_base *c, uint16_t qid, uint16_t qsize,
		  uint32_t icd_max, struct nvmf_connect_data *cdata,
		  uint16_t *cntlid, struct ndk_nvmf_qpair **qpp)
{
	struct ndk_nvmf_qpair *qp;
	uint16_t nslots;
	struct nvme_cmd cmd;
	struct nvme_cpl cpl;
	char sbuf[96];
	int rc;

	if (qsize < 2)
		return -EINVAL;
	qp = rte_zmalloc("nvmf_qpair", sizeof(*qp), 64);
	if (qp == NULL)
		return -ENOMEM;
	qp->ctrlr = c;
	qp->qid = qid;
	qp->qsize = qsize;
	qp->nreq = (uint16_t)(qsize - 1);
	qp->icd_max = icd_max;
	qp->timeout_tsc = nvmf_ms_to_tsc(c->opts.timeout_ms);
	nslots = qp->nreq;
	rc = qp_alloc(c, qp);
	if (rc == 0)
		rc = qp_cm_connect(c, qp, qid == 0 ? NVMF_CNTLID_DYNAMIC :
				   cdata->cntlid);
	if (rc == 0 && qp->nreq < nslots)
		qp_trim_slots(qp);
	if (rc == 0) {
		/* Connect data always by keyed SGL, as Linux sends it. */
		nvmf_build_connect(&cmd, qid, qsize, c->opts.kato_ms);
		rc = nvmf_qpair_exec_keyed(qp, &cmd, cdata, sizeof(*cdata),
					   NVMF_XFER_TO_CTRLR, &cpl);
	}
	if (rc == 0 && (cpl.status & ~NVME_STATUS_P) != 0) {
		NVMF_HOST_LOG(ERR, "queue %u: Connect failed: %s%s", qid,
			      nvmf_status_str(cpl.status, sbuf, sizeof(sbuf)),
			      nvme_status_sc(cpl.status) ==
			      NVME_SC_CONNECT_INVALID_PARAMETERS &&
			      nvme_status_sct(cpl.status) ==
			      NVME_SCT_COMMAND_SPECIFIC ?
			      ((cpl.cdw0 & NVMF_CONNECT_IATTR_DATA) ?
			       " (in the Connect data)" : " (in the command)") :
			      "");
		rc = -ECONNREFUSED;
	}
	if (rc != 0) {
		nvmf_qpair_destroy(qp);
		return rc;
	}
	if (cntlid != NULL)
		*cntlid = (uint16_t)cpl.cdw0;
	*qpp = qp;
	return 0;
}

int
nvmf_qpair_destroy(struct ndk_nvmf_qpair *qp)
{
	struct nvmf_ctrlr_base *c;
	struct ndk_result_ex res[NVMF_QP_POLL_BURST];
	int rc = 0;

	if (qp == NULL)
		return 0;
	c = qp->ctrlr;
	if (qp->connected &&
	    !__atomic_load_n(&qp->disconnected, __ATOMIC_ACQUIRE)) {
		ndk_status_t st = cm_wait(c, &qp->cm,
					  ndk_disconnect(qp->conn,
							 cm_wait_done,
							 &qp->cm));

		if (st != NDK_STATUS_SUCCESS &&
		    st != NDK_STATUS_CONNECTION_INVALID) {
			NVMF_HOST_LOG(WARNING, "queue %u: disconnect: %s",
				      qp->qid, ndk_status_str(st));
			rc = st_errno(st);
		}
	}
	/* Outstanding commands end with a path status. */
	if (qp->reqs != NULL && qp->ndkqp != NULL)
		nvmf_qpair_abort_all(qp);
	if (qp->conn != NULL)
		ndk_close_connector(qp->conn, NULL, NULL);
	if (qp->ndkqp != NULL)
		ndk_close_qp(qp->ndkqp, NULL, NULL);
	if (qp->cq != NULL) {
		while (ndk_get_cq_results_ex(qp->cq, res, NVMF_QP_POLL_BURST) != 0)
			;
	}
	/* Closing an FR MR invalidates it: no token of ours stays valid. */
	if (qp->reqs != NULL) {
		for (uint32_t i = 0; i < qp->qsize - 1u; i++) {
			if (qp->reqs[i].mr != NULL)
				ndk_close_mr(qp->reqs[i].mr, NULL, NULL);
			rte_free(qp->reqs[i].pages);
		}
	}
	if (qp->cap_mr != NULL)
		ndk_close_mr(qp->cap_mr, NULL, NULL);
	if (qp->rcv_mr != NULL)
		ndk_close_mr(qp->rcv_mr, NULL, NULL);
	if (qp->drain_mr != NULL)
		ndk_close_mr(qp->drain_mr, NULL, NULL);
	if (qp->cq != NULL)
		ndk_close_cq(qp->cq, NULL, NULL);
	rte_free(qp->reqs);
	rte_free(qp->recvs);
	rte_free(qp->cap_region);
	rte_free(qp->rcv_region);
	rte_free(qp);
	return rc;
}