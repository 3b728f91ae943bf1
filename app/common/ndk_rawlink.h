/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_RAWLINK_H
#define NDK_RAWLINK_H

/**
 * @file
 * Raw-ethdev baseline for the benchmarks (ndk-perf, ndk-demo): plain
 * rte_eth_tx_burst()/rte_eth_rx_burst() on the queue an adapter would use,
 * with frames of exactly the lengths a RoCEv2 message of a given size and
 * path MTU travels as, so that a RoCE figure can be put next to what the
 * link itself does with the same frames.
 *
 * A frame is an Ethernet header (EtherType 0x88B5, IEEE 802 "local
 * experimental") followed by a 16-byte raw header (magic, frame length,
 * 64-bit sequence number) and filler up to its length. Frames are
 * numbered from 0 in each direction; the receiver checks the magic, the
 * length the shape gives that sequence number, and the order. With
 * verification on, the sender writes a pattern (a function of the
 * sequence number and the offset) after the header and the receiver
 * checks every byte; without it the filler is whatever the mbuf held,
 * so that the baseline costs what the link costs and nothing more.
 *
 * One struct ndk_rawlink is one direction-pair of one queue, used by one
 * lcore at a time (its TX and RX halves may run on two lcores if each
 * touches only its own half: ndk_rawlink_tx() the tx_* fields,
 * ndk_rawlink_rx() the rx_* ones). No allocation, lock or system call
 * is made on the data path; mbufs come from the pool given at init.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#ifdef __cplusplus
extern "C" {
#endif

/** EtherType of raw frames (IEEE 802 local experimental EtherType 1). */
#define NDK_RAWLINK_ETHERTYPE 0x88B5
/** First word after the Ethernet header: "NDKR". */
#define NDK_RAWLINK_MAGIC 0x4E444B52u
/** Ethernet header plus the raw header (magic, length, sequence). */
#define NDK_RAWLINK_HDR_LEN (RTE_ETHER_HDR_LEN + 16)
/** Shortest frame (Ethernet minimum without FCS). */
#define NDK_RAWLINK_MIN_FRAME 60
/** Frames per rte_eth_tx_burst()/rte_eth_rx_burst() call. */
#define NDK_RAWLINK_BURST 32

/**
 * The frames of one message: frame 0 is @p first bytes long (the only
 * one when @p frames is 1), frames 1 .. frames-2 @p middle, the last
 * @p last; lengths without FCS, as rte_mbuf pkt_len.
 */
struct ndk_rawlink_shape {
	uint32_t frames;   /**< frames per message, >= 1 */
	uint16_t first;    /**< bytes of frame 0 */
	uint16_t middle;   /**< bytes of each middle frame */
	uint16_t last;     /**< bytes of the last frame (frames > 1) */
	uint64_t bytes;    /**< bytes of all frames of one message */
};

/** RoCEv2 RC packet families whose frames a shape can mimic. */
enum ndk_rawlink_kind {
	NDK_RAWLINK_SEND,       /**< SEND ONLY / FIRST, MIDDLE, LAST */
	NDK_RAWLINK_WRITE,      /**< RDMA WRITE ONLY / FIRST, MIDDLE, LAST */
	NDK_RAWLINK_READ_REQ,   /**< one RDMA READ request */
	NDK_RAWLINK_READ_RESP,  /**< READ RESPONSE ONLY / FIRST, MIDDLE, LAST */
};

/**
 * Shape of the frames a RoCEv2 RC message of @p size bytes at path MTU
 * @p mtu travels as (headers from lib/roce's opcode table: Ethernet,
 * IPv4, UDP, BTH and its extension headers, payload, pad to 4 bytes,
 * ICRC). A READ request is one frame whatever @p size.
 * @return 0, or -EINVAL (size 0 or above 2^31, MTU not 256..4096).
 */
int ndk_rawlink_shape_roce(struct ndk_rawlink_shape *s,
			   enum ndk_rawlink_kind kind, uint64_t size,
			   uint32_t mtu);

/**
 * Shape of messages made of @p frames frames of @p len bytes each.
 * @return 0, or -EINVAL (frames 0, len below NDK_RAWLINK_MIN_FRAME).
 */
int ndk_rawlink_shape_fixed(struct ndk_rawlink_shape *s, uint32_t frames,
			    uint16_t len);

