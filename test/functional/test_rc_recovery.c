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
 *   in STATUS_IO_TIMEOUT, after timeouts that double;
 * - out-of-order placement: responses lost at the first, a middle and the
 *   last place of a READ, several at once in several READs: every later
 *   response is placed, each run of lost ones is asked again alone, and
 *   the responder sends one frame per frame lost;
 * - corrupted READ responses (their ICRC is checked as they are copied into
 *   the sink), in memif-like chains of 2 KB segments: a bad payload, a
 *   PSN turned into an already received one or into the missing one, the
 *   last frame of a READ: every READ completes with exact data.
 *
 * The cases run with the strict IB timer (adaptive retransmission off);
 * the adaptive_* variants repeat some with it on (an early retransmission
 * instead of the timeout; the dead peer found as late as before). The
 * harness is rcx_common.c; test_rc_adaptive.c has the losses nothing
 * after them reveals.
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
#include "ndk_pair_test.h"
#include "ndk_roce.h"
#include "ndk_test.h"

#include "rcx_common.h"

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

	/*
	 * ~4 ms strict. Adaptive ~67 ms: the early expiries come from the
	 * RTT (tens of us) either way, and a full timeout must mean that
	 * nothing came for that long, not that a loaded machine was slow
	 * through the re-read's responses.
	 */
	if (rcx_open(&x, g_adaptive ? 14 : 10, 7, f_mid) != 0)
		return -1;
	x.arg = late;
	rc = transfer_checked(&x, 1, RD_LEN, false, tick_mid, 21 + late);
	if (rc == 0) {
		/*
		 * Strict: the QP's timeout asked again; adaptive: an early
		 * retransmission did, and the QP's timeout never expired,
		 * unless the early expiry found the poller late (a gap
		 * longer than the early timeout itself, on a loaded
		 * machine), was deferred for that reason, and the full one
		 * asked again.
		 */
		uint64_t early = DELTA(&x, A, adaptive_retransmits);
		uint64_t full = DELTA(&x, A, retransmit_timeouts);
		uint64_t deferred = DELTA(&x, A, adaptive_deferred);

		if (g_adaptive) {
			TEST_ASSERT(early + full >= 1, "no timeout");
			TEST_ASSERT(full == 0 || deferred >= 1,
				    "a full timeout, no early one deferred");
		} else {
			TEST_ASSERT(full >= 1, "no timeout");
			TEST_ASSERT_EQ(early, 0, "wrong kind of timeout");
		}
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
	rc = transfer_checked(&x, n, RD_LEN, write, NULL, 31 + k);
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
 * Response 5 of the first of 8 READs: the first READ's later responses and
 * the second READ's arrive before the re-read's and are placed meanwhile;
 * only the lost frame is sent again.
 */
static int
t_gap_ahead(void)
{
	struct ndk_test_xstats a0, b0, a1, b1;

	ndk_pair_stats(g_pair, A, &a0);
	ndk_pair_stats(g_pair, B, &b0);
	if (one_lost(8, 5, B, false) != 0)
		return -1;
	ndk_pair_stats(g_pair, A, &a1);
	ndk_pair_stats(g_pair, B, &b1);
	TEST_ASSERT(XS_DIFF(&a1, &a0, "read_resp_ahead") >= RD_PKTS,
		    "responses placed ahead: %" PRIu64,
		    XS_DIFF(&a1, &a0, "read_resp_ahead"));
	TEST_ASSERT_EQ(XS_DIFF(&b1, &b0, "read_resp_sent"),
		       8 * RD_PKTS + 1, "frames sent by B");
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
	rc = transfer_checked(&x, 3, RD_LEN, false, tick_passed, 51);
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

static int t_stall_no_timeout(void) { return stall_no_timeout(); }
static int t_adaptive_stall(void) { return with_adaptive(stall_no_timeout); }
static int t_gone_backoff(void) { return gone_backoff(); }
static int t_adaptive_gone(void) { return with_adaptive(gone_backoff); }

/* ------------------------------------------------------------------ */
/* Corrupted READ responses                                            */
/* ------------------------------------------------------------------ */

/*
 * B's response at PSN offset arg: corrupted (first transmission); at
 * offset arg2 - 1 (if arg2): dropped (first transmission).
 */
static enum verdict
f_corrupt(struct rcx *x, int from, const struct ndk_roce_pkt *p)
{
	uint32_t k = rel(x, p->psn);

	if (from != B || !(p->op->flags & NDK_ROCE_OPF_READ))
		return PASS;
	if (k == x->arg && !(x->seen & 1)) {
		x->seen |= 1;
		x->hits++;
		return CORRUPT;
	}
	if (x->arg2 != 0 && k == x->arg2 - 1 && !(x->seen & 2)) {
		x->seen |= 2;
		return DROP;
	}
	return PASS;
}

/*
 * @p n READs of 64 KiB, B's frames in 2 KB segments; the response at PSN
 * offset @p k corrupted as @p dmg says (struct rcx); the one at @p drop_k
 * - 1 lost (if @p drop_k).
 * @p in_sink: the bad frame reached the sink (rx_icrc_read_sink);
 * @p timeout: the loss can only be found by the timer.
 */
static int
corrupted(unsigned int n, uint32_t k, uint32_t dmg, uint32_t drop_k,
	  bool in_sink, bool timeout)
{
	struct rcx x;
	int rc;

	/* ~4 ms when the timer is the way back, else ~268 ms. */
	if (rcx_open(&x, timeout ? 10 : 16, 7, f_corrupt) != 0)
		return -1;
	x.arg = k;
	x.arg2 = drop_k;
	x.dmg = dmg;
	x.chain = true;
	rc = transfer_checked(&x, n, RD_LEN, false, NULL, 61 + k);
	if (rc == 0) {
		TEST_ASSERT_EQ(x.hits, 1, "frames corrupted");
		TEST_ASSERT_EQ(DELTA(&x, A, rx_icrc_errors), 1, "ICRC errors");
		TEST_ASSERT_EQ(DELTA(&x, A, rx_icrc_read_sink), in_sink ? 1 : 0,
			       "ICRC errors found in the sink's pass");
		TEST_ASSERT_EQ(DELTA(&x, A, rx_duplicate) +
			       DELTA(&x, A, rx_ghost_resp) +
			       DELTA(&x, A, rx_bad_length) +
			       DELTA(&x, A, rx_unknown_qpn) +
			       DELTA(&x, A, rx_wrong_address), 0,
			       "bad frame taken for a good one");
		if (timeout)
			TEST_ASSERT(DELTA(&x, A, retransmit_timeouts) >= 1,
				    "no timeout");
		else
			TEST_ASSERT(DELTA(&x, A, retransmit_timeouts) == 0 &&
				    DELTA(&x, A, read_gap_retries) >= 1,
				    "not re-read at once");
	}
	x.chain = false;
	rcx_close(&x);
	return rc;
}

/* Response 5 of the first of 4 READs: garbage in the sink, read again. */
static int t_corrupt_payload(void) { return corrupted(4, 5, 0, 0, 1, 0); }
/* Response 10 of a READ claims PSN 3, received already: never placed. */
static int t_corrupt_psn_received(void) { return corrupted(2, 10, 4, 0, 0, 0); }
/* Response 5 lost, 6 claims PSN 5: bad in the missing range, read again. */
static int t_corrupt_psn_missing(void) { return corrupted(2, 6, 6, 6, 1, 0); }
/* Response 7's QPN names no QP: an ICRC error, not an unknown QPN. */
static int t_corrupt_qpn(void) { return corrupted(1, 7, DMG_QPN, 0, 0, 0); }
/* PSN 31, the last response of the last READ: only the timer finds it. */
static int t_corrupt_last(void) { return corrupted(2, 31, 0, 0, 1, 1); }

/* ------------------------------------------------------------------ */
/* Out-of-order placement: a lost response costs that response         */
/* ------------------------------------------------------------------ */

static const uint32_t *g_drops;   /* PSN offsets of responses to drop */
static unsigned int g_n_drops;

/* B's first transmission of the responses at the offsets in g_drops. */
static enum verdict
f_set(struct rcx *x, int from, const struct ndk_roce_pkt *p)
{
	uint32_t k = rel(x, p->psn);

	if (from != B || !(p->op->flags & NDK_ROCE_OPF_READ))
		return PASS;
	for (unsigned int i = 0; i < g_n_drops; i++) {
		if (g_drops[i] == k && !(x->seen & (1u << i))) {
			x->seen |= 1u << i;
			x->hits++;
			return DROP;
		}
	}
	return PASS;
}

/*
 * @p n READs of 64 KiB in flight, the responses at the @p cnt offsets of
 * @p drops lost once, in @p ranges runs of consecutive PSNs per READ:
 * every response after a lost one is placed, each run is asked again once
 * (READ requests for that range alone) and B sends exactly one frame per
 * frame lost. No timeout: a later response shows each loss.
 */
static int
ooo_case(unsigned int n, const uint32_t *drops, unsigned int cnt,
	 unsigned int ranges)
{
	struct rcx x;
	int rc;

	if (rcx_open(&x, 16, 7, f_set) != 0)    /* ~268 ms */
		return -1;
	g_drops = drops;
	g_n_drops = cnt;
	rc = transfer_checked(&x, n, RD_LEN, false, NULL, 61 + drops[0]);
	if (rc == 0) {
		TEST_ASSERT_EQ(x.hits, cnt, "frames dropped");
		TEST_ASSERT_EQ(DELTA(&x, A, retransmit_timeouts), 0,
			       "timeouts");
		TEST_ASSERT_EQ(DELTA(&x, A, read_gap_retries), ranges,
			       "ranges asked again");
		TEST_ASSERT_EQ(DELTA(&x, A, retransmit_packets), cnt,
			       "responses asked again");
		TEST_ASSERT_EQ(DELTA(&x, B, read_resp_sent), n * RD_PKTS + cnt,
			       "frames sent by B");
		TEST_ASSERT(DELTA(&x, A, read_resp_ooo) +
			    DELTA(&x, A, read_resp_ahead) != 0,
			    "nothing placed out of order");
		TEST_ASSERT_EQ(DELTA(&x, B, read_dup_ignored), 0,
			       "re-reads B could not serve");
	}
	rcx_close(&x);
	return rc;
}

/* The first, a middle and the last response of the second of 8 READs. */
static int
t_ooo_first(void)
{
	static const uint32_t d[] = { RD_PKTS };

	return ooo_case(8, d, 1, 1);
}

static int
t_ooo_middle(void)
{
	static const uint32_t d[] = { RD_PKTS + 7 };

	return ooo_case(8, d, 1, 1);
}

static int
t_ooo_last(void)
{
	static const uint32_t d[] = { RD_PKTS + RD_PKTS - 1 };

	return ooo_case(8, d, 1, 1);
}

/* The very first response of all (its READ's RTT sample). */
static int
t_ooo_first_of_all(void)
{
	static const uint32_t d[] = { 0 };

	return ooo_case(4, d, 1, 1);
}

/*
 * Several gaps at once: in the second READ a run of two, one in the
 * middle and its second last (asked one after the other, each once the
 * one before is in), one in the fourth READ, the first of the sixth
 * (asked at the same time as the second READ's).
 */
static int
t_ooo_several(void)
{
	static const uint32_t d[] = {
		RD_PKTS + 2, RD_PKTS + 3, RD_PKTS + 9, RD_PKTS + 14,
		3 * RD_PKTS + 5, 5 * RD_PKTS,
	};

	return ooo_case(8, d, RTE_DIM(d), 5);
}

/* A single READ losing a middle response and its second last. */
static int
t_ooo_one_read(void)
{
	static const uint32_t d[] = { 4, 14 };

	return ooo_case(1, d, RTE_DIM(d), 2);
}

/*
 * Response 5 of the first of 8 READs and the third READ's request lost:
 * B's sequence NAK names the third READ and shows every READ before it
 * answered. The first READ is asked again for its lost response alone,
 * the requests go back to the third READ, not to the first: B sends no
 * response of the first two READs twice.
 */
static enum verdict
f_nak(struct rcx *x, int from, const struct ndk_roce_pkt *p)
{
	uint32_t k = rel(x, p->psn);
	uint32_t bit = from == B ? 1 : 2;

	if ((from == B && (!(p->op->flags & NDK_ROCE_OPF_READ) || k != 5)) ||
	    (from == A && (p->opcode != NDK_ROCE_OP_RC_READ_REQUEST ||
			   k != 2 * RD_PKTS)) || (x->seen & bit))
		return PASS;
	x->seen |= bit;
	x->hits++;
	return DROP;
}

static int
t_ooo_nak(void)
{
	struct rcx x;
	int rc;

	if (rcx_open(&x, 16, 7, f_nak) != 0)    /* ~268 ms */
		return -1;
	rc = transfer_checked(&x, 8, RD_LEN, false, NULL, 71);
	if (rc == 0) {
		TEST_ASSERT_EQ(x.hits, 2, "frames dropped");
		TEST_ASSERT_EQ(DELTA(&x, A, retransmit_timeouts), 0,
			       "timeouts");
		TEST_ASSERT_EQ(DELTA(&x, A, nak_seq_rcvd), 1, "NAKs");
		TEST_ASSERT_EQ(DELTA(&x, B, read_resp_sent), 8 * RD_PKTS + 1,
			       "frames sent by B");
	}
	rcx_close(&x);
	return rc;
}

/*
 * Reordering, not loss. Phase by phase on one QP (x->arg: the PSN offset
 * of the frame to hold, 0: none): its first transmission is held while
 * exactly three later frames of the same side pass, then delivered ahead
 * of the rest.
 */
static enum verdict
f_reo(struct rcx *x, int from, const struct ndk_roce_pkt *p)
{
	bool req = p->opcode == NDK_ROCE_OP_RC_READ_REQUEST;

	if (x->arg == 0 || from != (x->arg2 ? A : B) ||
	    !(p->op->flags & NDK_ROCE_OPF_READ) || (x->arg2 != 0) != req)
		return PASS;
	if (x->hits == 0) {
		if (rel(x, p->psn) != x->arg)
			return PASS;
		x->hits = 1;            /* held */
		return HOLD;
	}
	if (x->hits <= 3) {
		x->hits++;              /* overtakes it */
		return PASS;
	}
	return x->n_held[from] != 0 ? HOLD : PASS;
}

static void
tick_reo(struct rcx *x)
{
	int from = x->arg2 ? A : B;

	if (x->hits > 3 && x->n_held[from] != 0)
		release(x, from);
}

/* One phase: 8 READs, the frame at offset @p k (a request if @p req) late. */
static int
reo_phase(struct rcx *x, uint32_t k, bool req, uint32_t seed)
{
	x->arg = k;
	x->arg2 = req;
	x->hits = 0;
	return transfer(x, 8, RD_LEN, false, tick_reo, seed);
}

/*
 * 1. A response overtaken by three others: taken for lost (no reordering
 *    seen yet), asked again; the original comes too: read_spurious, the
 *    QP's reorder window widens.
 * 2. The same again: no longer asked, B sends every response once.
 * 3. A READ request overtaken by three others: B NAKs it and drops the
 *    later ones; the NAK waits, B's answer to the late request shows it
 *    arrived (nak_seq_late): only the requests B dropped go again, B
 *    sends every response once.
 */
static int
reorder_window(void)
{
	struct ndk_test_xstats a0, b0;
	struct rcx x;
	int rc;

	if (rcx_open(&x, 16, 7, f_reo) != 0)    /* ~268 ms */
		return -1;
	rc = reo_phase(&x, RD_PKTS + 5, false, 81);
	if (rc == 0) {
		TEST_ASSERT_EQ(DELTA(&x, A, read_gap_retries), 1, "phase 1 ask");
		TEST_ASSERT_EQ(DELTA(&x, A, read_spurious), 1,
			       "phase 1 spurious");
	}
	ndk_pair_stats(x.pair, A, &a0);
	ndk_pair_stats(x.pair, B, &b0);
	if (rc == 0)
		rc = reo_phase(&x, 8 * RD_PKTS + RD_PKTS + 5, false, 82);
	if (rc == 0) {
		struct ndk_test_xstats a1, b1;

		ndk_pair_stats(x.pair, A, &a1);
		ndk_pair_stats(x.pair, B, &b1);
		TEST_ASSERT_EQ(x.hits, 4, "phase 2 scenario");
		TEST_ASSERT_EQ(XS_DIFF(&a1, &a0, "read_gap_retries"), 0,
			       "phase 2: reordering taken for loss");
		TEST_ASSERT_EQ(XS_DIFF(&b1, &b0, "read_resp_sent"),
			       8 * RD_PKTS, "phase 2: frames sent by B");
		a0 = a1;
		b0 = b1;
		rc = reo_phase(&x, 2 * 8 * RD_PKTS + 2 * RD_PKTS, true, 83);
		if (rc == 0) {
			ndk_pair_stats(x.pair, A, &a1);
			ndk_pair_stats(x.pair, B, &b1);
			TEST_ASSERT_EQ(x.hits, 4, "phase 3 scenario");
			TEST_ASSERT(XS_DIFF(&a1, &a0, "nak_seq_late") >= 1,
				    "phase 3: the NAK was acted on");
			TEST_ASSERT_EQ(XS_DIFF(&b1, &b0, "read_resp_sent"),
				       8 * RD_PKTS,
				       "phase 3: frames sent by B");
			TEST_ASSERT_EQ(XS_DIFF(&b1, &b0, "read_replays"), 0,
				       "phase 3: requests B had sent again");
		}
	}
	if (rc == 0)
		rc = check_healthy(&x);
	print_ctrs(&x);
	rcx_close(&x);
	return rc;
}

/* With adaptive retransmission: a waiting NAK needs the early timer. */
static int t_reorder_window(void) { return with_adaptive(reorder_window); }

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
	{ "adaptive_mid_range", t_adaptive_mid_range },
	{ "adaptive_gone", t_adaptive_gone },
	{ "corrupt_payload", t_corrupt_payload },
	{ "corrupt_psn_received", t_corrupt_psn_received },
	{ "corrupt_psn_missing", t_corrupt_psn_missing },
	{ "corrupt_qpn", t_corrupt_qpn },
	{ "corrupt_last", t_corrupt_last },
	{ "ooo_first", t_ooo_first },
	{ "ooo_middle", t_ooo_middle },
	{ "ooo_last", t_ooo_last },
	{ "ooo_first_of_all", t_ooo_first_of_all },
	{ "ooo_several", t_ooo_several },
	{ "ooo_one_read", t_ooo_one_read },
	{ "ooo_nak", t_ooo_nak },
	{ "reorder_window", t_reorder_window },
};

int
main(int argc, char **argv)
{
	return rcx_main("test_func_rc_recovery", "rc_recovery", cases,
			RTE_DIM(cases), argc, argv);
}
