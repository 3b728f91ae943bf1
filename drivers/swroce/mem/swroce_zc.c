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
 * (rte_eth_tx_done_cleanup()), which an idle queue would keep.
 *
 * That callback runs on lcores too, so it only hands a closed region to
 * the control path (a lock-free list); swr_zc_reap() there frees it, puts
 * its PD and calls the close's completion. A close with a callback
 * returns STATUS_PENDING and an EAL alarm reaps meanwhile; a close
 * without waits for the frames itself (bounded). An adapter close
 * completes pending closes and orphans draining MRs: their last mbuf puts
 * them on a process-wide list that the next reap frees.
 *
 * Only plain MRs are attached: fast-register MRs and windows are copied,
 * their invalidation has no completion to hold back.
 */

#include <errno.h>
#include <string.h>

#include <rte_alarm.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_pause.h>

#include "swroce_adapter.h"
#include "swroce_ctl.h"
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

/* Regions drained after their adapter closed: any control path frees. */
static struct swr_mr *zc_orphans;

/* Push onto a lock-free list (any thread; popped whole by the reap). */
static void
zc_push(struct swr_mr **head, struct swr_mr *mr)
{
	struct swr_mr *h = __atomic_load_n(head, __ATOMIC_RELAXED);

	do {
		mr->zc_next = h;
	} while (!__atomic_compare_exchange_n(head, &h, mr, true,
					      __ATOMIC_RELEASE,
					      __ATOMIC_RELAXED));
}

/*
 * The shared info's free callback: the last attached mbuf is back. It
 * runs on whichever thread freed that mbuf, often a polling lcore, so it
 * only hands the region over: a closed one goes to its adapter's list (an
 * orphan to the process's), which the control path reaps (swr_zc_reap()).
 * Nothing of the region is read after the push, nothing of the adapter
 * after the count drops: either may be freed at once.
 */
static void
zc_drained(void *addr __rte_unused, void *opaque)
{
	struct swr_mr *mr = opaque;
	uint32_t flags = __atomic_fetch_and(&mr->zc_flags, ~SWR_ZC_DRAINING,
					    __ATOMIC_ACQ_REL);
	struct swr_adapter *ad;

	if (flags & SWR_ZC_ORPHAN) {
		/* Its adapter is gone and stopped counting it. */
		zc_push(&zc_orphans, mr);
		return;
	}
	ad = mr->ad;
	if (flags & SWR_ZC_CLOSING)
		zc_push(&ad->zc_done, mr);
	__atomic_fetch_sub(&ad->zc_draining, 1, __ATOMIC_RELEASE);
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
	struct swr_adapter *ad = mr->ad;

	/* Counted before the last mbuf can be freed and uncount it. */
	__atomic_fetch_add(&ad->zc_draining, 1, __ATOMIC_ACQ_REL);
	__atomic_store_n(&mr->zc_flags, SWR_ZC_DRAINING, __ATOMIC_RELEASE);
	/* Exactly one of this and the last mbuf's free sees zero. */
	if (rte_mbuf_ext_refcnt_update(&mr->zc, -1) != 0) {
		/* Pollers free what their TX queues sent, for a second. */
		__atomic_store_n(&ad->zc_cleanup_until,
				 rte_rdtsc() + ad->tsc_hz, __ATOMIC_RELAXED);
		return false;
	}
	__atomic_fetch_and(&mr->zc_flags, ~SWR_ZC_DRAINING, __ATOMIC_ACQ_REL);
	__atomic_fetch_sub(&ad->zc_draining, 1, __ATOMIC_RELEASE);
	return true;
}

bool
swr_mr_zc_defer(struct swr_mr *mr, uint32_t flag)
{
	return __atomic_fetch_or(&mr->zc_flags, flag, __ATOMIC_ACQ_REL) &
		SWR_ZC_DRAINING;
}

/* Free the regions drained after their adapter closed (control path). */
static void
zc_reap_orphans(void)
{
	struct swr_mr *mr = __atomic_exchange_n(&zc_orphans, NULL,
						__ATOMIC_ACQUIRE);

	while (mr != NULL) {
		struct swr_mr *next = mr->zc_next;

		rte_free(mr);
		mr = next;
	}
}

/* Finish the close of a drained region (control path). */
static void
zc_finish(struct swr_mr *mr)
{
	struct swr_adapter *ad = mr->ad;
	ndk_close_completion_fn done = mr->close_done;
	void *ctx = mr->close_ctx;
	uint32_t *waiter = __atomic_exchange_n(&mr->zc_waiter, NULL,
					       __ATOMIC_ACQ_REL);
	struct swr_pd *pd = mr->pd;
	uint32_t flags = __atomic_load_n(&mr->zc_flags, __ATOMIC_ACQUIRE);

	if (flags & SWR_ZC_ASYNC)
		__atomic_fetch_sub(&ad->zc_closing, 1, __ATOMIC_RELEASE);
	if (flags & SWR_ZC_ORPHAN) {
		/* Its adapter's close took it off its PD, which is gone. */
		rte_free(mr);
		if (done != NULL)
			done(ctx);
		return;
	}
	rte_spinlock_lock(&ad->obj_lock);
	swr_mr_unlink(mr);
	rte_spinlock_unlock(&ad->obj_lock);
	rte_free(mr);
	swr_pd_put(pd);
	if (waiter != NULL)
		__atomic_store_n(waiter, 1, __ATOMIC_RELEASE);
	else if (done != NULL)
		done(ctx);
}

