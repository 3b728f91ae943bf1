/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The host's NVM commands: Read, Write, Flush, Write Zeroes and Dataset
 * Management (deallocate), checked and handed to their queue. Data path.
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>

#include "host_priv.h"

/* The namespace's block size, or 0 if the controller has no such one. */
static uint32_t
ns_block_size(const struct ndk_nvmf_qpair *qp, uint32_t nsid)
{
	const struct ndk_nvmf_ctrlr_info *in;

	in = qp->ctrlr->info;
	for (uint32_t i = 0; i < in->num_ns; i++)
		if (in->ns[i].nsid == nsid)
			return in->ns[i].block_size;
	return 0;
}

static int
rw(struct ndk_nvmf_qpair *qp, uint8_t opc, uint32_t nsid, void *buf,
   uint64_t lba, uint32_t nlb, ndk_nvmf_cb cb, void *arg)
{
	struct nvme_cmd cmd;
	uint32_t bs;
	uint64_t len;

	if (qp == NULL || buf == NULL || nlb == 0 || nlb > 0x10000)
		return -EINVAL;
	bs = ns_block_size(qp, nsid);
	len = (uint64_t)nlb * bs;
	if (bs == 0 || len > qp->ctrlr->info->max_io_size)
		return -EINVAL;
	nvmf_build_rw(&cmd, opc, nsid, lba, nlb);
	return nvmf_qpair_submit(qp, &cmd, buf, (uint32_t)len,
				 opc == NVME_OPC_READ ? NVMF_XFER_FROM_CTRLR :
				 NVMF_XFER_TO_CTRLR, cb, arg);
}

int
ndk_nvmf_read(struct ndk_nvmf_qpair *qp, uint32_t nsid, void *buf,
	      uint64_t lba, uint32_t nlb, ndk_nvmf_cb cb, void *arg)
{
	return rw(qp, NVME_OPC_READ, nsid, buf, lba, nlb, cb, arg);
}

int
ndk_nvmf_write(struct ndk_nvmf_qpair *qp, uint32_t nsid, const void *buf,
	       uint64_t lba, uint32_t nlb, ndk_nvmf_cb cb, void *arg)
{
	/* The controller only READs it: the cast drops no promise. */
	return rw(qp, NVME_OPC_WRITE, nsid, (void *)(uintptr_t)buf, lba, nlb,
		  cb, arg);
}

int
ndk_nvmf_flush(struct ndk_nvmf_qpair *qp, uint32_t nsid, ndk_nvmf_cb cb,
	       void *arg)
{
	struct nvme_cmd cmd;

	if (qp == NULL || ns_block_size(qp, nsid) == 0)
		return -EINVAL;
	nvmf_build_flush(&cmd, nsid);
	return nvmf_qpair_submit(qp, &cmd, NULL, 0, NVMF_XFER_NONE, cb, arg);
}

int
ndk_nvmf_write_zeroes(struct ndk_nvmf_qpair *qp, uint32_t nsid, uint64_t lba,
		      uint32_t nlb, ndk_nvmf_cb cb, void *arg)
{
	struct nvme_cmd cmd;

	if (qp == NULL || nlb == 0 || nlb > 0x10000 ||
	    ns_block_size(qp, nsid) == 0)
		return -EINVAL;
	nvmf_build_write_zeroes(&cmd, nsid, lba, nlb);
	return nvmf_qpair_submit(qp, &cmd, NULL, 0, NVMF_XFER_NONE, cb, arg);
}

int
ndk_nvmf_deallocate(struct ndk_nvmf_qpair *qp, uint32_t nsid,
		    const struct ndk_nvmf_range *ranges, uint32_t n,
		    ndk_nvmf_cb cb, void *arg)
{
	struct nvme_dsm_range d[NDK_NVMF_DSM_RANGES_MAX];
	struct nvme_cmd cmd;

	if (qp == NULL || ranges == NULL || n == 0 ||
	    n > NDK_NVMF_DSM_RANGES_MAX || ns_block_size(qp, nsid) == 0)
		return -EINVAL;
	/* Staged in the command's slot: in the capsule, or by keyed SGL
	 * from the slot when in-capsule data is too small. */
	for (uint32_t i = 0; i < n; i++) {
		if (ranges[i].nlb == 0)
			return -EINVAL;
		d[i].attributes = 0;
		d[i].nlb = ranges[i].nlb;
		d[i].slba = ranges[i].lba;
	}
	nvmf_build_dsm(&cmd, nsid, n);
	return nvmf_qpair_submit_staged(qp, &cmd, d, n * sizeof(*d), cb, arg);
}
