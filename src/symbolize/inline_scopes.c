/* Per-unit index of the DIEs dwarf_getscopes can stop at (inline_scopes.h).
 *
 * What libdw does (elfutils 0.188, dwarf_getscopes.c and
 * libdw_visit_scopes.c): from the unit's DIE, it visits the children in
 * order; a child whose ranges do not hold the address (dwarf_haspc) is
 * pruned; the first one that holds it is descended into when its tag can
 * own scopes (may_have_scopes below) and it has children. The innermost
 * DIE so reached is the answer, with its ancestors. When one of them is a
 * DW_TAG_inlined_subroutine, the deepest one's DW_AT_abstract_origin is
 * then searched for among the DIEs the same walk visits when nothing is
 * pruned (every DIE whose ancestors all have such tags): not found,
 * dwarf_getscopes returns 0; an unreadable reference, -1. (Newer libdw
 * searches the origin's own unit; for an origin in the same unit, as
 * here, that is the same search.) dwarf_getscopes_die walks the unit again
 * to return the innermost DIE's ancestors: the path the first walk took.
 *
 * The index: the unit DIE's children with non-empty ranges, and, the
 * first time an address falls in one of them, the DIEs below it that the
 * walk can reach (their parent is such a DIE), numbered in DIE order; per
 * parent, its children's ranges sorted by start with a running maximum of
 * their ends, so that the first child holding an address is found by
 * binary search and a short scan back. Whether an inline's origin is in
 * the walk is found once per origin, from its offset, down from the unit
 * DIE's children (their offsets are kept). */
#include "symbolize/inline_scopes.h"

#include "base/alloc.h"
#include "base/hashmap.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#define NO_NODE UINT32_MAX
/* Deeper than this, the unit is left to libdw (no recursion without end). */
#define MAX_DEPTH 256

/* Where dwarf_getscopes finds an inline's abstract origin. */
enum origin {
	ORIGIN_NONE,	  /* not a DW_TAG_inlined_subroutine */
	ORIGIN_FOUND,	  /* in the unit's walk */
	ORIGIN_MISSING,	  /* not in it: dwarf_getscopes returns 0 */
	ORIGIN_BROKEN,	  /* no readable reference: it returns -1 */
	ORIGIN_ELSEWHERE, /* in another unit: asked to libdw */
};

struct scope_node {
	Dwarf_Die die;
	uint32_t parent;      /* NO_NODE: a child of the unit's DIE */
	uint32_t kids, nkids; /* its children's ranges: ivs[kids, kids + nkids) */
	uint8_t origin;	      /* enum origin */
	bool top_subprogram;  /* a DW_TAG_subprogram child of the unit's DIE */
	/* of the unit DIE's children: their descendants are indexed; or
	 * cannot be (an imported unit or unreadable ranges among them) */
	bool expanded, by_libdw;
};

/* One range of a node, among its siblings' sorted by start. */
struct scope_range {
	uint64_t lo, hi;
	uint64_t maxhi; /* the greatest end of this range and the ones before it */
	uint32_t node;
};

/* A unit's index: its DIE's children (all of them, for the origins'
 * search, and as nodes those with ranges), and the descendants of a child
 * the first time an address falls in it. */
struct unit_index {
	struct scope_node *nodes;
	uint32_t n, nodes_alloc;
	struct scope_range *ivs;
	uint32_t niv, ivs_alloc;
	uint32_t top, ntop; /* the unit DIE's children's ranges */
	Dwarf *dw;
	Dwarf_Off *child_offs; /* the unit DIE's children, in order */
	size_t nchildren;
	struct hashmap origins; /* DIE offset -> 1: in the walk, 0: not */
};

struct scope_cache {
	bool use_index;
	struct hashmap units; /* unit DIE offset -> index into idx; BY_LIBDW: ask libdw */
	struct unit_index **idx;
	uint32_t nidx, idx_alloc;
};

struct scope_cache *scope_cache_new(bool use_index)
{
	struct scope_cache *c = xcalloc(1, sizeof(*c));
	c->use_index = use_index;
	hashmap_init(&c->units);
	return c;
}

static void unit_index_free(struct unit_index *ix)
{
	free(ix->nodes);
	free(ix->ivs);
	free(ix->child_offs);
	hashmap_release(&ix->origins);
	free(ix);
}

void scope_cache_free(struct scope_cache *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < c->nidx; i++)
		unit_index_free(c->idx[i]);
	free(c->idx);
	hashmap_release(&c->units);
	free(c);
}

/* libdw's may_have_scopes: the tags its scope walks descend into. */
static bool may_have_scopes(int tag)
{
	switch (tag) {
	case DW_TAG_compile_unit: case DW_TAG_module: case DW_TAG_lexical_block: case DW_TAG_with_stmt:
	case DW_TAG_catch_block: case DW_TAG_try_block: case DW_TAG_entry_point:
	case DW_TAG_inlined_subroutine: case DW_TAG_subprogram: case DW_TAG_namespace:
	case DW_TAG_class_type: case DW_TAG_structure_type:
		return true;
	default:
		return false;
	}
}

