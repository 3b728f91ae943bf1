/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Fuzz target: the daemon's side of the attach protocol (app/ndk-roced/
 * roced_attach*.c, drivers/attach/include/ndk_attach_proto.h): requests as
 * an attached application sends them over rte_mp, handled by
 * roced_attach_handle() exactly as the daemon's rte_mp action does.
 *
 * The daemon's own start-up runs once: its configuration parser on a
 * built-in file (one net_ring port, no hugepages, one lcore: this thread
 * polls the port), roced_ports_start(), roced_attach_start(). Each input
 * is one application's life: a HELLO made here, the requests the input
 * describes, then BYE. After BYE the daemon must hold nothing of it: no
 * application slot, no object entry.
 *
 * Input: one byte (the HELLO's event slots, 16 << (b & 7)), then records:
 *   op byte: the request code (op % (NDK_ATT_OP_MAX + 2): unknown codes
 *            too); bit 7: the header comes from the input as well
 *            (16 bytes: op, version, len, pid, app low 32 bits), else it
 *            is the right one;
 *   body:    as many bytes as the code's body (1 length byte first for
 *            an unknown code), zero-padded at the end of the input.
 * Handles: a 64-bit body field whose top byte is 0xA5 becomes the handle
 * of an object made earlier (low byte: which); top byte 0xA6, a buffer
 * of the application's heap (low byte: which, bytes 1-2: an offset); so
 * requests reach the handlers with real objects, as a misbehaving but
 * attached application's would.
 */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_log.h>

#include "fuzz_common.h"
#include "roced.h"
#include "roced_attach.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The daemon's log type (roced_main.c registers it in ndk-roced). */
int roced_logtype;

#define PEER "fuzz-attach-peer"
#define MAX_KEPT 64

static struct roced_config cfg;
static struct roced_ports ports;
static struct roced_attach *att;
static char port_name[RTE_ETH_NAME_MAX_LEN];
static char rundir[512];

static void
fuzz_attach_fini(void)
{
	roced_attach_stop(att);
	roced_ports_stop_polling(&ports);
	roced_ports_close(&ports);
	rte_eal_cleanup();
	roced_config_free(&cfg);
	/* The runtime directory of this process's prefix. */
	if (rundir[0] != '\0') {
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", rundir);
		if (system(cmd) != 0)
			fprintf(stderr, "fuzz_attach: cannot remove %s\n",
				rundir);
	}
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char conf[1024], path[64];
	char *av[4];
	int fd, n;

	(void)argc;
	(void)argv;
	n = snprintf(conf, sizeof(conf),
		"[eal]\nlcores = 0\nhugepages = no\nmemory = 256\n"
		"file-prefix = fuzz-attach-%d\nargs = --no-pci\n"
		"[daemon]\ntelemetry = off\nlinger-ms = 0\n"
		"[echo]\nenabled = no\n[attach]\nheap-mb = 2\n"
		"[limits]\nmax-qp = 64\nmax-cq = 64\nmax-mr = 64\n"
		"[port r0]\ndevice = net_ring0\nip = 10.2.0.1/16\n"
		"mtu = 1024\n", (int)getpid());
	fd = memfd_create("fuzz-attach.conf", 0);
	FUZZ_CHECK(fd >= 0 && write(fd, conf, (size_t)n) == n, "memfd");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	av[0] = (char *)"ndk-roced";
	av[1] = (char *)"-f";
	av[2] = path;
	av[3] = NULL;
	roced_config_parse(3, av, &cfg);
	close(fd);
	FUZZ_CHECK(rte_eal_init(cfg.eal_argc, cfg.eal_argv) >= 0,
		   "rte_eal_init");
	snprintf(rundir, sizeof(rundir), "%s", rte_eal_get_runtime_dir());
	/* Refusals are what the inputs are made of: logs only on demand. */
	if (getenv("NDK_FUZZ_LOG") == NULL)
		rte_log_set_global_level(RTE_LOG_CRIT);
	FUZZ_CHECK(roced_ports_start(&cfg, &ports) == 0, "roced_ports_start");
	FUZZ_CHECK(rte_eth_dev_get_name_by_port(ports.port[0].port_id,
						port_name) == 0, "port name");
	FUZZ_CHECK(roced_attach_start(&cfg, &ports, &att) == 0,
		   "roced_attach_start");
	atexit(fuzz_attach_fini);
	return 0;
}

struct kept {
	uint64_t handle[MAX_KEPT];
	unsigned int n_handle;
	uint64_t buf[MAX_KEPT];
	unsigned int n_buf;
};

static void
substitute(uint8_t *body, uint32_t len, const struct kept *k)
{
	for (uint32_t off = 0; off + 8 <= len; off += 4) {
		uint64_t v;

		memcpy(&v, body + off, 8);
		if ((v >> 56) == 0xA5 && k->n_handle != 0)
			v = k->handle[(v & 0xff) % k->n_handle];
		else if ((v >> 56) == 0xA6 && k->n_buf != 0)
			v = k->buf[(v & 0xff) % k->n_buf] + ((v >> 8) & 0xffff);
		else
			continue;
		memcpy(body + off, &v, 8);
	}
}

