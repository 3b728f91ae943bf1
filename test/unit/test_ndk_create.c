/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Unit tests of libndk's asynchronous creation (lib/ndk/ndk_create.c)
 * against a fake provider registered here: no NIC, no swroce. Without a
 * completion a create is the inline call, on the caller's thread; with
 * one it returns STATUS_PENDING, leaves the out pointer alone and the
 * provider's create runs on another thread (the EAL interrupt thread),
 * whose outcome, error or object, goes to the completion once; bad
 * parents are refused inline; a shared endpoint's address is copied
 * before the call returns; ndk_adapter_close() gives up the caller's
 * polling and closes only after every deferred create's completion
 * returned.
 */

#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>

#include "ndk_provider.h"
#include "ndk_test.h"

/* ------------------------------------------------------------------ */
/* The fake provider                                                   */
/* ------------------------------------------------------------------ */

/* What the fake provider saw (written by whichever thread creates). */
static struct {
	int creates;              /* provider creates run */
	int last_tid;             /* thread of the last one */
	uint16_t sep_port;        /* port the last endpoint create saw */
	unsigned int delay_ms;    /* each create sleeps this long */
	int released;             /* release() calls */
	int done_at_close;        /* completions returned when close ran */
	int closed;
} fake;

/* Completions returned (atomic). */
static int done_count;

/* Every fake object: a header and a dispatch pointer. */
struct fake_obj {
	struct ndk_object_header header;
	const void *dispatch;
};

static const struct ndk_pd_dispatch fake_pd_dispatch;

/* A provider create: record, maybe sleep, make an object of @p type. */
static ndk_status_t
fake_make(enum ndk_object_type type, void **out)
{
	struct fake_obj *o;

	__atomic_fetch_add(&fake.creates, 1, __ATOMIC_ACQ_REL);
	__atomic_store_n(&fake.last_tid, rte_gettid(), __ATOMIC_RELEASE);
	if (fake.delay_ms != 0)
		rte_delay_us_sleep(fake.delay_ms * 1000);
	o = calloc(1, sizeof(*o));
	if (o == NULL)
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	ndk_object_header_init(&o->header, type);
	if (type == NDK_OBJECT_TYPE_PD)
		o->dispatch = &fake_pd_dispatch;
	*out = o;
	return NDK_STATUS_SUCCESS;
}

static ndk_status_t
fake_create_cq(struct ndk_adapter *a, uint32_t depth, ndk_cq_notify_fn fn,
	       void *ctx, struct ndk_cq **cq)
{
	RTE_SET_USED(a);
	RTE_SET_USED(fn);
	RTE_SET_USED(ctx);
	if (depth > 100)
		return NDK_STATUS_INVALID_PARAMETER;
	return fake_make(NDK_OBJECT_TYPE_CQ, (void **)cq);
}

static ndk_status_t
fake_create_pd(struct ndk_adapter *a, struct ndk_pd **pd)
{
	RTE_SET_USED(a);
	return fake_make(NDK_OBJECT_TYPE_PD, (void **)pd);
}

static ndk_status_t
fake_create_connector(struct ndk_adapter *a, struct ndk_connector **c)
{
	RTE_SET_USED(a);
	return fake_make(NDK_OBJECT_TYPE_CONNECTOR, (void **)c);
}

static ndk_status_t
fake_create_listener(struct ndk_adapter *a, ndk_connect_event_fn fn,
		     void *ctx, struct ndk_listener **l)
{
	RTE_SET_USED(a);
	RTE_SET_USED(fn);
	RTE_SET_USED(ctx);
	return fake_make(NDK_OBJECT_TYPE_LISTENER, (void **)l);
}

static ndk_status_t
fake_create_sep(struct ndk_adapter *a, const union ndk_sockaddr *addr,
		struct ndk_shared_endpoint **s)
{
	RTE_SET_USED(a);
	fake.sep_port = ntohs(addr->sin.sin_port);
	return fake_make(NDK_OBJECT_TYPE_SHARED_ENDPOINT, (void **)s);
}

