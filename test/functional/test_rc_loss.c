/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: RC reliability over a lossy link. lib/netem drops, duplicates
 * and reorders frames on both adapters' RX queues; a mixed workload of
 * SEND/RECEIVE, WRITE and READ over several QPs must complete successfully
 * with every byte right. With corruption and READs alone, the requesters
 * check the ICRC of READ responses as they copy them into the sinks: bad
 * frames must be found there, and every READ still completes exact. With
 * READs alone and drops alone (0.1, 1 and 5 %), READ responses after a
 * lost one are placed: the responses sent again per frame lost are
 * counted and bounded.
 *
 * Built a second time as test_func_rc_sr (RC_SR defined): selective repeat
 * on both QPs, one operation kind at a time (WRITE, SEND, READ), 0.1, 1 and
 * 5 % of the frames dropped, with and without reordering: data verified,
 * SACKs seen, frames sent again per frame lost printed and bounded
 * (with reordering too: a SACK round found spurious widens the reorder
 * window); the same workload with go-back-N beside it for the figures;
 * READs at the ORD limit.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_random.h>

#include "ndk.h"
#include "ndk_netem.h"
#include "ndk_pair_test.h"
#include "ndk_test.h"

#define WAIT_S 60.0
#define LOSS_QPS 6
#define LOSS_OPS_PER_QP 60
#define LOSS_BATCH 6          /* ops in flight per QP */
#define LOSS_MAX_LEN (256 * 1024)

struct lop {
	int kind;                 /* 0 SEND, 1 WRITE, 2 READ */
	size_t len;
	uint32_t seed;
	struct ndk_pair_buf *src, *dst;
};

static bool g_reads_only;     /* every op a READ */
static bool g_drop_only;      /* no duplicates or reordering */
static uint32_t g_reorder_ppm; /* reordering alone (drop_only too) */
static int g_kind = -1;       /* every op of this kind; -1: mixed */
static uint8_t g_sr;          /* selective repeat on both QPs */

static const enum ndk_operation_type kind_type[] = {
	NDK_OP_SEND, NDK_OP_WRITE, NDK_OP_READ,
};
static const char *const kind_name[] = { "SEND", "WRITE", "READ" };

static uint32_t
read_sink_flags(const struct ndk_pair *p)
{
	return NDK_MR_FLAG_ALLOW_LOCAL_WRITE |
		((p->info[0].adapter_flags &
		  NDK_ADAPTER_FLAG_RDMA_READ_SINK_NOT_REQUIRED) ? 0 :
		 NDK_MR_FLAG_RDMA_READ_SINK);
}

static size_t
pick_len(void)
{
	uint64_t r = rte_rand();

	switch (r & 3) {
	case 0:
		return 1 + (size_t)((r >> 8) % LOSS_MAX_LEN);
	case 1:
		return 1 + (size_t)((r >> 8) % (16 * 1024));
	default:
		return 1 + (size_t)((r >> 8) % 2048);
	}
}

