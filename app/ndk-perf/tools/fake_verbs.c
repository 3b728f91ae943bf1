/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * fake_verbs.so: a pretend RDMA device for stock perftest, so that its TCP
 * exchange can be checked against ndk-perf on a host without kernel RDMA.
 * Not built by meson; a development aid:
 *
 *   cc -O1 -shared -fPIC -o fake_verbs.so fake_verbs.c     (libibverbs-dev)
 *   apt-get download perftest && dpkg-deb -x perftest_*.deb pt
 *   ndk-perf -l 0 --no-pci --in-memory --vdev net_null0 -- write_bw \
 *       --ip 10.9.9.1 &
 *   LD_PRELOAD=./fake_verbs.so FAKE_IP=10.9.9.2 \
 *       pt/usr/bin/ib_write_bw --use_old_post_send 127.0.0.1
 *
 * Every signaled post completes at once and no data moves, so only runs
 * whose ndk-perf side moves no data complete: ndk-perf as the server of
 * write_bw, read_bw and read_lat. The others still show the exchange up to
 * the data phase. FAKE_IP sets the IPv4 of GID 1 (::ffff:a.b.c.d),
 * FAKE_MTU the active MTU (enum ibv_mtu, default 3 = 1024).
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

/* verbs.h wraps these two in macros; we define the exported symbols. */
#undef ibv_query_port
#undef ibv_reg_mr
int ibv_query_port(struct ibv_context *c, uint8_t port,
		   struct _compat_ibv_port_attr *attr);
struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t len,
			  int access);

#define FAKE_CQ_SIZE 65536

struct fake_cq {
	struct ibv_cq cq;
	struct ibv_wc wc[FAKE_CQ_SIZE];
	unsigned int head, tail;
};

static struct ibv_device fake_dev;
static struct ibv_device *fake_list[2];
static uint32_t fake_next_key = 0x100;
static uint32_t fake_next_qpn = 0x11;

static void
fake_complete(struct ibv_cq *cq, uint64_t wr_id, enum ibv_wc_opcode op,
	      uint32_t len, uint32_t qpn)
{
	struct fake_cq *q = (struct fake_cq *)cq;
	struct ibv_wc *w = &q->wc[q->tail++ % FAKE_CQ_SIZE];

	memset(w, 0, sizeof(*w));
	w->wr_id = wr_id;
	w->status = IBV_WC_SUCCESS;
	w->opcode = op;
	w->byte_len = len;
	w->qp_num = qpn;
}

static int
fake_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	struct fake_cq *q = (struct fake_cq *)cq;
	int k = 0;

	while (k < n && q->head != q->tail)
		wc[k++] = q->wc[q->head++ % FAKE_CQ_SIZE];
	return k;
}

static int
fake_req_notify(struct ibv_cq *cq, int solicited)
{
	(void)cq;
	(void)solicited;
	return 0;
}

static int
fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
	       struct ibv_send_wr **bad)
{
	(void)bad;
	for (; wr != NULL; wr = wr->next) {
		enum ibv_wc_opcode op = wr->opcode == IBV_WR_RDMA_READ ?
			IBV_WC_RDMA_READ : wr->opcode == IBV_WR_SEND ?
			IBV_WC_SEND : IBV_WC_RDMA_WRITE;

		if (wr->send_flags & IBV_SEND_SIGNALED)
			fake_complete(qp->send_cq, wr->wr_id, op, wr->num_sge ?
				      wr->sg_list[0].length : 0, qp->qp_num);
	}
	return 0;
}

static int
fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
	       struct ibv_recv_wr **bad)
{
	(void)qp;
	(void)wr;
	(void)bad;
	return 0;
}

struct ibv_device **
ibv_get_device_list(int *num)
{
	strcpy(fake_dev.name, "fake0");
	strcpy(fake_dev.dev_name, "uverbs99");
	strcpy(fake_dev.dev_path, "/nonexistent/uverbs99");
	strcpy(fake_dev.ibdev_path, "/nonexistent/fake0");
	fake_dev.node_type = IBV_NODE_CA;
	fake_dev.transport_type = IBV_TRANSPORT_IB;
	fake_list[0] = &fake_dev;
	fake_list[1] = NULL;
	if (num != NULL)
		*num = 1;
	return fake_list;
}

