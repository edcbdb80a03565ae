#include "profile/order.h"

#include "base/alloc.h"

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

static int key_qsort_r_cmp(const void *x, const void *y, void *ctx)
{
	return key_cmp(ctx, x, y);
}

/* The rank of every key (name + self_terminator, name + ';') among all of
 * them: rank[2 * sym] and rank[2 * sym + 1]. Sorting siblings by rank is
 * sorting them by key, with integers instead of strings. key_cmp is a
 * total order (byte strings, then name length), so ranks are distinct. */
static uint32_t *key_ranks(const struct profile *p, int self_terminator)
{
	uint32_t nsyms = p->names.nr;
	struct key *keys = xreallocarray(NULL, (size_t)nsyms * 2 + 1, sizeof(*keys));
	for (sym_t s = 0; s < nsyms; s++) {
		keys[2 * s] = (struct key){ s, self_terminator };
		keys[2 * s + 1] = (struct key){ s, ';' };
	}
	qsort_r(keys, (size_t)nsyms * 2, sizeof(*keys), key_qsort_r_cmp, (void *)p);
	uint32_t *rank = xreallocarray(NULL, (size_t)nsyms * 2 + 1, sizeof(*rank));
	for (uint32_t i = 0; i < nsyms * 2; i++)
		rank[2 * keys[i].sym + (keys[i].terminator == ';')] = i;
	free(keys);
	return rank;
}

/* Items to sort among siblings are rank << 32 | node: the rank says which
 * key (own line or subtree), the node breaks no ties (ranks differ). */
static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static void sort_items(uint64_t *v, size_t n)
{
	if (n > 32) {
		qsort(v, n, sizeof(*v), u64_cmp);
		return;
	}
	/* Most nodes have a handful of children: insertion sort. */
	for (size_t i = 1; i < n; i++) {
		uint64_t x = v[i];
		size_t j = i;
		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

node_t *profile_sorted_leaves(const struct profile *p, int self_terminator, size_t *nr_out)
{
	uint32_t n = p->nr;
	/* Children lists in CSR form. */
	uint32_t *first = xcalloc((size_t)n + 1, sizeof(*first));
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
	unsigned char *live = xcalloc(n ? n : 1, 1);
	for (node_t i = n; i-- > 0;) {
		if (p->nodes[i].self[0] != 0 || p->nodes[i].self[1] != 0)
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
			sort_items(items + start, items_nr - start);
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
