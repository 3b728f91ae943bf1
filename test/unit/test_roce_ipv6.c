/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * RoCEv2 over IPv6: real Soft-RoCE IPv6 captures (test/data/rxe-ipv6-*.pcapng)
 * through the parser and the ICRC, the ICRC's IPv6 masks checked against a
 * reference written here, the IPv6 header template, parse errors, and the
 * RDMA-CM header of an IPv6 REQ.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "ndk_roce.h"
#include "ndk_test.h"
#include "pcapng.h"
#include "test_roce.h"

#define IP6_HLEN 40u
#define ETHERTYPE_IPV6 0x86DD

/* The two hosts of the captures: fd77::22 (client), fd77::21 (server). */
static const uint8_t addr21[16] = { 0xfd, 0x77, [15] = 0x21 };
static const uint8_t addr22[16] = { 0xfd, 0x77, [15] = 0x22 };

/* ------------------------------------------------------------------ */
/* Reference ICRC, independent of the library's masking and CRC code   */
/* ------------------------------------------------------------------ */

/*
 * ICRC of an IPv6 RoCEv2 packet of @p len bytes from the IPv6 header (ICRC
 * excluded), by the spec's recipe: 8 bytes of ones, then the packet with
 * traffic class, flow label, hop limit, UDP checksum and BTH byte 4 set to
 * ones.
 */
static uint32_t
ref_icrc6(const uint8_t *l3, uint32_t len)
{
	static uint8_t buf[8 + 9000];
	uint8_t *c = buf + 8;

	if (len > sizeof(buf) - 8)
		abort();
	memset(buf, 0xFF, 8);
	memcpy(c, l3, len);
	c[0] |= 0x0F;
	c[1] = c[2] = c[3] = 0xFF;
	c[7] = 0xFF;
	c[IP6_HLEN + 6] = c[IP6_HLEN + 7] = 0xFF;
	c[IP6_HLEN + 8 + 4] = 0xFF;
	return ~crc_bitwise(~0u, buf, 8 + len);
}

/* ------------------------------------------------------------------ */
/* Captures                                                            */
/* ------------------------------------------------------------------ */

struct cap6 {
	struct ndk_pcap_frame *frames;
	int n_frames;
	unsigned int *roce;   /* frame indexes of IPv6 UDP/4791 frames */
	unsigned int n;
	unsigned int n_icmp6; /* ICMPv6 frames (ND, RS) */
};

static void
cap6_free(struct cap6 *c)
{
	ndk_pcap_free_frames(c->frames, (unsigned int)c->n_frames);
	free(c->roce);
	memset(c, 0, sizeof(*c));
}

static int
cap6_load(const char *file, struct cap6 *c)
{
	char path[1024];

	memset(c, 0, sizeof(*c));
	snprintf(path, sizeof(path), "%s/%s", ndk_test_data_dir(), file);
	c->n_frames = ndk_pcap_load(path, NDK_PCAP_LINKTYPE_ETHERNET,
				    &c->frames);
	if (c->n_frames <= 0)
		return -1;
	c->roce = calloc((size_t)c->n_frames, sizeof(*c->roce));
	if (c->roce == NULL)
		abort();
	for (int i = 0; i < c->n_frames; i++) {
		const uint8_t *d = c->frames[i].data;
		uint32_t len = c->frames[i].len;

		if (len < 14 + IP6_HLEN || get_be16(d + 12) != ETHERTYPE_IPV6)
			continue;
		if (d[14 + 6] == 58)
			c->n_icmp6++;
		if (d[14 + 6] == 17 && len >= 14 + IP6_HLEN + 8 &&
		    get_be16(d + 14 + IP6_HLEN + 2) == NDK_ROCE_UDP_PORT)
			c->roce[c->n++] = (unsigned int)i;
	}
	return 0;
}

