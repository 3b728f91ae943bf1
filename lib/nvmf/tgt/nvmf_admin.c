/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 ndk-roce authors
 */

/*
 * Admin commands of I/O and discovery controllers: Identify (controller,
 * namespace, active namespace list, namespace identification descriptors,
 * and their NVM command set variants), Get Log Page (error information,
 * SMART / health, changed namespace list, discovery), Get / Set Features,
 * Keep Alive, Asynchronous Event Request, Abort.
 */

#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include "nvmf_tgt_int.h"

#define NVMF_FW_REV "1.0"

static void
nvmf_pad(char *dst, size_t n, const char *src)
{
	size_t l = strnlen(src, n);

	memset(dst, ' ', n);
	memcpy(dst, src, l);
}

/* Copy @p len bytes of a data structure to the host's buffer. */
static void
nvmf_admin_reply(struct nvmf_req *req, const void *src, size_t len)
{
	uint32_t n = (uint32_t)RTE_MIN((size_t)req->length, len);

	memcpy(req->data, src, n);
	req->xfer_len = n;
	nvmf_req_complete(req);
}

static void
nvmf_fail(struct nvmf_req *req, uint8_t sct, uint8_t sc)
{
	nvmf_req_complete_status(req, sct, sc);
}

static struct nvmf_ns *
nvmf_ns_get(const struct nvmf_ctrlr *c, uint32_t nsid)
{
	if (nsid == 0 || nsid > NVMF_MAX_NS)
		return NULL;
	return c->subsys->ns[nsid - 1];
}

/* ------------------------------------------------------------------ */
/* Identify                                                            */
/* ------------------------------------------------------------------ */

static void
nvmf_identify_ctrlr(struct nvmf_req *req)
{
	struct nvmf_ctrlr *c = req->qp->ctrlr;
	struct ndk_nvmf_tgt *tgt = req->qp->tgt;
	struct nvme_id_ctrl *id = (struct nvme_id_ctrl *)tgt->scratch;

	memset(id, 0, sizeof(*id));
	nvmf_pad(id->sn, sizeof(id->sn), c->subsys->sn);
	nvmf_pad(id->mn, sizeof(id->mn), tgt->model);
	nvmf_pad(id->fr, sizeof(id->fr), NVMF_FW_REV);
	id->rab = 6;
	id->mdts = (uint8_t)rte_bsf32(tgt->cfg.max_io_size / NDK_PAGE_SIZE);
	id->cntlid = c->cntlid;
	id->ver = NVME_VERSION(1, 3, 0);
	id->cntrltype = c->subsys->discovery ? NVME_CTRL_TYPE_DISCOVERY :
		NVME_CTRL_TYPE_IO;
	id->acl = 3;
	id->aerl = NVMF_AER_MAX - 1;
	id->lpa = 0x04;         /* extended data for Get Log Page */
	id->elpe = NVMF_ERR_LOG - 1;
	id->kas = 10;           /* 1 s granularity */
	id->sgls = NVME_CTRL_SGLS_SUPPORTED | NVME_CTRL_SGLS_KEYED |
		(tgt->cfg.in_capsule_data_size > 0 ? NVME_CTRL_SGLS_OFFSET : 0);
	id->maxcmd = (uint16_t)tgt->cfg.max_queue_depth;
	snprintf(id->subnqn, sizeof(id->subnqn), "%s", c->subsys->nqn);
	id->ioccsz = (uint32_t)(sizeof(struct nvme_cmd) +
				tgt->cfg.in_capsule_data_size) / 16;
	id->iorcsz = sizeof(struct nvme_cpl) / 16;
	id->icdoff = 0;
	id->msdbd = NVMF_MAX_SGL_DESC;
	if (!c->subsys->discovery) {
		id->oaes = NVME_CTRL_OAES_NS_ATTR;
		id->sqes = 0x66;
		id->cqes = 0x44;
		id->nn = NVMF_MAX_NS;
		id->oncs = NVME_CTRL_ONCS_DSM | NVME_CTRL_ONCS_WRITE_ZEROES;
		/* Present; Flush with NSID FFFFFFFFh not supported. */
		id->vwc = 0x1 | 0x2 << 1;
	}
	nvmf_admin_reply(req, id, sizeof(*id));
}

