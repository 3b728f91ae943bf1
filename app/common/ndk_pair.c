/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Two adapters on a crossed net_ring pair, their connections and buffers;
 * see ndk_pair.h.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_pause.h>
#include <rte_random.h>

#include "ndk_names.h"
#include "ndk_pair.h"

#define PAIR_ERR(fmt, ...) \
	fprintf(stderr, "ndk_pair: " fmt "\n", ##__VA_ARGS__)

/* Longest wait for an object close that went PENDING. */
#define PAIR_CLOSE_TIMEOUT_S 60.0

static unsigned int pair_next_id;

/* ------------------------------------------------------------------ */
/* Small utilities                                                     */
/* ------------------------------------------------------------------ */

double
ndk_pair_now(void)
{
	return (double)rte_get_timer_cycles() / (double)rte_get_timer_hz();
}

static inline uint8_t
pattern_byte(uint32_t seed, size_t i)
{
	uint32_t x = seed * 0x9E3779B1u + (uint32_t)i * 0x85EBCA77u +
		(uint32_t)(i >> 32);

	x ^= x >> 15;
	x *= 0x2C1B3C6Du;
	x ^= x >> 12;
	return (uint8_t)(x >> 24);
}

void
ndk_pair_fill(void *dst, size_t len, uint32_t seed)
{
	uint8_t *p = dst;

	for (size_t i = 0; i < len; i++)
		p[i] = pattern_byte(seed, i);
}

long
ndk_pair_check(const void *src, size_t len, uint32_t seed)
{
	const uint8_t *p = src;

	for (size_t i = 0; i < len; i++)
		if (p[i] != pattern_byte(seed, i))
			return (long)i;
	return -1;
}

const char *
ndk_pair_op_str(enum ndk_operation_type type)
{
	return ndk_names_op(type);
}

/* ------------------------------------------------------------------ */
/* Completions                                                         */
/* ------------------------------------------------------------------ */

const char *
ndk_pair_result_str(const struct ndk_result_ex *r, char *buf, size_t size)
{
	snprintf(buf, size, "%s(0x%x) %s(0x%08x) bytes %u perr %u qp_ctx %p "
		 "req_ctx %p", ndk_pair_op_str(r->type), (unsigned int)r->type,
		 ndk_status_str(r->status), (uint32_t)r->status,
		 r->bytes_transferred, r->provider_error, r->qp_context,
		 r->request_context);
	return buf;
}

/* ------------------------------------------------------------------ */
/* Closing objects that may complete later                             */
/* ------------------------------------------------------------------ */

static void
close_done_cb(void *ctx)
{
	__atomic_store_n((uint32_t *)ctx, 1, __ATOMIC_RELEASE);
}

/* Closes whose completion nobody waits for (a PD with live MRs, ...). */
static void
close_ignore_cb(void *ctx)
{
	RTE_SET_USED(ctx);
}

/*
 * Wait for a PENDING close to call its completion. When no poller runs,
 * poll the adapters here so that deferred work can finish.
 */
static void
pair_wait_flag(struct ndk_pair *pair, uint32_t *flag, const char *what)
{
	const double end = ndk_pair_now() + PAIR_CLOSE_TIMEOUT_S;

	while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) {
		if (pair->n_pollers == 0) {
			for (int s = 0; s < 2; s++)
				if (pair->ad[s] != NULL)
					ndk_adapter_poll(pair->ad[s]);
		} else {
			rte_pause();
		}
		if (ndk_pair_now() > end) {
			PAIR_ERR("%s: close completion not called after %.0f s",
				 what, PAIR_CLOSE_TIMEOUT_S);
			break;
		}
	}
	if (pair->n_pollers == 0)
		for (int s = 0; s < 2; s++)
			if (pair->ad[s] != NULL)
				ndk_adapter_release(pair->ad[s]);
}

static void
pair_close_qp(struct ndk_pair *pair, struct ndk_qp *qp)
{
	uint32_t done = 0;
	ndk_status_t st = ndk_close_qp(qp, close_done_cb, &done);

	if (st == NDK_STATUS_PENDING)
		pair_wait_flag(pair, &done, "QP");
	else if (st != NDK_STATUS_SUCCESS)
		PAIR_ERR("ndk_close_qp: %s", ndk_status_str(st));
}

static void
pair_close_cq(struct ndk_cq *cq)
{
	ndk_status_t st = ndk_close_cq(cq, close_ignore_cb, NULL);

	if (st != NDK_STATUS_SUCCESS && st != NDK_STATUS_PENDING)
		PAIR_ERR("ndk_close_cq: %s", ndk_status_str(st));
}

