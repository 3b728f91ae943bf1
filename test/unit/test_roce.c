/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Unit tests of lib/roce, part 1: header layouts, opcode table, PSN
 * arithmetic, credit/RNR/MTU tables, CRC-32 (table and PCLMULQDQ), ICRC
 * vectors, and the Ethernet/IPv4/UDP templates (build/parse round trip).
 * Part 2, test_roce_capture.c, has the cases on real Soft-RoCE captures (flat
 * and multi-segment) and on broken frames. This file holds the one case table
 * of test_unit_roce and its main(); shared helpers are in test_roce.h.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cpuflags.h>
#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "ndk_roce.h"
#include "ndk_test.h"
#include "test_roce.h"

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

uint64_t
rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static int
hex_decode(const char *s, uint8_t *out, size_t max)
{
	size_t n = 0;

	for (; *s != '\0'; s++) {
		unsigned int v;

		if (*s == ' ')
			continue;
		if (n >= max || sscanf(s, "%2x", &v) != 1)
			return -1;
		out[n++] = (uint8_t)v;
		s++;
	}
	return (int)n;
}

/* ------------------------------------------------------------------ */
/* Expected opcode table, written from the spec independently of the   */
/* library's table.                                                    */
/* ------------------------------------------------------------------ */

enum { P_F = 1, P_M, P_L, P_O };
#define K_REQ NDK_ROCE_OPF_REQ
#define K_RESP NDK_ROCE_OPF_RESP
#define K_SEND NDK_ROCE_OPF_SEND
#define K_WRITE NDK_ROCE_OPF_WRITE
#define K_READ NDK_ROCE_OPF_READ
#define K_ATOM NDK_ROCE_OPF_ATOMIC

/*
 * hdrs: extension headers after the BTH, in wire order: R RETH, A AETH,
 * I ImmDt, V IETH, D DETH, T AtomicETH, K AtomicAckETH, 0 16 reserved bytes.
 */
struct exp_op {
	uint8_t op;
	const char *name;
	const char *hdrs;
	uint8_t hdr_len;
	bool payload;
	int pos;
	uint32_t kind;
};

static const struct exp_op exp_rc[] = {
	{ 0x00, "SEND_FIRST", "", 12, 1, P_F, K_REQ | K_SEND },
	{ 0x01, "SEND_MIDDLE", "", 12, 1, P_M, K_REQ | K_SEND },
	{ 0x02, "SEND_LAST", "", 12, 1, P_L, K_REQ | K_SEND },
	{ 0x03, "SEND_LAST_WITH_IMMEDIATE", "I", 16, 1, P_L, K_REQ | K_SEND },
	{ 0x04, "SEND_ONLY", "", 12, 1, P_O, K_REQ | K_SEND },
	{ 0x05, "SEND_ONLY_WITH_IMMEDIATE", "I", 16, 1, P_O, K_REQ | K_SEND },
	{ 0x06, "RDMA_WRITE_FIRST", "R", 28, 1, P_F, K_REQ | K_WRITE },
	{ 0x07, "RDMA_WRITE_MIDDLE", "", 12, 1, P_M, K_REQ | K_WRITE },
	{ 0x08, "RDMA_WRITE_LAST", "", 12, 1, P_L, K_REQ | K_WRITE },
	{ 0x09, "RDMA_WRITE_LAST_WITH_IMMEDIATE", "I", 16, 1, P_L,
	  K_REQ | K_WRITE },
	{ 0x0A, "RDMA_WRITE_ONLY", "R", 28, 1, P_O, K_REQ | K_WRITE },
	{ 0x0B, "RDMA_WRITE_ONLY_WITH_IMMEDIATE", "RI", 32, 1, P_O,
	  K_REQ | K_WRITE },
	{ 0x0C, "RDMA_READ_REQUEST", "R", 28, 0, P_O, K_REQ | K_READ },
	{ 0x0D, "RDMA_READ_RESPONSE_FIRST", "A", 16, 1, P_F, K_RESP | K_READ },
	{ 0x0E, "RDMA_READ_RESPONSE_MIDDLE", "", 12, 1, P_M, K_RESP | K_READ },
	{ 0x0F, "RDMA_READ_RESPONSE_LAST", "A", 16, 1, P_L, K_RESP | K_READ },
	{ 0x10, "RDMA_READ_RESPONSE_ONLY", "A", 16, 1, P_O, K_RESP | K_READ },
	{ 0x11, "ACKNOWLEDGE", "A", 16, 0, P_O, K_RESP },
	{ 0x12, "ATOMIC_ACKNOWLEDGE", "AK", 24, 0, P_O, K_RESP | K_ATOM },
	{ 0x13, "COMPARE_SWAP", "T", 40, 0, P_O, K_REQ | K_ATOM },
	{ 0x14, "FETCH_ADD", "T", 40, 0, P_O, K_REQ | K_ATOM },
	{ 0x16, "SEND_LAST_WITH_INVALIDATE", "V", 16, 1, P_L, K_REQ | K_SEND },
	{ 0x17, "SEND_ONLY_WITH_INVALIDATE", "V", 16, 1, P_O, K_REQ | K_SEND },
};

static const struct exp_op exp_other[] = {
	{ 0x64, "UD_SEND_ONLY", "D", 20, 1, P_O, K_REQ | K_SEND },
	{ 0x65, "UD_SEND_ONLY_WITH_IMMEDIATE", "DI", 24, 1, P_O,
	  K_REQ | K_SEND },
	{ 0x81, "CNP", "0", 28, 0, 0, 0 },
	/* ndk-roce's selective acknowledgement (RC, manufacturer range). */
	{ 0xC0, "NDK_SACK", "AS", 48, 0, P_O, K_RESP },
};

