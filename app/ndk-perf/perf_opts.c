/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * ndk-perf command line: perftest's options with perftest's meaning (the
 * subset that makes sense on an ndk-roce adapter), plus ndk-perf's own
 * (--port-id, --ip, --peer-mac, --verify, --stats; the raw-ethdev modes
 * --raw, --raw-baseline, --raw-frame; --loss).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_ethdev.h>

#include "ndk.h"
#include "perf.h"

enum {
	OPT_REPORT_GBITS = 256,
	OPT_OUT_JSON,
	OPT_OUT_JSON_FILE,
	OPT_PORT_ID,
	OPT_IP,
	OPT_IP6,
	OPT_PEER_MAC,
	OPT_VERIFY,
	OPT_STATS,
	OPT_RAW,
	OPT_RAW_BASELINE,
	OPT_RAW_FRAME,
	OPT_RAW_REPEAT,
	OPT_LOSS,
	OPT_BOTTLENECK,
	OPT_STRICT_RTO,
	OPT_SELECTIVE_REPEAT,
	OPT_TRUST_CRC,
	OPT_RTO_FLOOR,
	OPT_CC,
	OPT_QUEUES,
	OPT_ETHDEV,
	OPT_OLD_POST_SEND,
	OPT_USE_SRQ,
};

static const struct option perf_lopts[] = {
	{ "size", required_argument, NULL, 's' },
	{ "all", no_argument, NULL, 'a' },
	{ "iters", required_argument, NULL, 'n' },
	{ "duration", required_argument, NULL, 'D' },
	{ "margin", required_argument, NULL, 'f' },
	{ "qp", required_argument, NULL, 'q' },
	{ "tx-depth", required_argument, NULL, 't' },
	{ "rx-depth", required_argument, NULL, 'r' },
	{ "cq-mod", required_argument, NULL, 'Q' },
	{ "post_list", required_argument, NULL, 'l' },
	{ "mtu", required_argument, NULL, 'm' },
	{ "inline_size", required_argument, NULL, 'I' },
	{ "gid-index", required_argument, NULL, 'x' },
	{ "outs", required_argument, NULL, 'o' },
	{ "qp-timeout", required_argument, NULL, 'u' },
	{ "port", required_argument, NULL, 'p' },
	{ "ib-dev", required_argument, NULL, 'd' },
	{ "ib-port", required_argument, NULL, 'i' },
	{ "connection", required_argument, NULL, 'c' },
	{ "CPU-freq", no_argument, NULL, 'F' },
	{ "noPeak", no_argument, NULL, 'N' },
	{ "rdma_cm", no_argument, NULL, 'R' },
	{ "comm_rdma_cm", no_argument, NULL, 'z' },
	{ "use_old_post_send", no_argument, NULL, OPT_OLD_POST_SEND },
	{ "use_srq", no_argument, NULL, OPT_USE_SRQ },
	{ "bidirectional", no_argument, NULL, 'b' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "report_gbits", no_argument, NULL, OPT_REPORT_GBITS },
	{ "out_json", no_argument, NULL, OPT_OUT_JSON },
	{ "out_json_file", required_argument, NULL, OPT_OUT_JSON_FILE },
	{ "port-id", required_argument, NULL, OPT_PORT_ID },
	{ "ip", required_argument, NULL, OPT_IP },
	{ "ip6", required_argument, NULL, OPT_IP6 },
	{ "peer-mac", required_argument, NULL, OPT_PEER_MAC },
	{ "verify", no_argument, NULL, OPT_VERIFY },
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "raw", no_argument, NULL, OPT_RAW },
	{ "raw-baseline", no_argument, NULL, OPT_RAW_BASELINE },
	{ "raw-frame", required_argument, NULL, OPT_RAW_FRAME },
	{ "raw-repeat", required_argument, NULL, OPT_RAW_REPEAT },
	{ "loss", required_argument, NULL, OPT_LOSS },
	{ "bottleneck", required_argument, NULL, OPT_BOTTLENECK },
	{ "strict-timeout", no_argument, NULL, OPT_STRICT_RTO },
	{ "selective-repeat", no_argument, NULL, OPT_SELECTIVE_REPEAT },
	{ "trust-link-crc", no_argument, NULL, OPT_TRUST_CRC },
	{ "rto-floor", required_argument, NULL, OPT_RTO_FLOOR },
	{ "cc", required_argument, NULL, OPT_CC },
	{ "queues", required_argument, NULL, OPT_QUEUES },
	{ "ethdev", required_argument, NULL, OPT_ETHDEV },
	{ NULL, 0, NULL, 0 },
};

