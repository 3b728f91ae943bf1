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

/* Each extension header's flag is its enum ndk_roce_ext bit. */
_Static_assert(NDK_ROCE_OPF_EXT(NDK_ROCE_RETH) == NDK_ROCE_OPF_RETH, "");
_Static_assert(NDK_ROCE_OPF_EXT(NDK_ROCE_AETH) == NDK_ROCE_OPF_AETH, "");
_Static_assert(NDK_ROCE_OPF_EXT(NDK_ROCE_IMMDT) == NDK_ROCE_OPF_IMMDT, "");
_Static_assert(NDK_ROCE_OPF_EXT(NDK_ROCE_IETH) == NDK_ROCE_OPF_IETH, "");
_Static_assert(NDK_ROCE_OPF_EXT(NDK_ROCE_DETH) == NDK_ROCE_OPF_DETH, "");
_Static_assert(NDK_ROCE_OPF_EXT(NDK_ROCE_ATMETH) == NDK_ROCE_OPF_ATMETH, "");
_Static_assert(NDK_ROCE_OPF_EXT(NDK_ROCE_ATMACK) == NDK_ROCE_OPF_ATMACK, "");

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
	[(base) + 0x00] = { \
		.name = P "_SEND_FIRST", \
		.flags = F_REQ_SEND | NDK_ROCE_OPF_FIRST | (T), \
		.hdr_len = B, \
	}, \
	[(base) + 0x01] = { \
		.name = P "_SEND_MIDDLE", \
		.flags = F_REQ_SEND | NDK_ROCE_OPF_MIDDLE | (T), \
		.hdr_len = B, \
	}, \
	[(base) + 0x02] = { \
		.name = P "_SEND_LAST", \
		.flags = F_REQ_SEND | NDK_ROCE_OPF_LAST | (T), \
		.hdr_len = B, \
	}, \
	[(base) + 0x03] = { \
		.name = P "_SEND_LAST_WITH_IMMEDIATE", \
		.flags = F_REQ_SEND | NDK_ROCE_OPF_LAST | NDK_ROCE_OPF_IMMDT | \
			 (T), \
		.hdr_len = B + NDK_ROCE_IMMDT_LEN, \
		.offset = { [NDK_ROCE_IMMDT] = B }, \
	}, \
	[(base) + 0x04] = { \
		.name = P "_SEND_ONLY", \
		.flags = F_REQ_SEND | NDK_ROCE_OPF_ONLY | (T), \
		.hdr_len = B, \
	}, \
	[(base) + 0x05] = { \
		.name = P "_SEND_ONLY_WITH_IMMEDIATE", \
		.flags = F_REQ_SEND | NDK_ROCE_OPF_ONLY | NDK_ROCE_OPF_IMMDT | \
			 (T), \
		.hdr_len = B + NDK_ROCE_IMMDT_LEN, \
		.offset = { [NDK_ROCE_IMMDT] = B }, \
	}, \
	[(base) + 0x06] = { \
		.name = P "_RDMA_WRITE_FIRST", \
		.flags = F_REQ_WRITE | NDK_ROCE_OPF_FIRST | NDK_ROCE_OPF_RETH | \
			 (T), \
		.hdr_len = B + NDK_ROCE_RETH_LEN, \
		.offset = { [NDK_ROCE_RETH] = B }, \
	}, \
	[(base) + 0x07] = { \
		.name = P "_RDMA_WRITE_MIDDLE", \
		.flags = F_REQ_WRITE | NDK_ROCE_OPF_MIDDLE | (T), \
		.hdr_len = B, \
	}, \
	[(base) + 0x08] = { \
		.name = P "_RDMA_WRITE_LAST", \
		.flags = F_REQ_WRITE | NDK_ROCE_OPF_LAST | (T), \
		.hdr_len = B, \
	}, \
	[(base) + 0x09] = { \
		.name = P "_RDMA_WRITE_LAST_WITH_IMMEDIATE", \
		.flags = F_REQ_WRITE | NDK_ROCE_OPF_LAST | NDK_ROCE_OPF_IMMDT | \
			 (T), \
		.hdr_len = B + NDK_ROCE_IMMDT_LEN, \
		.offset = { [NDK_ROCE_IMMDT] = B }, \
	}, \
	[(base) + 0x0A] = { \
		.name = P "_RDMA_WRITE_ONLY", \
		.flags = F_REQ_WRITE | NDK_ROCE_OPF_ONLY | NDK_ROCE_OPF_RETH | \
			 (T), \
		.hdr_len = B + NDK_ROCE_RETH_LEN, \
		.offset = { [NDK_ROCE_RETH] = B }, \
	}, \
	[(base) + 0x0B] = { \
		.name = P "_RDMA_WRITE_ONLY_WITH_IMMEDIATE", \
		.flags = F_REQ_WRITE | NDK_ROCE_OPF_ONLY | NDK_ROCE_OPF_RETH | \
			 NDK_ROCE_OPF_IMMDT | (T), \
		.hdr_len = B + NDK_ROCE_RETH_LEN + NDK_ROCE_IMMDT_LEN, \
		.offset = { \
			[NDK_ROCE_RETH] = B, \
			[NDK_ROCE_IMMDT] = B + NDK_ROCE_RETH_LEN, \
		}, \
	}

