/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 ndk-roce authors
 */

/*
 * Controllers: command dispatch, the Fabrics commands (Connect, Property
 * Get/Set), the controller's life (CC.EN enable and reset, CC.SHN
 * shutdown, keep-alive expiry) and asynchronous events.
 *
 * Dynamic controller model: an admin queue Connect with CNTLID FFFFh
 * creates a controller; I/O queue Connects name it by CNTLID (with the
 * same host and subsystem NQNs). A controller lives while any of its
 * queue pairs does; losing its admin queue ends its I/O queues.
 */

#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>

#include "nvmf_tgt_int.h"

#define NVMF_CAP_TO 30          /* CAP.TO: 15 s, in 500 ms units */
#define NVMF_VS NVME_VERSION(1, 3, 0)

/* ------------------------------------------------------------------ */
/* Completion                                                          */
/* ------------------------------------------------------------------ */

static void
nvmf_ctrlr_log_error(struct nvmf_req *req)
{
	struct nvmf_ctrlr *c = req->qp->ctrlr;
	struct nvme_error_log_entry *e;

	if (c == NULL)
		return;
	e = &c->errlog[c->err_count % NVMF_ERR_LOG];
	memset(e, 0, sizeof(*e));
	e->error_count = ++c->err_count;
	e->sqid = req->qp->qid;
	e->cid = req->cmd.cid;
	e->status = req->cpl->status;
	e->param_error_location = 0xFFFF;
	e->nsid = req->cmd.nsid;
	e->trtype = NVMF_TRTYPE_RDMA;
}

void
nvmf_req_complete(struct nvmf_req *req)
{
	if (req->cpl->status != 0 && req->cmd.opc != NVME_OPC_FABRICS)
		nvmf_ctrlr_log_error(req);
	req->qp->complete(req);
}

void
nvmf_req_complete_status(struct nvmf_req *req, uint8_t sct, uint8_t sc)
{
	req->cpl->status = nvme_status(sct, sc, sct != NVME_SCT_GENERIC ||
				       sc != NVME_SC_SUCCESS);
	nvmf_req_complete(req);
}

/* Connect failed on a field: INVALID_PARAMETERS with its offset. */
static void
nvmf_connect_invalid(struct nvmf_req *req, bool in_data, uint16_t ipo)
{
	req->cpl->cdw0 = ipo | (in_data ? NVMF_CONNECT_IATTR_DATA : 0);
	nvmf_req_complete_status(req, NVME_SCT_COMMAND_SPECIFIC,
				 NVME_SC_CONNECT_INVALID_PARAMETERS);
}

/* ------------------------------------------------------------------ */
/* Controllers                                                         */
/* ------------------------------------------------------------------ */

uint64_t
nvmf_ctrlr_cap(const struct ndk_nvmf_tgt *tgt)
{
	return (uint64_t)(tgt->cfg.max_queue_depth - 1) | NVME_CAP_CQR |
		(uint64_t)NVMF_CAP_TO << NVME_CAP_TO_SHIFT | NVME_CAP_CSS_NVM;
}

static struct nvmf_ctrlr *
nvmf_ctrlr_alloc(struct ndk_nvmf_tgt *tgt)
{
	struct nvmf_ctrlr *c = NULL;

	for (uint32_t i = 0; i < tgt->cfg.max_ctrlrs && c == NULL; i++)
		if (!tgt->ctrlrs[i].used)
			c = &tgt->ctrlrs[i];
	if (c == NULL)
		return NULL;
	memset(c, 0, sizeof(*c));
	c->used = true;
	/* CNTLIDs 1..FFEFh, not reused at once. */
	c->cntlid = tgt->next_cntlid;
	tgt->next_cntlid = tgt->next_cntlid >= 0xFFEF ? NVMF_CNTLID_MIN :
		(uint16_t)(tgt->next_cntlid + 1);
	c->num_io_queues = (uint16_t)tgt->cfg.max_io_queues;
	c->ka_last = rte_get_timer_cycles();
	tgt->stats.ctrlrs_now++;
	return c;
}

static struct nvmf_ctrlr *
nvmf_ctrlr_find(struct ndk_nvmf_tgt *tgt, uint16_t cntlid)
{
	for (uint32_t i = 0; i < tgt->cfg.max_ctrlrs; i++)
		if (tgt->ctrlrs[i].used && tgt->ctrlrs[i].cntlid == cntlid)
			return &tgt->ctrlrs[i];
	return NULL;
}

