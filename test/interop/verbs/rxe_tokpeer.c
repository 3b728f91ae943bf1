/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rxe_tokpeer: the guest's half of the tokens_rxe interop test. A small
 * libibverbs program, built on the host against Debian's libibverbs-dev and
 * run in the rxe guest from its /share directory:
 *
 *   rxe_tokpeer [-d rxe1] [-g 1] [-p 18600] [-t 120]
 *
 * It listens on TCP (the guest's eth0), takes one connection from the
 * host's test program (tok_host.c) and carries out its requests, one line
 * each (tok_proto.h): it creates RC QPs connected to the host's ndk-roce
 * QPs (a fresh one per request, since an expected error leaves a QP in
 * ERROR), exposes remote tokens -- type-2 memory windows bound with
 * IBV_WR_BIND_MW over a plain MR without remote rights, or plain MRs with
 * remote rights -- filled with a known pattern between guard bytes, checks
 * them against a shadow copy on request, reports its receive completions
 * (IBV_WC_WITH_INV and wc.invalidated_rkey included) and posts SENDs (with
 * Invalidate), RDMA READs and RDMA WRITEs naming the host's tokens,
 * reporting each completion's status. It judges nothing itself: the host
 * does, from the answers.
 *
 * Every request and answer is echoed on stdout. Exit status: 0 after BYE,
 * 1 when the connection broke or a request could not be parsed, 2 when the
 * device could not be set up.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "tok_proto.h"

#define NRECV 4                 /* receives posted on every new QP */
#define RECV_SZ 4096u           /* bytes of each */
#define SCRATCH_SZ 65536u       /* READ sink / WRITE and SEND source */
#define MAX_REGIONS 16
#define MAX_REGION_LEN (1u << 20)
#define WC_TIMEOUT_MS 20000     /* a completion must come within this */
#define POISON_SEED 0x5eedU     /* what a READ sink holds before the READ */

/** One region the host can reach: [guard | len bytes | guard]. */
struct region {
	uint32_t id;
	bool window;         /* a type-2 MW over an MR without remote rights */
	uint8_t *mem;
	uint8_t *shadow;     /* what mem must hold */
	size_t len;
	struct ibv_mr *mr;
	struct ibv_mw *mw;   /* bound on the current QP (NULL: none) */
	uint32_t rkey;       /* the token the host was given */
};

struct peer {
	/* options */
	const char *dev_name;
	int gid_idx;
	uint16_t tcp_port;
	int timeout_s;

	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_device_attr dattr;
	union ibv_gid gid;

	/* the current QP and its CQs */
	struct ibv_qp *qp;
	struct ibv_cq *scq, *rcq;
	uint32_t psn;

	uint8_t *scratch;
	struct ibv_mr *scratch_mr;
	uint8_t *rbufs;              /* NRECV x RECV_SZ */
	struct ibv_mr *rbufs_mr;

	struct region reg[MAX_REGIONS];
	uint32_t nreg;
	int fd;
};

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

static void
logf_(const char *fmt, ...)
{
	struct timespec ts;
	va_list ap;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("[%5ld.%03ld] ", (long)ts.tv_sec % 100000,
	       ts.tv_nsec / 1000000);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* Answer the current request; echoed on stdout. */
static int
answer(struct peer *p, const char *fmt, ...)
{
	char line[TOK_LINE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	logf_("<- %s", line);
	return tok_send_line(p->fd, "%s", line);
}

/* ibv_wc_status_str() as one word ("remote access error" -> ..._). */
static const char *
status_word(enum ibv_wc_status st)
{
	static char buf[64];
	size_t i;

	snprintf(buf, sizeof(buf), "%s", ibv_wc_status_str(st));
	for (i = 0; buf[i] != '\0'; i++)
		if (buf[i] == ' ')
			buf[i] = '_';
	return buf;
}

static const char *
qp_state_str(enum ibv_qp_state s)
{
	static const char *const names[] = {
		[IBV_QPS_RESET] = "RESET", [IBV_QPS_INIT] = "INIT",
		[IBV_QPS_RTR] = "RTR", [IBV_QPS_RTS] = "RTS",
		[IBV_QPS_SQD] = "SQD", [IBV_QPS_SQE] = "SQE",
		[IBV_QPS_ERR] = "ERR",
	};

	return (unsigned int)s < sizeof(names) / sizeof(names[0]) &&
		names[s] != NULL ? names[s] : "UNKNOWN";
}

static enum ibv_mtu
mtu_enum(uint64_t bytes)
{
	switch (bytes) {
	case 256: return IBV_MTU_256;
	case 512: return IBV_MTU_512;
	case 2048: return IBV_MTU_2048;
	case 4096: return IBV_MTU_4096;
	default: return IBV_MTU_1024;
	}
}

/**
 * Wait up to WC_TIMEOUT_MS for one completion on @p cq.
 * @return 0 with *wc filled, -1 on timeout or poll error.
 */
static int
wait_wc(struct ibv_cq *cq, struct ibv_wc *wc)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n < 0)
			return -1;
		if (n == 1)
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 +
		    (t.tv_nsec - t0.tv_nsec) / 1000000 > WC_TIMEOUT_MS)
			return -1;
		/* One vCPU: leave it to rxe's tasks between polls. */
		usleep(200);
	}
}

