/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * swroce congestion control (swroce_cc.h): RoCEv2's congestion
 * notification (annex A17.9: CE-marked frame in, CNP out to the sending
 * QP; CNP = BTH opcode 0x81 with BECN set, PSN 0, 16 reserved zero bytes,
 * ICRC) and DCQCN's reaction point on the requester.
 *
 * Pacing: the requester sends one frame at a time while the QP's deadline
 * (rc/swroce_dcqcn.c) is not in the future; each frame moves it by its
 * wire time at the current rate. A QP that must wait returns to the poll
 * loop with work left, so it stays on the queue's active list and is
 * looked at again next poll: no sleep, no timer, and the QPs after it are
 * served as usual. A QP at line rate (no CNP yet, or recovered) is paced
 * at the line rate: it stands for a sender on its own link of that speed.
 */

#include <string.h>

#include <rte_ethdev.h>

#include "swroce_adapter.h"
#include "swroce_cc.h"
#include "swroce_qp.h"
#include "swroce_rc.h"
#include "swroce_tx.h"

#define SWR_CC_DEFAULT_LINE_MBPS 10000u
#define SWR_CC_DELAY_US 10u	/* delay mode's target at 40 Gbit/s */
#define SWR_CNP_RESERVED 16u
#define SWR_CC_ACKREQ_LINE 8u	/* AckReq every 8 frames at line rate */
/* Headers of a data frame beyond L2-L4 (BTH, RETH at most, ICRC) and an
 * Ethernet frame's wire overhead (preamble, FCS, gap). */
#define SWR_CC_FRAME_EXTRA (12u + 16u + 4u + 24u)

void
swr_cc_adapter_init(struct swr_adapter *ad,
		    const struct ndk_adapter_config *cfg)
{
	uint32_t line = cfg->cc_line_mbps;
	struct rte_eth_link link;
	uint32_t us, dus;

	if (line == 0) {
		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(cfg->port_id, &link) == 0 &&
		    link.link_speed != RTE_ETH_SPEED_NUM_NONE &&
		    link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN)
			line = link.link_speed;
		else
			line = SWR_CC_DEFAULT_LINE_MBPS;
	}
	/* The default interval scales with the line as DCQCN's timers. */
	us = cfg->cnp_interval_us != 0 ? cfg->cnp_interval_us :
		(uint32_t)RTE_MIN((uint64_t)NDK_CNP_INTERVAL_US * 40000u / line,
				  (uint64_t)UINT32_MAX);
	if (us == 0)
		us = 1;
	dus = cfg->cc_delay_us != 0 ? cfg->cc_delay_us :
		(uint32_t)RTE_MIN((uint64_t)SWR_CC_DELAY_US * 40000u / line,
				  (uint64_t)UINT32_MAX);
	ad->cc_mode = cfg->cc;
	ad->cnp_interval_tsc = ad->tsc_hz * us / 1000000u;
	swr_dcqcn_params_init(&ad->dcqcn, line, ad->tsc_hz);
	swr_delay_params_init(&ad->delay, ad->tsc_hz * dus / 1000000u,
			      cfg->cc_window_init, SWR_MAX_UNACKED_PSN);
	if (cfg->cc_start_mbps != 0 && cfg->cc_start_mbps < line)
		ad->dcqcn.start_mbps = cfg->cc_start_mbps;
	if (ad->cc_mode == NDK_CC_DCQCN)
		NDK_LOG(INFO, "swroce: port %u: DCQCN, line %u Mbit/s, start "
			"%u Mbit/s, CNPs at most every %u us per QP",
			cfg->port_id, line, ad->dcqcn.start_mbps, us);
	else if (ad->cc_mode == NDK_CC_DELAY)
		NDK_LOG(INFO, "swroce: port %u: delay-based, line %u Mbit/s, "
			"%u us of queueing allowed, first window %u packets",
			cfg->port_id, line, dus, ad->delay.wnd_init >> 16);
}

uint8_t
swr_cc_tos(const struct swr_qp *qp, uint8_t tos)
{
	tos &= (uint8_t)~SWR_ECN_MASK;
	if (qp->ad->cc_mode == NDK_CC_DCQCN)
		tos |= SWR_ECN_ECT0;
	return tos;
}

void
swr_cc_qp_init(struct swr_qp *qp)
{
	qp->cc_on = qp->ad->cc_mode != NDK_CC_NONE;
	qp->cnp_last = 0;
	swr_dcqcn_init(&qp->dcqcn, &qp->ad->dcqcn);
	swr_delay_init(&qp->dly, &qp->ad->delay);
}

/* A CNP to the peer QP of @p qp. */
static void
swr_cc_send_cnp(struct swr_qp *qp)
{
	struct ndk_roce_bth *bth;
	struct rte_mbuf *m;

	m = swr_pkt_new(qp, NDK_ROCE_OP_CNP, 0, false, false, 0, &bth);
	if (m == NULL)
		return;
	bth->qpn |= rte_cpu_to_be_32(NDK_ROCE_BTH_BECN);
	memset(bth + 1, 0, SWR_CNP_RESERVED);
	SWR_STAT(qp->q, cnp_sent);
	swr_pkt_send(qp, m);
}

void
swr_cc_ce(struct swr_qp *qp)
{
	uint64_t now = qp->q->now;

	SWR_STAT(qp->q, rx_ce);
	if (qp->cnp_last != 0 && now - qp->cnp_last < qp->ad->cnp_interval_tsc)
		return;
	qp->cnp_last = now != 0 ? now : 1;
	swr_cc_send_cnp(qp);
}

