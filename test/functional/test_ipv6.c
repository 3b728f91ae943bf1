/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * RoCEv2 over IPv6 between two swroce adapters on the net_ring pair:
 * neighbour discovery (solicitation, advertisement, learning, duplicate
 * address detection, malformed messages) and ICMPv6 echo, frame by frame
 * (neigh_common.c); then RC traffic (SEND,
 * WRITE, READ, SEND with Invalidate) and the connection manager over IPv6,
 * and dual-stack adapters taking both families.
 */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "ndk_roce.h"
#include "neigh_common.h"

#define ETH_IP6 0x86DD
#define L3 RTE_ETHER_HDR_LEN
#define L4 (RTE_ETHER_HDR_LEN + 40)

static const uint8_t ip_h[16] = { 0xfd, [15] = 0x99 };   /* foreign host */

/* ------------------------------------------------------------------ */
/* ICMPv6 frames, built and checked here                               */
/* ------------------------------------------------------------------ */

/* The ICMPv6 checksum of @p len bytes at @p icmp, from @p ip's header. */
static uint16_t
icmp6_sum(const uint8_t *ip, const uint8_t *icmp, uint32_t len)
{
	uint32_t s = 0;

	for (int i = 8; i < 40; i += 2)          /* source, destination */
		s += (uint32_t)ip[i] << 8 | ip[i + 1];
	s += len + 58;                           /* length, next header */
	for (uint32_t i = 0; i < len; i += 2)
		s += (uint32_t)icmp[i] << 8 | (i + 1 < len ? icmp[i + 1] : 0);
	while (s >> 16)
		s = (s & 0xFFFF) + (s >> 16);
	return (uint16_t)~s;
}

/* An ICMPv6 message from (smac, src) to (dmac, dst), checksum filled. */
static struct rte_mbuf *
mk_icmp6(const struct rte_ether_addr *dmac, const struct rte_ether_addr *smac,
	 const uint8_t src[16], const uint8_t dst[16], uint8_t hop,
	 const uint8_t *icmp, uint32_t len, bool bad_sum)
{
	static uint8_t f[2048];
	uint16_t c;

	memset(f, 0, L4);
	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	f[12] = 0x86;
	f[13] = 0xDD;
	f[L3] = 0x60;
	f[L3 + 4] = (uint8_t)(len >> 8);
	f[L3 + 5] = (uint8_t)len;
	f[L3 + 6] = 58;
	f[L3 + 7] = hop;
	memcpy(f + L3 + 8, src, 16);
	memcpy(f + L3 + 24, dst, 16);
	memcpy(f + L4, icmp, len);
	f[L4 + 2] = f[L4 + 3] = 0;
	c = icmp6_sum(f + L3, f + L4, len);
	if (bad_sum)
		c ^= 0x0100;
	f[L4 + 2] = (uint8_t)(c >> 8);
	f[L4 + 3] = (uint8_t)c;
	return mk_mbuf(f, RTE_MAX(L4 + len, (uint32_t)ETH_MIN), 0);
}

/* A neighbour solicitation for @p target, with a source LLA if @p slla. */
static struct rte_mbuf *
mk_ns(const struct rte_ether_addr *dmac, const uint8_t src[16],
      const uint8_t dst[16], const uint8_t target[16], bool slla, uint8_t hop,
      bool bad_sum)
{
	uint8_t m[32] = { 135 };

	memcpy(m + 8, target, 16);
	m[24] = 1;
	m[25] = 1;
	memcpy(m + 26, &mac_h, 6);
	return mk_icmp6(dmac, &mac_h, src, dst, hop, m, slla ? 32 : 24,
			bad_sum);
}

/* The solicited-node group of @p a and its MAC. */
static void
sol_node(const uint8_t a[16], uint8_t g[16], struct rte_ether_addr *mac)
{
	static const uint8_t pfx[13] = { 0xff, 0x02, [11] = 1, 0xff };

	memcpy(g, pfx, 13);
	memcpy(g + 13, a + 13, 3);
	mac->addr_bytes[0] = 0x33;
	mac->addr_bytes[1] = 0x33;
	memcpy(&mac->addr_bytes[2], g + 12, 4);
}

/*
 * @p m is an ICMPv6 message of @p type from adapter @p from, to @p dmac and
 * @p dst, hop limit @p hop, with a correct checksum; its body at *@p body.
 */
static int
check_icmp6(struct rte_mbuf *m, int from, const struct rte_ether_addr *dmac,
	    const uint8_t dst[16], uint8_t type, uint8_t hop,
	    const uint8_t **body, uint32_t *len)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);

	TEST_ASSERT(memcmp(d, dmac, 6) == 0, "destination MAC");
	TEST_ASSERT(memcmp(d + 6, &mac_ad[from], 6) == 0, "source MAC");
	TEST_ASSERT_EQ(get16(d + 12), ETH_IP6, "EtherType");
	TEST_ASSERT_EQ(d[L3] >> 4, 6, "version");
	TEST_ASSERT_EQ(d[L3 + 6], 58, "ICMPv6");
	TEST_ASSERT_EQ(d[L3 + 7], hop, "hop limit");
	TEST_ASSERT(memcmp(d + L3 + 8, g_pair->ipv6[from], 16) == 0, "source");
	TEST_ASSERT(memcmp(d + L3 + 24, dst, 16) == 0, "destination");
	*len = get16(d + L3 + 4);
	TEST_ASSERT(rte_pktmbuf_data_len(m) >= L4 + *len, "length");
	TEST_ASSERT_EQ(d[L4], type, "type");
	TEST_ASSERT_EQ(d[L4 + 1], 0, "code");
	TEST_ASSERT_EQ(icmp6_sum(d + L3, d + L4, *len), 0, "checksum");
	*body = d + L4;
	return 0;
}

