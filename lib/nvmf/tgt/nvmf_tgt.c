/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 ndk-roce authors
 */

/*
 * The target: creation (protection domain, registered receive arena and
 * data buffers from ndk_adapter_alloc_buffer(), object pools, all in
 * hugepage memory), subsystems, hosts,
 * namespaces, listeners, the poll loop and the counters.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_malloc.h>

#include "nvmf_tgt_int.h"

RTE_LOG_REGISTER(nvmf_tgt_logtype, ndk.nvmf.tgt, NOTICE);

#define NVMF_DEF_QPAIRS 32
#define NVMF_DEF_CTRLRS 16
#define NVMF_DEF_IO_QUEUES 8
#define NVMF_DEF_DEPTH 128
#define NVMF_MAX_DEPTH 1024
#define NVMF_DEF_ICD 4096
#define NVMF_DEF_IO_SIZE (128u * 1024)
#define NVMF_DEF_BUFS 64
/* Small data buffers: transfers up to NVMF_SMALL_BUF take one of these
 * (2 x max_queue_depth of them) before a max_io_size one. */
#define NVMF_SMALL_BUF 8192u
#define NVMF_SCRATCH (64u * 1024)
#define NVMF_TIMER_MS 20
#define NVMF_DESTROY_MS 3000

static uint32_t
nvmf_recv_size(const struct ndk_nvmf_tgt *tgt)
{
	return (uint32_t)sizeof(struct nvme_cmd) + tgt->cfg.in_capsule_data_size;
}

static int
nvmf_cfg_defaults(struct ndk_nvmf_tgt_config *c)
{
	if (c->adapter == NULL)
		return -EINVAL;
	if (c->max_qpairs == 0)
		c->max_qpairs = NVMF_DEF_QPAIRS;
	if (c->max_ctrlrs == 0)
		c->max_ctrlrs = NVMF_DEF_CTRLRS;
	if (c->max_io_queues == 0)
		c->max_io_queues = NVMF_DEF_IO_QUEUES;
	if (c->max_queue_depth == 0)
		c->max_queue_depth = NVMF_DEF_DEPTH;
	if (c->in_capsule_off)
		c->in_capsule_data_size = 0;
	else if (c->in_capsule_data_size == 0)
		c->in_capsule_data_size = NVMF_DEF_ICD;
	if (c->max_io_size == 0)
		c->max_io_size = NVMF_DEF_IO_SIZE;
	if (c->nb_data_buffers == 0)
		c->nb_data_buffers = NVMF_DEF_BUFS;
	if (c->max_io_queues > NVMF_MAX_IO_QUEUES ||
	    c->max_queue_depth < NVMF_ADMIN_DEPTH ||
	    c->max_queue_depth > NVMF_MAX_DEPTH ||
	    c->in_capsule_data_size % 16 != 0 ||
	    c->in_capsule_data_size > 64 * 1024 ||
	    c->max_io_size < NDK_PAGE_SIZE || c->max_io_size > (8u << 20) ||
	    !rte_is_power_of_2(c->max_io_size) || c->max_ctrlrs > 0xFFE0)
		return -EINVAL;
	return 0;
}

static int
nvmf_register(struct ndk_nvmf_tgt *tgt, void *p, size_t len,
	      struct ndk_mr **mr, uint32_t *ltoken)
{
	ndk_status_t st = ndk_create_mr(tgt->pd, false, mr);

	if (st == NDK_STATUS_SUCCESS)
		st = ndk_register_mr(*mr, p, len,
				     NDK_MR_FLAG_ALLOW_LOCAL_WRITE |
				     NDK_MR_FLAG_RDMA_READ_SINK);
	if (st != NDK_STATUS_SUCCESS) {
		NVMF_LOG(ERR, "register %zu bytes: %s\n", len,
			 ndk_status_str(st));
		if (*mr != NULL)
			ndk_close_mr(*mr, NULL, NULL);
		*mr = NULL;
		return -EIO;
	}
	*ltoken = ndk_mr_local_token(*mr);
	return 0;
}