void
swr_zc_reap(struct swr_adapter *ad)
{
	struct swr_mr *mr = __atomic_exchange_n(&ad->zc_done, NULL,
						__ATOMIC_ACQUIRE);

	while (mr != NULL) {
		struct swr_mr *next = mr->zc_next;

		zc_finish(mr);
		mr = next;
	}
	if (__atomic_load_n(&zc_orphans, __ATOMIC_RELAXED) != NULL)
		zc_reap_orphans();
}

/* Reap period while an asynchronous close waits, and a wait's bound. */
#define ZC_ALARM_US 1000
#define ZC_SYNC_WAIT_S 5

/* EAL alarm (the interrupt thread): the reap of asynchronous closes. */
static void
zc_alarm(void *arg)
{
	struct swr_adapter *ad = arg;

	swr_zc_reap(ad);
	if (__atomic_load_n(&ad->zc_closing, __ATOMIC_ACQUIRE) != 0 &&
	    rte_eal_alarm_set(ZC_ALARM_US, zc_alarm, ad) != 0)
		NDK_LOG(ERR, "%s: cannot re-arm the close alarm: closes of "
			"drained regions wait for the next control call",
			ad->name);
}

/* Count an asynchronous close; the first one starts the alarm. */
static void
zc_async(struct swr_mr *mr)
{
	struct swr_adapter *ad = mr->ad;

	__atomic_fetch_or(&mr->zc_flags, SWR_ZC_ASYNC, __ATOMIC_RELAXED);
	if (__atomic_fetch_add(&ad->zc_closing, 1, __ATOMIC_ACQ_REL) == 0 &&
	    rte_eal_alarm_set(ZC_ALARM_US, zc_alarm, ad) != 0)
		NDK_LOG(ERR, "%s: cannot arm the close alarm: closes of "
			"drained regions wait for the next control call",
			ad->name);
}

/* Control operation: free what every TX queue has sent. */
static ndk_status_t
zc_tx_cleanup_ctl(struct swr_adapter *ad, void *arg __rte_unused)
{
	for (uint16_t i = 0; i < ad->nb_queues; i++)
		rte_eth_tx_done_cleanup(ad->port_id, ad->q[i].txq, 0);
	return NDK_STATUS_SUCCESS;
}

int
swr_mr_zc_close(struct swr_mr *mr, ndk_close_completion_fn done, void *ctx)
{
	struct swr_adapter *ad = mr->ad;
	uint64_t end = rte_rdtsc() + ZC_SYNC_WAIT_S * ad->tsc_hz;
	uint32_t closed = 0;

	mr->close_done = done;
	mr->close_ctx = ctx;
	if (done == NULL)
		__atomic_store_n(&mr->zc_waiter, &closed, __ATOMIC_RELEASE);
	if (!swr_mr_zc_defer(mr, SWR_ZC_CLOSING))
		return 0;       /* not draining: the caller frees it */
	if (done != NULL) {
		zc_async(mr);
		return -EINPROGRESS;
	}
	/* No callback: the close completes before it returns. */
	for (;;) {
		swr_ctl_exec(ad, zc_tx_cleanup_ctl, NULL);
		swr_zc_reap(ad);
		if (__atomic_load_n(&closed, __ATOMIC_ACQUIRE))
			return 1;
		if (rte_rdtsc() > end)
			break;
		rte_delay_us_sleep(100);
	}
	/* Whoever takes the waiter first owns the ending. */
	if (__atomic_exchange_n(&mr->zc_waiter, NULL, __ATOMIC_ACQ_REL) ==
	    NULL) {
		/* A reap on another thread is finishing it right now. */
		while (!__atomic_load_n(&closed, __ATOMIC_ACQUIRE))
			rte_pause();
		return 1;
	}
	NDK_LOG(ERR, "%s: MR %p: frames sent from it still out after %d s "
		"(a peer that does not receive?): its memory must stay as it "
		"is; the MR is freed when they come back",
		ad->name, (void *)mr, ZC_SYNC_WAIT_S);
	zc_async(mr);
	return -ETIMEDOUT;
}

void
swr_zc_close_begin(struct swr_adapter *ad)
{
	/* No alarm may run on a freed adapter. */
	while (rte_eal_alarm_cancel(zc_alarm, ad) < 0 &&
	       rte_errno == EINPROGRESS)
		rte_pause();
	swr_zc_reap(ad);
}

bool
swr_mr_zc_orphan(struct swr_mr *mr)
{
	struct swr_adapter *ad = mr->ad;
	ndk_close_completion_fn done = mr->close_done;
	void *ctx = mr->close_ctx;
	uint32_t was;

	if (__atomic_load_n(&mr->zc_flags, __ATOMIC_ACQUIRE) & SWR_ZC_ARMED)
		swr_mr_zc_put(mr);
	was = __atomic_fetch_or(&mr->zc_flags, SWR_ZC_ORPHAN, __ATOMIC_ACQ_REL);
	if (was & SWR_ZC_DRAINING) {
		/* Its last mbuf hands it to the orphans: not counted. */
		__atomic_fetch_sub(&ad->zc_draining, 1, __ATOMIC_RELEASE);
		/* NDK: an adapter close completes every close. */
		if ((was & SWR_ZC_CLOSING) && done != NULL)
			done(ctx);
		return true;
	}
	/* Closed and drained: on its way to ad->zc_done, for the reap. */
	return (was & SWR_ZC_CLOSING) != 0;
}

void
swr_zc_close_end(struct swr_adapter *ad)
{
	/* Drains under way on other threads finish their push. */
	while (__atomic_load_n(&ad->zc_draining, __ATOMIC_ACQUIRE) != 0)
		rte_pause();
	swr_zc_reap(ad);
}

void
swr_zc_reap_orphans(void)
{
	zc_reap_orphans();
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
