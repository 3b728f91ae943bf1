/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Unit tests of lib/nvmf's target: admin commands (Identify, Get Log Page,
 * Features, AER, the discovery controller) and I/O commands (Read, Write,
 * Flush, Write Zeroes, DSM) on a memory and a file namespace, with their
 * field checks. The fixture is test_nvmf.c's.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>

#include "ndk_test.h"
#include "test_nvmf.h"

static struct nvme_cmd
rw(uint8_t opc, uint32_t nsid, uint64_t slba, uint32_t nlb)
{
	struct nvme_cmd c = tn_cmd(opc, nsid);

	c.cdw10 = (uint32_t)slba;
	c.cdw11 = (uint32_t)(slba >> 32);
	c.cdw12 = nlb - 1;
	return c;
}

/* ------------------------------------------------------------------ */
/* Admin                                                               */
/* ------------------------------------------------------------------ */

static int
t_identify(void)
{
	struct nvme_cmd c = tn_cmd(NVME_OPC_IDENTIFY, 0);
	const struct nvme_id_ctrl *ic = (const void *)buf;
	const struct nvme_id_ns *in = (const void *)buf;
	const uint32_t *list = (const void *)buf;

	TEST_ASSERT_EQ(tn_run(&QA, &c, buf, 4096),
		       TN_ST(GENERIC, COMMAND_SEQUENCE_ERROR),
		       "admin commands wait for CC.EN");
	TEST_ASSERT_EQ(tn_ready(false), 0, "");
	c.cdw10 = NVME_CNS_CONTROLLER;
	TEST_ASSERT_EQ(tn_run(&QA, &c, buf, 4096), 0, "");
	TEST_ASSERT_EQ(ic->cntlid, 1, "");
	TEST_ASSERT_EQ(ic->cntrltype, NVME_CTRL_TYPE_IO, "");
	TEST_ASSERT_EQ(ic->mdts, 5, "128 KiB in 4 KiB pages");
	TEST_ASSERT(ic->sgls & NVME_CTRL_SGLS_KEYED, "keyed SGLs");
	TEST_ASSERT(ic->sgls & NVME_CTRL_SGLS_OFFSET, "in-capsule offsets");
	TEST_ASSERT_EQ(ic->ioccsz, (64 + 4096) / 16, "");
	TEST_ASSERT_EQ(ic->iorcsz, 1, "");
	TEST_ASSERT_EQ(ic->icdoff, 0, "");
	TEST_ASSERT_EQ(ic->msdbd, NVMF_MAX_SGL_DESC, "");
	TEST_ASSERT_EQ(ic->nn, NVMF_MAX_NS, "");
	TEST_ASSERT_EQ(ic->sqes, 0x66, "");
	TEST_ASSERT(strcmp(ic->subnqn, TN_NQN) == 0, "%s", ic->subnqn);
	TEST_ASSERT(memcmp(ic->sn, "SN1 ", 4) == 0, "space padded");
	/* A shorter buffer gets the start of the structure. */
	memset(buf, 0xEE, 8192);
	TEST_ASSERT_EQ(tn_run(&QA, &c, buf, 256), 0, "");
	TEST_ASSERT_EQ(buf[256], 0xEE, "nothing past the SGL length");
	/* Namespace 1: 1 MiB of 512-byte blocks. */
	c.cdw10 = NVME_CNS_NAMESPACE;
	c.nsid = 1;
	TEST_ASSERT_EQ(tn_run(&QA, &c, buf, 4096), 0, "");
	TEST_ASSERT_EQ(in->nsze, TN_NS_BYTES / 512, "");
	TEST_ASSERT_EQ(in->lbaf[0].lbads, 9, "");
	TEST_ASSERT_EQ(in->dlfeat, NVME_NS_DLFEAT_READ_ZEROES, "");
	/* An inactive NSID reads as zeroes, an invalid one fails. */
	c.nsid = 5;
	TEST_ASSERT_EQ(tn_run(&QA, &c, buf, 4096), 0, "");
	TEST_ASSERT_EQ(in->nsze, 0, "");
	c.nsid = 0;
	TEST_ASSERT_EQ(tn_run(&QA, &c, buf, 4096),
		       TN_ST(GENERIC, INVALID_NAMESPACE), "");
	c.nsid = NVMF_MAX_NS + 1;
	TEST_ASSERT_EQ(tn_run(&QA, &c, buf, 4096),
		       TN_ST(GENERIC, INVALID_NAMESPACE), "");
	/* Active list, descriptors. */
	c.cdw10 = NVME_CNS_ACTIVE_NS_LIST;
	c.nsid = 0;
	TEST_ASSERT_EQ(tn_run(&QA, &c, buf, 4096), 0, "");
	TEST_ASSERT(list[0] == 1 && list[1] == 0, "");
	c.nsid = 1;
	TEST_ASSERT_EQ(tn_run(&QA, &c, buf, 4096), 0, "");
	TEST_ASSERT_EQ(list[0], 0, "nothing after NSID 1");
	c.cdw10 = NVME_CNS_NS_ID_DESC_LIST;
	TEST_ASSERT_EQ(tn_run(&QA, &c, buf, 4096), 0, "");
	TEST_ASSERT(buf[0] == NVME_NIDT_NGUID && buf[1] == 16, "");
	TEST_ASSERT(buf[20] == NVME_NIDT_UUID && buf[21] == 16, "");
	TEST_ASSERT(buf[40] == NVME_NIDT_CSI && buf[41] == 1, "");
	c.nsid = 2;
	TEST_ASSERT_EQ(tn_run(&QA, &c, buf, 4096),
		       TN_ST(GENERIC, INVALID_NAMESPACE), "");
	/* NVM command set specific controller: all zero (no limits). */
	c.cdw10 = NVME_CNS_CSI_CONTROLLER;
	TEST_ASSERT_EQ(tn_run(&QA, &c, buf, 4096), 0, "");
	c.cdw11 = 2u << 24;    /* CSI 2 (zoned): not ours */
	TEST_ASSERT_EQ(tn_run(&QA, &c, buf, 4096),
		       TN_ST(GENERIC, INVALID_FIELD), "");
	c.cdw10 = 0x15;
	c.cdw11 = 0;
	TEST_ASSERT_EQ(tn_run(&QA, &c, buf, 4096),
		       TN_ST(GENERIC, INVALID_FIELD), "unknown CNS");
	/* No data buffer for a command that returns data. */
	c.cdw10 = NVME_CNS_CONTROLLER;
	TEST_ASSERT_EQ(tn_run(&QA, &c, NULL, 0),
		       TN_ST(GENERIC, DATA_SGL_LENGTH_INVALID), "");
	return 0;
}

