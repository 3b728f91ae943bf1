/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: zero-copy transmit over net_ring, whose frames are the
 * sender's mbufs passed by pointer, so a frame whose payload is attached
 * from the sender's region points into that region until the receiver
 * frees it. An RX callback on the receiving port holds chosen frames (by
 * BTH opcode) and later delivers or frees them. Checked: READ responses
 * and WRITE payloads go out attached (tx_zcopy) and arrive byte for byte;
 * with them held, deregistering the region returns STATUS_PENDING, its
 * token is refused at once, registering it again is STATUS_DEVICE_BUSY,
 * and closing it pends until the last held frame is freed (delivered, or
 * dropped), then completes through its callback; closing it without
 * callback returns only once they are back; a deregistration racing READs
 * leaves each READ whole or failed. Also trust_link_crc:
 * frames accepted without an ICRC check are counted, the data intact.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "rc_common.h"

#define HOLD_MAX 256
#define LEN (16 * 1024)         /* four frames at path MTU 4096 */
#define NFRAMES (LEN / 4096)

enum hold_mode { HOLD_OFF, HOLD_ON, HOLD_DELIVER, HOLD_DROP };

/* The RX callback's state: written by the polling lcore, read here. */
static struct {
	uint32_t mode;          /* enum hold_mode (atomic) */
	uint8_t op_lo, op_hi;   /* BTH opcodes held */
	uint32_t n;             /* frames held (atomic) */
	uint32_t out;           /* of those, delivered or freed (atomic) */
	uint64_t deliver_tsc;   /* nonzero: deliver from this TSC (atomic) */
	struct rte_mbuf *m[HOLD_MAX];
} g_hold;

/* The BTH opcode of an IPv4 RoCEv2 frame, or -1. */
static int
frame_opcode(const struct rte_mbuf *m)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ether_hdr *eh = (const struct rte_ether_hdr *)f;
	const struct rte_ipv4_hdr *ip;
	uint32_t ihl;

	if (m->data_len < RTE_ETHER_HDR_LEN + 20 + 8 + 12 ||
	    eh->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))
		return -1;
	ip = (const struct rte_ipv4_hdr *)(f + RTE_ETHER_HDR_LEN);
	ihl = (ip->version_ihl & 0xf) * 4u;
	if (ip->next_proto_id != IPPROTO_UDP ||
	    m->data_len < RTE_ETHER_HDR_LEN + ihl + 8 + 12)
		return -1;
	return f[RTE_ETHER_HDR_LEN + ihl + 8];
}

static uint16_t
hold_cb(uint16_t port __rte_unused, uint16_t queue __rte_unused,
	struct rte_mbuf *pkts[], uint16_t nb, uint16_t max,
	void *arg __rte_unused)
{
	uint32_t mode = __atomic_load_n(&g_hold.mode, __ATOMIC_ACQUIRE);
	uint32_t n = __atomic_load_n(&g_hold.n, __ATOMIC_RELAXED);
	uint32_t out = __atomic_load_n(&g_hold.out, __ATOMIC_RELAXED);
	uint64_t at = __atomic_load_n(&g_hold.deliver_tsc, __ATOMIC_ACQUIRE);
	uint16_t kept = 0;

	/* A delivery set for later: the test's thread is blocked meanwhile. */
	if (mode == HOLD_ON && at != 0 && rte_rdtsc() >= at)
		mode = HOLD_DELIVER;
	if (mode == HOLD_ON) {
		for (uint16_t i = 0; i < nb; i++) {
			int op = frame_opcode(pkts[i]);

			if (op >= g_hold.op_lo && op <= g_hold.op_hi &&
			    n < HOLD_MAX)
				g_hold.m[n++] = pkts[i];
			else
				pkts[kept++] = pkts[i];
		}
		__atomic_store_n(&g_hold.n, n, __ATOMIC_RELEASE);
		return kept;
	}
	if (mode == HOLD_DROP) {
		while (out < n)
			rte_pktmbuf_free(g_hold.m[out++]);
	} else if (mode == HOLD_DELIVER && out < n) {
		/* The held frames are older: ahead of this burst. */
		uint16_t k = (uint16_t)RTE_MIN(n - out, (uint32_t)(max - nb));

		memmove(&pkts[k], &pkts[0], nb * sizeof(pkts[0]));
		for (uint16_t i = 0; i < k; i++)
			pkts[i] = g_hold.m[out++];
		nb += k;
	}
	__atomic_store_n(&g_hold.out, out, __ATOMIC_RELEASE);
	return nb;
}

