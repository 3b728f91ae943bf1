/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * swroce queues: the poll loop (RX steering and dispatch, engines, TX
 * stage), polling ownership, the control mailbox, pausing and quiescence.
 *
 * An adapter has nb_queues RX/TX queue pairs of its port. QP n belongs to
 * queue (n & q_mask); only that queue's poller touches its lcore-private
 * state. Software links do no RSS and DPDK 22.11 has no flow item for the
 * BTH, so a frame may arrive on any queue: the receiving poller peeks at
 * the destination QPN and hands frames of other queues over through their
 * inbound ring (MP/SC), which each poller drains before its own RX queue.
 * Frames that are not RoCE, and QP1's, belong to queue 0 with the rest of
 * the adapter-wide work (ARP, CM, control mailbox, doorbells of attached
 * applications).
 *
 * Control operations run on queue 0's owner with the other queues paused:
 * the executor raises ad->paused and waits until no other queue is inside
 * a poll (queue->busy); a poller sets busy before it looks at paused, both
 * sequentially consistent, so the two cannot miss each other. A poller
 * that itself waits for a control operation (a callback inside its poll
 * calling the API) drops busy while it waits.
 */

#include <string.h>

#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_pause.h>
#include <rte_prefetch.h>
#include <rte_udp.h>

#include "swroce_cm.h"

static inline uint32_t
swr_self(void)
{
	return (uint32_t)rte_gettid();
}

/* ------------------------------------------------------------------ */
/* Ownership, pausing, control mailbox, quiescence                     */
/* ------------------------------------------------------------------ */

