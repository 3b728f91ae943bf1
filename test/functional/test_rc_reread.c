/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: a lost re-read, and a response lost in the answer to a READ
 * request sent again, found by the answers that follow, never by the
 * retransmission timer (doc/recovery.md, "A lost re-read (RACK)").
 *
 * Both adapters are polled from this thread and every frame passes a
 * filter that drops or holds chosen ones (rcx_common.c); phases move on
 * what the filter sees, never on time. The strict IB timer (timeout 16,
 * about 268 ms): any expiry is counted and fails the case.
 *
 * - reread_lost_rack: 4 READs of 64 KiB. A response of the first is lost
 *   and so is the request that asks for it again; a response of the third
 *   is lost and its re-read answered. The fourth READ's responses are held
 *   until the first READ is asked again, so that nothing but that answer
 *   can show the first re-read lost (the last-in rule waits for the last
 *   READ sent): the answer to a re-read sent after it shows it (RACK).
 * - reread_after_nak: the second READ's request is lost: the sequence NAK
 *   sends it and the READs after it again (go-back-N). A response of its
 *   answer is lost: the READ was never executed before, so the gap is
 *   asked for at once, as in a first answer (the fourth READ's responses
 *   held until it is).
 * - reorder_tail_gap (adaptive retransmission on): reordering learnt
 *   first (a response held behind three others, asked, then arriving:
 *   the reorder window opens); then the second last response of the last
 *   of two READs is lost: the last one shows the gap, but within the
 *   window, and nothing comes after it. The reorder timer asks it when
 *   the window has passed, not the retransmission timer.
 * - nak_reorder_silent (adaptive, simulated time, 2 ms RTO floor):
 *   reordering learnt as above; then the request of the second of four
 *   READs is overtaken by the third's. The go-back-N responder NAKs the
 *   second (late, not lost: it executes it when it comes), then, when the
 *   fourth's request arrives, the third (dropped when it came first), and
 *   drops the fourth: nothing more comes. The requester waits the reorder
 *   window on each NAK (the first turns out late), then goes back to the
 *   third: within the window, not after the retransmission timeout (which
 *   a waiting NAK used to wait for: it had no timer of its own).
 */

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_cycles.h>

#include "ndk.h"
#include "ndk_pair_test.h"
#include "ndk_roce.h"
#include "ndk_test.h"

#include "rcx_common.h"
#include "sim_clock.h"

/* x->seen bits */
#define SEEN_LOST1	1u      /* the first chosen response dropped */
#define SEEN_LOST2	2u      /* the second one (or the request) dropped */
#define SEEN_ASK1	4u      /* the first ask of the watched range dropped */
#define SEEN_ASK2	8u      /* the watched range asked (again): release */
#define SEEN_NAK2	16u     /* nak_reorder_silent: the second NAK sent */

static bool
is_read_req(const struct ndk_roce_pkt *p)
{
	return p->opcode == NDK_ROCE_OP_RC_READ_REQUEST;
}

/* Drop a frame once: the first time bit @p bit is not yet in x->seen. */
static enum verdict
once(struct rcx *x, uint32_t bit)
{
	if (x->seen & bit)
		return PASS;
	x->seen |= bit;
	x->hits++;
	return DROP;
}

/*
 * reread_lost_rack: response 5 of READ 0 and its first re-read lost,
 * response 7 of READ 2 lost; READ 3's responses held until READ 0 is
 * asked again.
 */
static enum verdict
f_rack(struct rcx *x, int from, const struct ndk_roce_pkt *p)
{
	uint32_t k = rel(x, p->psn);

	if (from == A) {
		if (!is_read_req(p) || k != 5)
			return PASS;
		if (!(x->seen & SEEN_ASK1))
			return once(x, SEEN_ASK1);
		x->seen |= SEEN_ASK2;
		return PASS;
	}
	if (p->opcode == NDK_ROCE_OP_RC_ACK)
		return PASS;
	if (k == 5)
		return once(x, SEEN_LOST1);
	if (k == 2 * RD_PKTS + 7)
		return once(x, SEEN_LOST2);
	if (k >= 3 * RD_PKTS && !(x->seen & SEEN_ASK2))
		return HOLD;
	return PASS;
}