/* Hold frames with BTH opcodes [lo, hi] arriving at @p side's port. */
static const struct rte_eth_rxtx_callback *
hold_start(struct ndk_pair *p, int side, uint8_t lo, uint8_t hi)
{
	memset(&g_hold, 0, sizeof(g_hold));
	g_hold.op_lo = lo;
	g_hold.op_hi = hi;
	__atomic_store_n(&g_hold.mode, HOLD_ON, __ATOMIC_RELEASE);
	return rte_eth_add_rx_callback(p->port[side], 0, hold_cb, NULL);
}

/* Wait until @p *v >= @p n (atomic), polling nothing: pollers run. */
static bool
wait_count(const uint32_t *v, uint32_t n, double timeout_s)
{
	double end = ndk_pair_now() + timeout_s;

	while (__atomic_load_n(v, __ATOMIC_ACQUIRE) < n) {
		if (ndk_pair_now() > end)
			return false;
		ndk_pair_sleep_ms(1);
	}
	return true;
}

/* Deliver (or free) the held frames and stop holding; wait for it. */
static int
hold_end(struct ndk_pair *p, int side,
	 const struct rte_eth_rxtx_callback *cb, enum hold_mode how)
{
	uint32_t n = __atomic_load_n(&g_hold.n, __ATOMIC_ACQUIRE);

	__atomic_store_n(&g_hold.mode, how, __ATOMIC_RELEASE);
	TEST_ASSERT(wait_count(&g_hold.out, n, WAIT_S),
		    "held frames not released (%u of %u)", g_hold.out, n);
	TEST_ASSERT_EQ(rte_eth_remove_rx_callback(p->port[side], 0, cb), 0,
		       "remove RX callback");
	return 0;
}

static void
close_cb(void *ctx)
{
	__atomic_store_n((uint32_t *)ctx, 1, __ATOMIC_RELEASE);
}

/* Options with a long ACK timeout: no retransmission while frames wait. */
static struct ndk_pair_conn *
conn_slow(struct ndk_pair *p)
{
	struct ndk_pair_conn_opts o;

	memset(&o, 0, sizeof(o));
	o.timeout = 22;         /* about 17 s */
	return conn_new(p, &o);
}

/*
 * With the frames sent from @p b held: deregistration pends, the token is
 * refused at once (a READ on another connection, @p side owns @p b), a
 * new registration is refused, the close pends. @p closed is its flag.
 */
