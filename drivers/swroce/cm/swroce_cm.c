/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * swroce connection manager, polling-thread side: CM MADs on QP1 (UD,
 * GSI Q_Key) in and out, the connection state machine, retransmission
 * timers and delivery of consumer callbacks (swroce_cm.h).
 *
 * Active side:  Connect -> REQ ... REP -> (Connect succeeds)
 *               CompleteConnect -> QP RTR/RTS, RTU -> ESTABLISHED
 * Passive side: REQ -> connect event ... Accept -> QP RTR, REP
 *               ... RTU (or a first packet on the QP) -> QP RTS
 * Either side:  Disconnect -> DREQ ... DREP (or a crossing DREQ) -> flush
 *               DREQ received -> DREP, disconnect event
 * REQ, REP and DREQ are retransmitted after SWR_CM_RETRY_MS, then at
 * doubling intervals up to the CM response time announced, max_cm_retries
 * times (a REP: as the REQ asks; swr_cm_timing()), longer after an MRA;
 * duplicates of what the peer
 * already got are answered again (REP -> RTU, DREQ -> DREP, REQ -> REP).
 */

#include <errno.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_random.h>

#include "swroce_adapter.h"
#include "swroce_cm.h"
#include "swroce_neigh.h"
#include "swroce_qp.h"
#include "swroce_tx.h"

/* ------------------------------------------------------------------ */
/* Set-up                                                              */
/* ------------------------------------------------------------------ */

int
swr_cm_init(struct swr_adapter *ad)
{
	struct swr_cm *cm;

	cm = rte_zmalloc_socket("swr_cm", sizeof(*cm), RTE_CACHE_LINE_SIZE,
				ad->socket_id);
	if (cm == NULL)
		return -ENOMEM;
	/* A connection per QP, plus a backlog of unanswered requests. */
	if (swr_cm_tables_init(ad, cm, ad->info.max_qp + 255) != 0) {
		rte_free(cm);
		return -ENOMEM;
	}
	cm->params = (struct ndk_cm_params)NDK_CM_PARAMS_DEFAULT;
	cm->next_port = SWR_CM_EPHEMERAL_LO +
		(uint16_t)(rte_rand() % (SWR_CM_EPHEMERAL_HI -
					 SWR_CM_EPHEMERAL_LO + 1));
	ad->cm = cm;
	return 0;
}

void
swr_cm_fini(struct swr_adapter *ad)
{
	struct swr_cm *cm = ad->cm;

	if (cm == NULL)
		return;
	swr_sep_fini(ad);
	/* Objects the consumer did not close die with the adapter. */
	while (cm->conns != NULL) {
		struct swr_conn *c = cm->conns;

		cm->conns = c->next;
		c->pub.header.type = NDK_OBJECT_TYPE_UNDEFINED;
		rte_mempool_put(cm->pool, c);
	}
	while (cm->dead_conns != NULL) {
		struct swr_conn *c = cm->dead_conns;

		cm->dead_conns = c->next;
		rte_mempool_put(cm->pool, c);
	}
	swr_lis_fini(ad);
	swr_cm_tables_fini(cm);
	rte_free(cm);
	ad->cm = NULL;
}

/* ------------------------------------------------------------------ */
/* MAD transmission                                                    */
/* ------------------------------------------------------------------ */

/*
 * Frame @p mad as a UD SEND_ONLY to QP1 of @p dip (a CM address: IPv4 or
 * IPv6) and send it.
 */
static void
cm_xmit(struct swr_adapter *ad, struct swr_neigh **cache,
	const uint8_t dip[16], const uint8_t *mad)
{
	uint16_t sport = ndk_roce_udp_sport(NDK_ROCE_GSI_QPN, NDK_ROCE_GSI_QPN);
	static const struct rte_ether_addr resolve = {{ 0 }};
	const uint32_t l4 = NDK_ROCE_BTH_LEN + NDK_ROCE_DETH_LEN +
			    NDK_ROCE_MAD_LEN + NDK_ROCE_ICRC_LEN;
	struct ndk_roce_l2l4 t;
	struct ndk_roce_bth *bth;
	struct rte_mbuf *m;
	uint8_t *frame;

	m = rte_pktmbuf_alloc(ad->mp);
	if (m == NULL) {
		SWR_STAT(ad, mbuf_alloc_fail);
		return;           /* the retransmission timer covers it */
	}
	if (swr_cm_addr_v4(dip))
		ndk_roce_l2l4_init(&t, &ad->mac, &resolve, ad->ipv4,
				   ndk_roce_gid_to_ipv4(dip), sport, 0, 64);
	else
		ndk_roce_l2l4_init6(&t, &ad->mac, &resolve, ad->ipv6, dip,
				    sport, 0, 0, 64);
	frame = (uint8_t *)rte_pktmbuf_append(m, t.len + l4);
	if (frame == NULL) {
		rte_pktmbuf_free(m);
		SWR_STAT(ad, mbuf_alloc_fail);
		return;
	}
	bth = (struct ndk_roce_bth *)ndk_roce_l2l4_write(&t, frame, l4);
	ndk_roce_bth_set(bth, NDK_ROCE_OP_UD_SEND_ONLY, false, 0,
			 NDK_ROCE_GSI_QPN, false, ad->cm->gsi_psn++);
	ndk_roce_deth_set((struct ndk_roce_deth *)(bth + 1), NDK_ROCE_GSI_QKEY,
			  NDK_ROCE_GSI_QPN);
	memcpy((uint8_t *)(bth + 1) + NDK_ROCE_DETH_LEN, mad,
	       NDK_ROCE_MAD_LEN);
	swr_frame_seal(m);
	swr_neigh_send6(ad, cache, dip, m);
}

