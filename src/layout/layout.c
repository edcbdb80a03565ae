#include "layout/layout.h"

#include "base/alloc.h"
#include "profile/order.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct flow {
	const struct profile *p;
	double min_time; /* prune below this width */
	double t;        /* running time */
	bool whole;      /* ... kept exact in tu, t its rounding */
	uint64_t tu;
	/* The open stack, indexed by depth: node, start time, delta. */
	node_t *open;
	double *stime, *delta;
	uint64_t *stime_u;
	size_t alloc;
	uint32_t top; /* depth of the deepest open frame */
	struct layout *l;
	size_t frames_alloc;
};

static void grow_open(struct flow *f, size_t need)
{
	if (need <= f->alloc)
		return;
	size_t n = f->alloc * 2 + 64;
	if (n < need)
		n = need;
	f->open = xreallocarray(f->open, n, sizeof(*f->open));
	f->stime = xreallocarray(f->stime, n, sizeof(*f->stime));
	f->delta = xreallocarray(f->delta, n, sizeof(*f->delta));
	f->stime_u = xreallocarray(f->stime_u, n, sizeof(*f->stime_u));
	f->alloc = n;
}

static void close_frame(struct flow *f, uint32_t depth)
{
	double w = f->t - f->stime[depth];
	if (w < f->min_time)
		return;
	struct layout *l = f->l;
	VEC_GROW(l->frames, l->nr + 1, f->frames_alloc);
	l->frames[l->nr++] = (struct frame){
		.node = f->open[depth],
		.depth = depth,
		.stime = f->stime[depth],
		.etime = f->t,
		.delta = f->delta[depth],
		.start = f->stime_u[depth],
		.width = f->tu - f->stime_u[depth],
	};
	if (depth > l->depthmax)
		l->depthmax = depth;
}

/* Make the path root..leaf the open stack: close the frames it does not
 * share, open its own from the current time. False when leaf was open
 * already (nothing opened). */
static bool open_path(struct flow *f, node_t leaf)
{
	const struct node *nodes = f->p->nodes;
	uint32_t depth = nodes[leaf].depth;
	grow_open(f, (size_t)depth + 1);
	/* Deepest frame shared with the open stack. */
	node_t v = leaf;
	while (nodes[v].depth > f->top || f->open[nodes[v].depth] != v)
		v = nodes[v].parent;
	uint32_t same = nodes[v].depth;
	while (f->top > same)
		close_frame(f, f->top--);
	if (depth <= same)
		return false;
	for (node_t u = leaf; u != v; u = nodes[u].parent) {
		uint32_t d = nodes[u].depth;
		f->open[d] = u;
		f->stime[d] = f->t;
		f->stime_u[d] = f->tu;
		f->delta[d] = 0;
	}
	f->top = depth;
	return true;
}

/* Move the running time on by w (whole: u1 exactly). */
static void flow_advance(struct flow *f, double w, uint64_t u1)
{
	if (f->whole) {
		f->tu += u1;
		f->t = (double)f->tu;
	} else {
		f->t += w;
	}
}

/* One line of the flow: the stack ending at `leaf` with counts c0, c1. */
static void flow_line(struct flow *f, node_t leaf, double c0, double c1, uint64_t u1)
{
	if (open_path(f, leaf))
		f->delta[f->p->nodes[leaf].depth] += c1 - c0;
	flow_advance(f, c1, u1);
}

/* flow_line for the counts of node n. */
static void flow_node(struct flow *f, node_t n)
{
	const struct profile *p = f->p;
	flow_line(f, n, profile_self(p, n, 0), profile_self(p, n, 1),
		  p->fractional ? 0 : p->nodes[n].self[1].u);
}

/* Lines below `node` whose frames below it are all narrower than the
 * minimum width, of total weight w: what they do to the frames of node and
 * its ancestors is what their first line does (close the frames below
 * node, open the path to it) and their time; the frames they open below
 * node would be pruned. */
static void flow_narrow_lines(struct flow *f, node_t node, double w)
{
	open_path(f, node);
	flow_advance(f, w, (uint64_t)w); /* w is exact (exact_totals) */
}

/* The counts' total and the largest |after - before| of a line, summed in
 * node order; false (and nothing set) unless every count is an integer and
 * the total stays below 2^53, so that any order of the additions gives the
 * same sums as the sorted order (and subtree weights are exact). */
static bool exact_totals(const struct profile *p, double *total, double *maxdelta)
{
	double t = 0, m = 1;
	for (node_t i = 0; i < p->nr; i++) {
		if (!profile_has_self(p, i))
			continue;
		const double c[2] = { profile_self(p, i, 0), profile_self(p, i, 1) };
		if (!(c[0] >= 0 && c[1] >= 0 && c[0] < 0x1p53 && c[1] < 0x1p53) ||
		    c[0] != (double)(uint64_t)c[0] || c[1] != (double)(uint64_t)c[1])
			return false;
		t += c[1];
		if (!(t < 0x1p53))
			return false;
		double d = fabs(c[1] - c[0]);
		if (d > m)
			m = d;
	}
	*total = t;
	*maxdelta = m;
	return true;
}

