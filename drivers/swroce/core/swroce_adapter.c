/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * swroce adapter: open and close, the port's set-up (queues, packet pool,
 * MAC, link state), the queues' rings, lists and timer wheels, adapter
 * information, counters, and the adapter dispatch table. The poll loop is
 * core/swroce_sched.c's, control core/swroce_ctl.c's.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_devargs.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_kvargs.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_version.h>

#include "swroce_adapter.h"
#include "swroce_cm.h"
#include "swroce_cq.h"
#include "swroce_cc.h"
#include "swroce_ctl.h"
#include "swroce_mr.h"
#include "swroce_neigh.h"
#include "swroce_qp.h"
#include "swroce_sched.h"
#include "swroce_srq.h"
#include "swroce_zc.h"

/* Frames up to a 4096-byte payload with every header fit one mbuf. */
#define SWR_MBUF_DATA (RTE_PKTMBUF_HEADROOM + 4096 + NDK_ROCE_MAX_OVERHEAD + 64)
#define SWR_POOL_SIZE 16383
#define SWR_POOL_CACHE 256
#define SWR_CTL_RING 64

static uint32_t swr_adapter_seq;

/*
 * Packet pools the provider made, one per port. A pool lives as long as
 * its port, not as long as the adapter: the port's RX queue holds it, and
 * some PMDs (memif on a peer's disconnect) touch it even after a stop. It
 * is reused when an adapter opens on the port again and freed when the
 * port is destroyed.
 */
static struct rte_mempool *swr_pools[RTE_MAX_ETHPORTS];

static int
swr_port_destroyed(uint16_t port_id, enum rte_eth_event_type event __rte_unused,
		   void *arg __rte_unused, void *ret __rte_unused)
{
	rte_mempool_free(swr_pools[port_id]);
	swr_pools[port_id] = NULL;
	return 0;
}

static struct rte_mempool *
swr_port_pool(uint16_t port_id, uint32_t seq, int socket)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	struct rte_mempool *mp;

	if (swr_pools[port_id] != NULL)
		return swr_pools[port_id];
	snprintf(name, sizeof(name), "ndkmp%u", seq);
	mp = rte_pktmbuf_pool_create(name, SWR_POOL_SIZE, SWR_POOL_CACHE, 0,
				     SWR_MBUF_DATA, socket);
	if (mp == NULL)
		return NULL;
	if (rte_eth_dev_callback_register(port_id, RTE_ETH_EVENT_DESTROY,
					  swr_port_destroyed, NULL) != 0)
		NDK_LOG(WARNING, "port %u: pool %s stays until exit", port_id,
			name);
	swr_pools[port_id] = mp;
	return mp;
}

/* ------------------------------------------------------------------ */
/* Queues and counters                                                */
/* ------------------------------------------------------------------ */

int
swr_queues_init(struct swr_adapter *ad, uint32_t seq)
{
	char name[RTE_RING_NAMESIZE];
	/* Wheel ticks of 1 << tick_shift TSC cycles: 1 to 2 microseconds. */
	uint32_t tick_shift = rte_log2_u64(RTE_MAX(ad->tsc_hz / 1000000,
						   UINT64_C(1)));

	ad->q = rte_zmalloc_socket("ndk_swroce_q",
				   sizeof(ad->q[0]) * ad->nb_queues,
				   RTE_CACHE_LINE_SIZE, ad->socket_id);
	if (ad->q == NULL)
		return -ENOMEM;
	for (uint16_t i = 0; i < ad->nb_queues; i++) {
		struct swr_queue *q = &ad->q[i];
		void *tw_mem;

		q->ad = ad;
		q->id = i;
		q->rxq = i;
		q->txq = i;
		q->active = rte_zmalloc_socket(NULL, sizeof(q->active[0]) <<
					       ad->qp_bits, 0, ad->socket_id);
		tw_mem = rte_zmalloc_socket(NULL, swr_tw_mem_size(SWR_TW_BITS),
					    RTE_CACHE_LINE_SIZE, ad->socket_id);
		if (tw_mem == NULL)
			return -ENOMEM;
		q->now = q->last_now = rte_rdtsc();
		swr_tw_init(&q->tw, tw_mem, SWR_TW_BITS, tick_shift, q->now);
		snprintf(name, sizeof(name), "ndkdb%u_%u", seq, i);
		q->db_ring = rte_ring_create(name, 1u << ad->qp_bits,
					     ad->socket_id,
					     RING_F_SC_DEQ | RING_F_EXACT_SZ);
		if (q->active == NULL || q->db_ring == NULL)
			return -ENOMEM;
		if (ad->nb_queues == 1)
			continue;
		snprintf(name, sizeof(name), "ndkin%u_%u", seq, i);
		q->in_ring = rte_ring_create(name, SWR_INBOUND_RING,
					     ad->socket_id, RING_F_SC_DEQ);
		if (q->in_ring == NULL)
			return -ENOMEM;
	}
	ad->db_ring = ad->q[0].db_ring;
	if (ad->nb_queues > 1) {
		snprintf(name, sizeof(name), "ndkheld%u", seq);
		ad->held_ring = rte_ring_create(name, SWR_INBOUND_RING,
						ad->socket_id, RING_F_SC_DEQ);
		if (ad->held_ring == NULL)
			return -ENOMEM;
	}
	return 0;
}

