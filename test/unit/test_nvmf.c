/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Unit tests of lib/nvmf's target without a NIC: a target built by hand
 * (the structures of nvmf_tgt_int.h, no adapter), queue pairs whose
 * complete() hook records the response, and requests whose data buffer
 * the test provides. A request goes into nvmf_req_exec() (or the SGL
 * parser), its completion comes out through the hook: every status is
 * checked against the NVMe specifications.
 */

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_malloc.h>

#include "ndk_test.h"
#include "nvmf_tgt_int.h"
#include "test_nvmf.h"

struct ndk_nvmf_tgt *T;
struct ndk_nvmf_subsystem *S;
struct nvmf_qpair QA, QI, QD;

static struct nvmf_req reqs[16];
static struct nvme_cpl cpls[16];
static unsigned int next_req;
struct nvme_cpl got;            /* the last response */
unsigned int ncompl;            /* responses so far */
uint8_t buf[TN_BUF];

static void
capture(struct nvmf_req *req)
{
	got = *req->cpl;
	ncompl++;
}

void
tn_qp_init(struct nvmf_qpair *qp, uint16_t qid, uint16_t entries)
{
	memset(qp, 0, sizeof(*qp));
	qp->tgt = T;
	qp->qid = qid;
	qp->entries = entries;
	qp->state = NVMF_QP_ACTIVE;
	qp->complete = capture;
	TAILQ_INIT(&qp->free_reqs);
}

int
tn_fixture(void)
{
	struct ndk_nvmf_ns_config nc = { .type = NDK_NVMF_NS_MEM,
					 .size = TN_NS_BYTES };
	uint32_t nsid = 0;

	T = rte_zmalloc(NULL, sizeof(*T), 64);
	if (T == NULL)
		return -1;
	T->cfg.max_qpairs = 4;
	T->cfg.max_ctrlrs = 4;
	T->cfg.max_io_queues = 4;
	T->cfg.max_queue_depth = 128;
	T->cfg.in_capsule_data_size = 4096;
	T->cfg.max_io_size = TN_MAX_IO;
	T->ctrlrs = rte_zmalloc(NULL, sizeof(*T->ctrlrs) * 4, 64);
	T->scratch_size = 64 * 1024;
	T->scratch = rte_zmalloc(NULL, T->scratch_size, 64);
	if (T->ctrlrs == NULL || T->scratch == NULL)
		return -1;
	TAILQ_INIT(&T->buf_wait);
	snprintf(T->model, sizeof(T->model), "unit");
	T->next_cntlid = 1;
	T->genctr = 1;
	T->subsys[0].tgt = T;
	T->subsys[0].used = true;
	T->subsys[0].discovery = true;
	T->subsys[0].allow_any_host = true;
	snprintf(T->subsys[0].nqn, sizeof(T->subsys[0].nqn), "%s",
		 NVMF_DISCOVERY_NQN);
	T->listeners[0].ipv4 = inet_addr("10.0.0.1");
	T->listeners[0].port = 4420;
	T->nlisteners = 1;
	if (ndk_nvmf_tgt_add_subsystem(T, TN_NQN, "SN1", false, &S) != 0 ||
	    ndk_nvmf_subsystem_add_host(S, TN_HOST) != 0 ||
	    ndk_nvmf_subsystem_add_ns(S, &nc, &nsid) != 0 || nsid != 1)
		return -1;
	tn_qp_init(&QA, 0, 32);
	tn_qp_init(&QI, 1, 128);
	tn_qp_init(&QD, 0, 32);
	next_req = 0;
	ncompl = 0;
	return 0;
}

void
tn_fixture_free(void)
{
	if (T == NULL)
		return;
	for (uint32_t s = 0; s < NVMF_MAX_SUBSYS; s++)
		for (uint32_t n = 0; n < NVMF_MAX_NS; n++) {
			struct nvmf_ns *ns = T->subsys[s].ns[n];

			if (ns != NULL) {
				nvmf_bdev_destroy(ns->bdev);
				rte_free(ns);
			}
		}
	rte_free(T->ctrlrs);
	rte_free(T->scratch);
	rte_free(T);
	T = NULL;
}

struct nvmf_req *
tn_req(struct nvmf_qpair *qp, const struct nvme_cmd *c, void *data,
       uint32_t len)
{
	struct nvmf_req *r = &reqs[next_req % RTE_DIM(reqs)];

	memset(r, 0, sizeof(*r));
	r->cpl = &cpls[next_req % RTE_DIM(reqs)];
	next_req++;
	memset(r->cpl, 0, sizeof(*r->cpl));
	r->kind = NVMF_CTX_REQ;
	r->qp = qp;
	r->cmd = *c;
	r->xfer = (uint8_t)nvmf_cmd_xfer(c);
	r->data = data;
	r->length = len;
	r->loc = data != NULL ? NVMF_DATA_KEYED : NVMF_DATA_NONE;
	return r;
}

