/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_ROCE_H
#define NDK_ROCE_H

/**
 * @file
 * RoCEv2 wire format: InfiniBand transport headers carried in UDP 4791 over
 * IPv4 or IPv6.
 *
 * Everything here is pure: header layouts and accessors, the per-opcode
 * table, 24-bit PSN arithmetic, the invariant CRC and Ethernet/IP/UDP
 * framing. Nothing calls ethdev, so the RC engines built on it can be tested
 * without a NIC. All multi-byte wire fields are big-endian; accessors take
 * and return host order.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#ifdef __cplusplus
extern "C" {
#endif

/** UDP destination port of RoCEv2. */
#define NDK_ROCE_UDP_PORT 4791
/** Lowest UDP source port used for flow entropy. */
#define NDK_ROCE_SPORT_MIN 0xC000

/** Header sizes in bytes. */
#define NDK_ROCE_BTH_LEN 12
#define NDK_ROCE_RETH_LEN 16
#define NDK_ROCE_AETH_LEN 4
#define NDK_ROCE_IMMDT_LEN 4
#define NDK_ROCE_IETH_LEN 4
#define NDK_ROCE_DETH_LEN 8
#define NDK_ROCE_ATMETH_LEN 28
#define NDK_ROCE_ATMACK_LEN 8
#define NDK_ROCE_ICRC_LEN 4
/** Ethernet + IPv4 (no options) + UDP. */
#define NDK_ROCE_L2L4_LEN (RTE_ETHER_HDR_LEN + 20 + 8)
/** Ethernet + IPv6 (no extension headers) + UDP. */
#define NDK_ROCE_L2L4_LEN6 (RTE_ETHER_HDR_LEN + 40 + 8)
/** The longer of the two. */
#define NDK_ROCE_L2L4_MAX NDK_ROCE_L2L4_LEN6
/** Largest transport header (BTH + extension headers) of any opcode. */
#define NDK_ROCE_MAX_TRANSPORT_HDR 64
/** Frame overhead of an RC packet beyond its payload, worst case. */
#define NDK_ROCE_MAX_OVERHEAD \
	(NDK_ROCE_L2L4_MAX + NDK_ROCE_MAX_TRANSPORT_HDR + 3 + NDK_ROCE_ICRC_LEN)

/** 24-bit field masks. */
#define NDK_ROCE_PSN_MASK 0xFFFFFFu
#define NDK_ROCE_QPN_MASK 0xFFFFFFu
#define NDK_ROCE_MSN_MASK 0xFFFFFFu

/** Transport opcodes (BTH byte 0). */
enum ndk_roce_opcode {
	NDK_ROCE_OP_RC_SEND_FIRST = 0x00,
	NDK_ROCE_OP_RC_SEND_MIDDLE = 0x01,
	NDK_ROCE_OP_RC_SEND_LAST = 0x02,
	NDK_ROCE_OP_RC_SEND_LAST_IMM = 0x03,
	NDK_ROCE_OP_RC_SEND_ONLY = 0x04,
	NDK_ROCE_OP_RC_SEND_ONLY_IMM = 0x05,
	NDK_ROCE_OP_RC_WRITE_FIRST = 0x06,
	NDK_ROCE_OP_RC_WRITE_MIDDLE = 0x07,
	NDK_ROCE_OP_RC_WRITE_LAST = 0x08,
	NDK_ROCE_OP_RC_WRITE_LAST_IMM = 0x09,
	NDK_ROCE_OP_RC_WRITE_ONLY = 0x0A,
	NDK_ROCE_OP_RC_WRITE_ONLY_IMM = 0x0B,
	NDK_ROCE_OP_RC_READ_REQUEST = 0x0C,
	NDK_ROCE_OP_RC_READ_RESP_FIRST = 0x0D,
	NDK_ROCE_OP_RC_READ_RESP_MIDDLE = 0x0E,
	NDK_ROCE_OP_RC_READ_RESP_LAST = 0x0F,
	NDK_ROCE_OP_RC_READ_RESP_ONLY = 0x10,
	NDK_ROCE_OP_RC_ACK = 0x11,
	NDK_ROCE_OP_RC_ATOMIC_ACK = 0x12,
	NDK_ROCE_OP_RC_CMP_SWAP = 0x13,
	NDK_ROCE_OP_RC_FETCH_ADD = 0x14,
	NDK_ROCE_OP_RC_SEND_LAST_INV = 0x16,
	NDK_ROCE_OP_RC_SEND_ONLY_INV = 0x17,
	NDK_ROCE_OP_UC_SEND_FIRST = 0x20,
	NDK_ROCE_OP_UC_SEND_MIDDLE = 0x21,
	NDK_ROCE_OP_UC_SEND_LAST = 0x22,
	NDK_ROCE_OP_UC_SEND_LAST_IMM = 0x23,
	NDK_ROCE_OP_UC_SEND_ONLY = 0x24,
	NDK_ROCE_OP_UC_SEND_ONLY_IMM = 0x25,
	NDK_ROCE_OP_UC_WRITE_FIRST = 0x26,
	NDK_ROCE_OP_UC_WRITE_MIDDLE = 0x27,
	NDK_ROCE_OP_UC_WRITE_LAST = 0x28,
	NDK_ROCE_OP_UC_WRITE_LAST_IMM = 0x29,
	NDK_ROCE_OP_UC_WRITE_ONLY = 0x2A,
	NDK_ROCE_OP_UC_WRITE_ONLY_IMM = 0x2B,
	NDK_ROCE_OP_UD_SEND_ONLY = 0x64,
	NDK_ROCE_OP_UD_SEND_ONLY_IMM = 0x65,
	NDK_ROCE_OP_CNP = 0x81,
	/**
	 * ndk-roce's selective acknowledgement (a manufacturer-specific
	 * opcode, 0xC0-0xFF in IBA): BTH (PSN: the first request missing),
	 * AETH (a PSN sequence NAK) and NDK_ROCE_SACK_LEN bytes, bit j (byte
	 * j / 8, bit j % 8 from the least significant) set when the request
	 * at PSN + j arrived and is kept. Sent only to a peer that negotiated
	 * selective repeat (NDK_ROCE_ECE_SR_OFFER).
	 */
	NDK_ROCE_OP_NDK_SACK = 0xC0,
};

