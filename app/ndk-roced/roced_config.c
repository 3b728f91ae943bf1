/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * ndk-roced configuration: the command line and the INI file (read with
 * rte_cfgfile), checked completely before the EAL starts. Every error
 * names the file and line (or the option), says what is wrong and exits
 * with status 2.
 *
 * The parser is three files (their shared calls: roced_config_priv.h):
 *   roced_config.c         this one: roced_config_parse() and the other
 *                          entry points, the command line (--port, the
 *                          overrides), checks across ports, the EAL
 *                          argument vector, the refusal (cfg_die())
 *   roced_config_file.c    the INI file: the line scan and its table of
 *                          sections and keys, then the sections' values
 *   roced_config_values.c  the forms of values (numbers, yes/no, IPv4
 *                          addresses and netmasks, MACs, devices, lcores,
 *                          file prefixes) and a port's keys, shared by
 *                          the file's [port NAME] and --port
 */

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cfgfile.h>
#include <rte_common.h>

#include "roced.h"
#include "roced_config_priv.h"

/*
 * What a parse holds while it runs, released by cfg_die() before it exits:
 * a refusal leaves nothing allocated behind (LeakSanitizer, and the
 * configuration fuzz target, which returns from cfg_die()'s exit()).
 */
struct cfg_held cfg_held;

void
cfg_release(void)
{
	if (cfg_held.f != NULL)
		fclose(cfg_held.f);
	free(cfg_held.line);
	if (cfg_held.cfgfile != NULL)
		rte_cfgfile_close(cfg_held.cfgfile);
	free(cfg_held.dargv);
	if (cfg_held.cfg != NULL)
		roced_config_free(cfg_held.cfg);
	memset(&cfg_held, 0, sizeof(cfg_held));
}

void __rte_format_printf(2, 3) __rte_noreturn
cfg_die(const char *where, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ndk-roced: ");
	if (where != NULL && where[0] != '\0')
		fprintf(stderr, "%s: ", where);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	cfg_release();
	exit(ROCED_EXIT_USAGE);
}

void
cfg_eal_add(struct roced_config *cfg, const char *where, const char *arg)
{
	char *copy;

	if (cfg->eal_argc >= ROCED_MAX_EAL_ARGS - 1)
		cfg_die(where, "more than %d EAL arguments",
			ROCED_MAX_EAL_ARGS);
	copy = strdup(arg);
	if (copy == NULL)
		cfg_die(where, "out of memory");
	cfg->eal_strings[cfg->eal_argc] = copy;
	cfg->eal_argv[cfg->eal_argc++] = copy;
}

void
cfg_eal_add2(struct roced_config *cfg, const char *where, const char *opt,
	     const char *val)
{
	char buf[ROCED_DEV_LEN + 32];

	if (opt[1] != '-') {          /* short options take a separate value */
		cfg_eal_add(cfg, where, opt);
		cfg_eal_add(cfg, where, val);
		return;
	}
	snprintf(buf, sizeof(buf), "%s=%s", opt, val);
	cfg_eal_add(cfg, where, buf);
}

/* ------------------------------------------------------------------ */
/* The command line                                                    */
/* ------------------------------------------------------------------ */

static void
usage(FILE *f)
{
	fprintf(f,
"usage: ndk-roced [EAL options --] [options]\n"
"\n"
"The ndk-roce transport daemon: owns DPDK ports and polling lcores and\n"
"serves RoCEv2 on them (ARP, ICMP echo, an RDMA echo service), with\n"
"counters and QP state over rte_telemetry (/ndk/adapters, /ndk/qps,\n"
"/ndk/qp,<qpn>[,<port>]). EAL options go before \"--\"; without \"--\"\n"
"every argument is the daemon's.\n"
"\n"
"  -f, --config FILE     INI configuration (see config/ndk-roced.conf)\n"
"  -p, --port SPEC       a port the EAL options created, e.g.\n"
"                        net_memif0,ip=10.0.0.1/24[,mtu=4096][,lcore=1]\n"
"                        [,mac=02:00:00:00:00:01][,netmask=24]\n"
"                        [,queues=2][,lcore=1:2] (an lcore per queue)\n"
"                        [,adaptive_rto=on|off][,rto_floor_us=50]\n"
"                        [,cm_retry_count=7][,cm_rnr_retry_count=7]\n"
"                        [,qp_retry_count=6][,local_ack_timeout=0]\n"
"                        [,cm_response_timeout=20][,max_cm_retries=15]\n"
"                        [,cm_listen_backlog=4096]\n"
"      --max-qp N        QPs per adapter (also --max-cq, --max-mr)\n"
"      --max-cq N\n"
"      --max-mr N\n"
"      --echo-port N     port of the echo service (default %u)\n"
"      --no-echo         no echo service\n"
"      --no-telemetry    no telemetry socket\n"
"      --check           check the configuration, print it and exit\n"
"  -h, --help            this text\n"
"\n"
"Exit status: 0 after SIGTERM/SIGINT, 2 for a bad file or argument,\n"
"1 for a failure at run time.\n", ROCED_ECHO_PORT);
}

