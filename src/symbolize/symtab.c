/* Symbol tables with perf's fix-ups, in a red-black tree whose balancing
 * follows the Linux kernel's lib/rbtree.c step for step (insert: recolor or
 * rotate at parent then grandparent; erase: successor splice, then the
 * four sibling cases). Only the shape matters: perf's symbols__find stops
 * at the first node on the descent that contains the address, so with
 * overlapping symbols the shape decides which name is printed. */
#include "symbolize/symtab.h"

#include "base/alloc.h"
#include "symbolize/demangle.h"

#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX

void symtab_init(struct symtab *t)
{
	memset(t, 0, sizeof(*t));
	t->root = NIL;
	arena_init(&t->names);
}

void symtab_release(struct symtab *t)
{
	free(t->v);
	free(t->rb);
	free(t->dead);
	free(t->sorted);
	free(t->by_start);
	free(t->starts);
	free(t->buckets);
	free(t->memo);
	free(t->contested);
	free(t->groups);
	free(t->members);
	for (size_t i = 0; i < t->nr_owners; i++)
		t->owners[i].release(t->owners[i].p);
	free(t->owners);
	arena_release(&t->names);
	memset(t, 0, sizeof(*t));
	t->root = NIL;
}

/* ---- the tree -------------------------------------------------------------- */

static inline bool is_black(const struct symtab *t, uint32_t n)
{
	return n == NIL || t->rb[n].black;
}

static void change_child(struct symtab *t, uint32_t old, uint32_t new, uint32_t parent)
{
	if (parent != NIL) {
		if (t->rb[parent].child[0] == old)
			t->rb[parent].child[0] = new;
		else
			t->rb[parent].child[1] = new;
	} else {
		t->root = new;
	}
}

/* new takes old's place (parent and colour); old becomes new's child with
 * the given colour. */
static void rotate_set_parents(struct symtab *t, uint32_t old, uint32_t new, uint8_t black)
{
	uint32_t parent = t->rb[old].parent;
	t->rb[new].parent = parent;
	t->rb[new].black = t->rb[old].black;
	t->rb[old].parent = new;
	t->rb[old].black = black;
	change_child(t, old, new, parent);
}

static void set_pc(struct symtab *t, uint32_t n, uint32_t parent, uint8_t black)
{
	t->rb[n].parent = parent;
	t->rb[n].black = black;
}

static void insert_color(struct symtab *t, uint32_t node)
{
	uint32_t parent = t->rb[node].parent, gparent, tmp;
	for (;;) {
		if (parent == NIL) {
			set_pc(t, node, NIL, 1);
			break;
		}
		if (t->rb[parent].black)
			break;
		gparent = t->rb[parent].parent;
		/* d: the side parent hangs on; the other side is the mirror image */
		unsigned d = t->rb[gparent].child[1] == parent;
		tmp = t->rb[gparent].child[!d];
		if (tmp != NIL && !t->rb[tmp].black) {
			set_pc(t, tmp, gparent, 1);
			set_pc(t, parent, gparent, 1);
			node = gparent;
			parent = t->rb[node].parent;
			set_pc(t, node, parent, 0);
			continue;
		}
		tmp = t->rb[parent].child[!d];
		if (node == tmp) {
			tmp = t->rb[node].child[d];
			t->rb[parent].child[!d] = tmp;
			t->rb[node].child[d] = parent;
			if (tmp != NIL)
				set_pc(t, tmp, parent, 1);
			set_pc(t, parent, node, 0);
			parent = node;
			tmp = t->rb[node].child[!d];
		}
		t->rb[gparent].child[d] = tmp;
		t->rb[parent].child[!d] = gparent;
		if (tmp != NIL)
			set_pc(t, tmp, gparent, 1);
		rotate_set_parents(t, gparent, parent, 0);
		break;
	}
}

/* Insert n as a leaf under parent (NIL: as the root) on side d. */
static void tree_link(struct symtab *t, uint32_t n, uint32_t parent, unsigned d)
{
	t->rb[n] = (struct rb_links){ parent, { NIL, NIL }, 0, 0 };
	if (parent == NIL)
		t->root = n;
	else
		t->rb[parent].child[d] = n;
	insert_color(t, n);
	t->live++;
}

/* perf's insert: descend from the root, equal starts to the right. */
static void tree_insert(struct symtab *t, uint32_t n)
{
	uint64_t key = t->v[n].start;
	uint32_t parent = NIL, cur = t->root;
	unsigned d = 0; /* 0: left, 1: right */
	while (cur != NIL) {
		parent = cur;
		d = !(key < t->v[cur].start);
		cur = t->rb[cur].child[d];
	}
	tree_link(t, n, parent, d);
}

/* The same inserts as perf's descents, without them: the nodes of seq[]
 * (all symbols in in-order, ties in insertion order) with an index in
 * [first_new, end) are inserted in index order; those before first_new
 * are already in the tree. A descent puts a new node between its neighbours among the
 * nodes already in the tree: under the one before it when that one has
 * no right child, else under the one after it (which then has no left
 * child). Those neighbours at insertion time are, in seq, the nearest
 * earlier and later entries inserted before it: found for all in one pass
 * each way. */