static ndk_status_t
fake_create_mr(struct ndk_pd *pd, bool fr, struct ndk_mr **mr)
{
	RTE_SET_USED(pd);
	RTE_SET_USED(fr);
	return fake_make(NDK_OBJECT_TYPE_MR, (void **)mr);
}

static ndk_status_t
fake_create_mw(struct ndk_pd *pd, struct ndk_mw **mw)
{
	RTE_SET_USED(pd);
	return fake_make(NDK_OBJECT_TYPE_MW, (void **)mw);
}

static ndk_status_t
fake_create_qp(struct ndk_pd *pd, struct ndk_cq *rcq, struct ndk_cq *icq,
	       void *qctx, uint32_t rq, uint32_t iq, uint32_t rs, uint32_t is,
	       uint32_t inl, struct ndk_qp **qp)
{
	RTE_SET_USED(pd);
	RTE_SET_USED(rcq);
	RTE_SET_USED(icq);
	RTE_SET_USED(qctx);
	RTE_SET_USED(rs);
	RTE_SET_USED(is);
	RTE_SET_USED(inl);
	if (rq == 0 || iq == 0)
		return NDK_STATUS_INVALID_PARAMETER;
	return fake_make(NDK_OBJECT_TYPE_QP, (void **)qp);
}

static ndk_status_t
fake_create_srq(struct ndk_pd *pd, uint32_t depth, uint32_t sges,
		uint32_t thr, ndk_srq_notify_fn fn, void *ctx,
		struct ndk_srq **srq)
{
	RTE_SET_USED(pd);
	RTE_SET_USED(depth);
	RTE_SET_USED(sges);
	RTE_SET_USED(thr);
	RTE_SET_USED(fn);
	RTE_SET_USED(ctx);
	return fake_make(NDK_OBJECT_TYPE_SRQ, (void **)srq);
}

static ndk_status_t
fake_create_qp_srq(struct ndk_pd *pd, struct ndk_cq *rcq, struct ndk_cq *icq,
		   struct ndk_srq *srq, void *qctx, uint32_t iq, uint32_t is,
		   uint32_t inl, struct ndk_qp **qp)
{
	RTE_SET_USED(pd);
	RTE_SET_USED(rcq);
	RTE_SET_USED(icq);
	RTE_SET_USED(srq);
	RTE_SET_USED(qctx);
	RTE_SET_USED(iq);
	RTE_SET_USED(is);
	RTE_SET_USED(inl);
	return fake_make(NDK_OBJECT_TYPE_QP, (void **)qp);
}

static void
fake_release(struct ndk_adapter *a)
{
	RTE_SET_USED(a);
	fake.released++;
}

static void
fake_close(struct ndk_adapter *a)
{
	fake.done_at_close = __atomic_load_n(&done_count, __ATOMIC_ACQUIRE);
	fake.closed++;
	free(a);
}

static const struct ndk_pd_dispatch fake_pd_dispatch = {
	.create_mr = fake_create_mr,
	.create_mw = fake_create_mw,
	.create_qp = fake_create_qp,
	.create_srq = fake_create_srq,
	.create_qp_with_srq = fake_create_qp_srq,
};

static const struct ndk_adapter_dispatch fake_dispatch = {
	.create_cq = fake_create_cq,
	.create_pd = fake_create_pd,
	.close = fake_close,
	.release = fake_release,
	.create_connector = fake_create_connector,
	.create_listener = fake_create_listener,
	.create_shared_endpoint = fake_create_sep,
};

static ndk_status_t
fake_open(const struct ndk_adapter_config *cfg, struct ndk_adapter **out)
{
	struct ndk_adapter *a = calloc(1, sizeof(*a));

	RTE_SET_USED(cfg);
	if (a == NULL)
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	ndk_object_header_init(&a->header, NDK_OBJECT_TYPE_ADAPTER);
	a->dispatch = &fake_dispatch;
	*out = a;
	return NDK_STATUS_SUCCESS;
}

static struct ndk_provider fake_provider = {
	.name = "fake",
	.open = fake_open,
};

static struct ndk_adapter *
fake_adapter(void)
{
	struct ndk_adapter_config cfg = { .provider = "fake" };
	struct ndk_adapter *a = NULL;

	memset(&fake, 0, sizeof(fake));
	__atomic_store_n(&done_count, 0, __ATOMIC_RELEASE);
	if (ndk_adapter_open(&cfg, &a) != NDK_STATUS_SUCCESS)
		return NULL;
	return a;
}

