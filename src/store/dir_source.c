/* The directory source: the intervals of a query read from the index of
 * each host and day they may fall in, their files summed (under a root
 * per host when asked), and with time asked each interval's counts at its
 * start. An interval file is counts by the numbers of its day's stack
 * table (dir_counts.h, dir_table.h), read once per day, or a gzipped pprof
 * (what stores written before the tables hold, and what a store built
 * without zstd writes). The store is read as it is found: a file an index
 * names that is gone (rotated meanwhile) is an error. */
#include "store/dir_counts.h"
#include "store/dir_table.h"
#include "store/dir_walk.h"
#include "store/store.h"
#include "store/when.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/input.h"
#include "collapse/pprof_proto.h"
#include "profile/time_cells.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct dir_source {
	char *root;
	char unit[64];
};

/* The stack table of the day being read, and the query profile's node
 * of each of its stacks met so far (0: not yet), below `under`. */
struct day_table {
	char *day_dir; /* NULL: none read */
	struct dir_table t;
	node_t *node, under;
	sym_t *sym; /* name number -> the query profile's name + 1 (0: not yet) */
};

struct query_ctx {
	const struct store_query *q;
	struct profile *p;
	struct store_found *found;
	struct dir_source *d;
	struct day_table day;
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

/* The root frame of host's intervals (the root itself unless grouped by
 * host). A line break in the index's host (escaped there) would end a
 * folded line early: it becomes '?'. */
static node_t host_root(struct profile *p, const struct store_query *q, const char *host)
{
	if (!q->group_by_host)
		return PROFILE_ROOT;
	char *safe = xstrdup(host);
	for (char *s = safe; *s; s++)
		if (*s == '\n' || *s == '\r')
			*s = '?';
	node_t n = profile_push_str(p, PROFILE_ROOT, safe, strlen(safe));
	free(safe);
	return n;
}

/* One interval's pprof file into ctx->p. */
static int add_pprof(struct query_ctx *c, const char *path, const struct dir_entry *e)
{
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
		profile_merge_under(c->p, &one, host_root(c->p, c->q, e->host));
	}
	profile_release(&one);
	return ret;
}

static void day_release(struct day_table *day)
{
	if (day->day_dir)
		dir_table_release(&day->t);
	free(day->day_dir);
	free(day->node);
	free(day->sym);
	*day = (struct day_table){ 0 };
}

/* day_dir's table in day (read when it is another day's). */
static int day_load(struct day_table *day, const char *day_dir)
{
	if (day->day_dir && !strcmp(day->day_dir, day_dir))
		return 0;
	day_release(day);
	char *path = xmalloc(strlen(day_dir) + sizeof(DIR_TABLE_NAME) + 2);
	sprintf(path, "%s/%s", day_dir, DIR_TABLE_NAME);
	size_t len;
	char *data = dir_read_file(path, &len);
	int ret = 0;
	dir_table_init(&day->t, false);
	if (!data)
		ret = error("%s: %s", path, strerror(errno));
	else
		ret = dir_table_read(&day->t, path, data, len);
	free(data);
	free(path);
	if (ret) {
		dir_table_release(&day->t);
		return -1;
	}
	day->day_dir = xstrdup(day_dir);
	day->node = xcalloc(day->t.nr_stacks, sizeof(*day->node));
	day->sym = xcalloc(day->t.nr_names ? day->t.nr_names : 1, sizeof(*day->sym));
	return 0;
}

/* The query profile's node of stack id (its parents made first). */
static node_t stack_node(struct profile *p, struct day_table *day, uint32_t id, uint32_t **chain, size_t *alloc)
{
	size_t n = 0;
	while (id && !day->node[id]) {
		VEC_GROW(*chain, n + 1, *alloc);
		(*chain)[n++] = id;
		id = day->t.parent[id];
	}
	node_t at = id ? day->node[id] : day->under;
	while (n--) {
		uint32_t s = (*chain)[n], name = day->t.name[s];
		if (!day->sym[name]) {
			uint32_t len;
			const char *str = dir_table_frame(&day->t, s, &len);
			day->sym[name] = profile_sym(p, str, len) + 1;
		}
		at = day->node[s] = profile_push(p, at, day->sym[name] - 1);
	}
	return at;
}

