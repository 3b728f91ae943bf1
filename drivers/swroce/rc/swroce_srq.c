/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * swroce shared receive queues: creation, posting (NdkSrqReceive), taking
 * and giving back receives (the responders of the QPs on the SRQ), the
 * threshold notification, modify and close. The design (two rings of slot
 * pointers) is described in swroce_srq.h.
 *
 * Notification: `armed` is consumed by one atomic exchange, by whichever
 * of a responder (after a take) or NdkModifySrq (already below) sees the
 * count under the threshold first, so an arm yields one callback.
 *
 * Lifetime: refcnt counts the open handle and each QP created on the SRQ.
 * Close drops the handle's reference and pends while QPs hold theirs; the
 * last QP's close frees the SRQ and calls the close completion. A QP's
 * close detaches it through swr_ctl_exec first, so no poll of it (and no
 * callback it fired) is running by then.
 */

#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#include "swroce_adapter.h"
#include "swroce_mr.h"
#include "swroce_qp.h"
#include "swroce_shared.h"
#include "swroce_srq.h"

static uint32_t srq_ring_seq; /* ring names, for rte_ring_dump only */

static const struct ndk_srq_dispatch swr_srq_ops;

static inline struct swr_srq *
srq_of(struct ndk_srq *s)
{
	return (struct swr_srq *)s;
}

static inline struct swr_rwqe *
srq_slot(const struct swr_srq *srq, uint32_t i)
{
	return (struct swr_rwqe *)(srq->slots + (size_t)i * srq->stride);
}

/* Receives held: posted, or taken and not completed. */
static inline uint32_t
srq_held(const struct swr_srq *srq)
{
	return srq->cap - rte_ring_count(srq->free);
}

/* Deliver the armed notification if it is still owed. */
static void
srq_fire(struct swr_srq *srq)
{
	if (__atomic_exchange_n(&srq->armed, 0, __ATOMIC_ACQ_REL) == 0)
		return;
	if (srq->notify != NULL &&
	    !__atomic_load_n(&srq->closing, __ATOMIC_ACQUIRE))
		srq->notify(srq->notify_ctx, NDK_STATUS_SUCCESS);
}

/* ------------------------------------------------------------------ */
/* Responder side (polling threads)                                    */
/* ------------------------------------------------------------------ */

struct swr_rwqe *
swr_srq_take(struct swr_srq *srq)
{
	void *slot;

	if (rte_ring_mc_dequeue(srq->posted, &slot) != 0)
		return NULL;
	if (unlikely(__atomic_load_n(&srq->armed, __ATOMIC_ACQUIRE)) &&
	    rte_ring_count(srq->posted) <
	    __atomic_load_n(&srq->threshold, __ATOMIC_RELAXED))
		srq_fire(srq);
	return slot;
}

void
swr_srq_release(struct swr_srq *srq, struct swr_rwqe *wqe)
{
	/* Never full: every slot is in exactly one place. */
	rte_ring_mp_enqueue(srq->free, wqe);
}

/* ------------------------------------------------------------------ */
/* Posting (the application; one poster per SRQ)                       */
/* ------------------------------------------------------------------ */