/*
 * reread_after_nak: READ 1's request lost once, then response 5 of READ 1
 * (its first showing: the answer to the request sent again); READ 3's
 * responses held until READ 1 is asked for it.
 */
static enum verdict
f_nak(struct rcx *x, int from, const struct ndk_roce_pkt *p)
{
	uint32_t k = rel(x, p->psn);

	if (from == A) {
		if (!is_read_req(p))
			return PASS;
		if (k == RD_PKTS)
			return once(x, SEEN_LOST1);
		if (k == RD_PKTS + 5)
			x->seen |= SEEN_ASK2;
		return PASS;
	}
	if (p->opcode == NDK_ROCE_OP_RC_ACK)
		return PASS;
	if (k == RD_PKTS + 5)
		return once(x, SEEN_LOST2);
	if (k >= 3 * RD_PKTS && !(x->seen & SEEN_ASK2))
		return HOLD;
	return PASS;
}

/*
 * reorder_tail_gap: phase 0, the response at x->arg held while three
 * later ones pass; phase 1, the response at x->arg2 lost once.
 */
static enum verdict
f_reo_tail(struct rcx *x, int from, const struct ndk_roce_pkt *p)
{
	uint32_t k = rel(x, p->psn);

	if (from != B || p->opcode == NDK_ROCE_OP_RC_ACK)
		return PASS;
	if (x->phase == 1)
		return k == x->arg2 ? once(x, SEEN_LOST1) : PASS;
	if (x->hits == 0) {
		if (k != x->arg)
			return PASS;
		x->hits = 1;            /* held */
		return HOLD;
	}
	if (x->hits <= 3) {
		x->hits++;              /* overtakes it */
		return PASS;
	}
	return x->n_held[B] != 0 ? HOLD : PASS;
}

static void
tick_reo_tail(struct rcx *x)
{
	if (x->phase == 0 && x->hits > 3 && x->n_held[B] != 0)
		release(x, B);
}

/*
 * Phase 0 of the reorder cases: 8 READs, a response held behind three
 * others (f_reo_tail), asked, then arriving: the window opens. Then phase
 * 1 begins, @p a0 A's counters then.
 */
static int
learn_reordering(struct rcx *x, void (*tick)(struct rcx *), uint32_t seed,
		 struct ndk_test_xstats *a0)
{
	x->arg = RD_PKTS + 5;
	if (transfer(x, 8, RD_LEN, false, tick, seed) != 0)
		return -1;
	TEST_ASSERT_EQ(DELTA(x, A, read_spurious), 1,
		       "phase 0: reordering learnt");
	ndk_pair_stats(x->pair, A, a0);
	x->phase = 1;
	return 0;
}

static int
reorder_tail_gap(void)
{
	struct ndk_test_xstats a0;
	struct rcx x;
	int rc;

	if (rcx_open(&x, 16, 7, f_reo_tail) != 0)
		return -1;
	rc = learn_reordering(&x, tick_reo_tail, 91, &a0);
	x.arg2 = 8 * RD_PKTS + 2 * RD_PKTS - 2;
	if (rc == 0)
		rc = transfer(&x, 2, RD_LEN, false, NULL, 92);
	if (rc == 0) {
		const struct ndk_test_xstats *a1 = ctr_now(&x, A);

		TEST_ASSERT(x.seen == SEEN_LOST1, "phase 1 scenario");
		TEST_ASSERT_EQ(XS_DIFF(a1, &a0, "adaptive_retransmits") +
			       XS_DIFF(a1, &a0, "retransmit_timeouts"), 0,
			       "phase 1: found by the retransmission timer");
		TEST_ASSERT_EQ(XS_DIFF(a1, &a0, "read_gap_retries"), 1,
			       "phase 1: ranges asked");
		rc = check_healthy(&x);
	}
	print_ctrs(&x);
	rcx_close(&x);
	return rc;
}

