/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * ndk-pingpong: ibv_rc_pingpong on an ndk-roce adapter.
 *
 *   server:  ndk-pingpong -l 0 --no-pci --vdev=... -- --ip 10.0.0.1 [opts]
 *   client:  ndk-pingpong -l 1 --no-pci --vdev=... -- --ip 10.0.0.2 [opts]
 *            <server>
 *
 * One RC QP per side, connected with the QPN/PSN/GID exchange of
 * ibv_rc_pingpong over TCP (wire-compatible with it, see pp_exch.c); then
 * the client sends, each side answers every message it receives, and both
 * print ibv_rc_pingpong's result lines. With -q N (or --srq, N = 16) it is
 * ibv_srq_pingpong instead: N RC QPs whose receives come from one SRQ,
 * its exchange of 256 addresses, a SEND in flight per QP (pp_run.c).
 * The adapter is polled by the first worker lcore (ndk_poller) or, with a
 * single lcore, by the main thread between CQ polls.
 *
 * Shutdown is ordered for memif, whose PMD may crash when a peer
 * disconnects while it is busy-polling (platform notes): once both loops
 * are over nothing needs the link, so
 *   client: send "fin", keep polling until the server's "fin", stop
 *           polling, close the adapter and the port, close the socket;
 *   server: keep polling until the client's "fin" (and its own loop is
 *           done), stop polling, send "fin", wait for the client to close
 *           the socket (it has closed its port by then), then close.
 * Nobody polls when a port goes away. A peer that closes the socket
 * without "fin" (ibv_rc_pingpong does, right after "done") gets a short
 * linger of polling instead, for its last acknowledgements.
 *
 * Exit status: 0 on success, 1 on any failure (reason on stderr).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "ndk_app_xstats.h"
#include "pingpong.h"

#define PP_LINK_S 10            /* port link must be up within this */
#define PP_FIN_S 30             /* closing handshake timeouts */
#define PP_LINGER_MS 200        /* polling after a peer left without fin */

/* ------------------------------------------------------------------ */
/* Set-up                                                              */
/* ------------------------------------------------------------------ */

static int
pp_resolve_port(struct pp_ctx *c)
{
	if (c->o.ib_dev != NULL &&
	    rte_eth_dev_get_port_by_name(c->o.ib_dev, &c->o.port_id) != 0) {
		fprintf(stderr, "ndk-pingpong: no DPDK device named '%s'\n",
			c->o.ib_dev);
		return -1;
	}
	if (!rte_eth_dev_is_valid_port(c->o.port_id)) {
		fprintf(stderr, "ndk-pingpong: no DPDK port %u (%u ports; give "
			"the EAL a device, e.g. --vdev=net_memif0,...)\n",
			c->o.port_id, rte_eth_dev_count_avail());
		return -1;
	}
	return 0;
}

static int
pp_open(struct pp_ctx *c)
{
	struct ndk_adapter_config cfg = {
		.port_id = c->o.port_id,
		.configure_port = true,
		.ipv4 = c->o.ipv4,
		.max_path_mtu = c->o.mtu,
		.socket_id = SOCKET_ID_ANY,
	};
	uint32_t isize = sizeof(c->info);
	unsigned int lcore;
	ndk_status_t st;
	int rc;

	memcpy(cfg.ipv6, c->o.ipv6, sizeof(cfg.ipv6));
	st = ndk_adapter_open(&cfg, &c->ad);
	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "Couldn't open an adapter on port %u: %s\n",
			c->o.port_id, ndk_status_str(st));
		c->ad = NULL;
		return -1;
	}
	st = ndk_query_adapter_info(c->ad, &c->info, &isize);
	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "ndk_query_adapter_info: %s\n",
			ndk_status_str(st));
		return -1;
	}
	if (c->o.num_qp != 0 && c->o.rx_depth > c->info.max_srq_depth) {
		fprintf(stderr, "ndk-pingpong: -r %u exceeds the adapter's SRQ "
			"depth (%u; 0: no SRQs)\n", c->o.rx_depth,
			c->info.max_srq_depth);
		return -1;
	}
	if (c->o.size > c->info.max_transfer_length ||
	    c->o.rx_depth > c->info.max_receive_queue_depth ||
	    c->o.rx_depth + c->num_qp > c->info.max_cq_depth) {
		fprintf(stderr, "ndk-pingpong: size %u / rx-depth %u exceed "
			"the adapter's limits (%u bytes, %u receives)\n",
			c->o.size, c->o.rx_depth,
			c->info.max_transfer_length,
			RTE_MIN(c->info.max_receive_queue_depth,
				c->info.max_cq_depth - 1));
		return -1;
	}
	lcore = rte_get_next_lcore(-1, 1, 0);
	if (lcore < RTE_MAX_LCORE) {
		rc = ndk_poller_start(lcore, &c->ad, 1, &c->poller);
		if (rc != 0) {
			fprintf(stderr, "Couldn't start a poller on lcore %u: "
				"%s\n", lcore, strerror(-rc));
			c->poller = NULL;
			return -1;
		}
	}
	c->polling = true;
	return 0;
}