static bool descends(Dwarf_Die *die, int tag)
{
	return may_have_scopes(tag) && dwarf_haschildren(die) > 0;
}

/* Whether the DIE at offset off of the unit is one libdw's unpruned walk
 * visits: each of its ancestors has a tag the walk descends into. Found
 * from the unit DIE's children down, by offsets (a DIE's descendants lie
 * between it and its next sibling). */
static bool in_walk(struct unit_index *ix, Dwarf_Off off)
{
	uint32_t known;
	if (hashmap_get(&ix->origins, off, &known))
		return known;
	size_t lo = 0, hi = ix->nchildren;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ix->child_offs[mid] <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	bool found = false;
	Dwarf_Die d, next;
	if (lo && dwarf_offdie(ix->dw, ix->child_offs[lo - 1], &d)) {
		for (;;) {
			if (dwarf_dieoffset(&d) == off) {
				found = true;
				break;
			}
			if (!descends(&d, dwarf_tag(&d)) || dwarf_child(&d, &d) || dwarf_dieoffset(&d) > off)
				break;
			/* the last child at or before off */
			while (!dwarf_siblingof(&d, &next) && dwarf_dieoffset(&next) <= off)
				d = next;
		}
	}
	bool ins;
	*hashmap_upsert(&ix->origins, off, found, &ins) = found;
	return found;
}

static enum origin inline_origin(struct unit_index *ix, Dwarf_Die *die)
{
	Dwarf_Attribute at;
	Dwarf_Die o;
	if (!dwarf_formref_die(dwarf_attr(die, DW_AT_abstract_origin, &at), &o))
		return ORIGIN_BROKEN;
	if (o.cu != die->cu)
		return ORIGIN_ELSEWHERE;
	return in_walk(ix, dwarf_dieoffset(&o)) ? ORIGIN_FOUND : ORIGIN_MISSING;
}

struct raw_range {
	uint32_t parent, node;
	uint64_t lo, hi;
};

struct raw_ranges {
	struct raw_range *r;
	size_t n, alloc;
};

/* The node for die (a child of parent), when its ranges hold anything;
 * NO_NODE otherwise. false when libdw cannot read its ranges (dwarf_haspc's
 * error, which some of libdw's callers take as a non-match and others as
 * the end). */
static bool add_node(struct unit_index *ix, struct raw_ranges *raw, Dwarf_Die *die, int tag, uint32_t parent,
		     uint32_t *out)
{
	*out = NO_NODE;
	/* dwarf_ranges finds nothing without either (but on a unit's DIE) */
	if (!dwarf_hasattr(die, DW_AT_high_pc) && !dwarf_hasattr(die, DW_AT_ranges))
		return true;
	uint32_t node = ix->n;
	size_t first = raw->n;
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (lo >= hi)
			continue; /* holds no address */
		VEC_GROW(raw->r, raw->n + 1, raw->alloc);
		raw->r[raw->n++] = (struct raw_range){ parent, node, lo, hi };
	}
	if (off < 0)
		return false;
	if (raw->n == first)
		return true;
	/* the unit DIE's children are all known only at the end */
	uint8_t origin = tag == DW_TAG_inlined_subroutine && parent != NO_NODE ? inline_origin(ix, die) : ORIGIN_NONE;
	VEC_GROW(ix->nodes, (size_t)node + 1, ix->nodes_alloc);
	ix->nodes[node] = (struct scope_node){ .die = *die, .parent = parent, .origin = origin,
					       .top_subprogram = parent == NO_NODE && tag == DW_TAG_subprogram };
	ix->n++;
	*out = node;
	return true;
}

/* The nodes below node (whose DIE has children libdw looks at), in DIE
 * order. false: libdw must answer for them. */
static bool add_descendants(struct unit_index *ix, struct raw_ranges *raw, uint32_t node, int depth)
{
	Dwarf_Die child, parent = ix->nodes[node].die;
	int rc = dwarf_child(&parent, &child);
	if (rc || depth > MAX_DEPTH)
		return rc == 0 ? false : rc > 0;
	do {
		int tag = dwarf_tag(&child);
		uint32_t kid;
		if (tag == DW_TAG_imported_unit || !add_node(ix, raw, &child, tag, node, &kid))
			return false; /* an imported unit's children are walked in place: not modelled */
		if (kid != NO_NODE && descends(&child, tag) && !add_descendants(ix, raw, kid, depth + 1))
			return false;
	} while ((rc = dwarf_siblingof(&child, &child)) == 0);
	return rc > 0;
}

