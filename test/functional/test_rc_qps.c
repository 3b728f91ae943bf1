/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: many QPs at once, queue depths, RNR, READ_FENCE and
 * SILENT_SUCCESS. Flushing, CQ notifications and remote access errors are
 * in test_rc_errors.c.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_random.h>

#include "rc_common.h"

/* ------------------------------------------------------------------ */
/* 64 QP pairs at once                                                 */
/* ------------------------------------------------------------------ */

#define MQ_CONNS 64
#define MQ_OPS 4

struct mq_op {
	int kind;                 /* 0 SEND, 1 WRITE, 2 READ */
	size_t len;
	uint32_t seed;
	struct ndk_pair_buf *src, *dst;
};

static int
t_many_qps(void)
{
	static const enum ndk_operation_type kind_type[] = {
		NDK_OP_SEND, NDK_OP_WRITE, NDK_OP_READ,
	};
	struct ndk_pair *p = pair_get(0);
	struct ndk_pair_conn *c[MQ_CONNS];
	static struct mq_op ops[MQ_CONNS][MQ_OPS];
	size_t bytes = 0;
	ndk_status_t st;

	TEST_ASSERT(p != NULL, "pair");
	for (int i = 0; i < MQ_CONNS; i++) {
		struct ndk_pair_conn_opts o = {
			.rq_depth = 8, .sq_depth = 8, .max_rsge = 1,
			.max_isge = 1,
		};

		c[i] = ndk_pair_conn_create(p, &o, &st);
		TEST_ASSERT(c[i] != NULL, "connection %d: %s", i,
			    ndk_status_str(st));
	}
	/* Prepare: initiator alternates between A and B. */
	for (int i = 0; i < MQ_CONNS; i++) {
		int ini = i & 1, tgt = 1 - ini;

		for (int k = 0; k < MQ_OPS; k++) {
			struct mq_op *op = &ops[i][k];
			uint32_t df;

			op->kind = (i + k) % 3;
			op->len = 1 + (size_t)(rte_rand() % (96 * 1024));
			op->seed = (uint32_t)(i * 100 + k + 1);
			bytes += op->len;
			if (op->kind == 2) {
				op->src = ndk_pair_buf_alloc(p, c[i]->pd[tgt],
					op->len, NDK_MR_FLAG_ALLOW_REMOTE_READ);
				op->dst = ndk_pair_buf_alloc(p, c[i]->pd[ini],
					op->len, read_sink_flags(p));
			} else {
				df = op->kind == 0 ?
					NDK_MR_FLAG_ALLOW_LOCAL_WRITE :
					NDK_MR_FLAG_ALLOW_REMOTE_WRITE;
				op->src = ndk_pair_buf_alloc(p, c[i]->pd[ini],
					op->len, 0);
				op->dst = ndk_pair_buf_alloc(p, c[i]->pd[tgt],
					op->len, df);
			}
			TEST_ASSERT(op->src != NULL && op->dst != NULL,
				    "buffers");
			ndk_pair_fill(op->src->data, op->len, op->seed);
		}
	}
	printf("  %d QP pairs x %d ops, %zu bytes in all\n", MQ_CONNS, MQ_OPS,
	       bytes);
	/* Post everything, QP after QP, before waiting for anything. */
	for (int i = 0; i < MQ_CONNS; i++) {
		int ini = i & 1, tgt = 1 - ini;

		for (int k = 0; k < MQ_OPS; k++) {
			struct mq_op *op = &ops[i][k];
			void *req = op;
			struct ndk_sge s;

			switch (op->kind) {
			case 0:
				s = ndk_pair_sge(op->dst, 0, (uint32_t)op->len);
				st = ndk_receive(c[i]->qp[tgt], req, &s, 1);
				TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "recv");
				s = ndk_pair_sge(op->src, 0, (uint32_t)op->len);
				st = ndk_send(c[i]->qp[ini], req, &s, 1, 0);
				break;
			case 1:
				s = ndk_pair_sge(op->src, 0, (uint32_t)op->len);
				st = ndk_write(c[i]->qp[ini], req, &s, 1,
					       ndk_pair_raddr(op->dst, 0),
					       op->dst->rtoken, 0);
				break;
			default:
				s = ndk_pair_sge(op->dst, 0, (uint32_t)op->len);
				st = ndk_read(c[i]->qp[ini], req, &s, 1,
					      ndk_pair_raddr(op->src, 0),
					      op->src->rtoken, 0);
				break;
			}
			TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "QP %d op %d: %s",
				       i, k, ndk_status_str(st));
		}
	}
	/* Completions: in posting order on each initiator queue. */
	for (int i = 0; i < MQ_CONNS; i++) {
		int ini = i & 1, tgt = 1 - ini;
		char what[64];

		for (int k = 0; k < MQ_OPS; k++) {
			struct mq_op *op = &ops[i][k];
			long bad;

			snprintf(what, sizeof(what), "QP %d op %d (%s %zu B)",
				 i, k, ndk_pair_op_str(kind_type[op->kind]),
				 op->len);
			if (expect_ok(c[i]->icq[ini], kind_type[op->kind], op,
				      what) != 0)
				return -1;
			if (op->kind == 0 &&
			    expect_ok(c[i]->rcq[tgt], NDK_OP_RECEIVE, op,
				      what) != 0)
				return -1;
			bad = ndk_pair_check(op->dst->data, op->len, op->seed);
			TEST_ASSERT(bad < 0, "%s: byte %ld wrong", what, bad);
			TEST_ASSERT(ndk_pair_buf_guards_ok(op->dst) &&
				    ndk_pair_buf_guards_ok(op->src),
				    "%s: guards", what);
		}
	}
	for (int i = 0; i < MQ_CONNS; i++) {
		for (int s = 0; s < 2; s++)
			if (expect_none(c[i]->icq[s], "extra") != 0 ||
			    expect_none(c[i]->rcq[s], "extra") != 0)
				return -1;
		for (int k = 0; k < MQ_OPS; k++) {
			ndk_pair_buf_free(ops[i][k].src);
			ndk_pair_buf_free(ops[i][k].dst);
		}
		ndk_pair_conn_destroy(c[i]);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* RNR                                                                 */
/* ------------------------------------------------------------------ */

static int
rnr_case(struct ndk_pair *p, size_t len)
{
	struct ndk_pair_conn_opts o = { .min_rnr_timer = 8, .rnr_retry = 7 };
	struct ndk_test_xstats a0, b0, a1, b1;
	struct ndk_pair_conn *c;
	struct ndk_pair_buf *src, *dst;
	struct ndk_sge s;
	char what[48];

	snprintf(what, sizeof(what), "RNR send of %zu B", len);
	c = ndk_pair_conn_create(p, &o, NULL);
	TEST_ASSERT(c != NULL, "connection");
	src = ndk_pair_buf_alloc(p, c->pd[0], len, 0);
	dst = ndk_pair_buf_alloc(p, c->pd[1], len,
				 NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	TEST_ASSERT(src != NULL && dst != NULL, "buffers");
	ndk_pair_fill(src->data, len, (uint32_t)len);
	ndk_pair_stats(p, 0, &a0);
	ndk_pair_stats(p, 1, &b0);

	s = ndk_pair_sge(src, 0, (uint32_t)len);
	TEST_ASSERT_EQ(ndk_send(c->qp[0], (void *)1, &s, 1, 0),
		       NDK_STATUS_SUCCESS, "send");
	ndk_pair_sleep_ms(300);
	if (expect_none(c->icq[0], "send before any receive") != 0 ||
	    expect_none(c->rcq[1], "receive side") != 0)
		return -1;
	s = ndk_pair_sge(dst, 0, (uint32_t)len);
	TEST_ASSERT_EQ(ndk_receive(c->qp[1], (void *)2, &s, 1),
		       NDK_STATUS_SUCCESS, "receive");
	if (expect_ok(c->icq[0], NDK_OP_SEND, (void *)1, what) != 0 ||
	    expect_ok(c->rcq[1], NDK_OP_RECEIVE, (void *)2, what) != 0)
		return -1;
	TEST_ASSERT(ndk_pair_check(dst->data, len, (uint32_t)len) < 0,
		    "%s: data", what);
	TEST_ASSERT(ndk_pair_buf_guards_ok(dst), "guards");
	ndk_pair_stats(p, 0, &a1);
	ndk_pair_stats(p, 1, &b1);
	printf("  %s: B nak_rnr_sent +%" PRIu64 " nak_seq_sent +%" PRIu64
	       " rx_out_of_seq +%" PRIu64 ", A nak_rnr_rcvd +%" PRIu64
	       " rnr_waits +%" PRIu64 " nak_seq_rcvd +%" PRIu64
	       " retransmit_packets +%" PRIu64 "\n", what,
	       XS_DIFF(&b1, &b0, "nak_rnr_sent"),
	       XS_DIFF(&b1, &b0, "nak_seq_sent"),
	       XS_DIFF(&b1, &b0, "rx_out_of_seq"),
	       XS_DIFF(&a1, &a0, "nak_rnr_rcvd"),
	       XS_DIFF(&a1, &a0, "rnr_waits"),
	       XS_DIFF(&a1, &a0, "nak_seq_rcvd"),
	       XS_DIFF(&a1, &a0, "retransmit_packets"));
	TEST_ASSERT(XS(&b1, "nak_rnr_sent") > XS(&b0, "nak_rnr_sent"),
		    "no RNR NAK counted for a send with no receive");
	TEST_ASSERT(XS(&a1, "nak_rnr_rcvd") > XS(&a0, "nak_rnr_rcvd"),
		    "no RNR NAK received");
	ndk_pair_conn_destroy(c);
	return 0;
}

static int
t_rnr(void)
{
	struct ndk_pair *p = pair_get(0);

	TEST_ASSERT(p != NULL, "pair");
	if (rnr_case(p, 100) != 0 || rnr_case(p, 50000) != 0)
		return -1;
	return 0;
}

/*
 * rnr_retry counts RNR NAKs per message, as IB and rxe do: progress gives
 * the next message the whole count again. With rnr_retry 1 and each of
 * three SENDs meeting exactly one RNR NAK (its receive is posted while
 * the ~0.5 s RNR timer runs), all three complete; a count kept over the
 * QP's life would fail the second.
 */
static int
t_rnr_per_message(void)
{
	struct ndk_pair *p = pair_get(0);
	struct ndk_pair_conn_opts o = { .min_rnr_timer = 31, .rnr_retry = 1 };
	struct ndk_pair_conn *c;
	struct ndk_pair_buf *src, *dst;
	struct ndk_sge s;
	char what[32];

	TEST_ASSERT(p != NULL, "pair");
	c = ndk_pair_conn_create(p, &o, NULL);
	TEST_ASSERT(c != NULL, "connection");
	src = ndk_pair_buf_alloc(p, c->pd[0], 64, 0);
	dst = ndk_pair_buf_alloc(p, c->pd[1], 64,
				 NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	TEST_ASSERT(src != NULL && dst != NULL, "buffers");
	for (uint32_t m = 0; m < 3; m++) {
		uint64_t rnr0 = ndk_pair_xstat(p, 0, "nak_rnr_rcvd");
		double waited = 0;

		snprintf(what, sizeof(what), "message %u", m);
		ndk_pair_fill(src->data, 64, m);
		s = ndk_pair_sge(src, 0, 64);
		TEST_ASSERT_EQ(ndk_send(c->qp[0], (void *)1, &s, 1, 0),
			       NDK_STATUS_SUCCESS, "send %u", m);
		/* Its first RNR NAK; then the receive, within the timer. */
		while (ndk_pair_xstat(p, 0, "nak_rnr_rcvd") == rnr0) {
			TEST_ASSERT(waited < WAIT_S, "%s: no RNR NAK", what);
			ndk_pair_sleep_ms(1);
			waited += 0.001;
		}
		s = ndk_pair_sge(dst, 0, 64);
		TEST_ASSERT_EQ(ndk_receive(c->qp[1], (void *)2, &s, 1),
			       NDK_STATUS_SUCCESS, "receive %u", m);
		if (expect_ok(c->icq[0], NDK_OP_SEND, (void *)1, what) != 0 ||
		    expect_ok(c->rcq[1], NDK_OP_RECEIVE, (void *)2, what) != 0)
			return -1;
		TEST_ASSERT(ndk_pair_check(dst->data, 64, m) < 0,
			    "%s: data", what);
	}
	ndk_pair_conn_destroy(c);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Queue depths                                                        */
/* ------------------------------------------------------------------ */

#define QD_DEPTH 4
#define QD_OPS 20000

static int
t_queue_depth(void)
{
	struct ndk_pair *p = pair_get(0);
	struct ndk_pair_conn_opts o = {
		.rq_depth = QD_DEPTH, .sq_depth = QD_DEPTH, .cq_depth = 64,
		.min_rnr_timer = 8,
	};
	struct ndk_pair_conn *c;
	struct ndk_pair_buf *src, *dst, *arb;
	struct ndk_result_ex r[8];
	struct ndk_sge s;
	ndk_status_t st;
	unsigned int posted = 0, done = 0, refused = 0, rdone = 0;
	unsigned int rrefused = 0;
	char d[200];

	TEST_ASSERT(p != NULL, "pair");
	c = ndk_pair_conn_create(p, &o, NULL);
	TEST_ASSERT(c != NULL, "connection");
	src = ndk_pair_buf_alloc(p, c->pd[0], 256, 0);
	dst = ndk_pair_buf_alloc(p, c->pd[1], 256,
				 NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
	arb = ndk_pair_buf_alloc(p, c->pd[0], 256,
				 NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	TEST_ASSERT(src != NULL && dst != NULL && arb != NULL, "buffers");

	/* Receive queue: depth receives fit, one more does not. */
	s = ndk_pair_sge(arb, 0, 64);
	for (int i = 0; i < QD_DEPTH; i++)
		TEST_ASSERT_EQ(ndk_receive(c->qp[0], (void *)(uintptr_t)i,
					   &s, 1), NDK_STATUS_SUCCESS,
			       "receive %d", i);
	st = ndk_receive(c->qp[0], (void *)99, &s, 1);
	TEST_ASSERT_EQ(st, NDK_STATUS_NO_MORE_ENTRIES, "receive %d of %d: %s",
		       QD_DEPTH + 1, QD_DEPTH, ndk_status_str(st));

	/*
	 * Initiator queue: a SEND that finds no receive at B blocks the
	 * queue (RNR), so depth requests fit and one more does not.
	 */
	s = ndk_pair_sge(src, 0, 64);
	TEST_ASSERT_EQ(ndk_send(c->qp[0], (void *)100, &s, 1, 0),
		       NDK_STATUS_SUCCESS, "send");
	for (int i = 1; i < QD_DEPTH; i++)
		TEST_ASSERT_EQ(ndk_write(c->qp[0], (void *)(uintptr_t)(100 + i),
					 &s, 1, ndk_pair_raddr(dst, 0),
					 dst->rtoken, 0), NDK_STATUS_SUCCESS,
			       "write %d", i);
	st = ndk_write(c->qp[0], (void *)199, &s, 1, ndk_pair_raddr(dst, 0),
		       dst->rtoken, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_NO_MORE_ENTRIES, "request %d of %d: %s",
		       QD_DEPTH + 1, QD_DEPTH, ndk_status_str(st));
	s = ndk_pair_sge(dst, 64, 64);
	TEST_ASSERT_EQ(ndk_receive(c->qp[1], (void *)200, &s, 1),
		       NDK_STATUS_SUCCESS, "receive at B");
	TEST_ASSERT_EQ(ndk_pair_wait(c->icq[0], r, QD_DEPTH, WAIT_S), QD_DEPTH,
		       "completions");
	for (int i = 0; i < QD_DEPTH; i++)
		TEST_ASSERT(r[i].status == NDK_STATUS_SUCCESS &&
			    r[i].request_context ==
			    (void *)(uintptr_t)(100 + i), "request %d: %s", i,
			    ndk_pair_result_str(&r[i], d, sizeof(d)));
	if (expect_ok(c->rcq[1], NDK_OP_RECEIVE, (void *)200, "B") != 0)
		return -1;
	ndk_pair_sleep_ms(50);
	if (expect_none(c->icq[0], "refused post") != 0)
		return -1;

	/*
	 * Reaping a completion frees its slot: a full queue, then one new
	 * request per completion taken, each of which must be accepted.
	 */
	s = ndk_pair_sge(src, 0, 64);
	for (; posted < QD_DEPTH; posted++)
		TEST_ASSERT_EQ(ndk_write(c->qp[0], NULL, &s, 1,
					 ndk_pair_raddr(dst, 0), dst->rtoken,
					 0), NDK_STATUS_SUCCESS, "write");
	while (done < QD_OPS) {
		uint32_t n = ndk_pair_wait(c->icq[0], r, 1, WAIT_S);

		TEST_ASSERT_EQ(n, 1, "completion %u", done);
		TEST_ASSERT(r[0].status == NDK_STATUS_SUCCESS, "%s",
			    ndk_pair_result_str(&r[0], d, sizeof(d)));
		done++;
		if (posted < QD_OPS) {
			st = ndk_write(c->qp[0], NULL, &s, 1,
				       ndk_pair_raddr(dst, 0), dst->rtoken, 0);
			if (st == NDK_STATUS_NO_MORE_ENTRIES) {
				refused++;
				/* Post it anyway once the slot shows up. */
				while ((st = ndk_write(c->qp[0], NULL, &s, 1,
						ndk_pair_raddr(dst, 0),
						dst->rtoken, 0)) ==
				       NDK_STATUS_NO_MORE_ENTRIES)
					;
			}
			TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "write: %s",
				       ndk_status_str(st));
			posted++;
		}
	}
	/* The same with receives: B takes sends, reposting each receive. */
	s = ndk_pair_sge(dst, 0, 64);
	for (int i = 0; i < QD_DEPTH; i++)
		TEST_ASSERT_EQ(ndk_receive(c->qp[1], NULL, &s, 1),
			       NDK_STATUS_SUCCESS, "receive");
	posted = done = 0;
	while (rdone < QD_OPS / 4) {
		struct ndk_sge ss = ndk_pair_sge(src, 0, 64);
		uint32_t n;

		if (posted - done < QD_DEPTH && posted < QD_OPS / 4) {
			/* Silent sends free their slot on the ACK: retry. */
			st = ndk_send(c->qp[0], NULL, &ss, 1,
				      NDK_OP_FLAG_SILENT_SUCCESS);
			if (st != NDK_STATUS_NO_MORE_ENTRIES) {
				TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "send: %s",
					       ndk_status_str(st));
				posted++;
			}
		}
		n = ndk_pair_wait(c->rcq[1], r, 1, posted > rdone ? WAIT_S : 0);
		if (n == 0)
			continue;
		TEST_ASSERT(r[0].status == NDK_STATUS_SUCCESS, "receive: %s",
			    ndk_pair_result_str(&r[0], d, sizeof(d)));
		rdone++;
		done = rdone;
		st = ndk_receive(c->qp[1], NULL, &s, 1);
		if (st == NDK_STATUS_NO_MORE_ENTRIES) {
			rrefused++;
			while ((st = ndk_receive(c->qp[1], NULL, &s, 1)) ==
			       NDK_STATUS_NO_MORE_ENTRIES)
				;
		}
		TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "receive: %s",
			       ndk_status_str(st));
	}
	printf("  reposts refused right after a completion: %u of %u "
	       "requests, %u of %u receives\n", refused, QD_OPS - QD_DEPTH,
	       rrefused, QD_OPS / 4);
	TEST_ASSERT(refused == 0, "the initiator queue was still full after "
		    "a completion was taken (%u times)", refused);
	TEST_ASSERT(rrefused == 0, "the receive queue was still full after "
		    "a receive completion was taken (%u times)", rrefused);
	ndk_pair_conn_destroy(c);
	return 0;
}

/* ------------------------------------------------------------------ */
/* READ_FENCE                                                          */
/* ------------------------------------------------------------------ */

static int
t_read_fence(void)
{
	const size_t len = 256 * 1024;
	struct ndk_pair *p = pair_get(0);
	struct ndk_pair_conn *c;
	struct ndk_pair_buf *rem, *sink, *nsrc;
	struct ndk_result_ex r[2];
	char d[200];

	TEST_ASSERT(p != NULL, "pair");
	c = ndk_pair_conn_create(p, NULL, NULL);
	TEST_ASSERT(c != NULL, "connection");
	rem = ndk_pair_buf_alloc(p, c->pd[1], len,
				 NDK_MR_FLAG_ALLOW_REMOTE_READ |
				 NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
	sink = ndk_pair_buf_alloc(p, c->pd[0], len, read_sink_flags(p));
	nsrc = ndk_pair_buf_alloc(p, c->pd[0], len, 0);
	TEST_ASSERT(rem && sink && nsrc, "buffers");

	for (uint32_t round = 0; round < 8; round++) {
		uint32_t old = 1000 + round, new = 2000 + round;
		struct ndk_sge s;
		long bad;

		ndk_pair_fill(rem->data, len, old);
		ndk_pair_fill(nsrc->data, len, new);
		memset(sink->data, 0, len);
		s = ndk_pair_sge(sink, 0, (uint32_t)len);
		TEST_ASSERT_EQ(ndk_read(c->qp[0], (void *)1, &s, 1,
					ndk_pair_raddr(rem, 0), rem->rtoken, 0),
			       NDK_STATUS_SUCCESS, "read");
		s = ndk_pair_sge(nsrc, 0, (uint32_t)len);
		TEST_ASSERT_EQ(ndk_write(c->qp[0], (void *)2, &s, 1,
					 ndk_pair_raddr(rem, 0), rem->rtoken,
					 NDK_OP_FLAG_READ_FENCE),
			       NDK_STATUS_SUCCESS, "fenced write");
		TEST_ASSERT_EQ(ndk_pair_wait(c->icq[0], r, 2, WAIT_S), 2,
			       "completions");
		TEST_ASSERT(r[0].status == NDK_STATUS_SUCCESS &&
			    r[0].type == NDK_OP_READ &&
			    r[0].request_context == (void *)1,
			    "first completion: %s",
			    ndk_pair_result_str(&r[0], d, sizeof(d)));
		TEST_ASSERT(r[1].status == NDK_STATUS_SUCCESS &&
			    r[1].type == NDK_OP_WRITE &&
			    r[1].request_context == (void *)2,
			    "second completion: %s",
			    ndk_pair_result_str(&r[1], d, sizeof(d)));
		bad = ndk_pair_check(sink->data, len, old);
		TEST_ASSERT(bad < 0, "round %u: the READ saw the fenced WRITE's"
			    " data (first new byte at %ld)", round, bad);
		bad = ndk_pair_check(rem->data, len, new);
		TEST_ASSERT(bad < 0, "round %u: WRITE data wrong at %ld",
			    round, bad);
	}
	TEST_ASSERT(ndk_pair_buf_guards_ok(rem) && ndk_pair_buf_guards_ok(sink),
		    "guards");
	ndk_pair_conn_destroy(c);
	return 0;
}

/* ------------------------------------------------------------------ */
/* SILENT_SUCCESS                                                      */
/* ------------------------------------------------------------------ */

static int
t_silent_success(void)
{
	const size_t chunk = 5000;
	struct ndk_pair *p = pair_get(0);
	struct ndk_pair_conn *c;
	struct ndk_pair_buf *src, *dst, *rdst;
	struct ndk_result_ex r[16];
	ndk_status_t st;
	char d[200];

	TEST_ASSERT(p != NULL, "pair");
	c = ndk_pair_conn_create(p, NULL, NULL);
	TEST_ASSERT(c != NULL, "connection");
	src = ndk_pair_buf_alloc(p, c->pd[0], 11 * chunk, 0);
	dst = ndk_pair_buf_alloc(p, c->pd[1], 11 * chunk,
				 NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
	rdst = ndk_pair_buf_alloc(p, c->pd[1], 6 * chunk,
				  NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	TEST_ASSERT(src && dst && rdst, "buffers");
	ndk_pair_fill(src->data, 11 * chunk, 77);

	/* Ten silent WRITEs and a normal one: one completion. */
	for (int i = 0; i < 11; i++) {
		struct ndk_sge s = ndk_pair_sge(src, i * chunk, chunk);

		st = ndk_write(c->qp[0], (void *)(uintptr_t)(100 + i), &s, 1,
			       ndk_pair_raddr(dst, i * chunk), dst->rtoken,
			       i < 10 ? NDK_OP_FLAG_SILENT_SUCCESS : 0);
		TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "write %d", i);
	}
	if (expect_ok(c->icq[0], NDK_OP_WRITE, (void *)110, "normal write "
		      "after silent ones") != 0)
		return -1;
	TEST_ASSERT(memcmp(dst->data, src->data, 11 * chunk) == 0,
		    "silent writes' data");

	/* Five silent SENDs and a normal one: six receives, one send. */
	for (int i = 0; i < 6; i++) {
		struct ndk_sge s = ndk_pair_sge(rdst, i * chunk, chunk);

		TEST_ASSERT_EQ(ndk_receive(c->qp[1], (void *)(uintptr_t)
					   (200 + i), &s, 1),
			       NDK_STATUS_SUCCESS, "receive");
	}
	for (int i = 0; i < 6; i++) {
		struct ndk_sge s = ndk_pair_sge(src, i * chunk, chunk);

		st = ndk_send(c->qp[0], (void *)(uintptr_t)(300 + i), &s, 1,
			      i < 5 ? NDK_OP_FLAG_SILENT_SUCCESS : 0);
		TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "send %d", i);
	}
	if (expect_ok(c->icq[0], NDK_OP_SEND, (void *)305, "normal send "
		      "after silent ones") != 0)
		return -1;
	TEST_ASSERT_EQ(ndk_pair_wait(c->rcq[1], r, 6, WAIT_S), 6,
		       "receives of silent sends");
	for (int i = 0; i < 6; i++)
		TEST_ASSERT(r[i].status == NDK_STATUS_SUCCESS &&
			    r[i].request_context == (void *)(uintptr_t)(200 + i)
			    && r[i].bytes_transferred == chunk,
			    "receive %d: %s", i,
			    ndk_pair_result_str(&r[i], d, sizeof(d)));
	TEST_ASSERT(memcmp(rdst->data, src->data, 6 * chunk) == 0,
		    "silent sends' data");
	ndk_pair_sleep_ms(100);
	if (expect_none(c->icq[0], "silent ops") != 0)
		return -1;

	/* A silent WRITE that fails still completes, with an error. */
	{
		struct ndk_sge s = ndk_pair_sge(src, 0, 100);

		ndk_pair_fill(dst->data, 11 * chunk, 78);
		st = ndk_write(c->qp[0], (void *)400, &s, 1,
			       ndk_pair_raddr(dst, 0), ~dst->rtoken,
			       NDK_OP_FLAG_SILENT_SUCCESS);
		TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "post");
		TEST_ASSERT_EQ(ndk_pair_wait(c->icq[0], r, 1, WAIT_S), 1,
			       "no completion for a failed silent WRITE");
		printf("  failed silent WRITE: %s\n",
		       ndk_pair_result_str(&r[0], d, sizeof(d)));
		TEST_ASSERT(r[0].status != NDK_STATUS_SUCCESS &&
			    r[0].request_context == (void *)400 &&
			    r[0].type == NDK_OP_WRITE, "%s", d);
		TEST_ASSERT(ndk_pair_check(dst->data, 11 * chunk, 78) < 0,
			    "target changed");
	}
	ndk_pair_conn_destroy(c);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Receives in bulk (ndk_receive_list)                                 */
/* ------------------------------------------------------------------ */

#define RL_DEPTH 8
#define RL_MSG 64

/* Post @p n receives of @p s with contexts @p ctx0, ctx0 + 1, ... */
static ndk_status_t
rl_post(struct ndk_qp *qp, const struct ndk_sge *s, uint32_t n,
	uintptr_t ctx0, uint32_t *posted)
{
	struct ndk_receive_request rq[RL_DEPTH + 2];

	for (uint32_t i = 0; i < n; i++)
		rq[i] = (struct ndk_receive_request){
			.request_context = (void *)(ctx0 + i),
			.sgl = &s[i], .nsge = 1,
		};
	return ndk_receive_list(qp, rq, n, posted);
}

static int
t_receive_list(void)
{
	struct ndk_pair *p = pair_get(0);
	struct ndk_pair_conn_opts o = {
		.rq_depth = RL_DEPTH, .sq_depth = RL_DEPTH, .cq_depth = 64,
		.max_rsge = 4,
	};
	struct ndk_receive_request one;
	struct ndk_sge sg[RL_DEPTH + 2], s;
	struct ndk_pair_buf *src, *dst;
	struct ndk_pair_conn *c;
	uint32_t n = 99;
	ndk_status_t st;

	TEST_ASSERT(p != NULL, "pair");
	c = ndk_pair_conn_create(p, &o, NULL);
	TEST_ASSERT(c != NULL, "connection");
	src = ndk_pair_buf_alloc(p, c->pd[0], RL_DEPTH * RL_MSG, 0);
	dst = ndk_pair_buf_alloc(p, c->pd[1], RL_DEPTH * RL_MSG,
				 NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	TEST_ASSERT(src != NULL && dst != NULL, "buffers");
	for (uint32_t i = 0; i < RL_DEPTH; i++)
		sg[i] = ndk_pair_sge(dst, i * RL_MSG, RL_MSG);

	/* Misuse: nothing posted, *posted 0 wherever it can be written. */
	one = (struct ndk_receive_request){ .sgl = &sg[0], .nsge = 1 };
	st = ndk_receive_list(NULL, &one, 1, &n);
	TEST_ASSERT(st == NDK_STATUS_INVALID_HANDLE && n == 0, "NULL QP: %s",
		    ndk_status_str(st));
	st = ndk_receive_list((struct ndk_qp *)c->rcq[1], &one, 1, &n);
	TEST_ASSERT_EQ(st, NDK_STATUS_INVALID_HANDLE, "a CQ as QP: %s",
		       ndk_status_str(st));
	st = ndk_receive_list(c->qp[1], NULL, 1, &n);
	TEST_ASSERT_EQ(st, NDK_STATUS_INVALID_PARAMETER, "no requests: %s",
		       ndk_status_str(st));
	st = ndk_receive_list(c->qp[1], &one, 1, NULL);
	TEST_ASSERT_EQ(st, NDK_STATUS_INVALID_PARAMETER, "no count out: %s",
		       ndk_status_str(st));
	n = 99;
	st = ndk_receive_list(c->qp[1], NULL, 0, &n);
	TEST_ASSERT(st == NDK_STATUS_SUCCESS && n == 0, "empty list: %s",
		    ndk_status_str(st));

	/*
	 * A bad receive stops the list there, those before it posted: past
	 * the end of the region the one before was checked in, a token
	 * that names no region, too many SGEs.
	 */
	sg[RL_DEPTH] = sg[0];
	sg[RL_DEPTH + 1] = ndk_pair_sge(dst, RL_DEPTH * RL_MSG - 32, RL_MSG);
	st = rl_post(c->qp[1], &sg[RL_DEPTH], 2, 1, &n);
	TEST_ASSERT(st == NDK_STATUS_ACCESS_VIOLATION && n == 1,
		    "receive past its region: %s, %u posted",
		    ndk_status_str(st), n);
	s = sg[1];
	s.token ^= 0x00FFFF00u;
	st = rl_post(c->qp[1], &s, 1, 50, &n);
	TEST_ASSERT(st == NDK_STATUS_ACCESS_VIOLATION && n == 0,
		    "unknown token: %s, %u posted", ndk_status_str(st), n);
	one = (struct ndk_receive_request){ .sgl = sg, .nsge = o.max_rsge + 1 };
	st = ndk_receive_list(c->qp[1], &one, 1, &n);
	TEST_ASSERT(st == NDK_STATUS_DATA_OVERRUN && n == 0,
		    "too many SGEs: %s, %u posted", ndk_status_str(st), n);

	/* A full queue: the room is posted, the rest refused. */
	sg[RL_DEPTH] = sg[0];
	sg[RL_DEPTH + 1] = sg[0];
	st = rl_post(c->qp[1], &sg[1], RL_DEPTH + 1, 2, &n);
	TEST_ASSERT(st == NDK_STATUS_NO_MORE_ENTRIES && n == RL_DEPTH - 1,
		    "full queue: %s, %u posted of %u room", ndk_status_str(st),
		    n, RL_DEPTH - 1);

	/* SENDs land in the list's order, each in its own buffer. */
	for (uint32_t i = 0; i < RL_DEPTH; i++) {
		ndk_pair_fill(src->data + i * RL_MSG, RL_MSG, 70 + i);
		s = ndk_pair_sge(src, i * RL_MSG, RL_MSG);
		st = ndk_send(c->qp[0], (void *)(uintptr_t)(300 + i), &s, 1,
			      NDK_OP_FLAG_SILENT_SUCCESS);
		TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "send %u: %s", i,
			       ndk_status_str(st));
	}
	for (uint32_t i = 0; i < RL_DEPTH; i++)
		if (expect_ok(c->rcq[1], NDK_OP_RECEIVE,
			      (void *)(uintptr_t)(1 + i), "receive") != 0)
			return -1;
	for (uint32_t i = 0; i < RL_DEPTH; i++)
		TEST_ASSERT(ndk_pair_check(dst->data + i * RL_MSG, RL_MSG,
					   70 + i) < 0, "receive %u: data", i);
	ndk_pair_buf_free(src);
	ndk_pair_buf_free(dst);
	ndk_pair_conn_destroy(c);
	return 0;
}

static const struct ndk_test_case cases[] = {
	{ "many_qps", t_many_qps },
	{ "rnr", t_rnr },
	{ "rnr_per_message", t_rnr_per_message },
	{ "queue_depth", t_queue_depth },
	{ "read_fence", t_read_fence },
	{ "silent_success", t_silent_success },
	{ "receive_list", t_receive_list },
};

int
main(int argc, char **argv)
{
	return rc_main("test_func_rc_qps", "rc_qps", cases, RTE_DIM(cases),
		       argc, argv);
}
