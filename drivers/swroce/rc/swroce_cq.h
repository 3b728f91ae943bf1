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
struct swr_qp;

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

/** Completions a queue's RX burst stages before one enqueue. */
#define SWR_CQ_STAGE 32

/**
 * Completions staged by one queue's poller while it handles an RX burst,
 * all for one CQ, enqueued at once at the burst's end (or when the next
 * one is for another CQ, or the stage is full): one ring enqueue and one
 * count update per burst and CQ instead of one per completion. Only the
 * QP whose frame is being handled (@c cur, set around the responder's and
 * completer's dispatch) stages, so every completion of that QP in the
 * burst goes through the stage in order (lcore-private).
 */
struct swr_cq_stage {
	const struct swr_qp *cur; /**< the QP that stages now (NULL: none) */
	struct swr_cq *cq;        /**< the staged completions' CQ */
	uint32_t n;               /**< staged */
	uint32_t need;            /**< the weakest arm level they satisfy */
	bool all_ok;              /**< all successes (moderation may hold) */
	struct swr_qp *qp[SWR_CQ_STAGE]; /**< whose (a dead CQ kills it) */
	struct ndk_result_ex r[SWR_CQ_STAGE];
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
 * Post @p n completions at once (polling thread): one ring enqueue, one
 * count update, one look at the arm. @p need: the weakest arm level one
 * of them satisfies (enum swr_arm); @p all_ok: all are successes.
 * @return how many were posted; fewer than @p n if the CQ overflowed (it
 * is then dead).
 */
uint32_t swr_cq_post_bulk(struct swr_cq *cq, const struct ndk_result_ex *r,
			  uint32_t n, uint32_t need, bool all_ok);

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
