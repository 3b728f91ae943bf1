/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * ndk-roced echo service: on every adapter, a listener on the echo port
 * (RDMA-CM port space) accepts up to ECHO_MAX_CONN connections; each gets
 * an RC QP with `depth` receives of `msg-size` bytes posted, and every
 * message received is SENT back on the same connection from the same
 * buffer, which is posted again as a receive once the SEND completed.
 * It gives the daemon's QPs real traffic (for telemetry, capture and
 * tests) and peers a way to check the path end to end.
 *
 * Threads: connect and disconnect events arrive on the polling lcore and
 * only hand the connector over (atomics); everything else - accepting,
 * completions, posting, closing - runs on the main thread in
 * roced_echo_run(). Completions carry the connection's generation, so a
 * late one of a closed connection is never taken for its successor's.
 */

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_malloc.h>

#include "roced.h"

#define ECHO_MAX_CONN 8
#define ECHO_CQ_BURST 32
#define ECHO_STOP_WAIT_S 2

enum conn_state { CONN_FREE = 0, CONN_ACCEPTING, CONN_OPEN };

struct echo_ad;

struct echo_conn {
	struct echo_ad *ea;
	enum conn_state state;
	uint32_t gen;                /* bumped when the slot is freed */
	struct ndk_connector *conn;
	struct ndk_qp *qp;
	uint32_t req_done;           /* accept/disconnect completed (atomic) */
	ndk_status_t req_status;
	uint32_t disconnected;       /* disconnect event (atomic) */
	uint8_t *bufs;               /* depth buffers of msg_size bytes */
};

struct echo_ad {
	const struct roced_config *cfg;
	struct roced_port *port;
	struct ndk_listener *lis;
	struct ndk_pd *pd;
	struct ndk_cq *cq;
	struct ndk_mr *mr;
	uint8_t *mem;
	uint32_t token;
	/* Connectors handed over by the connect event (atomic slots). */
	struct ndk_connector *incoming[ECHO_MAX_CONN];
	struct echo_conn conns[ECHO_MAX_CONN];
};

struct roced_echo {
	unsigned int n;
	struct echo_ad ad[ROCED_MAX_PORTS];
};

/* request_context of a buffer: the connection's generation and index. */
static void *
buf_ctx(const struct echo_conn *c, uint32_t i)
{
	return (void *)(uintptr_t)(((uint64_t)c->gen << 16) | i);
}

static uint8_t *
buf_of(const struct echo_conn *c, uint32_t i)
{
	return c->bufs + (size_t)i * c->ea->cfg->echo_msg_size;
}

/* ------------------------------------------------------------------ */
/* Callbacks (polling lcore): hand over, never block                   */
/* ------------------------------------------------------------------ */

static void
on_connect(void *ctx, struct ndk_connector *nc)
{
	struct echo_ad *ea = ctx;

	for (unsigned int i = 0; i < ECHO_MAX_CONN; i++) {
		struct ndk_connector *none = NULL;

		if (__atomic_compare_exchange_n(&ea->incoming[i], &none, nc,
						false, __ATOMIC_RELEASE,
						__ATOMIC_RELAXED))
			return;
	}
	ndk_reject(nc, NULL, 0);       /* busy */
	ndk_close_connector(nc, NULL, NULL);
}

static void
on_disconnect(void *ctx, uint32_t reason)
{
	struct echo_conn *c = ctx;

	RTE_SET_USED(reason);
	__atomic_store_n(&c->disconnected, 1, __ATOMIC_RELEASE);
}

