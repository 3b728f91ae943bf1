/* SPDX-License-Identifier: BSD-3-Clause */

/* The programs' counter dumps (ndk_app_xstats.h). */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "ndk_app_xstats.h"

int
ndk_app_print_xstats(FILE *f, struct ndk_adapter *ad, const char *head,
		     const char *indent, int name_width, int value_width,
		     bool desc)
{
	struct ndk_xstat_name *names;
	struct ndk_xstat *v;
	int n, printed = 0;

	n = ndk_adapter_xstats_get_names(ad, NULL, 0);
	if (n <= 0)
		return n;
	names = calloc((size_t)n, sizeof(*names));
	v = calloc((size_t)n, sizeof(*v));
	if (names == NULL || v == NULL) {
		printed = -ENOMEM;
		goto out;
	}
	if (ndk_adapter_xstats_get_names(ad, names, (unsigned int)n) != n ||
	    ndk_adapter_xstats_get(ad, v, (unsigned int)n) != n) {
		printed = -EIO;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		if (v[i].value == 0)
			continue;
		if (printed++ == 0 && head != NULL)
			fprintf(f, "%s\n", head);
		fprintf(f, "%s%-*s %*" PRIu64 "%s%s\n", indent, name_width,
			names[i].name, value_width, v[i].value,
			desc ? "  " : "", desc ? names[i].desc : "");
	}
out:
	free(names);
	free(v);
	return printed;
}
