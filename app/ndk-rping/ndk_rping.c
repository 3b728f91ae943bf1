/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * ndk-rping: rdma-core's rping on an ndk-roce adapter, connected through
 * NDK connectors and listeners (rping.h). With two or more lcores a poller
 * runs the adapter on the first worker; with one the main thread polls it
 * while it waits.
 */

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "ndk_app_port.h"
#include "ndk_app_xstats.h"
#include "rping.h"

#define RP_LINK_S 20
#define RP_LINGER_MS 500      /* idle, not polling, before the port closes */
#define RP_PEER_GONE_MS 3000  /* a memif server, at most, for its client to close */

/* Completion kinds rp_wait() waits for. */
enum {
	RP_SEND = 1u << 0,
	RP_RECV = 1u << 1,
	RP_READ = 1u << 2,
	RP_WRITE = 1u << 3,
};

/* rp_wait(): the peer disconnected while we waited. */
#define RP_GONE 1

struct rp_buf {
	uint8_t *p;
	size_t len;
	struct ndk_mr *mr;
	uint32_t ltoken, rtoken;
};

struct rp_req {
	int done;
	ndk_status_t st;
};

struct rp_ctx {
	struct rp_opts o;
	struct ndk_adapter *ad;
	struct ndk_adapter_info info;
	struct ndk_poller *poller;
	struct ndk_pd *pd;
	struct ndk_cq *cq;
	struct ndk_qp *qp;
	struct ndk_listener *lis;
	struct ndk_connector *conn;
	struct ndk_connector *incoming;   /* set by the connect event */
	struct rp_req req;
	int disconnected;                 /* disconnect event fired */
	struct rp_buf recv, send, start, rdma;
	uint32_t got;                     /* RP_* completions seen */
	uint32_t recv_len;
	int probing;                      /* a liveness probe is posted */
};

#define DBG(c, ...) do { if ((c)->o.debug) printf(__VA_ARGS__); } while (0)

/* ------------------------------------------------------------------ */
/* Callbacks (polling thread) and waiting                              */
/* ------------------------------------------------------------------ */

static void
rp_req_done(void *ctx, ndk_status_t st)
{
	struct rp_req *r = ctx;

	r->st = st;
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
}

static void
rp_disconnect_event(void *ctx, uint32_t reason)
{
	struct rp_ctx *c = ctx;

	RTE_SET_USED(reason);
	__atomic_store_n(&c->disconnected, 1, __ATOMIC_RELEASE);
}

static void
rp_connect_event(void *ctx, struct ndk_connector *conn)
{
	struct rp_ctx *c = ctx;

	/*
	 * One connection at a time, and with -P one more waiting (its REQ is
	 * held: the CM answers its retransmissions with an MRA); refuse
	 * others.
	 */
	if (__atomic_load_n(&c->incoming, __ATOMIC_ACQUIRE) != NULL ||
	    (!c->o.persistent && c->conn != NULL)) {
		ndk_close_connector(conn, NULL, NULL);
		return;
	}
	__atomic_store_n(&c->incoming, conn, __ATOMIC_RELEASE);
}

static void
rp_poll(struct rp_ctx *c)
{
	if (c->poller == NULL)
		ndk_adapter_poll(c->ad);
	else
		rte_pause();
}

static bool
rp_expired(uint64_t t0)
{
	return rte_get_timer_cycles() - t0 > RP_WAIT_S * rte_get_timer_hz();
}

/* Start a request with rp_req; wait for its completion status. */
static ndk_status_t
rp_wait_req(struct rp_ctx *c, ndk_status_t st, const char *what)
{
	uint64_t t0 = rte_get_timer_cycles();

	if (st != NDK_STATUS_PENDING) {
		fprintf(stderr, "%s: %s\n", what, ndk_status_str(st));
		return st;
	}
	while (!__atomic_load_n(&c->req.done, __ATOMIC_ACQUIRE)) {
		if (rp_expired(t0)) {
			fprintf(stderr, "%s: no answer in %d s\n", what,
				RP_WAIT_S);
			return NDK_STATUS_IO_TIMEOUT;
		}
		rp_poll(c);
	}
	c->req.done = 0;
	if (c->req.st != NDK_STATUS_SUCCESS)
		fprintf(stderr, "%s: %s\n", what, ndk_status_str(c->req.st));
	DBG(c, "%s: %s\n", what, ndk_status_str(c->req.st));
	return c->req.st;
}

