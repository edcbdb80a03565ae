#include "profile/order.h"

#include "base/alloc.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A sort key: a name followed by a terminator (ORDER_KEY_END: none). */
struct key {
	sym_t sym;
	int terminator; /* ORDER_KEY_END, ' ' or ';' */
};

static int term_cmp(int a, int b)
{
	return (a > b) - (a < b);
}

/* Compare name(a)+term(a) with name(b)+term(b) byte-wise, where an end
 * terminator makes a key a prefix (so it sorts first). */
static int key_cmp(const struct profile *p, const struct key *a, const struct key *b)
{
	const unsigned char *sa = (const unsigned char *)strpool_str(&p->names, a->sym);
	const unsigned char *sb = (const unsigned char *)strpool_str(&p->names, b->sym);
	uint32_t la = strpool_len(&p->names, a->sym), lb = strpool_len(&p->names, b->sym);
	uint32_t m = la < lb ? la : lb;
	int c = memcmp(sa, sb, m);
	if (c)
		return c;
	int na = la > m ? sa[m] : a->terminator;
	int nb = lb > m ? sb[m] : b->terminator;
	if (na != nb)
		return term_cmp(na, nb);
	if (la == lb)
		return 0;
	/* Equal through one name plus its terminator: that terminator matched
	 * a byte of the longer name; compare the rest against nothing (the
	 * shorter key ended). Only reachable with terminators inside names. */
	return la < lb ? -1 : 1;
}

/* Sort v[0..n) (and vals alongside, if not NULL), where keys are distinct
 * in their bits from `low` up: insertion sort when short, LSD radix sort
 * by bytes (skipping bytes all keys share) when long. */
static void sort_u64(uint64_t *v, uint32_t *vals, size_t n, int low)
{
	if (n <= 32) {
		for (size_t i = 1; i < n; i++) {
			uint64_t x = v[i];
			uint32_t y = vals ? vals[i] : 0;
			size_t j = i;
			for (; j > 0 && v[j - 1] > x; j--) {
				v[j] = v[j - 1];
				if (vals)
					vals[j] = vals[j - 1];
			}
			v[j] = x;
			if (vals)
				vals[j] = y;
		}
		return;
	}
	uint64_t *tv = xreallocarray(NULL, n, sizeof(*tv));
	uint32_t *tvals = vals ? xreallocarray(NULL, n, sizeof(*tvals)) : NULL;
	uint64_t *src = v, *dst = tv;
	uint32_t *vsrc = vals, *vdst = tvals;
	for (int shift = low; shift < 64; shift += 8) {
		size_t count[256] = { 0 };
		for (size_t i = 0; i < n; i++)
			count[src[i] >> shift & 255]++;
		if (count[src[0] >> shift & 255] == n)
			continue; /* every key has this byte */
		size_t at = 0;
		for (int b = 0; b < 256; b++) {
			size_t c = count[b];
			count[b] = at;
			at += c;
		}
		for (size_t i = 0; i < n; i++) {
			size_t to = count[src[i] >> shift & 255]++;
			dst[to] = src[i];
			if (vals)
				vdst[to] = vsrc[i];
		}
		uint64_t *t = src;
		src = dst, dst = t;
		uint32_t *tt = vsrc;
		vsrc = vdst, vdst = tt;
	}
	if (src != v) {
		memcpy(v, src, n * sizeof(*v));
		if (vals)
			memcpy(vals, vsrc, n * sizeof(*vals));
	}
	free(tv);
	free(tvals);
}

/* Keys by index: 2 * sym is name + self terminator, 2 * sym + 1 is
 * name + ';'. */
struct rank_ctx {
	const struct profile *p;
	int self_terminator;
};

static struct key key_of(const struct rank_ctx *c, uint32_t k)
{
	return (struct key){ k / 2, k & 1 ? ';' : c->self_terminator };
}

static int key_index_cmp(const void *x, const void *y, void *ctx)
{
	struct key a = key_of(ctx, *(const uint32_t *)x), b = key_of(ctx, *(const uint32_t *)y);
	return key_cmp(((const struct rank_ctx *)ctx)->p, &a, &b);
}

/* The first 8 bytes of a key, big-endian, zero-padded: keys that differ
 * there are in the order of these numbers (a key that ends there sorts
 * first, and padding with zeros never says less than that); keys with
 * equal prefixes are compared whole. */
