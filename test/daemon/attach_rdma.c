/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * attach-rdma: one program, run twice by the daemon tests: embedded (a
 * primary process owning a memif port) and attached (a secondary process
 * of ndk-roced; libndk then picks the attach provider). The two connect
 * with ndk_qp_connect() over addresses the test relays, then the active
 * side, each round, RDMA WRITEs a pattern into the passive side's buffer,
 * READs it back and compares, and SENDs it; the passive side checks that
 * the message and its buffer both hold the round's pattern. With --srq
 * the QP takes its receives from a shared receive queue the passive side
 * posts them to. With --late the passive side posts each round's receive
 * only once the round's SEND has been refused for the want of one (its
 * adapter's RNR NAK count grew), so every SEND meets an RNR NAK and is
 * taken at a retry. Embedded and attached must behave alike
 * (doc/attach.md):
 *  - SRQ notification: before the traffic, an SRQ with a callback armed
 *    by NdkModifySrq below its level notifies at once, once; with --srq
 *    the QP's SRQ is armed at 1 before each round's SEND, which takes the
 *    only receive: one notification per round, none more; an SRQ left
 *    open dies with the adapter (STATUS_INTERNAL_ERROR, once);
 *  - closes that pend: the QP's SRQ, CQ and PD closed before the QP
 *    answer STATUS_PENDING and complete (each once) only with the QP's
 *    close; the MR's close completes before its buffer is freed (pending
 *    while frames sent from it are out);
 *  - CQ resize and interrupt moderation (both adapter flags set): the
 *    QP's CQ is resized before the traffic and read through after it; on
 *    the active side the first WRITE's notification is held by a count
 *    of 8 (none comes while it is held) and released by turning the
 *    moderation off.
 *
 *   prints "OPEN" once the adapter is open (a memif server's socket is
 *   then listening), "INFO qpn=N va=V token=T"; reads "PEER qpn=N va=V token=T"
 *   prints "DONE" after --rounds rounds (0: never ends), then reads
 *   "stop" (stops polling, prints STOPPED) and "close" / EOF (closes,
 *   prints CLOSED).
 *
 *   With --die-pending, "close" closes the MR, then the CQ and PD the
 *   open QP still uses (both must pend), prints "PENDING HELD" and waits
 *   to be killed: the daemon must clean up after it.
 *
 *   attach-rdma <EAL args> -- --ip A.B.C.D --peer A.B.C.D [--active]
 *                             [--rounds N] [--size N] [--srq] [--late]
 *                             [--die-pending]
 */

#include <arpa/inet.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>

#include "daemon_app.h"
#include "ndk.h"

#define WAIT_S 60

static struct ndk_adapter *ad;
static struct ndk_cq *cq;
static struct ndk_qp *qp;
static struct ndk_srq *srq;   /* --srq: the QP's receives */
static bool late;             /* --late: post after an RNR NAK */
static int cq_notes;          /* notifications of cq */
static int srq_notes;         /* threshold notifications of srq */

static void
fail(const char *what)
{
	fprintf(stderr, "attach-rdma: %s\n", what);
	exit(1);
}

/* Poll until one successful completion of @p type. */
static uint32_t
wait_cqe(enum ndk_operation_type type)
{
	uint64_t t0 = rte_get_timer_cycles();
	struct ndk_result_ex r;

	while (ndk_get_cq_results_ex(cq, &r, 1) == 0) {
		if (rte_get_timer_cycles() - t0 > WAIT_S * rte_get_timer_hz())
			fail("no completion");
		ndk_adapter_poll(ad);
	}
	if (r.status != NDK_STATUS_SUCCESS || r.type != type) {
		fprintf(stderr, "attach-rdma: completion type %d: %s\n",
			(int)r.type, ndk_status_str(r.status));
		exit(1);
	}
	return r.bytes_transferred;
}

static void
pattern(uint8_t *p, uint32_t size, uint32_t round)
{
	for (uint32_t k = 0; k < size; k++)
		p[k] = (uint8_t)(round * 131 + k * 7 + (k >> 8));
}