/*
 * Server, waiting for its client's next message: the client has been
 * silent for RP_IDLE_S. rping sends its disconnect request once and goes;
 * if it was lost, nothing else would ever end this connection (rping.h,
 * RP_IDLE_S).
 */
static bool
rp_idle(uint64_t t0)
{
	return rte_get_timer_cycles() - t0 > RP_IDLE_S * rte_get_timer_hz();
}

/* The request context of the liveness probe's completion. */
static char rp_probe_ctx;

/* Ask the client's QP whether it is still there (rping.h, RP_IDLE_S). */
static int
rp_probe(struct rp_ctx *c)
{
	ndk_status_t st;

	st = ndk_write(c->qp, &rp_probe_ctx, NULL, 0, 0, 0, 0);
	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "post the liveness probe: %s\n",
			ndk_status_str(st));
		return -1;
	}
	c->probing = 1;
	DBG(c, "client silent for %d s: probing its QP\n", RP_IDLE_S);
	return 0;
}

/*
 * Wait until every completion kind in @p need has been seen once. Ends
 * on the peer's disconnect and on a failed QP, never waits longer than
 * RP_WAIT_S, or RP_PROBE_S for a liveness probe's answer. @p watch: the
 * peer may end the connection here (the server between two pings, probing
 * a silent client: rping.h, RP_IDLE_S): that is RP_GONE, not an error.
 * @return 0, RP_GONE (only when @p watch), or -1 (reason printed).
 */
static int
rp_wait(struct rp_ctx *c, uint32_t need, bool watch)
{
	uint64_t t0 = rte_get_timer_cycles(), t_idle = t0, t_probe = t0;
	struct ndk_result_ex r;

	while ((c->got & need) != need) {
		if (ndk_get_cq_results_ex(c->cq, &r, 1) == 0) {
			if (__atomic_load_n(&c->disconnected,
					    __ATOMIC_ACQUIRE)) {
				if (watch)
					return RP_GONE;
				fprintf(stderr, "the peer disconnected\n");
				return -1;
			}
			if (watch && rp_idle(t_idle) &&
			    __atomic_load_n(&c->incoming, __ATOMIC_ACQUIRE)) {
				fprintf(stderr, "client silent for %d s while "
					"another waits: taken as gone\n",
					RP_IDLE_S);
				return RP_GONE;
			}
			if (watch && rp_idle(t_idle) && !c->probing) {
				if (rp_probe(c) != 0)
					return -1;
				t_probe = rte_get_timer_cycles();
			}
			if (c->probing && rte_get_timer_cycles() - t_probe >
			    RP_PROBE_S * rte_get_timer_hz()) {
				fprintf(stderr, "the liveness probe got no "
					"answer in %d s\n", RP_PROBE_S);
				return -1;
			}
			if (!c->probing && rp_expired(t0)) {
				fprintf(stderr, "no completion in %d s\n",
					RP_WAIT_S);
				return -1;
			}
			rp_poll(c);
			continue;
		}
		if (r.request_context == &rp_probe_ctx) {
			c->probing = 0;
			if (r.status == NDK_STATUS_SUCCESS) {
				DBG(c, "the client's QP answered the probe\n");
				t_idle = rte_get_timer_cycles();
				continue;
			}
			if (!watch)
				fprintf(stderr, "liveness probe failed: %s\n",
					ndk_status_str(r.status));
			else
				fprintf(stderr, "client silent for %d s and "
					"its QP gone (probe: %s): taken as "
					"disconnected\n", RP_IDLE_S,
					ndk_status_str(r.status));
			return watch ? RP_GONE : -1;
		}
		if (r.status != NDK_STATUS_SUCCESS) {
			if (watch && r.status == NDK_STATUS_CANCELLED)
				return RP_GONE;
			fprintf(stderr, "cq completion failed status %s "
				"(type %d, provider error %#x)\n",
				ndk_status_str(r.status), (int)r.type,
				r.provider_error);
			fprintf(stderr, "%s\n",
				r.status == NDK_STATUS_CANCELLED ?
				"the connection ended (QP flushed)" :
				"the QP failed");
			return -1;
		}
		switch (r.type) {
		case NDK_OP_SEND:
			c->got |= RP_SEND;
			break;
		case NDK_OP_RECEIVE:
			c->got |= RP_RECV;
			c->recv_len = r.bytes_transferred;
			break;
		case NDK_OP_READ:
			c->got |= RP_READ;
			break;
		case NDK_OP_WRITE:
			c->got |= RP_WRITE;
			break;
		default:
			break;
		}
		DBG(c, "cq completion type %d\n", (int)r.type);
	}
	c->got &= ~need;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Resources                                                           */
/* ------------------------------------------------------------------ */

static int
rp_buf_init(struct rp_ctx *c, struct rp_buf *b, size_t len, uint32_t flags)
{
	ndk_status_t st;

	b->len = len;
	b->p = rte_zmalloc("rping", len, 64);
	if (b->p == NULL)
		return -1;
	st = ndk_create_mr(c->pd, false, &b->mr);
	if (st == NDK_STATUS_SUCCESS)
		st = ndk_register_mr(b->mr, b->p, len, flags);
	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "register %zu bytes: %s\n", len,
			ndk_status_str(st));
		return -1;
	}
	b->ltoken = ndk_mr_local_token(b->mr);
	b->rtoken = ndk_mr_remote_token(b->mr);
	return 0;
}

