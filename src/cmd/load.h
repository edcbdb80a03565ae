/* Any input scorch reads, into a profile: perf.data (as `scorch report`
 * folds it), binary pprof, folded stacks or any collapse format (detected,
 * as `scorch collapse` does), compressed or not. For the commands that
 * combine whole profiles: merge and diff. */
#ifndef SCORCH_CMD_LOAD_H
#define SCORCH_CMD_LOAD_H

#include "profile/profile.h"

/* Add the stacks of path ("-" or NULL: stdin) to p. What the counts are
 * (report's unit, "samples" for other inputs) goes to *unit when unit is
 * not NULL. Returns 0, or -1 after printing an error naming the file. */
int load_profile(struct profile *p, const char *path, const char **unit);

#endif
