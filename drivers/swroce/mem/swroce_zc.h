/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef SWROCE_ZC_H
#define SWROCE_ZC_H

/**
 * @file
 * swroce zero-copy transmit (mem/swroce_zc.c): READ responses and WRITE
 * and SEND payloads sent as mbuf chains whose payload segment is attached
 * over the registered region (rte_pktmbuf_attach_extbuf() with the MR's
 * shared info), the ICRC computed in a read-only pass over the region; and
 * the region's side of it: a deregistration or close completes only once
 * every such mbuf has been freed.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "ndk_provider.h"
#include "ndk_roce.h"

struct swr_adapter;
struct swr_mr;
struct swr_qp;

/** Registered: the MR holds a reference on its shared info. */
#define SWR_ZC_ARMED 0x8u
/** Deregistered with mbufs still attached over the region. */
#define SWR_ZC_DRAINING 0x1u
/** Closed: the last mbuf's return frees the MR (and puts its PD). */
#define SWR_ZC_CLOSING 0x2u
/** Its adapter closed: the last mbuf's return hands it to the orphans. */
#define SWR_ZC_ORPHAN 0x4u
/** An asynchronous close counted in ad->zc_closing (the reap alarm). */
#define SWR_ZC_ASYNC 0x10u

/**
 * Payloads of at least this many bytes are attached when the port takes
 * chains; smaller ones are copied (with the ICRC in the copy's pass from
 * SWR_CRC_COPY_MIN on). Measured with callgrind (doc/performance.md):
 * attaching costs about 220 instructions (two more mbufs, the attach, the
 * trailer) plus the chain's extra segments at TX and free, about 350 in
 * all, while the copy fused into the ICRC pass costs about 0.11 per byte
 * more than the ICRC alone: break-even near 3.2 KiB, rounded down because
 * an attached payload also leaves the cache alone.
 */
#define SWR_ZC_MIN 3072

/**
 * Decide at open whether the adapter's port can take zero-copy frames and
 * set ad->zc_min (UINT32_MAX: no): net_ring (mbufs passed by pointer),
 * net_memif when @p memif_chain_ok (zero-copy mode on a DPDK whose memif
 * chains descriptors correctly), any other PMD with
 * RTE_ETH_TX_OFFLOAD_MULTI_SEGS on an IOVA-as-VA EAL. Logged.
 */
void swr_zc_decide(struct swr_adapter *ad, bool memif_chain_ok);

/** Arm a plain MR being registered: its reference on its shared info. */
void swr_mr_zc_arm(struct swr_mr *mr);

/**
 * Drop the reference a plain MR held while registered (after it is
 * unpublished and quiesced).
 * @return true if no mbuf points into it any more; false: the last one
 *   freed completes what waits (SWR_ZC_DRAINING stays set until then).
 */
bool swr_mr_zc_put(struct swr_mr *mr);

/**
 * Mark @p flag (SWR_ZC_CLOSING or SWR_ZC_ORPHAN) on an MR that may still
 * be draining. @return true if it is: the drain then finishes the job.
 */
bool swr_mr_zc_defer(struct swr_mr *mr, uint32_t flag);

/**
 * The zero-copy side of closing plain MR @p mr (deregistered already).
 * Control path. With @p done, a close of a region with frames still out
 * is completed by the reap once they are back (the EAL alarm runs it
 * every millisecond meanwhile); without, this waits for them (reaping
 * what the TX queues sent through the control mailbox) up to 5 s.
 * @return 0: nothing is out, the caller frees the MR now; 1: the wait
 *   saw them back and freed the MR; -EINPROGRESS (with @p done) or
 *   -ETIMEDOUT (logged): the close is pending.
 */
int swr_mr_zc_close(struct swr_mr *mr, ndk_close_completion_fn done,
		    void *ctx);

/**
 * Finish the closes of regions whose frames are all back (handed over by
 * the last mbuf's free on whatever thread), and free the orphans: MR
 * unlinked and freed, PD put, close completion called. Control path.
 */
void swr_zc_reap(struct swr_adapter *ad);

/** Adapter close, first: stop the reap alarm, reap. */
void swr_zc_close_begin(struct swr_adapter *ad);

/**
 * Adapter close, per plain MR of a PD being destroyed (token unpublished,
 * quiesced): drop its registration's reference, complete a pending close
 * (NDK), and tell whether it is someone else's to free.
 * @return true: frames are still out (their return frees it) or its
 *   drained close waits for swr_zc_close_end()'s reap; false: free it.
 */
bool swr_mr_zc_orphan(struct swr_mr *mr);

/** Adapter close, after its PDs: wait for drains under way, reap. */
void swr_zc_close_end(struct swr_adapter *ad);

/** Free the regions drained after their adapter closed. Control path. */
void swr_zc_reap_orphans(void);

/**
 * Finish a frame from swr_pkt_new() (room for @p plen payload bytes) with
 * [va, va + plen) of the plain region @p mr (checked by the caller)
 * attached as its payload: ICRC over the headers and the region, pad and
 * ICRC in a trailer segment. The frame is sealed: swr_pkt_xmit() it.
 * @return 0, or -ENOBUFS (@p m untouched: copy instead).
 */
int swr_pkt_attach_zc(struct swr_qp *qp, struct rte_mbuf *m,
		      const struct ndk_roce_bth *bth, struct swr_mr *mr,
		      uint64_t va, uint32_t plen);

#endif /* SWROCE_ZC_H */
