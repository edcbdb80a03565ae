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

struct symbol {
	uint64_t start, end; /* [start, end) in the dso's address space */
	const char *name;    /* as printed (demangled, maybe @VERSION) */
	uint32_t seq;        /* insertion order (ties) */
	uint16_t base_len;   /* length perf compares when choosing (no version) */
	uint8_t bind;
	uint8_t underscores; /* leading '_' count of the raw name */
};

/* The symbols live in a red-black tree balanced exactly like the kernel's
 * lib/rbtree.c that perf uses: when symbols overlap (a zero-sized _init
 * stretched over the PLT, say), perf's lookup returns the first containing
 * node on its descent, so matching perf means matching the tree's shape. */
struct rb_links {
	uint32_t parent, left, right; /* UINT32_MAX = none */
	uint8_t black;
};

struct symtab {
	struct symbol *v;
	struct rb_links *rb;
	size_t nr, alloc, rb_alloc;
	uint32_t root;
	size_t live; /* symbols still in the tree */
	struct arena names;
};

void symtab_init(struct symtab *t);
void symtab_release(struct symtab *t);
/* name is copied. base_len: the length perf's tie-break compares. May be
 * called after symtab_finish() too (perf adds PLT symbols after its
 * fix-ups, without redoing them). */
void symtab_add(struct symtab *t, uint64_t start, uint64_t size, int bind, const char *name,
		size_t len, size_t base_len, unsigned underscores);
/* Sort and apply the fix-ups; kallsyms=true for kernel symbol tables. */
void symtab_finish(struct symtab *t, bool kallsyms);
const struct symbol *symtab_find(const struct symtab *t, uint64_t addr);
/* Start of the first and end of the last symbol; false when empty. */
bool symtab_bounds(const struct symtab *t, uint64_t *lo, uint64_t *hi);

#endif
