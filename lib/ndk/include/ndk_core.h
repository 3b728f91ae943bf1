/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_CORE_H
#define NDK_CORE_H

/**
 * @file
 * NDK object layouts and provider dispatch tables.
 *
 * Included by ndk.h for its inline fast-path wrappers (as rte_ethdev_core.h
 * is by rte_ethdev.h). Applications use the ndk_* functions, never these
 * tables directly; providers fill them (see ndk_provider.h). The order of
 * the entries follows NDKPI's dispatch tables where NDK has the call.
 */

#ifndef NDK_H
#error "include ndk.h, not ndk_core.h"
#endif

struct rte_mempool;
struct ndk_adapter;
struct ndk_cq;
struct ndk_pd;
struct ndk_mr;
struct ndk_mw;
struct ndk_qp;
struct ndk_srq;
struct ndk_qp_attr;
struct ndk_qp_stats;
struct ndk_adapter_stats;
struct ndk_xstat;
struct ndk_xstat_name;
struct ndk_qp_info;
struct ndk_shared_endpoint;
struct ndk_receive_request;
union ndk_sockaddr;

/** NDK_ADAPTER_DISPATCH (user-space form). */
struct ndk_adapter_dispatch {
	ndk_status_t (*query_adapter_info)(struct ndk_adapter *adapter,
					   struct ndk_adapter_info *info,
					   uint32_t *size);
	ndk_status_t (*create_cq)(struct ndk_adapter *adapter, uint32_t depth,
				  ndk_cq_notify_fn notify, void *ctx,
				  struct ndk_cq **cq);
	ndk_status_t (*create_pd)(struct ndk_adapter *adapter,
				  struct ndk_pd **pd);
	void (*close)(struct ndk_adapter *adapter);
	unsigned int (*poll)(struct ndk_adapter *adapter);
	void (*release)(struct ndk_adapter *adapter);
	void (*get_stats)(struct ndk_adapter *adapter,
			  struct ndk_adapter_stats *stats);
	ndk_status_t (*create_connector)(struct ndk_adapter *adapter,
					 struct ndk_connector **connector);
	ndk_status_t (*create_listener)(struct ndk_adapter *adapter,
					ndk_connect_event_fn connect_event,
					void *ctx,
					struct ndk_listener **listener);
	/* Introspection (ndk_info.h); NULL if the provider has none. */
	int (*qp_list)(struct ndk_adapter *adapter, uint32_t *qpns,
		       uint32_t max);
	ndk_status_t (*qp_query_info)(struct ndk_adapter *adapter,
				      uint32_t qpn, struct ndk_qp_info *info);
	/* Several queues (ndk_adapter_poll_queue); NULL: one queue. */
	unsigned int (*poll_queue)(struct ndk_adapter *adapter, uint16_t queue);
	int (*get_queue_stats)(struct ndk_adapter *adapter, uint16_t queue,
			       struct ndk_adapter_stats *stats);
	/* Registrable buffers; NULL: the adapter's socket heap. */
	ndk_status_t (*alloc_buffer)(struct ndk_adapter *adapter, size_t len,
				     size_t align, void **buf);
	ndk_status_t (*free_buffer)(struct ndk_adapter *adapter, void *buf);
	/* NULL: always healthy. */
	ndk_status_t (*health)(struct ndk_adapter *adapter);
	/* NULL: not supported (ndk_adapter_set_adaptive_rto()). */
	ndk_status_t (*set_adaptive_rto)(struct ndk_adapter *adapter,
					 bool enable, uint32_t floor_us);
	/* Extended counters (ndk_adapter_xstats_*()): both NULL, none;
	 * queue_xstats_get NULL, no per-queue counters. Each returns the
	 * count, filling only when it is at most n. */
	int (*xstats_get_names)(struct ndk_adapter *adapter,
				struct ndk_xstat_name *names, unsigned int n);
	int (*xstats_get)(struct ndk_adapter *adapter,
			  struct ndk_xstat *values, unsigned int n);
	int (*queue_xstats_get)(struct ndk_adapter *adapter, uint16_t queue,
				struct ndk_xstat *values, unsigned int n);
	/* Connection manager parameters (ndk_adapter_set_cm_params()):
	 * both NULL, not supported; values checked by libndk. */
	ndk_status_t (*set_cm_params)(struct ndk_adapter *adapter,
				      const struct ndk_cm_params *params);
	ndk_status_t (*get_cm_params)(struct ndk_adapter *adapter,
				      struct ndk_cm_params *params);
	/* NdkCreateSharedEndpoint: NULL, not supported. @p addr is the
	 * adapter's address of its family or that family's wildcard. */
	ndk_status_t (*create_shared_endpoint)(struct ndk_adapter *adapter,
					       const union ndk_sockaddr *addr,
					       struct ndk_shared_endpoint **sep);
};