/* Receive arena slot of queue pair @p i: recvs, then response capsules. */
static void
nvmf_qpair_slot_init(struct ndk_nvmf_tgt *tgt, uint32_t i)
{
	struct nvmf_qpair *qp = &tgt->qpairs[i];
	uint32_t depth = tgt->cfg.max_queue_depth;
	uint8_t *slot = tgt->arena + (size_t)i * tgt->arena_qp_size;
	struct nvme_cpl *cpls = (struct nvme_cpl *)(slot +
		(size_t)depth * nvmf_recv_size(tgt));

	qp->tgt = tgt;
	qp->idx = i;
	qp->recvs = &tgt->recv_pool[(size_t)i * depth];
	qp->reqs = &tgt->req_pool[(size_t)i * depth * 2];
	qp->silent_ctx = NVMF_CTX_SILENT;
	for (uint32_t r = 0; r < depth; r++) {
		qp->recvs[r].kind = NVMF_CTX_RECV;
		qp->recvs[r].buf = slot + (size_t)r * nvmf_recv_size(tgt);
	}
	for (uint32_t r = 0; r < depth * 2; r++) {
		qp->reqs[r].kind = NVMF_CTX_REQ;
		qp->reqs[r].cpl = &cpls[r];
	}
}

static void
nvmf_subsys_init(struct ndk_nvmf_subsystem *s, struct ndk_nvmf_tgt *tgt,
		 const char *nqn)
{
	memset(s, 0, sizeof(*s));
	s->tgt = tgt;
	s->used = true;
	snprintf(s->nqn, sizeof(s->nqn), "%s", nqn);
}

int
ndk_nvmf_tgt_create(const struct ndk_nvmf_tgt_config *cfg,
		    struct ndk_nvmf_tgt **out)
{
	struct ndk_nvmf_tgt *tgt;
	struct ndk_nvmf_tgt_config c;
	uint32_t isize, depth;
	size_t arena_len, bufs_len;
	int sock, rc;

