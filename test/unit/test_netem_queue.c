/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Unit tests of lib/netem's bottleneck queue with a fake clock: the tests
 * pass the time (1 tick = 1 ns) to enqueue and dequeue, so departure
 * times, limits and marks are exact, whatever the machine does.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "ndk_netem_queue.h"
#include "ndk_test.h"

#define HZ		UINT64_C(1000000000)	/* fake clock: ns */
#define FRAME		125u			/* 1000 bits */
#define GBIT		UINT64_C(1000000000)

static struct rte_mempool *pool;
static struct ndk_netem_queue *nq;

enum { ECN_NOT_ECT = 0, ECN_ECT1 = 1, ECN_ECT0 = 2, ECN_CE = 3 };

/* An IPv4 (or IPv6) frame of FRAME bytes with @ecn and number @seq. */
static struct rte_mbuf *
frame(uint32_t seq, uint8_t ecn, bool v6)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_ether_hdr *eh;
	uint8_t *d;

	if (m == NULL)
		return NULL;
	d = (uint8_t *)rte_pktmbuf_append(m, FRAME);
	memset(d, 0, FRAME);
	eh = (struct rte_ether_hdr *)d;
	if (v6) {
		eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
		d[14] = 0x60 | (0xa0 >> 4);     /* version 6, DSCP 0x28 */
		d[15] = (uint8_t)(ecn << 4);
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(d + 14);

		eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
		ip->version_ihl = 0x45;
		ip->type_of_service = (uint8_t)(0x68 | ecn);
		ip->total_length = rte_cpu_to_be_16(FRAME - 14);
		ip->time_to_live = 64;
		ip->next_proto_id = IPPROTO_UDP;
		ip->src_addr = rte_cpu_to_be_32(0x0a000001);
		ip->dst_addr = rte_cpu_to_be_32(0x0a000002);
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	memcpy(d + 60, &seq, sizeof(seq));
	return m;
}

static uint32_t
seq_of(const struct rte_mbuf *m)
{
	uint32_t s;

	memcpy(&s, rte_pktmbuf_mtod_offset(m, const uint8_t *, 60), sizeof(s));
	return s;
}

static uint8_t
ecn_of(const struct rte_mbuf *m)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);

	if (d[12] == 0x86)
		return (d[15] >> 4) & 3;
	return d[15] & 3;
}

static bool
cksum_ok(const struct rte_mbuf *m)
{
	struct rte_ipv4_hdr ip;

	memcpy(&ip, rte_pktmbuf_mtod_offset(m, const void *, 14), sizeof(ip));
	if (ip.hdr_checksum == 0)
		return false;
	ip.hdr_checksum = 0;
	return rte_ipv4_cksum(&ip) ==
		rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *,
					14)->hdr_checksum;
}

static int
make(const struct ndk_netem_queue_config *c)
{
	ndk_netem_queue_free(nq);
	nq = ndk_netem_queue_create(c, HZ, SOCKET_ID_ANY);
	return nq != NULL ? 0 : -1;
}

static struct ndk_netem_queue_stats st;
#define stats() (ndk_netem_queue_get_stats(nq, &st), st)

