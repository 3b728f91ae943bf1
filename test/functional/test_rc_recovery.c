/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: loss and stall recovery of the RC engine, with exact control
 * of which frame is lost or late. Both adapters are polled from this
 * thread (no pollers); between polls every frame one side transmitted goes
 * through the case's filter, which lets it through, drops it or holds it
 * back until the case releases it. Nothing depends on speed: phases move
 * on counters (a timeout happened, a duplicate arrived), never on time.
 *
 * - stalled responses: a timeout re-issues 16 READs while their original
 *   responses are still on the way; the requester completes from the
 *   originals and asks for new READs while the responder replays the
 *   duplicates (this used to end in an invalid-request NAK and a dead QP);
 * - a re-read from the middle of a READ's responses, served by the replay
 *   alone, and with the late originals arriving too;
 * - one response frame lost: that READ alone asked again at once from the
 *   lost PSN (read_gap_retries), no timeout, later READs' responses placed
 *   meanwhile (read_resp_ahead); a READ whose stream has passed, or whose
 *   re-read was lost, asked again without a timeout; a lost READ request
 *   or WRITE packet: PSN sequence NAK and go-back-N at once;
 * - timers: a process that was not polled for longer than the timeout does
 *   not time out (rto_deferred); a peer that is gone still ends the READ
 *   in STATUS_IO_TIMEOUT, after timeouts that double.
 */

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "ndk.h"
#include "ndk_pair.h"
#include "ndk_roce.h"
#include "ndk_test.h"

#define WAIT_S 60.0
#define MTU 4096
#define RD_LEN 65536                  /* 16 response frames */
#define RD_PKTS (RD_LEN / MTU)
#define MAX_OPS 48
#define MAX_HELD 2048
#define A NDK_PAIR_A
#define B NDK_PAIR_B

enum verdict { PASS, DROP, HOLD };

struct rcx;
/** Decide the fate of one RoCE frame side @p from transmitted. */
typedef enum verdict (*filter_fn)(struct rcx *x, int from,
				  const struct ndk_roce_pkt *p);

/** One case's state. */
struct rcx {
	struct ndk_pair *pair;
	struct ndk_pair_conn *c;
	filter_fn filter;
	int phase;
	uint32_t psn0;                /* A's first request PSN */
	uint32_t arg;                 /* case parameter */
	uint32_t arg2;                /* second one (0: none) */
	uint32_t hits;                /* frames the case acted on */
	uint32_t seen;                /* bit k: PSN offset k seen */
	unsigned int a_extra;         /* extra polls of A per step */
	struct rte_mbuf *held[2][MAX_HELD];
	unsigned int n_held[2];
	struct ndk_adapter_stats s0[2];
};

static struct ndk_pair *g_pair;
/*
 * Adaptive retransmission in the cases that follow (rcx_open): off for the
 * ones that count the QP's own timeouts (strict IB timer, as before it
 * existed), on for the adaptive_* ones.
 */
static bool g_adaptive;

/* Case @p fn with adaptive retransmission on. */
static int
with_adaptive(int (*fn)(void))
{
	int rc;

	g_adaptive = true;
	rc = fn();
	g_adaptive = false;
	return rc;
}

/* Offset of a PSN from A's first request PSN. */
static uint32_t
rel(const struct rcx *x, uint32_t psn)
{
	return (psn - x->psn0) & NDK_ROCE_PSN_MASK;
}

/* Counter @p field of side @p s, moved since the case began. */
#define DELTA(x, s, field) (ctr_now((x), (s))->field - (x)->s0[s].field)

static const struct ndk_adapter_stats *
ctr_now(const struct rcx *x, int side)
{
	static struct ndk_adapter_stats st[2];

	ndk_pair_stats(x->pair, side, &st[side]);
	return &st[side];
}

/* MR flags of a READ destination. */
static uint32_t
sink_flags(void)
{
	return NDK_MR_FLAG_ALLOW_LOCAL_WRITE |
		((g_pair->info[A].adapter_flags &
		  NDK_ADAPTER_FLAG_RDMA_READ_SINK_NOT_REQUIRED) ? 0 :
		 NDK_MR_FLAG_RDMA_READ_SINK);
}

