/* SPDX-License-Identifier: BSD-3-Clause */

#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "daemon_app.h"

int
dapp_wait_link(uint16_t port, unsigned int wait_s)
{
	struct rte_eth_link link = { 0 };
	uint64_t t0 = rte_get_timer_cycles();

	while (rte_eth_link_get_nowait(port, &link) == 0 &&
	       link.link_status != RTE_ETH_LINK_UP) {
		if (rte_get_timer_cycles() - t0 > wait_s * rte_get_timer_hz())
			return -1;
		rte_delay_us_sleep(10000);
	}
	return 0;
}

void
dapp_obey(struct ndk_adapter *ad)
{
	struct pollfd pfd = { .fd = 0, .events = POLLIN };
	bool polling = true;
	char line[64];

	for (;;) {
		if (polling)
			for (int i = 0; i < 1000; i++)
				ndk_adapter_poll(ad);
		if (poll(&pfd, 1, polling ? 0 : 100) <= 0)
			continue;
		if (fgets(line, sizeof(line), stdin) == NULL ||
		    strncmp(line, "close", 5) == 0)
			return;
		if (strncmp(line, "stop", 4) == 0) {
			ndk_adapter_release(ad);
			polling = false;
			printf("STOPPED\n");
			fflush(stdout);
		}
	}
}
