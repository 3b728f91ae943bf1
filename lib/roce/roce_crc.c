/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), the register
 * updates the RoCEv2 invariant CRC (roce_icrc.c) runs on.
 *
 * Four implementations of the same register update:
 *  - slice-by-8 tables, built once by a constructor;
 *  - carry-less multiplication (PCLMULQDQ) folding on x86-64: the buffer is
 *    folded four 128-bit lanes at a time, then one lane at a time, and the
 *    last 128-bit remainder is reduced to 32 bits with two folds and a
 *    Barrett reduction. A tail shorter than 16 bytes after the lanes is
 *    folded in with one byte-shuffle step; only whole buffers shorter than
 *    16 bytes go through the table;
 *  - the same compiled for AVX, whose three-operand encoding needs no
 *    register copy before each carry-less multiplication (fewer
 *    instructions per step where the CPU has AVX but not VPCLMULQDQ);
 *  - the same folding on 256-bit registers (VPCLMULQDQ, AVX2): four
 *    256-bit lanes, 128 bytes per step, for buffers of 256 bytes and more,
 *    then folded down to one 128-bit lane and finished as above. 512-bit
 *    registers are not used: DPDK's default SIMD width is 256 bits.
 * The implementation is chosen once at start-up from the CPU flags. The
 * folding variants also come as copy-and-CRC in one pass (the loops store
 * what they load), and small packets get their ICRC header masks OR-ed
 * into the registers instead of into a masked copy.
 */

#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_cpuflags.h>
#include <rte_mbuf.h>

#if defined(RTE_ARCH_X86_64)
#include <immintrin.h>
#endif

#include "ndk_roce.h"
#include "roce_crc_priv.h"

#define CRC32_POLY_REFLECTED 0xEDB88320u

static uint32_t crc_table[8][256];
uint32_t roce_icrc_seed;

/*
 * IPv4 packets in one buffer read as whole lanes from before their start
 * (icrc_aligned_pclmul()): from IPv4 + UDP + BTH (the masks in the first
 * three lanes) on; up to eight lanes unrolled; per k = (-len) & 15, the
 * bytes the loads read before the packet, its masks and register.
 */
#define ICRC_ALIGN_MAX 128

struct icrc_align {
	uint8_t zero[16];       /* AND: the k bytes before the packet */
	uint8_t ones[3][16];    /* OR: the variant fields, k bytes on */
	uint32_t seed;          /* register before k zero bytes */
} __rte_aligned(16);

static struct icrc_align icrc_align[16];

typedef uint32_t (*crc32_fn)(uint32_t crc, const uint8_t *p, size_t len);
typedef uint32_t (*crc32_copy_fn)(uint32_t crc, uint8_t *dst,
				  const uint8_t *p, size_t len);

static uint32_t crc32_sw(uint32_t crc, const uint8_t *p, size_t len);
crc32_fn roce_crc32_impl = crc32_sw;
static uint32_t crc32_sw_copy(uint32_t crc, uint8_t *dst, const uint8_t *p,
			      size_t len);
static crc32_copy_fn crc32_copy_impl = crc32_sw_copy;
uint32_t (*roce_icrc_small_impl)(uint32_t seed, const uint8_t *p,
				 size_t len);
uint32_t (*roce_icrc_aligned_impl)(const uint8_t *p, size_t len);
static enum ndk_roce_crc_impl crc32_impl_id = NDK_ROCE_CRC_TABLE;
/* CPU support, read once (CPUID traps to the hypervisor in a VM). */
static bool crc32_impl_ok[NDK_ROCE_CRC_IMPL_MAX] = {
	[NDK_ROCE_CRC_TABLE] = true,
};

static inline uint32_t
load_le32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return rte_le_to_cpu_32(v);
}

static uint32_t
crc32_sw(uint32_t crc, const uint8_t *p, size_t len)
{
	/* Eight bytes per step; unaligned loads are fine (memcpy). */
	while (len >= 8) {
		uint32_t a = crc ^ load_le32(p);
		uint32_t b = load_le32(p + 4);

		crc = crc_table[7][a & 0xFF] ^
		      crc_table[6][(a >> 8) & 0xFF] ^
		      crc_table[5][(a >> 16) & 0xFF] ^
		      crc_table[4][a >> 24] ^
		      crc_table[3][b & 0xFF] ^
		      crc_table[2][(b >> 8) & 0xFF] ^
		      crc_table[1][(b >> 16) & 0xFF] ^
		      crc_table[0][b >> 24];
		p += 8;
		len -= 8;
	}
	while (len > 0) {
		crc = (crc >> 8) ^ crc_table[0][(crc ^ *p++) & 0xFF];
		len--;
	}
	return crc;
}

#if defined(RTE_ARCH_X86_64)