/** Opcode properties (bit set in ndk_roce_opcode_info::flags). */
enum ndk_roce_opf {
	NDK_ROCE_OPF_VALID = 1u << 0,   /**< opcode is defined */
	NDK_ROCE_OPF_RETH = 1u << 1,    /**< carries RETH */
	NDK_ROCE_OPF_AETH = 1u << 2,    /**< carries AETH */
	NDK_ROCE_OPF_IMMDT = 1u << 3,   /**< carries ImmDt */
	NDK_ROCE_OPF_IETH = 1u << 4,    /**< carries IETH */
	NDK_ROCE_OPF_DETH = 1u << 5,    /**< carries DETH */
	NDK_ROCE_OPF_ATMETH = 1u << 6,  /**< carries AtomicETH */
	NDK_ROCE_OPF_ATMACK = 1u << 7,  /**< carries AtomicAckETH */
	NDK_ROCE_OPF_PAYLOAD = 1u << 8, /**< may carry payload */
	NDK_ROCE_OPF_FIRST = 1u << 9,   /**< first packet of a message */
	NDK_ROCE_OPF_MIDDLE = 1u << 10, /**< middle packet */
	NDK_ROCE_OPF_LAST = 1u << 11,   /**< last packet of a message */
	NDK_ROCE_OPF_REQ = 1u << 12,    /**< request (handled by a responder) */
	NDK_ROCE_OPF_RESP = 1u << 13,   /**< response/ACK (handled by a completer) */
	NDK_ROCE_OPF_SEND = 1u << 14,   /**< SEND family (consumes a receive) */
	NDK_ROCE_OPF_WRITE = 1u << 15,  /**< RDMA WRITE family */
	NDK_ROCE_OPF_READ = 1u << 16,   /**< READ request or READ response */
	NDK_ROCE_OPF_ATOMIC = 1u << 17, /**< atomic request or atomic ACK */
	NDK_ROCE_OPF_RC = 1u << 18,     /**< reliable connected transport */
	NDK_ROCE_OPF_UC = 1u << 19,     /**< unreliable connected transport */
	NDK_ROCE_OPF_UD = 1u << 20,     /**< unreliable datagram transport */
	NDK_ROCE_OPF_ONLY = NDK_ROCE_OPF_FIRST | NDK_ROCE_OPF_LAST,
};

/**
 * Extension headers that may follow the BTH: the index of
 * ndk_roce_opcode_info::offset. Header NDK_ROCE_x is there when the
 * opcode's flags have NDK_ROCE_OPF_x, which is NDK_ROCE_OPF_EXT(NDK_ROCE_x).
 */
enum ndk_roce_ext {
	NDK_ROCE_RETH = 0,  /**< RDMA ETH (16 bytes) */
	NDK_ROCE_AETH,      /**< ACK ETH (4) */
	NDK_ROCE_IMMDT,     /**< Immediate Data (4) */
	NDK_ROCE_IETH,      /**< Invalidate ETH (4) */
	NDK_ROCE_DETH,      /**< Datagram ETH (8) */
	NDK_ROCE_ATMETH,    /**< Atomic ETH (28) */
	NDK_ROCE_ATMACK,    /**< Atomic Acknowledge ETH (8) */
	NDK_ROCE_NUM_EXT
};

/** The enum ndk_roce_opf flag of extension header @p ext. */
#define NDK_ROCE_OPF_EXT(ext) (NDK_ROCE_OPF_RETH << (ext))

/** Per-opcode description: which headers follow the BTH and where. */
struct ndk_roce_opcode_info {
	const char *name;  /**< IBA name, e.g. "RC_RDMA_READ_RESPONSE_FIRST" */
	uint32_t flags;    /**< enum ndk_roce_opf bits; 0 for undefined opcodes */
	uint8_t hdr_len;   /**< BTH + all extension headers, bytes */
	/**
	 * Offset of each extension header from the BTH start, by enum
	 * ndk_roce_ext; valid if its NDK_ROCE_OPF_EXT() flag is set, 0 if not.
	 */
	uint8_t offset[NDK_ROCE_NUM_EXT];
};

/** Table of all 256 opcodes, indexed by BTH opcode. */
extern const struct ndk_roce_opcode_info ndk_roce_opcode_table[256];

/** @return the description of @p opcode (flags 0 when undefined). */
static inline const struct ndk_roce_opcode_info *
ndk_roce_opcode(uint8_t opcode)
{
	return &ndk_roce_opcode_table[opcode];
}

/* ------------------------------------------------------------------ */
/* Base Transport Header                                               */
/* ------------------------------------------------------------------ */

/** BTH as on the wire. */
struct ndk_roce_bth {
	uint8_t opcode;
	uint8_t flags;     /**< SE(7) M(6) PadCnt(5:4) TVer(3:0) */
	rte_be16_t pkey;
	rte_be32_t qpn;    /**< FECN(31) BECN(30) resv(29:24) DestQP(23:0) */
	rte_be32_t apsn;   /**< AckReq(31) resv(30:24) PSN(23:0) */
} __rte_packed;

#define NDK_ROCE_BTH_SE 0x80
#define NDK_ROCE_BTH_MIG 0x40
#define NDK_ROCE_BTH_PAD_SHIFT 4
#define NDK_ROCE_BTH_PAD_MASK 0x30
#define NDK_ROCE_BTH_TVER_MASK 0x0F
#define NDK_ROCE_BTH_FECN (1u << 31)
#define NDK_ROCE_BTH_BECN (1u << 30)
#define NDK_ROCE_BTH_ACKREQ (1u << 31)
#define NDK_ROCE_PKEY_DEFAULT 0xFFFF

