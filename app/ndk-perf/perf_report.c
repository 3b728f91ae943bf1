/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * perftest 4.5's printed formats (header block, address lines, result
 * columns) and its --out_json file, reproduced from its output and format
 * strings; the arithmetic follows its documented definitions:
 *
 *  - BW average = bytes moved / (last completion - first post), in MiB/s
 *    (2^20) or, with --report_gbits, Gbit/s (10^9 / 8 bytes);
 *  - BW peak = message size / the shortest per-message time over any run
 *    of posts i..j ending at a completion point (0 when not measured:
 *    duration mode, -N, the SEND receiver);
 *  - latency: deltas of consecutive send timestamps, halved for SEND and
 *    WRITE ping-pong, sorted, the two largest dropped; t_typical is the
 *    median, t_max the first dropped sample (as perftest prints it).
 */

#include <arpa/inet.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf.h"

#define RESULT_LINE "---------------------------------------------------" \
	"------------------------------------\n"
#define RESULT_FMT " #bytes     #iterations    BW peak[MB/sec]    " \
	"BW average[MB/sec]   MsgRate[Mpps]"
#define RESULT_FMT_G " #bytes     #iterations    BW peak[Gb/sec]    " \
	"BW average[Gb/sec]   MsgRate[Mpps]"
#define RESULT_FMT_LAT " #bytes #iterations    t_min[usec]    t_max[usec]" \
	"  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% " \
	"percentile[usec]   99.9% percentile[usec] "
#define RESULT_FMT_LAT_DUR " #bytes        #iterations       t_avg[usec]" \
	"    tps average"
#define REPORT_FMT " %-7lu    %-10lu       %-7.2lf            %-7.2lf\t\t" \
	"   %-7.6lf"
#define REPORT_FMT_EXT " %-7lu    %lu           %-7.6lf            " \
	"%-7.6lf            %-7.6lf"
#define REPORT_FMT_LAT " %-7lu %lu          %-7.2f        %-7.2f      " \
	"%-7.2f  \t       %-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f"
#define REPORT_FMT_LAT_DUR " %-7lu       %lu            %-7.2f        %-7.2f"

/* Samples perftest leaves out at the top of the sorted latencies. */
#define LAT_MEASURE_TAIL 2
/* Upper bound on the work of the peak search (pairs i, j visited). */
#define PEAK_MAX_WORK 20000000ull

static const char *const verb_title[] = { "Send", "RDMA_Write", "RDMA_Read" };

/* What the last result row said (perf_last_row()). */
static struct perf_row last_row;

const struct perf_row *
perf_last_row(void)
{
	return &last_row;
}

static void
row_note(const struct perf_params *p, enum perf_kind kind, bool duration)
{
	uint64_t seq = last_row.seq + 1;

	memset(&last_row, 0, sizeof(last_row));
	last_row.seq = seq;
	last_row.kind = kind;
	last_row.duration = duration;
	last_row.size = p->size;
}

void
perf_print_line(void)
{
	fputs(RESULT_LINE, stdout);
}

void
perf_print_waiting(void)
{
	printf("\n************************************\n");
	printf("* Waiting for client to connect... *\n");
	printf("************************************\n");
	fflush(stdout);
}

static const char *
on_off(bool b)
{
	return b ? "ON" : "OFF";
}

/* perftest 4.5 shows relaxed ordering off for write_lat only. */
static bool
relax_order(const struct perf_params *p)
{
	return !(p->verb == PERF_WRITE && p->kind == PERF_LAT);
}

void
perf_print_test_info(const struct perf_params *p)
{
	bool client = !p->server || p->duplex;

	perf_print_line();
	printf("                    %s ", verb_title[p->verb]);
	if (p->kind == PERF_BW)
		printf("%s%sBW ", p->duplex ? "Bidirectional " : "",
		       p->post_list > 1 ? "Post List " : "");
	else
		printf("Latency ");
	printf("Test\n");
	printf(" Dual-port       : OFF\t\tDevice         : %s\n", p->device);
	printf(" Number of qps   : %u\t\tTransport type : IB\n", p->num_qps);
	printf(" Connection type : RC\t\tUsing SRQ      : OFF\n");
	printf(" PCIe relax order: %s\n", on_off(relax_order(p)));
	printf(" ibv_wr* API     : OFF\n");
	if (client)
		printf(" TX depth        : %u\n", p->tx_depth);
	if (p->post_list > 1)
		printf(" Post List       : %u\n", p->post_list);
	if (p->verb == PERF_SEND && (p->server || p->duplex))
		printf(" RX depth        : %u\n", p->rx_depth);
	if (p->kind == PERF_BW)
		printf(" CQ Moderation   : %u\n", p->cq_mod);
	printf(" Mtu             : %u[B]\n", p->mtu);
	printf(" Link type       : Ethernet\n");
	printf(" GID index       : %d\n", p->gid_index);
	if (p->verb != PERF_READ)
		printf(" Max inline data : %d[B]\n", p->inline_size);
	else
		printf(" Outstand reads  : %d\n", p->out_reads);
	printf(" rdma_cm QPs\t : %s\n", on_off(p->rdma_cm));
	printf(" Data ex. method : %s\n", p->cm_xchg ? "rdma_cm" : "Ethernet");
	perf_print_line();
	fflush(stdout);
}