/* An NA from @p from for its own address: flags, target, TLLA. */
static int
check_na(struct rte_mbuf *m, int from, const struct rte_ether_addr *dmac,
	 const uint8_t dst[16], uint8_t flags)
{
	const uint8_t *b;
	uint32_t len;

	if (check_icmp6(m, from, dmac, dst, 136, 255, &b, &len) != 0)
		return -1;
	TEST_ASSERT_EQ(len, 32u, "NA with one option");
	TEST_ASSERT_EQ(b[4], flags, "NA flags");
	TEST_ASSERT(memcmp(b + 8, g_pair->ipv6[from], 16) == 0, "target");
	TEST_ASSERT(b[24] == 2 && b[25] == 1 &&
		    memcmp(b + 26, &mac_ad[from], 6) == 0, "TLLA");
	return 0;
}

/* ------------------------------------------------------------------ */
/* Neighbour discovery, frame by frame                                 */
/* ------------------------------------------------------------------ */

/* Connect side @p s of @p c over IPv6 to the other side, MAC unknown. */
static ndk_status_t
connect6(struct ndk_pair_conn *c, int s, const uint8_t ip[16])
{
	struct ndk_qp_attr a;

	memset(&a, 0, sizeof(a));
	memcpy(a.dest_ip6, ip, 16);
	a.dest_qpn = c->qpn[1 - s];
	a.rq_psn = c->sq_psn[1 - s];
	a.sq_psn = c->sq_psn[s];
	return ndk_qp_connect(c->qp[s], &a);
}

/* A resolves B by a solicitation, B answers, the held frame goes. */
static int
b_nd_resolve(void)
{
	struct ndk_pair_conn_opts o = { .no_connect = true, .inline_size = 64 };
	struct ndk_pair_conn *c = ndk_pair_conn_create(g_pair, &o, NULL);
	struct rte_mbuf *f[MAX_FRAMES], *na[MAX_FRAMES];
	struct rte_ether_addr gmac;
	uint8_t group[16];
	const uint8_t *b;
	uint32_t len;
	unsigned int n;
	struct snap s0;
	struct ndk_pair_buf *rb;
	struct ndk_result_ex r;
	struct ndk_sge sg;

	TEST_ASSERT(c != NULL, "connection");
	snap_take(&s0);
	TEST_ASSERT_EQ(connect6(c, A, g_pair->ipv6[B]), NDK_STATUS_SUCCESS, "");
	/* The modify asked at once: one NS to B's solicited-node group. */
	n = poll_take(A, f);
	TEST_ASSERT_EQ(n, 1u, "A's solicitation");
	sol_node(g_pair->ipv6[B], group, &gmac);
	if (check_icmp6(f[0], A, &gmac, group, 135, 255, &b, &len) != 0)
		return -1;
	TEST_ASSERT_EQ(len, 32u, "NS with SLLA");
	TEST_ASSERT(memcmp(b + 8, g_pair->ipv6[B], 16) == 0, "NS target");
	TEST_ASSERT(b[24] == 1 && b[25] == 1 &&
		    memcmp(b + 26, &mac_ad[A], 6) == 0, "SLLA");
	/* B answers A's solicitation and learns A from it. */
	TEST_ASSERT(give(B, f, 1) == 0, "");
	poll_ad(B);
	n = take(B, na);
	TEST_ASSERT_EQ(n, 1u, "B's advertisement");
	if (check_na(na[0], B, &mac_ad[A], g_pair->ipv6[A], 0x60) != 0)
		return -1;
	/* B knows A now: its QP needs no solicitation of its own. */
	TEST_ASSERT_EQ(connect6(c, B, g_pair->ipv6[A]), NDK_STATUS_SUCCESS, "");
	poll_ad(B);
	TEST_ASSERT_EQ(take(B, f), 0u, "B solicited a known neighbour");
	TEST_ASSERT(give(A, na, n) == 0, "");
	TEST_ASSERT_EQ(delta(&s0, B, "nd_solicits_rcvd"), 1, "");
	TEST_ASSERT_EQ(delta(&s0, B, "nd_adverts_sent"), 1, "");
	/* A learns B from the NA; a SEND goes straight to B's MAC. */
	poll_ad(A);
	TEST_ASSERT_EQ(delta(&s0, A, "nd_adverts_rcvd"), 1, "");
	rb = ndk_pair_buf_alloc(g_pair, c->pd[B], 64,
				 NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	TEST_ASSERT(rb != NULL, "");
	sg = ndk_pair_sge(rb, 0, 64);
	TEST_ASSERT_EQ(ndk_receive(c->qp[B], (void *)9, &sg, 1),
		       NDK_STATUS_SUCCESS, "");
	TEST_ASSERT_EQ(send_inline(c->qp[A], (void *)8), NDK_STATUS_SUCCESS,
		       "");
	n = poll_take(A, f);
	TEST_ASSERT_EQ(n, 1u, "A's SEND");
	if (get16(rte_pktmbuf_mtod(f[0], const uint8_t *) + 12) != ETH_IP6 ||
	    check_roce(f[0], A) != 0) {
		rte_pktmbuf_free(f[0]);
		TEST_FAIL("A's SEND is not an IPv6 RoCEv2 frame to B");
	}
	TEST_ASSERT(give(B, f, 1) == 0, "");
	TEST_ASSERT(pump(c->rcq[B], &r, 1, WAIT_S) == 1 &&
		    r.status == NDK_STATUS_SUCCESS && r.bytes_transferred == 32,
		    "B's receive");
	TEST_ASSERT(pump(c->icq[A], &r, 1, WAIT_S) == 1 &&
		    r.status == NDK_STATUS_SUCCESS, "A's send");
	ndk_pair_buf_free(rb);
	TEST_ASSERT_EQ(delta(&s0, A, "nd_solicits_sent"), 1, "");
	TEST_ASSERT_EQ(delta(&s0, B, "nd_solicits_sent"), 0, "");
	TEST_ASSERT(traffic(c, 3000, 61) == 0, "traffic over IPv6");
	TEST_ASSERT(traffic(c, 17, 62) == 0, "traffic over IPv6");
	ndk_pair_conn_destroy(c);
	return 0;
}

/* Solicitations from a foreign host, good and bad; echo. */
static int
b_nd_answer(void)
{
	static const uint8_t unspec[16];
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 1 };
	const struct rte_ether_addr all_mac = {{ 0x33, 0x33, 0, 0, 0, 1 }};
	struct rte_ether_addr gmac;
	struct rte_mbuf *out[MAX_FRAMES];
	uint8_t group[16], other[16];
	struct snap s0;

	sol_node(g_pair->ipv6[B], group, &gmac);
	memcpy(other, g_pair->ipv6[B], 16);
	other[15] ^= 0x40;
	snap_take(&s0);
	/* To the group and unicast: answered, solicited. */
	if (to_b(mk_ns(&gmac, ip_h, group, g_pair->ipv6[B], true, 255, false),
		 out, 1, "NS to the group") != 0 ||
	    check_na(out[0], B, &mac_h, ip_h, 0x60) != 0)
		return -1;
	rte_pktmbuf_free(out[0]);
	if (to_b(mk_ns(&mac_ad[B], ip_h, g_pair->ipv6[B], g_pair->ipv6[B],
		       false, 255, false), out, 1, "NS unicast, no SLLA") != 0 ||
	    check_na(out[0], B, &mac_h, ip_h, 0x60) != 0)
		return -1;
	rte_pktmbuf_free(out[0]);
	/* Duplicate address detection: to all nodes, not solicited. */
	if (to_b(mk_ns(&gmac, unspec, group, g_pair->ipv6[B], false, 255,
		       false), out, 1, "DAD NS") != 0 ||
	    check_na(out[0], B, &all_mac, all_nodes, 0x20) != 0)
		return -1;
	rte_pktmbuf_free(out[0]);
	/* Refused: forwarded (hop limit), bad checksum, other target. */
	if (to_b(mk_ns(&gmac, ip_h, group, g_pair->ipv6[B], true, 64, false),
		 out, 0, "hop limit 64") != 0 ||
	    to_b(mk_ns(&gmac, ip_h, group, g_pair->ipv6[B], true, 255, true),
		 out, 0, "bad checksum") != 0 ||
	    to_b(mk_ns(&gmac, ip_h, group, other, true, 255, false), out, 0,
		 "other target") != 0 ||
	    to_b(mk_ns(&gmac, unspec, group, g_pair->ipv6[B], true, 255,
		       false), out, 0, "SLLA from ::") != 0)
		return -1;
	TEST_ASSERT_EQ(delta(&s0, B, "nd_solicits_rcvd"), 3, "");
	TEST_ASSERT_EQ(delta(&s0, B, "nd_adverts_sent"), 3, "");
	return 0;
}

