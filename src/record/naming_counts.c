/* The naming step's counts (naming_impl.h): once every stack has its
 * profile node, the samples are counted into the profile (by time ranges,
 * in time order, off-CPU microseconds or plain counts), and their times
 * into its time table. */
#include "record/naming.h"
#include "record/naming_impl.h"

#include "base/alloc.h"
#include "profile/profile.h"
#include "profile/time_cells.h"
#include "profile/time_ranges.h"
#include "record/recorder_impl.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int cmp_event(const void *a, const void *b)
{
	const struct order_event *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Samples are stamped with CLOCK_MONOTONIC (both backends): its offset to
 * the epoch, taken now. */
static void set_epoch(struct profile *p)
{
	struct timespec real, mono;
	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	time_cells_set_epoch(p, ((int64_t)real.tv_sec - (int64_t)mono.tv_sec) * 1000000000 +
					(real.tv_nsec - mono.tv_nsec));
}

/* The samples' times (recorder.keep_time), from stacks to their leaves. */
static void add_times(struct recorder *r, struct profile *p)
{
	node_t *leaf = xreallocarray(NULL, r->nr_stacks ? r->nr_stacks : 1, sizeof(*leaf));
	for (uint32_t i = 0; i < r->nr_stacks; i++)
		leaf[i] = r->stacks[i].leaf ? r->stacks[i].leaf : TIME_NODE_DROPPED;
	time_cells_merge(p, r->times, leaf);
	free(leaf);
	set_epoch(p);
}

/* --time: the samples (events, one each) in the ranges, resolved against
 * the first and last sample; in time order, and into the time table
 * when it is kept. Ranges that cannot be resolved count nothing and say
 * why (the command's usage error). */
static void count_in_ranges(struct recorder *r, struct profile *p)
{
	struct time_ranges *t = r->opts->time_ranges;
	uint64_t first = UINT64_MAX, last = 0;
	for (size_t i = 0; i < r->nr_events; i++) {
		uint64_t w = r->events[i].time;
		if (w && w < first)
			first = w;
		if (w > last)
			last = w;
	}
	if (first > last) {
		snprintf(t->why, sizeof(t->why), "no sample has a time");
		t->bad = true;
		return;
	}
	if (time_ranges_resolve(t, first, last, t->why, sizeof(t->why))) {
		t->bad = true;
		return;
	}
	qsort(r->events, r->nr_events, sizeof(r->events[0]), cmp_event);
	p->keep_events = r->opts->keep_order;
	if (r->times)
		profile_keep_time(p);
	for (size_t i = 0; i < r->nr_events; i++) {
		const struct order_event *e = &r->events[i];
		node_t leaf = r->stacks[e->stack].leaf;
		if (!e->time || !time_ranges_keep(t, e->time) || !leaf)
			continue;
		if (p->time)
			profile_count_at(p, leaf, 1, e->time);
		else
			profile_count(p, leaf, 1);
	}
	if (p->time)
		set_epoch(p);
}

static void count_user_share(struct recorder *r, const struct rstack *s)
{
	if (s->leaf && s->has_user) {
		r->user_samples += s->count;
		r->reached += s->reached ? s->count : 0;
	}
}

void naming_count_one(struct recorder *r, struct profile *p, const struct rstack *s)
{
	profile_count(p, s->leaf, (double)s->count);
	count_user_share(r, s);
}

void naming_count(struct recorder *r, struct profile *p)
{
	if (r->opts->time_ranges) {
		count_in_ranges(r, p);
	} else if (r->opts->keep_order && r->nr_events) {
		/* Rings are per CPU: merge them by time. */
		qsort(r->events, r->nr_events, sizeof(r->events[0]), cmp_event);
		p->keep_events = true;
		for (size_t i = 0; i < r->nr_events; i++)
			profile_count(p, r->stacks[r->events[i].stack].leaf, 1);
	} else if (r->opts->off_cpu) {
		/* Microseconds, rounded once per stack (see record.h). */
		for (uint32_t i = 0; i < r->nr_stacks; i++) {
			uint64_t us = (r->stacks[i].ns + 500) / 1000;
			if (us)
				profile_count(p, r->stacks[i].leaf, (double)us);
		}
	} else {
		for (uint32_t i = 0; i < r->nr_stacks; i++)
			profile_count(p, r->stacks[i].leaf, (double)r->stacks[i].count);
	}
	if (r->times && !r->untimed && !r->opts->time_ranges) {
		add_times(r, p);
	} else if (r->times_folded) { /* a sample came without a time: no table (as if nothing was folded) */
		time_cells_free(p->time);
		p->time = NULL;
	}
	for (uint32_t i = 0; i < r->nr_stacks; i++)
		count_user_share(r, &r->stacks[i]);
}
