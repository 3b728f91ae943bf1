/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: the neighbour services of swroce (swroce_neigh.c) on a
 * crossed net_ring pair with distinct configured MACs, polled by the test
 * thread only (see neigh_common.h):
 *   (a) the ARP responder: one correct reply per request for the adapter,
 *       nothing for others; RFC 826 learning and gratuitous updates;
 *   (b) ICMP echo: replies checked with independently computed checksums,
 *       single- and multi-segment, shared buffers, IP options;
 *   (c) QPs with an all-zero dest_mac: connecting starts ARP, the first
 *       frames are held until the reply, the peer learns us from our
 *       request, then SEND/WRITE/READ complete with the right data (also
 *       with pollers);
 *   (d) a peer nobody answers for: requests retried, held frames dropped
 *       and counted, resolution FAILED, the QP fails with a retry error,
 *       a hold-down, and a new request after it;
 *   (e) malformed ARP and ICMP: counted and ignored, nothing learned;
 *   re-validation after a minute (slow, with NDK_TEST_SLOW=1 only).
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include "ndk_roce.h"
#include "neigh_common.h"

/* Requests per resolution round (SWR_NEIGH_PROBES in swroce_neigh.h). */
#define SWR_PROBES_ 3

/* ------------------------------------------------------------------ */
/* (a) ARP responder and learning                                      */
/* ------------------------------------------------------------------ */

static int
b_arp_reply(void)
{
	const rte_be32_t ip_h = IP4(10, 0, 0, 9), ip_b = g_pair->ipv4[B];
	struct rte_mbuf *out[MAX_FRAMES];
	struct rte_ether_addr mac;
	struct arp_spec as;
	struct snap s0;

	TEST_ASSERT(memcmp(g_pair->info[B].mac, &mac_ad[B], 6) == 0,
		    "configured MAC not reported");
	snap_take(&s0);
	/* Broadcast request from host H: one reply, to H. */
	as = arp_spec(1, &mac_bcast, &mac_h, ip_h, ip_b);
	if (to_b(mk_arp(&as), out, 1, "broadcast request") != 0 ||
	    check_arp(out[0], 2, &mac_h, &mac_h, ip_h, B) != 0)
		return -1;
	rte_pktmbuf_free(out[0]);
	TEST_ASSERT_EQ(delta(&s0, B, "arp_requests_rcvd"), 1, "requests");
	TEST_ASSERT_EQ(delta(&s0, B, "arp_replies_sent"), 1, "replies");
	TEST_ASSERT_EQ(delta(&s0, B, "rx_not_roce"), 0, "rx_not_roce");

	/* Unicast to our MAC: answered; to another MAC or IP: ignored. */
	as.eth_dst = mac_ad[B];
	if (to_b(mk_arp(&as), out, 1, "unicast request") != 0 ||
	    check_arp(out[0], 2, &mac_h, &mac_h, ip_h, B) != 0)
		return -1;
	rte_pktmbuf_free(out[0]);
	as.eth_dst = mac_other;
	if (to_b(mk_arp(&as), out, 0, "request to another MAC") != 0)
		return -1;
	as = arp_spec(1, &mac_bcast, &mac_h, ip_h, IP4(10, 0, 0, 3));
	if (to_b(mk_arp(&as), out, 0, "request for another IP") != 0)
		return -1;
	/* RFC 5227 probe (sender 0.0.0.0): defended, not learned. */
	as = arp_spec(1, &mac_bcast, &mac_h2, 0, ip_b);
	if (to_b(mk_arp(&as), out, 1, "probe") != 0 ||
	    check_arp(out[0], 2, &mac_h2, &mac_h2, 0, B) != 0)
		return -1;
	rte_pktmbuf_free(out[0]);
	TEST_ASSERT_EQ(delta(&s0, B, "arp_requests_rcvd"), 3, "requests");
	TEST_ASSERT_EQ(delta(&s0, B, "arp_replies_sent"), 3, "replies");
	TEST_ASSERT_EQ(delta(&s0, B, "rx_not_roce"), 2, "ignored");

	/* B learned H from its request: a QP to H needs no ARP. */
	TEST_ASSERT_EQ(first_out(B, ip_h, &mac), 1, "H not learned");
	TEST_ASSERT(rte_is_same_ether_addr(&mac, &mac_h), "frame MAC for H");
	TEST_ASSERT_EQ(delta(&s0, B, "arp_requests_sent"), 0, "B asked");
	return 0;
}

