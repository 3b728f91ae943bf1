/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * swroce posting: the application side of the per-QP rings (the SGE
 * copies the engines make are mem/swroce_copy.c's).
 *
 * NDK serialises posts per queue, so each ring has a single producer: a
 * post fills the WQE at sq_prod_priv and, unless NDK_OP_FLAG_DEFER is set,
 * publishes the producer index with a release store and rings the doorbell.
 * A deferred request stays invisible to the polling thread until a later
 * post without DEFER, a failing post or NdkFlush releases the chain (the
 * NDK deferred-processing scheme), so the whole chain reaches the lcore at
 * once and leaves in as few bursts as the TX stage makes.
 */

#include <errno.h>
#include <string.h>

#include "swroce_adapter.h"
#include "swroce_mr.h"
#include "swroce_qp.h"

/* ------------------------------------------------------------------ */
/* Send queue (application threads)                                    */
/* ------------------------------------------------------------------ */

static inline void
swr_doorbell(struct swr_qp *qp)
{
	if (__atomic_exchange_n(&qp->db_pending, 1, __ATOMIC_SEQ_CST) == 0)
		rte_ring_mp_enqueue(qp->db_ring, qp);
}

/* Hand every deferred request to the polling thread. */
static inline void
swr_sq_publish(struct swr_qp *qp)
{
	uint32_t n = qp->sq_prod_priv - qp->sq_prod;

	if (n > 1) {
		qp->pstats.chains++;
		qp->pstats.chain_requests += n;
		if (n > qp->pstats.chain_max)
			qp->pstats.chain_max = n;
	}
	__atomic_store_n(&qp->sq_prod, qp->sq_prod_priv, __ATOMIC_RELEASE);
	swr_doorbell(qp);
}

/* A failed post releases the deferred chain first (NDK deferral rules). */
static ndk_status_t
swr_post_fail(struct swr_qp *qp, ndk_status_t st)
{
	if (qp->sq_prod_priv != qp->sq_prod)
		swr_sq_publish(qp);
	return st;
}

/*
 * Claim the next send-queue slot for a request with @flags (each checked
 * against @allowed). This, the SGE check and swr_post_data() are inlined
 * into each post call: the per-request path of 64 B operations. @return the WQE, or NULL with *st set (the deferred
 * chain already released).
 */
static __rte_always_inline struct swr_swqe *
swr_sq_reserve(struct swr_qp *qp, uint32_t flags, uint32_t allowed,
	       ndk_status_t *st)
{
	uint32_t state = swr_qp_state(qp);

	if (unlikely(state != NDK_QP_STATE_RTS && state != NDK_QP_STATE_SQD &&
		     state != NDK_QP_STATE_ERROR)) {
		*st = swr_post_fail(qp, NDK_STATUS_CONNECTION_INVALID);
		return NULL;
	}
	if (unlikely(flags & ~allowed)) {
		*st = swr_post_fail(qp, NDK_STATUS_INVALID_PARAMETER);
		return NULL;
	}
	if (unlikely(qp->sq_prod_priv -
		     __atomic_load_n(&qp->sq_done, __ATOMIC_ACQUIRE) >=
		     qp->sq_depth)) {
		*st = swr_post_fail(qp, NDK_STATUS_NO_MORE_ENTRIES);
		return NULL;
	}
	return swr_swqe(qp, qp->sq_prod_priv);
}

/* The WQE is filled: count it, and start it unless deferred. */
static inline ndk_status_t
swr_sq_commit(struct swr_qp *qp, struct swr_swqe *wqe, enum swr_wr_op op,
	      void *ctx, uint32_t flags)
{
	wqe->op = op;
	wqe->started = 0;
	wqe->flags = flags;
	wqe->ctx = ctx;
	wqe->rd_pkts = 0;
	wqe->rd_rr_end = 0;
	wqe->rd_seen = 0;
	qp->sq_prod_priv++;
	qp->pstats.posted++;
	if (flags & NDK_OP_FLAG_DEFER)
		qp->pstats.deferred++;
	else
		swr_sq_publish(qp);
	return NDK_STATUS_SUCCESS;
}

/*
 * The token of a fast register posted but not yet carried out: requests
 * posted after it may use it (IB's register-then-use). The engines check
 * the SGE again when they touch it.
 */
static bool
swr_frmr_pending(struct swr_qp *qp, uint32_t token)
{
	const struct swr_mr *mr = swr_mr_find_invalidatable(qp->ad, qp->pd,
							    token);

	return mr != NULL && mr->kind == SWR_MR_FRMR && mr->token_next == token;
}

/* Keep a posted SGE list in its WQE (one SGE: no memcpy call). */
static inline void
swr_sge_list_copy(struct ndk_sge *dst, const struct ndk_sge *sgl,
		  uint32_t nsge)
{
	if (likely(nsge == 1))
		dst[0] = sgl[0];
	else if (nsge != 0)
		memcpy(dst, sgl, nsge * sizeof(*sgl));
}

/* One SGE inside region @p mr, by token and bounds (overflow-safe). */
static inline bool
swr_sge_within(const struct swr_mr *mr, const struct ndk_sge *s)
{
	uint64_t va = (uintptr_t)s->va;

	return s->token == mr->token && s->length <= SWR_MAX_TRANSFER &&
		va >= mr->va && s->length <= mr->len &&
		va - mr->va <= mr->len - s->length;
}

/* Check an SGE list: count, tokens, bounds, rights; sum the length. */
static __rte_always_inline ndk_status_t
swr_check_sgl(struct swr_qp *qp, const struct ndk_sge *sgl, uint32_t nsge,
	      uint32_t max, uint32_t access, uint32_t *total)
{
	uint64_t sum = 0;

	if (unlikely(nsge > max))
		return NDK_STATUS_DATA_OVERRUN;
	if (unlikely(nsge != 0 && sgl == NULL))
		return NDK_STATUS_INVALID_PARAMETER;
	if (likely(nsge == 1)) {
		/* The common list: the same checks without the loop's setup. */
		if (sgl->length != 0 &&
		    swr_mr_lookup(qp->ad, qp->pd, sgl->token,
				  (uintptr_t)sgl->va, sgl->length,
				  access) == NULL &&
		    !swr_frmr_pending(qp, sgl->token))
			return NDK_STATUS_ACCESS_VIOLATION;
		if (unlikely(sgl->length > SWR_MAX_TRANSFER))
			return NDK_STATUS_DATA_OVERRUN;
		*total = sgl->length;
		return NDK_STATUS_SUCCESS;
	}
	for (uint32_t i = 0; i < nsge; i++) {
		sum += sgl[i].length;
		if (sgl[i].length != 0 &&
		    swr_mr_lookup(qp->ad, qp->pd, sgl[i].token,
				  (uintptr_t)sgl[i].va, sgl[i].length,
				  access) == NULL &&
		    !swr_frmr_pending(qp, sgl[i].token))
			return NDK_STATUS_ACCESS_VIOLATION;
	}
	if (unlikely(sum > SWR_MAX_TRANSFER))
		return NDK_STATUS_DATA_OVERRUN;
	*total = (uint32_t)sum;
	return NDK_STATUS_SUCCESS;
}

/* Copy the SGEs' bytes into the WQE (INLINE: tokens are ignored). */
static ndk_status_t
swr_fill_inline(struct swr_qp *qp, struct swr_swqe *wqe,
		const struct ndk_sge *sgl, uint32_t nsge)
{
	uint64_t sum = 0;
	uint32_t total = 0;

	for (uint32_t i = 0; i < nsge; i++)
		sum += sgl[i].length;
	if (unlikely(sum > qp->inline_size))
		return NDK_STATUS_INVALID_PARAMETER;
	for (uint32_t i = 0; i < nsge; i++) {
		if (sgl[i].length == 0)
			continue;
		memcpy(wqe->inline_data + total, sgl[i].va, sgl[i].length);
		total += sgl[i].length;
	}
	wqe->nsge = 0;
	wqe->length = total;
	return NDK_STATUS_SUCCESS;
}

static __rte_always_inline ndk_status_t
swr_post_data(struct swr_qp *qp, enum swr_wr_op op, void *ctx,
	      const struct ndk_sge *sgl, uint32_t nsge, uint64_t raddr,
	      uint32_t rkey, uint32_t flags, uint32_t allowed)
{
	struct swr_swqe *wqe;
	uint32_t total = 0;
	ndk_status_t st = NDK_STATUS_SUCCESS;

	wqe = swr_sq_reserve(qp, flags, allowed, &st);
	if (unlikely(wqe == NULL))
		return st;
	if (flags & NDK_OP_FLAG_INLINE) {
		st = swr_fill_inline(qp, wqe, sgl, nsge);
		if (unlikely(st != NDK_STATUS_SUCCESS))
			return swr_post_fail(qp, st);
	} else {
		st = swr_check_sgl(qp, sgl, nsge, qp->max_isge,
				   op == SWR_WR_READ ? SWR_ACC_LOCAL_WRITE : 0,
				   &total);
		if (unlikely(st != NDK_STATUS_SUCCESS))
			return swr_post_fail(qp, st);
		swr_sge_list_copy(wqe->sge, sgl, nsge);
		wqe->nsge = nsge;
		wqe->length = total;
	}
	wqe->raddr = raddr;
	wqe->rkey = rkey;
	return swr_sq_commit(qp, wqe, op, ctx, flags);
}

#define SWR_SEND_FLAGS (NDK_OP_FLAG_SILENT_SUCCESS | NDK_OP_FLAG_READ_FENCE | \
	NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT | NDK_OP_FLAG_INLINE | \
	NDK_OP_FLAG_DEFER)
