/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Helpers of test_neigh.c; see neigh_common.h.
 */

#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "ndk_roce.h"
#include "neigh_common.h"

const struct rte_ether_addr mac_ad[2] = {
	{ { 0x02, 0x4e, 0x44, 0x4b, 0x00, 0x0a } },
	{ { 0x02, 0x4e, 0x44, 0x4b, 0x00, 0x0b } },
};
const struct rte_ether_addr mac_h = { { 2, 0x11, 0x22, 0x33, 0x44, 9 } };
const struct rte_ether_addr mac_h2 = { { 2, 0x11, 0x22, 0x33, 0x44, 10 } };
const struct rte_ether_addr mac_other = { { 2, 0x77, 0, 0, 0, 7 } };
const struct rte_ether_addr mac_bcast = {
	{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } };
const struct rte_ether_addr mac_zero;

struct ndk_pair *g_pair;
struct rte_mempool *g_pool;

/* ------------------------------------------------------------------ */
/* Pair, polling, rings, counters                                      */
/* ------------------------------------------------------------------ */

static int
reopen(struct ndk_pair *p, int s)
{
	struct ndk_adapter_config ac = {
		.port_id = p->port[s],
		.configure_port = true,
		.ipv4 = p->ipv4[s],
		.max_path_mtu = p->max_path_mtu,
		.socket_id = SOCKET_ID_ANY,
	};
	uint32_t size = sizeof(p->info[s]);

	memcpy(ac.mac, mac_ad[s].addr_bytes, 6);
	memcpy(ac.ipv6, p->ipv6[s], sizeof(ac.ipv6));
	ndk_adapter_close(p->ad[s]);
	if (ndk_adapter_open(&ac, &p->ad[s]) != NDK_STATUS_SUCCESS) {
		p->ad[s] = NULL;
		return -1;
	}
	return ndk_query_adapter_info(p->ad[s], &p->info[s], &size) ==
		NDK_STATUS_SUCCESS ? 0 : -1;
}

/* Fresh pair, no pollers, adapters reopened with mac_ad[]. */
int
neigh_main(const char *name, const struct ndk_test_case *cases,
	   unsigned int n, int argc, char **argv)
{
	char prog[64];
	int rc;

	snprintf(prog, sizeof(prog), "test_func_%s", name);
	if (ndk_test_eal_init(prog, "0-1", NULL) != 0)
		return 1;
	g_pool = rte_pktmbuf_pool_create("neigh_pool", 1023, 32, 0,
					 FRAME_ROOM + RTE_PKTMBUF_HEADROOM,
					 (int)rte_socket_id());
	if (g_pool == NULL) {
		fprintf(stderr, "mbuf pool: %s\n", rte_strerror(rte_errno));
		rte_eal_cleanup();
		return 1;
	}
	rc = ndk_test_run(name, cases, n, argc, argv);
	rte_mempool_free(g_pool);
	rte_eal_cleanup();
	return rc;
}

int
run_case(int (*body)(void))
{
	return run_case_fam(NDK_PAIR_IPV4, body);
}

int
run_case_fam(unsigned int families, int (*body)(void))
{
	struct ndk_pair_config pc = { .no_pollers = true, .mp_rings = true,
				      .families = families };
	int rc = -1;

	g_pair = ndk_pair_create(&pc);
	if (g_pair == NULL || reopen(g_pair, A) != 0 || reopen(g_pair, B) != 0)
		fprintf(stderr, "  FAIL: pair set-up\n");
	else
		rc = body();
	ndk_pair_destroy(g_pair);
	g_pair = NULL;
	return rc;
}

void
poll_ad(int side)
{
	ndk_adapter_poll(g_pair->ad[side]);
}

/* Take what adapter @p side transmitted, before its peer receives it. */
unsigned int
take(int side, struct rte_mbuf **m)
{
	return rte_ring_dequeue_burst(ndk_pair_rx_ring(g_pair, 1 - side),
				      (void **)m, MAX_FRAMES, NULL);
}

/* Hand frames to adapter @p side's receive ring (it owns them then). */
int
give(int side, struct rte_mbuf **m, unsigned int n)
{
	int k = ndk_pair_inject(g_pair, side, m, n);

	if (k != (int)n) {
		rte_pktmbuf_free_bulk(m + (k > 0 ? k : 0), n - (k > 0 ? k : 0));
		return -1;
	}
	return 0;
}

