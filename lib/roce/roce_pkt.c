/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Ethernet/IPv4-or-IPv6/UDP framing of RoCEv2 packets: per-flow header templates,
 * UDP source-port entropy, the receive-side parser and mbuf helpers.
 */

#include <stdint.h>
#include <string.h>

#include <netinet/in.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "ndk_roce.h"
#include "ndk_roce_parse.h"

#define IPV4_HDR_LEN 20
#define UDP_HDR_LEN 8
#define IPV4_OFF_IP (RTE_ETHER_HDR_LEN)
#define IPV4_OFF_UDP (RTE_ETHER_HDR_LEN + IPV4_HDR_LEN)
#define IPV6_HDR_LEN 40
#define IPV6_OFF_UDP (RTE_ETHER_HDR_LEN + IPV6_HDR_LEN)

/* ------------------------------------------------------------------ */
/* Templates                                                           */
/* ------------------------------------------------------------------ */

/* One's complement sum of @p len bytes (even) as native 16-bit words. */
static uint32_t
ones_sum16(const uint8_t *p, size_t len)
{
	uint32_t sum = 0;

	for (size_t i = 0; i + 1 < len; i += 2) {
		uint16_t w;

		memcpy(&w, p + i, sizeof(w));
		sum += w;
	}
	return sum;
}

static inline uint16_t
fold_sum16(uint32_t sum)
{
	sum = (sum & 0xFFFF) + (sum >> 16);
	sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)sum;
}

/* Ethernet header at t->hdr and the UDP header at @p udp_off. */
static void
l2l4_eth_udp(struct ndk_roce_l2l4 *t, const struct rte_ether_addr *src,
	     const struct rte_ether_addr *dst, uint16_t etype,
	     uint32_t udp_off, uint16_t sport)
{
	struct rte_ether_hdr eth;
	struct rte_udp_hdr udp;

	rte_ether_addr_copy(dst, &eth.dst_addr);
	rte_ether_addr_copy(src, &eth.src_addr);
	eth.ether_type = rte_cpu_to_be_16(etype);
	udp.src_port = rte_cpu_to_be_16(sport);
	udp.dst_port = RTE_BE16(NDK_ROCE_UDP_PORT);
	udp.dgram_len = 0;        /* per packet */
	udp.dgram_cksum = 0;      /* covered by the ICRC instead (both IPs) */
	memcpy(t->hdr, &eth, sizeof(eth));
	memcpy(t->hdr + udp_off, &udp, sizeof(udp));
}

void
ndk_roce_l2l4_init(struct ndk_roce_l2l4 *t, const struct rte_ether_addr *src,
		   const struct rte_ether_addr *dst, rte_be32_t sip,
		   rte_be32_t dip, uint16_t sport, uint8_t tos, uint8_t ttl)
{
	struct rte_ipv4_hdr ip;

	memset(t, 0, sizeof(*t));
	l2l4_eth_udp(t, src, dst, RTE_ETHER_TYPE_IPV4, IPV4_OFF_UDP, sport);

	memset(&ip, 0, sizeof(ip));
	ip.version_ihl = RTE_IPV4_VHL_DEF;
	ip.type_of_service = tos;
	ip.total_length = 0;      /* per packet */
	ip.packet_id = 0;
	ip.fragment_offset = RTE_BE16(RTE_IPV4_HDR_DF_FLAG);
	ip.time_to_live = ttl;
	ip.next_proto_id = IPPROTO_UDP;
	ip.hdr_checksum = 0;      /* per packet */
	ip.src_addr = sip;
	ip.dst_addr = dip;

	memcpy(t->hdr + IPV4_OFF_IP, &ip, sizeof(ip));
	/* Sum of the constant header words; write() adds the total length. */
	t->csum_base = ones_sum16(t->hdr + IPV4_OFF_IP, IPV4_HDR_LEN);
	t->len = NDK_ROCE_L2L4_LEN;
	t->ipv6 = false;
}

