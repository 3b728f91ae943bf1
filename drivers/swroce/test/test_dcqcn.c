/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Unit tests of DCQCN's reaction point (rc/swroce_dcqcn.c) with a fake
 * clock (1 tick = 1 ns): the cut on a CNP, alpha's decay, the increase
 * stages (fast recovery, additive, hyper), the byte counter, the floor and
 * ceiling, the pacing deadline and its burst credit, a start rate below
 * the line. No NIC.
 */

#include <stdint.h>
#include <stdio.h>

#include <rte_common.h>
#include <rte_eal.h>

#include "ndk_test.h"
#include "swroce_dcqcn.h"

#define HZ UINT64_C(1000000000)
#define LINE 40000u     /* DCQCN's reference: periods of 55 us */

static struct swr_dcqcn_params prm;

static int
t_init(void)
{
	struct swr_dcqcn d;

	swr_dcqcn_params_init(&prm, LINE, HZ);
	TEST_ASSERT_EQ(prm.alpha_tsc, 55000, "55 us at 40 Gbit/s");
	TEST_ASSERT_EQ(prm.byte_cnt, 10u * 1024 * 1024, "10 MiB");
	TEST_ASSERT_EQ(prm.min_mbps, 40, "floor");
	swr_dcqcn_init(&d, &prm);
	TEST_ASSERT_EQ(d.rc_mbps, LINE, "starts at line rate");
	TEST_ASSERT(!swr_dcqcn_paced(&d, &prm), "paced at line rate");
	/* A slower line: periods longer, byte counter smaller, in step. */
	swr_dcqcn_params_init(&prm, 400, HZ);
	TEST_ASSERT_EQ(prm.alpha_tsc, 5500000, "5.5 ms at 400 Mbit/s");
	TEST_ASSERT_EQ(prm.byte_cnt, 104857, "10 MiB / 100");
	return 0;
}

static int
t_cut_and_recover(void)
{
	struct swr_dcqcn d;
	uint64_t t = 1000;
	uint32_t rt;

	swr_dcqcn_params_init(&prm, LINE, HZ);
	swr_dcqcn_init(&d, &prm);
	swr_dcqcn_cnp(&d, &prm, t);
	/* alpha 1: halved; target the rate before. */
	TEST_ASSERT_EQ(d.rc_mbps, LINE / 2, "cut");
	TEST_ASSERT_EQ(d.rt_mbps, LINE, "target");
	TEST_ASSERT_EQ(d.alpha, 1024, "alpha = (1-g) 1 + g");
	TEST_ASSERT(swr_dcqcn_paced(&d, &prm), "not paced after a cut");
	/* Not yet a period: nothing. */
	swr_dcqcn_timers(&d, &prm, t + 54999);
	TEST_ASSERT_EQ(d.rc_mbps, LINE / 2, "early increase");
	TEST_ASSERT_EQ(d.alpha, 1024, "early decay");
	/* One period: alpha decays, fast recovery halves the gap. */
	swr_dcqcn_timers(&d, &prm, t + 55000);
	TEST_ASSERT_EQ(d.alpha, 1020, "alpha (1-g)");
	TEST_ASSERT_EQ(d.rc_mbps, (LINE + LINE / 2 + 1) / 2, "fast recovery");
	TEST_ASSERT_EQ(d.rt_mbps, LINE, "target kept");
	/* A second CNP with alpha < 1 cuts by alpha / 2. */
	swr_dcqcn_cnp(&d, &prm, t + 60000);
	TEST_ASSERT_EQ(d.rc_mbps, 30000 - (uint32_t)((uint64_t)30000 * 1020 /
						       2048), "cut by alpha/2");
	TEST_ASSERT_EQ(d.rt_mbps, 30000, "target = rate before");
	/* F - 1 periods of fast recovery, then additive increase. */
	t += 60000;
	for (unsigned int i = 1; i < SWR_DCQCN_F; i++)
		swr_dcqcn_timers(&d, &prm, t + i * prm.inc_tsc);
	TEST_ASSERT_EQ(d.rt_mbps, 30000, "fast recovery moved the target");
	rt = d.rt_mbps;
	swr_dcqcn_timers(&d, &prm, t + SWR_DCQCN_F * prm.inc_tsc);
	TEST_ASSERT_EQ(d.rt_mbps, rt + prm.rai_mbps, "additive increase");
	/* Hyper increase needs the byte counter's stage past F as well. */
	for (unsigned int i = 0; i <= SWR_DCQCN_F + 1; i++)
		swr_dcqcn_sent(&d, &prm, (uint32_t)prm.byte_cnt, t);
	TEST_ASSERT(d.b_stage > SWR_DCQCN_F, "byte stages");
	rt = d.rt_mbps;
	if (swr_dcqcn_paced(&d, &prm)) {
		swr_dcqcn_timers(&d, &prm, t + (SWR_DCQCN_F + 1) *
				 prm.inc_tsc);
		TEST_ASSERT(d.rt_mbps == rt + prm.rhai_mbps ||
			    d.rt_mbps == prm.line_mbps, "hyper increase");
	}
	/* Recovered to line rate in the end, and unpaced. */
	swr_dcqcn_timers(&d, &prm, t + 1000 * prm.inc_tsc);
	for (unsigned int i = 0; i < 200 && swr_dcqcn_paced(&d, &prm); i++)
		swr_dcqcn_timers(&d, &prm, t + (1001 + i) * prm.inc_tsc);
	TEST_ASSERT_EQ(d.rc_mbps, LINE, "back at line rate");
	TEST_ASSERT(!swr_dcqcn_paced(&d, &prm), "still paced");
	return 0;
}

