/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: the QPs' retransmission timers on the queues' timer wheels
 * (drivers/swroce/rc/swroce_timer.h) with many QPs. Both adapters are polled
 * from this thread (no pollers); between polls, A's requests to the QPs
 * of "silent" peers are dropped, so those peers never answer.
 *
 * - 1,024 QPs, every 8th peer silent: the silent ones time out, retry and
 *   end in IO_TIMEOUT / RETRY_EXCEEDED (the later WRITEs flushed), exactly
 *   retry_cnt + 1 timeouts each; the others complete with their data in
 *   place and no timeout at all;
 * - a QP destroyed while its timer is armed: nothing fires afterwards;
 *   before that, waiting for its ACK, it is off the active list.
 *
 * NDK_TEST_QUEUES=2: two queues per adapter (a wheel each), crossed.
 * Nothing depends on speed: a stall is deferred by the engine, not
 * counted as a timeout.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "ndk.h"
#include "ndk_pair_test.h"
#include "ndk_roce.h"
#include "ndk_test.h"

#define WAIT_S 120.0
#define A NDK_PAIR_A
#define B NDK_PAIR_B
#define NCONN 1024
#define NOPS 4
#define SILENT_EVERY 8
#define LEN 200
/*
 * 4.096 us << 16: ~268 ms. An answering QP's ACK must be read before its
 * timer expires: A takes 32 ACKs a poll while B drains 4,096 requests, and
 * the engine defers an expiry only after a single poll gap longer than the
 * timeout, not after many shorter ones (an ASan build on a loaded machine
 * once took longer than 67 ms, with 2 << 14 as the timeout).
 */
#define TIMEOUT 16
/* Seconds of the QP timeout, and of three of them and a lap of the wheel. */
#define TIMEOUT_S (4.096e-6 * (double)(1u << TIMEOUT))
#define PAST_TIMEOUTS_S (4 * TIMEOUT_S)
#define RETRY_CNT 2
#define RING_SLOTS 16384

static struct ndk_pair *g_pair;
static uint8_t silent[(NDK_ROCE_QPN_MASK + 1) / 8]; /* B's QPNs, bits */
static struct ndk_pair_conn *conns[NCONN];
static struct ndk_pd *pds[2];     /* one per side: buffers serve all QPs */

static bool
is_silent(uint32_t qpn)
{
	return (silent[qpn >> 3] >> (qpn & 7)) & 1;
}

static void
set_silent(uint32_t qpn)
{
	silent[qpn >> 3] |= (uint8_t)(1u << (qpn & 7));
}

/* Drop what A sent to a silent peer; the rest goes back where it was. */
static void
filter_a(void)
{
	static struct rte_mbuf *in[RING_SLOTS], *out[RING_SLOTS];

	for (uint16_t k = 0; k < g_pair->nb_queues; k++) {
		struct rte_ring *ring = g_pair->ring_q[A][k];
		unsigned int n, kept = 0;

		n = rte_ring_dequeue_burst(ring, (void **)in, RTE_DIM(in),
					   NULL);
		for (unsigned int i = 0; i < n; i++) {
			struct ndk_roce_pkt p;

			if (ndk_roce_parse(in[i], &p, false) ==
			    NDK_ROCE_PARSE_OK && is_silent(p.qpn))
				rte_pktmbuf_free(in[i]);
			else
				out[kept++] = in[i];
		}
		if (kept != 0 && rte_ring_enqueue_burst(ring, (void **)out,
							kept, NULL) != kept)
			abort();        /* nobody else touches the ring now */
	}
}

static void
step(void)
{
	ndk_adapter_poll(g_pair->ad[A]);
	filter_a();
	ndk_adapter_poll(g_pair->ad[B]);
}

static void
step_for(double secs)
{
	double end = ndk_pair_now() + secs;

	while (ndk_pair_now() < end)
		step();
}

/* Counter @p f of adapter @p side now. */
#define CTR(side, f) ndk_pair_xstat(g_pair, (side), #f)

static struct ndk_pair_conn *
conn_open(void)
{
	struct ndk_pair_conn_opts o = {
		.rq_depth = 4, .sq_depth = NOPS, .max_rsge = 1, .max_isge = 1,
		.shared_cq = true, .timeout = TIMEOUT,
		.retry_cnt = RETRY_CNT, .rnr_retry = 7,
		.pd = { pds[A], pds[B] },
	};

	return ndk_pair_conn_create(g_pair, &o, NULL);
}

