/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The host's controller: bring-up over the admin queue (Connect, CAP and
 * VS, CC.EN and CSTS.RDY, Identify, Number of Queues, namespaces), the
 * I/O queues, keep-alive, and shutdown (CC.SHN, CSTS.SHST).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "host_priv.h"

RTE_LOG_REGISTER(nvmf_host_logtype, ndk.nvmf.host, NOTICE);

#define CTRLR_DEF_ADMIN_QSIZE 32
#define CTRLR_DEF_IO_QSIZE 128
#define CTRLR_DEF_KATO_MS 10000
#define CTRLR_DEF_MAX_IO 131072
#define CTRLR_DEF_TIMEOUT_MS 10000
#define CTRLR_CC_IOSQES 6       /* 64-byte SQ entries */
#define CTRLR_CC_IOCQES 4       /* 16-byte CQ entries */

void
ndk_nvmf_host_opts_init(struct ndk_nvmf_host_opts *o)
{
	uint64_t a = rte_rand(), b = rte_rand();
	uint8_t *h;

	memset(o, 0, sizeof(*o));
	o->trsvcid = NVMF_RDMA_PORT;
	o->admin_queue_size = CTRLR_DEF_ADMIN_QSIZE;
	o->io_queue_size = CTRLR_DEF_IO_QSIZE;
	o->num_io_queues = 1;
	o->kato_ms = CTRLR_DEF_KATO_MS;
	o->max_io_size = CTRLR_DEF_MAX_IO;
	o->timeout_ms = CTRLR_DEF_TIMEOUT_MS;
	memcpy(o->hostid, &a, 8);
	memcpy(o->hostid + 8, &b, 8);
	o->hostid[6] = (uint8_t)((o->hostid[6] & 0x0F) | 0x40); /* v4 */
	o->hostid[8] = (uint8_t)((o->hostid[8] & 0x3F) | 0x80);
	h = o->hostid;
	snprintf(o->hostnqn, sizeof(o->hostnqn),
		 "nqn.2014-08.org.nvmexpress:uuid:"
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		 "%02x%02x%02x%02x%02x%02x",
		 h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8], h[9],
		 h[10], h[11], h[12], h[13], h[14], h[15]);
}

const struct ndk_nvmf_ctrlr_info *
ndk_nvmf_ctrlr_get_info(const struct ndk_nvmf_ctrlr *c)
{
	return c != NULL ? &c->info : NULL;
}

struct ndk_nvmf_qpair *
ndk_nvmf_ctrlr_get_qpair(struct ndk_nvmf_ctrlr *c, uint16_t i)
{
	if (c == NULL || i >= c->info.num_io_queues)
		return NULL;
	return c->io[i];
}

/* ------------------------------------------------------------------ */
/* Admin commands (control path)                                       */
/* ------------------------------------------------------------------ */

int
nvmf_host_admin_exec(struct ndk_nvmf_ctrlr *c, const struct nvme_cmd *cmd,
		     void *buf, uint32_t len, enum nvmf_xfer xfer,
		     struct nvme_cpl *cpl, const char *what)
{
	struct nvme_cpl local;
	char sbuf[96];
	int rc;

	if (cpl == NULL)
		cpl = &local;
	rc = nvmf_qpair_exec(c->admin, cmd, buf, len, xfer, cpl);
	if (rc != 0) {
		NVMF_HOST_LOG(ERR, "%s: %s", what, strerror(-rc));
		return rc;
	}
	if ((cpl->status & ~NVME_STATUS_P) != 0) {
		NVMF_HOST_LOG(ERR, "%s: %s", what,
			      nvmf_status_str(cpl->status, sbuf, sizeof(sbuf)));
		return -EIO;
	}
	return 0;
}