enum {
	OPT_MAX_QP = 256, OPT_MAX_CQ, OPT_MAX_MR, OPT_ECHO_PORT, OPT_NO_ECHO,
	OPT_NO_TELEMETRY, OPT_CHECK,
};

static const struct option long_opts[] = {
	{ "config", required_argument, NULL, 'f' },
	{ "port", required_argument, NULL, 'p' },
	{ "max-qp", required_argument, NULL, OPT_MAX_QP },
	{ "max-cq", required_argument, NULL, OPT_MAX_CQ },
	{ "max-mr", required_argument, NULL, OPT_MAX_MR },
	{ "echo-port", required_argument, NULL, OPT_ECHO_PORT },
	{ "no-echo", no_argument, NULL, OPT_NO_ECHO },
	{ "no-telemetry", no_argument, NULL, OPT_NO_TELEMETRY },
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* --port NAME,key=value,...: the first field names an existing ethdev. */
static void
opt_port(struct roced_config *cfg, const char *spec)
{
	char buf[ROCED_DEV_LEN], where[ROCED_DEV_LEN + 16];
	struct roced_port_cfg *p;
	char *tok, *save = NULL;

	snprintf(where, sizeof(where), "--port %s", spec);
	if (strlen(spec) >= sizeof(buf))
		cfg_die(where, "too long");
	if (cfg->n_ports == ROCED_MAX_PORTS)
		cfg_die(where, "more than %d ports", ROCED_MAX_PORTS);
	strcpy(buf, spec);
	tok = strtok_r(buf, ",", &save);
	if (tok == NULL || strchr(tok, '=') != NULL)
		cfg_die(where, "start with the port's ethdev name "
			"(net_memif0,ip=...)");
	p = &cfg->ports[cfg->n_ports++];
	cfg_port_init(p, tok, where);
	cfg_device(p, where, tok);
	while ((tok = strtok_r(NULL, ",", &save)) != NULL) {
		char *eq = strchr(tok, '=');

		if (eq == NULL)
			cfg_die(where, "'%s': expected key=value", tok);
		*eq = '\0';
		if (strcmp(tok, "device") == 0)
			cfg_die(where, "device: the first field is the device");
		cfg_port_set(p, where, tok, eq + 1);
	}
	if (p->ipv4 == 0 && !p->has_ipv6)
		cfg_die(where, "no ip=a.b.c.d/len or ip6=addr/len");
	cfg_port_check_addr(p);
}

/* Options that override the file, applied after it is read. */
struct overrides {
	uint32_t max_qp, max_cq, max_mr;
	int echo_port;                /* -1: not given */
	bool no_echo, no_telemetry;
	unsigned int n_port_opts;
	const char *port_opts[ROCED_MAX_PORTS + 1];
};

static void
parse_opts(int argc, char **argv, struct roced_config *cfg,
	   struct overrides *o)
{
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":f:p:h", long_opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			cfg->file = optarg;
			break;
		case 'p':
			if (o->n_port_opts == ROCED_MAX_PORTS)
				cfg_die("--port", "more than %d ports",
					ROCED_MAX_PORTS);
			o->port_opts[o->n_port_opts++] = optarg;
			break;
		case OPT_MAX_QP:
			o->max_qp = cfg_u32("--max-qp", "value", optarg, 1,
					    1u << 20);
			break;
		case OPT_MAX_CQ:
			o->max_cq = cfg_u32("--max-cq", "value", optarg, 1,
					    1u << 20);
			break;
		case OPT_MAX_MR:
			o->max_mr = cfg_u32("--max-mr", "value", optarg, 1,
					    1u << 24);
			break;
		case OPT_ECHO_PORT:
			o->echo_port = (int)cfg_u32("--echo-port", "value",
						    optarg, 1, 65535);
			break;
		case OPT_NO_ECHO:
			o->no_echo = true;
			break;
		case OPT_NO_TELEMETRY:
			o->no_telemetry = true;
			break;
		case OPT_CHECK:
			cfg->check_only = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case ':':
			cfg_die(NULL, "option %s needs a value (--help for "
				"usage)", argv[optind - 1]);
		default:
			cfg_die(NULL, "unknown option '%s' (EAL options go "
				"before \"--\"; --help for usage)",
				argv[optind - 1]);
		}
	}
	if (optind < argc)
		cfg_die(NULL, "unexpected argument '%s' (--help for usage)",
			argv[optind]);
}

