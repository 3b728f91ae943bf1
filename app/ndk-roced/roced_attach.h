/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCED_ATTACH_H
#define ROCED_ATTACH_H

/*
 * Inside the attach server: the handle table and application slots shared
 * by roced_attach.c (rte_mp: header, version and length checks; HELLO,
 * BYE, liveness, clean-up) and roced_attach_ops.c (one handler per
 * request code, event queues).
 *
 * Locking: requests run on the EAL multi-process thread under s->lock.
 * Connect events run on a polling lcore, which takes no lock: it adds the
 * new connector's entry with a CAS on the entry's type (ent_add does the
 * same), and queues events with the application's event-queue
 * reservations (atomic). Teardown closes listeners first, so no connect
 * event can add an entry for an application being torn down. Pending
 * closes complete on any thread (ent_closed(), no lock): their entries
 * count in the application's n_obj until freed, and a torn-down
 * application's event ring and heap are freed only once n_obj is 0
 * (draining, roced_attach_run()).
 */

#include <pthread.h>

#include "roced.h"
#include "roced_attach_app.h"
#include "ndk_attach_proto.h"

#define ATT_MAX_APPS 64
#define ATT_MAX_OBJS 4096
#define ATT_PEER_LEN 128
/* An entry being filled by ent_add (never a valid object type). */
#define ATT_TYPE_BUSY 0xffff
/* An entry whose object's close is pending (its handle is dead; the
 * close completion queues EV_CLOSED and frees it). */
#define ATT_TYPE_CLOSING 0xfffe

struct att_app {
	uint64_t id;                 /* 0 = free slot */
	int pid;
	char peer[ATT_PEER_LEN];     /* its rte_mp socket */
	struct roced_port *port;
	uint32_t n_obj;              /* atomic */
	struct ndk_attach_evq *evq;  /* its event queue (shared memory) */
	uint64_t ev_refused;         /* connect requests refused: no slot */
	struct roced_attach *srv;    /* back to the server (callbacks) */
	struct roced_app_res res;    /* doorbell ring, buffer heap */
	bool draining;               /* gone, closes of its objects still
				      * pending: its event ring and heap
				      * kept until n_obj is 0 */
};

struct att_ent;

/* One asynchronous request's completion: the application's callback. */
struct att_areq {
	struct att_ent *e;
	struct ndk_attach_cb cb;     /* as the request gave it */
};

struct att_ent {
	uint32_t gen;
	uint16_t type;               /* enum ndk_object_type, 0 = free */
	uint16_t app;                /* index in apps[] */
	struct att_app *owner;       /* &apps[app] (callbacks) */
	void *obj;                   /* the daemon's object */
	uint64_t pctx;               /* the application's proxy (events) */
	struct att_areq rq[2];       /* CM step; disconnect */
	uint32_t disc_owed;          /* disconnect event reserved (atomic) */
	uint32_t notify_owed;        /* CQ / SRQ notifications reserved
				      * (atomic) */
	uint32_t close_owed;         /* EV_CLOSED reserved: listener, shared
				      * endpoint, SRQ, CQ, PD, MR (atomic) */
};

struct roced_attach {
	pthread_mutex_t lock;
	struct roced_ports *ports;
	uint32_t heap_mb;            /* each application's heap */
	uint64_t next_id;
	uint64_t next_check;         /* TSC */
	struct ndk_attach_shm *shm;  /* liveness the applications read */
	struct att_app apps[ATT_MAX_APPS];
	struct att_ent ent[ATT_MAX_OBJS];
};

/* Entry of handle @p h if application @p ai owns it (type 0: any). */
struct att_ent *roced_att_ent_get(struct roced_attach *s, unsigned int ai,
				  uint64_t h, uint16_t type);

/* A new entry (any thread) for @p obj; its handle into @p h. */
ndk_status_t roced_att_ent_add(struct roced_attach *s, unsigned int ai,
			       uint16_t type, void *obj, uint64_t *h);

/* Forget an entry (the object is closed); its application's n_obj is
 * the last thing it touches (a draining application may go then). */
void roced_att_ent_free(struct roced_attach *s, struct att_ent *e);

