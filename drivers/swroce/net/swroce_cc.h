/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef SWROCE_CC_H
#define SWROCE_CC_H

/**
 * @file
 * swroce congestion control (net/swroce_cc.c, doc/cc.md): the notification
 * point (a frame received marked CE makes the QP send a CNP to its peer,
 * at most one per cnp_interval), the reaction point's glue (a CNP
 * received cuts the QP's DCQCN rate, rc/swroce_dcqcn.c) and the paced
 * requester (frames released by the QP's deadline; a QP that must wait
 * stays on the active list and the others go on).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "ndk.h"
#include "ndk_roce.h"

struct swr_adapter;
struct swr_queue;
struct swr_qp;

/** ECN field values (IPv4 TOS / IPv6 traffic class, low 2 bits). */
#define SWR_ECN_MASK 3u
#define SWR_ECN_ECT0 2u
#define SWR_ECN_CE 3u

/** The adapter's congestion control settings from its configuration. */
void swr_cc_adapter_init(struct swr_adapter *ad,
			 const struct ndk_adapter_config *cfg);

/**
 * The traffic class of @p qp's frames: @p tos with the ECN field ECT(0)
 * when the adapter runs congestion control, not-ECT otherwise.
 */
uint8_t swr_cc_tos(const struct swr_qp *qp, uint8_t tos);

/** Reset a QP's reaction point when its path is set (INIT -> RTR). */
void swr_cc_qp_init(struct swr_qp *qp);

/** True if a parsed frame is marked CE. */
static inline bool
swr_cc_pkt_ce(const struct ndk_roce_pkt *p)
{
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(p->m, const uint8_t *,
						     p->l3_off);
	uint8_t ecn = p->dip6 != NULL ? l3[1] >> 4 : l3[1];

	return (ecn & SWR_ECN_MASK) == SWR_ECN_CE;
}

/** Notification point: @p qp received a frame marked CE. */
void swr_cc_ce(struct swr_qp *qp);

/** A CNP arrived on queue @p q (already steered to its QP's queue). */
void swr_cc_cnp_rx(struct swr_queue *q, const struct ndk_roce_pkt *p);

/**
 * The requester of a QP under congestion control: swr_req_run() frame by
 * frame while the QP's pacing deadline allows. @return frames made.
 */
unsigned int swr_cc_req_run(struct swr_qp *qp, unsigned int quota);

#endif /* SWROCE_CC_H */
