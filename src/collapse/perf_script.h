/* `perf script` text -> profile, exactly as stackcollapse-perf.pl folds it,
 * in parallel over chunks of the input. */
#ifndef SCORCH_COLLAPSE_PERF_SCRIPT_H
#define SCORCH_COLLAPSE_PERF_SCRIPT_H

#include "collapse/collapse.h"
#include "profile/profile.h"

#include <stdbool.h>
#include <stddef.h>

struct perf_input {
	const char *name; /* for messages */
	const char *data;
	size_t len;
	bool mapped; /* data is a read-only file mapping: pages already parsed
		      * may be dropped from memory (MADV_DONTNEED) to keep the
		      * resident size bounded by the stacks, not the input */
};

/* Fold every input as the script folds `stackcollapse-perf.pl FILE...`:
 * the files form one stream (the first event type seen anywhere is the
 * default filter; a sample may continue from one file into the next).
 * opts->threads: 0 = one thread per online CPU. Returns 0, or -1 after an
 * error was printed (--strict and a bad line, --inline without elfutils). */
int perf_collapse(struct profile *p, const struct perf_input *in, size_t n,
		  const struct collapse_opts *opts);

/* Confidence 0..100 that this is perf script text (collapse_format.probe). */
int perf_probe(const char *head, size_t n);

#endif