uint32_t
tn_run(struct nvmf_qpair *qp, const struct nvme_cmd *c, void *data,
       uint32_t len)
{
	unsigned int before = ncompl;

	nvmf_req_exec(tn_req(qp, c, data, len));
	if (ncompl == before)
		return TN_PENDING;
	return got.status;
}

uint32_t
tn_connect(struct nvmf_qpair *qp, uint16_t qid, const char *subnqn,
	   const char *hostnqn, uint16_t cntlid, uint32_t kato)
{
	struct nvme_cmd c;
	struct nvmf_connect_cmd *cc = (struct nvmf_connect_cmd *)&c;
	static struct nvmf_connect_data d;

	memset(&c, 0, sizeof(c));
	cc->opc = NVME_OPC_FABRICS;
	cc->flags = NVME_CMD_PSDT_SGL_MPTR_CONTIG;
	cc->fctype = NVMF_FCTYPE_CONNECT;
	cc->qid = qid;
	cc->sqsize = 31;
	cc->kato = kato;
	memset(&d, 0, sizeof(d));
	d.cntlid = cntlid;
	snprintf(d.subnqn, sizeof(d.subnqn), "%s", subnqn);
	snprintf(d.hostnqn, sizeof(d.hostnqn), "%s", hostnqn);
	return tn_run(qp, &c, &d, sizeof(d));
}

uint32_t
tn_prop(struct nvmf_qpair *qp, bool set, uint32_t off, bool size8,
	uint64_t v)
{
	struct nvme_cmd c;
	struct nvmf_property_cmd *pc = (struct nvmf_property_cmd *)&c;

	memset(&c, 0, sizeof(c));
	pc->opc = NVME_OPC_FABRICS;
	pc->fctype = set ? NVMF_FCTYPE_PROPERTY_SET :
		NVMF_FCTYPE_PROPERTY_GET;
	pc->attrib = size8 ? NVMF_PROP_SIZE_8 : 0;
	pc->offset = off;
	pc->value = v;
	return tn_run(qp, &c, NULL, 0);
}

/* Connect QA to S and enable it; then QI as I/O queue 1. */
int
tn_ready(bool io)
{
	uint16_t cntlid;

	TEST_ASSERT_EQ(tn_connect(&QA, 0, TN_NQN, TN_HOST, 0xFFFF, 10000), 0,
		       "admin connect");
	cntlid = (uint16_t)got.cdw0;
	TEST_ASSERT_EQ(tn_prop(&QA, true, NVME_PROP_CC, false,
			       NVME_CC_EN | 6u << NVME_CC_IOSQES_SHIFT |
			       4u << NVME_CC_IOCQES_SHIFT), 0, "enable");
	if (io)
		TEST_ASSERT_EQ(tn_connect(&QI, 1, TN_NQN, TN_HOST, cntlid, 0),
			       0, "I/O connect");
	return 0;
}

struct nvme_cmd
tn_cmd(uint8_t opc, uint32_t nsid)
{
	struct nvme_cmd c;

	memset(&c, 0, sizeof(c));
	c.opc = opc;
	c.flags = NVME_CMD_PSDT_SGL_MPTR_CONTIG;
	c.cid = 7;
	c.nsid = nsid;
	return c;
}

/* ------------------------------------------------------------------ */
/* SGL codecs                                                          */
/* ------------------------------------------------------------------ */

