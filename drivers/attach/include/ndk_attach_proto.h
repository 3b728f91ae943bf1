/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_ATTACH_PROTO_H
#define NDK_ATTACH_PROTO_H

/**
 * @file
 * Attach protocol: how an application running as a DPDK secondary process
 * (the attach provider, drivers/attach) asks the daemon owning the
 * adapters (ndk-roced, app/ndk-roced/roced_attach*.c) to create, change
 * and close objects, and the events the daemon queues for it. The one
 * header both ends include.
 *
 * Requests and replies are rte_mp messages named NDK_ATTACH_MP_NAME,
 * synchronous, one each way: a header (struct ndk_attach_req_hdr,
 * struct ndk_attach_rep_hdr) with the request code, the protocol version
 * and the message's length, then the body of that code: one packed struct
 * per request and per reply, members of the unions of struct
 * ndk_attach_req and struct ndk_attach_rep. A message is exactly its
 * header and its body (ndk_attach_req_len(), ndk_attach_rep_len()); the
 * daemon refuses another length (STATUS_INVALID_BUFFER_SIZE) and another
 * version (STATUS_BAD_VERSION, logged at both ends).
 *
 * Objects are named by handles the daemon hands out and checks on every
 * request (index, generation, type and owning application); a reply also
 * carries the object's address in the shared hugepage memory, which the
 * application uses for posting and polling only (doc/attach.md).
 *
 * Adding a request: its code in enum ndk_attach_op, its request (and
 * reply) struct in the unions, its lengths in ndk_attach_req_len() /
 * ndk_attach_rep_len(); the call site in drivers/attach; the handler
 * in the daemon's table (app/ndk-roced/roced_attach_ops.c).
 */

#include <assert.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_eal.h>

#include "ndk.h"

struct rte_ring;

/** rte_mp action name of the daemon's attach server. */
#define NDK_ATTACH_MP_NAME "ndk_attach"

/** Longest an attach request may take (none waits for the network). */
#define NDK_ATTACH_TIMEOUT_S 40

/** Protocol version (the daemon refuses another; checked at HELLO). */
#define NDK_ATTACH_VERSION 7

/** Request codes. */
enum ndk_attach_op {
	NDK_ATT_HELLO = 1,        /**< attach to an adapter */
	NDK_ATT_BYE,              /**< close everything of the application */
	NDK_ATT_CREATE_PD,
	NDK_ATT_CREATE_CQ,
	NDK_ATT_CREATE_QP,
	NDK_ATT_CREATE_MR,
	NDK_ATT_REGISTER_MR,
	NDK_ATT_DEREGISTER_MR,
	NDK_ATT_CLOSE,            /**< any object */
	NDK_ATT_QP_MODIFY,
	NDK_ATT_QP_QUERY,
	NDK_ATT_CREATE_CONNECTOR,
	NDK_ATT_CONNECT,          /**< STATUS_PENDING, then an event */
	NDK_ATT_COMPLETE_CONNECT, /**< STATUS_PENDING, then an event */
	NDK_ATT_DISCONNECT,       /**< STATUS_PENDING, then an event */
	NDK_ATT_CREATE_LISTENER,
	NDK_ATT_LISTEN,
	NDK_ATT_LISTENER_ADDR,
	NDK_ATT_LISTENER_PAUSE,
	NDK_ATT_ACCEPT,           /**< STATUS_PENDING, then an event */
	NDK_ATT_REJECT,
	NDK_ATT_CONN_DATA,
	NDK_ATT_CONN_ADDR,
	NDK_ATT_CQ_ARM,
	NDK_ATT_INIT_FR,
	NDK_ATT_CREATE_MW,
	NDK_ATT_QP_LIST,
	NDK_ATT_QP_INFO,
	NDK_ATT_ALLOC,            /**< a buffer of the application's heap */
	NDK_ATT_FREE,
	NDK_ATT_CREATE_SRQ,       /**< a shared receive queue */
	NDK_ATT_SRQ_MODIFY,
	NDK_ATT_CQ_RESIZE,
	NDK_ATT_CQ_MODERATE,      /**< CQ interrupt moderation */
	NDK_ATT_CREATE_SEP,       /**< a shared endpoint */
	NDK_ATT_SEP_ADDR,         /**< a shared endpoint's local address */
	NDK_ATT_OP_MAX            /**< not a request: one past the last */
};