/* Check the completions of connection @p i; @return 0 if as expected. */
static int
check_conn(int i, const struct ndk_result_ex *r, const uint8_t *src,
	   const uint8_t *dst)
{
	bool quiet = i % SILENT_EVERY == 0;
	size_t off = (size_t)i * NOPS * LEN;
	char d[200];

	for (int k = 0; k < NOPS; k++) {
		ndk_status_t want = !quiet ? NDK_STATUS_SUCCESS :
			k == 0 ? NDK_STATUS_IO_TIMEOUT : NDK_STATUS_CANCELLED;

		ndk_pair_result_str(&r[k], d, sizeof(d));
		TEST_ASSERT(r[k].status == want &&
			    r[k].type == NDK_OP_WRITE &&
			    r[k].request_context == (void *)(uintptr_t)(k + 1),
			    "connection %d op %d: %s", i, k, d);
		if (quiet && k == 0)
			TEST_ASSERT_EQ(r[k].provider_error,
				       NDK_PERR_RETRY_EXCEEDED,
				       "connection %d: %s", i, d);
	}
	if (quiet) {
		for (size_t b = 0; b < NOPS * LEN; b++)
			TEST_ASSERT(dst[off + b] == 0,
				    "connection %d: a silent peer got data", i);
	} else {
		TEST_ASSERT(memcmp(src + off, dst + off, NOPS * LEN) == 0,
			    "connection %d: data", i);
	}
	return 0;
}