static void
pair_close_pd(struct ndk_pd *pd)
{
	ndk_status_t st = ndk_close_pd(pd, close_ignore_cb, NULL);

	if (st != NDK_STATUS_SUCCESS && st != NDK_STATUS_PENDING)
		PAIR_ERR("ndk_close_pd: %s", ndk_status_str(st));
}

/* ------------------------------------------------------------------ */
/* Pair                                                                */
/* ------------------------------------------------------------------ */

static void
drain_ring(struct rte_ring *r)
{
	void *objs[64];
	unsigned int n;

	if (r == NULL)
		return;
	while ((n = rte_ring_dequeue_burst(r, objs, RTE_DIM(objs), NULL)) != 0)
		rte_pktmbuf_free_bulk((struct rte_mbuf **)objs, n);
}

int
ndk_pair_start(struct ndk_pair *pair)
{
	int rc;

	if (pair->n_pollers != 0)
		return 0;
	if (pair->lcore_per_queue) {
		for (uint16_t k = 0; k < pair->nb_queues; k++) {
			const uint16_t q[2] = { k, k };

			rc = ndk_poller_start_queues(1 + k, pair->ad, q, 2,
						     &pair->poller[k]);
			if (rc != 0) {
				PAIR_ERR("ndk_poller_start_queues(lcore %u): %d",
					 1 + k, rc);
				ndk_pair_stop(pair);
				return rc;
			}
			pair->n_pollers = k + 1u;
		}
	} else if (pair->lcore_per_adapter) {
		rc = ndk_poller_start(1, &pair->ad[0], 1, &pair->poller[0]);
		if (rc != 0) {
			PAIR_ERR("ndk_poller_start(lcore 1): %d", rc);
			return rc;
		}
		pair->n_pollers = 1;
		rc = ndk_poller_start(2, &pair->ad[1], 1, &pair->poller[1]);
		if (rc != 0) {
			PAIR_ERR("ndk_poller_start(lcore 2): %d", rc);
			ndk_pair_stop(pair);
			return rc;
		}
		pair->n_pollers = 2;
	} else {
		rc = ndk_poller_start(1, pair->ad, 2, &pair->poller[0]);
		if (rc != 0) {
			PAIR_ERR("ndk_poller_start(lcore 1): %d", rc);
			return rc;
		}
		pair->n_pollers = 1;
	}
	return 0;
}

void
ndk_pair_stop(struct ndk_pair *pair)
{
	for (unsigned int i = 0; i < pair->n_pollers; i++) {
		ndk_poller_stop(pair->poller[i]);
		pair->poller[i] = NULL;
	}
	pair->n_pollers = 0;
}