/** NDK_CQ_DISPATCH. */
struct ndk_cq_dispatch {
	ndk_status_t (*close)(struct ndk_cq *cq, ndk_close_completion_fn done,
			      void *ctx);
	void (*arm)(struct ndk_cq *cq, uint32_t type);
	uint32_t (*get_results)(struct ndk_cq *cq, struct ndk_result *r,
				uint32_t n);
	uint32_t (*get_results_ex)(struct ndk_cq *cq, struct ndk_result_ex *r,
				   uint32_t n);
	/* NULL: not supported (the adapter flags say so too). */
	ndk_status_t (*resize)(struct ndk_cq *cq, uint32_t depth);
	ndk_status_t (*moderate)(struct ndk_cq *cq, uint32_t interval_us,
				 uint32_t count);
};

/** NDK_PD_DISPATCH. */
struct ndk_pd_dispatch {
	ndk_status_t (*close)(struct ndk_pd *pd, ndk_close_completion_fn done,
			      void *ctx);
	ndk_status_t (*create_mr)(struct ndk_pd *pd, bool fast_register,
				  struct ndk_mr **mr);
	ndk_status_t (*create_qp)(struct ndk_pd *pd, struct ndk_cq *rcq,
				  struct ndk_cq *icq, void *qp_context,
				  uint32_t rq_depth, uint32_t iq_depth,
				  uint32_t max_rsge, uint32_t max_isge,
				  uint32_t inline_size, struct ndk_qp **qp);
	ndk_status_t (*create_mw)(struct ndk_pd *pd, struct ndk_mw **mw);
	/* Shared receive queues: both NULL, not supported. */
	ndk_status_t (*create_srq)(struct ndk_pd *pd, uint32_t depth,
				   uint32_t max_sge, uint32_t threshold,
				   ndk_srq_notify_fn notify, void *ctx,
				   struct ndk_srq **srq);
	ndk_status_t (*create_qp_with_srq)(struct ndk_pd *pd,
					   struct ndk_cq *rcq,
					   struct ndk_cq *icq,
					   struct ndk_srq *srq,
					   void *qp_context,
					   uint32_t iq_depth,
					   uint32_t max_isge,
					   uint32_t inline_size,
					   struct ndk_qp **qp);
};

/** NDK_SRQ_DISPATCH. */
struct ndk_srq_dispatch {
	ndk_status_t (*close)(struct ndk_srq *srq,
			      ndk_close_completion_fn done, void *ctx);
	ndk_status_t (*modify)(struct ndk_srq *srq, uint32_t depth,
			       uint32_t threshold);
	ndk_status_t (*receive)(struct ndk_srq *srq, void *ctx,
				const struct ndk_sge *sgl, uint32_t nsge);
};

