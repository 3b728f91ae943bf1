/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: congestion control (doc/cc.md).
 *
 * incast_off / incast_dcqcn / incast_delay: 16 QPs of adapter A WRITE 64 KiB
 * messages to adapter B through a bottleneck (lib/netem's queue on B's
 * receive queue: NDK_INCAST_MBPS, default 200 Mbit/s, a 256-packet
 * buffer, RED-like ECN marking from 20 to 100 packets) for
 * NDK_INCAST_SECONDS (default 2), each QP keeping 4 messages in flight.
 * Every message's data is checked. Printed: the bottleneck's drop rate
 * (the whole run), and over the run after NDK_INCAST_WARMUP (default
 * 0.2 s): goodput (messages completed, payload only) / bottleneck rate,
 * Jain's fairness index of the QPs' completed bytes and the p99 message
 * latency (post to completion); the timeouts. At MTU 1024 a frame carries
 * 1024 of its 1,106 wire bytes: goodput / bottleneck is at most 0.926. With DCQCN
 * the bottleneck must have marked, B sent CNPs and A cut rates.
 *
 * Simulated time (the default): no pollers run; this thread makes the
 * connections and then runs everything in turn, one round at a time: the clock moves NDK_INCAST_STEP_NS (default 1000 ns) of simulated
 * time, A and B are polled once each and the completions are taken and
 * the messages posted again. The adapters (swr_hook_set_clock()), the
 * bottleneck and the measurement all read that clock: the run is the
 * same on a loaded machine as on a quiet one (a machine whose poll is
 * free, with a poll loop of one step per round), and with control on
 * (DCQCN starting at an eighth of the line, NDK_INCAST_START_MBPS; the
 * delay mode's first window 16 packets, NDK_INCAST_WND) the issue's
 * targets are asserted (drops <= 0.1 %, goodput >= 0.90 of
 * the bottleneck, Jain's index >= 0.95). NDK_INCAST_CLOCK=real runs the
 * same on the pollers' lcore in real time instead, figures printed, never
 * asserted (timing).
 * NDK_INCAST_CNP_US, NDK_INCAST_KMIN and NDK_INCAST_KMAX override the
 * CNP interval and the marking thresholds, for experiments (no targets
 * asserted then); NDK_INCAST_SR=1 connects the QPs with selective repeat;
 * NDK_INCAST_STATS=1 prints both adapters' counters.
 *
 * cnp_storm: CNPs injected into A as fast as its ring takes them while
 * two QPs WRITE: one QP's CNPs (it is held near its minimum rate), CNPs
 * naming no QP and CNPs with a bad ICRC. Every CNP must be parsed and
 * counted, both QPs must finish with their data right: the paced QP is
 * slowed, never stalled, and it does not hold the other back.
 */

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "ndk.h"
#include "ndk_netem_queue.h"
#include "ndk_pair_test.h"
#include "ndk_roce.h"
#include "ndk_test.h"
#include "sim_clock.h"

#define MTU		1024u
#define MSG		(64u * 1024)
#define DEPTH		4u
#define NQP		16u
#define LINE_MBPS	4000u	/* cnp_storm's line rate */
#define WAIT_S		120.0
#define SIM_WAIT_S	10.0	/* simulated */
#define MAX_SAMPLES	(1u << 16)

struct iqp {
	struct ndk_pair_conn *c;
	struct ndk_pair_buf *src, *dst;       /* DEPTH slots of MSG each */
	uint32_t seq[DEPTH];                  /* message in each slot */
	double t_post[DEPTH];
	uint32_t next_seq;
	uint32_t outstanding;
	uint64_t bytes;                       /* completed in the window */
	uint32_t done;
};

static const char *const mode_name[] = {
	[NDK_CC_NONE] = "off", [NDK_CC_DCQCN] = "dcqcn",
	[NDK_CC_DELAY] = "delay",
};

static double lat[MAX_SAMPLES];
static uint32_t n_lat;

/* Simulated time: the clock of both adapters, the bottleneck and ours. */
static bool sim;
static double sim_hz;

static double
now_s(void)
{
	return sim ? (double)sim_now / sim_hz : ndk_pair_now();
}

/* One round of simulated time: the clock moves, A and B are polled. */
static void
sim_round(struct ndk_pair *p, uint64_t step)
{
	sim_now += step;
	ndk_adapter_poll(p->ad[NDK_PAIR_A]);
	ndk_adapter_poll(p->ad[NDK_PAIR_B]);
}

static uint32_t
env_u32(const char *name, uint32_t def)
{
	const char *v = getenv(name);

	return v != NULL && atoi(v) > 0 ? (uint32_t)atoi(v) : def;
}

static uint32_t
seed_of(unsigned int qi, uint32_t seq)
{
	return qi * 1000003u + seq * 7919u + 1u;
}

/* A connection from A to B with DEPTH message slots on each side. */
static int
iqp_setup(struct ndk_pair *p, struct iqp *q)
{
	struct ndk_pair_conn_opts o = {
		.sq_depth = DEPTH * 2, .rq_depth = 4,
		.retry_cnt = 7, .rnr_retry = 7,
		.selective_repeat = env_u32("NDK_INCAST_SR", 0) != 0,
	};

	q->c = ndk_pair_conn_create(p, &o, NULL);
	if (q->c == NULL)
		return -1;
	q->src = ndk_pair_buf_alloc(p, q->c->pd[0], (size_t)DEPTH * MSG, 0);
	q->dst = ndk_pair_buf_alloc(p, q->c->pd[1], (size_t)DEPTH * MSG,
				    NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
	return q->src != NULL && q->dst != NULL ? 0 : -1;
}

static int
iqp_post(struct iqp *q, unsigned int qi, unsigned int slot)
{
	struct ndk_sge s = ndk_pair_sge(q->src, (size_t)slot * MSG, MSG);
	ndk_status_t st;

	q->seq[slot] = q->next_seq++;
	ndk_pair_fill(q->src->data + (size_t)slot * MSG, MSG,
		      seed_of(qi, q->seq[slot]));
	q->t_post[slot] = now_s();
	st = ndk_write(q->c->qp[0], (void *)(uintptr_t)(slot + 1), &s, 1,
		       ndk_pair_raddr(q->dst, (size_t)slot * MSG),
		       q->dst->rtoken, 0);
	if (st != NDK_STATUS_SUCCESS)
		TEST_FAIL("QP %u: ndk_write: %s", qi, ndk_status_str(st));
	q->outstanding++;
	return 0;
}

/* Take QP @p qi's completions; repost while @p more. */
static int
iqp_reap(struct iqp *q, unsigned int qi, bool more, bool count)
{
	struct ndk_result_ex r[DEPTH];
	uint32_t n = ndk_get_cq_results_ex(q->c->icq[0], r, DEPTH);

	for (uint32_t i = 0; i < n; i++) {
		unsigned int slot = (unsigned int)(uintptr_t)
			r[i].request_context - 1;
		long bad;

		TEST_ASSERT(slot < DEPTH && r[i].status == NDK_STATUS_SUCCESS,
			    "QP %u: completion status %s", qi,
			    ndk_status_str(r[i].status));
		bad = ndk_pair_check(q->dst->data + (size_t)slot * MSG, MSG,
				     seed_of(qi, q->seq[slot]));
		TEST_ASSERT(bad < 0, "QP %u message %u: byte %ld wrong", qi,
			    q->seq[slot], bad);
		q->outstanding--;
		q->done++;
		if (count) {
			q->bytes += MSG;
			if (n_lat < MAX_SAMPLES)
				lat[n_lat++] = now_s() - q->t_post[slot];
		}
		if (more && iqp_post(q, qi, slot) != 0)
			return -1;
	}
	return 0;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
env_double(const char *name, double def)
{
	const char *v = getenv(name);

	return v != NULL && atof(v) >= 0 ? atof(v) : def;
}

/* The targets with control on (simulated time only). */
static int
incast_targets(double drop, double gput, double jain)
{
	if (drop <= 0.001 && gput >= 0.90 && jain >= 0.95)
		return 0;
	fprintf(stderr, "  FAIL: targets: drops %.4f (<= 0.001), goodput "
		"%.3f (>= 0.90), Jain %.3f (>= 0.95)\n", drop, gput, jain);
	return -1;
}

static int
run_incast(uint32_t cc)
{
	struct ndk_pair_config pc = {
		.max_path_mtu = MTU,
		.ring_size = 8192,
		.cc = cc,
	};
	uint32_t mbps = env_u32("NDK_INCAST_MBPS", 200);
	double secs = env_double("NDK_INCAST_SECONDS", 2);
	double warm = env_double("NDK_INCAST_WARMUP", 0.2);
	struct ndk_netem_queue_config qc = {
		.rate_bps = (uint64_t)mbps * 1000000u,
		.limit_pkts = 256,
		.ecn_kmin = 20,
		.ecn_kmax = 100,
		.ecn_pmax_ppm = 200000,
		.overhead = NDK_NETEM_QUEUE_ETH_OVERHEAD,
		.seed = 0x1ca57,
	};
	static struct iqp qs[NQP];
	struct ndk_netem_queue_stats ns = { 0 };
	struct ndk_test_xstats st[2];
	struct ndk_netem_queue *bq = NULL;
	struct ndk_pair *p;
	double t0, t1 = 0, sum = 0, sum2 = 0, drop, gput, jain;
	uint64_t total = 0, step = 0, rounds = 0;
	bool custom, sim_on = false;
	int rc = -1;

	memset(qs, 0, sizeof(qs));
	n_lat = 0;
	sim = getenv("NDK_INCAST_CLOCK") == NULL ||
		strcmp(getenv("NDK_INCAST_CLOCK"), "real") != 0;
	custom = getenv("NDK_INCAST_CNP_US") != NULL ||
		getenv("NDK_INCAST_WND") != NULL ||
		getenv("NDK_INCAST_START_MBPS") != NULL ||
		getenv("NDK_INCAST_DELAY_US") != NULL ||
		getenv("NDK_INCAST_SECONDS") != NULL ||
		getenv("NDK_INCAST_WARMUP") != NULL ||
		getenv("NDK_INCAST_KMIN") != NULL ||
		getenv("NDK_INCAST_KMAX") != NULL ||
		getenv("NDK_INCAST_MBPS") != NULL ||
		getenv("NDK_INCAST_STEP_NS") != NULL;
	/* Every sender's link is as fast as the bottleneck's (16:1). */
	pc.cc_line_mbps = mbps;
	pc.cnp_interval_us = env_u32("NDK_INCAST_CNP_US", 0);
	pc.cc_window_init = env_u32("NDK_INCAST_WND", 0);
	/* DCQCN: a QP starts at an eighth of its line (16 of them share one). */
	pc.cc_start_mbps = env_u32("NDK_INCAST_START_MBPS", mbps / 8);
	pc.cc_delay_us = env_u32("NDK_INCAST_DELAY_US", 0);
	qc.ecn_kmin = env_u32("NDK_INCAST_KMIN", qc.ecn_kmin);
	qc.ecn_kmax = env_u32("NDK_INCAST_KMAX", qc.ecn_kmax);
	if (sim) {
		sim_hz = (double)rte_get_tsc_hz();
		step = (uint64_t)(sim_hz * env_u32("NDK_INCAST_STEP_NS", 1000) /
				  1e9);
		if (step == 0)
			step = 1;
		qc.clock = sim_clock;
	}
	/*
	 * Simulated time from the start: no pollers, the connections made
	 * by this thread (control operations run inline), every state of
	 * the adapters set on the simulated clock.
	 */
	pc.no_pollers = sim;
	p = ndk_pair_create(&pc);
	TEST_ASSERT(p != NULL, "pair");
	if (sim) {
		if (sim_clock_set(p, true) != 0)
			goto out;
		sim_on = true;
		sim_round(p, step);
	}
	for (unsigned int i = 0; i < NQP; i++)
		if (iqp_setup(p, &qs[i]) != 0)
			goto out;
	/* B's receive queue is the bottleneck's output port. */
	bq = ndk_netem_queue_attach(p->port[1], 0, &qc);
	if (bq == NULL)
		goto out;
	t0 = now_s();
	t1 = t0;
	for (unsigned int i = 0; i < NQP; i++)
		for (unsigned int k = 0; k < DEPTH; k++)
			if (iqp_post(&qs[i], i, k) != 0)
				goto out;
	/* The window: keep DEPTH messages in flight on every QP. */
	do {
		if (sim) {
			sim_round(p, step);
			rounds++;
		}
		for (unsigned int i = 0; i < NQP; i++)
			if (iqp_reap(&qs[i], i, true, t1 - t0 >= warm) != 0)
				goto out;
		t1 = now_s();
	} while (t1 - t0 < secs);
	/* Drain: every message posted completes (data checked). */
	for (unsigned int i = 0; i < NQP; i++) {
		double td = now_s();

		while (qs[i].outstanding != 0) {
			if (sim)
				sim_round(p, step);
			if (iqp_reap(&qs[i], i, false, false) != 0)
				goto out;
			if (now_s() - td > (sim ? SIM_WAIT_S : WAIT_S)) {
				fprintf(stderr, "  FAIL: QP %u: %u messages "
					"not completed in %.0f s\n", i,
					qs[i].outstanding, sim ? SIM_WAIT_S : WAIT_S);
				goto out;
			}
		}
	}
	rc = 0;
	for (unsigned int i = 0; i < NQP; i++) {
		double x = (double)qs[i].bytes;

		total += qs[i].bytes;
		sum += x;
		sum2 += x * x;
	}
	ndk_netem_queue_get_stats(bq, &ns);
	drop = ns.enqueued + ns.dropped == 0 ? 0.0 :
		(double)ns.dropped / (double)(ns.enqueued + ns.dropped);
	gput = (double)total * 8 / (t1 - t0 - warm) / ((double)mbps * 1e6);
	jain = sum2 == 0 ? 0.0 : sum * sum / (NQP * sum2);
	qsort(lat, n_lat, sizeof(lat[0]), cmp_double);
	printf("  cc %s, %u QPs x %u x %u KiB WRITEs, MTU %u, bottleneck %u "
	       "Mbit/s, 256 packets, %.3f s %s (measured after %.3f s)",
	       mode_name[cc], NQP, DEPTH, MSG / 1024, MTU, mbps, t1 - t0,
	       sim ? "simulated" : "real", warm);
	if (sim)
		printf(" (%" PRIu64 " rounds of %.0f ns)", rounds,
		       (double)step / sim_hz * 1e9);
	printf("\n  FIGURE cc=%s clock=%s drop_rate=%.4f "
	       "goodput/bottleneck=%.3f jain=%.3f p99_ms=%.2f messages=%u\n",
	       mode_name[cc], sim ? "sim" : "real", drop, gput, jain,
	       n_lat == 0 ? 0.0 : lat[(size_t)(n_lat * 0.99)] * 1e3, n_lat);
	printf("  bottleneck: enqueued %" PRIu64 " dropped %" PRIu64 " marked %"
	       PRIu64 " not ECT %" PRIu64 " max depth %u\n", ns.enqueued,
	       ns.dropped, ns.marked, ns.not_ect, ns.max_depth_pkts);
	if (sim && cc != NDK_CC_NONE && !custom)
		rc = incast_targets(drop, gput, jain);
out:
	ndk_pair_stop(p);
	if (sim_on && sim_clock_set(p, false) != 0)
		rc = -1;
	ndk_pair_stats(p, 0, &st[0]);
	ndk_pair_stats(p, 1, &st[1]);
	if (env_u32("NDK_INCAST_STATS", 0) != 0)
		ndk_pair_print_stats(p, "    ");
	printf("  A: cnp_rcvd %" PRIu64 " cnp_rate_cuts %" PRIu64
	       " cc_pace_waits %" PRIu64 " retransmit_packets %" PRIu64
	       " retransmit_timeouts %" PRIu64 "; B: rx_ce %" PRIu64
	       " cnp_sent %" PRIu64 "\n", XS(&st[0], "cnp_rcvd"),
	       XS(&st[0], "cnp_rate_cuts"), XS(&st[0], "cc_pace_waits"),
	       XS(&st[0], "retransmit_packets"),
	       XS(&st[0], "retransmit_timeouts"), XS(&st[1], "rx_ce"),
	       XS(&st[1], "cnp_sent"));
	if (rc == 0 && XS(&st[0], "qp_errors") + XS(&st[1], "qp_errors")) {
		fprintf(stderr, "  FAIL: QPs went to ERROR\n");
		rc = -1;
	}
	if (rc == 0 && cc != NDK_CC_DCQCN && ns.marked != 0) {
		fprintf(stderr, "  FAIL: frames ECT without DCQCN\n");
		rc = -1;
	}
	if (rc == 0 && cc == NDK_CC_DCQCN &&
	    (ns.not_ect != 0 || XS(&st[1], "cnp_sent") == 0 ||
	     XS(&st[0], "cnp_rate_cuts") == 0 ||
	     XS(&st[1], "rx_ce") != ns.marked)) {
		fprintf(stderr, "  FAIL: DCQCN: marks, CE seen, CNPs sent or "
			"rate cuts missing\n");
		rc = -1;
	}
	ndk_netem_queue_detach(bq);
	sim = false;
	ndk_pair_destroy(p);
	return rc;
}

static int
t_incast_off(void)
{
	return run_incast(NDK_CC_NONE);
}

static int
t_incast_dcqcn(void)
{
	return run_incast(NDK_CC_DCQCN);
}

static int
t_incast_delay(void)
{
	return run_incast(NDK_CC_DELAY);
}

/* A CNP from B to A's QP @p qpn (bad ICRC if @p bad). */
static struct rte_mbuf *
cnp_frame(struct ndk_pair *p, struct rte_mempool *mp, uint32_t qpn, bool bad)
{
	struct rte_ether_addr a = { .addr_bytes = NDK_PAIR_MAC(0) };
	struct rte_ether_addr b = { .addr_bytes = NDK_PAIR_MAC(1) };
	struct ndk_roce_l2l4 t;
	struct ndk_roce_bth *bth;
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	uint32_t l4 = 12 + 16 + NDK_ROCE_ICRC_LEN, icrc, len;
	uint8_t *f;

	if (m == NULL)
		return NULL;
	ndk_roce_l2l4_init(&t, &b, &a, p->ipv4[1], p->ipv4[0], 0xc000, 0xc2,
			   64);
	len = t.len + l4;
	f = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	bth = (struct ndk_roce_bth *)ndk_roce_l2l4_write(&t, f, (uint16_t)l4);
	ndk_roce_bth_set(bth, NDK_ROCE_OP_CNP, false, 0, qpn, false, 0);
	bth->qpn |= rte_cpu_to_be_32(NDK_ROCE_BTH_BECN);
	memset(bth + 1, 0, 16);
	icrc = rte_cpu_to_le_32(ndk_roce_icrc_buf(f + RTE_ETHER_HDR_LEN,
		len - RTE_ETHER_HDR_LEN - NDK_ROCE_ICRC_LEN)) ^ (bad ? 1 : 0);
	memcpy(f + len - NDK_ROCE_ICRC_LEN, &icrc, sizeof(icrc));
	return m;
}

static int
t_cnp_storm(void)
{
	struct ndk_pair_config pc = {
		.max_path_mtu = MTU, .mp_rings = true, .ring_size = 8192,
		.cc = NDK_CC_DCQCN, .cc_line_mbps = LINE_MBPS,
	};
	static struct iqp qs[2];
	struct ndk_test_xstats s0, s1;
	struct rte_mempool *mp = NULL;
	uint64_t sent[3] = { 0, 0, 0 };   /* to QP 0, to no QP, bad ICRC */
	struct ndk_pair *p;
	const uint32_t msgs = 16;
	double t0;
	int rc = -1;

	memset(qs, 0, sizeof(qs));
	p = ndk_pair_create(&pc);
	TEST_ASSERT(p != NULL, "pair");
	mp = rte_pktmbuf_pool_create("cnp_storm", 4095, 0, 0,
				     RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (mp == NULL)
		goto out;
	for (unsigned int i = 0; i < 2; i++)
		if (iqp_setup(p, &qs[i]) != 0)
			goto out;
	ndk_pair_stats(p, 0, &s0);
	for (unsigned int i = 0; i < 2; i++)
		for (unsigned int k = 0; k < DEPTH; k++)
			if (iqp_post(&qs[i], i, k) != 0)
				goto out;
	t0 = ndk_pair_now();
	while (qs[0].done < msgs || qs[1].done < msgs) {
		struct rte_mbuf *m[48];
		unsigned int n = 0;
		int k;

		/* The storm lasts while QP 0 has messages to send. */
		for (; qs[0].done < msgs && n < RTE_DIM(m); n++) {
			unsigned int kind = n % 8 == 7 ? 1 + (n / 8) % 2 : 0;
			uint32_t qpn = kind == 1 ? 0xabcdef :
				qs[0].c->qpn[0];

			m[n] = cnp_frame(p, mp, qpn, kind == 2);
			if (m[n] == NULL)
				break;
		}
		k = n != 0 ? ndk_pair_inject(p, NDK_PAIR_A, m, n) : 0;
		if (k < 0)
			k = 0;
		for (unsigned int j = 0; j < (unsigned int)k; j++)
			sent[j % 8 == 7 ? 1 + (j / 8) % 2 : 0]++;
		for (unsigned int j = (unsigned int)k; j < n; j++)
			rte_pktmbuf_free(m[j]);
		for (unsigned int i = 0; i < 2; i++)
			if (iqp_reap(&qs[i], i, qs[i].next_seq < msgs,
				     false) != 0)
				goto out;
		if (ndk_pair_now() - t0 > WAIT_S) {
			fprintf(stderr, "  FAIL: QP 0 %u, QP 1 %u of %u "
				"messages in %.0f s\n", qs[0].done, qs[1].done,
				msgs, WAIT_S);
			goto out;
		}
	}
	/* Let the last CNPs in the ring be taken. */
	ndk_pair_sleep_ms(100);
	rc = 0;
out:
	ndk_pair_stop(p);
	ndk_pair_stats(p, 0, &s1);
	printf("  CNPs injected: %" PRIu64 " to the QP, %" PRIu64 " to no QP, "
	       "%" PRIu64 " bad ICRC; A: cnp_rcvd %" PRIu64 " cnp_rate_cuts %"
	       PRIu64 " cnp_ignored %" PRIu64 " rx_icrc_errors %" PRIu64
	       " cc_pace_waits %" PRIu64 "\n", sent[0], sent[1], sent[2],
	       XS_DIFF(&s1, &s0, "cnp_rcvd"),
	       XS_DIFF(&s1, &s0, "cnp_rate_cuts"),
	       XS_DIFF(&s1, &s0, "cnp_ignored"),
	       XS_DIFF(&s1, &s0, "rx_icrc_errors"),
	       XS_DIFF(&s1, &s0, "cc_pace_waits"));
	if (rc == 0 && (XS_DIFF(&s1, &s0, "cnp_rcvd") != sent[0] + sent[1] ||
			XS_DIFF(&s1, &s0, "cnp_rate_cuts") != sent[0] ||
			XS_DIFF(&s1, &s0, "cnp_ignored") != sent[1] ||
			XS_DIFF(&s1, &s0, "rx_icrc_errors") != sent[2] ||
			sent[0] == 0)) {
		fprintf(stderr, "  FAIL: CNPs not all parsed and counted\n");
		rc = -1;
	}
	if (rc == 0 && XS(&s1, "qp_errors") != 0) {
		fprintf(stderr, "  FAIL: QPs went to ERROR\n");
		rc = -1;
	}
	ndk_pair_destroy(p);
	rte_mempool_free(mp);
	return rc;
}

static const struct ndk_test_case cases[] = {
	{ "cnp_storm", t_cnp_storm },
	{ "incast_off", t_incast_off },
	{ "incast_dcqcn", t_incast_dcqcn },
	{ "incast_delay", t_incast_delay },
};

int
main(int argc, char **argv)
{
	int rc;

	if (ndk_test_eal_init("test_func_incast", "0-1", NULL) < 0)
		return 1;
	rc = ndk_test_run("incast", cases, RTE_DIM(cases), argc, argv);
	rte_eal_cleanup();
	return rc;
}
