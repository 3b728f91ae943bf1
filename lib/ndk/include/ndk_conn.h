/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_CONN_H
#define NDK_CONN_H

/**
 * @file
 * NDK connection establishment: connectors and listeners (NDKPI's
 * NdkConnect, NdkCompleteConnect, NdkAccept, NdkReject, NdkDisconnect,
 * NdkGetConnectionData, NdkGetLocalAddress, NdkGetPeerAddress, NdkListen,
 * NdkControlConnectEvents, NdkCreateSharedEndpoint,
 * NdkConnectWithSharedEndpoint). Part of ndk.h: include that, not this.
 *
 * On RoCEv2 this is the InfiniBand communication manager over QP1 with
 * RDMA-CM's IP addressing, so either side may be Linux rdma_cm (rping,
 * perftest -R, librdmacm applications):
 *
 *  - an ND port is a port of RDMA-CM's TCP port space: a listener on
 *    address A port P answers REQs for service ID 0x0000000001060000 | P
 *    whose RDMA-CM header names A (or any address of the adapter when A is
 *    INADDR_ANY);
 *  - private data: the caller's (Connect) rides in the REQ after RDMA-CM's
 *    36-byte header, at most adapter info max_caller_data (56) bytes; the
 *    callee's (Accept) in the REP, at most max_callee_data (196); a
 *    Reject's in the REJ, at most 148. GetConnectionData reports the size
 *    of the whole private-data field (56, 196 or 148): the consumer's own
 *    protocol must carry the real length, as NDK says;
 *  - Connect = REQ, success when the REP arrives; CompleteConnect = RTU;
 *    Accept = REP, success when the RTU (or the first packet of the peer)
 *    arrives; Reject = REJ (consumer-defined reason 28); Disconnect = DREQ,
 *    success on the DREP (or a crossing DREQ). An incoming DREQ is
 *    answered at once and reported through the disconnect event.
 *
 * Callbacks (connect events, request completions, disconnect events) run
 * on the thread polling the adapter, like CQ notifications: keep them
 * short, and never block there waiting for the adapter. Calls made from a
 * callback are allowed.
 *
 * Asynchronous calls return STATUS_PENDING and later call their
 * completion exactly once, or fail inline (no callback then).
 */

#ifndef NDK_H
#error "include ndk.h, not ndk_conn.h"
#endif

#include <netinet/in.h>
#include <sys/socket.h>

/**
 * An IPv4 or IPv6 socket address, as connectors and listeners take and
 * return them (sa.sa_family says which member is valid).
 */
union ndk_sockaddr {
	struct sockaddr sa;
	struct sockaddr_in sin;
	struct sockaddr_in6 sin6;
};

struct ndk_adapter;
struct ndk_qp;
struct ndk_connector;
struct ndk_listener;
struct ndk_shared_endpoint;

/** Completion of an asynchronous request (NDK_FN_REQUEST_COMPLETION). */
typedef void (*ndk_request_completion_fn)(void *context, ndk_status_t status);

/**
 * The peer disconnected or the connection died
 * (NDK_FN_DISCONNECT_EVENT_CALLBACK_EX, NDKPI 2.1: its
 * ProviderDisconnectReason). Called at most once per connection, never
 * for a connection whose consumer called ndk_disconnect() first.
 * @p reason: 0 for a graceful disconnect (the peer's DREQ; NDK's 0 also
 * means "no reason given"), otherwise a provider reason
 * (NDK_DISCONNECT_REASON_*).
 *
 * NDKPI 2.1 has two forms of Accept and CompleteConnect: NdkAccept and
 * NdkCompleteConnect take NDK_FN_DISCONNECT_EVENT_CALLBACK (context
 * only), NdkAcceptEx and NdkCompleteConnectEx this one, with the same
 * other parameters (read limits, private data, completion). ndk_accept()
 * and ndk_complete_connect() are the Ex forms; a consumer of the older
 * form ignores @p reason. NDK does not say whether the provider may flush
 * on a disconnect event: it should not (the QP is flushed by
 * Disconnect), and here it does not, except that a QP that failed
 * (reason QP_ERROR) has flushed itself, as IB does.
 */
