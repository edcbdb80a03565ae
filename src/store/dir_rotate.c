/* Removing old intervals from the directory store (dir_rotate.h). */
#include "store/dir_rotate.h"
#include "store/dir_table.h"
#include "store/dir_walk.h"

#include "base/alloc.h"
#include "base/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct victim {
	char *day_dir, *file;
	uint64_t end_ns, size;
	int remove;
};

struct scan {
	struct victim *v;
	size_t n, alloc;
	uint64_t total, oldest;
};

static int collect(void *ctx, const char *day_dir, const struct dir_entry *e)
{
	struct scan *s = ctx;
	char *path = xmalloc(strlen(day_dir) + strlen(e->file) + 2);
	sprintf(path, "%s/%s", day_dir, e->file);
	struct stat st;
	uint64_t size = stat(path, &st) ? 0 : (uint64_t)st.st_size;
	free(path);
	VEC_GROW(s->v, s->n + 1, s->alloc);
	s->v[s->n++] = (struct victim){ xstrdup(day_dir), xstrdup(e->file), e->end_ns, size, 0 };
	s->total += size;
	if (e->end_ns < s->oldest)
		s->oldest = e->end_ns;
	return 0;
}

static int by_end(const void *a, const void *b)
{
	const struct victim *x = a, *y = b;
	return (x->end_ns > y->end_ns) - (x->end_ns < y->end_ns);
}

static void scan_release(struct scan *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].day_dir);
		free(s->v[i].file);
	}
	free(s->v);
}

/* A day's stack table goes with its last interval: each interval counts
 * an equal share of it, so removing a whole day frees what it held. */
static void share_tables(struct scan *s)
{
	for (size_t i = 0, j; i < s->n; i = j) {
		for (j = i + 1; j < s->n && !strcmp(s->v[j].day_dir, s->v[i].day_dir); j++)
			;
		char *path = xmalloc(strlen(s->v[i].day_dir) + sizeof(DIR_TABLE_NAME) + 2);
		sprintf(path, "%s/%s", s->v[i].day_dir, DIR_TABLE_NAME);
		struct stat st;
		uint64_t table = stat(path, &st) ? 0 : (uint64_t)st.st_size, n = j - i;
		free(path);
		for (size_t k = i; k < j; k++)
			s->v[k].size += table / n + (k - i < table % n);
		s->total += table;
	}
}

static int scan(struct dir_rotate *r, struct scan *s)
{
	*s = (struct scan){ .oldest = UINT64_MAX };
	if (dir_walk(r->root, NULL, NULL, collect, s) < 0)
		return -1;
	share_tables(s);
	r->total_bytes = s->total;
	r->oldest_end_ns = s->oldest;
	return 0;
}

int dir_rotate_init(struct dir_rotate *r, const char *root, uint64_t keep_ns, uint64_t max_bytes)
{
	*r = (struct dir_rotate){ root, keep_ns, max_bytes, 0, UINT64_MAX, 0 };
	if (!keep_ns && !max_bytes)
		return 0;
	struct scan s;
	int ret = scan(r, &s);
	scan_release(&s);
	return ret;
}

/* Rewrite day_dir's index without the lines whose file is gone; an index
 * left empty goes, with its day and host directories when empty. */
