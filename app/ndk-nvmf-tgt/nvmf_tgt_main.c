/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 ndk-roce authors
 */

/*
 * ndk-nvmf-tgt: the NVMe over Fabrics (RDMA) target of lib/nvmf as a
 * process: it opens an adapter on a DPDK port, reads its subsystems,
 * hosts, namespaces and listeners from a configuration file (doc/nvmf.md)
 * and polls the target on the main lcore until SIGINT / SIGTERM (or -t
 * seconds). Embedded (a DPDK primary process: its own port) or attached
 * (a secondary process of ndk-roced: the daemon's adapter on the port,
 * doc/attach.md), with the same code.
 *
 *   ndk-nvmf-tgt [EAL options] -- -c FILE --ip A.B.C.D [-p PORT |
 *                --ethdev NAME] [--mtu N] [--queue-depth N] [-t SECONDS]
 *                [--stats]
 *
 * Telemetry: /ndk/nvmf on the rte_telemetry socket (dpdk-telemetry.py)
 * answers the target's counters (ndk_nvmf_tgt_get_stats()).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_memory.h>
#include <rte_telemetry.h>

#include "ndk.h"
#include "ndk_app_port.h"
#include "ndk_app_xstats.h"
#include "ndk_nvmf.h"

#define LINE_MAX_LEN 512

struct tgt_opts {
	const char *config;
	const char *ethdev;
	uint16_t port_id;
	uint32_t ipv4;
	uint32_t mtu;
	uint32_t seconds;
	uint32_t queue_depth;
	bool stats;
};

static volatile sig_atomic_t stop;

/* The target the telemetry thread reads; NULL once it is destroyed. */
static pthread_mutex_t tel_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ndk_nvmf_tgt *tel_tgt;

static int
cmd_nvmf(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct ndk_nvmf_tgt_stats s;
	struct rte_tel_data *q;
	unsigned int i;
	bool have;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	pthread_mutex_lock(&tel_lock);
	have = tel_tgt != NULL;
	if (have)
		ndk_nvmf_tgt_get_stats(tel_tgt, &s);
	pthread_mutex_unlock(&tel_lock);
	if (!have)
		return -ENODEV;
	rte_tel_data_start_dict(d);
#define TEL_U64(f) rte_tel_data_add_dict_u64(d, #f, s.f)
	TEL_U64(ctrlrs_now);
	TEL_U64(qpairs_now);
	TEL_U64(inflight_now);
	TEL_U64(connects);
	TEL_U64(connect_rejects);
	TEL_U64(disconnects);
	TEL_U64(commands);
	TEL_U64(errors);
	TEL_U64(read_ops);
	TEL_U64(write_ops);
	TEL_U64(read_bytes);
	TEL_U64(write_bytes);
	TEL_U64(remote_invalidates);
	TEL_U64(keep_alive_expiries);
	TEL_U64(buffer_waits);
	TEL_U64(polls);
	TEL_U64(idle_polls);
	TEL_U64(io_queues_max);
#undef TEL_U64
	q = rte_tel_data_alloc();
	if (q == NULL)
		return 0;
	rte_tel_data_start_array(q, RTE_TEL_U64_VAL);
	for (i = 0; i < NDK_NVMF_STATS_QIDS; i++)
		rte_tel_data_add_array_u64(q, s.qid_commands[i]);
	rte_tel_data_add_dict_container(d, "qid_commands", q, 0);
	return 0;
}

static void
tel_set(struct ndk_nvmf_tgt *tgt)
{
	pthread_mutex_lock(&tel_lock);
	tel_tgt = tgt;
	pthread_mutex_unlock(&tel_lock);
}

static void
on_signal(int sig)
{
	RTE_SET_USED(sig);
	stop = 1;
}

static void
usage(const char *prog)
{
	printf("usage: %s [EAL options] -- -c FILE --ip A.B.C.D [options]\n"
	       "  -c, --config FILE  subsystems, hosts, namespaces, listeners\n"
	       "  --ip A.B.C.D       the adapter's IPv4 address\n"
	       "  -p, --port N       DPDK port (default 0)\n"
	       "  --ethdev NAME      the DPDK port of that name (attached: "
	       "the daemon's)\n"
	       "  --mtu N            largest RDMA path MTU (default 4096)\n"
	       "  --queue-depth N    entries of an I/O queue, 32..1024 (default "
	       "128; a host\n"
	       "                     keeping Q commands outstanding needs Q + 1)\n"
	       "  -t, --time S       stop after S seconds (default: on "
	       "SIGINT/SIGTERM)\n"
	       "  --stats            print the target's counters every 10 s, and the\n"
	       "                     adapter's non-zero counters at exit\n",
	       prog);
}