/*
 * Folding constants. A 128-bit lane loaded little-endian holds 128 message
 * bits with bit i the coefficient of x^(127-i) (reflected order). Moving a
 * lane D bits forward multiplies it by x^D; splitting the lane in its two
 * 64-bit halves, the low qword (the higher powers) is multiplied by
 * x^(D+32) mod P and the high qword by x^(D-32) mod P: a carry-less product
 * of two reflected operands comes out shifted by one position, and with the
 * constants stored as reflect32(k) << 1 (33 bits) the product lands 32
 * positions lower, which the -32/+32 in the exponents compensates.
 * P = x^32 + 0x04C11DB7 (normal form). Values checked by the unit tests
 * against the table implementation on every length 0..4200.
 */
#define K_X544 0x154442bd4ull /* reflect32(x^544 mod P) << 1: fold by 4, lo */
#define K_X480 0x1c6e41596ull /* reflect32(x^480 mod P) << 1: fold by 4, hi */
#define K_X160 0x1751997d0ull /* reflect32(x^160 mod P) << 1: fold by 1, lo */
#define K_X96 0x0ccaa009eull  /* reflect32(x^96 mod P) << 1: fold by 1, hi */
#define K_X64 0x163cd6124ull  /* reflect32(x^64 mod P) << 1: 96 -> 64 bits */
#define K_MU 0x1f7011641ull   /* reflect33(floor(x^64 / P)): Barrett mu */
#define K_POLY 0x1db710641ull /* reflect33(P) */

#define K_X1056 0x1e88ef372ull /* reflect32(x^1056 mod P) << 1: 4 x 256, lo */
#define K_X992 0x14a7fe880ull  /* reflect32(x^992 mod P) << 1: 4 x 256, hi */
/* The segment holding packet offset *off of @p m; *off: offset in it. */
static inline const struct rte_mbuf *
crc_seg_at(const struct rte_mbuf *m, uint32_t *off)
{
	while (m != NULL && *off >= m->data_len) {
		*off -= m->data_len;
		m = m->next;
	}
	return m;
}

#define K_X288 0x0f1da05aaull  /* reflect32(x^288 mod P) << 1: 1 x 256, lo */
#define K_X224 0x15a546366ull  /* reflect32(x^224 mod P) << 1: 1 x 256, hi */

/* Shortest buffer worth the 4-lane set-up and the final reduction. */
#define PCLMUL_MIN_LEN 64
/* Shortest buffer given to the 256-bit lanes (two steps of 128 bytes). */
#define VPCLMUL_MIN_LEN 256

__attribute__((target("pclmul,sse4.1")))
static inline __m128i
fold128(__m128i x, __m128i k, __m128i next)
{
	__m128i lo = _mm_clmulepi64_si128(x, k, 0x00);
	__m128i hi = _mm_clmulepi64_si128(x, k, 0x11);

	return _mm_xor_si128(next, _mm_xor_si128(lo, hi));
}

/*
 * PSHUFB indices: 16 bytes from crc_shuf + r shift a lane up by 16 - r
 * bytes (zeros below; the top bit of each index also tells which bytes
 * are zero), 16 bytes from crc_shuf + 16 + r shift it down by r bytes.
 */
static const uint8_t crc_shuf[48] __rte_aligned(16) = {
	0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
};

/*
 * The folding bodies take an optional destination: with @p dst non-NULL
 * every 16 or 32 bytes loaded are also stored there (a copy in the same
 * pass as the CRC); the wrappers below pass a constant NULL or not, so
 * each variant is compiled without the test. crc_load16(): 16 bytes at
 * p + off, also stored at dst + off when dst is not NULL.
 */
__attribute__((target("sse4.1"), always_inline))
static inline __m128i
crc_load16(const uint8_t *p, uint8_t *dst, size_t off)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(p + off));

	if (dst != NULL)
		_mm_storeu_si128((__m128i *)(dst + off), v);
	return v;
}

/*
 * Fold the rest of the buffer into the 128-bit lane @p x0 (the register
 * already XORed in; the 16 bytes before @p are readable, message bytes
 * or not), 16 bytes at a time, then a shorter tail with one regrouping
 * fold. @return the 128-bit remainder (crc32_pclmul_reduce() makes the
 * register of it; folding more bytes into it continues the CRC).
 */
