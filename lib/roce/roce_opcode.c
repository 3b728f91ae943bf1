/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Per-opcode description table, AETH credit codes and RNR NAK timer codes.
 * Header layouts follow the RoCEv2 / IBA opcode list: extension headers come
 * right after the 12-byte BTH in the order RETH/DETH/AETH/AtomicETH, then
 * ImmDt/IETH/AtomicAckETH.
 */

#include <stdint.h>

#include "ndk_roce.h"

#define B NDK_ROCE_BTH_LEN

/* Flag groups shared by several opcodes. */
#define F_REQ_SEND (NDK_ROCE_OPF_VALID | NDK_ROCE_OPF_REQ | \
		    NDK_ROCE_OPF_SEND | NDK_ROCE_OPF_PAYLOAD)
#define F_REQ_WRITE (NDK_ROCE_OPF_VALID | NDK_ROCE_OPF_REQ | \
		     NDK_ROCE_OPF_WRITE | NDK_ROCE_OPF_PAYLOAD)
#define F_READ_RESP (NDK_ROCE_OPF_VALID | NDK_ROCE_OPF_RESP | \
		     NDK_ROCE_OPF_READ | NDK_ROCE_OPF_PAYLOAD)

/*
 * SEND and RDMA WRITE opcodes 0x00..0x0B exist for RC and, with the same
 * layout, for UC (0x20..0x2B); @p T is the transport flag, @p P the prefix.
 */
#define SEND_WRITE_OPS(base, T, P) \
	[(base) + 0x00] = { P "_SEND_FIRST", \
		F_REQ_SEND | NDK_ROCE_OPF_FIRST | (T), B, \
		0, 0, 0, 0, 0, 0, 0 }, \
	[(base) + 0x01] = { P "_SEND_MIDDLE", \
		F_REQ_SEND | NDK_ROCE_OPF_MIDDLE | (T), B, \
		0, 0, 0, 0, 0, 0, 0 }, \
	[(base) + 0x02] = { P "_SEND_LAST", \
		F_REQ_SEND | NDK_ROCE_OPF_LAST | (T), B, \
		0, 0, 0, 0, 0, 0, 0 }, \
	[(base) + 0x03] = { P "_SEND_LAST_WITH_IMMEDIATE", \
		F_REQ_SEND | NDK_ROCE_OPF_LAST | NDK_ROCE_OPF_IMMDT | (T), \
		B + NDK_ROCE_IMMDT_LEN, 0, 0, B, 0, 0, 0, 0 }, \
	[(base) + 0x04] = { P "_SEND_ONLY", \
		F_REQ_SEND | NDK_ROCE_OPF_ONLY | (T), B, \
		0, 0, 0, 0, 0, 0, 0 }, \
	[(base) + 0x05] = { P "_SEND_ONLY_WITH_IMMEDIATE", \
		F_REQ_SEND | NDK_ROCE_OPF_ONLY | NDK_ROCE_OPF_IMMDT | (T), \
		B + NDK_ROCE_IMMDT_LEN, 0, 0, B, 0, 0, 0, 0 }, \
	[(base) + 0x06] = { P "_RDMA_WRITE_FIRST", \
		F_REQ_WRITE | NDK_ROCE_OPF_FIRST | NDK_ROCE_OPF_RETH | (T), \
		B + NDK_ROCE_RETH_LEN, B, 0, 0, 0, 0, 0, 0 }, \
	[(base) + 0x07] = { P "_RDMA_WRITE_MIDDLE", \
		F_REQ_WRITE | NDK_ROCE_OPF_MIDDLE | (T), B, \
		0, 0, 0, 0, 0, 0, 0 }, \
	[(base) + 0x08] = { P "_RDMA_WRITE_LAST", \
		F_REQ_WRITE | NDK_ROCE_OPF_LAST | (T), B, \
		0, 0, 0, 0, 0, 0, 0 }, \
	[(base) + 0x09] = { P "_RDMA_WRITE_LAST_WITH_IMMEDIATE", \
		F_REQ_WRITE | NDK_ROCE_OPF_LAST | NDK_ROCE_OPF_IMMDT | (T), \
		B + NDK_ROCE_IMMDT_LEN, 0, 0, B, 0, 0, 0, 0 }, \
	[(base) + 0x0A] = { P "_RDMA_WRITE_ONLY", \
		F_REQ_WRITE | NDK_ROCE_OPF_ONLY | NDK_ROCE_OPF_RETH | (T), \
		B + NDK_ROCE_RETH_LEN, B, 0, 0, 0, 0, 0, 0 }, \
	[(base) + 0x0B] = { P "_RDMA_WRITE_ONLY_WITH_IMMEDIATE", \
		F_REQ_WRITE | NDK_ROCE_OPF_ONLY | NDK_ROCE_OPF_RETH | \
		NDK_ROCE_OPF_IMMDT | (T), \
		B + NDK_ROCE_RETH_LEN + NDK_ROCE_IMMDT_LEN, B, 0, \
		B + NDK_ROCE_RETH_LEN, 0, 0, 0, 0 }