static void tree_insert_all(struct symtab *t, const uint32_t *seq, size_t n, uint32_t first_new,
			    uint32_t end)
{
	size_t nr_new = end - first_new;
	uint32_t *before = xmalloc((nr_new ? nr_new : 1) * sizeof(*before));
	uint32_t *after = xmalloc((nr_new ? nr_new : 1) * sizeof(*after));
	uint32_t *stack = xmalloc((n ? n : 1) * sizeof(*stack));
	size_t depth = 0; /* inserted earlier: a smaller index */
	for (size_t k = 0; k < n; k++) {
		uint32_t i = seq[k];
		while (depth && stack[depth - 1] > i)
			depth--;
		if (i >= first_new)
			before[i - first_new] = depth ? stack[depth - 1] : NIL;
		stack[depth++] = i;
	}
	depth = 0;
	for (size_t k = n; k-- > 0;) {
		uint32_t i = seq[k];
		while (depth && stack[depth - 1] > i)
			depth--;
		if (i >= first_new)
			after[i - first_new] = depth ? stack[depth - 1] : NIL;
		stack[depth++] = i;
	}
	free(stack);
	for (uint32_t k = 0; k < nr_new; k++) {
		uint32_t i = first_new + k;
		if (before[k] != NIL && t->rb[before[k]].child[1] == NIL)
			tree_link(t, i, before[k], 1);
		else
			tree_link(t, i, after[k], 0);
	}
	free(before);
	free(after);
}

static void erase_color(struct symtab *t, uint32_t parent)
{
	uint32_t node = NIL, sibling, tmp1, tmp2;
	for (;;) {
		/* d: the side node is on; the other side is the mirror image */
		unsigned d = t->rb[parent].child[1] == node;
		sibling = t->rb[parent].child[!d];
		if (!is_black(t, sibling)) {
			tmp1 = t->rb[sibling].child[d];
			t->rb[parent].child[!d] = tmp1;
			t->rb[sibling].child[d] = parent;
			set_pc(t, tmp1, parent, 1);
			rotate_set_parents(t, parent, sibling, 0);
			sibling = tmp1;
		}
		tmp1 = t->rb[sibling].child[!d];
		if (is_black(t, tmp1)) {
			tmp2 = t->rb[sibling].child[d];
			if (is_black(t, tmp2)) {
				set_pc(t, sibling, parent, 0);
				if (!t->rb[parent].black) {
					t->rb[parent].black = 1;
				} else {
					node = parent;
					parent = t->rb[node].parent;
					if (parent != NIL)
						continue;
				}
				break;
			}
			tmp1 = t->rb[tmp2].child[!d];
			t->rb[sibling].child[d] = tmp1;
			t->rb[tmp2].child[!d] = sibling;
			t->rb[parent].child[!d] = tmp2;
			if (tmp1 != NIL)
				set_pc(t, tmp1, sibling, 1);
			tmp1 = sibling;
			sibling = tmp2;
		}
		tmp2 = t->rb[sibling].child[d];
		t->rb[parent].child[!d] = tmp2;
		t->rb[sibling].child[d] = parent;
		set_pc(t, tmp1, sibling, 1);
		if (tmp2 != NIL)
			t->rb[tmp2].parent = parent;
		rotate_set_parents(t, parent, sibling, 1);
		break;
	}
}

static void tree_erase(struct symtab *t, uint32_t node)
{
	uint32_t child = t->rb[node].child[1], tmp = t->rb[node].child[0], parent, rebalance;
	if (tmp == NIL) {
		parent = t->rb[node].parent;
		uint8_t black = t->rb[node].black;
		change_child(t, node, child, parent);
		if (child != NIL) {
			set_pc(t, child, parent, black);
			rebalance = NIL;
		} else {
			rebalance = black ? parent : NIL;
		}
	} else if (child == NIL) {
		parent = t->rb[node].parent;
		set_pc(t, tmp, parent, t->rb[node].black);
		change_child(t, node, tmp, parent);
		rebalance = NIL;
	} else {
		uint32_t successor = child, child2;
		tmp = t->rb[child].child[0];
		if (tmp == NIL) {
			parent = successor;
			child2 = t->rb[successor].child[1];
		} else {
			do {
				parent = successor;
				successor = tmp;
				tmp = t->rb[tmp].child[0];
			} while (tmp != NIL);
			child2 = t->rb[successor].child[1];
			t->rb[parent].child[0] = child2;
			t->rb[successor].child[1] = child;
			t->rb[child].parent = successor;
		}
		tmp = t->rb[node].child[0];
		t->rb[successor].child[0] = tmp;
		t->rb[tmp].parent = successor;
		uint32_t np = t->rb[node].parent;
		uint8_t nblack = t->rb[node].black;
		change_child(t, node, successor, np);
		if (child2 != NIL) {
			set_pc(t, child2, parent, 1);
			rebalance = NIL;
		} else {
			rebalance = t->rb[successor].black ? parent : NIL;
		}
		set_pc(t, successor, np, nblack);
	}
	if (rebalance != NIL)
		erase_color(t, rebalance);
	t->live--;
}

