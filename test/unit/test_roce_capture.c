/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Unit tests of lib/roce, part 2: the parser on real Soft-RoCE captures
 * (flat and multi-segment chains) and on broken frames, random mutation,
 * parse_err_str and the UDP source port hash. The case table and main() are
 * in test_roce.c.
 *
 * Frames are also handed to the parser in "heap mbufs": rte_mbuf headers
 * whose segments are exact-size malloc() blocks, so valgrind catches any read
 * past a segment.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "ndk_roce.h"
#include "ndk_test.h"
#include "pcapng.h"
#include "test_roce.h"

/* ------------------------------------------------------------------ */
/* mbuf chains                                                         */
/* ------------------------------------------------------------------ */

struct rte_mempool *
pool(void)
{
	static struct rte_mempool *mp;

	if (mp == NULL)
		mp = rte_pktmbuf_pool_create("roce_ut", 8191, 0, 0,
					     RTE_MBUF_DEFAULT_BUF_SIZE,
					     SOCKET_ID_ANY);
	return mp;
}

/*
 * Build a chain holding @p len bytes: the first segment gets @p first bytes,
 * the others @p chunk bytes each. From the mempool when @p heap is false,
 * else from exact-size heap blocks.
 */
struct rte_mbuf *
chain_build(const uint8_t *data, uint32_t len, uint32_t first, uint32_t chunk,
	    bool heap)
{
	struct rte_mbuf *head = NULL, *tail = NULL;
	uint32_t off = 0, nseg = 0;

	do {
		uint32_t n = RTE_MIN(off == 0 ? first : chunk, len - off);
		struct rte_mbuf *m;

		if (heap) {
			m = aligned_alloc(RTE_CACHE_LINE_SIZE, sizeof(*m));
			if (m == NULL)
				abort();
			memset(m, 0, sizeof(*m));
			m->buf_addr = malloc(n > 0 ? n : 1);
			if (m->buf_addr == NULL)
				abort();
			m->buf_len = (uint16_t)n;
			m->data_off = 0;
			m->data_len = (uint16_t)n;
		} else {
			m = rte_pktmbuf_alloc(pool());
			if (m == NULL || rte_pktmbuf_append(m, n) == NULL)
				abort();
		}
		memcpy(rte_pktmbuf_mtod(m, uint8_t *), data + off, n);
		if (head == NULL)
			head = m;
		else
			tail->next = m;
		tail = m;
		off += n;
		nseg++;
	} while (off < len);
	head->pkt_len = len;
	head->nb_segs = (uint16_t)nseg;
	return head;
}

void
chain_free(struct rte_mbuf *m, bool heap)
{
	if (!heap) {
		rte_pktmbuf_free(m);
		return;
	}
	while (m != NULL) {
		struct rte_mbuf *next = m->next;

		free(m->buf_addr);
		free(m);
		m = next;
	}
}

/*
 * Parse a flat frame from an exact-size heap mbuf, which is freed before
 * returning: @p p's fields are the caller's, its m and bth are NULL.
 */
enum ndk_roce_parse_err
parse_flat(const uint8_t *f, uint32_t len, struct ndk_roce_pkt *p, bool icrc)
{
	struct rte_mbuf *m = chain_build(f, len, len, len, true);
	enum ndk_roce_parse_err e = ndk_roce_parse(m, p, icrc);

	chain_free(m, true);
	/* The mbuf is gone: leave no pointer into it. */
	p->m = NULL;
	p->bth = NULL;
	p->sip6 = NULL;
	p->dip6 = NULL;
	return e;
}

/* Recompute the ICRC of an untagged frame after a header edit. */
static void
icrc_refresh(uint8_t *f)
{
	uint32_t ip_len = get_be16(f + 14 + 2);

	put_le32(f + 14 + ip_len - 4, ndk_roce_icrc_buf(f + 14, ip_len - 4));
}

/* ------------------------------------------------------------------ */
/* Real captures                                                       */
/* ------------------------------------------------------------------ */

struct cap_pkt {
	const uint8_t *data; /* exact-size heap copy */
	uint32_t len;
	uint32_t l3;
};

struct capture {
	struct ndk_pcap_frame *frames;
	int n_frames;
	struct cap_pkt *pkts; /* the IPv4 UDP/4791 frames */
	unsigned int n;
};

