/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Unit tests of the QP state transition table
 * (drivers/swroce/rc/swroce_qp_fsm.c, linked alone): the legal RC
 * transitions of the IB state table and no others, the attributes INIT ->
 * RTR and RTR -> RTS cannot do without, each attribute's range, and that
 * nothing else is refused (optional attributes are not enforced). No NIC,
 * no adapter: a QP and an adapter made by hand.
 */

#include <stdint.h>
#include <string.h>

#include <rte_eal.h>

#include "ndk_test.h"
#include "swroce_adapter.h"
#include "swroce_qp.h"

static struct swr_adapter g_ad;
static struct swr_qp g_qp;

#define S(x) NDK_QP_STATE_##x

/* The legal RC transitions, written out (IB's QP state table). */
static const uint8_t legal[][2] = {
	{ S(RESET), S(RESET) }, { S(RESET), S(INIT) },
	{ S(INIT), S(RESET) }, { S(INIT), S(INIT) }, { S(INIT), S(RTR) },
	{ S(INIT), S(ERROR) },
	{ S(RTR), S(RESET) }, { S(RTR), S(RTS) }, { S(RTR), S(ERROR) },
	{ S(RTS), S(RESET) }, { S(RTS), S(RTS) }, { S(RTS), S(SQD) },
	{ S(RTS), S(ERROR) },
	{ S(SQD), S(RESET) }, { S(SQD), S(RTS) }, { S(SQD), S(SQD) },
	{ S(SQD), S(ERROR) },
	{ S(SQE), S(RESET) }, { S(SQE), S(ERROR) },
	{ S(ERROR), S(RESET) }, { S(ERROR), S(ERROR) },
};

#define RTR_NEEDS (NDK_QP_ATTR_AV | NDK_QP_ATTR_DEST_QPN | \
	NDK_QP_ATTR_RQ_PSN | NDK_QP_ATTR_PATH_MTU)
#define ALL_ATTRS 0xfffu

/* Attributes that are all in range. */
static struct ndk_qp_attr
good_attr(void)
{
	struct ndk_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.dest_ip = 0x0100000a;
	a.dest_qpn = 0x123;
	a.rq_psn = 100;
	a.sq_psn = 200;
	a.path_mtu = 1024;
	a.max_rd_atomic = 4;
	a.max_dest_rd_atomic = 4;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.min_rnr_timer = 12;
	return a;
}

static bool
is_legal(uint32_t from, uint32_t to)
{
	for (size_t i = 0; i < RTE_DIM(legal); i++)
		if (legal[i][0] == from && legal[i][1] == to)
			return true;
	return false;
}

static ndk_status_t
check(uint32_t from, uint32_t to, uint32_t mask, const struct ndk_qp_attr *a)
{
	return swr_qp_modify_check(&g_qp, a, mask | NDK_QP_ATTR_STATE, from, to);
}

static int
t_transitions(void)
{
	struct ndk_qp_attr a = good_attr();

	/* One past ERROR on either side is refused like an illegal move. */
	for (uint32_t from = 0; from <= S(ERROR) + 1; from++) {
		for (uint32_t to = 0; to <= S(ERROR) + 1; to++) {
			ndk_status_t st = check(from, to, ALL_ATTRS, &a);

			if (is_legal(from, to))
				TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS,
					       "%u -> %u refused", from, to);
			else
				TEST_ASSERT_EQ(st,
					       NDK_STATUS_INVALID_DEVICE_STATE,
					       "%u -> %u allowed", from, to);
		}
	}
	return 0;
}

static int
t_required(void)
{
	struct ndk_qp_attr a = good_attr();

	TEST_ASSERT_EQ(check(S(INIT), S(RTR), RTR_NEEDS, &a), NDK_STATUS_SUCCESS,
		       "INIT -> RTR with what it needs");
	for (uint32_t bit = 1; bit <= ALL_ATTRS; bit <<= 1) {
		if (!(RTR_NEEDS & bit))
			continue;
		TEST_ASSERT_EQ(check(S(INIT), S(RTR), RTR_NEEDS & ~bit, &a),
			       NDK_STATUS_INVALID_PARAMETER,
			       "INIT -> RTR without 0x%x", bit);
	}
	TEST_ASSERT_EQ(check(S(RTR), S(RTS), NDK_QP_ATTR_SQ_PSN, &a),
		       NDK_STATUS_SUCCESS, "RTR -> RTS with SQ_PSN");
	TEST_ASSERT_EQ(check(S(RTR), S(RTS), ALL_ATTRS & ~NDK_QP_ATTR_SQ_PSN, &a),
		       NDK_STATUS_INVALID_PARAMETER, "RTR -> RTS without SQ_PSN");
	/* The others need nothing; any attribute may come with any. */
	for (size_t i = 0; i < RTE_DIM(legal); i++) {
		uint32_t from = legal[i][0], to = legal[i][1];

		if ((from == S(INIT) && to == S(RTR)) || (from == S(RTR) && to == S(RTS)))
			continue;
		TEST_ASSERT_EQ(check(from, to, 0, &a), NDK_STATUS_SUCCESS,
			       "%u -> %u with nothing", from, to);
		TEST_ASSERT_EQ(check(from, to, ALL_ATTRS | 0xf000u, &a),
			       NDK_STATUS_SUCCESS, "%u -> %u with all", from, to);
	}
	return 0;
}

