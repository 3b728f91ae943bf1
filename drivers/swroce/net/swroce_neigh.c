/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * swroce neighbours: the table, the ARP responder and resolver and the ICMP
 * echo responder of an adapter (IPv6 neighbour discovery and ICMPv6 echo:
 * swroce_nd.c, on the same table). Everything runs on the polling thread: no
 * locks, no syscalls, no allocation but mbufs.
 *
 * Table: 1 << SWR_NEIGH_BITS slots, linear probing keyed by the 16-byte
 * address (IPv6, or IPv4-mapped ::ffff:a.b.c.d),
 * tombstones on deletion (a run of tombstones ending at a free slot is
 * freed again). Entries never move, so QPs keep plain pointers to them.
 * A dense list of the live slots lets the timers skip the empty ones.
 *
 * States (per entry):
 *   INCOMPLETE  probes > 0: resolving, a broadcast request (IPv6: a
 *               neighbour solicitation to the solicited-node group) every
 *               SWR_NEIGH_RETRY_MS, frames held (up to SWR_NEIGH_PENDING,
 *               for SWR_NEIGH_PENDING_MS); after SWR_NEIGH_PROBES
 *               requests -> FAILED. The first request goes when a QP
 *               attaches (INIT -> RTR) or a frame needs the entry.
 *               probes == 0: idle (re-validation failed, nothing needs it
 *               yet); deleted after SWR_NEIGH_IDLE_MS.
 *   REACHABLE   MAC known; after SWR_NEIGH_REACHABLE_MS, re-validated with
 *               unicast requests while still used; no answer after
 *               SWR_NEIGH_PROBES -> INCOMPLETE (idle).
 *   FAILED      held frames dropped; frames dropped until the hold-down
 *               ends, then the entry is deleted and the next frame
 *               starts over.
 * Learning follows RFC 826: an ARP packet updates the entry of its
 * sender if there is one; one addressed to us creates it. Neighbour
 * discovery does the same (RFC 4861 7.2.3, 7.2.5): a solicitation for our
 * address creates or updates its sender's entry, an advertisement updates
 * the entry of its target.
 */

#include <errno.h>
#include <string.h>

#include <netinet/in.h>

#include <rte_arp.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_malloc.h>

#include "swroce_adapter.h"
#include "swroce_neigh.h"
#include "swroce_qp.h"
#include "swroce_tx.h"

#define SWR_NEIGH_SIZE (1u << SWR_NEIGH_BITS)
#define SWR_NEIGH_MASK (SWR_NEIGH_SIZE - 1)
/** Live entries beyond which learning stops and resolution evicts. */
#define SWR_NEIGH_MAX_LIVE (SWR_NEIGH_SIZE - SWR_NEIGH_SIZE / 8)
/** Ethernet frames are padded to this (without FCS). */
#define SWR_ETH_MIN_FRAME (RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN)
#define SWR_ARP_FRAME (RTE_ETHER_HDR_LEN + sizeof(struct rte_arp_hdr))
#define SWR_IPV4_HDR_LEN 20
#define SWR_ICMP_HDR_LEN 8

struct swr_neigh_tbl {
	uint32_t n_live;
	uint64_t t_retry;         /**< the SWR_NEIGH_*_MS in TSC ticks */
	uint64_t t_hold;
	uint64_t t_pend;
	uint64_t t_reach;
	uint64_t t_idle;
	uint64_t t_tick;
	struct swr_neigh none;    /**< the dummy for a full table */
	uint16_t live[SWR_NEIGH_SIZE];
	struct swr_neigh e[SWR_NEIGH_SIZE];
};

static void swr_neigh_solicit(struct swr_adapter *ad, struct swr_neigh *e,
			      bool unicast);

/* ------------------------------------------------------------------ */
/* Table                                                               */
/* ------------------------------------------------------------------ */

static inline uint32_t
swr_neigh_hash(const uint8_t a[16])
{
	uint32_t w[4], h;

	memcpy(w, a, sizeof(w));
	h = w[0] ^ w[1] ^ w[2] ^ w[3];
	return (rte_be_to_cpu_32(h) * 0x9E3779B1u) >> (32 - SWR_NEIGH_BITS);
}

