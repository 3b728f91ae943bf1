/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef PERF_H
#define PERF_H

/**
 * @file
 * ndk-perf: perftest-style RDMA benchmarks (ib_send_bw, ib_write_lat, ...)
 * over an ndk-roce adapter, speaking perftest 4.5's TCP "Ethernet
 * exchange" so either side may be stock perftest.
 *
 * This header is the engine-neutral part: options, the effective run
 * parameters, the exchange layer (perf_xchg.c) and the printing layer
 * (perf_report.c). Nothing here includes ndk.h; the NDK engine and the
 * test families are declared in perf_ndk.h.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Verb of a test (perftest's order: it indexes the title strings). */
enum perf_verb {
	PERF_SEND = 0,
	PERF_WRITE = 1,
	PERF_READ = 2,
};

/** Test family. */
enum perf_kind {
	PERF_BW = 0,
	PERF_LAT = 1,
};

/** A test: its name and what it measures. The table is in perf_main.c. */
struct perf_test {
	const char *name;       /**< "write_bw" (also "ib_write_bw") */
	enum perf_verb verb;
	enum perf_kind kind;
};

/** Look a test up by name, with or without the "ib_" prefix. */
const struct perf_test *perf_test_find(const char *name);

/** BW raw phases by default (the best one is the baseline), and at most. */
#define PERF_RAW_PHASES 3
#define PERF_RAW_MAX_PHASES 10

/** Raw-ethdev modes (perf_raw.c): the link's own figure for a test. */
enum perf_raw_mode {
	PERF_RAW_NONE = 0,
	PERF_RAW_ONLY,          /**< --raw: the raw mode alone */
	PERF_RAW_BASELINE,      /**< --raw-baseline: raw, then RoCE, ratio */
};

/* ------------------------------------------------------------------ */
/* Options (perf_opts.c)                                               */
/* ------------------------------------------------------------------ */

/** perftest's defaults and limits we reproduce. */
#define PERF_DEF_PORT 18515
#define PERF_DEF_SIZE_BW 65536
#define PERF_DEF_SIZE_LAT 2
#define PERF_DEF_ITERS 1000
#define PERF_DEF_ITERS_WB 5000
#define PERF_DEF_TX_BW 128
#define PERF_DEF_TX_LAT 1
#define PERF_DEF_RX_SEND 512
#define PERF_DEF_CQ_MOD 100
#define PERF_MIN_ITERS 5
#define PERF_MAX_SIZE (1u << 23)      /**< -a runs 2 .. 2^23 bytes */
#define PERF_MAX_QPS 4096          /**< the provider's default QP limit */
#define PERF_DEF_JSON_FILE "perftest_out.json"

