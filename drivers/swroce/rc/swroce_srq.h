/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef SWROCE_SRQ_H
#define SWROCE_SRQ_H

/**
 * @file
 * swroce shared receive queues (rc/swroce_srq.c): the SRQ object and the
 * calls the responder and the QP layer make on it.
 *
 * Receives live in fixed slots (struct swr_rwqe and max_sge SGEs each) of
 * one hugepage allocation, moved between two rte_rings of slot pointers:
 *   free    slots the application may fill: single consumer (the poster,
 *           NDK serializes SrqReceive per SRQ), multi-producer (the
 *           polling lcores give slots back as receives complete);
 *   posted  receives waiting for a SEND: single producer (the poster),
 *           multi-consumer (the responders of every QP on the SRQ, on
 *           whatever lcore polls each: a lock-free compare-and-swap, so
 *           QPs of different queues may share one SRQ).
 * A responder takes a slot at the first packet of a SEND and holds it
 * (qp->srq_wqe) until the message completes; slots are freed out of order,
 * which is why they circulate through a ring rather than an index.
 * Receives held = capacity - free count; the depth is a limit on it at or
 * below the capacity (the creation depth rounded up to a power of two).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_ring.h>

#include "ndk_provider.h"

struct swr_adapter;
struct swr_pd;
struct swr_rwqe;

struct swr_srq {
	struct ndk_srq pub;       /**< must be first */
	struct swr_adapter *ad;
	struct swr_pd *pd;
	uint32_t cap;             /**< slots (power of two) */
	uint32_t depth;           /**< limit on receives held (poster's) */
	uint32_t max_sge;
	uint32_t stride;
	uint32_t threshold;       /**< notify level (atomic) */
	uint32_t armed;           /**< one notification owed (atomic) */
	ndk_srq_notify_fn notify;
	void *notify_ctx;
	uint32_t refcnt;          /**< QPs plus the open handle (atomic) */
	uint32_t closing;         /**< close called (atomic) */
	ndk_close_completion_fn close_done;
	void *close_ctx;
	struct swr_srq *next;     /**< adapter list (obj_lock) */
	struct rte_ring *free;
	struct rte_ring *posted;
	uint8_t *slots;
};

/* swroce_srq.c */

/** NdkCreateSrq (the PD dispatch entry). */
ndk_status_t swr_srq_create(struct ndk_pd *pd, uint32_t depth,
			    uint32_t max_sge, uint32_t threshold,
			    ndk_srq_notify_fn notify, void *ctx,
			    struct ndk_srq **srq);

/**
 * Take the oldest posted receive (a responder, at the first packet of a
 * SEND), firing the armed notification if fewer than the threshold are
 * left. @return the slot, or NULL when the SRQ is empty (RNR).
 */
struct swr_rwqe *swr_srq_take(struct swr_srq *srq);

/** Give back the slot of a completed receive (polling thread). */
void swr_srq_release(struct swr_srq *srq, struct swr_rwqe *wqe);

/** A QP starts using the SRQ (creation). */
void swr_srq_get(struct swr_srq *srq);

/**
 * A QP stopped using the SRQ (closed); the last one completes a pending
 * close.
 */
void swr_srq_put(struct swr_srq *srq);

/**
 * Free an SRQ the consumer left open (adapter close, after every QP):
 * it dies, and its callback is told STATUS_INTERNAL_ERROR.
 */
void swr_srq_destroy(struct swr_srq *srq);

#endif /* SWROCE_SRQ_H */