/* The IPv4-mapped form of @p ip (::ffff:a.b.c.d). */
static inline void
swr_neigh_key4(uint8_t a[16], rte_be32_t ip)
{
	ndk_roce_gid_from_ipv4(a, ip);
}

static inline bool
swr_neigh_live(const struct swr_neigh *e)
{
	return e->state >= SWR_NEIGH_INCOMPLETE;
}

/*
 * Find @p ip. When absent, *ins is the slot an insertion takes (the first
 * tombstone or the free slot ending the search), UINT32_MAX if none.
 */
static struct swr_neigh *
swr_neigh_find(struct swr_neigh_tbl *t, const uint8_t a[16], uint32_t *ins)
{
	uint32_t i = swr_neigh_hash(a), del = UINT32_MAX;

	for (uint32_t n = 0; n < SWR_NEIGH_SIZE; n++, i = (i + 1) &
	     SWR_NEIGH_MASK) {
		struct swr_neigh *e = &t->e[i];

		if (e->state == SWR_NEIGH_FREE) {
			*ins = del != UINT32_MAX ? del : i;
			return NULL;
		}
		if (e->state == SWR_NEIGH_DELETED) {
			if (del == UINT32_MAX)
				del = i;
		} else if (memcmp(e->addr, a, sizeof(e->addr)) == 0) {
			return e;
		}
	}
	*ins = del;
	return NULL;
}

static void
swr_neigh_delete(struct swr_neigh_tbl *t, struct swr_neigh *e)
{
	uint32_t i = (uint32_t)(e - t->e);
	uint16_t last = t->live[--t->n_live];

	t->live[e->live_pos] = last;
	t->e[last].live_pos = e->live_pos;
	e->state = SWR_NEIGH_DELETED;
	/* Tombstones just before a free slot end no search: free them. */
	if (t->e[(i + 1) & SWR_NEIGH_MASK].state != SWR_NEIGH_FREE)
		return;
	for (uint32_t n = 0; n < SWR_NEIGH_SIZE &&
	     t->e[i].state == SWR_NEIGH_DELETED; n++) {
		t->e[i].state = SWR_NEIGH_FREE;
		i = (i - 1) & SWR_NEIGH_MASK;
	}
}

/* Least useful entry without held frames: FAILED, idle, oldest REACHABLE. */
static struct swr_neigh *
swr_neigh_victim(struct swr_neigh_tbl *t)
{
	struct swr_neigh *best = NULL;
	unsigned int best_rank = UINT32_MAX;

	for (uint32_t i = 0; i < t->n_live; i++) {
		struct swr_neigh *e = &t->e[t->live[i]];
		unsigned int rank;

		if (e->n_pending != 0 || (e->state == SWR_NEIGH_INCOMPLETE &&
					  e->probes != 0))
			continue;
		rank = e->state == SWR_NEIGH_FAILED ? 0 :
			e->state == SWR_NEIGH_INCOMPLETE ? 1 : 2;
		if (best == NULL || rank < best_rank ||
		    (rank == best_rank && e->deadline < best->deadline)) {
			best = e;
			best_rank = rank;
		}
	}
	return best;
}

/* Put @p a in slot @p ins as an idle INCOMPLETE entry. */
static struct swr_neigh *
swr_neigh_insert(struct swr_adapter *ad, const uint8_t a[16], uint32_t ins)
{
	struct swr_neigh_tbl *t = ad->neigh;
	struct swr_neigh *e = &t->e[ins];

	memset(e, 0, offsetof(struct swr_neigh, pending));
	memcpy(e->addr, a, sizeof(e->addr));
	e->ip = ndk_roce_gid_to_ipv4(a);
	e->state = SWR_NEIGH_INCOMPLETE;
	e->deadline = rte_rdtsc() + t->t_idle;
	e->live_pos = (uint16_t)t->n_live;
	t->live[t->n_live++] = (uint16_t)ins;
	return e;
}

