/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_TEST_H
#define NDK_TEST_H

/**
 * @file
 * Minimal test harness shared by every suite: a table of named cases per
 * executable, assertion macros, EAL start-up that works with or without
 * hugepages, and a closing "N passed, N failed" line.
 */

#include <stdio.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A test case: returns 0 on success, -1 on failure, 1 when skipped. */
struct ndk_test_case {
	const char *name;
	int (*fn)(void);
};

#define NDK_TEST_SKIPPED 1

/** Fail the current case with a message (file:line prefixed). */
#define TEST_FAIL(fmt, ...) do { \
	fprintf(stderr, "  FAIL %s:%d: " fmt "\n", __FILE__, __LINE__, \
		##__VA_ARGS__); \
	return -1; \
} while (0)

/** Fail unless @p cond holds. */
#define TEST_ASSERT(cond, fmt, ...) do { \
	if (!(cond)) \
		TEST_FAIL("(%s) " fmt, #cond, ##__VA_ARGS__); \
} while (0)

/** Fail unless two integers are equal (printed in hex and decimal). */
#define TEST_ASSERT_EQ(a, b, fmt, ...) do { \
	long long a_ = (long long)(a), b_ = (long long)(b); \
	if (a_ != b_) \
		TEST_FAIL("%s == %s: 0x%llx (%lld) != 0x%llx (%lld); " fmt, \
			  #a, #b, a_, a_, b_, b_, ##__VA_ARGS__); \
} while (0)

/**
 * Start the EAL for a test program.
 * @param name    unique per executable (used for the file prefix).
 * @param lcores  "-l" list, e.g. "0" or "0-1", or a "--lcores" map when it
 *                has an "@", e.g. "(0-2)@(0-1)".
 * @param extra   NULL-terminated extra arguments (e.g. --vdev), or NULL.
 * Uses --in-memory hugepages when at least 256 free 2 MB pages exist,
 * otherwise --no-huge -m 1024 with a per-process file prefix.
 * @return 0 or -1 (message printed).
 */
int ndk_test_eal_init(const char *name, const char *lcores,
		      const char *const *extra);

/**
 * Run the cases whose name contains argv[1] (all when absent), print one
 * line per case and the closing "N passed, N failed, N skipped" line.
 * @return process exit status: 0 when nothing failed.
 */
int ndk_test_run(const char *suite, const struct ndk_test_case *cases,
		 unsigned int n, int argc, char **argv);

/**
 * Fail the running case when it returns, whatever it returns: for helpers
 * that cannot return a failure (after printing why, with "  FAIL").
 */
void ndk_test_fail_later(void);

/** Source directory of the project's test data (test/data). */
const char *ndk_test_data_dir(void);

#ifdef __cplusplus
}
#endif

#endif /* NDK_TEST_H */
