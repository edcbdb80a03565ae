/* Profile -> frames (rectangles in time units), exactly as flamegraph.pl's
 * flow: stacks are visited in the order of its sorted whole lines
 * (profile_sorted_leaves with ORDER_LINE_SPACE), or in input order for a
 * flame chart (profile events); each stack closes the frames of the
 * previous one that it does not share and opens its own. A frame that the
 * order splits (a sibling sorting between a name's own line and its
 * children) is drawn twice, as flamegraph.pl does. Frames narrower than the
 * minimum width are pruned as they close, so memory is proportional to the
 * frames drawn, not to the stacks read. */
#ifndef SCORCH_LAYOUT_LAYOUT_H
#define SCORCH_LAYOUT_LAYOUT_H

#include "profile/profile.h"

#include <stdbool.h>
#include <stddef.h>

struct frame {
	node_t node;     /* trie node: name and depth */
	uint32_t depth;  /* 0 = root ("all") */
	double stime;    /* start, in count units */
	double etime;    /* end (the root's is timemax) */
	double delta;    /* differential: exclusive after - before */
	uint64_t start, width; /* stime and etime - stime, exact when the layout is whole */
};

struct layout_opts {
	bool flamechart;      /* input order (needs p->keep_events) */
	double total;         /* --total; 0 = the sum of counts */
	double image_width;   /* --width, px */
	double minwidth;      /* --minwidth value */
	bool minwidth_pct;    /* ... in percent of timemax instead of px */
};

struct layout {
	struct frame *frames; /* sorted by depth, then stime */
	size_t nr;
	double total;         /* sum of counts (after column) */
	double timemax;       /* full width: max(total, --total) */
	double maxdelta;      /* max(1, max |after - before|) over stacks */
	uint32_t depthmax;
	bool differential;
	bool whole;           /* whole counts: frame widths and total_whole exact */
	uint64_t total_whole; /* total, exact (when whole) */
};

#define LAYOUT_XPAD 10.0

/* Build the frames; returns 0. A profile with no counts gives total 0 and
 * no frames (the caller reports it). */
int layout_build(struct layout *l, const struct profile *p, const struct layout_opts *o);
void layout_release(struct layout *l);

#endif
