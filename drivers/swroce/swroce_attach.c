/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The "attach" provider: an application running as a DPDK secondary
 * process of ndk-roced uses the daemon's adapters. Control calls go to the
 * daemon over rte_mp (swroce_attach.h); posting and completions use the
 * swroce QPs and CQs in shared hugepage memory with swroce's own posting
 * code (swroce_post.c), through per-process proxy objects whose dispatch
 * tables are this process's. Request callbacks are delivered by
 * ndk_adapter_poll() of the attached adapter. Buffers come from the
 * application's heap in the daemon (ndk_adapter_alloc_buffer). Once the
 * daemon stops or dies (its state word and heartbeat, NDK_ATTACH_SHM_NAME)
 * every call returns STATUS_DEVICE_REMOVED. See doc/attach.md.
 */

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_memory.h>
#include <rte_memzone.h>
#include <rte_spinlock.h>
#include <rte_string_fns.h>

#include "swroce_priv.h"
#include "swroce_attach.h"

static_assert(sizeof(struct ndk_attach_req) <= RTE_MP_MAX_PARAM_LEN,
	      "attach request too large");
static_assert(sizeof(struct ndk_attach_rep) <= RTE_MP_MAX_PARAM_LEN,
	      "attach reply too large");

#define ATT_MAX_CB 32

/* A callback owed to the application, delivered by its poll. */
struct att_cb {
	ndk_request_completion_fn req;
	ndk_close_completion_fn close;
	void *ctx;
	ndk_status_t st;
};

struct att_adapter {
	struct ndk_adapter pub;   /* must be first */
	uint64_t app;             /* our id at the daemon */
	struct swr_adapter *sad;  /* the daemon's adapter (shared memory) */
	const struct ndk_attach_shm *shm; /* the daemon's liveness */
	uint64_t dead_tsc;        /* heartbeat older than this: dead */
	uint32_t gone;            /* the daemon stopped or died (atomic) */
	rte_spinlock_t cb_lock;
	uint32_t n_cb;            /* atomic: poll looks without the lock */
	struct att_cb cb[ATT_MAX_CB];
};

/* A proxy of a daemon object: this process's dispatch table. */
struct att_obj {
	union {
		struct ndk_object_header header;
		struct ndk_cq cq;
		struct ndk_pd pd;
		struct ndk_mr mr;
		struct ndk_qp qp;
		struct ndk_connector conn;
	} pub;                    /* must be first */
	struct att_adapter *aa;
	uint64_t h;               /* the daemon's handle */
	void *shared;             /* swr_cq / swr_qp in shared memory */
	uint32_t ltok, rtok;      /* MR tokens */
};

static const struct ndk_adapter_dispatch att_adapter_ops;
static const struct ndk_cq_dispatch att_cq_ops;
static const struct ndk_pd_dispatch att_pd_ops;
static const struct ndk_mr_dispatch att_mr_ops;
static const struct ndk_qp_dispatch att_qp_ops;
static const struct ndk_connector_dispatch att_conn_ops;

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

static inline struct swr_qp *
att_sqp(struct ndk_qp *q)
{
	return att_obj(q)->shared;
}

static void
att_set_gone(struct att_adapter *aa, const char *why)
{
	if (__atomic_exchange_n(&aa->gone, 1, __ATOMIC_RELAXED) == 0)
		NDK_LOG(ERR, "attach: the daemon %s: the adapter is removed, "
			"close everything and exit (a restarted daemon needs "
			"a new process)", why);
}

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

/* att_down(), or no heartbeat for NDK_ATTACH_DEAD_MS (it was killed). */
static ndk_status_t
att_health(struct ndk_adapter *a)
{
	struct att_adapter *aa = att_ad(a);
	uint64_t hb;

	if (att_down(aa))
		return NDK_STATUS_DEVICE_REMOVED;
	hb = __atomic_load_n(&aa->shm->heartbeat, __ATOMIC_ACQUIRE);
	if (unlikely((int64_t)(rte_get_timer_cycles() - hb) >
		     (int64_t)aa->dead_tsc)) {
		att_set_gone(aa, "gives no heartbeat");
		return NDK_STATUS_DEVICE_REMOVED;
	}
	return NDK_STATUS_SUCCESS;
}

