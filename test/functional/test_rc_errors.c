/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: flushing (QP to ERROR and NdkFlush), CQ notifications, and
 * remote access errors.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include "rc_common.h"

static enum ndk_qp_state
qp_state(struct ndk_qp *qp)
{
	struct ndk_qp_attr a;

	if (ndk_qp_query(qp, &a) != NDK_STATUS_SUCCESS)
		return (enum ndk_qp_state)-1;
	return a.state;
}

/* ------------------------------------------------------------------ */
/* Flushing                                                            */
/* ------------------------------------------------------------------ */

#define FL_SENDS 30
#define FL_RECVS 40

/*
 * Fill A's queues with requests that cannot finish (the first SEND finds
 * no receive at B and RNR-retries forever; everything behind it waits),
 * then flush A with @p how and check each request completes once,
 * CANCELLED, in order.
 */
static int
flush_case(struct ndk_pair *p, int how)
{
	struct ndk_pair_conn_opts o = {
		.rq_depth = 64, .sq_depth = 64, .cq_depth = 256,
		.rnr_retry = 7, .min_rnr_timer = 1,
	};
	const char *name = how == 0 ? "modify(ERROR)" : "ndk_flush";
	static const enum ndk_operation_type kt[] = {
		NDK_OP_SEND, NDK_OP_WRITE, NDK_OP_READ,
	};
	struct ndk_result_ex r[FL_RECVS + FL_SENDS + 8];
	struct ndk_pair_conn *c;
	struct ndk_pair_buf *loc, *rem;
	struct ndk_qp_attr a;
	ndk_status_t st;
	uint32_t n;
	char d[200];

	c = ndk_pair_conn_create(p, &o, NULL);
	TEST_ASSERT(c != NULL, "connection");
	loc = ndk_pair_buf_alloc(p, c->pd[0], 65536, read_sink_flags(p));
	rem = ndk_pair_buf_alloc(p, c->pd[1], 65536,
				 NDK_MR_FLAG_ALLOW_REMOTE_READ |
				 NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
	TEST_ASSERT(loc != NULL && rem != NULL, "buffers");

	for (int i = 0; i < FL_RECVS; i++) {
		struct ndk_sge s = ndk_pair_sge(loc, i * 1000, 1000);

		st = ndk_receive(c->qp[0], (void *)(uintptr_t)(1000 + i), &s, 1);
		TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "receive %d", i);
	}
	for (int i = 0; i < FL_SENDS; i++) {
		struct ndk_sge s = ndk_pair_sge(loc, i * 2000, 2000);
		void *req = (void *)(uintptr_t)(i + 1);
		int k = i == 0 ? 0 : i % 3;

		if (k == 0)
			st = ndk_send(c->qp[0], req, &s, 1, 0);
		else if (k == 1)
			st = ndk_write(c->qp[0], req, &s, 1,
				       ndk_pair_raddr(rem, i * 2000),
				       rem->rtoken, 0);
		else
			st = ndk_read(c->qp[0], req, &s, 1,
				      ndk_pair_raddr(rem, i * 2000),
				      rem->rtoken, 0);
		TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "request %d: %s", i,
			       ndk_status_str(st));
	}
	ndk_pair_sleep_ms(200);
	if (expect_none(c->icq[0], "stuck behind an RNR send") != 0)
		return -1;

	if (how == 0) {
		memset(&a, 0, sizeof(a));
		a.state = NDK_QP_STATE_ERROR;
		st = ndk_qp_modify(c->qp[0], &a, NDK_QP_ATTR_STATE);
		TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "modify ERROR: %s",
			       ndk_status_str(st));
	} else {
		ndk_flush(c->qp[0]);
	}

	n = ndk_pair_wait(c->icq[0], r, FL_SENDS, WAIT_S);
	TEST_ASSERT_EQ(n, FL_SENDS, "%s: initiator completions", name);
	for (int i = 0; i < FL_SENDS; i++) {
		enum ndk_operation_type t = kt[i == 0 ? 0 : i % 3];

		ndk_pair_result_str(&r[i], d, sizeof(d));
		TEST_ASSERT(r[i].status == NDK_STATUS_CANCELLED,
			    "%s: initiator %d: %s", name, i, d);
		TEST_ASSERT(r[i].request_context == (void *)(uintptr_t)(i + 1)
			    && r[i].type == t, "%s: initiator completion %d "
			    "out of order or wrong type: %s", name, i, d);
	}
	n = ndk_pair_wait(c->rcq[0], r, FL_RECVS, WAIT_S);
	TEST_ASSERT_EQ(n, FL_RECVS, "%s: receive completions", name);
	for (int i = 0; i < FL_RECVS; i++) {
		ndk_pair_result_str(&r[i], d, sizeof(d));
		TEST_ASSERT(r[i].status == NDK_STATUS_CANCELLED &&
			    r[i].type == NDK_OP_RECEIVE &&
			    r[i].request_context ==
			    (void *)(uintptr_t)(1000 + i),
			    "%s: receive %d: %s", name, i, d);
	}
	ndk_pair_sleep_ms(200);
	if (expect_none(c->icq[0], "after the flush") != 0 ||
	    expect_none(c->rcq[0], "after the flush") != 0)
		return -1;
	printf("  %s: QP A is %s, QP B is %s\n", name,
	       ndk_qp_state_str(qp_state(c->qp[0])),
	       ndk_qp_state_str(qp_state(c->qp[1])));

	/* Posts after the flush complete CANCELLED too. */
	{
		struct ndk_sge s = ndk_pair_sge(loc, 0, 10);

		st = ndk_send(c->qp[0], (void *)77, &s, 1, 0);
		TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "%s: send after: %s",
			       name, ndk_status_str(st));
		st = ndk_write(c->qp[0], (void *)78, &s, 1,
			       ndk_pair_raddr(rem, 0), rem->rtoken,
			       NDK_OP_FLAG_SILENT_SUCCESS);
		TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "%s: write after: %s",
			       name, ndk_status_str(st));
		st = ndk_receive(c->qp[0], (void *)79, &s, 1);
		TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "%s: receive after: %s",
			       name, ndk_status_str(st));
		TEST_ASSERT_EQ(ndk_pair_wait(c->icq[0], r, 2, WAIT_S), 2,
			       "%s: completions of posts after", name);
		TEST_ASSERT(r[0].status == NDK_STATUS_CANCELLED &&
			    r[0].request_context == (void *)77 &&
			    r[1].status == NDK_STATUS_CANCELLED &&
			    r[1].request_context == (void *)78,
			    "%s: posts after: %s / %s", name,
			    ndk_pair_result_str(&r[0], d, sizeof(d)),
			    ndk_pair_result_str(&r[1], d + 100, 100));
		TEST_ASSERT_EQ(ndk_pair_wait(c->rcq[0], r, 1, WAIT_S), 1,
			       "%s: receive after", name);
		TEST_ASSERT(r[0].status == NDK_STATUS_CANCELLED &&
			    r[0].request_context == (void *)79,
			    "%s: receive after: %s", name,
			    ndk_pair_result_str(&r[0], d, sizeof(d)));
	}
	ndk_pair_sleep_ms(100);
	if (expect_none(c->icq[0], "end") != 0 ||
	    expect_none(c->rcq[0], "end") != 0)
		return -1;
	TEST_ASSERT(ndk_pair_buf_guards_ok(loc) && ndk_pair_buf_guards_ok(rem),
		    "guards");
	ndk_pair_conn_destroy(c);
	return 0;
}

