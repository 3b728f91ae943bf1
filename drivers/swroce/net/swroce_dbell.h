/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef SWROCE_DBELL_H
#define SWROCE_DBELL_H

/**
 * @file
 * swroce doorbells (net/swroce_dbell.c): the rings through which posts
 * hand QPs with new work to their queue's poller: each queue's, and the
 * attached applications' (drained by queue 0's poller).
 */

struct swr_queue;
struct rte_ring;

/* swroce_dbell.c */

/**
 * Serve the queued doorbells of queue @p q (its poller), and on queue 0
 * those of the attached applications' rings (swroce_dbell.c).
 */
unsigned int swr_doorbells(struct swr_queue *q);
/** Serve every doorbell queued on @p r (control operation: swr_ctl_exec). */
void swr_db_drain_all(struct rte_ring *r);

#endif /* SWROCE_DBELL_H */