static struct nvme_cmd
get_log(uint8_t lid, uint32_t len, uint64_t off)
{
	struct nvme_cmd c = tn_cmd(NVME_OPC_GET_LOG_PAGE, 0xFFFFFFFF);
	uint32_t numd = len / 4 - 1;

	c.cdw10 = lid | (numd & 0xFFFF) << 16;
	c.cdw11 = numd >> 16;
	c.cdw12 = (uint32_t)off;
	c.cdw13 = (uint32_t)(off >> 32);
	return c;
}

static int
t_log_pages(void)
{
	struct nvme_cmd c = tn_cmd(0x7E, 0);
	const struct nvme_smart_log *sl = (const void *)buf;
	const struct nvme_error_log_entry *el = (const void *)buf;
	struct nvme_cmd r = rw(NVME_OPC_WRITE, 1, 0, 8);
	uint64_t v;

	TEST_ASSERT_EQ(tn_ready(true), 0, "");
	/* An error to log, a write to count. */
	TEST_ASSERT_EQ(tn_run(&QA, &c, NULL, 0),
		       TN_ST(GENERIC, INVALID_OPCODE), "");
	TEST_ASSERT_EQ(tn_run(&QI, &r, buf, 4096), 0, "");
	c = get_log(NVME_LOG_ERROR, 4096, 0);
	TEST_ASSERT_EQ(tn_run(&QA, &c, buf, 4096), 0, "");
	TEST_ASSERT_EQ(el[0].error_count, 1, "");
	TEST_ASSERT_EQ(el[0].status, TN_ST(GENERIC, INVALID_OPCODE), "");
	TEST_ASSERT_EQ(el[0].cid, 7, "");
	TEST_ASSERT_EQ(el[1].error_count, 0, "");
	c = get_log(NVME_LOG_SMART, 512, 0);
	TEST_ASSERT_EQ(tn_run(&QA, &c, buf, 512), 0, "");
	memcpy(&v, sl->host_writes, sizeof(v));
	TEST_ASSERT_EQ(v, 1, "one write");
	memcpy(&v, sl->data_units_written, sizeof(v));
	TEST_ASSERT_EQ(v, 1, "8 blocks: one unit, rounded up");
	memcpy(&v, sl->num_err_log_entries, sizeof(v));
	TEST_ASSERT_EQ(v, 1, "");
	/* Offsets: past the end fails, inside reads the rest and zeroes. */
	c = get_log(NVME_LOG_SMART, 512, 4096);
	TEST_ASSERT_EQ(tn_run(&QA, &c, buf, 512),
		       TN_ST(GENERIC, INVALID_FIELD), "");
	c = get_log(NVME_LOG_SMART, 8, 510);
	TEST_ASSERT_EQ(tn_run(&QA, &c, buf, 8),
		       TN_ST(GENERIC, INVALID_FIELD), "not dword aligned");
	c = get_log(NVME_LOG_SMART, 16, 508);
	memset(buf, 0xEE, 16);
	TEST_ASSERT_EQ(tn_run(&QA, &c, buf, 16), 0, "");
	TEST_ASSERT_EQ(buf[15], 0, "past the log: zeroes");
	/* More than the buffer holds. */
	c = get_log(NVME_LOG_SMART, 512, 0);
	TEST_ASSERT_EQ(tn_run(&QA, &c, buf, 256),
		       TN_ST(GENERIC, DATA_SGL_LENGTH_INVALID), "");
	c = get_log(0x70, 1024, 0);
	TEST_ASSERT_EQ(tn_run(&QA, &c, buf, 1024),
		       TN_ST(COMMAND_SPECIFIC, INVALID_LOG_PAGE),
		       "discovery log on an I/O controller");
	c = get_log(0xC0, 512, 0);
	TEST_ASSERT_EQ(tn_run(&QA, &c, buf, 512),
		       TN_ST(COMMAND_SPECIFIC, INVALID_LOG_PAGE), "");
	return 0;
}