struct swr_neigh *
swr_neigh_attach6(struct swr_adapter *ad, const uint8_t ip[16])
{
	struct swr_neigh_tbl *t = ad->neigh;
	struct swr_neigh *e, *victim;
	uint32_t ins;

	e = swr_neigh_find(t, ip, &ins);
	if (e != NULL) {
		if (e->state == SWR_NEIGH_INCOMPLETE && e->probes == 0)
			swr_neigh_solicit(ad, e, false);
		return e;
	}
	if (t->n_live >= SWR_NEIGH_MAX_LIVE || ins == UINT32_MAX) {
		victim = swr_neigh_victim(t);
		if (victim == NULL)
			return &t->none;
		swr_neigh_delete(t, victim);
		swr_neigh_find(t, ip, &ins);
		if (ins == UINT32_MAX)
			return &t->none;
	}
	e = swr_neigh_insert(ad, ip, ins);
	/* Ask now: the answer is usually back before the first frame. */
	swr_neigh_solicit(ad, e, false);
	return e;
}

struct swr_neigh *
swr_neigh_attach(struct swr_adapter *ad, rte_be32_t ip)
{
	uint8_t a[16];

	swr_neigh_key4(a, ip);
	return swr_neigh_attach6(ad, a);
}

int
swr_neigh_init(struct swr_adapter *ad)
{
	struct swr_neigh_tbl *t;

	t = rte_zmalloc_socket("ndk_neigh", sizeof(*t), RTE_CACHE_LINE_SIZE,
			       ad->socket_id);
	if (t == NULL)
		return -ENOMEM;
	t->t_retry = swr_us_to_tsc(ad, SWR_NEIGH_RETRY_MS * 1000ull);
	t->t_hold = swr_us_to_tsc(ad, SWR_NEIGH_HOLD_MS * 1000ull);
	t->t_pend = swr_us_to_tsc(ad, SWR_NEIGH_PENDING_MS * 1000ull);
	t->t_reach = swr_us_to_tsc(ad, SWR_NEIGH_REACHABLE_MS * 1000ull);
	t->t_idle = swr_us_to_tsc(ad, SWR_NEIGH_IDLE_MS * 1000ull);
	t->t_tick = swr_us_to_tsc(ad, SWR_NEIGH_TICK_MS * 1000ull);
	t->none.state = SWR_NEIGH_FREE;
	ad->neigh = t;
	return 0;
}

void
swr_neigh_fini(struct swr_adapter *ad)
{
	struct swr_neigh_tbl *t = ad->neigh;

	if (t == NULL)
		return;
	for (uint32_t i = 0; i < t->n_live; i++) {
		struct swr_neigh *e = &t->e[t->live[i]];

		rte_pktmbuf_free_bulk(e->pending, e->n_pending);
	}
	rte_free(t);
	ad->neigh = NULL;
}

/* ------------------------------------------------------------------ */
/* Frames                                                              */
/* ------------------------------------------------------------------ */

void
swr_eth_pad(struct rte_mbuf *m)
{
	uint32_t len = rte_pktmbuf_pkt_len(m);
	char *p;

	if (len >= SWR_ETH_MIN_FRAME)
		return;
	p = rte_pktmbuf_append(m, (uint16_t)(SWR_ETH_MIN_FRAME - len));
	if (p != NULL)
		memset(p, 0, SWR_ETH_MIN_FRAME - len);
}