struct ndk_pair *
ndk_pair_create(const struct ndk_pair_config *config)
{
	static const struct ndk_pair_config defaults;
	const struct ndk_pair_config *c = config != NULL ? config : &defaults;
	unsigned int ring_size = c->ring_size != 0 ? c->ring_size : 4096;
	unsigned int ring_flags = RING_F_SC_DEQ |
		(c->mp_rings ? 0 : RING_F_SP_ENQ);
	unsigned int socket = rte_socket_id() == (unsigned int)SOCKET_ID_ANY ?
		0 : rte_socket_id();
	struct ndk_pair *pair;
	char name[RTE_RING_NAMESIZE];

	pair = calloc(1, sizeof(*pair));
	if (pair == NULL)
		return NULL;
	pair->id = __atomic_fetch_add(&pair_next_id, 1, __ATOMIC_RELAXED);
	pair->max_path_mtu = c->max_path_mtu != 0 ? c->max_path_mtu : 4096;
	pair->lcore_per_adapter = c->lcore_per_adapter;
	pair->mp_rings = c->mp_rings;
	pair->nb_queues = c->nb_queues != 0 ? c->nb_queues : 1;
	pair->lcore_per_queue = c->lcore_per_queue;
	if (pair->nb_queues > NDK_PAIR_MAX_QUEUES) {
		PAIR_ERR("%u queues: at most %u", pair->nb_queues,
			 NDK_PAIR_MAX_QUEUES);
		free(pair);
		return NULL;
	}
	pair->port[0] = pair->port[1] = RTE_MAX_ETHPORTS;
	for (int s = 0; s < 2; s++) {
		unsigned int fam = c->families != 0 ? c->families :
			NDK_PAIR_IPV4;

		if (fam & NDK_PAIR_IPV4)
			pair->ipv4[s] = rte_cpu_to_be_32(RTE_IPV4(10, 0, 0,
								  s + 1));
		if (fam & NDK_PAIR_IPV6) {
			pair->ipv6[s][0] = 0xfd;      /* fd00::1, fd00::2 */
			pair->ipv6[s][15] = (uint8_t)(s + 1);
		}
	}

	for (int s = 0; s < 2; s++) {
		for (uint16_t k = 0; k < pair->nb_queues; k++) {
			snprintf(name, sizeof(name), "ndkp%u_%s%.0u", pair->id,
				 s == 0 ? "ab" : "ba", (unsigned int)k);
			pair->ring_q[s][k] = rte_ring_create(name, ring_size,
							     (int)socket,
							     ring_flags);
			if (pair->ring_q[s][k] == NULL) {
				PAIR_ERR("rte_ring_create(%u): %s", ring_size,
					 rte_strerror(rte_errno));
				goto fail;
			}
		}
	}
	pair->ring_ab = pair->ring_q[0][0];
	pair->ring_ba = pair->ring_q[1][0];

	for (int s = 0; s < 2; s++) {
		struct rte_ring *rx[NDK_PAIR_MAX_QUEUES];
		struct rte_ring *tx[NDK_PAIR_MAX_QUEUES];
		const uint16_t nq = pair->nb_queues;
		char pname[24];
		int port;

		for (uint16_t k = 0; k < nq; k++) {
			tx[k] = pair->ring_q[s][k];
			rx[k] = pair->ring_q[1 - s][c->cross_queues ?
						  (k + 1) % nq : k];
		}
		snprintf(pname, sizeof(pname), "ndkp%u%c", pair->id,
			 s == 0 ? 'A' : 'B');
		port = rte_eth_from_rings(pname, rx, nq, tx, nq, socket);
		if (port < 0) {
			PAIR_ERR("rte_eth_from_rings(%s) failed: %s", pname,
				 rte_strerror(rte_errno));
			goto fail;
		}
		/* rte_eth_from_rings() names the vdev "net_ring_<name>". */
		snprintf(pair->vdev_name[s], sizeof(pair->vdev_name[s]),
			 "net_ring_%s", pname);
		pair->port[s] = (uint16_t)port;
	}

	for (int s = 0; s < 2; s++) {
		struct ndk_adapter_config ac = {
			.provider = NULL,
			.port_id = pair->port[s],
			.configure_port = true,
			.ipv4 = pair->ipv4[s],
			.max_path_mtu = pair->max_path_mtu,
			.max_qp = c->max_qp,
			.max_cq = c->max_cq,
			.max_mr = c->max_mr,
			.mbuf_pool = NULL,
			.socket_id = SOCKET_ID_ANY,
			/* net_ring ports have no MAC: give each its own. */
			.mac = NDK_PAIR_MAC(s),
			.nb_queues = pair->nb_queues,
			.trust_link_crc = c->trust_link_crc,
			.cc = c->cc,
			.cc_line_mbps = c->cc_line_mbps,
			.cnp_interval_us = c->cnp_interval_us,
			.cc_delay_us = c->cc_delay_us,
			.cc_window_init = c->cc_window_init,
			.cc_start_mbps = c->cc_start_mbps,
		};
		uint32_t size = sizeof(pair->info[s]);
		ndk_status_t st;

		memcpy(ac.ipv6, pair->ipv6[s], sizeof(ac.ipv6));
		st = ndk_adapter_open(&ac, &pair->ad[s]);
		if (st != NDK_STATUS_SUCCESS) {
			PAIR_ERR("ndk_adapter_open(port %u, mtu %u): %s",
				 pair->port[s], pair->max_path_mtu,
				 ndk_status_str(st));
			pair->ad[s] = NULL;
			goto fail;
		}
		st = ndk_query_adapter_info(pair->ad[s], &pair->info[s], &size);
		if (st != NDK_STATUS_SUCCESS) {
			PAIR_ERR("ndk_query_adapter_info: %s",
				 ndk_status_str(st));
			goto fail;
		}
	}

	if (!c->no_pollers && ndk_pair_start(pair) != 0)
		goto fail;
	return pair;
fail:
	ndk_pair_destroy(pair);
	return NULL;
}

/* Most counters ndk_pair_print_stats() prints. */
#define PAIR_XSTATS_MAX 256

