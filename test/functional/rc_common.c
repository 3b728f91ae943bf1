/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Helpers shared by the RC functional programs: see rc_common.h.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>

#include "rc_common.h"

/* Bytes after a receive's message that must stay untouched. */
#define RECV_SLACK 37

static struct ndk_pair *g_pair;
static uint32_t g_mtu;
static bool g_trust;

/* QP contexts: their addresses are what completions must return. */
int qctx_a, qctx_b;

static const char *const xop_name[] = { "SEND", "WRITE", "READ" };

/*
 * NDK_TEST_QUEUES=n: adapters with n queues, crossed, one poller per
 * queue (lcores 1..n; rc_main() gives the EAL n + 1 lcores, floating over
 * CPUs 0-1). NDK_TEST_ONE_POLLER=1: lcore 1 polls every queue instead
 * (latency-bound programs: oversubscribed lcores wait for time slices).
 */
static uint16_t
env_queues(void)
{
	const char *v = getenv("NDK_TEST_QUEUES");

	return v != NULL ? (uint16_t)atoi(v) : 0;
}

static bool
env_queue_pollers(void)
{
	return env_queues() > 1 && getenv("NDK_TEST_ONE_POLLER") == NULL;
}

struct ndk_pair *
pair_get_opts(uint32_t mtu, bool trust_link_crc)
{
	struct ndk_pair_config cfg = {
		.max_path_mtu = mtu,
		.nb_queues = env_queues(),
		.cross_queues = env_queues() > 1,
		.lcore_per_queue = env_queue_pollers(),
		.trust_link_crc = trust_link_crc,
	};

	if (g_pair != NULL && g_mtu == mtu && g_trust == trust_link_crc)
		return g_pair;
	ndk_pair_destroy(g_pair);
	g_pair = ndk_pair_create(&cfg);
	g_mtu = mtu;
	g_trust = trust_link_crc;
	return g_pair;
}

struct ndk_pair *
pair_get(uint32_t mtu)
{
	return pair_get_opts(mtu, false);
}

struct ndk_pair_conn *
conn_new(struct ndk_pair *p, struct ndk_pair_conn_opts *o)
{
	struct ndk_pair_conn_opts def;

	if (o == NULL) {
		memset(&def, 0, sizeof(def));
		o = &def;
	}
	o->qp_ctx[0] = &qctx_a;
	o->qp_ctx[1] = &qctx_b;
	return ndk_pair_conn_create(p, o, NULL);
}

/* MR flags of a READ destination. */
uint32_t
read_sink_flags(const struct ndk_pair *p)
{
	return NDK_MR_FLAG_ALLOW_LOCAL_WRITE |
		((p->info[0].adapter_flags &
		  NDK_ADAPTER_FLAG_RDMA_READ_SINK_NOT_REQUIRED) ? 0 :
		 NDK_MR_FLAG_RDMA_READ_SINK);
}

void
cq_count_cb(void *ctx, ndk_status_t cq_status)
{
	(void)cq_status;
	__atomic_fetch_add((uint32_t *)ctx, 1, __ATOMIC_RELEASE);
}

uint32_t
cq_count_get(uint32_t *counter)
{
	return __atomic_load_n(counter, __ATOMIC_ACQUIRE);
}

bool
cq_count_wait(uint32_t *counter, uint32_t n)
{
	double end = ndk_pair_now() + WAIT_S;

	while (cq_count_get(counter) < n && ndk_pair_now() < end)
		ndk_pair_sleep_ms(1);
	return cq_count_get(counter) >= n;
}

/* Wait for one completion and check its fields; prints what came. */
int
expect_one(struct ndk_cq *cq, enum ndk_operation_type type, void *qp_ctx,
	   void *req_ctx, int64_t bytes, const char *what)
{
	struct ndk_result_ex r;
	char d[200];

	if (ndk_pair_wait(cq, &r, 1, WAIT_S) != 1)
		TEST_FAIL("%s: no completion within %.0f s", what, WAIT_S);
	ndk_pair_result_str(&r, d, sizeof(d));
	TEST_ASSERT(r.status == NDK_STATUS_SUCCESS, "%s: %s", what, d);
	TEST_ASSERT(r.type == type, "%s: expected %s, got %s", what,
		    ndk_pair_op_str(type), d);
	TEST_ASSERT(r.qp_context == qp_ctx, "%s: qp_context %p != %p: %s",
		    what, r.qp_context, qp_ctx, d);
	TEST_ASSERT(r.request_context == req_ctx,
		    "%s: request_context %p != %p: %s", what,
		    r.request_context, req_ctx, d);
	TEST_ASSERT(r.provider_error == 0, "%s: %s", what, d);
	if (bytes >= 0)
		TEST_ASSERT(r.bytes_transferred == (uint32_t)bytes,
			    "%s: bytes_transferred %u != %" PRId64 ": %s",
			    what, r.bytes_transferred, bytes, d);
	return 0;
}

/* No completion is waiting on @p cq. */
int
expect_none(struct ndk_cq *cq, const char *what)
{
	struct ndk_result_ex r;
	char d[200];

	if (ndk_get_cq_results_ex(cq, &r, 1) != 0)
		TEST_FAIL("%s: unexpected completion %s", what,
			  ndk_pair_result_str(&r, d, sizeof(d)));
	return 0;
}

