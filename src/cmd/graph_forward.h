/* `scorch flamegraph` options in other commands: record and report accept
 * every option of flamegraph that shapes the graph and, for -o FILE.svg,
 * render through cmd_flamegraph itself, so that each option means exactly
 * what it means there. The option names come from flamegraph's own table:
 * a new flamegraph option is forwarded without edits here or there. */
#ifndef SCORCH_CMD_GRAPH_FORWARD_H
#define SCORCH_CMD_GRAPH_FORWARD_H

#include <getopt.h>
#include <stdbool.h>

struct profile;

/* flamegraph's long options, ending with a zero entry (cmd/flamegraph.c). */
extern const struct option flamegraph_long_options[];

/* The arguments for cmd_flamegraph: "flamegraph", then the forwarded
 * options as --NAME or --NAME=VALUE (each owned). */
struct graph_forward {
	char **argv;
	int argc, alloc;
	bool flamechart; /* --flamechart given: the graph wants sample order */
	bool cp;         /* --cp given: rendering updates ./palette.map */
};

/* A getopt_long table: own's entries (up to its zero entry), then every
 * flamegraph option except those about flamegraph's own input and output
 * (help, output, format, dump-frames) and those named in skip (a
 * NULL-terminated list, or NULL), each with val = code; then a zero entry.
 * The caller frees it. */
struct option *graph_forward_options(const struct option *own, int code, const char *const *skip);

void graph_forward_init(struct graph_forward *g);
void graph_forward_release(struct graph_forward *g);

/* Record a forwarded option: its long name and optarg (NULL for a flag). */
void graph_forward_add(struct graph_forward *g, const char *name, const char *arg);

/* Whether any flamegraph option was given. */
bool graph_forward_any(const struct graph_forward *g);

/* Render a one-frame profile with the options into a temporary file, so
 * that a bad value fails before a long run rather than after it. Skipped
 * (returns 0) with --cp, which would update ./palette.map. 0 or -1 (the
 * error is printed). */
int graph_forward_check(const struct graph_forward *g, const char *cmd);

/* Write p as an SVG flame graph to output: p goes to a temporary folded
 * file in $TMPDIR (or /tmp) named after cmd, in sample order with
 * --flamechart (adjacent equal stacks merged), that cmd_flamegraph reads.
 * Returns cmd_flamegraph's exit code, or 1. */
int graph_forward_svg(const struct graph_forward *g, const struct profile *p, const char *output,
	const char *cmd);

#endif
