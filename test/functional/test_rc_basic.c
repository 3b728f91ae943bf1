/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: one RC connection at a time between two swroce adapters on a
 * net_ring pair. Adapter limits, object limits, QP state control, and
 * SEND/RECEIVE, WRITE and READ of many sizes at path MTU 4096 and 1024,
 * with every byte and every guard byte checked.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_random.h>
#include <rte_ring.h>

#include "ndk.h"
#include "ndk_pair.h"
#include "ndk_test.h"

#define WAIT_S 60.0
/* Bytes after a receive's message that must stay untouched. */
#define RECV_SLACK 37

static struct ndk_pair *g_pair;
static uint32_t g_mtu;

/* QP contexts: their addresses are what completions must return. */
static int qctx_a, qctx_b;

enum xop { XOP_SEND, XOP_WRITE, XOP_READ };
static const char *const xop_name[] = { "SEND", "WRITE", "READ" };

static struct ndk_pair *
pair_get(uint32_t mtu)
{
	struct ndk_pair_config cfg = { .max_path_mtu = mtu };

	if (g_pair != NULL && g_mtu == mtu)
		return g_pair;
	ndk_pair_destroy(g_pair);
	g_pair = ndk_pair_create(&cfg);
	g_mtu = mtu;
	return g_pair;
}

static struct ndk_pair_conn *
conn_new(struct ndk_pair *p, struct ndk_pair_conn_opts *o)
{
	struct ndk_pair_conn_opts def;

	if (o == NULL) {
		memset(&def, 0, sizeof(def));
		o = &def;
	}
	o->qp_ctx[0] = &qctx_a;
	o->qp_ctx[1] = &qctx_b;
	return ndk_pair_conn_create(p, o, NULL);
}

/* MR flags of a READ destination. */
static uint32_t
read_sink_flags(const struct ndk_pair *p)
{
	return NDK_MR_FLAG_ALLOW_LOCAL_WRITE |
		((p->info[0].adapter_flags &
		  NDK_ADAPTER_FLAG_RDMA_READ_SINK_NOT_REQUIRED) ? 0 :
		 NDK_MR_FLAG_RDMA_READ_SINK);
}

/* Wait for one completion and check its fields; prints what came. */
static int
expect_one(struct ndk_cq *cq, enum ndk_operation_type type, void *qp_ctx,
	   void *req_ctx, int64_t bytes, const char *what)
{
	struct ndk_result_ex r;
	char d[200];

	if (ndk_pair_wait(cq, &r, 1, WAIT_S) != 1)
		TEST_FAIL("%s: no completion within %.0f s", what, WAIT_S);
	ndk_pair_result_str(&r, d, sizeof(d));
	TEST_ASSERT(r.status == NDK_STATUS_SUCCESS, "%s: %s", what, d);
	TEST_ASSERT(r.type == type, "%s: expected %s, got %s", what,
		    ndk_pair_op_str(type), d);
	TEST_ASSERT(r.qp_context == qp_ctx, "%s: qp_context %p != %p: %s",
		    what, r.qp_context, qp_ctx, d);
	TEST_ASSERT(r.request_context == req_ctx,
		    "%s: request_context %p != %p: %s", what,
		    r.request_context, req_ctx, d);
	TEST_ASSERT(r.provider_error == 0, "%s: %s", what, d);
	if (bytes >= 0)
		TEST_ASSERT(r.bytes_transferred == (uint32_t)bytes,
			    "%s: bytes_transferred %u != %" PRId64 ": %s",
			    what, r.bytes_transferred, bytes, d);
	return 0;
}

/* No completion is waiting on @p cq. */
static int
expect_none(struct ndk_cq *cq, const char *what)
{
	struct ndk_result_ex r;
	char d[200];

	if (ndk_get_cq_results_ex(cq, &r, 1) != 0)
		TEST_FAIL("%s: unexpected completion %s", what,
			  ndk_pair_result_str(&r, d, sizeof(d)));
	return 0;
}

static bool
all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != 0)
			return false;
	return true;
}

/*
 * Move @p len bytes A -> B (SEND, WRITE) or B -> A (READ, issued by A) and
 * check data, completions and guards.
 */
