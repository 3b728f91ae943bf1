/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef DEMO_RAW_H
#define DEMO_RAW_H

/**
 * @file
 * ndk-demo --raw-baseline: the net_ring link's own figure for a run, with
 * the frames of its RoCE messages (app/common/ndk_rawlink.h) sent with
 * plain burst calls on the same two ports, while the adapters' poller is
 * stopped: the main lcore transmits on one port, lcore 1 receives on the
 * other (the lcores the RoCE run uses: the main one posts, lcore 1 polls).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mempool.h>

#include "ndk_pair.h"
#include "ndk_rawlink.h"

/** What the receiving lcore counted. */
struct demo_raw_result {
	uint64_t frames;        /**< frames received */
	uint64_t bytes;         /**< their bytes */
	double secs;            /**< first to last frame */
	double msgs;            /**< frames / frames per message */
	uint64_t lost;          /**< sent, never received */
	uint64_t bad;           /**< wrong length, out of order or corrupt */
};

/**
 * Burst the frames of @p kind messages of @p size bytes at path MTU
 * @p mtu for @p seconds from the side that sends that data (B for READ
 * responses, A otherwise) to the other, pollers stopped and restarted.
 * @param pool TX mbufs (data room for the longest frame).
 * @return 0, or a negative errno (message printed).
 */
int demo_raw_run(struct ndk_pair *pair, struct rte_mempool *pool,
		 enum ndk_rawlink_kind kind, size_t size, uint32_t mtu,
		 double seconds, bool verify, struct demo_raw_result *res);

#endif /* DEMO_RAW_H */