#define RC NDK_ROCE_OPF_RC
#define UC NDK_ROCE_OPF_UC
#define UD NDK_ROCE_OPF_UD

/*
 * Fields in order: name, flags, hdr_len, reth_off, aeth_off, immdt_off,
 * ieth_off, deth_off, atmeth_off, atmack_off.
 */
const struct ndk_roce_opcode_info ndk_roce_opcode_table[256] = {
	SEND_WRITE_OPS(0x00, RC, "RC"),
	[NDK_ROCE_OP_RC_READ_REQUEST] = { "RC_RDMA_READ_REQUEST",
		NDK_ROCE_OPF_VALID | NDK_ROCE_OPF_REQ | NDK_ROCE_OPF_READ |
		NDK_ROCE_OPF_ONLY | NDK_ROCE_OPF_RETH | RC,
		B + NDK_ROCE_RETH_LEN, B, 0, 0, 0, 0, 0, 0 },
	[NDK_ROCE_OP_RC_READ_RESP_FIRST] = { "RC_RDMA_READ_RESPONSE_FIRST",
		F_READ_RESP | NDK_ROCE_OPF_FIRST | NDK_ROCE_OPF_AETH | RC,
		B + NDK_ROCE_AETH_LEN, 0, B, 0, 0, 0, 0, 0 },
	[NDK_ROCE_OP_RC_READ_RESP_MIDDLE] = { "RC_RDMA_READ_RESPONSE_MIDDLE",
		F_READ_RESP | NDK_ROCE_OPF_MIDDLE | RC,
		B, 0, 0, 0, 0, 0, 0, 0 },
	[NDK_ROCE_OP_RC_READ_RESP_LAST] = { "RC_RDMA_READ_RESPONSE_LAST",
		F_READ_RESP | NDK_ROCE_OPF_LAST | NDK_ROCE_OPF_AETH | RC,
		B + NDK_ROCE_AETH_LEN, 0, B, 0, 0, 0, 0, 0 },
	[NDK_ROCE_OP_RC_READ_RESP_ONLY] = { "RC_RDMA_READ_RESPONSE_ONLY",
		F_READ_RESP | NDK_ROCE_OPF_ONLY | NDK_ROCE_OPF_AETH | RC,
		B + NDK_ROCE_AETH_LEN, 0, B, 0, 0, 0, 0, 0 },
	[NDK_ROCE_OP_RC_ACK] = { "RC_ACKNOWLEDGE",
		NDK_ROCE_OPF_VALID | NDK_ROCE_OPF_RESP | NDK_ROCE_OPF_ONLY |
		NDK_ROCE_OPF_AETH | RC,
		B + NDK_ROCE_AETH_LEN, 0, B, 0, 0, 0, 0, 0 },
	[NDK_ROCE_OP_RC_ATOMIC_ACK] = { "RC_ATOMIC_ACKNOWLEDGE",
		NDK_ROCE_OPF_VALID | NDK_ROCE_OPF_RESP | NDK_ROCE_OPF_ATOMIC |
		NDK_ROCE_OPF_ONLY | NDK_ROCE_OPF_AETH | NDK_ROCE_OPF_ATMACK | RC,
		B + NDK_ROCE_AETH_LEN + NDK_ROCE_ATMACK_LEN,
		0, B, 0, 0, 0, 0, B + NDK_ROCE_AETH_LEN },
	[NDK_ROCE_OP_RC_CMP_SWAP] = { "RC_COMPARE_SWAP",
		NDK_ROCE_OPF_VALID | NDK_ROCE_OPF_REQ | NDK_ROCE_OPF_ATOMIC |
		NDK_ROCE_OPF_ONLY | NDK_ROCE_OPF_ATMETH | RC,
		B + NDK_ROCE_ATMETH_LEN, 0, 0, 0, 0, 0, B, 0 },
	[NDK_ROCE_OP_RC_FETCH_ADD] = { "RC_FETCH_ADD",
		NDK_ROCE_OPF_VALID | NDK_ROCE_OPF_REQ | NDK_ROCE_OPF_ATOMIC |
		NDK_ROCE_OPF_ONLY | NDK_ROCE_OPF_ATMETH | RC,
		B + NDK_ROCE_ATMETH_LEN, 0, 0, 0, 0, 0, B, 0 },
	[NDK_ROCE_OP_RC_SEND_LAST_INV] = { "RC_SEND_LAST_WITH_INVALIDATE",
		F_REQ_SEND | NDK_ROCE_OPF_LAST | NDK_ROCE_OPF_IETH | RC,
		B + NDK_ROCE_IETH_LEN, 0, 0, 0, B, 0, 0, 0 },
	[NDK_ROCE_OP_RC_SEND_ONLY_INV] = { "RC_SEND_ONLY_WITH_INVALIDATE",
		F_REQ_SEND | NDK_ROCE_OPF_ONLY | NDK_ROCE_OPF_IETH | RC,
		B + NDK_ROCE_IETH_LEN, 0, 0, 0, B, 0, 0, 0 },

	SEND_WRITE_OPS(0x20, UC, "UC"),

	[NDK_ROCE_OP_UD_SEND_ONLY] = { "UD_SEND_ONLY",
		F_REQ_SEND | NDK_ROCE_OPF_ONLY | NDK_ROCE_OPF_DETH | UD,
		B + NDK_ROCE_DETH_LEN, 0, 0, 0, 0, B, 0, 0 },
	[NDK_ROCE_OP_UD_SEND_ONLY_IMM] = { "UD_SEND_ONLY_WITH_IMMEDIATE",
		F_REQ_SEND | NDK_ROCE_OPF_ONLY | NDK_ROCE_OPF_DETH |
		NDK_ROCE_OPF_IMMDT | UD,
		B + NDK_ROCE_DETH_LEN + NDK_ROCE_IMMDT_LEN,
		0, 0, B + NDK_ROCE_DETH_LEN, 0, B, 0, 0 },

	/* Congestion Notification Packet: BTH + 16 reserved bytes. */
	[NDK_ROCE_OP_CNP] = { "CNP", NDK_ROCE_OPF_VALID, B + 16,
		0, 0, 0, 0, 0, 0, 0 },
};