/* Offset of the BTH in a capture frame. */
static uint32_t
cap_bth(const struct cap_pkt *k)
{
	return k->l3 + (k->data[k->l3] & 0xFu) * 4 + 8;
}

static void
cap_free(struct capture *c)
{
	ndk_pcap_free_frames(c->frames, (unsigned int)c->n_frames);
	free(c->pkts);
	memset(c, 0, sizeof(*c));
}

/* Load a capture and pick its RoCEv2 frames (selected by hand). */
static int
cap_load(const char *file, struct capture *c)
{
	char path[1024];

	memset(c, 0, sizeof(*c));
	snprintf(path, sizeof(path), "%s/%s", ndk_test_data_dir(), file);
	c->n_frames = ndk_pcap_load(path, NDK_PCAP_LINKTYPE_ETHERNET,
				    &c->frames);
	if (c->n_frames < 0)
		return -1;
	c->pkts = calloc((size_t)c->n_frames + 1, sizeof(*c->pkts));
	if (c->pkts == NULL)
		abort();
	for (int i = 0; i < c->n_frames; i++) {
		const uint8_t *d = c->frames[i].data;
		uint32_t len = c->frames[i].len, l3 = 14, ihl;
		uint16_t et = len >= 14 ? get_be16(d + 12) : 0;

		if (et == 0x8100 && len >= 18) {
			et = get_be16(d + 16);
			l3 = 18;
		}
		if (et != 0x0800 || len < l3 + 20 || d[l3 + 9] != 17)
			continue;
		ihl = (d[l3] & 0xFu) * 4;
		if (len >= l3 + ihl + 8 &&
		    get_be16(d + l3 + ihl + 2) == NDK_ROCE_UDP_PORT)
			c->pkts[c->n++] = (struct cap_pkt){ d, len, l3 };
	}
	return 0;
}

/* Parse @p m (holding capture packet @p k) and check every field. */
static int
check_pkt(const struct cap_pkt *k, struct rte_mbuf *m, const char *what,
	  unsigned int idx)
{
	const uint8_t *d = k->data;
	uint32_t l3 = k->l3, ihl = (d[l3] & 0xFu) * 4;
	uint32_t ip_len = get_be16(d + l3 + 2), bth_off = l3 + ihl + 8;
	const uint8_t *bth = d + bth_off;
	int hdr = exp_hdr_len(bth[0]);
	uint32_t wire = get_le32(d + l3 + ip_len - 4);
	struct ndk_roce_pkt p;
	enum ndk_roce_parse_err e = ndk_roce_parse(m, &p, true);

	TEST_ASSERT_EQ(e, NDK_ROCE_PARSE_OK, "%s #%u: %s", what, idx,
		       ndk_roce_parse_err_str(e));
	TEST_ASSERT(hdr > 0, "#%u opcode 0x%x", idx, bth[0]);
	TEST_ASSERT(p.m == m && p.op == ndk_roce_opcode(bth[0]), "");
	TEST_ASSERT((const uint8_t *)p.bth ==
		    rte_pktmbuf_mtod_offset(m, uint8_t *, bth_off), "");
	TEST_ASSERT_EQ(p.opcode, bth[0], "");
	TEST_ASSERT_EQ(p.qpn, get_be24(bth + 5), "");
	TEST_ASSERT_EQ(p.psn, get_be24(bth + 9), "");
	TEST_ASSERT_EQ(p.padcnt, (bth[1] >> 4) & 3, "");
	TEST_ASSERT_EQ(p.se, bth[1] >> 7, "");
	TEST_ASSERT_EQ(p.ackreq, bth[8] >> 7, "");
	TEST_ASSERT(memcmp(&p.sip, d + l3 + 12, 4) == 0, "");
	TEST_ASSERT(memcmp(&p.dip, d + l3 + 16, 4) == 0, "");
	TEST_ASSERT_EQ(p.l3_off, l3, "");
	TEST_ASSERT_EQ(p.payload_off, bth_off + (uint32_t)hdr, "");
	TEST_ASSERT_EQ(p.payload_off + p.payload_len + p.padcnt + 4,
		       l3 + ip_len, "%s #%u", what, idx);
	TEST_ASSERT_EQ(ndk_roce_icrc_mbuf(m, l3, ip_len - 4), wire,
		       "%s #%u icrc_mbuf", what, idx);
	return 0;
}

