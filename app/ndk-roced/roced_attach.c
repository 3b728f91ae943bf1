/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The attach server: applications running as DPDK secondary processes
 * (the attach provider, drivers/attach) ask for objects over rte_mp. This
 * file receives the requests, checks each one's header (protocol version,
 * length for its code) and hands it to its handler (roced_attach_ops.c);
 * it keeps the handles (index, generation, type, owner, checked on every
 * request), and closes everything an application left when it says BYE
 * or dies (checked every ROCED_ATTACH_CHECK_MS from the main thread). The
 * protocol is in ndk_attach_proto.h; the design in doc/attach.md.
 *
 * Requests run on the EAL's multi-process thread, one at a time, and
 * never wait for the network: CM steps answer STATUS_PENDING and their
 * completions go to the application's event queue (roced_attach_ops.c).
 * The table lock is taken by that thread and, with trylock only, by the
 * main thread's liveness check.
 */

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_memzone.h>
#include <rte_string_fns.h>
#include <rte_telemetry.h>

#include "roced_attach.h"

/* rte_mp and telemetry handlers take no context argument. */
static struct roced_attach *att_srv;
/* Static: a telemetry request may still look after the server stopped. */
static struct roced_attach att_store;

struct att_ent *
roced_att_ent_get(struct roced_attach *s, unsigned int ai, uint64_t h,
		  uint16_t type)
{
	uint32_t idx = (uint32_t)h;
	struct att_ent *e;
	uint16_t t;

	if (idx >= ATT_MAX_OBJS)
		return NULL;
	e = &s->ent[idx];
	t = __atomic_load_n(&e->type, __ATOMIC_ACQUIRE);
	if (t == 0 || t == ATT_TYPE_BUSY || t == ATT_TYPE_CLOSING ||
	    e->gen != (uint32_t)(h >> 32) ||
	    e->app != ai || (type != 0 && t != type))
		return NULL;
	return e;
}

ndk_status_t
roced_att_ent_add(struct roced_attach *s, unsigned int ai, uint16_t type,
		  void *obj, uint64_t *h)
{
	for (uint32_t i = 0; i < ATT_MAX_OBJS; i++) {
		struct att_ent *e = &s->ent[i];
		uint16_t free_type = 0;

		/* A connect event adds entries from a polling lcore. */
		if (__atomic_load_n(&e->type, __ATOMIC_RELAXED) != 0 ||
		    !__atomic_compare_exchange_n(&e->type, &free_type,
						 ATT_TYPE_BUSY, false,
						 __ATOMIC_ACQUIRE,
						 __ATOMIC_RELAXED))
			continue;
		e->gen++;
		e->app = (uint16_t)ai;
		e->owner = &s->apps[ai];
		e->obj = obj;
		e->pctx = 0;
		e->disc_owed = 0;
		e->notify_owed = 0;
		e->close_owed = 0;
		__atomic_fetch_add(&s->apps[ai].n_obj, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&e->type, type, __ATOMIC_RELEASE);
		*h = ((uint64_t)e->gen << 32) | i;
		return NDK_STATUS_SUCCESS;
	}
	return NDK_STATUS_INSUFFICIENT_RESOURCES;
}

void
roced_att_ent_free(struct roced_attach *s, struct att_ent *e)
{
	struct att_app *a = &s->apps[e->app];

	e->obj = NULL;
	__atomic_store_n(&e->type, 0, __ATOMIC_RELEASE);
	/* Last: a draining application's ring may be freed after this. */
	__atomic_fetch_sub(&a->n_obj, 1, __ATOMIC_RELEASE);
}

/*
 * A close that answered STATUS_PENDING is done, on the thread that
 * dropped the object's last reference: the rte_mp or main thread (a QP's
 * or MR's close), a polling lcore (a connector closed from a connect
 * event; a CQ whose notification was running), the EAL interrupt thread
 * (an MR whose last frame came back, and its PD). Tell the application
 * (the slot was reserved at creation) and forget the entry. No lock: the
 * application's event ring outlives the entry, which counts in its n_obj
 * until roced_att_ent_free() (a dead application drains, app_teardown()).
 */
