/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * --raw and --raw-baseline: the link's own figure for a test, measured
 * with plain rte_eth_tx_burst()/rte_eth_rx_burst() on the adapter's port
 * and queue (app/common/ndk_rawlink.h), with the frames the test's RoCE
 * messages travel as (or --raw-frame bytes each):
 *
 *  - BW tests: a one-way burst in the direction the data flows (client
 *    to server for SEND and WRITE, server to client for READ responses),
 *    -n messages' worth of frames or -D seconds; the receiver measures
 *    first to last frame and both sides print its figures as a perftest
 *    BW row (bytes per message, messages, message rate) plus the frames.
 *  - LAT tests: a ping-pong. The client sends a message's frames (a READ
 *    request's for read_lat), the server answers with a message's frames
 *    (the READ response's) once all of the ping arrived; each side
 *    timestamps its sends like perftest does, and the row is computed by
 *    the same code as the RoCE one (half the round trip for SEND and
 *    WRITE, the whole of it for READ).
 *
 * The TCP connection carries ndk-perf's own messages (text, the size of a
 * key message), after perftest's start and before its first handshake:
 *
 *   hello  both ways   mode, test, size, MTU, frame, -n, -D, -f, --verify
 *                      must match; each side's MAC for the frames' header
 *   end    one way     the sender (BW) or client (LAT) is done: frames or
 *                      iterations sent; the receiver looks for it when idle
 *   report one way     BW: the receiver's figures, for the sender to print
 *   done   both ways   neither side touches the port any more
 *
 * A peer that is not in the same raw mode reads our hello as a key message
 * and fails to parse it, and we say what its hello-less answer means.
 * The adapter is open but not polled meanwhile (frames of ours that it
 * might see later are not IPv4 and it drops them).
 */

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>

#include "ndk_rawlink.h"
#include "perf_ndk.h"

/*
 * A key message's size: a peer that is not in a raw mode reads our hello
 * as its keys (and fails to parse it) instead of waiting for more bytes.
 */
#define RAW_MSG_LEN PERF_KEY_MSG_LEN
#define RAW_MAGIC "ndkraw1"
/*
 * An idle receiver looks for the peer's end message this often (a BW
 * receiver, or an echo server past -n pings or in -D mode); an echo
 * server also after this long without a frame (the client may have
 * given up). Rare enough not to show in the 99.9th percentile.
 */
#define RAW_POLL_TCP_US 1000
#define RAW_ECHO_POLL_TCP_MS 10
#define RAW_ECHO_IDLE_MS 100
/* After the end message, frames still missing this long are lost. */
#define RAW_QUIET_MS 200
/* A ping-pong waits this long for the other side's frames. */
#define RAW_ECHO_TIMEOUT_S 5
#define RAW_REPORT_TIMEOUT_MS 30000
/* A sender whose link takes nothing for this long gives up. */
#define RAW_STALL_S 10

static const char *const raw_mode_name[] = {
	[PERF_RAW_NONE] = "none",
	[PERF_RAW_ONLY] = "raw",
	[PERF_RAW_BASELINE] = "raw-baseline",
};
/* The mode in a hello. */
static const char raw_mode_tag[] = { 'N', 'R', 'B' };

/* One raw run. "ping" is what the client-side role sends first: BW data
 * (whoever sends it), LAT client -> server; "pong" LAT server -> client. */
struct raw_run {
	struct perf_ctx *c;
	struct ndk_rawlink rl;
	struct ndk_rawlink_shape ping;
	struct ndk_rawlink_shape pong;
	bool sender;            /**< BW: we send the data */
	uint64_t hz;
};

/* What a BW receiver measured. */
struct raw_bw_figures {
	uint64_t frames;
	uint64_t bytes;
	double secs;
	uint64_t lost;
	uint64_t bad;
};

/* ------------------------------------------------------------------ */
/* Messages                                                            */
/* ------------------------------------------------------------------ */