/* A message of @p c's connection with its IDs and TID. */
void
swr_cm_msg_init(struct ndk_roce_cm_msg *m, uint16_t attr,
	    const struct swr_conn *c)
{
	memset(m, 0, sizeof(*m));
	m->attr_id = attr;
	m->tid = c->tid;
	m->local_comm_id = c->local_id;
	m->remote_comm_id = c->remote_id;
}

/*
 * Send @p m for @p c. With @p retry, keep it for retransmission and arm
 * the timer; otherwise the last kept MAD stays (so a later duplicate is
 * answered with what the peer expects).
 */
/*
 * Send @p c's kept MAD (c->mad) now if this poll's budget allows and
 * nobody waits before it, else queue it (swr_cm_poll() sends it).
 */
static void
cm_send_kept(struct swr_conn *c)
{
	struct swr_cm *cm = c->ad->cm;

	if (cm->tx_budget == 0 || cm->tx_head != NULL ||
	    swr_neigh_held_full(c->ad, &c->neigh, c->rip)) {
		swr_cm_txq_push(c);
		return;
	}
	cm->tx_budget--;
	cm_xmit(c->ad, &c->neigh, c->rip, c->mad);
}

void
swr_cm_send(struct swr_conn *c, const struct ndk_roce_cm_msg *m, bool retry)
{
	struct swr_adapter *ad = c->ad;
	uint8_t mad[NDK_ROCE_MAD_LEN];

	if (m->attr_id == NDK_ROCE_CM_REJ)
		SWR_STAT(ad, cm_rejects_sent);
	SWR_STAT(ad, cm_tx);
	if (retry) {
		ndk_roce_cm_encode(m, c->mad);
		if (!c->peer_timing)
			swr_cm_timing(c);
		c->retries = c->max_retries;
		swr_cm_arm(c, ad->now + swr_cm_retry_tsc(c));
		cm_send_kept(c);
		return;
	}
	/* Answers (RTU, DREP, REJ, MRA): as many as requests came in. */
	ndk_roce_cm_encode(m, mad);
	cm_xmit(ad, &c->neigh, c->rip, mad);
}

void
swr_cm_send_linger(struct swr_conn *c, const struct ndk_roce_cm_msg *m)
{
	struct swr_adapter *ad = c->ad;
	struct swr_cm *cm = ad->cm;

	swr_cm_send(c, m, false);
	for (unsigned int i = 0; i < SWR_CM_LINGER; i++) {
		struct swr_cm_linger *l = &cm->linger[i];

		if (l->deadline != 0)
			continue;
		ndk_roce_cm_encode(m, l->mad);
		l->neigh = c->neigh;
		memcpy(l->rip, c->rip, sizeof(l->rip));
		l->local_id = c->local_id;
		l->retries = SWR_CM_RETRIES;
		l->deadline = ad->now + swr_us_to_tsc(ad,
						      SWR_CM_RETRY_MS * 1000);
		cm->n_linger++;
		return;
	}
	/* All taken: sent once, as a close always did before. */
}

static void
cm_linger_free(struct swr_cm *cm, struct swr_cm_linger *l)
{
	l->deadline = 0;
	cm->n_linger--;
}

/* Retransmit the closed connections' DREQs that are due; end the spent. */
static void
cm_linger_tick(struct swr_adapter *ad)
{
	struct swr_cm *cm = ad->cm;

	for (unsigned int i = 0; i < SWR_CM_LINGER && cm->n_linger != 0;
	     i++) {
		struct swr_cm_linger *l = &cm->linger[i];

		if (l->deadline == 0 || ad->now < l->deadline)
			continue;
		if (l->retries == 0) {
			SWR_STAT(ad, cm_timeouts);
			cm_linger_free(cm, l);
			continue;
		}
		l->retries--;
		l->deadline = ad->now + swr_us_to_tsc(ad,
						      SWR_CM_RETRY_MS * 1000);
		SWR_STAT(ad, cm_retransmits);
		cm_xmit(ad, &l->neigh, l->rip, l->mad);
	}
}

/*
 * A DREP or DREQ for closed connection @p local_id: the peer is done.
 * @return true if it ended a lingering DREQ.
 */