static inline uint8_t
ndk_roce_bth_padcnt(const struct ndk_roce_bth *b)
{
	return (b->flags & NDK_ROCE_BTH_PAD_MASK) >> NDK_ROCE_BTH_PAD_SHIFT;
}

static inline bool
ndk_roce_bth_se(const struct ndk_roce_bth *b)
{
	return (b->flags & NDK_ROCE_BTH_SE) != 0;
}

static inline uint32_t
ndk_roce_bth_qpn(const struct ndk_roce_bth *b)
{
	return rte_be_to_cpu_32(b->qpn) & NDK_ROCE_QPN_MASK;
}

static inline uint32_t
ndk_roce_bth_psn(const struct ndk_roce_bth *b)
{
	return rte_be_to_cpu_32(b->apsn) & NDK_ROCE_PSN_MASK;
}

static inline bool
ndk_roce_bth_ackreq(const struct ndk_roce_bth *b)
{
	return (rte_be_to_cpu_32(b->apsn) & NDK_ROCE_BTH_ACKREQ) != 0;
}

/**
 * Fill a BTH. @p padcnt 0..3, @p se solicited event, @p ackreq AckReq bit.
 * P_Key is the default 0xFFFF, TVer 0, FECN/BECN 0.
 */
static inline void
ndk_roce_bth_set(struct ndk_roce_bth *b, uint8_t opcode, bool se,
		 uint8_t padcnt, uint32_t qpn, bool ackreq, uint32_t psn)
{
	b->opcode = opcode;
	b->flags = (se ? NDK_ROCE_BTH_SE : 0) |
		   ((padcnt << NDK_ROCE_BTH_PAD_SHIFT) & NDK_ROCE_BTH_PAD_MASK);
	b->pkey = RTE_BE16(NDK_ROCE_PKEY_DEFAULT);
	b->qpn = rte_cpu_to_be_32(qpn & NDK_ROCE_QPN_MASK);
	b->apsn = rte_cpu_to_be_32((ackreq ? NDK_ROCE_BTH_ACKREQ : 0) |
				   (psn & NDK_ROCE_PSN_MASK));
}

/* ------------------------------------------------------------------ */
/* Extension headers                                                   */
/* ------------------------------------------------------------------ */

/** RDMA Extended Transport Header. */
struct ndk_roce_reth {
	rte_be64_t va;
	rte_be32_t rkey;
	rte_be32_t len;  /**< DMA length of the whole message */
} __rte_packed;

/** ACK Extended Transport Header. */
struct ndk_roce_aeth {
	rte_be32_t smsn; /**< Syndrome(31:24) MSN(23:0) */
} __rte_packed;

/** Invalidate Extended Transport Header. */
struct ndk_roce_ieth {
	rte_be32_t rkey;
} __rte_packed;

/** Immediate data. */
struct ndk_roce_immdt {
	rte_be32_t imm;
} __rte_packed;

/** Datagram Extended Transport Header (UD). */
struct ndk_roce_deth {
	rte_be32_t qkey;
	rte_be32_t sqp;  /**< resv(31:24) SrcQP(23:0) */
} __rte_packed;

/** Q_Key of the General Services Interface (QP1). */
#define NDK_ROCE_GSI_QKEY 0x80010000u

/** AETH syndrome classes (bits 6:5) and values. */
#define NDK_ROCE_AETH_TYPE_MASK 0x60
#define NDK_ROCE_AETH_ACK 0x00
#define NDK_ROCE_AETH_RNR_NAK 0x20
#define NDK_ROCE_AETH_NAK 0x60
#define NDK_ROCE_AETH_VALUE_MASK 0x1F
/** "Credits invalid" code: the responder does not advertise credits. */
#define NDK_ROCE_AETH_CREDIT_INVALID 0x1F

/** NAK codes (syndrome bits 4:0 when the type is NAK). */
enum ndk_roce_nak_code {
	NDK_ROCE_NAK_PSN_SEQ = 0,
	NDK_ROCE_NAK_INVALID_REQUEST = 1,
	NDK_ROCE_NAK_REMOTE_ACCESS = 2,
	NDK_ROCE_NAK_REMOTE_OP = 3,
	NDK_ROCE_NAK_INVALID_RD = 4,
};

static inline uint8_t
ndk_roce_aeth_syndrome(const struct ndk_roce_aeth *a)
{
	return rte_be_to_cpu_32(a->smsn) >> 24;
}

static inline uint32_t
ndk_roce_aeth_msn(const struct ndk_roce_aeth *a)
{
	return rte_be_to_cpu_32(a->smsn) & NDK_ROCE_MSN_MASK;
}

static inline void
ndk_roce_aeth_set(struct ndk_roce_aeth *a, uint8_t syndrome, uint32_t msn)
{
	a->smsn = rte_cpu_to_be_32(((uint32_t)syndrome << 24) |
				   (msn & NDK_ROCE_MSN_MASK));
}

/**
 * Encode a count of available receive WQEs as an AETH credit code
 * (the largest table entry not above @p n).
 */
uint8_t ndk_roce_credits_encode(uint32_t n);

/** Decode a credit code; returns UINT32_MAX for the invalid code 0x1F. */
uint32_t ndk_roce_credits_decode(uint8_t code);

/** RNR NAK timer code to microseconds (code 0 is 655.36 ms). */
uint32_t ndk_roce_rnr_timer_us(uint8_t code);

/** Path MTU enum (IBA): 1=256 ... 5=4096. */
enum ndk_roce_mtu {
	NDK_ROCE_MTU_256 = 1,
	NDK_ROCE_MTU_512 = 2,
	NDK_ROCE_MTU_1024 = 3,
	NDK_ROCE_MTU_2048 = 4,
	NDK_ROCE_MTU_4096 = 5,
};