void
ndk_pair_print_stats(const struct ndk_pair *pair, const char *indent)
{
	static struct ndk_xstat_name names[PAIR_XSTATS_MAX];
	struct ndk_xstat v[2][PAIR_XSTATS_MAX];
	int n = 0;

	memset(v, 0, sizeof(v));
	for (int s = 0; s < 2; s++) {
		int k;

		if (pair->ad[s] == NULL)
			continue;
		k = ndk_adapter_xstats_get_names(pair->ad[s], names,
						 PAIR_XSTATS_MAX);
		if (k < 0 || k > PAIR_XSTATS_MAX ||
		    ndk_adapter_xstats_get(pair->ad[s], v[s],
					   (unsigned int)k) != k)
			continue;
		n = k;
	}
	printf("%s%-22s %16s %16s\n", indent, "counter", "adapter A",
	       "adapter B");
	for (int i = 0; i < n; i++) {
		if (v[0][i].value == 0 && v[1][i].value == 0)
			continue;
		printf("%s%-22s %16" PRIu64 " %16" PRIu64 "\n", indent,
		       names[i].name, v[0][i].value, v[1][i].value);
	}
}

static void
pair_conn_close_qps(struct ndk_pair_conn *conn)
{
	for (int s = 0; s < 2; s++) {
		if (conn->qp[s] != NULL)
			pair_close_qp(conn->pair, conn->qp[s]);
		conn->qp[s] = NULL;
	}
}

void
ndk_pair_destroy(struct ndk_pair *pair)
{
	if (pair == NULL)
		return;
	ndk_pair_stop(pair);

	/* QPs first (no more DMA), then memory, then CQs and PDs. */
	for (struct ndk_pair_conn *c = pair->conns; c != NULL; c = c->next)
		pair_conn_close_qps(c);
	while (pair->bufs != NULL)
		ndk_pair_buf_free(pair->bufs);
	while (pair->conns != NULL)
		ndk_pair_conn_destroy(pair->conns);

	/*
	 * Frames still in the rings come from the adapters' pools: free them
	 * while the pools exist.
	 */
	for (int s = 0; s < 2; s++)
		for (uint16_t k = 0; k < pair->nb_queues; k++)
			drain_ring(pair->ring_q[s][k]);

	for (int s = 0; s < 2; s++) {
		if (pair->ad[s] != NULL)
			ndk_adapter_close(pair->ad[s]);
		pair->ad[s] = NULL;
	}

	/*
	 * The ports are ours (we made them); an adapter close leaves a port
	 * it configured as it is, or may have stopped it. Stop it if it is
	 * still there, then remove the vdev, which closes the port. The ring
	 * PMD does not free rings it was given.
	 */
	for (int s = 0; s < 2; s++) {
		uint16_t port = pair->port[s];

		if (port >= RTE_MAX_ETHPORTS)
			continue;
		if (rte_eth_dev_is_valid_port(port)) {
			int rc = rte_eth_dev_stop(port);

			if (rc != 0 && rc != -EINVAL)
				PAIR_ERR("rte_eth_dev_stop(%u): %d", port, rc);
			if (rte_vdev_uninit(pair->vdev_name[s]) != 0 &&
			    rte_eth_dev_is_valid_port(port))
				rte_eth_dev_close(port);
		}
		pair->port[s] = RTE_MAX_ETHPORTS;
	}

	for (int r = 0; r < 2 * NDK_PAIR_MAX_QUEUES; r++) {
		struct rte_ring *ring = pair->ring_q[r & 1][r >> 1];

		if (ring == NULL)
			continue;
		if (rte_ring_count(ring) != 0)
			/* Their pool may be gone: leak rather than crash. */
			PAIR_ERR("%u frames left in ring %s after close",
				 rte_ring_count(ring), ring->name);
		else
			rte_ring_free(ring);
	}
	free(pair);
}

/* ------------------------------------------------------------------ */
/* Connections                                                         */
/* ------------------------------------------------------------------ */