	if (cfg == NULL || out == NULL)
		return -EINVAL;
	c = *cfg;
	rc = nvmf_cfg_defaults(&c);
	if (rc != 0)
		return rc;
	sock = c.socket_id;
	tgt = rte_zmalloc_socket("nvmf_tgt", sizeof(*tgt), 64, sock);
	if (tgt == NULL)
		return -ENOMEM;
	tgt->cfg = c;
	tgt->ad = c.adapter;
	snprintf(tgt->model, sizeof(tgt->model), "%s",
		 c.model != NULL ? c.model : "ndk-roce NVMe-oF");
	tgt->cfg.model = NULL;
	TAILQ_INIT(&tgt->buf_wait);
	isize = sizeof(tgt->info);
	if (ndk_query_adapter_info(tgt->ad, &tgt->info, &isize) !=
	    NDK_STATUS_SUCCESS) {
		rc = -EIO;
		goto fail;
	}
	depth = tgt->cfg.max_queue_depth;
	if (depth > tgt->info.max_receive_queue_depth ||
	    depth * 4 > tgt->info.max_initiator_queue_depth ||
	    depth * 5 > tgt->info.max_cq_depth) {
		NVMF_LOG(ERR, "queue depth %u beyond the adapter's limits\n",
			 depth);
		rc = -EINVAL;
		goto fail;
	}
	if (ndk_create_pd(tgt->ad, &tgt->pd) != NDK_STATUS_SUCCESS) {
		rc = -EIO;
		goto fail;
	}
	tgt->arena_qp_size = RTE_ALIGN_CEIL((size_t)depth *
		nvmf_recv_size(tgt) + (size_t)depth * 2 *
		sizeof(struct nvme_cpl), 64);
	arena_len = tgt->arena_qp_size * c.max_qpairs;
	tgt->nb_small = 2 * depth;
	bufs_len = (size_t)c.max_io_size * c.nb_data_buffers +
		(size_t)NVMF_SMALL_BUF * tgt->nb_small;
	/* Registered memory comes from the adapter: attached to ndk-roced,
	 * that is the only memory the daemon lets us register. */
	if (ndk_adapter_alloc_buffer(tgt->ad, arena_len, 4096,
				     (void **)&tgt->arena) != NDK_STATUS_SUCCESS)
		tgt->arena = NULL;
	if (ndk_adapter_alloc_buffer(tgt->ad, bufs_len, 4096,
				     (void **)&tgt->bufs) != NDK_STATUS_SUCCESS)
		tgt->bufs = NULL;
	tgt->buf_free = rte_zmalloc_socket("nvmf_buf_free",
		sizeof(uint32_t) * c.nb_data_buffers, 64, sock);
	tgt->small_free = rte_zmalloc_socket("nvmf_small_free",
		sizeof(uint32_t) * tgt->nb_small, 64, sock);
	tgt->qpairs = rte_zmalloc_socket("nvmf_qpairs",
		sizeof(struct nvmf_qpair) * c.max_qpairs, 64, sock);
	tgt->live = rte_zmalloc_socket("nvmf_live",
		sizeof(*tgt->live) * c.max_qpairs, 64, sock);
	tgt->recv_pool = rte_zmalloc_socket("nvmf_recvs",
		sizeof(struct nvmf_recv) * depth * c.max_qpairs, 64, sock);
	tgt->req_pool = rte_zmalloc_socket("nvmf_reqs",
		sizeof(struct nvmf_req) * depth * 2 * c.max_qpairs, 64, sock);
	tgt->ctrlrs = rte_zmalloc_socket("nvmf_ctrlrs",
		sizeof(struct nvmf_ctrlr) * c.max_ctrlrs, 64, sock);
	tgt->scratch_size = NVMF_SCRATCH;
	tgt->scratch = rte_zmalloc_socket("nvmf_scratch", NVMF_SCRATCH, 64,
					  sock);
	if (tgt->arena == NULL || tgt->bufs == NULL || tgt->buf_free == NULL ||
	    tgt->small_free == NULL ||
	    tgt->qpairs == NULL || tgt->live == NULL ||
	    tgt->recv_pool == NULL ||
	    tgt->req_pool == NULL || tgt->ctrlrs == NULL ||
	    tgt->scratch == NULL) {
		rc = -ENOMEM;
		goto fail;
	}
	rc = nvmf_register(tgt, tgt->arena, arena_len, &tgt->arena_mr,
			   &tgt->arena_ltoken);
	if (rc == 0)
		rc = nvmf_register(tgt, tgt->bufs, bufs_len, &tgt->bufs_mr,
				   &tgt->bufs_ltoken);
	if (rc != 0)
		goto fail;
	for (uint32_t i = 0; i < c.nb_data_buffers; i++)
		tgt->buf_free[i] = c.nb_data_buffers - 1 - i;
	tgt->nbuf_free = c.nb_data_buffers;
	for (uint32_t i = 0; i < tgt->nb_small; i++)
		tgt->small_free[i] = c.nb_data_buffers + tgt->nb_small - 1 - i;
	tgt->nsmall_free = tgt->nb_small;
	for (uint32_t i = 0; i < c.max_qpairs; i++)
		nvmf_qpair_slot_init(tgt, i);
	tgt->next_cntlid = NVMF_CNTLID_MIN;
	nvmf_subsys_init(&tgt->subsys[0], tgt, NVMF_DISCOVERY_NQN);
	tgt->subsys[0].discovery = true;
	tgt->subsys[0].allow_any_host = true;
	tgt->genctr = 1;
	*out = tgt;
	return 0;
fail:
	ndk_nvmf_tgt_destroy(tgt);
	return rc;
}