static int
capture_flat(const char *file, unsigned int min)
{
	unsigned int seen[256] = { 0 }, nops = 0;
	struct capture c;

	TEST_ASSERT(pool() != NULL, "mempool");
	TEST_ASSERT(cap_load(file, &c) == 0, "cannot read %s", file);
	for (unsigned int i = 0; i < c.n; i++) {
		const struct cap_pkt *k = &c.pkts[i];
		uint32_t ip_len = get_be16(k->data + k->l3 + 2);
		uint32_t wire = get_le32(k->data + k->l3 + ip_len - 4);
		struct rte_mbuf *m;
		int rc;

		TEST_ASSERT_EQ(ndk_roce_icrc_buf(k->data + k->l3, ip_len - 4),
			       wire, "%s #%u icrc_buf", file, i);
		m = chain_build(k->data, k->len, k->len, k->len, true);
		rc = check_pkt(k, m, "heap", i);
		chain_free(m, true);
		if (rc != 0)
			goto fail;
		m = chain_build(k->data, k->len, 2048, 2048, false);
		rc = check_pkt(k, m, "mempool", i);
		chain_free(m, false);
		if (rc != 0)
			goto fail;
		nops += seen[k->data[cap_bth(k)]]++ == 0;
	}
	printf("  %s: %u RoCEv2 packets verified (ICRC + parse), %u other "
	       "frames, %u opcodes:", file, c.n, c.n_frames - c.n, nops);
	for (int op = 0; op < 256; op++)
		if (seen[op])
			printf(" %x", op);
	printf("\n");
	TEST_ASSERT(c.n >= min, "%s: only %u packets", file, c.n);
	cap_free(&c);
	return 0;
fail:
	cap_free(&c);
	return -1;
}

int
test_capture_vm_to_vm(void)
{
	return capture_flat("rxe-vm-to-vm.pcapng", 2000);
}

int
test_capture_silent_host(void)
{
	return capture_flat("rxe-to-silent-host.pcapng", 100);
}

/* One chain layout: check parse, ICRC and copy-out against the flat copy. */
static int
multiseg_one(const struct cap_pkt *k, unsigned int i, uint32_t first,
	     uint32_t chunk, bool heap)
{
	uint32_t hdr_end = cap_bth(k) +
			   (uint32_t)exp_hdr_len(k->data[cap_bth(k)]);
	struct rte_mbuf *m = chain_build(k->data, k->len, first, chunk, heap);
	uint8_t out[4096];
	struct ndk_roce_pkt p;
	int rc = 0;

	if (first < hdr_end) {
		enum ndk_roce_parse_err e = ndk_roce_parse(m, &p, true);

		chain_free(m, heap);
		TEST_ASSERT_EQ(e, NDK_ROCE_PARSE_TRUNCATED,
			       "#%u headers split at %u", i, first);
		return 0;
	}
	if (check_pkt(k, m, heap ? "heap chain" : "mempool chain", i) != 0) {
		printf("  (first %u, chunk %u, %u segments)\n", first, chunk,
		       m->nb_segs);
		rc = -1;
	} else {
		uint32_t off = (uint32_t)(rng() % k->len);
		uint32_t n = (uint32_t)(rng() % (k->len - off + 1));

		ndk_roce_mbuf_copy_out(m, off, out, n);
		if (memcmp(out, k->data + off, n) != 0) {
			printf("  copy_out %u+%u differs\n", off, n);
			rc = -1;
		}
	}
	chain_free(m, heap);
	return rc;
}

/*
 * Reference ICRC, written from the spec (section 4.8) independently of the
 * library's: 8 bytes of ones for the LRH, then the IPv4 header, UDP header
 * and BTH with TOS, TTL, IPv4 checksum, UDP checksum and BTH byte 4 forced
 * to ones, then the rest as is; CRC-32 of all that, table implementation.
 */
