/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Unit tests of the swroce timer wheel (drivers/swroce/rc/swroce_timer.h):
 * arm, re-arm earlier and later, cancel (also from a callback), deadlines
 * several laps away, ticks and slot indices that wrap, many timers in one
 * slot, a long pause, and a random sequence checked against a model.
 * Time is simulated: the wheel only ever sees the TSC values given to it.
 */

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_eal.h>

#include "ndk_test.h"
#include "swroce_timer.h"

#define BITS 6                    /* 64 slots: laps are short */
#define NSLOT (1u << BITS)
#define SHIFT 4                   /* 16 TSC cycles a tick */
#define MAX_T 20000

struct tmr {
	struct swr_tw_node nd;
	uint64_t deadline;        /* TSC; the model's view */
	bool armed;               /* the model's view */
	uint32_t fired;
	uint64_t fired_at;        /* TSC of the advance that fired it */
	struct tmr *victim;       /* cancel this one when firing */
	bool lazy;                /* re-arm itself if fired before deadline */
};

static uint64_t wmem[(NSLOT * sizeof(void *) + NSLOT / 8) / 8];
static struct swr_tw tw;
static struct tmr tm[MAX_T];
static uint64_t now;
static unsigned int early;        /* fired before its deadline */
static uint64_t max_late;         /* TSC from deadline to firing, worst */

static void
on_fire(struct swr_tw_node *nd, void *arg)
{
	struct tmr *t = container_of(nd, struct tmr, nd);

	(void)arg;
	if (t->lazy && (int64_t)(now - t->deadline) < 0) {
		swr_tw_arm(&tw, nd, t->deadline);       /* not yet due */
		return;
	}
	if ((int64_t)(now - t->deadline) < 0)
		early++;
	else
		max_late = RTE_MAX(max_late, now - t->deadline);
	t->fired++;
	t->fired_at = now;
	t->armed = false;
	if (t->victim != NULL) {
		swr_tw_cancel(&tw, &t->victim->nd);
		t->victim->armed = false;
	}
}

/* The occupancy bitmap says which slots hold timers, and nothing else. */
static int
occ_ok(void)
{
	for (uint32_t i = 0; i < NSLOT; i++) {
		bool bit = (tw.occ[i >> 6] >> (i & 63)) & 1;

		TEST_ASSERT_EQ(bit, tw.slot[i] != NULL, "slot %u", i);
	}
	/* The bound: no slot holds a timer for a tick in [cur, next). */
	for (uint64_t t = tw.cur; tw.n != 0 && (int64_t)(tw.next - t) > 0 &&
	     t - tw.cur < NSLOT; t++)
		TEST_ASSERT(tw.slot[t & (NSLOT - 1)] == NULL,
			    "tick %" PRIu64 " below the bound %" PRIu64, t,
			    tw.next);
	return 0;
}

static void
setup(uint64_t start, uint32_t shift)
{
	RTE_BUILD_BUG_ON(sizeof(wmem) != swr_tw_mem_size(BITS));
	memset(wmem, 0, sizeof(wmem));
	memset(tm, 0, sizeof(tm));
	early = 0;
	max_late = 0;
	now = start;
	swr_tw_init(&tw, wmem, BITS, shift, start);
}

static void
arm(struct tmr *t, uint64_t deadline)
{
	t->deadline = deadline;
	t->armed = true;
	swr_tw_arm(&tw, &t->nd, deadline);
}

static unsigned int
advance_to(uint64_t t)
{
	now = t;
	return swr_tw_advance(&tw, now, on_fire, NULL);
}

/* As the poll loop: a visit only when a timer's slot may have passed. */
static unsigned int
poll_to(uint64_t t)
{
	now = t;
	if (!swr_tw_tick(&tw, now))
		return 0;
	return swr_tw_advance(&tw, now, on_fire, NULL);
}

/* Step time by @p step up to @p until; @return timers fired. */
static unsigned int
run(uint64_t until, uint64_t step)
{
	unsigned int n = 0;

	while ((int64_t)(until - now) > 0)
		n += poll_to(now + RTE_MIN(step, until - now));
	return n;
}

static int
t_arm_fire(void)
{
	uint64_t d;

	setup(1000, SHIFT);
	d = now + 100;
	arm(&tm[0], d);
	TEST_ASSERT(swr_tw_armed(&tm[0].nd), "armed");
	TEST_ASSERT_EQ(tw.n, 1, "count");
	/* Never before the deadline, even at the deadline's own tick. */
	TEST_ASSERT_EQ(run(d, 1), 0, "fired early");
	/* Once its tick has passed. */
	TEST_ASSERT_EQ(run(((d >> SHIFT) + 1) << SHIFT, 1), 1, "not fired");
	TEST_ASSERT_EQ(tm[0].fired, 1, "fired once");
	TEST_ASSERT(!swr_tw_armed(&tm[0].nd), "still armed");
	TEST_ASSERT_EQ(tw.n, 0, "count after");
	TEST_ASSERT_EQ(run(now + ((uint64_t)10 * NSLOT << SHIFT), 7), 0, "fired again");
	/* A deadline in the past fires at the next advance past a tick. */
	arm(&tm[1], now - 500);
	TEST_ASSERT_EQ(advance_to(now + (1 << SHIFT)), 1, "past deadline");
	return 0;
}