/* Answer with a send-side completion's outcome. */
static int
answer_wc(struct peer *p, const struct ibv_wc *wc, const char *extra)
{
	return answer(p, "OK status=%s status_code=%d opcode=%d vendor_err=0x%x%s",
		      status_word(wc->status), (int)wc->status,
		      (int)wc->opcode, wc->vendor_err, extra);
}

static struct region *
region_get(struct peer *p, const char *line)
{
	uint64_t id;

	if (!tok_kv_u64(line, "id", &id) || id >= p->nreg)
		return NULL;
	return &p->reg[id];
}

/* ------------------------------------------------------------------ */
/* QPs                                                                 */
/* ------------------------------------------------------------------ */

/* Windows are bound to a QP (type 2B): they go with it. */
static void
qp_destroy(struct peer *p)
{
	for (uint32_t i = 0; i < p->nreg; i++) {
		if (p->reg[i].mw == NULL)
			continue;
		if (ibv_dealloc_mw(p->reg[i].mw) != 0)
			logf_("ibv_dealloc_mw(region %u): %s", i,
			      strerror(errno));
		p->reg[i].mw = NULL;
	}
	if (p->qp != NULL && ibv_destroy_qp(p->qp) != 0)
		logf_("ibv_destroy_qp: %s", strerror(errno));
	if (p->scq != NULL)
		ibv_destroy_cq(p->scq);
	if (p->rcq != NULL)
		ibv_destroy_cq(p->rcq);
	p->qp = NULL;
	p->scq = NULL;
	p->rcq = NULL;
}

static int
post_recv(struct peer *p, uint32_t i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(p->rbufs + (size_t)i * RECV_SZ),
		.length = RECV_SZ,
		.lkey = p->rbufs_mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = i, .sg_list = &sge, .num_sge = 1,
	}, *bad;

	memset(p->rbufs + (size_t)i * RECV_SZ, 0, RECV_SZ);
	return ibv_post_recv(p->qp, &wr, &bad);
}

/**
 * QP qpn= psn= gid= mtu= [retry=]: a fresh RC QP, INIT -> RTR -> RTS
 * towards the host's QP, NRECV receives posted.
 */