/* One synchronous request to the daemon. */
static ndk_status_t
att_call(struct att_adapter *aa, struct ndk_attach_req *rq,
	 struct ndk_attach_rep *rp)
{
	struct timespec ts = { .tv_sec = NDK_ATTACH_TIMEOUT_S };
	struct rte_mp_reply r = { 0 };
	struct rte_mp_msg m;

	memset(&m, 0, sizeof(m));
	memset(rp, 0, sizeof(*rp));
	if (aa != NULL && att_health(&aa->pub) != NDK_STATUS_SUCCESS)
		return NDK_STATUS_DEVICE_REMOVED;
	rq->version = NDK_ATTACH_VERSION;
	rq->pid = (int32_t)getpid();
	rq->app = aa != NULL ? aa->app : 0;
	rte_strlcpy(m.name, NDK_ATTACH_MP_NAME, sizeof(m.name));
	memcpy(m.param, rq, sizeof(*rq));
	m.len_param = sizeof(*rq);
	if (rte_mp_request_sync(&m, &r, &ts) != 0 || r.nb_received != 1 ||
	    r.msgs[0].len_param != (int)sizeof(*rp)) {
		free(r.msgs);
		if (aa != NULL && (!rte_eal_primary_proc_alive(NULL) ||
				   att_down(aa))) {
			att_set_gone(aa, "has ended");
			return NDK_STATUS_DEVICE_REMOVED;
		}
		NDK_LOG(ERR, "attach: request %u: no answer from the daemon",
			rq->op);
		return NDK_STATUS_DEVICE_NOT_READY;
	}
	memcpy(rp, r.msgs[0].param, sizeof(*rp));
	free(r.msgs);
	return rp->status;
}

/* Queue a callback for the application's next poll. */
static ndk_status_t
att_defer(struct att_adapter *aa, const struct att_cb *cb)
{
	ndk_status_t st = NDK_STATUS_PENDING;

	rte_spinlock_lock(&aa->cb_lock);
	if (aa->n_cb < ATT_MAX_CB) {
		aa->cb[aa->n_cb] = *cb;
		__atomic_store_n(&aa->n_cb, aa->n_cb + 1, __ATOMIC_RELEASE);
	} else {
		st = NDK_STATUS_INSUFFICIENT_RESOURCES;
	}
	rte_spinlock_unlock(&aa->cb_lock);
	return st;
}

static unsigned int
att_poll(struct ndk_adapter *a)
{
	struct att_adapter *aa = att_ad(a);
	struct att_cb cb[ATT_MAX_CB];
	uint32_t n;

	att_health(a);   /* notices a stopped or dead daemon */
	if (likely(__atomic_load_n(&aa->n_cb, __ATOMIC_ACQUIRE) == 0))
		return 0;
	rte_spinlock_lock(&aa->cb_lock);
	n = aa->n_cb;
	memcpy(cb, aa->cb, n * sizeof(cb[0]));
	__atomic_store_n(&aa->n_cb, 0, __ATOMIC_RELEASE);
	rte_spinlock_unlock(&aa->cb_lock);
	for (uint32_t i = 0; i < n; i++) {
		if (cb[i].req != NULL)
			cb[i].req(cb[i].ctx, cb[i].st);
		else if (cb[i].close != NULL)
			cb[i].close(cb[i].ctx);
	}
	return n;
}

static struct att_obj *
att_new(struct att_adapter *aa, enum ndk_object_type type, const void *ops,
	const struct ndk_attach_rep *rp)
{
	struct att_obj *o = calloc(1, sizeof(*o));

	if (o == NULL)
		return NULL;
	ndk_object_header_init(&o->pub.header, type);
	/* Every object layout is { header, dispatch, ... }. */
	o->pub.pd.dispatch = ops;
	o->aa = aa;
	o->h = rp->handle;
	o->shared = (void *)(uintptr_t)rp->obj;
	return o;
}

/* Create an object at the daemon and its proxy here. */
static ndk_status_t
att_create(struct att_adapter *aa, struct ndk_attach_req *rq,
	   enum ndk_object_type type, const void *ops, struct att_obj **out)
{
	struct ndk_attach_rep rp;
	struct att_obj *o;
	ndk_status_t st = att_call(aa, rq, &rp);