static void
ent_closed(void *ctx)
{
	struct att_ent *e = ctx;
	struct ndk_attach_ev ev = {
		.kind = NDK_ATT_EV_CLOSED,
		.closed = { .obj = e->pctx },
	};

	if (__atomic_load_n(&e->type, __ATOMIC_ACQUIRE) != ATT_TYPE_CLOSING) {
		ROCED_LOG(ERR, "attach: a close completion for an entry not "
			  "closing (ignored)");
		return;
	}
	/* Notifications a CQ or SRQ still had promised: none come now. */
	roced_att_ev_release(e->owner, __atomic_exchange_n(&e->notify_owed, 0,
							   __ATOMIC_ACQ_REL));
	if (__atomic_exchange_n(&e->close_owed, 0, __ATOMIC_ACQ_REL) != 0)
		roced_att_ev_put(e->owner, &ev);
	roced_att_ent_free(e->owner->srv, e);
}

/* Start the close of @p e's object (of type @p type), ent_closed() as its
 * completion. */
static ndk_status_t
ent_close_start(struct att_ent *e, uint16_t type)
{
	switch (type) {
	case NDK_OBJECT_TYPE_LISTENER:
		return ndk_close_listener(e->obj, ent_closed, e);
	case NDK_OBJECT_TYPE_SHARED_ENDPOINT:
		return ndk_close_shared_endpoint(e->obj, ent_closed, e);
	case NDK_OBJECT_TYPE_SRQ:
		return ndk_close_srq(e->obj, ent_closed, e);
	case NDK_OBJECT_TYPE_CQ:
		return ndk_close_cq(e->obj, ent_closed, e);
	case NDK_OBJECT_TYPE_PD:
		return ndk_close_pd(e->obj, ent_closed, e);
	default:
		ndk_deregister_mr(e->obj);          /* its token dies */
		return ndk_close_mr(e->obj, ent_closed, e);
	}
}

/*
 * Close an object whose close may pend (NDK): a listener, shared
 * endpoint, SRQ, CQ or PD while successors (connectors it handed up /
 * connected, QPs, MRs on it) are open, an MR while frames sent from it
 * are out. The entry stays, its handle dead, until ent_closed().
 */
static ndk_status_t
ent_close_pending(struct roced_attach *s, struct att_ent *e)
{
	struct att_app *a = e->owner;
	uint16_t type = e->type;
	ndk_status_t st;

	__atomic_store_n(&e->type, ATT_TYPE_CLOSING, __ATOMIC_RELEASE);
	st = ent_close_start(e, type);
	/* Pending: @p e may be gone already (the completion, on another
	 * thread, gives back what it promised: a closing CQ or SRQ
	 * notifies no more, but one running may still take its slot). */
	if (st == NDK_STATUS_PENDING)
		return st;
	/* Closed inline: no completion (NDK), its event slots back. */
	roced_att_ev_release(a, __atomic_exchange_n(&e->notify_owed, 0,
						    __ATOMIC_ACQ_REL));
	roced_att_ev_release(a, __atomic_exchange_n(&e->close_owed, 0,
						    __ATOMIC_ACQ_REL));
	roced_att_ent_free(s, e);
	return NDK_STATUS_SUCCESS;
}

ndk_status_t
roced_att_ent_close(struct roced_attach *s, struct att_ent *e)
{
	switch (e->type) {
	case NDK_OBJECT_TYPE_LISTENER:
	case NDK_OBJECT_TYPE_SHARED_ENDPOINT:
	case NDK_OBJECT_TYPE_SRQ:
	case NDK_OBJECT_TYPE_CQ:
	case NDK_OBJECT_TYPE_PD:
	case NDK_OBJECT_TYPE_MR:
		return ent_close_pending(s, e);
	case NDK_OBJECT_TYPE_CONNECTOR:
		/* Pending CM steps complete (cancelled) into the queue. */
		ndk_close_connector(e->obj, NULL, NULL);
		break;
	case NDK_OBJECT_TYPE_MW:
		ndk_close_mw(e->obj, NULL, NULL);
		break;
	case NDK_OBJECT_TYPE_QP:
		ndk_close_qp(e->obj, NULL, NULL);   /* flushed: ERROR */
		break;
	default:
		break;
	}
	roced_att_ent_unreserve(s, e);
	roced_att_ent_free(s, e);
	return NDK_STATUS_SUCCESS;
}

