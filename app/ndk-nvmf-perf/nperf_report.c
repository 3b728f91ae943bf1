/* SPDX-License-Identifier: BSD-3-Clause */

/* ndk-nvmf-perf: latency histogram and the text and JSON reports. */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <arpa/inet.h>

#include "nperf.h"

static unsigned int
bucket_of(uint64_t ns)
{
	unsigned int msb;

	if (ns < NP_HIST_SUB)
		return (unsigned int)ns;
	msb = 63u - (unsigned int)__builtin_clzll(ns);
	/* 5 mantissa bits below the leading one: 32 buckets a power. */
	return (msb - 4) * NP_HIST_SUB +
		(unsigned int)((ns >> (msb - 5)) & (NP_HIST_SUB - 1));
}

/* Upper bound (ns) of bucket @p i. */
static uint64_t
bucket_top(unsigned int i)
{
	unsigned int msb;

	if (i < NP_HIST_SUB)
		return i;
	msb = i / NP_HIST_SUB + 4;
	return ((uint64_t)(NP_HIST_SUB + i % NP_HIST_SUB) << (msb - 5)) +
		((1ull << (msb - 5)) - 1);
}

void
np_hist_add(struct np_hist *h, uint64_t ns)
{
	if (h->n == 0 || ns < h->min_ns)
		h->min_ns = ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
	h->n++;
	h->sum_ns += ns;
	h->b[bucket_of(ns)]++;
}

uint64_t
np_hist_pct(const struct np_hist *h, double pct)
{
	uint64_t want, seen = 0;

	if (h->n == 0)
		return 0;
	want = (uint64_t)((double)h->n * pct / 100.0);
	if (want == 0)
		want = 1;
	for (unsigned int i = 0; i < NP_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= want)
			return bucket_top(i) < h->max_ns ? bucket_top(i) :
				h->max_ns;
	}
	return h->max_ns;
}

static double
us(uint64_t ns)
{
	return (double)ns / 1000.0;
}

static void
text_row(const char *name, const struct np_result *r, int k)
{
	const struct np_hist *h = &r->lat[k];

	if (r->ios[k] == 0)
		return;
	printf("%-6s %12.1f %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f\n",
	       name, (double)r->ios[k] / r->seconds,
	       (double)r->bytes[k] / r->seconds / (1024.0 * 1024.0),
	       us(h->sum_ns / h->n), us(h->min_ns), us(np_hist_pct(h, 50)),
	       us(np_hist_pct(h, 99)), us(np_hist_pct(h, 99.9)));
}

static void
json_lat(FILE *f, const char *name, const struct np_result *r, int k,
	 bool last)
{
	const struct np_hist *h = &r->lat[k];

	fprintf(f, "    \"%s\": {\"ios\": %" PRIu64 ", \"iops\": %.1f, "
		"\"mib_per_s\": %.3f, \"lat_us\": {\"avg\": %.2f, "
		"\"min\": %.2f, \"max\": %.2f, \"p50\": %.2f, \"p99\": %.2f, "
		"\"p99_9\": %.2f}}%s\n", name, r->ios[k],
		(double)r->ios[k] / r->seconds,
		(double)r->bytes[k] / r->seconds / (1024.0 * 1024.0),
		h->n ? us(h->sum_ns / h->n) : 0.0, us(h->min_ns),
		us(h->max_ns), us(np_hist_pct(h, 50)), us(np_hist_pct(h, 99)),
		us(np_hist_pct(h, 99.9)), last ? "" : ",");
}