void
swr_cc_cnp_rx(struct swr_queue *q, const struct ndk_roce_pkt *p)
{
	struct swr_adapter *ad = q->ad;
	struct swr_qp *qp = swr_qp_lookup(ad, p->qpn);
	uint32_t state;

	SWR_STAT(q, cnp_rcvd);
	if (qp == NULL) {
		SWR_STAT(q, cnp_ignored);
		return;
	}
	state = swr_qp_state(qp);
	if (state < NDK_QP_STATE_RTR || state == NDK_QP_STATE_ERROR ||
	    p->sip != qp->attr.dest_ip ||
	    (p->sip6 != NULL && memcmp(p->sip6, qp->attr.dest_ip6,
				       sizeof(qp->attr.dest_ip6)) != 0) ||
	    ad->cc_mode != NDK_CC_DCQCN) {
		SWR_STAT(q, cnp_ignored);
		return;
	}
	swr_dcqcn_cnp(&qp->dcqcn, &ad->dcqcn, q->now);
	SWR_STAT(q, cnp_rate_cuts);
}

/* Wire bytes of the requester's next frame (0: nothing to send). */
static uint32_t
swr_cc_next_bytes(const struct swr_qp *qp)
{
	const struct swr_swqe *wqe;
	uint32_t off, plen = 0;

	if (qp->req_idx == __atomic_load_n(&qp->sq_prod, __ATOMIC_ACQUIRE))
		return 0;
	wqe = swr_swqe(qp, qp->req_idx);
	if (wqe->op != SWR_WR_READ && !swr_wr_is_local(wqe->op)) {
		off = qp->req_pkt * qp->pmtu;
		if (off < wqe->length)
			plen = RTE_MIN(qp->pmtu, wqe->length - off);
	}
	return qp->l2l4.len + SWR_CC_FRAME_EXTRA + plen;
}

/*
 * Delay mode: may the requester's next frame go within the window? The
 * frame that fills it, or ends half of it, asks for an ACK (AckReq): the
 * responder acknowledges only what asks for it, and a window smaller than
 * SWR_ACKREQ_EVERY packets would otherwise wait for a timeout.
 */
static bool
swr_cc_wnd_open(struct swr_qp *qp)
{
	int32_t out = ndk_roce_psn_diff(qp->req_psn, qp->una_psn);
	uint32_t w = swr_delay_pkts(&qp->dly), half = w / 2 != 0 ? w / 2 : 1;

	if (out >= (int32_t)w) {
		SWR_STAT(qp->q, cc_wnd_waits);
		return false;
	}
	if ((uint32_t)out + 1 >= w || qp->pkts_since_ackreq + 1 >= half)
		qp->pkts_since_ackreq = SWR_ACKREQ_EVERY - 1;
	return true;
}

/*
 * DCQCN below line rate: AckReq every SWR_CC_ACKREQ_LINE packets scaled
 * by rate / line (every packet below an eighth of the line), so that an
 * answer comes at least every 8 frame times at line rate. A slow QP
 * otherwise went up to 32 paced packets without one, longer than its
 * adaptive timeout, which then probed and resent what only waited in the
 * pacer (incast, 2 s: 480 to 610 probes without a drop; with this, 75).
 */
static void
swr_cc_rate_ackreq(struct swr_qp *qp, const struct swr_dcqcn *d,
		   const struct swr_dcqcn_params *prm)
{
	uint32_t n = (uint32_t)((uint64_t)SWR_CC_ACKREQ_LINE * d->rc_mbps /
				prm->line_mbps);

	if (qp->pkts_since_ackreq + 1 >= (n != 0 ? n : 1))
		qp->pkts_since_ackreq = SWR_ACKREQ_EVERY - 1;
}

unsigned int
swr_cc_req_run(struct swr_qp *qp, unsigned int quota)
{
	const struct swr_dcqcn_params *prm = &qp->ad->dcqcn;
	struct swr_dcqcn *d = &qp->dcqcn;
	bool wnd = qp->ad->cc_mode == NDK_CC_DELAY;
	uint64_t now = qp->q->now;
	unsigned int made = 0;

	if (!wnd)
		swr_dcqcn_timers(d, prm, now);
	while (made < quota) {
		uint32_t bytes = swr_cc_next_bytes(qp);

		if (bytes == 0)
			break;
		if (!swr_dcqcn_may_send(d, now)) {
			SWR_STAT(qp->q, cc_pace_waits);
			break;
		}
		if (wnd) {
			if (!swr_cc_wnd_open(qp))
				break;
		} else if (swr_dcqcn_paced(d, prm)) {
			swr_cc_rate_ackreq(qp, d, prm);
		}
		if (swr_req_run(qp, 1) == 0)
			break;
		swr_dcqcn_sent(d, prm, bytes, now);
		/* Below one packet: one packet per rtt / cwnd. */
		if (wnd && qp->dly.cwnd < SWR_DELAY_ONE) {
			uint64_t gap = swr_delay_gap(&qp->dly, &qp->ad->delay);

			if (d->next_tx < now + gap)
				d->next_tx = now + gap;
		}
		made++;
	}
	/* Nothing sent: still retire what waits at the tail (quota 0). */
	if (made == 0)
		swr_req_run(qp, 0);
	return made;
}
