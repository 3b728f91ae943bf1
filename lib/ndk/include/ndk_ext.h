/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_EXT_H
#define NDK_EXT_H

/**
 * @file
 * NDKPI entries beside the core calls: NdkQueryExtension (every dispatch
 * table's), asynchronous creation (every NdkCreateXxx's CreateCompletion),
 * NdkResizeCq and NdkControlCqInterruptModeration (a provider
 * announces the last two with NDK_ADAPTER_FLAG_CQ_RESIZE_SUPPORTED and
 * NDK_ADAPTER_FLAG_CQ_INTERRUPT_MODERATION_SUPPORTED, else they answer
 * STATUS_NOT_SUPPORTED), and ndk_receive_list(), receives posted in bulk
 * (not in NDK, whose Receive has no deferral flag). Part of ndk.h:
 * include that, not this.
 */

#ifndef NDK_H
#error "include ndk.h, not ndk_ext.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** A GUID naming an NDK extension interface (GUID). */
struct ndk_guid {
	uint32_t data1;
	uint16_t data2;
	uint16_t data3;
	uint8_t data4[8];
};

/**
 * NdkQueryExtension, the entry every NDK dispatch table (adapter, CQ, PD,
 * MR, MW, SRQ, QP, connector, listener, shared endpoint) begins with after
 * its close. NDKPI defines no extension interfaces, and neither does
 * ndk-roce: for any object of any provider (embedded or attached) the
 * answer is STATUS_NOT_SUPPORTED and @p iface is left untouched.
 *
 * @param object the object's header (the first member of every handle).
 * @param extension the interface asked for.
 * @param version the interface version asked for.
 * @param iface where the interface would be written.
 * @return STATUS_NOT_SUPPORTED; STATUS_INVALID_PARAMETER if @p object is
 *   NULL or not an NDK object (type outside 1..NDK_OBJECT_TYPE_MAX-1),
 *   or @p extension or @p iface is NULL.
 */
ndk_status_t ndk_query_extension(const struct ndk_object_header *object,
				 const struct ndk_guid *extension,
				 struct ndk_version version, void *iface);

/* ------------------------------------------------------------------ */
/* Asynchronous creation (NDK_FN_CREATE_COMPLETION)                    */
/* ------------------------------------------------------------------ */

/**
 * Completion of a create that returned STATUS_PENDING
 * (NDK_FN_CREATE_COMPLETION): @p status is the create's outcome, and on
 * success @p object the new object's header (cast it to the handle type
 * asked for: every handle begins with its header); NULL on failure.
 */
typedef void (*ndk_create_completion_fn)(void *context, ndk_status_t status,
					 struct ndk_object_header *object);

/**
 * @defgroup ndk_create_async Asynchronous creation
 *
 * Each NdkCreateXxx of NDK takes a CreateCompletion; here a create with
 * one is ndk_create_xxx_async(), the same arguments as ndk_create_xxx()
 * then @p done, @p context and the out pointer. What NDK's section on
 * creation asks:
 *
 * - @p done NULL: the create completes inline, exactly as
 *   ndk_create_xxx() (STATUS_SUCCESS with the object in the out pointer,
 *   or an error), and nothing is called back.
 * - @p done given (embedded, a DPDK primary process): STATUS_PENDING. The
 *   create runs later on the EAL's interrupt thread (a control thread,
 *   not the adapter's polling lcore), and @p done is called there exactly
 *   once with its status and, on success, the object; the out pointer is
 *   never written. Errors ndk_create_xxx() would return inline (limits,
 *   addresses ...) come through @p done. The caller may be anywhere,
 *   including a callback the adapter's poll runs (a connect event that
 *   wants a QP to accept with): nothing waits for the poll meanwhile.
 *   @p done must not wait for the adapter (the interrupt thread also
 *   serves other EAL alarms: see ndk_close_mr()).
 * - @p done given, attached application (a DPDK secondary process; its
 *   creates are requests to ndk-roced, made on the caller's thread):
 *   completes inline as with @p done NULL, which NDK allows (a create
 *   may always succeed at once; the completion is then not called).
 *   Consumers handle both outcomes, as NDK requires of them.
 *
 * Inline errors in every case: STATUS_INVALID_PARAMETER (a NULL or
 * wrong-type parent handle, a NULL out pointer), and with @p done
 * STATUS_INSUFFICIENT_RESOURCES (the request could not be queued).
 * ndk_adapter_close() waits until no deferred create is left (of any
 * adapter: the count is the process's) and every completion returned,
 * then closes; an object a completion delivered meanwhile is closed with
 * the adapter like any other. A completion must not close the adapter.
 * @{
 */