#define RC NDK_ROCE_OPF_RC
#define UC NDK_ROCE_OPF_UC
#define UD NDK_ROCE_OPF_UD

/* Offsets not named are 0: the header is not there. */
const struct ndk_roce_opcode_info ndk_roce_opcode_table[256] = {
	SEND_WRITE_OPS(0x00, RC, "RC"),
	[NDK_ROCE_OP_RC_READ_REQUEST] = {
		.name = "RC_RDMA_READ_REQUEST",
		.flags = NDK_ROCE_OPF_VALID | NDK_ROCE_OPF_REQ |
			 NDK_ROCE_OPF_READ | NDK_ROCE_OPF_ONLY |
			 NDK_ROCE_OPF_RETH | RC,
		.hdr_len = B + NDK_ROCE_RETH_LEN,
		.offset = { [NDK_ROCE_RETH] = B },
	},
	[NDK_ROCE_OP_RC_READ_RESP_FIRST] = {
		.name = "RC_RDMA_READ_RESPONSE_FIRST",
		.flags = F_READ_RESP | NDK_ROCE_OPF_FIRST | NDK_ROCE_OPF_AETH |
			 RC,
		.hdr_len = B + NDK_ROCE_AETH_LEN,
		.offset = { [NDK_ROCE_AETH] = B },
	},
	[NDK_ROCE_OP_RC_READ_RESP_MIDDLE] = {
		.name = "RC_RDMA_READ_RESPONSE_MIDDLE",
		.flags = F_READ_RESP | NDK_ROCE_OPF_MIDDLE | RC,
		.hdr_len = B,
	},
	[NDK_ROCE_OP_RC_READ_RESP_LAST] = {
		.name = "RC_RDMA_READ_RESPONSE_LAST",
		.flags = F_READ_RESP | NDK_ROCE_OPF_LAST | NDK_ROCE_OPF_AETH |
			 RC,
		.hdr_len = B + NDK_ROCE_AETH_LEN,
		.offset = { [NDK_ROCE_AETH] = B },
	},
	[NDK_ROCE_OP_RC_READ_RESP_ONLY] = {
		.name = "RC_RDMA_READ_RESPONSE_ONLY",
		.flags = F_READ_RESP | NDK_ROCE_OPF_ONLY | NDK_ROCE_OPF_AETH |
			 RC,
		.hdr_len = B + NDK_ROCE_AETH_LEN,
		.offset = { [NDK_ROCE_AETH] = B },
	},
	[NDK_ROCE_OP_RC_ACK] = {
		.name = "RC_ACKNOWLEDGE",
		.flags = NDK_ROCE_OPF_VALID | NDK_ROCE_OPF_RESP |
			 NDK_ROCE_OPF_ONLY | NDK_ROCE_OPF_AETH | RC,
		.hdr_len = B + NDK_ROCE_AETH_LEN,
		.offset = { [NDK_ROCE_AETH] = B },
	},
	[NDK_ROCE_OP_RC_ATOMIC_ACK] = {
		.name = "RC_ATOMIC_ACKNOWLEDGE",
		.flags = NDK_ROCE_OPF_VALID | NDK_ROCE_OPF_RESP |
			 NDK_ROCE_OPF_ATOMIC | NDK_ROCE_OPF_ONLY |
			 NDK_ROCE_OPF_AETH | NDK_ROCE_OPF_ATMACK | RC,
		.hdr_len = B + NDK_ROCE_AETH_LEN + NDK_ROCE_ATMACK_LEN,
		.offset = {
			[NDK_ROCE_AETH] = B,
			[NDK_ROCE_ATMACK] = B + NDK_ROCE_AETH_LEN,
		},
	},
	[NDK_ROCE_OP_RC_CMP_SWAP] = {
		.name = "RC_COMPARE_SWAP",
		.flags = NDK_ROCE_OPF_VALID | NDK_ROCE_OPF_REQ |
			 NDK_ROCE_OPF_ATOMIC | NDK_ROCE_OPF_ONLY |
			 NDK_ROCE_OPF_ATMETH | RC,
		.hdr_len = B + NDK_ROCE_ATMETH_LEN,
		.offset = { [NDK_ROCE_ATMETH] = B },
	},
	[NDK_ROCE_OP_RC_FETCH_ADD] = {
		.name = "RC_FETCH_ADD",
		.flags = NDK_ROCE_OPF_VALID | NDK_ROCE_OPF_REQ |
			 NDK_ROCE_OPF_ATOMIC | NDK_ROCE_OPF_ONLY |
			 NDK_ROCE_OPF_ATMETH | RC,
		.hdr_len = B + NDK_ROCE_ATMETH_LEN,
		.offset = { [NDK_ROCE_ATMETH] = B },
	},
	[NDK_ROCE_OP_RC_SEND_LAST_INV] = {
		.name = "RC_SEND_LAST_WITH_INVALIDATE",
		.flags = F_REQ_SEND | NDK_ROCE_OPF_LAST | NDK_ROCE_OPF_IETH | RC,
		.hdr_len = B + NDK_ROCE_IETH_LEN,
		.offset = { [NDK_ROCE_IETH] = B },
	},
	[NDK_ROCE_OP_RC_SEND_ONLY_INV] = {
		.name = "RC_SEND_ONLY_WITH_INVALIDATE",
		.flags = F_REQ_SEND | NDK_ROCE_OPF_ONLY | NDK_ROCE_OPF_IETH | RC,
		.hdr_len = B + NDK_ROCE_IETH_LEN,
		.offset = { [NDK_ROCE_IETH] = B },
	},

	SEND_WRITE_OPS(0x20, UC, "UC"),

	[NDK_ROCE_OP_UD_SEND_ONLY] = {
		.name = "UD_SEND_ONLY",
		.flags = F_REQ_SEND | NDK_ROCE_OPF_ONLY | NDK_ROCE_OPF_DETH | UD,
		.hdr_len = B + NDK_ROCE_DETH_LEN,
		.offset = { [NDK_ROCE_DETH] = B },
	},
	[NDK_ROCE_OP_UD_SEND_ONLY_IMM] = {
		.name = "UD_SEND_ONLY_WITH_IMMEDIATE",
		.flags = F_REQ_SEND | NDK_ROCE_OPF_ONLY | NDK_ROCE_OPF_DETH |
			 NDK_ROCE_OPF_IMMDT | UD,
		.hdr_len = B + NDK_ROCE_DETH_LEN + NDK_ROCE_IMMDT_LEN,
		.offset = {
			[NDK_ROCE_DETH] = B,
			[NDK_ROCE_IMMDT] = B + NDK_ROCE_DETH_LEN,
		},
	},

	/* Congestion Notification Packet: BTH + 16 reserved bytes. */
	[NDK_ROCE_OP_CNP] = {
		.name = "CNP",
		.flags = NDK_ROCE_OPF_VALID,
		.hdr_len = B + 16,
	},

	/* ndk-roce's selective acknowledgement: BTH + AETH + bitmap. */
	[NDK_ROCE_OP_NDK_SACK] = {
		.name = "RC_NDK_SACK",
		.flags = NDK_ROCE_OPF_VALID | NDK_ROCE_OPF_RESP |
			 NDK_ROCE_OPF_ONLY | NDK_ROCE_OPF_AETH | RC,
		.hdr_len = B + NDK_ROCE_AETH_LEN + NDK_ROCE_SACK_LEN,
		.offset = { [NDK_ROCE_AETH] = B },
	},
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
	unsigned int b;

	/*
	 * The largest entry <= n without a search: codes 0 to 4 count 0 to
	 * 4, and from 4 on code 2b is 2^b and code 2b + 1 is 3 * 2^(b - 1),
	 * so n's highest bit (b) and the bit below it give the code.
	 */
	if (n < 4)
		return (uint8_t)n;
	if (n >= credit_table[NDK_ROCE_AETH_CREDIT_INVALID - 1])
		return NDK_ROCE_AETH_CREDIT_INVALID - 1;
	b = 31 - (unsigned int)__builtin_clz(n);
	return (uint8_t)(2 * b + ((n >> (b - 1)) & 1));
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
