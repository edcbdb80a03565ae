/* report -j: folding on several threads (fold_threads.c), with the
 * per-thread folding state of fold.c. Shared between those two files. */
#ifndef SCORCH_PERFDATA_FOLD_THREADS_H
#define SCORCH_PERFDATA_FOLD_THREADS_H

#include "perfdata/fold.h"
#include "perfdata/fold_pushes.h"
#include "perfdata/perfdata.h"
#include "perfdata/replay.h"
#include "profile/merge_stamped.h"
#include "symbolize/snapshot.h"

/* One thread's folding state: its caches, and the profile p it folds into
 * (stats into st). reader NULL: lookups go to sym as it is now.
 * pushes: where its trie pushes go (fold_pushes.h); unless PUSHES_HERE, p
 * is whole only after fold_pushes_sync or folder_free. */
struct folder;
struct folder *folder_new(const struct report_opts *o, const struct perf_data *pd, struct profile *p,
			  struct report_stats *st, struct symbolizer *sym, struct sym_reader *reader,
			  enum fold_pushes_mode pushes);
void folder_free(struct folder *f);

/* Whether s is of the event folded (the first one seen unless
 * --event-filter); notes and counts the others (in f's stats). */
bool folder_keep_event(struct folder *f, const struct pd_sample *s);
/* The event folded, or NULL before the first sample. */
const char *folder_event(const struct folder *f);

/* Fold s (of the event folded) of the thread named comm, looking its
 * addresses up in snap (NULL: in the symbolizer as it is now). seq is its
 * position in the replay: each folder gets increasing ones, and notes what
 * each sample created (folder_runs, for profile_merge_stamped). */
void folder_fold(struct folder *f, const struct pd_sample *s, const char *comm, const struct sym_snapshot *snap,
		 uint64_t seq);
const struct profile_run *folder_runs(const struct folder *f, size_t *nr);

/* Add f's counts to st (folded and skipped only when f has stats of its
 * own), and its count unit when f folded a sample before *unit_seq. */
void folder_add_stats(const struct folder *f, struct report_stats *st, uint64_t *unit_seq);

/* Replay r through sym, folding on `threads` threads into p (empty), with
 * stats into st. The event folded is returned (NULL: none). */
const char *fold_threads_run(struct replay *r, struct symbolizer *sym, const struct report_opts *o,
			     const struct perf_data *pd, struct profile *p, struct report_stats *st, int threads);

#endif
