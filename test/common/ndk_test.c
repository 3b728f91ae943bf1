/* SPDX-License-Identifier: BSD-3-Clause */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>

#include "ndk_test.h"

static unsigned int
free_hugepages(void)
{
	FILE *f = fopen("/sys/kernel/mm/hugepages/hugepages-2048kB/"
			"free_hugepages", "r");
	unsigned int n = 0;

	if (f == NULL)
		return 0;
	if (fscanf(f, "%u", &n) != 1)
		n = 0;
	fclose(f);
	return n;
}

int
ndk_test_eal_init(const char *name, const char *lcores,
		  const char *const *extra)
{
	static char prefix[64];
	const char *argv[64];
	int argc = 0;

	argv[argc++] = name;
	/* "(0-2)@(0-1)": an lcore map (more lcores than CPUs). */
	argv[argc++] = strchr(lcores, '@') != NULL ? "--lcores" : "-l";
	argv[argc++] = lcores;
	argv[argc++] = "--no-pci";
	argv[argc++] = "--log-level=lib.eal:error";
	argv[argc++] = "--log-level=ndk:info";
	if (free_hugepages() >= 256 && getenv("NDK_TEST_NO_HUGE") == NULL) {
		argv[argc++] = "--in-memory";
	} else {
		snprintf(prefix, sizeof(prefix), "--file-prefix=%s-%d", name,
			 (int)getpid());
		argv[argc++] = "--no-huge";
		argv[argc++] = "-m";
		argv[argc++] = "1024";
		argv[argc++] = prefix;
	}
	for (unsigned int i = 0; extra != NULL && extra[i] != NULL &&
	     argc < 63; i++)
		argv[argc++] = extra[i];
	argv[argc] = NULL;

	if (rte_eal_init(argc, (char **)(uintptr_t)argv) < 0) {
		fprintf(stderr, "%s: rte_eal_init failed\n", name);
		return -1;
	}
	return 0;
}

/* Set by ndk_test_fail_later() during the running case. */
static bool case_failed;

void
ndk_test_fail_later(void)
{
	case_failed = true;
}

int
ndk_test_run(const char *suite, const struct ndk_test_case *cases,
	     unsigned int n, int argc, char **argv)
{
	const char *filter = argc > 1 ? argv[1] : NULL;
	unsigned int passed = 0, failed = 0, skipped = 0;

	for (unsigned int i = 0; i < n; i++) {
		uint64_t t0;
		int rc;

		if (filter != NULL && strstr(cases[i].name, filter) == NULL)
			continue;
		printf("[ RUN  ] %s.%s\n", suite, cases[i].name);
		fflush(stdout);
		t0 = rte_get_tsc_cycles();
		case_failed = false;
		rc = cases[i].fn();
		if (case_failed)
			rc = -1;
		printf("[ %s ] %s.%s (%.1f ms)\n",
		       rc == 0 ? " OK " : rc > 0 ? "SKIP" : "FAIL", suite,
		       cases[i].name,
		       (double)(rte_get_tsc_cycles() - t0) * 1e3 /
		       (double)rte_get_tsc_hz());
		fflush(stdout);
		if (rc == 0)
			passed++;
		else if (rc > 0)
			skipped++;
		else
			failed++;
	}
	printf("%s: %u passed, %u failed, %u skipped\n", suite, passed, failed,
	       skipped);
	return failed == 0 ? 0 : 1;
}

const char *
ndk_test_data_dir(void)
{
	const char *d = getenv("NDK_TEST_DATA");

	return d != NULL ? d : NDK_TEST_DATA_DIR;
}