/* RFC 826 merge: who updates, who is added. */
static int
b_arp_learning(void)
{
	const rte_be32_t ip_b = g_pair->ipv4[B];
	const rte_be32_t ip_h = IP4(10, 0, 0, 9);
	struct rte_mbuf *out[MAX_FRAMES];
	struct rte_ether_addr mac;
	struct arp_spec as;
	struct snap s0;

	as = arp_spec(1, &mac_bcast, &mac_h, ip_h, ip_b);
	if (to_b(mk_arp(&as), out, 1, "request") != 0)
		return -1;
	rte_pktmbuf_free(out[0]);
	snap_take(&s0);
	/* Gratuitous ARP of a known host: updated, not answered. */
	as = arp_spec(1, &mac_bcast, &mac_h2, ip_h, ip_h);
	if (to_b(mk_arp(&as), out, 0, "gratuitous request") != 0)
		return -1;
	TEST_ASSERT_EQ(first_out(B, ip_h, &mac), 1, "H forgotten");
	TEST_ASSERT(rte_is_same_ether_addr(&mac, &mac_h2), "H's new MAC");
	/* Gratuitous reply of a known host, too. */
	as = arp_spec(2, &mac_bcast, &mac_h, ip_h, ip_h);
	if (to_b(mk_arp(&as), out, 0, "gratuitous reply") != 0)
		return -1;
	TEST_ASSERT_EQ(first_out(B, ip_h, &mac), 1, "H forgotten");
	TEST_ASSERT(rte_is_same_ether_addr(&mac, &mac_h), "H's MAC back");
	/* Gratuitous ARP and replies for others do not add hosts. */
	as = arp_spec(1, &mac_bcast, &mac_h2, IP4(10, 0, 0, 10),
		      IP4(10, 0, 0, 10));
	if (to_b(mk_arp(&as), out, 0, "unknown gratuitous") != 0)
		return -1;
	TEST_ASSERT_EQ(first_out(B, IP4(10, 0, 0, 10), &mac), 0,
		       "learned from a gratuitous ARP");
	as = arp_spec(2, &mac_bcast, &mac_h2, IP4(10, 0, 0, 11),
		      IP4(10, 0, 0, 3));
	if (to_b(mk_arp(&as), out, 0, "reply to another host") != 0)
		return -1;
	TEST_ASSERT_EQ(first_out(B, IP4(10, 0, 0, 11), &mac), 0,
		       "learned from someone else's reply");
	/* A reply to us (even unasked) adds its sender. */
	as = arp_spec(2, &mac_ad[B], &mac_h2, IP4(10, 0, 0, 12), ip_b);
	if (to_b(mk_arp(&as), out, 0, "unasked reply") != 0)
		return -1;
	TEST_ASSERT_EQ(first_out(B, IP4(10, 0, 0, 12), &mac), 1,
		       "reply to us not learned");
	TEST_ASSERT(rte_is_same_ether_addr(&mac, &mac_h2), "MAC of .12");
	TEST_ASSERT_EQ(delta(&s0, B, "arp_replies_rcvd"), 1, "replies");
	TEST_ASSERT_EQ(delta(&s0, B, "arp_replies_sent"), 0, "answered");
	TEST_ASSERT_EQ(delta(&s0, B, "arp_requests_sent"), 2,
		       "requests for .10 and .11");
	return 0;
}

/* ------------------------------------------------------------------ */
/* (b) ICMP echo                                                       */
/* ------------------------------------------------------------------ */