/* ---- symbols ----------------------------------------------------------------- */

void symtab_reserve(struct symtab *t, size_t n)
{
	VEC_GROW(t->v, n, t->alloc);
}

void symtab_hold(struct symtab *t, void *p, void (*release)(void *), size_t bytes)
{
	VEC_GROW(t->owners, t->nr_owners + 1, t->owners_alloc);
	t->owners[t->nr_owners++] = (struct symtab_owner){ p, release };
	t->held_bytes += bytes;
}

size_t symtab_bytes(const struct symtab *t)
{
	size_t n = t->alloc * sizeof(*t->v) + t->held_bytes + t->names.total;
	n += t->owners_alloc * sizeof(*t->owners);
	n += t->groups_alloc * sizeof(*t->groups) + t->members_alloc * sizeof(*t->members);
	if (t->dead)
		n += t->nr;
	if (t->rb)
		n += t->nr * sizeof(*t->rb);
	if (t->sorted) /* (sized for every symbol at most) */
		n += t->nr * sizeof(*t->sorted);
	if (t->by_start)
		n += t->nr * sizeof(*t->by_start);
	if (t->starts)
		n += t->nr_sorted * sizeof(*t->starts);
	if (t->buckets)
		n += (t->nr_buckets + 1) * sizeof(*t->buckets);
	if (t->memo)
		n += sizeof(*t->memo) << t->memo_bits;
	return n + 2 * t->nr_contested * sizeof(*t->contested);
}

/* Names a demangler could change: their choice is deferred. */
static bool demanglable(const char *name, size_t len)
{
	return len >= 2 && name[0] == '_' && (name[1] == 'Z' || name[1] == 'R' || name[1] == 'G');
}

static void push(struct symtab *t, uint64_t start, uint64_t size, int bind, const char *name,
		 size_t base_len, unsigned underscores, bool raw, bool measured)
{
	VEC_GROW(t->v, t->nr + 1, t->alloc);
	t->v[t->nr] = (struct symbol){
		.start = start,
		.end = start + size,
		.name = name,
		.base_len = base_len > UINT16_MAX ? UINT16_MAX : (uint16_t)base_len,
		.bind = (uint8_t)bind,
		.underscores = underscores > 255 ? 255 : (uint8_t)underscores,
		.raw = raw,
		.measured = measured,
	};
	t->nr++;
	t->prepared = false;
}

static unsigned leading_underscores(const char *name, size_t len)
{
	unsigned us = 0;
	while (us < len && name[us] == '_')
		us++;
	return us;
}

void symtab_add(struct symtab *t, uint64_t start, uint64_t size, int bind, const char *name,
		size_t len, size_t base_len, unsigned underscores)
{
	push(t, start, size, bind, arena_memdup0(&t->names, name, len), base_len, underscores, false, true);
}

void symtab_add_mangled(struct symtab *t, uint64_t start, uint64_t size, int bind,
			const char *name, size_t len)
{
	push(t, start, size, bind, arena_memdup0(&t->names, name, len), len,
	     leading_underscores(name, len), demanglable(name, len), true);
}


/* A held name's length, leading '_' and whether a demangler could change
 * it: read when first needed. */
static void measure(struct symbol *s)
{
	if (s->measured)
		return;
	size_t len = strlen(s->name);
	s->measured = 1;
	s->base_len = len > UINT16_MAX ? UINT16_MAX : (uint16_t)len;
	unsigned us = leading_underscores(s->name, len);
	s->underscores = us > 255 ? 255 : (uint8_t)us;
	s->raw = s->raw && demanglable(s->name, len);
}

static void demangle_now(struct symtab *t, struct symbol *s)
{
	measure(s);
	if (!s->raw)
		return;
	s->raw = 0;
	struct demangled dm;
	if (demangle_into(s->name, &dm)) {
		size_t len = dm.len;
		s->name = arena_memdup0(&t->names, dm.s, len);
		s->base_len = len > UINT16_MAX ? UINT16_MAX : (uint16_t)len;
		unsigned us = leading_underscores(dm.s, len);
		s->underscores = us > 255 ? 255 : (uint8_t)us;
	}
	demangled_release(&dm);
}

const char *symtab_name(struct symtab *t, struct symbol *s)
{
	demangle_now(t, s);
	return s->name;
}

/* perf's choose_best_symbol as a rank: a larger rank wins before names are
 * compared (sized over empty, then global, local, weak). */
static unsigned rank(const struct symbol *s)
{
	unsigned bind = s->bind == SYM_BIND_GLOBAL ? 2 : s->bind == SYM_BIND_WEAK ? 0 : 1;
	return (s->end != s->start) * 4 + bind;
}

/* perf's choose_best_symbol: true when a is kept over b. The names are
 * demangled only when the choice comes down to them; two identical raw
 * names tie without it. */