/* Parse chain @p m of frame @p d and check every field against it. */
static int
check6(const uint8_t *d, uint32_t len, struct rte_mbuf *m, unsigned int idx)
{
	const uint32_t l3 = 14, bth_off = l3 + IP6_HLEN + 8;
	uint32_t ip_len = IP6_HLEN + get_be16(d + l3 + 4);
	const uint8_t *bth = d + bth_off;
	int hdr = exp_hdr_len(bth[0]);
	uint32_t wire = get_le32(d + l3 + ip_len - 4);
	struct ndk_roce_pkt p;
	enum ndk_roce_parse_err e = ndk_roce_parse(m, &p, true);

	TEST_ASSERT_EQ(e, NDK_ROCE_PARSE_OK, "frame %u: %s", idx,
		       ndk_roce_parse_err_str(e));
	TEST_ASSERT(hdr > 0, "frame %u opcode 0x%x", idx, bth[0]);
	TEST_ASSERT(p.op == ndk_roce_opcode(bth[0]), "");
	TEST_ASSERT((const uint8_t *)p.bth ==
		    rte_pktmbuf_mtod_offset(m, uint8_t *, bth_off), "");
	TEST_ASSERT_EQ(p.qpn, get_be24(bth + 5), "");
	TEST_ASSERT_EQ(p.psn, get_be24(bth + 9), "");
	TEST_ASSERT(p.sip == 0 && p.dip == 0, "no IPv4 addresses");
	TEST_ASSERT(p.sip6 != NULL && memcmp(p.sip6, d + l3 + 8, 16) == 0,
		    "frame %u source", idx);
	TEST_ASSERT(p.dip6 != NULL && memcmp(p.dip6, d + l3 + 24, 16) == 0,
		    "frame %u destination", idx);
	TEST_ASSERT_EQ(p.l3_off, l3, "");
	TEST_ASSERT_EQ(p.payload_off, bth_off + (uint32_t)hdr, "");
	TEST_ASSERT_EQ(p.payload_off + p.payload_len + p.padcnt + 4,
		       l3 + ip_len, "frame %u", idx);
	TEST_ASSERT(len >= l3 + ip_len, "");
	TEST_ASSERT_EQ(ndk_roce_icrc_mbuf(m, l3, ip_len - 4), wire,
		       "frame %u icrc_mbuf", idx);
	return 0;
}

static int
capture6(const char *file, unsigned int min, const uint8_t *need_ops,
	 unsigned int n_need)
{
	unsigned int seen[256] = { 0 };
	struct cap6 c;

	TEST_ASSERT(pool() != NULL, "mempool");
	TEST_ASSERT(cap6_load(file, &c) == 0, "cannot read %s", file);
	for (unsigned int i = 0; i < c.n; i++) {
		unsigned int fi = c.roce[i];
		const uint8_t *d = c.frames[fi].data;
		uint32_t len = c.frames[fi].len;
		uint32_t ip_len = IP6_HLEN + get_be16(d + 14 + 4);
		uint32_t wire = get_le32(d + 14 + ip_len - 4);
		uint32_t hdr_end = 14 + IP6_HLEN + 8 +
				   (uint32_t)exp_hdr_len(d[14 + IP6_HLEN + 8]);
		static const uint32_t firsts[] = { 0, 1, 7 };
		struct rte_mbuf *m;
		int rc;

		/* What rxe sends on IPv6 (what we send too). */
		TEST_ASSERT_EQ(d[14] >> 4, 6, "frame %u version", fi + 1);
		TEST_ASSERT_EQ(get_be16(d + 14 + IP6_HLEN + 6), 0,
			       "frame %u: rxe's UDP checksum is 0", fi + 1);
		TEST_ASSERT_EQ(ref_icrc6(d + 14, ip_len - 4), wire,
			       "frame %u reference ICRC", fi + 1);
		TEST_ASSERT_EQ(ndk_roce_icrc_buf(d + 14, ip_len - 4), wire,
			       "frame %u icrc_buf", fi + 1);
		/* Flat (heap), then chains split after the headers. */
		m = chain_build(d, len, len, len, true);
		rc = check6(d, len, m, fi + 1);
		chain_free(m, true);
		if (rc != 0)
			goto fail;
		for (unsigned int k = 0; k < RTE_DIM(firsts); k++) {
			m = chain_build(d, len, hdr_end + firsts[k], 13 + k * 50,
					false);
			rc = check6(d, len, m, fi + 1);
			chain_free(m, false);
			if (rc != 0)
				goto fail;
		}
		seen[d[14 + IP6_HLEN + 8]]++;
	}
	printf("  %s: %u IPv6 RoCEv2 packets verified (reference ICRC, "
	       "library ICRC, parse), %u ICMPv6 frames\n", file, c.n,
	       c.n_icmp6);
	TEST_ASSERT(c.n >= min, "%s: only %u packets", file, c.n);
	for (unsigned int k = 0; k < n_need; k++)
		TEST_ASSERT(seen[need_ops[k]] > 0, "%s: no opcode 0x%x", file,
			    need_ops[k]);
	/* ND and router solicitations are IP but not RoCE. */
	for (int i = 0; i < c.n_frames; i++) {
		const uint8_t *d = c.frames[i].data;
		struct ndk_roce_pkt p;

		if (c.frames[i].len >= 14 + IP6_HLEN && d[12] == 0x86 &&
		    d[13] == 0xDD && d[14 + 6] == 58)
			TEST_ASSERT_EQ(parse_flat(d, c.frames[i].len, &p, true),
				       NDK_ROCE_PARSE_NOT_ROCE, "ICMPv6 #%d",
				       i + 1);
	}
	cap6_free(&c);
	return 0;
fail:
	cap6_free(&c);
	return -1;
}