/* Two ports may not share a name, a device or an address. */
static void
check_ports(const struct roced_config *cfg)
{
	char ip[INET_ADDRSTRLEN], ip6[INET6_ADDRSTRLEN];

	if (cfg->n_ports == 0)
		cfg_die(NULL, "no ports: give --config FILE with [port NAME] "
			"sections, or --port (--help for usage)");
	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		const struct roced_port_cfg *a = &cfg->ports[i];

		if (a->n_lcores > a->queues)
			cfg_die(a->where, "port %s: %u lcores for %u queue(s): "
				"give queues = N (one lcore per queue at most)",
				a->name, a->n_lcores, a->queues);
		for (unsigned int j = 0; j < i; j++) {
			const struct roced_port_cfg *b = &cfg->ports[j];

			if (strcmp(a->name, b->name) == 0)
				cfg_die(a->where, "port name %s used twice",
					a->name);
			if (strcmp(a->device, b->device) == 0)
				cfg_die(a->where, "device %s is port %s "
					"already", a->device, b->name);
			if (a->ipv4 != 0 && a->ipv4 == b->ipv4)
				cfg_die(a->where, "address %s is port %s's "
					"already", roced_ip_str(a->ipv4, ip),
					b->name);
			if (a->has_ipv6 && b->has_ipv6 &&
			    memcmp(a->ipv6, b->ipv6, 16) == 0)
				cfg_die(a->where, "address %s is port %s's "
					"already", roced_ip6_str(a->ipv6, ip6),
					b->name);
		}
	}
}

static bool
eal_has(const struct roced_config *cfg, const char *opt)
{
	size_t n = strlen(opt);

	for (int i = 1; i < cfg->eal_argc; i++)
		if (strncmp(cfg->eal_argv[i], opt, n) == 0 &&
		    (cfg->eal_argv[i][n] == '\0' || cfg->eal_argv[i][n] == '='))
			return true;
	return false;
}

/* PCI ports are allowed by address; with none, the PCI bus stays off. */
static void
eal_pci(struct roced_config *cfg)
{
	bool any = false;

	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		if (!cfg->ports[i].pci)
			continue;
		any = true;
		cfg_eal_add2(cfg, cfg->ports[i].where, "--allow",
			     cfg->ports[i].device);
	}
	if (!any && !eal_has(cfg, "--no-pci") && !eal_has(cfg, "-a") &&
	    !eal_has(cfg, "--allow") && !eal_has(cfg, "-b") &&
	    !eal_has(cfg, "--block"))
		cfg_eal_add(cfg, NULL, "--no-pci");
}

void
roced_config_parse(int argc, char **argv, struct roced_config *cfg)
{
	struct overrides o = { .echo_port = -1 };
	int split = -1, n_eal;

	memset(cfg, 0, sizeof(*cfg));
	cfg_held.cfg = cfg;
	cfg->telemetry = true;
	cfg->echo = true;
	cfg->echo_port = ROCED_ECHO_PORT;
	cfg->echo_msg_size = 4096;
	cfg->echo_depth = 16;
	cfg->linger_ms = 500;
	cfg->app_heap_mb = ROCED_APP_HEAP_MB;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			split = i;
			break;
		}
	n_eal = split < 0 ? 0 : split - 1;
	/* The daemon's options: argv[0], then what follows "--". */
	{
		int n = split < 0 ? argc : argc - split;
		char **dargv = calloc((size_t)n + 1, sizeof(char *));

		if (dargv == NULL)
			cfg_die(NULL, "out of memory");
		cfg_held.dargv = dargv;
		dargv[0] = argv[0];
		for (int i = 1; i < n; i++)
			dargv[i] = argv[(split < 0 ? 0 : split) + i];
		parse_opts(n, dargv, cfg, &o);
		cfg_held.dargv = NULL;
		free(dargv);
	}
	cfg_eal_add(cfg, NULL, argv[0]);
	if (cfg->file != NULL)
		cfg_load_file(cfg);
	for (int i = 0; i < n_eal; i++)
		cfg_eal_add(cfg, "EAL arguments", argv[1 + i]);
	for (unsigned int i = 0; i < o.n_port_opts; i++)
		opt_port(cfg, o.port_opts[i]);
	if (o.max_qp != 0)
		cfg->max_qp = o.max_qp;
	if (o.max_cq != 0)
		cfg->max_cq = o.max_cq;
	if (o.max_mr != 0)
		cfg->max_mr = o.max_mr;
	if (o.echo_port >= 0)
		cfg->echo_port = (uint16_t)o.echo_port;
	if (o.no_echo)
		cfg->echo = false;
	if (o.no_telemetry)
		cfg->telemetry = false;
	check_ports(cfg);
	if (cfg->echo_depth * 2 > 16384)
		cfg_die(cfg->file, "[echo] depth too large");
	eal_pci(cfg);
	/* [eal] args and the EAL command line may name a prefix too. */
	for (int i = 1; i < cfg->eal_argc; i++) {
		const char *a = cfg->eal_argv[i];

		if (strncmp(a, "--file-prefix=", 14) == 0)
			cfg_check_file_prefix("EAL arguments", a + 14);
		else if (strcmp(a, "--file-prefix") == 0 &&
			 i + 1 < cfg->eal_argc)
			cfg_check_file_prefix("EAL arguments",
					      cfg->eal_argv[i + 1]);
	}
	if (!cfg->telemetry && !eal_has(cfg, "--no-telemetry"))
		cfg_eal_add(cfg, NULL, "--no-telemetry");
	cfg->eal_argv[cfg->eal_argc] = NULL;
	cfg_held.cfg = NULL;
}