static int
t_many_silent(void)
{
	static struct ndk_result_ex res[NCONN][NOPS];
	static uint32_t got[NCONN];
	struct ndk_pair_buf *src = NULL, *dst = NULL;
	uint64_t to0, err0[2], fires0;
	unsigned int done = 0, n_silent = 0;
	double end;
	int rc = -1;

	memset(got, 0, sizeof(got));
	for (int i = 0; i < NCONN; i++) {
		conns[i] = conn_open();
		TEST_ASSERT(conns[i] != NULL, "connection %d", i);
		if (i % SILENT_EVERY == 0) {
			set_silent(conns[i]->qpn[B]);
			n_silent++;
		}
	}
	/* One buffer per side: conns share nothing but the adapters. */
	src = ndk_pair_buf_alloc(g_pair, pds[A],
				 (size_t)NCONN * NOPS * LEN, 0);
	dst = ndk_pair_buf_alloc(g_pair, pds[B],
				 (size_t)NCONN * NOPS * LEN,
				 NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
	if (src == NULL || dst == NULL)
		goto out;
	ndk_pair_fill(src->data, src->len, 77);
	to0 = CTR(A, retransmit_timeouts);
	err0[A] = CTR(A, qp_errors);
	err0[B] = CTR(B, qp_errors);
	fires0 = CTR(A, qp_timer_fires);
	for (int i = 0; i < NCONN; i++) {
		for (int k = 0; k < NOPS; k++) {
			size_t off = ((size_t)i * NOPS + k) * LEN;
			struct ndk_sge s = ndk_pair_sge(src, off, LEN);

			if (ndk_write(conns[i]->qp[A], (void *)(uintptr_t)(k + 1),
				      &s, 1, ndk_pair_raddr(dst, off),
				      dst->rtoken, 0) != NDK_STATUS_SUCCESS) {
				fprintf(stderr, "  FAIL: post %d/%d\n", i, k);
				goto out;
			}
		}
	}
	end = ndk_pair_now() + WAIT_S;
	while (done < NCONN && ndk_pair_now() < end) {
		step();
		for (int i = 0; i < NCONN; i++) {
			if (got[i] == NOPS)
				continue;
			got[i] += ndk_get_cq_results_ex(conns[i]->icq[A],
							&res[i][got[i]],
							NOPS - got[i]);
			if (got[i] == NOPS)
				done++;
		}
	}
	printf("    %u of %d connections done (%u silent); A: timeouts %"
	       PRIu64 ", deferred %" PRIu64 ", timer fires %" PRIu64 "\n",
	       done, NCONN, n_silent, CTR(A, retransmit_timeouts) - to0,
	       CTR(A, rto_deferred), CTR(A, qp_timer_fires) - fires0);
	if (done != NCONN) {
		fprintf(stderr, "  FAIL: completions missing\n");
		goto out;
	}
	for (int i = 0; i < NCONN; i++)
		if (check_conn(i, res[i], src->data, dst->data) != 0)
			goto out;
	if (!ndk_pair_buf_guards_ok(dst)) {
		fprintf(stderr, "  FAIL: guards\n");
		goto out;
	}
	/* Each silent QP: retry_cnt retries, then the timeout that ends it. */
	if (CTR(A, retransmit_timeouts) - to0 != n_silent * (RETRY_CNT + 1) ||
	    CTR(A, qp_errors) - err0[A] != n_silent ||
	    CTR(B, qp_errors) - err0[B] != 0) {
		fprintf(stderr, "  FAIL: timeouts %" PRIu64 " (want %u), "
			"QP errors A %" PRIu64 " B %" PRIu64 "\n",
			CTR(A, retransmit_timeouts) - to0,
			n_silent * (RETRY_CNT + 1), CTR(A, qp_errors) - err0[A],
			CTR(B, qp_errors) - err0[B]);
		goto out;
	}
	rc = 0;
out:
	ndk_pair_buf_free(src);
	ndk_pair_buf_free(dst);
	for (int i = 0; i < NCONN; i++) {
		if (conns[i] != NULL)
			ndk_pair_conn_destroy(conns[i]);
		conns[i] = NULL;
	}
	return rc;
}

/* A QP destroyed with its timer armed: nothing fires after. */
static int
t_destroy_armed(void)
{
	struct ndk_pair_conn *c = conn_open();
	struct ndk_pair_buf *src = NULL, *dst = NULL;
	uint64_t tx0, fires0, to0;
	double end;
	int rc = -1;

	TEST_ASSERT(c != NULL, "connection");
	set_silent(c->qpn[B]);
	src = ndk_pair_buf_alloc(g_pair, c->pd[A], LEN, 0);
	dst = ndk_pair_buf_alloc(g_pair, c->pd[B], LEN,
				 NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
	if (src == NULL || dst == NULL)
		goto out;
	/* Whatever earlier cases left on the wheels has gone by now. */
	step_for(PAST_TIMEOUTS_S);
	tx0 = CTR(A, tx_packets);
	for (int k = 0; k < NOPS; k++) {
		struct ndk_sge s = ndk_pair_sge(src, 0, LEN);

		if (ndk_write(c->qp[A], NULL, &s, 1, ndk_pair_raddr(dst, 0),
			      dst->rtoken, 0) != NDK_STATUS_SUCCESS)
			goto out;
	}
	end = ndk_pair_now() + WAIT_S;
	while (CTR(A, tx_packets) - tx0 < NOPS && ndk_pair_now() < end)
		step();
	TEST_ASSERT(CTR(A, tx_packets) - tx0 >= NOPS, "not sent");
	/* Waiting for its ACK only: off the active list, nothing to poll. */
	TEST_ASSERT_EQ(ndk_adapter_poll(g_pair->ad[A]), 0,
		       "a QP that waits for its ACK is still polled");
	fires0 = CTR(A, qp_timer_fires);
	to0 = CTR(A, retransmit_timeouts);
	ndk_pair_conn_destroy(c);
	c = NULL;
	/* Three timeouts and more than a lap of the wheel. */
	step_for(PAST_TIMEOUTS_S);
	printf("    after destroy: timer fires %" PRIu64 ", timeouts %" PRIu64
	       "\n", CTR(A, qp_timer_fires) - fires0,
	       CTR(A, retransmit_timeouts) - to0);
	if (CTR(A, qp_timer_fires) != fires0 ||
	    CTR(A, retransmit_timeouts) != to0) {
		fprintf(stderr, "  FAIL: a destroyed QP's timer fired\n");
		goto out;
	}
	rc = 0;
out:
	ndk_pair_buf_free(src);
	ndk_pair_buf_free(dst);
	if (c != NULL)
		ndk_pair_conn_destroy(c);
	return rc;
}

static void
pd_closed(void *ctx)
{
	(void)ctx;
}

static const struct ndk_test_case cases[] = {
	{ "many_qps_some_silent", t_many_silent },
	{ "destroy_armed", t_destroy_armed },
};

int
main(int argc, char **argv)
{
	const char *q = getenv("NDK_TEST_QUEUES");
	struct ndk_pair_config pc = {
		.no_pollers = true,
		.ring_size = RING_SLOTS,
		.nb_queues = q != NULL ? (uint16_t)atoi(q) : 1,
	};
	int rc;

	if (ndk_test_eal_init("test_func_rc_timers", "0-1", NULL) != 0)
		return 1;
	g_pair = ndk_pair_create(&pc);
	if (g_pair == NULL) {
		fprintf(stderr, "pair\n");
		rte_eal_cleanup();
		return 1;
	}
	for (int s = 0; s < 2; s++) {
		if (ndk_create_pd(g_pair->ad[s], &pds[s]) != NDK_STATUS_SUCCESS) {
			fprintf(stderr, "PD\n");
			return 1;
		}
	}
	rc = ndk_test_run("rc_timers", cases, RTE_DIM(cases), argc, argv);
	for (int s = 0; s < 2; s++)
		ndk_close_pd(pds[s], pd_closed, NULL);
	ndk_pair_destroy(g_pair);
	rte_eal_cleanup();
	return rc;
}
