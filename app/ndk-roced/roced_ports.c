/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * ndk-roced port ownership: every configured port is found among the
 * ethdevs the EAL created, or probed from its devargs; an NDK adapter is
 * opened on it (the provider configures and starts the port), and the
 * adapters are handed to pollers, one per lcore. Closing is in two steps
 * so the daemon can stop polling, give the peers time, and only then
 * close the ports (memif crashes a side that polls while the other
 * disconnects: platform notes).
 */

#include <errno.h>
#include <string.h>

#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>

#include "roced.h"

/* The ethdev of a device string: its name is what precedes a comma. */
static int
find_port(const struct roced_port_cfg *c, uint16_t *port_id)
{
	char name[ROCED_DEV_LEN];

	snprintf(name, sizeof(name), "%.*s", (int)strcspn(c->device, ","),
		 c->device);
	return rte_eth_dev_get_port_by_name(name, port_id);
}

static int
port_attach(const struct roced_port_cfg *c, struct roced_port *p)
{
	int rc;

	if (find_port(c, &p->port_id) == 0)
		return 0;
	if (c->pci) {
		ROCED_LOG(ERR, "%s: PCI device %s has no DPDK "
			"port (is it bound to vfio-pci or uio?)", c->where,
			c->device);
		return -EINVAL;
	}
	rc = rte_dev_probe(c->device);
	if (rc < 0 || find_port(c, &p->port_id) != 0) {
		ROCED_LOG(ERR, "%s: cannot probe device '%s': "
			"%s", c->where, c->device,
			rc < 0 ? rte_strerror(-rc) : "it made no ethdev");
		return -EINVAL;
	}
	p->probed = true;
	return 0;
}

static int
port_lcore(const struct roced_port_cfg *c, struct roced_port *p,
	   bool *main_polls)
{
	unsigned int l;

	if (c->lcore < 0) {
		l = rte_get_next_lcore(-1, 1, 0);
		if (l >= RTE_MAX_LCORE) {
			/* One lcore only: the main thread polls. */
			l = rte_get_main_lcore();
			*main_polls = true;
		}
		for (unsigned int q = 0; q < c->queues; q++)
			p->lcores[q] = l;
		p->lcore = l;
		return 0;
	}
	for (unsigned int k = 0; k < c->n_lcores; k++) {
		l = (unsigned int)c->lcores[k];
		if (!rte_lcore_is_enabled(l) || l == rte_get_main_lcore()) {
			ROCED_LOG(ERR, "%s: lcore %u is not a worker lcore "
				"of the EAL (give it with -l/lcores; the main "
				"lcore %u runs the daemon)", c->where, l,
				rte_get_main_lcore());
			return -EINVAL;
		}
	}
	/* Queue q to the q-th lcore listed, round robin. */
	for (unsigned int q = 0; q < c->queues; q++)
		p->lcores[q] = (unsigned int)c->lcores[q % c->n_lcores];
	p->lcore = p->lcores[0];
	return 0;
}

static int
port_open(const struct roced_config *cfg, const struct roced_port_cfg *c,
	  struct roced_port *p)
{
	struct ndk_adapter_config ac = {
		.port_id = p->port_id,
		.configure_port = true,
		.ipv4 = c->ipv4,
		.max_path_mtu = c->mtu,
		.max_qp = cfg->max_qp,
		.max_cq = cfg->max_cq,
		.max_mr = cfg->max_mr,
		.socket_id = SOCKET_ID_ANY,
		.nb_queues = c->queues,
		.cc = c->cc,
		.cc_line_mbps = c->cc_line_mbps,
		.cnp_interval_us = c->cnp_interval_us,
		.cc_delay_us = c->cc_delay_us,
		.cc_window_init = c->cc_window_init,
		.cc_start_mbps = c->cc_start_mbps,
	};
	uint32_t size = sizeof(p->info);
	ndk_status_t st;

	memcpy(ac.ipv6, c->ipv6, sizeof(ac.ipv6));
	memcpy(ac.mac, c->mac, sizeof(ac.mac));
	st = ndk_adapter_open(&ac, &p->ad);
	if (st != NDK_STATUS_SUCCESS) {
		p->ad = NULL;
		ROCED_LOG(ERR, "%s: cannot open an adapter on "
			"port %u (%s): %s", c->where, p->port_id, c->device,
			ndk_status_str(st));
		return st == NDK_STATUS_INVALID_PARAMETER ? -EINVAL : -ENODEV;
	}
	ndk_query_adapter_info(p->ad, &p->info, &size);
	st = ndk_adapter_set_adaptive_rto(p->ad, !c->strict_rto,
					  c->rto_floor_us);
	if (st != NDK_STATUS_SUCCESS)
		ROCED_LOG(WARNING, "%s: adaptive retransmission not set: %s",
			  c->where, ndk_status_str(st));
	if (c->cm_set) {
		st = ndk_adapter_set_cm_params(p->ad, &c->cm);
		if (st != NDK_STATUS_SUCCESS) {
			ROCED_LOG(ERR, "%s: connection manager parameters "
				  "not set: %s", c->where,
				  ndk_status_str(st));
			return -EINVAL;
		}
	}
	for (uint16_t q = 0; c->netem_on && q < c->queues; q++) {
		struct ndk_netem_config nc = c->netem;

		/* Reproducible, and not the same on every port and queue. */
		nc.seed = 0x50a4000000000000ull ^ ((uint64_t)c->ipv4 << 8) ^ q;
		p->netem[q] = ndk_netem_attach(p->port_id, q, &nc);
		if (p->netem[q] == NULL) {
			ROCED_LOG(ERR, "%s: cannot impair receive queue %u: "
				  "%s", c->where, q, rte_strerror(rte_errno));
			return -ENODEV;
		}
	}
	if (c->netem_on)
		ROCED_LOG(NOTICE, "%s: receive impaired: drop %u, duplicate "
			  "%u, reorder %u ppm", c->where, c->netem.drop_ppm,
			  c->netem.dup_ppm, c->netem.reorder_ppm);
	if ((p->info.mac[0] | p->info.mac[1] | p->info.mac[2] |
	     p->info.mac[3] | p->info.mac[4] | p->info.mac[5]) == 0)
		ROCED_LOG(WARNING, "%s: port %s has no MAC address (net_ring):"
			  " give it one with mac = (peers cannot reach "
			  "00:00:00:00:00:00)", c->where, c->device);
	return 0;
}

