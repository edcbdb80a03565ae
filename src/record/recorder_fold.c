/* Folding the collector's built stacks into the profile while sampling
 * runs (recorder_impl.h). Raw stacks are interned by their frames, which
 * name fewer distinct stacks than they are: two return addresses in one
 * function, or one call site unwound to different depths, are two raw
 * stacks and one named stack. A recording kept every raw stack to its end
 * (and --every to its cut), so under process churn what it held grew with
 * the raw stacks met; once a stack has its profile node, its count (and
 * its times) can go into the profile and the raw stack leave. One met
 * again after a fold is interned and built anew: built to the same leaf,
 * from the cached names of its frames, so the profile written is the one
 * a recording without folds writes.
 *
 * Not folded: stacks that wait for the end (through JIT code, or with a
 * runtime's frames to merge), everything while the kernel's symbols load,
 * and the modes whose counts or samples are kept per raw stack until the
 * end: off-CPU and --wakers (times rounded per stack), time order
 * (--flamechart) and --time (the samples themselves). */
#include "record/recorder_impl.h"

#include "base/alloc.h"
#include "base/hash.h"
#include "base/hashmap.h"
#include "profile/profile.h"
#include "profile/time_cells.h"
#include "record/naming.h"

#include <stdlib.h>
#include <string.h>

/* The raw tables' bytes at which a fold is first due: small beside the
 * profile and the files' tables a recording holds, large enough that the
 * stacks that recur (most of them) are rebuilt rarely. */
#ifndef FOLD_MIN_BYTES /* (a build may set it: bench/record-fold.sh) */
#define FOLD_MIN_BYTES (1u << 20)
#endif

static size_t raw_bytes(const struct recorder *r)
{
	return (size_t)r->nr_stacks * (sizeof(struct rstack) + 2 * sizeof(uint64_t)) +
	       r->nr_frames * sizeof(uint64_t);
}

static bool foldable_mode(const struct record_opts *o)
{
	return !o->off_cpu && !o->wakers && !o->keep_order && !o->time_ranges;
}

bool recorder_fold_due(const struct recorder *r)
{
	return raw_bytes(r) >= (r->fold_at ? r->fold_at : FOLD_MIN_BYTES) && foldable_mode(r->opts) &&
	       naming_early_profile(r);
}

static void mark_leaf(struct recorder *r, node_t leaf)
{
	if (leaf >= r->alloc_folded_leaves) {
		size_t old = r->alloc_folded_leaves, want = (size_t)leaf + 1;
		VEC_GROW(r->folded_leaves, want, r->alloc_folded_leaves);
		memset(r->folded_leaves + old, 0, r->alloc_folded_leaves - old);
	}
	r->folded_leaves[leaf] = 1;
}

bool recorder_folded_leaf(const struct recorder *r, node_t leaf)
{
	return leaf < r->alloc_folded_leaves && r->folded_leaves[leaf];
}

/* The kept stacks' frames and entries moved down over the folded ones'
 * (map: old index -> new, TIME_NODE_DROPPED for a folded one), and the
 * hash index rebuilt on the new indices (the probe sequence intern_stack
 * follows: every kept stack is distinct, so each takes the first free
 * probe of its hash). */
static void compact(struct recorder *r, const uint32_t *map)
{
	uint32_t n = 0;
	size_t frames = 0;
	for (uint32_t i = 0; i < r->nr_stacks; i++) {
		if (map[i] == TIME_NODE_DROPPED)
			continue;
		struct rstack s = r->stacks[i];
		uint32_t nf = rstack_frames(&s);
		if (nf)
			memmove(r->frames + frames, r->frames + s.frames, nf * sizeof(uint64_t));
		s.frames = frames;
		frames += nf;
		r->stacks[n++] = s;
	}
	r->nr_stacks = n;
	r->nr_frames = frames;
	r->nr_examined = n;
	hashmap_release(&r->by_hash);
	hashmap_init(&r->by_hash);
	hashmap_reserve(&r->by_hash, n);
	for (uint32_t i = 0; i < n; i++) {
		bool inserted = false;
		for (uint64_t probe = r->stacks[i].hash; !inserted; probe = hash_u64(probe))
			hashmap_upsert(&r->by_hash, probe, i, &inserted);
	}
}

void recorder_fold(struct recorder *r)
{
	struct profile *p = naming_early_profile(r);
	if (!p)
		return;
	naming_build_ready(r);
	uint32_t *map = xreallocarray(NULL, r->nr_stacks ? r->nr_stacks : 1, sizeof(*map));
	node_t *leaf = r->times ? xreallocarray(NULL, r->nr_stacks ? r->nr_stacks : 1, sizeof(*leaf)) : NULL;
	uint32_t kept = 0;
	for (uint32_t i = 0; i < r->nr_stacks; i++) {
		const struct rstack *s = &r->stacks[i];
		bool fold = s->leaf && !s->later;
		map[i] = fold ? TIME_NODE_DROPPED : kept++;
		if (leaf)
			leaf[i] = fold ? s->leaf : TIME_NODE_DROPPED;
		if (!fold)
			continue;
		naming_count_one(r, p, s);
		mark_leaf(r, s->leaf);
	}
	r->nr_folded += r->nr_stacks - kept;
	if (leaf) {
		time_cells_merge(p, r->times, leaf);
		time_cells_renumber(r->times, map);
		r->times_folded = true;
		free(leaf);
	}
	compact(r, map);
	free(map);
	/* What could not fold (waiting for the end) doubles the bar, so that
	 * a recording of such stacks only does not fold at every sample. */
	size_t left = raw_bytes(r);
	r->fold_at = left > FOLD_MIN_BYTES / 2 ? 2 * left : FOLD_MIN_BYTES;
}

void recorder_fold_reset(struct recorder *r)
{
	if (r->folded_leaves)
		memset(r->folded_leaves, 0, r->alloc_folded_leaves);
	r->times_folded = false;
	r->fold_at = 0;
}
