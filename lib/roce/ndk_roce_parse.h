/* SPDX-License-Identifier: BSD-3-Clause */

/**
 * @file
 * The receive parse inline: the common frame (untagged IPv4 without
 * options, one segment holding its headers, UDP to 4791) checked in the
 * caller's own code, everything else through ndk_roce_parse_fields().
 * Both apply the same checks as ndk_roce_parse() (which is built on them)
 * and answer the same reason for a bad frame.
 */

#ifndef NDK_ROCE_PARSE_H
#define NDK_ROCE_PARSE_H

#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_mbuf.h>

#include "ndk_roce.h"

/** Offset of the UDP header in an untagged IPv4 frame without options. */
#define NDK_ROCE_V4_UDP_OFF (14 + 20)
/** Offset of the BTH in an untagged IPv4 frame without options. */
#define NDK_ROCE_V4_BTH_OFF (NDK_ROCE_V4_UDP_OFF + 8)

/**
 * ndk_roce_parse(@p m, @p p, false) of a frame that is not the common one
 * (a VLAN tag, IPv6, IP options, a short first segment) or is bad: the
 * field-by-field checks, which name what is wrong.
 */
enum ndk_roce_parse_err ndk_roce_parse_fields(struct rte_mbuf *m,
					      struct ndk_roce_pkt *p);

/**
 * The checks and fields from the BTH on, for both parse paths: @p d is
 * the first segment's data (@p seg_len bytes), the IP header at @p l3,
 * the BTH at @p bth_off, @p tlen the UDP payload's length (BTH to ICRC).
 * On success sets every field of @p p but the addresses; on a bad frame
 * leaves @p p alone.
 */
static inline enum ndk_roce_parse_err
ndk_roce_parse_bth(struct rte_mbuf *m, struct ndk_roce_pkt *p,
		   const uint8_t *d, uint32_t seg_len, uint32_t l3,
		   uint32_t bth_off, uint32_t tlen)
{
	const struct ndk_roce_bth *bth;
	const struct ndk_roce_opcode_info *op;
	uint32_t pad;

	if (tlen < NDK_ROCE_BTH_LEN + NDK_ROCE_ICRC_LEN ||
	    seg_len < bth_off + NDK_ROCE_BTH_LEN)
		return NDK_ROCE_PARSE_TRUNCATED;
	bth = (const struct ndk_roce_bth *)(d + bth_off);
	if ((bth->flags & NDK_ROCE_BTH_TVER_MASK) != 0)
		return NDK_ROCE_PARSE_BAD_BTH;
	op = &ndk_roce_opcode_table[bth->opcode];
	if (!(op->flags & NDK_ROCE_OPF_VALID))
		return NDK_ROCE_PARSE_BAD_OPCODE;
	pad = ndk_roce_bth_padcnt(bth);
	if (tlen < op->hdr_len + pad + NDK_ROCE_ICRC_LEN ||
	    seg_len < bth_off + op->hdr_len)
		return NDK_ROCE_PARSE_TRUNCATED;
	tlen -= op->hdr_len + pad + NDK_ROCE_ICRC_LEN; /* now: payload */
	if (!(op->flags & NDK_ROCE_OPF_PAYLOAD)) {
		if (pad != 0)
			return NDK_ROCE_PARSE_BAD_BTH;
		if (tlen != 0)
			return NDK_ROCE_PARSE_BAD_UDP;
	}
	p->m = m;
	p->op = op;
	p->bth = bth;
	p->opcode = bth->opcode;
	p->padcnt = (uint8_t)pad;
	p->se = ndk_roce_bth_se(bth);
	p->ackreq = ndk_roce_bth_ackreq(bth);
	p->qpn = ndk_roce_bth_qpn(bth);
	p->psn = ndk_roce_bth_psn(bth);
	p->l3_off = l3;
	p->payload_off = bth_off + op->hdr_len;
	p->payload_len = tlen;
	return NDK_ROCE_PARSE_OK;
}

/**
 * ndk_roce_parse(@p m, @p p, false), the common frame in the caller: its
 * Ethertype, IP version and header length, fragment bits, protocol and
 * UDP port in three masked compares of the header words, then the
 * lengths and the BTH. Anything else (or anything wrong) goes to
 * ndk_roce_parse_fields(), which answers what ndk_roce_parse() does.
 */
static inline enum ndk_roce_parse_err
ndk_roce_parse_fast(struct rte_mbuf *m, struct ndk_roce_pkt *p)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint32_t seg_len = m->data_len;
	enum ndk_roce_parse_err err;
	uint64_t w0, w1;
	uint32_t ip_len;
	uint16_t dport, ulen;

	if (unlikely(seg_len < NDK_ROCE_V4_BTH_OFF + NDK_ROCE_BTH_LEN))
		return ndk_roce_parse_fields(m, p);
	/* Ethertype, version and IHL; fragment bits and protocol. */
	memcpy(&w0, d + 12, sizeof(w0));
	memcpy(&w1, d + 20, sizeof(w1));
	memcpy(&dport, d + NDK_ROCE_V4_UDP_OFF + 2, sizeof(dport));
	memcpy(&ulen, d + NDK_ROCE_V4_UDP_OFF + 4, sizeof(ulen));
	w0 = rte_be_to_cpu_64(w0);
	ip_len = (uint32_t)(w0 >> 16) & 0xFFFF;
	if (unlikely((w0 & UINT64_C(0xFFFFFF0000000000)) !=
		     UINT64_C(0x0800450000000000) ||
		     (rte_be_to_cpu_64(w1) & UINT64_C(0x3FFF00FF00000000)) !=
		     ((uint64_t)17 << 32) ||    /* IPPROTO_UDP */
		     dport != RTE_BE16(NDK_ROCE_UDP_PORT) ||
		     ip_len < 20 + 8 ||
		     m->pkt_len < 14 + ip_len ||
		     rte_be_to_cpu_16(ulen) != ip_len - 20))
		return ndk_roce_parse_fields(m, p);
	err = ndk_roce_parse_bth(m, p, d, seg_len, 14, NDK_ROCE_V4_BTH_OFF,
				 ip_len - 20 - 8);
	if (likely(err == NDK_ROCE_PARSE_OK)) {
		memcpy(&p->sip, d + 14 + 12, sizeof(p->sip));
		memcpy(&p->dip, d + 14 + 16, sizeof(p->dip));
		p->sip6 = NULL;
		p->dip6 = NULL;
	}
	return err;
}

#endif /* NDK_ROCE_PARSE_H */