static uint32_t
icrc_reference(const uint8_t *l3, uint32_t len)
{
	uint8_t *b = malloc(8 + len);
	uint32_t ihl = (uint32_t)(l3[0] & 0x0F) * 4, crc;
	const uint32_t masked[] = { 1, 8, 10, 11, ihl + 6, ihl + 7,
				    ihl + 8 + 4 };

	if (b == NULL)
		return 0;
	memset(b, 0xFF, 8);
	memcpy(b + 8, l3, len);
	for (unsigned int i = 0; i < RTE_DIM(masked); i++)
		if (masked[i] < len)
			b[8 + masked[i]] = 0xFF;
	crc = ~ndk_roce_crc32_update_sw(~0u, b, 8 + len);
	free(b);
	return crc;
}

/*
 * The ICRC of every length from a bare header to a 4 KiB payload with
 * headers (IPv4 without and with options), flat at random alignments and
 * in random mbuf chains, and built piecewise (ndk_roce_icrc_start(), then
 * ndk_roce_crc32_copy()), equals the reference: covers the small-frame
 * single pass, the header chunk and the CRC implementation in use.
 */
int
test_icrc_lengths(void)
{
	enum { MAXLEN = 4200, ALIGN = 64 };
	uint8_t *buf = malloc(MAXLEN + ALIGN);
	unsigned int chains = 0;

	TEST_ASSERT(buf != NULL, "");
	for (unsigned int i = 0; i < MAXLEN + ALIGN; i++)
		buf[i] = (uint8_t)rng();
	for (uint32_t ihl = 5; ihl <= 6; ihl++) {
		uint32_t hdr = ihl * 4 + 8 + NDK_ROCE_BTH_LEN;

		for (uint32_t len = hdr; len <= MAXLEN; len++) {
			uint32_t off = (uint32_t)(rng() % ALIGN);
			uint8_t *l3 = buf + off, *copy;
			uint32_t ref, first, chunk, split, crc;
			struct rte_mbuf *m;

			l3[0] = (uint8_t)(0x40 | ihl);
			ref = icrc_reference(l3, len);
			copy = malloc(len);
			TEST_ASSERT(copy != NULL, "");
			memcpy(copy, l3, len);
			TEST_ASSERT_EQ(ndk_roce_icrc_buf(copy, len), ref,
				       "flat, ihl %u len %u off %u", ihl, len,
				       off);
			/*
			 * In place with the bytes before it readable (random
			 * bytes that must not count): small packets read
			 * whole lanes from up to 15 bytes before.
			 */
			TEST_ASSERT_EQ(ndk_roce_icrc_frame(l3, len, off), ref,
				       "frame, ihl %u len %u headroom %u", ihl,
				       len, off);
			TEST_ASSERT_EQ(ndk_roce_icrc_frame(l3, len, off % 16),
				       ref, "frame, ihl %u len %u headroom %u",
				       ihl, len, off % 16);
			/*
			 * Piecewise, as the transmit path builds it: the
			 * headers and some payload, then the rest copied in
			 * the CRC's pass.
			 */
			split = hdr + (uint32_t)(rng() % (len - hdr + 1));
			memset(copy, 0, len);
			crc = ndk_roce_icrc_start(l3, split);
			crc = ndk_roce_crc32_copy(crc, copy + split, l3 + split,
						  len - split);
			TEST_ASSERT_EQ(~crc, ref, "start %u + copy %u", split,
				       len - split);
			TEST_ASSERT(memcmp(copy + split, l3 + split,
					   len - split) == 0, "copied bytes");
			/* The headers read in place, the headroom before. */
			crc = ndk_roce_icrc_start_frame(l3, split, off);
			crc = ndk_roce_crc32_copy(crc, copy + split, l3 + split,
						  len - split);
			TEST_ASSERT_EQ(~crc, ref, "start in place %u (headroom "
				       "%u) + copy %u", split, off, len - split);
			free(copy);
			/* Headers in the first segment, the rest anywhere. */
			first = hdr + (uint32_t)(rng() % (len - hdr + 1));
			chunk = 1 + (uint32_t)(rng() % 2048);
			if (len % 7 > 1)
				continue;
			if (len % 7 == 1)
				first = len;    /* one segment: the flat path */
			m = chain_build(l3, len, first, chunk, true);
			TEST_ASSERT(m != NULL, "");
			TEST_ASSERT_EQ(ndk_roce_icrc_mbuf(m, 0, len), ref,
				       "chain, ihl %u len %u first %u chunk %u",
				       ihl, len, first, chunk);
			chain_free(m, true);
			chains++;
		}
	}
	printf("  %u chains checked\n", chains);
	free(buf);
	return 0;
}

