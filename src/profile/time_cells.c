/* The profile's time side table (profile/time_cells.h). */
#include "profile/time_cells.h"

#include "base/alloc.h"

#include <stdlib.h>

static uint64_t key_of(uint32_t cell, node_t node)
{
	return (uint64_t)cell << 32 | node;
}

struct time_cells *time_cells_new(void)
{
	struct time_cells *t = xcalloc(1, sizeof(*t));
	hashmap_init(&t->index);
	return t;
}

void profile_keep_time(struct profile *p)
{
	if (!p->time)
		p->time = time_cells_new();
}

void time_cells_set_epoch(struct profile *p, int64_t offset)
{
	profile_keep_time(p);
	p->time->epoch_known = true;
	p->time->epoch_offset = offset;
}

static void reindex(struct time_cells *t)
{
	hashmap_release(&t->index);
	hashmap_init(&t->index);
	hashmap_reserve(&t->index, t->nr);
	for (uint32_t i = 0; i < t->nr; i++) {
		bool ins;
		hashmap_upsert(&t->index, key_of(t->entries[i].cell, t->entries[i].node), i, &ins);
	}
}

/* A sample before cell 0 (inputs out of time order, merges): cell 0 moves
 * back to its second and every cell shifts. */
static void move_origin(struct time_cells *t, uint64_t origin)
{
	uint32_t shift = (uint32_t)((t->origin - origin) / TIME_CELL_NS);
	for (uint32_t i = 0; i < t->nr; i++)
		t->entries[i].cell += shift;
	t->cells += shift;
	t->origin = origin;
	reindex(t);
}

/* The cell of `when`, made room for; false (and the table marked
 * overflowed) when that would make it span more than TIME_CELLS_MAX. A
 * sample's time (not a copied cell's start) is also its first or last. */
static bool cell_of(struct time_cells *t, uint64_t when, bool sample, uint32_t *cell)
{
	if (!t->started) {
		t->started = true;
		t->origin = when - when % TIME_SECOND_NS;
		t->first = t->last = when;
	}
	uint64_t origin = when < t->origin ? when - when % TIME_SECOND_NS : t->origin;
	uint64_t at = (when - origin) / TIME_CELL_NS, end = t->cells + (t->origin - origin) / TIME_CELL_NS;
	if (at >= TIME_CELLS_MAX || end > TIME_CELLS_MAX) {
		t->overflow = true;
		return false;
	}
	if (origin != t->origin)
		move_origin(t, origin);
	if (sample && when < t->first)
		t->first = when;
	if (sample && when > t->last)
		t->last = when;
	if (at >= t->cells)
		t->cells = (uint32_t)at + 1;
	*cell = (uint32_t)at;
	return true;
}

static void add_cell(struct time_cells *t, uint32_t cell, node_t leaf, uint64_t count)
{
	bool ins;
	uint32_t *slot = hashmap_upsert(&t->index, key_of(cell, leaf), t->nr, &ins);
	if (!ins) {
		uint64_t *c = &t->entries[*slot].count;
		*c = *c > UINT64_MAX - count ? UINT64_MAX : *c + count; /* damaged input's periods */
		return;
	}
	if (t->nr == UINT32_MAX) { /* 64 GiB of entries: left out, as too long a span */
		t->overflow = true;
		return;
	}
	VEC_GROW(t->entries, (size_t)t->nr + 1, t->alloc);
	t->entries[t->nr++] = (struct time_entry){ cell, leaf, count };
}

void time_cells_renumber(struct time_cells *t, const uint32_t *map)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < t->nr; i++) {
		struct time_entry e = t->entries[i];
		if (map[e.node] == TIME_NODE_DROPPED)
			continue;
		e.node = map[e.node];
		t->entries[n++] = e;
	}
	t->nr = n;
	reindex(t);
}

void time_cells_note(struct time_cells *t, uint32_t id, uint64_t when, uint64_t count)
{
	uint32_t cell;
	if (cell_of(t, when, true, &cell))
		add_cell(t, cell, id, count);
}

void time_cells_span(struct profile *p, uint64_t when)
{
	profile_keep_time(p);
	uint32_t cell;
	cell_of(p->time, when, true, &cell);
}

void time_cells_add(struct profile *p, node_t leaf, uint64_t when, uint64_t count)
{
	time_cells_note(p->time, leaf, when, count);
}

void time_cells_copy(struct profile *dst, const struct profile *src, const node_t *map)
{
	if (src->time)
		time_cells_merge(dst, src->time, map);
}

/* t + shift in *out; false when that is below 0 or past 2^64. */
static bool shifted(uint64_t t, int64_t shift, uint64_t *out)
{
	if (shift < 0 && t < (uint64_t)-(shift + 1) + 1)
		return false;
	if (shift > 0 && t > UINT64_MAX - (uint64_t)shift)
		return false;
	*out = shift < 0 ? t - ((uint64_t)-(shift + 1) + 1) : t + (uint64_t)shift;
	return true;
}

void time_cells_merge(struct profile *dst, const struct time_cells *s, const node_t *map)
{
	profile_keep_time(dst);
	struct time_cells *d = dst->time;
	/* Both on the epoch, through clocks of their own (two perf.data of
	 * other boots or machines): src's times are moved into dst's clock,
	 * so that the same wall-clock time is the same cell. */
	int64_t shift = 0;
	if (s->epoch_known && d->epoch_known)
		shift = s->epoch_offset - d->epoch_offset;
	if (s->epoch_known && !d->epoch_known) {
		d->epoch_known = true;
		d->epoch_offset = s->epoch_offset;
	}
	if (!s->started)
		return;
	d->overflow |= s->overflow;
	/* first and last themselves, so that the span survives the copy */
	uint32_t cell;
	uint64_t when;
	if (shifted(s->first, shift, &when))
		cell_of(d, when, true, &cell);
	if (shifted(s->last, shift, &when))
		cell_of(d, when, true, &cell);
	for (uint32_t i = 0; i < s->nr; i++) {
		const struct time_entry *e = &s->entries[i];
		node_t to = map ? map[e->node] : e->node;
		if (to == TIME_NODE_DROPPED)
			continue;
		if (!shifted(s->origin + (uint64_t)e->cell * TIME_CELL_NS, shift, &when))
			d->overflow = true; /* before dst's clock began: no cell for it */
		else if (cell_of(d, when, false, &cell))
			add_cell(d, cell, to, e->count);
	}
}

static int by_cell_node(const void *a, const void *b)
{
	const struct time_entry *x = a, *y = b;
	if (x->cell != y->cell)
		return (x->cell > y->cell) - (x->cell < y->cell);
	return (x->node > y->node) - (x->node < y->node);
}

struct time_entry *time_cells_sorted(const struct time_cells *t)
{
	struct time_entry *e = xreallocarray(NULL, t->nr ? t->nr : 1, sizeof(*e));
	if (t->nr)
		memcpy(e, t->entries, t->nr * sizeof(*e));
	qsort(e, t->nr, sizeof(*e), by_cell_node);
	return e;
}

void time_cells_free(struct time_cells *t)
{
	if (!t)
		return;
	hashmap_release(&t->index);
	free(t->entries);
	free(t);
}
