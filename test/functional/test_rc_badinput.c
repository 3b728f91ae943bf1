/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: crafted frames injected into adapter B's receive ring (the
 * ring adapter A transmits into): truncated, oversized, garbage, bad ICRC,
 * bad headers, unknown QPN, wrong address, bad opcode sequence, duplicate
 * and far-ahead PSNs, hostile and stray CM MADs on QP1. Each must be counted in the right counter, nothing
 * may crash, and connections made afterwards must still move data.
 */

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_random.h>

#include "ndk.h"
#include "ndk_pair_test.h"
#include "ndk_roce.h"
#include "ndk_test.h"

#define WAIT_S 60.0
/* Longest wait for a counter to move before calling it a failure. */
#define COUNT_WAIT_S 10.0
#define FRAME_ROOM 10240

/* Counters a dropped frame may land in. */
static const char *const drop_ctrs[] = {
	"rx_not_roce", "rx_truncated", "rx_bad_header", "rx_bad_opcode",
	"rx_icrc_errors", "rx_wrong_address", "rx_unknown_qpn", "rx_qp_state",
	"rx_bad_length", "rx_duplicate", "rx_out_of_seq", "rx_ghost_resp",
};

/* Both adapters' counters at one time (read by name: XS()). */
struct snap {
	struct ndk_test_xstats v[2];
};

static struct ndk_pair *g_pair;
static struct rte_mempool *g_pool;
static struct ndk_roce_l2l4 g_tmpl;       /* A -> B */
static struct ndk_pair_conn *g_live;      /* stays healthy all along */

static uint32_t
read_sink_flags(const struct ndk_pair *p)
{
	return NDK_MR_FLAG_ALLOW_LOCAL_WRITE |
		((p->info[0].adapter_flags &
		  NDK_ADAPTER_FLAG_RDMA_READ_SINK_NOT_REQUIRED) ? 0 :
		 NDK_MR_FLAG_RDMA_READ_SINK);
}

static void
snap_take(struct snap *s)
{
	for (int side = 0; side < 2; side++)
		ndk_pair_stats(g_pair, side, &s->v[side]);
}

static uint64_t
delta(const struct snap *a, const struct snap *b, int side, const char *c)
{
	return XS_DIFF(&b->v[side], &a->v[side], c);
}

static void
print_deltas(const struct snap *a, const struct snap *b, const char *what)
{
	printf("    %s: counter changes:", what);
	for (int side = 0; side < 2; side++)
		for (unsigned int c = 0; c < b->v[side].n; c++)
			if (b->v[side].v[c] != a->v[side].v[c])
				printf(" %c.%s+%" PRIu64, side ? 'B' : 'A',
				       ndk_test_xstat_name(c),
				       b->v[side].v[c] - a->v[side].v[c]);
	printf("\n");
}

static uint64_t
drop_sum(const struct snap *a, const struct snap *b)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < RTE_DIM(drop_ctrs); i++)
		n += delta(a, b, 1, drop_ctrs[i]);
	return n;
}

/* Inject into B's receive ring, all of them. */
static int
inject(struct rte_mbuf **m, unsigned int n)
{
	unsigned int done = 0;
	double end = ndk_pair_now() + COUNT_WAIT_S;

	while (done < n) {
		int k = ndk_pair_inject(g_pair, NDK_PAIR_B, m + done, n - done);

		if (k < 0)
			return k;
		done += (unsigned int)k;
		if (done < n) {
			if (ndk_pair_now() > end) {
				rte_pktmbuf_free_bulk(m + done, n - done);
				return -1;
			}
			ndk_pair_sleep_ms(1);
		}
	}
	return 0;
}

/*
 * Wait until B's counter @p c grew by @p want since @p before (or
 * COUNT_WAIT_S), let the pollers settle, and take @p after.
 */
static void
wait_counter(const struct snap *before, struct snap *after, const char *c,
	     uint64_t want)
{
	double end = ndk_pair_now() + COUNT_WAIT_S;

	for (;;) {
		snap_take(after);
		if (delta(before, after, 1, c) >= want || ndk_pair_now() > end)
			break;
		ndk_pair_sleep_ms(2);
	}
	/* Frames may still be in flight: wait for the ring to empty. */
	while (rte_ring_count(ndk_pair_rx_ring(g_pair, NDK_PAIR_B)) != 0 &&
	       ndk_pair_now() < end)
		ndk_pair_sleep_ms(1);
	ndk_pair_sleep_ms(30);
	snap_take(after);
}

/* The same for the sum of the drop counters. */
static void
wait_drops(const struct snap *before, struct snap *after, uint64_t want)
{
	double end = ndk_pair_now() + COUNT_WAIT_S;

	for (;;) {
		snap_take(after);
		if (drop_sum(before, after) >= want || ndk_pair_now() > end)
			break;
		ndk_pair_sleep_ms(2);
	}
	ndk_pair_sleep_ms(30);
	snap_take(after);
}

