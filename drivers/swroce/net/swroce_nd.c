/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * swroce IPv6 neighbour discovery (RFC 4861) and ICMPv6 echo (RFC 4443) of
 * an adapter with an IPv6 address, on the polling thread like ARP, and on
 * the same neighbour table (swroce_neigh.c: states, retries, hold-down,
 * held frames and their bounded wait are the table's, for both families).
 *
 * Resolution: a neighbour solicitation (NS) for the target, sent to its
 * solicited-node group ff02::1:ffXX:XXXX (Ethernet 33:33:ff:XX:XX:XX), or
 * unicast to the known MAC when re-validating, with our link-layer address
 * as an option. Answers: a solicitation for our address is answered by a
 * solicited advertisement (NA: S and O set, our MAC as the target
 * link-layer option) to its sender; one from :: (duplicate address
 * detection) by an advertisement to all nodes (ff02::1) without S.
 * Learning: a solicitation for us with a source link-layer option creates
 * or updates its sender's entry; an advertisement updates its target's
 * entry (its target link-layer option, or the frame's source MAC).
 * Validation: hop limit 255, ICMP code 0, a correct ICMPv6 checksum, the
 * lengths, no zero-length option, a unicast target.
 */

#include <errno.h>
#include <string.h>

#include <netinet/in.h>

#include <rte_ether.h>
#include <rte_ip.h>

#include "swroce_adapter.h"
#include "swroce_neigh.h"
#include "swroce_tx.h"

#define ND_IP6_HLEN 40
#define ND_ICMP6_NS 135
#define ND_ICMP6_NA 136
#define ND_ICMP6_ECHO_REQUEST 128
#define ND_ICMP6_ECHO_REPLY 129
#define ND_OPT_SLLA 1            /**< source link-layer address */
#define ND_OPT_TLLA 2            /**< target link-layer address */
#define ND_MSG_LEN 24            /**< type .. target address */
#define ND_OPT_LLA_LEN 8         /**< an Ethernet link-layer option */
#define ND_HOP_LIMIT 255
#define ND_NA_FLAG_S 0x40        /**< solicited (first flags byte) */
#define ND_NA_FLAG_O 0x20        /**< override */
#define ND_L3 RTE_ETHER_HDR_LEN
#define ND_L4 (RTE_ETHER_HDR_LEN + ND_IP6_HLEN)

static const uint8_t all_nodes[16] = { 0xFF, 0x02, [15] = 0x01 };

/* The solicited-node group of @p a: ff02::1:ff00:0/104 | low 24 bits. */
static void
nd_solicited_node(uint8_t g[16], const uint8_t a[16])
{
	memset(g, 0, 16);
	g[0] = 0xFF;
	g[1] = 0x02;
	g[11] = 0x01;
	g[12] = 0xFF;
	memcpy(g + 13, a + 13, 3);
}

/* The Ethernet group of IPv6 multicast @p g: 33:33 and its low 32 bits. */
static void
nd_mcast_mac(struct rte_ether_addr *mac, const uint8_t g[16])
{
	mac->addr_bytes[0] = 0x33;
	mac->addr_bytes[1] = 0x33;
	memcpy(&mac->addr_bytes[2], g + 12, 4);
}

/*
 * A frame of @p icmp_len ICMPv6 bytes from this adapter to @p dst (MAC
 * @p dmac), its ICMPv6 part zeroed; *@p icmp points at it. NULL if no
 * buffer.
 */
static struct rte_mbuf *
nd_frame(struct swr_adapter *ad, const struct rte_ether_addr *dmac,
	 const uint8_t dst[16], uint32_t icmp_len, uint8_t hop_limit,
	 uint8_t **icmp)
{
	struct rte_ether_hdr *eth;
	struct rte_ipv6_hdr *ip;
	struct rte_mbuf *m;
	uint8_t *f;

	m = rte_pktmbuf_alloc(ad->mp);
	if (unlikely(m == NULL)) {
		SWR_STAT(ad, mbuf_alloc_fail);
		return NULL;
	}
	f = ND_L4 + icmp_len <= rte_pktmbuf_tailroom(m) ?
		(uint8_t *)rte_pktmbuf_append(m, (uint16_t)(ND_L4 + icmp_len)) :
		NULL;
	if (unlikely(f == NULL)) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(f, 0, ND_L4 + icmp_len);
	eth = (struct rte_ether_hdr *)f;
	rte_ether_addr_copy(dmac, &eth->dst_addr);
	rte_ether_addr_copy(&ad->mac, &eth->src_addr);
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	ip = (struct rte_ipv6_hdr *)(f + ND_L3);
	ip->vtc_flow = RTE_BE32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16((uint16_t)icmp_len);
	ip->proto = IPPROTO_ICMPV6;
	ip->hop_limits = hop_limit;
	memcpy(ip->src_addr, ad->ipv6, 16);
	memcpy(ip->dst_addr, dst, 16);
	*icmp = f + ND_L4;
	return m;
}

/* Fill in the ICMPv6 checksum of a frame nd_frame() built; stage it. */
static void
nd_finish(struct swr_adapter *ad, struct rte_mbuf *m)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(f + ND_L3);
	uint32_t len = rte_be_to_cpu_16(ip->payload_len);
	uint32_t sum = rte_ipv6_phdr_cksum(ip, 0);
	uint16_t c;

	sum += swr_cksum_mbuf(m, ND_L4, len);
	sum = (sum & 0xFFFF) + (sum >> 16);
	sum = (sum & 0xFFFF) + (sum >> 16);
	c = (uint16_t)~sum;
	memcpy(f + ND_L4 + 2, &c, sizeof(c));
	swr_eth_pad(m);
	swr_tx_stage(ad, m);
}

/* A link-layer address option (type @p type, our MAC) at @p o. */
static void
nd_put_lla(uint8_t *o, uint8_t type, const struct rte_ether_addr *mac)
{
	o[0] = type;
	o[1] = 1;                /* units of 8 bytes */
	memcpy(o + 2, mac->addr_bytes, RTE_ETHER_ADDR_LEN);
}

void
swr_nd_solicit(struct swr_adapter *ad, const uint8_t target[16],
	       const struct rte_ether_addr *mac)
{
	struct rte_ether_addr dmac;
	uint8_t dst[16], *icmp;
	struct rte_mbuf *m;

	if (!ad->has_ipv6)
		return;                /* no source address: cannot ask */
	if (mac != NULL) {
		rte_ether_addr_copy(mac, &dmac);
		memcpy(dst, target, 16);
	} else {
		nd_solicited_node(dst, target);
		nd_mcast_mac(&dmac, dst);
	}
	m = nd_frame(ad, &dmac, dst, ND_MSG_LEN + ND_OPT_LLA_LEN, ND_HOP_LIMIT,
		     &icmp);
	if (m == NULL)
		return;
	icmp[0] = ND_ICMP6_NS;
	memcpy(icmp + 8, target, 16);
	nd_put_lla(icmp + ND_MSG_LEN, ND_OPT_SLLA, &ad->mac);
	SWR_STAT(ad, nd_solicits_sent);
	nd_finish(ad, m);
}

/* Advertise our address to @p dst (MAC @p dmac). */
static void
nd_advertise(struct swr_adapter *ad, const struct rte_ether_addr *dmac,
	     const uint8_t dst[16], bool solicited)
{
	struct rte_mbuf *m;
	uint8_t *icmp;

	m = nd_frame(ad, dmac, dst, ND_MSG_LEN + ND_OPT_LLA_LEN, ND_HOP_LIMIT,
		     &icmp);
	if (m == NULL)
		return;
	icmp[0] = ND_ICMP6_NA;
	icmp[4] = (uint8_t)((solicited ? ND_NA_FLAG_S : 0) | ND_NA_FLAG_O);
	memcpy(icmp + 8, ad->ipv6, 16);
	nd_put_lla(icmp + ND_MSG_LEN, ND_OPT_TLLA, &ad->mac);
	SWR_STAT(ad, nd_adverts_sent);
	nd_finish(ad, m);
}

/* ------------------------------------------------------------------ */
/* Input                                                               */
/* ------------------------------------------------------------------ */

/* A validated ICMPv6 message for this adapter, in the first segment. */
struct nd_msg {
	const struct rte_ether_hdr *eth;
	const struct rte_ipv6_hdr *ip;
	const uint8_t *icmp;
	uint32_t len;             /**< ICMPv6 bytes */
	bool whole;               /**< the message lies in the first segment */
};

/* Addressed to us: our MAC or an IPv6 group; our address or our groups. */
static bool
nd_for_us(const struct swr_adapter *ad, const struct nd_msg *q)
{
	uint8_t sn[16];
	const uint8_t *dst = q->ip->dst_addr;

	if (!rte_is_same_ether_addr(&q->eth->dst_addr, &ad->mac) &&
	    !(q->eth->dst_addr.addr_bytes[0] == 0x33 &&
	      q->eth->dst_addr.addr_bytes[1] == 0x33))
		return false;
	nd_solicited_node(sn, ad->ipv6);
	return memcmp(dst, ad->ipv6, 16) == 0 || memcmp(dst, sn, 16) == 0 ||
		memcmp(dst, all_nodes, 16) == 0;
}

static bool
nd_parse(const struct swr_adapter *ad, const struct rte_mbuf *m,
	 struct nd_msg *q)
{
	uint32_t seg = rte_pktmbuf_data_len(m), sum;

	if (!ad->has_ipv6 || seg < ND_L4 + 4)
		return false;
	q->eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	q->ip = (const struct rte_ipv6_hdr *)((const uint8_t *)q->eth + ND_L3);
	q->icmp = (const uint8_t *)q->eth + ND_L4;
	if ((rte_be_to_cpu_32(q->ip->vtc_flow) >> 28) != 6 ||
	    q->ip->proto != IPPROTO_ICMPV6)
		return false;
	q->len = rte_be_to_cpu_16(q->ip->payload_len);
	if (q->len < 4 || rte_pktmbuf_pkt_len(m) < ND_L4 + q->len)
		return false;
	q->whole = seg >= ND_L4 + q->len;
	if (!nd_for_us(ad, q))
		return false;
	sum = rte_ipv6_phdr_cksum(q->ip, 0);
	sum += swr_cksum_mbuf(m, ND_L4, q->len);
	sum = (sum & 0xFFFF) + (sum >> 16);
	sum = (sum & 0xFFFF) + (sum >> 16);
	return sum == 0xFFFF;
}

/*
 * The link-layer address option of type @p type in an NS or NA, into
 * @p mac. @return 1 found, 0 absent, -EINVAL malformed options.
 */
static int
nd_find_lla(const struct nd_msg *q, uint8_t type, struct rte_ether_addr *mac)
{
	int found = 0;

	for (uint32_t off = ND_MSG_LEN; off < q->len;) {
		const uint8_t *o = q->icmp + off;
		uint32_t olen;

		if (off + 2 > q->len || o[1] == 0)
			return -EINVAL;
		olen = (uint32_t)o[1] * 8;
		if (off + olen > q->len)
			return -EINVAL;
		if (o[0] == type && olen == ND_OPT_LLA_LEN) {
			memcpy(mac->addr_bytes, o + 2, RTE_ETHER_ADDR_LEN);
			found = 1;
		}
		off += olen;
	}
	return found;
}

static enum swr_neigh_rx
nd_solicit_input(struct swr_adapter *ad, const struct nd_msg *q)
{
	static const uint8_t unspec[16];
	const uint8_t *src = q->ip->src_addr, *target = q->icmp + 8;
	struct rte_ether_addr mac;
	int lla = nd_find_lla(q, ND_OPT_SLLA, &mac);

	if (lla < 0 || memcmp(target, ad->ipv6, 16) != 0)
		return SWR_NEIGH_RX_IGNORED;
	if (memcmp(src, unspec, 16) == 0) {
		struct rte_ether_addr all;

		/* Duplicate address detection: defend the address. */
		if (lla != 0)
			return SWR_NEIGH_RX_IGNORED;   /* invalid from :: */
		SWR_STAT(ad, nd_solicits_rcvd);
		nd_mcast_mac(&all, all_nodes);
		nd_advertise(ad, &all, all_nodes, false);
		return SWR_NEIGH_RX_DONE;
	}
	if (!swr_ip6_unicast(src) || memcmp(src, ad->ipv6, 16) == 0)
		return SWR_NEIGH_RX_IGNORED;
	SWR_STAT(ad, nd_solicits_rcvd);
	if (lla == 0)
		rte_ether_addr_copy(&q->eth->src_addr, &mac);
	else if (!rte_is_multicast_ether_addr(&mac))
		swr_neigh_learn(ad, src, &mac, true);
	if (rte_is_multicast_ether_addr(&mac))
		return SWR_NEIGH_RX_IGNORED;
	nd_advertise(ad, &mac, src, true);
	return SWR_NEIGH_RX_DONE;
}

static enum swr_neigh_rx
nd_advert_input(struct swr_adapter *ad, const struct nd_msg *q)
{
	const uint8_t *target = q->icmp + 8;
	struct rte_ether_addr mac;
	int lla = nd_find_lla(q, ND_OPT_TLLA, &mac);

	if (lla < 0 || !swr_ip6_unicast(target) ||
	    memcmp(target, ad->ipv6, 16) == 0)
		return SWR_NEIGH_RX_IGNORED;
	if (lla == 0)
		rte_ether_addr_copy(&q->eth->src_addr, &mac);
	if (rte_is_multicast_ether_addr(&mac))
		return SWR_NEIGH_RX_IGNORED;
	SWR_STAT(ad, nd_adverts_rcvd);
	swr_neigh_learn(ad, target, &mac, false);
	return SWR_NEIGH_RX_DONE;
}

/* An echo reply carrying the request's identifier, sequence and data. */
static enum swr_neigh_rx
nd_echo_input(struct swr_adapter *ad, const struct rte_mbuf *req,
	      const struct nd_msg *q)
{
	struct rte_ether_addr dmac;
	struct rte_mbuf *m;
	uint8_t *icmp;

	if (memcmp(q->ip->dst_addr, ad->ipv6, 16) != 0 ||
	    !swr_ip6_unicast(q->ip->src_addr))
		return SWR_NEIGH_RX_IGNORED;    /* no replies to groups */
	rte_ether_addr_copy(&q->eth->src_addr, &dmac);
	m = nd_frame(ad, &dmac, q->ip->src_addr, q->len, 64, &icmp);
	if (m == NULL)
		return SWR_NEIGH_RX_IGNORED;    /* larger than our buffers */
	ndk_roce_mbuf_copy_out(req, ND_L4, icmp, q->len);
	icmp[0] = ND_ICMP6_ECHO_REPLY;
	icmp[2] = 0;
	icmp[3] = 0;
	SWR_STAT(ad, icmp6_echo_replied);
	nd_finish(ad, m);
	return SWR_NEIGH_RX_DONE;
}

enum swr_neigh_rx
swr_nd_input(struct swr_adapter *ad, struct rte_mbuf *m)
{
	struct nd_msg q;

	if (!nd_parse(ad, m, &q) || q.icmp[1] != 0)
		return SWR_NEIGH_RX_IGNORED;
	if (q.icmp[0] == ND_ICMP6_ECHO_REQUEST)
		return nd_echo_input(ad, m, &q);
	/* ND: from on-link only, whole, long enough for the target. */
	if ((q.icmp[0] != ND_ICMP6_NS && q.icmp[0] != ND_ICMP6_NA) ||
	    q.ip->hop_limits != ND_HOP_LIMIT || !q.whole ||
	    q.len < ND_MSG_LEN)
		return SWR_NEIGH_RX_IGNORED;
	if (q.icmp[0] == ND_ICMP6_NS)
		return nd_solicit_input(ad, &q);
	return nd_advert_input(ad, &q);
}