static int
prepare(struct ndk_pair *p, struct ndk_pair_conn *c, int ini, struct lop *op,
	uint32_t seed)
{
	int tgt = 1 - ini;

	op->kind = g_reads_only ? 2 : g_kind >= 0 ? g_kind :
		(int)(rte_rand() % 3);
	op->len = pick_len();
	op->seed = seed;
	if (op->kind == 2) {
		op->src = ndk_pair_buf_alloc(p, c->pd[tgt], op->len,
					     NDK_MR_FLAG_ALLOW_REMOTE_READ);
		op->dst = ndk_pair_buf_alloc(p, c->pd[ini], op->len,
					     read_sink_flags(p));
	} else {
		op->src = ndk_pair_buf_alloc(p, c->pd[ini], op->len, 0);
		op->dst = ndk_pair_buf_alloc(p, c->pd[tgt], op->len,
					     op->kind == 0 ?
					     NDK_MR_FLAG_ALLOW_LOCAL_WRITE :
					     NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
	}
	if (op->src == NULL || op->dst == NULL)
		return -1;
	ndk_pair_fill(op->src->data, op->len, seed);
	return 0;
}

static ndk_status_t
post(struct ndk_pair_conn *c, int ini, struct lop *op)
{
	struct ndk_sge s;
	ndk_status_t st;

	switch (op->kind) {
	case 0:
		s = ndk_pair_sge(op->dst, 0, (uint32_t)op->len);
		st = ndk_receive(c->qp[1 - ini], op, &s, 1);
		if (st != NDK_STATUS_SUCCESS)
			return st;
		s = ndk_pair_sge(op->src, 0, (uint32_t)op->len);
		return ndk_send(c->qp[ini], op, &s, 1, 0);
	case 1:
		s = ndk_pair_sge(op->src, 0, (uint32_t)op->len);
		return ndk_write(c->qp[ini], op, &s, 1,
				 ndk_pair_raddr(op->dst, 0), op->dst->rtoken, 0);
	default:
		s = ndk_pair_sge(op->dst, 0, (uint32_t)op->len);
		return ndk_read(c->qp[ini], op, &s, 1,
				ndk_pair_raddr(op->src, 0), op->src->rtoken, 0);
	}
}

static int
check_done(struct ndk_pair_conn *c, int ini, struct lop *op, int qi, int k)
{
	struct ndk_result_ex r;
	char d[200];
	long bad;

	if (ndk_pair_wait(c->icq[ini], &r, 1, WAIT_S) != 1)
		TEST_FAIL("QP %d op %d (%s %zu B): no completion in %.0f s", qi,
			  k, ndk_pair_op_str(kind_type[op->kind]), op->len,
			  WAIT_S);
	ndk_pair_result_str(&r, d, sizeof(d));
	TEST_ASSERT(r.status == NDK_STATUS_SUCCESS &&
		    r.type == kind_type[op->kind] && r.request_context == op,
		    "QP %d op %d (%s %zu B): %s", qi, k,
		    ndk_pair_op_str(kind_type[op->kind]), op->len, d);
	if (op->kind == 0) {
		if (ndk_pair_wait(c->rcq[1 - ini], &r, 1, WAIT_S) != 1)
			TEST_FAIL("QP %d op %d: no receive completion", qi, k);
		ndk_pair_result_str(&r, d, sizeof(d));
		TEST_ASSERT(r.status == NDK_STATUS_SUCCESS &&
			    r.type == NDK_OP_RECEIVE && r.request_context == op
			    && r.bytes_transferred == op->len,
			    "QP %d op %d receive (%zu B): %s", qi, k, op->len,
			    d);
	}
	bad = ndk_pair_check(op->dst->data, op->len, op->seed);
	TEST_ASSERT(bad < 0, "QP %d op %d (%s %zu B): byte %ld wrong", qi, k,
		    ndk_pair_op_str(kind_type[op->kind]), op->len, bad);
	TEST_ASSERT(ndk_pair_buf_guards_ok(op->dst) &&
		    ndk_pair_buf_guards_ok(op->src), "QP %d op %d: guards",
		    qi, k);
	ndk_pair_buf_free(op->src);
	ndk_pair_buf_free(op->dst);
	op->src = op->dst = NULL;
	return 0;
}

/* Stop the pair, then take lib/netem off both ports with its counts. */
static void
pair_stop(struct ndk_pair *p, struct ndk_netem *ne[2],
	  struct ndk_netem_stats ns[2], bool print)
{
	ndk_pair_stop(p);
	for (int s = 0; s < 2; s++) {
		if (ne[s] == NULL)
			continue;
		ndk_netem_get_stats(ne[s], &ns[s]);
		if (print)
			printf("  netem %c: seen %" PRIu64 " dropped %" PRIu64
			       " duplicated %" PRIu64 " reordered %" PRIu64
			       " corrupted %" PRIu64 "\n",
			       s == 0 ? 'A' : 'B', ns[s].seen, ns[s].dropped,
			       ns[s].duplicated, ns[s].reordered,
			       ns[s].corrupted);
		ndk_netem_detach(ne[s]);
	}
}

/*
 * One kind of operation (g_kind): frames sent again per frame lost, both
 * directions (requests and READ responses sent beyond those needed, over
 * the frames lib/netem dropped). With selective repeat, SACKs must have
 * been sent wherever something was lost, and without reordering a frame
 * lost costs about a frame; with go-back-N none is.
 */
static int
sr_frames(struct ndk_test_xstats st[2], const struct ndk_netem_stats ns[2],
	  uint64_t req_needed, uint64_t resp_needed, uint32_t ppm)
{
	uint64_t tx = 0, resp = 0, acks = 0, sacks = 0, held = 0, ahead = 0;
	uint64_t lost, again;

	for (int s = 0; s < 2; s++) {
		tx += XS(&st[s], "tx_packets");
		resp += XS(&st[s], "read_resp_sent");
		acks += XS(&st[s], "acks_sent");
		sacks += XS(&st[s], "sack_sent");
		held += XS(&st[s], "sr_held");
		ahead += XS(&st[s], "rx_out_of_seq");
	}
	lost = ns[0].dropped + ns[1].dropped;
	/* Requests: every frame that is no READ response, ACK or SACK. */
	again = tx - resp - acks - sacks - req_needed +
		(resp - resp_needed);
	printf("  %s, %s: %" PRIu64 " requests and %" PRIu64 " READ "
	       "responses needed, %" PRIu64 " frames sent again (%" PRIu64
	       " READ responses), %" PRIu64 " lost: %.2f frames sent again "
	       "per frame lost (%.2f READ responses); requests kept %" PRIu64
	       " of %" PRIu64 " ahead, SACKs %" PRIu64 ", sr_resent %" PRIu64
	       ", timeouts %" PRIu64 "\n",
	       kind_name[g_kind], g_sr ? "selective repeat" : "go-back-N",
	       req_needed, resp_needed, again, resp - resp_needed, lost,
	       lost == 0 ? 0.0 : (double)again / (double)lost,
	       lost == 0 ? 0.0 : (double)(resp - resp_needed) / (double)lost,
	       held, ahead, sacks,
	       XS(&st[0], "sr_resent") + XS(&st[1], "sr_resent"),
	       XS(&st[0], "retransmit_timeouts") +
	       XS(&st[1], "retransmit_timeouts"));
	printf("  RTT samples %" PRIu64 " (%" PRIu64 " from sequence NAKs), "
	       "voided %" PRIu64 "; expiries %" PRIu64 " adaptive + %" PRIu64
	       " full, %" PRIu64 " of them without an RTT estimate\n",
	       XS(&st[0], "rtt_samples") + XS(&st[1], "rtt_samples"),
	       XS(&st[0], "rtt_nak_samples") + XS(&st[1], "rtt_nak_samples"),
	       XS(&st[0], "rtt_voided") + XS(&st[1], "rtt_voided"),
	       XS(&st[0], "adaptive_retransmits") +
	       XS(&st[1], "adaptive_retransmits"),
	       XS(&st[0], "retransmit_timeouts") +
	       XS(&st[1], "retransmit_timeouts"),
	       XS(&st[0], "rto_no_rtt") + XS(&st[1], "rto_no_rtt"));
	/* Selective repeat: requests past a lost one kept, and SACKed. */
	if (g_sr && ((ahead != 0 && held == 0) || (held != 0 && sacks == 0))) {
		fprintf(stderr, "  FAIL: selective repeat not used\n");
		return -1;
	}
	if (!g_sr && (sacks != 0 || held != 0)) {
		fprintf(stderr, "  FAIL: SACKs with go-back-N\n");
		return -1;
	}
	/*
	 * Reordered requests (WRITE, SEND): a SACK round whose resend was
	 * not needed widens the reorder window (sack_spurious), after which
	 * holes wait for it: a late request is not sent again each time.
	 */
	if (g_sr && g_reorder_ppm != 0 && g_kind != 2) {
		uint64_t spur = XS(&st[0], "sack_spurious") +
			XS(&st[1], "sack_spurious");

		printf("  reordering: SACK rounds found spurious %" PRIu64
		       ", SACKs that waited for the window %" PRIu64 "\n",
		       spur, XS(&st[0], "sack_deferred") +
		       XS(&st[1], "sack_deferred"));
		if (spur == 0) {
			fprintf(stderr, "  FAIL: reordering not learnt\n");
			return -1;
		}
	}
	if (g_sr && g_drop_only && ppm != 0 &&
	    (g_reorder_ppm == 0 || g_kind != 2) && again > 3 * lost + 64) {
		fprintf(stderr, "  FAIL: %" PRIu64 " frames sent again for %"
			PRIu64 " lost\n", again, lost);
		return -1;
	}
	return 0;
}

static int
run_loss(uint32_t ppm, uint32_t corrupt_ppm, uint32_t mtu, uint8_t timeout)
{
	struct ndk_pair_config pc = {
		.max_path_mtu = mtu,
		.no_pollers = true,
	};
	struct ndk_netem_config nc = {
		.drop_ppm = ppm,
		.dup_ppm = g_drop_only ? 0 : ppm,
		.reorder_ppm = g_drop_only ? g_reorder_ppm : ppm,
		.corrupt_ppm = corrupt_ppm,
		.reorder_gap = 3,
		.seed = 0x10550000u + ppm,
	};
	struct ndk_netem *ne[2] = { NULL, NULL };
	struct ndk_pair_conn *c[LOSS_QPS];
	static struct lop ops[LOSS_QPS][LOSS_BATCH];
	struct ndk_test_xstats st[2];
	struct ndk_netem_stats ns[2];
	struct ndk_pair *p;
	double t0;
	size_t bytes = 0;
	uint64_t needed = 0;          /* READ responses the READs need */
	uint64_t req_needed = 0;      /* request packets the ops need */
	int rc = -1;

	p = ndk_pair_create(&pc);
	TEST_ASSERT(p != NULL, "pair");
	for (int s = 0; s < 2; s++) {
		ne[s] = ndk_netem_attach(p->port[s], 0, &nc);
		if (ne[s] == NULL) {
			fprintf(stderr, "  FAIL: ndk_netem_attach(port %u)\n",
				p->port[s]);
			goto out;
		}
	}
	if (ndk_pair_start(p) != 0)
		goto out;
	for (int i = 0; i < LOSS_QPS; i++) {
		struct ndk_pair_conn_opts o = {
			.rq_depth = 16, .sq_depth = 16, .timeout = timeout,
			.retry_cnt = 7, .rnr_retry = 7,
			.selective_repeat = g_sr,
		};

		c[i] = ndk_pair_conn_create(p, &o, NULL);
		if (c[i] == NULL) {
			fprintf(stderr, "  FAIL: connection %d\n", i);
			goto out;
		}
	}
	printf("  drop %u, dup %u, reorder %u ppm, corrupt %u ppm, MTU %u, "
	       "timeout %u, %d QPs x %d ops\n", nc.drop_ppm, nc.dup_ppm,
	       nc.reorder_ppm, corrupt_ppm, mtu, timeout, LOSS_QPS,
	       LOSS_OPS_PER_QP);
	t0 = ndk_pair_now();
	for (int round = 0; round < LOSS_OPS_PER_QP / LOSS_BATCH; round++) {
		for (int i = 0; i < LOSS_QPS; i++) {
			int ini = i & 1;

			for (int k = 0; k < LOSS_BATCH; k++) {
				struct lop *op = &ops[i][k];
				ndk_status_t s;

				if (prepare(p, c[i], ini, op, (uint32_t)
					    (round * 1000 + i * 10 + k)) != 0) {
					fprintf(stderr, "  FAIL: buffers\n");
					goto out;
				}
				bytes += op->len;
				if (op->kind == 2)
					needed += (op->len + mtu - 1) / mtu;
				req_needed += op->kind == 2 ? 1 :
					(op->len + mtu - 1) / mtu;
				s = post(c[i], ini, op);
				if (s != NDK_STATUS_SUCCESS) {
					fprintf(stderr, "  FAIL: post: %s\n",
						ndk_status_str(s));
					goto out;
				}
			}
		}
		for (int i = 0; i < LOSS_QPS; i++)
			for (int k = 0; k < LOSS_BATCH; k++)
				if (check_done(c[i], i & 1, &ops[i][k], i,
					       round * LOSS_BATCH + k) != 0)
					goto out;
	}
	printf("  %d ops, %zu bytes, all verified (%.1f s)\n",
	       LOSS_QPS * LOSS_OPS_PER_QP, bytes, ndk_pair_now() - t0);
	rc = 0;
out:
	pair_stop(p, ne, ns, true);
	ndk_pair_stats(p, 0, &st[0]);
	ndk_pair_stats(p, 1, &st[1]);
	for (int s = 0; s < 2; s++)
		printf("  adapter %c: retransmit_timeouts %" PRIu64
		       " retransmit_packets %" PRIu64 " nak_seq_sent %" PRIu64
		       " nak_seq_rcvd %" PRIu64 " rx_duplicate %" PRIu64
		       " rx_out_of_seq %" PRIu64 " rx_icrc_errors %" PRIu64
		       " qp_errors %" PRIu64 "\n",
		       s == 0 ? 'A' : 'B', XS(&st[s], "retransmit_timeouts"),
		       XS(&st[s], "retransmit_packets"),
		       XS(&st[s], "nak_seq_sent"), XS(&st[s], "nak_seq_rcvd"),
		       XS(&st[s], "rx_duplicate"), XS(&st[s], "rx_out_of_seq"),
		       XS(&st[s], "rx_icrc_errors"), XS(&st[s], "qp_errors"));
	if (rc == 0 &&
	    XS(&st[0], "qp_errors") + XS(&st[1], "qp_errors") != 0) {
		fprintf(stderr, "  FAIL: QPs went to ERROR\n");
		rc = -1;
	}
	printf("  rx_icrc_read_sink A %" PRIu64 " B %" PRIu64 "\n",
	       XS(&st[0], "rx_icrc_read_sink"),
	       XS(&st[1], "rx_icrc_read_sink"));
	if (rc == 0 && g_reads_only && corrupt_ppm != 0 &&
	    XS(&st[0], "rx_icrc_read_sink") +
	    XS(&st[1], "rx_icrc_read_sink") == 0) {
		fprintf(stderr, "  FAIL: no bad READ response met in a sink\n");
		rc = -1;
	}
	if (rc == 0 && g_reads_only && g_reorder_ppm != 0) {
		/*
		 * Reordering alone: a response overtaken by a few others is
		 * asked again until the reorder window has grown to cover it
		 * (a few spurious re-reads), then rarely: lib/netem releases
		 * a held frame after three later ones or some polls, so on a
		 * link that goes quiet a frame can be late by more than the
		 * window. Taking every overtaken response for lost sends
		 * about half as many responses again as the READs need.
		 */
		uint64_t sent = XS(&st[0], "read_resp_sent") +
			XS(&st[1], "read_resp_sent");
		uint64_t held = ns[0].reordered + ns[1].reordered;

		printf("  READ responses: %" PRIu64 " needed, %" PRIu64
		       " sent (%" PRIu64 " again) with %" PRIu64 " frames "
		       "reordered; read_spurious A %" PRIu64 " B %" PRIu64
		       "\n", needed, sent, sent - needed, held,
		       XS(&st[0], "read_spurious"),
		       XS(&st[1], "read_spurious"));
		if (sent < needed || sent - needed > needed / 5) {
			fprintf(stderr, "  FAIL: reordering taken for loss\n");
			rc = -1;
		}
	}
	if (rc == 0 && g_reads_only && ppm != 0) {
		/*
		 * Out-of-order placement: a lost frame costs about a frame.
		 * Lost requests and ACK-less tails cost more (a sequence NAK
		 * sends the requests after the lost one again, a timer a
		 * range), hence the margin; reading the rest of a READ again
		 * after each loss cost tens.
		 */
		uint64_t sent = XS(&st[0], "read_resp_sent") +
			XS(&st[1], "read_resp_sent");
		uint64_t lost = ns[0].dropped + ns[1].dropped;
		double per = lost == 0 ? 0.0 :
			(double)(sent - needed) / (double)lost;

		printf("  READ responses: %" PRIu64 " needed, %" PRIu64
		       " sent: %.2f sent again per frame lost (%" PRIu64
		       " lost); read_spurious %" PRIu64 "\n", needed, sent,
		       per, lost, XS(&st[0], "read_spurious") +
		       XS(&st[1], "read_spurious"));
		if (sent < needed || sent - needed > 4 * lost + 32) {
			fprintf(stderr, "  FAIL: %.2f READ responses sent "
				"again per frame lost\n", per);
			rc = -1;
		}
	}
	if (rc == 0 && g_kind >= 0)
		rc = sr_frames(st, ns, req_needed, needed, ppm);
	if (rc != 0)
		ndk_pair_print_stats(p, "    ");
	ndk_pair_destroy(p);
	return rc;
}

#ifdef RC_SR
/*
 * One kind of operation with a share of the frames dropped, reordered too
 * (25 % of the frames overtaken by three others) if @p reorder;
 * selective repeat on both QPs if @p sr.
 */
static int
kind_loss(int kind, uint32_t ppm, bool reorder, bool sr)
{
	int rc;

	g_kind = kind;
	g_sr = sr;
	g_drop_only = true;
	g_reorder_ppm = reorder ? 250000 : 0;
	rc = run_loss(ppm, 0, 4096, 12);
	g_kind = -1;
	g_sr = 0;
	g_drop_only = false;
	g_reorder_ppm = 0;
	return rc;
}

/*
 * READs alone at the ORD limit: 64 KiB READs, ORD and IRD 2, 16 posted at
 * a time on one QP (refilled as they complete), 3 % of the frames dropped
 * both ways (with ORD 4 and 1 % a re-read's answer often came back before
 * the READs behind it had finished: none went past ORD in some runs).
 * A READ waiting for a range asked again holds its place in the
 * completion order; with selective repeat the READs after it that
 * have all their responses free their ORD slots (read_ord_freed), and
 * every re-read is still served from the responder's kept READs
 * (read_dup_ignored 0: it keeps SWR_MAX_RD_ATOMIC); with go-back-N (a
 * standard responder keeps only IRD READs) ORD holds as before. Data
 * verified. The time ORD held READs back (rd_ord_*_us) is printed only.
 * With @p write the same loop posts WRITEs (checks at write_checks).
 *
 * Whether a READ ever finishes behind one waiting for a range depends on
 * when the responder takes each re-read against the READs it is
 * streaming, i.e. on the polls' timing (in some runs every re-read is
 * answered first and ORD never holds): the selective-repeat case runs
 * with up to WND_SEEDS loss patterns (@p attempt) until one lets a READ
 * past ORD; a run without one returns 1 (not exercised), not a failure.
 */
#define WND_SEEDS 4
#define WND_OPS 400
#define WND_OUT 16
#define WND_LEN 65536

static int
window_run(uint8_t sr, bool write, uint32_t ppm, uint32_t attempt)
{
	struct ndk_pair_config pc = {
		.max_path_mtu = 4096, .no_pollers = true,
	};
	struct ndk_netem_config nc = {
		.drop_ppm = ppm,
		.seed = 0x0bd00000u + sr + (write ? 2 : 0) + (attempt << 8),
	};
	struct ndk_pair_conn_opts o = {
		.rq_depth = 16, .sq_depth = 32, .timeout = 12,
		.retry_cnt = 7, .rnr_retry = 7, .max_rd_atomic = 2,
		.max_dest_rd_atomic = 2, .selective_repeat = sr,
	};
	struct ndk_netem *ne[2] = { NULL, NULL };
	struct ndk_pair_buf *src[WND_OUT] = { NULL }, *dst[WND_OUT] = { NULL };
	uint32_t seed[WND_OUT];
	struct ndk_test_xstats st[2];
	struct ndk_netem_stats ns[2];
	struct ndk_pair_conn *c = NULL;
	struct ndk_pair *p;
	uint64_t freed, ignored, lost;
	int posted = 0, done = 0, rc = -1;

	p = ndk_pair_create(&pc);
	TEST_ASSERT(p != NULL, "pair");
	for (int s = 0; s < 2; s++)
		if ((ne[s] = ndk_netem_attach(p->port[s], 0, &nc)) == NULL)
			goto out;
	if (ndk_pair_start(p) != 0 || (c = ndk_pair_conn_create(p, &o,
								NULL)) == NULL)
		goto out;
	for (int i = 0; i < WND_OUT; i++) {
		src[i] = ndk_pair_buf_alloc(p, c->pd[write ? 0 : 1], WND_LEN,
					    write ? 0 :
					    NDK_MR_FLAG_ALLOW_REMOTE_READ);
		dst[i] = ndk_pair_buf_alloc(p, c->pd[write ? 1 : 0], WND_LEN,
					    write ?
					    NDK_MR_FLAG_ALLOW_REMOTE_WRITE :
					    read_sink_flags(p));
		if (src[i] == NULL || dst[i] == NULL)
			goto out;
	}
	while (done < WND_OPS) {
		struct ndk_result_ex r;
		char d[200];
		int i;

		while (posted < WND_OPS && posted - done < WND_OUT) {
			struct ndk_sge sg;

			i = posted % WND_OUT;
			seed[i] = 0x5eed0000u + (uint32_t)posted;
			ndk_pair_fill(src[i]->data, WND_LEN, seed[i]);
			memset(dst[i]->data, 0, WND_LEN);
			sg = ndk_pair_sge(write ? src[i] : dst[i], 0, WND_LEN);
			if ((write ? ndk_write(c->qp[0], dst[i], &sg, 1,
					       ndk_pair_raddr(dst[i], 0),
					       dst[i]->rtoken, 0) :
			     ndk_read(c->qp[0], dst[i], &sg, 1,
				      ndk_pair_raddr(src[i], 0),
				      src[i]->rtoken, 0)) !=
			    NDK_STATUS_SUCCESS) {
				fprintf(stderr, "  FAIL: post\n");
				goto out;
			}
			posted++;
		}
		if (ndk_pair_wait(c->icq[0], &r, 1, WAIT_S) != 1) {
			fprintf(stderr, "  FAIL: op %d: no completion\n", done);
			goto out;
		}
		i = done % WND_OUT;
		ndk_pair_result_str(&r, d, sizeof(d));
		if (r.status != NDK_STATUS_SUCCESS ||
		    r.request_context != dst[i] ||
		    ndk_pair_check(dst[i]->data, WND_LEN, seed[i]) >= 0) {
			fprintf(stderr, "  FAIL: op %d: %s or data wrong\n",
				done, d);
			goto out;
		}
		done++;
	}
	rc = 0;
out:
	pair_stop(p, ne, ns, false);
	ndk_pair_stats(p, 0, &st[0]);
	ndk_pair_stats(p, 1, &st[1]);
	freed = XS(&st[0], "read_ord_freed");
	ignored = XS(&st[1], "read_dup_ignored");
	lost = ne[0] != NULL && ne[1] != NULL ? ns[0].dropped + ns[1].dropped
		: 0;
	printf("  %s, ORD 2, %.1f %% lost, %d %ss of 64 KiB, %d posted at a "
	       "time: %d done, %" PRIu64 " frames lost; READs sent past ORD %"
	       PRIu64
	       ", re-reads not served %" PRIu64 ", ranges asked %" PRIu64
	       " (lost asks found by later answers %" PRIu64 "), expiries "
	       "%" PRIu64 " adaptive + %" PRIu64 " full; ORD held READs %"
	       PRIu64 " us, %" PRIu64 " us of it behind a range asked again; "
	       "RTT samples %" PRIu64 " (%" PRIu64 " from sequence NAKs), "
	       "voided %" PRIu64 ", expiries without an estimate %" PRIu64
	       ", sequence NAKs %" PRIu64 ", packets sent again %" PRIu64
	       "\n",
	       sr ? "selective repeat" : "go-back-N", ppm / 1e4, WND_OPS,
	       write ? "WRITE" : "READ", WND_OUT, done,
	       lost, freed, ignored, XS(&st[0], "read_gap_retries"),
	       XS(&st[0], "read_reread_lost"),
	       XS(&st[0], "adaptive_retransmits"),
	       XS(&st[0], "retransmit_timeouts"),
	       XS(&st[0], "rd_ord_wait_us"), XS(&st[0], "rd_ord_loss_us"),
	       XS(&st[0], "rtt_samples"), XS(&st[0], "rtt_nak_samples"),
	       XS(&st[0], "rtt_voided"), XS(&st[0], "rto_no_rtt"),
	       XS(&st[0], "nak_seq_rcvd"), XS(&st[0], "retransmit_packets"));
	if (rc == 0 && XS(&st[0], "qp_errors") + XS(&st[1], "qp_errors")) {
		fprintf(stderr, "  FAIL: QPs went to ERROR\n");
		rc = -1;
	}
	if (write)
		goto write_checks;
	if (rc == 0 && (lost == 0 || XS(&st[0], "read_gap_retries") == 0)) {
		fprintf(stderr, "  FAIL: no response lost\n");
		rc = -1;
	}
	if (rc == 0 && sr && freed == 0) {
		printf("  no READ let past ORD with this loss pattern\n");
		rc = 1;
	}
	if (rc == 0 && !sr && freed != 0) {
		fprintf(stderr, "  FAIL: READs past ORD with go-back-N\n");
		rc = -1;
	}
	if (rc == 0 && ignored != 0) {
		fprintf(stderr, "  FAIL: %" PRIu64 " re-reads not served\n",
			ignored);
		rc = -1;
	}
write_checks:
	/*
	 * WRITE, go-back-N: every go-back voids the samples in flight; the
	 * sequence NAKs give samples (the request after the one named was
	 * sent once), so the adaptive timer never falls back to the full
	 * timeout for want of an estimate (old code: 14 and 17 expiries).
	 * Each go-back costs what is in flight: the window halves per
	 * go-back (gbn_wnd), so the packets sent again stay within twice
	 * those needed (6,400; with the full 256-PSN window 21,560 to 29,276).
	 */
	if (rc == 0 && write && (XS(&st[0], "rtt_nak_samples") == 0 ||
				 XS(&st[0], "rto_no_rtt") > 2)) {
		fprintf(stderr, "  FAIL: no RTT estimate under go-back-N\n");
		rc = -1;
	}
	if (rc == 0 && write && XS(&st[0], "retransmit_packets") >
	    2ull * WND_OPS * (WND_LEN / 4096)) {
		fprintf(stderr, "  FAIL: a window sent again per loss\n");
		rc = -1;
	}
	if (rc != 0)
		ndk_pair_print_stats(p, "    ");
	ndk_pair_destroy(p);     /* buffers and the connection too */
	return rc;
}

static int
t_sr_read_window(void)
{
	int rc = 1;

	for (uint32_t a = 0; a < WND_SEEDS && rc == 1; a++)
		rc = window_run(1, false, 30000, a);
	if (rc == 1)
		fprintf(stderr, "  FAIL: no READ went past ORD in %d loss "
			"patterns (a READ waiting for a range held ORD)\n",
			WND_SEEDS);
	return rc == 0 ? 0 : -1;
}

static int t_gbn_read_window(void) { return window_run(0, false, 30000, 0); }
static int t_gbn_write_window(void) { return window_run(0, true, 80000, 0); }

#define KIND_CASE(fn, kind, ppm, reo, sr) \
	static int fn(void) { return kind_loss(kind, ppm, reo, sr); }
KIND_CASE(t_sr_write_01, 1, 1000, false, true)
KIND_CASE(t_sr_write_1, 1, 10000, false, true)
KIND_CASE(t_sr_write_5, 1, 50000, false, true)
KIND_CASE(t_sr_write_01_reo, 1, 1000, true, true)
KIND_CASE(t_sr_write_1_reo, 1, 10000, true, true)
KIND_CASE(t_sr_write_5_reo, 1, 50000, true, true)
KIND_CASE(t_sr_send_01, 0, 1000, false, true)
KIND_CASE(t_sr_send_1, 0, 10000, false, true)
KIND_CASE(t_sr_send_5, 0, 50000, false, true)
KIND_CASE(t_sr_send_01_reo, 0, 1000, true, true)
KIND_CASE(t_sr_send_1_reo, 0, 10000, true, true)
KIND_CASE(t_sr_send_5_reo, 0, 50000, true, true)
KIND_CASE(t_sr_read_01, 2, 1000, false, true)
KIND_CASE(t_sr_read_1, 2, 10000, false, true)
KIND_CASE(t_sr_read_5, 2, 50000, false, true)
KIND_CASE(t_sr_read_01_reo, 2, 1000, true, true)
KIND_CASE(t_sr_read_1_reo, 2, 10000, true, true)
KIND_CASE(t_sr_read_5_reo, 2, 50000, true, true)
/* The same workloads with go-back-N, for comparison (figures). */
KIND_CASE(t_gbn_write_1, 1, 10000, false, false)
KIND_CASE(t_gbn_read_1, 2, 10000, false, false)
KIND_CASE(t_gbn_write_1_reo, 1, 10000, true, false)

static const struct ndk_test_case cases[] = {
	{ "sr_write_loss_0.1pct", t_sr_write_01 },
	{ "sr_write_loss_1pct", t_sr_write_1 },
	{ "sr_write_loss_5pct", t_sr_write_5 },
	{ "sr_write_loss_0.1pct_reorder", t_sr_write_01_reo },
	{ "sr_write_loss_1pct_reorder", t_sr_write_1_reo },
	{ "sr_write_loss_5pct_reorder", t_sr_write_5_reo },
	{ "sr_send_loss_0.1pct", t_sr_send_01 },
	{ "sr_send_loss_1pct", t_sr_send_1 },
	{ "sr_send_loss_5pct", t_sr_send_5 },
	{ "sr_send_loss_0.1pct_reorder", t_sr_send_01_reo },
	{ "sr_send_loss_1pct_reorder", t_sr_send_1_reo },
	{ "sr_send_loss_5pct_reorder", t_sr_send_5_reo },
	{ "sr_read_loss_0.1pct", t_sr_read_01 },
	{ "sr_read_loss_1pct", t_sr_read_1 },
	{ "sr_read_loss_5pct", t_sr_read_5 },
	{ "sr_read_loss_0.1pct_reorder", t_sr_read_01_reo },
	{ "sr_read_loss_1pct_reorder", t_sr_read_1_reo },
	{ "sr_read_loss_5pct_reorder", t_sr_read_5_reo },
	{ "gbn_write_loss_1pct", t_gbn_write_1 },
	{ "gbn_read_loss_1pct", t_gbn_read_1 },
	{ "gbn_write_loss_1pct_reorder", t_gbn_write_1_reo },
	{ "sr_read_ord_window", t_sr_read_window },
	{ "gbn_read_ord_window", t_gbn_read_window },
	{ "gbn_write_loss_8pct", t_gbn_write_window },
};
#define SUITE "rc_sr"
#else
static int t_loss_1pct_mtu4096(void) { return run_loss(10000, 0, 4096, 11); }
static int t_loss_5pct_mtu4096(void) { return run_loss(50000, 0, 4096, 12); }
static int t_loss_5pct_mtu1024(void) { return run_loss(50000, 0, 1024, 10); }
/* Corruption too: the ICRC (or header checks) must catch every flip. */
static int t_corrupt_1pct(void) { return run_loss(10000, 10000, 4096, 11); }

/* READs alone, 3 % of the frames corrupted, nothing else. */
static int
t_read_corrupt_3pct(void)
{
	int rc;

	g_reads_only = true;
	rc = run_loss(0, 30000, 4096, 11);
	g_reads_only = false;
	return rc;
}

/* READs alone, a share of the frames dropped and nothing else. */
static int
read_loss(uint32_t ppm)
{
	int rc;

	g_reads_only = true;
	g_drop_only = true;
	rc = run_loss(ppm, 0, 4096, 12);
	g_reads_only = false;
	g_drop_only = false;
	return rc;
}

/* READs alone, 25 % of the frames overtaken by three others, no loss. */
static int
t_read_reorder(void)
{
	int rc;

	g_reorder_ppm = 250000;
	rc = read_loss(0);
	g_reorder_ppm = 0;
	return rc;
}

static int t_read_loss_01pct(void) { return read_loss(1000); }
static int t_read_loss_1pct(void) { return read_loss(10000); }
static int t_read_loss_5pct(void) { return read_loss(50000); }

static const struct ndk_test_case cases[] = {
	{ "loss_1pct_mtu4096", t_loss_1pct_mtu4096 },
	{ "loss_5pct_mtu4096", t_loss_5pct_mtu4096 },
	{ "loss_5pct_mtu1024", t_loss_5pct_mtu1024 },
	{ "loss_and_corruption_1pct", t_corrupt_1pct },
	{ "read_corruption_3pct", t_read_corrupt_3pct },
	{ "read_loss_0.1pct", t_read_loss_01pct },
	{ "read_loss_1pct", t_read_loss_1pct },
	{ "read_loss_5pct", t_read_loss_5pct },
	{ "read_reorder_25pct", t_read_reorder },
};
#define SUITE "rc_loss"
#endif

int
main(int argc, char **argv)
{
	int rc;

	if (ndk_test_eal_init("test_func_" SUITE, "0-1", NULL) != 0)
		return 1;
	rc = ndk_test_run(SUITE, cases, RTE_DIM(cases), argc, argv);
	rte_eal_cleanup();
	return rc;
}