/* Free what application @p ai held besides its objects: its slot. */
static void
app_release(struct roced_attach *s, unsigned int ai)
{
	struct att_app *a = &s->apps[ai];

	roced_app_res_fini(&a->res);
	roced_att_evq_free(a);
	a->draining = false;
	a->id = 0;
}

/*
 * Close everything of application @p ai, users before what they use.
 * Closes still pending after that (an MR's frames still out, a CQ's
 * notification still running) complete on other threads, into its event
 * ring, and the MR's memory is its heap's: the application drains, its
 * slot kept (refusing requests), until roced_attach_run() sees its last
 * entry gone.
 */
static void
app_teardown(struct roced_attach *s, unsigned int ai, const char *why)
{
	/* Listeners first: then no connect event adds an entry. Their
	 * closes (and pending ones) complete as the connectors close. */
	static const uint16_t order[] = {
		NDK_OBJECT_TYPE_LISTENER, NDK_OBJECT_TYPE_CONNECTOR,
		NDK_OBJECT_TYPE_SHARED_ENDPOINT, NDK_OBJECT_TYPE_QP,
		NDK_OBJECT_TYPE_MW, NDK_OBJECT_TYPE_MR, NDK_OBJECT_TYPE_SRQ,
		NDK_OBJECT_TYPE_CQ, NDK_OBJECT_TYPE_PD,
	};
	struct att_app *a = &s->apps[ai];
	uint32_t n = a->n_obj;

	for (unsigned int k = 0; k < RTE_DIM(order); k++)
		for (uint32_t i = 0; i < ATT_MAX_OBJS && a->n_obj != 0; i++)
			if (s->ent[i].type == order[k] && s->ent[i].app == ai)
				roced_att_ent_close(s, &s->ent[i]);
	ROCED_LOG(NOTICE, "attach: application pid %d %s: %u object(s) "
		  "closed", a->pid, why, n);
	if (__atomic_load_n(&a->n_obj, __ATOMIC_ACQUIRE) == 0) {
		app_release(s, ai);
		return;
	}
	ROCED_LOG(NOTICE, "attach: application pid %d: %u close(s) still "
		  "pending (frames out, a notification running): its event "
		  "ring and heap are kept until they complete", a->pid,
		  __atomic_load_n(&a->n_obj, __ATOMIC_RELAXED));
	a->draining = true;
}

/* Release the drained applications; the number still draining into
 * @p left. @return how many were released. */
static unsigned int
apps_drained(struct roced_attach *s, unsigned int *left)
{
	unsigned int n = 0;

	*left = 0;
	for (unsigned int ai = 0; ai < ATT_MAX_APPS; ai++) {
		struct att_app *a = &s->apps[ai];

		if (a->id == 0 || !a->draining)
			continue;
		if (__atomic_load_n(&a->n_obj, __ATOMIC_ACQUIRE) != 0) {
			(*left)++;
			continue;
		}
		ROCED_LOG(NOTICE, "attach: application pid %d: its last "
			  "close completed, its heap freed", a->pid);
		app_release(s, ai);
		n++;
	}
	return n;
}

/* The application a request comes from, or -1. */
static int
app_find(struct roced_attach *s, const struct ndk_attach_req *rq,
	 const char *peer)
{
	unsigned int ai = (unsigned int)(rq->hdr.app & 0xff);

	if (ai >= ATT_MAX_APPS || s->apps[ai].id == 0 ||
	    s->apps[ai].draining || s->apps[ai].id != rq->hdr.app ||
	    s->apps[ai].pid != rq->hdr.pid ||
	    strcmp(s->apps[ai].peer, peer) != 0)
		return -1;
	return (int)ai;
}