/* Frames leave one serialization time apart, in order, never early. */
static int
t_rate(void)
{
	struct ndk_netem_queue_config c = {
		.rate_bps = GBIT, .limit_pkts = 64,
	};
	struct rte_mbuf *out[16];

	TEST_ASSERT(make(&c) == 0, "create");
	for (uint32_t i = 0; i < 10; i++)
		TEST_ASSERT_EQ(ndk_netem_queue_enqueue(nq, frame(i, 0, false),
						       0),
			       NDK_NETEM_QUEUE_QUEUED, "frame %u", i);
	/* 125 bytes at 1 Gbit/s: 1000 ns each. */
	TEST_ASSERT_EQ(ndk_netem_queue_next(nq), 1000, "first departure");
	TEST_ASSERT_EQ(ndk_netem_queue_dequeue(nq, 999, out, 16), 0,
		       "released early");
	TEST_ASSERT_EQ(ndk_netem_queue_dequeue(nq, 1000, out, 16), 1, "t=1us");
	TEST_ASSERT_EQ(seq_of(out[0]), 0, "order");
	rte_pktmbuf_free(out[0]);
	TEST_ASSERT_EQ(ndk_netem_queue_dequeue(nq, 4500, out, 16), 3,
		       "t=4.5us");
	for (unsigned int i = 0; i < 3; i++) {
		TEST_ASSERT_EQ(seq_of(out[i]), i + 1, "order");
		rte_pktmbuf_free(out[i]);
	}
	/* max respected, the rest stays. */
	TEST_ASSERT_EQ(ndk_netem_queue_dequeue(nq, 100000, out, 2), 2, "max");
	rte_pktmbuf_free_bulk(out, 2);
	TEST_ASSERT_EQ(stats().depth_pkts, 4, "depth");
	TEST_ASSERT_EQ(ndk_netem_queue_dequeue(nq, 100000, out, 16), 4, "rest");
	rte_pktmbuf_free_bulk(out, 4);
	TEST_ASSERT_EQ(stats().dequeued, 10, "dequeued");
	TEST_ASSERT_EQ(st.bytes_out, 10 * FRAME, "bytes out");
	TEST_ASSERT_EQ(st.depth_bytes, 0, "empty");
	TEST_ASSERT_EQ(ndk_netem_queue_next(nq), UINT64_MAX, "empty next");

	/* An idle link: the next frame leaves one frame time after arrival. */
	ndk_netem_queue_enqueue(nq, frame(10, 0, false), 50000);
	TEST_ASSERT_EQ(ndk_netem_queue_next(nq), 51000, "after idle");
	/* Overhead counts: 125 + 25 bytes = 1200 ns. */
	c.overhead = 25;
	TEST_ASSERT(make(&c) == 0, "create");
	ndk_netem_queue_enqueue(nq, frame(0, 0, false), 0);
	ndk_netem_queue_enqueue(nq, frame(1, 0, false), 0);
	TEST_ASSERT_EQ(ndk_netem_queue_dequeue(nq, 2399, out, 16), 1, "2nd");
	rte_pktmbuf_free(out[0]);
	TEST_ASSERT_EQ(ndk_netem_queue_next(nq), 2400, "overhead");
	return 0;
}

/* Tail drop at the packet limit, then at the byte limit. */
static int
t_tail_drop(void)
{
	struct ndk_netem_queue_config c = {
		.rate_bps = GBIT, .limit_pkts = 4,
	};
	struct rte_mbuf *out[8];

	TEST_ASSERT(make(&c) == 0, "create");
	for (uint32_t i = 0; i < 6; i++)
		TEST_ASSERT_EQ(ndk_netem_queue_enqueue(nq, frame(i, 0, false),
						       0),
			       i < 4 ? NDK_NETEM_QUEUE_QUEUED :
			       NDK_NETEM_QUEUE_DROPPED, "frame %u", i);
	TEST_ASSERT_EQ(stats().dropped, 2, "dropped");
	TEST_ASSERT_EQ(st.max_depth_pkts, 4, "max depth");
	/* One leaves: one more fits. */
	TEST_ASSERT_EQ(ndk_netem_queue_dequeue(nq, 1000, out, 8), 1, "one out");
	rte_pktmbuf_free(out[0]);
	TEST_ASSERT_EQ(ndk_netem_queue_enqueue(nq, frame(6, 0, false), 1000),
		       NDK_NETEM_QUEUE_QUEUED, "room again");
	TEST_ASSERT_EQ(ndk_netem_queue_dequeue(nq, 1UL << 40, out, 8), 4, "");
	for (unsigned int i = 0; i < 4; i++)
		TEST_ASSERT_EQ(seq_of(out[i]), i == 3 ? 6 : i + 1, "order");
	rte_pktmbuf_free_bulk(out, 4);

	c.limit_pkts = 0;
	c.limit_bytes = 2 * FRAME + FRAME / 2;
	TEST_ASSERT(make(&c) == 0, "create");
	TEST_ASSERT_EQ(ndk_netem_queue_enqueue(nq, frame(0, 0, false), 0),
		       NDK_NETEM_QUEUE_QUEUED, "1st");
	TEST_ASSERT_EQ(ndk_netem_queue_enqueue(nq, frame(1, 0, false), 0),
		       NDK_NETEM_QUEUE_QUEUED, "2nd");
	TEST_ASSERT_EQ(ndk_netem_queue_enqueue(nq, frame(2, 0, false), 0),
		       NDK_NETEM_QUEUE_DROPPED, "3rd over the byte limit");
	TEST_ASSERT_EQ(stats().depth_bytes, 2 * FRAME, "bytes");
	return 0;
}

