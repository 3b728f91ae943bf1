/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * swroce QP state machine: the IB transition table for RC, as verbs'
 * qp_state_table: for each (from, to) whether the transition is legal,
 * the attributes it requires and those it also accepts, then each
 * attribute's range. What a transition does to the QP is swr_qp_modify's
 * (rc/swroce_qp.c); this file only says yes or no.
 */

#include <stdbool.h>
#include <stdint.h>

#include "ndk_roce.h"
#include "swroce_adapter.h"
#include "swroce_qp.h"

/** One (from, to) cell of the table. */
struct swr_qp_trans {
	bool valid;               /**< a legal transition */
	uint32_t req;             /**< NDK_QP_ATTR_* it cannot do without */
	uint32_t opt;             /**< NDK_QP_ATTR_* it also accepts */
};

/*
 * Any attribute may come with any legal transition (what swroce has always
 * accepted; IB's table is stricter about the optional ones).
 */
#define SWR_QP_ATTR_ANY UINT32_MAX

/* Attributes INIT -> RTR cannot do without (IB's table). */
#define SWR_RTR_REQUIRED (NDK_QP_ATTR_AV | NDK_QP_ATTR_DEST_QPN | \
	NDK_QP_ATTR_RQ_PSN | NDK_QP_ATTR_PATH_MTU)

#define OK(r) { .valid = true, .req = (r), .opt = SWR_QP_ATTR_ANY }
#define RESET NDK_QP_STATE_RESET
#define INIT NDK_QP_STATE_INIT
#define RTR NDK_QP_STATE_RTR
#define RTS NDK_QP_STATE_RTS
#define SQD NDK_QP_STATE_SQD
#define SQE NDK_QP_STATE_SQE
#define ERR NDK_QP_STATE_ERROR

static const struct swr_qp_trans swr_qp_fsm[ERR + 1][ERR + 1] = {
	[RESET] = {
		[RESET] = OK(0), [INIT] = OK(0),
	},
	[INIT] = {
		[RESET] = OK(0), [INIT] = OK(0), [RTR] = OK(SWR_RTR_REQUIRED),
		[ERR] = OK(0),
	},
	[RTR] = {
		[RESET] = OK(0), [RTS] = OK(NDK_QP_ATTR_SQ_PSN), [ERR] = OK(0),
	},
	[RTS] = {
		[RESET] = OK(0), [RTS] = OK(0), [SQD] = OK(0), [ERR] = OK(0),
	},
	[SQD] = {
		[RESET] = OK(0), [RTS] = OK(0), [SQD] = OK(0), [ERR] = OK(0),
	},
	[SQE] = {
		[RESET] = OK(0), [ERR] = OK(0),
	},
	[ERR] = {
		[RESET] = OK(0), [ERR] = OK(0),
	},
};

#undef OK
#undef RESET
#undef INIT
#undef RTR
#undef RTS
#undef SQD
#undef SQE
#undef ERR

/* Each attribute the mask names within its range. */
static ndk_status_t
swr_qp_attr_check(const struct swr_qp *qp, const struct ndk_qp_attr *a,
		  uint32_t mask)
{
	if ((mask & NDK_QP_ATTR_PATH_MTU) &&
	    (ndk_roce_mtu_from_bytes(a->path_mtu) == 0 ||
	     a->path_mtu > qp->ad->max_path_mtu))
		return NDK_STATUS_INVALID_PARAMETER;
	if ((mask & NDK_QP_ATTR_DEST_QPN) && a->dest_qpn > NDK_ROCE_QPN_MASK)
		return NDK_STATUS_INVALID_PARAMETER;
	if (((mask & NDK_QP_ATTR_RQ_PSN) && a->rq_psn > NDK_ROCE_PSN_MASK) ||
	    ((mask & NDK_QP_ATTR_SQ_PSN) && a->sq_psn > NDK_ROCE_PSN_MASK))
		return NDK_STATUS_INVALID_PARAMETER;
	if (((mask & NDK_QP_ATTR_MAX_RD_ATOMIC) &&
	     a->max_rd_atomic > SWR_MAX_RD_ATOMIC) ||
	    ((mask & NDK_QP_ATTR_MAX_DEST_RD_ATOMIC) &&
	     a->max_dest_rd_atomic > SWR_MAX_RD_ATOMIC))
		return NDK_STATUS_INVALID_PARAMETER;
	if (((mask & NDK_QP_ATTR_TIMEOUT) && a->timeout > 31) ||
	    ((mask & NDK_QP_ATTR_RETRY_CNT) && a->retry_cnt > 7) ||
	    ((mask & NDK_QP_ATTR_RNR_RETRY) && a->rnr_retry > 7) ||
	    ((mask & NDK_QP_ATTR_MIN_RNR_TIMER) && a->min_rnr_timer > 31) ||
	    ((mask & NDK_QP_ATTR_SELECTIVE_REPEAT) && a->selective_repeat > 1))
		return NDK_STATUS_INVALID_PARAMETER;
	/* IPv6 (dest_ip 0): a unicast peer, and an adapter with IPv6. */
	if ((mask & NDK_QP_ATTR_AV) && a->dest_ip == 0 &&
	    (!swr_ip6_unicast(a->dest_ip6) || !qp->ad->has_ipv6))
		return NDK_STATUS_INVALID_PARAMETER;
	if ((mask & NDK_QP_ATTR_AV) && a->dest_ip != 0 && qp->ad->ipv4 == 0)
		return NDK_STATUS_INVALID_PARAMETER;
	return NDK_STATUS_SUCCESS;
}

ndk_status_t
swr_qp_modify_check(const struct swr_qp *qp, const struct ndk_qp_attr *a,
		    uint32_t mask, uint32_t from, uint32_t to)
{
	const struct swr_qp_trans *t;

	if (from > NDK_QP_STATE_ERROR || to > NDK_QP_STATE_ERROR)
		return NDK_STATUS_INVALID_DEVICE_STATE;
	t = &swr_qp_fsm[from][to];
	if (!t->valid)
		return NDK_STATUS_INVALID_DEVICE_STATE;
	if ((mask & t->req) != t->req ||
	    (mask & ~(t->req | t->opt | NDK_QP_ATTR_STATE)) != 0)
		return NDK_STATUS_INVALID_PARAMETER;
	return swr_qp_attr_check(qp, a, mask);
}
