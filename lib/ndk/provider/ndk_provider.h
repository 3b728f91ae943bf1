/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_PROVIDER_H
#define NDK_PROVIDER_H

/**
 * @file
 * Provider-facing interface of libndk: how a provider (a driver under
 * drivers/) registers itself and initialises the objects it hands out.
 * Applications never include this header.
 */

#include <rte_log.h>

#include "ndk.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A provider: a named factory of adapters. */
struct ndk_provider {
	const char *name;
	/** Open an adapter on a port; see ndk_adapter_open(). */
	ndk_status_t (*open)(const struct ndk_adapter_config *config,
			     struct ndk_adapter **adapter);
	/** @internal list linkage, owned by libndk */
	struct ndk_provider *next;
};

/**
 * Register a provider (call from an RTE_INIT constructor). A provider
 * registered later under a name already taken hides the earlier one.
 * ndk_adapter_open() with no provider name picks "swroce" in a DPDK primary
 * process and "attach" in a secondary one.
 */
void ndk_provider_register(struct ndk_provider *provider);

/** Fill an object header: current version, @p type, reserved zeroed. */
void ndk_object_header_init(struct ndk_object_header *h,
			    enum ndk_object_type type);

/** libndk's log type. */
extern int ndk_logtype;

/** Log through rte_log with the ndk type: NDK_LOG(ERR, "fmt", ...). */
#define NDK_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, ndk_logtype, "NDK: " fmt "\n", ##__VA_ARGS__)

#ifdef __cplusplus
}
#endif

#endif /* NDK_PROVIDER_H */
