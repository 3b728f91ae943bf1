/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * swroce fast-register MRs, memory windows and invalidation.
 *
 * Token scheme. Every region a peer can name — registered MR, fast-register
 * MR (FRMR), memory window (MW) — sits in one slot of the adapter's token
 * table, and its token is (key << mr_bits) | slot. The key is a per-slot
 * generation of 32 - mr_bits bits (18 with the default 16384 slots) that
 * changes on EVERY registration: each NdkRegisterMr, each NdkFastRegister
 * and each NdkBind. A lookup accepts a token only if the slot's object
 * carries exactly that token and is valid, so a token invalidated or
 * deregistered is refused until its slot has been re-registered 2^18 times
 * (262,144; verbs' 8-bit key gives 256), and plain MRs, which take a fresh
 * slot round-robin, are further apart still. FRMRs and MWs keep their slot
 * for life, from NdkInitializeFastRegisterMr / NdkCreateMw to close.
 *
 * Address spaces. A plain MR's VA is the host address. An FRMR's VA space
 * is [base_va, base_va + length) chosen at each fast register, mapped onto
 * a list of NDK_PAGE_SIZE pages (not necessarily contiguous) with a first
 * byte offset. A window's VA range lies inside its MR's VA space and goes
 * through that MR's translation (mem/swroce_copy.c).
 */

#include <string.h>

#include <rte_malloc.h>
#include <rte_memory.h>

#include "swroce_adapter.h"
#include "swroce_ctl.h"
#include "swroce_mr.h"
#include "swroce_qp.h"

#define PAGE_SHIFT 12
#define PAGE_MASK (NDK_PAGE_SIZE - 1)

_Static_assert((1u << PAGE_SHIFT) == NDK_PAGE_SIZE, "page size");

/* ------------------------------------------------------------------ */
/* Tokens                                                             */
/* ------------------------------------------------------------------ */

struct swr_mr *
swr_mr_find_invalidatable(struct swr_adapter *ad, const struct swr_pd *pd,
			  uint32_t token)
{
	struct swr_mr *mr = __atomic_load_n(&ad->mr_tbl[token & ad->mr_mask].mr,
					    __ATOMIC_ACQUIRE);

	if (mr == NULL || mr->kind == SWR_MR_PLAIN || mr->pd != pd)
		return NULL;
	return mr;
}

uint32_t
swr_mr_new_token(struct swr_mr *mr)
{
	mr->token_next = swr_token_next(mr->ad, mr->slot);
	return mr->token_next;
}

/* ------------------------------------------------------------------ */
/* Slots owned by FRMRs and windows (control path)                     */
/* ------------------------------------------------------------------ */

static ndk_status_t
reg_slot_take(struct swr_mr *mr)
{
	struct swr_adapter *ad = mr->ad;
	uint32_t idx;

	rte_spinlock_lock(&ad->obj_lock);
	idx = swr_mr_slot_find(ad);
	if (idx != SWR_NO_SLOT) {
		mr->slot = idx;
		ad->mr_cursor = (idx + 1) & ad->mr_mask;
		ad->n_mr++;
		/* Invalid and token 0 until registered: lookups fail. */
		__atomic_store_n(&ad->mr_tbl[idx].mr, mr, __ATOMIC_RELEASE);
	}
	rte_spinlock_unlock(&ad->obj_lock);
	return idx == SWR_NO_SLOT ? NDK_STATUS_INSUFFICIENT_RESOURCES :
		NDK_STATUS_SUCCESS;
}

static void
reg_slot_give_back(struct swr_mr *mr)
{
	struct swr_adapter *ad = mr->ad;

	rte_spinlock_lock(&ad->obj_lock);
	__atomic_store_n(&mr->state, SWR_MR_UNREGISTERED, __ATOMIC_RELEASE);
	if (mr->slot != SWR_NO_SLOT) {
		__atomic_store_n(&ad->mr_tbl[mr->slot].mr, NULL,
				 __ATOMIC_RELEASE);
		mr->slot = SWR_NO_SLOT;
		ad->n_mr--;
	}
	swr_mr_unlink(mr);
	rte_spinlock_unlock(&ad->obj_lock);
	/* Nobody may still be inside a lookup that found it. */
	swr_quiesce(ad);
}

/* ------------------------------------------------------------------ */
/* Fast-register MRs                                                   */
/* ------------------------------------------------------------------ */

ndk_status_t
swr_mr_init_fast_register(struct ndk_mr *m, uint32_t npages,
			  bool remote_access)
{
	struct swr_mr *mr = (struct swr_mr *)m;
	struct swr_adapter *ad = mr->ad;
	uint64_t *pages, *stage;
	ndk_status_t st;

	if (!mr->fast_register)
		return NDK_STATUS_INVALID_DEVICE_REQUEST;
	if (npages == 0 || npages > ad->info.frmr_page_count)
		return NDK_STATUS_IMPLEMENTATION_LIMIT;
	if (__atomic_load_n(&mr->state, __ATOMIC_ACQUIRE) == SWR_MR_VALID)
		return NDK_STATUS_INVALID_DEVICE_STATE;
	pages = rte_zmalloc_socket("ndk_frmr", npages * sizeof(*pages), 0,
				   ad->socket_id);
	stage = rte_zmalloc_socket("ndk_frmr", npages * sizeof(*stage), 0,
				   ad->socket_id);
	if (pages == NULL || stage == NULL) {
		rte_free(pages);
		rte_free(stage);
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	}
	if (mr->slot == SWR_NO_SLOT) {
		st = reg_slot_take(mr);
		if (st != NDK_STATUS_SUCCESS) {
			rte_free(pages);
			rte_free(stage);
			return st;
		}
	}
	/* Re-initialising: nothing valid uses the old lists (checked). */
	rte_free(mr->pages);
	rte_free(mr->pages_stage);
	mr->pages = pages;
	mr->pages_stage = stage;
	mr->max_pages = npages;
	mr->remote_ok = remote_access;
	return NDK_STATUS_SUCCESS;
}

void
swr_mr_frmr_release(struct swr_mr *mr)
{
	reg_slot_give_back(mr);
	rte_free(mr->pages);
	rte_free(mr->pages_stage);
	mr->pages = mr->pages_stage = NULL;
	/* The caller unlinks again: harmless, the MR is no longer listed. */
}

/* Whether the page at @p a lies whole inside DPDK memory list @p msl. */
static inline bool
swr_page_in_msl(const struct rte_memseg_list *msl, uint64_t a)
{
	uint64_t base = (uintptr_t)msl->base_va;

	return a >= base && msl->len >= NDK_PAGE_SIZE &&
		a - base <= msl->len - NDK_PAGE_SIZE;
}

ndk_status_t
swr_frmr_check_pages(struct swr_qp *qp, const struct swr_mr *mr,
		     uint32_t npages, const uint64_t *pages, uint32_t fbo,
		     size_t length, uint64_t base_va)
{
	const struct rte_memseg_list *msl = qp->fr_msl;

	if (pages == NULL || npages == 0 || npages > mr->max_pages ||
	    fbo >= NDK_PAGE_SIZE || length == 0 ||
	    length > (size_t)npages * NDK_PAGE_SIZE - fbo ||
	    length > SWR_MAX_TRANSFER || base_va == 0 ||
	    (base_va & PAGE_MASK) != fbo || base_va > UINT64_MAX - length)
		return NDK_STATUS_INVALID_PARAMETER;
	for (uint32_t i = 0; i < npages; i++) {
		/*
		 * The engines copy to these pages: DPDK memory only, each
		 * page inside one memory list (the one the page before was
		 * in, or the last register's, most often: no lookup then).
		 */
		if (pages[i] == 0 || (pages[i] & PAGE_MASK) != 0)
			return NDK_STATUS_INVALID_PARAMETER;
		if (msl == NULL || !swr_page_in_msl(msl, pages[i])) {
			msl = rte_mem_virt2memseg_list(
				(void *)(uintptr_t)pages[i]);
			if (msl == NULL || !swr_page_in_msl(msl, pages[i]))
				return NDK_STATUS_INVALID_PARAMETER;
			qp->fr_msl = msl;
		}
		/* An attached application's QP: its own heap only. */
		if (qp->fr_hi != 0 &&
		    (pages[i] < qp->fr_lo ||
		     pages[i] > qp->fr_hi - NDK_PAGE_SIZE))
			return NDK_STATUS_ACCESS_VIOLATION;
	}
	return NDK_STATUS_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Memory windows                                                      */
/* ------------------------------------------------------------------ */

static ndk_status_t swr_mw_close(struct ndk_mw *w,
				 ndk_close_completion_fn done, void *ctx);

uint32_t
swr_mw_token(struct ndk_mw *w)
{
	return ((struct swr_mw *)w)->r.token_next;
}

static const struct ndk_mw_dispatch swr_mw_ops = {
	.close = swr_mw_close,
	.remote_token = swr_mw_token,
};

ndk_status_t
swr_mw_create(struct ndk_pd *p, struct ndk_mw **out)
{
	struct swr_pd *pd = (struct swr_pd *)p;
	struct swr_adapter *ad = pd->ad;
	struct swr_mw *mw;
	ndk_status_t st;

	mw = rte_zmalloc_socket("ndk_mw", sizeof(*mw), RTE_CACHE_LINE_SIZE,
				ad->socket_id);
	if (mw == NULL)
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	ndk_object_header_init(&mw->pub.header, NDK_OBJECT_TYPE_MW);
	mw->pub.dispatch = &swr_mw_ops;
	mw->r.ad = ad;
	mw->r.pd = pd;
	mw->r.kind = SWR_MR_MW;
	mw->r.state = SWR_MR_UNREGISTERED;
	mw->r.slot = SWR_NO_SLOT;
	st = reg_slot_take(&mw->r);
	if (st != NDK_STATUS_SUCCESS) {
		rte_free(mw);
		return st;
	}
	__atomic_fetch_add(&pd->refcnt, 1, __ATOMIC_RELAXED);
	rte_spinlock_lock(&ad->obj_lock);
	mw->r.next_in_pd = pd->mr_list;
	pd->mr_list = &mw->r;
	rte_spinlock_unlock(&ad->obj_lock);
	*out = &mw->pub;
	return NDK_STATUS_SUCCESS;
}

void
swr_mw_free(struct swr_mr *r)
{
	rte_free(container_of(r, struct swr_mw, r));
}

static ndk_status_t
swr_mw_close(struct ndk_mw *w, ndk_close_completion_fn done __rte_unused,
	     void *ctx __rte_unused)
{
	struct swr_mw *mw = (struct swr_mw *)w;
	struct swr_pd *pd = mw->r.pd;

	reg_slot_give_back(&mw->r);
	mw->pub.header.type = NDK_OBJECT_TYPE_UNDEFINED;
	rte_free(mw);
	swr_pd_put(pd);
	return NDK_STATUS_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Local operations, in send-queue order (polling thread)              */
/* ------------------------------------------------------------------ */

static ndk_status_t
exec_fast_register(struct swr_swqe *wqe)
{
	struct swr_mr *mr = wqe->reg;

	/* IB: a fast register needs an invalid MR (invalidate first). */
	if (__atomic_load_n(&mr->state, __ATOMIC_ACQUIRE) == SWR_MR_VALID ||
	    mr->pages == NULL || wqe->npages > mr->max_pages)
		return NDK_STATUS_INVALID_DEVICE_STATE;
	memcpy(mr->pages, mr->pages_stage, wqe->npages * sizeof(uint64_t));
	mr->va = wqe->raddr;
	mr->len = wqe->length;
	mr->fbo = wqe->fbo;
	mr->access = wqe->acc;
	mr->token = wqe->rkey;
	__atomic_store_n(&mr->state, SWR_MR_VALID, __ATOMIC_RELEASE);
	return NDK_STATUS_SUCCESS;
}

static ndk_status_t
exec_bind(struct swr_swqe *wqe)
{
	struct swr_mr *w = wqe->reg, *mr = wqe->parent;
	uint64_t va = wqe->raddr, len = wqe->length;

	if (__atomic_load_n(&mr->state, __ATOMIC_ACQUIRE) != SWR_MR_VALID)
		return NDK_STATUS_INVALID_DEVICE_STATE;
	if (va < mr->va || len > mr->len || va - mr->va > mr->len - len)
		return NDK_STATUS_INVALID_PARAMETER;
	/* Remote write through a window needs a locally writable MR. */
	if ((wqe->acc & SWR_ACC_REMOTE_WRITE) &&
	    !(mr->access & SWR_ACC_LOCAL_WRITE))
		return NDK_STATUS_ACCESS_VIOLATION;
	w->parent = mr;
	w->parent_token = mr->token;
	w->va = va;
	w->len = len;
	w->access = wqe->acc & (SWR_ACC_REMOTE_READ | SWR_ACC_REMOTE_WRITE);
	w->token = wqe->rkey;
	__atomic_store_n(&w->state, SWR_MR_VALID, __ATOMIC_RELEASE);
	return NDK_STATUS_SUCCESS;
}

ndk_status_t
swr_local_exec(struct swr_qp *qp __rte_unused, struct swr_swqe *wqe)
{
	switch (wqe->op) {
	case SWR_WR_FAST_REG:
		return exec_fast_register(wqe);
	case SWR_WR_BIND:
		return exec_bind(wqe);
	case SWR_WR_INVALIDATE:
		/*
		 * A fast-register MR that is not valid (the peer's SEND with
		 * Invalidate got there first, or it never was registered)
		 * stays invalid and the request succeeds: what the consumer
		 * asked for holds, and the race "target invalidated, host
		 * invalidates too" must not kill the connection. rxe does
		 * the same (its local invalidate of an FRMR does not look at
		 * the state). A window must be bound to be invalidated.
		 */
		if (__atomic_load_n(&wqe->reg->state, __ATOMIC_ACQUIRE) !=
		    SWR_MR_VALID)
			return wqe->reg->kind == SWR_MR_FRMR ?
				NDK_STATUS_SUCCESS :
				NDK_STATUS_INVALID_DEVICE_REQUEST;
		__atomic_store_n(&wqe->reg->state, SWR_MR_UNREGISTERED,
				 __ATOMIC_RELEASE);
		return NDK_STATUS_SUCCESS;
	default:
		return NDK_STATUS_INTERNAL_ERROR;
	}
}
