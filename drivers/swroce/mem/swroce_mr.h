/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef SWROCE_MR_H
#define SWROCE_MR_H

/**
 * @file
 * swroce protection domains, memory regions and memory windows: the
 * structures, the token table's slots, the lookup the data path inlines
 * (token to region, range and access checks) and the calls of
 * mem/swroce_mr.c (PDs, MRs, the token table) and mem/swroce_tokens.c
 * (fast-register MRs, windows, local operations). Copies through regions
 * are mem/swroce_copy.h's.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_mbuf.h>

#include "ndk_provider.h"
#include "swroce_adapter.h"

struct swr_qp;
struct swr_swqe;

/* ------------------------------------------------------------------ */
/* PD and MR                                                           */
/* ------------------------------------------------------------------ */

/** One slot of the MR table; the token names slot and generation. */
struct swr_mr_slot {
	struct swr_mr *mr;        /**< NULL when free (atomic) */
	uint32_t gen;             /**< bumped on every registration */
};

struct swr_pd {
	struct ndk_pd pub;        /**< must be first */
	struct swr_adapter *ad;
	uint32_t refcnt;          /**< MRs + QPs (atomic) */
	bool closing;
	ndk_close_completion_fn close_done;
	void *close_ctx;
	struct swr_pd *next;      /**< adapter list (obj_lock) */
	struct swr_mr *mr_list;   /**< MRs created in this PD (obj_lock) */
};

/** Access rights of a region (NDK_MR_FLAG_* bits). */
#define SWR_ACC_LOCAL_WRITE NDK_MR_FLAG_ALLOW_LOCAL_WRITE
#define SWR_ACC_REMOTE_READ NDK_MR_FLAG_ALLOW_REMOTE_READ
#define SWR_ACC_REMOTE_WRITE 0x4u /**< the bit REMOTE_WRITE adds */

enum swr_mr_state {
	SWR_MR_UNREGISTERED = 0,  /**< also: invalidated FRMR / unbound MW */
	SWR_MR_VALID,
};

/** What a token names. */
enum swr_mr_kind {
	SWR_MR_PLAIN = 0,         /**< NdkRegisterMr: VA is the host address */
	SWR_MR_FRMR,              /**< fast-register: VA -> page list */
	SWR_MR_MW,                /**< window over a parent MR's VA range */
};

/**
 * A region a token can name: a registered MR, a fast-register MR or a
 * memory window (which embeds one of these in struct swr_mw).
 */
struct swr_mr {
	struct ndk_mr pub;        /**< must be first */
	struct swr_adapter *ad;
	struct swr_pd *pd;
	uint32_t state;           /**< enum swr_mr_state (atomic) */
	uint32_t token;           /**< local and remote token when valid */
	uint32_t access;          /**< SWR_ACC_* */
	uint8_t kind;             /**< enum swr_mr_kind */
	bool fast_register;
	bool remote_ok;           /**< FRMR initialised with remote access */
	uintptr_t va;
	uint64_t len;
	struct swr_mr *next_in_pd; /**< pd->mr_list (obj_lock) */
	/* --- fast-register MRs and windows --- */
	uint32_t slot;            /**< table slot, reserved for the object */
	uint32_t token_next;      /**< token of the latest FR/bind posted */
	uint32_t max_pages;       /**< FRMR capacity (NDK_PAGE_SIZE pages) */
	uint32_t fbo;             /**< first byte offset in pages[0] */
	uint64_t *pages;          /**< FRMR: active page list */
	uint64_t *pages_stage;    /**< FRMR: page list of the FR posted */
	struct swr_mr *parent;    /**< MW: the MR it is bound to */
	uint32_t parent_token;    /**< MW: the parent's token at bind */
	/* --- zero-copy transmit (plain MRs, mem/swroce_zc.c) --- */
	/** Shared info of the mbufs attached over the region: its refcnt
	 *  is 1 while registered plus 1 per attached mbuf not yet freed. */
	struct rte_mbuf_ext_shared_info zc;
	uint32_t zc_flags;        /**< SWR_ZC_* (atomic) */
	ndk_close_completion_fn close_done; /**< a close waiting for mbufs */
	void *close_ctx;
	/** A close without callback waiting for the reap (atomic). */
	uint32_t *zc_waiter;
	struct swr_mr *zc_next;   /**< ad->zc_done or the orphans' list */
};

/** No free slot in the token table. */
#define SWR_NO_SLOT UINT32_MAX

/** A memory window: its region lives in the token table like an MR. */
struct swr_mw {
	struct ndk_mw pub;        /**< must be first */
	struct swr_mr r;
};