__attribute__((target("pclmul,ssse3,sse4.1"), always_inline))
static inline __m128i
crc32_pclmul_tail(__m128i x0, const uint8_t *p, size_t len, uint8_t *dst)
{
	const __m128i k1 = _mm_set_epi64x(K_X96, K_X160);
	__m128i t;

	while (len >= 16) {
		x0 = fold128(x0, k1, crc_load16(p, dst, 0));
		p += 16;
		if (dst != NULL)
			dst += 16;
		len -= 16;
	}
	if (len != 0) {
		/*
		 * A tail of r = len bytes (1..15) after the 16 bytes held in
		 * x0, whose message bytes are before p: regroup the 16 + r
		 * bytes as x0's first r bytes (a lane with 16 - r leading
		 * zero bytes, which do not change the remainder) followed by
		 * one full lane (x0's last 16 - r bytes, then the tail, read
		 * with the 16-byte load that ends at the tail's end).
		 */
		const __m128i shl = _mm_loadu_si128(
			(const __m128i *)(crc_shuf + len));
		const __m128i shr = _mm_loadu_si128(
			(const __m128i *)(crc_shuf + 16 + len));
		__m128i last = _mm_loadu_si128(
			(const __m128i *)(p + len - 16));

		if (dst != NULL)
			memcpy(dst, p, len);
		t = _mm_blendv_epi8(last, _mm_shuffle_epi8(x0, shr), shl);
		x0 = fold128(_mm_shuffle_epi8(x0, shl), k1, t);
	}
	return x0;
}

/* The register of 128-bit remainder @p x0. */
__attribute__((target("pclmul,ssse3,sse4.1"), always_inline))
static inline uint32_t
crc32_pclmul_reduce(__m128i x0)
{
	const __m128i k1 = _mm_set_epi64x(K_X96, K_X160);
	const __m128i k64 = _mm_set_epi64x(0, K_X64);
	const __m128i kb = _mm_set_epi64x(K_POLY, K_MU);
	const __m128i mask32 = _mm_set_epi32(0, 0, 0, -1);
	__m128i t;

	/*
	 * Remainder R (128 bits); the register wanted is R * x^32 mod P.
	 * 128 -> 96 bits: low qword times x^96 mod P, plus the high qword.
	 */
	t = _mm_clmulepi64_si128(x0, k1, 0x10);
	x0 = _mm_xor_si128(t, _mm_srli_si128(x0, 8));
	/* 96 -> 64 bits: low 32 bits times x^64 mod P, plus the rest. */
	t = _mm_clmulepi64_si128(_mm_and_si128(x0, mask32), k64, 0x00);
	x0 = _mm_xor_si128(t, _mm_srli_si128(x0, 4));
	/* Barrett: q = floor(U / x^32) * mu / x^32, remainder = U - q * P. */
	t = _mm_clmulepi64_si128(_mm_and_si128(x0, mask32), kb, 0x00);
	t = _mm_clmulepi64_si128(_mm_and_si128(t, mask32), kb, 0x10);
	x0 = _mm_xor_si128(x0, t);
	return (uint32_t)_mm_extract_epi32(x0, 1);
}

__attribute__((target("pclmul,ssse3,sse4.1"), always_inline))
static inline uint32_t
crc32_pclmul_finish(__m128i x0, const uint8_t *p, size_t len, uint8_t *dst)
{
	return crc32_pclmul_reduce(crc32_pclmul_tail(x0, p, len, dst));
}

/*
 * Fold @p len >= 16 bytes into a 128-bit remainder, @p init XORed into the
 * first 16 (the register in its low 32 bits, or what folds an earlier
 * remainder over those 16 bytes: crc_carry()).
 */
__attribute__((target("pclmul,ssse3,sse4.1"), always_inline))
static inline __m128i
crc32_pclmul_fold(__m128i init, const uint8_t *p, size_t len, uint8_t *dst)
{
	const __m128i k4 = _mm_set_epi64x(K_X480, K_X544);
	const __m128i k1 = _mm_set_epi64x(K_X96, K_X160);
	__m128i x0, x1, x2, x3;

	x0 = _mm_xor_si128(crc_load16(p, dst, 0), init);
	if (len < PCLMUL_MIN_LEN)
		return crc32_pclmul_tail(x0, p + 16, len - 16,
					 dst != NULL ? dst + 16 : NULL);

	x1 = crc_load16(p, dst, 16);
	x2 = crc_load16(p, dst, 32);
	x3 = crc_load16(p, dst, 48);
	p += 64;
	if (dst != NULL)
		dst += 64;
	len -= 64;

	while (len >= 64) {
		x0 = fold128(x0, k4, crc_load16(p, dst, 0));
		x1 = fold128(x1, k4, crc_load16(p, dst, 16));
		x2 = fold128(x2, k4, crc_load16(p, dst, 32));
		x3 = fold128(x3, k4, crc_load16(p, dst, 48));
		p += 64;
		if (dst != NULL)
			dst += 64;
		len -= 64;
	}

	/* Four lanes into one. */
	x0 = fold128(x0, k1, x1);
	x0 = fold128(x0, k1, x2);
	x0 = fold128(x0, k1, x3);
	return crc32_pclmul_tail(x0, p, len, dst);
}