/* Fill @p e for @p op; @return false when the opcode must be undefined. */
static bool
exp_lookup(uint8_t op, struct exp_op *e, uint32_t *transport)
{
	for (unsigned int i = 0; i < RTE_DIM(exp_rc); i++) {
		if (exp_rc[i].op == op) {
			*e = exp_rc[i];
			*transport = NDK_ROCE_OPF_RC;
			return true;
		}
		/* UC: SEND and WRITE ops (0x00..0x0B) at 0x20. */
		if (exp_rc[i].op <= 0x0B && exp_rc[i].op + 0x20 == op) {
			*e = exp_rc[i];
			e->op = op;
			*transport = NDK_ROCE_OPF_UC;
			return true;
		}
	}
	for (unsigned int i = 0; i < RTE_DIM(exp_other); i++) {
		if (exp_other[i].op == op) {
			*e = exp_other[i];
			*transport = op == 0x81 ? 0 : op == 0xC0 ?
				NDK_ROCE_OPF_RC : NDK_ROCE_OPF_UD;
			return true;
		}
	}
	return false;
}

int
exp_hdr_len(uint8_t op)
{
	struct exp_op e;
	uint32_t t;

	return exp_lookup(op, &e, &t) ? e.hdr_len : -1;
}

/* ------------------------------------------------------------------ */
/* Layouts, accessors, tables                                          */
/* ------------------------------------------------------------------ */

static int
test_struct_layout(void)
{
	TEST_ASSERT_EQ(sizeof(struct ndk_roce_bth), 12, "");
	TEST_ASSERT_EQ(offsetof(struct ndk_roce_bth, opcode), 0, "");
	TEST_ASSERT_EQ(offsetof(struct ndk_roce_bth, flags), 1, "");
	TEST_ASSERT_EQ(offsetof(struct ndk_roce_bth, pkey), 2, "");
	TEST_ASSERT_EQ(offsetof(struct ndk_roce_bth, qpn), 4, "");
	TEST_ASSERT_EQ(offsetof(struct ndk_roce_bth, apsn), 8, "");
	TEST_ASSERT_EQ(sizeof(struct ndk_roce_reth), 16, "");
	TEST_ASSERT_EQ(offsetof(struct ndk_roce_reth, va), 0, "");
	TEST_ASSERT_EQ(offsetof(struct ndk_roce_reth, rkey), 8, "");
	TEST_ASSERT_EQ(offsetof(struct ndk_roce_reth, len), 12, "");
	TEST_ASSERT_EQ(sizeof(struct ndk_roce_aeth), 4, "");
	TEST_ASSERT_EQ(sizeof(struct ndk_roce_ieth), 4, "");
	TEST_ASSERT_EQ(sizeof(struct ndk_roce_immdt), 4, "");
	TEST_ASSERT_EQ(sizeof(struct ndk_roce_deth), 8, "");
	TEST_ASSERT_EQ(offsetof(struct ndk_roce_deth, qkey), 0, "");
	TEST_ASSERT_EQ(offsetof(struct ndk_roce_deth, sqp), 4, "");
	TEST_ASSERT_EQ(NDK_ROCE_BTH_LEN, sizeof(struct ndk_roce_bth), "");
	TEST_ASSERT_EQ(NDK_ROCE_RETH_LEN, sizeof(struct ndk_roce_reth), "");
	TEST_ASSERT_EQ(NDK_ROCE_DETH_LEN, sizeof(struct ndk_roce_deth), "");
	TEST_ASSERT_EQ(NDK_ROCE_L2L4_LEN, 42, "");
	for (unsigned int op = 0; op < 256; op++)
		TEST_ASSERT(ndk_roce_opcode((uint8_t)op)->hdr_len <=
			    NDK_ROCE_MAX_TRANSPORT_HDR, "op 0x%x", op);
	return 0;
}

static int
test_bth_accessors(void)
{
	struct ndk_roce_bth b;
	struct ndk_roce_aeth a;
	const uint8_t *raw = (const uint8_t *)&b;

	for (int i = 0; i < 10000; i++) {
		uint32_t qpn = (uint32_t)rng(), psn = (uint32_t)rng();
		uint8_t op = (uint8_t)rng(), pad = (uint8_t)(rng() & 3);
		bool se = rng() & 1, ack = rng() & 1;

		ndk_roce_bth_set(&b, op, se, pad, qpn, ack, psn);
		TEST_ASSERT_EQ(b.opcode, op, "");
		TEST_ASSERT_EQ(ndk_roce_bth_padcnt(&b), pad, "");
		TEST_ASSERT_EQ(ndk_roce_bth_se(&b), se, "");
		TEST_ASSERT_EQ(ndk_roce_bth_ackreq(&b), ack, "");
		TEST_ASSERT_EQ(ndk_roce_bth_qpn(&b), qpn & 0xFFFFFF, "");
		TEST_ASSERT_EQ(ndk_roce_bth_psn(&b), psn & 0xFFFFFF, "");
		TEST_ASSERT_EQ(raw[1] & NDK_ROCE_BTH_TVER_MASK, 0, "TVer");
		TEST_ASSERT_EQ(get_be16(raw + 2), 0xFFFF, "P_Key");
		TEST_ASSERT_EQ(raw[4], 0, "FECN/BECN/resv");
	}
	/* Exact bytes: SE, pad 3, QPN 0x123456, AckReq, PSN 0xABCDEF. */
	ndk_roce_bth_set(&b, 0x04, true, 3, 0xFF123456, true, 0x77ABCDEF);
	static const uint8_t want[12] = { 0x04, 0xB0, 0xFF, 0xFF, 0x00, 0x12,
		0x34, 0x56, 0x80, 0xAB, 0xCD, 0xEF };
	TEST_ASSERT(memcmp(raw, want, 12) == 0, "BTH bytes");

	ndk_roce_aeth_set(&a, 0x7F, 0x1ABCDEF);
	TEST_ASSERT_EQ(ndk_roce_aeth_syndrome(&a), 0x7F, "");
	TEST_ASSERT_EQ(ndk_roce_aeth_msn(&a), 0xABCDEF, "");
	TEST_ASSERT_EQ(((const uint8_t *)&a)[0], 0x7F, "syndrome first");
	return 0;
}