	if (!NDK_SUCCESS(st))
		return st;
	o = att_new(aa, type, ops, &rp);
	if (o == NULL) {
		struct ndk_attach_req c = { .op = NDK_ATT_CLOSE };

		c.h[0] = rp.handle;
		att_call(aa, &c, &rp);
		return NDK_STATUS_NO_MEMORY;
	}
	if (type == NDK_OBJECT_TYPE_QP)
		o->pub.qp.qpn = rp.u[0];
	*out = o;
	return NDK_STATUS_SUCCESS;
}

/* Close an object at the daemon; the completion comes with a poll. */
static ndk_status_t
att_close(void *obj, ndk_close_completion_fn done, void *ctx)
{
	struct att_obj *o = att_obj(obj);
	struct ndk_attach_req rq = { .op = NDK_ATT_CLOSE };
	struct ndk_attach_rep rp;
	struct att_cb cb = { .close = done, .ctx = ctx };
	ndk_status_t st;

	rq.h[0] = o->h;
	st = att_call(o->aa, &rq, &rp);
	/* Removed: the daemon closed the object; free the proxy. */
	if (st == NDK_STATUS_DEVICE_REMOVED)
		st = NDK_STATUS_SUCCESS;
	if (!NDK_SUCCESS(st))
		return st;
	o->pub.header.type = 0;   /* a stale handle fails validation */
	if (done != NULL)
		st = att_defer(o->aa, &cb);
	free(o);
	return st == NDK_STATUS_PENDING ? NDK_STATUS_PENDING :
		NDK_STATUS_SUCCESS;
}

static ndk_status_t
att_not_supported(const char *what)
{
	NDK_LOG(ERR, "attach: %s is not supported by attached applications "
		"yet", what);
	return NDK_STATUS_NOT_SUPPORTED;
}

/* ------------------------------------------------------------------ */
/* Adapter                                                             */
/* ------------------------------------------------------------------ */

static ndk_status_t
att_query_info(struct ndk_adapter *a, struct ndk_adapter_info *info,
	       uint32_t *size)
{
	if (info == NULL || *size < sizeof(*info)) {
		*size = sizeof(*info);
		return NDK_STATUS_BUFFER_TOO_SMALL;
	}
	if (att_health(a) != NDK_STATUS_SUCCESS)
		return NDK_STATUS_DEVICE_REMOVED;
	*info = att_ad(a)->sad->info;   /* read-only after open */
	*size = sizeof(*info);
	return NDK_STATUS_SUCCESS;
}

static ndk_status_t
att_create_cq(struct ndk_adapter *a, uint32_t depth, ndk_cq_notify_fn notify,
	      void *ctx, struct ndk_cq **cq)
{
	struct ndk_attach_req rq = { .op = NDK_ATT_CREATE_CQ };

	RTE_SET_USED(ctx);
	if (notify != NULL)
		return att_not_supported("a CQ notification callback");
	rq.u[0] = depth;
	return att_create(att_ad(a), &rq, NDK_OBJECT_TYPE_CQ, &att_cq_ops,
			  (struct att_obj **)cq);
}

static ndk_status_t
att_create_pd(struct ndk_adapter *a, struct ndk_pd **pd)
{
	struct ndk_attach_req rq = { .op = NDK_ATT_CREATE_PD };

	return att_create(att_ad(a), &rq, NDK_OBJECT_TYPE_PD, &att_pd_ops,
			  (struct att_obj **)pd);
}

static ndk_status_t
att_create_connector(struct ndk_adapter *a, struct ndk_connector **c)
{
	struct ndk_attach_req rq = { .op = NDK_ATT_CREATE_CONNECTOR };

	return att_create(att_ad(a), &rq, NDK_OBJECT_TYPE_CONNECTOR,
			  &att_conn_ops, (struct att_obj **)c);
}

static ndk_status_t
att_create_listener(struct ndk_adapter *a, ndk_connect_event_fn ev,
		    void *ctx, struct ndk_listener **l)
{
	RTE_SET_USED(a);
	RTE_SET_USED(ev);
	RTE_SET_USED(ctx);
	RTE_SET_USED(l);
	return att_not_supported("a listener");
}

static void
att_adapter_close(struct ndk_adapter *a)
{
	struct att_adapter *aa = att_ad(a);
	struct ndk_attach_req rq = { .op = NDK_ATT_BYE };
	struct ndk_attach_rep rp;

	/* The daemon closes whatever the application left open. */
	if (att_health(a) == NDK_STATUS_SUCCESS)
		att_call(aa, &rq, &rp);
	aa->pub.header.type = 0;
	free(aa);
}

