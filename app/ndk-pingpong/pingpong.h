/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_PINGPONG_H
#define NDK_PINGPONG_H

/**
 * @file
 * ndk-pingpong: ibv_rc_pingpong for an ndk-roce adapter, or with -q/--srq
 * ibv_srq_pingpong (several QPs receiving through one SRQ). Shared between the
 * option parser (pp_opts.c), the out-of-band TCP exchange (pp_exch.c) and
 * the program proper (ndk_pingpong.c).
 */

#include <semaphore.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ndk.h"

/** ibv_rc_pingpong's defaults. */
#define PP_DEF_TCP_PORT 18515
#define PP_DEF_SIZE 4096
#define PP_DEF_MTU 1024
#define PP_DEF_RX_DEPTH 500
#define PP_DEF_ITERS 1000

/** ibv_srq_pingpong's default number of QPs (--srq without -q). */
#define PP_DEF_SRQ_QPS 16
/**
 * ibv_srq_pingpong's MAX_QP: its TCP exchange always carries this many
 * addresses (the first num_qp real, the rest zero), and -q stays below it.
 */
#define PP_SRQ_TABLE 256

/** What the command line asks for. */
struct pp_opts {
	const char *servername;  /**< NULL: be the server */
	uint16_t tcp_port;       /**< -p */
	const char *ib_dev;      /**< -d: DPDK ethdev name, NULL if not given */
	uint16_t port_id;        /**< --port-id (default 0) */
	bool port_id_set;
	uint32_t size;           /**< -s */
	uint32_t mtu;            /**< -m: 256..4096 */
	uint32_t rx_depth;       /**< -r */
	uint32_t iters;          /**< -n */
	int sl;                  /**< -l: accepted, not used */
	int gid_idx;             /**< -g: -1 when not given */
	bool use_event;          /**< -e */
	bool validate;           /**< -c */
	uint32_t ipv4;           /**< --ip, network byte order; 0: none */
	uint8_t ipv6[16];        /**< --ip6 */
	bool ipv6_set;
	const char *tcp_bind;    /**< --tcp-bind, NULL if not given */
	uint8_t peer_mac[6];     /**< --peer-mac */
	bool peer_mac_set;
	uint32_t num_qp;         /**< -q/--srq: QPs sharing one SRQ; 0: RC mode */
};

/**
 * Parse the options that follow the EAL arguments. Prints the reason on
 * failure.
 * @return 0 to run, 1 on a bad command line, -1 if --help was printed.
 */
int pp_parse_args(int argc, char **argv, struct pp_opts *o);

/** Print the usage text. */
void pp_usage(const char *prog);

/** One side's address, as ibv_rc_pingpong exchanges it. */
struct pp_dest {
	uint32_t lid;       /**< always 0 on RoCE */
	uint32_t qpn;       /**< 24 bits */
	uint32_t psn;       /**< 24 bits */
	uint8_t gid[16];    /**< raw GID, network (wire) order */
};

/** Fill @p gid with ::ffff:a.b.c.d for @p ipv4 (network order). */
void pp_gid_from_ipv4(uint8_t gid[16], uint32_t ipv4);

/**
 * The IPv4 address of an IPv4-mapped GID (::ffff:a.b.c.d).
 * @return 0 and *ipv4 in network order, or -1 if @p gid is not one.
 */
int pp_gid_to_ipv4(const uint8_t gid[16], uint32_t *ipv4);

/** Print "  local address:  ..." / "  remote address: ..." lines. */
void pp_print_dest(const char *which, const struct pp_dest *d);

/**
 * Called by the server between reading the client's addresses and
 * replying, as ibv_rc_pingpong connects its QP there. @return 0 or -1
 * (reason printed).
 */
typedef int (*pp_connect_fn)(void *arg, const struct pp_dest *rem);

/**
 * Client side of the exchange: connect to the server, send our @p n
 * addresses, read the server's @p n, send "done" (@p n is 1 for
 * ibv_rc_pingpong, PP_SRQ_TABLE for ibv_srq_pingpong). @return the
 * connected socket (kept open for the closing handshake) or -1 after
 * printing the reason.
 */
int pp_client_exch(const struct pp_opts *o, const struct pp_dest *my,
		   struct pp_dest *rem, uint32_t n);

/**
 * Server side: accept one client, read its @p n addresses, call
 * @p connect_qp, reply with our @p n and read "done". @return the
 * connected socket or -1.
 */
