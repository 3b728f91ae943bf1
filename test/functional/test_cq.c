/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: NdkResizeCq and NdkControlCqInterruptModeration on swroce.
 * Side A SENDs, side B's receive CQ is the one resized or moderated.
 * Cases: the adapter flags (these two and the others as they hold); resize below what the CQ
 * holds (refused, nothing lost), up with entries in it (kept in order,
 * more arriving), twice, while armed, bad depths; moderation by count, by
 * interval, both, switched off with one held (delivered at once), the
 * invalid mix, and the default (none); an overrun (more receives
 * completing in one burst than the CQ holds: those that fit, in order, then
 * BUFFER_OVERFLOW and the QP in ERROR).
 */

#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include "rc_common.h"

static uint32_t cb_count;     /* cq_count_cb()'s, both sides' CQs */

struct cq_fix {
	struct ndk_pair *p;
	struct ndk_pair_conn *c;
	struct ndk_pair_buf *src, *dst;
	uint32_t sent;            /* SENDs so far: request context of B's */
};

#define FIX_RQ 512

static void overrun_cb(void *ctx, ndk_status_t cq_status);

/* The fixture CQs' callback (both count in cb_count). */
static ndk_cq_notify_fn fix_notify = cq_count_cb;

/* A connection whose B side has FIX_RQ receives posted (contexts 1..). */
static int
fix_open(struct cq_fix *f, uint32_t cq_depth)
{
	struct ndk_pair_conn_opts o = {
		.rq_depth = FIX_RQ, .sq_depth = 64, .cq_depth = cq_depth,
		.notify = fix_notify,
		.notify_ctx = { &cb_count, &cb_count },
	};

	memset(f, 0, sizeof(*f));
	f->p = pair_get(0);
	TEST_ASSERT(f->p != NULL, "pair");
	f->c = ndk_pair_conn_create(f->p, &o, NULL);
	TEST_ASSERT(f->c != NULL, "connection");
	f->src = ndk_pair_buf_alloc(f->p, f->c->pd[0], 64, 0);
	f->dst = ndk_pair_buf_alloc(f->p, f->c->pd[1], 64,
				    NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	TEST_ASSERT(f->src != NULL && f->dst != NULL, "buffers");
	for (uint32_t i = 1; i <= FIX_RQ; i++) {
		struct ndk_sge s = ndk_pair_sge(f->dst, 0, 64);

		TEST_ASSERT_EQ(ndk_receive(f->c->qp[1], (void *)(uintptr_t)i,
					   &s, 1), NDK_STATUS_SUCCESS,
			       "receive %u", i);
	}
	__atomic_store_n(&cb_count, 0, __ATOMIC_RELEASE);
	return 0;
}

static void
fix_close(struct cq_fix *f)
{
	ndk_pair_buf_free(f->src);
	ndk_pair_buf_free(f->dst);
	ndk_pair_conn_destroy(f->c);
}

/*
 * @p n SENDs A -> B, each completed on A's side; B's receive completions
 * stay in its CQ.
 */
static int
send_n(struct cq_fix *f, uint32_t n)
{
	struct ndk_sge s = ndk_pair_sge(f->src, 0, 64);

	for (uint32_t i = 0; i < n; i++) {
		TEST_ASSERT_EQ(ndk_send(f->c->qp[0], (void *)1, &s, 1, 0),
			       NDK_STATUS_SUCCESS, "send");
		if (expect_ok(f->c->icq[0], NDK_OP_SEND, (void *)1, "send") != 0)
			return -1;
		f->sent++;
	}
	return 0;
}

/*
 * B's receive CQ holds exactly the receives @p from .. f->sent, in order.
 * Waits for the ones still arriving.
 */
static int
drain_from(struct cq_fix *f, uint32_t from, const char *what)
{
	struct ndk_result_ex r;

	for (uint32_t i = from; i <= f->sent; i++) {
		TEST_ASSERT_EQ(ndk_pair_wait(f->c->rcq[1], &r, 1, WAIT_S), 1,
			       "%s: receive %u missing", what, i);
		TEST_ASSERT(r.status == NDK_STATUS_SUCCESS &&
			    r.request_context == (void *)(uintptr_t)i,
			    "%s: receive %u: %s, context %p", what, i,
			    ndk_status_str(r.status), r.request_context);
	}
	return expect_none(f->c->rcq[1], what);
}

/* ------------------------------------------------------------------ */
/* Cases                                                               */
/* ------------------------------------------------------------------ */

static int
t_flags(void)
{
	struct ndk_pair *p = pair_get(0);
	const uint32_t want = NDK_ADAPTER_FLAG_CQ_RESIZE_SUPPORTED |
		NDK_ADAPTER_FLAG_CQ_INTERRUPT_MODERATION_SUPPORTED;

	TEST_ASSERT(p != NULL, "pair");
	TEST_ASSERT_EQ(p->info[0].adapter_flags & want, want,
		       "adapter flags 0x%x", p->info[0].adapter_flags);
	/* The others as they hold (doc/provider.md). */
	TEST_ASSERT(!(p->info[0].adapter_flags &
		      (NDK_ADAPTER_FLAG_IN_ORDER_DMA_SUPPORTED |
		       NDK_ADAPTER_FLAG_LOOPBACK_CONNECTIONS_SUPPORTED)),
		    "in-order DMA or loopback claimed: 0x%x",
		    p->info[0].adapter_flags);
	TEST_ASSERT_EQ(!!(p->info[0].adapter_flags &
			  NDK_ADAPTER_FLAG_MULTI_ENGINE_SUPPORTED),
		       p->info[0].nb_queues > 1, "multi-engine with %u queues",
		       p->info[0].nb_queues);
	return 0;
}

static int
t_resize(void)
{
	struct cq_fix f;
	struct ndk_cq *cq;
	ndk_status_t st;

	if (fix_open(&f, 32) != 0)
		return -1;
	cq = f.c->rcq[1];
	if (send_n(&f, 20) != 0)
		return -1;
	/* Below what it holds: refused, nothing lost. */
	st = ndk_resize_cq(cq, 8);
	TEST_ASSERT_EQ(st, NDK_STATUS_BUFFER_OVERFLOW, "shrink below 20: %s",
		       ndk_status_str(st));
	/* Up with 20 in it: they stay, in order, and 200 more fit. */
	st = ndk_resize_cq(cq, 300);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "grow: %s", ndk_status_str(st));
	if (send_n(&f, 200) != 0 || drain_from(&f, 1, "after growing") != 0)
		return -1;
	/* Bad depths. */
	TEST_ASSERT_EQ(ndk_resize_cq(cq, 0), NDK_STATUS_INVALID_PARAMETER,
		       "depth 0");
	TEST_ASSERT_EQ(ndk_resize_cq(cq, f.p->info[1].max_cq_depth + 1),
		       NDK_STATUS_INVALID_PARAMETER, "above max_cq_depth");
	TEST_ASSERT_EQ(ndk_resize_cq(NULL, 16), NDK_STATUS_INVALID_HANDLE,
		       "NULL CQ");
	/* Again (the ring resized before is freed), down to exactly what
	 * it holds, then armed across a resize. */
	if (send_n(&f, 16) != 0)
		return -1;
	ndk_pair_sleep_ms(20);
	st = ndk_resize_cq(cq, 16);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "shrink to 16 holding 16: %s",
		       ndk_status_str(st));
	if (drain_from(&f, 221, "after shrinking") != 0)
		return -1;
	ndk_arm_cq(cq, NDK_CQ_NOTIFY_ANY);
	TEST_ASSERT_EQ(ndk_resize_cq(cq, 64), NDK_STATUS_SUCCESS, "armed");
	if (send_n(&f, 1) != 0)
		return -1;
	TEST_ASSERT(cq_count_wait(&cb_count, 1), "the arm did not survive the resize");
	if (drain_from(&f, 237, "after the armed resize") != 0)
		return -1;
	fix_close(&f);
	return 0;
}