/* ------------------------------------------------------------------ */
/* Completions                                                         */
/* ------------------------------------------------------------------ */

struct created {
	int n;                    /* calls (atomic) */
	ndk_status_t st;
	struct ndk_object_header *obj;
	int tid;
};

static void
created_cb(void *ctx, ndk_status_t st, struct ndk_object_header *obj)
{
	struct created *c = ctx;

	c->st = st;
	c->obj = obj;
	c->tid = rte_gettid();
	/* Slow enough that a close not waiting for it would be seen. */
	rte_delay_us_sleep(20 * 1000);
	__atomic_fetch_add(&c->n, 1, __ATOMIC_RELEASE);
	__atomic_fetch_add(&done_count, 1, __ATOMIC_RELEASE);
}

/* Wait (5 s at most) for @p c's completion; check it. */
static int
wait_created(struct created *c, ndk_status_t want, enum ndk_object_type type)
{
	for (int i = 0; i < 5000 && __atomic_load_n(&c->n, __ATOMIC_ACQUIRE) == 0;
	     i++)
		rte_delay_us_sleep(1000);
	TEST_ASSERT_EQ(__atomic_load_n(&c->n, __ATOMIC_ACQUIRE), 1,
		       "one completion");
	TEST_ASSERT_EQ(c->st, want, "status %s", ndk_status_str(c->st));
	if (NDK_SUCCESS(want))
		TEST_ASSERT(c->obj != NULL && c->obj->type == type,
			    "object of type %d", (int)type);
	else
		TEST_ASSERT(c->obj == NULL, "no object on failure");
	TEST_ASSERT(c->tid != rte_gettid(), "completion on another thread");
	return 0;
}

/* ------------------------------------------------------------------ */
/* Cases                                                               */
/* ------------------------------------------------------------------ */

/* No completion: the inline create, on this thread. */
static int
t_inline(void)
{
	struct ndk_adapter *a = fake_adapter();
	struct ndk_cq *cq = NULL;

	TEST_ASSERT(a != NULL, "fake adapter");
	TEST_ASSERT_EQ(ndk_create_cq_async(a, 10, NULL, NULL, NULL, NULL, &cq),
		       NDK_STATUS_SUCCESS, "inline");
	TEST_ASSERT(cq != NULL && cq->header.type == NDK_OBJECT_TYPE_CQ,
		    "object returned");
	TEST_ASSERT_EQ(fake.last_tid, rte_gettid(), "created on this thread");
	TEST_ASSERT_EQ(ndk_create_cq_async(a, 1000, NULL, NULL, NULL, NULL,
					   &cq), NDK_STATUS_INVALID_PARAMETER,
		       "inline error");
	free(cq);
	ndk_adapter_close(a);
	TEST_ASSERT_EQ(fake.released, 0, "nothing pending: no release");
	return 0;
}

/* Bad parents and out pointers: refused inline, nothing created. */
static int
t_refused_inline(void)
{
	static struct created c;
	struct ndk_adapter *a = fake_adapter();
	struct ndk_pd *pd = NULL;
	struct ndk_mr *mr = NULL;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct ndk_shared_endpoint *sep = NULL;

	TEST_ASSERT(a != NULL, "fake adapter");
	c = (struct created){ 0 };
	TEST_ASSERT_EQ(ndk_create_pd_async(NULL, created_cb, &c, &pd),
		       NDK_STATUS_INVALID_PARAMETER, "no adapter");
	TEST_ASSERT_EQ(ndk_create_pd_async(a, created_cb, &c, NULL),
		       NDK_STATUS_INVALID_PARAMETER, "no out pointer");
	TEST_ASSERT_EQ(ndk_create_mr_async((struct ndk_pd *)a, false,
					   created_cb, &c, &mr),
		       NDK_STATUS_INVALID_PARAMETER, "adapter as PD");
	TEST_ASSERT_EQ(ndk_create_shared_endpoint_async(a, NULL, 0, created_cb,
							&c, &sep),
		       NDK_STATUS_INVALID_ADDRESS, "no address");
	TEST_ASSERT_EQ(ndk_create_shared_endpoint_async(a,
				(struct sockaddr *)&sin, 0, created_cb, &c,
				&sep), NDK_STATUS_INVALID_ADDRESS,
		       "zero length");
	rte_delay_us_sleep(50 * 1000);
	TEST_ASSERT_EQ(__atomic_load_n(&c.n, __ATOMIC_ACQUIRE), 0,
		       "no completion for an inline refusal");
	TEST_ASSERT_EQ(fake.creates, 0, "nothing created");
	ndk_adapter_close(a);
	return 0;
}

