/* A DSO's function symbols, sorted, with perf's fix-ups: zero-sized symbols
 * extend to the next one, and of several symbols at one address only the
 * one perf would keep survives (symbols__fixup_end / _duplicate). */
#ifndef SCORCH_SYMBOLIZE_SYMTAB_H
#define SCORCH_SYMBOLIZE_SYMTAB_H

#include "base/arena.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { SYM_BIND_LOCAL = 0, SYM_BIND_GLOBAL = 1, SYM_BIND_WEAK = 2 };

struct symbol {              /* symtab.v[i] is the i-th added (ties keep that order) */
	uint64_t start, end; /* [start, end) in the dso's address space */
	const char *name;    /* as printed; the raw name while `raw` is set */
	uint16_t base_len;   /* name length perf compares when choosing */
	uint8_t bind;
	uint8_t underscores; /* leading '_' count of the name */
	uint8_t raw;         /* not demangled yet (demangled on first use); before
				measured: whether it is to be demangled */
	uint8_t pending;     /* stands for a duplicate group not decided yet */
	uint8_t measured;    /* base_len, underscores and raw are set (a held name
				is not read until a lookup or a tie needs it) */
};

/* Symbols sharing a start address (members[first .. first + nr) in perf's
 * order). perf keeps one, chosen by size, binding, then the demangled
 * name's leading '_' count and length. When the choice comes down to names
 * that still need demangling, or held names not read yet, and every
 * candidate has the same extent, it is made on the first lookup that lands
 * there (or when the exact tree is needed): a large C++ or Rust library has
 * tens of thousands of such groups, a profile touches few of them, and
 * reading their names at load time means a cache miss each in a string
 * table of tens of megabytes. */
struct dup_group {
	uint64_t start;
	uint32_t first, nr;
	bool decided;
};

/* perf keeps symbols in a red-black tree (the kernel's lib/rbtree.c) and
 * its lookup returns the first containing node on the descent. Outside
 * regions where symbols overlap that is simply "the symbol containing the
 * address", which a binary search answers. Inside them (a zero-sized _init
 * stretched over the PLT, nested symbols) the answer depends on the tree's
 * shape, so for those lookups the exact tree is rebuilt once: same inserts,
 * same erases, same balancing. */
struct rb_links {                     /* node i stands for symbol v[i] */
	uint32_t parent, child[2];    /* child[0] left, [1] right; UINT32_MAX = none */
	uint8_t black;
	uint8_t stand_in;             /* stands for a duplicate group whose survivor
					 is not chosen yet (see erase_group) */
};

struct symtab {
	struct symbol *v;         /* in insertion order */
	size_t nr, alloc;
	bool finished;
	size_t nr_at_finish;      /* symbols added later (PLT) come after */
	size_t merged_upto;       /* symbols already merged into `sorted` */
	size_t nr_erased;         /* duplicates the fix-up erased from the tree */
	bool decide_every_erase;  /* choose at every step of the fix-up, as perf
				     does (no stand-ins), and insert later
				     symbols by descents: for tests */
	uint8_t *dead;            /* not a lookup candidate (lost, or pending) */
	struct dup_group *groups; /* by start */
	size_t nr_groups, groups_alloc;
	uint32_t *members;        /* the groups' symbols */
	size_t nr_members, members_alloc;
	/* lookup structure, (re)built on the first lookup after a change */
	bool prepared, tree_built;
	uint32_t *sorted;         /* survivors by start */
	uint32_t *by_start;       /* all symbols at the fix-up by start, ties in
				     insertion order (the tree's first inserts) */
	uint64_t *starts;         /* their starts (searched: contiguous) */
	size_t nr_sorted;
	uint32_t *buckets;        /* index into starts by address (see index_starts) */
	size_t nr_buckets;
	unsigned bucket_shift;
	uint64_t *contested;      /* [start, end) pairs where symbols overlap */
	size_t nr_contested;
	struct symtab_memo { uint64_t addr; uint32_t idx; } *memo; /* recent lookups, direct-mapped
				     (idx UINT32_MAX: none found; addr UINT64_MAX: empty) */
	unsigned memo_bits;
	struct rb_links *rb;      /* exact perf tree, built for contested lookups */
	uint32_t root;
	size_t live;
	struct arena names;
	struct symtab_owner { void *p; void (*release)(void *); } *owners;
	size_t nr_owners, owners_alloc;
	size_t held_bytes;        /* what the owners hold for it (symtab_hold) */
};

void symtab_init(struct symtab *t);
void symtab_release(struct symtab *t);
/* name is copied. base_len: the length perf's tie-break compares. May be
 * called after symtab_finish() too (perf adds PLT symbols after its
 * fix-ups, without redoing them). */
void symtab_add(struct symtab *t, uint64_t start, uint64_t size, int bind, const char *name,
		size_t len, size_t base_len, unsigned underscores);
/* Sort and apply the fix-ups; kallsyms=true for kernel symbol tables. */
/* A symbol whose name is demangled (as perf would at load time) only when
 * it is first needed: by a lookup that returns it, or by the duplicate
 * fix-up comparing it. Loading a 150,000-symbol library then demangles the
 * few names a profile touches instead of all of them. */
void symtab_add_mangled(struct symtab *t, uint64_t start, uint64_t size, int bind,
			const char *name, size_t len);
/* Like symtab_add_mangled (mangled) or symtab_add with the name's own
 * length and '_' count, but name (NUL-terminated) is neither copied nor
 * read now: it must stay valid as long as the table, e.g. in a string
 * table that symtab_hold keeps. */
static inline void symtab_add_held(struct symtab *t, uint64_t start, uint64_t size, int bind,
				   const char *name, bool mangled);
/* release(p) when the table is released; bytes: what p holds for the
 * table (symtab_bytes). */
void symtab_hold(struct symtab *t, void *p, void (*release)(void *), size_t bytes);
/* The bytes the table holds: its arrays, its names, and what it holds
 * in place (symtab_hold: the string and symbol tables of a mapped file). */
size_t symtab_bytes(const struct symtab *t);
/* Room for n symbols in all (saves regrowing while loading). */
void symtab_reserve(struct symtab *t, size_t n);
void symtab_finish(struct symtab *t, bool kallsyms);
struct symbol *symtab_find(struct symtab *t, uint64_t addr);
/* The printed name of a symbol from symtab_find (demangled on first use). */
const char *symtab_name(struct symtab *t, struct symbol *s);
/* The end perf's descent compares at node n of the exact tree: the
 * symbol's, or for a node standing for an undecided group its
 * candidates'. */
uint64_t symtab_node_end(struct symtab *t, uint32_t n);
/* Start of the first and end of the last symbol; false when empty. */
bool symtab_bounds(struct symtab *t, uint64_t *lo, uint64_t *hi);

/* Inline: a library's table adds hundreds of thousands. */
static inline void symtab_add_held(struct symtab *t, uint64_t start, uint64_t size, int bind,
				   const char *name, bool mangled)
{
	if (t->nr == t->alloc)
		symtab_reserve(t, t->nr + 1);
	t->v[t->nr++] = (struct symbol){ .start = start, .end = start + size, .name = name,
					 .bind = (uint8_t)bind, .raw = mangled };
	t->prepared = false;
}

#endif
