/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef DAEMON_APP_H
#define DAEMON_APP_H

/*
 * Helpers of the daemon tests' programs (attach-rdma, attach-cm), which
 * run embedded or attached to ndk-roced and take orders on standard input.
 */

#include <stdint.h>

#include "ndk.h"

/**
 * Wait up to @p wait_s seconds for ethdev @p port's link to come up.
 * @return 0, or -1 if it stayed down.
 */
int dapp_wait_link(uint16_t port, unsigned int wait_s);

/**
 * Poll @p ad while reading orders: "stop" stops polling (releases the
 * adapter, prints STOPPED), "close" or end of input returns.
 */
void dapp_obey(struct ndk_adapter *ad);

#endif /* DAEMON_APP_H */
