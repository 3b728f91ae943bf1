/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * ndk-pingpong command line: ibv_rc_pingpong's options with their meaning
 * where they apply to a RoCEv2 RC QP on an ndk-roce adapter, plus the
 * adapter's own settings (--ip, --port-id, --peer-mac, --tcp-bind).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ether.h>

#include "pingpong.h"

#define PP_MAX_SIZE (1u << 30)    /* swroce's largest transfer */
#define PP_MAX_RX_DEPTH 16384     /* swroce's deepest receive queue */

/* Long-only options. */
enum {
	PP_OPT_PORT_ID = 256,
	PP_OPT_IP,
	PP_OPT_IP6,
	PP_OPT_TCP_BIND,
	PP_OPT_PEER_MAC,
	PP_OPT_SRQ,
};

void
pp_usage(const char *prog)
{
	printf("Usage:\n");
	printf("  %s [EAL args] -- [options]            start a server and "
	       "wait for connection\n", prog);
	printf("  %s [EAL args] -- [options] <host>     connect to server at "
	       "<host>\n", prog);
	printf("\n");
	printf("Options (ibv_rc_pingpong's):\n");
	printf("  -p, --port=<port>      listen on/connect to port <port> "
	       "(default %d)\n", PP_DEF_TCP_PORT);
	printf("  -d, --ib-dev=<dev>     use DPDK ethdev <dev> by name "
	       "(default: --port-id)\n");
	printf("  -i, --ib-port=<port>   use port <port> of the device "
	       "(an adapter has only port 1)\n");
	printf("  -s, --size=<size>      size of message to exchange "
	       "(default %d)\n", PP_DEF_SIZE);
	printf("  -m, --mtu=<size>       path MTU: 256, 512, 1024, 2048 or "
	       "4096 (default %d)\n", PP_DEF_MTU);
	printf("  -r, --rx-depth=<dep>   number of receives to post at a time "
	       "(default %d)\n", PP_DEF_RX_DEPTH);
	printf("  -n, --iters=<iters>    number of exchanges (default %d)\n",
	       PP_DEF_ITERS);
	printf("  -l, --sl=<sl>          service level value (0-15; accepted, "
	       "unused: no VLAN priority)\n");
	printf("  -e, --events           sleep on CQ events (default poll); "
	       "with one lcore the\n"
	       "                         main thread polls the adapter while "
	       "it waits\n");
	printf("  -g, --gid-idx=<gid index> local port gid index: with --ip "
	       "and --ip6,\n"
	       "                         0 (default) is ::ffff:<ip>, 1 and "
	       "up <ip6>; with one\n"
	       "                         address, its GID whatever the "
	       "index\n");
	printf("  -c, --chk              validate received buffer (every "
	       "message; failures exit 1)\n");
	printf("  -N, --new_send         accepted; NDK has one send call\n");
	printf("  -q, --num-qp=<num>     ibv_srq_pingpong: <num> QPs (1..%d) "
	       "receiving through\n"
	       "                         one SRQ of --rx-depth receives; "
	       "its exchange of %d\n"
	       "                         addresses\n", PP_SRQ_TABLE - 1,
	       PP_SRQ_TABLE);
	printf("  --srq                  ibv_srq_pingpong with its default "
	       "%d QPs\n", PP_DEF_SRQ_QPS);
	printf("\n");
	printf("Options (ndk-roce's):\n");
	printf("  --ip=<a.b.c.d>         IPv4 address of the adapter\n");
	printf("  --ip6=<ipv6>           IPv6 address of the adapter (one of "
	       "--ip, --ip6\n"
	       "                         is required; both: dual-stack)\n");
	printf("  --port-id=<n>          DPDK ethdev port of the adapter "
	       "(default 0)\n");
	printf("  --peer-mac=<mac>       peer's MAC address (default: the "
	       "provider resolves it)\n");
	printf("  --tcp-bind=<a.b.c.d>   local address of the TCP exchange\n");
	printf("  -h, --help             this text\n");
	printf("\n");
	printf("Not supported: -o/--odp, -O/--iodp, -P/--prefetch, -t/--ts, "
	       "-j/--dm.\n");
	printf("With one lcore the main thread polls the adapter; with more, "
	       "the first worker lcore does.\n");
}