static bool keep_first(struct symtab *t, struct symbol *a, struct symbol *b)
{
	unsigned ra = rank(a), rb = rank(b);
	if (ra != rb)
		return ra > rb;
	measure(a);
	measure(b);
	if (a->raw && b->raw && !strcmp(a->name, b->name))
		return true;
	demangle_now(t, a);
	demangle_now(t, b);
	if (a->underscores != b->underscores)
		return a->underscores < b->underscores;
	if (a->base_len != b->base_len)
		return a->base_len > b->base_len;
	return true;
}

/* Sorting by start, ties in insertion order. Keys are packed as
 * (start - lowest) << 32 | index and sorted on the upper half by a stable
 * LSD radix sort over the bits that differ between keys only, in digits
 * of at most 11 bits, all counted in one pass first: a library's offsets
 * (under 2^28) take three passes. A 260,000-symbol .dynsym sorts several
 * times faster than with qsort. Tables spanning 4 GiB or more (a JIT map)
 * are sorted with qsort. */
enum { RADIX_MAX_BITS = 11 };

/* Sorts k[0..n) by k >> 32 into k or tmp; returns which. */
static uint64_t *radix_sort(uint64_t *k, uint64_t *tmp, size_t n, uint32_t differ)
{
	if (!differ)
		return k;
	unsigned lo = (unsigned)__builtin_ctz(differ) + 32, hi = 63 - (unsigned)__builtin_clz(differ);
	unsigned span = hi - lo + 1;
	unsigned passes = (span + RADIX_MAX_BITS - 1) / RADIX_MAX_BITS;
	unsigned bits = (span + passes - 1) / passes;
	uint64_t mask = ((uint64_t)1 << bits) - 1;
	uint32_t(*count)[1u << RADIX_MAX_BITS] = xcalloc(passes, sizeof(*count));
	/* at most three digits of a 32-bit key (a digit past the top counts
	 * zeros into a table no pass reads) */
	uint32_t *c0 = count[0], *c1 = count[passes > 1], *c2 = count[passes > 2 ? 2 : 0];
	for (size_t i = 0; i < n; i++) {
		uint64_t key = k[i] >> lo;
		c0[key & mask]++;
		if (passes > 1) {
			c1[key >> bits & mask]++;
			if (passes > 2)
				c2[key >> 2 * bits & mask]++;
		}
	}
	uint64_t *src = k, *dst = tmp;
	for (unsigned p = 0; p < passes; p++) {
		unsigned shift = lo + p * bits;
		uint32_t sum = 0;
		for (uint64_t b = 0; b <= mask; b++) {
			uint32_t c = count[p][b];
			count[p][b] = sum;
			sum += c;
		}
		uint32_t *pos = count[p];
		for (size_t i = 0; i < n; i++)
			dst[pos[src[i] >> shift & mask]++] = src[i];
		uint64_t *t = src;
		src = dst;
		dst = t;
	}
	free(count);
	return src;
}

struct sort_key {
	uint64_t start;
	uint32_t seq;
};