int
test_ipv6_capture_pingpong(void)
{
	/* ibv_rc_pingpong -g 2 -s 1500: SEND first/last, ACK. */
	static const uint8_t ops[] = { 0x00, 0x02, 0x11 };

	return capture6("rxe-ipv6-pingpong.pcapng", 28, ops, RTE_DIM(ops));
}

int
test_ipv6_capture_rping(void)
{
	/* rping -a fd77::21: CM on QP1, SEND, READ, WRITE, ACK. */
	static const uint8_t ops[] = { 0x04, 0x0A, 0x0C, 0x10, 0x11, 0x64 };

	return capture6("rxe-ipv6-rping.pcapng", 25, ops, RTE_DIM(ops));
}

/* ------------------------------------------------------------------ */
/* Masks, template, errors                                             */
/* ------------------------------------------------------------------ */

/* The first RoCE frame of the ping-pong capture into @p f; its length. */
static uint32_t
first_frame(uint8_t *f, uint32_t cap)
{
	struct cap6 c;
	uint32_t len = 0;

	if (cap6_load("rxe-ipv6-pingpong.pcapng", &c) != 0 || c.n == 0)
		return 0;
	len = c.frames[c.roce[0]].len;
	if (len <= cap)
		memcpy(f, c.frames[c.roce[0]].data, len);
	else
		len = 0;
	cap6_free(&c);
	return len;
}

/* The masked fields do not change the ICRC; every other header byte does. */
int
test_ipv6_icrc_masks(void)
{
	static uint8_t f[2048], g[2048];
	uint32_t len = first_frame(f, sizeof(f)), ip_len;
	uint32_t icrc;
	struct ndk_roce_pkt p;

	TEST_ASSERT(len > 0, "capture");
	ip_len = IP6_HLEN + get_be16(f + 14 + 4);
	icrc = ndk_roce_icrc_buf(f + 14, ip_len - 4);
	for (uint32_t b = 0; b < IP6_HLEN + 8 + NDK_ROCE_BTH_LEN; b++) {
		bool masked = b == 1 || b == 2 || b == 3 || b == 7 ||
			      b == IP6_HLEN + 6 || b == IP6_HLEN + 7 ||
			      b == IP6_HLEN + 8 + 4;

		for (uint8_t x = 1; x != 0; x = (uint8_t)(x << 1)) {
			/* byte 0: only its low nibble (traffic class) is */
			bool m = masked || (b == 0 && x < 0x10);

			memcpy(g, f, len);
			g[14 + b] ^= x;
			TEST_ASSERT_EQ(ndk_roce_icrc_buf(g + 14, ip_len - 4) ==
				       icrc, m, "byte %u bit 0x%x", b, x);
			TEST_ASSERT_EQ(ref_icrc6(g + 14, ip_len - 4) == icrc,
				       m, "reference: byte %u bit 0x%x", b, x);
		}
	}
	/* A real checksum in the UDP header is accepted, like any other. */
	memcpy(g, f, len);
	g[14 + IP6_HLEN + 6] = 0x12;
	g[14 + IP6_HLEN + 7] = 0x34;
	TEST_ASSERT_EQ(parse_flat(g, len, &p, true), NDK_ROCE_PARSE_OK, "");
	/* A changed source address breaks it. */
	g[14 + 8] ^= 1;
	TEST_ASSERT_EQ(parse_flat(g, len, &p, true), NDK_ROCE_PARSE_BAD_ICRC,
		       "");
	return 0;
}

