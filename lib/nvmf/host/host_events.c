/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The host's asynchronous events (one Asynchronous Event Request kept
 * outstanding, its completions handed to the application), Get Log Page,
 * and the discovery client (the discovery log page read consistently).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>

#include "host_priv.h"

/* Notices the host enables when the controller supports them. */
#define EV_NOTICES (NVME_CTRL_OAES_NS_ATTR | NVME_CTRL_OAES_FW_ACT | \
		    NVME_CTRL_OAES_ANA | NVME_CTRL_OAES_DISC)
/* Reads of the discovery log before the generation counter holds still. */
#define DISC_TRIES 8

/* ------------------------------------------------------------------ */
/* Asynchronous events (data path)                                     */
/* ------------------------------------------------------------------ */

static void aer_done(void *arg, const struct ndk_nvmf_cpl *cpl);

static int
aer_post(struct ndk_nvmf_ctrlr *c)
{
	struct nvme_cmd cmd;
	int rc;

	nvmf_build_aer(&cmd);
	rc = nvmf_qpair_submit_untimed(c->admin, &cmd, aer_done, c);
	c->aer_out = rc == 0;
	return rc;
}

static void
ev_deliver(struct ndk_nvmf_ctrlr *c, const struct ndk_nvmf_async_event *ev)
{
	if (c->ev_cb != NULL) {
		c->ev_cb(c->ev_arg, ev);
		return;
	}
	if (c->ev_tail - c->ev_head == NDK_NVMF_EVENTS_MAX) {
		c->ev_dropped++;
		return;
	}
	c->ev[c->ev_tail++ % NDK_NVMF_EVENTS_MAX] = *ev;
}

static void
aer_done(void *arg, const struct ndk_nvmf_cpl *cpl)
{
	struct ndk_nvmf_ctrlr *c = arg;
	struct ndk_nvmf_async_event ev;
	char sbuf[96];

	c->aer_out = false;
	if (cpl->status != 0) {
		/* Aborted at reset or teardown, the queue failed, or the
		 * controller refuses AERs: none is posted again. */
		if (!c->closing)
			NVMF_HOST_LOG(NOTICE, "Asynchronous Event Request "
				      "ended: %s",
				      nvmf_status_str(cpl->status, sbuf,
						      sizeof(sbuf)));
		return;
	}
	ev.cdw0 = cpl->cdw0;
	ev.type = (uint8_t)(cpl->cdw0 & 0x7);
	ev.info = (uint8_t)(cpl->cdw0 >> 8);
	ev.log_page = (uint8_t)(cpl->cdw0 >> 16);
	/* The next request first: the callback may take its time. */
	if (!c->closing && aer_post(c) != 0)
		NVMF_HOST_LOG(WARNING, "cannot post the next Asynchronous "
			      "Event Request");
	ev_deliver(c, &ev);
}

int
nvmf_events_start(struct ndk_nvmf_ctrlr *c)
{
	uint32_t aec = c->oaes & EV_NOTICES;
	struct nvme_cmd cmd;
	int rc;

	if (aec != 0) {
		nvmf_build_set_features(&cmd, NVME_FEAT_ASYNC_EVENT, aec);
		rc = nvmf_host_admin_exec(c, &cmd, NULL, 0, NVMF_XFER_NONE,
					  NULL, "Set Features Asynchronous "
					  "Event Configuration");
		if (rc != 0 && rc != -EIO)
			return rc;      /* the queue itself failed */
	}
	/* Error and health events need no configuration. */
	rc = aer_post(c);
	if (rc != 0)
		NVMF_HOST_LOG(ERR, "cannot post an Asynchronous Event "
			      "Request: %s", strerror(-rc));
	return rc;
}

void
ndk_nvmf_ctrlr_set_event_cb(struct ndk_nvmf_ctrlr *c, ndk_nvmf_event_cb cb,
			    void *arg)
{
	struct ndk_nvmf_async_event ev;

	if (c == NULL)
		return;
	c->ev_cb = cb;
	c->ev_arg = arg;
	/* What was kept goes to the new callback at once. */
	while (cb != NULL && ndk_nvmf_ctrlr_get_event(c, &ev) == 0)
		cb(arg, &ev);
}

int
ndk_nvmf_ctrlr_get_event(struct ndk_nvmf_ctrlr *c,
			 struct ndk_nvmf_async_event *ev)
{
	if (c == NULL || ev == NULL)
		return -EINVAL;
	if (c->ev_head == c->ev_tail)
		return -EAGAIN;
	*ev = c->ev[c->ev_head++ % NDK_NVMF_EVENTS_MAX];
	return 0;
}

uint64_t
ndk_nvmf_ctrlr_events_dropped(const struct ndk_nvmf_ctrlr *c)
{
	return c != NULL ? c->ev_dropped : 0;
}

/* ------------------------------------------------------------------ */
/* Get Log Page                                                        */
/* ------------------------------------------------------------------ */

static bool
log_args_ok(const struct ndk_nvmf_ctrlr *c, const void *buf, uint32_t len,
	    uint64_t offset)
{
	return buf != NULL && len >= 4 && len % 4 == 0 && offset % 4 == 0 &&
		len <= c->info.max_io_size;
}

