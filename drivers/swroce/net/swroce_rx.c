/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * swroce reception: a packet's way in, from the poll loop down. An RX
 * burst is steered first: software links do no RSS and DPDK 22.11 has no
 * flow item for the BTH, so a frame may arrive on any queue; the receiving
 * poller peeks at the destination QPN and hands frames of other queues
 * over through their inbound ring (MP/SC), which each poller drains before
 * its own RX queue. Frames that are not RoCE, and QP1's, belong to queue 0
 * with the rest of the adapter-wide work. Each frame of this queue is then
 * parsed and checked (ICRC, address, QP and its state) and dispatched: to
 * the responder (requests), the completer (ACKs, NAKs, READ responses),
 * the CM (MADs on QP1) or the neighbour code (ARP, ICMP echo).
 */

#include <string.h>

#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_ring.h>

#include "ndk_roce_parse.h"
#include "swroce_adapter.h"
#include "swroce_cc.h"
#include "swroce_cm.h"
#include "swroce_ctl.h"
#include "swroce_neigh.h"
#include "swroce_qp.h"
#include "swroce_rc.h"
#include "swroce_resp.h"
#include "swroce_rx.h"

/*
 * The queue a frame belongs to, from the destination QPN of an untagged
 * IPv4 (no options) or IPv6 (no extension headers) UDP 4791 frame;
 * everything else is queue 0's. The parse after it checks what this does
 * not (the QP lookup re-checks the queue).
 */
static inline uint16_t
swr_steer(const struct swr_adapter *ad, const struct rte_mbuf *m)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint32_t len = rte_pktmbuf_data_len(m);
	const uint8_t *udp, *bth;

	if (unlikely(len < NDK_ROCE_L2L4_LEN + 8))
		return 0;
	if (f[12] == 0x08 && f[13] == 0x00 && f[14] == 0x45 &&
	    f[RTE_ETHER_HDR_LEN + 9] == IPPROTO_UDP)
		udp = f + RTE_ETHER_HDR_LEN + 20;
	else if (f[12] == 0x86 && f[13] == 0xDD && (f[14] >> 4) == 6 &&
		 f[RTE_ETHER_HDR_LEN + 6] == IPPROTO_UDP &&
		 len >= NDK_ROCE_L2L4_LEN6 + 8)
		udp = f + RTE_ETHER_HDR_LEN + 40;
	else
		return 0;
	if (udp[2] != (NDK_ROCE_UDP_PORT >> 8) ||
	    udp[3] != (NDK_ROCE_UDP_PORT & 0xFF))
		return 0;
	bth = udp + 8;
	return swr_qpn_queue(ad, ((uint32_t)bth[5] << 16) |
			     ((uint32_t)bth[6] << 8) | bth[7]);
}

/* Hand @p n frames to queue @p to; those its ring refuses are dropped. */
static void
swr_handoff(struct swr_queue *q, uint16_t to, struct rte_mbuf **m,
	    unsigned int n)
{
	unsigned int k;

	k = rte_ring_mp_enqueue_burst(q->ad->q[to].in_ring, (void **)m, n,
				      NULL);
	q->stats.rx_steered_out += k;
	if (unlikely(k < n)) {
		q->stats.rx_steer_drops += n - k;
		rte_pktmbuf_free_bulk(&m[k], n - k);
	}
}

/* Not RoCEv2: ARP and ICMP echo, or a drop. Clears *mp if it keeps it. */
static void
swr_rx_other(struct swr_queue *q, struct rte_mbuf **mp)
{
	struct swr_adapter *ad = q->ad;

	if (q->id != 0) {
		swr_handoff(q, 0, mp, 1);
		*mp = NULL;
		return;
	}
	switch (swr_neigh_input(ad, *mp)) {
	case SWR_NEIGH_RX_TAKEN:
		*mp = NULL;
		break;
	case SWR_NEIGH_RX_DONE:
		break;
	default:
		SWR_STAT(ad, rx_not_roce);
		break;
	}
}

