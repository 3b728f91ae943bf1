/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: the NDKPI entries beside plain Connect/Accept, between two
 * swroce adapters on a net_ring pair (A connects, B listens):
 *
 *  - shared endpoints: several connectors of A connect from one endpoint
 *    (one local address and port) to three listeners of B, data checked
 *    on each; the port is the endpoint's and its connectors' until the
 *    last is closed, the endpoint's close pending meanwhile; a second
 *    connection to the same peer (four-tuple) refused; misuse;
 *  - asynchronous creation: every ndk_create_xxx_async() with a
 *    completion returns PENDING and completes through it, inline without
 *    one; errors through the completion; a QP created from inside a
 *    connect event and the request accepted from its completion;
 *  - the extended disconnect callback (NdkAcceptEx, NdkCompleteConnectEx):
 *    reason 0 for a graceful disconnect, NDK_DISCONNECT_REASON_QP_ERROR
 *    when the connection's QP fails (the peer vanished);
 *  - the listener's close: no connect event from it on, pending while
 *    connectors it handed up are open, completed by the last one's close.
 */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/un.h>

#include <rte_common.h>

#include "cm_common.h"

#define SEP_CONNS 3

/* A close completion: counts its calls. */
static void
closed_cb(void *ctx)
{
	__atomic_fetch_add((int *)ctx, 1, __ATOMIC_RELEASE);
}

/* Accept the request B's connector @p cb holds with @p qp, complete A's. */
static int
finish_handshake(struct ndk_connector *ca, struct ndk_connector *cb,
		 struct ndk_qp *qp_b, struct req *rc, struct disc *da,
		 struct disc *db)
{
	static struct req ra, rcc;

	ra = (struct req){ 0 };
	rcc = (struct req){ 0 };
	TEST_ASSERT_EQ(ndk_accept(cb, qp_b, 4, 4, NULL, 0, disc_event, db,
				  req_done, &ra), NDK_STATUS_PENDING, "accept");
	WAIT_REQ(rc, NDK_STATUS_SUCCESS, "connect");
	TEST_ASSERT_EQ(ndk_complete_connect(ca, disc_event, da, req_done,
					    &rcc), NDK_STATUS_PENDING,
		       "complete connect");
	WAIT_REQ(&rcc, NDK_STATUS_SUCCESS, "complete connect");
	WAIT_REQ(&ra, NDK_STATUS_SUCCESS, "accept");
	return 0;
}

/* The port of a sockaddr_in, host order. */
static uint16_t
sin_port(const struct sockaddr_in *s)
{
	return ntohs(s->sin_port);
}

/*
 * Three connectors of A from one shared endpoint to three listeners of
 * B; data on each; the endpoint's port is theirs until the last closes.
 */