static void
att_release(struct ndk_adapter *a)
{
	RTE_SET_USED(a);
}

static void
att_get_stats(struct ndk_adapter *a, struct ndk_adapter_stats *stats)
{
	if (att_down(att_ad(a)))
		memset(stats, 0, sizeof(*stats));
	else
		*stats = att_ad(a)->sad->stats;   /* may lag by one poll */
}

/* Buffers come from the application's heap in the daemon. */
static ndk_status_t
att_alloc_buffer(struct ndk_adapter *a, size_t len, size_t align,
		 void **buf)
{
	struct ndk_attach_req rq = { .op = NDK_ATT_ALLOC };
	struct ndk_attach_rep rp;
	ndk_status_t st;

	if (align > UINT32_MAX)
		return NDK_STATUS_INVALID_PARAMETER;
	rq.len = len;
	rq.u[0] = (uint32_t)align;
	st = att_call(att_ad(a), &rq, &rp);
	if (NDK_SUCCESS(st))
		*buf = (void *)(uintptr_t)rp.obj;
	return st;
}

static ndk_status_t
att_free_buffer(struct ndk_adapter *a, void *buf)
{
	struct ndk_attach_req rq = { .op = NDK_ATT_FREE };
	struct ndk_attach_rep rp;

	rq.va = (uintptr_t)buf;
	return att_call(att_ad(a), &rq, &rp);
}

static const struct ndk_adapter_dispatch att_adapter_ops = {
	.query_adapter_info = att_query_info,
	.create_cq = att_create_cq,
	.create_pd = att_create_pd,
	.close = att_adapter_close,
	.poll = att_poll,
	.release = att_release,
	.get_stats = att_get_stats,
	.create_connector = att_create_connector,
	.create_listener = att_create_listener,
	.alloc_buffer = att_alloc_buffer,
	.free_buffer = att_free_buffer,
	.health = att_health,
};

/* ------------------------------------------------------------------ */
/* CQ: the shared completion ring, read here                           */
/* ------------------------------------------------------------------ */

static void
att_cq_arm(struct ndk_cq *cq, uint32_t type)
{
	RTE_SET_USED(cq);
	RTE_SET_USED(type);   /* no notification callbacks: nothing to arm */
}

static uint32_t
att_cq_results(struct ndk_cq *cq, struct ndk_result *r, uint32_t n)
{
	struct swr_cq *s = att_obj(cq)->shared;

	if (unlikely(att_down(att_obj(cq)->aa)))
		return 0;
	return swr_cq_get_results(&s->pub, r, n);
}

static uint32_t
att_cq_results_ex(struct ndk_cq *cq, struct ndk_result_ex *r, uint32_t n)
{
	struct swr_cq *s = att_obj(cq)->shared;

	if (unlikely(att_down(att_obj(cq)->aa)))
		return 0;
	return swr_cq_get_results_ex(&s->pub, r, n);
}

static ndk_status_t
att_cq_close(struct ndk_cq *cq, ndk_close_completion_fn done, void *ctx)
{
	return att_close(cq, done, ctx);
}

static const struct ndk_cq_dispatch att_cq_ops = {
	.close = att_cq_close,
	.arm = att_cq_arm,
	.get_results = att_cq_results,
	.get_results_ex = att_cq_results_ex,
};

/* ------------------------------------------------------------------ */
/* PD and MR                                                           */
/* ------------------------------------------------------------------ */

static ndk_status_t
att_pd_close(struct ndk_pd *pd, ndk_close_completion_fn done, void *ctx)
{
	return att_close(pd, done, ctx);
}

static ndk_status_t
att_create_mr(struct ndk_pd *pd, bool fast_register, struct ndk_mr **mr)
{
	struct ndk_attach_req rq = { .op = NDK_ATT_CREATE_MR };

	if (fast_register)
		return att_not_supported("a fast-register MR");
	rq.h[0] = att_obj(pd)->h;
	return att_create(att_obj(pd)->aa, &rq, NDK_OBJECT_TYPE_MR,
			  &att_mr_ops, (struct att_obj **)mr);
}