static int
t_flush_modify_error(void)
{
	struct ndk_pair *p = pair_get(0);

	TEST_ASSERT(p != NULL, "pair");
	return flush_case(p, 0);
}

static int
t_flush_ndk_flush(void)
{
	struct ndk_pair *p = pair_get(0);

	TEST_ASSERT(p != NULL, "pair");
	return flush_case(p, 1);
}

/* ------------------------------------------------------------------ */
/* CQ notifications                                                    */
/* ------------------------------------------------------------------ */

static uint32_t notify_count[2];
static int32_t notify_status[2];

static void
notify_cb(void *ctx, ndk_status_t cq_status)
{
	int side = (int)(uintptr_t)ctx;

	__atomic_store_n(&notify_status[side], cq_status, __ATOMIC_RELAXED);
	__atomic_fetch_add(&notify_count[side], 1, __ATOMIC_RELEASE);
}

static uint32_t
count_of(int side)
{
	return __atomic_load_n(&notify_count[side], __ATOMIC_ACQUIRE);
}

/* Wait until the count of @p side reaches @p n (or 60 s). */
static bool
wait_count(int side, uint32_t n)
{
	double end = ndk_pair_now() + WAIT_S;

	while (count_of(side) < n && ndk_pair_now() < end)
		ndk_pair_sleep_ms(1);
	return count_of(side) >= n;
}

