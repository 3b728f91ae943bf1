/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The attach server's requests beyond the CM and the data objects'
 * basics (roced_attach_ops.c): shared receive queues with their
 * notification, CQ resize and interrupt moderation, shared endpoints.
 * Each runs the public NDK API on the daemon's object, as embedded; what
 * the application must hear crosses through its event ring, promised
 * first like every event (doc/attach.md):
 *   - an SRQ with a callback reserves its death notification
 *     (STATUS_INTERNAL_ERROR) at creation, and each arm (a threshold at
 *     creation or modify) one firing: at most three owed (the death, one
 *     pending arm, one firing); given back when its close completes;
 *   - an SRQ, a shared endpoint, a CQ, a PD, an MR (and a listener,
 *     roced_attach_ops.c) reserve their EV_CLOSED at creation: their
 *     close may pend (NDK: QPs on the CQ, PD or SRQ, MRs on the PD, frames
 *     sent from the MR still out), and the close completion tells the
 *     application (roced_att_ent_close()), from whichever thread drops
 *     the last reference: the application's event ring and heap stay
 *     until every such close of it completed (roced_attach.c).
 * CQ moderation needs nothing of its own: the daemon's CQ holds the
 * armed notification back, and cq_notify queues it when swroce lets it
 * go, from the lcore's moderation clock or from the moderate call.
 */

#include <string.h>

#include "roced_attach.h"

/* Notifications an SRQ may owe at once: its death, a pending arm, one
 * firing. */
#define SRQ_OWED_MAX 3

/*
 * A new entry of application @p ai for an object whose close may pend:
 * its EV_CLOSED, naming the application's @p proxy, promised first.
 * @return the entry (object still NULL), or NULL with the status in
 * @p st (event ring or handle table full).
 */
static struct att_ent *
closable_add(struct roced_attach *s, unsigned int ai, uint16_t type,
	     uint64_t proxy, ndk_status_t *st)
{
	struct att_app *a = &s->apps[ai];
	struct att_ent *e;
	uint64_t h;

	if (!roced_att_ev_reserve(a, 1)) {
		*st = NDK_STATUS_INSUFFICIENT_RESOURCES;
		return NULL;
	}
	*st = roced_att_ent_add(s, ai, type, NULL, &h);
	if (!NDK_SUCCESS(*st)) {
		roced_att_ev_release(a, 1);
		return NULL;
	}
	e = &s->ent[(uint32_t)h];
	e->pctx = proxy;
	e->close_owed = 1;
	return e;
}

/* The object could not be made: its promise back, its entry free. */
static void
closable_drop(struct roced_attach *s, struct att_ent *e)
{
	roced_att_ev_release(e->owner, __atomic_exchange_n(&e->close_owed, 0,
							   __ATOMIC_ACQ_REL));
	roced_att_ent_free(s, e);
}

/* The object made: into its entry, its handle and address into @p rp. */
static void
closable_set(struct roced_attach *s, struct att_ent *e, void *obj,
	     struct ndk_attach_rep *rp)
{
	e->obj = obj;
	rp->new_obj.handle = ((uint64_t)e->gen << 32) |
		(uint32_t)(e - s->ent);
	rp->new_obj.obj = (uintptr_t)obj;
}

/* A CQ's notification (polling lcore; or the rte_mp thread in an arm). */
static void
cq_notify(void *ctx, ndk_status_t st)
{
	struct att_ent *e = ctx;
	struct ndk_attach_ev ev = {
		.kind = NDK_ATT_EV_CQ,
		.cq = { .cq = e->pctx, .status = st },
	};

	roced_att_notify_put(e, &ev, "CQ");
}

ndk_status_t
roced_att_op_create_pd(struct roced_attach *s, unsigned int ai,
		       const struct ndk_attach_req *rq,
		       struct ndk_attach_rep *rp)
{
	struct att_ent *e;
	ndk_status_t st;
	struct ndk_pd *pd;

	/* Its close pends while QPs, MRs or SRQs use it. */
	e = closable_add(s, ai, NDK_OBJECT_TYPE_PD, rq->create_pd.proxy, &st);
	if (e == NULL)
		return st;
	st = ndk_create_pd(s->apps[ai].port->ad, &pd);
	if (!NDK_SUCCESS(st)) {
		closable_drop(s, e);
		return st;
	}
	closable_set(s, e, pd, rp);
	return NDK_STATUS_SUCCESS;
}

