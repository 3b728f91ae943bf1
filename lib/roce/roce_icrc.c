/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * RoCEv2 invariant CRC (ICRC) over a packet's headers, masked as the spec
 * says, and its payload: the masks, the header chunk, the flat and
 * mbuf-chain entries. The CRC-32 register updates it runs on (tables,
 * carry-less folding) and the whole-lane small-packet variants are in
 * roce_crc.c (roce_crc_priv.h).
 */

#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "ndk_roce.h"
#include "roce_crc_priv.h"

/* ------------------------------------------------------------------ */
/* ICRC                                                                */
/* ------------------------------------------------------------------ */

/* IPv4 header (up to 60 bytes; IPv6: 40) + UDP + BTH. */
#define ICRC_HDR_MAX (60 + 8 + NDK_ROCE_BTH_LEN)
/* The fixed IPv6 header (RoCEv2 carries no extension headers). */
#define ICRC_IP6_HLEN 40
/*
 * The masked copy of the headers is extended to a multiple of 16 bytes
 * (with the bytes that follow them, when the packet has them), so that
 * the folding implementations take it without a table-driven tail: 40
 * bytes of IPv4 + UDP + BTH become 48.
 */
#define ICRC_HDR_ALIGN 16
#define ICRC_HDR_BUF RTE_ALIGN_CEIL(ICRC_HDR_MAX, ICRC_HDR_ALIGN)
/*
 * Flat packets up to this length (a 64-byte WRITE is 120 bytes from the
 * IPv4 header to the ICRC) are copied whole and masked, so the CRC is
 * one pass and one final reduction instead of two.
 */
#define ICRC_FLAT_MAX 128
/* The register-masked variant reads the first 48 bytes as three lanes. */
#define ICRC_SMALL_MIN 48

static inline size_t
icrc_hdr_chunk(size_t len, size_t ihl)
{
	return RTE_MIN(len, RTE_ALIGN_CEIL(ihl + 8 + NDK_ROCE_BTH_LEN,
					   (size_t)ICRC_HDR_ALIGN));
}

/* IP header length from its first byte: 40 for IPv6, IHL for IPv4. */
static inline size_t
icrc_ip_hdr_len(uint8_t ver_ihl)
{
	size_t ihl = (size_t)(ver_ihl & 0x0F) << 2;

	if ((ver_ihl >> 4) == 6)
		return ICRC_IP6_HLEN;
	return ihl < 20 ? 20 : ihl;
}

static inline void
mask_byte(uint8_t *h, size_t hlen, size_t idx)
{
	if (idx < hlen)
		h[idx] = 0xFF;
}

/*
 * Force the variant fields of the first @p hlen bytes (IP + UDP + BTH) to
 * ones: IPv4 TOS, TTL and checksum, or IPv6 traffic class, flow label and
 * hop limit; UDP checksum, BTH byte 4 (FECN, BECN, reserved). IPv4
 * options, if any, are covered as transmitted. @p ihl is 40 for IPv6.
 */
static inline void
icrc_mask_hdr(uint8_t *h, size_t hlen, size_t ihl)
{
	if (ihl == ICRC_IP6_HLEN && hlen > 0 && (h[0] >> 4) == 6) {
		h[0] |= 0x0F;                    /* traffic class, high */
		mask_byte(h, hlen, 1);           /* TC low, flow label */
		mask_byte(h, hlen, 2);
		mask_byte(h, hlen, 3);
		mask_byte(h, hlen, 7);           /* hop limit */
		mask_byte(h, hlen, ihl + 6);     /* UDP checksum */
		mask_byte(h, hlen, ihl + 7);
		mask_byte(h, hlen, ihl + 8 + 4); /* BTH FECN/BECN/resv */
		return;
	}
	if (likely(hlen >= ihl + 8 + NDK_ROCE_BTH_LEN)) {
		h[1] = 0xFF;
		h[8] = 0xFF;
		h[10] = 0xFF;
		h[11] = 0xFF;
		h[ihl + 6] = 0xFF;
		h[ihl + 7] = 0xFF;
		h[ihl + 8 + 4] = 0xFF;
		return;
	}
	/* A truncated header: mask what is there. */
	mask_byte(h, hlen, 1);           /* TOS */
	mask_byte(h, hlen, 8);           /* TTL */
	mask_byte(h, hlen, 10);          /* header checksum */
	mask_byte(h, hlen, 11);
	mask_byte(h, hlen, ihl + 6);     /* UDP checksum */
	mask_byte(h, hlen, ihl + 7);
	mask_byte(h, hlen, ihl + 8 + 4); /* BTH FECN/BECN/resv */
}