void
perf_opts_usage(const char *prog)
{
	printf("Usage:\n"
	       "  %s [EAL args] -- <test> [options] --ip A.B.C.D  "
	       "(start a server and wait)\n"
	       "  %s [EAL args] -- <test> [options] --ip A.B.C.D <server>  "
	       "(connect to it)\n"
	       "  tests: send_bw write_bw read_bw send_lat write_lat read_lat\n"
	       "  (or run through a link named ib_<test>: then no <test>)\n\n",
	       prog, prog);
	printf("Options (perftest's meaning):\n"
	       "  -s, --size=<size>       message size (BW 65536, LAT 2)\n"
	       "  -a, --all               run sizes from 2 till 2^23\n"
	       "  -n, --iters=<iters>     iterations (default 1000, write_bw "
	       "5000; at least 5)\n"
	       "  -D, --duration=<sec>    run for a time instead\n"
	       "  -f, --margin=<sec>      unmeasured start/end of -D "
	       "(default duration / 4)\n"
	       "  -q, --qp=<num>          QPs (BW tests use them all)\n"
	       "  -t, --tx-depth=<dep>    outstanding sends (BW 128, LAT 1)\n"
	       "  -r, --rx-depth=<dep>    receives posted (SEND, 512)\n"
	       "  -Q, --cq-mod=<n>        one completion per n sends (100)\n"
	       "  -l, --post_list=<n>     post lists of n requests (BW): n-1 "
	       "with DEFER, one\n"
	       "                          doorbell per list; -Q defaults to n\n"
	       "  -m, --mtu=<mtu>         256..4096 (default from the port MTU)\n"
	       "  -I, --inline_size=<n>   inline sends/writes up to n bytes\n"
	       "  -o, --outs=<num>        outstanding READs (adapter max)\n"
	       "  -u, --qp-timeout=<t>    ACK timeout 4.096 us * 2^t, 1..31 "
	       "(14)\n"
	       "  -x, --gid-index=<idx>   with --ip and --ip6: 0 "
	       "::ffff:<ip>, >= 1 <ip6>\n"
	       "  -p, --port=<port>       TCP port of the exchange (18515)\n"
	       "  -N, --noPeak            do not compute the peak bandwidth\n"
	       "  -b, --bidirectional     both sides send (BW tests); the row is "
	       "the sum of both\n"
	       "  -d, -F, -i, -c RC       accepted, no effect (the device is "
	       "the DPDK port)\n"
	       "      --report_gbits      Gbit/s instead of MiB/s\n"
	       "      --out_json          write the results to a file too\n"
	       "      --out_json_file=<f> its name (perftest_out.json)\n"
	       "  -R, --rdma_cm           connect through the connection "
	       "manager, exchange\n"
	       "                          over an RC connection (no TCP); "
	       "the server address\n"
	       "                          is then the peer's RoCE IPv4 "
	       "address\n"
	       "  -z, --comm_rdma_cm      only the exchange over such a "
	       "connection (QPs from\n"
	       "                          its keys)\n"
	       "      --use_old_post_send accepted, no effect (NDK posts)\n"
	       "      --use_srq           SEND tests: the receives of every QP "
	       "from one shared\n"
	       "                          receive queue (depth -q x -r)\n"
	       "\nndk-perf's own:\n"
	       "      --port-id=<n>       DPDK port of the adapter (0)\n"
	       "      --ethdev=<name>     the port by ethdev name (attached to "
	       "ndk-roced:\n"
	       "                          its [port] device, e.g. net_memif0)\n"
	       "      --ip=<A.B.C.D>      adapter IPv4 address\n"
	       "      --ip6=<addr>        adapter IPv6 address (--ip and/or "
	       "--ip6 required)\n"
	       "      --peer-mac=<mac>    peer MAC (default: ARP by the "
	       "provider)\n"
	       "      --verify            check the data end to end\n"
	       "      --stats             print the adapter counters at the end\n"
	       "      --raw               raw ethdev instead: the frames the test "
	       "would send,\n"
	       "                          burst one way (BW) or echoed (LAT)\n"
	       "      --raw-baseline      that first, then the test, then the "
	       "ratio\n"
	       "      --raw-frame=<n>     raw frames of n bytes instead of "
	       "RoCE's\n"
	       "      --raw-repeat=<n>    BW: n raw phases, the best one is "
	       "the raw row (3)\n"
	       "      --loss=<percent>    drop that share of the frames we "
	       "receive (lib/netem)\n"
	       "      --bottleneck=<Mbit/s>[,<mark>[,<buffer>]]\n"
	       "                          the frames we receive pass a queue "
	       "drained at that\n"
	       "                          rate (lib/netem): ECT frames marked "
	       "CE from <mark>\n"
	       "                          frames queued (8), tail drop past "
	       "<buffer> (65536)\n"
	       "      --strict-timeout    no adaptive retransmission: only the "
	       "QP's ACK\n"
	       "                          timeout (-u) retransmits\n"
	       "      --selective-repeat  selective repeat on the QPs connected "
	       "without -R\n"
	       "                          (the peer: ndk-perf with it too; "
	       "-R: the CM\n"
	       "                          negotiates it, on with ndk-roce "
	       "peers)\n"
	       "      --trust-link-crc    no ICRC check on receive (net_ring, "
	       "net_memif only)\n"
	       "      --rto-floor=<us>    smallest adaptive retransmission "
	       "timeout (50)\n"
	       "      --cc=<mode>         congestion control: off, dcqcn, "
	       "delay (off)\n"
	       "      --queues=<n>        adapter queues, 1 2 4 .. 16 (1); "
	       "QPs spread over\n"
	       "                          them, one poller per worker lcore "
	       "(give -l 0-n)\n"
	       "  Give --raw, --raw-baseline and --raw-frame to both sides.\n");
}

