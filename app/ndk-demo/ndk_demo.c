/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * ndk-demo: two swroce adapters joined by an in-memory net_ring link in one
 * process. Runs RDMA WRITE, READ and SEND for a few seconds each at a few
 * message sizes with N operations outstanding per QP, checks the data, and
 * prints goodput, operation rate and the adapters' counters.
 *
 *   ndk-demo -l 0-1 --no-pci --in-memory -- -t 3
 *
 * Options (after the EAL arguments and "--"):
 *   -t SECONDS   time per operation and size (default 3)
 *   -m MTU       path MTU: 256, 512, 1024, 2048 or 4096 (default 4096)
 *   -q QPS       connections (default 1)
 *   -d DEPTH     operations outstanding per connection (default 16)
 *   -s SIZES     comma-separated message sizes in bytes, K/M suffixes
 *                allowed (default 4K,64K,1M)
 *   -o OPS       comma-separated subset of write,read,send (default all)
 *   --verify     a fresh pattern for every operation, checked on completion
 *                (slower: the main lcore fills and checks every byte)
 *   --split      poll each adapter on its own lcore (needs lcores 0-2);
 *                with --queues N, each queue of both adapters (lcores 0-N)
 *   --queues N   adapter queues (1, 2, 4): QPs spread over them by QPN
 *   --raw-baseline  before each run, the link's own figure: the frames of
 *                its messages burst from one port to the other with plain
 *                rte_eth_tx_burst/rx_burst (main lcore sends, lcore 1
 *                receives, the pollers stopped; demo_raw.c), printed as a
 *                "raw" row, and the run's goodput as a ratio to it
 *
 * Exit status: 0 when every operation succeeded and all data was right.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include "demo_raw.h"
#include "ndk.h"
#include "ndk_pair.h"

#define DEMO_MAX_SIZES 16
#define DEMO_MAX_QPS 256
#define DEMO_DRAIN_S 60.0
#define DEMO_BURST 64

enum demo_op { DEMO_WRITE, DEMO_READ, DEMO_SEND, DEMO_NOPS };

static const char *const op_name[] = { "WRITE", "READ", "SEND" };
static const enum ndk_operation_type op_type[] = {
	NDK_OP_WRITE, NDK_OP_READ, NDK_OP_SEND,
};
/* The frames that carry each operation's data. */
static const enum ndk_rawlink_kind op_frames[] = {
	NDK_RAWLINK_WRITE, NDK_RAWLINK_READ_RESP, NDK_RAWLINK_SEND,
};
/* Raw TX buffers: a 4096-byte payload with every header fits one. */
#define DEMO_RAW_POOL 8191
#define DEMO_RAW_MBUF (RTE_PKTMBUF_HEADROOM + 4096 + 256)

struct demo_opts {
	double seconds;
	uint32_t mtu;
	unsigned int qps;
	unsigned int depth;
	size_t sizes[DEMO_MAX_SIZES];
	unsigned int n_sizes;
	bool ops[DEMO_NOPS];
	bool verify;
	bool split;
	bool raw_baseline;
	uint16_t queues;
};

/* One outstanding-operation slot: its buffers (shared unless --verify). */
struct demo_slot {
	struct ndk_pair_buf *src;   /* data source (B's for READ) */
	struct ndk_pair_buf *dst;   /* data sink (A's for READ) */
	uint32_t seed;
	bool sdone;                 /* SEND: its send completed */
	bool rdone;                 /* SEND: its receive completed */
};

struct demo_conn {
	struct ndk_pair_conn *c;
	struct demo_slot *slots;    /* depth of them */
	struct ndk_pair_buf *rbuf;  /* SEND without --verify: receive buffer */
	uint64_t posted, done;
	uint32_t next_seed;
};

/* The counters a run reports, of one adapter. */
struct demo_ctrs {
	uint64_t frames;      /* frames sent */
	uint64_t retransmits; /* packets retransmitted */
	uint64_t naks;        /* NAKs sent, every kind */
};