void
perf_print_dest(const struct perf_params *p, const struct perf_dest *d,
		bool remote)
{
	const uint8_t *g = d->gid;

	printf(" %s address: LID %#04x QPN %#06x PSN %#06x",
	       remote ? "remote" : "local", d->lid, d->qpn, d->psn);
	if (p->verb == PERF_READ)
		printf(" OUT %#04x", d->out_reads);
	if (p->verb != PERF_SEND)
		printf(" RKey %#08x VAddr %#016llx", d->rkey,
		       (unsigned long long)d->vaddr);
	putchar('\n');
	printf(" GID: %02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:"
	       "%02d:%02d:%02d:%02d:%02d:%02d\n", g[0], g[1], g[2], g[3],
	       g[4], g[5], g[6], g[7], g[8], g[9], g[10], g[11], g[12], g[13],
	       g[14], g[15]);
}

void
perf_print_result_header(const struct perf_params *p)
{
	perf_print_line();
	if (p->kind == PERF_BW)
		fputs(p->report_gbits ? RESULT_FMT_G : RESULT_FMT, stdout);
	else
		fputs(p->duration == 0 ? RESULT_FMT_LAT : RESULT_FMT_LAT_DUR,
		      stdout);
	putchar('\n');
	fflush(stdout);
}

/* ------------------------------------------------------------------ */
/* Bandwidth                                                           */
/* ------------------------------------------------------------------ */

void
perf_bw_compute(const struct perf_params *p, const uint64_t *tposted,
		const uint64_t *tcompleted, uint64_t n, bool no_peak,
		struct perf_bw_rep *rep)
{
	double factor = p->report_gbits ? 125000000.0 : 1048576.0;
	uint64_t last = no_peak ? 0 : n - 1;
	double secs = (double)(tcompleted[last] - tposted[0]) / p->tsc_hz;

	memset(rep, 0, sizeof(*rep));
	rep->size = p->size;
	rep->iters = n;
	if (secs <= 0 || n == 0)
		return;
	rep->bw_avg = (double)p->size * (double)n / secs / factor;
	rep->msg_rate = (double)n / secs / 1e6;
	if (no_peak)
		return;

	/*
	 * Peak: shortest (tcompleted[j] - tposted[i]) / (j - i + 1) over
	 * completion points j >= i. Completion points are every cq_mod-th
	 * message and the last one. Above PEAK_MAX_WORK pairs only every
	 * step-th start i is tried.
	 */
	uint64_t mod = p->cq_mod != 0 ? p->cq_mod : 1;
	uint64_t step = (n / mod + 1) * n / PEAK_MAX_WORK + 1;
	uint64_t best = tcompleted[n - 1] - tposted[0];
	double best_per_msg = (double)best / (double)n;

	for (uint64_t i = 0; i < n; i += step) {
		for (uint64_t j = (i / mod + 1) * mod - 1; j < n; j += mod) {
			double t = (double)(tcompleted[j] - tposted[i]) /
				(double)(j - i + 1);

			if (t < best_per_msg)
				best_per_msg = t;
		}
		if (n % mod != 0) {
			double t = (double)(tcompleted[n - 1] - tposted[i]) /
				(double)(n - i);

			if (t < best_per_msg)
				best_per_msg = t;
		}
	}
	if (best_per_msg > 0)
		rep->bw_peak = (double)p->size * p->tsc_hz / best_per_msg /
			factor;
}

static const char *
json_file(const struct perf_params *p)
{
	return p->json_file != NULL ? p->json_file : PERF_DEF_JSON_FILE;
}

