/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The ping-pong itself, as ibv_rc_pingpong runs it: rx_depth receives on
 * one buffer, replenished when one is left; one SEND in flight; the next
 * SEND goes once both the previous SEND and a receive completed. With -e
 * the CQ is armed (NDK_CQ_NOTIFY_ANY) and re-armed before each drain.
 *
 * With -q/--srq, ibv_srq_pingpong's: the receives are posted to one SRQ
 * (replenished when no more than num_qp are left), every QP has its own
 * SEND in flight and its own "pending" bits, and the counts are over all
 * QPs. A completion names its QP by the QPContext (the QP's index + 1).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "pingpong.h"

#define PP_BURST 16
#define PP_POISON 0xa5          /* --chk: receive buffer after each check */
#define PP_MAX_BAD_REPORTS 5

/* ------------------------------------------------------------------ */
/* Polling and notifications                                           */
/* ------------------------------------------------------------------ */

/* @return -1 (reason printed) if nothing completed for PP_STALL_S. */
static int
pp_watchdog(struct pp_ctx *c)
{
	struct rte_eth_link link;

	if (rte_get_tsc_cycles() - c->last_tsc < c->stall_tsc)
		return 0;
	memset(&link, 0, sizeof(link));
	rte_eth_link_get_nowait(c->o.port_id, &link);
	fprintf(stderr, "No completion for %d s (sent %u, received %u of %u "
		"messages; port %u link %s): is the peer gone?\n", PP_STALL_S,
		c->scnt, c->rcnt, c->o.iters, c->o.port_id,
		link.link_status == RTE_ETH_LINK_UP ? "up" : "down");
	return -1;
}

/* CQ notification: short and non-blocking (runs on the polling lcore). */
void
pp_cq_notify(void *arg, ndk_status_t cq_status)
{
	struct pp_ctx *c = arg;

	if (cq_status != NDK_STATUS_SUCCESS)
		c->ev_status = cq_status;
	__atomic_store_n(&c->ev_fired, 1, __ATOMIC_RELEASE);
	if (c->ev_sem_ok)
		sem_post(&c->ev_sem);
}

/*
 * Wait for the next CQ notification: asleep on a semaphore when an lcore
 * polls the adapter, polling it ourselves otherwise.
 */
static int
pp_wait_event(struct pp_ctx *c)
{
	while (!__atomic_exchange_n(&c->ev_fired, 0, __ATOMIC_ACQUIRE)) {
		if (pp_watchdog(c) != 0)
			return -1;
		if (c->poller != NULL) {
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 100 * 1000 * 1000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			if (sem_timedwait(&c->ev_sem, &ts) != 0 &&
			    errno != ETIMEDOUT && errno != EINTR) {
				perror("sem_timedwait");
				return -1;
			}
		} else {
			for (unsigned int i = 0; i < 256 &&
			     !__atomic_load_n(&c->ev_fired, __ATOMIC_ACQUIRE);
			     i++)
				ndk_adapter_poll(c->ad);
		}
	}
	if (c->ev_status != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "CQ notification: %s\n",
			ndk_status_str(c->ev_status));
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Posting and completions (ibv_rc_pingpong's loop)                    */
/* ------------------------------------------------------------------ */

uint32_t
pp_post_recv(struct pp_ctx *c, uint32_t n)
{
	struct ndk_sge sge = {
		.va = c->rbuf, .length = c->o.size, .token = c->token,
	};

	void *wr_id = (void *)(uintptr_t)PP_RECV_WRID;
	uint32_t i;

	for (i = 0; i < n; i++) {
		ndk_status_t st = c->srq != NULL ?
			ndk_srq_receive(c->srq, wr_id, &sge, 1) :
			ndk_receive(c->qp[0], wr_id, &sge, 1);

		if (st != NDK_STATUS_SUCCESS) {
			fprintf(stderr, "%s: %s\n", c->srq != NULL ?
				"ndk_srq_receive" : "ndk_receive",
				ndk_status_str(st));
			break;
		}
	}
	return i;
}

int
pp_post_send(struct pp_ctx *c, uint32_t i)
{
	struct ndk_sge sge = {
		.va = c->sbuf, .length = c->o.size, .token = c->token,
	};
	ndk_status_t st;

	st = ndk_send(c->qp[i], (void *)(uintptr_t)PP_SEND_WRID, &sge, 1,
		      c->send_flags);
	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "Couldn't post send: %s\n",
			ndk_status_str(st));
		return -1;
	}
	return 0;
}

/*
 * --chk: every message carries ibv_rc_pingpong's client pattern (0x7b,
 * with 0 at the start of each page), which the send buffer holds. Check
 * it, then poison the receive buffer so that a receive completing without
 * its data is caught next time. Safe here: the peer sends its next
 * message only after our next one, posted after this check.
 *
 * With an SRQ every receive shares the one buffer while several QPs'
 * messages are in flight, so nothing is poisoned (it could hit a message
 * still arriving) and the pattern is ibv_srq_pingpong's: all zeros (its
 * buffer starts zeroed and its --chk marks each page's first byte with 0).
 */
static void
pp_check_msg(struct pp_ctx *c, uint32_t len)
{
	uint32_t size = c->o.size;
	uint32_t msg = c->rcnt + 1;

	if (len != size) {
		if (c->bad_msgs++ < PP_MAX_BAD_REPORTS)
			fprintf(stderr, "invalid length of message %u: %u "
				"bytes, expected %u\n", msg, len, size);
	} else if (c->srq != NULL) {
		uint32_t i = 0;

		while (i < size && c->rbuf[i] == 0)
			i++;
		if (i < size && c->bad_msgs++ < PP_MAX_BAD_REPORTS)
			fprintf(stderr, "invalid data in message %u: byte %u "
				"is 0x%02x, expected 0\n", msg, i, c->rbuf[i]);
		return;
	} else if (memcmp(c->rbuf, c->sbuf, size) != 0) {
		uint32_t i = 0;

		while (c->rbuf[i] == c->sbuf[i])
			i++;
		if (c->bad_msgs++ < PP_MAX_BAD_REPORTS)
			fprintf(stderr, "invalid data in message %u, page %ld:"
				" byte %u is 0x%02x, expected 0x%02x\n", msg,
				(long)(i / sysconf(_SC_PAGESIZE)), i,
				c->rbuf[i], c->sbuf[i]);
	}
	memset(c->rbuf, PP_POISON, size);
}

static const char *
pp_perr_str(uint32_t e)
{
	static const char *const names[] = {
		[NDK_PERR_NONE] = "none",
		[NDK_PERR_FLUSHED] = "flushed",
		[NDK_PERR_RETRY_EXCEEDED] = "transport retries exceeded",
		[NDK_PERR_RNR_RETRY_EXCEEDED] = "RNR retries exceeded",
		[NDK_PERR_REM_INV_REQ] = "remote invalid request",
		[NDK_PERR_REM_ACCESS] = "remote access error",
		[NDK_PERR_REM_OP] = "remote operational error",
		[NDK_PERR_LOC_LEN] = "local length error",
		[NDK_PERR_LOC_PROT] = "local protection error",
		[NDK_PERR_LOC_QP_OP] = "local QP operation error",
		[NDK_PERR_BAD_RESP] = "bad response",
	};

	return e < RTE_DIM(names) && names[e] != NULL ? names[e] : "unknown";
}

static int
pp_complete(struct pp_ctx *c, const struct ndk_result_ex *r)
{
	unsigned int wr_id = (unsigned int)(uintptr_t)r->request_context;
	uintptr_t q = (uintptr_t)r->qp_context;

	if (q == 0 || q > c->num_qp) {
		fprintf(stderr, "Completion for an unknown QP (context %p)\n",
			r->qp_context);
		return -1;
	}
	q--;
	if (r->status != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "Failed status %s (0x%08x) for wr_id %u: %s%s"
			"\n", ndk_status_str(r->status), (uint32_t)r->status,
			wr_id, pp_perr_str(r->provider_error),
			r->provider_error == NDK_PERR_REM_INV_REQ ||
			r->provider_error == NDK_PERR_LOC_LEN ?
			" (do both sides use the same -s and -m?)" : "");
		return -1;
	}
	switch (wr_id) {
	case PP_SEND_WRID:
		c->scnt++;
		break;
	case PP_RECV_WRID:
		if (c->o.validate)
			pp_check_msg(c, r->bytes_transferred);
		if (--c->routs <= c->num_qp) {
			c->routs += pp_post_recv(c, c->o.rx_depth - c->routs);
			if (c->routs < c->o.rx_depth) {
				fprintf(stderr, "Couldn't post receive (%u)\n",
					c->routs);
				return -1;
			}
		}
		c->rcnt++;
		break;
	default:
		fprintf(stderr, "Completion for unknown wr_id %u\n", wr_id);
		return -1;
	}
	c->pending[q] &= ~wr_id;
	if (c->scnt < c->o.iters && c->pending[q] == 0) {
		if (pp_post_send(c, (uint32_t)q) != 0)
			return -1;
		c->pending[q] = PP_RECV_WRID | PP_SEND_WRID;
	}
	return 0;
}

int
pp_loop(struct pp_ctx *c)
{
	struct ndk_result_ex r[PP_BURST];
	const uint32_t iters = c->o.iters;

	c->last_tsc = rte_get_tsc_cycles();
	while (c->rcnt < iters || c->scnt < iters) {
		uint32_t n, got = 0;

		if (c->o.use_event) {
			if (pp_wait_event(c) != 0)
				return -1;
			ndk_arm_cq(c->cq, NDK_CQ_NOTIFY_ANY);
		}
		/* With events take everything: the CQ was re-armed first. */
		do {
			n = ndk_get_cq_results_ex(c->cq, r, PP_BURST);
			for (uint32_t i = 0; i < n; i++)
				if (pp_complete(c, &r[i]) != 0)
					return -1;
			got += n;
		} while (n != 0 && c->o.use_event);
		if (got != 0) {
			c->last_tsc = rte_get_tsc_cycles();
		} else if (!c->o.use_event) {
			pp_service(c);
			if (pp_watchdog(c) != 0)
				return -1;
		}
	}
	return 0;
}