static void
nvmf_identify_ns(struct nvmf_req *req, const struct nvmf_ns *ns)
{
	struct nvme_id_ns *id = (struct nvme_id_ns *)req->qp->tgt->scratch;

	memset(id, 0, sizeof(*id));
	if (ns != NULL) {
		id->nsze = ns->nblocks;
		id->ncap = ns->nblocks;
		id->nuse = ns->nblocks;
		id->nsfeat = NVME_NS_FEAT_THIN;
		id->nlbaf = 0;
		id->flbas = 0;
		id->dlfeat = ns->read_zeroes ? NVME_NS_DLFEAT_READ_ZEROES : 0;
		id->lbaf[0].lbads = (uint8_t)ns->block_shift;
		memcpy(id->nguid, ns->uuid, sizeof(id->nguid));
	}
	nvmf_admin_reply(req, id, sizeof(*id));
}

static void
nvmf_identify_active_list(struct nvmf_req *req, uint32_t after)
{
	struct nvmf_ctrlr *c = req->qp->ctrlr;
	uint32_t *list = (uint32_t *)req->qp->tgt->scratch;
	uint32_t n = 0;

	memset(list, 0, NVME_IDENTIFY_SIZE);
	for (uint32_t nsid = after + 1; nsid <= NVMF_MAX_NS && after < 0xFFFFFFFE;
	     nsid++)
		if (c->subsys->ns[nsid - 1] != NULL)
			list[n++] = nsid;
	nvmf_admin_reply(req, list, NVME_IDENTIFY_SIZE);
}

static void
nvmf_identify_desc_list(struct nvmf_req *req, const struct nvmf_ns *ns)
{
	uint8_t *p = req->qp->tgt->scratch;

	memset(p, 0, NVME_IDENTIFY_SIZE);
	p[0] = NVME_NIDT_NGUID;
	p[1] = 16;
	memcpy(p + 4, ns->uuid, 16);
	p[20] = NVME_NIDT_UUID;
	p[21] = 16;
	memcpy(p + 24, ns->uuid, 16);
	p[40] = NVME_NIDT_CSI;
	p[41] = 1;
	p[44] = 0;              /* NVM command set */
	nvmf_admin_reply(req, p, NVME_IDENTIFY_SIZE);
}

static void
nvmf_admin_identify(struct nvmf_req *req)
{
	struct nvmf_ctrlr *c = req->qp->ctrlr;
	uint8_t cns = (uint8_t)req->cmd.cdw10;
	uint8_t csi = (uint8_t)(req->cmd.cdw11 >> 24);
	uint32_t nsid = req->cmd.nsid;
	struct nvmf_ns *ns;

	if (req->xfer != NVMF_XFER_C2H || req->data == NULL) {
		nvmf_fail(req, NVME_SCT_GENERIC,
			  NVME_SC_DATA_SGL_LENGTH_INVALID);
		return;
	}
	if (c->subsys->discovery && cns != NVME_CNS_CONTROLLER) {
		nvmf_fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD);
		return;
	}
	switch (cns) {
	case NVME_CNS_CONTROLLER:
		nvmf_identify_ctrlr(req);
		return;
	case NVME_CNS_CSI_CONTROLLER:
		if (csi != 0)
			break;
		/* NVM command set specific: no limits beyond MDTS. */
		memset(req->qp->tgt->scratch, 0, NVME_IDENTIFY_SIZE);
		nvmf_admin_reply(req, req->qp->tgt->scratch,
				 NVME_IDENTIFY_SIZE);
		return;
	case NVME_CNS_NAMESPACE:
	case NVME_CNS_CSI_NAMESPACE:
		if (cns == NVME_CNS_CSI_NAMESPACE && csi != 0)
			break;
		if (nsid == 0 || (nsid > NVMF_MAX_NS && nsid != 0xFFFFFFFF)) {
			nvmf_fail(req, NVME_SCT_GENERIC,
				  NVME_SC_INVALID_NAMESPACE);
			return;
		}
		/* Inactive NSIDs (and FFFFFFFFh) read as zeroes. */
		ns = nvmf_ns_get(c, nsid);
		if (cns == NVME_CNS_CSI_NAMESPACE)
			ns = NULL;  /* NVM specific part: all zero */
		nvmf_identify_ns(req, ns);
		return;
	case NVME_CNS_ACTIVE_NS_LIST:
	case NVME_CNS_CSI_ACTIVE_NS_LIST:
		if (cns == NVME_CNS_CSI_ACTIVE_NS_LIST && csi != 0)
			break;
		if (nsid >= 0xFFFFFFFE) {
			nvmf_fail(req, NVME_SCT_GENERIC,
				  NVME_SC_INVALID_NAMESPACE);
			return;
		}
		nvmf_identify_active_list(req, nsid);
		return;
	case NVME_CNS_NS_ID_DESC_LIST:
		ns = nvmf_ns_get(c, nsid);
		if (ns == NULL) {
			nvmf_fail(req, NVME_SCT_GENERIC,
				  NVME_SC_INVALID_NAMESPACE);
			return;
		}
		nvmf_identify_desc_list(req, ns);
		return;
	default:
		break;
	}
	nvmf_fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD);
}