/** @return bytes of @p mtu, 0 if invalid. */
static inline uint32_t
ndk_roce_mtu_bytes(enum ndk_roce_mtu mtu)
{
	return (mtu >= NDK_ROCE_MTU_256 && mtu <= NDK_ROCE_MTU_4096) ?
		128u << mtu : 0;
}

/** @return the enum for an exact byte count (256..4096), 0 if none. */
static inline enum ndk_roce_mtu
ndk_roce_mtu_from_bytes(uint32_t bytes)
{
	for (int m = NDK_ROCE_MTU_256; m <= NDK_ROCE_MTU_4096; m++)
		if ((128u << m) == bytes)
			return (enum ndk_roce_mtu)m;
	return (enum ndk_roce_mtu)0;
}

/* ------------------------------------------------------------------ */
/* 24-bit PSN arithmetic                                               */
/* ------------------------------------------------------------------ */

/** @return (psn + n) mod 2^24. */
static inline uint32_t
ndk_roce_psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & NDK_ROCE_PSN_MASK;
}

/**
 * Signed distance a - b in the 24-bit PSN space, in [-2^23, 2^23):
 * > 0 when @p a is after @p b, 0 when equal, < 0 when before.
 */
static inline int32_t
ndk_roce_psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

/* ------------------------------------------------------------------ */
/* Invariant CRC                                                       */
/* ------------------------------------------------------------------ */

/**
 * Update a reflected CRC-32 (IEEE 802.3 polynomial) register with @p len
 * bytes. The register is used as is: start from 0xFFFFFFFF and complement
 * the final value to get the standard (zlib) CRC-32. Uses carry-less
 * multiplication when the CPU has it, a slice-by-8 table otherwise.
 */
uint32_t ndk_roce_crc32_update(uint32_t crc, const void *buf, size_t len);

/** Table-only variant of ndk_roce_crc32_update() (reference, tests). */
uint32_t ndk_roce_crc32_update_sw(uint32_t crc, const void *buf, size_t len);

/** CRC-32 implementations behind ndk_roce_crc32_update(). */
enum ndk_roce_crc_impl {
	NDK_ROCE_CRC_TABLE,   /**< slice-by-8 tables, everywhere */
	NDK_ROCE_CRC_PCLMUL,  /**< 4 x 128-bit PCLMULQDQ folding (x86-64) */
	/** The same folding in AVX's three-operand encoding (no copies). */
	NDK_ROCE_CRC_PCLMUL_AVX,
	NDK_ROCE_CRC_VPCLMUL, /**< 4 x 256-bit VPCLMULQDQ folding (AVX2) */
	NDK_ROCE_CRC_IMPL_MAX,
};

/** Whether this CPU runs @p impl (checked with rte_cpu_get_flag_enabled). */
bool ndk_roce_crc32_impl_supported(enum ndk_roce_crc_impl impl);

/** Short name of @p impl, for logs and benchmarks. */
const char *ndk_roce_crc32_impl_name(enum ndk_roce_crc_impl impl);

/** The implementation ndk_roce_crc32_update() uses: the fastest supported. */
enum ndk_roce_crc_impl ndk_roce_crc32_impl(void);

/**
 * ndk_roce_crc32_update() with a given implementation (tests, benchmarks);
 * one the CPU does not support falls back to the table.
 */
uint32_t ndk_roce_crc32_update_impl(enum ndk_roce_crc_impl impl, uint32_t crc,
				    const void *buf, size_t len);

/**
 * Copy @p len bytes from @p src to @p dst (not overlapping) and update the
 * CRC-32 register with them, reading the data once: the same result as
 * memcpy() then ndk_roce_crc32_update().
 */
uint32_t ndk_roce_crc32_copy(uint32_t crc, void *dst, const void *src,
			     size_t len);

/** ndk_roce_crc32_copy() with a given implementation (tests). */
uint32_t ndk_roce_crc32_copy_impl(enum ndk_roce_crc_impl impl, uint32_t crc,
				  void *dst, const void *src, size_t len);

/**
 * Start the ICRC of a packet written piecewise: the CRC-32 register after
 * the masked pseudo-LRH and the first @p len bytes from @p l3 (which must
 * hold at least the IP header, UDP header and BTH, masked as the spec
 * says: IPv4 TOS, TTL and checksum, or IPv6 traffic class, flow label and
 * hop limit; the UDP checksum; BTH byte 4). Continue with ndk_roce_crc32_update() or ndk_roce_crc32_copy()
 * over the rest of the packet up to the ICRC (payload and pad); the ICRC
 * is the complement of the final register, as ndk_roce_icrc_buf() returns.
 */
uint32_t ndk_roce_icrc_start(const void *l3, size_t len);

/**
 * ndk_roce_icrc_start() with @p headroom readable bytes before @p l3, read
 * as ndk_roce_icrc_frame() reads a packet: the headers of an IPv4 packet
 * in whole lanes, without a masked copy.
 */
uint32_t ndk_roce_icrc_start_frame(const void *l3, size_t len,
				   size_t headroom);

/**
 * ICRC of a RoCEv2 packet held in a flat buffer.
 *
 * @param l3   IPv4 or IPv6 header start (the version nibble tells which).
 * @param len  bytes from @p l3 up to, not including, the ICRC.
 * @return the ICRC value; its little-endian encoding is the 4 wire bytes.
 */
uint32_t ndk_roce_icrc_buf(const void *l3, size_t len);

/**
 * ndk_roce_icrc_buf() for a packet with @p headroom readable bytes before
 * @p l3 (a frame's Ethernet header: 14). An IPv4 packet without options
 * (from 40 bytes on) is then read as whole 16-byte lanes that end at its
 * end, the first starting up to 15 bytes before @p l3 (bytes that do not
 * count): no masked copy, no tail step, one final reduction.
 */
