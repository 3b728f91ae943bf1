/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * ndk-nvmf-perf: open the adapter on a DPDK port, connect to the
 * controller, keep -q I/Os in flight on each I/O queue for -t seconds
 * (or -N I/Os), report. The main lcore polls everything.
 *
 * --verify: each unit of work is a write of a pattern (a function of the
 * chunk and a generation) followed by a read of the same chunk, compared
 * with what was written; no two tasks touch one chunk at once.
 */

#include <arpa/inet.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "ndk.h"
#include "ndk_app_xstats.h"
#include "nperf.h"

#define NP_LINK_S 20
#define NP_DRAIN_S 30
#define NP_LINGER_MS 500
#define NP_MAX_ERR_PRINT 5

/*
 * SIGINT or SIGTERM: the run ends as if its time were up (the I/Os in
 * flight complete, the results are printed), as spdk_nvme_perf and fio
 * do on an interrupt. The signal number, read by the poll loop.
 */
static volatile sig_atomic_t np_signal;

static void
np_on_signal(int sig)
{
	np_signal = sig;
}

struct np_ctx;

struct np_task {
	struct np_ctx *c;
	struct ndk_nvmf_qpair *qp;
	uint8_t *buf;
	uint64_t chunk;
	uint32_t gen;
	bool is_read;
	bool readback;           /* --verify: the read after the write */
	bool idle;               /* stopped by a lost connection */
	bool retry;              /* the queue was full: submit again */
	uint64_t tsc;
};

struct np_ctx {
	struct np_opts o;
	struct ndk_adapter *ad;
	struct ndk_nvmf_ctrlr *ctrlr;
	const struct ndk_nvmf_ctrlr_info *ci;
	struct ndk_nvmf_ns_info ns;
	struct np_task *tasks;
	uint32_t ntasks;
	uint8_t *bufs;           /* the tasks' buffers, one region */
	uint8_t *busy;           /* --verify: chunk in use */
	uint64_t nchunks;
	uint32_t blocks;         /* per I/O */
	uint64_t seq_next;
	uint64_t started;        /* I/O units started */
	bool stopping;
	bool failed;
	bool lost;               /* connection lost: reconnect when drained */
	uint32_t reconnects;
	uint64_t lost_ios;       /* units ended by a lost connection */
	uint64_t ns_per_tsc_q32; /* ns per cycle, 32.32 fixed point */
	uint64_t polls;          /* poll_all() calls in the run */
	uint64_t idle_polls;     /* of which found nothing to do */
	uint32_t nretry;         /* tasks to submit again (retry) */
	uint64_t retries;        /* submissions the queue refused */
	struct np_result r;
};

/* ------------------------------------------------------------------ */
/* Data pattern (--verify)                                             */
/* ------------------------------------------------------------------ */

static uint64_t
pat_word(uint64_t chunk, uint32_t gen, uint64_t i)
{
	uint64_t x = chunk * 0x9E3779B97F4A7C15ull ^
		((uint64_t)gen << 40) ^ (i * 0xBF58476D1CE4E5B9ull);

	x ^= x >> 31;
	x *= 0x94D049BB133111EBull;
	return x ^ (x >> 29);
}

static void
pat_fill(uint8_t *b, uint32_t len, uint64_t chunk, uint32_t gen)
{
	uint64_t *w = (uint64_t *)b;

	for (uint64_t i = 0; i < len / 8; i++)
		w[i] = pat_word(chunk, gen, i);
}

/* @return the first wrong byte offset, or -1. */
static int64_t
pat_check(const uint8_t *b, uint32_t len, uint64_t chunk, uint32_t gen)
{
	const uint64_t *w = (const uint64_t *)b;

	for (uint64_t i = 0; i < len / 8; i++)
		if (w[i] != pat_word(chunk, gen, i))
			return (int64_t)(i * 8);
	return -1;
}

/* ------------------------------------------------------------------ */
/* The workload                                                        */
/* ------------------------------------------------------------------ */

static bool
is_random(enum np_pattern p)
{
	return p == NP_RANDREAD || p == NP_RANDWRITE || p == NP_RANDRW;
}