#define SWR_WRITE_FLAGS (NDK_OP_FLAG_SILENT_SUCCESS | \
	NDK_OP_FLAG_READ_FENCE | NDK_OP_FLAG_INLINE | NDK_OP_FLAG_DEFER)
#define SWR_READ_FLAGS (NDK_OP_FLAG_SILENT_SUCCESS | NDK_OP_FLAG_READ_FENCE | \
	NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE | NDK_OP_FLAG_DEFER)
#define SWR_LOCAL_FLAGS (NDK_OP_FLAG_SILENT_SUCCESS | \
	NDK_OP_FLAG_READ_FENCE | NDK_OP_FLAG_DEFER)
#define SWR_FR_FLAGS (SWR_LOCAL_FLAGS | NDK_OP_FLAG_ALLOW_REMOTE_READ | \
	NDK_OP_FLAG_ALLOW_LOCAL_WRITE | NDK_OP_FLAG_ALLOW_REMOTE_WRITE | \
	NDK_OP_FLAG_RDMA_READ_SINK)
#define SWR_BIND_FLAGS (SWR_LOCAL_FLAGS | NDK_OP_FLAG_ALLOW_REMOTE_READ | \
	NDK_OP_FLAG_ALLOW_REMOTE_WRITE)

ndk_status_t
swr_post_send(struct ndk_qp *q, void *ctx, const struct ndk_sge *sgl,
	      uint32_t nsge, uint32_t flags)
{
	return swr_post_data(swr_qp_of(q), SWR_WR_SEND, ctx, sgl, nsge, 0, 0,
			     flags, SWR_SEND_FLAGS);
}

