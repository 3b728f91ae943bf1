/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * A fuzz target without libFuzzer: runs LLVMFuzzerTestOneInput() once on
 * each file named on the command line and each file of each directory
 * named (in name order). The unit suite runs every target this way over
 * its seed corpus and its regression inputs (test/fuzz/regress/TARGET), so
 * that inputs which once crashed keep passing in every build, sanitizers
 * or not. A failing input aborts (the test fails with its name printed).
 * Ends with "N inputs" and "fuzz: 1 passed, 0 failed, 0 skipped" (the
 * program is one case of its suite).
 */

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned int n_run;

static int
run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long len;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0) {
		fprintf(stderr, "fuzz-replay: cannot read %s\n", path);
		if (f != NULL)
			fclose(f);
		return -1;
	}
	rewind(f);
	buf = malloc((size_t)len + 1);
	if (buf == NULL || fread(buf, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "fuzz-replay: cannot read %s\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	/* Named first, so that a crash below says which input it was. */
	fprintf(stderr, "fuzz-replay: %s (%ld bytes)\n", path, len);
	LLVMFuzzerTestOneInput(buf, (size_t)len);
	free(buf);
	n_run++;
	return 0;
}

static int
name_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int
run_path(const char *path)
{
	struct dirent **ents;
	struct stat st;
	char sub[4096];
	int n, rc = 0;

	if (stat(path, &st) != 0) {
		fprintf(stderr, "fuzz-replay: no %s\n", path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path);
	n = scandir(path, &ents, NULL, name_cmp);
	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		if (ents[i]->d_name[0] != '.') {
			snprintf(sub, sizeof(sub), "%s/%s", path,
				 ents[i]->d_name);
			if (run_file(sub) != 0)
				rc = -1;
		}
		free(ents[i]);
	}
	free(ents);
	return rc;
}

int
main(int argc, char **argv)
{
	int rc = 0;

	if (LLVMFuzzerInitialize(&argc, &argv) != 0)
		return 1;
	for (int i = 1; i < argc; i++)
		if (run_path(argv[i]) != 0)
			rc = 1;
	if (n_run == 0) {
		fprintf(stderr, "fuzz-replay: no input\n");
		rc = 1;
	}
	printf("%u inputs\nfuzz: %d passed, %d failed, 0 skipped\n", n_run,
	       rc == 0, rc != 0);
	return rc;
}
