/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * ndk-cmtime: rdma-core's cmtime (librdmacm/examples) on an ndk-roce
 * adapter: how long connection set-up and tear-down take, for many
 * connections at once, with NDK connectors and listeners (IB CM over QP1),
 * so either side may be the stock cmtime.
 *
 *   client (-s server): create N connectors and N QPs, Connect them all
 *          (each CompleteConnect from its completion), wait until every
 *          one is up, Disconnect them all, wait, close; print cmtime's
 *          table (per step: total ms, slowest connection ms, quickest us,
 *          us per connection). NDK resolves addresses inside Connect, so
 *          cmtime's "resolve addr" and "resolve route" rows are not there.
 *   server: listen; accept each request on a new QP; when a client
 *          disconnects, close its connector and QP; until SIGINT/SIGTERM,
 *          then print how many connections were served.
 *
 * As in cmtime, the server's work (QP creation, accept, close) runs on the
 * main thread, not in the callbacks (the poller lcore): callbacks only
 * queue the connector into rings.
 */

#include <arpa/inet.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#include "ndk.h"
#include "ndk_app_xstats.h"
#include "ndk_conn.h"

#define CT_DEF_PORT 7471        /* cmtime's */
#define CT_DEF_CONNS 100        /* cmtime's */
#define CT_MAX_CONNS 16384      /* the ephemeral ports of one address */
#define CT_LINK_S 20
#define CT_WAIT_S 120           /* a step that makes no progress: fail */
#define CT_LINGER_MS 500

/* cmtime's steps, the ones NDK has. */
enum ct_step {
	CT_CREATE_ID,            /* ndk_create_connector */
	CT_BIND,                 /* -b: a source address (no call in NDK) */
	CT_CREATE_QP,
	CT_CONNECT,              /* Connect + CompleteConnect */
	CT_DISCONNECT,
	CT_DESTROY,              /* close connector and QP */
	CT_N_STEPS
};

static const char *const ct_step_str[CT_N_STEPS] = {
	"create id", "bind addr", "create qp", "connect", "disconnect",
	"destroy",
};

struct ct_opts {
	bool client;
	union ndk_sockaddr dst, src;   /* -s, -b */
	bool bind;
	uint32_t conns;                /* -c */
	uint16_t port;                 /* -p */
	uint8_t retries;               /* -r: RC retry count asked */
	uint32_t ipv4;                 /* --ip */
	uint8_t ipv6[16];              /* --ip6 */
	bool ipv6_set;
	uint16_t port_id;
	uint32_t mtu;
	uint32_t max_qp;               /* --max-qp */
	uint32_t backlog;              /* --backlog (0: the adapter's) */
	bool stats;                    /* --stats */
};

/* One connection. */
struct ct_conn {
	struct ndk_connector *conn;
	struct ndk_qp *qp;
	uint64_t t[CT_N_STEPS][2];     /* TSC at start, end */
	ndk_status_t st;               /* what failed, if error */
	bool error;
};

static struct {
	struct ct_opts o;
	struct ndk_adapter *ad;
	struct ndk_poller *poller;
	struct ndk_pd *pd;
	struct ndk_cq *cq;
	struct ndk_listener *lis;
	struct ct_conn *c;
	uint64_t t[CT_N_STEPS][2];
	uint32_t started, completed;   /* of the step under way */
	struct rte_ring *done;         /* client: ct_conn finished a step */
	struct rte_ring *incoming;     /* server: new connectors */
	struct rte_ring *gone;         /* server: ct_conn disconnected */
	uint32_t *free_slots;          /* server: unused entries of c[] */
	uint32_t n_free;
	volatile sig_atomic_t stop;
} g;

/* ------------------------------------------------------------------ */
/* Options                                                             */
/* ------------------------------------------------------------------ */