/* Counts a notification (SUCCESS only) into the int @p ctx. */
static void
count_note(void *ctx, ndk_status_t st)
{
	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "attach-rdma: notification: %s\n",
			ndk_status_str(st));
		exit(1);
	}
	__atomic_fetch_add((int *)ctx, 1, __ATOMIC_RELEASE);
}

/* A close completion: counts into the int @p ctx. */
static void
count_closed(void *ctx)
{
	__atomic_fetch_add((int *)ctx, 1, __ATOMIC_RELEASE);
}

/* Poll until *@p n reaches @p want (attached: events come by polls). */
static void
wait_notes(const int *n, int want, const char *what)
{
	uint64_t t0 = rte_get_timer_cycles();

	while (__atomic_load_n(n, __ATOMIC_ACQUIRE) < want) {
		if (rte_get_timer_cycles() - t0 > WAIT_S * rte_get_timer_hz()) {
			fprintf(stderr, "attach-rdma: %s: %d notification(s), "
				"%d expected\n", what, *n, want);
			exit(1);
		}
		ndk_adapter_poll(ad);
	}
}

/*
 * The first WRITE's notification, held by moderation: a count of 8 alone
 * holds it (its completion comes, its notification does not); turning
 * moderation off lets it go, from that call (NDK: one held under the old
 * settings is delivered at once).
 */
static void
check_moderation(struct ndk_sge *msg, uint64_t rva, uint32_t rtoken)
{
	if (ndk_control_cq_interrupt_moderation(cq, UINT32_MAX, 8) !=
	    NDK_STATUS_SUCCESS)
		fail("moderation on");
	ndk_arm_cq(cq, NDK_CQ_NOTIFY_ANY);
	if (ndk_write(qp, NULL, msg, 1, rva, rtoken, 0) != NDK_STATUS_SUCCESS)
		fail("post write");
	wait_cqe(NDK_OP_WRITE);
	for (int k = 0; k < 100; k++)
		ndk_adapter_poll(ad);
	if (__atomic_load_n(&cq_notes, __ATOMIC_ACQUIRE) != 0)
		fail("a notification moderation should hold came");
	if (ndk_control_cq_interrupt_moderation(cq, 0, 0) !=
	    NDK_STATUS_SUCCESS)
		fail("moderation off");
	wait_notes(&cq_notes, 1, "held CQ notification");
}

static void
run_active(uint8_t *buf, uint32_t size, uint32_t token, uint64_t rva,
	   uint32_t rtoken, uint32_t rounds, uint8_t *want)
{
	struct ndk_sge first = { buf + size, size, token };

	pattern(buf + size, size, 0);
	check_moderation(&first, rva, rtoken);
	for (uint32_t i = 0; rounds == 0 || i < rounds; i++) {
		struct ndk_sge mine = { buf, size, token };
		struct ndk_sge msg = { buf + size, size, token };

		pattern(buf + size, size, i);
		memset(buf, 0, size);
		if (ndk_write(qp, NULL, &msg, 1, rva, rtoken, 0) !=
		    NDK_STATUS_SUCCESS)
			fail("post write");
		wait_cqe(NDK_OP_WRITE);
		if (ndk_read(qp, NULL, &mine, 1, rva, rtoken, 0) !=
		    NDK_STATUS_SUCCESS)
			fail("post read");
		wait_cqe(NDK_OP_READ);
		pattern(want, size, i);
		if (memcmp(buf, want, size) != 0)
			fail("READ brought back other bytes than written");
		if (ndk_send(qp, NULL, &msg, 1, 0) != NDK_STATUS_SUCCESS)
			fail("post send");
		wait_cqe(NDK_OP_SEND);
	}
}

/*
 * Counter nak_rnr_sent of the adapter (attached: the daemon's, read from
 * shared memory): this program's QP is the only one it has.
 */
