/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Fuzz target: ndk-roced's configuration parser (app/ndk-roced/
 * roced_config.c), the whole of roced_config_parse() on
 * "ndk-roced -- -f FILE --check" with the input as FILE.
 *
 * A refusal ends the daemon with exit(2) (a message with file:line on
 * stderr) after releasing what the parse held: here exit() is wrapped
 * (-Wl,--wrap=exit) and jumps back while a parse runs, so a refusal that
 * leaves memory behind is a leak libFuzzer reports. Any other exit status
 * is a failure. An accepted file must give a file prefix and print.
 */

#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "roced.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

void __real_exit(int status) __attribute__((noreturn));
void __wrap_exit(int status) __attribute__((noreturn));

/* The daemon's log type, which roced_config.c's objects refer to. */
int roced_logtype;

static bool in_parse;
static jmp_buf back;
static int exit_status;
static FILE *devnull;

void
__wrap_exit(int status)
{
	if (in_parse) {
		exit_status = status;
		longjmp(back, 1);
	}
	__real_exit(status);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	devnull = fopen("/dev/null", "w");
	return devnull != NULL ? 0 : 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct roced_config cfg;
	char path[64];
	char *argv[6];
	int fd;

	fd = memfd_create("roced.conf", 0);
	FUZZ_CHECK(fd >= 0, "memfd_create");
	FUZZ_CHECK(write(fd, data, size) == (ssize_t)size, "write");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	argv[0] = (char *)"ndk-roced";
	argv[1] = (char *)"--";
	argv[2] = (char *)"-f";
	argv[3] = path;
	argv[4] = (char *)"--check";
	argv[5] = NULL;

	exit_status = -1;
	in_parse = true;
	if (setjmp(back) == 0) {
		roced_config_parse(5, argv, &cfg);
		in_parse = false;
		FUZZ_CHECK(roced_config_file_prefix(&cfg) != NULL,
			   "an accepted file without a file prefix");
		roced_config_print(&cfg, devnull);
	} else {
		in_parse = false;
		FUZZ_CHECK(exit_status == ROCED_EXIT_USAGE,
			   "the parser exited with %d", exit_status);
	}
	roced_config_free(&cfg);
	close(fd);
	return 0;
}