static int
notify_send(struct ndk_pair_conn *c, struct ndk_pair_buf *src,
	    struct ndk_pair_buf *dst, uint32_t flags, const char *what)
{
	struct ndk_sge s = ndk_pair_sge(dst, 0, 64);

	TEST_ASSERT_EQ(ndk_receive(c->qp[1], (void *)2, &s, 1),
		       NDK_STATUS_SUCCESS, "receive");
	s = ndk_pair_sge(src, 0, 64);
	TEST_ASSERT_EQ(ndk_send(c->qp[0], (void *)1, &s, 1, flags),
		       NDK_STATUS_SUCCESS, "send");
	if (expect_ok(c->icq[0], NDK_OP_SEND, (void *)1, what) != 0 ||
	    expect_ok(c->rcq[1], NDK_OP_RECEIVE, (void *)2, what) != 0)
		return -1;
	return 0;
}

static int
t_cq_notify(void)
{
	struct ndk_pair *p = pair_get(0);
	struct ndk_pair_conn_opts o = {
		.notify = notify_cb,
		.notify_ctx = { (void *)0, (void *)1 },
	};
	struct ndk_pair_conn *c;
	struct ndk_pair_buf *src, *dst;
	uint32_t k;

	TEST_ASSERT(p != NULL, "pair");
	notify_count[0] = notify_count[1] = 0;
	c = ndk_pair_conn_create(p, &o, NULL);
	TEST_ASSERT(c != NULL, "connection");
	src = ndk_pair_buf_alloc(p, c->pd[0], 64, 0);
	dst = ndk_pair_buf_alloc(p, c->pd[1], 64,
				 NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	TEST_ASSERT(src != NULL && dst != NULL, "buffers");

	/* Unarmed: no callback. */
	if (notify_send(c, src, dst, 0, "unarmed") != 0)
		return -1;
	ndk_pair_sleep_ms(50);
	TEST_ASSERT_EQ(count_of(0), 0, "callback without an arm");

	/* ANY on A's initiator CQ: one callback per arm. */
	for (uint32_t i = 1; i <= 5; i++) {
		ndk_arm_cq(c->icq[0], NDK_CQ_NOTIFY_ANY);
		if (notify_send(c, src, dst, 0, "armed ANY") != 0)
			return -1;
		TEST_ASSERT(wait_count(0, i), "arm %u: no callback", i);
		ndk_pair_sleep_ms(20);
		TEST_ASSERT_EQ(count_of(0), i, "arm %u: callbacks", i);
		TEST_ASSERT_EQ(notify_status[0], NDK_STATUS_SUCCESS,
			       "cq_status %s",
			       ndk_status_str(notify_status[0]));
	}
	/* Two more completions without re-arming: no callback. */
	if (notify_send(c, src, dst, 0, "after the arm fired") != 0 ||
	    notify_send(c, src, dst, 0, "after the arm fired") != 0)
		return -1;
	ndk_pair_sleep_ms(100);
	TEST_ASSERT_EQ(count_of(0), 5, "callbacks without an arm");
	/*
	 * Re-arming with entries that arrived since the last callback may
	 * fire at once (NDKPI); either way the next completion is covered
	 * and the total is one for this arm.
	 */
	ndk_arm_cq(c->icq[0], NDK_CQ_NOTIFY_ANY);
	ndk_pair_sleep_ms(50);
	k = count_of(0);
	printf("  re-arm over older entries fired %s\n",
	       k == 6 ? "at once" : "on the next completion");
	if (notify_send(c, src, dst, 0, "re-armed") != 0)
		return -1;
	TEST_ASSERT(wait_count(0, 6), "re-arm: no callback");
	ndk_pair_sleep_ms(50);
	TEST_ASSERT_EQ(count_of(0), 6, "one callback per arm");

	/* SOLICITED on B's receive CQ. */
	k = count_of(1);
	TEST_ASSERT_EQ(k, 0, "B callbacks without an arm");
	ndk_arm_cq(c->rcq[1], NDK_CQ_NOTIFY_SOLICITED);
	if (notify_send(c, src, dst, 0, "plain send") != 0)
		return -1;
	ndk_pair_sleep_ms(100);
	TEST_ASSERT_EQ(count_of(1), 0, "a plain send satisfied SOLICITED");
	if (notify_send(c, src, dst, NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT,
			"solicited send") != 0)
		return -1;
	TEST_ASSERT(wait_count(1, 1), "SEND_AND_SOLICIT_EVENT: no callback");
	ndk_pair_sleep_ms(50);
	TEST_ASSERT_EQ(count_of(1), 1, "callbacks for one SOLICITED arm");
	if (notify_send(c, src, dst, NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT,
			"second solicited send") != 0)
		return -1;
	ndk_pair_sleep_ms(100);
	TEST_ASSERT_EQ(count_of(1), 1, "callback without a re-arm");
	/* ANY on B's receive CQ is satisfied by a plain send. */
	ndk_arm_cq(c->rcq[1], NDK_CQ_NOTIFY_ANY);
	if (notify_send(c, src, dst, 0, "plain send, ANY") != 0)
		return -1;
	TEST_ASSERT(wait_count(1, 2), "ANY on receive CQ: no callback");
	ndk_pair_conn_destroy(c);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Remote access errors                                                */
/* ------------------------------------------------------------------ */

struct acc_case {
	const char *name;
	bool read;             /* READ (else WRITE) */
	uint32_t mr_flags;     /* of the target region */
	int64_t off;           /* start offset in the target */
	int32_t extra;         /* bytes beyond the region's length */
	bool bad_token;
	bool deregistered;
};

static int
access_case(struct ndk_pair *p, const struct acc_case *ac)
{
	const size_t len = 8192;
	struct ndk_test_xstats b0, b1, a0, a1;
	struct ndk_pair_conn *c;
	struct ndk_pair_buf *tgt, *loc;
	struct ndk_result_ex r;
	struct ndk_sge s;
	uint32_t token;
	uint32_t n;
	ndk_status_t st;
	char d[200];

	c = ndk_pair_conn_create(p, NULL, NULL);
	TEST_ASSERT(c != NULL, "connection");
	tgt = ndk_pair_buf_alloc(p, c->pd[1], len, ac->mr_flags);
	loc = ndk_pair_buf_alloc(p, c->pd[0], len + 64, read_sink_flags(p));
	TEST_ASSERT(tgt != NULL && loc != NULL, "buffers");
	ndk_pair_fill(tgt->data, len, 0xACC);
	ndk_pair_fill(loc->data, len + 64, 0xBCC);
	token = ac->bad_token ? ~tgt->rtoken : tgt->rtoken;
	if (ac->deregistered)
		TEST_ASSERT_EQ(ndk_deregister_mr(tgt->mr), NDK_STATUS_SUCCESS,
			       "deregister");
	ndk_pair_stats(p, 0, &a0);
	ndk_pair_stats(p, 1, &b0);

	s = ndk_pair_sge(loc, 0, (uint32_t)((int64_t)len - ac->off +
					    ac->extra));
	if (ac->read)
		st = ndk_read(c->qp[0], (void *)9, &s, 1,
			      ndk_pair_raddr(tgt, 0) + (uint64_t)ac->off,
			      token, 0);
	else
		st = ndk_write(c->qp[0], (void *)9, &s, 1,
			       ndk_pair_raddr(tgt, 0) + (uint64_t)ac->off,
			       token, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "%s: post: %s", ac->name,
		       ndk_status_str(st));
	n = ndk_pair_wait(c->icq[0], &r, 1, WAIT_S);
	TEST_ASSERT_EQ(n, 1, "%s: no completion", ac->name);
	ndk_pair_result_str(&r, d, sizeof(d));
	printf("  %-28s -> %s\n", ac->name, d);
	TEST_ASSERT(r.status != NDK_STATUS_SUCCESS, "%s succeeded", ac->name);
	TEST_ASSERT(r.request_context == (void *)9 &&
		    r.type == (ac->read ? NDK_OP_READ : NDK_OP_WRITE),
		    "%s: %s", ac->name, d);
	TEST_ASSERT(r.provider_error != NDK_PERR_NONE, "%s: no provider "
		    "error code", ac->name);
	/* Not one byte of the target (or the guards) changed. */
	TEST_ASSERT(ndk_pair_check(tgt->data, len, 0xACC) < 0,
		    "%s: target changed", ac->name);
	TEST_ASSERT(ndk_pair_buf_guards_ok(tgt) && ndk_pair_buf_guards_ok(loc),
		    "%s: guards changed", ac->name);
	ndk_pair_sleep_ms(20);
	TEST_ASSERT(qp_state(c->qp[0]) == NDK_QP_STATE_ERROR,
		    "%s: requester QP in %s, not ERROR", ac->name,
		    ndk_qp_state_str(qp_state(c->qp[0])));
	ndk_pair_stats(p, 0, &a1);
	ndk_pair_stats(p, 1, &b1);
	printf("  %-28s    B nak_access_sent +%" PRIu64 " nak_inv_sent +%"
	       PRIu64 ", A nak_fatal_rcvd +%" PRIu64 "; QP B %s\n", "",
	       XS_DIFF(&b1, &b0, "nak_access_sent"),
	       XS_DIFF(&b1, &b0, "nak_inv_sent"),
	       XS_DIFF(&a1, &a0, "nak_fatal_rcvd"),
	       ndk_qp_state_str(qp_state(c->qp[1])));
	TEST_ASSERT(XS(&b1, "nak_access_sent") > XS(&b0, "nak_access_sent"),
		    "%s: no remote-access NAK counted", ac->name);
	ndk_pair_conn_destroy(c);
	return 0;
}

static int
t_remote_access_errors(void)
{
	const uint32_t rw = NDK_MR_FLAG_ALLOW_REMOTE_READ |
		NDK_MR_FLAG_ALLOW_REMOTE_WRITE;
	static struct acc_case cases[] = {
		{ "WRITE, bad token", false, 0, 0, 0, true, false },
		{ "READ, bad token", true, 0, 0, 0, true, false },
		{ "WRITE, one byte past end", false, 0, 0, 1, false, false },
		{ "WRITE, one byte before", false, 0, -1, 0, false, false },
		{ "READ, one byte past end", true, 0, 0, 1, false, false },
		{ "READ, one byte before", true, 0, -1, 0, false, false },
		{ "WRITE, no REMOTE_WRITE", false, NDK_MR_FLAG_ALLOW_REMOTE_READ,
		  0, 0, false, false },
		{ "READ, no REMOTE_READ", true, NDK_MR_FLAG_ALLOW_REMOTE_WRITE,
		  0, 0, false, false },
		{ "READ, local-only region", true,
		  NDK_MR_FLAG_ALLOW_LOCAL_WRITE, 0, 0, false, false },
		{ "WRITE, deregistered region", false, 0, 0, 0, false, true },
	};
	struct ndk_pair *p = pair_get(0);
	int rc = 0;

	TEST_ASSERT(p != NULL, "pair");
	for (unsigned int i = 0; i < RTE_DIM(cases); i++) {
		if (cases[i].mr_flags == 0)
			cases[i].mr_flags = rw;
		if (access_case(p, &cases[i]) != 0)
			rc = -1;
	}
	return rc;
}

static const struct ndk_test_case cases[] = {
	{ "flush_modify_error", t_flush_modify_error },
	{ "flush_ndk_flush", t_flush_ndk_flush },
	{ "cq_notify", t_cq_notify },
	{ "remote_access_errors", t_remote_access_errors },
};

int
main(int argc, char **argv)
{
	return rc_main("test_func_rc_errors", "rc_errors", cases, RTE_DIM(cases),
		       argc, argv);
}
