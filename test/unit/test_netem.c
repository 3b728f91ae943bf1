/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Unit tests of lib/netem: one net_ring port whose RX ring the test fills
 * itself; rte_eth_rx_burst then shows what the RX callback did. Every frame
 * carries its sequence number three times (offsets 14, 18, 22) so that it
 * can be read back even when one byte of it was corrupted.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "ndk_netem.h"
#include "ndk_test.h"

#define POOL_SIZE	32767
#define RING_SIZE	4096
#define OUT_CAP		32768
#define FRAME_LEN	64
#define MAX_LEN		256
#define BURST		32

static struct rte_mempool *pool;
static struct rte_ring *rx_ring, *tx_ring;
static uint16_t port;

/* State of the current case, cleaned up by reset() even after a failure. */
static struct ndk_netem *ne;
static struct rte_mbuf *out[OUT_CAP];	/* frames delivered, in order */
static uint32_t nout;
static bool over_max;	/* a burst returned more than asked for */

static void
fill(uint8_t *d, uint32_t seq, uint16_t len)
{
	for (uint16_t i = 0; i < len; i++)
		d[i] = (uint8_t)(seq * 31u + i * 7u + 1u);
	d[12] = 0x88;
	d[13] = 0xb5;
	for (unsigned int k = 0; k < 3 && 18 + 4 * k <= len; k++)
		memcpy(d + 14 + 4 * k, &seq, sizeof(seq));
}

/* A frame of @len bytes; @seg0 in 1..len-1 splits it into two segments. */
static struct rte_mbuf *
frame(uint32_t seq, uint16_t len, uint16_t seg0)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool), *m2 = NULL;
	uint8_t buf[MAX_LEN];

	if (seg0 == 0 || seg0 >= len)
		seg0 = len;
	else
		m2 = rte_pktmbuf_alloc(pool);
	if (m == NULL || (seg0 < len && m2 == NULL)) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	fill(buf, seq, len);
	memcpy(rte_pktmbuf_append(m, seg0), buf, seg0);
	if (m2 != NULL) {
		memcpy(rte_pktmbuf_append(m2, len - seg0), buf + seg0,
		       len - seg0);
		rte_pktmbuf_chain(m, m2);
	}
	return m;
}

static uint32_t
seq_of(const struct rte_mbuf *m)
{
	uint8_t b[26];
	const uint8_t *d = rte_pktmbuf_read(m, 0, sizeof(b), b);
	uint32_t s[3];

	if (d == NULL)
		return UINT32_MAX;
	memcpy(s, d + 14, sizeof(s));
	return s[0] == s[1] || s[0] == s[2] ? s[0] : s[1];
}

/* Bytes of @m that differ from frame @seq of @len bytes (-1: bad length). */
static int
diff(const struct rte_mbuf *m, uint32_t seq, uint16_t len, uint32_t *where)
{
	uint8_t want[MAX_LEN], tmp[MAX_LEN];
	const uint8_t *got;
	uint32_t unused;
	int n = 0;

	if (m->pkt_len != len)
		return -1;
	fill(want, seq, len);
	got = rte_pktmbuf_read(m, 0, len, tmp);
	for (uint16_t i = 0; i < len; i++) {
		if (got[i] != want[i]) {
			*(where != NULL ? where : &unused) = i;
			n++;
		}
	}
	return n;
}

static void
out_free(void)
{
	rte_pktmbuf_free_bulk(out, nout);
	nout = 0;
}

static void
reset(void)
{
	void *m;

	ndk_netem_detach(ne);
	ne = NULL;
	while (rte_ring_dequeue(rx_ring, &m) == 0)
		rte_pktmbuf_free(m);
	out_free();
	over_max = false;
}

static int
attach(const struct ndk_netem_config *cfg)
{
	reset();
	ne = ndk_netem_attach(port, 0, cfg);
	return ne != NULL ? 0 : -1;
}

static int
push(uint32_t seq0, uint32_t n, uint16_t len)
{
	for (uint32_t i = 0; i < n; i++) {
		struct rte_mbuf *m = frame(seq0 + i, len, 0);

		if (m == NULL || rte_ring_enqueue(rx_ring, m) != 0) {
			rte_pktmbuf_free(m);
			return -1;
		}
	}
	return 0;
}

