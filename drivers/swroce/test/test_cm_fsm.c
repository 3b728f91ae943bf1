/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Unit tests of the connection manager's transition table
 * (drivers/swroce/cm/swroce_cm_fsm.c, linked alone): every move the protocol
 * makes is allowed with its trigger, every other (from, to, event) is
 * refused, counted and leaves the state as it was, and the handshakes walk
 * through on a connection made by hand. No NIC, no adapter.
 */

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_log.h>

#include "ndk_test.h"
#include "swroce_cm.h"

/* One allowed move: from --ev--> to. */
struct move {
	uint8_t from, ev, to;
};

#define M(f, e, t) { SWR_CM_##f, SWR_CM_##e, SWR_CM_##t }

/* What the IB CM (folded to NDK) does, written out move by move. */
static const struct move legal[] = {
	M(IDLE, API_CONNECT, REQ_SENT),
	M(IDLE, RX_REQ, REQ_RCVD),
	M(IDLE, API_CLOSE, ABORTED),
	M(REQ_SENT, RX_REP, REP_RCVD),
	M(REQ_SENT, RX_REJ, ABORTED),
	M(REQ_SENT, TIMED_OUT, ABORTED),
	M(REQ_SENT, API_CLOSE, ABORTED),
	M(REP_RCVD, API_COMPLETE, ESTABLISHED),
	M(REP_RCVD, RX_REJ, ABORTED),
	M(REP_RCVD, API_REJECT, ABORTED),
	M(REP_RCVD, QP_ERROR, ABORTED),
	M(REP_RCVD, API_CLOSE, ABORTED),
	M(REQ_RCVD, API_ACCEPT, REP_SENT),
	M(REQ_RCVD, RX_REJ, ABORTED),
	M(REQ_RCVD, API_REJECT, ABORTED),
	M(REQ_RCVD, API_CLOSE, ABORTED),
	M(REP_SENT, RX_RTU, ESTABLISHED),
	M(REP_SENT, QP_RX, ESTABLISHED),
	M(REP_SENT, RX_DREQ, ESTABLISHED),
	M(REP_SENT, RX_REJ, ABORTED),
	M(REP_SENT, TIMED_OUT, ABORTED),
	M(REP_SENT, API_CLOSE, ABORTED),
	M(ESTABLISHED, API_DISCONNECT, DREQ_SENT),
	M(ESTABLISHED, RX_DREQ, DISCONNECTED),
	M(ESTABLISHED, RX_REJ, ABORTED),
	M(ESTABLISHED, QP_ERROR, ABORTED),
	M(ESTABLISHED, API_CLOSE, ABORTED),
	M(DREQ_SENT, RX_DREP, DISCONNECTED),
	M(DREQ_SENT, RX_DREQ, DISCONNECTED),
	M(DREQ_SENT, TIMED_OUT, DISCONNECTED),
	M(DREQ_SENT, RX_REJ, ABORTED),
	M(DREQ_SENT, API_CLOSE, ABORTED),
	M(DISCONNECTED, API_CLOSE, ABORTED),
	M(ABORTED, RX_DREQ, DISCONNECTED),
	M(ABORTED, API_CLOSE, ABORTED),
};

static struct swr_adapter g_ad;
static struct swr_cm g_cm;
static struct swr_conn g_c;

static struct swr_conn *
conn_in(unsigned int state)
{
	memset(&g_c, 0, sizeof(g_c));
	g_c.ad = &g_ad;
	g_c.local_id = 0x1234;
	g_c.state = (uint8_t)state;
	return &g_c;
}

static bool
is_legal(unsigned int from, unsigned int to, unsigned int ev)
{
	for (unsigned int i = 0; i < RTE_DIM(legal); i++)
		if (legal[i].from == from && legal[i].to == to &&
		    legal[i].ev == ev)
			return true;
	return false;
}

/* Names 0 .. n-1 of @p name_of are all there and all different. */
static int
names_distinct(const char *(*name_of)(unsigned int), unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		const char *a = name_of(i);

		TEST_ASSERT(a != NULL && strcmp(a, "?") != 0, "%u unnamed", i);
		for (unsigned int j = 0; j < i; j++)
			TEST_ASSERT(strcmp(a, name_of(j)) != 0,
				    "%u and %u both %s", j, i, a);
	}
	TEST_ASSERT(strcmp(name_of(n), "?") == 0, "past the end");
	TEST_ASSERT(strcmp(name_of(~0u), "?") == 0, "far past the end");
	return 0;
}

