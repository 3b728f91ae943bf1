/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The host's codecs: RDMA CM private data of the NVMe/RDMA binding, the
 * command capsules it sends, their SGLs, and the checks a response
 * capsule passes before it is matched to its command. Pure functions.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include "host_priv.h"

/* ------------------------------------------------------------------ */
/* RDMA CM private data                                                */
/* ------------------------------------------------------------------ */

void
nvmf_cm_req_encode(struct nvmf_rdma_cm_req *req, uint16_t qid,
		   uint16_t hrqsize, uint16_t hsqsize, uint16_t cntlid)
{
	memset(req, 0, sizeof(*req));
	req->recfmt = 0;
	req->qid = qid;
	req->hrqsize = hrqsize;
	req->hsqsize = hsqsize;
	req->cntlid = cntlid;
}

int
nvmf_cm_rep_decode(const void *pdata, uint32_t len, uint16_t *crqsize)
{
	struct nvmf_rdma_cm_rep rep;

	if (pdata == NULL || len < offsetof(struct nvmf_rdma_cm_rep, rsvd4))
		return -EPROTO;
	memset(&rep, 0, sizeof(rep));
	memcpy(&rep, pdata, RTE_MIN(len, (uint32_t)sizeof(rep)));
	if (rep.recfmt != 0 || rep.crqsize == 0)
		return -EPROTO;
	*crqsize = rep.crqsize;
	return 0;
}

int
nvmf_cm_rej_decode(const void *pdata, uint32_t len, uint16_t *sts)
{
	struct nvmf_rdma_cm_rej rej;

	if (pdata == NULL || len < sizeof(rej))
		return -ENODATA;
	memcpy(&rej, pdata, sizeof(rej));
	if (rej.recfmt != 0 || rej.sts == 0)
		return -ENODATA;
	*sts = rej.sts;
	return 0;
}

const char *
nvmf_cm_status_str(uint16_t sts)
{
	static const char *const names[] = {
		[NVMF_RDMA_CM_INVALID_LENGTH] = "invalid private data length",
		[NVMF_RDMA_CM_INVALID_RECFMT] = "invalid record format",
		[NVMF_RDMA_CM_INVALID_QID] = "invalid queue ID",
		[NVMF_RDMA_CM_INVALID_HSQSIZE] = "invalid host SQ size",
		[NVMF_RDMA_CM_INVALID_HRQSIZE] = "invalid host RQ size",
		[NVMF_RDMA_CM_NO_RESOURCES] = "no resources",
		[NVMF_RDMA_CM_INVALID_IRD] = "invalid IRD",
		[NVMF_RDMA_CM_INVALID_ORD] = "invalid ORD",
		[NVMF_RDMA_CM_INVALID_CNTLID] = "invalid controller ID",
	};

	if (sts < RTE_DIM(names) && names[sts] != NULL)
		return names[sts];
	return "unknown reject status";
}

const char *
nvmf_status_str(uint16_t status, char *buf, size_t len)
{
	uint8_t sct = nvme_status_sct(status), sc = nvme_status_sc(status);
	const char *what = "";

	if (sct == NVME_SCT_GENERIC) {
		switch (sc) {
		case NVME_SC_SUCCESS: what = "success"; break;
		case NVME_SC_INVALID_OPCODE: what = "invalid opcode"; break;
		case NVME_SC_INVALID_FIELD: what = "invalid field"; break;
		case NVME_SC_DATA_TRANSFER_ERROR: what = "data transfer error";
			break;
		case NVME_SC_INTERNAL_ERROR: what = "internal error"; break;
		case NVME_SC_INVALID_NAMESPACE: what = "invalid namespace";
			break;
		case NVME_SC_COMMAND_SEQUENCE_ERROR:
			what = "command sequence error"; break;
		case NVME_SC_SGL_DESC_TYPE_INVALID:
			what = "SGL descriptor type invalid"; break;
		case NVME_SC_DATA_SGL_LENGTH_INVALID:
			what = "data SGL length invalid"; break;
		case NVME_SC_LBA_OUT_OF_RANGE: what = "LBA out of range"; break;
		default: break;
		}
	} else if (sct == NVME_SCT_COMMAND_SPECIFIC) {
		switch (sc) {
		case NVME_SC_INVALID_QUEUE_IDENTIFIER:
			what = "invalid queue identifier"; break;
		case NVME_SC_INVALID_QUEUE_SIZE:
			what = "invalid queue size"; break;
		case NVME_SC_CONNECT_INCOMPATIBLE_FORMAT:
			what = "(connect) incompatible format / conflicting "
				"attributes"; break;
		case NVME_SC_CONNECT_CONTROLLER_BUSY:
			what = "(connect) controller busy"; break;
		case NVME_SC_CONNECT_INVALID_PARAMETERS:
			what = "(connect) invalid parameters"; break;
		case NVME_SC_CONNECT_INVALID_HOST:
			what = "(connect) invalid host"; break;
		default: break;
		}
	} else if (sct == NVME_SCT_PATH) {
		switch (sc) {
		case NVME_SC_HOST_PATHING_ERROR: what = "host path error";
			break;
		case NVME_SC_ABORTED_BY_HOST: what = "aborted by host"; break;
		default: break;
		}
	}
	snprintf(buf, len, "SCT %xh SC %02xh%s%s%s", sct, sc,
		 what[0] != '\0' ? " (" : "", what, what[0] != '\0' ? ")" : "");
	return buf;
}