static int
xfer(struct ndk_pair *p, struct ndk_pair_conn *c, enum xop op, size_t len,
     uint32_t seed)
{
	struct ndk_pair_buf *src, *dst;
	void *req = (void *)(uintptr_t)(((uintptr_t)seed << 4) | (op + 1));
	void *rreq = (void *)(uintptr_t)(((uintptr_t)seed << 4) | 0xF);
	size_t dlen = op == XOP_SEND ? len + RECV_SLACK : len;
	struct ndk_sge sge;
	enum ndk_operation_type type;
	ndk_status_t st;
	char what[64];
	long bad;

	snprintf(what, sizeof(what), "%s of %zu B (mtu %u)", xop_name[op], len,
		 c->path_mtu);
	if (op == XOP_READ) {
		src = ndk_pair_buf_alloc(p, c->pd[1], len,
					 NDK_MR_FLAG_ALLOW_REMOTE_READ);
		dst = ndk_pair_buf_alloc(p, c->pd[0], len, read_sink_flags(p));
	} else {
		src = ndk_pair_buf_alloc(p, c->pd[0], len,
					 NDK_MR_FLAG_ALLOW_LOCAL_READ);
		dst = ndk_pair_buf_alloc(p, c->pd[1], dlen,
					 op == XOP_SEND ?
					 NDK_MR_FLAG_ALLOW_LOCAL_WRITE :
					 NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
	}
	TEST_ASSERT(src != NULL && dst != NULL, "%s: buffers", what);
	ndk_pair_fill(src->data, len, seed);

	switch (op) {
	case XOP_SEND:
		sge = ndk_pair_sge(dst, 0, (uint32_t)dlen);
		st = ndk_receive(c->qp[1], rreq, &sge, 1);
		TEST_ASSERT(st == NDK_STATUS_SUCCESS, "%s: ndk_receive: %s",
			    what, ndk_status_str(st));
		sge = ndk_pair_sge(src, 0, (uint32_t)len);
		st = ndk_send(c->qp[0], req, &sge, 1, 0);
		type = NDK_OP_SEND;
		break;
	case XOP_WRITE:
		sge = ndk_pair_sge(src, 0, (uint32_t)len);
		st = ndk_write(c->qp[0], req, &sge, 1, ndk_pair_raddr(dst, 0),
			       dst->rtoken, 0);
		type = NDK_OP_WRITE;
		break;
	default:
		sge = ndk_pair_sge(dst, 0, (uint32_t)len);
		st = ndk_read(c->qp[0], req, &sge, 1, ndk_pair_raddr(src, 0),
			      src->rtoken, 0);
		type = NDK_OP_READ;
		break;
	}
	TEST_ASSERT(st == NDK_STATUS_SUCCESS, "%s: post: %s", what,
		    ndk_status_str(st));
	if (expect_one(c->icq[0], type, &qctx_a, req, -1, what) != 0)
		return -1;
	if (op == XOP_SEND &&
	    expect_one(c->rcq[1], NDK_OP_RECEIVE, &qctx_b, rreq,
		       (int64_t)len, what) != 0)
		return -1;
	bad = ndk_pair_check(dst->data, len, seed);
	TEST_ASSERT(bad < 0, "%s: data differs at byte %ld (0x%02x)", what,
		    bad, dst->data[bad]);
	TEST_ASSERT(all_zero(dst->data + len, dlen - len),
		    "%s: receive buffer written past the message", what);
	TEST_ASSERT(ndk_pair_buf_guards_ok(src) && ndk_pair_buf_guards_ok(dst),
		    "%s: guard bytes changed", what);
	TEST_ASSERT(ndk_pair_check(src->data, len, seed) < 0,
		    "%s: source changed", what);
	if (expect_none(c->rcq[1], what) != 0 ||
	    expect_none(c->icq[0], what) != 0 ||
	    expect_none(c->rcq[0], what) != 0 ||
	    expect_none(c->icq[1], what) != 0)
		return -1;
	ndk_pair_buf_free(src);
	ndk_pair_buf_free(dst);
	return 0;
}

static int
xfer_sizes(uint32_t mtu, enum xop op)
{
	static const size_t sizes[] = {
		1, 2, 63, 64, 255, 256, 1023, 1024, 1025, 4095, 4096, 4097,
		65536, 1u << 20,
	};
	struct ndk_pair *p = pair_get(mtu);
	struct ndk_pair_conn *c;
	uint32_t seed = (uint32_t)rte_rand();

	TEST_ASSERT(p != NULL, "pair with MTU %u", mtu);
	c = conn_new(p, NULL);
	TEST_ASSERT(c != NULL, "connection");
	for (unsigned int i = 0; i < RTE_DIM(sizes); i++)
		if (xfer(p, c, op, sizes[i], seed + i) != 0)
			return -1;
	for (unsigned int i = 0; i < 4; i++) {
		size_t len = 1 + (size_t)(rte_rand() % 300000);

		printf("  random size %zu\n", len);
		if (xfer(p, c, op, len, seed + 100 + i) != 0)
			return -1;
	}
	ndk_pair_conn_destroy(c);
	return 0;
}

static int t_send_mtu4096(void) { return xfer_sizes(4096, XOP_SEND); }
static int t_write_mtu4096(void) { return xfer_sizes(4096, XOP_WRITE); }
static int t_read_mtu4096(void) { return xfer_sizes(4096, XOP_READ); }
static int t_send_mtu1024(void) { return xfer_sizes(1024, XOP_SEND); }
static int t_write_mtu1024(void) { return xfer_sizes(1024, XOP_WRITE); }
static int t_read_mtu1024(void) { return xfer_sizes(1024, XOP_READ); }

/* ------------------------------------------------------------------ */
/* Adapter limits and object limits                                    */
/* ------------------------------------------------------------------ */

static int
t_adapter_info(void)
{
	struct ndk_pair *p = pair_get(4096);
	struct ndk_adapter_info info, small;
	uint32_t size = sizeof(info);
	struct rte_ether_addr mac;
	ndk_status_t st;

	TEST_ASSERT(p != NULL, "pair");
	st = ndk_query_adapter_info(p->ad[0], &info, &size);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "%s", ndk_status_str(st));
	TEST_ASSERT_EQ(size, sizeof(info), "bytes written");
	printf("  version %u.%u, technology %d, flags 0x%x\n",
	       info.version.major, info.version.minor, info.rdma_technology,
	       info.adapter_flags);
	printf("  sge i/r/rd %u/%u/%u, inline %u, depth rq/iq/cq %u/%u/%u, "
	       "ird/ord %u/%u\n", info.max_initiator_request_sge,
	       info.max_receive_request_sge, info.max_read_request_sge,
	       info.max_inline_data_size, info.max_receive_queue_depth,
	       info.max_initiator_queue_depth, info.max_cq_depth,
	       info.max_inbound_read_limit, info.max_outbound_read_limit);
	printf("  max transfer %u, registration %zu, qp/cq/mr %u/%u/%u, "
	       "path mtu %u\n", info.max_transfer_length,
	       info.max_registration_size, info.max_qp, info.max_cq,
	       info.max_mr, info.max_path_mtu);
	TEST_ASSERT_EQ(info.version.major, NDK_VERSION_MAJOR, "major");
	TEST_ASSERT(info.version.minor <= NDK_VERSION_MINOR, "minor %u",
		    info.version.minor);
	TEST_ASSERT_EQ(info.rdma_technology, NDK_RDMA_ROCEV2, "technology");
	TEST_ASSERT_EQ(info.max_path_mtu, 4096, "path MTU");
	TEST_ASSERT_EQ(info.port_id, p->port[0], "port");
	TEST_ASSERT_EQ(info.ipv4, p->ipv4[0], "address");
	TEST_ASSERT(rte_eth_macaddr_get(p->port[0], &mac) == 0, "mac");
	TEST_ASSERT(memcmp(mac.addr_bytes, info.mac, 6) == 0, "MAC differs "
		    "from the port's");
	TEST_ASSERT(info.max_initiator_request_sge >= 1 &&
		    info.max_receive_request_sge >= 1 &&
		    info.max_read_request_sge >= 1, "SGE limits");
	TEST_ASSERT(info.max_receive_queue_depth >= 64 &&
		    info.max_initiator_queue_depth >= 64 &&
		    info.max_cq_depth >= 128, "queue limits");
	TEST_ASSERT(info.max_transfer_length >= (1u << 20),
		    "max transfer %u", info.max_transfer_length);
	TEST_ASSERT(info.max_inbound_read_limit >= 1 &&
		    info.max_outbound_read_limit >= 1, "read limits");
	TEST_ASSERT(info.max_qp >= 64 && info.max_cq >= 128 &&
		    info.max_mr >= 128, "object limits");
	TEST_ASSERT(info.max_registration_size >= (1u << 20),
		    "registration size");

	size = sizeof(info);
	st = ndk_query_adapter_info(p->ad[1], &info, &size);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "B");
	TEST_ASSERT_EQ(info.ipv4, p->ipv4[1], "B address");

	size = 8;
	st = ndk_query_adapter_info(p->ad[0], &small, &size);
	TEST_ASSERT_EQ(st, NDK_STATUS_BUFFER_TOO_SMALL, "%s",
		       ndk_status_str(st));
	TEST_ASSERT_EQ(size, sizeof(info), "size needed");

	p = pair_get(1024);
	TEST_ASSERT(p != NULL, "pair MTU 1024");
	TEST_ASSERT_EQ(p->info[0].max_path_mtu, 1024, "path MTU");
	TEST_ASSERT_EQ(p->info[1].max_path_mtu, 1024, "path MTU");
	return 0;
}