/** The command line, parsed. Zero/negative fields: "not given". */
struct perf_opts {
	const struct perf_test *test;
	uint64_t size;          /**< -s */
	bool all_sizes;         /**< -a */
	uint64_t iters;         /**< -n (0: default) */
	int duration;           /**< -D seconds (0: iterations mode) */
	int margin;             /**< -f seconds (-1: duration / 4) */
	unsigned int num_qps;   /**< -q */
	unsigned int tx_depth;  /**< -t (0: default) */
	unsigned int rx_depth;  /**< -r (0: default) */
	unsigned int cq_mod;    /**< -Q (0: default) */
	unsigned int post_list; /**< -l (0: not given, single posts) */
	unsigned int mtu;       /**< -m bytes (0: the port's) */
	int inline_size;        /**< -I (-1: default, 0) */
	int gid_index;          /**< -x (-1: not given) */
	int out_reads;          /**< -o (-1: adapter maximum) */
	uint8_t qp_timeout;     /**< -u (0: default, 14) */
	uint16_t tcp_port;      /**< -p */
	bool report_gbits;      /**< --report_gbits */
	bool out_json;          /**< --out_json */
	const char *json_file;  /**< --out_json_file */
	bool no_peak;           /**< -N */
	bool bidir;             /**< -b: both sides send (BW tests) */
	bool rdma_cm;           /**< -R: exchange and QPs through the CM */
	bool cm_xchg;           /**< -z (or -R): the exchange through it */
	const char *servername; /**< the positional argument */
	const char *ib_dev;     /**< -d (accepted, ignored) */
	/* ndk-perf's own */
	uint16_t port_id;       /**< --port-id */
	uint32_t ipv4;          /**< --ip, network byte order; 0: none */
	uint8_t ipv6[16];       /**< --ip6 */
	bool have_ipv6;         /**< --ip6 given */
	bool have_peer_mac;     /**< --peer-mac given */
	uint8_t peer_mac[6];
	bool verify;            /**< --verify */
	bool use_srq;           /**< --use_srq: receives from one SRQ */
	bool stats;             /**< --stats: adapter counters at the end */
	enum perf_raw_mode raw; /**< --raw, --raw-baseline */
	uint32_t raw_frame;     /**< --raw-frame: bytes of every raw frame */
	unsigned int raw_repeat; /**< --raw-repeat: BW raw phases (0: default) */
	uint32_t loss_ppm;      /**< --loss: RX drops, parts per million */
	uint32_t bn_mbps;       /**< --bottleneck: rate, Mbit/s; 0: none */
	uint32_t bn_mark;       /**< --bottleneck: ECN marks from this depth */
	uint32_t bn_buffer;     /**< --bottleneck: buffer, frames */
	bool strict_rto;        /**< --strict-timeout: no adaptive RTO */
	/** --selective-repeat: on the QPs connected by hand (no -R) */
	bool selective_repeat;
	bool trust_crc;         /**< --trust-link-crc: no ICRC check on RX */
	uint32_t rto_floor_us;  /**< --rto-floor (0: the provider's) */
	uint32_t cc;            /**< --cc: enum ndk_cc_mode */
	uint16_t queues;        /**< --queues: adapter queues (1) */
};

/**
 * Parse the arguments after the EAL's (argv[0] is the program).
 * @param test a test already chosen by the program name, or NULL: then
 *   the first argument names it.
 * @return 0, 1 (help or version printed: exit 0) or -1 (message printed).
 */
int perf_opts_parse(int argc, char **argv, const struct perf_test *test,
		    struct perf_opts *o);

/** Print the usage text. */
void perf_opts_usage(const char *prog);

/* ------------------------------------------------------------------ */
/* Effective parameters: what both engines and the printer need         */
/* ------------------------------------------------------------------ */

/** One run's parameters after defaults, clamping and negotiation. */
struct perf_params {
	const struct perf_test *test;
	enum perf_verb verb;
	enum perf_kind kind;
	bool server;            /**< no server address given */
	uint64_t size;          /**< current message size */
	bool all_sizes;
	uint64_t iters;         /**< per QP; counted ones in duration mode */
	int duration;           /**< seconds, 0 = iterations mode */
	int margin;             /**< seconds */
	unsigned int num_qps;
	unsigned int tx_depth;
	unsigned int rx_depth;
	unsigned int cq_mod;
	unsigned int post_list; /**< requests per post list (1: single) */
	unsigned int mtu;       /**< path MTU in bytes (after the exchange) */
	int gid_index;
	int inline_size;
	int out_reads;
	bool report_gbits;
	bool out_json;
	const char *json_file;
	bool no_peak;
	bool duplex;            /**< -b: both sides run the initiator loop */
	bool rdma_cm;           /**< -R: QPs connected through the CM */
	bool cm_xchg;           /**< -R or -z: the exchange on a CM
				 *   connection, not TCP */
	char device[32];        /**< shown as "Device" */
	double tsc_hz;          /**< timestamp ticks per second */
};

/* ------------------------------------------------------------------ */
/* Exchange (perf_xchg.c): perftest's TCP protocol                     */
/* ------------------------------------------------------------------ */

/** The version we announce; perftest 4.5 refuses peers below 5.70. */
#define PERF_VERSION "6.06"
/** Bytes of a version string on the wire (perftest MAX_VERSION). */
#define PERF_VERSION_LEN 16
/** Bytes of a key message with a GID (perftest KEY_MSG_SIZE_GID). */
#define PERF_KEY_MSG_LEN 108
/** Bytes of a key message over rdma_cm (-R): perftest's binary
 *  struct pingpong_dest, big-endian. */