void
ibv_free_device_list(struct ibv_device **list)
{
	(void)list;
}

const char *
ibv_get_device_name(struct ibv_device *dev)
{
	return dev->name;
}

struct ibv_context *
ibv_open_device(struct ibv_device *dev)
{
	struct verbs_context *v = calloc(1, sizeof(*v));

	if (v == NULL)
		return NULL;
	/* An extended context with no extended ops: those calls fail. */
	v->sz = sizeof(*v);
	v->context.device = dev;
	v->context.cmd_fd = -1;
	v->context.async_fd = -1;
	v->context.num_comp_vectors = 1;
	v->context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	v->context.ops.poll_cq = fake_poll_cq;
	v->context.ops.req_notify_cq = fake_req_notify;
	v->context.ops.post_send = fake_post_send;
	v->context.ops.post_recv = fake_post_recv;
	return &v->context;
}

int
ibv_close_device(struct ibv_context *c)
{
	(void)c;
	return 0;
}

int
ibv_query_device(struct ibv_context *c, struct ibv_device_attr *a)
{
	(void)c;
	memset(a, 0, sizeof(*a));
	strcpy(a->fw_ver, "0.0");
	a->max_mr_size = ~0ull;
	a->page_size_cap = 4096;
	a->max_qp = 4096;
	a->max_qp_wr = 16384;
	a->max_sge = 16;
	a->max_cq = 4096;
	a->max_cqe = FAKE_CQ_SIZE - 1;
	a->max_mr = 4096;
	a->max_pd = 4096;
	a->max_qp_rd_atom = 128;
	a->max_qp_init_rd_atom = 128;
	a->phys_port_cnt = 1;
	return 0;
}

int
ibv_query_port(struct ibv_context *c, uint8_t port,
	       struct _compat_ibv_port_attr *attr)
{
	struct ibv_port_attr *a = (struct ibv_port_attr *)attr;
	const char *mtu = getenv("FAKE_MTU");

	(void)c;
	(void)port;
	memset(a, 0, sizeof(*a));
	a->state = IBV_PORT_ACTIVE;
	a->max_mtu = IBV_MTU_4096;
	a->active_mtu = mtu != NULL ? (enum ibv_mtu)atoi(mtu) : IBV_MTU_1024;
	a->gid_tbl_len = 2;
	a->max_msg_sz = 1u << 31;
	a->pkey_tbl_len = 1;
	a->link_layer = IBV_LINK_LAYER_ETHERNET;
	a->active_width = 1;
	a->active_speed = 1;
	return 0;
}

/* GID 0: a link-local IPv6; GID 1: ::ffff:FAKE_IP (RoCEv2). */
static void
fake_gid(uint32_t index, union ibv_gid *gid)
{
	const char *ip = getenv("FAKE_IP");

	memset(gid, 0, sizeof(*gid));
	if (index == 0) {
		gid->raw[0] = 0xfe;
		gid->raw[1] = 0x80;
		gid->raw[15] = 1;
		return;
	}
	gid->raw[10] = 0xff;
	gid->raw[11] = 0xff;
	inet_pton(AF_INET, ip != NULL ? ip : "10.9.9.9", &gid->raw[12]);
}

int
ibv_query_gid(struct ibv_context *c, uint8_t port, int index,
	      union ibv_gid *gid)
{
	(void)c;
	(void)port;
	if (index < 0 || index > 1)
		return -1;
	fake_gid((uint32_t)index, gid);
	return 0;
}

int
_ibv_query_gid_ex(struct ibv_context *c, uint32_t port, uint32_t index,
		  struct ibv_gid_entry *e, uint32_t flags, size_t size)
{
	(void)c;
	(void)flags;
	(void)size;
	if (index > 1)
		return EINVAL;
	memset(e, 0, sizeof(*e));
	fake_gid(index, &e->gid);
	e->gid_index = index;
	e->port_num = port;
	e->gid_type = IBV_GID_TYPE_ROCE_V2;
	return 0;
}

