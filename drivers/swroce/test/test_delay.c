/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Unit tests of the delay-based window (rc/swroce_delay.c) with a fake
 * clock (1 tick = 1 ns): the first window, the target with its flow
 * scaling, additive increase within the target, the proportional cut
 * above it (at most max_mdf, at most once a round trip), the floor and
 * ceiling, pacing below one packet and the halving on a timeout. No NIC.
 */

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_common.h>
#include <rte_eal.h>

#include "ndk_test.h"
#include "swroce_delay.h"

#define ONE SWR_DELAY_ONE
#define TARGET 10000u   /* 10 us of queueing allowed */

static struct swr_delay_params prm;

static int
t_init(void)
{
	struct swr_delay d;

	swr_delay_params_init(&prm, TARGET, 0, 256);
	TEST_ASSERT_EQ(prm.wnd_init, 16 * ONE, "default first window");
	TEST_ASSERT_EQ(prm.wnd_max, 256 * ONE, "ceiling");
	swr_delay_init(&d, &prm);
	TEST_ASSERT_EQ(d.cwnd, 16 * ONE, "starts at the first window");
	TEST_ASSERT_EQ(swr_delay_pkts(&d), 16, "packets");
	TEST_ASSERT_EQ(swr_delay_target(&d, &prm), 0, "no target yet");
	TEST_ASSERT_EQ(swr_delay_gap(&d, &prm), 0, "not paced");
	swr_delay_params_init(&prm, TARGET, 300, 256);
	TEST_ASSERT_EQ(prm.wnd_init, 256 * ONE, "first window <= ceiling");
	return 0;
}

/* The target: base + allowance + flow scaling, larger for small windows. */
static int
t_target(void)
{
	struct swr_delay d;
	uint64_t t16, t1, t256, tmin;

	swr_delay_params_init(&prm, TARGET, 0, 1024);
	swr_delay_init(&d, &prm);
	swr_delay_sample(&d, &prm, 20000, 0, 1000);
	TEST_ASSERT_EQ(d.rtt_min, 20000, "base RTT");
	d.cwnd = 256 * ONE;
	t256 = swr_delay_target(&d, &prm);
	TEST_ASSERT_EQ(t256, 20000 + TARGET, "no flow scaling at 256");
	d.cwnd = 16 * ONE;
	t16 = swr_delay_target(&d, &prm);
	d.cwnd = ONE;
	t1 = swr_delay_target(&d, &prm);
	d.cwnd = prm.wnd_min;
	tmin = swr_delay_target(&d, &prm);
	TEST_ASSERT(t256 < t16 && t16 < t1 && t1 < tmin,
		    "flow scaling not decreasing in the window: %" PRIu64
		    " %" PRIu64 " %" PRIu64 " %" PRIu64, t256, t16, t1, tmin);
	TEST_ASSERT_EQ(tmin, 20000 + TARGET + prm.fs_tsc, "full range at min");
	/* (1/sqrt(16) - 1/16) / (1/sqrt(0.1) - 1/16) of the range. */
	TEST_ASSERT(t16 > 20000 + TARGET + prm.fs_tsc * 59 / 1000 &&
		    t16 < 20000 + TARGET + prm.fs_tsc * 62 / 1000,
		    "flow scaling at 16 packets: %" PRIu64, t16);
	return 0;
}

static int
t_increase_and_cut(void)
{
	struct swr_delay d;
	uint64_t t = 1000000, tgt;
	uint32_t w;

	swr_delay_params_init(&prm, TARGET, 0, 256);
	swr_delay_init(&d, &prm);
	/* Within the target: +1 packet per sample. */
	swr_delay_sample(&d, &prm, 20000, 0, t);
	TEST_ASSERT_EQ(d.cwnd, 17 * ONE, "additive increase");
	swr_delay_sample(&d, &prm, 25000, 0, t + 30000);
	TEST_ASSERT_EQ(d.cwnd, 18 * ONE, "additive increase again");
	/* Far above: cut at most max_mdf (half). */
	swr_delay_sample(&d, &prm, 1000000, 0, t + 60000);
	TEST_ASSERT_EQ(d.cwnd, 9 * ONE, "cut at most half");
	TEST_ASSERT_EQ(d.cuts, 1, "cuts");
	/* Within the same round trip (1 ms): no second cut. */
	swr_delay_sample(&d, &prm, 1000000, 0, t + 500000);
	TEST_ASSERT_EQ(d.cwnd, 9 * ONE, "two cuts in one RTT");
	/* A round trip later, a bit above the target: proportional. */
	tgt = swr_delay_target(&d, &prm);
	w = d.cwnd;
	swr_delay_sample(&d, &prm, tgt + tgt / 4, 0, t + 1100000);
	/* beta (rtt - target) / rtt = 0.8 * 0.2 = 0.16 (in 1/1024, floor) */
	TEST_ASSERT_EQ(d.cwnd, (uint32_t)((uint64_t)w *
		(1024 - 819ull * (tgt / 4) / (tgt + tgt / 4)) / 1024),
		"proportional cut");
	TEST_ASSERT_EQ(d.cuts, 2, "cuts");
	return 0;
}