static ndk_status_t
op_hello(struct roced_attach *s, const struct ndk_attach_req *rq,
	 const char *peer, struct ndk_attach_rep *rp)
{
	struct roced_port *port = NULL;
	char name[RTE_ETH_NAME_MAX_LEN];

	for (unsigned int i = 0; i < s->ports->n; i++) {
		struct roced_port *p = &s->ports->port[i];

		if (rte_eth_dev_get_name_by_port(p->port_id, name) == 0 &&
		    strncmp(name, rq->hello.name, sizeof(rq->hello.name)) == 0)
			port = p;
	}
	if (port == NULL)
		return NDK_STATUS_INVALID_ADDRESS;
	for (unsigned int ai = 0; ai < ATT_MAX_APPS; ai++) {
		struct att_app *a = &s->apps[ai];

		if (a->id != 0)
			continue;
		a->id = (++s->next_id << 8) | ai;
		if (roced_app_res_init(&a->res, port->ad, a->id,
				rte_eth_dev_socket_id(port->port_id),
				s->heap_mb) != 0) {
			a->id = 0;
			return NDK_STATUS_INSUFFICIENT_RESOURCES;
		}
		a->pid = rq->hdr.pid;
		rte_strlcpy(a->peer, peer, sizeof(a->peer));
		a->port = port;
		a->n_obj = 0;
		a->ev_refused = 0;
		a->draining = false;
		a->srv = s;
		if (roced_att_evq_create(a, ai, rq->hello.ev_slots) != 0) {
			roced_app_res_fini(&a->res);
			a->id = 0;
			return NDK_STATUS_INSUFFICIENT_RESOURCES;
		}
		rp->hello.app = a->id;
		rp->hello.adapter = (uintptr_t)port->ad;
		rp->hello.evq = (uintptr_t)a->evq;
		ROCED_LOG(NOTICE, "attach: application pid %d on port %s",
			  a->pid, port->cfg->name);
		return NDK_STATUS_SUCCESS;
	}
	return NDK_STATUS_INSUFFICIENT_RESOURCES;
}

static ndk_status_t
att_exec(struct roced_attach *s, const struct ndk_attach_req *rq,
	 const char *peer, struct ndk_attach_rep *rp)
{
	int ai;

	if (rq->hdr.op == NDK_ATT_HELLO)
		return op_hello(s, rq, peer, rp);
	ai = app_find(s, rq, peer);
	if (ai < 0)
		return NDK_STATUS_INVALID_HANDLE;
	if (rq->hdr.op == NDK_ATT_BYE) {
		app_teardown(s, (unsigned int)ai, "detached");
		return NDK_STATUS_SUCCESS;
	}
	return roced_att_ops(s, (unsigned int)ai, rq, rp);
}

/*
 * Whether message @p msg is a request of this protocol version, of the
 * length of its code (copied into @p rq); refusals are logged.
 */
static ndk_status_t
att_check(const struct rte_mp_msg *msg, struct ndk_attach_req *rq)
{
	int len = msg->len_param;
	uint32_t want;

	memset(rq, 0, sizeof(*rq));
	if (len < (int)sizeof(rq->hdr) || len > (int)sizeof(*rq)) {
		ROCED_LOG(ERR, "attach: a request of %d bytes: refused (not "
			  "an attach protocol message)", len);
		return NDK_STATUS_INVALID_BUFFER_SIZE;
	}
	memcpy(rq, msg->param, (size_t)len);
	if (rq->hdr.version != NDK_ATTACH_VERSION) {
		ROCED_LOG(ERR, "attach: application pid %d speaks attach "
			  "protocol version %u, this daemon version %u: "
			  "refused (it must be built with this daemon's "
			  "ndk-roce)", (int)rq->hdr.pid,
			  (unsigned int)rq->hdr.version, NDK_ATTACH_VERSION);
		return NDK_STATUS_BAD_VERSION;
	}
	want = ndk_attach_req_len(rq->hdr.op);
	if (want == 0) {
		ROCED_LOG(ERR, "attach: application pid %d: unknown request "
			  "%u", (int)rq->hdr.pid, (unsigned int)rq->hdr.op);
		return NDK_STATUS_INVALID_DEVICE_REQUEST;
	}
	if ((uint32_t)len != want || rq->hdr.len != want) {
		ROCED_LOG(ERR, "attach: application pid %d: request %u of %d "
			  "bytes (header: %u), %u expected: refused",
			  (int)rq->hdr.pid, (unsigned int)rq->hdr.op, len,
			  (unsigned int)rq->hdr.len, want);
		return NDK_STATUS_INVALID_BUFFER_SIZE;
	}
	return NDK_STATUS_SUCCESS;
}

