/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The fixture of lib/nvmf's target unit tests (test_nvmf.c) shared with
 * the command tests (test_nvmf_cmds.c): a target built by hand with
 * subsystem TN_NQN (host TN_HOST only, namespace 1: TN_NS_BYTES of memory,
 * 512-byte blocks) and queue pairs QA (admin), QI (I/O 1), QD (spare)
 * whose responses land in `got`.
 */

#ifndef TEST_NVMF_H
#define TEST_NVMF_H

#include <stdbool.h>
#include <stdint.h>

#include "nvmf_tgt_int.h"

#define TN_NQN "nqn.2026-11.io.ndk-roce:unit"
#define TN_HOST "nqn.2014-08.org.nvmexpress:uuid:00000000-0000-0000-0000-000000000001"
#define TN_NS_BYTES (1u << 20)
#define TN_MAX_IO (128u * 1024)
#define TN_BUF (256u * 1024)
/** tn_run(): no completion yet. */
#define TN_PENDING 0x10000u
/** A failed status (DNR set) by names: TN_ST(GENERIC, INVALID_FIELD). */
#define TN_ST(sct, sc) nvme_status(NVME_SCT_ ## sct, NVME_SC_ ## sc, 1)

extern struct ndk_nvmf_tgt *T;
extern struct ndk_nvmf_subsystem *S;
extern struct nvmf_qpair QA, QI, QD;
extern struct nvme_cpl got;
extern unsigned int ncompl;
extern uint8_t buf[TN_BUF];

int tn_fixture(void);
void tn_fixture_free(void);
void tn_qp_init(struct nvmf_qpair *qp, uint16_t qid, uint16_t entries);
struct nvmf_req *tn_req(struct nvmf_qpair *qp, const struct nvme_cmd *c,
			void *data, uint32_t len);
uint32_t tn_run(struct nvmf_qpair *qp, const struct nvme_cmd *c, void *data,
		uint32_t len);
uint32_t tn_connect(struct nvmf_qpair *qp, uint16_t qid, const char *subnqn,
		    const char *hostnqn, uint16_t cntlid, uint32_t kato);
uint32_t tn_prop(struct nvmf_qpair *qp, bool set, uint32_t off, bool size8,
		 uint64_t v);
int tn_ready(bool io);
struct nvme_cmd tn_cmd(uint8_t opc, uint32_t nsid);
int tn_run_case(int (*fn)(void));

/** A case run on a fresh fixture: fn_case(). */
#define TN_CASE(fn) \
	static int fn ## _case(void) { return tn_run_case(fn); }
/** The same, for a case test_nvmf.c lists. */
#define TN_XCASE(fn) \
	int fn ## _case(void) { return tn_run_case(fn); }

int t_identify_case(void);
int t_log_pages_case(void);
int t_features_case(void);
int t_aer_case(void);
int t_discovery_case(void);
int t_admin_misc_case(void);
int t_io_rw_case(void);
int t_io_errors_case(void);
int t_io_zeroes_dsm_case(void);
int t_file_namespace_case(void);

#endif /* TEST_NVMF_H */
