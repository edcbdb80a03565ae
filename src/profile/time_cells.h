/* When samples were taken: an optional side table of struct profile
 * (profile.time), for the outputs that draw time (the HTML heat map) and
 * the commands asked to keep it (--time, --flamechart). Everything else
 * leaves it NULL and pays one pointer test per counted sample at most.
 *
 * Time is cut into cells of 20 ms, 50 per second (FlameScope's heat-map
 * rows). Cell 0 starts at the first sample's time floored to a whole
 * second of the source's clock (`origin`); a cell is (second, row). The
 * table keeps one count per distinct (cell, stack leaf node), so its
 * memory follows the distinct pairs, not the samples.
 *
 * Source times are nanoseconds of the source's clock (perf's own, from
 * boot, or the -k clock; record's CLOCK_MONOTONIC). When the source says
 * how that clock maps to the Unix epoch (perf.data: its CLOCK_DATA
 * feature, written by perf record -k), `epoch_known` is set and origin + epoch_offset is cell 0's start
 * in nanoseconds since the epoch, UTC; otherwise times are only relative.
 *
 * Counts are the same whole numbers the profile counts (a sample, or its
 * period): a cell's counts over all cells sum to the leaf's self count for
 * the samples that carried a time. A table spans at most a day
 * (TIME_CELLS_MAX); samples beyond are left out of it and `overflow` says
 * so (the HTML writer then draws no heat map). */
#ifndef SCORCH_PROFILE_TIME_CELLS_H
#define SCORCH_PROFILE_TIME_CELLS_H

#include "base/hashmap.h"
#include "profile/profile.h"

#include <stdbool.h>
#include <stdint.h>

#define TIME_CELL_NS 20000000ull /* 20 ms */
#define TIME_CELLS_PER_SECOND 50u
#define TIME_SECOND_NS 1000000000ull
/* A table spans at most a day: a sample further from the others is not
 * kept in it (a heat map of more columns would not be read, and damaged
 * input can put samples years apart). */
#define TIME_CELLS_MAX (86400u * TIME_CELLS_PER_SECOND)

struct time_entry {
	uint32_t cell;
	node_t node;
	uint64_t count;
};

struct time_cells {
	bool started;          /* a sample has been added: origin, first, last set */
	bool epoch_known;      /* origin + epoch_offset is ns since the epoch */
	bool overflow;         /* samples were left out: over TIME_CELLS_MAX apart,
				  or past UINT32_MAX entries */
	uint64_t origin;       /* cell 0's start, source clock ns, a whole second */
	int64_t epoch_offset;  /* epoch ns - source ns */
	uint64_t first, last;  /* earliest and latest sample, source clock ns */
	uint32_t cells;        /* highest cell + 1 */
	struct hashmap index;  /* cell << 32 | node -> entry */
	struct time_entry *entries;
	uint32_t nr, alloc;
};

/* Ask p to keep time from now on (an empty table, if it has none). */
void profile_keep_time(struct profile *p);

/* A table of its own, for a producer that counts by ids of its own
 * before it has trie nodes (record: by stack), then merges it into a
 * profile with time_cells_merge. Freed with time_cells_free. */
struct time_cells *time_cells_new(void);
void time_cells_note(struct time_cells *t, uint32_t id, uint64_t when, uint64_t count);

/* A table of its own whose ids changed: entry id i becomes map[i], or
 * goes when map[i] is TIME_NODE_DROPPED (record: stacks folded into the
 * profile, the rest renumbered). Its span (origin, first, last) stays. */
void time_cells_renumber(struct time_cells *t, const uint32_t *map);

/* The source clock maps to the epoch: epoch ns = source ns + offset. */
void time_cells_set_epoch(struct profile *p, int64_t offset);

/* The table spans `when` (source clock ns) too, with no count there: a
 * source whose counts stand for a span (a store's intervals; query's
 * range) makes the heat map cover it. */
void time_cells_span(struct profile *p, uint64_t when);

/* count more at leaf for a sample taken at t (source clock ns). */
void time_cells_add(struct profile *p, node_t leaf, uint64_t t, uint64_t count);

/* Count a sample of whole count c (exactly, as profile_count_whole), and
 * its time when p keeps time. What every producer that knows a sample's
 * time calls. */
static inline void profile_count_at(struct profile *p, node_t leaf, uint64_t c, uint64_t t)
{
	profile_count_whole(p, leaf, c);
	if (p->time)
		time_cells_add(p, leaf, t, c);
}

/* Add src's cells to dst, src node i becoming map[i] (map NULL: the same
 * ids; a map value of TIME_NODE_DROPPED drops the node's cells). dst gets
 * a table if it has none (and src's epoch if it has none); when both map
 * to the epoch through different offsets, src's times are moved into
 * dst's clock first (to the cell: a shift is not a whole number of cells).
 * Merges, filters and reversal call this. */
#define TIME_NODE_DROPPED (UINT32_MAX - 1)
void time_cells_copy(struct profile *dst, const struct profile *src, const node_t *map);
/* The same from a table (src's ids mapped by map). */
void time_cells_merge(struct profile *dst, const struct time_cells *src, const node_t *map);

/* Seconds the table spans (heat-map columns): cells / 50, rounded up. */
static inline uint32_t time_cells_seconds(const struct time_cells *t)
{
	return (t->cells + TIME_CELLS_PER_SECOND - 1) / TIME_CELLS_PER_SECOND;
}

/* Entries sorted by cell, then node (for writers): a malloc'd copy. */
struct time_entry *time_cells_sorted(const struct time_cells *t);

void time_cells_free(struct time_cells *t);

#endif