/* Build and stage an ARP packet from this adapter. */
static void
swr_arp_send(struct swr_adapter *ad, uint16_t op,
	     const struct rte_ether_addr *eth_dst,
	     const struct rte_ether_addr *tha, rte_be32_t tip)
{
	struct rte_ether_hdr *eth;
	struct rte_arp_hdr *arp;
	struct rte_mbuf *m;

	m = rte_pktmbuf_alloc(ad->mp);
	if (unlikely(m == NULL)) {
		SWR_STAT(ad, mbuf_alloc_fail);
		return;
	}
	eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m, SWR_ETH_MIN_FRAME);
	if (unlikely(eth == NULL)) {
		rte_pktmbuf_free(m);
		SWR_STAT(ad, mbuf_alloc_fail);
		return;
	}
	memset(eth, 0, SWR_ETH_MIN_FRAME);
	rte_ether_addr_copy(eth_dst, &eth->dst_addr);
	rte_ether_addr_copy(&ad->mac, &eth->src_addr);
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_ARP);
	arp = (struct rte_arp_hdr *)(eth + 1);
	arp->arp_hardware = RTE_BE16(RTE_ARP_HRD_ETHER);
	arp->arp_protocol = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	arp->arp_hlen = RTE_ETHER_ADDR_LEN;
	arp->arp_plen = sizeof(rte_be32_t);
	arp->arp_opcode = rte_cpu_to_be_16(op);
	rte_ether_addr_copy(&ad->mac, &arp->arp_data.arp_sha);
	arp->arp_data.arp_sip = ad->ipv4;
	rte_ether_addr_copy(tha, &arp->arp_data.arp_tha);
	arp->arp_data.arp_tip = tip;
	if (op == RTE_ARP_OP_REQUEST)
		SWR_STAT(ad, arp_requests_sent);
	else
		SWR_STAT(ad, arp_replies_sent);
	swr_tx_stage(ad, m);
}

/* Request @p e's MAC: broadcast, or unicast to re-validate it. */
static void
swr_neigh_solicit(struct swr_adapter *ad, struct swr_neigh *e, bool unicast)
{
	static const struct rte_ether_addr bcast = {
		.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
	};
	static const struct rte_ether_addr zero;

	if (e->ip == 0)
		swr_nd_solicit(ad, e->addr, unicast ? &e->mac : NULL);
	else
		swr_arp_send(ad, RTE_ARP_OP_REQUEST, unicast ? &e->mac : &bcast,
			     &zero, e->ip);
	e->probes++;
	/* Not ad->now: a QP modify run outside a poll may call us. */
	e->deadline = rte_rdtsc() + ad->neigh->t_retry;
}

/* ------------------------------------------------------------------ */
/* Held frames and state changes                                       */
/* ------------------------------------------------------------------ */

static void
swr_neigh_drop_pending(struct swr_adapter *ad, struct swr_neigh *e)
{
	ad->stats.neigh_pending_drops += e->n_pending;
	rte_pktmbuf_free_bulk(e->pending, e->n_pending);
	e->n_pending = 0;
}

static inline void
swr_neigh_xmit(struct swr_adapter *ad, const struct swr_neigh *e,
	       struct rte_mbuf *m)
{
	rte_ether_addr_copy(&e->mac, rte_pktmbuf_mtod(m,
						      struct rte_ether_addr *));
	swr_tx_stage(ad, m);
}

/* The neighbour answered (or announced itself): REACHABLE, flush. */
static void
swr_neigh_confirm(struct swr_adapter *ad, struct swr_neigh *e,
		  const struct rte_ether_addr *mac)
{
	rte_ether_addr_copy(mac, &e->mac);
	e->state = SWR_NEIGH_REACHABLE;
	e->probes = 0;
	e->deadline = ad->now + ad->neigh->t_reach;
	for (uint8_t i = 0; i < e->n_pending; i++)
		swr_neigh_xmit(ad, e, e->pending[i]);
	e->n_pending = 0;
}

static void
swr_neigh_fail(struct swr_adapter *ad, struct swr_neigh *e)
{
	swr_neigh_drop_pending(ad, e);
	SWR_STAT(ad, neigh_failed);
	e->state = SWR_NEIGH_FAILED;
	e->probes = 0;
	e->deadline = ad->now + ad->neigh->t_hold;
}

/* Hold a frame for an INCOMPLETE entry, starting resolution if idle. */
static void
swr_neigh_hold(struct swr_adapter *ad, struct swr_neigh *e,
	       struct rte_mbuf *m)
{
	if (unlikely(e->n_pending == SWR_NEIGH_PENDING)) {
		SWR_STAT(ad, neigh_pending_drops);
		rte_pktmbuf_free(m);
	} else {
		if (e->n_pending == 0)
			e->pending_since = ad->now;
		e->pending[e->n_pending++] = m;
	}
	if (e->probes == 0)
		swr_neigh_solicit(ad, e, false);
}

