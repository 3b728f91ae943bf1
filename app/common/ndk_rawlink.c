/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Raw-ethdev baseline: frames shaped like a RoCEv2 message's, sent and
 * received with plain burst calls (see ndk_rawlink.h).
 */

#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ethdev.h>

#include "ndk_rawlink.h"
#include "ndk_roce.h"

/* The raw header after the Ethernet header (network byte order). */
struct rawlink_hdr {
	rte_be32_t magic;
	rte_be32_t len;
	rte_be64_t seq;
} __rte_packed;

/* ------------------------------------------------------------------ */
/* Shapes                                                              */
/* ------------------------------------------------------------------ */

/* Frame carrying @p payload bytes after the headers of @p opcode. */
static uint32_t
rawlink_roce_frame(uint8_t opcode, uint32_t payload)
{
	return NDK_ROCE_L2L4_LEN + ndk_roce_opcode(opcode)->hdr_len +
		payload + ((-payload) & 3) + NDK_ROCE_ICRC_LEN;
}

static void
rawlink_shape_total(struct ndk_rawlink_shape *s)
{
	s->bytes = s->first;
	if (s->frames > 1)
		s->bytes += (uint64_t)s->middle * (s->frames - 2) + s->last;
}

int
ndk_rawlink_shape_roce(struct ndk_rawlink_shape *s, enum ndk_rawlink_kind kind,
		       uint64_t size, uint32_t mtu)
{
	/* ONLY, FIRST, MIDDLE, LAST opcodes of each family. */
	static const uint8_t ops[][4] = {
		[NDK_RAWLINK_SEND] = {
			NDK_ROCE_OP_RC_SEND_ONLY, NDK_ROCE_OP_RC_SEND_FIRST,
			NDK_ROCE_OP_RC_SEND_MIDDLE, NDK_ROCE_OP_RC_SEND_LAST,
		},
		[NDK_RAWLINK_WRITE] = {
			NDK_ROCE_OP_RC_WRITE_ONLY, NDK_ROCE_OP_RC_WRITE_FIRST,
			NDK_ROCE_OP_RC_WRITE_MIDDLE, NDK_ROCE_OP_RC_WRITE_LAST,
		},
		[NDK_RAWLINK_READ_RESP] = {
			NDK_ROCE_OP_RC_READ_RESP_ONLY,
			NDK_ROCE_OP_RC_READ_RESP_FIRST,
			NDK_ROCE_OP_RC_READ_RESP_MIDDLE,
			NDK_ROCE_OP_RC_READ_RESP_LAST,
		},
	};
	uint64_t frames;
	uint32_t tail;

	if (size == 0 || size > (1ull << 31) ||
	    ndk_roce_mtu_from_bytes(mtu) == 0)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	if (kind == NDK_RAWLINK_READ_REQ) {
		s->frames = 1;
		s->first = (uint16_t)rawlink_roce_frame(
			NDK_ROCE_OP_RC_READ_REQUEST, 0);
		rawlink_shape_total(s);
		return 0;
	}
	frames = (size + mtu - 1) / mtu;
	tail = (uint32_t)(size - (frames - 1) * mtu);
	s->frames = (uint32_t)frames;
	if (frames == 1) {
		s->first = (uint16_t)rawlink_roce_frame(ops[kind][0], tail);
	} else {
		s->first = (uint16_t)rawlink_roce_frame(ops[kind][1], mtu);
		s->middle = (uint16_t)rawlink_roce_frame(ops[kind][2], mtu);
		s->last = (uint16_t)rawlink_roce_frame(ops[kind][3], tail);
	}
	rawlink_shape_total(s);
	return 0;
}

int
ndk_rawlink_shape_fixed(struct ndk_rawlink_shape *s, uint32_t frames,
			uint16_t len)
{
	if (frames == 0 || len < NDK_RAWLINK_MIN_FRAME)
		return -EINVAL;
	s->frames = frames;
	s->first = s->middle = s->last = len;
	rawlink_shape_total(s);
	return 0;
}