int
test_capture_multiseg(void)
{
	static const char *const files[] = { "rxe-vm-to-vm.pcapng",
		"rxe-to-silent-host.pcapng" };
	unsigned int chains = 0;

	TEST_ASSERT(pool() != NULL, "mempool");
	for (unsigned int f = 0; f < RTE_DIM(files); f++) {
		struct capture c;

		TEST_ASSERT(cap_load(files[f], &c) == 0, "%s", files[f]);
		for (unsigned int i = 0; i < c.n; i++) {
			const struct cap_pkt *k = &c.pkts[i];
			uint32_t hdr_end = cap_bth(k) +
				(uint32_t)exp_hdr_len(k->data[cap_bth(k)]);
			/* {first segment, other segments} */
			const uint32_t cfg[][2] = {
				{ hdr_end, 2048 },
				{ hdr_end + 1 + i % 7, 1 + i % 97 },
				{ RTE_MAX(128u, hdr_end), 256 },
				{ RTE_MAX(k->len - 1 - i % 4, hdr_end), 2048 },
				{ hdr_end - 1 - i % 5, 64 },
			};

			for (unsigned int j = 0; j < RTE_DIM(cfg); j++) {
				for (int heap = 0; heap < 2; heap++) {
					if (multiseg_one(k, i, cfg[j][0],
							 cfg[j][1], heap) != 0) {
						cap_free(&c);
						TEST_FAIL("%s #%u config %u",
							  files[f], i, j);
					}
					chains++;
				}
			}
		}
		cap_free(&c);
	}
	printf("  %u chains checked\n", chains);
	TEST_ASSERT(rte_mempool_in_use_count(pool()) == 0, "mbuf leak");
	return 0;
}

/* ------------------------------------------------------------------ */
/* Parse errors, fuzzing, error strings, UDP source port               */
/* ------------------------------------------------------------------ */

/* Header edits of the base frame: set @p width big-endian bytes at @p off. */
static const struct {
	const char *what;
	uint16_t off;
	uint8_t width;
	uint16_t val;
	bool fix_icrc;
	enum ndk_roce_parse_err want;
} edits[] = {
	{ "ARP", 12, 2, 0x0806, 0, NDK_ROCE_PARSE_NOT_IPV4 },
	{ "IPv4 in IPv6 EtherType", 12, 2, 0x86DD, 0, NDK_ROCE_PARSE_BAD_IP },
	{ "RoCEv1", 12, 2, 0x8915, 0, NDK_ROCE_PARSE_NOT_IPV4 },
	{ "QinQ", 12, 2, 0x88A8, 0, NDK_ROCE_PARSE_NOT_IPV4 },
	{ "TCP", 23, 1, 6, 0, NDK_ROCE_PARSE_NOT_ROCE },
	{ "UDP 4792", 36, 2, 4792, 0, NDK_ROCE_PARSE_NOT_ROCE },
	{ "UDP 53", 36, 2, 53, 0, NDK_ROCE_PARSE_NOT_ROCE },
	{ "IP version 6", 14, 1, 0x65, 0, NDK_ROCE_PARSE_BAD_IP },
	{ "IHL 4", 14, 1, 0x44, 0, NDK_ROCE_PARSE_BAD_IP },
	{ "IP length < IHL", 16, 2, 19, 0, NDK_ROCE_PARSE_BAD_IP },
	{ "MF", 20, 2, 0x6000, 0, NDK_ROCE_PARSE_BAD_IP },
	{ "fragment offset", 20, 2, 0x4001, 0, NDK_ROCE_PARSE_BAD_IP },
	{ "last fragment", 20, 2, 0x00B9, 0, NDK_ROCE_PARSE_BAD_IP },
	{ "DF clear", 20, 2, 0x0000, 1, NDK_ROCE_PARSE_OK },
	{ "IP length > frame", 16, 2, 85, 0, NDK_ROCE_PARSE_TRUNCATED },
	{ "UDP length - 1", 38, 2, 63, 0, NDK_ROCE_PARSE_BAD_UDP },
	{ "UDP length + 1", 38, 2, 65, 0, NDK_ROCE_PARSE_BAD_UDP },
	{ "UDP length 0", 38, 2, 0, 0, NDK_ROCE_PARSE_BAD_UDP },
	{ "UDP length 8", 38, 2, 8, 0, NDK_ROCE_PARSE_BAD_UDP },
	{ "TVer 1", 43, 1, 0x31, 1, NDK_ROCE_PARSE_BAD_BTH },
	{ "TVer 15", 43, 1, 0x3F, 1, NDK_ROCE_PARSE_BAD_BTH },
	{ "pad 2 of 3", 43, 1, 0x20, 1, NDK_ROCE_PARSE_OK },
	{ "FECN/BECN", 46, 1, 0xC0, 0, NDK_ROCE_PARSE_OK },
	{ "bad ICRC", 95, 1, 0x00, 0, NDK_ROCE_PARSE_BAD_ICRC },
};