/* ------------------------------------------------------------------ */
/* Command capsules                                                    */
/* ------------------------------------------------------------------ */

void
nvmf_build_connect(struct nvme_cmd *cmd, uint16_t qid, uint16_t qsize,
		   uint32_t kato_ms)
{
	struct nvmf_connect_cmd *c = (struct nvmf_connect_cmd *)cmd;

	memset(c, 0, sizeof(*c));
	c->opc = NVME_OPC_FABRICS;
	c->fctype = NVMF_FCTYPE_CONNECT;
	c->recfmt = 0;
	c->qid = qid;
	c->sqsize = (uint16_t)(qsize - 1);
	c->kato = qid == 0 ? kato_ms : 0;
}

static int
nqn_copy(char *dst, const char *src)
{
	size_t n = src != NULL ? strnlen(src, NDK_NVMF_NQN_MAX + 1) : 0;

	if (n == 0 || n > NDK_NVMF_NQN_MAX)
		return -EINVAL;
	memcpy(dst, src, n);
	return 0;
}

int
nvmf_build_connect_data(struct nvmf_connect_data *d, const uint8_t hostid[16],
			uint16_t cntlid, const char *subnqn,
			const char *hostnqn)
{
	memset(d, 0, sizeof(*d));
	memcpy(d->hostid, hostid, sizeof(d->hostid));
	d->cntlid = cntlid;
	if (nqn_copy(d->subnqn, subnqn) != 0 ||
	    nqn_copy(d->hostnqn, hostnqn) != 0)
		return -EINVAL;
	return 0;
}

static void
fabrics_init(struct nvme_cmd *cmd, uint8_t fctype)
{
	struct nvmf_cmd *f = (struct nvmf_cmd *)cmd;

	memset(f, 0, sizeof(*f));
	f->opc = NVME_OPC_FABRICS;
	f->fctype = fctype;
}

void
nvmf_build_prop_get(struct nvme_cmd *cmd, uint32_t offset, bool size8)
{
	struct nvmf_property_cmd *p = (struct nvmf_property_cmd *)cmd;

	fabrics_init(cmd, NVMF_FCTYPE_PROPERTY_GET);
	p->attrib = size8 ? NVMF_PROP_SIZE_8 : 0;
	p->offset = offset;
}

void
nvmf_build_prop_set(struct nvme_cmd *cmd, uint32_t offset, uint32_t value)
{
	struct nvmf_property_cmd *p = (struct nvmf_property_cmd *)cmd;

	fabrics_init(cmd, NVMF_FCTYPE_PROPERTY_SET);
	p->attrib = 0;
	p->offset = offset;
	p->value = value;
}

void
nvmf_build_identify(struct nvme_cmd *cmd, uint8_t cns, uint32_t nsid)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->opc = NVME_OPC_IDENTIFY;
	cmd->nsid = nsid;
	cmd->cdw10 = cns;
}

void
nvmf_build_set_features(struct nvme_cmd *cmd, uint8_t fid, uint32_t cdw11)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->opc = NVME_OPC_SET_FEATURES;
	cmd->cdw10 = fid;
	cmd->cdw11 = cdw11;
}

void
nvmf_build_keep_alive(struct nvme_cmd *cmd)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->opc = NVME_OPC_KEEP_ALIVE;
}

void
nvmf_build_get_log_page(struct nvme_cmd *cmd, uint8_t lid, uint32_t nsid,
			uint32_t len, uint64_t offset, bool rae)
{
	uint32_t numd = len / 4 - 1;    /* 0's based dwords */

	memset(cmd, 0, sizeof(*cmd));
	cmd->opc = NVME_OPC_GET_LOG_PAGE;
	cmd->nsid = nsid;
	cmd->cdw10 = lid | (rae ? NVME_LOG_RAE : 0) | (numd & 0xFFFF) << 16;
	cmd->cdw11 = numd >> 16;
	cmd->cdw12 = (uint32_t)offset;
	cmd->cdw13 = (uint32_t)(offset >> 32);
}

void
nvmf_build_aer(struct nvme_cmd *cmd)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->opc = NVME_OPC_ASYNC_EVENT_REQUEST;
}