static int
pp_create(struct pp_ctx *c)
{
	const uint32_t size = c->o.size;
	const long page = sysconf(_SC_PAGESIZE);
	uint32_t inline_size = 0;
	size_t len = c->o.validate ? 2 * (size_t)size : size;
	ndk_status_t st;

	c->mem = rte_malloc("ndk_pingpong", len, (unsigned int)page);
	if (c->mem == NULL) {
		fprintf(stderr, "Couldn't allocate work buf (%zu bytes of "
			"DPDK memory).\n", len);
		return -1;
	}
	c->sbuf = c->mem;
	c->rbuf = c->o.validate ? c->mem + size : c->mem;
	/* ibv_srq_pingpong's buffer is zeroed, ibv_rc_pingpong's is not. */
	memset(c->mem, c->o.num_qp != 0 ? 0 : PP_FILL, len);
	/* ibv_rc_pingpong's client marks every page with 0 under --chk. */
	if (c->o.validate)
		for (uint32_t i = 0; i < size; i += (uint32_t)page)
			c->sbuf[i] = 0;

	st = ndk_create_pd(c->ad, &c->pd);
	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "Couldn't allocate PD: %s\n",
			ndk_status_str(st));
		c->pd = NULL;
		return -1;
	}
	st = ndk_create_mr(c->pd, false, &c->mr);
	if (st == NDK_STATUS_SUCCESS)
		st = ndk_register_mr(c->mr, c->mem, len,
				     NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "Couldn't register MR: %s\n",
			ndk_status_str(st));
		return -1;
	}
	c->token = ndk_mr_local_token(c->mr);

	st = ndk_create_cq(c->ad, c->o.rx_depth + c->num_qp,
			   c->o.use_event ? pp_cq_notify : NULL, c, &c->cq);
	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "Couldn't create CQ: %s\n", ndk_status_str(st));
		c->cq = NULL;
		return -1;
	}
	/* Like ibv_rc_pingpong: inline when the message fits. */
	if (size <= c->info.max_inline_data_size) {
		inline_size = size;
		c->send_flags |= NDK_OP_FLAG_INLINE;
	}
	if (c->o.num_qp == 0) {
		st = ndk_create_qp(c->pd, c->cq, c->cq, (void *)(uintptr_t)1,
				   c->o.rx_depth, 1, 1, 1, inline_size,
				   &c->qp[0]);
		if (st != NDK_STATUS_SUCCESS) {
			fprintf(stderr, "Couldn't create QP: %s\n",
				ndk_status_str(st));
			c->qp[0] = NULL;
			return -1;
		}
		return 0;
	}
	/* ibv_srq_pingpong: an SRQ of rx_depth, QPs with one SEND each. */
	st = ndk_create_srq(c->pd, c->o.rx_depth, 1, 0, NULL, NULL, &c->srq);
	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "Couldn't create SRQ: %s\n",
			ndk_status_str(st));
		c->srq = NULL;
		return -1;
	}
	for (uint32_t i = 0; i < c->num_qp; i++) {
		st = ndk_create_qp_with_srq(c->pd, c->cq, c->cq, c->srq,
					    (void *)(uintptr_t)(i + 1), 1, 1,
					    inline_size, &c->qp[i]);
		if (st != NDK_STATUS_SUCCESS) {
			fprintf(stderr, "Couldn't create QP[%u]: %s\n", i,
				ndk_status_str(st));
			c->qp[i] = NULL;
			return -1;
		}
	}
	return 0;
}

