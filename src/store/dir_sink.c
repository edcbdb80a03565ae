/* The directory sink: one file per interval under DIR/HOST/DAY/, its
 * counts by the numbers of the day's stack table (dir_counts.h,
 * dir_table.h; a gzipped pprof when built without zstd, or when the table
 * cannot be read), its line appended to the day's index (dir_index.h),
 * and rotation by age and size (dir_rotate.h). */
#include "store/dir_counts.h"
#include "store/dir_index.h"
#include "store/dir_rotate.h"
#include "store/dir_table.h"
#include "store/dir_walk.h"
#include "store/store.h"
#include "store/when.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/out.h"
#include "render/pprof.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A writer's table is forgotten once a put takes it past this many bytes
 * (dir_table.h): the memory of a day's new stacks, hundreds of thousands
 * under churn, stays flat, at the price of writing again the stacks met
 * after. Its map stays at 2^17 slots (2 MiB, 91,000 stacks) or below, but
 * for the put that passes them. */
#ifndef TABLE_WRITER_BYTES /* (-DTABLE_WRITER_BYTES=1: a build that forgets at each put) */
#define TABLE_WRITER_BYTES ((size_t)4 << 20)
#endif

struct dir_sink {
	char *root;
	struct dir_rotate rot;
	/* the stack table of the day last written (table_dir), as far as read */
	struct dir_table table;
	char *table_dir;
	dev_t table_dev;
	ino_t table_ino;
	/* rotation's clock: the wall clock at open, advanced on the monotonic
	 * clock (a step of the wall clock does not age what is stored) */
	uint64_t wall0_ns, mono0_ns;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* mkdir -p of path (modified while walking, restored). 0 or -1 (errno). */
static int mkdirs(char *path)
{
	for (char *s = path + 1;; s++) {
		if (*s == '/' || !*s) {
			char c = *s;
			*s = 0;
			int r = mkdir(path, 0777);
			*s = c;
			if (r && errno != EEXIST)
				return -1;
			if (!c)
				break;
		}
	}
	struct stat st;
	if (stat(path, &st))
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

static int dir_open(struct sink *s, const char *url, const struct sink_opts *o)
{
	const char *path = !strncmp(url, "file://", 7) ? url + 7 : url;
	if (!*path)
		return error("%s: no directory named", url);
	char *root = xstrdup(path);
	if (mkdirs(root) || access(root, W_OK | X_OK)) {
		error("%s: cannot write profiles there: %s", path, strerror(errno));
		free(root);
		return -1;
	}
	struct dir_sink *d = xcalloc(1, sizeof(*d));
	d->root = root;
	dir_table_init(&d->table, true);
	d->wall0_ns = when_now();
	d->mono0_ns = mono_ns();
	if (dir_rotate_init(&d->rot, root, o->keep_ns, o->max_bytes)) {
		free(root);
		free(d);
		return -1;
	}
	s->state = d;
	return 0;
}

/* Append line to day_dir's index with one write. */
static int append_index(const char *day_dir, const char *line, size_t len)
{
	char *path = xmalloc(strlen(day_dir) + sizeof(DIR_INDEX_NAME) + 2);
	sprintf(path, "%s/%s", day_dir, DIR_INDEX_NAME);
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666), ret = 0;
	if (fd < 0 || write(fd, line, len) != (ssize_t)len)
		ret = error("%s: %s", path, fd < 0 || errno ? strerror(errno) : "short write");
	if (fd >= 0 && close(fd) && !ret)
		ret = error("%s: %s", path, strerror(errno));
	free(path);
	return ret;
}

/* A free name for the interval: day_dir/START-END[-N]SUFFIX (malloc'd). */
static char *interval_path(const char *day_dir, const struct store_meta *m, const char *suffix)
{
	size_t n = strlen(day_dir) + 80;
	char *path = xmalloc(n);
	struct stat st;
	for (int k = 0;; k++) {
		int w = snprintf(path, n, "%s/%" PRIu64 "-%" PRIu64, day_dir, m->start_ns, m->end_ns);
		if (k)
			snprintf(path + w, n - (size_t)w, "-%d", k);
		strcat(path, suffix);
		if (lstat(path, &st))
			return path;
	}
}

/* The interval's pprof at day_dir/START-END[-N].pb.gz; its name in *file. */
static int write_profile(const char *day_dir, const struct profile *p, const struct store_meta *m, char **file)
{
	char *path = interval_path(day_dir, m, ".pb.gz");
	struct stat st;
	struct out *o = out_open(path);
	if (!o) {
		free(path);
		return -1;
	}
	struct pprof_opts po = {
		.count_unit = m->unit,
		.period_ns = m->rate_hz ? 1e9 / m->rate_hz : 0,
		.time_ns = (int64_t)m->start_ns,
		.duration_ns = (int64_t)(m->end_ns - m->start_ns),
	};
	pprof_write(o, p, &po);
	if (out_commit(o)) {
		free(path);
		return -1;
	}
	if (stat(path, &st) == 0)
		*file = xstrdup(strrchr(path, '/') + 1);
	free(path);
	return *file ? (int)st.st_size : -1;
}

/* Bring d->table up to the file open (and locked) at fd: read what other
 * writers appended, start again when it is another file, and cut off a
 * last frame cut short. 0, or -1 (error printed: the table is unusable). */
static int sync_table(struct dir_sink *d, int fd, const char *day_dir, const char *path)
{
	struct stat st;
	if (fstat(fd, &st))
		return error("%s: %s", path, strerror(errno));
	if (!d->table_dir || strcmp(d->table_dir, day_dir) || st.st_dev != d->table_dev ||
	    st.st_ino != d->table_ino || (uint64_t)st.st_size < d->table.file_len) {
		dir_table_release(&d->table);
		dir_table_init(&d->table, true);
		free(d->table_dir);
		d->table_dir = xstrdup(day_dir);
		d->table_dev = st.st_dev;
		d->table_ino = st.st_ino;
	}
	if ((uint64_t)st.st_size == d->table.file_len)
		return 0;
	size_t len;
	char *data = dir_read_file(path, &len);
	if (!data)
		return error("%s: %s", path, strerror(errno));
	int ret = dir_table_read(&d->table, path, data, len);
	free(data);
	if (!ret && d->table.file_len < (uint64_t)st.st_size && ftruncate(fd, (off_t)d->table.file_len))
		ret = error("%s: cannot cut off its unfinished last frame: %s", path, strerror(errno));
	if (ret) {
		free(d->table_dir);
		d->table_dir = NULL; /* read again next time */
	}
	return ret;
}

/* p's counts by the table's numbers, the table's new records appended to
 * fd (at its end, d->table.file_len before). 0, or -1 (error printed; the
 * table is read again next time). */
static int count_by_table(struct dir_sink *d, int fd, const char *path, const struct profile *p,
			  struct dir_count **counts, size_t *nr)
{
	struct dir_table *t = &d->table;
	uint32_t *id = xmalloc((p->nr ? p->nr : 1) * sizeof(*id));
	struct dir_count *c = xmalloc((p->nr ? p->nr : 1) * sizeof(*c));
	size_t n = 0;
	id[PROFILE_ROOT] = 0;
	for (node_t i = 1; i < p->nr; i++) {
		uint32_t name = dir_table_name(t, profile_name(p, i), profile_name_len(p, i));
		id[i] = dir_table_stack(t, id[p->nodes[i].parent], name);
		double v = profile_self(p, i, 0);
		uint64_t whole = p->fractional ? (v >= 0.5 && v < 0x1p63 ? (uint64_t)llround(v) : 0)
					       : p->nodes[i].self[0].u;
		if (whole)
			c[n++] = (struct dir_count){ id[i], whole };
	}
	free(id);
	uint64_t at = t->file_len;
	size_t len = 0;
	char *frame = dir_table_take_frame(t, &len);
	int ret = 0;
	if (frame && pwrite(fd, frame, len, (off_t)at) != (ssize_t)len) {
		ret = error("%s: %s", path, errno ? strerror(errno) : "short write");
		if (ftruncate(fd, (off_t)at))
			warn("%s: cannot cut off a failed write: %s", path, strerror(errno));
		free(d->table_dir);
		d->table_dir = NULL;
	}
	free(frame);
	if (dir_table_writer_bytes(t) > TABLE_WRITER_BYTES)
		dir_table_forget(t);
	if (ret) {
		free(c);
		return -1;
	}
	*counts = c;
	*nr = n;
	return 0;
}

/* The interval's counts at day_dir/START-END[-N].zst, its new stacks in
 * the day's table; its name in *file. The size it added, or -1, or -2
 * when the table could not be used (error printed; nothing written). */
static int write_counts(struct dir_sink *d, const char *day_dir, const struct profile *p,
			const struct store_meta *m, char **file)
{
	char *tpath = xmalloc(strlen(day_dir) + sizeof(DIR_TABLE_NAME) + 2);
	sprintf(tpath, "%s/%s", day_dir, DIR_TABLE_NAME);
	int fd = open(tpath, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0 || flock(fd, LOCK_EX)) {
		error("%s: %s", tpath, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(tpath);
		return -2;
	}
	uint64_t before = d->table.file_len;
	struct dir_count *c = NULL;
	size_t n = 0, len = 0;
	int ret = sync_table(d, fd, day_dir, tpath) ? -2 : 0;
	if (!ret)
		before = d->table.file_len;
	if (!ret && count_by_table(d, fd, tpath, p, &c, &n))
		ret = -1;
	char *bytes = ret ? NULL : dir_counts_encode(c, n, &len), *path = NULL;
	if (!ret && !bytes)
		ret = -1;
	if (!ret) {
		path = interval_path(day_dir, m, DIR_COUNTS_SUFFIX);
		struct out *o = out_open(path);
		if (o)
			out_write(o, bytes, len);
		if (!o || out_commit(o))
			ret = -1;
	}
	if (!ret) {
		*file = xstrdup(strrchr(path, '/') + 1);
		ret = (int)(len + (d->table.file_len - before));
	}
	close(fd); /* and its lock */
	free(path);
	free(bytes);
	free(c);
	free(tpath);
	return ret;
}

static int dir_put(struct sink *s, const struct profile *p, const struct store_meta *m)
{
	struct dir_sink *d = s->state;
	if (!m->host || !*m->host)
		return error("%s: an interval needs a host name", d->root);
	if (m->nr_labels > 32)
		return error("%s: at most 32 labels per interval", d->root);
	char day[11], *host = dir_host_name(m->host), *file = NULL;
	when_day(m->start_ns, day);
	char *day_dir = xmalloc(strlen(d->root) + strlen(host) + 16);
	sprintf(day_dir, "%s/%s/%s", d->root, host, day);
	int ret = 0, size = 0;
	if (mkdirs(day_dir))
		ret = error("%s: %s", day_dir, strerror(errno));
#ifdef HAVE_ZSTD
	if (!ret && (size = write_counts(d, day_dir, p, m, &file)) == -2) {
		warn("%s: the interval is written as pprof instead", day_dir);
		size = write_profile(day_dir, p, m, &file);
	}
#else
	if (!ret)
		size = write_profile(day_dir, p, m, &file);
#endif
	if (!ret && size < 0)
		ret = -1;
	if (!ret) {
		size_t len;
		char *line = dir_index_line(m, file, &len);
		ret = append_index(day_dir, line, len);
		free(line);
	}
	if (!ret) {
		s->stats.sent++;
		/* --keep ages intervals by the sink's clock and by the interval
		 * just stored, whichever is older (dir_rotate.h) */
		uint64_t now = d->wall0_ns + (mono_ns() - d->mono0_ns);
		ret = dir_rotate_added(&d->rot, (uint64_t)size, m->end_ns, now < m->end_ns ? now : m->end_ns);
	}
	free(file);
	free(day_dir);
	free(host);
	return ret;
}

static void dir_close(struct sink *s)
{
	struct dir_sink *d = s->state;
	dir_table_release(&d->table);
	free(d->table_dir);
	free(d->root);
	free(d);
}

const struct sink_ops dir_sink_ops = { "dir", dir_open, dir_put, dir_close };
