/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hello_ndk: the smallest complete embedding of ndk-roce, built out of
 * tree against the installed library alone (see Makefile:
 * `pkg-config --cflags --libs libndk`).
 *
 * One adapter on a loopback port (a net_ring vdev with no arguments sends
 * every frame back to itself), two QPs connected to each other by hand,
 * an RDMA WRITE from one buffer into the other and a SEND into a posted
 * receive, both checked byte for byte. The embedder's own thread polls the
 * adapter (ndk_adapter_poll()), as a storage target's lcore would.
 *
 *   hello_ndk -l 0 --no-pci --no-huge -m 256 --vdev=net_ring0
 *
 * Prints "hello_ndk: OK" and exits 0, or says what failed and exits 1.
 */

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_ethdev.h>

#include <ndk.h>

#define LEN 4096

struct side {
	struct ndk_qp *qp;
	struct ndk_mr *mr;
	uint8_t *buf;
};

static int
fail(const char *what, ndk_status_t st)
{
	fprintf(stderr, "hello_ndk: %s: %s\n", what, ndk_status_str(st));
	return 1;
}

/* Poll the adapter until one completion arrives on @p cq. */
static ndk_status_t
wait_one(struct ndk_adapter *ad, struct ndk_cq *cq, struct ndk_result *r)
{
	for (unsigned long i = 0; i < 100000000ul; i++) {
		ndk_adapter_poll(ad);
		if (ndk_get_cq_results(cq, r, 1) == 1)
			return r->status;
	}
	return NDK_STATUS_IO_TIMEOUT;
}

static ndk_status_t
side_open(struct ndk_adapter *ad, struct ndk_pd *pd, struct ndk_cq *cq,
	  struct side *s)
{
	ndk_status_t st;

	st = ndk_adapter_alloc_buffer(ad, LEN, 0, (void **)&s->buf);
	if (st == NDK_STATUS_SUCCESS)
		st = ndk_create_mr(pd, false, &s->mr);
	if (st == NDK_STATUS_SUCCESS)
		st = ndk_register_mr(s->mr, s->buf, LEN,
				     NDK_MR_FLAG_ALLOW_LOCAL_WRITE |
				     NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
	if (st == NDK_STATUS_SUCCESS)
		st = ndk_create_qp(pd, cq, cq, s, 4, 4, 1, 1, 0, &s->qp);
	return st;
}

int
main(int argc, char **argv)
{
	struct ndk_adapter_config cfg = {
		.configure_port = true,
		.mac = { 0x02, 0, 0, 0, 0, 1 },
		.socket_id = -1,
	};
	struct ndk_adapter *ad;
	struct ndk_pd *pd;
	struct ndk_cq *cq;
	struct side a = { 0 }, b = { 0 };
	struct ndk_qp_attr attr = { 0 };
	struct ndk_result r;
	struct ndk_sge sge;
	ndk_status_t st;
	uint16_t port;

	if (rte_eal_init(argc, argv) < 0 || rte_eth_dev_count_avail() == 0) {
		fprintf(stderr, "hello_ndk: no EAL or no port (give --vdev=net_ring0)\n");
		return 1;
	}
	RTE_ETH_FOREACH_DEV(port)
		break;
	cfg.port_id = port;
	cfg.ipv4 = htonl(0x0a000001);   /* 10.0.0.1: only ever talks to itself */

	st = ndk_adapter_open(&cfg, &ad);
	if (st != NDK_STATUS_SUCCESS)
		return fail("ndk_adapter_open", st);
	st = ndk_create_cq(ad, 16, NULL, NULL, &cq);
	if (st == NDK_STATUS_SUCCESS)
		st = ndk_create_pd(ad, &pd);
	if (st == NDK_STATUS_SUCCESS)
		st = side_open(ad, pd, cq, &a);
	if (st == NDK_STATUS_SUCCESS)
		st = side_open(ad, pd, cq, &b);
	if (st != NDK_STATUS_SUCCESS)
		return fail("creating objects", st);

	/* Each QP's peer is the other, at our own address and MAC. */
	attr.dest_ip = cfg.ipv4;
	memcpy(attr.dest_mac, cfg.mac, sizeof(attr.dest_mac));
	attr.dest_qpn = ndk_qp_num(b.qp);
	if ((st = ndk_qp_connect(a.qp, &attr)) != NDK_STATUS_SUCCESS)
		return fail("connecting QP a", st);
	attr.dest_qpn = ndk_qp_num(a.qp);
	if ((st = ndk_qp_connect(b.qp, &attr)) != NDK_STATUS_SUCCESS)
		return fail("connecting QP b", st);

	/* RDMA WRITE a's buffer into b's. */
	for (int i = 0; i < LEN; i++)
		a.buf[i] = (uint8_t)(i * 7 + 1);
	sge = (struct ndk_sge){ a.buf, LEN, ndk_mr_local_token(a.mr) };
	st = ndk_write(a.qp, &a, &sge, 1, (uintptr_t)b.buf,
		       ndk_mr_remote_token(b.mr), 0);
	if (st == NDK_STATUS_SUCCESS)
		st = wait_one(ad, cq, &r);
	if (st != NDK_STATUS_SUCCESS)
		return fail("RDMA WRITE", st);
	if (memcmp(a.buf, b.buf, LEN) != 0) {
		fprintf(stderr, "hello_ndk: RDMA WRITE placed wrong bytes\n");
		return 1;
	}

	/* SEND 64 bytes from b into a receive posted on a. */
	memset(a.buf, 0, LEN);
	memcpy(b.buf, "hello, ndk-roce", 16);
	sge = (struct ndk_sge){ a.buf, LEN, ndk_mr_local_token(a.mr) };
	st = ndk_receive(a.qp, &a, &sge, 1);
	sge = (struct ndk_sge){ b.buf, 64, ndk_mr_local_token(b.mr) };
	if (st == NDK_STATUS_SUCCESS)
		st = ndk_send(b.qp, &b, &sge, 1, 0);
	for (int n = 0; n < 2 && st == NDK_STATUS_SUCCESS; n++) {
		st = wait_one(ad, cq, &r);
		if (st == NDK_STATUS_SUCCESS && r.request_context == &a &&
		    r.bytes_transferred != 64)
			st = NDK_STATUS_UNSUCCESSFUL;
	}
	if (st != NDK_STATUS_SUCCESS)
		return fail("SEND", st);
	if (strcmp((char *)a.buf, "hello, ndk-roce") != 0) {
		fprintf(stderr, "hello_ndk: SEND delivered wrong bytes\n");
		return 1;
	}

	/* Closing the adapter closes what is still open (flushing QPs). */
	ndk_adapter_close(ad);
	rte_eal_cleanup();
	printf("hello_ndk: OK (RDMA WRITE %d B and SEND 64 B over %s)\n",
	       LEN, "a loopback port");
	return 0;
}