static void
keep(const struct ndk_attach_rep *rp, struct kept *k)
{
	uint64_t h = 0, b = 0;

	if (rp->hdr.status != NDK_STATUS_SUCCESS)
		return;
	/* Every request that makes an object but a QP answers new_obj. */
	if (rp->hdr.len == sizeof(rp->hdr) + sizeof(rp->new_obj))
		h = rp->new_obj.handle;
	else if (rp->hdr.op == NDK_ATT_CREATE_QP)
		h = rp->create_qp.handle;
	else if (rp->hdr.op == NDK_ATT_ALLOC)
		b = rp->alloc.va;
	if (h != 0 && k->n_handle < MAX_KEPT)
		k->handle[k->n_handle++] = h;
	if (b != 0 && k->n_buf < MAX_KEPT)
		k->buf[k->n_buf++] = b;
}

static struct ndk_attach_rep *
request(struct rte_mp_msg *msg)
{
	static struct ndk_attach_rep rp;
	uint32_t len;

	len = roced_attach_handle(att, msg, PEER, &rp);
	FUZZ_CHECK(len >= sizeof(rp.hdr) && len <= sizeof(rp),
		   "reply of %u bytes to request %u", len, rp.hdr.op);
	/* CM steps and closes finish while the port is polled. */
	for (int i = 0; i < 4; i++)
		roced_ports_poll(&ports);
	roced_attach_run(att);
	return &rp;
}

static void
put_hdr(struct rte_mp_msg *msg, uint16_t op, uint32_t len, uint64_t app)
{
	struct ndk_attach_req_hdr h = {
		.op = op, .version = NDK_ATTACH_VERSION, .len = len,
		.pid = (int32_t)getpid(), .app = app,
	};

	memcpy(msg->param, &h, sizeof(h));
	msg->len_param = (int)len;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rte_mp_msg msg;
	struct ndk_attach_req_hdr *hdr = (void *)msg.param;
	const size_t hlen = sizeof(struct ndk_attach_req_hdr);
	struct ndk_attach_req *rq = (void *)msg.param;
	struct ndk_attach_rep *rp;
	struct kept k = { .n_handle = 0 };
	uint64_t app;
	uint32_t slots;

	slots = 16u << (fuzz_take(&data, &size, 1) & 7);
	memset(&msg, 0, sizeof(msg));
	snprintf(msg.name, sizeof(msg.name), "%s", NDK_ATTACH_MP_NAME);
	put_hdr(&msg, NDK_ATT_HELLO, ndk_attach_req_len(NDK_ATT_HELLO), 0);
	snprintf(rq->hello.name, sizeof(rq->hello.name), "%s", port_name);
	rq->hello.ev_slots = slots;
	rp = request(&msg);
	FUZZ_CHECK(rp->hdr.status == NDK_STATUS_SUCCESS, "HELLO: 0x%x",
		   (unsigned int)rp->hdr.status);
	app = rp->hello.app;

	while (size > 0) {
		uint32_t b = fuzz_take(&data, &size, 1);
		uint16_t op = (uint16_t)((b & 0x7f) % (NDK_ATT_OP_MAX + 2));
		uint32_t len = ndk_attach_req_len(op), blen;

		if (op == NDK_ATT_BYE || op == NDK_ATT_HELLO)
			continue;   /* the life's first and last are ours */
		memset(msg.param, 0, sizeof(msg.param));
		blen = len != 0 ? len - (uint32_t)hlen :
			fuzz_take(&data, &size, 1) %
			(uint32_t)(sizeof(*rq) - hlen + 1);
		put_hdr(&msg, op, (uint32_t)hlen + blen, app);
		if (b & 0x80) {
			hdr->op = (uint16_t)fuzz_take(&data, &size, 2);
			hdr->version = (uint16_t)fuzz_take(&data, &size, 2);
			hdr->len = fuzz_take(&data, &size, 4);
			hdr->pid = (int32_t)fuzz_take(&data, &size, 4);
			hdr->app = app ^ fuzz_take(&data, &size, 4);
			/* Also a length of the message itself that lies. */
			msg.len_param = (int)(fuzz_take(&data, &size, 2) %
					      (sizeof(msg.param) + 1));
			if (hdr->op == NDK_ATT_BYE || hdr->op == NDK_ATT_HELLO)
				continue;
		}
		for (uint32_t i = 0; i < blen; i++)
			msg.param[hlen + i] = (uint8_t)fuzz_take(&data, &size,
								 1);
		substitute(msg.param + hlen, blen, &k);
		keep(request(&msg), &k);
	}

	memset(msg.param, 0, sizeof(msg.param));
	put_hdr(&msg, NDK_ATT_BYE, ndk_attach_req_len(NDK_ATT_BYE), app);
	rp = request(&msg);
	FUZZ_CHECK(rp->hdr.status == NDK_STATUS_SUCCESS, "BYE: 0x%x",
		   (unsigned int)rp->hdr.status);
	for (unsigned int i = 0; i < ATT_MAX_APPS; i++)
		FUZZ_CHECK(att->apps[i].id == 0, "application slot %u kept "
			   "after BYE", i);
	for (unsigned int i = 0; i < ATT_MAX_OBJS; i++)
		FUZZ_CHECK(att->ent[i].type == 0, "object %u (type %u) kept "
			   "after BYE", i, att->ent[i].type);
	return 0;
}
