/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_NVMF_PERF_H
#define NDK_NVMF_PERF_H

/*
 * ndk-nvmf-perf: an NVMe-oF (RDMA) load generator in the manner of
 * spdk_nvme_perf and fio, on lib/nvmf's host over an ndk-roce adapter.
 * One lcore runs everything: the adapter, the admin queue (keep-alive)
 * and the I/O queues, each with -q I/Os in flight.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ndk_nvmf_host.h"

#define NP_DEF_QD 32
#define NP_DEF_IO 4096
#define NP_DEF_TIME 10
#define NP_MAX_QD 1023
#define NP_DISC_MAX 32          /* discovery entries listed */

/** Workload patterns (-w). */
enum np_pattern {
	NP_READ, NP_WRITE, NP_RANDREAD, NP_RANDWRITE, NP_RW, NP_RANDRW,
};

struct np_opts {
	uint32_t traddr;         /* -a, network order */
	uint16_t trsvcid;        /* -s */
	char subnqn[NDK_NVMF_NQN_MAX + 1];  /* -n */
	char hostnqn[NDK_NVMF_NQN_MAX + 1]; /* -H (default: generated) */
	uint32_t qd;             /* -q, per I/O queue */
	uint32_t io_size;        /* -o */
	enum np_pattern pattern; /* -w */
	uint32_t read_pct;       /* -M (rw, randrw) */
	uint32_t seconds;        /* -t */
	uint64_t count;          /* -N: stop after this many I/Os (0: -t) */
	uint16_t queues;         /* -P: I/O queues */
	uint32_t nsid;           /* --nsid (0: the first) */
	uint64_t range;          /* --range: bytes of the namespace used */
	bool verify;             /* --verify */
	bool no_icd;             /* --no-in-capsule */
	bool no_register;        /* --copy-in-capsule: buffers not registered */
	bool region_key;         /* --region-key: NDK_NVMF_BUF_REMOTE */
	bool json;               /* --json */
	bool stats;              /* --stats: the adapter's counters */
	bool strict_rto;         /* --strict-timeout */
	bool discover;           /* --discover: list the discovery log */
	const char *json_file;   /* --json=FILE */
	uint32_t ipv4;           /* --ip: the adapter's */
	uint16_t port_id;        /* --port-id */
	uint32_t mtu;            /* --mtu */
	uint32_t kato_ms;        /* --kato */
	uint32_t reconnect_delay_ms; /* --reconnect-delay */
	uint32_t ctrl_loss_tmo_ms;   /* --ctrl-loss-tmo (0: no reconnect) */
};

/** Print the controller's asynchronous events (and the changed namespace
 *  list they name) while the run goes. @return 0 or -1 (no memory). */
int np_events_start(struct ndk_nvmf_ctrlr *c);
/** Free what that used, once the controller is closed. */
void np_events_stop(void);

/** Parse the options. @return 0, 1 (error printed), 2 (--help). */
int np_parse_args(int argc, char **argv, struct np_opts *o);

/** Name of a pattern. */
const char *np_pattern_name(enum np_pattern p);

/** Latency histogram: log-linear buckets of nanoseconds. */
#define NP_HIST_SUB 32
#define NP_HIST_BUCKETS (64 * NP_HIST_SUB)

struct np_hist {
	uint64_t n;
	uint64_t sum_ns;
	uint64_t min_ns, max_ns;
	uint64_t b[NP_HIST_BUCKETS];
};

void np_hist_add(struct np_hist *h, uint64_t ns);
/** Value (ns) under which @p pct percent of the samples lie. */
uint64_t np_hist_pct(const struct np_hist *h, double pct);

/** What a run measured. */
struct np_result {
	double seconds;
	uint64_t ios[2];          /* [0] reads, [1] writes */
	uint64_t bytes[2];
	struct np_hist lat[2];
	uint64_t errors;          /* completions with a non-zero status */
	uint64_t verified;        /* reads compared (--verify) */
	uint64_t mismatches;
	struct ndk_nvmf_qpair_stats qs;  /* summed over the I/O queues */
};

/** Print the text report, and the JSON one with --json. */
void np_report(const struct np_opts *o, const struct ndk_nvmf_ctrlr_info *ci,
	       const struct ndk_nvmf_ns_info *ns, const struct np_result *r);

#endif /* NDK_NVMF_PERF_H */
