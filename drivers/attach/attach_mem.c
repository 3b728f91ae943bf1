/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The attach provider's fast-register MRs, memory windows and QP
 * introspection. Creating and initialising FRMRs and windows are daemon
 * requests; fast register, invalidate and bind are posts on the shared
 * QP with swroce's own posting code (swroce_shared.h), which reads and
 * writes only shared state: the QP's rings, the MR's or window's page
 * list and token (rte_malloc memory) and the adapter's token table. The
 * proxies are translated to the daemon's objects here; swroce refuses a
 * region of another PD (hence of another application). See doc/attach.md.
 */

#include <string.h>

#include "attach_priv.h"

static const struct ndk_mw_dispatch att_mw_ops;

/* ------------------------------------------------------------------ */
/* FRMRs and windows: control path                                     */
/* ------------------------------------------------------------------ */

ndk_status_t
att_create_mr(struct ndk_pd *pd, bool fast_register, struct ndk_mr **mr)
{
	struct ndk_attach_req rq = { .hdr.op = NDK_ATT_CREATE_MR };
	ndk_status_t st;

	rq.create_mr.pd = att_obj(pd)->h;
	rq.create_mr.fast_register = fast_register;
	/* Its close may pend (frames sent from it out): EV_CLOSED. */
	st = att_create_evobj(att_obj(pd)->aa, &rq, NDK_OBJECT_TYPE_MR,
			      &att_mr_ops, NULL, NULL, (struct att_obj **)mr);
	if (NDK_SUCCESS(st))
		att_obj(*mr)->fast_register = fast_register;
	return st;
}

ndk_status_t
att_mr_init_fr(struct ndk_mr *mr, uint32_t pages, bool remote)
{
	struct att_obj *o = att_obj(mr);
	struct ndk_attach_req rq = { .hdr.op = NDK_ATT_INIT_FR };
	struct ndk_attach_rep rp;

	rq.init_fr.mr = o->h;
	rq.init_fr.pages = pages;
	rq.init_fr.remote = remote;
	return att_call(o->aa, &rq, &rp);
}

uint32_t
att_mr_token(struct ndk_mr *mr, bool remote)
{
	struct att_obj *o = att_obj(mr);

	/* An FRMR's token is the one its latest fast register set: the
	 * post (in this process) wrote it into the shared MR. */
	if (o->fast_register && o->shared != NULL)
		return swr_mr_token(o->shared);
	return remote ? o->rtok : o->ltok;
}

ndk_status_t
att_create_mw(struct ndk_pd *pd, struct ndk_mw **mw)
{
	struct ndk_attach_req rq = { .hdr.op = NDK_ATT_CREATE_MW };

	rq.obj.h = att_obj(pd)->h;
	return att_create(att_obj(pd)->aa, &rq, NDK_OBJECT_TYPE_MW,
			  &att_mw_ops, (struct att_obj **)mw);
}

static ndk_status_t
att_mw_close(struct ndk_mw *mw, ndk_close_completion_fn done, void *ctx)
{
	return att_close(mw, done, ctx);
}

static uint32_t
att_mw_token(struct ndk_mw *mw)
{
	return swr_mw_token(att_obj(mw)->shared);
}

static const struct ndk_mw_dispatch att_mw_ops = {
	.close = att_mw_close,
	.remote_token = att_mw_token,
};

/* ------------------------------------------------------------------ */
/* Posts on the shared QP                                              */
/* ------------------------------------------------------------------ */

/* The daemon's object behind a proxy of this adapter, or NULL. */
static void *
att_shared_of(const struct att_obj *qp, const void *obj, const void *ops)
{
	const struct att_obj *o = obj;

	if (o == NULL || o->pub.pd.dispatch != ops || o->aa != qp->aa)
		return NULL;
	return o->shared;
}

ndk_status_t
att_fast_register(struct ndk_qp *qp, void *ctx, struct ndk_mr *mr,
		  uint32_t page_count, const uint64_t *pages, uint32_t fbo,
		  size_t length, uint64_t base_va, uint32_t flags)
{
	struct att_obj *q = att_obj(qp);
	struct ndk_qp *sq = q->shared;

	if (unlikely(att_down(q->aa)))
		return NDK_STATUS_DEVICE_REMOVED;
	/* NULL for a foreign proxy: swroce refuses it with a completion. */
	return swr_post_fast_register(sq, ctx,
				      att_shared_of(q, mr, &att_mr_ops),
				      page_count, pages, fbo, length, base_va,
				      flags);
}

ndk_status_t
att_invalidate(struct ndk_qp *qp, void *ctx,
	       struct ndk_object_header *obj, uint32_t flags)
{
	struct att_obj *q = att_obj(qp);
	struct ndk_qp *sq = q->shared;
	void *s = NULL;

	if (unlikely(att_down(q->aa)))
		return NDK_STATUS_DEVICE_REMOVED;
	if (obj != NULL && obj->type == NDK_OBJECT_TYPE_MW)
		s = att_shared_of(q, obj, &att_mw_ops);
	else if (obj != NULL && obj->type == NDK_OBJECT_TYPE_MR)
		s = att_shared_of(q, obj, &att_mr_ops);
	return swr_post_invalidate(sq, ctx, s, flags);
}

ndk_status_t
att_bind(struct ndk_qp *qp, void *ctx, struct ndk_mr *mr,
	 struct ndk_mw *mw, uint64_t va, size_t length, uint32_t flags)
{
	struct att_obj *q = att_obj(qp);
	struct ndk_qp *sq = q->shared;

	if (unlikely(att_down(q->aa)))
		return NDK_STATUS_DEVICE_REMOVED;
	return swr_post_bind(sq, ctx,
			     att_shared_of(q, mr, &att_mr_ops),
			     att_shared_of(q, mw, &att_mw_ops), va, length,
			     flags);
}

/* ------------------------------------------------------------------ */
/* Introspection: this application's QPs only                          */
/* ------------------------------------------------------------------ */

int
att_qp_list(struct ndk_adapter *a, uint32_t *qpns, uint32_t max)
{
	struct att_adapter *aa = att_ad(a);
	uint32_t got = 0, total;

	do {
		struct ndk_attach_req rq = { .hdr.op = NDK_ATT_QP_LIST };
		struct ndk_attach_rep rp;
		ndk_status_t st;

		rq.qp_list.skip = got;
		st = att_call(aa, &rq, &rp);
		if (!NDK_SUCCESS(st))
			return st == NDK_STATUS_DEVICE_NOT_READY ||
			       st == NDK_STATUS_DEVICE_REMOVED ? -EIO :
				-EINVAL;
		total = rp.qp_list.total;
		if (rp.qp_list.n > NDK_ATTACH_QPN_MAX)
			return -EIO;
		for (uint32_t i = 0; i < rp.qp_list.n && got + i < max; i++)
			qpns[got + i] = rp.qp_list.qpns[i];
		got += rp.qp_list.n;
		if (rp.qp_list.n == 0)
			break;
	} while (got < total && got < max);
	return (int)total;
}

ndk_status_t
att_qp_info(struct ndk_adapter *a, uint32_t qpn, struct ndk_qp_info *info)
{
	struct ndk_attach_req rq = { .hdr.op = NDK_ATT_QP_INFO };
	struct ndk_attach_rep rp;
	ndk_status_t st;

	rq.qp_info.qpn = qpn;
	st = att_call(att_ad(a), &rq, &rp);
	if (NDK_SUCCESS(st))
		*info = rp.qp_info.info;
	return st;
}