/* QP @p i: INIT -> RTR -> RTS towards @p rem. */
static int
pp_connect_one(struct pp_ctx *c, uint32_t i, const struct pp_dest *rem)
{
	struct ndk_qp_attr attr;
	ndk_status_t st;
	uint32_t ip = 0;
	bool v4 = pp_gid_to_ipv4(rem->gid, &ip) == 0;
	static const uint8_t zero[16];

	/* The peer's GID is its address: IPv4-mapped, or IPv6. */
	if (memcmp(rem->gid, zero, sizeof(zero)) == 0) {
		fprintf(stderr, "The peer sent no GID (ibv_rc_pingpong needs "
			"-g on RoCE)\n");
		return -1;
	}
	if (rem->qpn == 0) {
		fprintf(stderr, "The peer sent no QP number for QP %u (do both "
			"sides use the same -q?)\n", i);
		return -1;
	}
	if (v4 != (pp_gid_to_ipv4(c->my[i].gid, &(uint32_t){ 0 }) == 0)) {
		fprintf(stderr, "The peer's GID is of the other family than "
			"ours (-g picks ours: ::ffff:<ip>, then <ip6>)\n");
		return -1;
	}
	memset(&attr, 0, sizeof(attr));
	if (v4)
		attr.dest_ip = ip;
	else
		memcpy(attr.dest_ip6, rem->gid, sizeof(attr.dest_ip6));
	if (c->o.peer_mac_set)
		memcpy(attr.dest_mac, c->o.peer_mac, sizeof(attr.dest_mac));
	attr.dest_qpn = rem->qpn;
	attr.rq_psn = rem->psn;
	attr.sq_psn = c->my[i].psn;
	attr.path_mtu = c->o.mtu;
	st = ndk_qp_connect(c->qp[i], &attr);
	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "Failed to connect QP %u (RTR/RTS): %s\n", i,
			ndk_status_str(st));
		return -1;
	}
	return 0;
}

/* Every QP towards the peer's addresses (pp_connect_fn). */
static int
pp_connect(void *arg, const struct pp_dest *rem)
{
	struct pp_ctx *c = arg;

	for (uint32_t i = 0; i < c->num_qp; i++)
		if (pp_connect_one(c, i, &rem[i]) != 0)
			return -1;
	return 0;
}

static int
pp_wait_link(struct pp_ctx *c)
{
	uint64_t end = rte_get_tsc_cycles() + PP_LINK_S * rte_get_tsc_hz();
	struct rte_eth_link link;

	for (;;) {
		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(c->o.port_id, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_UP)
			return 0;
		if (rte_get_tsc_cycles() > end)
			break;
		rte_delay_us_sleep(10 * 1000);
	}
	fprintf(stderr, "Port %u: link still down after %d s\n",
		c->o.port_id, PP_LINK_S);
	return -1;
}

/* ------------------------------------------------------------------ */
/* Shutdown                                                            */
/* ------------------------------------------------------------------ */

static void
pp_stop_polling(struct pp_ctx *c)
{
	if (c->poller != NULL)
		ndk_poller_stop(c->poller);
	c->poller = NULL;
	c->polling = false;
}

/*
 * Keep the adapter going until the peer's "fin".
 * @return 1 received, 0 the peer left without it, -1 timeout.
 */
