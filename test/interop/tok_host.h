/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef TOK_HOST_H
#define TOK_HOST_H

/**
 * @file
 * tok_host: the host's half of the tokens_rxe interop test (ndk-roce's
 * token operations against Linux rxe). tok_host.c holds the adapter, the
 * control connection to the guest's rxe_tokpeer and the helpers the cases
 * share; tok_cases.c the cases.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ndk.h"
#include "ndk_test.h"
#include "ndk_xstats.h"
#include "tok_proto.h"

/** Receives every host QP has posted, and their size. */
#define TH_NRECV 4u
#define TH_RECV_SZ 4096u
/** Local scratch for READ sinks and WRITE/SEND sources. */
#define TH_SCRATCH_SZ 65536u
/** A completion must come within this. */
#define TH_WAIT_MS 20000
/** Pattern seed a READ sink holds before the READ. */
#define TH_POISON_SEED 0xbad0U

/** Options after the EAL's. */
struct th_opts {
	uint32_t ipv4;          /**< --ip: our adapter, network order */
	const char *guest;      /**< --guest: rxe_tokpeer's TCP address */
	uint16_t tcp_port;      /**< --port */
	uint32_t mtu;           /**< --mtu: RDMA path MTU */
	uint32_t guest_ip1;     /**< --guest-ip1: rxe1's IPv4 (GID check) */
	/** --ip6: our adapter's IPv6 address; the QPs then speak RoCEv2
	 * over IPv6 and announce it as their GID (all-zero: IPv4) */
	uint8_t ipv6[16];
	bool has_ip6;           /**< --ip6 was given */
	/** --guest-ip6: rxe1's IPv6 address, its GID at --guest-gid */
	uint8_t guest_ip6[16];
	bool has_guest_ip6;     /**< --guest-ip6 was given */
	int guest_gid;          /**< --guest-gid: rxe_tokpeer's GID index
				     (1; 2 for IPv6 in the harness) */
};

/** The run: adapter, PD, local buffers, the control connection. */
struct th {
	struct th_opts o;
	struct ndk_adapter *ad;
	struct ndk_adapter_info info;
	struct ndk_poller *poller;
	struct ndk_pd *pd;
	uint8_t *mem;               /**< scratch + receive buffers */
	struct ndk_mr *mem_mr;      /**< plain MR over mem, local write */
	uint32_t mem_ltok;
	int fd;                     /**< control connection */
	char ans[TOK_LINE_MAX];     /**< the guest's last answer */
};

extern struct th th;

/** One RC connection: our QP and its CQ, and the guest's QP. */
struct th_conn {
	bool open;
	struct ndk_cq *cq;          /**< initiator and receive completions */
	struct ndk_qp *qp;
	uint32_t qpn, psn;
	uint32_t gqpn, gpsn;        /**< the guest's */
};

/*
 * One line per check: "    ok   ..." or "    FAIL file:line: ..."; a
 * failed check fails the case (return -1).
 */
#define CHECK(cond, fmt, ...) do { \
	if (cond) { \
		printf("    ok   " fmt "\n", ##__VA_ARGS__); \
	} else { \
		printf("    FAIL %s:%d: " fmt "\n", __FILE__, __LINE__, \
		       ##__VA_ARGS__); \
		return -1; \
	} \
} while (0)

/** Fail the case if @p cond does not hold (a step, not a check). */
#define NEED(cond, fmt, ...) do { \
	if (!(cond)) { \
		printf("    FAIL %s:%d: " fmt "\n", __FILE__, __LINE__, \
		       ##__VA_ARGS__); \
		return -1; \
	} \
} while (0)

/** Scratch and receive buffers in th.mem. */
static inline uint8_t *
th_scratch(void)
{
	return th.mem;
}

static inline uint8_t *
th_rbuf(uint32_t i)
{
	return th.mem + TH_SCRATCH_SZ + (size_t)i * TH_RECV_SZ;
}

/**
 * Send a request to the guest and read its answer into th.ans.
 * @return 0 if it answered OK, -1 otherwise (printed).
 */
int th_req(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** A number of th.ans (printed and -1 if absent). */
int th_ans_u64(const char *key, uint64_t *v);

/** A word of th.ans; "" if absent (valid for the next 3 calls too). */
const char *th_ans_str(const char *key);

/**
 * A new connection: our QP (receives posted) and a fresh guest QP (which
 * replaces the guest's previous one).
 * @param retry_cnt our QP's transport retries (1..7; 7: forever).
 * @return the connection, from a small pool, or NULL (printed).
 */
struct th_conn *th_conn_open(uint8_t retry_cnt);

/** Close our QP and CQ (the guest's goes with its next QP request). */
void th_conn_close(struct th_conn *c);

/** Close every connection still open (after a case, failed or not). */
void th_conn_close_all(void);

/** Wait for one completion on @p c's CQ. @return 0 or -1 (printed). */
int th_wait(struct th_conn *c, struct ndk_result_ex *r);

/** Describe a completion. */
const char *th_result_str(const struct ndk_result_ex *r, char *buf,
			  size_t size);

/** Our QP's state. */
enum ndk_qp_state th_qp_state(const struct th_conn *c);

/** Post receive @p i again (0..TH_NRECV-1), buffer zeroed. */
int th_post_recv(struct th_conn *c, uint32_t i);

/**
 * An RDMA READ (@p read) or WRITE of @p len bytes at @p raddr/@p rkey of
 * the guest from the scratch buffer (a WRITE sends pattern @p seed; a
 * READ's sink holds TH_POISON_SEED before). @return 0 and the completion in
 * @p r, -1 if the post failed or nothing completed (printed).
 */
int th_rdma(struct th_conn *c, bool read, uint64_t raddr, uint32_t rkey,
	    uint32_t len, uint32_t seed, struct ndk_result_ex *r);

/** The adapter's counters (read one with XS(), ndk_xstats.h). */
void th_stats(struct ndk_test_xstats *s);

struct ndk_test_case;

/** tok_cases.c: the cases, in the order they run. */
extern const struct ndk_test_case th_cases[];
extern const unsigned int th_ncases;

#endif /* TOK_HOST_H */
