/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef SWROCE_COPY_H
#define SWROCE_COPY_H

/**
 * @file
 * swroce copies through regions (mem/swroce_copy.c): a region's bytes to
 * and from buffers and received frames (through windows and FRMR page
 * lists, optionally with the CRC-32 of the bytes in the same pass), and
 * the SGE-list copies of the engines, which look each SGE's region up
 * again with the access they need.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "ndk_provider.h"
#include "ndk_roce.h"

struct swr_mr;
struct swr_qp;

/* swroce_copy.c: regions */

/**
 * Reach [va, va + len) of a region found by swr_mr_lookup(): copy to it
 * (@p to_region) or from it, through windows and page lists.
 */
void swr_mr_copy(const struct swr_mr *mr, uint64_t va, void *buf,
		 uint32_t len, bool to_region);

/**
 * Copy [va, va + len) of a region out to @p buf and update the CRC-32
 * register @p crc with the bytes, in one pass (ndk_roce_crc32_copy()).
 * @return the updated register.
 */
uint32_t swr_mr_copy_out_crc(const struct swr_mr *mr, uint64_t va, void *buf,
			     uint32_t len, uint32_t crc);

/**
 * Copy @p len bytes at packet offset @p off of @p m into the region; if
 * @p crc is not NULL, update that CRC-32 register with them in the same
 * pass (ndk_roce_crc32_copy_mbuf()).
 */
void swr_mr_copy_from_mbuf(const struct swr_mr *mr, uint64_t va,
			   const struct rte_mbuf *m, uint32_t off,
			   uint32_t len, uint32_t *crc);

/* swroce_copy.c: SGE lists */

/**
 * Copy between an SGE list and a flat buffer at message offset @p off.
 * Each SGE's region is looked up again (with @p access) so a region
 * deregistered meanwhile is never touched.
 * @return 0, or -EACCES if a region is no longer valid.
 */
int swr_sge_copy_out(struct swr_qp *qp, const struct ndk_sge *sge,
		     uint32_t nsge, uint32_t off, void *dst, uint32_t len);
/** swr_sge_copy_out() that also runs the CRC-32 register @p *crc on. */
int swr_sge_copy_out_crc(struct swr_qp *qp, const struct ndk_sge *sge,
			 uint32_t nsge, uint32_t off, void *dst, uint32_t len,
			 uint32_t *crc);
int swr_sge_copy_in(struct swr_qp *qp, const struct ndk_sge *sge,
		    uint32_t nsge, uint32_t off, const void *src,
		    uint32_t len);

/**
 * Same, copying straight from a received packet's payload; a @p crc not
 * NULL is updated with the payload as it is copied (a READ response's
 * ICRC checked in the copy's pass, see swroce_comp.c).
 */
int swr_sge_copy_from_pkt(struct swr_qp *qp, const struct ndk_sge *sge,
			  uint32_t nsge, uint32_t off,
			  const struct ndk_roce_pkt *p, uint32_t *crc);

#endif /* SWROCE_COPY_H */