/* The events' exact sum (after column), false when the profile is
 * fractional or the sum passes 2^64 - 1. */
static bool events_total_whole(const struct profile *p, uint64_t *sum)
{
	uint64_t t = 0;
	if (p->fractional)
		return false;
	for (size_t i = 0; i < p->events_nr; i++)
		if (__builtin_add_overflow(t, p->events[i].count[1].u, &t))
			return false;
	*sum = t;
	return true;
}

/* Order the frames by depth, then start time. They were closed in flow
 * order, in which the frames of one depth close one after the other, in
 * start time order (one frame per depth is open at a time): a stable
 * counting sort by depth is enough. */
static void sort_by_depth(struct layout *l)
{
	size_t *start = xcalloc((size_t)l->depthmax + 2, sizeof(*start));
	for (size_t i = 0; i < l->nr; i++)
		start[l->frames[i].depth + 1]++;
	for (uint32_t d = 0; d <= l->depthmax; d++)
		start[d + 1] += start[d];
	struct frame *sorted = xreallocarray(NULL, l->nr ? l->nr : 1, sizeof(*sorted));
	for (size_t i = 0; i < l->nr; i++)
		sorted[start[l->frames[i].depth]++] = l->frames[i];
	free(start);
	free(l->frames);
	l->frames = sorted;
}

int layout_build(struct layout *l, const struct profile *p, const struct layout_opts *o)
{
	memset(l, 0, sizeof(*l));
	l->differential = p->differential;
	double total = 0, maxdelta = 1;
	size_t nleaves = 0;
	node_t *leaves = NULL;
	/* With exact sums, the order of the lines is only needed down to the
	 * frames wide enough to draw (profile_flow_steps). */
	bool narrow_items = !o->flamechart && exact_totals(p, &total, &maxdelta);
	if (narrow_items) {
		/* total and maxdelta set */
	} else if (o->flamechart) {
		for (size_t i = 0; i < p->events_nr; i++) {
			const struct profile_event *e = &p->events[i];
			double c0 = profile_event_count(p, e, 0), c1 = profile_event_count(p, e, 1);
			total += c1;
			double d = fabs(c1 - c0);
			if (d > maxdelta)
				maxdelta = d;
		}
	} else {
		leaves = profile_sorted_leaves(p, ORDER_LINE_SPACE, &nleaves);
		for (size_t i = 0; i < nleaves; i++) {
			double c0 = profile_self(p, leaves[i], 0), c1 = profile_self(p, leaves[i], 1);
			total += c1;
			double d = fabs(c1 - c0);
			if (d > maxdelta)
				maxdelta = d;
		}
	}
	/* Whole counts (their sum checked by graph_render): exact widths. A
	 * flame chart's events are the same counts, one by one. */
	l->whole = o->flamechart ? events_total_whole(p, &l->total_whole) : profile_total_whole(p, 1, &l->total_whole);
	if (l->whole)
		total = (double)l->total_whole;
	l->total = total;
	l->maxdelta = maxdelta;
	l->timemax = o->total > total ? o->total : total;
	if (total == 0) {
		free(leaves);
		return 0;
	}

	struct flow f = { .p = p, .l = l, .whole = l->whole };
	double wpt = (o->image_width - 2 * LAYOUT_XPAD) / l->timemax;
	f.min_time = o->minwidth_pct ? l->timemax * o->minwidth / 100 : o->minwidth / wpt;
	grow_open(&f, 64);
	f.open[0] = PROFILE_ROOT;
	f.stime[0] = 0;
	f.stime_u[0] = 0;
	f.delta[0] = 0;
	f.top = 0;
	if (narrow_items && !(f.min_time > 0)) {
		narrow_items = false; /* nothing is pruned: every line in order */
		leaves = profile_sorted_leaves(p, ORDER_LINE_SPACE, &nleaves);
	}
	if (o->flamechart) {
		for (size_t i = 0; i < p->events_nr; i++) {
			const struct profile_event *e = &p->events[i];
			flow_line(&f, e->leaf, profile_event_count(p, e, 0), profile_event_count(p, e, 1),
				  p->fractional ? 0 : e->count[1].u);
		}
	} else if (narrow_items) {
		size_t nsteps;
		struct flow_step *steps = profile_flow_steps(p, ORDER_LINE_SPACE, f.min_time, &nsteps);
		for (size_t i = 0; i < nsteps; i++) {
			node_t n = steps[i].node;
			if (steps[i].line)
				flow_node(&f, n);
			else
				flow_narrow_lines(&f, n, steps[i].weight);
		}
		free(steps);
	} else {
		for (size_t i = 0; i < nleaves; i++)
			flow_node(&f, leaves[i]);
	}
	free(leaves);
	while (f.top > 0)
		close_frame(&f, f.top--);
	/* The root: pruned on its own width, drawn across the full width. */
	size_t before = l->nr;
	close_frame(&f, 0);
	if (l->nr > before)
		l->frames[l->nr - 1].etime = l->timemax;
	free(f.open);
	free(f.stime);
	free(f.delta);
	free(f.stime_u);
	sort_by_depth(l);
	return 0;
}

void layout_release(struct layout *l)
{
	free(l->frames);
	memset(l, 0, sizeof(*l));
}