static uint64_t
pick_chunk(struct np_ctx *c)
{
	uint64_t k;

	for (uint32_t tries = 0;; tries++) {
		if (is_random(c->o.pattern) || (c->o.verify && tries > 0 &&
						 tries % 64 == 0))
			k = rte_rand() % c->nchunks;
		else
			k = c->seq_next++ % c->nchunks;
		if (!c->o.verify || !c->busy[k])
			return k;
	}
}

static void task_done(void *arg, const struct ndk_nvmf_cpl *cpl);

static int
task_submit(struct np_task *t)
{
	struct np_ctx *c = t->c;
	uint64_t lba = t->chunk * c->blocks;
	int rc;

	if (!t->retry)
		t->tsc = rte_get_timer_cycles();
	t->retry = false;
	if (t->is_read)
		rc = ndk_nvmf_read(t->qp, c->ns.nsid, t->buf, lba, c->blocks,
				   task_done, t);
	else
		rc = ndk_nvmf_write(t->qp, c->ns.nsid, t->buf, lba,
				    c->blocks, task_done, t);
	if (rc == -EAGAIN) {
		/* The send queue is full (the controller has not acknowledged
		 * enough yet): again from the next poll. */
		t->retry = true;
		c->nretry++;
		c->retries++;
		return 0;
	}
	if (rc == -ENOTCONN && c->o.ctrl_loss_tmo_ms != 0) {
		/* The queue failed under us: wait for the reconnect. */
		c->lost = true;
		c->lost_ios++;
		t->idle = true;
		if (c->o.verify)
			c->busy[t->chunk] = 0;
	} else if (rc != 0) {
		fprintf(stderr, "submit %s at LBA %" PRIu64 ": %s\n",
			t->is_read ? "read" : "write", lba, strerror(-rc));
		c->failed = true;
	}
	return rc;
}

/* Start the task's next unit of work, unless the run is ending. */
static void
task_start(struct np_task *t)
{
	struct np_ctx *c = t->c;

	if (c->lost) {
		t->idle = true;
		return;
	}
	if (c->stopping || c->failed ||
	    (c->o.count != 0 && c->started >= c->o.count))
		return;
	c->started++;
	t->chunk = pick_chunk(c);
	if (c->o.verify) {
		c->busy[t->chunk] = 1;
		t->gen++;
		t->readback = false;
		t->is_read = false;
		pat_fill(t->buf, c->o.io_size, t->chunk, t->gen);
	} else {
		switch (c->o.pattern) {
		case NP_READ:
		case NP_RANDREAD:
			t->is_read = true;
			break;
		case NP_WRITE:
		case NP_RANDWRITE:
			t->is_read = false;
			break;
		default:
			t->is_read = rte_rand() % 100 < c->o.read_pct;
			break;
		}
	}
	task_submit(t);
}

static void
task_done(void *arg, const struct ndk_nvmf_cpl *cpl)
{
	struct np_task *t = arg;
	struct np_ctx *c = t->c;
	uint64_t d = rte_get_timer_cycles() - t->tsc;
	int k = t->is_read ? 0 : 1;
	int64_t bad;

	if (cpl->status != 0 && c->o.ctrl_loss_tmo_ms != 0 &&
	    ndk_nvmf_status_sct(cpl->status) == 3) {
		/* Path status: the connection is gone; the unit is dropped
		 * (a later one writes its chunk anew before reading it). */
		c->lost = true;
		c->lost_ios++;
		t->idle = true;
		if (c->o.verify)
			c->busy[t->chunk] = 0;
		return;
	}
	if (cpl->status != 0) {
		if (c->r.errors++ < NP_MAX_ERR_PRINT)
			fprintf(stderr, "%s of chunk %" PRIu64 " failed: "
				"SCT %#x SC %#x\n",
				t->is_read ? "read" : "write", t->chunk,
				ndk_nvmf_status_sct(cpl->status),
				ndk_nvmf_status_sc(cpl->status));
		c->failed = true;
		if (c->o.verify)
			c->busy[t->chunk] = 0;
		return;
	}
	c->r.ios[k]++;
	c->r.bytes[k] += c->o.io_size;
	np_hist_add(&c->r.lat[k], (d * c->ns_per_tsc_q32) >> 32);
	if (c->o.verify && !t->readback) {
		/* Written: read it back into a cleared buffer. */
		memset(t->buf, 0, c->o.io_size);
		t->readback = true;
		t->is_read = true;
		task_submit(t);
		return;
	}
	if (c->o.verify) {
		c->r.verified++;
		bad = pat_check(t->buf, c->o.io_size, t->chunk, t->gen);
		if (bad >= 0 && c->r.mismatches++ < NP_MAX_ERR_PRINT)
			fprintf(stderr, "verify: chunk %" PRIu64 " (LBA %"
				PRIu64 ") differs at byte %" PRId64 "\n",
				t->chunk, t->chunk * c->blocks, bad);
		c->busy[t->chunk] = 0;
	}
	task_start(t);
}