__attribute__((target("pclmul,ssse3,sse4.1"), always_inline))
static inline uint32_t
crc32_pclmul_body(uint32_t crc, const uint8_t *p, size_t len, uint8_t *dst)
{
	if (len < 16) {
		if (dst != NULL)
			memcpy(dst, p, len);
		return crc32_sw(crc, p, len);
	}
	/* The register XORed into the first 32 message bits. */
	return crc32_pclmul_reduce(crc32_pclmul_fold(
		_mm_cvtsi32_si128((int)crc), p, len, dst));
}

/*
 * The 128-bit entries, CRC and copy with CRC, compiled for target TGT:
 * SSE (crc32_pclmul*) and AVX's three-operand encoding, which needs no
 * register copy before each multiplication (crc32_pclmul_avx*). Callers
 * of the copy give a destination: its loops then store without a test.
 */
#define CRC_PCLMUL_ENTRIES(name, tgt) \
__attribute__((target(tgt))) \
static uint32_t \
name(uint32_t crc, const uint8_t *p, size_t len) \
{ \
	return crc32_pclmul_body(crc, p, len, NULL); \
} \
\
__attribute__((target(tgt))) \
static uint32_t \
name##_copy(uint32_t crc, uint8_t *dst, const uint8_t *p, size_t len) \
{ \
	if (unlikely(dst == NULL)) \
		return crc32_pclmul_body(crc, p, len, NULL); \
	return crc32_pclmul_body(crc, p, len, dst); \
}

CRC_PCLMUL_ENTRIES(crc32_pclmul, "pclmul,ssse3,sse4.1")
CRC_PCLMUL_ENTRIES(crc32_pclmul_avx, "avx,pclmul,ssse3,sse4.1")

/* The 256-bit variant: VPCLMULQDQ multiplies each 128-bit half on its own. */
__attribute__((target("vpclmulqdq,avx2,pclmul,sse4.1")))
static inline __m256i
fold256(__m256i x, __m256i k, __m256i next)
{
	__m256i lo = _mm256_clmulepi64_epi128(x, k, 0x00);
	__m256i hi = _mm256_clmulepi64_epi128(x, k, 0x11);

	return _mm256_xor_si256(next, _mm256_xor_si256(lo, hi));
}

/* The same, 32 bytes. */
__attribute__((target("avx2"), always_inline))
static inline __m256i
crc_load32(const uint8_t *p, uint8_t *dst, size_t off)
{
	__m256i v = _mm256_loadu_si256((const __m256i *)(p + off));

	if (dst != NULL)
		_mm256_storeu_si256((__m256i *)(dst + off), v);
	return v;
}

/* crc32_pclmul_fold() on 256-bit lanes (@p len >= 16). */
__attribute__((target("vpclmulqdq,avx2,pclmul,ssse3,sse4.1"), always_inline))
static inline __m128i
crc32_vpclmul_fold(__m128i init, const uint8_t *p, size_t len, uint8_t *dst)
{
	const __m256i k4 = _mm256_set_epi64x(K_X992, K_X1056, K_X992, K_X1056);
	const __m256i k1 = _mm256_set_epi64x(K_X224, K_X288, K_X224, K_X288);
	const __m128i k128 = _mm_set_epi64x(K_X96, K_X160);
	__m256i y0, y1, y2, y3;
	__m128i x0;

	if (len < VPCLMUL_MIN_LEN)
		return crc32_pclmul_fold(init, p, len, dst);

	y0 = _mm256_xor_si256(crc_load32(p, dst, 0), _mm256_inserti128_si256(
		_mm256_setzero_si256(), init, 0));
	y1 = crc_load32(p, dst, 32);
	y2 = crc_load32(p, dst, 64);
	y3 = crc_load32(p, dst, 96);
	p += 128;
	if (dst != NULL)
		dst += 128;
	len -= 128;

	while (len >= 128) {
		y0 = fold256(y0, k4, crc_load32(p, dst, 0));
		y1 = fold256(y1, k4, crc_load32(p, dst, 32));
		y2 = fold256(y2, k4, crc_load32(p, dst, 64));
		y3 = fold256(y3, k4, crc_load32(p, dst, 96));
		p += 128;
		if (dst != NULL)
			dst += 128;
		len -= 128;
	}

	/* Four 256-bit lanes into one, then 32-byte steps. */
	y0 = fold256(y0, k1, y1);
	y0 = fold256(y0, k1, y2);
	y0 = fold256(y0, k1, y3);
	while (len >= 32) {
		y0 = fold256(y0, k1, crc_load32(p, dst, 0));
		p += 32;
		if (dst != NULL)
			dst += 32;
		len -= 32;
	}

	/* Its two 128-bit halves into one, then as the 128-bit variant. */
	x0 = fold128(_mm256_castsi256_si128(y0), k128,
		     _mm256_extracti128_si256(y0, 1));
	return crc32_pclmul_tail(x0, p, len, dst);
}