static void
rp_buf_fini(struct rp_buf *b)
{
	if (b->mr != NULL) {
		ndk_deregister_mr(b->mr);
		ndk_close_mr(b->mr, NULL, NULL);
	}
	rte_free(b->p);
	memset(b, 0, sizeof(*b));
}

static int
rp_open(struct rp_ctx *c)
{
	struct ndk_adapter_config cfg = {
		.port_id = c->o.port_id,
		.configure_port = true,
		.ipv4 = c->o.ipv4,
		.max_path_mtu = c->o.mtu,
		.socket_id = SOCKET_ID_ANY,
	};
	const uint32_t lw = NDK_MR_FLAG_ALLOW_LOCAL_WRITE;
	uint32_t isize = sizeof(c->info);
	unsigned int lcore;
	ndk_status_t st;

	memcpy(cfg.ipv6, c->o.ipv6, sizeof(cfg.ipv6));
	st = ndk_adapter_open(&cfg, &c->ad);
	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "open adapter on port %u: %s\n",
			c->o.port_id, ndk_status_str(st));
		c->ad = NULL;
		return -1;
	}
	if (ndk_query_adapter_info(c->ad, &c->info, &isize) !=
	    NDK_STATUS_SUCCESS)
		return -1;
	lcore = rte_get_next_lcore(-1, 1, 0);
	if (lcore < RTE_MAX_LCORE &&
	    ndk_poller_start(lcore, &c->ad, 1, &c->poller) != 0) {
		fprintf(stderr, "cannot start a poller on lcore %u\n", lcore);
		return -1;
	}
	if (ndk_create_pd(c->ad, &c->pd) != NDK_STATUS_SUCCESS ||
	    ndk_create_cq(c->ad, 16, NULL, NULL, &c->cq) !=
	    NDK_STATUS_SUCCESS)
		return -1;
	if (rp_buf_init(c, &c->recv, sizeof(struct rp_info), lw) != 0 ||
	    rp_buf_init(c, &c->send, sizeof(struct rp_info), 0) != 0 ||
	    rp_buf_init(c, &c->start, c->o.size,
			lw | NDK_MR_FLAG_ALLOW_REMOTE_READ) != 0 ||
	    rp_buf_init(c, &c->rdma, c->o.size,
			lw | NDK_MR_FLAG_ALLOW_REMOTE_WRITE |
			NDK_MR_FLAG_RDMA_READ_SINK) != 0)
		return -1;
	return 0;
}

/* A fresh QP (a disconnected one cannot be reused). */
static int
rp_new_qp(struct rp_ctx *c)
{
	ndk_status_t st;

	st = ndk_create_qp(c->pd, c->cq, c->cq, c, 4, 4, 1, 1, 0, &c->qp);
	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "create QP: %s\n", ndk_status_str(st));
		c->qp = NULL;
		return -1;
	}
	c->got = 0;
	c->probing = 0;
	c->disconnected = 0;
	return 0;
}

/* Disconnect, drain flushed completions, close the QP and connector. */
static int
rp_hang_up(struct rp_ctx *c)
{
	struct ndk_result_ex r;
	int rc = 0;

	if (c->conn != NULL) {
		if (rp_wait_req(c, ndk_disconnect(c->conn, rp_req_done,
						  &c->req), "disconnect") !=
		    NDK_STATUS_SUCCESS)
			rc = -1;
		ndk_close_connector(c->conn, NULL, NULL);
		c->conn = NULL;
	}
	if (c->qp != NULL) {
		ndk_close_qp(c->qp, NULL, NULL);
		c->qp = NULL;
	}
	while (ndk_get_cq_results_ex(c->cq, &r, 1) != 0)
		;
	return rc;
}