void
ndk_roce_l2l4_init6(struct ndk_roce_l2l4 *t, const struct rte_ether_addr *src,
		    const struct rte_ether_addr *dst, const uint8_t sip[16],
		    const uint8_t dip[16], uint16_t sport, uint8_t tclass,
		    uint32_t flow_label, uint8_t hop_limit)
{
	struct rte_ipv6_hdr ip;

	memset(t, 0, sizeof(*t));
	l2l4_eth_udp(t, src, dst, RTE_ETHER_TYPE_IPV6, IPV6_OFF_UDP, sport);

	memset(&ip, 0, sizeof(ip));
	ip.vtc_flow = rte_cpu_to_be_32(6u << 28 | (uint32_t)tclass << 20 |
				       (flow_label & 0xFFFFFu));
	ip.payload_len = 0;       /* per packet */
	ip.proto = IPPROTO_UDP;
	ip.hop_limits = hop_limit;
	memcpy(&ip.src_addr, sip, 16);
	memcpy(&ip.dst_addr, dip, 16);

	/* UDP checksum 0 as rxe sends it on IPv6 too; the ICRC covers all. */
	memcpy(t->hdr + IPV4_OFF_IP, &ip, sizeof(ip));
	t->len = NDK_ROCE_L2L4_LEN6;
	t->ipv6 = true;
}

uint8_t *
ndk_roce_l2l4_write(const struct ndk_roce_l2l4 *t, uint8_t *frame,
		    uint16_t udp_payload)
{
	rte_be16_t ip_len = rte_cpu_to_be_16((uint16_t)(IPV4_HDR_LEN +
					UDP_HDR_LEN + udp_payload));
	rte_be16_t udp_len = rte_cpu_to_be_16((uint16_t)(UDP_HDR_LEN +
					udp_payload));
	uint16_t csum;

	if (t->ipv6) {
		/* IPv6 payload length = UDP length; no header checksum. */
		memcpy(frame, t->hdr, NDK_ROCE_L2L4_LEN6);
		memcpy(frame + IPV4_OFF_IP +
		       offsetof(struct rte_ipv6_hdr, payload_len),
		       &udp_len, sizeof(udp_len));
		memcpy(frame + IPV6_OFF_UDP +
		       offsetof(struct rte_udp_hdr, dgram_len),
		       &udp_len, sizeof(udp_len));
		return frame + NDK_ROCE_L2L4_LEN6;
	}
	memcpy(frame, t->hdr, NDK_ROCE_L2L4_LEN);
	/* Sum of native-order words is byte-order independent. */
	csum = (uint16_t)~fold_sum16(t->csum_base + ip_len);
	memcpy(frame + IPV4_OFF_IP + offsetof(struct rte_ipv4_hdr, total_length),
	       &ip_len, sizeof(ip_len));
	memcpy(frame + IPV4_OFF_IP + offsetof(struct rte_ipv4_hdr, hdr_checksum),
	       &csum, sizeof(csum));
	memcpy(frame + IPV4_OFF_UDP + offsetof(struct rte_udp_hdr, dgram_len),
	       &udp_len, sizeof(udp_len));
	return frame + NDK_ROCE_L2L4_LEN;
}

uint16_t
ndk_roce_udp_sport(uint32_t lqpn, uint32_t rqpn)
{
	uint64_t v = (uint64_t)(lqpn & NDK_ROCE_QPN_MASK) *
		     (rqpn & NDK_ROCE_QPN_MASK);
	uint32_t fl, lo, hi;

	/* Flow label from the QPN pair (commutative, so symmetric). */
	v ^= v >> 20;
	v ^= v >> 40;
	fl = (uint32_t)v & 0xFFFFF;
	/* Fold the 20-bit label into the 14 free bits of the port. */
	lo = fl & 0x03FFF;
	hi = fl & 0xFC000;
	lo ^= hi >> 14;
	return (uint16_t)(lo | NDK_ROCE_SPORT_MIN);
}

/* ------------------------------------------------------------------ */
/* Parser                                                              */
/* ------------------------------------------------------------------ */

static const char *const parse_err_names[NDK_ROCE_PARSE_ERR_MAX] = {
	[NDK_ROCE_PARSE_OK] = "ok",
	[NDK_ROCE_PARSE_NOT_IPV4] = "not_ipv4",
	[NDK_ROCE_PARSE_NOT_ROCE] = "not_roce",
	[NDK_ROCE_PARSE_TRUNCATED] = "truncated",
	[NDK_ROCE_PARSE_BAD_IP] = "bad_ip",
	[NDK_ROCE_PARSE_BAD_UDP] = "bad_udp",
	[NDK_ROCE_PARSE_BAD_OPCODE] = "bad_opcode",
	[NDK_ROCE_PARSE_BAD_BTH] = "bad_bth",
	[NDK_ROCE_PARSE_BAD_ICRC] = "bad_icrc",
};

const char *
ndk_roce_parse_err_str(enum ndk_roce_parse_err e)
{
	if ((unsigned int)e >= NDK_ROCE_PARSE_ERR_MAX)
		return "unknown";
	return parse_err_names[e];
}

