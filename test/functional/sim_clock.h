/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * A simulated clock for the two adapters of a pair, polled by one thread:
 * both adapters' engines (through swr_hook_set_clock()) and a lib/netem
 * queue (its config's clock) read sim_now, which the test advances by a
 * fixed step a round. Figures taken on it do not depend on the machine's
 * load or speed.
 */

#ifndef NDK_TEST_SIM_CLOCK_H
#define NDK_TEST_SIM_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct ndk_pair;

/** The simulated time, in TSC ticks; the test advances it. */
extern uint64_t sim_now;

/** The clock hook: returns sim_now (@p arg unused). */
uint64_t sim_clock(void *arg);

/**
 * Put both adapters of @p p on the simulated clock, sim_now starting at
 * the next multiple of 2^32 ticks past the TSC (so no engine deadline
 * taken on the real clock is due early), or (@p on false) back on the TSC.
 * @return 0, or -1 with the failure printed.
 */
int sim_clock_set(struct ndk_pair *p, bool on);

#endif /* NDK_TEST_SIM_CLOCK_H */