bool
swr_neigh_held_full(struct swr_adapter *ad, struct swr_neigh **cache,
		    const uint8_t ip[16])
{
	struct swr_neigh *e = *cache;

	if (e == NULL || !swr_neigh_live(e) ||
	    memcmp(e->addr, ip, sizeof(e->addr)) != 0) {
		e = swr_neigh_attach6(ad, ip);
		*cache = e;
	}
	return e->state == SWR_NEIGH_INCOMPLETE &&
		e->n_pending >= SWR_NEIGH_PENDING;
}

void
swr_neigh_send6(struct swr_adapter *ad, struct swr_neigh **cache,
		const uint8_t ip[16], struct rte_mbuf *m)
{
	struct swr_neigh *e = *cache;

	/* Deleted or reused since the last lookup: look again. */
	if (e == NULL || !swr_neigh_live(e) ||
	    memcmp(e->addr, ip, sizeof(e->addr)) != 0) {
		e = swr_neigh_attach6(ad, ip);
		*cache = e;
	}
	switch (e->state) {
	case SWR_NEIGH_REACHABLE:
		swr_neigh_xmit(ad, e, m);
		return;
	case SWR_NEIGH_FAILED:
		if (ad->now < e->deadline)
			break;
		e->state = SWR_NEIGH_INCOMPLETE;
		e->probes = 0;
		/* fall through */
	case SWR_NEIGH_INCOMPLETE:
		swr_neigh_hold(ad, e, m);
		return;
	default:
		break;            /* the dummy of a full table */
	}
	SWR_STAT(ad, neigh_pending_drops);
	rte_pktmbuf_free(m);
}

void
swr_neigh_send(struct swr_adapter *ad, struct swr_neigh **cache,
	       rte_be32_t ip, struct rte_mbuf *m)
{
	uint8_t a[16];

	swr_neigh_key4(a, ip);
	swr_neigh_send6(ad, cache, a, m);
}

void
swr_neigh_output(struct swr_qp *qp, struct rte_mbuf *m)
{
	if (qp->attr.dest_ip == 0)
		swr_neigh_send6(qp->ad, &qp->neigh, qp->attr.dest_ip6, m);
	else
		swr_neigh_send(qp->ad, &qp->neigh, qp->attr.dest_ip, m);
}

void
swr_neigh_learn(struct swr_adapter *ad, const uint8_t ip[16],
		const struct rte_ether_addr *mac, bool add)
{
	struct swr_neigh_tbl *t = ad->neigh;
	struct swr_neigh *e;
	uint32_t ins;

	e = swr_neigh_find(t, ip, &ins);
	if (e == NULL) {
		if (!add || ins == UINT32_MAX || t->n_live >= SWR_NEIGH_MAX_LIVE)
			return;
		e = swr_neigh_insert(ad, ip, ins);
	}
	swr_neigh_confirm(ad, e, mac);
}

/* ------------------------------------------------------------------ */
/* Timers                                                              */
/* ------------------------------------------------------------------ */

static void
swr_neigh_expire(struct swr_adapter *ad, struct swr_neigh *e)
{
	struct swr_neigh_tbl *t = ad->neigh;

	switch (e->state) {
	case SWR_NEIGH_INCOMPLETE:
		if (e->probes == 0)
			swr_neigh_delete(t, e);       /* idle too long */
		else if (e->probes < SWR_NEIGH_PROBES)
			swr_neigh_solicit(ad, e, false);
		else
			swr_neigh_fail(ad, e);
		break;
	case SWR_NEIGH_REACHABLE:
		if (e->probes < SWR_NEIGH_PROBES) {
			swr_neigh_solicit(ad, e, true);   /* still in use */
		} else {
			e->state = SWR_NEIGH_INCOMPLETE;
			e->probes = 0;
			e->deadline = ad->now + t->t_idle;
		}
		break;
	default:
		swr_neigh_delete(t, e);       /* FAILED: hold-down over */
		break;
	}
}

/*
 * The link came up: whatever was being resolved starts over now (requests
 * sent while down were lost or went out in a clump, and a peer that lost
 * its carrier forgot us); failed entries are forgotten.
 */
