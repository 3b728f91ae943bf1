/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * ndk-roced telemetry: the /ndk commands of the rte_telemetry socket
 * (/var/run/dpdk/<file-prefix>/dpdk_telemetry.v2), readable with
 * dpdk-telemetry.py:
 *
 *   /ndk/adapters            every adapter: name, device, port, MAC, IP,
 *                            netmask, path MTU, link, lcore, QP count,
 *                            every extended counter of the provider
 *                            (ndk_adapter_xstats_get(), by name),
 *                            rx_dropped (their drops summed) and the
 *                            ethdev's own counters (eth_imissed, ...)
 *   /ndk/port[,<name>]       per port (or one): received frames dropped,
 *                            by reason (ICRC errors included), and the
 *                            ethdev counters
 *   /ndk/qps                 per adapter, the list of its QPNs
 *   /ndk/qp,<qpn>[,<name>]   one QP (ndk_qp_query_info); the adapter name
 *                            picks among adapters that have the same QPN
 *
 * The callbacks run on the telemetry thread. They read counters with
 * ndk_adapter_xstats_get() (a snapshot that may lag by a poll) and QP
 * state through the introspection API (which runs on the polling lcore).
 * A mutex, taken only here and when the daemon detaches at shutdown,
 * keeps them off adapters being closed: after roced_telemetry_detach()
 * they answer null.
 */

#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_mempool.h>
#include <rte_telemetry.h>

#include "roced.h"

static pthread_mutex_t tel_lock = PTHREAD_MUTEX_INITIALIZER;
static struct roced_ports *tel_ports;   /* NULL: detached */

static void
add_str(struct rte_tel_data *d, const char *name, const char *val)
{
	rte_tel_data_add_dict_string(d, name, val);
}

/* Counters of frames the adapter dropped on receive, by reason. */
#define ROCED_RX_DROPS(X) \
	X(rx_not_roce) X(rx_truncated) X(rx_bad_header) X(rx_bad_opcode) \
	X(rx_icrc_errors) X(rx_wrong_address) X(rx_unknown_qpn) \
	X(rx_qp_state) X(rx_bad_length) X(rx_ghost_resp)

/* Most extended counters shown (a dict holds RTE_TEL_MAX_DICT_ENTRIES). */
#define ROCED_XSTATS_MAX 192

/* The adapter's extended counters: names and values, in the same order. */
struct roced_xstats {
	int n;
	struct ndk_xstat_name name[ROCED_XSTATS_MAX];
	struct ndk_xstat val[ROCED_XSTATS_MAX];
};

static void
xstats_read(const struct roced_port *p, struct roced_xstats *x)
{
	x->n = ndk_adapter_xstats_get_names(p->ad, x->name, ROCED_XSTATS_MAX);
	if (x->n < 0 || x->n > ROCED_XSTATS_MAX ||
	    ndk_adapter_xstats_get(p->ad, x->val, (unsigned int)x->n) != x->n)
		x->n = 0;
}

/* Counter @p name, 0 if the provider has none of that name. */
static uint64_t
xstat(const struct roced_xstats *x, const char *name)
{
	for (int i = 0; i < x->n; i++)
		if (strcmp(x->name[i].name, name) == 0)
			return x->val[i].value;
	return 0;
}

