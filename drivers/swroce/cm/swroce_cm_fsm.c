/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * swroce connection manager: the connection state machine as one table
 * (swroce_cm.h). A row is the state a connection is in, a column the
 * state it goes to, a cell the events that may make that move; every
 * state change of swroce_cm.c, swroce_cm_act.c and swroce_conn.c goes
 * through swr_cm_set_state(), which refuses what the table does not have.
 *
 * Active side:  IDLE -Connect-> REQ_SENT -REP-> REP_RCVD
 *               -CompleteConnect-> ESTABLISHED
 * Passive side: IDLE -REQ-> REQ_RCVD -Accept-> REP_SENT
 *               -RTU (or a first packet, or the peer's DREQ)-> ESTABLISHED
 * Either side:  ESTABLISHED -Disconnect-> DREQ_SENT -DREP (a crossing
 *               DREQ, or no answer)-> DISCONNECTED
 *               ESTABLISHED -DREQ-> DISCONNECTED
 * Failures:     -> ABORTED on a REJ, a timeout, Reject, a QP that would
 *               not move, or close (close is legal in every state).
 */

#include <errno.h>

#include "swroce_cm.h"

#define EV(e) (1u << SWR_CM_##e)

/* cm_fsm[from][to]: the events that may move a connection from -> to. */
static const uint32_t cm_fsm[SWR_CM_N_STATES][SWR_CM_N_STATES] = {
	[SWR_CM_IDLE] = {
		[SWR_CM_REQ_SENT] = EV(API_CONNECT),
		/* A fresh object from the pool for an incoming REQ. */
		[SWR_CM_REQ_RCVD] = EV(RX_REQ),
		[SWR_CM_ABORTED] = EV(API_CLOSE),
	},
	[SWR_CM_REQ_SENT] = {
		[SWR_CM_REP_RCVD] = EV(RX_REP),
		[SWR_CM_ABORTED] = EV(RX_REJ) | EV(TIMED_OUT) | EV(API_CLOSE),
	},
	[SWR_CM_REP_RCVD] = {
		[SWR_CM_ESTABLISHED] = EV(API_COMPLETE),
		/* Reject, or CompleteConnect whose QP would not move. */
		[SWR_CM_ABORTED] = EV(RX_REJ) | EV(API_REJECT) | EV(QP_ERROR) |
				   EV(API_CLOSE),
	},
	[SWR_CM_REQ_RCVD] = {
		[SWR_CM_REP_SENT] = EV(API_ACCEPT),
		[SWR_CM_ABORTED] = EV(RX_REJ) | EV(API_REJECT) | EV(API_CLOSE),
	},
	[SWR_CM_REP_SENT] = {
		/* The RTU, or what shows the peer has it: a first packet on
		 * the QP, or its DREQ (the RTU got lost). */
		[SWR_CM_ESTABLISHED] = EV(RX_RTU) | EV(QP_RX) | EV(RX_DREQ),
		[SWR_CM_ABORTED] = EV(RX_REJ) | EV(TIMED_OUT) | EV(API_CLOSE),
	},
	[SWR_CM_ESTABLISHED] = {
		[SWR_CM_DREQ_SENT] = EV(API_DISCONNECT),
		[SWR_CM_DISCONNECTED] = EV(RX_DREQ),
		/* QP_ERROR: the accepted one's QP would not go to RTS. */
		[SWR_CM_ABORTED] = EV(RX_REJ) | EV(QP_ERROR) | EV(API_CLOSE),
	},
	[SWR_CM_DREQ_SENT] = {
		[SWR_CM_DISCONNECTED] = EV(RX_DREP) | EV(RX_DREQ) |
					EV(TIMED_OUT),
		[SWR_CM_ABORTED] = EV(RX_REJ) | EV(API_CLOSE),
	},
	[SWR_CM_DISCONNECTED] = {
		[SWR_CM_ABORTED] = EV(API_CLOSE),
	},
	[SWR_CM_ABORTED] = {
		/*
		 * The peer's DREQ found an accepted connection waiting for
		 * its RTU whose QP then failed to go to RTS (REP_SENT ->
		 * ESTABLISHED -> ABORTED): it is over all the same.
		 */
		[SWR_CM_DISCONNECTED] = EV(RX_DREQ),
		[SWR_CM_ABORTED] = EV(API_CLOSE),
	},
};

static const char *const cm_state_names[SWR_CM_N_STATES] = {
	[SWR_CM_IDLE] = "IDLE",
	[SWR_CM_REQ_SENT] = "REQ_SENT",
	[SWR_CM_REP_RCVD] = "REP_RCVD",
	[SWR_CM_REQ_RCVD] = "REQ_RCVD",
	[SWR_CM_REP_SENT] = "REP_SENT",
	[SWR_CM_ESTABLISHED] = "ESTABLISHED",
	[SWR_CM_DREQ_SENT] = "DREQ_SENT",
	[SWR_CM_DISCONNECTED] = "DISCONNECTED",
	[SWR_CM_ABORTED] = "ABORTED",
};

static const char *const cm_event_names[SWR_CM_N_EVENTS] = {
	[SWR_CM_RX_REQ] = "REQ received",
	[SWR_CM_RX_REP] = "REP received",
	[SWR_CM_RX_RTU] = "RTU received",
	[SWR_CM_RX_REJ] = "REJ received",
	[SWR_CM_RX_DREQ] = "DREQ received",
	[SWR_CM_RX_DREP] = "DREP received",
	[SWR_CM_QP_RX] = "packet on the QP",
	[SWR_CM_API_CONNECT] = "Connect",
	[SWR_CM_API_COMPLETE] = "CompleteConnect",
	[SWR_CM_API_ACCEPT] = "Accept",
	[SWR_CM_API_REJECT] = "Reject",
	[SWR_CM_API_DISCONNECT] = "Disconnect",
	[SWR_CM_API_CLOSE] = "close",
	[SWR_CM_TIMED_OUT] = "timeout",
	[SWR_CM_QP_ERROR] = "QP error",
};

/* Every event fits a cell's bits. */
_Static_assert(SWR_CM_N_EVENTS <= 32, "cm_fsm cells are 32-bit masks");

const char *
swr_cm_state_name(unsigned int s)
{
	return s < SWR_CM_N_STATES ? cm_state_names[s] : "?";
}

const char *
swr_cm_event_name(unsigned int ev)
{
	return ev < SWR_CM_N_EVENTS ? cm_event_names[ev] : "?";
}

bool
swr_cm_fsm_allows(unsigned int from, unsigned int to, unsigned int ev)
{
	return from < SWR_CM_N_STATES && to < SWR_CM_N_STATES &&
		ev < SWR_CM_N_EVENTS && (cm_fsm[from][to] & (1u << ev)) != 0;
}

int
swr_cm_set_state(struct swr_conn *c, enum swr_cm_state to,
		 enum swr_cm_event ev)
{
	unsigned int from = c->state;

	if (unlikely(!swr_cm_fsm_allows(from, to, ev))) {
		c->ad->cm->bad_transitions++;
		NDK_LOG(ERR, "%s: CM connection %#x: %s -> %s on %s refused",
			c->ad->name, c->local_id, swr_cm_state_name(from),
			swr_cm_state_name(to), swr_cm_event_name(ev));
		return -EPERM;
	}
	NDK_LOG(DEBUG, "%s: CM connection %#x: %s -> %s on %s", c->ad->name,
		c->local_id, swr_cm_state_name(from), swr_cm_state_name(to),
		swr_cm_event_name(ev));
	c->state = (uint8_t)to;
	/* Answered, refused or given up: room in the listener's backlog. */
	if (from == SWR_CM_REQ_RCVD)
		swr_cm_answered(c);
	return 0;
}
