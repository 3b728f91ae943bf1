/* SPDX-License-Identifier: BSD-3-Clause */

#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "ndk_app_port.h"

#define POLL_MS 10

bool
ndk_app_memif_wait_peer_gone(uint16_t port_id, unsigned int max_ms,
			     unsigned int settle_ms)
{
	struct rte_eth_dev_info info;
	struct rte_eth_link link;

	if (rte_eth_dev_info_get(port_id, &info) != 0 ||
	    info.driver_name == NULL ||
	    strcmp(info.driver_name, "net_memif") != 0)
		return true;
	for (unsigned int ms = 0; ms < max_ms; ms += POLL_MS) {
		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(port_id, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_DOWN) {
			rte_delay_us_sleep(settle_ms * 1000u);
			return true;
		}
		rte_delay_us_sleep(POLL_MS * 1000u);
	}
	return false;
}
