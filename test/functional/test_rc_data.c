/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: one RC connection at a time between two swroce adapters on a
 * net_ring pair. SEND/RECEIVE, WRITE and READ of many sizes at path MTU
 * 4096 and 1024, multi-SGE lists, inline data, zero-length operations,
 * non-extended results and the PSN wrap, with every byte and every guard
 * byte checked.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_random.h>

#include "rc_common.h"

static int
xfer_sizes(uint32_t mtu, enum xop op)
{
	static const size_t sizes[] = {
		1, 2, 63, 64, 255, 256, 1023, 1024, 1025, 4095, 4096, 4097,
		65536, 1u << 20,
	};
	struct ndk_pair *p = pair_get(mtu);
	struct ndk_pair_conn *c;
	uint32_t seed = (uint32_t)rte_rand();

	TEST_ASSERT(p != NULL, "pair with MTU %u", mtu);
	c = conn_new(p, NULL);
	TEST_ASSERT(c != NULL, "connection");
	for (unsigned int i = 0; i < RTE_DIM(sizes); i++)
		if (xfer(p, c, op, sizes[i], seed + i) != 0)
			return -1;
	for (unsigned int i = 0; i < 4; i++) {
		size_t len = 1 + (size_t)(rte_rand() % 300000);

		printf("  random size %zu\n", len);
		if (xfer(p, c, op, len, seed + 100 + i) != 0)
			return -1;
	}
	ndk_pair_conn_destroy(c);
	return 0;
}

static int t_send_mtu4096(void) { return xfer_sizes(4096, XOP_SEND); }
static int t_write_mtu4096(void) { return xfer_sizes(4096, XOP_WRITE); }
static int t_read_mtu4096(void) { return xfer_sizes(4096, XOP_READ); }
static int t_send_mtu1024(void) { return xfer_sizes(1024, XOP_SEND); }
static int t_write_mtu1024(void) { return xfer_sizes(1024, XOP_WRITE); }
static int t_read_mtu1024(void) { return xfer_sizes(1024, XOP_READ); }

/* ------------------------------------------------------------------ */
/* SGE lists, inline, zero length, NDK_RESULT                          */
/* ------------------------------------------------------------------ */

/* Copy a gather list's bytes into @p out; @return the total. */
static size_t
gather(const struct ndk_sge *s, unsigned int n, uint8_t *out)
{
	size_t off = 0;

	for (unsigned int i = 0; i < n; i++) {
		memcpy(out + off, s[i].va, s[i].length);
		off += s[i].length;
	}
	return off;
}

/* Scatter @p len bytes of @p msg over a list into the image of @p buf. */
static void
scatter_image(const struct ndk_sge *s, unsigned int n, const uint8_t *msg,
	      size_t len, const struct ndk_pair_buf *buf, uint8_t *image)
{
	size_t off = 0;

	for (unsigned int i = 0; i < n && off < len; i++) {
		size_t k = RTE_MIN((size_t)s[i].length, len - off);

		memcpy(image + ((uint8_t *)s[i].va - buf->data), msg + off, k);
		off += k;
	}
}

