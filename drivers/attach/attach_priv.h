/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ATTACH_PRIV_H
#define ATTACH_PRIV_H

/*
 * Inside the attach provider: the proxies and helpers shared by
 * attach.c (adapter, CQ, PD, MR, QP posting, rte_mp calls),
 * attach_conn.c (connectors, listeners, the event ring) and
 * attach_mem.c (FRMRs, memory windows, QP introspection).
 *
 * The daemon's objects behind the proxies are swroce's, in shared
 * memory: this driver posts and polls on them through swroce's export
 * header (swroce_shared.h) only, and knows nothing of their layout.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_spinlock.h>

#include "ndk_provider.h"
#include "ndk_attach_proto.h"
#include "swroce_shared.h"

#define ATT_MAX_CB 32

/* A callback owed to the application, delivered by its poll. */
struct att_cb {
	ndk_request_completion_fn req;
	ndk_close_completion_fn close;
	void *ctx;
	ndk_status_t st;
};

struct att_obj;

struct att_adapter {
	struct ndk_adapter pub;   /* must be first */
	uint64_t app;             /* our id at the daemon */
	struct ndk_adapter *sad;  /* the daemon's adapter (shared memory) */
	const struct ndk_attach_shm *shm; /* the daemon's liveness */
	uint64_t dead_tsc;        /* heartbeat older than this: look */
	uint64_t alive_tsc;       /* silent daemon's process seen alive */
	uint32_t silent;          /* a silence was logged (atomic) */
	uint32_t gone;            /* the daemon stopped or died (atomic) */
	struct ndk_attach_evq *evq; /* our event queue (shared memory) */
	uint32_t draining;        /* a poll is draining it (atomic) */
	rte_spinlock_t cb_lock;
	uint32_t n_cb;            /* atomic: poll looks without the lock */
	struct att_cb cb[ATT_MAX_CB];
	/* Closed proxies events may still name (cb_lock): freed once the
	 * event ring was seen empty after they closed. */
	struct att_obj *grave;
	/* Open proxies (cb_lock): ndk_adapter_close() frees them. */
	struct att_obj *live;
	/* Closed proxies whose close pends at the daemon (cb_lock): an
	 * EV_CLOSED event completes each (listener, shared endpoint, SRQ,
	 * CQ, PD, MR). */
	struct att_obj *pend;
	uint32_t srqs_dead;       /* SRQs told of the daemon's end (atomic) */
};

/* A proxy of a daemon object: this process's dispatch table. */
struct att_obj {
	union {
		struct ndk_object_header header;
		struct ndk_cq cq;
		struct ndk_pd pd;
		struct ndk_mr mr;
		struct ndk_mw mw;
		struct ndk_qp qp;
		struct ndk_srq srq;
		struct ndk_connector conn;
		struct ndk_listener lis;
		struct ndk_shared_endpoint sep;
	} pub;                    /* must be first */
	struct att_adapter *aa;
	uint64_t h;               /* the daemon's handle */
	void *shared;             /* the daemon's CQ/QP/MR/MW/SRQ (shared
				   * memory) */
	uint32_t ltok, rtok;      /* MR tokens */
	bool fast_register;       /* MR: a fast-register MR */
	/* Callbacks events name this proxy for (connect event, CQ or SRQ
	 * notification, disconnect event). */
	void *fn;
	void *fn_ctx;
	void *disc_fn;
	void *disc_ctx;
	ndk_close_completion_fn close_done; /* a close pending at the daemon */
	void *close_ctx;
	bool closed_early;        /* its EV_CLOSED polled before its close
				   * read the PENDING reply (cb_lock) */
	bool dead_told;           /* SRQ: told STATUS_INTERNAL_ERROR */
	struct att_obj *next;     /* grave list, pending-close list */
	struct att_obj *lnext;    /* live list */
	struct att_obj **lprev;
};

extern const struct ndk_mr_dispatch att_mr_ops;
extern const struct ndk_qp_dispatch att_qp_ops;
extern const struct ndk_cq_dispatch att_cq_ops;
extern const struct ndk_connector_dispatch att_conn_ops;
extern const struct ndk_shared_endpoint_dispatch att_sep_ops;

static inline struct att_adapter *
att_ad(struct ndk_adapter *a)
{
	return (struct att_adapter *)a;
}

static inline struct att_obj *
att_obj(void *o)
{
	return (struct att_obj *)o;
}