/* Drain every queue pair: disconnect, then poll until all are freed. */
static void
nvmf_tgt_drain(struct ndk_nvmf_tgt *tgt)
{
	uint64_t end = rte_get_timer_cycles() +
		rte_get_timer_hz() * NVMF_DESTROY_MS / 1000;
	bool busy;

	for (uint32_t i = 0; i < tgt->nincoming; i++)
		ndk_reject(tgt->incoming[i], NULL, 0);
	for (uint32_t i = 0; i < tgt->nincoming; i++)
		ndk_close_connector(tgt->incoming[i], NULL, NULL);
	tgt->nincoming = 0;
	for (uint32_t i = 0; i < tgt->cfg.max_qpairs; i++)
		if (tgt->qpairs[i].state != NVMF_QP_FREE)
			nvmf_qpair_close(&tgt->qpairs[i]);
	do {
		ndk_nvmf_tgt_poll(tgt);
		busy = tgt->nlive != 0;
		if (busy && !tgt->cfg.poll_adapter)
			rte_delay_us_sleep(1000);
	} while (busy && rte_get_timer_cycles() < end);
	if (busy)
		NVMF_LOG(WARNING, "destroy: queue pairs still draining\n");
}

void
ndk_nvmf_tgt_destroy(struct ndk_nvmf_tgt *tgt)
{
	if (tgt == NULL)
		return;
	for (uint32_t i = 0; i < tgt->nlisteners; i++)
		ndk_close_listener(tgt->listeners[i].lis, NULL, NULL);
	tgt->nlisteners = 0;
	if (tgt->qpairs != NULL && tgt->req_pool != NULL)
		nvmf_tgt_drain(tgt);
	for (uint32_t s = 0; s < NVMF_MAX_SUBSYS; s++)
		for (uint32_t n = 0; n < NVMF_MAX_NS; n++) {
			struct nvmf_ns *ns = tgt->subsys[s].ns[n];

			if (ns == NULL)
				continue;
			if (ns->mr != NULL) {
				ndk_deregister_mr(ns->mr);
				ndk_close_mr(ns->mr, NULL, NULL);
			}
			nvmf_bdev_destroy(ns->bdev);
			rte_free(ns);
		}
	if (tgt->arena_mr != NULL) {
		ndk_deregister_mr(tgt->arena_mr);
		ndk_close_mr(tgt->arena_mr, NULL, NULL);
	}
	if (tgt->bufs_mr != NULL) {
		ndk_deregister_mr(tgt->bufs_mr);
		ndk_close_mr(tgt->bufs_mr, NULL, NULL);
	}
	if (tgt->pd != NULL)
		ndk_close_pd(tgt->pd, NULL, NULL);
	if (tgt->arena != NULL)
		ndk_adapter_free_buffer(tgt->ad, tgt->arena);
	if (tgt->bufs != NULL)
		ndk_adapter_free_buffer(tgt->ad, tgt->bufs);
	rte_free(tgt->buf_free);
	rte_free(tgt->small_free);
	rte_free(tgt->qpairs);
	rte_free(tgt->live);
	rte_free(tgt->recv_pool);
	rte_free(tgt->req_pool);
	rte_free(tgt->ctrlrs);
	rte_free(tgt->scratch);
	rte_free(tgt);
}

/* ------------------------------------------------------------------ */
/* Subsystems, hosts, namespaces                                       */
/* ------------------------------------------------------------------ */

static bool
nvmf_nqn_valid(const char *nqn)
{
	size_t n;

	if (nqn == NULL)
		return false;
	n = strnlen(nqn, NVMF_NQN_SIZE);
	return n > 0 && n <= NVMF_NQN_MAX_LEN;
}

struct ndk_nvmf_subsystem *
nvmf_tgt_find_subsys(struct ndk_nvmf_tgt *tgt, const char *nqn)
{
	for (uint32_t i = 0; i < NVMF_MAX_SUBSYS; i++)
		if (tgt->subsys[i].used &&
		    strncmp(tgt->subsys[i].nqn, nqn, NVMF_NQN_SIZE) == 0)
			return &tgt->subsys[i];
	return NULL;
}

