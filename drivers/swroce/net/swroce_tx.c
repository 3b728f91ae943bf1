/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * swroce transmission: a packet's way out. Build (IPv4: the QP's prebuilt
 * frame head, its lengths, checksum and BTH fields written; IPv6: L2-L4
 * from the QP's template, the BTH), seal (pad and ICRC, or the ICRC run in the payload
 * copy's pass), transmit (the neighbour's MAC, or the frame held while it
 * resolves: queue 0's neighbour table, so other queues hand such frames
 * over), ACK/NAK frames, and each queue's TX stage, flushed in bursts and
 * at the end of every poll (core/swroce_sched.c).
 */

#include <string.h>

#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "swroce_adapter.h"
#include "swroce_cc.h"
#include "swroce_neigh.h"
#include "swroce_qp.h"
#include "swroce_tx.h"

/* ------------------------------------------------------------------ */
/* Build and seal                                                     */
/* ------------------------------------------------------------------ */

struct rte_mbuf *
swr_pkt_new(struct swr_qp *qp, uint8_t opcode, uint32_t payload, bool se,
	    bool ackreq, uint32_t psn, struct ndk_roce_bth **bth_out)
{
	return swr_pkt_build(qp, opcode, ndk_roce_opcode(opcode), payload, se,
			     ackreq, psn, bth_out);
}

/*
 * The IPv4 frame head of @p qp from its template (IPv6 frames are built
 * by ndk_roce_l2l4_write()). The head is copied whole, 64 bytes: every
 * buffer of the adapter's pool has room for it.
 */
static void
swr_qp_set_tpl(struct swr_qp *qp)
{
	struct swr_tx_tpl *t = &qp->tpl;
	struct ndk_roce_bth bth;

	RTE_BUILD_BUG_ON(sizeof(*t) != 64 ||
			 NDK_ROCE_L2L4_LEN + sizeof(bth) > sizeof(t->hdr));
	memset(t, 0, sizeof(*t));
	if (qp->l2l4.ipv6 || rte_pktmbuf_data_room_size(qp->ad->mp) <
	    RTE_PKTMBUF_HEADROOM + sizeof(*t))
		return;
	memcpy(t->hdr, qp->l2l4.hdr, NDK_ROCE_L2L4_LEN);
	ndk_roce_bth_set(&bth, 0, false, 0, 0, false, 0);
	memcpy(t->hdr + NDK_ROCE_L2L4_LEN, &bth, sizeof(bth));
	t->csum_base = qp->l2l4.csum_base;
	t->on = true;
}

void
swr_qp_set_path(struct swr_qp *qp, const struct rte_ether_addr *dmac)
{
	struct swr_adapter *ad = qp->ad;
	uint16_t sport = ndk_roce_udp_sport(qp->pub.qpn, qp->attr.dest_qpn);
	bool resolve = rte_is_zero_ether_addr(dmac);
	uint8_t tos = swr_cc_tos(qp, qp->attr.tos);

	if (qp->attr.dest_ip != 0) {
		swr_cc_qp_init(qp);
		qp->neigh = resolve ? swr_neigh_attach(ad, qp->attr.dest_ip) :
			NULL;
		ndk_roce_l2l4_init(&qp->l2l4, &ad->mac, dmac, ad->ipv4,
				   qp->attr.dest_ip, sport, tos, 64);
		swr_qp_set_tpl(qp);
		return;
	}
	swr_cc_qp_init(qp);
	qp->neigh = resolve ? swr_neigh_attach6(ad, qp->attr.dest_ip6) : NULL;
	ndk_roce_l2l4_init6(&qp->l2l4, &ad->mac, dmac, ad->ipv6,
			    qp->attr.dest_ip6, sport, tos, 0, 64);
	swr_qp_set_tpl(qp);
}

uint32_t
swr_frame_icrc_start(const struct rte_mbuf *m, const uint8_t *payload)
{
	const uint8_t *l3 = rte_pktmbuf_mtod(m, const uint8_t *) +
		RTE_ETHER_HDR_LEN;

	return ndk_roce_icrc_start_frame(l3, (size_t)(payload - l3),
					 rte_pktmbuf_headroom(m) +
					 RTE_ETHER_HDR_LEN);
}

void
swr_frame_seal_crc(const struct ndk_roce_bth *bth, uint8_t *payload,
		   uint32_t plen, uint32_t crc)
{
	uint32_t pad = ndk_roce_bth_padcnt(bth);

	if (pad != 0) {
		memset(payload + plen, 0, pad);
		crc = ndk_roce_crc32_update(crc, payload + plen, pad);
	}
	crc = rte_cpu_to_le_32(~crc);
	memcpy(payload + plen + pad, &crc, sizeof(crc));
}

