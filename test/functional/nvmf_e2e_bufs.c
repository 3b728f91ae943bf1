/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The nvmf_e2e cases of data buffers the host registered
 * (ndk_nvmf_ctrlr_register_buffers()), on test_nvmf_e2e.c's fixture
 * (nvmf_e2e.h): icd_direct, icd_lost, icd_loss and region_key, as its
 * header describes them.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ndk_netem.h"
#include "ndk_nvmf_host.h"
#include "nvmf_e2e.h"
#include "nvmf_io_common.h"
#include "rc_common.h"

/* In-capsule and keyed counts of @p qp since @p s0: @return 0 if they
 * moved by @p icd, @p direct and @p keyed. */
static int
icd_moved(struct ndk_nvmf_qpair *qp, struct ndk_nvmf_qpair_stats *s0,
	  uint64_t icd, uint64_t direct, uint64_t keyed, const char *what)
{
	struct ndk_nvmf_qpair_stats s1;

	ndk_nvmf_qpair_get_stats(qp, &s1);
	TEST_ASSERT(s1.in_capsule - s0->in_capsule == icd &&
		    s1.in_capsule_direct - s0->in_capsule_direct == direct &&
		    s1.keyed - s0->keyed == keyed,
		    "%s: in capsule %" PRIu64 " (not copied %" PRIu64
		    "), keyed %" PRIu64, what, s1.in_capsule - s0->in_capsule,
		    s1.in_capsule_direct - s0->in_capsule_direct,
		    s1.keyed - s0->keyed);
	*s0 = s1;
	return 0;
}

static int
icd_direct_body(struct ndk_nvmf_ctrlr *c, uint8_t *reg, uint8_t *plain)
{
	struct ndk_nvmf_qpair *qp = ndk_nvmf_ctrlr_get_qpair(c, 0);
	struct ndk_nvmf_qpair_stats s;

	TEST_ASSERT(ndk_nvmf_ctrlr_get_info(c)->in_capsule_max >= T_BS,
		    "4 KiB of in-capsule data");
	TEST_ASSERT_EQ(ndk_nvmf_ctrlr_register_buffers(c, reg, 64 * 1024, 0),
		       0,
		       "register 64 KiB");
	TEST_ASSERT_EQ(ndk_nvmf_ctrlr_register_buffers(c, reg + 60 * 1024,
						       8192, 0), -EINVAL,
		       "an overlapping region");
	TEST_ASSERT_EQ(ndk_nvmf_ctrlr_register_buffers(c, NULL, 4096, 0),
		       -EINVAL,
		       "no address");
	TEST_ASSERT_EQ(ndk_nvmf_ctrlr_register_buffers(c, plain, 0, 0), -EINVAL,
		       "no length");
	ndk_nvmf_qpair_get_stats(qp, &s);
	/* Each h_rw() is a write, then a keyed read. */
	TEST_ASSERT(h_rw(c, qp, reg + 60 * 1024, 16, 1, 21) == 0,
		    "4 KiB from the region's last page");
	TEST_ASSERT(icd_moved(qp, &s, 1, 1, 1, "from the region") == 0, "");
	TEST_ASSERT(h_rw(c, qp, reg + 62 * 1024, 17, 1, 22) == 0,
		    "4 KiB across the region's end");
	TEST_ASSERT(icd_moved(qp, &s, 1, 0, 1, "across its end") == 0, "");
	TEST_ASSERT(h_rw(c, qp, plain, 18, 1, 23) == 0, "4 KiB from outside");
	TEST_ASSERT(icd_moved(qp, &s, 1, 0, 1, "from outside") == 0, "");
	TEST_ASSERT(h_rw(c, qp, reg, 20, 4, 24) == 0, "16 KiB from the region");
	TEST_ASSERT(icd_moved(qp, &s, 0, 0, 2, "16 KiB") == 0, "");
	/* Three more regions, then none. */
	for (uint32_t i = 0; i < 3; i++)
		TEST_ASSERT_EQ(ndk_nvmf_ctrlr_register_buffers(c,
				plain + i * 8192, 4096, 0), 0, "region %u",
			       i + 2);
	TEST_ASSERT_EQ(ndk_nvmf_ctrlr_register_buffers(c, plain + 32768, 4096,
						       0), -ENOSPC,
		       "a fifth region");
	TEST_ASSERT(h_rw(c, qp, plain + 8192, 24, 1, 25) == 0,
		    "4 KiB from the third region");
	TEST_ASSERT(icd_moved(qp, &s, 1, 1, 1, "third region") == 0, "");
	return 0;
}

/* A region with its own remote token: keyed I/O from it needs no fast
 * register and no invalidation; elsewhere the usual keyed path. */
