/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_CC_H
#define NDK_CC_H

/**
 * @file
 * Congestion control modes of an adapter's QPs (ndk_adapter_config.cc,
 * doc/cc.md). Part of ndk.h: include that, not this.
 */

#ifndef NDK_H
#error "include ndk.h, not ndk_cc.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Congestion control modes (ndk_adapter_config.cc). */
enum ndk_cc_mode {
	/** None: QPs send as fast as their window allows, frames not ECT. */
	NDK_CC_NONE = 0,
	/**
	 * DCQCN: frames are sent ECT(0); a CNP from the peer cuts the QP's
	 * rate, timers and a byte counter raise it again; a QP below line
	 * rate is paced.
	 */
	NDK_CC_DCQCN = 1,
	/**
	 * Delay-based (in the manner of Swift): each QP has a congestion
	 * window in packets (cc_window_init at first, fractional below one
	 * packet, then paced) that grows by one packet a round trip while
	 * the measured round trip stays within cc_delay_us (plus a larger
	 * allowance for smaller windows) of the smallest seen on the path,
	 * and is cut in proportion to the excess, at most once a round trip,
	 * when it does not. Frames are not ECT; CNPs are ignored.
	 */
	NDK_CC_DELAY = 2,
};

/** Smallest interval between two CNPs of one QP at 40 Gbit/s, µs. */
#define NDK_CNP_INTERVAL_US 50

#ifdef __cplusplus
}
#endif

#endif /* NDK_CC_H */
