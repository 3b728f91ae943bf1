/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * attach-cm: a server and a client of the connection manager, one
 * program run embedded (a primary owning a memif port) or attached (a
 * secondary of ndk-roced; libndk then picks the attach provider), so the
 * daemon tests run an attached server against an embedded client and an
 * attached client against an embedded server.
 *
 * Server: listens; the first request (private data "R...") is rejected
 * with private data; the second is checked (caller's private data, peer
 * address) and accepted with 100 bytes of private data and a disconnect
 * event. It fast-registers two pages of a buffer (FRMR) and binds a
 * memory window over another, sends their addresses and tokens, waits for
 * the client's "done", checks the bytes the client wrote through both,
 * invalidates both, says so, and waits for the disconnect event. Its
 * completions are waited for with CQ notifications (arm + callback).
 * Client: connects once to be rejected (checks the REJ's outcome), then
 * connects (checks the server's private data), completes, WRITEs and
 * READs back through the FRMR and the window, every byte compared, says
 * "done", then after the invalidation checks that a READ with the old
 * FRMR token fails, and disconnects. Both list their QPs and query one.
 * The client's connectors are created with a create completion (PENDING
 * embedded, inline attached). The client's accepted connection goes
 * through a shared endpoint (NdkConnectWithSharedEndpoint: its local end
 * is the endpoint's address); at the end, embedded and attached alike,
 * the endpoint's close and the server's listener's close are
 * STATUS_PENDING while the connection's connector is open, and complete
 * (their callbacks, attached at a poll) once it is closed.
 *
 *   prints "OPEN", (server) "LISTENING"; the client reads "connect"
 *   first; both print "DONE" when through; then they read "stop"
 *   (stops polling, prints STOPPED) and "close" / EOF (prints CLOSED).
 *
 *   attach-cm <EAL args> -- --ip A --peer B (--server [--fill] |
 *                           --client) [--port N] [--ip6 A6 --peer6 B6]
 *
 * --ip6/--peer6: the connection runs over IPv6 (the embedded adapter gets
 * A6 beside A; the server listens on in6addr_any, the client connects from
 * :: to B6) and the server checks the peer's IPv6 address.
 *
 * --fill (attached server, NDK_ATTACH_EV_SLOTS=8 in its environment):
 * first fill the event ring with promises, print FULL, wait for "free"
 * (meanwhile the client, ordered "refuse", must be refused), print FREED.
 */

#include <arpa/inet.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>

#include "daemon_app.h"
#include "ndk.h"

#define WAIT_S 60
#define FR_PAGES 2
#define FR_BASE_VA 0x7000000000ull
#define FR_LEN 6000            /* crosses the page boundary */
#define MW_OFF 4096            /* the window: [MW_OFF, MW_OFF + MW_LEN) */
#define MW_LEN 2000
#define SRV_PDATA 100
#define CLI_PDATA 40

struct offer {                 /* server -> client */
	uint64_t fr_va, mw_va;
	uint32_t fr_tok, mw_tok;
};

static struct {
	struct ndk_adapter *ad;
	struct ndk_pd *pd;
	struct ndk_cq *cq;
	struct ndk_qp *qp;
	struct ndk_mr *mr;         /* plain: msg area + window's parent */
	struct ndk_connector *conn;
	uint8_t *buf;              /* [0,4096) msgs, [4096, 8192) window */
	uint8_t *fr;               /* FR_PAGES pages, page aligned */
	uint32_t tok;
	bool notify;               /* wait for completions by notification */
	bool fill;                 /* --fill: refuse a request (full ring) */
	bool v6;                   /* --ip6/--peer6: over IPv6 */
	uint8_t ip6[16], peer6[16];
	struct ndk_shared_endpoint *sep; /* client: the connection's */
	int done, notified, disc, closed;
	uint32_t disc_reason, n_notify;
	ndk_status_t st;
	struct ndk_connector *incoming;
} g;

static void
fail(const char *what)
{
	fprintf(stderr, "attach-cm: %s\n", what);
	exit(1);
}

static void
failst(const char *what, ndk_status_t st)
{
	fprintf(stderr, "attach-cm: %s: %s\n", what, ndk_status_str(st));
	exit(1);
}

static bool
expired(uint64_t t0)
{
	return rte_get_timer_cycles() - t0 > WAIT_S * rte_get_timer_hz();
}

static void
pattern(uint8_t *p, uint32_t n, uint32_t seed)
{
	for (uint32_t k = 0; k < n; k++)
		p[k] = (uint8_t)(seed * 77 + k * 13 + (k >> 9));
}

static void
req_done(void *ctx, ndk_status_t st)
{
	RTE_SET_USED(ctx);
	g.st = st;
	__atomic_store_n(&g.done, 1, __ATOMIC_RELEASE);
}

static void
on_notify(void *ctx, ndk_status_t st)
{
	RTE_SET_USED(ctx);
	RTE_SET_USED(st);
	g.n_notify++;
	__atomic_store_n(&g.notified, 1, __ATOMIC_RELEASE);
}

static void
on_disc(void *ctx, uint32_t reason)
{
	RTE_SET_USED(ctx);
	g.disc_reason = reason;
	__atomic_store_n(&g.disc, 1, __ATOMIC_RELEASE);
}

static void
on_connect(void *ctx, struct ndk_connector *c)
{
	RTE_SET_USED(ctx);
	if (g.incoming != NULL)
		fail("a second connect event before the first was handled");
	g.incoming = c;
}

/* A close completion. */
static void
on_closed(void *ctx)
{
	RTE_SET_USED(ctx);
	__atomic_fetch_add(&g.closed, 1, __ATOMIC_RELEASE);
}

/* A connect event, within WAIT_S. */
static void
wait_incoming(void)
{
	uint64_t t0 = rte_get_timer_cycles();

	while (g.incoming == NULL) {
		if (expired(t0))
			fail("no connection request");
		ndk_adapter_poll(g.ad);
	}
}

static void
poll_until(int *flag, const char *what)
{
	uint64_t t0 = rte_get_timer_cycles();

	while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) {
		if (expired(t0))
			fail(what);
		ndk_adapter_poll(g.ad);
	}
	*flag = 0;
}

/* Wait for a request started with @p st; @return its outcome. */
static ndk_status_t
wait_req(ndk_status_t st, const char *what)
{
	if (st != NDK_STATUS_PENDING)
		failst(what, st);     /* NDK: pending, completion follows */
	poll_until(&g.done, what);
	return g.st;
}

/* One completion: by notification (arm, callback) or by polling. */
static struct ndk_result_ex
get_cqe(void)
{
	uint64_t t0 = rte_get_timer_cycles();
	struct ndk_result_ex r;

	while (ndk_get_cq_results_ex(g.cq, &r, 1) == 0) {
		if (expired(t0))
			fail("no completion");
		if (!g.notify) {
			ndk_adapter_poll(g.ad);
			continue;
		}
		ndk_arm_cq(g.cq, NDK_CQ_NOTIFY_ANY);
		if (ndk_get_cq_results_ex(g.cq, &r, 1) == 1)
			return r;
		poll_until(&g.notified, "CQ notification");
	}
	return r;
}

static uint32_t
wait_cqe(enum ndk_operation_type type)
{
	struct ndk_result_ex r = get_cqe();

	if (r.status != NDK_STATUS_SUCCESS || r.type != type) {
		fprintf(stderr, "attach-cm: completion type %d (want %d): %s\n",
			(int)r.type, (int)type, ndk_status_str(r.status));
		exit(1);
	}
	return r.bytes_transferred;
}

static void
post_ok(ndk_status_t st, const char *what)
{
	if (st != NDK_STATUS_SUCCESS)
		failst(what, st);
}

/* The adapter's QP list holds ours, in RTS, and it is queryable. */
static void
check_qps(void)
{
	uint32_t qpns[64];
	struct ndk_qp_info info;
	int n = ndk_adapter_qp_list(g.ad, qpns, RTE_DIM(qpns));
	bool found = false;

	if (n < 1)
		fail("QP list empty");
	for (int i = 0; i < n && i < (int)RTE_DIM(qpns); i++)
		found |= qpns[i] == ndk_qp_num(g.qp);
	if (!found)
		fail("our QP is not in the adapter's QP list");
	post_ok(ndk_qp_query_info(g.ad, ndk_qp_num(g.qp), &info), "qp info");
	if (info.qpn != ndk_qp_num(g.qp) || info.state != NDK_QP_STATE_RTS)
		fail("QP info: not our QP in RTS");
	printf("QPS n=%d\n", n);
}

static void
expect_st(ndk_status_t st, ndk_status_t want, const char *what)
{
	if (st != want) {
		fprintf(stderr, "attach-cm: %s: %s, expected %s\n", what,
			ndk_status_str(st), ndk_status_str(want));
		exit(1);
	}
}

/*
 * Attached: a fast register of our own FRMR naming a page outside our heap
 * (another application's buffer, the shared socket heap) is refused
 * inline with STATUS_ACCESS_VIOLATION; a page of our heap is not.
 */
static void
misuse_fr_pages(struct ndk_adapter *ad2)
{
	const uint32_t rw = NDK_OP_FLAG_ALLOW_REMOTE_READ |
		NDK_OP_FLAG_ALLOW_REMOTE_WRITE;
	struct ndk_mr *fr4;
	uint64_t page;
	void *other, *shared;

	post_ok(ndk_adapter_alloc_buffer(ad2, NDK_PAGE_SIZE, NDK_PAGE_SIZE,
					 &other), "another's buffer");
	shared = rte_zmalloc("attach-cm-shared", NDK_PAGE_SIZE,
			     NDK_PAGE_SIZE);
	if (shared == NULL)
		fail("rte_zmalloc");
	post_ok(ndk_create_mr(g.pd, true, &fr4), "fr4");
	post_ok(ndk_initialize_fast_register_mr(fr4, 1, true), "init fr4");
	page = (uint64_t)(uintptr_t)other;
	expect_st(ndk_fast_register(g.qp, NULL, fr4, 1, &page, 0, 64,
				    FR_BASE_VA, rw),
		  NDK_STATUS_ACCESS_VIOLATION,
		  "fast register of another application's page");
	page = (uint64_t)(uintptr_t)shared;
	expect_st(ndk_fast_register(g.qp, NULL, fr4, 1, &page, 0, 64,
				    FR_BASE_VA, rw),
		  NDK_STATUS_ACCESS_VIOLATION,
		  "fast register of a page of the shared heap");
	ndk_close_mr(fr4, NULL, NULL);
	rte_free(shared);
	ndk_adapter_free_buffer(ad2, other);
}

/*
 * Posts naming another PD's or another application's FRMR or window are
 * refused inline (attached: a second application in this process).
 */
static void
misuse_posts(void)
{
	struct ndk_adapter_config ac = {
		.port_id = 0, .socket_id = SOCKET_ID_ANY,
	};
	struct ndk_adapter *ad2 = NULL;
	struct ndk_pd *pd2, *pd3;
	struct ndk_mr *fr2, *fr3;
	struct ndk_mw *mw2, *mw3;
	uint64_t page = (uint64_t)(uintptr_t)g.fr;
	const uint32_t rw = NDK_OP_FLAG_ALLOW_REMOTE_READ |
		NDK_OP_FLAG_ALLOW_REMOTE_WRITE;
	int rounds = 1;

	/* Same application, another PD: swroce's PD check. */
	post_ok(ndk_create_pd(g.ad, &pd3), "pd3");
	post_ok(ndk_create_mr(pd3, true, &fr3), "fr3");
	post_ok(ndk_initialize_fast_register_mr(fr3, 1, true), "init fr3");
	post_ok(ndk_create_mw(pd3, &mw3), "mw3");
	if (rte_eal_process_type() == RTE_PROC_SECONDARY) {
		post_ok(ndk_adapter_open(&ac, &ad2), "second application");
		post_ok(ndk_create_pd(ad2, &pd2), "pd2");
		post_ok(ndk_create_mr(pd2, true, &fr2), "fr2");
		post_ok(ndk_initialize_fast_register_mr(fr2, 1, true),
			"init fr2");
		post_ok(ndk_create_mw(pd2, &mw2), "mw2");
		misuse_fr_pages(ad2);
		rounds = 2;
	}
	for (int i = 0; i < rounds; i++) {
		struct ndk_mr *fr = i == 0 ? fr3 : fr2;
		struct ndk_mw *mw = i == 0 ? mw3 : mw2;

		expect_st(ndk_fast_register(g.qp, NULL, fr, 1, &page, 0, 64,
					    FR_BASE_VA, rw),
			  NDK_STATUS_INVALID_DEVICE_REQUEST,
			  "fast register of a foreign FRMR");
		expect_st(ndk_invalidate(g.qp, NULL, &mw->header, 0),
			  NDK_STATUS_INVALID_DEVICE_REQUEST,
			  "invalidate of a foreign window");
		expect_st(ndk_invalidate(g.qp, NULL, &fr->header, 0),
			  NDK_STATUS_INVALID_DEVICE_REQUEST,
			  "invalidate of a foreign FRMR");
		expect_st(ndk_bind(g.qp, NULL, g.mr, mw, g.buf, 64, rw),
			  NDK_STATUS_INVALID_PARAMETER,
			  "bind of a foreign window");
	}
	ndk_close_mw(mw3, NULL, NULL);
	ndk_close_mr(fr3, NULL, NULL);
	ndk_close_pd(pd3, NULL, NULL);
	if (ad2 != NULL)
		ndk_adapter_close(ad2);   /* the daemon closes its objects */
	printf("MISUSE refused (%d)\n", rounds);
	fflush(stdout);
}

/*
 * --fill: started with NDK_ATTACH_EV_SLOTS=8, promise all 8 event slots
 * (the PD, CQ, MR and listener their closes' events; 2 more CQs theirs,
 * the first armed twice), so that the daemon must refuse the next
 * connection request (nothing would carry its event); on "free", close
 * the CQs.
 */
static void
fill_events(void)
{
	struct ndk_cq *cq[2];
	char line[32];

	for (int i = 0; i < 2; i++)
		post_ok(ndk_create_cq(g.ad, 4, on_notify, NULL, &cq[i]),
			"fill CQ");
	ndk_arm_cq(cq[0], NDK_CQ_NOTIFY_ANY);
	ndk_arm_cq(cq[0], NDK_CQ_NOTIFY_ANY);
	printf("FULL\n");
	fflush(stdout);
	if (fgets(line, sizeof(line), stdin) == NULL ||
	    strncmp(line, "free", 4) != 0)
		fail("no 'free' order");
	for (int i = 0; i < 2; i++)
		ndk_close_cq(cq[i], NULL, NULL);
	if (g.incoming != NULL)
		fail("a connect event arrived while the event ring was full");
	printf("FREED\n");
	fflush(stdout);
}

static void
server(uint32_t ip, uint32_t peer, uint16_t port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct sockaddr_in6 sa6 = { .sin6_family = AF_INET6 };
	union ndk_sockaddr pa;
	uint8_t pd[256], want[SRV_PDATA];
	uint32_t ird, ord, len = sizeof(pd);
	socklen_t plen = sizeof(pa);
	struct ndk_listener *lis;
	struct ndk_mr *fr;
	struct ndk_mw *mw;
	struct offer *of = (struct offer *)g.buf;
	uint64_t pages[FR_PAGES];
	struct ndk_sge s;

	sa.sin_addr.s_addr = ip;
	sa.sin_port = htons(port);
	sa6.sin6_port = htons(port);      /* in6addr_any: both families */
	if (ndk_create_listener(g.ad, on_connect, NULL, &lis) !=
	    NDK_STATUS_SUCCESS)
		fail("listener");
	post_ok(g.v6 ? ndk_listen(lis, (struct sockaddr *)&sa6, sizeof(sa6)) :
		ndk_listen(lis, (struct sockaddr *)&sa, sizeof(sa)), "listen");
	printf("LISTENING\n");
	fflush(stdout);
	if (g.fill)
		fill_events();
	/* First request: rejected with private data. */
	wait_incoming();
	post_ok(ndk_get_connection_data(g.incoming, &ird, &ord, pd, &len),
		"connection data");
	if (pd[0] != 'R')
		fail("the first request should ask to be rejected");
	post_ok(ndk_reject(g.incoming, "no", 2), "reject");
	ndk_close_connector(g.incoming, NULL, NULL);
	g.incoming = NULL;
	/* Second: checked and accepted. */
	wait_incoming();
	g.conn = g.incoming;
	len = sizeof(pd);
	post_ok(ndk_get_connection_data(g.conn, &ird, &ord, pd, &len),
		"connection data");
	pattern(want, CLI_PDATA, 5);
	if (len < CLI_PDATA || memcmp(pd, want, CLI_PDATA) != 0)
		fail("the caller's private data differ");
	post_ok(ndk_get_peer_address(g.conn, &pa.sa, &plen), "peer address");
	if (g.v6 ? plen != sizeof(pa.sin6) || pa.sa.sa_family != AF_INET6 ||
	    memcmp(&pa.sin6.sin6_addr, g.peer6, 16) != 0 :
	    pa.sin.sin_addr.s_addr != peer)
		fail("peer address is not the client's");
	pattern(want, SRV_PDATA, 6);
	if (wait_req(ndk_accept(g.conn, g.qp, 4, 4, want, SRV_PDATA, on_disc,
				NULL, req_done, NULL), "accept") !=
	    NDK_STATUS_SUCCESS)
		failst("accept", g.st);
	printf("ACCEPTED\n");
	fflush(stdout);
	check_qps();
	misuse_posts();
	/* An FRMR over two pages, a window over the MR's second half. */
	post_ok(ndk_create_mr(g.pd, true, &fr), "create FRMR");
	post_ok(ndk_initialize_fast_register_mr(fr, FR_PAGES, true),
		"initialize FRMR");
	for (int i = 0; i < FR_PAGES; i++)
		pages[i] = (uint64_t)(uintptr_t)(g.fr + i * NDK_PAGE_SIZE);
	post_ok(ndk_fast_register(g.qp, NULL, fr, FR_PAGES, pages, 0, FR_LEN,
				  FR_BASE_VA, NDK_OP_FLAG_ALLOW_REMOTE_READ |
				  NDK_OP_FLAG_ALLOW_REMOTE_WRITE |
				  NDK_OP_FLAG_ALLOW_LOCAL_WRITE),
		"fast register");
	wait_cqe(NDK_OP_FAST_REGISTER);
	post_ok(ndk_create_mw(g.pd, &mw), "create MW");
	post_ok(ndk_bind(g.qp, NULL, g.mr, mw, g.buf + MW_OFF, MW_LEN,
			 NDK_OP_FLAG_ALLOW_REMOTE_READ |
			 NDK_OP_FLAG_ALLOW_REMOTE_WRITE), "bind");
	wait_cqe(NDK_OP_BIND);
	s = (struct ndk_sge){ g.buf + 1024, 64, g.tok };
	post_ok(ndk_receive(g.qp, NULL, &s, 1), "receive");
	of->fr_va = FR_BASE_VA;
	of->fr_tok = ndk_mr_remote_token(fr);
	of->mw_va = (uint64_t)(uintptr_t)(g.buf + MW_OFF);
	of->mw_tok = ndk_mw_remote_token(mw);
	s = (struct ndk_sge){ g.buf, sizeof(*of), g.tok };
	post_ok(ndk_send(g.qp, NULL, &s, 1, 0), "send offer");
	wait_cqe(NDK_OP_SEND);
	wait_cqe(NDK_OP_RECEIVE);
	if (memcmp(g.buf + 1024, "done", 4) != 0)
		fail("no 'done'");
	{
		uint8_t *w = malloc(FR_LEN);

		pattern(w, FR_LEN, 1);
		if (memcmp(g.fr, w, FR_LEN) != 0)
			fail("bytes written through the FRMR differ");
		pattern(w, MW_LEN, 2);
		if (memcmp(g.buf + MW_OFF, w, MW_LEN) != 0)
			fail("bytes written through the window differ");
		free(w);
	}
	post_ok(ndk_invalidate(g.qp, NULL, &fr->header, 0), "invalidate FR");
	wait_cqe(NDK_OP_INVALIDATE);
	post_ok(ndk_invalidate(g.qp, NULL, &mw->header, 0), "invalidate MW");
	wait_cqe(NDK_OP_INVALIDATE);
	memcpy(g.buf, "inv", 4);
	s = (struct ndk_sge){ g.buf, 4, g.tok };
	post_ok(ndk_send(g.qp, NULL, &s, 1, 0), "send inv");
	wait_cqe(NDK_OP_SEND);
	poll_until(&g.disc, "disconnect event");
	printf("DISC reason=%u notifications=%u\n", g.disc_reason,
	       g.n_notify);
	if (g.n_notify == 0)
		fail("no CQ notification");
	ndk_close_mw(mw, NULL, NULL);
	ndk_close_mr(fr, NULL, NULL);
	/* The connector it handed up is open: pending (NDK), completed
	 * when that one is closed (main). */
	expect_st(ndk_close_listener(lis, on_closed, NULL), NDK_STATUS_PENDING,
		  "close of a listener whose connector is open");
}

/* A create's completion (ndk_create_connector_async()). */
static struct {
	int done;
	ndk_status_t st;
	struct ndk_object_header *obj;
} g_created;

static void
on_created(void *ctx, ndk_status_t st, struct ndk_object_header *obj)
{
	RTE_SET_USED(ctx);
	g_created.st = st;
	g_created.obj = obj;
	__atomic_store_n(&g_created.done, 1, __ATOMIC_RELEASE);
}

/*
 * The client's connector, created with NDK's CreateCompletion (ndk_ext.h):
 * embedded, STATUS_PENDING and the completion (the adapter polled
 * meanwhile); attached, inline (STATUS_SUCCESS, and no completion ever).
 */
static struct ndk_connector *
client_connector(void)
{
	struct ndk_connector *c = NULL;
	ndk_status_t st;

	memset(&g_created, 0, sizeof(g_created));
	st = ndk_create_connector_async(g.ad, on_created, NULL, &c);
	if (rte_eal_process_type() == RTE_PROC_SECONDARY) {
		if (st != NDK_STATUS_SUCCESS || c == NULL)
			failst("attached async create: inline", st);
		rte_delay_us_sleep(50 * 1000);
		if (__atomic_load_n(&g_created.done, __ATOMIC_ACQUIRE))
			fail("attached: a completion after an inline create");
		return c;
	}
	if (st != NDK_STATUS_PENDING || c != NULL)
		failst("embedded async create: PENDING", st);
	poll_until(&g_created.done, "create completion");
	if (!NDK_SUCCESS(g_created.st) || g_created.obj == NULL ||
	    g_created.obj->type != NDK_OBJECT_TYPE_CONNECTOR)
		failst("embedded async create", g_created.st);
	return (struct ndk_connector *)g_created.obj;
}

static ndk_status_t
client_connect(struct ndk_qp *qp, uint32_t ip, uint32_t peer,
	       uint16_t port, const uint8_t *pdata)
{
	struct sockaddr_in src = { .sin_family = AF_INET };
	struct sockaddr_in dst = { .sin_family = AF_INET };
	struct sockaddr_in6 src6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in6 dst6 = { .sin6_family = AF_INET6 };

	src.sin_addr.s_addr = ip;
	dst.sin_addr.s_addr = peer;
	dst.sin_port = htons(port);
	memcpy(&dst6.sin6_addr, g.peer6, 16);
	dst6.sin6_port = htons(port);
	g.conn = client_connector();
	/* From the shared endpoint, if any (NdkConnectWithSharedEndpoint). */
	if (g.sep != NULL)
		return wait_req(ndk_connect_with_shared_endpoint(g.conn, qp,
				g.sep, g.v6 ? (struct sockaddr *)&dst6 :
				(struct sockaddr *)&dst, g.v6 ? sizeof(dst6) :
				sizeof(dst), 4, 4, pdata, CLI_PDATA, req_done,
				NULL), "connect with shared endpoint");
	if (g.v6)
		return wait_req(ndk_connect(g.conn, qp,
					    (struct sockaddr *)&src6,
					    sizeof(src6),
					    (struct sockaddr *)&dst6,
					    sizeof(dst6), 4, 4, pdata,
					    CLI_PDATA, req_done, NULL),
				"connect");
	return wait_req(ndk_connect(g.conn, qp, (struct sockaddr *)&src,
				    sizeof(src), (struct sockaddr *)&dst,
				    sizeof(dst), 4, 4, pdata, CLI_PDATA,
				    req_done, NULL), "connect");
}

static void
rdma_check(uint64_t va, uint32_t tok, uint32_t n, uint32_t seed)
{
	uint8_t *src = g.buf + 8192, *back = g.buf + 16384, *want;
	struct ndk_sge s = { src, n, g.tok }, b = { back, n, g.tok };

	want = malloc(n);
	pattern(src, n, seed);
	pattern(want, n, seed);
	memset(back, 0, n);
	post_ok(ndk_write(g.qp, NULL, &s, 1, va, tok, 0), "write");
	wait_cqe(NDK_OP_WRITE);
	post_ok(ndk_read(g.qp, NULL, &b, 1, va, tok, 0), "read");
	wait_cqe(NDK_OP_READ);
	if (memcmp(back, want, n) != 0)
		fail("READ brought back other bytes than written");
	free(want);
}

/* A connect (private data all @p mark, a QP of its own) is refused. */
static void
refused_connect(uint32_t ip, uint32_t peer, uint16_t port, uint8_t mark,
		const char *say)
{
	uint8_t pdata[CLI_PDATA];
	struct ndk_qp *q0;
	ndk_status_t st;

	memset(pdata, mark, sizeof(pdata));
	if (ndk_create_qp(g.pd, g.cq, g.cq, NULL, 8, 8, 1, 1, 0, &q0) !=
	    NDK_STATUS_SUCCESS)
		fail("qp");
	st = client_connect(q0, ip, peer, port, pdata);
	if (st != NDK_STATUS_CONNECTION_REFUSED)
		failst(say, st);
	ndk_close_connector(g.conn, NULL, NULL);
	ndk_close_qp(q0, NULL, NULL);
	printf("%s\n", say);
	fflush(stdout);
}

/* The shared endpoint the client connects from: the family's wildcard. */
static void
client_sep(void)
{
	struct sockaddr_in any = { .sin_family = AF_INET };
	struct sockaddr_in6 any6 = { .sin6_family = AF_INET6 };

	post_ok(g.v6 ? ndk_create_shared_endpoint(g.ad,
			(struct sockaddr *)&any6, sizeof(any6), &g.sep) :
		ndk_create_shared_endpoint(g.ad, (struct sockaddr *)&any,
					   sizeof(any), &g.sep),
		"create shared endpoint");
}

/* The connection's local end is the endpoint's address and port. */
static void
check_sep_end(void)
{
	union ndk_sockaddr e, l;
	socklen_t el = sizeof(e), ll = sizeof(l);
	bool v6;

	memset(&e, 0, sizeof(e));
	memset(&l, 0, sizeof(l));
	post_ok(ndk_shared_endpoint_get_local_address(g.sep, &e.sa, &el),
		"endpoint address");
	post_ok(ndk_get_local_address(g.conn, &l.sa, &ll), "local address");
	v6 = e.sa.sa_family == AF_INET6;
	if (e.sa.sa_family != l.sa.sa_family ||
	    (v6 ? memcmp(&e.sin6.sin6_addr, &l.sin6.sin6_addr, 16) != 0 ||
	     e.sin6.sin6_port != l.sin6.sin6_port :
	     e.sin.sin_addr.s_addr != l.sin.sin_addr.s_addr ||
	     e.sin.sin_port != l.sin.sin_port) ||
	    (v6 ? e.sin6.sin6_port : e.sin.sin_port) == 0)
		fail("the connection's local end is not the endpoint's");
	printf("SHARED-ENDPOINT port=%u\n",
	       ntohs(v6 ? e.sin6.sin6_port : e.sin.sin_port));
	fflush(stdout);
}

static void
client(uint32_t ip, uint32_t peer, uint16_t port)
{
	uint8_t pdata[CLI_PDATA], pd[256], want[SRV_PDATA];
	uint32_t ird, ord, len = sizeof(pd);
	struct offer of;
	struct ndk_sge s;
	struct ndk_result_ex r;
	ndk_status_t st;

	/* The test says when the server listens; "refuse": its event ring
	 * is full, our request must be refused. */
	for (;;) {
		if (fgets((char *)pd, sizeof(pd), stdin) == NULL)
			fail("no 'connect' order");
		if (strncmp((char *)pd, "connect", 7) == 0)
			break;
		if (strncmp((char *)pd, "refuse", 6) != 0)
			fail("orders: refuse, connect");
		refused_connect(ip, peer, port, 'F', "REFUSED-FULL");
	}
	/* Rejected by the server first ('R'). */
	refused_connect(ip, peer, port, 'R', "REJECTED");
	pattern(pdata, CLI_PDATA, 5);
	client_sep();
	st = client_connect(g.qp, ip, peer, port, pdata);
	if (st != NDK_STATUS_SUCCESS)
		failst("connect", st);
	check_sep_end();
	post_ok(ndk_get_connection_data(g.conn, &ird, &ord, pd, &len),
		"connection data");
	pattern(want, SRV_PDATA, 6);
	if (len < SRV_PDATA || memcmp(pd, want, SRV_PDATA) != 0)
		fail("the server's private data differ");
	if (wait_req(ndk_complete_connect(g.conn, on_disc, NULL, req_done,
					  NULL), "complete connect") !=
	    NDK_STATUS_SUCCESS)
		failst("complete connect", g.st);
	printf("CONNECTED\n");
	fflush(stdout);
	check_qps();
	s = (struct ndk_sge){ g.buf + 1024, 64, g.tok };
	post_ok(ndk_receive(g.qp, NULL, &s, 1), "receive");
	wait_cqe(NDK_OP_RECEIVE);
	memcpy(&of, g.buf + 1024, sizeof(of));
	rdma_check(of.fr_va, of.fr_tok, FR_LEN, 1);
	rdma_check(of.mw_va, of.mw_tok, MW_LEN, 2);
	s = (struct ndk_sge){ g.buf + 1024, 64, g.tok };
	post_ok(ndk_receive(g.qp, NULL, &s, 1), "receive");
	memcpy(g.buf, "done", 4);
	s = (struct ndk_sge){ g.buf, 4, g.tok };
	post_ok(ndk_send(g.qp, NULL, &s, 1, 0), "send done");
	wait_cqe(NDK_OP_SEND);
	wait_cqe(NDK_OP_RECEIVE);
	if (memcmp(g.buf + 1024, "inv", 4) != 0)
		fail("no 'inv'");
	/* The old FRMR token is refused now. */
	s = (struct ndk_sge){ g.buf + 8192, 64, g.tok };
	post_ok(ndk_read(g.qp, NULL, &s, 1, of.fr_va, of.fr_tok, 0), "read");
	r = get_cqe();
	if (r.status == NDK_STATUS_SUCCESS)
		fail("a READ with an invalidated FRMR token succeeded");
	printf("REFUSED %s\n", ndk_status_str(r.status));
	st = wait_req(ndk_disconnect(g.conn, req_done, NULL), "disconnect");
	printf("DISCONNECTED %s\n", ndk_status_str(st));
}

static void
open_all(uint32_t ip)
{
	struct ndk_adapter_config ac = {
		.port_id = 0, .configure_port = true, .ipv4 = ip,
		.socket_id = SOCKET_ID_ANY,
	};

	memcpy(ac.ipv6, g.ip6, sizeof(ac.ipv6));
	if (ndk_adapter_open(&ac, &g.ad) != NDK_STATUS_SUCCESS)
		fail("adapter");
	printf("OPEN\n");
	fflush(stdout);
	if (dapp_wait_link(0, WAIT_S) != 0)
		fail("link down");
	/* Attached: from our heap in the daemon, the only memory it lets
	 * us register; embedded: from the port's socket heap. */
	if (ndk_adapter_alloc_buffer(g.ad, 32768, NDK_PAGE_SIZE,
				     (void **)&g.buf) != NDK_STATUS_SUCCESS ||
	    ndk_adapter_alloc_buffer(g.ad, FR_PAGES * NDK_PAGE_SIZE,
				     NDK_PAGE_SIZE, (void **)&g.fr) !=
	    NDK_STATUS_SUCCESS ||
	    ndk_create_pd(g.ad, &g.pd) != NDK_STATUS_SUCCESS ||
	    ndk_create_cq(g.ad, 64, g.notify ? on_notify : NULL, NULL,
			  &g.cq) != NDK_STATUS_SUCCESS ||
	    ndk_create_qp(g.pd, g.cq, g.cq, NULL, 8, 8, 1, 1, 0, &g.qp) !=
	    NDK_STATUS_SUCCESS ||
	    ndk_create_mr(g.pd, false, &g.mr) != NDK_STATUS_SUCCESS ||
	    ndk_register_mr(g.mr, g.buf, 32768,
			    NDK_MR_FLAG_ALLOW_LOCAL_WRITE |
			    NDK_MR_FLAG_ALLOW_REMOTE_READ |
			    NDK_MR_FLAG_ALLOW_REMOTE_WRITE) !=
	    NDK_STATUS_SUCCESS)
		fail("resources");
	g.tok = ndk_mr_local_token(g.mr);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ip", required_argument, NULL, 'i' },
		{ "peer", required_argument, NULL, 'p' },
		{ "port", required_argument, NULL, 'P' },
		{ "server", no_argument, NULL, 's' },
		{ "client", no_argument, NULL, 'c' },
		{ "fill", no_argument, NULL, 'f' },
		{ "ip6", required_argument, NULL, '6' },
		{ "peer6", required_argument, NULL, '7' },
		{ NULL, 0, NULL, 0 },
	};
	uint32_t ip = 0, peer = 0;
	uint16_t port = 7500;
	int role = 0, n, c;

	n = rte_eal_init(argc, argv);
	if (n < 0)
		fail("EAL");
	argc -= n;
	argv += n;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'i')
			inet_pton(AF_INET, optarg, &ip);
		else if (c == 'p')
			inet_pton(AF_INET, optarg, &peer);
		else if (c == 'P')
			port = (uint16_t)atoi(optarg);
		else if (c == 's' || c == 'c')
			role = c;
		else if (c == 'f')
			g.fill = true;
		else if (c == '6' && inet_pton(AF_INET6, optarg, g.ip6) == 1)
			g.v6 = true;
		else if (c == '7' && inet_pton(AF_INET6, optarg, g.peer6) == 1)
			g.v6 = true;
		else
			fail("usage: attach-cm <EAL> -- --ip A --peer B "
			     "--server|--client");
	}
	if (ip == 0 || peer == 0 || role == 0)
		fail("--ip, --peer and --server or --client are needed");
	g.notify = role == 's';
	open_all(ip);
	if (role == 's')
		server(ip, peer, port);
	else
		client(ip, peer, port);
	printf("DONE\n");
	fflush(stdout);
	dapp_obey(g.ad);
	/* Client: the endpoint's close pends while the connector is open
	 * (server: the listener's, from server()). */
	if (g.sep != NULL)
		expect_st(ndk_close_shared_endpoint(g.sep, on_closed, NULL),
			  NDK_STATUS_PENDING, "close of an endpoint in use");
	for (int k = 0; k < 100; k++)
		ndk_adapter_poll(g.ad);
	if (__atomic_load_n(&g.closed, __ATOMIC_ACQUIRE) != 0)
		fail("a close completed while the connector was open");
	ndk_close_connector(g.conn, NULL, NULL);
	/* Completed by the connector's close (attached: at a poll). */
	poll_until(&g.closed, "pending close completion");
	ndk_close_qp(g.qp, NULL, NULL);
	ndk_deregister_mr(g.mr);
	ndk_close_mr(g.mr, NULL, NULL);
	ndk_close_cq(g.cq, NULL, NULL);
	ndk_close_pd(g.pd, NULL, NULL);
	ndk_adapter_free_buffer(g.ad, g.buf);
	ndk_adapter_free_buffer(g.ad, g.fr);
	ndk_adapter_close(g.ad);
	rte_eal_cleanup();
	printf("CLOSED\n");
	return 0;
}
