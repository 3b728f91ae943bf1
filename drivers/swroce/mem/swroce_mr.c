/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * swroce protection domains, memory regions and token lookup.
 *
 * A registered MR sits in one slot of ad->mr_tbl; its token (local and
 * remote alike) is (gen << mr_bits) | slot, gen being bumped on every
 * registration in the slot. Slots are handed out round-robin so a freed
 * one is reused as late as possible: a stale token then needs the slot to
 * be reused 2^(32 - mr_bits) times before it can name a region again.
 *
 * Writers (register, deregister, create, close) hold ad->obj_lock. The
 * lookup is lock-free: it acquires the slot pointer, which is published
 * after the MR's fields. Deregistration clears the slot and then waits out
 * the poll in progress (swr_quiesce), so nobody still holds the old lookup
 * when it returns.
 *
 * References: a PD holds one for its handle, one per MR (create to close)
 * and one per QP; the last swr_pd_put() after a close frees it.
 */

#include <stdint.h>

#include <rte_common.h>
#include <rte_eal_memconfig.h>
#include <rte_malloc.h>
#include <rte_memory.h>

#include "swroce_adapter.h"
#include "swroce_ctl.h"
#include "swroce_mr.h"
#include "swroce_qp.h"
#include "swroce_srq.h"
#include "swroce_zc.h"

#define MR_FLAGS_KNOWN (NDK_MR_FLAG_ALLOW_LOCAL_WRITE | \
			NDK_MR_FLAG_ALLOW_REMOTE_READ | \
			NDK_MR_FLAG_ALLOW_REMOTE_WRITE | \
			NDK_MR_FLAG_RDMA_READ_SINK)


static const struct ndk_pd_dispatch swr_pd_ops;
static const struct ndk_mr_dispatch swr_mr_ops;

static inline struct swr_pd *
pd_of(struct ndk_pd *p)
{
	return (struct swr_pd *)p;
}

static inline struct swr_mr *
mr_of(struct ndk_mr *m)
{
	return (struct swr_mr *)m;
}

/* The lookup of the fast path is inline: swr_mr_lookup() in swroce_mr.h. */

/* ------------------------------------------------------------------ */
/* PD                                                                  */
/* ------------------------------------------------------------------ */

/* Unlink and free; the caller owns the last reference. */
static void
pd_free(struct swr_pd *pd)
{
	struct swr_adapter *ad = pd->ad;
	struct swr_pd **pp;

	rte_spinlock_lock(&ad->obj_lock);
	for (pp = &ad->pd_list; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == pd) {
			*pp = pd->next;
			break;
		}
	}
	ad->n_pd--;
	rte_spinlock_unlock(&ad->obj_lock);
	rte_free(pd);
}

/* Free, then complete a pending close: nothing touches the PD after. */
static void
pd_free_and_complete(struct swr_pd *pd)
{
	ndk_close_completion_fn done = pd->close_done;
	void *ctx = pd->close_ctx;

	pd_free(pd);
	if (done != NULL)
		done(ctx);
}

static inline bool
pd_unref(struct swr_pd *pd)
{
	return __atomic_sub_fetch(&pd->refcnt, 1, __ATOMIC_ACQ_REL) == 0;
}

void
swr_pd_put(struct swr_pd *pd)
{
	/* Zero is reachable only after close dropped the handle's ref. */
	if (pd_unref(pd))
		pd_free_and_complete(pd);
}

static ndk_status_t
swr_pd_close(struct ndk_pd *p, ndk_close_completion_fn done, void *ctx)
{
	struct swr_pd *pd = pd_of(p);

	pd->close_done = done;
	pd->close_ctx = ctx;
	__atomic_store_n(&pd->closing, true, __ATOMIC_RELEASE);
	/* MRs or QPs left: the last of them completes the close. */
	if (!pd_unref(pd))
		return NDK_STATUS_PENDING;
	pd_free(pd);
	return NDK_STATUS_SUCCESS;
}