uint16_t
ndk_rawlink_shape_max(const struct ndk_rawlink_shape *s)
{
	uint16_t m = s->first;

	if (s->frames > 1) {
		m = RTE_MAX(m, s->last);
		if (s->frames > 2)
			m = RTE_MAX(m, s->middle);
	}
	return m;
}

/* ------------------------------------------------------------------ */
/* Set-up                                                              */
/* ------------------------------------------------------------------ */

void
ndk_rawlink_init(struct ndk_rawlink *rl, uint16_t port_id, uint16_t queue_id,
		 struct rte_mempool *pool, const struct rte_ether_addr *src,
		 const struct rte_ether_addr *dst, bool verify)
{
	memset(rl, 0, sizeof(*rl));
	rl->port_id = port_id;
	rl->queue_id = queue_id;
	rl->pool = pool;
	rl->verify = verify;
	rte_ether_addr_copy(dst, &rl->eth.dst_addr);
	rte_ether_addr_copy(src, &rl->eth.src_addr);
	rl->eth.ether_type = RTE_BE16(NDK_RAWLINK_ETHERTYPE);
	ndk_rawlink_shape_fixed(&rl->tx_shape, 1, NDK_RAWLINK_MIN_FRAME);
	rl->rx_shape = rl->tx_shape;
}

void
ndk_rawlink_release(struct ndk_rawlink *rl)
{
	if (rl->n_held != 0)
		rte_pktmbuf_free_bulk(rl->held, rl->n_held);
	rl->n_held = 0;
}

int
ndk_rawlink_set_shapes(struct ndk_rawlink *rl,
		       const struct ndk_rawlink_shape *tx,
		       const struct ndk_rawlink_shape *rx)
{
	if (tx != NULL) {
		uint32_t room = rte_pktmbuf_data_room_size(rl->pool) -
			RTE_PKTMBUF_HEADROOM;

		if (ndk_rawlink_shape_max(tx) > room)
			return -EMSGSIZE;
		rl->tx_shape = *tx;
	}
	if (rx != NULL)
		rl->rx_shape = *rx;
	ndk_rawlink_release(rl);
	rl->tx_seq = rl->rx_seq = 0;
	rl->tx_k = rl->rx_k = 0;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Filler pattern (verification only)                                  */
/* ------------------------------------------------------------------ */

static inline uint8_t
rawlink_pattern(uint64_t seq, uint32_t off)
{
	return (uint8_t)((uint32_t)seq * 131u ^ off * 7u ^ (off >> 8));
}

static void
rawlink_fill(uint8_t *p, uint64_t seq, uint32_t len)
{
	for (uint32_t off = NDK_RAWLINK_HDR_LEN; off < len; off++)
		p[off] = rawlink_pattern(seq, off);
}

/* @return true if every filler byte of @p m (any segments) is right. */
static bool
rawlink_check(const struct rte_mbuf *m, uint64_t seq)
{
	uint32_t off = 0;

	for (const struct rte_mbuf *s = m; s != NULL; s = s->next) {
		const uint8_t *p = rte_pktmbuf_mtod(s, const uint8_t *);

		for (uint32_t i = 0; i < s->data_len; i++, off++)
			if (off >= NDK_RAWLINK_HDR_LEN &&
			    p[i] != rawlink_pattern(seq, off))
				return false;
	}
	return true;
}

/* ------------------------------------------------------------------ */
/* Data path                                                           */
/* ------------------------------------------------------------------ */

static inline void
rawlink_next(const struct ndk_rawlink_shape *s, uint64_t *seq, uint32_t *k)
{
	(*seq)++;
	if (++*k == s->frames)
		*k = 0;
}

uint16_t
ndk_rawlink_tx(struct ndk_rawlink *rl, uint64_t seq_end)
{
	uint16_t room = NDK_RAWLINK_BURST - rl->n_held;
	uint16_t n = 0, sent;

	if (rl->tx_seq < seq_end && room != 0) {
		n = (uint16_t)RTE_MIN((uint64_t)room, seq_end - rl->tx_seq);
		if (rte_pktmbuf_alloc_bulk(rl->pool, &rl->held[rl->n_held],
					   n) != 0) {
			rl->st.tx_nombuf++;
			n = 0;
		}
	}
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = rl->held[rl->n_held + i];
		uint16_t len = ndk_rawlink_frame_len(&rl->tx_shape, rl->tx_k);
		uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
		struct rawlink_hdr *h =
			(struct rawlink_hdr *)(p + RTE_ETHER_HDR_LEN);

		m->data_len = len;
		m->pkt_len = len;
		rte_memcpy(p, &rl->eth, sizeof(rl->eth));
		h->magic = RTE_BE32(NDK_RAWLINK_MAGIC);
		h->len = rte_cpu_to_be_32(len);
		h->seq = rte_cpu_to_be_64(rl->tx_seq);
		if (rl->verify)
			rawlink_fill(p, rl->tx_seq, len);
		rawlink_next(&rl->tx_shape, &rl->tx_seq, &rl->tx_k);
	}
	rl->n_held += n;
	if (rl->n_held == 0)
		return 0;
	sent = rte_eth_tx_burst(rl->port_id, rl->queue_id, rl->held,
				rl->n_held);
	for (uint16_t i = 0; i < sent; i++)
		rl->st.tx_bytes += rl->held[i]->pkt_len;
	rl->st.tx_frames += sent;
	if (sent != 0 && sent < rl->n_held)
		memmove(rl->held, &rl->held[sent],
			(rl->n_held - sent) * sizeof(rl->held[0]));
	rl->n_held -= sent;
	return sent;
}