static bool
cm_linger_end(struct swr_adapter *ad, uint32_t local_id,
	      const uint8_t rip[16])
{
	struct swr_cm *cm = ad->cm;

	for (unsigned int i = 0; i < SWR_CM_LINGER; i++) {
		struct swr_cm_linger *l = &cm->linger[i];

		if (l->deadline != 0 && l->local_id == local_id &&
		    memcmp(l->rip, rip, 16) == 0) {
			cm_linger_free(cm, l);
			return true;
		}
	}
	return false;
}

/* The source of CM packet @p p as a CM address. */
static void
cm_pkt_src(const struct ndk_roce_pkt *p, uint8_t a[16])
{
	if (p->sip6 != NULL)
		memcpy(a, p->sip6, 16);
	else
		ndk_roce_gid_from_ipv4(a, p->sip);
}

/*
 * Answer a message that belongs to no connection (REJ of a REQ nobody
 * takes, DREP of an unknown DREQ): same TID, the IDs swapped.
 */
static void
cm_reply_stateless(struct swr_adapter *ad, const struct ndk_roce_pkt *p,
		   const struct ndk_roce_cm_msg *in, uint16_t attr,
		   uint16_t reason)
{
	struct ndk_roce_cm_msg m;
	uint8_t mad[NDK_ROCE_MAD_LEN], src[16];
	struct swr_neigh *e = NULL;

	memset(&m, 0, sizeof(m));
	m.attr_id = attr;
	m.tid = in->tid;
	m.local_comm_id = in->remote_comm_id;
	m.remote_comm_id = in->local_comm_id;
	if (attr == NDK_ROCE_CM_REJ) {
		m.msg_code = NDK_ROCE_CM_MSG_REQ;
		m.reason = reason;
		SWR_STAT(ad, cm_rejects_sent);
	}
	ndk_roce_cm_encode(&m, mad);
	SWR_STAT(ad, cm_tx);
	cm_pkt_src(p, src);
	cm_xmit(ad, &e, src, mad);
}

/* ------------------------------------------------------------------ */
/* QP transitions                                                      */
/* ------------------------------------------------------------------ */

static ndk_status_t
cm_qp_modify(struct swr_qp *qp, struct ndk_qp_attr *a, uint32_t mask)
{
	return qp->pub.dispatch->modify(&qp->pub, a, mask);
}

/* RESET -> INIT (a no-op in INIT). */
ndk_status_t
swr_cm_qp_init(struct swr_qp *qp)
{
	struct ndk_qp_attr a = { .state = NDK_QP_STATE_INIT };

	if (swr_qp_state(qp) == NDK_QP_STATE_INIT)
		return NDK_STATUS_SUCCESS;
	return cm_qp_modify(qp, &a, NDK_QP_ATTR_STATE);
}

/* INIT -> RTR towards the peer of @p c. */
ndk_status_t
swr_cm_qp_rtr(struct swr_conn *c)
{
	struct ndk_qp_attr a = {
		.state = NDK_QP_STATE_RTR,
		/* dest_ip or dest_ip6 below; dest_mac 0: ARP or ND */
		.dest_qpn = c->remote_qpn,
		.rq_psn = c->local_psn,
		.path_mtu = ndk_roce_mtu_bytes(c->mtu_code),
		.max_dest_rd_atomic = c->ird,
		.min_rnr_timer = 12,
		.selective_repeat = c->sr,
	};
	ndk_status_t st = swr_cm_qp_init(c->qp);

	if (!NDK_SUCCESS(st))
		return st;
	if (swr_cm_addr_v4(c->rip))
		a.dest_ip = ndk_roce_gid_to_ipv4(c->rip);
	else
		memcpy(a.dest_ip6, c->rip, sizeof(a.dest_ip6));
	return cm_qp_modify(c->qp, &a, NDK_QP_ATTR_STATE | NDK_QP_ATTR_AV |
		NDK_QP_ATTR_DEST_QPN | NDK_QP_ATTR_RQ_PSN |
		NDK_QP_ATTR_PATH_MTU | NDK_QP_ATTR_MIN_RNR_TIMER |
		NDK_QP_ATTR_SELECTIVE_REPEAT |
		(c->ird != 0 ? NDK_QP_ATTR_MAX_DEST_RD_ATOMIC : 0));
}

/* RTR -> RTS. */
ndk_status_t
swr_cm_qp_rts(struct swr_conn *c)
{
	struct ndk_qp_attr a = {
		.state = NDK_QP_STATE_RTS,
		.sq_psn = c->remote_psn,
		.max_rd_atomic = c->ord,
		.timeout = c->ack_timeout,
		.retry_cnt = c->retry_cnt,
		.rnr_retry = c->rnr_retry,
	};

	return cm_qp_modify(c->qp, &a, NDK_QP_ATTR_STATE |
		NDK_QP_ATTR_SQ_PSN | NDK_QP_ATTR_TIMEOUT |
		NDK_QP_ATTR_RETRY_CNT | NDK_QP_ATTR_RNR_RETRY |
		(c->ord != 0 ? NDK_QP_ATTR_MAX_RD_ATOMIC : 0));
}