int
test_ipv6_template(void)
{
	static const struct rte_ether_addr ma = {{ 0x02, 0, 0, 0, 0, 0x0A }};
	static const struct rte_ether_addr mb = {{ 0x02, 0, 0, 0, 0, 0x0B }};
	static uint8_t f[NDK_ROCE_L2L4_LEN6 + 4096];
	struct ndk_roce_l2l4 t;

	TEST_ASSERT_EQ(NDK_ROCE_L2L4_LEN6, 62, "");
	ndk_roce_l2l4_init6(&t, &ma, &mb, addr22, addr21, 0xC5A5, 0xB8,
			    0x12345, 33);
	TEST_ASSERT(t.ipv6 && t.len == NDK_ROCE_L2L4_LEN6, "");
	for (uint32_t plen = 0; plen <= 1024; plen += 1 + plen / 3) {
		const uint8_t op = NDK_ROCE_OP_RC_SEND_ONLY;
		uint32_t pad = (0u - plen) & 3;
		uint32_t udp = NDK_ROCE_BTH_LEN + plen + pad + NDK_ROCE_ICRC_LEN;
		uint8_t *b = ndk_roce_l2l4_write(&t, f, (uint16_t)udp);
		uint32_t flen = NDK_ROCE_L2L4_LEN6 + udp;
		struct ndk_roce_pkt p;

		TEST_ASSERT(b == f + 62, "");
		TEST_ASSERT(memcmp(f, &mb, 6) == 0 && memcmp(f + 6, &ma, 6) == 0,
			    "MACs");
		TEST_ASSERT_EQ(get_be16(f + 12), ETHERTYPE_IPV6, "");
		TEST_ASSERT_EQ(ndk_roce_frame_l2l4_len(f), 62u, "");
		TEST_ASSERT_EQ(f[14], 0x6B, "version, traffic class high");
		TEST_ASSERT_EQ(f[15], 0x81, "traffic class low, label");
		TEST_ASSERT_EQ(get_be16(f + 16), 0x2345, "flow label");
		TEST_ASSERT_EQ(get_be16(f + 18), udp + 8, "payload length");
		TEST_ASSERT_EQ(f[20], 17, "next header UDP");
		TEST_ASSERT_EQ(f[21], 33, "hop limit");
		TEST_ASSERT(memcmp(f + 22, addr22, 16) == 0 &&
			    memcmp(f + 38, addr21, 16) == 0, "addresses");
		TEST_ASSERT_EQ(get_be16(f + 54), 0xC5A5, "sport");
		TEST_ASSERT_EQ(get_be16(f + 56), 4791, "dport");
		TEST_ASSERT_EQ(get_be16(f + 58), udp + 8, "UDP length");
		TEST_ASSERT_EQ(get_be16(f + 60), 0, "UDP checksum");
		ndk_roce_bth_set((struct ndk_roce_bth *)b, op, false,
				 (uint8_t)pad, 0x11, true, plen);
		for (uint32_t i = 0; i < plen + pad; i++)
			b[NDK_ROCE_BTH_LEN + i] = i < plen ? (uint8_t)(i * 3) : 0;
		put_le32(f + flen - 4, ndk_roce_icrc_buf(f + 14, flen - 18));
		TEST_ASSERT_EQ(get_le32(f + flen - 4), ref_icrc6(f + 14,
			       flen - 18), "plen %u", plen);
		TEST_ASSERT_EQ(parse_flat(f, flen, &p, true), NDK_ROCE_PARSE_OK,
			       "plen %u", plen);
		TEST_ASSERT_EQ(p.payload_off, 62u + NDK_ROCE_BTH_LEN, "");
		TEST_ASSERT_EQ(p.payload_len, plen, "");
		TEST_ASSERT_EQ(p.psn, plen, "");
	}
	/* An IPv4 template still says 42. */
	ndk_roce_l2l4_init(&t, &ma, &mb, RTE_BE32(0x0A000001),
			   RTE_BE32(0x0A000002), 0xC000, 0, 64);
	TEST_ASSERT(!t.ipv6 && t.len == NDK_ROCE_L2L4_LEN, "");
	ndk_roce_l2l4_write(&t, f, 16);
	TEST_ASSERT_EQ(ndk_roce_frame_l2l4_len(f), 42u, "");
	return 0;
}