static int
t_sgl_keyed(void)
{
	struct nvme_cmd c = tn_cmd(NVME_OPC_READ, 1);
	struct nvmf_req *r;

	nvme_sgl_set_keyed(&c.dptr, 0x1122334455667788ull, 0x123456,
			   0xAABBCCDD, true);
	TEST_ASSERT_EQ(c.dptr.id, 0x4F, "keyed, invalidate");
	TEST_ASSERT_EQ(nvme_sgl_keyed_length(&c.dptr), 0x123456, "");
	TEST_ASSERT_EQ(nvme_sgl_keyed_key(&c.dptr), 0xAABBCCDD, "");
	/* Bytes on the wire: address LE, length 3 bytes LE, key 4 LE. */
	TEST_ASSERT_EQ(((uint8_t *)&c.dptr)[8], 0x56, "");
	TEST_ASSERT_EQ(((uint8_t *)&c.dptr)[11], 0xDD, "");
	nvme_sgl_set_keyed(&c.dptr, 0x1000, 65536, 0x42, true);
	r = tn_req(&QI, &c, NULL, 0);
	TEST_ASSERT_EQ(nvmf_req_parse_sgl(r, 0, 4096, TN_MAX_IO), 0, "");
	TEST_ASSERT_EQ(r->loc, NVMF_DATA_KEYED, "");
	TEST_ASSERT_EQ(r->xfer, NVMF_XFER_C2H, "read is C2H");
	TEST_ASSERT(r->invalidate, "sub-type Fh asks for invalidation");
	TEST_ASSERT_EQ(r->inv_key, 0x42, "");
	TEST_ASSERT_EQ(r->nseg, 1, "one descriptor");
	TEST_ASSERT_EQ(r->seg[0].key, 0x42, "");
	TEST_ASSERT_EQ(r->seg[0].addr, 0x1000, "");
	TEST_ASSERT_EQ(r->seg[0].len, 65536, "");
	TEST_ASSERT_EQ(r->length, 65536, "");
	nvme_sgl_set_keyed(&c.dptr, 0x1000, 4096, 0x42, false);
	r->cmd = c;
	TEST_ASSERT_EQ(nvmf_req_parse_sgl(r, 0, 4096, TN_MAX_IO), 0, "");
	TEST_ASSERT(!r->invalidate, "sub-type 0: no invalidation");
	/* Too long for MDTS. */
	nvme_sgl_set_keyed(&c.dptr, 0x1000, TN_MAX_IO + 512, 0x42, false);
	r->cmd = c;
	TEST_ASSERT_EQ(nvmf_req_parse_sgl(r, 0, 4096, TN_MAX_IO),
		       TN_ST(GENERIC, DATA_SGL_LENGTH_INVALID), "");
	/* Keyed with a reserved sub-type. */
	r->cmd.dptr.id = NVME_SGL_ID(NVME_SGL_TYPE_KEYED_DATA_BLOCK, 0x3);
	TEST_ASSERT_EQ(nvmf_req_parse_sgl(r, 0, 4096, TN_MAX_IO),
		       TN_ST(GENERIC, SGL_DESC_TYPE_INVALID), "");
	/* A segment in host memory (address sub-type): not fetched. */
	r->cmd.dptr.id = NVME_SGL_ID(NVME_SGL_TYPE_LAST_SEGMENT, 0);
	TEST_ASSERT_EQ(nvmf_req_parse_sgl(r, 0, 4096, TN_MAX_IO),
		       TN_ST(GENERIC, SGL_DESC_TYPE_INVALID), "");
	/* A (non-last) Segment descriptor in the SQE. */
	r->cmd.dptr.id = NVME_SGL_ID(NVME_SGL_TYPE_SEGMENT, 1);
	TEST_ASSERT_EQ(nvmf_req_parse_sgl(r, 0, 4096, TN_MAX_IO),
		       TN_ST(GENERIC, SGL_DESC_TYPE_INVALID), "");
	/* An unkeyed address: no data with length 0, refused with one. */
	r->cmd.dptr.id = NVME_SGL_ID(NVME_SGL_TYPE_DATA_BLOCK, 0);
	nvme_sgl_set_length(&r->cmd.dptr, 0);
	TEST_ASSERT_EQ(nvmf_req_parse_sgl(r, 0, 4096, TN_MAX_IO), 0, "");
	TEST_ASSERT_EQ(r->loc, NVMF_DATA_NONE, "");
	nvme_sgl_set_length(&r->cmd.dptr, 512);
	TEST_ASSERT_EQ(nvmf_req_parse_sgl(r, 0, 4096, TN_MAX_IO),
		       TN_ST(GENERIC, SGL_DESC_TYPE_INVALID), "");
	/* PRPs (PSDT 0) on a fabric. */
	r->cmd = c;
	r->cmd.flags = 0;
	TEST_ASSERT_EQ(nvmf_req_parse_sgl(r, 0, 4096, TN_MAX_IO),
		       TN_ST(GENERIC, INVALID_FIELD), "");
	/* No data: the SGL is not looked at. */
	r->cmd = tn_cmd(NVME_OPC_FLUSH, 1);
	r->cmd.dptr.id = 0xEE;
	TEST_ASSERT_EQ(nvmf_req_parse_sgl(r, 0, 4096, TN_MAX_IO), 0, "");
	TEST_ASSERT_EQ(r->loc, NVMF_DATA_NONE, "");
	return 0;
}