/* perftest 4.5 writes its JSON-like keys unquoted; so do we. */
static void
json_test_info(FILE *f, const struct perf_params *p)
{
	fprintf(f, "test_info: {\n");
	fprintf(f, "test: %s_%s%s%sTest,\n", verb_title[p->verb],
		p->kind == PERF_BW && p->duplex ? "Bidirectional_" : "",
		p->kind == PERF_BW && p->post_list > 1 ? "Post_List_" : "",
		p->kind == PERF_BW ? "BW_" : "Latency_");
	fprintf(f, "Dual_port: OFF,\nDevice: \"%s\",\n", p->device);
	fprintf(f, "Number_of_qps: %u,\nTransport_type: IB,\n", p->num_qps);
	fprintf(f, "Connection_type: RC,\nUsing_SRQ: OFF,\n");
	fprintf(f, "PCIe_relax_order: %s,\n", on_off(relax_order(p)));
	fprintf(f, "ibv_wr_API: OFF,\n");
	if (!p->server || p->duplex)
		fprintf(f, "TX_depth : %u,\n", p->tx_depth);
	if (p->post_list > 1)
		fprintf(f, "Post_List: %u,\n", p->post_list);
	if (p->verb == PERF_SEND && (p->server || p->duplex))
		fprintf(f, "RX_depth: %u,\n", p->rx_depth);
	if (p->kind == PERF_BW)
		fprintf(f, "CQ_Moderation: %u,\n", p->cq_mod);
	fprintf(f, "Mtu: %u,\n", p->mtu);
	fprintf(f, "Link_type: Ethernet,\n");
	fprintf(f, "GID_index: %d,\n", p->gid_index);
	if (p->verb != PERF_READ)
		fprintf(f, "Max_inline_data: %d,\n", p->inline_size);
	else
		fprintf(f, "Outstand_reads: %d,\n", p->out_reads);
	fprintf(f, "rdma_cm_QPs: %s,\n", on_off(p->rdma_cm));
	fprintf(f, "Data_ex_method: %s,\n", p->cm_xchg ? "rdma_cm" :
		"Ethernet");
	fprintf(f, "},\n");
}

static FILE *
json_open(const struct perf_params *p)
{
	FILE *f = fopen(json_file(p), "w");

	if (f == NULL)
		fprintf(stderr, "failed to open %s\n", json_file(p));
	return f;
}

void
perf_print_bw(const struct perf_params *p, const struct perf_bw_rep *r)
{
	bool ext = p->report_gbits && r->bw_avg < 0.1;

	if (p->out_json) {
		FILE *f = json_open(p);

		if (f != NULL) {
			fprintf(f, "{\n");
			json_test_info(f, p);
			fprintf(f, "results: {\n");
			fprintf(f, ext ?
				"MsgSize: %lu,\nn_iterations: %lu,\n"
				"BW_peak: %.6lf,\nBW_average: %.6lf,\n"
				"MsgRate: %.6lf,\n" :
				"MsgSize: %lu,\nn_iterations: %lu,\n"
				"BW_peak: %.2lf,\nBW_average: %.2lf,\n"
				"MsgRate: %.6lf,\n",
				(unsigned long)r->size,
				(unsigned long)r->iters, r->bw_peak,
				r->bw_avg, r->msg_rate);
			fprintf(f, "},\n}\n");
			fclose(f);
		}
	}
	row_note(p, PERF_BW, false);
	last_row.size = r->size;
	last_row.bw_avg = r->bw_avg;
	last_row.msg_rate = r->msg_rate;
	printf(ext ? REPORT_FMT_EXT : REPORT_FMT, (unsigned long)r->size,
	       (unsigned long)r->iters, r->bw_peak, r->bw_avg, r->msg_rate);
	putchar('\n');
	fflush(stdout);
}

void
perf_print_bw_sum(const struct perf_params *p, const struct perf_bw_rep *mine,
		  const struct perf_bw_rep *theirs)
{
	struct perf_bw_rep r = *mine;

	r.bw_peak += theirs->bw_peak;
	r.bw_avg += theirs->bw_avg;
	r.msg_rate += theirs->msg_rate;
	perf_print_bw(p, &r);
}

