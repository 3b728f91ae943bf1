/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Bottleneck queue (ndk_netem_queue.h): a ring of (frame, departure time)
 * whose size is the packet limit (or the byte limit over the smallest
 * Ethernet frame), a "link free at" time, and counters.
 *
 * Serialization time of a frame: (bytes + overhead) * tpb >> 16, where
 * tpb = (8 * hz << 16) / rate is the clock ticks per byte in 16.16 fixed
 * point (computed once; no division per frame). RED's probability is a
 * 32-bit threshold (p * 2^32) compared with the upper half of a
 * xorshift64* draw, as in ndk_netem.c.
 *
 * Counters are written by the one thread that runs the queue with
 * relaxed atomic stores and read with relaxed loads.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "ndk_netem_queue.h"
#include "netem_priv.h"

RTE_LOG_REGISTER(ndk_netem_queue_logtype, ndk.netem.queue, NOTICE);

#define NQ_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, ndk_netem_queue_logtype, \
		"ndk_netem_queue: " fmt "\n", ##__VA_ARGS__)

#define NQ_MIN_FRAME	60u	/* smallest Ethernet frame without FCS */
#define NQ_MAX_SLOTS	(1u << 20)
#define NQ_PPM_MAX	1000000u
#define NQ_ETH_HLEN	14u
#define NQ_VLAN_HLEN	4u
#define NQ_ECN_MASK	3u
#define NQ_ECN_CE	3u

struct nq_slot {
	struct rte_mbuf *m;
	uint64_t depart;
};

struct ndk_netem_queue {
	struct ndk_netem_queue_config cfg;
	uint64_t tpb;           /* ticks per byte, 16.16 */
	uint64_t link_free;     /* the last queued frame leaves then */
	uint64_t rng;
	uint64_t red_span;      /* ecn_kmax - ecn_kmin (RED), or 0 (step) */
	uint64_t red_pmax;      /* ecn_pmax as a 32-bit threshold */
	uint32_t mask;          /* slots - 1 */
	uint32_t head;
	uint32_t count;
	uint32_t bytes;
	/* ethdev attachment (ndk_netem_queue_attach) */
	const struct rte_eth_rxtx_callback *cb;
	uint16_t port_id;
	uint16_t queue_id;
	struct ndk_netem_queue_stats stats __rte_cache_aligned;
	struct nq_slot slot[];
};

static inline void
nq_stat_set(uint64_t *c, uint64_t v)
{
	__atomic_store_n(c, v, __ATOMIC_RELAXED);
}

static int
nq_check(const struct ndk_netem_queue_config *c, uint64_t hz)
{
	if (c == NULL || c->rate_bps == 0 || hz == 0)
		return -EINVAL;
	if (c->limit_pkts == 0 && c->limit_bytes == 0)
		return -EINVAL;         /* an unbounded buffer is no switch */
	if (c->limit_pkts > NQ_MAX_SLOTS ||
	    (c->limit_pkts == 0 && c->limit_bytes / NQ_MIN_FRAME >
	     NQ_MAX_SLOTS))
		return -E2BIG;
	if (c->ecn_pmax_ppm > NQ_PPM_MAX)
		return -EINVAL;
	/* 16.16 ticks per byte must fit: 8 * hz < 2^47. */
	if (hz >= (UINT64_C(1) << 44))
		return -ERANGE;
	return 0;
}

