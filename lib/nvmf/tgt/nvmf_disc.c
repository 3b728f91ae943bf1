/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 ndk-roce authors
 */

/*
 * The discovery log page (NVMe-oF 1.1, 5.3): one entry per listener and
 * NVM subsystem the asking host may connect to, RDMA over IPv4, RDMA CM.
 */

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "nvmf_tgt_int.h"

static void
nvmf_disc_text(char *dst, size_t n, const char *src)
{
	size_t l = strnlen(src, n);

	memset(dst, ' ', n);
	memcpy(dst, src, l);
}

size_t
nvmf_disc_log(struct ndk_nvmf_tgt *tgt, const char *hostnqn, uint8_t *buf,
	      size_t size)
{
	struct nvmf_disc_log_hdr *h = (struct nvmf_disc_log_hdr *)buf;
	struct nvmf_disc_entry *e = (struct nvmf_disc_entry *)(h + 1);
	size_t max = (size - sizeof(*h)) / sizeof(*e);
	uint64_t n = 0;

	memset(h, 0, sizeof(*h));
	for (uint32_t l = 0; l < tgt->nlisteners; l++) {
		const struct nvmf_listener *li = &tgt->listeners[l];
		char addr[INET_ADDRSTRLEN], port[8];

		inet_ntop(AF_INET, &li->ipv4, addr, sizeof(addr));
		snprintf(port, sizeof(port), "%u", li->port);
		for (uint32_t i = 0; i < NVMF_MAX_SUBSYS && n < max; i++) {
			const struct ndk_nvmf_subsystem *s = &tgt->subsys[i];

			if (!s->used || s->discovery ||
			    !nvmf_subsys_host_allowed(s, hostnqn))
				continue;
			memset(e, 0, sizeof(*e));
			e->trtype = NVMF_TRTYPE_RDMA;
			e->adrfam = NVMF_ADRFAM_IPV4;
			e->subtype = NVMF_SUBTYPE_NVME;
			e->treq = NVMF_TREQ_NOT_SPECIFIED;
			e->portid = (uint16_t)(l + 1);
			e->cntlid = NVMF_CNTLID_DYNAMIC;
			e->asqsz = NVMF_ADMIN_DEPTH;
			nvmf_disc_text(e->trsvcid, sizeof(e->trsvcid), port);
			snprintf(e->subnqn, sizeof(e->subnqn), "%s", s->nqn);
			nvmf_disc_text(e->traddr, sizeof(e->traddr), addr);
			e->tsas.qptype = NVMF_RDMA_QPTYPE_CONNECTED;
			e->tsas.prtype = NVMF_RDMA_PRTYPE_NOT_SPECIFIED;
			e->tsas.cms = NVMF_RDMA_CMS_RDMA_CM;
			e++;
			n++;
		}
	}
	h->genctr = tgt->genctr;
	h->numrec = n;
	h->recfmt = 0;
	return sizeof(*h) + n * sizeof(*e);
}