static int t_reorder_tail_gap(void) { return with_adaptive(reorder_tail_gap); }

/* Simulated times of nak_reorder_silent: the second NAK, the resend. */
static uint64_t nrs_nak2, nrs_resend;

static bool
is_seq_nak(const struct ndk_roce_pkt *p)
{
	const struct ndk_roce_aeth *aeth;
	uint8_t syn;

	if (p->opcode != NDK_ROCE_OP_RC_ACK)
		return false;
	aeth = ndk_roce_pkt_ext(p, p->op->offset[NDK_ROCE_AETH]);
	syn = ndk_roce_aeth_syndrome(aeth);
	return syn == (NDK_ROCE_AETH_NAK | NDK_ROCE_NAK_PSN_SEQ);
}

/*
 * nak_reorder_silent: phase 0 as reorder_tail_gap's; phase 1, the request
 * of READ x->arg2 (PSN offset) held until the next READ's request passed,
 * then released with those after it (in order).
 */
static enum verdict
f_nak_reo(struct rcx *x, int from, const struct ndk_roce_pkt *p)
{
	uint32_t k = rel(x, p->psn), r1 = x->arg2, r2 = x->arg2 + RD_PKTS;

	if (x->phase == 0)
		return f_reo_tail(x, from, p);
	if (from == B) {
		if (k == r2 && is_seq_nak(p) && !(x->seen & SEEN_NAK2)) {
			x->seen |= SEEN_NAK2;
			nrs_nak2 = sim_now;
		}
		return PASS;
	}
	if (!is_read_req(p))
		return PASS;
	if (x->hits == 0 && k == r1) {
		x->hits = 1;            /* held */
		return HOLD;
	}
	if (x->hits == 1 && k == r2) {
		x->hits = 2;            /* overtakes it */
		return PASS;
	}
	if (x->hits < 3)
		return HOLD;            /* behind it until released */
	if (k == r2 && (x->seen & SEEN_NAK2) && nrs_resend == 0)
		nrs_resend = sim_now;
	return PASS;
}

static void
tick_nak_reo(struct rcx *x)
{
	if (x->phase == 0)
		tick_reo_tail(x);
	else if (x->hits == 2) {
		x->hits = 3;
		release(x, A);
	}
}

static int
nak_reorder_silent(void)
{
	const uint32_t floor_us = 2000;
	struct ndk_test_xstats a0;
	struct rcx x;
	uint64_t us = rte_get_tsc_hz() / 1000000;
	int rc;

	if (sim_clock_set(g_pair, true) != 0)
		return -1;
	rc = rcx_open(&x, 16, 7, f_nak_reo);
	if (rc != 0)
		goto out;
	x.clk = &sim_now;
	x.clk_step = us;
	for (int s = 0; s < 2; s++)
		TEST_ASSERT_EQ(ndk_adapter_set_adaptive_rto(g_pair->ad[s], true,
							    floor_us),
			       NDK_STATUS_SUCCESS, "RTO floor");
	rc = learn_reordering(&x, tick_nak_reo, 93, &a0);
	x.hits = 0;
	x.arg2 = 8 * RD_PKTS + RD_PKTS;
	nrs_nak2 = nrs_resend = 0;
	if (rc == 0)
		rc = transfer(&x, 4, RD_LEN, false, tick_nak_reo, 94);
	if (rc == 0) {
		const struct ndk_test_xstats *a1 = ctr_now(&x, A);

		TEST_ASSERT_EQ(x.hits, 3, "phase 1: a request overtaken");
		TEST_ASSERT((x.seen & SEEN_NAK2) && nrs_resend > nrs_nak2,
			    "phase 1: NAK of the third READ, then its resend");
		printf("    NAK to resend: %" PRIu64 " us simulated\n",
		       (nrs_resend - nrs_nak2) / us);
		TEST_ASSERT((nrs_resend - nrs_nak2) / us < floor_us / 2,
			    "phase 1: the NAK waited for the retransmission "
			    "timer (%" PRIu64 " us)", (nrs_resend - nrs_nak2) /
			    us);
		TEST_ASSERT_EQ(XS_DIFF(a1, &a0, "adaptive_retransmits") +
			       XS_DIFF(a1, &a0, "retransmit_timeouts"), 0,
			       "phase 1: expiries");
		TEST_ASSERT(XS_DIFF(a1, &a0, "nak_seq_deferred") >= 2 &&
			    XS_DIFF(a1, &a0, "nak_seq_late") >= 1,
			    "phase 1: NAKs waited, the first found late");
		rc = check_healthy(&x);
	}
	print_ctrs(&x);
	rcx_close(&x);
out:
	if (sim_clock_set(g_pair, false) != 0)
		rc = -1;
	return rc;
}