static ndk_status_t
att_create_qp(struct ndk_pd *pd, struct ndk_cq *rcq, struct ndk_cq *icq,
	      void *qp_context, uint32_t rq_depth, uint32_t iq_depth,
	      uint32_t max_rsge, uint32_t max_isge, uint32_t inline_size,
	      struct ndk_qp **qp)
{
	struct ndk_attach_req rq = { .op = NDK_ATT_CREATE_QP };

	if (rcq->dispatch != &att_cq_ops || icq->dispatch != &att_cq_ops)
		return NDK_STATUS_INVALID_HANDLE;
	rq.h[0] = att_obj(pd)->h;
	rq.h[1] = att_obj(rcq)->h;
	rq.h[2] = att_obj(icq)->h;
	rq.ctx = (uintptr_t)qp_context;
	rq.u[0] = rq_depth;
	rq.u[1] = iq_depth;
	rq.u[2] = max_rsge;
	rq.u[3] = max_isge;
	rq.u[4] = inline_size;
	return att_create(att_obj(pd)->aa, &rq, NDK_OBJECT_TYPE_QP,
			  &att_qp_ops, (struct att_obj **)qp);
}

static ndk_status_t
att_create_mw(struct ndk_pd *pd, struct ndk_mw **mw)
{
	RTE_SET_USED(pd);
	RTE_SET_USED(mw);
	return att_not_supported("a memory window");
}

static const struct ndk_pd_dispatch att_pd_ops = {
	.close = att_pd_close,
	.create_mr = att_create_mr,
	.create_qp = att_create_qp,
	.create_mw = att_create_mw,
};

static ndk_status_t
att_mr_close(struct ndk_mr *mr, ndk_close_completion_fn done, void *ctx)
{
	return att_close(mr, done, ctx);
}

static ndk_status_t
att_register_mr(struct ndk_mr *mr, void *va, size_t len, uint32_t flags)
{
	struct att_obj *o = att_obj(mr);
	struct ndk_attach_req rq = { .op = NDK_ATT_REGISTER_MR };
	struct ndk_attach_rep rp;
	ndk_status_t st;

	rq.h[0] = o->h;
	rq.va = (uintptr_t)va;
	rq.len = len;
	rq.u[0] = flags;
	st = att_call(o->aa, &rq, &rp);
	if (NDK_SUCCESS(st)) {
		o->ltok = rp.u[0];
		o->rtok = rp.u[1];
	}
	return st;
}

static ndk_status_t
att_deregister_mr(struct ndk_mr *mr)
{
	struct att_obj *o = att_obj(mr);
	struct ndk_attach_req rq = { .op = NDK_ATT_DEREGISTER_MR };
	struct ndk_attach_rep rp;

	rq.h[0] = o->h;
	o->ltok = 0;
	o->rtok = 0;
	return att_call(o->aa, &rq, &rp);
}

static uint32_t
att_mr_rtok(struct ndk_mr *mr)
{
	return att_obj(mr)->rtok;
}

static uint32_t
att_mr_ltok(struct ndk_mr *mr)
{
	return att_obj(mr)->ltok;
}

static ndk_status_t
att_mr_init_fr(struct ndk_mr *mr, uint32_t pages, bool remote)
{
	RTE_SET_USED(mr);
	RTE_SET_USED(pages);
	RTE_SET_USED(remote);
	return att_not_supported("a fast-register MR");
}

static const struct ndk_mr_dispatch att_mr_ops = {
	.close = att_mr_close,
	.register_mr = att_register_mr,
	.deregister_mr = att_deregister_mr,
	.remote_token = att_mr_rtok,
	.local_token = att_mr_ltok,
	.initialize_fast_register = att_mr_init_fr,
};

/* ------------------------------------------------------------------ */
/* QP: posting on the shared rings with swroce's code                  */
/* ------------------------------------------------------------------ */

static ndk_status_t
att_qp_close(struct ndk_qp *qp, ndk_close_completion_fn done, void *ctx)
{
	return att_close(qp, done, ctx);
}

static void
att_flush(struct ndk_qp *qp)
{
	if (likely(!att_down(att_obj(qp)->aa)))
		swr_post_flush(&att_sqp(qp)->pub);
}

static ndk_status_t
att_send(struct ndk_qp *qp, void *ctx, const struct ndk_sge *sgl,
	 uint32_t nsge, uint32_t flags)
{
	if (unlikely(att_down(att_obj(qp)->aa)))
		return NDK_STATUS_DEVICE_REMOVED;
	return swr_post_send(&att_sqp(qp)->pub, ctx, sgl, nsge, flags);
}