static uint64_t
rnr_naks_sent(void)
{
	static int idx = -1;
	struct ndk_xstat v[256];
	int n;

	if (idx < 0) {
		static struct ndk_xstat_name names[256];

		n = ndk_adapter_xstats_get_names(ad, NULL, 0);
		if (n <= 0 || n > (int)RTE_DIM(names) ||
		    ndk_adapter_xstats_get_names(ad, names, (unsigned int)n) != n)
			fail("xstats names");
		for (int i = 0; i < n && idx < 0; i++)
			if (strcmp(names[i].name, "nak_rnr_sent") == 0)
				idx = i;
		if (idx < 0)
			fail("no nak_rnr_sent counter");
	}
	n = ndk_adapter_xstats_get(ad, v, RTE_DIM(v));
	if (n <= idx)
		fail("xstats");
	return v[idx].value;
}

/* --late: wait until the adapter refused a SEND since @p before. */
static void
wait_rnr_nak(uint64_t before)
{
	uint64_t t0 = rte_get_timer_cycles();

	while (rnr_naks_sent() == before) {
		if (rte_get_timer_cycles() - t0 > WAIT_S * rte_get_timer_hz())
			fail("no RNR NAK before the receive was posted");
		ndk_adapter_poll(ad);
	}
}

static void
run_passive(uint8_t *buf, uint32_t size, uint32_t token, uint32_t rounds,
	    uint8_t *want)
{
	uint64_t naks = late ? rnr_naks_sent() : 0;

	for (uint32_t i = 0; rounds == 0 || i < rounds; i++) {
		struct ndk_sge r = { buf + size, size, token };

		if (late)
			wait_rnr_nak(naks);
		if ((srq != NULL ? ndk_srq_receive(srq, NULL, &r, 1) :
		     ndk_receive(qp, NULL, &r, 1)) != NDK_STATUS_SUCCESS)
			fail("post receive");
		/* One posted, level 1: armed, it fires when the SEND takes
		 * the receive (the responder, on the daemon's lcore when
		 * attached), once. Round 0: armed at creation. */
		if (srq != NULL && i != 0 &&
		    ndk_modify_srq(srq, 0, 1) != NDK_STATUS_SUCCESS)
			fail("re-arm SRQ");
		if (wait_cqe(NDK_OP_RECEIVE) != size)
			fail("message of the wrong size");
		if (srq != NULL) {
			wait_notes(&srq_notes, (int)i + 1, "SRQ threshold");
			if (__atomic_load_n(&srq_notes, __ATOMIC_ACQUIRE) !=
			    (int)i + 1)
				fail("more than one SRQ notification an arm");
		}
		/* This SEND is taken: a refusal from now on is the next's. */
		if (late)
			naks = rnr_naks_sent();
		pattern(want, size, i);
		if (memcmp(buf + size, want, size) != 0)
			fail("SEND placed other bytes");
		/* The active side's SEND completed at its ACK: it may have
		 * written the next round's pattern already. */
		if (memcmp(buf, want, size) != 0) {
			pattern(want, size, i + 1);
			if (memcmp(buf, want, size) != 0)
				fail("WRITE placed other bytes");
		}
	}
}

/*
 * The extended counters after the traffic (attached: the daemon adapter's,
 * read from shared memory): names and values agree, frames counted, and
 * the generic counters read later are not below them.
 */
static void
check_xstats(void)
{
	static struct ndk_xstat_name names[256];
	struct ndk_xstat v[256];
	struct ndk_adapter_stats g;
	uint64_t rx = 0, tx = 0;
	int n = ndk_adapter_xstats_get_names(ad, NULL, 0);

	if (n <= 0 || n > (int)RTE_DIM(v) ||
	    ndk_adapter_xstats_get_names(ad, names, (unsigned int)n) != n ||
	    ndk_adapter_xstats_get(ad, v, (unsigned int)n) != n)
		fail("xstats");
	for (int i = 0; i < n; i++) {
		if (v[i].id != (uint64_t)i)
			fail("xstats out of order");
		if (strcmp(names[i].name, "rx_packets") == 0)
			rx = v[i].value;
		else if (strcmp(names[i].name, "tx_packets") == 0)
			tx = v[i].value;
	}
	ndk_adapter_get_stats(ad, &g);
	if (rx == 0 || tx == 0 || g.rx_packets < rx || g.tx_packets < tx)
		fail("xstats: frames not counted");
}