uint32_t ndk_roce_icrc_frame(const void *l3, size_t len, size_t headroom);

/**
 * ICRC of a RoCEv2 packet in a (possibly multi-segment) mbuf. Headers up to
 * the end of the BTH must lie in the first segment.
 *
 * @param l3_off offset of the IP header in the packet.
 * @param len    bytes from the IP header up to, not including, the ICRC.
 */
uint32_t ndk_roce_icrc_mbuf(const struct rte_mbuf *m, uint32_t l3_off,
			    uint32_t len);

/* ------------------------------------------------------------------ */
/* Ethernet / IP / UDP framing                                         */
/* ------------------------------------------------------------------ */

/**
 * Precomputed Ethernet + IP + UDP header of one flow (one QP): only the
 * lengths and the IPv4 checksum change per packet.
 */
struct ndk_roce_l2l4 {
	uint8_t hdr[NDK_ROCE_L2L4_MAX];
	uint32_t csum_base; /**< IPv4 checksum partial sum without total length */
	uint8_t len;        /**< NDK_ROCE_L2L4_LEN, or _LEN6 for IPv6 */
	bool ipv6;          /**< IPv6 header */
};

/**
 * Prepare a header template.
 * @param sip, dip  IPv4 addresses, network byte order.
 * @param sport     UDP source port (host order), see ndk_roce_udp_sport().
 * @param tos       IPv4 TOS byte (DSCP << 2 | ECN).
 * @param ttl       IPv4 TTL.
 */
void ndk_roce_l2l4_init(struct ndk_roce_l2l4 *t,
			const struct rte_ether_addr *src,
			const struct rte_ether_addr *dst,
			rte_be32_t sip, rte_be32_t dip, uint16_t sport,
			uint8_t tos, uint8_t ttl);

/**
 * Prepare an IPv6 header template: next header UDP, no extension headers.
 * @param sip, dip     IPv6 addresses (16 bytes, network order).
 * @param sport        UDP source port (host order).
 * @param tclass       traffic class (DSCP << 2 | ECN).
 * @param flow_label   20-bit flow label (rxe sends 0).
 * @param hop_limit    hop limit.
 */
void ndk_roce_l2l4_init6(struct ndk_roce_l2l4 *t,
			 const struct rte_ether_addr *src,
			 const struct rte_ether_addr *dst,
			 const uint8_t sip[16], const uint8_t dip[16],
			 uint16_t sport, uint8_t tclass, uint32_t flow_label,
			 uint8_t hop_limit);

/**
 * Write the template at @p frame with the lengths of a UDP payload of
 * @p udp_payload bytes (BTH .. ICRC inclusive) and, for IPv4, a valid
 * header checksum. The UDP checksum is 0 on both IP versions: RoCEv2
 * protects the packet with the ICRC, and rxe sends and accepts 0 on IPv6
 * too (its IPv6 UDP socket does not require checksums).
 * @return pointer to where the BTH goes (frame + t->len).
 */
uint8_t *ndk_roce_l2l4_write(const struct ndk_roce_l2l4 *t, uint8_t *frame,
			     uint16_t udp_payload);

/**
 * Ethernet + IP + UDP bytes of a frame this library built (untagged):
 * NDK_ROCE_L2L4_LEN6 if its EtherType is IPv6, else NDK_ROCE_L2L4_LEN.
 */
static inline uint32_t
ndk_roce_frame_l2l4_len(const uint8_t *frame)
{
	return frame[12] == 0x86 && frame[13] == 0xDD ? NDK_ROCE_L2L4_LEN6 :
		NDK_ROCE_L2L4_LEN;
}

/** UDP source port for a connection (symmetric in the two QPNs). */
uint16_t ndk_roce_udp_sport(uint32_t lqpn, uint32_t rqpn);

/** Why a received frame was not accepted by ndk_roce_parse(). */
enum ndk_roce_parse_err {
	NDK_ROCE_PARSE_OK = 0,
	NDK_ROCE_PARSE_NOT_IPV4,     /**< neither IPv4 nor IPv6 (ARP...) */
	NDK_ROCE_PARSE_NOT_ROCE,     /**< IP but not UDP/4791 (ICMPv6...) */
	NDK_ROCE_PARSE_TRUNCATED,    /**< shorter than its headers claim */
	NDK_ROCE_PARSE_BAD_IP,       /**< bad version/IHL/length/fragment */
	NDK_ROCE_PARSE_BAD_UDP,      /**< UDP length inconsistent */
	NDK_ROCE_PARSE_BAD_OPCODE,   /**< undefined or unsupported opcode */
	NDK_ROCE_PARSE_BAD_BTH,      /**< TVer != 0 or bad pad count */
	NDK_ROCE_PARSE_BAD_ICRC,     /**< ICRC mismatch */
	NDK_ROCE_PARSE_ERR_MAX,
};

/** Name of a parse error for logs and counters. */
const char *ndk_roce_parse_err_str(enum ndk_roce_parse_err e);

/** A received RoCEv2 packet, parsed in place. */
struct ndk_roce_pkt {
	struct rte_mbuf *m;
	const struct ndk_roce_opcode_info *op;
	const struct ndk_roce_bth *bth; /**< in the first segment */
	rte_be32_t sip, dip;            /**< IPv4, network order; 0 on IPv6 */
	const uint8_t *sip6;            /**< IPv6 source (in the header), */
	const uint8_t *dip6;            /**< destination; NULL on IPv4 */
	uint8_t opcode;
	uint8_t padcnt;
	bool se;
	bool ackreq;
	uint32_t qpn;
	uint32_t psn;
	uint32_t l3_off;                /**< IP header offset in the packet */
	uint32_t payload_off;           /**< payload offset in the packet */
	uint32_t payload_len;           /**< payload bytes, pad and ICRC excluded */
};