/* Flush the bound QP (the connection is over). */
void
swr_cm_qp_flush(struct swr_conn *c)
{
	struct swr_qp *qp = c->qp;

	if (qp == NULL)
		return;
	qp->cm_wait_rtu = false;
	if (swr_qp_state(qp) != NDK_QP_STATE_RESET &&
	    swr_qp_state(qp) != NDK_QP_STATE_ERROR)
		swr_qp_flush_all(qp);
}

/* ------------------------------------------------------------------ */
/* State changes shared by handlers and API actions                    */
/* ------------------------------------------------------------------ */

void
swr_cm_established(struct swr_conn *c)
{
	swr_cm_disarm(c);
	/* The RTU wait is over: our DREQ is timed by our own parameters. */
	c->peer_timing = false;
	if (c->qp != NULL)
		c->qp->cm_wait_rtu = false;
}

/*
 * The peer's RTU (or what @p ev says implies it) for an accepted
 * connection; ignored if the table has no such move from its state.
 */
void
swr_cm_accept_done(struct swr_conn *c, enum swr_cm_event ev)
{
	ndk_status_t st;

	if (swr_cm_set_state(c, SWR_CM_ESTABLISHED, ev) != 0)
		return;
	/* The QP is in RTS before the RTU wait ends (other queues look). */
	st = c->qp != NULL ? swr_cm_qp_rts(c) : NDK_STATUS_CONNECTION_ABORTED;
	swr_cm_established(c);
	if (!NDK_SUCCESS(st) &&
	    swr_cm_set_state(c, SWR_CM_ABORTED, SWR_CM_QP_ERROR) == 0)
		swr_cm_qp_flush(c);
	swr_cm_complete(c, st);
}

/*
 * The connection ended without a graceful disconnect (@p ev: a REJ or a
 * timeout); nothing happens if the table has no such move from its state.
 */
static void
cm_abort(struct swr_conn *c, ndk_status_t st, uint32_t reason,
	 enum swr_cm_event ev)
{
	uint8_t old = c->state;

	if (swr_cm_set_state(c, SWR_CM_ABORTED, ev) != 0)
		return;
	swr_cm_disarm(c);
	switch (old) {
	case SWR_CM_REQ_SENT:
	case SWR_CM_REP_SENT:
		swr_cm_qp_flush(c);
		swr_cm_complete(c, st);   /* Connect or Accept fails */
		break;
	case SWR_CM_DREQ_SENT:
		swr_cm_qp_flush(c);
		swr_cm_complete(c, st);
		break;
	case SWR_CM_ESTABLISHED:
		c->disc_reason = reason;
		if (!c->disconnect_called)
			swr_cm_owe(c, SWR_CM_EV_DISCONNECT);
		break;
	default:
		break;            /* REP_RCVD/REQ_RCVD: the next call sees it */
	}
}

/*
 * Our DREQ is answered (@p ev: the DREP, a crossing DREQ, or none in
 * time): the connection is over, our Disconnect completes with @p st.
 */
static void
cm_dreq_done(struct swr_conn *c, ndk_status_t st, enum swr_cm_event ev)
{
	if (swr_cm_set_state(c, SWR_CM_DISCONNECTED, ev) != 0)
		return;
	swr_cm_disarm(c);
	swr_cm_qp_flush(c);
	swr_cm_complete(c, st);
}

/* A DREQ arrived, or ours crossed the peer's: answer it, end it. */
static void
cm_dreq_rcvd(struct swr_conn *c)
{
	struct ndk_roce_cm_msg m;

	swr_cm_msg_init(&m, NDK_ROCE_CM_DREP, c);
	swr_cm_send(c, &m, false);
	switch (c->state) {
	case SWR_CM_REP_SENT:
		/* The RTU got lost but the peer is done already. */
		swr_cm_accept_done(c, SWR_CM_RX_DREQ);
		/* fall through */
	case SWR_CM_ESTABLISHED:
		if (swr_cm_set_state(c, SWR_CM_DISCONNECTED,
				     SWR_CM_RX_DREQ) != 0)
			break;
		c->disc_reason = 0;
		if (!c->disconnect_called)
			swr_cm_owe(c, SWR_CM_EV_DISCONNECT);
		break;
	case SWR_CM_DREQ_SENT:
		cm_dreq_done(c, NDK_STATUS_SUCCESS, SWR_CM_RX_DREQ);
		break;
	default:
		break;            /* duplicate: DREP sent again */
	}
}

/* ------------------------------------------------------------------ */
/* Receive                                                             */
/* ------------------------------------------------------------------ */

/*
 * The listener of @p port for a request to our address @p lip: one on
 * that address, or a wildcard one of its family (an IPv6 wildcard takes
 * IPv4 requests too).
 */
static struct swr_lis *
cm_find_lis(struct swr_adapter *ad, uint16_t port, const uint8_t lip[16])
{
	bool v4 = swr_cm_addr_v4(lip);

	for (struct swr_lis *l = ad->cm->listeners; l != NULL; l = l->next)
		if (l->listening && !l->closed && l->port == port &&
		    (memcmp(l->ip, lip, 16) == 0 ||
		     (swr_ip6_is_zero(l->ip) &&
		      (v4 || l->family == AF_INET6))))
			return l;
	return NULL;
}

