/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * ndk-demo --raw-baseline: a one-way burst between the pair's two ports
 * (see demo_raw.h). The receiver runs on lcore 1 until it has every frame
 * the sender says it sent, or nothing came for RAW_QUIET_MS after that.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "demo_raw.h"

#define RAW_RX_LCORE 1
#define RAW_QUIET_MS 200
#define RAW_FLUSH_S 1

struct raw_rx {
	struct ndk_rawlink rl;
	uint64_t total;         /**< frames sent; UINT64_MAX while sending */
	uint64_t first;         /**< TSC of the first frame */
	uint64_t last;          /**< of the last one */
};

static int
raw_rx_main(void *arg)
{
	struct raw_rx *x = arg;
	const uint64_t quiet = rte_get_tsc_hz() * RAW_QUIET_MS / 1000;
	uint64_t done_at = 0;

	for (;;) {
		uint16_t n = ndk_rawlink_rx(&x->rl);
		uint64_t now = rte_rdtsc();
		uint64_t total = __atomic_load_n(&x->total, __ATOMIC_ACQUIRE);

		if (n != 0) {
			if (x->first == 0)
				x->first = now;
			x->last = now;
		}
		if (total == UINT64_MAX)
			continue;
		if (x->rl.st.rx_frames >= total)
			break;
		if (done_at == 0)
			done_at = now;
		if (now - RTE_MAX(x->last, done_at) > quiet)
			break;
	}
	return 0;
}

int
demo_raw_run(struct ndk_pair *pair, struct rte_mempool *pool,
	     enum ndk_rawlink_kind kind, size_t size, uint32_t mtu,
	     double seconds, bool verify, struct demo_raw_result *res)
{
	static const struct rte_ether_addr mac[2] = {
		{ NDK_PAIR_MAC(0) }, { NDK_PAIR_MAC(1) },
	};
	const int tx_side = kind == NDK_RAWLINK_READ_RESP ? NDK_PAIR_B :
		NDK_PAIR_A;
	const int rx_side = 1 - tx_side;
	const uint64_t hz = rte_get_tsc_hz();
	struct ndk_rawlink_shape shape;
	struct ndk_rawlink tx;
	struct raw_rx *rx;
	uint64_t end;
	int rc;

	memset(res, 0, sizeof(*res));
	rc = ndk_rawlink_shape_roce(&shape, kind, size, mtu);
	if (rc != 0) {
		fprintf(stderr, "raw: no frames for %zu B at MTU %u\n", size,
			mtu);
		return rc;
	}
	/* Hugepage memory: the receiving lcore writes it. */
	rx = rte_zmalloc("demo_raw_rx", sizeof(*rx), RTE_CACHE_LINE_SIZE);
	if (rx == NULL)
		return -ENOMEM;
	ndk_rawlink_init(&tx, pair->port[tx_side], 0, pool, &mac[tx_side],
			 &mac[rx_side], verify);
	ndk_rawlink_init(&rx->rl, pair->port[rx_side], 0, pool,
			 &mac[rx_side], &mac[tx_side], verify);
	rc = ndk_rawlink_set_shapes(&tx, &shape, NULL);
	if (rc == 0)
		rc = ndk_rawlink_set_shapes(&rx->rl, NULL, &shape);
	if (rc != 0) {
		fprintf(stderr, "raw: frames of %u B do not fit the mbufs\n",
			ndk_rawlink_shape_max(&shape));
		rte_free(rx);
		return rc;
	}
	rx->total = UINT64_MAX;

	/* The link is ours: nobody polls the adapters meanwhile. */
	ndk_pair_stop(pair);
	rc = rte_eal_remote_launch(raw_rx_main, rx, RAW_RX_LCORE);
	if (rc != 0) {
		fprintf(stderr, "raw: lcore %d is busy\n", RAW_RX_LCORE);
		goto out;
	}
	end = rte_rdtsc() + (uint64_t)(seconds * (double)hz);
	while (rte_rdtsc() < end)
		ndk_rawlink_tx(&tx, UINT64_MAX);
	end = rte_rdtsc() + RAW_FLUSH_S * hz;
	while (ndk_rawlink_tx_held(&tx) != 0 && rte_rdtsc() < end)
		ndk_rawlink_tx(&tx, 0);
	ndk_rawlink_release(&tx);
	__atomic_store_n(&rx->total, tx.st.tx_frames, __ATOMIC_RELEASE);
	rte_eal_wait_lcore(RAW_RX_LCORE);

	res->frames = rx->rl.st.rx_frames;
	res->bytes = rx->rl.st.rx_bytes;
	res->secs = (double)(rx->last - rx->first) / (double)hz;
	res->msgs = (double)res->frames / shape.frames;
	res->lost = tx.st.tx_frames - RTE_MIN(tx.st.tx_frames, res->frames);
	res->bad = rx->rl.st.rx_bad_len + rx->rl.st.rx_seq_errors +
		rx->rl.st.rx_corrupt;
out:
	rte_free(rx);
	if (ndk_pair_start(pair) != 0 && rc == 0)
		rc = -EIO;
	return rc;
}