/* The ICRC check out of line: the parse's own path stays as short. */
static __rte_noinline bool
pkt_icrc_check(const struct ndk_roce_pkt *p)
{
	return ndk_roce_pkt_icrc_ok(p);
}

enum ndk_roce_parse_err
ndk_roce_parse(struct rte_mbuf *m, struct ndk_roce_pkt *p, bool check_icrc)
{
	enum ndk_roce_parse_err err = ndk_roce_parse_fast(m, p);

	if (err == NDK_ROCE_PARSE_OK && check_icrc && !pkt_icrc_check(p))
		return NDK_ROCE_PARSE_BAD_ICRC;
	return err;
}

enum ndk_roce_parse_err
ndk_roce_parse_fields(struct rte_mbuf *m, struct ndk_roce_pkt *p)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint32_t seg_len = m->data_len;
	const struct rte_ether_hdr *eth;
	const struct rte_ipv4_hdr *ip = NULL;
	const struct rte_ipv6_hdr *ip6 = NULL;
	const struct rte_udp_hdr *udp;
	enum ndk_roce_parse_err err;
	uint32_t l3, ihl, ip_len, udp_len;
	rte_be16_t etype;

	eth = (const struct rte_ether_hdr *)d;
	/* Ethernet, optionally one 802.1Q tag. */
	if (seg_len < RTE_ETHER_HDR_LEN)
		return NDK_ROCE_PARSE_TRUNCATED;
	etype = eth->ether_type;
	l3 = RTE_ETHER_HDR_LEN;
	if (etype == RTE_BE16(RTE_ETHER_TYPE_VLAN)) {
		const struct rte_vlan_hdr *vh;

		if (seg_len < RTE_ETHER_HDR_LEN + sizeof(*vh))
			return NDK_ROCE_PARSE_TRUNCATED;
		vh = (const struct rte_vlan_hdr *)(d + RTE_ETHER_HDR_LEN);
		etype = vh->eth_proto;
		l3 += sizeof(*vh);
	}
	if (unlikely(etype != RTE_BE16(RTE_ETHER_TYPE_IPV4))) {
		if (etype != RTE_BE16(RTE_ETHER_TYPE_IPV6))
			return NDK_ROCE_PARSE_NOT_IPV4;
		/*
		 * IPv6: UDP right after the fixed header (RoCEv2 uses no
		 * extension headers); the payload length bounds the rest.
		 */
		if (seg_len < l3 + IPV6_HDR_LEN)
			return NDK_ROCE_PARSE_TRUNCATED;
		ip6 = (const struct rte_ipv6_hdr *)(d + l3);
		if ((rte_be_to_cpu_32(ip6->vtc_flow) >> 28) != 6)
			return NDK_ROCE_PARSE_BAD_IP;
		if (ip6->proto != IPPROTO_UDP)
			return NDK_ROCE_PARSE_NOT_ROCE;
		ihl = IPV6_HDR_LEN;
		ip_len = IPV6_HDR_LEN + rte_be_to_cpu_16(ip6->payload_len);
		goto udp;
	}

	/* IPv4: no fragments; the total length bounds everything below. */
	if (seg_len < l3 + IPV4_HDR_LEN)
		return NDK_ROCE_PARSE_TRUNCATED;
	ip = (const struct rte_ipv4_hdr *)(d + l3);
	if ((ip->version_ihl >> 4) != 4)
		return NDK_ROCE_PARSE_BAD_IP;
	ihl = (uint32_t)(ip->version_ihl & RTE_IPV4_HDR_IHL_MASK) << 2;
	if (ihl < IPV4_HDR_LEN)
		return NDK_ROCE_PARSE_BAD_IP;
	if (ip->next_proto_id != IPPROTO_UDP)
		return NDK_ROCE_PARSE_NOT_ROCE;
	if ((ip->fragment_offset &
	     RTE_BE16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) != 0)
		return NDK_ROCE_PARSE_BAD_IP;
	ip_len = rte_be_to_cpu_16(ip->total_length);
	if (ip_len < ihl)
		return NDK_ROCE_PARSE_BAD_IP;