ndk_status_t
ndk_pair_connect(struct ndk_pair_conn *conn, int side)
{
	const struct ndk_pair *pair = conn->pair;
	const struct ndk_pair_conn_opts *o = &conn->opts;
	int peer = 1 - side;
	struct ndk_qp_attr a;

	memset(&a, 0, sizeof(a));
	if (o->ipv6)
		memcpy(a.dest_ip6, pair->ipv6[peer], sizeof(a.dest_ip6));
	else
		a.dest_ip = pair->ipv4[peer];
	if (!o->resolve_mac)
		memcpy(a.dest_mac, pair->info[peer].mac, sizeof(a.dest_mac));
	a.dest_qpn = conn->qpn[peer];
	a.rq_psn = conn->sq_psn[peer];
	a.sq_psn = conn->sq_psn[side];
	a.path_mtu = conn->path_mtu;
	a.timeout = o->timeout;
	a.retry_cnt = o->retry_cnt;
	a.rnr_retry = o->rnr_retry;
	a.min_rnr_timer = o->min_rnr_timer;
	a.max_rd_atomic = o->max_rd_atomic;
	a.max_dest_rd_atomic = o->max_dest_rd_atomic;
	a.selective_repeat = o->selective_repeat;
	return ndk_qp_connect(conn->qp[side], &a);
}

struct ndk_pair_conn *
ndk_pair_conn_create(struct ndk_pair *pair,
		     const struct ndk_pair_conn_opts *opts, ndk_status_t *stp)
{
	static const struct ndk_pair_conn_opts defaults;
	struct ndk_pair_conn *conn;
	struct ndk_pair_conn_opts *o;
	ndk_status_t st = NDK_STATUS_SUCCESS;
	const char *what = "";

	conn = calloc(1, sizeof(*conn));
	if (conn == NULL) {
		if (stp != NULL)
			*stp = NDK_STATUS_NO_MEMORY;
		return NULL;
	}
	conn->pair = pair;
	conn->opts = opts != NULL ? *opts : defaults;
	o = &conn->opts;
	if (o->rq_depth == 0)
		o->rq_depth = 64;
	if (o->sq_depth == 0)
		o->sq_depth = 64;
	if (o->max_rsge == 0)
		o->max_rsge = 4;
	if (o->max_isge == 0)
		o->max_isge = 4;
	if (o->cq_depth == 0)
		o->cq_depth = o->rq_depth + o->sq_depth;
	conn->path_mtu = o->path_mtu != 0 ? o->path_mtu : pair->max_path_mtu;
	conn->next = pair->conns;
	pair->conns = conn;

	for (int s = 0; s < 2; s++) {
		void *qctx = o->qp_ctx[s] != NULL ? o->qp_ctx[s] : conn;

		if (o->pd[s] != NULL) {
			conn->pd[s] = o->pd[s];
		} else {
			what = "ndk_create_pd";
			st = ndk_create_pd(pair->ad[s], &conn->pd[s]);
			if (st != NDK_STATUS_SUCCESS) {
				conn->pd[s] = NULL;
				goto fail;
			}
			conn->own_pd[s] = true;
		}
		what = "ndk_create_cq";
		st = ndk_create_cq(pair->ad[s], o->cq_depth, o->notify,
				   o->notify_ctx[s], &conn->rcq[s]);
		if (st != NDK_STATUS_SUCCESS) {
			conn->rcq[s] = NULL;
			goto fail;
		}
		if (o->shared_cq) {
			conn->icq[s] = conn->rcq[s];
		} else {
			st = ndk_create_cq(pair->ad[s], o->cq_depth, o->notify,
					   o->notify_ctx[s], &conn->icq[s]);
			if (st != NDK_STATUS_SUCCESS) {
				conn->icq[s] = NULL;
				goto fail;
			}
		}
		what = "ndk_create_qp";
		if (o->srq[s] != NULL)
			st = ndk_create_qp_with_srq(conn->pd[s], conn->rcq[s],
						    conn->icq[s], o->srq[s],
						    qctx, o->sq_depth,
						    o->max_isge,
						    o->inline_size,
						    &conn->qp[s]);
		else
			st = ndk_create_qp(conn->pd[s], conn->rcq[s],
					   conn->icq[s], qctx, o->rq_depth,
					   o->sq_depth, o->max_rsge,
					   o->max_isge, o->inline_size,
					   &conn->qp[s]);
		if (st != NDK_STATUS_SUCCESS) {
			conn->qp[s] = NULL;
			goto fail;
		}
		conn->qpn[s] = ndk_qp_num(conn->qp[s]);
		conn->sq_psn[s] = o->fixed_psn ?
			(o->sq_psn[s] & 0xFFFFFFu) :
			(uint32_t)(rte_rand() & 0xFFFFFFu);
	}
	if (!o->no_connect) {
		what = "ndk_qp_connect";
		for (int s = 0; s < 2; s++) {
			st = ndk_pair_connect(conn, s);
			if (st != NDK_STATUS_SUCCESS)
				goto fail;
		}
	}
	if (stp != NULL)
		*stp = NDK_STATUS_SUCCESS;
	return conn;
fail:
	PAIR_ERR("%s: %s", what, ndk_status_str(st));
	if (stp != NULL)
		*stp = st;
	ndk_pair_conn_destroy(conn);
	return NULL;
}