static void
ct_usage(const char *prog)
{
	printf("Usage: %s [EAL args] -- [options]\n", prog);
	printf("cmtime's options:\n");
	printf("  -s addr       server address (client mode; none: server)\n");
	printf("  -b addr       bind (source) address: the adapter's\n");
	printf("  -c n          connections (default %u, at most %u)\n",
	       CT_DEF_CONNS, CT_MAX_CONNS);
	printf("  -p port       port (default %u)\n", CT_DEF_PORT);
	printf("  -r n          RC retry count the requests ask, 0..7 "
	       "(default: the CM's, 7)\n");
	printf("  -t ms         address resolution timeout: accepted; NDK "
	       "resolves inside Connect\n");
	printf("ndk-roce's options:\n");
	printf("  --ip=a.b.c.d  the adapter's IPv4 address\n");
	printf("  --ip6=addr    the adapter's IPv6 address (one of --ip, "
	       "--ip6 required)\n");
	printf("  --port-id=n   ethdev port (default 0)\n");
	printf("  --mtu=n       largest RDMA path MTU (default 4096)\n");
	printf("  --max-qp=n    QPs of the adapter (default: -c + 16, a "
	       "server 16400)\n");
	printf("  --backlog=n   connection requests a server holds before "
	       "it accepts them\n"
	       "                (default: the adapter's listen_backlog, "
	       "4096); more are\n"
	       "                refused (REJ, counted in cm_backlog_rejects)\n");
	printf("  --stats       print the adapter's non-zero counters at "
	       "the end\n");
}

static int
ct_num(const char *s, unsigned long lo, unsigned long hi, uint32_t *out)
{
	char *end;
	unsigned long v;

	if (s[0] < '0' || s[0] > '9')
		return -1;
	v = strtoul(s, &end, 0);
	if (*end != '\0' || v < lo || v > hi)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int
ct_addr(const char *s, uint16_t port, union ndk_sockaddr *a)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, s, &a->sin.sin_addr) == 1) {
		a->sin.sin_family = AF_INET;
		a->sin.sin_port = htons(port);
		return 0;
	}
	if (inet_pton(AF_INET6, s, &a->sin6.sin6_addr) == 1) {
		a->sin6.sin6_family = AF_INET6;
		a->sin6.sin6_port = htons(port);
		return 0;
	}
	return -1;
}

static int
ct_bad(const char *opt, const char *val)
{
	fprintf(stderr, "ndk-cmtime: invalid %s '%s'\n", opt, val);
	return 1;
}

enum { CT_OPT_IP = 256, CT_OPT_IP6, CT_OPT_PORT_ID, CT_OPT_MTU,
	CT_OPT_MAX_QP, CT_OPT_STATS, CT_OPT_BACKLOG };

