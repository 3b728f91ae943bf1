/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_EXT_H
#define NDK_EXT_H

/**
 * @file
 * NDKPI entries beside the core calls: NdkQueryExtension (every dispatch
 * table's), NdkResizeCq and NdkControlCqInterruptModeration (a provider
 * announces the last two with NDK_ADAPTER_FLAG_CQ_RESIZE_SUPPORTED and
 * NDK_ADAPTER_FLAG_CQ_INTERRUPT_MODERATION_SUPPORTED, else they answer
 * STATUS_NOT_SUPPORTED). Part of ndk.h: include that, not this.
 */

#ifndef NDK_H
#error "include ndk.h, not ndk_ext.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** A GUID naming an NDK extension interface (GUID). */
struct ndk_guid {
	uint32_t data1;
	uint16_t data2;
	uint16_t data3;
	uint8_t data4[8];
};

/**
 * NdkQueryExtension, the entry every NDK dispatch table (adapter, CQ, PD,
 * MR, MW, SRQ, QP, connector, listener, shared endpoint) begins with after
 * its close. NDKPI defines no extension interfaces, and neither does
 * ndk-roce: for any object of any provider (embedded or attached) the
 * answer is STATUS_NOT_SUPPORTED and @p iface is left untouched.
 *
 * @param object the object's header (the first member of every handle).
 * @param extension the interface asked for.
 * @param version the interface version asked for.
 * @param iface where the interface would be written.
 * @return STATUS_NOT_SUPPORTED; STATUS_INVALID_PARAMETER if @p object is
 *   NULL or not an NDK object (type outside 1..NDK_OBJECT_TYPE_MAX-1),
 *   or @p extension or @p iface is NULL.
 */
ndk_status_t ndk_query_extension(const struct ndk_object_header *object,
				 const struct ndk_guid *extension,
				 struct ndk_version version, void *iface);

/**
 * NdkResizeCq: change the CQ's depth, keeping every completion it holds.
 * Completes inline (never STATUS_PENDING). Not concurrently with other
 * calls on the same CQ (NDK serializes them); QPs keep using the CQ, and
 * an armed notification stays armed.
 * @param depth new depth, 1..max_cq_depth.
 * @return STATUS_SUCCESS; STATUS_INVALID_PARAMETER (0 or above
 *   max_cq_depth); STATUS_BUFFER_OVERFLOW (fewer than the completions it
 *   holds now: nothing lost, the depth unchanged);
 *   STATUS_INSUFFICIENT_RESOURCES; STATUS_INVALID_DEVICE_STATE (the CQ
 *   overran and is dead); STATUS_INVALID_HANDLE; STATUS_NOT_SUPPORTED
 *   when the adapter lacks NDK_ADAPTER_FLAG_CQ_RESIZE_SUPPORTED (an
 *   attached application: doc/attach.md).
 */
ndk_status_t ndk_resize_cq(struct ndk_cq *cq, uint32_t depth);

/**
 * NdkControlCqInterruptModeration: hold an armed CQ's notification back
 * until @p count completions arrived since the last notification or
 * @p interval_us passed since the first one held, whichever comes first.
 * Error completions and overruns are never held. Default: none. Latest
 * settings win; one held under the old settings is delivered at once.
 * Never pends. With a count alone (interval UINT32_MAX), fewer than
 * @p count completions are never notified: the consumer's choice.
 * @param interval_us 0: moderation off; UINT32_MAX: the count alone.
 * @param count UINT32_MAX or above the CQ's depth: the interval alone;
 *   0 or 1: every completion notifies (off).
 * @return STATUS_SUCCESS; STATUS_INVALID_PARAMETER_MIX (both UINT32_MAX
 *   or the like); STATUS_INVALID_HANDLE; STATUS_NOT_SUPPORTED when the
 *   adapter lacks NDK_ADAPTER_FLAG_CQ_INTERRUPT_MODERATION_SUPPORTED (an
 *   attached application: doc/attach.md).
 */
ndk_status_t ndk_control_cq_interrupt_moderation(struct ndk_cq *cq,
						 uint32_t interval_us,
						 uint32_t count);

#ifdef __cplusplus
}
#endif

#endif /* NDK_EXT_H */