static int
t_features(void)
{
	struct nvme_cmd c = tn_cmd(NVME_OPC_SET_FEATURES, 0);

	TEST_ASSERT_EQ(tn_ready(false), 0, "");
	c.cdw10 = NVME_FEAT_NUM_QUEUES;
	c.cdw11 = 63 | 63u << 16;
	TEST_ASSERT_EQ(tn_run(&QA, &c, NULL, 0), 0, "");
	TEST_ASSERT_EQ(got.cdw0, 3 | 3u << 16, "granted: the target's 4");
	c.cdw11 = 0xFFFF;
	TEST_ASSERT_EQ(tn_run(&QA, &c, NULL, 0),
		       TN_ST(GENERIC, INVALID_FIELD), "65536 queues");
	c.cdw10 = NVME_FEAT_KEEP_ALIVE_TIMER;
	c.cdw11 = 4500;
	TEST_ASSERT_EQ(tn_run(&QA, &c, NULL, 0), 0, "");
	TEST_ASSERT_EQ(QA.ctrlr->kato_ms, 5000, "1 s granularity, up");
	c.cdw10 = NVME_FEAT_VOLATILE_WC;
	c.cdw11 = 1;
	TEST_ASSERT_EQ(tn_run(&QA, &c, NULL, 0), 0, "");
	c.cdw10 = NVME_FEAT_VOLATILE_WC | NVME_FEAT_SAVE;
	TEST_ASSERT_EQ(tn_run(&QA, &c, NULL, 0),
		       TN_ST(COMMAND_SPECIFIC, FEATURE_ID_NOT_SAVEABLE), "");
	c.cdw10 = 0x7D;
	TEST_ASSERT_EQ(tn_run(&QA, &c, NULL, 0),
		       TN_ST(GENERIC, INVALID_FIELD), "unknown feature");
	c.cdw10 = NVME_FEAT_HOST_ID;
	TEST_ASSERT_EQ(tn_run(&QA, &c, NULL, 0),
		       TN_ST(GENERIC, COMMAND_SEQUENCE_ERROR),
		       "the host ID is Connect's");
	c = tn_cmd(NVME_OPC_GET_FEATURES, 0);
	c.cdw10 = NVME_FEAT_VOLATILE_WC;
	TEST_ASSERT_EQ(tn_run(&QA, &c, NULL, 0), 0, "");
	TEST_ASSERT_EQ(got.cdw0, 1, "");
	c.cdw10 = NVME_FEAT_KEEP_ALIVE_TIMER;
	TEST_ASSERT_EQ(tn_run(&QA, &c, NULL, 0), 0, "");
	TEST_ASSERT_EQ(got.cdw0, 5000, "");
	c.cdw10 = NVME_FEAT_ARBITRATION | NVME_FEAT_SEL_SUPPORTED << 8;
	TEST_ASSERT_EQ(tn_run(&QA, &c, NULL, 0), 0, "");
	TEST_ASSERT_EQ(got.cdw0, 0x4, "changeable");
	c.cdw10 = NVME_FEAT_ARBITRATION | 5u << 8;
	TEST_ASSERT_EQ(tn_run(&QA, &c, NULL, 0),
		       TN_ST(GENERIC, INVALID_FIELD), "SEL 5");
	return 0;
}