static int
cmd_qp(struct peer *p, const char *line)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	uint64_t qpn, psn, mtu = 1024, retry = 3;
	char gid_s[INET6_ADDRSTRLEN], my_gid[INET6_ADDRSTRLEN];
	union ibv_gid dgid;

	if (!tok_kv_u64(line, "qpn", &qpn) || !tok_kv_u64(line, "psn", &psn) ||
	    !tok_kv_str(line, "gid", gid_s, sizeof(gid_s)) ||
	    inet_pton(AF_INET6, gid_s, dgid.raw) != 1)
		return answer(p, "ERR QP needs qpn= psn= gid=");
	tok_kv_u64(line, "mtu", &mtu);
	tok_kv_u64(line, "retry", &retry);
	qp_destroy(p);

	p->scq = ibv_create_cq(p->ctx, 32, NULL, NULL, 0);
	p->rcq = ibv_create_cq(p->ctx, 32, NULL, NULL, 0);
	if (p->scq == NULL || p->rcq == NULL)
		return answer(p, "ERR ibv_create_cq: %s", strerror(errno));
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = p->scq;
	ia.recv_cq = p->rcq;
	ia.cap.max_send_wr = 16;
	ia.cap.max_recv_wr = NRECV;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.qp_type = IBV_QPT_RC;
	ia.sq_sig_all = 1;
	p->qp = ibv_create_qp(p->pd, &ia);
	if (p->qp == NULL)
		return answer(p, "ERR ibv_create_qp: %s", strerror(errno));

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE;
	if (ibv_modify_qp(p->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) != 0)
		return answer(p, "ERR modify to INIT: %s", strerror(errno));
	for (uint32_t i = 0; i < NRECV; i++)
		if (post_recv(p, i) != 0)
			return answer(p, "ERR ibv_post_recv: %s",
				      strerror(errno));

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = mtu_enum(mtu);
	a.dest_qp_num = (uint32_t)qpn & 0xffffff;
	a.rq_psn = (uint32_t)psn & 0xffffff;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = dgid;
	a.ah_attr.grh.sgid_index = (uint8_t)p->gid_idx;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(p->qp, &a, IBV_QP_STATE | IBV_QP_AV |
			  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER) != 0)
		return answer(p, "ERR modify to RTR: %s", strerror(errno));

	p->psn = (uint32_t)lrand48() & 0xffffff;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = (uint8_t)(retry > 6 ? 6 : retry);
	a.rnr_retry = 6;
	a.sq_psn = p->psn;
	a.max_rd_atomic = 4;
	if (ibv_modify_qp(p->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			  IBV_QP_MAX_QP_RD_ATOMIC) != 0)
		return answer(p, "ERR modify to RTS: %s", strerror(errno));
	inet_ntop(AF_INET6, p->gid.raw, my_gid, sizeof(my_gid));
	return answer(p, "OK qpn=0x%06x psn=0x%06x gid=%s", p->qp->qp_num,
		      p->psn, my_gid);
}

/* ------------------------------------------------------------------ */
/* Regions                                                             */
/* ------------------------------------------------------------------ */

/**
 * Post IBV_WR_BIND_MW of region @p r's window and wait for it.
 * @return 0, or -1 with the reason in @p why.
 */
static int
bind_window(struct peer *p, struct region *r, char *why, size_t n)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_wc wc;
	uint32_t rkey;

	r->mw = ibv_alloc_mw(p->pd, IBV_MW_TYPE_2);
	if (r->mw == NULL) {
		snprintf(why, n, "ibv_alloc_mw(TYPE_2): %s", strerror(errno));
		return -1;
	}
	/* The consumer picks the key byte of a type-2 window's rkey. */
	rkey = ibv_inc_rkey(r->mw->rkey);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 0xb1d;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.bind_mw.mw = r->mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info.mr = r->mr;
	wr.bind_mw.bind_info.addr = (uintptr_t)(r->mem + TOK_GUARD);
	wr.bind_mw.bind_info.length = r->len;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ |
		IBV_ACCESS_REMOTE_WRITE;
	if (ibv_post_send(p->qp, &wr, &bad) != 0) {
		snprintf(why, n, "ibv_post_send(BIND_MW): %s", strerror(errno));
		return -1;
	}
	if (wait_wc(p->scq, &wc) != 0) {
		snprintf(why, n, "no BIND_MW completion");
		return -1;
	}
	if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_BIND_MW) {
		snprintf(why, n, "BIND_MW completion: %s opcode %d",
			 ibv_wc_status_str(wc.status), (int)wc.opcode);
		return -1;
	}
	r->mw->rkey = rkey;
	r->rkey = rkey;
	return 0;
}

static void
region_free(struct region *r)
{
	if (r->mw != NULL)
		ibv_dealloc_mw(r->mw);
	if (r->mr != NULL)
		ibv_dereg_mr(r->mr);
	free(r->mem);
	free(r->shadow);
	memset(r, 0, sizeof(*r));
}