/* Check a REQ; @return 0 or the REJ reason. */
static uint16_t
cm_req_check(struct swr_adapter *ad, const struct ndk_roce_pkt *p,
	     const struct ndk_roce_cm_msg *m, struct ndk_roce_cma_hdr *h,
	     struct swr_lis **lis)
{
	uint8_t lip[16];

	if ((m->service_id & NDK_ROCE_CM_SID_PS_MASK) != NDK_ROCE_CM_SID_TCP)
		return NDK_ROCE_REJ_INVALID_SERVICE_ID;
	if (m->transport_type != 0 || m->ext_transport != 0)
		return NDK_ROCE_REJ_INVALID_TRANSPORT;
	if (ndk_roce_mtu_bytes(m->path_mtu) == 0)
		return NDK_ROCE_REJ_INVALID_MTU;
	/* The path's GID and the RDMA-CM header name us, in the family of
	 * the packet (an IPv4-mapped GID on IPv4). */
	if (p->sip6 != NULL)
		memcpy(lip, ad->ipv6, 16);
	else
		ndk_roce_gid_from_ipv4(lip, ad->ipv4);
	if (memcmp(m->primary.remote_gid, lip, 16) != 0)
		return NDK_ROCE_REJ_INVALID_GID;
	if (ndk_roce_cma_hdr_decode(m->pdata, h) != 0 ||
	    h->ip_version != (p->sip6 != NULL ? 6 : 4) ||
	    (p->sip6 != NULL ? memcmp(h->dst_ip6, ad->ipv6, 16) != 0 :
	     h->dst_ip != ad->ipv4))
		return NDK_ROCE_REJ_INVALID_SERVICE_ID;
	*lis = cm_find_lis(ad, (uint16_t)m->service_id, lip);
	if (*lis == NULL || (*lis)->paused)
		return NDK_ROCE_REJ_INVALID_SERVICE_ID;
	/* A full backlog refuses (the peer's Connect: CONNECTION_REFUSED). */
	if ((*lis)->unanswered >= ad->cm->params.listen_backlog) {
		SWR_STAT(ad, cm_backlog_rejects);
		return NDK_ROCE_REJ_NO_RESOURCES;
	}
	return 0;
}

/*
 * Our consumer has not answered the peer's @p code (REQ or REP) yet and the
 * peer repeats it: an MRA asks it to wait (up to ~34 s) instead of giving
 * up.
 */
static void
cm_send_mra(struct swr_conn *c, uint8_t code)
{
	struct ndk_roce_cm_msg mra;

	swr_cm_msg_init(&mra, NDK_ROCE_CM_MRA, c);
	mra.msg_code = code;
	mra.service_timeout = SWR_CM_RESPONSE_TIMEOUT + 3;
	swr_cm_send(c, &mra, false);
}

static void
cm_req_rx(struct swr_adapter *ad, const struct ndk_roce_pkt *p,
	  const struct ndk_roce_cm_msg *m)
{
	struct ndk_roce_cma_hdr h;
	struct swr_lis *lis = NULL;
	struct swr_conn *c;
	uint16_t reason;
	uint8_t rip[16];

	cm_pkt_src(p, rip);
	c = swr_cm_find_req(ad, m->local_comm_id, rip);
	if (c != NULL) {
		/* Duplicate: our answer was lost, or is not ready yet. */
		switch (c->state) {
		case SWR_CM_REP_SENT:
			SWR_STAT(ad, cm_retransmits);
			cm_send_kept(c);
			break;
		case SWR_CM_REQ_RCVD:
			cm_send_mra(c, NDK_ROCE_CM_MSG_REQ);
			break;
		default:
			break;
		}
		return;
	}
	reason = cm_req_check(ad, p, m, &h, &lis);
	if (reason == 0 && (c = swr_conn_alloc(ad)) == NULL)
		reason = NDK_ROCE_REJ_NO_RESOURCES;
	/* A fresh object is IDLE: the table lets the REQ make it ours. */
	if (reason == 0 &&
	    swr_cm_set_state(c, SWR_CM_REQ_RCVD, SWR_CM_RX_REQ) != 0) {
		swr_conn_free(c);
		reason = NDK_ROCE_REJ_NO_RESOURCES;
	}
	if (reason != 0) {
		NDK_LOG(DEBUG, "%s: REQ for service %#" PRIx64 " rejected (%u)",
			ad->name, m->service_id, reason);
		cm_reply_stateless(ad, p, m, NDK_ROCE_CM_REJ, reason);
		return;
	}
	c->passive = true;
	c->lis = lis;
	swr_cm_local_addr(ad, rip, c->lip);
	c->lport = (uint16_t)m->service_id;
	memcpy(c->rip, rip, 16);
	c->rport = h.src_port;
	c->remote_id = m->local_comm_id;
	c->tid = m->tid;
	c->remote_guid = m->local_ca_guid;
	c->remote_qpn = m->local_qpn;
	c->remote_psn = m->starting_psn;
	c->peer_ird = m->responder_resources;
	c->peer_ord = m->initiator_depth;
	c->mtu_code = RTE_MIN(m->path_mtu, swr_cm_mtu_code(ad));
	c->ack_timeout = m->primary.local_ack_timeout != 0 ?
		m->primary.local_ack_timeout : SWR_CM_QP_ACK_TIMEOUT;
	/* Ours stays finite (a vanished peer ends it): qp_retry_count. */
	c->retry_cnt = RTE_MIN(m->retry_count, ad->cm->params.qp_retry_count);
	c->rnr_retry = m->rnr_retry_count;
	c->sr_offered = m->vendor_id == NDK_ROCE_ECE_VENDOR &&
		(m->attr_mod & NDK_ROCE_ECE_SR_OFFER) != 0;
	swr_cm_peer_timing(c, m->local_cm_response_timeout, m->max_cm_retries);
	c->pdata_len = SWR_CM_CALLER_DATA;
	memcpy(c->pdata, m->pdata + NDK_ROCE_CMA_HDR_LEN, SWR_CM_CALLER_DATA);
	c->pdata_valid = true;
	swr_cm_new_local_id(c);
	swr_cm_link(c);
	swr_cm_req_insert(c);
	swr_cm_port_hold(c);
	c->unanswered = true;
	lis->unanswered++;
	swr_cm_owe(c, SWR_CM_EV_CONNECT);
}

