/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * ndk-perf's NDK engine: opens the adapter on a DPDK port, polls it from a
 * worker lcore (or lets the test loops poll it inline when the process has
 * one lcore), and creates the PD, CQs, QPs and registered buffers the
 * tests use. Each QP owns one allocation of two halves: the local half
 * (sources of SEND/WRITE, sinks of READ) and the remote half (the region
 * advertised to the peer: WRITE target, READ source, SEND receive buffer).
 */

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_random.h>

#include "ndk_app_xstats.h"
#include "perf_ndk.h"

/* IPv4 + UDP + BTH + RETH + ICRC around an RDMA payload. */
#define PERF_ROCE_OVERHEAD (20 + 8 + 12 + 16 + 4)
#define PERF_BUF_ALIGN 4096
/* Packet buffers: a 4096-byte payload with every header fits one mbuf. */
#define PERF_POOL_SIZE 16383
#define PERF_POOL_CACHE 256
#define PERF_MBUF_DATA (RTE_PKTMBUF_HEADROOM + 4096 + 256)

void
perf_ndk_bad_completion(const char *where, const struct ndk_result_ex *r)
{
	fprintf(stderr, " Completion with error at %s:\n", where);
	fprintf(stderr, " Failed status %s (%#x): provider error %u, "
		"op %d, bytes %u\n", ndk_status_str(r->status),
		(unsigned int)r->status, r->provider_error, (int)r->type,
		r->bytes_transferred);
}

/*
 * A secondary process of ndk-roced: libndk's attach provider uses the
 * daemon's adapter on the port (doc/attach.md); its address is the
 * daemon's, so --ip must name it.
 */
static int
perf_ndk_attach(struct perf_ctx *c)
{
	struct ndk_adapter_config cfg = {
		.port_id = c->o->port_id, .socket_id = SOCKET_ID_ANY,
	};
	uint32_t isz = sizeof(c->info);
	char want[INET_ADDRSTRLEN];
	ndk_status_t st;

	st = ndk_adapter_open(&cfg, &c->ad);
	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, " Couldn't attach to ndk-roced's adapter on "
			"port %u: %s\n", c->o->port_id, ndk_status_str(st));
		return -1;
	}
	ndk_query_adapter_info(c->ad, &c->info, &isz);
	if (c->info.ipv4 != c->o->ipv4) {
		inet_ntop(AF_INET, &c->info.ipv4, want, sizeof(want));
		fprintf(stderr, " --ip: the daemon's adapter on port %u has "
			"address %s\n", c->o->port_id, want);
		return -1;
	}
	return 0;
}

int
perf_ndk_open(struct perf_ctx *c)
{
	struct ndk_adapter_config cfg;
	uint32_t isz = sizeof(c->info);
	ndk_status_t st;

	if (!rte_eth_dev_is_valid_port(c->o->port_id)) {
		fprintf(stderr, " DPDK port %u does not exist (give the EAL a "
			"--vdev or a device, and --port-id)\n",
			c->o->port_id);
		return -1;
	}
	c->attached = rte_eal_process_type() == RTE_PROC_SECONDARY;
	if (c->attached)
		return perf_ndk_attach(c);
	/*
	 * Our own packet buffers, never freed before rte_eal_cleanup(): a
	 * stopped port still refers to its RX pool, and net_memif returns
	 * mbufs to it from its interrupt thread when the peer disconnects,
	 * which may be after the adapter closed (it frees a pool it made).
	 */
	c->pool = rte_pktmbuf_pool_create("ndk_perf_mbufs", PERF_POOL_SIZE,
					  PERF_POOL_CACHE, 0, PERF_MBUF_DATA,
					  rte_eth_dev_socket_id(c->o->port_id));
	if (c->pool == NULL) {
		fprintf(stderr, " Couldn't create the packet buffer pool: %s\n",
			rte_strerror(rte_errno));
		return -1;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.mbuf_pool = c->pool;
	cfg.port_id = c->o->port_id;
	cfg.configure_port = true;
	cfg.ipv4 = c->o->ipv4;
	memcpy(cfg.ipv6, c->o->ipv6, sizeof(cfg.ipv6));
	cfg.max_path_mtu = 4096;
	cfg.socket_id = SOCKET_ID_ANY;
	cfg.nb_queues = c->o->queues;
	cfg.trust_link_crc = c->o->trust_crc;
	cfg.cc = c->o->cc;
	st = ndk_adapter_open(&cfg, &c->ad);
	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, " Couldn't open an adapter on port %u: %s\n",
			c->o->port_id, ndk_status_str(st));
		return -1;
	}
	ndk_query_adapter_info(c->ad, &c->info, &isz);
	st = ndk_adapter_set_adaptive_rto(c->ad, !c->o->strict_rto,
					  c->o->rto_floor_us);
	if (st != NDK_STATUS_SUCCESS &&
	    (c->o->strict_rto || c->o->rto_floor_us != 0))
		fprintf(stderr, " Adaptive retransmission not set: %s\n",
			ndk_status_str(st));
	return 0;
}

