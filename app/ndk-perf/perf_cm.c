/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * -R (--rdma_cm): perftest's rdma_cm mode over the NDK connection manager
 * (ndk_conn.h), so that stock perftest given -R is the peer. What perftest
 * 4.5 does with -R, and so what this does:
 *
 *  - No TCP at all. The exchange runs on an RC connection of its own (the
 *    "comm" QP), set up through the CM on the -p port (18515): the client
 *    connects, the server listens. Every message of the TCP exchange is a
 *    SEND of the same bytes instead, into a 56-byte receive (perftest posts
 *    exactly one, and posts it again after each message it reads; the
 *    exchange alternates, so one is all either side needs). Key messages
 *    are perftest's struct pingpong_dest in binary, big-endian (56 bytes:
 *    lid, out_reads, qpn, psn, rkey, 4 bytes of padding, vaddr, the GID,
 *    srqn, gid_index) instead of 108 characters. The closing handshake has
 *    no "done".
 *  - The test QPs are connected through the CM too, on the same port: a
 *    handshake, then the client connects each QP (perftest's server opens
 *    its listener only after that handshake, so a refused attempt is tried
 *    again every 100 ms, for 20 s at most, as for the exchange's
 *    connection, whose server may start later), then another handshake. The PSN
 *    and QPN in the key messages are then informational.
 *  - Our server keeps one listener for all of it (NDK keeps a port in use
 *    while a connector it handed out lives, so closing and listening again
 *    as perftest does would fail): the first request is the exchange's, the
 *    next ones the test QPs', in the order they arrive.
 *  - The end (ours, perftest's peer just leaves): the client disconnects
 *    the test QPs, then the exchange; the server waits for that before it
 *    stops its port, so two ndk-perfs over net_memif never tear the link
 *    down from both ends at once.
 *
 * Path MTU: the exchange's connection takes what the CM announces (its
 * messages are single packets of 56 bytes at most); the test QPs take the
 * MTU the exchange agreed on, given to the CM (ndk_cm_params.path_mtu) as
 * rdma_cm takes the route's.
 */

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_pause.h>

#include "perf_ndk.h"

#define CM_BUF 64                 /* each half: sends, the receive */
#define CM_RECV_LEN PERF_CM_KEYS_LEN /* perftest's receives: a key message */
#define CM_QUEUE 64               /* requests waiting to be accepted */
#define CM_CONNECT_S 20           /* a refused connection: again for 20 s */
#define CM_WAIT_S 20              /* a CM request, a data QP's request */
#define CM_END_WAIT_MS 5000
#define CM_CQ_DEPTH 64

struct perf_cm {
	struct ndk_pd *pd;
	struct ndk_cq *cq;
	struct ndk_qp *qp;
	struct ndk_mr *mr;
	uint8_t *buf;             /* [send | receive] */
	uint32_t ltoken;
	struct ndk_listener *lis;
	struct ndk_connector *conn;       /* the exchange's */
	struct ndk_connector **data;      /* one per test QP */
	unsigned int n_data;
	/* Requests handed out by the listener (the polling thread). */
	struct ndk_connector *queue[CM_QUEUE];
	uint32_t q_head;          /* written by the connect event */
	uint32_t q_tail;          /* written by the test thread */
	int req_done;
	ndk_status_t req_st;
	int comm_gone;            /* the exchange's disconnect event fired */
	bool recv_posted;
	uintptr_t gen;            /* QP context of the exchange's QP: a QP
				   * replaced after a refused connection
				   * flushes into the same CQ */
};

/* --- callbacks (polling thread) ------------------------------------ */

static void
cm_req_done(void *arg, ndk_status_t st)
{
	struct perf_cm *m = arg;

	m->req_st = st;
	__atomic_store_n(&m->req_done, 1, __ATOMIC_RELEASE);
}

static void
cm_comm_gone(void *arg, uint32_t reason)
{
	struct perf_cm *m = arg;

	RTE_SET_USED(reason);
	__atomic_store_n(&m->comm_gone, 1, __ATOMIC_RELEASE);
}

static void
cm_data_gone(void *arg, uint32_t reason)
{
	RTE_SET_USED(arg);
	RTE_SET_USED(reason);
}