static int
t_names(void)
{
	TEST_ASSERT_EQ(names_distinct(swr_cm_state_name, SWR_CM_N_STATES), 0,
		       "states");
	TEST_ASSERT_EQ(names_distinct(swr_cm_event_name, SWR_CM_N_EVENTS), 0,
		       "events");
	TEST_ASSERT(strcmp(swr_cm_state_name(SWR_CM_ESTABLISHED),
			   "ESTABLISHED") == 0, "");
	return 0;
}

/* Every listed move is made; nothing is counted as refused. */
static int
t_legal(void)
{
	g_cm.bad_transitions = 0;
	for (unsigned int i = 0; i < RTE_DIM(legal); i++) {
		const struct move *m = &legal[i];
		struct swr_conn *c = conn_in(m->from);

		TEST_ASSERT(swr_cm_fsm_allows(m->from, m->to, m->ev),
			    "%s -> %s on %s", swr_cm_state_name(m->from),
			    swr_cm_state_name(m->to), swr_cm_event_name(m->ev));
		TEST_ASSERT_EQ(swr_cm_set_state(c, m->to, m->ev), 0,
			       "move %u", i);
		TEST_ASSERT_EQ(c->state, m->to, "move %u", i);
	}
	TEST_ASSERT_EQ(g_cm.bad_transitions, 0, "");
	return 0;
}

/*
 * Every (from, to, event) not listed, and out-of-range ones, is refused:
 * -EPERM, counted, the state untouched.
 */
static int
t_illegal(void)
{
	uint64_t refused = 0;
	int level = rte_log_get_level(ndk_logtype);

	/* A thousand refusals would each log an error line. */
	rte_log_set_level(ndk_logtype, RTE_LOG_CRIT);
	g_cm.bad_transitions = 0;
	for (unsigned int from = 0; from <= SWR_CM_N_STATES; from++) {
		for (unsigned int to = 0; to <= SWR_CM_N_STATES; to++) {
			for (unsigned int ev = 0; ev <= SWR_CM_N_EVENTS; ev++) {
				struct swr_conn *c;
				int rc;

				if (is_legal(from, to, ev))
					continue;
				c = conn_in(from);
				rc = swr_cm_set_state(c, to, ev);
				refused++;
				if (rc != -EPERM || c->state != from ||
				    swr_cm_fsm_allows(from, to, ev)) {
					rte_log_set_level(ndk_logtype, level);
					TEST_FAIL("%s -> %s on %s allowed",
						  swr_cm_state_name(from),
						  swr_cm_state_name(to),
						  swr_cm_event_name(ev));
				}
			}
		}
	}
	rte_log_set_level(ndk_logtype, level);
	TEST_ASSERT_EQ(g_cm.bad_transitions, refused, "counted");
	/* The table holds exactly the listed moves. */
	TEST_ASSERT_EQ(refused + RTE_DIM(legal),
		       (uint64_t)(SWR_CM_N_STATES + 1) *
		       (SWR_CM_N_STATES + 1) * (SWR_CM_N_EVENTS + 1), "");
	/* Some a broken caller could try: each logged and refused. */
	g_cm.bad_transitions = 0;
	TEST_ASSERT_EQ(swr_cm_set_state(conn_in(SWR_CM_IDLE), SWR_CM_REP_RCVD,
					SWR_CM_RX_REP), -EPERM, "REP in IDLE");
	TEST_ASSERT_EQ(swr_cm_set_state(conn_in(SWR_CM_REQ_SENT),
					SWR_CM_REP_RCVD, SWR_CM_RX_RTU), -EPERM,
		       "right state, wrong trigger");
	TEST_ASSERT_EQ(swr_cm_set_state(conn_in(SWR_CM_DISCONNECTED),
					SWR_CM_REQ_SENT, SWR_CM_API_CONNECT),
		       -EPERM, "Connect after a disconnect");
	TEST_ASSERT_EQ(g_cm.bad_transitions, 3, "");
	return 0;
}

