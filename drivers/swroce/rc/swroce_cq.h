/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef SWROCE_CQ_H
#define SWROCE_CQ_H

/**
 * @file
 * swroce completion queues (rc/swroce_cq.c): rings of struct
 * ndk_result_ex, arming and notification callbacks.
 */

#include <stdbool.h>
#include <stdint.h>

#include "ndk_provider.h"
#include "swroce_shared.h"

struct swr_adapter;

/** Arm levels in strength order (merging keeps the strongest). */
enum swr_arm {
	SWR_ARM_NONE = 0,
	SWR_ARM_ERRORS = 1,
	SWR_ARM_SOLICITED = 2,
	SWR_ARM_ANY = 3,
};

struct swr_cq {
	struct ndk_cq pub;        /**< must be first */
	struct swr_adapter *ad;
	struct rte_ring *ring;    /**< struct ndk_result_ex elements */
	uint32_t depth;
	ndk_cq_notify_fn notify;
	void *notify_ctx;
	uint32_t armed;           /**< enum swr_arm (atomic) */
	uint32_t cb_state;        /**< callback running / owed / dead bits */
	uint64_t n_posted;        /**< completions posted (atomic) */
	uint64_t n_at_notify;     /**< n_posted when the last callback fired */
	uint32_t overflow;        /**< CQ overran: dead (atomic) */
	uint32_t refcnt;          /**< QPs using this CQ (atomic) */
	bool closing;
	ndk_close_completion_fn close_done;
	void *close_ctx;
	struct swr_cq *next;      /**< adapter list (obj_lock) */
};

/* swroce_cq.c */

/**
 * Post a completion (polling thread). @p solicited: a receive whose send
 * carried SE. Error completions satisfy SOLICITED arms.
 * @return 0, or -ENOSPC if the CQ overflowed (it is then dead).
 */
int swr_cq_post(struct swr_cq *cq, const struct ndk_result_ex *r,
		bool solicited);

/** Drop a QP's reference; completes a pending close at zero. */
void swr_cq_put(struct swr_cq *cq);

ndk_status_t swr_cq_create(struct ndk_adapter *adapter, uint32_t depth,
			   ndk_cq_notify_fn notify, void *ctx,
			   struct ndk_cq **cq);

/** Free a CQ immediately (adapter close). */
void swr_cq_destroy(struct swr_cq *cq);

/* Taking completions (swr_cq_get_results*): include/swroce_shared.h. */

#endif /* SWROCE_CQ_H */
