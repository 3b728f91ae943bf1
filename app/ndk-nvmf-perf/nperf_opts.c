/* SPDX-License-Identifier: BSD-3-Clause */

/* ndk-nvmf-perf command line: spdk_nvme_perf's letters, the adapter's. */

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "nperf.h"

enum {
	NP_OPT_IP = 256,
	NP_OPT_PORT_ID,
	NP_OPT_MTU,
	NP_OPT_VERIFY,
	NP_OPT_JSON,
	NP_OPT_NSID,
	NP_OPT_RANGE,
	NP_OPT_NO_ICD,
	NP_OPT_COPY_ICD,
	NP_OPT_REGION_KEY,
	NP_OPT_KATO,
	NP_OPT_STATS,
	NP_OPT_STRICT_RTO,
	NP_OPT_DISCOVER,
	NP_OPT_RECONNECT_DELAY,
	NP_OPT_CTRL_LOSS_TMO,
};

static const char *const pattern_names[] = {
	[NP_READ] = "read", [NP_WRITE] = "write",
	[NP_RANDREAD] = "randread", [NP_RANDWRITE] = "randwrite",
	[NP_RW] = "rw", [NP_RANDRW] = "randrw",
};

const char *
np_pattern_name(enum np_pattern p)
{
	return pattern_names[p];
}

static void
np_usage(const char *prog)
{
	printf("Usage: %s [EAL args] -- -a ADDR -n SUBNQN --ip A.B.C.D "
	       "[options]\n", prog);
	printf("The controller:\n");
	printf("  -a addr       its IPv4 address (required)\n");
	printf("  -s port       its port (default 4420)\n");
	printf("  -n nqn        the subsystem NQN (required)\n");
	printf("  -H nqn        our host NQN (default: a uuid NQN)\n");
	printf("  --nsid n      namespace (default: the first active)\n");
	printf("  --kato ms     keep-alive timeout (default 10000, 0 none)\n");
	printf("  --ctrl-loss-tmo ms  when the connection is lost, reconnect "
	       "for this long\n"
	       "                (default 0: the run fails)\n");
	printf("  --reconnect-delay ms  between two attempts (default "
	       "1000)\n");
	printf("  --discover    list the discovery log page of the "
	       "controller at -a and -s\n"
	       "                instead of a workload (no -n)\n");
	printf("The workload:\n");
	printf("  -q depth      I/Os in flight per I/O queue, 1..%d "
	       "(default %d)\n", NP_MAX_QD, NP_DEF_QD);
	printf("  -o bytes      I/O size, a multiple of the block size "
	       "(default %d)\n", NP_DEF_IO);
	printf("  -w pattern    read, write, randread, randwrite, rw, randrw "
	       "(default randread)\n");
	printf("  -M percent    reads in rw and randrw (default 50)\n");
	printf("  -t seconds    duration (default %d)\n", NP_DEF_TIME);
	printf("  -N count      stop after this many I/Os instead\n");
	printf("  -P queues     I/O queues (default 1)\n");
	printf("  --range bytes part of the namespace used (default all)\n");
	printf("  --verify      each I/O writes a pattern, reads it back and "
	       "checks it\n");
	printf("  --no-in-capsule  every write by keyed SGL\n");
	printf("  --copy-in-capsule  I/O buffers not registered: in-capsule "
	       "data copied\n"
	       "                into the capsule (default: sent from the "
	       "buffer)\n");
	printf("  --region-key  the buffers' region gets one remote token: "
	       "keyed I/O\n"
	       "                without fast register or invalidation\n");
	printf("  --json[=FILE] also the results as JSON (stdout or FILE)\n");
	printf("  --stats       the adapter's non-zero counters at the end, and\n"
	       "                the polls that found nothing\n");
	printf("  --strict-timeout  no adaptive retransmission: only the QPs'\n"
	       "                local ACK timeout (a slow target, e.g. under\n"
	       "                valgrind, gets no early duplicates)\n");
	printf("The adapter:\n");
	printf("  --ip a.b.c.d  its IPv4 address (required)\n");
	printf("  --port-id n   DPDK port (default 0)\n");
	printf("  --mtu n       largest RDMA path MTU, 256..4096 (default "
	       "4096)\n");
}

