/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * swroce zero-copy transmit: a payload sent straight from its registered
 * region. The frame is a chain of three mbufs: the headers (built by
 * swr_pkt_new() and trimmed to them), the payload (an mbuf of the
 * adapter's pool attached over [va, va + len) of the region with
 * rte_pktmbuf_attach_extbuf()) and a trailer holding the pad and the ICRC,
 * which runs over the headers and the region's bytes in a read-only pass.
 *
 * Lifetime. Every plain MR carries an rte_mbuf_ext_shared_info whose
 * reference count is 1 while it is registered plus 1 per attached mbuf
 * not yet freed (by the PMD after transmission, or by whoever receives it
 * on a net_ring link). Deregistration unpublishes the token and quiesces
 * as before, so every later access is refused at once, then drops the
 * registration's reference: if mbufs are still out it returns
 * STATUS_PENDING and the region stays SWR_ZC_DRAINING (it cannot be
 * registered again) until the last mbuf's free runs the shared info's
 * callback, on whatever thread freed it; meanwhile, for a second after
 * such a deregistration, pollers free what their TX queues have sent
 * (rte_eth_tx_done_cleanup()), which an idle queue would keep. A close
 * of a draining MR returns STATUS_PENDING too and that callback completes
 * it (frees the MR, puts its PD, calls the close's completion). An
 * adapter close orphans a draining MR: its last mbuf frees it.
 *
 * Only plain MRs are attached: fast-register MRs and windows are copied,
 * their invalidation has no completion to hold back.
 */

#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "swroce_adapter.h"
#include "swroce_mr.h"
#include "swroce_qp.h"
#include "swroce_tx.h"
#include "swroce_zc.h"

/* ------------------------------------------------------------------ */
/* Per adapter                                                         */
/* ------------------------------------------------------------------ */

void
swr_zc_decide(struct swr_adapter *ad, bool memif_chain_ok)
{
	struct rte_eth_dev_info dinfo;
	const char *why = NULL;
	const char *drv;

	ad->zc_min = UINT32_MAX;
	ad->zc_iova_va = rte_eal_iova_mode() == RTE_IOVA_VA;
	if (rte_eth_dev_info_get(ad->port_id, &dinfo) != 0 ||
	    dinfo.driver_name == NULL) {
		why = "no device information";
		goto out;
	}
	drv = dinfo.driver_name;
	if (strcmp(drv, "net_ring") == 0) {
		/* Mbufs are passed by pointer: chains arrive as sent. */
	} else if (strcmp(drv, "net_memif") == 0) {
		/*
		 * Copy mode copies every frame into its ring anyway: a chain
		 * only adds segments to walk and mbufs to free, more than the
		 * copy it saves (doc/performance.md). Zero-copy mode needs
		 * @p memif_chain_ok: a DPDK whose memif chains descriptors
		 * correctly.
		 */
		if (!memif_chain_ok)
			why = "memif: copy mode copies every frame anyway, "
				"zero-copy mode chains descriptors, which this "
				"DPDK's memif corrupts";
	} else if (!(dinfo.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS)) {
		why = "no multi-segment transmit offload";
	} else if (!ad->zc_iova_va) {
		why = "IOVA as PA: a region's IOVA is not its VA";
	}
out:
	if (why == NULL)
		ad->zc_min = SWR_ZC_MIN;
	NDK_LOG(INFO, "%s: zero-copy transmit %s%s%s", ad->name,
		why == NULL ? "on" : "off (", why == NULL ? "" : why,
		why == NULL ? "" : "): payloads are copied");
}

/* ------------------------------------------------------------------ */
/* Per region                                                          */
/* ------------------------------------------------------------------ */

/*
 * The deferred end of a close or an orphaning (@p flags: the MR's flags
 * when its drain ended). Without either, whoever closes the MR later
 * frees it, maybe at once: nothing of it is read then.
 */
static void
zc_finish(struct swr_mr *mr, uint32_t flags)
{
	ndk_close_completion_fn done;
	struct swr_pd *pd;
	void *ctx;

	if (!(flags & (SWR_ZC_CLOSING | SWR_ZC_ORPHAN)))
		return;         /* deregistered only: nothing waits */
	done = mr->close_done;
	ctx = mr->close_ctx;
	pd = mr->pd;
	if (flags & SWR_ZC_ORPHAN) {
		/* The PD and the adapter's lists are gone already. */
		rte_free(mr);
	} else {
		rte_spinlock_lock(&mr->ad->obj_lock);
		swr_mr_unlink(mr);
		rte_spinlock_unlock(&mr->ad->obj_lock);
		rte_free(mr);
		swr_pd_put(pd);
	}
	if (done != NULL)
		done(ctx);
}

/* The shared info's free callback: the last attached mbuf is back. */
static void
zc_drained(void *addr __rte_unused, void *opaque)
{
	struct swr_mr *mr = opaque;
	uint32_t flags = __atomic_fetch_and(&mr->zc_flags, ~SWR_ZC_DRAINING,
					    __ATOMIC_ACQ_REL);

	/* Nothing of the adapter here: an orphan may outlive it. */
	zc_finish(mr, flags);
}

void
swr_mr_zc_arm(struct swr_mr *mr)
{
	mr->zc.free_cb = zc_drained;
	mr->zc.fcb_opaque = mr;
	rte_mbuf_ext_refcnt_set(&mr->zc, 1);
	__atomic_store_n(&mr->zc_flags, SWR_ZC_ARMED, __ATOMIC_RELEASE);
}

bool
swr_mr_zc_put(struct swr_mr *mr)
{
	__atomic_store_n(&mr->zc_flags, SWR_ZC_DRAINING, __ATOMIC_RELEASE);
	/* Exactly one of this and the last mbuf's free sees zero. */
	if (rte_mbuf_ext_refcnt_update(&mr->zc, -1) != 0) {
		/* Pollers free what their TX queues sent, for a second. */
		__atomic_store_n(&mr->ad->zc_cleanup_until,
				 rte_rdtsc() + mr->ad->tsc_hz,
				 __ATOMIC_RELAXED);
		return false;
	}
	__atomic_fetch_and(&mr->zc_flags, ~SWR_ZC_DRAINING, __ATOMIC_ACQ_REL);
	return true;
}

bool
swr_mr_zc_defer(struct swr_mr *mr, uint32_t flag)
{
	return __atomic_fetch_or(&mr->zc_flags, flag, __ATOMIC_ACQ_REL) &
		SWR_ZC_DRAINING;
}

/* Attached mbufs one region may have out (its refcnt is 16-bit). */
#define SWR_ZC_MAX_REFS 60000

/* ------------------------------------------------------------------ */
/* Transmit                                                            */
/* ------------------------------------------------------------------ */

int
swr_pkt_attach_zc(struct swr_qp *qp, struct rte_mbuf *m,
		  const struct ndk_roce_bth *bth, struct swr_mr *mr,
		  uint64_t va, uint32_t plen)
{
	struct swr_adapter *ad = qp->ad;
	uint32_t pad = ndk_roce_bth_padcnt(bth);
	uint8_t *payload = swr_pkt_payload((struct ndk_roce_bth *)
					   (uintptr_t)bth);
	void *p = (void *)(uintptr_t)va;
	struct rte_mbuf *seg[2];
	uint8_t *tail;
	uint32_t crc;

	/* The shared info counts in 16 bits: copy past a bound. */
	if (unlikely(rte_mbuf_ext_refcnt_read(&mr->zc) >= SWR_ZC_MAX_REFS))
		return -ENOBUFS;
	if (unlikely(rte_pktmbuf_alloc_bulk(ad->mp, seg, 2) != 0)) {
		SWR_STAT(qp->q, mbuf_alloc_fail);
		return -ENOBUFS;
	}
	crc = swr_frame_icrc_start(m, payload);
	crc = ndk_roce_crc32_update(crc, p, plen);
	/* The trailer: pad and ICRC (swr_pkt_new() made room for 7). */
	tail = (uint8_t *)rte_pktmbuf_append(seg[1], pad + NDK_ROCE_ICRC_LEN);
	memset(tail, 0, pad);
	crc = ndk_roce_crc32_update(crc, tail, pad);
	crc = rte_cpu_to_le_32(~crc);
	memcpy(tail + pad, &crc, sizeof(crc));
	/* The payload segment, over the region. */
	rte_mbuf_ext_refcnt_update(&mr->zc, 1);
	rte_pktmbuf_attach_extbuf(seg[0], p, ad->zc_iova_va ? (rte_iova_t)va :
				  RTE_BAD_IOVA, (uint16_t)plen, &mr->zc);
	seg[0]->data_len = (uint16_t)plen;
	seg[0]->pkt_len = plen;
	/* The headers: trimmed to them, then the chain. */
	m->data_len = (uint16_t)(payload - rte_pktmbuf_mtod(m, uint8_t *));
	m->next = seg[0];
	seg[0]->next = seg[1];
	m->nb_segs = 3;
	m->pkt_len = m->data_len + plen + pad + NDK_ROCE_ICRC_LEN;
	SWR_STAT(qp->q, tx_zcopy);
	return 0;
}
