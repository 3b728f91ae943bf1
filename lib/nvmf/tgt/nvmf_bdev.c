/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 ndk-roce authors
 */

/*
 * Namespace back ends.
 *
 *  - memory: hugepage memory (rte_zmalloc), operations done at once with
 *    memcpy / memset on the polling lcore;
 *  - file or block device: the polling lcore makes no system call. It
 *    hands the request to the back end's worker thread through an
 *    rte_ring; the worker runs reads, writes and fdatasync through
 *    io_uring (Write Zeroes and deallocate with fallocate()), and hands
 *    the request back through a second rte_ring, which ndk_nvmf_tgt_poll()
 *    drains (nvmf_bdev_poll()). Built when liburing is available. A
 *    controller shutting down asks the worker for an fdatasync()
 *    (nvmf_bdev_sync_request()) and completes its shutdown when it is
 *    done.
 */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#ifdef NDK_NVMF_URING
#include <linux/falloc.h>
#include <linux/fs.h>
#include <liburing.h>
#endif

#include "nvmf_tgt_int.h"

#define NVMF_RING_SIZE 4096     /* requests in flight per file back end */
#define NVMF_URING_DEPTH 128
#define NVMF_WORKER_IDLE_US 50

struct nvmf_bdev {
	enum ndk_nvmf_ns_type type;
	uint64_t size;
	uint8_t *mem;           /* MEM */
	int fd;                 /* FILE */
	struct rte_ring *sq;    /* lcore -> worker */
	struct rte_ring *cq;    /* worker -> lcore */
	pthread_t thread;
	bool running;
	volatile bool stop;
	uint64_t sync_req;      /* shutdown syncs asked (lcore writes) */
	uint64_t sync_done;     /* and done (worker writes) */
};

/* Finish a back-end operation of @p req with @p err (0 or -errno). */
static void
nvmf_bdev_done(struct nvmf_req *req, int err)
{
	struct ndk_nvmf_tgt *tgt = req->qp->tgt;
	struct nvmf_ctrlr *c = req->qp->ctrlr;

	req->in_backend = false;
	if (err != 0) {
		NVMF_LOG(ERR, "nsid %u op %u at %lu+%lu: %s\n",
			 req->ns->nsid, req->bdev_op,
			 (unsigned long)req->bdev_off,
			 (unsigned long)req->bdev_len, strerror(-err));
		nvmf_req_complete_status(req, NVME_SCT_MEDIA,
			req->bdev_op == NVMF_BDEV_READ ?
			NVME_SC_UNRECOVERED_READ_ERROR : NVME_SC_WRITE_FAULTS);
		return;
	}
	if (req->bdev_op == NVMF_BDEV_READ) {
		nvmf_count_read(tgt, c, req->bdev_len);
	} else if (req->bdev_op == NVMF_BDEV_WRITE) {
		tgt->stats.write_ops++;
		tgt->stats.write_bytes += req->bdev_len;
		if (c != NULL) {
			c->host_writes++;
			c->units_written += req->bdev_len >> 9;
		}
	}
	nvmf_req_complete(req);
}

/* ------------------------------------------------------------------ */
/* Memory                                                              */
/* ------------------------------------------------------------------ */

static void
nvmf_mem_submit(struct nvmf_bdev *b, struct nvmf_req *req)
{
	const struct nvme_dsm_range *r;

	switch (req->bdev_op) {
	case NVMF_BDEV_READ:
		/* Not when the data goes out from the namespace itself. */
		if (req->data != b->mem + req->bdev_off)
			memcpy(req->data, b->mem + req->bdev_off,
			       req->bdev_len);
		break;
	case NVMF_BDEV_WRITE:
		memcpy(b->mem + req->bdev_off, req->data, req->bdev_len);
		break;
	case NVMF_BDEV_ZEROES:
		memset(b->mem + req->bdev_off, 0, req->bdev_len);
		break;
	case NVMF_BDEV_DEALLOC:
		r = (const void *)req->data;
		for (uint32_t i = 0; i < req->xfer_len; i++)
			memset(b->mem + (r[i].slba << req->ns->block_shift), 0,
			       (size_t)r[i].nlb << req->ns->block_shift);
		req->xfer_len = 0;
		break;
	default:        /* FLUSH: memory has no cache to write back */
		break;
	}
	nvmf_bdev_done(req, 0);
}

/* ------------------------------------------------------------------ */
/* File: the worker thread                                             */
/* ------------------------------------------------------------------ */

#ifdef NDK_NVMF_URING