static int
prop_get(struct ndk_nvmf_ctrlr *c, uint32_t off, bool size8, uint64_t *v,
	 const char *what)
{
	struct nvme_cmd cmd;
	struct nvme_cpl cpl;
	int rc;

	nvmf_build_prop_get(&cmd, off, size8);
	rc = nvmf_host_admin_exec(c, &cmd, NULL, 0, NVMF_XFER_NONE, &cpl,
				  what);
	if (rc == 0)
		*v = size8 ? (uint64_t)cpl.cdw0 | (uint64_t)cpl.cdw1 << 32 :
			cpl.cdw0;
	return rc;
}

static int
prop_set(struct ndk_nvmf_ctrlr *c, uint32_t off, uint32_t v, const char *what)
{
	struct nvme_cmd cmd;

	nvmf_build_prop_set(&cmd, off, v);
	return nvmf_host_admin_exec(c, &cmd, NULL, 0, NVMF_XFER_NONE, NULL,
				    what);
}

/* Wait until (CSTS & mask) == want, at most @p ms. */
static int
csts_wait(struct ndk_nvmf_ctrlr *c, uint32_t mask, uint32_t want, uint32_t ms,
	  const char *what)
{
	uint64_t end = rte_get_timer_cycles() + rte_get_timer_hz() / 1000 * ms;
	uint64_t csts;
	int rc;

	for (;;) {
		rc = prop_get(c, NVME_PROP_CSTS, false, &csts, "Property Get "
			      "CSTS");
		if (rc != 0)
			return rc;
		if (csts & NVME_CSTS_CFS) {
			NVMF_HOST_LOG(ERR, "%s: controller fatal status "
				      "(CSTS %#" PRIx64 ")", what, csts);
			return -EIO;
		}
		if ((csts & mask) == want)
			return 0;
		if (rte_get_timer_cycles() > end) {
			NVMF_HOST_LOG(ERR, "%s: CSTS %#" PRIx64 " after %u ms",
				      what, csts, ms);
			return -ETIMEDOUT;
		}
		/* Control path: a short sleep between two reads is fine. */
		rte_delay_us_sleep(1000);
	}
}

static void
trim_copy(char *dst, const char *src, size_t n)
{
	memcpy(dst, src, n);
	dst[n] = '\0';
	while (n > 0 && (dst[n - 1] == ' ' || dst[n - 1] == '\0'))
		dst[--n] = '\0';
}

static int
identify_ctrlr(struct ndk_nvmf_ctrlr *c)
{
	const struct nvme_id_ctrl *id = c->dma;
	struct ndk_nvmf_ctrlr_info *in = &c->info;
	struct nvme_cmd cmd;
	uint32_t mdts_bytes = UINT32_MAX;
	int rc;

	nvmf_build_identify(&cmd, NVME_CNS_CONTROLLER, 0);
	memset(c->dma, 0, NVME_IDENTIFY_SIZE);
	rc = nvmf_host_admin_exec(c, &cmd, c->dma, NVME_IDENTIFY_SIZE,
				  NVMF_XFER_FROM_CTRLR, NULL,
				  "Identify controller");
	if (rc != 0)
		return rc;
	trim_copy(in->sn, id->sn, sizeof(id->sn));
	trim_copy(in->mn, id->mn, sizeof(id->mn));
	trim_copy(in->fr, id->fr, sizeof(id->fr));
	trim_copy(in->subnqn, id->subnqn, NDK_NVMF_NQN_MAX);
	in->ioccsz = id->ioccsz * 16;
	in->oncs = id->oncs;
	in->kas = id->kas;
	in->nn = id->nn;
	c->oaes = id->oaes;
	if (!(id->sgls & NVME_CTRL_SGLS_KEYED)) {
		NVMF_HOST_LOG(ERR, "the controller has no keyed SGLs "
			      "(SGLS %#x)", id->sgls);
		return -EPROTO;
	}
	/* In-capsule data: offset SGLs supported and ICDOFF 0. */
	in->in_capsule_max = 0;
	if (!c->base.opts.no_in_capsule && (id->sgls & NVME_CTRL_SGLS_OFFSET) &&
	    id->icdoff == 0 && in->ioccsz > sizeof(struct nvme_cmd))
		in->in_capsule_max = in->ioccsz - sizeof(struct nvme_cmd);
	/* MDTS in units of CAP.MPSMIN pages (we run MPS = 0: 4 KiB). */
	if (id->mdts != 0 && id->mdts < 20)
		mdts_bytes = (uint32_t)NDK_PAGE_SIZE << id->mdts;
	in->max_io_size = RTE_MIN(c->base.opts.max_io_size, mdts_bytes);
	/* A buffer of the largest size must then be page aligned. */
	if (in->max_io_size > c->base.frmr_pages * NDK_PAGE_SIZE)
		in->max_io_size = c->base.frmr_pages * NDK_PAGE_SIZE;
	if (id->cntlid != in->cntlid)
		NVMF_HOST_LOG(WARNING, "Identify CNTLID %u, Connect said %u",
			      id->cntlid, in->cntlid);
	return 0;
}