static void
cm_connect_event(void *arg, struct ndk_connector *in)
{
	struct perf_cm *m = arg;
	uint32_t head = m->q_head;

	if (head - __atomic_load_n(&m->q_tail, __ATOMIC_ACQUIRE) >= CM_QUEUE) {
		ndk_close_connector(in, NULL, NULL);    /* refused */
		return;
	}
	m->queue[head % CM_QUEUE] = in;
	__atomic_store_n(&m->q_head, head + 1, __ATOMIC_RELEASE);
}

/* --- waiting ---------------------------------------------------------- */

static void
cm_idle(struct perf_ctx *c)
{
	if (c->inline_poll)
		ndk_adapter_poll(c->ad);
	else
		rte_pause();
}

static bool
cm_expired(uint64_t t0, uint64_t ms)
{
	return rte_get_timer_cycles() - t0 > ms * rte_get_timer_hz() / 1000;
}

/* A request returned @p st: wait for its completion. */
static ndk_status_t
cm_wait_req(struct perf_ctx *c, ndk_status_t st)
{
	struct perf_cm *m = c->cm;
	uint64_t t0 = rte_get_timer_cycles();

	if (st != NDK_STATUS_PENDING)
		return st;
	while (!__atomic_load_n(&m->req_done, __ATOMIC_ACQUIRE)) {
		if (cm_expired(t0, CM_WAIT_S * 1000ull))
			return NDK_STATUS_IO_TIMEOUT;
		cm_idle(c);
	}
	m->req_done = 0;
	return m->req_st;
}

/* The next request the listener handed out; NULL after @p ms (< 0: none). */
static struct ndk_connector *
cm_next_request(struct perf_ctx *c, int64_t ms)
{
	struct perf_cm *m = c->cm;
	uint64_t t0 = rte_get_timer_cycles();
	struct ndk_connector *in;

	while (__atomic_load_n(&m->q_head, __ATOMIC_ACQUIRE) == m->q_tail) {
		if (ms >= 0 && cm_expired(t0, (uint64_t)ms))
			return NULL;
		cm_idle(c);
	}
	in = m->queue[m->q_tail % CM_QUEUE];
	__atomic_store_n(&m->q_tail, m->q_tail + 1, __ATOMIC_RELEASE);
	return in;
}

/* --- the exchange's QP --------------------------------------------- */

static int
cm_post_recv(struct perf_cm *m)
{
	struct ndk_sge sge = {
		.va = m->buf + CM_BUF, .length = CM_RECV_LEN,
		.token = m->ltoken,
	};
	ndk_status_t st = ndk_receive(m->qp, NULL, &sge, 1);

	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, " Couldn't post the rdma_cm exchange's "
			"receive: %s\n", ndk_status_str(st));
		return -1;
	}
	m->recv_posted = true;
	return 0;
}

static int
cm_new_qp(struct perf_ctx *c, struct perf_cm *m)
{
	struct ndk_result_ex r[CM_CQ_DEPTH];
	ndk_status_t st;

	if (m->qp != NULL)
		ndk_close_qp(m->qp, NULL, NULL);
	m->qp = NULL;
	/*
	 * The replaced QP's receive is flushed into the CQ: take it out, or
	 * a server that listens late (one attempt every 100 ms) overruns it.
	 */
	while (ndk_get_cq_results_ex(m->cq, r, CM_CQ_DEPTH) != 0)
		;
	m->recv_posted = false;
	m->gen++;
	st = ndk_create_qp(m->pd, m->cq, m->cq, (void *)m->gen, 4, 4, 1, 1, 0,
			   &m->qp);
	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, " Couldn't create the rdma_cm exchange's QP: "
			"%s\n", ndk_status_str(st));
		return -1;
	}
	RTE_SET_USED(c);
	/* perftest posts its receive before it connects; so do we. */
	return cm_post_recv(m);
}

/* Send @p len bytes as one SEND and wait for it (rdma_write_data). */
static int
cm_msg_send(void *arg, const void *buf, size_t len)
{
	struct perf_ctx *c = arg;
	struct perf_cm *m = c->cm;
	struct ndk_sge sge = {
		.va = m->buf, .length = (uint32_t)len, .token = m->ltoken,
	};
	struct ndk_result_ex r;
	ndk_status_t st;

	if (len > CM_BUF)
		return -1;
	memcpy(m->buf, buf, len);
	st = ndk_send(m->qp, (void *)1, &sge, 1, 0);
	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, " rdma_cm exchange: send: %s\n",
			ndk_status_str(st));
		return -1;
	}
	for (;;) {
		if (ndk_get_cq_results_ex(m->cq, &r, 1) == 1) {
			if (r.qp_context != (void *)m->gen)
				continue;       /* a replaced QP's flush */
			if (r.request_context == (void *)1 &&
			    r.status == NDK_STATUS_SUCCESS)
				return 0;
			/* A receive would be the peer's next message, which
			 * it sends only after reading this one. */
			perf_ndk_bad_completion("rdma_cm exchange", &r);
			return -1;
		}
		cm_idle(c);
	}
}

