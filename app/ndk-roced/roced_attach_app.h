/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCED_ATTACH_APP_H
#define ROCED_ATTACH_APP_H

/*
 * Per attached application: doorbell ring and buffer heap
 * (roced_attach_app.c). Used by roced_attach.c under its table lock.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_memzone.h>
#include <rte_ring.h>

#include "ndk.h"

/** Buffers one application may hold. */
#define ROCED_APP_MAX_BLOCKS 256

struct roced_app_res {
	struct ndk_adapter *ad;      /* the daemon's adapter */
	struct rte_ring *db;         /* its doorbell ring */
	const struct rte_memzone *mz;/* its heap's memory */
	char heap[32];               /* its heap: ndkheap_<app id> */
	bool heap_made, mem_added;
	int socket;                  /* the heap's socket id */
	uint64_t va, len;            /* the heap's range */
	uint32_t n_blk;
	void *blk[ROCED_APP_MAX_BLOCKS];
};

/** Doorbell ring and heap (@p heap_mb) of application @p id on @p ad. */
int roced_app_res_init(struct roced_app_res *r, struct ndk_adapter *ad,
		       uint64_t id, int socket, uint32_t heap_mb);
/** Free every buffer, the heap, its memory and the doorbell ring. */
void roced_app_res_fini(struct roced_app_res *r);
/** A zeroed buffer from the application's heap. */
ndk_status_t roced_app_alloc(struct roced_app_res *r, uint64_t len,
			     uint32_t align, void **va);
/** Free a buffer of roced_app_alloc(). */
ndk_status_t roced_app_free(struct roced_app_res *r, void *va);
/** Whether [va, va + len) lies wholly inside the application's heap. */
bool roced_app_owns(const struct roced_app_res *r, uint64_t va,
		    uint64_t len);

#endif /* ROCED_ATTACH_APP_H */
