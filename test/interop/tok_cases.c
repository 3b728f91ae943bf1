/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The cases of tok_host (tokens_rxe): ndk-roce's tokens and Linux rxe's,
 * each side reaching the other's with RDMA READ/WRITE before and after a
 * SEND with Invalidate. Every case opens fresh QPs on both sides (an
 * expected error leaves them in ERROR) and checks, one line each:
 *
 * rxe's tokens (type-2 memory windows bound with IBV_WR_BIND_MW on the
 * guest's QP, between guard bytes; the guest keeps a shadow and checks its
 * memory on request):
 *   - our WRITE and READ succeed and move exactly the right bytes;
 *   - our ndk_send_and_invalidate() naming the window completes, and the
 *     guest's receive completion reports the invalidation (IBV_WC_WITH_INV,
 *     or the kernel's bit rxe passes through instead: see guest_recv's
 *     caller) with wc.invalidated_rkey == the window's rkey;
 *   - then our READ (or WRITE) on the same QP -- the one the window was
 *     bound to -- fails with a remote access NAK (NDK_PERR_REM_ACCESS),
 *     both QPs end in ERROR, the guest's memory is untouched.
 * Our tokens (an FRMR from ndk_fast_register(), a window from ndk_bind()):
 *   - the guest's WRITE and READ succeed, our memory and guards hold
 *     exactly what they must;
 *   - the guest's IBV_WR_SEND_WITH_INV naming the token completes, ours as
 *     NDK_OP_RECEIVE_AND_INVALIDATE with the token;
 *   - then the guest's READ and WRITE (same QP, and a fresh one) fail with
 *     IBV_WC_REM_ACCESS_ERR, our memory untouched.
 * Tokens we cannot invalidate in a guest SEND with Invalidate (stale,
 * plain MR, forged): our side aborts the connection (NAK invalid request,
 * failed receive, QP in ERROR), the region is untouched and still valid
 * where it was before.
 * Our SEND with Invalidate naming tokens rxe cannot invalidate: rxe refuses
 * (its receive fails, its QP goes to ERROR), our side agrees with what rxe
 * answered, rxe's MR stays valid.
 */

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_malloc.h>

#include "ndk_test.h"
#include "tok_host.h"

/* ibv_wc_status values rxe_tokpeer reports (verbs.h, stable ABI). */
#define IBV_WC_SUCCESS_ 0
#define IBV_WC_REM_INV_REQ_ERR_ 9
#define IBV_WC_REM_ACCESS_ERR_ 10
/* wc_flags: libibverbs' IBV_WC_WITH_INV; the kernel's (see guest_recv) */
#define IBV_WC_WITH_INV_ (1u << 3)
#define KERNEL_WC_WITH_INVALIDATE (1u << 2)

#define RW (NDK_OP_FLAG_ALLOW_REMOTE_READ | NDK_OP_FLAG_ALLOW_REMOTE_WRITE)
#define REQ_FR ((void *)(uintptr_t)0xF4)
#define REQ_BIND ((void *)(uintptr_t)0xB1)
#define REQ_INV ((void *)(uintptr_t)0x14)
#define REQ_SEND ((void *)(uintptr_t)0x5E)

/* ------------------------------------------------------------------ */
/* The guest's side                                                    */
/* ------------------------------------------------------------------ */

/** A region of the guest (a window, or a plain MR). */
struct g_reg {
	uint32_t id;
	uint64_t addr;
	uint32_t rkey;
	uint32_t len;
	uint32_t seed;      /**< its initial pattern */
};

static int
g_region(struct g_reg *r, bool window, uint32_t len)
{
	uint64_t id, addr, rkey, seed;

	NEED(th_req("%s len=%u", window ? "MW" : "MR", len) == 0,
	     "guest %s", window ? "window" : "MR");
	NEED(th_ans_u64("id", &id) == 0 && th_ans_u64("addr", &addr) == 0 &&
	     th_ans_u64("rkey", &rkey) == 0 && th_ans_u64("seed", &seed) == 0,
	     "guest region");
	r->id = (uint32_t)id;
	r->addr = addr;
	r->rkey = (uint32_t)rkey;
	r->len = len;
	r->seed = (uint32_t)seed;
	return 0;
}

/** The guest's region @p r (guards included) is what it must be. */
static int
g_intact(const struct g_reg *r, const char *what)
{
	int64_t diff = -2;

	NEED(th_req("CHECK id=%u", r->id) == 0, "CHECK");
	tok_kv_i64(th.ans, "diff", &diff);
	CHECK(diff == -1, "%s: the guest's region %u and its guard bytes are "
	      "intact%s%s", what, r->id, diff == -1 ? "" : ": ",
	      diff == -1 ? "" : th.ans);
	return 0;
}