bool
all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != 0)
			return false;
	return true;
}

/* Wait for one successful completion of @p type carrying @p req. */
int
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

/*
 * Move @p len bytes A -> B (SEND, WRITE) or B -> A (READ, issued by A) and
 * check data, completions and guards.
 */
int
xfer(struct ndk_pair *p, struct ndk_pair_conn *c, enum xop op, size_t len,
     uint32_t seed)
{
	struct ndk_pair_buf *src, *dst;
	void *req = (void *)(uintptr_t)(((uintptr_t)seed << 4) | (op + 1));
	void *rreq = (void *)(uintptr_t)(((uintptr_t)seed << 4) | 0xF);
	size_t dlen = op == XOP_SEND ? len + RECV_SLACK : len;
	struct ndk_sge sge;
	enum ndk_operation_type type;
	ndk_status_t st;
	char what[64];
	long bad;

	snprintf(what, sizeof(what), "%s of %zu B (mtu %u)", xop_name[op], len,
		 c->path_mtu);
	if (op == XOP_READ) {
		src = ndk_pair_buf_alloc(p, c->pd[1], len,
					 NDK_MR_FLAG_ALLOW_REMOTE_READ);
		dst = ndk_pair_buf_alloc(p, c->pd[0], len, read_sink_flags(p));
	} else {
		src = ndk_pair_buf_alloc(p, c->pd[0], len,
					 NDK_MR_FLAG_ALLOW_LOCAL_READ);
		dst = ndk_pair_buf_alloc(p, c->pd[1], dlen,
					 op == XOP_SEND ?
					 NDK_MR_FLAG_ALLOW_LOCAL_WRITE :
					 NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
	}
	TEST_ASSERT(src != NULL && dst != NULL, "%s: buffers", what);
	ndk_pair_fill(src->data, len, seed);

	switch (op) {
	case XOP_SEND:
		sge = ndk_pair_sge(dst, 0, (uint32_t)dlen);
		st = ndk_receive(c->qp[1], rreq, &sge, 1);
		TEST_ASSERT(st == NDK_STATUS_SUCCESS, "%s: ndk_receive: %s",
			    what, ndk_status_str(st));
		sge = ndk_pair_sge(src, 0, (uint32_t)len);
		st = ndk_send(c->qp[0], req, &sge, 1, 0);
		type = NDK_OP_SEND;
		break;
	case XOP_WRITE:
		sge = ndk_pair_sge(src, 0, (uint32_t)len);
		st = ndk_write(c->qp[0], req, &sge, 1, ndk_pair_raddr(dst, 0),
			       dst->rtoken, 0);
		type = NDK_OP_WRITE;
		break;
	default:
		sge = ndk_pair_sge(dst, 0, (uint32_t)len);
		st = ndk_read(c->qp[0], req, &sge, 1, ndk_pair_raddr(src, 0),
			      src->rtoken, 0);
		type = NDK_OP_READ;
		break;
	}
	TEST_ASSERT(st == NDK_STATUS_SUCCESS, "%s: post: %s", what,
		    ndk_status_str(st));
	if (expect_one(c->icq[0], type, &qctx_a, req, -1, what) != 0)
		return -1;
	if (op == XOP_SEND &&
	    expect_one(c->rcq[1], NDK_OP_RECEIVE, &qctx_b, rreq,
		       (int64_t)len, what) != 0)
		return -1;
	bad = ndk_pair_check(dst->data, len, seed);
	TEST_ASSERT(bad < 0, "%s: data differs at byte %ld (0x%02x)", what,
		    bad, dst->data[bad]);
	TEST_ASSERT(all_zero(dst->data + len, dlen - len),
		    "%s: receive buffer written past the message", what);
	TEST_ASSERT(ndk_pair_buf_guards_ok(src) && ndk_pair_buf_guards_ok(dst),
		    "%s: guard bytes changed", what);
	TEST_ASSERT(ndk_pair_check(src->data, len, seed) < 0,
		    "%s: source changed", what);
	if (expect_none(c->rcq[1], what) != 0 ||
	    expect_none(c->icq[0], what) != 0 ||
	    expect_none(c->rcq[0], what) != 0 ||
	    expect_none(c->icq[1], what) != 0)
		return -1;
	ndk_pair_buf_free(src);
	ndk_pair_buf_free(dst);
	return 0;
}

int
rc_main(const char *prog, const char *suite,
	const struct ndk_test_case *cases, unsigned int n, int argc,
	char **argv)
{
	int rc;

	char lcores[32] = "0-1";

	if (env_queue_pollers())
		snprintf(lcores, sizeof(lcores), "(0-%u)@(0-1)", env_queues());
	if (ndk_test_eal_init(prog, lcores, NULL) != 0)
		return 1;
	rc = ndk_test_run(suite, cases, n, argc, argv);
	if (g_pair != NULL) {
		printf("last pair's counters:\n");
		ndk_pair_print_stats(g_pair, "  ");
	}
	ndk_pair_destroy(g_pair);
	rte_eal_cleanup();
	return rc;
}
