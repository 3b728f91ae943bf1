/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Doorbells: a poster queues a QP that needs its poller's attention on
 * the QP's doorbell ring (swr_doorbell() in rc/swroce_post.c). Each queue
 * has a ring for its own QPs, which its poller drains, one burst per
 * poll. Queue 0's poller also drains every extra ring hooked to the
 * adapter.
 *
 * Extra rings belong to the daemon's attached applications (one each, so
 * that an application killed inside rte_ring_mp_enqueue() wedges only its
 * own ring, never another's: doc/attach.md). An application's QPs may
 * belong to any queue (QPN & q_mask), so queue 0 hands a QP of another
 * queue on to that queue's own ring, with db_pending still set: the QP is
 * queued once, and its queue clears the flag when it serves it, as for a
 * doorbell rung there directly. Only the daemon's queue 0 produces into
 * the queues' rings this way; an application never does.
 *
 * The list of extra rings is queue 0's owner's: it is changed only by
 * control operations run there through swr_ctl_exec() (the other queues
 * paused), which is the hand-off: once the unhook has run, no poll can be
 * reading the ring any more and it may be freed. No lock on any poller.
 *
 * Also here, for the same attach server: the range of memory an attached
 * application's QP may fast-register (swr_attach_qp_limit_fr()).
 */

#include <inttypes.h>
#include <stdio.h>

#include <rte_errno.h>
#include <rte_ring.h>

#include "swroce_adapter.h"
#include "swroce_ctl.h"
#include "swroce_dbell.h"
#include "swroce_qp.h"
#include "swroce_attach_srv.h"

/*
 * Serve the queued doorbells of @p r on the poller of @p q: activate its
 * own QPs, hand the others to their queues' rings. @p q NULL: a control
 * operation, every queue paused: activate all of them here.
 */
static unsigned int
swr_db_drain(struct swr_queue *q, struct rte_ring *r)
{
	struct swr_qp *qps[SWR_DB_BURST];
	unsigned int n;

	n = rte_ring_sc_dequeue_burst(r, (void **)qps, SWR_DB_BURST, NULL);
	for (unsigned int i = 0; i < n; i++) {
		struct swr_qp *qp = qps[i];

		if (q != NULL && qp->q != q) {
			/* Room for every QP: it is queued at most once. */
			RTE_VERIFY(rte_ring_mp_enqueue(qp->q->db_ring, qp) == 0);
			continue;
		}
		/* Clear first: a post after this re-rings. */
		__atomic_store_n(&qp->db_pending, 0, __ATOMIC_SEQ_CST);
		swr_qp_activate(qp);
	}
	return n;
}

/* Most polls find no doorbell: one look at the ring's indexes. */
static inline unsigned int
swr_db_poll(struct swr_queue *q, struct rte_ring *r)
{
	return rte_ring_empty(r) ? 0 : swr_db_drain(q, r);
}

unsigned int
swr_doorbells(struct swr_queue *q)
{
	struct swr_adapter *ad = q->ad;
	unsigned int n = swr_db_poll(q, q->db_ring);

	if (q->id == 0)
		for (uint32_t i = 0; i < ad->n_db_more; i++)
			n += swr_db_poll(q, ad->db_more[i]);
	return n;
}

void
swr_db_drain_all(struct rte_ring *r)
{
	while (swr_db_drain(NULL, r) != 0)
		;
}

static ndk_status_t
swr_db_hook_ctl(struct swr_adapter *ad, void *arg)
{
	if (ad->n_db_more == SWR_MAX_DB_RINGS)
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	ad->db_more[ad->n_db_more++] = arg;
	return NDK_STATUS_SUCCESS;
}

static ndk_status_t
swr_db_unhook_ctl(struct swr_adapter *ad, void *arg)
{
	for (uint32_t i = 0; i < ad->n_db_more; i++) {
		if (ad->db_more[i] != arg)
			continue;
		ad->db_more[i] = ad->db_more[--ad->n_db_more];
		ad->db_more[ad->n_db_more] = NULL;
		/* Doorbells of QPs still open are served, not lost. */
		swr_db_drain_all(arg);
		return NDK_STATUS_SUCCESS;
	}
	return NDK_STATUS_INVALID_PARAMETER;
}

static ndk_status_t
swr_db_count_ctl(struct swr_adapter *ad, void *arg)
{
	*(unsigned int *)arg = ad->n_db_more;
	return NDK_STATUS_SUCCESS;
}

unsigned int
swr_attach_db_hooked(struct ndk_adapter *a)
{
	unsigned int n = 0;

	swr_ctl_exec(swr_adapter_of(a), swr_db_count_ctl, &n);
	return n;
}

struct rte_ring *
swr_attach_db_create(struct ndk_adapter *a, uint64_t app)
{
	struct swr_adapter *ad = swr_adapter_of(a);
	char name[RTE_RING_NAMESIZE];
	struct rte_ring *r;
	ndk_status_t st;

	/* Room for every QP of the adapter: a QP is queued at most once. */
	snprintf(name, sizeof(name), "ndkdb_%" PRIx64, app);
	r = rte_ring_create(name, 1u << ad->qp_bits, ad->socket_id,
			    RING_F_SC_DEQ);
	if (r == NULL) {
		NDK_LOG(ERR, "%s: no doorbell ring for application %" PRIx64
			": %s", ad->name, app, rte_strerror(rte_errno));
		return NULL;
	}
	st = swr_ctl_exec(ad, swr_db_hook_ctl, r);
	if (st != NDK_STATUS_SUCCESS) {
		NDK_LOG(ERR, "%s: more than %u doorbell rings", ad->name,
			SWR_MAX_DB_RINGS);
		rte_ring_free(r);
		return NULL;
	}
	return r;
}

void
swr_attach_db_destroy(struct ndk_adapter *a, struct rte_ring *r)
{
	struct swr_adapter *ad = swr_adapter_of(a);

	if (r == NULL)
		return;
	/* Run on the polling thread: after it, no poll reads @p r. */
	if (swr_ctl_exec(ad, swr_db_unhook_ctl, r) != NDK_STATUS_SUCCESS)
		NDK_LOG(ERR, "%s: doorbell ring %s was not hooked", ad->name,
			r->name);
	rte_ring_free(r);
}

void
swr_attach_qp_use_db(struct ndk_qp *q, struct rte_ring *r)
{
	/* Before the application learns of the QP: nobody posts yet. */
	__atomic_store_n(&swr_qp_of(q)->db_ring, r, __ATOMIC_RELEASE);
}

void
swr_attach_qp_limit_fr(struct ndk_qp *q, uint64_t va, uint64_t len)
{
	struct swr_qp *qp = swr_qp_of(q);

	/* Like the doorbell ring: set before the application learns of the
	 * QP; the rte_mp reply that tells it is the hand-off. */
	qp->fr_lo = va;
	qp->fr_hi = len != 0 ? va + len : 0;
}