/* Expect @p want for frame @p f of @p len bytes. */
#define EXPECT(f, len, want, icrc, what) do { \
	struct ndk_roce_pkt p_; \
	enum ndk_roce_parse_err e_ = parse_flat(f, len, &p_, icrc); \
	TEST_ASSERT_EQ(e_, want, "%s: got %s", what, \
		       ndk_roce_parse_err_str(e_)); \
} while (0)

int
test_parse_errors(void)
{
	static const struct { uint8_t op; uint32_t plen; } tr[] = {
		{ 0x04, 1000 }, { 0x11, 0 }, { 0x0B, 3 }, { 0x81, 0 },
	};
	static uint8_t base[2048], f[2048];
	struct ndk_roce_pkt p;
	uint32_t len, blen;

	/* Truncated at every length, several frame types. */
	for (unsigned int i = 0; i < RTE_DIM(tr); i++) {
		len = build_frame(base, tr[i].op, 1, 2, tr[i].plen);
		EXPECT(base, len, NDK_ROCE_PARSE_OK, true, "intact");
		for (uint32_t l = 0; l < len; l++) {
			EXPECT(base, l, NDK_ROCE_PARSE_TRUNCATED, true, "trunc");
			EXPECT(base, l, NDK_ROCE_PARSE_TRUNCATED, false, "trunc");
		}
	}

	/* SEND_ONLY, 37 bytes + pad 3: IP length 84, UDP length 64. */
	blen = build_frame(base, 0x04, 0x42, 7, 37);
	TEST_ASSERT(blen == 98 && get_be16(base + 38) == 64, "base frame");
	for (unsigned int i = 0; i < RTE_DIM(edits); i++) {
		uint32_t o = edits[i].off;

		memcpy(f, base, blen);
		if (edits[i].width == 2)
			f[o++] = (uint8_t)(edits[i].val >> 8);
		f[o] = (uint8_t)edits[i].val;
		if (edits[i].fix_icrc)
			icrc_refresh(f);
		EXPECT(f, blen, edits[i].want, true, edits[i].what);
	}

	/* Ethernet padding after the IP datagram is ignored. */
	memcpy(f, base, blen);
	memset(f + blen, 0xEE, 20);
	TEST_ASSERT_EQ(parse_flat(f, blen + 20, &p, true), NDK_ROCE_PARSE_OK, "");
	TEST_ASSERT_EQ(p.payload_len, 37, "");

	/* One 802.1Q tag: accepted; with ARP inside: not IPv4. */
	memcpy(f, base, 12);
	memcpy(f + 12, "\x81\x00\x20\x05", 4);
	memcpy(f + 16, base + 12, blen - 12);
	TEST_ASSERT_EQ(parse_flat(f, blen + 4, &p, true), NDK_ROCE_PARSE_OK, "");
	TEST_ASSERT_EQ(p.l3_off, 18, "");
	TEST_ASSERT_EQ(p.payload_off, 18 + 28 + 12, "");
	for (uint32_t l = 0; l < blen + 4; l++)
		EXPECT(f, l, NDK_ROCE_PARSE_TRUNCATED, true, "vlan trunc");
	memcpy(f + 16, "\x08\x06", 2);
	EXPECT(f, blen + 4, NDK_ROCE_PARSE_NOT_IPV4, true, "vlan arp");

	/* IP total length too short for UDP + BTH + ICRC (UDP matching). */
	static const uint16_t short_ip[] = { 20, 27, 28, 43 };
	for (unsigned int i = 0; i < RTE_DIM(short_ip); i++) {
		memcpy(f, base, blen);
		f[17] = (uint8_t)short_ip[i];
		f[39] = (uint8_t)(short_ip[i] - 20);
		EXPECT(f, blen, NDK_ROCE_PARSE_TRUNCATED, true, "short IP");
	}

	/* Every undefined opcode (ICRC made valid). */
	for (unsigned int op = 0; op < 256; op++) {
		if (exp_hdr_len((uint8_t)op) > 0)
			continue;
		memcpy(f, base, blen);
		f[42] = (uint8_t)op;
		icrc_refresh(f);
		EXPECT(f, blen, NDK_ROCE_PARSE_BAD_OPCODE, true, "opcode");
	}

	/* Opcodes without payload: extra bytes or a pad count. */
	len = build_frame(f, NDK_ROCE_OP_RC_ACK, 3, 4, 0);
	f[17] = (uint8_t)(get_be16(f + 16) + 4);   /* 4 more bytes */
	f[39] = (uint8_t)(get_be16(f + 38) + 4);
	memset(f + len, 0, 4);
	icrc_refresh(f);
	EXPECT(f, len + 4, NDK_ROCE_PARSE_BAD_UDP, true, "ACK + data");
	f[42 + 1] |= 1 << 4;
	icrc_refresh(f);
	EXPECT(f, len + 4, NDK_ROCE_PARSE_BAD_BTH, true, "ACK + pad");
	len = build_frame(f, NDK_ROCE_OP_RC_ACK, 3, 4, 0);
	f[42 + 1] |= 1 << 4;
	icrc_refresh(f);
	EXPECT(f, len, NDK_ROCE_PARSE_TRUNCATED, true, "ACK, no room for pad");
	/* Pad count larger than what the datagram holds. */
	len = build_frame(f, NDK_ROCE_OP_RC_SEND_ONLY, 3, 4, 0);
	f[42 + 1] |= 3 << 4;
	icrc_refresh(f);
	EXPECT(f, len, NDK_ROCE_PARSE_TRUNCATED, true, "pad > room");

	/* Every single-bit flip is caught, except in the masked fields. */
	for (uint32_t bit = 0; bit < (blen - 14) * 8; bit++) {
		uint32_t byte = 14 + bit / 8;
		bool masked = byte == 15 || byte == 22 || byte == 24 ||
			      byte == 25 || byte == 40 || byte == 41 ||
			      byte == 46;
		enum ndk_roce_parse_err e;

		memcpy(f, base, blen);
		f[byte] ^= (uint8_t)(1u << (bit % 8));
		e = parse_flat(f, blen, &p, true);
		if (masked)
			TEST_ASSERT_EQ(e, NDK_ROCE_PARSE_OK, "byte %u", byte);
		else
			TEST_ASSERT(e != NDK_ROCE_PARSE_OK, "byte %u", byte);
		if (byte >= 54)  /* payload, pad, ICRC */
			TEST_ASSERT_EQ(e, NDK_ROCE_PARSE_BAD_ICRC, "byte %u",
				       byte);
		if (byte >= 54 && byte < blen - 4)
			EXPECT(f, blen, NDK_ROCE_PARSE_OK, false, "no check");
	}

	/* IPv4 options: IHL 6 and 15. */
	for (uint32_t opt = 4; opt <= 40; opt += 36) {
		memcpy(f, base, 34);
		memset(f + 34, 0x01, opt);         /* NOPs */
		memcpy(f + 34 + opt, base + 34, blen - 34);
		f[14] = (uint8_t)(0x40 | (20 + opt) / 4);
		f[17] = (uint8_t)(84 + opt);
		put_le32(f + blen + opt - 4,
			 ndk_roce_icrc_buf(f + 14, blen + opt - 18));
		TEST_ASSERT_EQ(parse_flat(f, blen + opt, &p, true),
			       NDK_ROCE_PARSE_OK, "IP options %u", opt);
		TEST_ASSERT_EQ(p.payload_off, 54 + opt, "");
		TEST_ASSERT_EQ(p.payload_len, 37, "");
		for (uint32_t l = 0; l < blen + opt; l++)
			EXPECT(f, l, NDK_ROCE_PARSE_TRUNCATED, true, "opt trunc");
	}
	return 0;
}

