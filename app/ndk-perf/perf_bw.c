/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Bandwidth tests (ib_send_bw, ib_write_bw, ib_read_bw): the client keeps
 * up to tx_depth requests outstanding per QP, posted in lists of post_list
 * (-l: DEFER on all but the last of a list, one doorbell per list), one
 * completion per cq_mod of them (the others SILENT_SUCCESS), and
 * timestamps every post and every completion point for the average and
 * peak bandwidth. The SEND server keeps rx_depth receives posted (posting
 * a burst of completions' receives again at once) and times first to last
 * receive.
 *
 * After the run, as perftest 4.5 does:
 *  - WRITE/READ: the server only waits: one handshake when the client is
 *    done, the client's report comes over (the server prints it), then
 *    the closing handshake;
 *  - SEND: both print their own result; with -a a handshake before and
 *    after each size.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_ndk.h"

#define BW_BURST 64
/* request_context of a signaled request: QP index and its post count. */
#define BW_CTX_SHIFT 40
#define BW_CTX_MASK ((1ull << BW_CTX_SHIFT) - 1)

static ndk_status_t
bw_post(struct perf_ctx *c, struct perf_qp *q, uint64_t size, unsigned int qi,
	uint32_t flags)
{
	struct ndk_sge sge = {
		.va = q->lbuf, .length = (uint32_t)size, .token = q->ltoken,
	};
	void *ctx = (void *)(uintptr_t)(((uint64_t)qi << BW_CTX_SHIFT) |
					 (q->scnt + 1));

	switch (c->p.verb) {
	case PERF_SEND:
		return ndk_send(q->qp, ctx, &sge, 1, flags);
	case PERF_WRITE:
		return ndk_write(q->qp, ctx, &sge, 1, q->rem.vaddr,
				 q->rem.rkey, flags);
	default:
		return ndk_read(q->qp, ctx, &sge, 1, q->rem.vaddr,
				q->rem.rkey, flags);
	}
}

/*
 * Post whole lists of p->post_list requests on QP @p qi while they fit
 * in its tx_depth: each list is one chain, every request but the last
 * with DEFER (one doorbell per list). One request in cq_mod is signaled
 * (a countdown, no division), and the very last of an iterations run.
 * @return 0 when the QP has no room left (a completion will give it room),
 *   1 when the provider refused a post (queue full: try again next pass),
 *   or -1 on a post error (printed).
 */
static int
bw_post_lists(struct perf_ctx *c, unsigned int qi, uint64_t size,
	      uint64_t *totscnt)
{
	const struct perf_params *p = &c->p;
	const bool dur = p->duration != 0;
	const uint64_t iters = p->iters;
	const unsigned int list = p->post_list;
	struct perf_qp *q = &c->qps[qi];
	uint32_t base = NDK_OP_FLAG_SILENT_SUCCESS;

	if (p->verb != PERF_READ && size <= (uint64_t)p->inline_size)
		base |= NDK_OP_FLAG_INLINE;
	while ((dur || q->scnt < iters) &&
	       q->scnt - q->ccnt + list <= p->tx_depth) {
		for (unsigned int k = 0; k < list && (dur || q->scnt < iters);
		     k++) {
			uint32_t flags = base;
			ndk_status_t st;

			if (q->sig_left == 1 || (!dur && q->scnt + 1 == iters))
				flags &= ~NDK_OP_FLAG_SILENT_SUCCESS;
			if (k + 1 < list)
				flags |= NDK_OP_FLAG_DEFER;
			if (!dur)
				c->tposted[*totscnt] = rte_rdtsc();
			st = bw_post(c, q, size, qi, flags);
			/* A failed post released the chain's first part. */
			if (st == NDK_STATUS_NO_MORE_ENTRIES)
				return 1;
			if (st != NDK_STATUS_SUCCESS) {
				fprintf(stderr, "Couldn't post send: qp %u "
					"scnt=%llu: %s\n", qi,
					(unsigned long long)q->scnt,
					ndk_status_str(st));
				return -1;
			}
			if (--q->sig_left == 0)
				q->sig_left = p->cq_mod;
			q->scnt++;
			(*totscnt)++;
		}
	}
	return 0;
}

/*
 * Take a burst of receive completions of @p size (SEND receiver, and a
 * bidirectional SEND side), check them, count them (in @p counted too
 * while @p k samples) and post their receives again, QP by QP, in one go.
 * @return the completions taken, or -1 on a failed one (printed).
 */
static int
bw_recv_burst(struct perf_ctx *c, uint64_t size, const struct perf_clock *k,
	      uint64_t *rcnt, uint64_t *counted)
{
	const struct perf_params *p = &c->p;
	const bool dur = p->duration != 0;
	struct ndk_result_ex r[BW_BURST];
	struct perf_qp *touched[BW_BURST];
	uint32_t n = ndk_get_cq_results_ex(c->rcq, r, BW_BURST);
	unsigned int nt = 0;

	for (uint32_t j = 0; j < n; j++) {
		struct perf_qp *q = &c->qps[(uintptr_t)r[j].qp_context];

		if (r[j].status != NDK_STATUS_SUCCESS) {
			perf_ndk_bad_completion(p->server ? "server" :
						"client", &r[j]);
			return -1;
		}
		if (r[j].bytes_transferred != size) {
			fprintf(stderr, " Received %u bytes, expected %llu\n",
				r[j].bytes_transferred,
				(unsigned long long)size);
			return -1;
		}
		if (c->o->verify)
			perf_verify_note(c, "SEND", perf_check(q->rbuf, 0,
					 size), size);
		q->rcnt++;
		(*rcnt)++;
		if (dur && k->phase == PERF_PHASE_SAMPLE)
			(*counted)++;
		if (q->rpend++ == 0)
			touched[nt++] = q;
	}
	for (unsigned int t = 0; t < nt; t++) {
		struct perf_qp *q = touched[t];
		uint64_t m = q->rpend;

		q->rpend = 0;
		if (!dur)
			m = RTE_MIN(m, p->iters - q->rposted);
		if (m != 0 && perf_post_recvs(c, q, size, m) != 0)
			return -1;
	}
	return (int)n;
}

/*
 * Initiator side of one size (the client; both sides with -b). Fills
 * *rep. A bidirectional SEND side also takes the peer's SENDs into its
 * receives, and its server starts sending at the first one (perftest's
 * run_iter_bi: the server must not send before the client runs).
 */
static int
bw_run_client(struct perf_ctx *c, uint64_t size, struct perf_bw_rep *rep)
{
	const struct perf_params *p = &c->p;
	const bool dur = p->duration != 0;
	const bool bisend = p->duplex && p->verb == PERF_SEND;
	const uint64_t iters = p->iters;
	const uint64_t tot = dur ? 0 : iters * p->num_qps;
	struct ndk_result_ex r[BW_BURST];
	uint64_t totscnt = 0, totccnt = 0, counted = 0;
	uint64_t rcnt = 0, rcounted = 0;
	bool may_post = !(bisend && p->server);
	struct perf_clock k;
	bool done = false;
	/*
	 * The QPs that may have room to post: all at first, then those a
	 * completion gave room (or the provider refused, full). Visiting
	 * only those keeps the loop's cost per operation, not per QP: with
	 * 4,096 QPs a pass over all of them touched 8,192 cache lines.
	 */
	uint32_t *ready = malloc(p->num_qps * (sizeof(*ready) + 1));
	uint8_t *listed = (uint8_t *)(ready + p->num_qps);
	uint32_t n_ready = p->num_qps;
	int rc = -1;

	if (ready == NULL) {
		fprintf(stderr, "Out of memory\n");
		return -1;
	}
	for (unsigned int i = 0; i < p->num_qps; i++) {
		c->qps[i].scnt = c->qps[i].ccnt = 0;
		c->qps[i].sig_left = p->cq_mod;
		ready[i] = i;
		listed[i] = 1;
	}
	if (p->verb == PERF_READ && c->o->verify)
		for (unsigned int i = 0; i < p->num_qps; i++)
			memset(c->qps[i].lbuf, 0, size);
	memset(&k, 0, sizeof(k));
	if (dur)
		perf_clock_start(c, &k);

	while (!done) {
		uint64_t now;

		uint32_t kept = 0;

		if (bisend) {
			if (bw_recv_burst(c, size, &k, &rcnt, &rcounted) < 0)
				goto out;
			may_post = may_post || rcnt != 0;
		}
		for (uint32_t j = 0; may_post && j < n_ready; j++) {
			unsigned int i = ready[j];
			int full = bw_post_lists(c, i, size, &totscnt);

			if (full < 0)
				goto out;
			if (full)
				ready[kept++] = i;      /* try again next pass */
			else
				listed[i] = 0;          /* a completion relists it */
		}
		if (may_post)
			n_ready = kept;

		uint32_t n = ndk_get_cq_results_ex(c->scq, r, BW_BURST);

		now = rte_rdtsc();
		for (uint32_t j = 0; j < n; j++) {
			uint64_t v = (uint64_t)(uintptr_t)r[j].request_context;
			struct perf_qp *q = &c->qps[v >> BW_CTX_SHIFT];
			uint64_t upto = v & BW_CTX_MASK;

			if (r[j].status != NDK_STATUS_SUCCESS) {
				perf_ndk_bad_completion("client", &r[j]);
				goto out;
			}
			if (!listed[v >> BW_CTX_SHIFT]) {
				listed[v >> BW_CTX_SHIFT] = 1;
				ready[n_ready++] = (uint32_t)(v >> BW_CTX_SHIFT);
			}
			totccnt += upto - q->ccnt;
			if (!dur) {
				c->tcompleted[totccnt - 1] = now;
			} else if (k.phase == PERF_PHASE_SAMPLE) {
				counted += upto - q->ccnt;
			}
			q->ccnt = upto;
		}
		if (perf_poll(c) != 0)
			goto out;
		if (dur)
			done = perf_clock_tick(&k, now) == PERF_PHASE_END;
		else
			done = totccnt >= tot && (!bisend || rcnt >= tot);
	}

	if (p->verb == PERF_READ && c->o->verify)
		for (unsigned int i = 0; i < p->num_qps; i++)
			perf_verify_note(c, "READ", perf_check(c->qps[i].lbuf,
					 0, size), size);
	if (dur) {
		perf_bw_compute(&c->p, &k.t_start, &k.t_stop, counted, true,
				rep);
	} else {
		perf_bw_compute(&c->p, c->tposted, c->tcompleted, tot,
				p->no_peak, rep);
	}
	rc = 0;
out:
	free(ready);
	return rc;
}

/*
 * SEND receiver of one size; its receives were posted before the sync.
 * Not inlined: devtools/callgrind.sh collects it by name
 * (COLLECT=bw_run_server).
 */
static __rte_noinline int
bw_run_server(struct perf_ctx *c, uint64_t size, struct perf_bw_rep *rep)
{
	const struct perf_params *p = &c->p;
	const bool dur = p->duration != 0;
	const uint64_t iters = p->iters;
	const uint64_t tot = dur ? 0 : iters * p->num_qps;
	uint64_t rcnt = 0, counted = 0, t_first = 0, t_last = 0;
	struct perf_clock k;
	bool done = false;

	memset(&k, 0, sizeof(k));
	if (dur)
		perf_clock_start(c, &k);
	while (!done) {
		uint64_t before = rcnt;
		int n = bw_recv_burst(c, size, &k, &rcnt, &counted);
		uint64_t now = rte_rdtsc();

		if (n < 0)
			return -1;
		if (n != 0 && before == 0)
			t_first = now;
		if (n != 0)
			t_last = now;
		if (perf_poll(c) != 0)
			return -1;
		if (dur)
			done = perf_clock_tick(&k, now) == PERF_PHASE_END;
		else
			done = rcnt >= tot;
	}
	if (dur)
		perf_bw_compute(&c->p, &k.t_start, &k.t_stop, counted, true,
				rep);
	else
		perf_bw_compute(&c->p, &t_first, &t_last, tot, true, rep);
	return 0;
}

/* A WRITE target holds the pattern up to the last size, zeros after it. */
static void
bw_verify_write_target(struct perf_ctx *c, uint64_t size)
{
	for (unsigned int i = 0; i < c->p.num_qps; i++) {
		const uint8_t *b = c->qps[i].rbuf;
		long bad = perf_check(b, 0, size);

		for (size_t j = size; bad < 0 && j < c->half && j < size + 64;
		     j++)
			if (b[j] != 0)
				bad = (long)j;
		perf_verify_note(c, "WRITE", bad, size);
	}
}

/*
 * The end of a bidirectional size: each side's report goes to the other
 * (the client writes first) and both print the sum (perftest's
 * xchg_bw_reports + print_full_bw_report with the peer's report).
 */
static int
bw_duplex_report(struct perf_ctx *c, const struct perf_bw_rep *mine)
{
	struct perf_bw_rep theirs;

	if (perf_xchg_bw_reports(&c->x, mine, &theirs) != 0)
		return -1;
	perf_print_bw_sum(&c->p, mine, &theirs);
	return 0;
}

static int
bw_send_flow(struct perf_ctx *c)
{
	const bool duplex = c->p.duplex;
	struct perf_bw_rep rep;
	uint64_t size;
	int rc;

	for (size = perf_first_size(c); size != 0;
	     size = perf_next_size(c, size)) {
		c->p.size = size;
		if (c->p.server || duplex) {
			for (unsigned int i = 0; i < c->p.num_qps; i++) {
				struct perf_qp *q = &c->qps[i];
				uint64_t n = c->p.duration != 0 ? c->p.rx_depth :
					RTE_MIN((uint64_t)c->p.rx_depth,
						c->p.iters);

				q->rcnt = 0;
				q->rposted = 0;
				q->rpend = 0;
				if (perf_post_recvs(c, q, size, n) != 0)
					return -1;
			}
		}
		/* The receives are posted: the client may start. */
		if (perf_xchg_keys(&c->x, &c->qps[0].my, &c->qps[0].rem) != 0)
			return -1;
		rc = c->p.server && !duplex ? bw_run_server(c, size, &rep) :
			bw_run_client(c, size, &rep);
		if (rc != 0)
			return -1;
		/* -b: the sum of both sides, but a -D run prints its own. */
		if (!duplex || c->p.duration != 0)
			perf_print_bw(&c->p, &rep);
		else if (bw_duplex_report(c, &rep) != 0)
			return -1;
		if (c->p.all_sizes &&
		    perf_xchg_keys(&c->x, &c->qps[0].my, &c->qps[0].rem) != 0)
			return -1;
	}
	perf_print_line();
	return perf_xchg_finish(&c->x, &c->qps[0].my, perf_ndk_quiesce, c,
				false);
}

static int
bw_rdma_flow(struct perf_ctx *c)
{
	struct perf_bw_rep mine, theirs;
	uint64_t size;

	memset(&mine, 0, sizeof(mine));
	if (c->p.duplex) {
		/*
		 * Both sides run the initiator loop: a handshake before each
		 * size, one after it with -a, then the reports both ways and
		 * the sum (perftest's write_bw and read_bw with -b).
		 */
		for (size = perf_first_size(c); size != 0;
		     size = perf_next_size(c, size)) {
			c->p.size = size;
			if (perf_xchg_keys(&c->x, &c->qps[0].my,
					   &c->qps[0].rem) != 0 ||
			    bw_run_client(c, size, &mine) != 0)
				return -1;
			if (c->p.all_sizes &&
			    perf_xchg_keys(&c->x, &c->qps[0].my,
					   &c->qps[0].rem) != 0)
				return -1;
			if (bw_duplex_report(c, &mine) != 0)
				return -1;
		}
		if (c->o->verify && c->p.verb == PERF_WRITE)
			bw_verify_write_target(c, mine.size);
		perf_print_line();
		return perf_xchg_finish(&c->x, &c->qps[0].my,
					perf_ndk_quiesce, c, false);
	}
	if (c->p.server) {
		/* Wait for the client's run (polling), take its report. */
		if (perf_xchg_keys(&c->x, &c->qps[0].my, &c->qps[0].rem) != 0 ||
		    perf_xchg_bw_reports(&c->x, &mine, &theirs) != 0)
			return -1;
		c->p.size = theirs.size;
		perf_print_bw(&c->p, &theirs);
		if (c->o->verify && c->p.verb == PERF_WRITE)
			bw_verify_write_target(c, theirs.size);
		if (perf_xchg_finish(&c->x, &c->qps[0].my, perf_ndk_quiesce,
				     c, false) != 0)
			return -1;
		perf_print_line();
		return 0;
	}
	for (size = perf_first_size(c); size != 0;
	     size = perf_next_size(c, size)) {
		c->p.size = size;
		if (bw_run_client(c, size, &mine) != 0)
			return -1;
		perf_print_bw(&c->p, &mine);
	}
	perf_print_line();
	if (perf_xchg_keys(&c->x, &c->qps[0].my, &c->qps[0].rem) != 0 ||
	    perf_xchg_bw_reports(&c->x, &mine, &theirs) != 0)
		return -1;
	return perf_xchg_finish(&c->x, &c->qps[0].my, perf_ndk_quiesce, c,
				false);
}

int
perf_bw_run(struct perf_ctx *c)
{
	const struct perf_params *p = &c->p;
	uint64_t need = p->duration != 0 ? 1 : p->iters * p->num_qps;

	c->tposted = calloc(need, sizeof(uint64_t));
	c->tcompleted = calloc(need, sizeof(uint64_t));
	if (c->tposted == NULL || c->tcompleted == NULL) {
		fprintf(stderr, " Cannot Allocate\n");
		return -1;
	}
	c->tcap = need;
	perf_print_result_header(p);
	return p->verb == PERF_SEND ? bw_send_flow(c) : bw_rdma_flow(c);
}
