/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NVMF_IO_COMMON_H
#define NVMF_IO_COMMON_H

/**
 * @file
 * What the NVMe-oF host's functional programs (test_nvmf_host.c,
 * test_nvmf_e2e.c) share: a command's completion recorded for the test
 * thread, and waiting for it while polling the host.
 */

#include "ndk_nvmf_host.h"

/** A command's completion, recorded by io_done(). */
struct io {
	int done;                 /**< set once the callback has run */
	struct ndk_nvmf_cpl cpl;  /**< its completion */
};

/** ndk_nvmf_cb that records the completion in the struct io @p arg. */
void io_done(void *arg, const struct ndk_nvmf_cpl *cpl);

/**
 * Poll I/O queue @p qp (NULL: none) and @p c's admin queue until
 * *@p flag is non-zero, at most WAIT_S seconds.
 * @return 0 if it became so, -1 if not.
 */
int io_wait_flag(struct ndk_nvmf_ctrlr *c, struct ndk_nvmf_qpair *qp,
		 const int *flag);

/** io_wait_flag() on @p io's done flag. */
static inline int
io_wait(struct ndk_nvmf_ctrlr *c, struct ndk_nvmf_qpair *qp, struct io *io)
{
	return io_wait_flag(c, qp, &io->done);
}

#endif /* NVMF_IO_COMMON_H */
