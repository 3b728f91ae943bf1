/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * What the daemon keeps per attached application besides its objects
 * (roced_attach.c): its doorbell ring, hooked to its adapter's polling
 * thread (swroce_dbell.c), and its buffer heap. See doc/attach.md,
 * "Memory ownership".
 *
 * The heap: at HELLO the daemon reserves [attach] heap-mb of its own
 * hugepage memory (a memzone: mapped at the same address in every
 * secondary process) and makes it the only memory of an rte_malloc heap
 * named after the application id. Buffers are allocated and freed by the
 * daemon on the application's request (ndk_adapter_alloc_buffer()); the
 * application never takes the heap's lock, so its death cannot leave it
 * held, and the daemon knows every block it handed out, so it can free
 * them all when the application ends and give the heap back. Registration
 * accepts a range only if it lies wholly inside that application's heap.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_memzone.h>

#include "roced.h"
#include "roced_attach_app.h"
#include "swroce_attach_srv.h"

int
roced_app_res_init(struct roced_app_res *r, struct ndk_adapter *ad,
		   uint64_t id, int socket, uint32_t heap_mb)
{
	const size_t len = (size_t)heap_mb << 20;
	char name[RTE_MEMZONE_NAMESIZE];
	size_t pg;

	memset(r, 0, sizeof(*r));
	r->ad = ad;
	r->db = swr_attach_db_create(ad, id);
	if (r->db == NULL)
		return -ENOMEM;
	snprintf(r->heap, sizeof(r->heap), "ndkheap_%" PRIx64, id);
	snprintf(name, sizeof(name), "ndkmem_%" PRIx64, id);
	r->mz = rte_memzone_reserve_aligned(name, len, socket,
					    RTE_MEMZONE_SIZE_HINT_ONLY,
					    RTE_PGSIZE_2M);
	if (r->mz == NULL) {
		ROCED_LOG(ERR, "attach: no %u MB for application %" PRIx64
			  "'s heap: %s", heap_mb, id,
			  rte_strerror(rte_errno));
		goto fail;
	}
	pg = RTE_MIN((size_t)r->mz->hugepage_sz, (size_t)RTE_PGSIZE_2M);
	if (rte_malloc_heap_create(r->heap) != 0) {
		ROCED_LOG(ERR, "attach: cannot create heap %s: %s (at most "
			  "%d heaps)", r->heap, rte_strerror(rte_errno),
			  RTE_MAX_HEAPS);
		goto fail;
	}
	r->heap_made = true;
	if (rte_malloc_heap_memory_add(r->heap, r->mz->addr, len, NULL,
				       (unsigned int)(len / pg), pg) != 0) {
		ROCED_LOG(ERR, "attach: cannot give heap %s its memory: %s",
			  r->heap, rte_strerror(rte_errno));
		goto fail;
	}
	r->mem_added = true;
	r->socket = rte_malloc_heap_get_socket(r->heap);
	r->va = (uintptr_t)r->mz->addr;
	r->len = len;
	return 0;
fail:
	roced_app_res_fini(r);
	return -ENOMEM;
}

void
roced_app_res_fini(struct roced_app_res *r)
{
	/* Blocks the application did not free: the daemon allocated them. */
	for (uint32_t i = 0; i < r->n_blk; i++)
		rte_free(r->blk[i]);
	r->n_blk = 0;
	if (r->mem_added &&
	    rte_malloc_heap_memory_remove(r->heap, r->mz->addr, r->len) != 0)
		ROCED_LOG(ERR, "attach: heap %s: cannot remove its memory: "
			  "%s", r->heap, rte_strerror(rte_errno));
	else if (r->heap_made && rte_malloc_heap_destroy(r->heap) != 0)
		ROCED_LOG(ERR, "attach: cannot destroy heap %s: %s", r->heap,
			  rte_strerror(rte_errno));
	else
		rte_memzone_free(r->mz);
	r->mem_added = false;
	r->heap_made = false;
	r->mz = NULL;
	swr_attach_db_destroy(r->ad, r->db);
	r->db = NULL;
}

ndk_status_t
roced_app_alloc(struct roced_app_res *r, uint64_t len, uint32_t align,
		void **va)
{
	void *p;

	if (len == 0 || len > r->len || (align & (align - 1)) != 0)
		return NDK_STATUS_INVALID_PARAMETER;
	if (r->n_blk == ROCED_APP_MAX_BLOCKS) {
		ROCED_LOG(ERR, "attach: heap %s: more than %u buffers",
			  r->heap, ROCED_APP_MAX_BLOCKS);
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	}
	p = rte_malloc_socket(NULL, len, align, r->socket);
	if (p == NULL) {
		ROCED_LOG(ERR, "attach: heap %s (%" PRIu64 " MB): no %"
			  PRIu64 " bytes left", r->heap, r->len >> 20, len);
		return NDK_STATUS_NO_MEMORY;
	}
	memset(p, 0, len);
	r->blk[r->n_blk++] = p;
	*va = p;
	return NDK_STATUS_SUCCESS;
}

ndk_status_t
roced_app_free(struct roced_app_res *r, void *va)
{
	for (uint32_t i = 0; i < r->n_blk; i++) {
		if (r->blk[i] != va)
			continue;
		rte_free(va);
		r->blk[i] = r->blk[--r->n_blk];
		return NDK_STATUS_SUCCESS;
	}
	ROCED_LOG(ERR, "attach: heap %s: %p is none of its buffers", r->heap,
		  va);
	return NDK_STATUS_INVALID_PARAMETER;
}

bool
roced_app_owns(const struct roced_app_res *r, uint64_t va, uint64_t len)
{
	return len != 0 && va >= r->va && len <= r->len &&
		va - r->va <= r->len - len;
}