/*
 * Extension header letters of exp_op::hdrs: flag, index in
 * ndk_roce_opcode_info::offset, size; the last is CNP's padding.
 */
static const struct {
	char c;
	uint32_t flag;
	int ext;
	uint8_t size;
} hdr_kinds[] = {
	{ 'R', NDK_ROCE_OPF_RETH, NDK_ROCE_RETH, 16 },
	{ 'A', NDK_ROCE_OPF_AETH, NDK_ROCE_AETH, 4 },
	{ 'I', NDK_ROCE_OPF_IMMDT, NDK_ROCE_IMMDT, 4 },
	{ 'V', NDK_ROCE_OPF_IETH, NDK_ROCE_IETH, 4 },
	{ 'D', NDK_ROCE_OPF_DETH, NDK_ROCE_DETH, 8 },
	{ 'T', NDK_ROCE_OPF_ATMETH, NDK_ROCE_ATMETH, 28 },
	{ 'K', NDK_ROCE_OPF_ATMACK, NDK_ROCE_ATMACK, 8 },
	{ 'S', 0, -1, NDK_ROCE_SACK_LEN },      /* NDK_SACK's bitmap */
	{ '0', 0, -1, 16 },
};

static int
test_opcode_table(void)
{
	static const uint32_t posf[] = { 0, NDK_ROCE_OPF_FIRST,
		NDK_ROCE_OPF_MIDDLE, NDK_ROCE_OPF_LAST, NDK_ROCE_OPF_ONLY };
	unsigned int n_valid = 0;

	for (unsigned int op = 0; op < 256; op++) {
		const struct ndk_roce_opcode_info *o = ndk_roce_opcode((uint8_t)op);
		uint32_t t, want, off = NDK_ROCE_BTH_LEN;
		struct exp_op e;
		char name[64];

		TEST_ASSERT(o == &ndk_roce_opcode_table[op], "");
		if (!exp_lookup((uint8_t)op, &e, &t)) {
			TEST_ASSERT_EQ(o->flags, 0, "op 0x%x must be undefined", op);
			continue;
		}
		n_valid++;
		want = NDK_ROCE_OPF_VALID | t | e.kind | posf[e.pos] |
		       (e.payload ? NDK_ROCE_OPF_PAYLOAD : 0);
		/* Walk the headers: flag, offset and size of each. */
		for (const char *h = e.hdrs; *h != '\0'; h++) {
			unsigned int j = 0;
			uint32_t at;

			while (j < RTE_DIM(hdr_kinds) - 1 && hdr_kinds[j].c != *h)
				j++;
			at = hdr_kinds[j].ext < 0 ? off :
			     o->offset[hdr_kinds[j].ext];
			want |= hdr_kinds[j].flag;
			TEST_ASSERT_EQ(at, off, "op 0x%x header %c", op, *h);
			off += hdr_kinds[j].size;
		}
		TEST_ASSERT_EQ(off, e.hdr_len, "expected table row 0x%x", op);
		/* Headers not there: offset 0. */
		for (unsigned int x = 0; x < NDK_ROCE_NUM_EXT; x++)
			TEST_ASSERT(o->offset[x] == 0 ||
				    (want & NDK_ROCE_OPF_EXT(x)),
				    "op 0x%x has no header %u but offset %u",
				    op, x, o->offset[x]);
		TEST_ASSERT_EQ(o->flags, want, "flags of op 0x%x", op);
		TEST_ASSERT_EQ(o->hdr_len, e.hdr_len, "hdr_len of op 0x%x", op);
		if (t == NDK_ROCE_OPF_RC || t == NDK_ROCE_OPF_UC)
			snprintf(name, sizeof(name), "%s_%s",
				 t == NDK_ROCE_OPF_RC ? "RC" : "UC", e.name);
		else
			snprintf(name, sizeof(name), "%s", e.name);
		TEST_ASSERT(o->name != NULL && strcmp(o->name, name) == 0,
			    "op 0x%x name %s, want %s", op,
			    o->name ? o->name : "(null)", name);
	}
	TEST_ASSERT_EQ(n_valid, 23 + 12 + 2 + 1 + 1, "defined opcodes");
	return 0;
}

/*
 * A few opcodes' extension headers as the IBA lays them out (vol. 1,
 * 9.2-9.5: RETH before ImmDt, AETH before AtomicAckETH, DETH before ImmDt),
 * written as numbers: the whole offset array, the flags of exactly those
 * headers and the header length.
 */
