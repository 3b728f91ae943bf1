/* SPDX-License-Identifier: BSD-3-Clause */

/* Harness of the loss and recovery tests: see rcx_common.h. */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_ring.h>

#include "rcx_common.h"

struct ndk_pair *g_pair;
struct rte_mempool *g_chain_pool;
/*
 * Adaptive retransmission in the cases that follow (rcx_open): off for the
 * ones that count the QP's own timeouts (strict IB timer, as before it
 * existed), on for the adaptive ones.
 */
bool g_adaptive;
/* Selective repeat on both QPs of the cases that follow (rcx_open). */
bool g_sr;

/* Case @p fn with adaptive retransmission on. */
int
with_adaptive(int (*fn)(void))
{
	int rc;

	g_adaptive = true;
	rc = fn();
	g_adaptive = false;
	return rc;
}

/* Offset of a PSN from A's first request PSN. */
uint32_t
rel(const struct rcx *x, uint32_t psn)
{
	return (psn - x->psn0) & NDK_ROCE_PSN_MASK;
}

const struct ndk_test_xstats *
ctr_now(const struct rcx *x, int side)
{
	static struct ndk_test_xstats st[2];

	ndk_pair_stats(x->pair, side, &st[side]);
	return &st[side];
}

/* MR flags of a READ destination. */
uint32_t
sink_flags(void)
{
	return NDK_MR_FLAG_ALLOW_LOCAL_WRITE |
		((g_pair->info[A].adapter_flags &
		  NDK_ADAPTER_FLAG_RDMA_READ_SINK_NOT_REQUIRED) ? 0 :
		 NDK_MR_FLAG_RDMA_READ_SINK);
}

/*
 * Damage frame @p m as the case says (its ICRC stays the old one). A
 * frame sent zero-copy is a chain whose payload lies in the sender's
 * region: a flat copy of it is damaged instead (@p p parsed again).
 * @return the damaged frame.
 */
static struct rte_mbuf *
corrupt(const struct rcx *x, struct rte_mbuf *m, struct ndk_roce_pkt *p)
{
	uint8_t *b;

	if (m->nb_segs > 1) {
		struct rte_mbuf *c = rte_pktmbuf_copy(m, m->pool, 0,
						      UINT32_MAX);

		if (c != NULL && c->nb_segs == 1 &&
		    ndk_roce_parse(c, p, false) == NDK_ROCE_PARSE_OK) {
			rte_pktmbuf_free(m);
			m = c;
		} else {
			rte_pktmbuf_free(c);
			ndk_test_fail_later();
			printf("  FAIL: no flat copy of a chained frame\n");
			return m;
		}
	}
	b = (uint8_t *)(uintptr_t)p->bth;
	if (x->dmg == DMG_QPN) {
		b[5] ^= 0x40;
	} else if (x->dmg != 0) {
		uint32_t psn = (x->psn0 + x->dmg - 1) & NDK_ROCE_PSN_MASK;

		b[9] = (uint8_t)(psn >> 16);
		b[10] = (uint8_t)(psn >> 8);
		b[11] = (uint8_t)psn;
	} else {	/* the frame is flat here: one segment */
		*rte_pktmbuf_mtod_offset(m, uint8_t *, p->payload_off +
					 p->payload_len / 2) ^= 0x20;
	}
	return m;
}

/* A copy of @p m in a chain of 2 KB segments (freed); @p m if none left. */
static struct rte_mbuf *
rechain(struct rte_mbuf *m)
{
	struct rte_mbuf *c = rte_pktmbuf_copy(m, g_chain_pool, 0, UINT32_MAX);

	if (c == NULL)
		return m;
	rte_pktmbuf_free(m);
	return c;
}

/*
 * The ring adapter (1 - @p from) receives queue @p k's frames from side
 * @p from in (NDK_TEST_QUEUES=2: one per queue; frames for a QP of
 * another queue are steered on by the receiving adapter).
 */
static struct rte_ring *
rx_ring(const struct rcx *x, int from, uint16_t k)
{
	return x->pair->ring_q[from][k];
}

/* Pass what side @p from transmitted through the filter, queue by queue. */
static void
filter_side(struct rcx *x, int from)
{
	static struct rte_mbuf *in[4096], *out[4096];

	for (uint16_t q = 0; q < x->pair->nb_queues; q++) {
		struct rte_ring *ring = rx_ring(x, from, q);
		unsigned int n, k = 0;

		/* Take them all first: those let through go back to this ring. */
		n = rte_ring_dequeue_burst(ring, (void **)in, RTE_DIM(in), NULL);
		for (unsigned int i = 0; i < n; i++) {
			struct ndk_roce_pkt p;
			enum verdict v = PASS;

			if (x->filter != NULL &&
			    ndk_roce_parse(in[i], &p, false) ==
			    NDK_ROCE_PARSE_OK)
				v = x->filter(x, from, &p);
			if (v == CORRUPT) {
				in[i] = corrupt(x, in[i], &p);
				v = PASS;
			}
			if (x->chain && from == B && v != DROP)
				in[i] = rechain(in[i]);
			if (v == HOLD && x->n_held[from] < MAX_HELD) {
				x->held_q[from][x->n_held[from]] = (uint8_t)q;
				x->held[from][x->n_held[from]++] = in[i];
			} else if (v == PASS) {
				out[k++] = in[i];
			} else {
				rte_pktmbuf_free(in[i]);
			}
		}
		/* Nobody else touches the ring now: what we took fits back. */
		if (k != 0 &&
		    rte_ring_enqueue_burst(ring, (void **)out, k, NULL) != k)
			abort();
	}
}