/* The handshakes, one move after the other on one connection. */
static int
t_handshakes(void)
{
	static const struct {
		const char *what;
		uint8_t ev[8], to[8];
		unsigned int n;
	} runs[] = {
		{ "active, we disconnect",
		  { SWR_CM_API_CONNECT, SWR_CM_RX_REP, SWR_CM_API_COMPLETE,
		    SWR_CM_API_DISCONNECT, SWR_CM_RX_DREP, SWR_CM_API_CLOSE },
		  { SWR_CM_REQ_SENT, SWR_CM_REP_RCVD, SWR_CM_ESTABLISHED,
		    SWR_CM_DREQ_SENT, SWR_CM_DISCONNECTED, SWR_CM_ABORTED },
		  6 },
		{ "passive, the peer disconnects",
		  { SWR_CM_RX_REQ, SWR_CM_API_ACCEPT, SWR_CM_RX_RTU,
		    SWR_CM_RX_DREQ, SWR_CM_API_CLOSE },
		  { SWR_CM_REQ_RCVD, SWR_CM_REP_SENT, SWR_CM_ESTABLISHED,
		    SWR_CM_DISCONNECTED, SWR_CM_ABORTED },
		  5 },
		{ "passive, RTU lost, DREQs cross",
		  { SWR_CM_RX_REQ, SWR_CM_API_ACCEPT, SWR_CM_QP_RX,
		    SWR_CM_API_DISCONNECT, SWR_CM_RX_DREQ },
		  { SWR_CM_REQ_RCVD, SWR_CM_REP_SENT, SWR_CM_ESTABLISHED,
		    SWR_CM_DREQ_SENT, SWR_CM_DISCONNECTED },
		  5 },
		{ "passive, QP fails as the peer's DREQ comes",
		  { SWR_CM_RX_REQ, SWR_CM_API_ACCEPT, SWR_CM_RX_DREQ,
		    SWR_CM_QP_ERROR, SWR_CM_RX_DREQ, SWR_CM_API_CLOSE },
		  { SWR_CM_REQ_RCVD, SWR_CM_REP_SENT, SWR_CM_ESTABLISHED,
		    SWR_CM_ABORTED, SWR_CM_DISCONNECTED, SWR_CM_ABORTED },
		  6 },
		{ "active, nobody answers",
		  { SWR_CM_API_CONNECT, SWR_CM_TIMED_OUT, SWR_CM_API_CLOSE },
		  { SWR_CM_REQ_SENT, SWR_CM_ABORTED, SWR_CM_ABORTED },
		  3 },
		{ "passive, rejected",
		  { SWR_CM_RX_REQ, SWR_CM_API_REJECT, SWR_CM_API_CLOSE },
		  { SWR_CM_REQ_RCVD, SWR_CM_ABORTED, SWR_CM_ABORTED },
		  3 },
	};

	g_cm.bad_transitions = 0;
	for (unsigned int r = 0; r < RTE_DIM(runs); r++) {
		struct swr_conn *c = conn_in(SWR_CM_IDLE);

		for (unsigned int i = 0; i < runs[r].n; i++) {
			TEST_ASSERT_EQ(swr_cm_set_state(c, runs[r].to[i],
							runs[r].ev[i]), 0,
				       "%s: step %u", runs[r].what, i);
			TEST_ASSERT_EQ(c->state, runs[r].to[i], "%s: step %u",
				       runs[r].what, i);
		}
	}
	TEST_ASSERT_EQ(g_cm.bad_transitions, 0, "");
	return 0;
}

/* Shape of the table: close always works, no way back to IDLE, every
 * state reachable from IDLE. */
static int
t_shape(void)
{
	uint32_t seen = 1u << SWR_CM_IDLE, grew;

	for (unsigned int s = 0; s < SWR_CM_N_STATES; s++) {
		TEST_ASSERT(swr_cm_fsm_allows(s, SWR_CM_ABORTED,
					      SWR_CM_API_CLOSE),
			    "close in %s", swr_cm_state_name(s));
		for (unsigned int ev = 0; ev < SWR_CM_N_EVENTS; ev++)
			TEST_ASSERT(!swr_cm_fsm_allows(s, SWR_CM_IDLE, ev),
				    "back to IDLE from %s on %s",
				    swr_cm_state_name(s),
				    swr_cm_event_name(ev));
	}
	do {
		grew = 0;
		for (unsigned int f = 0; f < SWR_CM_N_STATES; f++)
			for (unsigned int t = 0; t < SWR_CM_N_STATES; t++)
				for (unsigned int ev = 0; ev < SWR_CM_N_EVENTS;
				     ev++)
					if ((seen & (1u << f)) &&
					    swr_cm_fsm_allows(f, t, ev))
						grew |= (1u << t) & ~seen;
		seen |= grew;
	} while (grew != 0);
	TEST_ASSERT_EQ(seen, (1u << SWR_CM_N_STATES) - 1, "reachable");
	return 0;
}

static const struct ndk_test_case cases[] = {
	{ "names", t_names },
	{ "legal", t_legal },
	{ "illegal", t_illegal },
	{ "handshakes", t_handshakes },
	{ "shape", t_shape },
};

int
main(int argc, char **argv)
{
	int rc;

	g_ad.cm = &g_cm;
	snprintf(g_ad.name, sizeof(g_ad.name), "cm_fsm");
	/* Only for the test runner's TSC timings and the log. */
	if (ndk_test_eal_init("test_unit_cm_fsm", "0", NULL) < 0)
		return 1;
	rc = ndk_test_run("cm_fsm_unit", cases, RTE_DIM(cases), argc, argv);
	rte_eal_cleanup();
	return rc;
}