ndk_status_t
swr_post_srq_receive(struct ndk_srq *s, void *ctx, const struct ndk_sge *sgl,
		     uint32_t nsge)
{
	struct swr_srq *srq = srq_of(s);
	struct swr_rwqe *wqe;
	uint64_t sum = 0;
	void *slot;

	if (unlikely(nsge > srq->max_sge))
		return NDK_STATUS_DATA_OVERRUN;
	if (unlikely(nsge != 0 && sgl == NULL))
		return NDK_STATUS_INVALID_PARAMETER;
	for (uint32_t i = 0; i < nsge; i++) {
		sum += sgl[i].length;
		if (sgl[i].length != 0 &&
		    swr_mr_lookup(srq->ad, srq->pd, sgl[i].token,
				  (uintptr_t)sgl[i].va, sgl[i].length,
				  SWR_ACC_LOCAL_WRITE) == NULL)
			return NDK_STATUS_ACCESS_VIOLATION;
	}
	if (unlikely(sum > SWR_MAX_TRANSFER))
		return NDK_STATUS_DATA_OVERRUN;
	if (unlikely(srq_held(srq) >= srq->depth ||
		     rte_ring_sc_dequeue(srq->free, &slot) != 0))
		return NDK_STATUS_NO_MORE_ENTRIES;
	wqe = slot;
	wqe->ctx = ctx;
	wqe->nsge = nsge;
	wqe->length = (uint32_t)sum;
	if (nsge != 0)
		memcpy(wqe->sge, sgl, nsge * sizeof(*sgl));
	/* Never full: the slot came from the free ring. */
	rte_ring_sp_enqueue(srq->posted, wqe);
	return NDK_STATUS_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Control path                                                        */
/* ------------------------------------------------------------------ */

static ndk_status_t
swr_srq_modify(struct ndk_srq *s, uint32_t depth, uint32_t threshold)
{
	struct swr_srq *srq = srq_of(s);
	uint32_t new_depth = depth != 0 ? depth : srq->depth;

	if (new_depth > srq->cap ||
	    new_depth > srq->ad->info.max_srq_depth ||
	    new_depth < srq_held(srq) || threshold > new_depth) {
		NDK_LOG(DEBUG, "%s: SRQ modify: depth %u (capacity %u, %u "
			"held), threshold %u refused", srq->ad->name, depth,
			srq->cap, srq_held(srq), threshold);
		return NDK_STATUS_INVALID_PARAMETER;
	}
	srq->depth = new_depth;
	if (threshold == 0)
		return NDK_STATUS_SUCCESS;
	__atomic_store_n(&srq->threshold, threshold, __ATOMIC_RELAXED);
	__atomic_store_n(&srq->armed, 1, __ATOMIC_SEQ_CST);
	/* Already below: now, from this call (NDK). */
	if (rte_ring_count(srq->posted) < threshold)
		srq_fire(srq);
	return NDK_STATUS_SUCCESS;
}

static void
srq_free(struct swr_srq *srq)
{
	struct swr_adapter *ad = srq->ad;
	struct swr_pd *pd = srq->pd;
	struct swr_srq **pp;

	rte_spinlock_lock(&ad->obj_lock);
	for (pp = &ad->srq_list; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == srq) {
			*pp = srq->next;
			break;
		}
	}
	rte_spinlock_unlock(&ad->obj_lock);
	srq->pub.header.type = NDK_OBJECT_TYPE_UNDEFINED;
	rte_free(srq);     /* rings and slots live in the same allocation */
	swr_pd_put(pd);
}

void
swr_srq_get(struct swr_srq *srq)
{
	__atomic_fetch_add(&srq->refcnt, 1, __ATOMIC_RELAXED);
}