static int
held_region_checks(struct ndk_pair *p, int side, struct ndk_pair_buf *b,
		   uint32_t flags, uint32_t *closed)
{
	struct ndk_pair_conn *c2;
	struct ndk_pair_buf *sink;
	struct ndk_result_ex r;
	struct ndk_sge s;
	ndk_status_t st;
	char d[200];

	st = ndk_deregister_mr(b->mr);
	TEST_ASSERT_EQ(st, NDK_STATUS_PENDING, "deregister with frames out: %s",
		       ndk_status_str(st));
	st = ndk_register_mr(b->mr, b->data, b->len, flags);
	TEST_ASSERT_EQ(st, NDK_STATUS_DEVICE_BUSY,
		       "register again while frames are out: %s",
		       ndk_status_str(st));
	/* The peer's READ of the old token fails at once. */
	if (side == NDK_PAIR_B) {
		c2 = conn_slow(p);
		TEST_ASSERT(c2 != NULL, "second connection");
		sink = ndk_pair_buf_alloc(p, c2->pd[0], 4096,
					  read_sink_flags(p));
		TEST_ASSERT(sink != NULL, "sink");
		s = ndk_pair_sge(sink, 0, 4096);
		TEST_ASSERT_EQ(ndk_read(c2->qp[0], (void *)0x77, &s, 1,
					ndk_pair_raddr(b, 0), b->rtoken, 0),
			       NDK_STATUS_SUCCESS, "READ of the dead token");
		TEST_ASSERT_EQ(ndk_pair_wait(c2->icq[0], &r, 1, WAIT_S), 1,
			       "completion of the READ of the dead token");
		ndk_pair_result_str(&r, d, sizeof(d));
		printf("    READ of the deregistered token: %s\n", d);
		TEST_ASSERT(r.status != NDK_STATUS_SUCCESS,
			    "READ of a deregistered region succeeded");
		TEST_ASSERT(all_zero(sink->data, 4096), "sink written");
		ndk_pair_buf_free(sink);
		ndk_pair_conn_destroy(c2);
	}
	st = ndk_close_mr(b->mr, close_cb, closed);
	TEST_ASSERT_EQ(st, NDK_STATUS_PENDING, "close with frames out: %s",
		       ndk_status_str(st));
	b->mr = NULL;           /* closed: ndk_pair_buf_free frees memory */
	ndk_pair_sleep_ms(20);
	TEST_ASSERT_EQ(__atomic_load_n(closed, __ATOMIC_ACQUIRE), 0,
		       "close completed with frames still held");
	return 0;
}

/*
 * A READs LEN bytes of B's region (@p op XOP_READ: B's responses are held
 * at A) or WRITEs LEN bytes of its region to B (XOP_WRITE: held at B).
 * Then the sender's region is deregistered and closed, and the held
 * frames delivered (@p how HOLD_DELIVER: the operation completes with the
 * data) or freed (HOLD_DROP).
 */
static int
held(enum xop op, enum hold_mode how)
{
	bool rd = op == XOP_READ;
	int owner = rd ? NDK_PAIR_B : NDK_PAIR_A;
	int peer = rd ? NDK_PAIR_A : NDK_PAIR_B;
	uint32_t flags = rd ? NDK_MR_FLAG_ALLOW_REMOTE_READ : 0;
	uint32_t seed = rd ? 0x2C0 : 0x3C0;
	struct ndk_pair *p = pair_get(4096);
	const struct rte_eth_rxtx_callback *cb;
	struct ndk_pair_buf *src, *dst;
	struct ndk_pair_conn *c;
	uint64_t zc0, zc1;
	uint32_t closed = 0;
	struct ndk_sge s;
	ndk_status_t st;
	long bad;

	TEST_ASSERT(p != NULL, "pair");
	c = conn_slow(p);
	TEST_ASSERT(c != NULL, "connection");
	src = ndk_pair_buf_alloc(p, c->pd[owner], LEN, flags);
	dst = ndk_pair_buf_alloc(p, c->pd[peer], LEN, rd ? read_sink_flags(p) :
				 NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
	TEST_ASSERT(src != NULL && dst != NULL, "buffers");
	ndk_pair_fill(src->data, LEN, seed);
	zc0 = ndk_pair_xstat(p, owner, "tx_zcopy");
	/* READ responses, or WRITE packets. */
	cb = rd ? hold_start(p, peer, 0x0D, 0x10) :
		hold_start(p, peer, 0x06, 0x0A);
	TEST_ASSERT(cb != NULL, "RX callback");
	if (rd) {
		s = ndk_pair_sge(dst, 0, LEN);
		st = ndk_read(c->qp[0], (void *)0x71, &s, 1,
			      ndk_pair_raddr(src, 0), src->rtoken, 0);
	} else {
		s = ndk_pair_sge(src, 0, LEN);
		st = ndk_write(c->qp[0], (void *)0x71, &s, 1,
			       ndk_pair_raddr(dst, 0), dst->rtoken, 0);
	}
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "post");
	TEST_ASSERT(wait_count(&g_hold.n, NFRAMES, WAIT_S),
		    "frames not seen (%u)", g_hold.n);
	zc1 = ndk_pair_xstat(p, owner, "tx_zcopy");
	printf("    %u frames held, sender's tx_zcopy +%" PRIu64 "\n",
	       g_hold.n, zc1 - zc0);
	TEST_ASSERT(zc1 - zc0 >= NFRAMES, "not sent zero-copy");
	if (held_region_checks(p, owner, src, flags, &closed) != 0 ||
	    hold_end(p, peer, cb, how) != 0)
		return -1;
	TEST_ASSERT(wait_count(&closed, 1, WAIT_S),
		    "close not completed after the frames were freed");
	if (how == HOLD_DELIVER) {
		if (expect_one(c->icq[0], rd ? NDK_OP_READ : NDK_OP_WRITE,
			       &qctx_a, (void *)0x71, -1, "operation") != 0)
			return -1;
		bad = ndk_pair_check(dst->data, LEN, seed);
		TEST_ASSERT(bad < 0, "data differs at byte %ld", bad);
		TEST_ASSERT(ndk_pair_buf_guards_ok(dst), "destination guards");
	}
	/* The region's memory is the application's again. */
	TEST_ASSERT(ndk_pair_check(src->data, LEN, seed) < 0,
		    "source changed");
	ndk_pair_buf_free(src);
	ndk_pair_buf_free(dst);
	ndk_pair_conn_destroy(c);
	return 0;
}

