/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_APP_PORT_H
#define NDK_APP_PORT_H

/**
 * @file
 * Closing a DPDK port in order. DPDK 22.11's memif tears a connection
 * down both from the port's stop and from the interrupt thread that sees
 * the peer hang up, with no lock between them: a port stopped while its
 * peer closes the other end has crashed there (a SEGV under
 * rte_eth_dev_stop(), in ndk_adapter_close() or rte_eal_cleanup()).
 */

#include <stdbool.h>
#include <stdint.h>

/**
 * For a memif port: wait, at most @p max_ms milliseconds, until its link
 * is down (the peer has closed its end), then @p settle_ms more for the
 * interrupt thread to finish with the connection. Any other port: return
 * at once. Call it before the adapter on the port is closed.
 * @return true if the port is not memif or its link went down, false if
 *   the wait ran out (the peer still open).
 */
bool ndk_app_memif_wait_peer_gone(uint16_t port_id, unsigned int max_ms,
				  unsigned int settle_ms);

#endif /* NDK_APP_PORT_H */