struct ndk_netem_queue *
ndk_netem_queue_create(const struct ndk_netem_queue_config *config,
		       uint64_t hz, int socket)
{
	struct ndk_netem_queue *q;
	uint32_t want, slots;
	int rc;

	rc = nq_check(config, hz);
	if (rc != 0) {
		NQ_LOG(ERR, "create: bad configuration (%s): rate must be > 0, "
		       "a packet or byte limit set, pmax <= %u ppm",
		       rte_strerror(-rc), NQ_PPM_MAX);
		rte_errno = -rc;
		return NULL;
	}
	want = config->limit_pkts != 0 ? config->limit_pkts :
		config->limit_bytes / NQ_MIN_FRAME + 1;
	slots = rte_align32pow2(want);
	q = rte_zmalloc_socket("ndk_netem_queue", sizeof(*q) +
			       (size_t)slots * sizeof(q->slot[0]),
			       RTE_CACHE_LINE_SIZE, socket);
	if (q == NULL) {
		NQ_LOG(ERR, "create: out of memory (%u slots)", slots);
		rte_errno = ENOMEM;
		return NULL;
	}
	q->cfg = *config;
	q->mask = slots - 1;
	q->tpb = ((8 * hz) << 16) / config->rate_bps;
	if (q->tpb == 0)
		q->tpb = 1;
	q->rng = netem_seed_state(config->seed != 0 ? config->seed :
				  NETEM_DEFAULT_SEED);
	if (config->ecn_kmax > config->ecn_kmin) {
		q->red_span = config->ecn_kmax - config->ecn_kmin;
		q->red_pmax = ((uint64_t)config->ecn_pmax_ppm << 32) /
			NQ_PPM_MAX;
	}
	return q;
}

/* Depth in the unit of the ECN thresholds. */
static inline uint64_t
nq_depth(const struct ndk_netem_queue *q)
{
	return q->cfg.ecn_bytes ? q->bytes : q->count;
}

/* Should a frame arriving now be marked (if it is ECT)? */
static bool
nq_want_mark(struct ndk_netem_queue *q)
{
	uint64_t d = nq_depth(q), over, thr;

	if (q->cfg.ecn_kmin == 0 || d < q->cfg.ecn_kmin)
		return false;
	if (q->red_span == 0 || d >= q->cfg.ecn_kmax)
		return true;
	over = d - q->cfg.ecn_kmin;
	thr = q->red_pmax * over / q->red_span;
	return (netem_rand_next(&q->rng) >> 32) < thr;
}

/*
 * Offset of the IP header's ECN byte and the shift of the ECN field in it,
 * or 0 if the frame is neither IPv4 nor IPv6 (one VLAN tag allowed).
 */
static uint32_t
nq_ecn_off(const struct rte_mbuf *m, bool *v6)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t l3 = NQ_ETH_HLEN;
	uint16_t type;

	if (m->data_len < NQ_ETH_HLEN + NQ_VLAN_HLEN + 2)
		return 0;
	type = (uint16_t)(d[12] << 8 | d[13]);
	if (type == RTE_ETHER_TYPE_VLAN) {
		type = (uint16_t)(d[16] << 8 | d[17]);
		l3 += NQ_VLAN_HLEN;
	}
	if (type == RTE_ETHER_TYPE_IPV4 &&
	    m->data_len >= l3 + sizeof(struct rte_ipv4_hdr)) {
		*v6 = false;
		return l3;
	}
	if (type == RTE_ETHER_TYPE_IPV6 &&
	    m->data_len >= l3 + sizeof(struct rte_ipv6_hdr)) {
		*v6 = true;
		return l3;
	}
	return 0;
}

static inline uint8_t
nq_ecn(const uint8_t *l3, bool v6)
{
	return v6 ? (l3[1] >> 4) & NQ_ECN_MASK : l3[1] & NQ_ECN_MASK;
}

/*
 * Mark CE if ECT. @return the frame (perhaps a copy), *marked set; or the
 * frame unchanged with *not_ect set.
 */
static struct rte_mbuf *
nq_mark(struct rte_mbuf *m, bool *marked, bool *not_ect)
{
	bool v6 = false;
	uint32_t off = nq_ecn_off(m, &v6);
	uint8_t *l3;
	uint8_t ecn;

	if (off == 0) {
		*not_ect = true;
		return m;
	}
	ecn = nq_ecn(rte_pktmbuf_mtod_offset(m, uint8_t *, off), v6);
	if (ecn == 0) {
		*not_ect = true;
		return m;
	}
	if (ecn == NQ_ECN_CE) {
		*marked = true;         /* marked upstream: count it as ours */
		return m;
	}
	m = netem_writable(m);
	if (m == NULL)
		return NULL;
	l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, off);
	if (v6) {
		l3[1] |= NQ_ECN_CE << 4;
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)l3;

		ip->type_of_service |= NQ_ECN_CE;
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	*marked = true;
	return m;
}