typedef void (*ndk_disconnect_event_fn)(void *context, uint32_t reason);

/** Disconnect reasons beyond 0 (graceful). */
/**
 * A CM timeout. Not delivered by swroce: its CM times out only requests
 * (Connect, Accept, Disconnect), which complete STATUS_IO_TIMEOUT; an
 * established connection whose peer stops answering ends through its QP
 * (QP_ERROR). Kept for providers and the ABI.
 */
#define NDK_DISCONNECT_REASON_TIMEOUT 1
/** The peer sent a REJ for an established connection (IB CM allows it
 *  where a DREQ would be expected). */
#define NDK_DISCONNECT_REASON_REJECTED 2
/**
 * The connection's QP failed and is in ERROR (retries exhausted, a
 * fatal NAK from the peer or sent to it, a local error), seen by the CM
 * within its 10 ms tick. As on an rdma_cm QP fatal event, the
 * connection stays established for the CM: ndk_disconnect() still sends
 * the DREQ and completes as usual.
 */
#define NDK_DISCONNECT_REASON_QP_ERROR 3

/**
 * An incoming connection request on a listener
 * (NDK_FN_CONNECT_EVENT_CALLBACK). The consumer owns @p new_connector:
 * it calls ndk_accept() or ndk_reject(), and must close it in any case;
 * closing it unanswered rejects the request.
 */
typedef void (*ndk_connect_event_fn)(void *context,
				     struct ndk_connector *new_connector);

/* ------------------------------------------------------------------ */
/* Connector                                                           */
/* ------------------------------------------------------------------ */

/**
 * Create a connector (NdkCreateConnector).
 * @return STATUS_SUCCESS or STATUS_INSUFFICIENT_RESOURCES.
 */
ndk_status_t ndk_create_connector(struct ndk_adapter *adapter,
				  struct ndk_connector **connector);

/**
 * Close a connector. An established connection is torn down abortively
 * (DREQ sent, QP flushed, no DREP awaited); a request not yet answered is
 * rejected; a pending request completes with STATUS_CANCELLED first.
 * Completes inline: returns STATUS_SUCCESS, @p done is not called.
 */
ndk_status_t ndk_close_connector(struct ndk_connector *connector,
				 ndk_close_completion_fn done, void *context);

/**
 * Start connecting @p qp (RESET or INIT, never connected before) to a
 * listener at @p dst (NdkConnect). @p src: local address (its IPv4
 * address must be the adapter's or INADDR_ANY; port 0 picks an ephemeral
 * port in 49152..65535). Read limits are capped by the adapter's; the
 * peer's opposite limits cap them again when it answers.
 *
 * @return STATUS_PENDING, then the completion: STATUS_SUCCESS (peer
 *   accepted: call ndk_get_connection_data(), then ndk_complete_connect()
 *   or ndk_reject()), STATUS_CONNECTION_REFUSED (rejected, nobody
 *   listens, or the listener's backlog is full: struct ndk_cm_params'
 *   listen_backlog), STATUS_IO_TIMEOUT (no answer),
 *   STATUS_HOST_UNREACHABLE (ARP failed), STATUS_CANCELLED (connector
 *   closed). Inline errors:
 *   STATUS_INVALID_PARAMETER, STATUS_INVALID_ADDRESS (not AF_INET, or not
 *   the adapter's address), STATUS_INVALID_BUFFER_SIZE (private data too
 *   long), STATUS_CONNECTION_ACTIVE (connector in use),
 *   STATUS_INVALID_DEVICE_STATE (QP not RESET/INIT or already bound),
 *   STATUS_SHARING_VIOLATION (local port in use), STATUS_TOO_MANY_ADDRESSES
 *   (no ephemeral port free).
 */
