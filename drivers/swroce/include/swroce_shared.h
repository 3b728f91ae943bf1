/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef SWROCE_SHARED_H
#define SWROCE_SHARED_H

/**
 * @file
 * swroce's objects in shared hugepage memory, for another provider in
 * another process: the attach provider (drivers/attach) of an application
 * running as a DPDK secondary process of ndk-roced posts on the daemon's
 * swroce QPs and polls its swroce CQs with swroce's own code.
 *
 * Every object passed here is the daemon's swroce object (its address in
 * the shared memory, as the daemon names it), never a proxy. These
 * functions read and write only shared state (rings, producer indices,
 * the QP's doorbell ring, the adapter's token table and read-only
 * configuration), never an object's dispatch pointer, which is valid only
 * in the process that filled it. See doc/attach.md.
 */

#include <stddef.h>
#include <stdint.h>

#include "ndk.h"

/**
 * @name Posting on a QP (the QP dispatch entries of the application side;
 * swroce_post.c). Same contract as ndk_send(), ndk_send_and_invalidate(),
 * ndk_write(), ndk_read(), ndk_receive(), ndk_fast_register(),
 * ndk_invalidate(), ndk_bind(), ndk_flush() and ndk_qp_get_stats() on
 * swroce QP @p q; the callers serialise posts per queue as NDK requires.
 * @{
 */
/** Post a SEND on @p q. */
ndk_status_t swr_post_send(struct ndk_qp *q, void *ctx,
			   const struct ndk_sge *sgl, uint32_t nsge,
			   uint32_t flags);
/** Post a SEND with Invalidate of @p remote_token on @p q. */
ndk_status_t swr_post_send_inv(struct ndk_qp *q, void *ctx,
			       const struct ndk_sge *sgl, uint32_t nsge,
			       uint32_t flags, uint32_t remote_token);
/** Post an RDMA WRITE to [@p raddr, ...) of token @p rkey on @p q. */
ndk_status_t swr_post_write(struct ndk_qp *q, void *ctx,
			    const struct ndk_sge *sgl, uint32_t nsge,
			    uint64_t raddr, uint32_t rkey, uint32_t flags);
/** Post an RDMA READ of [@p raddr, ...) of token @p rkey on @p q. */
ndk_status_t swr_post_read(struct ndk_qp *q, void *ctx,
			   const struct ndk_sge *sgl, uint32_t nsge,
			   uint64_t raddr, uint32_t rkey, uint32_t flags);
/** Post a receive on @p q. */
ndk_status_t swr_post_receive(struct ndk_qp *q, void *ctx,
			      const struct ndk_sge *sgl, uint32_t nsge);
/** Post @p n receives on @p q (ndk_receive_list()). */
ndk_status_t swr_post_receive_list(struct ndk_qp *q,
				   const struct ndk_receive_request *rq,
				   uint32_t n, uint32_t *posted);
/** Post a receive to swroce SRQ @p srq (ndk_srq_receive()). */
ndk_status_t swr_post_srq_receive(struct ndk_srq *srq, void *ctx,
				  const struct ndk_sge *sgl, uint32_t nsge);
/**
 * Post a fast register of swroce FRMR @p mr on @p q (NULL @p mr: refused
 * with a completion, as a region of another PD).
 */
ndk_status_t swr_post_fast_register(struct ndk_qp *q, void *ctx,
				    struct ndk_mr *mr, uint32_t page_count,
				    const uint64_t *pages, uint32_t fbo,
				    size_t length, uint64_t base_va,
				    uint32_t flags);
/** Post an invalidate of swroce FRMR or window @p obj (NULL: refused). */
ndk_status_t swr_post_invalidate(struct ndk_qp *q, void *ctx,
				 struct ndk_object_header *obj,
				 uint32_t flags);
/** Post a bind of swroce window @p mw over swroce MR @p mr (NULL: refused). */
ndk_status_t swr_post_bind(struct ndk_qp *q, void *ctx, struct ndk_mr *mr,
			   struct ndk_mw *mw, uint64_t va, size_t length,
			   uint32_t flags);
/** Release the requests held back by NDK_OP_FLAG_DEFER on @p q. */
void swr_post_flush(struct ndk_qp *q);
/** Counters of @p q (may lag by one poll). */
void swr_post_get_stats(struct ndk_qp *q, struct ndk_qp_stats *stats);
/** @} */

/**
 * @name Completions: take results off swroce CQ @p c's ring (single
 * consumer: the CQ's owner). Same contract as ndk_get_cq_results() and
 * ndk_get_cq_results_ex().
 * @{
 */
/** Up to @p n results into @p r. @return results taken. */
uint32_t swr_cq_get_results(struct ndk_cq *c, struct ndk_result *r,
			    uint32_t n);
/** Up to @p n extended results into @p r. @return results taken. */
uint32_t swr_cq_get_results_ex(struct ndk_cq *c, struct ndk_result_ex *r,
			       uint32_t n);
/** @} */

/**
 * @name Adapter and tokens: reads of shared state.
 * @{
 */
/** ndk_adapter_query_info() of swroce adapter @p adapter. */
ndk_status_t swr_query_info(struct ndk_adapter *adapter,
			    struct ndk_adapter_info *info, uint32_t *size);
/** ndk_adapter_get_stats() of swroce adapter @p adapter (may lag). */
void swr_get_stats(struct ndk_adapter *adapter,
		   struct ndk_adapter_stats *stats);
/** ndk_adapter_xstats_get_names() of a swroce adapter (any adapter). */
int swr_xstats_get_names(struct ndk_adapter *adapter,
			 struct ndk_xstat_name *names, unsigned int n);
/** ndk_adapter_xstats_get() of swroce adapter @p adapter (may lag). */
int swr_xstats_get(struct ndk_adapter *adapter, struct ndk_xstat *values,
		   unsigned int n);
/**
 * Token of swroce MR @p m: for a fast-register MR the one its latest
 * fast register set (or will set), else the registration's.
 */
uint32_t swr_mr_token(struct ndk_mr *m);
/** Remote token of swroce window @p w: the one its latest bind set. */
uint32_t swr_mw_token(struct ndk_mw *w);
/** @} */

#endif /* SWROCE_SHARED_H */