static void
swr_neigh_link_up(struct swr_adapter *ad)
{
	struct swr_neigh_tbl *t = ad->neigh;

	for (uint32_t i = t->n_live; i-- > 0;) {
		struct swr_neigh *e = &t->e[t->live[i]];

		if (e->state == SWR_NEIGH_FAILED) {
			swr_neigh_delete(t, e);
		} else if (e->state == SWR_NEIGH_INCOMPLETE && e->probes != 0) {
			e->probes = 0;
			swr_neigh_solicit(ad, e, false);
		}
	}
}

void
swr_neigh_timers(struct swr_adapter *ad)
{
	struct swr_neigh_tbl *t = ad->neigh;
	uint64_t now = ad->now;
	uint32_t gen = __atomic_load_n(&ad->link_gen, __ATOMIC_ACQUIRE);
	bool up = __atomic_load_n(&ad->link_up, __ATOMIC_ACQUIRE) != 0;

	ad->neigh_tick = now + t->t_tick;
	if (gen != ad->neigh_link_gen) {
		ad->neigh_link_gen = gen;
		swr_neigh_link_up(ad);
	}
	/* Backwards: a deletion moves the last live entry into place. */
	for (uint32_t i = t->n_live; i-- > 0;) {
		struct swr_neigh *e = &t->e[t->live[i]];

		if (e->n_pending != 0 && now - e->pending_since >= t->t_pend)
			swr_neigh_drop_pending(ad, e);
		if (now < e->deadline)
			continue;
		/* No requests into a dead link: wait for it to come up. */
		if (!up && e->state != SWR_NEIGH_FAILED) {
			e->deadline = now + t->t_retry;
			continue;
		}
		swr_neigh_expire(ad, e);
	}
}

/* ------------------------------------------------------------------ */
/* ARP input                                                           */
/* ------------------------------------------------------------------ */

/* A unicast IPv4 address a host may have (not 0/8, 127/8, class D/E). */
static inline bool
swr_ip_host(rte_be32_t ip)
{
	uint32_t h = rte_be_to_cpu_32(ip);

	return (h >> 24) != 0 && (h >> 24) != 127 && (h >> 28) < 0xE;
}

static enum swr_neigh_rx
swr_arp_input(struct swr_adapter *ad, struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eth =
		rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_arp_hdr *arp = (const struct rte_arp_hdr *)(eth + 1);
	const struct rte_arp_ipv4 *d = &arp->arp_data;
	struct rte_ether_addr sha;
	rte_be32_t sip;
	bool for_us;

	if (ad->ipv4 == 0 || rte_pktmbuf_data_len(m) < SWR_ARP_FRAME ||
	    arp->arp_hardware != RTE_BE16(RTE_ARP_HRD_ETHER) ||
	    arp->arp_protocol != RTE_BE16(RTE_ETHER_TYPE_IPV4) ||
	    arp->arp_hlen != RTE_ETHER_ADDR_LEN ||
	    arp->arp_plen != sizeof(rte_be32_t) ||
	    (arp->arp_opcode != RTE_BE16(RTE_ARP_OP_REQUEST) &&
	     arp->arp_opcode != RTE_BE16(RTE_ARP_OP_REPLY)))
		return SWR_NEIGH_RX_IGNORED;
	if (!rte_is_broadcast_ether_addr(&eth->dst_addr) &&
	    !rte_is_same_ether_addr(&eth->dst_addr, &ad->mac))
		return SWR_NEIGH_RX_IGNORED;
	rte_ether_addr_copy(&d->arp_sha, &sha);
	sip = d->arp_sip;
	/* A group sender address, or someone claiming ours: ignore. */
	if (rte_is_multicast_ether_addr(&sha) || sip == ad->ipv4)
		return SWR_NEIGH_RX_IGNORED;
	for_us = d->arp_tip == ad->ipv4;
	if (swr_ip_host(sip)) {
		uint8_t a[16];

		swr_neigh_key4(a, sip);
		swr_neigh_learn(ad, a, &sha, for_us);
	}
	if (!for_us)
		return SWR_NEIGH_RX_IGNORED;  /* merged at most */
	if (arp->arp_opcode == RTE_BE16(RTE_ARP_OP_REPLY)) {
		SWR_STAT(ad, arp_replies_rcvd);
		return SWR_NEIGH_RX_DONE;
	}
	/* Requests from 0.0.0.0 (RFC 5227 probes) are answered too. */
	SWR_STAT(ad, arp_requests_rcvd);
	swr_arp_send(ad, RTE_ARP_OP_REPLY, &sha, &sha, sip);
	return SWR_NEIGH_RX_DONE;
}