/* Copy a space or NUL padded text field of @p n bytes, padding cut. */
static void
text_field(char *dst, const char *src, size_t n)
{
	size_t l = strnlen(src, n);

	memcpy(dst, src, l);
	while (l > 0 && dst[l - 1] == ' ')
		l--;
	dst[l] = '\0';
}

void
nvmf_disc_entry_decode(const struct nvmf_disc_entry *e,
		       struct ndk_nvmf_disc_entry *out)
{
	memset(out, 0, sizeof(*out));
	out->trtype = e->trtype;
	out->adrfam = e->adrfam;
	out->subtype = e->subtype;
	out->treq = e->treq;
	out->portid = e->portid;
	out->cntlid = e->cntlid;
	out->asqsz = e->asqsz;
	text_field(out->trsvcid, e->trsvcid, sizeof(e->trsvcid));
	text_field(out->traddr, e->traddr, sizeof(e->traddr));
	text_field(out->subnqn, e->subnqn,
		   RTE_MIN(sizeof(e->subnqn), (size_t)NDK_NVMF_NQN_MAX));
}

void
nvmf_build_rw(struct nvme_cmd *cmd, uint8_t opc, uint32_t nsid, uint64_t lba,
	      uint32_t nlb)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->opc = opc;
	cmd->nsid = nsid;
	cmd->cdw10 = (uint32_t)lba;
	cmd->cdw11 = (uint32_t)(lba >> 32);
	cmd->cdw12 = (nlb - 1) & 0xFFFF;
}

void
nvmf_build_flush(struct nvme_cmd *cmd, uint32_t nsid)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->opc = NVME_OPC_FLUSH;
	cmd->nsid = nsid;
}

void
nvmf_build_write_zeroes(struct nvme_cmd *cmd, uint32_t nsid, uint64_t lba,
			uint32_t nlb)
{
	nvmf_build_rw(cmd, NVME_OPC_WRITE_ZEROES, nsid, lba, nlb);
}

void
nvmf_build_dsm(struct nvme_cmd *cmd, uint32_t nsid, uint32_t nr)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->opc = NVME_OPC_DATASET_MANAGEMENT;
	cmd->nsid = nsid;
	cmd->cdw10 = (nr - 1) & 0xFF;
	cmd->cdw11 = NVME_DSM_ATTR_DEALLOCATE;
}

/* ------------------------------------------------------------------ */
/* SGLs                                                                */
/* ------------------------------------------------------------------ */

/* PSDT: SGLs for the data (fabrics commands use nothing else). */
static void
sgl_psdt(struct nvme_cmd *cmd)
{
	cmd->flags = (uint8_t)((cmd->flags & ~NVME_CMD_PSDT_MASK) |
			       NVME_CMD_PSDT_SGL_MPTR_CONTIG);
}

void
nvmf_sgl_in_capsule(struct nvme_cmd *cmd, uint32_t len)
{
	sgl_psdt(cmd);
	cmd->dptr.addr = 0;
	nvme_sgl_set_length(&cmd->dptr, len);
	cmd->dptr.id = NVME_SGL_ID(NVME_SGL_TYPE_DATA_BLOCK,
				   NVME_SGL_SUBTYPE_OFFSET);
}

void
nvmf_sgl_keyed_inv(struct nvme_cmd *cmd, uint64_t addr, uint32_t len,
		   uint32_t key)
{
	sgl_psdt(cmd);
	nvme_sgl_set_keyed(&cmd->dptr, addr, len, key, true);
}

void
nvmf_sgl_keyed(struct nvme_cmd *cmd, uint64_t addr, uint32_t len,
	       uint32_t key)
{
	sgl_psdt(cmd);
	nvme_sgl_set_keyed(&cmd->dptr, addr, len, key, false);
}

void
nvmf_sgl_none(struct nvme_cmd *cmd)
{
	sgl_psdt(cmd);
	nvme_sgl_set_keyed(&cmd->dptr, 0, 0, 0, false);
}

/* ------------------------------------------------------------------ */
/* Responses                                                           */
/* ------------------------------------------------------------------ */

int
nvmf_cpl_slot(const struct nvme_cpl *cpl, uint32_t len, uint32_t nslots)
{
	if (len < sizeof(*cpl))
		return -EPROTO;
	if (cpl->cid >= nslots)
		return -ENOENT;
	return cpl->cid;
}

enum nvmf_resp_action
nvmf_resp_classify(const struct nvmf_req *r, bool inv, uint32_t token,
		   bool *stray)
{
	*stray = false;
	if (r == NULL || !r->busy || r->resp) {
		*stray = inv;
		return NVMF_RESP_DROP;
	}
	if (inv) {
		if (r->keyed && r->mr_valid && token == r->rkey)
			return NVMF_RESP_REMOTE_INV;
		*stray = true;
	}
	return r->keyed && r->mr_valid ? NVMF_RESP_LOCAL_INV : NVMF_RESP_DONE;
}
