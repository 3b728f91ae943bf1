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

struct rte_ring;

/** rte_mp action name of the daemon's attach server. */
#define NDK_ATTACH_MP_NAME "ndk_attach"

/** Longest an attach request may take (none waits for the network). */
#define NDK_ATTACH_TIMEOUT_S 40

/** Protocol version (HELLO refuses another). */
#define NDK_ATTACH_VERSION 2

/** Request codes. */
enum ndk_attach_op {
	NDK_ATT_HELLO = 1,        /**< name: adapter's ethdev; u[0] event
				   *  slots (0: NDK_ATTACH_EV_SLOTS); -> app
				   *  id, adapter, event queue (obj2) */
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
	NDK_ATT_CONNECT,          /**< h conn, qp; addr; u ird, ord; cb */
	NDK_ATT_COMPLETE_CONNECT, /**< h[0] conn; cb; u[0] disc. event */
	NDK_ATT_DISCONNECT,       /**< h[0] conn; cb */
	/* Version 2 (swroce_attach_conn.c, swroce_attach_mem.c; served by
	 * app/ndk-roced/roced_attach_ops.c). CM steps no longer wait: they
	 * answer STATUS_PENDING and the completion comes as an event. */
	NDK_ATT_CREATE_LISTENER,  /**< cb, cb_ctx: connect event */
	NDK_ATT_LISTEN,           /**< h[0] listener; addr */
	NDK_ATT_LISTENER_ADDR,    /**< h[0] listener; -> addr */
	NDK_ATT_LISTENER_PAUSE,   /**< h[0] listener; u[0] pause */
	NDK_ATT_ACCEPT,           /**< h conn, qp; u ird, ord; data; cb */
	NDK_ATT_REJECT,           /**< h[0] conn; data */
	NDK_ATT_CONN_DATA,        /**< h[0] conn; -> u ird, ord; data */
	NDK_ATT_CONN_ADDR,        /**< h[0] conn; -> addr (local, peer) */
	NDK_ATT_CQ_ARM,           /**< h[0] cq; u[0] type */
	NDK_ATT_INIT_FR,          /**< h[0] mr; u[0] pages, u[1] remote */
	NDK_ATT_CREATE_MW,        /**< h[0] pd */
	NDK_ATT_QP_LIST,          /**< u[0] skip; -> u[0] total, u[1] n */
	NDK_ATT_QP_INFO,          /**< u[0] qpn; -> info */
	/* The application's heap (app/ndk-roced/roced_attach_app.c). */
	NDK_ATT_ALLOC,            /**< len, u[0] align -> obj: a buffer */
	NDK_ATT_FREE,             /**< va: a buffer of NDK_ATT_ALLOC */
};

/**
 * Events the daemon queues for an application (request completions,
 * connect requests, disconnect events, CQ notifications) in the
 * application's event ring, drained by its ndk_adapter_poll().
 */
enum ndk_attach_ev_kind {
	NDK_ATT_EV_DONE = 1,      /**< fn(ctx, status): request completion */
	NDK_ATT_EV_CONNECT,       /**< fn(ctx, connector of handle) */
	NDK_ATT_EV_DISCONNECT,    /**< fn(ctx, reason) */
	NDK_ATT_EV_CQ,            /**< fn(ctx, status): CQ notification */
};

/** One event (an element of the event ring). */
struct ndk_attach_ev {
	uint32_t kind;            /**< enum ndk_attach_ev_kind */
	int32_t status;           /**< status, or disconnect reason */
	uint64_t fn;              /**< the application's callback */
	uint64_t ctx;             /**< its context */
	uint64_t handle;          /**< EV_CONNECT: the new connector */
};

/**
 * An application's event queue, in shared memory, made by the daemon at
 * HELLO. @p used counts events in the ring plus events the daemon has
 * promised (reserved) and not queued yet; the daemon never promises more
 * than @p cap, so an enqueue never fails and no event is lost: a request
 * that would need a slot beyond @p cap fails inline, a connection request
 * arriving then is refused (doc/attach.md). The application subtracts what
 * it dequeues.
 */
struct ndk_attach_evq {
	struct rte_ring *ring;    /**< struct ndk_attach_ev elements */
	uint32_t cap;             /**< slots */
	uint32_t used;            /**< atomic */
};

/** Events an application may have queued or promised at once. */
#define NDK_ATTACH_EV_SLOTS 4096
/** Fewest slots a HELLO may ask for (tests ask for few, to fill them). */
#define NDK_ATTACH_EV_SLOTS_MIN 8

/** Private data an attached Accept or Reject may carry. */
#define NDK_ATTACH_DATA_MAX 128

/** QP numbers in one QP_LIST reply. */
#define NDK_ATTACH_QPN_MAX 48

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
	uint64_t cb;              /**< callback of an async request */
	uint64_t cb_ctx;          /**< its context */
	union {
		struct ndk_qp_attr attr;
		struct {
			uint32_t len;
			uint8_t bytes[NDK_ATTACH_DATA_MAX];
		} data;               /**< Accept, Reject private data */
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
	union {
		struct ndk_qp_attr attr;  /**< QP_QUERY */
		struct ndk_qp_info info;  /**< QP_INFO */
		uint32_t qpns[NDK_ATTACH_QPN_MAX]; /**< QP_LIST */
		struct {
			uint32_t local_ip, peer_ip;     /**< network order */
			uint16_t local_port, peer_port; /**< network order */
		} addr;                   /**< LISTENER_ADDR, CONN_ADDR */
		struct {
			uint32_t len;     /**< the field's size (NDK) */
			uint8_t bytes[196];
		} data;                   /**< CONN_DATA (callee data max) */
	};
	uint64_t obj2;            /**< HELLO: struct ndk_attach_evq */
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