static int
echo_once(const struct echo_spec *e, bool shared, const char *what)
{
	static uint8_t before[FRAME_ROOM], after[FRAME_ROOM];
	struct rte_mbuf *m = mk_echo(e), *out[MAX_FRAMES];
	uint32_t len;
	int rc;

	TEST_ASSERT(m != NULL, "%s: frame", what);
	len = rte_pktmbuf_pkt_len(m);
	if (shared) {
		/* We keep a reference: B must not write into the buffer. */
		ndk_roce_mbuf_copy_out(m, 0, before, len);
		for (struct rte_mbuf *s = m; s != NULL; s = s->next)
			rte_mbuf_refcnt_update(s, 1);
	}
	if (to_b(m, out, 1, what) != 0)
		return -1;
	rc = check_echo_reply(out[0], e);
	/* Private single-segment requests without options: in place. */
	if (rc == 0 && (out[0] == m) != (!shared && e->seg == 0 &&
					 e->opt_len == 0))
		TEST_FAIL("%s: replied %s", what, out[0] == m ? "in place" :
			  "in a copy");
	rte_pktmbuf_free(out[0]);
	if (rc != 0)
		TEST_FAIL("%s: bad reply", what);
	if (shared) {
		ndk_roce_mbuf_copy_out(m, 0, after, len);
		rte_pktmbuf_free(m);
		TEST_ASSERT(memcmp(before, after, len) == 0,
			    "%s: shared request modified", what);
	}
	return 0;
}

static int
b_icmp_echo(void)
{
	static const uint32_t sizes[] = { 0, 1, 56, 101, 1472, 4000 };
	struct echo_spec e;
	struct snap s0;
	char what[64];
	unsigned int n = 0;

	snap_take(&s0);
	for (unsigned int i = 0; i < RTE_DIM(sizes); i++) {
		e = echo_spec(sizes[i]);
		snprintf(what, sizeof(what), "echo %u B", sizes[i]);
		if (echo_once(&e, false, what) != 0)
			return -1;
		/* Headers in the first of several segments: a copy. */
		e.seg = 50 + sizes[i] / 3;
		snprintf(what, sizeof(what), "echo %u B, segments", sizes[i]);
		if (echo_once(&e, false, what) != 0)
			return -1;
		e.seg = 0;
		snprintf(what, sizeof(what), "echo %u B, shared", sizes[i]);
		if (echo_once(&e, true, what) != 0)
			return -1;
		n += 3;
	}
	e = echo_spec(64);
	e.opt_len = 8;
	if (echo_once(&e, false, "echo with IP options") != 0)
		return -1;
	e.seq = 0xFFFF;
	e.id = 0;
	if (echo_once(&e, true, "echo with IP options, shared") != 0)
		return -1;
	n += 2;
	TEST_ASSERT_EQ(delta(&s0, B, "icmp_echo_replied"), n, "replies");
	TEST_ASSERT_EQ(delta(&s0, B, "rx_not_roce"), 0, "dropped");
	return 0;
}

/* ------------------------------------------------------------------ */
/* (c) Resolution: held frames, then traffic                           */
/* ------------------------------------------------------------------ */