/* Whole-string unsigned number in [min, max] (base 0, like strtoul). */
static int
parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	unsigned long long v;
	char *end;

	if (s == NULL || *s == '\0' || *s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* Whole-string signed number in [min, max]. */
static int
parse_int(const char *s, long min, long max, int *out)
{
	char *end;
	long v;

	if (s == NULL || *s == '\0')
		return -1;
	errno = 0;
	v = strtol(s, &end, 0);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -1;
	*out = (int)v;
	return 0;
}

static int
bad_value(const char *opt, const char *val, const char *want)
{
	fprintf(stderr, "ndk-pingpong: invalid %s '%s': %s\n", opt,
		val != NULL ? val : "", want);
	return 1;
}

int
pp_parse_args(int argc, char **argv, struct pp_opts *o)
{
	static const struct option lopts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "ib-dev", required_argument, NULL, 'd' },
		{ "ib-port", required_argument, NULL, 'i' },
		{ "size", required_argument, NULL, 's' },
		{ "mtu", required_argument, NULL, 'm' },
		{ "rx-depth", required_argument, NULL, 'r' },
		{ "iters", required_argument, NULL, 'n' },
		{ "sl", required_argument, NULL, 'l' },
		{ "events", no_argument, NULL, 'e' },
		{ "gid-idx", required_argument, NULL, 'g' },
		{ "odp", no_argument, NULL, 'o' },
		{ "iodp", no_argument, NULL, 'O' },
		{ "prefetch", no_argument, NULL, 'P' },
		{ "ts", no_argument, NULL, 't' },
		{ "chk", no_argument, NULL, 'c' },
		{ "dm", no_argument, NULL, 'j' },
		{ "new_send", no_argument, NULL, 'N' },
		{ "num-qp", required_argument, NULL, 'q' },
		{ "srq", no_argument, NULL, PP_OPT_SRQ },
		{ "help", no_argument, NULL, 'h' },
		{ "port-id", required_argument, NULL, PP_OPT_PORT_ID },
		{ "ip", required_argument, NULL, PP_OPT_IP },
		{ "ip6", required_argument, NULL, PP_OPT_IP6 },
		{ "tcp-bind", required_argument, NULL, PP_OPT_TCP_BIND },
		{ "peer-mac", required_argument, NULL, PP_OPT_PEER_MAC },
		{ NULL, 0, NULL, 0 },
	};
	struct rte_ether_addr mac;
	struct in_addr a;
	uint32_t v;
	int ch, iv;

	memset(o, 0, sizeof(*o));
	o->tcp_port = PP_DEF_TCP_PORT;
	o->size = PP_DEF_SIZE;
	o->mtu = PP_DEF_MTU;
	o->rx_depth = PP_DEF_RX_DEPTH;
	o->iters = PP_DEF_ITERS;
	o->gid_idx = -1;

	opterr = 1;
	while ((ch = getopt_long(argc, argv, "p:d:i:s:m:r:n:l:eg:oOPtcjNq:h",
				 lopts, NULL)) != -1) {
		switch (ch) {
		case 'p':
			if (parse_u32(optarg, 1, 65535, &v) != 0)
				return bad_value("-p/--port", optarg,
						 "a TCP port, 1..65535");
			o->tcp_port = (uint16_t)v;
			break;
		case 'd':
			if (*optarg == '\0')
				return bad_value("-d/--ib-dev", optarg,
						 "an ethdev name");
			o->ib_dev = optarg;
			break;
		case 'i':
			if (parse_u32(optarg, 1, 1, &v) != 0)
				return bad_value("-i/--ib-port", optarg,
						 "an adapter has one port, 1");
			break;
		case 's':
			if (parse_u32(optarg, 1, PP_MAX_SIZE, &o->size) != 0)
				return bad_value("-s/--size", optarg,
						 "1..1073741824 bytes");
			break;
		case 'm':
			if (parse_u32(optarg, 256, 4096, &v) != 0 ||
			    (v & (v - 1)) != 0)
				return bad_value("-m/--mtu", optarg,
						 "256, 512, 1024, 2048 or 4096");
			o->mtu = v;
			break;
		case 'r':
			if (parse_u32(optarg, 1, PP_MAX_RX_DEPTH,
				      &o->rx_depth) != 0)
				return bad_value("-r/--rx-depth", optarg,
						 "1..16384");
			break;
		case 'n':
			if (parse_u32(optarg, 1, INT32_MAX, &o->iters) != 0)
				return bad_value("-n/--iters", optarg,
						 "1..2147483647");
			break;
		case 'l':
			if (parse_int(optarg, 0, 15, &o->sl) != 0)
				return bad_value("-l/--sl", optarg, "0..15");
			break;
		case 'e':
			o->use_event = true;
			break;
		case 'g':
			if (parse_int(optarg, 0, INT32_MAX, &iv) != 0)
				return bad_value("-g/--gid-idx", optarg,
						 "a GID index >= 0");
			o->gid_idx = iv;
			break;
		case 'c':
			o->validate = true;
			break;
		case 'N':
			break;
		case 'q':
			if (parse_u32(optarg, 1, PP_SRQ_TABLE - 1,
				      &o->num_qp) != 0)
				return bad_value("-q/--num-qp", optarg,
						 "1..255 QPs");
			break;
		case PP_OPT_SRQ:
			if (o->num_qp == 0)
				o->num_qp = PP_DEF_SRQ_QPS;
			break;
		case 'o':
		case 'O':
		case 'P':
		case 't':
		case 'j':
			fprintf(stderr, "ndk-pingpong: -%c is not supported "
				"(no on-demand paging, completion timestamps or "
				"device memory)\n", ch);
			return 1;
		case 'h':
			pp_usage("ndk-pingpong");
			return -1;
		case PP_OPT_PORT_ID:
			if (parse_u32(optarg, 0, RTE_MAX_ETHPORTS - 1, &v) != 0)
				return bad_value("--port-id", optarg,
						 "a DPDK port number");
			o->port_id = (uint16_t)v;
			o->port_id_set = true;
			break;
		case PP_OPT_IP:
			if (inet_pton(AF_INET, optarg, &a) != 1 ||
			    a.s_addr == 0)
				return bad_value("--ip", optarg,
						 "a non-zero IPv4 address");
			o->ipv4 = a.s_addr;
			break;
		case PP_OPT_IP6:
			if (inet_pton(AF_INET6, optarg, o->ipv6) != 1 ||
			    IN6_IS_ADDR_UNSPECIFIED((struct in6_addr *)o->ipv6))
				return bad_value("--ip6", optarg,
						 "a unicast IPv6 address");
			o->ipv6_set = true;
			break;
		case PP_OPT_TCP_BIND:
			if (inet_pton(AF_INET, optarg, &a) != 1)
				return bad_value("--tcp-bind", optarg,
						 "an IPv4 address");
			o->tcp_bind = optarg;
			break;
		case PP_OPT_PEER_MAC:
			if (rte_ether_unformat_addr(optarg, &mac) != 0 ||
			    rte_is_zero_ether_addr(&mac))
				return bad_value("--peer-mac", optarg,
						 "a MAC address, xx:xx:xx:xx:xx:xx");
			memcpy(o->peer_mac, mac.addr_bytes, sizeof(o->peer_mac));
			o->peer_mac_set = true;
			break;
		default:
			/* getopt printed the reason. */
			fprintf(stderr, "Try 'ndk-pingpong -- --help'.\n");
			return 1;
		}
	}
	if (optind == argc - 1) {
		o->servername = argv[optind];
	} else if (optind < argc) {
		fprintf(stderr, "ndk-pingpong: one server name at most "
			"(got '%s' and '%s')\n", argv[optind],
			argv[optind + 1]);
		return 1;
	}
	if (o->ipv4 == 0 && !o->ipv6_set) {
		fprintf(stderr, "ndk-pingpong: --ip A.B.C.D or --ip6 ADDR (the "
			"adapter's address) is required\n");
		return 1;
	}
	if (o->num_qp > o->rx_depth) {
		fprintf(stderr, "ndk-pingpong: rx_depth %u is too small for %u "
			"QPs -- must have at least one receive per QP.\n",
			o->rx_depth, o->num_qp);
		return 1;
	}
	if (o->ib_dev != NULL && o->port_id_set) {
		fprintf(stderr, "ndk-pingpong: give -d/--ib-dev or --port-id, "
			"not both\n");
		return 1;
	}
	return 0;
}