static int
t_moderation(void)
{
	const uint32_t hour_us = 3600u * 1000000u;
	struct cq_fix f;
	struct ndk_cq *cq;
	uint32_t next = 1;
	ndk_status_t st;

	if (fix_open(&f, 256) != 0)
		return -1;
	cq = f.c->rcq[1];
	st = ndk_control_cq_interrupt_moderation(cq, UINT32_MAX, UINT32_MAX);
	TEST_ASSERT_EQ(st, NDK_STATUS_INVALID_PARAMETER_MIX, "%s",
		       ndk_status_str(st));
	TEST_ASSERT_EQ(ndk_control_cq_interrupt_moderation(cq, UINT32_MAX,
							  1000),
		       NDK_STATUS_INVALID_PARAMETER_MIX, "count above depth");
	TEST_ASSERT_EQ(ndk_control_cq_interrupt_moderation(NULL, 0, 0),
		       NDK_STATUS_INVALID_HANDLE, "NULL CQ");

	/* Default, none: the first completion notifies. */
	ndk_arm_cq(cq, NDK_CQ_NOTIFY_ANY);
	if (send_n(&f, 1) != 0)
		return -1;
	TEST_ASSERT(cq_count_wait(&cb_count, 1), "no moderation: no callback");
	if (drain_from(&f, next, "none") != 0)
		return -1;
	next = f.sent + 1;

	/* The count alone: 4 completions. */
	TEST_ASSERT_EQ(ndk_control_cq_interrupt_moderation(cq, UINT32_MAX, 4),
		       NDK_STATUS_SUCCESS, "count 4");
	ndk_arm_cq(cq, NDK_CQ_NOTIFY_ANY);
	if (send_n(&f, 3) != 0)
		return -1;
	ndk_pair_sleep_ms(100);
	TEST_ASSERT_EQ(cq_count_get(&cb_count), 1, "count 4: notified after 3");
	if (send_n(&f, 1) != 0)
		return -1;
	TEST_ASSERT(cq_count_wait(&cb_count, 2), "count 4: no callback after 4");
	if (drain_from(&f, next, "count") != 0)
		return -1;
	next = f.sent + 1;

	/* Both: an hour or 3 completions, the count first. */
	TEST_ASSERT_EQ(ndk_control_cq_interrupt_moderation(cq, hour_us, 3),
		       NDK_STATUS_SUCCESS, "an hour or 3");
	ndk_arm_cq(cq, NDK_CQ_NOTIFY_ANY);
	if (send_n(&f, 2) != 0)
		return -1;
	ndk_pair_sleep_ms(100);
	TEST_ASSERT_EQ(cq_count_get(&cb_count), 2, "an hour or 3: notified after 2");
	if (send_n(&f, 1) != 0)
		return -1;
	TEST_ASSERT(cq_count_wait(&cb_count, 3), "an hour or 3: no callback after 3");
	if (drain_from(&f, next, "both") != 0)
		return -1;
	next = f.sent + 1;

	/* The interval alone (count above the depth): queue 0's clock. */
	TEST_ASSERT_EQ(ndk_control_cq_interrupt_moderation(cq, 20000,
							  UINT32_MAX),
		       NDK_STATUS_SUCCESS, "20 ms");
	ndk_arm_cq(cq, NDK_CQ_NOTIFY_ANY);
	if (send_n(&f, 1) != 0)
		return -1;
	TEST_ASSERT(cq_count_wait(&cb_count, 4), "20 ms: never notified");
	if (drain_from(&f, next, "interval") != 0)
		return -1;
	next = f.sent + 1;

	/* Held for an hour, then moderation off: delivered by that call. */
	TEST_ASSERT_EQ(ndk_control_cq_interrupt_moderation(cq, hour_us,
							  UINT32_MAX),
		       NDK_STATUS_SUCCESS, "an hour");
	ndk_arm_cq(cq, NDK_CQ_NOTIFY_ANY);
	if (send_n(&f, 2) != 0)
		return -1;
	ndk_pair_sleep_ms(100);
	TEST_ASSERT_EQ(cq_count_get(&cb_count), 4, "an hour: notified");
	TEST_ASSERT_EQ(ndk_control_cq_interrupt_moderation(cq, 0, 0),
		       NDK_STATUS_SUCCESS, "off");
	TEST_ASSERT(cq_count_wait(&cb_count, 5),
		    "moderation off: the held one not delivered");
	if (drain_from(&f, next, "off") != 0)
		return -1;
	next = f.sent + 1;

	/* Off again: every completion notifies its arm. */
	ndk_arm_cq(cq, NDK_CQ_NOTIFY_ANY);
	if (send_n(&f, 1) != 0)
		return -1;
	TEST_ASSERT(cq_count_wait(&cb_count, 6), "off: no callback");
	ndk_pair_sleep_ms(50);
	TEST_ASSERT_EQ(cq_count_get(&cb_count), 6, "callbacks for one arm");
	if (drain_from(&f, next, "off again") != 0)
		return -1;
	/* Moderated CQ closed while held: nothing fires afterwards. */
	TEST_ASSERT_EQ(ndk_control_cq_interrupt_moderation(cq, 30000,
							  UINT32_MAX),
		       NDK_STATUS_SUCCESS, "30 ms");
	ndk_arm_cq(cq, NDK_CQ_NOTIFY_ANY);
	if (send_n(&f, 1) != 0)
		return -1;
	fix_close(&f);
	ndk_pair_sleep_ms(100);
	TEST_ASSERT(cq_count_get(&cb_count) <= 7, "callbacks after close: %u",
		    cq_count_get(&cb_count));
	return 0;
}

