/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * ndk-roced: start-up, the main loop and the orderly shutdown.
 *
 * Start: configuration (exit 2 on any error in it), EAL, ports and
 * adapters with their pollers, packet capture (rte_pdump), telemetry, the
 * echo service. The main thread then runs the echo service (and polls the
 * adapters itself when the EAL gave no worker lcore) until SIGTERM or
 * SIGINT.
 *
 * Shutdown drains before it closes: the echo connections are disconnected
 * (bounded wait for the peers), telemetry lets go of the adapters, the
 * pollers stop, the daemon stays idle linger-ms so memif peers can stop
 * polling too, and only then the adapters and ports close. Exit 0.
 */

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_pdump.h>

#include "roced.h"

RTE_LOG_REGISTER(roced_logtype, ndk.roced, INFO);

/* Idle main loop: how long it sleeps between rounds (microseconds). */
#define ROCED_IDLE_US 200

static volatile sig_atomic_t stop_signal;

static void
on_signal(int sig)
{
	stop_signal = sig;
}

static void
signals_init(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static void
print_ports(const struct roced_ports *ps)
{
	char ip[INET_ADDRSTRLEN];

	for (unsigned int i = 0; i < ps->n; i++) {
		const struct roced_port *p = &ps->port[i];
		const uint8_t *m = p->info.mac;

		ROCED_LOG(INFO, "port %s: %s (ethdev %u), %s/%u, MAC "
			  "%02x:%02x:%02x:%02x:%02x:%02x, path MTU %u, "
			  "%u queue(s), lcore %u%s", p->cfg->name,
			  p->cfg->device, p->port_id,
			  roced_ip_str(p->info.ipv4, ip), p->cfg->prefix_len,
			  m[0], m[1], m[2], m[3], m[4], m[5],
			  p->info.max_path_mtu, p->info.nb_queues, p->lcore,
			  ps->main_polls ? " (main thread)" : "");
	}
}

/* The EAL: its own argument errors end with status 2 as ours do. */
static int
eal_start(struct roced_config *cfg)
{
	if (rte_eal_init(cfg->eal_argc, cfg->eal_argv) >= 0)
		return 0;
	if (rte_errno == EINVAL) {
		fprintf(stderr, "ndk-roced: the EAL refused its arguments "
			"(see its message above)\n");
		exit(ROCED_EXIT_USAGE);
	}
	fprintf(stderr, "ndk-roced: cannot start the EAL: %s\n",
		rte_strerror(rte_errno));
	return -1;
}

/* Attached applications' server, or NULL without the multi-process mode. */
static struct roced_attach *attach;

static void
serve(const struct roced_config *cfg, struct roced_ports *ps,
      struct roced_echo *echo)
{
	RTE_SET_USED(cfg);
	while (stop_signal == 0) {
		unsigned int work;

		roced_ports_poll(ps);
		work = roced_echo_run(echo);
		work += roced_attach_run(attach);
		if (work == 0 && !ps->main_polls)
			rte_delay_us_sleep(ROCED_IDLE_US);
	}
}

static void
shutdown_all(const struct roced_config *cfg, struct roced_ports *ps,
	     struct roced_echo *echo, bool pdump)
{
	roced_attach_stop(attach);
	attach = NULL;
	roced_echo_stop(echo, ps);
	roced_telemetry_detach(ps);
	roced_ports_stop_polling(ps);
	/* Let memif peers stop polling before the links go (memif crash). */
	rte_delay_us_sleep((uint64_t)cfg->linger_ms * 1000);
	roced_ports_close(ps);
	if (pdump)
		rte_pdump_uninit();
}

int
main(int argc, char **argv)
{
	struct roced_config cfg;
	struct roced_ports ports;
	struct roced_echo *echo = NULL;
	bool pdump;
	int rc;

	roced_config_parse(argc, argv, &cfg);
	if (cfg.check_only) {
		roced_config_print(&cfg, stdout);
		printf("configuration OK\n");
		return 0;
	}
	signals_init();
	if (eal_start(&cfg) != 0)
		return 1;
	rc = roced_ports_start(&cfg, &ports);
	if (rc != 0) {
		roced_ports_close(&ports);
		rte_eal_cleanup();
		return rc == -EINVAL ? ROCED_EXIT_USAGE : 1;
	}
	print_ports(&ports);
	/* dpdk-dumpcap/dpdk-pdump attach as secondary processes. */
	pdump = rte_pdump_init() == 0;
	if (!pdump)
		ROCED_LOG(NOTICE, "packet capture unavailable (%s): it needs "
			  "the multi-process mode (hugetlbfs, no --in-memory)",
			  rte_strerror(rte_errno));
	if (cfg.telemetry && roced_telemetry_init(&ports) != 0)
		ROCED_LOG(WARNING, "cannot register the /ndk telemetry "
			  "commands");
	if (cfg.echo && roced_echo_start(&cfg, &ports, &echo) != 0) {
		shutdown_all(&cfg, &ports, NULL, pdump);
		rte_eal_cleanup();
		return 1;
	}
	roced_attach_start(&cfg, &ports, &attach);
	ROCED_LOG(NOTICE, "ready: %u port(s), echo service %s, attach %s, "
		  "pid %d", ports.n, cfg.echo ? "on" : "off",
		  attach != NULL ? "on" : "off", (int)getpid());
	serve(&cfg, &ports, echo);
	ROCED_LOG(NOTICE, "%s: shutting down", strsignal(stop_signal));
	shutdown_all(&cfg, &ports, echo, pdump);
	rte_eal_cleanup();
	ROCED_LOG(NOTICE, "stopped");
	return 0;
}
