/* THE model: interned frame names and a hash-consed stack trie with one or
 * two count columns (two for differential profiles). Every input feeds a
 * profile and every output reads one.
 *
 * Node ids are topologically ordered: a child is always created after its
 * parent, so one backward loop over ids computes inclusive totals. Node 0 is
 * the root (no frame). Code that walks the profile keeps ids, never pointers
 * into `nodes`, because the array grows. */
#ifndef SCORCH_PROFILE_PROFILE_H
#define SCORCH_PROFILE_PROFILE_H

#include "base/hashmap.h" /* for users that reach it through this header */
#include "base/strpool.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint32_t sym_t;  /* interned frame name */
typedef uint32_t node_t; /* trie node; 0 is the root */

#define PROFILE_ROOT ((node_t)0)

/* node.kids: how the children of a node are found. Most nodes of a real
 * trie have at most one child, which the node names itself; a node with
 * more has its own small hash table of (name, child), so the lookups of
 * sorted input (siblings one after the other) stay in a few cache lines. */
#define NODE_KIDS_NONE ((node_t)0)           /* no child (the root is no child) */
#define NODE_KIDS_TABLE ((node_t)0x80000000) /* flag: the rest indexes kid_slots */
#define NODE_MAX ((node_t)0x7fffffff)        /* node ids stay below the flag */

/* A count of one column: a whole number while every count added to the
 * profile was one (sums exact to 2^64 - 1), a double once the profile is
 * fractional (profile.fractional). Read them with profile_self. */
union count {
	uint64_t u;
	double d;
};

struct node {
	node_t parent;
	sym_t name;
	uint32_t depth; /* root 0, its children 1, ... */
	node_t kids;    /* NODE_KIDS_NONE, the only child, or NODE_KIDS_TABLE | table */
	union count self[2]; /* counts ending exactly here: column 0, and 1 for diffs */
};

/* A slot of a node's child table; child 0 marks an empty slot. A table is
 * a header slot (name: entries, child: log2 of the capacity) followed by
 * its slots. */
struct kid_slot {
	sym_t name;
	node_t child;
};

/* One input line or sample in arrival order, kept only when asked
 * (flame charts need time order; everything else aggregates). */
struct profile_event {
	node_t leaf;
	union count count[2]; /* as the nodes' self counts: whole unless the profile is fractional */
};

struct frame_sites; /* profile/frame_sites.h */
struct time_cells;  /* profile/time_cells.h */

struct profile {
	struct strpool names;
	struct node *nodes;
	uint32_t nr, alloc;
	struct kid_slot *kid_slots; /* child tables; slot 0 unused */
	uint32_t kid_slots_nr, kid_slots_alloc;
	uint32_t kid_free[32]; /* freed tables by log2 capacity (0: none) */
	bool differential;    /* some input carried two counts */
	bool fractional;      /* some count was not a whole number: self[].d */
	bool overflow;        /* profile_count_whole passed 2^64 - 1: counts are wrong */
	bool keep_events;
	struct profile_event *events;
	size_t events_nr, events_alloc;
	struct frame_sites *sites; /* where frame names' code lives, or NULL (frame_sites.h) */
	struct time_cells *time;   /* samples per 20 ms cell, or NULL (time_cells.h) */
};

void profile_init(struct profile *p);
void profile_release(struct profile *p);

static inline sym_t profile_sym(struct profile *p, const char *s, size_t n)
{
	return strpool_intern(&p->names, s, n);
}

static inline const char *profile_name(const struct profile *p, node_t n)
{
	return strpool_str(&p->names, p->nodes[n].name);
}

static inline uint32_t profile_name_len(const struct profile *p, node_t n)
{
	return strpool_len(&p->names, p->nodes[n].name);
}

/* The slot of `name` in child table t: its child, or the empty slot to
 * fill (a table always has one). */
static inline struct kid_slot *profile_kid_slot(struct profile *p, uint32_t t, sym_t name)
{
	uint32_t log2cap = p->kid_slots[t].child, mask = (1u << log2cap) - 1;
	struct kid_slot *slots = &p->kid_slots[t + 1];
	for (uint32_t i = (uint32_t)(name * 0x9e3779b1u) >> (32 - log2cap);; i = (i + 1) & mask)
		if (!slots[i].child || slots[i].name == name)
			return &slots[i];
}

/* profile_push when parent has no child named name: adds it. */
node_t profile_push_new(struct profile *p, node_t parent, sym_t name);