/* A loopback net_ring port of our own for adapter-open cases. */
static int
spare_port(struct rte_ring **ring, uint16_t *port)
{
	int rc;

	*ring = rte_ring_create("basic_spare", 1024, 0,
				RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (*ring == NULL)
		return -1;
	rc = rte_eth_from_ring(*ring);
	if (rc < 0) {
		rte_ring_free(*ring);
		return -1;
	}
	*port = (uint16_t)rc;
	return 0;
}

static void
spare_port_free(struct rte_ring *ring, uint16_t port)
{
	char name[RTE_ETH_NAME_MAX_LEN];
	void *m;

	if (rte_eth_dev_is_valid_port(port)) {
		rte_eth_dev_stop(port);
		if (rte_eth_dev_get_name_by_port(port, name) != 0 ||
		    rte_vdev_uninit(name) != 0)
			rte_eth_dev_close(port);
	}
	while (rte_ring_dequeue(ring, &m) == 0)
		rte_pktmbuf_free(m);
	rte_ring_free(ring);
}

static int
open_errors_and_qp_count(uint16_t port, struct ndk_adapter **adp)
{
	struct ndk_adapter_config ac;
	struct ndk_adapter *ad = NULL;
	struct ndk_adapter_info info;
	uint32_t size = sizeof(info);
	struct ndk_qp *qps[64];
	struct ndk_pd *pd;
	struct ndk_cq *cq;
	unsigned int n = 0;
	ndk_status_t st;

	memset(&ac, 0, sizeof(ac));
	ac.port_id = port;
	ac.configure_port = true;
	ac.ipv4 = rte_cpu_to_be_32(RTE_IPV4(10, 0, 9, 1));
	ac.socket_id = SOCKET_ID_ANY;
	*adp = NULL;

	ac.provider = "no-such-provider";
	st = ndk_adapter_open(&ac, &ad);
	TEST_ASSERT_EQ(st, NDK_STATUS_NOT_SUPPORTED, "unknown provider: %s",
		       ndk_status_str(st));
	ac.provider = NULL;
	ac.port_id = RTE_MAX_ETHPORTS - 1;
	st = ndk_adapter_open(&ac, &ad);
	TEST_ASSERT_EQ(st, NDK_STATUS_INVALID_PARAMETER, "bad port: %s",
		       ndk_status_str(st));
	ac.port_id = port;
	ac.max_path_mtu = 8192;
	st = ndk_adapter_open(&ac, &ad);
	TEST_ASSERT_EQ(st, NDK_STATUS_INVALID_PARAMETER, "MTU 8192: %s",
		       ndk_status_str(st));
	ac.max_path_mtu = 128;
	st = ndk_adapter_open(&ac, &ad);
	TEST_ASSERT_EQ(st, NDK_STATUS_INVALID_PARAMETER, "MTU 128: %s",
		       ndk_status_str(st));
	ac.max_path_mtu = 0;
	ac.ipv4 = 0;
	st = ndk_adapter_open(&ac, &ad);
	TEST_ASSERT_EQ(st, NDK_STATUS_INVALID_PARAMETER, "address 0: %s",
		       ndk_status_str(st));
	ac.ipv4 = rte_cpu_to_be_32(RTE_IPV4(10, 0, 9, 1));

	/* A valid adapter with room for 4 QPs; nobody polls it. */
	ac.max_qp = 4;
	st = ndk_adapter_open(&ac, &ad);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "max_qp 4: %s",
		       ndk_status_str(st));
	*adp = ad;
	st = ndk_query_adapter_info(ad, &info, &size);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "info");
	TEST_ASSERT_EQ(info.max_qp, 4, "max_qp reported");
	TEST_ASSERT_EQ(info.max_path_mtu, 4096, "default path MTU");
	st = ndk_create_pd(ad, &pd);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "pd");
	st = ndk_create_cq(ad, 64, NULL, NULL, &cq);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "cq");
	for (n = 0; n < info.max_qp && n < RTE_DIM(qps); n++) {
		st = ndk_create_qp(pd, cq, cq, NULL, 8, 8, 1, 1, 0, &qps[n]);
		TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "QP %u of %u: %s", n,
			       info.max_qp, ndk_status_str(st));
	}
	st = ndk_create_qp(pd, cq, cq, NULL, 8, 8, 1, 1, 0, &qps[n]);
	TEST_ASSERT_EQ(st, NDK_STATUS_INSUFFICIENT_RESOURCES,
		       "QP %u beyond max_qp %u: %s", n + 1, info.max_qp,
		       ndk_status_str(st));
	st = ndk_close_qp(qps[0], NULL, NULL);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "close: %s",
		       ndk_status_str(st));
	st = ndk_create_qp(pd, cq, cq, NULL, 8, 8, 1, 1, 0, &qps[0]);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "QP after a close: %s",
		       ndk_status_str(st));
	/* The rest is closed by ndk_adapter_close(). */
	return 0;
}

