/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef SWROCE_DCQCN_H
#define SWROCE_DCQCN_H

/**
 * @file
 * DCQCN's reaction point (rc/swroce_dcqcn.c): one QP's sending rate as
 * congestion notification packets (CNPs) cut it and timers and a byte
 * counter raise it again, and the pacing deadline that rate gives. Pure:
 * the caller passes the time (TSC ticks), so it is tested with a fake
 * clock (drivers/swroce/test/test_dcqcn.c).
 *
 * Rates are in Mbit/s. On a CNP: target = current; current *= 1 - alpha/2;
 * alpha = (1 - g) alpha + g; the increase stages restart. Every alpha
 * period without a CNP: alpha = (1 - g) alpha. Every increase period, and
 * every byte-counter's worth of bytes sent, one increase event: while
 * both stage counters are below F, fast recovery (current = (target +
 * current) / 2); when both are above F, hyper increase (target += R_HAI);
 * else additive increase (target += R_AI, current = mean as well).
 * g = 1/256, F = 5, alpha in 1/1024 units. The rate never exceeds the
 * line rate; at it, the timers stop until the next CNP.
 *
 * The periods (55 us) and the byte counter (10 MiB) are DCQCN's at
 * 40 Gbit/s; they are scaled to the line rate (periods by 40 Gbit/s /
 * line, the byte counter by line / 40 Gbit/s, at least 64 KiB), which
 * keeps the loop's dynamics for the same buffers in bytes. R_AI is
 * line / 500, R_HAI 5 R_AI, the floor line / 1000.
 */

#include <stdbool.h>
#include <stdint.h>

/** Increase stages without a CNP before additive increase. */
#define SWR_DCQCN_F 5
/** alpha's scale: 1024 = 1. */
#define SWR_DCQCN_ALPHA_ONE 1024u
/** g = 1 / 2^SWR_DCQCN_G_SHIFT. */
#define SWR_DCQCN_G_SHIFT 8

/** Parameters shared by an adapter's QPs (set at adapter open). */
struct swr_dcqcn_params {
	uint32_t line_mbps;       /**< line rate: unpaced at or above */
	uint32_t start_mbps;      /**< a QP's first rate (<= line) */
	uint32_t min_mbps;        /**< never below */
	uint32_t rai_mbps;        /**< additive increase step */
	uint32_t rhai_mbps;       /**< hyper increase step */
	uint64_t alpha_tsc;       /**< alpha update period (55 us) */
	uint64_t inc_tsc;         /**< rate increase period (55 us) */
	uint64_t byte_cnt;        /**< bytes per increase event */
	uint64_t burst_bytes;     /**< credit a paced QP may bank (burst) */
	uint64_t hz;              /**< TSC ticks per second */
};

/** One QP's reaction point. */
struct swr_dcqcn {
	uint32_t rc_mbps;         /**< current rate */
	uint32_t rt_mbps;         /**< target rate */
	uint32_t alpha;           /**< 0..SWR_DCQCN_ALPHA_ONE */
	uint16_t t_stage;         /**< increase events by the timer */
	uint16_t b_stage;         /**< ... by the byte counter */
	uint64_t alpha_next;      /**< TSC of the next alpha update */
	uint64_t inc_next;        /**< TSC of the next timer increase */
	uint64_t bytes;           /**< sent since the last byte event */
	uint64_t tpb;             /**< TSC per byte at rc, 16.16 */
	uint64_t next_tx;         /**< earliest TSC of the next frame */
	uint64_t cnps;            /**< CNPs taken */
	uint64_t cuts;            /**< ... of which cut the rate */
};

/** Fill @p p with DCQCN's defaults for a line of @p line_mbps. */
void swr_dcqcn_params_init(struct swr_dcqcn_params *p, uint32_t line_mbps,
			   uint64_t hz);

/** A QP starts at start_mbps (target the same), alpha 1. */
void swr_dcqcn_init(struct swr_dcqcn *d, const struct swr_dcqcn_params *p);

/** A CNP arrived at @p now: cut the rate. */
void swr_dcqcn_cnp(struct swr_dcqcn *d, const struct swr_dcqcn_params *p,
		   uint64_t now);

/** Run the alpha and increase timers up to @p now. */
void swr_dcqcn_timers(struct swr_dcqcn *d, const struct swr_dcqcn_params *p,
		      uint64_t now);

/** True if the QP is below line rate (its rate increases run). */
static inline bool
swr_dcqcn_paced(const struct swr_dcqcn *d, const struct swr_dcqcn_params *p)
{
	return d->rc_mbps < p->line_mbps;
}

/** True if a paced QP may send a frame at @p now. */
static inline bool
swr_dcqcn_may_send(const struct swr_dcqcn *d, uint64_t now)
{
	return d->next_tx <= now;
}

/**
 * A frame of @p bytes (wire) was sent at @p now: move the pacing deadline
 * and count the bytes toward an increase event.
 */
void swr_dcqcn_sent(struct swr_dcqcn *d, const struct swr_dcqcn_params *p,
		    uint32_t bytes, uint64_t now);

#endif /* SWROCE_DCQCN_H */