ndk_status_t ndk_connect(struct ndk_connector *connector, struct ndk_qp *qp,
			 const struct sockaddr *src, socklen_t src_len,
			 const struct sockaddr *dst, socklen_t dst_len,
			 uint32_t inbound_read_limit,
			 uint32_t outbound_read_limit,
			 const void *private_data, uint32_t private_data_len,
			 ndk_request_completion_fn done, void *context);

/**
 * Finish an active connection (NdkCompleteConnectEx): send the RTU and
 * move the QP to RTS.
 * @return STATUS_PENDING, then STATUS_SUCCESS or STATUS_CONNECTION_ABORTED
 *   (the peer gave up meanwhile). Inline: STATUS_CONNECTION_INVALID
 *   (Connect has not succeeded on this connector).
 */
ndk_status_t ndk_complete_connect(struct ndk_connector *connector,
				  ndk_disconnect_event_fn disconnect_event,
				  void *disconnect_context,
				  ndk_request_completion_fn done,
				  void *context);

/**
 * Accept an incoming request with @p qp (RESET or INIT) (NdkAcceptEx):
 * the QP goes to RTR and a REP is sent; the request completes when the
 * peer's RTU (or its first packet on the QP) arrives, the QP then in RTS.
 * @return STATUS_PENDING, then STATUS_SUCCESS, STATUS_CONNECTION_ABORTED
 *   (the initiator rejected or vanished) or STATUS_IO_TIMEOUT. Inline:
 *   STATUS_CONNECTION_INVALID (not an unanswered incoming request),
 *   STATUS_INVALID_BUFFER_SIZE, STATUS_INVALID_DEVICE_STATE (QP state).
 */
ndk_status_t ndk_accept(struct ndk_connector *connector, struct ndk_qp *qp,
			uint32_t inbound_read_limit,
			uint32_t outbound_read_limit,
			const void *private_data, uint32_t private_data_len,
			ndk_disconnect_event_fn disconnect_event,
			void *disconnect_context,
			ndk_request_completion_fn done, void *context);

/**
 * Reject an incoming request, or a connection whose Connect succeeded
 * (NdkReject). Synchronous.
 * @return STATUS_SUCCESS, STATUS_CONNECTION_INVALID (nothing to reject),
 *   STATUS_INVALID_BUFFER_SIZE (more than 148 bytes).
 */
ndk_status_t ndk_reject(struct ndk_connector *connector,
			const void *private_data, uint32_t private_data_len);

/**
 * Read limits and private data the peer sent (NdkGetConnectionData):
 * valid from the connect event (passive) or after Connect succeeded
 * (active). *@p private_data_len in: buffer size; out: the size of the
 * private-data field (see the file comment).
 * @return STATUS_SUCCESS, STATUS_BUFFER_TOO_SMALL (buffer filled up to its
 *   size), STATUS_INVALID_PARAMETER (NULL buffer with non-zero length),
 *   STATUS_CONNECTION_INVALID (no peer data yet).
 */
ndk_status_t ndk_get_connection_data(struct ndk_connector *connector,
				     uint32_t *inbound_read_limit,
				     uint32_t *outbound_read_limit,
				     void *private_data,
				     uint32_t *private_data_len);

/**
 * Local / peer address of a connector (NdkGetLocalAddress,
 * NdkGetPeerAddress): a struct sockaddr_in for an IPv4 connection, a
 * struct sockaddr_in6 for an IPv6 one (@p len tells which size is needed).
 * @return STATUS_SUCCESS, STATUS_BUFFER_TOO_SMALL (*@p len set to the size
 *   needed), STATUS_CONNECTION_INVALID (no address yet).
 */
ndk_status_t ndk_get_local_address(struct ndk_connector *connector,
				   struct sockaddr *addr, socklen_t *len);
/** @copydoc ndk_get_local_address */
ndk_status_t ndk_get_peer_address(struct ndk_connector *connector,
				  struct sockaddr *addr, socklen_t *len);

