/* getopt_long tables made of a command's own options and a shared table
 * (cmd/graph_opts.h, cmd/frame_opts.h). */
#ifndef SCORCH_CMD_OPTION_TABLE_H
#define SCORCH_CMD_OPTION_TABLE_H

#include <getopt.h>

/* own's entries (up to its zero entry), then shared's except those named
 * in skip (a NULL-terminated list of long names, or NULL), then a zero
 * entry. The caller frees it. */
struct option *option_table_join(const struct option *own, const struct option *shared,
				 const char *const *skip);

#endif