/* B learned the host from its solicitation: no NS before the RoCE frame. */
static int
b_nd_learned(void)
{
	struct ndk_pair_conn_opts o = { .no_connect = true, .inline_size = 64 };
	struct rte_ether_addr gmac;
	struct rte_mbuf *out[MAX_FRAMES];
	struct ndk_pair_conn *c;
	uint8_t group[16];
	const uint8_t *d;
	unsigned int n;

	sol_node(g_pair->ipv6[B], group, &gmac);
	if (to_b(mk_ns(&gmac, ip_h, group, g_pair->ipv6[B], true, 255, false),
		 out, 1, "NS") != 0)
		return -1;
	rte_pktmbuf_free(out[0]);
	c = ndk_pair_conn_create(g_pair, &o, NULL);
	TEST_ASSERT(c != NULL, "");
	TEST_ASSERT_EQ(connect6(c, B, ip_h), NDK_STATUS_SUCCESS, "");
	TEST_ASSERT_EQ(send_inline(c->qp[B], NULL), NDK_STATUS_SUCCESS, "");
	n = poll_take(B, out);
	TEST_ASSERT_EQ(n, 1u, "one frame");
	d = rte_pktmbuf_mtod(out[0], const uint8_t *);
	TEST_ASSERT(memcmp(d, &mac_h, 6) == 0 && get16(d + 12) == ETH_IP6 &&
		    memcmp(d + L3 + 24, ip_h, 16) == 0, "RoCE to the host");
	rte_pktmbuf_free(out[0]);
	ndk_pair_conn_destroy(c);
	return 0;
}

