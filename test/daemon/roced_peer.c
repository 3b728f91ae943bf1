/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * roced-peer: the far end of the daemon tests. One adapter on the port the
 * EAL arguments make (a memif client), polled by the main thread; it
 * connects to ndk-roced's echo service through the connection manager,
 * sends --count messages and checks that each comes back intact, then
 * takes orders on standard input so the test can look at the daemon
 * while the connection stands and shut both sides down in order:
 *
 *   prints  "CONNECTED" once connected, then, after the echoes,
 *           "READY qpn=<our QPN> dest_qpn=<daemon's QPN> buf=<address>"
 *   reads   "disconnect" -> DREQ/DREP, prints "DISCONNECTED"
 *           "stop"       -> stops polling, prints "STOPPED"
 *           "register <address>" -> registers 4 KiB there with a new MR,
 *                           prints "REGISTER <status>"
 *           "register-heap" -> the same with a buffer of rte_malloc()
 *           "alloc <bytes>" -> ndk_adapter_alloc_buffer() then free,
 *                           prints "ALLOC <status>"
 *           "close" / EOF -> closes the adapter and the port, exits 0
 *
 * Attached, once the daemon has stopped or died (ndk_adapter_health() or
 * a post says STATUS_DEVICE_REMOVED) it polls once more and prints
 * "REMOVED <status> srq=<status>", the second what the callback of an SRQ
 * it holds (unused otherwise) was told of the SRQ's death
 * (STATUS_INTERNAL_ERROR, once; "none" if nothing), closes everything and
 * exits 3.
 *
 *   roced-peer <EAL args> -- --ip A.B.C.D --daemon A.B.C.D [--port N]
 *                            [--count N] [--size N]
 *
 * Started as a DPDK secondary process of an ndk-roced (--proc-type=
 * secondary --file-prefix=<the daemon's>), the same code runs attached:
 * port 0 is then the daemon's and libndk picks the attach provider.
 */

#include <arpa/inet.h>
#include <getopt.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>

#include "ndk.h"

#define WAIT_S 30

static struct {
	struct ndk_adapter *ad;
	struct ndk_pd *pd;
	struct ndk_cq *cq;
	struct ndk_qp *qp;
	struct ndk_connector *conn;
	struct ndk_mr *mr;
	struct ndk_srq *srq;          /* told of its death (attached) */
	int srq_notes;
	ndk_status_t srq_st;
	uint8_t *buf;                 /* [0, size): send; [size, 2size): recv */
	uint32_t token;
	int done;
	ndk_status_t st;
	bool polling;
} g = { .polling = true };

static void
fail(const char *what)
{
	fprintf(stderr, "roced-peer: %s\n", what);
	exit(1);
}

static void close_all(void);

static void
srq_note(void *ctx, ndk_status_t st)
{
	RTE_SET_USED(ctx);
	g.srq_st = st;
	g.srq_notes++;
}

/*
 * The daemon is gone: every call says so; the SRQ died with it (the poll
 * tells its callback); close what we hold, exit 3.
 */
static void
removed(ndk_status_t st)
{
	ndk_adapter_poll(g.ad);
	printf("REMOVED %s srq=%s\n", ndk_status_str(st),
	       g.srq_notes == 0 ? "none" : g.srq_notes > 1 ? "twice" :
	       ndk_status_str(g.srq_st));
	fflush(stdout);
	close_all();
	exit(3);
}

static void
check_health(void)
{
	ndk_status_t st = ndk_adapter_health(g.ad);

	if (st != NDK_STATUS_SUCCESS)
		removed(st);
}

static bool
expired(uint64_t t0)
{
	return rte_get_timer_cycles() - t0 > WAIT_S * rte_get_timer_hz();
}

static void
req_done(void *ctx, ndk_status_t st)
{
	RTE_SET_USED(ctx);
	g.st = st;
	__atomic_store_n(&g.done, 1, __ATOMIC_RELEASE);
}

/* Poll until the request started with status @p st completes. */
static void
wait_req(ndk_status_t st, const char *what)
{
	uint64_t t0 = rte_get_timer_cycles();

	if (st != NDK_STATUS_PENDING && st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "roced-peer: %s: %s\n", what,
			ndk_status_str(st));
		exit(1);
	}
	while (st == NDK_STATUS_PENDING &&
	       !__atomic_load_n(&g.done, __ATOMIC_ACQUIRE)) {
		if (expired(t0))
			fail(what);
		ndk_adapter_poll(g.ad);
		check_health();
	}
	g.done = 0;
	if (st == NDK_STATUS_PENDING && g.st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "roced-peer: %s: %s\n", what,
			ndk_status_str(g.st));
		exit(1);
	}
}

