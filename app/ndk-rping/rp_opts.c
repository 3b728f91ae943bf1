/* SPDX-License-Identifier: BSD-3-Clause */

/* ndk-rping command line: rping's options plus the adapter's. */

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rping.h"

enum {
	RP_OPT_IP = 256,
	RP_OPT_IP6,
	RP_OPT_PORT_ID,
	RP_OPT_MTU,
};

static void
rp_usage(const char *prog)
{
	printf("Usage: %s [EAL args] -- -s|-c [options]\n", prog);
	printf("rping's options:\n");
	printf("  -s            server\n");
	printf("  -c            client\n");
	printf("  -a addr       address, IPv4 or IPv6: the server's (client) "
	       "or the one to\n"
	       "                listen on (server; default any: both "
	       "families on a\n"
	       "                dual-stack adapter)\n");
	printf("  -p port       port (default %d)\n", RP_DEF_PORT);
	printf("  -C count      pings (default: forever)\n");
	printf("  -S size       ping data size, %d..%d (default %d)\n",
	       RP_MIN_SIZE, RP_MAX_SIZE, RP_DEF_SIZE);
	printf("  -v            print the ping data\n");
	printf("  -V            validate the ping data (client)\n");
	printf("  -d            debug: trace every step\n");
	printf("  -P            persistent server: one client after another\n");
	printf("ndk-roce's options:\n");
	printf("  --ip=a.b.c.d  the adapter's IPv4 address\n");
	printf("  --ip6=addr    the adapter's IPv6 address (one of --ip, "
	       "--ip6 is required)\n");
	printf("  --port-id=n   DPDK port of the adapter (default 0)\n");
	printf("  --mtu=n       largest RDMA path MTU, 256..4096 (default "
	       "4096)\n");
}

static int
rp_num(const char *s, unsigned long min, unsigned long max, uint32_t *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno != 0 || *s == '\0' || *end != '\0' || v < min || v > max)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int
rp_bad(const char *opt, const char *val)
{
	fprintf(stderr, "ndk-rping: invalid %s '%s'\n", opt, val);
	return 1;
}

int
rp_parse_args(int argc, char **argv, struct rp_opts *o)
{
	static const struct option lopts[] = {
		{ "ip", required_argument, NULL, RP_OPT_IP },
		{ "ip6", required_argument, NULL, RP_OPT_IP6 },
		{ "port-id", required_argument, NULL, RP_OPT_PORT_ID },
		{ "mtu", required_argument, NULL, RP_OPT_MTU },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool client = false;
	struct in_addr a;
	uint32_t v;
	int ch;

	memset(o, 0, sizeof(*o));
	o->port = RP_DEF_PORT;
	o->size = RP_DEF_SIZE;
	o->mtu = 4096;
	while ((ch = getopt_long(argc, argv, "sca:p:C:S:vVdPh", lopts,
				 NULL)) != -1) {
		switch (ch) {
		case 's':
			o->server = true;
			break;
		case 'c':
			client = true;
			break;
		case 'a':
			if (inet_pton(AF_INET, optarg, &a) == 1) {
				o->addr = a.s_addr;
				o->addr_v6 = false;
			} else if (inet_pton(AF_INET6, optarg, o->addr6) == 1) {
				o->addr_v6 = true;
			} else {
				return rp_bad("-a", optarg);
			}
			break;
		case 'p':
			if (rp_num(optarg, 1, 65535, &v) != 0)
				return rp_bad("-p", optarg);
			o->port = (uint16_t)v;
			break;
		case 'C':
			if (rp_num(optarg, 1, UINT32_MAX, &o->count) != 0)
				return rp_bad("-C", optarg);
			break;
		case 'S':
			if (rp_num(optarg, RP_MIN_SIZE, RP_MAX_SIZE,
				   &o->size) != 0)
				return rp_bad("-S", optarg);
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'V':
			o->validate = true;
			break;
		case 'd':
			o->debug = true;
			break;
		case 'P':
			o->persistent = true;
			break;
		case RP_OPT_IP:
			if (inet_pton(AF_INET, optarg, &a) != 1)
				return rp_bad("--ip", optarg);
			o->ipv4 = a.s_addr;
			break;
		case RP_OPT_IP6:
			if (inet_pton(AF_INET6, optarg, o->ipv6) != 1)
				return rp_bad("--ip6", optarg);
			o->ipv6_set = true;
			break;
		case RP_OPT_PORT_ID:
			if (rp_num(optarg, 0, 65535, &v) != 0)
				return rp_bad("--port-id", optarg);
			o->port_id = (uint16_t)v;
			break;
		case RP_OPT_MTU:
			if (rp_num(optarg, 256, 4096, &v) != 0 ||
			    (v & (v - 1)) != 0)
				return rp_bad("--mtu", optarg);
			o->mtu = v;
			break;
		case 'h':
			rp_usage(argv[0]);
			return 2;
		default:
			rp_usage(argv[0]);
			return 1;
		}
	}
	if (optind != argc || o->server == client) {
		fprintf(stderr, "ndk-rping: give exactly one of -s and -c\n");
		return 1;
	}
	if (o->ipv4 == 0 && !o->ipv6_set) {
		fprintf(stderr, "ndk-rping: --ip or --ip6 is required\n");
		return 1;
	}
	if (client && o->addr == 0 && !o->addr_v6) {
		fprintf(stderr, "ndk-rping: a client needs -a <server>\n");
		return 1;
	}
	return 0;
}
