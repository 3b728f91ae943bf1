/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * libndk: introspection wrappers (ndk_info.h) over the adapter dispatch
 * table, with object-type validation.
 */

#include <errno.h>
#include <string.h>

#include "ndk_provider.h"

static bool
adapter_ok(const struct ndk_adapter *adapter)
{
	return adapter != NULL &&
		adapter->header.type == NDK_OBJECT_TYPE_ADAPTER;
}

int
ndk_adapter_qp_list(struct ndk_adapter *adapter, uint32_t *qpns, uint32_t max)
{
	if (!adapter_ok(adapter) || (qpns == NULL && max != 0))
		return -EINVAL;
	if (adapter->dispatch->qp_list == NULL)
		return -ENOTSUP;
	return adapter->dispatch->qp_list(adapter, qpns, max);
}

ndk_status_t
ndk_qp_query_info(struct ndk_adapter *adapter, uint32_t qpn,
		  struct ndk_qp_info *info)
{
	if (!adapter_ok(adapter) || info == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	if (adapter->dispatch->qp_query_info == NULL)
		return NDK_STATUS_NOT_SUPPORTED;
	memset(info, 0, sizeof(*info));
	return adapter->dispatch->qp_query_info(adapter, qpn, info);
}