static int
t_aer(void)
{
	struct nvme_cmd c = tn_cmd(NVME_OPC_ASYNC_EVENT_REQUEST, 0);
	struct ndk_nvmf_ns_config nc = { .type = NDK_NVMF_NS_MEM,
					 .size = 65536, .nsid = 3 };
	const uint32_t *list = (const void *)buf;
	unsigned int n0;

	TEST_ASSERT_EQ(tn_ready(false), 0, "");
	c.cdw10 = NVME_FEAT_ASYNC_EVENT;
	c.opc = NVME_OPC_SET_FEATURES;
	c.cdw11 = NVME_CTRL_OAES_NS_ATTR;
	TEST_ASSERT_EQ(tn_run(&QA, &c, NULL, 0), 0, "");
	c = tn_cmd(NVME_OPC_ASYNC_EVENT_REQUEST, 0);
	n0 = ncompl;
	for (int i = 0; i < NVMF_AER_MAX; i++)
		TEST_ASSERT_EQ(tn_run(&QA, &c, NULL, 0), TN_PENDING, "");
	TEST_ASSERT_EQ(tn_run(&QA, &c, NULL, 0),
		       TN_ST(COMMAND_SPECIFIC,
			     ASYNC_EVENT_REQUEST_LIMIT_EXCEEDED), "");
	/* A namespace appears: one notice, the changed list has it. */
	n0 = ncompl;
	TEST_ASSERT_EQ(ndk_nvmf_subsystem_add_ns(S, &nc, NULL), 0, "");
	TEST_ASSERT_EQ(ncompl, n0 + 1, "");
	TEST_ASSERT_EQ(got.status, 0, "");
	TEST_ASSERT_EQ(got.cdw0, nvme_aer_dw0(NVME_AER_TYPE_NOTICE,
					      NVME_AER_NOTICE_NS_CHANGED,
					      NVME_LOG_CHANGED_NS), "");
	/* A second change before the log is read: no second notice. */
	nc.nsid = 4;
	TEST_ASSERT_EQ(ndk_nvmf_subsystem_add_ns(S, &nc, NULL), 0, "");
	TEST_ASSERT_EQ(ncompl, n0 + 1, "masked until the log is read");
	c = get_log(NVME_LOG_CHANGED_NS, 4096, 0);
	TEST_ASSERT_EQ(tn_run(&QA, &c, buf, 4096), 0, "");
	TEST_ASSERT(list[0] == 3 && list[1] == 4 && list[2] == 0, "");
	TEST_ASSERT_EQ(tn_run(&QA, &c, buf, 4096), 0, "");
	TEST_ASSERT_EQ(list[0], 0, "read clears it");
	TEST_ASSERT_EQ(ndk_nvmf_subsystem_add_ns(S, &nc, NULL), -EEXIST, "");
	return 0;
}