static int
pp_await_fin(struct pp_ctx *c)
{
	uint64_t end = rte_get_tsc_cycles() + PP_FIN_S * rte_get_tsc_hz();
	struct pp_fin_rx rx = { .got = 0 };
	int rc;

	for (;;) {
		for (unsigned int i = 0; i < 64; i++)
			pp_service(c);
		rc = pp_fin_poll(c->sock, &rx, c->poller != NULL ? 50 : 0);
		if (rc != 0)
			return rc > 0 ? 1 : 0;
		if (rte_get_tsc_cycles() > end) {
			fprintf(stderr, "No closing message from the peer in "
				"%d s\n", PP_FIN_S);
			return -1;
		}
	}
}

/* The peer left without "fin": poll a little for its last ACKs. */
static void
pp_linger(struct pp_ctx *c)
{
	uint64_t end = rte_get_tsc_cycles() +
		rte_get_tsc_hz() * PP_LINGER_MS / 1000;

	while (rte_get_tsc_cycles() < end) {
		if (c->poller != NULL)
			rte_delay_us_sleep(1000);
		else
			pp_service(c);
	}
}

/* The closing handshake after a successful loop. @return 0 or -1. */
static int
pp_finish(struct pp_ctx *c)
{
	bool client = c->o.servername != NULL;
	int rc;

	if (client && pp_fin_send(c->sock) != 0) {
		pp_linger(c);
		return 0;
	}
	rc = pp_await_fin(c);
	if (rc == 0) {
		pp_linger(c);
		return 0;
	}
	pp_stop_polling(c);
	if (rc < 0)
		return -1;
	if (!client) {
		/* Not polling any more: the client may close its port. */
		if (pp_fin_send(c->sock) != 0 ||
		    pp_wait_eof(c->sock, PP_FIN_S * 1000) != 0)
			fprintf(stderr, "warning: the client did not close the "
				"connection; closing anyway\n");
	}
	return 0;
}

static void
pp_print_counters(struct pp_ctx *c)
{
	ndk_app_print_xstats(stderr, c->ad, "adapter counters (non-zero):",
			     "  ", 20, 12, true);
}

static void
pp_close(struct pp_ctx *c)
{
	pp_stop_polling(c);
	/* Nobody polls: every close below runs inline. */
	for (uint32_t i = 0; i < c->num_qp; i++) {
		if (c->qp[i] != NULL)
			ndk_close_qp(c->qp[i], NULL, NULL);
		c->qp[i] = NULL;
	}
	if (c->srq != NULL)
		ndk_close_srq(c->srq, NULL, NULL);
	c->srq = NULL;
	if (c->cq != NULL)
		ndk_close_cq(c->cq, NULL, NULL);
	if (c->mr != NULL)
		ndk_close_mr(c->mr, NULL, NULL);
	if (c->pd != NULL)
		ndk_close_pd(c->pd, NULL, NULL);
	if (c->ad != NULL) {
		ndk_adapter_close(c->ad);
		rte_eth_dev_close(c->o.port_id);
	}
	c->cq = NULL;
	c->mr = NULL;
	c->pd = NULL;
	c->ad = NULL;
	rte_free(c->mem);
	c->mem = NULL;
	if (c->ev_sem_ok)
		sem_destroy(&c->ev_sem);
	c->ev_sem_ok = false;
}

/* ------------------------------------------------------------------ */
/* main                                                                */
/* ------------------------------------------------------------------ */