static int
parse_args(int argc, char **argv, struct tgt_opts *o)
{
	static const struct option lo[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "ip", required_argument, NULL, 'i' },
		{ "port", required_argument, NULL, 'p' },
		{ "mtu", required_argument, NULL, 'm' },
		{ "time", required_argument, NULL, 't' },
		{ "stats", no_argument, NULL, 's' },
		{ "ethdev", required_argument, NULL, 'e' },
		{ "queue-depth", required_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct in_addr a;
	int c;

	while ((c = getopt_long(argc, argv, "c:p:t:h", lo, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->config = optarg;
			break;
		case 'i':
			if (inet_pton(AF_INET, optarg, &a) != 1) {
				fprintf(stderr, "bad --ip %s\n", optarg);
				return -1;
			}
			o->ipv4 = a.s_addr;
			break;
		case 'p':
			o->port_id = (uint16_t)strtoul(optarg, NULL, 0);
			break;
		case 'm':
			o->mtu = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 't':
			o->seconds = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 's':
			o->stats = true;
			break;
		case 'e':
			o->ethdev = optarg;
			break;
		case 'q':
			o->queue_depth = (uint32_t)strtoul(optarg, NULL, 0);
			if (o->queue_depth < 32 || o->queue_depth > 1024) {
				fprintf(stderr, "--queue-depth: 32..1024\n");
				return -1;
			}
			break;
		case 'h':
			usage(argv[0]);
			return 1;
		default:
			usage(argv[0]);
			return -1;
		}
	}
	if (o->config == NULL || o->ipv4 == 0) {
		fprintf(stderr, "-c FILE and --ip are required\n");
		usage(argv[0]);
		return -1;
	}
	return 0;
}

/* "64M", "1G", "4096": bytes. */
static int
parse_size(const char *s, uint64_t *out)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);

	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	default: break;
	}
	if (end == s || *end != '\0')
		return -1;
	*out = v;
	return 0;
}

/* namespace mem:SIZE|file:PATH [bs=512|4096] [nsid=N] */
static int
cfg_namespace(struct ndk_nvmf_subsystem *s, char *args)
{
	struct ndk_nvmf_ns_config nc = { .type = NDK_NVMF_NS_MEM };
	char *tok, *save = NULL;
	uint32_t nsid;
	int rc;

	for (tok = strtok_r(args, " \t", &save); tok != NULL;
	     tok = strtok_r(NULL, " \t", &save)) {
		if (strncmp(tok, "mem:", 4) == 0) {
			nc.type = NDK_NVMF_NS_MEM;
			if (parse_size(tok + 4, &nc.size) != 0)
				return -EINVAL;
		} else if (strncmp(tok, "file:", 5) == 0) {
			nc.type = NDK_NVMF_NS_FILE;
			nc.path = tok + 5;
		} else if (strncmp(tok, "bs=", 3) == 0) {
			nc.block_size = (uint32_t)strtoul(tok + 3, NULL, 0);
		} else if (strncmp(tok, "nsid=", 5) == 0) {
			nc.nsid = (uint32_t)strtoul(tok + 5, NULL, 0);
		} else if (strncmp(tok, "size=", 5) == 0) {
			if (parse_size(tok + 5, &nc.size) != 0)
				return -EINVAL;
		} else {
			return -EINVAL;
		}
	}
	rc = ndk_nvmf_subsystem_add_ns(s, &nc, &nsid);
	if (rc == 0)
		printf("ndk-nvmf-tgt: namespace %u (%s)\n", nsid,
		       nc.type == NDK_NVMF_NS_MEM ? "memory" : nc.path);
	return rc;
}

