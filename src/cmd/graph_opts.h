/* Flame-graph options, parsed once into a struct graph_opts
 * (render/graph.h) by flamegraph, record and report alike: each command
 * appends this table to its own getopt table and hands the codes it does
 * not know to graph_opts_set. Names and meanings are flamegraph.pl's. */
#ifndef SCORCH_CMD_GRAPH_OPTS_H
#define SCORCH_CMD_GRAPH_OPTS_H

#include "render/graph.h"

#include <getopt.h>
#include <stdbool.h>

/* The option codes of the shared table: GRAPH_OPT_FIRST <= code < GRAPH_OPT_END,
 * above any command's own codes. */
enum { GRAPH_OPT_FIRST = 0x1000, GRAPH_OPT_END = 0x1100 };

static inline bool graph_opt_code(int c)
{
	return c >= GRAPH_OPT_FIRST && c < GRAPH_OPT_END;
}

/* A getopt_long table: own's entries (up to its zero entry), then the
 * shared graph options except those named in skip (NULL-terminated list,
 * or NULL), then a zero entry. The caller frees it. */
struct option *graph_options_with(const struct option *own, const char *const *skip);

/* Defaults (flamegraph.pl's). */
void graph_opts_init(struct graph_opts *o);
/* One option of the shared table: 0, or -1 with the error printed. */
int graph_opts_set(struct graph_opts *o, int code, const char *arg);
/* The default branch of a command's getopt loop: a code outside the shared
 * table is a usage error (exits); a shared option's value is checked. 0,
 * or the usage exit code after the message (the caller then releases what
 * it holds and returns it). */
int graph_opts_take(struct graph_opts *o, const char *cmd, int code, const char *arg,
		    char *const *argv);
/* After the last option: palettes and colours resolved, regexes checked,
 * so that a bad value fails before any input is read or recorded (a usage
 * error). 0, or -1 with the error printed. */
int graph_opts_finish(struct graph_opts *o);
/* Read the files options name (--nameattr). 0, or -1 with the error printed. */
int graph_opts_load(struct graph_opts *o);
void graph_opts_release(struct graph_opts *o);

/* The writer for output: --format if given, else by the name of output
 * (cmd/output_format.h: a name cmd cannot write, given writes, is a usage
 * error); GRAPH_FORMAT_NONE when neither says (the caller's default). */
enum graph_format graph_opts_format(const struct graph_opts *o, const char *cmd, const char *output,
				     unsigned writes);

/* After the last option of a command whose output may be a graph (report,
 * merge; cmd names it in usage errors): --format must name an output
 * format, values are checked, the
 * writer is chosen for output (*f; NONE: folded text, where graph options
 * get a warning unless quiet) and its files are read. Returns 0, or the exit
 * status (2 usage error, 1 unreadable file) with the error printed. */
int graph_opts_for_output(struct graph_opts *o, const char *cmd, const char *output, bool quiet,
			  enum graph_format *f);

/* The exit status for graph_render's result: 0 ok, 1 runtime error, 2 no
 * data or a bad filter. */
static inline int graph_exit_code(int render_result)
{
	return render_result == -2 ? 2 : render_result ? 1 : 0;
}

#endif