static int
t_rearm(void)
{
	uint64_t d1, d2;

	/* Earlier: it moves. */
	setup(5000, SHIFT);
	d1 = now + 40 * (1 << SHIFT);
	d2 = now + 10 * (1 << SHIFT);
	arm(&tm[0], d1);
	arm(&tm[0], d2);
	TEST_ASSERT_EQ(tw.n, 1, "armed once");
	TEST_ASSERT_EQ(run(d2 + (1 << SHIFT), 1), 1, "earlier deadline");
	TEST_ASSERT(tm[0].fired_at >= d2 && tm[0].fired_at <= d2 +
		    (2 << SHIFT), "fired at %" PRIu64 " for %" PRIu64,
		    tm[0].fired_at, d2);
	TEST_ASSERT_EQ(run(d1 + NSLOT * (1 << SHIFT), 3), 0, "old deadline");

	/* Later: it stays slotted early; the owner re-arms (lazily). */
	setup(5000, SHIFT);
	tm[0].lazy = true;
	d1 = now + 10 * (1 << SHIFT);
	d2 = now + 300 * (1 << SHIFT);   /* several laps on */
	arm(&tm[0], d1);
	arm(&tm[0], d2);
	TEST_ASSERT_EQ(tm[0].nd.when, d1 >> SHIFT, "moved on a later arm");
	/* Its callback runs at d1 and re-arms it (counted by the wheel). */
	run(d2, 1);
	TEST_ASSERT_EQ(tm[0].fired, 0, "fired before the later deadline");
	TEST_ASSERT(swr_tw_armed(&tm[0].nd), "not re-armed");
	run(d2 + (2 << SHIFT), 1);
	TEST_ASSERT_EQ(tm[0].fired, 1, "later deadline");
	TEST_ASSERT_EQ(early, 0, "early");
	return 0;
}

static int
t_cancel(void)
{
	setup(77, SHIFT);
	arm(&tm[0], now + 100);
	arm(&tm[1], now + 100);
	arm(&tm[2], now + 100);
	swr_tw_cancel(&tw, &tm[1].nd);
	swr_tw_cancel(&tw, &tm[1].nd);          /* twice: nothing */
	swr_tw_cancel(&tw, &tm[5].nd);          /* never armed: nothing */
	TEST_ASSERT_EQ(tw.n, 2, "count");
	TEST_ASSERT_EQ(occ_ok(), 0, "occupancy after cancels");
	/* The one that fires first cancels the other of the same slot. */
	tm[0].victim = &tm[2];
	tm[2].victim = &tm[0];
	TEST_ASSERT_EQ(run(now + 500, 1), 1, "fired");
	TEST_ASSERT_EQ(tm[0].fired + tm[2].fired, 1, "victim fired");
	TEST_ASSERT_EQ(tm[1].fired, 0, "cancelled fired");
	TEST_ASSERT_EQ(tw.n, 0, "count after");
	/* Cancel then re-arm. */
	arm(&tm[1], now + 30);
	swr_tw_cancel(&tw, &tm[1].nd);
	arm(&tm[1], now + 60);
	TEST_ASSERT_EQ(run(now + 200, 5), 1, "re-armed after cancel");
	return 0;
}

/* Deadlines many laps out, stepped slowly and in big strides. */
static int
t_far(void)
{
	const uint64_t lap = (uint64_t)NSLOT << SHIFT;

	for (uint32_t stride = 1; stride <= 3 * NSLOT; stride *= 5) {
		setup(123456, SHIFT);
		for (int i = 0; i < 100; i++)
			arm(&tm[i], now + (uint64_t)i * lap / 7 + i);
		TEST_ASSERT_EQ(run(now + 20 * lap, (uint64_t)stride << SHIFT),
			       100, "stride %u", stride);
		TEST_ASSERT_EQ(early, 0, "early (stride %u)", stride);
		for (int i = 0; i < 100; i++) {
			TEST_ASSERT_EQ(tm[i].fired, 1, "timer %d", i);
			TEST_ASSERT(tm[i].fired_at - tm[i].deadline <=
				    ((uint64_t)stride + 1) << SHIFT,
				    "timer %d late by %" PRIu64, i,
				    tm[i].fired_at - tm[i].deadline);
		}
	}
	return 0;
}