static int
t_sgl_in_capsule(void)
{
	struct nvme_cmd c = tn_cmd(NVME_OPC_WRITE, 1);
	static uint8_t capsule[64 + 4096];
	struct nvmf_recv rv = { .kind = NVMF_CTX_RECV, .buf = capsule };
	struct nvmf_req *r;

	c.dptr.addr = 0;
	nvme_sgl_set_length(&c.dptr, 4096);
	c.dptr.id = NVME_SGL_ID(NVME_SGL_TYPE_DATA_BLOCK,
				NVME_SGL_SUBTYPE_OFFSET);
	r = tn_req(&QI, &c, NULL, 0);
	r->recv = &rv;
	TEST_ASSERT_EQ(nvmf_req_parse_sgl(r, 4096, 4096, TN_MAX_IO), 0, "");
	TEST_ASSERT_EQ(r->loc, NVMF_DATA_IN_CAPSULE, "");
	TEST_ASSERT(r->data == capsule + 64, "data right after the SQE");
	/* Fewer bytes arrived than the SGL says. */
	TEST_ASSERT_EQ(nvmf_req_parse_sgl(r, 2048, 4096, TN_MAX_IO),
		       TN_ST(GENERIC, DATA_SGL_LENGTH_INVALID), "");
	/* Past the in-capsule data size the controller advertises. */
	nvme_sgl_set_length(&r->cmd.dptr, 8192);
	TEST_ASSERT_EQ(nvmf_req_parse_sgl(r, 8192, 4096, TN_MAX_IO),
		       TN_ST(GENERIC, DATA_SGL_LENGTH_INVALID), "");
	/* An offset past it. */
	nvme_sgl_set_length(&r->cmd.dptr, 16);
	r->cmd.dptr.addr = 8192;
	TEST_ASSERT_EQ(nvmf_req_parse_sgl(r, 4096, 4096, TN_MAX_IO),
		       TN_ST(GENERIC, INVALID_SGL_OFFSET), "");
	/* An offset inside, data in the capsule. */
	r->cmd.dptr.addr = 16;
	TEST_ASSERT_EQ(nvmf_req_parse_sgl(r, 4096, 4096, TN_MAX_IO), 0, "");
	TEST_ASSERT(r->data == capsule + 64 + 16, "");
	/* In-capsule data for a read (C2H): not allowed. */
	r->cmd.opc = NVME_OPC_READ;
	r->cmd.dptr.addr = 0;
	TEST_ASSERT_EQ(nvmf_req_parse_sgl(r, 4096, 4096, TN_MAX_IO),
		       TN_ST(GENERIC, SGL_DESC_TYPE_INVALID), "");
	/* The Connect command's direction comes from its fctype. */
	r->cmd = tn_cmd(NVME_OPC_FABRICS, 0);
	((struct nvmf_cmd *)&r->cmd)->fctype = NVMF_FCTYPE_CONNECT;
	TEST_ASSERT_EQ(nvmf_cmd_xfer(&r->cmd), NVMF_XFER_H2C, "");
	((struct nvmf_cmd *)&r->cmd)->fctype = NVMF_FCTYPE_PROPERTY_GET;
	TEST_ASSERT_EQ(nvmf_cmd_xfer(&r->cmd), NVMF_XFER_NONE, "");
	return 0;
}

/* A Last Segment in the capsule: @p n descriptors at offset @p off. */
static struct nvmf_req *
seg_req(uint8_t opc, uint8_t *capsule, uint32_t off, uint32_t n)
{
	struct nvme_cmd c = tn_cmd(opc, 1);
	static struct nvmf_recv rv = { .kind = NVMF_CTX_RECV };
	struct nvmf_req *r;

	c.dptr.id = NVME_SGL_ID(NVME_SGL_TYPE_LAST_SEGMENT,
				NVME_SGL_SUBTYPE_OFFSET);
	c.dptr.addr = off;
	nvme_sgl_set_length(&c.dptr, n * 16);
	rv.buf = capsule;
	r = tn_req(&QI, &c, NULL, 0);
	r->recv = &rv;
	return r;
}

