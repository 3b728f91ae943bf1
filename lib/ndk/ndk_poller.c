/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Pollers: a worker lcore that runs ndk_adapter_poll() (or
 * ndk_adapter_poll_queue() for one queue) over a set of adapters until told
 * to stop. The loop has no syscalls, allocations or locks; the stop flag is
 * the only shared state.
 */

#include <errno.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_pause.h>

#include "ndk_provider.h"

#define NDK_POLLER_MAX_ADAPTERS 16

struct ndk_poller {
	unsigned int lcore_id;
	unsigned int n;
	volatile bool stop;
	struct ndk_adapter *adapters[NDK_POLLER_MAX_ADAPTERS];
	uint16_t queues[NDK_POLLER_MAX_ADAPTERS];
};

static int
poller_main(void *arg)
{
	struct ndk_poller *p = arg;
	const unsigned int n = p->n;

	while (!__atomic_load_n(&p->stop, __ATOMIC_RELAXED)) {
		unsigned int work = 0;

		for (unsigned int i = 0; i < n; i++) {
			if (p->queues[i] == NDK_POLL_ALL_QUEUES)
				work += ndk_adapter_poll(p->adapters[i]);
			else
				work += ndk_adapter_poll_queue(p->adapters[i],
							       p->queues[i]);
		}
		if (work == 0)
			rte_pause();
	}
	for (unsigned int i = 0; i < n; i++)
		ndk_adapter_release(p->adapters[i]);
	return 0;
}

int
ndk_poller_start_queues(unsigned int lcore_id,
			struct ndk_adapter *const *adapters,
			const uint16_t *queues, unsigned int n,
			struct ndk_poller **poller)
{
	struct ndk_poller *p;
	int rc;

	if (n == 0 || n > NDK_POLLER_MAX_ADAPTERS || adapters == NULL ||
	    poller == NULL || lcore_id == rte_get_main_lcore() ||
	    !rte_lcore_is_enabled(lcore_id)) {
		NDK_LOG(ERR, "poller: bad arguments (lcore %u, %u adapters)",
			lcore_id, n);
		return -EINVAL;
	}
	p = rte_zmalloc("ndk_poller", sizeof(*p), RTE_CACHE_LINE_SIZE);
	if (p == NULL)
		return -ENOMEM;
	p->lcore_id = lcore_id;
	p->n = n;
	memcpy(p->adapters, adapters, n * sizeof(adapters[0]));
	for (unsigned int i = 0; i < n; i++)
		p->queues[i] = queues != NULL ? queues[i] : NDK_POLL_ALL_QUEUES;
	rc = rte_eal_remote_launch(poller_main, p, lcore_id);
	if (rc != 0) {
		NDK_LOG(ERR, "poller: lcore %u is busy", lcore_id);
		rte_free(p);
		return -EBUSY;
	}
	*poller = p;
	return 0;
}

int
ndk_poller_start(unsigned int lcore_id, struct ndk_adapter *const *adapters,
		 unsigned int n, struct ndk_poller **poller)
{
	return ndk_poller_start_queues(lcore_id, adapters, NULL, n, poller);
}

void
ndk_poller_stop(struct ndk_poller *poller)
{
	if (poller == NULL)
		return;
	__atomic_store_n(&poller->stop, true, __ATOMIC_RELAXED);
	rte_eal_wait_lcore(poller->lcore_id);
	rte_free(poller);
}