static int
b_resolve(void)
{
	struct rte_mbuf *out[MAX_FRAMES];
	struct ndk_pair_buf *src, *dst;
	struct ndk_pair_conn *c;
	struct ndk_result_ex r[2];
	struct ndk_sge s;
	struct snap s0;
	unsigned int n;

	snap_take(&s0);
	/* B's QP connects once B has heard of A (below). */
	c = conn_arp(g_pair->ipv4[B], 0, 0, 0);
	TEST_ASSERT(c != NULL, "connection");
	src = ndk_pair_buf_alloc(g_pair, c->pd[A], 1000, 0);
	dst = ndk_pair_buf_alloc(g_pair, c->pd[B], 1000,
				 NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	TEST_ASSERT(src != NULL && dst != NULL, "buffers");
	ndk_pair_fill(src->data, 1000, 77);
	s = ndk_pair_sge(dst, 0, 1000);
	TEST_ASSERT_EQ(ndk_receive(c->qp[B], (void *)1, &s, 1),
		       NDK_STATUS_SUCCESS, "receive");
	s = ndk_pair_sge(src, 0, 1000);
	TEST_ASSERT_EQ(ndk_send(c->qp[A], (void *)2, &s, 1, 0),
		       NDK_STATUS_SUCCESS, "send");

	/* A holds the SEND and broadcasts one request for B. */
	n = poll_take(A, out);
	TEST_ASSERT_EQ(n, 1, "A's first frames");
	if (check_arp(out[0], 1, &mac_bcast, &mac_zero, g_pair->ipv4[B],
		      A) != 0)
		return -1;
	for (int i = 0; i < 50; i++)
		poll_ad(A);
	TEST_ASSERT_EQ(take(A, out + 1), 0, "A sent more while resolving");
	/* B answers, and learns A from the request: B's QP needs no ARP. */
	TEST_ASSERT(give(B, out, 1) == 0, "to B");
	TEST_ASSERT_EQ(poll_take(B, out), 1, "B's answer");
	if (check_arp(out[0], 2, &mac_ad[A], &mac_ad[A], g_pair->ipv4[A],
		      B) != 0)
		return -1;
	TEST_ASSERT_EQ(connect_arp(c, B, g_pair->ipv4[A], 0, 0),
		       NDK_STATUS_SUCCESS, "connect B");
	poll_ad(B);
	TEST_ASSERT_EQ(take(B, out + 1), 0, "B asked for A");
	/* A learns B and releases the held SEND with B's MAC. */
	TEST_ASSERT(give(A, out, 1) == 0, "to A");
	n = poll_take(A, out);
	TEST_ASSERT(n >= 1, "held SEND not released");
	for (unsigned int i = 0; i < n; i++)
		if (check_roce(out[i], A) != 0)
			return -1;
	TEST_ASSERT(give(B, out, n) == 0, "to B");
	/* B's ACK goes to A's MAC without asking. */
	n = poll_take(B, out);
	TEST_ASSERT(n >= 1, "no ACK");
	for (unsigned int i = 0; i < n; i++)
		if (check_roce(out[i], B) != 0)
			return -1;
	TEST_ASSERT(give(A, out, n) == 0, "to A");
	TEST_ASSERT(pump(c->icq[A], r, 1, WAIT_S) == 1 &&
		    r[0].status == NDK_STATUS_SUCCESS, "send completion");
	TEST_ASSERT(pump(c->rcq[B], r + 1, 1, WAIT_S) == 1 &&
		    r[1].status == NDK_STATUS_SUCCESS &&
		    r[1].bytes_transferred == 1000, "receive completion");
	TEST_ASSERT(ndk_pair_check(dst->data, 1000, 77) < 0, "data");

	if (traffic(c, 3000, 1) != 0 || traffic(c, 100000, 2) != 0)
		return -1;
	TEST_ASSERT_EQ(delta(&s0, A, "arp_requests_sent"), 1, "A requests");
	TEST_ASSERT_EQ(delta(&s0, B, "arp_requests_rcvd"), 1, "B requests");
	TEST_ASSERT_EQ(delta(&s0, B, "arp_replies_sent"), 1, "B replies");
	TEST_ASSERT_EQ(delta(&s0, A, "arp_replies_rcvd"), 1, "A replies");
	TEST_ASSERT_EQ(delta(&s0, B, "arp_requests_sent"), 0, "B asked");
	for (int side = 0; side < 2; side++)
		TEST_ASSERT(delta(&s0, side, "neigh_pending_drops") == 0 &&
			    delta(&s0, side, "neigh_failed") == 0 &&
			    delta(&s0, side, "rx_not_roce") == 0,
			    "side %d: drops", side);

	/* The same with pollers on lcore 1. */
	ndk_adapter_release(g_pair->ad[A]);
	ndk_adapter_release(g_pair->ad[B]);
	TEST_ASSERT(ndk_pair_start(g_pair) == 0, "pollers");
	if (traffic(c, 1u << 20, 3) != 0)
		return -1;
	ndk_pair_stop(g_pair);
	return 0;
}

/* ------------------------------------------------------------------ */
/* (d) A neighbour that never answers                                  */
/* ------------------------------------------------------------------ */

/* Poll both sides until @p qp's one send completes (error expected). */
static int
wait_fail(struct ndk_pair_conn *c, double secs, const char *what)
{
	struct ndk_result_ex r;
	char d[200];

	TEST_ASSERT(pump(c->icq[A], &r, 1, secs) == 1, "%s: no completion",
		    what);
	ndk_pair_result_str(&r, d, sizeof(d));
	TEST_ASSERT(r.status == NDK_STATUS_IO_TIMEOUT &&
		    r.provider_error == NDK_PERR_RETRY_EXCEEDED, "%s: %s",
		    what, d);
	return 0;
}

/* Poll both sides until A's @p c counter moved by @p want or @p secs. */
static double
wait_ctr(const struct snap *s0, const char *c, uint64_t want, double secs)
{
	double t0 = ndk_pair_now(), end = t0 + secs;

	while (delta(s0, A, c) < want && ndk_pair_now() < end) {
		poll_ad(A);
		poll_ad(B);
		ndk_pair_sleep_ms(1);
	}
	return ndk_pair_now() - t0;
}

static int
b_unresolved(void)
{
	const rte_be32_t dead = IP4(10, 0, 0, 99);
	struct ndk_pair_conn *c;
	struct snap s0;
	uint64_t frames;
	double t, t_fail;

	snap_take(&s0);
	c = conn_arp(dead, 0, 10, 2);   /* ~4 ms ACK timeout, 2 retries */
	TEST_ASSERT(c != NULL, "connection");
	TEST_ASSERT_EQ(send_inline(c->qp[A], (void *)1), NDK_STATUS_SUCCESS,
		       "send");
	if (wait_fail(c, WAIT_S, "send to nobody") != 0)
		return -1;
	t = wait_ctr(&s0, "neigh_failed", 1, 10.0);
	t_fail = ndk_pair_now();
	printf("    resolution failed after %.2f s\n", t);
	TEST_ASSERT_EQ(delta(&s0, A, "neigh_failed"), 1, "neigh_failed");
	TEST_ASSERT(t > 2.5 && t < 4.5, "FAILED after %.2f s", t);
	TEST_ASSERT_EQ(delta(&s0, A, "arp_requests_sent"), 3, "requests");
	frames = 1 + delta(&s0, A, "retransmit_packets");
	TEST_ASSERT_EQ(delta(&s0, A, "neigh_pending_drops"), frames,
		       "held frames dropped");
	TEST_ASSERT_EQ(delta(&s0, A, "tx_packets"), 3, "A sent only ARP");
	TEST_ASSERT_EQ(delta(&s0, B, "rx_not_roce"), 3,
		       "B ignores requests for others");
	TEST_ASSERT_EQ(delta(&s0, B, "arp_replies_sent"), 0, "B answered");
	ndk_pair_conn_destroy(c);

	/* In the hold-down: dropped at once, no new request. */
	snap_take(&s0);
	c = conn_arp(dead, 0, 10, 1);
	TEST_ASSERT(c != NULL, "connection");
	TEST_ASSERT_EQ(send_inline(c->qp[A], (void *)2), NDK_STATUS_SUCCESS,
		       "send");
	if (wait_fail(c, WAIT_S, "send in hold-down") != 0)
		return -1;
	TEST_ASSERT_EQ(delta(&s0, A, "arp_requests_sent"), 0, "requests");
	TEST_ASSERT_EQ(delta(&s0, A, "neigh_pending_drops"),
		       1 + delta(&s0, A, "retransmit_packets"), "drops");
	ndk_pair_conn_destroy(c);

	/* After it: the next frame asks again. */
	wait_ctr(&s0, "arp_requests_sent", 1, t_fail + 5.2 - ndk_pair_now());
	TEST_ASSERT_EQ(delta(&s0, A, "arp_requests_sent"), 0, "unasked");
	c = conn_arp(dead, 0, 10, 1);
	TEST_ASSERT(c != NULL, "connection");
	TEST_ASSERT_EQ(send_inline(c->qp[A], (void *)3), NDK_STATUS_SUCCESS,
		       "send");
	wait_ctr(&s0, "arp_requests_sent", 1, 0.5);
	TEST_ASSERT_EQ(delta(&s0, A, "arp_requests_sent"), 1,
		       "no request after the hold-down");
	ndk_pair_conn_destroy(c);

	/* Nothing else suffered. */
	c = conn_arp(g_pair->ipv4[B], g_pair->ipv4[A], 0, 0);
	TEST_ASSERT(c != NULL, "connection");
	return traffic(c, 5000, 9);
}

/* ------------------------------------------------------------------ */
/* Re-validation (slow: about 65 s, only with NDK_TEST_SLOW set)       */
/* ------------------------------------------------------------------ */

/*
 * Sort what A sent while B is cut off: unicast probes for B, RoCE frames
 * (to B's MAC), broadcast requests. Everything is dropped (lost link).
 */
static int
sort_lost(unsigned int *probes, unsigned int *roce, unsigned int *bcast)
{
	struct rte_mbuf *out[MAX_FRAMES];
	unsigned int n = take(A, out);
	int rc = 0;

	for (unsigned int i = 0; i < n && rc == 0; i++) {
		const uint8_t *d = rte_pktmbuf_mtod(out[i], const uint8_t *);

		if (get16(d + 12) == 0x0800) {
			rc = check_roce(out[i], A);
			(*roce)++;
		} else if (memcmp(d, &mac_bcast, 6) == 0) {
			rc = check_arp(out[i], 1, &mac_bcast, &mac_zero,
				       g_pair->ipv4[B], A);
			(*bcast)++;
		} else {
			rc = check_arp(out[i], 1, &mac_ad[B], &mac_zero,
				       g_pair->ipv4[B], A);
			(*probes)++;
		}
	}
	rte_pktmbuf_free_bulk(out, n);
	return rc;
}

static int
b_revalidate(void)
{
	struct ndk_pair_conn *c = conn_arp(g_pair->ipv4[B], g_pair->ipv4[A],
					   0, 0);
	unsigned int probes = 0, roce = 0, bcast = 0, roce_probing = 0;
	double t0, t_probe = 0, end;
	struct ndk_pair_buf *rb;
	struct ndk_result_ex r;
	struct ndk_sge sge;

	TEST_ASSERT(c != NULL, "connection");
	if (traffic(c, 2000, 5) != 0)
		return -1;
	rb = ndk_pair_buf_alloc(g_pair, c->pd[B], 64,
				NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	TEST_ASSERT(rb != NULL, "buffer");
	sge = ndk_pair_sge(rb, 0, 64);
	TEST_ASSERT_EQ(ndk_receive(c->qp[B], (void *)8, &sge, 1),
		       NDK_STATUS_SUCCESS, "receive");
	/* Both know each other now: quiet for almost a minute. */
	t0 = ndk_pair_now();
	while (ndk_pair_now() < t0 + 59.0) {
		poll_ad(A);
		poll_ad(B);
		ndk_pair_sleep_ms(5);
	}
	/* B goes silent; A re-validates B while still using its MAC. */
	for (end = t0 + 70.0; bcast == 0 && ndk_pair_now() < end;) {
		poll_ad(A);
		if (sort_lost(&probes, &roce, &bcast) != 0)
			return -1;
		if (probes != 0 && t_probe == 0) {
			t_probe = ndk_pair_now();
			TEST_ASSERT_EQ(send_inline(c->qp[A], (void *)7),
				       NDK_STATUS_SUCCESS, "send");
		}
		if (probes == SWR_PROBES_ && roce_probing == 0)
			roce_probing = roce;
		ndk_pair_sleep_ms(1);
	}
	printf("    probes at %.2f s, broadcast %.2f s later, %u RoCE "
	       "frames while probing\n", t_probe - t0,
	       ndk_pair_now() - t_probe, roce_probing);
	TEST_ASSERT(t_probe > t0 + 59.5 && t_probe < t0 + 61.5, "first probe");
	TEST_ASSERT_EQ(probes, SWR_PROBES_, "unicast probes");
	TEST_ASSERT(roce_probing >= 1, "no frame sent while re-validating");
	TEST_ASSERT_EQ(bcast, 1, "broadcast request after the probes");
	TEST_ASSERT(ndk_pair_now() - t_probe > 2.5, "gave up too early");
	/* B is back: A resolves it again, the SEND completes. */
	TEST_ASSERT(pump(c->icq[A], &r, 1, WAIT_S) == 1 &&
		    r.status == NDK_STATUS_SUCCESS, "send after re-resolving");
	TEST_ASSERT(pump(c->rcq[B], &r, 1, WAIT_S) == 1 &&
		    r.status == NDK_STATUS_SUCCESS && r.bytes_transferred == 32,
		    "receive after re-resolving");
	return traffic(c, 2000, 6);
}

static int
t_revalidate(void)
{
	if (getenv("NDK_TEST_SLOW") == NULL) {
		printf("    about 65 s: set NDK_TEST_SLOW=1 to run it\n");
		return NDK_TEST_SKIPPED;
	}
	return run_case(b_revalidate);
}

/* ------------------------------------------------------------------ */
/* (e) Malformed ARP and ICMP                                          */
/* ------------------------------------------------------------------ */

/* Inject @p m into B: nothing may leave B, counter @p c moves by one. */
static int
ignored(struct rte_mbuf *m, const char *c, const char *what)
{
	static const char *const handled[] = {
		"arp_requests_rcvd", "arp_replies_rcvd", "arp_replies_sent",
		"icmp_echo_replied",
	};
	struct rte_mbuf *out[MAX_FRAMES];
	struct snap s0;

	snap_take(&s0);
	if (to_b(m, out, 0, what) != 0)
		return -1;
	TEST_ASSERT_EQ(delta(&s0, B, c), 1, "%s: not counted", what);
	for (unsigned int i = 0; i < RTE_DIM(handled); i++)
		TEST_ASSERT_EQ(delta(&s0, B, handled[i]), 0, "%s: handled",
			       what);
	return 0;
}

/* Ways to break an ARP request for B (sender 10.0.0.50, H's MAC). */
static const char *const arp_bad[] = {
	"ARP cut by one byte", "ARP of 20 bytes", "hardware type 6",
	"protocol IPv6", "hardware length 8", "protocol length 16",
	"RARP request", "opcode 0", "multicast sender", "sender is B",
};

static struct arp_spec
arp_break(struct arp_spec a, unsigned int k)
{
	static const struct rte_ether_addr mcast = {
		{ 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 } };

	switch (k) {
	case 0: a.len = ARP_END - 1; break;
	case 1: a.len = 20; break;
	case 2: a.htype = 6; break;
	case 3: a.ptype = 0x86DD; break;
	case 4: a.hlen = 8; break;
	case 5: a.plen = 16; break;
	case 6: a.op = 3; break;
	case 7: a.op = 0; break;
	case 8: a.sha = mcast; break;
	default: a.sip = a.tip; break;
	}
	return a;
}

/* Ways to break an echo request for B, and the counter that drops it. */
static const struct {
	const char *what;
	const char *c;
} icmp_bad[] = {
	{ "bad IPv4 checksum", "rx_not_roce" },
	{ "bad ICMP checksum", "rx_not_roce" },
	{ "ICMP timestamp request", "rx_not_roce" },
	{ "echo request code 1", "rx_not_roce" },
	{ "echo reply", "rx_not_roce" },
	{ "first fragment", "rx_not_roce" },
	{ "later fragment", "rx_not_roce" },
	{ "total length beyond the frame", "rx_not_roce" },
	{ "total length below ICMP header", "rx_not_roce" },
	{ "IHL beyond the frame", "rx_not_roce" },
	{ "to another IPv4 address", "rx_not_roce" },
	{ "to the broadcast MAC", "rx_not_roce" },
	{ "to another MAC", "rx_not_roce" },
	{ "from 255.255.255.255", "rx_not_roce" },
	{ "from 0.0.0.0", "rx_not_roce" },
	{ "from 127.0.0.1", "rx_not_roce" },
	{ "ICMP header in the second segment", "rx_not_roce" },
	{ "cut in the IPv4 header", "rx_truncated" },
	{ "IPv6 version in IPv4", "rx_bad_header" },
	{ "IHL 4", "rx_bad_header" },
};

static struct echo_spec
echo_break(struct echo_spec e, unsigned int k)
{
	switch (k) {
	case 0: e.bad_ip_csum = true; break;
	case 1: e.bad_icmp_csum = true; break;
	case 2: e.type = 13; break;
	case 3: e.code = 1; break;
	case 4: e.type = 0; break;
	case 5: e.frag = 0x2000; break;
	case 6: e.frag = 0x0010; break;
	case 7: e.ip_len_add = 100; break;
	case 8: e.ip_len_add = -(int)(e.plen + 1); break;
	case 9: e.vhl_add = 10; break;
	case 10: e.dip = IP4(10, 0, 0, 3); break;
	case 11: e.eth_dst = mac_bcast; break;
	case 12: e.eth_dst = mac_other; break;
	case 13: e.sip = IP4(255, 255, 255, 255); break;
	case 14: e.sip = 0; break;
	case 15: e.sip = IP4(127, 0, 0, 1); break;
	case 16: e.seg = RTE_ETHER_HDR_LEN + 20 + 4; break;
	case 17: e.cut = RTE_ETHER_HDR_LEN + 10; break;
	case 18: e.vhl_add = 0x20; break;
	default: e.vhl_add = (uint8_t)-1; break;
	}
	return e;
}

static int
b_malformed(void)
{
	const rte_be32_t ip_x = IP4(10, 0, 0, 50);
	struct arp_spec ok = arp_spec(1, &mac_bcast, &mac_h, ip_x,
				      g_pair->ipv4[B]), a;
	struct rte_mbuf *out[MAX_FRAMES];
	struct rte_ether_addr mac;
	struct ndk_roce_pkt p;
	struct echo_spec e;
	int rc;

	for (unsigned int k = 0; k < RTE_DIM(arp_bad); k++) {
		a = arp_break(ok, k);
		if (ignored(mk_arp(&a), "rx_not_roce", arp_bad[k]) != 0)
			return -1;
	}
	/* None of them taught B where 10.0.0.50 is. */
	TEST_ASSERT_EQ(first_out(B, ip_x, &mac), 0, "learned from junk");
	for (unsigned int k = 0; k < RTE_DIM(icmp_bad); k++) {
		e = echo_break(echo_spec(8), k);
		if (ignored(mk_echo(&e), icmp_bad[k].c, icmp_bad[k].what) != 0)
			return -1;
	}
	/*
	 * A good request from 10.0.0.50 is answered, and releases the frame
	 * first_out() left waiting for it.
	 */
	if (to_b(mk_arp(&ok), out, 2, "good request") != 0)
		return -1;
	rc = check_arp(out[1], 2, &mac_h, &mac_h, ip_x, B);
	if (rc == 0 && (memcmp(rte_pktmbuf_mtod(out[0], void *), &mac_h, 6)
			!= 0 || ndk_roce_parse(out[0], &p, true) !=
			NDK_ROCE_PARSE_OK))
		rc = -1;
	rte_pktmbuf_free_bulk(out, 2);
	TEST_ASSERT(rc == 0, "reply, or the released frame");
	e = echo_spec(8);
	if (to_b(mk_echo(&e), out, 1, "good echo") != 0 ||
	    check_echo_reply(out[0], &e) != 0)
		return -1;
	rte_pktmbuf_free(out[0]);
	return 0;
}

/* ------------------------------------------------------------------ */
/* main                                                                */
/* ------------------------------------------------------------------ */

#define CASE_(name) \
	static int t_##name(void) { return run_case(b_##name); }
CASE_(arp_reply)
CASE_(arp_learning)
CASE_(icmp_echo)
CASE_(resolve)
CASE_(unresolved)
CASE_(malformed)
#undef CASE_

static const struct ndk_test_case cases[] = {
	{ "arp_reply", t_arp_reply },
	{ "arp_learning", t_arp_learning },
	{ "icmp_echo", t_icmp_echo },
	{ "resolve", t_resolve },
	{ "unresolved", t_unresolved },
	{ "malformed", t_malformed },
	{ "revalidate", t_revalidate },
};

int
main(int argc, char **argv)
{
	return neigh_main("neigh", cases, RTE_DIM(cases), argc, argv);
}
