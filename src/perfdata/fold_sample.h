/* One sample folded on the folder (fold_sample.c): by its frames, or by
 * its callchain straight to the trie (fold_chain.h). */
#ifndef SCORCH_PERFDATA_FOLD_SAMPLE_H
#define SCORCH_PERFDATA_FOLD_SAMPLE_H

#include "perfdata/folder.h"

#include <stdint.h>

/* The replay's sample hook at -j1 (arg: the folder): perf script's text
 * with --script, then the sample folded if it is of the event kept. */
void fold_sample(void *arg, const struct pd_sample *s);

/* Fold s (of the event folded) of the thread named comm, looking its
 * addresses up in snap (NULL: in the symbolizer as it is now). seq is its
 * position in the replay: each folder gets increasing ones, and notes what
 * each sample created (folder_runs, for profile_merge_stamped). */
void folder_fold(struct folder *f, const struct pd_sample *s, const char *comm, const struct sym_snapshot *snap,
		 uint64_t seq);

#endif