/** Wait (up to 3 s) for the guest's QP to be in @p want. */
static int
g_state(const char *want, const char *what)
{
	const char *st = "";

	for (int i = 0; i < 30; i++) {
		NEED(th_req("STATE") == 0, "STATE");
		st = th_ans_str("state");
		if (strcmp(st, want) == 0)
			break;
		rte_delay_us_sleep(100 * 1000);
	}
	CHECK(strcmp(st, want) == 0, "%s: the guest's QP is %s (want %s)", what,
	      st, want);
	return 0;
}

/** The guest's last answer reported status @p code. */
static int
g_status(int64_t code, const char *what)
{
	int64_t got = -1;

	tok_kv_i64(th.ans, "status_code", &got);
	CHECK(got == code, "%s: guest completion status '%s' (%" PRId64 "), "
	      "want %" PRId64, what, th_ans_str("status"), got, code);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Our side                                                            */
/* ------------------------------------------------------------------ */

/** Wait (up to 2 s) for our QP to be in ERROR. */
static int
h_qp_error(struct th_conn *c, const char *what)
{
	enum ndk_qp_state s = th_qp_state(c);

	for (int i = 0; i < 200 && s != NDK_QP_STATE_ERROR; i++) {
		rte_delay_us_sleep(10 * 1000);
		s = th_qp_state(c);
	}
	CHECK(s == NDK_QP_STATE_ERROR, "%s: our QP is %s", what,
	      ndk_qp_state_str(s));
	return 0;
}

/** One of our regions: an FRMR or a window, between guard bytes. */
struct h_reg {
	const char *kind;
	uint8_t *mem;            /**< everything the region lives in */
	uint8_t *shadow;         /**< what mem must hold */
	size_t size;
	/* the token's range: window: contiguous from base; FRMR: pages */
	uint8_t *base;
	uint64_t pages[4];
	uint32_t npages;
	uint32_t fbo;
	uint32_t len;
	uint64_t va;             /**< the address the guest uses */
	uint32_t token;
	uint32_t seed;
	struct ndk_mr *mr;       /**< FRMR, or the window's MR */
	struct ndk_mw *mw;
};

/* Host address of byte @p x of the token's range. */
static uint8_t *
h_addr(const struct h_reg *h, uint64_t x)
{
	uint64_t off;

	if (h->base != NULL)
		return h->base + x;
	off = h->fbo + x;
	return (uint8_t *)(uintptr_t)h->pages[off / NDK_PAGE_SIZE] +
		off % NDK_PAGE_SIZE;
}

/* Record that pattern @p seed was written at @p x (the shadow). */
static void
h_expect(struct h_reg *h, uint64_t x, uint32_t len, uint32_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		h->shadow[h_addr(h, x + i) - h->mem] =
			tok_pattern_byte(seed, i);
}

/* Regions of the running case, freed after it (run_case). */
static struct h_reg regs[2];

/*
 * A region of @p size bytes, all guard pattern; the token's range and the
 * shadow are set up by the caller (h_fill).
 */
static struct h_reg *
h_alloc(const char *kind, size_t size, uint32_t seed)
{
	struct h_reg *h = NULL;

	for (unsigned int i = 0; i < RTE_DIM(regs) && h == NULL; i++)
		if (regs[i].mem == NULL)
			h = &regs[i];
	if (h == NULL)
		return NULL;
	memset(h, 0, sizeof(*h));
	h->kind = kind;
	h->size = size;
	h->seed = seed;
	h->mem = rte_malloc("tok_host_region", size, NDK_PAGE_SIZE);
	h->shadow = malloc(size);
	if (h->mem == NULL || h->shadow == NULL) {
		rte_free(h->mem);
		free(h->shadow);
		memset(h, 0, sizeof(*h));
		return NULL;
	}
	tok_fill(h->mem, size, TOK_SEED_GUARD, 0);
	return h;
}

/* Fill the token's range with its pattern; the shadow takes it all. */
static void
h_fill(struct h_reg *h)
{
	for (uint32_t i = 0; i < h->len; i++)
		*h_addr(h, i) = tok_pattern_byte(h->seed, i);
	memcpy(h->shadow, h->mem, h->size);
}

static int
h_intact(const struct h_reg *h, const char *what)
{
	size_t i = 0;

	while (i < h->size && h->mem[i] == h->shadow[i])
		i++;
	CHECK(i == h->size, "%s: our %s's %zu bytes (token range and guard "
	      "bytes) hold exactly what they must%s", what, h->kind, h->size,
	      i == h->size ? "" : " -- they differ");
	return 0;
}

static void
h_free(struct h_reg *h)
{
	if (h->mw != NULL)
		ndk_close_mw(h->mw, NULL, NULL);
	if (h->mr != NULL)
		ndk_close_mr(h->mr, NULL, NULL);
	rte_free(h->mem);
	free(h->shadow);
	memset(h, 0, sizeof(*h));
}

/*
 * An FRMR over pages 2 and 0 of a 4-page pool (scattered, backwards),
 * first byte at 100, last 200 bytes before the end: everything else of
 * the pool is guard.
 */
static struct h_reg *
h_frmr_new(uint32_t seed)
{
	struct h_reg *h = h_alloc("FRMR", 4 * NDK_PAGE_SIZE, seed);
	ndk_status_t st;

	if (h == NULL)
		return NULL;
	h->npages = 2;
	h->pages[0] = (uint64_t)(uintptr_t)(h->mem + 2 * NDK_PAGE_SIZE);
	h->pages[1] = (uint64_t)(uintptr_t)h->mem;
	h->fbo = 100;
	h->len = 2 * NDK_PAGE_SIZE - 100 - 200;
	h->va = UINT64_C(0x0000123456780000) + h->fbo;
	h_fill(h);
	st = ndk_create_mr(th.pd, true, &h->mr);
	if (st == NDK_STATUS_SUCCESS)
		st = ndk_initialize_fast_register_mr(h->mr, 4, true);
	if (st != NDK_STATUS_SUCCESS) {
		printf("    FAIL: FRMR: %s\n", ndk_status_str(st));
		return NULL;
	}
	return h;
}

/* Wait for the completion of a local operation on @p c. */
static int
h_local_done(struct th_conn *c, enum ndk_operation_type type, void *req,
	     const char *what)
{
	struct ndk_result_ex r;
	char d[160];

	NEED(th_wait(c, &r) == 0, "%s: completion", what);
	CHECK(r.status == NDK_STATUS_SUCCESS && r.type == type &&
	      r.request_context == req, "%s: completion %s", what,
	      th_result_str(&r, d, sizeof(d)));
	return 0;
}

static int
h_frmr_register(struct th_conn *c, struct h_reg *h)
{
	ndk_status_t st = ndk_fast_register(c->qp, REQ_FR, h->mr, h->npages,
					    h->pages, h->fbo, h->len, h->va,
					    RW);

	NEED(st == NDK_STATUS_SUCCESS, "ndk_fast_register: %s",
	     ndk_status_str(st));
	h->token = ndk_mr_remote_token(h->mr);
	printf("    our FRMR: %u B at VA 0x%" PRIx64 " over 2 scattered pages, "
	       "token 0x%08x\n", h->len, h->va, h->token);
	return h_local_done(c, NDK_OP_FAST_REGISTER, REQ_FR, "fast register");
}

/*
 * A window bound on @p c over [1000, 6000) of a 16 KiB plain MR (local
 * write only).
 */
static struct h_reg *
h_window_new(struct th_conn *c, uint32_t seed)
{
	struct h_reg *h = h_alloc("window", 16384, seed);
	ndk_status_t st;

	if (h == NULL)
		return NULL;
	h->base = h->mem + 1000;
	h->len = 5000;
	h->va = (uint64_t)(uintptr_t)h->base;
	h_fill(h);
	st = ndk_create_mr(th.pd, false, &h->mr);
	if (st == NDK_STATUS_SUCCESS)
		st = ndk_register_mr(h->mr, h->mem, h->size,
				     NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	if (st == NDK_STATUS_SUCCESS)
		st = ndk_create_mw(th.pd, &h->mw);
	if (st == NDK_STATUS_SUCCESS)
		st = ndk_bind(c->qp, REQ_BIND, h->mr, h->mw, h->base, h->len,
			      RW);
	if (st != NDK_STATUS_SUCCESS) {
		printf("    FAIL: window (MR, ndk_create_mw, ndk_bind): %s\n",
		       ndk_status_str(st));
		return NULL;
	}
	h->token = ndk_mw_remote_token(h->mw);
	printf("    our window: %u B at 0x%" PRIx64 " of a plain MR, token "
	       "0x%08x\n", h->len, h->va, h->token);
	return h_local_done(c, NDK_OP_BIND, REQ_BIND, "bind") == 0 ? h : NULL;
}

/* ------------------------------------------------------------------ */
/* Cases                                                               */
/* ------------------------------------------------------------------ */

/* The guest program, its device and rxe1's GID; our adapter's flag. */
static int
t_hello(void)
{
	char want[64];
	uint64_t mw2b = 0;
	const char *ps = "";

	/* rxe1 comes up when QEMU has reconnected to our vhost port. */
	for (int i = 0; i < 150; i++) {
		NEED(th_req("HELLO") == 0, "HELLO");
		ps = th_ans_str("port_state");
		if (strcmp(ps, "4") == 0)       /* IBV_PORT_ACTIVE */
			break;
		rte_delay_us_sleep(100 * 1000);
	}
	CHECK(strcmp(ps, "4") == 0, "rxe1's port is %s",
	      th_ans_str("port_state_name"));
	snprintf(want, sizeof(want), "%d", th.o.guest_gid);
	CHECK(strcmp(th_ans_str("dev"), "rxe1") == 0 &&
	      strcmp(th_ans_str("gid_index"), want) == 0,
	      "rxe_tokpeer runs on %s, GID index %s", th_ans_str("dev"),
	      th_ans_str("gid_index"));
	if (th.o.has_guest_ip6) {
		inet_ntop(AF_INET6, th.o.guest_ip6, want, sizeof(want));
		CHECK(strcmp(th_ans_str("gid"), want) == 0,
		      "rxe1's GID %d is %s (want %s)", th.o.guest_gid,
		      th_ans_str("gid"), want);
	} else if (th.o.guest_ip1 != 0) {
		const uint8_t *b = (const uint8_t *)&th.o.guest_ip1;

		snprintf(want, sizeof(want), "::ffff:%u.%u.%u.%u", b[0], b[1],
			 b[2], b[3]);
		CHECK(strcmp(th_ans_str("gid"), want) == 0,
		      "rxe1's GID 1 is %s (want %s)", th_ans_str("gid"), want);
	}
	th_ans_u64("mw_type2b", &mw2b);
	CHECK(mw2b == 1, "rxe1 offers type-2B memory windows (max_mw %s)",
	      th_ans_str("max_mw"));
	CHECK(th.info.adapter_flags &
	      NDK_ADAPTER_FLAG_X_REMOTE_INVALIDATE_SUPPORTED,
	      "our adapter reports remote invalidation (flags 0x%08x)",
	      th.info.adapter_flags);
	return 0;
}

/* rxe's window: our WRITE and READ move exactly the right bytes. */
static int
t_rxe_window_rw(void)
{
	struct th_conn *c = th_conn_open(7);
	const uint8_t *d = th_scratch();
	struct ndk_result_ex r;
	struct g_reg g;
	long bad = -1;

	NEED(c != NULL, "connection");
	NEED(g_region(&g, true, 8192) == 0, "guest window");
	NEED(th_rdma(c, false, g.addr + 100, g.rkey, 1000, 0x301, &r) == 0,
	     "WRITE");
	CHECK(r.status == NDK_STATUS_SUCCESS, "our WRITE of 1000 B into rxe's "
	      "window (rkey 0x%08x) succeeds", g.rkey);
	NEED(th_req("WROTE id=%u off=100 len=1000 seed=0x301", g.id) == 0,
	     "WROTE");
	CHECK(strcmp(th_ans_str("diff"), "-1") == 0, "the guest finds the "
	      "1000 bytes at offset 100 and nothing else changed (diff %s)",
	      th_ans_str("diff"));
	NEED(th_rdma(c, true, g.addr, g.rkey, 2048, 0, &r) == 0, "READ");
	CHECK(r.status == NDK_STATUS_SUCCESS, "our READ of 2048 B of rxe's "
	      "window succeeds");
	for (uint32_t i = 0; i < 2048 && bad < 0; i++) {
		uint8_t want = i >= 100 && i < 1100 ?
			tok_pattern_byte(0x301, i - 100) :
			tok_pattern_byte(g.seed, i);

		if (d[i] != want)
			bad = i;
	}
	CHECK(bad < 0, "the READ returns the window's bytes, our WRITE "
	      "included%s", bad < 0 ? "" : " -- they differ");
	return 0;
}

/*
 * Our SEND of 200 bytes of pattern @p seed, with Invalidate of @p rkey if
 * @p inv; waits for its completion.
 */
static int
host_send(struct th_conn *c, bool inv, uint32_t rkey, uint32_t seed,
	  const char *what)
{
	struct ndk_sge s = { .va = th_scratch(), .length = 200,
			     .token = th.mem_ltok };
	struct ndk_result_ex r;
	ndk_status_t st;
	char d[160];

	tok_fill(th_scratch(), 200, seed, 0);
	st = inv ? ndk_send_and_invalidate(c->qp, REQ_SEND, &s, 1, 0, rkey) :
		ndk_send(c->qp, REQ_SEND, &s, 1, 0);
	NEED(st == NDK_STATUS_SUCCESS, "%s: post: %s", what,
	     ndk_status_str(st));
	NEED(th_wait(c, &r) == 0, "%s: completion", what);
	CHECK(r.status == NDK_STATUS_SUCCESS && r.type == NDK_OP_SEND &&
	      r.request_context == REQ_SEND, "%s completes: %s", what,
	      th_result_str(&r, d, sizeof(d)));
	return 0;
}

/*
 * The guest's next receive completion: success, IBV_WC_RECV, our 200
 * bytes of pattern @p seed. Returns its wc_flags and invalidated_rkey.
 */
static int
guest_recv(uint32_t seed, uint64_t *flags, uint64_t *inv)
{
	uint64_t len = 0;

	NEED(th_req("RECV len=200 seed=0x%x", seed) == 0, "RECV");
	if (g_status(IBV_WC_SUCCESS_, "the guest's receive") != 0)
		return -1;
	tok_kv_u64(th.ans, "byte_len", &len);
	CHECK(len == 200 && strcmp(th_ans_str("data"), "ok") == 0 &&
	      strcmp(th_ans_str("opcode"), "128") == 0,
	      "the guest received our 200 bytes intact (IBV_WC_RECV)");
	NEED(th_ans_u64("wc_flags", flags) == 0 &&
	     th_ans_u64("inv_rkey", inv) == 0, "RECV answer");
	return 0;
}

/*
 * rxe's window invalidated by our SEND with Invalidate; then our READ
 * (@p read) or WRITE on the same QP must fail.
 */
static int
rxe_window_send_inv(bool read)
{
	struct th_conn *c = th_conn_open(7);
	struct ndk_result_ex r;
	struct g_reg g;
	uint64_t flags = 0, inv = 0;
	char d[160];

	NEED(c != NULL, "connection");
	NEED(g_region(&g, true, 8192) == 0, "guest window");
	NEED(th_rdma(c, true, g.addr, g.rkey, 512, 0, &r) == 0, "READ");
	CHECK(r.status == NDK_STATUS_SUCCESS &&
	      tok_diff(th_scratch(), 512, g.seed, 0) < 0,
	      "before: our READ of rxe's window (rkey 0x%08x) returns its "
	      "bytes", g.rkey);

	/*
	 * A plain SEND first: its completion shows which wc_flags bits rxe
	 * sets without an invalidation.
	 */
	if (host_send(c, 0, 0, 0x5e0, "our SEND") != 0 ||
	    guest_recv(0x5e0, &flags, &inv) != 0)
		return -1;
	CHECK((flags & (IBV_WC_WITH_INV_ | KERNEL_WC_WITH_INVALIDATE)) == 0,
	      "a plain SEND's receive completion has neither invalidation bit "
	      "(wc_flags 0x%" PRIx64 ")", flags);

	if (host_send(c, 1, g.rkey, 0x5e1, "our SEND with Invalidate") != 0 ||
	    guest_recv(0x5e1, &flags, &inv) != 0)
		return -1;
	CHECK(flags & (IBV_WC_WITH_INV_ | KERNEL_WC_WITH_INVALIDATE),
	      "the guest's receive completion reports the invalidation: "
	      "wc_flags 0x%" PRIx64 "%s", flags, (flags & IBV_WC_WITH_INV_) ?
	      " (IBV_WC_WITH_INV)" : ": not IBV_WC_WITH_INV (0x8) but 0x4, the "
	      "kernel's IB_WC_WITH_INVALIDATE, which rxe passes to user space "
	      "as it is (libibverbs calls it IBV_WC_IP_CSUM_OK)");
	CHECK(inv == g.rkey, "wc.invalidated_rkey 0x%08" PRIx64 " is the "
	      "window's rkey 0x%08x", inv, g.rkey);

	NEED(th_rdma(c, read, g.addr + 16, g.rkey, 100, 0x302, &r) == 0,
	     "READ/WRITE after");
	CHECK(r.status == NDK_STATUS_REMOTE_RESOURCES &&
	      r.provider_error == NDK_PERR_REM_ACCESS,
	      "after: our %s of the invalidated window fails with a remote "
	      "access NAK: %s", read ? "READ" : "WRITE",
	      th_result_str(&r, d, sizeof(d)));
	if (read)
		CHECK(tok_diff(th_scratch(), 100, TH_POISON_SEED, 0) < 0,
		      "the failed READ placed nothing in our buffer");
	if (h_qp_error(c, "after the NAK") != 0 ||
	    g_intact(&g, read ? "after the failed READ" :
		     "after the failed WRITE") != 0 ||
	    g_state("ERR", "after the access error") != 0)
		return -1;
	return 0;
}

static int
t_rxe_window_send_inv_read(void)
{
	return rxe_window_send_inv(true);
}

static int
t_rxe_window_send_inv_write(void)
{
	return rxe_window_send_inv(false);
}

/* The guest's SEND with Invalidate of our @p h; checks both completions. */
static int
guest_send_inv_ok(struct th_conn *c, const struct h_reg *h)
{
	struct ndk_test_xstats s0, s1;
	struct ndk_result_ex r;
	char d[160];
	uint32_t i;

	th_stats(&s0);
	NEED(th_req("SEND len=100 seed=0x5e2 inv=0x%08x", h->token) == 0,
	     "guest SEND with Invalidate");
	if (g_status(IBV_WC_SUCCESS_, "the guest's SEND with Invalidate") != 0)
		return -1;
	NEED(th_wait(c, &r) == 0, "our receive completion");
	CHECK(r.status == NDK_STATUS_SUCCESS &&
	      r.type == NDK_OP_RECEIVE_AND_INVALIDATE,
	      "our receive completes as RECEIVE_AND_INVALIDATE: %s",
	      th_result_str(&r, d, sizeof(d)));
	CHECK(r.type_specific == h->token, "it names the token: 0x%08" PRIxPTR
	      " == 0x%08x", r.type_specific, h->token);
	i = (uint32_t)((uintptr_t)r.request_context - 0x1000);
	CHECK(i < TH_NRECV && r.bytes_transferred == 100 &&
	      tok_diff(th_rbuf(i), 100, 0x5e2, 0) < 0,
	      "the 100 bytes arrived intact");
	th_stats(&s1);
	CHECK(XS_DIFF(&s1, &s0, "inv_remote") == 1, "inv_remote +%" PRIu64,
	      XS_DIFF(&s1, &s0, "inv_remote"));
	return 0;
}

/* The guest's READ or WRITE of our @p h at @p x must fail (access). */
static int
guest_op_fails(const struct h_reg *h, bool read, uint64_t x,
	       const char *what)
{
	NEED(th_req("%s addr=0x%" PRIx64 " rkey=0x%08x len=100 seed=0x303",
		    read ? "READ" : "WRITE", h->va + x, h->token) == 0,
	     "guest %s", read ? "READ" : "WRITE");
	if (g_status(IBV_WC_REM_ACCESS_ERR_, what) != 0)
		return -1;
	if (read)
		CHECK(strcmp(th_ans_str("data"), "untouched") == 0,
		      "%s: the guest's buffer is untouched", what);
	return 0;
}

/*
 * Our @p h (FRMR or window, registered on @p c): the guest WRITEs and
 * READs it, invalidates it with a SEND, then its READ (@p read_first) or
 * WRITE must fail on this QP, and the other operation on a fresh one.
 */
static int
ours_invalidated_by_guest(struct th_conn *c, struct h_reg *h, bool read_first)
{
	NEED(th_req("WRITE addr=0x%" PRIx64 " rkey=0x%08x len=500 seed=0x304",
		    h->va + 50, h->token) == 0, "guest WRITE");
	if (g_status(IBV_WC_SUCCESS_, "the guest's WRITE of 500 B") != 0)
		return -1;
	h_expect(h, 50, 500, 0x304);
	if (h_intact(h, "after the guest's WRITE") != 0)
		return -1;
	NEED(th_req("READ addr=0x%" PRIx64 " rkey=0x%08x len=1900 seed=0x%x "
		    "idx=3000", h->va + 3000, h->token, h->seed) == 0,
	     "guest READ");
	if (g_status(IBV_WC_SUCCESS_, "the guest's READ of 1900 B") != 0)
		return -1;
	CHECK(strcmp(th_ans_str("data"), "ok") == 0,
	      "the guest's READ returns our bytes");

	if (guest_send_inv_ok(c, h) != 0 ||
	    guest_op_fails(h, read_first, 0, read_first ?
			   "the guest's READ after the invalidation" :
			   "the guest's WRITE after the invalidation") != 0 ||
	    h_intact(h, "after the failed operation") != 0 ||
	    h_qp_error(c, "after our access NAK") != 0 ||
	    g_state("ERR", "after our access NAK") != 0)
		return -1;
	th_conn_close(c);
	c = th_conn_open(7);
	NEED(c != NULL, "fresh connection");
	if (guest_op_fails(h, !read_first, 1000, !read_first ?
			   "on a fresh QP, the guest's READ" :
			   "on a fresh QP, the guest's WRITE") != 0 ||
	    h_intact(h, "after the second failed operation") != 0 ||
	    h_qp_error(c, "after the second NAK") != 0)
		return -1;
	return 0;
}

/* A fresh connection and an FRMR of pattern @p seed registered on it. */
static int
frmr_on_new_conn(uint32_t seed, struct h_reg **h, struct th_conn **c)
{
	*h = h_frmr_new(seed);
	*c = th_conn_open(7);
	NEED(*h != NULL && *c != NULL, "FRMR, connection");
	return h_frmr_register(*c, *h);
}

/* Our FRMR, invalidated by the guest's SEND with Invalidate. */
static int
t_our_frmr_send_inv(void)
{
	struct th_conn *c;
	struct h_reg *h;

	if (frmr_on_new_conn(0x401, &h, &c) != 0)
		return -1;
	return ours_invalidated_by_guest(c, h, true);
}

/* Our window, invalidated by the guest's SEND with Invalidate. */
static int
t_our_window_send_inv(void)
{
	struct th_conn *c = th_conn_open(7);
	struct h_reg *h;

	NEED(c != NULL, "connection");
	h = h_window_new(c, 0x402);
	NEED(h != NULL, "window");
	return ours_invalidated_by_guest(c, h, false);
}

/*
 * The guest names @p tok, which we must refuse to invalidate, in a SEND
 * with Invalidate: NDK aborts the connection.
 */
static int
guest_bad_token(uint32_t tok, const char *what)
{
	struct th_conn *c = th_conn_open(7);
	struct ndk_test_xstats s0, s1;
	struct ndk_result_ex r;
	char d[160];

	NEED(c != NULL, "connection");
	th_stats(&s0);
	NEED(th_req("SEND len=64 seed=0x5e3 inv=0x%08x", tok) == 0,
	     "guest SEND with Invalidate");
	if (g_status(IBV_WC_REM_INV_REQ_ERR_, "the guest's SEND with "
		     "Invalidate of a bad token") != 0)
		return -1;
	NEED(th_wait(c, &r) == 0, "our receive completion");
	CHECK(r.status != NDK_STATUS_SUCCESS &&
	      r.provider_error == NDK_PERR_REM_INV_REQ &&
	      (r.type & NDK_OP_RECEIVE), "%s: our receive fails: %s", what,
	      th_result_str(&r, d, sizeof(d)));
	th_stats(&s1);
	CHECK(XS_DIFF(&s1, &s0, "inv_rejected") == 1 &&
	      XS_DIFF(&s1, &s0, "nak_inv_sent") == 1 &&
	      XS_DIFF(&s1, &s0, "inv_remote") == 0, "%s: inv_rejected +%"
	      PRIu64 ", nak_inv_sent +%" PRIu64 ", inv_remote +%" PRIu64, what,
	      XS_DIFF(&s1, &s0, "inv_rejected"),
	      XS_DIFF(&s1, &s0, "nak_inv_sent"),
	      XS_DIFF(&s1, &s0, "inv_remote"));
	if (h_qp_error(c, what) != 0 || g_state("ERR", what) != 0)
		return -1;
	th_conn_close(c);
	return 0;
}

/* The guest's READ of our @p h with @p tok succeeds on a fresh QP. */
static int
guest_read_ok(const struct h_reg *h, uint32_t tok, const char *what)
{
	struct th_conn *c = th_conn_open(7);

	NEED(c != NULL, "connection");
	NEED(th_req("READ addr=0x%" PRIx64 " rkey=0x%08x len=1000 seed=0x%x",
		    h->va, tok, h->seed) == 0, "guest READ");
	if (g_status(IBV_WC_SUCCESS_, what) != 0)
		return -1;
	CHECK(strcmp(th_ans_str("data"), "ok") == 0,
	      "%s: the token still works", what);
	th_conn_close(c);
	return 0;
}

/* A token we invalidated ourselves (NdkInvalidate): stale. */
static int
t_bad_token_stale(void)
{
	struct th_conn *c;
	struct h_reg *h;

	if (frmr_on_new_conn(0x403, &h, &c) != 0)
		return -1;
	NEED(ndk_invalidate(c->qp, REQ_INV, &h->mr->header, 0) ==
	     NDK_STATUS_SUCCESS, "ndk_invalidate");
	if (h_local_done(c, NDK_OP_INVALIDATE, REQ_INV, "invalidate") != 0)
		return -1;
	th_conn_close(c);
	if (guest_bad_token(h->token, "stale FRMR token") != 0 ||
	    h_intact(h, "stale FRMR token") != 0)
		return -1;
	return 0;
}

/* A plain MR's token: valid for RDMA, not invalidatable. */
static int
t_bad_token_plain_mr(void)
{
	struct h_reg *h = h_alloc("plain MR", 8192, 0x404);
	ndk_status_t st;

	NEED(h != NULL, "memory");
	h->base = h->mem;
	h->len = 8192;
	h->va = (uint64_t)(uintptr_t)h->mem;
	h_fill(h);
	st = ndk_create_mr(th.pd, false, &h->mr);
	if (st == NDK_STATUS_SUCCESS)
		st = ndk_register_mr(h->mr, h->mem, h->size,
				     NDK_MR_FLAG_ALLOW_REMOTE_READ);
	NEED(st == NDK_STATUS_SUCCESS, "plain MR: %s", ndk_status_str(st));
	h->token = ndk_mr_remote_token(h->mr);
	if (guest_bad_token(h->token, "plain MR token") != 0 ||
	    h_intact(h, "plain MR token") != 0 ||
	    guest_read_ok(h, h->token, "plain MR after the abort") != 0)
		return -1;
	return 0;
}

/* A forged token: a live window's with its top key bit flipped. */
static int
t_bad_token_forged(void)
{
	struct th_conn *c = th_conn_open(7);
	struct h_reg *h;

	NEED(c != NULL, "connection");
	h = h_window_new(c, 0x405);
	NEED(h != NULL, "window");
	th_conn_close(c);
	if (guest_bad_token(h->token ^ 0x80000000u, "forged window token") !=
	    0 || h_intact(h, "forged window token") != 0 ||
	    guest_read_ok(h, h->token, "the real window token") != 0)
		return -1;
	return 0;
}

/*
 * Our SEND with Invalidate naming @p rkey, a token rxe cannot invalidate.
 * What rxe does (6.1, rxe_resp.c, "class J"): it ACKs the SEND, so the
 * requester never learns, completes its receive with
 * IBV_WC_REM_INV_REQ_ERR and moves its QP to ERROR. Either outcome is
 * accepted on our side -- an ACK (our SEND succeeds, our QP stays RTS) or
 * an invalid-request NAK (our SEND fails with NDK_PERR_REM_INV_REQ, our
 * QP in ERROR) -- as long as both agree; the guest must refuse.
 */
static int
rxe_bad_token(uint32_t rkey, const char *what)
{
	struct th_conn *c = th_conn_open(2);
	struct ndk_sge s = { .va = th_scratch(), .length = 64,
			     .token = th.mem_ltok };
	struct ndk_result_ex r;
	enum ndk_qp_state qs;
	ndk_status_t st;
	char d[160];

	NEED(c != NULL, "connection");
	tok_fill(th_scratch(), 64, 0x5e4, 0);
	st = ndk_send_and_invalidate(c->qp, REQ_SEND, &s, 1, 0, rkey);
	NEED(st == NDK_STATUS_SUCCESS, "post: %s", ndk_status_str(st));
	NEED(th_wait(c, &r) == 0, "completion");
	NEED(th_req("RECV len=64 seed=0x5e4") == 0, "RECV");
	if (g_status(IBV_WC_REM_INV_REQ_ERR_, what) != 0)
		return -1;
	CHECK(strcmp(th_ans_str("kernel_with_inv"), "0") == 0 &&
	      strcmp(th_ans_str("with_inv"), "0") == 0,
	      "%s: rxe reports no invalidation", what);
	if (g_state("ERR", what) != 0)
		return -1;
	if (r.status == NDK_STATUS_SUCCESS) {
		qs = th_qp_state(c);
		CHECK(qs == NDK_QP_STATE_RTS, "%s: rxe ACKed our SEND (it "
		      "completed: %s) and our QP is %s", what,
		      th_result_str(&r, d, sizeof(d)), ndk_qp_state_str(qs));
	} else {
		CHECK(r.provider_error == NDK_PERR_REM_INV_REQ,
		      "%s: rxe NAKed our SEND: %s", what,
		      th_result_str(&r, d, sizeof(d)));
		if (h_qp_error(c, what) != 0)
			return -1;
	}
	th_conn_close(c);
	return 0;
}

/*
 * Our SEND with Invalidate naming rxe's plain MR (rxe invalidates only
 * fast-register MRs and type-2 windows remotely), then a token that names
 * nothing: rxe refuses both; the MR stays valid.
 */
static int
t_rxe_bad_token(void)
{
	struct ndk_result_ex r;
	struct th_conn *c;
	struct g_reg g;

	NEED(th_conn_open(7) != NULL, "connection");
	NEED(g_region(&g, false, 4096) == 0, "guest MR");
	th_conn_close_all();
	if (rxe_bad_token(g.rkey, "rxe's plain MR") != 0 ||
	    rxe_bad_token(0x00badb00, "a token of nothing") != 0)
		return -1;
	c = th_conn_open(7);
	NEED(c != NULL, "connection");
	NEED(th_rdma(c, true, g.addr, g.rkey, 1024, 0, &r) == 0, "READ");
	CHECK(r.status == NDK_STATUS_SUCCESS &&
	      tok_diff(th_scratch(), 1024, g.seed, 0) < 0,
	      "rxe's MR is still valid: our READ returns its bytes");
	return g_intact(&g, "rxe's MR after the refused invalidations");
}

/* Every case leaves nothing behind, failed or not. */
static int
run_case(int (*body)(void))
{
	int rc = body();

	th_conn_close_all();
	for (unsigned int i = 0; i < RTE_DIM(regs); i++)
		if (regs[i].mem != NULL)
			h_free(&regs[i]);
	return rc;
}

#define TH_CASE(name) \
	static int name##_case(void) { return run_case(t_##name); }
TH_CASE(hello)
TH_CASE(rxe_window_rw)
TH_CASE(rxe_window_send_inv_read)
TH_CASE(rxe_window_send_inv_write)
TH_CASE(our_frmr_send_inv)
TH_CASE(our_window_send_inv)
TH_CASE(bad_token_stale)
TH_CASE(bad_token_plain_mr)
TH_CASE(bad_token_forged)
TH_CASE(rxe_bad_token)
#undef TH_CASE

const struct ndk_test_case th_cases[] = {
	{ "hello", hello_case },
	{ "rxe_window_rw", rxe_window_rw_case },
	{ "rxe_window_send_inv_read", rxe_window_send_inv_read_case },
	{ "rxe_window_send_inv_write", rxe_window_send_inv_write_case },
	{ "our_frmr_send_inv", our_frmr_send_inv_case },
	{ "our_window_send_inv", our_window_send_inv_case },
	{ "bad_token_stale", bad_token_stale_case },
	{ "bad_token_plain_mr", bad_token_plain_mr_case },
	{ "bad_token_forged", bad_token_forged_case },
	{ "rxe_bad_token", rxe_bad_token_case },
};
const unsigned int th_ncases = RTE_DIM(th_cases);