int
test_ipv6_parse_errors(void)
{
	static uint8_t f[2048], g[2048 + 4];
	uint32_t len = first_frame(f, sizeof(f)), ip_len;
	struct ndk_roce_pkt p;

	TEST_ASSERT(len > 0, "capture");
	ip_len = IP6_HLEN + get_be16(f + 14 + 4);
	TEST_ASSERT_EQ(parse_flat(f, len, &p, true), NDK_ROCE_PARSE_OK, "");
	/* Every truncation is refused with a defined reason. */
	for (uint32_t l = 0; l < 14 + ip_len; l++) {
		enum ndk_roce_parse_err e = parse_flat(f, l, &p, false);

		TEST_ASSERT(e == NDK_ROCE_PARSE_TRUNCATED, "len %u: %s", l,
			    ndk_roce_parse_err_str(e));
	}
	/* Extension header (hop-by-hop) or another next header: not RoCE. */
	memcpy(g, f, len);
	g[14 + 6] = 0;
	TEST_ASSERT_EQ(parse_flat(g, len, &p, false), NDK_ROCE_PARSE_NOT_ROCE,
		       "");
	g[14 + 6] = 6;
	TEST_ASSERT_EQ(parse_flat(g, len, &p, false), NDK_ROCE_PARSE_NOT_ROCE,
		       "");
	/* IPv4 version nibble under the IPv6 EtherType. */
	memcpy(g, f, len);
	g[14] = (uint8_t)(0x40 | (g[14] & 0x0F));
	TEST_ASSERT_EQ(parse_flat(g, len, &p, false), NDK_ROCE_PARSE_BAD_IP, "");
	/* Payload length longer than the frame, or than the UDP datagram. */
	memcpy(g, f, len);
	g[14 + 5] = (uint8_t)(g[14 + 5] + 4);
	TEST_ASSERT_EQ(parse_flat(g, len, &p, false), NDK_ROCE_PARSE_TRUNCATED,
		       "");
	TEST_ASSERT_EQ(parse_flat(g, len + 4, &p, false), NDK_ROCE_PARSE_BAD_UDP,
		       "");
	/* Another UDP port: not RoCE. */
	memcpy(g, f, len);
	g[14 + IP6_HLEN + 3] ^= 1;
	TEST_ASSERT_EQ(parse_flat(g, len, &p, false), NDK_ROCE_PARSE_NOT_ROCE,
		       "");
	/* An 802.1Q tag in front is fine. */
	memcpy(g, f, 12);
	g[12] = 0x81;
	g[13] = 0x00;
	g[14] = 0x00;
	g[15] = 0x07;
	memcpy(g + 16, f + 12, len - 12);
	TEST_ASSERT_EQ(parse_flat(g, len + 4, &p, true), NDK_ROCE_PARSE_OK, "");
	TEST_ASSERT_EQ(p.l3_off, 18u, "");
	return 0;
}

/* ------------------------------------------------------------------ */
/* The CM over IPv6: rping's REQ and its RDMA-CM header                */
/* ------------------------------------------------------------------ */

