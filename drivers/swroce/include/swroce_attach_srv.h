/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef SWROCE_ATTACH_SRV_H
#define SWROCE_ATTACH_SRV_H

/**
 * @file
 * swroce services for the daemon's attach server (app/ndk-roced,
 * roced_attach_app.c and roced_attach_ops.c) beyond the NDK API:
 * per-application doorbell rings and the memory an application's QPs may
 * fast-register (swroce_dbell.c). A provider-facing export header: the
 * daemon includes it, never swroce's private headers. See doc/attach.md.
 */

#include <stdint.h>

#include <rte_ring.h>

#include "ndk.h"

/** Doorbell rings an adapter hooks besides its own (one per application). */
#define SWR_ATTACH_DB_RINGS_MAX 64

/**
 * Create a doorbell ring for attached application @p app on adapter @p a
 * (hugepage memory, multi-producer, single consumer) and hook it to the
 * adapter's polling thread, which drains it with the adapter's own.
 *
 * @return the ring, or NULL (logged).
 */
struct rte_ring *swr_attach_db_create(struct ndk_adapter *a, uint64_t app);

/**
 * Unhook ring @p r from adapter @p a on the polling thread (doorbells
 * still queued are served), then free it. Call after the application's
 * QPs are closed. NULL is ignored.
 */
void swr_attach_db_destroy(struct ndk_adapter *a, struct rte_ring *r);

/**
 * Make QP @p q ring doorbell ring @p r (created on the QP's adapter)
 * instead of the adapter's. Only before anyone posts on @p q.
 */
void swr_attach_qp_use_db(struct ndk_qp *q, struct rte_ring *r);

/**
 * Limit the pages a fast register posted on QP @p q may name to
 * [@p va, @p va + @p len) (an attached application's heap): others fail
 * the post with STATUS_ACCESS_VIOLATION. Only before anyone posts on
 * @p q. @p len 0: no limit beyond DPDK memory.
 */
void swr_attach_qp_limit_fr(struct ndk_qp *q, uint64_t va, uint64_t len);

/**
 * Doorbell rings hooked to adapter @p a besides its own (read on its
 * polling thread, through the control mailbox).
 */
unsigned int swr_attach_db_hooked(struct ndk_adapter *a);

#endif /* SWROCE_ATTACH_SRV_H */