/* ICMPv6 echo: answered with the same identifier, sequence and data. */
static int
b_icmp6_echo(void)
{
	uint8_t req[8 + 300], other[16];
	struct rte_mbuf *out[MAX_FRAMES];
	const uint8_t *b;
	uint32_t len;
	struct snap s0;

	memset(req, 0, sizeof(req));
	req[0] = 128;
	req[4] = 0x12;            /* identifier 0x1234, sequence 7 */
	req[5] = 0x34;
	req[7] = 7;
	for (unsigned int i = 8; i < sizeof(req); i++)
		req[i] = (uint8_t)(i * 13);
	snap_take(&s0);
	if (to_b(mk_icmp6(&mac_ad[B], &mac_h, ip_h, g_pair->ipv6[B], 64, req,
			  sizeof(req), false), out, 1, "echo") != 0 ||
	    check_icmp6(out[0], B, &mac_h, ip_h, 129, 64, &b, &len) != 0)
		return -1;
	TEST_ASSERT_EQ(len, (uint32_t)sizeof(req), "");
	TEST_ASSERT(memcmp(b + 4, req + 4, sizeof(req) - 4) == 0, "echoed");
	rte_pktmbuf_free(out[0]);
	TEST_ASSERT_EQ(delta(&s0, B, "icmp6_echo_replied"), 1, "");
	memcpy(other, g_pair->ipv6[B], 16);
	other[15] ^= 0x40;
	if (to_b(mk_icmp6(&mac_ad[B], &mac_h, ip_h, other, 64, req,
			  sizeof(req), false), out, 0, "not ours") != 0 ||
	    to_b(mk_icmp6(&mac_ad[B], &mac_h, ip_h, g_pair->ipv6[B], 64, req,
			  sizeof(req), true), out, 0, "bad checksum") != 0)
		return -1;
	return 0;
}

/* An IPv4-only adapter ignores ND; an IPv6-only one ARP. */
static int
b_family_only(void)
{
	struct rte_mbuf *out[MAX_FRAMES];
	struct arp_spec a;

	a = arp_spec(1, &mac_bcast, &mac_h, IP4(10, 0, 0, 99),
		     IP4(10, 0, 0, 2));
	return to_b(mk_arp(&a), out, 0, "ARP on IPv6-only") != 0 ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* RC traffic and the CM over IPv6, dual stack                        */
/* ------------------------------------------------------------------ */

#define PORT6 7176

struct req {
	int done;
	ndk_status_t st;
};

static void
req_done(void *ctx, ndk_status_t st)
{
	struct req *r = ctx;

	r->st = st;
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
}

static struct ndk_connector *g_incoming;

static void
connect_event(void *ctx, struct ndk_connector *c)
{
	RTE_SET_USED(ctx);
	__atomic_store_n(&g_incoming, c, __ATOMIC_RELEASE);
}

/* The pairs have no pollers: the test thread polls both adapters. */
static void
pump_both(void)
{
	poll_ad(A);
	poll_ad(B);
}

static int
wait_req(struct req *r, ndk_status_t want, const char *what)
{
	double t0 = ndk_pair_now();

	while (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE)) {
		TEST_ASSERT(ndk_pair_now() - t0 < WAIT_S, "%s: no completion",
			    what);
		pump_both();
	}
	TEST_ASSERT_EQ(r->st, want, "%s: %s", what, ndk_status_str(r->st));
	return 0;
}

static union ndk_sockaddr
sa6(const uint8_t ip[16], uint16_t port)
{
	union ndk_sockaddr a;

	memset(&a, 0, sizeof(a));
	a.sin6.sin6_family = AF_INET6;
	memcpy(&a.sin6.sin6_addr, ip, 16);
	a.sin6.sin6_port = htons(port);
	return a;
}

static union ndk_sockaddr
sa4(uint32_t ip, uint16_t port)
{
	union ndk_sockaddr a;

	memset(&a, 0, sizeof(a));
	a.sin.sin_family = AF_INET;
	a.sin.sin_addr.s_addr = ip;
	a.sin.sin_port = htons(port);
	return a;
}

static socklen_t
sa_len(const union ndk_sockaddr *a)
{
	return a->sa.sa_family == AF_INET6 ? sizeof(a->sin6) : sizeof(a->sin);
}

/* Both addresses of a connector are @p local and @p peer (exactly). */
static int
check_addrs(struct ndk_connector *c, const union ndk_sockaddr *local,
	    const union ndk_sockaddr *peer, bool any_port)
{
	union ndk_sockaddr got;
	socklen_t len = sizeof(struct sockaddr_in);

	if (local->sa.sa_family == AF_INET6) {
		/* A sockaddr_in buffer is too small for an IPv6 address. */
		TEST_ASSERT_EQ(ndk_get_local_address(c, &got.sa, &len),
			       NDK_STATUS_BUFFER_TOO_SMALL, "");
		TEST_ASSERT_EQ(len, (socklen_t)sizeof(struct sockaddr_in6), "");
	}
	len = sizeof(got);
	TEST_ASSERT_EQ(ndk_get_local_address(c, &got.sa, &len),
		       NDK_STATUS_SUCCESS, "");
	TEST_ASSERT_EQ(len, sa_len(local), "local length");
	if (any_port) {
		if (got.sa.sa_family == AF_INET6)
			got.sin6.sin6_port = local->sin6.sin6_port;
		else
			got.sin.sin_port = local->sin.sin_port;
	}
	TEST_ASSERT(memcmp(&got, local, len) == 0, "local address");
	len = sizeof(got);
	TEST_ASSERT_EQ(ndk_get_peer_address(c, &got.sa, &len),
		       NDK_STATUS_SUCCESS, "");
	TEST_ASSERT_EQ(len, sa_len(peer), "peer length");
	if (!any_port)
		TEST_ASSERT(memcmp(&got, peer, len) == 0, "peer address");
	else
		TEST_ASSERT(got.sa.sa_family == peer->sa.sa_family &&
			    (got.sa.sa_family == AF_INET ?
			     got.sin.sin_addr.s_addr == peer->sin.sin_addr.s_addr :
			     memcmp(&got.sin6.sin6_addr, &peer->sin6.sin6_addr,
				    16) == 0), "peer address");
	return 0;
}

