/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef TOK_PROTO_H
#define TOK_PROTO_H

/**
 * @file
 * The control protocol of the `tokens_rxe` interop test, shared by the
 * host's test program (tok_host.c, ndk-roce) and the verbs program in the
 * rxe guest (verbs/rxe_tokpeer.c, libibverbs). Plain POSIX C: no DPDK, no
 * verbs.
 *
 * One TCP connection, host -> guest eth0 (TOK_PORT); the host asks, the
 * guest answers, one line each way, strictly alternating:
 *
 *   request:  VERB key=value key=value ...\n
 *   answer:   OK key=value ...\n      the request was carried out; the
 *                                     outcome of an RDMA operation (which
 *                                     may be an expected failure) is in the
 *                                     keys (status=..., data=...)
 *             ERR free text\n          the request could not be carried out
 *
 * Numbers are decimal or 0x-prefixed hex, GIDs in IPv6 text form. The verbs
 * (rxe_tokpeer.c has the details of each):
 *
 *   HELLO                         device, GID index, GID, port state, MTU
 *   QP qpn= psn= gid= mtu=        a fresh RC QP (the previous one, its CQs
 *                                 and windows are destroyed) connected to
 *                                 the host's QP; answers qpn= psn= gid=
 *   MW len=                       a region of len bytes between guard
 *                                 bytes, a plain MR without remote rights
 *                                 under it and a type-2 window bound over
 *                                 it on the current QP: id= addr= rkey=
 *   MR len=                       a region registered as a plain MR with
 *                                 remote read/write: id= addr= rkey=
 *   CHECK id=                     the region (guards included) still holds
 *                                 what the guest expects: diff=-1, or the
 *                                 first differing byte
 *   WROTE id= off= len= seed=     the host wrote TOK pattern @seed there:
 *                                 expect it, then CHECK
 *   RECV len= seed=               wait for the next receive completion and
 *                                 report it (status, opcode, byte_len,
 *                                 with_inv, inv_rkey, data)
 *   SEND len= seed= [inv=]        SEND (with Invalidate of rkey inv) the
 *                                 pattern; wait for the completion: status=
 *   READ addr= rkey= len= seed= [idx=]
 *                                 RDMA READ from the host, check the data
 *                                 (pattern @seed from index @idx)
 *   WRITE addr= rkey= len= seed=  RDMA WRITE of the pattern to the host
 *   STATE                         the QP's state
 *   BYE                           the guest program exits
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** TCP port the guest program listens on (its eth0). */
#define TOK_PORT 18600

/** Longest line either side sends, newline included. */
#define TOK_LINE_MAX 512

/** Guard bytes on each side of a guest region. */
#define TOK_GUARD 256u

/** Pattern seed of guard bytes (regions of both sides). */
#define TOK_SEED_GUARD 0x6a7dU

/**
 * Byte @p i of the test pattern @p seed: a hash of both, so that a byte
 * shifted, repeated or taken from another message does not match.
 */
static inline uint8_t
tok_pattern_byte(uint32_t seed, uint64_t i)
{
	uint32_t x = seed * 0x9e3779b1u ^ (uint32_t)i * 0x85ebca6bu ^
		(uint32_t)(i >> 32) * 0xc2b2ae35u;

	x ^= x >> 15;
	x *= 0x2c1b3c6du;
	x ^= x >> 12;
	return (uint8_t)x;
}

/** Fill @p n bytes with pattern @p seed, starting at pattern index @p i0. */
void tok_fill(void *p, size_t n, uint32_t seed, uint64_t i0);

/**
 * Compare @p n bytes with pattern @p seed from index @p i0.
 * @return -1 if they match, else the offset of the first difference.
 */
long tok_diff(const void *p, size_t n, uint32_t seed, uint64_t i0);

/**
 * Send one line: printf-style, the newline is added. @return 0, or -1 if
 * the line is too long or the peer is gone.
 */
int tok_send_line(int fd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * Receive one line (without its newline) into @p buf, waiting up to
 * @p timeout_ms for it. @return its length, or -1 on timeout, EOF, error
 * or a line longer than @p size - 1 (reason in errno: ETIMEDOUT, EPIPE,
 * EMSGSIZE or the socket's).
 */
int tok_recv_line(int fd, char *buf, size_t size, int timeout_ms);

/**
 * The value of key @p key in a line of `key=value` words (the first word,
 * the verb or OK, is not a key). @return true and the value in @p out
 * (truncated to @p size - 1), false if absent.
 */
bool tok_kv_str(const char *line, const char *key, char *out, size_t size);

/** Same, as a number (decimal, or hex with 0x; a leading - allowed). */
bool tok_kv_i64(const char *line, const char *key, int64_t *v);

/** Same, as an unsigned number. */
bool tok_kv_u64(const char *line, const char *key, uint64_t *v);

/** The first word of @p line is @p verb. */
bool tok_is_verb(const char *line, const char *verb);

#ifdef __cplusplus
}
#endif

#endif /* TOK_PROTO_H */
