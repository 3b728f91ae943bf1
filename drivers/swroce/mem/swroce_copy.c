/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * swroce copies through regions, with their access checks: a region's
 * bytes to and from flat buffers and received frames, through windows
 * (their MR's translation) and FRMR page lists, optionally running the
 * CRC-32 of the bytes in the same pass (a frame's ICRC); and the SGE-list
 * copies the engines make, which look each SGE's region up again with the
 * access they need, so a region deregistered since the post is never
 * touched. Polling thread (and application threads for inline data).
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "swroce_adapter.h"
#include "swroce_copy.h"
#include "swroce_mr.h"
#include "swroce_qp.h"

#define PAGE_SHIFT 12
#define PAGE_MASK (NDK_PAGE_SIZE - 1)

_Static_assert((1u << PAGE_SHIFT) == NDK_PAGE_SIZE, "page size");

/* ------------------------------------------------------------------ */
/* Translation (fast path)                                             */
/* ------------------------------------------------------------------ */

void
swr_mr_copy(const struct swr_mr *mr, uint64_t va, void *buf, uint32_t len,
	    bool to_region)
{
	uint8_t *b = buf;
	uint64_t off;

	if (unlikely(mr->kind == SWR_MR_MW))
		mr = mr->parent;
	if (likely(mr->kind == SWR_MR_PLAIN)) {
		void *p = (void *)(uintptr_t)va;

		if (to_region)
			memcpy(p, b, len);
		else
			memcpy(b, p, len);
		return;
	}
	off = va - mr->va + mr->fbo;
	while (len != 0) {
		uint32_t in = off & PAGE_MASK;
		uint32_t n = RTE_MIN(len, NDK_PAGE_SIZE - in);
		uint8_t *p = (uint8_t *)(uintptr_t)mr->pages[off >> PAGE_SHIFT]
			+ in;

		if (to_region)
			memcpy(p, b, n);
		else
			memcpy(b, p, n);
		b += n;
		off += n;
		len -= n;
	}
}

uint32_t
swr_mr_copy_out_crc(const struct swr_mr *mr, uint64_t va, void *buf,
		    uint32_t len, uint32_t crc)
{
	uint8_t *b = buf;
	uint64_t off;

	if (unlikely(mr->kind == SWR_MR_MW))
		mr = mr->parent;
	if (likely(mr->kind == SWR_MR_PLAIN))
		return ndk_roce_crc32_copy(crc, b, (const void *)(uintptr_t)va,
					   len);
	/* A page list: one page (or less) at a time. */
	off = va - mr->va + mr->fbo;
	while (len != 0) {
		uint32_t in = off & PAGE_MASK;
		uint32_t n = RTE_MIN(len, NDK_PAGE_SIZE - in);

		crc = ndk_roce_crc32_copy(crc, b, (const uint8_t *)(uintptr_t)
					  mr->pages[off >> PAGE_SHIFT] + in, n);
		b += n;
		off += n;
		len -= n;
	}
	return crc;
}

static inline void
swr_copy_from_mbuf(void *dst, const struct rte_mbuf *m, uint32_t moff,
		   uint32_t len, uint32_t *crc)
{
	if (crc != NULL)
		*crc = ndk_roce_crc32_copy_mbuf(*crc, dst, m, moff, len);
	else if (likely(moff <= m->data_len && len <= m->data_len - moff))
		/* A payload in the first segment: no segment walk. */
		memcpy(dst, rte_pktmbuf_mtod_offset(m, const uint8_t *, moff),
		       len);
	else
		ndk_roce_mbuf_copy_out(m, moff, dst, len);
}

void
swr_mr_copy_from_mbuf(const struct swr_mr *mr, uint64_t va,
		      const struct rte_mbuf *m, uint32_t moff, uint32_t len,
		      uint32_t *crc)
{
	uint64_t off;

	if (unlikely(mr->kind == SWR_MR_MW))
		mr = mr->parent;
	if (likely(mr->kind == SWR_MR_PLAIN)) {
		swr_copy_from_mbuf((void *)(uintptr_t)va, m, moff, len, crc);
		return;
	}
	off = va - mr->va + mr->fbo;
	while (len != 0) {
		uint32_t in = off & PAGE_MASK;
		uint32_t n = RTE_MIN(len, NDK_PAGE_SIZE - in);

		swr_copy_from_mbuf((uint8_t *)(uintptr_t)
				   mr->pages[off >> PAGE_SHIFT] + in, m, moff,
				   n, crc);
		moff += n;
		off += n;
		len -= n;
	}
}

/* ------------------------------------------------------------------ */
/* SGE copies (polling thread)                                         */
/* ------------------------------------------------------------------ */

/*
 * Walk the SGE list from message offset @off for @len bytes; for each
 * contiguous chunk, look its region up again with @access (it may be gone
 * since the post) and run CHUNK with mr_, va_, done_ and n_.
 */
#define SWR_SGE_WALK(qp, sge, nsge, off, len, access, CHUNK) do { \
	uint32_t left_ = (len), off_ = (off), done_ = 0; \
	for (uint32_t i_ = 0; i_ < (nsge) && left_ != 0; i_++) { \
		const struct ndk_sge *s_ = &(sge)[i_]; \
		const struct swr_mr *mr_; \
		uint64_t va_; \
		uint32_t n_; \
		if (off_ >= s_->length) { \
			off_ -= s_->length; \
			continue; \
		} \
		n_ = RTE_MIN(s_->length - off_, left_); \
		va_ = (uintptr_t)s_->va + off_; \
		mr_ = swr_mr_lookup((qp)->ad, (qp)->pd, s_->token, va_, n_, \
				    (access)); \
		if (unlikely(mr_ == NULL)) \
			return -EACCES; \
		CHUNK; \
		done_ += n_; \
		left_ -= n_; \
		off_ = 0; \
	} \
	return left_ == 0 ? 0 : -EACCES; \
} while (0)

int
swr_sge_copy_out(struct swr_qp *qp, const struct ndk_sge *sge, uint32_t nsge,
		 uint32_t off, void *dst, uint32_t len)
{
	SWR_SGE_WALK(qp, sge, nsge, off, len, 0,
		     swr_mr_copy(mr_, va_, (uint8_t *)dst + done_, n_, false));
}

int
swr_sge_copy_out_crc(struct swr_qp *qp, const struct ndk_sge *sge,
		     uint32_t nsge, uint32_t off, void *dst, uint32_t len,
		     uint32_t *crc)
{
	SWR_SGE_WALK(qp, sge, nsge, off, len, 0,
		     *crc = swr_mr_copy_out_crc(mr_, va_,
						(uint8_t *)dst + done_, n_,
						*crc));
}

int
swr_sge_copy_in(struct swr_qp *qp, const struct ndk_sge *sge, uint32_t nsge,
		uint32_t off, const void *src, uint32_t len)
{
	SWR_SGE_WALK(qp, sge, nsge, off, len, SWR_ACC_LOCAL_WRITE,
		     swr_mr_copy(mr_, va_, (uint8_t *)(uintptr_t)src + done_,
				 n_, true));
}

int
swr_sge_copy_from_pkt(struct swr_qp *qp, const struct ndk_sge *sge,
		      uint32_t nsge, uint32_t off, const struct ndk_roce_pkt *p,
		      uint32_t *crc)
{
	SWR_SGE_WALK(qp, sge, nsge, off, p->payload_len, SWR_ACC_LOCAL_WRITE,
		     swr_mr_copy_from_mbuf(mr_, va_, p->m,
					   p->payload_off + done_, n_, crc));
}