__attribute__((target("vpclmulqdq,avx2,pclmul,ssse3,sse4.1"), always_inline))
static inline uint32_t
crc32_vpclmul_body(uint32_t crc, const uint8_t *p, size_t len, uint8_t *dst)
{
	if (len < VPCLMUL_MIN_LEN)
		return crc32_pclmul_body(crc, p, len, dst);
	return crc32_pclmul_reduce(crc32_vpclmul_fold(
		_mm_cvtsi32_si128((int)crc), p, len, dst));
}

__attribute__((target("vpclmulqdq,avx2,pclmul,ssse3,sse4.1")))
static uint32_t
crc32_vpclmul(uint32_t crc, const uint8_t *p, size_t len)
{
	return crc32_vpclmul_body(crc, p, len, NULL);
}

__attribute__((target("vpclmulqdq,avx2,pclmul,ssse3,sse4.1")))
static uint32_t
crc32_vpclmul_copy(uint32_t crc, uint8_t *dst, const uint8_t *p, size_t len)
{
	if (unlikely(dst == NULL))
		return crc32_vpclmul_body(crc, p, len, NULL);
	return crc32_vpclmul_body(crc, p, len, dst);
}

/*
 * Register of a small RoCEv2 packet with a 20-byte IPv4 header, 48 to 128
 * bytes from the IPv4 header: the variant fields are forced to ones in
 * the registers (OR with constant masks) instead of in a masked copy of
 * the headers. Bytes masked: TOS 1, TTL 8, checksum 10-11, UDP checksum
 * 26-27, BTH byte 4 at 32; all in the first 48 bytes.
 */
__attribute__((target("pclmul,ssse3,sse4.1")))
static uint32_t
icrc_small_pclmul(uint32_t seed, const uint8_t *p, size_t len)
{
	const __m128i k1 = _mm_set_epi64x(K_X96, K_X160);
	const __m128i m0 = _mm_setr_epi8(0, -1, 0, 0, 0, 0, 0, 0,
					 -1, 0, -1, -1, 0, 0, 0, 0);
	const __m128i m1 = _mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0,
					 0, 0, -1, -1, 0, 0, 0, 0);
	const __m128i m2 = _mm_setr_epi8(-1, 0, 0, 0, 0, 0, 0, 0,
					 0, 0, 0, 0, 0, 0, 0, 0);
	__m128i x0;

	x0 = _mm_or_si128(crc_load16(p, NULL, 0), m0);
	x0 = _mm_xor_si128(x0, _mm_cvtsi32_si128((int)seed));
	x0 = fold128(x0, k1, _mm_or_si128(crc_load16(p, NULL, 16), m1));
	x0 = fold128(x0, k1, _mm_or_si128(crc_load16(p, NULL, 32), m2));
	return crc32_pclmul_finish(x0, p + 48, len - 48, NULL);
}

/* XOR this into the next 16 bytes to fold remainder @p v over them. */
__attribute__((target("pclmul,sse4.1"), always_inline))
static inline __m128i
crc_carry(__m128i v)
{
	return fold128(v, _mm_set_epi64x(K_X96, K_X160), _mm_setzero_si128());
}

/*
 * The same for a frame whose headroom the loads may start in: the packet
 * is read as whole 16-byte lanes that end at its end, the first starting
 * k = (-len) & 15 bytes before the IP header. Those k bytes are zeroed and
 * the register injected is the one that k zero bytes carry to the seed
 * (icrc_align[k].seed), so the result is the packet's alone; the header
 * masks sit k bytes further. No tail step, no masked copy; up to
 * ICRC_ALIGN_MAX bytes no loop either, longer packets go on through the
 * folding loops from the fourth lane, reduced once.
 * icrc_lanes3(): the first three lanes from @p s, the remainder.
 */
__attribute__((target("pclmul,ssse3,sse4.1"), always_inline))
static inline __m128i
icrc_lanes3(const uint8_t *s, const struct icrc_align *a)
{
	const __m128i k1 = _mm_set_epi64x(K_X96, K_X160);
	__m128i x0;

	x0 = _mm_and_si128(_mm_loadu_si128((const __m128i *)s),
			   _mm_load_si128((const __m128i *)a->zero));
	x0 = _mm_or_si128(x0, _mm_load_si128((const __m128i *)a->ones[0]));
	x0 = _mm_xor_si128(x0, _mm_cvtsi32_si128((int)a->seed));
	x0 = fold128(x0, k1, _mm_or_si128(
		_mm_loadu_si128((const __m128i *)(s + 16)),
		_mm_load_si128((const __m128i *)a->ones[1])));
	return fold128(x0, k1, _mm_or_si128(
		_mm_loadu_si128((const __m128i *)(s + 32)),
		_mm_load_si128((const __m128i *)a->ones[2])));
}