static int by_start_then_seq(const void *pa, const void *pb)
{
	const struct sort_key *a = pa, *b = pb;
	if (a->start != b->start)
		return (a->start > b->start) - (a->start < b->start);
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* ord[0..m) by start, then index */
static void qsort_range(const struct symtab *t, uint32_t *ord, size_t m)
{
	struct sort_key *k = xmalloc((m ? m : 1) * sizeof(*k));
	for (size_t i = 0; i < m; i++)
		k[i] = (struct sort_key){ t->v[ord[i]].start, ord[i] };
	qsort(k, m, sizeof(*k), by_start_then_seq);
	for (size_t i = 0; i < m; i++)
		ord[i] = k[i].seq;
	free(k);
}

/* Indices [from, to) that are not dead, sorted by start, ties in insertion
 * order: the tree's in-order sequence. */
static uint32_t *sorted_range(const struct symtab *t, size_t from, size_t to, size_t *n)
{
	uint32_t *ord = xmalloc((to - from + 1) * sizeof(*ord));
	size_t m = 0;
	bool sorted = true;
	uint64_t lowest = UINT64_MAX, highest = 0, prev = 0;
	for (size_t i = from; i < to; i++) {
		if (t->dead && i < t->nr_at_finish && t->dead[i])
			continue;
		uint64_t start = t->v[i].start;
		sorted &= start >= prev;
		prev = start;
		lowest = start < lowest ? start : lowest;
		highest = start > highest ? start : highest;
		ord[m++] = (uint32_t)i;
	}
	*n = m;
	if (sorted)
		return ord;
	if (highest - lowest > UINT32_MAX) {
		qsort_range(t, ord, m);
		return ord;
	}
	uint64_t *k = xmalloc(2 * m * sizeof(*k));
	uint32_t all_or = 0, all_and = UINT32_MAX;
	for (size_t i = 0; i < m; i++) {
		uint32_t rel = (uint32_t)(t->v[ord[i]].start - lowest);
		all_or |= rel;
		all_and &= rel;
		k[i] = (uint64_t)rel << 32 | ord[i];
	}
	const uint64_t *out = radix_sort(k, k + m, m, all_or ^ all_and);
	for (size_t i = 0; i < m; i++)
		ord[i] = (uint32_t)out[i];
	free(k);
	return ord;
}

static unsigned best_rank(const struct symtab *t, const struct dup_group *g)
{
	unsigned best = 0;
	for (uint32_t i = 0; i < g->nr; i++)
		if (rank(&t->v[t->members[g->first + i]]) > best)
			best = rank(&t->v[t->members[g->first + i]]);
	return best;
}

/* perf's pairwise pass over a group: the survivor. Only the members of
 * the best rank take part (the survivor is the first of the best, so the
 * others need not be compared by name). */
static uint32_t run_group(struct symtab *t, const struct dup_group *g)
{
	const uint32_t *m = t->members + g->first;
	unsigned best = best_rank(t, g);
	uint32_t curr = UINT32_MAX;
	for (uint32_t i = 0; i < g->nr; i++) {
		if (rank(&t->v[m[i]]) < best)
			continue;
		if (curr == UINT32_MAX)
			curr = m[i];
		else if (!keep_first(t, &t->v[curr], &t->v[m[i]]))
			curr = m[i];
	}
	return curr;
}

/* Record a group and make its survivor (or stand-in) the only member that
 * lookups see. */
static void add_group(struct symtab *t, const uint32_t *ord, uint32_t nr)
{
	VEC_GROW(t->members, t->nr_members + nr, t->members_alloc);
	memcpy(t->members + t->nr_members, ord, nr * sizeof(*ord));
	VEC_GROW(t->groups, t->nr_groups + 1, t->groups_alloc);
	struct dup_group *g = &t->groups[t->nr_groups++];
	*g = (struct dup_group){ t->v[ord[0]].start, (uint32_t)t->nr_members, nr, true };
	t->nr_members += nr;
	/* the candidates: the members of the best rank (the others lose
	 * whatever their names) */
	unsigned best = best_rank(t, g);
	uint32_t first = UINT32_MAX, count = 0;
	bool unread = false, same_end = true;
	for (uint32_t i = 0; i < nr; i++) {
		const struct symbol *s = &t->v[ord[i]];
		if (rank(s) != best)
			continue;
		if (first == UINT32_MAX)
			first = ord[i];
		count++;
		/* a held name not read yet, or one to demangle: reading it
		 * now would touch the string table at a random place */
		unread |= !s->measured || s->raw;
		same_end &= s->end == t->v[first].end;
	}
	uint32_t keep = first;
	if (count > 1 && !(unread && same_end))
		keep = run_group(t, g);
	else if (count > 1) {
		g->decided = false;
		t->v[first].pending = 1;
	}
	for (uint32_t i = 0; i < nr; i++)
		t->dead[ord[i]] = ord[i] != keep;
}

static struct dup_group *group_at(struct symtab *t, uint64_t start)
{
	size_t lo = 0, hi = t->nr_groups;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->groups[mid].start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return &t->groups[lo];
}

/* Make perf's choice for a pending group: the survivor replaces the
 * stand-in (same extent, so the same place among the survivors). */
static uint32_t decide(struct symtab *t, struct dup_group *g, uint32_t survivor)
{
	g->decided = true;
	uint32_t stand_in = UINT32_MAX;
	for (uint32_t i = 0; i < g->nr; i++)
		if (t->v[t->members[g->first + i]].pending)
			stand_in = t->members[g->first + i];
	t->v[stand_in].pending = 0;
	if (survivor == stand_in)
		return survivor;
	t->dead[stand_in] = 1;
	t->dead[survivor] = 0;
	size_t lo = 0, hi = t->nr_sorted;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->v[t->sorted[mid]].start < g->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (t->sorted[lo] != stand_in)
		lo++;
	t->sorted[lo] = survivor;
	return survivor;
}

void symtab_finish(struct symtab *t, bool kallsyms)
{
	t->finished = true;
	t->nr_at_finish = t->merged_upto = t->nr;
	t->dead = xcalloc(t->nr ? t->nr : 1, 1);
	t->prepared = false;
	size_t n;
	uint32_t *ord = sorted_range(t, 0, t->nr, &n);
	if (!n) {
		free(ord);
		return;
	}
	/* fixup_end: zero-sized symbols end where the next begins; the runs
	 * of equal starts (perf's duplicates) are noted on the way, as
	 * (first, count) pairs of positions in ord */
	uint32_t *runs = NULL;
	size_t nr_runs = 0, runs_alloc = 0, run_from = 0;
	for (size_t i = 0; i + 1 < n; i++) {
		struct symbol *prev = &t->v[ord[i]], *curr = &t->v[ord[i + 1]];
		if (prev->end == prev->start) {
			if (kallsyms && (!strchr(prev->name, '[') != !strchr(curr->name, '[')))
				prev->end = ((prev->end + 4096) + 4095) / 4096 * 4096;
			else
				prev->end = curr->start;
		}
		if (curr->start != prev->start) {
			if (i + 1 - run_from > 1) {
				VEC_GROW(runs, 2 * nr_runs + 2, runs_alloc);
				runs[2 * nr_runs] = (uint32_t)run_from;
				runs[2 * nr_runs++ + 1] = (uint32_t)(i + 1 - run_from);
			}
			run_from = i + 1;
		}
	}
	if (n - run_from > 1) {
		VEC_GROW(runs, 2 * nr_runs + 2, runs_alloc);
		runs[2 * nr_runs] = (uint32_t)run_from;
		runs[2 * nr_runs++ + 1] = (uint32_t)(n - run_from);
	}
	struct symbol *last = &t->v[ord[n - 1]];
	if (last->end == last->start)
		last->end = (last->start + 4095) / 4096 * 4096 + 4096;
	/* fixup_duplicate: one symbol per start (see struct dup_group) */
	for (size_t r = 0; r < nr_runs; r++)
		add_group(t, ord + runs[2 * r], runs[2 * r + 1]);
	/* keep the survivors' order for lookups (only a run can have lost
	 * symbols), and everyone's for the tree */
	uint32_t *live = xmalloc(n * sizeof(*live));
	size_t w = 0, from = 0;
	for (size_t r = 0; r <= nr_runs; r++) {
		size_t first = r < nr_runs ? runs[2 * r] : n, count = r < nr_runs ? runs[2 * r + 1] : 0;
		memcpy(live + w, ord + from, (first - from) * sizeof(*live));
		w += first - from;
		for (size_t k = first; k < first + count; k++)
			if (!t->dead[ord[k]])
				live[w++] = ord[k];
		from = first + count;
	}
	free(runs);
	free(t->sorted);
	t->sorted = live;
	t->nr_sorted = w;
	free(t->by_start);
	t->by_start = ord;
}

/* Survivors of the fix-up plus symbols added after it, by start. */
static void merge_late(struct symtab *t)
{
	if (!t->finished) {
		free(t->sorted);
		t->sorted = sorted_range(t, 0, t->nr, &t->nr_sorted);
		return;
	}
	size_t nl;
	uint32_t *late = sorted_range(t, t->merged_upto, t->nr, &nl);
	t->merged_upto = t->nr;
	if (!nl) {
		free(late);
		return;
	}
	/* each later symbol goes after the survivors starting at or before
	 * it: found by a galloping search from the previous one's place (the
	 * survivors' blocks between them are copied, not compared one by one
	 * at random places of v) */
	uint32_t *m = xmalloc((t->nr_sorted + nl) * sizeof(*m));
	size_t i = 0, k = 0;
	for (size_t j = 0; j < nl; j++) {
		uint64_t start = t->v[late[j]].start;
		size_t lo = i, hi = i, step = 1;
		while (hi < t->nr_sorted && t->v[t->sorted[hi]].start <= start) {
			lo = hi + 1;
			hi += step;
			step *= 2;
		}
		hi = hi < t->nr_sorted ? hi : t->nr_sorted;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (t->v[t->sorted[mid]].start <= start)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo > i) /* sorted is NULL when the fix-up left no survivor */
			memcpy(m + k, t->sorted + i, (lo - i) * sizeof(*m));
		k += lo - i;
		i = lo;
		m[k++] = late[j];
	}
	if (t->nr_sorted > i)
		memcpy(m + k, t->sorted + i, (t->nr_sorted - i) * sizeof(*m));
	k += t->nr_sorted - i;
	free(late);
	free(t->sorted);
	t->sorted = m;
	t->nr_sorted = k;
}