static int
test_opcode_offsets(void)
{
	static const struct {
		uint8_t op;
		uint8_t hdr_len;
		uint8_t offset[NDK_ROCE_NUM_EXT];
	} iba[] = {
		{ NDK_ROCE_OP_RC_WRITE_ONLY_IMM, 32,
		  { [NDK_ROCE_RETH] = 12, [NDK_ROCE_IMMDT] = 28 } },
		{ NDK_ROCE_OP_UC_WRITE_FIRST, 28, { [NDK_ROCE_RETH] = 12 } },
		{ NDK_ROCE_OP_RC_READ_REQUEST, 28, { [NDK_ROCE_RETH] = 12 } },
		{ NDK_ROCE_OP_RC_READ_RESP_MIDDLE, 12, { 0 } },
		{ NDK_ROCE_OP_RC_ATOMIC_ACK, 24,
		  { [NDK_ROCE_AETH] = 12, [NDK_ROCE_ATMACK] = 16 } },
		{ NDK_ROCE_OP_RC_CMP_SWAP, 40, { [NDK_ROCE_ATMETH] = 12 } },
		{ NDK_ROCE_OP_RC_SEND_ONLY_INV, 16, { [NDK_ROCE_IETH] = 12 } },
		{ NDK_ROCE_OP_UD_SEND_ONLY_IMM, 24,
		  { [NDK_ROCE_DETH] = 12, [NDK_ROCE_IMMDT] = 20 } },
	};

	for (unsigned int i = 0; i < RTE_DIM(iba); i++) {
		const struct ndk_roce_opcode_info *o = ndk_roce_opcode(iba[i].op);
		uint32_t hdrs = 0, any = 0;

		for (unsigned int x = 0; x < NDK_ROCE_NUM_EXT; x++) {
			TEST_ASSERT_EQ(o->offset[x], iba[i].offset[x],
				       "%s: header %u", o->name, x);
			if (iba[i].offset[x] != 0)
				hdrs |= NDK_ROCE_OPF_EXT(x);
			any |= NDK_ROCE_OPF_EXT(x);
		}
		TEST_ASSERT_EQ(o->flags & any, hdrs, "%s: header flags",
			       o->name);
		TEST_ASSERT_EQ(o->hdr_len, iba[i].hdr_len, "%s", o->name);
	}
	return 0;
}

static int
test_psn_arith(void)
{
	TEST_ASSERT_EQ(ndk_roce_psn_add(0xFFFFFF, 1), 0, "");
	TEST_ASSERT_EQ(ndk_roce_psn_add(0xFFFFFE, 5), 3, "");
	TEST_ASSERT_EQ(ndk_roce_psn_add(0, 0xFFFFFF), 0xFFFFFF, "");
	TEST_ASSERT_EQ(ndk_roce_psn_add(0x123456, 0x1000000), 0x123456, "");
	TEST_ASSERT_EQ(ndk_roce_psn_diff(0, 0xFFFFFF), 1, "");
	TEST_ASSERT_EQ(ndk_roce_psn_diff(0xFFFFFF, 0), -1, "");
	TEST_ASSERT_EQ(ndk_roce_psn_diff(5, 5), 0, "");
	TEST_ASSERT_EQ(ndk_roce_psn_diff(2, 0xFFFFFE), 4, "");
	/* The window edges: +2^23 - 1 is ahead, 2^23 wraps to -2^23. */
	TEST_ASSERT_EQ(ndk_roce_psn_diff(0x7FFFFF, 0), 0x7FFFFF, "");
	TEST_ASSERT_EQ(ndk_roce_psn_diff(0x800000, 0), -0x800000, "");
	TEST_ASSERT_EQ(ndk_roce_psn_diff(0, 0x800000), -0x800000, "");
	TEST_ASSERT_EQ(ndk_roce_psn_diff(0, 0x800001), 0x7FFFFF, "");
	TEST_ASSERT_EQ(ndk_roce_psn_diff(0x800001, 1), -0x800000, "");
	for (int i = 0; i < 100000; i++) {
		uint32_t a = (uint32_t)rng() & 0xFFFFFF;
		int32_t d = (int32_t)(rng() % 0x1000000) - 0x800000;
		uint32_t b = ndk_roce_psn_add(a, (uint32_t)d);

		TEST_ASSERT(b <= 0xFFFFFF, "");
		TEST_ASSERT_EQ(ndk_roce_psn_diff(b, a), d, "a=%x", a);
		/* High garbage bits on the inputs must not matter. */
		TEST_ASSERT_EQ(ndk_roce_psn_diff(b | 0xAB000000u, a), d, "");
	}
	return 0;
}

static int
test_credits(void)
{
	static const uint32_t tbl[31] = { 0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32,
		48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048,
		3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768 };

	for (uint8_t c = 0; c < 31; c++) {
		TEST_ASSERT_EQ(ndk_roce_credits_decode(c), tbl[c], "code %u", c);
		TEST_ASSERT_EQ(ndk_roce_credits_encode(tbl[c]), c, "");
		if (c < 30 && tbl[c + 1] - 1 > tbl[c])
			TEST_ASSERT_EQ(ndk_roce_credits_encode(tbl[c + 1] - 1),
				       c, "below entry %u", c + 1);
	}
	TEST_ASSERT_EQ(ndk_roce_credits_decode(0x1F), UINT32_MAX, "");
	TEST_ASSERT_EQ(ndk_roce_credits_encode(5), 4, "5 -> code of 4");
	TEST_ASSERT_EQ(ndk_roce_credits_encode(40000), 30, "");
	TEST_ASSERT_EQ(ndk_roce_credits_encode(UINT32_MAX), 30, "");
	for (uint32_t n = 0; n < 70000; n++) {
		uint8_t c = ndk_roce_credits_encode(n);

		TEST_ASSERT(c < 31 && ndk_roce_credits_decode(c) <= n, "n=%u", n);
		TEST_ASSERT(c == 30 || ndk_roce_credits_decode(c + 1) > n, "");
	}
	return 0;
}