/** MW len= / MR len=: a new region (see tok_proto.h). */
static int
cmd_region(struct peer *p, const char *line, bool window)
{
	char why[160] = "";
	struct region *r;
	uint64_t len;
	size_t total;
	int acc;

	if (!tok_kv_u64(line, "len", &len) || len == 0 ||
	    len > MAX_REGION_LEN)
		return answer(p, "ERR len= missing or out of range");
	if (p->nreg == MAX_REGIONS)
		return answer(p, "ERR too many regions");
	if (window && p->qp == NULL)
		return answer(p, "ERR a window needs a QP (QP first)");
	r = &p->reg[p->nreg];
	memset(r, 0, sizeof(*r));
	r->id = p->nreg;
	r->window = window;
	r->len = len;
	total = len + 2 * TOK_GUARD;
	if (posix_memalign((void **)&r->mem, 4096, total) != 0 ||
	    (r->shadow = malloc(total)) == NULL) {
		region_free(r);
		return answer(p, "ERR out of memory");
	}
	tok_fill(r->mem, TOK_GUARD, TOK_SEED_GUARD, 0);
	tok_fill(r->mem + TOK_GUARD, len, 0x1000 + r->id, 0);
	tok_fill(r->mem + TOK_GUARD + len, TOK_GUARD, TOK_SEED_GUARD,
		 TOK_GUARD);
	memcpy(r->shadow, r->mem, total);
	/*
	 * A window's MR has no remote rights of its own: the window is the
	 * only way in. Binding needs MW_BIND, and LOCAL_WRITE for a window
	 * with remote write (C10-74).
	 */
	acc = IBV_ACCESS_LOCAL_WRITE | (window ? IBV_ACCESS_MW_BIND :
		IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
	r->mr = ibv_reg_mr(p->pd, r->mem, total, acc);
	if (r->mr == NULL)
		snprintf(why, sizeof(why), "ibv_reg_mr: %s", strerror(errno));
	if (r->mr == NULL || (window && bind_window(p, r, why,
						    sizeof(why)) != 0)) {
		region_free(r);
		return answer(p, "ERR %s", why);
	}
	if (!window)
		r->rkey = r->mr->rkey;
	p->nreg++;
	return answer(p, "OK id=%u addr=0x%" PRIxPTR " rkey=0x%08x len=%zu "
		      "seed=0x%x mr_rkey=0x%08x", r->id,
		      (uintptr_t)(r->mem + TOK_GUARD), r->rkey, r->len,
		      0x1000 + r->id, r->mr->rkey);
}

/* CHECK id= and WROTE id= off= len= seed= */
static int
cmd_check(struct peer *p, const char *line, bool wrote)
{
	struct region *r = region_get(p, line);
	size_t total;

	if (r == NULL)
		return answer(p, "ERR no such region");
	total = r->len + 2 * TOK_GUARD;
	if (wrote) {
		uint64_t off, len, seed;

		if (!tok_kv_u64(line, "off", &off) ||
		    !tok_kv_u64(line, "len", &len) ||
		    !tok_kv_u64(line, "seed", &seed) || off > r->len ||
		    len > r->len - off)
			return answer(p, "ERR WROTE needs off= len= seed= "
				      "inside the region");
		tok_fill(r->shadow + TOK_GUARD + off, len, (uint32_t)seed, 0);
	}
	for (size_t i = 0; i < total; i++) {
		if (r->mem[i] == r->shadow[i])
			continue;
		return answer(p, "OK id=%u diff=%zu where=%s got=0x%02x "
			      "want=0x%02x", r->id, i,
			      i < TOK_GUARD ? "guard_below" :
			      i < TOK_GUARD + r->len ? "token" : "guard_above",
			      r->mem[i], r->shadow[i]);
	}
	return answer(p, "OK id=%u diff=-1 bytes=%zu", r->id, total);
}

/* ------------------------------------------------------------------ */
/* Operations                                                          */
/* ------------------------------------------------------------------ */

/*
 * The kernel's IB_WC_WITH_INVALIDATE. rxe writes its completions for user
 * space into a ring that the rxe provider copies into struct ibv_wc as
 * they are, kernel flag values included: the kernel's WITH_INVALIDATE is
 * bit 2, which libibverbs names IBV_WC_IP_CSUM_OK; IBV_WC_WITH_INV is bit
 * 3. RECV reports both, and wc.invalidated_rkey whatever the flags say.
 */
#define KERNEL_WC_WITH_INVALIDATE (1u << 2)

/* RECV len= seed=: the next receive completion. */
static int
cmd_recv(struct peer *p, const char *line)
{
	uint64_t len = 0, seed = 0;
	struct ibv_wc wc;
	const char *data = "none";
	int rc;

	if (p->qp == NULL)
		return answer(p, "ERR no QP");
	tok_kv_u64(line, "len", &len);
	tok_kv_u64(line, "seed", &seed);
	if (wait_wc(p->rcq, &wc) != 0)
		return answer(p, "ERR no receive completion in %d ms",
			      WC_TIMEOUT_MS);
	if (wc.status == IBV_WC_SUCCESS && wc.wr_id < NRECV) {
		const uint8_t *b = p->rbufs + wc.wr_id * RECV_SZ;

		data = wc.byte_len == len &&
			tok_diff(b, len, (uint32_t)seed, 0) < 0 ? "ok" : "bad";
	}
	rc = answer(p, "OK status=%s status_code=%d opcode=%d byte_len=%u "
		    "wc_flags=0x%x with_inv=%d kernel_with_inv=%d "
		    "inv_rkey=0x%08x data=%s", status_word(wc.status),
		    (int)wc.status, (int)wc.opcode, wc.byte_len,
		    (unsigned int)wc.wc_flags,
		    (wc.wc_flags & IBV_WC_WITH_INV) ? 1 : 0,
		    (wc.wc_flags & KERNEL_WC_WITH_INVALIDATE) ? 1 : 0,
		    wc.invalidated_rkey, data);
	/* Give the buffer back (fails harmlessly on a QP in error). */
	if (wc.status == IBV_WC_SUCCESS && wc.wr_id < NRECV)
		post_recv(p, (uint32_t)wc.wr_id);
	return rc;
}

/* SEND len= seed= [inv=]: SEND or SEND with Invalidate, one completion. */
static int
cmd_send(struct peer *p, const char *line)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	uint64_t len, seed, inv;
	bool with_inv;

	if (p->qp == NULL)
		return answer(p, "ERR no QP");
	if (!tok_kv_u64(line, "len", &len) || !tok_kv_u64(line, "seed", &seed) ||
	    len > SCRATCH_SZ)
		return answer(p, "ERR SEND needs len= seed=");
	with_inv = tok_kv_u64(line, "inv", &inv);
	tok_fill(p->scratch, len, (uint32_t)seed, 0);
	sge.addr = (uintptr_t)p->scratch;
	sge.length = (uint32_t)len;
	sge.lkey = p->scratch_mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 0x5e;
	wr.sg_list = &sge;
	wr.num_sge = len != 0;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.opcode = with_inv ? IBV_WR_SEND_WITH_INV : IBV_WR_SEND;
	if (with_inv)
		wr.invalidate_rkey = (uint32_t)inv;
	if (ibv_post_send(p->qp, &wr, &bad) != 0)
		return answer(p, "ERR ibv_post_send(SEND%s): %s",
			      with_inv ? "_WITH_INV" : "", strerror(errno));
	if (wait_wc(p->scq, &wc) != 0)
		return answer(p, "ERR no SEND completion in %d ms",
			      WC_TIMEOUT_MS);
	return answer_wc(p, &wc, "");
}