int
perf_ndk_poll_start(struct perf_ctx *c)
{
	unsigned int nq, nw;
	int lcore;

	if (c->o->loss_ppm != 0) {
		struct ndk_netem_config nc = {
			.drop_ppm = c->o->loss_ppm,
			/* Reproducible, and not the same on both sides. */
			.seed = 0x5eed0000ull ^ c->o->ipv4,
		};

		c->netem = ndk_netem_attach(c->o->port_id, 0, &nc);
		if (c->netem == NULL) {
			fprintf(stderr, " Couldn't attach the --loss "
				"impairment to port %u: %s\n", c->o->port_id,
				rte_strerror(rte_errno));
			return -1;
		}
	}
	if (c->o->bn_mbps != 0) {
		/* A switch's queue before our port: a step ECN mark from
		 * bn_mark frames queued, tail drop past bn_buffer. */
		struct ndk_netem_queue_config qc = {
			.rate_bps = (uint64_t)c->o->bn_mbps * 1000000u,
			.limit_pkts = c->o->bn_buffer,
			.ecn_kmin = c->o->bn_mark,
			.overhead = NDK_NETEM_QUEUE_ETH_OVERHEAD,
		};

		c->bneck = ndk_netem_queue_attach(c->o->port_id, 0, &qc);
		if (c->bneck == NULL) {
			fprintf(stderr, " Couldn't attach the --bottleneck "
				"queue to port %u: %s\n", c->o->port_id,
				rte_strerror(rte_errno));
			return -1;
		}
	}
	c->inline_poll = rte_lcore_count() < 2;
	if (c->inline_poll)
		return 0;
	/* Queue q to the (q mod workers)-th worker; all on one if one. */
	nq = c->info.nb_queues != 0 ? c->info.nb_queues : 1;
	nw = RTE_MIN(rte_lcore_count() - 1, nq);
	lcore = -1;
	for (unsigned int w = 0; w < nw && w < PERF_MAX_POLLERS; w++) {
		struct ndk_adapter *ads[16];
		uint16_t qs[16];
		unsigned int n = 0;

		lcore = (int)rte_get_next_lcore(lcore, 1, 0);
		if (nw == 1) {
			ads[n] = c->ad;
			qs[n++] = NDK_POLL_ALL_QUEUES;
		}
		for (uint16_t q = w; nw > 1 && q < nq; q += nw) {
			ads[n] = c->ad;
			qs[n++] = q;
		}
		if (ndk_poller_start_queues(lcore, ads, qs, n,
					    &c->poller[w]) != 0) {
			fprintf(stderr, " Couldn't start a poller on lcore "
				"%d\n", lcore);
			return -1;
		}
		c->n_pollers = w + 1;
	}
	return 0;
}

unsigned int
perf_ndk_port_mtu(const struct perf_ctx *c)
{
	uint16_t eth_mtu = 1500;

	rte_eth_dev_get_mtu(c->o->port_id, &eth_mtu);
	for (unsigned int m = 4096; m > 256; m /= 2)
		if (m + PERF_ROCE_OVERHEAD <= eth_mtu)
			return m;
	return 256;
}

int
perf_ndk_wait_link(const struct perf_ctx *c)
{
	uint64_t end = rte_get_timer_cycles() + 10 * rte_get_timer_hz();
	struct rte_eth_link link;

	do {
		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(c->o->port_id, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_UP)
			return 0;
		rte_delay_us_sleep(10000);
	} while (rte_get_timer_cycles() < end);
	fprintf(stderr, " Port %u: the link is still down after 10 s (for "
		"net_memif: start the server's adapter before the client's)\n",
		c->o->port_id);
	return -1;
}

