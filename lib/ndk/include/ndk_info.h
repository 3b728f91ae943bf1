/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_INFO_H
#define NDK_INFO_H

/**
 * @file
 * Introspection: which QPs an adapter has and what state each is in, for
 * monitoring (the ndk-roced daemon's telemetry, debugging tools). Part of
 * ndk.h: include that, not this.
 *
 * These are control-path calls. A provider answers them without disturbing
 * the polling thread's private state: swroce runs the read on the polling
 * thread through its control mailbox (or inline when nobody polls), so the
 * values are one consistent snapshot, at the cost of a short wait for the
 * caller. Never call them from a poll loop's hot path.
 */

#ifndef NDK_H
#error "include ndk.h, not ndk_info.h"
#endif

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ndk_adapter;

/** Protocol events of one QP since it was created. */
struct ndk_qp_events {
	uint64_t retransmit_packets;  /**< packets sent again */
	uint64_t retransmit_timeouts; /**< ACK timer expiries */
	/** NAKs sent other than RNR: PSN sequence, invalid request, remote
	 * access, remote operational. */
	uint64_t naks_sent;
	/** NAKs received other than RNR (sequence and fatal ones). */
	uint64_t naks_rcvd;
	uint64_t rnr_naks_sent;  /**< RNR NAKs sent (no receive posted) */
	uint64_t rnr_naks_rcvd;  /**< RNR NAKs received (peer not ready) */
	/** Early retransmissions by the adaptive timer (before the local ACK
	 * timeout; they spend no retry). */
	uint64_t adaptive_retransmits;
};

/**
 * A snapshot of one QP: its state, the PSNs of both directions, the work
 * outstanding on its queues and its protocol events.
 */
struct ndk_qp_info {
	uint32_t qpn;            /**< the QP number peers address */
	uint32_t state;          /**< enum ndk_qp_state */
	uint32_t dest_qpn;       /**< peer QP number (valid from RTR) */
	uint32_t dest_ip;        /**< peer IPv4, network order (from RTR); 0: IPv6 */
	uint8_t dest_ip6[16];    /**< peer IPv6 when dest_ip is 0 */
	uint32_t path_mtu;       /**< bytes */
	/** Next PSN the requester will send (valid from RTS). */
	uint32_t send_psn;
	/** Oldest PSN sent and not yet acknowledged (== send_psn if none). */
	uint32_t unacked_psn;
	/** PSN the responder expects of the peer's next request (from RTR). */
	uint32_t expected_psn;
	uint32_t sq_depth;       /**< initiator queue depth */
	uint32_t rq_depth;       /**< receive queue depth */
	/** Initiator requests posted and not yet completed. */
	uint32_t sq_outstanding;
	/** Receives posted and not yet completed. */
	uint32_t rq_outstanding;
	/** RDMA READs sent and not yet completed (against ORD). */
	uint32_t reads_outstanding;
	/** Smoothed round-trip time of the requester's answers in ns (0: no
	 * sample yet), see ndk_adapter_set_adaptive_rto(). */
	uint32_t srtt_ns;
	struct ndk_qp_events events; /**< protocol events */
	/** The retransmission timeout the requester arms now, in ns: the
	 * adaptive one (SRTT + 4 RTTVAR, clamped) or the local ACK timeout
	 * (adaptive retransmission off, or no sample yet); 0 = none. */
	uint64_t rto_ns;
};

/**
 * List the QP numbers of an adapter's open QPs (in table order, not
 * sorted). Control path.
 *
 * @param qpns where to store up to @p max QPNs (may be NULL if @p max is 0).
 * @return the number of open QPs, which may exceed @p max (only @p max
 *   were stored: call again with a larger array; adapter info max_qp is
 *   always enough), or a negative errno: -EINVAL for a bad adapter,
 *   -ENOTSUP if the provider has no introspection.
 */
int ndk_adapter_qp_list(struct ndk_adapter *adapter, uint32_t *qpns,
			uint32_t max);

/**
 * Snapshot the state of QP @p qpn of @p adapter. Control path.
 *
 * @return STATUS_SUCCESS; STATUS_INVALID_PARAMETER (bad adapter or NULL
 *   @p info), STATUS_INVALID_HANDLE (no open QP has that number),
 *   STATUS_NOT_SUPPORTED (the provider has no introspection).
 */
ndk_status_t ndk_qp_query_info(struct ndk_adapter *adapter, uint32_t qpn,
			       struct ndk_qp_info *info);

#ifdef __cplusplus
}
#endif

#endif /* NDK_INFO_H */
