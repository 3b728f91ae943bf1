/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_PAIR_TEST_H
#define NDK_PAIR_TEST_H

/**
 * @file
 * The functional tests' fixture: the adapter pair of app/common/ndk_pair.h
 * (two adapters on a crossed net_ring link, connections, buffers) and the
 * helpers only tests need on top of it: frames injected into the link,
 * waits for a number of completions with a timeout, sleeps.
 */

#include <stdbool.h>
#include <stdint.h>

#include <netinet/in.h>

#include <rte_mbuf.h>

#include "ndk.h"
#include "ndk_pair.h"
#include "ndk_xstats.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Put frames into the receive ring of adapter @p side as if its peer had
 * sent them; the ring takes ownership of those enqueued.
 * @return frames enqueued, or -EBUSY if the rings are single-producer and
 *   the pollers run (the peer's transmissions would race with ours).
 */
int ndk_pair_inject(struct ndk_pair *pair, int side, struct rte_mbuf **m,
		    unsigned int n);

/**
 * Poll @p cq with ndk_get_cq_results_ex() until @p n completions have been
 * stored in @p out or @p timeout_s seconds passed.
 * @return completions stored (< n on timeout).
 */
uint32_t ndk_pair_wait(struct ndk_cq *cq, struct ndk_result_ex *out,
		       uint32_t n, double timeout_s);

/** Same with the non-ex ndk_get_cq_results(). */
uint32_t ndk_pair_wait_basic(struct ndk_cq *cq, struct ndk_result *out,
			     uint32_t n, double timeout_s);

/** IPv4 socket address @p ip_be (network order) : @p port (host order). */
struct sockaddr_in ndk_pair_sin(uint32_t ip_be, uint16_t port);

/** Sleep (yielding the CPU) for @p ms milliseconds. */
void ndk_pair_sleep_ms(unsigned int ms);

/**
 * Poll adapter @p side (a pair without pollers) until the ring it
 * transmits into (the other side's receive ring) holds @p n frames or
 * @p timeout_s seconds passed.
 * @return true if it holds @p n.
 */
bool ndk_pair_poll_until_sent(struct ndk_pair *pair, int side, unsigned int n,
			      double timeout_s);

struct ndk_test_case;

/**
 * A functional test program's main() on one pair: the EAL (lcores 0-1,
 * @p prog), the pair of @p pc in @p *pair, @p cases run as @p suite, then
 * everything torn down.
 * @return the program's exit status.
 */
int ndk_pair_test_main(const char *prog, const char *suite,
		       const struct ndk_pair_config *pc, struct ndk_pair **pair,
		       const struct ndk_test_case *cases, unsigned int n,
		       int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif /* NDK_PAIR_TEST_H */
