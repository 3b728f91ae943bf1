/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Latency tests (ib_send_lat, ib_write_lat, ib_read_lat) on QP 0, one
 * message in flight, timestamps at every post:
 *
 *  - write_lat: ping-pong of RDMA WRITEs. Each side writes its source
 *    buffer into the peer's region with the last byte set to the
 *    iteration number, and spins on the last byte of its own region for
 *    the peer's (perftest's scheme, so either side may be perftest). The
 *    SERVER writes first (perftest's run_iter_lat_write: the server skips
 *    its first wait); both regions start zeroed. No closing handshake in
 *    perftest: a peer that just leaves is fine.
 *  - send_lat: ping-pong of SENDs into posted receives; a handshake once
 *    the receives are posted. The CLIENT sends first (run_iter_lat_send).
 *  - read_lat: the client READs back to back; the server only waits.
 *
 * SEND and WRITE report half the round trip, READ the whole of it.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_ndk.h"

/* Wait for one initiator completion. @return 0, -1 on error, 1 at END. */
static int
lat_wait_send(struct perf_ctx *c, struct perf_clock *k)
{
	struct ndk_result_ex r;

	for (;;) {
		if (ndk_get_cq_results_ex(c->scq, &r, 1) == 1) {
			if (r.status != NDK_STATUS_SUCCESS) {
				perf_ndk_bad_completion(c->p.server ?
					"server" : "client", &r);
				return -1;
			}
			return 0;
		}
		if (perf_poll(c) != 0)
			return -1;
		if (k != NULL && perf_clock_tick(k, rte_rdtsc()) ==
		    PERF_PHASE_END)
			return 1;
	}
}

static ndk_status_t
lat_post(struct perf_ctx *c, struct perf_qp *q, uint64_t size)
{
	struct ndk_sge sge = {
		.va = q->lbuf, .length = (uint32_t)size, .token = q->ltoken,
	};
	uint32_t flags = 0;

	if (c->p.verb != PERF_READ && size <= (uint64_t)c->p.inline_size)
		flags |= NDK_OP_FLAG_INLINE;
	switch (c->p.verb) {
	case PERF_SEND:
		return ndk_send(q->qp, NULL, &sge, 1, flags);
	case PERF_WRITE:
		return ndk_write(q->qp, NULL, &sge, 1, q->rem.vaddr,
				 q->rem.rkey, flags);
	default:
		return ndk_read(q->qp, NULL, &sge, 1, q->rem.vaddr,
				q->rem.rkey, flags);
	}
}

static int
lat_post_checked(struct perf_ctx *c, struct perf_qp *q, uint64_t size,
		 uint64_t scnt)
{
	ndk_status_t st = lat_post(c, q, size);

	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "Couldn't post send: scnt=%llu: %s\n",
			(unsigned long long)scnt, ndk_status_str(st));
		return -1;
	}
	return 0;
}

/*
 * Wait for the peer's message number @p rcnt: its WRITE's last byte, or a
 * receive completion. @return 0, -1 on error, 1 at END.
 */
static int
lat_wait_peer(struct perf_ctx *c, struct perf_qp *q, uint64_t size,
	      uint64_t rcnt, struct perf_clock *k)
{
	if (c->p.verb == PERF_WRITE) {
		volatile uint8_t *poll_buf = q->rbuf + size - 1;

		while (*poll_buf != (uint8_t)rcnt) {
			if (perf_poll(c) != 0)
				return -1;
			if (k != NULL && perf_clock_tick(k, rte_rdtsc()) ==
			    PERF_PHASE_END)
				return 1;
		}
		if (c->o->verify && size > 1)
			perf_verify_note(c, "WRITE", perf_check(q->rbuf, 0,
					 size - 1), size);
		return 0;
	}
	for (;;) {
		struct ndk_result_ex r;

		if (ndk_get_cq_results_ex(c->rcq, &r, 1) == 1) {
			if (r.status != NDK_STATUS_SUCCESS ||
			    r.bytes_transferred != size) {
				perf_ndk_bad_completion(c->p.server ?
					"server" : "client", &r);
				return -1;
			}
			if (c->o->verify)
				perf_verify_note(c, "SEND", perf_check(q->rbuf,
						 0, size), size);
			q->rcnt++;
			return 0;
		}
		if (perf_poll(c) != 0)
			return -1;
		if (k != NULL && perf_clock_tick(k, rte_rdtsc()) ==
		    PERF_PHASE_END)
			return 1;
	}
}