static uint32_t
outstanding(const struct np_ctx *c)
{
	uint32_t n = c->nretry;

	for (uint16_t i = 0; i < c->ci->num_io_queues; i++)
		n += ndk_nvmf_qpair_outstanding(
			ndk_nvmf_ctrlr_get_qpair(c->ctrlr, i));
	return n;
}

/* Submit again the tasks a full queue refused. */
static __rte_noinline void
np_retry(struct np_ctx *c)
{
	uint32_t n = c->nretry;

	c->nretry = 0;
	for (uint32_t i = 0; i < c->ntasks && n > 0; i++) {
		struct np_task *t = &c->tasks[i];

		if (!t->retry)
			continue;
		n--;
		if (c->lost || c->failed) {
			/* As a unit the lost connection ended (task_submit()). */
			t->retry = false;
			if (c->lost) {
				c->lost_ios++;
				t->idle = true;
				if (c->o.verify)
					c->busy[t->chunk] = 0;
			}
			continue;
		}
		task_submit(t);
	}
}

/* One poll of the adapter and every I/O queue; @return 0 if it found
 * nothing to do. */
static __rte_noinline unsigned int
poll_all(struct np_ctx *c)
{
	unsigned int work = ndk_adapter_poll(c->ad);

	for (uint16_t i = 0; i < c->ci->num_io_queues; i++) {
		int rc = ndk_nvmf_qpair_poll(ndk_nvmf_ctrlr_get_qpair(c->ctrlr,
								       i), 0);

		if (rc > 0)
			work += (unsigned int)rc;
		if (rc < 0 && !c->failed && !c->lost) {
			fprintf(stderr, "I/O queue %u failed\n", i + 1);
			if (c->o.ctrl_loss_tmo_ms != 0)
				c->lost = true;
			else
				c->failed = true;
		}
	}
	if (unlikely(c->nretry != 0))
		np_retry(c);
	c->polls++;
	c->idle_polls += work == 0;
	return work;
}

/*
 * With --stats, after the run: NP_IDLE_SAMPLE polls with nothing in
 * flight, and the polls of the run that found nothing. Under callgrind
 * (devtools/callgrind_nvmf.sh) these sample polls give the Ir of a poll
 * that finds nothing, so that the run's idle polls (the target
 * descheduled) can be taken out of its Ir per I/O.
 */
#define NP_IDLE_SAMPLE 2000
static __rte_noinline void
np_idle_sample(struct np_ctx *c)
{
	uint64_t polls = c->polls, idle = c->idle_polls;
	uint32_t found = 0;

	for (uint32_t i = 0; i < NP_IDLE_SAMPLE; i++)
		found += poll_all(c) != 0;
	printf("polls: %" PRIu64 " in the run, %" PRIu64 " of them idle; "
	       "idle sample %u polls, %u found work\n", polls, idle,
	       NP_IDLE_SAMPLE, found);
}

/* The connection is lost and nothing is outstanding: reconnect, give the
 * tasks the new queues, restart the ones the loss stopped. */