void
ndk_pair_conn_destroy(struct ndk_pair_conn *conn)
{
	struct ndk_pair *pair;

	if (conn == NULL)
		return;
	pair = conn->pair;
	for (struct ndk_pair_conn **pp = &pair->conns; *pp != NULL;
	     pp = &(*pp)->next) {
		if (*pp == conn) {
			*pp = conn->next;
			break;
		}
	}
	pair_conn_close_qps(conn);
	for (int s = 0; s < 2; s++) {
		if (conn->icq[s] != NULL && conn->icq[s] != conn->rcq[s])
			pair_close_cq(conn->icq[s]);
		if (conn->rcq[s] != NULL)
			pair_close_cq(conn->rcq[s]);
		if (conn->pd[s] != NULL && conn->own_pd[s])
			pair_close_pd(conn->pd[s]);
	}
	free(conn);
}

/* ------------------------------------------------------------------ */
/* Buffers                                                             */
/* ------------------------------------------------------------------ */

struct ndk_pair_buf *
ndk_pair_buf_alloc(struct ndk_pair *pair, struct ndk_pd *pd, size_t len,
		   uint32_t mr_flags)
{
	struct ndk_pair_buf *b;
	ndk_status_t st;

	b = calloc(1, sizeof(*b));
	if (b == NULL)
		return NULL;
	b->pair = pair;
	b->len = len;
	b->base = rte_zmalloc("ndk_pair_buf", len + 2 * NDK_PAIR_GUARD,
			      RTE_CACHE_LINE_SIZE);
	if (b->base == NULL) {
		PAIR_ERR("rte_zmalloc(%zu) failed", len + 2 * NDK_PAIR_GUARD);
		free(b);
		return NULL;
	}
	b->data = b->base + NDK_PAIR_GUARD;
	memset(b->base, NDK_PAIR_GUARD_BYTE, NDK_PAIR_GUARD);
	memset(b->data + len, NDK_PAIR_GUARD_BYTE, NDK_PAIR_GUARD);
	b->next = pair->bufs;
	pair->bufs = b;

	if (len == 0 || mr_flags == UINT32_MAX || pd == NULL)
		return b;
	st = ndk_create_mr(pd, false, &b->mr);
	if (st != NDK_STATUS_SUCCESS) {
		PAIR_ERR("ndk_create_mr: %s", ndk_status_str(st));
		b->mr = NULL;
		ndk_pair_buf_free(b);
		return NULL;
	}
	st = ndk_register_mr(b->mr, b->data, len, mr_flags);
	if (st != NDK_STATUS_SUCCESS) {
		PAIR_ERR("ndk_register_mr(%zu bytes, flags 0x%x): %s", len,
			 mr_flags, ndk_status_str(st));
		ndk_pair_buf_free(b);
		return NULL;
	}
	b->ltoken = ndk_mr_local_token(b->mr);
	b->rtoken = ndk_mr_remote_token(b->mr);
	return b;
}

void
ndk_pair_buf_free(struct ndk_pair_buf *b)
{
	if (b == NULL)
		return;
	for (struct ndk_pair_buf **pp = &b->pair->bufs; *pp != NULL;
	     pp = &(*pp)->next) {
		if (*pp == b) {
			*pp = b->next;
			break;
		}
	}
	if (b->mr != NULL) {
		uint32_t done = 0;
		ndk_status_t st = ndk_close_mr(b->mr, close_done_cb, &done);

		/* The memory is freed below: wait until nobody can use it. */
		if (st == NDK_STATUS_PENDING)
			pair_wait_flag(b->pair, &done, "MR");
		else if (st != NDK_STATUS_SUCCESS)
			PAIR_ERR("ndk_close_mr: %s", ndk_status_str(st));
	}
	rte_free(b->base);
	free(b);
}

bool
ndk_pair_buf_guards_ok(const struct ndk_pair_buf *b)
{
	for (size_t i = 0; i < NDK_PAIR_GUARD; i++)
		if (b->base[i] != NDK_PAIR_GUARD_BYTE ||
		    b->data[b->len + i] != NDK_PAIR_GUARD_BYTE)
			return false;
	return true;
}
