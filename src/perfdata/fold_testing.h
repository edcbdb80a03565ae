/* Tests only (tests/unit/test_report_fold.c, tests/fuzz/fuzz_perfdata.c):
 * report_fold with the two choices it makes by itself forced, so that the
 * tests compare both ways of each on real captures. Not for commands. */
#ifndef SCORCH_PERFDATA_FOLD_TESTING_H
#define SCORCH_PERFDATA_FOLD_TESTING_H

#include "perfdata/fold.h"

/* When report -j1 folds kernel frames (fold_chain.c, kernel_catch_up). */
enum kernel_test {
	KERNEL_TEST_OFF,     /* as it runs: once the kernel's symbols are read */
	KERNEL_TEST_AT_ONCE, /* the replay waits for them */
	KERNEL_TEST_LATE,    /* only when a record needs them */
};

/* Where -j1's trie pushes go (fold_pushes.h). */
enum pushes_test {
	PUSHES_TEST_OFF,    /* as measured: a thread when it pays */
	PUSHES_TEST_HERE,   /* the folding thread */
	PUSHES_TEST_THREAD, /* a thread of their own from the first */
};

struct fold_testing {
	enum kernel_test kernel;
	enum pushes_test pushes;
};

/* report_fold (fold.h) with those choices; t NULL: none forced. */
int report_fold_testing(const char *path, const void *buf, size_t len, const struct report_opts *o,
			const struct fold_testing *t, struct profile *p, struct report_stats *st);

#endif