static int
test_rnr_timer(void)
{
	static const uint32_t ms100[32] = { 65536, 1, 2, 3, 4, 6, 8, 12, 16,
		24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536,
		2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768,
		49152 }; /* units of 10 us */

	for (uint8_t c = 0; c < 32; c++)
		TEST_ASSERT_EQ(ndk_roce_rnr_timer_us(c), ms100[c] * 10, "code %u",
			       c);
	TEST_ASSERT_EQ(ndk_roce_rnr_timer_us(0), 655360, "");
	TEST_ASSERT_EQ(ndk_roce_rnr_timer_us(25), 61440, "not rxe's 61410");
	return 0;
}

static int
test_mtu(void)
{
	static const uint32_t b[] = { 0, 256, 512, 1024, 2048, 4096, 0 };

	for (int m = 0; m <= 6; m++)
		TEST_ASSERT_EQ(ndk_roce_mtu_bytes((enum ndk_roce_mtu)m), b[m], "");
	for (int m = 1; m <= 5; m++)
		TEST_ASSERT_EQ(ndk_roce_mtu_from_bytes(b[m]), m, "");
	TEST_ASSERT_EQ(ndk_roce_mtu_from_bytes(1500), 0, "");
	TEST_ASSERT_EQ(ndk_roce_mtu_from_bytes(128), 0, "");
	TEST_ASSERT_EQ(ndk_roce_mtu_from_bytes(8192), 0, "");
	return 0;
}

/* ------------------------------------------------------------------ */
/* CRC                                                                 */
/* ------------------------------------------------------------------ */

/* Bit-at-a-time reference, independent of the library's tables. */
uint32_t
crc_bitwise(uint32_t crc, const uint8_t *p, size_t len)
{
	while (len-- > 0) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
	}
	return crc;
}

static int
test_crc_check_value(void)
{
	static const char s[] = "123456789";
	uint8_t ff[8];

	TEST_ASSERT_EQ(~ndk_roce_crc32_update_sw(~0u, s, 9), 0xCBF43926u, "");
	TEST_ASSERT_EQ(~ndk_roce_crc32_update(~0u, s, 9), 0xCBF43926u, "");
	TEST_ASSERT_EQ(ndk_roce_crc32_update(0x12345678, s, 0), 0x12345678, "");
	memset(ff, 0xFF, sizeof(ff));
	TEST_ASSERT_EQ(ndk_roce_crc32_update_sw(~0u, ff, 8), 0xDEBB20E3u,
		       "register after the pseudo-LRH");
	return 0;
}

/* One implementation against the table on every length 0..MAXLEN. */
static int
crc_impl_vs_table(enum ndk_roce_crc_impl impl, const uint8_t *buf,
		  uint32_t maxlen, uint32_t align)
{
	for (uint32_t len = 0; len <= maxlen; len++) {
		uint32_t off = (uint32_t)(rng() % align), sw, hw, ref;
		uint32_t seed = (uint32_t)rng();
		uint8_t *copy;

		/* Exact-size copy: valgrind sees any read past the end. */
		copy = malloc(len > 0 ? len : 1);
		TEST_ASSERT(copy != NULL, "");
		memcpy(copy, buf + off, len);
		sw = ndk_roce_crc32_update_sw(seed, copy, len);
		hw = ndk_roce_crc32_update_impl(impl, seed, copy, len);
		free(copy);
		TEST_ASSERT_EQ(hw, sw, "%s len %u off %u",
			       ndk_roce_crc32_impl_name(impl), len, off);
		TEST_ASSERT_EQ(ndk_roce_crc32_update_impl(impl, seed, buf + off,
							  len), sw,
			       "%s in place, len %u off %u",
			       ndk_roce_crc32_impl_name(impl), len, off);
		if (impl == NDK_ROCE_CRC_TABLE &&
		    (len <= 300 || len % 509 == 0)) {
			ref = crc_bitwise(seed, buf + off, len);
			TEST_ASSERT_EQ(sw, ref, "table vs bitwise, len %u", len);
		}
		/* Copy in the same pass: same register, same bytes. */
		copy = malloc(len > 0 ? len : 1);
		TEST_ASSERT(copy != NULL, "");
		memset(copy, 0xA5, len);
		hw = ndk_roce_crc32_copy_impl(impl, seed, copy, buf + off, len);
		TEST_ASSERT_EQ(hw, sw, "%s copy, len %u off %u",
			       ndk_roce_crc32_impl_name(impl), len, off);
		TEST_ASSERT(memcmp(copy, buf + off, len) == 0,
			    "%s copy, len %u off %u: bytes differ",
			    ndk_roce_crc32_impl_name(impl), len, off);
		free(copy);
		/* Split updates chain. */
		if (len > 0) {
			uint32_t cut = (uint32_t)(rng() % len);
			uint32_t c = ndk_roce_crc32_update_impl(impl, seed,
								buf + off, cut);

			c = ndk_roce_crc32_update_impl(impl, c, buf + off + cut,
						       len - cut);
			TEST_ASSERT_EQ(c, sw, "%s split at %u of %u",
				       ndk_roce_crc32_impl_name(impl), cut, len);
		}
	}
	return 0;
}

/*
 * Every implementation the CPU supports, on lengths 0..4200 (beyond a
 * 4096-byte payload plus headers) at random alignments, equals the table,
 * and the table equals a bit-at-a-time CRC.
 */