static void
swr_ring_flush_free(struct rte_ring *r)
{
	struct rte_mbuf *m;

	if (r == NULL)
		return;
	while (rte_ring_sc_dequeue(r, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	rte_ring_free(r);
}

void
swr_queues_fini(struct swr_adapter *ad)
{
	if (ad->q == NULL)
		return;
	swr_ring_flush_free(ad->held_ring);
	for (uint16_t i = 0; i < ad->nb_queues; i++) {
		struct swr_queue *q = &ad->q[i];

		if (q->tx_n != 0)
			rte_pktmbuf_free_bulk(q->tx_stage, q->tx_n);
		q->tx_n = 0;
		swr_ring_flush_free(q->in_ring);
		rte_ring_free(q->db_ring);
		rte_free(q->active);
		rte_free(q->tw.slot);
	}
	rte_free(ad->q);
	ad->q = NULL;
}

void
swr_stats_sum(const struct swr_adapter *ad, struct swr_stats *out)
{
	const size_t n = sizeof(*out) / sizeof(uint64_t);
	uint64_t *o = (uint64_t *)out;

	*out = ad->stats;
	for (uint16_t i = 0; i < ad->nb_queues; i++) {
		const uint64_t *s = (const uint64_t *)&ad->q[i].stats;

		for (size_t k = 0; k < n; k++)
			o[k] += s[k];
	}
}

/* ------------------------------------------------------------------ */
/* Open, info, stats, close                                            */
/* ------------------------------------------------------------------ */

ndk_status_t
swr_query_info(struct ndk_adapter *adapter, struct ndk_adapter_info *info,
	       uint32_t *size)
{
	struct swr_adapter *ad = swr_adapter_of(adapter);

	if (info == NULL || *size < sizeof(*info)) {
		*size = sizeof(*info);
		return NDK_STATUS_BUFFER_TOO_SMALL;
	}
	*info = ad->info;
	*size = sizeof(*info);
	return NDK_STATUS_SUCCESS;
}

void
swr_get_stats(struct ndk_adapter *adapter, struct ndk_adapter_stats *stats)
{
	struct swr_stats s;

	swr_stats_sum(swr_adapter_of(adapter), &s);
	swr_stats_generic(&s, stats);
}

static int
swr_get_queue_stats(struct ndk_adapter *adapter, uint16_t queue,
		    struct ndk_adapter_stats *stats)
{
	struct swr_adapter *ad = swr_adapter_of(adapter);

	if (queue >= ad->nb_queues)
		return -EINVAL;
	swr_stats_generic(&ad->q[queue].stats, stats);
	return 0;
}

/* Embedded: registrable buffers come from the port's socket heap. */
static ndk_status_t
swr_alloc_buffer(struct ndk_adapter *adapter, size_t len, size_t align,
		 void **buf)
{
	struct swr_adapter *ad = swr_adapter_of(adapter);

	*buf = rte_zmalloc_socket("ndk_buffer", len, (unsigned int)align,
				  ad->socket_id);
	return *buf != NULL ? NDK_STATUS_SUCCESS : NDK_STATUS_NO_MEMORY;
}

static void swr_close(struct ndk_adapter *adapter);

/* Pollers read both with relaxed loads at their next timer arming. */
static ndk_status_t
swr_set_adaptive_rto(struct ndk_adapter *adapter, bool enable,
		     uint32_t floor_us)
{
	struct swr_adapter *ad = swr_adapter_of(adapter);

	__atomic_store_n(&ad->rto_floor_tsc, swr_us_to_tsc(ad, floor_us),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&ad->rto_adaptive, enable ? 1 : 0, __ATOMIC_RELAXED);
	return NDK_STATUS_SUCCESS;
}

/* The adapter's operations, with @p poll_fn and @p pollq_fn polling. */
#define SWR_ADAPTER_OPS(poll_fn, pollq_fn) { \
	.query_adapter_info = swr_query_info, \
	.create_cq = swr_cq_create, \
	.create_pd = swr_pd_create, \
	.close = swr_close, \
	.poll = poll_fn, \
	.poll_queue = pollq_fn, \
	.release = swr_release, \
	.get_stats = swr_get_stats, \
	.get_queue_stats = swr_get_queue_stats, \
	.create_connector = swr_connector_create, \
	.create_listener = swr_listener_create, \
	.qp_list = swr_info_qp_list, \
	.qp_query_info = swr_info_qp_query, \
	.alloc_buffer = swr_alloc_buffer, \
	.set_adaptive_rto = swr_set_adaptive_rto, \
	.xstats_get_names = swr_xstats_get_names, \
	.xstats_get = swr_xstats_get, \
	.queue_xstats_get = swr_queue_xstats_get, \
	.set_cm_params = swr_cm_set_params, \
	.get_cm_params = swr_cm_get_params, \
	.create_shared_endpoint = swr_sep_create, \
}

static const struct ndk_adapter_dispatch swr_adapter_dispatch =
	SWR_ADAPTER_OPS(swr_poll, swr_poll_queue);
/* On a clock of the caller's (swr_hook_set_clock()): its own poll loop,
 * so that the TSC's pays nothing for it. */
static const struct ndk_adapter_dispatch swr_adapter_dispatch_clocked =
	SWR_ADAPTER_OPS(swr_poll_clocked, swr_poll_queue_clocked);

void
swr_adapter_set_clock(struct swr_adapter *ad, uint64_t (*fn)(void *arg),
		      void *arg)
{
	for (uint16_t i = 0; i < ad->nb_queues; i++) {
		ad->q[i].clock = fn;
		ad->q[i].clock_arg = arg;
	}
	ad->pub.dispatch = fn != NULL ? &swr_adapter_dispatch_clocked :
		&swr_adapter_dispatch;
}

static int
swr_port_setup(struct swr_adapter *ad)
{
	struct rte_eth_conf conf = { 0 };
	struct rte_eth_dev_info dinfo;
	uint16_t nrx = SWR_RING_DESC, ntx = SWR_RING_DESC;
	uint32_t frame = ad->max_path_mtu + NDK_ROCE_MAX_OVERHEAD;
	int rc;

	rc = rte_eth_dev_info_get(ad->port_id, &dinfo);
	if (rc != 0)
		return rc;
	if (dinfo.max_rx_pktlen >= frame)
		conf.rxmode.mtu = frame - RTE_ETHER_HDR_LEN;
	/* Link changes drive ARP (see swr_link_event). */
	if (*dinfo.dev_flags & RTE_ETH_DEV_INTR_LSC)
		conf.intr_conf.lsc = 1;
	/* Zero-copy transmit sends chains (mem/swroce_zc.c). */
	conf.txmode.offloads = dinfo.tx_offload_capa &
		RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	rc = rte_eth_dev_configure(ad->port_id, ad->nb_queues, ad->nb_queues,
				   &conf);
	if (rc != 0)
		return rc;
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(ad->port_id, &nrx, &ntx);
	if (rc != 0)
		return rc;
	for (uint16_t i = 0; i < ad->nb_queues; i++) {
		rc = rte_eth_rx_queue_setup(ad->port_id, i, nrx, ad->socket_id,
					    NULL, ad->mp);
		if (rc != 0)
			return rc;
		rc = rte_eth_tx_queue_setup(ad->port_id, i, ntx, ad->socket_id,
					    NULL);
		if (rc != 0)
			return rc;
	}
	return rte_eth_dev_start(ad->port_id);
}

/*
 * net_memif in copy mode carries a frame longer than one of its buffers
 * (bsize, 2048 B by default) as a chain of descriptors, and DPDK before
 * 26.03 corrupts chains: its TX never clears the "next" flag of a chain's
 * first descriptor, so a later one-buffer frame in that slot (an ACK, a
 * SEND) is glued to whatever follows, and its RX follows that flag past
 * the producer and then re-reads up to 64 Ki stale slots: a flood of old
 * frames (CM MADs, frames for closed QPs, duplicates) at line rate. The
 * buffer size is the client's (it owns the regions); each end only sees
 * its own devargs, so both must give the same bsize. In zero-copy mode
 * every mbuf segment is a descriptor of its own, so a chained mbuf is a
 * chain of descriptors whatever its size. Returns the buffer size when
 * frames at the adapter's path MTU would be chained on such a DPDK, else
 * 0; *@p zc_chain_ok tells whether a memif in zero-copy mode can carry
 * a chained mbuf (zero-copy transmit, mem/swroce_zc.c) as the chain of
 * descriptors it becomes: only on a DPDK without that bug.
 */
static uint32_t
swr_memif_chain_risk(const struct swr_adapter *ad, bool *zc_chain_ok)
{
	struct rte_eth_dev_info dinfo;
	const struct rte_devargs *da;
	struct rte_kvargs *kv = NULL;
	const char *v;
	uint32_t bsize = 2048;
	bool zc = false, fits;

	*zc_chain_ok = false;

	if (rte_eth_dev_info_get(ad->port_id, &dinfo) != 0 ||
	    dinfo.driver_name == NULL ||
	    strcmp(dinfo.driver_name, "net_memif") != 0)
		return 0;
	da = dinfo.device != NULL ? rte_dev_devargs(dinfo.device) : NULL;
	if (da != NULL && da->args != NULL)
		kv = rte_kvargs_parse(da->args, NULL);
	if (kv != NULL) {
		v = rte_kvargs_get(kv, "bsize");
		if (v != NULL)
			bsize = (uint32_t)strtoul(v, NULL, 0);
		v = rte_kvargs_get(kv, "zero-copy");
		zc = v != NULL && strcmp(v, "yes") == 0;
		rte_kvargs_free(kv);
	}
	fits = ad->max_path_mtu + NDK_ROCE_MAX_OVERHEAD <= bsize;
#if RTE_VERSION < RTE_VERSION_NUM(26, 3, 0, 0)
	/* A zero-copy client's buffers are mbufs of our pool: one each. */
	if (zc || fits)
		return 0;
	return bsize;
#else
	RTE_SET_USED(fits);
	*zc_chain_ok = zc;
	return 0;
#endif
}

/*
 * Link state, from the interrupt thread: the resolver sends no ARP while
 * the link is down and starts over when it comes up (a peer that lost its
 * carrier forgot us, and probes queued while down went out in a clump).
 * Ports without LSC events count as always up.
 */
static int
swr_link_event(uint16_t port_id, enum rte_eth_event_type event __rte_unused,
	       void *arg, void *ret __rte_unused)
{
	struct swr_adapter *ad = arg;
	struct rte_eth_link link = { 0 };

	if (rte_eth_link_get_nowait(port_id, &link) != 0)
		return 0;
	__atomic_store_n(&ad->link_up, link.link_status == RTE_ETH_LINK_UP,
			 __ATOMIC_RELEASE);
	if (link.link_status == RTE_ETH_LINK_UP)
		__atomic_fetch_add(&ad->link_gen, 1, __ATOMIC_RELEASE);
	return 0;
}

static void
swr_link_watch(struct swr_adapter *ad)
{
	struct rte_eth_link link = { 0 };
	struct rte_eth_dev_info dinfo;

	ad->link_up = 1;
	if (rte_eth_dev_info_get(ad->port_id, &dinfo) != 0 ||
	    !(*dinfo.dev_flags & RTE_ETH_DEV_INTR_LSC))
		return;
	if (rte_eth_dev_callback_register(ad->port_id, RTE_ETH_EVENT_INTR_LSC,
					  swr_link_event, ad) != 0)
		return;
	if (rte_eth_link_get_nowait(ad->port_id, &link) == 0)
		ad->link_up = link.link_status == RTE_ETH_LINK_UP;
}

static void
swr_info_init(struct swr_adapter *ad)
{
	struct ndk_adapter_info *i = &ad->info;

	i->version.major = NDK_VERSION_MAJOR;
	i->version.minor = NDK_VERSION_MINOR;
	i->vendor_id = 0;
	i->device_id = 0x5752; /* "WR" */
	i->max_registration_size = (size_t)1 << 40;
	i->max_window_size = (size_t)1 << 40;
	i->frmr_page_count = 256;
	i->max_initiator_request_sge = SWR_MAX_SGE;
	i->max_receive_request_sge = SWR_MAX_SGE;
	i->max_read_request_sge = SWR_MAX_SGE;
	i->max_transfer_length = SWR_MAX_TRANSFER;
	i->max_inline_data_size = SWR_MAX_INLINE;
	i->max_inbound_read_limit = SWR_MAX_RD_ATOMIC;
	i->max_outbound_read_limit = SWR_MAX_RD_ATOMIC;
	i->max_receive_queue_depth = SWR_MAX_QUEUE_DEPTH;
	i->max_initiator_queue_depth = SWR_MAX_QUEUE_DEPTH;
	i->max_srq_depth = SWR_MAX_SRQ_DEPTH;
	i->max_cq_depth = SWR_MAX_CQ_DEPTH;
	i->large_request_threshold = 4096;
	i->max_caller_data = 56;
	i->max_callee_data = 196;
	/*
	 * What holds (doc/provider.md): not IN_ORDER_DMA (READ responses
	 * past a lost one are placed before it, doc/rc.md), not
	 * LOOPBACK_CONNECTIONS (a connection to our own address is refused),
	 * MULTI_ENGINE only with a queue per polling lcore to spread over.
	 */
	i->adapter_flags = NDK_ADAPTER_FLAG_RDMA_READ_SINK_NOT_REQUIRED |
		NDK_ADAPTER_FLAG_RDMA_READ_LOCAL_INVALIDATE_SUPPORTED |
		NDK_ADAPTER_FLAG_CQ_INTERRUPT_MODERATION_SUPPORTED |
		NDK_ADAPTER_FLAG_CQ_RESIZE_SUPPORTED |
		NDK_ADAPTER_FLAG_X_REMOTE_INVALIDATE_SUPPORTED |
		(ad->nb_queues > 1 ? NDK_ADAPTER_FLAG_MULTI_ENGINE_SUPPORTED :
		 0);
	i->rdma_technology = NDK_RDMA_ROCEV2;
	i->max_path_mtu = ad->max_path_mtu;
	i->port_id = ad->port_id;
	memcpy(i->mac, ad->mac.addr_bytes, sizeof(i->mac));
	i->ipv4 = ad->ipv4;
	i->nb_queues = ad->nb_queues;
	memcpy(i->ipv6, ad->ipv6, sizeof(i->ipv6));
}

static uint32_t
swr_log2_ceil(uint32_t n)
{
	uint32_t b = 0;

	while ((1u << b) < n)
		b++;
	return b;
}

static void
swr_adapter_free(struct swr_adapter *ad)
{
	swr_cm_fini(ad);
	swr_neigh_fini(ad);       /* held frames first: they use the pool */
	swr_queues_fini(ad);
	rte_ring_free(ad->ctl_ring);
	rte_free(ad->qp_tbl);
	rte_free(ad->qp_gen);
	rte_free(ad->mr_tbl);
	rte_free(ad);
}

/*
 * The adapter's MAC: the configured one (made the port's if the port lets
 * us, else used in software with promiscuous reception), or the port's.
 */
static int
swr_mac_setup(struct swr_adapter *ad, const struct ndk_adapter_config *cfg)
{
	struct rte_ether_addr mac;
	int rc;

	memcpy(mac.addr_bytes, cfg->mac, sizeof(mac.addr_bytes));
	if (rte_is_zero_ether_addr(&mac))
		return rte_eth_macaddr_get(ad->port_id, &ad->mac);
	rte_ether_addr_copy(&mac, &ad->mac);
	rc = rte_eth_dev_default_mac_addr_set(ad->port_id, &mac);
	if (rc == 0)
		return 0;
	rc = rte_eth_promiscuous_enable(ad->port_id);
	NDK_LOG(INFO, "swroce: port %u keeps its MAC: using "
		RTE_ETHER_ADDR_PRT_FMT " in software%s", ad->port_id,
		RTE_ETHER_ADDR_BYTES(&mac),
		rc == 0 ? " (promiscuous)" : ", promiscuous mode refused");
	return 0;
}

/*
 * Whether received ICRCs go unchecked (ad->trust_crc): only if @p asked
 * (ndk_adapter_config.trust_link_crc) and the port is a memory-to-memory
 * link (net_ring, net_memif), which cannot corrupt a frame. Logged.
 */
static void
swr_trust_crc_decide(struct swr_adapter *ad, bool asked)
{
	struct rte_eth_dev_info dinfo;

	ad->trust_crc = false;
	if (!asked)
		return;
	if (rte_eth_dev_info_get(ad->port_id, &dinfo) == 0 &&
	    dinfo.driver_name != NULL &&
	    (strcmp(dinfo.driver_name, "net_ring") == 0 ||
	     strcmp(dinfo.driver_name, "net_memif") == 0)) {
		ad->trust_crc = true;
		NDK_LOG(INFO, "%s: received ICRCs not checked (trust_link_crc "
			"on %s)", ad->name, dinfo.driver_name);
		return;
	}
	NDK_LOG(WARNING, "%s: trust_link_crc refused: port %u is not a "
		"memory-to-memory link (net_ring, net_memif); ICRCs are "
		"checked", ad->name, ad->port_id);
}

static ndk_status_t
swr_open(const struct ndk_adapter_config *cfg, struct ndk_adapter **out)
{
	uint32_t seq = __atomic_fetch_add(&swr_adapter_seq, 1,
					  __ATOMIC_RELAXED);
	uint32_t max_qp, max_mr, nq;
	struct swr_adapter *ad;
	char name[RTE_RING_NAMESIZE];
	uint32_t bsize;
	bool zc_chain_ok;
	int socket, rc;

	if (!rte_eth_dev_is_valid_port(cfg->port_id)) {
		NDK_LOG(ERR, "swroce: port %u does not exist", cfg->port_id);
		return NDK_STATUS_INVALID_PARAMETER;
	}
	if (cfg->ipv4 == 0 && swr_ip6_is_zero(cfg->ipv6)) {
		NDK_LOG(ERR, "swroce: adapter needs an IPv4 or IPv6 address");
		return NDK_STATUS_INVALID_PARAMETER;
	}
	if (!swr_ip6_is_zero(cfg->ipv6) && !swr_ip6_unicast(cfg->ipv6)) {
		NDK_LOG(ERR, "swroce: IPv6 address is not a unicast host address");
		return NDK_STATUS_INVALID_PARAMETER;
	}
	if (cfg->cc > NDK_CC_DELAY) {
		NDK_LOG(ERR, "swroce: unknown congestion control mode %u",
			cfg->cc);
		return NDK_STATUS_INVALID_PARAMETER;
	}
	if (cfg->max_path_mtu != 0 &&
	    ndk_roce_mtu_from_bytes(cfg->max_path_mtu) == 0) {
		NDK_LOG(ERR, "swroce: path MTU %u is not 256..4096 (power of 2)",
			cfg->max_path_mtu);
		return NDK_STATUS_INVALID_PARAMETER;
	}
	if (rte_is_multicast_ether_addr((const struct rte_ether_addr *)
					cfg->mac)) {
		NDK_LOG(ERR, "swroce: adapter MAC must be unicast");
		return NDK_STATUS_INVALID_PARAMETER;
	}
	nq = cfg->nb_queues != 0 ? cfg->nb_queues : 1;
	if (nq > SWR_MAX_QUEUES || (nq & (nq - 1)) != 0) {
		NDK_LOG(ERR, "swroce: %u queues: must be a power of 2 up to %u",
			nq, SWR_MAX_QUEUES);
		return NDK_STATUS_INVALID_PARAMETER;
	}
	max_qp = cfg->max_qp != 0 ? cfg->max_qp : SWR_DEF_MAX_QP;
	max_mr = cfg->max_mr != 0 ? cfg->max_mr : SWR_DEF_MAX_MR;
	if (max_qp > (1u << 20) || max_mr > (1u << 24)) {
		NDK_LOG(ERR, "swroce: max_qp %u / max_mr %u too large", max_qp,
			max_mr);
		return NDK_STATUS_INVALID_PARAMETER;
	}
	socket = cfg->socket_id >= 0 ? cfg->socket_id :
		rte_eth_dev_socket_id(cfg->port_id);
	if (socket < 0)
		socket = (int)rte_socket_id();
	if (socket < 0 || socket == SOCKET_ID_ANY)
		socket = 0;

	ad = rte_zmalloc_socket("ndk_swroce", sizeof(*ad), RTE_CACHE_LINE_SIZE,
				socket);
	if (ad == NULL)
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	ndk_object_header_init(&ad->pub.header, NDK_OBJECT_TYPE_ADAPTER);
	ad->pub.dispatch = &swr_adapter_dispatch;
	snprintf(ad->name, sizeof(ad->name), "swroce%u", seq);
	ad->port_id = cfg->port_id;
	ad->nb_queues = (uint16_t)nq;
	ad->q_mask = (uint16_t)(nq - 1);
	ad->socket_id = socket;
	ad->ipv4 = cfg->ipv4;
	memcpy(ad->ipv6, cfg->ipv6, sizeof(ad->ipv6));
	ad->has_ipv6 = !swr_ip6_is_zero(cfg->ipv6);
	ad->max_path_mtu = cfg->max_path_mtu != 0 ? cfg->max_path_mtu : 4096;
	ad->tsc_hz = rte_get_tsc_hz();
	ad->rto_adaptive = 1;
	ad->rto_floor_tsc = swr_us_to_tsc(ad, NDK_ADAPTIVE_RTO_FLOOR_US);
	swr_cc_adapter_init(ad, cfg);
	rte_spinlock_init(&ad->obj_lock);

	/* QP table: index 0 and 1 stay reserved for QPN 0 and 1. */
	ad->qp_bits = swr_log2_ceil(max_qp + SWR_FIRST_QP_INDEX);
	ad->qp_mask = (1u << ad->qp_bits) - 1;
	ad->qp_cursor = SWR_FIRST_QP_INDEX;
	ad->mr_bits = swr_log2_ceil(max_mr);
	if (ad->mr_bits < 4)
		ad->mr_bits = 4;
	ad->mr_mask = (1u << ad->mr_bits) - 1;
	ad->qp_tbl = rte_zmalloc_socket(NULL, sizeof(ad->qp_tbl[0]) <<
					ad->qp_bits, 0, socket);
	ad->qp_gen = rte_zmalloc_socket(NULL, sizeof(ad->qp_gen[0]) <<
					ad->qp_bits, 0, socket);
	ad->mr_tbl = rte_zmalloc_socket(NULL, sizeof(ad->mr_tbl[0]) <<
					ad->mr_bits, 0, socket);
	snprintf(name, sizeof(name), "ndkctl%u", seq);
	ad->ctl_ring = rte_ring_create(name, SWR_CTL_RING, socket,
				       RING_F_SC_DEQ);
	if (ad->qp_tbl == NULL || ad->qp_gen == NULL || ad->mr_tbl == NULL ||
	    ad->ctl_ring == NULL || swr_queues_init(ad, seq) != 0 ||
	    swr_neigh_init(ad) != 0)
		goto nomem;

	ad->info.max_qp = max_qp;
	ad->info.max_cq = cfg->max_cq != 0 ? cfg->max_cq : SWR_DEF_MAX_CQ;
	ad->info.max_mr = max_mr;
	if (swr_cm_init(ad) != 0)
		goto nomem;
	ad->qp_gone = swr_cm_qp_gone;

	if (cfg->mbuf_pool != NULL) {
		ad->mp = cfg->mbuf_pool;
		if (rte_pktmbuf_data_room_size(ad->mp) < RTE_PKTMBUF_HEADROOM +
		    ad->max_path_mtu + NDK_ROCE_MAX_OVERHEAD) {
			NDK_LOG(ERR, "swroce: mbuf pool data room too small "
				"for path MTU %u", ad->max_path_mtu);
			swr_adapter_free(ad);
			return NDK_STATUS_INVALID_PARAMETER;
		}
	} else {
		ad->mp = swr_port_pool(ad->port_id, seq, socket);
		if (ad->mp == NULL)
			goto nomem;
	}

	if (cfg->configure_port) {
		rc = swr_port_setup(ad);
		if (rc != 0) {
			NDK_LOG(ERR, "swroce: cannot set up port %u: %s",
				ad->port_id, rte_strerror(-rc));
			swr_adapter_free(ad);
			return NDK_STATUS_INVALID_PARAMETER;
		}
		ad->own_port = true;
	}
	rc = swr_mac_setup(ad, cfg);
	if (rc != 0) {
		NDK_LOG(ERR, "swroce: port %u has no MAC address", ad->port_id);
		if (ad->own_port)
			rte_eth_dev_stop(ad->port_id);
		swr_adapter_free(ad);
		return NDK_STATUS_INVALID_PARAMETER;
	}
	bsize = swr_memif_chain_risk(ad, &zc_chain_ok);
	if (bsize != 0)
		NDK_LOG(WARNING, "%s: port %u is net_memif with %u-byte buffers: "
			"frames of path MTU %u are chained, which this DPDK's "
			"memif corrupts (floods of stale frames); give both "
			"ends bsize=%u or more, or a path MTU whose frames fit",
			ad->name, ad->port_id, bsize, ad->max_path_mtu,
			(unsigned int)rte_align32pow2(ad->max_path_mtu +
						      NDK_ROCE_MAX_OVERHEAD));
	swr_zc_decide(ad, zc_chain_ok);
	swr_trust_crc_decide(ad, cfg->trust_link_crc);
	swr_link_watch(ad);
	swr_info_init(ad);
	NDK_LOG(INFO, "%s: port %u, MAC " RTE_ETHER_ADDR_PRT_FMT
		", path MTU %u, %u QPs, %u queue(s)", ad->name, ad->port_id,
		RTE_ETHER_ADDR_BYTES(&ad->mac), ad->max_path_mtu, max_qp, nq);
	*out = &ad->pub;
	return NDK_STATUS_SUCCESS;

nomem:
	NDK_LOG(ERR, "swroce: out of memory opening an adapter on port %u",
		cfg->port_id);
	swr_adapter_free(ad);
	return NDK_STATUS_INSUFFICIENT_RESOURCES;
}

static ndk_status_t
swr_close_qps(struct swr_adapter *ad, void *arg __rte_unused)
{
	for (uint32_t i = 0; i <= ad->qp_mask; i++) {
		struct swr_qp *qp = ad->qp_tbl[i];

		if (qp != NULL)
			ndk_close_qp(&qp->pub, NULL, NULL);
	}
	return NDK_STATUS_SUCCESS;
}

static void
swr_close(struct ndk_adapter *adapter)
{
	struct swr_adapter *ad = swr_adapter_of(adapter);

	/* Pollers still running on the adapter must be stopped first. */
	swr_own_all(ad);
	swr_zc_close_begin(ad);
	/* We own it now: every ctl request below runs inline. */
	swr_close_qps(ad, NULL);
	/* SRQs left open die with the adapter (their callback is told). */
	while (ad->srq_list != NULL)
		swr_srq_destroy(ad->srq_list);
	while (ad->pd_list != NULL)
		swr_pd_destroy(ad->pd_list);
	swr_zc_close_end(ad);
	while (ad->cq_list != NULL)
		swr_cq_destroy(ad->cq_list);
	swr_quiesce(ad);
	/* -EAGAIN while the event callback runs: it is short, retry. */
	while (rte_eth_dev_callback_unregister(ad->port_id,
					       RTE_ETH_EVENT_INTR_LSC,
					       swr_link_event, ad) == -EAGAIN)
		rte_delay_us_sleep(100);
	if (ad->own_port)
		rte_eth_dev_stop(ad->port_id);
	ad->pub.header.type = NDK_OBJECT_TYPE_UNDEFINED;
	swr_adapter_free(ad);
	/* Frames the port or the neighbour table held are freed now. */
	swr_zc_reap_orphans();
}

static struct ndk_provider swr_provider = {
	.name = "swroce",
	.open = swr_open,
};

RTE_INIT(swr_register)
{
	ndk_provider_register(&swr_provider);
}