ndk_status_t
swr_post_send_inv(struct ndk_qp *q, void *ctx, const struct ndk_sge *sgl,
		  uint32_t nsge, uint32_t flags, uint32_t remote_token)
{
	/* The token rides in the IETH of the last packet. */
	return swr_post_data(swr_qp_of(q), SWR_WR_SEND_INV, ctx, sgl, nsge, 0,
			     remote_token, flags, SWR_SEND_FLAGS);
}

ndk_status_t
swr_post_write(struct ndk_qp *q, void *ctx, const struct ndk_sge *sgl,
	       uint32_t nsge, uint64_t raddr, uint32_t rkey, uint32_t flags)
{
	return swr_post_data(swr_qp_of(q), SWR_WR_WRITE, ctx, sgl, nsge, raddr,
			     rkey, flags, SWR_WRITE_FLAGS);
}

ndk_status_t
swr_post_read(struct ndk_qp *q, void *ctx, const struct ndk_sge *sgl,
	      uint32_t nsge, uint64_t raddr, uint32_t rkey, uint32_t flags)
{
	/* Local invalidate names the first SGE's region: there must be one. */
	if ((flags & NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE) && nsge == 0)
		return swr_post_fail(swr_qp_of(q),
				     NDK_STATUS_INVALID_PARAMETER);
	return swr_post_data(swr_qp_of(q), SWR_WR_READ, ctx, sgl, nsge, raddr,
			     rkey, flags, SWR_READ_FLAGS);
}