/* Complete the AERs held with @p status (reset, teardown). */
static void
nvmf_ctrlr_end_aers(struct nvmf_ctrlr *c, uint8_t sc)
{
	while (c->naer > 0) {
		struct nvmf_req *req = c->aer[--c->naer];

		nvmf_req_complete_status(req, NVME_SCT_GENERIC, sc);
	}
}

void
nvmf_ctrlr_release_aers(struct nvmf_ctrlr *c)
{
	nvmf_ctrlr_end_aers(c, NVME_SC_ABORTED_SQ_DELETION);
}

/* Close every I/O queue of @p c. */
static void
nvmf_ctrlr_close_io(struct nvmf_ctrlr *c)
{
	for (uint32_t q = 1; q <= NVMF_MAX_IO_QUEUES; q++)
		if (c->io[q] != NULL)
			nvmf_qpair_close(c->io[q]);
}

void
nvmf_ctrlr_qpair_gone(struct nvmf_qpair *qp)
{
	struct nvmf_ctrlr *c = qp->ctrlr;
	struct ndk_nvmf_tgt *tgt = qp->tgt;

	qp->ctrlr = NULL;
	if (qp->qid == 0) {
		c->admin = NULL;
		nvmf_ctrlr_release_aers(c);
		nvmf_ctrlr_close_io(c);
	} else if (qp->qid <= NVMF_MAX_IO_QUEUES && c->io[qp->qid] == qp) {
		c->io[qp->qid] = NULL;
	}
	if (--c->nqpairs == 0) {
		c->used = false;
		tgt->stats.ctrlrs_now--;
	}
}

void
nvmf_ctrlr_shutdown_check(struct nvmf_ctrlr *c)
{
	if (!c->shn_pending)
		return;
	for (uint32_t i = 0; i < NVMF_MAX_NS; i++)
		if (c->subsys->ns[i] != NULL &&
		    !nvmf_bdev_sync_done(c->subsys->ns[i]->bdev,
					 c->shn_ticket[i]))
			return;
	c->shn_pending = false;
	c->csts = (c->csts & ~NVME_CSTS_SHST_MASK) | NVME_CSTS_SHST_COMPLETE;
}

void
nvmf_ctrlr_keep_alive_check(struct ndk_nvmf_tgt *tgt, uint64_t now)
{
	uint64_t hz = rte_get_timer_hz();

	for (uint32_t i = 0; i < tgt->cfg.max_ctrlrs; i++) {
		struct nvmf_ctrlr *c = &tgt->ctrlrs[i];

		if (c->used)
			nvmf_ctrlr_shutdown_check(c);
		if (!c->used || c->admin == NULL || c->kato_ms == 0)
			continue;
		if (now - c->ka_last <= hz * c->kato_ms / 1000)
			continue;
		NVMF_LOG(NOTICE, "controller %u (%s): keep-alive expired "
			 "after %u ms\n", c->cntlid, c->hostnqn, c->kato_ms);
		tgt->stats.keep_alive_expiries++;
		c->csts |= NVME_CSTS_CFS;
		nvmf_qpair_close(c->admin);
	}
}

void
nvmf_ctrlr_aer_fire(struct nvmf_ctrlr *c)
{
	struct nvmf_req *req;

	if (!c->ns_changed || c->ns_event_masked || c->naer == 0 ||
	    !(c->aec & NVME_CTRL_OAES_NS_ATTR))
		return;
	req = c->aer[--c->naer];
	c->ns_changed = false;
	c->ns_event_masked = true;
	req->cpl->cdw0 = nvme_aer_dw0(NVME_AER_TYPE_NOTICE,
				      NVME_AER_NOTICE_NS_CHANGED,
				      NVME_LOG_CHANGED_NS);
	nvmf_req_complete(req);
}

void
nvmf_ctrlr_ns_changed(struct ndk_nvmf_subsystem *s, uint32_t nsid)
{
	struct ndk_nvmf_tgt *tgt = s->tgt;

	for (uint32_t i = 0; i < tgt->cfg.max_ctrlrs; i++) {
		struct nvmf_ctrlr *c = &tgt->ctrlrs[i];
		bool seen = false;

		if (!c->used || c->subsys != s)
			continue;
		for (uint32_t k = 0; k < c->nchanged; k++)
			seen |= c->changed[k] == nsid;
		if (!seen && c->nchanged < NVMF_MAX_NS)
			c->changed[c->nchanged++] = nsid;
		c->ns_changed = true;
		nvmf_ctrlr_aer_fire(c);
	}
}