int pp_server_exch(const struct pp_opts *o, const struct pp_dest *my,
		   struct pp_dest *rem, uint32_t n, pp_connect_fn connect_qp,
		   void *arg);

/*
 * Closing handshake (an ndk-pingpong extension; ibv_rc_pingpong closes the
 * socket right after "done"). Each side sends PP_FIN_MSG once its own loop
 * is over; see ndk_pingpong.c for who stops polling when.
 */
#define PP_FIN_MSG "fin"           /**< sent with its NUL: 4 bytes */
#define PP_FIN_LEN 4u

/** Receiving end of one PP_FIN_MSG. */
struct pp_fin_rx {
	char buf[PP_FIN_LEN];
	uint32_t got;
};

/** Send PP_FIN_MSG. @return 0, or -1 if the peer is gone. */
int pp_fin_send(int fd);

/**
 * Wait up to @p timeout_ms (0: just look) for the rest of PP_FIN_MSG.
 * @return 1 received, 0 not yet, -1 the connection closed or carried
 *   something else (a peer that is not ndk-pingpong).
 */
int pp_fin_poll(int fd, struct pp_fin_rx *rx, int timeout_ms);

/**
 * Wait up to @p timeout_ms for the peer to close the connection.
 * @return 0 on EOF, -1 on timeout or error.
 */
int pp_wait_eof(int fd, int timeout_ms);

/* ------------------------------------------------------------------ */
/* The run                                                             */
/* ------------------------------------------------------------------ */

/** Request contexts (ibv_rc_pingpong's wr_ids, also a pending bit mask). */
enum {
	PP_RECV_WRID = 1,
	PP_SEND_WRID = 2,
};

#define PP_FILL 0x7b     /**< ibv_rc_pingpong's buffer contents */
#define PP_STALL_S 10    /**< no completion for this long: fail */

/** One ndk-pingpong run: the adapter, its objects and the loop state. */
struct pp_ctx {
	struct pp_opts o;
	struct ndk_adapter_info info;
	struct ndk_adapter *ad;
	struct ndk_poller *poller;  /* NULL: the main thread polls */
	bool polling;               /* someone polls the adapter */
	struct ndk_pd *pd;
	struct ndk_cq *cq;
	struct ndk_mr *mr;
	struct ndk_srq *srq;        /* -q/--srq: the QPs' receives */
	uint32_t num_qp;            /* 1 in RC mode */
	struct ndk_qp *qp[PP_SRQ_TABLE];
	uint8_t *mem;               /* rte_malloc'd, registered as one MR */
	uint8_t *sbuf;              /* send buffer */
	uint8_t *rbuf;              /* receive buffer (== sbuf without -c) */
	uint32_t token;
	uint32_t send_flags;
	/* Addresses as exchanged: num_qp real ones, the rest zero. */
	struct pp_dest my[PP_SRQ_TABLE], rem[PP_SRQ_TABLE];
	int sock;
	bool started;               /* the QP is connected: counters matter */

	/* -e: the CQ callback raises ev_fired (and posts ev_sem if an lcore
	 * polls); the waiter takes it. */
	sem_t ev_sem;
	bool ev_sem_ok;
	uint32_t ev_fired;
	ndk_status_t ev_status;

	/* ibv_rc_pingpong's loop state. */
	uint32_t routs, rcnt, scnt;
	unsigned int pending[PP_SRQ_TABLE];  /* per QP */
	uint64_t bad_msgs;
	uint64_t stall_tsc;
	uint64_t last_tsc;
};

/* pp_run.c: polling, CQ notifications, posting and the ping-pong loop. */

/** One step of adapter progress when the main thread owns the adapter. */
static inline void
pp_service(struct pp_ctx *c)
{
	if (c->poller == NULL && c->polling)
		ndk_adapter_poll(c->ad);
}

/** CQ notification callback (-e); @p arg is the pp_ctx. */
void pp_cq_notify(void *arg, ndk_status_t cq_status);

/** Post up to @p n receives. @return how many were posted. */
uint32_t pp_post_recv(struct pp_ctx *c, uint32_t n);

/** Post the next SEND on QP @p i. @return 0 or -1 (reason printed). */
int pp_post_send(struct pp_ctx *c, uint32_t i);

/**
 * ibv_rc_pingpong's (or ibv_srq_pingpong's) loop: until iters messages
 * went each way, counted over all QPs.
 * @return 0 or -1 (reason printed).
 */
int pp_loop(struct pp_ctx *c);

#endif /* NDK_PINGPONG_H */
