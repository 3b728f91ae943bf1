/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The attach provider's fast-register MRs, memory windows and QP
 * introspection. Creating and initialising FRMRs and windows are daemon
 * requests; fast register, invalidate and bind are posts on the shared
 * QP with swroce's own posting code (swroce_post.c), which reads and
 * writes only shared state: the QP's rings, the MR's or window's page
 * list and token (rte_malloc memory) and the adapter's token table. The
 * proxies are translated to the daemon's objects here; swroce refuses a
 * region of another PD (hence of another application). See doc/attach.md.
 */

#include <string.h>

#include "swroce_attach_priv.h"

static const struct ndk_mw_dispatch att_mw_ops;

/* ------------------------------------------------------------------ */
/* FRMRs and windows: control path                                     */
/* ------------------------------------------------------------------ */

ndk_status_t
swr_att_create_mr(struct ndk_pd *pd, bool fast_register, struct ndk_mr **mr)
{
	struct ndk_attach_req rq = { .op = NDK_ATT_CREATE_MR };

	rq.h[0] = att_obj(pd)->h;
	rq.u[0] = fast_register;
	return swr_att_create(att_obj(pd)->aa, &rq, NDK_OBJECT_TYPE_MR,
			      &swr_att_mr_ops, (struct att_obj **)mr);
}

ndk_status_t
swr_att_mr_init_fr(struct ndk_mr *mr, uint32_t pages, bool remote)
{
	struct att_obj *o = att_obj(mr);
	struct ndk_attach_req rq = { .op = NDK_ATT_INIT_FR };
	struct ndk_attach_rep rp;

	rq.h[0] = o->h;
	rq.u[0] = pages;
	rq.u[1] = remote;
	return swr_att_call(o->aa, &rq, &rp);
}

uint32_t
swr_att_mr_token(struct ndk_mr *mr, bool remote)
{
	struct att_obj *o = att_obj(mr);
	const struct swr_mr *s = o->shared;

	/* An FRMR's token is the one its latest fast register set: the
	 * post (in this process) wrote it into the shared MR. */
	if (s != NULL && s->fast_register)
		return __atomic_load_n(&s->token_next, __ATOMIC_ACQUIRE);
	return remote ? o->rtok : o->ltok;
}

ndk_status_t
swr_att_create_mw(struct ndk_pd *pd, struct ndk_mw **mw)
{
	struct ndk_attach_req rq = { .op = NDK_ATT_CREATE_MW };

	rq.h[0] = att_obj(pd)->h;
	return swr_att_create(att_obj(pd)->aa, &rq, NDK_OBJECT_TYPE_MW,
			      &att_mw_ops, (struct att_obj **)mw);
}

static ndk_status_t
att_mw_close(struct ndk_mw *mw, ndk_close_completion_fn done, void *ctx)
{
	return swr_att_close(mw, done, ctx);
}

static uint32_t
att_mw_token(struct ndk_mw *mw)
{
	const struct swr_mw *s = att_obj(mw)->shared;

	return __atomic_load_n(&s->r.token_next, __ATOMIC_ACQUIRE);
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
swr_att_fast_register(struct ndk_qp *qp, void *ctx, struct ndk_mr *mr,
		      uint32_t page_count, const uint64_t *pages, uint32_t fbo,
		      size_t length, uint64_t base_va, uint32_t flags)
{
	struct att_obj *q = att_obj(qp);
	struct swr_qp *sq = q->shared;

	if (unlikely(swr_att_down(q->aa)))
		return NDK_STATUS_DEVICE_REMOVED;
	/* NULL for a foreign proxy: swroce refuses it with a completion. */
	return swr_post_fast_register(&sq->pub, ctx,
				      att_shared_of(q, mr, &swr_att_mr_ops),
				      page_count, pages, fbo, length, base_va,
				      flags);
}

ndk_status_t
swr_att_invalidate(struct ndk_qp *qp, void *ctx,
		   struct ndk_object_header *obj, uint32_t flags)
{
	struct att_obj *q = att_obj(qp);
	struct swr_qp *sq = q->shared;
	void *s = NULL;

	if (unlikely(swr_att_down(q->aa)))
		return NDK_STATUS_DEVICE_REMOVED;
	if (obj != NULL && obj->type == NDK_OBJECT_TYPE_MW)
		s = att_shared_of(q, obj, &att_mw_ops);
	else if (obj != NULL && obj->type == NDK_OBJECT_TYPE_MR)
		s = att_shared_of(q, obj, &swr_att_mr_ops);
	return swr_post_invalidate(&sq->pub, ctx, s, flags);
}

ndk_status_t
swr_att_bind(struct ndk_qp *qp, void *ctx, struct ndk_mr *mr,
	     struct ndk_mw *mw, uint64_t va, size_t length, uint32_t flags)
{
	struct att_obj *q = att_obj(qp);
	struct swr_qp *sq = q->shared;

	if (unlikely(swr_att_down(q->aa)))
		return NDK_STATUS_DEVICE_REMOVED;
	return swr_post_bind(&sq->pub, ctx,
			     att_shared_of(q, mr, &swr_att_mr_ops),
			     att_shared_of(q, mw, &att_mw_ops), va, length,
			     flags);
}

/* ------------------------------------------------------------------ */
/* Introspection: this application's QPs only                          */
/* ------------------------------------------------------------------ */

int
swr_att_qp_list(struct ndk_adapter *a, uint32_t *qpns, uint32_t max)
{
	struct att_adapter *aa = att_ad(a);
	uint32_t got = 0, total;

	do {
		struct ndk_attach_req rq = { .op = NDK_ATT_QP_LIST };
		struct ndk_attach_rep rp;
		ndk_status_t st;

		rq.u[0] = got;
		st = swr_att_call(aa, &rq, &rp);
		if (!NDK_SUCCESS(st))
			return st == NDK_STATUS_DEVICE_NOT_READY ||
			       st == NDK_STATUS_DEVICE_REMOVED ? -EIO :
				-EINVAL;
		total = rp.u[0];
		if (rp.u[1] > NDK_ATTACH_QPN_MAX)
			return -EIO;
		for (uint32_t i = 0; i < rp.u[1] && got + i < max; i++)
			qpns[got + i] = rp.qpns[i];
		got += rp.u[1];
		if (rp.u[1] == 0)
			break;
	} while (got < total && got < max);
	return (int)total;
}

ndk_status_t
swr_att_qp_info(struct ndk_adapter *a, uint32_t qpn, struct ndk_qp_info *info)
{
	struct ndk_attach_req rq = { .op = NDK_ATT_QP_INFO };
	struct ndk_attach_rep rp;
	ndk_status_t st;

	rq.u[0] = qpn;
	st = swr_att_call(att_ad(a), &rq, &rp);
	if (NDK_SUCCESS(st))
		*info = rp.info;
	return st;
}