struct demo_result {
	uint64_t ops;
	uint64_t bytes;
	double secs;
	uint64_t failures;
	uint64_t mismatches;
	struct demo_ctrs st[2]; /* what each adapter counted in the run */
};

static void
usage(const char *prog)
{
	printf("usage: %s [EAL args] -- [-t seconds] [-m mtu] [-q qps] "
	       "[-d depth]\n"
	       "          [-s sizes] [-o write,read,send] [--verify] "
	       "[--split]\n"
	       "          [--raw-baseline] [--queues 1|2|4]\n", prog);
}

static int
parse_size(const char *s, size_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	if (end == s)
		return -1;
	if (*end == 'k' || *end == 'K') {
		v <<= 10;
		end++;
	} else if (*end == 'm' || *end == 'M') {
		v <<= 20;
		end++;
	}
	if (*end != '\0' || v == 0 || v > (1ull << 30))
		return -1;
	*out = (size_t)v;
	return 0;
}

static int
parse_args(int argc, char **argv, struct demo_opts *o)
{
	static const struct option lopts[] = {
		{ "verify", no_argument, NULL, 'V' },
		{ "split", no_argument, NULL, 'S' },
		{ "raw-baseline", no_argument, NULL, 'R' },
		{ "queues", required_argument, NULL, 'Q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	o->seconds = 3;
	o->mtu = 4096;
	o->qps = 1;
	o->depth = 16;
	o->sizes[0] = 4096;
	o->sizes[1] = 65536;
	o->sizes[2] = 1 << 20;
	o->n_sizes = 3;
	for (int i = 0; i < DEMO_NOPS; i++)
		o->ops[i] = true;

	while ((ch = getopt_long(argc, argv, "t:m:q:d:s:o:h", lopts, NULL))
	       != -1) {
		switch (ch) {
		case 't':
			o->seconds = strtod(optarg, NULL);
			if (o->seconds <= 0)
				return -1;
			break;
		case 'm':
			o->mtu = (uint32_t)strtoul(optarg, NULL, 0);
			if (o->mtu != 256 && o->mtu != 512 && o->mtu != 1024 &&
			    o->mtu != 2048 && o->mtu != 4096)
				return -1;
			break;
		case 'q':
			o->qps = (unsigned int)strtoul(optarg, NULL, 0);
			if (o->qps == 0 || o->qps > DEMO_MAX_QPS)
				return -1;
			break;
		case 'Q':
			o->queues = (uint16_t)strtoul(optarg, NULL, 0);
			if (o->queues != 1 && o->queues != 2 && o->queues != 4)
				return -1;
			break;
		case 'd':
			o->depth = (unsigned int)strtoul(optarg, NULL, 0);
			if (o->depth == 0 || o->depth > 1024)
				return -1;
			break;
		case 's': {
			char *copy = strdup(optarg), *save = NULL, *tok;

			o->n_sizes = 0;
			for (tok = strtok_r(copy, ",", &save); tok != NULL;
			     tok = strtok_r(NULL, ",", &save)) {
				if (o->n_sizes == DEMO_MAX_SIZES ||
				    parse_size(tok, &o->sizes[o->n_sizes]) != 0) {
					free(copy);
					return -1;
				}
				o->n_sizes++;
			}
			free(copy);
			if (o->n_sizes == 0)
				return -1;
			break;
		}
		case 'o': {
			char *copy = strdup(optarg), *save = NULL, *tok;
			int i;

			memset(o->ops, 0, sizeof(o->ops));
			for (tok = strtok_r(copy, ",", &save); tok != NULL;
			     tok = strtok_r(NULL, ",", &save)) {
				for (i = 0; i < DEMO_NOPS; i++)
					if (strcasecmp(tok, op_name[i]) == 0)
						break;
				if (i == DEMO_NOPS) {
					free(copy);
					return -1;
				}
				o->ops[i] = true;
			}
			free(copy);
			break;
		}
		case 'V':
			o->verify = true;
			break;
		case 'S':
			o->split = true;
			break;
		case 'R':
			o->raw_baseline = true;
			break;
		default:
			return -1;
		}
	}
	return optind == argc ? 0 : -1;
}

static uint32_t
read_sink_flags(const struct ndk_pair *p)
{
	return NDK_MR_FLAG_ALLOW_LOCAL_WRITE |
		((p->info[0].adapter_flags &
		  NDK_ADAPTER_FLAG_RDMA_READ_SINK_NOT_REQUIRED) ? 0 :
		 NDK_MR_FLAG_RDMA_READ_SINK);
}

/* Buffers of one connection for @p op at @p size. */
static int
conn_buffers(struct ndk_pair *p, struct demo_conn *dc, enum demo_op op,
	     size_t size, const struct demo_opts *o, unsigned int ci)
{
	struct ndk_pair_conn *c = dc->c;
	unsigned int nbuf = o->verify ? o->depth : 1;

	for (unsigned int i = 0; i < nbuf; i++) {
		struct demo_slot *s = &dc->slots[i];

		if (op == DEMO_READ) {
			s->src = ndk_pair_buf_alloc(p, c->pd[1], size,
					NDK_MR_FLAG_ALLOW_REMOTE_READ);
			s->dst = ndk_pair_buf_alloc(p, c->pd[0], size,
						    read_sink_flags(p));
		} else {
			s->src = ndk_pair_buf_alloc(p, c->pd[0], size, 0);
			s->dst = ndk_pair_buf_alloc(p, c->pd[1], size,
					op == DEMO_WRITE ?
					NDK_MR_FLAG_ALLOW_REMOTE_WRITE :
					NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
		}
		if (s->src == NULL || s->dst == NULL)
			return -1;
		s->seed = 0x1000u * (ci + 1) + i;
		ndk_pair_fill(s->src->data, size, s->seed);
	}
	/* Without --verify every slot shares the first slot's buffers. */
	for (unsigned int i = nbuf; i < o->depth; i++)
		dc->slots[i] = dc->slots[0];
	dc->next_seed = 0x1000u * (ci + 1) + o->depth;
	return 0;
}

static void
conn_buffers_free(struct demo_conn *dc, const struct demo_opts *o)
{
	unsigned int nbuf = o->verify ? o->depth : 1;

	for (unsigned int i = 0; i < nbuf; i++) {
		ndk_pair_buf_free(dc->slots[i].src);
		ndk_pair_buf_free(dc->slots[i].dst);
	}
	memset(dc->slots, 0, sizeof(dc->slots[0]) * o->depth);
}

static ndk_status_t
post_recv(struct demo_conn *dc, unsigned int slot, size_t size)
{
	struct ndk_sge s = ndk_pair_sge(dc->slots[slot].dst, 0,
					(uint32_t)size);

	return ndk_receive(dc->c->qp[1], (void *)(uintptr_t)slot, &s, 1);
}

static ndk_status_t
post_op(struct demo_conn *dc, enum demo_op op, unsigned int slot, size_t size,
	bool verify)
{
	struct demo_slot *s = &dc->slots[slot];
	void *req = (void *)(uintptr_t)slot;
	struct ndk_sge sge;

	if (verify) {
		/* A new pattern for each operation. */
		s->seed = dc->next_seed++;
		ndk_pair_fill(s->src->data, size, s->seed);
	}
	switch (op) {
	case DEMO_WRITE:
		sge = ndk_pair_sge(s->src, 0, (uint32_t)size);
		return ndk_write(dc->c->qp[0], req, &sge, 1,
				 ndk_pair_raddr(s->dst, 0), s->dst->rtoken, 0);
	case DEMO_READ:
		sge = ndk_pair_sge(s->dst, 0, (uint32_t)size);
		return ndk_read(dc->c->qp[0], req, &sge, 1,
				ndk_pair_raddr(s->src, 0), s->src->rtoken, 0);
	default:
		sge = ndk_pair_sge(s->src, 0, (uint32_t)size);
		return ndk_send(dc->c->qp[0], req, &sge, 1, 0);
	}
}

/*
 * Post slot @p slot again. A SEND slot is reused only when both its send
 * and its receive completed, so that every send in flight has a receive
 * posted for it: the receive is posted first.
 */
static ndk_status_t
post_again(struct demo_conn *dc, enum demo_op op, unsigned int slot,
	   size_t size, const struct demo_opts *o)
{
	if (op == DEMO_SEND) {
		ndk_status_t st = post_recv(dc, slot, size);

		if (st != NDK_STATUS_SUCCESS)
			return st;
		dc->slots[slot].sdone = dc->slots[slot].rdone = false;
	}
	return post_op(dc, op, slot, size, o->verify);
}

/* Adapter @p side's counters for a run's row: generic ones and NAKs. */
static void
demo_ctrs_read(struct ndk_pair *p, int side, struct demo_ctrs *c)
{
	static const char *const nak_names[] = {
		"nak_seq_sent", "nak_rnr_sent", "nak_inv_sent",
		"nak_access_sent", "nak_op_sent",
	};
	struct ndk_adapter_stats s;
	uint64_t v;

	ndk_adapter_get_stats(p->ad[side], &s);
	c->frames = s.tx_packets;
	c->retransmits = s.retransmits;
	c->naks = 0;
	for (unsigned int i = 0; i < RTE_DIM(nak_names); i++)
		if (ndk_adapter_xstats_get_by_name(p->ad[side], nak_names[i],
						   &v) == 0)
			c->naks += v;
}

/*
 * Run @p op at @p size for o->seconds over every connection, then drain.
 * With SEND, receives and sends are posted in the same slot order and
 * complete in order, so the send and the receive of each message use the
 * same slot (which --verify relies on).
 */
static int
run_one(struct ndk_pair *p, struct demo_conn *dcs, enum demo_op op,
	size_t size, const struct demo_opts *o, struct demo_result *res)
{
	struct ndk_result_ex r[DEMO_BURST];
	struct demo_ctrs st0[2];
	double t0, t_end, drain_end;
	bool stop = false;
	uint64_t outstanding = 0;
	char d[200];

	memset(res, 0, sizeof(*res));
	/*
	 * Fresh connections for every run: no receive or READ of a previous
	 * run can be left pointing at freed buffers.
	 */
	for (unsigned int q = 0; q < o->qps; q++) {
		struct ndk_pair_conn_opts co = {
			.sq_depth = o->depth,
			.rq_depth = o->depth,
			.cq_depth = 2 * o->depth,
			.max_isge = 1,
			.max_rsge = 1,
		};
		ndk_status_t st;

		dcs[q].c = ndk_pair_conn_create(p, &co, &st);
		if (dcs[q].c == NULL) {
			fprintf(stderr, "connection %u: %s\n", q,
				ndk_status_str(st));
			return -1;
		}
		if (conn_buffers(p, &dcs[q], op, size, o, q) != 0) {
			fprintf(stderr, "buffer allocation failed (%zu B x %u)"
				"\n", size, o->verify ? o->depth : 1);
			return -1;
		}
		dcs[q].posted = dcs[q].done = 0;
	}
	demo_ctrs_read(p, 0, &st0[0]);
	demo_ctrs_read(p, 1, &st0[1]);

	t0 = ndk_pair_now();
	for (unsigned int q = 0; q < o->qps; q++) {
		for (unsigned int i = 0; i < o->depth; i++) {
			ndk_status_t st;

			if (op == DEMO_SEND) {
				st = post_recv(&dcs[q], i, size);
				if (st != NDK_STATUS_SUCCESS) {
					fprintf(stderr, "receive: %s\n",
						ndk_status_str(st));
					return -1;
				}
			}
			st = post_op(&dcs[q], op, i, size, o->verify);
			if (st != NDK_STATUS_SUCCESS) {
				fprintf(stderr, "%s: post: %s\n", op_name[op],
					ndk_status_str(st));
				return -1;
			}
			dcs[q].posted++;
			outstanding++;
		}
	}
	t_end = t0 + o->seconds;
	drain_end = t_end + DEMO_DRAIN_S;

	while (outstanding != 0) {
		double now = ndk_pair_now();

		if (!stop && now >= t_end)
			stop = true;
		if (now > drain_end) {
			fprintf(stderr, "%s %zu B: %" PRIu64 " operations did "
				"not complete within %.0f s\n", op_name[op],
				size, outstanding, DEMO_DRAIN_S);
			res->failures += outstanding;
			break;
		}
		for (unsigned int q = 0; q < o->qps; q++) {
			struct demo_conn *dc = &dcs[q];
			ndk_status_t st;
			uint32_t n;

			if (op == DEMO_SEND) {
				n = ndk_get_cq_results_ex(dc->c->rcq[1], r,
							  DEMO_BURST);
				for (uint32_t i = 0; i < n; i++) {
					unsigned int slot = (unsigned int)
						(uintptr_t)r[i].request_context;
					struct demo_slot *s = &dc->slots[slot];

					if (r[i].status != NDK_STATUS_SUCCESS ||
					    r[i].bytes_transferred != size) {
						if (res->failures++ < 5)
							fprintf(stderr, "receive: %s\n",
								ndk_pair_result_str(&r[i], d, sizeof(d)));
						continue;
					}
					if (o->verify &&
					    ndk_pair_check(s->dst->data, size,
							   s->seed) >= 0)
						res->mismatches++;
					s->rdone = true;
					if (!s->sdone || stop ||
					    res->failures != 0)
						continue;
					/* Send and receive done: reuse both. */
					st = post_again(dc, op, slot, size, o);
					if (st != NDK_STATUS_SUCCESS) {
						if (res->failures++ < 5)
							fprintf(stderr, "SEND: repost: %s\n",
								ndk_status_str(st));
						continue;
					}
					dc->posted++;
					outstanding++;
				}
			}
			n = ndk_get_cq_results_ex(dc->c->icq[0], r, DEMO_BURST);
			for (uint32_t i = 0; i < n; i++) {
				unsigned int slot = (unsigned int)
					(uintptr_t)r[i].request_context;

				outstanding--;
				dc->done++;
				if (r[i].status != NDK_STATUS_SUCCESS ||
				    r[i].type != op_type[op]) {
					if (res->failures++ < 5)
						fprintf(stderr, "%s: %s\n",
							op_name[op],
							ndk_pair_result_str(&r[i], d, sizeof(d)));
					continue;
				}
				res->ops++;
				res->bytes += size;
				if (o->verify && op != DEMO_SEND) {
					struct demo_slot *s = &dc->slots[slot];

					if (ndk_pair_check(s->dst->data, size,
							   s->seed) >= 0)
						res->mismatches++;
				}
				if (stop || res->failures != 0)
					continue;
				if (op == DEMO_SEND) {
					/* Reposted once its receive is in too. */
					dc->slots[slot].sdone = true;
					if (!dc->slots[slot].rdone)
						continue;
				}
				st = post_again(dc, op, slot, size, o);
				if (st != NDK_STATUS_SUCCESS) {
					if (res->failures++ < 5)
						fprintf(stderr, "%s: repost after "
							"a completion: %s\n",
							op_name[op],
							ndk_status_str(st));
					continue;
				}
				dc->posted++;
				outstanding++;
			}
		}
	}
	res->secs = ndk_pair_now() - t0;

	/*
	 * SEND: a send completes after its receive, so every receive of the
	 * run is already in the CQ; pick them up.
	 */
	if (op == DEMO_SEND) {
		for (unsigned int q = 0; q < o->qps; q++) {
			struct demo_conn *dc = &dcs[q];
			uint32_t n;

			while ((n = ndk_get_cq_results_ex(dc->c->rcq[1], r,
							  DEMO_BURST)) != 0) {
				for (uint32_t i = 0; i < n; i++) {
					struct demo_slot *s = &dc->slots[
						(uintptr_t)r[i].request_context];

					if (r[i].status != NDK_STATUS_SUCCESS)
						res->failures++;
					else if (o->verify &&
						 ndk_pair_check(s->dst->data,
								size, s->seed)
						 >= 0)
						res->mismatches++;
				}
			}
		}
	}

	/* Final contents: without --verify every op moved the same bytes. */
	for (unsigned int q = 0; q < o->qps && res->failures == 0; q++) {
		struct demo_slot *s = &dcs[q].slots[0];

		if (!o->verify &&
		    ndk_pair_check(s->dst->data, size, s->seed) >= 0)
			res->mismatches++;
		if (!ndk_pair_buf_guards_ok(s->dst) ||
		    !ndk_pair_buf_guards_ok(s->src))
			res->mismatches++;
	}
	for (int s = 0; s < 2; s++) {
		demo_ctrs_read(p, s, &res->st[s]);
		res->st[s].frames -= st0[s].frames;
		res->st[s].retransmits -= st0[s].retransmits;
		res->st[s].naks -= st0[s].naks;
	}
	for (unsigned int q = 0; q < o->qps; q++) {
		ndk_pair_conn_destroy(dcs[q].c);
		dcs[q].c = NULL;
		conn_buffers_free(&dcs[q], o);
	}
	return 0;
}

/*
 * --raw-baseline: print the link's row for @p op at @p size and its goodput
 * in *gbps. @return 0 or a negative errno.
 */
static int
raw_row(struct ndk_pair *p, struct rte_mempool *mp, enum demo_op op,
	size_t size, const struct demo_opts *o, double *gbps)
{
	struct demo_raw_result r;
	double secs;
	int rc;

	rc = demo_raw_run(p, mp, op_frames[op], size, o->mtu, o->seconds,
			  o->verify, &r);
	if (rc != 0)
		return rc;
	secs = r.secs > 0 ? r.secs : 1e-9;
	*gbps = r.msgs * (double)size * 8 / secs / 1e9;
	printf("%-6s %9zu %10" PRIu64 " %10.3f %9.4f %11" PRIu64 " %9s %7s %6"
	       PRIu64 " %s\n", "raw", size, (uint64_t)r.msgs, *gbps,
	       r.msgs / secs / 1e6, r.frames, "-", "-", r.lost + r.bad,
	       !o->verify ? "-" : r.lost + r.bad != 0 ? "MISMATCH" : "ok");
	fflush(stdout);
	return r.lost + r.bad != 0 && o->verify ? -EIO : 0;
}

int
main(int argc, char **argv)
{
	struct ndk_pair_config pc;
	struct rte_mempool *raw_mp = NULL;
	struct demo_opts o;
	struct demo_conn *dcs;
	struct ndk_pair *p;
	int ret, rc = 0;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "rte_eal_init failed\n");
		return 2;
	}
	argc -= ret;
	argv += ret;
	argv[0] = (char *)(uintptr_t)"ndk-demo";
	memset(&o, 0, sizeof(o));
	optind = 1;
	if (parse_args(argc, argv, &o) != 0) {
		usage("ndk-demo");
		rte_eal_cleanup();
		return 2;
	}
	if (o.queues == 0)
		o.queues = 1;
	if (!rte_lcore_is_enabled(1) || rte_get_main_lcore() == 1 ||
	    (o.split && !rte_lcore_is_enabled(RTE_MAX(2u, o.queues)))) {
		fprintf(stderr, "ndk-demo needs lcores 0 and 1 (0-2 with "
			"--split, 0-N with --split --queues N), e.g. -l 0-1\n");
		rte_eal_cleanup();
		return 2;
	}

	memset(&pc, 0, sizeof(pc));
	pc.max_path_mtu = o.mtu;
	pc.nb_queues = o.queues;
	pc.lcore_per_queue = o.split && o.queues > 1;
	pc.lcore_per_adapter = o.split;
	p = ndk_pair_create(&pc);
	dcs = calloc(o.qps, sizeof(*dcs));
	if (p == NULL || dcs == NULL) {
		fprintf(stderr, "set-up failed\n");
		rte_eal_cleanup();
		return 1;
	}
	for (unsigned int q = 0; q < o.qps; q++) {
		dcs[q].slots = calloc(o.depth, sizeof(struct demo_slot));
		if (dcs[q].slots == NULL) {
			rc = 1;
			goto out;
		}
	}

	printf("ndk-demo: 2 adapters on net_ring, path MTU %u, %u QP(s), "
	       "%u outstanding per QP, %.1f s per test%s%s, %u queue(s)\n",
	       o.mtu, o.qps, o.depth, o.seconds,
	       o.verify ? ", per-op verification" : "",
	       !o.split ? "" : o.queues > 1 ? ", one lcore per queue" :
	       ", one lcore per adapter", o.queues);
	if (o.raw_baseline) {
		raw_mp = rte_pktmbuf_pool_create("demo_raw", DEMO_RAW_POOL,
						 256, 0, DEMO_RAW_MBUF,
						 (int)rte_socket_id());
		if (raw_mp == NULL) {
			fprintf(stderr, "raw: no mbuf pool: %s\n",
				rte_strerror(rte_errno));
			rc = 1;
			goto out;
		}
	}
	printf("\n%-6s %9s %10s %10s %9s %11s %9s %7s %6s %s\n", "op", "size",
	       "ops", "Gbit/s", "Mops/s", "tx pkts", "retrans", "NAKs",
	       "errors", o.raw_baseline ? "data  vs raw" : "data");
	for (int op = 0; op < DEMO_NOPS; op++) {
		if (!o.ops[op])
			continue;
		for (unsigned int si = 0; si < o.n_sizes; si++) {
			struct demo_result res;
			size_t size = o.sizes[si];
			double raw_gbps = 0, gbps;

			if (o.raw_baseline &&
			    raw_row(p, raw_mp, (enum demo_op)op, size, &o,
				    &raw_gbps) != 0)
				rc = 1;
			if (run_one(p, dcs, (enum demo_op)op, size, &o, &res)
			    != 0) {
				rc = 1;
				goto out;
			}
			gbps = (double)res.bytes * 8 / res.secs / 1e9;
			printf("%-6s %9zu %10" PRIu64 " %10.3f %9.4f %11" PRIu64
			       " %9" PRIu64 " %7" PRIu64 " %6" PRIu64 " %s",
			       op_name[op], size, res.ops, gbps,
			       (double)res.ops / res.secs / 1e6,
			       res.st[0].frames + res.st[1].frames,
			       res.st[0].retransmits + res.st[1].retransmits,
			       res.st[0].naks + res.st[1].naks,
			       res.failures,
			       res.mismatches != 0 ? "MISMATCH" : "ok");
			if (o.raw_baseline && raw_gbps > 0)
				printf("%*s %.3f", res.mismatches != 0 ? 0 : 6,
				       "", gbps / raw_gbps);
			putchar('\n');
			fflush(stdout);
			if (res.failures != 0 || res.mismatches != 0)
				rc = 1;
		}
	}
	printf("\nadapter counters:\n");
	ndk_pair_print_stats(p, "  ");
out:
	for (unsigned int q = 0; q < o.qps; q++)
		free(dcs[q].slots);
	free(dcs);
	ndk_pair_destroy(p);
	/* After the ports: net_ring may still hold mbufs of the pool. */
	rte_mempool_free(raw_mp);
	rte_eal_cleanup();
	printf("%s\n", rc == 0 ? "PASS" : "FAIL");
	return rc;
}