/*
 * Random header corruption, truncation and segmentation of real frames: the
 * parser must return a defined code, stay inside the chain (valgrind), and
 * what it accepts must be self-consistent.
 */
int
test_parse_fuzz(void)
{
	static uint8_t f[2048];
	struct capture c;
	unsigned int ok = 0;

	TEST_ASSERT(cap_load("rxe-vm-to-vm.pcapng", &c) == 0 && c.n > 0, "");
	for (int it = 0; it < 20000; it++) {
		const struct cap_pkt *k = &c.pkts[rng() % c.n];
		uint32_t len = k->len, first, chunk;
		struct ndk_roce_pkt p;
		enum ndk_roce_parse_err e;
		struct rte_mbuf *m;

		memcpy(f, k->data, len);
		for (int n = (int)(rng() % 4); n >= 0; n--)
			f[rng() % RTE_MIN(len, 64u)] = (uint8_t)rng();
		if (rng() & 1)
			len = (uint32_t)(rng() % (len + 1));
		first = 1 + (uint32_t)(rng() % (len + 1));
		chunk = 1 + (uint32_t)(rng() % 300);
		m = chain_build(f, len, first, chunk, true);
		e = ndk_roce_parse(m, &p, rng() & 1);
		TEST_ASSERT((unsigned int)e < NDK_ROCE_PARSE_ERR_MAX, "%d", e);
		if (e == NDK_ROCE_PARSE_OK) {
			ok++;
			TEST_ASSERT(p.payload_off <= m->data_len &&
				    p.payload_off + p.payload_len + p.padcnt + 4 <=
				    len, "it %d", it);
			TEST_ASSERT(p.op->flags & NDK_ROCE_OPF_VALID, "");
		}
		chain_free(m, true);
	}
	printf("  20000 mutated frames, %u still accepted\n", ok);
	cap_free(&c);
	return 0;
}