int
test_ipv6_cm(void)
{
	struct cap6 c;
	unsigned int n_mads = 0, n_req = 0;
	struct ndk_roce_cma_hdr h, g;
	uint8_t pd[NDK_ROCE_CMA_HDR_LEN];

	TEST_ASSERT(cap6_load("rxe-ipv6-rping.pcapng", &c) == 0, "");
	for (unsigned int i = 0; i < c.n; i++) {
		const struct ndk_pcap_frame *fr = &c.frames[c.roce[i]];
		uint8_t out[NDK_ROCE_MAD_LEN];
		const uint8_t *mad;
		struct ndk_roce_cm_msg m;
		struct ndk_roce_pkt p;
		const uint8_t *src = fr->data + 14 + 8;

		if (parse_flat(fr->data, fr->len, &p, true) != NDK_ROCE_PARSE_OK ||
		    p.opcode != NDK_ROCE_OP_UD_SEND_ONLY ||
		    p.qpn != NDK_ROCE_GSI_QPN)
			continue;
		TEST_ASSERT_EQ(p.payload_len, (uint32_t)NDK_ROCE_MAD_LEN, "");
		mad = fr->data + p.payload_off;
		TEST_ASSERT_EQ(ndk_roce_cm_decode(mad, p.payload_len, &m), 0,
			       "frame %u", c.roce[i] + 1);
		ndk_roce_cm_encode(&m, out);
		TEST_ASSERT(memcmp(out, mad, NDK_ROCE_MAD_LEN) == 0,
			    "frame %u re-encodes", c.roce[i] + 1);
		n_mads++;
		if (m.attr_id != NDK_ROCE_CM_REQ)
			continue;
		n_req++;
		/* Path GIDs: the IPv6 addresses themselves. */
		TEST_ASSERT(memcmp(m.primary.local_gid, src, 16) == 0, "sgid");
		TEST_ASSERT(memcmp(m.primary.local_gid, addr22, 16) == 0, "");
		TEST_ASSERT(memcmp(m.primary.remote_gid, addr21, 16) == 0, "");
		TEST_ASSERT(!ndk_roce_gid_is_ipv4(m.primary.local_gid), "");
		TEST_ASSERT_EQ(ndk_roce_gid_to_ipv4(m.primary.remote_gid), 0u,
			       "");
		TEST_ASSERT_EQ(ndk_roce_cma_hdr_decode(m.pdata, &h), 0, "");
		TEST_ASSERT_EQ(h.ip_version, 6, "");
		TEST_ASSERT(memcmp(h.src_ip6, addr22, 16) == 0, "cma src");
		TEST_ASSERT(memcmp(h.dst_ip6, addr21, 16) == 0, "cma dst");
		TEST_ASSERT(h.src_ip == 0 && h.dst_ip == 0, "");
		TEST_ASSERT(h.src_port != 0, "");
		TEST_ASSERT_EQ(m.service_id & NDK_ROCE_CM_SID_PS_MASK,
			       NDK_ROCE_CM_SID_TCP, "TCP port space");
		ndk_roce_cma_hdr_encode(pd, &h);
		TEST_ASSERT(memcmp(pd, m.pdata, NDK_ROCE_CMA_HDR_LEN) == 0,
			    "cma header re-encodes");
	}
	printf("  %u CM MADs over IPv6, %u REQ\n", n_mads, n_req);
	TEST_ASSERT(n_mads >= 5 && n_req == 1, "REQ REP RTU DREQ DREP");
	cap6_free(&c);

	/* Round trip, and the IPv4 layout is unchanged by the IPv6 one. */
	memset(&h, 0, sizeof(h));
	h.ip_version = 6;
	h.src_port = 0xBEEF;
	memcpy(h.src_ip6, addr21, 16);
	memcpy(h.dst_ip6, addr22, 16);
	ndk_roce_cma_hdr_encode(pd, &h);
	TEST_ASSERT_EQ(pd[1], 0x60, "");
	TEST_ASSERT(memcmp(pd + 4, addr21, 16) == 0 &&
		    memcmp(pd + 20, addr22, 16) == 0, "layout");
	TEST_ASSERT_EQ(ndk_roce_cma_hdr_decode(pd, &g), 0, "");
	TEST_ASSERT(g.src_port == 0xBEEF && memcmp(&g.src_ip6, addr21, 16) == 0 &&
		    memcmp(&g.dst_ip6, addr22, 16) == 0, "");
	pd[1] = 0x70;
	TEST_ASSERT_EQ(ndk_roce_cma_hdr_decode(pd, &g), -EAFNOSUPPORT, "");
	return 0;
}
