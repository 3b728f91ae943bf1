/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The "attach" provider: an application running as a DPDK secondary
 * process of ndk-roced uses the daemon's adapters. Control calls go to the
 * daemon over rte_mp (include/ndk_attach_proto.h); posting and
 * completions use the swroce QPs and CQs in shared hugepage memory with
 * swroce's own code (swroce_shared.h), through per-process proxy objects
 * whose dispatch tables are this process's. Request callbacks are delivered by
 * ndk_adapter_poll() of the attached adapter. Buffers come from the
 * application's heap in the daemon (ndk_adapter_alloc_buffer). Once the
 * daemon stops or dies (its state word and heartbeat, NDK_ATTACH_SHM_NAME)
 * every call returns STATUS_DEVICE_REMOVED. See doc/attach.md.
 */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_memory.h>
#include <rte_memzone.h>
#include <rte_spinlock.h>
#include <rte_string_fns.h>

#include "attach_priv.h"

static const struct ndk_adapter_dispatch att_adapter_ops;
static const struct ndk_pd_dispatch att_pd_ops;

/* The daemon's swroce QP behind a proxy. */
static inline struct ndk_qp *
att_sqp(struct ndk_qp *q)
{
	return att_obj(q)->shared;
}

void
att_set_gone(struct att_adapter *aa, const char *why)
{
	if (__atomic_exchange_n(&aa->gone, 1, __ATOMIC_RELAXED) == 0)
		NDK_LOG(ERR, "attach: the daemon %s: the adapter is removed, "
			"close everything and exit (a restarted daemon needs "
			"a new process)", why);
}

/*
 * No heartbeat for NDK_ATTACH_DEAD_MS: dead if its process has ended (it
 * was killed). A daemon whose process lives is slow, not dead: its main
 * thread was descheduled on a loaded machine, or the process is stopped,
 * and it serves again once it runs. Looked at again a period later, so
 * the look (a few system calls) is rare.
 */
static __rte_noinline ndk_status_t
att_silent(struct att_adapter *aa, uint64_t now, uint64_t hb)
{
	if ((int64_t)(now - __atomic_load_n(&aa->alive_tsc,
					    __ATOMIC_RELAXED)) <=
	    (int64_t)aa->dead_tsc)
		return NDK_STATUS_SUCCESS;
	if (!rte_eal_primary_proc_alive(NULL)) {
		att_set_gone(aa, "gives no heartbeat and has ended");
		return NDK_STATUS_DEVICE_REMOVED;
	}
	__atomic_store_n(&aa->alive_tsc, now, __ATOMIC_RELAXED);
	if (__atomic_exchange_n(&aa->silent, 1, __ATOMIC_RELAXED) == 0)
		NDK_LOG(NOTICE, "attach: no heartbeat from the daemon for "
			"%" PRIu64 " ms, but its process lives: waiting for it",
			(now - hb) * 1000 / rte_get_timer_hz());
	return NDK_STATUS_SUCCESS;
}

/* att_down(), or no heartbeat and no daemon process (it was killed). */
static ndk_status_t
att_health(struct ndk_adapter *a)
{
	struct att_adapter *aa = att_ad(a);
	uint64_t hb, now;

	if (att_down(aa))
		return NDK_STATUS_DEVICE_REMOVED;
	hb = __atomic_load_n(&aa->shm->heartbeat, __ATOMIC_ACQUIRE);
	now = rte_get_timer_cycles();
	if (unlikely((int64_t)(now - hb) > (int64_t)aa->dead_tsc))
		return att_silent(aa, now, hb);
	if (unlikely(__atomic_load_n(&aa->silent, __ATOMIC_RELAXED) != 0)) {
		__atomic_store_n(&aa->silent, 0, __ATOMIC_RELAXED);
		NDK_LOG(NOTICE, "attach: the daemon's heartbeat is back");
	}
	return NDK_STATUS_SUCCESS;
}

/*
 * Take reply @p m to request @p rq into @p rp (@p rlen bytes for its
 * code). A daemon of another protocol version is said clearly.
 */
