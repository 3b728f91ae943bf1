/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Several queues per adapter (ndk_adapter_config.nb_queues = 2) on a
 * net_ring pair whose queues are crossed: what A sends on queue k, B
 * receives on queue 1 - k, so every RoCE frame of a QP lands on the queue
 * that does not serve it and must be handed over (software steering).
 * Many QPs, spread over both queues by their QPN, move WRITE, READ and
 * SEND at once, data checked; the per-queue counters must show both
 * queues working and frames steered between them. Runs with one lcore per
 * queue (lcores 1 and 2 besides the main lcore 0: oversubscribed on a
 * 2-core machine, which the test must survive) and with one lcore polling
 * both queues of both adapters.
 */

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>

#include "ndk.h"
#include "ndk_pair_test.h"
#include "ndk_test.h"

#define WAIT_S 120.0
#define N_CONN 16
#define ROUNDS 4
#define WRITE_LEN (64 * 1024 + 123)
#define READ_LEN (32 * 1024 + 5)
#define SEND_LEN (8 * 1024 + 77)

/* One connection's buffers for a round. */
struct mq_conn {
	struct ndk_pair_conn *c;
	struct ndk_pair_buf *wsrc, *wdst;   /* WRITE A -> B */
	struct ndk_pair_buf *rsrc, *rdst;   /* READ of B by A */
	struct ndk_pair_buf *ssrc, *sdst;   /* SEND A -> B */
};

static struct mq_conn g_conn[N_CONN];

static struct ndk_pair *
mq_pair(bool lcore_per_queue, bool cross)
{
	struct ndk_pair_config cfg = {
		.nb_queues = 2,
		.cross_queues = cross,
		.lcore_per_queue = lcore_per_queue,
		.max_qp = 256,
	};

	return ndk_pair_create(&cfg);
}

