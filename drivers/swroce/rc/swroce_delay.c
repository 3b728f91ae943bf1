/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Delay-based window (swroce_delay.h). Integer arithmetic only; the flow
 * scaling term needs 1 / sqrt(cwnd), taken from an integer square root
 * (a sample a round trip, not a packet).
 *
 * Flow scaling (Swift): fs = fs_range (1/sqrt(w) - 1/sqrt(w_max_fs)) /
 * (1/sqrt(w_min_fs) - 1/sqrt(w_max_fs)), clamped to [0, fs_range], with
 * w_min_fs = 1/10 packet and w_max_fs = 256 packets here: a QP with a window
 * of one packet aims at a round trip larger than one of 16 packets, so of
 * several QPs sharing a queue the smaller ones grow while the larger ones
 * are cut, which converges to fair shares faster than AIMD alone.
 */

#include <stdint.h>

#include "swroce_delay.h"

#define DELAY_INIT_PKTS		16u
#define DELAY_MIN_DIV		100u	/* wnd_min = 1/100 packet */
#define DELAY_BETA		819u	/* 0.8 */
#define DELAY_MAX_MDF		512u	/* 0.5 */
#define DELAY_FS_MAX_PKTS	256u
#define DELAY_FS_MIN_DIV	10u	/* full range from 1/10 packet */

/* floor(sqrt(x)) */
static uint64_t
delay_isqrt(uint64_t x)
{
	uint64_t r = 0, b = (uint64_t)1 << 62;

	while (b > x)
		b >>= 2;
	while (b != 0) {
		if (x >= r + b) {
			x -= r + b;
			r = (r >> 1) + b;
		} else {
			r >>= 1;
		}
		b >>= 2;
	}
	return r;
}

/* 2^24 / sqrt(w) for a window w in 16.16 packets. */
static uint64_t
delay_inv_sqrt(uint32_t w)
{
	uint64_t s = delay_isqrt((uint64_t)w << 16);     /* sqrt(w) in .16 */

	return s == 0 ? UINT32_MAX : ((uint64_t)1 << 40) / s;
}

void
swr_delay_params_init(struct swr_delay_params *p, uint64_t target_tsc,
		      uint32_t init_pkts, uint32_t max_pkts)
{
	if (init_pkts == 0)
		init_pkts = DELAY_INIT_PKTS;
	if (max_pkts == 0)
		max_pkts = 1;
	if (init_pkts > max_pkts)
		init_pkts = max_pkts;
	*p = (struct swr_delay_params){
		.target_tsc = target_tsc,
		.fs_tsc = target_tsc,
		.wnd_init = init_pkts << 16,
		.wnd_min = SWR_DELAY_ONE / DELAY_MIN_DIV,
		.wnd_max = max_pkts << 16,
		.ai = SWR_DELAY_ONE,
		.beta = DELAY_BETA,
		.max_mdf = DELAY_MAX_MDF,
		.fs_lo = delay_inv_sqrt(DELAY_FS_MAX_PKTS << 16),
		.fs_hi = delay_inv_sqrt(SWR_DELAY_ONE / DELAY_FS_MIN_DIV),
	};
}

void
swr_delay_init(struct swr_delay *d, const struct swr_delay_params *p)
{
	*d = (struct swr_delay){ .cwnd = p->wnd_init };
}

uint64_t
swr_delay_peer_min(struct swr_delay_peer *tbl, uint32_t key, uint64_t rtt)
{
	struct swr_delay_peer *e = &tbl[(key ^ (key >> 16)) %
					SWR_DELAY_PEERS];

	if (rtt == 0)
		rtt = 1;
	if (e->key != key || e->rtt_min == 0) {
		e->key = key;
		e->rtt_min = rtt;
	} else if (rtt < e->rtt_min) {
		e->rtt_min = rtt;
	}
	return e->rtt_min;
}

uint64_t
swr_delay_target(const struct swr_delay *d, const struct swr_delay_params *p)
{
	uint64_t lo = p->fs_lo, hi = p->fs_hi, v;
	uint64_t fs = 0;

	if (d->base == 0)
		return 0;
	v = delay_inv_sqrt(d->cwnd);
	if (v > lo)
		fs = p->fs_tsc * (v - lo) / (hi - lo);
	if (fs > p->fs_tsc)
		fs = p->fs_tsc;
	return d->base + p->target_tsc + fs;
}

static void
delay_set(struct swr_delay *d, const struct swr_delay_params *p, uint64_t w)
{
	if (w < p->wnd_min)
		w = p->wnd_min;
	if (w > p->wnd_max)
		w = p->wnd_max;
	d->cwnd = (uint32_t)w;
}

void
swr_delay_sample(struct swr_delay *d, const struct swr_delay_params *p,
		 uint64_t rtt, uint64_t base, uint64_t now)
{
	uint64_t target, f;

	if (rtt == 0)
		rtt = 1;
	d->rtt_last = rtt;
	if (d->rtt_min == 0 || rtt < d->rtt_min)
		d->rtt_min = rtt;
	d->base = base != 0 && base < d->rtt_min ? base : d->rtt_min;
	target = swr_delay_target(d, p);
	if (rtt <= target) {
		delay_set(d, p, (uint64_t)d->cwnd + p->ai);
		return;
	}
	if (d->last_dec != 0 && now - d->last_dec < rtt)
		return;                 /* once a round trip */
	d->last_dec = now != 0 ? now : 1;
	d->cuts++;
	/* beta (rtt - target) / rtt of the window, at most max_mdf. */
	f = (uint64_t)p->beta * (rtt - target) / rtt;
	if (f > p->max_mdf)
		f = p->max_mdf;
	delay_set(d, p, (uint64_t)d->cwnd * (1024 - f) / 1024);
}

uint64_t
swr_delay_gap(const struct swr_delay *d, const struct swr_delay_params *p)
{
	uint64_t r = d->rtt_last, t;

	if (d->cwnd >= SWR_DELAY_ONE || d->cwnd == 0)
		return 0;
	t = swr_delay_target(d, p);
	if (t != 0 && t < r)
		r = t;
	return (r << 16) / d->cwnd;
}

void
swr_delay_timeout(struct swr_delay *d, const struct swr_delay_params *p)
{
	delay_set(d, p, d->cwnd / 2);
}
