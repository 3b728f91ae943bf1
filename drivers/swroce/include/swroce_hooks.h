/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef SWROCE_HOOKS_H
#define SWROCE_HOOKS_H

/**
 * @file
 * Named hooks into swroce's state for the project's own tests and tools,
 * where the NDK API has no word for what they measure. Each has one stable
 * meaning; none changes what the driver does. Applications never need
 * them, and tests never include swroce's private headers instead.
 */

#include <stdint.h>

#include "ndk.h"

/**
 * Polls that queue @p queue of swroce adapter @p a has completed since it
 * opened (any thread; read with acquire). Two reads a known time apart
 * give a poll's cost on an idle adapter.
 * @return the count, or 0 for a queue the adapter does not have.
 */
uint64_t swr_hook_polls(struct ndk_adapter *a, uint16_t queue);

#endif /* SWROCE_HOOKS_H */
