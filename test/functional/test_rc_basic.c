/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: one RC connection at a time between two swroce adapters on a
 * net_ring pair. Adapter limits, adapter-open errors, object limits, posts
 * on an unconnected QP and the QP state machine. Data transfers are in
 * test_rc_data.c.
 */

#include <stdio.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_common.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_ring.h>

#include "rc_common.h"

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
	const uint8_t want_mac[6] = NDK_PAIR_MAC(NDK_PAIR_A);
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
	/* NDKPI 2.1: the API's forms (AcceptEx, CompleteConnectEx, the
	 * disconnect reason, ProviderErrorCode), in the info and in every
	 * object header. */
	TEST_ASSERT(info.version.major == 2 && info.version.minor == 1,
		    "version %u.%u, 2.1 expected", info.version.major,
		    info.version.minor);
	TEST_ASSERT(p->ad[0]->header.version.major == 2 &&
		    p->ad[0]->header.version.minor == 1, "header version");
	TEST_ASSERT_EQ(info.rdma_technology, NDK_RDMA_ROCEV2, "technology");
	TEST_ASSERT_EQ(info.max_path_mtu, 4096, "path MTU");
	TEST_ASSERT_EQ(info.port_id, p->port[0], "port");
	TEST_ASSERT_EQ(info.ipv4, p->ipv4[0], "address");
	TEST_ASSERT(rte_eth_macaddr_get(p->port[0], &mac) == 0, "mac");
	/* The pair configures a MAC (net_ring ports have none). */
	TEST_ASSERT(memcmp(want_mac, info.mac, 6) == 0, "MAC differs "
		    "from the configured one");
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
/* NdkQueryExtension                                                   */
/* ------------------------------------------------------------------ */

static void
no_connect_event(void *context, struct ndk_connector *connector)
{
	RTE_SET_USED(context);
	ndk_close_connector(connector, NULL, NULL);
}

/* Every object type answers STATUS_NOT_SUPPORTED, leaving @p iface alone. */
static int
t_query_extension(void)
{
	const struct ndk_guid guid = {
		0x12345678, 0x9abc, 0xdef0, { 1, 2, 3, 4, 5, 6, 7, 8 },
	};
	const struct ndk_version v = { 1, 0 };
	struct ndk_pair *p = pair_get(4096);
	struct ndk_object_header bogus;
	struct ndk_cq *cq = NULL;
	struct ndk_pd *pd = NULL;
	struct ndk_mr *mr = NULL;
	struct ndk_mw *mw = NULL;
	struct ndk_qp *qp = NULL, *sqp = NULL;
	struct ndk_srq *srq = NULL;
	struct ndk_connector *conn = NULL;
	struct ndk_listener *lst = NULL;
	void *iface = &bogus;
	ndk_status_t st;
	int rc = -1;

	TEST_ASSERT(p != NULL, "pair");
	if (ndk_create_cq(p->ad[0], 16, NULL, NULL, &cq) != NDK_STATUS_SUCCESS ||
	    ndk_create_pd(p->ad[0], &pd) != NDK_STATUS_SUCCESS ||
	    ndk_create_mr(pd, false, &mr) != NDK_STATUS_SUCCESS ||
	    ndk_create_mw(pd, &mw) != NDK_STATUS_SUCCESS ||
	    ndk_create_qp(pd, cq, cq, NULL, 4, 4, 1, 1, 0, &qp) !=
	    NDK_STATUS_SUCCESS ||
	    ndk_create_srq(pd, 4, 1, 0, NULL, NULL, &srq) !=
	    NDK_STATUS_SUCCESS ||
	    ndk_create_qp_with_srq(pd, cq, cq, srq, NULL, 4, 1, 0, &sqp) !=
	    NDK_STATUS_SUCCESS ||
	    ndk_create_connector(p->ad[0], &conn) != NDK_STATUS_SUCCESS ||
	    ndk_create_listener(p->ad[0], no_connect_event, NULL, &lst) !=
	    NDK_STATUS_SUCCESS) {
		printf("  creating the objects failed\n");
		goto out;
	}
	{
		const struct ndk_object_header *objs[] = {
			&p->ad[0]->header, &cq->header, &pd->header,
			&mr->header, &mw->header, &qp->header, &srq->header,
			&sqp->header, &conn->header, &lst->header,
		};

		for (unsigned int i = 0; i < RTE_DIM(objs); i++) {
			st = ndk_query_extension(objs[i], &guid, v, &iface);
			if (st != NDK_STATUS_NOT_SUPPORTED ||
			    iface != &bogus) {
				printf("  object type %d: %s\n", objs[i]->type,
				       ndk_status_str(st));
				goto out;
			}
		}
	}
	memset(&bogus, 0, sizeof(bogus));
	st = ndk_query_extension(&bogus, &guid, v, &iface);
	if (st != NDK_STATUS_INVALID_PARAMETER ||
	    ndk_query_extension(NULL, &guid, v, &iface) !=
	    NDK_STATUS_INVALID_PARAMETER ||
	    ndk_query_extension(&cq->header, NULL, v, &iface) !=
	    NDK_STATUS_INVALID_PARAMETER ||
	    ndk_query_extension(&cq->header, &guid, v, NULL) !=
	    NDK_STATUS_INVALID_PARAMETER) {
		printf("  bad arguments not refused (%s)\n",
		       ndk_status_str(st));
		goto out;
	}
	rc = 0;
out:
	if (lst != NULL)
		ndk_close_listener(lst, NULL, NULL);
	if (conn != NULL)
		ndk_close_connector(conn, NULL, NULL);
	if (sqp != NULL)
		ndk_close_qp(sqp, NULL, NULL);
	if (qp != NULL)
		ndk_close_qp(qp, NULL, NULL);
	if (srq != NULL)
		ndk_close_srq(srq, NULL, NULL);
	if (mw != NULL)
		ndk_close_mw(mw, NULL, NULL);
	if (mr != NULL)
		ndk_close_mr(mr, NULL, NULL);
	if (pd != NULL)
		ndk_close_pd(pd, NULL, NULL);
	if (cq != NULL)
		ndk_close_cq(cq, NULL, NULL);
	return rc;
}

static const struct ndk_test_case cases[] = {
	{ "adapter_info", t_adapter_info },
	{ "open_errors_and_max_qp", t_open_errors_and_max_qp },
	{ "create_qp_limits", t_create_qp_limits },
	{ "post_unconnected", t_post_unconnected },
	{ "qp_state_transitions", t_qp_state_transitions },
	{ "query_extension", t_query_extension },
};

int
main(int argc, char **argv)
{
	return rc_main("test_func_rc_basic", "rc_basic", cases, RTE_DIM(cases),
		       argc, argv);
}