static int
t_discovery(void)
{
	struct nvme_cmd c = tn_cmd(NVME_OPC_IDENTIFY, 0);
	const struct nvme_id_ctrl *ic = (const void *)buf;
	const struct nvmf_disc_log_hdr *h = (const void *)buf;
	const struct nvmf_disc_entry *e = (const void *)(buf + 1024);
	struct ndk_nvmf_subsystem *open = NULL;

	TEST_ASSERT_EQ(ndk_nvmf_tgt_add_subsystem(T, "nqn.test:open", NULL,
						  true, &open), 0, "");
	/* Discovery controllers go without keep-alive. */
	TEST_ASSERT_EQ(tn_connect(&QD, 0, NVMF_DISCOVERY_NQN,
				  "nqn.test:stranger", 0xFFFF, 0), 0, "");
	TEST_ASSERT_EQ(QD.ctrlr->kato_ms, 0, "");
	TEST_ASSERT_EQ(tn_prop(&QD, true, NVME_PROP_CC, false, NVME_CC_EN),
		       0, "a discovery controller takes IOSQES 0");
	c.cdw10 = NVME_CNS_CONTROLLER;
	TEST_ASSERT_EQ(tn_run(&QD, &c, buf, 4096), 0, "");
	TEST_ASSERT_EQ(ic->cntrltype, NVME_CTRL_TYPE_DISCOVERY, "");
	TEST_ASSERT_EQ(ic->nn, 0, "");
	c.cdw10 = NVME_CNS_NAMESPACE;
	TEST_ASSERT_EQ(tn_run(&QD, &c, buf, 4096),
		       TN_ST(GENERIC, INVALID_FIELD), "");
	/* The stranger sees the open subsystem, not TN_NQN. */
	c = get_log(NVME_LOG_DISCOVERY, 4096, 0);
	memset(buf, 0xEE, 4096);
	TEST_ASSERT_EQ(tn_run(&QD, &c, buf, 4096), 0, "");
	TEST_ASSERT_EQ(h->numrec, 1, "");
	TEST_ASSERT_EQ(h->recfmt, 0, "");
	TEST_ASSERT(strcmp(e->subnqn, "nqn.test:open") == 0, "%s", e->subnqn);
	TEST_ASSERT_EQ(e->trtype, NVMF_TRTYPE_RDMA, "");
	TEST_ASSERT_EQ(e->adrfam, NVMF_ADRFAM_IPV4, "");
	TEST_ASSERT_EQ(e->subtype, NVMF_SUBTYPE_NVME, "");
	TEST_ASSERT_EQ(e->cntlid, 0xFFFF, "");
	TEST_ASSERT(memcmp(e->traddr, "10.0.0.1 ", 9) == 0, "");
	TEST_ASSERT(memcmp(e->trsvcid, "4420 ", 5) == 0, "");
	TEST_ASSERT_EQ(e->tsas.cms, NVMF_RDMA_CMS_RDMA_CM, "");
	TEST_ASSERT_EQ(buf[2048], 0, "zeroes past the log");
	/* Only the discovery log there. */
	c = get_log(NVME_LOG_SMART, 512, 0);
	TEST_ASSERT_EQ(tn_run(&QD, &c, buf, 512),
		       TN_ST(COMMAND_SPECIFIC, INVALID_LOG_PAGE), "");
	c = tn_cmd(NVME_OPC_ABORT, 0);
	TEST_ASSERT_EQ(tn_run(&QD, &c, NULL, 0),
		       TN_ST(GENERIC, INVALID_OPCODE), "");
	/* No I/O queue on a discovery controller. */
	tn_qp_init(&QI, 1, 32);
	TEST_ASSERT_EQ(tn_connect(&QI, 1, NVMF_DISCOVERY_NQN,
				  "nqn.test:stranger", QD.ctrlr->cntlid, 0),
		       TN_ST(GENERIC, COMMAND_SEQUENCE_ERROR), "");
	return 0;
}

static int
t_admin_misc(void)
{
	struct nvme_cmd c = tn_cmd(NVME_OPC_KEEP_ALIVE, 0);

	TEST_ASSERT_EQ(tn_ready(false), 0, "");
	QA.ctrlr->ka_last = 0;
	TEST_ASSERT_EQ(tn_run(&QA, &c, NULL, 0), 0, "");
	TEST_ASSERT(QA.ctrlr->ka_last != 0, "keep-alive timer restarted");
	c = tn_cmd(NVME_OPC_ABORT, 0);
	TEST_ASSERT_EQ(tn_run(&QA, &c, NULL, 0), 0, "");
	TEST_ASSERT_EQ(got.cdw0 & 1, 1, "not aborted");
	c = tn_cmd(NVME_OPC_CREATE_IO_SQ, 0);
	TEST_ASSERT_EQ(tn_run(&QA, &c, NULL, 0),
		       TN_ST(GENERIC, INVALID_OPCODE), "no queue creation "
		       "commands on a fabric");
	c = tn_cmd(NVME_OPC_KEEP_ALIVE, 0);
	c.flags |= 1;
	TEST_ASSERT_EQ(tn_run(&QA, &c, NULL, 0),
		       TN_ST(GENERIC, INVALID_FIELD), "fused");
	c = tn_cmd(NVME_OPC_FABRICS, 0);
	((struct nvmf_cmd *)&c)->fctype = NVMF_FCTYPE_AUTH_SEND;
	TEST_ASSERT_EQ(tn_run(&QA, &c, NULL, 0),
		       TN_ST(GENERIC, INVALID_OPCODE), "");
	return 0;
}

