/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * ndk-perf: perftest's bandwidth and latency tests on an ndk-roce adapter.
 *
 *   ndk-perf [EAL args] -- <test> [options] --ip A.B.C.D [server-address]
 *   ib_write_bw [EAL args] -- [options] --ip A.B.C.D [server-address]
 *
 * Without a server address it waits for a client on the TCP port (18515);
 * with one it connects to it. Either side may be stock perftest 4.5 (same
 * options), which is why the order of everything below follows perftest's:
 * the TCP start (versions, sizes, MTU), the key handshakes around
 * connecting the QPs, then the test family's own flow (perf_bw.c,
 * perf_lat.c), which ends with perftest's closing handshake. With -R the
 * same messages travel on a CM-connected RC connection instead of TCP and
 * the QPs are connected through the CM (perf_cm.c).
 *
 * Threads: an ndk_poller polls the adapter on the first worker lcore and
 * the test runs on the main lcore; with one lcore the test loops (and the
 * waits for the peer) poll the adapter themselves.
 *
 * --raw and --raw-baseline (ndk-perf's own, both sides) run the test's
 * frames over the port with plain burst calls before anything polls the
 * adapter (perf_raw.c); --raw-baseline then runs the test and prints the
 * ratio of the two.
 *
 * Exit status: 0 when the test ran and (with --verify) the data was right.
 */

#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_ethdev.h>

#include "perf_ndk.h"

static const struct perf_test perf_tests[] = {
	{ "send_bw", PERF_SEND, PERF_BW },
	{ "write_bw", PERF_WRITE, PERF_BW },
	{ "read_bw", PERF_READ, PERF_BW },
	{ "send_lat", PERF_SEND, PERF_LAT },
	{ "write_lat", PERF_WRITE, PERF_LAT },
	{ "read_lat", PERF_READ, PERF_LAT },
};

const struct perf_test *
perf_test_find(const char *name)
{
	if (strncmp(name, "ib_", 3) == 0)
		name += 3;
	for (size_t i = 0; i < RTE_DIM(perf_tests); i++)
		if (strcmp(name, perf_tests[i].name) == 0)
			return &perf_tests[i];
	return NULL;
}

/* perftest's defaults and the limits it forces on them. */
static int
perf_params_init(struct perf_ctx *c)
{
	const struct perf_opts *o = c->o;
	struct perf_params *p = &c->p;
	const bool bw = o->test->kind == PERF_BW;
	const bool dur = o->duration != 0;

	memset(p, 0, sizeof(*p));
	p->test = o->test;
	p->verb = o->test->verb;
	p->kind = o->test->kind;
	p->server = o->servername == NULL;
	p->size = o->size != 0 ? o->size : bw ? PERF_DEF_SIZE_BW :
		PERF_DEF_SIZE_LAT;
	p->all_sizes = o->all_sizes;
	p->iters = o->iters != 0 ? o->iters :
		(bw && p->verb == PERF_WRITE) ? PERF_DEF_ITERS_WB :
		PERF_DEF_ITERS;
	p->duration = o->duration;
	p->margin = o->margin >= 0 ? o->margin : o->duration / 4;
	p->num_qps = o->num_qps;
	p->post_list = o->post_list > 1 ? o->post_list : 1;
	/* Whole post lists: the default count rounded up to a multiple. */
	if (o->iters == 0)
		p->iters = RTE_ALIGN_MUL_CEIL(p->iters, p->post_list);
	p->tx_depth = o->tx_depth != 0 ? o->tx_depth :
		bw ? RTE_MAX((unsigned int)PERF_DEF_TX_BW, p->post_list) :
		PERF_DEF_TX_LAT;
	if (bw && !dur && p->tx_depth > p->iters)
		p->tx_depth = (unsigned int)p->iters;
	p->rx_depth = 1;
	if (p->verb == PERF_SEND) {
		p->rx_depth = o->rx_depth != 0 ? o->rx_depth :
			PERF_DEF_RX_SEND;
		if (!dur && p->rx_depth > p->iters)
			p->rx_depth = (unsigned int)p->iters;
		/* All QPs' receives must fit the receive CQ. */
		if ((uint64_t)p->rx_depth * o->num_qps + 16 >
		    c->info.max_cq_depth)
			p->rx_depth = (c->info.max_cq_depth - 16) / o->num_qps;
	}
	p->cq_mod = 1;
	if (bw) {
		p->cq_mod = o->cq_mod != 0 ? o->cq_mod : PERF_DEF_CQ_MOD;
		if (p->post_list > 1 && o->cq_mod == 0) {
			/* perftest: one completion per list by default. */
			p->cq_mod = p->post_list;
			perf_print_line();
			printf("Post List requested - CQ moderation will be the "
			       "size of the post list\n");
		}
		if (p->cq_mod > p->tx_depth)
			p->cq_mod = p->tx_depth;
	}
	p->gid_index = o->gid_index >= 0 ? o->gid_index : 0;
	p->inline_size = o->inline_size >= 0 && p->verb != PERF_READ ?
		o->inline_size : 0;
	if ((uint32_t)p->inline_size > c->info.max_inline_data_size) {
		fprintf(stderr, " Max inline of this adapter is %u\n",
			c->info.max_inline_data_size);
		return -1;
	}
	p->out_reads = 1;
	if (p->verb == PERF_READ) {
		p->out_reads = (int)c->info.max_outbound_read_limit;
		if (o->out_reads > 0) {
			if (o->out_reads > p->out_reads) {
				fprintf(stderr, " Number of outstanding reads "
					"is above max = %d\n", p->out_reads);
				return -1;
			}
			p->out_reads = o->out_reads;
		}
	}
	p->report_gbits = o->report_gbits;
	p->out_json = o->out_json;
	p->json_file = o->json_file;
	p->no_peak = o->no_peak || dur;
	p->duplex = o->bidir;
	p->rdma_cm = o->rdma_cm;
	p->cm_xchg = o->rdma_cm || o->cm_xchg;
	/* The ethdev's name: -d names perftest's verbs device, ignored. */
	if (rte_eth_dev_get_name_by_port(o->port_id, p->device) != 0)
		snprintf(p->device, sizeof(p->device), "port%u", o->port_id);
	p->tsc_hz = (double)rte_get_tsc_hz();

	p->mtu = o->mtu != 0 ? o->mtu : perf_ndk_port_mtu(c);
	if (p->mtu > c->info.max_path_mtu) {
		fprintf(stderr, " MTU %u is above the adapter's %u\n", p->mtu,
			c->info.max_path_mtu);
		return -1;
	}
	if (p->kind == PERF_LAT && p->num_qps > 1)
		fprintf(stderr, " Latency tests use QP 0 only\n");
	if (o->use_srq && c->info.max_srq_depth == 0) {
		fprintf(stderr, " --use_srq: the adapter has no SRQs\n");
		return -1;
	}
	return 0;
}

/*
 * perftest 4.5's handshakes between its start and the test (N QPs):
 *   bw  RDMA: keys x N, connect, keys x N (printing the remote), sync
 *   bw  SEND: keys x N, connect, sync, keys x N (printing the remote)
 *   lat RDMA: sync, keys x N, connect, keys x N (printing the remote), sync
 *   lat SEND: as bw SEND
 * Every handshake carries the same keys, so only their number matters to
 * the peer; we connect once the first round gave us the peer's QPs.
 */
static int
perf_connect_flow(struct perf_ctx *c)
{
	const struct perf_params *p = &c->p;
	const bool send = p->verb == PERF_SEND;
	struct perf_qp *q0 = &c->qps[0];

	if (p->kind == PERF_LAT && !send &&
	    perf_xchg_keys(&c->x, &q0->my, &q0->rem) != 0)
		return -1;
	for (unsigned int i = 0; i < p->num_qps; i++)
		if (perf_xchg_keys(&c->x, &c->qps[i].my, &c->qps[i].rem) != 0)
			return -1;
	/* -R: the CM connected them already (perf_cm_connect_qps()). */
	if (!p->rdma_cm && perf_ndk_connect(c) != 0)
		return -1;
	if (send && perf_xchg_keys(&c->x, &q0->my, &q0->rem) != 0)
		return -1;
	for (unsigned int i = 0; i < p->num_qps; i++)
		perf_print_dest(p, &c->qps[i].my, false);
	for (unsigned int i = 0; i < p->num_qps; i++) {
		if (perf_xchg_keys(&c->x, &c->qps[i].my, &c->qps[i].rem) != 0)
			return -1;
		perf_print_dest(p, &c->qps[i].rem, true);
	}
	fflush(stdout);
	if (!send && perf_xchg_keys(&c->x, &q0->my, &q0->rem) != 0)
		return -1;
	return 0;
}

/*
 * The end, ordered so that a link is never torn down from both ends at
 * once (net_memif crashes then): the server stops its port, then closes
 * the connection; the client waits for that (and for its link to go
 * down) before stopping its own. A perftest peer has closed already.
 */
static void
perf_shutdown(struct perf_ctx *c, bool orderly)
{
	if (c->cm != NULL) {
		/* -R: the client disconnects, the server waits for it, and
		 * only then stops its port (perf_cm.c). */
		if (orderly)
			perf_cm_end(c);
		perf_ndk_quiesce(c);
		if (orderly && !c->p.server)
			perf_ndk_wait_peer_stop(c, 2000);
		perf_ndk_close(c);
		return;
	}
	if (orderly && c->x.fd >= 0 && !c->p.server) {
		perf_xchg_wait_eof(&c->x, 5000);
		perf_ndk_wait_peer_stop(c, 2000);
	}
	perf_ndk_close(c);
	if (orderly && c->x.fd >= 0 && c->p.server) {
		perf_xchg_shutdown(&c->x);
		perf_xchg_wait_eof(&c->x, 5000);
	}
	perf_xchg_close(&c->x);
}

/*
 * -R and -z: no TCP. The adapter is polled from the start (the CM runs on
 * it) and the exchange travels on a CM connection of its own; with -R the
 * test QPs are connected through the CM before the test information is
 * printed (perftest's create_rdma_cm_connection comes before it too).
 */
static int
perf_run_cm(struct perf_ctx *c)
{
	if (perf_ndk_wait_link(c) != 0 || perf_ndk_poll_start(c) != 0)
		return -1;
	if (c->inline_poll) {
		c->x.idle = perf_ndk_idle;
		c->x.idle_arg = c;
	}
	if (perf_cm_open(c) != 0) {
		fprintf(stderr, " Unable to perform rdma_client function\n");
		return -1;
	}
	/* -z: only the exchange; the QPs are connected from the keys. */
	if (perf_xchg_start(&c->x, &c->p.mtu) != 0 ||
	    perf_ndk_resources(c) != 0 ||
	    (c->p.rdma_cm && perf_cm_connect_qps(c) != 0))
		return -1;
	perf_print_test_info(&c->p);
	if (perf_connect_flow(c) != 0)
		return -1;
	return c->p.kind == PERF_BW ? perf_bw_run(c) : perf_lat_run(c);
}

static int
perf_run(struct perf_ctx *c)
{
	int rc;

	if (perf_ndk_open(c) != 0 || perf_params_init(c) != 0)
		return -1;
	if (c->p.server)
		perf_print_waiting();
	if (c->p.cm_xchg)
		return perf_run_cm(c);
	if (perf_xchg_open(&c->x, c->o->servername, c->o->tcp_port) != 0) {
		fprintf(stderr, " Unable to init the socket connection\n");
		return -1;
	}
	if (perf_ndk_wait_link(c) != 0 ||
	    perf_xchg_start(&c->x, &c->p.mtu) != 0)
		return -1;
	/* The raw mode has the port to itself: nothing polls the adapter. */
	if (c->o->raw != PERF_RAW_NONE && perf_raw_run(c) != 0)
		return -1;
	if (c->o->raw == PERF_RAW_ONLY)
		return 0;
	if (perf_ndk_poll_start(c) != 0)
		return -1;
	if (c->inline_poll) {
		c->x.idle = perf_ndk_idle;
		c->x.idle_arg = c;
	}
	if (perf_ndk_resources(c) != 0)
		return -1;
	perf_print_test_info(&c->p);
	if (perf_connect_flow(c) != 0)
		return -1;
	rc = c->p.kind == PERF_BW ? perf_bw_run(c) : perf_lat_run(c);
	if (rc == 0 && c->o->raw == PERF_RAW_BASELINE)
		perf_raw_print_ratio(c);
	return rc;
}

int
main(int argc, char **argv)
{
	const struct perf_test *via_name;
	struct perf_opts o;
	struct perf_ctx c;
	char *prog;
	int ret, rc;

	signal(SIGPIPE, SIG_IGN);
	prog = strdup(argv[0]);
	via_name = perf_test_find(basename(prog));

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "ndk-perf: rte_eal_init failed\n");
		return 2;
	}
	argc -= ret;
	argv += ret;
	argv[0] = prog;
	rc = perf_opts_parse(argc, argv, via_name, &o);
	if (rc != 0) {
		rte_eal_cleanup();
		return rc > 0 ? 0 : 2;
	}

	memset(&c, 0, sizeof(c));
	c.o = &o;
	c.x.fd = -1;
	rc = perf_run(&c);
	if (o.verify)
		printf(" Data verification: %s (%llu checks, %llu wrong)\n",
		       c.verify_errors == 0 ? "passed" : "FAILED",
		       (unsigned long long)c.verify_checks,
		       (unsigned long long)c.verify_errors);
	if (o.stats && c.ad != NULL)
		perf_ndk_print_stats(&c);
	if (rc != 0 && c.ad != NULL)
		perf_ndk_quiesce(&c);
	perf_shutdown(&c, rc == 0);
	free(c.tposted);
	free(c.tcompleted);
	rte_eal_cleanup();
	free(prog);
	return rc == 0 && c.verify_errors == 0 ? 0 : 1;
}
