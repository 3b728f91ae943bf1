/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: the losses that nothing after them reveals, and adaptive
 * retransmission (ndk_adapter_set_adaptive_rto()), with the harness of
 * test_rc_recovery.c (rcx_common.c: chosen frames lost or held, both
 * adapters polled from this thread, phases on counters, never on time).
 *
 * - a sequence NAK that arrives while a gap re-read is pending goes back
 *   N at once (it used to be swallowed, and the lost requests waited for
 *   the QP's timeout);
 * - the last READ response, the last WRITE's ACK or its last packet lost:
 *   adaptive on, an early retransmission (never the QP's timeout; for a
 *   WRITE one probe packet, not the window); off, the QP's timeout;
 * - the RTT estimate and the armed timeout in ndk_qp_query_info();
 * - a long READ whose responses come slower than the round trip: never
 *   a timeout while they arrive; its tail lost, still recovered early;
 * - a lost re-read, with selective repeat: the READs after the one waiting
 *   for it go out (ORD slots freed), and the first answer to a request
 *   sent after the re-read shows it lost (RACK): asked again at once.
 */

#include <inttypes.h>
#include <stdio.h>

#include "rcx_common.h"

/* ------------------------------------------------------------------ */
/* A lost re-read found by a later request's answer (RACK)             */
/* ------------------------------------------------------------------ */

/*
 * B's response 5 of READ 0 lost, and A's re-read of it (a READ request at
 * PSN offset 5) lost once; the second one goes: arg2 takes how many READ
 * responses B had sent by then.
 */
static enum verdict
f_rack(struct rcx *x, int from, const struct ndk_roce_pkt *p)
{
	uint32_t k = rel(x, p->psn);
	bool rd_req = p->opcode == NDK_ROCE_OP_RC_READ_REQUEST;
	uint32_t bit = from == B && !rd_req ? 1 : from == A && rd_req ? 2 : 0;

	if (k != 5 || bit == 0)
		return PASS;
	if (!(x->seen & bit)) {
		x->seen |= bit;
		x->hits++;
		return DROP;
	}
	if (bit == 2 && !(x->seen & 4)) {
		x->seen |= 4;
		x->arg2 = (uint32_t)DELTA(x, B, read_resp_sent);
	}
	return PASS;
}

/*
 * 24 READs of 64 KiB, ORD 16, selective repeat, the strict timer: READ 0
 * waits for its lost re-read while READs 1..15 have all their responses;
 * they free their ORD slots, READs 16..23 go out after the re-read, and
 * the first response to one of them shows the re-read lost: it is asked
 * again then (read_reread_lost), long before the stream ends, and not by
 * the timer (neither the QP's timeout nor the last-READ guess).
 */
static int
t_rack_reread(void)
{
	struct rcx x;
	int rc;

	g_sr = true;
	rc = rcx_open(&x, 16, 7, f_rack);       /* ~268 ms */
	g_sr = false;
	if (rc != 0)
		return -1;
	rc = transfer_checked(&x, 24, RD_LEN, false, NULL, 61);
	if (rc == 0) {
		TEST_ASSERT_EQ(x.hits, 2, "frames dropped");
		TEST_ASSERT_EQ(DELTA(&x, A, retransmit_timeouts), 0,
			       "timeouts");
		TEST_ASSERT(DELTA(&x, A, read_ord_freed) >= 1,
			    "READs after it held by ORD");
		TEST_ASSERT_EQ(DELTA(&x, A, read_reread_lost), 1,
			       "lost re-read found by later answers");
		TEST_ASSERT((x.seen & 4) && x.arg2 < 24 * RD_PKTS,
			    "asked again after %u of %u responses", x.arg2,
			    24 * RD_PKTS);
	}
	rcx_close(&x);
	return rc;
}

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
	rc = transfer_checked(&x, 8, RD_LEN, false, tick_nak_gap, 61);
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
	rc = transfer_checked(&x, 4, RD_LEN, write, NULL, 41 + write);
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

/* ------------------------------------------------------------------ */
/* A long READ whose responses come slowly                             */
/* ------------------------------------------------------------------ */

#define SLOW_LEN (4u << 20)            /* 1,024 response frames */
#define SLOW_PKTS (SLOW_LEN / MTU)
#define SLOW_GAP_US 200                /* between two responses */
#define SLOW_LOST 4                    /* the last ones, once (arg2 1) */

/*
 * B's READ responses are held and let through one at a time (tick_slow),
 * slower than the adaptive timeout of the round trip; with arg2 1 the
 * first transmission of the last SLOW_LOST is lost (arg: the PSN offset
 * after the highest one seen, so a re-read's answers pass).
 */
static enum verdict
f_slow(struct rcx *x, int from, const struct ndk_roce_pkt *p)
{
	uint32_t k = rel(x, p->psn);

	if (from != B || p->opcode == NDK_ROCE_OP_RC_ACK)
		return PASS;
	if (x->arg2 == 1 && k >= SLOW_PKTS - SLOW_LOST && k >= x->arg) {
		x->arg = k + 1;
		x->hits++;
		return DROP;
	}
	return HOLD;
}

/* Let one held response through every SLOW_GAP_US (the first at once). */
static void
tick_slow(struct rcx *x)
{
	static uint64_t last;
	uint64_t now = rte_rdtsc();

	if (x->n_held[B] == 0)
		return;
	if (x->phase != 0 &&
	    now - last < rte_get_tsc_hz() / 1000000 * SLOW_GAP_US)
		return;
	x->phase = 1;
	last = now;
	release_n(x, B, 1);
}

/*
 * One 4 MiB READ whose responses arrive one every 200 us, four times the
 * 50 us adaptive timeout of this link's round trip: every response makes
 * progress, which re-arms the timer with the time the responses still
 * expected take at the rate seen so far, so the READ never times out
 * while they arrive (no retransmission at all). With its last responses
 * really lost (@p lose), an early retransmission still recovers it,
 * before the QP's 268 ms timeout.
 */
static int
slow_read(bool lose)
{
	struct rcx x;
	int rc;

	g_adaptive = true;
	rc = rcx_open(&x, 16, 7, f_slow);
	g_adaptive = false;
	if (rc != 0)
		return -1;
	x.arg2 = lose ? 1 : 0;
	rc = transfer_checked(&x, 1, SLOW_LEN, false, tick_slow, 71 + lose);
	if (rc == 0) {
		TEST_ASSERT_EQ(DELTA(&x, A, retransmit_timeouts), 0,
			       "full timeouts");
		if (!lose) {
			TEST_ASSERT_EQ(DELTA(&x, A, adaptive_retransmits), 0,
				       "adaptive expiry while responses came");
			TEST_ASSERT_EQ(DELTA(&x, A, retransmit_packets), 0,
				       "retransmitted");
			TEST_ASSERT_EQ(DELTA(&x, B, read_replays), 0,
				       "responses streamed again");
		} else {
			TEST_ASSERT_EQ(x.hits, SLOW_LOST, "frames dropped");
			TEST_ASSERT(DELTA(&x, A, adaptive_retransmits) >= 1,
				    "no early retransmission");
			/* The answer to the re-read comes as slowly: the
			 * stream's rate (the wait for the lost ones taken
			 * out) covers it, no second ask (a restart of the
			 * meter at the expiry asked 7 to 10). */
			TEST_ASSERT(DELTA(&x, A, retransmit_packets) <=
				    SLOW_LOST + 1, "asked again %" PRIu64
				    " responses for %u lost",
				    DELTA(&x, A, retransmit_packets),
				    SLOW_LOST);
		}
	}
	rcx_close(&x);
	return rc;
}

static int t_slow_read(void) { return slow_read(false); }
static int t_slow_read_lost_tail(void) { return slow_read(true); }

static const struct ndk_test_case cases[] = {
	{ "slow_read", t_slow_read },
	{ "slow_read_lost_tail", t_slow_read_lost_tail },
	{ "nak_during_gap", t_nak_during_gap },
	{ "adaptive_read_tail", t_adaptive_read_tail },
	{ "adaptive_write_ack", t_adaptive_write_ack },
	{ "adaptive_write_tail", t_adaptive_write_tail },
	{ "strict_read_tail", t_strict_read_tail },
	{ "strict_write_ack", t_strict_write_ack },
	{ "adaptive_info", t_adaptive_info },
	{ "rack_reread_lost", t_rack_reread },
};

int
main(int argc, char **argv)
{
	return rcx_main("test_func_rc_adaptive", "rc_adaptive", cases,
			RTE_DIM(cases), argc, argv);
}