/* One rx_burst of at most @max; keep the frames in out[] or free them. */
static uint16_t
poll_once(uint16_t max, bool keep)
{
	struct rte_mbuf *b[256];
	uint16_t n = rte_eth_rx_burst(port, 0, b, max);

	over_max |= n > max || (keep && nout + n > OUT_CAP);
	if (keep && nout + n <= OUT_CAP) {
		memcpy(&out[nout], b, n * sizeof(*b));
		nout += n;
	} else {
		rte_pktmbuf_free_bulk(b, n);
	}
	return n;
}

/*
 * Feed frames seq0 .. seq0+n-1 in bursts of @burst, with a poll of BURST
 * after each, then @idle empty polls. Returns the frames delivered, or -1.
 */
static long
run(uint32_t seq0, uint32_t n, uint16_t burst, bool keep, unsigned int idle)
{
	long got = 0;

	for (uint32_t i = 0; i < n; i += burst) {
		if (push(seq0 + i, RTE_MIN((uint32_t)burst, n - i),
			 FRAME_LEN) != 0)
			return -1;
		got += poll_once(BURST, keep);
	}
	while (rte_ring_count(rx_ring) > 0)
		got += poll_once(BURST, keep);
	for (unsigned int i = 0; i < idle; i++)
		got += poll_once(BURST, keep);
	return over_max ? -1 : got;
}

static struct ndk_netem_stats st;
#define stats() (ndk_netem_get_stats(ne, &st), st)

static int
t_passthrough(void)
{
	struct ndk_netem_config cfg = { .seed = 1 };
	struct ndk_netem_stats s;

	TEST_ASSERT(attach(&cfg) == 0, "attach: %s", rte_strerror(rte_errno));
	TEST_ASSERT_EQ(run(0, 1000, 20, true, 4), 1000, "");
	for (uint32_t i = 0; i < nout; i++)
		TEST_ASSERT_EQ(diff(out[i], i, FRAME_LEN, NULL), 0,
			       "frame %u changed or out of order", i);
	s = stats();
	TEST_ASSERT_EQ(s.seen, 1000, "");
	TEST_ASSERT(s.dropped + s.duplicated + s.reordered + s.corrupted == 0,
		    "impairment counted at 0 ppm");
	return 0;
}

static int
t_drop(void)
{
	static const struct { uint32_t ppm, n; long lo, hi; } c[] = {
		{ 1000000, 1000, 1000, 1000 },	/* all */
		{ 50000, 200000, 8000, 12000 },	/* 5 %, band 4..6 % */
		{ 1000, 200000, 130, 270 },	/* 0.1 %: 200 +- 5 sigma */
	};

	for (unsigned int k = 0; k < RTE_DIM(c); k++) {
		struct ndk_netem_config cfg = { .drop_ppm = c[k].ppm,
						.seed = 1234 };
		struct ndk_netem_stats s;
		long got;

		TEST_ASSERT(attach(&cfg) == 0, "attach");
		got = run(0, c[k].n, BURST, false, 0);
		s = stats();
		TEST_ASSERT_EQ(s.seen, c[k].n, "");
		TEST_ASSERT_EQ(got, c[k].n - (long)s.dropped, "");
		TEST_ASSERT((long)s.dropped >= c[k].lo &&
			    (long)s.dropped <= c[k].hi, "%u ppm: %" PRIu64
			    " of %u dropped", c[k].ppm, s.dropped, c[k].n);
	}
	return 0;
}

static int
t_duplicate(void)
{
	struct ndk_netem_config cfg = { .dup_ppm = 1000000, .seed = 5 };
	struct rte_mbuf *m;

	TEST_ASSERT(attach(&cfg) == 0, "attach");
	TEST_ASSERT_EQ(run(0, 500, 16, true, 4), 1000, "");
	for (uint32_t i = 0; i < 500; i++) {
		TEST_ASSERT(out[2 * i] != out[2 * i + 1], "copy is the same");
		TEST_ASSERT_EQ(diff(out[2 * i], i, FRAME_LEN, NULL), 0, "");
		TEST_ASSERT_EQ(diff(out[2 * i + 1], i, FRAME_LEN, NULL), 0,
			       "copy of %u differs", i);
	}
	TEST_ASSERT_EQ(stats().duplicated, 500, "");

	/* Two-segment frames are copied whole. */
	out_free();
	m = frame(7, 100, 40);
	TEST_ASSERT(m != NULL && rte_ring_enqueue(rx_ring, m) == 0, "push");
	TEST_ASSERT_EQ(poll_once(BURST, true), 2, "");
	TEST_ASSERT_EQ(diff(out[0], 7, 100, NULL), 0, "");
	TEST_ASSERT_EQ(diff(out[1], 7, 100, NULL), 0, "multi-seg copy");
	return 0;
}