static int
t_open_errors_and_max_qp(void)
{
	struct rte_ring *ring;
	uint16_t port;
	struct ndk_adapter *ad = NULL;
	int rc;

	TEST_ASSERT(spare_port(&ring, &port) == 0, "spare net_ring port");
	rc = open_errors_and_qp_count(port, &ad);
	if (ad != NULL)
		ndk_adapter_close(ad);
	spare_port_free(ring, port);
	return rc;
}

struct qp_args {
	const char *what;
	uint32_t rq, iq, rsge, isge, inl;
};

static int
t_create_qp_limits(void)
{
	struct ndk_pair *p = pair_get(4096);
	const struct ndk_adapter_info *in;
	struct ndk_pd *pd;
	struct ndk_cq *cq, *cq_b, *big;
	struct ndk_qp *qp;
	ndk_status_t st;
	struct qp_args bad[5];

	TEST_ASSERT(p != NULL, "pair");
	in = &p->info[0];
	TEST_ASSERT_EQ(ndk_create_pd(p->ad[0], &pd), NDK_STATUS_SUCCESS, "pd");
	TEST_ASSERT_EQ(ndk_create_cq(p->ad[0], 256, NULL, NULL, &cq),
		       NDK_STATUS_SUCCESS, "cq");
	TEST_ASSERT_EQ(ndk_create_cq(p->ad[1], 256, NULL, NULL, &cq_b),
		       NDK_STATUS_SUCCESS, "cq on B");
	st = ndk_create_cq(p->ad[0], in->max_cq_depth + 1, NULL, NULL, &big);
	TEST_ASSERT_EQ(st, NDK_STATUS_INVALID_PARAMETER,
		       "CQ depth max+1: %s", ndk_status_str(st));

	bad[0] = (struct qp_args){ "rq depth", in->max_receive_queue_depth + 1,
				   8, 1, 1, 0 };
	bad[1] = (struct qp_args){ "iq depth", 8,
				   in->max_initiator_queue_depth + 1, 1, 1, 0 };
	bad[2] = (struct qp_args){ "rsge", 8, 8,
				   in->max_receive_request_sge + 1, 1, 0 };
	bad[3] = (struct qp_args){ "isge", 8, 8, 1,
				   in->max_initiator_request_sge + 1, 0 };
	bad[4] = (struct qp_args){ "inline", 8, 8, 1, 1,
				   in->max_inline_data_size + 1 };
	for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
		st = ndk_create_qp(pd, cq, cq, NULL, bad[i].rq, bad[i].iq,
				   bad[i].rsge, bad[i].isge, bad[i].inl, &qp);
		TEST_ASSERT_EQ(st, NDK_STATUS_INVALID_PARAMETER,
			       "%s beyond the limit: %s", bad[i].what,
			       ndk_status_str(st));
	}
	st = ndk_create_qp(pd, cq_b, cq, NULL, 8, 8, 1, 1, 0, &qp);
	TEST_ASSERT_EQ(st, NDK_STATUS_INVALID_PARAMETER,
		       "receive CQ of another adapter: %s", ndk_status_str(st));
	st = ndk_create_qp(pd, cq, cq_b, NULL, 8, 8, 1, 1, 0, &qp);
	TEST_ASSERT_EQ(st, NDK_STATUS_INVALID_PARAMETER,
		       "initiator CQ of another adapter: %s",
		       ndk_status_str(st));

	/* Exactly at every limit is fine. */
	st = ndk_create_qp(pd, cq, cq, NULL, in->max_receive_queue_depth,
			   in->max_initiator_queue_depth,
			   in->max_receive_request_sge,
			   in->max_initiator_request_sge,
			   in->max_inline_data_size, &qp);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "at the limits: %s",
		       ndk_status_str(st));
	TEST_ASSERT((ndk_qp_num(qp) & ~0xFFFFFFu) == 0 && ndk_qp_num(qp) > 1,
		    "QPN 0x%x", ndk_qp_num(qp));
	TEST_ASSERT_EQ(ndk_close_qp(qp, NULL, NULL), NDK_STATUS_SUCCESS,
		       "close QP");
	TEST_ASSERT_EQ(ndk_close_cq(cq, NULL, NULL), NDK_STATUS_SUCCESS,
		       "close CQ");
	TEST_ASSERT_EQ(ndk_close_cq(cq_b, NULL, NULL), NDK_STATUS_SUCCESS,
		       "close CQ B");
	TEST_ASSERT_EQ(ndk_close_pd(pd, NULL, NULL), NDK_STATUS_SUCCESS,
		       "close PD");
	return 0;
}

/* ------------------------------------------------------------------ */
/* QP states                                                           */
/* ------------------------------------------------------------------ */

static int
t_post_unconnected(void)
{
	struct ndk_pair *p = pair_get(4096);
	struct ndk_pair_conn_opts o = { .no_connect = true };
	struct ndk_pair_conn *c;
	struct ndk_pair_buf *b;
	struct ndk_sge sge;
	ndk_status_t st;

	TEST_ASSERT(p != NULL, "pair");
	c = conn_new(p, &o);
	TEST_ASSERT(c != NULL, "connection");
	b = ndk_pair_buf_alloc(p, c->pd[0], 4096,
			       NDK_MR_FLAG_ALLOW_REMOTE_WRITE |
			       NDK_MR_FLAG_ALLOW_REMOTE_READ);
	TEST_ASSERT(b != NULL, "buffer");
	sge = ndk_pair_sge(b, 0, 100);
	st = ndk_send(c->qp[0], NULL, &sge, 1, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_CONNECTION_INVALID, "send: %s",
		       ndk_status_str(st));
	st = ndk_write(c->qp[0], NULL, &sge, 1, ndk_pair_raddr(b, 0),
		       b->rtoken, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_CONNECTION_INVALID, "write: %s",
		       ndk_status_str(st));
	st = ndk_read(c->qp[0], NULL, &sge, 1, ndk_pair_raddr(b, 0),
		      b->rtoken, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_CONNECTION_INVALID, "read: %s",
		       ndk_status_str(st));
	st = ndk_receive(c->qp[0], NULL, &sge, 1);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "receive in INIT: %s",
		       ndk_status_str(st));
	ndk_pair_sleep_ms(100);
	if (expect_none(c->icq[0], "failed posts") != 0 ||
	    expect_none(c->rcq[0], "receive in INIT") != 0)
		return -1;
	ndk_pair_conn_destroy(c);
	return 0;
}