/* @return 0, 1 (error printed) or 2 (--help). */
static int
ct_parse_args(int argc, char **argv, struct ct_opts *o)
{
	static const struct option lopts[] = {
		{ "ip", required_argument, NULL, CT_OPT_IP },
		{ "ip6", required_argument, NULL, CT_OPT_IP6 },
		{ "port-id", required_argument, NULL, CT_OPT_PORT_ID },
		{ "mtu", required_argument, NULL, CT_OPT_MTU },
		{ "max-qp", required_argument, NULL, CT_OPT_MAX_QP },
		{ "stats", no_argument, NULL, CT_OPT_STATS },
		{ "backlog", required_argument, NULL, CT_OPT_BACKLOG },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dst = NULL, *src = NULL;
	struct in_addr a;
	uint32_t v;
	int ch;

	memset(o, 0, sizeof(*o));
	o->conns = CT_DEF_CONNS;
	o->port = CT_DEF_PORT;
	o->retries = UINT8_MAX;
	o->mtu = 4096;
	while ((ch = getopt_long(argc, argv, "s:b:c:p:r:t:h", lopts,
				 NULL)) != -1) {
		switch (ch) {
		case 's':
			dst = optarg;
			break;
		case 'b':
			src = optarg;
			break;
		case 'c':
			if (ct_num(optarg, 1, CT_MAX_CONNS, &o->conns) != 0)
				return ct_bad("-c", optarg);
			break;
		case 'p':
			if (ct_num(optarg, 1, 65535, &v) != 0)
				return ct_bad("-p", optarg);
			o->port = (uint16_t)v;
			break;
		case 'r':
			if (ct_num(optarg, 0, 7, &v) != 0)
				return ct_bad("-r", optarg);
			o->retries = (uint8_t)v;
			break;
		case 't':
			if (ct_num(optarg, 0, UINT32_MAX, &v) != 0)
				return ct_bad("-t", optarg);
			break;
		case CT_OPT_IP:
			if (inet_pton(AF_INET, optarg, &a) != 1)
				return ct_bad("--ip", optarg);
			o->ipv4 = a.s_addr;
			break;
		case CT_OPT_IP6:
			if (inet_pton(AF_INET6, optarg, o->ipv6) != 1)
				return ct_bad("--ip6", optarg);
			o->ipv6_set = true;
			break;
		case CT_OPT_PORT_ID:
			if (ct_num(optarg, 0, 65535, &v) != 0)
				return ct_bad("--port-id", optarg);
			o->port_id = (uint16_t)v;
			break;
		case CT_OPT_MTU:
			if (ct_num(optarg, 256, 4096, &v) != 0 ||
			    (v & (v - 1)) != 0)
				return ct_bad("--mtu", optarg);
			o->mtu = v;
			break;
		case CT_OPT_MAX_QP:
			if (ct_num(optarg, 1, 1u << 20, &o->max_qp) != 0)
				return ct_bad("--max-qp", optarg);
			break;
		case CT_OPT_STATS:
			o->stats = true;
			break;
		case CT_OPT_BACKLOG:
			if (ct_num(optarg, 1, UINT32_MAX, &o->backlog) != 0)
				return ct_bad("--backlog", optarg);
			break;
		case 'h':
			ct_usage(argv[0]);
			return 2;
		default:
			ct_usage(argv[0]);
			return 1;
		}
	}
	if (optind != argc) {
		ct_usage(argv[0]);
		return 1;
	}
	if (o->ipv4 == 0 && !o->ipv6_set) {
		fprintf(stderr, "ndk-cmtime: --ip or --ip6 is required\n");
		return 1;
	}
	o->client = dst != NULL;
	/*
	 * The server listens on -b, or on a wildcard: the IPv6 one (both
	 * families) if the adapter has an IPv6 address.
	 */
	if (dst != NULL && ct_addr(dst, o->port, &o->dst) != 0)
		return ct_bad("-s", dst);
	if (src != NULL && ct_addr(src, o->client ? 0 : o->port,
				   &o->src) != 0)
		return ct_bad("-b", src);
	o->bind = src != NULL;
	if (!o->bind) {
		int fam = o->client ? o->dst.sa.sa_family :
			(o->ipv6_set ? AF_INET6 : AF_INET);

		o->src.sa.sa_family = (sa_family_t)fam;
		if (!o->client && fam == AF_INET)
			o->src.sin.sin_port = htons(o->port);
		else if (!o->client)
			o->src.sin6.sin6_port = htons(o->port);
	}
	if (o->max_qp == 0)
		o->max_qp = o->client ? o->conns + 16 : CT_MAX_CONNS + 16;
	return 0;
}

static socklen_t
ct_len(const union ndk_sockaddr *a)
{
	return a->sa.sa_family == AF_INET6 ? sizeof(a->sin6) :
		sizeof(a->sin);
}

/* ------------------------------------------------------------------ */
/* Callbacks (the poller lcore): into rings                            */
/* ------------------------------------------------------------------ */

static void
ct_step_done(void *ctx, ndk_status_t st)
{
	struct ct_conn *c = ctx;

	if (st != NDK_STATUS_SUCCESS) {
		c->st = st;
		c->error = true;
	}
	/* The ring holds every connection: the enqueue cannot fail. */
	rte_ring_enqueue(g.done, c);
}

static void
ct_disc_ignored(void *ctx, uint32_t reason)
{
	RTE_SET_USED(ctx);
	RTE_SET_USED(reason);
}

/* Client: Connect completed; CompleteConnect right away. */
static void
ct_connected(void *ctx, ndk_status_t st)
{
	struct ct_conn *c = ctx;

	if (st == NDK_STATUS_SUCCESS)
		st = ndk_complete_connect(c->conn, ct_disc_ignored, c,
					  ct_step_done, c);
	if (st != NDK_STATUS_PENDING)
		ct_step_done(c, st);
}

static void
ct_connect_event(void *ctx, struct ndk_connector *conn)
{
	RTE_SET_USED(ctx);
	if (rte_ring_enqueue(g.incoming, conn) != 0)
		ndk_close_connector(conn, NULL, NULL);   /* refused */
}

static void
ct_peer_gone(void *ctx, uint32_t reason)
{
	RTE_SET_USED(reason);
	rte_ring_enqueue(g.gone, ctx);
}

static void
ct_accepted(void *ctx, ndk_status_t st)
{
	/* A failed accept: the connection is gone for us too. */
	if (st != NDK_STATUS_SUCCESS)
		rte_ring_enqueue(g.gone, ctx);
}

/* ------------------------------------------------------------------ */
/* Client                                                              */
/* ------------------------------------------------------------------ */

/* Nothing to do for now: poll (one lcore) or let the poller work. */
static void
ct_idle(void)
{
	if (g.poller == NULL)
		ndk_adapter_poll(g.ad);
	else
		rte_delay_us_sleep(100);
}

static inline void
ct_mark(uint64_t t[2], int end)
{
	t[end] = rte_rdtsc();
}

/* Wait until every started connection finished the step. @return 0. */
static int
ct_wait_step(enum ct_step s)
{
	uint64_t hz = rte_get_tsc_hz(), last = rte_rdtsc();
	void *objs[64];

	while (g.completed < g.started) {
		unsigned int n = rte_ring_dequeue_burst(g.done, objs,
							RTE_DIM(objs), NULL);

		for (unsigned int i = 0; i < n; i++) {
			struct ct_conn *c = objs[i];

			ct_mark(c->t[s], 1);
			if (c->error)
				printf("%s %u: %s\n", ct_step_str[s],
				       (unsigned int)(c - g.c),
				       ndk_status_str(c->st));
		}
		g.completed += n;
		if (n != 0) {
			last = rte_rdtsc();
		} else if (rte_rdtsc() - last > CT_WAIT_S * hz) {
			fprintf(stderr, "%s: %u of %u after %d s without "
				"progress\n", ct_step_str[s], g.completed,
				g.started, CT_WAIT_S);
			return -1;
		} else {
			ct_idle();
		}
	}
	return 0;
}

static void
ct_begin(enum ct_step s)
{
	printf("%s\n", s == CT_CREATE_ID ? "creating id" :
	       s == CT_BIND ? "binding source address" :
	       s == CT_CREATE_QP ? "creating qp" :
	       s == CT_CONNECT ? "connecting" :
	       s == CT_DISCONNECT ? "disconnecting" : "destroying id");
	fflush(stdout);
	ct_mark(g.t[s], 0);
	g.started = g.completed = 0;
}

static int
ct_client(void)
{
	uint32_t n = g.o.conns, failed = 0;
	ndk_status_t st;

	ct_begin(CT_CREATE_ID);
	for (uint32_t i = 0; i < n; i++) {
		ct_mark(g.c[i].t[CT_CREATE_ID], 0);
		if (ndk_create_connector(g.ad, &g.c[i].conn) !=
		    NDK_STATUS_SUCCESS) {
			fprintf(stderr, "create connector %u failed\n", i);
			return -1;
		}
		ct_mark(g.c[i].t[CT_CREATE_ID], 1);
	}
	ct_mark(g.t[CT_CREATE_ID], 1);
	if (g.o.bind) {
		/* NDK binds in Connect: the step only marks where it is. */
		ct_begin(CT_BIND);
		ct_mark(g.t[CT_BIND], 1);
	}
	ct_begin(CT_CREATE_QP);
	for (uint32_t i = 0; i < n; i++) {
		ct_mark(g.c[i].t[CT_CREATE_QP], 0);
		st = ndk_create_qp(g.pd, g.cq, g.cq, &g.c[i], 1, 1, 1, 1, 0,
				   &g.c[i].qp);
		if (st != NDK_STATUS_SUCCESS) {
			fprintf(stderr, "create QP %u: %s\n", i,
				ndk_status_str(st));
			return -1;
		}
		ct_mark(g.c[i].t[CT_CREATE_QP], 1);
	}
	ct_mark(g.t[CT_CREATE_QP], 1);

	ct_begin(CT_CONNECT);
	for (uint32_t i = 0; i < n; i++) {
		struct ct_conn *c = &g.c[i];

		ct_mark(c->t[CT_CONNECT], 0);
		st = ndk_connect(c->conn, c->qp, &g.o.src.sa,
				 ct_len(&g.o.src), &g.o.dst.sa,
				 ct_len(&g.o.dst), 1, 1, NULL, 0,
				 ct_connected, c);
		if (st != NDK_STATUS_PENDING) {
			printf("connect %u: %s\n", i, ndk_status_str(st));
			c->error = true;
			continue;
		}
		g.started++;
	}
	if (ct_wait_step(CT_CONNECT) != 0)
		return -1;
	ct_mark(g.t[CT_CONNECT], 1);

	ct_begin(CT_DISCONNECT);
	for (uint32_t i = 0; i < n; i++) {
		struct ct_conn *c = &g.c[i];

		if (c->error)
			continue;
		ct_mark(c->t[CT_DISCONNECT], 0);
		st = ndk_disconnect(c->conn, ct_step_done, c);
		if (st != NDK_STATUS_PENDING) {
			printf("disconnect %u: %s\n", i, ndk_status_str(st));
			c->error = true;
			continue;
		}
		g.started++;
	}
	if (ct_wait_step(CT_DISCONNECT) != 0)
		return -1;
	ct_mark(g.t[CT_DISCONNECT], 1);

	ct_begin(CT_DESTROY);
	for (uint32_t i = 0; i < n; i++) {
		struct ct_conn *c = &g.c[i];

		ct_mark(c->t[CT_DESTROY], 0);
		ndk_close_connector(c->conn, NULL, NULL);
		ndk_close_qp(c->qp, NULL, NULL);
		c->conn = NULL;
		c->qp = NULL;
		ct_mark(c->t[CT_DESTROY], 1);
		failed += c->error;
	}
	ct_mark(g.t[CT_DESTROY], 1);
	if (failed != 0)
		printf("%u of %u connections failed\n", failed, n);
	return failed == 0 ? 0 : -1;
}

/* cmtime's table. */
static void
ct_show_perf(void)
{
	double us_per_tsc = 1e6 / (double)rte_get_tsc_hz();

	printf("step              total ms     max ms     min us  us / conn\n");
	for (int s = 0; s < CT_N_STEPS; s++) {
		double max = 0, min = 1e12, us;

		if ((s == CT_BIND && !g.o.bind) || g.t[s][1] == 0)
			continue;
		for (uint32_t i = 0; i < g.o.conns; i++) {
			const struct ct_conn *c = &g.c[i];

			if (c->t[s][0] == 0 || c->t[s][1] == 0)
				continue;
			us = (double)(c->t[s][1] - c->t[s][0]) * us_per_tsc;
			max = RTE_MAX(max, us);
			min = RTE_MIN(min, us);
		}
		if (min > max)
			min = 0;
		us = (double)(g.t[s][1] - g.t[s][0]) * us_per_tsc;
		printf("%-13s: %11.2f%11.2f%11.2f%11.2f\n", ct_step_str[s],
		       us / 1000., max / 1000., min, us / g.o.conns);
	}
}

/* ------------------------------------------------------------------ */
/* Server                                                              */
/* ------------------------------------------------------------------ */

static void
ct_on_signal(int sig)
{
	RTE_SET_USED(sig);
	g.stop = 1;
}

/* Close connection @p c's connector and QP; its slot is free again. */
static void
ct_srv_close(struct ct_conn *c)
{
	ndk_close_connector(c->conn, NULL, NULL);
	if (c->qp != NULL)
		ndk_close_qp(c->qp, NULL, NULL);
	c->conn = NULL;
	c->qp = NULL;
	g.free_slots[g.n_free++] = (uint32_t)(c - g.c);
}

static int
ct_server(void)
{
	uint64_t served = 0, refused = 0;
	uint32_t n_slots = g.o.max_qp;
	ndk_status_t st;

	g.free_slots = rte_malloc("ct_free", n_slots * sizeof(uint32_t), 0);
	if (g.free_slots == NULL)
		return -1;
	for (uint32_t j = 0; j < n_slots; j++)
		g.free_slots[g.n_free++] = n_slots - 1 - j;

	if (ndk_create_listener(g.ad, ct_connect_event, NULL, &g.lis) !=
	    NDK_STATUS_SUCCESS)
		return -1;
	st = ndk_listen(g.lis, &g.o.src.sa, ct_len(&g.o.src));
	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "listen on port %u: %s\n", g.o.port,
			ndk_status_str(st));
		return -1;
	}
	printf("ndk-cmtime: listening on port %u\n", g.o.port);
	fflush(stdout);
	while (!g.stop) {
		void *objs[64];
		unsigned int k;
		bool idle = true;

		k = rte_ring_dequeue_burst(g.gone, objs, RTE_DIM(objs), NULL);
		for (unsigned int i = 0; i < k; i++)
			ct_srv_close(objs[i]);
		idle &= k == 0;
		k = rte_ring_dequeue_burst(g.incoming, objs, RTE_DIM(objs),
					   NULL);
		idle &= k == 0;
		for (unsigned int i = 0; i < k; i++) {
			struct ct_conn *c;

			if (g.n_free == 0) {
				ndk_close_connector(objs[i], NULL, NULL);
				refused++;
				continue;
			}
			c = &g.c[g.free_slots[--g.n_free]];
			c->conn = objs[i];
			st = ndk_create_qp(g.pd, g.cq, g.cq, c, 1, 1, 1, 1, 0,
					   &c->qp);
			if (st == NDK_STATUS_SUCCESS)
				st = ndk_accept(c->conn, c->qp, 1, 1, NULL, 0,
						ct_peer_gone, c, ct_accepted,
						c);
			if (st != NDK_STATUS_PENDING) {
				fprintf(stderr, "accept: %s\n",
					ndk_status_str(st));
				ct_srv_close(c);
				refused++;
				continue;
			}
			served++;
		}
		/* One lcore: poll between bursts of work too. */
		if (idle || g.poller == NULL)
			ct_idle();
	}
	/* The result, written now: the tear-down below may take long (and be
	 * cut short by a supervisor) on a loaded machine. */
	printf("ndk-cmtime: %" PRIu64 " connection(s) accepted, %" PRIu64
	       " refused\n", served, refused);
	fflush(stdout);
	for (uint32_t j = 0; j < n_slots; j++)
		if (g.c[j].conn != NULL)
			ct_srv_close(&g.c[j]);
	rte_free(g.free_slots);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Adapter and main                                                    */