static int
test_crc_sw_vs_pclmul(void)
{
	enum { MAXLEN = 4200, ALIGN = 64 };
	uint8_t *buf = malloc(MAXLEN + ALIGN);
	int ret = 0;

	TEST_ASSERT(buf != NULL, "");
	printf("  in use: %s\n", ndk_roce_crc32_impl_name(ndk_roce_crc32_impl()));
	TEST_ASSERT(ndk_roce_crc32_impl_supported(ndk_roce_crc32_impl()), "");
	for (unsigned int i = 0; i < MAXLEN + ALIGN; i++)
		buf[i] = (uint8_t)rng();
	for (int impl = 0; impl < NDK_ROCE_CRC_IMPL_MAX && ret == 0; impl++) {
		if (!ndk_roce_crc32_impl_supported(impl)) {
			printf("  %s: not supported by this CPU\n",
			       ndk_roce_crc32_impl_name(impl));
			continue;
		}
		ret = crc_impl_vs_table(impl, buf, MAXLEN, ALIGN);
	}
	free(buf);
	return ret;
}

/* Throughput on 4 KiB buffers, best of 5 runs (reported, not asserted). */
static int
test_crc_speed(void)
{
	enum { LEN = 4096, ITERS = 4000, RUNS = 5 };
	static uint8_t buf[LEN] __rte_aligned(64);
	uint64_t hz = rte_get_tsc_hz();
	uint32_t c[NDK_ROCE_CRC_IMPL_MAX];

	for (int i = 0; i < LEN; i++)
		buf[i] = (uint8_t)rng();
	for (int v = 0; v < NDK_ROCE_CRC_IMPL_MAX; v++) {
		uint64_t best = UINT64_MAX;

		c[v] = ~0u;
		if (!ndk_roce_crc32_impl_supported(v))
			continue;
		for (int r = 0; r < RUNS; r++) {
			uint64_t t0 = rte_rdtsc_precise();

			for (int i = 0; i < ITERS; i++)
				c[v] = ndk_roce_crc32_update_impl(v, c[v], buf,
								  LEN);
			best = RTE_MIN(best, rte_rdtsc_precise() - t0);
		}
		printf("  crc32 %-14s %6.2f bytes/TSC cycle %6.2f GB/s\n",
		       ndk_roce_crc32_impl_name(v),
		       (double)LEN * ITERS / (double)best,
		       (double)LEN * ITERS * (double)hz / (double)best / 1e9);
		TEST_ASSERT_EQ(c[v], c[0], "%s: same result as the table",
			       ndk_roce_crc32_impl_name(v));
	}
	/* Copy then CRC against both in one pass (4 KiB, in-use variant). */
	for (int v = 0; v < 2; v++) {
		static uint8_t dst[LEN] __rte_aligned(64);
		uint64_t best = UINT64_MAX;
		uint32_t r = ~0u;

		for (int k = 0; k < RUNS; k++) {
			uint64_t t0 = rte_rdtsc_precise();

			for (int i = 0; i < ITERS; i++) {
				if (v == 0) {
					memcpy(dst, buf, LEN);
					r = ndk_roce_crc32_update(r, dst, LEN);
				} else {
					r = ndk_roce_crc32_copy(r, dst, buf, LEN);
				}
			}
			best = RTE_MIN(best, rte_rdtsc_precise() - t0);
		}
		printf("  %-24s %6.2f bytes/TSC cycle (%u)\n",
		       v == 0 ? "memcpy, then crc32:" : "crc32_copy, one pass:",
		       (double)LEN * ITERS / (double)best, r & 1);
	}
	/*
	 * ICRC of whole frames (IPv4 header to ICRC) with the implementation
	 * in use: a 64-byte WRITE (120 bytes) and an MTU-4096 WRITE MIDDLE
	 * (4136 bytes), in TSC cycles per frame.
	 */
	for (int v = 0; v < 2; v++) {
		static uint8_t frame[4136] __rte_aligned(64);
		uint32_t len = v == 0 ? 120 : sizeof(frame), acc = 0;
		unsigned int iters = v == 0 ? 200000 : 4000;
		uint64_t best = UINT64_MAX;

		memcpy(frame, buf, RTE_MIN(sizeof(frame), sizeof(buf)));
		memcpy(frame + LEN, buf, sizeof(frame) - LEN);
		frame[0] = 0x45;
		for (int r = 0; r < RUNS; r++) {
			uint64_t t0 = rte_rdtsc_precise();

			for (unsigned int i = 0; i < iters; i++) {
				frame[4] = (uint8_t)i;
				acc ^= ndk_roce_icrc_buf(frame, len);
			}
			best = RTE_MIN(best, rte_rdtsc_precise() - t0);
		}
		printf("  icrc %4u-byte frame (%s): %7.1f TSC cycles (%u)\n", len,
		       ndk_roce_crc32_impl_name(ndk_roce_crc32_impl()),
		       (double)best / iters, acc & 1);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* ICRC test vectors (spec section 4.8)                                */
/* ------------------------------------------------------------------ */

static const char vec_a[] =
	"e41d2dab2bc2 7cfe90643b32 0800"
	"45c2003c718c4000401191610a0011010a001201"
	"000012b700280000"
	"8100ffff4000011800000000"
	"00000000000000000000000000000000"
	"82fd002a";

static const char vec_b[] =
	"020000000002 020000000001 0800"
	"45010040047840004011b4d5c0a80007c0a80007"
	"c00012b7002c0000"
	"2460ffff000000d300cf1710"
	"4630818be28935d90e9a955054 01be885e500000"
	"78f353f3";

static int
test_icrc_vectors(void)
{
	uint8_t f[128];
	struct ndk_roce_pkt p;
	int n;

	/* A: ConnectX-4 Lx CNP. */
	n = hex_decode(vec_a, f, sizeof(f));
	TEST_ASSERT_EQ(n, 74, "");
	TEST_ASSERT_EQ(ndk_roce_icrc_buf(f + 14, 56), 0x2A00FD82u, "vector A");
	TEST_ASSERT_EQ(get_le32(f + 70), 0x2A00FD82u, "wire bytes");
	TEST_ASSERT_EQ(parse_flat(f, 74, &p, true), NDK_ROCE_PARSE_OK, "");
	TEST_ASSERT_EQ(p.opcode, NDK_ROCE_OP_CNP, "");
	TEST_ASSERT_EQ(p.qpn, 0x118, "");
	TEST_ASSERT_EQ(p.payload_len, 0, "");

	/* B: scapy UC SEND_ONLY, M=1, PadCnt 2, IPv4 checksum 0xB4D5. */
	n = hex_decode(vec_b, f, sizeof(f));
	TEST_ASSERT_EQ(n, 78, "");
	TEST_ASSERT_EQ(rte_ipv4_cksum((struct rte_ipv4_hdr *)(f + 14)), 0,
		       "IPv4 header of vector B");
	TEST_ASSERT_EQ(ndk_roce_icrc_buf(f + 14, 60), 0xF353F378u, "vector B");
	TEST_ASSERT_EQ(get_le32(f + 74), 0xF353F378u, "wire bytes 78 f3 53 f3");
	TEST_ASSERT_EQ(parse_flat(f, 78, &p, true), NDK_ROCE_PARSE_OK, "");
	TEST_ASSERT_EQ(p.opcode, NDK_ROCE_OP_UC_SEND_ONLY, "");
	TEST_ASSERT_EQ(p.qpn, 211, "");
	TEST_ASSERT_EQ(p.psn, 13571856, "");
	TEST_ASSERT_EQ(p.padcnt, 2, "");
	TEST_ASSERT_EQ(p.payload_len, 18, "");
	TEST_ASSERT_EQ(p.payload_off, 54, "");
	TEST_ASSERT_EQ(get_be16(f + 34), 49152, "UDP source port");
	return 0;
}

/* ------------------------------------------------------------------ */
/* Templates and frame building                                        */
/* ------------------------------------------------------------------ */

static const struct rte_ether_addr mac_a = {{ 0x02, 0, 0, 0, 0, 0x0A }};
static const struct rte_ether_addr mac_b = {{ 0x02, 0, 0, 0, 0, 0x0B }};
#define SIP RTE_BE32(RTE_IPV4(10, 0, 0, 1))
#define DIP RTE_BE32(RTE_IPV4(10, 0, 0, 2))

/* Build a complete frame with the template; @return its length. */
uint32_t
build_frame(uint8_t *f, uint8_t op, uint32_t qpn, uint32_t psn, uint32_t plen)
{
	const struct ndk_roce_opcode_info *o = ndk_roce_opcode(op);
	uint32_t pad = (0u - plen) & 3, hdr = o->hdr_len;
	uint32_t udp_payload = hdr + plen + pad + NDK_ROCE_ICRC_LEN;
	struct ndk_roce_l2l4 t;
	uint8_t *b;

	ndk_roce_l2l4_init(&t, &mac_a, &mac_b, SIP, DIP,
			   ndk_roce_udp_sport(qpn, 0x77), 0x02, 64);
	b = ndk_roce_l2l4_write(&t, f, (uint16_t)udp_payload);
	ndk_roce_bth_set((struct ndk_roce_bth *)b, op, true, (uint8_t)pad, qpn,
			 true, psn);
	for (uint32_t i = NDK_ROCE_BTH_LEN; i < hdr; i++)
		b[i] = (uint8_t)(0xA0 + i);
	for (uint32_t i = 0; i < plen; i++)
		b[hdr + i] = (uint8_t)(i * 7 + op);
	memset(b + hdr + plen, 0, pad);
	put_le32(b + hdr + plen + pad,
		 ndk_roce_icrc_buf(f + 14, 28 + hdr + plen + pad));
	return NDK_ROCE_L2L4_LEN + udp_payload;
}

static int
test_l2l4_template(void)
{
	static uint8_t f[NDK_ROCE_L2L4_LEN + 65536];
	struct ndk_roce_l2l4 t;

	ndk_roce_l2l4_init(&t, &mac_a, &mac_b, SIP, DIP, 0xC123, 0x02, 64);
	for (uint32_t n = 0; n <= 65507; n += (n < 64 ? 1 : 997)) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + 14);
		uint8_t *ret = ndk_roce_l2l4_write(&t, f, (uint16_t)n);
		uint16_t stored;

		TEST_ASSERT(ret == f + 42, "");
		TEST_ASSERT(memcmp(f, &mac_b, 6) == 0 &&
			    memcmp(f + 6, &mac_a, 6) == 0, "MACs");
		TEST_ASSERT_EQ(get_be16(f + 12), 0x0800, "");
		TEST_ASSERT_EQ(f[14], 0x45, "");
		TEST_ASSERT_EQ(f[15], 0x02, "TOS");
		TEST_ASSERT_EQ(get_be16(f + 16), 28 + n, "IP total length");
		TEST_ASSERT_EQ(get_be16(f + 20), 0x4000, "DF, no fragment");
		TEST_ASSERT_EQ(f[22], 64, "TTL");
		TEST_ASSERT_EQ(f[23], 17, "UDP");
		TEST_ASSERT(ip->src_addr == SIP && ip->dst_addr == DIP, "");
		TEST_ASSERT_EQ(rte_ipv4_cksum(ip), 0, "checksum verifies, n=%u", n);
		stored = ip->hdr_checksum;
		ip->hdr_checksum = 0;
		TEST_ASSERT_EQ(rte_ipv4_cksum(ip), stored, "n=%u", n);
		TEST_ASSERT_EQ(get_be16(f + 34), 0xC123, "sport");
		TEST_ASSERT_EQ(get_be16(f + 36), 4791, "dport");
		TEST_ASSERT_EQ(get_be16(f + 38), 8 + n, "UDP length");
		TEST_ASSERT_EQ(get_be16(f + 40), 0, "UDP checksum");
	}
	return 0;
}