static int
modify_expect(struct ndk_qp *qp, struct ndk_qp_attr *a, enum ndk_qp_state to,
	      uint32_t mask, ndk_status_t want, enum ndk_qp_state after)
{
	struct ndk_qp_attr q;
	enum ndk_qp_state from;
	ndk_status_t st;

	TEST_ASSERT_EQ(ndk_qp_query(qp, &q), NDK_STATUS_SUCCESS, "query");
	from = q.state;
	a->state = to;
	st = ndk_qp_modify(qp, a, mask | NDK_QP_ATTR_STATE);
	TEST_ASSERT(st == want, "%s -> %s (mask 0x%x): got %s, want %s",
		    ndk_qp_state_str(from), ndk_qp_state_str(to), mask,
		    ndk_status_str(st), ndk_status_str(want));
	TEST_ASSERT_EQ(ndk_qp_query(qp, &q), NDK_STATUS_SUCCESS, "query");
	TEST_ASSERT(q.state == after, "after %s -> %s: state %s, want %s",
		    ndk_qp_state_str(from), ndk_qp_state_str(to),
		    ndk_qp_state_str(q.state), ndk_qp_state_str(after));
	return 0;
}

#define MOD(to, mask, want, after) do { \
	if (modify_expect(qp, &a, NDK_QP_STATE_##to, (mask), \
			  NDK_STATUS_##want, NDK_QP_STATE_##after) != 0) \
		return -1; \
} while (0)

static int
t_qp_state_transitions(void)
{
	const uint32_t rtr_mask = NDK_QP_ATTR_AV | NDK_QP_ATTR_DEST_QPN |
		NDK_QP_ATTR_RQ_PSN | NDK_QP_ATTR_PATH_MTU;
	struct ndk_pair *p = pair_get(4096);
	struct ndk_pair_conn_opts o = { .no_connect = true };
	struct ndk_pair_conn *c;
	struct ndk_qp_attr a, q;
	struct ndk_qp *qp;
	ndk_status_t st;

	TEST_ASSERT(p != NULL, "pair");
	c = conn_new(p, &o);
	TEST_ASSERT(c != NULL, "connection");
	qp = c->qp[0];
	TEST_ASSERT_EQ(ndk_qp_query(qp, &q), NDK_STATUS_SUCCESS, "query");
	TEST_ASSERT(q.state == NDK_QP_STATE_INIT, "new QP in %s",
		    ndk_qp_state_str(q.state));

	memset(&a, 0, sizeof(a));
	a.dest_ip = p->ipv4[1];
	memcpy(a.dest_mac, p->info[1].mac, 6);
	a.dest_qpn = c->qpn[1];
	a.rq_psn = c->sq_psn[1];
	a.sq_psn = c->sq_psn[0];
	a.path_mtu = 4096;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.min_rnr_timer = 12;

	MOD(RTS, 0, INVALID_DEVICE_STATE, INIT);
	MOD(SQD, 0, INVALID_DEVICE_STATE, INIT);
	MOD(INIT, 0, SUCCESS, INIT);
	MOD(RTR, 0, INVALID_PARAMETER, INIT);
	MOD(RTR, rtr_mask & ~NDK_QP_ATTR_PATH_MTU, INVALID_PARAMETER, INIT);
	MOD(RTR, rtr_mask & ~NDK_QP_ATTR_DEST_QPN, INVALID_PARAMETER, INIT);
	a.path_mtu = 3000;
	MOD(RTR, rtr_mask, INVALID_PARAMETER, INIT);
	a.path_mtu = 4096;
	MOD(RTR, rtr_mask, SUCCESS, RTR);

	/* Sends are refused until RTS. */
	st = ndk_send(qp, NULL, NULL, 0, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_CONNECTION_INVALID, "send in RTR: %s",
		       ndk_status_str(st));

	MOD(RTR, rtr_mask, INVALID_DEVICE_STATE, RTR);
	MOD(INIT, 0, INVALID_DEVICE_STATE, RTR);
	MOD(RTS, 0, INVALID_PARAMETER, RTR);
	MOD(RTS, NDK_QP_ATTR_SQ_PSN | NDK_QP_ATTR_TIMEOUT |
	    NDK_QP_ATTR_RETRY_CNT | NDK_QP_ATTR_RNR_RETRY, SUCCESS, RTS);
	TEST_ASSERT_EQ(ndk_qp_query(qp, &q), NDK_STATUS_SUCCESS, "query");
	TEST_ASSERT_EQ(q.dest_qpn, c->qpn[1], "dest_qpn");
	TEST_ASSERT_EQ(q.path_mtu, 4096, "path_mtu");
	TEST_ASSERT_EQ(q.dest_ip, p->ipv4[1], "dest_ip");

	/* The QP connected by hand moves data. */
	TEST_ASSERT_EQ(ndk_pair_connect(c, 1), NDK_STATUS_SUCCESS, "B");
	if (xfer(p, c, XOP_SEND, 3000, 7) != 0 ||
	    xfer(p, c, XOP_READ, 9000, 8) != 0)
		return -1;

	MOD(RTS, NDK_QP_ATTR_TIMEOUT, SUCCESS, RTS);
	MOD(RTR, 0, INVALID_DEVICE_STATE, RTS);
	MOD(INIT, 0, INVALID_DEVICE_STATE, RTS);
	MOD(ERROR, 0, SUCCESS, ERROR);
	MOD(RTS, 0, INVALID_DEVICE_STATE, ERROR);
	MOD(INIT, 0, INVALID_DEVICE_STATE, ERROR);
	MOD(RTR, rtr_mask, INVALID_DEVICE_STATE, ERROR);
	MOD(ERROR, 0, SUCCESS, ERROR);
	MOD(RESET, 0, SUCCESS, RESET);
	MOD(RTR, rtr_mask, INVALID_DEVICE_STATE, RESET);
	MOD(RTS, NDK_QP_ATTR_SQ_PSN, INVALID_DEVICE_STATE, RESET);
	MOD(INIT, 0, SUCCESS, INIT);
	MOD(ERROR, 0, SUCCESS, ERROR);
	ndk_pair_conn_destroy(c);
	return 0;
}

/* ------------------------------------------------------------------ */
/* SGE lists, inline, zero length, NDK_RESULT                          */
/* ------------------------------------------------------------------ */

/* Copy a gather list's bytes into @p out; @return the total. */
static size_t
gather(const struct ndk_sge *s, unsigned int n, uint8_t *out)
{
	size_t off = 0;

	for (unsigned int i = 0; i < n; i++) {
		memcpy(out + off, s[i].va, s[i].length);
		off += s[i].length;
	}
	return off;
}

/* Scatter @p len bytes of @p msg over a list into the image of @p buf. */
static void
scatter_image(const struct ndk_sge *s, unsigned int n, const uint8_t *msg,
	      size_t len, const struct ndk_pair_buf *buf, uint8_t *image)
{
	size_t off = 0;

	for (unsigned int i = 0; i < n && off < len; i++) {
		size_t k = RTE_MIN((size_t)s[i].length, len - off);

		memcpy(image + ((uint8_t *)s[i].va - buf->data), msg + off, k);
		off += k;
	}
}

static int
t_multi_sge(void)
{
	static const uint32_t slen[] = { 1, 7, 13, 4097, 3, 1000, 61, 2 };
	static const uint32_t soff[] = { 5, 17, 33, 4200, 9001, 9100, 11000,
					 11111 };
	static const uint32_t rlen[] = { 5, 11, 4100, 2, 3000, 1, 999, 64 };
	static const uint32_t roff[] = { 3, 100, 200, 4400, 4500, 8000, 8100,
					 9500 };
	struct ndk_pair *p = pair_get(1024);
	struct ndk_pair_conn_opts o = { 0 };
	struct ndk_pair_conn *c;
	struct ndk_pair_buf *src, *dst, *rdst;
	struct ndk_sge ss[8], rs[8];
	unsigned int ns, nr, nrd;
	uint8_t *msg, *image;
	size_t total, rtotal = 0;
	ndk_status_t st;

	TEST_ASSERT(p != NULL, "pair");
	ns = RTE_MIN(8u, p->info[0].max_initiator_request_sge);
	nr = RTE_MIN(8u, p->info[1].max_receive_request_sge);
	nrd = RTE_MIN(ns, p->info[0].max_read_request_sge);
	o.max_isge = ns;
	o.max_rsge = nr;
	c = conn_new(p, &o);
	TEST_ASSERT(c != NULL, "connection");
	src = ndk_pair_buf_alloc(p, c->pd[0], 12000, 0);
	dst = ndk_pair_buf_alloc(p, c->pd[1], 12000,
				 NDK_MR_FLAG_ALLOW_REMOTE_WRITE |
				 NDK_MR_FLAG_ALLOW_REMOTE_READ);
	rdst = ndk_pair_buf_alloc(p, c->pd[0], 12000, read_sink_flags(p));
	msg = calloc(1, 12000);
	image = calloc(1, 12000);
	TEST_ASSERT(src && dst && rdst && msg && image, "buffers");
	ndk_pair_fill(src->data, 12000, 0x5151);
	for (unsigned int i = 0; i < ns; i++)
		ss[i] = ndk_pair_sge(src, soff[i], slen[i]);
	for (unsigned int i = 0; i < nr; i++) {
		rs[i] = ndk_pair_sge(dst, roff[i], rlen[i]);
		rtotal += rlen[i];
	}
	total = gather(ss, ns, msg);
	printf("  %u send SGEs (%zu B) into %u receive SGEs (%zu B)\n", ns,
	       total, nr, rtotal);
	TEST_ASSERT(rtotal >= total, "receive list too short");

	/* SEND gathered, received scattered. */
	st = ndk_receive(c->qp[1], (void *)1, rs, nr);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "receive %s", ndk_status_str(st));
	st = ndk_send(c->qp[0], (void *)2, ss, ns, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "send %s", ndk_status_str(st));
	if (expect_one(c->icq[0], NDK_OP_SEND, &qctx_a, (void *)2, -1,
		       "multi-SGE send") != 0 ||
	    expect_one(c->rcq[1], NDK_OP_RECEIVE, &qctx_b, (void *)1,
		       (int64_t)total, "multi-SGE receive") != 0)
		return -1;
	scatter_image(rs, nr, msg, total, dst, image);
	for (size_t i = 0; i < 12000; i++)
		TEST_ASSERT(dst->data[i] == image[i], "receive byte %zu: 0x%02x"
			    " != 0x%02x", i, dst->data[i], image[i]);
	TEST_ASSERT(ndk_pair_buf_guards_ok(dst), "guards");

	/* WRITE gathered into one remote range. */
	memset(dst->data, 0, 12000);
	st = ndk_write(c->qp[0], (void *)3, ss, ns, ndk_pair_raddr(dst, 3),
		       dst->rtoken, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "write %s", ndk_status_str(st));
	if (expect_one(c->icq[0], NDK_OP_WRITE, &qctx_a, (void *)3, -1,
		       "multi-SGE write") != 0)
		return -1;
	TEST_ASSERT(all_zero(dst->data, 3), "write before its address");
	TEST_ASSERT(memcmp(dst->data + 3, msg, total) == 0, "write data");
	TEST_ASSERT(all_zero(dst->data + 3 + total, 12000 - 3 - total),
		    "write past its end");

	/* READ of one remote range scattered locally. */
	ndk_pair_fill(dst->data, 12000, 0x7777);
	for (unsigned int i = 0; i < nrd; i++)
		rs[i] = ndk_pair_sge(rdst, roff[i], rlen[i]);
	total = 0;
	for (unsigned int i = 0; i < nrd; i++)
		total += rlen[i];
	st = ndk_read(c->qp[0], (void *)4, rs, nrd, ndk_pair_raddr(dst, 1),
		      dst->rtoken, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "read %s", ndk_status_str(st));
	if (expect_one(c->icq[0], NDK_OP_READ, &qctx_a, (void *)4, -1,
		       "multi-SGE read") != 0)
		return -1;
	memset(image, 0, 12000);
	scatter_image(rs, nrd, dst->data + 1, total, rdst, image);
	for (size_t i = 0; i < 12000; i++)
		TEST_ASSERT(rdst->data[i] == image[i], "read byte %zu: 0x%02x"
			    " != 0x%02x", i, rdst->data[i], image[i]);
	TEST_ASSERT(ndk_pair_buf_guards_ok(rdst) && ndk_pair_buf_guards_ok(src)
		    && ndk_pair_buf_guards_ok(dst), "guards");
	free(msg);
	free(image);
	ndk_pair_conn_destroy(c);
	return 0;
}