bool
nvmf_subsys_host_allowed(const struct ndk_nvmf_subsystem *s,
			 const char *hostnqn)
{
	if (s->allow_any_host)
		return true;
	for (uint32_t i = 0; i < s->nhosts; i++)
		if (strncmp(s->hosts[i], hostnqn, NVMF_NQN_SIZE) == 0)
			return true;
	return false;
}

int
ndk_nvmf_tgt_add_subsystem(struct ndk_nvmf_tgt *tgt, const char *nqn,
			   const char *serial, bool allow_any_host,
			   struct ndk_nvmf_subsystem **out)
{
	struct ndk_nvmf_subsystem *s = NULL;
	uint32_t h = 5381;

	if (tgt == NULL || !nvmf_nqn_valid(nqn) ||
	    strcmp(nqn, NVMF_DISCOVERY_NQN) == 0 ||
	    (serial != NULL && strlen(serial) > 20))
		return -EINVAL;
	if (nvmf_tgt_find_subsys(tgt, nqn) != NULL)
		return -EEXIST;
	for (uint32_t i = 1; i < NVMF_MAX_SUBSYS && s == NULL; i++)
		if (!tgt->subsys[i].used)
			s = &tgt->subsys[i];
	if (s == NULL)
		return -ENOSPC;
	nvmf_subsys_init(s, tgt, nqn);
	s->allow_any_host = allow_any_host;
	for (const char *p = nqn; *p != '\0'; p++)
		h = h * 33 + (uint8_t)*p;
	if (serial != NULL)
		snprintf(s->sn, sizeof(s->sn), "%s", serial);
	else
		snprintf(s->sn, sizeof(s->sn), "NDK%08X", h);
	tgt->genctr++;
	if (out != NULL)
		*out = s;
	return 0;
}

int
ndk_nvmf_subsystem_add_host(struct ndk_nvmf_subsystem *s,
			    const char *hostnqn)
{
	if (s == NULL || s->discovery || !nvmf_nqn_valid(hostnqn))
		return -EINVAL;
	for (uint32_t i = 0; i < s->nhosts; i++)
		if (strcmp(s->hosts[i], hostnqn) == 0)
			return -EEXIST;
	if (s->nhosts == NVMF_MAX_HOSTS)
		return -ENOSPC;
	snprintf(s->hosts[s->nhosts++], NVMF_NQN_SIZE, "%s", hostnqn);
	s->tgt->genctr++;
	return 0;
}

/*
 * Register a memory namespace for RDMA, so that Reads go out from it
 * (nvmf_io_read_direct()). Attached to ndk-roced, only the daemon's buffers
 * register: then Reads copy through a data buffer as for a file.
 */