/** NdkCreateCq with CreateCompletion (see ndk_create_cq()). */
ndk_status_t ndk_create_cq_async(struct ndk_adapter *adapter, uint32_t depth,
				 ndk_cq_notify_fn notify, void *notify_context,
				 ndk_create_completion_fn done, void *context,
				 struct ndk_cq **cq);

/** NdkCreatePd with CreateCompletion (see ndk_create_pd()). */
ndk_status_t ndk_create_pd_async(struct ndk_adapter *adapter,
				 ndk_create_completion_fn done, void *context,
				 struct ndk_pd **pd);

/** NdkCreateMr with CreateCompletion (see ndk_create_mr()). */
ndk_status_t ndk_create_mr_async(struct ndk_pd *pd, bool fast_register,
				 ndk_create_completion_fn done, void *context,
				 struct ndk_mr **mr);

/** NdkCreateMw with CreateCompletion (see ndk_create_mw()). */
ndk_status_t ndk_create_mw_async(struct ndk_pd *pd,
				 ndk_create_completion_fn done, void *context,
				 struct ndk_mw **mw);

/** NdkCreateQp with CreateCompletion (see ndk_create_qp()). */
ndk_status_t ndk_create_qp_async(struct ndk_pd *pd, struct ndk_cq *receive_cq,
				 struct ndk_cq *initiator_cq, void *qp_context,
				 uint32_t receive_queue_depth,
				 uint32_t initiator_queue_depth,
				 uint32_t max_receive_request_sge,
				 uint32_t max_initiator_request_sge,
				 uint32_t inline_data_size,
				 ndk_create_completion_fn done, void *context,
				 struct ndk_qp **qp);

/** NdkCreateSrq with CreateCompletion (see ndk_create_srq()). */
ndk_status_t ndk_create_srq_async(struct ndk_pd *pd, uint32_t depth,
				  uint32_t max_sges, uint32_t notify_threshold,
				  ndk_srq_notify_fn notify,
				  void *notify_context,
				  ndk_create_completion_fn done, void *context,
				  struct ndk_srq **srq);

/** NdkCreateQpWithSrq with CreateCompletion (see ndk_create_qp_with_srq()). */
ndk_status_t ndk_create_qp_with_srq_async(struct ndk_pd *pd,
					  struct ndk_cq *receive_cq,
					  struct ndk_cq *initiator_cq,
					  struct ndk_srq *srq,
					  void *qp_context,
					  uint32_t initiator_queue_depth,
					  uint32_t max_initiator_request_sge,
					  uint32_t inline_data_size,
					  ndk_create_completion_fn done,
					  void *context, struct ndk_qp **qp);

/** NdkCreateConnector with CreateCompletion (see ndk_create_connector()). */
ndk_status_t ndk_create_connector_async(struct ndk_adapter *adapter,
					ndk_create_completion_fn done,
					void *context,
					struct ndk_connector **connector);

/** NdkCreateListener with CreateCompletion (see ndk_create_listener()). */
ndk_status_t ndk_create_listener_async(struct ndk_adapter *adapter,
				       ndk_connect_event_fn connect_event,
				       void *event_context,
				       ndk_create_completion_fn done,
				       void *context,
				       struct ndk_listener **listener);

/**
 * NdkCreateSharedEndpoint with CreateCompletion (see
 * ndk_create_shared_endpoint()); @p addr is copied before the call
 * returns.
 */
ndk_status_t ndk_create_shared_endpoint_async(struct ndk_adapter *adapter,
					      const struct sockaddr *addr,
					      socklen_t len,
					      ndk_create_completion_fn done,
					      void *context,
					      struct ndk_shared_endpoint **sep);

/** @} */