static int
identify_namespaces(struct ndk_nvmf_ctrlr *c)
{
	struct ndk_nvmf_ctrlr_info *in = &c->info;
	uint32_t nsids[NDK_NVMF_NS_MAX];
	uint32_t n = 0;
	struct nvme_cmd cmd;
	int rc;

	nvmf_build_identify(&cmd, NVME_CNS_ACTIVE_NS_LIST, 0);
	memset(c->dma, 0, NVME_IDENTIFY_SIZE);
	rc = nvmf_host_admin_exec(c, &cmd, c->dma, NVME_IDENTIFY_SIZE,
				  NVMF_XFER_FROM_CTRLR, NULL,
				  "Identify active namespaces");
	if (rc != 0)
		return rc;
	for (uint32_t i = 0; i < NVME_IDENTIFY_SIZE / 4 && n < RTE_DIM(nsids);
	     i++) {
		uint32_t id = ((const uint32_t *)c->dma)[i];

		if (id == 0)
			break;
		nsids[n++] = id;
	}
	in->num_ns = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct nvme_id_ns *ns = c->dma;
		struct ndk_nvmf_ns_info *o = &in->ns[in->num_ns];
		uint8_t lbads;

		nvmf_build_identify(&cmd, NVME_CNS_NAMESPACE, nsids[i]);
		memset(c->dma, 0, NVME_IDENTIFY_SIZE);
		rc = nvmf_host_admin_exec(c, &cmd, c->dma,
					  NVME_IDENTIFY_SIZE,
					  NVMF_XFER_FROM_CTRLR, NULL,
					  "Identify namespace");
		if (rc != 0)
			return rc;
		lbads = ns->lbaf[ns->flbas & 0xF].lbads;
		if (ns->nsze == 0 || lbads < 9 || lbads > 16)
			continue;    /* inactive, or not a format we do */
		o->nsid = nsids[i];
		o->nsze = ns->nsze;
		o->block_size = 1u << lbads;
		in->num_ns++;
	}
	return 0;
}