static ndk_status_t
swr_cm_qp_rx_ctl(struct swr_adapter *ad __rte_unused, void *arg)
{
	swr_cm_qp_rx(arg);
	return NDK_STATUS_SUCCESS;
}

/*
 * READ responses (to this side's requests) keep their ICRC unchecked until
 * the completer places them: it checks the ICRC while it copies the
 * payload into the READ's sink (swroce_comp.c). Everything else is checked
 * on receive, before anything acts on it.
 */
static inline bool
swr_rx_icrc_later(const struct ndk_roce_pkt *p)
{
	return (p->op->flags & (NDK_ROCE_OPF_READ | NDK_ROCE_OPF_REQ)) ==
		NDK_ROCE_OPF_READ;
}

/*
 * Count a frame dropped before it reached a QP in @p ctr, or in
 * rx_icrc_errors if its ICRC (not checked yet) does not match.
 */
#define SWR_RX_DROP(q, p, later, ctr) do { \
	if ((later) && !ndk_roce_pkt_icrc_ok(p)) \
		SWR_STAT(q, rx_icrc_errors); \
	else \
		SWR_STAT(q, ctr); \
} while (0)

static void
swr_rx_one(struct swr_queue *q, struct rte_mbuf **mp)
{
	struct swr_adapter *ad = q->ad;
	struct rte_mbuf *m = *mp;
	struct ndk_roce_pkt p;
	enum ndk_roce_parse_err err;
	struct swr_qp *qp;
	uint32_t state;
	bool later = false;

	q->stats.rx_bytes += rte_pktmbuf_pkt_len(m);
	err = ndk_roce_parse_fast(m, &p);
	if (unlikely(ad->trust_crc)) {
		/* A link that cannot corrupt: no ICRC check (counted). */
		if (err == NDK_ROCE_PARSE_OK)
			SWR_STAT(q, rx_icrc_trusted);
	} else if (likely(err == NDK_ROCE_PARSE_OK)) {
		later = swr_rx_icrc_later(&p);
		if (!later && unlikely(!ndk_roce_pkt_icrc_ok(&p)))
			err = NDK_ROCE_PARSE_BAD_ICRC;
	}
	switch (err) {
	case NDK_ROCE_PARSE_OK:
		break;
	case NDK_ROCE_PARSE_NOT_IPV4:
	case NDK_ROCE_PARSE_NOT_ROCE:
		swr_rx_other(q, mp);
		return;
	case NDK_ROCE_PARSE_TRUNCATED:
		SWR_STAT(q, rx_truncated);
		return;
	case NDK_ROCE_PARSE_BAD_OPCODE:
		SWR_STAT(q, rx_bad_opcode);
		return;
	case NDK_ROCE_PARSE_BAD_ICRC:
		SWR_STAT(q, rx_icrc_errors);
		return;
	default:
		SWR_STAT(q, rx_bad_header);
		return;
	}
	if (unlikely(p.dip6 != NULL ? !ad->has_ipv6 ||
		     memcmp(p.dip6, ad->ipv6, sizeof(ad->ipv6)) != 0 :
		     p.dip != ad->ipv4 || p.dip == 0)) {
		SWR_RX_DROP(q, &p, later, rx_wrong_address);
		return;
	}
	if (unlikely(swr_qpn_queue(ad, p.qpn) != q->id)) {
		/* What swr_steer() could not see (a VLAN tag, IP options). */
		swr_handoff(q, swr_qpn_queue(ad, p.qpn), mp, 1);
		*mp = NULL;
		return;
	}
	if (unlikely(!(p.op->flags & NDK_ROCE_OPF_RC))) {
		if (p.qpn == NDK_ROCE_GSI_QPN &&
		    p.opcode == NDK_ROCE_OP_UD_SEND_ONLY) {
			/* The CM may flush a QP: what its frames completed
			 * first. */
			swr_cq_stage_end(q);
			swr_cm_rx(ad, &p);       /* CM MADs (queue 0) */
			return;
		}
		if (p.opcode == NDK_ROCE_OP_CNP) {
			swr_cc_cnp_rx(q, &p);
			return;
		}
		/* UC and other UD are not served. */
		SWR_RX_DROP(q, &p, later, rx_bad_opcode);
		return;
	}
	qp = swr_qp_lookup(ad, p.qpn);
	if (unlikely(qp == NULL)) {
		SWR_RX_DROP(q, &p, later, rx_unknown_qpn);
		return;
	}
	state = swr_qp_state(qp);
	if (unlikely(state < NDK_QP_STATE_RTR ||
		     state == NDK_QP_STATE_ERROR)) {
		SWR_RX_DROP(q, &p, later, rx_qp_state);
		return;
	}
	if (unlikely(p.sip != qp->attr.dest_ip ||
		     (p.sip6 != NULL && memcmp(p.sip6, qp->attr.dest_ip6,
					       sizeof(qp->attr.dest_ip6)) != 0))) {
		SWR_RX_DROP(q, &p, later, rx_wrong_address);
		return;
	}
	if (unlikely(__atomic_load_n(&qp->cm_wait_rtu, __ATOMIC_RELAXED))) {
		/* The peer uses it: RTU implied (CM state is queue 0's). */
		if (later && !ndk_roce_pkt_icrc_ok(&p)) {
			SWR_STAT(q, rx_icrc_errors);
			return;
		}
		swr_cq_stage_end(q);
		if (q->id == 0)
			swr_cm_qp_rx(qp);
		else
			swr_ctl_exec(ad, swr_cm_qp_rx_ctl, qp);
	}
	if (unlikely(swr_cc_pkt_ce(&p)))
		swr_cc_ce(qp);
	if (p.op->flags & NDK_ROCE_OPF_REQ) {
		/* The expected WRITE ONLY inline; completes nothing. */
		if (swr_resp_rx_write_only(qp, &p))
			return;
		q->cqs.cur = qp;        /* its completions: staged */
		swr_resp_rx(qp, &p);
	} else {
		if (unlikely(state == NDK_QP_STATE_RTR)) {
			SWR_RX_DROP(q, &p, later, rx_qp_state);
			return;
		}
		q->cqs.cur = qp;
		swr_comp_rx(qp, &p, later);
	}
	q->cqs.cur = NULL;
}