/* Step marking: ECT frames from the threshold on, IPv4 and IPv6. */
static int
t_ecn_step(void)
{
	struct ndk_netem_queue_config c = {
		.rate_bps = GBIT, .limit_pkts = 64, .ecn_kmin = 3,
	};
	const uint8_t in[8] = { ECN_ECT0, ECN_ECT0, ECN_ECT0, ECN_ECT0,
				ECN_NOT_ECT, ECN_ECT1, ECN_CE, ECN_ECT0 };
	struct rte_mbuf *out[16];
	unsigned int n;

	TEST_ASSERT(make(&c) == 0, "create");
	for (uint32_t i = 0; i < 8; i++) {
		enum ndk_netem_queue_verdict v =
			ndk_netem_queue_enqueue(nq, frame(i, in[i], i == 7), 0);
		bool want = i >= 3 && in[i] != ECN_NOT_ECT;

		TEST_ASSERT_EQ(v, want ? NDK_NETEM_QUEUE_MARKED :
			       NDK_NETEM_QUEUE_QUEUED, "frame %u", i);
	}
	n = ndk_netem_queue_dequeue(nq, UINT64_MAX, out, 16);
	TEST_ASSERT_EQ(n, 8, "all out");
	for (unsigned int i = 0; i < n; i++) {
		uint8_t want = i < 3 ? in[i] :
			in[i] == ECN_NOT_ECT ? ECN_NOT_ECT : ECN_CE;

		TEST_ASSERT_EQ(ecn_of(out[i]), want, "frame %u", i);
		if (i != 7)
			TEST_ASSERT(cksum_ok(out[i]), "frame %u checksum", i);
	}
	/* DSCP kept. */
	TEST_ASSERT_EQ(rte_pktmbuf_mtod(out[3], uint8_t *)[15], 0x6b, "TOS");
	TEST_ASSERT_EQ(rte_pktmbuf_mtod(out[7], uint8_t *)[14], 0x6a, "TC hi");
	rte_pktmbuf_free_bulk(out, n);
	TEST_ASSERT_EQ(stats().marked, 4, "marked");
	TEST_ASSERT_EQ(st.not_ect, 1, "not ECT");
	return 0;
}

/* RED: never below kmin, always from kmax, some in between. */
static int
t_ecn_red(void)
{
	struct ndk_netem_queue_config c = {
		.rate_bps = GBIT, .limit_pkts = 256, .ecn_kmin = 20,
		.ecn_kmax = 120, .ecn_pmax_ppm = 1000000, .seed = 7,
	};
	unsigned int below = 0, mid = 0, above = 0;

	TEST_ASSERT(make(&c) == 0, "create");
	for (uint32_t i = 0; i < 200; i++) {
		enum ndk_netem_queue_verdict v =
			ndk_netem_queue_enqueue(nq, frame(i, ECN_ECT0, false),
						0);
		bool mk = v == NDK_NETEM_QUEUE_MARKED;

		if (i < 20)
			below += mk;
		else if (i < 120)
			mid += mk;
		else
			above += mk;
	}
	TEST_ASSERT_EQ(below, 0, "marked below kmin");
	TEST_ASSERT_EQ(above, 80, "unmarked above kmax");
	/* Expected about 50 of 100 (the probability rises to 1). */
	TEST_ASSERT(mid > 20 && mid < 80, "%u of 100 marked between", mid);

	/* Thresholds in bytes. */
	c = (struct ndk_netem_queue_config){
		.rate_bps = GBIT, .limit_pkts = 16, .ecn_kmin = 2 * FRAME,
		.ecn_bytes = true,
	};
	TEST_ASSERT(make(&c) == 0, "create");
	for (uint32_t i = 0; i < 4; i++)
		TEST_ASSERT_EQ(ndk_netem_queue_enqueue(nq,
				frame(i, ECN_ECT0, false), 0),
			       i >= 2 ? NDK_NETEM_QUEUE_MARKED :
			       NDK_NETEM_QUEUE_QUEUED, "frame %u", i);
	return 0;
}

/* A shared frame is copied before it is marked; the other holder's
 * bytes do not change. */