/*
 * Read one message into @p buf (rdma_read_data): @p len bytes, the rest
 * zeroed if the message was shorter. @return 0, -1 on error, 1 when the
 * connection went away, 2 after @p timeout_ms (< 0: no limit).
 */
static int
cm_msg_recv(void *arg, void *buf, size_t len, int timeout_ms)
{
	struct perf_ctx *c = arg;
	struct perf_cm *m = c->cm;
	uint64_t t0 = rte_get_timer_cycles();
	struct ndk_result_ex r;

	if (!m->recv_posted && cm_post_recv(m) != 0)
		return -1;
	for (;;) {
		if (ndk_get_cq_results_ex(m->cq, &r, 1) == 1 &&
		    r.qp_context == (void *)m->gen)
			break;
		/* The peer disconnected (perftest's write_lat just leaves):
		 * its DREQ ends the wait, the QP is not flushed by it. */
		if (__atomic_load_n(&m->comm_gone, __ATOMIC_ACQUIRE))
			return 1;
		if (timeout_ms >= 0 && cm_expired(t0, (uint64_t)timeout_ms))
			return 2;
		cm_idle(c);
	}
	m->recv_posted = false;
	if (r.status != NDK_STATUS_SUCCESS) {
		if (r.status == NDK_STATUS_CANCELLED)
			return 1;               /* flushed: the peer left */
		perf_ndk_bad_completion("rdma_cm exchange", &r);
		return -1;
	}
	memset(buf, 0, len);
	memcpy(buf, m->buf + CM_BUF, RTE_MIN(len,
	       (size_t)r.bytes_transferred));
	/* The next message may come as soon as the peer reads our answer. */
	return cm_post_recv(m) == 0 ? 0 : -1;
}

/* --- connecting -------------------------------------------------------- */

static void
cm_addr(struct sockaddr_in *a, uint32_t ip, uint16_t port)
{
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_addr.s_addr = ip;
	a->sin_port = htons(port);
}

/*
 * Client: connect *@p qp to the server's port, trying again while it
 * refuses (it may not listen yet); @p renew gives a fresh QP after a
 * refused attempt. @return the established connector, or NULL (printed).
 */
static struct ndk_connector *
cm_connect(struct perf_ctx *c, struct ndk_qp **qp, uint32_t ird, uint32_t ord,
	   ndk_disconnect_event_fn gone, int (*renew)(struct perf_ctx *, void *),
	   void *renew_arg, const char *what)
{
	struct perf_cm *m = c->cm;
	struct sockaddr_in src, dst;
	struct in_addr peer;
	ndk_status_t st = NDK_STATUS_UNSUCCESSFUL;

	uint64_t t_start = rte_get_timer_cycles();

	inet_pton(AF_INET, c->o->servername, &peer);
	cm_addr(&src, c->o->ipv4, 0);
	cm_addr(&dst, peer.s_addr, c->o->tcp_port);
	for (int t = 0; t == 0 || !cm_expired(t_start, CM_CONNECT_S * 1000ull);
	     t++) {
		struct ndk_connector *conn;

		if (t > 0) {
			uint64_t t0 = rte_get_timer_cycles();

			if (renew(c, renew_arg) != 0)
				return NULL;
			while (!cm_expired(t0, 100))
				cm_idle(c);
		}
		if (ndk_create_connector(c->ad, &conn) != NDK_STATUS_SUCCESS) {
			fprintf(stderr, " Couldn't create a connector\n");
			return NULL;
		}
		st = cm_wait_req(c, ndk_connect(conn, *qp,
				 (struct sockaddr *)&src, sizeof(src),
				 (struct sockaddr *)&dst, sizeof(dst), ird, ord,
				 NULL, 0, cm_req_done, m));
		if (st == NDK_STATUS_SUCCESS) {
			st = cm_wait_req(c, ndk_complete_connect(conn, gone, m,
					 cm_req_done, m));
			if (st == NDK_STATUS_SUCCESS)
				return conn;
		}
		ndk_close_connector(conn, NULL, NULL);
		if (st != NDK_STATUS_CONNECTION_REFUSED &&
		    st != NDK_STATUS_IO_TIMEOUT)
			break;
	}
	fprintf(stderr, " rdma_cm: couldn't connect %s to %s port %u: %s\n",
		what, c->o->servername, c->o->tcp_port, ndk_status_str(st));
	return NULL;
}