/* Pass what side @p from transmitted through the filter. */
static void
filter_side(struct rcx *x, int from)
{
	struct rte_ring *ring = ndk_pair_rx_ring(x->pair, 1 - from);
	static struct rte_mbuf *in[4096], *out[4096];
	unsigned int n, k = 0;

	/* Take them all first: the ones let through go back to this ring. */
	n = rte_ring_dequeue_burst(ring, (void **)in, RTE_DIM(in), NULL);
	for (unsigned int i = 0; i < n; i++) {
		struct ndk_roce_pkt p;
		enum verdict v = PASS;

		if (x->filter != NULL &&
		    ndk_roce_parse(in[i], &p, false) == NDK_ROCE_PARSE_OK)
			v = x->filter(x, from, &p);
		if (v == HOLD && x->n_held[from] < MAX_HELD)
			x->held[from][x->n_held[from]++] = in[i];
		else if (v == PASS)
			out[k++] = in[i];
		else
			rte_pktmbuf_free(in[i]);
	}
	/* Nobody else touches the ring now: what we took fits back. */
	if (k != 0 && rte_ring_enqueue_burst(ring, (void **)out, k, NULL) != k)
		abort();
}

/* Deliver the frames held from side @p from (in order), ahead of new ones. */
static void
release(struct rcx *x, int from)
{
	struct rte_ring *ring = ndk_pair_rx_ring(x->pair, 1 - from);
	unsigned int n = x->n_held[from];

	if (n != 0 && rte_ring_enqueue_burst(ring, (void **)x->held[from], n,
					     NULL) != n)
		abort();
	x->n_held[from] = 0;
}

static void
drop_held(struct rcx *x, int from)
{
	rte_pktmbuf_free_bulk(x->held[from], x->n_held[from]);
	x->n_held[from] = 0;
}

/* One round: A polls (1 + a_extra times), its frames pass the filter, then B's. */
static void
step(struct rcx *x)
{
	for (unsigned int i = 0; i <= x->a_extra; i++) {
		ndk_adapter_poll(x->pair->ad[A]);
		filter_side(x, A);
	}
	ndk_adapter_poll(x->pair->ad[B]);
	filter_side(x, B);
}

/* Step until @p n completions arrive on A's initiator CQ. */
static uint32_t
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