/* One line of the configuration file. */
static int
cfg_line(struct ndk_nvmf_tgt *tgt, struct ndk_nvmf_subsystem **cur, char *l)
{
	char *key, *rest, *save = NULL;
	struct in_addr a;

	key = strtok_r(l, " \t", &save);
	if (key == NULL || key[0] == '#')
		return 0;
	rest = strtok_r(NULL, "", &save);
	while (rest != NULL && (*rest == ' ' || *rest == '\t'))
		rest++;
	if (strcmp(key, "subsystem") == 0 && rest != NULL) {
		char *nqn = strtok_r(rest, " \t", &save);
		char *opt = strtok_r(NULL, " \t", &save);
		bool any = opt != NULL && strcmp(opt, "allow_any_host") == 0;

		if (opt != NULL && !any)
			return -EINVAL;
		return ndk_nvmf_tgt_add_subsystem(tgt, nqn, NULL, any, cur);
	}
	if (strcmp(key, "host") == 0 && rest != NULL && *cur != NULL)
		return ndk_nvmf_subsystem_add_host(*cur, strtok_r(rest, " \t",
								  &save));
	if (strcmp(key, "namespace") == 0 && rest != NULL && *cur != NULL)
		return cfg_namespace(*cur, rest);
	if (strcmp(key, "listen") == 0 && rest != NULL) {
		char *addr = strtok_r(rest, " \t", &save);
		char *port = strtok_r(NULL, " \t", &save);

		if (inet_pton(AF_INET, addr, &a) != 1)
			return -EINVAL;
		return ndk_nvmf_tgt_listen(tgt, a.s_addr, port == NULL ? 0 :
			(uint16_t)strtoul(port, NULL, 0));
	}
	return -EINVAL;
}

static int
load_config(struct ndk_nvmf_tgt *tgt, const char *path)
{
	struct ndk_nvmf_subsystem *cur = NULL;
	char line[LINE_MAX_LEN];
	unsigned int n = 0;
	FILE *f = fopen(path, "r");
	int rc = 0;

	if (f == NULL) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
		n++;
		line[strcspn(line, "\r\n")] = '\0';
		rc = cfg_line(tgt, &cur, line);
		if (rc != 0)
			fprintf(stderr, "%s:%u: %s\n", path, n, strerror(-rc));
	}
	fclose(f);
	return rc == 0 ? 0 : -1;
}

static void
print_stats(struct ndk_nvmf_tgt *tgt)
{
	struct ndk_nvmf_tgt_stats s;
	unsigned int i, n;

	ndk_nvmf_tgt_get_stats(tgt, &s);
	printf("ndk-nvmf-tgt: connects %lu rejects %lu disconnects %lu "
	       "commands %lu errors %lu reads %lu (%lu B) writes %lu (%lu B) "
	       "remote_invalidates %lu keep_alive_expiries %lu "
	       "buffer_waits %lu ctrlrs %u qpairs %u inflight %u\n",
	       (unsigned long)s.connects, (unsigned long)s.connect_rejects,
	       (unsigned long)s.disconnects, (unsigned long)s.commands,
	       (unsigned long)s.errors, (unsigned long)s.read_ops,
	       (unsigned long)s.read_bytes, (unsigned long)s.write_ops,
	       (unsigned long)s.write_bytes,
	       (unsigned long)s.remote_invalidates,
	       (unsigned long)s.keep_alive_expiries,
	       (unsigned long)s.buffer_waits, s.ctrlrs_now, s.qpairs_now,
	       s.inflight_now);
	/* Commands per queue id up to the highest one used. */
	for (n = NDK_NVMF_STATS_QIDS; n > 1 && s.qid_commands[n - 1] == 0; n--)
		;
	printf("ndk-nvmf-tgt: polls %lu idle_polls %lu\n",
	       (unsigned long)s.polls, (unsigned long)s.idle_polls);
	printf("ndk-nvmf-tgt: io_queues_max %u qid_commands", s.io_queues_max);
	for (i = 0; i < n; i++)
		printf(" %u:%lu", i, (unsigned long)s.qid_commands[i]);
	printf("\n");
	fflush(stdout);
}