/**
 * Parse and validate a frame: Ethernet (optionally one 802.1Q tag), IPv4
 * without fragmentation or IPv6 whose next header is UDP (no extension
 * headers), UDP to port 4791 (any UDP checksum: the ICRC covers the packet), BTH with a defined opcode, lengths
 * that hold every header, pad and ICRC, and (if @p check_icrc) the ICRC.
 * @return NDK_ROCE_PARSE_OK or the reason the frame is not a valid packet.
 */
enum ndk_roce_parse_err ndk_roce_parse(struct rte_mbuf *m,
				       struct ndk_roce_pkt *p,
				       bool check_icrc);

/** Pointer to an extension header of a parsed packet (first segment). */
static inline const void *
ndk_roce_pkt_ext(const struct ndk_roce_pkt *p, uint8_t off)
{
	return (const uint8_t *)p->bth + off;
}

/**
 * ndk_roce_pkt_icrc_ok() of a packet whose ICRC is not in its first
 * segment.
 */
bool ndk_roce_pkt_icrc_ok_chain(const struct ndk_roce_pkt *p);

/**
 * True if the ICRC of a parsed packet matches (parse(..., true) checks it).
 * Inline: a frame in one segment (every small one) is read in place.
 */
static inline bool
ndk_roce_pkt_icrc_ok(const struct ndk_roce_pkt *p)
{
	const struct rte_mbuf *m = p->m;
	uint32_t off = p->payload_off + p->payload_len + p->padcnt;

	if (likely(off + NDK_ROCE_ICRC_LEN <= m->data_len)) {
		const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
		uint32_t wire;

		memcpy(&wire, f + off, sizeof(wire));
		return rte_le_to_cpu_32(wire) == ndk_roce_icrc_frame(
			f + p->l3_off, off - p->l3_off,
			(size_t)rte_pktmbuf_headroom(m) + p->l3_off);
	}
	return ndk_roce_pkt_icrc_ok_chain(p);
}

/*
 * Checking the ICRC while the payload is copied out (one pass over it): a
 * receiver that parsed without the check starts with
 * ndk_roce_pkt_icrc_hdr(), continues with ndk_roce_crc32_copy_mbuf() over
 * the payload in order (in as many pieces as its destination needs) and
 * ends with ndk_roce_pkt_icrc_end(). The destination holds the payload
 * before the packet is known to be intact: only memory the receiver owns
 * and may hold garbage until it accepts the packet may be used.
 */

/**
 * The ICRC register of parsed packet @p p after its headers (masked IP,
 * UDP, BTH and extension headers, up to the payload).
 */
uint32_t ndk_roce_pkt_icrc_hdr(const struct ndk_roce_pkt *p);

/**
 * Finish the check: @p crc is the register after the headers and the
 * whole payload; the pad bytes are added here.
 * @return true if the packet's ICRC matches.
 */
bool ndk_roce_pkt_icrc_end(const struct ndk_roce_pkt *p, uint32_t crc);

/**
 * Copy the payload of @p p to @p dst (payload_len bytes) and check the
 * ICRC in the same pass.
 * @return true if the ICRC matches; false: @p dst holds the (corrupted)
 * payload anyway.
 */
bool ndk_roce_pkt_copy_check(const struct ndk_roce_pkt *p, void *dst);

/**
 * Copy @p len bytes at packet offset @p off (possibly spanning segments)
 * to @p dst and update CRC-32 register @p crc with them in the same pass,
 * as ndk_roce_mbuf_copy_out() then ndk_roce_crc32_update() would.
 * @return the updated register.
 */
uint32_t ndk_roce_crc32_copy_mbuf(uint32_t crc, void *dst,
				  const struct rte_mbuf *m, uint32_t off,
				  uint32_t len);

/** ndk_roce_crc32_copy_mbuf() with a given implementation (tests). */
uint32_t ndk_roce_crc32_copy_mbuf_impl(enum ndk_roce_crc_impl impl,
				       uint32_t crc, void *dst,
				       const struct rte_mbuf *m, uint32_t off,
				       uint32_t len);

/**
 * Copy @p len bytes at packet offset @p off (possibly spanning segments)
 * to @p dst. The range must lie inside the packet.
 */
void ndk_roce_mbuf_copy_out(const struct rte_mbuf *m, uint32_t off,
			    void *dst, uint32_t len);

/* ------------------------------------------------------------------ */
/* Management datagrams and the communication manager (QP1)            */
/* ------------------------------------------------------------------ */

/*
 * IB CM messages (IBTA vol. 1 ch. 12) travel as 256-byte MADs in UD
 * SEND_ONLY packets to QP1 with the GSI Q_Key. The codec below turns the
 * CM attributes of RC connections (REQ, MRA, REJ, REP, RTU, DREQ, DREP)
 * into a host-order structure and back. It touches no packet buffer, and
 * is tested against frames captured from Linux rxe. RDMA-CM's IP
 * addressing (IBTA Annex A11) adds a service ID per TCP port and a 36-byte
 * header in front of the REQ's private data.
 */

/** PSNs a selective acknowledgement (NDK_ROCE_OP_NDK_SACK) covers. */
#define NDK_ROCE_SACK_BITS 256
/** Bytes of its bitmap, after the AETH. */
#define NDK_ROCE_SACK_LEN (NDK_ROCE_SACK_BITS / 8)

/** QP number of the General Services Interface. */
#define NDK_ROCE_GSI_QPN 1
/** A MAD is always this long. */
#define NDK_ROCE_MAD_LEN 256
/** Common MAD header. */
#define NDK_ROCE_MAD_HDR_LEN 24
/** MAD base version. */
#define NDK_ROCE_MAD_BASE_VERSION 1
/** Management class of the communication manager. */
#define NDK_ROCE_MGMT_CLASS_CM 0x07
/** CM class version. */
#define NDK_ROCE_CM_CLASS_VERSION 2
/** MAD method Send (every CM message is a Send). */
#define NDK_ROCE_MAD_METHOD_SEND 0x03

