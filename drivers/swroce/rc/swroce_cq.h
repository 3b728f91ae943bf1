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
	/** The ring's own allocation after a resize (NULL: the ring is in
	 * the CQ's allocation, as created). */
	void *ring_mem;
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

	/* NdkControlCqInterruptModeration: set through swr_ctl_exec. */
	bool mod_on;              /**< notifications are held back */
	bool mod_linked;          /**< on ad->mod_list */
	uint32_t mod_count;       /**< due after this many (0: no count) */
	uint64_t mod_tsc;         /**< due this long after (0: no interval) */
	uint64_t mod_due;         /**< TSC a held one is due (0: none; atomic) */
	uint32_t mod_need;        /**< the held one's arm level (atomic) */
	struct swr_cq *mod_next;  /**< ad->mod_list (queue 0's owner) */
};

/* swroce_cq.c */

/**
 * Post a completion (polling thread). @p solicited: a receive whose send
 * carried SE. Error completions satisfy SOLICITED arms.
 * @return 0, or -ENOSPC if the CQ overflowed (it is then dead).
 */
int swr_cq_post(struct swr_cq *cq, const struct ndk_result_ex *r,
		bool solicited);

/**
 * Queue 0's owner: deliver the held notifications of moderated CQs whose
 * interval has run out (ad->now).
 */
void swr_cq_moderation_timers(struct swr_adapter *ad);

/** Drop a QP's reference; completes a pending close at zero. */
void swr_cq_put(struct swr_cq *cq);

ndk_status_t swr_cq_create(struct ndk_adapter *adapter, uint32_t depth,
			   ndk_cq_notify_fn notify, void *ctx,
			   struct ndk_cq **cq);

/** Free a CQ immediately (adapter close). */
void swr_cq_destroy(struct swr_cq *cq);

/* Taking completions (swr_cq_get_results*): include/swroce_shared.h. */

#endif /* SWROCE_CQ_H */