static bool
swr_try_own(struct swr_queue *q, uint32_t self)
{
	uint32_t owner = __atomic_load_n(&q->owner, __ATOMIC_ACQUIRE);

	if (owner == self)
		return true;
	if (owner != 0)
		return false;
	return __atomic_compare_exchange_n(&q->owner, &owner, self, false,
					   __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

/*
 * Stop every other queue between two polls (queue 0's owner). Queues the
 * caller owns are not inside a poll of another thread: skipped.
 */
static void
swr_pause_others(struct swr_adapter *ad, uint32_t self)
{
	if (ad->nb_queues == 1 || ad->pause_depth++ != 0)
		return;
	__atomic_store_n(&ad->paused, 1, __ATOMIC_SEQ_CST);
	for (uint16_t i = 1; i < ad->nb_queues; i++) {
		struct swr_queue *q = &ad->q[i];

		if (__atomic_load_n(&q->owner, __ATOMIC_ACQUIRE) == self)
			continue;
		while (__atomic_load_n(&q->busy, __ATOMIC_SEQ_CST) != 0)
			rte_pause();
	}
}

static void
swr_resume_others(struct swr_adapter *ad)
{
	if (ad->nb_queues == 1 || --ad->pause_depth != 0)
		return;
	__atomic_store_n(&ad->paused, 0, __ATOMIC_RELEASE);
}

/* Enter a poll of queue > 0: false if the adapter is paused. */
static inline bool
swr_enter(struct swr_queue *q)
{
	__atomic_store_n(&q->busy, 1, __ATOMIC_SEQ_CST);
	if (likely(__atomic_load_n(&q->ad->paused, __ATOMIC_SEQ_CST) == 0))
		return true;
	__atomic_store_n(&q->busy, 0, __ATOMIC_RELEASE);
	return false;
}

static void
swr_ctl_drain(struct swr_adapter *ad)
{
	uint32_t self = swr_self();
	struct swr_ctl *c;

	if (rte_ring_empty(ad->ctl_ring))
		return;
	swr_pause_others(ad, self);
	while (rte_ring_sc_dequeue(ad->ctl_ring, (void **)&c) == 0) {
		c->status = c->fn(ad, c->arg);
		__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
	}
	swr_resume_others(ad);
}

static void
swr_disown(struct swr_queue *q)
{
	if (q->id == 0)
		swr_ctl_drain(q->ad);
	__atomic_store_n(&q->owner, 0, __ATOMIC_RELEASE);
}

static ndk_status_t
swr_ctl_inline(struct swr_adapter *ad, uint32_t self,
	       ndk_status_t (*fn)(struct swr_adapter *, void *), void *arg)
{
	ndk_status_t st;

	swr_pause_others(ad, self);
	st = fn(ad, arg);
	swr_resume_others(ad);
	return st;
}

/* Queues > 0 this thread is inside a poll of: let a pause through. */
static uint32_t
swr_park(struct swr_adapter *ad, uint32_t self)
{
	uint32_t parked = 0;

	for (uint16_t i = 1; i < ad->nb_queues; i++) {
		struct swr_queue *q = &ad->q[i];

		if (__atomic_load_n(&q->owner, __ATOMIC_ACQUIRE) == self &&
		    __atomic_load_n(&q->busy, __ATOMIC_RELAXED) != 0) {
			__atomic_store_n(&q->busy, 0, __ATOMIC_RELEASE);
			parked |= 1u << i;
		}
	}
	return parked;
}

static void
swr_unpark(struct swr_adapter *ad, uint32_t parked)
{
	for (uint16_t i = 1; i < ad->nb_queues; i++) {
		if (!(parked & (1u << i)))
			continue;
		/* Back inside our poll, once no pause is in force. */
		while (!swr_enter(&ad->q[i]))
			rte_pause();
	}
}

ndk_status_t
swr_ctl_exec(struct swr_adapter *ad,
	     ndk_status_t (*fn)(struct swr_adapter *, void *), void *arg)
{
	struct swr_queue *q0 = &ad->q[0];
	uint32_t self = swr_self();
	struct swr_ctl c = { .fn = fn, .arg = arg };
	uint32_t parked;
	ndk_status_t st;

	if (__atomic_load_n(&q0->owner, __ATOMIC_ACQUIRE) == self)
		return swr_ctl_inline(ad, self, fn, arg);
	parked = swr_park(ad, self);
	if (swr_try_own(q0, self)) {
		st = swr_ctl_inline(ad, self, fn, arg);
		swr_disown(q0);
		swr_unpark(ad, parked);
		return st;
	}
	while (rte_ring_mp_enqueue(ad->ctl_ring, &c) != 0)
		rte_delay_us_sleep(10);
	while (!__atomic_load_n(&c.done, __ATOMIC_ACQUIRE)) {
		/* The poller may stop after we queued: run it ourselves. */
		if (swr_try_own(q0, self))
			swr_disown(q0);
		else
			rte_delay_us_sleep(5);
	}
	swr_unpark(ad, parked);
	return c.status;
}

void
swr_quiesce(struct swr_adapter *ad)
{
	uint32_t self = swr_self();
	uint32_t parked = swr_park(ad, self);

	for (uint16_t i = 0; i < ad->nb_queues; i++) {
		struct swr_queue *q = &ad->q[i];
		uint64_t e;

		if (__atomic_load_n(&q->owner, __ATOMIC_ACQUIRE) == self)
			continue;
		e = __atomic_load_n(&q->epoch, __ATOMIC_ACQUIRE);
		/* Two completed polls guarantee the one in progress ended. */
		while (__atomic_load_n(&q->owner, __ATOMIC_ACQUIRE) != 0 &&
		       __atomic_load_n(&q->epoch, __ATOMIC_ACQUIRE) < e + 2) {
			/*
			 * Queue 0's poller (a callback of its poll) serves
			 * the mailbox meanwhile: that queue's poller may be
			 * waiting in swr_ctl_exec() in the middle of a poll.
			 */
			if (__atomic_load_n(&ad->q[0].owner,
					    __ATOMIC_ACQUIRE) == self)
				swr_ctl_drain(ad);
			rte_delay_us_sleep(5);
		}
	}
	swr_unpark(ad, parked);
}

void
swr_release(struct ndk_adapter *adapter)
{
	struct swr_adapter *ad = swr_adapter_of(adapter);
	uint32_t self = swr_self();

	/* Queue 0 last: its ctl drain may still need the others paused. */
	for (uint16_t i = ad->nb_queues; i-- > 0;) {
		if (__atomic_load_n(&ad->q[i].owner, __ATOMIC_ACQUIRE) == self)
			swr_disown(&ad->q[i]);
	}
}

void
swr_own_all(struct swr_adapter *ad)
{
	uint32_t self = swr_self();
	bool warned = false;

	for (uint16_t i = 0; i < ad->nb_queues; i++) {
		while (!swr_try_own(&ad->q[i], self)) {
			if (!warned)
				NDK_LOG(WARNING, "%s: close waits for its "
					"pollers to stop", ad->name);
			warned = true;
			rte_delay_us_sleep(1000);
		}
	}
}

/* ------------------------------------------------------------------ */
/* TX stage                                                            */
/* ------------------------------------------------------------------ */

static void
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
swr_q_tx_stage(struct swr_queue *q, struct rte_mbuf *m)
{
	if (unlikely(q->tx_n == SWR_TX_STAGE)) {
		swr_tx_flush(q);
		if (q->tx_n == SWR_TX_STAGE) {
			/* Link saturated: RC retransmission recovers this. */
			rte_pktmbuf_free(m);
			return;
		}
	}
	q->tx_stage[q->tx_n++] = m;
	/*
	 * Once the port has refused a burst, frames only pile up in the
	 * stage until the poll's final flush: no tx_burst per frame against
	 * a full ring.
	 */
	if (q->tx_n >= SWR_TX_BURST && !q->tx_blocked)
		swr_tx_flush(q);
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
static unsigned int
swr_held_drain(struct swr_adapter *ad)
{
	struct rte_mbuf *m[SWR_RX_BURST];
	unsigned int n;

	n = rte_ring_sc_dequeue_burst(ad->held_ring, (void **)m,
				      SWR_RX_BURST, NULL);
	for (unsigned int i = 0; i < n; i++) {
		const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m[i],
			const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
		struct swr_neigh *e = NULL;

		swr_neigh_send(ad, &e, ip->dst_addr, m[i]);
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* RX: steering and dispatch                                           */
/* ------------------------------------------------------------------ */

/*
 * The queue a frame belongs to, from the destination QPN of an untagged
 * IPv4 (no options) UDP 4791 frame; everything else is queue 0's. The
 * parse after it checks what this does not (the QP lookup re-checks the
 * queue).
 */
static inline uint16_t
swr_steer(const struct swr_adapter *ad, const struct rte_mbuf *m)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint8_t *bth = f + NDK_ROCE_L2L4_LEN;

	if (unlikely(rte_pktmbuf_data_len(m) < NDK_ROCE_L2L4_LEN + 8))
		return 0;
	if (f[12] != 0x08 || f[13] != 0x00 || f[14] != 0x45 ||
	    f[RTE_ETHER_HDR_LEN + 9] != IPPROTO_UDP)
		return 0;
	if (f[RTE_ETHER_HDR_LEN + 20 + 2] != (NDK_ROCE_UDP_PORT >> 8) ||
	    f[RTE_ETHER_HDR_LEN + 20 + 3] != (NDK_ROCE_UDP_PORT & 0xFF))
		return 0;
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
	err = ndk_roce_parse(m, &p, false);
	if (likely(err == NDK_ROCE_PARSE_OK)) {
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
	if (unlikely(p.dip != ad->ipv4)) {
		SWR_RX_DROP(q, &p, later, rx_wrong_address);
		return;
	}
	if (unlikely(swr_qpn_queue(ad, p.qpn) != q->id)) {
		/* What swr_steer() could not see (a VLAN tag, IP options). */
		swr_handoff(q, swr_qpn_queue(ad, p.qpn), mp, 1);
		*mp = NULL;
		return;
	}
	if (unlikely(p.qpn == NDK_ROCE_GSI_QPN &&
		     p.opcode == NDK_ROCE_OP_UD_SEND_ONLY)) {
		swr_cm_rx(ad, &p);       /* CM MADs (queue 0) */
		return;
	}
	if (unlikely(!(p.op->flags & NDK_ROCE_OPF_RC))) {
		/* UC, other UD and CNP are not served. */
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
	if (unlikely(p.sip != qp->attr.dest_ip)) {
		SWR_RX_DROP(q, &p, later, rx_wrong_address);
		return;
	}
	if (unlikely(__atomic_load_n(&qp->cm_wait_rtu, __ATOMIC_RELAXED))) {
		/* The peer uses it: RTU implied (CM state is queue 0's). */
		if (later && !ndk_roce_pkt_icrc_ok(&p)) {
			SWR_STAT(q, rx_icrc_errors);
			return;
		}
		if (q->id == 0)
			swr_cm_qp_rx(qp);
		else
			swr_ctl_exec(ad, swr_cm_qp_rx_ctl, qp);
	}
	if (p.op->flags & NDK_ROCE_OPF_REQ) {
		swr_resp_rx(qp, &p);
	} else {
		if (unlikely(state == NDK_QP_STATE_RTR)) {
			SWR_RX_DROP(q, &p, later, rx_qp_state);
			return;
		}
		swr_comp_rx(qp, &p, later);
	}
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
	const uint8_t *bth = rte_pktmbuf_mtod_offset(m, const uint8_t *,
						     NDK_ROCE_L2L4_LEN);
	const struct swr_qp *qp;

	if (unlikely(rte_pktmbuf_data_len(m) < NDK_ROCE_L2L4_LEN + 8))
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
	if (n != 0)
		rte_pktmbuf_free_bulk(pkts, n);
}

/* Frames other queues received for this one. */
static unsigned int
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

static unsigned int
swr_rx(struct swr_queue *q)
{
	struct swr_adapter *ad = q->ad;
	struct rte_mbuf *pkts[SWR_RX_BURST];
	struct rte_mbuf *away[SWR_MAX_QUEUES][SWR_RX_BURST];
	uint16_t n_away[SWR_MAX_QUEUES];
	uint16_t n, kept = 0;

	n = rte_eth_rx_burst(ad->port_id, q->rxq, pkts, SWR_RX_BURST);
	q->stats.rx_packets += n;
	if (ad->nb_queues > 1 && n != 0) {
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

void
swr_qp_activate(struct swr_qp *qp)
{
	struct swr_queue *q = qp->q;

	if (qp->in_active || qp->detached)
		return;
	qp->in_active = true;
	q->active[q->n_active++] = qp;
}

/* ------------------------------------------------------------------ */
/* Engines and the poll                                                */
/* ------------------------------------------------------------------ */

/* Service one active QP; returns packets generated, sets *idle. */
static unsigned int
swr_service(struct swr_qp *qp, bool *idle)
{
	uint32_t state = swr_qp_state(qp);
	unsigned int made = 0;

	if (unlikely(__atomic_load_n(&qp->flush_req, __ATOMIC_ACQUIRE) != 0 ||
		     state == NDK_QP_STATE_ERROR)) {
		/* NdkFlush, or posts made since the QP failed. */
		swr_qp_flush_all(qp);
		*idle = true;
		return 0;
	}
	if (state >= NDK_QP_STATE_RTR) {
		if (swr_resp_busy(qp))
			made += swr_resp_tx(qp, SWR_QP_TX_QUOTA);
	}
	if (state == NDK_QP_STATE_RTS || state == NDK_QP_STATE_SQD)
		made += swr_req_run(qp, SWR_QP_TX_QUOTA);
	/*
	 * Everything sent, or waiting for the RNR timer: only an answer (the
	 * completer), a doorbell or a timer (the wheel) gives it work again.
	 */
	*idle = !swr_resp_busy(qp) && (qp->rnr_until != 0 ||
		qp->req_idx == __atomic_load_n(&qp->sq_prod, __ATOMIC_ACQUIRE));
	return made;
}

/* A QP's timer expired on the wheel: the requester decides what it means. */
static void
swr_qp_timer_fire(struct swr_tw_node *nd, void *arg)
{
	struct swr_queue *q = arg;
	struct swr_qp *qp = container_of(nd, struct swr_qp, tm);
	uint64_t due = qp->rnr_until != 0 ? qp->rnr_until : qp->rto_deadline;
	uint32_t state;

	SWR_STAT(q, qp_timer_fires);
	if (due == 0)
		return;                 /* disarmed since: nothing to do */
	if (due > q->now) {
		swr_tw_arm(&q->tw, nd, due);    /* moved later meanwhile */
		return;
	}
	state = swr_qp_state(qp);
	if (state == NDK_QP_STATE_RTS || state == NDK_QP_STATE_SQD)
		swr_req_timers(qp);
}

/* The lines of a QP swr_service() reads first. */
static inline void
swr_service_prefetch(const struct swr_qp *qp)
{
	rte_prefetch0(&qp->state);
	rte_prefetch0(&qp->sq_prod);
	rte_prefetch0(&qp->sq_tail);
	rte_prefetch0(&qp->ack_pending);
}

static unsigned int
swr_tx_engines(struct swr_queue *q)
{
	unsigned int made = 0, kept = 0, n = q->n_active;

	/* Visit every active QP once; drop the idle ones from the list. */
	for (unsigned int i = 0; i < n; i++) {
		struct swr_qp *qp = q->active[i];
		bool idle = false;

		if (i + 1 < n)
			swr_service_prefetch(q->active[i + 1]);

		if (swr_tx_room(q) > SWR_QP_TX_QUOTA * 2)
			made += swr_service(qp, &idle);
		if (idle) {
			qp->in_active = false;
		} else {
			q->active[kept++] = qp;
		}
	}
	/* QPs activated during this pass were appended after n. */
	for (unsigned int i = n; i < q->n_active; i++)
		q->active[kept++] = q->active[i];
	q->n_active = kept;
	return made;
}

static unsigned int
swr_poll_q(struct swr_queue *q, uint32_t self)
{
	struct swr_adapter *ad = q->ad;
	unsigned int work = 0;

	if (unlikely(!swr_try_own(q, self)))
		return 0;
	if (q->id != 0 && unlikely(!swr_enter(q))) {
		__atomic_store_n(&q->epoch, q->epoch + 1, __ATOMIC_RELEASE);
		return 0;
	}
	q->last_now = q->now;
	q->now = rte_rdtsc();
	if (q->id == 0) {
		ad->now = q->now;
		if (unlikely(!rte_ring_empty(ad->ctl_ring)))
			swr_ctl_drain(ad);
	}
	work += swr_doorbells(q);
	if (q->in_ring != NULL)
		work += swr_inbound(q);
	work += swr_rx(q);
	work += swr_tw_advance(&q->tw, q->now, swr_qp_timer_fire, q);
	work += swr_tx_engines(q);
	if (q->id == 0) {
		if (ad->held_ring != NULL)
			work += swr_held_drain(ad);
		if (unlikely(ad->now >= ad->neigh_tick))
			swr_neigh_timers(ad);
		swr_cm_poll(ad);
	}
	q->tx_blocked = false;
	if (q->tx_n != 0)
		swr_tx_flush(q);
	if (q->id != 0)
		__atomic_store_n(&q->busy, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&q->epoch, q->epoch + 1, __ATOMIC_RELEASE);
	return work + q->n_active;
}

unsigned int
swr_poll(struct ndk_adapter *adapter)
{
	struct swr_adapter *ad = swr_adapter_of(adapter);
	uint32_t self = swr_self();
	unsigned int work = 0;

	for (uint16_t i = 0; i < ad->nb_queues; i++)
		work += swr_poll_q(&ad->q[i], self);
	return work;
}

unsigned int
swr_poll_queue(struct ndk_adapter *adapter, uint16_t queue)
{
	struct swr_adapter *ad = swr_adapter_of(adapter);

	if (unlikely(queue >= ad->nb_queues))
		return 0;
	return swr_poll_q(&ad->q[queue], swr_self());
}

/* ------------------------------------------------------------------ */
/* Set-up and counters                                                 */
/* ------------------------------------------------------------------ */

int
swr_queues_init(struct swr_adapter *ad, uint32_t seq)
{
	char name[RTE_RING_NAMESIZE];
	/* Wheel ticks of 1 << tick_shift TSC cycles: 1 to 2 microseconds. */
	uint32_t tick_shift = rte_log2_u64(RTE_MAX(ad->tsc_hz / 1000000,
						   UINT64_C(1)));

	ad->q = rte_zmalloc_socket("ndk_swroce_q",
				   sizeof(ad->q[0]) * ad->nb_queues,
				   RTE_CACHE_LINE_SIZE, ad->socket_id);
	if (ad->q == NULL)
		return -ENOMEM;
	for (uint16_t i = 0; i < ad->nb_queues; i++) {
		struct swr_queue *q = &ad->q[i];
		void *tw_mem;

		q->ad = ad;
		q->id = i;
		q->rxq = i;
		q->txq = i;
		q->active = rte_zmalloc_socket(NULL, sizeof(q->active[0]) <<
					       ad->qp_bits, 0, ad->socket_id);
		tw_mem = rte_zmalloc_socket(NULL, swr_tw_mem_size(SWR_TW_BITS),
					    RTE_CACHE_LINE_SIZE, ad->socket_id);
		if (tw_mem == NULL)
			return -ENOMEM;
		q->now = q->last_now = rte_rdtsc();
		swr_tw_init(&q->tw, tw_mem, SWR_TW_BITS, tick_shift, q->now);
		snprintf(name, sizeof(name), "ndkdb%u_%u", seq, i);
		q->db_ring = rte_ring_create(name, 1u << ad->qp_bits,
					     ad->socket_id,
					     RING_F_SC_DEQ | RING_F_EXACT_SZ);
		if (q->active == NULL || q->db_ring == NULL)
			return -ENOMEM;
		if (ad->nb_queues == 1)
			continue;
		snprintf(name, sizeof(name), "ndkin%u_%u", seq, i);
		q->in_ring = rte_ring_create(name, SWR_INBOUND_RING,
					     ad->socket_id, RING_F_SC_DEQ);
		if (q->in_ring == NULL)
			return -ENOMEM;
	}
	ad->db_ring = ad->q[0].db_ring;
	if (ad->nb_queues > 1) {
		snprintf(name, sizeof(name), "ndkheld%u", seq);
		ad->held_ring = rte_ring_create(name, SWR_INBOUND_RING,
						ad->socket_id, RING_F_SC_DEQ);
		if (ad->held_ring == NULL)
			return -ENOMEM;
	}
	return 0;
}

static void
swr_ring_flush_free(struct rte_ring *r)
{
	struct rte_mbuf *m;

	if (r == NULL)
		return;
	while (rte_ring_sc_dequeue(r, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	rte_ring_free(r);
}

void
swr_queues_fini(struct swr_adapter *ad)
{
	if (ad->q == NULL)
		return;
	swr_ring_flush_free(ad->held_ring);
	for (uint16_t i = 0; i < ad->nb_queues; i++) {
		struct swr_queue *q = &ad->q[i];

		if (q->tx_n != 0)
			rte_pktmbuf_free_bulk(q->tx_stage, q->tx_n);
		q->tx_n = 0;
		swr_ring_flush_free(q->in_ring);
		rte_ring_free(q->db_ring);
		rte_free(q->active);
		rte_free(q->tw.slot);
	}
	rte_free(ad->q);
	ad->q = NULL;
}

void
swr_stats_sum(const struct swr_adapter *ad, struct swr_stats *out)
{
	const size_t n = sizeof(*out) / sizeof(uint64_t);
	uint64_t *o = (uint64_t *)out;

	*out = ad->stats;
	for (uint16_t i = 0; i < ad->nb_queues; i++) {
		const uint64_t *s = (const uint64_t *)&ad->q[i].stats;

		for (size_t k = 0; k < n; k++)
			o[k] += s[k];
	}
}