static void
nvmf_ns_register(struct ndk_nvmf_tgt *tgt, struct nvmf_ns *ns)
{
	uint64_t size;
	void *mem = nvmf_bdev_mem(ns->bdev, &size);
	ndk_status_t st;

	if (mem == NULL || ndk_create_mr(tgt->pd, false, &ns->mr) !=
	    NDK_STATUS_SUCCESS) {
		ns->mr = NULL;
		return;
	}
	st = ndk_register_mr(ns->mr, mem, size, NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	if (st != NDK_STATUS_SUCCESS) {
		NVMF_LOG(INFO, "nsid %u: memory not registered (%s): reads "
			 "copy through a data buffer\n", ns->nsid,
			 ndk_status_str(st));
		ndk_close_mr(ns->mr, NULL, NULL);
		ns->mr = NULL;
		return;
	}
	ns->ltoken = ndk_mr_local_token(ns->mr);
}

int
ndk_nvmf_subsystem_add_ns(struct ndk_nvmf_subsystem *s,
			  const struct ndk_nvmf_ns_config *cfg,
			  uint32_t *nsid_out)
{
	struct ndk_nvmf_tgt *tgt;
	struct nvmf_ns *ns;
	uint32_t bs, nsid;
	uint64_t size;
	bool zeroes;
	int rc;

	if (s == NULL || cfg == NULL || s->discovery)
		return -EINVAL;
	tgt = s->tgt;
	bs = cfg->block_size == 0 ? 512 : cfg->block_size;
	if ((bs != 512 && bs != 4096) || cfg->nsid > NVMF_MAX_NS ||
	    cfg->size % bs != 0)
		return -EINVAL;
	nsid = cfg->nsid;
	if (nsid != 0 && s->ns[nsid - 1] != NULL)
		return -EEXIST;
	for (uint32_t i = 0; i < NVMF_MAX_NS && nsid == 0; i++)
		if (s->ns[i] == NULL)
			nsid = i + 1;
	if (nsid == 0)
		return -ENOSPC;
	if (cfg->type == NDK_NVMF_NS_FILE &&
	    tgt->nworkers == RTE_DIM(tgt->workers))
		return -ENOSPC;
	ns = rte_zmalloc_socket("nvmf_ns", sizeof(*ns), 64,
				tgt->cfg.socket_id);
	if (ns == NULL)
		return -ENOMEM;
	rc = nvmf_bdev_create(cfg, tgt->cfg.socket_id, &ns->bdev, &size,
			      &zeroes);
	if (rc != 0) {
		rte_free(ns);
		return rc;
	}
	ns->nsid = nsid;
	ns->block_shift = (uint32_t)rte_bsf32(bs);
	ns->nblocks = size >> ns->block_shift;
	ns->read_zeroes = zeroes;
	if (ns->nblocks == 0) {
		nvmf_bdev_destroy(ns->bdev);
		rte_free(ns);
		return -EINVAL;
	}
	/* A stable identifier from the subsystem NQN and the NSID. */
	for (uint32_t i = 0; i < 16; i++) {
		uint32_t h = 2166136261u ^ (nsid * 16 + i);

		for (const char *p = s->nqn; *p != '\0'; p++)
			h = (h ^ (uint8_t)*p) * 16777619u;
		ns->uuid[i] = (uint8_t)(h >> 8);
	}
	ns->uuid[6] = (uint8_t)((ns->uuid[6] & 0x0F) | 0x40);  /* v4 */
	ns->uuid[8] = (uint8_t)((ns->uuid[8] & 0x3F) | 0x80);
	nvmf_ns_register(tgt, ns);
	if (cfg->type == NDK_NVMF_NS_FILE)
		tgt->workers[tgt->nworkers++] = ns->bdev;
	s->ns[nsid - 1] = ns;
	nvmf_ctrlr_ns_changed(s, nsid);
	if (nsid_out != NULL)
		*nsid_out = nsid;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Listeners                                                           */
/* ------------------------------------------------------------------ */

int
ndk_nvmf_tgt_listen(struct ndk_nvmf_tgt *tgt, uint32_t ipv4, uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct nvmf_listener *l;
	ndk_status_t st;

	if (tgt == NULL)
		return -EINVAL;
	if (tgt->nlisteners == NVMF_MAX_LISTENERS)
		return -ENOSPC;
	l = &tgt->listeners[tgt->nlisteners];
	a.sin_addr.s_addr = ipv4;
	a.sin_port = htons(port == 0 ? NVMF_RDMA_PORT : port);
	if (ndk_create_listener(tgt->ad, nvmf_rdma_connect_event, tgt,
				&l->lis) != NDK_STATUS_SUCCESS)
		return -EIO;
	st = ndk_listen(l->lis, (struct sockaddr *)&a, sizeof(a));
	if (st != NDK_STATUS_SUCCESS) {
		NVMF_LOG(ERR, "listen on port %u: %s\n", ntohs(a.sin_port),
			 ndk_status_str(st));
		ndk_close_listener(l->lis, NULL, NULL);
		l->lis = NULL;
		return st == NDK_STATUS_SHARING_VIOLATION ? -EADDRINUSE :
			st == NDK_STATUS_INVALID_ADDRESS ? -EINVAL : -EIO;
	}
	l->ipv4 = ipv4 != 0 ? ipv4 : tgt->info.ipv4;
	l->port = ntohs(a.sin_port);
	tgt->nlisteners++;
	tgt->genctr++;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Data buffers                                                        */
/* ------------------------------------------------------------------ */

/*
 * Indexes below nb_data_buffers are max_io_size buffers, the next
 * nb_small ones NVMF_SMALL_BUF buffers after them in the same region.
 */
int
nvmf_buf_get(struct ndk_nvmf_tgt *tgt, uint32_t len, uint32_t *idx)
{
	if (len <= NVMF_SMALL_BUF && tgt->nsmall_free != 0) {
		*idx = tgt->small_free[--tgt->nsmall_free];
		return 0;
	}
	if (tgt->nbuf_free == 0)
		return -ENOBUFS;
	*idx = tgt->buf_free[--tgt->nbuf_free];
	return 0;
}

void
nvmf_buf_put(struct ndk_nvmf_tgt *tgt, uint32_t idx)
{
	if (idx >= tgt->cfg.nb_data_buffers)
		tgt->small_free[tgt->nsmall_free++] = idx;
	else
		tgt->buf_free[tgt->nbuf_free++] = idx;
}

uint8_t *
nvmf_buf_addr(struct ndk_nvmf_tgt *tgt, uint32_t idx)
{
	uint32_t nb = tgt->cfg.nb_data_buffers;

	if (idx >= nb)
		return tgt->bufs + (size_t)nb * tgt->cfg.max_io_size +
			(size_t)(idx - nb) * NVMF_SMALL_BUF;
	return tgt->bufs + (size_t)idx * tgt->cfg.max_io_size;
}

/* ------------------------------------------------------------------ */
/* Poll loop and counters                                              */
/* ------------------------------------------------------------------ */

unsigned int
ndk_nvmf_tgt_poll(struct ndk_nvmf_tgt *tgt)
{
	unsigned int n = 0;
	uint64_t now;

	if (tgt->cfg.poll_adapter)
		n += ndk_adapter_poll(tgt->ad);
	if (tgt->nincoming > 0)
		nvmf_rdma_accept_pending(tgt);
	/* Only the live queue pairs: a poll that finds nothing costs a CQ
	 * look per connection, not a walk of every slot. */
	for (uint32_t i = 0; i < tgt->nlive;) {
		struct nvmf_qpair *qp = tgt->live[i];

		n += nvmf_rdma_poll_qpair(qp);
		if (qp->state == NVMF_QP_FREE)
			tgt->live[i] = tgt->live[--tgt->nlive];
		else
			i++;
	}
	if (tgt->nworkers > 0)
		n += nvmf_bdev_poll(tgt);
	if (!TAILQ_EMPTY(&tgt->buf_wait))
		nvmf_rdma_retry_buffers(tgt);
	now = rte_get_timer_cycles();
	if (now >= tgt->next_timer) {
		tgt->next_timer = now + rte_get_timer_hz() * NVMF_TIMER_MS /
			1000;
		nvmf_ctrlr_keep_alive_check(tgt, now);
	}
	tgt->stats.polls++;
	tgt->stats.idle_polls += n == 0 && tgt->nlive != 0;
	return n;
}

void
ndk_nvmf_tgt_get_stats(const struct ndk_nvmf_tgt *tgt,
		       struct ndk_nvmf_tgt_stats *st)
{
	const uint64_t *src = (const uint64_t *)&tgt->stats;
	uint64_t *dst = (uint64_t *)st;
	size_t n64 = offsetof(struct ndk_nvmf_tgt_stats, ctrlrs_now) /
		sizeof(uint64_t);

	for (size_t i = 0; i < n64; i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
	st->ctrlrs_now = __atomic_load_n(&tgt->stats.ctrlrs_now,
					 __ATOMIC_RELAXED);
	st->qpairs_now = __atomic_load_n(&tgt->stats.qpairs_now,
					 __ATOMIC_RELAXED);
	st->inflight_now = __atomic_load_n(&tgt->stats.inflight_now,
					   __ATOMIC_RELAXED);
	st->io_queues_max = __atomic_load_n(&tgt->stats.io_queues_max,
					    __ATOMIC_RELAXED);
}