ndk_status_t
roced_att_op_create_cq(struct roced_attach *s, unsigned int ai,
		       const struct ndk_attach_req *rq,
		       struct ndk_attach_rep *rp)
{
	const struct ndk_attach_create_cq *b = &rq->create_cq;
	struct att_ent *e;
	ndk_status_t st;
	struct ndk_cq *cq;

	/* The entry first: it is the notification's context. Its close
	 * pends while QPs use it, or while a notification is running. */
	e = closable_add(s, ai, NDK_OBJECT_TYPE_CQ, b->proxy, &st);
	if (e == NULL)
		return st;
	st = ndk_create_cq(s->apps[ai].port->ad, b->depth,
			   b->notify != 0 ? cq_notify : NULL, e, &cq);
	if (!NDK_SUCCESS(st)) {
		closable_drop(s, e);
		return st;
	}
	closable_set(s, e, cq, rp);
	return NDK_STATUS_SUCCESS;
}

ndk_status_t
roced_att_op_create_mr(struct roced_attach *s, unsigned int ai,
		       const struct ndk_attach_req *rq,
		       struct ndk_attach_rep *rp)
{
	const struct ndk_attach_create_mr *b = &rq->create_mr;
	struct att_ent *pd = roced_att_ent_get(s, ai, b->pd,
					       NDK_OBJECT_TYPE_PD);
	struct att_ent *e;
	ndk_status_t st;
	struct ndk_mr *mr;

	if (pd == NULL)
		return NDK_STATUS_INVALID_HANDLE;
	/* Its close pends while frames sent from it are out. */
	e = closable_add(s, ai, NDK_OBJECT_TYPE_MR, b->proxy, &st);
	if (e == NULL)
		return st;
	st = ndk_create_mr(pd->obj, b->fast_register != 0, &mr);
	if (!NDK_SUCCESS(st)) {
		closable_drop(s, e);
		return st;
	}
	closable_set(s, e, mr, rp);
	return NDK_STATUS_SUCCESS;
}

/* An SRQ's notification (polling lcore; or the rte_mp thread inside a
 * modify that finds it below its threshold already). */
static void
srq_notify(void *ctx, ndk_status_t st)
{
	struct att_ent *e = ctx;
	struct ndk_attach_ev ev = {
		.kind = NDK_ATT_EV_SRQ,
		.srq = { .srq = e->pctx, .status = st },
	};

	roced_att_notify_put(e, &ev, "SRQ");
}

/* Reserve one more SRQ notification unless SRQ_OWED_MAX are owed. */
static bool
srq_owe(struct att_ent *e)
{
	if (__atomic_load_n(&e->notify_owed, __ATOMIC_ACQUIRE) >= SRQ_OWED_MAX)
		return true;
	if (!roced_att_ev_reserve(e->owner, 1))
		return false;
	__atomic_fetch_add(&e->notify_owed, 1, __ATOMIC_ACQ_REL);
	return true;
}

ndk_status_t
roced_att_op_create_srq(struct roced_attach *s, unsigned int ai,
			const struct ndk_attach_req *rq,
			struct ndk_attach_rep *rp)
{
	const struct ndk_attach_create_srq *b = &rq->create_srq;
	struct att_ent *pd = roced_att_ent_get(s, ai, b->pd,
					       NDK_OBJECT_TYPE_PD);
	struct att_app *a = &s->apps[ai];
	bool notify = b->notify != 0;
	/* EV_CLOSED; with a callback its death and a first arm. */
	uint32_t need = 1 + (notify ? 1 + (b->threshold != 0) : 0);
	struct ndk_srq *srq;
	struct att_ent *e;
	ndk_status_t st;
	uint64_t h;

	if (pd == NULL)
		return NDK_STATUS_INVALID_HANDLE;
	if (!roced_att_ev_reserve(a, need))
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	/* The entry first: it is the notification's context. */
	st = roced_att_ent_add(s, ai, NDK_OBJECT_TYPE_SRQ, NULL, &h);
	if (!NDK_SUCCESS(st)) {
		roced_att_ev_release(a, need);
		return st;
	}
	e = &s->ent[(uint32_t)h];
	e->pctx = b->proxy;
	e->close_owed = 1;
	e->notify_owed = need - 1;
	st = ndk_create_srq(pd->obj, b->depth, b->max_sge, b->threshold,
			    notify ? srq_notify : NULL, e, &srq);
	if (!NDK_SUCCESS(st)) {
		roced_att_ev_release(a, need);
		roced_att_ent_free(s, e);
		return st;
	}
	e->obj = srq;
	rp->new_obj.handle = h;
	rp->new_obj.obj = (uintptr_t)srq;
	return NDK_STATUS_SUCCESS;
}

