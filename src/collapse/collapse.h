/* Profiler text output -> profile. One file per format; this table-driven
 * front end finds a format by name or detects it from the first bytes.
 * Adding a format: write collapse/<format>.c defining a `struct
 * collapse_format`, add it to the table in collapse/formats.c, add golden
 * tests and a fuzz target. */
#ifndef SCORCH_COLLAPSE_COLLAPSE_H
#define SCORCH_COLLAPSE_COLLAPSE_H

#include "profile/profile.h"

#include <stdbool.h>
#include <stddef.h>

/* Options from the command line. Most are stackcollapse-perf.pl's; each
 * format uses the ones that apply to it and ignores the rest. */
struct time_ranges; /* profile/time_ranges.h */

struct collapse_opts {
	bool pid, tid;        /* perf: append -PID / -PID/TID to the process name */
	bool kernel, jit;     /* perf: annotate kernel _[k] / JIT _[j] frames */
	bool all;             /* perf: --kernel and --jit */
	bool addrs;           /* perf: raw addresses for unknown symbols */
	bool inline_frames;   /* perf: expand inlined frames (libdw) */
	bool context;         /* perf: with --inline, add source context */
	bool srcline;         /* perf: file:line instead of function names */
	const char *event_filter; /* perf: only this event name */
	bool include_offsets; /* keep +0x offsets where a format has them */
	bool no_modules;      /* sample, vtune: frames without their module name */
	const char *ghcprof_column; /* ghcprof: "time" (NULL = default), "ticks", "bytes" */
	const char *sample_index;   /* binary pprof: sample type name or number (NULL = default) */
	const char **unit;    /* out, when not NULL: what the counts are, when the input
				 says (binary pprof: "ns", "bytes", "objects", ...) */
	bool strict;          /* a malformed line is an error */
	struct time_ranges *time_ranges; /* perf: only samples in these (--time), resolved
				 against the input's first and last sample; NULL: all */
	int threads;          /* 0 = one per core */
};

struct collapse_source {
	const char *name; /* for messages: file path or "<stdin>" */
	const char *data; /* whole input, already decompressed */
	size_t len;
};

struct collapse_format {
	const char *name;        /* as typed after `scorch collapse` */
	const char *description; /* one line for --list */
	/* Confidence 0..100 that `head` (the first bytes, up to 64 KiB) is this
	 * format. */
	int (*probe)(const char *head, size_t n);
	/* Parse the whole input into p. Returns 0, or -1 after printing an
	 * error (bad input with --strict, or unrecoverable). Malformed lines are
	 * otherwise reported (file:line) and skipped. */
	int (*parse)(struct profile *p, const struct collapse_source *src,
		     const struct collapse_opts *opts);
};

/* NULL-terminated table of every format, in --list order. */
extern const struct collapse_format *const collapse_formats[];

const struct collapse_format *collapse_find(const char *name);
/* The most confident format for this input, or NULL when none claims it. */
const struct collapse_format *collapse_detect(const char *data, size_t len);

#endif
