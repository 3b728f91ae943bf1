/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * ndk-nvmf-perf's asynchronous events: each one printed; a namespace
 * attribute notice makes it read the changed namespace list (which
 * re-arms the notice at the controller) and print the NSIDs.
 */

#include <inttypes.h>
#include <string.h>

#include <rte_malloc.h>

#include "nperf.h"

#define EV_LOG_BYTES 4096       /* the changed namespace list: 1024 NSIDs */

static struct {
	struct ndk_nvmf_ctrlr *c;
	uint32_t *log;
	bool log_busy;
} ev;

static void
changed_done(void *arg, const struct ndk_nvmf_cpl *cpl)
{
	RTE_SET_USED(arg);
	ev.log_busy = false;
	if (cpl->status != 0) {
		printf("event: Get Log Page changed namespaces: status %#x\n",
		       cpl->status);
		return;
	}
	printf("event: changed namespaces:");
	for (uint32_t i = 0; i < EV_LOG_BYTES / 4 && ev.log[i] != 0; i++)
		printf(" %" PRIu32, ev.log[i]);
	printf("\n");
	fflush(stdout);
}

static void
on_event(void *arg, const struct ndk_nvmf_async_event *e)
{
	int rc;

	RTE_SET_USED(arg);
	printf("event: type %u info %#x log page %#x\n", e->type, e->info,
	       e->log_page);
	fflush(stdout);
	if (e->log_page != NDK_NVMF_LOG_CHANGED_NS || ev.log_busy)
		return;
	rc = ndk_nvmf_ctrlr_get_log_page(ev.c, NDK_NVMF_LOG_CHANGED_NS,
					 0xFFFFFFFF, ev.log, EV_LOG_BYTES, 0,
					 false, changed_done, NULL);
	if (rc == 0)
		ev.log_busy = true;
	else
		printf("event: cannot read the changed namespace list: %d\n",
		       rc);
}

int
np_events_start(struct ndk_nvmf_ctrlr *c)
{
	ev.c = c;
	ev.log = rte_zmalloc("np_events", EV_LOG_BYTES, 4096);
	if (ev.log == NULL)
		return -1;
	ndk_nvmf_ctrlr_set_event_cb(c, on_event, NULL);
	return 0;
}

void
np_events_stop(void)
{
	/* After the close: no Get Log Page may still write into it. */
	ev.c = NULL;
	rte_free(ev.log);
	ev.log = NULL;
}