/*
 * Wait for the successful completions of one SEND and one RECEIVE, in
 * either order: on a lossy link the echo may arrive before the ACK of the
 * SEND it answers. @return the bytes received.
 */
static uint32_t
wait_echo(void)
{
	uint64_t t0 = rte_get_timer_cycles();
	bool sent = false, received = false;
	uint32_t bytes = 0;
	struct ndk_result_ex r;

	while (!sent || !received) {
		if (ndk_get_cq_results_ex(g.cq, &r, 1) == 0) {
			if (expired(t0))
				fail("no completion");
			ndk_adapter_poll(g.ad);
			check_health();
			continue;
		}
		if (r.status == NDK_STATUS_SUCCESS && r.type == NDK_OP_SEND &&
		    !sent) {
			sent = true;
		} else if (r.status == NDK_STATUS_SUCCESS &&
			   r.type == NDK_OP_RECEIVE && !received) {
			received = true;
			bytes = r.bytes_transferred;
		} else {
			fprintf(stderr, "roced-peer: completion type %d: %s\n",
				(int)r.type, ndk_status_str(r.status));
			exit(1);
		}
	}
	return bytes;
}

static void
open_all(uint32_t ip, uint32_t size)
{
	struct ndk_adapter_config ac = {
		.port_id = 0, .configure_port = true, .ipv4 = ip,
		.socket_id = SOCKET_ID_ANY,
	};
	struct rte_eth_link link = { 0 };
	uint64_t t0 = rte_get_timer_cycles();

	if (ndk_adapter_open(&ac, &g.ad) != NDK_STATUS_SUCCESS)
		fail("adapter");
	while (rte_eth_link_get_nowait(0, &link) == 0 &&
	       link.link_status != RTE_ETH_LINK_UP) {
		if (expired(t0))
			fail("link down");
		rte_delay_us_sleep(10000);
	}
	/* Attached: from our heap in the daemon (the only memory it lets us
	 * register); embedded: from the port's socket heap. */
	if (ndk_adapter_alloc_buffer(g.ad, 2 * (size_t)size, 64,
				     (void **)&g.buf) != NDK_STATUS_SUCCESS ||
	    ndk_create_pd(g.ad, &g.pd) != NDK_STATUS_SUCCESS ||
	    ndk_create_srq(g.pd, 4, 1, 0, srq_note, NULL, &g.srq) !=
	    NDK_STATUS_SUCCESS ||
	    ndk_create_cq(g.ad, 64, NULL, NULL, &g.cq) != NDK_STATUS_SUCCESS ||
	    ndk_create_qp(g.pd, g.cq, g.cq, NULL, 8, 8, 1, 1, 0, &g.qp) !=
	    NDK_STATUS_SUCCESS ||
	    ndk_create_mr(g.pd, false, &g.mr) != NDK_STATUS_SUCCESS ||
	    ndk_register_mr(g.mr, g.buf, 2 * (size_t)size,
			    NDK_MR_FLAG_ALLOW_LOCAL_WRITE) != NDK_STATUS_SUCCESS)
		fail("resources");
	g.token = ndk_mr_local_token(g.mr);
}

static void
connect_to(uint32_t daemon, uint16_t port)
{
	struct sockaddr_in src = { .sin_family = AF_INET };
	struct sockaddr_in dst = { .sin_family = AF_INET };

	dst.sin_addr.s_addr = daemon;
	dst.sin_port = htons(port);
	if (ndk_create_connector(g.ad, &g.conn) != NDK_STATUS_SUCCESS)
		fail("connector");
	wait_req(ndk_connect(g.conn, g.qp, (struct sockaddr *)&src,
			     sizeof(src), (struct sockaddr *)&dst, sizeof(dst),
			     1, 1, NULL, 0, req_done, NULL), "connect");
	wait_req(ndk_complete_connect(g.conn, NULL, NULL, req_done, NULL),
		 "complete connect");
}

static void
echo(uint32_t count, uint32_t size)
{
	uint8_t *out = g.buf, *in = g.buf + size;
	ndk_status_t st;

	for (uint32_t i = 0; i < count; i++) {
		uint32_t len = 1 + (i * 997u) % size;
		struct ndk_sge r = { in, size, g.token };
		struct ndk_sge s = { out, len, g.token };

		for (uint32_t k = 0; k < len; k++)
			out[k] = (uint8_t)(i * 31 + k);
		memset(in, 0, size);
		st = ndk_receive(g.qp, NULL, &r, 1);
		if (st == NDK_STATUS_SUCCESS)
			st = ndk_send(g.qp, NULL, &s, 1, 0);
		if (st == NDK_STATUS_DEVICE_REMOVED)
			removed(st);
		if (st != NDK_STATUS_SUCCESS)
			fail("post");
		if (wait_echo() != len || memcmp(in, out, len))
			fail("echo differs");
	}
}