static int
t_shared_endpoint(void)
{
	struct ndk_pair *p = pair_get(0);
	struct ndk_adapter *a = p->ad[NDK_PAIR_A];
	struct ndk_pair_conn_opts o = { .no_connect = true };
	/* static: callbacks of a failed case may still fire */
	static struct incoming in[SEP_CONNS];
	static struct req rc[SEP_CONNS], rd[SEP_CONNS], rx;
	static struct disc da[SEP_CONNS], db[SEP_CONNS];
	static int sep_closed;
	struct ndk_listener *l[SEP_CONNS] = { NULL };
	struct ndk_connector *ca[SEP_CONNS], *cb[SEP_CONNS], *cx;
	struct ndk_pair_conn *c[SEP_CONNS], *cdup;
	struct ndk_shared_endpoint *sep;
	struct ndk_listener *la;
	struct sockaddr_in any = ndk_pair_sin(INADDR_ANY, 0), ep, got, dst;
	socklen_t len;
	uint16_t port;

	sep_closed = 0;
	TEST_ASSERT_EQ(ndk_create_shared_endpoint(a, SA(any), sizeof(any),
						  &sep), NDK_STATUS_SUCCESS,
		       "shared endpoint");
	len = sizeof(ep);
	TEST_ASSERT_EQ(ndk_shared_endpoint_get_local_address(sep,
				(struct sockaddr *)&ep, &len),
		       NDK_STATUS_SUCCESS, "endpoint address");
	port = sin_port(&ep);
	TEST_ASSERT(port >= 49152, "ephemeral port %u", port);
	TEST_ASSERT_EQ(ep.sin_addr.s_addr, p->ipv4[NDK_PAIR_A],
		       "the wildcard is the adapter's address");

	for (int i = 0; i < SEP_CONNS; i++) {
		in[i] = (struct incoming){ 0 };
		rc[i] = (struct req){ 0 };
		rd[i] = (struct req){ 0 };
		da[i] = (struct disc){ 0 };
		db[i] = (struct disc){ 0 };
		l[i] = listen_b(p, &in[i], (uint16_t)(PORT + i));
		c[i] = conn_new(p, &o);
		TEST_ASSERT(l[i] != NULL && c[i] != NULL, "set-up %d", i);
		TEST_ASSERT_EQ(ndk_create_connector(a, &ca[i]),
			       NDK_STATUS_SUCCESS, "connector");
		dst = ndk_pair_sin(p->ipv4[NDK_PAIR_B], (uint16_t)(PORT + i));
		TEST_ASSERT_EQ(ndk_connect_with_shared_endpoint(ca[i],
					c[i]->qp[0], sep, SA(dst),
					sizeof(dst), 4, 4, "shared", 7,
					req_done, &rc[i]),
			       NDK_STATUS_PENDING, "connect %d", i);
		TEST_ASSERT(wait_int(&in[i].n, 1) == 0, "connect event %d", i);
		cb[i] = in[i].c[0];
		TEST_ASSERT(finish_handshake(ca[i], cb[i], c[i]->qp[1], &rc[i],
					     &da[i], &db[i]) == 0,
			    "handshake %d", i);
		/* Every connection's local end is the endpoint's. */
		len = sizeof(got);
		TEST_ASSERT_EQ(ndk_get_local_address(ca[i],
					(struct sockaddr *)&got, &len),
			       NDK_STATUS_SUCCESS, "local address");
		TEST_ASSERT(got.sin_addr.s_addr == ep.sin_addr.s_addr &&
			    sin_port(&got) == port, "connector %d local end "
			    "is the endpoint's", i);
		len = sizeof(got);
		TEST_ASSERT_EQ(ndk_get_peer_address(cb[i],
					(struct sockaddr *)&got, &len),
			       NDK_STATUS_SUCCESS, "peer address");
		TEST_ASSERT_EQ(sin_port(&got), port, "B sees the shared port");
	}
	/* Data on every connection, each through its own QPs. */
	for (int i = 0; i < SEP_CONNS; i++) {
		TEST_ASSERT(xfer(p, c[i], XOP_SEND, 20000, 10 + i) == 0,
			    "SEND on %d", i);
		TEST_ASSERT(xfer(p, c[i], XOP_WRITE, 30000, 20 + i) == 0,
			    "WRITE on %d", i);
		TEST_ASSERT(xfer(p, c[i], XOP_READ, 10000, 30 + i) == 0,
			    "READ on %d", i);
	}

	/* Same four-tuple again: refused; the connector stays usable. */
	cdup = conn_new(p, &o);
	TEST_ASSERT(cdup != NULL, "set-up");
	TEST_ASSERT_EQ(ndk_create_connector(a, &cx), NDK_STATUS_SUCCESS,
		       "connector");
	dst = ndk_pair_sin(p->ipv4[NDK_PAIR_B], PORT);
	rx = (struct req){ 0 };
	TEST_ASSERT_EQ(ndk_connect_with_shared_endpoint(cx, cdup->qp[0], sep,
					SA(dst), sizeof(dst), 4, 4, NULL, 0,
					req_done, &rx),
		       NDK_STATUS_ADDRESS_ALREADY_EXISTS, "same four-tuple");
	TEST_ASSERT_EQ(ndk_close_connector(cx, NULL, NULL), NDK_STATUS_SUCCESS,
		       "close");
	ndk_pair_conn_destroy(cdup);

	/* The port is the endpoint's: no listener, Connect or endpoint. */
	TEST_ASSERT_EQ(ndk_create_listener(a, connect_event, &in[0], &la),
		       NDK_STATUS_SUCCESS, "listener of A");
	TEST_ASSERT_EQ(ndk_listen(la, SA(ep), sizeof(ep)),
		       NDK_STATUS_SHARING_VIOLATION, "listen on the port");
	{
		struct ndk_shared_endpoint *sep2;

		TEST_ASSERT_EQ(ndk_create_shared_endpoint(a, SA(ep),
							  sizeof(ep), &sep2),
			       NDK_STATUS_SHARING_VIOLATION,
			       "second endpoint on the port");
	}

	/* Closed while its connectors hold it: pending, port still held. */
	TEST_ASSERT_EQ(ndk_close_shared_endpoint(sep, closed_cb, &sep_closed),
		       NDK_STATUS_PENDING, "close with connectors");
	TEST_ASSERT_EQ(ndk_listen(la, SA(ep), sizeof(ep)),
		       NDK_STATUS_SHARING_VIOLATION, "port held by connectors");
	for (int i = 0; i < SEP_CONNS; i++) {
		TEST_ASSERT_EQ(ndk_disconnect(ca[i], req_done, &rd[i]),
			       NDK_STATUS_PENDING, "disconnect %d", i);
		WAIT_REQ(&rd[i], NDK_STATUS_SUCCESS, "disconnect");
		TEST_ASSERT(wait_int(&db[i].fired, 1) == 0, "B's event");
		TEST_ASSERT_EQ(db[i].reason, 0u, "graceful: reason 0");
		ndk_close_connector(cb[i], NULL, NULL);
		TEST_ASSERT_EQ(__atomic_load_n(&sep_closed, __ATOMIC_ACQUIRE),
			       0, "close pending while connector %d is open",
			       i);
		ndk_close_connector(ca[i], NULL, NULL);
	}
	TEST_ASSERT_EQ(__atomic_load_n(&sep_closed, __ATOMIC_ACQUIRE), 1,
		       "close completed with the last connector");
	TEST_ASSERT_EQ(ndk_listen(la, SA(ep), sizeof(ep)), NDK_STATUS_SUCCESS,
		       "port free after the last connector");
	ndk_close_listener(la, NULL, NULL);
	for (int i = 0; i < SEP_CONNS; i++) {
		ndk_close_listener(l[i], NULL, NULL);
		ndk_pair_conn_destroy(c[i]);
	}
	return 0;
}