/* fallocate() on the worker: Write Zeroes, deallocate. */
static int
nvmf_file_fallocate(struct nvmf_bdev *b, struct nvmf_req *req)
{
	const struct nvme_dsm_range *r = (const void *)req->data;
	int mode = FALLOC_FL_KEEP_SIZE;

	if (req->bdev_op == NVMF_BDEV_ZEROES)
		return fallocate(b->fd, mode | FALLOC_FL_ZERO_RANGE,
				 (off_t)req->bdev_off, (off_t)req->bdev_len) ?
			-errno : 0;
	for (uint32_t i = 0; i < req->xfer_len; i++) {
		off_t off = (off_t)(r[i].slba << req->ns->block_shift);
		off_t len = (off_t)((uint64_t)r[i].nlb <<
				    req->ns->block_shift);

		/* Deallocation is advisory: a back end that cannot punch
		 * holes keeps the data (Identify DLFEAT says nothing). */
		if (len > 0 && fallocate(b->fd, mode | FALLOC_FL_PUNCH_HOLE,
					 off, len) != 0 &&
		    errno != EOPNOTSUPP)
			return -errno;
	}
	return 0;
}

static void
nvmf_worker_hand_back(struct nvmf_bdev *b, struct nvmf_req *req, int res)
{
	req->bdev_res = res;
	while (rte_ring_sp_enqueue(b->cq, req) != 0)
		usleep(NVMF_WORKER_IDLE_US);
}

static void *
nvmf_worker(void *arg)
{
	struct nvmf_bdev *b = arg;
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	void *batch[32];
	unsigned int inflight = 0;
	int rc;

	rc = io_uring_queue_init(NVMF_URING_DEPTH, &ring, 0);
	if (rc < 0) {
		NVMF_LOG(ERR, "io_uring: %s\n", strerror(-rc));
		return NULL;
	}
	while (!b->stop || inflight > 0) {
		unsigned int room = NVMF_URING_DEPTH - inflight;
		unsigned int n = rte_ring_sc_dequeue_burst(b->sq, batch,
			RTE_MIN(room, (unsigned int)RTE_DIM(batch)), NULL);

		for (unsigned int i = 0; i < n; i++) {
			struct nvmf_req *req = batch[i];
			struct io_uring_sqe *sqe;

			if (req->bdev_op == NVMF_BDEV_ZEROES ||
			    req->bdev_op == NVMF_BDEV_DEALLOC) {
				nvmf_worker_hand_back(b, req,
					nvmf_file_fallocate(b, req));
				continue;
			}
			sqe = io_uring_get_sqe(&ring);
			if (req->bdev_op == NVMF_BDEV_READ)
				io_uring_prep_read(sqe, b->fd, req->data,
						   (unsigned int)req->bdev_len,
						   req->bdev_off);
			else if (req->bdev_op == NVMF_BDEV_WRITE)
				io_uring_prep_write(sqe, b->fd, req->data,
						    (unsigned int)req->bdev_len,
						    req->bdev_off);
			else
				io_uring_prep_fsync(sqe, b->fd,
						    IORING_FSYNC_DATASYNC);
			io_uring_sqe_set_data(sqe, req);
			inflight++;
		}
		if (n > 0)
			io_uring_submit(&ring);
		while (inflight > 0 && io_uring_peek_cqe(&ring, &cqe) == 0) {
			struct nvmf_req *req = io_uring_cqe_get_data(cqe);
			int res = cqe->res;

			io_uring_cqe_seen(&ring, cqe);
			inflight--;
			/* A short transfer is an error: the namespace is
			 * never larger than its file. */
			if (res >= 0 && req->bdev_op != NVMF_BDEV_FLUSH &&
			    (uint64_t)res != req->bdev_len)
				res = -EIO;
			nvmf_worker_hand_back(b, req, res < 0 ? res : 0);
		}
		/* A controller shutting down: everything written so far
		 * reaches the file. */
		uint64_t want = __atomic_load_n(&b->sync_req, __ATOMIC_ACQUIRE);

		if (want != __atomic_load_n(&b->sync_done, __ATOMIC_RELAXED)) {
			if (fdatasync(b->fd) != 0)
				NVMF_LOG(ERR, "fdatasync: %s\n", strerror(errno));
			__atomic_store_n(&b->sync_done, want, __ATOMIC_RELEASE);
		}
		if (n == 0 && inflight == 0)
			usleep(NVMF_WORKER_IDLE_US);
		else if (n == 0)
			io_uring_wait_cqe_nr(&ring, &cqe, 1);
	}
	io_uring_queue_exit(&ring);
	return NULL;
}