static int
mq_bufs(struct ndk_pair *p, struct mq_conn *m)
{
	struct ndk_pair_conn *c = m->c;

	m->wsrc = ndk_pair_buf_alloc(p, c->pd[0], WRITE_LEN,
				     NDK_MR_FLAG_ALLOW_LOCAL_READ);
	m->wdst = ndk_pair_buf_alloc(p, c->pd[1], WRITE_LEN,
				     NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
	m->rsrc = ndk_pair_buf_alloc(p, c->pd[1], READ_LEN,
				     NDK_MR_FLAG_ALLOW_REMOTE_READ);
	m->rdst = ndk_pair_buf_alloc(p, c->pd[0], READ_LEN,
				     NDK_MR_FLAG_ALLOW_LOCAL_WRITE |
				     NDK_MR_FLAG_RDMA_READ_SINK);
	m->ssrc = ndk_pair_buf_alloc(p, c->pd[0], SEND_LEN,
				     NDK_MR_FLAG_ALLOW_LOCAL_READ);
	m->sdst = ndk_pair_buf_alloc(p, c->pd[1], SEND_LEN,
				     NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	TEST_ASSERT(m->wsrc && m->wdst && m->rsrc && m->rdst && m->ssrc &&
		    m->sdst, "buffers");
	return 0;
}

/* Post one round on every connection at once, then collect and check. */
static int
mq_round(unsigned int round)
{
	struct ndk_result_ex r;
	char d[200];

	for (unsigned int i = 0; i < N_CONN; i++) {
		struct mq_conn *m = &g_conn[i];
		struct ndk_pair_conn *c = m->c;
		uint32_t seed = round * 1000 + i * 3;
		struct ndk_sge sge;
		ndk_status_t st;

		memset(m->wdst->data, 0, WRITE_LEN);
		memset(m->rdst->data, 0, READ_LEN);
		memset(m->sdst->data, 0, SEND_LEN);
		ndk_pair_fill(m->wsrc->data, WRITE_LEN, seed);
		ndk_pair_fill(m->rsrc->data, READ_LEN, seed + 1);
		ndk_pair_fill(m->ssrc->data, SEND_LEN, seed + 2);

		sge = ndk_pair_sge(m->sdst, 0, SEND_LEN);
		st = ndk_receive(c->qp[1], m, &sge, 1);
		TEST_ASSERT(st == NDK_STATUS_SUCCESS, "receive: %s",
			    ndk_status_str(st));
		sge = ndk_pair_sge(m->wsrc, 0, WRITE_LEN);
		st = ndk_write(c->qp[0], &m->wsrc, &sge, 1,
			       ndk_pair_raddr(m->wdst, 0), m->wdst->rtoken, 0);
		TEST_ASSERT(st == NDK_STATUS_SUCCESS, "write: %s",
			    ndk_status_str(st));
		sge = ndk_pair_sge(m->rdst, 0, READ_LEN);
		st = ndk_read(c->qp[0], &m->rdst, &sge, 1,
			      ndk_pair_raddr(m->rsrc, 0), m->rsrc->rtoken, 0);
		TEST_ASSERT(st == NDK_STATUS_SUCCESS, "read: %s",
			    ndk_status_str(st));
		sge = ndk_pair_sge(m->ssrc, 0, SEND_LEN);
		st = ndk_send(c->qp[0], &m->ssrc, &sge, 1, 0);
		TEST_ASSERT(st == NDK_STATUS_SUCCESS, "send: %s",
			    ndk_status_str(st));
	}
	/*
	 * Control operations while both queues move data: each pauses the
	 * other queue's poller between two polls (swr_ctl_exec).
	 */
	for (unsigned int i = 0; i < N_CONN; i++) {
		const struct ndk_pair_conn *c = g_conn[i].c;

		for (int s = 0; s < 2; s++) {
			struct ndk_qp_info qi;
			ndk_status_t st = ndk_qp_query_info(c->pair->ad[s],
							    c->qpn[s], &qi);

			TEST_ASSERT(st == NDK_STATUS_SUCCESS &&
				    qi.qpn == c->qpn[s] &&
				    qi.state == NDK_QP_STATE_RTS &&
				    qi.dest_qpn == c->qpn[1 - s],
				    "conn %u side %d: query %s, state %u",
				    i, s, ndk_status_str(st), qi.state);
		}
	}
	for (unsigned int i = 0; i < N_CONN; i++) {
		struct mq_conn *m = &g_conn[i];
		struct ndk_pair_conn *c = m->c;
		uint32_t seed = round * 1000 + i * 3;
		void *want[3] = { &m->wsrc, &m->rdst, &m->ssrc };

		/* One CQ per side of a connection: completions in order. */
		for (int k = 0; k < 3; k++) {
			TEST_ASSERT(ndk_pair_wait(c->icq[0], &r, 1,
						  WAIT_S) == 1,
				    "conn %u (QPN %u/%u): no completion %d "
				    "within %.0f s", i, c->qpn[0], c->qpn[1], k,
				    WAIT_S);
			ndk_pair_result_str(&r, d, sizeof(d));
			TEST_ASSERT(r.status == NDK_STATUS_SUCCESS &&
				    r.request_context == want[k],
				    "conn %u: completion %d: %s", i, k, d);
		}
		TEST_ASSERT(ndk_pair_wait(c->rcq[1], &r, 1, WAIT_S) == 1,
			    "conn %u: no receive completion", i);
		ndk_pair_result_str(&r, d, sizeof(d));
		TEST_ASSERT(r.status == NDK_STATUS_SUCCESS &&
			    r.type == NDK_OP_RECEIVE &&
			    r.request_context == m &&
			    r.bytes_transferred == SEND_LEN,
			    "conn %u: receive: %s", i, d);
		TEST_ASSERT(ndk_pair_check(m->wdst->data, WRITE_LEN, seed) < 0,
			    "conn %u: WRITE data differs", i);
		TEST_ASSERT(ndk_pair_check(m->rdst->data, READ_LEN,
					   seed + 1) < 0,
			    "conn %u: READ data differs", i);
		TEST_ASSERT(ndk_pair_check(m->sdst->data, SEND_LEN,
					   seed + 2) < 0,
			    "conn %u: SEND data differs", i);
		TEST_ASSERT(ndk_pair_buf_guards_ok(m->wdst) &&
			    ndk_pair_buf_guards_ok(m->rdst) &&
			    ndk_pair_buf_guards_ok(m->sdst),
			    "conn %u: guard bytes changed", i);
	}
	return 0;
}

static void
mq_print_queue_stats(const struct ndk_pair *p)
{
	for (int s = 0; s < 2; s++) {
		for (uint16_t k = 0; k < p->nb_queues; k++) {
			struct ndk_test_xstats q;

			if (ndk_test_queue_xstats_read(p->ad[s], k, &q) != 0)
				continue;
			printf("  %c queue %u: rx %" PRIu64 " tx %" PRIu64
			       " steered out %" PRIu64 " in %" PRIu64
			       " dropped %" PRIu64 " wqe %" PRIu64
			       " retransmits %" PRIu64 "\n",
			       s == 0 ? 'A' : 'B', k, XS(&q, "rx_packets"),
			       XS(&q, "tx_packets"), XS(&q, "rx_steered_out"),
			       XS(&q, "rx_steered_in"),
			       XS(&q, "rx_steer_drops"),
			       XS(&q, "wqe_completed"),
			       XS(&q, "retransmit_packets"));
		}
	}
}

/*
 * The generic counters and the extended ones they sum (swroce's mapping,
 * swroce_xstats.h), stated again here to be checked.
 */
static const struct {
	const char *name;
	size_t off;                /* in struct ndk_adapter_stats */
	const char *const sum[8];  /* NULL-terminated */
} mq_generic[] = {
#define MQ_G_(f, ...) \
	{ #f, offsetof(struct ndk_adapter_stats, f), { __VA_ARGS__, NULL } }
	MQ_G_(rx_packets, "rx_packets"),
	MQ_G_(rx_bytes, "rx_bytes"),
	MQ_G_(tx_packets, "tx_packets"),
	MQ_G_(tx_bytes, "tx_bytes"),
	MQ_G_(rx_errors, "rx_truncated", "rx_bad_header", "rx_bad_opcode",
	      "rx_icrc_errors", "rx_bad_length"),
	MQ_G_(rx_dropped, "rx_not_roce", "rx_wrong_address", "rx_unknown_qpn",
	      "rx_qp_state", "rx_ghost_resp", "rx_steer_drops"),
	MQ_G_(tx_errors, "mbuf_alloc_fail", "neigh_pending_drops"),
	MQ_G_(retransmits, "retransmit_packets"),
#undef MQ_G_
};

/* Every generic counter of @p g is the sum of its extended ones in @p x. */
static int
mq_generic_ok(const struct ndk_adapter_stats *g,
	      const struct ndk_test_xstats *x, const char *what)
{
	for (unsigned int i = 0; i < RTE_DIM(mq_generic); i++) {
		uint64_t want = 0, have;

		for (unsigned int k = 0; mq_generic[i].sum[k] != NULL; k++)
			want += XS(x, mq_generic[i].sum[k]);
		memcpy(&have, (const uint8_t *)g + mq_generic[i].off,
		       sizeof(have));
		TEST_ASSERT_EQ(have, want, "%s: generic %s", what,
			       mq_generic[i].name);
	}
	return 0;
}

/*
 * Generic counters against extended ones read around them, until the
 * extended ones held still over the read (the pollers run on).
 */
static int
mq_generic_check(struct ndk_adapter *ad, int queue, const char *what)
{
	struct ndk_test_xstats x0, x1;
	struct ndk_adapter_stats g;

	for (int t = 0; t < 100; t++) {
		if (queue < 0) {
			ndk_test_xstats_read(ad, &x0);
			ndk_adapter_get_stats(ad, &g);
			ndk_test_xstats_read(ad, &x1);
		} else {
			ndk_test_queue_xstats_read(ad, (uint16_t)queue, &x0);
			TEST_ASSERT(ndk_adapter_get_queue_stats(ad,
					(uint16_t)queue, &g) == 0, "%s", what);
			ndk_test_queue_xstats_read(ad, (uint16_t)queue, &x1);
		}
		if (memcmp(x0.v, x1.v, sizeof(x0.v)) == 0)
			return mq_generic_ok(&g, &x0, what);
		ndk_pair_sleep_ms(20);
	}
	TEST_FAIL("%s: the counters never held still", what);
}

/* xstats of adapter @p s: names and values agree, short arrays, sums. */
static int
mq_check_xstats(const struct ndk_pair *p, int s)
{
	static struct ndk_xstat_name names[NDK_TEST_XSTATS_MAX];
	static struct ndk_xstat_name nm_short[NDK_TEST_XSTATS_MAX];
	struct ndk_xstat v[NDK_TEST_XSTATS_MAX], v_short[NDK_TEST_XSTATS_MAX];
	struct ndk_adapter *ad = p->ad[s];
	struct ndk_test_xstats all, q[2];
	uint64_t val;
	int n;

	n = ndk_adapter_xstats_get_names(ad, NULL, 0);
	TEST_ASSERT(n > 1 && n <= NDK_TEST_XSTATS_MAX, "%d names", n);
	TEST_ASSERT_EQ(ndk_adapter_xstats_get(ad, NULL, 0), n, "values");
	TEST_ASSERT_EQ(ndk_adapter_queue_xstats_get(ad, 1, NULL, 0), n,
		       "queue values");
	TEST_ASSERT_EQ(ndk_adapter_xstats_get_names(ad, names,
						    (unsigned int)n), n, "");
	for (int i = 0; i < n; i++) {
		TEST_ASSERT(names[i].name[0] != '\0' &&
			    memchr(names[i].name, '\0',
				   sizeof(names[i].name)) != NULL &&
			    names[i].desc[0] != '\0', "name %d", i);
		for (int k = 0; k < i; k++)
			TEST_ASSERT(strcmp(names[k].name, names[i].name) != 0,
				    "%s twice", names[i].name);
	}
	/* One short: the count needed, nothing written. */
	memset(nm_short, 0xa5, sizeof(nm_short));
	memset(v_short, 0xa5, sizeof(v_short));
	memset(v, 0xa5, sizeof(v));
	TEST_ASSERT_EQ(ndk_adapter_xstats_get_names(ad, nm_short,
						    (unsigned int)n - 1), n,
		       "names, one short");
	TEST_ASSERT_EQ(ndk_adapter_xstats_get(ad, v_short,
					      (unsigned int)n - 1), n,
		       "values, one short");
	TEST_ASSERT_EQ(ndk_adapter_queue_xstats_get(ad, 0, v,
						    (unsigned int)n - 1), n,
		       "queue values, one short");
	for (size_t i = 0; i < sizeof(v); i++)
		TEST_ASSERT(((const uint8_t *)nm_short)[i] == 0xa5 &&
			    ((const uint8_t *)v_short)[i] == 0xa5 &&
			    ((const uint8_t *)v)[i] == 0xa5,
			    "a short array was written (byte %zu)", i);
	/* The same order: ids are indices into the names. */
	TEST_ASSERT_EQ(ndk_adapter_xstats_get(ad, v, (unsigned int)n + 5), n,
		       "values, room to spare");
	for (int i = 0; i < n; i++)
		TEST_ASSERT_EQ(v[i].id, i, "value %d", i);
	for (uint16_t k = 0; k < 2; k++) {
		TEST_ASSERT_EQ(ndk_adapter_queue_xstats_get(ad, k, v,
							    (unsigned int)n),
			       n, "queue %u", k);
		for (int i = 0; i < n; i++)
			TEST_ASSERT_EQ(v[i].id, i, "queue %u value %d", k, i);
	}
	TEST_ASSERT_EQ(ndk_adapter_queue_xstats_get(ad, 2, v, (unsigned int)n),
		       -EINVAL, "queue 2 of 2");
	TEST_ASSERT_EQ(ndk_adapter_xstats_get_names(NULL, NULL, 0), -EINVAL,
		       "no adapter");
	TEST_ASSERT_EQ(ndk_adapter_xstats_get(ad, NULL, 1), -EINVAL,
		       "NULL array");
	/* By name. */
	TEST_ASSERT_EQ(ndk_adapter_xstats_get_by_name(ad, "no_such_counter",
						      &val), -ENOENT, "");
	TEST_ASSERT_EQ(ndk_adapter_xstats_get_by_name(ad, names[n - 1].name,
						      &val), 0, "%s",
		       names[n - 1].name);
	/* The adapter's are its queues' and its own: not less. */
	ndk_test_queue_xstats_read(ad, 0, &q[0]);
	ndk_test_queue_xstats_read(ad, 1, &q[1]);
	ndk_test_xstats_read(ad, &all);
	TEST_ASSERT_EQ(all.n, (unsigned int)n, "snapshot");
	for (int i = 0; i < n; i++)
		TEST_ASSERT(all.v[i] >= q[0].v[i] + q[1].v[i],
			    "%s: adapter %" PRIu64 " < queues %" PRIu64
			    " + %" PRIu64, names[i].name, all.v[i], q[0].v[i],
			    q[1].v[i]);
	if (mq_generic_check(ad, -1, "adapter") != 0 ||
	    mq_generic_check(ad, 0, "queue 0") != 0 ||
	    mq_generic_check(ad, 1, "queue 1") != 0)
		return -1;
	return 0;
}

/* Both queues of both adapters served QPs; frames crossed over. */
static int
mq_check_queues(const struct ndk_pair *p, bool cross, bool same_parity)
{
	mq_print_queue_stats(p);
	for (int s = 0; s < 2; s++) {
		struct ndk_test_xstats all, q[2];

		if (mq_check_xstats(p, s) != 0)
			return -1;
		ndk_test_xstats_read(p->ad[s], &all);
		for (uint16_t k = 0; k < 2; k++) {
			TEST_ASSERT(ndk_test_queue_xstats_read(p->ad[s], k,
							       &q[k]) == 0,
				    "queue stats %u", k);
			TEST_ASSERT(XS(&q[k], "tx_packets") > 0 &&
				    XS(&q[k], "rx_packets") > 0 &&
				    XS(&q[k], "wqe_completed") > 0,
				    "side %d queue %u did no work", s, k);
			if (cross)
				TEST_ASSERT(XS(&q[k], "rx_steered_in") > 0 &&
					    XS(&q[k], "rx_steered_out") > 0,
					    "side %d queue %u: nothing steered",
					    s, k);
		}
		TEST_ASSERT(XS(&all, "rx_steered_out") >=
			    XS(&q[0], "rx_steered_out") +
			    XS(&q[1], "rx_steered_out") &&
			    XS(&all, "wqe_completed") >=
			    XS(&q[0], "wqe_completed") +
			    XS(&q[1], "wqe_completed"),
			    "adapter counters are not the queues' sum");
		/* The last ACKs may still sit in an inbound ring: wait. */
		for (int t = 0; t < 100 && XS(&all, "rx_steered_in") +
		     XS(&all, "rx_steer_drops") != XS(&all, "rx_steered_out");
		     t++) {
			ndk_pair_sleep_ms(100);
			ndk_test_xstats_read(p->ad[s], &all);
		}
		TEST_ASSERT(XS(&all, "rx_steered_in") +
			    XS(&all, "rx_steer_drops") ==
			    XS(&all, "rx_steered_out"),
			    "steered %" PRIu64 " != taken %" PRIu64
			    " + dropped %" PRIu64, XS(&all, "rx_steered_out"),
			    XS(&all, "rx_steered_in"),
			    XS(&all, "rx_steer_drops"));
		if (!cross && same_parity)
			TEST_ASSERT(XS(&all, "rx_steered_out") == 0,
				    "straight queues steered %" PRIu64
				    " frames", XS(&all, "rx_steered_out"));
	}
	return 0;
}

static int
mq_run(bool lcore_per_queue, bool cross, bool arp)
{
	struct ndk_pair *p = mq_pair(lcore_per_queue, cross);
	unsigned int on_q1[2] = { 0, 0 };
	bool same_parity = true;
	int rc = -1;

	TEST_ASSERT(p != NULL, "pair with 2 queues");
	TEST_ASSERT(p->info[0].nb_queues == 2 && p->info[1].nb_queues == 2,
		    "adapter info: %u/%u queues", p->info[0].nb_queues,
		    p->info[1].nb_queues);
	memset(g_conn, 0, sizeof(g_conn));
	for (unsigned int i = 0; i < N_CONN; i++) {
		struct ndk_pair_conn_opts o = {
			.rq_depth = 8,
			.sq_depth = 8,
			.shared_cq = true,
			.resolve_mac = arp,
		};

		g_conn[i].c = ndk_pair_conn_create(p, &o, NULL);
		if (g_conn[i].c == NULL || mq_bufs(p, &g_conn[i]) != 0) {
			fprintf(stderr, "connection %u failed\n", i);
			goto out;
		}
		for (int s = 0; s < 2; s++)
			on_q1[s] += g_conn[i].c->qpn[s] & 1;
		/* Straight queues: a QP pair on different queues steers. */
		if ((g_conn[i].c->qpn[0] ^ g_conn[i].c->qpn[1]) & 1)
			same_parity = false;
	}
	/* QPN n is served by queue n & 1: both queues have QPs. */
	if (on_q1[0] == 0 || on_q1[0] == N_CONN || on_q1[1] == 0 ||
	    on_q1[1] == N_CONN) {
		fprintf(stderr, "QPs not spread over the queues: %u/%u, %u/%u "
			"on queue 1\n", on_q1[0], N_CONN, on_q1[1], N_CONN);
		goto out;
	}
	for (unsigned int r = 0; r < ROUNDS; r++)
		if (mq_round(r) != 0)
			goto out;
	if (mq_check_queues(p, cross, same_parity) != 0)
		goto out;
	if (arp) {
		if (ndk_test_xstat(p->ad[0], "arp_replies_rcvd") == 0) {
			fprintf(stderr, "no ARP reply: MACs not resolved\n");
			goto out;
		}
	}
	rc = 0;
out:
	ndk_pair_destroy(p);
	return rc;
}

/* One poller per queue: lcore 1 polls queue 0 of A and B, lcore 2 queue 1. */
static int
test_lcore_per_queue(void)
{
	return mq_run(true, true, false);
}

/* One lcore polls both queues of both adapters. */
static int
test_one_lcore(void)
{
	return mq_run(false, true, false);
}

/* Queues not crossed: the port delivers every frame to its QP's queue. */
static int
test_straight(void)
{
	return mq_run(true, false, false);
}

/*
 * Peers resolved by ARP: queue 1's first frames wait in queue 0's
 * neighbour table, and ARP arriving on queue 1 is handed to queue 0.
 */
static int
test_arp(void)
{
	return mq_run(true, true, true);
}

/* Queue counts that are not a power of two up to 16 are refused. */
static int
test_bad_queue_count(void)
{
	struct ndk_pair *p = mq_pair(false, false);
	static const uint16_t bad[] = { 3, 6, 32 };
	struct ndk_adapter *ad;
	int rc = 0;

	TEST_ASSERT(p != NULL, "pair");
	for (unsigned int i = 0; i < RTE_DIM(bad) && rc == 0; i++) {
		struct ndk_adapter_config ac = {
			.port_id = p->port[0],
			.ipv4 = p->ipv4[0],
			.socket_id = SOCKET_ID_ANY,
			.nb_queues = bad[i],
		};
		ndk_status_t st = ndk_adapter_open(&ac, &ad);

		if (st != NDK_STATUS_INVALID_PARAMETER) {
			fprintf(stderr, "%u queues: %s\n", bad[i],
				ndk_status_str(st));
			if (st == NDK_STATUS_SUCCESS)
				ndk_adapter_close(ad);
			rc = -1;
		}
	}
	ndk_pair_destroy(p);
	return rc;
}

int
main(int argc, char **argv)
{
	static const struct ndk_test_case cases[] = {
		{ "lcore_per_queue", test_lcore_per_queue },
		{ "one_lcore", test_one_lcore },
		{ "straight", test_straight },
		{ "arp", test_arp },
		{ "bad_queue_count", test_bad_queue_count },
	};
	int rc;

	/* Three lcores floating over two CPUs: oversubscribed, on purpose. */
	if (ndk_test_eal_init("test_multiqueue", "(0-2)@(0-1)", NULL) != 0)
		return 1;
	rc = ndk_test_run("multiqueue", cases, RTE_DIM(cases), argc, argv);
	rte_eal_cleanup();
	return rc;
}