static int
t_mark_shared(void)
{
	struct ndk_netem_queue_config c = {
		.rate_bps = GBIT, .limit_pkts = 4, .ecn_kmin = 1,
	};
	struct rte_mbuf *kept, *out[4];

	TEST_ASSERT(make(&c) == 0, "create");
	ndk_netem_queue_enqueue(nq, frame(0, ECN_ECT0, false), 0);
	kept = frame(1, ECN_ECT0, false);
	TEST_ASSERT(kept != NULL, "alloc");
	rte_mbuf_refcnt_update(kept, 1);
	TEST_ASSERT_EQ(ndk_netem_queue_enqueue(nq, kept, 0),
		       NDK_NETEM_QUEUE_MARKED, "marked");
	TEST_ASSERT_EQ(ecn_of(kept), ECN_ECT0, "the kept frame changed");
	TEST_ASSERT_EQ(ndk_netem_queue_dequeue(nq, UINT64_MAX, out, 4), 2, "");
	TEST_ASSERT(out[1] != kept, "not copied");
	TEST_ASSERT_EQ(ecn_of(out[1]), ECN_CE, "copy marked");
	TEST_ASSERT_EQ(seq_of(out[1]), 1, "copy's data");
	rte_pktmbuf_free_bulk(out, 2);
	rte_pktmbuf_free(kept);
	return 0;
}

static int
t_invalid(void)
{
	struct ndk_netem_queue_config c = { .limit_pkts = 4 };

	ndk_netem_queue_free(nq);
	nq = NULL;
	TEST_ASSERT(ndk_netem_queue_create(&c, HZ, SOCKET_ID_ANY) == NULL,
		    "rate 0 accepted");
	TEST_ASSERT_EQ(rte_errno, EINVAL, "");
	c = (struct ndk_netem_queue_config){ .rate_bps = GBIT };
	TEST_ASSERT(ndk_netem_queue_create(&c, HZ, SOCKET_ID_ANY) == NULL,
		    "no limit accepted");
	c.limit_pkts = 4;
	c.ecn_pmax_ppm = 1000001;
	TEST_ASSERT(ndk_netem_queue_create(&c, HZ, SOCKET_ID_ANY) == NULL,
		    "pmax > 1 accepted");
	TEST_ASSERT(ndk_netem_queue_create(NULL, HZ, SOCKET_ID_ANY) == NULL,
		    "NULL accepted");
	TEST_ASSERT(ndk_netem_queue_attach(RTE_MAX_ETHPORTS, 0, &c) == NULL,
		    "bad port accepted");
	ndk_netem_queue_free(NULL);
	ndk_netem_queue_detach(NULL);
	return 0;
}

/* Freeing a queue frees what it holds (the guard counts mbufs). */
static int
t_free_held(void)
{
	struct ndk_netem_queue_config c = {
		.rate_bps = 1000, .limit_pkts = 8,
	};

	TEST_ASSERT(make(&c) == 0, "create");
	for (uint32_t i = 0; i < 8; i++)
		ndk_netem_queue_enqueue(nq, frame(i, 0, false), 0);
	TEST_ASSERT_EQ(stats().depth_pkts, 8, "held");
	return 0;
}

static int
guarded(int (*fn)(void))
{
	unsigned int base = rte_mempool_in_use_count(pool);
	int rc = fn();

	ndk_netem_queue_free(nq);
	nq = NULL;
	if (rc == 0 && rte_mempool_in_use_count(pool) != base) {
		fprintf(stderr, "  FAIL: %d mbufs leaked\n",
			(int)(rte_mempool_in_use_count(pool) - base));
		rc = -1;
	}
	return rc;
}

#define CASE(fn) \
static int fn ## _case(void) { return guarded(fn); }
CASE(t_rate)
CASE(t_tail_drop)
CASE(t_ecn_step)
CASE(t_ecn_red)
CASE(t_mark_shared)
CASE(t_invalid)
CASE(t_free_held)

static const struct ndk_test_case cases[] = {
	{ "rate", t_rate_case },
	{ "tail_drop", t_tail_drop_case },
	{ "ecn_step", t_ecn_step_case },
	{ "ecn_red", t_ecn_red_case },
	{ "mark_shared", t_mark_shared_case },
	{ "invalid", t_invalid_case },
	{ "free_held", t_free_held_case },
};

int
main(int argc, char **argv)
{
	int rc;

	if (ndk_test_eal_init("test_unit_netem_queue", "0", NULL) < 0)
		return 1;
	pool = rte_pktmbuf_pool_create("nq_test", 1023, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE,
				       (int)rte_socket_id());
	if (pool == NULL) {
		fprintf(stderr, "netem_queue: no pool\n");
		return 1;
	}
	rc = ndk_test_run("netem_queue", cases, RTE_DIM(cases), argc, argv);
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return rc;
}