static void
cm_rep_rx(struct swr_conn *c, const struct ndk_roce_cm_msg *m)
{
	struct ndk_roce_cm_msg rtu;

	switch (c->state) {
	case SWR_CM_REQ_SENT:
		if (swr_cm_set_state(c, SWR_CM_REP_RCVD, SWR_CM_RX_REP) != 0)
			break;
		c->remote_id = m->local_comm_id;
		c->remote_qpn = m->local_qpn;
		c->remote_psn = m->starting_psn;
		c->remote_guid = m->local_ca_guid;
		c->peer_ird = m->responder_resources;
		c->peer_ord = m->initiator_depth;
		c->ird = RTE_MIN(c->ird, c->peer_ord);
		c->ord = RTE_MIN(c->ord, c->peer_ird);
		c->rnr_retry = m->rnr_retry_count;
		/* Offered in our REQ (the params then), accepted in the REP. */
		c->sr = c->ad->cm->params.selective_repeat != 0 &&
			m->vendor_id == NDK_ROCE_ECE_VENDOR &&
			(m->attr_mod & NDK_ROCE_ECE_SR_ACCEPT) != 0;
		/* As rdma_cm: the round trip or the peer's ACK delay. */
		if (c->ad->cm->params.local_ack_timeout == 0)
			c->ack_timeout = swr_cm_ack_timeout(
				m->target_ack_delay);
		c->pdata_len = SWR_CM_CALLEE_DATA;
		memcpy(c->pdata, m->pdata, SWR_CM_CALLEE_DATA);
		c->pdata_valid = true;
		swr_cm_disarm(c);
		swr_cm_complete(c, NDK_STATUS_SUCCESS);
		break;
	case SWR_CM_ESTABLISHED:
		/* Our RTU was lost: the peer repeats its REP. */
		swr_cm_msg_init(&rtu, NDK_ROCE_CM_RTU, c);
		SWR_STAT(c->ad, cm_retransmits);
		swr_cm_send(c, &rtu, false);
		break;
	case SWR_CM_REP_RCVD:
		/* The consumer has yet to answer: ask the peer to wait. */
		cm_send_mra(c, NDK_ROCE_CM_MSG_REP);
		break;
	default:
		break;
	}
}

static void
cm_rej_rx(struct swr_conn *c, const struct ndk_roce_cm_msg *m)
{
	NDK_LOG(DEBUG, "%s: REJ (reason %u) in state %s", c->ad->name,
		m->reason, swr_cm_state_name(c->state));
	switch (c->state) {
	case SWR_CM_REQ_SENT:
		c->pdata_len = SWR_CM_REJECT_DATA;
		memcpy(c->pdata, m->pdata, SWR_CM_REJECT_DATA);
		c->pdata_valid = true;
		cm_abort(c, m->reason == NDK_ROCE_REJ_TIMEOUT ?
			 NDK_STATUS_IO_TIMEOUT : NDK_STATUS_CONNECTION_REFUSED,
			 NDK_DISCONNECT_REASON_REJECTED, SWR_CM_RX_REJ);
		break;
	case SWR_CM_DREQ_SENT:
		cm_abort(c, NDK_STATUS_SUCCESS, NDK_DISCONNECT_REASON_REJECTED,
			 SWR_CM_RX_REJ);
		break;
	case SWR_CM_DISCONNECTED:
	case SWR_CM_ABORTED:
		break;
	default:
		cm_abort(c, NDK_STATUS_CONNECTION_ABORTED,
			 NDK_DISCONNECT_REASON_REJECTED, SWR_CM_RX_REJ);
		break;
	}
}