static int
t_multi_sge(void)
{
	static const uint32_t slen[] = { 1, 7, 13, 4097, 3, 1000, 61, 2 };
	static const uint32_t soff[] = { 5, 17, 33, 4200, 9001, 9100, 11000,
					 11111 };
	static const uint32_t rlen[] = { 5, 11, 4100, 2, 3000, 1, 999, 64 };
	static const uint32_t roff[] = { 3, 100, 200, 4400, 4500, 8000, 8100,
					 9500 };
	struct ndk_pair *p = pair_get(1024);
	struct ndk_pair_conn_opts o = { 0 };
	struct ndk_pair_conn *c;
	struct ndk_pair_buf *src, *dst, *rdst;
	struct ndk_sge ss[8], rs[8];
	unsigned int ns, nr, nrd;
	uint8_t *msg, *image;
	size_t total, rtotal = 0;
	ndk_status_t st;

	TEST_ASSERT(p != NULL, "pair");
	ns = RTE_MIN(8u, p->info[0].max_initiator_request_sge);
	nr = RTE_MIN(8u, p->info[1].max_receive_request_sge);
	nrd = RTE_MIN(ns, p->info[0].max_read_request_sge);
	o.max_isge = ns;
	o.max_rsge = nr;
	c = conn_new(p, &o);
	TEST_ASSERT(c != NULL, "connection");
	src = ndk_pair_buf_alloc(p, c->pd[0], 12000, 0);
	dst = ndk_pair_buf_alloc(p, c->pd[1], 12000,
				 NDK_MR_FLAG_ALLOW_REMOTE_WRITE |
				 NDK_MR_FLAG_ALLOW_REMOTE_READ);
	rdst = ndk_pair_buf_alloc(p, c->pd[0], 12000, read_sink_flags(p));
	msg = calloc(1, 12000);
	image = calloc(1, 12000);
	TEST_ASSERT(src && dst && rdst && msg && image, "buffers");
	ndk_pair_fill(src->data, 12000, 0x5151);
	for (unsigned int i = 0; i < ns; i++)
		ss[i] = ndk_pair_sge(src, soff[i], slen[i]);
	for (unsigned int i = 0; i < nr; i++) {
		rs[i] = ndk_pair_sge(dst, roff[i], rlen[i]);
		rtotal += rlen[i];
	}
	total = gather(ss, ns, msg);
	printf("  %u send SGEs (%zu B) into %u receive SGEs (%zu B)\n", ns,
	       total, nr, rtotal);
	TEST_ASSERT(rtotal >= total, "receive list too short");

	/* SEND gathered, received scattered. */
	st = ndk_receive(c->qp[1], (void *)1, rs, nr);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "receive %s", ndk_status_str(st));
	st = ndk_send(c->qp[0], (void *)2, ss, ns, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "send %s", ndk_status_str(st));
	if (expect_one(c->icq[0], NDK_OP_SEND, &qctx_a, (void *)2, -1,
		       "multi-SGE send") != 0 ||
	    expect_one(c->rcq[1], NDK_OP_RECEIVE, &qctx_b, (void *)1,
		       (int64_t)total, "multi-SGE receive") != 0)
		return -1;
	scatter_image(rs, nr, msg, total, dst, image);
	for (size_t i = 0; i < 12000; i++)
		TEST_ASSERT(dst->data[i] == image[i], "receive byte %zu: 0x%02x"
			    " != 0x%02x", i, dst->data[i], image[i]);
	TEST_ASSERT(ndk_pair_buf_guards_ok(dst), "guards");

	/* WRITE gathered into one remote range. */
	memset(dst->data, 0, 12000);
	st = ndk_write(c->qp[0], (void *)3, ss, ns, ndk_pair_raddr(dst, 3),
		       dst->rtoken, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "write %s", ndk_status_str(st));
	if (expect_one(c->icq[0], NDK_OP_WRITE, &qctx_a, (void *)3, -1,
		       "multi-SGE write") != 0)
		return -1;
	TEST_ASSERT(all_zero(dst->data, 3), "write before its address");
	TEST_ASSERT(memcmp(dst->data + 3, msg, total) == 0, "write data");
	TEST_ASSERT(all_zero(dst->data + 3 + total, 12000 - 3 - total),
		    "write past its end");

	/* READ of one remote range scattered locally. */
	ndk_pair_fill(dst->data, 12000, 0x7777);
	for (unsigned int i = 0; i < nrd; i++)
		rs[i] = ndk_pair_sge(rdst, roff[i], rlen[i]);
	total = 0;
	for (unsigned int i = 0; i < nrd; i++)
		total += rlen[i];
	st = ndk_read(c->qp[0], (void *)4, rs, nrd, ndk_pair_raddr(dst, 1),
		      dst->rtoken, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "read %s", ndk_status_str(st));
	if (expect_one(c->icq[0], NDK_OP_READ, &qctx_a, (void *)4, -1,
		       "multi-SGE read") != 0)
		return -1;
	memset(image, 0, 12000);
	scatter_image(rs, nrd, dst->data + 1, total, rdst, image);
	for (size_t i = 0; i < 12000; i++)
		TEST_ASSERT(rdst->data[i] == image[i], "read byte %zu: 0x%02x"
			    " != 0x%02x", i, rdst->data[i], image[i]);
	TEST_ASSERT(ndk_pair_buf_guards_ok(rdst) && ndk_pair_buf_guards_ok(src)
		    && ndk_pair_buf_guards_ok(dst), "guards");
	free(msg);
	free(image);
	ndk_pair_conn_destroy(c);
	return 0;
}