static ndk_status_t
att_receive(struct ndk_qp *qp, void *ctx, const struct ndk_sge *sgl,
	    uint32_t nsge)
{
	if (unlikely(att_down(att_obj(qp)->aa)))
		return NDK_STATUS_DEVICE_REMOVED;
	return swr_post_receive(&att_sqp(qp)->pub, ctx, sgl, nsge);
}

static ndk_status_t
att_read(struct ndk_qp *qp, void *ctx, const struct ndk_sge *sgl,
	 uint32_t nsge, uint64_t raddr, uint32_t rtoken, uint32_t flags)
{
	if (unlikely(att_down(att_obj(qp)->aa)))
		return NDK_STATUS_DEVICE_REMOVED;
	return swr_post_read(&att_sqp(qp)->pub, ctx, sgl, nsge, raddr, rtoken,
			     flags);
}

static ndk_status_t
att_write(struct ndk_qp *qp, void *ctx, const struct ndk_sge *sgl,
	  uint32_t nsge, uint64_t raddr, uint32_t rtoken, uint32_t flags)
{
	if (unlikely(att_down(att_obj(qp)->aa)))
		return NDK_STATUS_DEVICE_REMOVED;
	return swr_post_write(&att_sqp(qp)->pub, ctx, sgl, nsge, raddr,
			      rtoken, flags);
}

static ndk_status_t
att_send_inv(struct ndk_qp *qp, void *ctx, const struct ndk_sge *sgl,
	     uint32_t nsge, uint32_t flags, uint32_t token)
{
	if (unlikely(att_down(att_obj(qp)->aa)))
		return NDK_STATUS_DEVICE_REMOVED;
	return swr_post_send_inv(&att_sqp(qp)->pub, ctx, sgl, nsge, flags,
				 token);
}

static ndk_status_t
att_modify(struct ndk_qp *qp, const struct ndk_qp_attr *attr, uint32_t mask)
{
	struct att_obj *o = att_obj(qp);
	struct ndk_attach_req rq = { .op = NDK_ATT_QP_MODIFY };
	struct ndk_attach_rep rp;

	rq.h[0] = o->h;
	rq.attr = *attr;
	rq.u[0] = mask;
	return att_call(o->aa, &rq, &rp);
}

static ndk_status_t
att_query(struct ndk_qp *qp, struct ndk_qp_attr *attr)
{
	struct att_obj *o = att_obj(qp);
	struct ndk_attach_req rq = { .op = NDK_ATT_QP_QUERY };
	struct ndk_attach_rep rp;
	ndk_status_t st;

	rq.h[0] = o->h;
	st = att_call(o->aa, &rq, &rp);
	if (NDK_SUCCESS(st))
		*attr = rp.attr;
	return st;
}

static ndk_status_t
att_fast_register(struct ndk_qp *qp, void *ctx, struct ndk_mr *mr,
		  uint32_t page_count, const uint64_t *pages, uint32_t fbo,
		  size_t length, uint64_t base_va, uint32_t flags)
{
	RTE_SET_USED(qp);
	RTE_SET_USED(ctx);
	RTE_SET_USED(mr);
	RTE_SET_USED(page_count);
	RTE_SET_USED(pages);
	RTE_SET_USED(fbo);
	RTE_SET_USED(length);
	RTE_SET_USED(base_va);
	RTE_SET_USED(flags);
	return att_not_supported("FastRegister");
}

static ndk_status_t
att_invalidate(struct ndk_qp *qp, void *ctx, struct ndk_object_header *obj,
	       uint32_t flags)
{
	RTE_SET_USED(qp);
	RTE_SET_USED(ctx);
	RTE_SET_USED(obj);
	RTE_SET_USED(flags);
	return att_not_supported("Invalidate");
}

static ndk_status_t
att_bind(struct ndk_qp *qp, void *ctx, struct ndk_mr *mr, struct ndk_mw *mw,
	 uint64_t va, size_t length, uint32_t flags)
{
	RTE_SET_USED(qp);
	RTE_SET_USED(ctx);
	RTE_SET_USED(mr);
	RTE_SET_USED(mw);
	RTE_SET_USED(va);
	RTE_SET_USED(length);
	RTE_SET_USED(flags);
	return att_not_supported("Bind");
}