static int
nvmf_file_open(struct nvmf_bdev *b, const struct ndk_nvmf_ns_config *cfg)
{
	char name[RTE_RING_NAMESIZE];
	static unsigned int seq;
	struct stat st;
	uint64_t size;

	if (cfg->path == NULL)
		return -EINVAL;
	b->fd = open(cfg->path, O_RDWR | O_CLOEXEC);
	if (b->fd < 0)
		return -errno;
	if (fstat(b->fd, &st) != 0)
		return -errno;
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(b->fd, BLKGETSIZE64, &size) != 0)
			return -errno;
	} else if (S_ISREG(st.st_mode)) {
		size = (uint64_t)st.st_size;
	} else {
		return -EINVAL;
	}
	if (cfg->size > size)
		return -EINVAL;
	b->size = cfg->size != 0 ? cfg->size : size;
	seq++;
	snprintf(name, sizeof(name), "nvmf_sq%u_%d", seq, (int)getpid());
	b->sq = rte_ring_create(name, NVMF_RING_SIZE, SOCKET_ID_ANY,
				RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "nvmf_cq%u_%d", seq, (int)getpid());
	b->cq = rte_ring_create(name, NVMF_RING_SIZE, SOCKET_ID_ANY,
				RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (b->sq == NULL || b->cq == NULL)
		return -ENOMEM;
	if (pthread_create(&b->thread, NULL, nvmf_worker, b) != 0)
		return -EAGAIN;
	b->running = true;
	return 0;
}

#endif /* NDK_NVMF_URING */

/* ------------------------------------------------------------------ */
/* Interface                                                           */
/* ------------------------------------------------------------------ */

void *
nvmf_bdev_mem(const struct nvmf_bdev *b, uint64_t *size)
{
	*size = b->size;
	return b->type == NDK_NVMF_NS_MEM ? b->mem : NULL;
}

int
nvmf_bdev_create(const struct ndk_nvmf_ns_config *cfg, int socket_id,
		 struct nvmf_bdev **out, uint64_t *size, bool *zeroes)
{
	struct nvmf_bdev *b;
	int rc = 0;

	b = rte_zmalloc_socket("nvmf_bdev", sizeof(*b), 64, socket_id);
	if (b == NULL)
		return -ENOMEM;
	b->type = cfg->type;
	b->fd = -1;
	switch (cfg->type) {
	case NDK_NVMF_NS_MEM:
		if (cfg->size == 0) {
			rc = -EINVAL;
			break;
		}
		b->size = cfg->size;
		b->mem = rte_zmalloc_socket("nvmf_ns_mem", cfg->size, 4096,
					    socket_id);
		if (b->mem == NULL)
			rc = -ENOMEM;
		*zeroes = true;
		break;
	case NDK_NVMF_NS_FILE:
#ifdef NDK_NVMF_URING
		rc = nvmf_file_open(b, cfg);
		*zeroes = false;
#else
		rc = -ENOTSUP;
#endif
		break;
	default:
		rc = -EINVAL;
		break;
	}
	if (rc != 0) {
		nvmf_bdev_destroy(b);
		return rc;
	}
	*size = b->size;
	*out = b;
	return 0;
}

void
nvmf_bdev_destroy(struct nvmf_bdev *b)
{
	if (b == NULL)
		return;
	if (b->running) {
		b->stop = true;
		pthread_join(b->thread, NULL);
	}
	rte_ring_free(b->sq);
	rte_ring_free(b->cq);
	if (b->fd >= 0)
		close(b->fd);
	rte_free(b->mem);
	rte_free(b);
}

void
nvmf_bdev_submit(struct nvmf_req *req, enum nvmf_bdev_op op, uint64_t off,
		 uint64_t len)
{
	struct nvmf_bdev *b = req->ns->bdev;

	req->bdev_op = (uint8_t)op;
	req->bdev_off = off;
	req->bdev_len = len;
	req->bdev_res = 0;
	req->in_backend = true;
	if (b->type == NDK_NVMF_NS_MEM) {
		nvmf_mem_submit(b, req);
		return;
	}
	if (rte_ring_sp_enqueue(b->sq, req) != 0) {
		req->in_backend = false;
		nvmf_req_complete_status(req, NVME_SCT_GENERIC,
					 NVME_SC_NAMESPACE_NOT_READY);
	}
}

uint64_t
nvmf_bdev_sync_request(struct nvmf_bdev *b)
{
	if (!b->running)
		return 0;       /* memory: nothing to write back */
	return __atomic_add_fetch(&b->sync_req, 1, __ATOMIC_RELEASE);
}

bool
nvmf_bdev_sync_done(struct nvmf_bdev *b, uint64_t ticket)
{
	return ticket == 0 ||
		__atomic_load_n(&b->sync_done, __ATOMIC_ACQUIRE) >= ticket;
}

unsigned int
nvmf_bdev_poll(struct ndk_nvmf_tgt *tgt)
{
	unsigned int total = 0;
	void *batch[32];

	for (uint32_t w = 0; w < tgt->nworkers; w++) {
		unsigned int n = rte_ring_sc_dequeue_burst(tgt->workers[w]->cq,
			batch, RTE_DIM(batch), NULL);

		for (unsigned int i = 0; i < n; i++) {
			struct nvmf_req *req = batch[i];

			nvmf_bdev_done(req, req->bdev_res);
		}
		total += n;
	}
	return total;
}
