/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * swroce shared endpoints (NdkCreateSharedEndpoint): a local address and
 * port reserved for active connectors, each of which connects from it to
 * a different peer (swroce_conn.c, swr_conn_connect_shared). NDK's
 * endpoint reference count is the endpoint's own reference plus one per
 * connector connected through it; the port stays counted in
 * swr_cm::port_use until the last one goes, and a close that finds
 * connectors still holding it stays pending until then. Objects come
 * from rte_malloc on the caller's thread; their state is the polling
 * thread's (swr_ctl_exec), like the rest of the CM.
 */

#include <netinet/in.h>
#include <string.h>

#include <rte_malloc.h>

#include "swroce_adapter.h"
#include "swroce_cm.h"
#include "swroce_ctl.h"

static const struct ndk_shared_endpoint_dispatch swr_sep_dispatch;

static inline struct swr_sep *
swr_sep_of(struct ndk_shared_endpoint *s)
{
	return (struct swr_sep *)s;
}

struct sep_arg {
	struct swr_sep *s;
	const union ndk_sockaddr *addr;
	union ndk_sockaddr *o_addr;
};

/* Reserve the address and port, link the endpoint (lcore). */
static ndk_status_t
swr_sep_create_ctl(struct swr_adapter *ad, void *arg)
{
	struct sep_arg *a = arg;
	struct swr_sep *s = a->s;
	uint8_t ip[16], lip[16], like[16];
	uint16_t port;
	ndk_status_t st;

	swr_sa_in(a->addr, ip, &port);
	/* The family's wildcard stands for the adapter's address of it. */
	if (swr_ip6_is_zero(ip)) {
		memset(like, 0, sizeof(like));
		if (a->addr->sa.sa_family == AF_INET)
			ndk_roce_gid_from_ipv4(like, 1);  /* any IPv4 one */
		if (!swr_cm_local_addr(ad, like, lip))
			return NDK_STATUS_INVALID_ADDRESS;
	} else if (!swr_cm_local_addr(ad, ip, lip) ||
		   memcmp(ip, lip, 16) != 0) {
		return NDK_STATUS_INVALID_ADDRESS;
	}
	st = swr_cm_port_claim(ad, lip, &port);
	if (!NDK_SUCCESS(st))
		return st;
	memcpy(s->ip, lip, 16);
	s->port = port;
	s->refs = 1;
	swr_cm_port_count(ad, lip, port, 1);
	s->prev = NULL;
	s->next = ad->cm->seps;
	if (s->next != NULL)
		s->next->prev = s;
	ad->cm->seps = s;
	return NDK_STATUS_SUCCESS;
}

ndk_status_t
swr_sep_create(struct ndk_adapter *adapter, const union ndk_sockaddr *addr,
	       struct ndk_shared_endpoint **out)
{
	struct swr_adapter *ad = swr_adapter_of(adapter);
	struct sep_arg a = { .addr = addr };
	ndk_status_t st;

	a.s = rte_zmalloc_socket("swr_sep", sizeof(*a.s), RTE_CACHE_LINE_SIZE,
				 ad->socket_id);
	if (a.s == NULL)
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	ndk_object_header_init(&a.s->pub.header,
			       NDK_OBJECT_TYPE_SHARED_ENDPOINT);
	a.s->pub.dispatch = &swr_sep_dispatch;
	a.s->ad = ad;
	st = swr_ctl_exec(ad, swr_sep_create_ctl, &a);
	if (!NDK_SUCCESS(st)) {
		rte_free(a.s);
		return st;
	}
	*out = &a.s->pub;
	return NDK_STATUS_SUCCESS;
}

bool
swr_sep_unref(struct swr_sep *s)
{
	struct swr_cm *cm = s->ad->cm;

	if (--s->refs != 0)
		return false;
	swr_cm_port_count(s->ad, s->ip, s->port, -1);
	if (s->prev != NULL)
		s->prev->next = s->next;
	else
		cm->seps = s->next;
	if (s->next != NULL)
		s->next->prev = s->prev;
	s->next = s->prev = NULL;
	return true;
}

void
swr_sep_attach(struct swr_sep *s, struct swr_conn *c)
{
	c->sep = s;
	c->sep_prev = NULL;
	c->sep_next = s->conns;
	if (s->conns != NULL)
		s->conns->sep_prev = c;
	s->conns = c;
	s->refs++;
}

struct swr_sep *
swr_sep_detach(struct swr_conn *c)
{
	struct swr_sep *s = c->sep;

	if (s == NULL)
		return NULL;
	if (c->sep_prev != NULL)
		c->sep_prev->sep_next = c->sep_next;
	else
		s->conns = c->sep_next;
	if (c->sep_next != NULL)
		c->sep_next->sep_prev = c->sep_prev;
	c->sep = NULL;
	c->sep_next = c->sep_prev = NULL;
	return swr_sep_unref(s) ? s : NULL;
}

void
swr_sep_finish(struct swr_sep *s)
{
	ndk_close_completion_fn done = s->done;
	void *ctx = s->done_ctx;

	rte_free(s);
	if (done != NULL)
		done(ctx);
}

void
swr_sep_fini(struct swr_adapter *ad)
{
	struct swr_cm *cm = ad->cm;

	/*
	 * Endpoints whose connectors the consumer left open die with the
	 * adapter; a pending close completes (its last callback).
	 */
	while (cm->seps != NULL) {
		struct swr_sep *s = cm->seps;

		cm->seps = s->next;
		s->pub.header.type = NDK_OBJECT_TYPE_UNDEFINED;
		if (!s->closed)
			s->done = NULL;
		swr_sep_finish(s);
	}
}

/* Drop the endpoint's own reference (lcore). */
static ndk_status_t
swr_sep_close_ctl(struct swr_adapter *ad, void *arg)
{
	struct swr_sep *s = arg;

	RTE_SET_USED(ad);
	s->closed = true;
	return swr_sep_unref(s) ? NDK_STATUS_SUCCESS : NDK_STATUS_PENDING;
}

static ndk_status_t
swr_sep_close(struct ndk_shared_endpoint *pub, ndk_close_completion_fn done,
	      void *ctx)
{
	struct swr_sep *s = swr_sep_of(pub);
	ndk_status_t st;

	/* Set before the last connector can see the endpoint closed. */
	s->done = done;
	s->done_ctx = ctx;
	s->pub.header.type = NDK_OBJECT_TYPE_UNDEFINED;
	st = swr_ctl_exec(s->ad, swr_sep_close_ctl, s);
	if (st == NDK_STATUS_SUCCESS)
		rte_free(s);     /* inline: no completion (NDK) */
	return st;
}

static ndk_status_t
swr_sep_addr_ctl(struct swr_adapter *ad, void *arg)
{
	struct sep_arg *a = arg;

	RTE_SET_USED(ad);
	swr_sa_out(a->o_addr, a->s->ip, a->s->port, AF_INET6);
	return NDK_STATUS_SUCCESS;
}

static ndk_status_t
swr_sep_addr(struct ndk_shared_endpoint *pub, union ndk_sockaddr *addr)
{
	struct swr_sep *s = swr_sep_of(pub);
	struct sep_arg a = { .s = s, .o_addr = addr };

	return swr_ctl_exec(s->ad, swr_sep_addr_ctl, &a);
}

static const struct ndk_shared_endpoint_dispatch swr_sep_dispatch = {
	.close = swr_sep_close,
	.get_local_address = swr_sep_addr,
};
