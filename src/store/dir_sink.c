/* The directory sink: one gzipped pprof per interval under
 * DIR/HOST/DAY/, its line appended to the day's index (dir_index.h), and
 * rotation by age and size (dir_rotate.h). */
#include "store/dir_index.h"
#include "store/dir_rotate.h"
#include "store/store.h"
#include "store/when.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/out.h"
#include "render/pprof.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct dir_sink {
	char *root;
	struct dir_rotate rot;
};

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

/* The interval's pprof at day_dir/START-END[-N].pb.gz; its name in *file. */
static int write_profile(const char *day_dir, const struct profile *p, const struct store_meta *m, char **file)
{
	size_t n = strlen(day_dir) + 80;
	char *path = xmalloc(n);
	struct stat st;
	for (int k = 0;; k++) {
		int w = snprintf(path, n, "%s/%" PRIu64 "-%" PRIu64, day_dir, m->start_ns, m->end_ns);
		if (k)
			snprintf(path + w, n - (size_t)w, "-%d", k);
		strcat(path, ".pb.gz");
		if (lstat(path, &st))
			break;
	}
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
	if (!ret && (size = write_profile(day_dir, p, m, &file)) < 0)
		ret = -1;
	if (!ret) {
		size_t len;
		char *line = dir_index_line(m, file, &len);
		ret = append_index(day_dir, line, len);
		free(line);
	}
	if (!ret) {
		s->stats.sent++;
		ret = dir_rotate_added(&d->rot, (uint64_t)size, m->end_ns, when_now());
	}
	free(file);
	free(day_dir);
	free(host);
	return ret;
}

static void dir_close(struct sink *s)
{
	struct dir_sink *d = s->state;
	free(d->root);
	free(d);
}

const struct sink_ops dir_sink_ops = { "dir", dir_open, dir_put, dir_close };
