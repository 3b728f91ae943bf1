/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NVMF_E2E_H
#define NVMF_E2E_H

/**
 * @file
 * What test_nvmf_e2e.c's fixture (lib/nvmf's target on lcore 2 of a
 * net_ring pair, lib/nvmf's host on the test thread) lends the cases in
 * nvmf_e2e_bufs.c, and those cases.
 */

#include <stdint.h>

#include "ndk_nvmf_host.h"

#define T_BS 4096u              /**< the namespaces' block size */

struct ndk_pair;
/** The adapters and their ports. */
extern struct ndk_pair *g_p;

/** Write then read back @p n blocks at @p lba on queue @p qp. */
int h_rw(struct ndk_nvmf_ctrlr *c, struct ndk_nvmf_qpair *qp, uint8_t *buf,
	 uint64_t lba, uint32_t n, uint32_t seed);

/** Destroy the target (on its lcore): every host loses it. */
int e2e_target_destroy(void);

/** Connect, run @p body with a 128 KiB and a 64 KiB buffer, close. */
int run_with_bufs(int (*body)(struct ndk_nvmf_ctrlr *c, uint8_t *reg,
			      uint8_t *plain));

/**
 * Connect, run @p body with a 64 KiB buffer, close: a body that loses the
 * target leaves a controller whose shutdown fails (or that has no queue
 * left), which the close frees all the same.
 */
int run_losing_target(int (*body)(struct ndk_nvmf_ctrlr *c, uint8_t *buf));

/** The cases of nvmf_e2e_bufs.c. @{ */
int test_icd_direct(void);
int test_icd_lost(void);
int test_icd_loss(void);
int test_region_key(void);
/** @} */

#endif /* NVMF_E2E_H */