static void
no_connect_event(void *ctx, struct ndk_connector *c)
{
	RTE_SET_USED(ctx);
	RTE_SET_USED(c);
}

/* Every kind: PENDING, out pointer untouched, completion elsewhere. */
static int
t_pending(void)
{
	static struct created c[11];
	struct ndk_adapter *a = fake_adapter();
	void *out[11] = { NULL };
	struct ndk_pd *pd;
	struct ndk_cq *cq;
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(4791) };
	int self = rte_gettid();

	TEST_ASSERT(a != NULL, "fake adapter");
	memset(c, 0, sizeof(c));
	TEST_ASSERT_EQ(ndk_create_pd_async(a, created_cb, &c[0],
					   (struct ndk_pd **)&out[0]),
		       NDK_STATUS_PENDING, "PD");
	TEST_ASSERT_EQ(ndk_create_cq_async(a, 10, NULL, NULL, created_cb,
					   &c[1], (struct ndk_cq **)&out[1]),
		       NDK_STATUS_PENDING, "CQ");
	TEST_ASSERT_EQ(ndk_create_cq_async(a, 1000, NULL, NULL, created_cb,
					   &c[2], (struct ndk_cq **)&out[2]),
		       NDK_STATUS_PENDING, "CQ too deep");
	TEST_ASSERT_EQ(ndk_create_connector_async(a, created_cb, &c[3],
					(struct ndk_connector **)&out[3]),
		       NDK_STATUS_PENDING, "connector");
	TEST_ASSERT_EQ(ndk_create_listener_async(a, no_connect_event, NULL,
					created_cb, &c[4],
					(struct ndk_listener **)&out[4]),
		       NDK_STATUS_PENDING, "listener");
	TEST_ASSERT_EQ(ndk_create_shared_endpoint_async(a,
					(struct sockaddr *)&sin, sizeof(sin),
					created_cb, &c[5],
					(struct ndk_shared_endpoint **)&out[5]),
		       NDK_STATUS_PENDING, "endpoint");
	/* The caller's sockaddr need not outlive the call. */
	sin.sin_port = htons(1);
	TEST_ASSERT(wait_created(&c[0], NDK_STATUS_SUCCESS,
				 NDK_OBJECT_TYPE_PD) == 0, "PD");
	TEST_ASSERT(wait_created(&c[1], NDK_STATUS_SUCCESS,
				 NDK_OBJECT_TYPE_CQ) == 0, "CQ");
	TEST_ASSERT(wait_created(&c[2], NDK_STATUS_INVALID_PARAMETER,
				 NDK_OBJECT_TYPE_CQ) == 0, "CQ too deep");
	TEST_ASSERT(wait_created(&c[3], NDK_STATUS_SUCCESS,
				 NDK_OBJECT_TYPE_CONNECTOR) == 0, "connector");
	TEST_ASSERT(wait_created(&c[4], NDK_STATUS_SUCCESS,
				 NDK_OBJECT_TYPE_LISTENER) == 0, "listener");
	TEST_ASSERT(wait_created(&c[5], NDK_STATUS_SUCCESS,
				 NDK_OBJECT_TYPE_SHARED_ENDPOINT) == 0,
		    "endpoint");
	TEST_ASSERT_EQ(fake.sep_port, 4791, "the address as it was passed");
	pd = (struct ndk_pd *)c[0].obj;
	cq = (struct ndk_cq *)c[1].obj;
	TEST_ASSERT_EQ(ndk_create_mr_async(pd, true, created_cb, &c[6],
					   (struct ndk_mr **)&out[6]),
		       NDK_STATUS_PENDING, "MR");
	TEST_ASSERT_EQ(ndk_create_mw_async(pd, created_cb, &c[7],
					   (struct ndk_mw **)&out[7]),
		       NDK_STATUS_PENDING, "MW");
	TEST_ASSERT_EQ(ndk_create_qp_async(pd, cq, cq, NULL, 8, 8, 1, 1, 0,
					   created_cb, &c[8],
					   (struct ndk_qp **)&out[8]),
		       NDK_STATUS_PENDING, "QP");
	TEST_ASSERT_EQ(ndk_create_srq_async(pd, 8, 1, 0, NULL, NULL,
					    created_cb, &c[9],
					    (struct ndk_srq **)&out[9]),
		       NDK_STATUS_PENDING, "SRQ");
	TEST_ASSERT_EQ(ndk_create_qp_async(pd, cq, cq, NULL, 0, 8, 1, 1, 0,
					   created_cb, &c[10],
					   (struct ndk_qp **)&out[10]),
		       NDK_STATUS_PENDING, "QP with no receive queue");
	TEST_ASSERT(wait_created(&c[6], NDK_STATUS_SUCCESS,
				 NDK_OBJECT_TYPE_MR) == 0, "MR");
	TEST_ASSERT(wait_created(&c[7], NDK_STATUS_SUCCESS,
				 NDK_OBJECT_TYPE_MW) == 0, "MW");
	TEST_ASSERT(wait_created(&c[8], NDK_STATUS_SUCCESS,
				 NDK_OBJECT_TYPE_QP) == 0, "QP");
	TEST_ASSERT(wait_created(&c[9], NDK_STATUS_SUCCESS,
				 NDK_OBJECT_TYPE_SRQ) == 0, "SRQ");
	TEST_ASSERT(wait_created(&c[10], NDK_STATUS_INVALID_PARAMETER,
				 NDK_OBJECT_TYPE_QP) == 0, "bad QP");
	for (int i = 0; i < 11; i++)
		TEST_ASSERT(out[i] == NULL, "out pointer %d untouched", i);
	TEST_ASSERT(fake.last_tid != self, "provider ran on another thread");
	TEST_ASSERT_EQ(fake.creates, 9, "one provider create each but the "
		       "refused CQ");
	for (int i = 0; i < 11; i++)
		free(c[i].obj);
	ndk_adapter_close(a);
	return 0;
}