/** NDK_MR_DISPATCH. */
struct ndk_mr_dispatch {
	ndk_status_t (*close)(struct ndk_mr *mr, ndk_close_completion_fn done,
			      void *ctx);
	ndk_status_t (*register_mr)(struct ndk_mr *mr, void *va, size_t len,
				    uint32_t flags);
	ndk_status_t (*deregister_mr)(struct ndk_mr *mr);
	uint32_t (*remote_token)(struct ndk_mr *mr);
	uint32_t (*local_token)(struct ndk_mr *mr);
	ndk_status_t (*initialize_fast_register)(struct ndk_mr *mr,
						 uint32_t page_count,
						 bool remote_access);
};

/** NDK_MW_DISPATCH. */
struct ndk_mw_dispatch {
	ndk_status_t (*close)(struct ndk_mw *mw, ndk_close_completion_fn done,
			      void *ctx);
	uint32_t (*remote_token)(struct ndk_mw *mw);
};

/** NDK_QP_DISPATCH (plus the connection-less state control). */
struct ndk_qp_dispatch {
	ndk_status_t (*close)(struct ndk_qp *qp, ndk_close_completion_fn done,
			      void *ctx);
	void (*flush)(struct ndk_qp *qp);
	ndk_status_t (*send)(struct ndk_qp *qp, void *ctx,
			     const struct ndk_sge *sgl, uint32_t nsge,
			     uint32_t flags);
	ndk_status_t (*receive)(struct ndk_qp *qp, void *ctx,
				const struct ndk_sge *sgl, uint32_t nsge);
	ndk_status_t (*read)(struct ndk_qp *qp, void *ctx,
			     const struct ndk_sge *sgl, uint32_t nsge,
			     uint64_t raddr, uint32_t rtoken, uint32_t flags);
	ndk_status_t (*write)(struct ndk_qp *qp, void *ctx,
			      const struct ndk_sge *sgl, uint32_t nsge,
			      uint64_t raddr, uint32_t rtoken, uint32_t flags);
	ndk_status_t (*modify)(struct ndk_qp *qp,
			       const struct ndk_qp_attr *attr, uint32_t mask);
	ndk_status_t (*query)(struct ndk_qp *qp, struct ndk_qp_attr *attr);
	ndk_status_t (*send_and_invalidate)(struct ndk_qp *qp, void *ctx,
					    const struct ndk_sge *sgl,
					    uint32_t nsge, uint32_t flags,
					    uint32_t remote_token);
	ndk_status_t (*fast_register)(struct ndk_qp *qp, void *ctx,
				      struct ndk_mr *mr, uint32_t page_count,
				      const uint64_t *pages, uint32_t fbo,
				      size_t length, uint64_t base_va,
				      uint32_t flags);
	ndk_status_t (*invalidate)(struct ndk_qp *qp, void *ctx,
				   struct ndk_object_header *mr_or_mw,
				   uint32_t flags);
	ndk_status_t (*bind)(struct ndk_qp *qp, void *ctx, struct ndk_mr *mr,
			     struct ndk_mw *mw, uint64_t va, size_t length,
			     uint32_t flags);
	void (*get_stats)(struct ndk_qp *qp, struct ndk_qp_stats *stats);
	/** ndk_receive_list(); NULL: libndk posts them one by one. */
	ndk_status_t (*receive_list)(struct ndk_qp *qp,
				     const struct ndk_receive_request *requests,
				     uint32_t count, uint32_t *posted);
};

