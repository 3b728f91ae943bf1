/* SPDX-License-Identifier: BSD-3-Clause */

/* Minimal pcapng / classic pcap reader for the test suites. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcapng.h"

#define PCAPNG_SHB 0x0A0D0D0Au
#define PCAPNG_IDB 0x00000001u
#define PCAPNG_PB_OBSOLETE 0x00000002u
#define PCAPNG_SPB 0x00000003u
#define PCAPNG_EPB 0x00000006u
#define PCAPNG_BOM 0x1A2B3C4Du

#define PCAP_MAGIC_US 0xA1B2C3D4u
#define PCAP_MAGIC_NS 0xA1B23C4Du
#define PCAP_FILE_HDR_LEN 24
#define PCAP_REC_HDR_LEN 16

static uint32_t
bswap32(uint32_t v)
{
	return (v >> 24) | ((v >> 8) & 0xFF00) | ((v << 8) & 0xFF0000) |
	       (v << 24);
}

/* Read a 32/16-bit value in the file's (current section's) byte order. */
static uint32_t
rd32(const struct ndk_pcap *pc, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return pc->swap ? bswap32(v) : v;
}

static uint16_t
rd16(const struct ndk_pcap *pc, const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return pc->swap ? (uint16_t)((v >> 8) | (v << 8)) : v;
}