__attribute__((target("pclmul,ssse3,sse4.1"), always_inline))
static inline uint32_t
icrc_aligned_body(const uint8_t *p, size_t len)
{
	const __m128i k1 = _mm_set_epi64x(K_X96, K_X160);
	const struct icrc_align *a = &icrc_align[(-len) & 15];
	const uint8_t *s = p - ((-len) & 15);
	const uint8_t *e = p + len;
	__m128i x0 = icrc_lanes3(s, a);

	if (e - s > ICRC_ALIGN_MAX)
		return crc32_pclmul_reduce(crc32_pclmul_fold(crc_carry(x0),
			s + 48, (size_t)(e - s) - 48, NULL));
	/* The lanes after the third, counted back from the end. */
	switch ((e - s) >> 4) {
	case 8:
		x0 = fold128(x0, k1, _mm_loadu_si128((const __m128i *)(e - 80)));
		/* fall through */
	case 7:
		x0 = fold128(x0, k1, _mm_loadu_si128((const __m128i *)(e - 64)));
		/* fall through */
	case 6:
		x0 = fold128(x0, k1, _mm_loadu_si128((const __m128i *)(e - 48)));
		/* fall through */
	case 5:
		x0 = fold128(x0, k1, _mm_loadu_si128((const __m128i *)(e - 32)));
		/* fall through */
	case 4:
		x0 = fold128(x0, k1, _mm_loadu_si128((const __m128i *)(e - 16)));
		/* fall through */
	default:
		break;
	}
	return crc32_pclmul_reduce(x0);
}

__attribute__((target("pclmul,ssse3,sse4.1")))
static uint32_t
icrc_aligned_pclmul(const uint8_t *p, size_t len)
{
	return icrc_aligned_body(p, len);
}

__attribute__((target("avx,pclmul,ssse3,sse4.1")))
static uint32_t
icrc_aligned_pclmul_avx(const uint8_t *p, size_t len)
{
	return icrc_aligned_body(p, len);
}

/* The same; long packets through the 256-bit loop. */
__attribute__((target("vpclmulqdq,avx2,pclmul,ssse3,sse4.1")))
static uint32_t
icrc_aligned_vpclmul(const uint8_t *p, size_t len)
{
	const struct icrc_align *a = &icrc_align[(-len) & 15];
	const uint8_t *s = p - ((-len) & 15);
	size_t n = len + ((-len) & 15);

	if (n <= ICRC_ALIGN_MAX)
		return icrc_aligned_body(p, len);
	return crc32_pclmul_reduce(crc32_vpclmul_fold(crc_carry(icrc_lanes3(s,
		a)), s + 48, n - 48, NULL));
}

/*
 * Copy and CRC of @p len bytes at packet offset @p off of chain @p m with
 * folding variant FOLD: one 128-bit remainder carried from segment to
 * segment and reduced once at the end (not once per segment). Pieces
 * shorter than 16 bytes are folded from a bounce buffer: the regrouping
 * tail reads the 16 bytes that end at the piece's end.
 */
#define CRC_COPY_SEGS(name, tgt, FOLD) \
__attribute__((target(tgt))) \
static uint32_t \
name(uint32_t crc, uint8_t *out, const struct rte_mbuf *m, uint32_t off, \
     uint32_t len) \
{ \
	__m128i v = _mm_setzero_si128(); \
	bool folded = false; \
	\
	for (m = crc_seg_at(m, &off); m != NULL && len > 0; \
	     m = m->next, off = 0) { \
		uint32_t n = RTE_MIN((uint32_t)m->data_len - off, len); \
		const uint8_t *in = rte_pktmbuf_mtod_offset(m, \
			const uint8_t *, off); \
		uint8_t b_[16]; \
		\
		if (n >= 16) { \
			v = FOLD(folded ? crc_carry(v) : \
				 _mm_cvtsi32_si128((int)crc), in, n, out); \
			folded = true; \
		} else if (folded) { \
			memcpy(b_ + 16 - n, in, n); \
			v = crc32_pclmul_tail(v, b_ + 16 - n, n, out); \
		} else { \
			memcpy(out, in, n); \
			crc = crc32_sw(crc, in, n); \
		} \
		out += n; \
		len -= n; \
	} \
	return folded ? crc32_pclmul_reduce(v) : crc; \
}

CRC_COPY_SEGS(crc32_pclmul_copy_segs, "pclmul,ssse3,sse4.1",
	      crc32_pclmul_fold)
CRC_COPY_SEGS(crc32_pclmul_avx_copy_segs, "avx,pclmul,ssse3,sse4.1",
	      crc32_pclmul_fold)
CRC_COPY_SEGS(crc32_vpclmul_copy_segs, "vpclmulqdq,avx2,pclmul,ssse3,sse4.1",
	      crc32_vpclmul_fold)
#endif /* RTE_ARCH_X86_64 */

static uint32_t
crc32_sw_copy(uint32_t crc, uint8_t *dst, const uint8_t *p, size_t len)
{
	memcpy(dst, p, len);
	return crc32_sw(crc, p, len);
}