/* ------------------------------------------------------------------ */
/* Get Log Page                                                        */
/* ------------------------------------------------------------------ */

static void
nvmf_le128_set(uint8_t *dst, uint64_t v)
{
	memset(dst, 0, 16);
	memcpy(dst, &v, sizeof(v));
}

static size_t
nvmf_log_smart(struct nvmf_ctrlr *c, uint8_t *buf)
{
	struct nvme_smart_log *l = (struct nvme_smart_log *)buf;
	uint16_t kelvin = 273 + 30;

	memset(l, 0, sizeof(*l));
	memcpy(&l->temperature, &kelvin, sizeof(kelvin));
	l->avail_spare = 100;
	l->avail_spare_threshold = 10;
	/* Data units: thousands of 512-byte units, rounded up. */
	nvmf_le128_set(l->data_units_read, (c->units_read + 999) / 1000);
	nvmf_le128_set(l->data_units_written, (c->units_written + 999) / 1000);
	nvmf_le128_set(l->host_reads, c->host_reads);
	nvmf_le128_set(l->host_writes, c->host_writes);
	nvmf_le128_set(l->power_cycles, 1);
	nvmf_le128_set(l->num_err_log_entries, c->err_count);
	return sizeof(*l);
}

static size_t
nvmf_log_error(struct nvmf_ctrlr *c, uint8_t *buf)
{
	struct nvme_error_log_entry *e = (struct nvme_error_log_entry *)buf;
	uint64_t n = RTE_MIN(c->err_count, (uint64_t)NVMF_ERR_LOG);

	memset(e, 0, sizeof(*e) * NVMF_ERR_LOG);
	/* Newest first. */
	for (uint64_t i = 0; i < n; i++)
		e[i] = c->errlog[(c->err_count - 1 - i) % NVMF_ERR_LOG];
	return sizeof(*e) * NVMF_ERR_LOG;
}

static size_t
nvmf_log_changed_ns(struct nvmf_ctrlr *c, uint8_t *buf, bool rae)
{
	uint32_t *list = (uint32_t *)buf;

	memset(list, 0, NVME_CHANGED_NS_MAX * sizeof(uint32_t));
	for (uint32_t i = 0; i < c->nchanged; i++)
		list[i] = c->changed[i];
	if (!rae) {
		c->nchanged = 0;
		c->ns_event_masked = false;
	}
	return NVME_CHANGED_NS_MAX * sizeof(uint32_t);
}