static int
t_sgl_segment(void)
{
	static uint8_t capsule[64 + 4096];
	struct nvme_sgl_desc *d = (void *)(capsule + 64 + 32);
	struct nvmf_req *r;

	/* Three keyed descriptors at offset 32; the middle one is empty. */
	memset(capsule, 0, sizeof(capsule));
	nvme_sgl_set_keyed(&d[0], 0x10000, 4096, 0x11, false);
	nvme_sgl_set_keyed(&d[1], 0x20000, 0, 0x22, true);
	nvme_sgl_set_keyed(&d[2], 0x30000, 8192, 0x33, true);
	r = seg_req(NVME_OPC_READ, capsule, 32, 3);
	TEST_ASSERT_EQ(nvmf_req_parse_sgl(r, 32 + 48, 4096, TN_MAX_IO), 0,
		       "");
	TEST_ASSERT_EQ(r->loc, NVMF_DATA_KEYED, "");
	TEST_ASSERT_EQ(r->nseg, 2, "the empty descriptor dropped");
	TEST_ASSERT_EQ(r->length, 4096 + 8192, "lengths summed");
	TEST_ASSERT(r->seg[0].addr == 0x10000 && r->seg[0].key == 0x11 &&
		    r->seg[0].len == 4096, "first");
	TEST_ASSERT(r->seg[1].addr == 0x30000 && r->seg[1].key == 0x33 &&
		    r->seg[1].len == 8192, "second");
	TEST_ASSERT(r->invalidate, "a descriptor asked for invalidation");
	TEST_ASSERT_EQ(r->inv_key, 0x22, "the first key asked for");
	/* The same for a write (H2C): the list is not data. */
	r = seg_req(NVME_OPC_WRITE, capsule, 32, 3);
	TEST_ASSERT_EQ(nvmf_req_parse_sgl(r, 32 + 48, 4096, TN_MAX_IO), 0,
		       "");
	TEST_ASSERT_EQ(r->nseg, 2, "");
	/* Fewer bytes arrived than the segment needs. */
	TEST_ASSERT_EQ(nvmf_req_parse_sgl(r, 32 + 40, 4096, TN_MAX_IO),
		       TN_ST(GENERIC, INVALID_SGL_SEG_DESC), "");
	/* Its length not a multiple of 16, or 0. */
	nvme_sgl_set_length(&r->cmd.dptr, 40);
	TEST_ASSERT_EQ(nvmf_req_parse_sgl(r, 4096, 4096, TN_MAX_IO),
		       TN_ST(GENERIC, INVALID_SGL_SEG_DESC), "");
	nvme_sgl_set_length(&r->cmd.dptr, 0);
	TEST_ASSERT_EQ(nvmf_req_parse_sgl(r, 4096, 4096, TN_MAX_IO),
		       TN_ST(GENERIC, INVALID_SGL_SEG_DESC), "");
	/* More descriptors than MSDBD. */
	nvme_sgl_set_length(&r->cmd.dptr, (NVMF_MAX_SGL_DESC + 1) * 16);
	TEST_ASSERT_EQ(nvmf_req_parse_sgl(r, 4096, 4096, TN_MAX_IO),
		       TN_ST(GENERIC, INVALID_NUM_SGL_DESC), "");
	/* An offset past the in-capsule size. */
	r = seg_req(NVME_OPC_READ, capsule, 8192, 1);
	TEST_ASSERT_EQ(nvmf_req_parse_sgl(r, 4096, 4096, TN_MAX_IO),
		       TN_ST(GENERIC, INVALID_SGL_OFFSET), "");
	/* A descriptor that is not a keyed data block. */
	d[1].id = NVME_SGL_ID(NVME_SGL_TYPE_DATA_BLOCK, 0);
	r = seg_req(NVME_OPC_READ, capsule, 32, 3);
	TEST_ASSERT_EQ(nvmf_req_parse_sgl(r, 4096, 4096, TN_MAX_IO),
		       TN_ST(GENERIC, SGL_DESC_TYPE_INVALID), "");
	/* A keyed one with a reserved sub-type. */
	d[1].id = NVME_SGL_ID(NVME_SGL_TYPE_KEYED_DATA_BLOCK, 0x3);
	TEST_ASSERT_EQ(nvmf_req_parse_sgl(r, 4096, 4096, TN_MAX_IO),
		       TN_ST(GENERIC, SGL_DESC_TYPE_INVALID), "");
	/* A segment inside the last segment. */
	d[1].id = NVME_SGL_ID(NVME_SGL_TYPE_SEGMENT, NVME_SGL_SUBTYPE_OFFSET);
	TEST_ASSERT_EQ(nvmf_req_parse_sgl(r, 4096, 4096, TN_MAX_IO),
		       TN_ST(GENERIC, INVALID_SGL_SEG_DESC), "");
	/* Together longer than MDTS. */
	nvme_sgl_set_keyed(&d[1], 0x20000, TN_MAX_IO - 4096, 0x22, false);
	TEST_ASSERT_EQ(nvmf_req_parse_sgl(r, 4096, 4096, TN_MAX_IO),
		       TN_ST(GENERIC, DATA_SGL_LENGTH_INVALID), "");
	/* Exactly MDTS: fine, and no invalidation asked for. */
	nvme_sgl_set_keyed(&d[2], 0x30000, 0, 0x33, false);
	TEST_ASSERT_EQ(nvmf_req_parse_sgl(r, 4096, 4096, TN_MAX_IO), 0, "");
	TEST_ASSERT_EQ(r->length, TN_MAX_IO, "");
	TEST_ASSERT(!r->invalidate, "");
	/* Every descriptor empty: no data. */
	nvme_sgl_set_keyed(&d[0], 0x10000, 0, 0x11, false);
	nvme_sgl_set_keyed(&d[1], 0x20000, 0, 0x22, false);
	TEST_ASSERT_EQ(nvmf_req_parse_sgl(r, 4096, 4096, TN_MAX_IO), 0, "");
	TEST_ASSERT_EQ(r->loc, NVMF_DATA_NONE, "");
	return 0;
}

/* ------------------------------------------------------------------ */
/* Connect and properties                                              */
/* ------------------------------------------------------------------ */

static int
t_before_connect(void)
{
	struct nvme_cmd c = tn_cmd(NVME_OPC_IDENTIFY, 0);

	TEST_ASSERT_EQ(tn_run(&QA, &c, buf, 4096),
		       TN_ST(GENERIC, COMMAND_SEQUENCE_ERROR), "");
	TEST_ASSERT_EQ(tn_prop(&QA, false, NVME_PROP_CAP, true, 0),
		       TN_ST(GENERIC, COMMAND_SEQUENCE_ERROR), "");
	return 0;
}

