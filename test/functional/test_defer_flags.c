/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: flags inside an NDK_OP_FLAG_DEFER chain keep their meaning
 * (SILENT_SUCCESS, READ_FENCE, SEND_AND_SOLICIT_EVENT), and a released
 * chain leaves in multi-frame bursts. Chains themselves: test_defer.c.
 */

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "tok_common.h"

/* ------------------------------------------------------------------ */
/* Flags inside a chain                                                */
/* ------------------------------------------------------------------ */

static int
t_silent_success(void)
{
	struct ndk_pair_buf *src, *dst;
	struct ndk_pair_conn *c;
	struct ndk_pair *p;
	struct ndk_sge s;
	ndk_status_t st;
	double end;
	const uint32_t n = 9;
	int rc = dconn(&p, &c, NULL);

	if (rc != 0)
		return rc;
	src = ndk_pair_buf_alloc(p, c->pd[0], 2 * n * DEFER_MSG, 0);
	dst = ndk_pair_buf_alloc(p, c->pd[1], 2 * n * DEFER_MSG,
				 NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
	TEST_ASSERT(src != NULL && dst != NULL, "buffers");
	ndk_pair_fill(src->data, 2 * n * DEFER_MSG, 0x5E);

	/* Even ones silent; the last (not deferred) is signalled. */
	for (uint32_t i = 0; i < n; i++) {
		uint32_t fl = (i + 1 < n ? NDK_OP_FLAG_DEFER : 0) |
			(i % 2 == 0 && i + 1 < n ?
			 NDK_OP_FLAG_SILENT_SUCCESS : 0);

		s = ndk_pair_sge(src, i * DEFER_MSG, DEFER_MSG);
		st = ndk_write(c->qp[0], (void *)(uintptr_t)(i + 1), &s, 1,
			       ndk_pair_raddr(dst, i * DEFER_MSG), dst->rtoken,
			       fl);
		TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "WRITE %u", i);
	}
	for (uint32_t i = 1; i < n; i += 2)
		if (expect_ok(c->icq[0], NDK_OP_WRITE,
			      (void *)(uintptr_t)(i + 1),
			      "signalled WRITE") != 0)
			return -1;
	if (expect_ok(c->icq[0], NDK_OP_WRITE, (void *)(uintptr_t)n,
		      "last WRITE") != 0)
		return -1;
	ndk_pair_sleep_ms(30);
	if (expect_none(c->icq[0], "silent WRITEs") != 0)
		return -1;
	TEST_ASSERT(ndk_pair_check(dst->data, n * DEFER_MSG, 0x5E) < 0, "data");

	/* All silent, the last one too: data lands, no completion at all. */
	for (uint32_t i = n; i < 2 * n; i++) {
		uint32_t fl = NDK_OP_FLAG_SILENT_SUCCESS |
			(i + 1 < 2 * n ? NDK_OP_FLAG_DEFER : 0);

		s = ndk_pair_sge(src, i * DEFER_MSG, DEFER_MSG);
		st = ndk_write(c->qp[0], (void *)(uintptr_t)(i + 1), &s, 1,
			       ndk_pair_raddr(dst, i * DEFER_MSG), dst->rtoken,
			       fl);
		TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "WRITE %u", i);
	}
	end = ndk_pair_now() + WAIT_S;
	while (ndk_pair_check(dst->data, 2 * n * DEFER_MSG, 0x5E) >= 0 &&
	       ndk_pair_now() < end)
		ndk_pair_sleep_ms(1);
	TEST_ASSERT(ndk_pair_check(dst->data, 2 * n * DEFER_MSG, 0x5E) < 0,
		    "all-silent chain: data did not arrive");
	ndk_pair_sleep_ms(50);
	if (expect_none(c->icq[0], "all-silent chain") != 0 ||
	    expect_chain_stats(c->qp[0], 2 * n, 2 * (n - 1), 2, 2 * n, n,
			       "two chains") != 0)
		return -1;
	ndk_pair_buf_free(src);
	ndk_pair_buf_free(dst);
	ndk_pair_conn_destroy(c);
	return 0;
}

/*
 * Chains that fill a queue of 8 with mixed requests, silent but the last
 * in odd rounds, all silent in even ones: an ACK retires a run of silent
 * SENDs and WRITEs at once (without completions), a silent READ only once
 * its data is placed. Every round must find the whole queue free again
 * (after an all-silent round, once the ACKs came: no completion says so).
 */
