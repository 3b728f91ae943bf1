/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * libndk: connector and listener calls. Validates handles, sockaddrs and
 * buffer sizes, then hands IPv4 addresses to the provider's dispatch table
 * (ndk_conn.h describes the semantics).
 */

#include <netinet/in.h>
#include <string.h>

#include "ndk_provider.h"

static inline bool
conn_ok(const struct ndk_connector *c)
{
	return c != NULL && c->header.type == NDK_OBJECT_TYPE_CONNECTOR;
}

static inline bool
lis_ok(const struct ndk_listener *l)
{
	return l != NULL && l->header.type == NDK_OBJECT_TYPE_LISTENER;
}

static inline bool
adapter_ok(const struct ndk_adapter *a)
{
	return a != NULL && a->header.type == NDK_OBJECT_TYPE_ADAPTER;
}

/*
 * An IPv4 sockaddr of at least sizeof(sockaddr_in) bytes or an IPv6 one of
 * at least sizeof(sockaddr_in6), copied out.
 */
static ndk_status_t
sa_in(const struct sockaddr *sa, socklen_t len, union ndk_sockaddr *out)
{
	if (sa == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	memset(out, 0, sizeof(*out));
	if (sa->sa_family == AF_INET && len >= (socklen_t)sizeof(out->sin)) {
		memcpy(&out->sin, sa, sizeof(out->sin));
		return NDK_STATUS_SUCCESS;
	}
	if (sa->sa_family == AF_INET6 && len >= (socklen_t)sizeof(out->sin6)) {
		memcpy(&out->sin6, sa, sizeof(out->sin6));
		return NDK_STATUS_SUCCESS;
	}
	return NDK_STATUS_INVALID_ADDRESS;
}

/* Copy @p a to the caller's buffer with BUFFER_TOO_SMALL semantics. */
static ndk_status_t
sa_out(const union ndk_sockaddr *a, struct sockaddr *sa, socklen_t *len)
{
	socklen_t have, need;

	if (len == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	need = a->sa.sa_family == AF_INET6 ? sizeof(a->sin6) : sizeof(a->sin);
	have = *len;
	*len = need;
	if (sa == NULL || have < need)
		return NDK_STATUS_BUFFER_TOO_SMALL;
	memcpy(sa, a, need);
	return NDK_STATUS_SUCCESS;
}

/* No peer: the family's wildcard address or a zero port. */
static bool
sa_unspecified(const union ndk_sockaddr *a)
{
	if (a->sa.sa_family == AF_INET6)
		return IN6_IS_ADDR_UNSPECIFIED(&a->sin6.sin6_addr) ||
			a->sin6.sin6_port == 0;
	return a->sin.sin_addr.s_addr == INADDR_ANY || a->sin.sin_port == 0;
}

ndk_status_t
ndk_create_connector(struct ndk_adapter *adapter,
		     struct ndk_connector **connector)
{
	if (!adapter_ok(adapter) || connector == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	return adapter->dispatch->create_connector(adapter, connector);
}

ndk_status_t
ndk_close_connector(struct ndk_connector *c, ndk_close_completion_fn done,
		    void *context)
{
	if (!conn_ok(c))
		return NDK_STATUS_INVALID_HANDLE;
	return c->dispatch->close(c, done, context);
}

ndk_status_t
ndk_connect(struct ndk_connector *c, struct ndk_qp *qp,
	    const struct sockaddr *src, socklen_t src_len,
	    const struct sockaddr *dst, socklen_t dst_len,
	    uint32_t inbound_read_limit, uint32_t outbound_read_limit,
	    const void *private_data, uint32_t private_data_len,
	    ndk_request_completion_fn done, void *context)
{
	union ndk_sockaddr s, d;
	ndk_status_t st;

	if (!conn_ok(c))
		return NDK_STATUS_INVALID_HANDLE;
	if (qp == NULL || qp->header.type != NDK_OBJECT_TYPE_QP ||
	    done == NULL || (private_data == NULL && private_data_len != 0))
		return NDK_STATUS_INVALID_PARAMETER;
	st = sa_in(src, src_len, &s);
	if (NDK_SUCCESS(st))
		st = sa_in(dst, dst_len, &d);
	if (!NDK_SUCCESS(st))
		return st;
	if (sa_unspecified(&d) || s.sa.sa_family != d.sa.sa_family)
		return NDK_STATUS_INVALID_ADDRESS;
	return c->dispatch->connect(c, qp, &s, &d, inbound_read_limit,
				    outbound_read_limit, private_data,
				    private_data_len, done, context);
}

ndk_status_t
ndk_complete_connect(struct ndk_connector *c,
		     ndk_disconnect_event_fn disconnect_event,
		     void *disconnect_context, ndk_request_completion_fn done,
		     void *context)
{
	if (!conn_ok(c))
		return NDK_STATUS_INVALID_HANDLE;
	if (done == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	return c->dispatch->complete_connect(c, disconnect_event,
					     disconnect_context, done,
					     context);
}

ndk_status_t
ndk_accept(struct ndk_connector *c, struct ndk_qp *qp,
	   uint32_t inbound_read_limit, uint32_t outbound_read_limit,
	   const void *private_data, uint32_t private_data_len,
	   ndk_disconnect_event_fn disconnect_event, void *disconnect_context,
	   ndk_request_completion_fn done, void *context)
{
	if (!conn_ok(c))
		return NDK_STATUS_INVALID_HANDLE;
	if (qp == NULL || qp->header.type != NDK_OBJECT_TYPE_QP ||
	    done == NULL || (private_data == NULL && private_data_len != 0))
		return NDK_STATUS_INVALID_PARAMETER;
	return c->dispatch->accept(c, qp, inbound_read_limit,
				   outbound_read_limit, private_data,
				   private_data_len, disconnect_event,
				   disconnect_context, done, context);
}

ndk_status_t
ndk_reject(struct ndk_connector *c, const void *private_data,
	   uint32_t private_data_len)
{
	if (!conn_ok(c))
		return NDK_STATUS_INVALID_HANDLE;
	if (private_data == NULL && private_data_len != 0)
		return NDK_STATUS_INVALID_PARAMETER;
	return c->dispatch->reject(c, private_data, private_data_len);
}

ndk_status_t
ndk_get_connection_data(struct ndk_connector *c, uint32_t *inbound_read_limit,
			uint32_t *outbound_read_limit, void *private_data,
			uint32_t *private_data_len)
{
	if (!conn_ok(c))
		return NDK_STATUS_INVALID_HANDLE;
	if (private_data_len == NULL ||
	    (private_data == NULL && *private_data_len != 0))
		return NDK_STATUS_INVALID_PARAMETER;
	return c->dispatch->get_connection_data(c, inbound_read_limit,
						outbound_read_limit,
						private_data,
						private_data_len);
}

/* One of a connector's two addresses, BUFFER_TOO_SMALL semantics. */
static ndk_status_t
conn_address(struct ndk_connector *c, bool peer, struct sockaddr *addr,
	     socklen_t *len)
{
	union ndk_sockaddr local, remote;
	ndk_status_t st;

	if (!conn_ok(c))
		return NDK_STATUS_INVALID_HANDLE;
	memset(&local, 0, sizeof(local));
	memset(&remote, 0, sizeof(remote));
	st = c->dispatch->get_addresses(c, &local, &remote);
	if (!NDK_SUCCESS(st))
		return st;
	return sa_out(peer ? &remote : &local, addr, len);
}

ndk_status_t
ndk_get_local_address(struct ndk_connector *c, struct sockaddr *addr,
		      socklen_t *len)
{
	return conn_address(c, false, addr, len);
}

ndk_status_t
ndk_get_peer_address(struct ndk_connector *c, struct sockaddr *addr,
		     socklen_t *len)
{
	return conn_address(c, true, addr, len);
}

ndk_status_t
ndk_disconnect(struct ndk_connector *c, ndk_request_completion_fn done,
	       void *context)
{
	if (!conn_ok(c))
		return NDK_STATUS_INVALID_HANDLE;
	if (done == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	return c->dispatch->disconnect(c, done, context);
}

ndk_status_t
ndk_adapter_set_cm_params(struct ndk_adapter *adapter,
			  const struct ndk_cm_params *params)
{
	if (!adapter_ok(adapter))
		return NDK_STATUS_INVALID_HANDLE;
	if (params == NULL || params->retry_count > 7 ||
	    params->rnr_retry_count > 7 || params->qp_retry_count > 7 ||
	    params->local_ack_timeout > 31 ||
	    params->cm_response_timeout > 31 || params->max_cm_retries > 15 ||
	    params->listen_backlog == 0 || params->listen_backlog > (1u << 20) ||
	    params->selective_repeat > 1 ||
	    (params->path_mtu != 0 && (params->path_mtu < 256 ||
				       params->path_mtu > 4096 ||
				       (params->path_mtu &
					(params->path_mtu - 1)) != 0)))
		return NDK_STATUS_INVALID_PARAMETER;
	if (adapter->dispatch->set_cm_params == NULL)
		return NDK_STATUS_NOT_SUPPORTED;
	return adapter->dispatch->set_cm_params(adapter, params);
}

ndk_status_t
ndk_adapter_get_cm_params(struct ndk_adapter *adapter,
			  struct ndk_cm_params *params)
{
	if (!adapter_ok(adapter))
		return NDK_STATUS_INVALID_HANDLE;
	if (params == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	if (adapter->dispatch->get_cm_params == NULL)
		return NDK_STATUS_NOT_SUPPORTED;
	return adapter->dispatch->get_cm_params(adapter, params);
}

ndk_status_t
ndk_create_listener(struct ndk_adapter *adapter,
		    ndk_connect_event_fn connect_event, void *context,
		    struct ndk_listener **listener)
{
	if (!adapter_ok(adapter) || connect_event == NULL || listener == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	return adapter->dispatch->create_listener(adapter, connect_event,
						  context, listener);
}

ndk_status_t
ndk_close_listener(struct ndk_listener *l, ndk_close_completion_fn done,
		   void *context)
{
	if (!lis_ok(l))
		return NDK_STATUS_INVALID_HANDLE;
	return l->dispatch->close(l, done, context);
}

ndk_status_t
ndk_listen(struct ndk_listener *l, const struct sockaddr *addr, socklen_t len)
{
	union ndk_sockaddr sa;
	ndk_status_t st;

	if (!lis_ok(l))
		return NDK_STATUS_INVALID_HANDLE;
	st = sa_in(addr, len, &sa);
	if (!NDK_SUCCESS(st))
		return st;
	return l->dispatch->listen(l, &sa);
}

ndk_status_t
ndk_listener_get_local_address(struct ndk_listener *l, struct sockaddr *addr,
			       socklen_t *len)
{
	union ndk_sockaddr sa;
	ndk_status_t st;

	if (!lis_ok(l))
		return NDK_STATUS_INVALID_HANDLE;
	memset(&sa, 0, sizeof(sa));
	st = l->dispatch->get_local_address(l, &sa);
	return NDK_SUCCESS(st) ? sa_out(&sa, addr, len) : st;
}

ndk_status_t
ndk_control_connect_events(struct ndk_listener *l, bool pause)
{
	if (!lis_ok(l))
		return NDK_STATUS_INVALID_HANDLE;
	return l->dispatch->control_connect_events(l, pause);
}

static inline bool
sep_ok(const struct ndk_shared_endpoint *s)
{
	return s != NULL && s->header.type == NDK_OBJECT_TYPE_SHARED_ENDPOINT;
}

ndk_status_t
ndk_create_shared_endpoint(struct ndk_adapter *adapter,
			   const struct sockaddr *addr, socklen_t len,
			   struct ndk_shared_endpoint **sep)
{
	union ndk_sockaddr sa;
	ndk_status_t st;

	if (!adapter_ok(adapter) || sep == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	st = sa_in(addr, len, &sa);
	if (st == NDK_STATUS_INVALID_PARAMETER)
		return NDK_STATUS_INVALID_ADDRESS;   /* no address at all */
	if (!NDK_SUCCESS(st))
		return st;
	if (adapter->dispatch->create_shared_endpoint == NULL)
		return NDK_STATUS_NOT_SUPPORTED;
	return adapter->dispatch->create_shared_endpoint(adapter, &sa, sep);
}

ndk_status_t
ndk_close_shared_endpoint(struct ndk_shared_endpoint *sep,
			  ndk_close_completion_fn done, void *context)
{
	if (!sep_ok(sep))
		return NDK_STATUS_INVALID_HANDLE;
	return sep->dispatch->close(sep, done, context);
}

ndk_status_t
ndk_shared_endpoint_get_local_address(struct ndk_shared_endpoint *sep,
				      struct sockaddr *addr, socklen_t *len)
{
	union ndk_sockaddr sa;
	ndk_status_t st;

	if (!sep_ok(sep))
		return NDK_STATUS_INVALID_HANDLE;
	if (len == NULL)
		return NDK_STATUS_INVALID_PARAMETER;
	memset(&sa, 0, sizeof(sa));
	st = sep->dispatch->get_local_address(sep, &sa);
	return NDK_SUCCESS(st) ? sa_out(&sa, addr, len) : st;
}

ndk_status_t
ndk_connect_with_shared_endpoint(struct ndk_connector *c, struct ndk_qp *qp,
				 struct ndk_shared_endpoint *sep,
				 const struct sockaddr *dst, socklen_t dst_len,
				 uint32_t inbound_read_limit,
				 uint32_t outbound_read_limit,
				 const void *private_data,
				 uint32_t private_data_len,
				 ndk_request_completion_fn done, void *context)
{
	union ndk_sockaddr d;
	ndk_status_t st;

	if (!conn_ok(c))
		return NDK_STATUS_INVALID_HANDLE;
	if (!sep_ok(sep))
		return NDK_STATUS_INVALID_HANDLE;
	if (qp == NULL || qp->header.type != NDK_OBJECT_TYPE_QP ||
	    done == NULL || (private_data == NULL && private_data_len != 0))
		return NDK_STATUS_INVALID_PARAMETER;
	st = sa_in(dst, dst_len, &d);
	if (!NDK_SUCCESS(st))
		return st;
	if (sa_unspecified(&d))
		return NDK_STATUS_INVALID_ADDRESS;
	if (c->dispatch->connect_shared == NULL)
		return NDK_STATUS_NOT_SUPPORTED;
	return c->dispatch->connect_shared(c, qp, sep, &d, inbound_read_limit,
					   outbound_read_limit, private_data,
					   private_data_len, done, context);
}
