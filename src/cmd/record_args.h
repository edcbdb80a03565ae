/* scorch record's command line: the options, read and checked before
 * anything is sampled (cmd/record_args.c). */
#ifndef SCORCH_CMD_RECORD_ARGS_H
#define SCORCH_CMD_RECORD_ARGS_H

#include "render/graph.h"
#include "record/record.h"

#include <stdbool.h>

struct record_args {
	struct record_opts o;      /* for record_run; owns pids, tids, cpus */
	struct graph_opts g;       /* flame-graph options (cmd/graph_opts.h) */
	const char *output;        /* -o FILE, or NULL (stdout) */
	enum graph_format graph;   /* the writer; GRAPH_FORMAT_NONE: folded stacks */
	bool no_progress;          /* --no-progress */
	const char *default_countname; /* to know whether --countname changed it */
	struct record_every *every; /* --every and its store options (cmd/record_every.h), or NULL */
};

/* Defaults (-F 99, the backend and event chosen when recording). */
void record_args_init(struct record_args *a);
/* Read argv and check the options together: 0 to record, -1 after --help
 * (printed), or an exit code (2 after a value a parser outside cmd/
 * rejected, with usage_hint). Other usage errors exit 2 through
 * cmd/usage.h with one line. Nothing is written or created. */
int record_args_parse(int argc, char **argv, struct record_args *a);
void record_args_release(struct record_args *a);

#endif