/* Find or add the child of `parent` named `name`. Inline: this runs for
 * every frame of every input line or sample, and a hit costs a few loads. */
static inline node_t profile_push(struct profile *p, node_t parent, sym_t name)
{
	node_t kids = p->nodes[parent].kids;
	if (kids & NODE_KIDS_TABLE) {
		const struct kid_slot *s = profile_kid_slot(p, kids & ~NODE_KIDS_TABLE, name);
		if (s->child)
			return s->child;
	} else if (kids != NODE_KIDS_NONE && p->nodes[kids].name == name) {
		return kids;
	}
	return profile_push_new(p, parent, name);
}

/* Convenience: push a frame given as bytes. */
static inline node_t profile_push_str(struct profile *p, node_t parent, const char *s, size_t n)
{
	return profile_push(p, parent, profile_sym(p, s, n));
}

/* Add counts at `leaf`. Single-column inputs pass c1 == c0 (see folded.c).
 * Whole numbers add exactly; a fraction, or a sum past 2^64 - 1, makes the
 * profile fractional (doubles from then on, as every count was once). */
void profile_add(struct profile *p, node_t leaf, double c0, double c1);

/* Add whole counts exactly. False, and nothing added, when a sum would pass
 * 2^64 - 1 (the caller names the input); a fractional profile adds them as
 * doubles. */
bool profile_add_whole(struct profile *p, node_t leaf, uint64_t c0, uint64_t c1);

/* One whole count in both columns (a sample's period): on overflow, sets
 * p->overflow for the caller to report once. */
static inline void profile_count_whole(struct profile *p, node_t leaf, uint64_t c)
{
	if (!profile_add_whole(p, leaf, c, c))
		p->overflow = true;
}

/* Add the counts of src's node n at dst's leaf, exactly when both are
 * whole; false on overflow, as profile_add_whole. */
bool profile_add_node(struct profile *dst, node_t leaf, const struct profile *src, node_t n);

/* Add src's count at n in column src_col to dst's leaf in column col only
 * (diff's sides); false on overflow, as profile_add_whole. */
bool profile_add_column(struct profile *dst, node_t leaf, int col, const struct profile *src, node_t n,
			int src_col);

/* Switch the profile's counts to doubles (profile_add does it when needed). */
void profile_make_fractional(struct profile *p);

/* The count at n in a column, as a double (exact below 2^53). */
static inline double profile_self(const struct profile *p, node_t n, int column)
{
	const union count *c = &p->nodes[n].self[column];
	return p->fractional ? c->d : (double)c->u;
}

/* An event's count in a column, as a double (exact below 2^53). */
static inline double profile_event_count(const struct profile *p, const struct profile_event *e, int column)
{
	return p->fractional ? e->count[column].d : (double)e->count[column].u;
}

/* Keep src's event e in dst, at dst's leaf (exact while both are whole). */
void profile_copy_event(struct profile *dst, node_t leaf, const struct profile *src, const struct profile_event *e);

/* Whether any count ends at n. */
static inline bool profile_has_self(const struct profile *p, node_t n)
{
	const union count *c = p->nodes[n].self;
	return p->fractional ? c[0].d != 0 || c[1].d != 0 : (c[0].u | c[1].u) != 0;
}

/* Add one count to both columns: what single-column inputs do. */
static inline void profile_count(struct profile *p, node_t leaf, double c)
{
	profile_add(p, leaf, c, c);
}

/* Merge src into dst (names re-interned; events, frame sites and time
 * cells carried). False when a whole sum would pass 2^64 - 1 (dst then
 * holds part of src). */
bool profile_merge(struct profile *dst, const struct profile *src);
/* The same with src's stacks below dst's node `under` (merge NAME=FILE). */
bool profile_merge_under(struct profile *dst, const struct profile *src, node_t under);

/* Inclusive totals per node for a column: returns a malloc'd array of nr. */
double *profile_totals(const struct profile *p, int column);
/* Sum of all self counts in a column. */
double profile_total(const struct profile *p, int column);
/* The same, exact, for a profile that is not fractional: false when the
 * sum passes 2^64 - 1. */
bool profile_total_whole(const struct profile *p, int column, uint64_t *sum);

/* Write the path root..n (exclusive of the root) as "a;b;c" into a growing
 * buffer; returns the length. *buf is realloc'd as needed. */
size_t profile_path(const struct profile *p, node_t n, char **buf, size_t *alloc);

#endif