/* -d: the adapter's non-zero counters. */
static void
rp_print_counters(const struct rp_ctx *c)
{
	printf("adapter counters (non-zero):\n");
	ndk_app_print_xstats(stdout, c->ad, NULL, "  ", 20, 12, false);
}

static void
rp_close(struct rp_ctx *c)
{
	if (c->ad == NULL)
		return;
	if (c->o.debug)
		rp_print_counters(c);
	if (c->lis != NULL)
		ndk_close_listener(c->lis, NULL, NULL);
	rp_buf_fini(&c->recv);
	rp_buf_fini(&c->send);
	rp_buf_fini(&c->start);
	rp_buf_fini(&c->rdma);
	if (c->cq != NULL)
		ndk_close_cq(c->cq, NULL, NULL);
	if (c->pd != NULL)
		ndk_close_pd(c->pd, NULL, NULL);
	if (c->poller != NULL)
		ndk_poller_stop(c->poller);
	/*
	 * Stop polling, then give the peer time to stop too before the port
	 * closes: on a shared-memory link (memif) a port that closes while
	 * the other side still busy-polls can crash that side (DPDK 22.11).
	 */
	rte_delay_us_sleep(RP_LINGER_MS * 1000);
	/* A memif server closes after its client (ndk_app_port.h). */
	if (c->o.server)
		ndk_app_memif_wait_peer_gone(c->o.port_id, RP_PEER_GONE_MS,
					     RP_LINGER_MS / 5);
	ndk_adapter_close(c->ad);
}

/* ------------------------------------------------------------------ */
/* Posting                                                             */
/* ------------------------------------------------------------------ */

static int
rp_post_recv(struct rp_ctx *c)
{
	struct ndk_sge s = { c->recv.p, sizeof(struct rp_info),
			     c->recv.ltoken };

	return ndk_receive(c->qp, NULL, &s, 1) == NDK_STATUS_SUCCESS ? 0 : -1;
}

/* SEND an rp_info describing @p b (or a zero "go" when NULL). */
static int
rp_post_send(struct rp_ctx *c, const struct rp_buf *b)
{
	struct rp_info *m = (struct rp_info *)c->send.p;
	struct ndk_sge s = { c->send.p, sizeof(*m), c->send.ltoken };

	memset(m, 0, sizeof(*m));
	if (b != NULL) {
		m->buf = rte_cpu_to_be_64((uint64_t)(uintptr_t)b->p);
		m->rkey = rte_cpu_to_be_32(b->rtoken);
		m->size = rte_cpu_to_be_32((uint32_t)b->len);
	}
	return ndk_send(c->qp, NULL, &s, 1, 0) == NDK_STATUS_SUCCESS ? 0 : -1;
}

/* The peer's rp_info from the last receive. */
static int
rp_take_info(struct rp_ctx *c, struct rp_info *info)
{
	const struct rp_info *m = (const struct rp_info *)c->recv.p;

	if (c->recv_len != sizeof(*m)) {
		fprintf(stderr, "Received bogus data, size %u\n", c->recv_len);
		return -1;
	}
	info->buf = rte_be_to_cpu_64(m->buf);
	info->rkey = rte_be_to_cpu_32(m->rkey);
	info->size = rte_be_to_cpu_32(m->size);
	DBG(c, "Received rkey %x addr %" PRIx64 " len %u from peer\n",
	    info->rkey, info->buf, info->size);
	return rp_post_recv(c);
}

/* ------------------------------------------------------------------ */
/* Client                                                              */
/* ------------------------------------------------------------------ */

/* rping's ping data: the header, then letters from 'A' + ping. */
static void
rp_fill(struct rp_ctx *c, uint32_t ping)
{
	char *b = (char *)c->start.p;
	int n = snprintf(b, c->o.size, RP_MSG_FMT, (int)ping);
	int ch = 65 + (int)(ping % 58);

	for (uint32_t i = (uint32_t)n; i < c->o.size; i++) {
		b[i] = (char)ch;
		if (++ch > 122)
			ch = 65;
	}
	b[c->o.size - 1] = 0;
}

/*
 * The -a address (@p any: the wildcard of its family) with @p port in @p a.
 * Without -a (a server): IPv6's wildcard on an adapter with IPv6 (it takes
 * both families), else IPv4's. @return the sockaddr's length.
 */