/* Register 4 KiB at @p va with a new MR of our PD; print the status. */
static void
try_register(void *va)
{
	struct ndk_mr *mr;
	ndk_status_t st = ndk_create_mr(g.pd, false, &mr);

	if (st == NDK_STATUS_SUCCESS) {
		st = ndk_register_mr(mr, va, 4096,
				     NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
		if (st == NDK_STATUS_SUCCESS)
			ndk_deregister_mr(mr);
		ndk_close_mr(mr, NULL, NULL);
	}
	printf("REGISTER %s\n", ndk_status_str(st));
}

/* Orders from standard input, polling the adapter meanwhile. */
static void
obey(void)
{
	char line[64];
	struct pollfd pfd = { .fd = 0, .events = POLLIN };

	for (;;) {
		if (g.polling) {
			for (int i = 0; i < 1000; i++)
				ndk_adapter_poll(g.ad);
			check_health();
		}
		if (poll(&pfd, 1, g.polling ? 0 : 100) <= 0)
			continue;
		if (fgets(line, sizeof(line), stdin) == NULL ||
		    strncmp(line, "close", 5) == 0)
			return;
		if (strncmp(line, "disconnect", 10) == 0) {
			wait_req(ndk_disconnect(g.conn, req_done, NULL),
				 "disconnect");
			printf("DISCONNECTED\n");
		} else if (strncmp(line, "register-heap", 13) == 0) {
			void *p = rte_zmalloc("peer-heap", 4096, 64);

			try_register(p);
			rte_free(p);
		} else if (strncmp(line, "alloc ", 6) == 0) {
			void *b = NULL;
			ndk_status_t st = ndk_adapter_alloc_buffer(g.ad,
				strtoull(line + 6, NULL, 0), 0, &b);

			if (st == NDK_STATUS_SUCCESS)
				st = ndk_adapter_free_buffer(g.ad, b);
			printf("ALLOC %s\n", ndk_status_str(st));
		} else if (strncmp(line, "register ", 9) == 0) {
			try_register((void *)(uintptr_t)strtoull(line + 9,
								 NULL, 0));
		} else if (strncmp(line, "stop", 4) == 0) {
			ndk_adapter_release(g.ad);
			g.polling = false;
			printf("STOPPED\n");
		}
		fflush(stdout);
	}
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ip", required_argument, NULL, 'i' },
		{ "daemon", required_argument, NULL, 'd' },
		{ "port", required_argument, NULL, 'p' },
		{ "count", required_argument, NULL, 'c' },
		{ "size", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	uint32_t ip = 0, daemon = 0, count = 100, size = 4096;
	uint16_t port = 7471;
	struct ndk_qp_attr attr;
	int n, c;

	n = rte_eal_init(argc, argv);
	if (n < 0)
		fail("EAL");
	argc -= n;
	argv += n;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			inet_pton(AF_INET, optarg, &ip);
			break;
		case 'd':
			inet_pton(AF_INET, optarg, &daemon);
			break;
		case 'p':
			port = (uint16_t)atoi(optarg);
			break;
		case 'c':
			count = (uint32_t)atoi(optarg);
			break;
		case 's':
			size = (uint32_t)atoi(optarg);
			break;
		default:
			fail("usage: roced-peer <EAL> -- --ip A --daemon B");
		}
	}
	if (ip == 0 || daemon == 0 || size == 0)
		fail("--ip and --daemon are needed");
	open_all(ip, size);
	connect_to(daemon, port);
	printf("CONNECTED\n");
	fflush(stdout);
	echo(count, size);
	ndk_qp_query(g.qp, &attr);
	printf("READY qpn=%u dest_qpn=%u buf=%p\n", ndk_qp_num(g.qp),
	       attr.dest_qpn, (void *)g.buf);
	fflush(stdout);
	obey();
	/* The daemon has stopped polling (or is gone): close in order. */
	close_all();
	printf("CLOSED\n");
	return 0;
}

static void
close_all(void)
{
	if (g.conn != NULL)
		ndk_close_connector(g.conn, NULL, NULL);
	if (g.qp != NULL)
		ndk_close_qp(g.qp, NULL, NULL);
	if (g.mr != NULL) {
		ndk_deregister_mr(g.mr);
		ndk_close_mr(g.mr, NULL, NULL);
	}
	if (g.srq != NULL)
		ndk_close_srq(g.srq, NULL, NULL);
	if (g.cq != NULL)
		ndk_close_cq(g.cq, NULL, NULL);
	if (g.pd != NULL)
		ndk_close_pd(g.pd, NULL, NULL);
	if (g.buf != NULL)
		ndk_adapter_free_buffer(g.ad, g.buf);
	ndk_adapter_close(g.ad);
	rte_eal_cleanup();
}
