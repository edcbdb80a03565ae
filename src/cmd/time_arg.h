/* --time SPEC on the command line (profile/time_ranges.h): parsed when
 * the option is read, resolved once the input's first and last sample are
 * known; a bad spec is a usage error either way. */
#ifndef SCORCH_CMD_TIME_ARG_H
#define SCORCH_CMD_TIME_ARG_H

#include "profile/time_ranges.h"

/* The parsed spec (malloc'd; free() it), or a usage error (exits). */
struct time_ranges *time_arg_parse(const char *cmd, const char *arg);

/* Resolve against [first, last], or a usage error (exits). */
void time_arg_resolve(const char *cmd, struct time_ranges *t, uint64_t first, uint64_t last);

/* After a reader failed: a usage error (exits) if it was the ranges. */
void time_arg_check(const char *cmd, const struct time_ranges *t);

#endif
