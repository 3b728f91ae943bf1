/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * swroce connection manager: the actions a consumer starts (Connect,
 * CompleteConnect, Accept, Reject, Disconnect, close), local port
 * allocation, and the disconnect events of connections whose QP failed. They run on the polling thread through swr_ctl_exec(); the
 * messages they send and the QP transitions they make are swroce_cm.c's.
 */

#include <string.h>

#include <rte_random.h>

#include "swroce_adapter.h"
#include "swroce_cm.h"
#include "swroce_qp.h"

/* ------------------------------------------------------------------ */
/* Actions started by the consumer (polling thread, via swr_ctl_exec)  */
/* ------------------------------------------------------------------ */

ndk_status_t
swr_cm_connect(struct swr_conn *c, const uint8_t *pdata, uint32_t pdata_len)
{
	struct swr_adapter *ad = c->ad;
	const struct ndk_cm_params *cp = &ad->cm->params;
	struct ndk_roce_cma_hdr h = { .src_port = c->lport };
	struct ndk_roce_cm_msg m;
	ndk_status_t st;

	if (swr_cm_addr_v4(c->rip)) {
		h.ip_version = 4;
		h.src_ip = ndk_roce_gid_to_ipv4(c->lip);
		h.dst_ip = ndk_roce_gid_to_ipv4(c->rip);
	} else {
		h.ip_version = 6;
		memcpy(h.src_ip6, c->lip, 16);
		memcpy(h.dst_ip6, c->rip, 16);
	}
	st = swr_cm_qp_init(c->qp);
	if (!NDK_SUCCESS(st))
		return st;
	swr_cm_new_local_id(c);
	c->tid = rte_rand();
	c->local_psn = (uint32_t)rte_rand() & NDK_ROCE_PSN_MASK;
	c->mtu_code = swr_cm_mtu_code(ad);
	c->ack_timeout = cp->local_ack_timeout != 0 ? cp->local_ack_timeout :
		SWR_CM_QP_ACK_TIMEOUT;
	c->retry_cnt = cp->qp_retry_count;
	c->rnr_retry = cp->rnr_retry_count;

	c->sr = false;

	swr_cm_msg_init(&m, NDK_ROCE_CM_REQ, c);
	m.service_id = NDK_ROCE_CM_SID_TCP | c->rport;
	if (cp->selective_repeat) {
		/* Our vendor option: only an ndk-roce peer answers it. */
		m.vendor_id = NDK_ROCE_ECE_VENDOR;
		m.attr_mod = NDK_ROCE_ECE_SR_OFFER;
	}
	m.local_ca_guid = ndk_roce_guid_from_mac(&ad->mac);
	m.local_qpn = c->qp->pub.qpn;
	m.responder_resources = c->ird;
	m.initiator_depth = c->ord;
	m.remote_cm_response_timeout = cp->cm_response_timeout;
	m.starting_psn = c->local_psn;
	m.local_cm_response_timeout = cp->cm_response_timeout;
	m.retry_count = cp->retry_count;
	m.pkey = 0xFFFF;
	m.path_mtu = c->mtu_code;
	m.rnr_retry_count = cp->rnr_retry_count;
	m.max_cm_retries = cp->max_cm_retries;
	m.primary.local_lid = 0xFFFF;
	m.primary.remote_lid = 0xFFFF;
	/* The GIDs are the addresses (IPv6, or IPv4-mapped). */
	memcpy(m.primary.local_gid, c->lip, 16);
	memcpy(m.primary.remote_gid, c->rip, 16);
	m.primary.hop_limit = 64;
	m.primary.local_ack_timeout = c->ack_timeout;
	ndk_roce_cma_hdr_encode(m.pdata, &h);
	if (pdata_len != 0)
		memcpy(m.pdata + NDK_ROCE_CMA_HDR_LEN, pdata, pdata_len);
	if (swr_cm_set_state(c, SWR_CM_REQ_SENT, SWR_CM_API_CONNECT) != 0)
		return NDK_STATUS_INVALID_DEVICE_STATE;
	swr_cm_send(c, &m, true);
	return NDK_STATUS_PENDING;
}

