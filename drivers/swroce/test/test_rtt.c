/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Unit tests of adaptive retransmission's arithmetic: the RTT estimator
 * (lib/roce/ndk_roce_rtt.h: RFC 6298 with shifts, clamping) against a
 * floating-point reference, and swroce's sampling rules (Karn: no sample
 * from a retransmitted PSN; a retransmission voids the sample it covers,
 * a READ range asked again only a sample inside it)
 * and timer value (adaptive, doubling, capped by the full timeout; the
 * QP's timeout alone when off) on a QP set up by hand. No NIC.
 */

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>

#include "ndk_roce_rtt.h"
#include "ndk_test.h"
#include "swroce_adapter.h"
#include "swroce_qp.h"
#include "swroce_rtx.h"

/* RFC 6298 in doubles: what the shifts must track. */
struct ref_rtt {
	double srtt, rttvar;
	int n;
};

static void
ref_sample(struct ref_rtt *e, double r)
{
	if (e->n++ == 0) {
		e->srtt = r;
		e->rttvar = r / 2;
		return;
	}
	e->rttvar = 0.75 * e->rttvar + 0.25 * fabs(e->srtt - r);
	e->srtt = 0.875 * e->srtt + 0.125 * r;
}

static int
t_first_sample(void)
{
	struct ndk_roce_rtt e = { 0, 0 };

	/* Nothing known: the ceiling (the QP's own timeout). */
	TEST_ASSERT_EQ(ndk_roce_rtt_rto(&e, 10, 1000000), 1000000, "empty");
	ndk_roce_rtt_sample(&e, 1000);
	TEST_ASSERT_EQ(e.srtt, 1000, "srtt = R");
	TEST_ASSERT_EQ(e.rttvar, 500, "rttvar = R/2");
	TEST_ASSERT_EQ(ndk_roce_rtt_rto(&e, 10, 1000000), 3000, "R + 4 R/2");
	/* A zero sample still leaves a valid estimate. */
	memset(&e, 0, sizeof(e));
	ndk_roce_rtt_sample(&e, 0);
	TEST_ASSERT(e.srtt != 0, "zero sample makes srtt 0");
	return 0;
}

static int
t_clamp(void)
{
	struct ndk_roce_rtt e = { 0, 0 };

	ndk_roce_rtt_sample(&e, 100);                /* rto 300 */
	TEST_ASSERT_EQ(ndk_roce_rtt_rto(&e, 1000, 5000), 1000, "floor");
	TEST_ASSERT_EQ(ndk_roce_rtt_rto(&e, 10, 200), 200, "ceiling");
	/* Floor above the ceiling (a tiny QP timeout): the ceiling. */
	TEST_ASSERT_EQ(ndk_roce_rtt_rto(&e, 1000, 200), 200, "crossed");
	TEST_ASSERT_EQ(ndk_roce_rtt_rto(&e, 10, 5000), 300, "inside");
	return 0;
}

static int
t_converge(void)
{
	struct ndk_roce_rtt e = { 0, 0 };

	for (int i = 0; i < 200; i++)
		ndk_roce_rtt_sample(&e, 80000);
	/* Constant samples: SRTT the sample, RTTVAR down to (near) 0. */
	TEST_ASSERT(e.srtt >= 79990 && e.srtt <= 80000, "srtt %llu",
		    (unsigned long long)e.srtt);
	TEST_ASSERT(e.rttvar <= 8, "rttvar %llu",
		    (unsigned long long)e.rttvar);
	TEST_ASSERT(ndk_roce_rtt_rto(&e, 1000, UINT64_MAX) <= 80040, "rto");
	return 0;
}

static int
t_reference(void)
{
	struct ndk_roce_rtt e = { 0, 0 };
	struct ref_rtt r = { 0, 0, 0 };
	uint64_t x = 88172645463325252ull;

	/* Noisy samples around 2.5M ticks (~1 ms at 2.5 GHz), then a step. */
	for (int i = 0; i < 2000; i++) {
		uint64_t s;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		s = (i < 1000 ? 2500000 : 9000000) + x % 1000000;
		ndk_roce_rtt_sample(&e, s);
		ref_sample(&r, (double)s);
		if (fabs((double)e.srtt - r.srtt) > 0.001 * r.srtt ||
		    fabs((double)e.rttvar - r.rttvar) > 0.01 * r.rttvar + 16)
			TEST_FAIL("sample %d: srtt %llu/%.0f rttvar %llu/%.0f",
				  i, (unsigned long long)e.srtt, r.srtt,
				  (unsigned long long)e.rttvar, r.rttvar);
	}
	/* Huge values: no overflow in SRTT + 4 RTTVAR. */
	memset(&e, 0, sizeof(e));
	ndk_roce_rtt_sample(&e, 1ull << 58);
	TEST_ASSERT_EQ(ndk_roce_rtt_rto(&e, 1, UINT64_MAX),
		       (1ull << 58) * 3, "large");
	return 0;
}

/* A QP with just what the timer helpers read, on a small timer wheel. */
#define RTT_TW_BITS 6
static struct swr_adapter g_ad;
static struct swr_queue g_q;
static struct swr_qp g_qp;
static uint64_t g_tw_mem[((sizeof(struct swr_tw_node *) << RTT_TW_BITS) +
			 (1u << RTT_TW_BITS) / 8) / sizeof(uint64_t)];

static struct swr_qp *
qp_init(bool adaptive)
{
	memset(&g_ad, 0, sizeof(g_ad));
	memset(&g_q, 0, sizeof(g_q));
	memset(&g_qp, 0, sizeof(g_qp));
	g_ad.rto_adaptive = adaptive;
	g_ad.rto_floor_tsc = 100;
	g_qp.ad = &g_ad;
	g_qp.q = &g_q;
	g_qp.rto_tsc = 100000;       /* the QP's local ACK timeout */
	g_q.now = 1000000;
	RTE_BUILD_BUG_ON(sizeof(g_tw_mem) != swr_tw_mem_size(RTT_TW_BITS));
	memset(g_tw_mem, 0, sizeof(g_tw_mem));
	swr_tw_init(&g_q.tw, g_tw_mem, RTT_TW_BITS, 10, g_q.now);
	return &g_qp;
}

static int
t_karn(void)
{
	struct swr_qp *qp = qp_init(true);

	/* First transmission of PSN 10 (psn_max 10): timed. */
	qp->psn_max = 10;
	swr_rtt_start(qp, 10);
	TEST_ASSERT(qp->rtt_active, "first transmission not timed");
	qp->q->now += 5000;
	qp->rto_adapt_shift = 3;            /* backed off meanwhile */
	swr_rtt_progress(qp, 10);           /* not past it yet */
	TEST_ASSERT(qp->rtt_active && qp->rtt.srtt == 0, "early end");
	TEST_ASSERT_EQ(qp->rto_adapt_shift, 3, "back-off undone early");
	swr_rtt_progress(qp, 11);
	TEST_ASSERT_EQ(qp->rtt.srtt, 5000, "sample");
	TEST_ASSERT_EQ(qp->rto_adapt_shift, 0, "back-off kept after a sample");
	TEST_ASSERT(!qp->rtt_active, "still timing");
	/* A retransmission (PSN below psn_max) is never timed. */
	qp->psn_max = 20;
	swr_rtt_start(qp, 12);
	TEST_ASSERT(!qp->rtt_active, "retransmission timed");
	/* A sample voided by a retransmission from its PSN or before. */
	swr_rtt_start(qp, 20);
	TEST_ASSERT(qp->rtt_active, "new PSN not timed");
	swr_rtt_void_from(qp, 21);          /* after it: stays */
	TEST_ASSERT(qp->rtt_active, "voided by a later retransmission");
	swr_rtt_void_from(qp, 15);
	TEST_ASSERT(!qp->rtt_active, "not voided");
	qp->q->now += 1000000;
	swr_rtt_progress(qp, 30);
	TEST_ASSERT_EQ(qp->rtt.srtt, 5000, "voided sample taken");
	/* One sample at a time: a second start does not move the first. */
	qp->psn_max = 30;
	swr_rtt_start(qp, 30);
	qp->psn_max = 31;
	qp->q->now += 10;
	swr_rtt_start(qp, 31);
	TEST_ASSERT_EQ(qp->rtt_psn, 30, "sample replaced");
	return 0;
}

static int
t_timer_value(void)
{
	struct swr_qp *qp = qp_init(true);
	uint64_t now = qp->q->now;

	/* No sample: the QP's timeout. */
	TEST_ASSERT_EQ(swr_rto_value(qp), 100000, "no sample");
	ndk_roce_rtt_sample(&qp->rtt, 1000);        /* 3000 */
	TEST_ASSERT_EQ(swr_rto_value(qp), 3000, "adaptive");
	qp->rto_adapt_shift = 3;
	TEST_ASSERT_EQ(swr_rto_value(qp), 24000, "doubled");
	qp->rto_adapt_shift = 10;
	TEST_ASSERT_EQ(swr_rto_value(qp), 100000, "capped by the timeout");
	/* Armed: early, but never past a full timeout after rto_start. */
	qp->rto_adapt_shift = 0;
	qp->rto_start = now - 99000;
	swr_rto_arm(qp);
	TEST_ASSERT_EQ(qp->rto_deadline, now + 1000, "capped deadline");
	qp->rto_start = 0;
	swr_rto_arm(qp);
	TEST_ASSERT_EQ(qp->rto_start, now, "wait not started");
	TEST_ASSERT_EQ(qp->rto_deadline, now + 3000, "deadline");
	/* Off: the QP's timeout (doubled by its back-off), from now. */
	g_ad.rto_adaptive = 0;
	qp->rto_backoff = 1;
	TEST_ASSERT_EQ(swr_rto_value(qp), 200000, "strict");
	qp->rto_start = now - 199999;
	swr_rto_arm(qp);
	TEST_ASSERT_EQ(qp->rto_deadline, now + 200000, "strict deadline");
	/* Every arm above put the QP's node on the queue's wheel. */
	TEST_ASSERT(swr_tw_armed(&qp->tm), "deadline not on the wheel");
	return 0;
}

/*
 * A READ's response stream: the adaptive deadline also gets the time the
 * responses still expected take at the rate seen (never less, at most 4x
 * more, capped), and the meter ends with nothing outstanding.
 */
static int
t_read_stream(void)
{
	struct swr_qp *qp = qp_init(true);
	uint64_t t0 = qp->q->now, cap = 100000;

	ndk_roce_rtt_sample(&qp->rtt, 1000);        /* timeout 3000 */
	qp->rto_start = t0;                         /* the READ went out */
	qp->una_psn = 0;
	qp->req_psn = qp->psn_max = 1000;           /* 1,000 responses due */
	TEST_ASSERT_EQ(swr_rd_stream_time(qp, cap), 0, "no stream yet");
	/* One response every 7 ticks; the first 7 after the request. */
	for (uint32_t n = 1; n < 1000; n++) {
		uint64_t got, want;

		qp->q->now = t0 + 7ull * n;
		swr_rd_meter(qp);
		qp->una_psn = n;
		want = 7ull * (1000 - n);           /* el x left / n */
		got = swr_rd_stream_time(qp, cap);
		TEST_ASSERT(got >= RTE_MIN(want, cap) && got <= 4 * want,
			    "response %u: %" PRIu64 " for %" PRIu64, n, got,
			    want);
	}
	/* Armed: the timeout plus the stream, never past the full one. */
	qp->rto_start = qp->q->now;
	swr_rto_arm(qp);
	TEST_ASSERT(qp->rto_deadline >= qp->q->now + 3000 + 7 &&
		    qp->rto_deadline <= qp->q->now + 3000 + 28, "deadline %"
		    PRIu64, qp->rto_deadline - qp->q->now);
	qp->rto_start = qp->q->now - cap + 100;
	swr_rto_arm(qp);
	TEST_ASSERT_EQ(qp->rto_deadline, qp->q->now + 100, "capped");
	/* A slow stream is capped by the full timeout. */
	qp->q->now += 1000000000;
	TEST_ASSERT_EQ(swr_rd_stream_time(qp, cap), cap, "not capped");
	/* Everything answered: the meter ends. */
	swr_rtx_progress(qp, qp->req_psn);
	TEST_ASSERT_EQ(qp->rd_meter_n, 0, "meter kept");
	TEST_ASSERT_EQ(swr_rd_stream_time(qp, cap), 0, "stream after the end");
	return 0;
}

/*
 * A stream that never ends (READs posted as others complete): a stall at
 * its start (a first request lost, with its NAK) no longer slows its rate
 * once thousands of responses came at the steady one: the meter keeps
 * about the last 1,024.
 */
static int
t_read_stream_recent(void)
{
	struct swr_qp *qp = qp_init(true);
	uint64_t t0 = qp->q->now, cap = UINT64_C(1) << 40, want, got;

	qp->rto_start = t0;
	qp->una_psn = 0;
	qp->req_psn = qp->psn_max = 1u << 20;
	qp->q->now = t0 + 1000000;                  /* the stall */
	for (uint32_t n = 1; n <= 8192; n++) {
		qp->q->now += 7;
		swr_rd_meter(qp);
		qp->una_psn = n;
	}
	TEST_ASSERT(qp->rd_meter_n <= SWR_RD_METER_MAX, "meter %u",
		    qp->rd_meter_n);
	qp->psn_max = qp->req_psn = qp->una_psn + 256;
	want = 7ull * 256;
	got = swr_rd_stream_time(qp, cap);
	/* Counted from the start it would be 129 per response: 18x. */
	TEST_ASSERT(got >= want && got <= 8 * want, "stream %" PRIu64
		    " for %" PRIu64, got, want);
	return 0;
}

/*
 * A READ range asked again after its request arrived (past the READ's
 * first response) voids only a sample timed inside that range: a later
 * READ's sample survives, and ends at its first response.
 */
static int
t_karn_range(void)
{
	struct swr_qp *qp = qp_init(true);

	qp->psn_max = 100;
	swr_rtt_start(qp, 100);             /* a later READ, timed */
	swr_rtt_void_range(qp, 20, 36);     /* an older READ's range */
	TEST_ASSERT(qp->rtt_active, "voided by another READ's range");
	swr_rtt_void_range(qp, 101, 116);   /* its own, past the first */
	TEST_ASSERT(qp->rtt_active, "voided by a range after it");
	qp->q->now += 4000;
	swr_rtt_progress(qp, 101);
	TEST_ASSERT_EQ(qp->rtt.srtt, 4000, "sample");
	TEST_ASSERT_EQ(qp->q->stats.rtt_samples, 1, "samples counted");
	/* A range holding the timed PSN voids it, and is counted. */
	qp->psn_max = 200;
	swr_rtt_start(qp, 200);
	swr_rtt_void_range(qp, 190, 201);
	TEST_ASSERT(!qp->rtt_active, "not voided by its own range");
	TEST_ASSERT_EQ(qp->q->stats.rtt_voided, 1, "voids counted");
	return 0;
}

/*
 * The stream time counts only the responses still to stream (past the
 * highest received, rd_hi), not the holes below it that were asked again:
 * with everything up to psn_max in but one lost range, the deadline is a
 * round trip, not a window's stream; with selective repeat at most the
 * rest of the READ at the tail.
 */
static int
t_read_stream_holes(void)
{
	struct swr_qp *qp = qp_init(true);
	uint64_t t0 = qp->q->now, cap = 100000;

	ndk_roce_rtt_sample(&qp->rtt, 1000);        /* timeout 3000 */
	qp->rto_start = t0;
	qp->una_psn = 0;
	qp->req_psn = qp->psn_max = 256;
	for (uint32_t n = 1; n <= 255; n++) {       /* all but PSN 12 */
		qp->q->now = t0 + 7ull * n;
		swr_rd_meter(qp);
	}
	qp->una_psn = 12;
	qp->rd_hi = 256;
	TEST_ASSERT_EQ(swr_rd_stream_time(qp, cap), 0, "holes streamed");
	swr_rto_arm(qp);
	TEST_ASSERT_EQ(qp->rto_deadline, qp->q->now + 3000, "deadline");
	/* Half of it still to come: about half the stream's time. */
	qp->rd_hi = 128;
	TEST_ASSERT(swr_rd_stream_time(qp, cap) >= 7ull * 128 &&
		    swr_rd_stream_time(qp, cap) <= 4 * 7ull * 128,
		    "stream %" PRIu64, swr_rd_stream_time(qp, cap));
	/* rd_hi behind una_psn (a SEND or WRITE between): from una_psn. */
	qp->rd_hi = 5;
	TEST_ASSERT(swr_rd_stream_time(qp, cap) >= 7ull * 244,
		    "stream from rd_hi");
	/*
	 * Selective repeat (an ndk-roce responder streams its oldest READ
	 * first): at most what the READ at the tail still misses, 4 of 16.
	 */
	static struct swr_swqe sq[1];

	memset(sq, 0, sizeof(sq));
	sq[0].op = SWR_WR_READ;
	sq[0].started = 1;
	sq[0].npkts = 16;
	sq[0].rd_pkts = 12;
	qp->sq = (uint8_t *)sq;
	qp->sq_stride = sizeof(sq[0]);
	qp->sq_mask = 0;
	qp->sq_tail = 0;
	qp->sq_prod = 1;
	qp->sr_on = true;
	TEST_ASSERT(swr_rd_stream_time(qp, cap) >= 7ull * 4 &&
		    swr_rd_stream_time(qp, cap) <= 4 * 7ull * 4,
		    "tail READ's rest: %" PRIu64, swr_rd_stream_time(qp, cap));
	qp->sr_on = false;
	TEST_ASSERT(swr_rd_stream_time(qp, cap) >= 7ull * 244,
		    "go-back-N peer: the whole stream");
	return 0;
}

static const struct ndk_test_case cases[] = {
	{ "first_sample", t_first_sample },
	{ "clamp", t_clamp },
	{ "converge", t_converge },
	{ "reference", t_reference },
	{ "karn", t_karn },
	{ "timer_value", t_timer_value },
	{ "read_stream", t_read_stream },
	{ "read_stream_recent", t_read_stream_recent },
	{ "karn_range", t_karn_range },
	{ "read_stream_holes", t_read_stream_holes },
};

int
main(int argc, char **argv)
{
	int rc;

	/* Only for the test runner's TSC timings. */
	if (ndk_test_eal_init("test_unit_rtt", "0", NULL) < 0)
		return 1;
	rc = ndk_test_run("rtt_unit", cases, RTE_DIM(cases), argc, argv);
	rte_eal_cleanup();
	return rc;
}