/* The SRQ left open for the adapter's close: its death, once. */
static int dead_notes;

static void
dying_notify(void *ctx, ndk_status_t st)
{
	RTE_SET_USED(ctx);
	if (st != NDK_STATUS_INTERNAL_ERROR) {
		fprintf(stderr, "attach-rdma: dying SRQ: %s\n",
			ndk_status_str(st));
		exit(1);
	}
	__atomic_fetch_add(&dead_notes, 1, __ATOMIC_RELEASE);
}

/*
 * Shared receive queues as the adapter info says, with a notification:
 * NdkModifySrq arming an empty SRQ at 2 notifies at once (attached:
 * through the event ring, at a poll), once. One more SRQ, with a callback,
 * on a PD of its own, is left open for the adapter's close.
 */
static void
check_srq(void)
{
	static int notes;
	struct ndk_adapter_info info;
	uint32_t sz = sizeof(info);
	struct ndk_srq *s = NULL, *dying = NULL;
	struct ndk_pd *pd2 = NULL;
	ndk_status_t st;

	if (ndk_query_adapter_info(ad, &info, &sz) != NDK_STATUS_SUCCESS ||
	    info.max_srq_depth == 0 || ndk_create_pd(ad, &pd2) !=
	    NDK_STATUS_SUCCESS)
		fail("adapter info, PD");
	st = ndk_create_srq(pd2, 4, 1, 0, count_note, &notes, &s);
	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "attach-rdma: create SRQ with a callback: "
			"%s\n", ndk_status_str(st));
		fail("SRQ with a notification callback");
	}
	if (ndk_modify_srq(s, 0, 2) != NDK_STATUS_SUCCESS)
		fail("arm SRQ");
	wait_notes(&notes, 1, "SRQ armed below its level");
	if (ndk_close_srq(s, NULL, NULL) != NDK_STATUS_SUCCESS)
		fail("close SRQ");
	for (int k = 0; k < 100; k++)
		ndk_adapter_poll(ad);
	if (__atomic_load_n(&notes, __ATOMIC_ACQUIRE) != 1)
		fail("SRQ: more than one notification for one arm");
	if (ndk_create_srq(pd2, 4, 1, 0, dying_notify, NULL, &dying) !=
	    NDK_STATUS_SUCCESS)
		fail("SRQ left open");
}

/*
 * NdkResizeCq and NdkControlCqInterruptModeration, both flags set: a
 * resize keeps what the CQ holds and the QP's CQ is read through after
 * its own resize (attached: the application reads the daemon's new ring).
 */
static void
check_cq_controls(void)
{
	const uint32_t both = NDK_ADAPTER_FLAG_CQ_RESIZE_SUPPORTED |
		NDK_ADAPTER_FLAG_CQ_INTERRUPT_MODERATION_SUPPORTED;
	struct ndk_adapter_info info;
	uint32_t sz = sizeof(info);
	struct ndk_cq *c = NULL;
	ndk_status_t rs, ms, bs;

	if (ndk_query_adapter_info(ad, &info, &sz) != NDK_STATUS_SUCCESS ||
	    ndk_create_cq(ad, 16, NULL, NULL, &c) != NDK_STATUS_SUCCESS)
		fail("adapter info, CQ");
	rs = ndk_resize_cq(c, 32);
	ms = ndk_control_cq_interrupt_moderation(c, 100, 8);
	bs = ndk_resize_cq(c, 0);
	if ((info.adapter_flags & both) != both || rs != NDK_STATUS_SUCCESS ||
	    ms != NDK_STATUS_SUCCESS || bs != NDK_STATUS_INVALID_PARAMETER) {
		fprintf(stderr, "attach-rdma: adapter flags 0x%x, resize CQ: "
			"%s, moderation: %s, resize to 0: %s\n",
			info.adapter_flags, ndk_status_str(rs),
			ndk_status_str(ms), ndk_status_str(bs));
		fail("CQ resize/moderation not as the adapter flags say");
	}
	if (ndk_close_cq(c, NULL, NULL) != NDK_STATUS_SUCCESS ||
	    ndk_resize_cq(cq, 128) != NDK_STATUS_SUCCESS)
		fail("close CQ, resize the QP's");
}