/** Private data an attached Accept or Reject may carry. */
#define NDK_ATTACH_DATA_MAX 128

/** Private data an attached Connect may carry (as RoCE's REQ). */
#define NDK_ATTACH_PDATA_MAX 56

/** Private data GetConnectionData returns at most (callee data max). */
#define NDK_ATTACH_CONN_DATA_MAX 196

/** QP numbers in one QP_LIST reply. */
#define NDK_ATTACH_QPN_MAX 48

/** Longest ethdev name in HELLO. */
#define NDK_ATTACH_NAME_MAX 64

/* ------------------------------------------------------------------ */
/* Headers                                                             */
/* ------------------------------------------------------------------ */

/** Every request starts with this. */
struct ndk_attach_req_hdr {
	uint16_t op;              /**< enum ndk_attach_op */
	uint16_t version;         /**< NDK_ATTACH_VERSION */
	uint32_t len;             /**< bytes: header and body */
	int32_t pid;              /**< the application's process id */
	uint32_t reserved;        /**< 0 */
	uint64_t app;             /**< application id (0 in HELLO) */
} __rte_packed;

/** Every reply starts with this. */
struct ndk_attach_rep_hdr {
	uint16_t op;              /**< the request's code */
	uint16_t version;         /**< the daemon's NDK_ATTACH_VERSION */
	uint32_t len;             /**< bytes: header and body */
	ndk_status_t status;      /**< the request's outcome */
	uint32_t reserved;        /**< 0 */
} __rte_packed;

/* ------------------------------------------------------------------ */
/* Request bodies (no body: BYE, CREATE_PD, CREATE_CONNECTOR)          */
/* ------------------------------------------------------------------ */

/** HELLO: attach to the adapter of an ethdev. */
struct ndk_attach_hello {
	char name[NDK_ATTACH_NAME_MAX]; /**< the adapter's ethdev name */
	uint32_t ev_slots;        /**< event ring size (0: the default) */
} __rte_packed;

/** CREATE_PD. */
struct ndk_attach_create_pd {
	uint64_t proxy;           /**< the application's PD (EV_CLOSED) */
} __rte_packed;

/** CREATE_CQ. */
struct ndk_attach_create_cq {
	uint64_t proxy;           /**< the application's CQ (events) */
	uint32_t depth;
	uint32_t notify;          /**< 1: notifications (by events) */
} __rte_packed;

/** CREATE_QP. */
struct ndk_attach_create_qp {
	uint64_t pd, rcq, icq;    /**< handles */
	uint64_t qp_ctx;          /**< QP context (opaque to the daemon) */
	uint32_t rq_depth, iq_depth;
	uint32_t max_rsge, max_isge;
	uint32_t inline_size;
	uint64_t srq;             /**< its receives from this SRQ (0: none;
				   *  rq_depth and max_rsge are then unused) */
} __rte_packed;

/** CREATE_SRQ. */
struct ndk_attach_create_srq {
	uint64_t pd;
	uint64_t proxy;           /**< the application's SRQ (events) */
	uint32_t depth, max_sge;
	uint32_t threshold;       /**< notification threshold (0: unarmed) */
	uint32_t notify;          /**< 1: notifications (by events) */
} __rte_packed;

/** SRQ_MODIFY (0 keeps the depth; 0 keeps the threshold and arming). */
struct ndk_attach_srq_modify {
	uint64_t srq;
	uint32_t depth;
	uint32_t threshold;
} __rte_packed;

/** CQ_RESIZE. */
struct ndk_attach_cq_resize {
	uint64_t cq;
	uint32_t depth;
} __rte_packed;

/** CQ_MODERATE. */
struct ndk_attach_cq_moderate {
	uint64_t cq;
	uint32_t interval_us;
	uint32_t count;
} __rte_packed;

