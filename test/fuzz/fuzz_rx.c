/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Fuzz target: the receive path of a live RC QP pair — responder on one
 * side, completer on the other (drivers/swroce) — with the frames between
 * them mutated and their ICRC recomputed, so that they get past the check
 * and into the engines.
 *
 * Two swroce adapters on the crossed net_ring pair of app/common/ndk_pair
 * (no pollers: this thread polls both, so a run is repeatable). Each input
 * makes a fresh connection, posts the operations it names on A (receives
 * on B), then moves the frames by hand: A polls, every frame A sent to B
 * is copied out, edited, re-checksummed and put into B's receive ring; B
 * polls; the same for B's answers to A; until nothing moves. Then the
 * connection is closed (which must not hang) and every registered
 * buffer's guard bytes must be intact: a frame may change registered
 * memory, never the bytes around it.
 *
 * Input: 3 header bytes, then 5-byte edit records.
 *   ops:   bit 0 SEND, 1 WRITE, 2 READ, 3 inline SEND, 4 WRITE with
 *          SILENT_SUCCESS + fenced READ, 5 a second SEND (two receives)
 *   sizes: low nibble * 300 + 1 bytes for SEND/WRITE, high nibble for READ
 *   flags: bit 0 leave the ICRC as edited (else recompute it)
 *   edit:  kind, frame, offset (16 bits LE), value
 *          kind bits 0-1: 0 XOR value at offset, 1 set it, 2 drop the
 *          frame, 3 send it twice; bit 7: a frame of B to A (else A to B).
 *          frame: the index of the frame in its direction since the start.
 */

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_ring.h>

#include "fuzz_common.h"
#include "ndk.h"
#include "ndk_pair.h"
#include "ndk_roce.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define BUF_LEN 8192
#define MAX_EDITS 64
#define MAX_ROUNDS 64

struct edit {
	uint8_t kind, frame, value;
	uint16_t off;
};

static struct ndk_pair *pair;
static struct ndk_pd *pd[2];
/* src, rsink on A; dst (remote write/read), rcv on B. */
static struct ndk_pair_buf *src, *rsink, *dst, *rcv;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct ndk_pair_config pc = {
		.max_path_mtu = 1024, .max_qp = 16, .max_cq = 32,
		.max_mr = 16, .ring_size = 1024, .no_pollers = true,
	};
	uint32_t sink;

	(void)argc;
	(void)argv;
	if (fuzz_eal_init("fuzz_rx", "0") != 0)
		exit(1);
	fuzz_pool();
	pair = ndk_pair_create(&pc);
	FUZZ_CHECK(pair != NULL, "ndk_pair_create");
	for (int s = 0; s < 2; s++)
		FUZZ_CHECK(ndk_create_pd(pair->ad[s], &pd[s]) ==
			   NDK_STATUS_SUCCESS, "ndk_create_pd");
	sink = NDK_MR_FLAG_ALLOW_LOCAL_WRITE |
		((pair->info[0].adapter_flags &
		  NDK_ADAPTER_FLAG_RDMA_READ_SINK_NOT_REQUIRED) ? 0 :
		 NDK_MR_FLAG_RDMA_READ_SINK);
	src = ndk_pair_buf_alloc(pair, pd[0], BUF_LEN, 0);
	rsink = ndk_pair_buf_alloc(pair, pd[0], BUF_LEN, sink);
	dst = ndk_pair_buf_alloc(pair, pd[1], BUF_LEN,
				 NDK_MR_FLAG_ALLOW_REMOTE_WRITE |
				 NDK_MR_FLAG_ALLOW_REMOTE_READ);
	rcv = ndk_pair_buf_alloc(pair, pd[1], BUF_LEN,
				 NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	FUZZ_CHECK(src && rsink && dst && rcv, "ndk_pair_buf_alloc");
	ndk_pair_fill(src->data, BUF_LEN, 0x1234);
	return 0;
}

/* A flat copy of @p m in the fuzz pool (the sender's mbuf may point into
 * its registered memory), edited as the records of this frame say. */