static int
t_floor(void)
{
	struct swr_dcqcn d;

	swr_dcqcn_params_init(&prm, LINE, HZ);
	swr_dcqcn_init(&d, &prm);
	for (unsigned int i = 0; i < 100; i++)
		swr_dcqcn_cnp(&d, &prm, 1000 + i);
	TEST_ASSERT_EQ(d.rc_mbps, prm.min_mbps, "floor");
	TEST_ASSERT_EQ(d.cnps, 100, "counted");
	/* A very long idle: bounded work, timers realigned to now. */
	swr_dcqcn_timers(&d, &prm, UINT64_C(1) << 50);
	TEST_ASSERT(d.alpha_next > (UINT64_C(1) << 50), "alpha timer");
	TEST_ASSERT(d.inc_next > (UINT64_C(1) << 50) ||
		    !swr_dcqcn_paced(&d, &prm), "increase timer");
	return 0;
}

static int
t_pacing(void)
{
	struct swr_dcqcn d;
	uint64_t t = 1000000;

	swr_dcqcn_params_init(&prm, LINE, HZ);
	swr_dcqcn_init(&d, &prm);
	/* Down to 1000 Mbit/s: 8 ns a byte. */
	while (d.rc_mbps > 1000)
		swr_dcqcn_cnp(&d, &prm, t);
	d.rc_mbps = 1000;
	d.tpb = UINT64_C(8) << 16;
	d.next_tx = t;
	TEST_ASSERT(swr_dcqcn_may_send(&d, t), "due now");
	swr_dcqcn_sent(&d, &prm, 1000, t);
	TEST_ASSERT_EQ(d.next_tx, t + 8000, "deadline");
	TEST_ASSERT(!swr_dcqcn_may_send(&d, t + 7999), "early");
	TEST_ASSERT(swr_dcqcn_may_send(&d, t + 8000), "on time");
	/* Polled late: the credit is bounded by burst_bytes at the rate. */
	t += 1000000;
	swr_dcqcn_sent(&d, &prm, 1500, t);
	TEST_ASSERT_EQ(d.next_tx, t - 2 * 1500 * 8 + 12000, "burst credit");
	/* Small frames: the credit is burst_bytes. */
	t += 1000000;
	swr_dcqcn_sent(&d, &prm, 100, t);
	TEST_ASSERT_EQ(d.next_tx, t - prm.burst_bytes * 8 + 800,
		       "small frames' credit");
	return 0;
}

/* A start rate below the line: the increase begins from it, and the
 * periods start at the first call, not 64 of them at once. */
static int
t_start(void)
{
	struct swr_dcqcn d;
	uint64_t t = 5000000;

	swr_dcqcn_params_init(&prm, LINE, HZ);
	TEST_ASSERT_EQ(prm.start_mbps, LINE, "default start: the line");
	prm.start_mbps = LINE / 8;
	swr_dcqcn_init(&d, &prm);
	TEST_ASSERT_EQ(d.rc_mbps, LINE / 8, "first rate");
	TEST_ASSERT_EQ(d.rt_mbps, LINE / 8, "first target");
	TEST_ASSERT_EQ(d.alpha, SWR_DCQCN_ALPHA_ONE, "alpha 1");
	TEST_ASSERT(swr_dcqcn_paced(&d, &prm), "paced below the line");
	swr_dcqcn_timers(&d, &prm, t);
	TEST_ASSERT_EQ(d.rc_mbps, LINE / 8, "first call increased");
	TEST_ASSERT_EQ(d.alpha_next, t + prm.alpha_tsc, "alpha period");
	TEST_ASSERT_EQ(d.inc_next, t + prm.inc_tsc, "increase period");
	/* Fast recovery toward a target equal to the rate (stages below
	 * F): nothing; at stage F additive increase, R_AI. */
	swr_dcqcn_timers(&d, &prm, t + (SWR_DCQCN_F - 1) * prm.inc_tsc);
	TEST_ASSERT_EQ(d.rc_mbps, LINE / 8, "fast recovery moved the rate");
	TEST_ASSERT_EQ(d.t_stage, SWR_DCQCN_F - 1, "stages");
	swr_dcqcn_timers(&d, &prm, t + SWR_DCQCN_F * prm.inc_tsc);
	TEST_ASSERT_EQ(d.rt_mbps, LINE / 8 + prm.rai_mbps, "additive target");
	TEST_ASSERT_EQ(d.rc_mbps, LINE / 8 + prm.rai_mbps / 2, "mean");
	return 0;
}

static const struct ndk_test_case cases[] = {
	{ "init", t_init },
	{ "cut_and_recover", t_cut_and_recover },
	{ "floor", t_floor },
	{ "pacing", t_pacing },
	{ "start", t_start },
};

int
main(int argc, char **argv)
{
	int rc;

	if (ndk_test_eal_init("test_unit_dcqcn", "0", NULL) < 0)
		return 1;
	rc = ndk_test_run("dcqcn_unit", cases, RTE_DIM(cases), argc, argv);
	rte_eal_cleanup();
	return rc;
}