/** CREATE_MR. */
struct ndk_attach_create_mr {
	uint64_t pd;
	uint64_t proxy;           /**< the application's MR (EV_CLOSED) */
	uint32_t fast_register;   /**< 1: a fast-register MR */
} __rte_packed;

/** REGISTER_MR: a buffer of the application's heap. */
struct ndk_attach_register_mr {
	uint64_t mr;
	uint64_t va, len;
	uint32_t flags;           /**< NDK_MR_FLAG_* */
} __rte_packed;

/** Requests naming one object and nothing else: DEREGISTER_MR (an MR),
 *  CLOSE (any object), QP_QUERY (a QP), LISTENER_ADDR (a listener),
 *  CONN_ADDR (a connector), CREATE_MW (a PD), SEP_ADDR (a shared
 *  endpoint). CLOSE of a listener, a shared endpoint, an SRQ, a CQ, a PD
 *  or an MR may answer STATUS_PENDING (successors still open, frames sent
 *  from the MR still out): an EV_CLOSED event follows when the daemon's
 *  close completes. */
struct ndk_attach_obj {
	uint64_t h;               /**< the object's handle */
} __rte_packed;

/** QP_MODIFY. */
struct ndk_attach_qp_modify {
	uint64_t qp;
	uint32_t mask;            /**< NDK_QP_ATTR_* */
	struct ndk_qp_attr attr;
} __rte_packed;

/** A CM step's completion callback (opaque to the daemon). */
struct ndk_attach_cb {
	uint64_t fn;              /**< ndk_request_completion_fn */
	uint64_t ctx;
} __rte_packed;

/**
 * A socket address as the protocol carries it: AF_INET or AF_INET6, the
 * port and the address in network order (an IPv4 one in addr[0..3]).
 */
struct ndk_attach_addr {
	uint16_t family;
	uint16_t port;            /**< network order */
	uint8_t addr[16];
} __rte_packed;

/** @p sa (IPv4 or IPv6) as the protocol carries it. */
static inline void
ndk_attach_addr_put(struct ndk_attach_addr *a, const union ndk_sockaddr *sa)
{
	memset(a, 0, sizeof(*a));
	a->family = sa->sa.sa_family;
	if (sa->sa.sa_family == AF_INET6) {
		a->port = sa->sin6.sin6_port;
		memcpy(a->addr, &sa->sin6.sin6_addr, 16);
	} else {
		a->port = sa->sin.sin_port;
		memcpy(a->addr, &sa->sin.sin_addr, 4);
	}
}

/**
 * The socket address @p a carries, into @p sa. @return its length, 0 if
 * the family is neither AF_INET nor AF_INET6.
 */
static inline socklen_t
ndk_attach_addr_get(const struct ndk_attach_addr *a, union ndk_sockaddr *sa)
{
	memset(sa, 0, sizeof(*sa));
	if (a->family == AF_INET6) {
		sa->sin6.sin6_family = AF_INET6;
		sa->sin6.sin6_port = a->port;
		memcpy(&sa->sin6.sin6_addr, a->addr, 16);
		return sizeof(sa->sin6);
	}
	if (a->family != AF_INET)
		return 0;
	sa->sin.sin_family = AF_INET;
	sa->sin.sin_port = a->port;
	memcpy(&sa->sin.sin_addr, a->addr, 4);
	return sizeof(sa->sin);
}

/** CONNECT (NdkConnect, or NdkConnectWithSharedEndpoint: @p sep). */
struct ndk_attach_connect {
	uint64_t conn, qp;
	uint64_t sep;             /**< a shared endpoint's handle (0: none,
				   *  @p src is the local address) */
	struct ndk_attach_cb cb;
	uint32_t ird, ord;
	struct ndk_attach_addr src, dst;
	uint32_t pdata_len;
	uint8_t pdata[NDK_ATTACH_PDATA_MAX];
} __rte_packed;

/** COMPLETE_CONNECT. */
struct ndk_attach_complete_connect {
	uint64_t conn;
	struct ndk_attach_cb cb;
	uint64_t proxy;           /**< the application's connector */
	uint32_t disc_event;      /**< 1: a disconnect event is wanted */
} __rte_packed;

