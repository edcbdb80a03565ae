/* Merging profiles built in parallel from parts of one ordered input so
 * that the result is the profile one pass over the whole input builds,
 * entry for entry: the same name ids and node ids in the same order, not
 * only the same stacks and counts (html output breaks ties by name id,
 * pprof numbers functions by node order).
 *
 * Each input profile is built from its part in input order and says what
 * each input item created: a run {stamp, names_end, nodes_end} after every
 * item that added names or nodes, stamps increasing (the item's position in
 * the whole input). Entries are replayed into dst by stamp; an entry
 * another profile made earlier is found, not made again. Counts are added
 * after: whole sums are exact in any order. */
#ifndef SCORCH_PROFILE_MERGE_STAMPED_H
#define SCORCH_PROFILE_MERGE_STAMPED_H

#include "profile/profile.h"

#include <stddef.h>
#include <stdint.h>

struct profile_run {
	uint64_t stamp;
	uint32_t names_end, nodes_end; /* names.nr and nr after the item */
};

struct profile_stamped {
	const struct profile *p;
	const struct profile_run *runs;
	size_t nr_runs;
};

/* Merge in[0..n) into dst, which is empty (profile_init). False when a
 * whole sum would pass 2^64 - 1. */
bool profile_merge_stamped(struct profile *dst, const struct profile_stamped *in, size_t n);

#endif