static ndk_status_t
att_reply(const struct ndk_attach_req *rq, const struct rte_mp_msg *m,
	  struct ndk_attach_rep *rp, uint32_t rlen)
{
	struct ndk_attach_rep_hdr h;

	if (m->len_param < (int)sizeof(h)) {
		NDK_LOG(ERR, "attach: request %u: a reply of %d bytes from the "
			"daemon", rq->hdr.op, m->len_param);
		return NDK_STATUS_DEVICE_NOT_READY;
	}
	memcpy(&h, m->param, sizeof(h));
	if (h.version != NDK_ATTACH_VERSION ||
	    h.status == NDK_STATUS_BAD_VERSION) {
		NDK_LOG(ERR, "attach: the daemon speaks attach protocol "
			"version %u, this provider version %u: refused (the "
			"application must be built with the daemon's ndk-roce)",
			h.version, NDK_ATTACH_VERSION);
		return NDK_STATUS_BAD_VERSION;
	}
	if (m->len_param != (int)rlen || h.len != rlen ||
	    h.op != rq->hdr.op) {
		NDK_LOG(ERR, "attach: request %u: reply %u of %d bytes (header: "
			"%u) from the daemon, %u expected: %s", rq->hdr.op,
			h.op, m->len_param, h.len, rlen,
			ndk_status_str(h.status));
		return NDK_STATUS_DEVICE_NOT_READY;
	}
	memcpy(rp, m->param, rlen);
	return rp->hdr.status;
}

ndk_status_t
att_call(struct att_adapter *aa, struct ndk_attach_req *rq,
	 struct ndk_attach_rep *rp)
{
	struct timespec ts = { .tv_sec = NDK_ATTACH_TIMEOUT_S };
	struct rte_mp_reply r = { 0 };
	struct rte_mp_msg m;
	ndk_status_t st;
	uint32_t rlen;

	memset(&m, 0, sizeof(m));
	memset(rp, 0, sizeof(*rp));
	if (aa != NULL && att_health(&aa->pub) != NDK_STATUS_SUCCESS)
		return NDK_STATUS_DEVICE_REMOVED;
	rq->hdr.version = NDK_ATTACH_VERSION;
	rq->hdr.len = ndk_attach_req_len(rq->hdr.op);
	rq->hdr.pid = (int32_t)getpid();
	rq->hdr.app = aa != NULL ? aa->app : 0;
	rlen = ndk_attach_rep_len(rq->hdr.op);
	rte_strlcpy(m.name, NDK_ATTACH_MP_NAME, sizeof(m.name));
	memcpy(m.param, rq, rq->hdr.len);
	m.len_param = (int)rq->hdr.len;
	if (rte_mp_request_sync(&m, &r, &ts) != 0 || r.nb_received != 1) {
		free(r.msgs);
		if (aa != NULL && (!rte_eal_primary_proc_alive(NULL) ||
				   att_down(aa))) {
			att_set_gone(aa, "has ended");
			return NDK_STATUS_DEVICE_REMOVED;
		}
		NDK_LOG(ERR, "attach: request %u: no answer from the daemon",
			rq->hdr.op);
		return NDK_STATUS_DEVICE_NOT_READY;
	}
	st = att_reply(rq, &r.msgs[0], rp, rlen);
	free(r.msgs);
	return st;
}

ndk_status_t
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

	/* A stopped or dead daemon: its event ring may be freed already;
	 * no more events (the proxies' own close completions still come),
	 * and the SRQs died with it. */
	if (likely(att_health(a) == NDK_STATUS_SUCCESS)) {
		n = att_events(aa);
	} else {
		n = 0;
		att_srqs_dead(aa);
	}
	if (likely(__atomic_load_n(&aa->n_cb, __ATOMIC_ACQUIRE) == 0))
		return n;
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
	return n + (att_down(aa) ? 0 : att_events(aa));
}

struct att_obj *
att_new(struct att_adapter *aa, enum ndk_object_type type, const void *ops,
	uint64_t handle, uint64_t shared)
{
	struct att_obj *o = calloc(1, sizeof(*o));

	if (o == NULL)
		return NULL;
	ndk_object_header_init(&o->pub.header, type);
	/* Every object layout is { header, dispatch, ... }. */
	o->pub.pd.dispatch = ops;
	o->aa = aa;
	o->h = handle;
	o->shared = (void *)(uintptr_t)shared;
	att_link(o);
	return o;
}