static int
t_inline(void)
{
	struct ndk_pair *p = pair_get(4096);
	struct ndk_pair_conn_opts o = { 0 };
	struct ndk_pair_conn *c;
	struct ndk_pair_buf *dst;
	uint8_t data[1024];
	struct ndk_sge s[2];
	uint32_t inl;
	ndk_status_t st;

	TEST_ASSERT(p != NULL, "pair");
	inl = RTE_MIN(256u, p->info[0].max_inline_data_size);
	if (inl < 2) {
		printf("  adapter has no inline data (max %u)\n", inl);
		return NDK_TEST_SKIPPED;
	}
	o.inline_size = inl;
	c = conn_new(p, &o);
	TEST_ASSERT(c != NULL, "connection with inline %u", inl);
	dst = ndk_pair_buf_alloc(p, c->pd[1], 1024,
				 NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
	TEST_ASSERT(dst != NULL, "buffer");

	/* Ordinary (non-DPDK) memory, no token, reused at once. */
	ndk_pair_fill(data, inl, 0xAB);
	s[0] = (struct ndk_sge){ .va = data, .length = inl / 2, .token = 0 };
	s[1] = (struct ndk_sge){ .va = data + inl / 2,
				 .length = inl - inl / 2, .token = 0 };
	{
		struct ndk_sge r = ndk_pair_sge(dst, 0, 1024);

		st = ndk_receive(c->qp[1], (void *)11, &r, 1);
		TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "receive");
	}
	st = ndk_send(c->qp[0], (void *)12, s, 2, NDK_OP_FLAG_INLINE);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "inline send: %s",
		       ndk_status_str(st));
	memset(data, 0, sizeof(data));
	if (expect_one(c->icq[0], NDK_OP_SEND, &qctx_a, (void *)12, -1,
		       "inline send") != 0 ||
	    expect_one(c->rcq[1], NDK_OP_RECEIVE, &qctx_b, (void *)11, inl,
		       "inline receive") != 0)
		return -1;
	TEST_ASSERT(ndk_pair_check(dst->data, inl, 0xAB) < 0, "inline send "
		    "data");

	ndk_pair_fill(data, inl, 0xCD);
	st = ndk_write(c->qp[0], (void *)13, s, 2, ndk_pair_raddr(dst, 512),
		       dst->rtoken, NDK_OP_FLAG_INLINE);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "inline write: %s",
		       ndk_status_str(st));
	memset(data, 0, sizeof(data));
	if (expect_one(c->icq[0], NDK_OP_WRITE, &qctx_a, (void *)13, -1,
		       "inline write") != 0)
		return -1;
	TEST_ASSERT(ndk_pair_check(dst->data + 512, inl, 0xCD) < 0,
		    "inline write data");
	TEST_ASSERT(ndk_pair_buf_guards_ok(dst), "guards");

	/* One byte more than the QP's inline size is refused. */
	s[1].length++;
	st = ndk_send(c->qp[0], (void *)14, s, 2, NDK_OP_FLAG_INLINE);
	TEST_ASSERT_EQ(st, NDK_STATUS_INVALID_PARAMETER, "inline %u+1 B: %s",
		       inl, ndk_status_str(st));
	ndk_pair_sleep_ms(50);
	if (expect_none(c->icq[0], "refused inline post") != 0)
		return -1;
	ndk_pair_conn_destroy(c);
	return 0;
}

