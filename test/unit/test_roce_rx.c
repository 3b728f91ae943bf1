/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Unit tests of lib/roce, part 4: the receive side's ICRC check fused with
 * the copy of the payload (ndk_roce_pkt_icrc_hdr / ndk_roce_crc32_copy_mbuf
 * / ndk_roce_pkt_icrc_end, ndk_roce_pkt_copy_check): the same verdict and
 * the same bytes as check-then-copy, on random frames, lengths, pads,
 * destination alignments and mbuf chains, and a mismatch for a corrupted
 * byte of the payload, the pad, the ICRC or the BTH's PSN.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "ndk_roce.h"
#include "ndk_test.h"
#include "test_roce.h"

#define RX_MAX_PLEN 4200
#define RX_GUARD 64
#define RX_FRAME_MAX (NDK_ROCE_L2L4_LEN + NDK_ROCE_MAX_TRANSPORT_HDR + \
		      RX_MAX_PLEN + 3 + NDK_ROCE_ICRC_LEN)

/* Byte @p off of the packet in chain @p m. */
static uint8_t *
chain_byte(struct rte_mbuf *m, uint32_t off)
{
	while (off >= m->data_len) {
		off -= m->data_len;
		m = m->next;
	}
	return rte_pktmbuf_mtod_offset(m, uint8_t *, off);
}

/*
 * Copy the payload of @p p into @p dst in pieces of random size (as the
 * completer does for a sink of several SGEs or pages), checking the ICRC,
 * with CRC implementation @p impl.
 */
static bool
copy_check_pieces(const struct ndk_roce_pkt *p, uint8_t *dst,
		  enum ndk_roce_crc_impl impl)
{
	uint32_t crc = ndk_roce_pkt_icrc_hdr(p), done = 0;

	while (done < p->payload_len) {
		uint32_t n = 1 + (uint32_t)(rng() % (p->payload_len - done));

		if (rng() & 1)
			n = p->payload_len - done;
		crc = ndk_roce_crc32_copy_mbuf_impl(impl, crc, dst + done,
						    p->m, p->payload_off + done,
						    n);
		done += n;
	}
	return ndk_roce_pkt_icrc_end(p, crc);
}

/* One frame: intact, then with one byte at @p bad flipped (if != 0). */
static int
rx_one(const uint8_t *f, uint32_t len, uint32_t first, uint32_t chunk,
       uint32_t bad, uint8_t *dst, const char *what)
{
	struct rte_mbuf *m = chain_build(f, len, first, chunk, true);
	uint8_t ref[RX_MAX_PLEN];
	struct ndk_roce_pkt p;
	uint32_t off = (uint32_t)(rng() % RX_GUARD);
	bool ok, ok_pieces, ok_check;
	int rc = -1;

	if (ndk_roce_parse(m, &p, false) != NDK_ROCE_PARSE_OK) {
		fprintf(stderr, "  FAIL: %s: parse\n", what);
		goto out;
	}
	if (bad != 0)
		*chain_byte(m, bad) ^= (uint8_t)(1u << (rng() % 8));
	ndk_roce_mbuf_copy_out(m, p.payload_off, ref, p.payload_len);
	memset(dst, 0x5A, RX_GUARD + RX_MAX_PLEN + RX_GUARD);
	ok = ndk_roce_pkt_copy_check(&p, dst + RX_GUARD + off);
	ok_check = ndk_roce_pkt_icrc_ok(&p);
	if (ok != ok_check || ok != (bad == 0)) {
		fprintf(stderr, "  FAIL: %s: copy_check %d, check %d, byte %u "
			"flipped\n", what, ok, ok_check, bad);
		goto out;
	}
	if (memcmp(dst + RX_GUARD + off, ref, p.payload_len) != 0) {
		fprintf(stderr, "  FAIL: %s: copied bytes\n", what);
		goto out;
	}
	for (uint32_t i = 0; i < RX_GUARD + RX_MAX_PLEN + RX_GUARD; i++) {
		if ((i < RX_GUARD + off ||
		     i >= RX_GUARD + off + p.payload_len) && dst[i] != 0x5A) {
			fprintf(stderr, "  FAIL: %s: wrote byte %u\n", what, i);
			goto out;
		}
	}
	/* Every implementation this CPU has, in pieces. */
	for (int i = 0; i < NDK_ROCE_CRC_IMPL_MAX; i++) {
		enum ndk_roce_crc_impl impl = (enum ndk_roce_crc_impl)i;

		if (!ndk_roce_crc32_impl_supported(impl))
			continue;
		memset(dst, 0, RX_GUARD + RX_MAX_PLEN + RX_GUARD);
		ok_pieces = copy_check_pieces(&p, dst, impl);
		if (ok_pieces != ok || memcmp(dst, ref, p.payload_len) != 0) {
			fprintf(stderr, "  FAIL: %s: %s in pieces: %d\n", what,
				ndk_roce_crc32_impl_name(impl), ok_pieces);
			goto out;
		}
	}
	rc = 0;
out:
	chain_free(m, true);
	return rc;
}