static int
region_key_body(struct ndk_nvmf_ctrlr *c, uint8_t *reg, uint8_t *plain)
{
	struct ndk_nvmf_qpair *qp = ndk_nvmf_ctrlr_get_qpair(c, 1);
	struct ndk_nvmf_qpair_stats s0, s1;

	TEST_ASSERT_EQ(ndk_nvmf_ctrlr_register_buffers(c, reg, 64 * 1024, 2),
		       -EINVAL, "an unknown flag");
	TEST_ASSERT_EQ(ndk_nvmf_ctrlr_register_buffers(c, reg, 64 * 1024,
						       NDK_NVMF_BUF_REMOTE), 0,
		       "register with a remote token");
	ndk_nvmf_qpair_get_stats(qp, &s0);
	TEST_ASSERT(h_rw(c, qp, reg + 4096, 30, 4, 31) == 0,
		    "16 KiB from the region");
	TEST_ASSERT(h_rw(c, qp, reg + 8192, 40, 1, 32) == 0,
		    "4 KiB from the region");
	TEST_ASSERT(h_rw(c, qp, plain, 50, 4, 33) == 0, "16 KiB from outside");
	ndk_nvmf_qpair_get_stats(qp, &s1);
	/* Region: 16 KiB write and read, the 4 KiB read; outside: 2. */
	TEST_ASSERT_EQ(s1.keyed - s0.keyed, 5, "keyed commands");
	TEST_ASSERT_EQ(s1.keyed_region - s0.keyed_region, 3,
		       "with the region's token");
	TEST_ASSERT_EQ(s1.in_capsule_direct - s0.in_capsule_direct, 1,
		       "the 4 KiB write, not copied");
	TEST_ASSERT_EQ(s1.remote_invalidations - s0.remote_invalidations +
		       s1.local_invalidations - s0.local_invalidations, 2,
		       "only the fast-registered ones invalidated");
	return 0;
}

/*
 * The target destroyed, then in-capsule writes from a registered region
 * sent to it: no response ever comes. The queue fails (the disconnect,
 * or the transport giving up) and every write completes with a path
 * status; those whose SEND went silent only after the drain posted
 * behind the flush: with a drain that never came back they would wait
 * for the close.
 */
static int
icd_lost_body(struct ndk_nvmf_ctrlr *c, uint8_t *reg)
{
	struct ndk_nvmf_qpair *qp = ndk_nvmf_ctrlr_get_qpair(c, 0);
	struct ndk_nvmf_qpair_stats s0, s1;
	struct io io[12];
	uint32_t n = 0;
	double end;

	memset(io, 0, sizeof(io));
	TEST_ASSERT_EQ(ndk_nvmf_ctrlr_register_buffers(c, reg, 64 * 1024, 0),
		       0, "register 64 KiB");
	TEST_ASSERT(h_rw(c, qp, reg, 0, 1, 31) == 0, "data first");
	ndk_nvmf_qpair_get_stats(qp, &s0);
	TEST_ASSERT_EQ(e2e_target_destroy(), 0, "target destroyed");
	for (uint32_t i = 0; i < RTE_DIM(io); i++) {
		ndk_pair_fill(reg + i * T_BS, T_BS, 40 + i);
		if (ndk_nvmf_write(qp, 1, reg + i * T_BS, i, 1, io_done,
				   &io[i]) == 0)
			n++;
		else
			io[i].done = -1;        /* refused: not submitted */
	}
	ndk_nvmf_qpair_get_stats(qp, &s1);
	TEST_ASSERT(n > 0 && s1.in_capsule_direct - s0.in_capsule_direct == n,
		    "%u writes submitted, in the capsule from the region", n);
	end = ndk_pair_now() + WAIT_S;
	while (ndk_nvmf_qpair_outstanding(qp) > 0 && ndk_pair_now() < end)
		ndk_nvmf_qpair_poll(qp, 0);
	TEST_ASSERT_EQ(ndk_nvmf_qpair_outstanding(qp), 0,
		       "every write completed before the close");
	for (uint32_t i = 0; i < RTE_DIM(io); i++)
		TEST_ASSERT(io[i].done == -1 ||
			    (io[i].done == 1 &&
			     ndk_nvmf_status_sct(io[i].cpl.status) == 3),
			    "write %u: path status, not %#x", i,
			    io[i].cpl.status);
	return 0;
}

int
test_icd_lost(void)
{
	return run_losing_target(icd_lost_body);
}

#define LOSS_LBAS 64u         /* blocks written, in turn */
#define LOSS_WRITES 1000u     /* writes in all */
#define LOSS_BUFS 14u         /* buffers of the region, writes in flight */

/* One in-capsule write of icd_loss_body(). */
struct loss_write {
	struct io io;
	uint32_t lba;
	uint32_t seed;
	bool busy;
};