int
test_parse_err_str(void)
{
	for (int i = 0; i < NDK_ROCE_PARSE_ERR_MAX; i++) {
		const char *s = ndk_roce_parse_err_str((enum ndk_roce_parse_err)i);

		TEST_ASSERT(s != NULL && s[0] != '\0', "%d", i);
		for (int j = 0; j < i; j++)
			TEST_ASSERT(strcmp(s, ndk_roce_parse_err_str(
				(enum ndk_roce_parse_err)j)) != 0, "dup %d", i);
	}
	TEST_ASSERT(strcmp(ndk_roce_parse_err_str(NDK_ROCE_PARSE_OK), "ok") == 0,
		    "");
	TEST_ASSERT(ndk_roce_parse_err_str(NDK_ROCE_PARSE_ERR_MAX) != NULL, "");
	TEST_ASSERT(ndk_roce_parse_err_str((enum ndk_roce_parse_err)-1) != NULL,
		    "");
	return 0;
}

int
test_udp_sport(void)
{
	static uint8_t hit[0x4000];
	unsigned int distinct = 0;

	/* Values from the spec's formula worked by hand. */
	TEST_ASSERT_EQ(ndk_roce_udp_sport(0x11, 0x11), 0xC121, "");
	TEST_ASSERT_EQ(ndk_roce_udp_sport(0x123456, 0x654321), 0xF787, "");
	TEST_ASSERT_EQ(ndk_roce_udp_sport(1, 1), 0xC001, "");
	TEST_ASSERT_EQ(ndk_roce_udp_sport(0, 5), 0xC000, "");
	TEST_ASSERT_EQ(ndk_roce_udp_sport(0xFFFFFF, 0xFFFFFF), 0xFF21, "");
	for (int i = 0; i < 20000; i++) {
		uint32_t a = (uint32_t)rng() & 0xFFFFFF;
		uint32_t b = (uint32_t)rng() & 0xFFFFFF;
		uint16_t s = ndk_roce_udp_sport(a, b);

		TEST_ASSERT(s >= 0xC000, "0x%x", s);
		TEST_ASSERT_EQ(s, ndk_roce_udp_sport(b, a), "symmetric");
		distinct += hit[s - 0xC000]++ == 0;
	}
	TEST_ASSERT(distinct > 10000, "poor spread: %u ports", distinct);
	return 0;
}