uint32_t
roced_attach_handle(struct roced_attach *s, const struct rte_mp_msg *msg,
		    const char *peer, struct ndk_attach_rep *rp)
{
	struct ndk_attach_req rq;
	ndk_status_t st;

	memset(rp, 0, sizeof(*rp));
	st = att_check(msg, &rq);
	if (NDK_SUCCESS(st)) {
		pthread_mutex_lock(&s->lock);
		st = att_exec(s, &rq, peer, rp);
		pthread_mutex_unlock(&s->lock);
	}
	rp->hdr.op = rq.hdr.op;
	rp->hdr.version = NDK_ATTACH_VERSION;
	rp->hdr.len = ndk_attach_rep_len(rq.hdr.op);
	rp->hdr.status = st;
	return rp->hdr.len;
}

static int
att_handle(const struct rte_mp_msg *msg, const void *peer)
{
	struct ndk_attach_rep rp;
	struct rte_mp_msg m;

	memset(&m, 0, sizeof(m));
	m.len_param = (int)roced_attach_handle(att_srv, msg, peer, &rp);
	rte_strlcpy(m.name, msg->name, sizeof(m.name));
	memcpy(m.param, &rp, (size_t)m.len_param);
	return rte_mp_reply(&m, peer);
}

/* /ndk/apps: per attached application (by pid), port and objects. */
static int
cmd_apps(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct roced_attach *s = &att_store;
	char pid[16];

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_dict(d);
	pthread_mutex_lock(&s->lock);
	for (unsigned int ai = 0; ai < ATT_MAX_APPS; ai++) {
		struct att_app *a = &s->apps[ai];
		struct rte_tel_data *o;

		if (a->id == 0 || (o = rte_tel_data_alloc()) == NULL)
			continue;
		rte_tel_data_start_dict(o);
		rte_tel_data_add_dict_string(o, "port", a->port->cfg->name);
		rte_tel_data_add_dict_u64(o, "objects", a->n_obj);
		rte_tel_data_add_dict_u64(o, "draining", a->draining);
		rte_tel_data_add_dict_string(o, "heap", a->res.heap);
		rte_tel_data_add_dict_u64(o, "buffers", a->res.n_blk);
		rte_tel_data_add_dict_string(o, "doorbell_ring",
					     a->res.db->name);
		snprintf(pid, sizeof(pid), "%d", a->pid);
		rte_tel_data_add_dict_container(d, pid, o, 0);
	}
	pthread_mutex_unlock(&s->lock);
	return 0;
}

int
roced_attach_start(const struct roced_config *cfg, struct roced_ports *p,
		   struct roced_attach **out)
{
	struct roced_attach *s = &att_store;
	const struct rte_memzone *mz;