void
snap_take(struct snap *s)
{
	for (int side = 0; side < 2; side++)
		ndk_pair_stats(g_pair, side, &s->v[side]);
}

uint64_t
delta(const struct snap *a, int side, const char *c)
{
	struct snap now;

	snap_take(&now);
	return XS_DIFF(&now.v[side], &a->v[side], c);
}

/* ------------------------------------------------------------------ */
/* Frames                                                              */
/* ------------------------------------------------------------------ */

/* Internet checksum, computed here independently of DPDK. */
static uint16_t
csum(const uint8_t *p, size_t n)
{
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xFFFF) + (s >> 16);
	return (uint16_t)~s;
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* An mbuf (chain of @p seg-byte segments if seg != 0) holding @p d. */
struct rte_mbuf *
mk_mbuf(const uint8_t *d, uint32_t len, uint32_t seg)
{
	struct rte_mbuf *head = NULL;
	uint32_t off = 0;

	if (seg == 0)
		seg = len;
	do {
		uint32_t n = RTE_MIN(seg, len - off);
		struct rte_mbuf *m = rte_pktmbuf_alloc(g_pool);
		char *p = m != NULL ? rte_pktmbuf_append(m, (uint16_t)n) : NULL;

		if (p == NULL || (head != NULL && rte_pktmbuf_chain(head, m))) {
			rte_pktmbuf_free(m);
			rte_pktmbuf_free(head);
			return NULL;
		}
		memcpy(p, d + off, n);
		if (head == NULL)
			head = m;
		off += n;
	} while (off < len);
	return head;
}


struct arp_spec
arp_spec(uint16_t op, const struct rte_ether_addr *eth_dst,
	 const struct rte_ether_addr *sha, rte_be32_t sip, rte_be32_t tip)
{
	struct arp_spec a = {
		.eth_dst = *eth_dst, .sha = *sha, .sip = sip, .tip = tip,
		.htype = 1, .ptype = 0x0800, .op = op, .hlen = 6, .plen = 4,
		.len = ETH_MIN,
	};
	return a;
}

struct rte_mbuf *
mk_arp(const struct arp_spec *a)
{
	uint8_t f[ETH_MIN] = { 0 };

	memcpy(f, &a->eth_dst, 6);
	memcpy(f + 6, &a->sha, 6);
	put16(f + 12, 0x0806);
	put16(f + 14, a->htype);
	put16(f + 16, a->ptype);
	f[18] = a->hlen;
	f[19] = a->plen;
	put16(f + 20, a->op);
	memcpy(f + 22, &a->sha, 6);
	memcpy(f + 28, &a->sip, 4);
	memcpy(f + 32, &a->tha, 6);
	memcpy(f + 38, &a->tip, 4);
	return mk_mbuf(f, a->len, 0);
}

/* Check @p m is an ARP frame from adapter B with these fields. */
int
check_arp(struct rte_mbuf *m, uint16_t op, const struct rte_ether_addr *dst,
	  const struct rte_ether_addr *tha, rte_be32_t tip, int from)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);

	TEST_ASSERT_EQ(rte_pktmbuf_pkt_len(m), ETH_MIN, "ARP frame length");
	TEST_ASSERT(memcmp(f, dst, 6) == 0 && memcmp(f + 6, &mac_ad[from], 6)
		    == 0, "ARP Ethernet addresses");
	TEST_ASSERT(get16(f + 12) == 0x0806 && get16(f + 14) == 1 &&
		    get16(f + 16) == 0x0800 && f[18] == 6 && f[19] == 4,
		    "ARP header");
	TEST_ASSERT_EQ(get16(f + 20), op, "ARP opcode");
	TEST_ASSERT(memcmp(f + 22, &mac_ad[from], 6) == 0 &&
		    memcmp(f + 28, &g_pair->ipv4[from], 4) == 0,
		    "ARP sender is the adapter");
	TEST_ASSERT(memcmp(f + 32, tha, 6) == 0 && memcmp(f + 38, &tip, 4) == 0,
		    "ARP target");
	for (int i = ARP_END; i < ETH_MIN; i++)
		TEST_ASSERT(f[i] == 0, "padding byte %d", i);
	return 0;
}