ndk_status_t
roced_att_op_srq_modify(struct roced_attach *s, unsigned int ai,
			const struct ndk_attach_req *rq,
			struct ndk_attach_rep *rp)
{
	const struct ndk_attach_srq_modify *b = &rq->srq_modify;
	struct att_ent *e = roced_att_ent_get(s, ai, b->srq,
					      NDK_OBJECT_TYPE_SRQ);

	RTE_SET_USED(rp);
	if (e == NULL)
		return NDK_STATUS_INVALID_HANDLE;
	/* A re-arm owes one more firing (a callback-less SRQ owes none:
	 * swroce arms it and calls nothing). */
	if (b->threshold != 0 && __atomic_load_n(&e->notify_owed,
						 __ATOMIC_ACQUIRE) != 0 &&
	    !srq_owe(e))
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	return ndk_modify_srq(e->obj, b->depth, b->threshold);
}

ndk_status_t
roced_att_op_cq_resize(struct roced_attach *s, unsigned int ai,
		       const struct ndk_attach_req *rq,
		       struct ndk_attach_rep *rp)
{
	struct att_ent *e = roced_att_ent_get(s, ai, rq->cq_resize.cq,
					      NDK_OBJECT_TYPE_CQ);

	RTE_SET_USED(rp);
	if (e == NULL)
		return NDK_STATUS_INVALID_HANDLE;
	/*
	 * The application reads the CQ's ring itself; NDK serializes calls
	 * on one CQ, so it is not reading while it waits for this reply,
	 * and swroce swaps the ring with the pollers paused.
	 */
	return ndk_resize_cq(e->obj, rq->cq_resize.depth);
}

ndk_status_t
roced_att_op_cq_moderate(struct roced_attach *s, unsigned int ai,
			 const struct ndk_attach_req *rq,
			 struct ndk_attach_rep *rp)
{
	const struct ndk_attach_cq_moderate *b = &rq->cq_moderate;
	struct att_ent *e = roced_att_ent_get(s, ai, b->cq,
					      NDK_OBJECT_TYPE_CQ);

	RTE_SET_USED(rp);
	if (e == NULL)
		return NDK_STATUS_INVALID_HANDLE;
	return ndk_control_cq_interrupt_moderation(e->obj, b->interval_us,
						   b->count);
}

ndk_status_t
roced_att_op_create_sep(struct roced_attach *s, unsigned int ai,
			const struct ndk_attach_req *rq,
			struct ndk_attach_rep *rp)
{
	struct att_app *a = &s->apps[ai];
	struct ndk_shared_endpoint *sep;
	union ndk_sockaddr sa;
	struct att_ent *e;
	ndk_status_t st;
	socklen_t len;
	uint64_t h;

	len = ndk_attach_addr_get(&rq->create_sep.addr, &sa);
	if (len == 0)
		return NDK_STATUS_INVALID_ADDRESS;
	/* Its close may pend (connectors connected through it). */
	if (!roced_att_ev_reserve(a, 1))
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	st = ndk_create_shared_endpoint(a->port->ad, &sa.sa, len, &sep);
	if (NDK_SUCCESS(st)) {
		st = roced_att_ent_add(s, ai, NDK_OBJECT_TYPE_SHARED_ENDPOINT,
				       sep, &h);
		if (!NDK_SUCCESS(st))
			ndk_close_shared_endpoint(sep, NULL, NULL);
	}
	if (!NDK_SUCCESS(st)) {
		roced_att_ev_release(a, 1);
		return st;
	}
	e = &s->ent[(uint32_t)h];
	e->pctx = rq->create_sep.proxy;
	e->close_owed = 1;
	rp->new_obj.handle = h;
	rp->new_obj.obj = 0;          /* nothing to use in shared memory */
	return NDK_STATUS_SUCCESS;
}

ndk_status_t
roced_att_op_sep_addr(struct roced_attach *s, unsigned int ai,
		      const struct ndk_attach_req *rq,
		      struct ndk_attach_rep *rp)
{
	struct att_ent *e = roced_att_ent_get(s, ai, rq->obj.h,
					      NDK_OBJECT_TYPE_SHARED_ENDPOINT);
	union ndk_sockaddr sa;
	socklen_t len = sizeof(sa);
	ndk_status_t st;

	if (e == NULL)
		return NDK_STATUS_INVALID_HANDLE;
	st = ndk_shared_endpoint_get_local_address(e->obj, &sa.sa, &len);
	if (NDK_SUCCESS(st))
		ndk_attach_addr_put(&rp->listener_addr.addr, &sa);
	return st;
}
