/* Inside the naming step (record-private): the builder that turns the
 * collector's stacks into profile nodes (naming.c) and the name sequences
 * of single frames it keeps (naming_frames.c). Nothing else includes this. */
#ifndef SCORCH_RECORD_NAMING_IMPL_H
#define SCORCH_RECORD_NAMING_IMPL_H

#include "base/hashmap.h"
#include "profile/frame_rules.h"
#include "profile/profile.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct recorder;
struct symbols;

/* Frames are named by profile/frame_rules, as stackcollapse-perf.pl names
 * the frame perf script would print for the same address ("SYMBOL
 * (MODULE)"), so a recording folds as `perf record` + `perf script |
 * stackcollapse-perf.pl` would. One address can give several names (the
 * script splits "->") or none (a symbol starting with '('). */
struct frame_seq {
	uint32_t first, count; /* into builder.seq */
};

struct builder {
	struct recorder *r;
	struct profile *p;
	struct symbols *kernel_syms;
	struct hashmap user_cache;   /* ref -> index into seqs */
	struct hashmap kernel_cache; /* addr -> index into seqs */
	struct frame_seq *seqs;
	size_t nr_seqs, seqs_alloc;
	sym_t *seq;                  /* the names of all seqs */
	size_t nr_seq, seq_alloc;
	struct frame_parts parts;
	char *line;                  /* scratch for frame_names_of */
	size_t line_alloc;
	bool java;                   /* the stack's process name starts with "java" */
	char *native;                /* user_names: a stack's native user frame names */
	size_t native_alloc;
	sym_t *names;                /* build_stack: a stack's names, root first */
	size_t nr_names, names_alloc;
};

/* The names perf script prints for user frame ref of process pid
 * (cached); dwarf: the frame was unwound with DWARF, its inlined
 * functions expanded, outermost first. */
struct frame_seq naming_user_frame(struct builder *b, uint32_t pid, uint64_t ref, bool dwarf);
/* The names of kernel address addr (cached). */
struct frame_seq naming_kernel_frame(struct builder *b, uint64_t addr);

/* The counts of every stack into p once all are built: by time ranges,
 * in time order, off-CPU microseconds or samples, and the time table
 * (naming_counts.c). */
void naming_count(struct recorder *r, struct profile *p);

#endif