/* ------------------------------------------------------------------ */
/* ICMP echo                                                           */
/* ------------------------------------------------------------------ */

/* A validated echo request. */
struct swr_echo {
	struct rte_ether_addr smac;
	rte_be32_t sip;
	uint8_t tos;
	uint32_t icmp_off;        /**< in the packet */
	uint32_t icmp_len;        /**< ICMP header and data */
	uint32_t frame_len;       /**< Ethernet header .. IP end */
};

/*
 * Not rte_raw_cksum_mbuf(): DPDK 22.11 drops carries when a segment
 * boundary falls on an odd offset (it swaps an unfolded sum).
 */
uint16_t
swr_cksum_mbuf(const struct rte_mbuf *m, uint32_t off, uint32_t len)
{
	uint32_t sum = 0;
	bool odd = false;

	while (m != NULL && off >= m->data_len) {
		off -= m->data_len;
		m = m->next;
	}
	for (; m != NULL && len != 0; m = m->next, off = 0) {
		uint32_t n = RTE_MIN((uint32_t)m->data_len - off, len);
		uint16_t s = rte_raw_cksum(rte_pktmbuf_mtod_offset(m,
						const void *, off), n);

		/* Bytes after an odd count sit in the other half-word. */
		sum += odd ? rte_bswap16(s) : s;
		odd ^= n & 1;
		len -= n;
	}
	sum = (sum & 0xFFFF) + (sum >> 16);
	sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)sum;
}

/* Check an IPv4/ICMP frame is an echo request for us; fill @p q. */
static bool
swr_echo_parse(const struct swr_adapter *ad, const struct rte_mbuf *m,
	       struct swr_echo *q)
{
	const struct rte_ether_hdr *eth =
		rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(eth + 1);
	const struct rte_icmp_hdr *icmp;
	uint32_t seg = rte_pktmbuf_data_len(m), ihl, ip_len;
	uint16_t sum;

	if (eth->ether_type != RTE_BE16(RTE_ETHER_TYPE_IPV4) ||
	    ad->ipv4 == 0 || seg < RTE_ETHER_HDR_LEN + SWR_IPV4_HDR_LEN ||
	    ip->next_proto_id != IPPROTO_ICMP ||
	    !rte_is_same_ether_addr(&eth->dst_addr, &ad->mac) ||
	    ip->dst_addr != ad->ipv4 || (ip->version_ihl >> 4) != 4)
		return false;
	ihl = (uint32_t)(ip->version_ihl & RTE_IPV4_HDR_IHL_MASK) << 2;
	ip_len = rte_be_to_cpu_16(ip->total_length);
	if (ihl < SWR_IPV4_HDR_LEN ||
	    seg < RTE_ETHER_HDR_LEN + ihl + SWR_ICMP_HDR_LEN ||
	    ip_len < ihl + SWR_ICMP_HDR_LEN ||
	    rte_pktmbuf_pkt_len(m) < RTE_ETHER_HDR_LEN + ip_len ||
	    (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_MF_FLAG |
					    RTE_IPV4_HDR_OFFSET_MASK)) != 0 ||
	    rte_raw_cksum(ip, ihl) != 0xFFFF || !swr_ip_host(ip->src_addr))
		return false;
	icmp = (const struct rte_icmp_hdr *)((const uint8_t *)ip + ihl);
	if (icmp->icmp_type != RTE_IP_ICMP_ECHO_REQUEST ||
	    icmp->icmp_code != 0)
		return false;
	q->icmp_off = RTE_ETHER_HDR_LEN + ihl;
	q->icmp_len = ip_len - ihl;
	sum = swr_cksum_mbuf(m, q->icmp_off, q->icmp_len);
	if (sum != 0xFFFF)
		return false;
	rte_ether_addr_copy(&eth->src_addr, &q->smac);
	q->sip = ip->src_addr;
	q->tos = ip->type_of_service;
	q->frame_len = RTE_ETHER_HDR_LEN + ip_len;
	return true;
}

