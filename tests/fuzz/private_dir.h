/* A private scratch directory for a fuzz target that must go through the
 * file system (its readers take paths): made once per process under /tmp,
 * removed with everything in it at exit, so that neither libFuzzer runs
 * nor corpus replays leave directories behind. */
#ifndef SCORCH_TESTS_FUZZ_PRIVATE_DIR_H
#define SCORCH_TESTS_FUZZ_PRIVATE_DIR_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char private_dir_path[64];

static int private_dir_remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void private_dir_remove(void)
{
	nftw(private_dir_path, private_dir_remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* The directory, /tmp/scorch-fuzz-NAME-XXXXXX, made on the first call. */
static const char *private_dir(const char *name)
{
	if (!private_dir_path[0]) {
		snprintf(private_dir_path, sizeof(private_dir_path), "/tmp/scorch-fuzz-%s-XXXXXX", name);
		if (!mkdtemp(private_dir_path))
			abort();
		atexit(private_dir_remove);
	}
	return private_dir_path;
}

#endif