/** NDK_OP_FLAG_ALLOW_* of FastRegister/Bind to SWR_ACC_* bits. */
static inline uint32_t
swr_acc_from_op_flags(uint32_t flags)
{
	uint32_t acc = 0;

	if (flags & NDK_OP_FLAG_ALLOW_REMOTE_READ)
		acc |= SWR_ACC_REMOTE_READ;
	if (flags & NDK_OP_FLAG_ALLOW_LOCAL_WRITE)
		acc |= SWR_ACC_LOCAL_WRITE;
	if ((flags & NDK_OP_FLAG_ALLOW_REMOTE_WRITE) ==
	    NDK_OP_FLAG_ALLOW_REMOTE_WRITE)
		acc |= SWR_ACC_REMOTE_WRITE | SWR_ACC_LOCAL_WRITE;
	return acc;
}

/**
 * Find the valid region named by @p token in @p pd that covers
 * [va, va + len) with every right in @p access (SWR_ACC_* bits).
 * Zero @p len only checks the token. Safe on the polling thread and on
 * application threads. Inline: it runs for every SGE posted and every
 * chunk copied, and @p access is a constant at most call sites.
 * @return the region or NULL.
 */
static inline struct swr_mr *
swr_mr_lookup(struct swr_adapter *ad, const struct swr_pd *pd,
	      uint32_t token, uint64_t va, uint64_t len, uint32_t access)
{
	struct swr_mr *mr = __atomic_load_n(&ad->mr_tbl[token & ad->mr_mask].mr,
					    __ATOMIC_ACQUIRE);

	/* The token check also refuses stale generations, 0 and ~0. */
	if (unlikely(mr == NULL || mr->token != token))
		return NULL;
	if (unlikely(__atomic_load_n(&mr->state, __ATOMIC_ACQUIRE) !=
		     SWR_MR_VALID))
		return NULL;
	if (unlikely(mr->pd != pd || (mr->access & access) != access))
		return NULL;
	if (unlikely(mr->kind == SWR_MR_MW)) {
		const struct swr_mr *parent = mr->parent;

		/* A window serves remote access only, while its MR lives. */
		if (!(access & (SWR_ACC_REMOTE_READ | SWR_ACC_REMOTE_WRITE)) ||
		    __atomic_load_n(&parent->state, __ATOMIC_ACQUIRE) !=
		    SWR_MR_VALID || parent->token != mr->parent_token)
			return NULL;
	}
	if (len == 0)
		return mr;
	/* [va, va + len) inside [mr->va, mr->va + mr->len), overflow-safe. */
	if (unlikely(va < mr->va || len > mr->len ||
		     va - mr->va > mr->len - len))
		return NULL;
	return mr;
}

/* swroce_mr.c: PDs, MRs, the token table */

/** Unlink from the PD's list of regions (obj_lock held). */
void swr_mr_unlink(struct swr_mr *mr);

/** Next free token-table slot (obj_lock held), or SWR_NO_SLOT. */
uint32_t swr_mr_slot_find(const struct swr_adapter *ad);

/** The next token of table slot @p idx (a new key; any thread). */
uint32_t swr_token_next(struct swr_adapter *ad, uint32_t idx);

ndk_status_t swr_pd_create(struct ndk_adapter *adapter, struct ndk_pd **pd);

/** Drop a reference taken by an MR or QP; completes a pending close. */
void swr_pd_put(struct swr_pd *pd);

/** Free a PD and its MRs immediately (adapter close). */
void swr_pd_destroy(struct swr_pd *pd);

/* swroce_tokens.c: fast-register MRs, windows, local operations */

ndk_status_t swr_mr_init_fast_register(struct ndk_mr *mr, uint32_t pages,
				       bool remote_access);
void swr_mr_frmr_release(struct swr_mr *mr);
ndk_status_t swr_mw_create(struct ndk_pd *pd, struct ndk_mw **mw);

/** Free a window whose PD is being destroyed (token already gone). */
void swr_mw_free(struct swr_mr *r);

/**
 * The FRMR or MW named by @p token in @p pd whatever its state (NULL if
 * none, or a plain MR: those cannot be invalidated by token).
 */
struct swr_mr *swr_mr_find_invalidatable(struct swr_adapter *ad,
					 const struct swr_pd *pd,
					 uint32_t token);

/** A fresh token for the reserved slot of an FRMR or MW (any thread). */
uint32_t swr_mr_new_token(struct swr_mr *mr);

/**
 * Check a fast-register page list against the MR's capacity: page
 * alignment, DPDK memory, fbo/base_va/length rules. Application thread
 * (the QP's poster: it keeps the memory list last found in qp->fr_msl).
 */
ndk_status_t swr_frmr_check_pages(struct swr_qp *qp,
				  const struct swr_mr *mr,
				  uint32_t page_count, const uint64_t *pages,
				  uint32_t fbo, size_t length,
				  uint64_t base_va);

/**
 * Carry out a fast register, invalidate or bind in send-queue order
 * (polling thread). @return its completion status.
 */
ndk_status_t swr_local_exec(struct swr_qp *qp, struct swr_swqe *wqe);

#endif /* SWROCE_MR_H */
