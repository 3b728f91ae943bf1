/* SPDX-License-Identifier: BSD-3-Clause */

/* Completion helpers of the NVMe-oF host's functional programs. */

#include "nvmf_io_common.h"
#include "rc_common.h"

void
io_done(void *arg, const struct ndk_nvmf_cpl *cpl)
{
	struct io *io = arg;

	io->cpl = *cpl;
	io->done = 1;
}

int
io_wait_flag(struct ndk_nvmf_ctrlr *c, struct ndk_nvmf_qpair *qp,
	     const int *flag)
{
	double end = ndk_pair_now() + WAIT_S;

	while (!*(volatile const int *)flag && ndk_pair_now() < end) {
		if (qp != NULL)
			ndk_nvmf_qpair_poll(qp, 0);
		ndk_nvmf_ctrlr_process_admin(c);
	}
	return *flag ? 0 : -1;
}