/* Full bursts leave no slot for copies: they come out in later polls. */
static int
t_duplicate_full_burst(void)
{
	struct ndk_netem_config cfg = { .dup_ppm = 1000000 };
	uint64_t dups;

	TEST_ASSERT(attach(&cfg) == 0, "attach");
	for (uint32_t r = 0; r < 20; r++) {
		/* 32 frames into a 32-frame array, then one empty poll. */
		TEST_ASSERT_EQ(run(r * BURST, BURST, BURST, true, 1),
			       2 * BURST, "round %u, over_max %d", r, over_max);
	}
	for (uint32_t i = 0; i < nout; i++)
		TEST_ASSERT_EQ(seq_of(out[i]), i / 2, "position %u", i);
	out_free();

	/* Slots freed by drops take waiting copies in the same poll. */
	TEST_ASSERT(push(0, BURST, FRAME_LEN) == 0, "push");
	TEST_ASSERT_EQ(poll_once(BURST, true), BURST, "");
	cfg.drop_ppm = 1000000;
	ndk_netem_set(ne, &cfg);
	TEST_ASSERT(push(BURST, BURST, FRAME_LEN) == 0, "push");
	TEST_ASSERT_EQ(poll_once(BURST, true), BURST, "copies held back");
	for (uint32_t i = 0; i < nout; i++)
		TEST_ASSERT_EQ(seq_of(out[i]), i / 2, "position %u", i);

	/*
	 * Saturated: the poller takes exactly as many frames per poll as
	 * arrive, so only the copies that fit in the carry area get out;
	 * every original still does, once, in order.
	 */
	cfg.drop_ppm = 0;
	TEST_ASSERT(attach(&cfg) == 0, "attach");
	TEST_ASSERT(run(0, 640, BURST, true, 8) > 0, "run");
	dups = stats().duplicated;
	TEST_ASSERT_EQ(nout, 640 + dups, "");
	TEST_ASSERT(dups >= 64 && dups < 640, "%" PRIu64 " copies", dups);
	for (uint32_t i = 0, next = 0; i < nout; i++) {
		uint32_t q = seq_of(out[i]);

		TEST_ASSERT(q == next || q + 1 == next, "seq %u, expected %u",
			    q, next);
		next = q + 1;
	}
	return 0;
}

static int
t_reorder(void)
{
	struct ndk_netem_config cfg = { .reorder_ppm = 200000,
					.reorder_gap = 3, .seed = 99 };
	static uint8_t seen[10000];
	uint32_t inversions = 0;
	uint64_t held;

	TEST_ASSERT(attach(&cfg) == 0, "attach");
	memset(seen, 0, sizeof(seen));
	TEST_ASSERT_EQ(run(0, 10000, BURST, true, 16), 10000, "");
	for (uint32_t i = 0; i < nout; i++) {
		uint32_t q = seq_of(out[i]);

		TEST_ASSERT(q < 10000 && !seen[q], "seq %u twice or bad", q);
		TEST_ASSERT_EQ(diff(out[i], q, FRAME_LEN, NULL), 0, "");
		seen[q] = 1;
		inversions += i > 0 && q < seq_of(out[i - 1]);
	}
	held = stats().reordered;
	TEST_ASSERT(held >= 1700 && held <= 2300, "%" PRIu64 " held", held);
	TEST_ASSERT(inversions >= held / 2, "%u inversions for %" PRIu64
		    " held frames", inversions, held);
	return 0;
}