ndk_status_t
swr_pd_create(struct ndk_adapter *adapter, struct ndk_pd **out)
{
	struct swr_adapter *ad = swr_adapter_of(adapter);
	struct swr_pd *pd;

	pd = rte_zmalloc_socket("swr_pd", sizeof(*pd), RTE_CACHE_LINE_SIZE,
				ad->socket_id);
	if (pd == NULL)
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	ndk_object_header_init(&pd->pub.header, NDK_OBJECT_TYPE_PD);
	pd->pub.dispatch = &swr_pd_ops;
	pd->ad = ad;
	pd->refcnt = 1; /* the handle */

	rte_spinlock_lock(&ad->obj_lock);
	pd->next = ad->pd_list;
	ad->pd_list = pd;
	ad->n_pd++;
	rte_spinlock_unlock(&ad->obj_lock);
	*out = &pd->pub;
	return NDK_STATUS_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* MR table                                                            */
/* ------------------------------------------------------------------ */

/* Next free slot from the cursor (obj_lock held). */
uint32_t
swr_mr_slot_find(const struct swr_adapter *ad)
{
	if (ad->n_mr >= ad->info.max_mr)
		return SWR_NO_SLOT;
	for (uint32_t i = 0; i <= ad->mr_mask; i++) {
		uint32_t idx = (ad->mr_cursor + i) & ad->mr_mask;

		if (__atomic_load_n(&ad->mr_tbl[idx].mr,
				    __ATOMIC_RELAXED) == NULL)
			return idx;
	}
	return SWR_NO_SLOT;
}

/*
 * Bump the slot's generation and form the token. Each slot has one writer
 * at a time (the registering thread, or the poster of an FRMR/MW's fast
 * register or bind); the atomic covers the rest. For one slot at most two
 * generations give a reserved token (0 for slot 0, ~0 for the last slot),
 * so with mr_bits <= 30 the loop ends in <= 3 steps.
 */
uint32_t
swr_token_next(struct swr_adapter *ad, uint32_t idx)
{
	uint32_t gen_mask = (uint32_t)((UINT64_C(1) << (32 - ad->mr_bits)) - 1);
	struct swr_mr_slot *slot = &ad->mr_tbl[idx];
	uint32_t token;

	do {
		uint32_t gen = __atomic_add_fetch(&slot->gen, 1,
						  __ATOMIC_RELAXED) & gen_mask;

		token = (uint32_t)(((uint64_t)gen << ad->mr_bits) | idx);
	} while (token == 0 || token == UINT32_MAX);
	return token;
}

/* Make a valid MR unreachable (obj_lock held); callers then quiesce. */
static void
mr_unpublish(struct swr_mr *mr)
{
	struct swr_adapter *ad = mr->ad;

	__atomic_store_n(&mr->state, SWR_MR_UNREGISTERED, __ATOMIC_RELEASE);
	__atomic_store_n(&ad->mr_tbl[mr->token & ad->mr_mask].mr, NULL,
			 __ATOMIC_RELEASE);
	ad->n_mr--;
}

/* ------------------------------------------------------------------ */
/* MR                                                                  */
/* ------------------------------------------------------------------ */

/*
 * Both ends of [va, va + len) must be allocated DPDK memory of one memseg
 * list (rte_malloc, mempools, memzones, also under --no-huge, and external
 * memory registered with EAL): the engines copy from the VA directly.
 */
static bool
mr_is_dpdk_mem(const void *va, size_t len)
{
	const void *last = RTE_PTR_ADD(va, len - 1);
	const struct rte_memseg_list *msl;
	bool ok;

	rte_mcfg_mem_read_lock();
	msl = rte_mem_virt2memseg_list(va);
	ok = msl != NULL && rte_mem_virt2memseg(va, msl) != NULL &&
		rte_mem_virt2memseg(last, msl) != NULL;
	rte_mcfg_mem_read_unlock();
	return ok;
}

static ndk_status_t
mr_check_args(const struct swr_adapter *ad, const void *va, size_t len,
	      uint32_t flags)
{
	if (va == NULL || len == 0 || len > ad->info.max_registration_size ||
	    (uintptr_t)va > UINTPTR_MAX - (len - 1))
		return NDK_STATUS_INVALID_PARAMETER;
	if ((flags & ~MR_FLAGS_KNOWN) != 0) {
		NDK_LOG(ERR, "register MR: unknown flags 0x%x", flags);
		return NDK_STATUS_INVALID_PARAMETER;
	}
	if (!mr_is_dpdk_mem(va, len)) {
		NDK_LOG(ERR, "register MR: %p + %zu is not DPDK memory "
			"(use rte_malloc, a mempool or a memzone)", va, len);
		return NDK_STATUS_INVALID_PARAMETER;
	}
	return NDK_STATUS_SUCCESS;
}

/* NDK_MR_FLAG_* to SWR_ACC_*; RDMA_READ_SINK needs nothing here. */
static inline uint32_t
mr_access(uint32_t flags)
{
	uint32_t acc = flags & (SWR_ACC_LOCAL_WRITE | SWR_ACC_REMOTE_READ |
				SWR_ACC_REMOTE_WRITE);

	/* NDK's ALLOW_REMOTE_WRITE (0x5) includes local write. */
	if (acc & SWR_ACC_REMOTE_WRITE)
		acc |= SWR_ACC_LOCAL_WRITE;
	return acc;
}

static ndk_status_t
swr_mr_register(struct ndk_mr *m, void *va, size_t len, uint32_t flags)
{
	struct swr_mr *mr = mr_of(m);
	struct swr_adapter *ad = mr->ad;
	struct swr_mr_slot *slot;
	ndk_status_t st;
	uint32_t idx;

	if (mr->fast_register)
		return NDK_STATUS_INVALID_DEVICE_REQUEST;
	if (__atomic_load_n(&mr->state, __ATOMIC_RELAXED) == SWR_MR_VALID)
		return NDK_STATUS_INVALID_DEVICE_STATE;
	/* Deregistered, but frames sent from it are still out. */
	if (__atomic_load_n(&mr->zc_flags, __ATOMIC_ACQUIRE) &
	    SWR_ZC_DRAINING)
		return NDK_STATUS_DEVICE_BUSY;
	st = mr_check_args(ad, va, len, flags);
	if (st != NDK_STATUS_SUCCESS)
		return st;

	rte_spinlock_lock(&ad->obj_lock);
	/* Checked again under the lock against a racing register. */
	if (mr->state == SWR_MR_VALID) {
		rte_spinlock_unlock(&ad->obj_lock);
		return NDK_STATUS_INVALID_DEVICE_STATE;
	}
	idx = swr_mr_slot_find(ad);
	if (idx == SWR_NO_SLOT) {
		rte_spinlock_unlock(&ad->obj_lock);
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	}
	slot = &ad->mr_tbl[idx];
	mr->token = swr_token_next(ad, idx);
	mr->va = (uintptr_t)va;
	mr->len = len;
	mr->access = mr_access(flags);
	swr_mr_zc_arm(mr);
	__atomic_store_n(&mr->state, SWR_MR_VALID, __ATOMIC_RELEASE);
	/* Last: a lookup that finds the MR sees all of the above. */
	__atomic_store_n(&slot->mr, mr, __ATOMIC_RELEASE);
	ad->mr_cursor = (idx + 1) & ad->mr_mask;
	ad->n_mr++;
	rte_spinlock_unlock(&ad->obj_lock);
	return NDK_STATUS_SUCCESS;
}

static ndk_status_t
swr_mr_deregister(struct ndk_mr *m)
{
	struct swr_mr *mr = mr_of(m);
	struct swr_adapter *ad = mr->ad;

	if (mr->fast_register)   /* invalidated, never deregistered */
		return NDK_STATUS_INVALID_DEVICE_REQUEST;
	rte_spinlock_lock(&ad->obj_lock);
	if (mr->state != SWR_MR_VALID) {
		rte_spinlock_unlock(&ad->obj_lock);
		return NDK_STATUS_INVALID_DEVICE_STATE;
	}
	mr_unpublish(mr);
	rte_spinlock_unlock(&ad->obj_lock);
	/*
	 * A poll in progress may have looked the MR up just before: wait for
	 * it, so that on return the token is refused everywhere.
	 */
	swr_quiesce(ad);
	/*
	 * Frames sent from the region may still be out (zero-copy
	 * transmit): the memory is the application's again once the last
	 * comes back, which completes a close of the MR (mem/swroce_zc.c).
	 */
	return swr_mr_zc_put(mr) ? NDK_STATUS_SUCCESS : NDK_STATUS_PENDING;
}

uint32_t
swr_mr_token(struct ndk_mr *m)
{
	struct swr_mr *mr = mr_of(m);

	/* An FRMR's token is the one its latest fast register will set. */
	return mr->fast_register ? mr->token_next : mr->token;
}

/* Remove from the PD's list (obj_lock held). */
void
swr_mr_unlink(struct swr_mr *mr)
{
	struct swr_mr **pp;

	for (pp = &mr->pd->mr_list; *pp != NULL; pp = &(*pp)->next_in_pd) {
		if (*pp == mr) {
			*pp = mr->next_in_pd;
			return;
		}
	}
}

static ndk_status_t
swr_mr_close(struct ndk_mr *m, ndk_close_completion_fn done, void *ctx)
{
	struct swr_mr *mr = mr_of(m);
	struct swr_pd *pd = mr->pd;

	if (mr->fast_register)
		swr_mr_frmr_release(mr);
	else if (__atomic_load_n(&mr->state, __ATOMIC_ACQUIRE) ==
		 SWR_MR_VALID)
		swr_mr_deregister(m);
	/*
	 * Frames sent from it still out (mem/swroce_zc.c): with @p done, its
	 * return completes the close; without, the close waits for it.
	 */
	if (mr->kind == SWR_MR_PLAIN) {
		int rc = swr_mr_zc_close(mr, done, ctx);

		if (rc < 0)
			return NDK_STATUS_PENDING;
		if (rc > 0)
			return NDK_STATUS_SUCCESS; /* the wait finished it */
	}
	rte_spinlock_lock(&mr->ad->obj_lock);
	swr_mr_unlink(mr);
	rte_spinlock_unlock(&mr->ad->obj_lock);
	rte_free(mr);
	/* Last: this may complete the PD's pending close. */
	swr_pd_put(pd);
	return NDK_STATUS_SUCCESS;
}

static ndk_status_t
swr_pd_create_mr(struct ndk_pd *p, bool fast_register, struct ndk_mr **out)
{
	struct swr_pd *pd = pd_of(p);
	struct swr_adapter *ad = pd->ad;
	struct swr_mr *mr;

	mr = rte_zmalloc_socket("swr_mr", sizeof(*mr), RTE_CACHE_LINE_SIZE,
				ad->socket_id);
	if (mr == NULL)
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	ndk_object_header_init(&mr->pub.header, NDK_OBJECT_TYPE_MR);
	mr->pub.dispatch = &swr_mr_ops;
	mr->ad = ad;
	mr->pd = pd;
	mr->state = SWR_MR_UNREGISTERED;
	/* Fast-register MRs are set up by ndk_initialize_fast_register_mr. */
	mr->fast_register = fast_register;
	mr->kind = fast_register ? SWR_MR_FRMR : SWR_MR_PLAIN;
	mr->slot = SWR_NO_SLOT;
	/* The consumer's PD handle is open, so refcnt > 0 already. */
	__atomic_fetch_add(&pd->refcnt, 1, __ATOMIC_RELAXED);

	rte_spinlock_lock(&ad->obj_lock);
	mr->next_in_pd = pd->mr_list;
	pd->mr_list = mr;
	rte_spinlock_unlock(&ad->obj_lock);
	*out = &mr->pub;
	return NDK_STATUS_SUCCESS;
}

/* Free a PD and its MRs immediately (adapter close, QPs already gone). */
void
swr_pd_destroy(struct swr_pd *pd)
{
	struct swr_adapter *ad = pd->ad;
	struct swr_mr *mr, *next;

	rte_spinlock_lock(&ad->obj_lock);
	for (mr = pd->mr_list; mr != NULL; mr = mr->next_in_pd) {
		if (mr->slot != SWR_NO_SLOT) {
			/* FRMRs and windows own their slot for life. */
			__atomic_store_n(&mr->state, SWR_MR_UNREGISTERED,
					 __ATOMIC_RELEASE);
			__atomic_store_n(&ad->mr_tbl[mr->slot].mr, NULL,
					 __ATOMIC_RELEASE);
			mr->slot = SWR_NO_SLOT;
			ad->n_mr--;
		} else if (mr->state == SWR_MR_VALID) {
			mr_unpublish(mr);
		}
	}
	mr = pd->mr_list;
	pd->mr_list = NULL;
	rte_spinlock_unlock(&ad->obj_lock);
	/* One wait covers every token unpublished above. */
	swr_quiesce(ad);
	for (; mr != NULL; mr = next) {
		next = mr->next_in_pd;
		/* Frames still out, or a close the reap finishes. */
		if (mr->kind == SWR_MR_PLAIN && swr_mr_zc_orphan(mr))
			continue;
		if (mr->kind == SWR_MR_MW) {
			swr_mw_free(mr);
		} else {
			rte_free(mr->pages);
			rte_free(mr->pages_stage);
			rte_free(mr);
		}
	}
	/* A close left pending by MRs or QPs is owed its completion. */
	if (__atomic_load_n(&pd->closing, __ATOMIC_ACQUIRE))
		pd_free_and_complete(pd);
	else
		pd_free(pd);
}

/* ------------------------------------------------------------------ */
/* Dispatch                                                            */
/* ------------------------------------------------------------------ */

static const struct ndk_pd_dispatch swr_pd_ops = {
	.close = swr_pd_close,
	.create_mr = swr_pd_create_mr,
	.create_qp = swr_qp_create,
	.create_mw = swr_mw_create,
	.create_srq = swr_srq_create,
	.create_qp_with_srq = swr_qp_create_with_srq,
};

static const struct ndk_mr_dispatch swr_mr_ops = {
	.close = swr_mr_close,
	.register_mr = swr_mr_register,
	.deregister_mr = swr_mr_deregister,
	.remote_token = swr_mr_token,
	.local_token = swr_mr_token,
	.initialize_fast_register = swr_mr_init_fast_register,
};
