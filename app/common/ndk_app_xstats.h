/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_APP_XSTATS_H
#define NDK_APP_XSTATS_H

/**
 * @file
 * The programs' counter dumps: an adapter's non-zero extended counters
 * (ndk_adapter_xstats_get_names(), ndk_adapter_xstats_get()), one a line.
 */

#include <stdbool.h>
#include <stdio.h>

#include "ndk.h"

/**
 * Print the non-zero extended counters of @p ad to @p f, one a line:
 * @p indent, the name left-aligned in @p name_width columns, a space, the
 * value right-aligned in @p value_width, and with @p desc two spaces and
 * the description.
 * @param head  a line printed before the first counter, or NULL.
 * @return the number of counters printed, or a negative errno.
 */
int ndk_app_print_xstats(FILE *f, struct ndk_adapter *ad, const char *head,
			 const char *indent, int name_width, int value_width,
			 bool desc);

#endif /* NDK_APP_XSTATS_H */