#define PERF_CM_KEYS_LEN 56

/** What one side tells the other about a QP (perftest pingpong_dest). */
struct perf_dest {
	uint32_t lid;
	uint32_t out_reads;
	uint32_t qpn;
	uint32_t psn;
	uint32_t rkey;
	uint64_t vaddr;
	uint8_t gid[16];
	uint32_t srqn;
};

/** A bandwidth result (perftest bw_report_data, the fields that travel). */
struct perf_bw_rep {
	uint64_t size;
	uint64_t iters;
	double bw_peak;
	double bw_avg;
	double msg_rate;
};

/** Called while waiting for the peer: poll the adapter, for instance. */
typedef void (*perf_idle_fn)(void *arg);

/**
 * -R: one message of the exchange as a SEND on the exchange's own RC
 * connection (perf_cm.c). @return 0 or -1.
 */
typedef int (*perf_msg_send_fn)(void *arg, const void *buf, size_t len);

/**
 * -R: read one message into @p buf (@p len bytes, zero-filled if shorter).
 * @return 0, -1 on error, 1 when the connection is gone, 2 after
 *   @p timeout_ms (< 0: no limit).
 */
typedef int (*perf_msg_recv_fn)(void *arg, void *buf, size_t len,
				int timeout_ms);

/** The TCP connection (or -R's RC one) and what was learnt over it. */
struct perf_xchg {
	int fd;
	bool server;
	double rem_version;              /**< atof() of the peer's string */
	char rem_version_str[PERF_VERSION_LEN + 1];
	perf_idle_fn idle;               /**< NULL: block in poll(2) */
	void *idle_arg;
	perf_msg_send_fn msg_send;       /**< -R: messages as SENDs, not TCP */
	perf_msg_recv_fn msg_recv;
	void *msg_arg;
};

/**
 * Connect (client) or listen and accept one connection (server) on
 * @p port. The client retries for up to 10 s while nothing listens.
 * @return 0 or -1 (message printed).
 */
int perf_xchg_open(struct perf_xchg *x, const char *servername,
		   uint16_t port);

/** Close the socket (if open). */
void perf_xchg_close(struct perf_xchg *x);

/**
 * perftest's start: versions (16 B), then, as the peer's version asks,
 * page and cache line sizes (2 x 4 B) and the MTU (2 B of decimal
 * enum ibv_mtu). @p mtu in: ours in bytes; out: the smaller of both.
 */
int perf_xchg_start(struct perf_xchg *x, unsigned int *mtu);

/**
 * One handshake (ctx_hand_shake): send @p my as a 108-byte key message,
 * receive the peer's into @p rem. The client writes first.
 */
int perf_xchg_keys(struct perf_xchg *x, const struct perf_dest *my,
		   struct perf_dest *rem);

/** Exchange bandwidth reports (xchg_bw_reports, 5 fields, one by one). */
int perf_xchg_bw_reports(struct perf_xchg *x, const struct perf_bw_rep *my,
			 struct perf_bw_rep *rem);

/**
 * Wait for the peer's close handshake (polling while waiting), call
 * @p quiesce (stop polling the adapter), then trade "done". Over -R's
 * connection only the handshake: no "done", nothing quiesced (the end
 * is the CM's, perf_cm_end()). perftest
 * writes "done" and closes without reading ours; with @p eof_ok a peer
 * that simply closed counts as done (perftest's write_lat has no closing
 * handshake). The connection stays open (see perf_xchg_wait_eof()).
 */
int perf_xchg_finish(struct perf_xchg *x, const struct perf_dest *my,
		     void (*quiesce)(void *), void *arg, bool eof_ok);

/**
 * ctx_xchg_data for ndk-perf's own messages: the client writes @p len
 * bytes and reads as many, the server the reverse. @return 0 or -1.
 */