/*
 * Refuse the peer's REQ or REP (@p ev: the consumer's Reject, a QP that
 * would not move, or close): REJ, connection aborted, QP flushed.
 */
static ndk_status_t
cm_reject(struct swr_conn *c, const uint8_t *pdata, uint32_t pdata_len,
	  enum swr_cm_event ev)
{
	struct ndk_roce_cm_msg m;
	uint8_t code;

	if (c->state == SWR_CM_ABORTED)
		return NDK_STATUS_CONNECTION_ABORTED;
	if (c->state != SWR_CM_REQ_RCVD && c->state != SWR_CM_REP_RCVD)
		return NDK_STATUS_CONNECTION_INVALID;
	code = c->state == SWR_CM_REQ_RCVD ? NDK_ROCE_CM_MSG_REQ :
		NDK_ROCE_CM_MSG_REP;
	if (swr_cm_set_state(c, SWR_CM_ABORTED, ev) != 0)
		return NDK_STATUS_INVALID_DEVICE_STATE;
	swr_cm_msg_init(&m, NDK_ROCE_CM_REJ, c);
	m.msg_code = code;
	m.reason = NDK_ROCE_REJ_CONSUMER;
	if (pdata_len != 0)
		memcpy(m.pdata, pdata, pdata_len);
	swr_cm_send(c, &m, false);
	swr_cm_disarm(c);
	swr_cm_qp_flush(c);
	return NDK_STATUS_SUCCESS;
}

ndk_status_t
swr_cm_complete_connect(struct swr_conn *c)
{
	struct ndk_roce_cm_msg m;
	ndk_status_t st;

	if (c->state == SWR_CM_ABORTED)
		return NDK_STATUS_CONNECTION_ABORTED;
	if (c->state != SWR_CM_REP_RCVD || c->qp == NULL)
		return NDK_STATUS_CONNECTION_INVALID;
	st = swr_cm_qp_rtr(c);
	if (NDK_SUCCESS(st))
		st = swr_cm_qp_rts(c);
	if (NDK_SUCCESS(st) &&
	    swr_cm_set_state(c, SWR_CM_ESTABLISHED, SWR_CM_API_COMPLETE) != 0)
		st = NDK_STATUS_INVALID_DEVICE_STATE;
	if (!NDK_SUCCESS(st)) {
		cm_reject(c, NULL, 0, SWR_CM_QP_ERROR);
		return st;
	}
	swr_cm_msg_init(&m, NDK_ROCE_CM_RTU, c);
	swr_cm_send(c, &m, false);
	swr_cm_established(c);
	swr_cm_complete(c, NDK_STATUS_SUCCESS);
	return NDK_STATUS_PENDING;
}