/*
 * The MR's close first (pending while frames sent from it are out), then
 * the QP's SRQ, CQ and PD before the QP: pending, none completing while
 * the QP is open, each completed once by the QP's close.
 */
static void
close_all(struct ndk_pd *pd, struct ndk_mr *mr)
{
	static int closed, mr_closed;
	ndk_status_t mst;
	int want = 2;

	ndk_deregister_mr(mr);
	mst = ndk_close_mr(mr, count_closed, &mr_closed);
	if (mst != NDK_STATUS_PENDING && mst != NDK_STATUS_SUCCESS)
		fail("close MR");
	if (srq != NULL) {
		if (ndk_close_srq(srq, count_closed, &closed) !=
		    NDK_STATUS_PENDING)
			fail("close of an SRQ a QP uses: not pending");
		want++;
	}
	if (ndk_close_cq(cq, count_closed, &closed) != NDK_STATUS_PENDING ||
	    ndk_close_pd(pd, count_closed, &closed) != NDK_STATUS_PENDING)
		fail("close of a CQ or PD a QP uses: not pending");
	for (int i = 0; i < 1000; i++)
		ndk_adapter_poll(ad);
	if (__atomic_load_n(&closed, __ATOMIC_ACQUIRE) != 0)
		fail("a close completed while the QP using it is open");
	ndk_close_qp(qp, NULL, NULL);
	wait_notes(&closed, want, "SRQ, CQ and PD close completions");
	wait_notes(&mr_closed, mst == NDK_STATUS_PENDING, "MR close");
	/* Each once: nothing more comes. */
	for (int i = 0; i < 1000; i++)
		ndk_adapter_poll(ad);
	if (__atomic_load_n(&closed, __ATOMIC_ACQUIRE) != want ||
	    __atomic_load_n(&mr_closed, __ATOMIC_ACQUIRE) !=
	    (mst == NDK_STATUS_PENDING))
		fail("a close completed more than once, or an inline one");
	printf("PENDING CLOSES OK mr=%s\n",
	       mst == NDK_STATUS_PENDING ? "pending" : "inline");
	fflush(stdout);
}