/* ------------------------------------------------------------------ */
/* Fabrics commands                                                    */
/* ------------------------------------------------------------------ */

static void
nvmf_connect_admin(struct nvmf_req *req, struct ndk_nvmf_subsystem *s,
		   const struct nvmf_connect_cmd *cc,
		   const struct nvmf_connect_data *d)
{
	struct nvmf_qpair *qp = req->qp;
	struct nvmf_ctrlr *c;

	if (d->cntlid != NVMF_CNTLID_DYNAMIC) {
		nvmf_connect_invalid(req, true,
				     offsetof(struct nvmf_connect_data,
					      cntlid));
		return;
	}
	c = nvmf_ctrlr_alloc(qp->tgt);
	if (c == NULL) {
		nvmf_req_complete_status(req, NVME_SCT_COMMAND_SPECIFIC,
					 NVME_SC_CONNECT_CONTROLLER_BUSY);
		return;
	}
	c->subsys = s;
	memcpy(c->hostnqn, d->hostnqn, NVMF_NQN_SIZE - 1);
	memcpy(c->hostid, d->hostid, sizeof(c->hostid));
	/* KATO 0 means none; a discovery controller may go without. */
	c->kato_ms = cc->kato;
	if (c->kato_ms == 0 && !s->discovery)
		c->kato_ms = NVMF_KATO_DEFAULT_MS;
	c->admin = qp;
	c->nqpairs = 1;
	qp->ctrlr = c;
	req->cpl->cdw0 = c->cntlid;
	NVMF_LOG(INFO, "controller %u: %s for %s, kato %u ms\n", c->cntlid,
		 s->nqn, c->hostnqn, c->kato_ms);
	nvmf_req_complete(req);
}

static void
nvmf_connect_io(struct nvmf_req *req, struct ndk_nvmf_subsystem *s,
		const struct nvmf_connect_cmd *cc,
		const struct nvmf_connect_data *d)
{
	struct nvmf_qpair *qp = req->qp;
	struct nvmf_ctrlr *c = nvmf_ctrlr_find(qp->tgt, d->cntlid);

	if (c == NULL || c->subsys != s ||
	    strncmp(c->hostnqn, d->hostnqn, NVMF_NQN_SIZE) != 0) {
		nvmf_connect_invalid(req, true,
				     offsetof(struct nvmf_connect_data,
					      cntlid));
		return;
	}
	if (s->discovery || !(c->csts & NVME_CSTS_RDY) || c->admin == NULL) {
		nvmf_req_complete_status(req, NVME_SCT_GENERIC,
					 NVME_SC_COMMAND_SEQUENCE_ERROR);
		return;
	}
	if (cc->qid > c->num_io_queues || c->io[cc->qid] != NULL) {
		nvmf_req_complete_status(req, NVME_SCT_COMMAND_SPECIFIC,
					 NVME_SC_INVALID_QUEUE_IDENTIFIER);
		return;
	}
	c->io[cc->qid] = qp;
	c->nqpairs++;
	/* nqpairs counts the admin queue too */
	if (c->nqpairs - 1 > qp->tgt->stats.io_queues_max)
		qp->tgt->stats.io_queues_max = c->nqpairs - 1;
	qp->ctrlr = c;
	req->cpl->cdw0 = c->cntlid;
	nvmf_req_complete(req);
}