/*
 * READ / WRITE addr= rkey= len= seed= [idx=]: one RDMA operation on the
 * host's memory. A WRITE sends pattern @seed from index 0; a READ must
 * return pattern @seed from index @idx (data=ok/bad), and when it fails
 * its sink must be untouched (data=untouched/changed).
 */
static int
cmd_rdma(struct peer *p, const char *line, bool read)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	uint64_t addr, rkey, len, seed, idx = 0;
	char extra[64] = "";

	if (p->qp == NULL)
		return answer(p, "ERR no QP");
	if (!tok_kv_u64(line, "addr", &addr) || !tok_kv_u64(line, "rkey", &rkey) ||
	    !tok_kv_u64(line, "len", &len) || !tok_kv_u64(line, "seed", &seed) ||
	    len == 0 || len > SCRATCH_SZ)
		return answer(p, "ERR %s needs addr= rkey= len= seed=",
			      read ? "READ" : "WRITE");
	tok_kv_u64(line, "idx", &idx);
	if (read)
		tok_fill(p->scratch, len, POISON_SEED, 0);
	else
		tok_fill(p->scratch, len, (uint32_t)seed, 0);
	sge.addr = (uintptr_t)p->scratch;
	sge.length = (uint32_t)len;
	sge.lkey = p->scratch_mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = read ? 0x4ead : 0x941e;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.opcode = read ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = addr;
	wr.wr.rdma.rkey = (uint32_t)rkey;
	if (ibv_post_send(p->qp, &wr, &bad) != 0)
		return answer(p, "ERR ibv_post_send(%s): %s",
			      read ? "RDMA_READ" : "RDMA_WRITE",
			      strerror(errno));
	if (wait_wc(p->scq, &wc) != 0)
		return answer(p, "ERR no %s completion in %d ms",
			      read ? "READ" : "WRITE", WC_TIMEOUT_MS);
	if (read) {
		const char *d;

		if (wc.status == IBV_WC_SUCCESS)
			d = tok_diff(p->scratch, len, (uint32_t)seed,
				     idx) < 0 ? "ok" : "bad";
		else
			d = tok_diff(p->scratch, len, POISON_SEED, 0) < 0 ?
				"untouched" : "changed";
		snprintf(extra, sizeof(extra), " data=%s", d);
	}
	return answer_wc(p, &wc, extra);
}

