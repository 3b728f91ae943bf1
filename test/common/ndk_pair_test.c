/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The test-only helpers of the adapter pair; see ndk_pair_test.h.
 */

#include <errno.h>
#include <stdio.h>
#include <sched.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include "ndk_pair_test.h"
#include "ndk_test.h"

int
ndk_pair_inject(struct ndk_pair *pair, int side, struct rte_mbuf **m,
		unsigned int n)
{
	if (!pair->mp_rings && pair->n_pollers != 0)
		return -EBUSY;
	return (int)rte_ring_enqueue_burst(ndk_pair_rx_ring(pair, side),
					   (void **)m, n, NULL);
}

/* One call of ndk_get_cq_results_ex() or ndk_get_cq_results(). */
typedef uint32_t (*pair_get_results_fn)(struct ndk_cq *cq, void *out,
					 uint32_t n);

static uint32_t
pair_get_ex(struct ndk_cq *cq, void *out, uint32_t n)
{
	return ndk_get_cq_results_ex(cq, out, n);
}

static uint32_t
pair_get_basic(struct ndk_cq *cq, void *out, uint32_t n)
{
	return ndk_get_cq_results(cq, out, n);
}

/* Poll @p cq with @p get until @p n results of @p size bytes or timeout. */
static uint32_t
pair_wait_results(struct ndk_cq *cq, pair_get_results_fn get, void *out,
		  size_t size, uint32_t n, double timeout_s)
{
	const uint64_t hz = rte_get_timer_hz();
	const uint64_t end = rte_get_timer_cycles() +
		(uint64_t)(timeout_s * (double)hz);
	uint32_t got = 0;
	unsigned int idle = 0;

	while (got < n) {
		uint32_t k = get(cq, (char *)out + (size_t)got * size, n - got);

		if (k != 0) {
			got += k;
			idle = 0;
			continue;
		}
		if (rte_get_timer_cycles() >= end)
			break;
		if (++idle % 4096 == 0)
			sched_yield();
		else
			rte_pause();
	}
	return got;
}

uint32_t
ndk_pair_wait(struct ndk_cq *cq, struct ndk_result_ex *out, uint32_t n,
	      double timeout_s)
{
	return pair_wait_results(cq, pair_get_ex, out, sizeof(*out), n,
				 timeout_s);
}

uint32_t
ndk_pair_wait_basic(struct ndk_cq *cq, struct ndk_result *out, uint32_t n,
		    double timeout_s)
{
	return pair_wait_results(cq, pair_get_basic, out, sizeof(*out), n,
				 timeout_s);
}

struct sockaddr_in
ndk_pair_sin(uint32_t ip_be, uint16_t port)
{
	struct sockaddr_in s = { .sin_family = AF_INET };

	s.sin_addr.s_addr = ip_be;
	s.sin_port = htons(port);
	return s;
}

void
ndk_pair_sleep_ms(unsigned int ms)
{
	struct timespec ts = {
		.tv_sec = ms / 1000,
		.tv_nsec = (long)(ms % 1000) * 1000000L,
	};

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

bool
ndk_pair_poll_until_sent(struct ndk_pair *pair, int side, unsigned int n,
			 double timeout_s)
{
	struct rte_ring *r = ndk_pair_rx_ring(pair, 1 - side);
	double end = ndk_pair_now() + timeout_s;

	while (rte_ring_count(r) < n && ndk_pair_now() < end)
		ndk_adapter_poll(pair->ad[side]);
	return rte_ring_count(r) >= n;
}

int
ndk_pair_test_main(const char *prog, const char *suite,
		   const struct ndk_pair_config *pc, struct ndk_pair **pair,
		   const struct ndk_test_case *cases, unsigned int n,
		   int argc, char **argv)
{
	int rc;

	if (ndk_test_eal_init(prog, "0-1", NULL) != 0)
		return 1;
	*pair = ndk_pair_create(pc);
	if (*pair == NULL) {
		fprintf(stderr, "%s: cannot create the adapter pair\n", prog);
		rte_eal_cleanup();
		return 1;
	}
	rc = ndk_test_run(suite, cases, n, argc, argv);
	ndk_pair_destroy(*pair);
	rte_eal_cleanup();
	return rc;
}