/* The drop total, every reason if @p each, and the ethdev's counters. */
static void
drops_fill(const struct roced_port *p, const struct roced_xstats *x,
	   bool each, struct rte_tel_data *d)
{
	struct rte_eth_stats e;
	uint64_t total = 0;

#define ROCED_DROP_(f) total += xstat(x, #f); \
	if (each) \
		rte_tel_data_add_dict_u64(d, #f, xstat(x, #f));
	ROCED_RX_DROPS(ROCED_DROP_)
#undef ROCED_DROP_
	rte_tel_data_add_dict_u64(d, "rx_dropped", total);
	if (rte_eth_stats_get(p->port_id, &e) != 0)
		return;
	rte_tel_data_add_dict_u64(d, "eth_ipackets", e.ipackets);
	rte_tel_data_add_dict_u64(d, "eth_opackets", e.opackets);
	rte_tel_data_add_dict_u64(d, "eth_ibytes", e.ibytes);
	rte_tel_data_add_dict_u64(d, "eth_obytes", e.obytes);
	rte_tel_data_add_dict_u64(d, "eth_imissed", e.imissed);
	rte_tel_data_add_dict_u64(d, "eth_ierrors", e.ierrors);
	rte_tel_data_add_dict_u64(d, "eth_oerrors", e.oerrors);
	rte_tel_data_add_dict_u64(d, "eth_rx_nombuf", e.rx_nombuf);
}

static void
port_fill(const struct roced_port *p, struct rte_tel_data *d)
{
	struct roced_xstats x;

	rte_tel_data_start_dict(d);
	add_str(d, "device", p->cfg->device);
	rte_tel_data_add_dict_int(d, "port", p->port_id);
	xstats_read(p, &x);
	drops_fill(p, &x, true, d);
	if (p->cfg->netem_on) {
		struct ndk_netem_stats t = { 0 }, s;

		for (unsigned int q = 0; q < ROCED_MAX_QUEUES; q++) {
			if (p->netem[q] == NULL)
				continue;
			ndk_netem_get_stats(p->netem[q], &s);
			t.seen += s.seen;
			t.dropped += s.dropped;
			t.duplicated += s.duplicated;
			t.reordered += s.reordered;
		}
		rte_tel_data_add_dict_u64(d, "netem_seen", t.seen);
		rte_tel_data_add_dict_u64(d, "netem_dropped", t.dropped);
		rte_tel_data_add_dict_u64(d, "netem_duplicated", t.duplicated);
		rte_tel_data_add_dict_u64(d, "netem_reordered", t.reordered);
	}
}

static void
adapter_fill(const struct roced_port *p, struct rte_tel_data *d)
{
	const struct roced_port_cfg *c = p->cfg;
	struct roced_xstats x;
	struct rte_eth_link link = { 0 };
	char buf[64];
	uint32_t mask;
	int nq;

	rte_tel_data_start_dict(d);
	add_str(d, "name", c->name);
	add_str(d, "device", c->device);
	rte_tel_data_add_dict_int(d, "port", p->port_id);
	snprintf(buf, sizeof(buf), RTE_ETHER_ADDR_PRT_FMT,
		 p->info.mac[0], p->info.mac[1], p->info.mac[2],
		 p->info.mac[3], p->info.mac[4], p->info.mac[5]);
	add_str(d, "mac", buf);
	add_str(d, "ip", roced_ip_str(p->info.ipv4, buf));
	if (c->has_ipv6) {
		char b6[INET6_ADDRSTRLEN];

		add_str(d, "ip6", roced_ip6_str(p->info.ipv6, b6));
		rte_tel_data_add_dict_int(d, "prefix6", c->prefix6);
	}
	mask = c->prefix_len == 0 ? 0 :
		rte_cpu_to_be_32(~0u << (32 - c->prefix_len));
	add_str(d, "netmask", roced_ip_str(mask, buf));
	rte_tel_data_add_dict_int(d, "prefix_len", c->prefix_len);
	rte_tel_data_add_dict_int(d, "mtu", (int)p->info.max_path_mtu);
	rte_eth_link_get_nowait(p->port_id, &link);
	add_str(d, "link", link.link_status == RTE_ETH_LINK_UP ? "up" :
		"down");
	rte_tel_data_add_dict_u64(d, "link_speed_mbps", link.link_speed);
	rte_tel_data_add_dict_int(d, "lcore", (int)p->lcore);
	rte_tel_data_add_dict_int(d, "queues", (int)p->cfg->queues);
	rte_tel_data_add_dict_int(d, "max_qp", (int)p->info.max_qp);
	nq = ndk_adapter_qp_list(p->ad, NULL, 0);
	rte_tel_data_add_dict_int(d, "qps", RTE_MAX(nq, 0));
	xstats_read(p, &x);
	for (int i = 0; i < x.n; i++)
		rte_tel_data_add_dict_u64(d, x.name[i].name, x.val[i].value);
	drops_fill(p, &x, false, d);
}

/* A dict of one container per adapter, filled by @p fill. */
static int
per_adapter(struct rte_tel_data *d,
	    void (*fill)(const struct roced_port *, struct rte_tel_data *))
{
	int rc = -ENODEV;

	pthread_mutex_lock(&tel_lock);
	if (tel_ports != NULL) {
		rte_tel_data_start_dict(d);
		for (unsigned int i = 0; i < tel_ports->n; i++) {
			const struct roced_port *p = &tel_ports->port[i];
			struct rte_tel_data *a;

			if (p->ad == NULL || (a = rte_tel_data_alloc()) == NULL)
				continue;
			fill(p, a);
			rte_tel_data_add_dict_container(d, p->cfg->name, a, 0);
		}
		rc = 0;
	}
	pthread_mutex_unlock(&tel_lock);
	return rc;
}

static int
cmd_adapters(const char *cmd __rte_unused, const char *params __rte_unused,
	     struct rte_tel_data *d)
{
	return per_adapter(d, adapter_fill);
}

static void
qps_fill(const struct roced_port *p, struct rte_tel_data *a)
{
	uint32_t qpns[RTE_TEL_MAX_ARRAY_ENTRIES];
	/* At most RTE_TEL_MAX_ARRAY_ENTRIES fit a reply. */
	int n = ndk_adapter_qp_list(p->ad, qpns, RTE_DIM(qpns));

	rte_tel_data_start_array(a, RTE_TEL_U64_VAL);
	for (int k = 0; k < RTE_MIN(n, (int)RTE_DIM(qpns)); k++)
		rte_tel_data_add_array_u64(a, qpns[k]);
}

static int
cmd_qps(const char *cmd __rte_unused, const char *params __rte_unused,
	struct rte_tel_data *d)
{
	return per_adapter(d, qps_fill);
}

static void
qp_fill(const char *adapter, const struct ndk_qp_info *q,
	struct rte_tel_data *d)
{
	char ip[INET6_ADDRSTRLEN];

	rte_tel_data_start_dict(d);
	add_str(d, "adapter", adapter);
	rte_tel_data_add_dict_u64(d, "qpn", q->qpn);
	add_str(d, "state", ndk_qp_state_str((enum ndk_qp_state)q->state));
	rte_tel_data_add_dict_u64(d, "dest_qpn", q->dest_qpn);
	add_str(d, "dest_ip", roced_ip_str(q->dest_ip, ip));
	if (q->dest_ip == 0 && q->state != NDK_QP_STATE_RESET &&
	    q->state != NDK_QP_STATE_INIT)
		add_str(d, "dest_ip6", roced_ip6_str(q->dest_ip6, ip));
	rte_tel_data_add_dict_u64(d, "path_mtu", q->path_mtu);
	rte_tel_data_add_dict_u64(d, "send_psn", q->send_psn);
	rte_tel_data_add_dict_u64(d, "unacked_psn", q->unacked_psn);
	rte_tel_data_add_dict_u64(d, "expected_psn", q->expected_psn);
	rte_tel_data_add_dict_u64(d, "sq_depth", q->sq_depth);
	rte_tel_data_add_dict_u64(d, "rq_depth", q->rq_depth);
	rte_tel_data_add_dict_u64(d, "sq_outstanding", q->sq_outstanding);
	rte_tel_data_add_dict_u64(d, "rq_outstanding", q->rq_outstanding);
	rte_tel_data_add_dict_u64(d, "reads_outstanding",
				  q->reads_outstanding);
	rte_tel_data_add_dict_u64(d, "retransmit_packets",
				  q->events.retransmit_packets);
	rte_tel_data_add_dict_u64(d, "retransmit_timeouts",
				  q->events.retransmit_timeouts);
	rte_tel_data_add_dict_u64(d, "naks_sent", q->events.naks_sent);
	rte_tel_data_add_dict_u64(d, "naks_rcvd", q->events.naks_rcvd);
	rte_tel_data_add_dict_u64(d, "rnr_naks_sent", q->events.rnr_naks_sent);
	rte_tel_data_add_dict_u64(d, "rnr_naks_rcvd", q->events.rnr_naks_rcvd);
	rte_tel_data_add_dict_u64(d, "adaptive_retransmits",
				  q->events.adaptive_retransmits);
	rte_tel_data_add_dict_u64(d, "srtt_ns", q->srtt_ns);
	rte_tel_data_add_dict_u64(d, "rto_ns", q->rto_ns);
}

/* All ports, or the one named by @p params. */
static int
cmd_port(const char *cmd __rte_unused, const char *params,
	 struct rte_tel_data *d)
{
	int rc = -ENODEV;

	if (params == NULL || params[0] == '\0')
		return per_adapter(d, port_fill);
	pthread_mutex_lock(&tel_lock);
	for (unsigned int i = 0; tel_ports != NULL && i < tel_ports->n; i++) {
		const struct roced_port *p = &tel_ports->port[i];

		if (p->ad != NULL && strcmp(params, p->cfg->name) == 0) {
			port_fill(p, d);
			rc = 0;
			break;
		}
	}
	pthread_mutex_unlock(&tel_lock);
	return rc;
}

/* "<qpn>" or "<qpn>,<adapter name>"; QPN decimal or 0x hex. */
static int
cmd_qp(const char *cmd __rte_unused, const char *params,
       struct rte_tel_data *d)
{
	char name[ROCED_NAME_LEN] = "";
	struct ndk_qp_info q;
	unsigned long qpn;
	char *end;
	int rc = -ENODEV;

	if (params == NULL || params[0] == '\0')
		return -EINVAL;
	errno = 0;
	qpn = strtoul(params, &end, 0);
	if (errno != 0 || end == params || qpn > 0xFFFFFF ||
	    (*end != '\0' && *end != ','))
		return -EINVAL;
	if (*end == ',') {
		if (strlen(end + 1) >= sizeof(name))
			return -EINVAL;
		strcpy(name, end + 1);
	}
	pthread_mutex_lock(&tel_lock);
	for (unsigned int i = 0; tel_ports != NULL && i < tel_ports->n; i++) {
		const struct roced_port *p = &tel_ports->port[i];

		if (p->ad == NULL ||
		    (name[0] != '\0' && strcmp(name, p->cfg->name) != 0))
			continue;
		if (ndk_qp_query_info(p->ad, (uint32_t)qpn, &q) ==
		    NDK_STATUS_SUCCESS) {
			qp_fill(p->cfg->name, &q, d);
			rc = 0;
			break;
		}
	}
	pthread_mutex_unlock(&tel_lock);
	return rc;
}

static void
mempool_fill(struct rte_mempool *mp, void *arg)
{
	struct rte_tel_data *d = arg, *e = rte_tel_data_alloc();

	if (e == NULL)
		return;
	rte_tel_data_start_dict(e);
	rte_tel_data_add_dict_u64(e, "size", mp->size);
	rte_tel_data_add_dict_u64(e, "in_use", rte_mempool_in_use_count(mp));
	rte_tel_data_add_dict_u64(e, "cache_size", mp->cache_size);
	rte_tel_data_add_dict_container(d, mp->name, e, 0);
}

/* Every mempool of the process: size, objects in use (caches count as
 * in use), cache size; /mempool/info has no use count. */
static int
cmd_mempools(const char *cmd __rte_unused, const char *params __rte_unused,
	     struct rte_tel_data *d)
{
	rte_tel_data_start_dict(d);
	rte_mempool_walk(mempool_fill, d);
	return 0;
}

int
roced_telemetry_init(struct roced_ports *p)
{
	int rc;

	pthread_mutex_lock(&tel_lock);
	tel_ports = p;
	pthread_mutex_unlock(&tel_lock);
	rc = rte_telemetry_register_cmd("/ndk/adapters", cmd_adapters,
		"Adapters: name, device, port, MAC, IP, MTU, link and every "
		"counter. No parameters");
	if (rc == 0)
		rc = rte_telemetry_register_cmd("/ndk/qps", cmd_qps,
			"QP numbers of each adapter. No parameters");
	if (rc == 0)
		rc = rte_telemetry_register_cmd("/ndk/port", cmd_port,
			"Per port: received frames dropped by reason (ICRC "
			"errors...) and ethdev counters. Parameters: [name]");
	if (rc == 0)
		rc = rte_telemetry_register_cmd("/ndk/qp", cmd_qp,
			"One QP: state, PSNs, outstanding work, retransmits, "
			"NAKs. Parameters: qpn[,adapter name]");
	if (rc == 0)
		rc = rte_telemetry_register_cmd("/ndk/mempools", cmd_mempools,
			"Every mempool: size, objects in use, cache size. No "
			"parameters");
	return rc;
}

void
roced_telemetry_detach(struct roced_ports *p)
{
	/*
	 * A query may hold the lock while it waits for the polling thread;
	 * if that is this thread (one lcore), keep polling meanwhile.
	 */
	while (pthread_mutex_trylock(&tel_lock) != 0)
		roced_ports_poll(p);
	tel_ports = NULL;
	pthread_mutex_unlock(&tel_lock);
}
