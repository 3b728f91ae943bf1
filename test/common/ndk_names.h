/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_NAMES_H
#define NDK_NAMES_H

/**
 * @file
 * Names of NDK completion fields for test output, shared by the adapter
 * pair fixture (ndk_pair.c) and the interop programs (tok_host.c).
 */

#include <stdint.h>

#include "ndk.h"

/** Name of an NDK operation type ("RECEIVE", ..., "UNKNOWN"). */
const char *ndk_test_op_str(enum ndk_operation_type type);

/** Name of an enum ndk_provider_error ("REM_ACCESS", ..., "UNKNOWN"). */
const char *ndk_test_perr_str(uint32_t perr);

#endif /* NDK_NAMES_H */