/** DISCONNECT. */
struct ndk_attach_disconnect {
	uint64_t conn;
	struct ndk_attach_cb cb;
} __rte_packed;

/** CREATE_LISTENER. */
struct ndk_attach_create_listener {
	uint64_t proxy;           /**< the application's listener (events) */
} __rte_packed;

/** LISTEN. */
struct ndk_attach_listen {
	uint64_t listener;
	struct ndk_attach_addr addr;
} __rte_packed;

/** LISTENER_PAUSE. */
struct ndk_attach_listener_pause {
	uint64_t listener;
	uint32_t pause;           /**< 1: pause connect events */
} __rte_packed;

/** ACCEPT. */
struct ndk_attach_accept {
	uint64_t conn, qp;
	struct ndk_attach_cb cb;
	uint64_t proxy;           /**< the application's connector */
	uint32_t ird, ord;
	uint32_t disc_event;      /**< 1: a disconnect event is wanted */
	uint32_t data_len;
	uint8_t data[NDK_ATTACH_DATA_MAX];
} __rte_packed;

/** REJECT. */
struct ndk_attach_reject {
	uint64_t conn;
	uint32_t data_len;
	uint8_t data[NDK_ATTACH_DATA_MAX];
} __rte_packed;

/** CONN_DATA. */
struct ndk_attach_conn_data {
	uint64_t conn;
	uint32_t want;            /**< bytes of private data wanted */
} __rte_packed;

/** CREATE_SEP. */
struct ndk_attach_create_sep {
	uint64_t proxy;           /**< the application's endpoint (events) */
	struct ndk_attach_addr addr;
} __rte_packed;

/** CQ_ARM. */
struct ndk_attach_cq_arm {
	uint64_t cq;
	uint32_t type;            /**< NDK_CQ_NOTIFY_* */
} __rte_packed;

/** INIT_FR. */
struct ndk_attach_init_fr {
	uint64_t mr;
	uint32_t pages;
	uint32_t remote;          /**< 1: remote access */
} __rte_packed;

/** QP_LIST: the application's QP numbers from the @p skip -th on. */
struct ndk_attach_qp_list {
	uint32_t skip;
} __rte_packed;

/** QP_INFO. */
struct ndk_attach_qp_info {
	uint32_t qpn;
} __rte_packed;

/** ALLOC. */
struct ndk_attach_alloc {
	uint64_t len;
	uint32_t align;
} __rte_packed;

/** FREE. */
struct ndk_attach_free {
	uint64_t va;              /**< a buffer of ALLOC */
} __rte_packed;

/** A request (application -> daemon). */
struct ndk_attach_req {
	struct ndk_attach_req_hdr hdr;
	union {
		struct ndk_attach_hello hello;
		struct ndk_attach_create_pd create_pd;
		struct ndk_attach_create_cq create_cq;
		struct ndk_attach_create_qp create_qp;
		struct ndk_attach_create_srq create_srq;
		struct ndk_attach_srq_modify srq_modify;
		struct ndk_attach_cq_resize cq_resize;
		struct ndk_attach_cq_moderate cq_moderate;
		struct ndk_attach_create_sep create_sep;
		struct ndk_attach_create_mr create_mr;
		struct ndk_attach_register_mr register_mr;
		struct ndk_attach_obj obj;
		struct ndk_attach_qp_modify qp_modify;
		struct ndk_attach_connect connect;
		struct ndk_attach_complete_connect complete_connect;
		struct ndk_attach_disconnect disconnect;
		struct ndk_attach_create_listener create_listener;
		struct ndk_attach_listen listen;
		struct ndk_attach_listener_pause listener_pause;
		struct ndk_attach_accept accept;
		struct ndk_attach_reject reject;
		struct ndk_attach_conn_data conn_data;
		struct ndk_attach_cq_arm cq_arm;
		struct ndk_attach_init_fr init_fr;
		struct ndk_attach_qp_list qp_list;
		struct ndk_attach_qp_info qp_info;
		struct ndk_attach_alloc alloc;
		struct ndk_attach_free free;
	};
} __rte_packed;