static int
t_silent_slots(void)
{
	static const enum ndk_operation_type ops[8] = {
		NDK_OP_WRITE, NDK_OP_WRITE, NDK_OP_SEND, NDK_OP_WRITE,
		NDK_OP_READ, NDK_OP_SEND, NDK_OP_WRITE, NDK_OP_WRITE,
	};
	struct ndk_pair_conn_opts o = {
		.rq_depth = 64, .sq_depth = 8, .cq_depth = 256,
	};
	const uint32_t rounds = 4, sz = 256;
	struct ndk_pair_buf *src, *sink, *dst, *rsrc, *rcv;
	struct ndk_result_ex r[4];
	struct ndk_pair_conn *c;
	struct ndk_pair *p;
	struct ndk_sge s;
	ndk_status_t st;
	uint32_t nrecv = 0;
	int rc = dconn(&p, &c, &o);

	if (rc != 0)
		return rc;
	src = ndk_pair_buf_alloc(p, c->pd[0], rounds * 8 * sz, 0);
	sink = ndk_pair_buf_alloc(p, c->pd[0], rounds * sz, read_sink_flags(p));
	dst = ndk_pair_buf_alloc(p, c->pd[1], rounds * 8 * sz,
				 NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
	rsrc = ndk_pair_buf_alloc(p, c->pd[1], rounds * sz,
				  NDK_MR_FLAG_ALLOW_REMOTE_READ);
	rcv = ndk_pair_buf_alloc(p, c->pd[1], rounds * 2 * sz,
				 NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	TEST_ASSERT(src && sink && dst && rsrc && rcv, "buffers");
	ndk_pair_fill(src->data, rounds * 8 * sz, 0x61);
	ndk_pair_fill(rsrc->data, rounds * sz, 0x62);
	for (uint32_t i = 0; i < rounds * 2; i++) {
		s = ndk_pair_sge(rcv, i * sz, sz);
		TEST_ASSERT_EQ(ndk_receive(c->qp[1], NULL, &s, 1),
			       NDK_STATUS_SUCCESS, "receive %u", i);
	}
	for (uint32_t k = 0; k < rounds; k++) {
		for (uint32_t i = 0; i < 8; i++) {
			uint32_t off = (k * 8 + i) * sz;
			uint32_t fl = i < 7 ? NDK_OP_FLAG_DEFER |
				NDK_OP_FLAG_SILENT_SUCCESS :
				k % 2 == 0 ? NDK_OP_FLAG_SILENT_SUCCESS : 0;
			void *ctx = (void *)(uintptr_t)(k * 8 + i + 1);
			double end = ndk_pair_now() + WAIT_S;

			s = ndk_pair_sge(src, off, sz);
		again:
			if (ops[i] == NDK_OP_WRITE) {
				st = ndk_write(c->qp[0], ctx, &s, 1,
					       ndk_pair_raddr(dst, off),
					       dst->rtoken, fl);
			} else if (ops[i] == NDK_OP_SEND) {
				st = ndk_send(c->qp[0], ctx, &s, 1, fl);
			} else {
				s = ndk_pair_sge(sink, k * sz, sz);
				st = ndk_read(c->qp[0], ctx, &s, 1,
					      ndk_pair_raddr(rsrc, k * sz),
					      rsrc->rtoken, fl);
			}
			/*
			 * After an all-silent round: until its ACKs came
			 * (a refused post releases the chain so far).
			 */
			if (st == NDK_STATUS_NO_MORE_ENTRIES &&
			    ndk_pair_now() < end) {
				ndk_pair_sleep_ms(1);
				goto again;
			}
			TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS,
				       "round %u, request %u: %s", k, i,
				       ndk_status_str(st));
		}
		if (k % 2 == 1 &&
		    expect_ok(c->icq[0], NDK_OP_WRITE,
			      (void *)(uintptr_t)(k * 8 + 8),
			      "the signalled last WRITE") != 0)
			return -1;
		nrecv += ndk_pair_wait(c->rcq[1], r, 2, WAIT_S);
	}
	ndk_pair_sleep_ms(30);
	if (expect_none(c->icq[0], "silent requests") != 0)
		return -1;
	TEST_ASSERT_EQ(nrecv, rounds * 2, "receives");
	TEST_ASSERT(memcmp(sink->data, rsrc->data, rounds * sz) == 0,
		    "READ data");
	for (uint32_t k = 0; k < rounds; k++)
		for (uint32_t i = 0; i < 8; i++) {
			uint32_t off = (k * 8 + i) * sz;

			if (ops[i] == NDK_OP_WRITE)
				TEST_ASSERT(memcmp(dst->data + off,
						   src->data + off, sz) == 0,
					    "round %u: WRITE %u data", k, i);
		}
	for (uint32_t k = 0; k < rounds; k++)
		TEST_ASSERT(memcmp(rcv->data + 2 * k * sz,
				   src->data + (k * 8 + 2) * sz, sz) == 0 &&
			    memcmp(rcv->data + (2 * k + 1) * sz,
				   src->data + (k * 8 + 5) * sz, sz) == 0,
			    "round %u: SEND data", k);
	conn_free_all(c, (struct ndk_pair_buf *const[]){ src, sink, dst, rsrc,
							 rcv }, 5);
	return 0;
}

#define FENCE_LEN (256u * 1024)

static int
t_read_fence(void)
{
	struct ndk_pair_buf *region, *sink, *wsrc, *rcv, *bsrc, *pad;
	struct ndk_pair_conn *c;
	struct ndk_pair *p;
	struct ndk_sge s;
	ndk_status_t st;
	int rc = dconn(&p, &c, NULL);

	if (rc != 0)
		return rc;
	region = ndk_pair_buf_alloc(p, c->pd[1], FENCE_LEN,
				    NDK_MR_FLAG_ALLOW_REMOTE_READ |
				    NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
	sink = ndk_pair_buf_alloc(p, c->pd[0], FENCE_LEN, read_sink_flags(p));
	wsrc = ndk_pair_buf_alloc(p, c->pd[0], FENCE_LEN, 0);
	pad = ndk_pair_buf_alloc(p, c->pd[1], 64,
				 NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
	bsrc = ndk_pair_buf_alloc(p, c->pd[1], FENCE_LEN,
				  NDK_MR_FLAG_ALLOW_REMOTE_READ);
	rcv = ndk_pair_buf_alloc(p, c->pd[1], FENCE_LEN,
				 NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	TEST_ASSERT(region && sink && wsrc && pad && bsrc && rcv, "buffers");

	for (uint32_t round = 0; round < 4; round++) {
		uint32_t old = 0x0F00 + round * 2, new = old + 1;

		/*
		 * Remote: READ the region, then (fenced) overwrite it. The
		 * READ must return the old bytes.
		 */
		ndk_pair_fill(region->data, FENCE_LEN, old);
		ndk_pair_fill(wsrc->data, FENCE_LEN, new);
		memset(sink->data, 0, FENCE_LEN);
		s = ndk_pair_sge(sink, 0, FENCE_LEN);
		st = ndk_read(c->qp[0], (void *)1, &s, 1,
			      ndk_pair_raddr(region, 0), region->rtoken,
			      NDK_OP_FLAG_DEFER);
		TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "READ");
		s = ndk_pair_sge(wsrc, 0, FENCE_LEN);
		st = ndk_write(c->qp[0], (void *)2, &s, 1,
			       ndk_pair_raddr(region, 0), region->rtoken,
			       NDK_OP_FLAG_DEFER | NDK_OP_FLAG_READ_FENCE);
		TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "fenced WRITE");
		s = ndk_pair_sge(wsrc, 0, 8);
		st = ndk_write(c->qp[0], (void *)3, &s, 1,
			       ndk_pair_raddr(pad, 0), pad->rtoken, 0);
		TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "last WRITE");
		if (expect_ok(c->icq[0], NDK_OP_READ, (void *)1, "READ") != 0 ||
		    expect_ok(c->icq[0], NDK_OP_WRITE, (void *)2,
			      "fenced WRITE") != 0 ||
		    expect_ok(c->icq[0], NDK_OP_WRITE, (void *)3,
			      "last WRITE") != 0)
			return -1;
		{
			long bad = ndk_pair_check(sink->data, FENCE_LEN, old);

			TEST_ASSERT(bad < 0, "round %u: the READ saw bytes of "
				    "the fenced WRITE after it (first at "
				    "%ld)", round, bad);
		}
		TEST_ASSERT(ndk_pair_check(region->data, FENCE_LEN, new) < 0,
			    "round %u: the fenced WRITE did not land", round);

		/*
		 * Local: READ into the sink, then (fenced) SEND the sink: the
		 * SEND must carry what the READ brought.
		 */
		ndk_pair_fill(bsrc->data, FENCE_LEN, 0x0E00 + round);
		memset(sink->data, 0, FENCE_LEN);
		s = ndk_pair_sge(rcv, 0, FENCE_LEN);
		TEST_ASSERT_EQ(ndk_receive(c->qp[1], (void *)7, &s, 1),
			       NDK_STATUS_SUCCESS, "receive");
		s = ndk_pair_sge(sink, 0, FENCE_LEN);
		st = ndk_read(c->qp[0], (void *)4, &s, 1,
			      ndk_pair_raddr(bsrc, 0), bsrc->rtoken,
			      NDK_OP_FLAG_DEFER);
		TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "READ");
		st = ndk_send(c->qp[0], (void *)5, &s, 1,
			      NDK_OP_FLAG_DEFER | NDK_OP_FLAG_READ_FENCE);
		TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "fenced SEND");
		s = ndk_pair_sge(wsrc, 0, 8);
		st = ndk_write(c->qp[0], (void *)6, &s, 1,
			       ndk_pair_raddr(pad, 0), pad->rtoken, 0);
		TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "last WRITE");
		if (expect_ok(c->icq[0], NDK_OP_READ, (void *)4, "READ") != 0 ||
		    expect_ok(c->icq[0], NDK_OP_SEND, (void *)5,
			      "fenced SEND") != 0 ||
		    expect_ok(c->icq[0], NDK_OP_WRITE, (void *)6,
			      "last WRITE") != 0 ||
		    expect_ok(c->rcq[1], NDK_OP_RECEIVE, (void *)7,
			      "receive") != 0)
			return -1;
		{
			long bad = ndk_pair_check(rcv->data, FENCE_LEN,
						  0x0E00 + round);

			TEST_ASSERT(bad < 0, "round %u: the fenced SEND did "
				    "not carry the READ's bytes (first wrong "
				    "at %ld)", round, bad);
		}
	}
	if (expect_chain_stats(c->qp[0], 24, 16, 8, 24, 3, "fence chains") != 0)
		return -1;
	ndk_pair_conn_destroy(c);
	ndk_pair_buf_free(region);
	ndk_pair_buf_free(sink);
	ndk_pair_buf_free(wsrc);
	ndk_pair_buf_free(pad);
	ndk_pair_buf_free(bsrc);
	ndk_pair_buf_free(rcv);
	return 0;
}

