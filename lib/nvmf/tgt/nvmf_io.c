/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 ndk-roce authors
 */

/*
 * NVM command set on I/O queues: Read, Write, Flush, Write Zeroes and
 * Dataset Management (deallocate). Field checks here; the data moves in
 * the namespace's back end (nvmf_bdev.c).
 */

#include <string.h>

#include <rte_common.h>

#include "nvmf_tgt_int.h"

/* Write Zeroes / Read / Write CDW12: NLB (0's based), bits 15:0. */
#define NVMF_NLB(cmd) (((cmd)->cdw12 & 0xFFFF) + 1u)
#define NVMF_DSM_MAX_RANGES 256

static void
nvmf_io_fail(struct nvmf_req *req, uint8_t sct, uint8_t sc)
{
	nvmf_req_complete_status(req, sct, sc);
}

/* Check SLBA/NLB against @p ns; @return 0 or fail the request. */
static int
nvmf_io_range(struct nvmf_req *req, const struct nvmf_ns *ns, uint64_t slba,
	      uint64_t nlb)
{
	if (slba >= ns->nblocks || nlb > ns->nblocks - slba) {
		nvmf_io_fail(req, NVME_SCT_GENERIC, NVME_SC_LBA_OUT_OF_RANGE);
		return -1;
	}
	return 0;
}

static void
nvmf_io_rw(struct nvmf_req *req, struct nvmf_ns *ns, bool write)
{
	uint64_t slba = (uint64_t)req->cmd.cdw10 |
		(uint64_t)req->cmd.cdw11 << 32;
	uint64_t nlb = NVMF_NLB(&req->cmd);
	uint64_t len = nlb << ns->block_shift;

	if (nvmf_io_range(req, ns, slba, nlb) != 0)
		return;
	if (req->data == NULL || len > req->length) {
		nvmf_io_fail(req, NVME_SCT_GENERIC,
			     NVME_SC_DATA_SGL_LENGTH_INVALID);
		return;
	}
	req->xfer_len = (uint32_t)len;
	nvmf_bdev_submit(req, write ? NVMF_BDEV_WRITE : NVMF_BDEV_READ,
			 slba << ns->block_shift, len);
}

static void
nvmf_io_write_zeroes(struct nvmf_req *req, struct nvmf_ns *ns)
{
	uint64_t slba = (uint64_t)req->cmd.cdw10 |
		(uint64_t)req->cmd.cdw11 << 32;
	uint64_t nlb = NVMF_NLB(&req->cmd);

	if (nvmf_io_range(req, ns, slba, nlb) != 0)
		return;
	nvmf_bdev_submit(req, NVMF_BDEV_ZEROES, slba << ns->block_shift,
			 nlb << ns->block_shift);
}

static void
nvmf_io_dsm(struct nvmf_req *req, struct nvmf_ns *ns)
{
	uint32_t nr = (req->cmd.cdw10 & 0xFF) + 1;
	const struct nvme_dsm_range *r = (const void *)req->data;

	if (req->xfer != NVMF_XFER_H2C || req->data == NULL ||
	    req->length < nr * sizeof(*r)) {
		nvmf_io_fail(req, NVME_SCT_GENERIC,
			     NVME_SC_DATA_SGL_LENGTH_INVALID);
		return;
	}
	for (uint32_t i = 0; i < nr; i++)
		if (r[i].slba >= ns->nblocks ||
		    r[i].nlb > ns->nblocks - r[i].slba) {
			nvmf_io_fail(req, NVME_SCT_GENERIC,
				     NVME_SC_LBA_OUT_OF_RANGE);
			return;
		}
	if (!(req->cmd.cdw11 & NVME_DSM_ATTR_DEALLOCATE)) {
		/* Only hints (integral read/write): nothing to do. */
		nvmf_req_complete(req);
		return;
	}
	req->xfer_len = nr;     /* ranges, for the back end */
	nvmf_bdev_submit(req, NVMF_BDEV_DEALLOC, 0, 0);
}

/*
 * Everything nvmf_req_exec(), nvmf_io_exec(), nvmf_io_rw() and the
 * memory back end would check and do for such a Read, in one place: no
 * dispatch, no back-end submission, no copy.
 */
bool
nvmf_io_read_direct(struct nvmf_req *req)
{
	struct nvmf_ctrlr *c = req->qp->ctrlr;
	uint32_t nsid = req->cmd.nsid;
	struct nvmf_ns *ns;
	uint64_t slba, nlb, size;
	uint8_t *mem;

	if (req->cmd.opc != NVME_OPC_READ || req->qp->qid == 0 || c == NULL ||
	    (req->cmd.flags & NVME_CMD_FUSE_MASK) != 0 ||
	    !(c->csts & NVME_CSTS_RDY) || (c->csts & NVME_CSTS_SHST_MASK) ||
	    nsid < 1 || nsid > NVMF_MAX_NS)
		return false;
	ns = c->subsys->ns[nsid - 1];
	if (ns == NULL || ns->mr == NULL)
		return false;
	slba = (uint64_t)req->cmd.cdw10 | (uint64_t)req->cmd.cdw11 << 32;
	nlb = NVMF_NLB(&req->cmd);
	if (slba >= ns->nblocks || nlb > ns->nblocks - slba ||
	    (nlb << ns->block_shift) > req->length)
		return false;
	mem = nvmf_bdev_mem(ns->bdev, &size);
	req->ns = ns;
	req->data = mem + (slba << ns->block_shift);
	req->data_token = ns->ltoken;
	req->xfer_len = (uint32_t)(nlb << ns->block_shift);
	nvmf_count_read(req->qp->tgt, c, req->xfer_len);
	nvmf_req_complete(req);
	return true;
}

void
nvmf_io_exec(struct nvmf_req *req)
{
	struct nvmf_ctrlr *c = req->qp->ctrlr;
	uint32_t nsid = req->cmd.nsid;
	struct nvmf_ns *ns = NULL;

	if (nsid >= 1 && nsid <= NVMF_MAX_NS)
		ns = c->subsys->ns[nsid - 1];
	switch (req->cmd.opc) {
	case NVME_OPC_READ:
	case NVME_OPC_WRITE:
	case NVME_OPC_FLUSH:
	case NVME_OPC_WRITE_ZEROES:
	case NVME_OPC_DATASET_MANAGEMENT:
		break;
	default:
		nvmf_io_fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_OPCODE);
		return;
	}
	/* Identify VWC says Flush takes no broadcast NSID. */
	if (ns == NULL) {
		nvmf_io_fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_NAMESPACE);
		return;
	}
	req->ns = ns;
	switch (req->cmd.opc) {
	case NVME_OPC_READ:
		nvmf_io_rw(req, ns, false);
		break;
	case NVME_OPC_WRITE:
		nvmf_io_rw(req, ns, true);
		break;
	case NVME_OPC_FLUSH:
		nvmf_bdev_submit(req, NVMF_BDEV_FLUSH, 0, 0);
		break;
	case NVME_OPC_WRITE_ZEROES:
		nvmf_io_write_zeroes(req, ns);
		break;
	default:
		nvmf_io_dsm(req, ns);
		break;
	}
}