static void
cm_mra_rx(struct swr_conn *c, const struct ndk_roce_cm_msg *m)
{
	struct swr_adapter *ad = c->ad;
	uint64_t us;

	if (!((c->state == SWR_CM_REQ_SENT &&
	       m->msg_code == NDK_ROCE_CM_MSG_REQ) ||
	      (c->state == SWR_CM_REP_SENT &&
	       m->msg_code == NDK_ROCE_CM_MSG_REP)))
		return;
	/* The peer needs time: wait what it asks (bounded), then retry. */
	us = (4096ull << RTE_MIN(m->service_timeout, 31u)) / 1000;
	us = RTE_MIN(us, (uint64_t)SWR_CM_MAX_MRA_MS * 1000);
	swr_cm_arm(c, ad->now + swr_us_to_tsc(ad, us) + swr_cm_retry_tsc(c));
	c->retries = c->max_retries;
}

void
swr_cm_rx(struct swr_adapter *ad, const struct ndk_roce_pkt *p)
{
	const struct ndk_roce_deth *deth =
		ndk_roce_pkt_ext(p, p->op->offset[NDK_ROCE_DETH]);
	uint16_t pkey = rte_be_to_cpu_16(p->bth->pkey) & 0x7FFF;
	uint8_t mad[NDK_ROCE_MAD_LEN], rip[16];
	struct ndk_roce_cm_msg m;
	struct swr_conn *c;

	if (pkey != 0x7FFF ||
	    rte_be_to_cpu_32(deth->qkey) != NDK_ROCE_GSI_QKEY ||
	    p->payload_len < NDK_ROCE_MAD_LEN) {
		SWR_STAT(ad, cm_rx_dropped);
		return;
	}
	ndk_roce_mbuf_copy_out(p->m, p->payload_off, mad, sizeof(mad));
	if (ndk_roce_cm_decode(mad, sizeof(mad), &m) != 0) {
		SWR_STAT(ad, cm_rx_dropped);
		return;
	}
	SWR_STAT(ad, cm_rx);
	if (m.attr_id == NDK_ROCE_CM_REQ) {
		cm_req_rx(ad, p, &m);
		return;
	}
	cm_pkt_src(p, rip);
	c = swr_cm_find(ad, m.remote_comm_id, rip);
	if (c == NULL) {
		/* Closed while established: its lingering DREQ ends. */
		bool ended = unlikely(ad->cm->n_linger != 0) &&
			(m.attr_id == NDK_ROCE_CM_DREQ ||
			 m.attr_id == NDK_ROCE_CM_DREP) &&
			cm_linger_end(ad, m.remote_comm_id, rip);

		if (m.attr_id == NDK_ROCE_CM_DREQ)
			cm_reply_stateless(ad, p, &m, NDK_ROCE_CM_DREP, 0);
		else if (!ended)
			SWR_STAT(ad, cm_rx_dropped);
		return;
	}
	switch (m.attr_id) {
	case NDK_ROCE_CM_REP:
		if (!c->passive)
			cm_rep_rx(c, &m);
		break;
	case NDK_ROCE_CM_RTU:
		if (c->state == SWR_CM_REP_SENT)
			swr_cm_accept_done(c, SWR_CM_RX_RTU);
		break;
	case NDK_ROCE_CM_REJ:
		cm_rej_rx(c, &m);
		break;
	case NDK_ROCE_CM_MRA:
		cm_mra_rx(c, &m);
		break;
	case NDK_ROCE_CM_DREQ:
		cm_dreq_rcvd(c);
		break;
	case NDK_ROCE_CM_DREP:
		if (c->state == SWR_CM_DREQ_SENT)
			cm_dreq_done(c, NDK_STATUS_SUCCESS, SWR_CM_RX_DREP);
		break;
	default:
		break;
	}
}

void
swr_cm_qp_rx(struct swr_qp *qp)
{
	struct swr_conn *c = qp->conn;

	qp->cm_wait_rtu = false;
	if (c != NULL && c->state == SWR_CM_REP_SENT)
		swr_cm_accept_done(c, SWR_CM_QP_RX);
}

void
swr_cm_qp_gone(struct swr_qp *qp)
{
	if (qp->conn != NULL)
		qp->conn->qp = NULL;
	qp->conn = NULL;
	qp->cm_wait_rtu = false;
}

/* ------------------------------------------------------------------ */
/* Timers and callback delivery                                        */
/* ------------------------------------------------------------------ */