static int
t_bounds(void)
{
	struct swr_delay d;
	uint64_t t = 1000000;

	swr_delay_params_init(&prm, TARGET, 2, 4);
	swr_delay_init(&d, &prm);
	for (int i = 0; i < 10; i++)
		swr_delay_sample(&d, &prm, 20000, 0, t + (uint64_t)i * 20000);
	TEST_ASSERT_EQ(d.cwnd, 4 * ONE, "ceiling");
	/* Cuts a round trip apart down to the floor. */
	for (int i = 0; i < 40; i++)
		swr_delay_sample(&d, &prm, 10000000, 0, t + 1000000 + (uint64_t)i * 10000000);
	TEST_ASSERT_EQ(d.cwnd, prm.wnd_min, "floor");
	TEST_ASSERT_EQ(swr_delay_pkts(&d), 1, "at least one packet");
	/* Below one packet: one per rtt / cwnd (100 RTTs at 1/100). */
	/* rtt / cwnd, the RTT at most the target (the samples were 10 ms). */
	TEST_ASSERT_EQ(swr_delay_gap(&d, &prm),
		       swr_delay_target(&d, &prm) * ONE / d.cwnd, "pacing gap");
	TEST_ASSERT(swr_delay_target(&d, &prm) < 10000000, "target");
	TEST_ASSERT(swr_delay_gap(&d, &prm) >= 99 * swr_delay_target(&d, &prm),
		    "gap %" PRIu64, swr_delay_gap(&d, &prm));
	d.rtt_last = 1000;      /* a short sample: rtt / cwnd */
	TEST_ASSERT_EQ(swr_delay_gap(&d, &prm), 1000ull * ONE / d.cwnd,
		       "gap from a sample below the target");
	d.rtt_last = 10000000;
	/* Recovery from the floor: +1 packet per sample. */
	swr_delay_sample(&d, &prm, 20000, 0, t + 1000000000);
	TEST_ASSERT_EQ(d.cwnd, prm.wnd_min + ONE, "increase from the floor");
	TEST_ASSERT_EQ(swr_delay_gap(&d, &prm), 0, "not paced at >= 1 packet");
	return 0;
}

static int
t_timeout(void)
{
	struct swr_delay d;

	swr_delay_params_init(&prm, TARGET, 8, 256);
	swr_delay_init(&d, &prm);
	swr_delay_timeout(&d, &prm);
	TEST_ASSERT_EQ(d.cwnd, 4 * ONE, "halved");
	for (int i = 0; i < 20; i++)
		swr_delay_timeout(&d, &prm);
	TEST_ASSERT_EQ(d.cwnd, prm.wnd_min, "not below the floor");
	return 0;
}

/* The base RTT: the smallest of the QP's own and its peer's. */
static int
t_peer_base(void)
{
	struct swr_delay_peer tbl[SWR_DELAY_PEERS] = { { 0, 0 } };
	struct swr_delay late;
	uint64_t b;

	swr_delay_params_init(&prm, TARGET, 0, 256);
	TEST_ASSERT_EQ(swr_delay_peer_min(tbl, 0x0a000002, 20000), 20000,
		       "first sample to a peer");
	TEST_ASSERT_EQ(swr_delay_peer_min(tbl, 0x0a000002, 90000), 20000,
		       "peer's minimum kept");
	TEST_ASSERT_EQ(swr_delay_peer_min(tbl, 0x0a000003, 50000), 50000,
		       "another peer");
	TEST_ASSERT_EQ(swr_delay_peer_min(tbl, 0x0a000002, 15000), 15000,
		       "peer's minimum lowered");
	/* A QP whose first sample came in a full queue: the peer's base. */
	swr_delay_init(&late, &prm);
	b = swr_delay_peer_min(tbl, 0x0a000002, 90000);
	swr_delay_sample(&late, &prm, 90000, b, 1000);
	TEST_ASSERT_EQ(late.rtt_min, 90000, "own minimum");
	TEST_ASSERT_EQ(late.base, 15000, "base from the peer");
	TEST_ASSERT(swr_delay_target(&late, &prm) < 90000 / 2,
		    "target from the peer's base");
	TEST_ASSERT(late.cwnd < 16 * ONE, "not cut above the target");
	/* A peer hashed onto the same entry takes it over. */
	TEST_ASSERT_EQ(swr_delay_peer_min(tbl, 0x0a000002 ^ 0x00100010,
					  70000), 70000, "entry taken over");
	return 0;
}

/* Two windows sharing a queue converge: AIMD with flow scaling. */
static int
t_converge(void)
{
	struct swr_delay a, b;
	uint64_t t = 1000, base = 20000;

	swr_delay_params_init(&prm, TARGET, 0, 256);
	swr_delay_init(&a, &prm);
	swr_delay_init(&b, &prm);
	a.cwnd = 60 * ONE;
	b.cwnd = 2 * ONE;
	/* A queue of (a + b - 20) packets of 1 us each over the base. */
	for (int i = 0; i < 2000; i++) {
		uint64_t q = (a.cwnd + b.cwnd) >> 16, rtt;

		rtt = base + (q > 20 ? (q - 20) * 1000 : 0);
		t += rtt;
		swr_delay_sample(&a, &prm, rtt, 0, t);
		swr_delay_sample(&b, &prm, rtt, 0, t);
	}
	TEST_ASSERT(a.cwnd < 2 * b.cwnd && b.cwnd < 2 * a.cwnd,
		    "not converged: %u and %u / 65536", a.cwnd, b.cwnd);
	return 0;
}

static const struct ndk_test_case cases[] = {
	{ "init", t_init },
	{ "target", t_target },
	{ "increase_and_cut", t_increase_and_cut },
	{ "bounds", t_bounds },
	{ "timeout", t_timeout },
	{ "peer_base", t_peer_base },
	{ "converge", t_converge },
};

int
main(int argc, char **argv)
{
	int rc;

	if (ndk_test_eal_init("test_unit_delay", "0", NULL) < 0)
		return 1;
	rc = ndk_test_run("delay_unit", cases, RTE_DIM(cases), argc, argv);
	rte_eal_cleanup();
	return rc;
}
