/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * tok_host: ndk-roce's token operations against the Linux kernel's
 * Soft-RoCE, through the public API only (ndk.h). The host's half of the
 * tokens_rxe interop test (run-tokens.sh):
 *
 *   tok_host <EAL args, --vdev net_vhost0,iface=SOCK> -- --ip 10.77.1.1
 *            --guest 10.77.0.11 [--guest-ip1 10.77.1.11] [--port 18600]
 *            [--mtu 1024] [--ip6 fd77:1::1 --guest-ip6 fd77:1::11
 *            --guest-gid 2] [CASE-FILTER]
 *
 * With --ip6 the adapter is dual-stack and every QP speaks RoCEv2 over
 * IPv6: we announce our IPv6 address as our GID, rxe_tokpeer (run with
 * -g <its IPv6 GID index>, --guest-gid) announces rxe1's, and the QPs
 * connect to it (neighbour discovery resolves its MAC).
 *
 * Our adapter is DPDK port 0, the vhost-user port behind the guest's eth1
 * (rxe1). The guest runs rxe_tokpeer (verbs/rxe_tokpeer.c); this program
 * connects to it over TCP (the guest's eth0, from the harness's network
 * namespace) and drives it with the line protocol of tok_proto.h: each
 * case asks for a fresh pair of QPs, has tokens created on either side,
 * moves data with RDMA READ/WRITE and SEND with Invalidate, and checks
 * both sides' completions and memory. The cases are in tok_cases.c; they
 * print one line per check and ndk_test_run() the closing
 * "tokens_rxe: N passed, N failed, N skipped".
 *
 * The adapter is polled by an ndk_poller on the first worker lcore; the
 * main thread posts, waits for completions and talks to the guest.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "ndk_names.h"
#include "ndk_test.h"
#include "tok_host.h"

#define TH_LINK_S 30            /* the vhost link must be up within this */
#define TH_CONNECT_S 30         /* rxe_tokpeer must accept within this */
#define TH_ANSWER_MS 60000      /* the guest must answer within this */

#define TH_MAX_CONN 4           /* connections open at once */

struct th th = { .fd = -1 };
static struct th_conn conns[TH_MAX_CONN];

/* ------------------------------------------------------------------ */
/* Control connection                                                  */
/* ------------------------------------------------------------------ */

int
th_req(const char *fmt, ...)
{
	char req[TOK_LINE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(req, sizeof(req), fmt, ap);
	va_end(ap);
	th.ans[0] = '\0';
	if (tok_send_line(th.fd, "%s", req) != 0 ||
	    tok_recv_line(th.fd, th.ans, sizeof(th.ans), TH_ANSWER_MS) < 0) {
		printf("    guest: '%s': no answer (%s)\n", req, strerror(errno));
		return -1;
	}
	printf("    guest: %s -> %s\n", req, th.ans);
	return tok_is_verb(th.ans, "OK") ? 0 : -1;
}

int
th_ans_u64(const char *key, uint64_t *v)
{
	if (tok_kv_u64(th.ans, key, v))
		return 0;
	printf("    guest answer without %s=\n", key);
	return -1;
}

const char *
th_ans_str(const char *key)
{
	/* A few at a time: one printf may show several words. */
	static char bufs[4][TOK_LINE_MAX];
	static unsigned int next;
	char *buf = bufs[next++ % 4];

	if (!tok_kv_str(th.ans, key, buf, TOK_LINE_MAX))
		buf[0] = '\0';
	return buf;
}

/* Connect to rxe_tokpeer, retrying while it starts. */
static int
th_connect_guest(void)
{
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_socktype = SOCK_STREAM };
	uint64_t end = rte_get_timer_cycles() +
		TH_CONNECT_S * rte_get_timer_hz();
	struct addrinfo *res;
	char service[8];
	int fd, rc;

	snprintf(service, sizeof(service), "%u", th.o.tcp_port);
	rc = getaddrinfo(th.o.guest, service, &hints, &res);
	if (rc != 0) {
		printf("tok_host: %s: %s\n", th.o.guest, gai_strerror(rc));
		return -1;
	}
	for (;;) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) == 0)
			break;
		if (fd >= 0)
			close(fd);
		fd = -1;
		if (rte_get_timer_cycles() > end)
			break;
		rte_delay_us_sleep(200 * 1000);
	}
	freeaddrinfo(res);
	if (fd < 0)
		printf("tok_host: cannot connect to %s:%u: %s\n", th.o.guest,
		       th.o.tcp_port, strerror(errno));
	return fd;
}