/* Mark the daemon gone (once, with a log message saying @p why). */
void att_set_gone(struct att_adapter *aa, const char *why);

/* Whether the daemon has stopped: its state word (data path). */
static inline bool
att_down(struct att_adapter *aa)
{
	if (likely(__atomic_load_n(&aa->shm->state, __ATOMIC_ACQUIRE) ==
		   NDK_ATTACH_UP))
		return __atomic_load_n(&aa->gone, __ATOMIC_RELAXED) != 0;
	att_set_gone(aa, "is stopping");
	return true;
}

/* One synchronous request to the daemon (STATUS_DEVICE_REMOVED once the
 * daemon stopped or died). */
ndk_status_t att_call(struct att_adapter *aa, struct ndk_attach_req *rq,
		      struct ndk_attach_rep *rp);

/* A proxy for daemon object @p handle at @p shared (NULL: no memory). */
struct att_obj *att_new(struct att_adapter *aa, enum ndk_object_type type,
			const void *ops, uint64_t handle, uint64_t shared);

/* Create an object at the daemon and its proxy here. */
ndk_status_t att_create(struct att_adapter *aa,
			struct ndk_attach_req *rq,
			enum ndk_object_type type, const void *ops,
			struct att_obj **out);

/* Close an object at the daemon; the completion comes with a poll. */
ndk_status_t att_close(void *obj, ndk_close_completion_fn done,
		       void *ctx);

/* Queue a callback for the application's next poll. */
ndk_status_t att_defer(struct att_adapter *aa, const struct att_cb *cb);

/* Deliver the events the daemon queued. @return events delivered. */
unsigned int att_events(struct att_adapter *aa);

/* Free the proxies in the grave list (adapter close). */
void att_graves_free(struct att_adapter *aa);

/* A close pending at the daemon is done (EV_CLOSED): its completion, and
 * the proxy freed. NULL @p o: every pending one (adapter close). */
void att_close_done(struct att_adapter *aa, struct att_obj *o);

/* The SRQs die with the daemon or the adapter: each open one's callback
 * is told STATUS_INTERNAL_ERROR once (as embedded: swr_srq_destroy). */
void att_srqs_dead(struct att_adapter *aa);

/* Put a new proxy on the adapter's live list. */
void att_link(struct att_obj *o);

/* attach_conn.c */
ndk_status_t att_create_listener(struct ndk_adapter *a,
				 ndk_connect_event_fn ev, void *ctx,
				 struct ndk_listener **l);
ndk_status_t att_create_cq(struct ndk_adapter *a, uint32_t depth,
			   ndk_cq_notify_fn notify, void *ctx,
			   struct ndk_cq **cq);
ndk_status_t att_create_evobj(struct att_adapter *aa,
			      struct ndk_attach_req *rq,
			      enum ndk_object_type type, const void *ops,
			      void *fn, void *ctx, struct att_obj **out);
ndk_status_t att_create_sep(struct ndk_adapter *a,
			    const union ndk_sockaddr *addr,
			    struct ndk_shared_endpoint **sep);
void att_cq_arm(struct ndk_cq *cq, uint32_t type);

/* attach_mem.c */
ndk_status_t att_create_mr(struct ndk_pd *pd, bool fast_register,
			   struct ndk_mr **mr);
ndk_status_t att_mr_init_fr(struct ndk_mr *mr, uint32_t pages,
			    bool remote);
uint32_t att_mr_token(struct ndk_mr *mr, bool remote);
ndk_status_t att_create_mw(struct ndk_pd *pd, struct ndk_mw **mw);
ndk_status_t att_fast_register(struct ndk_qp *qp, void *ctx,
			       struct ndk_mr *mr, uint32_t page_count,
			       const uint64_t *pages, uint32_t fbo,
			       size_t length, uint64_t base_va,
			       uint32_t flags);
ndk_status_t att_invalidate(struct ndk_qp *qp, void *ctx,
			    struct ndk_object_header *obj,
			    uint32_t flags);
ndk_status_t att_bind(struct ndk_qp *qp, void *ctx, struct ndk_mr *mr,
		      struct ndk_mw *mw, uint64_t va, size_t length,
		      uint32_t flags);
int att_qp_list(struct ndk_adapter *a, uint32_t *qpns, uint32_t max);
ndk_status_t att_qp_info(struct ndk_adapter *a, uint32_t qpn,
			 struct ndk_qp_info *info);

#endif /* ATTACH_PRIV_H */