static unsigned int
edit_frame(struct rte_mbuf *m, const struct edit *ed, unsigned int n_ed,
	   unsigned int dir, unsigned int idx, bool fix, struct rte_mbuf **out)
{
	static uint8_t frame[FUZZ_MBUF_ROOM];
	uint32_t len = m->pkt_len;
	unsigned int copies = 1, n = 0;

	if (len > sizeof(frame) - RTE_PKTMBUF_HEADROOM) {
		rte_pktmbuf_free(m);
		return 0;
	}
	ndk_roce_mbuf_copy_out(m, 0, frame, len);
	rte_pktmbuf_free(m);
	for (unsigned int i = 0; i < n_ed; i++) {
		if ((ed[i].kind >> 7) != dir || ed[i].frame != (idx & 0xff))
			continue;
		switch (ed[i].kind & 3) {
		case 0:
			frame[ed[i].off % len] ^= ed[i].value;
			break;
		case 1:
			frame[ed[i].off % len] = ed[i].value;
			break;
		case 2:
			copies = 0;
			break;
		default:
			copies = 2;
			break;
		}
	}
	if (fix)
		fuzz_fix_icrc(frame, len);
	for (unsigned int c = 0; c < copies; c++) {
		out[n] = fuzz_mbuf(frame, len, 0, 0);
		if (out[n] != NULL)
			n++;
	}
	return n;
}

/* Move what side @p from sent to the other side, edited. @return frames. */
static unsigned int
move(unsigned int from, const struct edit *ed, unsigned int n_ed, bool fix,
     unsigned int *count)
{
	static struct rte_mbuf *in[256], *out[512];
	struct rte_ring *r = ndk_pair_rx_ring(pair, 1 - (int)from);
	unsigned int n, k = 0;

	/* Everything in the ring was sent since the receiver last polled. */
	n = rte_ring_dequeue_burst(r, (void **)in, RTE_DIM(in), NULL);
	for (unsigned int i = 0; i < n; i++)
		k += edit_frame(in[i], ed, n_ed, from, (*count)++, fix,
				&out[k]);
	if (rte_ring_enqueue_bulk(r, (void **)out, k, NULL) != k)
		rte_pktmbuf_free_bulk(out, k);
	return n;
}

/* Completions of the initiator (A) and the receiver (B). */
struct tally {
	unsigned int ok[2], failed;
};

static void
drain_cqs(const struct ndk_pair_conn *c, struct tally *t)
{
	struct ndk_cq *cq[2] = { c->icq[0], c->rcq[1] };
	struct ndk_result res[16];
	uint32_t n;

	for (int s = 0; s < 2; s++)
		while ((n = ndk_get_cq_results(cq[s], res, RTE_DIM(res))) != 0)
			for (uint32_t i = 0; i < n; i++) {
				if (res[i].status == NDK_STATUS_SUCCESS)
					t->ok[s]++;
				else
					t->failed++;
			}
}

/*
 * Post what @p ops names; @p want: the completions that an unedited run
 * must give on A's initiator CQ and B's receive CQ.
 */
static void
post(const struct ndk_pair_conn *c, uint8_t ops, uint8_t sizes,
     unsigned int want[2])
{
	uint32_t len = (sizes & 0xf) * 300u + 1, rlen = (sizes >> 4) * 300u + 1;
	struct ndk_sge s = ndk_pair_sge(src, 0, len);
	struct ndk_sge r = ndk_pair_sge(rcv, 0, BUF_LEN);
	struct ndk_sge k = ndk_pair_sge(rsink, 0, rlen);
	struct ndk_sge is;
	uint8_t inl[64];

#define POSTED(call, n_a, n_b) do { \
	if ((call) == NDK_STATUS_SUCCESS) { \
		want[0] += (n_a); \
		want[1] += (n_b); \
	} \
} while (0)
	/* Every post here fits the queues; a refusal only lowers want. */
	want[0] = want[1] = 0;
	if (ops & (1 | 8 | 32)) {
		(void)ndk_receive(c->qp[1], (void *)1, &r, 1);
		(void)ndk_receive(c->qp[1], (void *)2, &r, 1);
		(void)ndk_receive(c->qp[1], (void *)3, &r, 1);
	}
	if (ops & 1)
		POSTED(ndk_send(c->qp[0], (void *)4, &s, 1, 0), 1, 1);
	if (ops & 2)
		POSTED(ndk_write(c->qp[0], (void *)5, &s, 1,
				 ndk_pair_raddr(dst, 5), dst->rtoken, 0), 1, 0);
	if (ops & 4)
		POSTED(ndk_read(c->qp[0], (void *)6, &k, 1,
				ndk_pair_raddr(dst, 7), dst->rtoken, 0), 1, 0);
	if (ops & 8) {
		memset(inl, 0x5a, sizeof(inl));
		is.va = inl;
		is.length = sizeof(inl);
		is.token = 0;
		POSTED(ndk_send(c->qp[0], (void *)7, &is, 1,
				NDK_OP_FLAG_INLINE), 1, 1);
	}
	if (ops & 16) {
		POSTED(ndk_write(c->qp[0], (void *)8, &s, 1,
				 ndk_pair_raddr(dst, 1000), dst->rtoken,
				 NDK_OP_FLAG_SILENT_SUCCESS), 0, 0);
		POSTED(ndk_read(c->qp[0], (void *)9, &k, 1,
				ndk_pair_raddr(dst, 1000), dst->rtoken,
				NDK_OP_FLAG_READ_FENCE), 1, 0);
	}
	if (ops & 32)
		POSTED(ndk_send(c->qp[0], (void *)10, &s, 1, 0), 1, 1);
