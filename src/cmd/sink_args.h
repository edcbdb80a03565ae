/* The store options shared by `record --every` and `store put`: --to
 * (repeatable), --label K=V (repeatable), --keep, --max-size, --spool,
 * --spool-size; then the sinks opened, fed and closed with one summary and
 * one exit status. */
#ifndef SCORCH_CMD_SINK_ARGS_H
#define SCORCH_CMD_SINK_ARGS_H

#include "store/store.h"

#include <getopt.h>
#include <stdbool.h>

enum { SINK_OPT_KEEP = 0x300, SINK_OPT_MAX_SIZE, SINK_OPT_SPOOL, SINK_OPT_SPOOL_SIZE };

#define SINK_ARGS_OPTIONS                                                  \
	{ "keep", required_argument, NULL, SINK_OPT_KEEP },                \
	{ "max-size", required_argument, NULL, SINK_OPT_MAX_SIZE },        \
	{ "spool", required_argument, NULL, SINK_OPT_SPOOL },              \
	{ "spool-size", required_argument, NULL, SINK_OPT_SPOOL_SIZE }

#define SINK_ARGS_USAGE                                                                        \
	"      --keep AGE      directory stores: remove intervals older than AGE (7d, 12h)\n"  \
	"      --max-size SIZE directory stores: remove the oldest intervals past SIZE (1G)\n" \
	"      --spool DIR     servers: where intervals wait while the server is down\n"      \
	"                      (default $XDG_CACHE_HOME or ~/.cache/scorch/spool/...)\n"       \
	"      --spool-size SIZE  servers: the spool's bound (default 64M); past it the\n"     \
	"                      oldest intervals are dropped, counted in the summary\n"

struct sink_args {
	const char **to;
	size_t nr_to, to_alloc;
	const char **labels;
	size_t nr_labels, labels_alloc;
	struct sink_opts opts;
	struct sink **sinks;
};

void sink_args_add_to(struct sink_args *a, const char *url);
/* K=V checked (a usage error of cmd otherwise). */
void sink_args_add_label(struct sink_args *a, const char *cmd, const char *arg);
/* One of SINK_ARGS_OPTIONS: true when taken (bad values: usage error). */
bool sink_args_take(struct sink_args *a, const char *cmd, int code, const char *arg);

/* Open every --to. 0, or -1 (errors printed; those opened are closed). */
int sink_args_open(struct sink_args *a);
/* Put one interval into every sink; 0 when every one took it. */
int sink_args_put(struct sink_args *a, const struct profile *p, const struct store_meta *m);
/* Close every sink (summaries printed): 0 when every interval was stored,
 * 1 when one was dropped, failed, or still waits in a spool. */
int sink_args_close(struct sink_args *a);
/* open, put, close. */
int sink_args_put_all(struct sink_args *a, const struct profile *p, const struct store_meta *m);
void sink_args_release(struct sink_args *a);

#endif
