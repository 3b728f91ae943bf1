/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_RPING_H
#define NDK_RPING_H

/*
 * ndk-rping: librdmacm's rping on an ndk-roce adapter. The connection is
 * made by the NDK connector/listener (IB CM over QP1 with RDMA-CM
 * addressing), so either side may be the stock rping of rdma-core:
 *
 *   client: SEND {start_buf addr, rkey, size}; the server RDMA READs it,
 *           SENDs "go"; SEND {rdma_buf addr, rkey, size}; the server RDMA
 *           WRITEs what it read there and SENDs "go"; compare (-V)
 *   server: the mirror image, until the client disconnects
 *
 * Messages are rping's struct rping_rdma_info: be64 addr, be32 rkey,
 * be32 size (16 bytes). Buffers are rping's: "rdma-ping-%d: " and then
 * letters cycling from 'A' + ping through 'z', NUL-terminated.
 */

#include <stdbool.h>
#include <stdint.h>

#include "ndk.h"

#define RP_DEF_PORT 7174
#define RP_DEF_SIZE 64
#define RP_MIN_SIZE 26          /* rping: the header and INT_MAX fit */
#define RP_MAX_SIZE 65535       /* rping's RPING_BUFSIZE - 1 */
#define RP_MSG_FMT "rdma-ping-%d: "
#define RP_WAIT_S 30            /* longest wait for one step */
/*
 * Server: longest silence of a connected client between two pings. A
 * client whose disconnect request was lost (rping sends it once and
 * destroys its ID, which ends the CM's retries) says nothing more: after
 * that silence the server takes it as gone when another client waits to
 * connect, and otherwise asks the client's QP with a zero-length RDMA
 * WRITE (no R_Key checked, IBA C9-88, invisible to the client's
 * application). A live QP ACKs it and the wait goes on; a destroyed one
 * never answers, the WRITE fails when its retries are exhausted, and the
 * server ends the connection as the disconnect would have.
 */
#define RP_IDLE_S 3
/*
 * Longest wait for the probe's answer: a destroyed QP is found when the
 * WRITE's retries run out, each timeout longer than the last (up to eight
 * times the QP's; about 45 s with librdmacm's 1 s ACK timeout).
 */
#define RP_PROBE_S 120

/** rping's struct rping_rdma_info, big-endian on the wire. */
struct rp_info {
	uint64_t buf;
	uint32_t rkey;
	uint32_t size;
} __attribute__((packed));

struct rp_opts {
	bool server;
	bool verbose;            /* -v: print the ping data */
	bool validate;           /* -V: compare what came back */
	bool debug;              /* -d: trace the steps */
	bool persistent;         /* -P: serve clients one after another */
	uint32_t count;          /* -C: pings, 0 = forever */
	uint32_t size;           /* -S */
	uint16_t port;           /* -p */
	uint32_t addr;           /* -a IPv4, network order (0 = any, server) */
	uint8_t addr6[16];       /* -a IPv6 */
	bool addr_v6;            /* -a gave an IPv6 address */
	uint32_t ipv4;           /* --ip: the adapter's (0: none) */
	uint8_t ipv6[16];        /* --ip6: the adapter's */
	bool ipv6_set;
	uint16_t port_id;        /* --port-id */
	uint32_t mtu;            /* --mtu: largest RDMA path MTU */
};

/** Parse rping's options. @return 0, 1 (error printed), 2 (--help). */
int rp_parse_args(int argc, char **argv, struct rp_opts *o);

#endif /* NDK_RPING_H */
