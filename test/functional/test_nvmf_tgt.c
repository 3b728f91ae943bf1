/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: lib/nvmf's target on adapter B of a net_ring pair, driven by
 * a minimal NVMe/RDMA host written here on adapter A with NDK verbs only
 * (connectors with the binding's private data, command capsules by SEND,
 * data in a registered buffer named by keyed SGLs, responses by RECEIVE).
 * One thread polls both: the host's adapter and ndk_nvmf_tgt_poll().
 *
 * Cases: a whole session (admin and two I/O queues, Connect data in the
 * capsule and by RDMA READ, writes in-capsule and keyed, reads, verified
 * data, multi-descriptor SGLs (a Last Segment in the capsule) both ways, a second controller with its own I/O queue at the same time,
 * disconnect with everything freed); CM requests the binding
 * refuses; the session again over a lossy link (lib/netem); keep-alive
 * expiry; a host that vanishes with a Read in flight
 * (the target's RDMA WRITE is never acknowledged): the target frees every
 * queue pair, controller, request and data buffer.
 */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_malloc.h>

#include "ndk_netem.h"
#include "ndk_pair.h"
#include "ndk_pair_test.h"
#include "ndk_test.h"
#include "nvmf_tgt_int.h"

#define NQN "nqn.2026-11.io.ndk-roce:func"
#define HOSTNQN "nqn.2014-08.org.nvmexpress:uuid:00000000-0000-0000-0000-0000000000aa"
#define NS_BYTES (4u << 20)
#define H_SEND 0                /* capsule being sent: 64 + 4096 */
#define H_RECV 8192             /* response capsules, 16 B each */
#define H_NRECV 32
#define H_DATA 16384            /* data: 256 KiB */
#define H_LEN (H_DATA + 256 * 1024)
#define WAIT_S 20.0

static struct ndk_pair *P;
static struct ndk_nvmf_tgt *tgt;
static struct ndk_pd *hpd;
static bool host_polled = true;

/* A host queue pair. */
struct hq {
	struct ndk_qp *qp;
	struct ndk_cq *cq;
	struct ndk_connector *conn;
	struct ndk_mr *mr;
	uint8_t *mem;
	uint32_t lt, rt;
	int done;
	ndk_status_t st;
	int disc;
	uint16_t cid;
};

static void
pump(void)
{
	if (host_polled)
		ndk_adapter_poll(P->ad[NDK_PAIR_A]);
	ndk_nvmf_tgt_poll(tgt);
}

static bool
expired(uint64_t t0, double s)
{
	return rte_get_timer_cycles() - t0 > (uint64_t)(s * rte_get_timer_hz());
}

static void
hq_req_done(void *ctx, ndk_status_t st)
{
	struct hq *h = ctx;

	h->st = st;
	h->done = 1;
}

static void
hq_disc(void *ctx, uint32_t reason)
{
	struct hq *h = ctx;

	RTE_SET_USED(reason);
	h->disc = 1;
}

static ndk_status_t
hq_wait(struct hq *h, ndk_status_t st)
{
	uint64_t t0 = rte_get_timer_cycles();

	if (st != NDK_STATUS_PENDING)
		return st;
	while (!h->done && !expired(t0, WAIT_S))
		pump();
	if (!h->done)
		return NDK_STATUS_IO_TIMEOUT;
	h->done = 0;
	return h->st;
}

static void
hq_post_recv(struct hq *h, unsigned int i)
{
	struct ndk_sge s = { h->mem + H_RECV + i * 16, 16, h->lt };

	ndk_receive(h->qp, (void *)(uintptr_t)(i + 1), &s, 1);
}

/* Connect a host queue: @p pd the CM private data (NULL: the binding's
 * request for @p qid with @p entries). */
static ndk_status_t
hq_open(struct hq *h, uint16_t qid, uint16_t entries,
	const struct nvmf_rdma_cm_req *pd)
{
	struct sockaddr_in src = { .sin_family = AF_INET };
	struct sockaddr_in dst = { .sin_family = AF_INET };
	struct nvmf_rdma_cm_req r = { 0, qid, H_NRECV,
				      (uint16_t)(entries - 1), 0xFFFF, { 0 } };
	ndk_status_t st;

	memset(h, 0, sizeof(*h));
	h->mem = rte_zmalloc("hq", H_LEN, 4096);
	if (h->mem == NULL || ndk_create_mr(hpd, false, &h->mr) != 0 ||
	    ndk_register_mr(h->mr, h->mem, H_LEN,
			    NDK_MR_FLAG_ALLOW_LOCAL_WRITE |
			    NDK_MR_FLAG_ALLOW_REMOTE_READ |
			    NDK_MR_FLAG_ALLOW_REMOTE_WRITE) != 0 ||
	    ndk_create_cq(P->ad[NDK_PAIR_A], 256, NULL, NULL, &h->cq) != 0 ||
	    ndk_create_qp(hpd, h->cq, h->cq, h, H_NRECV, 64, 1, 1, 0,
			  &h->qp) != 0 ||
	    ndk_create_connector(P->ad[NDK_PAIR_A], &h->conn) != 0)
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	h->lt = ndk_mr_local_token(h->mr);
	h->rt = ndk_mr_remote_token(h->mr);
	for (unsigned int i = 0; i < H_NRECV; i++)
		hq_post_recv(h, i);
	src.sin_addr.s_addr = P->ipv4[NDK_PAIR_A];
	dst.sin_addr.s_addr = P->ipv4[NDK_PAIR_B];
	dst.sin_port = htons(NVMF_RDMA_PORT);
	st = ndk_connect(h->conn, h->qp, (struct sockaddr *)&src, sizeof(src),
			 (struct sockaddr *)&dst, sizeof(dst), 4, 4,
			 pd != NULL ? pd : &r, sizeof(r), hq_req_done, h);
	st = hq_wait(h, st);
	if (st != NDK_STATUS_SUCCESS)
		return st;
	return hq_wait(h, ndk_complete_connect(h->conn, hq_disc, h,
					       hq_req_done, h));
}

static void
hq_close(struct hq *h, bool graceful)
{
	struct ndk_result_ex r;

	if (h->conn != NULL && graceful && !h->disc)
		hq_wait(h, ndk_disconnect(h->conn, hq_req_done, h));
	if (h->conn != NULL)
		ndk_close_connector(h->conn, NULL, NULL);
	if (h->qp != NULL)
		ndk_close_qp(h->qp, NULL, NULL);
	if (h->cq != NULL) {
		while (ndk_get_cq_results_ex(h->cq, &r, 1) != 0)
			;
		ndk_close_cq(h->cq, NULL, NULL);
	}
	if (h->mr != NULL) {
		ndk_deregister_mr(h->mr);
		ndk_close_mr(h->mr, NULL, NULL);
	}
	rte_free(h->mem);
	memset(h, 0, sizeof(*h));
}

/* Send @p c (with @p icd_len bytes of in-capsule data from @p icd) and
 * wait for its response; @return 0 and *@p cpl, or -1. */
static int
hq_cmd(struct hq *h, struct nvme_cmd *c, const void *icd, uint32_t icd_len,
       struct nvme_cpl *cpl)
{
	struct ndk_sge s = { h->mem + H_SEND, 64 + icd_len, h->lt };
	uint64_t t0 = rte_get_timer_cycles();
	struct ndk_result_ex r;

	c->cid = ++h->cid;
	c->flags |= NVME_CMD_PSDT_SGL_MPTR_CONTIG;  /* SGLs, as on any fabric */
	memcpy(h->mem + H_SEND, c, 64);
	if (icd_len > 0)
		memcpy(h->mem + H_SEND + 64, icd, icd_len);
	if (ndk_send(h->qp, NULL, &s, 1, 0) != NDK_STATUS_SUCCESS)
		return -1;
	while (!expired(t0, WAIT_S)) {
		if (ndk_get_cq_results_ex(h->cq, &r, 1) == 0) {
			pump();
			continue;
		}
		if (r.status != NDK_STATUS_SUCCESS)
			return -1;
		if (r.type != NDK_OP_RECEIVE)
			continue;
		unsigned int i = (unsigned int)(uintptr_t)r.request_context - 1;

		memcpy(cpl, h->mem + H_RECV + i * 16, sizeof(*cpl));
		hq_post_recv(h, i);
		if (cpl->cid != c->cid)
			return -1;
		return 0;
	}
	return -1;
}

/* Keyed SGL over [H_DATA + off, +len) of @p h's buffer. */
static void
keyed(struct hq *h, struct nvme_cmd *c, uint32_t off, uint32_t len)
{
	c->flags = NVME_CMD_PSDT_SGL_MPTR_CONTIG;
	nvme_sgl_set_keyed(&c->dptr, (uint64_t)(uintptr_t)(h->mem + H_DATA + off),
			   len, h->rt, false);
}

/* A Last Segment in the capsule: keyed descriptors of the pieces
 * {offset, length} of @p h's buffer, in @p list. @return its bytes. */
static uint32_t
segmented(struct hq *h, struct nvme_cmd *c, struct nvme_sgl_desc *list,
	  const uint32_t (*pieces)[2], uint32_t n)
{
	c->flags = NVME_CMD_PSDT_SGL_MPTR_CONTIG;
	c->dptr.id = NVME_SGL_ID(NVME_SGL_TYPE_LAST_SEGMENT,
				 NVME_SGL_SUBTYPE_OFFSET);
	c->dptr.addr = 0;
	nvme_sgl_set_length(&c->dptr, n * 16);
	for (uint32_t i = 0; i < n; i++)
		nvme_sgl_set_keyed(&list[i], (uint64_t)(uintptr_t)(h->mem +
				   H_DATA + pieces[i][0]), pieces[i][1], h->rt,
				   false);
	return n * 16;
}

static void
in_capsule(struct nvme_cmd *c, uint32_t len)
{
	c->flags = NVME_CMD_PSDT_SGL_MPTR_CONTIG;
	c->dptr.addr = 0;
	nvme_sgl_set_length(&c->dptr, len);
	c->dptr.id = NVME_SGL_ID(NVME_SGL_TYPE_DATA_BLOCK,
				 NVME_SGL_SUBTYPE_OFFSET);
}

/* Connect on @p h: the data in the capsule or (keyed) by RDMA READ. */
static int
hq_connect(struct hq *h, uint16_t qid, uint16_t cntlid, uint32_t kato,
	   bool keyed_data, struct nvme_cpl *cpl)
{
	struct nvme_cmd c;
	struct nvmf_connect_cmd *cc = (struct nvmf_connect_cmd *)&c;
	struct nvmf_connect_data d;

	memset(&c, 0, sizeof(c));
	memset(&d, 0, sizeof(d));
	cc->opc = NVME_OPC_FABRICS;
	cc->fctype = NVMF_FCTYPE_CONNECT;
	cc->qid = qid;
	cc->sqsize = qid == 0 ? 31 : 63;
	cc->kato = kato;
	d.cntlid = cntlid;
	snprintf(d.subnqn, sizeof(d.subnqn), "%s", NQN);
	snprintf(d.hostnqn, sizeof(d.hostnqn), "%s", HOSTNQN);
	if (keyed_data) {
		memcpy(h->mem + H_DATA, &d, sizeof(d));
		keyed(h, &c, 0, sizeof(d));
		return hq_cmd(h, &c, NULL, 0, cpl);
	}
	in_capsule(&c, sizeof(d));
	return hq_cmd(h, &c, &d, sizeof(d), cpl);
}

static int
hq_enable(struct hq *h)
{
	struct nvme_cmd c;
	struct nvmf_property_cmd *pc = (struct nvmf_property_cmd *)&c;
	struct nvme_cpl cpl;

	memset(&c, 0, sizeof(c));
	pc->opc = NVME_OPC_FABRICS;
	pc->fctype = NVMF_FCTYPE_PROPERTY_SET;
	pc->offset = NVME_PROP_CC;
	pc->value = NVME_CC_EN | 6u << NVME_CC_IOSQES_SHIFT |
		4u << NVME_CC_IOCQES_SHIFT;
	return hq_cmd(h, &c, NULL, 0, &cpl) == 0 && cpl.status == 0 ? 0 : -1;
}

static struct nvme_cmd
rw(uint8_t opc, uint64_t slba, uint32_t nlb)
{
	struct nvme_cmd c;

	memset(&c, 0, sizeof(c));
	c.opc = opc;
	c.nsid = 1;
	c.cdw10 = (uint32_t)slba;
	c.cdw11 = (uint32_t)(slba >> 32);
	c.cdw12 = nlb - 1;
	return c;
}

/* Poll until the target has nothing left: no queue pair, controller,
 * request; every data buffer back. */
static int
wait_idle(double s)
{
	uint64_t t0 = rte_get_timer_cycles();

	while (!expired(t0, s) && (tgt->stats.qpairs_now != 0 ||
				   tgt->stats.ctrlrs_now != 0))
		pump();
	for (uint32_t i = 0; i < tgt->cfg.max_qpairs; i++) {
		const struct nvmf_qpair *qp = &tgt->qpairs[i];

		if (qp->state != NVMF_QP_FREE)
			printf("  qpair %u: qid %u state %d, %u work requests, "
			       "%u requests, cm %d, connector %s\n", i, qp->qid,
			       (int)qp->state, qp->wr_outstanding,
			       qp->reqs_busy, qp->cm_pending,
			       qp->conn != NULL ? "open" : "closed");
	}
	TEST_ASSERT_EQ(tgt->stats.qpairs_now, 0, "");
	TEST_ASSERT_EQ(tgt->stats.ctrlrs_now, 0, "");
	TEST_ASSERT_EQ(tgt->stats.inflight_now, 0, "");
	TEST_ASSERT_EQ(tgt->nbuf_free, tgt->cfg.nb_data_buffers,
		       "data buffers back");
	TEST_ASSERT_EQ(tgt->nsmall_free, tgt->nb_small,
		       "small data buffers back");
	TEST_ASSERT(TAILQ_EMPTY(&tgt->buf_wait), "");
	return 0;
}

/* ------------------------------------------------------------------ */
/* Cases                                                               */
/* ------------------------------------------------------------------ */

static int
t_session(void)
{
	static struct hq a, q1, q2, b, qb;
	static uint8_t pattern[65536], small[4096];
	struct nvme_cpl cpl;
	struct nvme_cmd c;
	uint16_t cntlid;
	int rc = -1, step = 0;

	for (unsigned int i = 0; i < sizeof(pattern); i++)
		pattern[i] = (uint8_t)(i * 13 + 1);
	memset(small, 0xC3, sizeof(small));
	TEST_ASSERT_EQ(hq_open(&a, 0, 32, NULL), NDK_STATUS_SUCCESS, "");
	step = 1;
	if (hq_connect(&a, 0, 0xFFFF, 0, false, &cpl) != 0 || cpl.status)
		goto out;
	cntlid = (uint16_t)cpl.cdw0;
	step = 2;
	if (hq_enable(&a) != 0)
		goto out;
	step = 3;
	/* Identify by RDMA WRITE into the host's buffer. */
	memset(&c, 0, sizeof(c));
	c.opc = NVME_OPC_IDENTIFY;
	c.cdw10 = NVME_CNS_CONTROLLER;
	keyed(&a, &c, 0, 4096);
	if (hq_cmd(&a, &c, NULL, 0, &cpl) != 0 || cpl.status != 0 ||
	    strcmp(((struct nvme_id_ctrl *)(a.mem + H_DATA))->subnqn, NQN))
		goto out;
	memset(&c, 0, sizeof(c));
	c.opc = NVME_OPC_SET_FEATURES;
	c.cdw10 = NVME_FEAT_NUM_QUEUES;
	c.cdw11 = 1 | 1u << 16;
	step = 4;
	if (hq_cmd(&a, &c, NULL, 0, &cpl) != 0 || cpl.status != 0)
		goto out;
	step = 5;
	/* Two I/O queues; the second's Connect data by RDMA READ. */
	if (hq_open(&q1, 1, 64, NULL) != NDK_STATUS_SUCCESS ||
	    hq_connect(&q1, 1, cntlid, 0, false, &cpl) != 0 || cpl.status ||
	    hq_open(&q2, 2, 64, NULL) != NDK_STATUS_SUCCESS ||
	    hq_connect(&q2, 2, cntlid, 0, true, &cpl) != 0 || cpl.status)
		goto out;
	/* 64 KiB keyed write on queue 1, 4 KiB in-capsule on queue 2. */
	step = 6;
	memcpy(q1.mem + H_DATA, pattern, sizeof(pattern));
	c = rw(NVME_OPC_WRITE, 8, 128);
	keyed(&q1, &c, 0, sizeof(pattern));
	if (hq_cmd(&q1, &c, NULL, 0, &cpl) != 0 || cpl.status != 0)
		goto out;
	c = rw(NVME_OPC_WRITE, 1000, 8);
	in_capsule(&c, sizeof(small));
	if (hq_cmd(&q2, &c, small, sizeof(small), &cpl) != 0 || cpl.status)
		goto out;
	step = 7;
	/* Read both back on the other queue. */
	memset(q2.mem + H_DATA, 0, sizeof(pattern));
	c = rw(NVME_OPC_READ, 8, 128);
	keyed(&q2, &c, 0, sizeof(pattern));
	if (hq_cmd(&q2, &c, NULL, 0, &cpl) != 0 || cpl.status != 0 ||
	    memcmp(q2.mem + H_DATA, pattern, sizeof(pattern)) != 0)
		goto out;
	c = rw(NVME_OPC_READ, 1000, 8);
	keyed(&q1, &c, 0, sizeof(small));
	if (hq_cmd(&q1, &c, NULL, 0, &cpl) != 0 || cpl.status != 0 ||
	    memcmp(q1.mem + H_DATA, small, sizeof(small)) != 0)
		goto out;
	step = 8;
	/* Multi-descriptor SGLs: the 64 KiB written from three pieces of
	 * the buffer out of order, read back into two other pieces. */
	{
		static const uint32_t wp[3][2] = {
			{ 32768, 16384 }, { 0, 32768 }, { 49152, 16384 },
		};
		static const uint32_t rp[2][2] = {
			{ 131072, 40960 }, { 65536, 24576 },
		};
		struct nvme_sgl_desc list[3];
		uint8_t *m = q1.mem + H_DATA;
		uint32_t n;

		memcpy(m + 32768, pattern, 16384);
		memcpy(m, pattern + 16384, 32768);
		memcpy(m + 49152, pattern + 49152, 16384);
		c = rw(NVME_OPC_WRITE, 200, 128);
		n = segmented(&q1, &c, list, wp, 3);
		if (hq_cmd(&q1, &c, list, n, &cpl) != 0 || cpl.status != 0)
			goto out;
		memset(m + 65536, 0, 131072);
		c = rw(NVME_OPC_READ, 200, 128);
		n = segmented(&q1, &c, list, rp, 2);
		if (hq_cmd(&q1, &c, list, n, &cpl) != 0 || cpl.status != 0 ||
		    memcmp(m + 131072, pattern, 40960) != 0 ||
		    memcmp(m + 65536, pattern + 40960, 24576) != 0)
			goto out;
		/* A Last Segment longer than MSDBD descriptors. */
		c = rw(NVME_OPC_READ, 200, 8);
		n = segmented(&q1, &c, list, rp, 2);
		nvme_sgl_set_length(&c.dptr, (NVMF_MAX_SGL_DESC + 1) * 16);
		if (hq_cmd(&q1, &c, list, n, &cpl) != 0 ||
		    cpl.status != nvme_status(NVME_SCT_GENERIC,
					      NVME_SC_INVALID_NUM_SGL_DESC, 1))
			goto out;
	}
	step = 9;
	/* An error answered, not a crash: LBA out of range. */
	c = rw(NVME_OPC_READ, NS_BYTES / 512, 1);
	keyed(&q1, &c, 0, 512);
	if (hq_cmd(&q1, &c, NULL, 0, &cpl) != 0 ||
	    cpl.status != nvme_status(NVME_SCT_GENERIC,
				      NVME_SC_LBA_OUT_OF_RANGE, 1))
		goto out;
	/* A SGL longer than the target's MDTS. */
	c = rw(NVME_OPC_READ, 0, 8);
	keyed(&q1, &c, 0, 1u << 20);
	if (hq_cmd(&q1, &c, NULL, 0, &cpl) != 0 ||
	    cpl.status != nvme_status(NVME_SCT_GENERIC,
				      NVME_SC_DATA_SGL_LENGTH_INVALID, 1))
		goto out;
	/* A second controller of the same host at once, with its own
	 * queue 1, writing over what the first wrote. */
	step = 10;
	if (hq_open(&b, 0, 32, NULL) != NDK_STATUS_SUCCESS ||
	    hq_connect(&b, 0, 0xFFFF, 0, false, &cpl) != 0 || cpl.status ||
	    (uint16_t)cpl.cdw0 == cntlid || hq_enable(&b) != 0 ||
	    hq_open(&qb, 1, 64, NULL) != NDK_STATUS_SUCCESS ||
	    hq_connect(&qb, 1, (uint16_t)cpl.cdw0, 0, false, &cpl) != 0 ||
	    cpl.status)
		goto out;
	step = 11;
	memset(qb.mem + H_DATA, 0x77, 4096);
	c = rw(NVME_OPC_WRITE, 1000, 8);
	keyed(&qb, &c, 0, 4096);
	if (hq_cmd(&qb, &c, NULL, 0, &cpl) != 0 || cpl.status != 0)
		goto out;
	memset(q2.mem + H_DATA, 0, 4096);
	c = rw(NVME_OPC_READ, 1000, 8);
	keyed(&q2, &c, 0, 4096);
	if (hq_cmd(&q2, &c, NULL, 0, &cpl) != 0 || cpl.status != 0 ||
	    memcmp(q2.mem + H_DATA, qb.mem + H_DATA, 4096) != 0)
		goto out;
	rc = tgt->stats.qpairs_now == 5 && tgt->stats.ctrlrs_now == 2 ? 0 : -2;
out:
	hq_close(&qb, true);
	hq_close(&b, true);
	hq_close(&q1, true);
	hq_close(&q2, true);
	hq_close(&a, true);
	TEST_ASSERT_EQ(rc, 0, "session: step %d, last status %#x", step,
		       cpl.status);
	return wait_idle(WAIT_S);
}

/* The session over a link that drops 1 % and reorders 0.5 % of the
 * frames each way (lib/netem): every byte still right. */
static int
t_session_loss(void)
{
	struct ndk_netem_config nc = { .drop_ppm = 10000, .reorder_ppm = 5000,
				       .seed = 14 };
	struct ndk_netem *ne[2] = { NULL, NULL };
	struct ndk_netem_stats ns[2] = { { 0 }, { 0 } };
	int rc = 0;

	for (int s = 0; s < 2; s++) {
		ne[s] = ndk_netem_attach(P->port[s], 0, &nc);
		TEST_ASSERT(ne[s] != NULL, "netem on port %u", P->port[s]);
	}
	for (int i = 0; i < 3 && rc == 0; i++)
		rc = t_session();
	for (int s = 0; s < 2; s++) {
		ndk_netem_get_stats(ne[s], &ns[s]);
		printf("  netem %c: seen %lu dropped %lu reordered %lu\n",
		       'A' + s, (unsigned long)ns[s].seen,
		       (unsigned long)ns[s].dropped,
		       (unsigned long)ns[s].reordered);
		ndk_netem_detach(ne[s]);
	}
	TEST_ASSERT_EQ(rc, 0, "");
	TEST_ASSERT(ns[0].dropped + ns[1].dropped > 0, "nothing was lost");
	return 0;
}

static int
t_cm_reject(void)
{
	static struct hq h;
	struct nvmf_rdma_cm_req r = { 1, 0, 32, 31, 0xFFFF, { 0 } };
	uint64_t rej0 = tgt->stats.connect_rejects;
	ndk_status_t st;

	st = hq_open(&h, 0, 32, &r);
	hq_close(&h, false);
	TEST_ASSERT(st != NDK_STATUS_SUCCESS, "record format 1 accepted");
	r.recfmt = 0;
	r.hsqsize = 4096;       /* more than the target's queue depth */
	st = hq_open(&h, 0, 32, &r);
	hq_close(&h, false);
	TEST_ASSERT(st != NDK_STATUS_SUCCESS, "hsqsize 4096 accepted");
	r.hsqsize = 31;
	r.qid = 100;            /* beyond max_io_queues */
	st = hq_open(&h, 0, 32, &r);
	hq_close(&h, false);
	TEST_ASSERT(st != NDK_STATUS_SUCCESS, "qid 100 accepted");
	TEST_ASSERT_EQ(tgt->stats.connect_rejects, rej0 + 3, "");
	return wait_idle(WAIT_S);
}

static int
t_keep_alive(void)
{
	static struct hq a;
	struct nvme_cpl cpl;
	uint64_t t0, ka0 = tgt->stats.keep_alive_expiries;

	TEST_ASSERT_EQ(hq_open(&a, 0, 32, NULL), NDK_STATUS_SUCCESS, "");
	TEST_ASSERT(hq_connect(&a, 0, 0xFFFF, 1000, false, &cpl) == 0 &&
		    cpl.status == 0, "");
	TEST_ASSERT_EQ(hq_enable(&a), 0, "");
	/* Silent for more than 1 s: the target ends the controller. */
	t0 = rte_get_timer_cycles();
	while (!a.disc && !expired(t0, WAIT_S))
		pump();
	TEST_ASSERT(a.disc, "no disconnect after the keep-alive timeout");
	TEST_ASSERT(expired(t0, 0.9), "ended before its KATO");
	TEST_ASSERT_EQ(tgt->stats.keep_alive_expiries, ka0 + 1, "");
	hq_close(&a, false);
	return wait_idle(WAIT_S);
}

static int
t_host_vanishes(void)
{
	static struct hq a, q;
	struct nvme_cpl cpl;
	struct nvme_cmd c;
	uint64_t t0, ka0 = tgt->stats.keep_alive_expiries;
	struct ndk_sge s;
	int rc;

	TEST_ASSERT_EQ(hq_open(&a, 0, 32, NULL), NDK_STATUS_SUCCESS, "");
	/* KATO 120 s (shortened below): the admin queue goes once the
	 * host is silent. */
	TEST_ASSERT(hq_connect(&a, 0, 0xFFFF, 120000, false, &cpl) == 0 &&
		    cpl.status == 0, "");
	TEST_ASSERT_EQ(hq_enable(&a), 0, "");
	TEST_ASSERT_EQ(hq_open(&q, 1, 64, NULL), NDK_STATUS_SUCCESS, "");
	TEST_ASSERT(hq_connect(&q, 1, (uint16_t)cpl.cdw0, 0, false, &cpl) ==
		    0 && cpl.status == 0, "");
	/* A 128 KiB read goes out; the host is never heard of again. */
	c = rw(NVME_OPC_READ, 0, 256);
	keyed(&q, &c, 0, 128 * 1024);
	c.cid = 77;
	memcpy(q.mem + H_SEND, &c, 64);
	s = (struct ndk_sge){ q.mem + H_SEND, 64, q.lt };
	TEST_ASSERT_EQ(ndk_send(q.qp, NULL, &s, 1, 0), NDK_STATUS_SUCCESS, "");
	/* Let the command leave, then stop the host's adapter. */
	for (int i = 0; i < 50; i++)
		ndk_adapter_poll(P->ad[NDK_PAIR_A]);
	host_polled = false;
	/* The I/O queue ends on its own: the RDMA WRITE is never
	 * acknowledged and its retries run out (~20 s here), long before
	 * the KATO. */
	t0 = rte_get_timer_cycles();
	while (tgt->stats.qpairs_now > 1 && !expired(t0, 100.0))
		pump();
	TEST_ASSERT_EQ(tgt->stats.qpairs_now, 1, "the I/O queue pair is gone");
	TEST_ASSERT_EQ(tgt->stats.keep_alive_expiries, ka0, "");
	/* The admin queue: its keep-alive timeout shortened to 1 s. */
	for (uint32_t i = 0; i < tgt->cfg.max_ctrlrs; i++)
		if (tgt->ctrlrs[i].used)
			tgt->ctrlrs[i].kato_ms = 1000;
	rc = wait_idle(WAIT_S);
	TEST_ASSERT_EQ(tgt->stats.keep_alive_expiries, ka0 + 1, "");
	TEST_ASSERT(tgt->stats.disconnects >= 2, "");
	host_polled = true;
	hq_close(&q, false);
	hq_close(&a, false);
	return rc;
}

static const struct ndk_test_case cases[] = {
	{ "session", t_session },
	{ "session_loss", t_session_loss },
	{ "cm_reject", t_cm_reject },
	{ "keep_alive", t_keep_alive },
	{ "host_vanishes", t_host_vanishes },
};

int
main(int argc, char **argv)
{
	struct ndk_pair_config pc = { .no_pollers = true };
	struct ndk_nvmf_tgt_config tc = { .poll_adapter = true,
					  .max_qpairs = 8, .max_io_queues = 2,
					  .socket_id = -1 };
	struct ndk_nvmf_ns_config nc = { .type = NDK_NVMF_NS_MEM,
					 .size = NS_BYTES };
	struct ndk_nvmf_subsystem *s;
	int rc = 1;

	if (ndk_test_eal_init("test_func_nvmf_tgt", "0-1", NULL) != 0)
		return 1;
	P = ndk_pair_create(&pc);
	if (P == NULL || ndk_create_pd(P->ad[NDK_PAIR_A], &hpd) != 0)
		goto out;
	tc.adapter = P->ad[NDK_PAIR_B];
	if (ndk_nvmf_tgt_create(&tc, &tgt) != 0 ||
	    ndk_nvmf_tgt_add_subsystem(tgt, NQN, NULL, false, &s) != 0 ||
	    ndk_nvmf_subsystem_add_host(s, HOSTNQN) != 0 ||
	    ndk_nvmf_subsystem_add_ns(s, &nc, NULL) != 0 ||
	    ndk_nvmf_tgt_listen(tgt, P->ipv4[NDK_PAIR_B], 0) != 0) {
		fprintf(stderr, "target set-up failed\n");
		goto out;
	}
	rc = ndk_test_run("nvmf_tgt", cases, RTE_DIM(cases), argc, argv);
out:
	ndk_nvmf_tgt_destroy(tgt);
	if (hpd != NULL)
		ndk_close_pd(hpd, NULL, NULL);
	ndk_pair_destroy(P);
	rte_eal_cleanup();
	return rc;
}