/* ------------------------------------------------------------------ */
/* Frame building                                                      */
/* ------------------------------------------------------------------ */

struct fspec {
	uint8_t opcode;
	uint32_t qpn;
	uint32_t psn;
	bool ackreq;
	uint32_t plen;            /* payload bytes */
	uint32_t payload_seed;
	uint64_t reth_va;
	uint32_t reth_rkey;
	uint32_t reth_len;
	uint8_t tver;             /* BTH TVer (0 is valid) */
	bool bad_icrc;
	const struct ndk_roce_l2l4 *tmpl; /* NULL: A -> B */
	uint32_t deth_qkey;       /* UD: DETH Q_Key (source QP 1) */
	const uint8_t *payload;   /* NULL: the pattern of payload_seed */
};

static struct rte_mbuf *
mk_frame(const struct fspec *f)
{
	const struct ndk_roce_opcode_info *oi = ndk_roce_opcode(f->opcode);
	uint8_t hdr = oi->flags != 0 ? oi->hdr_len : NDK_ROCE_BTH_LEN;
	uint8_t pad = (uint8_t)((4 - (f->plen & 3)) & 3);
	uint32_t udp = hdr + f->plen + pad + NDK_ROCE_ICRC_LEN;
	uint32_t flen = NDK_ROCE_L2L4_LEN + udp;
	struct rte_mbuf *m = rte_pktmbuf_alloc(g_pool);
	uint8_t *frame, *bth;
	uint32_t icrc;

	if (m == NULL)
		return NULL;
	frame = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)flen);
	if (frame == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	bth = ndk_roce_l2l4_write(f->tmpl != NULL ? f->tmpl : &g_tmpl, frame,
				  (uint16_t)udp);
	memset(bth, 0, hdr);
	ndk_roce_bth_set((struct ndk_roce_bth *)bth, f->opcode, false, pad,
			 f->qpn, f->ackreq, f->psn);
	bth[1] |= f->tver & NDK_ROCE_BTH_TVER_MASK;
	if (oi->flags & NDK_ROCE_OPF_RETH) {
		struct ndk_roce_reth *r = (struct ndk_roce_reth *)
			(bth + oi->offset[NDK_ROCE_RETH]);

		r->va = rte_cpu_to_be_64(f->reth_va);
		r->rkey = rte_cpu_to_be_32(f->reth_rkey);
		r->len = rte_cpu_to_be_32(f->reth_len);
	}
	if (oi->flags & NDK_ROCE_OPF_DETH)
		ndk_roce_deth_set((struct ndk_roce_deth *)
				  (bth + oi->offset[NDK_ROCE_DETH]),
				  f->deth_qkey, NDK_ROCE_GSI_QPN);
	if (f->payload != NULL)
		memcpy(bth + hdr, f->payload, f->plen);
	else
		ndk_pair_fill(bth + hdr, f->plen, f->payload_seed);
	memset(bth + hdr + f->plen, 0, pad);
	icrc = ndk_roce_icrc_buf(frame + RTE_ETHER_HDR_LEN,
				 flen - RTE_ETHER_HDR_LEN - NDK_ROCE_ICRC_LEN);
	if (f->bad_icrc)
		icrc ^= 0x00000100;
	icrc = rte_cpu_to_le_32(icrc);
	memcpy(frame + flen - NDK_ROCE_ICRC_LEN, &icrc, 4);
	return m;
}

/* A valid SEND_ONLY for B's QP of @p c at PSN @p psn. */
static struct fspec
send_only(const struct ndk_pair_conn *c, uint32_t psn, uint32_t plen)
{
	struct fspec f = {
		.opcode = NDK_ROCE_OP_RC_SEND_ONLY,
		.qpn = c->qpn[1],
		.psn = psn,
		.ackreq = true,
		.plen = plen,
		.payload_seed = 0xBAD,
	};
	return f;
}