void
perf_ndk_wait_peer_stop(const struct perf_ctx *c, int timeout_ms)
{
	struct rte_eth_dev_info dinfo;
	struct rte_eth_link link;
	uint64_t end;

	/* Attached, the link is the daemon's: it stays up. */
	if (c->attached)
		return;
	/*
	 * net_memif tears its link down from the interrupt thread when the
	 * peer stops; stopping our port while that runs frees the shared
	 * regions twice (DPDK 22.11). Let it finish first.
	 */
	if (rte_eth_dev_info_get(c->o->port_id, &dinfo) != 0 ||
	    dinfo.driver_name == NULL ||
	    strcmp(dinfo.driver_name, "net_memif") != 0)
		return;
	end = rte_get_timer_cycles() +
		(uint64_t)timeout_ms * rte_get_timer_hz() / 1000;
	do {
		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(c->o->port_id, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_DOWN)
			break;
		rte_delay_us_sleep(1000);
	} while (rte_get_timer_cycles() < end);
	rte_delay_us_sleep(20000);
}

static uint32_t
perf_mr_flags(const struct perf_ctx *c)
{
	uint32_t f = NDK_MR_FLAG_ALLOW_LOCAL_WRITE |
		NDK_MR_FLAG_ALLOW_REMOTE_WRITE | NDK_MR_FLAG_ALLOW_REMOTE_READ;

	if (!(c->info.adapter_flags &
	      NDK_ADAPTER_FLAG_RDMA_READ_SINK_NOT_REQUIRED))
		f |= NDK_MR_FLAG_RDMA_READ_SINK;
	return f;
}

static int
perf_qp_create(struct perf_ctx *c, unsigned int i)
{
	const struct perf_params *p = &c->p;
	struct perf_qp *q = &c->qps[i];
	ndk_status_t st;

	/* Registrable memory: attached, the daemon registers only buffers
	 * of the application's heap ([attach] heap-mb of ndk-roced). */
	st = ndk_adapter_alloc_buffer(c->ad, 2 * c->half, PERF_BUF_ALIGN,
				      (void **)&q->mem);
	if (st != NDK_STATUS_SUCCESS) {
		q->mem = NULL;
		fprintf(stderr,
			" Couldn't allocate %zu bytes of buffers: %s%s\n",
			2 * c->half, ndk_status_str(st),
			c->attached ? " (attached: is the daemon's "
			"[attach] heap-mb large enough?)" : "");
		return -1;
	}
	q->lbuf = q->mem;
	q->rbuf = q->mem + c->half;
	/* Sources carry the pattern; READ's source is the remote half. */
	perf_fill(q->lbuf, 0, c->half);
	if (p->verb == PERF_READ) {
		memset(q->lbuf, 0, c->half);
		perf_fill(q->rbuf, 0, c->half);
	} else {
		/* write_lat polls the last byte of each size here for the
		 * peer's counter, from 1: it must not start as one. */
		memset(q->rbuf, 0, c->half);
	}

	st = ndk_create_mr(c->pd, false, &q->mr);
	if (st == NDK_STATUS_SUCCESS)
		st = ndk_register_mr(q->mr, q->mem, 2 * c->half,
				     perf_mr_flags(c));
	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, " Couldn't register a memory region: %s\n",
			ndk_status_str(st));
		return -1;
	}
	q->ltoken = ndk_mr_local_token(q->mr);

	if (perf_ndk_qp_renew(c, i) != 0)
		return -1;

	memset(&q->my, 0, sizeof(q->my));
	q->my.lid = 0;
	q->my.out_reads = (uint32_t)p->out_reads;
	q->my.qpn = ndk_qp_num(q->qp);
	q->my.psn = (uint32_t)(rte_rand() & 0xffffff);
	q->my.rkey = ndk_mr_remote_token(q->mr);
	q->my.vaddr = (uint64_t)(uintptr_t)q->rbuf;
	/* ::ffff:<ip> unless -x >= 1 picks <ip6> (or there is no --ip). */
	if (c->o->ipv4 != 0 && c->o->gid_index <= 0)
		perf_gid_from_ipv4(q->my.gid, c->o->ipv4);
	else
		memcpy(q->my.gid, c->o->ipv6, sizeof(q->my.gid));
	return 0;
}