static void
att_qp_stats(struct ndk_qp *qp, struct ndk_qp_stats *stats)
{
	if (att_down(att_obj(qp)->aa))
		memset(stats, 0, sizeof(*stats));
	else
		swr_post_get_stats(&att_sqp(qp)->pub, stats);
}

static const struct ndk_qp_dispatch att_qp_ops = {
	.close = att_qp_close,
	.flush = att_flush,
	.send = att_send,
	.receive = att_receive,
	.read = att_read,
	.write = att_write,
	.modify = att_modify,
	.query = att_query,
	.send_and_invalidate = att_send_inv,
	.fast_register = att_fast_register,
	.invalidate = att_invalidate,
	.bind = att_bind,
	.get_stats = att_qp_stats,
};

/* ------------------------------------------------------------------ */
/* Connector: the daemon runs the CM; we wait for each step            */
/* ------------------------------------------------------------------ */

static ndk_status_t
att_conn_close(struct ndk_connector *c, ndk_close_completion_fn done,
	       void *ctx)
{
	return att_close(c, done, ctx);
}

/* A CM step the daemon waits for; its result comes with a poll. */
static ndk_status_t
att_conn_step(struct att_obj *o, struct ndk_attach_req *rq,
	      ndk_request_completion_fn done, void *ctx)
{
	struct ndk_attach_rep rp;
	struct att_cb cb = { .req = done, .ctx = ctx };

	rq->h[0] = o->h;
	cb.st = att_call(o->aa, rq, &rp);
	/* Failed before the daemon acted: no callback. */
	if (cb.st == NDK_STATUS_DEVICE_NOT_READY ||
	    cb.st == NDK_STATUS_DEVICE_REMOVED)
		return cb.st;
	return att_defer(o->aa, &cb);
}

static ndk_status_t
att_connect(struct ndk_connector *c, struct ndk_qp *qp,
	    const struct sockaddr_in *src, const struct sockaddr_in *dst,
	    uint32_t ird, uint32_t ord, const void *pdata, uint32_t pdata_len,
	    ndk_request_completion_fn done, void *ctx)
{
	struct ndk_attach_req rq = { .op = NDK_ATT_CONNECT };

	if (qp->dispatch != &att_qp_ops)
		return NDK_STATUS_INVALID_HANDLE;
	if (pdata_len > NDK_ATTACH_PDATA_MAX)
		return NDK_STATUS_INVALID_BUFFER_SIZE;
	rq.h[1] = att_obj(qp)->h;
	rq.addr.src_ip = src->sin_addr.s_addr;
	rq.addr.src_port = src->sin_port;
	rq.addr.dst_ip = dst->sin_addr.s_addr;
	rq.addr.dst_port = dst->sin_port;
	rq.addr.pdata_len = pdata_len;
	if (pdata_len != 0)
		memcpy(rq.addr.pdata, pdata, pdata_len);
	rq.u[0] = ird;
	rq.u[1] = ord;
	return att_conn_step(att_obj(c), &rq, done, ctx);
}

static ndk_status_t
att_complete_connect(struct ndk_connector *c, ndk_disconnect_event_fn ev,
		     void *ev_ctx, ndk_request_completion_fn done, void *ctx)
{
	struct ndk_attach_req rq = { .op = NDK_ATT_COMPLETE_CONNECT };

	if (ev != NULL)
		return att_not_supported("a disconnect event callback");
	RTE_SET_USED(ev_ctx);
	return att_conn_step(att_obj(c), &rq, done, ctx);
}

static ndk_status_t
att_disconnect(struct ndk_connector *c, ndk_request_completion_fn done,
	       void *ctx)
{
	struct ndk_attach_req rq = { .op = NDK_ATT_DISCONNECT };

	return att_conn_step(att_obj(c), &rq, done, ctx);
}

static ndk_status_t
att_accept(struct ndk_connector *c, struct ndk_qp *qp, uint32_t ird,
	   uint32_t ord, const void *pdata, uint32_t pdata_len,
	   ndk_disconnect_event_fn ev, void *ev_ctx,
	   ndk_request_completion_fn done, void *ctx)
{
	RTE_SET_USED(c);
	RTE_SET_USED(qp);
	RTE_SET_USED(ird);
	RTE_SET_USED(ord);
	RTE_SET_USED(pdata);
	RTE_SET_USED(pdata_len);
	RTE_SET_USED(ev);
	RTE_SET_USED(ev_ctx);
	RTE_SET_USED(done);
	RTE_SET_USED(ctx);
	return att_not_supported("Accept");
}

