/* tracefs, where the kernel describes its tracepoints (ids, sample
 * formats): found where it is mounted, and mounted where it is not, as
 * perf does. */
#ifndef SCORCH_RECORD_TRACEFS_H
#define SCORCH_RECORD_TRACEFS_H

#include <stddef.h>
#include <stdio.h>

/* Where tracefs may be mounted; the first is where scorch mounts it. */
#define TRACEFS_MOUNT_POINT "/sys/kernel/tracing"

/* Open the file rel (as "events/sched/sched_switch/format") of tracefs,
 * at /sys/kernel/tracing or /sys/kernel/debug/tracing. When tracefs is
 * mounted at neither (a freshly booted Debian mounts it on first use
 * only), it is mounted at /sys/kernel/tracing first, which needs root;
 * perf record does the same. Returns the stream, with its path in path;
 * or NULL with errno set by the first place tried, and that place in
 * path. */
FILE *tracefs_open(const char *rel, char *path, size_t path_size);

#endif
