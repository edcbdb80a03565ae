/* The directory source: the intervals of a query read from the index of
 * each host and day they may fall in, their pprof files summed (under a
 * root per host when asked), and with time asked each interval's counts
 * at its start. The store is read as it is found: a file an index names
 * that is gone (rotated meanwhile) is an error. */
#include "store/dir_walk.h"
#include "store/store.h"
#include "store/when.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/input.h"
#include "collapse/pprof_proto.h"
#include "profile/time_cells.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct dir_source {
	char *root;
	char unit[64];
};

struct query_ctx {
	const struct store_query *q;
	struct profile *p;
	struct store_found *found;
	struct dir_source *d;
};

static int dir_src_open(struct source *s, const char *url)
{
	const char *path = !strncmp(url, "file://", 7) ? url + 7 : url;
	struct stat st;
	if (stat(path, &st) || !S_ISDIR(st.st_mode))
		return error("%s: not a directory", path);
	struct dir_source *d = xcalloc(1, sizeof(*d));
	d->root = xstrdup(path);
	s->state = d;
	return 0;
}

static bool has_labels(const struct dir_entry *e, const struct store_query *q)
{
	for (size_t i = 0; i < q->nr_labels; i++) {
		bool found = false;
		for (size_t j = 0; j < e->nr_labels && !found; j++)
			found = !strcmp(e->labels[j], q->labels[i]);
		if (!found)
			return false;
	}
	return true;
}

/* Every count of one interval at its bucket's start: the merge below
 * carries them into the query's profile. */
static void stamp_interval(struct profile *one, uint64_t when)
{
	profile_keep_time(one);
	for (node_t i = 0; i < one->nr; i++) {
		double c = profile_self(one, i, 0);
		if (!one->fractional && one->nodes[i].self[0].u)
			time_cells_add(one, i, when, one->nodes[i].self[0].u);
		else if (c > 0 && c < 0x1p63)
			time_cells_add(one, i, when, (uint64_t)llround(c));
	}
}

/* One interval's file into ctx->p. */
static int add_interval(struct query_ctx *c, const char *day_dir, const struct dir_entry *e)
{
	char *path = xmalloc(strlen(day_dir) + strlen(e->file) + 2);
	sprintf(path, "%s/%s", day_dir, e->file);
	struct input in;
	int ret = input_load(&in, path);
	struct profile one;
	profile_init(&one);
	if (!ret) {
		/* a pprof with a period has samples/count and cpu/nanoseconds:
		 * the store's counts are the samples */
		bool samples = !strcmp(e->unit, "samples");
		struct collapse_opts co = { .sample_index = samples ? "samples" : NULL };
		struct collapse_source src = { path, in.data, in.len };
		ret = pprof_proto_parse(&one, &src, &co);
		input_release(&in);
	}
	if (!ret && c->q->time_bucket_ns)
		stamp_interval(&one, e->start_ns - e->start_ns % c->q->time_bucket_ns);
	if (!ret) {
		node_t under = PROFILE_ROOT;
		if (c->q->group_by_host)
			under = profile_push_str(c->p, PROFILE_ROOT, e->host, strlen(e->host));
		profile_merge_under(c->p, &one, under);
		c->found->intervals++;
		if (strcmp(e->unit, "samples") && !c->d->unit[0])
			snprintf(c->d->unit, sizeof(c->d->unit), "%s", e->unit);
	}
	profile_release(&one);
	free(path);
	return ret;
}

static int each_entry(void *ctx, const char *day_dir, const struct dir_entry *e)
{
	struct query_ctx *c = ctx;
	const struct store_query *q = c->q;
	if (e->start_ns >= q->to_ns || e->end_ns <= q->from_ns || !store_host_match(q->host_pattern, e->host) ||
	    !has_labels(e, q))
		return 0;
	return add_interval(c, day_dir, e) ? -1 : 0;
}

static int dir_src_query(struct source *s, const struct store_query *q, struct profile *p,
			 struct store_found *found)
{
	struct dir_source *d = s->state;
	char first[11], last[11];
	/* an interval that began the day before may reach into the range */
	uint64_t day_ns = 86400ull * 1000000000ull;
	when_day(q->from_ns > day_ns ? q->from_ns - day_ns : 0, first);
	when_day(q->to_ns ? q->to_ns - 1 : 0, last);
	struct query_ctx c = { q, p, found, d };
	int ret = dir_walk(d->root, first, last, each_entry, &c);
	found->unit = d->unit[0] ? d->unit : NULL;
	return ret ? -1 : 0;
}

static void dir_src_close(struct source *s)
{
	struct dir_source *d = s->state;
	free(d->root);
	free(d);
}

const struct source_ops dir_source_ops = { "dir", dir_src_open, dir_src_query, dir_src_close };