/*
 * A READ by A of @p len bytes of a region of B filled from @p seed, into a
 * sink of A, posted with request context @p req.
 */
static int
read_post(struct ndk_pair *p, struct ndk_pair_conn *c, size_t len,
	  uint32_t seed, void *req, struct ndk_pair_buf **src,
	  struct ndk_pair_buf **dst)
{
	struct ndk_sge s;

	*src = ndk_pair_buf_alloc(p, c->pd[NDK_PAIR_B], len,
				  NDK_MR_FLAG_ALLOW_REMOTE_READ);
	*dst = ndk_pair_buf_alloc(p, c->pd[NDK_PAIR_A], len,
				  read_sink_flags(p));
	TEST_ASSERT(*src != NULL && *dst != NULL, "buffers");
	ndk_pair_fill((*src)->data, len, seed);
	s = ndk_pair_sge(*dst, 0, len);
	TEST_ASSERT_EQ(ndk_read(c->qp[0], req, &s, 1, ndk_pair_raddr(*src, 0),
				(*src)->rtoken, 0), NDK_STATUS_SUCCESS, "READ");
	return 0;
}

/*
 * A close without callback waits for the frames sent from the region: B's
 * READ responses are held at A and delivered 50 ms after B closes its
 * region (by the polling lcore: this thread is in the close). The close
 * returns STATUS_SUCCESS only once every held frame is back, and the READ
 * completes with the data.
 */
static int
t_close_sync(void)
{
	struct ndk_pair *p = pair_get(4096);
	const struct rte_eth_rxtx_callback *cb;
	struct ndk_pair_buf *src, *dst;
	struct ndk_pair_conn *c;
	ndk_status_t st;
	uint32_t n;

	TEST_ASSERT(p != NULL, "pair");
	c = conn_slow(p);
	TEST_ASSERT(c != NULL, "connection");
	cb = hold_start(p, NDK_PAIR_A, 0x0D, 0x10);
	TEST_ASSERT(cb != NULL, "RX callback");
	if (read_post(p, c, LEN, 0x2D0, (void *)0x72, &src, &dst) != 0)
		return -1;
	TEST_ASSERT(wait_count(&g_hold.n, NFRAMES, WAIT_S),
		    "frames not seen (%u)", g_hold.n);
	n = __atomic_load_n(&g_hold.n, __ATOMIC_ACQUIRE);
	st = ndk_deregister_mr(src->mr);
	TEST_ASSERT_EQ(st, NDK_STATUS_PENDING, "deregister with frames out: %s",
		       ndk_status_str(st));
	__atomic_store_n(&g_hold.deliver_tsc,
			 rte_rdtsc() + rte_get_tsc_hz() / 20, __ATOMIC_RELEASE);
	st = ndk_close_mr(src->mr, NULL, NULL);
	src->mr = NULL;
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "close without callback: %s",
		       ndk_status_str(st));
	TEST_ASSERT_EQ(__atomic_load_n(&g_hold.out, __ATOMIC_ACQUIRE), n,
		       "close returned with frames still held");
	/* The memory is the application's again: scribble on it. */
	memset(src->data, 0xEE, LEN);
	if (hold_end(p, NDK_PAIR_A, cb, HOLD_DELIVER) != 0 ||
	    expect_one(c->icq[0], NDK_OP_READ, &qctx_a, (void *)0x72, -1,
		       "READ") != 0)
		return -1;
	TEST_ASSERT(ndk_pair_check(dst->data, LEN, 0x2D0) < 0,
		    "READ data differs");
	ndk_pair_buf_free(src);
	ndk_pair_buf_free(dst);
	ndk_pair_conn_destroy(c);
	return 0;
}