static int
np_num(const char *s, unsigned long long min, unsigned long long max,
       uint64_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno == 0 && (*end == 'k' || *end == 'K')) {
		v *= 1024;
		end++;
	} else if (errno == 0 && (*end == 'm' || *end == 'M')) {
		v *= 1024 * 1024;
		end++;
	} else if (errno == 0 && (*end == 'g' || *end == 'G')) {
		v *= 1024ull * 1024 * 1024;
		end++;
	}
	if (errno != 0 || *s == '\0' || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int
np_bad(const char *opt, const char *val)
{
	fprintf(stderr, "ndk-nvmf-perf: invalid %s '%s'\n", opt, val);
	return 1;
}

static int
np_nqn(char *dst, const char *src, const char *opt)
{
	size_t n = strlen(src);

	if (n == 0 || n > NDK_NVMF_NQN_MAX)
		return np_bad(opt, src);
	memcpy(dst, src, n + 1);
	return 0;
}

int
np_parse_args(int argc, char **argv, struct np_opts *o)
{
	static const struct option lopts[] = {
		{ "ip", required_argument, NULL, NP_OPT_IP },
		{ "port-id", required_argument, NULL, NP_OPT_PORT_ID },
		{ "mtu", required_argument, NULL, NP_OPT_MTU },
		{ "verify", no_argument, NULL, NP_OPT_VERIFY },
		{ "json", optional_argument, NULL, NP_OPT_JSON },
		{ "nsid", required_argument, NULL, NP_OPT_NSID },
		{ "range", required_argument, NULL, NP_OPT_RANGE },
		{ "no-in-capsule", no_argument, NULL, NP_OPT_NO_ICD },
		{ "copy-in-capsule", no_argument, NULL, NP_OPT_COPY_ICD },
		{ "region-key", no_argument, NULL, NP_OPT_REGION_KEY },
		{ "kato", required_argument, NULL, NP_OPT_KATO },
		{ "stats", no_argument, NULL, NP_OPT_STATS },
		{ "strict-timeout", no_argument, NULL, NP_OPT_STRICT_RTO },
		{ "discover", no_argument, NULL, NP_OPT_DISCOVER },
		{ "reconnect-delay", required_argument, NULL,
		  NP_OPT_RECONNECT_DELAY },
		{ "ctrl-loss-tmo", required_argument, NULL,
		  NP_OPT_CTRL_LOSS_TMO },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct in_addr a;
	uint64_t v;
	int ch;

	memset(o, 0, sizeof(*o));
	o->trsvcid = 4420;
	o->qd = NP_DEF_QD;
	o->io_size = NP_DEF_IO;
	o->pattern = NP_RANDREAD;
	o->read_pct = 50;
	o->seconds = NP_DEF_TIME;
	o->queues = 1;
	o->mtu = 4096;
	o->kato_ms = 10000;
	o->reconnect_delay_ms = 1000;
	while ((ch = getopt_long(argc, argv, "a:s:n:H:q:o:w:M:t:N:P:h", lopts,
				 NULL)) != -1) {
		switch (ch) {
		case 'a':
			if (inet_pton(AF_INET, optarg, &a) != 1)
				return np_bad("-a", optarg);
			o->traddr = a.s_addr;
			break;
		case 's':
			if (np_num(optarg, 1, 65535, &v) != 0)
				return np_bad("-s", optarg);
			o->trsvcid = (uint16_t)v;
			break;
		case 'n':
			if (np_nqn(o->subnqn, optarg, "-n") != 0)
				return 1;
			break;
		case 'H':
			if (np_nqn(o->hostnqn, optarg, "-H") != 0)
				return 1;
			break;
		case 'q':
			if (np_num(optarg, 1, NP_MAX_QD, &v) != 0)
				return np_bad("-q", optarg);
			o->qd = (uint32_t)v;
			break;
		case 'o':
			if (np_num(optarg, 512, 16u << 20, &v) != 0)
				return np_bad("-o", optarg);
			o->io_size = (uint32_t)v;
			break;
		case 'w': {
			bool found = false;

			for (unsigned int i = 0; i <= NP_RANDRW; i++) {
				if (strcmp(optarg, pattern_names[i]) == 0) {
					o->pattern = (enum np_pattern)i;
					found = true;
				}
			}
			if (!found)
				return np_bad("-w", optarg);
			break;
		}
		case 'M':
			if (np_num(optarg, 0, 100, &v) != 0)
				return np_bad("-M", optarg);
			o->read_pct = (uint32_t)v;
			break;
		case 't':
			if (np_num(optarg, 1, 86400, &v) != 0)
				return np_bad("-t", optarg);
			o->seconds = (uint32_t)v;
			break;
		case 'N':
			if (np_num(optarg, 1, UINT64_MAX, &v) != 0)
				return np_bad("-N", optarg);
			o->count = v;
			break;
		case 'P':
			if (np_num(optarg, 1, NDK_NVMF_IO_QUEUES_MAX, &v) != 0)
				return np_bad("-P", optarg);
			o->queues = (uint16_t)v;
			break;
		case NP_OPT_NSID:
			if (np_num(optarg, 1, UINT32_MAX - 1, &v) != 0)
				return np_bad("--nsid", optarg);
			o->nsid = (uint32_t)v;
			break;
		case NP_OPT_RANGE:
			if (np_num(optarg, 4096, UINT64_MAX, &v) != 0)
				return np_bad("--range", optarg);
			o->range = v;
			break;
		case NP_OPT_KATO:
			if (np_num(optarg, 0, 3600000, &v) != 0)
				return np_bad("--kato", optarg);
			o->kato_ms = (uint32_t)v;
			break;
		case NP_OPT_VERIFY:
			o->verify = true;
			break;
		case NP_OPT_STATS:
			o->stats = true;
			break;
		case NP_OPT_STRICT_RTO:
			o->strict_rto = true;
			break;
		case NP_OPT_DISCOVER:
			o->discover = true;
			break;
		case NP_OPT_RECONNECT_DELAY:
			if (np_num(optarg, 0, 3600000, &v) != 0)
				return np_bad("--reconnect-delay", optarg);
			o->reconnect_delay_ms = (uint32_t)v;
			break;
		case NP_OPT_CTRL_LOSS_TMO:
			if (np_num(optarg, 0, 86400000, &v) != 0)
				return np_bad("--ctrl-loss-tmo", optarg);
			o->ctrl_loss_tmo_ms = (uint32_t)v;
			break;
		case NP_OPT_NO_ICD:
			o->no_icd = true;
			break;
		case NP_OPT_COPY_ICD:
			o->no_register = true;
			break;
		case NP_OPT_REGION_KEY:
			o->region_key = true;
			break;
		case NP_OPT_JSON:
			o->json = true;
			o->json_file = optarg;
			break;
		case NP_OPT_IP:
			if (inet_pton(AF_INET, optarg, &a) != 1)
				return np_bad("--ip", optarg);
			o->ipv4 = a.s_addr;
			break;
		case NP_OPT_PORT_ID:
			if (np_num(optarg, 0, 65535, &v) != 0)
				return np_bad("--port-id", optarg);
			o->port_id = (uint16_t)v;
			break;
		case NP_OPT_MTU:
			if (np_num(optarg, 256, 4096, &v) != 0 ||
			    (v & (v - 1)) != 0)
				return np_bad("--mtu", optarg);
			o->mtu = (uint32_t)v;
			break;
		case 'h':
			np_usage(argv[0]);
			return 2;
		default:
			np_usage(argv[0]);
			return 1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "ndk-nvmf-perf: unexpected '%s'\n",
			argv[optind]);
		return 1;
	}
	if (o->traddr == 0 || (o->subnqn[0] == '\0' && !o->discover) ||
	    o->ipv4 == 0) {
		fprintf(stderr, "ndk-nvmf-perf: -a, -n (or --discover) and "
			"--ip are required\n");
		return 1;
	}
	return 0;
}