/* Close waits for the deferred creates, after giving up polling. */
static int
t_close_waits(void)
{
	static struct created c1, c2;
	struct ndk_adapter *a = fake_adapter();
	struct ndk_pd *pd = NULL;
	struct ndk_cq *cq = NULL;

	TEST_ASSERT(a != NULL, "fake adapter");
	c1 = c2 = (struct created){ 0 };
	fake.delay_ms = 100;
	TEST_ASSERT_EQ(ndk_create_pd_async(a, created_cb, &c1, &pd),
		       NDK_STATUS_PENDING, "PD");
	TEST_ASSERT_EQ(ndk_create_cq_async(a, 4, NULL, NULL, created_cb, &c2,
					   &cq), NDK_STATUS_PENDING, "CQ");
	ndk_adapter_close(a);
	TEST_ASSERT_EQ(fake.closed, 1, "closed");
	TEST_ASSERT_EQ(fake.done_at_close, 2,
		       "both completions returned before the provider closed");
	TEST_ASSERT_EQ(fake.released, 1, "polling given up while waiting");
	free(c1.obj);
	free(c2.obj);
	return 0;
}

static const struct ndk_test_case cases[] = {
	{ "inline", t_inline },
	{ "refused_inline", t_refused_inline },
	{ "pending", t_pending },
	{ "close_waits", t_close_waits },
};

int
main(int argc, char **argv)
{
	int rc;

	if (ndk_test_eal_init("test_unit_ndk_create", "0", NULL) < 0)
		return 1;
	ndk_provider_register(&fake_provider);
	rc = ndk_test_run("ndk_create", cases, RTE_DIM(cases), argc, argv);
	rte_eal_cleanup();
	return rc;
}