/* ------------------------------------------------------------------ */
/* Connections                                                         */
/* ------------------------------------------------------------------ */

int
th_post_recv(struct th_conn *c, uint32_t i)
{
	struct ndk_sge s = {
		.va = th_rbuf(i), .length = TH_RECV_SZ, .token = th.mem_ltok,
	};
	ndk_status_t st;

	memset(th_rbuf(i), 0, TH_RECV_SZ);
	st = ndk_receive(c->qp, (void *)(uintptr_t)(0x1000 + i), &s, 1);
	if (st != NDK_STATUS_SUCCESS) {
		printf("    ndk_receive: %s\n", ndk_status_str(st));
		return -1;
	}
	return 0;
}

/* INIT -> RTR -> RTS of both sides' QPs: the QPN/PSN/GID exchange. */
static int
th_conn_connect(struct th_conn *c, uint8_t retry_cnt)
{
	char gid[INET6_ADDRSTRLEN], ggid[INET6_ADDRSTRLEN];
	struct ndk_qp_attr attr;
	uint8_t raw[16];
	uint64_t v;
	ndk_status_t st;

	c->qpn = ndk_qp_num(c->qp);
	c->psn = (uint32_t)lrand48() & 0xffffff;
	memset(raw, 0, sizeof(raw));
	if (th.o.has_ip6) {
		memcpy(raw, th.o.ipv6, 16);
	} else {
		raw[10] = 0xff;
		raw[11] = 0xff;
		memcpy(raw + 12, &th.o.ipv4, 4);
	}
	inet_ntop(AF_INET6, raw, gid, sizeof(gid));
	NEED(th_req("QP qpn=0x%06x psn=0x%06x gid=%s mtu=%u", c->qpn, c->psn,
		    gid, th.o.mtu) == 0, "the guest's QP");
	NEED(th_ans_u64("qpn", &v) == 0, "guest QPN");
	c->gqpn = (uint32_t)v;
	NEED(th_ans_u64("psn", &v) == 0, "guest PSN");
	c->gpsn = (uint32_t)v;
	snprintf(ggid, sizeof(ggid), "%s", th_ans_str("gid"));
	NEED(inet_pton(AF_INET6, ggid, raw) == 1, "guest GID %s", ggid);
	memset(&attr, 0, sizeof(attr));
	if (th.o.has_ip6) {
		NEED(!(raw[10] == 0xff && raw[11] == 0xff &&
		       memcmp(raw, "\0\0\0\0\0\0\0\0\0\0", 10) == 0),
		     "guest GID %s is IPv4-mapped, not IPv6", ggid);
		/* dest_ip 0: IPv6; dest_mac 0: neighbour discovery */
		memcpy(attr.dest_ip6, raw, 16);
	} else {
		NEED(raw[10] == 0xff && raw[11] == 0xff,
		     "guest GID %s is not IPv4-mapped", ggid);
		memcpy(&attr.dest_ip, raw + 12, 4);   /* dest_mac 0: ARP */
	}
	attr.dest_qpn = c->gqpn;
	attr.rq_psn = c->gpsn;
	attr.sq_psn = c->psn;
	attr.path_mtu = th.o.mtu;
	attr.retry_cnt = retry_cnt;
	st = ndk_qp_connect(c->qp, &attr);
	NEED(st == NDK_STATUS_SUCCESS, "ndk_qp_connect: %s",
	     ndk_status_str(st));
	printf("    connection: our QP 0x%06x (PSN 0x%06x, retry_cnt %u) <-> "
	       "guest QP 0x%06x (PSN 0x%06x, GID %s)\n", c->qpn, c->psn,
	       retry_cnt, c->gqpn, c->gpsn, ggid);
	return 0;
}