/* Indexed by enum ndk_roce_crc_impl; the table where the CPU lacks one. */
static const crc32_fn crc32_fns[NDK_ROCE_CRC_IMPL_MAX] = {
	[NDK_ROCE_CRC_TABLE] = crc32_sw,
#if defined(RTE_ARCH_X86_64)
	[NDK_ROCE_CRC_PCLMUL] = crc32_pclmul,
	[NDK_ROCE_CRC_PCLMUL_AVX] = crc32_pclmul_avx,
	[NDK_ROCE_CRC_VPCLMUL] = crc32_vpclmul,
#else
	[NDK_ROCE_CRC_PCLMUL] = crc32_sw,
	[NDK_ROCE_CRC_PCLMUL_AVX] = crc32_sw,
	[NDK_ROCE_CRC_VPCLMUL] = crc32_sw,
#endif
};
static const crc32_copy_fn crc32_copy_fns[NDK_ROCE_CRC_IMPL_MAX] = {
	[NDK_ROCE_CRC_TABLE] = crc32_sw_copy,
#if defined(RTE_ARCH_X86_64)
	[NDK_ROCE_CRC_PCLMUL] = crc32_pclmul_copy,
	[NDK_ROCE_CRC_PCLMUL_AVX] = crc32_pclmul_avx_copy,
	[NDK_ROCE_CRC_VPCLMUL] = crc32_vpclmul_copy,
#else
	[NDK_ROCE_CRC_PCLMUL] = crc32_sw_copy,
	[NDK_ROCE_CRC_PCLMUL_AVX] = crc32_sw_copy,
	[NDK_ROCE_CRC_VPCLMUL] = crc32_sw_copy,
#endif
};

/*
 * The register that one zero byte carries to @p r. A zero byte's step is
 * r' = (r >> 8) ^ T[r & 0xFF], and the top bytes of T's 256 entries are
 * all different, so r & 0xFF is the index whose entry has r's top byte.
 */
static uint32_t
crc32_unstep_zero(uint32_t r)
{
	for (uint32_t i = 0; i < 256; i++)
		if ((crc_table[0][i] >> 24) == (r >> 24))
			return ((r ^ crc_table[0][i]) << 8) | i;
	return 0;       /* not reached: T's top bytes are a permutation */
}

/* The masks and registers of icrc_aligned_pclmul(), per k. */
static void
icrc_align_init(void)
{
	/* The variant bytes of an IPv4 (IHL 5) + UDP + BTH header. */
	static const uint8_t var[] = { 1, 8, 10, 11, 26, 27, 32 };
	uint32_t r = roce_icrc_seed;

	for (unsigned int k = 0; k < 16; k++) {
		struct icrc_align *a = &icrc_align[k];

		memset(a, 0, sizeof(*a));
		memset(a->zero + k, 0xFF, sizeof(a->zero) - k);
		for (unsigned int i = 0; i < RTE_DIM(var); i++)
			a->ones[(k + var[i]) / 16][(k + var[i]) % 16] = 0xFF;
		a->seed = r;
		r = crc32_unstep_zero(r);
	}
}

RTE_INIT(ndk_roce_crc_init)
{
	static const uint8_t ones[8] = {
		0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	};

	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int b = 0; b < 8; b++)
			c = (c >> 1) ^ ((c & 1) ? CRC32_POLY_REFLECTED : 0);
		crc_table[0][i] = c;
	}
	for (int k = 1; k < 8; k++)
		for (uint32_t i = 0; i < 256; i++)
			crc_table[k][i] = (crc_table[k - 1][i] >> 8) ^
				crc_table[0][crc_table[k - 1][i] & 0xFF];

	roce_icrc_seed = crc32_sw(0xFFFFFFFFu, ones, sizeof(ones));
	icrc_align_init();

#if defined(RTE_ARCH_X86_64)
	crc32_impl_ok[NDK_ROCE_CRC_PCLMUL] =
		rte_cpu_get_flag_enabled(RTE_CPUFLAG_PCLMULQDQ) > 0 &&
		rte_cpu_get_flag_enabled(RTE_CPUFLAG_SSE4_1) > 0;
	crc32_impl_ok[NDK_ROCE_CRC_PCLMUL_AVX] =
		crc32_impl_ok[NDK_ROCE_CRC_PCLMUL] &&
		rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX) > 0;
	crc32_impl_ok[NDK_ROCE_CRC_VPCLMUL] =
		crc32_impl_ok[NDK_ROCE_CRC_PCLMUL] &&
		rte_cpu_get_flag_enabled(RTE_CPUFLAG_VPCLMULQDQ) > 0 &&
		rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX2) > 0;
	for (int i = NDK_ROCE_CRC_IMPL_MAX - 1; i > NDK_ROCE_CRC_TABLE; i--) {
		if (crc32_impl_ok[i]) {
			roce_crc32_impl = crc32_fns[i];
			crc32_copy_impl = crc32_copy_fns[i];
			roce_icrc_small_impl = icrc_small_pclmul;
			roce_icrc_aligned_impl =
				i == NDK_ROCE_CRC_VPCLMUL ? icrc_aligned_vpclmul :
				i == NDK_ROCE_CRC_PCLMUL_AVX ?
				icrc_aligned_pclmul_avx : icrc_aligned_pclmul;
			crc32_impl_id = i;
			break;
		}
	}
