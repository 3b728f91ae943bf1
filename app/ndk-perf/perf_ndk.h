/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef PERF_NDK_H
#define PERF_NDK_H

/**
 * @file
 * ndk-perf's NDK engine: one adapter, its PD, CQs, QPs and registered
 * buffers (perf_ndk.c), and the test families that drive them
 * (perf_bw.c, perf_lat.c), and the raw-ethdev baseline on the same port
 * (perf_raw.c), which runs before anything polls the adapter.
 */

#include <rte_cycles.h>

#include "ndk.h"
#include "ndk_netem.h"
#include "ndk_netem_queue.h"
#include "perf.h"

/** One QP and its buffer: [local half | remote half]. */
struct perf_qp {
	struct ndk_qp *qp;
	struct ndk_mr *mr;
	uint8_t *mem;             /**< the allocation, both halves */
	uint8_t *lbuf;            /**< sources, READ sinks */
	uint8_t *rbuf;            /**< what the peer writes, reads, sends to */
	uint32_t ltoken;          /**< local token of the whole region */
	struct perf_dest my;      /**< what we tell the peer */
	struct perf_dest rem;     /**< what the peer told us */
	uint64_t scnt;            /**< requests posted */
	uint64_t ccnt;            /**< requests known complete */
	uint64_t rcnt;            /**< receives completed */
	uint64_t rposted;         /**< receives posted (this size) */
	uint32_t sig_left;        /**< requests until the next signaled one */
	uint32_t rpend;           /**< receives to post again (SEND server) */
};

struct perf_cm;

/** Pollers: one per worker lcore, each over a share of the queues. */
#define PERF_MAX_POLLERS 16

/** Everything a run needs. */
struct perf_ctx {
	const struct perf_opts *o;
	struct perf_params p;
	struct perf_xchg x;
	struct ndk_adapter *ad;
	struct ndk_adapter_info info;
	struct rte_mempool *pool; /**< packet buffers, kept until EAL cleanup */
	struct ndk_poller *poller[PERF_MAX_POLLERS]; /**< one per lcore */
	unsigned int n_pollers;
	bool inline_poll;         /**< no poller: the test loops poll */
	bool attached;            /**< a secondary of ndk-roced (attach) */
	uint64_t polls;           /**< perf_poll() calls */
	struct ndk_pd *pd;
	struct ndk_cq *scq;       /**< initiator completions, all QPs */
	struct ndk_cq *rcq;       /**< receive completions, all QPs */
	struct ndk_srq *srq;      /**< --use_srq: every QP's receives */
	struct perf_qp *qps;
	size_t half;              /**< bytes of each buffer half */
	uint64_t *tposted;        /**< send timestamps */
	uint64_t *tcompleted;     /**< completion timestamps */
	uint64_t tcap;            /**< entries of each */
	uint64_t verify_checks;
	uint64_t verify_errors;
	struct ndk_netem *netem;  /**< --loss on our RX queue */
	struct ndk_netem_queue *bneck; /**< --bottleneck on our RX queue */
	struct perf_cm *cm;       /**< -R: the CM side (perf_cm.c) */
	struct perf_row raw_row;  /**< our raw baseline row (seq 0: none) */
};

/* --- perf_ndk.c: the adapter and its objects --- */

/** Open the adapter on o->port_id (its port configured and started). */
int perf_ndk_open(struct perf_ctx *c);

/**
 * Start polling the adapter: a poller on the first worker lcore if there
 * is one, else the test loops poll it; attach --loss's impairment first.
 * @return 0 or -1 (printed).
 */
int perf_ndk_poll_start(struct perf_ctx *c);

/** Default path MTU from the port MTU (rxe's rule: the largest that fits). */
unsigned int perf_ndk_port_mtu(const struct perf_ctx *c);

/** Wait up to 10 s for the link to come up. @return 0 or -1 (printed). */
int perf_ndk_wait_link(const struct perf_ctx *c);

/**
 * After the peer stopped its port: on net_memif wait (at most
 * @p timeout_ms) for our side of the link to be torn down before we
 * stop ours.
 */
void perf_ndk_wait_peer_stop(const struct perf_ctx *c, int timeout_ms);

/** PD, CQs, QPs, buffers; fills each QP's "my" destination. */
int perf_ndk_resources(struct perf_ctx *c);

/** Move every QP to RTS towards its "rem" destination. */
int perf_ndk_connect(struct perf_ctx *c);

/**
 * Replace QP @p i by a new one (same queues and limits; -R, after the
 * peer refused a connection on it). @return 0 or -1 (printed).
 */
int perf_ndk_qp_renew(struct perf_ctx *c, unsigned int i);

/* --- perf_cm.c: -R, perftest's rdma_cm mode --- */

/**
 * Set up the exchange's own RC connection through the CM (the client
 * connects to the server address's -p port, the server listens there) and
 * route c->x's messages over it. The adapter must be polled already.
 * @return 0 or -1 (printed).
 */
int perf_cm_open(struct perf_ctx *c);

/**
 * Connect the test QPs through the CM (create_rdma_cm_connection: a
 * handshake, a connection per QP, a handshake). @return 0 or -1.
 */
