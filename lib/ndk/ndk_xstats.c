/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * libndk: extended counters (ndk_adapter_xstats_*() in ndk.h) over the
 * adapter dispatch table, with object-type validation, and the lookup of
 * one counter by name.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ndk_provider.h"

static bool
xs_adapter_ok(const struct ndk_adapter *adapter, const void *array,
	      unsigned int n)
{
	return adapter != NULL &&
		adapter->header.type == NDK_OBJECT_TYPE_ADAPTER &&
		(array != NULL || n == 0);
}

int
ndk_adapter_xstats_get_names(struct ndk_adapter *adapter,
			     struct ndk_xstat_name *names, unsigned int n)
{
	if (!xs_adapter_ok(adapter, names, n))
		return -EINVAL;
	if (adapter->dispatch->xstats_get_names == NULL)
		return 0;
	return adapter->dispatch->xstats_get_names(adapter, names, n);
}

int
ndk_adapter_xstats_get(struct ndk_adapter *adapter, struct ndk_xstat *values,
		       unsigned int n)
{
	if (!xs_adapter_ok(adapter, values, n))
		return -EINVAL;
	if (adapter->dispatch->xstats_get == NULL)
		return 0;
	return adapter->dispatch->xstats_get(adapter, values, n);
}

int
ndk_adapter_queue_xstats_get(struct ndk_adapter *adapter, uint16_t queue,
			     struct ndk_xstat *values, unsigned int n)
{
	if (!xs_adapter_ok(adapter, values, n))
		return -EINVAL;
	if (adapter->dispatch->queue_xstats_get == NULL)
		return -ENOTSUP;
	return adapter->dispatch->queue_xstats_get(adapter, queue, values, n);
}

int
ndk_adapter_xstats_get_by_name(struct ndk_adapter *adapter, const char *name,
			       uint64_t *value)
{
	struct ndk_xstat_name *names;
	struct ndk_xstat *values;
	int n, rc = -ENOENT;

	if (name == NULL || value == NULL)
		return -EINVAL;
	n = ndk_adapter_xstats_get_names(adapter, NULL, 0);
	if (n <= 0)
		return n < 0 ? n : -ENOENT;
	names = calloc((size_t)n, sizeof(*names));
	values = calloc((size_t)n, sizeof(*values));
	if (names == NULL || values == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	/* The count is fixed while the adapter is open: both fill all. */
	if (ndk_adapter_xstats_get_names(adapter, names, (unsigned int)n) != n ||
	    ndk_adapter_xstats_get(adapter, values, (unsigned int)n) != n) {
		rc = -EINVAL;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		if (strcmp(names[i].name, name) == 0) {
			*value = values[i].value;
			rc = 0;
			break;
		}
	}
out:
	free(names);
	free(values);
	return rc;
}