static void
json_report(FILE *f, const struct np_opts *o,
	    const struct ndk_nvmf_ctrlr_info *ci,
	    const struct ndk_nvmf_ns_info *ns, const struct np_result *r)
{
	char addr[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &o->traddr, addr, sizeof(addr));
	fprintf(f, "{\n  \"target\": {\"traddr\": \"%s\", \"trsvcid\": %u, "
		"\"subnqn\": \"%s\", \"cntlid\": %u, \"nsid\": %u, "
		"\"block_size\": %u, \"in_capsule_max\": %u},\n", addr,
		o->trsvcid, o->subnqn, ci->cntlid, ns->nsid, ns->block_size,
		ci->in_capsule_max);
	fprintf(f, "  \"workload\": {\"pattern\": \"%s\", \"read_pct\": %u, "
		"\"io_size\": %u, \"queue_depth\": %u, \"queues\": %u, "
		"\"verify\": %s},\n", np_pattern_name(o->pattern), o->read_pct,
		o->io_size, o->qd, ci->num_io_queues,
		o->verify ? "true" : "false");
	fprintf(f, "  \"seconds\": %.3f,\n  \"results\": {\n", r->seconds);
	json_lat(f, "read", r, 0, false);
	json_lat(f, "write", r, 1, true);
	fprintf(f, "  },\n  \"errors\": %" PRIu64 ", \"verified\": %" PRIu64
		", \"mismatches\": %" PRIu64 ",\n", r->errors, r->verified,
		r->mismatches);
	fprintf(f, "  \"queues\": {\"submitted\": %" PRIu64 ", \"in_capsule\": "
		"%" PRIu64 ", \"in_capsule_direct\": %" PRIu64 ", \"keyed\": %"
		PRIu64 ", \"keyed_region\": %" PRIu64
		", \"remote_invalidations\": "
		"%" PRIu64 ", \"local_invalidations\": %" PRIu64
		", \"bad_responses\": %" PRIu64 ", \"timeouts\": %" PRIu64
		"}\n}\n", r->qs.submitted, r->qs.in_capsule,
		r->qs.in_capsule_direct, r->qs.keyed, r->qs.keyed_region,
		r->qs.remote_invalidations, r->qs.local_invalidations,
		r->qs.bad_responses, r->qs.timeouts);
}

void
np_report(const struct np_opts *o, const struct ndk_nvmf_ctrlr_info *ci,
	  const struct ndk_nvmf_ns_info *ns, const struct np_result *r)
{
	struct np_result tot = *r;

	printf("%-6s %12s %10s %10s %10s %10s %10s %10s\n", "", "IOPS",
	       "MiB/s", "avg(us)", "min(us)", "p50(us)", "p99(us)",
	       "p99.9(us)");
	text_row("read", r, 0);
	text_row("write", r, 1);
	if (r->ios[0] != 0 && r->ios[1] != 0) {
		/* Both directions: a total row over one merged histogram. */
		tot.ios[0] += tot.ios[1];
		tot.bytes[0] += tot.bytes[1];
		tot.lat[0].n += r->lat[1].n;
		tot.lat[0].sum_ns += r->lat[1].sum_ns;
		if (r->lat[1].min_ns < tot.lat[0].min_ns)
			tot.lat[0].min_ns = r->lat[1].min_ns;
		if (r->lat[1].max_ns > tot.lat[0].max_ns)
			tot.lat[0].max_ns = r->lat[1].max_ns;
		for (unsigned int i = 0; i < NP_HIST_BUCKETS; i++)
			tot.lat[0].b[i] += r->lat[1].b[i];
		text_row("total", &tot, 0);
	}
	printf("I/Os: %" PRIu64 " in %.2f s, errors %" PRIu64 "\n",
	       r->ios[0] + r->ios[1], r->seconds, r->errors);
	if (o->verify)
		printf("verify: %" PRIu64 " reads checked, %" PRIu64
		       " mismatches\n", r->verified, r->mismatches);
	printf("queues: submitted %" PRIu64 ", in-capsule %" PRIu64
	       " (%" PRIu64 " not copied), keyed %" PRIu64
	       " (%" PRIu64 " with the region's key)"
	       ", remote invalidations %" PRIu64
	       ", local invalidations %" PRIu64 ", bad responses %" PRIu64
	       ", timeouts %" PRIu64 "\n", r->qs.submitted, r->qs.in_capsule,
	       r->qs.in_capsule_direct, r->qs.keyed, r->qs.keyed_region,
	       r->qs.remote_invalidations,
	       r->qs.local_invalidations, r->qs.bad_responses,
	       r->qs.timeouts);
	if (o->json) {
		FILE *f = stdout;

		if (o->json_file != NULL) {
			f = fopen(o->json_file, "w");
			if (f == NULL) {
				perror(o->json_file);
				return;
			}
		}
		json_report(f, o, ci, ns, r);
		if (f != stdout)
			fclose(f);
	}
}
