/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef SWROCE_ATTACH_H
#define SWROCE_ATTACH_H

/**
 * @file
 * Attach protocol: how an application running as a DPDK secondary process
 * (the "attach" provider, swroce_attach.c) asks the daemon owning the
 * adapters (ndk-roced, app/ndk-roced/roced_attach.c) to create, change and
 * close objects. Requests and replies are rte_mp messages named
 * NDK_ATTACH_MP_NAME, synchronous, at most RTE_MP_MAX_PARAM_LEN bytes.
 *
 * Objects are named by handles the daemon hands out and checks on every
 * request (index, generation, type and owning application); a reply also
 * carries the object's address in the shared hugepage memory, which the
 * application uses for posting and polling only (see doc/attach.md).
 */

#include <inttypes.h>
#include <stdint.h>

#include "ndk.h"

/** rte_mp action name of the daemon's attach server. */
#define NDK_ATTACH_MP_NAME "ndk_attach"

/** Longest an attach request may take (a CM connect: 8 REQs 1 s apart). */
#define NDK_ATTACH_TIMEOUT_S 40

/** Protocol version (HELLO refuses another). */
#define NDK_ATTACH_VERSION 1

/** Request codes. */
enum ndk_attach_op {
	NDK_ATT_HELLO = 1,        /**< name: adapter's ethdev; -> app id */
	NDK_ATT_BYE,              /**< close everything of the application */
	NDK_ATT_CREATE_PD,
	NDK_ATT_CREATE_CQ,        /**< u[0] depth */
	NDK_ATT_CREATE_QP,        /**< h pd, rcq, icq; ctx; u[0..4] */
	NDK_ATT_CREATE_MR,        /**< h[0] pd; u[0] fast_register */
	NDK_ATT_REGISTER_MR,      /**< h[0] mr; va, len; u[0] flags */
	NDK_ATT_DEREGISTER_MR,    /**< h[0] mr */
	NDK_ATT_CLOSE,            /**< h[0] any object */
	NDK_ATT_QP_MODIFY,        /**< h[0] qp; attr; u[0] mask */
	NDK_ATT_QP_QUERY,         /**< h[0] qp; -> attr */
	NDK_ATT_CREATE_CONNECTOR,
	NDK_ATT_CONNECT,          /**< h conn, qp; addr; u ird, ord (waits) */
	NDK_ATT_COMPLETE_CONNECT, /**< h[0] conn (waits) */
	NDK_ATT_DISCONNECT,       /**< h[0] conn (waits) */
	NDK_ATT_ALLOC,            /**< len, u[0] align -> obj: a buffer */
	NDK_ATT_FREE,             /**< va: a buffer of NDK_ATT_ALLOC */
};

/** Private data an attached Connect may carry (fits one message). */
#define NDK_ATTACH_PDATA_MAX 56

/** A request (application -> daemon). */
struct ndk_attach_req {
	uint32_t op;              /**< enum ndk_attach_op */
	uint32_t version;         /**< NDK_ATTACH_VERSION */
	int32_t pid;              /**< the application's process id */
	uint32_t pad_;
	uint64_t app;             /**< application id (0 in HELLO) */
	uint64_t h[3];            /**< object handles */
	uint64_t va;
	uint64_t len;
	uint64_t ctx;             /**< QP context (opaque to the daemon) */
	uint32_t u[6];
	union {
		struct ndk_qp_attr attr;
		char name[64];        /**< HELLO: the adapter's ethdev name */
		struct {
			uint32_t src_ip, dst_ip;  /**< network order */
			uint16_t src_port, dst_port; /**< network order */
			uint32_t pdata_len;
			uint8_t pdata[NDK_ATTACH_PDATA_MAX];
		} addr;
	};
};

/** A reply (daemon -> application). */
struct ndk_attach_rep {
	ndk_status_t status;
	uint32_t u[3];            /**< MR tokens; QPN */
	uint64_t handle;          /**< new object's handle; HELLO: app id */
	uint64_t obj;             /**< its address in shared memory */
	struct ndk_qp_attr attr;  /**< QP_QUERY */
};

/** Memzone of the daemon's struct ndk_attach_shm. */
#define NDK_ATTACH_SHM_NAME "ndk_attach_shm"

/** The daemon's state, as an application sees it. */
enum ndk_attach_state {
	NDK_ATTACH_UP = 1,        /**< serving */
	NDK_ATTACH_STOPPING,      /**< closing applications' objects */
	NDK_ATTACH_GONE,          /**< stopped: applications must exit */
};

/**
 * The daemon's liveness in shared memory (memzone NDK_ATTACH_SHM_NAME),
 * read by the attach provider in ndk_adapter_poll() and before control
 * calls and posts: a state word the daemon sets when it stops, and a
 * heartbeat it renews while it runs (a SIGKILLed daemon sets nothing).
 */
struct ndk_attach_shm {
	uint32_t state;           /**< enum ndk_attach_state (atomic) */
	uint32_t heartbeat_ms;    /**< renewal period of @p heartbeat */
	uint64_t heartbeat;       /**< daemon's TSC at its last renewal */
};

/** An application deems the daemon dead after this without a heartbeat. */
#define NDK_ATTACH_DEAD_MS 5000

#endif /* SWROCE_ATTACH_H */