/* ------------------------------------------------------------------ */
/* I/O                                                                 */
/* ------------------------------------------------------------------ */

static int
t_io_rw(void)
{
	static uint8_t out[TN_MAX_IO];
	struct nvme_cmd c;

	TEST_ASSERT_EQ(tn_ready(true), 0, "");
	for (uint32_t i = 0; i < TN_MAX_IO; i++)
		buf[i] = (uint8_t)(i * 7 + 3);
	c = rw(NVME_OPC_WRITE, 1, 100, TN_MAX_IO / 512);
	TEST_ASSERT_EQ(tn_run(&QI, &c, buf, TN_MAX_IO), 0, "");
	c = rw(NVME_OPC_READ, 1, 100, TN_MAX_IO / 512);
	TEST_ASSERT_EQ(tn_run(&QI, &c, out, TN_MAX_IO), 0, "");
	TEST_ASSERT(memcmp(buf, out, TN_MAX_IO) == 0, "read back");
	/* A read of the last block; past it is out of range. */
	c = rw(NVME_OPC_READ, 1, TN_NS_BYTES / 512 - 1, 1);
	TEST_ASSERT_EQ(tn_run(&QI, &c, out, 512), 0, "");
	c = tn_cmd(NVME_OPC_FLUSH, 1);
	TEST_ASSERT_EQ(tn_run(&QI, &c, NULL, 0), 0, "");
	TEST_ASSERT_EQ(T->stats.read_ops, 2, "");
	TEST_ASSERT_EQ(T->stats.write_bytes, TN_MAX_IO, "");
	return 0;
}

static int
t_io_errors(void)
{
	struct nvme_cmd c;

	TEST_ASSERT_EQ(tn_ready(true), 0, "");
	c = rw(NVME_OPC_READ, 1, TN_NS_BYTES / 512 - 1, 2);
	TEST_ASSERT_EQ(tn_run(&QI, &c, buf, 1024),
		       TN_ST(GENERIC, LBA_OUT_OF_RANGE), "last block + 1");
	c = rw(NVME_OPC_WRITE, 1, 0xFFFFFFFFFFFFFFF0ull, 32);
	TEST_ASSERT_EQ(tn_run(&QI, &c, buf, 16384),
		       TN_ST(GENERIC, LBA_OUT_OF_RANGE), "SLBA + NLB wraps");
	c = rw(NVME_OPC_READ, 1, 0, 8);
	TEST_ASSERT_EQ(tn_run(&QI, &c, buf, 2048),
		       TN_ST(GENERIC, DATA_SGL_LENGTH_INVALID),
		       "4 KiB into a 2 KiB SGL");
	TEST_ASSERT_EQ(tn_run(&QI, &c, NULL, 0),
		       TN_ST(GENERIC, DATA_SGL_LENGTH_INVALID), "no SGL");
	c = rw(NVME_OPC_READ, 2, 0, 1);
	TEST_ASSERT_EQ(tn_run(&QI, &c, buf, 512),
		       TN_ST(GENERIC, INVALID_NAMESPACE), "inactive NSID");
	c = rw(NVME_OPC_READ, 0, 0, 1);
	TEST_ASSERT_EQ(tn_run(&QI, &c, buf, 512),
		       TN_ST(GENERIC, INVALID_NAMESPACE), "NSID 0");
	c = tn_cmd(NVME_OPC_FLUSH, 0xFFFFFFFF);
	TEST_ASSERT_EQ(tn_run(&QI, &c, NULL, 0),
		       TN_ST(GENERIC, INVALID_NAMESPACE),
		       "broadcast flush (Identify VWC says not supported)");
	c = rw(NVME_OPC_COMPARE, 1, 0, 1);
	TEST_ASSERT_EQ(tn_run(&QI, &c, buf, 512),
		       TN_ST(GENERIC, INVALID_OPCODE), "");
	c = rw(0x7C, 1, 0, 1);
	TEST_ASSERT_EQ(tn_run(&QI, &c, NULL, 0),
		       TN_ST(GENERIC, INVALID_OPCODE), "");
	/* An I/O command on the admin queue: 01h is Create I/O SQ there. */
	c = rw(NVME_OPC_WRITE, 1, 0, 1);
	TEST_ASSERT_EQ(tn_run(&QA, &c, buf, 512),
		       TN_ST(GENERIC, INVALID_OPCODE), "");
	/* After shutdown, I/O is refused. */
	TEST_ASSERT_EQ(tn_prop(&QA, true, NVME_PROP_CC, false,
			       NVME_CC_EN | NVME_CC_SHN_NORMAL |
			       6u << NVME_CC_IOSQES_SHIFT |
			       4u << NVME_CC_IOCQES_SHIFT), 0, "");
	c = rw(NVME_OPC_READ, 1, 0, 1);
	TEST_ASSERT_EQ(tn_run(&QI, &c, buf, 512),
		       TN_ST(GENERIC, COMMAND_SEQUENCE_ERROR), "");
	TEST_ASSERT_EQ(T->stats.read_ops, 0, "");
	return 0;
}