/* ------------------------------------------------------------------ */
/* Reply bodies (none: every request not named below)                  */
/* ------------------------------------------------------------------ */

/** HELLO. */
struct ndk_attach_hello_rep {
	uint64_t app;             /**< the application's id */
	uint64_t adapter;         /**< the daemon's swroce adapter */
	uint64_t evq;             /**< struct ndk_attach_evq */
} __rte_packed;

/** A new object: CREATE_PD, CREATE_CQ, CREATE_MR, CREATE_CONNECTOR,
 *  CREATE_LISTENER, CREATE_MW, CREATE_SRQ, CREATE_SEP. */
struct ndk_attach_new_obj {
	uint64_t handle;          /**< its handle */
	uint64_t obj;             /**< its address in shared memory (0:
				   *  nothing to use there) */
} __rte_packed;

/** CREATE_QP. */
struct ndk_attach_create_qp_rep {
	uint64_t handle;
	uint64_t obj;             /**< the swroce QP in shared memory */
	uint32_t qpn;
} __rte_packed;

/** REGISTER_MR. */
struct ndk_attach_register_mr_rep {
	uint32_t ltoken, rtoken;
} __rte_packed;

/** QP_QUERY. */
struct ndk_attach_qp_query_rep {
	struct ndk_qp_attr attr;
} __rte_packed;

/** LISTENER_ADDR, SEP_ADDR. */
struct ndk_attach_listener_addr_rep {
	struct ndk_attach_addr addr;
} __rte_packed;

/** CONN_DATA. */
struct ndk_attach_conn_data_rep {
	uint32_t ird, ord;
	uint32_t len;             /**< the private data's size (NDK) */
	uint8_t bytes[NDK_ATTACH_CONN_DATA_MAX];
} __rte_packed;

/** CONN_ADDR. */
struct ndk_attach_conn_addr_rep {
	struct ndk_attach_addr local, peer;
} __rte_packed;

/** QP_LIST. */
struct ndk_attach_qp_list_rep {
	uint32_t total;           /**< the application's QPs */
	uint32_t n;               /**< QP numbers in @p qpns */
	uint32_t qpns[NDK_ATTACH_QPN_MAX];
} __rte_packed;

/** QP_INFO. */
struct ndk_attach_qp_info_rep {
	struct ndk_qp_info info;
} __rte_packed;

/** ALLOC. */
struct ndk_attach_alloc_rep {
	uint64_t va;              /**< the buffer */
} __rte_packed;

/** A reply (daemon -> application). */
struct ndk_attach_rep {
	struct ndk_attach_rep_hdr hdr;
	union {
		struct ndk_attach_hello_rep hello;
		struct ndk_attach_new_obj new_obj;
		struct ndk_attach_create_qp_rep create_qp;
		struct ndk_attach_register_mr_rep register_mr;
		struct ndk_attach_qp_query_rep qp_query;
		struct ndk_attach_listener_addr_rep listener_addr;
		struct ndk_attach_conn_data_rep conn_data;
		struct ndk_attach_conn_addr_rep conn_addr;
		struct ndk_attach_qp_list_rep qp_list;
		struct ndk_attach_qp_info_rep qp_info;
		struct ndk_attach_alloc_rep alloc;
	};
} __rte_packed;