/* Server: accept @p in with @p qp. @return 0 or -1 (printed). */
static int
cm_accept(struct perf_ctx *c, struct ndk_connector *in, struct ndk_qp *qp,
	  uint32_t ird, uint32_t ord, ndk_disconnect_event_fn gone,
	  const char *what)
{
	uint32_t pird = 0, pord = 0, plen = 0;
	ndk_status_t st;

	/* Grant what the request asks, within ours (rdma_cm's rule). */
	ndk_get_connection_data(in, &pird, &pord, NULL, &plen);
	st = cm_wait_req(c, ndk_accept(in, qp, RTE_MIN(ird, pord),
				       RTE_MIN(ord, pird), NULL, 0, gone,
				       c->cm, cm_req_done, c->cm));
	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, " rdma_cm: couldn't accept %s: %s\n", what,
			ndk_status_str(st));
		return -1;
	}
	return 0;
}

static int
cm_renew_comm(struct perf_ctx *c, void *arg)
{
	RTE_SET_USED(arg);
	return cm_new_qp(c, c->cm);
}

int
perf_cm_open(struct perf_ctx *c)
{
	struct perf_cm *m;
	ndk_status_t st;

	m = calloc(1, sizeof(*m));
	if (m == NULL)
		return -1;
	c->cm = m;
	st = ndk_create_pd(c->ad, &m->pd);
	if (st == NDK_STATUS_SUCCESS)
		st = ndk_create_cq(c->ad, CM_CQ_DEPTH, NULL, NULL, &m->cq);
	if (st == NDK_STATUS_SUCCESS)
		st = ndk_adapter_alloc_buffer(c->ad, 2 * CM_BUF, 64,
					      (void **)&m->buf);
	if (st == NDK_STATUS_SUCCESS)
		st = ndk_create_mr(m->pd, false, &m->mr);
	if (st == NDK_STATUS_SUCCESS)
		st = ndk_register_mr(m->mr, m->buf, 2 * CM_BUF,
				     NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, " Couldn't create the rdma_cm exchange's "
			"objects: %s\n", ndk_status_str(st));
		return -1;
	}
	m->ltoken = ndk_mr_local_token(m->mr);
	if (cm_new_qp(c, m) != 0)
		return -1;

	if (c->p.server) {
		struct sockaddr_in a;
		struct ndk_connector *in;

		cm_addr(&a, c->o->ipv4, c->o->tcp_port);
		st = ndk_create_listener(c->ad, cm_connect_event, m, &m->lis);
		if (st == NDK_STATUS_SUCCESS)
			st = ndk_listen(m->lis, (struct sockaddr *)&a,
					sizeof(a));
		if (st != NDK_STATUS_SUCCESS) {
			fprintf(stderr, " rdma_cm: couldn't listen on port "
				"%u: %s\n", c->o->tcp_port,
				ndk_status_str(st));
			return -1;
		}
		/* As perftest's server: wait for a client as long as it
		 * takes. */
		in = cm_next_request(c, -1);
		m->conn = in;
		if (cm_accept(c, in, m->qp, 1, 1, cm_comm_gone,
			      "the exchange's connection") != 0)
			return -1;
	} else {
		m->conn = cm_connect(c, &m->qp, 1, 1, cm_comm_gone,
				     cm_renew_comm, NULL,
				     "the exchange's QP");
		if (m->conn == NULL)
			return -1;
	}
	c->x.fd = -1;
	c->x.server = c->p.server;
	c->x.msg_send = cm_msg_send;
	c->x.msg_recv = cm_msg_recv;
	c->x.msg_arg = c;
	return 0;
}

static int
cm_renew_data(struct perf_ctx *c, void *arg)
{
	return perf_ndk_qp_renew(c, (unsigned int)(uintptr_t)arg);
}