struct th_conn *
th_conn_open(uint8_t retry_cnt)
{
	struct th_conn *c = NULL;
	ndk_status_t st;

	for (unsigned int i = 0; i < TH_MAX_CONN && c == NULL; i++)
		if (!conns[i].open)
			c = &conns[i];
	if (c == NULL) {
		printf("    FAIL: more than %d connections\n", TH_MAX_CONN);
		return NULL;
	}
	memset(c, 0, sizeof(*c));
	c->open = true;
	st = ndk_create_cq(th.ad, 64, NULL, NULL, &c->cq);
	if (st == NDK_STATUS_SUCCESS)
		st = ndk_create_qp(th.pd, c->cq, c->cq, c, TH_NRECV, 16, 1, 1,
				   0, &c->qp);
	if (st != NDK_STATUS_SUCCESS) {
		printf("    FAIL: CQ/QP: %s\n", ndk_status_str(st));
		th_conn_close(c);
		return NULL;
	}
	for (uint32_t i = 0; i < TH_NRECV; i++) {
		if (th_post_recv(c, i) != 0) {
			th_conn_close(c);
			return NULL;
		}
	}
	if (th_conn_connect(c, retry_cnt) != 0) {
		th_conn_close(c);
		return NULL;
	}
	return c;
}

void
th_conn_close(struct th_conn *c)
{
	/* The poller carries the close out: flushed, detached, freed. */
	if (c->qp != NULL)
		ndk_close_qp(c->qp, NULL, NULL);
	if (c->cq != NULL)
		ndk_close_cq(c->cq, NULL, NULL);
	memset(c, 0, sizeof(*c));
}

void
th_conn_close_all(void)
{
	for (unsigned int i = 0; i < TH_MAX_CONN; i++)
		if (conns[i].open)
			th_conn_close(&conns[i]);
}

int
th_wait(struct th_conn *c, struct ndk_result_ex *r)
{
	uint64_t end = rte_get_timer_cycles() +
		rte_get_timer_hz() * TH_WAIT_MS / 1000;

	while (ndk_get_cq_results_ex(c->cq, r, 1) == 0) {
		if (rte_get_timer_cycles() > end) {
			printf("    no completion in %d ms\n", TH_WAIT_MS);
			return -1;
		}
		rte_delay_us_sleep(100);
	}
	return 0;
}

const char *
th_result_str(const struct ndk_result_ex *r, char *buf, size_t size)
{
	snprintf(buf, size, "%s %s perr %s bytes %u token 0x%08" PRIxPTR,
		 ndk_names_op(r->type), ndk_status_str(r->status),
		 ndk_names_perr(r->provider_error), r->bytes_transferred,
		 r->type_specific);
	return buf;
}

enum ndk_qp_state
th_qp_state(const struct th_conn *c)
{
	struct ndk_qp_attr a;

	if (ndk_qp_query(c->qp, &a) != NDK_STATUS_SUCCESS)
		return (enum ndk_qp_state)-1;
	return a.state;
}