static int
read_file(struct ndk_pcap *pc, const char *path)
{
	FILE *f = fopen(path, "rb");
	long sz;

	if (f == NULL) {
		perror(path);
		return -1;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (sz = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0) {
		fprintf(stderr, "%s: cannot size file\n", path);
		fclose(f);
		return -1;
	}
	pc->buf = malloc(sz > 0 ? (size_t)sz : 1);
	if (pc->buf == NULL ||
	    fread(pc->buf, 1, (size_t)sz, f) != (size_t)sz) {
		fprintf(stderr, "%s: read failed\n", path);
		free(pc->buf);
		pc->buf = NULL;
		fclose(f);
		return -1;
	}
	fclose(f);
	pc->len = (size_t)sz;
	return 0;
}

int
ndk_pcap_open(struct ndk_pcap *pc, const char *path)
{
	uint32_t magic;

	memset(pc, 0, sizeof(*pc));
	if (read_file(pc, path) < 0)
		return -1;
	if (pc->len < 12)
		goto bad;
	memcpy(&magic, pc->buf, sizeof(magic));
	if (magic == PCAPNG_SHB) {
		/* Byte order comes from each SHB; parsed in next(). */
		pc->is_ng = 1;
		return 0;
	}
	if (pc->len < PCAP_FILE_HDR_LEN)
		goto bad;
	if (magic == PCAP_MAGIC_US || magic == PCAP_MAGIC_NS)
		pc->swap = 0;
	else if (bswap32(magic) == PCAP_MAGIC_US ||
		 bswap32(magic) == PCAP_MAGIC_NS)
		pc->swap = 1;
	else
		goto bad;
	pc->linktype = rd32(pc, pc->buf + 20) & 0x0FFFFFFF;
	pc->pos = PCAP_FILE_HDR_LEN;
	return 0;
bad:
	fprintf(stderr, "%s: not a pcap or pcapng file\n", path);
	ndk_pcap_close(pc);
	return -1;
}

static int
next_classic(struct ndk_pcap *pc, struct ndk_pcap_pkt *pkt)
{
	const uint8_t *r;
	uint32_t incl;

	if (pc->pos == pc->len)
		return 0;
	if (pc->len - pc->pos < PCAP_REC_HDR_LEN)
		return -1;
	r = pc->buf + pc->pos;
	incl = rd32(pc, r + 8);
	if (incl > pc->len - pc->pos - PCAP_REC_HDR_LEN)
		return -1;
	pkt->data = r + PCAP_REC_HDR_LEN;
	pkt->caplen = incl;
	pkt->origlen = rd32(pc, r + 12);
	pkt->linktype = pc->linktype;
	pc->pos += PCAP_REC_HDR_LEN + (size_t)incl;
	return 1;
}

/* Fill @p pkt from a packet block body; @return 1, or -1 if malformed. */
static int
ng_packet(struct ndk_pcap *pc, uint32_t ifid, const uint8_t *data,
	  uint32_t caplen, uint32_t origlen, uint32_t room,
	  struct ndk_pcap_pkt *pkt)
{
	if (caplen > room || ifid >= pc->n_if)
		return -1;
	pkt->data = data;
	pkt->caplen = caplen;
	pkt->origlen = origlen;
	pkt->linktype = pc->if_linktype[ifid];
	return 1;
}

static int
next_ng(struct ndk_pcap *pc, struct ndk_pcap_pkt *pkt)
{
	for (;;) {
		const uint8_t *b;
		uint32_t type, blen;
		size_t left = pc->len - pc->pos;
		int rc = 0;

		if (left == 0)
			return 0;
		if (left < 12)
			return -1;
		b = pc->buf + pc->pos;
		memcpy(&type, b, sizeof(type));
		if (type == PCAPNG_SHB) {
			/* The byte-order magic decides for this section. */
			uint32_t bom;

			memcpy(&bom, b + 8, sizeof(bom));
			if (bom == PCAPNG_BOM)
				pc->swap = 0;
			else if (bswap32(bom) == PCAPNG_BOM)
				pc->swap = 1;
			else
				return -1;
			pc->n_if = 0;
		}
		type = rd32(pc, b);
		blen = rd32(pc, b + 4);
		if (blen < 12 || (blen & 3) != 0 || blen > left ||
		    rd32(pc, b + blen - 4) != blen)
			return -1;

		switch (type) {
		case PCAPNG_IDB:
			if (blen < 20)
				return -1;
			if (pc->n_if < NDK_PCAP_MAX_IF)
				pc->if_linktype[pc->n_if] = rd16(pc, b + 8);
			pc->n_if++;
			break;
		case PCAPNG_EPB:
			if (blen < 32)
				return -1;
			rc = ng_packet(pc, rd32(pc, b + 8), b + 28,
				       rd32(pc, b + 20), rd32(pc, b + 24),
				       blen - 32, pkt);
			break;
		case PCAPNG_PB_OBSOLETE:
			if (blen < 32)
				return -1;
			rc = ng_packet(pc, rd16(pc, b + 8), b + 28,
				       rd32(pc, b + 20), rd32(pc, b + 24),
				       blen - 32, pkt);
			break;
		case PCAPNG_SPB: {
			uint32_t orig;

			if (blen < 16)
				return -1;
			/* Captured length is implied by the block size. */
			orig = rd32(pc, b + 8);
			rc = ng_packet(pc, 0, b + 12,
				       orig < blen - 16 ? orig : blen - 16,
				       orig, blen - 16, pkt);
			break;
		}
		default:
			break; /* SHB (handled above), NRB, ISB, custom... */
		}
		if (pc->n_if > NDK_PCAP_MAX_IF)
			return -1;
		pc->pos += blen;
		if (rc != 0)
			return rc;
	}
}

int
ndk_pcap_next(struct ndk_pcap *pc, struct ndk_pcap_pkt *pkt)
{
	if (pc->buf == NULL)
		return -1;
	return pc->is_ng ? next_ng(pc, pkt) : next_classic(pc, pkt);
}

void
ndk_pcap_close(struct ndk_pcap *pc)
{
	free(pc->buf);
	memset(pc, 0, sizeof(*pc));
}

int
ndk_pcap_load(const char *path, uint32_t linktype,
	      struct ndk_pcap_frame **frames)
{
	struct ndk_pcap_frame *v = NULL;
	unsigned int n = 0, cap = 0;
	struct ndk_pcap pc;
	struct ndk_pcap_pkt pk;
	int rc;

	if (ndk_pcap_open(&pc, path) < 0)
		return -1;
	while ((rc = ndk_pcap_next(&pc, &pk)) == 1) {
		if (pk.linktype != linktype || pk.caplen != pk.origlen)
			continue;
		if (n == cap) {
			struct ndk_pcap_frame *nv;

			cap = cap != 0 ? cap * 2 : 256;
			nv = realloc(v, cap * sizeof(*v));
			if (nv == NULL)
				break;
			v = nv;
		}
		v[n].data = malloc(pk.caplen > 0 ? pk.caplen : 1);
		if (v[n].data == NULL)
			break;
		memcpy(v[n].data, pk.data, pk.caplen);
		v[n].len = pk.caplen;
		n++;
	}
	ndk_pcap_close(&pc);
	if (rc != 0) {
		fprintf(stderr, "%s: %s\n", path,
			rc < 0 ? "malformed capture" : "out of memory");
		ndk_pcap_free_frames(v, n);
		return -1;
	}
	*frames = v;
	return (int)n;
}

void
ndk_pcap_free_frames(struct ndk_pcap_frame *frames, unsigned int n)
{
	for (unsigned int i = 0; frames != NULL && i < n; i++)
		free(frames[i].data);
	free(frames);
}