/* Slot indices and 64-bit ticks that wrap (tick = TSC with shift 0). */
static int
t_wrap(void)
{
	setup(UINT64_MAX - 1000, 0);
	for (int i = 0; i < 1000; i++)
		arm(&tm[i], now + 1 + (uint64_t)i * 3);  /* across 2^64 */
	TEST_ASSERT_EQ(run(now + 4000, 7), 1000, "fired across the wrap");
	TEST_ASSERT_EQ(early, 0, "early");
	for (int i = 0; i < 1000; i++)
		TEST_ASSERT(tm[i].fired == 1 && tm[i].fired_at - tm[i].deadline
			    <= 8, "timer %d", i);
	/* Across the sign of the tick difference too. */
	setup((UINT64_C(1) << 63) - 50, 0);
	arm(&tm[0], now + 100);
	TEST_ASSERT_EQ(run(now + 99, 1), 0, "early at 2^63");
	TEST_ASSERT_EQ(run(now + 3, 1), 1, "not fired at 2^63");
	return 0;
}

/* Many timers in one slot, due in the same and in later laps. */
static int
t_one_slot(void)
{
	const uint64_t lap = (uint64_t)NSLOT << SHIFT;
	uint64_t d;

	setup(999, SHIFT);
	d = now + (5 << SHIFT);
	for (int i = 0; i < MAX_T; i++)
		arm(&tm[i], d + (uint64_t)(i % 4) * lap);
	TEST_ASSERT_EQ(tw.n, MAX_T, "count");
	for (int k = 0; k < 4; k++) {
		TEST_ASSERT_EQ(run(d + k * lap, 1 << SHIFT), 0, "lap %d early",
			       k);
		TEST_ASSERT_EQ(run(d + k * lap + (1 << SHIFT), 1 << SHIFT),
			       MAX_T / 4, "lap %d", k);
	}
	TEST_ASSERT_EQ(tw.n, 0, "count after");
	return 0;
}

/* A pause longer than several laps: due ones fire, the others wait. */
static int
t_long_pause(void)
{
	const uint64_t lap = (uint64_t)NSLOT << SHIFT;
	uint64_t t0;

	setup(31, SHIFT);
	t0 = now;
	for (int i = 0; i < 1000; i++)
		arm(&tm[i], t0 + (uint64_t)i * lap / 50);   /* 20 laps */
	TEST_ASSERT_EQ(advance_to(t0 + 10 * lap), 500, "after 10 laps");
	TEST_ASSERT_EQ(tw.n, 500, "waiting");
	TEST_ASSERT_EQ(occ_ok(), 0, "occupancy");
	TEST_ASSERT_EQ(early, 0, "early");
	TEST_ASSERT_EQ(advance_to(t0 + 30 * lap), 500, "after 30 laps");
	TEST_ASSERT_EQ(tw.n, 0, "count after");
	return 0;
}

/* Random arms, re-arms and cancels against a model. */
static int
t_random(void)
{
	const uint32_t n = 2000;

	setup(1ull << 40, SHIFT);
	srand(5);
	for (int step = 0; step < 200000; step++) {
		struct tmr *t = &tm[(uint32_t)rand() % n];
		int what = rand() % 8;

		t->lazy = true;
		if (what < 4)
			arm(t, now + (uint64_t)(rand() % (8 * NSLOT << SHIFT)));
		else if (what == 4 && t->armed) {
			swr_tw_cancel(&tw, &t->nd);
			t->armed = false;
		} else if (what == 5) {
			advance_to(now + (uint64_t)(rand() % 40));
		} else {
			poll_to(now + (uint64_t)(rand() % 40));
		}
		if (step % 1000 == 0 && occ_ok() != 0)
			return -1;
	}
	/* At most a tick and a step late. */
	TEST_ASSERT(max_late <= (1 << SHIFT) + 40, "late by %" PRIu64,
		    max_late);
	run(now + 10 * (NSLOT << SHIFT), 1 << SHIFT);
	TEST_ASSERT_EQ(early, 0, "early");
	TEST_ASSERT_EQ(tw.n, 0, "armed after all deadlines");
	TEST_ASSERT_EQ(occ_ok(), 0, "occupancy");
	for (uint32_t i = 0; i < n; i++)
		TEST_ASSERT(!tm[i].armed, "timer %u never fired", i);
	return 0;
}

static const struct ndk_test_case cases[] = {
	{ "arm_fire", t_arm_fire },
	{ "rearm", t_rearm },
	{ "cancel", t_cancel },
	{ "far", t_far },
	{ "wrap", t_wrap },
	{ "one_slot", t_one_slot },
	{ "long_pause", t_long_pause },
	{ "random", t_random },
};

int
main(int argc, char **argv)
{
	/* The EAL only for the harness's clock: the wheel is pure logic. */
	int rc;

	if (ndk_test_eal_init("test_unit_timer", "0", NULL) < 0)
		return 1;
	rc = ndk_test_run("timer_wheel", cases, RTE_DIM(cases), argc, argv);
	rte_eal_cleanup();
	return rc;
}
