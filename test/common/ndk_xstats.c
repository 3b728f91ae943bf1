/* SPDX-License-Identifier: BSD-3-Clause */

/* Tests' access to the provider's counters by name (ndk_xstats.h). */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include "ndk_pair.h"
#include "ndk_test.h"
#include "ndk_xstats.h"

/* The names of the last snapshot (every adapter of a test has the same). */
static struct ndk_xstat_name xs_names[NDK_TEST_XSTATS_MAX];
static unsigned int xs_n_names;

static int
xs_fail(const char *what, int rc)
{
	printf("  FAIL: %s: %d\n", what, rc);
	ndk_test_fail_later();
	return -1;
}

/* Read the names, then the values (of @p queue, or all if negative). */
static int
xs_read(struct ndk_adapter *a, int queue, struct ndk_test_xstats *s)
{
	struct ndk_xstat v[NDK_TEST_XSTATS_MAX];
	int n, k;

	memset(s, 0, sizeof(*s));
	if (a == NULL)
		return 0;
	n = ndk_adapter_xstats_get_names(a, xs_names, NDK_TEST_XSTATS_MAX);
	if (n < 0 || n > NDK_TEST_XSTATS_MAX)
		return xs_fail("ndk_adapter_xstats_get_names", n);
	xs_n_names = (unsigned int)n;
	k = queue < 0 ? ndk_adapter_xstats_get(a, v, NDK_TEST_XSTATS_MAX) :
		ndk_adapter_queue_xstats_get(a, (uint16_t)queue, v,
					     NDK_TEST_XSTATS_MAX);
	if (k != n)
		return xs_fail("ndk_adapter_xstats_get", k);
	for (int i = 0; i < n; i++)
		s->v[i] = v[i].value;
	s->n = (unsigned int)n;
	return 0;
}

int
ndk_test_xstats_read(struct ndk_adapter *a, struct ndk_test_xstats *s)
{
	return xs_read(a, -1, s);
}

int
ndk_test_queue_xstats_read(struct ndk_adapter *a, uint16_t queue,
			   struct ndk_test_xstats *s)
{
	return xs_read(a, queue, s);
}

uint64_t
ndk_test_xstats_val(const struct ndk_test_xstats *s, const char *name)
{
	for (unsigned int i = 0; i < xs_n_names; i++)
		if (strcmp(xs_names[i].name, name) == 0)
			return i < s->n ? s->v[i] : 0;
	printf("  FAIL: no counter named \"%s\"\n", name);
	ndk_test_fail_later();
	return UINT64_MAX;
}

uint64_t
ndk_test_xstat(struct ndk_adapter *a, const char *name)
{
	struct ndk_test_xstats s;

	ndk_test_xstats_read(a, &s);
	return ndk_test_xstats_val(&s, name);
}

uint64_t
ndk_test_queue_xstat(struct ndk_adapter *a, uint16_t queue, const char *name)
{
	struct ndk_test_xstats s;

	ndk_test_queue_xstats_read(a, queue, &s);
	return ndk_test_xstats_val(&s, name);
}

const char *
ndk_test_xstat_name(unsigned int i)
{
	return i < xs_n_names ? xs_names[i].name : "";
}

const char *
ndk_test_xstat_desc(unsigned int i)
{
	return i < xs_n_names ? xs_names[i].desc : "";
}

void
ndk_pair_stats(const struct ndk_pair *pair, int side,
	       struct ndk_test_xstats *stats)
{
	ndk_test_xstats_read(pair->ad[side], stats);
}

uint64_t
ndk_pair_xstat(const struct ndk_pair *pair, int side, const char *name)
{
	struct ndk_test_xstats st;

	ndk_pair_stats(pair, side, &st);
	return ndk_test_xstats_val(&st, name);
}
