/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Unit tests of lib/nvmf's host codecs (lib/nvmf/host/host_codec.c): the
 * RDMA CM private data it sends and decodes, the capsules and SGLs it
 * builds (checked byte by byte against the specifications' offsets), and
 * how a response is matched to its command: unknown or idle CIDs, short
 * capsules, and SEND with Invalidate naming the command's token or not;
 * Get Log Page and AER commands, discovery log entries decoded.
 */

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_eal.h>

#include "host_priv.h"
#include "ndk_test.h"

static uint16_t
le16_at(const void *p, size_t off)
{
	const uint8_t *b = p;

	return (uint16_t)(b[off] | b[off + 1] << 8);
}

static uint32_t
le32_at(const void *p, size_t off)
{
	const uint8_t *b = p;

	return (uint32_t)b[off] | (uint32_t)b[off + 1] << 8 |
		(uint32_t)b[off + 2] << 16 | (uint32_t)b[off + 3] << 24;
}

static uint64_t
le64_at(const void *p, size_t off)
{
	return (uint64_t)le32_at(p, off) | (uint64_t)le32_at(p, off + 4) << 32;
}

/* ------------------------------------------------------------------ */
/* RDMA CM private data                                                */
/* ------------------------------------------------------------------ */

static int
test_cm_req(void)
{
	struct nvmf_rdma_cm_req req;
	uint8_t zero[22] = { 0 };

	memset(&req, 0xAA, sizeof(req));
	nvmf_cm_req_encode(&req, 3, 128, 127, 0x1234);
	TEST_ASSERT_EQ(sizeof(req), 32, "REQ private data size");
	TEST_ASSERT_EQ(le16_at(&req, 0), 0, "recfmt");
	TEST_ASSERT_EQ(le16_at(&req, 2), 3, "qid");
	TEST_ASSERT_EQ(le16_at(&req, 4), 128, "hrqsize (1's based)");
	TEST_ASSERT_EQ(le16_at(&req, 6), 127, "hsqsize (0's based)");
	TEST_ASSERT_EQ(le16_at(&req, 8), 0x1234, "cntlid");
	TEST_ASSERT(memcmp((uint8_t *)&req + 10, zero, 22) == 0,
		    "reserved bytes cleared");
	return 0;
}

static int
test_cm_rep(void)
{
	uint8_t pd[196] = { 0 };
	uint16_t crq = 0;

	pd[2] = 0x20;   /* crqsize 32 */
	TEST_ASSERT_EQ(nvmf_cm_rep_decode(pd, sizeof(pd), &crq), 0, "");
	TEST_ASSERT_EQ(crq, 32, "crqsize");
	TEST_ASSERT_EQ(nvmf_cm_rep_decode(pd, 4, &crq), 0, "4 bytes do");
	TEST_ASSERT_EQ(nvmf_cm_rep_decode(pd, 3, &crq), -EPROTO, "short");
	TEST_ASSERT_EQ(nvmf_cm_rep_decode(NULL, 32, &crq), -EPROTO, "none");
	pd[0] = 1;
	TEST_ASSERT_EQ(nvmf_cm_rep_decode(pd, sizeof(pd), &crq), -EPROTO,
		       "recfmt 1");
	pd[0] = 0;
	pd[2] = 0;
	TEST_ASSERT_EQ(nvmf_cm_rep_decode(pd, sizeof(pd), &crq), -EPROTO,
		       "crqsize 0");
	return 0;
}

static int
test_cm_rej(void)
{
	uint8_t pd[148] = { 0 };
	uint16_t sts = 0;

	TEST_ASSERT_EQ(nvmf_cm_rej_decode(pd, sizeof(pd), &sts), -ENODATA,
		       "a REJ without NVMe/RDMA data (nobody listens)");
	pd[2] = NVMF_RDMA_CM_INVALID_HSQSIZE;
	TEST_ASSERT_EQ(nvmf_cm_rej_decode(pd, sizeof(pd), &sts), 0, "");
	TEST_ASSERT_EQ(sts, NVMF_RDMA_CM_INVALID_HSQSIZE, "status");
	TEST_ASSERT(strcmp(nvmf_cm_status_str(sts),
			   "invalid host SQ size") == 0, "name");
	TEST_ASSERT_EQ(nvmf_cm_rej_decode(pd, 3, &sts), -ENODATA, "short");
	pd[0] = 2;
	TEST_ASSERT_EQ(nvmf_cm_rej_decode(pd, sizeof(pd), &sts), -ENODATA,
		       "recfmt 2");
	TEST_ASSERT(strcmp(nvmf_cm_status_str(0x77),
			   "unknown reject status") == 0, "unknown");
	return 0;
}

/* ------------------------------------------------------------------ */
/* Capsules                                                            */
/* ------------------------------------------------------------------ */

static int
test_connect(void)
{
	struct nvme_cmd cmd;
	struct nvmf_connect_data d;
	uint8_t hostid[16];
	char longnqn[NDK_NVMF_NQN_MAX + 2];

	memset(&cmd, 0xFF, sizeof(cmd));
	nvmf_build_connect(&cmd, 0, 32, 15000);
	TEST_ASSERT_EQ(((uint8_t *)&cmd)[0], 0x7F, "opcode");
	TEST_ASSERT_EQ(((uint8_t *)&cmd)[4], NVMF_FCTYPE_CONNECT, "fctype");
	TEST_ASSERT_EQ(le16_at(&cmd, 40), 0, "recfmt");
	TEST_ASSERT_EQ(le16_at(&cmd, 42), 0, "qid");
	TEST_ASSERT_EQ(le16_at(&cmd, 44), 31, "sqsize 0's based");
	TEST_ASSERT_EQ(le32_at(&cmd, 48), 15000, "kato on the admin queue");
	nvmf_build_connect(&cmd, 2, 128, 15000);
	TEST_ASSERT_EQ(le16_at(&cmd, 42), 2, "qid");
	TEST_ASSERT_EQ(le16_at(&cmd, 44), 127, "sqsize");
	TEST_ASSERT_EQ(le32_at(&cmd, 48), 0, "no kato on an I/O queue");

	for (int i = 0; i < 16; i++)
		hostid[i] = (uint8_t)i;
	TEST_ASSERT_EQ(nvmf_build_connect_data(&d, hostid, 0xFFFF, "nqn.sub",
					       "nqn.host"), 0, "");
	TEST_ASSERT(memcmp(d.hostid, hostid, 16) == 0, "hostid at 0");
	TEST_ASSERT_EQ(le16_at(&d, 16), 0xFFFF, "cntlid at 16");
	TEST_ASSERT(strcmp((char *)&d + 256, "nqn.sub") == 0, "subnqn at 256");
	TEST_ASSERT(strcmp((char *)&d + 512, "nqn.host") == 0,
		    "hostnqn at 512");
	memset(longnqn, 'n', sizeof(longnqn) - 1);
	longnqn[sizeof(longnqn) - 1] = '\0';
	TEST_ASSERT_EQ(nvmf_build_connect_data(&d, hostid, 1, longnqn, "h"),
		       -EINVAL, "a 224-byte NQN");
	longnqn[NDK_NVMF_NQN_MAX] = '\0';
	TEST_ASSERT_EQ(nvmf_build_connect_data(&d, hostid, 1, longnqn, "h"),
		       0, "a 223-byte NQN");
	TEST_ASSERT_EQ(nvmf_build_connect_data(&d, hostid, 1, "s", ""),
		       -EINVAL, "an empty host NQN");
	return 0;
}

static int
test_properties(void)
{
	struct nvme_cmd cmd;

	nvmf_build_prop_get(&cmd, NVME_PROP_CAP, true);
	TEST_ASSERT_EQ(((uint8_t *)&cmd)[0], 0x7F, "opcode");
	TEST_ASSERT_EQ(((uint8_t *)&cmd)[4], NVMF_FCTYPE_PROPERTY_GET, "");
	TEST_ASSERT_EQ(((uint8_t *)&cmd)[40], 1, "8-byte attribute");
	TEST_ASSERT_EQ(le32_at(&cmd, 44), 0, "offset CAP");
	nvmf_build_prop_get(&cmd, NVME_PROP_CSTS, false);
	TEST_ASSERT_EQ(((uint8_t *)&cmd)[40], 0, "4-byte attribute");
	TEST_ASSERT_EQ(le32_at(&cmd, 44), 0x1C, "offset CSTS");
	nvmf_build_prop_set(&cmd, NVME_PROP_CC, 0x460001);
	TEST_ASSERT_EQ(((uint8_t *)&cmd)[4], NVMF_FCTYPE_PROPERTY_SET, "");
	TEST_ASSERT_EQ(le32_at(&cmd, 44), 0x14, "offset CC");
	TEST_ASSERT_EQ(le64_at(&cmd, 48), 0x460001, "value");
	return 0;
}

static int
test_admin_and_nvm(void)
{
	struct nvme_cmd cmd;

	nvmf_build_identify(&cmd, NVME_CNS_NAMESPACE, 7);
	TEST_ASSERT_EQ(cmd.opc, NVME_OPC_IDENTIFY, "");
	TEST_ASSERT_EQ(le32_at(&cmd, 4), 7, "nsid");
	TEST_ASSERT_EQ(le32_at(&cmd, 40), 0, "CNS 0");
	nvmf_build_set_features(&cmd, NVME_FEAT_NUM_QUEUES, 0x00030003);
	TEST_ASSERT_EQ(cmd.opc, 0x09, "");
	TEST_ASSERT_EQ(le32_at(&cmd, 40), 7, "FID");
	TEST_ASSERT_EQ(le32_at(&cmd, 44), 0x00030003, "NSQR/NCQR");
	nvmf_build_keep_alive(&cmd);
	TEST_ASSERT_EQ(cmd.opc, 0x18, "");

	nvmf_build_rw(&cmd, NVME_OPC_READ, 1, 0x123456789ull, 8);
	TEST_ASSERT_EQ(cmd.opc, 0x02, "");
	TEST_ASSERT_EQ(le32_at(&cmd, 40), 0x23456789, "SLBA low");
	TEST_ASSERT_EQ(le32_at(&cmd, 44), 0x1, "SLBA high");
	TEST_ASSERT_EQ(le32_at(&cmd, 48), 7, "NLB 0's based");
	nvmf_build_rw(&cmd, NVME_OPC_WRITE, 1, 0, 65536);
	TEST_ASSERT_EQ(le32_at(&cmd, 48), 0xFFFF, "largest NLB");
	nvmf_build_write_zeroes(&cmd, 2, 10, 1);
	TEST_ASSERT_EQ(cmd.opc, 0x08, "");
	TEST_ASSERT_EQ(le32_at(&cmd, 48), 0, "one block");
	nvmf_build_flush(&cmd, 3);
	TEST_ASSERT_EQ(cmd.opc, 0x00, "");
	TEST_ASSERT_EQ(cmd.nsid, 3, "");
	nvmf_build_dsm(&cmd, 1, 4);
	TEST_ASSERT_EQ(cmd.opc, 0x09, "");
	TEST_ASSERT_EQ(le32_at(&cmd, 40), 3, "NR 0's based");
	TEST_ASSERT_EQ(le32_at(&cmd, 44), 1u << 2, "AD (deallocate)");
	return 0;
}

static int
test_log_and_aer(void)
{
	struct nvmf_disc_entry e;
	struct ndk_nvmf_disc_entry d;
	struct nvme_cmd cmd;

	/* 8 KiB of the error log from byte 0x1_0000_0040, RAE set. */
	nvmf_build_get_log_page(&cmd, NVME_LOG_ERROR, 0xFFFFFFFF, 8192,
				0x100000040ull, true);
	TEST_ASSERT_EQ(cmd.opc, 0x02, "Get Log Page");
	TEST_ASSERT_EQ(le32_at(&cmd, 4), 0xFFFFFFFF, "nsid");
	TEST_ASSERT_EQ(le32_at(&cmd, 40) & 0xFF, 0x01, "LID");
	TEST_ASSERT_EQ((le32_at(&cmd, 40) >> 15) & 1, 1, "RAE");
	TEST_ASSERT_EQ(le16_at(&cmd, 42), 2047, "NUMDL 0's based");
	TEST_ASSERT_EQ(le32_at(&cmd, 44), 0, "NUMDU");
	TEST_ASSERT_EQ(le32_at(&cmd, 48), 0x40, "LPOL");
	TEST_ASSERT_EQ(le32_at(&cmd, 52), 1, "LPOU");
	TEST_ASSERT_EQ(nvme_log_len(&cmd), 8192, "the target's decoding");
	TEST_ASSERT_EQ(nvme_log_offset(&cmd), 0x100000040ull, "");
	/* More than 2^16 dwords: NUMDU carries the rest; no RAE. */
	nvmf_build_get_log_page(&cmd, NVME_LOG_DISCOVERY, 0, 1u << 20, 0,
				false);
	TEST_ASSERT_EQ(le32_at(&cmd, 40), 0xFFFF0070, "NUMDL, LID, no RAE");
	TEST_ASSERT_EQ(le32_at(&cmd, 44), 3, "NUMDU");
	TEST_ASSERT_EQ(nvme_log_len(&cmd), 1u << 20, "");

	nvmf_build_aer(&cmd);
	TEST_ASSERT_EQ(cmd.opc, 0x0C, "Asynchronous Event Request");
	TEST_ASSERT_EQ(le32_at(&cmd, 40), 0, "no CDW10");

	/* A discovery entry: text fields padded with spaces, cut. */
	memset(&e, 0, sizeof(e));
	e.trtype = NVMF_TRTYPE_RDMA;
	e.adrfam = NVMF_ADRFAM_IPV4;
	e.subtype = NVMF_SUBTYPE_NVME;
	e.portid = 3;
	e.cntlid = 0xFFFF;
	e.asqsz = 32;
	memset(e.trsvcid, ' ', sizeof(e.trsvcid));
	memcpy(e.trsvcid, "4420", 4);
	memset(e.traddr, ' ', sizeof(e.traddr));
	memcpy(e.traddr, "10.0.0.1", 8);
	memset(e.subnqn, 'q', sizeof(e.subnqn));  /* no NUL: 223 kept */
	nvmf_disc_entry_decode(&e, &d);
	TEST_ASSERT_EQ(d.trtype, 1, "");
	TEST_ASSERT_EQ(d.adrfam, 1, "");
	TEST_ASSERT_EQ(d.subtype, 2, "");
	TEST_ASSERT_EQ(d.portid, 3, "");
	TEST_ASSERT_EQ(d.cntlid, 0xFFFF, "");
	TEST_ASSERT_EQ(d.asqsz, 32, "");
	TEST_ASSERT(strcmp(d.trsvcid, "4420") == 0, "trsvcid '%s'",
		    d.trsvcid);
	TEST_ASSERT(strcmp(d.traddr, "10.0.0.1") == 0, "traddr '%s'",
		    d.traddr);
	TEST_ASSERT_EQ(strlen(d.subnqn), NDK_NVMF_NQN_MAX, "NQN bounded");
	memset(e.subnqn, 0, sizeof(e.subnqn));
	memcpy(e.subnqn, NVMF_DISCOVERY_NQN, strlen(NVMF_DISCOVERY_NQN));
	nvmf_disc_entry_decode(&e, &d);
	TEST_ASSERT(strcmp(d.subnqn, NDK_NVMF_DISCOVERY_NQN) == 0,
		    "NUL padded NQN");
	return 0;
}

/* ------------------------------------------------------------------ */
/* SGLs                                                                */
/* ------------------------------------------------------------------ */

static int
test_sgl(void)
{
	struct nvme_cmd cmd;
	const uint8_t *b = (const uint8_t *)&cmd;

	nvmf_build_rw(&cmd, NVME_OPC_READ, 1, 0, 1);
	nvmf_sgl_keyed_inv(&cmd, 0x7F0012345000ull, 0x100000, 0xA1B2C3D4);
	TEST_ASSERT_EQ(cmd.flags & 0xC0, 0x40, "PSDT: SGL");
	TEST_ASSERT_EQ(le64_at(&cmd, 24), 0x7F0012345000ull, "address");
	TEST_ASSERT_EQ(b[32] | b[33] << 8 | b[34] << 16, 0x100000,
		       "24-bit length");
	TEST_ASSERT_EQ(le32_at(&cmd, 35), 0xA1B2C3D4, "key at 35..38");
	TEST_ASSERT_EQ(b[39], 0x4F, "keyed data block, invalidate key");
	nvmf_sgl_keyed(&cmd, 0x7F0012345000ull, 4096, 0x11223344);
	TEST_ASSERT_EQ(le64_at(&cmd, 24), 0x7F0012345000ull, "address");
	TEST_ASSERT_EQ(b[32] | b[33] << 8 | b[34] << 16, 4096, "length");
	TEST_ASSERT_EQ(le32_at(&cmd, 35), 0x11223344, "key");
	TEST_ASSERT_EQ(b[39], 0x40, "keyed data block, address");

	nvmf_build_rw(&cmd, NVME_OPC_WRITE, 1, 0, 1);
	nvmf_sgl_in_capsule(&cmd, 4096);
	TEST_ASSERT_EQ(cmd.flags & 0xC0, 0x40, "PSDT: SGL");
	TEST_ASSERT_EQ(le64_at(&cmd, 24), 0, "offset 0");
	TEST_ASSERT_EQ(le32_at(&cmd, 32), 4096, "length");
	TEST_ASSERT_EQ(b[39], 0x01, "data block, offset");

	nvmf_build_flush(&cmd, 1);
	nvmf_sgl_none(&cmd);
	TEST_ASSERT_EQ(b[39], 0x40, "keyed data block, address");
	TEST_ASSERT_EQ(le32_at(&cmd, 32) & 0xFFFFFF, 0, "length 0");

	TEST_ASSERT_EQ(nvmf_page_count(0x10000, 4096), 1, "aligned page");
	TEST_ASSERT_EQ(nvmf_page_count(0x10001, 4096), 2, "straddling");
	TEST_ASSERT_EQ(nvmf_page_count(0x10000, 1 << 20), 256, "1 MiB");
	TEST_ASSERT_EQ(nvmf_page_count(0x10FFF, 1), 1, "last byte");
	return 0;
}

/* ------------------------------------------------------------------ */
/* Responses                                                           */
/* ------------------------------------------------------------------ */

static int
test_cpl_slot(void)
{
	struct nvme_cpl cpl = { .cid = 5 };

	TEST_ASSERT_EQ(nvmf_cpl_slot(&cpl, 16, 31), 5, "");
	TEST_ASSERT_EQ(nvmf_cpl_slot(&cpl, 15, 31), -EPROTO, "short capsule");
	TEST_ASSERT_EQ(nvmf_cpl_slot(&cpl, 16, 5), -ENOENT, "CID past slots");
	cpl.cid = 0xFFFF;
	TEST_ASSERT_EQ(nvmf_cpl_slot(&cpl, 16, 1023), -ENOENT, "CID FFFFh");
	return 0;
}

static int
test_resp_classify(void)
{
	struct nvmf_req r;
	bool stray;

	memset(&r, 0, sizeof(r));
	TEST_ASSERT_EQ(nvmf_resp_classify(NULL, false, 0, &stray),
		       NVMF_RESP_DROP, "unknown CID");
	TEST_ASSERT(!stray, "");
	TEST_ASSERT_EQ(nvmf_resp_classify(NULL, true, 9, &stray),
		       NVMF_RESP_DROP, "unknown CID with invalidate");
	TEST_ASSERT(stray, "its token is somebody else's");
	TEST_ASSERT_EQ(nvmf_resp_classify(&r, false, 0, &stray),
		       NVMF_RESP_DROP, "idle slot");
	r.busy = true;
	TEST_ASSERT_EQ(nvmf_resp_classify(&r, false, 0, &stray),
		       NVMF_RESP_DONE, "no data");
	r.resp = true;
	TEST_ASSERT_EQ(nvmf_resp_classify(&r, false, 0, &stray),
		       NVMF_RESP_DROP, "a second response");
	r.resp = false;
	r.keyed = true;
	r.mr_valid = true;
	r.rkey = 0x1234;
	TEST_ASSERT_EQ(nvmf_resp_classify(&r, true, 0x1234, &stray),
		       NVMF_RESP_REMOTE_INV, "the controller invalidated it");
	TEST_ASSERT(!stray, "");
	TEST_ASSERT_EQ(nvmf_resp_classify(&r, false, 0, &stray),
		       NVMF_RESP_LOCAL_INV, "plain SEND: invalidate locally");
	TEST_ASSERT_EQ(nvmf_resp_classify(&r, true, 0x1235, &stray),
		       NVMF_RESP_LOCAL_INV, "another token invalidated");
	TEST_ASSERT(stray, "reported");
	r.keyed = false;
	r.mr_valid = false;
	TEST_ASSERT_EQ(nvmf_resp_classify(&r, true, 0x1234, &stray),
		       NVMF_RESP_DONE, "in-capsule write, invalidate anyway");
	TEST_ASSERT(stray, "reported");
	return 0;
}

static int
test_status_str(void)
{
	char b[96];

	nvmf_status_str(nvme_status(NVME_SCT_COMMAND_SPECIFIC,
				    NVME_SC_CONNECT_INVALID_HOST, 1) |
			NVME_STATUS_P, b, sizeof(b));
	TEST_ASSERT(strcmp(b, "SCT 1h SC 84h ((connect) invalid host)") == 0,
		    "%s", b);
	nvmf_status_str(nvme_status(NVME_SCT_GENERIC, NVME_SC_LBA_OUT_OF_RANGE,
				    0), b, sizeof(b));
	TEST_ASSERT(strcmp(b, "SCT 0h SC 80h (LBA out of range)") == 0, "%s",
		    b);
	nvmf_status_str(nvme_status(NVME_SCT_VENDOR, 0x42, 0), b, sizeof(b));
	TEST_ASSERT(strcmp(b, "SCT 7h SC 42h") == 0, "%s", b);
	TEST_ASSERT_EQ(ndk_nvmf_status_sct(nvme_status(3, 0x71, 1)), 3, "");
	TEST_ASSERT_EQ(ndk_nvmf_status_sc(nvme_status(3, 0x71, 1)), 0x71, "");
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct ndk_test_case cases[] = {
		{ "cm_req", test_cm_req },
		{ "cm_rep", test_cm_rep },
		{ "cm_rej", test_cm_rej },
		{ "connect", test_connect },
		{ "properties", test_properties },
		{ "admin_and_nvm", test_admin_and_nvm },
		{ "log_and_aer", test_log_and_aer },
		{ "sgl", test_sgl },
		{ "cpl_slot", test_cpl_slot },
		{ "resp_classify", test_resp_classify },
		{ "status_str", test_status_str },
	};

	int rc;

	/* The EAL only for the harness's clock: the codecs need nothing. */
	if (ndk_test_eal_init("nvmf_host_unit", "0", NULL) != 0)
		return 1;
	rc = ndk_test_run("nvmf_host_unit", cases, RTE_DIM(cases), argc,
			  argv);
	rte_eal_cleanup();
	return rc;
}