/* Exact gap semantics and release of held frames on an idle link. */
static int
t_reorder_gap_idle(void)
{
	struct ndk_netem_config cfg = { .reorder_ppm = 1000000,
					.reorder_gap = 3 };
	static const uint32_t want[] = { 1, 2, 3, 0, 4, 5 };
	unsigned int polls = 0;

	TEST_ASSERT(attach(&cfg) == 0, "attach");
	TEST_ASSERT(push(0, 1, FRAME_LEN) == 0, "push");
	TEST_ASSERT_EQ(poll_once(BURST, true), 0, "frame 0 not held");
	cfg.reorder_ppm = 0;
	ndk_netem_set(ne, &cfg);
	TEST_ASSERT(push(1, 5, FRAME_LEN) == 0, "push");
	TEST_ASSERT_EQ(poll_once(BURST, true), 6, "");
	for (unsigned int i = 0; i < RTE_DIM(want); i++)
		TEST_ASSERT_EQ(seq_of(out[i]), want[i], "position %u", i);

	/* Nothing overtakes: released after a few empty polls, in order. */
	cfg.reorder_ppm = 1000000;
	cfg.reorder_gap = 1000;
	ndk_netem_set(ne, &cfg);
	TEST_ASSERT(push(6, 10, FRAME_LEN) == 0, "push");
	TEST_ASSERT_EQ(poll_once(BURST, true), 0, "frames not held");
	TEST_ASSERT_EQ(poll_once(BURST, true), 0, "released too early");
	while (nout < 16 && ++polls < 50)
		poll_once(BURST, true);
	TEST_ASSERT_EQ(nout, 16, "held frames never released");
	for (uint32_t i = 6; i < 16; i++)
		TEST_ASSERT_EQ(seq_of(out[i]), i, "");
	TEST_ASSERT_EQ(stats().reordered, 11, "");
	return 0;
}

static int
t_corrupt(void)
{
	struct ndk_netem_config cfg = { .corrupt_ppm = 1000000, .seed = 3 };
	bool hit[FRAME_LEN] = { false };
	unsigned int distinct = 0;
	struct rte_mbuf *f, *c;
	uint32_t where = 0;

	TEST_ASSERT(attach(&cfg) == 0, "attach");
	TEST_ASSERT_EQ(run(0, 1000, BURST, true, 2), 1000, "");
	for (uint32_t i = 0; i < nout; i++) {
		TEST_ASSERT_EQ(diff(out[i], i, FRAME_LEN, &where), 1, "%u", i);
		TEST_ASSERT(where >= 14 && where < FRAME_LEN, "at %u", where);
		distinct += !hit[where];
		hit[where] = true;
	}
	TEST_ASSERT(distinct >= 45, "only %u of 50 offsets hit", distinct);
	TEST_ASSERT_EQ(stats().corrupted, 1000, "");
	out_free();

	/* Nothing after the Ethernet header: nothing to corrupt. */
	TEST_ASSERT(push(0, 4, 14) == 0, "push");
	TEST_ASSERT_EQ(poll_once(BURST, true), 4, "");
	for (uint32_t i = 0; i < 4; i++)
		TEST_ASSERT_EQ(diff(out[i], i, 14, NULL), 0, "");
	TEST_ASSERT_EQ(stats().corrupted, 1000, "");
	out_free();

	/* Shared data (extra reference, clone) is copied, never written. */
	f = frame(77, FRAME_LEN, 0);
	TEST_ASSERT(f != NULL, "alloc");
	rte_mbuf_refcnt_update(f, 1);
	TEST_ASSERT(rte_ring_enqueue(rx_ring, f) == 0, "enqueue");
	TEST_ASSERT_EQ(poll_once(BURST, true), 1, "");
	c = rte_pktmbuf_clone(f, pool);
	TEST_ASSERT(c != NULL && rte_ring_enqueue(rx_ring, c) == 0, "clone");
	TEST_ASSERT_EQ(poll_once(BURST, true), 1, "");
	TEST_ASSERT_EQ(diff(f, 77, FRAME_LEN, NULL), 0, "shared data changed");
	rte_pktmbuf_free(f);
	for (unsigned int i = 0; i < 2; i++) {
		TEST_ASSERT(out[i] != f && out[i] != c, "written in place");
		TEST_ASSERT_EQ(diff(out[i], 77, FRAME_LEN, NULL), 1, "");
	}
	return 0;
}