/* Set one field out of range and expect INVALID_PARAMETER with its bit. */
#define OUT_OF_RANGE(bit, field, value) do { \
	struct ndk_qp_attr bad_ = good_attr(); \
	bad_.field = (value); \
	TEST_ASSERT_EQ(check(S(RTS), S(RTS), (bit), &bad_), \
		       NDK_STATUS_INVALID_PARAMETER, #field " = " #value); \
	TEST_ASSERT_EQ(check(S(RTS), S(RTS), ALL_ATTRS & ~(bit), &bad_), \
		       NDK_STATUS_SUCCESS, #field " checked without its bit"); \
} while (0)

static int
t_ranges(void)
{
	struct ndk_qp_attr a = good_attr();

	TEST_ASSERT_EQ(check(S(RTS), S(RTS), ALL_ATTRS, &a), NDK_STATUS_SUCCESS,
		       "all in range");
	OUT_OF_RANGE(NDK_QP_ATTR_PATH_MTU, path_mtu, 1000);
	OUT_OF_RANGE(NDK_QP_ATTR_PATH_MTU, path_mtu, 8192);
	g_ad.max_path_mtu = 2048;
	OUT_OF_RANGE(NDK_QP_ATTR_PATH_MTU, path_mtu, 4096);
	g_ad.max_path_mtu = 4096;
	OUT_OF_RANGE(NDK_QP_ATTR_DEST_QPN, dest_qpn, 1u << 24);
	OUT_OF_RANGE(NDK_QP_ATTR_RQ_PSN, rq_psn, 1u << 24);
	OUT_OF_RANGE(NDK_QP_ATTR_SQ_PSN, sq_psn, 1u << 24);
	OUT_OF_RANGE(NDK_QP_ATTR_MAX_RD_ATOMIC, max_rd_atomic,
		     SWR_MAX_RD_ATOMIC + 1);
	OUT_OF_RANGE(NDK_QP_ATTR_MAX_DEST_RD_ATOMIC, max_dest_rd_atomic,
		     SWR_MAX_RD_ATOMIC + 1);
	OUT_OF_RANGE(NDK_QP_ATTR_TIMEOUT, timeout, 32);
	OUT_OF_RANGE(NDK_QP_ATTR_RETRY_CNT, retry_cnt, 8);
	OUT_OF_RANGE(NDK_QP_ATTR_RNR_RETRY, rnr_retry, 8);
	OUT_OF_RANGE(NDK_QP_ATTR_MIN_RNR_TIMER, min_rnr_timer, 32);
	OUT_OF_RANGE(NDK_QP_ATTR_AV, dest_ip, 0);
	/* IPv4 on an adapter without IPv4 (IPv6 only). */
	g_ad.ipv4 = 0;
	TEST_ASSERT_EQ(check(S(RTS), S(RTS), NDK_QP_ATTR_AV, &a),
		       NDK_STATUS_INVALID_PARAMETER, "IPv4 peer, no IPv4");
	g_ad.ipv4 = RTE_BE32(0x0a000002);
	/* IPv6 (dest_ip 0): a unicast peer and an adapter with IPv6. */
	{
		struct ndk_qp_attr b = a;
		static const uint8_t peer6[16] = { 0xfd, [15] = 2 };
		static const uint8_t group6[16] = { 0xff, 0x02, [15] = 1 };

		b.dest_ip = 0;
		memcpy(b.dest_ip6, peer6, 16);
		TEST_ASSERT_EQ(check(S(RTS), S(RTS), NDK_QP_ATTR_AV, &b),
			       NDK_STATUS_INVALID_PARAMETER,
			       "IPv6 peer, no IPv6");
		g_ad.has_ipv6 = true;
		TEST_ASSERT_EQ(check(S(RTS), S(RTS), NDK_QP_ATTR_AV, &b),
			       NDK_STATUS_SUCCESS, "IPv6 peer");
		memcpy(b.dest_ip6, group6, 16);
		TEST_ASSERT_EQ(check(S(RTS), S(RTS), NDK_QP_ATTR_AV, &b),
			       NDK_STATUS_INVALID_PARAMETER, "multicast peer");
		g_ad.has_ipv6 = false;
	}
	/* An illegal transition is refused before its attributes. */
	a.timeout = 32;
	TEST_ASSERT_EQ(check(S(RESET), S(RTS), NDK_QP_ATTR_TIMEOUT, &a),
		       NDK_STATUS_INVALID_DEVICE_STATE, "state first");
	/* A missing attribute before a bad one. */
	TEST_ASSERT_EQ(check(S(INIT), S(RTR), NDK_QP_ATTR_TIMEOUT, &a),
		       NDK_STATUS_INVALID_PARAMETER, "missing");
	return 0;
}

static const struct ndk_test_case cases[] = {
	{ "transitions", t_transitions },
	{ "required", t_required },
	{ "ranges", t_ranges },
};

int
main(int argc, char **argv)
{
	int rc;

	g_ad.max_path_mtu = 4096;
	g_ad.ipv4 = RTE_BE32(0x0a000002);
	g_qp.ad = &g_ad;
	/* Only for the test runner's TSC timings. */
	if (ndk_test_eal_init("test_unit_qp_fsm", "0", NULL) < 0)
		return 1;
	rc = ndk_test_run("qp_fsm_unit", cases, RTE_DIM(cases), argc, argv);
	rte_eal_cleanup();
	return rc;
}