void
att_link(struct att_obj *o)
{
	struct att_adapter *aa = o->aa;

	rte_spinlock_lock(&aa->cb_lock);
	o->lnext = aa->live;
	if (aa->live != NULL)
		aa->live->lprev = &o->lnext;
	o->lprev = &aa->live;
	aa->live = o;
	rte_spinlock_unlock(&aa->cb_lock);
}

ndk_status_t
att_create(struct att_adapter *aa, struct ndk_attach_req *rq,
	   enum ndk_object_type type, const void *ops, struct att_obj **out)
{
	struct ndk_attach_rep rp;
	struct att_obj *o;
	uint64_t h, obj;
	ndk_status_t st = att_call(aa, rq, &rp);

	if (!NDK_SUCCESS(st))
		return st;
	if (rq->hdr.op == NDK_ATT_CREATE_QP) {
		h = rp.create_qp.handle;
		obj = rp.create_qp.obj;
	} else {
		h = rp.new_obj.handle;
		obj = rp.new_obj.obj;
	}
	o = att_new(aa, type, ops, h, obj);
	if (o == NULL) {
		struct ndk_attach_req c = { .hdr.op = NDK_ATT_CLOSE };

		c.obj.h = h;
		att_call(aa, &c, &rp);
		return NDK_STATUS_NO_MEMORY;
	}
	if (type == NDK_OBJECT_TYPE_QP)
		o->pub.qp.qpn = rp.create_qp.qpn;
	*out = o;
	return NDK_STATUS_SUCCESS;
}

ndk_status_t
att_close(void *obj, ndk_close_completion_fn done, void *ctx)
{
	struct att_obj *o = att_obj(obj);
	struct ndk_attach_req rq = { .hdr.op = NDK_ATT_CLOSE };
	struct ndk_attach_rep rp;
	struct att_cb cb = { .close = done, .ctx = ctx };
	ndk_status_t st;

	rq.obj.h = o->h;
	st = att_call(o->aa, &rq, &rp);
	/* Removed: the daemon closed the object; free the proxy. */
	if (st == NDK_STATUS_DEVICE_REMOVED)
		st = NDK_STATUS_SUCCESS;
	if (st == NDK_STATUS_PENDING) {
		/* Successors still open at the daemon (a listener's
		 * connectors, an endpoint's, the QPs on an SRQ, CQ or PD,
		 * a PD's MRs) or frames sent from an MR still out: EV_CLOSED
		 * completes it (NDK: done, if any, is its last callback). */
		rte_spinlock_lock(&o->aa->cb_lock);
		if (!o->closed_early) {
			o->pub.header.type = 0;
			o->close_done = done;
			o->close_ctx = ctx;
			*o->lprev = o->lnext;     /* off the live list */
			if (o->lnext != NULL)
				o->lnext->lprev = o->lprev;
			o->next = o->aa->pend;
			o->aa->pend = o;
			rte_spinlock_unlock(&o->aa->cb_lock);
			return NDK_STATUS_PENDING;
		}
		rte_spinlock_unlock(&o->aa->cb_lock);
		/* Another thread's poll took its EV_CLOSED already (the
		 * daemon's close completed before this reply was read):
		 * done, completed from the next poll as below. */
		st = NDK_STATUS_SUCCESS;
	}
	if (!NDK_SUCCESS(st))
		return st;
	o->pub.header.type = 0;   /* a stale handle fails validation */
	if (done != NULL)
		st = att_defer(o->aa, &cb);
	/* Queued events may name it: free it once the ring was empty. */
	rte_spinlock_lock(&o->aa->cb_lock);
	*o->lprev = o->lnext;             /* off the live list */
	if (o->lnext != NULL)
		o->lnext->lprev = o->lprev;
	o->next = o->aa->grave;
	__atomic_store_n(&o->aa->grave, o, __ATOMIC_RELEASE);
	rte_spinlock_unlock(&o->aa->cb_lock);
	return st == NDK_STATUS_PENDING ? NDK_STATUS_PENDING :
		NDK_STATUS_SUCCESS;
}