/* ------------------------------------------------------------------ */
/* Memory operations posted on the send queue                          */
/* ------------------------------------------------------------------ */

ndk_status_t
swr_post_fast_register(struct ndk_qp *q, void *ctx, struct ndk_mr *m,
		       uint32_t page_count, const uint64_t *pages,
		       uint32_t fbo, size_t length, uint64_t base_va,
		       uint32_t flags)
{
	struct swr_qp *qp = swr_qp_of(q);
	struct swr_mr *mr = (struct swr_mr *)m;
	uint32_t acc = swr_acc_from_op_flags(flags);
	struct swr_swqe *wqe;
	ndk_status_t st = NDK_STATUS_SUCCESS;

	wqe = swr_sq_reserve(qp, flags, SWR_FR_FLAGS, &st);
	if (unlikely(wqe == NULL))
		return st;
	if (m == NULL || m->header.type != NDK_OBJECT_TYPE_MR ||
	    !mr->fast_register || mr->pages == NULL || mr->pd != qp->pd)
		return swr_post_fail(qp, NDK_STATUS_INVALID_DEVICE_REQUEST);
	if ((acc & (SWR_ACC_REMOTE_READ | SWR_ACC_REMOTE_WRITE)) &&
	    !mr->remote_ok)
		return swr_post_fail(qp, NDK_STATUS_ACCESS_VIOLATION);
	st = swr_frmr_check_pages(qp, mr, page_count, pages, fbo, length,
				  base_va);
	if (st != NDK_STATUS_SUCCESS)
		return swr_post_fail(qp, st);
	/* The list is copied now: the consumer's array may go at return. */
	memcpy(mr->pages_stage, pages, page_count * sizeof(pages[0]));
	wqe->reg = mr;
	wqe->parent = NULL;
	wqe->acc = acc;
	wqe->raddr = base_va;
	wqe->length = (uint32_t)length;
	wqe->npages = page_count;
	wqe->fbo = fbo;
	wqe->nsge = 0;
	/* A new key per registration: the old token stays refused. */
	wqe->rkey = swr_mr_new_token(mr);
	return swr_sq_commit(qp, wqe, SWR_WR_FAST_REG, ctx, flags);
}

ndk_status_t
swr_post_invalidate(struct ndk_qp *q, void *ctx,
		    struct ndk_object_header *obj, uint32_t flags)
{
	struct swr_qp *qp = swr_qp_of(q);
	struct swr_mr *reg;
	struct swr_swqe *wqe;
	ndk_status_t st = NDK_STATUS_SUCCESS;

	wqe = swr_sq_reserve(qp, flags, SWR_LOCAL_FLAGS, &st);
	if (unlikely(wqe == NULL))
		return st;
	if (obj != NULL && obj->type == NDK_OBJECT_TYPE_MW)
		reg = &((struct swr_mw *)obj)->r;
	else if (obj != NULL && obj->type == NDK_OBJECT_TYPE_MR &&
		 ((struct swr_mr *)obj)->fast_register)
		reg = (struct swr_mr *)obj;
	else   /* plain MRs are deregistered, never invalidated */
		return swr_post_fail(qp, NDK_STATUS_INVALID_DEVICE_REQUEST);
	if (reg->pd != qp->pd)
		return swr_post_fail(qp, NDK_STATUS_INVALID_DEVICE_REQUEST);
	wqe->reg = reg;
	wqe->parent = NULL;
	wqe->nsge = 0;
	wqe->length = 0;
	return swr_sq_commit(qp, wqe, SWR_WR_INVALIDATE, ctx, flags);
}