static int
t_inline(void)
{
	struct ndk_pair *p = pair_get(4096);
	struct ndk_pair_conn_opts o = { 0 };
	struct ndk_pair_conn *c;
	struct ndk_pair_buf *dst;
	uint8_t data[1024];
	struct ndk_sge s[2];
	uint32_t inl;
	ndk_status_t st;

	TEST_ASSERT(p != NULL, "pair");
	inl = RTE_MIN(256u, p->info[0].max_inline_data_size);
	if (inl < 2) {
		printf("  adapter has no inline data (max %u)\n", inl);
		return NDK_TEST_SKIPPED;
	}
	o.inline_size = inl;
	c = conn_new(p, &o);
	TEST_ASSERT(c != NULL, "connection with inline %u", inl);
	dst = ndk_pair_buf_alloc(p, c->pd[1], 1024,
				 NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
	TEST_ASSERT(dst != NULL, "buffer");

	/* Ordinary (non-DPDK) memory, no token, reused at once. */
	ndk_pair_fill(data, inl, 0xAB);
	s[0] = (struct ndk_sge){ .va = data, .length = inl / 2, .token = 0 };
	s[1] = (struct ndk_sge){ .va = data + inl / 2,
				 .length = inl - inl / 2, .token = 0 };
	{
		struct ndk_sge r = ndk_pair_sge(dst, 0, 1024);

		st = ndk_receive(c->qp[1], (void *)11, &r, 1);
		TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "receive");
	}
	st = ndk_send(c->qp[0], (void *)12, s, 2, NDK_OP_FLAG_INLINE);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "inline send: %s",
		       ndk_status_str(st));
	memset(data, 0, sizeof(data));
	if (expect_one(c->icq[0], NDK_OP_SEND, &qctx_a, (void *)12, -1,
		       "inline send") != 0 ||
	    expect_one(c->rcq[1], NDK_OP_RECEIVE, &qctx_b, (void *)11, inl,
		       "inline receive") != 0)
		return -1;
	TEST_ASSERT(ndk_pair_check(dst->data, inl, 0xAB) < 0, "inline send "
		    "data");

	ndk_pair_fill(data, inl, 0xCD);
	st = ndk_write(c->qp[0], (void *)13, s, 2, ndk_pair_raddr(dst, 512),
		       dst->rtoken, NDK_OP_FLAG_INLINE);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "inline write: %s",
		       ndk_status_str(st));
	memset(data, 0, sizeof(data));
	if (expect_one(c->icq[0], NDK_OP_WRITE, &qctx_a, (void *)13, -1,
		       "inline write") != 0)
		return -1;
	TEST_ASSERT(ndk_pair_check(dst->data + 512, inl, 0xCD) < 0,
		    "inline write data");
	TEST_ASSERT(ndk_pair_buf_guards_ok(dst), "guards");

	/* One byte more than the QP's inline size is refused. */
	s[1].length++;
	st = ndk_send(c->qp[0], (void *)14, s, 2, NDK_OP_FLAG_INLINE);
	TEST_ASSERT_EQ(st, NDK_STATUS_INVALID_PARAMETER, "inline %u+1 B: %s",
		       inl, ndk_status_str(st));
	ndk_pair_sleep_ms(50);
	if (expect_none(c->icq[0], "refused inline post") != 0)
		return -1;
	ndk_pair_conn_destroy(c);
	return 0;
}