/*
 * Prefetch the QP a frame names (its header was prefetched a frame
 * earlier): the first line (number), state and address, the requester's
 * line (an ACK updates it) and the poller's bookkeeping line (CM flag,
 * timer, responder's PSNs). Whatever the frame is, this only reads it and
 * the QP table; a frame of no QP prefetches nothing useful, harmlessly.
 */
static inline void
swr_rx_prefetch_qp(const struct swr_adapter *ad, const struct rte_mbuf *m)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint32_t hl = ndk_roce_frame_l2l4_len(f);
	const uint8_t *bth = f + hl;
	const struct swr_qp *qp;

	if (unlikely(rte_pktmbuf_data_len(m) < hl + 8))
		return;
	qp = ad->qp_tbl[(((uint32_t)bth[5] << 16) | ((uint32_t)bth[6] << 8) |
			 bth[7]) & ad->qp_mask];
	if (qp == NULL)
		return;
	rte_prefetch0(qp);
	rte_prefetch0(&qp->state);
	rte_prefetch0(&qp->sq_tail);
	rte_prefetch0(&qp->in_active);
}

/*
 * Free a burst's frames: those that are one direct buffer referenced
 * once and of one pool (every frame a port receives and nothing kept)
 * go back to it in one put; any other (a request kept for selective
 * repeat, a chain, an attached buffer) through rte_pktmbuf_free(). Frames
 * reused for replies or handed over are NULL.
 */