void
att_close_done(struct att_adapter *aa, struct att_obj *o)
{
	struct att_obj **pp;

	if (o == NULL) {          /* adapter close: every pending one */
		while (aa->pend != NULL) {
			o = aa->pend;
			aa->pend = o->next;
			if (o->close_done != NULL)
				o->close_done(o->close_ctx);
			free(o);
		}
		return;
	}
	rte_spinlock_lock(&aa->cb_lock);
	for (pp = &aa->pend; *pp != NULL && *pp != o; pp = &(*pp)->next)
		;
	if (*pp == NULL) {
		/* Its close has not seen its reply yet (another thread):
		 * att_close() completes it. */
		o->closed_early = true;
		rte_spinlock_unlock(&aa->cb_lock);
		return;
	}
	*pp = o->next;
	rte_spinlock_unlock(&aa->cb_lock);
	if (o->close_done != NULL)
		o->close_done(o->close_ctx);
	free(o);
}

void
att_srqs_dead(struct att_adapter *aa)
{
	if (__atomic_exchange_n(&aa->srqs_dead, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	/* One at a time, outside the lock: a callback may close its SRQ. */
	for (;;) {
		struct att_obj *o;

		rte_spinlock_lock(&aa->cb_lock);
		for (o = aa->live; o != NULL; o = o->lnext)
			if (o->pub.header.type == NDK_OBJECT_TYPE_SRQ &&
			    o->fn != NULL && !o->dead_told)
				break;
		if (o != NULL)
			o->dead_told = true;
		rte_spinlock_unlock(&aa->cb_lock);
		if (o == NULL)
			return;
		((ndk_srq_notify_fn)o->fn)(o->fn_ctx,
					   NDK_STATUS_INTERNAL_ERROR);
	}
}

/* ------------------------------------------------------------------ */
/* Adapter                                                             */
/* ------------------------------------------------------------------ */

static ndk_status_t
att_query_info(struct ndk_adapter *a, struct ndk_adapter_info *info,
	       uint32_t *size)
{
	ndk_status_t st;

	if (info == NULL || *size < sizeof(*info)) {
		*size = sizeof(*info);
		return NDK_STATUS_BUFFER_TOO_SMALL;
	}
	if (att_health(a) != NDK_STATUS_SUCCESS)
		return NDK_STATUS_DEVICE_REMOVED;
	/* Read-only after open: a copy of the daemon's (every flag holds
	 * attached too: doc/attach.md). */
	st = swr_query_info(att_ad(a)->sad, info, size);
	return st;
}

static ndk_status_t
att_create_pd(struct ndk_adapter *a, struct ndk_pd **pd)
{
	struct ndk_attach_req rq = { .hdr.op = NDK_ATT_CREATE_PD };

	/* Its close may pend (QPs, MRs, SRQs on it): EV_CLOSED names it. */
	return att_create_evobj(att_ad(a), &rq, NDK_OBJECT_TYPE_PD,
				&att_pd_ops, NULL, NULL,
				(struct att_obj **)pd);
}

static ndk_status_t
att_create_connector(struct ndk_adapter *a, struct ndk_connector **c)
{
	struct ndk_attach_req rq = { .hdr.op = NDK_ATT_CREATE_CONNECTOR };

	return att_create(att_ad(a), &rq, NDK_OBJECT_TYPE_CONNECTOR,
			  &att_conn_ops, (struct att_obj **)c);
}

static void
att_adapter_close(struct ndk_adapter *a)
{
	struct att_adapter *aa = att_ad(a);
	struct ndk_attach_req rq = { .hdr.op = NDK_ATT_BYE };
	struct ndk_attach_rep rp;

	/* The daemon closes whatever the application left open. */
	if (att_health(a) == NDK_STATUS_SUCCESS)
		att_call(aa, &rq, &rp);
	/* Their closes done: pending ones complete (their last callback),
	 * SRQs left open die with the adapter (as embedded). */
	att_close_done(aa, NULL);
	att_srqs_dead(aa);
	/* Proxies the application left open: their objects are gone. */
	while (aa->live != NULL) {
		struct att_obj *o = aa->live;

		aa->live = o->lnext;
		o->pub.header.type = 0;
		free(o);
	}
	att_graves_free(aa);
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
		swr_get_stats(att_ad(a)->sad, stats); /* may lag by one poll */
}

/* The daemon adapter's counters, in shared memory (may lag by a poll). */
static int
att_xstats_get(struct ndk_adapter *a, struct ndk_xstat *values,
	       unsigned int n)
{
	if (att_down(att_ad(a)))
		return -ENODEV;
	return swr_xstats_get(att_ad(a)->sad, values, n);
}

/* Buffers come from the application's heap in the daemon. */
static ndk_status_t
att_alloc_buffer(struct ndk_adapter *a, size_t len, size_t align,
		 void **buf)
{
	struct ndk_attach_req rq = { .hdr.op = NDK_ATT_ALLOC };
	struct ndk_attach_rep rp;
	ndk_status_t st;

	if (align > UINT32_MAX)
		return NDK_STATUS_INVALID_PARAMETER;
	rq.alloc.len = len;
	rq.alloc.align = (uint32_t)align;
	st = att_call(att_ad(a), &rq, &rp);
	if (NDK_SUCCESS(st))
		*buf = (void *)(uintptr_t)rp.alloc.va;
	return st;
}

static ndk_status_t
att_free_buffer(struct ndk_adapter *a, void *buf)
{
	struct ndk_attach_req rq = { .hdr.op = NDK_ATT_FREE };
	struct ndk_attach_rep rp;

	rq.free.va = (uintptr_t)buf;
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
	.create_shared_endpoint = att_create_sep,
	.create_listener = att_create_listener,
	.qp_list = att_qp_list,
	.qp_query_info = att_qp_info,
	.alloc_buffer = att_alloc_buffer,
	.free_buffer = att_free_buffer,
	.health = att_health,
	.xstats_get_names = swr_xstats_get_names,
	.xstats_get = att_xstats_get,
};

/* ------------------------------------------------------------------ */
/* CQ: the shared completion ring, read here                           */
/* ------------------------------------------------------------------ */

static uint32_t
att_cq_results(struct ndk_cq *cq, struct ndk_result *r, uint32_t n)
{
	struct ndk_cq *s = att_obj(cq)->shared;

	if (unlikely(att_down(att_obj(cq)->aa)))
		return 0;
	return swr_cq_get_results(s, r, n);
}

static uint32_t
att_cq_results_ex(struct ndk_cq *cq, struct ndk_result_ex *r, uint32_t n)
{
	struct ndk_cq *s = att_obj(cq)->shared;

	if (unlikely(att_down(att_obj(cq)->aa)))
		return 0;
	return swr_cq_get_results_ex(s, r, n);
}

static ndk_status_t
att_cq_close(struct ndk_cq *cq, ndk_close_completion_fn done, void *ctx)
{
	return att_close(cq, done, ctx);
}

/*
 * At the daemon: its CQ, whose ring this process reads, gets a new ring
 * with its pollers paused; NDK serializes calls on a CQ, so this thread
 * is not reading it meanwhile (another one must not either, as embedded).
 */
static ndk_status_t
att_cq_resize(struct ndk_cq *cq, uint32_t depth)
{
	struct ndk_attach_req rq = { .hdr.op = NDK_ATT_CQ_RESIZE };
	struct ndk_attach_rep rp;

	rq.cq_resize.cq = att_obj(cq)->h;
	rq.cq_resize.depth = depth;
	return att_call(att_obj(cq)->aa, &rq, &rp);
}

/* At the daemon, whose CQ holds the armed notification back. */
static ndk_status_t
att_cq_moderate(struct ndk_cq *cq, uint32_t interval_us, uint32_t count)
{
	struct ndk_attach_req rq = { .hdr.op = NDK_ATT_CQ_MODERATE };
	struct ndk_attach_rep rp;

	rq.cq_moderate.cq = att_obj(cq)->h;
	rq.cq_moderate.interval_us = interval_us;
	rq.cq_moderate.count = count;
	return att_call(att_obj(cq)->aa, &rq, &rp);
}

const struct ndk_cq_dispatch att_cq_ops = {
	.close = att_cq_close,
	.resize = att_cq_resize,
	.moderate = att_cq_moderate,
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

/* CREATE_QP: receives from the daemon's SRQ @p srq_h, or (0) its own. */
static ndk_status_t
att_qp_new(struct ndk_pd *pd, struct ndk_cq *rcq, struct ndk_cq *icq,
	   uint64_t srq_h, void *qp_context, uint32_t rq_depth,
	   uint32_t iq_depth, uint32_t max_rsge, uint32_t max_isge,
	   uint32_t inline_size, struct ndk_qp **qp)
{
	struct ndk_attach_req rq = { .hdr.op = NDK_ATT_CREATE_QP };

	if (rcq->dispatch != &att_cq_ops ||
	    icq->dispatch != &att_cq_ops)
		return NDK_STATUS_INVALID_HANDLE;
	rq.create_qp.pd = att_obj(pd)->h;
	rq.create_qp.rcq = att_obj(rcq)->h;
	rq.create_qp.icq = att_obj(icq)->h;
	rq.create_qp.srq = srq_h;
	rq.create_qp.qp_ctx = (uintptr_t)qp_context;
	rq.create_qp.rq_depth = rq_depth;
	rq.create_qp.iq_depth = iq_depth;
	rq.create_qp.max_rsge = max_rsge;
	rq.create_qp.max_isge = max_isge;
	rq.create_qp.inline_size = inline_size;
	return att_create(att_obj(pd)->aa, &rq, NDK_OBJECT_TYPE_QP,
			  &att_qp_ops, (struct att_obj **)qp);
}

static ndk_status_t
att_create_qp(struct ndk_pd *pd, struct ndk_cq *rcq, struct ndk_cq *icq,
	      void *qp_context, uint32_t rq_depth, uint32_t iq_depth,
	      uint32_t max_rsge, uint32_t max_isge, uint32_t inline_size,
	      struct ndk_qp **qp)
{
	return att_qp_new(pd, rcq, icq, 0, qp_context, rq_depth, iq_depth,
			  max_rsge, max_isge, inline_size, qp);
}

/* ------------------------------------------------------------------ */
/* Shared receive queues                                               */
/* ------------------------------------------------------------------ */

/* STATUS_PENDING while QPs use it (EV_CLOSED completes it). */
static ndk_status_t
att_srq_close(struct ndk_srq *srq, ndk_close_completion_fn done, void *ctx)
{
	return att_close(srq, done, ctx);
}

/* At the daemon: a threshold arms its SRQ, whose notification comes
 * back through the event ring (or at once, from the call, if below). */
static ndk_status_t
att_srq_modify(struct ndk_srq *srq, uint32_t depth, uint32_t threshold)
{
	struct att_obj *o = att_obj(srq);
	struct ndk_attach_req rq = { .hdr.op = NDK_ATT_SRQ_MODIFY };
	struct ndk_attach_rep rp;

	rq.srq_modify.srq = o->h;
	rq.srq_modify.depth = depth;
	rq.srq_modify.threshold = threshold;
	return att_call(o->aa, &rq, &rp);
}

static ndk_status_t
att_srq_receive(struct ndk_srq *srq, void *ctx, const struct ndk_sge *sgl,
		uint32_t nsge)
{
	struct att_obj *o = att_obj(srq);

	if (unlikely(att_down(o->aa)))
		return NDK_STATUS_DEVICE_REMOVED;
	/* The daemon's SRQ, in shared memory: its responders take from it. */
	return swr_post_srq_receive(o->shared, ctx, sgl, nsge);
}

static const struct ndk_srq_dispatch att_srq_ops = {
	.close = att_srq_close,
	.modify = att_srq_modify,
	.receive = att_srq_receive,
};

static ndk_status_t
att_create_srq(struct ndk_pd *pd, uint32_t depth, uint32_t max_sge,
	       uint32_t threshold, ndk_srq_notify_fn notify, void *ctx,
	       struct ndk_srq **srq)
{
	struct ndk_attach_req rq = { .hdr.op = NDK_ATT_CREATE_SRQ };

	/* Its notifications come from the daemon's lcores as events naming
	 * the proxy; the callback is called by this process's poll. */
	rq.create_srq.pd = att_obj(pd)->h;
	rq.create_srq.depth = depth;
	rq.create_srq.max_sge = max_sge;
	rq.create_srq.threshold = threshold;
	rq.create_srq.notify = notify != NULL;
	return att_create_evobj(att_obj(pd)->aa, &rq, NDK_OBJECT_TYPE_SRQ,
				&att_srq_ops, (void *)notify, ctx,
				(struct att_obj **)srq);
}

static ndk_status_t
att_create_qp_with_srq(struct ndk_pd *pd, struct ndk_cq *rcq,
		       struct ndk_cq *icq, struct ndk_srq *srq,
		       void *qp_context, uint32_t iq_depth, uint32_t max_isge,
		       uint32_t inline_size, struct ndk_qp **qp)
{
	if (srq->dispatch != &att_srq_ops)
		return NDK_STATUS_INVALID_HANDLE;
	return att_qp_new(pd, rcq, icq, att_obj(srq)->h, qp_context, 0,
			  iq_depth, 0, max_isge, inline_size, qp);
}

static const struct ndk_pd_dispatch att_pd_ops = {
	.close = att_pd_close,
	.create_mr = att_create_mr,
	.create_qp = att_create_qp,
	.create_mw = att_create_mw,
	.create_srq = att_create_srq,
	.create_qp_with_srq = att_create_qp_with_srq,
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
	struct ndk_attach_req rq = { .hdr.op = NDK_ATT_REGISTER_MR };
	struct ndk_attach_rep rp;
	ndk_status_t st;

	rq.register_mr.mr = o->h;
	rq.register_mr.va = (uintptr_t)va;
	rq.register_mr.len = len;
	rq.register_mr.flags = flags;
	st = att_call(o->aa, &rq, &rp);
	if (NDK_SUCCESS(st)) {
		o->ltok = rp.register_mr.ltoken;
		o->rtok = rp.register_mr.rtoken;
	}
	return st;
}

static ndk_status_t
att_deregister_mr(struct ndk_mr *mr)
{
	struct att_obj *o = att_obj(mr);
	struct ndk_attach_req rq = { .hdr.op = NDK_ATT_DEREGISTER_MR };
	struct ndk_attach_rep rp;

	rq.obj.h = o->h;
	o->ltok = 0;
	o->rtok = 0;
	return att_call(o->aa, &rq, &rp);
}

static uint32_t
att_mr_rtok(struct ndk_mr *mr)
{
	return att_mr_token(mr, true);
}

static uint32_t
att_mr_ltok(struct ndk_mr *mr)
{
	return att_mr_token(mr, false);
}

const struct ndk_mr_dispatch att_mr_ops = {
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
		swr_post_flush(att_sqp(qp));
}

static ndk_status_t
att_send(struct ndk_qp *qp, void *ctx, const struct ndk_sge *sgl,
	 uint32_t nsge, uint32_t flags)
{
	if (unlikely(att_down(att_obj(qp)->aa)))
		return NDK_STATUS_DEVICE_REMOVED;
	return swr_post_send(att_sqp(qp), ctx, sgl, nsge, flags);
}

static ndk_status_t
att_receive(struct ndk_qp *qp, void *ctx, const struct ndk_sge *sgl,
	    uint32_t nsge)
{
	if (unlikely(att_down(att_obj(qp)->aa)))
		return NDK_STATUS_DEVICE_REMOVED;
	return swr_post_receive(att_sqp(qp), ctx, sgl, nsge);
}

static ndk_status_t
att_receive_list(struct ndk_qp *qp, const struct ndk_receive_request *rq,
		 uint32_t n, uint32_t *posted)
{
	if (unlikely(att_down(att_obj(qp)->aa))) {
		*posted = 0;
		return NDK_STATUS_DEVICE_REMOVED;
	}
	return swr_post_receive_list(att_sqp(qp), rq, n, posted);
}

static ndk_status_t
att_read(struct ndk_qp *qp, void *ctx, const struct ndk_sge *sgl,
	 uint32_t nsge, uint64_t raddr, uint32_t rtoken, uint32_t flags)
{
	if (unlikely(att_down(att_obj(qp)->aa)))
		return NDK_STATUS_DEVICE_REMOVED;
	return swr_post_read(att_sqp(qp), ctx, sgl, nsge, raddr, rtoken,
			     flags);
}

static ndk_status_t
att_write(struct ndk_qp *qp, void *ctx, const struct ndk_sge *sgl,
	  uint32_t nsge, uint64_t raddr, uint32_t rtoken, uint32_t flags)
{
	if (unlikely(att_down(att_obj(qp)->aa)))
		return NDK_STATUS_DEVICE_REMOVED;
	return swr_post_write(att_sqp(qp), ctx, sgl, nsge, raddr,
			      rtoken, flags);
}

static ndk_status_t
att_send_inv(struct ndk_qp *qp, void *ctx, const struct ndk_sge *sgl,
	     uint32_t nsge, uint32_t flags, uint32_t token)
{
	if (unlikely(att_down(att_obj(qp)->aa)))
		return NDK_STATUS_DEVICE_REMOVED;
	return swr_post_send_inv(att_sqp(qp), ctx, sgl, nsge, flags,
				 token);
}

static ndk_status_t
att_modify(struct ndk_qp *qp, const struct ndk_qp_attr *attr, uint32_t mask)
{
	struct att_obj *o = att_obj(qp);
	struct ndk_attach_req rq = { .hdr.op = NDK_ATT_QP_MODIFY };
	struct ndk_attach_rep rp;

	rq.qp_modify.qp = o->h;
	rq.qp_modify.attr = *attr;
	rq.qp_modify.mask = mask;
	return att_call(o->aa, &rq, &rp);
}

static ndk_status_t
att_query(struct ndk_qp *qp, struct ndk_qp_attr *attr)
{
	struct att_obj *o = att_obj(qp);
	struct ndk_attach_req rq = { .hdr.op = NDK_ATT_QP_QUERY };
	struct ndk_attach_rep rp;
	ndk_status_t st;

	rq.obj.h = o->h;
	st = att_call(o->aa, &rq, &rp);
	if (NDK_SUCCESS(st))
		*attr = rp.qp_query.attr;
	return st;
}

static void
att_qp_stats(struct ndk_qp *qp, struct ndk_qp_stats *stats)
{
	if (att_down(att_obj(qp)->aa))
		memset(stats, 0, sizeof(*stats));
	else
		swr_post_get_stats(att_sqp(qp), stats);
}

const struct ndk_qp_dispatch att_qp_ops = {
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
	.receive_list = att_receive_list,
};

/* ------------------------------------------------------------------ */
/* Open                                                                */
/* ------------------------------------------------------------------ */

static ndk_status_t
att_open(const struct ndk_adapter_config *config, struct ndk_adapter **out)
{
	struct ndk_attach_req rq = { .hdr.op = NDK_ATT_HELLO };
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
	if (rte_eth_dev_get_name_by_port(config->port_id,
					 rq.hello.name) != 0) {
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
	/* Event ring size (doc/attach.md); default NDK_ATTACH_EV_SLOTS. */
	if (getenv("NDK_ATTACH_EV_SLOTS") != NULL)
		rq.hello.ev_slots = (uint32_t)strtoul(
			getenv("NDK_ATTACH_EV_SLOTS"), NULL, 0);
	aa = calloc(1, sizeof(*aa));
	if (aa == NULL)
		return NDK_STATUS_NO_MEMORY;
	st = att_call(NULL, &rq, &rp);
	if (!NDK_SUCCESS(st)) {
		NDK_LOG(ERR, "attach: the daemon refused adapter %s: %s",
			rq.hello.name, ndk_status_str(st));
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
	aa->app = rp.hello.app;
	aa->sad = (struct ndk_adapter *)(uintptr_t)rp.hello.adapter;
	aa->evq = (struct ndk_attach_evq *)(uintptr_t)rp.hello.evq;
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
