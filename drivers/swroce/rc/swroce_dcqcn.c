/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * DCQCN reaction point (swroce_dcqcn.h). Timers are deadlines checked when
 * the QP is served (swr_dcqcn_timers()), not callbacks: a QP that does not
 * send needs no rate increase. The pacing deadline moves by the frame's
 * serialization time at the current rate; it may lag behind the clock by
 * the time of burst_bytes or two frames (the larger) at that rate at
 * most, so a QP polled late sends a frame or two it is owed at once
 * instead of losing the rate, and an idle QP banks no more: with many
 * QPs on one poll loop, larger credits make every QP's frames arrive at
 * the bottleneck in the same micro-burst.
 */

#include <stdint.h>

#include <rte_common.h>

#include "swroce_dcqcn.h"

/* DCQCN's constants at its reference line rate, 40 Gbit/s. */
#define DCQCN_REF_MBPS		40000u
#define DCQCN_PERIOD_US		55u
#define DCQCN_BYTE_CNT		(10u * 1024 * 1024)
#define DCQCN_BYTE_CNT_MIN	(64u * 1024)
#define DCQCN_BURST_BYTES	(2u * 1024)
#define DCQCN_MIN_DIV		1000u	/* min rate = line / 1000 */
#define DCQCN_RAI_DIV		500u	/* R_AI = line / 500 */
#define DCQCN_MAX_STEPS		64u	/* timer periods run at once */

void
swr_dcqcn_params_init(struct swr_dcqcn_params *p, uint32_t line_mbps,
		      uint64_t hz)
{
	if (line_mbps == 0)
		line_mbps = 1;
	p->line_mbps = line_mbps;
	p->start_mbps = line_mbps;
	p->min_mbps = line_mbps / DCQCN_MIN_DIV != 0 ?
		line_mbps / DCQCN_MIN_DIV : 1;
	p->rai_mbps = line_mbps / DCQCN_RAI_DIV != 0 ?
		line_mbps / DCQCN_RAI_DIV : 1;
	p->rhai_mbps = p->rai_mbps * 5;
	/*
	 * Times scale with 1 / line rate, bytes stay: a link k times slower
	 * with the same buffers in bytes behaves as the reference one
	 * slowed down k times, so its control loop must be too.
	 */
	p->alpha_tsc = hz * DCQCN_PERIOD_US / 1000000u * DCQCN_REF_MBPS /
		line_mbps;
	p->inc_tsc = p->alpha_tsc;
	p->byte_cnt = (uint64_t)DCQCN_BYTE_CNT * line_mbps / DCQCN_REF_MBPS;
	if (p->byte_cnt < DCQCN_BYTE_CNT_MIN)
		p->byte_cnt = DCQCN_BYTE_CNT_MIN;
	p->burst_bytes = DCQCN_BURST_BYTES;
	p->hz = hz;
}

/* TSC ticks per byte at @p mbps, 16.16 fixed point. */
static uint64_t
dcqcn_tpb(const struct swr_dcqcn_params *p, uint32_t mbps)
{
	return ((8 * p->hz) << 16) / ((uint64_t)mbps * 1000000u);
}

static void
dcqcn_set_rc(struct swr_dcqcn *d, const struct swr_dcqcn_params *p,
	     uint32_t mbps)
{
	if (mbps < p->min_mbps)
		mbps = p->min_mbps;
	if (mbps > p->line_mbps)
		mbps = p->line_mbps;
	d->rc_mbps = mbps;
	d->tpb = dcqcn_tpb(p, mbps);
}

void
swr_dcqcn_init(struct swr_dcqcn *d, const struct swr_dcqcn_params *p)
{
	*d = (struct swr_dcqcn){
		.alpha = SWR_DCQCN_ALPHA_ONE,
	};
	dcqcn_set_rc(d, p, p->start_mbps);
	d->rt_mbps = d->rc_mbps;
}