enum ndk_netem_queue_verdict
ndk_netem_queue_enqueue(struct ndk_netem_queue *q, struct rte_mbuf *m,
			uint64_t now)
{
	uint32_t len = rte_pktmbuf_pkt_len(m);
	bool marked = false, not_ect = false;
	struct nq_slot *s;

	if (q->count > q->mask ||
	    (q->cfg.limit_pkts != 0 && q->count >= q->cfg.limit_pkts) ||
	    (q->cfg.limit_bytes != 0 && q->bytes + len > q->cfg.limit_bytes)) {
		rte_pktmbuf_free(m);
		nq_stat_set(&q->stats.dropped, q->stats.dropped + 1);
		return NDK_NETEM_QUEUE_DROPPED;
	}
	if (nq_want_mark(q)) {
		struct rte_mbuf *c = nq_mark(m, &marked, &not_ect);

		if (c == NULL) {        /* no buffer for a writable copy */
			rte_pktmbuf_free(m);
			nq_stat_set(&q->stats.dropped, q->stats.dropped + 1);
			return NDK_NETEM_QUEUE_DROPPED;
		}
		m = c;
	}
	if (q->link_free < now)
		q->link_free = now;
	q->link_free += ((uint64_t)(len + q->cfg.overhead) * q->tpb) >> 16;
	s = &q->slot[(q->head + q->count) & q->mask];
	s->m = m;
	s->depart = q->link_free;
	q->count++;
	q->bytes += len;
	nq_stat_set(&q->stats.enqueued, q->stats.enqueued + 1);
	if (marked)
		nq_stat_set(&q->stats.marked, q->stats.marked + 1);
	if (not_ect)
		nq_stat_set(&q->stats.not_ect, q->stats.not_ect + 1);
	__atomic_store_n(&q->stats.depth_pkts, q->count, __ATOMIC_RELAXED);
	__atomic_store_n(&q->stats.depth_bytes, q->bytes, __ATOMIC_RELAXED);
	if (q->count > q->stats.max_depth_pkts)
		__atomic_store_n(&q->stats.max_depth_pkts, q->count,
				 __ATOMIC_RELAXED);
	return marked ? NDK_NETEM_QUEUE_MARKED : NDK_NETEM_QUEUE_QUEUED;
}

unsigned int
ndk_netem_queue_dequeue(struct ndk_netem_queue *q, uint64_t now,
			struct rte_mbuf **pkts, unsigned int max)
{
	unsigned int n = 0;
	uint64_t bytes = 0;

	while (n < max && q->count != 0) {
		struct nq_slot *s = &q->slot[q->head];

		if (s->depart > now)
			break;
		pkts[n++] = s->m;
		bytes += rte_pktmbuf_pkt_len(s->m);
		s->m = NULL;
		q->head = (q->head + 1) & q->mask;
		q->count--;
	}
	if (n == 0)
		return 0;
	q->bytes -= (uint32_t)bytes;
	nq_stat_set(&q->stats.dequeued, q->stats.dequeued + n);
	nq_stat_set(&q->stats.bytes_out, q->stats.bytes_out + bytes);
	__atomic_store_n(&q->stats.depth_pkts, q->count, __ATOMIC_RELAXED);
	__atomic_store_n(&q->stats.depth_bytes, q->bytes, __ATOMIC_RELAXED);
	return n;
}

uint64_t
ndk_netem_queue_next(const struct ndk_netem_queue *q)
{
	return q->count != 0 ? q->slot[q->head].depart : UINT64_MAX;
}

void
ndk_netem_queue_get_stats(const struct ndk_netem_queue *q,
			  struct ndk_netem_queue_stats *st)
{
	const struct ndk_netem_queue_stats *s;