int
ibv_query_pkey(struct ibv_context *c, uint8_t port, int index, __be16 *pkey)
{
	(void)c;
	(void)port;
	(void)index;
	*pkey = 0xffff;
	return 0;
}

struct ibv_pd *
ibv_alloc_pd(struct ibv_context *c)
{
	struct ibv_pd *pd = calloc(1, sizeof(*pd));

	if (pd != NULL)
		pd->context = c;
	return pd;
}

int
ibv_dealloc_pd(struct ibv_pd *pd)
{
	free(pd);
	return 0;
}

static struct ibv_mr *
fake_mr(struct ibv_pd *pd, void *addr, size_t len)
{
	struct ibv_mr *mr = calloc(1, sizeof(*mr));

	if (mr == NULL)
		return NULL;
	mr->context = pd->context;
	mr->pd = pd;
	mr->addr = addr;
	mr->length = len;
	mr->lkey = mr->rkey = fake_next_key++;
	return mr;
}

struct ibv_mr *
ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t len, int access)
{
	(void)access;
	return fake_mr(pd, addr, len);
}

struct ibv_mr *
ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t len, uint64_t iova,
		 unsigned int access)
{
	(void)iova;
	(void)access;
	return fake_mr(pd, addr, len);
}

int
ibv_dereg_mr(struct ibv_mr *mr)
{
	free(mr);
	return 0;
}

struct ibv_comp_channel *
ibv_create_comp_channel(struct ibv_context *c)
{
	struct ibv_comp_channel *ch = calloc(1, sizeof(*ch));
	int fds[2];

	if (ch == NULL || pipe(fds) != 0) {
		free(ch);
		return NULL;
	}
	ch->fd = fds[0];
	ch->context = c;
	return ch;
}

int
ibv_destroy_comp_channel(struct ibv_comp_channel *ch)
{
	free(ch);
	return 0;
}

struct ibv_cq *
ibv_create_cq(struct ibv_context *c, int cqe, void *cq_context,
	      struct ibv_comp_channel *ch, int vector)
{
	struct fake_cq *q = calloc(1, sizeof(*q));

	(void)vector;
	if (q == NULL)
		return NULL;
	q->cq.context = c;
	q->cq.cqe = cqe;
	q->cq.cq_context = cq_context;
	q->cq.channel = ch;
	return &q->cq;
}

int
ibv_destroy_cq(struct ibv_cq *cq)
{
	free(cq);
	return 0;
}

int
ibv_get_cq_event(struct ibv_comp_channel *ch, struct ibv_cq **cq, void **ctx)
{
	(void)ch;
	(void)cq;
	(void)ctx;
	return -1;
}

void
ibv_ack_cq_events(struct ibv_cq *cq, unsigned int n)
{
	(void)cq;
	(void)n;
}

struct ibv_qp *
ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *a)
{
	struct ibv_qp *qp = calloc(1, sizeof(*qp));

	if (qp == NULL)
		return NULL;
	qp->context = pd->context;
	qp->pd = pd;
	qp->send_cq = a->send_cq;
	qp->recv_cq = a->recv_cq;
	qp->srq = a->srq;
	qp->qp_type = a->qp_type;
	qp->qp_context = a->qp_context;
	qp->qp_num = fake_next_qpn++;
	qp->state = IBV_QPS_RESET;
	return qp;
}

int
ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask)
{
	if (mask & IBV_QP_STATE)
		qp->state = a->qp_state;
	return 0;
}

int
ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask,
	     struct ibv_qp_init_attr *init)
{
	(void)mask;
	memset(a, 0, sizeof(*a));
	a->qp_state = qp->state;
	if (init != NULL)
		memset(init, 0, sizeof(*init));
	return 0;
}

int
ibv_destroy_qp(struct ibv_qp *qp)
{
	free(qp);
	return 0;
}

/* No new post-send API: run perftest with --use_old_post_send. */
struct ibv_qp_ex *
ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	(void)qp;
	return NULL;
}