void
swr_dcqcn_cnp(struct swr_dcqcn *d, const struct swr_dcqcn_params *p,
	      uint64_t now)
{
	uint64_t cut;

	d->cnps++;
	d->cuts++;
	d->rt_mbps = d->rc_mbps;
	cut = (uint64_t)d->rc_mbps * d->alpha / (2 * SWR_DCQCN_ALPHA_ONE);
	dcqcn_set_rc(d, p, d->rc_mbps - (uint32_t)cut);
	d->alpha = d->alpha - (d->alpha >> SWR_DCQCN_G_SHIFT) +
		(SWR_DCQCN_ALPHA_ONE >> SWR_DCQCN_G_SHIFT);
	if (d->alpha > SWR_DCQCN_ALPHA_ONE)
		d->alpha = SWR_DCQCN_ALPHA_ONE;
	d->t_stage = 0;
	d->b_stage = 0;
	d->bytes = 0;
	d->alpha_next = now + p->alpha_tsc;
	d->inc_next = now + p->inc_tsc;
	/* Paced from now on: no burst from before the cut. */
	if (d->next_tx < now)
		d->next_tx = now;
}

/* One increase event (the timer's or the byte counter's). */
static void
dcqcn_increase(struct swr_dcqcn *d, const struct swr_dcqcn_params *p)
{
	uint32_t lo = d->t_stage < d->b_stage ? d->t_stage : d->b_stage;
	uint32_t hi = d->t_stage < d->b_stage ? d->b_stage : d->t_stage;
	uint64_t rt = d->rt_mbps;

	if (hi < SWR_DCQCN_F)
		;                               /* fast recovery */
	else if (lo > SWR_DCQCN_F)
		rt += p->rhai_mbps;             /* hyper increase */
	else
		rt += p->rai_mbps;              /* additive increase */
	if (rt > p->line_mbps)
		rt = p->line_mbps;
	d->rt_mbps = (uint32_t)rt;
	/* Round up so that the mean reaches the target. */
	dcqcn_set_rc(d, p, (uint32_t)((rt + d->rc_mbps + 1) / 2));
}

void
swr_dcqcn_timers(struct swr_dcqcn *d, const struct swr_dcqcn_params *p,
		 uint64_t now)
{
	unsigned int n;

	if (d->alpha_next == 0) {               /* first call: periods start */
		d->alpha_next = now + p->alpha_tsc;
		d->inc_next = now + p->inc_tsc;
		return;
	}
	for (n = 0; now >= d->alpha_next && n < DCQCN_MAX_STEPS; n++) {
		d->alpha -= d->alpha >> SWR_DCQCN_G_SHIFT;
		d->alpha_next += p->alpha_tsc;
	}
	if (now >= d->alpha_next)               /* long idle: restart */
		d->alpha_next = now + p->alpha_tsc;
	if (!swr_dcqcn_paced(d, p))
		return;
	for (n = 0; now >= d->inc_next && n < DCQCN_MAX_STEPS &&
	     swr_dcqcn_paced(d, p); n++) {
		if (d->t_stage < UINT16_MAX)
			d->t_stage++;
		dcqcn_increase(d, p);
		d->inc_next += p->inc_tsc;
	}
	if (now >= d->inc_next)
		d->inc_next = now + p->inc_tsc;
}

void
swr_dcqcn_sent(struct swr_dcqcn *d, const struct swr_dcqcn_params *p,
	       uint32_t bytes, uint64_t now)
{
	uint64_t burst = RTE_MAX(p->burst_bytes, 2 * (uint64_t)bytes);
	uint64_t credit = (burst * d->tpb) >> 16;
	uint64_t floor = now > credit ? now - credit : 0;

	if (d->next_tx < floor)
		d->next_tx = floor;
	d->next_tx += ((uint64_t)bytes * d->tpb) >> 16;
	d->bytes += bytes;
	if (d->bytes >= p->byte_cnt) {
		d->bytes = 0;
		if (d->b_stage < UINT16_MAX)
			d->b_stage++;
		if (swr_dcqcn_paced(d, p))
			dcqcn_increase(d, p);
	}
}
