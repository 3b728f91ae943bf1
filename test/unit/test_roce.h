/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_TEST_ROCE_H
#define NDK_TEST_ROCE_H

/*
 * Helpers shared by the two halves of test_unit_roce: test_roce.c (wire
 * format, tables, CRC, templates; holds the case table and main) and
 * test_roce_capture.c (captures, mbuf chains, parse errors, fuzzing) and
 * test_roce_cm.c (the CM MAD codec).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "ndk_roce.h"

/* Byte-order accessors. */

static inline uint32_t
get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline void
put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t
get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
get_be24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

/* test_roce.c */

/* xorshift64; one sequence shared by every case, in case-table order. */
uint64_t rng(void);

/* Bit-at-a-time CRC-32 reference, independent of the library's code. */
uint32_t crc_bitwise(uint32_t crc, const uint8_t *p, size_t len);

/* Extension header length of @p op from the spec's table, or -1. */
int exp_hdr_len(uint8_t op);

/* Build a complete frame with the template; @return its length. */
uint32_t build_frame(uint8_t *f, uint8_t op, uint32_t qpn, uint32_t psn,
		     uint32_t plen);

/* test_roce_capture.c */

/* The suite's mempool, created on first use. */
struct rte_mempool *pool(void);

/* A chain of @p len bytes in segments of @p first, then @p chunk bytes. */
struct rte_mbuf *chain_build(const uint8_t *data, uint32_t len,
			     uint32_t first, uint32_t chunk, bool heap);

/* Free what chain_build() returned. */
void chain_free(struct rte_mbuf *m, bool heap);

/*
 * Parse a flat frame from an exact-size heap mbuf, freed before returning:
 * @p p's m and bth are NULL (read headers from @p f at p's offsets).
 */
enum ndk_roce_parse_err parse_flat(const uint8_t *f, uint32_t len,
				   struct ndk_roce_pkt *p, bool icrc);

/* Cases of test_roce_capture.c, listed in test_roce.c's case table. */
int test_capture_vm_to_vm(void);
int test_capture_silent_host(void);
int test_capture_multiseg(void);
int test_icrc_lengths(void);
int test_parse_errors(void);
int test_parse_fuzz(void);
int test_parse_err_str(void);
int test_udp_sport(void);

/* Cases of test_roce_rx.c. */
int test_icrc_copy_check(void);
int test_rx_copy_speed(void);

/* Cases of test_roce_ipv6.c. */
int test_ipv6_capture_pingpong(void);
int test_ipv6_capture_rping(void);
int test_ipv6_icrc_masks(void);
int test_ipv6_template(void);
int test_ipv6_parse_errors(void);
int test_ipv6_cm(void);

/* Cases of test_roce_cm.c. */
int test_cm_capture(void);
int test_cm_fields(void);
int test_cm_roundtrip(void);
int test_cm_errors(void);

#endif /* NDK_TEST_ROCE_H */