/* ------------------------------------------------------------------ */

static int
ct_open(void)
{
	struct ndk_adapter_config cfg = {
		.port_id = g.o.port_id,
		.configure_port = true,
		.ipv4 = g.o.ipv4,
		.max_path_mtu = g.o.mtu,
		.max_qp = g.o.max_qp,
		.socket_id = SOCKET_ID_ANY,
	};
	uint32_t ring = rte_align32pow2(g.o.max_qp + 1);
	struct ndk_cm_params cp;
	unsigned int lcore;
	ndk_status_t st;

	memcpy(cfg.ipv6, g.o.ipv6, sizeof(cfg.ipv6));
	st = ndk_adapter_open(&cfg, &g.ad);
	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "open adapter on port %u: %s\n", g.o.port_id,
			ndk_status_str(st));
		g.ad = NULL;
		return -1;
	}
	if (g.o.retries != UINT8_MAX || g.o.backlog != 0) {
		st = ndk_adapter_get_cm_params(g.ad, &cp);
		if (g.o.retries != UINT8_MAX)
			cp.retry_count = g.o.retries;
		if (g.o.backlog != 0)
			cp.listen_backlog = g.o.backlog;
		if (st == NDK_STATUS_SUCCESS)
			st = ndk_adapter_set_cm_params(g.ad, &cp);
		if (st != NDK_STATUS_SUCCESS) {
			fprintf(stderr, "CM parameters: %s\n",
				ndk_status_str(st));
			return -1;
		}
	}
	/* A second lcore polls; with one, the main thread does. */
	lcore = rte_get_next_lcore(-1, 1, 0);
	if (lcore < RTE_MAX_LCORE &&
	    ndk_poller_start(lcore, &g.ad, 1, &g.poller) != 0) {
		fprintf(stderr, "cannot start a poller on lcore %u\n", lcore);
		return -1;
	}
	g.c = rte_zmalloc("ct_conns", g.o.max_qp * sizeof(*g.c), 0);
	g.done = rte_ring_create("ct_done", ring, SOCKET_ID_ANY, 0);
	g.incoming = rte_ring_create("ct_incoming", ring, SOCKET_ID_ANY, 0);
	g.gone = rte_ring_create("ct_gone", ring, SOCKET_ID_ANY, 0);
	if (g.c == NULL || g.done == NULL || g.incoming == NULL ||
	    g.gone == NULL ||
	    ndk_create_pd(g.ad, &g.pd) != NDK_STATUS_SUCCESS ||
	    ndk_create_cq(g.ad, 64, NULL, NULL, &g.cq) != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "ndk-cmtime: out of memory\n");
		return -1;
	}
	return 0;
}

