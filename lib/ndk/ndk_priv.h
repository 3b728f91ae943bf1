/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_PRIV_H
#define NDK_PRIV_H

/**
 * @file
 * libndk internals shared by its own files (not installed).
 */

#include "ndk.h"

/**
 * Wait until every create deferred by an ndk_create_*_async() call has
 * completed and its callback returned (ndk_adapter_close(), before the
 * provider's close). Gives up the calling thread's polling of @p adapter
 * first, so that a deferred create on it can be served.
 */
void ndk_create_drain(struct ndk_adapter *adapter);

#endif /* NDK_PRIV_H */