static int
parse_u64(const char *s, uint64_t min, uint64_t max, const char *what,
	  uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno != 0 || end == s || *end != '\0' || v < min || v > max) {
		fprintf(stderr, " %s should be between %llu and %llu\n", what,
			(unsigned long long)min, (unsigned long long)max);
		return -1;
	}
	*out = v;
	return 0;
}

static int
parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int b[6];
	char tail;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3],
		   &b[4], &b[5], &tail) != 6)
		return -1;
	for (int i = 0; i < 6; i++) {
		if (b[i] > 0xff)
			return -1;
		mac[i] = (uint8_t)b[i];
	}
	return 0;
}

/* One option; -1 on error (message printed), 1 to exit successfully. */
static int
parse_one(int ch, const char *arg, struct perf_opts *o)
{
	uint64_t v;

	switch (ch) {
	case 's':
		if (parse_u64(arg, 1, PERF_MAX_SIZE, "Size", &o->size) != 0)
			return -1;
		break;
	case 'a':
		o->all_sizes = true;
		break;
	case 'n':
		if (parse_u64(arg, PERF_MIN_ITERS, 100000000, "Iteration num",
			      &o->iters) != 0)
			return -1;
		break;
	case 'D':
		if (parse_u64(arg, 1, 100000, "Duration period", &v) != 0)
			return -1;
		o->duration = (int)v;
		break;
	case 'f':
		if (parse_u64(arg, 0, 100000, "Margin", &v) != 0)
			return -1;
		o->margin = (int)v;
		break;
	case 'q':
		if (parse_u64(arg, 1, PERF_MAX_QPS, "num of Qps", &v) != 0)
			return -1;
		o->num_qps = (unsigned int)v;
		break;
	case 't':
		if (parse_u64(arg, 1, 15000, "Tx depth", &v) != 0)
			return -1;
		o->tx_depth = (unsigned int)v;
		break;
	case 'r':
		if (parse_u64(arg, 1, 16384, "Rx depth", &v) != 0)
			return -1;
		o->rx_depth = (unsigned int)v;
		break;
	case 'Q':
		if (parse_u64(arg, 1, 1024, "CQ moderation", &v) != 0)
			return -1;
		o->cq_mod = (unsigned int)v;
		break;
	case 'l':
		if (parse_u64(arg, 1, 4096, "Post list", &v) != 0)
			return -1;
		o->post_list = (unsigned int)v;
		break;
	case 'm':
		if (parse_u64(arg, 256, 4096, "MTU", &v) != 0)
			return -1;
		if ((v & (v - 1)) != 0) {
			fprintf(stderr, " Invalid MTU - %llu \n",
				(unsigned long long)v);
			return -1;
		}
		o->mtu = (unsigned int)v;
		break;
	case 'I':
		if (parse_u64(arg, 0, 912, "Max inline", &v) != 0)
			return -1;
		o->inline_size = (int)v;
		break;
	case 'x':
		if (parse_u64(arg, 0, 64, "Gid index", &v) != 0)
			return -1;
		o->gid_index = (int)v;
		break;
	case 'o':
		if (parse_u64(arg, 1, 65535, "Outstanding Reads", &v) != 0)
			return -1;
		o->out_reads = (int)v;
		break;
	case 'u':
		/* perftest takes 0 (no timeout) too; ndk_qp_connect reads 0
		 * as its default, so 0 is refused here. */
		if (parse_u64(arg, 1, 31, "QP timeout", &v) != 0)
			return -1;
		o->qp_timeout = (uint8_t)v;
		break;
	case 'p':
		if (parse_u64(arg, 1, 65535, "Port", &v) != 0)
			return -1;
		o->tcp_port = (uint16_t)v;
		break;
	case 'd':
		o->ib_dev = arg;
		break;
	case 'c':
		if (strcmp(arg, "RC") != 0) {
			fprintf(stderr, " Only RC connections are supported\n");
			return -1;
		}
		break;
	case 'i':
	case 'F':
		break;
	case 'N':
		o->no_peak = true;
		break;
	case 'R':
		o->rdma_cm = true;
		break;
	case 'z':
		o->cm_xchg = true;
		break;
	case OPT_OLD_POST_SEND:
		/* Our posts are NDK's; the header says "ibv_wr* API : OFF"
		 * either way. */
		break;
	case 'b':
		o->bidir = true;
		break;
	case 'V':
		printf("Version: %s (ndk-perf)\n", PERF_VERSION);
		return 1;
	case OPT_REPORT_GBITS:
		o->report_gbits = true;
		break;
	case OPT_OUT_JSON:
		o->out_json = true;
		break;
	case OPT_OUT_JSON_FILE:
		o->json_file = arg;
		break;
	case OPT_PORT_ID:
		if (parse_u64(arg, 0, 65535, "Port id", &v) != 0)
			return -1;
		o->port_id = (uint16_t)v;
		break;
	case OPT_ETHDEV:
		if (rte_eth_dev_get_port_by_name(arg, &o->port_id) != 0) {
			fprintf(stderr, " No ethdev named %s\n", arg);
			return -1;
		}
		break;
	case OPT_IP: {
		struct in_addr a;

		if (inet_pton(AF_INET, arg, &a) != 1 || a.s_addr == 0) {
			fprintf(stderr, " Invalid --ip address %s\n", arg);
			return -1;
		}
		o->ipv4 = a.s_addr;
		break;
	}
	case OPT_IP6:
		if (inet_pton(AF_INET6, arg, o->ipv6) != 1) {
			fprintf(stderr, " Invalid --ip6 address %s\n", arg);
			return -1;
		}
		o->have_ipv6 = true;
		break;
	case OPT_PEER_MAC:
		if (parse_mac(arg, o->peer_mac) != 0) {
			fprintf(stderr, " Invalid --peer-mac %s\n", arg);
			return -1;
		}
		o->have_peer_mac = true;
		break;
	case OPT_VERIFY:
		o->verify = true;
		break;
	case OPT_USE_SRQ:
		o->use_srq = true;
		break;
	case OPT_STATS:
		o->stats = true;
		break;
	case OPT_RAW:
	case OPT_RAW_BASELINE:
		if (o->raw != PERF_RAW_NONE) {
			fprintf(stderr, " --raw and --raw-baseline cannot be "
				"combined\n");
			return -1;
		}
		o->raw = ch == OPT_RAW ? PERF_RAW_ONLY : PERF_RAW_BASELINE;
		break;
	case OPT_RAW_FRAME:
		if (parse_u64(arg, 60, 9000, "Raw frame size", &v) != 0)
			return -1;
		o->raw_frame = (uint32_t)v;
		break;
	case OPT_RAW_REPEAT:
		if (parse_u64(arg, 1, PERF_RAW_MAX_PHASES, "Raw phases", &v) != 0)
			return -1;
		o->raw_repeat = (unsigned int)v;
		break;
	case OPT_LOSS: {
		char *end;
		double pct = strtod(arg, &end);

		if (end == arg || *end != '\0' || !(pct > 0) || pct >= 100) {
			fprintf(stderr, " --loss takes a percentage above 0 "
				"and below 100\n");
			return -1;
		}
		o->loss_ppm = (uint32_t)(pct * 10000 + 0.5);
		break;
	}
	case OPT_BOTTLENECK: {
		unsigned long v3[3] = { 0, 8, 65536 };
		const char *s = arg;
		char *end;

		for (unsigned int i = 0; i < 3; i++) {
			v3[i] = strtoul(s, &end, 10);
			if (end == s || (*end != '\0' && *end != ',') ||
			    (i == 2 && *end != '\0'))
				break;
			if (*end == '\0') {
				s = NULL;
				break;
			}
			s = end + 1;
		}
		if (s != NULL || v3[0] == 0 || v3[0] > 1000000 ||
		    v3[1] == 0 || v3[2] < v3[1] || v3[2] > 1u << 20) {
			fprintf(stderr, " --bottleneck takes <Mbit/s 1..1000000>"
				"[,<mark, frames, >= 1>[,<buffer, frames, "
				"mark..1048576>]]\n");
			return -1;
		}
		o->bn_mbps = (uint32_t)v3[0];
		o->bn_mark = (uint32_t)v3[1];
		o->bn_buffer = (uint32_t)v3[2];
		break;
	}
	case OPT_STRICT_RTO:
		o->strict_rto = true;
		break;
	case OPT_SELECTIVE_REPEAT:
		o->selective_repeat = true;
		break;
	case OPT_TRUST_CRC:
		o->trust_crc = true;
		break;
	case OPT_RTO_FLOOR:
		if (parse_u64(arg, 1, 1000000, "RTO floor", &v) != 0)
			return -1;
		o->rto_floor_us = (uint32_t)v;
		break;
	case OPT_CC:
		if (strcmp(arg, "off") == 0) {
			o->cc = NDK_CC_NONE;
		} else if (strcmp(arg, "dcqcn") == 0) {
			o->cc = NDK_CC_DCQCN;
		} else if (strcmp(arg, "delay") == 0) {
			o->cc = NDK_CC_DELAY;
		} else {
			fprintf(stderr, " --cc takes off, dcqcn or delay\n");
			return -1;
		}
		break;
	case OPT_QUEUES:
		if (parse_u64(arg, 1, 16, "Queues", &v) != 0)
			return -1;
		if ((v & (v - 1)) != 0) {
			fprintf(stderr, " --queues takes a power of 2\n");
			return -1;
		}
		o->queues = (uint16_t)v;
		break;
	default:
		fprintf(stderr, " Invalid Command or flag.\n");
		return -1;
	}
	return 0;
}