/* Attached, the adapter is the daemon's: --ip must be its address. */
static int
check_address(struct ndk_adapter *ad, const struct tgt_opts *o)
{
	struct ndk_adapter_info info;
	uint32_t isz = sizeof(info);
	char have[INET_ADDRSTRLEN];

	if (ndk_query_adapter_info(ad, &info, &isz) != NDK_STATUS_SUCCESS)
		return -1;
	if (info.ipv4 == o->ipv4)
		return 0;
	inet_ntop(AF_INET, &info.ipv4, have, sizeof(have));
	fprintf(stderr, "--ip: the adapter on port %u has address %s\n",
		o->port_id, have);
	return -1;
}

int
main(int argc, char **argv)
{
	struct tgt_opts o = { .mtu = 4096 };
	struct ndk_adapter_config ac = { .socket_id = SOCKET_ID_ANY };
	struct ndk_nvmf_tgt_config tc = { .poll_adapter = true,
					  .socket_id = SOCKET_ID_ANY };
	struct ndk_adapter *ad = NULL;
	struct ndk_nvmf_tgt *tgt = NULL;
	uint64_t end = 0, next_stats;
	ndk_status_t st;
	int n, rc = 1;

	n = rte_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "ndk-nvmf-tgt: EAL init failed\n");
		return 1;
	}
	argv[n] = argv[0];
	rc = parse_args(argc - n, argv + n, &o);
	if (rc != 0) {
		rte_eal_cleanup();
		return rc > 0 ? 0 : 1;
	}
	rc = 1;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (o.ethdev != NULL &&
	    rte_eth_dev_get_port_by_name(o.ethdev, &o.port_id) != 0) {
		fprintf(stderr, "no DPDK port named %s\n", o.ethdev);
		goto out;
	}
	ac.port_id = o.port_id;
	if (rte_eal_process_type() == RTE_PROC_PRIMARY) {
		ac.configure_port = true;
		ac.ipv4 = o.ipv4;
		ac.max_path_mtu = o.mtu;
	}
	st = ndk_adapter_open(&ac, &ad);
	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "open adapter on port %u: %s\n", o.port_id,
			ndk_status_str(st));
		goto out;
	}
	if (check_address(ad, &o) != 0)
		goto out;
	tc.adapter = ad;
	tc.max_queue_depth = o.queue_depth;
	if (ndk_nvmf_tgt_create(&tc, &tgt) != 0) {
		fprintf(stderr, "cannot create the target\n");
		goto out;
	}
	if (load_config(tgt, o.config) != 0)
		goto out;
	tel_set(tgt);
	rte_telemetry_register_cmd("/ndk/nvmf", cmd_nvmf,
		"ndk-nvmf-tgt counters: controllers, queue pairs, commands in "
		"flight, connections, commands, errors, I/O");
	printf("ndk-nvmf-tgt: ready\n");
	fflush(stdout);
	if (o.seconds > 0)
		end = rte_get_timer_cycles() + o.seconds * rte_get_timer_hz();
	next_stats = rte_get_timer_cycles() + 10 * rte_get_timer_hz();
	while (!stop && (end == 0 || rte_get_timer_cycles() < end)) {
		ndk_nvmf_tgt_poll(tgt);
		if (o.stats && rte_get_timer_cycles() > next_stats) {
			print_stats(tgt);
			next_stats += 10 * rte_get_timer_hz();
		}
	}
	rc = 0;
out:
	if (tgt != NULL) {
		print_stats(tgt);
		tel_set(NULL);
		ndk_nvmf_tgt_destroy(tgt);
	}
	if (ad != NULL && o.stats)
		ndk_app_print_xstats(stdout, ad, "adapter counters (non-zero):",
				     "  ", 28, 12, false);
	if (ad != NULL) {
		/* Give a shared-memory peer time to stop polling. */
		rte_delay_us_sleep(200 * 1000);
		/*
		 * A port of its own (embedded) on memif: closed after the
		 * peer's close has taken the link down (ndk_app_port.h), at
		 * most 3 s later. A host that exits as the target is stopped
		 * (the benchmark and callgrind scripts) crashed the target
		 * in the port's stop now and then without it.
		 */
		if (rte_eal_process_type() == RTE_PROC_PRIMARY &&
		    !ndk_app_memif_wait_peer_gone(o.port_id, 3000, 100))
			fprintf(stderr, "ndk-nvmf-tgt: memif peer still "
				"connected after 3 s: closing anyway\n");
		ndk_adapter_close(ad);
	}
	rte_eal_cleanup();
	return rc;
}
