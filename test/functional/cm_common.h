/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef CM_COMMON_H
#define CM_COMMON_H

/**
 * @file
 * Helpers of the connection-manager functional programs, between two
 * swroce adapters on a net_ring pair: A (10.0.0.1) connects, B
 * (10.0.0.2) listens. Callbacks run on the poller lcore: they record into
 * structures the test thread waits on with acquire loads.
 */

#include <stdbool.h>
#include <stdint.h>

#include <netinet/in.h>

#include "rc_common.h"

/** B's listening port of the cases. */
#define PORT 7174
/** Connect events one struct incoming records. */
#define MAX_INCOMING 64

/* A request completion. */
struct req {
	int done;
	ndk_status_t st;
};

/* A disconnect event. */
struct disc {
	int fired;
	uint32_t reason;
};

/* A listener's connect events. */
struct incoming {
	int n;
	struct ndk_connector *c[MAX_INCOMING];
	bool close_at_once;   /* close each new connector in the callback */
};

/** Request completion recording into the struct req @p ctx. */
void req_done(void *ctx, ndk_status_t st);

/** Disconnect event recording into the struct disc @p ctx. */
void disc_event(void *ctx, uint32_t reason);

/** Connect event recording into the struct incoming @p ctx. */
void connect_event(void *ctx, struct ndk_connector *c);

/** Wait until *@p flag >= @p want; @return 0 or -1 on timeout. */
int wait_int(const int *flag, int want);

/** Wait for @p r's completion and check its status is @p want. */
#define WAIT_REQ(r, want, what) do { \
	TEST_ASSERT(wait_int(&(r)->done, 1) == 0, "%s: no completion", what); \
	TEST_ASSERT_EQ((r)->st, want, "%s: %s", what, \
		       ndk_status_str((r)->st)); \
} while (0)

/** A sockaddr_in as the struct sockaddr pointer the calls take. */
#define SA(s) ((const struct sockaddr *)&(s))

/** A listener of B on @p port (any address). */
struct ndk_listener *listen_b(struct ndk_pair *p, struct incoming *in,
			      uint16_t port);

/** Start A's connect to B:@p port with @p pdata (NUL-terminated). */
ndk_status_t connect_a(struct ndk_pair *p, struct ndk_connector *ca,
		       struct ndk_qp *qp, uint16_t port, const char *pdata,
		       struct req *r);

/** One full handshake on @p c; @p in receives B's connector. */
int handshake(struct ndk_pair *p, struct ndk_pair_conn *c,
	      struct incoming *in, struct ndk_connector **ca,
	      struct ndk_connector **cb, struct disc *da, struct disc *db);

/** The state of @p qp, -1 if it cannot be queried. */
int qp_state(struct ndk_qp *qp);

#endif /* CM_COMMON_H */