ndk_status_t
swr_cm_accept(struct swr_conn *c, const uint8_t *pdata, uint32_t pdata_len)
{
	struct swr_adapter *ad = c->ad;
	struct ndk_roce_cm_msg m;
	ndk_status_t st;

	if (c->state == SWR_CM_ABORTED)
		return NDK_STATUS_CONNECTION_ABORTED;
	if (c->state != SWR_CM_REQ_RCVD)
		return NDK_STATUS_CONNECTION_INVALID;
	/* Serve no more READs than the peer issues, issue no more than it
	 * serves. */
	c->ird = RTE_MIN(c->ird, c->peer_ord);
	c->ord = RTE_MIN(c->ord, c->peer_ird);
	c->local_psn = (uint32_t)rte_rand() & NDK_ROCE_PSN_MASK;
	/* Selective repeat if the REQ offered it and we have it on. */
	c->sr = c->sr_offered && ad->cm->params.selective_repeat != 0;
	st = swr_cm_qp_rtr(c);
	if (!NDK_SUCCESS(st))
		return st;
	if (swr_cm_set_state(c, SWR_CM_REP_SENT, SWR_CM_API_ACCEPT) != 0)
		return NDK_STATUS_INVALID_DEVICE_STATE;
	c->qp->cm_wait_rtu = true;

	swr_cm_msg_init(&m, NDK_ROCE_CM_REP, c);
	m.local_qpn = c->qp->pub.qpn;
	m.starting_psn = c->local_psn;
	m.responder_resources = c->ird;
	m.initiator_depth = c->ord;
	m.target_ack_delay = SWR_CM_TARGET_ACK_DELAY;
	m.rnr_retry_count = ad->cm->params.rnr_retry_count;
	m.local_ca_guid = ndk_roce_guid_from_mac(&ad->mac);
	if (c->sr) {
		m.vendor_id = NDK_ROCE_ECE_VENDOR;
		m.attr_mod = NDK_ROCE_ECE_SR_ACCEPT;
	}
	if (pdata_len != 0)
		memcpy(m.pdata, pdata, pdata_len);
	c->pdata_valid = false;
	swr_cm_send(c, &m, true);
	return NDK_STATUS_PENDING;
}

ndk_status_t
swr_cm_reject(struct swr_conn *c, const uint8_t *pdata, uint32_t pdata_len)
{
	return cm_reject(c, pdata, pdata_len, SWR_CM_API_REJECT);
}

ndk_status_t
swr_cm_disconnect(struct swr_conn *c)
{
	struct ndk_roce_cm_msg m;

	if (c->disconnect_called)
		return NDK_STATUS_DEVICE_BUSY;
	switch (c->state) {
	case SWR_CM_ESTABLISHED:
		if (swr_cm_set_state(c, SWR_CM_DREQ_SENT,
				     SWR_CM_API_DISCONNECT) != 0)
			return NDK_STATUS_INVALID_DEVICE_STATE;
		swr_cm_msg_init(&m, NDK_ROCE_CM_DREQ, c);
		m.remote_qpn = c->remote_qpn;
		swr_cm_send(c, &m, true);
		break;
	case SWR_CM_DISCONNECTED:
		swr_cm_qp_flush(c);
		swr_cm_complete(c, NDK_STATUS_SUCCESS);
		break;
	case SWR_CM_ABORTED:
		if (c->qp == NULL)
			return NDK_STATUS_CONNECTION_INVALID;
		swr_cm_qp_flush(c);
		swr_cm_complete(c, NDK_STATUS_CONNECTION_ABORTED);
		break;
	default:
		return NDK_STATUS_CONNECTION_INVALID;
	}
	c->disconnect_called = true;
	return NDK_STATUS_PENDING;
}

void
swr_cm_abort(struct swr_conn *c)
{
	struct ndk_roce_cm_msg m;

	switch (c->state) {
	case SWR_CM_REQ_SENT:
		swr_cm_msg_init(&m, NDK_ROCE_CM_REJ, c);
		m.msg_code = NDK_ROCE_CM_MSG_REQ;
		m.reason = NDK_ROCE_REJ_TIMEOUT;
		swr_cm_send(c, &m, false);
		break;
	case SWR_CM_REQ_RCVD:
	case SWR_CM_REP_RCVD:
		cm_reject(c, NULL, 0, SWR_CM_API_CLOSE);
		break;
	case SWR_CM_REP_SENT:
		swr_cm_msg_init(&m, NDK_ROCE_CM_REJ, c);
		m.msg_code = NDK_ROCE_CM_MSG_REP;
		m.reason = NDK_ROCE_REJ_CONSUMER;
		swr_cm_send(c, &m, false);
		break;
	case SWR_CM_ESTABLISHED:
		swr_cm_msg_init(&m, NDK_ROCE_CM_DREQ, c);
		m.remote_qpn = c->remote_qpn;
		swr_cm_send_linger(c, &m);
		break;
	default:
		break;
	}
	swr_cm_qp_flush(c);
	if (c->qp != NULL)
		swr_cm_qp_gone(c->qp);
	/*
	 * Close is legal in every state (also ABORTED to ABORTED); were it
	 * refused, the object would go all the same (the caller buries it),
	 * with nothing more owed.
	 */
	swr_cm_set_state(c, SWR_CM_ABORTED, SWR_CM_API_CLOSE);
	swr_cm_disarm(c);
	c->events = 0;
}