#undef POSTED
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ndk_pair_conn_opts o = {
		.rq_depth = 8, .sq_depth = 8, .max_rsge = 1, .max_isge = 1,
		.inline_size = 64, .fixed_psn = true,
		.sq_psn = { 0x10, 0xFFFFF0 },
		.pd = { pd[0], pd[1] },
	};
	struct edit ed[MAX_EDITS];
	unsigned int n_ed = 0, count[2] = { 0, 0 };
	struct ndk_pair_conn *c;
	struct tally t = { { 0, 0 }, 0 };
	unsigned int want[2];
	uint8_t ops, sizes, flags;
	ndk_status_t st;

	ops = (uint8_t)fuzz_take(&data, &size, 1);
	sizes = (uint8_t)fuzz_take(&data, &size, 1);
	flags = (uint8_t)fuzz_take(&data, &size, 1);
	while (size >= 5 && n_ed < MAX_EDITS) {
		ed[n_ed].kind = (uint8_t)fuzz_take(&data, &size, 1);
		ed[n_ed].frame = (uint8_t)fuzz_take(&data, &size, 1);
		ed[n_ed].off = (uint16_t)fuzz_take(&data, &size, 2);
		ed[n_ed].value = (uint8_t)fuzz_take(&data, &size, 1);
		n_ed++;
	}

	c = ndk_pair_conn_create(pair, &o, &st);
	FUZZ_CHECK(c != NULL, "ndk_pair_conn_create: %s", ndk_status_str(st));
	post(c, ops, sizes, want);
	for (unsigned int round = 0, idle = 0; round < MAX_ROUNDS && idle < 2;
	     round++) {
		unsigned int moved = 0;

		ndk_adapter_poll(pair->ad[0]);
		moved += move(0, ed, n_ed, !(flags & 1), &count[0]);
		ndk_adapter_poll(pair->ad[1]);
		moved += move(1, ed, n_ed, !(flags & 1), &count[1]);
		drain_cqs(c, &t);
		idle = moved == 0 ? idle + 1 : 0;
	}
	/* Unedited frames: everything completes, nothing fails. */
	if (n_ed == 0)
		FUZZ_CHECK(t.failed == 0 && t.ok[0] == want[0] &&
			   t.ok[1] == want[1], "unedited: A %u/%u, B %u/%u "
			   "completed, %u failed", t.ok[0], want[0], t.ok[1],
			   want[1], t.failed);
	/* Closing flushes what is outstanding; it polls both adapters. */
	ndk_pair_conn_destroy(c);
	for (int s = 0; s < 2; s++) {
		struct rte_ring *r = ndk_pair_rx_ring(pair, s);
		struct rte_mbuf *m;

		while (rte_ring_dequeue(r, (void **)&m) == 0)
			rte_pktmbuf_free(m);
	}
	FUZZ_CHECK(ndk_pair_buf_guards_ok(src) && ndk_pair_buf_guards_ok(rsink)
		   && ndk_pair_buf_guards_ok(dst) && ndk_pair_buf_guards_ok(rcv),
		   "bytes around a registered buffer changed");
	return 0;
}