/** Whether a message of @p type fits one rte_mp message. */
#define NDK_ATTACH_FITS(type) \
	static_assert(sizeof(type) <= RTE_MP_MAX_PARAM_LEN, \
		      #type " does not fit an rte_mp message")

NDK_ATTACH_FITS(struct ndk_attach_req);
NDK_ATTACH_FITS(struct ndk_attach_rep);

/**
 * Length of request @p op (header and body), or 0 for an unknown code.
 */
static inline uint32_t
ndk_attach_req_len(uint32_t op)
{
	size_t body;

	switch (op) {
	case NDK_ATT_HELLO: body = sizeof(struct ndk_attach_hello); break;
	case NDK_ATT_BYE:
	case NDK_ATT_CREATE_CONNECTOR: body = 0; break;
	case NDK_ATT_CREATE_PD:
		body = sizeof(struct ndk_attach_create_pd); break;
	case NDK_ATT_CREATE_CQ:
		body = sizeof(struct ndk_attach_create_cq); break;
	case NDK_ATT_CREATE_QP:
		body = sizeof(struct ndk_attach_create_qp); break;
	case NDK_ATT_CREATE_MR:
		body = sizeof(struct ndk_attach_create_mr); break;
	case NDK_ATT_REGISTER_MR:
		body = sizeof(struct ndk_attach_register_mr); break;
	case NDK_ATT_DEREGISTER_MR:
	case NDK_ATT_CLOSE:
	case NDK_ATT_QP_QUERY:
	case NDK_ATT_LISTENER_ADDR:
	case NDK_ATT_CONN_ADDR:
	case NDK_ATT_SEP_ADDR:
	case NDK_ATT_CREATE_MW: body = sizeof(struct ndk_attach_obj); break;
	case NDK_ATT_CREATE_SRQ:
		body = sizeof(struct ndk_attach_create_srq); break;
	case NDK_ATT_SRQ_MODIFY:
		body = sizeof(struct ndk_attach_srq_modify); break;
	case NDK_ATT_CQ_RESIZE:
		body = sizeof(struct ndk_attach_cq_resize); break;
	case NDK_ATT_CQ_MODERATE:
		body = sizeof(struct ndk_attach_cq_moderate); break;
	case NDK_ATT_CREATE_SEP:
		body = sizeof(struct ndk_attach_create_sep); break;
	case NDK_ATT_QP_MODIFY:
		body = sizeof(struct ndk_attach_qp_modify); break;
	case NDK_ATT_CONNECT: body = sizeof(struct ndk_attach_connect); break;
	case NDK_ATT_COMPLETE_CONNECT:
		body = sizeof(struct ndk_attach_complete_connect); break;
	case NDK_ATT_DISCONNECT:
		body = sizeof(struct ndk_attach_disconnect); break;
	case NDK_ATT_CREATE_LISTENER:
		body = sizeof(struct ndk_attach_create_listener); break;
	case NDK_ATT_LISTEN: body = sizeof(struct ndk_attach_listen); break;
	case NDK_ATT_LISTENER_PAUSE:
		body = sizeof(struct ndk_attach_listener_pause); break;
	case NDK_ATT_ACCEPT: body = sizeof(struct ndk_attach_accept); break;
	case NDK_ATT_REJECT: body = sizeof(struct ndk_attach_reject); break;
	case NDK_ATT_CONN_DATA:
		body = sizeof(struct ndk_attach_conn_data); break;
	case NDK_ATT_CQ_ARM: body = sizeof(struct ndk_attach_cq_arm); break;
	case NDK_ATT_INIT_FR: body = sizeof(struct ndk_attach_init_fr); break;
	case NDK_ATT_QP_LIST: body = sizeof(struct ndk_attach_qp_list); break;
	case NDK_ATT_QP_INFO: body = sizeof(struct ndk_attach_qp_info); break;
	case NDK_ATT_ALLOC: body = sizeof(struct ndk_attach_alloc); break;
	case NDK_ATT_FREE: body = sizeof(struct ndk_attach_free); break;
	default: return 0;
	}
	return (uint32_t)(sizeof(struct ndk_attach_req_hdr) + body);
}

/** Length of the reply to request @p op (header and body). */
static inline uint32_t
ndk_attach_rep_len(uint32_t op)
{
	size_t body;

	switch (op) {
	case NDK_ATT_HELLO: body = sizeof(struct ndk_attach_hello_rep); break;
	case NDK_ATT_CREATE_PD:
	case NDK_ATT_CREATE_CQ:
	case NDK_ATT_CREATE_MR:
	case NDK_ATT_CREATE_CONNECTOR:
	case NDK_ATT_CREATE_LISTENER:
	case NDK_ATT_CREATE_MW:
	case NDK_ATT_CREATE_SRQ:
	case NDK_ATT_CREATE_SEP:
		body = sizeof(struct ndk_attach_new_obj); break;
	case NDK_ATT_CREATE_QP:
		body = sizeof(struct ndk_attach_create_qp_rep); break;
	case NDK_ATT_REGISTER_MR:
		body = sizeof(struct ndk_attach_register_mr_rep); break;
	case NDK_ATT_QP_QUERY:
		body = sizeof(struct ndk_attach_qp_query_rep); break;
	case NDK_ATT_LISTENER_ADDR:
	case NDK_ATT_SEP_ADDR:
		body = sizeof(struct ndk_attach_listener_addr_rep); break;
	case NDK_ATT_CONN_DATA:
		body = sizeof(struct ndk_attach_conn_data_rep); break;
	case NDK_ATT_CONN_ADDR:
		body = sizeof(struct ndk_attach_conn_addr_rep); break;
	case NDK_ATT_QP_LIST:
		body = sizeof(struct ndk_attach_qp_list_rep); break;
	case NDK_ATT_QP_INFO:
		body = sizeof(struct ndk_attach_qp_info_rep); break;
	case NDK_ATT_ALLOC: body = sizeof(struct ndk_attach_alloc_rep); break;
	default: body = 0; break;
	}
	return (uint32_t)(sizeof(struct ndk_attach_rep_hdr) + body);
}

/* ------------------------------------------------------------------ */
/* Events (daemon -> application, in the application's event ring)    */
/* ------------------------------------------------------------------ */

/**
 * Events the daemon queues for an application in its event ring, drained
 * by its ndk_adapter_poll().
 */
enum ndk_attach_ev_kind {
	NDK_ATT_EV_DONE = 1,      /**< a CM step's completion */
	NDK_ATT_EV_CONNECT,       /**< a connection request on a listener */
	NDK_ATT_EV_DISCONNECT,    /**< a connector's disconnect event */
	NDK_ATT_EV_CQ,            /**< a CQ notification */
	NDK_ATT_EV_SRQ,           /**< an SRQ notification */
	NDK_ATT_EV_CLOSED,        /**< a close answered STATUS_PENDING is done */
};

/** EV_DONE: call the step's callback. */
struct ndk_attach_ev_done {
	struct ndk_attach_cb cb;  /**< as the request gave it */
	ndk_status_t status;
} __rte_packed;

/** EV_CONNECT: a new connector of the daemon's, for a listener. */
struct ndk_attach_ev_connect {
	uint64_t listener;        /**< the application's listener */
	uint64_t conn;            /**< the new connector's handle */
} __rte_packed;

/** EV_DISCONNECT. */
struct ndk_attach_ev_disconnect {
	uint64_t conn;            /**< the application's connector */
	uint32_t reason;
} __rte_packed;

/** EV_CQ. */
struct ndk_attach_ev_cq {
	uint64_t cq;              /**< the application's CQ */
	ndk_status_t status;
} __rte_packed;

/** EV_SRQ. */
struct ndk_attach_ev_srq {
	uint64_t srq;             /**< the application's SRQ */
	ndk_status_t status;      /**< SUCCESS (threshold), INTERNAL_ERROR */
} __rte_packed;

/** EV_CLOSED: the object's last event. */
struct ndk_attach_ev_closed {
	uint64_t obj;             /**< the application's proxy */
} __rte_packed;

/** One event (an element of the event ring). */
struct ndk_attach_ev {
	uint32_t kind;            /**< enum ndk_attach_ev_kind */
	uint32_t reserved;        /**< 0 */
	union {
		struct ndk_attach_ev_done done;
		struct ndk_attach_ev_connect connect;
		struct ndk_attach_ev_disconnect disconnect;
		struct ndk_attach_ev_cq cq;
		struct ndk_attach_ev_srq srq;
		struct ndk_attach_ev_closed closed;
		uint8_t size_[24];     /**< the element's size: 32 bytes */
	};
} __rte_packed;

static_assert(sizeof(struct ndk_attach_ev) % 4 == 0,
	      "an rte_ring element is a multiple of 4 bytes");

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

/* ------------------------------------------------------------------ */
/* The daemon's liveness                                               */
/* ------------------------------------------------------------------ */

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

#endif /* NDK_ATTACH_PROTO_H */
