/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_CRC_PRIV_H
#define ROCE_CRC_PRIV_H

/**
 * @file
 * What roce_crc.c (the CRC-32 implementations, chosen at start-up) gives
 * roce_icrc.c (the ICRC over them). Private to lib/roce.
 */

#include <stddef.h>
#include <stdint.h>

/** Register after 8 bytes of 0xFF from 0xFFFFFFFF (the masked pseudo-LRH). */
extern uint32_t roce_icrc_seed;

/** The CRC-32 register update in use: the fastest this CPU has. */
extern uint32_t (*roce_crc32_impl)(uint32_t crc, const uint8_t *p,
				   size_t len);

/**
 * ICRC register of a 48..128-byte IPv4 packet (IHL 5) from @p seed, the
 * header masks OR-ed into the registers; NULL without PCLMULQDQ.
 */
extern uint32_t (*roce_icrc_small_impl)(uint32_t seed, const uint8_t *p,
					size_t len);

/** Shortest packet roce_icrc_aligned_impl takes: IPv4 + UDP + BTH. */
#define ROCE_ICRC_ALIGN_MIN 40

/**
 * ICRC register of an IPv4 packet (IHL 5) of ROCE_ICRC_ALIGN_MIN bytes or
 * more, read as whole 16-byte lanes from (-len) & 15 bytes before @p p
 * (readable, not counted); NULL without PCLMULQDQ.
 */
extern uint32_t (*roce_icrc_aligned_impl)(const uint8_t *p, size_t len);

#endif /* ROCE_CRC_PRIV_H */