static void
nvmf_admin_get_log(struct nvmf_req *req)
{
	struct nvmf_ctrlr *c = req->qp->ctrlr;
	struct ndk_nvmf_tgt *tgt = req->qp->tgt;
	uint8_t lid = nvme_log_lid(&req->cmd);
	uint64_t off = nvme_log_offset(&req->cmd);
	uint64_t len = nvme_log_len(&req->cmd);
	bool rae = (req->cmd.cdw10 >> 15) & 1;
	size_t size;

	if (req->xfer != NVMF_XFER_C2H || req->data == NULL ||
	    len > req->length) {
		nvmf_fail(req, NVME_SCT_GENERIC,
			  NVME_SC_DATA_SGL_LENGTH_INVALID);
		return;
	}
	if (off % 4 != 0) {
		nvmf_fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD);
		return;
	}
	if (c->subsys->discovery) {
		if (lid != NVME_LOG_DISCOVERY) {
			nvmf_fail(req, NVME_SCT_COMMAND_SPECIFIC,
				  NVME_SC_INVALID_LOG_PAGE);
			return;
		}
		size = nvmf_disc_log(tgt, c->hostnqn, tgt->scratch,
				     tgt->scratch_size);
	} else {
		switch (lid) {
		case NVME_LOG_ERROR:
			size = nvmf_log_error(c, tgt->scratch);
			break;
		case NVME_LOG_SMART:
			size = nvmf_log_smart(c, tgt->scratch);
			break;
		case NVME_LOG_CHANGED_NS:
			size = nvmf_log_changed_ns(c, tgt->scratch, rae);
			break;
		default:
			nvmf_fail(req, NVME_SCT_COMMAND_SPECIFIC,
				  NVME_SC_INVALID_LOG_PAGE);
			return;
		}
	}
	if (off > size) {
		nvmf_fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD);
		return;
	}
	/* Past the log's end the host's buffer reads zeroes. */
	memset(req->data, 0, len);
	memcpy(req->data, tgt->scratch + off, RTE_MIN(len, size - off));
	req->xfer_len = (uint32_t)len;
	nvmf_req_complete(req);
}

/* ------------------------------------------------------------------ */
/* Features                                                            */
/* ------------------------------------------------------------------ */

static void
nvmf_admin_features(struct nvmf_req *req, bool set)
{
	struct nvmf_ctrlr *c = req->qp->ctrlr;
	uint8_t fid = (uint8_t)req->cmd.cdw10;
	uint8_t sel = (uint8_t)((req->cmd.cdw10 >> 8) & 7);
	uint32_t v = req->cmd.cdw11;
	uint32_t nq;

	if (set && (req->cmd.cdw10 & NVME_FEAT_SAVE)) {
		nvmf_fail(req, NVME_SCT_COMMAND_SPECIFIC,
			  NVME_SC_FEATURE_ID_NOT_SAVEABLE);
		return;
	}
	if (!set && sel == NVME_FEAT_SEL_SUPPORTED) {
		/* Changeable, not saveable, not namespace specific. */
		req->cpl->cdw0 = 0x4;
		nvmf_req_complete(req);
		return;
	}
	if (!set && sel > NVME_FEAT_SEL_SUPPORTED) {
		nvmf_fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD);
		return;
	}
	if (c->subsys->discovery && fid != NVME_FEAT_KEEP_ALIVE_TIMER &&
	    fid != NVME_FEAT_ASYNC_EVENT) {
		nvmf_fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD);
		return;
	}
	switch (fid) {
	case NVME_FEAT_NUM_QUEUES:
		if (set) {
			if ((v & 0xFFFF) == 0xFFFF || (v >> 16) == 0xFFFF) {
				nvmf_fail(req, NVME_SCT_GENERIC,
					  NVME_SC_INVALID_FIELD);
				return;
			}
			for (uint32_t q = 1; q <= NVMF_MAX_IO_QUEUES; q++)
				if (c->io[q] != NULL) {
					nvmf_fail(req, NVME_SCT_GENERIC,
						  NVME_SC_COMMAND_SEQUENCE_ERROR);
					return;
				}
			nq = RTE_MAX(v & 0xFFFF, v >> 16) + 1;
			nq = RTE_MIN(nq, req->qp->tgt->cfg.max_io_queues);
			c->num_io_queues = (uint16_t)nq;
			c->num_io_set = true;
		}
		nq = c->num_io_queues - 1u;
		req->cpl->cdw0 = nq | nq << 16;
		break;
	case NVME_FEAT_ASYNC_EVENT:
		if (set)
			c->aec = v & NVME_CTRL_OAES_NS_ATTR;
		req->cpl->cdw0 = c->aec;
		if (set)
			nvmf_ctrlr_aer_fire(c);
		break;
	case NVME_FEAT_KEEP_ALIVE_TIMER:
		if (set) {
			/* Granularity 1 s (KAS): round up. */
			c->kato_ms = (v + 999) / 1000 * 1000;
		}
		req->cpl->cdw0 = c->kato_ms;
		break;
	case NVME_FEAT_VOLATILE_WC:
		if (set)
			c->vwc = v & 1;
		req->cpl->cdw0 = c->vwc;
		break;
	case NVME_FEAT_ARBITRATION:
	case NVME_FEAT_POWER_MGMT:
	case NVME_FEAT_TEMP_THRESHOLD:
	case NVME_FEAT_ERROR_RECOVERY:
	case NVME_FEAT_IRQ_COALESCE:
	case NVME_FEAT_IRQ_CONFIG:
	case NVME_FEAT_WRITE_ATOMIC:
		if (set)
			c->feat[fid] = v;
		req->cpl->cdw0 = c->feat[fid];
		break;
	case NVME_FEAT_HOST_ID:
		if (set) {
			/* Fabrics: the host identifier is Connect's. */
			nvmf_fail(req, NVME_SCT_GENERIC,
				  NVME_SC_COMMAND_SEQUENCE_ERROR);
			return;
		}
		if (req->xfer != NVMF_XFER_C2H || req->length < 16) {
			nvmf_fail(req, NVME_SCT_GENERIC,
				  NVME_SC_DATA_SGL_LENGTH_INVALID);
			return;
		}
		nvmf_admin_reply(req, c->hostid, sizeof(c->hostid));
		return;
	default:
		nvmf_fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD);
		return;
	}
	nvmf_req_complete(req);
}