/* Deliver the first @p n frames held from side @p from (in order). */
void
release_n(struct rcx *x, int from, unsigned int n)
{
	unsigned int k = RTE_MIN(n, x->n_held[from]);

	for (unsigned int i = 0; i < k; i++)
		if (rte_ring_enqueue(rx_ring(x, from, x->held_q[from][i]),
				     x->held[from][i]) != 0)
			abort();
	x->n_held[from] -= k;
	memmove(x->held[from], x->held[from] + k,
		x->n_held[from] * sizeof(x->held[from][0]));
	memmove(x->held_q[from], x->held_q[from] + k,
		x->n_held[from] * sizeof(x->held_q[from][0]));
}

/*
 * Deliver the frames held from side @p from, in order, ahead of new ones,
 * each to the ring of the queue it was taken from.
 */
void
release(struct rcx *x, int from)
{
	release_n(x, from, x->n_held[from]);
}

void
drop_held(struct rcx *x, int from)
{
	rte_pktmbuf_free_bulk(x->held[from], x->n_held[from]);
	x->n_held[from] = 0;
}

/* One round: A polls (1 + a_extra times), its frames pass the filter, then B's. */
void
step(struct rcx *x)
{
	if (x->clk != NULL)
		*x->clk += x->clk_step;
	for (unsigned int i = 0; i <= x->a_extra; i++) {
		ndk_adapter_poll(x->pair->ad[A]);
		filter_side(x, A);
	}
	ndk_adapter_poll(x->pair->ad[B]);
	filter_side(x, B);
}

/* Step until @p n completions arrive on A's initiator CQ. */
uint32_t
pump(struct rcx *x, struct ndk_result_ex *r, uint32_t n, double secs,
     void (*tick)(struct rcx *))
{
	double end = ndk_pair_now() + secs;
	uint32_t got = 0;

	while (got < n && ndk_pair_now() < end) {
		step(x);
		if (tick != NULL)
			tick(x);
		got += ndk_get_cq_results_ex(x->c->icq[A], r + got, n - got);
	}
	return got;
}

int
rcx_open(struct rcx *x, uint8_t timeout, uint8_t retry_cnt, filter_fn f)
{
	struct ndk_pair_conn_opts o = {
		.rq_depth = 64, .sq_depth = 64, .timeout = timeout,
		.retry_cnt = retry_cnt, .rnr_retry = 7,
		.selective_repeat = g_sr,
	};

	memset(x, 0, sizeof(*x));
	x->pair = g_pair;
	for (int s = 0; s < 2; s++)
		TEST_ASSERT_EQ(ndk_adapter_set_adaptive_rto(g_pair->ad[s],
				g_adaptive, 0), NDK_STATUS_SUCCESS,
			       "adaptive retransmission mode");
	x->c = ndk_pair_conn_create(g_pair, &o, NULL);
	TEST_ASSERT(x->c != NULL, "connection");
	x->psn0 = x->c->sq_psn[A];
	x->filter = f;
	ndk_pair_stats(g_pair, A, &x->s0[A]);
	ndk_pair_stats(g_pair, B, &x->s0[B]);
	return 0;
}

void
rcx_close(struct rcx *x)
{
	for (int s = 0; s < 2; s++)
		drop_held(x, s);
	/* Let both sides settle before the connection goes. */
	x->filter = NULL;
	for (int i = 0; i < 100; i++)
		step(x);
	if (x->c != NULL)
		ndk_pair_conn_destroy(x->c);
	x->c = NULL;
}

/* Every counter that moved, per side. */
void
print_ctrs(const struct rcx *x)
{
	for (int s = 0; s < 2; s++) {
		const struct ndk_test_xstats *now = ctr_now(x, s);
		const struct ndk_test_xstats *then = &x->s0[s];

		printf("    %c:", s == A ? 'A' : 'B');
		for (unsigned int i = 0; i < now->n; i++) {
			const char *name = ndk_test_xstat_name(i);
			uint64_t a = now->v[i], b = then->v[i];

			if (a != b && strncmp(name, "tx_", 3) != 0 &&
			    strncmp(name, "rx_packets", 10) != 0 &&
			    strncmp(name, "rx_bytes", 8) != 0)
				printf(" %s %" PRIu64, name, a - b);
		}
		printf("\n");
	}
}

/* No side failed a QP or NAKed anything fatal. */
int
check_healthy(const struct rcx *x)
{
	TEST_ASSERT_EQ(DELTA(x, A, qp_errors) + DELTA(x, B, qp_errors), 0,
		       "QPs went to ERROR");
	TEST_ASSERT_EQ(DELTA(x, B, nak_inv_sent) + DELTA(x, B, nak_access_sent)
		       + DELTA(x, B, nak_op_sent), 0, "fatal NAKs sent");
	TEST_ASSERT_EQ(DELTA(x, B, rx_qp_state), 0, "B dropped packets");
	return 0;
}