static ndk_status_t
att_reject(struct ndk_connector *c, const void *pdata, uint32_t pdata_len)
{
	RTE_SET_USED(c);
	RTE_SET_USED(pdata);
	RTE_SET_USED(pdata_len);
	return att_not_supported("Reject");
}

static ndk_status_t
att_conn_data(struct ndk_connector *c, uint32_t *ird, uint32_t *ord,
	      void *pdata, uint32_t *pdata_len)
{
	RTE_SET_USED(c);
	RTE_SET_USED(ird);
	RTE_SET_USED(ord);
	RTE_SET_USED(pdata);
	RTE_SET_USED(pdata_len);
	return att_not_supported("GetConnectionData");
}

static ndk_status_t
att_conn_addresses(struct ndk_connector *c, struct sockaddr_in *local,
		   struct sockaddr_in *peer)
{
	RTE_SET_USED(c);
	RTE_SET_USED(local);
	RTE_SET_USED(peer);
	return att_not_supported("connector addresses");
}

static const struct ndk_connector_dispatch att_conn_ops = {
	.close = att_conn_close,
	.connect = att_connect,
	.complete_connect = att_complete_connect,
	.accept = att_accept,
	.reject = att_reject,
	.get_connection_data = att_conn_data,
	.get_addresses = att_conn_addresses,
	.disconnect = att_disconnect,
};

/* ------------------------------------------------------------------ */
/* Open                                                                */
/* ------------------------------------------------------------------ */

static ndk_status_t
att_open(const struct ndk_adapter_config *config, struct ndk_adapter **out)
{
	struct ndk_attach_req rq = { .op = NDK_ATT_HELLO };
	struct ndk_attach_rep rp;
	const struct rte_memzone *mz;
	struct att_adapter *aa;
	ndk_status_t st;

	if (rte_eal_process_type() != RTE_PROC_SECONDARY) {
		NDK_LOG(ERR, "attach: an attached application runs as a DPDK "
			"secondary process (--proc-type=secondary and the "
			"daemon's --file-prefix)");
		return NDK_STATUS_INVALID_DEVICE_REQUEST;
	}
	if (rte_eth_dev_get_name_by_port(config->port_id, rq.name) != 0) {
		NDK_LOG(ERR, "attach: no ethdev port %u", config->port_id);
		return NDK_STATUS_INVALID_PARAMETER;
	}
	mz = rte_memzone_lookup(NDK_ATTACH_SHM_NAME);
	if (mz == NULL) {
		NDK_LOG(ERR, "attach: the primary process shares no %s: not "
			"an ndk-roced serving applications",
			NDK_ATTACH_SHM_NAME);
		return NDK_STATUS_DEVICE_NOT_READY;
	}
	aa = calloc(1, sizeof(*aa));
	if (aa == NULL)
		return NDK_STATUS_NO_MEMORY;
	st = att_call(NULL, &rq, &rp);
	if (!NDK_SUCCESS(st)) {
		NDK_LOG(ERR, "attach: the daemon refused adapter %s: %s",
			rq.name, ndk_status_str(st));
		free(aa);
		return st;
	}
	aa->shm = mz->addr;
	/* Missing heartbeats: NDK_ATTACH_DEAD_MS, at least 20 periods. */
	aa->dead_tsc = rte_get_timer_hz() / 1000 *
		RTE_MAX((uint64_t)NDK_ATTACH_DEAD_MS,
			20 * (uint64_t)aa->shm->heartbeat_ms);
	ndk_object_header_init(&aa->pub.header, NDK_OBJECT_TYPE_ADAPTER);
	aa->pub.dispatch = &att_adapter_ops;
	aa->app = rp.handle;
	aa->sad = (struct swr_adapter *)(uintptr_t)rp.obj;
	rte_spinlock_init(&aa->cb_lock);
	*out = &aa->pub;
	return NDK_STATUS_SUCCESS;
}

static struct ndk_provider att_provider = {
	.name = "attach",
	.open = att_open,
};

RTE_INIT(att_register)
{
	ndk_provider_register(&att_provider);
}