int
th_rdma(struct th_conn *c, bool read, uint64_t raddr, uint32_t rkey,
	uint32_t len, uint32_t seed, struct ndk_result_ex *r)
{
	struct ndk_sge s = {
		.va = th_scratch(), .length = len, .token = th.mem_ltok,
	};
	void *req = (void *)(uintptr_t)(read ? 0x4ead : 0x941e);
	char d[160];
	ndk_status_t st;

	tok_fill(th_scratch(), len, read ? TH_POISON_SEED : seed, 0);
	if (read)
		st = ndk_read(c->qp, req, &s, 1, raddr, rkey, 0);
	else
		st = ndk_write(c->qp, req, &s, 1, raddr, rkey, 0);
	NEED(st == NDK_STATUS_SUCCESS, "ndk_%s: %s", read ? "read" : "write",
	     ndk_status_str(st));
	if (th_wait(c, r) != 0)
		return -1;
	printf("    our %s of %u B at 0x%" PRIx64 " rkey 0x%08x: %s\n",
	       read ? "READ" : "WRITE", len, raddr, rkey,
	       th_result_str(r, d, sizeof(d)));
	NEED(r->request_context == req, "completion of another request");
	return 0;
}

void
th_stats(struct ndk_test_xstats *s)
{
	ndk_test_xstats_read(th.ad, s);
}

/* ------------------------------------------------------------------ */
/* Set-up                                                              */
/* ------------------------------------------------------------------ */

static int
th_wait_link(void)
{
	uint64_t end = rte_get_timer_cycles() + TH_LINK_S * rte_get_timer_hz();
	struct rte_eth_link link;

	for (;;) {
		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(0, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_UP)
			return 0;
		if (rte_get_timer_cycles() > end)
			break;
		rte_delay_us_sleep(20 * 1000);
	}
	printf("tok_host: port 0 link still down after %d s\n", TH_LINK_S);
	return -1;
}

static int
th_open(void)
{
	struct ndk_adapter_config cfg = {
		.port_id = 0,
		.configure_port = true,
		.ipv4 = th.o.ipv4,
		.max_path_mtu = th.o.mtu,
		.socket_id = SOCKET_ID_ANY,
	};
	uint32_t isize = sizeof(th.info);
	unsigned int lcore;
	ndk_status_t st;
	int rc;

	if (th.o.has_ip6)
		memcpy(cfg.ipv6, th.o.ipv6, 16);
	if (!rte_eth_dev_is_valid_port(0)) {
		printf("tok_host: no DPDK port 0 (give the EAL --vdev "
		       "net_vhost0,iface=...)\n");
		return -1;
	}
	st = ndk_adapter_open(&cfg, &th.ad);
	if (st != NDK_STATUS_SUCCESS) {
		printf("tok_host: ndk_adapter_open: %s\n", ndk_status_str(st));
		th.ad = NULL;
		return -1;
	}
	st = ndk_query_adapter_info(th.ad, &th.info, &isize);
	if (st != NDK_STATUS_SUCCESS)
		return -1;
	lcore = rte_get_next_lcore(-1, 1, 0);
	if (lcore >= RTE_MAX_LCORE) {
		printf("tok_host: needs a worker lcore for the poller (-l 0-1)\n");
		return -1;
	}
	rc = ndk_poller_start(lcore, &th.ad, 1, &th.poller);
	if (rc != 0) {
		printf("tok_host: ndk_poller_start(%u): %s\n", lcore,
		       strerror(-rc));
		th.poller = NULL;
		return -1;
	}
	st = ndk_create_pd(th.ad, &th.pd);
	if (st != NDK_STATUS_SUCCESS)
		return -1;
	th.mem = rte_zmalloc("tok_host", TH_SCRATCH_SZ +
			     TH_NRECV * TH_RECV_SZ, NDK_PAGE_SIZE);
	if (th.mem == NULL)
		return -1;
	st = ndk_create_mr(th.pd, false, &th.mem_mr);
	if (st == NDK_STATUS_SUCCESS)
		st = ndk_register_mr(th.mem_mr, th.mem, TH_SCRATCH_SZ +
				     TH_NRECV * TH_RECV_SZ,
				     NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	if (st != NDK_STATUS_SUCCESS) {
		printf("tok_host: scratch MR: %s\n", ndk_status_str(st));
		return -1;
	}
	th.mem_ltok = ndk_mr_local_token(th.mem_mr);
	return th_wait_link();
}

static void
th_close(void)
{
	if (th.fd >= 0) {
		if (tok_send_line(th.fd, "BYE") == 0)
			tok_recv_line(th.fd, th.ans, sizeof(th.ans), 5000);
		close(th.fd);
	}
	if (th.poller != NULL)
		ndk_poller_stop(th.poller);
	/* Nobody polls: closing runs inline. */
	if (th.ad != NULL) {
		ndk_adapter_close(th.ad);
		rte_eth_dev_close(0);
	}
	rte_free(th.mem);
}

static int
parse_ipv4(const char *s, uint32_t *ip)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1)
		return -1;
	*ip = a.s_addr;
	return 0;
}