/* Everything at 10 %: a fingerprint of what came out, in order. */
static int
trace(uint64_t seed, uint32_t seq0, uint32_t skip, uint64_t *tr,
      uint32_t *n)
{
	struct ndk_netem_config cfg = { .drop_ppm = 100000, .dup_ppm = 100000,
		.reorder_ppm = 100000, .corrupt_ppm = 100000, .seed = seed };

	/* With @skip, start on another seed and switch to @seed later. */
	cfg.seed = skip > 0 ? seed + 1 : seed;
	if (attach(&cfg) != 0 || run(0, skip, BURST, false, 16) < 0)
		return -1;
	cfg.seed = seed;
	if (skip > 0)
		ndk_netem_set(ne, &cfg);
	if (run(seq0, 3000, BURST, true, 16) < 0 || nout > 8000)
		return -1;
	for (uint32_t i = 0; i < nout; i++) {
		uint32_t q = seq_of(out[i]), where = 0;
		uint8_t b[FRAME_LEN], want[FRAME_LEN];
		const uint8_t *d = rte_pktmbuf_read(out[i], 0, FRAME_LEN, b);

		/* Relative seq, where the frame was corrupted, and how. */
		fill(want, q, FRAME_LEN);
		diff(out[i], q, FRAME_LEN, &where);
		tr[i] = (uint64_t)(q - seq0) << 32 | where << 8 |
			(d[where] ^ want[where]);
	}
	*n = nout;
	out_free();
	return 0;
}

static int
t_reproducible(void)
{
	static uint64_t a[8000], b[8000];
	uint32_t na = 0, nb = 0;

	TEST_ASSERT(trace(42, 0, 0, a, &na) == 0, "run 1");
	TEST_ASSERT(trace(42, 0, 0, b, &nb) == 0, "run 2");
	TEST_ASSERT(na == nb && memcmp(a, b, na * sizeof(*a)) == 0,
		    "same seed, different result (%u vs %u frames)", na, nb);
	TEST_ASSERT(trace(43, 0, 0, b, &nb) == 0, "run 3");
	TEST_ASSERT(na != nb || memcmp(a, b, na * sizeof(*a)) != 0,
		    "seed has no effect");
	return 0;
}

static int
t_set_midstream(void)
{
	static uint64_t a[8000], b[8000];
	struct ndk_netem_config cfg = { .seed = 8 };
	struct ndk_netem_stats s;
	uint32_t na = 0, nb = 0;

	TEST_ASSERT(attach(&cfg) == 0, "attach");
	TEST_ASSERT_EQ(run(0, 100, BURST, true, 0), 100, "");
	cfg.drop_ppm = 1000000;
	ndk_netem_set(ne, &cfg);
	TEST_ASSERT_EQ(run(100, 100, BURST, true, 0), 0, "");
	cfg.drop_ppm = 0;
	ndk_netem_set(ne, &cfg);
	TEST_ASSERT_EQ(run(200, 100, BURST, true, 0), 100, "");
	TEST_ASSERT_EQ(seq_of(out[100]), 200, "");
	s = stats();
	TEST_ASSERT(s.seen == 300 && s.dropped == 100, "seen %" PRIu64
		    " dropped %" PRIu64, s.seen, s.dropped);

	/* A new seed restarts the PRNG: same decisions as a fresh attach. */
	TEST_ASSERT(trace(11, 0, 0, a, &na) == 0, "fresh");
	TEST_ASSERT(trace(11, 5000, 1000, b, &nb) == 0, "switched");
	TEST_ASSERT(na == nb && memcmp(a, b, na * sizeof(*a)) == 0,
		    "reseed by ndk_netem_set differs from attach");
	return 0;
}