static int
t_io_zeroes_dsm(void)
{
	struct nvme_dsm_range *r = (struct nvme_dsm_range *)buf;
	static uint8_t data[8192], out[8192], zero[8192];
	struct nvme_cmd c;

	TEST_ASSERT_EQ(tn_ready(true), 0, "");
	memset(data, 0x5A, sizeof(data));
	c = rw(NVME_OPC_WRITE, 1, 0, 16);
	TEST_ASSERT_EQ(tn_run(&QI, &c, data, 8192), 0, "");
	c = rw(NVME_OPC_WRITE_ZEROES, 1, 2, 2);
	TEST_ASSERT_EQ(tn_run(&QI, &c, NULL, 0), 0, "");
	c = rw(NVME_OPC_READ, 1, 0, 16);
	TEST_ASSERT_EQ(tn_run(&QI, &c, out, 8192), 0, "");
	TEST_ASSERT(memcmp(out + 1024, zero, 1024) == 0, "blocks 2-3 zero");
	TEST_ASSERT(memcmp(out, data, 1024) == 0, "blocks 0-1 kept");
	TEST_ASSERT(memcmp(out + 2048, data, 6144) == 0, "blocks 4- kept");
	c = rw(NVME_OPC_WRITE_ZEROES, 1, TN_NS_BYTES / 512, 1);
	TEST_ASSERT_EQ(tn_run(&QI, &c, NULL, 0),
		       TN_ST(GENERIC, LBA_OUT_OF_RANGE), "");
	/* Deallocate blocks 8-9 and 12: they read as zeroes (DLFEAT). */
	memset(r, 0, 2 * sizeof(*r));
	r[0].slba = 8;
	r[0].nlb = 2;
	r[1].slba = 12;
	r[1].nlb = 1;
	c = tn_cmd(NVME_OPC_DATASET_MANAGEMENT, 1);
	c.cdw10 = 1;            /* two ranges */
	c.cdw11 = NVME_DSM_ATTR_DEALLOCATE;
	TEST_ASSERT_EQ(tn_run(&QI, &c, r, 32), 0, "");
	c = rw(NVME_OPC_READ, 1, 0, 16);
	TEST_ASSERT_EQ(tn_run(&QI, &c, out, 8192), 0, "");
	TEST_ASSERT(memcmp(out + 4096, zero, 1024) == 0, "8-9");
	TEST_ASSERT(memcmp(out + 5120, data, 1024) == 0, "10-11 kept");
	TEST_ASSERT(memcmp(out + 6144, zero, 512) == 0, "12");
	/* Ranges beyond the namespace; more ranges than the data holds. */
	r[1].slba = TN_NS_BYTES / 512;
	c = tn_cmd(NVME_OPC_DATASET_MANAGEMENT, 1);
	c.cdw10 = 1;
	c.cdw11 = NVME_DSM_ATTR_DEALLOCATE;
	TEST_ASSERT_EQ(tn_run(&QI, &c, r, 32),
		       TN_ST(GENERIC, LBA_OUT_OF_RANGE), "");
	TEST_ASSERT_EQ(tn_run(&QI, &c, r, 16),
		       TN_ST(GENERIC, DATA_SGL_LENGTH_INVALID), "");
	return 0;
}