static int
t_zero_length(void)
{
	struct ndk_pair *p = pair_get(4096);
	struct ndk_pair_conn *c;
	struct ndk_pair_buf *b, *rb;
	struct ndk_sge s, r;
	ndk_status_t st;

	TEST_ASSERT(p != NULL, "pair");
	c = conn_new(p, NULL);
	TEST_ASSERT(c != NULL, "connection");
	b = ndk_pair_buf_alloc(p, c->pd[1], 256,
			       NDK_MR_FLAG_ALLOW_REMOTE_WRITE |
			       NDK_MR_FLAG_ALLOW_REMOTE_READ);
	rb = ndk_pair_buf_alloc(p, c->pd[0], 256, read_sink_flags(p));
	TEST_ASSERT(b != NULL && rb != NULL, "buffers");
	r = ndk_pair_sge(b, 0, 256);

	/* SEND with no SGE, then with one empty SGE. */
	TEST_ASSERT_EQ(ndk_receive(c->qp[1], (void *)21, &r, 1),
		       NDK_STATUS_SUCCESS, "receive");
	st = ndk_send(c->qp[0], (void *)22, NULL, 0, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "send of no SGE: %s",
		       ndk_status_str(st));
	if (expect_one(c->icq[0], NDK_OP_SEND, &qctx_a, (void *)22, -1,
		       "0-SGE send") != 0 ||
	    expect_one(c->rcq[1], NDK_OP_RECEIVE, &qctx_b, (void *)21, 0,
		       "0-SGE receive") != 0)
		return -1;
	TEST_ASSERT_EQ(ndk_receive(c->qp[1], (void *)23, &r, 1),
		       NDK_STATUS_SUCCESS, "receive");
	s = ndk_pair_sge(rb, 0, 0);
	st = ndk_send(c->qp[0], (void *)24, &s, 1, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "send of an empty SGE: %s",
		       ndk_status_str(st));
	if (expect_one(c->icq[0], NDK_OP_SEND, &qctx_a, (void *)24, -1,
		       "empty-SGE send") != 0 ||
	    expect_one(c->rcq[1], NDK_OP_RECEIVE, &qctx_b, (void *)23, 0,
		       "empty-SGE receive") != 0)
		return -1;

	st = ndk_write(c->qp[0], (void *)25, NULL, 0, ndk_pair_raddr(b, 0),
		       b->rtoken, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "0-byte write: %s",
		       ndk_status_str(st));
	if (expect_one(c->icq[0], NDK_OP_WRITE, &qctx_a, (void *)25, -1,
		       "0-byte write") != 0)
		return -1;
	st = ndk_read(c->qp[0], (void *)26, NULL, 0, ndk_pair_raddr(b, 0),
		      b->rtoken, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "0-byte read: %s",
		       ndk_status_str(st));
	if (expect_one(c->icq[0], NDK_OP_READ, &qctx_a, (void *)26, -1,
		       "0-byte read") != 0)
		return -1;
	TEST_ASSERT(all_zero(b->data, 256) && all_zero(rb->data, 256),
		    "zero-length operations changed data");
	TEST_ASSERT(ndk_pair_buf_guards_ok(b) && ndk_pair_buf_guards_ok(rb),
		    "guards");
	/* The connection still works. */
	if (xfer(p, c, XOP_WRITE, 5000, 3) != 0)
		return -1;
	ndk_pair_conn_destroy(c);
	return 0;
}