static int
test_build_parse_roundtrip(void)
{
	static const struct { uint8_t op; uint32_t plen; } cases[] = {
		{ 0x04, 0 }, { 0x04, 1 }, { 0x04, 2 }, { 0x04, 3 },
		{ 0x04, 1024 }, { 0x00, 1024 }, { 0x01, 256 }, { 0x02, 5 },
		{ 0x03, 6 }, { 0x05, 7 }, { 0x06, 1024 }, { 0x07, 4096 },
		{ 0x08, 9 }, { 0x09, 10 }, { 0x0A, 11 }, { 0x0B, 12 },
		{ 0x0C, 0 }, { 0x0D, 1024 }, { 0x0E, 1024 }, { 0x0F, 13 },
		{ 0x10, 14 }, { 0x11, 0 }, { 0x12, 0 }, { 0x13, 0 },
		{ 0x14, 0 }, { 0x16, 15 }, { 0x17, 17 }, { 0x24, 33 },
		{ 0x2B, 2 }, { 0x64, 256 }, { 0x65, 3 }, { 0x81, 0 },
	};
	static uint8_t f[8192];

	for (unsigned int i = 0; i < RTE_DIM(cases); i++) {
		uint8_t op = cases[i].op;
		uint32_t plen = cases[i].plen, qpn = 0x10000 + i;
		uint32_t psn = 0xFFFFF0 + i, len;
		struct ndk_roce_pkt p;
		int hdr = exp_hdr_len(op);

		struct rte_mbuf *m;
		enum ndk_roce_parse_err e;
		uint8_t ext0 = 0xA0 + 12;

		len = build_frame(f, op, qpn, psn, plen);
		m = chain_build(f, len, 2048, 2048, false);
		e = ndk_roce_parse(m, &p, true);
		if (e == NDK_ROCE_PARSE_OK && hdr > 12)
			ext0 = *(const uint8_t *)ndk_roce_pkt_ext(&p, 12);
		rte_pktmbuf_free(m);
		TEST_ASSERT_EQ(e, NDK_ROCE_PARSE_OK, "op 0x%x", op);
		TEST_ASSERT_EQ(ext0, 0xA0 + 12, "extension headers");
		TEST_ASSERT_EQ(p.opcode, op, "");
		TEST_ASSERT_EQ(p.qpn, qpn, "");
		TEST_ASSERT_EQ(p.psn, psn & 0xFFFFFF, "");
		TEST_ASSERT(p.se && p.ackreq, "");
		TEST_ASSERT_EQ(p.padcnt, (0u - plen) & 3, "");
		TEST_ASSERT_EQ(p.payload_len, plen, "op 0x%x", op);
		TEST_ASSERT_EQ(p.payload_off, 42 + hdr, "");
		TEST_ASSERT_EQ(get_be16(f + 34), ndk_roce_udp_sport(0x77, qpn),
			       "");
		TEST_ASSERT(p.sip == SIP && p.dip == DIP, "");
		TEST_ASSERT(memcmp(f + 6, &mac_a, 6) == 0, "");
		if (plen > 0)
			TEST_ASSERT_EQ(f[p.payload_off + plen - 1],
				       (uint8_t)((plen - 1) * 7 + op), "payload");
	}
	return 0;
}