int
test_icrc_copy_check(void)
{
	static const uint8_t ops[] = {
		NDK_ROCE_OP_RC_READ_RESP_FIRST, NDK_ROCE_OP_RC_READ_RESP_MIDDLE,
		NDK_ROCE_OP_RC_READ_RESP_LAST, NDK_ROCE_OP_RC_READ_RESP_ONLY,
		NDK_ROCE_OP_RC_SEND_ONLY, NDK_ROCE_OP_RC_WRITE_ONLY,
	};
	static uint8_t f[RX_FRAME_MAX];
	static uint8_t dst[RX_GUARD + RX_MAX_PLEN + RX_GUARD];
	unsigned int frames = 0, flips = 0;

	for (unsigned int it = 0; it < 3000; it++) {
		uint8_t op = ops[rng() % RTE_DIM(ops)];
		uint32_t plen = it < 64 ? it : (uint32_t)(rng() %
							  (RX_MAX_PLEN + 1));
		uint32_t len, hdr_end, first, chunk, pay, pad, icrc;
		char what[96];
		uint32_t bad[5];

		if (op == NDK_ROCE_OP_RC_READ_RESP_MIDDLE && plen == 0)
			plen = 4;
		len = build_frame(f, op, 0x12345, (uint32_t)rng() & 0xFFFFFF,
				  plen);
		hdr_end = NDK_ROCE_L2L4_LEN + ndk_roce_opcode(op)->hdr_len;
		pay = hdr_end;
		pad = (0u - plen) & 3;
		icrc = pay + plen + pad;
		/* Headers in the first segment, the rest anywhere. */
		first = hdr_end + (uint32_t)(rng() % (len - hdr_end + 1));
		chunk = 1 + (uint32_t)(rng() % 2048);
		if (it % 5 == 0) {
			first = len;            /* flat */
		} else if (it % 5 == 1) {
			first = 2048;           /* memif's 2 KB segments */
			chunk = 2048;
		}
		first = RTE_MAX(first, hdr_end);
		/* Intact; payload, pad, ICRC and PSN bytes flipped. */
		bad[0] = 0;
		bad[1] = plen != 0 ? pay + (uint32_t)(rng() % plen) : 0;
		bad[2] = pad != 0 ? pay + plen + (uint32_t)(rng() % pad) : 0;
		bad[3] = icrc + (uint32_t)(rng() % NDK_ROCE_ICRC_LEN);
		bad[4] = NDK_ROCE_L2L4_LEN + 9 + (uint32_t)(rng() % 3);
		for (unsigned int b = 0; b < RTE_DIM(bad); b++) {
			if (b != 0 && bad[b] == 0)
				continue;
			snprintf(what, sizeof(what), "op %#x plen %u first %u "
				 "chunk %u", op, plen, first, chunk);
			if (rx_one(f, len, first, chunk, bad[b], dst,
				   what) != 0)
				return -1;
			frames++;
			flips += b != 0;
		}
	}
	printf("  %u frames, %u with a flipped byte\n", frames, flips);
	return 0;
}

/*
 * TSC cycles per 4 KiB READ response received (prints only, asserts
 * nothing about speed): ICRC check then copy, against the one pass, for
 * a flat frame and for memif's 2 KB chain; best of 7 rounds.
 */
int
test_rx_copy_speed(void)
{
	enum { ITERS = 2000, ROUNDS = 7, PLEN = 4096 };
	static uint8_t f[RX_FRAME_MAX], dst[PLEN];
	uint32_t len = build_frame(f, NDK_ROCE_OP_RC_READ_RESP_MIDDLE, 0x12345,
				   77, PLEN);
	const uint32_t firsts[2] = { len, 2048 };

	for (unsigned int c = 0; c < RTE_DIM(firsts); c++) {
		struct rte_mbuf *m = chain_build(f, len, firsts[c], 2048, true);
		struct ndk_roce_pkt p;
		uint64_t best[2] = { UINT64_MAX, UINT64_MAX };
		unsigned int ok = 0;

		TEST_ASSERT(ndk_roce_parse(m, &p, false) == NDK_ROCE_PARSE_OK,
			    "parse");
		for (unsigned int r = 0; r < ROUNDS; r++) {
			for (unsigned int v = 0; v < 2; v++) {
				uint64_t t0 = rte_rdtsc_precise();

				for (unsigned int i = 0; i < ITERS; i++) {
					if (v == 0 && ndk_roce_pkt_icrc_ok(&p)) {
						ndk_roce_mbuf_copy_out(m,
							p.payload_off, dst,
							p.payload_len);
						ok++;
					} else if (v == 1 &&
						   ndk_roce_pkt_copy_check(&p,
									   dst)) {
						ok++;
					}
				}
				best[v] = RTE_MIN(best[v],
						  rte_rdtsc_precise() - t0);
			}
		}
		chain_free(m, true);
		TEST_ASSERT_EQ(ok, 2 * ROUNDS * ITERS, "checks failed");
		printf("  4 KiB READ response, %s: check then copy %.0f, "
		       "one pass %.0f TSC cycles\n",
		       c == 0 ? "flat       " : "2 KB chain ",
		       (double)best[0] / ITERS, (double)best[1] / ITERS);
	}
	return 0;
}