/* Shared endpoint misuse: every call answers as documented. */
static int
t_shared_endpoint_errors(void)
{
	struct ndk_pair *p = pair_get(0);
	struct ndk_adapter *a = p->ad[NDK_PAIR_A], *b = p->ad[NDK_PAIR_B];
	struct ndk_pair_conn_opts o = { .no_connect = true };
	struct ndk_pair_conn *c = conn_new(p, &o);
	static struct incoming in;
	static struct req r, r2;
	static int closed;
	struct ndk_shared_endpoint *sep, *sep_b, *s2;
	struct ndk_connector *ca;
	struct ndk_listener *la;
	struct sockaddr_in mine = ndk_pair_sin(p->ipv4[NDK_PAIR_A], 0);
	struct sockaddr_in other = ndk_pair_sin(p->ipv4[NDK_PAIR_B], 0);
	struct sockaddr_in dst, ep, small;
	struct sockaddr_in6 dst6 = { .sin6_family = AF_INET6,
				     .sin6_port = htons(PORT) };
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	struct sockaddr_in6 any6 = { .sin6_family = AF_INET6 };
	socklen_t len;

	TEST_ASSERT(c != NULL, "set-up");
	closed = 0;
	r = (struct req){ 0 };
	r2 = (struct req){ 0 };
	/* Creation. */
	TEST_ASSERT_EQ(ndk_create_shared_endpoint(a, (struct sockaddr *)&un,
						  sizeof(un), &sep),
		       NDK_STATUS_INVALID_ADDRESS, "AF_UNIX");
	TEST_ASSERT_EQ(ndk_create_shared_endpoint(a, SA(mine), 8, &sep),
		       NDK_STATUS_INVALID_ADDRESS, "short sockaddr_in");
	TEST_ASSERT_EQ(ndk_create_shared_endpoint(a, NULL, 0, &sep),
		       NDK_STATUS_INVALID_ADDRESS, "no address");
	TEST_ASSERT_EQ(ndk_create_shared_endpoint(a, SA(other), sizeof(other),
						  &sep),
		       NDK_STATUS_INVALID_ADDRESS, "B's address on A");
	TEST_ASSERT_EQ(ndk_create_shared_endpoint(a, (struct sockaddr *)&any6,
						  sizeof(any6), &sep),
		       NDK_STATUS_INVALID_ADDRESS,
		       "IPv6 wildcard on an IPv4-only adapter");
	TEST_ASSERT_EQ(ndk_create_shared_endpoint(a, SA(mine), sizeof(mine),
						  NULL),
		       NDK_STATUS_INVALID_PARAMETER, "no out pointer");
	TEST_ASSERT_EQ(ndk_create_shared_endpoint(NULL, SA(mine),
						  sizeof(mine), &sep),
		       NDK_STATUS_INVALID_PARAMETER, "no adapter");
	/* A port a listener holds. */
	TEST_ASSERT_EQ(ndk_create_listener(a, connect_event, &in, &la),
		       NDK_STATUS_SUCCESS, "listener");
	TEST_ASSERT_EQ(ndk_listen(la, SA(mine), sizeof(mine)),
		       NDK_STATUS_SUCCESS, "listen");
	len = sizeof(ep);
	TEST_ASSERT_EQ(ndk_listener_get_local_address(la,
				(struct sockaddr *)&ep, &len),
		       NDK_STATUS_SUCCESS, "listener address");
	TEST_ASSERT_EQ(ndk_create_shared_endpoint(a, SA(ep), sizeof(ep), &s2),
		       NDK_STATUS_SHARING_VIOLATION, "listener's port");
	ndk_close_listener(la, NULL, NULL);
	TEST_ASSERT_EQ(ndk_create_shared_endpoint(a, SA(ep), sizeof(ep), &s2),
		       NDK_STATUS_SUCCESS, "port free once the listener closed");
	len = sizeof(small) - 1;
	TEST_ASSERT_EQ(ndk_shared_endpoint_get_local_address(s2,
				(struct sockaddr *)&small, &len),
		       NDK_STATUS_BUFFER_TOO_SMALL, "small buffer");
	TEST_ASSERT_EQ(len, (socklen_t)sizeof(struct sockaddr_in),
		       "size needed");
	/* Closed unused: inline, no callback, the port free at once. */
	TEST_ASSERT_EQ(ndk_close_shared_endpoint(s2, closed_cb, &closed),
		       NDK_STATUS_SUCCESS, "close unused");
	TEST_ASSERT_EQ(ndk_close_shared_endpoint(s2, NULL, NULL),
		       NDK_STATUS_INVALID_HANDLE, "closed twice");
	TEST_ASSERT_EQ(ndk_create_shared_endpoint(a, SA(ep), sizeof(ep), &sep),
		       NDK_STATUS_SUCCESS, "port free after the close");
	TEST_ASSERT_EQ(__atomic_load_n(&closed, __ATOMIC_ACQUIRE), 0,
		       "inline close: no completion");

	/* Connecting. */
	TEST_ASSERT_EQ(ndk_create_shared_endpoint(b, SA(other), sizeof(other),
						  &sep_b), NDK_STATUS_SUCCESS,
		       "B's endpoint");
	TEST_ASSERT_EQ(ndk_create_connector(a, &ca), NDK_STATUS_SUCCESS,
		       "connector");
	dst = ndk_pair_sin(p->ipv4[NDK_PAIR_B], PORT + 9);
	TEST_ASSERT_EQ(ndk_connect_with_shared_endpoint(ca, c->qp[0], sep_b,
					SA(dst), sizeof(dst), 4, 4, NULL, 0,
					req_done, &r),
		       NDK_STATUS_INVALID_PARAMETER, "another adapter's");
	TEST_ASSERT_EQ(ndk_connect_with_shared_endpoint(ca, c->qp[0], sep,
					(struct sockaddr *)&dst6,
					sizeof(dst6), 4, 4, NULL, 0,
					req_done, &r),
		       NDK_STATUS_INVALID_ADDRESS, "IPv6 peer, IPv4 endpoint");
	dst = ndk_pair_sin(p->ipv4[NDK_PAIR_A], PORT);
	TEST_ASSERT_EQ(ndk_connect_with_shared_endpoint(ca, c->qp[0], sep,
					SA(dst), sizeof(dst), 4, 4, NULL, 0,
					req_done, &r),
		       NDK_STATUS_INVALID_ADDRESS, "to itself");
	dst = ndk_pair_sin(INADDR_ANY, PORT);
	TEST_ASSERT_EQ(ndk_connect_with_shared_endpoint(ca, c->qp[0], sep,
					SA(dst), sizeof(dst), 4, 4, NULL, 0,
					req_done, &r),
		       NDK_STATUS_INVALID_ADDRESS, "to the wildcard");
	dst = ndk_pair_sin(p->ipv4[NDK_PAIR_B], PORT + 9);
	TEST_ASSERT_EQ(ndk_connect_with_shared_endpoint(ca, c->qp[0], sep,
					SA(dst), sizeof(dst), 4, 4, NULL, 0,
					NULL, NULL),
		       NDK_STATUS_INVALID_PARAMETER, "no completion");
	TEST_ASSERT_EQ(ndk_connect_with_shared_endpoint(ca, c->qp[0], NULL,
					SA(dst), sizeof(dst), 4, 4, NULL, 0,
					req_done, &r),
		       NDK_STATUS_INVALID_HANDLE, "no endpoint");
	/* Nobody listens there: refused; the connector keeps its ref. */
	TEST_ASSERT_EQ(ndk_connect_with_shared_endpoint(ca, c->qp[0], sep,
					SA(dst), sizeof(dst), 4, 4, NULL, 0,
					req_done, &r),
		       NDK_STATUS_PENDING, "connect");
	TEST_ASSERT_EQ(ndk_connect_with_shared_endpoint(ca, c->qp[1], sep,
					SA(dst), sizeof(dst), 4, 4, NULL, 0,
					req_done, &r2),
		       NDK_STATUS_CONNECTION_ACTIVE, "connector in use");
	WAIT_REQ(&r, NDK_STATUS_CONNECTION_REFUSED, "nobody listening");
	TEST_ASSERT_EQ(ndk_close_shared_endpoint(sep, closed_cb, &closed),
		       NDK_STATUS_PENDING, "a refused connector still holds it");
	TEST_ASSERT_EQ(ndk_connect_with_shared_endpoint(ca, c->qp[0], sep,
					SA(dst), sizeof(dst), 4, 4, NULL, 0,
					req_done, &r2),
		       NDK_STATUS_INVALID_HANDLE, "closed endpoint");
	ndk_close_connector(ca, NULL, NULL);
	TEST_ASSERT_EQ(__atomic_load_n(&closed, __ATOMIC_ACQUIRE), 1,
		       "pending close completed by the connector's");
	TEST_ASSERT_EQ(ndk_close_shared_endpoint(sep_b, NULL, NULL),
		       NDK_STATUS_SUCCESS, "B's endpoint");
	ndk_pair_conn_destroy(c);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Asynchronous creation                                               */
/* ------------------------------------------------------------------ */

/* A create completion, recorded. */
struct created {
	int done;
	ndk_status_t st;
	struct ndk_object_header *obj;
};

static void
created_cb(void *ctx, ndk_status_t st, struct ndk_object_header *obj)
{
	struct created *c = ctx;

	c->st = st;
	c->obj = obj;
	__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
}

/* Wait for @p c and check its status and (on success) object type. */
static int
wait_created(struct created *c, ndk_status_t want, enum ndk_object_type type,
	     const char *what)
{
	TEST_ASSERT(wait_int(&c->done, 1) == 0, "%s: no completion", what);
	TEST_ASSERT_EQ(c->st, want, "%s: %s", what, ndk_status_str(c->st));
	if (NDK_SUCCESS(want))
		TEST_ASSERT(c->obj != NULL && c->obj->type == type,
			    "%s: object of type %d", what, (int)type);
	else
		TEST_ASSERT(c->obj == NULL, "%s: no object on failure", what);
	return 0;
}

/*
 * B's listener for t_async_create: each request gets a QP created
 * asynchronously from inside the connect event, and is accepted from
 * that create's completion.
 */
struct async_accept {
	struct ndk_pd *pd;
	struct ndk_cq *rcq, *icq;
	struct ndk_connector *conn;
	struct ndk_qp *qp;
	int pending;          /* the create returned PENDING */
	int accepted;         /* ndk_accept() returned PENDING */
	struct req ra;
	struct disc db;
};

static void
async_accept_created(void *ctx, ndk_status_t st,
		     struct ndk_object_header *obj)
{
	struct async_accept *aa = ctx;

	if (!NDK_SUCCESS(st))
		return;
	aa->qp = (struct ndk_qp *)obj;
	if (ndk_accept(aa->conn, aa->qp, 4, 4, NULL, 0, disc_event, &aa->db,
		       req_done, &aa->ra) == NDK_STATUS_PENDING)
		__atomic_store_n(&aa->accepted, 1, __ATOMIC_RELEASE);
}

static void
async_accept_event(void *ctx, struct ndk_connector *conn)
{
	struct async_accept *aa = ctx;
	struct ndk_qp *unused = NULL;

	aa->conn = conn;
	/* On the polling lcore: the create must not complete here. */
	if (ndk_create_qp_async(aa->pd, aa->rcq, aa->icq, &qctx_b, 64, 64, 2, 2,
				0, async_accept_created, aa, &unused) ==
	    NDK_STATUS_PENDING && unused == NULL)
		__atomic_store_n(&aa->pending, 1, __ATOMIC_RELEASE);
}

/*
 * Every ndk_create_xxx_async(): PENDING, then the completion with the
 * object; inline without a completion; errors through the completion.
 * The objects work: A's connector (async), QP (async) connect to B's
 * listener (async), which creates its QP asynchronously from inside the
 * connect event and accepts from the create's completion; data checked.
 */
static int
t_async_create(void)
{
	struct ndk_pair *p = pair_get(0);
	struct ndk_adapter *a = p->ad[NDK_PAIR_A], *b = p->ad[NDK_PAIR_B];
	struct ndk_pair_conn_opts o = { .no_connect = true };
	struct ndk_pair_conn *c = conn_new(p, &o);
	static struct created cq, pd, mr, mw, qp, srq, qps, conn, lis, sep,
		bad, bad2;
	static struct async_accept aa;
	static struct req rc, rcc, rd;
	static struct disc da;
	struct ndk_cq *cq_o = NULL;
	struct ndk_pd *pd_o = NULL;
	struct ndk_mr *mr_o = NULL;
	struct ndk_mw *mw_o = NULL;
	struct ndk_qp *qp_o = NULL, *qps_o = NULL;
	struct ndk_srq *srq_o = NULL;
	struct ndk_connector *conn_o = NULL;
	struct ndk_listener *lis_o = NULL;
	struct ndk_shared_endpoint *sep_o = NULL;
	struct ndk_adapter_info info;
	uint32_t isz = sizeof(info);
	struct sockaddr_in any = ndk_pair_sin(INADDR_ANY, 0);
	struct sockaddr_in lport = ndk_pair_sin(INADDR_ANY, PORT + 20);
	struct sockaddr_in dst = ndk_pair_sin(p->ipv4[NDK_PAIR_B], PORT + 20);
	struct ndk_cq *inl_cq = NULL;

	TEST_ASSERT(c != NULL, "set-up");
	cq = pd = mr = mw = qp = srq = qps = conn = lis = sep = bad = bad2 =
		(struct created){ 0 };
	aa = (struct async_accept){ .pd = c->pd[1], .rcq = c->rcq[1],
				    .icq = c->icq[1] };
	rc = rcc = rd = (struct req){ 0 };
	da = (struct disc){ 0 };
	TEST_ASSERT_EQ(ndk_query_adapter_info(a, &info, &isz),
		       NDK_STATUS_SUCCESS, "info");

	/* Without a completion: inline, as ndk_create_cq(). */
	TEST_ASSERT_EQ(ndk_create_cq_async(a, 16, NULL, NULL, NULL, NULL,
					   &inl_cq), NDK_STATUS_SUCCESS,
		       "inline create");
	TEST_ASSERT(inl_cq != NULL, "inline object");
	ndk_close_cq(inl_cq, NULL, NULL);
	/* Bad parents are refused inline. */
	TEST_ASSERT_EQ(ndk_create_pd_async(NULL, created_cb, &bad, &pd_o),
		       NDK_STATUS_INVALID_PARAMETER, "no adapter");
	TEST_ASSERT_EQ(ndk_create_mr_async((struct ndk_pd *)a, false,
					   created_cb, &bad, &mr_o),
		       NDK_STATUS_INVALID_PARAMETER, "an adapter as PD");

	/* Each create: PENDING, out pointer untouched, then completion. */
	TEST_ASSERT_EQ(ndk_create_cq_async(a, 256, NULL, NULL, created_cb, &cq,
					   &cq_o), NDK_STATUS_PENDING, "CQ");
	TEST_ASSERT_EQ(ndk_create_pd_async(a, created_cb, &pd, &pd_o),
		       NDK_STATUS_PENDING, "PD");
	TEST_ASSERT_EQ(ndk_create_connector_async(a, created_cb, &conn,
						  &conn_o),
		       NDK_STATUS_PENDING, "connector");
	TEST_ASSERT_EQ(ndk_create_listener_async(b, async_accept_event, &aa,
						 created_cb, &lis, &lis_o),
		       NDK_STATUS_PENDING, "listener");
	TEST_ASSERT_EQ(ndk_create_shared_endpoint_async(a, SA(any),
							sizeof(any),
							created_cb, &sep,
							&sep_o),
		       NDK_STATUS_PENDING, "shared endpoint");
	/* Too deep: PENDING, the error through the completion. */
	TEST_ASSERT_EQ(ndk_create_cq_async(a, info.max_cq_depth + 1, NULL,
					   NULL, created_cb, &bad, &cq_o),
		       NDK_STATUS_PENDING, "CQ too deep");
	TEST_ASSERT(wait_created(&cq, NDK_STATUS_SUCCESS,
				 NDK_OBJECT_TYPE_CQ, "CQ") == 0, "CQ");
	TEST_ASSERT(wait_created(&pd, NDK_STATUS_SUCCESS,
				 NDK_OBJECT_TYPE_PD, "PD") == 0, "PD");
	TEST_ASSERT(wait_created(&conn, NDK_STATUS_SUCCESS,
				 NDK_OBJECT_TYPE_CONNECTOR, "connector") == 0,
		    "connector");
	TEST_ASSERT(wait_created(&lis, NDK_STATUS_SUCCESS,
				 NDK_OBJECT_TYPE_LISTENER, "listener") == 0,
		    "listener");
	TEST_ASSERT(wait_created(&sep, NDK_STATUS_SUCCESS,
				 NDK_OBJECT_TYPE_SHARED_ENDPOINT,
				 "endpoint") == 0, "endpoint");
	TEST_ASSERT(wait_created(&bad, NDK_STATUS_INVALID_PARAMETER,
				 NDK_OBJECT_TYPE_CQ, "too deep") == 0,
		    "too deep");
	TEST_ASSERT(cq_o == NULL && pd_o == NULL && conn_o == NULL &&
		    lis_o == NULL && sep_o == NULL,
		    "out pointers untouched after PENDING");
	cq_o = (struct ndk_cq *)cq.obj;
	pd_o = (struct ndk_pd *)pd.obj;
	conn_o = (struct ndk_connector *)conn.obj;
	lis_o = (struct ndk_listener *)lis.obj;
	sep_o = (struct ndk_shared_endpoint *)sep.obj;

	/* Children of the PD created asynchronously. */
	TEST_ASSERT_EQ(ndk_create_mr_async(pd_o, true, created_cb, &mr,
					   &mr_o), NDK_STATUS_PENDING, "MR");
	TEST_ASSERT_EQ(ndk_create_mw_async(pd_o, created_cb, &mw, &mw_o),
		       NDK_STATUS_PENDING, "MW");
	/* A's QP for data (the pair's PD and CQs, which xfer() polls). */
	TEST_ASSERT_EQ(ndk_create_qp_async(c->pd[0], c->rcq[0], c->icq[0],
					   &qctx_a, 64, 64, 2, 2, 0,
					   created_cb, &qp, &qp_o),
		       NDK_STATUS_PENDING, "QP");
	TEST_ASSERT_EQ(ndk_create_srq_async(pd_o, 32, 1, 0, NULL, NULL,
					    created_cb, &srq, &srq_o),
		       NDK_STATUS_PENDING, "SRQ");
	TEST_ASSERT_EQ(ndk_create_qp_async(pd_o, cq_o, cq_o, NULL, 64,
					   info.max_initiator_queue_depth + 1,
					   1, 1, 0, created_cb, &bad2, &qp_o),
		       NDK_STATUS_PENDING, "QP too deep");
	TEST_ASSERT(wait_created(&mr, NDK_STATUS_SUCCESS,
				 NDK_OBJECT_TYPE_MR, "MR") == 0, "MR");
	TEST_ASSERT(wait_created(&mw, NDK_STATUS_SUCCESS,
				 NDK_OBJECT_TYPE_MW, "MW") == 0, "MW");
	TEST_ASSERT(wait_created(&qp, NDK_STATUS_SUCCESS,
				 NDK_OBJECT_TYPE_QP, "QP") == 0, "QP");
	TEST_ASSERT(wait_created(&srq, NDK_STATUS_SUCCESS,
				 NDK_OBJECT_TYPE_SRQ, "SRQ") == 0, "SRQ");
	TEST_ASSERT(wait_created(&bad2, NDK_STATUS_INVALID_PARAMETER,
				 NDK_OBJECT_TYPE_QP, "QP too deep") == 0,
		    "QP too deep");
	TEST_ASSERT_EQ(ndk_create_qp_with_srq_async(pd_o, cq_o, cq_o,
					(struct ndk_srq *)srq.obj, NULL, 16,
					1, 0, created_cb, &qps, &qps_o),
		       NDK_STATUS_PENDING, "QP with SRQ");
	TEST_ASSERT(wait_created(&qps, NDK_STATUS_SUCCESS,
				 NDK_OBJECT_TYPE_QP, "QP with SRQ") == 0,
		    "QP with SRQ");
	TEST_ASSERT(mr_o == NULL && mw_o == NULL && qp_o == NULL &&
		    srq_o == NULL && qps_o == NULL, "out pointers untouched");

	/*
	 * They work: the async QP takes the place of the pair's A QP, B's
	 * comes from the connect event; a connection and data over it. (The
	 * QP with SRQ stands on the asynchronously created PD, CQ and SRQ.)
	 */
	ndk_close_qp(c->qp[0], NULL, NULL);
	ndk_close_qp(c->qp[1], NULL, NULL);
	c->qp[0] = (struct ndk_qp *)qp.obj;
	c->qpn[0] = ndk_qp_num(c->qp[0]);
	c->qp[1] = NULL;
	TEST_ASSERT_EQ(ndk_listen(lis_o, SA(lport), sizeof(lport)),
		       NDK_STATUS_SUCCESS, "listen");
	TEST_ASSERT_EQ(ndk_connect(conn_o, c->qp[0], SA(any), sizeof(any),
				   SA(dst), sizeof(dst), 4, 4, NULL, 0,
				   req_done, &rc), NDK_STATUS_PENDING,
		       "connect");
	TEST_ASSERT(wait_int(&aa.pending, 1) == 0,
		    "create from the connect event: PENDING");
	TEST_ASSERT(wait_int(&aa.accepted, 1) == 0,
		    "accepted from the create's completion");
	WAIT_REQ(&rc, NDK_STATUS_SUCCESS, "connect");
	TEST_ASSERT_EQ(ndk_complete_connect(conn_o, disc_event, &da, req_done,
					    &rcc), NDK_STATUS_PENDING,
		       "complete");
	WAIT_REQ(&rcc, NDK_STATUS_SUCCESS, "complete");
	WAIT_REQ(&aa.ra, NDK_STATUS_SUCCESS, "accept");
	c->qp[1] = aa.qp;
	c->qpn[1] = ndk_qp_num(aa.qp);
	TEST_ASSERT(xfer(p, c, XOP_SEND, 8000, 41) == 0, "SEND");
	TEST_ASSERT(xfer(p, c, XOP_WRITE, 8000, 42) == 0, "WRITE");
	TEST_ASSERT_EQ(ndk_disconnect(conn_o, req_done, &rd),
		       NDK_STATUS_PENDING, "disconnect");
	WAIT_REQ(&rd, NDK_STATUS_SUCCESS, "disconnect");
	ndk_close_connector(conn_o, NULL, NULL);
	ndk_close_connector(aa.conn, NULL, NULL);
	ndk_close_listener(lis_o, NULL, NULL);
	ndk_close_shared_endpoint(sep_o, NULL, NULL);
	ndk_close_qp((struct ndk_qp *)qps.obj, NULL, NULL);
	ndk_close_srq((struct ndk_srq *)srq.obj, NULL, NULL);
	ndk_close_mw((struct ndk_mw *)mw.obj, NULL, NULL);
	ndk_close_mr((struct ndk_mr *)mr.obj, NULL, NULL);
	/* The pair's conn closes the QPs (ours now) and its CQs. */
	ndk_pair_conn_destroy(c);
	ndk_close_cq(cq_o, NULL, NULL);
	ndk_close_pd(pd_o, NULL, NULL);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The extended disconnect callback (NdkAcceptEx, NdkCompleteConnectEx) */
/* ------------------------------------------------------------------ */

/* Wait for one completion on @p cq; @return its status. */
static ndk_status_t
wait_status(struct ndk_cq *cq, struct ndk_result_ex *r)
{
	double t0 = ndk_pair_now();

	while (ndk_get_cq_results_ex(cq, r, 1) == 0) {
		if (ndk_pair_now() - t0 > WAIT_S)
			return NDK_STATUS_IO_TIMEOUT;
		ndk_pair_sleep_ms(1);
	}
	return r->status;
}

/*
 * The reason the disconnect callback of ndk_accept() and
 * ndk_complete_connect() (NDK_FN_DISCONNECT_EVENT_CALLBACK_EX) gets: 0
 * when the peer disconnects gracefully (DREQ), at most once;
 * NDK_DISCONNECT_REASON_QP_ERROR when the connection's QP fails (here
 * A's WRITE names a token B does not have: B NAKs it, a fatal NAK, and
 * both QPs go to ERROR), on both sides, after which Disconnect still
 * ends the connection gracefully and no second event comes.
 */
static int
t_disconnect_reasons(void)
{
	struct ndk_pair *p = pair_get(0);
	struct ndk_pair_conn_opts o = { .no_connect = true };
	static struct incoming in;
	static struct disc da, db, da2, db2;
	static struct req rd, rd2;
	struct ndk_listener *l;
	struct ndk_connector *ca, *cb, *ca2, *cb2;
	struct ndk_pair_conn *c = conn_new(p, &o), *c2 = conn_new(p, &o);
	struct ndk_pair_buf *buf;
	struct ndk_result_ex r;
	struct ndk_sge sge;
	ndk_status_t st;

	in = (struct incoming){ 0 };
	da = db = da2 = db2 = (struct disc){ 0 };
	rd = rd2 = (struct req){ 0 };
	l = listen_b(p, &in, PORT);
	TEST_ASSERT(l != NULL && c != NULL && c2 != NULL, "set-up");

	/* Graceful, from B: A's event, reason 0, once. */
	TEST_ASSERT(handshake(p, c, &in, &ca, &cb, &da, &db) == 0,
		    "handshake");
	TEST_ASSERT_EQ(ndk_disconnect(cb, req_done, &rd), NDK_STATUS_PENDING,
		       "B disconnects");
	WAIT_REQ(&rd, NDK_STATUS_SUCCESS, "B's disconnect");
	TEST_ASSERT(wait_int(&da.fired, 1) == 0, "A's disconnect event");
	TEST_ASSERT_EQ(da.reason, 0u, "graceful: reason 0");
	TEST_ASSERT_EQ(__atomic_load_n(&db.fired, __ATOMIC_ACQUIRE), 0,
		       "no event for B's own Disconnect");
	ndk_close_connector(ca, NULL, NULL);
	ndk_close_connector(cb, NULL, NULL);

	/* The QP fails: QP_ERROR on A, whose WRITE B refused. */
	TEST_ASSERT(handshake(p, c2, &in, &ca2, &cb2, &da2, &db2) == 0,
		    "handshake");
	buf = ndk_pair_buf_alloc(p, c2->pd[0], 4096,
				 NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	TEST_ASSERT(buf != NULL, "buffer");
	sge = ndk_pair_sge(buf, 0, 512);
	TEST_ASSERT_EQ(ndk_write(c2->qp[0], &r, &sge, 1, 0x10000, 0xBAD0BAD1u,
				 0), NDK_STATUS_SUCCESS, "WRITE, bad token");
	st = wait_status(c2->icq[0], &r);
	TEST_ASSERT_EQ(st, NDK_STATUS_REMOTE_RESOURCES, "WRITE: %s",
		       ndk_status_str(st));
	TEST_ASSERT(wait_int(&da2.fired, 1) == 0, "A's disconnect event");
	TEST_ASSERT_EQ(da2.reason, (uint32_t)NDK_DISCONNECT_REASON_QP_ERROR,
		       "reason QP_ERROR");
	TEST_ASSERT_EQ(qp_state(c2->qp[0]), NDK_QP_STATE_ERROR, "A's QP");
	/* B's responder NAKed fatally: its QP is in ERROR too (IB). */
	TEST_ASSERT(wait_int(&db2.fired, 1) == 0, "B's disconnect event");
	TEST_ASSERT_EQ(db2.reason, (uint32_t)NDK_DISCONNECT_REASON_QP_ERROR,
		       "B: reason QP_ERROR");
	TEST_ASSERT_EQ(qp_state(c2->qp[1]), NDK_QP_STATE_ERROR, "B's QP");
	/* A's Disconnect still ends it with B (DREQ, DREP); no more events. */
	TEST_ASSERT_EQ(ndk_disconnect(ca2, req_done, &rd2), NDK_STATUS_PENDING,
		       "A disconnects");
	WAIT_REQ(&rd2, NDK_STATUS_SUCCESS, "A's disconnect");
	ndk_pair_sleep_ms(50);
	TEST_ASSERT(__atomic_load_n(&da2.fired, __ATOMIC_ACQUIRE) == 1 &&
		    __atomic_load_n(&db2.fired, __ATOMIC_ACQUIRE) == 1,
		    "one event each");
	ndk_pair_buf_free(buf);
	ndk_close_connector(ca2, NULL, NULL);
	ndk_close_connector(cb2, NULL, NULL);
	ndk_close_listener(l, NULL, NULL);
	ndk_pair_conn_destroy(c);
	ndk_pair_conn_destroy(c2);
	return 0;
}

/*
 * NdkCloseListener: connect events stop at once, but the close pends
 * while connectors the listener handed up are open (NDK's endpoint
 * reference count: the listener is their antecedent) and completes from
 * the last one's close; a listener that handed up nothing closes inline.
 */
static int
t_listener_close(void)
{
	struct ndk_pair *p = pair_get(0);
	struct ndk_adapter *a = p->ad[NDK_PAIR_A];
	struct ndk_pair_conn_opts o = { .no_connect = true };
	/* static: callbacks of a failed case may still fire */
	static struct incoming in, in2;
	static struct disc da, db;
	static struct req rd, r2, r3;
	static int lis_closed, lis2_closed;
	struct ndk_pair_conn *c = conn_new(p, &o), *c2 = conn_new(p, &o);
	struct ndk_pair_conn *c3 = conn_new(p, &o);
	struct ndk_connector *ca, *cb, *ca2, *cb2, *ca3;
	struct ndk_listener *l, *l2;
	ndk_status_t st;

	in = in2 = (struct incoming){ 0 };
	da = db = (struct disc){ 0 };
	rd = r2 = r3 = (struct req){ 0 };
	lis_closed = lis2_closed = 0;
	l = listen_b(p, &in, PORT);
	TEST_ASSERT(l != NULL && c != NULL && c2 != NULL && c3 != NULL,
		    "set-up");
	/* One connection accepted, one request handed up and unanswered. */
	TEST_ASSERT(handshake(p, c, &in, &ca, &cb, &da, &db) == 0,
		    "handshake");
	TEST_ASSERT_EQ(ndk_create_connector(a, &ca2), NDK_STATUS_SUCCESS,
		       "connector");
	TEST_ASSERT_EQ(connect_a(p, ca2, c2->qp[0], PORT, "second", &r2),
		       NDK_STATUS_PENDING, "second connect");
	TEST_ASSERT(wait_int(&in.n, 2) == 0, "second connect event");
	cb2 = in.c[1];

	st = ndk_close_listener(l, closed_cb, &lis_closed);
	TEST_ASSERT_EQ(st, NDK_STATUS_PENDING, "close with connectors it "
		       "handed up open: %s", ndk_status_str(st));
	/* It takes no request from the close on. */
	TEST_ASSERT_EQ(ndk_create_connector(a, &ca3), NDK_STATUS_SUCCESS,
		       "connector");
	TEST_ASSERT_EQ(connect_a(p, ca3, c3->qp[0], PORT, NULL, &r3),
		       NDK_STATUS_PENDING, "third connect");
	WAIT_REQ(&r3, NDK_STATUS_CONNECTION_REFUSED, "request after close");
	TEST_ASSERT_EQ(__atomic_load_n(&in.n, __ATOMIC_ACQUIRE), 2,
		       "no connect event after the close");
	/* The unanswered one, closed: refused; the close still pends. */
	ndk_close_connector(cb2, NULL, NULL);
	WAIT_REQ(&r2, NDK_STATUS_CONNECTION_REFUSED, "unanswered, closed");
	TEST_ASSERT_EQ(__atomic_load_n(&lis_closed, __ATOMIC_ACQUIRE), 0,
		       "pending while the accepted connector is open");
	/* The accepted one's close is the last: it completes the close. */
	TEST_ASSERT_EQ(ndk_disconnect(cb, req_done, &rd), NDK_STATUS_PENDING,
		       "disconnect");
	WAIT_REQ(&rd, NDK_STATUS_SUCCESS, "disconnect");
	ndk_close_connector(cb, NULL, NULL);
	TEST_ASSERT_EQ(__atomic_load_n(&lis_closed, __ATOMIC_ACQUIRE), 1,
		       "completed by the last connector's close");
	ndk_close_connector(ca, NULL, NULL);
	ndk_close_connector(ca2, NULL, NULL);
	ndk_close_connector(ca3, NULL, NULL);

	/* Nothing handed up: closed inline, no completion (NDK). */
	l2 = listen_b(p, &in2, PORT + 1);
	TEST_ASSERT(l2 != NULL, "second listener");
	TEST_ASSERT_EQ(ndk_close_listener(l2, closed_cb, &lis2_closed),
		       NDK_STATUS_SUCCESS, "close of an unused listener");
	TEST_ASSERT_EQ(__atomic_load_n(&lis2_closed, __ATOMIC_ACQUIRE), 0,
		       "no completion for an inline close");
	TEST_ASSERT_EQ(__atomic_load_n(&lis_closed, __ATOMIC_ACQUIRE), 1,
		       "one completion");
	ndk_pair_conn_destroy(c);
	ndk_pair_conn_destroy(c2);
	ndk_pair_conn_destroy(c3);
	return 0;
}

static const struct ndk_test_case cases[] = {
	{ "shared_endpoint", t_shared_endpoint },
	{ "shared_endpoint_errors", t_shared_endpoint_errors },
	{ "async_create", t_async_create },
	{ "disconnect_reasons", t_disconnect_reasons },
	{ "listener_close", t_listener_close },
};

int
main(int argc, char **argv)
{
	return rc_main("test_cm_ndk", "cm_ndk", cases, RTE_DIM(cases), argc,
		       argv);
}