void
swr_pkt_send(struct swr_qp *qp, struct rte_mbuf *m)
{
	swr_frame_seal(m);
	swr_pkt_xmit(qp, m);
}

void
swr_pkt_xmit_neigh(struct swr_qp *qp, struct rte_mbuf *m)
{
	const struct swr_neigh *e = qp->neigh;
	uint8_t *frame = rte_pktmbuf_mtod(m, uint8_t *);

	/* ARP-resolved peer (the ICRC does not cover the MAC header). */
	if (unlikely(e->state != SWR_NEIGH_REACHABLE ||
		     e->ip != qp->attr.dest_ip ||
		     (e->ip == 0 && memcmp(e->addr, qp->attr.dest_ip6,
					   sizeof(e->addr)) != 0))) {
		if (qp->q->id == 0)
			swr_neigh_output(qp, m);
		else
			swr_q_neigh_handoff(qp->q, m);
		return;
	}
	rte_ether_addr_copy(&e->mac, (struct rte_ether_addr *)frame);
	swr_q_tx_stage(qp->q, m);
}

void
swr_send_ack(struct swr_qp *qp, uint8_t syndrome, uint32_t psn)
{
	struct ndk_roce_bth *bth;
	struct rte_mbuf *m;

	m = swr_pkt_new(qp, NDK_ROCE_OP_RC_ACK, 0, false, false, psn, &bth);
	if (m == NULL)
		return;
	ndk_roce_aeth_set((struct ndk_roce_aeth *)(bth + 1), syndrome,
			  qp->msn);
	SWR_STAT(qp->q, acks_sent);
	swr_pkt_send(qp, m);
}

/* ------------------------------------------------------------------ */
/* TX stage                                                            */
/* ------------------------------------------------------------------ */

void
swr_tx_flush(struct swr_queue *q)
{
	struct swr_adapter *ad = q->ad;
	uint16_t sent = 0;

	while (sent < q->tx_n) {
		uint16_t n = rte_eth_tx_burst(ad->port_id, q->txq,
					      &q->tx_stage[sent],
					      RTE_MIN(q->tx_n - sent,
						      SWR_TX_BURST));

		if (n == 0) {
			SWR_STAT(q, tx_full);
			q->tx_blocked = true;
			break;
		}
		SWR_STAT(q, tx_bursts);
		sent += n;
	}
	for (uint16_t i = 0; i < sent; i++)
		q->stats.tx_bytes += rte_pktmbuf_pkt_len(q->tx_stage[i]);
	q->stats.tx_packets += sent;
	if (sent != 0 && sent < q->tx_n)
		memmove(&q->tx_stage[0], &q->tx_stage[sent],
			(q->tx_n - sent) * sizeof(q->tx_stage[0]));
	q->tx_n -= sent;
}

void
swr_q_tx_stage_full(struct swr_queue *q, struct rte_mbuf *m)
{
	swr_tx_flush(q);
	if (q->tx_n == SWR_TX_STAGE) {
		/* Link saturated: RC retransmission recovers this. */
		rte_pktmbuf_free(m);
		return;
	}
	swr_q_tx_stage(q, m);
}

void
swr_tx_stage(struct swr_adapter *ad, struct rte_mbuf *m)
{
	swr_q_tx_stage(&ad->q[0], m);
}

void
swr_q_neigh_handoff(struct swr_queue *q, struct rte_mbuf *m)
{
	if (unlikely(rte_ring_mp_enqueue(q->ad->held_ring, m) != 0)) {
		SWR_STAT(q, neigh_pending_drops); /* RC retransmits it */
		rte_pktmbuf_free(m);
	}
}

/* Queue 0: frames of other queues waiting for their neighbour. */
unsigned int
swr_held_drain(struct swr_adapter *ad)
{
	struct rte_mbuf *m[SWR_RX_BURST];
	unsigned int n;

	n = rte_ring_sc_dequeue_burst(ad->held_ring, (void **)m,
				      SWR_RX_BURST, NULL);
	for (unsigned int i = 0; i < n; i++) {
		const uint8_t *f = rte_pktmbuf_mtod(m[i], const uint8_t *);
		struct swr_neigh *e = NULL;

		if (ndk_roce_frame_l2l4_len(f) == NDK_ROCE_L2L4_LEN6) {
			const struct rte_ipv6_hdr *ip6 =
				(const struct rte_ipv6_hdr *)(f +
							RTE_ETHER_HDR_LEN);

			swr_neigh_send6(ad, &e, ip6->dst_addr, m[i]);
		} else {
			const struct rte_ipv4_hdr *ip =
				(const struct rte_ipv4_hdr *)(f +
							RTE_ETHER_HDR_LEN);

			swr_neigh_send(ad, &e, ip->dst_addr, m[i]);
		}
	}
	return n;
}