/** CM attribute IDs. */
enum ndk_roce_cm_attr {
	NDK_ROCE_CM_REQ = 0x0010,
	NDK_ROCE_CM_MRA = 0x0011,
	NDK_ROCE_CM_REJ = 0x0012,
	NDK_ROCE_CM_REP = 0x0013,
	NDK_ROCE_CM_RTU = 0x0014,
	NDK_ROCE_CM_DREQ = 0x0015,
	NDK_ROCE_CM_DREP = 0x0016,
	NDK_ROCE_CM_SIDR_REQ = 0x0017,
	NDK_ROCE_CM_SIDR_REP = 0x0018,
	NDK_ROCE_CM_LAP = 0x0019,
	NDK_ROCE_CM_APR = 0x001A,
};

/** Largest private data of any CM message (RTU, DREP). */
#define NDK_ROCE_CM_PDATA_MAX 224
/** Additional rejection information in a REJ. */
#define NDK_ROCE_CM_ARI_LEN 72

/** "Message REJected" / "Message MRAed" codes of REJ and MRA. */
enum ndk_roce_cm_msg_code {
	NDK_ROCE_CM_MSG_REQ = 0,
	NDK_ROCE_CM_MSG_REP = 1,
	NDK_ROCE_CM_MSG_OTHER = 2,
};

/** REJ reasons this stack sends or interprets (IBTA table 112). */
enum ndk_roce_cm_rej_reason {
	NDK_ROCE_REJ_NO_QP = 1,
	NDK_ROCE_REJ_NO_RESOURCES = 3,
	NDK_ROCE_REJ_TIMEOUT = 4,
	NDK_ROCE_REJ_INVALID_COMM_ID = 6,
	NDK_ROCE_REJ_INVALID_SERVICE_ID = 8,
	NDK_ROCE_REJ_INVALID_TRANSPORT = 9,
	NDK_ROCE_REJ_STALE_CONN = 10,
	NDK_ROCE_REJ_INVALID_GID = 12,
	NDK_ROCE_REJ_INVALID_MTU = 26,
	NDK_ROCE_REJ_INSUFFICIENT_RESP_RES = 27,
	NDK_ROCE_REJ_CONSUMER = 28,
	NDK_ROCE_REJ_DUPLICATE_COMM_ID = 30,
	NDK_ROCE_REJ_INVALID_CLASS_VERSION = 31,
};

/** A path of a REQ (primary or alternate). */
struct ndk_roce_cm_path {
	uint16_t local_lid;       /**< 0xFFFF on RoCE (permissive) */
	uint16_t remote_lid;
	uint8_t local_gid[16];    /**< the sender's GID */
	uint8_t remote_gid[16];
	uint32_t flow_label;      /**< 20 bits */
	uint8_t packet_rate;      /**< 6 bits */
	uint8_t traffic_class;
	uint8_t hop_limit;
	uint8_t sl;               /**< 4 bits */
	uint8_t subnet_local;     /**< 1 bit */
	uint8_t local_ack_timeout; /**< 5 bits */
};

/**
 * A CM message in host order. One structure serves every attribute: the
 * fields an attribute does not carry are ignored by the encoder and left
 * zero by the decoder. Names follow IBTA; "local" is always the sender.
 */
struct ndk_roce_cm_msg {
	/* MAD header */
	uint16_t attr_id;         /**< enum ndk_roce_cm_attr */
	uint16_t status;
	uint64_t tid;             /**< transaction ID */
	/** MAD attribute modifier; in a REQ or REP with a vendor_id, that
	 *  vendor's options (IBTA's Enhanced Connection Establishment) */
	uint32_t attr_mod;
	/* every message */
	uint32_t local_comm_id;
	uint32_t remote_comm_id;  /**< not in REQ */
	/* REQ and REP */
	uint64_t service_id;      /**< REQ */
	/** REQ, REP: ECE vendor ID, 24 bits (REQ body byte 5; REP bytes 15,
	 *  19 and 23, high to low); 0: no vendor options */
	uint32_t vendor_id;
	uint64_t local_ca_guid;
	uint32_t local_qkey;
	uint32_t local_qpn;       /**< 24 bits */
	uint32_t local_eecn;
	uint32_t remote_eecn;     /**< REQ */
	uint32_t starting_psn;    /**< 24 bits */
	uint8_t responder_resources;
	uint8_t initiator_depth;
	uint8_t remote_cm_response_timeout; /**< REQ, 5 bits */
	uint8_t transport_type;   /**< REQ, 2 bits: 0 = RC */
	uint8_t flow_control;     /**< end-to-end flow control, 1 bit */
	uint8_t local_cm_response_timeout;  /**< REQ, 5 bits */
	uint8_t retry_count;      /**< REQ, 3 bits */
	uint8_t rnr_retry_count;  /**< 3 bits */
	uint16_t pkey;            /**< REQ */
	uint8_t path_mtu;         /**< REQ: enum ndk_roce_mtu */
	uint8_t rdc_exists;       /**< REQ */
	uint8_t max_cm_retries;   /**< REQ, 4 bits */
	uint8_t srq;
	uint8_t ext_transport;    /**< REQ, 3 bits */
	uint8_t target_ack_delay; /**< REP, 5 bits */
	uint8_t failover_accepted; /**< REP, 2 bits */
	struct ndk_roce_cm_path primary;   /**< REQ */
	struct ndk_roce_cm_path alternate; /**< REQ */
	/* REJ, MRA */
	uint8_t msg_code;         /**< enum ndk_roce_cm_msg_code */
	uint8_t service_timeout;  /**< MRA, 5 bits */
	uint8_t reject_info_len;  /**< REJ, 7 bits */
	uint16_t reason;          /**< REJ: enum ndk_roce_cm_rej_reason */
	uint8_t ari[NDK_ROCE_CM_ARI_LEN];
	/* DREQ */
	uint32_t remote_qpn;      /**< 24 bits: the receiver's QP */
	/* private data: ndk_roce_cm_pdata_len(attr_id) bytes */
	uint8_t pdata[NDK_ROCE_CM_PDATA_MAX];
};