/* An echo request from host H to adapter B. */
struct echo_spec
echo_spec(uint32_t plen)
{
	struct echo_spec e = {
		.eth_dst = mac_ad[B], .eth_src = mac_h,
		.sip = IP4(10, 0, 0, 9), .dip = g_pair->ipv4[B],
		.id = 0x1234, .seq = 7, .plen = plen, .seed = plen + 1,
		.type = 8,
	};
	return e;
}

/* Flat frame of @p e into @p f; returns its length. */
static uint32_t
echo_frame(const struct echo_spec *e, uint8_t *f)
{
	uint32_t ihl = 20 + e->opt_len, ip_len = ihl + 8 + e->plen;
	uint32_t len = RTE_MAX(RTE_ETHER_HDR_LEN + ip_len, (uint32_t)ETH_MIN);
	uint8_t *ip = f + RTE_ETHER_HDR_LEN, *icmp = ip + ihl;

	memset(f, 0, len);
	memcpy(f, &e->eth_dst, 6);
	memcpy(f + 6, &e->eth_src, 6);
	put16(f + 12, 0x0800);
	ip[0] = (uint8_t)(0x40 | (ihl / 4));
	put16(ip + 2, (uint16_t)ip_len);
	put16(ip + 4, 0x4242);
	put16(ip + 6, e->frag);
	ip[8] = 64;
	ip[9] = 1;
	memcpy(ip + 12, &e->sip, 4);
	memcpy(ip + 16, &e->dip, 4);
	memset(ip + 20, 1, e->opt_len);
	icmp[0] = e->type;
	icmp[1] = e->code;
	put16(icmp + 4, e->id);
	put16(icmp + 6, e->seq);
	ndk_pair_fill(icmp + 8, e->plen, e->seed);
	put16(icmp + 2, csum(icmp, 8 + e->plen) ^ (e->bad_icmp_csum ? 1 : 0));
	put16(ip + 10, csum(ip, ihl) ^ (e->bad_ip_csum ? 0x100 : 0));
	ip[0] = (uint8_t)(ip[0] + e->vhl_add);
	put16(ip + 2, (uint16_t)(ip_len + e->ip_len_add));
	return e->cut != 0 ? e->cut : len;
}

struct rte_mbuf *
mk_echo(const struct echo_spec *e)
{
	static uint8_t f[FRAME_ROOM];

	return mk_mbuf(f, echo_frame(e, f), e->seg);
}

/* Check @p m is B's reply to @p e, byte by byte. */
int
check_echo_reply(const struct rte_mbuf *m, const struct echo_spec *e)
{
	static uint8_t f[FRAME_ROOM];
	uint32_t len = rte_pktmbuf_pkt_len(m), ip_len = 28 + e->plen;
	const uint8_t *ip = f + RTE_ETHER_HDR_LEN, *icmp = ip + 20;

	TEST_ASSERT(len <= sizeof(f), "reply of %u bytes", len);
	ndk_roce_mbuf_copy_out(m, 0, f, len);
	TEST_ASSERT_EQ(len, RTE_MAX(RTE_ETHER_HDR_LEN + ip_len,
				    (uint32_t)ETH_MIN), "reply frame length");
	TEST_ASSERT(memcmp(f, &e->eth_src, 6) == 0 &&
		    memcmp(f + 6, &mac_ad[B], 6) == 0 && get16(f + 12) == 0x0800,
		    "reply Ethernet header");
	TEST_ASSERT(ip[0] == 0x45 && get16(ip + 2) == ip_len &&
		    (get16(ip + 6) & 0x3FFF) == 0 && ip[8] != 0 && ip[9] == 1,
		    "reply IPv4 header");
	TEST_ASSERT(memcmp(ip + 12, &e->dip, 4) == 0 &&
		    memcmp(ip + 16, &e->sip, 4) == 0, "reply addresses");
	TEST_ASSERT_EQ(csum(ip, 20), 0, "IPv4 header checksum");
	TEST_ASSERT(icmp[0] == 0 && icmp[1] == 0 && get16(icmp + 4) == e->id &&
		    get16(icmp + 6) == e->seq, "ICMP echo reply header");
	TEST_ASSERT_EQ(csum(icmp, 8 + e->plen), 0, "ICMP checksum");
	TEST_ASSERT(ndk_pair_check(icmp + 8, e->plen, e->seed) < 0,
		    "echoed data");
	for (uint32_t i = RTE_ETHER_HDR_LEN + ip_len; i < len; i++)
		TEST_ASSERT(f[i] == 0, "padding byte %u", i);
	return 0;
}