void
swr_srq_put(struct swr_srq *srq)
{
	ndk_close_completion_fn done;
	void *ctx;

	if (__atomic_sub_fetch(&srq->refcnt, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	/* Only close drops the handle's reference: a close is pending. */
	done = srq->close_done;
	ctx = srq->close_ctx;
	srq_free(srq);
	if (done != NULL)
		done(ctx);
}

static ndk_status_t
swr_srq_close(struct ndk_srq *s, ndk_close_completion_fn done, void *ctx)
{
	struct swr_srq *srq = srq_of(s);

	srq->close_done = done;
	srq->close_ctx = ctx;
	__atomic_store_n(&srq->closing, 1, __ATOMIC_RELEASE);
	if (__atomic_sub_fetch(&srq->refcnt, 1, __ATOMIC_ACQ_REL) != 0) {
		NDK_LOG(DEBUG, "%s: SRQ close pending: QPs still use it",
			srq->ad->name);
		return NDK_STATUS_PENDING;
	}
	/* Closed inline: NDK forbids the completion callback then. */
	srq_free(srq);
	return NDK_STATUS_SUCCESS;
}

void
swr_srq_destroy(struct swr_srq *srq)
{
	/* Its QPs are closed: no poll can take from it any more. */
	if (!__atomic_load_n(&srq->closing, __ATOMIC_ACQUIRE) &&
	    srq->notify != NULL)
		srq->notify(srq->notify_ctx, NDK_STATUS_INTERNAL_ERROR);
	srq_free(srq);
}

static const struct ndk_srq_dispatch swr_srq_ops = {
	.close = swr_srq_close,
	.modify = swr_srq_modify,
	.receive = swr_post_srq_receive,
};

/*
 * One allocation: the SRQ, its two rings, its slots (rte_ring_init, not a
 * memzone per ring: RTE_MAX_MEMZONE would limit the SRQ count).
 */
static struct swr_srq *
srq_alloc(struct swr_adapter *ad, uint32_t cap, uint32_t stride)
{
	size_t hdr = RTE_ALIGN_CEIL(sizeof(struct swr_srq),
				    RTE_CACHE_LINE_SIZE);
	/* RING_F_EXACT_SZ: the ring takes the power of two above cap. */
	ssize_t rsz = rte_ring_get_memsize(rte_align32pow2(cap + 1));
	char name[RTE_RING_NAMESIZE];
	struct swr_srq *srq;
	size_t rlen;
	uint32_t seq;

	if (rsz < 0)
		return NULL;
	rlen = RTE_ALIGN_CEIL((size_t)rsz, RTE_CACHE_LINE_SIZE);
	srq = rte_zmalloc_socket("swr_srq", hdr + 2 * rlen +
				 (size_t)cap * stride, RTE_CACHE_LINE_SIZE,
				 ad->socket_id);
	if (srq == NULL)
		return NULL;
	srq->free = (struct rte_ring *)((uint8_t *)srq + hdr);
	srq->posted = (struct rte_ring *)((uint8_t *)srq + hdr + rlen);
	srq->slots = (uint8_t *)srq + hdr + 2 * rlen;
	seq = __atomic_fetch_add(&srq_ring_seq, 1, __ATOMIC_RELAXED);
	snprintf(name, sizeof(name), "ndksrqf%u", seq);
	if (rte_ring_init(srq->free, name, cap,
			  RING_F_SC_DEQ | RING_F_EXACT_SZ) != 0)
		goto fail;
	snprintf(name, sizeof(name), "ndksrqp%u", seq);
	if (rte_ring_init(srq->posted, name, cap,
			  RING_F_SP_ENQ | RING_F_EXACT_SZ) != 0)
		goto fail;
	return srq;
fail:
	rte_free(srq);
	return NULL;
}

ndk_status_t
swr_srq_create(struct ndk_pd *pd_pub, uint32_t depth, uint32_t max_sge,
	       uint32_t threshold, ndk_srq_notify_fn notify, void *ctx,
	       struct ndk_srq **out)
{
	struct swr_pd *pd = (struct swr_pd *)pd_pub;
	struct swr_adapter *ad = pd->ad;
	uint32_t cap, stride;
	struct swr_srq *srq;

	if (depth == 0 || depth > ad->info.max_srq_depth ||
	    max_sge > ad->info.max_receive_request_sge || threshold > depth) {
		NDK_LOG(DEBUG, "%s: SRQ depth %u, %u SGEs, threshold %u: "
			"beyond adapter limits", ad->name, depth, max_sge,
			threshold);
		return NDK_STATUS_INVALID_PARAMETER;
	}
	cap = rte_align32pow2(depth);
	stride = RTE_ALIGN_CEIL(sizeof(struct swr_rwqe) +
				max_sge * sizeof(struct ndk_sge), 16);
	srq = srq_alloc(ad, cap, stride);
	if (srq == NULL) {
		NDK_LOG(ERR, "%s: create SRQ of depth %u: out of memory",
			ad->name, depth);
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	}
	ndk_object_header_init(&srq->pub.header, NDK_OBJECT_TYPE_SRQ);
	srq->pub.dispatch = &swr_srq_ops;
	srq->ad = ad;
	srq->pd = pd;
	srq->cap = cap;
	srq->depth = depth;
	srq->max_sge = max_sge;
	srq->stride = stride;
	srq->threshold = threshold;
	srq->armed = threshold != 0;
	srq->notify = notify;
	srq->notify_ctx = ctx;
	srq->refcnt = 1; /* the handle; QPs add theirs */
	for (uint32_t i = 0; i < cap; i++)
		rte_ring_sp_enqueue(srq->free, srq_slot(srq, i));
	__atomic_fetch_add(&pd->refcnt, 1, __ATOMIC_RELAXED);
	rte_spinlock_lock(&ad->obj_lock);
	srq->next = ad->srq_list;
	ad->srq_list = srq;
	rte_spinlock_unlock(&ad->obj_lock);
	*out = &srq->pub;
	return NDK_STATUS_SUCCESS;
}