static uint64_t key_prefix(const struct profile *p, struct key k)
{
	const unsigned char *s = (const unsigned char *)strpool_str(&p->names, k.sym);
	uint32_t n = strpool_len(&p->names, k.sym);
	uint64_t v = 0;
	if (n >= 8) {
		memcpy(&v, s, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		v = __builtin_bswap64(v);
#endif
		return v;
	}
	for (uint32_t i = 0; i < 8; i++) {
		unsigned c = i < n ? s[i] : i == n && k.terminator != ORDER_KEY_END ? (unsigned)k.terminator : 0;
		v = v << 8 | c;
	}
	return v;
}

/* The rank of every key (name + self_terminator, name + ';') among all of
 * them, by key index. Sorting siblings by rank is sorting them by key,
 * with integers instead of strings. key_cmp is a total order (byte
 * strings, then name length), so ranks are distinct. */
static uint32_t *key_ranks(const struct profile *p, int self_terminator)
{
	uint32_t nkeys = p->names.nr * 2;
	struct rank_ctx ctx = { p, self_terminator };
	uint64_t *prefix = xreallocarray(NULL, (size_t)nkeys + 1, sizeof(*prefix));
	uint32_t *index = xreallocarray(NULL, (size_t)nkeys + 1, sizeof(*index));
	for (uint32_t k = 0; k < nkeys; k++) {
		prefix[k] = key_prefix(p, key_of(&ctx, k));
		index[k] = k;
	}
	sort_u64(prefix, index, nkeys, 0);
	for (uint32_t i = 0, j; i < nkeys; i = j) {
		for (j = i + 1; j < nkeys && prefix[j] == prefix[i]; j++)
			;
		if (j - i > 1)
			qsort_r(index + i, j - i, sizeof(*index), key_index_cmp, &ctx);
	}
	free(prefix);
	uint32_t *rank = xreallocarray(NULL, (size_t)nkeys + 1, sizeof(*rank));
	for (uint32_t i = 0; i < nkeys; i++)
		rank[index[i]] = i;
	free(index);
	return rank;
}

/* Items to sort among siblings are rank << 32 | node: the rank says which
 * key (own line or subtree), the node breaks no ties (ranks differ). */

node_t *profile_sorted_leaves(const struct profile *p, int self_terminator, size_t *nr_out)
{
	uint32_t n = p->nr;
	/* Children lists in CSR form. */
	uint32_t *first = xcalloc_dense((size_t)n + 1, sizeof(*first));
	for (node_t i = 1; i < n; i++)
		first[p->nodes[i].parent + 1]++;
	for (uint32_t i = 0; i < n; i++)
		first[i + 1] += first[i];
	node_t *kids = xreallocarray(NULL, n ? n : 1, sizeof(*kids));
	uint32_t *fill = xreallocarray(NULL, n, sizeof(*fill));
	memcpy(fill, first, (size_t)n * sizeof(*fill));
	for (node_t i = 1; i < n; i++)
		kids[fill[p->nodes[i].parent]++] = i;
	free(fill);

	/* Does a node have any non-zero count below (or at) it? Children come
	 * after parents, so one backward pass suffices. */
	unsigned char *live = xcalloc_dense(n ? n : 1, 1);
	for (node_t i = n; i-- > 0;) {
		if (profile_has_self(p, i))
			live[i] |= 1; /* own line */
		if (live[i] && i)
			live[p->nodes[i].parent] |= 2; /* subtree */
	}
	uint32_t *rank = key_ranks(p, self_terminator);

	size_t out_nr = 0, out_alloc = 0;
	node_t *out = NULL;
	/* The sorted items of each parent on the current path, one after the
	 * other in `items` (no recursion on deep stacks). */
	uint64_t *items = NULL;
	size_t items_nr = 0, items_alloc = 0;
	struct frame {
		size_t start, next, end;
	} *stack = NULL;
	size_t depth = 0, stack_alloc = 0;

	if (live[0] & 1) {
		VEC_GROW(out, out_nr + 1, out_alloc);
		out[out_nr++] = 0;
	}
	node_t parent = 0;
	for (;;) {
		if (live[parent] & 2) {
			size_t start = items_nr;
			VEC_GROW(items, items_nr + 2 * (size_t)(first[parent + 1] - first[parent]),
				 items_alloc);
			for (uint32_t k = first[parent]; k < first[parent + 1]; k++) {
				node_t c = kids[k];
				uint64_t r = rank[2 * p->nodes[c].name];
				if (live[c] & 1)
					items[items_nr++] = r << 32 | c;
				if (live[c] & 2)
					items[items_nr++] = (uint64_t)rank[2 * p->nodes[c].name + 1] << 32 | c;
			}
			if (items_nr - start > 1)
				sort_u64(items + start, NULL, items_nr - start, 32);
			VEC_GROW(stack, depth + 1, stack_alloc);
			stack[depth++] = (struct frame){ start, start, items_nr };
		}
		/* Advance to the next subtree item, emitting own lines on the way. */
		parent = 0;
		while (depth) {
			struct frame *f = &stack[depth - 1];
			if (f->next == f->end) {
				items_nr = f->start;
				depth--;
				continue;
			}
			uint64_t it = items[f->next++];
			node_t node = (node_t)it;
			if ((uint32_t)(it >> 32) != rank[2 * p->nodes[node].name + 1]) {
				/* its own line */
				VEC_GROW(out, out_nr + 1, out_alloc);
				out[out_nr++] = node;
				continue;
			}
			parent = node;
			break;
		}
		if (!parent)
			break;
	}
	free(stack);
	free(items);
	free(rank);
	free(live);
	free(kids);
	free(first);
	*nr_out = out_nr;
	return out;
}

/* ---- the flow order with narrow subtrees as single items ---- */

struct sibling {
	uint64_t prefix; /* key_prefix of the key */
	node_t node;
	int terminator; /* of the key: the self terminator (own line) or ';' */
	bool subtree;
};

struct sibling_ctx {
	const struct profile *p;
};

static int sibling_cmp(const void *x, const void *y, void *ctx)
{
	const struct sibling *a = x, *b = y;
	if (a->prefix != b->prefix)
		return a->prefix < b->prefix ? -1 : 1;
	const struct profile *p = ((const struct sibling_ctx *)ctx)->p;
	struct key ka = { p->nodes[a->node].name, a->terminator };
	struct key kb = { p->nodes[b->node].name, b->terminator };
	return key_cmp(p, &ka, &kb);
}

static void sort_siblings(const struct profile *p, struct sibling *v, size_t n)
{
	struct sibling_ctx ctx = { p };
	if (n > 16) {
		qsort_r(v, n, sizeof(*v), sibling_cmp, &ctx);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		struct sibling x = v[i];
		size_t j = i;
		for (; j > 0 && sibling_cmp(&v[j - 1], &x, &ctx) > 0; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* The items of the wide children of a node (own line, lines below), with
 * their keys' prefixes. */
struct kid_items {
	struct sibling *v;
	size_t nr, alloc;
};

static struct sibling item_of(const struct profile *p, node_t c, int terminator, bool subtree)
{
	struct key key = { p->nodes[c].name, terminator };
	return (struct sibling){ key_prefix(p, key), c, terminator, subtree };
}

static void add_items(const struct profile *p, struct kid_items *to, node_t c, unsigned live,
		      int self_terminator)
{
	VEC_GROW(to->v, to->nr + 2, to->alloc);
	if (live & 1)
		to->v[to->nr++] = item_of(p, c, self_terminator, false);
	if (live & 2)
		to->v[to->nr++] = item_of(p, c, ';', true);
}

/* How many of the sorted v[0..n) sort before c's item. */
static size_t rank_among(const struct profile *p, const struct sibling *v, size_t n, node_t c,
			 int terminator, bool subtree)
{
	struct sibling_ctx ctx = { p };
	struct sibling item = item_of(p, c, terminator, subtree);
	const struct sibling *x = &item;
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sibling_cmp(&v[mid], x, &ctx) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct flow_step *profile_flow_steps(const struct profile *p, int self_terminator, double narrow,
				     size_t *nr_out)
{
	uint32_t n = p->nr;
	/* Weight below each node (column 1), and which items it has: 1 own
	 * line, 2 lines below (a count in any column). Children follow
	 * their parents. */
	double *below = xcalloc_dense(n ? n : 1, sizeof(*below));
	unsigned char *live = xcalloc_dense(n ? n : 1, 1);
	for (node_t i = n; i-- > 1;) {
		const struct node *nd = &p->nodes[i];
		if (profile_has_self(p, i))
			live[i] |= 1;
		if (live[i]) {
			live[nd->parent] |= 2;
			below[nd->parent] += below[i] + profile_self(p, i, 1);
		}
	}
	struct flow_step *out = NULL;
	size_t out_nr = 0, out_alloc = 0;
	if (n && (profile_has_self(p, 0))) {
		VEC_GROW(out, out_nr + 1, out_alloc);
		out[out_nr++] = (struct flow_step){ .node = PROFILE_ROOT, .line = true };
	}
	/* The sorted wide items of each parent on the path, one list after
	 * the other, and for each list the weight of the narrow items that
	 * sort before each of its items and after the last. */
	struct kid_items wide = { 0 };
	struct gap {
		double weight;
		bool any; /* some narrow item, even of weight 0 */
	} *gap = NULL;
	size_t gap_nr = 0, gap_alloc = 0;
	struct range {
		size_t start, next, end; /* in wide.v */
		size_t gaps;             /* gap[gaps + i]: before item start + i */
		node_t owner;            /* the parent */
	} *stack = NULL;
	size_t depth = 0, stack_alloc = 0;
	node_t parent = PROFILE_ROOT;
	bool descend = n && (live[0] & 2);
	for (;;) {
		if (descend) {
			size_t start = wide.nr;
			node_t kids = p->nodes[parent].kids;
			const struct kid_slot *slots = NULL;
			uint32_t cap = 0;
			if (kids & NODE_KIDS_TABLE) {
				uint32_t t = kids & ~NODE_KIDS_TABLE;
				slots = &p->kid_slots[t + 1];
				cap = 1u << p->kid_slots[t].child;
			} else if (kids != NODE_KIDS_NONE) {
				cap = 1;
			}
			/* The wide children's items, sorted; then each narrow
			 * item's weight goes to the gap where it sorts. */
			for (uint32_t k = 0; k < cap; k++) {
				node_t c = slots ? slots[k].child : kids;
				if (c && live[c] && !(below[c] + profile_self(p, c, 1) < narrow))
					add_items(p, &wide, c, live[c], self_terminator);
			}
			size_t k = wide.nr - start;
			if (k) /* wide.v is NULL until an item was added */
				sort_siblings(p, wide.v + start, k);
			VEC_GROW(gap, gap_nr + k + 1, gap_alloc);
			for (size_t j = 0; j <= k; j++)
				gap[gap_nr + j] = (struct gap){ 0, false };
			for (uint32_t i = 0; i < cap; i++) {
				node_t c = slots ? slots[i].child : kids;
				if (!c || !live[c] || !(below[c] + profile_self(p, c, 1) < narrow))
					continue;
				if (!k) {
					gap[gap_nr].weight += below[c] + profile_self(p, c, 1);
					gap[gap_nr].any = true;
					continue;
				}
				struct gap *g;
				if (live[c] & 1) {
					g = &gap[gap_nr + rank_among(p, wide.v + start, k, c, self_terminator, false)];
					g->weight += profile_self(p, c, 1);
					g->any = true;
				}
				if (live[c] & 2) {
					g = &gap[gap_nr + rank_among(p, wide.v + start, k, c, ';', true)];
					g->weight += below[c];
					g->any = true;
				}
			}
			VEC_GROW(stack, depth + 1, stack_alloc);
			stack[depth++] = (struct range){ start, start, wide.nr, gap_nr, parent };
			gap_nr += k + 1;
		}
		/* The next step: the narrow lines before the next wide item
		 * (a step even when they weigh 0: they close the open frames
		 * below the parent, which splits a frame whose own line and
		 * lines below sort on either side of them), then that item:
		 * an own line, or lines below to descend into. */
		descend = false;
		while (depth) {
			struct range *r = &stack[depth - 1];
			struct gap *g = &gap[r->gaps + (r->next - r->start)];
			if (g->any) {
				VEC_GROW(out, out_nr + 1, out_alloc);
				out[out_nr++] = (struct flow_step){ .weight = g->weight, .node = r->owner };
				g->any = false;
			}
			if (r->next == r->end) {
				wide.nr = r->start;
				gap_nr = r->gaps;
				depth--;
				continue;
			}
			const struct sibling *s = &wide.v[r->next++];
			if (s->subtree) {
				parent = s->node;
				descend = true;
				break;
			}
			VEC_GROW(out, out_nr + 1, out_alloc);
			out[out_nr++] = (struct flow_step){ .node = s->node, .line = true };
		}
		if (!descend)
			break;
	}
	free(stack);
	free(gap);
	free(wide.v);
	free(live);
	free(below);
	*nr_out = out_nr;
	return out;
}