/* SEND and WRITE ping-pong of one size; prints its row. */
static int
lat_pingpong(struct perf_ctx *c, uint64_t size)
{
	const struct perf_params *p = &c->p;
	const bool dur = p->duration != 0;
	/*
	 * Who opens the ping-pong is perftest's choice, and differs: the
	 * client for SEND, the server for WRITE. Both sides waiting first
	 * would never move a byte.
	 */
	const bool first = p->verb == PERF_WRITE ? p->server : !p->server;
	const uint64_t iters = p->iters;
	struct perf_qp *q = &c->qps[0];
	volatile uint8_t *post_buf = q->lbuf + size - 1;
	uint64_t scnt = 0, ccnt = 0, rcnt = 0, counted = 0;
	struct perf_clock k, *kp = NULL;
	int rc = 0;

	if (dur) {
		perf_clock_start(c, &k);
		kp = &k;
	}
	while (dur ? k.phase != PERF_PHASE_END :
	       (scnt < iters || ccnt < iters || rcnt < iters)) {
		if ((dur || rcnt < iters) && !(scnt < 1 && first)) {
			rcnt++;
			rc = lat_wait_peer(c, q, size, rcnt, kp);
			if (rc != 0)
				break;
			if (p->verb == PERF_SEND &&
			    (dur || q->rcnt + p->rx_depth <= iters) &&
			    perf_post_recvs(c, q, size, 1) != 0)
				return -1;
		}
		if (dur || scnt < iters) {
			if (!dur)
				c->tposted[scnt] = rte_rdtsc();
			if (p->verb == PERF_WRITE)
				*post_buf = (uint8_t)(scnt + 1);
			if (lat_post_checked(c, q, size, scnt) != 0)
				return -1;
			scnt++;
		}
		if (dur || ccnt < iters) {
			rc = lat_wait_send(c, kp);
			if (rc != 0)
				break;
			ccnt++;
			if (dur && k.phase == PERF_PHASE_SAMPLE)
				counted++;
		}
	}
	/* The next size's source must hold the pattern where we counted. */
	if (p->verb == PERF_WRITE)
		perf_fill(q->lbuf, size - 1, 1);
	if (rc < 0)
		return -1;
	if (dur) {
		perf_print_lat_duration(p, k.t_stop - k.t_start, counted);
		return 0;
	}
	return perf_print_lat(p, c->tposted, iters);
}

/* READ client of one size; prints its row. */
static int
lat_read(struct perf_ctx *c, uint64_t size)
{
	const struct perf_params *p = &c->p;
	const bool dur = p->duration != 0;
	struct perf_qp *q = &c->qps[0];
	uint64_t scnt = 0, counted = 0;
	struct perf_clock k, *kp = NULL;
	int rc = 0;

	if (dur) {
		perf_clock_start(c, &k);
		kp = &k;
	}
	while (dur ? k.phase != PERF_PHASE_END : scnt < p->iters) {
		if (c->o->verify) {
			q->lbuf[0] = (uint8_t)~q->rbuf[0];
			q->lbuf[size - 1] = (uint8_t)~q->rbuf[size - 1];
		}
		if (!dur)
			c->tposted[scnt] = rte_rdtsc();
		if (lat_post_checked(c, q, size, scnt) != 0)
			return -1;
		scnt++;
		rc = lat_wait_send(c, kp);
		if (rc != 0)
			break;
		if (c->o->verify)
			perf_verify_note(c, "READ", perf_check(q->lbuf, 0,
					 size), size);
		if (dur && k.phase == PERF_PHASE_SAMPLE)
			counted++;
	}
	if (rc < 0)
		return -1;
	if (dur) {
		perf_print_lat_duration(p, k.t_stop - k.t_start, counted);
		return 0;
	}
	return perf_print_lat(p, c->tposted, p->iters);
}

int
perf_lat_run(struct perf_ctx *c)
{
	struct perf_params *p = &c->p;
	struct perf_qp *q0;
	uint64_t size;

	c->tposted = calloc(p->iters, sizeof(uint64_t));
	if (c->tposted == NULL) {
		fprintf(stderr, " Cannot Allocate\n");
		return -1;
	}
	c->tcap = p->iters;
	q0 = &c->qps[0];

	if (p->verb == PERF_READ && p->server) {
		/* The server serves READs until the client closes. */
		if (perf_xchg_finish(&c->x, &q0->my, perf_ndk_quiesce, c,
				     false) != 0)
			return -1;
		perf_print_line();
		return 0;
	}

	perf_print_result_header(p);
	for (size = perf_first_size(c); size != 0;
	     size = perf_next_size(c, size)) {
		p->size = size;
		if (p->verb == PERF_READ) {
			if (lat_read(c, size) != 0)
				return -1;
			continue;
		}
		if (p->verb == PERF_SEND) {
			uint64_t n = p->duration != 0 ? p->rx_depth :
				RTE_MIN((uint64_t)p->rx_depth, p->iters);

			q0->rcnt = 0;
			if (perf_post_recvs(c, q0, size, n) != 0 ||
			    perf_xchg_keys(&c->x, &q0->my, &q0->rem) != 0)
				return -1;
		}
		if (lat_pingpong(c, size) != 0)
			return -1;
	}

	switch (p->verb) {
	case PERF_READ:
		if (perf_xchg_finish(&c->x, &q0->my, perf_ndk_quiesce, c,
				     false) != 0)
			return -1;
		perf_print_line();
		return 0;
	case PERF_SEND:
		perf_print_line();
		return perf_xchg_finish(&c->x, &q0->my, perf_ndk_quiesce, c,
					false);
	default:
		/* perftest's write_lat has no closing handshake. */
		perf_print_line();
		return perf_xchg_finish(&c->x, &q0->my, perf_ndk_quiesce, c,
					true);
	}
}
