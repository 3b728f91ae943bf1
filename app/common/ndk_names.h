/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_NAMES_H
#define NDK_NAMES_H

/**
 * @file
 * Names of NDK completion fields for printed output: the operation type
 * and the provider error of a struct ndk_result_ex (ndk_status_str() in
 * libndk names its status). Used by the adapter pair (ndk_pair.c) and the
 * interop programs (tok_host.c).
 */

#include <stdint.h>

#include "ndk.h"

/** Name of an NDK operation type ("RECEIVE", ..., "UNKNOWN"). */
const char *ndk_names_op(enum ndk_operation_type type);

/** Name of an enum ndk_provider_error ("REM_ACCESS", ..., "UNKNOWN"). */
const char *ndk_names_perr(uint32_t perr);

#endif /* NDK_NAMES_H */