static int
pp_run(struct pp_ctx *c)
{
	/* ibv_srq_pingpong exchanges its whole table, used or not. */
	const uint32_t nexch = c->o.num_qp != 0 ? PP_SRQ_TABLE : 1;
	struct timespec t0, t1;
	double usec;
	long long bytes;

	c->num_qp = c->o.num_qp != 0 ? c->o.num_qp : 1;
	c->stall_tsc = PP_STALL_S * rte_get_tsc_hz();
	if (pp_open(c) != 0 || pp_create(c) != 0)
		return -1;
	c->routs = pp_post_recv(c, c->o.rx_depth);
	if (c->routs < c->o.rx_depth) {
		fprintf(stderr, "Couldn't post receive (%u)\n", c->routs);
		return -1;
	}
	if (c->o.use_event) {
		/* The main thread sleeps only if an lcore polls for it. */
		if (c->poller != NULL) {
			if (sem_init(&c->ev_sem, 0, 0) != 0) {
				perror("sem_init");
				return -1;
			}
			c->ev_sem_ok = true;
		}
		ndk_arm_cq(c->cq, NDK_CQ_NOTIFY_ANY);
	}

	for (uint32_t i = 0; i < c->num_qp; i++) {
		struct pp_dest *d = &c->my[i];

		d->lid = 0;
		d->qpn = ndk_qp_num(c->qp[i]);
		d->psn = (uint32_t)lrand48() & 0xffffff;
		/* ::ffff:<ip> unless -g >= 1 picks <ip6> (or no --ip). */
		if (c->o.ipv4 != 0 && c->o.gid_idx <= 0)
			pp_gid_from_ipv4(d->gid, c->o.ipv4);
		else
			memcpy(d->gid, c->o.ipv6, sizeof(d->gid));
		pp_print_dest("local address: ", d);
	}

	/*
	 * A client waits for its link before it hands out its address: the
	 * peer's stack resolves it at once (rxe moves its QP to RTR then),
	 * and a peer whose carrier is still down flushes what it learned.
	 * A server's link may come up only when its client starts (memif),
	 * so it waits after the exchange.
	 */
	if (c->o.servername != NULL && pp_wait_link(c) != 0)
		return -1;
	if (c->o.servername != NULL)
		c->sock = pp_client_exch(&c->o, c->my, c->rem, nexch);
	else
		c->sock = pp_server_exch(&c->o, c->my, c->rem, nexch,
					 pp_connect, c);
	if (c->sock < 0)
		return -1;
	for (uint32_t i = 0; i < c->num_qp; i++)
		pp_print_dest("remote address:", &c->rem[i]);
	if (c->o.servername != NULL && pp_connect(c, c->rem) != 0)
		return -1;
	c->started = true;
	if (c->o.servername == NULL && pp_wait_link(c) != 0)
		return -1;

	for (uint32_t i = 0; i < c->num_qp; i++) {
		c->pending[i] = PP_RECV_WRID;
		if (c->o.servername != NULL) {
			if (pp_post_send(c, i) != 0)
				return -1;
			c->pending[i] |= PP_SEND_WRID;
		}
	}

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (pp_loop(c) != 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &t1);

	usec = (double)(t1.tv_sec - t0.tv_sec) * 1e6 +
		(double)(t1.tv_nsec - t0.tv_nsec) / 1e3;
	bytes = (long long)c->o.size * c->o.iters * 2;
	printf("%lld bytes in %.2f seconds = %.2f Mbit/sec\n", bytes,
	       usec / 1e6, (double)bytes * 8. / usec);
	printf("%u iters in %.2f seconds = %.2f usec/iter\n", c->o.iters,
	       usec / 1e6, usec / c->o.iters);

	if (pp_finish(c) != 0)
		return -1;
	if (c->bad_msgs != 0) {
		fprintf(stderr, "%" PRIu64 " of %u received messages had "
			"invalid contents\n", c->bad_msgs, c->rcnt);
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	static struct pp_ctx ctx;
	struct pp_ctx *c = &ctx;
	int ret, rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "ndk-pingpong: EAL initialisation failed: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	argc -= ret;
	argv += ret;
	argv[0] = (char *)(uintptr_t)"ndk-pingpong";
	optind = 0; /* glibc: rescan from scratch after the EAL's getopt */
	c->sock = -1;
	rc = pp_parse_args(argc, argv, &c->o);
	if (rc != 0) {
		rte_eal_cleanup();
		return rc < 0 ? 0 : 1;
	}
	srand48((long)getpid() * (long)time(NULL));

	rc = 0;
	if (pp_resolve_port(c) != 0 || pp_run(c) != 0) {
		rc = 1;
		if (c->started)
			pp_print_counters(c);
		/* A peer waiting for "fin" sees the connection close. */
		if (c->sock >= 0)
			close(c->sock);
		c->sock = -1;
	}
	pp_close(c);
	rte_eal_cleanup();
	/* The server waits for this close: our port is gone by now. */
	if (c->sock >= 0)
		close(c->sock);
	return rc;
}