/*
 * Connect B (from @p src, or from shared endpoint @p sep whose address
 * @p src is) to A's listener at @p dst over @p c's QPs (in INIT), check
 * the addresses both ends report, run traffic, disconnect. @p want: the
 * connect's status (CONNECTION_REFUSED: nobody takes it).
 */
static int
cm_once(struct ndk_pair *p, struct ndk_pair_conn *c,
	const union ndk_sockaddr *src, const union ndk_sockaddr *dst,
	ndk_status_t want, struct ndk_shared_endpoint *sep)
{
	struct ndk_connector *cb = NULL, *ca;
	struct req r1 = { 0 }, r2 = { 0 }, r3 = { 0 }, r4 = { 0 };
	union ndk_sockaddr peer_of_a;
	double t0;

	g_incoming = NULL;
	TEST_ASSERT_EQ(ndk_create_connector(p->ad[B], &cb), NDK_STATUS_SUCCESS,
		       "");
	if (sep != NULL)
		TEST_ASSERT_EQ(ndk_connect_with_shared_endpoint(cb, c->qp[B],
					sep, &dst->sa, sa_len(dst), 1, 1,
					"v6", 2, req_done, &r1),
			       NDK_STATUS_PENDING, "through the endpoint");
	else
		TEST_ASSERT_EQ(ndk_connect(cb, c->qp[B], &src->sa,
					   sa_len(src), &dst->sa, sa_len(dst),
					   1, 1, "v6", 2, req_done, &r1),
			       NDK_STATUS_PENDING, "");
	if (want != NDK_STATUS_SUCCESS) {
		if (wait_req(&r1, want, "refused connect") != 0)
			return -1;
		ndk_close_connector(cb, NULL, NULL);
		return 0;
	}
	t0 = ndk_pair_now();
	while ((ca = __atomic_load_n(&g_incoming, __ATOMIC_ACQUIRE)) == NULL) {
		TEST_ASSERT(ndk_pair_now() - t0 < WAIT_S, "no connect event");
		pump_both();
	}
	TEST_ASSERT_EQ(ndk_accept(ca, c->qp[A], 1, 1, NULL, 0, NULL, NULL,
				  req_done, &r2), NDK_STATUS_PENDING, "");
	if (wait_req(&r1, NDK_STATUS_SUCCESS, "connect") != 0)
		return -1;
	TEST_ASSERT_EQ(ndk_complete_connect(cb, NULL, NULL, req_done, &r3),
		       NDK_STATUS_PENDING, "");
	if (wait_req(&r3, NDK_STATUS_SUCCESS, "complete") != 0 ||
	    wait_req(&r2, NDK_STATUS_SUCCESS, "accept") != 0)
		return -1;
	/* The active side picked an ephemeral port: compare addresses only. */
	peer_of_a = *src;
	if (peer_of_a.sa.sa_family == AF_INET6 &&
	    IN6_IS_ADDR_UNSPECIFIED(&peer_of_a.sin6.sin6_addr))
		memcpy(&peer_of_a.sin6.sin6_addr, p->ipv6[B], 16);
	if (check_addrs(cb, &peer_of_a, dst, true) != 0 ||
	    check_addrs(ca, dst, &peer_of_a, true) != 0)
		return -1;
	TEST_ASSERT(traffic(c, 5000, 71) == 0, "traffic");
	TEST_ASSERT_EQ(ndk_disconnect(cb, req_done, &r4), NDK_STATUS_PENDING,
		       "");
	if (wait_req(&r4, NDK_STATUS_SUCCESS, "disconnect") != 0)
		return -1;
	ndk_close_connector(cb, NULL, NULL);
	ndk_close_connector(ca, NULL, NULL);
	return 0;
}

/* A pair (polled by the test thread) with adapters of @p families. */
static struct ndk_pair *
pair_up(unsigned int families)
{
	struct ndk_pair_config pc = { .families = families,
				      .no_pollers = true };

	return ndk_pair_create(&pc);
}

/*
 * SEND, WRITE and READ over IPv6 with static MACs, on one queue per
 * adapter or on two crossed ones (@p nq 2: every frame arrives on the
 * queue that does not serve its QP and is steered by its IPv6 header).
 */
static int
rc_ipv6(uint16_t nq)
{
	struct ndk_pair_config pc = { .families = NDK_PAIR_IPV6,
				      .no_pollers = true, .nb_queues = nq,
				      .cross_queues = nq > 1 };
	struct ndk_pair_conn_opts o = { .ipv6 = true };
	struct ndk_pair_conn *c;
	struct ndk_qp_info qi;
	struct snap s0;
	int rc = -1;

	g_pair = ndk_pair_create(&pc);
	TEST_ASSERT(g_pair != NULL, "pair");
	snap_take(&s0);
	c = ndk_pair_conn_create(g_pair, &o, NULL);
	if (c == NULL || traffic(c, 1, 81) != 0 || traffic(c, 9000, 82) != 0)
		goto out;
	if (nq > 1 && delta(&s0, B, "rx_steered_out") == 0) {
		fprintf(stderr, "  FAIL: nothing steered between queues\n");
		goto out;
	}
	if (ndk_qp_query_info(g_pair->ad[A], c->qpn[A], &qi) !=
	    NDK_STATUS_SUCCESS || qi.dest_ip != 0 ||
	    memcmp(qi.dest_ip6, g_pair->ipv6[B], 16) != 0) {
		fprintf(stderr, "  FAIL: QP info: peer not fd00::2\n");
		goto out;
	}
	rc = 0;
out:
	if (c != NULL)
		ndk_pair_conn_destroy(c);
	ndk_pair_destroy(g_pair);
	g_pair = NULL;
	return rc;
}

static int
t_rc_ipv6(void)
{
	return rc_ipv6(1);
}

