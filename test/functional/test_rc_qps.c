/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: many QPs at once, RNR, READ_FENCE, SILENT_SUCCESS, flushing
 * (QP to ERROR and NdkFlush), CQ notifications, and remote access errors.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_random.h>

#include "ndk.h"
#include "ndk_pair.h"
#include "ndk_test.h"

#define WAIT_S 60.0

static struct ndk_pair *g_pair;

static struct ndk_pair *
pair_get(void)
{
	if (g_pair == NULL)
		g_pair = ndk_pair_create(NULL);
	return g_pair;
}

static uint32_t
read_sink_flags(const struct ndk_pair *p)
{
	return NDK_MR_FLAG_ALLOW_LOCAL_WRITE |
		((p->info[0].adapter_flags &
		  NDK_ADAPTER_FLAG_RDMA_READ_SINK_NOT_REQUIRED) ? 0 :
		 NDK_MR_FLAG_RDMA_READ_SINK);
}

/* Wait for one successful completion of @p type carrying @p req. */
static int
expect_ok(struct ndk_cq *cq, enum ndk_operation_type type, void *req,
	  const char *what)
{
	struct ndk_result_ex r;
	char d[200];

	if (ndk_pair_wait(cq, &r, 1, WAIT_S) != 1)
		TEST_FAIL("%s: no completion within %.0f s", what, WAIT_S);
	ndk_pair_result_str(&r, d, sizeof(d));
	TEST_ASSERT(r.status == NDK_STATUS_SUCCESS && r.type == type &&
		    r.request_context == req,
		    "%s: want %s req %p, got %s", what, ndk_pair_op_str(type),
		    req, d);
	return 0;
}

static int
expect_none(struct ndk_cq *cq, const char *what)
{
	struct ndk_result_ex r;
	char d[200];

	if (ndk_get_cq_results_ex(cq, &r, 1) != 0)
		TEST_FAIL("%s: unexpected completion %s", what,
			  ndk_pair_result_str(&r, d, sizeof(d)));
	return 0;
}

static enum ndk_qp_state
qp_state(struct ndk_qp *qp)
{
	struct ndk_qp_attr a;

	if (ndk_qp_query(qp, &a) != NDK_STATUS_SUCCESS)
		return (enum ndk_qp_state)-1;
	return a.state;
}

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
	struct ndk_pair *p = pair_get();
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
	struct ndk_adapter_stats a0, b0, a1, b1;
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
	       b1.nak_rnr_sent - b0.nak_rnr_sent,
	       b1.nak_seq_sent - b0.nak_seq_sent,
	       b1.rx_out_of_seq - b0.rx_out_of_seq,
	       a1.nak_rnr_rcvd - a0.nak_rnr_rcvd, a1.rnr_waits - a0.rnr_waits,
	       a1.nak_seq_rcvd - a0.nak_seq_rcvd,
	       a1.retransmit_packets - a0.retransmit_packets);
	TEST_ASSERT(b1.nak_rnr_sent > b0.nak_rnr_sent,
		    "no RNR NAK counted for a send with no receive");
	TEST_ASSERT(a1.nak_rnr_rcvd > a0.nak_rnr_rcvd, "no RNR NAK received");
	ndk_pair_conn_destroy(c);
	return 0;
}

static int
t_rnr(void)
{
	struct ndk_pair *p = pair_get();

	TEST_ASSERT(p != NULL, "pair");
	if (rnr_case(p, 100) != 0 || rnr_case(p, 50000) != 0)
		return -1;
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
	struct ndk_pair *p = pair_get();
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
	struct ndk_pair *p = pair_get();
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
	struct ndk_pair *p = pair_get();
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
	struct ndk_pair *p = pair_get();

	TEST_ASSERT(p != NULL, "pair");
	return flush_case(p, 0);
}

static int
t_flush_ndk_flush(void)
{
	struct ndk_pair *p = pair_get();

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
	struct ndk_pair *p = pair_get();
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
	struct ndk_adapter_stats b0, b1, a0, a1;
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
	       b1.nak_access_sent - b0.nak_access_sent,
	       b1.nak_inv_sent - b0.nak_inv_sent,
	       a1.nak_fatal_rcvd - a0.nak_fatal_rcvd,
	       ndk_qp_state_str(qp_state(c->qp[1])));
	TEST_ASSERT(b1.nak_access_sent > b0.nak_access_sent,
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
	struct ndk_pair *p = pair_get();
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
	{ "many_qps", t_many_qps },
	{ "rnr", t_rnr },
	{ "queue_depth", t_queue_depth },
	{ "read_fence", t_read_fence },
	{ "silent_success", t_silent_success },
	{ "flush_modify_error", t_flush_modify_error },
	{ "flush_ndk_flush", t_flush_ndk_flush },
	{ "cq_notify", t_cq_notify },
	{ "remote_access_errors", t_remote_access_errors },
};

int
main(int argc, char **argv)
{
	int rc;

	if (ndk_test_eal_init("test_func_rc_qps", "0-1", NULL) != 0)
		return 1;
	rc = ndk_test_run("rc_qps", cases, RTE_DIM(cases), argc, argv);
	if (g_pair != NULL) {
		printf("counters:\n");
		ndk_pair_print_stats(g_pair, "  ");
	}
	ndk_pair_destroy(g_pair);
	rte_eal_cleanup();
	return rc;
}