static int
t_connect_checks(void)
{
	struct nvme_cmd c;
	struct nvmf_connect_cmd *cc = (struct nvmf_connect_cmd *)&c;

	TEST_ASSERT_EQ(tn_connect(&QA, 0, "nqn.test:none", TN_HOST, 0xFFFF,
				  0),
		       TN_ST(COMMAND_SPECIFIC, CONNECT_INVALID_PARAMETERS), "");
	TEST_ASSERT_EQ(got.cdw0, NVMF_CONNECT_IATTR_DATA | 256,
		       "IATTR data, IPO subnqn");
	TEST_ASSERT_EQ(tn_connect(&QA, 0, TN_NQN, "nqn.test:stranger", 0xFFFF,
				  0),
		       TN_ST(COMMAND_SPECIFIC, CONNECT_INVALID_HOST), "");
	TEST_ASSERT_EQ(tn_connect(&QA, 0, TN_NQN, TN_HOST, 3, 0),
		       TN_ST(COMMAND_SPECIFIC, CONNECT_INVALID_PARAMETERS),
		       "admin connect must ask for a dynamic controller");
	TEST_ASSERT_EQ(got.cdw0, NVMF_CONNECT_IATTR_DATA | 16, "IPO cntlid");
	/* The queue the CM set up is 0, the command says 1. */
	TEST_ASSERT_EQ(tn_connect(&QA, 1, TN_NQN, TN_HOST, 0xFFFF, 0),
		       TN_ST(COMMAND_SPECIFIC, CONNECT_INVALID_PARAMETERS),
		       "wrong queue id");
	TEST_ASSERT_EQ(got.cdw0, 42, "IPO qid, in the SQE");
	/* Record format, queue size, data length. */
	memset(&c, 0, sizeof(c));
	cc->opc = NVME_OPC_FABRICS;
	cc->flags = NVME_CMD_PSDT_SGL_MPTR_CONTIG;
	cc->fctype = NVMF_FCTYPE_CONNECT;
	cc->recfmt = 1;
	cc->sqsize = 31;
	TEST_ASSERT_EQ(tn_run(&QA, &c, buf, 1024),
		       TN_ST(COMMAND_SPECIFIC, CONNECT_INCOMPATIBLE_FORMAT),
		       "");
	cc->recfmt = 0;
	cc->sqsize = 32;        /* 33 entries on a 32-entry queue */
	TEST_ASSERT_EQ(tn_run(&QA, &c, buf, 1024),
		       TN_ST(COMMAND_SPECIFIC, CONNECT_INVALID_PARAMETERS), "");
	TEST_ASSERT_EQ(got.cdw0, 44, "IPO sqsize");
	cc->sqsize = 31;
	TEST_ASSERT_EQ(tn_run(&QA, &c, buf, 512),
		       TN_ST(GENERIC, DATA_SGL_LENGTH_INVALID),
		       "Connect data shorter than 1024 bytes");
	/* NQNs without their terminating NUL. */
	memset(buf, 'x', 1024);
	((struct nvmf_connect_data *)buf)->cntlid = 0xFFFF;
	TEST_ASSERT_EQ(tn_run(&QA, &c, buf, 1024),
		       TN_ST(COMMAND_SPECIFIC, CONNECT_INVALID_PARAMETERS), "");
	/* And now right; a second Connect on the same queue is refused. */
	TEST_ASSERT_EQ(tn_connect(&QA, 0, TN_NQN, TN_HOST, 0xFFFF, 0), 0, "");
	TEST_ASSERT_EQ(got.cdw0, 1, "first CNTLID");
	TEST_ASSERT_EQ(T->stats.ctrlrs_now, 1, "");
	TEST_ASSERT_EQ(T->ctrlrs[0].kato_ms, NVMF_KATO_DEFAULT_MS,
		       "KATO 0 on an I/O controller: the target's default");
	TEST_ASSERT_EQ(tn_connect(&QA, 0, TN_NQN, TN_HOST, 0xFFFF, 0),
		       TN_ST(GENERIC, COMMAND_SEQUENCE_ERROR), "");
	/* I/O queue before the controller is enabled. */
	TEST_ASSERT_EQ(tn_connect(&QI, 1, TN_NQN, TN_HOST, 1, 0),
		       TN_ST(GENERIC, COMMAND_SEQUENCE_ERROR), "");
	return 0;
}

