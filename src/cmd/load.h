/* Any input scorch reads, into a profile: perf.data (as `scorch report`
 * folds it), binary pprof, folded stacks or any collapse format (detected,
 * as `scorch collapse` does), compressed or not; and a profile out as
 * folded stacks or data. For the commands that handle whole profiles. */
#ifndef SCORCH_CMD_LOAD_H
#define SCORCH_CMD_LOAD_H

#include "profile/profile.h"
#include "render/graph.h"

#include <stdbool.h>

struct time_ranges; /* profile/time_ranges.h */

/* Add the stacks of path ("-" or NULL: stdin) to p. sample_index chooses
 * a pprof input's value (--sample-index; NULL: its default). What the
 * counts are (report's unit, a pprof sample type's, "samples" for other
 * inputs) goes to *unit when unit is not NULL. Returns 0, or -1 after
 * printing an error naming the file. */
int load_profile(struct profile *p, const char *path, const char *sample_index, const char **unit);
/* The same keeping only the samples in ranges (--time of command cmd:
 * perf.data or perf script text; other inputs, or ranges outside the
 * recording, are cmd's usage errors). ranges NULL: all. */
int load_profile_in(struct profile *p, const char *path, const char *sample_index, const char **unit,
		    struct time_ranges *ranges, const char *cmd);

/* flamegraph's reader of path ("-": stdin) into p. Folded text is streamed
 * in chunks (memory follows the distinct stacks, not the input size);
 * compressed input and other formats are read whole. format: the input
 * format (NULL: detected); reverse: each stack reversed as it is read;
 * threads: the folded reader's. Returns 0, or -1 after an error naming the
 * file. */
struct stacks_opts {
	const char *format;
	bool reverse;
	int threads;
	const char *sample_index; /* pprof input: the value read (NULL: its default) */
	const char **unit;        /* out, when not NULL: what a pprof input's counts are */
	struct time_ranges *time_ranges; /* --time (perf script text), or NULL */
};
int load_stacks(struct profile *p, const char *path, const struct stacks_opts *o);

/* Write p to output (NULL or "-": stdout) in data format `format`, or
 * (GRAPH_FORMAT_NONE) the one its name asks for (.pb.gz,
 * .speedscope.json; unit: what the counts are, NULL samples), else as
 * folded stacks; the file is
 * replaced only when all went well. Returns 0, or -1 after printing an
 * error. */
int save_profile(const struct profile *p, const char *output, enum graph_format format, const char *unit);

#endif