#endif
}

bool
ndk_roce_crc32_impl_supported(enum ndk_roce_crc_impl impl)
{
	return (unsigned int)impl < NDK_ROCE_CRC_IMPL_MAX && crc32_impl_ok[impl];
}

const char *
ndk_roce_crc32_impl_name(enum ndk_roce_crc_impl impl)
{
	static const char *const names[NDK_ROCE_CRC_IMPL_MAX] = {
		[NDK_ROCE_CRC_TABLE] = "slice-by-8",
		[NDK_ROCE_CRC_PCLMUL] = "pclmul-4x128",
		[NDK_ROCE_CRC_PCLMUL_AVX] = "pclmul-avx-4x128",
		[NDK_ROCE_CRC_VPCLMUL] = "vpclmul-4x256",
	};

	return (unsigned int)impl < NDK_ROCE_CRC_IMPL_MAX ? names[impl] : "?";
}

enum ndk_roce_crc_impl
ndk_roce_crc32_impl(void)
{
	return crc32_impl_id;
}

uint32_t
ndk_roce_crc32_copy(uint32_t crc, void *dst, const void *src, size_t len)
{
	return crc32_copy_impl(crc, dst, src, len);
}

uint32_t
ndk_roce_crc32_copy_impl(enum ndk_roce_crc_impl impl, uint32_t crc, void *dst,
			 const void *src, size_t len)
{
	if (!ndk_roce_crc32_impl_supported(impl))
		impl = NDK_ROCE_CRC_TABLE;
	return crc32_copy_fns[impl](crc, dst, src, len);
}

uint32_t
ndk_roce_crc32_copy_mbuf_impl(enum ndk_roce_crc_impl impl, uint32_t crc,
			      void *dst, const struct rte_mbuf *m, uint32_t off,
			      uint32_t len)
{
	uint8_t *out = dst;

	if (!ndk_roce_crc32_impl_supported(impl))
		impl = NDK_ROCE_CRC_TABLE;
	m = crc_seg_at(m, &off);
	if (m != NULL && off + len <= m->data_len)
		return crc32_copy_fns[impl](crc, out, rte_pktmbuf_mtod_offset(m,
					    const uint8_t *, off), len);
#if defined(RTE_ARCH_X86_64)
	if (impl == NDK_ROCE_CRC_VPCLMUL)
		return crc32_vpclmul_copy_segs(crc, out, m, off, len);
	if (impl == NDK_ROCE_CRC_PCLMUL_AVX)
		return crc32_pclmul_avx_copy_segs(crc, out, m, off, len);
	if (impl == NDK_ROCE_CRC_PCLMUL)
		return crc32_pclmul_copy_segs(crc, out, m, off, len);
#endif
	for (m = crc_seg_at(m, &off); m != NULL && len > 0;
	     m = m->next, off = 0) {
		uint32_t n = RTE_MIN((uint32_t)m->data_len - off, len);

		crc = crc32_copy_fns[impl](crc, out, rte_pktmbuf_mtod_offset(m,
					   const uint8_t *, off), n);
		out += n;
		len -= n;
	}
	return crc;
}

uint32_t
ndk_roce_crc32_copy_mbuf(uint32_t crc, void *dst, const struct rte_mbuf *m,
			 uint32_t off, uint32_t len)
{
	/* One segment (the usual receive mbuf holds a whole frame). */
	m = crc_seg_at(m, &off);
	if (likely(m != NULL && off + len <= m->data_len))
		return crc32_copy_impl(crc, dst, rte_pktmbuf_mtod_offset(m,
				       const uint8_t *, off), len);
	return ndk_roce_crc32_copy_mbuf_impl(crc32_impl_id, crc, dst, m, off,
					     len);
}

uint32_t
ndk_roce_crc32_update_impl(enum ndk_roce_crc_impl impl, uint32_t crc,
			   const void *buf, size_t len)
{
	if (!ndk_roce_crc32_impl_supported(impl))
		impl = NDK_ROCE_CRC_TABLE;
	return crc32_fns[impl](crc, buf, len);
}

uint32_t
ndk_roce_crc32_update(uint32_t crc, const void *buf, size_t len)
{
	return roce_crc32_impl(crc, buf, len);
}

uint32_t
ndk_roce_crc32_update_sw(uint32_t crc, const void *buf, size_t len)
{
	return crc32_sw(crc, buf, len);
}
