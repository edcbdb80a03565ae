/* The naming step (record-private): the collector's stacks -> profile
 * nodes (naming.c). recorder.c calls it; it calls nothing above it. */
#ifndef SCORCH_RECORD_NAMING_H
#define SCORCH_RECORD_NAMING_H

#include "profile/profile.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct builder;
struct recorder;
struct symbols;

/* A user frame (procmaps ref) of a stack new to the collector: name it
 * now, reading its file's symbols at their first use. false: it is left
 * for the end (JIT code, whose perf map grows while sampling). dwarf: the
 * frame was unwound with DWARF (its inlined functions are expanded). */
bool naming_preload_user(struct recorder *r, uint32_t pid, uint64_t ref, bool dwarf);
/* recorder_build_early's work (see recorder.h). */
void naming_build_early(struct recorder *r, struct profile *p, struct symbols *kernel_syms,
			const atomic_bool *kernel_ready);
/* Build the stacks that came in since the last call, if building early
 * and the kernel's symbols are ready. */
void naming_build_ready(struct recorder *r);
/* Every stack not built yet, then the counts, into p. */
void naming_build_all(struct recorder *r, struct profile *p, struct symbols *kernel_syms);
void naming_builder_free(struct builder *b);
/* The profile stacks are built into while sampling runs, once the
 * kernel's symbols are ready; NULL when they wait for the end. */
struct profile *naming_early_profile(const struct recorder *r);
struct rstack;
/* Built stack s counted into p before the end (recorder_fold.c): its
 * samples, and its share of the summary's user stacks. */
void naming_count_one(struct recorder *r, struct profile *p, const struct rstack *s);

#endif