static int
t_properties(void)
{
	uint64_t cap;

	TEST_ASSERT_EQ(tn_connect(&QA, 0, TN_NQN, TN_HOST, 0xFFFF, 0), 0, "");
	TEST_ASSERT_EQ(tn_prop(&QA, false, NVME_PROP_CAP, true, 0), 0, "");
	cap = got.cdw0 | (uint64_t)got.cdw1 << 32;
	TEST_ASSERT_EQ(cap & NVME_CAP_MQES_MASK, 127, "MQES 0's based");
	TEST_ASSERT(cap & NVME_CAP_CSS_NVM, "NVM command set");
	TEST_ASSERT(cap & NVME_CAP_CQR, "");
	TEST_ASSERT_EQ(tn_prop(&QA, false, NVME_PROP_CAP, false, 0),
		       TN_ST(GENERIC, INVALID_FIELD), "CAP read as 4 bytes");
	TEST_ASSERT_EQ(tn_prop(&QA, false, NVME_PROP_VS, false, 0), 0, "");
	TEST_ASSERT_EQ(got.cdw0, NVME_VERSION(1, 3, 0), "");
	TEST_ASSERT_EQ(tn_prop(&QA, false, NVME_PROP_CSTS, false, 0), 0, "");
	TEST_ASSERT_EQ(got.cdw0, 0, "not ready before CC.EN");
	TEST_ASSERT_EQ(tn_prop(&QA, false, 0x100, false, 0),
		       TN_ST(GENERIC, INVALID_FIELD), "no such property");
	TEST_ASSERT_EQ(tn_prop(&QA, true, NVME_PROP_VS, false, 0),
		       TN_ST(GENERIC, INVALID_FIELD), "VS is read-only");
	TEST_ASSERT_EQ(tn_prop(&QA, true, NVME_PROP_CC, false,
			       NVME_CC_EN | 7u << NVME_CC_IOSQES_SHIFT |
			       4u << NVME_CC_IOCQES_SHIFT),
		       TN_ST(GENERIC, INVALID_FIELD), "IOSQES 7");
	TEST_ASSERT_EQ(tn_prop(&QA, true, NVME_PROP_CC, false,
			       NVME_CC_EN | 6u << NVME_CC_IOSQES_SHIFT |
			       4u << NVME_CC_IOCQES_SHIFT), 0, "");
	TEST_ASSERT_EQ(tn_prop(&QA, false, NVME_PROP_CSTS, false, 0), 0, "");
	TEST_ASSERT_EQ(got.cdw0, NVME_CSTS_RDY, "");
	TEST_ASSERT_EQ(tn_prop(&QA, false, NVME_PROP_CC, false, 0), 0, "");
	TEST_ASSERT(got.cdw0 & NVME_CC_EN, "CC reads back");
	/* Properties on an I/O queue: not there. */
	TEST_ASSERT_EQ(tn_connect(&QI, 1, TN_NQN, TN_HOST, 1, 0), 0, "");
	TEST_ASSERT_EQ(tn_prop(&QI, false, NVME_PROP_CAP, true, 0),
		       TN_ST(GENERIC, INVALID_OPCODE), "");
	/* Shutdown: SHST complete, the I/O queues closed. */
	TEST_ASSERT_EQ(tn_prop(&QA, true, NVME_PROP_CC, false,
			       NVME_CC_EN | NVME_CC_SHN_NORMAL |
			       6u << NVME_CC_IOSQES_SHIFT |
			       4u << NVME_CC_IOCQES_SHIFT), 0, "");
	TEST_ASSERT_EQ(tn_prop(&QA, false, NVME_PROP_CSTS, false, 0), 0, "");
	TEST_ASSERT_EQ(got.cdw0 & NVME_CSTS_SHST_MASK, NVME_CSTS_SHST_COMPLETE,
		       "");
	TEST_ASSERT_EQ(QI.state, NVMF_QP_CLOSING, "I/O queue closed");
	return 0;
}

static int
t_io_connect(void)
{
	struct nvme_cmd c = tn_cmd(NVME_OPC_SET_FEATURES, 0);

	TEST_ASSERT_EQ(tn_ready(false), 0, "");
	/* Two I/O queues granted. */
	c.cdw10 = NVME_FEAT_NUM_QUEUES;
	c.cdw11 = 1 | 1u << 16;
	TEST_ASSERT_EQ(tn_run(&QA, &c, NULL, 0), 0, "");
	TEST_ASSERT_EQ(got.cdw0, 1 | 1u << 16, "");
	TEST_ASSERT_EQ(tn_connect(&QI, 1, TN_NQN, TN_HOST, 9, 0),
		       TN_ST(COMMAND_SPECIFIC, CONNECT_INVALID_PARAMETERS),
		       "unknown CNTLID");
	TEST_ASSERT_EQ(tn_connect(&QI, 1, TN_NQN, "nqn.test:other", 1, 0),
		       TN_ST(COMMAND_SPECIFIC, CONNECT_INVALID_HOST), "");
	QI.qid = 3;
	TEST_ASSERT_EQ(tn_connect(&QI, 3, TN_NQN, TN_HOST, 1, 0),
		       TN_ST(COMMAND_SPECIFIC, INVALID_QUEUE_IDENTIFIER),
		       "queue 3 of 2");
	QI.qid = 1;
	TEST_ASSERT_EQ(tn_connect(&QI, 1, TN_NQN, TN_HOST, 1, 0), 0, "");
	TEST_ASSERT_EQ(got.cdw0, 1, "");
	/* A second queue 1: in use. */
	tn_qp_init(&QD, 1, 32);
	TEST_ASSERT_EQ(tn_connect(&QD, 1, TN_NQN, TN_HOST, 1, 0),
		       TN_ST(COMMAND_SPECIFIC, INVALID_QUEUE_IDENTIFIER), "");
	/* Number of queues cannot change once I/O queues exist. */
	TEST_ASSERT_EQ(tn_run(&QA, &c, NULL, 0),
		       TN_ST(GENERIC, COMMAND_SEQUENCE_ERROR), "");
	/* Admin commands on an I/O queue: not in its command set. */
	c = tn_cmd(NVME_OPC_IDENTIFY, 0);
	TEST_ASSERT_EQ(tn_run(&QI, &c, buf, 4096),
		       TN_ST(GENERIC, INVALID_OPCODE), "");
	return 0;
}