static int
t_stats(void)
{
	struct ndk_netem_config cfg = { .drop_ppm = 50000, .dup_ppm = 50000,
		.reorder_ppm = 50000, .corrupt_ppm = 50000, .seed = 2024 };
	static uint8_t copies[20000], bad[20000];
	uint64_t distinct = 0, corrupted = 0;
	struct ndk_netem_stats s;

	TEST_ASSERT(attach(&cfg) == 0, "attach");
	memset(copies, 0, sizeof(copies));
	TEST_ASSERT(run(0, 20000, BURST, true, 16) > 0, "run");
	for (uint32_t i = 0; i < nout; i++) {
		uint32_t q = seq_of(out[i]);
		int d = q < 20000 ? diff(out[i], q, FRAME_LEN, NULL) : -1;

		TEST_ASSERT(d == 0 || d == 1, "seq %u: %d bytes changed", q, d);
		TEST_ASSERT(copies[q] == 0 || bad[q] == d, "copies differ");
		distinct += copies[q]++ == 0;
		corrupted += d == 1 && copies[q] == 1;
		bad[q] = (uint8_t)d;
	}
	s = stats();
	TEST_ASSERT_EQ(s.seen, 20000, "");
	TEST_ASSERT_EQ(nout, s.seen - s.dropped + s.duplicated,
		       "delivered != seen - dropped + duplicated");
	TEST_ASSERT_EQ(distinct, s.seen - s.dropped, "");
	TEST_ASSERT_EQ(nout - distinct, s.duplicated, "");
	TEST_ASSERT_EQ(corrupted, s.corrupted, "");
	TEST_ASSERT(s.dropped > 800 && s.duplicated > 700 &&
		    s.reordered > 700 && s.corrupted > 700, "%" PRIu64 " %"
		    PRIu64 " %" PRIu64 " %" PRIu64, s.dropped, s.duplicated,
		    s.reordered, s.corrupted);
	return 0;
}

static int
t_detach_frees(void)
{
	struct ndk_netem_config cfg = { .reorder_ppm = 1000000,
					.reorder_gap = 1000 };
	int socket = (int)rte_socket_id();
	struct rte_malloc_socket_stats h0, h1;
	unsigned int base = rte_mempool_in_use_count(pool);

	TEST_ASSERT(attach(&cfg) == 0, "attach");
	TEST_ASSERT(push(0, 40, FRAME_LEN) == 0, "push");
	TEST_ASSERT_EQ(poll_once(BURST, true) + poll_once(BURST, true), 0, "");
	TEST_ASSERT_EQ(rte_mempool_in_use_count(pool), base + 40, "");
	ndk_netem_detach(ne);
	ne = NULL;
	TEST_ASSERT_EQ(rte_mempool_in_use_count(pool), base, "held: leak");

	/* Copies waiting for a slot (full burst) are freed as well. */
	cfg = (struct ndk_netem_config){ .dup_ppm = 1000000 };
	TEST_ASSERT(attach(&cfg) == 0, "attach");
	TEST_ASSERT(push(0, BURST, FRAME_LEN) == 0, "push");
	TEST_ASSERT_EQ(poll_once(BURST, false), BURST, "");
	TEST_ASSERT_EQ(rte_mempool_in_use_count(pool), base + BURST, "");
	ndk_netem_detach(ne);
	ne = NULL;
	TEST_ASSERT_EQ(rte_mempool_in_use_count(pool), base, "carry: leak");

	/* The callback is gone. */
	TEST_ASSERT_EQ(run(0, 100, BURST, false, 0), 100, "");

	/* The state and ethdev's callback record go back to the heap. */
	TEST_ASSERT(rte_malloc_get_socket_stats(socket, &h0) == 0, "");
	TEST_ASSERT(attach(&cfg) == 0, "attach");
	TEST_ASSERT(rte_malloc_get_socket_stats(socket, &h1) == 0, "");
	TEST_ASSERT(h1.heap_allocsz_bytes > h0.heap_allocsz_bytes, "");
	ndk_netem_detach(ne);
	ne = NULL;
	TEST_ASSERT(rte_malloc_get_socket_stats(socket, &h1) == 0, "");
	TEST_ASSERT_EQ(h1.heap_allocsz_bytes, h0.heap_allocsz_bytes,
		       "detach leaked DPDK heap memory");
	return 0;
}

