#include "profile/order.h"

#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

struct item {
	node_t node;
	int terminator; /* ORDER_KEY_END, ' ' or ';' */
};

struct sort_ctx {
	const struct profile *p;
};

static int term_cmp(int a, int b)
{
	return (a > b) - (a < b);
}

/* Compare name(a)+term(a) with name(b)+term(b) byte-wise, where an end
 * terminator makes a key a prefix (so it sorts first). */
static int item_cmp(const struct profile *p, const struct item *a, const struct item *b)
{
	const unsigned char *sa = (const unsigned char *)profile_name(p, a->node);
	const unsigned char *sb = (const unsigned char *)profile_name(p, b->node);
	uint32_t la = profile_name_len(p, a->node), lb = profile_name_len(p, b->node);
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


static int item_qsort_r_cmp(const void *x, const void *y, void *ctx)
{
	return item_cmp(ctx, x, y);
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

	size_t out_nr = 0, out_alloc = 0;
	node_t *out = NULL;
	/* Explicit stack of item ranges: no recursion on deep stacks. */
	struct frame {
		struct item *items;
		size_t nr, next;
	} *stack = NULL;
	size_t depth = 0, stack_alloc = 0;

	if (live[0] & 1) {
		VEC_GROW(out, out_nr + 1, out_alloc);
		out[out_nr++] = 0;
	}
	node_t parent = 0;
	for (;;) {
		if (live[parent] & 2) {
			size_t cnt = 0;
			struct item *items = xreallocarray(NULL, 2 * (first[parent + 1] - first[parent]) + 1,
							   sizeof(*items));
			for (uint32_t k = first[parent]; k < first[parent + 1]; k++) {
				node_t c = kids[k];
				if (live[c] & 1)
					items[cnt++] = (struct item){ c, self_terminator };
				if (live[c] & 2)
					items[cnt++] = (struct item){ c, ';' };
			}
			qsort_r(items, cnt, sizeof(*items), item_qsort_r_cmp, (void *)p);
			VEC_GROW(stack, depth + 1, stack_alloc);
			stack[depth++] = (struct frame){ items, cnt, 0 };
		}
		/* Advance to the next subtree item, emitting own lines on the way. */
		parent = 0;
		while (depth) {
			struct frame *f = &stack[depth - 1];
			if (f->next == f->nr) {
				free(f->items);
				depth--;
				continue;
			}
			struct item it = f->items[f->next++];
			if (it.terminator != ';') {
				VEC_GROW(out, out_nr + 1, out_alloc);
				out[out_nr++] = it.node;
				continue;
			}
			parent = it.node;
			break;
		}
		if (!parent)
			break;
	}
	free(stack);
	free(live);
	free(kids);
	free(first);
	*nr_out = out_nr;
	return out;
}