static int
t_reset_and_keep_alive(void)
{
	struct nvme_cmd c = tn_cmd(NVME_OPC_ASYNC_EVENT_REQUEST, 0);
	struct nvmf_ctrlr *ctrlr;
	unsigned int n0;

	TEST_ASSERT_EQ(tn_ready(true), 0, "");

	ctrlr = QA.ctrlr;
	TEST_ASSERT_EQ(tn_run(&QA, &c, NULL, 0), TN_PENDING, "AER held");
	/* CC.EN 1 -> 0: reset. The AER ends, the I/O queue goes. */
	n0 = ncompl;
	TEST_ASSERT_EQ(tn_prop(&QA, true, NVME_PROP_CC, false, 0), 0, "");
	TEST_ASSERT_EQ(ncompl, n0 + 2, "AER completed, then Property Set");
	TEST_ASSERT_EQ(tn_prop(&QA, false, NVME_PROP_CSTS, false, 0), 0, "");
	TEST_ASSERT_EQ(got.cdw0, 0, "");
	TEST_ASSERT_EQ(QI.state, NVMF_QP_CLOSING, "");
	TEST_ASSERT_EQ(ctrlr->naer, 0, "");
	/* Keep-alive: 10 s on this controller; 11 s of silence ends it. */
	nvmf_ctrlr_keep_alive_check(T, ctrlr->ka_last +
				    rte_get_timer_hz() * 9);
	TEST_ASSERT_EQ(T->stats.keep_alive_expiries, 0, "");
	nvmf_ctrlr_keep_alive_check(T, ctrlr->ka_last +
				    rte_get_timer_hz() * 11);
	TEST_ASSERT_EQ(T->stats.keep_alive_expiries, 1, "");
	TEST_ASSERT_EQ(QA.state, NVMF_QP_CLOSING, "admin queue closed");
	TEST_ASSERT(QA.ctrlr == NULL, "");
	return 0;
}

/* Each case on a fresh target. */
int
tn_run_case(int (*fn)(void))
{
	int rc;

	if (tn_fixture() != 0) {
		tn_fixture_free();
		return -1;
	}
	rc = fn();
	tn_fixture_free();
	return rc;
}

TN_CASE(t_sgl_keyed)
TN_CASE(t_sgl_in_capsule)
TN_CASE(t_sgl_segment)
TN_CASE(t_before_connect)
TN_CASE(t_connect_checks)
TN_CASE(t_properties)
TN_CASE(t_io_connect)
TN_CASE(t_reset_and_keep_alive)

static const struct ndk_test_case cases[] = {
	{ "sgl_keyed", t_sgl_keyed_case },
	{ "sgl_in_capsule", t_sgl_in_capsule_case },
	{ "sgl_segment", t_sgl_segment_case },
	{ "before_connect", t_before_connect_case },
	{ "connect_checks", t_connect_checks_case },
	{ "properties", t_properties_case },
	{ "io_connect", t_io_connect_case },
	{ "reset_and_keep_alive", t_reset_and_keep_alive_case },
	{ "identify", t_identify_case },
	{ "log_pages", t_log_pages_case },
	{ "features", t_features_case },
	{ "aer", t_aer_case },
	{ "discovery", t_discovery_case },
	{ "admin_misc", t_admin_misc_case },
	{ "io_rw", t_io_rw_case },
	{ "io_errors", t_io_errors_case },
	{ "io_zeroes_dsm", t_io_zeroes_dsm_case },
	{ "file_namespace", t_file_namespace_case },
};

int
main(int argc, char **argv)
{
	int rc;

	if (ndk_test_eal_init("test_unit_nvmf", "0", NULL) < 0)
		return 1;
	rc = ndk_test_run("nvmf_unit", cases, RTE_DIM(cases), argc, argv);
	rte_eal_cleanup();
	return rc;
}