static int raw_cmp(const void *a, const void *b)
{
	const struct raw_range *x = a, *y = b;
	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (x->node > y->node) - (x->node < y->node);
}

/* The ranges, grouped by parent and sorted, added to ix->ivs. */
static void add_ranges(struct unit_index *ix, struct raw_ranges *raw)
{
	if (raw->n > 1)
		qsort(raw->r, raw->n, sizeof(*raw->r), raw_cmp);
	VEC_GROW(ix->ivs, (size_t)ix->niv + raw->n, ix->ivs_alloc);
	for (size_t i = 0; i < raw->n;) {
		size_t j = i;
		uint64_t maxhi = 0;
		uint32_t parent = raw->r[i].parent, at = ix->niv;
		for (; j < raw->n && raw->r[j].parent == parent; j++) {
			if (raw->r[j].hi > maxhi)
				maxhi = raw->r[j].hi;
			ix->ivs[ix->niv++] = (struct scope_range){ raw->r[j].lo, raw->r[j].hi, maxhi, raw->r[j].node };
		}
		*(parent == NO_NODE ? &ix->top : &ix->nodes[parent].kids) = at;
		*(parent == NO_NODE ? &ix->ntop : &ix->nodes[parent].nkids) = (uint32_t)(j - i);
		i = j;
	}
	raw->n = 0;
}

/* Index top's descendants, or mark them as libdw's. */
static void expand(struct unit_index *ix, uint32_t top)
{
	struct raw_ranges raw = { 0 };
	uint32_t n = ix->n;
	ix->nodes[top].expanded = true;
	Dwarf_Die die = ix->nodes[top].die;
	if (descends(&die, dwarf_tag(&die))) {
		if (add_descendants(ix, &raw, top, 0) && ix->n < NO_NODE / 2 && ix->niv + raw.n < NO_NODE / 2)
			add_ranges(ix, &raw);
		else {
			ix->n = n; /* drop what was added */
			ix->nodes[top].by_libdw = true;
		}
	}
	free(raw.r);
}

/* The unit's children and their ranges; NULL when libdw must answer for
 * the whole unit (an imported unit, unreadable ranges among them). */
static struct unit_index *build_index(Dwarf_Die *cu)
{
	struct unit_index *ix = xcalloc(1, sizeof(*ix));
	hashmap_init(&ix->origins);
	ix->dw = dwarf_cu_getdwarf(cu->cu);
	size_t alloc = 0;
	struct raw_ranges raw = { 0 };
	Dwarf_Die child;
	int rc = dwarf_child(cu, &child);
	if (!rc) {
		do {
			int tag = dwarf_tag(&child);
			Dwarf_Off off = dwarf_dieoffset(&child);
			uint32_t node;
			if (tag == DW_TAG_imported_unit || ix->nchildren >= NO_NODE / 2 ||
			    (ix->nchildren && off <= ix->child_offs[ix->nchildren - 1]) ||
			    !add_node(ix, &raw, &child, tag, NO_NODE, &node)) {
				rc = -1;
				break;
			}
			VEC_GROW(ix->child_offs, ix->nchildren + 1, alloc);
			ix->child_offs[ix->nchildren++] = off;
		} while ((rc = dwarf_siblingof(&child, &child)) == 0);
	}
	if (rc >= 0) {
		add_ranges(ix, &raw);
		for (uint32_t i = 0; i < ix->n; i++)
			if (dwarf_tag(&ix->nodes[i].die) == DW_TAG_inlined_subroutine)
				ix->nodes[i].origin = inline_origin(ix, &ix->nodes[i].die);
	}
	free(raw.r);
	if (rc < 0) {
		unit_index_free(ix);
		return NULL;
	}
	return ix;
}

/* A unit libdw answers for (not HASHMAP_EMPTY, which the map reads as a
 * free slot: the unit would be indexed again at every call). */
#define BY_LIBDW (HASHMAP_EMPTY - 1)

/* The index of cu's unit, NULL when libdw answers for it. */
static struct unit_index *unit_index(struct scope_cache *c, Dwarf_Die *cu)
{
	if (!c->use_index)
		return NULL;
	uint32_t i;
	Dwarf_Off key = dwarf_dieoffset(cu);
	if (!hashmap_get(&c->units, key, &i)) {
		struct unit_index *ix = build_index(cu);
		i = BY_LIBDW;
		if (ix) {
			VEC_GROW(c->idx, (size_t)c->nidx + 1, c->idx_alloc);
			c->idx[c->nidx] = ix;
			i = c->nidx++;
		}
		bool ins;
		*hashmap_upsert(&c->units, key, i, &ins) = i;
	}
	return i == BY_LIBDW ? NULL : c->idx[i];
}

