/* SPDX-License-Identifier: BSD-3-Clause */

/* A simulated clock for the two adapters of a pair (sim_clock.h). */

#include <stdio.h>

#include <rte_common.h>
#include <rte_cycles.h>

#include "ndk.h"
#include "ndk_pair_test.h"
#include "sim_clock.h"
#include "swroce_hooks.h"

#define SIM_ALIGN (UINT64_C(1) << 32)

uint64_t sim_now;

uint64_t
sim_clock(void *arg __rte_unused)
{
	return sim_now;
}

int
sim_clock_set(struct ndk_pair *p, bool on)
{
	if (on)
		sim_now = RTE_ALIGN_CEIL(rte_rdtsc() + 1, SIM_ALIGN);
	for (int s = 0; s < 2; s++) {
		ndk_adapter_release(p->ad[s]);
		if (swr_hook_set_clock(p->ad[s], on ? sim_clock : NULL,
				       NULL) != 0) {
			fprintf(stderr, "  FAIL: swr_hook_set_clock\n");
			return -1;
		}
	}
	return 0;
}