/**
 * Disconnect gracefully (NdkDisconnect): DREQ, then the QP is flushed.
 * @return STATUS_PENDING, then STATUS_SUCCESS (the peer answered, or had
 *   disconnected first) or STATUS_IO_TIMEOUT; the QP is flushed either
 *   way. Inline: STATUS_CONNECTION_INVALID (not connected),
 *   STATUS_DEVICE_BUSY (a disconnect is already under way).
 */
ndk_status_t ndk_disconnect(struct ndk_connector *connector,
			    ndk_request_completion_fn done, void *context);

/* ------------------------------------------------------------------ */
/* Shared endpoint                                                     */
/* ------------------------------------------------------------------ */

/**
 * Create a shared endpoint (NdkCreateSharedEndpoint): reserve local
 * address @p addr (the adapter's address of its family, or that family's
 * wildcard, which stands for the adapter's address of the family; port 0
 * picks an ephemeral port in 49152..65535) for connectors that then
 * connect from it with ndk_connect_with_shared_endpoint(), each to a
 * different remote address or port. The endpoint counts as a user of
 * the port (NDK's endpoint reference count: +1 itself, +1 per connector
 * connected through it): while any of them is open, ndk_listen(),
 * ndk_connect() and another shared endpoint on the same address and port
 * fail STATUS_SHARING_VIOLATION. On the wire the connections are told
 * apart by their peer and their CM communication IDs, as any.
 * Completes inline.
 *
 * @return STATUS_SUCCESS; STATUS_INVALID_PARAMETER (NULL handle or out
 *   pointer); STATUS_INVALID_ADDRESS (neither AF_INET nor AF_INET6, too
 *   short, or not an address of the adapter); STATUS_SHARING_VIOLATION
 *   (the port is in use); STATUS_TOO_MANY_ADDRESSES (port 0, no
 *   ephemeral port free); STATUS_INSUFFICIENT_RESOURCES;
 *   STATUS_NOT_SUPPORTED (the provider has no shared endpoints; both
 *   of this project's have them, attached ones at the daemon).
 */
ndk_status_t ndk_create_shared_endpoint(struct ndk_adapter *adapter,
					const struct sockaddr *addr,
					socklen_t len,
					struct ndk_shared_endpoint **sep);

/**
 * Close a shared endpoint (NdkCloseSharedEndpoint). No new connection
 * can use it from now on. Connectors connected through it keep it: while
 * any of them is open the close stays pending (STATUS_PENDING) and the
 * port stays in use; @p done (if not NULL) is called once the last of
 * them is closed, on the thread closing it, after the port was given
 * back (attached: by the ndk_adapter_poll() after it, doc/attach.md).
 * @return STATUS_SUCCESS (closed inline, @p done not called) or
 * STATUS_PENDING; STATUS_INVALID_HANDLE.
 */
ndk_status_t ndk_close_shared_endpoint(struct ndk_shared_endpoint *sep,
				       ndk_close_completion_fn done,
				       void *context);

/**
 * The address and port a shared endpoint reserved (NdkGetLocalAddress of
 * NDK_SHARED_ENDPOINT_DISPATCH), with the port an ephemeral request got.
 * @return STATUS_SUCCESS, STATUS_BUFFER_TOO_SMALL (*@p len set to the
 *   size needed), STATUS_INVALID_HANDLE, STATUS_INVALID_PARAMETER.
 */
ndk_status_t ndk_shared_endpoint_get_local_address(
	struct ndk_shared_endpoint *sep, struct sockaddr *addr,
	socklen_t *len);