static int
cmd_state(struct peer *p)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	if (p->qp == NULL)
		return answer(p, "OK state=NONE");
	if (ibv_query_qp(p->qp, &a, IBV_QP_STATE, &ia) != 0)
		return answer(p, "ERR ibv_query_qp: %s", strerror(errno));
	return answer(p, "OK state=%s qpn=0x%06x", qp_state_str(a.qp_state),
		      p->qp->qp_num);
}

static int
cmd_hello(struct peer *p)
{
	struct ibv_port_attr pa;
	char gid[INET6_ADDRSTRLEN];

	if (ibv_query_port(p->ctx, 1, &pa) != 0 ||
	    ibv_query_gid(p->ctx, 1, p->gid_idx, &p->gid) != 0)
		return answer(p, "ERR ibv_query_port/gid: %s", strerror(errno));
	inet_ntop(AF_INET6, p->gid.raw, gid, sizeof(gid));
	return answer(p, "OK dev=%s gid_index=%d gid=%s port_state=%d "
		      "port_state_name=%s active_mtu=%d mw_type2b=%d max_mw=%d",
		      p->dev_name, p->gid_idx, gid, (int)pa.state,
		      ibv_port_state_str(pa.state),
		      128 << pa.active_mtu,
		      (p->dattr.device_cap_flags &
		       IBV_DEVICE_MEM_WINDOW_TYPE_2B) ? 1 : 0,
		      p->dattr.max_mw);
}

/* ------------------------------------------------------------------ */
/* Set-up and the request loop                                         */
/* ------------------------------------------------------------------ */

static int
open_device(struct peer *p)
{
	struct ibv_device **list = ibv_get_device_list(NULL);

	for (int i = 0; list != NULL && list[i] != NULL; i++)
		if (strcmp(ibv_get_device_name(list[i]), p->dev_name) == 0)
			p->ctx = ibv_open_device(list[i]);
	if (list != NULL)
		ibv_free_device_list(list);
	if (p->ctx == NULL) {
		fprintf(stderr, "rxe_tokpeer: cannot open %s\n", p->dev_name);
		return -1;
	}
	if (ibv_query_device(p->ctx, &p->dattr) != 0 ||
	    ibv_query_gid(p->ctx, 1, p->gid_idx, &p->gid) != 0) {
		fprintf(stderr, "rxe_tokpeer: query device/GID: %s\n",
			strerror(errno));
		return -1;
	}
	p->pd = ibv_alloc_pd(p->ctx);
	if (p->pd == NULL ||
	    posix_memalign((void **)&p->scratch, 4096, SCRATCH_SZ) != 0 ||
	    posix_memalign((void **)&p->rbufs, 4096, NRECV * RECV_SZ) != 0) {
		fprintf(stderr, "rxe_tokpeer: PD/memory\n");
		return -1;
	}
	p->scratch_mr = ibv_reg_mr(p->pd, p->scratch, SCRATCH_SZ,
				   IBV_ACCESS_LOCAL_WRITE);
	p->rbufs_mr = ibv_reg_mr(p->pd, p->rbufs, NRECV * RECV_SZ,
				 IBV_ACCESS_LOCAL_WRITE);
	if (p->scratch_mr == NULL || p->rbufs_mr == NULL) {
		fprintf(stderr, "rxe_tokpeer: ibv_reg_mr: %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

/* Listen on TCP, accept one connection within the timeout. */
static int
accept_host(struct peer *p)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct pollfd pfd;
	int lfd, one = 1, fd;

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0)
		return -1;
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sin.sin_port = htons(p->tcp_port);
	sin.sin_addr.s_addr = htonl(INADDR_ANY);
	if (bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) != 0 ||
	    listen(lfd, 1) != 0) {
		fprintf(stderr, "rxe_tokpeer: listen on %u: %s\n",
			p->tcp_port, strerror(errno));
		close(lfd);
		return -1;
	}
	logf_("listening on TCP %u", p->tcp_port);
	pfd.fd = lfd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, p->timeout_s * 1000) != 1) {
		fprintf(stderr, "rxe_tokpeer: nobody connected in %d s\n",
			p->timeout_s);
		close(lfd);
		return -1;
	}
	fd = accept(lfd, NULL, NULL);
	close(lfd);
	return fd;
}