ndk_status_t
swr_post_bind(struct ndk_qp *q, void *ctx, struct ndk_mr *m,
	      struct ndk_mw *w, uint64_t va, size_t length, uint32_t flags)
{
	struct swr_qp *qp = swr_qp_of(q);
	struct swr_mr *mr = (struct swr_mr *)m;
	uint32_t acc = swr_acc_from_op_flags(flags);
	struct swr_swqe *wqe;
	struct swr_mw *mw;
	ndk_status_t st = NDK_STATUS_SUCCESS;

	wqe = swr_sq_reserve(qp, flags, SWR_BIND_FLAGS, &st);
	if (unlikely(wqe == NULL))
		return st;
	if (m == NULL || m->header.type != NDK_OBJECT_TYPE_MR ||
	    w == NULL || w->header.type != NDK_OBJECT_TYPE_MW)
		return swr_post_fail(qp, NDK_STATUS_INVALID_PARAMETER);
	mw = (struct swr_mw *)w;
	if (mr->pd != qp->pd || mw->r.pd != qp->pd || va == 0 || length == 0)
		return swr_post_fail(qp, NDK_STATUS_INVALID_PARAMETER);
	/* Rights of a registered MR are known now; an FRMR's at execution. */
	if (!mr->fast_register) {
		if (__atomic_load_n(&mr->state, __ATOMIC_ACQUIRE) !=
		    SWR_MR_VALID || va < mr->va || length > mr->len ||
		    va - mr->va > mr->len - length)
			return swr_post_fail(qp, NDK_STATUS_INVALID_PARAMETER);
		/* Remote write through a window needs local write on the MR. */
		if ((acc & SWR_ACC_REMOTE_WRITE) &&
		    !(mr->access & SWR_ACC_LOCAL_WRITE))
			return swr_post_fail(qp, NDK_STATUS_ACCESS_VIOLATION);
	}
	wqe->reg = &mw->r;
	wqe->parent = mr;
	wqe->acc = acc;
	wqe->raddr = va;
	wqe->length = (uint32_t)RTE_MIN(length, (size_t)UINT32_MAX);
	wqe->nsge = 0;
	/* NDK: the window's token is valid when NdkBind returns. */
	wqe->rkey = swr_mr_new_token(&mw->r);
	return swr_sq_commit(qp, wqe, SWR_WR_BIND, ctx, flags);
}

/* ------------------------------------------------------------------ */
/* Receive queue, flush, counters                                      */
/* ------------------------------------------------------------------ */

ndk_status_t
swr_post_receive(struct ndk_qp *q, void *ctx, const struct ndk_sge *sgl,
		 uint32_t nsge)
{
	struct swr_qp *qp = swr_qp_of(q);
	uint32_t state = swr_qp_state(qp);
	struct swr_rwqe *wqe;
	uint32_t total;
	ndk_status_t st = NDK_STATUS_SUCCESS;

	if (unlikely(state == NDK_QP_STATE_RESET))
		return NDK_STATUS_CONNECTION_INVALID;
	if (unlikely(qp->rq_prod_priv -
		     __atomic_load_n(&qp->rq_done, __ATOMIC_ACQUIRE) >=
		     qp->rq_depth))
		/* A QP on an SRQ has no receive queue of its own. */
		return qp->srq != NULL ? NDK_STATUS_INVALID_DEVICE_REQUEST :
			NDK_STATUS_NO_MORE_ENTRIES;
	st = swr_check_sgl(qp, sgl, nsge, qp->max_rsge, SWR_ACC_LOCAL_WRITE,
			   &total);
	if (unlikely(st != NDK_STATUS_SUCCESS))
		return st;
	wqe = swr_rwqe(qp, qp->rq_prod_priv);
	wqe->ctx = ctx;
	wqe->nsge = nsge;
	wqe->length = total;
	swr_sge_list_copy(wqe->sge, sgl, nsge);
	qp->rq_prod_priv++;
	__atomic_store_n(&qp->rq_prod, qp->rq_prod_priv, __ATOMIC_RELEASE);
	if (unlikely(state == NDK_QP_STATE_ERROR))
		swr_doorbell(qp);
	return NDK_STATUS_SUCCESS;
}