/**
 * ECE vendor ID (REQ and REP, struct ndk_roce_cm_msg's vendor_id) under
 * which ndk-roce offers its own connection options in the attribute
 * modifier: "NDK" in ASCII, 0x4E444B, an IEEE Company ID with the local
 * bit (0x02 of its first byte) set, so no OUI holder's. Peers that do not
 * know it ignore it (Linux's CM hands it to ECE-aware applications only).
 */
#define NDK_ROCE_ECE_VENDOR 0x4E444Bu
/** REQ option: the sender offers selective repeat (doc/recovery.md). */
#define NDK_ROCE_ECE_SR_OFFER (1u << 0)
/**
 * REP option: the sender accepts the REQ's offer of selective repeat. Not
 * the offer's bit, so a peer that echoes the REQ's ECE back in its REP
 * (as ECE-aware librdmacm applications do) does not turn it on.
 */
#define NDK_ROCE_ECE_SR_ACCEPT (1u << 1)

/** Private-data bytes of a CM attribute (0 for unknown attributes). */
uint32_t ndk_roce_cm_pdata_len(uint16_t attr_id);

/**
 * Decode a CM MAD (@p len bytes, at least NDK_ROCE_MAD_LEN).
 * @return 0; -EINVAL if it is not a CM Send MAD of base version 1 and
 *   class version 2 or is too short; -ENOTSUP for a CM attribute this
 *   codec does not handle (SIDR, LAP, APR, unknown).
 */
int ndk_roce_cm_decode(const uint8_t *mad, uint32_t len,
		       struct ndk_roce_cm_msg *m);

/** Encode @p m as a complete 256-byte CM Send MAD. */
void ndk_roce_cm_encode(const struct ndk_roce_cm_msg *m,
			uint8_t mad[NDK_ROCE_MAD_LEN]);

/** Name of a CM attribute ("REQ", ...), "?" if unknown. */
const char *ndk_roce_cm_attr_str(uint16_t attr_id);

/** RDMA-CM service ID of a TCP-port-space port (RDMA_PS_TCP). */
#define NDK_ROCE_CM_SID_TCP 0x0000000001060000ull
/** Mask of the port-space part of an IP service ID. */
#define NDK_ROCE_CM_SID_PS_MASK 0xFFFFFFFFFFFF0000ull

/** Bytes of the RDMA-CM header at the front of a REQ's private data. */
#define NDK_ROCE_CMA_HDR_LEN 36

/**
 * RDMA-CM's IP header in a REQ: version, IP version (high nibble of byte
 * 1), the initiator's port and two 16-byte address fields, which hold an
 * IPv6 address or, for IPv4, 12 zero bytes and the IPv4 address.
 */
struct ndk_roce_cma_hdr {
	uint8_t cma_version;      /**< 0x00 */
	uint8_t ip_version;       /**< 4 or 6 */
	uint16_t src_port;        /**< the initiator's port, host order */
	rte_be32_t src_ip;        /**< IPv4, network order (ip_version 4) */
	rte_be32_t dst_ip;
	uint8_t src_ip6[16];      /**< IPv6 (ip_version 6) */
	uint8_t dst_ip6[16];
};

/**
 * Read the RDMA-CM header from REQ private data.
 * @return 0, -EPROTO for a CMA version other than 0, -EAFNOSUPPORT for an
 *   IP version other than 4 or 6.
 */
int ndk_roce_cma_hdr_decode(const uint8_t *pdata,
			    struct ndk_roce_cma_hdr *h);

/**
 * Write the RDMA-CM header of a REQ at @p pdata: the IPv4 fields if
 * h->ip_version is 4, the IPv6 ones if it is 6.
 */
void ndk_roce_cma_hdr_encode(uint8_t *pdata, const struct ndk_roce_cma_hdr *h);

/** The IPv4-mapped GID (::ffff:a.b.c.d) of an address in network order. */
static inline void
ndk_roce_gid_from_ipv4(uint8_t gid[16], rte_be32_t ip)
{
	memset(gid, 0, 10);
	gid[10] = 0xFF;
	gid[11] = 0xFF;
	memcpy(gid + 12, &ip, 4);
}

/**
 * True if @p gid is an IPv4-mapped GID (::ffff:a.b.c.d); any other GID is
 * an IPv6 address (RoCEv2 GIDs are IP addresses).
 */
static inline bool
ndk_roce_gid_is_ipv4(const uint8_t gid[16])
{
	static const uint8_t pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					 0xFF, 0xFF };

	return memcmp(gid, pfx, sizeof(pfx)) == 0;
}

/** The IPv4 address of an IPv4-mapped GID, 0 if it is not one. */
static inline rte_be32_t
ndk_roce_gid_to_ipv4(const uint8_t gid[16])
{
	rte_be32_t ip;

	if (!ndk_roce_gid_is_ipv4(gid))
		return 0;
	memcpy(&ip, gid + 12, 4);
	return ip;
}

/** The EUI-64 CA GUID made of a MAC address (as Linux RoCE devices do). */
uint64_t ndk_roce_guid_from_mac(const struct rte_ether_addr *mac);

/** Fill a DETH. */
static inline void
ndk_roce_deth_set(struct ndk_roce_deth *d, uint32_t qkey, uint32_t src_qp)
{
	d->qkey = rte_cpu_to_be_32(qkey);
	d->sqp = rte_cpu_to_be_32(src_qp & NDK_ROCE_QPN_MASK);
}

#ifdef __cplusplus
}
#endif

#endif /* NDK_ROCE_H */