/**
 * NdkResizeCq: change the CQ's depth, keeping every completion it holds.
 * Completes inline (never STATUS_PENDING). Not concurrently with other
 * calls on the same CQ (NDK serializes them); QPs keep using the CQ, and
 * an armed notification stays armed.
 * @param depth new depth, 1..max_cq_depth.
 * @return STATUS_SUCCESS; STATUS_INVALID_PARAMETER (0 or above
 *   max_cq_depth); STATUS_BUFFER_OVERFLOW (fewer than the completions it
 *   holds now: nothing lost, the depth unchanged);
 *   STATUS_INSUFFICIENT_RESOURCES; STATUS_INVALID_DEVICE_STATE (the CQ
 *   overran and is dead); STATUS_INVALID_HANDLE; STATUS_NOT_SUPPORTED
 *   when the adapter lacks NDK_ADAPTER_FLAG_CQ_RESIZE_SUPPORTED (both of
 *   this project's providers have it; attached, the daemon resizes the
 *   CQ whose ring the application reads, doc/attach.md).
 */
ndk_status_t ndk_resize_cq(struct ndk_cq *cq, uint32_t depth);

/**
 * NdkControlCqInterruptModeration: hold an armed CQ's notification back
 * until @p count completions arrived since the last notification or
 * @p interval_us passed since the first one held, whichever comes first.
 * Error completions and overruns are never held. Default: none. Latest
 * settings win; one held under the old settings is delivered at once.
 * Never pends. With a count alone (interval UINT32_MAX), fewer than
 * @p count completions are never notified: the consumer's choice.
 * @param interval_us 0: moderation off; UINT32_MAX: the count alone.
 * @param count UINT32_MAX or above the CQ's depth: the interval alone;
 *   0 or 1: every completion notifies (off).
 * @return STATUS_SUCCESS; STATUS_INVALID_PARAMETER_MIX (both UINT32_MAX
 *   or the like); STATUS_INVALID_HANDLE; STATUS_NOT_SUPPORTED when the
 *   adapter lacks NDK_ADAPTER_FLAG_CQ_INTERRUPT_MODERATION_SUPPORTED
 *   (both of this project's providers have it; attached, the daemon's
 *   CQ holds the notification back, doc/attach.md).
 */
ndk_status_t ndk_control_cq_interrupt_moderation(struct ndk_cq *cq,
						 uint32_t interval_us,
						 uint32_t count);

/* ------------------------------------------------------------------ */
/* Receives in bulk                                                    */
/* ------------------------------------------------------------------ */

/** One receive of ndk_receive_list(): the arguments of an ndk_receive(). */
struct ndk_receive_request {
	/** Returned in the receive's completion. */
	void *request_context;
	/** The buffers, as ndk_receive()'s @p sgl (read during the call). */
	const struct ndk_sge *sgl;
	/** SGEs in @p sgl. */
	uint32_t nsge;
};

/**
 * Post @p count receives to @p qp's receive queue in one call, in order:
 * the same as @p count calls of ndk_receive() with the same arguments,
 * each checked as ndk_receive() checks it, with the queue's state and
 * room read once and the receives handed to the poller together (one
 * release of the queue's producer index instead of @p count). The SGE
 * lists are read during the call only. Not an NDK call: an extension of
 * ndk-roce for receivers that re-post many buffers at once (every
 * provider takes it; one without a bulk path posts them one by one).
 *
 * @param requests @p count receives.
 * @param count receives to post; 0 posts nothing and succeeds.
 * @param posted set to the receives posted (the first *posted of
 *   @p requests; the rest were not posted and never complete), also on
 *   failure.
 * @return STATUS_SUCCESS when all were posted. Otherwise the status of
 *   the first receive not posted, as ndk_receive() would have returned
 *   it (STATUS_NO_MORE_ENTRIES: the queue is full; STATUS_DATA_OVERRUN,
 *   STATUS_ACCESS_VIOLATION, STATUS_INVALID_PARAMETER: that receive's
 *   SGEs; STATUS_CONNECTION_INVALID: a QP in RESET, nothing posted;
 *   STATUS_INVALID_DEVICE_REQUEST: a QP on an SRQ, nothing posted;
 *   STATUS_DEVICE_REMOVED: an attached application whose daemon is
 *   gone).
 *   STATUS_INVALID_HANDLE if @p qp is not a QP; STATUS_INVALID_PARAMETER
 *   if @p posted is NULL or @p requests is NULL with @p count above 0
 *   (nothing posted).
 */
ndk_status_t ndk_receive_list(struct ndk_qp *qp,
			      const struct ndk_receive_request *requests,
			      uint32_t count, uint32_t *posted);

#ifdef __cplusplus
}
#endif

#endif /* NDK_EXT_H */
