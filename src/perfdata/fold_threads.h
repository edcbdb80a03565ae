/* report -j: folding on several threads (fold_threads.c), each with a
 * folder of its own (folder.h). */
#ifndef SCORCH_PERFDATA_FOLD_THREADS_H
#define SCORCH_PERFDATA_FOLD_THREADS_H

#include "perfdata/fold.h"
#include "perfdata/perfdata.h"
#include "perfdata/replay.h"
#include "symbolize/symbolize.h"

/* Replay r through sym, folding on `threads` threads into p (empty), with
 * stats into st. The event folded is returned (NULL: none). */
const char *fold_threads_run(struct replay *r, struct symbolizer *sym, const struct report_opts *o,
			     const struct perf_data *pd, struct profile *p, struct report_stats *st, int threads);

#endif