static int
th_parse(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "ip", required_argument, NULL, 'i' },
		{ "guest", required_argument, NULL, 'g' },
		{ "guest-ip1", required_argument, NULL, 'G' },
		{ "port", required_argument, NULL, 'p' },
		{ "mtu", required_argument, NULL, 'm' },
		{ "ip6", required_argument, NULL, '6' },
		{ "guest-ip6", required_argument, NULL, 'H' },
		{ "guest-gid", required_argument, NULL, 'x' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	th.o.tcp_port = TOK_PORT;
	th.o.mtu = 1024;
	th.o.guest_gid = 1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (parse_ipv4(optarg, &th.o.ipv4) != 0)
				return -1;
			break;
		case 'g':
			th.o.guest = optarg;
			break;
		case 'G':
			if (parse_ipv4(optarg, &th.o.guest_ip1) != 0)
				return -1;
			break;
		case 'p':
			th.o.tcp_port = (uint16_t)atoi(optarg);
			break;
		case 'm':
			th.o.mtu = (uint32_t)atoi(optarg);
			break;
		case '6':
			if (inet_pton(AF_INET6, optarg, th.o.ipv6) != 1)
				return -1;
			th.o.has_ip6 = true;
			break;
		case 'H':
			if (inet_pton(AF_INET6, optarg, th.o.guest_ip6) != 1)
				return -1;
			th.o.has_guest_ip6 = true;
			break;
		case 'x':
			th.o.guest_gid = atoi(optarg);
			if (th.o.guest_gid < 0 || th.o.guest_gid > 255)
				return -1;
			break;
		default:
			return -1;
		}
	}
	if (th.o.ipv4 == 0 || th.o.guest == NULL)
		return -1;
	return optind;
}

int
main(int argc, char **argv)
{
	char *targv[2] = { (char *)(uintptr_t)"tok_host", NULL };
	int ret, rc = 1, targc = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		printf("tok_host: EAL initialisation failed: %s\n",
		       rte_strerror(rte_errno));
		return 1;
	}
	argc -= ret;
	argv += ret;
	argv[0] = targv[0];
	optind = 0; /* glibc: rescan from scratch after the EAL's getopt */
	ret = th_parse(argc, argv);
	if (ret < 0) {
		printf("usage: tok_host EAL-ARGS -- --ip A.B.C.D --guest HOST "
		       "[--guest-ip1 A.B.C.D] [--port N] [--mtu N] "
		       "[--ip6 ADDR --guest-ip6 ADDR --guest-gid N] "
		       "[CASE-FILTER]\n");
		rte_eal_cleanup();
		return 1;
	}
	if (ret < argc) {
		targv[1] = argv[ret];
		targc = 2;
	}
	srand48((long)getpid() * (long)time(NULL));
	if (th_open() == 0) {
		th.fd = th_connect_guest();
		if (th.fd >= 0)
			rc = ndk_test_run("tokens_rxe", th_cases, th_ncases,
					  targc, targv);
	}
	if (th.fd < 0)
		printf("tokens_rxe: 0 passed, 1 failed, 0 skipped\n");
	th_close();
	rte_eal_cleanup();
	return rc;
}