/*
 * Deregistration racing READs: A reads 64 KiB (sixteen responses sent
 * zero-copy) while B deregisters and closes the region without callback
 * at once, then overwrites it. Each READ either completes with the
 * region's old bytes, all of them, or fails; never a mix, never the new
 * bytes (a frame still pointing into the region after the close).
 */
#define RACE_LEN (64 * 1024)
#define RACE_ROUNDS 24

static int
t_dereg_race(void)
{
	struct ndk_pair *p = pair_get(4096);
	unsigned int ok = 0, failed = 0;

	TEST_ASSERT(p != NULL, "pair");
	for (unsigned int i = 0; i < RACE_ROUNDS; i++) {
		uint32_t seed = 0x800 + i;
		struct ndk_pair_buf *src, *dst;
		struct ndk_pair_conn *c;
		struct ndk_result_ex r;
		ndk_status_t st;

		c = conn_new(p, NULL);
		TEST_ASSERT(c != NULL, "connection");
		if (read_post(p, c, RACE_LEN, seed, (void *)0x73, &src,
			      &dst) != 0)
			return -1;
		/* Later each round: before, during, after the responses. */
		rte_delay_us_block(i * 20);
		st = ndk_close_mr(src->mr, NULL, NULL);
		src->mr = NULL;
		TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "close: %s",
			       ndk_status_str(st));
		memset(src->data, 0xEE, RACE_LEN);
		TEST_ASSERT_EQ(ndk_pair_wait(c->icq[0], &r, 1, WAIT_S), 1,
			       "READ completion");
		if (r.status == NDK_STATUS_SUCCESS) {
			long bad = ndk_pair_check(dst->data, RACE_LEN, seed);

			TEST_ASSERT(bad < 0, "round %u: READ succeeded with "
				    "data differing at byte %ld", i, bad);
			ok++;
		} else {
			failed++;
		}
		TEST_ASSERT(ndk_pair_buf_guards_ok(dst), "guards");
		ndk_pair_buf_free(src);
		ndk_pair_buf_free(dst);
		ndk_pair_conn_destroy(c);
	}
	printf("    %u READs completed whole, %u failed\n", ok, failed);
	return 0;
}

static int t_read_delivered(void) { return held(XOP_READ, HOLD_DELIVER); }
static int t_read_dropped(void) { return held(XOP_READ, HOLD_DROP); }
static int t_write_delivered(void) { return held(XOP_WRITE, HOLD_DELIVER); }