static socklen_t
rp_sockaddr(const struct rp_opts *o, union ndk_sockaddr *a, uint16_t port,
	    bool any)
{
	bool v6 = o->addr_v6 || (o->addr == 0 && o->ipv6_set);

	memset(a, 0, sizeof(*a));
	if (v6) {
		a->sin6.sin6_family = AF_INET6;
		if (!any && o->addr_v6)
			memcpy(&a->sin6.sin6_addr, o->addr6, 16);
		a->sin6.sin6_port = htons(port);
		return sizeof(a->sin6);
	}
	a->sin.sin_family = AF_INET;
	a->sin.sin_addr.s_addr = any ? 0 : o->addr;
	a->sin.sin_port = htons(port);
	return sizeof(a->sin);
}

static int
rp_client(struct rp_ctx *c)
{
	union ndk_sockaddr src, dst;
	uint32_t ird = RTE_MIN(1u, c->info.max_inbound_read_limit);
	socklen_t len;
	ndk_status_t st;

	/* From our address of the server's family (any: the adapter's). */
	len = rp_sockaddr(&c->o, &dst, c->o.port, false);
	rp_sockaddr(&c->o, &src, 0, true);
	if (rp_new_qp(c) != 0 || rp_post_recv(c) != 0 ||
	    ndk_create_connector(c->ad, &c->conn) != NDK_STATUS_SUCCESS)
		return -1;
	st = ndk_connect(c->conn, c->qp, &src.sa, len, &dst.sa, len, ird, ird,
			 NULL, 0, rp_req_done, &c->req);
	if (rp_wait_req(c, st, "connect") != NDK_STATUS_SUCCESS)
		return -1;
	st = ndk_complete_connect(c->conn, rp_disconnect_event, c,
				  rp_req_done, &c->req);
	if (rp_wait_req(c, st, "complete connect") != NDK_STATUS_SUCCESS)
		return -1;

	for (uint32_t ping = 0; c->o.count == 0 || ping < c->o.count;
	     ping++) {
		rp_fill(c, ping);
		/* Advertise the source; the server READs it and says go. */
		if (rp_post_send(c, &c->start) != 0 ||
		    rp_wait(c, RP_SEND | RP_RECV, false) != 0 ||
		    rp_post_recv(c) != 0)
			return -1;
		/* Advertise the sink; the server WRITEs it and says go. */
		memset(c->rdma.p, 0, c->rdma.len);
		if (rp_post_send(c, &c->rdma) != 0 ||
		    rp_wait(c, RP_SEND | RP_RECV, false) != 0 ||
		    rp_post_recv(c) != 0)
			return -1;
		if (c->o.validate &&
		    memcmp(c->start.p, c->rdma.p, c->o.size) != 0) {
			fprintf(stderr, "data mismatch!\n");
			return -1;
		}
		if (c->o.verbose)
			printf("ping data: %s\n", (char *)c->rdma.p);
	}
	return rp_hang_up(c);
}

/* ------------------------------------------------------------------ */
/* Server                                                              */
/* ------------------------------------------------------------------ */

/* One RDMA op of @p len bytes of rdma_buf against the peer's @p info. */
static int
rp_rdma(struct rp_ctx *c, bool write, const struct rp_info *info,
	uint32_t len)
{
	struct ndk_sge s = { c->rdma.p, len, c->rdma.ltoken };
	ndk_status_t st;

	st = write ? ndk_write(c->qp, NULL, &s, 1, info->buf, info->rkey, 0) :
		ndk_read(c->qp, NULL, &s, 1, info->buf, info->rkey, 0);
	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "post %s: %s\n", write ? "write" : "read",
			ndk_status_str(st));
		return -1;
	}
	return rp_wait(c, write ? RP_WRITE : RP_READ, false);
}