udp:
	/* Longer frames are fine (Ethernet padding); shorter are not. */
	if (m->pkt_len < l3 + ip_len || ip_len < ihl + UDP_HDR_LEN ||
	    seg_len < l3 + ihl + UDP_HDR_LEN)
		return NDK_ROCE_PARSE_TRUNCATED;

	/* UDP to 4791, length matching the IP payload. */
	udp = (const struct rte_udp_hdr *)(d + l3 + ihl);
	if (udp->dst_port != RTE_BE16(NDK_ROCE_UDP_PORT))
		return NDK_ROCE_PARSE_NOT_ROCE;
	udp_len = rte_be_to_cpu_16(udp->dgram_len);
	if (udp_len != ip_len - ihl)
		return NDK_ROCE_PARSE_BAD_UDP;

	/* BTH .. ICRC: the UDP payload. */
	err = ndk_roce_parse_bth(m, p, d, seg_len, l3, l3 + ihl + UDP_HDR_LEN,
				 udp_len - UDP_HDR_LEN);
	if (err != NDK_ROCE_PARSE_OK)
		return err;
	if (ip6 != NULL) {
		p->sip = 0;
		p->dip = 0;
		p->sip6 = (const uint8_t *)&ip6->src_addr;
		p->dip6 = (const uint8_t *)&ip6->dst_addr;
	} else {
		p->sip = ip->src_addr;
		p->dip = ip->dst_addr;
		p->sip6 = NULL;
		p->dip6 = NULL;
	}
	return NDK_ROCE_PARSE_OK;
}

/* ------------------------------------------------------------------ */
/* ICRC of a parsed packet                                             */
/* ------------------------------------------------------------------ */

/* Offset of the ICRC in the packet (parse checked it is there). */
static inline uint32_t
pkt_icrc_off(const struct ndk_roce_pkt *p)
{
	return p->payload_off + p->payload_len + p->padcnt;
}

/* The ICRC as transmitted (little-endian wire bytes). */
static uint32_t
pkt_icrc_wire(const struct ndk_roce_pkt *p)
{
	const struct rte_mbuf *m = p->m;
	uint32_t off = pkt_icrc_off(p);
	uint8_t raw[NDK_ROCE_ICRC_LEN];

	if (off + NDK_ROCE_ICRC_LEN <= m->data_len)
		memcpy(raw, rte_pktmbuf_mtod_offset(m, const uint8_t *, off),
		       sizeof(raw));
	else
		ndk_roce_mbuf_copy_out(m, off, raw, sizeof(raw));
	return (uint32_t)raw[0] | (uint32_t)raw[1] << 8 |
	       (uint32_t)raw[2] << 16 | (uint32_t)raw[3] << 24;
}

bool
ndk_roce_pkt_icrc_ok_chain(const struct ndk_roce_pkt *p)
{
	return pkt_icrc_wire(p) == ndk_roce_icrc_mbuf(p->m, p->l3_off,
						      pkt_icrc_off(p) - p->l3_off);
}

uint32_t
ndk_roce_pkt_icrc_hdr(const struct ndk_roce_pkt *p)
{
	return ndk_roce_icrc_start_frame(rte_pktmbuf_mtod_offset(p->m,
		const uint8_t *, p->l3_off), p->payload_off - p->l3_off,
		(size_t)rte_pktmbuf_headroom(p->m) + p->l3_off);
}

bool
ndk_roce_pkt_icrc_end(const struct ndk_roce_pkt *p, uint32_t crc)
{
	if (p->padcnt != 0) {
		uint8_t pad[4];

		ndk_roce_mbuf_copy_out(p->m, p->payload_off + p->payload_len,
				       pad, p->padcnt);
		crc = ndk_roce_crc32_update(crc, pad, p->padcnt);
	}
	return ~crc == pkt_icrc_wire(p);
}

bool
ndk_roce_pkt_copy_check(const struct ndk_roce_pkt *p, void *dst)
{
	uint32_t crc = ndk_roce_pkt_icrc_hdr(p);

	crc = ndk_roce_crc32_copy_mbuf(crc, dst, p->m, p->payload_off,
				       p->payload_len);
	return ndk_roce_pkt_icrc_end(p, crc);
}

/* ------------------------------------------------------------------ */
/* mbuf helpers                                                        */
/* ------------------------------------------------------------------ */

void
ndk_roce_mbuf_copy_out(const struct rte_mbuf *m, uint32_t off, void *dst,
		       uint32_t len)
{
	uint8_t *out = dst;

	while (m != NULL && off >= m->data_len) {
		off -= m->data_len;
		m = m->next;
	}
	while (m != NULL && len > 0) {
		uint32_t n = RTE_MIN((uint32_t)m->data_len - off, len);

		memcpy(out, rte_pktmbuf_mtod_offset(m, const uint8_t *, off), n);
		out += n;
		len -= n;
		off = 0;
		m = m->next;
	}
}