/* ------------------------------------------------------------------ */
/* Latency                                                             */
/* ------------------------------------------------------------------ */

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int
perf_print_lat(const struct perf_params *p, uint64_t *t, uint64_t n)
{
	double unit = p->tsc_hz / 1e6 * (p->verb == PERF_READ ? 1 : 2);
	uint64_t cnt, median;
	double avg = 0, var = 0, stdev, lat, v[6];
	uint64_t i99, i999;

	if (n < PERF_MIN_ITERS) {
		fprintf(stderr, " Too few samples for a latency report\n");
		return -1;
	}
	/* Deltas of consecutive posts, in place. */
	for (uint64_t i = 0; i + 1 < n; i++)
		t[i] = t[i + 1] - t[i];
	cnt = n - 1;
	qsort(t, cnt, sizeof(t[0]), cmp_u64);
	cnt -= LAT_MEASURE_TAIL;
	median = (cnt - 1) % 2 ? (t[cnt / 2] + t[cnt / 2 - 1]) / 2 :
		t[cnt / 2];
	for (uint64_t i = 0; i < cnt; i++)
		avg += (double)t[i] / unit;
	avg /= (double)cnt;
	for (uint64_t i = 0; i < cnt; i++) {
		double d = avg - (double)t[i] / unit;

		var += d * d;
	}
	stdev = sqrt(var / (double)cnt);
	lat = (double)median / unit;
	i99 = (uint64_t)ceil((double)cnt * 0.99);
	i999 = (uint64_t)ceil((double)cnt * 0.999);
	v[0] = (double)t[0] / unit;
	v[1] = (double)t[cnt] / unit;
	v[2] = (double)t[i99] / unit;
	v[3] = (double)t[i999] / unit;

	if (p->out_json) {
		FILE *f = json_open(p);

		if (f != NULL) {
			fprintf(f, "{\n");
			json_test_info(f, p);
			fprintf(f, "results: {\n");
			fprintf(f, "MsgSize: %lu,\nn_iterations: %lu,\n"
				"t_min: %.2f,\nt_max: %.2f,\nt_typical: %.2f,\n"
				"t_avg: %.2f,\nt_stdev: %.2f,\n"
				"percentile_99: %.2f,\n"
				"percentile_99.9: %.2f,\n",
				(unsigned long)p->size, (unsigned long)n,
				v[0], v[1], lat, avg, stdev, v[2], v[3]);
			fprintf(f, "},\n}\n");
			fclose(f);
		}
	}
	row_note(p, PERF_LAT, false);
	last_row.t_typical = lat;
	last_row.t_avg = avg;
	last_row.t_p99 = v[2];
	last_row.t_p999 = v[3];
	printf(REPORT_FMT_LAT, (unsigned long)p->size, (unsigned long)n, v[0],
	       v[1], lat, avg, stdev, v[2], v[3]);
	putchar('\n');
	fflush(stdout);
	return 0;
}

void
perf_print_lat_duration(const struct perf_params *p, uint64_t ticks,
			uint64_t iters)
{
	double us = (double)ticks / (p->tsc_hz / 1e6);
	double lat = iters != 0 ?
		us / (p->verb == PERF_READ ? 1 : 2) / (double)iters : 0;
	double tps = us > 0 ? (double)iters / (us / 1e6) : 0;

	if (p->out_json) {
		FILE *f = json_open(p);

		if (f != NULL) {
			fprintf(f, "{\n");
			json_test_info(f, p);
			fprintf(f, "results: {\n");
			fprintf(f, "MsgSize: %lu,\nn_iterations: %lu,\n"
				"t_avg: %.2f,\ntps_average: %.2f,\n",
				(unsigned long)p->size,
				(unsigned long)iters, lat, tps);
			fprintf(f, "},\n}\n");
			fclose(f);
		}
	}
	row_note(p, PERF_LAT, true);
	last_row.t_avg = lat;
	printf(REPORT_FMT_LAT_DUR, (unsigned long)p->size,
	       (unsigned long)iters, lat, tps);
	putchar('\n');
	fflush(stdout);
}

/* ------------------------------------------------------------------ */
/* GIDs                                                                */
/* ------------------------------------------------------------------ */

void
perf_gid_from_ipv4(uint8_t gid[16], uint32_t ipv4)
{
	memset(gid, 0, 16);
	gid[10] = 0xff;
	gid[11] = 0xff;
	memcpy(&gid[12], &ipv4, 4);
}

uint32_t
perf_ipv4_from_gid(const uint8_t gid[16])
{
	static const uint8_t prefix[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
	};
	uint32_t ip;

	if (memcmp(gid, prefix, sizeof(prefix)) != 0)
		return 0;
	memcpy(&ip, &gid[12], 4);
	return ip;
}