static void
on_request_done(void *ctx, ndk_status_t st)
{
	struct echo_conn *c = ctx;

	c->req_status = st;
	__atomic_store_n(&c->req_done, 1, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------------ */
/* Connections (main thread)                                           */
/* ------------------------------------------------------------------ */

static void
conn_close(struct echo_conn *c)
{
	if (c->conn != NULL)
		ndk_close_connector(c->conn, NULL, NULL);
	if (c->qp != NULL)
		ndk_close_qp(c->qp, NULL, NULL);   /* flushed: stale gen */
	c->conn = NULL;
	c->qp = NULL;
	c->gen++;
	c->state = CONN_FREE;
}

static int
post_recv(struct echo_conn *c, uint32_t i)
{
	struct ndk_sge s = {
		.va = buf_of(c, i),
		.length = c->ea->cfg->echo_msg_size,
		.token = c->ea->token,
	};

	return ndk_receive(c->qp, buf_ctx(c, i), &s, 1) ==
		NDK_STATUS_SUCCESS ? 0 : -1;
}

static void
conn_accept(struct echo_ad *ea, struct echo_conn *c, struct ndk_connector *nc)
{
	uint32_t depth = ea->cfg->echo_depth;
	uint32_t ird = ea->port->info.max_inbound_read_limit;
	uint32_t ord = ea->port->info.max_outbound_read_limit;
	ndk_status_t st;

	c->conn = nc;
	c->req_done = 0;
	c->disconnected = 0;
	st = ndk_create_qp(ea->pd, ea->cq, ea->cq, c, depth, depth, 1, 1, 0,
			   &c->qp);
	if (st != NDK_STATUS_SUCCESS) {
		c->qp = NULL;
		ndk_reject(nc, NULL, 0);
		conn_close(c);
		return;
	}
	for (uint32_t i = 0; i < depth; i++)
		if (post_recv(c, i) != 0) {
			ndk_reject(nc, NULL, 0);
			conn_close(c);
			return;
		}
	ndk_get_connection_data(nc, &ird, &ord, NULL, &(uint32_t){ 0 });
	st = ndk_accept(nc, c->qp, RTE_MIN(ird, ea->port->info.
					    max_inbound_read_limit),
			RTE_MIN(ord, ea->port->info.max_outbound_read_limit),
			NULL, 0, on_disconnect, c, on_request_done, c);
	if (st != NDK_STATUS_PENDING && st != NDK_STATUS_SUCCESS) {
		conn_close(c);
		return;
	}
	c->state = CONN_ACCEPTING;
}

/* New connections, finished accepts, ended connections. */
static unsigned int
conns_run(struct echo_ad *ea)
{
	unsigned int work = 0;

	for (unsigned int i = 0; i < ECHO_MAX_CONN; i++) {
		struct ndk_connector *nc = __atomic_exchange_n(
			&ea->incoming[i], NULL, __ATOMIC_ACQUIRE);
		unsigned int k;

		if (nc == NULL)
			continue;
		work++;
		for (k = 0; k < ECHO_MAX_CONN; k++)
			if (ea->conns[k].state == CONN_FREE)
				break;
		if (k == ECHO_MAX_CONN) {
			ndk_reject(nc, NULL, 0);
			ndk_close_connector(nc, NULL, NULL);
			continue;
		}
		conn_accept(ea, &ea->conns[k], nc);
	}
	for (unsigned int i = 0; i < ECHO_MAX_CONN; i++) {
		struct echo_conn *c = &ea->conns[i];

		if (c->state == CONN_ACCEPTING &&
		    __atomic_load_n(&c->req_done, __ATOMIC_ACQUIRE)) {
			c->state = c->req_status == NDK_STATUS_SUCCESS ?
				CONN_OPEN : CONN_FREE;
			if (c->state == CONN_FREE)
				conn_close(c);
			work++;
		}
		if (c->state != CONN_FREE &&
		    __atomic_load_n(&c->disconnected, __ATOMIC_ACQUIRE)) {
			conn_close(c);
			work++;
		}
	}
	return work;
}

/* A completion: a message in -> send it back; sent -> receive again. */
static void
completion(struct echo_ad *ea, const struct ndk_result_ex *r)
{
	struct echo_conn *c = r->qp_context;
	uint64_t ctx = (uint64_t)(uintptr_t)r->request_context;
	uint32_t i = (uint32_t)(ctx & 0xffff);
	struct ndk_sge s;

	if (c == NULL || c->state == CONN_FREE ||
	    (uint32_t)(ctx >> 16) != c->gen ||
	    r->status != NDK_STATUS_SUCCESS)
		return;                /* flushed, or of a closed connection */
	if (r->type == NDK_OP_RECEIVE) {
		s.va = buf_of(c, i);
		s.length = r->bytes_transferred;
		s.token = ea->token;
		if (ndk_send(c->qp, buf_ctx(c, i), &s, 1, 0) ==
		    NDK_STATUS_SUCCESS)
			return;
	}
	post_recv(c, i);
}

unsigned int
roced_echo_run(struct roced_echo *e)
{
	struct ndk_result_ex r[ECHO_CQ_BURST];
	unsigned int work = 0;

	if (e == NULL)
		return 0;
	for (unsigned int a = 0; a < e->n; a++) {
		struct echo_ad *ea = &e->ad[a];
		uint32_t n = ndk_get_cq_results_ex(ea->cq, r, RTE_DIM(r));

		for (uint32_t i = 0; i < n; i++)
			completion(ea, &r[i]);
		work += n + conns_run(ea);
	}
	return work;
}

/* ------------------------------------------------------------------ */
/* Start and stop                                                      */
/* ------------------------------------------------------------------ */

static int
echo_ad_start(const struct roced_config *cfg, struct roced_port *p,
	      struct echo_ad *ea)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	size_t per_conn = (size_t)cfg->echo_depth * cfg->echo_msg_size;
	size_t len = per_conn * ECHO_MAX_CONN;
	ndk_status_t st;

	ea->cfg = cfg;
	ea->port = p;
	ea->mem = rte_zmalloc("roced_echo", len, 64);
	if (ea->mem == NULL)
		return -ENOMEM;
	for (unsigned int i = 0; i < ECHO_MAX_CONN; i++) {
		ea->conns[i].ea = ea;
		ea->conns[i].bufs = ea->mem + i * per_conn;
	}
	st = ndk_create_pd(p->ad, &ea->pd);
	if (st == NDK_STATUS_SUCCESS)
		st = ndk_create_cq(p->ad, 2 * cfg->echo_depth * ECHO_MAX_CONN,
				   NULL, NULL, &ea->cq);
	if (st == NDK_STATUS_SUCCESS)
		st = ndk_create_mr(ea->pd, false, &ea->mr);
	if (st == NDK_STATUS_SUCCESS)
		st = ndk_register_mr(ea->mr, ea->mem, len,
				     NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	if (st == NDK_STATUS_SUCCESS) {
		ea->token = ndk_mr_local_token(ea->mr);
		st = ndk_create_listener(p->ad, on_connect, ea, &ea->lis);
	}
	if (st == NDK_STATUS_SUCCESS) {
		sa.sin_port = htons(cfg->echo_port);
		st = ndk_listen(ea->lis, (struct sockaddr *)&sa, sizeof(sa));
	}
	if (st != NDK_STATUS_SUCCESS) {
		ROCED_LOG(ERR, "port %s: echo service: %s",
			p->cfg->name, ndk_status_str(st));
		return -EIO;
	}
	return 0;
}

/* Disconnect what is still connected; give the peers a bounded time. */
static void
echo_hang_up(struct roced_echo *e, struct roced_ports *p)
{
	uint64_t t0 = rte_get_timer_cycles();
	bool waiting;

	for (unsigned int a = 0; a < e->n; a++)
		for (unsigned int i = 0; i < ECHO_MAX_CONN; i++) {
			struct echo_conn *c = &e->ad[a].conns[i];

			if (c->state != CONN_OPEN)
				continue;
			c->req_done = 0;
			if (ndk_disconnect(c->conn, on_request_done, c) !=
			    NDK_STATUS_PENDING)
				c->req_done = 1;
		}
	do {
		waiting = false;
		for (unsigned int a = 0; a < e->n; a++)
			for (unsigned int i = 0; i < ECHO_MAX_CONN; i++) {
				struct echo_conn *c = &e->ad[a].conns[i];

				if (c->state == CONN_OPEN &&
				    !__atomic_load_n(&c->req_done,
						     __ATOMIC_ACQUIRE))
					waiting = true;
			}
		if (waiting && p->main_polls)
			roced_ports_poll(p);
		else if (waiting)
			rte_delay_us_sleep(1000);
	} while (waiting && rte_get_timer_cycles() - t0 <
		 ECHO_STOP_WAIT_S * rte_get_timer_hz());
}

void
roced_echo_stop(struct roced_echo *e, struct roced_ports *p)
{
	if (e == NULL)
		return;
	echo_hang_up(e, p);
	for (unsigned int a = 0; a < e->n; a++) {
		struct echo_ad *ea = &e->ad[a];

		if (ea->lis != NULL)
			ndk_close_listener(ea->lis, NULL, NULL);
		for (unsigned int i = 0; i < ECHO_MAX_CONN; i++) {
			struct ndk_connector *nc = __atomic_exchange_n(
				&ea->incoming[i], NULL, __ATOMIC_ACQUIRE);

			if (nc != NULL)
				ndk_close_connector(nc, NULL, NULL);
			if (ea->conns[i].state != CONN_FREE)
				conn_close(&ea->conns[i]);
		}
		if (ea->mr != NULL) {
			ndk_deregister_mr(ea->mr);
			ndk_close_mr(ea->mr, NULL, NULL);
		}
		if (ea->cq != NULL)
			ndk_close_cq(ea->cq, NULL, NULL);
		if (ea->pd != NULL)
			ndk_close_pd(ea->pd, NULL, NULL);
		rte_free(ea->mem);
	}
	free(e);
}

int
roced_echo_start(const struct roced_config *cfg, struct roced_ports *p,
		 struct roced_echo **out)
{
	struct roced_echo *e = calloc(1, sizeof(*e));
	int rc = 0;

	if (e == NULL)
		return -ENOMEM;
	for (unsigned int i = 0; i < p->n && rc == 0; i++) {
		e->n = i + 1;
		rc = echo_ad_start(cfg, &p->port[i], &e->ad[i]);
	}
	if (rc != 0) {
		roced_echo_stop(e, p);
		return rc;
	}
	*out = e;
	return 0;
}