static int
t_result_basic(void)
{
	struct ndk_pair *p = pair_get(4096);
	struct ndk_pair_conn *c;
	struct ndk_pair_buf *src, *dst;
	struct ndk_result r;
	struct ndk_sge s;

	TEST_ASSERT(p != NULL, "pair");
	c = conn_new(p, NULL);
	TEST_ASSERT(c != NULL, "connection");
	src = ndk_pair_buf_alloc(p, c->pd[0], 100, 0);
	dst = ndk_pair_buf_alloc(p, c->pd[1], 200,
				 NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	TEST_ASSERT(src != NULL && dst != NULL, "buffers");
	ndk_pair_fill(src->data, 100, 31);
	s = ndk_pair_sge(dst, 0, 200);
	TEST_ASSERT_EQ(ndk_receive(c->qp[1], (void *)31, &s, 1),
		       NDK_STATUS_SUCCESS, "receive");
	s = ndk_pair_sge(src, 0, 100);
	TEST_ASSERT_EQ(ndk_send(c->qp[0], (void *)32, &s, 1, 0),
		       NDK_STATUS_SUCCESS, "send");
	TEST_ASSERT_EQ(ndk_pair_wait_basic(c->icq[0], &r, 1, WAIT_S), 1,
		       "send completion");
	TEST_ASSERT(r.status == NDK_STATUS_SUCCESS && r.qp_context == &qctx_a
		    && r.request_context == (void *)32,
		    "send: %s qp %p req %p", ndk_status_str(r.status),
		    r.qp_context, r.request_context);
	TEST_ASSERT_EQ(ndk_pair_wait_basic(c->rcq[1], &r, 1, WAIT_S), 1,
		       "receive completion");
	TEST_ASSERT(r.status == NDK_STATUS_SUCCESS && r.qp_context == &qctx_b
		    && r.request_context == (void *)31 &&
		    r.bytes_transferred == 100,
		    "receive: %s bytes %u qp %p req %p",
		    ndk_status_str(r.status), r.bytes_transferred,
		    r.qp_context, r.request_context);
	TEST_ASSERT(ndk_pair_check(dst->data, 100, 31) < 0, "data");
	ndk_pair_conn_destroy(c);
	return 0;
}

/* Multi-packet messages across the 24-bit PSN wrap. */
static int
t_psn_wrap(void)
{
	struct ndk_pair *p = pair_get(1024);
	struct ndk_pair_conn_opts o = {
		.fixed_psn = true,
		.sq_psn = { 0xFFFFF0, 0xFFFFFE },
	};
	struct ndk_pair_conn *c;

	TEST_ASSERT(p != NULL, "pair");
	c = conn_new(p, &o);
	TEST_ASSERT(c != NULL, "connection");
	for (unsigned int i = 0; i < 3; i++)
		if (xfer(p, c, XOP_SEND, 40000, 40 + i) != 0 ||
		    xfer(p, c, XOP_WRITE, 40000, 50 + i) != 0 ||
		    xfer(p, c, XOP_READ, 40000, 60 + i) != 0)
			return -1;
	ndk_pair_conn_destroy(c);
	return 0;
}

static const struct ndk_test_case cases[] = {
	{ "adapter_info", t_adapter_info },
	{ "open_errors_and_max_qp", t_open_errors_and_max_qp },
	{ "create_qp_limits", t_create_qp_limits },
	{ "post_unconnected", t_post_unconnected },
	{ "qp_state_transitions", t_qp_state_transitions },
	{ "send_sizes_mtu4096", t_send_mtu4096 },
	{ "write_sizes_mtu4096", t_write_mtu4096 },
	{ "read_sizes_mtu4096", t_read_mtu4096 },
	{ "send_sizes_mtu1024", t_send_mtu1024 },
	{ "write_sizes_mtu1024", t_write_mtu1024 },
	{ "read_sizes_mtu1024", t_read_mtu1024 },
	{ "multi_sge", t_multi_sge },
	{ "inline", t_inline },
	{ "zero_length", t_zero_length },
	{ "result_non_ex", t_result_basic },
	{ "psn_wrap", t_psn_wrap },
};

int
main(int argc, char **argv)
{
	int rc;

	if (ndk_test_eal_init("test_func_rc_basic", "0-1", NULL) != 0)
		return 1;
	rc = ndk_test_run("rc_basic", cases, RTE_DIM(cases), argc, argv);
	if (g_pair != NULL) {
		printf("last pair's counters:\n");
		ndk_pair_print_stats(g_pair, "  ");
	}
	ndk_pair_destroy(g_pair);
	rte_eal_cleanup();
	return rc;
}