/* @return 0 on BYE, 1 when the connection broke. */
static int
serve(struct peer *p)
{
	char line[TOK_LINE_MAX];

	for (;;) {
		int rc;

		if (tok_recv_line(p->fd, line, sizeof(line),
				  p->timeout_s * 1000) < 0) {
			logf_("connection: %s", strerror(errno));
			return 1;
		}
		logf_("-> %s", line);
		if (tok_is_verb(line, "HELLO"))
			rc = cmd_hello(p);
		else if (tok_is_verb(line, "QP"))
			rc = cmd_qp(p, line);
		else if (tok_is_verb(line, "MW"))
			rc = cmd_region(p, line, true);
		else if (tok_is_verb(line, "MR"))
			rc = cmd_region(p, line, false);
		else if (tok_is_verb(line, "CHECK"))
			rc = cmd_check(p, line, false);
		else if (tok_is_verb(line, "WROTE"))
			rc = cmd_check(p, line, true);
		else if (tok_is_verb(line, "RECV"))
			rc = cmd_recv(p, line);
		else if (tok_is_verb(line, "SEND"))
			rc = cmd_send(p, line);
		else if (tok_is_verb(line, "READ"))
			rc = cmd_rdma(p, line, true);
		else if (tok_is_verb(line, "WRITE"))
			rc = cmd_rdma(p, line, false);
		else if (tok_is_verb(line, "STATE"))
			rc = cmd_state(p);
		else if (tok_is_verb(line, "BYE"))
			return answer(p, "OK bye") == 0 ? 0 : 1;
		else
			rc = answer(p, "ERR unknown request");
		if (rc != 0)
			return 1;       /* the answer could not be sent */
	}
}

static void
cleanup(struct peer *p)
{
	qp_destroy(p);
	for (uint32_t i = 0; i < p->nreg; i++)
		region_free(&p->reg[i]);
	if (p->scratch_mr != NULL)
		ibv_dereg_mr(p->scratch_mr);
	if (p->rbufs_mr != NULL)
		ibv_dereg_mr(p->rbufs_mr);
	free(p->scratch);
	free(p->rbufs);
	if (p->pd != NULL)
		ibv_dealloc_pd(p->pd);
	if (p->ctx != NULL)
		ibv_close_device(p->ctx);
}

int
main(int argc, char **argv)
{
	static struct peer peer = {
		.dev_name = "rxe1", .gid_idx = 1, .tcp_port = TOK_PORT,
		.timeout_s = 120, .fd = -1,
	};
	struct peer *p = &peer;
	int c, rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt(argc, argv, "d:g:p:t:")) != -1) {
		switch (c) {
		case 'd': p->dev_name = optarg; break;
		case 'g': p->gid_idx = atoi(optarg); break;
		case 'p': p->tcp_port = (uint16_t)atoi(optarg); break;
		case 't': p->timeout_s = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: rxe_tokpeer [-d DEV] [-g GIDX] "
				"[-p TCPPORT] [-t SECS]\n");
			return 2;
		}
	}
	srand48((long)getpid() ^ (long)time(NULL));
	if (open_device(p) != 0) {
		cleanup(p);
		return 2;
	}
	p->fd = accept_host(p);
	if (p->fd < 0) {
		cleanup(p);
		return 1;
	}
	rc = serve(p);
	close(p->fd);
	cleanup(p);
	logf_("exit %d", rc);
	return rc;
}