/* An interval file's decompressed bytes (path's) into p below under, with
 * time at `when` when p keeps time. */
static int add_counts(struct profile *p, struct day_table *day, const char *path, const char *data, size_t len,
		      node_t under, uint64_t when)
{
	if (day->under != under) { /* another host in the same day's index */
		memset(day->node, 0, day->t.nr_stacks * sizeof(*day->node));
		day->under = under;
	}
	struct dir_count *counts = NULL;
	size_t n = 0;
	int ret = dir_counts_decode(path, data, len, day->t.nr_stacks, &counts, &n);
	uint32_t *chain = NULL;
	size_t alloc = 0;
	for (size_t i = 0; !ret && i < n; i++)
		profile_count_at(p, stack_node(p, day, counts[i].stack, &chain, &alloc), counts[i].count, when);
	free(chain);
	free(counts);
	return ret;
}

/* An interval file into c->p: its day's table (read once a day), then
 * its counts. */
static int add_counts_file(struct query_ctx *c, const char *day_dir, const char *path, const struct dir_entry *e,
			   node_t under)
{
	if (day_load(&c->day, day_dir))
		return -1;
	struct input in;
	if (input_load(&in, path))
		return -1;
	uint64_t when = c->q->time_bucket_ns ? e->start_ns - e->start_ns % c->q->time_bucket_ns : 0;
	if (c->q->time_bucket_ns)
		profile_keep_time(c->p);
	int ret = add_counts(c->p, &c->day, path, in.data, in.len, under, when);
	input_release(&in);
	return ret;
}

int dir_counts_add(struct profile *p, const struct dir_table *t, const char *path, const char *data, size_t len)
{
	struct day_table day = { .t = *t }; /* borrowed: not released here */
	day.node = xcalloc(t->nr_stacks, sizeof(*day.node));
	day.sym = xcalloc(t->nr_names ? t->nr_names : 1, sizeof(*day.sym));
	int ret = add_counts(p, &day, path, data, len, PROFILE_ROOT, 0);
	free(day.node);
	free(day.sym);
	return ret;
}

int store_dir_interval(struct profile *p, const char *path, const char *data, size_t len)
{
	const char *slash = strrchr(path, '/');
	char *day_dir = slash ? xmemdup0(path, (size_t)(slash - path)) : xstrdup(".");
	struct day_table day = { 0 };
	int ret = day_load(&day, day_dir);
	if (!ret)
		ret = add_counts(p, &day, path, data, len, PROFILE_ROOT, 0);
	day_release(&day);
	free(day_dir);
	return ret;
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

/* One interval's file into ctx->p. */
static int add_interval(struct query_ctx *c, const char *day_dir, const struct dir_entry *e)
{
	char *path = xmalloc(strlen(day_dir) + strlen(e->file) + 2);
	sprintf(path, "%s/%s", day_dir, e->file);
	int ret;
	if (has_suffix(e->file, DIR_COUNTS_SUFFIX)) {
		ret = add_counts_file(c, day_dir, path, e, host_root(c->p, c->q, e->host));
	} else {
		ret = add_pprof(c, path, e);
	}
	if (!ret) {
		c->found->intervals++;
		if (strcmp(e->unit, "samples") && !c->d->unit[0])
			snprintf(c->d->unit, sizeof(c->d->unit), "%s", e->unit);
	}
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
	struct query_ctx c = { q, p, found, d, { 0 } };
	int ret = dir_walk(d->root, first, last, each_entry, &c);
	day_release(&c.day);
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