/*
 * Close an entry's object the way its owner would have, and forget it.
 * @return STATUS_SUCCESS, or STATUS_PENDING: a listener, shared endpoint,
 * SRQ, CQ or PD whose successors are still open, an MR with frames sent
 * from it still out; the entry stays (type ATT_TYPE_CLOSING, its handle
 * dead, counted in its application's n_obj) until the close completes
 * (on any thread), which queues EV_CLOSED naming the application's proxy
 * and frees it.
 */
ndk_status_t roced_att_ent_close(struct roced_attach *s, struct att_ent *e);

/* Event queue: promise @p n slots (false: full), give back, queue one. */
bool roced_att_ev_reserve(struct att_app *a, uint32_t n);
void roced_att_ev_release(struct att_app *a, uint32_t n);
void roced_att_ev_put(struct att_app *a, const struct ndk_attach_ev *ev);

/* Make / free an application's event queue (HELLO / teardown). */
int roced_att_evq_create(struct att_app *a, unsigned int ai,
			 uint32_t slots);
void roced_att_evq_free(struct att_app *a);

/*
 * Queue notification @p ev of CQ or SRQ entry @p e (@p what, for the
 * log), taking one of the slots its arms reserved (any thread).
 */
void roced_att_notify_put(struct att_ent *e, const struct ndk_attach_ev *ev,
			  const char *what);

/* Release what an entry had reserved in its event queue (its close). */
void roced_att_ent_unreserve(struct roced_attach *s, struct att_ent *e);

/*
 * Handlers of roced_attach_ext.c (PDs, CQs, MRs and SRQs, whose closes
 * may pend, SRQ notifications, CQ resize and moderation, shared
 * endpoints), in att_ops's table.
 */
ndk_status_t roced_att_op_create_pd(struct roced_attach *s, unsigned int ai,
				    const struct ndk_attach_req *rq,
				    struct ndk_attach_rep *rp);
ndk_status_t roced_att_op_create_cq(struct roced_attach *s, unsigned int ai,
				    const struct ndk_attach_req *rq,
				    struct ndk_attach_rep *rp);
ndk_status_t roced_att_op_create_mr(struct roced_attach *s, unsigned int ai,
				    const struct ndk_attach_req *rq,
				    struct ndk_attach_rep *rp);
ndk_status_t roced_att_op_create_srq(struct roced_attach *s, unsigned int ai,
				     const struct ndk_attach_req *rq,
				     struct ndk_attach_rep *rp);
ndk_status_t roced_att_op_srq_modify(struct roced_attach *s, unsigned int ai,
				     const struct ndk_attach_req *rq,
				     struct ndk_attach_rep *rp);
ndk_status_t roced_att_op_cq_resize(struct roced_attach *s, unsigned int ai,
				    const struct ndk_attach_req *rq,
				    struct ndk_attach_rep *rp);
ndk_status_t roced_att_op_cq_moderate(struct roced_attach *s,
				      unsigned int ai,
				      const struct ndk_attach_req *rq,
				      struct ndk_attach_rep *rp);
ndk_status_t roced_att_op_create_sep(struct roced_attach *s, unsigned int ai,
				     const struct ndk_attach_req *rq,
				     struct ndk_attach_rep *rp);
ndk_status_t roced_att_op_sep_addr(struct roced_attach *s, unsigned int ai,
				   const struct ndk_attach_req *rq,
				   struct ndk_attach_rep *rp);

/*
 * Check and carry out one request of the attach protocol (@p msg, from
 * the application whose rte_mp socket is @p peer) and fill its reply.
 * @return the reply's length. The rte_mp action calls it; so does the
 * attach fuzz target (test/fuzz).
 */
uint32_t roced_attach_handle(struct roced_attach *s,
			     const struct rte_mp_msg *msg, const char *peer,
			     struct ndk_attach_rep *rp);

/*
 * Execute request @p rq of application @p ai (any code but HELLO and BYE;
 * header, version and length already checked) with its handler
 * (roced_attach_ops.c), which fills @p rp's body.
 */
ndk_status_t roced_att_ops(struct roced_attach *s, unsigned int ai,
			   const struct ndk_attach_req *rq,
			   struct ndk_attach_rep *rp);

#endif /* ROCED_ATTACH_H */