int
perf_ndk_qp_renew(struct perf_ctx *c, unsigned int i)
{
	const struct perf_params *p = &c->p;
	struct perf_qp *q = &c->qps[i];
	uint32_t rq = p->verb == PERF_SEND ? p->rx_depth : 1;
	ndk_status_t st;

	if (q->qp != NULL)
		ndk_close_qp(q->qp, NULL, NULL);
	q->qp = NULL;
	if (c->srq != NULL)
		st = ndk_create_qp_with_srq(c->pd, c->rcq, c->scq, c->srq,
					    (void *)(uintptr_t)i, p->tx_depth,
					    1, (uint32_t)p->inline_size,
					    &q->qp);
	else
		st = ndk_create_qp(c->pd, c->rcq, c->scq, (void *)(uintptr_t)i,
				   rq, p->tx_depth, 1, 1,
				   (uint32_t)p->inline_size, &q->qp);
	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, " Couldn't create a QP: %s\n",
			ndk_status_str(st));
		return -1;
	}
	q->my.qpn = ndk_qp_num(q->qp);
	return 0;
}

int
perf_ndk_resources(struct perf_ctx *c)
{
	const struct perf_params *p = &c->p;
	uint64_t biggest = p->all_sizes ? PERF_MAX_SIZE : p->size;
	uint32_t sdepth, rdepth;
	ndk_status_t st;

	c->half = RTE_ALIGN_CEIL(biggest, PERF_BUF_ALIGN);
	sdepth = RTE_MIN((uint64_t)p->num_qps * p->tx_depth + 16,
			 (uint64_t)c->info.max_cq_depth);
	rdepth = RTE_MIN((uint64_t)p->num_qps * p->rx_depth + 16,
			 (uint64_t)c->info.max_cq_depth);
	st = ndk_create_pd(c->ad, &c->pd);
	if (st == NDK_STATUS_SUCCESS)
		st = ndk_create_cq(c->ad, sdepth, NULL, NULL, &c->scq);
	if (st == NDK_STATUS_SUCCESS)
		st = ndk_create_cq(c->ad, rdepth, NULL, NULL, &c->rcq);
	/* --use_srq: one SRQ holds what the QPs' queues would. */
	if (st == NDK_STATUS_SUCCESS && c->o->use_srq && p->verb == PERF_SEND)
		st = ndk_create_srq(c->pd, (uint32_t)RTE_MIN(
			(uint64_t)p->num_qps * p->rx_depth,
			(uint64_t)c->info.max_srq_depth), 1, 0, NULL, NULL,
			&c->srq);
	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, " Couldn't create the PD and CQs: %s\n",
			ndk_status_str(st));
		return -1;
	}
	c->qps = calloc(p->num_qps, sizeof(c->qps[0]));
	if (c->qps == NULL)
		return -1;
	for (unsigned int i = 0; i < p->num_qps; i++)
		if (perf_qp_create(c, i) != 0)
			return -1;
	return 0;
}

int
perf_ndk_connect(struct perf_ctx *c)
{
	const struct perf_params *p = &c->p;

	for (unsigned int i = 0; i < p->num_qps; i++) {
		struct perf_qp *q = &c->qps[i];
		struct ndk_qp_attr a;
		uint32_t ord;
		ndk_status_t st;

		memset(&a, 0, sizeof(a));
		/* The peer's GID: IPv4-mapped, or its IPv6 address. */
		a.dest_ip = perf_ipv4_from_gid(q->rem.gid);
		if (a.dest_ip == 0)
			memcpy(a.dest_ip6, q->rem.gid, sizeof(a.dest_ip6));
		if (c->o->have_peer_mac)
			memcpy(a.dest_mac, c->o->peer_mac, sizeof(a.dest_mac));
		a.dest_qpn = q->rem.qpn;
		a.rq_psn = q->rem.psn;
		a.sq_psn = q->my.psn;
		a.path_mtu = p->mtu;
		a.timeout = c->o->qp_timeout; /* 0: ndk_qp_connect's 14 */
		/* perftest: our ORD is the peer's out_reads, our IRD ours. */
		ord = q->rem.out_reads != 0 ? q->rem.out_reads : 1;
		a.max_rd_atomic = (uint8_t)RTE_MIN(ord,
			c->info.max_outbound_read_limit);
		a.max_dest_rd_atomic = (uint8_t)RTE_MIN((uint32_t)p->out_reads,
			c->info.max_inbound_read_limit);
		a.selective_repeat = c->o->selective_repeat;
		st = ndk_qp_connect(q->qp, &a);
		if (st != NDK_STATUS_SUCCESS) {
			fprintf(stderr, " Unable to Connect the HCA's through "
				"the link: %s\n", ndk_status_str(st));
			return -1;
		}
	}
	return 0;
}