int perf_cm_connect_qps(struct perf_ctx *c);

/**
 * The orderly end: the client disconnects the test QPs and then the
 * exchange's connection; the server waits (5 s at most) for the latter.
 */
void perf_cm_end(struct perf_ctx *c);

/** Close the connectors, listener and the exchange's objects. */
void perf_cm_close(struct perf_ctx *c);

/** Stop polling the adapter (the poller, or the loops' inline polls). */
void perf_ndk_quiesce(void *ctx);

/** Idle callback of the exchange: poll when nobody else does. */
void perf_ndk_idle(void *ctx);

/** Print the non-zero adapter counters. */
void perf_ndk_print_stats(const struct perf_ctx *c);

/** Close everything (poller first, then objects, then the adapter). */
void perf_ndk_close(struct perf_ctx *c);

/** perf_poll() calls between two looks at an attached adapter's health. */
#define PERF_HEALTH_EVERY 4096

/**
 * An attached adapter's health: -1 (said once on stderr) when the daemon
 * has stopped or died, for nothing will complete any more; else 0.
 */
int perf_ndk_removed(struct perf_ctx *c);

/**
 * Drive the adapter once from a test loop, unless a poller does; every
 * PERF_HEALTH_EVERY calls, look at an attached adapter's health.
 * @return 0, or -1 once the adapter is removed (perf_ndk_removed()).
 */
static inline int
perf_poll(struct perf_ctx *c)
{
	if (c->inline_poll)
		ndk_adapter_poll(c->ad);
	if (c->attached && ++c->polls % PERF_HEALTH_EVERY == 0)
		return perf_ndk_removed(c);
	return 0;
}

/** Describe a failed completion on stderr. */
void perf_ndk_bad_completion(const char *where,
			     const struct ndk_result_ex *r);

/* --- data patterns for --verify (byte k of any buffer: a function of k) --- */

/** Fill @p len bytes of @p base from offset @p off with the pattern. */
void perf_fill(uint8_t *base, size_t off, size_t len);

/** @return -1 if bytes off..off+len-1 hold the pattern, else the bad offset. */
long perf_check(const uint8_t *base, size_t off, size_t len);

/** Count one verification and report a mismatch once per run. */
void perf_verify_note(struct perf_ctx *c, const char *what, long bad,
		      uint64_t size);

/* --- the families: everything after the QPs are connected --- */

/** send_bw, write_bw, read_bw. @return 0 or -1. */
int perf_bw_run(struct perf_ctx *c);

/** send_lat, write_lat, read_lat. @return 0 or -1. */
int perf_lat_run(struct perf_ctx *c);

/**
 * --raw, --raw-baseline (perf_raw.c): agree on the raw mode with the peer,
 * run it on the adapter's port (nobody polls the adapter yet), print its
 * row and keep it in c->raw_row. @return 0 or -1 (printed).
 */
int perf_raw_run(struct perf_ctx *c);

/** --raw-baseline: the ratio of the last row printed to c->raw_row. */
void perf_raw_print_ratio(const struct perf_ctx *c);

/* --- helpers shared by the families (perf_ndk.c) --- */

/** Post @p n receives of @p size bytes on QP @p q (into its rbuf). */
int perf_post_recvs(struct perf_ctx *c, struct perf_qp *q, uint64_t size,
		    uint64_t n);

/** Duration phases, as perftest's alarm states. */
enum perf_phase {
	PERF_PHASE_WARMUP,
	PERF_PHASE_SAMPLE,
	PERF_PHASE_COOLDOWN,
	PERF_PHASE_END,
};

/** Duration clock: phase boundaries in TSC ticks. */
struct perf_clock {
	uint64_t sample_start;
	uint64_t sample_end;
	uint64_t end;
	enum perf_phase phase;
	uint64_t t_start;         /**< when SAMPLE began */
	uint64_t t_stop;          /**< when SAMPLE ended */
};

/** Start the clock now for a -D run. */
void perf_clock_start(const struct perf_ctx *c, struct perf_clock *k);

/** Advance the phase at @p now; @return the current phase. */
static inline enum perf_phase
perf_clock_tick(struct perf_clock *k, uint64_t now)
{
	if (k->phase == PERF_PHASE_WARMUP && now >= k->sample_start) {
		k->phase = PERF_PHASE_SAMPLE;
		k->t_start = now;
	}
	if (k->phase == PERF_PHASE_SAMPLE && now >= k->sample_end) {
		k->phase = PERF_PHASE_COOLDOWN;
		k->t_stop = now;
	}
	if (k->phase == PERF_PHASE_COOLDOWN && now >= k->end)
		k->phase = PERF_PHASE_END;
	return k->phase;
}

/** Message sizes of the run: -s, or 2 .. 2^23 with -a. */
static inline uint64_t
perf_first_size(const struct perf_ctx *c)
{
	return c->p.all_sizes ? 2 : c->p.size;
}

static inline uint64_t
perf_next_size(const struct perf_ctx *c, uint64_t size)
{
	return c->p.all_sizes && size < PERF_MAX_SIZE ? size * 2 : 0;
}

#endif /* PERF_NDK_H */