static int t_nak_reorder_silent(void) { return with_adaptive(nak_reorder_silent); }

/* The watched range was asked: what was held goes. */
static void
tick_release(struct rcx *x)
{
	if ((x->seen & SEEN_ASK2) && x->n_held[B] != 0)
		release(x, B);
}

/*
 * Four READs through filter @p f: the scenario must have happened
 * (@p want_seen, @p want_hits frames dropped) and been recovered with no
 * expiry; @p rack: by a lost re-read found (read_reread_lost).
 */
static int
reread_case(filter_fn f, uint32_t want_seen, uint32_t want_hits, bool rack)
{
	struct rcx x;
	int rc;

	if (rcx_open(&x, 16, 7, f) != 0)
		return -1;
	rc = transfer_checked(&x, 4, RD_LEN, false, tick_release, 77);
	if (rc == 0) {
		TEST_ASSERT(x.seen == want_seen && x.hits == want_hits,
			    "scenario: seen %#x, %u dropped", x.seen, x.hits);
		TEST_ASSERT_EQ(DELTA(&x, A, retransmit_timeouts), 0,
			       "timeouts");
		TEST_ASSERT_EQ(DELTA(&x, A, rto_read_reread), 0,
			       "expiries after a lost re-read");
		TEST_ASSERT_EQ(DELTA(&x, A, read_gap_retries), rack ? 3 : 1,
			       "ranges asked");
		TEST_ASSERT_EQ(DELTA(&x, A, read_reread_lost) != 0, rack,
			       "lost re-reads found by a later answer");
		TEST_ASSERT_EQ(DELTA(&x, A, nak_seq_rcvd), rack ? 0 : 1,
			       "sequence NAKs");
	}
	rcx_close(&x);
	return rc;
}

static int
t_reread_lost_rack(void)
{
	return reread_case(f_rack, SEEN_LOST1 | SEEN_LOST2 | SEEN_ASK1 |
			   SEEN_ASK2, 3, true);
}

static int
t_reread_after_nak(void)
{
	return reread_case(f_nak, SEEN_LOST1 | SEEN_LOST2 | SEEN_ASK2, 2,
			   false);
}

static const struct ndk_test_case cases[] = {
	{ "reread_lost_rack", t_reread_lost_rack },
	{ "reread_after_nak", t_reread_after_nak },
	{ "reorder_tail_gap", t_reorder_tail_gap },
	/* Last: the adapters leave the simulated clock ahead of the TSC. */
	{ "nak_reorder_silent", t_nak_reorder_silent },
};

int
main(int argc, char **argv)
{
	return rcx_main("test_func_rc_reread", "rc_reread", cases,
			RTE_DIM(cases), argc, argv);
}