/**
 * ndk_connect() from shared endpoint @p sep (NdkConnectWithSharedEndpoint):
 * the connection's local address and port are the endpoint's. Everything
 * else (completion, read limits, private data, what follows) is as
 * ndk_connect(). The endpoint must be of the connector's adapter and
 * @p dst of the endpoint's family.
 *
 * @return STATUS_PENDING, then the completion as ndk_connect(). Inline
 *   errors as ndk_connect() without the local-address ones, and:
 *   STATUS_ADDRESS_ALREADY_EXISTS (a connector of this endpoint, not yet
 *   closed, already has @p dst as its peer: NDK's "same four-tuple"),
 *   STATUS_INVALID_ADDRESS (@p dst of another family than the endpoint,
 *   a wildcard or the adapter's own), STATUS_INVALID_PARAMETER (the
 *   endpoint is another adapter's), STATUS_NOT_SUPPORTED (the provider
 *   has no shared endpoints).
 */
ndk_status_t ndk_connect_with_shared_endpoint(struct ndk_connector *connector,
					      struct ndk_qp *qp,
					      struct ndk_shared_endpoint *sep,
					      const struct sockaddr *dst,
					      socklen_t dst_len,
					      uint32_t inbound_read_limit,
					      uint32_t outbound_read_limit,
					      const void *private_data,
					      uint32_t private_data_len,
					      ndk_request_completion_fn done,
					      void *context);

/* ------------------------------------------------------------------ */
/* Connection manager parameters                                       */
/* ------------------------------------------------------------------ */

/**
 * What an adapter's connection manager announces in its REQs and REPs and
 * gives the QPs it connects (ndk_adapter_set_cm_params()). The defaults,
 * NDK_CM_PARAMS_DEFAULT, are what Linux rdma_cm uses, so that a librdmacm
 * peer (rping, perftest -R) treats the connections as its own.
 */
struct ndk_cm_params {
	/** RC retry count a REQ asks of the peer's QP, 0-7 (7: librdmacm's;
	 *  Linux rxe and this project retry for ever). Default 7. */
	uint8_t retry_count;
	/** RNR retry count a REQ asks and a REP grants, 0-7 (7: for ever).
	 *  Default 7. */
	uint8_t rnr_retry_count;
	/** Retry count of the adapter's own connected QPs, 0-7 (on the
	 *  passive side at most the REQ's). Default 6: finite, so a vanished
	 *  peer ends the QP; loss alone does not spend it. */
	uint8_t qp_retry_count;
	/** Local ACK timeout of the adapter's own QPs and of its REQs, 1-31
	 *  (4.096 us << n); 0 (default): as rdma_cm derives it on RoCE from
	 *  the packet lifetime and the responder's ACK delay (17: 0.54 s). */
	uint8_t local_ack_timeout;
	/** CM response timeout a REQ announces, 0-31 (4.096 us << n), and
	 *  so the longest interval between two retransmissions of our REQs
	 *  and DREQs (2 x packet lifetime more; the first comes after 1 s,
	 *  then doubling). Default 20 (4.3 s). */
	uint8_t cm_response_timeout;
	/** Max CM retries a REQ announces, 0-15, and the retransmissions of
	 *  our REQs and DREQs before Connect or Disconnect fails
	 *  STATUS_IO_TIMEOUT (about 69 s with the defaults). Default 15. */
	uint8_t max_cm_retries;
	/** Largest path MTU in bytes (256, 512, 1024, 2048, 4096) a REQ
	 *  announces and a QP connected from a REQ takes (the smaller of
	 *  the REQ's and this), as rdma_cm takes the route's MTU; 0
	 *  (default): the adapter's max_path_mtu. */
	uint16_t path_mtu;
	/** Most requests a listener holds unanswered (connect events owed
	 *  or delivered, no Accept or Reject yet), 1 to 1,048,576; a request
	 *  beyond is refused at once (REJ, "no resources": the peer's
	 *  Connect fails CONNECTION_REFUSED) and counted
	 *  (xstat cm_backlog_rejects). Default 4096 (Linux's SOMAXCONN). */
	uint32_t listen_backlog;
	/** Selective repeat (doc/recovery.md) with peers that offer or
	 *  accept it, ndk-roce adapters whose CM has it on (announced in
	 *  the REQ's and REP's ECE, a vendor option other peers ignore):
	 *  1 (default) offer it in REQs and accept it in REPs, 0 never.
	 *  Any other peer gets standard go-back-N either way. */
	uint8_t selective_repeat;
	/** Reserved, 0 (no padding: the structure compares by bytes). */
	uint8_t reserved[3];
};

