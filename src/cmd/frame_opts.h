/* The stackcollapse frame options, parsed once into a struct frame_args by
 * collapse, report and record alike: --pid, --tid, --kernel, --jit, --all,
 * --addrs (stackcollapse-perf.pl's names and meanings) and -j/--threads N.
 * Each command appends this table to its own getopt table, as it does the
 * graph options (cmd/graph_opts.h), skipping the names it spells otherwise
 * (record: --pid and --tid name the processes to sample), and hands the
 * codes to frame_args_set. */
#ifndef SCORCH_CMD_FRAME_OPTS_H
#define SCORCH_CMD_FRAME_OPTS_H

#include <getopt.h>
#include <stdbool.h>

/* The codes of the table: FRAME_OPT_FIRST <= code < FRAME_OPT_END, above
 * the graph options', and 'j' for -j/--threads (in the commands' short
 * option strings as "j:"). */
enum { FRAME_OPT_FIRST = 0x1100, FRAME_OPT_END = 0x1110 };

static inline bool frame_opt_code(int c)
{
	return (c >= FRAME_OPT_FIRST && c < FRAME_OPT_END) || c == 'j';
}

struct frame_args {
	bool pid, tid;    /* root frame comm-PID / comm-PID/TID */
	bool kernel, jit; /* _[k] / _[j] annotations (--all: both) */
	bool addrs;       /* an unknown frame keeps its address: [mod <addr>] */
	int threads;      /* -j N, 0..1024 (0: one per CPU); -1: not given */
	/* the usage error for a bad -j value, "%s" the value (the command's) */
	const char *threads_error;
};

/* A getopt_long table: own's entries, then the frame options except those
 * named in skip (NULL-terminated, or NULL), then a zero entry. The caller
 * frees it. */
struct option *frame_options_with(const struct option *own, const char *const *skip);

/* One option of the table (frame_opt_code(code)); a bad -j value is a
 * usage error of cmd (exits). */
void frame_args_set(struct frame_args *f, const char *cmd, int code, const char *arg);

#endif