/** NDK_CONNECTOR_DISPATCH. */
struct ndk_connector_dispatch {
	ndk_status_t (*close)(struct ndk_connector *c,
			      ndk_close_completion_fn done, void *ctx);
	ndk_status_t (*connect)(struct ndk_connector *c, struct ndk_qp *qp,
				const union ndk_sockaddr *src,
				const union ndk_sockaddr *dst, uint32_t ird,
				uint32_t ord, const void *pdata,
				uint32_t pdata_len,
				ndk_request_completion_fn done, void *ctx);
	ndk_status_t (*complete_connect)(struct ndk_connector *c,
					 ndk_disconnect_event_fn ev,
					 void *ev_ctx,
					 ndk_request_completion_fn done,
					 void *ctx);
	ndk_status_t (*accept)(struct ndk_connector *c, struct ndk_qp *qp,
			       uint32_t ird, uint32_t ord, const void *pdata,
			       uint32_t pdata_len, ndk_disconnect_event_fn ev,
			       void *ev_ctx, ndk_request_completion_fn done,
			       void *ctx);
	ndk_status_t (*reject)(struct ndk_connector *c, const void *pdata,
			       uint32_t pdata_len);
	ndk_status_t (*get_connection_data)(struct ndk_connector *c,
					    uint32_t *ird, uint32_t *ord,
					    void *pdata, uint32_t *pdata_len);
	ndk_status_t (*get_addresses)(struct ndk_connector *c,
				      union ndk_sockaddr *local,
				      union ndk_sockaddr *peer);
	ndk_status_t (*disconnect)(struct ndk_connector *c,
				   ndk_request_completion_fn done, void *ctx);
	/* NdkConnectWithSharedEndpoint: NULL, not supported. */
	ndk_status_t (*connect_shared)(struct ndk_connector *c,
				       struct ndk_qp *qp,
				       struct ndk_shared_endpoint *sep,
				       const union ndk_sockaddr *dst,
				       uint32_t ird, uint32_t ord,
				       const void *pdata, uint32_t pdata_len,
				       ndk_request_completion_fn done,
				       void *ctx);
};

/** NDK_SHARED_ENDPOINT_DISPATCH. */
struct ndk_shared_endpoint_dispatch {
	ndk_status_t (*close)(struct ndk_shared_endpoint *sep,
			      ndk_close_completion_fn done, void *ctx);
	ndk_status_t (*get_local_address)(struct ndk_shared_endpoint *sep,
					  union ndk_sockaddr *addr);
};

/** NDK_LISTENER_DISPATCH. */
struct ndk_listener_dispatch {
	ndk_status_t (*close)(struct ndk_listener *l,
			      ndk_close_completion_fn done, void *ctx);
	ndk_status_t (*listen)(struct ndk_listener *l,
			       const union ndk_sockaddr *addr);
	ndk_status_t (*get_local_address)(struct ndk_listener *l,
					  union ndk_sockaddr *addr);
	ndk_status_t (*control_connect_events)(struct ndk_listener *l,
					       bool pause);
};

/** An adapter object. */
struct ndk_adapter {
	struct ndk_object_header header;
	const struct ndk_adapter_dispatch *dispatch;
};

/** A completion queue object. */
struct ndk_cq {
	struct ndk_object_header header;
	const struct ndk_cq_dispatch *dispatch;
};

/** A protection domain object. */
struct ndk_pd {
	struct ndk_object_header header;
	const struct ndk_pd_dispatch *dispatch;
};

/** A memory region object. */
struct ndk_mr {
	struct ndk_object_header header;
	const struct ndk_mr_dispatch *dispatch;
};

/** A memory window object. */
struct ndk_mw {
	struct ndk_object_header header;
	const struct ndk_mw_dispatch *dispatch;
};

/** A connector object. */
struct ndk_connector {
	struct ndk_object_header header;
	const struct ndk_connector_dispatch *dispatch;
};

/** A listener object. */
struct ndk_listener {
	struct ndk_object_header header;
	const struct ndk_listener_dispatch *dispatch;
};

/** A shared endpoint object (a local address connectors share). */
struct ndk_shared_endpoint {
	struct ndk_object_header header;
	const struct ndk_shared_endpoint_dispatch *dispatch;
};

/** A shared receive queue object. */
struct ndk_srq {
	struct ndk_object_header header;
	const struct ndk_srq_dispatch *dispatch;
};

/** A queue pair object. */
struct ndk_qp {
	struct ndk_object_header header;
	const struct ndk_qp_dispatch *dispatch;
	uint32_t qpn;   /**< QP number, constant for the QP's life */
};

#endif /* NDK_CORE_H */