static uint32_t overrun_st = NDK_STATUS_SUCCESS; /* last callback's */

static void
overrun_cb(void *ctx, ndk_status_t cq_status)
{
	__atomic_store_n(&overrun_st, (uint32_t)cq_status, __ATOMIC_RELEASE);
	cq_count_cb(ctx, cq_status);
}

/*
 * 24 SENDs in one chain to a receive CQ of 16: the responder completes
 * them a burst at a time (rc/swroce_cq.h's stage), the enqueue that does
 * not fit kills the CQ and the QP.
 */
static int
t_overrun(void)
{
	const uint32_t depth = 16, n = 24;
	struct cq_fix f;
	struct ndk_result_ex r;
	struct ndk_qp_attr attr;
	struct ndk_sge s;

	fix_notify = overrun_cb;
	if (fix_open(&f, 256) != 0)
		return -1;
	fix_notify = cq_count_cb;
	TEST_ASSERT_EQ(ndk_resize_cq(f.c->rcq[1], depth), NDK_STATUS_SUCCESS,
		       "receive CQ of %u", depth);
	ndk_arm_cq(f.c->rcq[1], NDK_CQ_NOTIFY_ERRORS);
	s = ndk_pair_sge(f.src, 0, 64);
	for (uint32_t i = 0; i < n; i++)
		TEST_ASSERT_EQ(ndk_send(f.c->qp[0], NULL, &s, 1,
					NDK_OP_FLAG_SILENT_SUCCESS |
					(i + 1 < n ? NDK_OP_FLAG_DEFER : 0)),
			       NDK_STATUS_SUCCESS, "send %u", i);
	TEST_ASSERT(cq_count_wait(&cb_count, 1), "overrun not notified");
	TEST_ASSERT_EQ(__atomic_load_n(&overrun_st, __ATOMIC_ACQUIRE),
		       (uint32_t)NDK_STATUS_BUFFER_OVERFLOW, "overrun: %s",
		       ndk_status_str((ndk_status_t)overrun_st));
	/* What fitted, in order; nothing after it. */
	for (uint32_t i = 1; i <= depth; i++) {
		TEST_ASSERT_EQ(ndk_pair_wait(f.c->rcq[1], &r, 1, WAIT_S), 1,
			       "receive %u missing", i);
		TEST_ASSERT(r.status == NDK_STATUS_SUCCESS &&
			    r.request_context == (void *)(uintptr_t)i,
			    "receive %u: %s, context %p", i,
			    ndk_status_str(r.status), r.request_context);
	}
	TEST_ASSERT_EQ(ndk_get_cq_results_ex(f.c->rcq[1], &r, 1), 0,
		       "an entry after the overrun");
	for (uint32_t k = 0; k < 100; k++) {
		TEST_ASSERT_EQ(ndk_qp_query(f.c->qp[1], &attr),
			       NDK_STATUS_SUCCESS, "query");
		if (attr.state == NDK_QP_STATE_ERROR)
			break;
		ndk_pair_sleep_ms(10);
	}
	TEST_ASSERT_EQ(attr.state, NDK_QP_STATE_ERROR,
		       "the QP of a dead CQ is not in ERROR");
	fix_close(&f);
	return 0;
}

static const struct ndk_test_case cases[] = {
	{ "flags", t_flags },
	{ "resize", t_resize },
	{ "moderation", t_moderation },
	{ "overrun", t_overrun },
};

int
main(int argc, char **argv)
{
	return rc_main("test_func_cq", "cq", cases, RTE_DIM(cases), argc,
		       argv);
}