/* Sizes around the zero-copy threshold, both ways, byte for byte. */
static int
t_sizes(void)
{
	static const size_t sizes[] = {
		1000, 1023, 1024, 1025, 2047, 2048, 4095, 4096, 4097, 12345,
	};
	struct ndk_pair *p = pair_get(4096);
	struct ndk_pair_conn *c;
	uint64_t zc0;

	TEST_ASSERT(p != NULL, "pair");
	c = conn_new(p, NULL);
	TEST_ASSERT(c != NULL, "connection");
	zc0 = ndk_pair_xstat(p, NDK_PAIR_A, "tx_zcopy") +
		ndk_pair_xstat(p, NDK_PAIR_B, "tx_zcopy");
	for (unsigned int i = 0; i < RTE_DIM(sizes); i++)
		if (xfer(p, c, XOP_READ, sizes[i], 0x400 + i) != 0 ||
		    xfer(p, c, XOP_WRITE, sizes[i], 0x500 + i) != 0 ||
		    xfer(p, c, XOP_SEND, sizes[i], 0x600 + i) != 0)
			return -1;
	printf("    tx_zcopy +%" PRIu64 "\n",
	       ndk_pair_xstat(p, NDK_PAIR_A, "tx_zcopy") +
	       ndk_pair_xstat(p, NDK_PAIR_B, "tx_zcopy") - zc0);
	TEST_ASSERT(ndk_pair_xstat(p, NDK_PAIR_A, "tx_zcopy") +
		    ndk_pair_xstat(p, NDK_PAIR_B, "tx_zcopy") > zc0,
		    "nothing sent zero-copy");
	ndk_pair_conn_destroy(c);
	return 0;
}

/* Adapters that trust the ring: nothing checked, counted, data intact. */
static int
t_trust_link_crc(void)
{
	static const size_t sizes[] = { 64, 4096, 12345 };
	struct ndk_pair *p = pair_get(4096);
	struct ndk_pair_conn *c;
	uint64_t t0[2], t1[2];

	TEST_ASSERT(p != NULL, "pair");
	c = conn_new(p, NULL);
	TEST_ASSERT(c != NULL, "connection");
	TEST_ASSERT(xfer(p, c, XOP_WRITE, 4096, 0x700) == 0, "WRITE");
	TEST_ASSERT_EQ(ndk_pair_xstat(p, NDK_PAIR_A, "rx_icrc_trusted") +
		       ndk_pair_xstat(p, NDK_PAIR_B, "rx_icrc_trusted"), 0,
		       "ICRC trusted by default");
	ndk_pair_conn_destroy(c);

	p = pair_get_opts(4096, true);
	TEST_ASSERT(p != NULL, "pair with trust_link_crc");
	c = conn_new(p, NULL);
	TEST_ASSERT(c != NULL, "connection");
	for (int s = 0; s < 2; s++)
		t0[s] = ndk_pair_xstat(p, s, "rx_icrc_trusted");
	for (unsigned int i = 0; i < RTE_DIM(sizes); i++)
		if (xfer(p, c, XOP_READ, sizes[i], 0x710 + i) != 0 ||
		    xfer(p, c, XOP_WRITE, sizes[i], 0x720 + i) != 0 ||
		    xfer(p, c, XOP_SEND, sizes[i], 0x730 + i) != 0)
			return -1;
	for (int s = 0; s < 2; s++)
		t1[s] = ndk_pair_xstat(p, s, "rx_icrc_trusted");
	printf("    rx_icrc_trusted A +%" PRIu64 " B +%" PRIu64 "\n",
	       t1[0] - t0[0], t1[1] - t0[1]);
	TEST_ASSERT(t1[0] > t0[0] && t1[1] > t0[1],
		    "frames not counted as trusted");
	TEST_ASSERT_EQ(ndk_pair_xstat(p, NDK_PAIR_A, "rx_icrc_errors") +
		       ndk_pair_xstat(p, NDK_PAIR_B, "rx_icrc_errors"), 0,
		       "ICRC errors");
	ndk_pair_conn_destroy(c);
	return 0;
}

static const struct ndk_test_case cases[] = {
	{ "sizes", t_sizes },
	{ "read_held_delivered", t_read_delivered },
	{ "read_held_dropped", t_read_dropped },
	{ "write_held_delivered", t_write_delivered },
	{ "close_sync", t_close_sync },
	{ "dereg_race", t_dereg_race },
	{ "trust_link_crc", t_trust_link_crc },
};

int
main(int argc, char **argv)
{
	return rc_main("test_func_zcopy", "zcopy", cases, RTE_DIM(cases),
		       argc, argv);
}