static int
t_rc_ipv6_2q(void)
{
	return rc_ipv6(2);
}

/* One completion on @p cq: its type and status. */
static int
one(struct ndk_cq *cq, enum ndk_operation_type type, ndk_status_t st,
    struct ndk_result_ex *r, const char *what)
{
	char d[200];

	TEST_ASSERT(pump(cq, r, 1, WAIT_S) == 1, "%s: no completion", what);
	ndk_pair_result_str(r, d, sizeof(d));
	TEST_ASSERT(r->type == type && r->status == st, "%s: %s", what, d);
	return 0;
}

/*
 * Tokens over IPv6: B fast-registers a page, A writes into it through the
 * token, then SENDs with Invalidate of that token; B's receive reports the
 * token invalidated, and A's next WRITE through it fails (remote access).
 */
static int
t_send_inv_ipv6(void)
{
	struct ndk_pair_conn_opts o = { .ipv6 = true };
	struct ndk_pair_buf *src = NULL, *rcv = NULL;
	struct ndk_pair_conn *c = NULL;
	struct ndk_mr *mr = NULL;
	struct ndk_result_ex r;
	uint64_t page, base = NDK_PAGE_SIZE;
	uint8_t *mem = NULL;
	struct ndk_sge s;
	uint32_t tok;
	ndk_status_t st;
	int rc = -1;

	g_pair = pair_up(NDK_PAIR_IPV6);
	TEST_ASSERT(g_pair != NULL, "pair");
	c = ndk_pair_conn_create(g_pair, &o, NULL);
	mem = rte_zmalloc("ipv6_frmr", NDK_PAGE_SIZE, NDK_PAGE_SIZE);
	if (c == NULL || mem == NULL) {
		fprintf(stderr, "  FAIL: connection or page\n");
		goto out;
	}
	src = ndk_pair_buf_alloc(g_pair, c->pd[A], 256, 0);
	rcv = ndk_pair_buf_alloc(g_pair, c->pd[B], 256,
				 NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	if (src == NULL || rcv == NULL ||
	    ndk_create_mr(c->pd[B], true, &mr) != NDK_STATUS_SUCCESS ||
	    ndk_initialize_fast_register_mr(mr, 1, true) != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "  FAIL: buffers or fast-register MR\n");
		goto out;
	}
	page = (uint64_t)(uintptr_t)mem;
	st = ndk_fast_register(c->qp[B], (void *)1, mr, 1, &page, 0,
			       NDK_PAGE_SIZE, base,
			       NDK_OP_FLAG_ALLOW_REMOTE_WRITE |
			       NDK_OP_FLAG_ALLOW_LOCAL_WRITE);
	if (st != NDK_STATUS_SUCCESS ||
	    one(c->icq[B], NDK_OP_FAST_REGISTER, NDK_STATUS_SUCCESS, &r,
		"fast register") != 0) {
		fprintf(stderr, "  FAIL: fast register: %s\n",
			ndk_status_str(st));
		goto out;
	}
	tok = ndk_mr_remote_token(mr);
	ndk_pair_fill(src->data, 256, 7);
	s = ndk_pair_sge(src, 0, 256);
	if (ndk_write(c->qp[A], (void *)2, &s, 1, base + 100, tok, 0) !=
	    NDK_STATUS_SUCCESS ||
	    one(c->icq[A], NDK_OP_WRITE, NDK_STATUS_SUCCESS, &r, "write") != 0 ||
	    ndk_pair_check(mem + 100, 256, 7) >= 0) {
		fprintf(stderr, "  FAIL: WRITE through the token\n");
		goto out;
	}
	s = ndk_pair_sge(rcv, 0, 256);
	if (ndk_receive(c->qp[B], (void *)3, &s, 1) != NDK_STATUS_SUCCESS)
		goto out;
	s = ndk_pair_sge(src, 0, 64);
	if (ndk_send_and_invalidate(c->qp[A], (void *)4, &s, 1, 0, tok) !=
	    NDK_STATUS_SUCCESS ||
	    one(c->icq[A], NDK_OP_SEND, NDK_STATUS_SUCCESS, &r, "send+inv") != 0 ||
	    one(c->rcq[B], NDK_OP_RECEIVE_AND_INVALIDATE, NDK_STATUS_SUCCESS,
		&r, "receive+inv") != 0)
		goto out;
	if (r.type_specific != tok || r.bytes_transferred != 64) {
		fprintf(stderr, "  FAIL: invalidated %#lx (want %#x), %u B\n",
			(unsigned long)r.type_specific, tok,
			r.bytes_transferred);
		goto out;
	}
	/* The token is dead: a WRITE through it is refused by B. */
	s = ndk_pair_sge(src, 0, 256);
	if (ndk_write(c->qp[A], (void *)5, &s, 1, base, tok, 0) !=
	    NDK_STATUS_SUCCESS ||
	    pump(c->icq[A], &r, 1, WAIT_S) != 1 ||
	    r.status == NDK_STATUS_SUCCESS) {
		fprintf(stderr, "  FAIL: a WRITE through the invalidated token "
			"succeeded\n");
		goto out;
	}
	rc = 0;
out:
	if (mr != NULL)
		ndk_close_mr(mr, NULL, NULL);
	if (src != NULL)
		ndk_pair_buf_free(src);
	if (rcv != NULL)
		ndk_pair_buf_free(rcv);
	if (c != NULL)
		ndk_pair_conn_destroy(c);
	rte_free(mem);
	ndk_pair_destroy(g_pair);
	g_pair = NULL;
	return rc;
}

