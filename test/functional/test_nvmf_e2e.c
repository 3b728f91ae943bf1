/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: lib/nvmf's host against lib/nvmf's target, both on swroce
 * adapters of a net_ring pair in one process. The host (adapter A, the
 * test thread on lcore 0) uses the public API of ndk_nvmf_host.h; the
 * target (adapter B) runs ndk_nvmf_tgt_poll() on lcore 2 and makes the
 * configuration changes the test asks of it there (a namespace, a
 * subsystem), as its threading rules want; lcore 1 polls both adapters.
 *
 * Cases:
 *  - events: data over two I/O queues; a namespace added to the subsystem
 *    reaches the host as an asynchronous event (notice, namespace
 *    attribute changed, log page 04h), the changed namespace list names
 *    it, and reading that page (without RAE) re-arms the event for the
 *    next namespace, delivered to the poll call this time; the SMART log
 *    counts the host's reads and writes; a read past the end fails with
 *    LBA Out of Range and the error log's newest entry says so; bad Get
 *    Log Page arguments are refused;
 *  - discovery: ndk_nvmf_discover() lists the subsystem (RDMA, IPv4, the
 *    target's address and port 4420), a subsystem added for another host
 *    stays invisible, one that allows any host appears, and the
 *    generation counter has moved;
 *  - reconnect: the target destroyed under a connected host (a read then
 *    ends with a path status or is refused, the admin queue reports the
 *    loss) and created again 1 s later: ndk_nvmf_ctrlr_reconnect() retries
 *    every 200 ms until it is back, then both I/O queues carry verified
 *    data; destroyed for good: reconnect gives up after ctrl_loss_tmo
 *    (4 s) and the controller closes without queues;
 *  (icd_direct, icd_lost, icd_loss and region_key are in nvmf_e2e_bufs.c,
 *  on this file's fixture: nvmf_e2e.h)
 *  - icd_direct: data buffers registered with
 *    ndk_nvmf_ctrlr_register_buffers(): a 4 KiB write from inside the
 *    region travels in the capsule without a copy (two SGEs), one from
 *    outside it or straddling its end is copied, a 16 KiB one stays keyed;
 *    each reads back identical; overlapping, NULL and empty regions are
 *    refused, and a fifth region (-ENOSPC);
 *  - icd_lost: in-capsule writes from a registered region (silent
 *    two-SGE SENDs) submitted after the target is gone: no response
 *    comes, and each write completes with a path status once the queue
 *    has failed and its drain is back, before the controller is closed;
 *  - icd_loss: in-capsule writes from a registered region, up to 14 in
 *    flight, over a link that drops 1 % and reorders 0.5 % of the frames
 *    each way (lib/netem); each buffer is overwritten as soon as its write
 *    completes, so a retransmission of its (silent) SEND made after the
 *    response would carry other bytes: the target must take it as the
 *    duplicate it is, and every block reads back as last written;
 *  - region_key: a region registered with NDK_NVMF_BUF_REMOTE: keyed reads
 *    and writes from it carry its long-lived token (no fast register, no
 *    invalidation), data read back identical; a buffer outside it still
 *    takes the fast-register path and its invalidation;
 *  - io_errors: file namespaces whose I/O fails in io_uring for real: a
 *    file truncated under the target (a read past its new end is short:
 *    Unrecovered Read Error at the host) and a sparse file on a 1 MiB
 *    tmpfs (writes past what fits get ENOSPC: Write Fault); every I/O
 *    completes, the queue stays up, the error log records it.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "ndk_nvmf.h"
#include "ndk_nvmf_host.h"
#include "nvme_spec.h"
#include "nvmf_e2e.h"
#include "nvmf_io_common.h"
#include "rc_common.h"

#define T_LCORE 2
#define T_NQN "nqn.2026-11.org.ndk-roce:e2e"
#define T_NQN2 "nqn.2026-11.org.ndk-roce:e2e-other"
#define T_NQN3 "nqn.2026-11.org.ndk-roce:e2e-any"
#define T_OTHER_HOST "nqn.2014-08.org.nvmexpress:uuid:" \
	"6e646b2d-726f-6365-0000-0000000000ee"
#define T_NS_BYTES (4u << 20)

/* What the target lcore is asked to do. */
enum t_op {
	T_NONE,
	T_ADD_NS,
	T_ADD_SUBSYS_OTHER,     /* T_NQN2 for T_OTHER_HOST only */
	T_ADD_SUBSYS_ANY,       /* T_NQN3, any host */
	T_STOP,                 /* destroy the target: every host loses it */
	T_START_LATER,          /* 1 s later, a new target */
	T_ADD_FILE_NS,          /* namespace T.file_nsid on T.file_path */
};

struct ndk_pair *g_p;

static struct {
	struct ndk_nvmf_tgt *tgt;
	struct ndk_nvmf_subsystem *sub;
	int op;
	int rc;
	int stop;
	const char *file_path;
	uint32_t file_nsid;
} T;

/* ------------------------------------------------------------------ */
/* The target's lcore                                                  */
/* ------------------------------------------------------------------ */

static int t_create(void);

static int
t_do(enum t_op op)
{
	struct ndk_nvmf_ns_config ns = {
		.type = NDK_NVMF_NS_MEM, .size = T_NS_BYTES,
		.block_size = T_BS,
	};
	struct ndk_nvmf_subsystem *s;
	int rc;

	switch (op) {
	case T_ADD_NS:
		return ndk_nvmf_subsystem_add_ns(T.sub, &ns, NULL);
	case T_ADD_SUBSYS_OTHER:
		rc = ndk_nvmf_tgt_add_subsystem(T.tgt, T_NQN2, NULL, false, &s);
		return rc != 0 ? rc : ndk_nvmf_subsystem_add_host(s,
								  T_OTHER_HOST);
	case T_ADD_SUBSYS_ANY:
		return ndk_nvmf_tgt_add_subsystem(T.tgt, T_NQN3, NULL, true,
						  &s);
	case T_STOP:
		ndk_nvmf_tgt_destroy(T.tgt);
		T.tgt = NULL;
		return 0;
	case T_START_LATER:
		rte_delay_us_sleep(1000 * 1000);
		return t_create();
	case T_ADD_FILE_NS:
		ns.type = NDK_NVMF_NS_FILE;
		ns.size = 0;            /* the file's */
		ns.path = T.file_path;
		ns.nsid = T.file_nsid;
		return ndk_nvmf_subsystem_add_ns(T.sub, &ns, NULL);
	default:
		return -EINVAL;
	}
}

static int
t_main(void *arg)
{
	int op;

	RTE_SET_USED(arg);
	while (!__atomic_load_n(&T.stop, __ATOMIC_ACQUIRE)) {
		if (T.tgt != NULL)
			ndk_nvmf_tgt_poll(T.tgt);
		op = __atomic_load_n(&T.op, __ATOMIC_ACQUIRE);
		if (op != T_NONE) {
			T.rc = t_do((enum t_op)op);
			__atomic_store_n(&T.op, T_NONE, __ATOMIC_RELEASE);
		}
	}
	return 0;
}

/* Have the target's lcore start @p op. */
static void
t_post(enum t_op op)
{
	__atomic_store_n(&T.op, op, __ATOMIC_RELEASE);
}

/* Have the target's lcore do @p op. @return its result. */
static int
t_call(enum t_op op)
{
	double end = ndk_pair_now() + WAIT_S;

	t_post(op);
	while (__atomic_load_n(&T.op, __ATOMIC_ACQUIRE) != T_NONE &&
	       ndk_pair_now() < end)
		;
	return __atomic_load_n(&T.op, __ATOMIC_ACQUIRE) == T_NONE ? T.rc :
		-ETIMEDOUT;
}

/* A target with one subsystem (any host), one memory namespace. */
int
e2e_target_destroy(void)
{
	return t_call(T_STOP);
}

static int
t_create(void)
{
	struct ndk_nvmf_tgt_config tc = {
		.poll_adapter = false,       /* lcore 1's poller does */
		.max_qpairs = 8,
		.max_ctrlrs = 4,
		.max_io_queues = 4,
		.max_queue_depth = 32,
		.nb_data_buffers = 8,
		.socket_id = SOCKET_ID_ANY,
	};
	struct ndk_nvmf_ns_config ns = {
		.type = NDK_NVMF_NS_MEM, .size = T_NS_BYTES,
		.block_size = T_BS,
	};

	tc.adapter = g_p->ad[1];
	if (ndk_nvmf_tgt_create(&tc, &T.tgt) != 0 ||
	    ndk_nvmf_tgt_add_subsystem(T.tgt, T_NQN, NULL, true, &T.sub) != 0 ||
	    ndk_nvmf_subsystem_add_ns(T.sub, &ns, NULL) != 0 ||
	    ndk_nvmf_tgt_listen(T.tgt, g_p->ipv4[1], 4420) != 0)
		return -1;
	return 0;
}

static int
t_start(void)
{
	memset(&T, 0, sizeof(T));
	g_p = pair_get(4096);
	if (g_p == NULL || t_create() != 0)
		return -1;
	return rte_eal_remote_launch(t_main, NULL, T_LCORE);
}

static void
t_stop(void)
{
	__atomic_store_n(&T.stop, 1, __ATOMIC_RELEASE);
	rte_eal_wait_lcore(T_LCORE);
	if (T.tgt != NULL)
		ndk_nvmf_tgt_destroy(T.tgt);
	T.tgt = NULL;
}

/* ------------------------------------------------------------------ */
/* The host's side                                                     */
/* ------------------------------------------------------------------ */

/* Events the callback received. */
static struct {
	int n;
	struct ndk_nvmf_async_event last;
} E;

static void
on_event(void *arg, const struct ndk_nvmf_async_event *ev)
{
	RTE_SET_USED(arg);
	E.last = *ev;
	E.n++;
}

static int
h_connect(struct ndk_nvmf_ctrlr **c, const char *nqn)
{
	struct ndk_nvmf_host_opts o;

	ndk_nvmf_host_opts_init(&o);
	o.traddr = g_p->ipv4[1];
	snprintf(o.subnqn, sizeof(o.subnqn), "%s", nqn);
	o.io_queue_size = 16;
	o.num_io_queues = 2;
	o.kato_ms = 5000;
	/* ndk_nvmf_ctrlr_reconnect(): the target's restart takes 1 s. */
	o.reconnect_delay_ms = 200;
	o.ctrl_loss_tmo_ms = 4000;
	return ndk_nvmf_ctrlr_connect(g_p->ad[0], &o, c);
}

/* Close the host's controller (if any) and stop the target: @return
 * @p rc, or -1 if the close failed. */
static int
h_finish(struct ndk_nvmf_ctrlr *c, int rc)
{
	if (c != NULL && ndk_nvmf_ctrlr_close(c) != 0 && rc == 0) {
		fprintf(stderr, "  FAIL close\n");
		rc = -1;
	}
	t_stop();
	return rc;
}

/* Get Log Page into @p buf, waited for. @return its status, or -1. */
static int
h_log(struct ndk_nvmf_ctrlr *c, uint8_t lid, void *buf, uint32_t len,
      bool rae)
{
	struct io io = { 0 };

	memset(buf, 0xA5, len);
	if (ndk_nvmf_ctrlr_get_log_page(c, lid, 0xFFFFFFFF, buf, len, 0, rae,
					io_done, &io) != 0 ||
	    io_wait(c, NULL, &io) != 0)
		return -1;
	return io.cpl.status;
}

/* Write then read back @p n blocks at @p lba on queue @p qp. */
int
h_rw(struct ndk_nvmf_ctrlr *c, struct ndk_nvmf_qpair *qp, uint8_t *buf,
     uint64_t lba, uint32_t n, uint32_t seed)
{
	struct io io = { 0 };

	ndk_pair_fill(buf, n * T_BS, seed);
	TEST_ASSERT_EQ(ndk_nvmf_write(qp, 1, buf, lba, n, io_done, &io), 0,
		       "write");
	TEST_ASSERT(io_wait(c, qp, &io) == 0 && io.cpl.status == 0,
		    "write completes: status %#x", io.cpl.status);
	memset(buf, 0, n * T_BS);
	memset(&io, 0, sizeof(io));
	TEST_ASSERT_EQ(ndk_nvmf_read(qp, 1, buf, lba, n, io_done, &io), 0,
		       "read");
	TEST_ASSERT(io_wait(c, qp, &io) == 0 && io.cpl.status == 0,
		    "read completes: status %#x", io.cpl.status);
	TEST_ASSERT_EQ(ndk_pair_check(buf, n * T_BS, seed), -1, "data");
	return 0;
}

static uint64_t
le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static int
events_body(struct ndk_nvmf_ctrlr *c, uint8_t *buf)
{
	const struct ndk_nvmf_ctrlr_info *ci = ndk_nvmf_ctrlr_get_info(c);
	const struct nvme_smart_log *sm = (const void *)buf;
	const struct nvme_error_log_entry *el = (const void *)buf;
	const uint32_t *list = (const void *)buf;
	struct ndk_nvmf_async_event ev;
	struct io io = { 0 };

	TEST_ASSERT_EQ(ci->num_io_queues, 2, "two I/O queues");
	TEST_ASSERT_EQ(ci->num_ns, 1, "one namespace");
	for (uint16_t q = 0; q < 2; q++)
		TEST_ASSERT(h_rw(c, ndk_nvmf_ctrlr_get_qpair(c, q), buf,
				 8 * q, 4, 7 + q) == 0, "data on queue %u",
			    q + 1);

	/* A namespace added: an event through the callback. */
	ndk_nvmf_ctrlr_set_event_cb(c, on_event, NULL);
	TEST_ASSERT_EQ(t_call(T_ADD_NS), 0, "namespace 2 added");
	TEST_ASSERT(io_wait_flag(c, NULL, &E.n) == 0, "an event arrives");
	TEST_ASSERT_EQ(E.n, 1, "one event");
	TEST_ASSERT_EQ(E.last.type, NVME_AER_TYPE_NOTICE, "notice");
	TEST_ASSERT_EQ(E.last.info, NVME_AER_NOTICE_NS_CHANGED, "ns changed");
	TEST_ASSERT_EQ(E.last.log_page, NVME_LOG_CHANGED_NS, "log 04h");
	TEST_ASSERT_EQ(h_log(c, E.last.log_page, buf, 4096, false), 0,
		       "changed namespace list");
	TEST_ASSERT(list[0] == 2 && list[1] == 0, "lists namespace 2 only "
		    "(%u, %u)", list[0], list[1]);

	/* Read without RAE: the next one comes, to the poll call. */
	ndk_nvmf_ctrlr_set_event_cb(c, NULL, NULL);
	TEST_ASSERT_EQ(ndk_nvmf_ctrlr_get_event(c, &ev), -EAGAIN, "none yet");
	TEST_ASSERT_EQ(t_call(T_ADD_NS), 0, "namespace 3 added");
	{
		double end = ndk_pair_now() + WAIT_S;
		int rc;

		while ((rc = ndk_nvmf_ctrlr_get_event(c, &ev)) == -EAGAIN &&
		       ndk_pair_now() < end)
			ndk_nvmf_ctrlr_process_admin(c);
		TEST_ASSERT_EQ(rc, 0, "the second event, polled");
	}
	TEST_ASSERT_EQ(ev.log_page, NVME_LOG_CHANGED_NS, "log 04h");
	TEST_ASSERT_EQ(h_log(c, NVME_LOG_CHANGED_NS, buf, 4096, false), 0, "");
	TEST_ASSERT_EQ(list[0], 3, "namespace 3");
	TEST_ASSERT_EQ(E.n, 1, "the callback no longer called");
	TEST_ASSERT_EQ(ndk_nvmf_ctrlr_events_dropped(c), 0, "none dropped");

	/* SMART: the reads and writes above. */
	TEST_ASSERT_EQ(h_log(c, NVME_LOG_SMART, buf, 512, false), 0, "SMART");
	TEST_ASSERT_EQ(le64(sm->host_writes), 2, "write commands");
	TEST_ASSERT_EQ(le64(sm->host_reads), 2, "read commands");

	/* An error: LBA out of range, then in the error log. */
	TEST_ASSERT_EQ(ndk_nvmf_read(ndk_nvmf_ctrlr_get_qpair(c, 0), 1, buf,
				     T_NS_BYTES / T_BS, 1, io_done, &io), 0,
		       "read past the end submitted");
	TEST_ASSERT(io_wait(c, ndk_nvmf_ctrlr_get_qpair(c, 0), &io) == 0,
		    "read past the end completes");
	TEST_ASSERT_EQ(ndk_nvmf_status_sct(io.cpl.status), NVME_SCT_GENERIC,
		       "");
	TEST_ASSERT_EQ(ndk_nvmf_status_sc(io.cpl.status),
		       NVME_SC_LBA_OUT_OF_RANGE, "LBA Out of Range");
	TEST_ASSERT_EQ(h_log(c, NVME_LOG_ERROR, buf, 4 * sizeof(*el), false),
		       0, "error log");
	TEST_ASSERT(el[0].error_count >= 1, "error count");
	TEST_ASSERT_EQ(el[0].sqid, 1, "on I/O queue 1");
	TEST_ASSERT_EQ((el[0].status >> 1) & 0xFF, NVME_SC_LBA_OUT_OF_RANGE,
		       "its status");

	/* Arguments the call refuses. */
	TEST_ASSERT_EQ(ndk_nvmf_ctrlr_get_log_page(c, 2, 0, buf, 510, 0, false,
						   io_done, &io), -EINVAL,
		       "length not a multiple of 4");
	TEST_ASSERT_EQ(ndk_nvmf_ctrlr_get_log_page(c, 2, 0, buf, 512, 2, false,
						   io_done, &io), -EINVAL,
		       "offset not a multiple of 4");
	TEST_ASSERT_EQ(ndk_nvmf_ctrlr_get_log_page(c, 2, 0, NULL, 512, 0,
						   false, io_done, &io),
		       -EINVAL, "no buffer");
	return 0;
}

static int
test_events(void)
{
	struct ndk_nvmf_ctrlr *c = NULL;
	uint8_t *buf;
	int rc = -1;

	memset(&E, 0, sizeof(E));
	buf = rte_zmalloc("e2e_buf", 64 * 1024, 4096);
	if (buf != NULL && t_start() == 0 && h_connect(&c, T_NQN) == 0)
		rc = events_body(c, buf);
	else
		fprintf(stderr, "  FAIL target start or host connect\n");
	rc = h_finish(c, rc);
	rte_free(buf);
	return rc;
}

/* Discover; @return how many entries name @p nqn, or -1. */
static int
disc_count(const char *nqn, uint32_t *num, uint64_t *gen)
{
	struct ndk_nvmf_disc_entry e[8];
	struct ndk_nvmf_host_opts o;
	char addr[INET_ADDRSTRLEN];
	int n = 0, rc;

	ndk_nvmf_host_opts_init(&o);
	o.traddr = g_p->ipv4[1];
	o.kato_ms = 0;
	rc = ndk_nvmf_discover(g_p->ad[0], &o, e, RTE_DIM(e), num, gen);
	if (rc != 0) {
		fprintf(stderr, "  discover: %s\n", strerror(-rc));
		return -1;
	}
	inet_ntop(AF_INET, &g_p->ipv4[1], addr, sizeof(addr));
	for (uint32_t i = 0; i < RTE_MIN(*num, (uint32_t)RTE_DIM(e)); i++) {
		printf("    entry %u: trtype %u adrfam %u subtype %u %s:%s %s\n",
		       i, e[i].trtype, e[i].adrfam, e[i].subtype, e[i].traddr,
		       e[i].trsvcid, e[i].subnqn);
		if (strcmp(e[i].subnqn, nqn) != 0)
			continue;
		if (e[i].trtype != NVMF_TRTYPE_RDMA ||
		    e[i].adrfam != NVMF_ADRFAM_IPV4 ||
		    e[i].subtype != NVMF_SUBTYPE_NVME ||
		    strcmp(e[i].traddr, addr) != 0 ||
		    strcmp(e[i].trsvcid, "4420") != 0) {
			fprintf(stderr, "  entry %u is wrong\n", i);
			return -1;
		}
		n++;
	}
	return n;
}

static int
discovery_body(void)
{
	uint64_t gen0, gen1, gen2;
	uint32_t num;

	TEST_ASSERT_EQ(disc_count(T_NQN, &num, &gen0), 1, "the subsystem");
	TEST_ASSERT_EQ(num, 1, "one record");
	TEST_ASSERT_EQ(t_call(T_ADD_SUBSYS_OTHER), 0, "subsystem 2 added");
	TEST_ASSERT_EQ(disc_count(T_NQN2, &num, &gen1), 0,
		       "another host's subsystem is not listed");
	TEST_ASSERT_EQ(num, 1, "still one record");
	TEST_ASSERT_EQ(t_call(T_ADD_SUBSYS_ANY), 0, "subsystem 3 added");
	TEST_ASSERT_EQ(disc_count(T_NQN3, &num, &gen2), 1, "subsystem 3");
	TEST_ASSERT_EQ(num, 2, "two records");
	TEST_ASSERT(gen1 > gen0 && gen2 > gen1, "generation counter %" PRIu64
		    ", %" PRIu64 ", %" PRIu64, gen0, gen1, gen2);
	return 0;
}

static int
test_discovery(void)
{
	int rc = -1;

	if (t_start() == 0)
		rc = discovery_body();
	else
		fprintf(stderr, "  FAIL target start\n");
	t_stop();
	return rc;
}

/* The target goes away: the queues fail, an I/O ends with a path status
 * (or is refused), and the controller is gone for the host. */
static int
lose_target(struct ndk_nvmf_ctrlr *c, uint8_t *buf)
{
	struct ndk_nvmf_qpair *qp = ndk_nvmf_ctrlr_get_qpair(c, 0);
	struct io io = { 0 };
	double end;
	int rc;

	TEST_ASSERT_EQ(t_call(T_STOP), 0, "target destroyed");
	rc = ndk_nvmf_read(qp, 1, buf, 0, 1, io_done, &io);
	if (rc == 0) {
		TEST_ASSERT(io_wait(c, qp, &io) == 0, "the read ends");
		TEST_ASSERT_EQ(ndk_nvmf_status_sct(io.cpl.status), 3,
			       "path status, not %#x", io.cpl.status);
	} else {
		TEST_ASSERT_EQ(rc, -ENOTCONN, "refused: the queue failed");
	}
	end = ndk_pair_now() + WAIT_S;
	while (ndk_nvmf_ctrlr_process_admin(c) != -ENOTCONN &&
	       ndk_pair_now() < end)
		;
	TEST_ASSERT_EQ(ndk_nvmf_ctrlr_process_admin(c), -ENOTCONN,
		       "the admin queue failed");
	return 0;
}

static int
reconnect_body(struct ndk_nvmf_ctrlr *c, uint8_t *buf)
{
	const struct ndk_nvmf_ctrlr_info *ci = ndk_nvmf_ctrlr_get_info(c);

	TEST_ASSERT(h_rw(c, ndk_nvmf_ctrlr_get_qpair(c, 0), buf, 0, 2, 1) == 0,
		    "data before");
	/* Lost, then back 1 s later: the attempts meanwhile are refused. */
	TEST_ASSERT(lose_target(c, buf) == 0, "target lost");
	t_post(T_START_LATER);
	TEST_ASSERT_EQ(ndk_nvmf_ctrlr_reconnect(c), 0, "reconnected");
	TEST_ASSERT_EQ(__atomic_load_n(&T.op, __ATOMIC_ACQUIRE), T_NONE,
		       "only once the target was back");
	TEST_ASSERT_EQ(ci->reconnects, 1, "counted");
	TEST_ASSERT_EQ(ci->num_io_queues, 2, "both I/O queues again");
	TEST_ASSERT_EQ(ndk_nvmf_ctrlr_process_admin(c), 0, "admin queue up");
	for (uint16_t q = 0; q < 2; q++)
		TEST_ASSERT(h_rw(c, ndk_nvmf_ctrlr_get_qpair(c, q), buf, 4 * q,
				 4, 20 + q) == 0, "data on queue %u", q + 1);
	/* Lost for good: the attempts stop after ctrl_loss_tmo_ms. */
	TEST_ASSERT(lose_target(c, buf) == 0, "target lost again");
	TEST_ASSERT(ndk_nvmf_ctrlr_reconnect(c) < 0, "no controller");
	TEST_ASSERT_EQ(ci->num_io_queues, 0, "no queue left");
	TEST_ASSERT(ndk_nvmf_ctrlr_get_qpair(c, 0) == NULL, "no handle");
	TEST_ASSERT_EQ(ndk_nvmf_ctrlr_process_admin(c), -ENOTCONN, "");
	return 0;
}

/*
 * Connect, run @p body with a 64 KiB buffer, close: a body that loses the
 * target leaves a controller whose shutdown fails (or that has no queue
 * left), which the close frees all the same.
 */
int
run_losing_target(int (*body)(struct ndk_nvmf_ctrlr *c, uint8_t *buf))
{
	struct ndk_nvmf_ctrlr *c = NULL;
	uint8_t *buf;
	int rc = -1;

	buf = rte_zmalloc("e2e_buf", 64 * 1024, 4096);
	if (buf != NULL && t_start() == 0 && h_connect(&c, T_NQN) == 0)
		rc = body(c, buf);
	else
		fprintf(stderr, "  FAIL target start or host connect\n");
	if (c != NULL)
		ndk_nvmf_ctrlr_close(c);
	t_stop();
	rte_free(buf);
	return rc;
}

static int
test_reconnect(void)
{
	return run_losing_target(reconnect_body);
}

/* Add namespace @p nsid on the file @p path of @p bytes (sparse). */
static int
add_file_ns(const char *path, uint32_t nsid, off_t bytes)
{
	int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);

	if (fd < 0 || ftruncate(fd, bytes) != 0) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	close(fd);
	T.file_path = path;
	T.file_nsid = nsid;
	return t_call(T_ADD_FILE_NS);
}

/* One I/O on namespace @p nsid, waited for. @return its status or -1. */
static int
one_io(struct ndk_nvmf_ctrlr *c, bool write, uint32_t nsid, uint8_t *buf,
       uint64_t lba, uint32_t nlb)
{
	struct ndk_nvmf_qpair *qp = ndk_nvmf_ctrlr_get_qpair(c, 0);
	struct io io = { 0 };
	int rc;

	rc = write ? ndk_nvmf_write(qp, nsid, buf, lba, nlb, io_done, &io) :
		ndk_nvmf_read(qp, nsid, buf, lba, nlb, io_done, &io);
	if (rc != 0 || io_wait(c, qp, &io) != 0)
		return -1;
	return io.cpl.status;
}

#define ST_MEDIA(sc) nvme_status(NVME_SCT_MEDIA, (sc), 1)   /* DNR set */

static int
io_errors_body(struct ndk_nvmf_ctrlr *c, uint8_t *buf, const char *shrink,
	       bool full)
{
	int st, failed = 0, ok = 0;

	/* A file that shrinks under the target: a read past its new end
	 * comes back short from io_uring, Unrecovered Read Error. */
	memset(buf, 0x5A, 65536);
	TEST_ASSERT_EQ(one_io(c, true, 3, buf, 0, 16), 0, "write to the file");
	TEST_ASSERT_EQ(one_io(c, false, 3, buf, 0, 16), 0, "read it");
	TEST_ASSERT_EQ(truncate(shrink, 4096), 0, "file truncated");
	st = one_io(c, false, 3, buf, 0, 16);
	TEST_ASSERT_EQ(st, ST_MEDIA(NVME_SC_UNRECOVERED_READ_ERROR),
		       "short read: SCT 2h SC 81h, not %#x", st);
	TEST_ASSERT_EQ(one_io(c, false, 3, buf, 0, 1), 0,
		       "the block still in the file reads");
	/* A file system that fills up: io_uring says ENOSPC, Write Fault,
	 * for every write that does not fit; none hangs. */
	if (full) {
		for (uint64_t lba = 0; lba < 1024; lba += 32) {
			st = one_io(c, true, 2, buf, lba, 32);
			TEST_ASSERT(st == 0 || st ==
				    ST_MEDIA(NVME_SC_WRITE_FAULTS),
				    "write at %" PRIu64 ": status %#x", lba, st);
			if (st == 0)
				ok++;
			else
				failed++;
		}
		printf("    full file system: %d writes of 128 KiB done, %d "
		       "Write Faults\n", ok, failed);
		TEST_ASSERT(ok > 0 && failed > 0, "some fit, the rest failed");
	}
	/* Statuses, not a failed queue: the controller carries on. */
	TEST_ASSERT(h_rw(c, ndk_nvmf_ctrlr_get_qpair(c, 0), buf, 0, 4, 9) == 0,
		    "memory namespace after the errors");
	TEST_ASSERT_EQ(h_log(c, NVME_LOG_ERROR, buf, 64, false), 0, "");
	TEST_ASSERT_EQ(((const struct nvme_error_log_entry *)buf)->status >> 9
		       & 7, NVME_SCT_MEDIA, "the error log has it");
	return 0;
}

/* Connect, run @p body with a 128 KiB and a 64 KiB buffer, close. */
int
run_with_bufs(int (*body)(struct ndk_nvmf_ctrlr *c, uint8_t *reg,
			  uint8_t *plain))
{
	struct ndk_nvmf_ctrlr *c = NULL;
	uint8_t *reg, *plain;
	int rc = -1;

	reg = rte_zmalloc("e2e_reg", 128 * 1024, 4096);
	plain = rte_zmalloc("e2e_plain", 64 * 1024, 4096);
	if (reg != NULL && plain != NULL && t_start() == 0 &&
	    h_connect(&c, T_NQN) == 0)
		rc = body(c, reg, plain);
	else
		fprintf(stderr, "  FAIL target start or host connect\n");
	rc = h_finish(c, rc);
	rte_free(reg);
	rte_free(plain);
	return rc;
}

static int
test_io_errors(void)
{
	char dir[] = "/tmp/nvmf_e2e_XXXXXX", full[64], shrink[64];
	struct ndk_nvmf_ctrlr *c = NULL;
	bool mounted = false;
	uint8_t *buf;
	int rc = -1;

	buf = rte_zmalloc("e2e_buf", 128 * 1024, 4096);
	if (buf == NULL || mkdtemp(dir) == NULL || t_start() != 0)
		goto out;
	snprintf(shrink, sizeof(shrink), "%s/shrink.img", dir);
	snprintf(full, sizeof(full), "%s/fs/full.img", dir);
	rc = add_file_ns(shrink, 3, 1 << 20);
	if (rc == -ENOTSUP) {
		printf("  (no liburing: file namespaces not built)\n");
		rc = NDK_TEST_SKIPPED;
		goto out;
	}
	if (rc != 0)
		goto out;
	/* A 1 MiB tmpfs under a 4 MiB sparse file (needs the right to
	 * mount; without it only the short read is checked). */
	snprintf(full, sizeof(full), "%s/fs", dir);
	if (mkdir(full, 0700) == 0 &&
	    mount("nvmf_e2e", full, "tmpfs", 0, "size=1m") == 0) {
		mounted = true;
		snprintf(full, sizeof(full), "%s/fs/full.img", dir);
		rc = add_file_ns(full, 2, 4 << 20);
		if (rc != 0)
			goto out;
	} else {
		printf("  (cannot mount a tmpfs: %s; no ENOSPC case)\n",
		       strerror(errno));
	}
	rc = h_connect(&c, T_NQN);
	if (rc == 0)
		rc = io_errors_body(c, buf, shrink, mounted);
out:
	if (c != NULL && ndk_nvmf_ctrlr_close(c) != 0 && rc == 0)
		rc = -1;
	t_stop();
	if (mounted) {
		unlink(full);
		snprintf(full, sizeof(full), "%s/fs", dir);
		umount(full);
	}
	snprintf(full, sizeof(full), "%s/fs", dir);
	rmdir(full);
	unlink(shrink);
	rmdir(dir);
	rte_free(buf);
	return rc;
}

int
main(int argc, char **argv)
{
	static const struct ndk_test_case cases[] = {
		{ "events", test_events },
		{ "discovery", test_discovery },
		{ "reconnect", test_reconnect },
		{ "icd_direct", test_icd_direct },
		{ "icd_lost", test_icd_lost },
		{ "icd_loss", test_icd_loss },
		{ "region_key", test_region_key },
		{ "io_errors", test_io_errors },
	};
	int rc;

	/* Lcore 1 polls both adapters, lcore 2 is the target. */
	if (ndk_test_eal_init("test_nvmf_e2e", "(0-2)@(0-1)", NULL) != 0)
		return 1;
	rc = ndk_test_run("nvmf_e2e", cases, RTE_DIM(cases), argc, argv);
	ndk_pair_destroy(g_p);
	rte_eal_cleanup();
	return rc;
}