/*
 * @p n READs (or WRITEs) of @p len bytes each, A from B (A to B), all
 * posted at once; every completion and every byte checked.
 */
int
transfer(struct rcx *x, unsigned int n, size_t len, bool write,
	 void (*tick)(struct rcx *), uint32_t seed)
{
	struct ndk_result_ex r[MAX_OPS];
	struct ndk_pair_buf *src, *dst;
	char d[200];
	uint32_t got;
	long bad;
	int rc = -1;

	src = ndk_pair_buf_alloc(x->pair, x->c->pd[write ? A : B], n * len,
				 write ? 0 : NDK_MR_FLAG_ALLOW_REMOTE_READ);
	dst = ndk_pair_buf_alloc(x->pair, x->c->pd[write ? B : A], n * len,
				 write ? NDK_MR_FLAG_ALLOW_REMOTE_WRITE :
				 sink_flags());
	if (src == NULL || dst == NULL) {
		fprintf(stderr, "  FAIL: buffers\n");
		goto out;
	}
	ndk_pair_fill(src->data, n * len, seed);
	for (unsigned int i = 0; i < n; i++) {
		struct ndk_sge s;
		ndk_status_t st;

		if (write) {
			s = ndk_pair_sge(src, i * len, (uint32_t)len);
			st = ndk_write(x->c->qp[A], (void *)(uintptr_t)(i + 1),
				       &s, 1, ndk_pair_raddr(dst, i * len),
				       dst->rtoken, 0);
		} else {
			s = ndk_pair_sge(dst, i * len, (uint32_t)len);
			st = ndk_read(x->c->qp[A], (void *)(uintptr_t)(i + 1),
				      &s, 1, ndk_pair_raddr(src, i * len),
				      src->rtoken, 0);
		}
		if (st != NDK_STATUS_SUCCESS) {
			fprintf(stderr, "  FAIL: post %u: %s\n", i,
				ndk_status_str(st));
			goto out;
		}
	}
	got = pump(x, r, n, WAIT_S, tick);
	for (uint32_t i = 0; i < got; i++) {
		ndk_pair_result_str(&r[i], d, sizeof(d));
		if (r[i].status != NDK_STATUS_SUCCESS ||
		    r[i].request_context != (void *)(uintptr_t)(i + 1)) {
			fprintf(stderr, "  FAIL: completion %u: %s\n", i, d);
			goto out;
		}
	}
	if (got != n) {
		fprintf(stderr, "  FAIL: %u of %u completions in %.0f s\n",
			got, n, WAIT_S);
		goto out;
	}
	bad = ndk_pair_check(dst->data, n * len, seed);
	if (bad >= 0) {
		fprintf(stderr, "  FAIL: byte %ld (op %ld) wrong\n", bad,
			bad / (long)len);
		goto out;
	}
	if (!ndk_pair_buf_guards_ok(src) || !ndk_pair_buf_guards_ok(dst)) {
		fprintf(stderr, "  FAIL: guards\n");
		goto out;
	}
	rc = 0;
out:
	if (rc != 0)
		print_ctrs(x);
	ndk_pair_buf_free(src);
	ndk_pair_buf_free(dst);
	return rc;
}

int
rcx_main(const char *prog, const char *suite,
	 const struct ndk_test_case *cases, size_t n, int argc, char **argv)
{
	struct ndk_pair_config pc = {
		.max_path_mtu = MTU,
		.no_pollers = true,
	};
	const char *nq = getenv("NDK_TEST_QUEUES");
	int rc;

	/* NDK_TEST_QUEUES=2: two queues per adapter, crossed (the QPs of a
	 * connection on different queues, every frame steered once). */
	if (nq != NULL) {
		pc.nb_queues = (uint16_t)atoi(nq);
		pc.cross_queues = true;
	}

	if (ndk_test_eal_init(prog, "0-1", NULL) != 0)
		return 1;
	g_pair = ndk_pair_create(&pc);
	g_chain_pool = rte_pktmbuf_pool_create("rcx_chain", 8191, 256, 0,
					       2048 + RTE_PKTMBUF_HEADROOM,
					       SOCKET_ID_ANY);
	if (g_pair == NULL || g_chain_pool == NULL) {
		fprintf(stderr, "pair\n");
		rte_eal_cleanup();
		return 1;
	}
	rc = ndk_test_run(suite, cases, n, argc, argv);
	ndk_pair_destroy(g_pair);
	rte_mempool_free(g_chain_pool);
	rte_eal_cleanup();
	return rc;
}

int
transfer_checked(struct rcx *x, unsigned int n, size_t len, bool write,
		 void (*tick)(struct rcx *), uint32_t seed)
{
	int rc = transfer(x, n, len, write, tick, seed);

	print_ctrs(x);
	return rc != 0 ? rc : check_healthy(x);
}