/* A file namespace: its I/O goes through the worker (io_uring). */
static int
t_file_namespace(void)
{
	char path[64];
	struct ndk_nvmf_ns_config nc = { .type = NDK_NVMF_NS_FILE,
					 .block_size = 4096, .nsid = 2 };
	static uint8_t out[65536];
	struct nvme_cmd c;
	uint32_t st;
	int fd, rc;

	snprintf(path, sizeof(path), "/tmp/test_nvmf_%d.img", (int)getpid());
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	TEST_ASSERT(fd >= 0, "");
	rc = ftruncate(fd, 1 << 20);
	close(fd);
	TEST_ASSERT_EQ(rc, 0, "");
	nc.path = path;
	rc = ndk_nvmf_subsystem_add_ns(S, &nc, NULL);
	if (rc == -ENOTSUP) {
		unlink(path);
		printf("  (no liburing: file namespaces not built)\n");
		return NDK_TEST_SKIPPED;
	}
	TEST_ASSERT_EQ(rc, 0, "");
	nc.path = "/nonexistent/file";
	nc.nsid = 3;
	TEST_ASSERT_EQ(ndk_nvmf_subsystem_add_ns(S, &nc, NULL), -ENOENT, "");
	rc = -1;
	if (tn_ready(true) != 0)
		goto out;
	for (uint32_t i = 0; i < 65536; i++)
		buf[i] = (uint8_t)(i ^ 0xA5);
	c = rw(NVME_OPC_WRITE, 2, 3, 16);
	if (tn_run(&QI, &c, buf, 65536) != TN_PENDING)
		goto out;       /* on the worker */
	while (nvmf_bdev_poll(T) == 0)
		;
	if (got.status != 0)
		goto out;
	c = tn_cmd(NVME_OPC_FLUSH, 2);
	st = tn_run(&QI, &c, NULL, 0);
	while (st == TN_PENDING && nvmf_bdev_poll(T) == 0)
		;
	c = rw(NVME_OPC_READ, 2, 3, 16);
	tn_run(&QI, &c, out, 65536);
	while (nvmf_bdev_poll(T) == 0)
		;
	if (got.status != 0 || memcmp(buf, out, 65536) != 0)
		goto out;
	/* Out of range is checked before the worker. */
	c = rw(NVME_OPC_READ, 2, 255, 2);
	if (tn_run(&QI, &c, out, 8192) != TN_ST(GENERIC, LBA_OUT_OF_RANGE))
		goto out;
	c = rw(NVME_OPC_WRITE_ZEROES, 2, 3, 1);
	tn_run(&QI, &c, NULL, 0);
	while (nvmf_bdev_poll(T) == 0)
		;
	if (got.status != 0)
		goto out;
	/* Shutdown: SHST complete once the worker has synced the file
	 * (ticket 1 of namespace 2; memory namespace 1 needs none). */
	if (tn_prop(&QA, true, NVME_PROP_CC, false, NVME_CC_EN |
		    NVME_CC_SHN_NORMAL | 6u << NVME_CC_IOSQES_SHIFT |
		    4u << NVME_CC_IOCQES_SHIFT) != 0 ||
	    QA.ctrlr->shn_ticket[0] != 0 || QA.ctrlr->shn_ticket[1] != 1)
		goto out;
	for (int i = 0; i < 100000; i++) {
		nvmf_ctrlr_keep_alive_check(T, rte_get_timer_cycles());
		if (tn_prop(&QA, false, NVME_PROP_CSTS, false, 0) != 0 ||
		    (got.cdw0 & NVME_CSTS_SHST_MASK) == NVME_CSTS_SHST_COMPLETE)
			break;
		usleep(100);
	}
	if ((got.cdw0 & NVME_CSTS_SHST_MASK) != NVME_CSTS_SHST_COMPLETE)
		goto out;
	rc = 0;
out:
	unlink(path);
	TEST_ASSERT_EQ(rc, 0, "file namespace I/O (last status %#x)",
		       got.status);
	return 0;
}

TN_XCASE(t_identify)
TN_XCASE(t_log_pages)
TN_XCASE(t_features)
TN_XCASE(t_aer)
TN_XCASE(t_discovery)
TN_XCASE(t_admin_misc)
TN_XCASE(t_io_rw)
TN_XCASE(t_io_errors)
TN_XCASE(t_io_zeroes_dsm)
TN_XCASE(t_file_namespace)