/* Serve one connected client until it disconnects. */
static int
rp_serve(struct rp_ctx *c)
{
	struct rp_info info;
	int rc;

	for (;;) {
		/* The client's source: READ it, say go. */
		rc = rp_wait(c, RP_RECV, true);
		if (rc == RP_GONE)
			return 0;
		if (rc != 0 || rp_take_info(c, &info) != 0)
			return -1;
		if (info.size > c->o.size) {
			fprintf(stderr, "client buffer %u > -S %u\n",
				info.size, c->o.size);
			return -1;
		}
		if (rp_rdma(c, false, &info, info.size) != 0)
			return -1;
		if (c->o.verbose)
			printf("server ping data: %s\n", (char *)c->rdma.p);
		if (rp_post_send(c, NULL) != 0 ||
		    rp_wait(c, RP_SEND, false) != 0)
			return -1;
		/* The client's sink: WRITE the data back, say go. */
		rc = rp_wait(c, RP_RECV, true);
		if (rc == RP_GONE)
			return 0;
		if (rc != 0 || rp_take_info(c, &info) != 0)
			return -1;
		if (rp_rdma(c, true, &info,
			    RTE_MIN((uint32_t)strnlen((char *)c->rdma.p,
						      c->o.size - 1) + 1,
				    info.size)) != 0 ||
		    rp_post_send(c, NULL) != 0)
			return -1;
		/*
		 * The ping's last message: the client may take it and
		 * disconnect before its ACK reaches us (rxe completes the
		 * receive before it sends the ACK), so our SEND is flushed.
		 * The client judges the ping; for us that is the end.
		 */
		rc = rp_wait(c, RP_SEND, true);
		if (rc == RP_GONE)
			return 0;
		if (rc != 0)
			return -1;
	}
}

static int
rp_server(struct rp_ctx *c)
{
	union ndk_sockaddr a;
	socklen_t len = rp_sockaddr(&c->o, &a, c->o.port, false);
	ndk_status_t st;

	if (ndk_create_listener(c->ad, rp_connect_event, c, &c->lis) !=
	    NDK_STATUS_SUCCESS)
		return -1;
	st = ndk_listen(c->lis, &a.sa, len);
	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "listen on port %u: %s\n", c->o.port,
			ndk_status_str(st));
		return -1;
	}
	do {
		struct ndk_connector *in;
		uint32_t ird = c->info.max_inbound_read_limit;
		uint32_t ord = c->info.max_outbound_read_limit;

		/* A server waits for its next client as long as it runs. */
		while ((in = __atomic_load_n(&c->incoming,
					     __ATOMIC_ACQUIRE)) == NULL)
			rp_poll(c);
		c->conn = in;
		__atomic_store_n(&c->incoming, NULL, __ATOMIC_RELEASE);
		if (rp_new_qp(c) != 0 || rp_post_recv(c) != 0)
			return -1;
		/* Take the limits the request offers, within ours. */
		ndk_get_connection_data(in, &ird, &ord, NULL,
					&(uint32_t){ 0 });
		st = ndk_accept(in, c->qp, ird, ord, NULL, 0,
				rp_disconnect_event, c, rp_req_done, &c->req);
		/* -P: a client lost (handshake, QP, silence): the next one. */
		if (rp_wait_req(c, st, "accept") != NDK_STATUS_SUCCESS ||
		    rp_serve(c) != 0) {
			if (!c->o.persistent)
				return -1;
			fprintf(stderr, "client lost: serving the next one\n");
		} else {
			DBG(c, "client disconnected\n");
		}
		if (rp_hang_up(c) != 0 && !c->o.persistent)
			return -1;
	} while (c->o.persistent);
	return 0;
}

/* ------------------------------------------------------------------ */
/* main                                                                */
/* ------------------------------------------------------------------ */

static int
rp_wait_link(const struct rp_ctx *c)
{
	struct rte_eth_link link;

	for (int i = 0; i < RP_LINK_S * 100; i++) {
		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(c->o.port_id, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_UP)
			return 0;
		rte_delay_us_sleep(10000);
	}
	fprintf(stderr, "port %u: link down after %d s\n", c->o.port_id,
		RP_LINK_S);
	return -1;
}

int
main(int argc, char **argv)
{
	struct rp_ctx c;
	int n, rc;

	memset(&c, 0, sizeof(c));
	n = rte_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "ndk-rping: EAL init failed\n");
		return 1;
	}
	argv[n] = argv[0];
	rc = rp_parse_args(argc - n, argv + n, &c.o);
	if (rc != 0) {
		rte_eal_cleanup();
		return rc == 2 ? 0 : 1;
	}
	rc = rp_open(&c);
	if (rc == 0 && !c.o.server)
		rc = rp_wait_link(&c);
	if (rc == 0)
		rc = c.o.server ? rp_server(&c) : rp_client(&c);
	if (rc != 0)
		rp_hang_up(&c);
	rp_close(&c);
	rte_eal_cleanup();
	return rc == 0 ? 0 : 1;
}