/* ------------------------------------------------------------------ */
/* SEND_AND_SOLICIT_EVENT inside a chain                               */
/* ------------------------------------------------------------------ */

static uint32_t n_notify;

/*
 * B posts @p n receives; A posts a chain of @p n SENDs, the last one not
 * deferred; SEND @p solicit (or none if < 0) carries SEND_AND_SOLICIT_EVENT.
 * Waits for all completions on both sides.
 */
static int
solicit_chain(struct ndk_pair_conn *c, struct ndk_pair_buf *src,
	      struct ndk_pair_buf *dst, uint32_t n, int solicit,
	      const char *what)
{
	struct ndk_sge s;

	for (uint32_t i = 0; i < n; i++) {
		s = ndk_pair_sge(dst, i * 64, 64);
		TEST_ASSERT_EQ(ndk_receive(c->qp[1], (void *)(uintptr_t)
					   (100 + i), &s, 1),
			       NDK_STATUS_SUCCESS, "receive");
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t fl = (i + 1 < n ? NDK_OP_FLAG_DEFER : 0) |
			((int)i == solicit ?
			 NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT : 0);

		s = ndk_pair_sge(src, i * 64, 64);
		TEST_ASSERT_EQ(ndk_send(c->qp[0], (void *)(uintptr_t)(i + 1),
					&s, 1, fl),
			       NDK_STATUS_SUCCESS, "send %u", i);
	}
	if (expect_in_order(c->icq[0], n, NDK_OP_SEND, 1, -1, what) != 0 ||
	    expect_in_order(c->rcq[1], n, NDK_OP_RECEIVE, 100, 64, what) != 0)
		return -1;
	return 0;
}