static void
nvmf_fabrics_connect(struct nvmf_req *req)
{
	const struct nvmf_connect_cmd *cc = (const void *)&req->cmd;
	const struct nvmf_connect_data *d = (const void *)req->data;
	struct nvmf_qpair *qp = req->qp;
	struct ndk_nvmf_subsystem *s;
	char subnqn[NVMF_NQN_SIZE], hostnqn[NVMF_NQN_SIZE];

	if (qp->ctrlr != NULL) {
		nvmf_req_complete_status(req, NVME_SCT_GENERIC,
					 NVME_SC_COMMAND_SEQUENCE_ERROR);
		return;
	}
	if (req->data == NULL || req->length < sizeof(*d)) {
		nvmf_req_complete_status(req, NVME_SCT_GENERIC,
					 NVME_SC_DATA_SGL_LENGTH_INVALID);
		return;
	}
	if (cc->recfmt != 0) {
		nvmf_req_complete_status(req, NVME_SCT_COMMAND_SPECIFIC,
					 NVME_SC_CONNECT_INCOMPATIBLE_FORMAT);
		return;
	}
	if (cc->qid != qp->qid) {
		nvmf_connect_invalid(req, false,
				     offsetof(struct nvmf_connect_cmd, qid));
		return;
	}
	if (cc->sqsize == 0 || cc->sqsize >= qp->entries) {
		nvmf_connect_invalid(req, false,
				     offsetof(struct nvmf_connect_cmd, sqsize));
		return;
	}
	/* NQNs are NUL-terminated within their 256 bytes. */
	if (memchr(d->subnqn, 0, NVMF_NQN_SIZE) == NULL) {
		nvmf_connect_invalid(req, true,
				     offsetof(struct nvmf_connect_data,
					      subnqn));
		return;
	}
	if (memchr(d->hostnqn, 0, NVMF_NQN_SIZE) == NULL ||
	    d->hostnqn[0] == '\0') {
		nvmf_connect_invalid(req, true,
				     offsetof(struct nvmf_connect_data,
					      hostnqn));
		return;
	}
	memcpy(subnqn, d->subnqn, sizeof(subnqn));
	memcpy(hostnqn, d->hostnqn, sizeof(hostnqn));
	s = nvmf_tgt_find_subsys(qp->tgt, subnqn);
	if (s == NULL) {
		nvmf_connect_invalid(req, true,
				     offsetof(struct nvmf_connect_data,
					      subnqn));
		return;
	}
	if (!nvmf_subsys_host_allowed(s, hostnqn)) {
		NVMF_LOG(NOTICE, "host %s may not connect to %s\n", hostnqn,
			 subnqn);
		nvmf_req_complete_status(req, NVME_SCT_COMMAND_SPECIFIC,
					 NVME_SC_CONNECT_INVALID_HOST);
		return;
	}
	if (qp->qid == 0)
		nvmf_connect_admin(req, s, cc, d);
	else
		nvmf_connect_io(req, s, cc, d);
}

/* CC written: enable, reset (EN 1 -> 0), shutdown. */
static void
nvmf_ctrlr_set_cc(struct nvmf_req *req, uint32_t cc)
{
	struct nvmf_ctrlr *c = req->qp->ctrlr;
	uint32_t old = c->cc;

	if ((cc & NVME_CC_EN) && !(old & NVME_CC_EN)) {
		uint32_t sqes = (cc >> NVME_CC_IOSQES_SHIFT) & 0xF;
		uint32_t cqes = (cc >> NVME_CC_IOCQES_SHIFT) & 0xF;

		/* Entry sizes: 64 / 16 bytes (or 0 on a discovery one). */
		if ((sqes != 6 || cqes != 4) &&
		    !(c->subsys->discovery && sqes == 0 && cqes == 0)) {
			nvmf_req_complete_status(req, NVME_SCT_GENERIC,
						 NVME_SC_INVALID_FIELD);
			return;
		}
		c->csts = NVME_CSTS_RDY;
	} else if (!(cc & NVME_CC_EN) && (old & NVME_CC_EN)) {
		/* Controller reset: the I/O queues go, AERs are aborted. */
		nvmf_ctrlr_close_io(c);
		nvmf_ctrlr_end_aers(c, NVME_SC_ABORTED_SQ_DELETION);
		c->csts = 0;
		c->num_io_set = false;
	}
	if ((cc & NVME_CC_SHN_MASK) != 0 && (old & NVME_CC_SHN_MASK) == 0) {
		/* Shutdown: the I/O queues go, file namespaces are synced;
		 * SHST is "occurring" until they are (nvmf_ctrlr_shutdown_
		 * check(), from the poll loop's timer). */
		nvmf_ctrlr_close_io(c);
		for (uint32_t i = 0; i < NVMF_MAX_NS; i++)
			c->shn_ticket[i] = c->subsys->ns[i] == NULL ? 0 :
				nvmf_bdev_sync_request(c->subsys->ns[i]->bdev);
		c->shn_pending = true;
		c->csts = (c->csts & ~NVME_CSTS_SHST_MASK) |
			NVME_CSTS_SHST_OCCURRING;
		nvmf_ctrlr_shutdown_check(c);
	} else if ((cc & NVME_CC_SHN_MASK) == 0) {
		c->shn_pending = false;
		c->csts &= ~NVME_CSTS_SHST_MASK;
	}
	c->cc = cc;
	nvmf_req_complete(req);
}

