/* SPDX-License-Identifier: BSD-3-Clause */

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "fuzz_common.h"
#include "ndk_roce.h"

void
fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "FUZZ CHECK FAILED %s:%d: (%s) ", file, line, cond);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

static char rundir[512];

/* At exit: the EAL's memory, then its (empty: --no-shconf) runtime
 * directory, so that runs leave nothing in /var/run/dpdk. */
static void
fuzz_eal_fini(void)
{
	rte_eal_cleanup();
	if (rundir[0] != '\0')
		rmdir(rundir);
}

int
fuzz_eal_init(const char *name, const char *lcores)
{
	static bool started;
	static char prefix[64];
	const char *log = getenv("NDK_FUZZ_LOG");
	char level[64];
	const char *argv[16];
	int argc = 0;

	if (started)
		return 0;
	snprintf(prefix, sizeof(prefix), "--file-prefix=fuzz-%s-%d", name,
		 (int)getpid());
	snprintf(level, sizeof(level), "--log-level=%s",
		 log != NULL ? log : "error");
	argv[argc++] = name;
	argv[argc++] = "-l";
	argv[argc++] = lcores;
	argv[argc++] = "--no-pci";
	argv[argc++] = "--no-huge";
	argv[argc++] = "-m";
	argv[argc++] = "512";
	/* No runtime files: nothing stays behind when a run is killed. */
	argv[argc++] = "--no-shconf";
	argv[argc++] = "--no-telemetry";
	argv[argc++] = prefix;
	argv[argc++] = level;
	argv[argc] = NULL;
	if (rte_eal_init(argc, (char **)(uintptr_t)argv) < 0) {
		fprintf(stderr, "%s: rte_eal_init failed\n", name);
		return -1;
	}
	started = true;
	snprintf(rundir, sizeof(rundir), "%s", rte_eal_get_runtime_dir());
	atexit(fuzz_eal_fini);
	return 0;
}

struct rte_mempool *
fuzz_pool(void)
{
	static struct rte_mempool *mp;

	if (mp == NULL)
		mp = rte_pktmbuf_pool_create("fuzz_pool", 1023, 0, 0,
					     FUZZ_MBUF_ROOM, SOCKET_ID_ANY);
	FUZZ_CHECK(mp != NULL, "rte_pktmbuf_pool_create: %d", rte_errno);
	return mp;
}

struct rte_mbuf *
fuzz_mbuf(const uint8_t *data, size_t len, size_t seg0, size_t seg1)
{
	struct rte_mbuf *head = NULL;
	size_t cut[3];
	size_t off = 0;

	if (seg0 == 0 || seg0 >= len) {
		cut[0] = len;
		cut[1] = cut[2] = 0;
	} else {
		cut[0] = seg0;
		cut[1] = RTE_MIN(seg1, len - seg0);
		cut[2] = len - seg0 - cut[1];
	}
	for (int i = 0; i < 3; i++) {
		struct rte_mbuf *m;
		char *p;

		if (i > 0 && cut[i] == 0)
			continue;
		m = rte_pktmbuf_alloc(fuzz_pool());
		if (m == NULL)
			goto fail;
		p = rte_pktmbuf_append(m, (uint16_t)cut[i]);
		if (cut[i] > UINT16_MAX || (p == NULL && cut[i] != 0)) {
			rte_pktmbuf_free(m);
			goto fail;
		}
		if (cut[i] != 0)
			memcpy(p, data + off, cut[i]);
		off += cut[i];
		if (head == NULL)
			head = m;
		else if (rte_pktmbuf_chain(head, m) != 0) {
			rte_pktmbuf_free(m);
			goto fail;
		}
	}
	return head;
fail:
	rte_pktmbuf_free(head);
	return NULL;
}

bool
fuzz_fix_icrc(uint8_t *frame, size_t len)
{
	struct ndk_roce_pkt p;
	struct rte_mbuf *m = fuzz_mbuf(frame, len, 0, 0);
	uint32_t icrc_off, icrc;
	bool ok = false;

	if (m == NULL)
		return false;
	if (ndk_roce_parse(m, &p, false) == NDK_ROCE_PARSE_OK) {
		icrc_off = p.payload_off + p.payload_len + p.padcnt;
		icrc = ndk_roce_icrc_buf(frame + p.l3_off, icrc_off - p.l3_off);
		for (int i = 0; i < 4; i++)
			frame[icrc_off + i] = (uint8_t)(icrc >> (8 * i));
		ok = true;
	}
	rte_pktmbuf_free(m);
	return ok;
}

uint32_t
fuzz_take(const uint8_t **d, size_t *len, unsigned int n)
{
	uint32_t v = 0;

	for (unsigned int i = 0; i < n && *len > 0; i++) {
		v |= (uint32_t)**d << (8 * i);
		(*d)++;
		(*len)--;
	}
	return v;
}