/* Inject @p m into B, poll B; @p want frames must come out of B. */
int
to_b(struct rte_mbuf *m, struct rte_mbuf **out, unsigned int want,
     const char *what)
{
	unsigned int n;

	TEST_ASSERT(m != NULL, "%s: frame", what);
	TEST_ASSERT(give(B, &m, 1) == 0, "%s: inject", what);
	poll_ad(B);
	n = take(B, out);
	if (n != want) {
		rte_pktmbuf_free_bulk(out, n);
		TEST_FAIL("%s: B sent %u frames, want %u", what, n, want);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Connections resolved by ARP                                         */
/* ------------------------------------------------------------------ */

/* Connect side @p s's QP of @p c to @p ip with an all-zero dest_mac. */
ndk_status_t
connect_arp(struct ndk_pair_conn *c, int s, rte_be32_t ip, uint8_t timeout,
	    uint8_t retry_cnt)
{
	struct ndk_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.dest_ip = ip;
	a.dest_qpn = c->qpn[1 - s];
	a.rq_psn = c->sq_psn[1 - s];
	a.sq_psn = c->sq_psn[s];
	a.timeout = timeout;
	a.retry_cnt = retry_cnt;
	return ndk_qp_connect(c->qp[s], &a);
}

struct ndk_pair_conn *
conn_arp(rte_be32_t ip_a, rte_be32_t ip_b, uint8_t timeout, uint8_t retry)
{
	struct ndk_pair_conn_opts o = { .no_connect = true, .inline_size = 64 };
	struct ndk_pair_conn *c = ndk_pair_conn_create(g_pair, &o, NULL);

	if (c == NULL)
		return NULL;
	if ((ip_a != 0 && connect_arp(c, A, ip_a, timeout, retry) !=
	     NDK_STATUS_SUCCESS) || (ip_b != 0 &&
	     connect_arp(c, B, ip_b, timeout, retry) != NDK_STATUS_SUCCESS)) {
		ndk_pair_conn_destroy(c);
		return NULL;
	}
	return c;
}

ndk_status_t
send_inline(struct ndk_qp *qp, void *ctx)
{
	static uint8_t data[32];
	struct ndk_sge s = { .va = data, .length = sizeof(data) };

	return ndk_send(qp, ctx, &s, 1, NDK_OP_FLAG_INLINE);
}

/*
 * A fresh QP of @p side towards @p ip sends once: 1 if a RoCE frame left
 * at once (its destination MAC in @p mac), 0 if an ARP request for @p ip
 * left instead, -1 otherwise.
 */
int
first_out(int side, rte_be32_t ip, struct rte_ether_addr *mac)
{
	struct ndk_pair_conn *c = conn_arp(side == A ? ip : 0,
					   side == B ? ip : 0, 0, 0);
	struct rte_mbuf *f[MAX_FRAMES];
	const uint8_t *d;
	unsigned int n = 0;
	int rc = -1;

	if (c == NULL || send_inline(c->qp[side], NULL) != NDK_STATUS_SUCCESS)
		goto out;
	poll_ad(side);
	n = take(side, f);
	if (n != 1)
		goto out;
	d = rte_pktmbuf_mtod(f[0], const uint8_t *);
	if (get16(d + 12) == 0x0800) {
		memcpy(mac, d, 6);
		rc = 1;
	} else if (get16(d + 12) == 0x0806 && get16(d + 20) == 1 &&
		   memcmp(d + 38, &ip, 4) == 0) {
		rc = 0;
	}
out:
	rte_pktmbuf_free_bulk(f, n);
	if (c != NULL)
		ndk_pair_conn_destroy(c);
	return rc;
}

/* Poll both sides until @p n completions arrive on @p cq. */
uint32_t
pump(struct ndk_cq *cq, struct ndk_result_ex *r, uint32_t n, double secs)
{
	double end = ndk_pair_now() + secs;
	uint32_t got = 0;

	while (got < n && ndk_pair_now() < end) {
		poll_ad(A);
		poll_ad(B);
		got += ndk_get_cq_results_ex(cq, r + got, n - got);
	}
	return got;
}

static int
pump_ok(struct ndk_cq *cq, enum ndk_operation_type t, void *req,
	const char *what)
{
	struct ndk_result_ex r;
	char d[200];

	TEST_ASSERT(pump(cq, &r, 1, WAIT_S) == 1, "%s: no completion", what);
	ndk_pair_result_str(&r, d, sizeof(d));
	TEST_ASSERT(r.status == NDK_STATUS_SUCCESS && r.type == t &&
		    r.request_context == req, "%s: %s", what, d);
	return 0;
}

/* SEND, WRITE and READ of @p len bytes on @p c, data checked. */
int
traffic(struct ndk_pair_conn *c, size_t len, uint32_t seed)
{
	struct ndk_pair *p = g_pair;
	struct ndk_pair_buf *src, *dst, *rem, *sink;
	struct ndk_sge s;

	src = ndk_pair_buf_alloc(p, c->pd[A], len, 0);
	dst = ndk_pair_buf_alloc(p, c->pd[B], len,
				 NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
	rem = ndk_pair_buf_alloc(p, c->pd[B], len,
				 NDK_MR_FLAG_ALLOW_REMOTE_READ);
	sink = ndk_pair_buf_alloc(p, c->pd[A], len,
				  NDK_MR_FLAG_ALLOW_LOCAL_WRITE |
				  ((p->info[A].adapter_flags &
				    NDK_ADAPTER_FLAG_RDMA_READ_SINK_NOT_REQUIRED) ?
				   0 : NDK_MR_FLAG_RDMA_READ_SINK));
	TEST_ASSERT(src && dst && rem && sink, "buffers");
	ndk_pair_fill(src->data, len, seed);
	ndk_pair_fill(rem->data, len, seed + 1);
	s = ndk_pair_sge(dst, 0, (uint32_t)len);
	TEST_ASSERT_EQ(ndk_receive(c->qp[B], (void *)1, &s, 1),
		       NDK_STATUS_SUCCESS, "receive");
	s = ndk_pair_sge(src, 0, (uint32_t)len);
	TEST_ASSERT_EQ(ndk_send(c->qp[A], (void *)2, &s, 1, 0),
		       NDK_STATUS_SUCCESS, "send");
	if (pump_ok(c->icq[A], NDK_OP_SEND, (void *)2, "send") != 0 ||
	    pump_ok(c->rcq[B], NDK_OP_RECEIVE, (void *)1, "receive") != 0)
		return -1;
	TEST_ASSERT(ndk_pair_check(dst->data, len, seed) < 0, "send data");
	memset(dst->data, 0, len);
	TEST_ASSERT_EQ(ndk_write(c->qp[A], (void *)3, &s, 1,
				 ndk_pair_raddr(dst, 0), dst->rtoken, 0),
		       NDK_STATUS_SUCCESS, "write");
	if (pump_ok(c->icq[A], NDK_OP_WRITE, (void *)3, "write") != 0)
		return -1;
	TEST_ASSERT(ndk_pair_check(dst->data, len, seed) < 0, "write data");
	s = ndk_pair_sge(sink, 0, (uint32_t)len);
	TEST_ASSERT_EQ(ndk_read(c->qp[A], (void *)4, &s, 1,
				ndk_pair_raddr(rem, 0), rem->rtoken, 0),
		       NDK_STATUS_SUCCESS, "read");
	if (pump_ok(c->icq[A], NDK_OP_READ, (void *)4, "read") != 0)
		return -1;
	TEST_ASSERT(ndk_pair_check(sink->data, len, seed + 1) < 0,
		    "read data");
	ndk_pair_buf_free(src);
	ndk_pair_buf_free(dst);
	ndk_pair_buf_free(rem);
	ndk_pair_buf_free(sink);
	return 0;
}


/* Poll @p side until it transmits; take everything it sent. */
unsigned int
poll_take(int side, struct rte_mbuf **out)
{
	unsigned int n = 0;

	for (int i = 0; i < 100 && n == 0; i++) {
		poll_ad(side);
		n = take(side, out);
	}
	return n;
}

/* Frame @p m is a valid RoCEv2 packet from @p from to its peer. */
int
check_roce(struct rte_mbuf *m, int from)
{
	struct ndk_roce_pkt p;
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);

	TEST_ASSERT(memcmp(d, &mac_ad[1 - from], 6) == 0 &&
		    memcmp(d + 6, &mac_ad[from], 6) == 0, "RoCE frame MACs");
	TEST_ASSERT_EQ(ndk_roce_parse(m, &p, true), NDK_ROCE_PARSE_OK,
		       "RoCE frame (ICRC after the MAC was written)");
	return 0;
}
