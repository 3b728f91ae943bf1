/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Helpers of the connection-manager functional programs (test_cm.c,
 * test_cm_loss.c, test_cm_ndk.c): request completions, disconnect and
 * connect events recorded for the test thread, waits, a listener of B,
 * A's connect and one full handshake.
 */

#include <string.h>

#include "cm_common.h"

void
req_done(void *ctx, ndk_status_t st)
{
	struct req *r = ctx;

	r->st = st;
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
}

void
disc_event(void *ctx, uint32_t reason)
{
	struct disc *d = ctx;

	d->reason = reason;
	__atomic_fetch_add(&d->fired, 1, __ATOMIC_RELEASE);
}

void
connect_event(void *ctx, struct ndk_connector *c)
{
	struct incoming *in = ctx;
	int i = __atomic_load_n(&in->n, __ATOMIC_RELAXED);

	if (in->close_at_once || i == MAX_INCOMING) {
		ndk_close_connector(c, NULL, NULL);
		if (in->close_at_once)
			__atomic_store_n(&in->n, i + 1, __ATOMIC_RELEASE);
		return;
	}
	in->c[i] = c;
	__atomic_store_n(&in->n, i + 1, __ATOMIC_RELEASE);
}

/* Wait until *@p flag >= @p want; @return 0 or -1 on timeout. */
int
wait_int(const int *flag, int want)
{
	double t0 = ndk_pair_now();

	while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) < want) {
		if (ndk_pair_now() - t0 > WAIT_S)
			return -1;
		ndk_pair_sleep_ms(1);
	}
	return 0;
}

/* A listener of B on @p port. */
struct ndk_listener *
listen_b(struct ndk_pair *p, struct incoming *in, uint16_t port)
{
	struct ndk_listener *l = NULL;
	struct sockaddr_in a = ndk_pair_sin(INADDR_ANY, port);

	if (ndk_create_listener(p->ad[NDK_PAIR_B], connect_event, in, &l) !=
	    NDK_STATUS_SUCCESS)
		return NULL;
	if (ndk_listen(l, SA(a), sizeof(a)) != NDK_STATUS_SUCCESS) {
		ndk_close_listener(l, NULL, NULL);
		return NULL;
	}
	return l;
}

/* Start A's connect to B:@p port with @p pdata (NUL-terminated). */
ndk_status_t
connect_a(struct ndk_pair *p, struct ndk_connector *ca, struct ndk_qp *qp,
	  uint16_t port, const char *pdata, struct req *r)
{
	struct sockaddr_in src = ndk_pair_sin(INADDR_ANY, 0);
	struct sockaddr_in dst = ndk_pair_sin(p->ipv4[NDK_PAIR_B], port);

	return ndk_connect(ca, qp, SA(src), sizeof(src), SA(dst), sizeof(dst),
			   4, 4, pdata, pdata ? (uint32_t)strlen(pdata) + 1 : 0,
			   req_done, r);
}

/* One full handshake on @p c; @p in receives B's connector. */
int
handshake(struct ndk_pair *p, struct ndk_pair_conn *c, struct incoming *in,
	  struct ndk_connector **ca, struct ndk_connector **cb,
	  struct disc *da, struct disc *db)
{
	/* static: callbacks of a failed case may still fire */
	static struct req rc, ra, rcc;
	int n0 = __atomic_load_n(&in->n, __ATOMIC_ACQUIRE);
	ndk_status_t st;

	rc = (struct req){ 0 };
	ra = (struct req){ 0 };
	rcc = (struct req){ 0 };

	TEST_ASSERT_EQ(ndk_create_connector(p->ad[NDK_PAIR_A], ca),
		       NDK_STATUS_SUCCESS, "connector");
	st = connect_a(p, *ca, c->qp[0], PORT, "hello", &rc);
	TEST_ASSERT_EQ(st, NDK_STATUS_PENDING, "connect: %s",
		       ndk_status_str(st));
	TEST_ASSERT(wait_int(&in->n, n0 + 1) == 0, "no connect event");
	*cb = in->c[n0];
	st = ndk_accept(*cb, c->qp[1], 4, 4, "welcome", 8, disc_event, db,
			req_done, &ra);
	TEST_ASSERT_EQ(st, NDK_STATUS_PENDING, "accept: %s",
		       ndk_status_str(st));
	WAIT_REQ(&rc, NDK_STATUS_SUCCESS, "connect");
	st = ndk_complete_connect(*ca, disc_event, da, req_done, &rcc);
	TEST_ASSERT_EQ(st, NDK_STATUS_PENDING, "complete: %s",
		       ndk_status_str(st));
	WAIT_REQ(&rcc, NDK_STATUS_SUCCESS, "complete connect");
	WAIT_REQ(&ra, NDK_STATUS_SUCCESS, "accept");
	return 0;
}

int
qp_state(struct ndk_qp *qp)
{
	struct ndk_qp_attr a;

	if (ndk_qp_query(qp, &a) != NDK_STATUS_SUCCESS)
		return -1;
	return (int)a.state;
}