static void
ct_close(void)
{
	if (g.ad == NULL)
		return;
	if (g.lis != NULL)
		ndk_close_listener(g.lis, NULL, NULL);
	for (uint32_t i = 0; g.c != NULL && i < g.o.max_qp; i++) {
		if (g.c[i].conn != NULL)
			ndk_close_connector(g.c[i].conn, NULL, NULL);
		if (g.c[i].qp != NULL)
			ndk_close_qp(g.c[i].qp, NULL, NULL);
	}
	if (g.cq != NULL)
		ndk_close_cq(g.cq, NULL, NULL);
	if (g.pd != NULL)
		ndk_close_pd(g.pd, NULL, NULL);
	if (g.poller != NULL)
		ndk_poller_stop(g.poller);
	if (g.o.stats) {
		printf("adapter counters (non-zero):\n");
		ndk_app_print_xstats(stdout, g.ad, NULL, "  ", 20, 12, false);
	}
	/* The peer may still poll a shared-memory link (ndk-rping). */
	rte_delay_us_sleep(CT_LINGER_MS * 1000);
	ndk_adapter_close(g.ad);
	rte_ring_free(g.done);
	rte_ring_free(g.incoming);
	rte_ring_free(g.gone);
	rte_free(g.c);
}

static int
ct_wait_link(void)
{
	struct rte_eth_link link;

	for (int i = 0; i < CT_LINK_S * 100; i++) {
		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(g.o.port_id, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_UP)
			return 0;
		if (g.poller == NULL)
			ndk_adapter_poll(g.ad);
		rte_delay_us_sleep(10000);
	}
	fprintf(stderr, "port %u: link down after %d s\n", g.o.port_id,
		CT_LINK_S);
	return -1;
}

int
main(int argc, char **argv)
{
	int n, rc;

	n = rte_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "ndk-cmtime: EAL init failed\n");
		return 1;
	}
	argv[n] = argv[0];
	rc = ct_parse_args(argc - n, argv + n, &g.o);
	if (rc != 0) {
		rte_eal_cleanup();
		return rc == 2 ? 0 : 1;
	}
	signal(SIGINT, ct_on_signal);
	signal(SIGTERM, ct_on_signal);
	rc = ct_open();
	if (rc == 0 && g.o.client)
		rc = ct_wait_link();
	if (rc == 0)
		rc = g.o.client ? ct_client() : ct_server();
	if (g.o.client && g.c != NULL)
		ct_show_perf();
	ct_close();
	rte_eal_cleanup();
	return rc == 0 ? 0 : 1;
}
