/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * swroce: its counters (SWR_XSTATS, swroce_xstats.h) as NDK extended
 * counters and as the generic struct ndk_adapter_stats. Control path only:
 * the pollers increment plain fields of struct swr_stats (SWR_STAT()).
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_string_fns.h>

#include "swroce_adapter.h"
#include "swroce_xstats.h"

static const struct {
	const char *name;
	const char *desc;
} swr_xstat_tbl[] = {
#define SWR_XSTAT_ENTRY_(f, d) { #f, d },
	SWR_XSTATS(SWR_XSTAT_ENTRY_)
#undef SWR_XSTAT_ENTRY_
};

#define SWR_N_XSTATS RTE_DIM(swr_xstat_tbl)

/* swr_xstats_fill() and swr_stats_sum() read struct swr_stats as an array. */
static_assert(sizeof(struct swr_stats) == SWR_N_XSTATS * sizeof(uint64_t),
	      "struct swr_stats is one uint64_t per SWR_XSTATS entry");

void
swr_stats_generic(const struct swr_stats *s, struct ndk_adapter_stats *out)
{
	memset(out, 0, sizeof(*out));
	out->rx_packets = s->rx_packets;
	out->rx_bytes = s->rx_bytes;
	out->tx_packets = s->tx_packets;
	out->tx_bytes = s->tx_bytes;
	out->rx_errors = s->rx_truncated + s->rx_bad_header +
		s->rx_bad_opcode + s->rx_icrc_errors + s->rx_bad_length;
	out->rx_dropped = s->rx_not_roce + s->rx_wrong_address +
		s->rx_unknown_qpn + s->rx_qp_state + s->rx_ghost_resp +
		s->rx_steer_drops;
	out->tx_errors = s->mbuf_alloc_fail + s->neigh_pending_drops;
	out->retransmits = s->retransmit_packets;
}

int
swr_xstats_fill(const struct swr_stats *s, struct ndk_xstat *values,
		unsigned int n)
{
	const uint64_t *v = (const uint64_t *)s;

	if (n < SWR_N_XSTATS)
		return (int)SWR_N_XSTATS;
	for (unsigned int i = 0; i < SWR_N_XSTATS; i++) {
		values[i].id = i;
		values[i].value = v[i];
	}
	return (int)SWR_N_XSTATS;
}

int
swr_xstats_get_names(struct ndk_adapter *adapter,
		     struct ndk_xstat_name *names, unsigned int n)
{
	RTE_SET_USED(adapter);
	if (n < SWR_N_XSTATS)
		return (int)SWR_N_XSTATS;
	for (unsigned int i = 0; i < SWR_N_XSTATS; i++) {
		strlcpy(names[i].name, swr_xstat_tbl[i].name,
			sizeof(names[i].name));
		strlcpy(names[i].desc, swr_xstat_tbl[i].desc,
			sizeof(names[i].desc));
	}
	return (int)SWR_N_XSTATS;
}

int
swr_xstats_get(struct ndk_adapter *adapter, struct ndk_xstat *values,
	       unsigned int n)
{
	struct swr_stats s;

	if (n < SWR_N_XSTATS)
		return (int)SWR_N_XSTATS;
	swr_stats_sum(swr_adapter_of(adapter), &s);
	return swr_xstats_fill(&s, values, n);
}

int
swr_queue_xstats_get(struct ndk_adapter *adapter, uint16_t queue,
		     struct ndk_xstat *values, unsigned int n)
{
	const struct swr_adapter *ad = swr_adapter_of(adapter);

	if (queue >= ad->nb_queues)
		return -EINVAL;
	return swr_xstats_fill(&ad->q[queue].stats, values, n);
}