static int
np_reconnect(struct np_ctx *c)
{
	uint64_t t0 = rte_get_timer_cycles();
	uint16_t nq;
	int rc;

	printf("connection lost: reconnecting (every %u ms, for at most %u "
	       "ms)\n", c->o.reconnect_delay_ms, c->o.ctrl_loss_tmo_ms);
	fflush(stdout);
	rc = ndk_nvmf_ctrlr_reconnect(c->ctrlr);
	if (rc != 0) {
		fprintf(stderr, "reconnect: %s\n", strerror(-rc));
		return -1;
	}
	nq = c->ci->num_io_queues;
	printf("reconnected after %.1f s: controller %u, %u I/O queues\n",
	       (double)(rte_get_timer_cycles() - t0) / rte_get_timer_hz(),
	       c->ci->cntlid, nq);
	fflush(stdout);
	c->reconnects++;
	c->lost = false;
	for (uint32_t i = 0; i < c->ntasks; i++) {
		struct np_task *t = &c->tasks[i];

		t->qp = ndk_nvmf_ctrlr_get_qpair(c->ctrlr,
						 (uint16_t)(i % nq));
		if (t->idle) {
			t->idle = false;
			task_start(t);
		}
	}
	return 0;
}

static int
run(struct np_ctx *c)
{
	uint64_t hz = rte_get_timer_hz(), t0, end, now, next_admin = 0;
	uint64_t drain_end;

	c->ns_per_tsc_q32 = (uint64_t)((1e9 / (double)hz) * 4294967296.0);
	t0 = rte_get_timer_cycles();
	end = t0 + (uint64_t)c->o.seconds * hz;
	for (uint32_t i = 0; i < c->ntasks; i++)
		task_start(&c->tasks[i]);
	for (;;) {
		poll_all(c);
		now = rte_get_timer_cycles();
		if (now >= next_admin) {
			if (ndk_nvmf_ctrlr_process_admin(c->ctrlr) != 0 &&
			    !c->failed && !c->lost) {
				fprintf(stderr, "the admin queue failed\n");
				if (c->o.ctrl_loss_tmo_ms != 0)
					c->lost = true;
				else
					c->failed = true;
			}
			next_admin = now + hz / 1000;
		}
		if (c->lost && !c->failed && outstanding(c) == 0 &&
		    np_reconnect(c) != 0)
			c->failed = true;
		if (c->o.count == 0 && now >= end)
			c->stopping = true;
		if (np_signal != 0 && !c->stopping) {
			printf("stopped by signal %d after %.1f s\n",
			       (int)np_signal, (double)(now - t0) / (double)hz);
			fflush(stdout);
			c->stopping = true;
		}
		if (outstanding(c) == 0 &&
		    (c->stopping || c->failed || c->o.count != 0))
			break;
		if (c->failed && !c->stopping) {
			c->stopping = true;
		}
	}
	c->r.seconds = (double)(rte_get_timer_cycles() - t0) / (double)hz;
	/* Nothing may stay in flight when the controller closes. */
	drain_end = rte_get_timer_cycles() + NP_DRAIN_S * hz;
	while (outstanding(c) != 0 && rte_get_timer_cycles() < drain_end)
		poll_all(c);
	if (c->o.stats && !c->failed && !c->lost)
		np_idle_sample(c);
	for (uint16_t i = 0; i < c->ci->num_io_queues; i++) {
		struct ndk_nvmf_qpair_stats s;

		ndk_nvmf_qpair_get_stats(ndk_nvmf_ctrlr_get_qpair(c->ctrlr, i),
					 &s);
		c->r.qs.submitted += s.submitted;
		c->r.qs.completed += s.completed;
		c->r.qs.errors += s.errors;
		c->r.qs.in_capsule += s.in_capsule;
		c->r.qs.in_capsule_direct += s.in_capsule_direct;
		c->r.qs.keyed_region += s.keyed_region;
		c->r.qs.keyed += s.keyed;
		c->r.qs.remote_invalidations += s.remote_invalidations;
		c->r.qs.local_invalidations += s.local_invalidations;
		c->r.qs.bad_responses += s.bad_responses;
		c->r.qs.timeouts += s.timeouts;
		printf("queue %u: submitted %" PRIu64 ", completed %" PRIu64
		       ", errors %" PRIu64 "\n", i + 1, s.submitted,
		       s.completed, s.errors);
	}
	if (c->o.ctrl_loss_tmo_ms != 0)
		printf("reconnects %u, units ended by a lost connection %"
		       PRIu64 "\n", c->reconnects, c->lost_ios);
	if (c->retries != 0)
		printf("submissions refused by a full queue and made again: %"
		       PRIu64 "\n", c->retries);
	return c->failed || c->lost || c->r.mismatches != 0 ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* Set-up                                                              */
/* ------------------------------------------------------------------ */

static int
np_wait_link(uint16_t port)
{
	struct rte_eth_link link;

	for (int i = 0; i < NP_LINK_S * 100; i++) {
		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(port, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_UP)
			return 0;
		rte_delay_us_sleep(10000);
	}
	fprintf(stderr, "port %u: link down after %d s\n", port, NP_LINK_S);
	return -1;
}

static int
np_connect(struct np_ctx *c)
{
	struct ndk_nvmf_host_opts ho;
	char addr[INET_ADDRSTRLEN];
	int rc;

	ndk_nvmf_host_opts_init(&ho);
	ho.traddr = c->o.traddr;
	ho.trsvcid = c->o.trsvcid;
	memcpy(ho.subnqn, c->o.subnqn, sizeof(ho.subnqn));
	if (c->o.hostnqn[0] != '\0')
		memcpy(ho.hostnqn, c->o.hostnqn, sizeof(ho.hostnqn));
	ho.num_io_queues = c->o.queues;
	ho.io_queue_size = (uint16_t)RTE_MAX(c->o.qd + 1, 32u);
	ho.max_io_size = c->o.io_size;
	ho.kato_ms = c->o.kato_ms;
	ho.reconnect_delay_ms = c->o.reconnect_delay_ms;
	ho.ctrl_loss_tmo_ms = c->o.ctrl_loss_tmo_ms;
	ho.no_in_capsule = c->o.no_icd;
	ho.poll_adapter = true;
	inet_ntop(AF_INET, &c->o.traddr, addr, sizeof(addr));
	rc = ndk_nvmf_ctrlr_connect(c->ad, &ho, &c->ctrlr);
	if (rc != 0) {
		fprintf(stderr, "connect to %s:%u %s: %s\n", addr,
			c->o.trsvcid, c->o.subnqn, strerror(-rc));
		c->ctrlr = NULL;
		return -1;
	}
	c->ci = ndk_nvmf_ctrlr_get_info(c->ctrlr);
	if (np_events_start(c->ctrlr) != 0)
		return -1;
	printf("controller %u at %s:%u: %s, model '%s', serial '%s', "
	       "firmware '%s', VS %u.%u\n", c->ci->cntlid, addr, c->o.trsvcid,
	       c->ci->subnqn, c->ci->mn, c->ci->sn, c->ci->fr,
	       c->ci->vs >> 16, (c->ci->vs >> 8) & 0xFF);
	printf("  %u I/O queues of depth %u, IOCCSZ %u B (in-capsule up to "
	       "%u B), max I/O %u B, host NQN %s\n", c->ci->num_io_queues,
	       c->ci->io_queue_depth, c->ci->ioccsz, c->ci->in_capsule_max,
	       c->ci->max_io_size, ho.hostnqn);
	for (uint32_t i = 0; i < c->ci->num_ns; i++) {
		const struct ndk_nvmf_ns_info *n = &c->ci->ns[i];

		printf("  namespace %u: %" PRIu64 " blocks of %u B\n", n->nsid,
		       n->nsze, n->block_size);
		if ((c->o.nsid == 0 && i == 0) || n->nsid == c->o.nsid)
			c->ns = *n;
	}
	if (c->ns.nsid == 0) {
		fprintf(stderr, "no namespace %u\n", c->o.nsid);
		return -1;
	}
	return 0;
}

static int
np_setup(struct np_ctx *c)
{
	uint64_t bytes = c->ns.nsze * c->ns.block_size;
	uint32_t qd, stride;

	if (c->o.io_size % c->ns.block_size != 0 ||
	    c->o.io_size > c->ci->max_io_size) {
		fprintf(stderr, "-o %u: not a multiple of %u or above the "
			"largest I/O %u\n", c->o.io_size, c->ns.block_size,
			c->ci->max_io_size);
		return -1;
	}
	if (c->o.range != 0 && c->o.range < bytes)
		bytes = c->o.range;
	c->blocks = c->o.io_size / c->ns.block_size;
	c->nchunks = bytes / c->o.io_size;
	qd = RTE_MIN(c->o.qd, (uint32_t)c->ci->io_queue_depth);
	c->ntasks = qd * c->ci->num_io_queues;
	if (c->nchunks == 0 || (c->o.verify && c->nchunks < c->ntasks * 2)) {
		fprintf(stderr, "the range holds %" PRIu64 " I/Os of %u B: "
			"too few for %u in flight\n", c->nchunks,
			c->o.io_size, c->ntasks);
		return -1;
	}
	c->tasks = rte_zmalloc("np_tasks", c->ntasks * sizeof(*c->tasks), 64);
	c->busy = c->o.verify ? calloc(c->nchunks, 1) : NULL;
	if (c->tasks == NULL || (c->o.verify && c->busy == NULL))
		return -1;
	stride = RTE_ALIGN_CEIL(c->o.io_size, (uint32_t)NDK_PAGE_SIZE);
	c->bufs = rte_malloc("np_bufs", (size_t)c->ntasks * stride,
			     NDK_PAGE_SIZE);
	if (c->bufs == NULL)
		return -1;
	/* Registered: in-capsule writes go out of the buffers themselves. */
	if (!c->o.no_register) {
		int rc = ndk_nvmf_ctrlr_register_buffers(c->ctrlr, c->bufs,
			(size_t)c->ntasks * stride, c->o.region_key ?
			NDK_NVMF_BUF_REMOTE : 0);

		if (rc != 0)
			fprintf(stderr, "register buffers: %s (in-capsule "
				"data copied)\n", strerror(-rc));
	}
	for (uint32_t i = 0; i < c->ntasks; i++) {
		struct np_task *t = &c->tasks[i];

		t->c = c;
		t->qp = ndk_nvmf_ctrlr_get_qpair(c->ctrlr, (uint16_t)(i / qd));
		t->buf = c->bufs + (size_t)i * stride;
		pat_fill(t->buf, c->o.io_size, i, 0);
	}
	printf("workload: %s%s, %u B, queue depth %u x %u queues, %s, "
	       "namespace %u, %" PRIu64 " I/O slots\n",
	       c->o.verify ? "verify (write, read back, compare), " : "",
	       c->o.verify ? (is_random(c->o.pattern) ? "random" :
			      "sequential") : np_pattern_name(c->o.pattern),
	       c->o.io_size, qd, c->ci->num_io_queues,
	       c->o.count != 0 ? "I/O count" : "timed", c->ns.nsid,
	       c->nchunks);
	fflush(stdout);
	return 0;
}

/* --discover: the discovery log page, one line per entry. */
static int
np_discover(struct np_ctx *c)
{
	static const char *const tr[] = { [1] = "rdma", [2] = "fc",
					  [3] = "tcp" };
	static const char *const af[] = { [1] = "ipv4", [2] = "ipv6",
					  [3] = "ib", [4] = "fc" };
	static const char *const st[] = { [1] = "referral", [2] = "nvme",
					  [3] = "current discovery" };
	struct ndk_nvmf_disc_entry e[NP_DISC_MAX];
	struct ndk_nvmf_host_opts ho;
	char addr[INET_ADDRSTRLEN];
	uint64_t gen = 0;
	uint32_t num = 0;
	int rc;

	ndk_nvmf_host_opts_init(&ho);
	ho.traddr = c->o.traddr;
	ho.trsvcid = c->o.trsvcid;
	if (c->o.hostnqn[0] != '\0')
		memcpy(ho.hostnqn, c->o.hostnqn, sizeof(ho.hostnqn));
	ho.kato_ms = c->o.kato_ms;
	ho.poll_adapter = true;
	inet_ntop(AF_INET, &c->o.traddr, addr, sizeof(addr));
	rc = ndk_nvmf_discover(c->ad, &ho, e, RTE_DIM(e), &num, &gen);
	if (rc != 0) {
		fprintf(stderr, "discover at %s:%u: %s\n", addr, c->o.trsvcid,
			strerror(-rc));
		return -1;
	}
	printf("discovery log at %s:%u: generation %" PRIu64 ", %u "
	       "records\n", addr, c->o.trsvcid, gen, num);
	for (uint32_t i = 0; i < RTE_MIN(num, (uint32_t)RTE_DIM(e)); i++)
		printf("entry %u: trtype %s adrfam %s subtype %s portid %u "
		       "cntlid %#x asqsz %u traddr %s trsvcid %s subnqn %s\n",
		       i, e[i].trtype < RTE_DIM(tr) && tr[e[i].trtype] ?
		       tr[e[i].trtype] : "?",
		       e[i].adrfam < RTE_DIM(af) && af[e[i].adrfam] ?
		       af[e[i].adrfam] : "?",
		       e[i].subtype < RTE_DIM(st) && st[e[i].subtype] ?
		       st[e[i].subtype] : "?",
		       e[i].portid, e[i].cntlid, e[i].asqsz, e[i].traddr,
		       e[i].trsvcid, e[i].subnqn);
	if (num > RTE_DIM(e))
		printf("(%u more not shown)\n", num - (uint32_t)RTE_DIM(e));
	return 0;
}

static void
np_teardown(struct np_ctx *c)
{
	if (c->ctrlr != NULL) {
		int rc = ndk_nvmf_ctrlr_close(c->ctrlr);

		if (rc != 0)
			fprintf(stderr, "close: %s\n", strerror(-rc));
		else
			printf("disconnected (controller shut down)\n");
	}
	np_events_stop();
	rte_free(c->tasks);
	rte_free(c->bufs);
	free(c->busy);
	if (c->ad != NULL && c->o.stats)
		ndk_app_print_xstats(stdout, c->ad, "adapter counters "
				     "(non-zero):", "  ", 28, 12, false);
	if (c->ad != NULL) {
		rte_delay_us_sleep(NP_LINGER_MS * 1000);
		ndk_adapter_close(c->ad);
	}
}

int
main(int argc, char **argv)
{
	static struct np_ctx c;
	struct ndk_adapter_config cfg = { .configure_port = true,
					  .socket_id = SOCKET_ID_ANY };
	ndk_status_t st;
	int n, rc;

	n = rte_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "ndk-nvmf-perf: EAL init failed\n");
		return 1;
	}
	argv[n] = argv[0];
	rc = np_parse_args(argc - n, argv + n, &c.o);
	if (rc != 0) {
		rte_eal_cleanup();
		return rc == 2 ? 0 : 1;
	}
	cfg.port_id = c.o.port_id;
	cfg.ipv4 = c.o.ipv4;
	cfg.max_path_mtu = c.o.mtu;
	st = ndk_adapter_open(&cfg, &c.ad);
	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "open adapter on port %u: %s\n", c.o.port_id,
			ndk_status_str(st));
		c.ad = NULL;
		rc = -1;
	}
	if (rc == 0 && c.o.strict_rto &&
	    ndk_adapter_set_adaptive_rto(c.ad, false, 0) != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "--strict-timeout: not supported here\n");
		rc = -1;
	}
	if (rc == 0)
		rc = np_wait_link(c.o.port_id);
	if (rc == 0 && c.o.discover) {
		rc = np_discover(&c);
		np_teardown(&c);
		rte_eal_cleanup();
		return rc == 0 ? 0 : 1;
	}
	if (rc == 0)
		rc = np_connect(&c);
	if (rc == 0)
		rc = np_setup(&c);
	if (rc == 0) {
		signal(SIGINT, np_on_signal);
		signal(SIGTERM, np_on_signal);
		rc = run(&c);
		np_report(&c.o, c.ci, &c.ns, &c.r);
	}
	np_teardown(&c);
	rte_eal_cleanup();
	return rc == 0 ? 0 : 1;
}