/* Submit the next write from each free buffer; @return -1 on an error. */
static int
loss_submit(struct ndk_nvmf_qpair *qp, uint8_t *reg, struct loss_write *w,
	    uint32_t *sent)
{
	for (uint32_t b = 0; b < LOSS_BUFS && *sent < LOSS_WRITES; b++) {
		uint8_t *buf = reg + b * T_BS;
		int rc;

		if (w[b].busy)
			continue;
		/* The same block again only 64 writes later: its last write
		 * has completed (at most 14 in flight). */
		w[b].lba = *sent % LOSS_LBAS;
		w[b].seed = 5000 + *sent;
		memset(&w[b].io, 0, sizeof(w[b].io));
		ndk_pair_fill(buf, T_BS, w[b].seed);
		rc = ndk_nvmf_write(qp, 1, buf, w[b].lba, 1, io_done, &w[b].io);
		if (rc == -EAGAIN)
			break;
		TEST_ASSERT_EQ(rc, 0, "write %u", *sent);
		w[b].busy = true;
		(*sent)++;
	}
	return 0;
}

/* Reap the completed writes: each buffer is overwritten at once. */
static int
loss_reap(uint8_t *reg, struct loss_write *w, uint32_t *last, uint32_t *done)
{
	for (uint32_t b = 0; b < LOSS_BUFS; b++) {
		if (!w[b].busy || !__atomic_load_n(&w[b].io.done,
						   __ATOMIC_ACQUIRE))
			continue;
		TEST_ASSERT_EQ(w[b].io.cpl.status, 0, "write to block %u",
			       w[b].lba);
		last[w[b].lba] = w[b].seed;
		memset(reg + b * T_BS, 0xEE, T_BS);
		w[b].busy = false;
		(*done)++;
	}
	return 0;
}

static int
icd_loss_body(struct ndk_nvmf_ctrlr *c, uint8_t *reg, uint8_t *rbuf)
{
	struct ndk_netem_config nc = { .drop_ppm = 10000, .reorder_ppm = 5000,
				       .seed = 16 };
	struct ndk_nvmf_qpair *qp = ndk_nvmf_ctrlr_get_qpair(c, 0);
	struct ndk_netem *ne[2] = { NULL, NULL };
	struct ndk_netem_stats ns[2] = { { 0 }, { 0 } };
	struct loss_write w[LOSS_BUFS];
	uint32_t last[LOSS_LBAS], sent = 0, done = 0;
	struct ndk_nvmf_qpair_stats s0, s1;
	int rc = 0;
	double end;

	memset(w, 0, sizeof(w));
	TEST_ASSERT_EQ(ndk_nvmf_ctrlr_register_buffers(c, reg, 64 * 1024, 0),
		       0, "register 64 KiB");
	ndk_nvmf_qpair_get_stats(qp, &s0);
	for (int p = 0; p < 2; p++) {
		ne[p] = ndk_netem_attach(g_p->port[p], 0, &nc);
		TEST_ASSERT(ne[p] != NULL, "netem on port %u", g_p->port[p]);
	}
	end = ndk_pair_now() + WAIT_S;
	while (rc == 0 && done < LOSS_WRITES && ndk_pair_now() < end) {
		rc = loss_submit(qp, reg, w, &sent);
		ndk_nvmf_qpair_poll(qp, 0);
		if (rc == 0)
			rc = loss_reap(reg, w, last, &done);
	}
	for (int p = 0; p < 2; p++) {
		ndk_netem_get_stats(ne[p], &ns[p]);
		ndk_netem_detach(ne[p]);
	}
	printf("  netem, both ways: %lu frames dropped, %lu reordered\n",
	       (unsigned long)(ns[0].dropped + ns[1].dropped),
	       (unsigned long)(ns[0].reordered + ns[1].reordered));
	TEST_ASSERT_EQ(rc, 0, "");
	TEST_ASSERT_EQ(done, LOSS_WRITES, "every write completed");
	TEST_ASSERT(ns[0].dropped + ns[1].dropped > 0, "nothing was lost");
	ndk_nvmf_qpair_get_stats(qp, &s1);
	TEST_ASSERT_EQ(s1.in_capsule_direct - s0.in_capsule_direct,
		       (uint64_t)LOSS_WRITES, "in the capsule, from the region");
	for (uint32_t lba = 0; lba < LOSS_LBAS; lba++) {
		struct io io = { 0 };

		memset(rbuf, 0, T_BS);
		TEST_ASSERT_EQ(ndk_nvmf_read(qp, 1, rbuf, lba, 1, io_done, &io),
			       0, "read %u", lba);
		TEST_ASSERT(io_wait(c, qp, &io) == 0 && io.cpl.status == 0,
			    "read %u completes: status %#x", lba,
			    io.cpl.status);
		TEST_ASSERT_EQ(ndk_pair_check(rbuf, T_BS, last[lba]), -1,
			       "block %u as last written (seed %u)", lba,
			       last[lba]);
	}
	return 0;
}

int
test_icd_loss(void)
{
	return run_with_bufs(icd_loss_body);
}

int
test_region_key(void)
{
	return run_with_bufs(region_key_body);
}

int
test_icd_direct(void)
{
	return run_with_bufs(icd_direct_body);
}