static int
t_zero_length(void)
{
	struct ndk_pair *p = pair_get(4096);
	struct ndk_pair_conn *c;
	struct ndk_pair_buf *b, *rb;
	struct ndk_sge s, r;
	ndk_status_t st;

	TEST_ASSERT(p != NULL, "pair");
	c = conn_new(p, NULL);
	TEST_ASSERT(c != NULL, "connection");
	b = ndk_pair_buf_alloc(p, c->pd[1], 256,
			       NDK_MR_FLAG_ALLOW_REMOTE_WRITE |
			       NDK_MR_FLAG_ALLOW_REMOTE_READ);
	rb = ndk_pair_buf_alloc(p, c->pd[0], 256, read_sink_flags(p));
	TEST_ASSERT(b != NULL && rb != NULL, "buffers");
	r = ndk_pair_sge(b, 0, 256);

	/* SEND with no SGE, then with one empty SGE. */
	TEST_ASSERT_EQ(ndk_receive(c->qp[1], (void *)21, &r, 1),
		       NDK_STATUS_SUCCESS, "receive");
	st = ndk_send(c->qp[0], (void *)22, NULL, 0, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "send of no SGE: %s",
		       ndk_status_str(st));
	if (expect_one(c->icq[0], NDK_OP_SEND, &qctx_a, (void *)22, -1,
		       "0-SGE send") != 0 ||
	    expect_one(c->rcq[1], NDK_OP_RECEIVE, &qctx_b, (void *)21, 0,
		       "0-SGE receive") != 0)
		return -1;
	TEST_ASSERT_EQ(ndk_receive(c->qp[1], (void *)23, &r, 1),
		       NDK_STATUS_SUCCESS, "receive");
	s = ndk_pair_sge(rb, 0, 0);
	st = ndk_send(c->qp[0], (void *)24, &s, 1, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "send of an empty SGE: %s",
		       ndk_status_str(st));
	if (expect_one(c->icq[0], NDK_OP_SEND, &qctx_a, (void *)24, -1,
		       "empty-SGE send") != 0 ||
	    expect_one(c->rcq[1], NDK_OP_RECEIVE, &qctx_b, (void *)23, 0,
		       "empty-SGE receive") != 0)
		return -1;

	st = ndk_write(c->qp[0], (void *)25, NULL, 0, ndk_pair_raddr(b, 0),
		       b->rtoken, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "0-byte write: %s",
		       ndk_status_str(st));
	if (expect_one(c->icq[0], NDK_OP_WRITE, &qctx_a, (void *)25, -1,
		       "0-byte write") != 0)
		return -1;
	st = ndk_read(c->qp[0], (void *)26, NULL, 0, ndk_pair_raddr(b, 0),
		      b->rtoken, 0);
	TEST_ASSERT_EQ(st, NDK_STATUS_SUCCESS, "0-byte read: %s",
		       ndk_status_str(st));
	if (expect_one(c->icq[0], NDK_OP_READ, &qctx_a, (void *)26, -1,
		       "0-byte read") != 0)
		return -1;
	TEST_ASSERT(all_zero(b->data, 256) && all_zero(rb->data, 256),
		    "zero-length operations changed data");
	TEST_ASSERT(ndk_pair_buf_guards_ok(b) && ndk_pair_buf_guards_ok(rb),
		    "guards");
	/* The connection still works. */
	if (xfer(p, c, XOP_WRITE, 5000, 3) != 0)
		return -1;
	ndk_pair_conn_destroy(c);
	return 0;
}