int perf_xchg_bytes(struct perf_xchg *x, const void *mine, void *theirs,
		    size_t len);

/** Write @p len bytes as one message. @return 0 or -1 (printed). */
int perf_xchg_send(struct perf_xchg *x, const void *buf, size_t len);

/**
 * Read exactly @p len bytes, running the idle callback meanwhile, for at
 * most @p timeout_ms (< 0: no limit).
 * @return 0, -1 on error or end of stream, 1 on timeout.
 */
int perf_xchg_recv(struct perf_xchg *x, void *buf, size_t len,
		   int timeout_ms);

/** @return true if @p len bytes can be read without waiting. */
bool perf_xchg_ready(struct perf_xchg *x, size_t len);

/** Close our sending half: the peer reads end of stream. */
void perf_xchg_shutdown(struct perf_xchg *x);

/**
 * Discard input until the peer closes, at most @p timeout_ms.
 * @return 0 at end of stream, -1 on timeout or error.
 */
int perf_xchg_wait_eof(struct perf_xchg *x, int timeout_ms);

/* ------------------------------------------------------------------ */
/* Printing (perf_report.c): perftest's formats                        */
/* ------------------------------------------------------------------ */

/** The dashed line. */
void perf_print_line(void);

/** The server's "Waiting for client to connect..." banner. */
void perf_print_waiting(void);

/** The test information block (ctx_print_test_info). */
void perf_print_test_info(const struct perf_params *p);

/** " local address: LID ..." and its GID line (ctx_print_pingpong_data). */
void perf_print_dest(const struct perf_params *p, const struct perf_dest *d,
		     bool remote);

/** Dashed line and column titles of the results. */
void perf_print_result_header(const struct perf_params *p);

/**
 * Bandwidth of a run (print_report_bw): @p tposted / @p tcompleted hold
 * @p n timestamps (tcompleted only at completion points), or one pair
 * in duration mode or when the peak is not measured.
 */
void perf_bw_compute(const struct perf_params *p, const uint64_t *tposted,
		     const uint64_t *tcompleted, uint64_t n, bool no_peak,
		     struct perf_bw_rep *rep);

/** One bandwidth row (print_full_bw_report), and the JSON file if asked. */
void perf_print_bw(const struct perf_params *p, const struct perf_bw_rep *r);

/**
 * The row of a bidirectional run (print_full_bw_report with the peer's
 * report): size and iterations ours, peak, average and message rate the
 * sums of both sides'.
 */
void perf_print_bw_sum(const struct perf_params *p,
		       const struct perf_bw_rep *mine,
		       const struct perf_bw_rep *theirs);

/**
 * Latency row from @p n send timestamps (print_report_lat): RTT/2 for
 * SEND and WRITE, the full round trip for READ. @p t is sorted in place.
 * @return 0, or -1 when there are too few samples.
 */
int perf_print_lat(const struct perf_params *p, uint64_t *t, uint64_t n);

/** Latency row of a duration run (print_report_lat_duration). */
void perf_print_lat_duration(const struct perf_params *p, uint64_t ticks,
			     uint64_t iters);

/**
 * The figures of a result row, as the printers above last printed them
 * (for --raw-baseline's ratio line). Bandwidth in the row's unit.
 */
struct perf_row {
	uint64_t seq;           /**< rows printed so far, 0: none */
	enum perf_kind kind;
	bool duration;          /**< a -D latency row: only t_avg is set */
	uint64_t size;
	double bw_avg;          /**< BW */
	double msg_rate;        /**< BW, Mpps */
	double t_typical;       /**< LAT, usec */
	double t_avg;
	double t_p99;
	double t_p999;
};

/** The last row printed. */
const struct perf_row *perf_last_row(void);

/** GID ::ffff:a.b.c.d of an IPv4 address in network byte order. */
void perf_gid_from_ipv4(uint8_t gid[16], uint32_t ipv4);

/** IPv4 (network byte order) of an IPv4-mapped GID, 0 if it is not one. */
uint32_t perf_ipv4_from_gid(const uint8_t gid[16]);

#endif /* PERF_H */