static int
t_invalid(void)
{
	struct ndk_netem_config cfg = { 0 }, bad = { .dup_ppm = 1000001 };
	struct ndk_netem_stats s;

	TEST_ASSERT(ndk_netem_attach(RTE_MAX_ETHPORTS, 0, &cfg) == NULL, "");
	TEST_ASSERT_EQ(rte_errno, ENODEV, "");
	TEST_ASSERT(ndk_netem_attach(port, 1, &cfg) == NULL, "");
	TEST_ASSERT_EQ(rte_errno, EINVAL, "queue");
	rte_errno = 0;
	TEST_ASSERT(ndk_netem_attach(port, 0, &bad) == NULL, "");
	TEST_ASSERT_EQ(rte_errno, EINVAL, "ppm");
	TEST_ASSERT(ndk_netem_attach(port, 0, NULL) == NULL, "");
	TEST_ASSERT_EQ(rte_errno, EINVAL, "NULL config");

	TEST_ASSERT(attach(&cfg) == 0, "attach");
	rte_errno = 0;
	bad = (struct ndk_netem_config){ .drop_ppm = 2000000 };
	ndk_netem_set(ne, &bad);
	TEST_ASSERT_EQ(rte_errno, EINVAL, "set accepted 2000000 ppm");
	TEST_ASSERT_EQ(run(0, 100, BURST, false, 0), 100,
		       "invalid set changed the settings");
	ndk_netem_set(NULL, &cfg);
	ndk_netem_get_stats(NULL, &s);
	ndk_netem_detach(NULL);
	return 0;
}

static int
setup(void)
{
	struct rte_eth_conf conf = { 0 };
	int socket = (int)rte_socket_id(), rc;

	pool = rte_pktmbuf_pool_create("netem_test", POOL_SIZE, 256, 0,
				       RTE_PKTMBUF_HEADROOM + MAX_LEN, socket);
	rx_ring = rte_ring_create("netem_rx", RING_SIZE, socket,
				  RING_F_SP_ENQ | RING_F_SC_DEQ);
	tx_ring = rte_ring_create("netem_tx", RING_SIZE, socket,
				  RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (pool == NULL || rx_ring == NULL || tx_ring == NULL)
		return -1;
	rc = rte_eth_from_rings("netem", &rx_ring, 1, &tx_ring, 1, socket);
	if (rc < 0)
		return -1;
	port = (uint16_t)rc;
	if (rte_eth_dev_configure(port, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(port, 0, RING_SIZE, socket, NULL, pool) ||
	    rte_eth_tx_queue_setup(port, 0, RING_SIZE, socket, NULL) ||
	    rte_eth_dev_start(port) != 0)
		return -1;
	return 0;
}

static void
teardown(void)
{
	reset();
	rte_eth_dev_stop(port);
	rte_eth_dev_close(port);
	rte_ring_free(rx_ring);
	rte_ring_free(tx_ring);
	rte_mempool_free(pool);
}

/* Every case also checks that no mbuf is left once it is cleaned up. */
static int
guarded(int (*fn)(void))
{
	unsigned int base = rte_mempool_in_use_count(pool);
	int rc = fn();

	reset();
	if (rc == 0 && rte_mempool_in_use_count(pool) != base) {
		fprintf(stderr, "  FAIL: %d mbufs leaked\n",
			(int)(rte_mempool_in_use_count(pool) - base));
		rc = -1;
	}
	return rc;
}

#define CASE(fn) \
static int fn ## _case(void) { return guarded(fn); }
CASE(t_passthrough)
CASE(t_drop)
CASE(t_duplicate)
CASE(t_duplicate_full_burst)
CASE(t_reorder)
CASE(t_reorder_gap_idle)
CASE(t_corrupt)
CASE(t_reproducible)
CASE(t_set_midstream)
CASE(t_stats)
CASE(t_detach_frees)
CASE(t_invalid)

static const struct ndk_test_case cases[] = {
	{ "passthrough_0ppm", t_passthrough_case },
	{ "drop", t_drop_case },
	{ "duplicate", t_duplicate_case },
	{ "duplicate_full_burst", t_duplicate_full_burst_case },
	{ "reorder", t_reorder_case },
	{ "reorder_gap_idle", t_reorder_gap_idle_case },
	{ "corrupt", t_corrupt_case },
	{ "reproducible", t_reproducible_case },
	{ "set_midstream", t_set_midstream_case },
	{ "stats", t_stats_case },
	{ "detach_frees", t_detach_frees_case },
	{ "invalid", t_invalid_case },
};

int
main(int argc, char **argv)
{
	int rc;

	if (ndk_test_eal_init("test_unit_netem", "0", NULL) < 0)
		return 1;
	if (setup() != 0) {
		fprintf(stderr, "netem_unit: setup: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	rc = ndk_test_run("netem_unit", cases, RTE_DIM(cases), argc, argv);
	teardown();
	rte_eal_cleanup();
	return rc;
}