int
perf_cm_connect_qps(struct perf_ctx *c)
{
	struct perf_cm *m = c->cm;
	const struct perf_params *p = &c->p;
	struct perf_qp *q0 = &c->qps[0];
	uint32_t ird = (uint32_t)p->out_reads, ord = (uint32_t)p->out_reads;
	struct ndk_cm_params cp;
	ndk_status_t st;

	/*
	 * The test QPs' path MTU is the one the exchange agreed on (as
	 * rdma_cm's is the route's): our REQs announce it, a peer's REQ is
	 * capped to it. -u becomes the ACK timeout the CM gives them.
	 */
	st = ndk_adapter_get_cm_params(c->ad, &cp);
	if (st == NDK_STATUS_SUCCESS) {
		cp.path_mtu = (uint16_t)p->mtu;
		if (c->o->qp_timeout != 0)
			cp.local_ack_timeout = c->o->qp_timeout;
		st = ndk_adapter_set_cm_params(c->ad, &cp);
	}
	if (st != NDK_STATUS_SUCCESS)
		fprintf(stderr, " rdma_cm: path MTU %u and -u not given to "
			"the CM (%s): its own apply\n", p->mtu,
			ndk_status_str(st));
	m->data = calloc(p->num_qps, sizeof(m->data[0]));
	if (m->data == NULL)
		return -1;
	/* create_rdma_cm_connection: a handshake, the CM, a handshake. */
	if (perf_xchg_keys(&c->x, &q0->my, &q0->rem) != 0)
		return -1;
	for (unsigned int i = 0; i < p->num_qps; i++) {
		struct perf_qp *q = &c->qps[i];

		if (p->server) {
			struct ndk_connector *in =
				cm_next_request(c, CM_WAIT_S * 1000);

			if (in == NULL) {
				fprintf(stderr, " rdma_cm: no request for QP "
					"%u in %d s\n", i, CM_WAIT_S);
				return -1;
			}
			m->data[i] = in;
			m->n_data = i + 1;
			if (cm_accept(c, in, q->qp, ird, ord, cm_data_gone,
				      "a test QP") != 0)
				return -1;
		} else {
			m->data[i] = cm_connect(c, &q->qp, ird, ord,
						cm_data_gone, cm_renew_data,
						(void *)(uintptr_t)i,
						"a test QP");
			if (m->data[i] == NULL)
				return -1;
			m->n_data = i + 1;
		}
	}
	return perf_xchg_keys(&c->x, &q0->my, &q0->rem);
}

void
perf_cm_end(struct perf_ctx *c)
{
	struct perf_cm *m = c->cm;
	uint64_t t0 = rte_get_timer_cycles();

	if (m == NULL)
		return;
	if (!c->p.server) {
		/* Ours first, the exchange's last: the server waits for it. */
		for (unsigned int i = 0; i < m->n_data; i++)
			if (m->data[i] != NULL)
				cm_wait_req(c, ndk_disconnect(m->data[i],
					    cm_req_done, m));
		if (m->conn != NULL)
			cm_wait_req(c, ndk_disconnect(m->conn, cm_req_done,
						      m));
		return;
	}
	while (!__atomic_load_n(&m->comm_gone, __ATOMIC_ACQUIRE) &&
	       !cm_expired(t0, CM_END_WAIT_MS))
		cm_idle(c);
}

void
perf_cm_close(struct perf_ctx *c)
{
	struct perf_cm *m = c->cm;

	if (m == NULL)
		return;
	if (m->lis != NULL)
		ndk_close_listener(m->lis, NULL, NULL);
	/* Requests nobody took. */
	while (m->q_tail != __atomic_load_n(&m->q_head, __ATOMIC_ACQUIRE))
		ndk_close_connector(m->queue[m->q_tail++ % CM_QUEUE], NULL,
				    NULL);
	for (unsigned int i = 0; i < m->n_data; i++)
		if (m->data[i] != NULL)
			ndk_close_connector(m->data[i], NULL, NULL);
	free(m->data);
	if (m->conn != NULL)
		ndk_close_connector(m->conn, NULL, NULL);
	if (m->qp != NULL)
		ndk_close_qp(m->qp, NULL, NULL);
	if (m->mr != NULL)
		ndk_close_mr(m->mr, NULL, NULL);
	if (m->buf != NULL)
		ndk_adapter_free_buffer(c->ad, m->buf);
	if (m->cq != NULL)
		ndk_close_cq(m->cq, NULL, NULL);
	if (m->pd != NULL)
		ndk_close_pd(m->pd, NULL, NULL);
	free(m);
	c->cm = NULL;
}