/* ------------------------------------------------------------------ */
/* Dispatch                                                            */
/* ------------------------------------------------------------------ */

static void
nvmf_admin_aer(struct nvmf_req *req)
{
	struct nvmf_ctrlr *c = req->qp->ctrlr;

	if (c->naer == NVMF_AER_MAX) {
		nvmf_fail(req, NVME_SCT_COMMAND_SPECIFIC,
			  NVME_SC_ASYNC_EVENT_REQUEST_LIMIT_EXCEEDED);
		return;
	}
	c->aer[c->naer++] = req;
	nvmf_ctrlr_aer_fire(c);
}

void
nvmf_admin_exec(struct nvmf_req *req)
{
	struct nvmf_ctrlr *c = req->qp->ctrlr;
	uint8_t opc = req->cmd.opc;

	/* Before CC.EN (and after shutdown) only properties may change. */
	if (!(c->csts & NVME_CSTS_RDY)) {
		nvmf_fail(req, NVME_SCT_GENERIC,
			  NVME_SC_COMMAND_SEQUENCE_ERROR);
		return;
	}
	switch (opc) {
	case NVME_OPC_IDENTIFY:
		nvmf_admin_identify(req);
		break;
	case NVME_OPC_GET_LOG_PAGE:
		nvmf_admin_get_log(req);
		break;
	case NVME_OPC_SET_FEATURES:
	case NVME_OPC_GET_FEATURES:
		nvmf_admin_features(req, opc == NVME_OPC_SET_FEATURES);
		break;
	case NVME_OPC_KEEP_ALIVE:
		nvmf_req_complete(req);
		break;
	case NVME_OPC_ASYNC_EVENT_REQUEST:
		nvmf_admin_aer(req);
		break;
	case NVME_OPC_ABORT:
		if (c->subsys->discovery) {
			nvmf_fail(req, NVME_SCT_GENERIC,
				  NVME_SC_INVALID_OPCODE);
			break;
		}
		/* Commands run to completion here: nothing to abort. */
		req->cpl->cdw0 = 1;
		nvmf_req_complete(req);
		break;
	default:
		nvmf_fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_OPCODE);
		break;
	}
}
