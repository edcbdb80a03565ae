/* Merging profiles in the order one pass would have built them (see
 * merge_stamped.h). */
#include "profile/merge_stamped.h"

#include "base/alloc.h"
#include "profile/time_cells.h"

#include <stdlib.h>

struct cursor {
	const struct profile_stamped *in;
	size_t run;
	uint32_t names_done, nodes_done;
	sym_t *name_map; /* in's name id -> dst's */
	node_t *node_map;
};

bool profile_merge_stamped(struct profile *dst, const struct profile_stamped *in, size_t n)
{
	bool overflow = false;
	struct cursor *c = xcalloc(n ? n : 1, sizeof(*c));
	for (size_t i = 0; i < n; i++) {
		const struct profile *p = in[i].p;
		c[i] = (struct cursor){ .in = &in[i], .names_done = 1, .nodes_done = 1 };
		c[i].name_map = xreallocarray(NULL, p->names.nr + 1, sizeof(sym_t));
		c[i].node_map = xreallocarray(NULL, p->nr, sizeof(node_t));
		c[i].name_map[0] = 0; /* "" (the root's name) is sym 0 everywhere */
		c[i].node_map[0] = PROFILE_ROOT;
	}
	for (;;) {
		struct cursor *next = NULL;
		for (size_t i = 0; i < n; i++)
			if (c[i].run < c[i].in->nr_runs &&
			    (!next || c[i].in->runs[c[i].run].stamp < next->in->runs[next->run].stamp))
				next = &c[i];
		if (!next)
			break;
		const struct profile *p = next->in->p;
		const struct profile_run *r = &next->in->runs[next->run++];
		for (; next->names_done < r->names_end; next->names_done++) {
			sym_t s = next->names_done;
			next->name_map[s] = profile_sym(dst, strpool_str(&p->names, s), strpool_len(&p->names, s));
		}
		for (; next->nodes_done < r->nodes_end; next->nodes_done++) {
			const struct node *nd = &p->nodes[next->nodes_done];
			next->node_map[next->nodes_done] =
				profile_push(dst, next->node_map[nd->parent], next->name_map[nd->name]);
		}
	}
	for (size_t i = 0; i < n; i++) {
		const struct profile *p = in[i].p;
		for (node_t k = 0; k < c[i].nodes_done; k++) {
			if (profile_has_self(p, k) && !profile_add_node(dst, c[i].node_map[k], p, k))
				overflow = true;
		}
		dst->differential |= p->differential;
		time_cells_copy(dst, p, c[i].node_map);
		free(c[i].name_map);
		free(c[i].node_map);
	}
	free(c);
	return !overflow;
}