int
perf_post_recvs(struct perf_ctx *c, struct perf_qp *q, uint64_t size,
		uint64_t n)
{
	enum { LIST = 32 };
	struct ndk_sge sge = {
		.va = q->rbuf, .length = (uint32_t)size, .token = q->ltoken,
	};
	struct ndk_receive_request rq[LIST];

	if (c->srq != NULL) {
		for (uint64_t i = 0; i < n; i++) {
			ndk_status_t st = ndk_srq_receive(c->srq, NULL, &sge, 1);

			if (st != NDK_STATUS_SUCCESS) {
				fprintf(stderr, " Couldn't post recv: %s\n",
					ndk_status_str(st));
				return -1;
			}
			q->rposted++;
		}
		return 0;
	}
	/* The QP's own queue: up to LIST receives a call. */
	for (unsigned int i = 0; i < LIST; i++)
		rq[i] = (struct ndk_receive_request){
			.request_context = NULL, .sgl = &sge, .nsge = 1,
		};
	while (n > 0) {
		uint32_t k = (uint32_t)RTE_MIN(n, (uint64_t)LIST), done;
		ndk_status_t st = ndk_receive_list(q->qp, rq, k, &done);

		q->rposted += done;
		if (st != NDK_STATUS_SUCCESS) {
			fprintf(stderr, " Couldn't post recv: %s\n",
				ndk_status_str(st));
			return -1;
		}
		n -= k;
	}
	return 0;
}

void
perf_clock_start(const struct perf_ctx *c, struct perf_clock *k)
{
	uint64_t now = rte_rdtsc();
	double hz = c->p.tsc_hz;

	memset(k, 0, sizeof(*k));
	k->sample_start = now + (uint64_t)(c->p.margin * hz);
	k->sample_end = now + (uint64_t)((c->p.duration - c->p.margin) * hz);
	k->end = now + (uint64_t)(c->p.duration * hz);
	k->phase = PERF_PHASE_WARMUP;
	perf_clock_tick(k, now);
}

void
perf_ndk_quiesce(void *ctx)
{
	struct perf_ctx *c = ctx;

	for (unsigned int i = 0; i < c->n_pollers; i++) {
		ndk_poller_stop(c->poller[i]);
		c->poller[i] = NULL;
	}
	c->n_pollers = 0;
	c->inline_poll = false;
}

void
perf_ndk_idle(void *ctx)
{
	/* The exchange's own read fails if the peer went with the daemon. */
	(void)perf_poll(ctx);
}

int
perf_ndk_removed(struct perf_ctx *c)
{
	ndk_status_t st = ndk_adapter_health(c->ad);

	if (st != NDK_STATUS_DEVICE_REMOVED)
		return 0;
	if (c->polls != UINT64_MAX) {
		fprintf(stderr, " The adapter is removed (ndk-roced stopped or "
			"died): %s\n", ndk_status_str(st));
		c->polls = UINT64_MAX;
	}
	return -1;
}