static void
nvmf_fabrics_property(struct nvmf_req *req, bool set)
{
	const struct nvmf_property_cmd *pc = (const void *)&req->cmd;
	struct nvmf_ctrlr *c = req->qp->ctrlr;
	bool size8 = (pc->attrib & 7) == NVMF_PROP_SIZE_8;
	uint64_t v;

	if ((pc->attrib & 7) > NVMF_PROP_SIZE_8) {
		nvmf_req_complete_status(req, NVME_SCT_GENERIC,
					 NVME_SC_INVALID_FIELD);
		return;
	}
	if (set) {
		if (pc->offset != NVME_PROP_CC || size8) {
			nvmf_req_complete_status(req, NVME_SCT_GENERIC,
						 NVME_SC_INVALID_FIELD);
			return;
		}
		nvmf_ctrlr_set_cc(req, (uint32_t)pc->value);
		return;
	}
	switch (pc->offset) {
	case NVME_PROP_CAP:
		v = nvmf_ctrlr_cap(req->qp->tgt);
		break;
	case NVME_PROP_VS:
		v = NVMF_VS;
		break;
	case NVME_PROP_CC:
		v = c->cc;
		break;
	case NVME_PROP_CSTS:
		v = c->csts;
		break;
	default:
		nvmf_req_complete_status(req, NVME_SCT_GENERIC,
					 NVME_SC_INVALID_FIELD);
		return;
	}
	/* CAP is the only 8-byte property; 4-byte ones read as 4. */
	if (size8 != (pc->offset == NVME_PROP_CAP)) {
		nvmf_req_complete_status(req, NVME_SCT_GENERIC,
					 NVME_SC_INVALID_FIELD);
		return;
	}
	req->cpl->cdw0 = (uint32_t)v;
	req->cpl->cdw1 = (uint32_t)(v >> 32);
	nvmf_req_complete(req);
}

static void
nvmf_fabrics_exec(struct nvmf_req *req)
{
	const struct nvmf_cmd *fc = (const void *)&req->cmd;
	struct nvmf_qpair *qp = req->qp;

	if (fc->fctype == NVMF_FCTYPE_CONNECT) {
		nvmf_fabrics_connect(req);
		return;
	}
	if (qp->ctrlr == NULL) {
		nvmf_req_complete_status(req, NVME_SCT_GENERIC,
					 NVME_SC_COMMAND_SEQUENCE_ERROR);
		return;
	}
	if (qp->qid != 0 && (fc->fctype == NVMF_FCTYPE_PROPERTY_GET ||
			     fc->fctype == NVMF_FCTYPE_PROPERTY_SET)) {
		nvmf_req_complete_status(req, NVME_SCT_GENERIC,
					 NVME_SC_INVALID_OPCODE);
		return;
	}
	switch (fc->fctype) {
	case NVMF_FCTYPE_PROPERTY_GET:
		nvmf_fabrics_property(req, false);
		break;
	case NVMF_FCTYPE_PROPERTY_SET:
		nvmf_fabrics_property(req, true);
		break;
	default:
		nvmf_req_complete_status(req, NVME_SCT_GENERIC,
					 NVME_SC_INVALID_OPCODE);
		break;
	}
}

/* ------------------------------------------------------------------ */
/* Dispatch                                                            */
/* ------------------------------------------------------------------ */

void
nvmf_req_exec(struct nvmf_req *req)
{
	struct nvmf_qpair *qp = req->qp;
	struct nvmf_ctrlr *c = qp->ctrlr;

	if (req->cmd.opc == NVME_OPC_FABRICS) {
		nvmf_fabrics_exec(req);
		return;
	}
	if (c == NULL) {
		/* Nothing but Connect before Connect. */
		nvmf_req_complete_status(req, NVME_SCT_GENERIC,
					 NVME_SC_COMMAND_SEQUENCE_ERROR);
		return;
	}
	if ((req->cmd.flags & NVME_CMD_FUSE_MASK) != 0) {
		nvmf_req_complete_status(req, NVME_SCT_GENERIC,
					 NVME_SC_INVALID_FIELD);
		return;
	}
	if (qp->qid == 0) {
		c->ka_last = rte_get_timer_cycles();
		nvmf_admin_exec(req);
		return;
	}
	if (!(c->csts & NVME_CSTS_RDY) || (c->csts & NVME_CSTS_SHST_MASK)) {
		nvmf_req_complete_status(req, NVME_SCT_GENERIC,
					 NVME_SC_COMMAND_SEQUENCE_ERROR);
		return;
	}
	nvmf_io_exec(req);
}