static int rewrite_index(const char *day_dir)
{
	char *path = xmalloc(strlen(day_dir) + sizeof(DIR_INDEX_NAME) + 8);
	sprintf(path, "%s/%s", day_dir, DIR_INDEX_NAME);
	size_t len, kept = 0;
	char *buf = dir_read_file(path, &len), *out = xmalloc(len + 1), *tmp = NULL;
	int ret = 0;
	if (!buf) {
		if (errno != ENOENT)
			ret = error("%s: %s", path, strerror(errno));
		free(out);
		free(path);
		return ret;
	}
	for (char *s = buf, *nl; (nl = memchr(s, '\n', len - (size_t)(s - buf))); s = nl + 1) {
		size_t n = (size_t)(nl - s) + 1;
		char *line = xmemdup0(s, n - 1), *fpath;
		struct dir_entry e;
		struct stat st;
		bool keep = true;
		if (!dir_index_parse(line, &e)) {
			fpath = xmalloc(strlen(day_dir) + strlen(e.file) + 2);
			sprintf(fpath, "%s/%s", day_dir, e.file);
			keep = stat(fpath, &st) == 0;
			free(fpath);
		}
		free(line);
		if (keep) {
			memcpy(out + kept, s, n);
			kept += n;
		}
	}
	if (!kept) {
		unlink(path);
		char *table = xmalloc(strlen(day_dir) + sizeof(DIR_TABLE_NAME) + 2);
		sprintf(table, "%s/%s", day_dir, DIR_TABLE_NAME);
		unlink(table);
		free(table);
		rmdir(day_dir); /* fails harmlessly when something else is there */
		char *host_dir = xstrdup(day_dir);
		*strrchr(host_dir, '/') = 0;
		rmdir(host_dir);
		free(host_dir);
	} else {
		tmp = xmalloc(strlen(path) + 8);
		sprintf(tmp, "%s.new", path);
		FILE *f = fopen(tmp, "w");
		if (!f || fwrite(out, 1, kept, f) != kept || fclose(f) || rename(tmp, path))
			ret = error("%s: %s", path, strerror(errno));
		free(tmp);
	}
	free(buf);
	free(out);
	free(path);
	return ret;
}

static int rotate(struct dir_rotate *r, uint64_t now_ns)
{
	struct scan s;
	if (scan(r, &s)) {
		scan_release(&s);
		return -1;
	}
	if (s.n)
		qsort(s.v, s.n, sizeof(*s.v), by_end);
	uint64_t total = s.total, cutoff = now_ns > r->keep_ns ? now_ns - r->keep_ns : 0;
	/* The newest interval is never removed: a bound smaller than one
	 * interval keeps the last one. */
	for (size_t i = 0; i + 1 < s.n; i++) {
		bool old = r->keep_ns && s.v[i].end_ns < cutoff;
		bool big = r->max_bytes && total > r->max_bytes;
		if (!old && !big)
			break;
		char *path = xmalloc(strlen(s.v[i].day_dir) + strlen(s.v[i].file) + 2);
		sprintf(path, "%s/%s", s.v[i].day_dir, s.v[i].file);
		if (unlink(path) && errno != ENOENT)
			warn("%s: cannot remove: %s", path, strerror(errno));
		else {
			s.v[i].remove = 1;
			total -= s.v[i].size;
			r->removed++;
		}
		free(path);
	}
	int ret = 0;
	const char *last = NULL; /* removals come oldest first, mostly a day at a time */
	for (size_t i = 0; i < s.n; i++) {
		if (!s.v[i].remove || (last && !strcmp(last, s.v[i].day_dir)))
			continue;
		last = s.v[i].day_dir;
		if (rewrite_index(last)) /* idempotent: a day seen twice is rewritten twice */
			ret = -1;
	}
	scan_release(&s);
	struct scan again;
	if (scan(r, &again))
		ret = -1;
	scan_release(&again);
	return ret;
}

int dir_rotate_added(struct dir_rotate *r, uint64_t size, uint64_t end_ns, uint64_t now_ns)
{
	if (!r->keep_ns && !r->max_bytes)
		return 0;
	r->total_bytes += size;
	if (end_ns < r->oldest_end_ns)
		r->oldest_end_ns = end_ns;
	bool old = r->keep_ns && r->oldest_end_ns != UINT64_MAX && r->oldest_end_ns + r->keep_ns < now_ns;
	bool big = r->max_bytes && r->total_bytes > r->max_bytes;
	return old || big ? rotate(r, now_ns) : 0;
}
