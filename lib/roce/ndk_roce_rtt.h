/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef NDK_ROCE_RTT_H
#define NDK_ROCE_RTT_H

/**
 * @file
 * Round-trip time estimator for adaptive retransmission (RFC 6298's
 * SRTT/RTTVAR, gains 1/8 and 1/4) in any integer time unit (swroce uses
 * TSC ticks). Shifts and adds only: no division, fit for the data path.
 *
 * The caller applies Karn's rule: only a request sent once may give a
 * sample (the answer to a retransmitted one is ambiguous).
 */

#include <stdint.h>

/** Estimator state; all-zero is "no sample yet". */
struct ndk_roce_rtt {
	uint64_t srtt;    /**< smoothed RTT; 0 = no sample yet */
	uint64_t rttvar;  /**< smoothed mean deviation */
};

/**
 * Feed one RTT sample @p r (RFC 6298 2.2/2.3: the first sample sets
 * SRTT = R, RTTVAR = R/2; later ones RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R|,
 * then SRTT = 7/8 SRTT + 1/8 R). A sample of 0 counts as 1.
 */
static inline void
ndk_roce_rtt_sample(struct ndk_roce_rtt *e, uint64_t r)
{
	uint64_t err;

	if (r == 0)
		r = 1;
	if (e->srtt == 0) {
		e->srtt = r;
		e->rttvar = r >> 1;
		return;
	}
	err = r > e->srtt ? r - e->srtt : e->srtt - r;
	e->rttvar = e->rttvar - (e->rttvar >> 2) + (err >> 2);
	e->srtt = e->srtt - (e->srtt >> 3) + (r >> 3);
	if (e->srtt == 0)
		e->srtt = 1;
}

/**
 * The retransmission timeout SRTT + 4 RTTVAR, clamped to
 * [@p floor, @p ceil] (@p ceil wins if they cross). Without a sample yet
 * it is @p ceil (the strict timeout: nothing is known of the path).
 */
static inline uint64_t
ndk_roce_rtt_rto(const struct ndk_roce_rtt *e, uint64_t floor, uint64_t ceil)
{
	uint64_t v;

	if (e->srtt == 0)
		return ceil;
	v = e->srtt + (e->rttvar << 2);
	if (v < floor)
		v = floor;
	return v < ceil ? v : ceil;
}

#endif /* NDK_ROCE_RTT_H */
