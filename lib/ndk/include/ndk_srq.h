/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_SRQ_H
#define NDK_SRQ_H

/**
 * @file
 * NDK shared receive queues (NDKPI's NdkCreateSrq, NdkSrqReceive,
 * NdkModifySrq, NdkCloseSrq, NdkCreateQpWithSrq). Part of ndk.h: include
 * that, not this.
 *
 * An SRQ holds receives for every QP created on it with
 * ndk_create_qp_with_srq(): each incoming SEND takes the oldest receive
 * posted to the SRQ, whichever QP it arrives on, and completes on that
 * QP's receive CQ with that QP's QPContext. A SEND arriving while the SRQ
 * is empty is answered with an RNR NAK, exactly as on a QP's own receive
 * queue, and the sender retries. Adapter info max_srq_depth is the
 * largest depth (0: the provider has no SRQs, and the calls below return
 * STATUS_NOT_SUPPORTED). An attached application's SRQs (doc/attach.md)
 * behave alike: the notification comes from the daemon's polling lcore
 * through the application's event ring, so its callback runs in the
 * application's ndk_adapter_poll(); they die (STATUS_INTERNAL_ERROR) when
 * the daemon stops or dies, or at ndk_adapter_close().
 */

#ifndef NDK_H
#error "include ndk.h, not ndk_srq.h"
#endif

/**
 * NdkCreateSrq.
 * @param depth receives the SRQ holds at most (posted and not yet
 *   completed); 1 to adapter info max_srq_depth.
 * @param max_sges SGEs per receive, at most max_receive_request_sge.
 * @param notify_threshold non-zero: arms the notification, which fires
 *   once, on the polling thread (attached: in ndk_adapter_poll()), when
 *   an incoming SEND takes a receive and leaves fewer than this many
 *   posted. 0: not armed.
 * @param notify the callback (may be NULL); also told
 *   STATUS_INTERNAL_ERROR when the SRQ dies (its adapter closes under
 *   it): no completion comes from it after that.
 * @return STATUS_SUCCESS, STATUS_INVALID_PARAMETER (NULL handle or out
 *   pointer, depth 0 or above max_srq_depth, too many SGEs, a threshold
 *   above the depth), STATUS_NOT_SUPPORTED (the provider has no SRQs),
 *   STATUS_INSUFFICIENT_RESOURCES.
 */
ndk_status_t ndk_create_srq(struct ndk_pd *pd, uint32_t depth,
			    uint32_t max_sges, uint32_t notify_threshold,
			    ndk_srq_notify_fn notify, void *notify_context,
			    struct ndk_srq **srq);

/**
 * NdkModifySrq.
 * @param depth new depth; 0 keeps it. It may not fall below the receives
 *   the SRQ holds now, nor exceed the capacity allocated at creation (the
 *   creation depth rounded up to a power of two) or max_srq_depth:
 *   STATUS_INVALID_PARAMETER.
 * @param notify_threshold non-zero: (re-)arms the one-shot notification
 *   at this level, firing at once (from this call; attached: at the next
 *   ndk_adapter_poll()) if fewer are posted already; 0 keeps the
 *   threshold and its arming.
 * Not to be called concurrently with ndk_srq_receive() on the same SRQ.
 */
ndk_status_t ndk_modify_srq(struct ndk_srq *srq, uint32_t depth,
			    uint32_t notify_threshold);

/**
 * NdkCloseSrq. @return STATUS_SUCCESS, or STATUS_PENDING while QPs still
 * use the SRQ: @p done is then called when the last of them is closed
 * (attached: by the ndk_adapter_poll() after that close; NDK's close
 * rules; close cannot fail). Receives still posted when the
 * close completes are discarded without completions.
 */
ndk_status_t ndk_close_srq(struct ndk_srq *srq, ndk_close_completion_fn done,
			   void *context);

/**
 * NdkCreateQpWithSrq: a QP in the INIT state whose receives come from
 * @p srq (it has no receive queue of its own: ndk_receive() on it fails
 * with STATUS_INVALID_DEVICE_REQUEST). The SRQ must belong to @p pd.
 * @return as ndk_create_qp(); STATUS_NOT_SUPPORTED when the provider has
 *   no SRQs.
 */
ndk_status_t ndk_create_qp_with_srq(struct ndk_pd *pd,
				    struct ndk_cq *receive_cq,
				    struct ndk_cq *initiator_cq,
				    struct ndk_srq *srq, void *qp_context,
				    uint32_t initiator_queue_depth,
				    uint32_t max_initiator_request_sge,
				    uint32_t inline_data_size,
				    struct ndk_qp **qp);

/**
 * NdkSrqReceive: post a receive buffer to the SRQ. Fast path: no handle
 * check. Posts to one SRQ are serialized by the caller (NDK).
 * @return STATUS_SUCCESS, STATUS_NO_MORE_ENTRIES (depth receives held),
 *   STATUS_DATA_OVERRUN (more SGEs than the SRQ allows),
 *   STATUS_ACCESS_VIOLATION (an SGE outside a region of the SRQ's PD with
 *   local write), STATUS_INVALID_PARAMETER (NULL list),
 *   STATUS_INTERNAL_ERROR (the SRQ is dead). A failed post never
 *   produces a completion.
 */
static inline ndk_status_t
ndk_srq_receive(struct ndk_srq *srq, void *request_context,
		const struct ndk_sge *sgl, uint32_t nsge)
{
	return srq->dispatch->receive(srq, request_context, sgl, nsge);
}

#endif /* NDK_SRQ_H */