	*out = NULL;
	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->lock, NULL);
	s->ports = p;
	s->heap_mb = cfg->app_heap_mb;
	/* Liveness for the applications: kept until the process ends. */
	mz = rte_memzone_reserve(NDK_ATTACH_SHM_NAME, sizeof(*s->shm),
				 SOCKET_ID_ANY, 0);
	if (mz == NULL) {
		ROCED_LOG(NOTICE, "attached applications unavailable: no "
			  "memzone %s: %s", NDK_ATTACH_SHM_NAME,
			  rte_strerror(rte_errno));
		return -rte_errno;
	}
	s->shm = mz->addr;
	s->shm->heartbeat_ms = ROCED_ATTACH_CHECK_MS;
	__atomic_store_n(&s->shm->heartbeat, rte_get_timer_cycles(),
			 __ATOMIC_RELEASE);
	__atomic_store_n(&s->shm->state, NDK_ATTACH_UP, __ATOMIC_RELEASE);
	att_srv = s;
	if (rte_mp_action_register(NDK_ATTACH_MP_NAME, att_handle) != 0) {
		ROCED_LOG(NOTICE, "attached applications unavailable (%s): "
			  "they need the multi-process mode (hugetlbfs, no "
			  "--in-memory)", rte_strerror(rte_errno));
		att_srv = NULL;
		return -rte_errno;
	}
	if (rte_telemetry_register_cmd("/ndk/apps", cmd_apps,
			"Attached applications by pid: port, objects, draining, "
			"heap, buffers, doorbell_ring") != 0)
		ROCED_LOG(WARNING, "cannot register /ndk/apps");
	*out = s;
	return 0;
}

unsigned int
roced_attach_run(struct roced_attach *s)
{
	uint64_t now = rte_get_timer_cycles();
	unsigned int dead = 0, left;

	if (s == NULL || now < s->next_check)
		return 0;
	s->next_check = now + rte_get_timer_hz() * ROCED_ATTACH_CHECK_MS /
		1000;
	__atomic_store_n(&s->shm->heartbeat, now, __ATOMIC_RELEASE);
	/* A request in progress may need this thread to poll: skip. */
	if (pthread_mutex_trylock(&s->lock) != 0)
		return 0;
	for (unsigned int ai = 0; ai < ATT_MAX_APPS; ai++) {
		struct att_app *a = &s->apps[ai];

		if (a->id != 0 && !a->draining && kill(a->pid, 0) != 0 &&
		    errno == ESRCH) {
			app_teardown(s, ai, "is gone");
			dead++;
		}
	}
	dead += apps_drained(s, &left);
	pthread_mutex_unlock(&s->lock);
	return dead;
}

void
roced_attach_stop(struct roced_attach *s)
{
	unsigned int left;
	uint64_t end;

	if (s == NULL)
		return;
	/*
	 * Tell the applications first: from now on their calls return
	 * STATUS_DEVICE_REMOVED and they stop touching the shared objects;
	 * a post already past that check gets the grace period to finish.
	 * Then their connections are aborted (DREQ), their QPs flushed and
	 * everything closed while the ports are still polled.
	 */
	__atomic_store_n(&s->shm->state, NDK_ATTACH_STOPPING,
			 __ATOMIC_SEQ_CST);
	rte_delay_us_sleep(ROCED_ATTACH_GRACE_MS * 1000);
	rte_mp_action_unregister(NDK_ATTACH_MP_NAME);
	pthread_mutex_lock(&s->lock);
	for (unsigned int ai = 0; ai < ATT_MAX_APPS; ai++)
		if (s->apps[ai].id != 0 && !s->apps[ai].draining)
			app_teardown(s, ai, "cut off (daemon stopping)");
	/* Pending closes get the grace period; what is left then completes
	 * at the adapters' close, into rings kept to the process's end. */
	end = rte_get_timer_cycles() + rte_get_timer_hz() *
		ROCED_ATTACH_GRACE_MS / 1000;
	while (apps_drained(s, &left), left != 0 &&
	       rte_get_timer_cycles() < end)
		rte_delay_us_sleep(1000);
	if (left != 0)
		ROCED_LOG(NOTICE, "attach: %u application(s) with closes "
			  "still pending: the adapters' close completes them",
			  left);
	pthread_mutex_unlock(&s->lock);
	__atomic_store_n(&s->shm->state, NDK_ATTACH_GONE, __ATOMIC_SEQ_CST);
	att_srv = NULL;
}