static int
set_num_queues(struct ndk_nvmf_ctrlr *c, uint16_t want, uint16_t *got)
{
	struct nvme_cmd cmd;
	struct nvme_cpl cpl;
	uint32_t nsqa, ncqa;
	int rc;

	nvmf_build_set_features(&cmd, NVME_FEAT_NUM_QUEUES,
				(uint32_t)(want - 1) | (uint32_t)(want - 1) << 16);
	rc = nvmf_host_admin_exec(c, &cmd, NULL, 0, NVMF_XFER_NONE, &cpl,
				  "Set Features Number of Queues");
	if (rc != 0)
		return rc;
	nsqa = (cpl.cdw0 & 0xFFFF) + 1;
	ncqa = (cpl.cdw0 >> 16) + 1;
	nsqa = RTE_MIN(nsqa, ncqa);
	*got = (uint16_t)RTE_MIN((uint32_t)want, nsqa);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Keep-alive and admin upkeep (data path)                             */
/* ------------------------------------------------------------------ */

static void
ka_done(void *arg, const struct ndk_nvmf_cpl *cpl)
{
	struct ndk_nvmf_ctrlr *c = arg;

	c->ka_pending = false;
	if (cpl->status != 0) {
		NVMF_HOST_LOG(ERR, "Keep Alive failed: status %#x",
			      cpl->status);
		c->ka_failed = true;
	}
}

int
ndk_nvmf_ctrlr_process_admin(struct ndk_nvmf_ctrlr *c)
{
	struct nvme_cmd cmd;
	uint64_t now;
	int rc;

	if (c == NULL)
		return -EINVAL;
	if (c->admin == NULL)
		return -ENOTCONN;       /* a reconnect that failed */
	rc = ndk_nvmf_qpair_poll(c->admin, 0);
	if (rc == -ENOTCONN || c->admin->failed || c->ka_failed)
		return -ENOTCONN;
	if (c->ka_interval_tsc == 0)
		return 0;
	now = rte_get_timer_cycles();
	if (now < c->ka_next_tsc)
		return 0;
	if (c->ka_pending) {
		/* A whole interval without an answer: KATO is half gone. */
		NVMF_HOST_LOG(ERR, "Keep Alive unanswered for %u ms",
			      c->info.kato_ms / 2);
		c->ka_failed = true;
		return -ENOTCONN;
	}
	nvmf_build_keep_alive(&cmd);
	rc = nvmf_qpair_submit(c->admin, &cmd, NULL, 0, NVMF_XFER_NONE,
			       ka_done, c);
	if (rc == -EAGAIN)
		return 0;
	if (rc != 0)
		return -ENOTCONN;
	c->ka_pending = true;
	c->ka_next_tsc = now + c->ka_interval_tsc;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Connect and close                                                   */
/* ------------------------------------------------------------------ */

static int
opts_check(struct ndk_nvmf_host_opts *o)
{
	if (o->trsvcid == 0)
		o->trsvcid = NVMF_RDMA_PORT;
	if (o->admin_queue_size == 0)
		o->admin_queue_size = CTRLR_DEF_ADMIN_QSIZE;
	if (o->io_queue_size == 0)
		o->io_queue_size = CTRLR_DEF_IO_QSIZE;
	if (o->num_io_queues == 0)
		o->num_io_queues = 1;
	if (o->max_io_size == 0)
		o->max_io_size = CTRLR_DEF_MAX_IO;
	if (o->timeout_ms == 0)
		o->timeout_ms = CTRLR_DEF_TIMEOUT_MS;
	if (o->traddr == 0 || o->admin_queue_size < 2 ||
	    o->admin_queue_size > NDK_NVMF_ADMIN_QUEUE_MAX ||
	    o->io_queue_size < 2 || o->io_queue_size > NDK_NVMF_IO_QUEUE_MAX ||
	    o->num_io_queues > NDK_NVMF_IO_QUEUES_MAX ||
	    strnlen(o->subnqn, sizeof(o->subnqn)) == 0 ||
	    strnlen(o->subnqn, sizeof(o->subnqn)) > NDK_NVMF_NQN_MAX ||
	    strnlen(o->hostnqn, sizeof(o->hostnqn)) == 0 ||
	    strnlen(o->hostnqn, sizeof(o->hostnqn)) > NDK_NVMF_NQN_MAX)
		return -EINVAL;
	return 0;
}

/* Admin queue, properties, CC.EN, Identify, Number of Queues. */
static int
ctrlr_enable(struct ndk_nvmf_ctrlr *c)
{
	struct nvmf_connect_data *cd = c->dma;
	struct ndk_nvmf_host_opts *o = &c->base.opts;
	uint64_t v;
	uint32_t to_ms;
	int rc;

	rc = nvmf_build_connect_data(cd, o->hostid, NVMF_CNTLID_DYNAMIC,
				     o->subnqn, o->hostnqn);
	if (rc != 0)
		return rc;
	rc = nvmf_qpair_create(&c->base, 0, o->admin_queue_size, 0, cd,
			       &c->info.cntlid, &c->admin);
	if (rc != 0)
		return rc;
	if ((rc = prop_get(c, NVME_PROP_CAP, true, &c->info.cap,
			   "Property Get CAP")) != 0 ||
	    (rc = prop_get(c, NVME_PROP_VS, false, &v,
			   "Property Get VS")) != 0)
		return rc;
	c->info.vs = (uint32_t)v;
	if ((rc = prop_get(c, NVME_PROP_CC, false, &v,
			   "Property Get CC")) != 0)
		return rc;
	c->cc = (uint32_t)v;
	/* CAP.TO: worst case for CSTS.RDY, 500 ms units. */
	to_ms = (uint32_t)((c->info.cap >> NVME_CAP_TO_SHIFT) & 0xFF) * 500;
	to_ms = RTE_MAX(to_ms, 500u);
	if (c->cc & NVME_CC_EN) {
		/* A controller left enabled: reset it first. */
		c->cc &= ~NVME_CC_EN;
		if ((rc = prop_set(c, NVME_PROP_CC, c->cc,
				   "Property Set CC.EN=0")) != 0 ||
		    (rc = csts_wait(c, NVME_CSTS_RDY, 0, to_ms,
				    "CC.EN=0")) != 0)
			return rc;
	}
	c->cc = NVME_CC_EN | CTRLR_CC_IOSQES << NVME_CC_IOSQES_SHIFT |
		CTRLR_CC_IOCQES << NVME_CC_IOCQES_SHIFT;
	if ((rc = prop_set(c, NVME_PROP_CC, c->cc,
			   "Property Set CC.EN=1")) != 0 ||
	    (rc = csts_wait(c, NVME_CSTS_RDY, NVME_CSTS_RDY, to_ms,
			    "CC.EN=1")) != 0)
		return rc;
	if ((rc = identify_ctrlr(c)) != 0)
		return rc;
	if (c->discovery)
		return 0;       /* no I/O queues, no namespaces */
	return set_num_queues(c, o->num_io_queues, &c->info.num_io_queues);
}

static int
ctrlr_io_queues(struct ndk_nvmf_ctrlr *c)
{
	struct nvmf_connect_data *cd = c->dma;
	struct ndk_nvmf_host_opts *o = &c->base.opts;
	uint16_t n = c->info.num_io_queues;
	int rc;

	c->info.num_io_queues = 0;
	for (uint16_t i = 0; i < n; i++) {
		rc = nvmf_build_connect_data(cd, o->hostid, c->info.cntlid,
					     o->subnqn, o->hostnqn);
		if (rc == 0)
			rc = nvmf_qpair_create(&c->base, (uint16_t)(i + 1),
					       o->io_queue_size,
					       c->info.in_capsule_max, cd,
					       NULL, &c->io[i]);
		if (rc != 0)
			return rc;
		c->info.num_io_queues++;
		c->info.io_queue_depth = c->io[i]->nreq;
	}
	return 0;
}

/* Everything after the PD: admin queue, enable, namespaces, I/O queues,
 * events, keep-alive timer. On failure the caller releases the queues. */
static int
ctrlr_bringup(struct ndk_nvmf_ctrlr *c)
{
	int rc;

	c->closing = false;
	c->ka_pending = false;
	c->ka_failed = false;
	c->ka_interval_tsc = 0;
	c->info.num_io_queues = 0;
	rc = ctrlr_enable(c);
	if (rc == 0 && !c->discovery)
		rc = identify_namespaces(c);
	if (rc == 0)
		rc = ctrlr_io_queues(c);
	if (rc == 0)
		rc = nvmf_events_start(c);
	if (rc != 0)
		return rc;
	if (c->info.kato_ms != 0) {
		c->ka_interval_tsc = rte_get_timer_hz() / 1000 *
			(c->info.kato_ms / 2);
		c->ka_next_tsc = rte_get_timer_cycles() + c->ka_interval_tsc;
	}
	NVMF_HOST_LOG(INFO, "connected to %s: controller %u, %u I/O queues "
		      "of %u, %u namespaces, in-capsule %u B, max I/O %u B",
		      c->info.subnqn, c->info.cntlid, c->info.num_io_queues,
		      c->info.io_queue_depth, c->info.num_ns,
		      c->info.in_capsule_max, c->info.max_io_size);
	return 0;
}

int
ndk_nvmf_ctrlr_connect(struct ndk_adapter *ad,
		       const struct ndk_nvmf_host_opts *opts,
		       struct ndk_nvmf_ctrlr **out)
{
	struct ndk_adapter_info ai;
	uint32_t isize = sizeof(ai);
	struct ndk_nvmf_ctrlr *c;
	int rc;

	if (ad == NULL || opts == NULL || out == NULL)
		return -EINVAL;
	if (ndk_query_adapter_info(ad, &ai, &isize) != NDK_STATUS_SUCCESS)
		return -ENODEV;
	c = rte_zmalloc("nvmf_ctrlr", sizeof(*c), 64);
	if (c == NULL)
		return -ENOMEM;
	c->base.ad = ad;
	c->base.opts = *opts;
	c->base.frmr_pages = ai.frmr_page_count;
	c->base.max_inline = ai.max_inline_data_size;
	c->base.info = &c->info;
	rc = opts_check(&c->base.opts);
	if (rc != 0) {
		NVMF_HOST_LOG(ERR, "bad options (address, NQNs, queue sizes)");
		rte_free(c);
		return rc;
	}
	c->info.kato_ms = c->base.opts.kato_ms;
	c->discovery = strcmp(c->base.opts.subnqn, NDK_NVMF_DISCOVERY_NQN) == 0;
	c->dma = rte_zmalloc("nvmf_ctrlr_dma", NVME_IDENTIFY_SIZE,
			     NDK_PAGE_SIZE);
	if (c->dma == NULL ||
	    ndk_create_pd(ad, &c->base.pd) != NDK_STATUS_SUCCESS) {
		c->base.pd = NULL;
		ndk_nvmf_ctrlr_close(c);
		return -ENOMEM;
	}
	rc = ctrlr_bringup(c);
	if (rc != 0) {
		ndk_nvmf_ctrlr_close(c);
		return rc;
	}
	*out = c;
	return 0;
}

/* CC.SHN normal, wait CSTS.SHST complete. */
static int
ctrlr_shutdown(struct ndk_nvmf_ctrlr *c)
{
	int rc;

	if (c->admin == NULL || c->admin->failed || !(c->cc & NVME_CC_EN))
		return 0;
	c->cc = (c->cc & ~NVME_CC_SHN_MASK) | NVME_CC_SHN_NORMAL;
	rc = prop_set(c, NVME_PROP_CC, c->cc, "Property Set CC.SHN");
	if (rc == 0)
		rc = csts_wait(c, NVME_CSTS_SHST_MASK, NVME_CSTS_SHST_COMPLETE,
			       c->base.opts.timeout_ms, "shutdown");
	return rc;
}

/* Disconnect and free every queue; shut the controller down first when
 * @p shutdown and its admin queue still works. @return the first error. */
static int
ctrlr_release_queues(struct ndk_nvmf_ctrlr *c, bool shutdown)
{
	int rc = 0, r;

	c->closing = true;      /* an AER that ends is not posted again */
	for (uint16_t i = 0; i < NDK_NVMF_IO_QUEUES_MAX; i++) {
		r = nvmf_qpair_destroy(c->io[i]);
		c->io[i] = NULL;
		if (rc == 0)
			rc = r;
	}
	c->info.num_io_queues = 0;
	/* The keep-alive in flight, if any, completes during the wait. */
	r = shutdown ? ctrlr_shutdown(c) : 0;
	if (rc == 0)
		rc = r;
	r = nvmf_qpair_destroy(c->admin);
	if (rc == 0)
		rc = r;
	c->admin = NULL;
	c->aer_out = false;
	return rc;
}

int
ndk_nvmf_ctrlr_register_buffers(struct ndk_nvmf_ctrlr *c, void *addr,
				size_t len, uint32_t flags)
{
	bool remote = (flags & NDK_NVMF_BUF_REMOTE) != 0;
	uint64_t va = (uint64_t)(uintptr_t)addr;
	struct nvmf_buf_region *g;
	struct ndk_mr *mr = NULL;
	ndk_status_t st;

	if (c == NULL || addr == NULL || len == 0 || va + len < va ||
	    (flags & ~NDK_NVMF_BUF_REMOTE) != 0)
		return -EINVAL;
	for (uint32_t i = 0; i < c->base.nregions; i++) {
		g = &c->base.regions[i];
		if (va < g->va + g->len && g->va < va + len)
			return -EINVAL;
	}
	if (c->base.nregions == NDK_NVMF_BUF_REGIONS_MAX)
		return -ENOSPC;
	st = ndk_create_mr(c->base.pd, false, &mr);
	if (st == NDK_STATUS_SUCCESS)
		st = ndk_register_mr(mr, addr, len, remote ?
				     NDK_MR_FLAG_ALLOW_LOCAL_WRITE |
				     NDK_MR_FLAG_ALLOW_REMOTE_READ |
				     NDK_MR_FLAG_ALLOW_REMOTE_WRITE : 0);
	if (st != NDK_STATUS_SUCCESS) {
		NVMF_HOST_LOG(ERR, "register buffers %p+%zu: %s", addr, len,
			      ndk_status_str(st));
		if (mr != NULL)
			ndk_close_mr(mr, NULL, NULL);
		return -ENOMEM;
	}
	g = &c->base.regions[c->base.nregions];
	g->va = va;
	g->len = len;
	g->mr = mr;
	g->ltoken = ndk_mr_local_token(mr);
	g->remote = remote;
	g->rtoken = remote ? ndk_mr_remote_token(mr) : 0;
	c->base.nregions++;
	return 0;
}

int
ndk_nvmf_ctrlr_close(struct ndk_nvmf_ctrlr *c)
{
	int rc;

	if (c == NULL)
		return -EINVAL;
	rc = ctrlr_release_queues(c, true);
	for (uint32_t i = 0; i < c->base.nregions; i++)
		ndk_close_mr(c->base.regions[i].mr, NULL, NULL);
	if (c->base.pd != NULL)
		ndk_close_pd(c->base.pd, NULL, NULL);
	rte_free(c->dma);
	rte_free(c);
	return rc;
}

int
ndk_nvmf_ctrlr_reconnect(struct ndk_nvmf_ctrlr *c)
{
	const struct ndk_nvmf_host_opts *o;
	uint64_t hz = rte_get_timer_hz(), start, limit;
	uint32_t tries = 0;
	int rc;

	if (c == NULL)
		return -EINVAL;
	o = &c->base.opts;
	/* A controller that still answers is shut down properly. */
	ctrlr_release_queues(c, c->admin != NULL && !c->admin->failed &&
			     !c->ka_failed);
	c->info.reconnects++;
	start = rte_get_timer_cycles();
	limit = start + hz / 1000 * o->ctrl_loss_tmo_ms;
	for (;;) {
		tries++;
		rc = ctrlr_bringup(c);
		if (rc == 0) {
			NVMF_HOST_LOG(NOTICE, "reconnected to %s after %u "
				      "attempt(s): controller %u", o->subnqn,
				      tries, c->info.cntlid);
			return 0;
		}
		ctrlr_release_queues(c, false);
		if (rte_get_timer_cycles() + hz / 1000 *
		    o->reconnect_delay_ms > limit)
			break;
		/* Control path: sleeping between attempts is fine. */
		rte_delay_us_sleep(o->reconnect_delay_ms * 1000u);
	}
	NVMF_HOST_LOG(ERR, "%s: no controller after %u attempt(s) in %u ms "
		      "(ctrl_loss_tmo): %s", o->subnqn, tries,
		      o->ctrl_loss_tmo_ms, strerror(-rc));
	return rc;
}