void
roced_config_free(struct roced_config *cfg)
{
	for (int i = 0; i < cfg->eal_argc; i++) {
		free(cfg->eal_strings[i]);
		cfg->eal_strings[i] = NULL;
		cfg->eal_argv[i] = NULL;
	}
	cfg->eal_argc = 0;
}

const char *
roced_config_file_prefix(const struct roced_config *cfg)
{
	const char *prefix = "rte";    /* the EAL's default */

	/* The last one counts, as for the EAL's getopt (original order). */
	for (int i = 1; i < cfg->eal_argc; i++) {
		const char *a = cfg->eal_strings[i];

		if (strncmp(a, "--file-prefix=", 14) == 0)
			prefix = a + 14;
		else if (strcmp(a, "--file-prefix") == 0 &&
			 i + 1 < cfg->eal_argc)
			prefix = cfg->eal_strings[++i];
	}
	return prefix;
}

void
roced_config_print(const struct roced_config *cfg, FILE *f)
{
	char ip[INET_ADDRSTRLEN], ip6[INET6_ADDRSTRLEN];

	fprintf(f, "EAL arguments:");
	for (int i = 1; i < cfg->eal_argc; i++)
		fprintf(f, " %s", cfg->eal_argv[i]);
	fprintf(f, "\nlimits: max-qp %u, max-cq %u, max-mr %u (0 = default)"
		"\ntelemetry %s; echo service %s (port %u, %u B, depth %u)"
		"\nattached applications: %u MB heap each\n",
		cfg->max_qp, cfg->max_cq, cfg->max_mr,
		cfg->telemetry ? "on" : "off", cfg->echo ? "on" : "off",
		cfg->echo_port, cfg->echo_msg_size, cfg->echo_depth,
		cfg->app_heap_mb);
	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		const struct roced_port_cfg *p = &cfg->ports[i];

		fprintf(f, "port %s: device %s%s, ip %s/%u, mtu %u, queues %u"
			", adaptive_rto %s (floor %u us), lcore ", p->name,
			p->device, p->pci ? " (PCI)" : "",
			roced_ip_str(p->ipv4, ip), p->prefix_len, p->mtu,
			p->queues, p->strict_rto ? "off" : "on",
			p->rto_floor_us != 0 ? p->rto_floor_us :
			NDK_ADAPTIVE_RTO_FLOOR_US);
		if (p->lcore < 0)
			fprintf(f, "first worker\n");
		for (unsigned int k = 0; k < p->n_lcores; k++)
			fprintf(f, "%d%s", p->lcores[k],
				k + 1 < p->n_lcores ? ":" : "\n");
		if (p->has_ipv6)
			fprintf(f, "port %s: ip6 %s/%u\n", p->name,
				roced_ip6_str(p->ipv6, ip6), p->prefix6);
		fprintf(f, "port %s: cm_retry_count %u, cm_rnr_retry_count %u"
			", qp_retry_count %u, local_ack_timeout %u%s"
			", cm_response_timeout %u, max_cm_retries %u"
			", cm_listen_backlog %u\n",
			p->name, p->cm.retry_count, p->cm.rnr_retry_count,
			p->cm.qp_retry_count, p->cm.local_ack_timeout,
			p->cm.local_ack_timeout == 0 ? " (derived)" : "",
			p->cm.cm_response_timeout, p->cm.max_cm_retries,
			p->cm.listen_backlog);
		if (p->netem_on)
			fprintf(f, "port %s: receive impaired: drop_ppm %u, "
				"dup_ppm %u, reorder_ppm %u\n", p->name,
				p->netem.drop_ppm, p->netem.dup_ppm,
				p->netem.reorder_ppm);
	}
}