/* The ICRC register (not complemented) over the first @p len bytes. */
static uint32_t
icrc_reg(const uint8_t *p, size_t len)
{
	uint8_t h[RTE_MAX(ICRC_HDR_BUF, ICRC_FLAT_MAX)];
	size_t ihl, hlen;
	uint32_t crc;

	if (len == 0)
		return roce_icrc_seed;
	ihl = icrc_ip_hdr_len(p[0]);
	if (len <= ICRC_FLAT_MAX) {
		/* Small frame: masked in registers, or one masked copy. */
		if (roce_icrc_small_impl != NULL && ihl == 20 &&
		    len >= ICRC_SMALL_MIN)
			return roce_icrc_small_impl(roce_icrc_seed, p, len);
		memcpy(h, p, len);
		icrc_mask_hdr(h, len, ihl);
		return roce_crc32_impl(roce_icrc_seed, h, len);
	}
	hlen = icrc_hdr_chunk(len, ihl);
	memcpy(h, p, hlen);
	icrc_mask_hdr(h, hlen, ihl);
	crc = roce_crc32_impl(roce_icrc_seed, h, hlen);
	return roce_crc32_impl(crc, p + hlen, len - hlen);
}

uint32_t
ndk_roce_icrc_buf(const void *l3, size_t len)
{
	return ~icrc_reg(l3, len);
}

/* The ICRC register over @p len bytes with @p headroom readable before. */
static inline uint32_t
icrc_frame_reg(const uint8_t *p, size_t len, size_t headroom)
{
	if (likely(roce_icrc_aligned_impl != NULL && len >= ROCE_ICRC_ALIGN_MIN &&
		   ((-len) & 15) <= headroom && p[0] == 0x45))
		return roce_icrc_aligned_impl(p, len);
	return icrc_reg(p, len);
}

uint32_t
ndk_roce_icrc_frame(const void *l3, size_t len, size_t headroom)
{
	return ~icrc_frame_reg(l3, len, headroom);
}

uint32_t
ndk_roce_icrc_start_frame(const void *l3, size_t len, size_t headroom)
{
	return icrc_frame_reg(l3, len, headroom);
}

uint32_t
ndk_roce_icrc_start(const void *l3, size_t len)
{
	return icrc_reg(l3, len);
}

uint32_t
ndk_roce_icrc_mbuf(const struct rte_mbuf *m, uint32_t l3_off, uint32_t len)
{
	uint8_t h[ICRC_HDR_BUF];
	const uint8_t *hp;
	uint32_t off, hlen;
	size_t ihl;
	uint32_t crc;

	if (len == 0)
		return ~roce_icrc_seed;
	/* All in the first segment (small frames, big buffers): flat. */
	if ((uint64_t)l3_off + len <= m->data_len)
		return ndk_roce_icrc_frame(rte_pktmbuf_mtod_offset(m,
			const uint8_t *, l3_off), len,
			(size_t)rte_pktmbuf_headroom(m) + l3_off);
	hp = rte_pktmbuf_read(m, l3_off, 1, h);
	if (hp == NULL)
		return ~roce_icrc_seed;
	ihl = icrc_ip_hdr_len(hp[0]);
	hlen = (uint32_t)icrc_hdr_chunk(len, ihl);
	hp = rte_pktmbuf_read(m, l3_off, hlen, h);
	if (hp == NULL)
		return ~roce_icrc_seed;
	if (hp != h)
		memcpy(h, hp, hlen);
	icrc_mask_hdr(h, hlen, ihl);
	crc = roce_crc32_impl(roce_icrc_seed, h, hlen);

	/* The rest straight from the segments. */
	len -= hlen;
	off = l3_off + hlen;
	while (m != NULL && off >= m->data_len) {
		off -= m->data_len;
		m = m->next;
	}
	while (m != NULL && len > 0) {
		uint32_t n = RTE_MIN((uint32_t)m->data_len - off, len);

		crc = roce_crc32_impl(crc, rte_pktmbuf_mtod_offset(m, const uint8_t *,
							      off), n);
		len -= n;
		off = 0;
		m = m->next;
	}
	return ~crc;
}