static int
rcx_open(struct rcx *x, uint8_t timeout, uint8_t retry_cnt, filter_fn f)
{
	struct ndk_pair_conn_opts o = {
		.rq_depth = 64, .sq_depth = 64, .timeout = timeout,
		.retry_cnt = retry_cnt, .rnr_retry = 7,
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

static void
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
static void
print_ctrs(const struct rcx *x)
{
	static const struct {
		const char *name;
		size_t off;
	} ctrs[] = {
#define RCX_CTR_(f, d) { #f, offsetof(struct ndk_adapter_stats, f) },
		NDK_ADAPTER_COUNTERS(RCX_CTR_)
#undef RCX_CTR_
	};

	for (int s = 0; s < 2; s++) {
		const uint8_t *now = (const uint8_t *)ctr_now(x, s);
		const uint8_t *then = (const uint8_t *)&x->s0[s];

		printf("    %c:", s == A ? 'A' : 'B');
		for (size_t i = 0; i < RTE_DIM(ctrs); i++) {
			uint64_t a, b;

			memcpy(&a, now + ctrs[i].off, sizeof(a));
			memcpy(&b, then + ctrs[i].off, sizeof(b));
			if (a != b && strncmp(ctrs[i].name, "tx_", 3) != 0 &&
			    strncmp(ctrs[i].name, "rx_packets", 10) != 0 &&
			    strncmp(ctrs[i].name, "rx_bytes", 8) != 0)
				printf(" %s %" PRIu64, ctrs[i].name, a - b);
		}
		printf("\n");
	}
}

/* No side failed a QP or NAKed anything fatal. */
static int
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
static int
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

/* ------------------------------------------------------------------ */
/* Stalled responses: duplicates of READs whose originals arrive late  */
/* ------------------------------------------------------------------ */

/* Hold every READ response until a timeout re-issued the READs. */
static enum verdict
f_stall(struct rcx *x, int from, const struct ndk_roce_pkt *p)
{
	if (from == B && x->phase < 2 && (p->op->flags & NDK_ROCE_OPF_READ))
		return HOLD;
	return PASS;
}

static void
tick_stall(struct rcx *x)
{
	if (x->phase == 0 && DELTA(x, A, retransmit_timeouts) != 0)
		x->phase = 1;
	/*
	 * The re-issued READs reached B: deliver the originals now, while B
	 * replays, so that A completes and asks for new READs meanwhile. A
	 * polls faster than B from now on, as when the responder is loaded:
	 * new READs arrive while B still replays the duplicates.
	 */
	if (x->phase == 1 && DELTA(x, B, rx_duplicate) != 0) {
		x->phase = 2;
		x->hits = x->n_held[B];
		x->a_extra = 7;
		release(x, B);
	}
}

static int
t_stall_reissue(void)
{
	struct rcx x;
	int rc;

	/* ~4 ms timeout, 48 READs of 64 KiB, 16 in flight. */
	if (rcx_open(&x, 10, 7, f_stall) != 0)
		return -1;
	rc = transfer(&x, MAX_OPS, RD_LEN, false, tick_stall, 11);
	print_ctrs(&x);
	printf("    %u response frames held, then delivered\n", x.hits);
	if (rc == 0)
		rc = check_healthy(&x);
	/* New READs reached B while it replayed: they took the slots. */
	if (rc == 0 && (x.phase != 2 || DELTA(&x, B, read_replays) == 0 ||
			DELTA(&x, B, read_resp_sent) >=
			(MAX_OPS + 16) * RD_PKTS)) {
		fprintf(stderr, "  FAIL: the scenario did not happen (phase "
			"%d)\n", x.phase);
		rc = -1;
	}
	/* The QP still works, with nothing in the way. */
	x.filter = NULL;
	x.a_extra = 0;
	if (rc == 0)
		rc = transfer(&x, 4, RD_LEN, false, NULL, 12);
	rcx_close(&x);
	return rc;
}

/* ------------------------------------------------------------------ */
/* A re-read from the middle of a READ                                 */
/* ------------------------------------------------------------------ */

/* Responses 7..15 of the first READ: dropped (arg 0) or held (arg 1). */
static enum verdict
f_mid(struct rcx *x, int from, const struct ndk_roce_pkt *p)
{
	uint32_t k = rel(x, p->psn);

	/* First transmissions only: the replay gets through. */
	if (from != B || !(p->op->flags & NDK_ROCE_OPF_READ) || k < 7 ||
	    k >= RD_PKTS || (x->seen & (1u << k)))
		return PASS;
	x->seen |= 1u << k;
	x->hits++;
	return x->arg == 0 ? DROP : HOLD;
}

static void
tick_mid(struct rcx *x)
{
	/* Timed out and asked again from PSN 7: the replay runs. */
	if (x->phase == 0 && DELTA(x, B, read_replays) != 0) {
		x->phase = 1;
		release(x, B);          /* (arg 1) the late originals too */
	}
}

static int
mid_range(uint32_t late)
{
	struct rcx x;
	int rc;

	if (rcx_open(&x, 10, 7, f_mid) != 0)
		return -1;
	x.arg = late;
	rc = transfer(&x, 1, RD_LEN, false, tick_mid, 21 + late);
	print_ctrs(&x);
	if (rc == 0)
		rc = check_healthy(&x);
	if (rc == 0) {
		/*
		 * Strict: the QP's timeout asked again; adaptive: an early
		 * retransmission did, and the QP's timeout never expired.
		 */
		uint64_t early = DELTA(&x, A, adaptive_retransmits);
		uint64_t full = DELTA(&x, A, retransmit_timeouts);

		TEST_ASSERT((g_adaptive ? early : full) >= 1, "no timeout");
		TEST_ASSERT_EQ(g_adaptive ? full : early, 0,
			       "wrong kind of timeout");
		/* The replay started at the missing PSN, not at the READ's. */
		TEST_ASSERT_EQ(DELTA(&x, B, read_dup_ignored), 0,
			       "duplicate ignored");
		TEST_ASSERT_EQ(x.hits, 9, "originals lost or late");
		TEST_ASSERT(DELTA(&x, B, read_replays) >= 1 &&
			    DELTA(&x, B, read_resp_sent) >= RD_PKTS + 9 &&
			    DELTA(&x, B, read_resp_sent) - RD_PKTS <=
			    9 * DELTA(&x, B, read_replays),
			    "replays must start at PSN 7");
		rc = transfer(&x, 4, RD_LEN, false, NULL, 25);
	}
	rcx_close(&x);
	return rc;
}

static int t_mid_range_replay(void) { return mid_range(0); }
static int t_mid_range_late(void) { return mid_range(1); }

static int
mid_range_both(void)
{
	int rc = mid_range(0);

	return rc != 0 ? rc : mid_range(1);
}

static int t_adaptive_mid_range(void) { return with_adaptive(mid_range_both); }

/* ------------------------------------------------------------------ */
/* One lost frame: asked again at once                                 */
/* ------------------------------------------------------------------ */

/* Drop PSN offset arg once, in the direction the case says (phase). */
static enum verdict
f_one(struct rcx *x, int from, const struct ndk_roce_pkt *p)
{
	int dir = x->phase;       /* side whose frame is dropped */

	uint32_t k = rel(x, p->psn);
	uint32_t bit = k == x->arg ? 1 : (x->arg2 != 0 && k == x->arg2) ? 2 : 0;

	/* Each chosen PSN once: its retransmission gets through. */
	if (from != dir || bit == 0 || (x->seen & bit) ||
	    p->opcode == NDK_ROCE_OP_RC_ACK)
		return PASS;
	x->seen |= bit;
	x->hits++;
	return DROP;
}

/*
 * @p n operations of 64 KiB (READs unless @p write), the frame at PSN
 * offset @p k sent by @p side lost: done without a timeout.
 */
static int
lost(unsigned int n, uint32_t k, uint32_t k2, int side, bool write)
{
	uint32_t drops = k2 != 0 ? 2 : 1;
	struct rcx x;
	int rc;

	/* ~268 ms: a timeout here would be a failure of the fast paths. */
	if (rcx_open(&x, 16, 7, f_one) != 0)
		return -1;
	x.arg = k;
	x.arg2 = k2;
	x.phase = side;
	rc = transfer(&x, n, RD_LEN, write, NULL, 31 + k);
	print_ctrs(&x);
	if (rc == 0)
		rc = check_healthy(&x);
	if (rc == 0) {
		TEST_ASSERT_EQ(x.hits, drops, "frames dropped");
		TEST_ASSERT_EQ(DELTA(&x, A, retransmit_timeouts), 0,
			       "timeouts");
		TEST_ASSERT_EQ(DELTA(&x, A, read_gap_retries),
			       side == B ? drops : 0, "gap retries");
		TEST_ASSERT_EQ(DELTA(&x, A, nak_seq_rcvd), side == A ? 1 : 0,
			       "sequence NAKs");
	}
	rcx_close(&x);
	return rc;
}

static int
one_lost(unsigned int n, uint32_t k, int side, bool write)
{
	return lost(n, k, 0, side, write);
}

/* Response 5 of a single READ. */
static int t_gap_one_read(void) { return one_lost(1, 5, B, false); }
/* Response 5 of the second of 8 READs in flight. */
static int t_gap_eight_reads(void) { return one_lost(8, RD_PKTS + 5, B, false); }

/*
 * Response 5 of the first of 8 READs: the second READ's responses arrive
 * before the re-read's and are placed meanwhile; only the first READ's
 * remainder (11 frames) is sent again.
 */
static int
t_gap_ahead(void)
{
	struct ndk_adapter_stats a0, b0, a1, b1;

	ndk_pair_stats(g_pair, A, &a0);
	ndk_pair_stats(g_pair, B, &b0);
	if (one_lost(8, 5, B, false) != 0)
		return -1;
	ndk_pair_stats(g_pair, A, &a1);
	ndk_pair_stats(g_pair, B, &b1);
	TEST_ASSERT(a1.read_resp_ahead - a0.read_resp_ahead >= RD_PKTS,
		    "responses placed ahead: %" PRIu64,
		    a1.read_resp_ahead - a0.read_resp_ahead);
	TEST_ASSERT_EQ(b1.read_resp_sent - b0.read_resp_sent,
		       8 * RD_PKTS + RD_PKTS - 5, "frames sent by B");
	return 0;
}
/*
 * Response 5 of the first and of the second of 8 READs: the second one's
 * later responses are dropped while it waits behind the first; when it
 * reaches the tail the third READ's responses have come, so it is asked
 * again at once rather than after a timeout.
 */
static int
t_gap_two(void)
{
	return lost(8, 5, RD_PKTS + 5, B, false);
}

/*
 * Responses 5 of the first two of 3 READs lost, and the first READ's
 * re-read request held back until B has sent everything: the third READ's
 * responses all come before the replay. When the first READ completes,
 * the second reaches the tail with nothing more on the way to reveal its
 * loss: it must be asked again at once (its stream has passed), not
 * after a timeout.
 */
static enum verdict
f_passed(struct rcx *x, int from, const struct ndk_roce_pkt *p)
{
	uint32_t k = rel(x, p->psn);

	if (from == A && x->phase == 0 &&
	    p->opcode == NDK_ROCE_OP_RC_READ_REQUEST && k == 5) {
		if (x->arg == 0)
			return HOLD;
		x->phase = 1;           /* (arg 1) lost, once */
		x->hits++;
		return DROP;
	}
	if (from == B && (k == 5 || (x->arg == 0 && k == RD_PKTS + 5))) {
		uint32_t bit = k == 5 ? 1 : 2;

		if (!(x->seen & bit)) {
			x->seen |= bit;
			x->hits++;
			return DROP;
		}
	}
	return PASS;
}

static void
tick_passed(struct rcx *x)
{
	if (x->phase == 0 && DELTA(x, B, read_resp_sent) >= 3 * RD_PKTS) {
		x->phase = 1;
		release(x, A);
	}
}

/*
 * @p lost_reread 0: as above; 1: only response 5 of the first READ lost,
 * and its re-read request lost too: when the last READ in flight has all
 * its responses placed and the first still waits, nothing more will come:
 * it is asked again at once, not after a timeout.
 */
static int
stream_passed(uint32_t lost_reread)
{
	struct rcx x;
	int rc;

	if (rcx_open(&x, 16, 7, f_passed) != 0)  /* ~268 ms */
		return -1;
	x.arg = lost_reread;
	rc = transfer(&x, 3, RD_LEN, false, tick_passed, 51);
	print_ctrs(&x);
	if (rc == 0)
		rc = check_healthy(&x);
	if (rc == 0) {
		TEST_ASSERT(x.phase == 1 && x.hits == 2 &&
			    DELTA(&x, A, read_resp_ahead) >= RD_PKTS,
			    "scenario");
		TEST_ASSERT_EQ(DELTA(&x, A, retransmit_timeouts), 0,
			       "timeouts");
		TEST_ASSERT(DELTA(&x, A, read_gap_retries) >= 2,
			    "gap retries");
	}
	rcx_close(&x);
	return rc;
}

static int t_stream_passed(void) { return stream_passed(0); }
static int t_reread_lost(void) { return stream_passed(1); }

/* The request of the third of 8 READs. */
static int t_lost_read_request(void)
{
	return one_lost(8, 2 * RD_PKTS, A, false);
}
/* Packet 5 of the second of 4 WRITEs. */
static int t_lost_write_packet(void)
{
	return one_lost(4, RD_PKTS + 5, A, true);
}

/* ------------------------------------------------------------------ */
/* Timers                                                              */
/* ------------------------------------------------------------------ */

/* Source (B) and sink (A) of one READ of RD_LEN bytes. */
static int
read_bufs(const struct rcx *x, struct ndk_pair_buf **src,
	  struct ndk_pair_buf **dst)
{
	*src = ndk_pair_buf_alloc(g_pair, x->c->pd[B], RD_LEN,
				  NDK_MR_FLAG_ALLOW_REMOTE_READ);
	*dst = ndk_pair_buf_alloc(g_pair, x->c->pd[A], RD_LEN, sink_flags());
	return *src != NULL && *dst != NULL ? 0 : -1;
}

static void
sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * Neither side polled for ten timeouts (the machine stalled the process):
 * A's timer expired meanwhile, but it must not count a timeout for it.
 */
static int
stall_no_timeout(void)
{
	struct ndk_pair_buf *src, *dst;
	struct ndk_result_ex r;
	struct ndk_sge s;
	struct rcx x;
	int rc = -1;

	if (rcx_open(&x, 10, 1, NULL) != 0)     /* ~4 ms, one retry */
		return -1;
	if (read_bufs(&x, &src, &dst) != 0)
		goto out;
	ndk_pair_fill(src->data, RD_LEN, 41);
	for (int round = 0; round < 3; round++) {
		s = ndk_pair_sge(dst, 0, RD_LEN);
		memset(dst->data, 0, RD_LEN);
		if (ndk_read(x.c->qp[A], &x, &s, 1, ndk_pair_raddr(src, 0),
			     src->rtoken, 0) != NDK_STATUS_SUCCESS)
			goto out;
		/* A sends the request; then nobody runs for ~42 ms. */
		ndk_adapter_poll(g_pair->ad[A]);
		sleep_ms(42);
		if (pump(&x, &r, 1, WAIT_S, NULL) != 1 ||
		    r.status != NDK_STATUS_SUCCESS ||
		    ndk_pair_check(dst->data, RD_LEN, 41) >= 0) {
			fprintf(stderr, "  FAIL: round %d\n", round);
			goto out;
		}
	}
	print_ctrs(&x);
	if (DELTA(&x, A, retransmit_timeouts) != 0 ||
	    DELTA(&x, A, rto_deferred) < 3) {
		fprintf(stderr, "  FAIL: a stall counted as a timeout\n");
		goto out;
	}
	rc = check_healthy(&x);
out:
	ndk_pair_buf_free(src);
	ndk_pair_buf_free(dst);
	rcx_close(&x);
	return rc;
}

static int t_stall_no_timeout(void) { return stall_no_timeout(); }

/*
 * The same with adaptive retransmission: a stall longer than the QP's
 * timeout still spends no retry (the full expiry is deferred as before);
 * an adaptive expiry may happen on a slow machine, which costs none.
 */
static int t_adaptive_stall(void) { return with_adaptive(stall_no_timeout); }

/* Everything B sends is lost. */
static enum verdict
f_gone(struct rcx *x, int from, const struct ndk_roce_pkt *p)
{
	(void)p;
	if (from == B)
		x->hits++;
	return from == B ? DROP : PASS;
}

/*
 * A peer that vanished: the READ ends in IO_TIMEOUT after retry_cnt
 * retries, the timeouts doubling (1 + 2 + 4 + 8 timeouts at least).
 */
static int
gone_backoff(void)
{
	struct ndk_pair_buf *src, *dst;
	struct ndk_result_ex r;
	struct ndk_sge s;
	struct rcx x;
	double t0, t;
	char d[200];
	int rc = -1;

	if (rcx_open(&x, 12, 3, f_gone) != 0)   /* ~16.8 ms, 3 retries */
		return -1;
	if (read_bufs(&x, &src, &dst) != 0)
		goto out;
	s = ndk_pair_sge(dst, 0, RD_LEN);
	t0 = ndk_pair_now();
	if (ndk_read(x.c->qp[A], &x, &s, 1, ndk_pair_raddr(src, 0),
		     src->rtoken, 0) != NDK_STATUS_SUCCESS)
		goto out;
	if (pump(&x, &r, 1, WAIT_S, NULL) != 1) {
		fprintf(stderr, "  FAIL: no completion\n");
		goto out;
	}
	t = ndk_pair_now() - t0;
	ndk_pair_result_str(&r, d, sizeof(d));
	print_ctrs(&x);
	printf("    failed after %.3f s: %s\n", t, d);
	if (r.status != NDK_STATUS_IO_TIMEOUT ||
	    r.provider_error != NDK_PERR_RETRY_EXCEEDED) {
		fprintf(stderr, "  FAIL: %s\n", d);
		goto out;
	}
	/*
	 * 4 expiries: 3 retries, then giving up; 1 + 2 + 4 + 8 = 15 timeouts
	 * of 4.096 us << 12 long at least (5 % for TSC against clock).
	 */
	if (DELTA(&x, A, retransmit_timeouts) != 4 ||
	    t < 0.95 * 15 * 4.096e-6 * 4096) {
		fprintf(stderr, "  FAIL: %" PRIu64 " timeouts in %.3f s\n",
			DELTA(&x, A, retransmit_timeouts), t);
		goto out;
	}
	/*
	 * Adaptive: early retransmissions between the timeouts spent no
	 * retry (the dead peer is found as late as with the strict timer,
	 * not earlier); strict: none.
	 */
	if (g_adaptive ? DELTA(&x, A, adaptive_retransmits) == 0 :
	    DELTA(&x, A, adaptive_retransmits) != 0) {
		fprintf(stderr, "  FAIL: %" PRIu64 " adaptive retransmissions"
			"\n", DELTA(&x, A, adaptive_retransmits));
		goto out;
	}
	rc = 0;
out:
	ndk_pair_buf_free(src);
	ndk_pair_buf_free(dst);
	rcx_close(&x);
	return rc;
}

static int t_gone_backoff(void) { return gone_backoff(); }

/* ------------------------------------------------------------------ */
/* A sequence NAK while a gap re-read is pending                       */
/* ------------------------------------------------------------------ */

/*
 * B's response 5 (of READ 0) lost; A's request of READ 4 (PSN 64) lost;
 * A's re-read of READ 0 held until B has sent its sequence NAK, so that
 * the NAK reaches A while the re-read is pending.
 */
static enum verdict
f_nak_gap(struct rcx *x, int from, const struct ndk_roce_pkt *p)
{
	uint32_t k = rel(x, p->psn);
	bool rd_req = p->opcode == NDK_ROCE_OP_RC_READ_REQUEST;

	if (from == B && k == 5 && !rd_req && !(x->seen & 1)) {
		x->seen |= 1;
		x->hits++;
		return DROP;
	}
	if (from == A && rd_req && k == 4 * RD_PKTS && !(x->seen & 2)) {
		x->seen |= 2;
		x->hits++;
		return DROP;
	}
	if (from == A && rd_req && k == 5 && x->phase == 0)
		return HOLD;
	/* B's sequence NAK (it follows READs 0..3's responses). */
	if (from == B && p->opcode == NDK_ROCE_OP_RC_ACK && k == 4 * RD_PKTS &&
	    x->phase == 0)
		x->phase = 1;
	return PASS;
}

/* The NAK is on its way to A: now let the re-read go to B. */
static void
tick_nak_gap(struct rcx *x)
{
	if (x->phase == 1) {
		x->phase = 2;
		release(x, A);
	}
}

static int
t_nak_during_gap(void)
{
	struct rcx x;
	int rc;

	/* Strict 268 ms timer: it must not be what recovers. */
	if (rcx_open(&x, 16, 7, f_nak_gap) != 0)
		return -1;
	rc = transfer(&x, 8, RD_LEN, false, tick_nak_gap, 61);
	print_ctrs(&x);
	if (rc == 0)
		rc = check_healthy(&x);
	if (rc == 0) {
		TEST_ASSERT_EQ(x.hits, 2, "frames dropped");
		TEST_ASSERT_EQ(x.phase, 2, "NAK before the re-read");
		TEST_ASSERT(DELTA(&x, A, nak_seq_rewinds) >= 1,
			    "NAK ignored during the gap");
		TEST_ASSERT_EQ(DELTA(&x, A, retransmit_timeouts), 0,
			       "timeouts");
	}
	rcx_close(&x);
	return rc;
}

static int t_adaptive_gone(void) { return with_adaptive(gone_backoff); }

/* ------------------------------------------------------------------ */
/* Adaptive retransmission: losses nothing after them reveals          */
/* ------------------------------------------------------------------ */

/*
 * Drop the first frame B sends at PSN offset arg: a READ response, or,
 * with arg2 1, an ACK (of the last WRITE); with arg2 2 the first frame A
 * sends at arg (the last WRITE packet).
 */
static enum verdict
f_tail(struct rcx *x, int from, const struct ndk_roce_pkt *p)
{
	bool ack = p->opcode == NDK_ROCE_OP_RC_ACK;

	if (x->arg2 == 2) {
		if (from != A || x->hits != 0 || rel(x, p->psn) != x->arg)
			return PASS;
		x->hits++;
		return DROP;
	}
	if (from != B || x->hits != 0 || ack != (x->arg2 == 1) ||
	    rel(x, p->psn) != x->arg)
		return PASS;
	x->hits++;
	return DROP;
}

/*
 * 4 READs (or WRITEs, @p write) of 64 KiB; B's last response (or its ACK
 * of the WRITEs) lost once: nothing after it shows the loss, only a timer
 * does. Adaptive: an early retransmission, never the QP's 4.3 s timeout;
 * strict (4.2 ms timeout here): the QP's timeout, no early one.
 */
static int
tail(bool adaptive, bool write, bool data)
{
	struct rcx x;
	int rc;

	g_adaptive = adaptive;
	rc = rcx_open(&x, adaptive ? 20 : 10, 7, f_tail);
	g_adaptive = false;
	if (rc != 0)
		return -1;
	x.arg = 4 * RD_PKTS - 1;
	x.arg2 = data ? 2 : write ? 1 : 0;
	rc = transfer(&x, 4, RD_LEN, write, NULL, 41 + write);
	print_ctrs(&x);
	if (rc == 0)
		rc = check_healthy(&x);
	if (rc == 0) {
		TEST_ASSERT_EQ(x.hits, 1, "frames dropped");
		if (adaptive) {
			TEST_ASSERT_EQ(DELTA(&x, A, retransmit_timeouts), 0,
				       "full timeouts");
			TEST_ASSERT(DELTA(&x, A, adaptive_retransmits) >= 1,
				    "no adaptive retransmission");
		} else {
			TEST_ASSERT(DELTA(&x, A, retransmit_timeouts) >= 1,
				    "no timeout");
			TEST_ASSERT_EQ(DELTA(&x, A, adaptive_retransmits), 0,
				       "adaptive retransmissions when off");
		}
		/*
		 * A SEND/WRITE's adaptive expiry sends one probe (the packet
		 * at the oldest unacknowledged PSN), not the window: with
		 * the ACK lost, B sees it as its only duplicate; with the
		 * last packet lost, the probe's answer asks for that one.
		 */
		if (adaptive && write) {
			TEST_ASSERT(DELTA(&x, B, rx_duplicate) <= 1,
				    "window sent again: %" PRIu64 " dups",
				    DELTA(&x, B, rx_duplicate));
			TEST_ASSERT(DELTA(&x, A, retransmit_packets) <=
				    (data ? 2u : 1u), "retransmitted %" PRIu64,
				    DELTA(&x, A, retransmit_packets));
		}
		/* The expiry was classified as what it was. */
		TEST_ASSERT((write ? DELTA(&x, A, rto_ack_missing) :
			     DELTA(&x, A, rto_read_tail)) >= 1,
			    "expiry class");
		/* And the QP goes on. */
		rc = transfer(&x, 4, RD_LEN, write, NULL, 45 + write);
	}
	rcx_close(&x);
	return rc;
}

static int t_adaptive_read_tail(void) { return tail(true, false, false); }
static int t_adaptive_write_ack(void) { return tail(true, true, false); }
static int t_adaptive_write_tail(void) { return tail(true, true, true); }
static int t_strict_read_tail(void) { return tail(false, false, false); }
static int t_strict_write_ack(void) { return tail(false, true, false); }

/*
 * The answers of a QP's own requests: with adaptive retransmission on,
 * ndk_qp_query_info() shows an RTT sample and a timeout below the QP's
 * (clamped: at least the floor); off, the QP's own timeout.
 */
static int
t_adaptive_info(void)
{
	struct ndk_qp_info qi;
	struct rcx x;
	int rc;

	g_adaptive = true;
	rc = rcx_open(&x, 20, 7, NULL);
	g_adaptive = false;
	if (rc != 0)
		return -1;
	rc = transfer(&x, 4, RD_LEN, false, NULL, 51);
	if (rc == 0) {
		/* A floor of 1 s: clamped to it (below the 4.3 s timeout). */
		TEST_ASSERT_EQ(ndk_adapter_set_adaptive_rto(g_pair->ad[A],
				true, 1000000), NDK_STATUS_SUCCESS, "floor");
		TEST_ASSERT_EQ(ndk_qp_query_info(g_pair->ad[A],
				x.c->qp[A]->qpn, &qi), NDK_STATUS_SUCCESS,
			       "query");
		printf("    srtt %u ns, rto %" PRIu64 " ns\n", qi.srtt_ns,
		       qi.rto_ns);
		TEST_ASSERT(qi.srtt_ns != 0, "no RTT sample");
		TEST_ASSERT(qi.rto_ns >= 950000000ull &&
			    qi.rto_ns <= 1050000000ull, "floor not applied");
		TEST_ASSERT_EQ(ndk_adapter_set_adaptive_rto(g_pair->ad[A],
				false, 0), NDK_STATUS_SUCCESS, "off");
		TEST_ASSERT_EQ(ndk_qp_query_info(g_pair->ad[A],
				x.c->qp[A]->qpn, &qi), NDK_STATUS_SUCCESS,
			       "query");
		/* 4.096 us << 20 (5 % for TSC against ns). */
		TEST_ASSERT(qi.rto_ns >= 4080000000ull &&
			    qi.rto_ns <= 4510000000ull, "strict timeout");
		TEST_ASSERT_EQ(ndk_adapter_set_adaptive_rto(g_pair->ad[A],
				true, 2000000), NDK_STATUS_INVALID_PARAMETER,
			       "floor above 1 s accepted");
	}
	rcx_close(&x);
	return rc;
}

static const struct ndk_test_case cases[] = {
	{ "stall_reissue", t_stall_reissue },
	{ "mid_range_replay", t_mid_range_replay },
	{ "mid_range_late_originals", t_mid_range_late },
	{ "gap_one_read", t_gap_one_read },
	{ "gap_eight_reads", t_gap_eight_reads },
	{ "gap_ahead", t_gap_ahead },
	{ "gap_two_reads", t_gap_two },
	{ "stream_passed", t_stream_passed },
	{ "reread_lost", t_reread_lost },
	{ "lost_read_request", t_lost_read_request },
	{ "lost_write_packet", t_lost_write_packet },
	{ "stall_no_timeout", t_stall_no_timeout },
	{ "adaptive_stall_no_timeout", t_adaptive_stall },
	{ "gone_backoff", t_gone_backoff },
	{ "nak_during_gap", t_nak_during_gap },
	{ "adaptive_mid_range", t_adaptive_mid_range },
	{ "adaptive_read_tail", t_adaptive_read_tail },
	{ "adaptive_write_ack", t_adaptive_write_ack },
	{ "adaptive_write_tail", t_adaptive_write_tail },
	{ "strict_read_tail", t_strict_read_tail },
	{ "strict_write_ack", t_strict_write_ack },
	{ "adaptive_gone", t_adaptive_gone },
	{ "adaptive_info", t_adaptive_info },
};

int
main(int argc, char **argv)
{
	struct ndk_pair_config pc = {
		.max_path_mtu = MTU,
		.no_pollers = true,
	};
	int rc;

	if (ndk_test_eal_init("test_func_rc_recovery", "0-1", NULL) != 0)
		return 1;
	g_pair = ndk_pair_create(&pc);
	if (g_pair == NULL) {
		fprintf(stderr, "pair\n");
		rte_eal_cleanup();
		return 1;
	}
	rc = ndk_test_run("rc_recovery", cases, RTE_DIM(cases), argc, argv);
	ndk_pair_destroy(g_pair);
	rte_eal_cleanup();
	return rc;
}