/*
 * The queues one lcore polls: every queue of a port whose queues all go
 * to that lcore (NDK_POLL_ALL_QUEUES), else the queues given to it.
 */
static unsigned int
lcore_work(const struct roced_ports *ps, unsigned int lcore,
	   struct ndk_adapter **ads, uint16_t *queues)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < ps->n; i++) {
		const struct roced_port *p = &ps->port[i];
		uint16_t nq = p->cfg->queues, mine = 0;

		for (uint16_t q = 0; q < nq; q++)
			mine += p->lcores[q] == lcore;
		if (mine == nq) {
			ads[n] = p->ad;
			queues[n++] = NDK_POLL_ALL_QUEUES;
			continue;
		}
		for (uint16_t q = 0; q < nq; q++) {
			if (p->lcores[q] != lcore)
				continue;
			ads[n] = p->ad;
			queues[n++] = q;
		}
	}
	return n;
}

/* One poller per lcore, over every adapter queue that lcore polls. */
static int
pollers_start(struct roced_ports *ps)
{
	unsigned int lcore;

	RTE_LCORE_FOREACH_WORKER(lcore) {
		struct ndk_adapter *ads[ROCED_MAX_PORTS * ROCED_MAX_QUEUES];
		uint16_t queues[ROCED_MAX_PORTS * ROCED_MAX_QUEUES];
		unsigned int n = lcore_work(ps, lcore, ads, queues);
		int rc;

		if (n == 0)
			continue;
		rc = ndk_poller_start_queues(lcore, ads, queues, n,
					     &ps->poller[ps->n_pollers]);
		if (rc != 0) {
			ROCED_LOG(ERR, "cannot start a poller on "
				"lcore %u: %s", lcore, rte_strerror(-rc));
			return rc;
		}
		ps->n_pollers++;
	}
	return 0;
}

int
roced_ports_start(const struct roced_config *cfg, struct roced_ports *ps)
{
	int rc;

	memset(ps, 0, sizeof(*ps));
	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		const struct roced_port_cfg *c = &cfg->ports[i];
		struct roced_port *p = &ps->port[i];

		p->cfg = c;
		rc = port_lcore(c, p, &ps->main_polls);
		if (rc == 0)
			rc = port_attach(c, p);
		if (rc != 0)
			return rc;
		ps->n = i + 1;      /* from here on it needs closing */
		rc = port_open(cfg, c, p);
		if (rc != 0)
			return rc;
	}
	return pollers_start(ps);
}

void
roced_ports_poll(struct roced_ports *ps)
{
	if (!ps->main_polls)
		return;
	for (unsigned int i = 0; i < ps->n; i++)
		if (ps->port[i].ad != NULL &&
		    ps->port[i].lcore == rte_get_main_lcore())
			ndk_adapter_poll(ps->port[i].ad);
}

void
roced_ports_stop_polling(struct roced_ports *ps)
{
	for (unsigned int i = 0; i < ps->n_pollers; i++)
		ndk_poller_stop(ps->poller[i]);
	ps->n_pollers = 0;
	if (ps->main_polls) {
		for (unsigned int i = 0; i < ps->n; i++)
			if (ps->port[i].ad != NULL)
				ndk_adapter_release(ps->port[i].ad);
		ps->main_polls = false;
	}
}

void
roced_ports_close(struct roced_ports *ps)
{
	roced_ports_stop_polling(ps);
	for (unsigned int i = 0; i < ps->n; i++) {
		struct roced_port *p = &ps->port[i];
		struct rte_eth_dev_info di;

		for (unsigned int q = 0; q < ROCED_MAX_QUEUES; q++) {
			if (p->netem[q] != NULL)
				ndk_netem_detach(p->netem[q]);
			p->netem[q] = NULL;
		}
		if (p->ad != NULL)
			ndk_adapter_close(p->ad);   /* stops the port */
		p->ad = NULL;
		if (p->probed && rte_eth_dev_info_get(p->port_id, &di) == 0 &&
		    di.device != NULL && rte_dev_remove(di.device) == 0)
			continue;
		rte_eth_dev_close(p->port_id);
	}
	ps->n = 0;
}