static const struct ndk_test_case cases[] = {
	{ "struct_layout", test_struct_layout },
	{ "bth_accessors", test_bth_accessors },
	{ "opcode_table", test_opcode_table },
	{ "opcode_offsets", test_opcode_offsets },
	{ "psn_arith", test_psn_arith },
	{ "credits", test_credits },
	{ "rnr_timer", test_rnr_timer },
	{ "mtu", test_mtu },
	{ "crc_check_value", test_crc_check_value },
	{ "crc_sw_vs_pclmul", test_crc_sw_vs_pclmul },
	{ "crc_speed", test_crc_speed },
	{ "icrc_vectors", test_icrc_vectors },
	{ "capture_vm_to_vm", test_capture_vm_to_vm },
	{ "capture_silent_host", test_capture_silent_host },
	{ "capture_multiseg", test_capture_multiseg },
	{ "icrc_lengths", test_icrc_lengths },
	{ "icrc_copy_check", test_icrc_copy_check },
	{ "rx_copy_speed", test_rx_copy_speed },
	{ "l2l4_template", test_l2l4_template },
	{ "build_parse_roundtrip", test_build_parse_roundtrip },
	{ "parse_errors", test_parse_errors },
	{ "parse_fuzz", test_parse_fuzz },
	{ "parse_err_str", test_parse_err_str },
	{ "udp_sport", test_udp_sport },
	{ "ipv6_capture_pingpong", test_ipv6_capture_pingpong },
	{ "ipv6_capture_rping", test_ipv6_capture_rping },
	{ "ipv6_icrc_masks", test_ipv6_icrc_masks },
	{ "ipv6_template", test_ipv6_template },
	{ "ipv6_parse_errors", test_ipv6_parse_errors },
	{ "ipv6_cm", test_ipv6_cm },
	{ "cm_capture", test_cm_capture },
	{ "cm_fields", test_cm_fields },
	{ "cm_roundtrip", test_cm_roundtrip },
	{ "cm_errors", test_cm_errors },
};

int
main(int argc, char **argv)
{
	if (ndk_test_eal_init("test_unit_roce", "0", NULL) < 0)
		return 1;
	return ndk_test_run("roce_unit", cases, RTE_DIM(cases), argc, argv);
}