void
perf_ndk_print_stats(const struct perf_ctx *c)
{
	if (c->netem != NULL) {
		struct ndk_netem_stats ns;

		ndk_netem_get_stats(c->netem, &ns);
		printf(" --loss: %llu frames received, %llu dropped\n",
		       (unsigned long long)ns.seen,
		       (unsigned long long)ns.dropped);
	}
	if (c->bneck != NULL) {
		struct ndk_netem_queue_stats qs;

		ndk_netem_queue_get_stats(c->bneck, &qs);
		printf(" --bottleneck: %llu frames queued, %llu marked CE, "
		       "%llu not ECT above the mark, %llu dropped, deepest "
		       "%u\n", (unsigned long long)qs.enqueued,
		       (unsigned long long)qs.marked,
		       (unsigned long long)qs.not_ect,
		       (unsigned long long)qs.dropped, qs.max_depth_pkts);
	}
	if (c->qps != NULL) {
		struct ndk_qp_stats q, sum;

		memset(&sum, 0, sizeof(sum));
		for (unsigned int i = 0; i < c->p.num_qps; i++) {
			if (c->qps[i].qp == NULL)
				continue;
			ndk_qp_get_stats(c->qps[i].qp, &q);
			sum.posted += q.posted;
			sum.deferred += q.deferred;
			sum.chains += q.chains;
			sum.chain_requests += q.chain_requests;
			sum.chain_max = RTE_MAX(sum.chain_max, q.chain_max);
		}
		printf(" QP counters: %llu posted, %llu with DEFER, %llu chains "
		       "of %llu requests (longest %llu)\n",
		       (unsigned long long)sum.posted,
		       (unsigned long long)sum.deferred,
		       (unsigned long long)sum.chains,
		       (unsigned long long)sum.chain_requests,
		       (unsigned long long)sum.chain_max);
	}
	printf(" Adapter counters (non-zero):\n");
	ndk_app_print_xstats(stdout, c->ad, NULL, "   ", 22, 14, true);
	if (c->qps != NULL && c->qps[0].qp != NULL) {
		struct ndk_qp_info qi;

		if (ndk_qp_query_info(c->ad, c->qps[0].qp->qpn, &qi) ==
		    NDK_STATUS_SUCCESS)
			printf(" First QP: srtt %.1f us, retransmission timeout "
			       "%.1f us, adaptive_retransmits %llu, "
			       "retransmit_timeouts %llu\n", qi.srtt_ns / 1e3,
			       qi.rto_ns / 1e3, (unsigned long long)
			       qi.events.adaptive_retransmits,
			       (unsigned long long)
			       qi.events.retransmit_timeouts);
	}
	fflush(stdout);
}

void
perf_ndk_close(struct perf_ctx *c)
{
	perf_ndk_quiesce(c);
	/* Connectors before the QPs they connected. */
	perf_cm_close(c);
	/* Nobody polls the queue now. */
	if (c->netem != NULL)
		ndk_netem_detach(c->netem);
	c->netem = NULL;
	if (c->bneck != NULL)
		ndk_netem_queue_detach(c->bneck);
	c->bneck = NULL;
	if (c->qps != NULL) {
		for (unsigned int i = 0; i < c->p.num_qps; i++) {
			struct perf_qp *q = &c->qps[i];

			if (q->qp != NULL)
				ndk_close_qp(q->qp, NULL, NULL);
			if (q->mr != NULL)
				ndk_close_mr(q->mr, NULL, NULL);
			if (q->mem != NULL)
				ndk_adapter_free_buffer(c->ad, q->mem);
			q->mem = NULL;
		}
		free(c->qps);
		c->qps = NULL;
	}
	if (c->srq != NULL)
		ndk_close_srq(c->srq, NULL, NULL);
	c->srq = NULL;
	if (c->scq != NULL)
		ndk_close_cq(c->scq, NULL, NULL);
	if (c->rcq != NULL)
		ndk_close_cq(c->rcq, NULL, NULL);
	if (c->pd != NULL)
		ndk_close_pd(c->pd, NULL, NULL);
	c->scq = c->rcq = NULL;
	c->pd = NULL;
	if (c->ad != NULL)
		ndk_adapter_close(c->ad);
	c->ad = NULL;
}

/* ------------------------------------------------------------------ */
/* Data patterns                                                       */
/* ------------------------------------------------------------------ */

static inline uint8_t
perf_pattern(size_t k)
{
	uint32_t h = (uint32_t)k * 0x9E3779B1u;

	return (uint8_t)((h >> 24) ^ (k >> 16));
}

void
perf_fill(uint8_t *base, size_t off, size_t len)
{
	for (size_t k = off; k < off + len; k++)
		base[k] = perf_pattern(k);
}

long
perf_check(const uint8_t *base, size_t off, size_t len)
{
	for (size_t k = off; k < off + len; k++)
		if (base[k] != perf_pattern(k))
			return (long)k;
	return -1;
}

void
perf_verify_note(struct perf_ctx *c, const char *what, long bad,
		 uint64_t size)
{
	c->verify_checks++;
	if (bad < 0)
		return;
	if (c->verify_errors++ == 0)
		fprintf(stderr, " --verify: %s of %llu bytes: byte %ld is "
			"wrong\n", what, (unsigned long long)size, bad);
}
