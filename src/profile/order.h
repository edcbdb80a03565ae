/* The order in which the classic tools see stacks: folded lines sorted as
 * byte strings. Computed on the trie without building the lines: for each
 * node, its children are visited as "items" keyed by name + terminator,
 * where a child's own line (its self count) uses `self_terminator` and its
 * subtree uses ';'. Sorting these keys byte-wise gives exactly the order of
 * the sorted whole lines. */
#ifndef SCORCH_PROFILE_ORDER_H
#define SCORCH_PROFILE_ORDER_H

#include "profile/profile.h"

/* Terminators: ORDER_KEY_END sorts a stack's own line as the bare key (what
 * `sort keys` does in the stackcollapse scripts); ' ' sorts it as the whole
 * line "stack count" (what flamegraph.pl's sort of lines does). */
#define ORDER_KEY_END (-1)
#define ORDER_LINE_SPACE ' '

/* Nodes whose self count is non-zero in any column, in sorted-line order.
 * Returns a malloc'd array and sets *nr. */
node_t *profile_sorted_leaves(const struct profile *p, int self_terminator, size_t *nr);

/* The same order as seen by a flame graph that draws no frame narrower
 * than `narrow` (in column-1 counts): a step is a node's own line, or
 * (line false) lines below a node that all belong to narrow frames, of
 * total weight `weight`, taken together. Only the children of wide frames
 * are sorted, and only the wide ones among them, so the cost follows the
 * frames drawn. Weights are summed in node order: the caller uses this only
 * when that gives the sums of the sorted order (integer counts below 2^53).
 * Returns a malloc'd array and sets *nr. */
struct flow_step {
	double weight; /* lines below: their column-1 total */
	node_t node;
	bool line; /* node's own line */
};
struct flow_step *profile_flow_steps(const struct profile *p, int self_terminator, double narrow,
				     size_t *nr);

#endif