/* Receive WQE counts of AETH credit codes 0x00..0x1E. */
static const uint32_t credit_table[NDK_ROCE_AETH_CREDIT_INVALID] = {
	0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
	256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192,
	12288, 16384, 24576, 32768,
};

uint8_t
ndk_roce_credits_encode(uint32_t n)
{
	/* Binary search for the largest entry <= n (entry 0 is 0). */
	unsigned int lo = 0, hi = NDK_ROCE_AETH_CREDIT_INVALID - 1;

	while (lo < hi) {
		unsigned int mid = (lo + hi + 1) >> 1;

		if (credit_table[mid] <= n)
			lo = mid;
		else
			hi = mid - 1;
	}
	return (uint8_t)lo;
}

uint32_t
ndk_roce_credits_decode(uint8_t code)
{
	code &= NDK_ROCE_AETH_VALUE_MASK;
	if (code == NDK_ROCE_AETH_CREDIT_INVALID)
		return UINT32_MAX;
	return credit_table[code];
}

/* RNR NAK timer codes in microseconds (code 0 is the longest). */
static const uint32_t rnr_timer_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120,
	160, 240, 320, 480, 640, 960, 1280, 1920,
	2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

uint32_t
ndk_roce_rnr_timer_us(uint8_t code)
{
	return rnr_timer_us[code & NDK_ROCE_AETH_VALUE_MASK];
}