/* The CM over IPv6; addresses an adapter does not have are refused. */
static int
t_cm_ipv6(void)
{
	static const uint8_t any6[16];
	struct ndk_pair_conn_opts o = { .no_connect = true };
	struct ndk_listener *l = NULL;
	struct ndk_pair_conn *c = NULL;
	struct ndk_connector *cb = NULL;
	union ndk_sockaddr la, src, dst, got;
	struct ndk_shared_endpoint *sep = NULL;
	socklen_t len = sizeof(got);
	struct req r = { 0 };
	int rc = -1;

	g_pair = pair_up(NDK_PAIR_IPV6);
	TEST_ASSERT(g_pair != NULL, "pair");
	la = sa6(any6, PORT6);
	if (ndk_create_listener(g_pair->ad[A], connect_event, NULL, &l) !=
	    NDK_STATUS_SUCCESS || ndk_listen(l, &la.sa, sa_len(&la)) !=
	    NDK_STATUS_SUCCESS)
		goto out;
	if (ndk_listener_get_local_address(l, &got.sa, &len) !=
	    NDK_STATUS_SUCCESS || len != sizeof(got.sin6) ||
	    memcmp(&got.sin6, &la.sin6, sizeof(la.sin6)) != 0) {
		fprintf(stderr, "  FAIL: listener address\n");
		goto out;
	}
	c = ndk_pair_conn_create(g_pair, &o, NULL);
	if (c == NULL)
		goto out;
	src = sa6(any6, 0);
	dst = sa6(g_pair->ipv6[A], PORT6);
	if (cm_once(g_pair, c, &src, &dst, NDK_STATUS_SUCCESS, NULL) != 0)
		goto out;
	ndk_pair_conn_destroy(c);
	/* Twice through one IPv6 shared endpoint (the address is B's). */
	len = sizeof(got);
	if (ndk_create_shared_endpoint(g_pair->ad[B], &src.sa, sa_len(&src),
				       &sep) != NDK_STATUS_SUCCESS ||
	    ndk_shared_endpoint_get_local_address(sep, &got.sa, &len) !=
	    NDK_STATUS_SUCCESS || len != sizeof(got.sin6) ||
	    memcmp(&got.sin6.sin6_addr, g_pair->ipv6[B], 16) != 0) {
		fprintf(stderr, "  FAIL: IPv6 shared endpoint\n");
		goto out;
	}
	for (int i = 0; i < 2; i++) {
		c = ndk_pair_conn_create(g_pair, &o, NULL);
		if (c == NULL || cm_once(g_pair, c, &got, &dst,
					 NDK_STATUS_SUCCESS, sep) != 0)
			goto out;
		ndk_pair_conn_destroy(c);
	}
	c = NULL;
	if (ndk_close_shared_endpoint(sep, NULL, NULL) != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "  FAIL: endpoint not free after its "
			"connectors closed\n");
		goto out;
	}
	/* No IPv4 on these adapters; an IPv4 peer cannot be reached. */
	c = ndk_pair_conn_create(g_pair, &o, NULL);
	if (c == NULL || ndk_create_connector(g_pair->ad[B], &cb) !=
	    NDK_STATUS_SUCCESS)
		goto out;
	src = sa4(INADDR_ANY, 0);
	dst = sa4(IP4(10, 0, 0, 1), PORT6);
	if (ndk_connect(cb, c->qp[B], &src.sa, sa_len(&src), &dst.sa,
			sa_len(&dst), 1, 1, NULL, 0, req_done, &r) !=
	    NDK_STATUS_INVALID_ADDRESS) {
		fprintf(stderr, "  FAIL: IPv4 connect on an IPv6 adapter\n");
		goto out;
	}
	/* Mixed families, and a source that is not ours. */
	src = sa4(INADDR_ANY, 0);
	dst = sa6(g_pair->ipv6[A], PORT6);
	if (ndk_connect(cb, c->qp[B], &src.sa, sa_len(&src), &dst.sa,
			sa_len(&dst), 1, 1, NULL, 0, req_done, &r) !=
	    NDK_STATUS_INVALID_ADDRESS) {
		fprintf(stderr, "  FAIL: mixed families accepted\n");
		goto out;
	}
	src = sa6(g_pair->ipv6[A], 0);
	if (ndk_connect(cb, c->qp[B], &src.sa, sa_len(&src), &dst.sa,
			sa_len(&dst), 1, 1, NULL, 0, req_done, &r) !=
	    NDK_STATUS_INVALID_ADDRESS) {
		fprintf(stderr, "  FAIL: foreign source accepted\n");
		goto out;
	}
	rc = 0;
out:
	if (cb != NULL)
		ndk_close_connector(cb, NULL, NULL);
	if (c != NULL)
		ndk_pair_conn_destroy(c);
	if (l != NULL)
		ndk_close_listener(l, NULL, NULL);
	ndk_pair_destroy(g_pair);
	g_pair = NULL;
	return rc;
}

/*
 * Dual-stack adapters: an IPv6 wildcard listener takes both families, an
 * IPv4 one only IPv4 (an IPv6 request is rejected), and traffic runs on
 * connections of both families side by side.
 */