static int
t_result_basic(void)
{
	struct ndk_pair *p = pair_get(4096);
	struct ndk_pair_conn *c;
	struct ndk_pair_buf *src, *dst;
	struct ndk_result r;
	struct ndk_sge s;

	TEST_ASSERT(p != NULL, "pair");
	c = conn_new(p, NULL);
	TEST_ASSERT(c != NULL, "connection");
	src = ndk_pair_buf_alloc(p, c->pd[0], 100, 0);
	dst = ndk_pair_buf_alloc(p, c->pd[1], 200,
				 NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
	TEST_ASSERT(src != NULL && dst != NULL, "buffers");
	ndk_pair_fill(src->data, 100, 31);
	s = ndk_pair_sge(dst, 0, 200);
	TEST_ASSERT_EQ(ndk_receive(c->qp[1], (void *)31, &s, 1),
		       NDK_STATUS_SUCCESS, "receive");
	s = ndk_pair_sge(src, 0, 100);
	TEST_ASSERT_EQ(ndk_send(c->qp[0], (void *)32, &s, 1, 0),
		       NDK_STATUS_SUCCESS, "send");
	TEST_ASSERT_EQ(ndk_pair_wait_basic(c->icq[0], &r, 1, WAIT_S), 1,
		       "send completion");
	TEST_ASSERT(r.status == NDK_STATUS_SUCCESS && r.qp_context == &qctx_a
		    && r.request_context == (void *)32,
		    "send: %s qp %p req %p", ndk_status_str(r.status),
		    r.qp_context, r.request_context);
	TEST_ASSERT_EQ(ndk_pair_wait_basic(c->rcq[1], &r, 1, WAIT_S), 1,
		       "receive completion");
	TEST_ASSERT(r.status == NDK_STATUS_SUCCESS && r.qp_context == &qctx_b
		    && r.request_context == (void *)31 &&
		    r.bytes_transferred == 100,
		    "receive: %s bytes %u qp %p req %p",
		    ndk_status_str(r.status), r.bytes_transferred,
		    r.qp_context, r.request_context);
	TEST_ASSERT(ndk_pair_check(dst->data, 100, 31) < 0, "data");
	ndk_pair_conn_destroy(c);
	return 0;
}

/* Multi-packet messages across the 24-bit PSN wrap. */
static int
t_psn_wrap(void)
{
	struct ndk_pair *p = pair_get(1024);
	struct ndk_pair_conn_opts o = {
		.fixed_psn = true,
		.sq_psn = { 0xFFFFF0, 0xFFFFFE },
	};
	struct ndk_pair_conn *c;

	TEST_ASSERT(p != NULL, "pair");
	c = conn_new(p, &o);
	TEST_ASSERT(c != NULL, "connection");
	for (unsigned int i = 0; i < 3; i++)
		if (xfer(p, c, XOP_SEND, 40000, 40 + i) != 0 ||
		    xfer(p, c, XOP_WRITE, 40000, 50 + i) != 0 ||
		    xfer(p, c, XOP_READ, 40000, 60 + i) != 0)
			return -1;
	ndk_pair_conn_destroy(c);
	return 0;
}

static const struct ndk_test_case cases[] = {
	{ "send_sizes_mtu4096", t_send_mtu4096 },
	{ "write_sizes_mtu4096", t_write_mtu4096 },
	{ "read_sizes_mtu4096", t_read_mtu4096 },
	{ "send_sizes_mtu1024", t_send_mtu1024 },
	{ "write_sizes_mtu1024", t_write_mtu1024 },
	{ "read_sizes_mtu1024", t_read_mtu1024 },
	{ "multi_sge", t_multi_sge },
	{ "inline", t_inline },
	{ "zero_length", t_zero_length },
	{ "result_non_ex", t_result_basic },
	{ "psn_wrap", t_psn_wrap },
};

int
main(int argc, char **argv)
{
	return rc_main("test_func_rc_data", "rc_data", cases, RTE_DIM(cases),
		       argc, argv);
}