int
perf_opts_parse(int argc, char **argv, const struct perf_test *test,
		struct perf_opts *o)
{
	const char *prog = argv[0];
	int ch, rc;

	memset(o, 0, sizeof(*o));
	o->margin = -1;
	o->inline_size = -1;
	o->gid_index = -1;
	o->out_reads = -1;
	o->num_qps = 1;
	o->tcp_port = PERF_DEF_PORT;

	if (test == NULL) {
		if (argc < 2 || argv[1][0] == '-') {
			if (argc >= 2 && (strcmp(argv[1], "-h") == 0 ||
					  strcmp(argv[1], "--help") == 0)) {
				perf_opts_usage(prog);
				return 1;
			}
			fprintf(stderr, "ndk-perf: name a test first\n");
			perf_opts_usage(prog);
			return -1;
		}
		test = perf_test_find(argv[1]);
		if (test == NULL) {
			fprintf(stderr, "ndk-perf: unknown test '%s'\n",
				argv[1]);
			return -1;
		}
		argv++;
		argc--;
	}
	o->test = test;

	optind = 1;
	while ((ch = getopt_long(argc, argv,
				 "s:an:D:f:q:t:r:Q:l:m:I:x:o:u:p:d:i:c:FNRzbhV",
				 perf_lopts, NULL)) != -1) {
		if (ch == 'h') {
			perf_opts_usage(prog);
			return 1;
		}
		if (ch == '?')
			return -1;
		rc = parse_one(ch, optarg, o);
		if (rc != 0)
			return rc;
	}
	if (optind == argc - 1) {
		o->servername = argv[optind];
	} else if (optind < argc) {
		fprintf(stderr, " Invalid Command line. Please check command "
			"rerun \n");
		return -1;
	}
	if (o->ipv4 == 0 && !o->have_ipv6) {
		fprintf(stderr, " --ip A.B.C.D or --ip6 ADDR (the adapter's "
			"address) is required\n");
		return -1;
	}
	if (o->all_sizes && o->size != 0) {
		fprintf(stderr, " -a and -s cannot be combined\n");
		return -1;
	}
	if (o->duration != 0 && o->all_sizes) {
		fprintf(stderr, " -a is not supported with -D\n");
		return -1;
	}
	if (o->duration != 0 && o->iters != 0) {
		fprintf(stderr, " -n and -D cannot be combined\n");
		return -1;
	}
	if (o->raw != PERF_RAW_NONE && o->all_sizes) {
		fprintf(stderr, " --raw and --raw-baseline take one size (-s), "
			"not -a\n");
		return -1;
	}
	if ((o->raw_frame != 0 || o->raw_repeat != 0) &&
	    o->raw == PERF_RAW_NONE) {
		fprintf(stderr, " --raw-frame and --raw-repeat go with --raw or "
			"--raw-baseline\n");
		return -1;
	}
	if ((o->loss_ppm != 0 || o->bn_mbps != 0) &&
	    o->raw == PERF_RAW_ONLY) {
		fprintf(stderr, " --loss and --bottleneck apply to the RoCE "
			"test, not to --raw\n");
		return -1;
	}
	if ((o->loss_ppm != 0 || o->bn_mbps != 0) && o->queues > 1) {
		fprintf(stderr, " --loss and --bottleneck act on queue 0 only: "
			"not with --queues\n");
		return -1;
	}
	if (rte_eal_process_type() == RTE_PROC_SECONDARY &&
	    (o->raw != PERF_RAW_NONE || o->loss_ppm != 0 || o->bn_mbps != 0)) {
		fprintf(stderr, " Attached to ndk-roced (a secondary process), "
			"the daemon owns the port: no --raw, --raw-baseline, "
			"--loss or --bottleneck\n");
		return -1;
	}
	if ((o->rdma_cm || o->cm_xchg) && o->raw != PERF_RAW_NONE) {
		fprintf(stderr, " --raw and --raw-baseline trade their hello "
			"over TCP: not with -R\n");
		return -1;
	}
	if ((o->rdma_cm || o->cm_xchg) && o->servername != NULL) {
		struct in_addr a;

		if (inet_pton(AF_INET, o->servername, &a) != 1) {
			fprintf(stderr, " -R: the server address must be the "
				"peer's RoCE IPv4 address (A.B.C.D), not %s\n",
				o->servername);
			return -1;
		}
	}
	if (o->bidir && o->test->kind != PERF_BW) {
		fprintf(stderr, " Bidirectional is only available in BW test\n");
		return -1;
	}
	/* With several QPs an SRQ's receive may hold any QP's message. */
	if (o->use_srq && (o->test->verb != PERF_SEND ||
			   (o->verify && o->num_qps > 1))) {
		fprintf(stderr, " --use_srq: SEND tests only, with --verify "
			"one QP only\n");
		return -1;
	}
	if (o->post_list > 1 && o->test->kind != PERF_BW) {
		fprintf(stderr, " Post list is supported in BW tests only\n");
		return -1;
	}
	if (o->post_list > 1 && o->cq_mod != 0 &&
	    o->post_list % o->cq_mod != 0) {
		fprintf(stderr, " Post list size must be a multiple of CQ "
			"moderation\n");
		return -1;
	}
	if (o->post_list > 1 && o->iters != 0 && o->iters % o->post_list != 0) {
		fprintf(stderr, " Number of iterations must be a multiple of "
			"post list size\n");
		return -1;
	}
	if (o->post_list > 1 && o->tx_depth != 0 &&
	    o->tx_depth < o->post_list) {
		fprintf(stderr, " Tx depth must be at least the post list "
			"size\n");
		return -1;
	}
	if (o->margin >= 0 && o->duration != 0 &&
	    o->duration <= 2 * o->margin) {
		fprintf(stderr, "please check that DURATION > 2*MARGIN\n");
		return -1;
	}
	return 0;
}