static int
t_solicit_events(void)
{
	struct ndk_pair_conn_opts o = {
		.rq_depth = 64, .sq_depth = 64, .cq_depth = 256,
		.notify = cq_count_cb,
		.notify_ctx = { &n_notify, &n_notify },
	};
	struct ndk_pair_buf *src, *dst;
	struct ndk_result_ex r[2];
	struct ndk_pair_conn *c;
	struct ndk_pair *p;
	struct ndk_sge s;
	char d[200];
	int rc = dconn(&p, &c, &o);

	if (rc != 0)
		return rc;
	__atomic_store_n(&n_notify, 0, __ATOMIC_RELEASE);
	src = ndk_pair_buf_alloc(p, c->pd[0], 64 * 16, 0);
	dst = ndk_pair_buf_alloc(p, c->pd[1], 64 * 16,
				 NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	TEST_ASSERT(src != NULL && dst != NULL, "buffers");

	/* SOLICITED: a chain without a solicited SEND does not notify... */
	ndk_arm_cq(c->rcq[1], NDK_CQ_NOTIFY_SOLICITED);
	if (solicit_chain(c, src, dst, 6, -1, "unsolicited chain") != 0)
		return -1;
	ndk_pair_sleep_ms(50);
	TEST_ASSERT_EQ(cq_count_get(&n_notify), 0, "SOLICITED arm fired "
		       "without a solicited SEND");
	/* ... one with a solicited SEND in the middle does, once. */
	if (solicit_chain(c, src, dst, 6, 2, "chain, SEND 2 solicited") != 0)
		return -1;
	TEST_ASSERT(cq_count_wait(&n_notify, 1),
		    "no notification for the solicited SEND");
	ndk_pair_sleep_ms(50);
	TEST_ASSERT_EQ(cq_count_get(&n_notify), 1, "notifications for one arm");
	/* Not re-armed: nothing more. */
	if (solicit_chain(c, src, dst, 4, 1, "solicited, not armed") != 0)
		return -1;
	ndk_pair_sleep_ms(50);
	TEST_ASSERT_EQ(cq_count_get(&n_notify), 1, "notification without an arm");

	/* ANY: any receive of a chain notifies (once). */
	ndk_arm_cq(c->rcq[1], NDK_CQ_NOTIFY_ANY);
	if (solicit_chain(c, src, dst, 5, -1, "unsolicited chain, ANY") != 0)
		return -1;
	TEST_ASSERT(cq_count_wait(&n_notify, 2), "ANY arm: no notification");
	ndk_pair_sleep_ms(50);
	TEST_ASSERT_EQ(cq_count_get(&n_notify), 2, "ANY arm: notifications");

	/* SOLICITED is also satisfied by an error: a receive too small. */
	ndk_arm_cq(c->rcq[1], NDK_CQ_NOTIFY_SOLICITED);
	for (int i = 0; i < 2; i++) {
		s = ndk_pair_sge(dst, (size_t)i * 64, 16);
		TEST_ASSERT_EQ(ndk_receive(c->qp[1], (void *)(uintptr_t)
					   (200 + i), &s, 1),
			       NDK_STATUS_SUCCESS, "receive");
	}
	s = ndk_pair_sge(src, 0, 8);
	TEST_ASSERT_EQ(ndk_send(c->qp[0], (void *)21, &s, 1,
				NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS, "send");
	s = ndk_pair_sge(src, 0, 64);
	TEST_ASSERT_EQ(ndk_send(c->qp[0], (void *)22, &s, 1, 0),
		       NDK_STATUS_SUCCESS, "send");
	TEST_ASSERT_EQ(ndk_pair_wait(c->rcq[1], r, 2, WAIT_S), 2, "receives");
	TEST_ASSERT(r[0].status == NDK_STATUS_SUCCESS,
		    "receive 1: %s", ndk_pair_result_str(&r[0], d, sizeof(d)));
	printf("  oversized SEND, receiver: %s\n",
	       ndk_pair_result_str(&r[1], d, sizeof(d)));
	TEST_ASSERT(r[1].status != NDK_STATUS_SUCCESS, "receive 2 succeeded");
	TEST_ASSERT(cq_count_wait(&n_notify, 3), "SOLICITED arm: no notification for an "
		    "error completion");
	TEST_ASSERT_EQ(ndk_pair_wait(c->icq[0], r, 2, WAIT_S), 2, "sends");
	printf("  oversized SEND, sender: %s\n",
	       ndk_pair_result_str(&r[1], d, sizeof(d)));
	TEST_ASSERT(r[0].status == NDK_STATUS_SUCCESS &&
		    r[1].status != NDK_STATUS_SUCCESS, "send statuses");
	ndk_pair_buf_free(src);
	ndk_pair_buf_free(dst);
	ndk_pair_conn_destroy(c);
	return 0;
}

/* ------------------------------------------------------------------ */
/* A released chain leaves in bursts                                   */
/* ------------------------------------------------------------------ */

#define N_BURST 32

static int
burst_round(struct ndk_pair *p, struct ndk_pair_conn *c,
	    struct ndk_pair_buf *src, struct ndk_pair_buf *dst, bool defer,
	    double *ratio)
{
	struct ndk_test_xstats a0, a1;
	struct ndk_sge s;
	uint64_t pk, bu;

	ndk_pair_sleep_ms(20);
	ndk_pair_stats(p, 0, &a0);
	for (uint32_t i = 0; i <= N_BURST; i++) {
		uint32_t fl = defer && i < N_BURST ? NDK_OP_FLAG_DEFER : 0;

		s = ndk_pair_sge(src, i * 64, 64);
		TEST_ASSERT_EQ(ndk_write(c->qp[0], (void *)(uintptr_t)(i + 1),
					 &s, 1, ndk_pair_raddr(dst, i * 64),
					 dst->rtoken, fl),
			       NDK_STATUS_SUCCESS, "WRITE %u", i);
	}
	if (expect_in_order(c->icq[0], N_BURST + 1, NDK_OP_WRITE, 1, -1,
			    "burst") != 0)
		return -1;
	ndk_pair_stats(p, 0, &a1);
	pk = XS_DIFF(&a1, &a0, "tx_packets");
	bu = XS_DIFF(&a1, &a0, "tx_bursts");
	*ratio = bu == 0 ? 0 : (double)pk / (double)bu;
	printf("  %s: %u WRITEs: A tx_packets +%" PRIu64 ", tx_bursts +%"
	       PRIu64 ", %.2f frames per burst\n",
	       defer ? "deferred chain" : "separate posts", N_BURST + 1, pk, bu,
	       *ratio);
	TEST_ASSERT(pk >= N_BURST + 1, "fewer frames than WRITEs");
	return 0;
}

static int
t_tx_bursts(void)
{
	struct ndk_pair_buf *src, *dst;
	struct ndk_pair_conn *c;
	struct ndk_pair *p;
	double ratio, r2;
	uint64_t v;
	int rc;

	rc = dconn(&p, &c, NULL);
	if (rc != 0)
		return rc;
	/* The provider may not count bursts. */
	if (ndk_adapter_xstats_get_by_name(p->ad[0], "tx_bursts", &v) ==
	    -ENOENT) {
		printf("  skipped: the provider has no tx_bursts counter\n");
		ndk_pair_conn_destroy(c);
		return NDK_TEST_SKIPPED;
	}
	src = ndk_pair_buf_alloc(p, c->pd[0], 64 * (N_BURST + 1), 0);
	dst = ndk_pair_buf_alloc(p, c->pd[1], 64 * (N_BURST + 1),
				 NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
	TEST_ASSERT(src != NULL && dst != NULL, "buffers");
	if (burst_round(p, c, src, dst, true, &ratio) != 0 ||
	    burst_round(p, c, src, dst, false, &r2) != 0)
		return -1;
	TEST_ASSERT(ratio > 1.0, "a released chain of %u small WRITEs left in "
		    "single-frame bursts (%.2f frames per burst)", N_BURST + 1,
		    ratio);
	ndk_pair_buf_free(src);
	ndk_pair_buf_free(dst);
	ndk_pair_conn_destroy(c);
	return 0;
}

static const struct ndk_test_case cases[] = {
	{ "silent_success", t_silent_success },
	{ "silent_slots", t_silent_slots },
	{ "read_fence", t_read_fence },
	{ "solicit_events", t_solicit_events },
	{ "tx_bursts", t_tx_bursts },
};

int
main(int argc, char **argv)
{
	return rc_main("test_func_defer_flags", "defer_flags", cases,
		       RTE_DIM(cases), argc, argv);
}
