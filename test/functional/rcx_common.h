/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RCX_COMMON_H
#define RCX_COMMON_H

/*
 * Harness of the loss and recovery tests (test_rc_recovery.c,
 * test_rc_adaptive.c): both adapters polled from the test's thread (no
 * pollers); between polls every frame one side transmitted goes through
 * the case's filter, which lets it through, drops it or holds it back until
 * the case releases it. Phases move on counters, never on time.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "ndk.h"
#include "ndk_pair_test.h"
#include "ndk_roce.h"
#include "ndk_test.h"

#define WAIT_S 60.0
#define MTU 4096
#define RD_LEN 65536                  /* 16 response frames */
#define RD_PKTS (RD_LEN / MTU)
#define MAX_OPS 48
#define MAX_HELD 2048
#define A NDK_PAIR_A
#define B NDK_PAIR_B

/* CORRUPT: flip a payload byte, or rewrite the PSN or QPN (x->dmg). */
enum verdict { PASS, DROP, HOLD, CORRUPT };
#define DMG_QPN UINT32_MAX            /* x->dmg: a QPN that does not exist */

struct rcx;
/** Decide the fate of one RoCE frame side @p from transmitted. */
typedef enum verdict (*filter_fn)(struct rcx *x, int from,
				  const struct ndk_roce_pkt *p);

/** One case's state. */
struct rcx {
	struct ndk_pair *pair;
	struct ndk_pair_conn *c;
	filter_fn filter;
	int phase;
	uint32_t psn0;                /* A's first request PSN */
	uint32_t arg;                 /* case parameter */
	uint32_t arg2;                /* second one (0: none) */
	uint32_t hits;                /* frames the case acted on */
	uint32_t seen;                /* bit k: PSN offset k seen */
	unsigned int a_extra;         /* extra polls of A per step */
	bool chain;                   /* B's frames to A in 2 KB segments */
	uint32_t dmg;                 /* CORRUPT: PSN offset + 1, DMG_QPN, 0 */
	uint64_t *clk;                /* a simulated clock: step() moves it */
	uint64_t clk_step;            /* ... by this much a round */
	struct rte_mbuf *held[2][MAX_HELD];
	uint8_t held_q[2][MAX_HELD];  /* the queue each was taken from */
	unsigned int n_held[2];
	struct ndk_test_xstats s0[2];  /* counters when the case began */
};

extern struct ndk_pair *g_pair;
extern struct rte_mempool *g_chain_pool;  /* 2 KB segments, as memif's */
/*
 * Adaptive retransmission in the cases that follow (rcx_open): off for the
 * ones that count the QP's own timeouts (strict IB timer, as before it
 * existed), on for the adaptive ones.
 */
extern bool g_adaptive;
/* Selective repeat on both QPs in the cases that follow (rcx_open). */
extern bool g_sr;

/* Case @p fn with adaptive retransmission on. */
int with_adaptive(int (*fn)(void));

/* Offset of a PSN from A's first request PSN. */
uint32_t rel(const struct rcx *x, uint32_t psn);

/* Counter @p field of side @p s, moved since the case began. */
#define DELTA(x, s, field) XS_DIFF(ctr_now((x), (s)), &(x)->s0[s], #field)
const struct ndk_test_xstats *ctr_now(const struct rcx *x, int side);

/* MR flags of a READ destination. */
uint32_t sink_flags(void);
/* Deliver the frames held from side @p from (in order), ahead of new ones. */
void release(struct rcx *x, int from);
/* Deliver the first @p n frames held from side @p from (in order). */
void release_n(struct rcx *x, int from, unsigned int n);
void drop_held(struct rcx *x, int from);
/*
 * One round: the simulated clock (if x->clk) moves on, A polls (1 + a_extra
 * times), its frames pass the filter, then B's.
 */
void step(struct rcx *x);
/* Step until @p n completions arrive on A's initiator CQ. */
uint32_t pump(struct rcx *x, struct ndk_result_ex *r, uint32_t n, double secs,
	      void (*tick)(struct rcx *));
/* A connection with the QP @p timeout and @p retry_cnt, filter @p f. */
int rcx_open(struct rcx *x, uint8_t timeout, uint8_t retry_cnt, filter_fn f);
void rcx_close(struct rcx *x);
/* Every counter that moved, per side. */
void print_ctrs(const struct rcx *x);
/* No side failed a QP or NAKed anything fatal. */
int check_healthy(const struct rcx *x);
/*
 * @p n READs (or WRITEs) of @p len bytes each, A from B (A to B), all
 * posted at once; every completion and every byte checked.
 */
int transfer(struct rcx *x, unsigned int n, size_t len, bool write,
	     void (*tick)(struct rcx *), uint32_t seed);
/* transfer(), then the counters printed and check_healthy(). */
int transfer_checked(struct rcx *x, unsigned int n, size_t len, bool write,
		     void (*tick)(struct rcx *), uint32_t seed);
/* EAL, the adapter pair (no pollers), the cases, clean-up. */
int rcx_main(const char *prog, const char *suite,
	     const struct ndk_test_case *cases, size_t n, int argc,
	     char **argv);

#endif /* RCX_COMMON_H */