enum { MEMO_BITS = 12, BUCKETS_FROM = 64 };

/* A coarse index over starts: bucket b holds the symbols whose start is
 * in [lowest + b << shift, lowest + (b + 1) << shift), about one per
 * bucket, so that a lookup searches a few entries instead of the whole
 * table. Small tables are searched whole. */
static void index_starts(struct symtab *t)
{
	free(t->buckets);
	t->buckets = NULL;
	t->nr_buckets = 0;
	size_t n = t->nr_sorted;
	if (n < BUCKETS_FROM)
		return;
	uint64_t lowest = t->starts[0], span = t->starts[n - 1] - lowest;
	unsigned shift = 0;
	while (shift < 63 && (span >> shift) >= n)
		shift++;
	size_t nb = (size_t)(span >> shift) + 1;
	t->buckets = xmalloc((nb + 1) * sizeof(*t->buckets));
	size_t b = 0;
	for (size_t i = 0; i < n; i++) {
		size_t bi = (size_t)((t->starts[i] - lowest) >> shift);
		while (b <= bi)
			t->buckets[b++] = (uint32_t)i;
	}
	while (b <= nb)
		t->buckets[b++] = (uint32_t)n;
	t->nr_buckets = nb;
	t->bucket_shift = shift;
}

/* How many starts are <= addr. */
static size_t starts_upto(const struct symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->nr_sorted;
	if (t->nr_buckets) {
		if (addr < t->starts[0])
			return 0;
		uint64_t b = (addr - t->starts[0]) >> t->bucket_shift;
		if (b >= t->nr_buckets)
			return hi;
		lo = t->buckets[b];
		hi = t->buckets[b + 1];
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->starts[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Sort the survivors and find the regions where symbols overlap (runs of
 * symbols each starting before the run's furthest end; an empty symbol
 * counts as one byte). */
static void prepare(struct symtab *t)
{
	free(t->contested);
	free(t->rb);
	t->rb = NULL;
	t->tree_built = false;
	t->root = NIL;
	t->live = 0;
	t->contested = NULL;
	t->nr_contested = 0;
	merge_late(t);
	free(t->starts);
	size_t n = t->nr_sorted;
	t->starts = xmalloc((n ? n : 1) * sizeof(*t->starts));
	size_t alloc = 0, run = 0;
	uint64_t run_start = 0, run_end = 0;
	for (size_t i = 0; i <= n; i++) {
		uint64_t start = 0, end = 0;
		if (i < n) {
			const struct symbol *a = &t->v[t->sorted[i]];
			start = t->starts[i] = a->start;
			end = a->end > a->start ? a->end : a->start + 1;
			if (run && start < run_end) { /* overlaps the run */
				run++;
				run_end = end > run_end ? end : run_end;
				continue;
			}
		}
		if (run > 1) {
			VEC_GROW(t->contested, 2 * t->nr_contested + 2, alloc);
			t->contested[2 * t->nr_contested] = run_start;
			t->contested[2 * t->nr_contested + 1] = run_end;
			t->nr_contested++;
		}
		run = 1;
		run_start = start;
		run_end = end;
	}
	index_starts(t);
	unsigned bits = 4; /* about two slots per symbol, at most 4096 */
	while (bits < MEMO_BITS && ((size_t)1 << bits) < 2 * t->nr_sorted)
		bits++;
	if (bits != t->memo_bits) {
		free(t->memo);
		t->memo = xmalloc(sizeof(*t->memo) << bits);
		t->memo_bits = bits;
	}
	memset(t->memo, 0xff, sizeof(*t->memo) << bits);
	t->prepared = true;
}

/* keep_first when it can be told without reading a name (then true, with
 * the answer in *keep): by rank, or by lengths already measured. */
static bool keep_first_known(const struct symbol *a, const struct symbol *b, bool *keep)
{
	if (rank(a) != rank(b)) {
		*keep = rank(a) > rank(b);
		return true;
	}
	if (!a->measured || !b->measured || a->raw || b->raw)
		return false;
	if (a->underscores != b->underscores)
		*keep = a->underscores < b->underscores;
	else
		*keep = a->base_len >= b->base_len;
	return true;
}

/* Node `to` (not in the tree) takes node `from`'s place. */
static void tree_relabel(struct symtab *t, uint32_t from, uint32_t to)
{
	t->rb[to] = t->rb[from];
	change_child(t, from, to, t->rb[from].parent);
	for (int d = 0; d < 2; d++)
		if (t->rb[to].child[d] != NIL)
			t->rb[t->rb[to].child[d]].parent = to;
}

/* The group's survivor, deciding it now when it is not yet. */
static uint32_t survivor_of(struct symtab *t, struct dup_group *g)
{
	if (!g->decided)
		return decide(t, g, run_group(t, g));
	const uint32_t *m = t->members + g->first;
	for (uint32_t i = 0; i < g->nr; i++)
		if (!t->dead[m[i]])
			return m[i];
	return m[0];
}

/* perf's pass over a group's nodes (adjacent in the tree, in insertion
 * order): keep the current best, erase the other, one pair at a time.
 * Which of the pair is erased changes the shape only when the first has
 * no right child and the second has one; otherwise both erasures leave
 * the same shape and colours with one node where the pair was, and only
 * its name is open. So the second node is erased, and names are read
 * (and demangled) only for a shape-changing step; at the end the choice is
 * already made, or cheap (ranks, lengths already known). Otherwise the node left stands for the
 * group (stand_in) until a lookup returns it; the candidates then all
 * have the same extent (see add_group), so descents do not depend on it. */
static void erase_group(struct symtab *t, struct dup_group *g)
{
	const uint32_t *m = t->members + g->first;
	uint32_t node = m[0], best = m[0];
	bool known = true;
	for (uint32_t i = 1; i < g->nr; i++) {
		uint32_t next = m[i];
		bool keep;
		t->nr_erased++;
		if (!t->decide_every_erase && (t->rb[node].child[1] != NIL || t->rb[next].child[1] == NIL)) {
			tree_erase(t, next);
			if (known && keep_first_known(&t->v[best], &t->v[next], &keep))
				best = keep ? best : next;
			else
				known = false;
			continue;
		}
		if (!known) {
			best = m[0];
			for (uint32_t j = 1; j < i; j++)
				if (!keep_first(t, &t->v[best], &t->v[m[j]]))
					best = m[j];
			known = true;
		}
		if (keep_first(t, &t->v[best], &t->v[next])) {
			tree_erase(t, next);
		} else {
			tree_erase(t, node);
			node = best = next;
		}
	}
	if (known || g->decided) {
		uint32_t survivor = known && !g->decided ? decide(t, g, best) : survivor_of(t, g);
		if (survivor != node)
			tree_relabel(t, node, survivor);
		return;
	}
	/* the node takes the binary search's stand-in's number, so that the
	 * tree's nodes are the entries of `sorted` (see build_tree) */
	for (uint32_t i = 0; i < g->nr; i++)
		if (t->v[m[i]].pending && m[i] != node) {
			tree_relabel(t, node, m[i]);
			node = m[i];
		}
	t->rb[node].stand_in = 1;
}

/* Replay perf's tree: every insert in order, the duplicate erases at the
 * fix-up point, then the later (PLT) inserts. */
static void build_tree(struct symtab *t)
{
	t->rb = xmalloc((t->nr ? t->nr : 1) * sizeof(*t->rb));
	size_t upto = t->finished ? t->nr_at_finish : t->nr;
	if (t->finished) {
		tree_insert_all(t, t->by_start, upto, 0, (uint32_t)upto);
	} else {
		size_t n;
		uint32_t *by_start = sorted_range(t, 0, upto, &n);
		tree_insert_all(t, by_start, n, 0, (uint32_t)upto);
		free(by_start);
	}
	t->nr_erased = 0;
	for (size_t i = 0; i < t->nr_groups; i++)
		erase_group(t, &t->groups[i]);
	/* the later inserts: the tree holds the entries of `sorted` before
	 * upto (survivors, stand-ins under their group's stand-in number) */
	if (t->decide_every_erase) {
		for (size_t i = upto; i < t->nr; i++)
			tree_insert(t, (uint32_t)i);
	} else if (upto < t->nr) {
		tree_insert_all(t, t->sorted, t->nr_sorted, (uint32_t)upto, (uint32_t)t->nr);
	}
	t->tree_built = true;
}

uint64_t symtab_node_end(struct symtab *t, uint32_t n)
{
	if (!t->rb[n].stand_in)
		return t->v[n].end;
	/* a stand-in's extent is its candidates' (it may be of a lower rank):
	 * that of the group's one symbol not lost, the binary search's
	 * stand-in or, once decided, the survivor */
	const struct dup_group *g = group_at(t, t->v[n].start);
	for (uint32_t i = 0; i < g->nr; i++)
		if (!t->dead[t->members[g->first + i]])
			return t->v[t->members[g->first + i]].end;
	return t->v[n].end;
}

static bool in_contested(const struct symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->nr_contested;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->contested[2 * mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr < t->contested[2 * (lo - 1) + 1];
}

static struct symbol *find(struct symtab *t, uint64_t addr);

/* The same addresses recur (in every process that maps the file): the
 * last answer per slot is kept until the table changes. */
struct symbol *symtab_find(struct symtab *t, uint64_t addr)
{
	if (!t->prepared)
		prepare(t);
	struct symtab_memo *m = &t->memo[(addr * 0x9e3779b97f4a7c15ull) >> (64 - t->memo_bits)];
	if (m->addr == addr && addr != UINT64_MAX)
		return m->idx == UINT32_MAX ? NULL : &t->v[m->idx];
	struct symbol *s = find(t, addr);
	*m = (struct symtab_memo){ addr, s ? (uint32_t)(s - t->v) : UINT32_MAX };
	return s;
}

static struct symbol *find(struct symtab *t, uint64_t addr)
{
	if (!in_contested(t, addr)) {
		size_t lo = starts_upto(t, addr);
		if (!lo)
			return NULL;
		struct symbol *s = &t->v[t->sorted[lo - 1]];
		if (!(addr < s->end || (addr == s->start && s->end == s->start)))
			return NULL;
		if (s->pending) {
			struct dup_group *g = group_at(t, s->start);
			s = &t->v[decide(t, g, run_group(t, g))];
		}
		return s;
	}
	if (!t->tree_built)
		build_tree(t);
	uint32_t n = t->root;
	while (n != NIL) {
		const struct rb_links *l = &t->rb[n];
		uint64_t start = t->v[n].start, end = symtab_node_end(t, n);
		if (addr < start)
			n = l->child[0];
		else if (addr > end || (addr == end && addr != start))
			n = l->child[1];
		else if (!l->stand_in)
			return &t->v[n];
		else
			break;
	}
	if (n == NIL)
		return NULL;
	/* a group's stand-in: its survivor takes the node */
	uint32_t survivor = survivor_of(t, group_at(t, t->v[n].start));
	if (survivor != n)
		tree_relabel(t, n, survivor);
	t->rb[survivor].stand_in = 0;
	return &t->v[survivor];
}

bool symtab_bounds(struct symtab *t, uint64_t *lo, uint64_t *hi)
{
	/* perf's map__fixup_start/end: the first and the last symbol of the
	 * tree's in-order walk. */
	if (!t->prepared)
		prepare(t);
	if (!t->nr_sorted)
		return false;
	*lo = t->v[t->sorted[0]].start;
	*hi = t->v[t->sorted[t->nr_sorted - 1]].end;
	return true;
}