/*
 * A connected QP that failed (swr_qp_to_error(): retries exhausted, a
 * fatal NAK, a local error) ends its connection for the consumer: the
 * disconnect event, reason NDK_DISCONNECT_REASON_QP_ERROR (the 2.1
 * callback's ProviderDisconnectReason). The CM state stays ESTABLISHED,
 * as rdma_cm's does on a fatal QP event: the consumer's Disconnect then
 * sends the DREQ. Looked for at the tick, only when a queue counted a
 * new QP error since the last one.
 */
void
swr_cm_qp_failures(struct swr_adapter *ad)
{
	struct swr_cm *cm = ad->cm;
	uint64_t n = 0;

	for (uint16_t i = 0; i < ad->nb_queues; i++)
		n += __atomic_load_n(&ad->q[i].stats.qp_errors,
				     __ATOMIC_ACQUIRE);
	if (likely(n == cm->qp_errors_seen))
		return;
	cm->qp_errors_seen = n;
	for (struct swr_conn *c = cm->conns; c != NULL; c = c->next) {
		if (c->state != SWR_CM_ESTABLISHED || c->qp == NULL ||
		    c->disc == NULL || c->disconnect_called ||
		    !__atomic_load_n(&c->qp->failed, __ATOMIC_ACQUIRE))
			continue;
		c->disc_reason = NDK_DISCONNECT_REASON_QP_ERROR;
		swr_cm_owe(c, SWR_CM_EV_DISCONNECT);
	}
}

/* ------------------------------------------------------------------ */
/* Ports                                                               */
/* ------------------------------------------------------------------ */

bool
swr_cm_port_busy(struct swr_adapter *ad, const uint8_t ip[16], uint16_t port)
{
	bool any = swr_ip6_is_zero(ip);

	/* One port space for both families: wildcards clash with all. */
	for (struct swr_lis *l = ad->cm->listeners; l != NULL; l = l->next)
		if (l->listening && !l->closed && l->port == port &&
		    (any || swr_ip6_is_zero(l->ip) ||
		     memcmp(l->ip, ip, 16) == 0))
			return true;
	/*
	 * Connections keep their endpoint until closed (NDK): an active one
	 * its own port, an accepted one its listener's.
	 */
	return swr_cm_port_used(ad, ip, port);
}

uint16_t
swr_cm_ephemeral(struct swr_adapter *ad, const uint8_t ip[16])
{
	const uint32_t n = SWR_CM_EPHEMERAL_HI - SWR_CM_EPHEMERAL_LO + 1;
	struct swr_cm *cm = ad->cm;

	for (uint32_t i = 0; i < n; i++) {
		uint16_t port = cm->next_port;

		cm->next_port = port == SWR_CM_EPHEMERAL_HI ?
			SWR_CM_EPHEMERAL_LO : port + 1;
		if (!swr_cm_port_busy(ad, ip, port))
			return port;
	}
	return 0;
}

ndk_status_t
swr_cm_port_claim(struct swr_adapter *ad, const uint8_t ip[16], uint16_t *port)
{
	if (*port == 0) {
		*port = swr_cm_ephemeral(ad, ip);
		return *port != 0 ? NDK_STATUS_SUCCESS :
			NDK_STATUS_TOO_MANY_ADDRESSES;
	}
	return swr_cm_port_busy(ad, ip, *port) ?
		NDK_STATUS_SHARING_VIOLATION : NDK_STATUS_SUCCESS;
}