static void
cm_expire(struct swr_conn *c)
{
	struct swr_adapter *ad = c->ad;
	struct ndk_roce_cm_msg m;
	ndk_status_t st = NDK_STATUS_IO_TIMEOUT;

	/* ARP gave up on the peer: no point in more REQs. */
	if (c->state == SWR_CM_REQ_SENT && c->neigh != NULL &&
	    c->neigh->state == SWR_NEIGH_FAILED &&
	    memcmp(c->neigh->addr, c->rip, 16) == 0)
		c->retries = 0;
	if (c->retries > 0) {
		c->retries--;
		swr_cm_arm(c, ad->now + swr_cm_retry_tsc(c));
		SWR_STAT(ad, cm_retransmits);
		cm_send_kept(c);
		return;
	}
	SWR_STAT(ad, cm_timeouts);
	swr_cm_disarm(c);
	switch (c->state) {
	case SWR_CM_REQ_SENT:
	case SWR_CM_REP_SENT:
		swr_cm_msg_init(&m, NDK_ROCE_CM_REJ, c);
		m.msg_code = c->state == SWR_CM_REQ_SENT ?
			NDK_ROCE_CM_MSG_REQ : NDK_ROCE_CM_MSG_REP;
		m.reason = NDK_ROCE_REJ_TIMEOUT;
		swr_cm_send(c, &m, false);
		/* Never reached the peer's MAC: ARP failed, not the CM. */
		if (c->state == SWR_CM_REQ_SENT && c->neigh != NULL &&
		    (c->neigh->state != SWR_NEIGH_REACHABLE ||
		     memcmp(c->neigh->addr, c->rip, 16) != 0))
			st = NDK_STATUS_HOST_UNREACHABLE;
		cm_abort(c, st, NDK_DISCONNECT_REASON_TIMEOUT,
			 SWR_CM_TIMED_OUT);
		break;
	case SWR_CM_DREQ_SENT:
		cm_dreq_done(c, NDK_STATUS_IO_TIMEOUT, SWR_CM_TIMED_OUT);
		break;
	default:
		break;
	}
}

/* Deliver one owed callback of @p c. @return true if one was. */
static bool
cm_deliver_one(struct swr_conn *c)
{
	if (c->events & SWR_CM_EV_CONNECT) {
		struct swr_lis *l = c->lis;

		c->events &= ~SWR_CM_EV_CONNECT;
		if (l == NULL || l->closed || c->state != SWR_CM_REQ_RCVD) {
			/* Nobody to take it: it never existed for NDK. */
			swr_cm_abort(c);
			swr_conn_bury(c);
			return true;
		}
		/* Its listener's close pends until the consumer closes it. */
		c->held_lis = l;
		l->refs++;
		l->event(l->event_ctx, &c->pub);
		return true;
	}
	if (c->events & SWR_CM_EV_DONE) {
		ndk_request_completion_fn fn = c->done;

		c->events &= ~SWR_CM_EV_DONE;
		c->done = NULL;
		if (fn != NULL)
			fn(c->done_ctx, c->done_status);
		return true;
	}
	if (c->events & SWR_CM_EV_DISCONNECT) {
		c->events &= ~SWR_CM_EV_DISCONNECT;
		if (c->disc != NULL && !c->disconnect_called) {
			ndk_disconnect_event_fn fn = c->disc;

			c->disc = NULL;     /* at most once */
			fn(c->disc_ctx, c->disc_reason);
		}
		return true;
	}
	return false;
}

void
swr_cm_poll(struct swr_adapter *ad)
{
	struct swr_cm *cm = ad->cm;

	/*
	 * The MADs that waited for the last poll's budget go first. What the
	 * transmit stage cannot take now waits here, not in a full ring.
	 */
	cm->tx_budget = RTE_MIN(SWR_CM_TX_BUDGET, swr_tx_room(&ad->q[0]));
	while (unlikely(cm->tx_head != NULL) && cm->tx_budget != 0) {
		struct swr_conn *c = cm->tx_head;

		/* Its peer's address still resolving, 64 frames held: wait. */
		if (swr_neigh_held_full(ad, &c->neigh, c->rip))
			break;
		swr_cm_txq_pop(cm);
		cm->tx_budget--;
		cm_xmit(ad, &c->neigh, c->rip, c->mad);
	}
	if (unlikely(ad->now >= cm->tick)) {
		struct swr_conn *c, *next;

		cm->tick = ad->now + swr_us_to_tsc(ad, SWR_CM_TICK_MS * 1000);
		/* cm_expire() re-arms or disarms only its own connection. */
		for (c = cm->timers; c != NULL; c = next) {
			next = c->t_next;
			if (ad->now >= c->deadline)
				cm_expire(c);
		}
		if (cm->n_linger != 0)
			cm_linger_tick(ad);
		swr_cm_qp_failures(ad);
	}
	/*
	 * Callbacks owed, oldest first. A callback may close connections and
	 * listeners (they go to the dead lists, so their memory stays until
	 * the end of this poll) or owe new callbacks (queued at the tail).
	 */
	while (cm->ev_head != NULL) {
		struct swr_conn *c = cm->ev_head;

		cm->ev_head = c->ev_next;
		if (cm->ev_head == NULL)
			cm->ev_tail = NULL;
		c->ev_queued = false;
		while (c->events != 0 && !c->closed && cm_deliver_one(c))
			;
	}
	/* Objects closed since the last poll: nothing refers to them now. */
	while (unlikely(cm->dead_conns != NULL)) {
		struct swr_conn *c = cm->dead_conns;

		cm->dead_conns = c->next;
		swr_conn_free(c);
	}
	while (unlikely(cm->dead_lis != NULL)) {
		struct swr_lis *l = cm->dead_lis;

		cm->dead_lis = l->next;
		rte_free(l);
	}
}