static inline void
swr_rx_free(struct rte_mbuf **pkts, uint16_t n)
{
	struct rte_mbuf *put[SWR_RX_BURST];
	struct rte_mempool *mp = NULL;
	unsigned int k = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		if (m == NULL)
			continue;
		if (likely(rte_mbuf_refcnt_read(m) == 1 && m->next == NULL &&
			   RTE_MBUF_DIRECT(m) &&
			   (mp == NULL || m->pool == mp))) {
			mp = m->pool;
			put[k++] = m;
		} else {
			rte_pktmbuf_free(m);
		}
	}
	if (k != 0)
		rte_mempool_put_bulk(mp, (void **)put, k);
}

/* Process a burst; frames reused for replies or handed over are NULL. */
static void
swr_rx_burst(struct swr_queue *q, struct rte_mbuf **pkts, uint16_t n)
{
	if (n != 0)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[0], void *));
	if (n > 1)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[1], void *));
	if (n != 0)
		swr_rx_prefetch_qp(q->ad, pkts[0]);
	for (uint16_t i = 0; i < n; i++) {
		/* Headers two frames ahead, the QP of the next one. */
		if (i + 2 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 2], void *));
		if (i + 1 < n)
			swr_rx_prefetch_qp(q->ad, pkts[i + 1]);
		swr_rx_one(q, &pkts[i]);
	}
	/* The burst's completions, one enqueue per CQ. */
	swr_cq_stage_end(q);
	swr_rx_free(pkts, n);
}

/* Frames other queues received for this one. */
unsigned int
swr_inbound(struct swr_queue *q)
{
	struct rte_mbuf *pkts[SWR_RX_BURST];
	unsigned int n;

	n = rte_ring_sc_dequeue_burst(q->in_ring, (void **)pkts,
				      SWR_RX_BURST, NULL);
	q->stats.rx_steered_in += n;
	swr_rx_burst(q, pkts, n);
	return n;
}

/* A burst of @p n > 0 frames: steered to their queues, the rest ours. */
static __rte_noinline unsigned int
swr_rx_got(struct swr_queue *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct swr_adapter *ad = q->ad;
	struct rte_mbuf *away[SWR_MAX_QUEUES][SWR_RX_BURST];
	uint16_t n_away[SWR_MAX_QUEUES];
	uint16_t kept = 0;

	q->stats.rx_packets += n;
	if (ad->nb_queues > 1) {
		/* Keep our frames in order; batch the others per queue. */
		memset(n_away, 0, sizeof(n_away[0]) * ad->nb_queues);
		for (uint16_t i = 0; i < n; i++) {
			uint16_t to = swr_steer(ad, pkts[i]);

			if (to == q->id)
				pkts[kept++] = pkts[i];
			else
				away[to][n_away[to]++] = pkts[i];
		}
		for (uint16_t to = 0; to < ad->nb_queues; to++) {
			if (n_away[to] != 0)
				swr_handoff(q, to, away[to], n_away[to]);
		}
		n = kept;
	}
	swr_rx_burst(q, pkts, n);
	return n;
}

/*
 * A first burst of @p n > 0 frames, and more while they come full, up to
 * SWR_RX_BURSTS per poll: the answers a port has for us are taken before
 * the engines send more (with thousands of QPs in flight, one burst per
 * poll let ACKs queue up in the peer's TX ring until QPs timed out).
 */
unsigned int
swr_rx_bursts(struct swr_queue *q, struct rte_mbuf **pkts, uint16_t n)
{
	unsigned int got = 0;

	for (unsigned int b = 1;; b++) {
		bool full = n == SWR_RX_BURST;

		got += swr_rx_got(q, pkts, n);
		if (!full || b == SWR_RX_BURSTS)
			return got;
		n = rte_eth_rx_burst(q->ad->port_id, q->rxq, pkts,
				     SWR_RX_BURST);
		if (n == 0)
			return got;
	}
}