/** Length of frame @p k (0 .. frames-1) of a message of shape @p s. */
static inline uint16_t
ndk_rawlink_frame_len(const struct ndk_rawlink_shape *s, uint32_t k)
{
	if (k == 0)
		return s->first;
	return k + 1 == s->frames ? s->last : s->middle;
}

/** Longest frame of a shape. */
uint16_t ndk_rawlink_shape_max(const struct ndk_rawlink_shape *s);

/** Counters of one ndk_rawlink (each half writes only its own). */
struct ndk_rawlink_stats {
	uint64_t tx_frames;     /**< frames the driver accepted */
	uint64_t tx_bytes;
	uint64_t tx_nombuf;     /**< bursts short of mbufs (pool empty) */
	uint64_t rx_frames;     /**< raw frames received (any order) */
	uint64_t rx_bytes;
	uint64_t rx_other;      /**< frames that were not raw frames */
	uint64_t rx_bad_len;    /**< raw frames of the wrong length */
	uint64_t rx_seq_errors; /**< raw frames out of sequence (lost before) */
	uint64_t rx_checked;    /**< frames whose filler was verified */
	uint64_t rx_corrupt;    /**< verified frames with a wrong byte */
};

/** One queue's raw sender and receiver. */
struct ndk_rawlink {
	uint16_t port_id;
	uint16_t queue_id;
	bool verify;                      /**< pattern written and checked */
	struct rte_mempool *pool;         /**< TX mbufs */
	struct rte_ether_hdr eth;         /**< header of every frame sent */
	/* TX half */
	struct ndk_rawlink_shape tx_shape;
	uint64_t tx_seq;                  /**< next sequence number to build */
	uint32_t tx_k;                    /**< its frame index in its message */
	uint16_t n_held;                  /**< built, not yet accepted */
	struct rte_mbuf *held[NDK_RAWLINK_BURST];
	/* RX half */
	struct ndk_rawlink_shape rx_shape;
	uint64_t rx_seq;                  /**< next sequence number expected */
	uint32_t rx_k;                    /**< its frame index in its message */
	struct ndk_rawlink_stats st;
};

/**
 * Prepare @p rl for queue @p queue_id of @p port_id (configured and
 * started by the caller): frames from @p src to @p dst, TX mbufs from
 * @p pool (their data room must hold the longest frame), both shapes one
 * frame of NDK_RAWLINK_MIN_FRAME bytes until ndk_rawlink_set_shapes().
 */
void ndk_rawlink_init(struct ndk_rawlink *rl, uint16_t port_id,
		      uint16_t queue_id, struct rte_mempool *pool,
		      const struct rte_ether_addr *src,
		      const struct rte_ether_addr *dst, bool verify);

/**
 * Set the shapes of the frames sent (@p tx) and expected (@p rx), either
 * NULL to keep it, and number both directions from 0 again. Frames still
 * held are freed.
 * @return 0, or -EMSGSIZE if a TX frame exceeds the pool's data room.
 */
int ndk_rawlink_set_shapes(struct ndk_rawlink *rl,
			   const struct ndk_rawlink_shape *tx,
			   const struct ndk_rawlink_shape *rx);

/**
 * Transmit: offer the frames held from the last call, then build new
 * frames while tx_seq < @p seq_end (one burst at most). Frames the
 * driver refuses are held, in order, for the next call.
 * @return frames the driver accepted in this call.
 */
uint16_t ndk_rawlink_tx(struct ndk_rawlink *rl, uint64_t seq_end);

/** Frames built but not yet accepted by the driver. */
static inline uint16_t
ndk_rawlink_tx_held(const struct ndk_rawlink *rl)
{
	return rl->n_held;
}

/**
 * Receive one burst, check every raw frame (magic, length, order, and
 * the filler when verifying), count and free everything.
 * @return raw frames received in this call.
 */
uint16_t ndk_rawlink_rx(struct ndk_rawlink *rl);

/** Free the frames held for transmission. */
void ndk_rawlink_release(struct ndk_rawlink *rl);

/** @return true if no raw frame was wrong, out of order or corrupt. */
static inline bool
ndk_rawlink_rx_ok(const struct ndk_rawlink *rl)
{
	return rl->st.rx_bad_len == 0 && rl->st.rx_seq_errors == 0 &&
		rl->st.rx_corrupt == 0;
}

#ifdef __cplusplus
}
#endif

#endif /* NDK_RAWLINK_H */
