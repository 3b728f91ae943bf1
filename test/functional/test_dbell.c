/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Functional: doorbell rings beside the adapter's (swroce_dbell.c, one per
 * attached application in ndk-roced) on the net_ring pair with the pollers
 * running. QPs pointed at extra rings move data (the polling lcore drains
 * them); a ring whose producer "died" inside rte_ring_mp_enqueue() (a slot
 * reserved, never published) stalls no other ring's QPs; unhooking runs on
 * the polling lcore and empties the list. As dbell_2q, with two queues
 * per adapter: the extra rings are drained by queue 0's poller, which
 * hands QPs of queue 1 on to that queue's own ring.
 */

#include <stdio.h>

#include <rte_common.h>
#include <rte_ring.h>

#include "rc_common.h"
#include "swroce_attach_srv.h"
#include "swroce_hooks.h"

/* Extra rings hooked to @p a (swroce's attach server export). */
static uint32_t
hooked(struct ndk_adapter *a)
{
	return swr_attach_db_hooked(a);
}

/* The queue that serves @p qp: QPN & (nb_queues - 1), as ndk.h says. */
static uint32_t
qp_queue(struct ndk_adapter *a, struct ndk_qp *qp)
{
	struct ndk_adapter_info info;
	uint32_t size = sizeof(info);

	if (ndk_query_adapter_info(a, &info, &size) != NDK_STATUS_SUCCESS ||
	    info.nb_queues == 0)
		return 0;
	return ndk_qp_num(qp) & (info.nb_queues - 1u);
}

static int
t_extra_rings(void)
{
	struct ndk_pair *p = pair_get(0);
	struct ndk_pair_conn *c[3] = { NULL };
	struct rte_ring *r[2];

	TEST_ASSERT(p != NULL, "pair");
	TEST_ASSERT_EQ(hooked(p->ad[0]), 0, "no extra ring at first");
	r[0] = swr_attach_db_create(p->ad[0], 0x101);
	r[1] = swr_attach_db_create(p->ad[0], 0x202);
	TEST_ASSERT(r[0] != NULL && r[1] != NULL, "two rings");
	TEST_ASSERT_EQ(hooked(p->ad[0]), 2, "both hooked");
	for (int i = 0; i < 3; i++) {
		c[i] = conn_new(p, NULL);
		TEST_ASSERT(c[i] != NULL, "connection %d", i);
	}
	/* c[0] and c[1] ring the extra rings, c[2] its queue's. */
	swr_attach_qp_use_db(c[0]->qp[0], r[0]);
	swr_attach_qp_use_db(c[1]->qp[0], r[1]);
	/*
	 * With several queues, queue 0 drains the extra rings and hands QPs
	 * of other queues on: consecutive QPNs, so c[0] and c[1] are on
	 * different queues and both ways are taken.
	 */
	if (p->nb_queues > 1)
		TEST_ASSERT(qp_queue(p->ad[0], c[0]->qp[0]) !=
			    qp_queue(p->ad[0], c[1]->qp[0]),
			    "ring users on two queues");
	for (int i = 0; i < 3; i++)
		for (uint32_t k = 0; k < 20; k++)
			if (xfer(p, c[i], k % 2 ? XOP_WRITE : XOP_SEND,
				 1 + k * 313, k) != 0)
				return -1;
	/*
	 * r[0]'s producer dies inside rte_ring_mp_enqueue(): its slot is
	 * reserved (head moved), never published (tail stays). Any later
	 * producer of r[0] would wait for it forever; nobody else must.
	 */
	r[0]->prod.head++;
	for (uint32_t k = 0; k < 20; k++)
		if (xfer(p, c[1], XOP_SEND, 4096, k) != 0 ||
		    xfer(p, c[2], XOP_READ, 4096, k) != 0)
			return -1;
	/* Close the QPs first (their rings are drained), then unhook. */
	for (int i = 0; i < 3; i++)
		ndk_pair_conn_destroy(c[i]);
	swr_attach_db_destroy(p->ad[0], r[0]);
	TEST_ASSERT_EQ(hooked(p->ad[0]), 1, "one unhooked");
	swr_attach_db_destroy(p->ad[0], r[1]);
	TEST_ASSERT_EQ(hooked(p->ad[0]), 0, "both unhooked");
	/* The adapter's own ring still serves new QPs. */
	c[0] = conn_new(p, NULL);
	TEST_ASSERT(c[0] != NULL, "connection after");
	if (xfer(p, c[0], XOP_SEND, 100, 7) != 0)
		return -1;
	ndk_pair_conn_destroy(c[0]);
	return 0;
}

/* Nanoseconds per poll of idle adapter @p a (its queue 0 poller's epoch). */
static double
poll_ns(struct ndk_adapter *a)
{
	uint64_t t0 = rte_get_timer_cycles();
	uint64_t e0 = swr_hook_polls(a, 0);
	uint64_t e1;

	rte_delay_us_sleep(300 * 1000);
	e1 = swr_hook_polls(a, 0);
	return (double)(rte_get_timer_cycles() - t0) * 1e9 /
		(double)rte_get_timer_hz() / (double)RTE_MAX(e1 - e0, 1u);
}

static int
t_limit(void)
{
	struct ndk_pair *p = pair_get(0);
	struct rte_ring *r[SWR_ATTACH_DB_RINGS_MAX + 1];
	double ns0, ns_max;
	uint32_t n = 0;

	TEST_ASSERT(p != NULL, "pair");
	ns0 = poll_ns(p->ad[1]);
	for (; n < RTE_DIM(r); n++) {
		r[n] = swr_attach_db_create(p->ad[1], 0x1000 + n);
		if (r[n] == NULL)
			break;
	}
	TEST_ASSERT_EQ(n, SWR_ATTACH_DB_RINGS_MAX, "rings hooked before refusal");
	TEST_ASSERT_EQ(hooked(p->ad[1]), SWR_ATTACH_DB_RINGS_MAX, "hooked");
	/* Information only (a loaded machine makes it noisy): what the
	 * empty rings cost a poll of the idle adapter. */
	ns_max = poll_ns(p->ad[1]);
	printf("  idle poll of adapter B (both adapters on one poller): "
	       "%.0f ns with no extra doorbell ring, %.0f ns with %u\n",
	       ns0, ns_max, SWR_ATTACH_DB_RINGS_MAX);
	while (n-- > 0)
		swr_attach_db_destroy(p->ad[1], r[n]);
	TEST_ASSERT_EQ(hooked(p->ad[1]), 0, "all unhooked");
	return 0;
}

static const struct ndk_test_case cases[] = {
	{ "extra_rings", t_extra_rings },
	{ "limit", t_limit },
};

int
main(int argc, char **argv)
{
	return rc_main("test_func_dbell", "dbell", cases, RTE_DIM(cases),
		       argc, argv);
}