/* --die-pending: closes left pending, then killed (never returns). */
static void
hold_pending(struct ndk_pd *pd, struct ndk_mr *mr)
{
	ndk_deregister_mr(mr);
	ndk_close_mr(mr, NULL, NULL);
	if (ndk_close_cq(cq, NULL, NULL) != NDK_STATUS_PENDING ||
	    ndk_close_pd(pd, NULL, NULL) != NDK_STATUS_PENDING)
		fail("close of a CQ or PD a QP uses: not pending");
	printf("PENDING HELD\n");
	fflush(stdout);
	for (;;)
		ndk_adapter_poll(ad);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ip", required_argument, NULL, 'i' },
		{ "peer", required_argument, NULL, 'p' },
		{ "active", no_argument, NULL, 'a' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "size", required_argument, NULL, 's' },
		{ "queues", required_argument, NULL, 'q' },
		{ "srq", no_argument, NULL, 'S' },
		{ "late", no_argument, NULL, 'L' },
		{ "die-pending", no_argument, NULL, 'D' },
		{ NULL, 0, NULL, 0 },
	};
	struct ndk_adapter_config ac = {
		.port_id = 0, .configure_port = true,
		.socket_id = SOCKET_ID_ANY,
	};
	struct ndk_qp_attr at = { .max_rd_atomic = 4,
				  .max_dest_rd_atomic = 4 };
	uint32_t peer = 0, rounds = 100, size = 4096, token, rtoken;
	unsigned int rqpn;
	uint64_t rva;
	struct ndk_pd *pd;
	struct ndk_mr *mr;
	uint8_t *buf, *want;
	char line[128];
	bool active = false, use_srq = false, die_pending = false;
	int n, c;

	n = rte_eal_init(argc, argv);
	if (n < 0)
		fail("EAL");
	argc -= n;
	argv += n;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'i')
			inet_pton(AF_INET, optarg, &ac.ipv4);
		else if (c == 'p')
			inet_pton(AF_INET, optarg, &peer);
		else if (c == 'a')
			active = true;
		else if (c == 'r')
			rounds = (uint32_t)atoi(optarg);
		else if (c == 's')
			size = (uint32_t)atoi(optarg);
		else if (c == 'q')
			ac.nb_queues = (uint16_t)atoi(optarg);
		else if (c == 'S')
			use_srq = true;
		else if (c == 'L')
			late = true;
		else if (c == 'D')
			die_pending = true;
		else
			fail("usage: attach-rdma <EAL> -- --ip A --peer B");
	}
	if (ac.ipv4 == 0 || peer == 0 || size == 0)
		fail("--ip and --peer are needed");
	if (ndk_adapter_open(&ac, &ad) != NDK_STATUS_SUCCESS)
		fail("adapter");
	printf("OPEN\n");
	fflush(stdout);
	if (dapp_wait_link(0, WAIT_S) != 0)
		fail("link down");
	/* Attached: from our heap in the daemon, the only memory it lets
	 * us register; embedded: from the port's socket heap. */
	want = malloc(size);
	if (ndk_adapter_alloc_buffer(ad, 2 * (size_t)size, 64,
				     (void **)&buf) != NDK_STATUS_SUCCESS ||
	    want == NULL ||
	    ndk_create_pd(ad, &pd) != NDK_STATUS_SUCCESS ||
	    ndk_create_cq(ad, 64, count_note, &cq_notes, &cq) !=
	    NDK_STATUS_SUCCESS ||
	    (use_srq &&
	     ndk_create_srq(pd, 8, 1, 1, count_note, &srq_notes, &srq) !=
	     NDK_STATUS_SUCCESS) ||
	    (srq != NULL ?
	     ndk_create_qp_with_srq(pd, cq, cq, srq, NULL, 8, 1, 0, &qp) :
	     ndk_create_qp(pd, cq, cq, NULL, 8, 8, 1, 1, 0, &qp)) !=
	    NDK_STATUS_SUCCESS ||
	    ndk_create_mr(pd, false, &mr) != NDK_STATUS_SUCCESS ||
	    ndk_register_mr(mr, buf, 2 * (size_t)size,
			    NDK_MR_FLAG_ALLOW_LOCAL_WRITE |
			    NDK_MR_FLAG_ALLOW_REMOTE_READ |
			    NDK_MR_FLAG_ALLOW_REMOTE_WRITE) != NDK_STATUS_SUCCESS)
		fail("resources");
	check_srq();
	check_cq_controls();
	token = ndk_mr_local_token(mr);
	printf("INFO qpn=%u va=%" PRIu64 " token=%u\n", ndk_qp_num(qp),
	       (uint64_t)(uintptr_t)buf, ndk_mr_remote_token(mr));
	fflush(stdout);
	if (fgets(line, sizeof(line), stdin) == NULL ||
	    sscanf(line, "PEER qpn=%u va=%" SCNu64 " token=%u", &rqpn, &rva,
		   &rtoken) != 3)
		fail("no PEER line");
	at.dest_ip = peer;
	at.dest_qpn = rqpn;
	if (ndk_qp_connect(qp, &at) != NDK_STATUS_SUCCESS)
		fail("connect");
	if (active)
		run_active(buf, size, token, rva, rtoken, rounds, want);
	else
		run_passive(buf, size, token, rounds, want);
	check_xstats();
	printf("DONE\n");
	fflush(stdout);
	dapp_obey(ad);
	if (die_pending)
		hold_pending(pd, mr);
	close_all(pd, mr);
	ndk_adapter_free_buffer(ad, buf);
	ndk_adapter_close(ad);
	/* The SRQ check_srq() left open died with the adapter, once. */
	if (__atomic_load_n(&dead_notes, __ATOMIC_ACQUIRE) != 1)
		fail("SRQ left open: not told STATUS_INTERNAL_ERROR once");
	free(want);
	rte_eal_cleanup();
	printf("CLOSED\n");
	return 0;
}