int
ndk_nvmf_ctrlr_get_log_page(struct ndk_nvmf_ctrlr *c, uint8_t lid,
			    uint32_t nsid, void *buf, uint32_t len,
			    uint64_t offset, bool rae, ndk_nvmf_cb cb,
			    void *arg)
{
	struct nvme_cmd cmd;

	if (c == NULL || cb == NULL || !log_args_ok(c, buf, len, offset))
		return -EINVAL;
	if (c->admin == NULL)
		return -ENOTCONN;
	nvmf_build_get_log_page(&cmd, lid, nsid, len, offset, rae);
	return nvmf_qpair_submit(c->admin, &cmd, buf, len,
				 NVMF_XFER_FROM_CTRLR, cb, arg);
}

/* ------------------------------------------------------------------ */
/* Discovery (control path)                                            */
/* ------------------------------------------------------------------ */

static int
disc_log_read(struct ndk_nvmf_ctrlr *c, void *buf, uint32_t len,
	      uint64_t offset)
{
	struct nvme_cmd cmd;

	nvmf_build_get_log_page(&cmd, NVME_LOG_DISCOVERY, 0, len, offset,
				false);
	return nvmf_host_admin_exec(c, &cmd, buf, len, NVMF_XFER_FROM_CTRLR,
				    NULL, "Get Log Page discovery");
}

/* One consistent read: header, entries, header again with the same
 * generation counter. @return 0, 1 (the counter moved), -errno. */
static int
disc_read_once(struct ndk_nvmf_ctrlr *c, uint8_t *buf, uint32_t chunk,
	       struct ndk_nvmf_disc_entry *entries, uint32_t max,
	       uint32_t *num, uint64_t *genctr)
{
	const struct nvmf_disc_log_hdr *h = (const void *)buf;
	const uint32_t esz = sizeof(struct nvmf_disc_entry);
	uint64_t gen, numrec;
	uint32_t want, done = 0;
	int rc;

	rc = disc_log_read(c, buf, sizeof(*h), 0);
	if (rc != 0)
		return rc;
	if (h->recfmt != 0) {
		NVMF_HOST_LOG(ERR, "discovery log record format %u", h->recfmt);
		return -EPROTO;
	}
	gen = h->genctr;
	numrec = h->numrec;
	want = (uint32_t)RTE_MIN(numrec, (uint64_t)max);
	while (done < want) {
		uint32_t n = RTE_MIN(want - done, chunk / esz);

		rc = disc_log_read(c, buf, n * esz,
				   sizeof(*h) + (uint64_t)done * esz);
		if (rc != 0)
			return rc;
		for (uint32_t i = 0; i < n; i++)
			nvmf_disc_entry_decode((const void *)(buf + i * esz),
					       &entries[done + i]);
		done += n;
	}
	rc = disc_log_read(c, buf, sizeof(*h), 0);
	if (rc != 0)
		return rc;
	if (h->genctr != gen)
		return 1;
	*num = numrec > UINT32_MAX ? UINT32_MAX : (uint32_t)numrec;
	*genctr = gen;
	return 0;
}

int
ndk_nvmf_discover(struct ndk_adapter *ad,
		  const struct ndk_nvmf_host_opts *opts,
		  struct ndk_nvmf_disc_entry *entries, uint32_t max,
		  uint32_t *num, uint64_t *genctr)
{
	struct ndk_nvmf_host_opts o;
	struct ndk_nvmf_ctrlr *c;
	uint64_t gen = 0;
	uint32_t chunk;
	uint8_t *buf;
	int rc, r;

	if (ad == NULL || opts == NULL || num == NULL ||
	    (entries == NULL && max != 0))
		return -EINVAL;
	o = *opts;
	snprintf(o.subnqn, sizeof(o.subnqn), "%s", NDK_NVMF_DISCOVERY_NQN);
	rc = ndk_nvmf_ctrlr_connect(ad, &o, &c);
	if (rc != 0)
		return rc;
	/* Whole entries per read, within the largest transfer. */
	chunk = RTE_MAX(c->info.max_io_size, (uint32_t)NDK_PAGE_SIZE);
	chunk = RTE_MIN(chunk, 64u * 1024);
	chunk -= chunk % sizeof(struct nvmf_disc_entry);
	buf = rte_zmalloc("nvmf_disc", chunk, NDK_PAGE_SIZE);
	rc = buf == NULL ? -ENOMEM : 1;
	for (int i = 0; i < DISC_TRIES && rc == 1; i++)
		rc = disc_read_once(c, buf, chunk, entries, max, num, &gen);
	if (rc == 1) {
		NVMF_HOST_LOG(ERR, "discovery log generation counter moved "
			      "%u times", DISC_TRIES);
		rc = -EAGAIN;
	}
	if (rc == 0 && genctr != NULL)
		*genctr = gen;
	rte_free(buf);
	r = ndk_nvmf_ctrlr_close(c);
	return rc != 0 ? rc : r;
}