/* The ranges of ivs[first, first + n) that hold addr, by the callback;
 * ranges are sorted by start, so those are at or before the last start
 * not above addr, and the scan back ends where no earlier range reaches
 * past addr. */
static void ranges_holding(const struct unit_index *ix, uint32_t first, uint32_t n, uint64_t addr,
			   void (*fn)(uint32_t node, void *arg), void *arg)
{
	uint32_t lo = first, hi = first + n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (ix->ivs[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint32_t i = lo; i-- > first;) {
		if (ix->ivs[i].maxhi <= addr)
			break;
		if (ix->ivs[i].hi > addr)
			fn(ix->ivs[i].node, arg);
	}
}

static void keep_first(uint32_t node, void *arg)
{
	uint32_t *first = arg;
	if (node < *first)
		*first = node;
}

/* dwarf_getscopes then dwarf_getscopes_die, by libdw. */
static int libdw_nesting(Dwarf_Die *cu, uint64_t addr, Dwarf_Die **scopes)
{
	*scopes = NULL;
	int ns = dwarf_getscopes(cu, addr, scopes);
	if (ns > 0) {
		Dwarf_Die inner = (*scopes)[0];
		free(*scopes);
		*scopes = NULL;
		ns = dwarf_getscopes_die(&inner, scopes);
	}
	return ns;
}

int scope_nesting(struct scope_cache *c, Dwarf_Die *cu, uint64_t addr, Dwarf_Die **scopes)
{
	*scopes = NULL;
	struct unit_index *ix = unit_index(c, cu);
	if (!ix)
		return libdw_nesting(cu, addr, scopes);
	/* down from the unit: the first child holding addr, as long as there is one */
	uint32_t inner = NO_NODE, depth = 0, first = ix->top, n = ix->ntop;
	for (;;) {
		uint32_t next = NO_NODE;
		ranges_holding(ix, first, n, addr, keep_first, &next);
		if (next == NO_NODE)
			break;
		if (inner == NO_NODE && !ix->nodes[next].expanded)
			expand(ix, next);
		if (ix->nodes[next].by_libdw)
			return libdw_nesting(cu, addr, scopes);
		inner = next;
		depth++;
		first = ix->nodes[next].kids;
		n = ix->nodes[next].nkids;
	}
	if (inner == NO_NODE)
		return 0;
	for (uint32_t k = inner; k != NO_NODE; k = ix->nodes[k].parent) {
		enum origin o = ix->nodes[k].origin;
		if (o == ORIGIN_NONE)
			continue;
		if (o == ORIGIN_MISSING)
			return 0;
		if (o == ORIGIN_BROKEN)
			return -1;
		if (o == ORIGIN_ELSEWHERE)
			return libdw_nesting(cu, addr, scopes);
		break; /* the deepest inline decides */
	}
	Dwarf_Die *s = xreallocarray(NULL, depth + 1, sizeof(*s));
	uint32_t i = 0;
	for (uint32_t k = inner; k != NO_NODE; k = ix->nodes[k].parent)
		s[i++] = ix->nodes[k].die;
	s[i++] = *cu;
	*scopes = s;
	return (int)i;
}

struct subprogram_list {
	const struct unit_index *ix;
	uint32_t *nodes;
	size_t n, alloc;
};

static void add_top_subprogram(uint32_t node, void *arg)
{
	struct subprogram_list *l = arg;
	if (!l->ix->nodes[node].top_subprogram)
		return;
	VEC_GROW(l->nodes, l->n + 1, l->alloc);
	l->nodes[l->n++] = node;
}

static int node_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

int scope_unit_subprograms(struct scope_cache *c, Dwarf_Die *cu, uint64_t addr, Dwarf_Die **subs)
{
	*subs = NULL;
	size_t n = 0, alloc = 0;
	const struct unit_index *ix = unit_index(c, cu);
	if (!ix) {
		Dwarf_Die child;
		if (dwarf_child(cu, &child))
			return 0;
		do {
			if (dwarf_tag(&child) != DW_TAG_subprogram || dwarf_haspc(&child, addr) <= 0)
				continue;
			VEC_GROW(*subs, n + 1, alloc);
			(*subs)[n++] = child;
		} while (!dwarf_siblingof(&child, &child));
		return (int)n;
	}
	struct subprogram_list l = { ix, NULL, 0, 0 };
	ranges_holding(ix, ix->top, ix->ntop, addr, add_top_subprogram, &l);
	if (l.n > 1)
		qsort(l.nodes, l.n, sizeof(*l.nodes), node_cmp);
	for (size_t i = 0; i < l.n; i++) {
		if (i && l.nodes[i] == l.nodes[i - 1])
			continue; /* two of its ranges hold addr */
		VEC_GROW(*subs, n + 1, alloc);
		(*subs)[n++] = ix->nodes[l.nodes[i]].die;
	}
	free(l.nodes);
	return (int)n;
}