	if (q == NULL || st == NULL) {
		rte_errno = EINVAL;
		return;
	}
	s = &q->stats;
	st->enqueued = __atomic_load_n(&s->enqueued, __ATOMIC_RELAXED);
	st->dropped = __atomic_load_n(&s->dropped, __ATOMIC_RELAXED);
	st->marked = __atomic_load_n(&s->marked, __ATOMIC_RELAXED);
	st->not_ect = __atomic_load_n(&s->not_ect, __ATOMIC_RELAXED);
	st->dequeued = __atomic_load_n(&s->dequeued, __ATOMIC_RELAXED);
	st->bytes_out = __atomic_load_n(&s->bytes_out, __ATOMIC_RELAXED);
	st->depth_pkts = __atomic_load_n(&s->depth_pkts, __ATOMIC_RELAXED);
	st->depth_bytes = __atomic_load_n(&s->depth_bytes, __ATOMIC_RELAXED);
	st->max_depth_pkts = __atomic_load_n(&s->max_depth_pkts,
					     __ATOMIC_RELAXED);
}

void
ndk_netem_queue_free(struct ndk_netem_queue *q)
{
	if (q == NULL)
		return;
	while (q->count != 0) {
		rte_pktmbuf_free(q->slot[q->head].m);
		q->head = (q->head + 1) & q->mask;
		q->count--;
	}
	rte_free(q);
}

/* RX callback: the burst goes into the queue, what is due comes out. */
static uint16_t
nq_rx_cb(uint16_t port_id __rte_unused, uint16_t queue_id __rte_unused,
	 struct rte_mbuf **pkts, uint16_t nb_rx, uint16_t max_pkts, void *arg)
{
	struct ndk_netem_queue *q = arg;
	uint64_t now = q->cfg.clock == NULL ? rte_rdtsc() :
		q->cfg.clock(q->cfg.clock_arg);

	for (uint16_t i = 0; i < nb_rx; i++)
		ndk_netem_queue_enqueue(q, pkts[i], now);
	return (uint16_t)ndk_netem_queue_dequeue(q, now, pkts, max_pkts);
}

struct ndk_netem_queue *
ndk_netem_queue_attach(uint16_t port_id, uint16_t queue_id,
		       const struct ndk_netem_queue_config *config)
{
	struct rte_eth_dev_info info;
	struct ndk_netem_queue *q;
	int socket, rc;

	if (!rte_eth_dev_is_valid_port(port_id)) {
		NQ_LOG(ERR, "attach: invalid port %u", port_id);
		rte_errno = ENODEV;
		return NULL;
	}
	rc = rte_eth_dev_info_get(port_id, &info);
	if (rc != 0 || queue_id >= info.nb_rx_queues) {
		NQ_LOG(ERR, "attach: port %u has no RX queue %u", port_id,
		       queue_id);
		rte_errno = rc != 0 ? -rc : EINVAL;
		return NULL;
	}
	socket = rte_eth_dev_socket_id(port_id);
	q = ndk_netem_queue_create(config, rte_get_tsc_hz(),
				   socket < 0 ? SOCKET_ID_ANY : socket);
	if (q == NULL)
		return NULL;
	q->port_id = port_id;
	q->queue_id = queue_id;
	q->cb = rte_eth_add_rx_callback(port_id, queue_id, nq_rx_cb, q);
	if (q->cb == NULL) {
		rc = rte_errno;
		NQ_LOG(ERR, "attach: port %u queue %u: cannot add RX callback: "
		       "%s", port_id, queue_id, rte_strerror(rc));
		ndk_netem_queue_free(q);
		rte_errno = rc;
		return NULL;
	}
	NQ_LOG(INFO, "port %u queue %u: %" PRIu64 " bit/s, limit %u pkts "
	       "%u bytes, ECN from %u to %u %s", port_id, queue_id,
	       config->rate_bps, config->limit_pkts, config->limit_bytes,
	       config->ecn_kmin, config->ecn_kmax,
	       config->ecn_bytes ? "bytes" : "pkts");
	return q;
}

void
ndk_netem_queue_detach(struct ndk_netem_queue *q)
{
	int rc;

	if (q == NULL)
		return;
	rc = rte_eth_remove_rx_callback(q->port_id, q->queue_id, q->cb);
	if (rc != 0) {
		/* Still linked: keep the memory, the callback may run. */
		NQ_LOG(ERR, "detach: port %u queue %u: cannot remove RX "
		       "callback (%s); queue leaked", q->port_id, q->queue_id,
		       rte_strerror(-rc));
		rte_errno = -rc;
		return;
	}
	rte_free((void *)(uintptr_t)q->cb);
	ndk_netem_queue_free(q);
}