/* Check one received raw frame against the expected sequence. */
static void
rawlink_rx_one(struct ndk_rawlink *rl, const struct rte_mbuf *m,
	       const struct rawlink_hdr *h)
{
	uint64_t seq = rte_be_to_cpu_64(h->seq);
	uint32_t len = rte_be_to_cpu_32(h->len);

	rl->st.rx_frames++;
	rl->st.rx_bytes += m->pkt_len;
	if (unlikely(seq != rl->rx_seq)) {
		/* Resynchronise on what arrived. */
		rl->st.rx_seq_errors++;
		if (seq > rl->rx_seq) {
			rl->rx_k = (uint32_t)((rl->rx_k + seq - rl->rx_seq) %
					      rl->rx_shape.frames);
			rl->rx_seq = seq;
		}
	}
	if (unlikely(len != m->pkt_len ||
		     len != ndk_rawlink_frame_len(&rl->rx_shape, rl->rx_k)))
		rl->st.rx_bad_len++;
	if (rl->verify) {
		rl->st.rx_checked++;
		if (!rawlink_check(m, seq))
			rl->st.rx_corrupt++;
	}
	if (seq == rl->rx_seq)
		rawlink_next(&rl->rx_shape, &rl->rx_seq, &rl->rx_k);
}

uint16_t
ndk_rawlink_rx(struct ndk_rawlink *rl)
{
	struct rte_mbuf *m[NDK_RAWLINK_BURST];
	uint16_t n, ours = 0;

	n = rte_eth_rx_burst(rl->port_id, rl->queue_id, m, NDK_RAWLINK_BURST);
	for (uint16_t i = 0; i < n; i++) {
		uint8_t copy[NDK_RAWLINK_HDR_LEN];
		const uint8_t *p = rte_pktmbuf_read(m[i], 0, sizeof(copy),
						    copy);
		const struct rte_ether_hdr *e = (const void *)p;
		const struct rawlink_hdr *h =
			(const void *)(p + RTE_ETHER_HDR_LEN);

		if (p == NULL ||
		    e->ether_type != RTE_BE16(NDK_RAWLINK_ETHERTYPE) ||
		    h->magic != RTE_BE32(NDK_RAWLINK_MAGIC)) {
			rl->st.rx_other++;
			continue;
		}
		rawlink_rx_one(rl, m[i], h);
		ours++;
	}
	if (n != 0)
		rte_pktmbuf_free_bulk(m, n);
	return ours;
}
