/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_ROCE_H
#define NDK_ROCE_H

/**
 * @file
 * RoCEv2 wire format: InfiniBand transport headers carried in IPv4/UDP 4791.
 *
 * Everything here is pure: header layouts and accessors, the per-opcode
 * table, 24-bit PSN arithmetic, the invariant CRC and Ethernet/IPv4/UDP
 * framing. Nothing calls ethdev, so the RC engines built on it can be tested
 * without a NIC. All multi-byte wire fields are big-endian; accessors take
 * and return host order.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
/** Largest transport header (BTH + extension headers) of any opcode. */
#define NDK_ROCE_MAX_TRANSPORT_HDR 64
/** Frame overhead of an RC packet beyond its payload, worst case. */
#define NDK_ROCE_MAX_OVERHEAD \
	(NDK_ROCE_L2L4_LEN + NDK_ROCE_MAX_TRANSPORT_HDR + 3 + NDK_ROCE_ICRC_LEN)

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

/** Per-opcode description: which headers follow the BTH and where. */
struct ndk_roce_opcode_info {
	const char *name;  /**< IBA name, e.g. "RC_RDMA_READ_RESPONSE_FIRST" */
	uint32_t flags;    /**< enum ndk_roce_opf bits; 0 for undefined opcodes */
	uint8_t hdr_len;   /**< BTH + all extension headers, bytes */
	uint8_t reth_off;  /**< offset from BTH start, valid if OPF_RETH */
	uint8_t aeth_off;  /**< ... if OPF_AETH */
	uint8_t immdt_off; /**< ... if OPF_IMMDT */
	uint8_t ieth_off;  /**< ... if OPF_IETH */
	uint8_t deth_off;  /**< ... if OPF_DETH */
	uint8_t atmeth_off; /**< ... if OPF_ATMETH */
	uint8_t atmack_off; /**< ... if OPF_ATMACK */
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

/**
 * ICRC of a RoCEv2 packet held in a flat buffer.
 *
 * @param l3   IPv4 header start.
 * @param len  bytes from @p l3 up to, not including, the ICRC.
 * @return the ICRC value; its little-endian encoding is the 4 wire bytes.
 */
uint32_t ndk_roce_icrc_buf(const void *l3, size_t len);

/**
 * ICRC of a RoCEv2 packet in a (possibly multi-segment) mbuf. Headers up to
 * the end of the BTH must lie in the first segment.
 *
 * @param l3_off offset of the IPv4 header in the packet.
 * @param len    bytes from the IPv4 header up to, not including, the ICRC.
 */
uint32_t ndk_roce_icrc_mbuf(const struct rte_mbuf *m, uint32_t l3_off,
			    uint32_t len);

/* ------------------------------------------------------------------ */
/* Ethernet / IPv4 / UDP framing                                       */
/* ------------------------------------------------------------------ */

/**
 * Precomputed Ethernet + IPv4 + UDP header of one flow (one QP): only the
 * lengths and the IPv4 checksum change per packet.
 */
struct ndk_roce_l2l4 {
	uint8_t hdr[NDK_ROCE_L2L4_LEN];
	uint32_t csum_base; /**< IPv4 checksum partial sum without total length */
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
 * Write the template at @p frame with the lengths of a UDP payload of
 * @p udp_payload bytes (BTH .. ICRC inclusive) and a valid IPv4 checksum.
 * The UDP checksum is 0 (RoCEv2 protects the payload with the ICRC).
 * @return pointer to where the BTH goes (frame + NDK_ROCE_L2L4_LEN).
 */
uint8_t *ndk_roce_l2l4_write(const struct ndk_roce_l2l4 *t, uint8_t *frame,
			     uint16_t udp_payload);

/** UDP source port for a connection (symmetric in the two QPNs). */
uint16_t ndk_roce_udp_sport(uint32_t lqpn, uint32_t rqpn);

/** Why a received frame was not accepted by ndk_roce_parse(). */
enum ndk_roce_parse_err {
	NDK_ROCE_PARSE_OK = 0,
	NDK_ROCE_PARSE_NOT_IPV4,     /**< not IPv4 (ARP etc.: not RoCE) */
	NDK_ROCE_PARSE_NOT_ROCE,     /**< IPv4 but not UDP/4791 */
	NDK_ROCE_PARSE_TRUNCATED,    /**< shorter than its headers claim */
	NDK_ROCE_PARSE_BAD_IP,       /**< bad IPv4 version/IHL/length/fragment */
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
	rte_be32_t sip, dip;            /**< network order */
	struct rte_ether_addr smac;
	uint16_t sport;                 /**< UDP source port, host order */
	uint8_t opcode;
	uint8_t padcnt;
	bool se;
	bool ackreq;
	uint32_t qpn;
	uint32_t psn;
	uint32_t l3_off;                /**< IPv4 header offset in the packet */
	uint32_t payload_off;           /**< payload offset in the packet */
	uint32_t payload_len;           /**< payload bytes, pad and ICRC excluded */
};

/**
 * Parse and validate a frame: Ethernet (optionally one 802.1Q tag), IPv4
 * without fragmentation, UDP to port 4791, BTH with a defined opcode, lengths
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
 * Copy @p len bytes at packet offset @p off (possibly spanning segments)
 * to @p dst. The range must lie inside the packet.
 */
void ndk_roce_mbuf_copy_out(const struct rte_mbuf *m, uint32_t off,
			    void *dst, uint32_t len);

#ifdef __cplusplus
}
#endif

#endif /* NDK_ROCE_H */