ndk_status_t
swr_post_receive_list(struct ndk_qp *q,
		      const struct ndk_receive_request *rq, uint32_t n,
		      uint32_t *posted)
{
	struct swr_qp *qp = swr_qp_of(q);
	uint32_t state = swr_qp_state(qp);
	uint32_t prod = qp->rq_prod_priv, room, i;
	ndk_status_t st = NDK_STATUS_SUCCESS;
	/* The region the last one-SGE receive was checked in. */
	const struct swr_mr *last = NULL;

	*posted = 0;
	if (unlikely(state == NDK_QP_STATE_RESET))
		return NDK_STATUS_CONNECTION_INVALID;
	/* The room once: the poller only frees more meanwhile. */
	room = qp->rq_depth -
		(prod - __atomic_load_n(&qp->rq_done, __ATOMIC_ACQUIRE));
	for (i = 0; i < n; i++) {
		struct swr_rwqe *wqe;
		uint32_t total;

		if (unlikely(i == room)) {
			st = qp->srq != NULL ? NDK_STATUS_INVALID_DEVICE_REQUEST :
				NDK_STATUS_NO_MORE_ENTRIES;
			break;
		}
		/*
		 * One SGE in the region the one before was found in (a
		 * receiver re-posting its buffers): the bounds alone, the
		 * region's state, rights and PD are those checked a moment
		 * ago in this call. Otherwise the full check.
		 */
		if (likely(rq[i].nsge == 1 && last != NULL &&
			   swr_sge_within(last, rq[i].sgl))) {
			total = rq[i].sgl->length;
		} else {
			const struct ndk_sge *s = rq[i].sgl;

			st = swr_check_sgl(qp, s, rq[i].nsge, qp->max_rsge,
					   SWR_ACC_LOCAL_WRITE, &total);
			if (unlikely(st != NDK_STATUS_SUCCESS))
				break;
			last = rq[i].nsge == 1 && total != 0 ?
				swr_mr_lookup(qp->ad, qp->pd, s->token,
					      (uintptr_t)s->va, s->length,
					      SWR_ACC_LOCAL_WRITE) : NULL;
		}
		wqe = swr_rwqe(qp, prod);
		wqe->ctx = rq[i].request_context;
		wqe->nsge = rq[i].nsge;
		wqe->length = total;
		swr_sge_list_copy(wqe->sge, rq[i].sgl, rq[i].nsge);
		prod++;
	}
	if (i != 0) {
		/* One release for the list: the poller sees them together. */
		qp->rq_prod_priv = prod;
		__atomic_store_n(&qp->rq_prod, prod, __ATOMIC_RELEASE);
		if (unlikely(state == NDK_QP_STATE_ERROR))
			swr_doorbell(qp);
	}
	*posted = i;
	return st;
}

void
swr_post_flush(struct ndk_qp *q)
{
	struct swr_qp *qp = swr_qp_of(q);

	/* A flush releases a deferred chain too: it all completes flushed. */
	if (qp->sq_prod_priv != qp->sq_prod)
		swr_sq_publish(qp);
	__atomic_store_n(&qp->flush_req, 1, __ATOMIC_RELEASE);
	swr_doorbell(qp);
}

void
swr_post_get_stats(struct ndk_qp *q, struct ndk_qp_stats *stats)
{
	*stats = swr_qp_of(q)->pstats;
}