/* Inject one frame and expect B's counter @p c to grow by exactly one. */
static int
expect_one(struct rte_mbuf *m, const char *c, const char *what)
{
	struct snap a, b;

	TEST_ASSERT(m != NULL, "%s: frame", what);
	snap_take(&a);
	TEST_ASSERT(inject(&m, 1) == 0, "%s: inject", what);
	wait_counter(&a, &b, c, 1);
	if (delta(&a, &b, 1, c) != 1) {
		print_deltas(&a, &b, what);
		TEST_FAIL("%s: B.%s +%" PRIu64 ", want +1", what, c,
			  delta(&a, &b, 1, c));
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Data-path helpers                                                   */
/* ------------------------------------------------------------------ */

static int
wait_ok(struct ndk_cq *cq, enum ndk_operation_type t, void *req,
	const char *what)
{
	struct ndk_result_ex r;
	char d[200];

	if (ndk_pair_wait(cq, &r, 1, WAIT_S) != 1)
		TEST_FAIL("%s: no completion", what);
	ndk_pair_result_str(&r, d, sizeof(d));
	TEST_ASSERT(r.status == NDK_STATUS_SUCCESS && r.type == t &&
		    r.request_context == req, "%s: %s", what, d);
	return 0;
}

/* A real SEND, WRITE and READ of @p len bytes on @p c, checked. */
static int
traffic(struct ndk_pair_conn *c, size_t len, uint32_t seed)
{
	struct ndk_pair *p = g_pair;
	struct ndk_pair_buf *src, *dst, *rem, *sink;
	struct ndk_sge s;

	src = ndk_pair_buf_alloc(p, c->pd[0], len, 0);
	dst = ndk_pair_buf_alloc(p, c->pd[1], len,
				 NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
	rem = ndk_pair_buf_alloc(p, c->pd[1], len,
				 NDK_MR_FLAG_ALLOW_REMOTE_READ);
	sink = ndk_pair_buf_alloc(p, c->pd[0], len, read_sink_flags(p));
	TEST_ASSERT(src && dst && rem && sink, "buffers");
	ndk_pair_fill(src->data, len, seed);
	ndk_pair_fill(rem->data, len, seed + 1);

	s = ndk_pair_sge(dst, 0, (uint32_t)len);
	TEST_ASSERT_EQ(ndk_receive(c->qp[1], (void *)1, &s, 1),
		       NDK_STATUS_SUCCESS, "receive");
	s = ndk_pair_sge(src, 0, (uint32_t)len);
	TEST_ASSERT_EQ(ndk_send(c->qp[0], (void *)2, &s, 1, 0),
		       NDK_STATUS_SUCCESS, "send");
	if (wait_ok(c->icq[0], NDK_OP_SEND, (void *)2, "send") != 0 ||
	    wait_ok(c->rcq[1], NDK_OP_RECEIVE, (void *)1, "receive") != 0)
		return -1;
	TEST_ASSERT(ndk_pair_check(dst->data, len, seed) < 0, "send data");
	memset(dst->data, 0, len);
	TEST_ASSERT_EQ(ndk_write(c->qp[0], (void *)3, &s, 1,
				 ndk_pair_raddr(dst, 0), dst->rtoken, 0),
		       NDK_STATUS_SUCCESS, "write");
	if (wait_ok(c->icq[0], NDK_OP_WRITE, (void *)3, "write") != 0)
		return -1;
	TEST_ASSERT(ndk_pair_check(dst->data, len, seed) < 0, "write data");
	s = ndk_pair_sge(sink, 0, (uint32_t)len);
	TEST_ASSERT_EQ(ndk_read(c->qp[0], (void *)4, &s, 1,
				ndk_pair_raddr(rem, 0), rem->rtoken, 0),
		       NDK_STATUS_SUCCESS, "read");
	if (wait_ok(c->icq[0], NDK_OP_READ, (void *)4, "read") != 0)
		return -1;
	TEST_ASSERT(ndk_pair_check(sink->data, len, seed + 1) < 0,
		    "read data");
	TEST_ASSERT(ndk_pair_buf_guards_ok(src) && ndk_pair_buf_guards_ok(dst)
		    && ndk_pair_buf_guards_ok(rem) &&
		    ndk_pair_buf_guards_ok(sink), "guards");
	ndk_pair_buf_free(src);
	ndk_pair_buf_free(dst);
	ndk_pair_buf_free(rem);
	ndk_pair_buf_free(sink);
	return 0;
}

/* No completion is waiting on @p cq. */
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
/* Cases                                                               */
/* ------------------------------------------------------------------ */

static int
t_truncated(void)
{
	struct ndk_pair_conn *c = ndk_pair_conn_create(g_pair, NULL, NULL);
	struct fspec f;
	struct rte_mbuf *full;
	uint32_t flen;
	uint32_t lens[] = { 0, 1, 6, 12, 13, 14, 15, 20, 33, 34, 35, 41, 42,
			    43, 50, 53, 54, 55, 60, 0, 0, 0, 0 };
	unsigned int n = RTE_DIM(lens);
	char what[48];

	/* At the expected PSN: a frame wrongly accepted would show. */
	TEST_ASSERT(c != NULL, "connection");
	f = send_only(c, c->sq_psn[0], 64);
	full = mk_frame(&f);
	TEST_ASSERT(full != NULL, "frame");
	flen = rte_pktmbuf_pkt_len(full);
	lens[n - 4] = flen - 64;
	lens[n - 3] = flen - 4;
	lens[n - 2] = flen - 3;
	lens[n - 1] = flen - 1;
	for (unsigned int i = 0; i < n; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(g_pool);
		struct snap a, b;
		uint8_t *d;

		TEST_ASSERT(m != NULL, "mbuf");
		d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)lens[i]);
		TEST_ASSERT(d != NULL || lens[i] == 0, "append");
		if (lens[i] != 0)
			memcpy(d, rte_pktmbuf_mtod(full, uint8_t *), lens[i]);
		snprintf(what, sizeof(what), "frame cut to %u of %u bytes",
			 lens[i], flen);
		if (lens[i] >= RTE_ETHER_HDR_LEN) {
			if (expect_one(m, "rx_truncated", what) != 0) {
				rte_pktmbuf_free(full);
				return -1;
			}
			continue;
		}
		/* Not even an Ethernet header: any drop counter will do. */
		snap_take(&a);
		TEST_ASSERT(inject(&m, 1) == 0, "inject");
		wait_drops(&a, &b, 1);
		if (drop_sum(&a, &b) != 1) {
			print_deltas(&a, &b, what);
			rte_pktmbuf_free(full);
			TEST_FAIL("%s: dropped %" PRIu64 " times, want 1", what,
				  drop_sum(&a, &b));
		}
	}
	rte_pktmbuf_free(full);
	if (expect_none(c->rcq[1], "truncated frames") != 0 ||
	    traffic(c, 3000, 1) != 0)
		return -1;
	ndk_pair_conn_destroy(c);
	return traffic(g_live, 3000, 1);
}

static int
t_oversized(void)
{
	struct ndk_pair_conn *v = ndk_pair_conn_create(g_pair, NULL, NULL);
	struct ndk_pair_buf *rb;
	struct fspec f;
	struct rte_mbuf *m;
	struct ndk_sge s;
	struct snap a, b;

	TEST_ASSERT(v != NULL, "victim connection");
	rb = ndk_pair_buf_alloc(g_pair, v->pd[1], 16384,
				NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	TEST_ASSERT(rb != NULL, "buffer");
	s = ndk_pair_sge(rb, 0, 16384);
	TEST_ASSERT_EQ(ndk_receive(v->qp[1], (void *)1, &s, 1),
		       NDK_STATUS_SUCCESS, "receive");

	/* 9000 bytes of garbage. */
	m = rte_pktmbuf_alloc(g_pool);
	TEST_ASSERT(m != NULL, "mbuf");
	ndk_pair_fill(rte_pktmbuf_append(m, 9000), 9000, 9000);
	snap_take(&a);
	TEST_ASSERT(inject(&m, 1) == 0, "inject");
	wait_drops(&a, &b, 1);
	print_deltas(&a, &b, "9000 B of garbage");
	TEST_ASSERT_EQ(drop_sum(&a, &b), 1, "9000 B garbage drops");

	/*
	 * A well-formed 9002-byte SEND_ONLY (payloads are padded to 4 bytes)
	 * at the expected PSN: its payload
	 * is larger than the path MTU (4096).
	 */
	f = send_only(v, v->sq_psn[0], 9002 - NDK_ROCE_L2L4_LEN -
		      NDK_ROCE_BTH_LEN - NDK_ROCE_ICRC_LEN);
	m = mk_frame(&f);
	TEST_ASSERT(m != NULL && rte_pktmbuf_pkt_len(m) == 9002, "frame");
	snap_take(&a);
	TEST_ASSERT(inject(&m, 1) == 0, "inject");
	wait_counter(&a, &b, "rx_bad_length", 1);
	print_deltas(&a, &b, "9002 B SEND_ONLY");
	printf("    receive QP now %s\n", ndk_qp_state_str(qp_state(v->qp[1])));
	TEST_ASSERT_EQ(delta(&a, &b, 1, "rx_bad_length"), 1,
		       "payload above the path MTU not counted as rx_bad_length");
	{
		struct ndk_result_ex r;
		char d[200];

		if (ndk_pair_wait(v->rcq[1], &r, 1, 0.2) == 1) {
			printf("    receive completion: %s\n",
			       ndk_pair_result_str(&r, d, sizeof(d)));
			TEST_ASSERT(r.status != NDK_STATUS_SUCCESS,
				    "oversized SEND accepted: %s", d);
		}
	}
	ndk_pair_conn_destroy(v);
	return traffic(g_live, 5000, 2);
}

static int
t_garbage(void)
{
	enum { N = 300 };
	struct rte_mbuf *m[N];
	struct snap a, b;

	/* Random bytes of random length. */
	for (int i = 0; i < N; i++) {
		uint32_t len = 1 + (uint32_t)(rte_rand() % 1500);
		uint8_t *d;

		m[i] = rte_pktmbuf_alloc(g_pool);
		TEST_ASSERT(m[i] != NULL, "mbuf");
		d = (uint8_t *)rte_pktmbuf_append(m[i], (uint16_t)len);
		for (uint32_t k = 0; k < len; k++)
			d[k] = (uint8_t)rte_rand();
	}
	snap_take(&a);
	TEST_ASSERT(inject(m, N) == 0, "inject");
	wait_drops(&a, &b, N);
	print_deltas(&a, &b, "random frames");
	TEST_ASSERT_EQ(drop_sum(&a, &b), N, "random frames dropped");

	/* Valid Ethernet/IPv4/UDP 4791 headers, random transport bytes. */
	for (int i = 0; i < N; i++) {
		uint32_t udp = 1 + (uint32_t)(rte_rand() % 1400);
		uint8_t *d, *bth;

		m[i] = rte_pktmbuf_alloc(g_pool);
		TEST_ASSERT(m[i] != NULL, "mbuf");
		d = (uint8_t *)rte_pktmbuf_append(m[i], (uint16_t)
						  (NDK_ROCE_L2L4_LEN + udp));
		bth = ndk_roce_l2l4_write(&g_tmpl, d, (uint16_t)udp);
		for (uint32_t k = 0; k < udp; k++)
			bth[k] = (uint8_t)rte_rand();
	}
	snap_take(&a);
	TEST_ASSERT(inject(m, N) == 0, "inject");
	wait_drops(&a, &b, N);
	print_deltas(&a, &b, "random transport headers");
	TEST_ASSERT_EQ(drop_sum(&a, &b), N, "random transport frames dropped");
	if (expect_none(g_live->rcq[1], "garbage") != 0)
		return -1;
	return traffic(g_live, 100, 3);
}

static int
t_bad_icrc_and_headers(void)
{
	struct ndk_pair_conn *c = ndk_pair_conn_create(g_pair, NULL, NULL);
	struct ndk_pair_buf *rb;
	struct ndk_roce_l2l4 other;
	struct rte_ether_addr sm, dm;
	struct ndk_sge s;
	struct fspec f;

	/*
	 * A fresh connection, frames at its expected PSN, a receive posted:
	 * a frame wrongly accepted would consume the receive.
	 */
	TEST_ASSERT(c != NULL, "connection");
	f = send_only(c, c->sq_psn[0], 200);
	rb = ndk_pair_buf_alloc(g_pair, c->pd[1], 1024,
				NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	TEST_ASSERT(rb != NULL, "buffer");
	s = ndk_pair_sge(rb, 0, 1024);
	TEST_ASSERT_EQ(ndk_receive(c->qp[1], (void *)77, &s, 1),
		       NDK_STATUS_SUCCESS, "receive");

	f.bad_icrc = true;
	if (expect_one(mk_frame(&f), "rx_icrc_errors", "wrong ICRC") != 0)
		return -1;
	f.bad_icrc = false;
	f.tver = 1;
	if (expect_one(mk_frame(&f), "rx_bad_header", "BTH TVer 1") != 0)
		return -1;
	f.tver = 0;
	f.opcode = 0x1F; /* undefined RC opcode */
	if (expect_one(mk_frame(&f), "rx_bad_opcode", "opcode 0x1F") != 0)
		return -1;
	f.opcode = NDK_ROCE_OP_RC_SEND_ONLY;
	f.qpn = 0xABCDE;
	if (expect_one(mk_frame(&f), "rx_unknown_qpn", "QPN 0xABCDE") != 0)
		return -1;
	f.qpn = c->qpn[1] ^ 0x800000;
	if (expect_one(mk_frame(&f), "rx_unknown_qpn", "QPN with another "
		       "high bit") != 0)
		return -1;
	f.qpn = c->qpn[1];

	/* To an address that is not B's. */
	memcpy(sm.addr_bytes, g_pair->info[0].mac, 6);
	memcpy(dm.addr_bytes, g_pair->info[1].mac, 6);
	ndk_roce_l2l4_init(&other, &sm, &dm, g_pair->ipv4[0],
			   rte_cpu_to_be_32(RTE_IPV4(10, 0, 0, 99)),
			   NDK_ROCE_SPORT_MIN, 0, 64);
	f.tmpl = &other;
	if (expect_one(mk_frame(&f), "rx_wrong_address", "IPv4 10.0.0.99")
	    != 0)
		return -1;
	f.tmpl = NULL;

	ndk_pair_sleep_ms(50);
	if (expect_none(c->rcq[1], "bad frames consumed a receive") != 0)
		return -1;
	/* The posted receive is still there for the next real SEND. */
	{
		struct ndk_pair_buf *src;
		struct ndk_sge ss;

		src = ndk_pair_buf_alloc(g_pair, c->pd[0], 200, 0);
		TEST_ASSERT(src != NULL, "buffer");
		ndk_pair_fill(src->data, 200, 4242);
		ss = ndk_pair_sge(src, 0, 200);
		TEST_ASSERT_EQ(ndk_send(c->qp[0], (void *)78, &ss, 1, 0),
			       NDK_STATUS_SUCCESS, "send");
		if (wait_ok(c->icq[0], NDK_OP_SEND, (void *)78, "send")
		    != 0 ||
		    wait_ok(c->rcq[1], NDK_OP_RECEIVE, (void *)77,
			    "receive") != 0)
			return -1;
		TEST_ASSERT(ndk_pair_check(rb->data, 200, 4242) < 0, "data");
		ndk_pair_buf_free(src);
	}
	ndk_pair_buf_free(rb);
	ndk_pair_conn_destroy(c);
	return traffic(g_live, 1000, 6);
}

static int
t_bad_opcode_sequence(void)
{
	struct ndk_pair_conn *v = ndk_pair_conn_create(g_pair, NULL, NULL);
	struct ndk_pair_buf *rb;
	struct ndk_result_ex r;
	struct fspec f;
	struct ndk_sge s;
	char d[200];

	TEST_ASSERT(v != NULL, "victim connection");
	rb = ndk_pair_buf_alloc(g_pair, v->pd[1], 65536,
				NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	TEST_ASSERT(rb != NULL, "buffer");
	s = ndk_pair_sge(rb, 0, 65536);
	TEST_ASSERT_EQ(ndk_receive(v->qp[1], (void *)1, &s, 1),
		       NDK_STATUS_SUCCESS, "receive");
	/* SEND_MIDDLE with no SEND_FIRST, at the expected PSN. */
	f = send_only(v, v->sq_psn[0], v->path_mtu);
	f.opcode = NDK_ROCE_OP_RC_SEND_MIDDLE;
	f.ackreq = false;
	if (expect_one(mk_frame(&f), "nak_inv_sent", "SEND_MIDDLE first") != 0)
		return -1;
	printf("    receive QP now %s\n", ndk_qp_state_str(qp_state(v->qp[1])));
	if (ndk_pair_wait(v->rcq[1], &r, 1, 0.5) == 1) {
		printf("    receive completion: %s\n",
		       ndk_pair_result_str(&r, d, sizeof(d)));
		TEST_ASSERT(r.status != NDK_STATUS_SUCCESS, "bad sequence "
			    "completed a receive successfully: %s", d);
	}
	ndk_pair_conn_destroy(v);
	return traffic(g_live, 7000, 4);
}

static int
t_duplicate_and_ahead(void)
{
	struct ndk_pair_conn *c = ndk_pair_conn_create(g_pair, NULL, NULL);
	struct ndk_pair_buf *src, *rb;
	struct ndk_sge s;
	struct fspec f;
	struct snap a, b;

	TEST_ASSERT(c != NULL, "connection");
	src = ndk_pair_buf_alloc(g_pair, c->pd[0], 300, 0);
	rb = ndk_pair_buf_alloc(g_pair, c->pd[1], 2 * 300,
				NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	TEST_ASSERT(src != NULL && rb != NULL, "buffers");
	ndk_pair_fill(src->data, 300, 55);

	/* One real SEND: B now expects sq_psn + 1. */
	s = ndk_pair_sge(rb, 0, 300);
	TEST_ASSERT_EQ(ndk_receive(c->qp[1], (void *)1, &s, 1),
		       NDK_STATUS_SUCCESS, "receive");
	s = ndk_pair_sge(src, 0, 300);
	TEST_ASSERT_EQ(ndk_send(c->qp[0], (void *)2, &s, 1, 0),
		       NDK_STATUS_SUCCESS, "send");
	if (wait_ok(c->icq[0], NDK_OP_SEND, (void *)2, "send") != 0 ||
	    wait_ok(c->rcq[1], NDK_OP_RECEIVE, (void *)1, "receive") != 0)
		return -1;
	s = ndk_pair_sge(rb, 300, 300);
	TEST_ASSERT_EQ(ndk_receive(c->qp[1], (void *)3, &s, 1),
		       NDK_STATUS_SUCCESS, "receive");

	/* The same PSN again: a duplicate, re-ACKed, not executed. */
	f = send_only(c, c->sq_psn[0], 300);
	snap_take(&a);
	if (expect_one(mk_frame(&f), "rx_duplicate", "duplicate PSN") != 0)
		return -1;
	snap_take(&b);
	ndk_pair_sleep_ms(50);
	if (expect_none(c->rcq[1], "duplicate consumed a receive") != 0)
		return -1;

	/* Far ahead of the expected PSN: one sequence NAK. */
	f.psn = ndk_roce_psn_add(c->sq_psn[0], 1 + 1000);
	snap_take(&a);
	if (expect_one(mk_frame(&f), "rx_out_of_seq", "PSN +1000") != 0)
		return -1;
	wait_counter(&a, &b, "nak_seq_sent", 1);
	print_deltas(&a, &b, "PSN +1000");
	TEST_ASSERT_EQ(delta(&a, &b, 1, "nak_seq_sent"), 1, "sequence NAK");
	ndk_pair_sleep_ms(50);
	if (expect_none(c->rcq[1], "PSN ahead consumed a receive") != 0)
		return -1;

	/* The connection still works, and takes the posted receive. */
	ndk_pair_fill(src->data, 300, 56);
	s = ndk_pair_sge(src, 0, 300);
	TEST_ASSERT_EQ(ndk_send(c->qp[0], (void *)4, &s, 1, 0),
		       NDK_STATUS_SUCCESS, "send");
	if (wait_ok(c->icq[0], NDK_OP_SEND, (void *)4, "send after") != 0 ||
	    wait_ok(c->rcq[1], NDK_OP_RECEIVE, (void *)3, "receive after") != 0)
		return -1;
	TEST_ASSERT(ndk_pair_check(rb->data + 300, 300, 56) < 0, "data");
	TEST_ASSERT(ndk_pair_buf_guards_ok(rb), "guards");
	if (traffic(c, 20000, 5) != 0)
		return -1;
	ndk_pair_conn_destroy(c);
	return 0;
}

static int
t_fresh_connection_after(void)
{
	static const size_t sizes[] = { 1, 4096, 4097, 100000, 1u << 20 };
	struct ndk_pair_conn *c = ndk_pair_conn_create(g_pair, NULL, NULL);

	TEST_ASSERT(c != NULL, "connection");
	for (unsigned int i = 0; i < RTE_DIM(sizes); i++)
		if (traffic(c, sizes[i], 100 + i) != 0)
			return -1;
	if (traffic(g_live, 65536, 200) != 0)
		return -1;
	ndk_pair_conn_destroy(c);
	printf("  counters after everything:\n");
	ndk_pair_print_stats(g_pair, "    ");
	return 0;
}

/* ------------------------------------------------------------------ */
/* QP1: management datagrams                                           */
/* ------------------------------------------------------------------ */

/* A UD SEND_ONLY to B's QP1 carrying @p len bytes of @p mad. */
static struct rte_mbuf *
mk_mad(const uint8_t *mad, uint32_t len, uint32_t qkey)
{
	struct fspec f = {
		.opcode = NDK_ROCE_OP_UD_SEND_ONLY,
		.qpn = NDK_ROCE_GSI_QPN,
		.plen = len,
		.payload = mad,
		.deth_qkey = qkey,
	};
	return mk_frame(&f);
}

/* A REQ for @p sid from A (10.0.0.1) to B, RDMA-CM header included. */
static void
mk_req(struct ndk_roce_cm_msg *m, uint64_t sid, uint8_t mtu)
{
	struct ndk_roce_cma_hdr h = {
		.ip_version = 4, .src_port = 50000,
		.src_ip = g_pair->ipv4[0], .dst_ip = g_pair->ipv4[1],
	};

	memset(m, 0, sizeof(*m));
	m->attr_id = NDK_ROCE_CM_REQ;
	m->tid = 0x1234;
	m->local_comm_id = 0xC0FFEE;
	m->service_id = sid;
	m->local_qpn = 0x99;
	m->path_mtu = mtu;
	m->pkey = 0xFFFF;
	ndk_roce_gid_from_ipv4(m->primary.local_gid, g_pair->ipv4[0]);
	ndk_roce_gid_from_ipv4(m->primary.remote_gid, g_pair->ipv4[1]);
	ndk_roce_cma_hdr_encode(m->pdata, &h);
}

/*
 * Hostile and stray MADs: each is dropped and counted, REQs nobody can
 * take are REJected, a DREQ for nothing gets a DREP; nothing else moves.
 */
static int
t_cm_mads(void)
{
	const uint64_t tcp = NDK_ROCE_CM_SID_TCP;
	static const uint16_t strays[] = { NDK_ROCE_CM_REP, NDK_ROCE_CM_RTU,
		NDK_ROCE_CM_REJ, NDK_ROCE_CM_MRA, NDK_ROCE_CM_DREP };
	uint8_t mad[NDK_ROCE_MAD_LEN], junk[NDK_ROCE_MAD_LEN];
	struct ndk_roce_cm_msg m;

	ndk_pair_fill(junk, sizeof(junk), 77);
	TEST_ASSERT(expect_one(mk_mad(junk, sizeof(junk), NDK_ROCE_GSI_QKEY),
			       "cm_rx_dropped", "garbage MAD") == 0, "garbage");
	mk_req(&m, tcp | 7174, 3);
	ndk_roce_cm_encode(&m, mad);
	TEST_ASSERT(expect_one(mk_mad(mad, sizeof(mad), 0x12345678),
			       "cm_rx_dropped", "wrong Q_Key") == 0, "qkey");
	TEST_ASSERT(expect_one(mk_mad(mad, 100, NDK_ROCE_GSI_QKEY),
			       "cm_rx_dropped", "short MAD") == 0, "short");
	mad[1] = 0x81;            /* not the CM class */
	TEST_ASSERT(expect_one(mk_mad(mad, sizeof(mad), NDK_ROCE_GSI_QKEY),
			       "cm_rx_dropped", "other class") == 0, "class");
	mad[1] = NDK_ROCE_MGMT_CLASS_CM;
	mad[17] = NDK_ROCE_CM_SIDR_REQ & 0xFF;
	TEST_ASSERT(expect_one(mk_mad(mad, sizeof(mad), NDK_ROCE_GSI_QKEY),
			       "cm_rx_dropped", "SIDR_REQ") == 0, "sidr");

	/* REQs nobody can take: foreign port space, no listener, bad MTU. */
	mk_req(&m, 0x0000000001110000ull | 7174, 3);
	ndk_roce_cm_encode(&m, mad);
	TEST_ASSERT(expect_one(mk_mad(mad, sizeof(mad), NDK_ROCE_GSI_QKEY),
			       "cm_rejects_sent", "UDP port space") == 0, "ps");
	mk_req(&m, tcp | 7174, 3);
	ndk_roce_cm_encode(&m, mad);
	TEST_ASSERT(expect_one(mk_mad(mad, sizeof(mad), NDK_ROCE_GSI_QKEY),
			       "cm_rejects_sent", "no listener") == 0,
		    "listen");
	mk_req(&m, tcp | 7174, 7);
	ndk_roce_cm_encode(&m, mad);
	TEST_ASSERT(expect_one(mk_mad(mad, sizeof(mad), NDK_ROCE_GSI_QKEY),
			       "cm_rejects_sent", "MTU code 7") == 0, "mtu");

	/* Messages of connections that do not exist. */
	for (unsigned int i = 0; i < RTE_DIM(strays); i++) {
		memset(&m, 0, sizeof(m));
		m.attr_id = strays[i];
		m.local_comm_id = 0xAAAA + i;
		m.remote_comm_id = 0xBBBB + i;
		ndk_roce_cm_encode(&m, mad);
		TEST_ASSERT(expect_one(mk_mad(mad, sizeof(mad),
					      NDK_ROCE_GSI_QKEY),
				       "cm_rx_dropped",
				       ndk_roce_cm_attr_str(strays[i])) == 0,
			    "stray %s", ndk_roce_cm_attr_str(strays[i]));
	}
	memset(&m, 0, sizeof(m));
	m.attr_id = NDK_ROCE_CM_DREQ;
	m.local_comm_id = 0xDDDD;
	m.remote_comm_id = 0xEEEE;
	ndk_roce_cm_encode(&m, mad);
	TEST_ASSERT(expect_one(mk_mad(mad, sizeof(mad), NDK_ROCE_GSI_QKEY),
			       "cm_tx", "DREQ for nothing: DREP") == 0, "dreq");
	return 0;
}

static const struct ndk_test_case cases[] = {
	{ "truncated", t_truncated },
	{ "oversized", t_oversized },
	{ "garbage", t_garbage },
	{ "bad_icrc_and_headers", t_bad_icrc_and_headers },
	{ "bad_opcode_sequence", t_bad_opcode_sequence },
	{ "duplicate_and_ahead", t_duplicate_and_ahead },
	{ "cm_mads", t_cm_mads },
	{ "fresh_connection_after", t_fresh_connection_after },
};

int
main(int argc, char **argv)
{
	struct ndk_pair_config pc = { .mp_rings = true };
	struct rte_ether_addr sm, dm;
	int rc = 1;

	/* NDK_TEST_QUEUES=2: frames injected on queue 0 are steered too. */
	if (getenv("NDK_TEST_QUEUES") != NULL)
		pc.nb_queues = (uint16_t)atoi(getenv("NDK_TEST_QUEUES"));

	if (ndk_test_eal_init("test_func_rc_badinput", "0-1", NULL) != 0)
		return 1;
	g_pool = rte_pktmbuf_pool_create("badin_pool", 2047, 64, 0,
					 FRAME_ROOM + RTE_PKTMBUF_HEADROOM,
					 (int)rte_socket_id());
	g_pair = ndk_pair_create(&pc);
	if (g_pool == NULL || g_pair == NULL) {
		fprintf(stderr, "set-up failed\n");
		goto out;
	}
	memcpy(sm.addr_bytes, g_pair->info[0].mac, 6);
	memcpy(dm.addr_bytes, g_pair->info[1].mac, 6);
	ndk_roce_l2l4_init(&g_tmpl, &sm, &dm, g_pair->ipv4[0], g_pair->ipv4[1],
			   NDK_ROCE_SPORT_MIN, 0, 64);
	g_live = ndk_pair_conn_create(g_pair, NULL, NULL);
	if (g_live == NULL) {
		fprintf(stderr, "connection failed\n");
		goto out;
	}
	rc = ndk_test_run("rc_badinput", cases, RTE_DIM(cases), argc, argv);
out:
	ndk_pair_destroy(g_pair);
	rte_mempool_free(g_pool);
	rte_eal_cleanup();
	return rc;
}