/*
 * Write the Ethernet and IPv4 headers of the reply at @p frame, turn the
 * ICMP message after them (already in place) into an echo reply, and
 * stage the frame.
 */
static void
swr_echo_send(struct swr_adapter *ad, struct rte_mbuf *m,
	      const struct swr_echo *q)
{
	uint8_t *frame = rte_pktmbuf_mtod(m, uint8_t *);
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)frame;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	struct rte_icmp_hdr *icmp = (struct rte_icmp_hdr *)(ip + 1);

	rte_ether_addr_copy(&q->smac, &eth->dst_addr);
	rte_ether_addr_copy(&ad->mac, &eth->src_addr);
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->type_of_service = q->tos;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(SWR_IPV4_HDR_LEN +
						       q->icmp_len));
	ip->fragment_offset = RTE_BE16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_ICMP;
	ip->src_addr = ad->ipv4;
	ip->dst_addr = q->sip;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	icmp->icmp_type = RTE_IP_ICMP_ECHO_REPLY;
	icmp->icmp_code = 0;
	icmp->icmp_cksum = 0;
	icmp->icmp_cksum = (uint16_t)~rte_raw_cksum(icmp, q->icmp_len);
	swr_eth_pad(m);
	SWR_STAT(ad, icmp_echo_replied);
	swr_tx_stage(ad, m);
}

/* Reply in a fresh single-segment mbuf (IP options are not echoed). */
static enum swr_neigh_rx
swr_echo_copy(struct swr_adapter *ad, const struct rte_mbuf *m,
	      const struct swr_echo *q)
{
	uint32_t len = RTE_ETHER_HDR_LEN + SWR_IPV4_HDR_LEN + q->icmp_len;
	struct rte_mbuf *r;
	uint8_t *frame;

	r = rte_pktmbuf_alloc(ad->mp);
	if (unlikely(r == NULL)) {
		SWR_STAT(ad, mbuf_alloc_fail);
		return SWR_NEIGH_RX_DONE;
	}
	frame = len <= rte_pktmbuf_tailroom(r) ?
		(uint8_t *)rte_pktmbuf_append(r, (uint16_t)len) : NULL;
	if (frame == NULL) {
		rte_pktmbuf_free(r);  /* larger than our buffers */
		return SWR_NEIGH_RX_IGNORED;
	}
	ndk_roce_mbuf_copy_out(m, q->icmp_off, frame + RTE_ETHER_HDR_LEN +
			       SWR_IPV4_HDR_LEN, q->icmp_len);
	swr_echo_send(ad, r, q);
	return SWR_NEIGH_RX_DONE;
}

static enum swr_neigh_rx
swr_icmp_input(struct swr_adapter *ad, struct rte_mbuf *m)
{
	struct swr_echo q;

	if (!swr_echo_parse(ad, m, &q))
		return SWR_NEIGH_RX_IGNORED;
	/* In place only if nobody else can see the buffer change. */
	if (m->nb_segs != 1 || !RTE_MBUF_DIRECT(m) ||
	    rte_mbuf_refcnt_read(m) != 1 ||
	    q.icmp_off != RTE_ETHER_HDR_LEN + SWR_IPV4_HDR_LEN)
		return swr_echo_copy(ad, m, &q);
	if (rte_pktmbuf_pkt_len(m) > q.frame_len)
		rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_pkt_len(m) -
					       q.frame_len));
	m->ol_flags = 0;
	m->packet_type = 0;
	swr_echo_send(ad, m, &q);
	return SWR_NEIGH_RX_TAKEN;
}

enum swr_neigh_rx
swr_neigh_input(struct swr_adapter *ad, struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eth;

	if (unlikely(rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN))
		return SWR_NEIGH_RX_IGNORED;
	eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_ARP))
		return swr_arp_input(ad, m);
	if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV4))
		return swr_icmp_input(ad, m);
	if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV6))
		return swr_nd_input(ad, m);
	return SWR_NEIGH_RX_IGNORED;
}