/** struct ndk_cm_params initializer with the defaults (rdma_cm's). */
#define NDK_CM_PARAMS_DEFAULT { 7, 7, 6, 0, 20, 15, 0, 4096, 1 }

/**
 * Set the connection manager parameters of @p adapter; they apply to the
 * connections a Connect starts or a REQ opens from then on.
 * @return STATUS_SUCCESS, STATUS_INVALID_HANDLE, STATUS_INVALID_PARAMETER
 *   (NULL, or a value out of its range), STATUS_NOT_SUPPORTED (the
 *   provider has no such setting, e.g. an attached application: the
 *   daemon decides).
 */
ndk_status_t ndk_adapter_set_cm_params(struct ndk_adapter *adapter,
				       const struct ndk_cm_params *params);

/**
 * The connection manager parameters of @p adapter.
 * @return as ndk_adapter_set_cm_params().
 */
ndk_status_t ndk_adapter_get_cm_params(struct ndk_adapter *adapter,
				       struct ndk_cm_params *params);

/* ------------------------------------------------------------------ */
/* Listener                                                            */
/* ------------------------------------------------------------------ */

/**
 * Create a listener (NdkCreateListener); @p connect_event is called for
 * each incoming request once it listens.
 * @return STATUS_SUCCESS, STATUS_INVALID_PARAMETER (no callback) or
 *   STATUS_INSUFFICIENT_RESOURCES.
 */
ndk_status_t ndk_create_listener(struct ndk_adapter *adapter,
				 ndk_connect_event_fn connect_event,
				 void *context, struct ndk_listener **listener);

/**
 * Close a listener (NdkCloseListener): no more connect events from this
 * call on (requests not yet handed out are refused). Connectors it handed
 * up (through the connect event, accepted or not) are the consumer's and
 * stay open; they keep the listener's port in use and its close pending
 * until they are closed (NDK's endpoint reference count: the listener is
 * their antecedent).
 * @return STATUS_SUCCESS (no connector it handed up is open: closed, no
 *   completion) or STATUS_PENDING (@p done, if not NULL, is called with
 *   @p context when the last of them is closed, from that close, or at
 *   ndk_adapter_close(); attached, by the ndk_adapter_poll() after that
 *   close; it is the listener's last callback).
 */
ndk_status_t ndk_close_listener(struct ndk_listener *listener,
				ndk_close_completion_fn done, void *context);

/**
 * Listen on @p addr (NdkListen): an address of the adapter, or the
 * wildcard of a family, port 0 for an ephemeral one. Completes inline.
 * A sockaddr_in with INADDR_ANY takes IPv4 requests only; a sockaddr_in6
 * with in6addr_any takes both IPv4 and IPv6 requests (dual-stack, as a
 * Linux IPv6 socket without IPV6_V6ONLY); a specific address, only those
 * addressed to it.
 * @return STATUS_SUCCESS, STATUS_INVALID_ADDRESS, STATUS_SHARING_VIOLATION
 *   (port in use), STATUS_TOO_MANY_ADDRESSES (no ephemeral port),
 *   STATUS_INVALID_DEVICE_STATE (already listening).
 */
ndk_status_t ndk_listen(struct ndk_listener *listener,
			const struct sockaddr *addr, socklen_t len);

/** Address a listener listens on (NdkGetLocalAddress). */
ndk_status_t ndk_listener_get_local_address(struct ndk_listener *listener,
					    struct sockaddr *addr,
					    socklen_t *len);

/**
 * Pause (true) or resume (false) connect events (NdkControlConnectEvents):
 * while paused, requests are refused as if nobody listened.
 */
ndk_status_t ndk_control_connect_events(struct ndk_listener *listener,
					bool pause);

#endif /* NDK_CONN_H */