static int
raw_msg_send(struct perf_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int
raw_msg_send(struct perf_ctx *c, const char *fmt, ...)
{
	char m[RAW_MSG_LEN];
	va_list ap;

	memset(m, 0, sizeof(m));
	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	return perf_xchg_send(&c->x, m, sizeof(m));
}

static int
raw_msg_recv(struct perf_ctx *c, char m[RAW_MSG_LEN], int timeout_ms)
{
	int rc = perf_xchg_recv(&c->x, m, RAW_MSG_LEN, timeout_ms);

	if (rc == 1)
		fprintf(stderr, " raw: no word from the peer for %d ms\n",
			timeout_ms);
	m[RAW_MSG_LEN - 1] = '\0';
	return rc == 0 ? 0 : -1;
}

/*
 * Raw phases of a BW test: net_memif's unpaced burst runs in one of two
 * modes (about 6 or 13 to 21 Mpps of small frames, see
 * doc/performance.md), so the baseline is the best of several phases.
 */
static unsigned int
raw_phases(const struct perf_ctx *c)
{
	if (c->p.kind != PERF_BW)
		return 1;
	return c->o->raw_repeat != 0 ? c->o->raw_repeat : PERF_RAW_PHASES;
}

/* The parameters both sides must share, as text. */
static void
raw_hello_key(const struct perf_ctx *c, char *buf, size_t len)
{
	const struct perf_params *p = &c->p;

	snprintf(buf, len, RAW_MAGIC " %c %s s=%" PRIu64 " m=%u f=%u n=%"
		 PRIu64 " D=%d M=%d v=%d r=%u", raw_mode_tag[c->o->raw],
		 p->test->name, p->size, p->mtu, c->o->raw_frame, p->iters,
		 p->duration, p->margin, c->o->verify ? 1 : 0,
		 raw_phases(c));
}

/* Trade hellos; learn the peer's MAC. */
static int
raw_hello(struct perf_ctx *c, const struct rte_ether_addr *mine,
	  struct rte_ether_addr *peer)
{
	char key[RAW_MSG_LEN - 24], out[RAW_MSG_LEN], in[RAW_MSG_LEN];
	unsigned int b[RTE_ETHER_ADDR_LEN];
	const char *mac;

	raw_hello_key(c, key, sizeof(key));
	memset(out, 0, sizeof(out));
	snprintf(out, sizeof(out), "%s mac=" RTE_ETHER_ADDR_PRT_FMT, key,
		 RTE_ETHER_ADDR_BYTES(mine));
	if (perf_xchg_bytes(&c->x, out, in, sizeof(in)) != 0) {
		fprintf(stderr, " raw: the peer left at the raw hello (give "
			"--%s to both sides)\n", raw_mode_name[c->o->raw]);
		return -1;
	}
	in[sizeof(in) - 1] = '\0';
	if (strncmp(in, RAW_MAGIC, strlen(RAW_MAGIC)) != 0) {
		fprintf(stderr, " raw: the peer is not in a raw mode (give "
			"--%s to both sides; a perftest peer has none)\n",
			raw_mode_name[c->o->raw]);
		return -1;
	}
	mac = strstr(in, " mac=");
	if (mac == NULL || (size_t)(mac - in) != strlen(key) ||
	    strncmp(in, key, strlen(key)) != 0) {
		fprintf(stderr, " raw: the sides disagree:\n  ours:   %s\n"
			"  theirs: %.*s\n", key,
			(int)(mac != NULL ? mac - in : (int)strlen(in)), in);
		return -1;
	}
	if (sscanf(mac, " mac=%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3],
		   &b[4], &b[5]) != 6) {
		fprintf(stderr, " raw: bad hello from the peer: %s\n", in);
		return -1;
	}
	for (int i = 0; i < RTE_ETHER_ADDR_LEN; i++)
		peer->addr_bytes[i] = (uint8_t)b[i];
	return 0;
}

/* ------------------------------------------------------------------ */
/* Shapes and the header block                                         */
/* ------------------------------------------------------------------ */

static int
raw_shapes(struct raw_run *r)
{
	const struct perf_ctx *c = r->c;
	const struct perf_params *p = &c->p;
	static const enum ndk_rawlink_kind data_kind[] = {
		[PERF_SEND] = NDK_RAWLINK_SEND,
		[PERF_WRITE] = NDK_RAWLINK_WRITE,
		[PERF_READ] = NDK_RAWLINK_READ_RESP,
	};
	int rc;

	if (c->o->raw_frame != 0) {
		rc = ndk_rawlink_shape_fixed(&r->ping, 1,
					     (uint16_t)c->o->raw_frame);
		r->pong = r->ping;
	} else {
		rc = ndk_rawlink_shape_roce(&r->pong, data_kind[p->verb],
					    p->size, p->mtu);
		if (rc == 0 && p->kind == PERF_LAT && p->verb == PERF_READ)
			rc = ndk_rawlink_shape_roce(&r->ping,
						    NDK_RAWLINK_READ_REQ,
						    p->size, p->mtu);
		else
			r->ping = r->pong;
	}
	if (rc != 0) {
		fprintf(stderr, " raw: no frames for %" PRIu64 " B at MTU "
			"%u\n", p->size, p->mtu);
		return -1;
	}
	/* BW: the data flows from whoever sends it; that is "ping". */
	if (p->kind == PERF_BW)
		r->sender = (p->verb == PERF_READ) == p->server;
	return 0;
}

static void
raw_describe_shape(const char *what, const struct ndk_rawlink_shape *s)
{
	printf(" %-16s: %u frame%s of ", what, s->frames,
	       s->frames == 1 ? "" : "s");
	if (s->frames == 1)
		printf("%u B\n", s->first);
	else if (s->frames == 2)
		printf("%u + %u B\n", s->first, s->last);
	else
		printf("%u + %u x %u + %u B\n", s->first, s->frames - 2,
		       s->middle, s->last);
}

static void
raw_print_info(const struct raw_run *r)
{
	const struct perf_params *p = &r->c->p;
	bool bw = p->kind == PERF_BW;
	bool c2s = bw ? p->verb != PERF_READ : true;

	perf_print_line();
	printf("                    Raw ethdev %s (%s)\n",
	       r->c->o->raw == PERF_RAW_BASELINE ? "baseline" : "test",
	       bw ? "one-way burst" : "ping-pong");
	printf(" Device          : %s, queue 0\n", p->device);
	printf(" For             : %s, %" PRIu64 " B messages, MTU %u\n",
	       p->test->name, p->size, p->mtu);
	if (bw) {
		printf(" Direction       : %s\n",
		       c2s ? "client -> server" : "server -> client");
		raw_describe_shape("Frames/message", &r->ping);
	} else {
		raw_describe_shape("Ping (client)", &r->ping);
		raw_describe_shape("Pong (server)", &r->pong);
	}
	printf(" Data checked    : %s\n", r->c->o->verify ? "ON" : "OFF");
	fflush(stdout);
}

/* ------------------------------------------------------------------ */
/* One-way burst (BW tests)                                            */
/* ------------------------------------------------------------------ */

static int
raw_bw_send(struct raw_run *r, struct raw_bw_figures *f)
{
	struct perf_ctx *c = r->c;
	const bool dur = c->p.duration != 0;
	uint64_t n = dur ? UINT64_MAX : c->p.iters * r->ping.frames;
	uint64_t flush_end, stall = r->hz * RAW_STALL_S, moved = rte_rdtsc();
	struct perf_clock k;
	char m[RAW_MSG_LEN];
	int got;

	if (dur)
		perf_clock_start(c, &k);
	while (dur ? perf_clock_tick(&k, rte_rdtsc()) != PERF_PHASE_END :
	       r->rl.st.tx_frames < n) {
		if (ndk_rawlink_tx(&r->rl, n) != 0) {
			moved = 0;
			continue;
		}
		if (moved == 0)
			moved = rte_rdtsc();
		else if (rte_rdtsc() - moved > stall) {
			fprintf(stderr, " raw: the link took no frame for %d s\n",
				RAW_STALL_S);
			return -1;
		}
	}
	/* Frames built but refused so far go too (the link drains). */
	flush_end = rte_rdtsc() + r->hz;
	while (ndk_rawlink_tx_held(&r->rl) != 0 && rte_rdtsc() < flush_end)
		ndk_rawlink_tx(&r->rl, 0);
	ndk_rawlink_release(&r->rl);
	if (raw_msg_send(c, "end %" PRIu64, r->rl.st.tx_frames) != 0 ||
	    raw_msg_recv(c, m, RAW_REPORT_TIMEOUT_MS) != 0)
		return -1;
	got = sscanf(m, "report %" SCNu64 " %" SCNu64 " %lf %" SCNu64 " %"
		     SCNu64, &f->frames, &f->bytes, &f->secs, &f->lost,
		     &f->bad);
	if (got != 5) {
		fprintf(stderr, " raw: bad report from the receiver: %s\n", m);
		return -1;
	}
	return 0;
}

static int
raw_bw_recv(struct raw_run *r, struct raw_bw_figures *f)
{
	struct perf_ctx *c = r->c;
	const bool dur = c->p.duration != 0;
	const uint64_t tcp_every = r->hz * RAW_POLL_TCP_US / 1000000;
	const uint64_t quiet = r->hz * RAW_QUIET_MS / 1000;
	uint64_t first = 0, last = 0, counted = 0, cbytes = 0;
	uint64_t total = 0, end_at = 0, next_tcp = 0;
	const struct ndk_rawlink_stats *st = &r->rl.st;
	struct perf_clock k;
	bool have_end = false;
	char m[RAW_MSG_LEN];

	memset(&k, 0, sizeof(k));
	if (dur)
		perf_clock_start(c, &k);
	for (;;) {
		uint64_t b0 = st->rx_bytes;
		uint16_t n = ndk_rawlink_rx(&r->rl);
		uint64_t now = rte_rdtsc();

		if (n != 0) {
			if (first == 0)
				first = now;
			last = now;
			if (dur && k.phase == PERF_PHASE_SAMPLE) {
				counted += n;
				cbytes += st->rx_bytes - b0;
			}
		}
		if (dur)
			perf_clock_tick(&k, now);
		if (have_end) {
			if (st->rx_frames >= total ||
			    now - RTE_MAX(last, end_at) > quiet)
				break;
		} else if (n == 0 && now >= next_tcp) {
			next_tcp = now + tcp_every;
			if (perf_xchg_ready(&c->x, RAW_MSG_LEN)) {
				if (raw_msg_recv(c, m, 0) != 0 ||
				    sscanf(m, "end %" SCNu64, &total) != 1) {
					fprintf(stderr, " raw: expected the "
						"sender's end\n");
					return -1;
				}
				have_end = true;
				end_at = now;
			}
		}
	}
	if (dur) {
		f->frames = counted;
		f->bytes = cbytes;
		f->secs = (double)(k.t_stop - k.t_start) / (double)r->hz;
	} else {
		f->frames = st->rx_frames;
		f->bytes = st->rx_bytes;
		f->secs = (double)(last - first) / (double)r->hz;
	}
	f->lost = total > st->rx_frames ? total - st->rx_frames : 0;
	f->bad = st->rx_bad_len + st->rx_seq_errors + st->rx_corrupt;
	return raw_msg_send(c, "report %" PRIu64 " %" PRIu64 " %.9f %" PRIu64
			    " %" PRIu64, f->frames, f->bytes, f->secs,
			    f->lost, f->bad);
}

static double
raw_bw_mpps(const struct raw_bw_figures *f)
{
	return f->secs > 0 ? (double)f->frames / f->secs / 1e6 : 0;
}

static void
raw_bw_print(const struct raw_run *r, const struct raw_bw_figures *f)
{
	const struct perf_params *p = &r->c->p;
	double factor = p->report_gbits ? 125000000.0 : 1048576.0;
	uint64_t msg_bytes = r->c->o->raw_frame != 0 ? r->c->o->raw_frame :
		p->size;
	double msgs = (double)f->frames / r->ping.frames;
	struct perf_bw_rep rep;

	memset(&rep, 0, sizeof(rep));
	rep.size = msg_bytes;
	rep.iters = (uint64_t)msgs;
	if (f->secs > 0) {
		rep.bw_avg = msgs * (double)msg_bytes / f->secs / factor;
		rep.msg_rate = msgs / f->secs / 1e6;
	}
	perf_print_result_header(p);
	perf_print_bw(p, &rep);
	printf(" raw frames: %" PRIu64 " in %.6f s: %.3f Mpps, %.2f Gbit/s of "
	       "frames; %" PRIu64 " lost, %" PRIu64 " wrong\n", f->frames,
	       f->secs, raw_bw_mpps(f),
	       f->secs > 0 ? (double)f->bytes * 8 / f->secs / 1e9 : 0,
	       f->lost, f->bad);
}

/*
 * Run the burst raw_phases() times (both sides in step: each phase ends
 * with the receiver's report) and print the phase with the highest frame
 * rate as the raw row, then every phase's rate.
 */
static int
raw_bw(struct raw_run *r)
{
	const unsigned int phases = raw_phases(r->c);
	struct raw_bw_figures f, best;
	double mpps[PERF_RAW_MAX_PHASES];
	unsigned int best_i = 0;

	memset(&best, 0, sizeof(best));
	for (unsigned int i = 0; i < phases; i++) {
		memset(&f, 0, sizeof(f));
		/* Both directions numbered from 0 again, counters zeroed. */
		if (ndk_rawlink_set_shapes(&r->rl, &r->ping, &r->ping) != 0) {
			fprintf(stderr, " raw: frames of %u B do not fit our "
				"mbufs\n", ndk_rawlink_shape_max(&r->ping));
			return -1;
		}
		memset(&r->rl.st, 0, sizeof(r->rl.st));
		if ((r->sender ? raw_bw_send(r, &f) : raw_bw_recv(r, &f)) != 0)
			return -1;
		mpps[i] = raw_bw_mpps(&f);
		if (i == 0 || mpps[i] > mpps[best_i]) {
			best = f;
			best_i = i;
		}
		if (r->c->o->verify) {
			/* The receiver checked; the sender learnt the verdict. */
			r->c->verify_checks += f.frames;
			r->c->verify_errors += f.bad + f.lost;
		}
	}
	raw_bw_print(r, &best);
	if (phases > 1) {
		printf(" raw phases: best of %u by frame rate: phase %u;",
		       phases, best_i + 1);
		for (unsigned int i = 0; i < phases; i++)
			printf(" %.3f", mpps[i]);
		printf(" Mpps\n");
	}
	perf_print_line();
	fflush(stdout);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Ping-pong (LAT tests)                                               */
/* ------------------------------------------------------------------ */

/* Transmit until @p seq_end frames were accepted. @return 0, -1 stuck. */
static int
raw_tx_until(struct raw_run *r, uint64_t seq_end, uint64_t deadline)
{
	while (r->rl.st.tx_frames < seq_end) {
		if (ndk_rawlink_tx(&r->rl, seq_end) == 0 &&
		    rte_rdtsc() > deadline) {
			fprintf(stderr, " raw: the link takes no frames\n");
			return -1;
		}
	}
	return 0;
}

static int
raw_lat_client(struct raw_run *r, uint64_t *t)
{
	struct perf_ctx *c = r->c;
	const bool dur = c->p.duration != 0;
	const uint64_t timeout = r->hz * RAW_ECHO_TIMEOUT_S;
	uint64_t i, counted = 0;
	struct perf_clock k;

	memset(&k, 0, sizeof(k));
	if (dur)
		perf_clock_start(c, &k);
	for (i = 0; dur ? k.phase != PERF_PHASE_END : i < c->p.iters; i++) {
		uint64_t now = rte_rdtsc(), deadline = now + timeout;
		uint64_t pong_end = (i + 1) * r->pong.frames;

		if (!dur)
			t[i] = now;
		if (raw_tx_until(r, (i + 1) * r->ping.frames, deadline) != 0)
			return -1;
		while (r->rl.rx_seq < pong_end) {
			if (ndk_rawlink_rx(&r->rl) == 0 &&
			    rte_rdtsc() > deadline) {
				fprintf(stderr, " raw: no answer to ping %"
					PRIu64 " within %d s\n", i,
					RAW_ECHO_TIMEOUT_S);
				return -1;
			}
		}
		if (dur && perf_clock_tick(&k, rte_rdtsc()) ==
		    PERF_PHASE_SAMPLE)
			counted++;
	}
	if (raw_msg_send(c, "end %" PRIu64, i) != 0)
		return -1;
	perf_print_result_header(&c->p);
	if (dur) {
		perf_print_lat_duration(&c->p, k.t_stop - k.t_start, counted);
		return 0;
	}
	return perf_print_lat(&c->p, t, c->p.iters);
}

static int
raw_lat_server(struct raw_run *r, uint64_t *t)
{
	struct perf_ctx *c = r->c;
	const bool dur = c->p.duration != 0;
	const uint64_t tcp_every = r->hz * RAW_ECHO_POLL_TCP_MS / 1000;
	const uint64_t idle = r->hz * RAW_ECHO_IDLE_MS / 1000;
	uint64_t i, total = 0, next_tcp = 0, last = rte_rdtsc();
	char m[RAW_MSG_LEN];

	for (i = 0;; i++) {
		uint64_t ping_end = (i + 1) * r->ping.frames;

		while (r->rl.rx_seq < ping_end) {
			uint64_t now = rte_rdtsc();

			if (ndk_rawlink_rx(&r->rl) != 0) {
				last = now;
				continue;
			}
			/* Only when the end may have come: no syscalls
			 * between the pings we measure. */
			if (now < next_tcp || (!dur && i < c->p.iters &&
					       now - last < idle))
				continue;
			next_tcp = now + tcp_every;
			if (perf_xchg_ready(&c->x, RAW_MSG_LEN))
				goto end;
		}
		if (!dur && i < c->p.iters)
			t[i] = rte_rdtsc();
		if (raw_tx_until(r, (i + 1) * r->pong.frames,
				 rte_rdtsc() + r->hz * RAW_ECHO_TIMEOUT_S) != 0)
			return -1;
	}
end:
	if (raw_msg_recv(c, m, 0) != 0 ||
	    sscanf(m, "end %" SCNu64, &total) != 1) {
		fprintf(stderr, " raw: expected the client's end\n");
		return -1;
	}
	if (total != i) {
		fprintf(stderr, " raw: the client sent %" PRIu64 " pings, we "
			"answered %" PRIu64 "\n", total, i);
		return -1;
	}
	/* perftest's read_lat server prints nothing; SEND/WRITE print. */
	if (c->p.verb == PERF_READ || dur)
		return 0;
	perf_print_result_header(&c->p);
	return perf_print_lat(&c->p, t, RTE_MIN(i, c->p.iters));
}

static int
raw_lat(struct raw_run *r)
{
	struct perf_ctx *c = r->c;
	const struct ndk_rawlink_shape *tx = c->p.server ? &r->pong : &r->ping;
	const struct ndk_rawlink_shape *rx = c->p.server ? &r->ping : &r->pong;
	uint64_t *t;
	int rc;

	if (ndk_rawlink_set_shapes(&r->rl, tx, rx) != 0) {
		fprintf(stderr, " raw: frames of %u B do not fit our mbufs\n",
			ndk_rawlink_shape_max(tx));
		return -1;
	}
	t = calloc(c->p.duration != 0 ? 1 : c->p.iters, sizeof(*t));
	if (t == NULL) {
		fprintf(stderr, " Cannot Allocate\n");
		return -1;
	}
	/* With --raw-frame the rows show the frame's size. */
	if (c->o->raw_frame != 0) {
		uint64_t size = c->p.size;

		c->p.size = c->o->raw_frame;
		rc = c->p.server ? raw_lat_server(r, t) : raw_lat_client(r, t);
		c->p.size = size;
	} else {
		rc = c->p.server ? raw_lat_server(r, t) : raw_lat_client(r, t);
	}
	free(t);
	if (c->o->verify) {
		c->verify_checks += r->rl.st.rx_frames;
		c->verify_errors += r->rl.st.rx_bad_len +
			r->rl.st.rx_seq_errors + r->rl.st.rx_corrupt;
	}
	if (!ndk_rawlink_rx_ok(&r->rl))
		fprintf(stderr, " raw: %" PRIu64 " frames of the wrong length, "
			"%" PRIu64 " out of sequence, %" PRIu64 " corrupt\n",
			r->rl.st.rx_bad_len, r->rl.st.rx_seq_errors,
			r->rl.st.rx_corrupt);
	perf_print_line();
	fflush(stdout);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Entry points                                                        */
/* ------------------------------------------------------------------ */

int
perf_raw_run(struct perf_ctx *c)
{
	struct rte_ether_addr mine, peer;
	const struct perf_row *row = perf_last_row();
	uint64_t seq_before = row->seq;
	struct raw_run r;
	char done[RAW_MSG_LEN] = "done", theirs[RAW_MSG_LEN];
	int rc;

	memset(&r, 0, sizeof(r));
	r.c = c;
	r.hz = rte_get_tsc_hz();
	if (raw_shapes(&r) != 0)
		return -1;
	if (rte_eth_macaddr_get(c->o->port_id, &mine) != 0) {
		fprintf(stderr, " raw: port %u has no MAC address\n",
			c->o->port_id);
		return -1;
	}
	/* The hello is also the start line: both sides go right after it. */
	if (raw_hello(c, &mine, &peer) != 0)
		return -1;
	ndk_rawlink_init(&r.rl, c->o->port_id, 0, c->pool, &mine, &peer,
			 c->o->verify);
	raw_print_info(&r);
	rc = c->p.kind == PERF_BW ? raw_bw(&r) : raw_lat(&r);
	ndk_rawlink_release(&r.rl);
	if (rc != 0)
		return -1;
	/* Neither side touches the port after this. */
	if (perf_xchg_bytes(&c->x, done, theirs, sizeof(theirs)) != 0)
		return -1;
	c->raw_row = *row;
	if (row->seq == seq_before)
		c->raw_row.seq = 0;
	return 0;
}

void
perf_raw_print_ratio(const struct perf_ctx *c)
{
	const struct perf_row *raw = &c->raw_row, *roce = perf_last_row();

	if (raw->seq == 0 || roce->seq == raw->seq || roce->kind != raw->kind)
		return;
	if (roce->kind == PERF_BW) {
		printf(" RoCE/raw: BW average %.3f, MsgRate %.3f (RoCE %.2f, "
		       "raw %.2f %s)\n",
		       raw->bw_avg > 0 ? roce->bw_avg / raw->bw_avg : 0,
		       raw->msg_rate > 0 ? roce->msg_rate / raw->msg_rate : 0,
		       roce->bw_avg, raw->bw_avg,
		       c->p.report_gbits ? "Gb/sec" : "MB/sec");
	} else if (roce->duration || raw->duration) {
		printf(" RoCE-raw: t_avg %+.2f usec (RoCE %.2f, raw %.2f)\n",
		       roce->t_avg - raw->t_avg, roce->t_avg, raw->t_avg);
	} else {
		printf(" RoCE-raw: t_typical %+.2f usec, 99%% %+.2f usec, "
		       "99.9%% %+.2f usec (RoCE %.2f/%.2f/%.2f, raw "
		       "%.2f/%.2f/%.2f)\n",
		       roce->t_typical - raw->t_typical,
		       roce->t_p99 - raw->t_p99, roce->t_p999 - raw->t_p999,
		       roce->t_typical, roce->t_p99, roce->t_p999,
		       raw->t_typical, raw->t_p99, raw->t_p999);
		printf(" 99.9%%/typical: RoCE %.2f, raw %.2f\n",
		       roce->t_typical > 0 ? roce->t_p999 / roce->t_typical : 0,
		       raw->t_typical > 0 ? raw->t_p999 / raw->t_typical : 0);
	}
	fflush(stdout);
}
