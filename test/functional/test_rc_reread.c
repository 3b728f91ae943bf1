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
 */

#include <stdbool.h>
#include <stdint.h>

#include "ndk.h"
#include "ndk_pair_test.h"
#include "ndk_roce.h"
#include "ndk_test.h"

#include "rcx_common.h"

/* x->seen bits */
#define SEEN_LOST1	1u      /* the first chosen response dropped */
#define SEEN_LOST2	2u      /* the second one (or the request) dropped */
#define SEEN_ASK1	4u      /* the first ask of the watched range dropped */
#define SEEN_ASK2	8u      /* the watched range asked (again): release */

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

static int
reorder_tail_gap(void)
{
	struct ndk_test_xstats a0;
	struct rcx x;
	int rc;

	if (rcx_open(&x, 16, 7, f_reo_tail) != 0)
		return -1;
	x.arg = RD_PKTS + 5;
	rc = transfer(&x, 8, RD_LEN, false, tick_reo_tail, 91);
	if (rc == 0)
		TEST_ASSERT_EQ(DELTA(&x, A, read_spurious), 1,
			       "phase 0: reordering learnt");
	ndk_pair_stats(x.pair, A, &a0);
	x.phase = 1;
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
};

int
main(int argc, char **argv)
{
	return rcx_main("test_func_rc_reread", "rc_reread", cases,
			RTE_DIM(cases), argc, argv);
}
