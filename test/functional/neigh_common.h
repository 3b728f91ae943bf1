/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NEIGH_COMMON_H
#define NEIGH_COMMON_H

/**
 * @file
 * Helpers of test_neigh.c: a fresh crossed net_ring pair per case whose
 * adapters are reopened with distinct configured MACs (net_ring ports have
 * all-zero MACs and refuse to change them), polled by the test thread only
 * (so what an adapter transmits can be read from the ring before its peer
 * sees it); ARP and ICMP echo frame builders and checkers that compute
 * checksums independently of DPDK; connections resolved by ARP.
 *
 * The checks use the TEST_* macros of ndk_test.h: they print the failure
 * and return -1, and return 0 when everything held.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "ndk.h"
#include "ndk_pair_test.h"
#include "ndk_test.h"

#define A NDK_PAIR_A
#define B NDK_PAIR_B
#define MAX_FRAMES 64             /**< frames take() returns at most */
#define FRAME_ROOM 8192           /**< data room of g_pool's mbufs */
#define WAIT_S 30.0               /**< longest wait for a completion */
#define ETH_MIN 60                /**< Ethernet minimum without FCS */
#define ARP_END (RTE_ETHER_HDR_LEN + 28)
/*
 * An IPv4 address in network order. Not RTE_IPV4(): DPDK 22.11 shifts its
 * first byte left by 24 as an int, undefined from 128 up (UBSan).
 */
#define IP4(a, b, c, d) rte_cpu_to_be_32((uint32_t)(a) << 24 | \
					 (uint32_t)(b) << 16 | \
					 (uint32_t)(c) << 8 | (uint32_t)(d))

/** Both adapters' counters at one time (read by name: XS()). */
struct snap {
	struct ndk_test_xstats v[2];
};

/** MACs of the adapters, of foreign hosts H and H2, and others. */
extern const struct rte_ether_addr mac_ad[2];
extern const struct rte_ether_addr mac_h, mac_h2, mac_other, mac_bcast,
	mac_zero;

/** The current case's pair, and the pool test frames come from. */
extern struct ndk_pair *g_pair;
extern struct rte_mempool *g_pool;

/** Run @p body on a fresh pair (g_pair), then destroy it. */
int run_case(int (*body)(void));

/**
 * main() of a program of these cases: EAL (lcores 0-1), g_pool, the cases
 * (ndk_test_run() under @p name), clean-up. @return its exit status.
 */
int neigh_main(const char *name, const struct ndk_test_case *cases,
	       unsigned int n, int argc, char **argv);

/** run_case() with adapters of @p families (NDK_PAIR_IPV4, _IPV6). */
int run_case_fam(unsigned int families, int (*body)(void));

/** An mbuf (chain of @p seg-byte segments if seg != 0) holding @p d. */
struct rte_mbuf *mk_mbuf(const uint8_t *d, uint32_t len, uint32_t seg);

/** Poll adapter @p side once from the test thread. */
void poll_ad(int side);

/** Take (up to MAX_FRAMES) what adapter @p side transmitted. */
unsigned int take(int side, struct rte_mbuf **m);

/** Poll @p side until it transmits (100 polls at most); take it all. */
unsigned int poll_take(int side, struct rte_mbuf **out);

/** Put frames in adapter @p side's receive ring. @return 0 or -1. */
int give(int side, struct rte_mbuf **m, unsigned int n);

void snap_take(struct snap *s);

/** Change of the counter named @p c of adapter @p side since @p a. */
uint64_t delta(const struct snap *a, int side, const char *c);

/** Big-endian 16 bits at @p p. */
uint16_t get16(const uint8_t *p);

/** An ARP packet, field by field. */
struct arp_spec {
	struct rte_ether_addr eth_dst, sha, tha;
	rte_be32_t sip, tip;
	uint16_t htype, ptype, op;
	uint8_t hlen, plen;
	uint32_t len;             /**< frame bytes [60] */
};

/** A well-formed ARP packet (op 1 request, 2 reply) from sha. */
struct arp_spec arp_spec(uint16_t op, const struct rte_ether_addr *eth_dst,
			 const struct rte_ether_addr *sha, rte_be32_t sip,
			 rte_be32_t tip);

struct rte_mbuf *mk_arp(const struct arp_spec *a);

/** @p m is an ARP packet from adapter @p from with these fields. */
int check_arp(struct rte_mbuf *m, uint16_t op,
	      const struct rte_ether_addr *dst,
	      const struct rte_ether_addr *tha, rte_be32_t tip, int from);

/** An IPv4 ICMP frame, field by field, with ways to break it. */
struct echo_spec {
	struct rte_ether_addr eth_dst, eth_src;
	rte_be32_t sip, dip;
	uint16_t id, seq;
	uint32_t plen;            /**< ICMP data bytes */
	uint32_t seed;            /**< of the data pattern */
	uint8_t opt_len;          /**< IP option bytes (NOPs), 4n */
	uint8_t type, code;
	uint16_t frag;            /**< fragment field, host order */
	uint8_t vhl_add;          /**< added to version_ihl after the sums */
	int ip_len_add;           /**< added to total length after the sums */
	bool bad_ip_csum, bad_icmp_csum;
	uint32_t cut;             /**< frame bytes kept if not 0 */
	uint32_t seg;             /**< segment size if not 0 */
};

/** An echo request of @p plen data bytes from host H to adapter B. */
struct echo_spec echo_spec(uint32_t plen);

struct rte_mbuf *mk_echo(const struct echo_spec *e);

/** @p m is B's echo reply to @p e, checked byte by byte. */
int check_echo_reply(const struct rte_mbuf *m, const struct echo_spec *e);

/** @p m is a valid RoCEv2 frame from adapter @p from to its peer. */
int check_roce(struct rte_mbuf *m, int from);

/** Inject @p m into B and poll B: exactly @p want frames must leave B. */
int to_b(struct rte_mbuf *m, struct rte_mbuf **out, unsigned int want,
	 const char *what);

/** Connect side @p s's QP of @p c to @p ip with an all-zero dest_mac. */
ndk_status_t connect_arp(struct ndk_pair_conn *c, int s, rte_be32_t ip,
			 uint8_t timeout, uint8_t retry_cnt);

/**
 * A connection whose QP on A is connected to @p ip_a and on B to
 * @p ip_b (0: left in INIT), with all-zero dest_mac (ARP), the given ACK
 * timeout and retry count (0: defaults), 64 inline bytes.
 */
struct ndk_pair_conn *conn_arp(rte_be32_t ip_a, rte_be32_t ip_b,
			       uint8_t timeout, uint8_t retry);

/** Post a 32-byte inline SEND. */
ndk_status_t send_inline(struct ndk_qp *qp, void *ctx);

/**
 * A fresh QP of @p side towards @p ip sends once: 1 if a RoCE frame left
 * at once (its destination MAC in @p mac), 0 if an ARP request for @p ip
 * left instead, -1 otherwise.
 */
int first_out(int side, rte_be32_t ip, struct rte_ether_addr *mac);

/** Poll both adapters until @p n completions came from @p cq. */
uint32_t pump(struct ndk_cq *cq, struct ndk_result_ex *r, uint32_t n,
	      double secs);

/** SEND, WRITE and READ of @p len bytes A -> B on @p c, data checked. */
int traffic(struct ndk_pair_conn *c, size_t len, uint32_t seed);

#endif /* NEIGH_COMMON_H */