static int
t_dual_stack(void)
{
	static const uint8_t any6[16];
	struct ndk_pair_conn_opts o = { .no_connect = true };
	struct ndk_listener *l = NULL, *l4 = NULL;
	struct ndk_pair_conn *c = NULL;
	union ndk_sockaddr la, src, dst;
	int rc = -1;

	g_pair = pair_up(NDK_PAIR_IPV4 | NDK_PAIR_IPV6);
	TEST_ASSERT(g_pair != NULL, "pair");
	la = sa6(any6, PORT6);
	if (ndk_create_listener(g_pair->ad[A], connect_event, NULL, &l) !=
	    NDK_STATUS_SUCCESS || ndk_listen(l, &la.sa, sa_len(&la)) !=
	    NDK_STATUS_SUCCESS)
		goto out;
	for (int fam = 0; fam < 2; fam++) {
		c = ndk_pair_conn_create(g_pair, &o, NULL);
		if (c == NULL)
			goto out;
		if (fam == 0) {
			src = sa4(g_pair->ipv4[B], 0);
			dst = sa4(g_pair->ipv4[A], PORT6);
		} else {
			src = sa6(g_pair->ipv6[B], 0);
			dst = sa6(g_pair->ipv6[A], PORT6);
		}
		if (cm_once(g_pair, c, &src, &dst, NDK_STATUS_SUCCESS, NULL) != 0)
			goto out;
		ndk_pair_conn_destroy(c);
		c = NULL;
	}
	/* Both families at once, raw QPs. */
	{
		struct ndk_pair_conn_opts o4 = { 0 }, o6 = { .ipv6 = true };
		struct ndk_pair_conn *c4 = ndk_pair_conn_create(g_pair, &o4,
								NULL);
		struct ndk_pair_conn *c6 = ndk_pair_conn_create(g_pair, &o6,
								NULL);
		int bad = c4 == NULL || c6 == NULL ||
			traffic(c4, 2000, 91) != 0 ||
			traffic(c6, 2000, 92) != 0;

		if (c4 != NULL)
			ndk_pair_conn_destroy(c4);
		if (c6 != NULL)
			ndk_pair_conn_destroy(c6);
		if (bad)
			goto out;
	}
	/* An IPv4 wildcard listener does not take IPv6 requests. */
	ndk_close_listener(l, NULL, NULL);
	l = NULL;
	la = sa4(INADDR_ANY, PORT6);
	if (ndk_create_listener(g_pair->ad[A], connect_event, NULL, &l4) !=
	    NDK_STATUS_SUCCESS || ndk_listen(l4, &la.sa, sa_len(&la)) !=
	    NDK_STATUS_SUCCESS)
		goto out;
	c = ndk_pair_conn_create(g_pair, &o, NULL);
	src = sa6(any6, 0);
	dst = sa6(g_pair->ipv6[A], PORT6);
	if (c == NULL ||
	    cm_once(g_pair, c, &src, &dst, NDK_STATUS_CONNECTION_REFUSED,
		    NULL) != 0)
		goto out;
	rc = 0;
out:
	if (c != NULL)
		ndk_pair_conn_destroy(c);
	if (l != NULL)
		ndk_close_listener(l, NULL, NULL);
	if (l4 != NULL)
		ndk_close_listener(l4, NULL, NULL);
	ndk_pair_destroy(g_pair);
	g_pair = NULL;
	return rc;
}

/* Adapter configuration: addresses an adapter cannot have. */
static int
t_config(void)
{
	static const uint8_t bad[][16] = {
		{ 0 },                                  /* :: with no IPv4 */
		{ [15] = 1 },                           /* ::1 */
		{ 0xff, 0x02, [15] = 1 },               /* multicast */
		{ [10] = 0xff, [11] = 0xff, 10, 0, 0, 1 }, /* IPv4-mapped */
	};
	struct ndk_pair *p = pair_up(NDK_PAIR_IPV4);
	int rc = 0;

	TEST_ASSERT(p != NULL, "pair");
	ndk_adapter_close(p->ad[A]);
	p->ad[A] = NULL;
	for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
		struct ndk_adapter_config ac = {
			.port_id = p->port[A], .configure_port = true,
			.socket_id = SOCKET_ID_ANY, .mac = NDK_PAIR_MAC(0),
		};
		struct ndk_adapter *ad = NULL;
		ndk_status_t st;

		memcpy(ac.ipv6, bad[i], 16);
		st = ndk_adapter_open(&ac, &ad);
		if (st != NDK_STATUS_INVALID_PARAMETER) {
			fprintf(stderr, "  FAIL: address %u: %s\n", i,
				ndk_status_str(st));
			if (ad != NULL)
				ndk_adapter_close(ad);
			rc = -1;
		}
	}
	ndk_pair_destroy(p);
	return rc;
}

/* ------------------------------------------------------------------ */
/* main                                                                */
/* ------------------------------------------------------------------ */

static int t_nd_resolve(void) { return run_case_fam(NDK_PAIR_IPV6, b_nd_resolve); }
static int t_nd_answer(void) { return run_case_fam(NDK_PAIR_IPV6, b_nd_answer); }
static int t_nd_learned(void) { return run_case_fam(NDK_PAIR_IPV6, b_nd_learned); }
static int t_icmp6_echo(void) { return run_case_fam(NDK_PAIR_IPV6, b_icmp6_echo); }
static int t_family_only(void) { return run_case_fam(NDK_PAIR_IPV6, b_family_only); }

static const struct ndk_test_case cases[] = {
	{ "nd_resolve", t_nd_resolve },
	{ "nd_answer", t_nd_answer },
	{ "nd_learned", t_nd_learned },
	{ "icmp6_echo", t_icmp6_echo },
	{ "family_only", t_family_only },
	{ "rc_ipv6", t_rc_ipv6 },
	{ "rc_ipv6_2q", t_rc_ipv6_2q },
	{ "send_inv_ipv6", t_send_inv_ipv6 },
	{ "cm_ipv6", t_cm_ipv6 },
	{ "dual_stack", t_dual_stack },
	{ "config", t_config },
};

int
main(int argc, char **argv)
{
	return neigh_main("ipv6", cases, RTE_DIM(cases), argc, argv);
}
