/* The walk over DIR/HOST/DAY/index.tsv (dir_walk.h). */
#include "store/dir_walk.h"

#include "base/alloc.h"
#include "base/error.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *dir_read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	char *buf = NULL;
	size_t n = 0, alloc = 0;
	for (;;) {
		VEC_GROW(buf, n + 65536 + 1, alloc);
		ssize_t r = read(fd, buf + n, alloc - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			close(fd);
			errno = e;
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = 0;
	*len = n;
	return buf;
}

static bool is_day(const char *s)
{
	if (strlen(s) != 10 || s[4] != '-' || s[7] != '-')
		return false;
	for (int i = 0; i < 10; i++)
		if (i != 4 && i != 7 && (s[i] < '0' || s[i] > '9'))
			return false;
	return true;
}

static int walk_index(const char *day_dir, dir_walk_fn fn, void *ctx)
{
	char *path = xmalloc(strlen(day_dir) + sizeof(DIR_INDEX_NAME) + 2);
	sprintf(path, "%s/%s", day_dir, DIR_INDEX_NAME);
	size_t len, line_no = 0;
	char *buf = dir_read_file(path, &len);
	int ret = 0;
	if (!buf) {
		if (errno != ENOENT)
			warn("%s: %s: skipped", path, strerror(errno));
		free(path);
		return 0;
	}
	for (char *s = buf, *nl; !ret && (nl = memchr(s, '\n', len - (size_t)(s - buf))); s = nl + 1) {
		struct dir_entry e;
		*nl = 0;
		line_no++;
		if (memchr(s, 0, (size_t)(nl - s)) || dir_index_parse(s, &e))
			warn_at(path, line_no, "not an index line: skipped");
		else
			ret = fn(ctx, day_dir, &e);
	}
	free(buf);
	free(path);
	return ret;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in dir (sorted, without . and ..), or NULL with errno. */
static char **list_dir(const char *dir, size_t *nr)
{
	DIR *d = opendir(dir);
	if (!d)
		return NULL;
	char **names = NULL;
	size_t n = 0, alloc = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		VEC_GROW(names, n + 1, alloc);
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (n) /* qsort's pointer must not be NULL */
		qsort(names, n, sizeof(*names), cmp_str);
	*nr = n;
	return names ? names : xcalloc(1, sizeof(char *));
}

static void free_list(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int dir_walk(const char *root, const char *first_day, const char *last_day, dir_walk_fn fn, void *ctx)
{
	size_t nh, nd;
	char **hosts = list_dir(root, &nh);
	if (!hosts)
		return error("%s: %s", root, strerror(errno));
	int ret = 0;
	for (size_t h = 0; !ret && h < nh; h++) {
		char *host_dir = xmalloc(strlen(root) + strlen(hosts[h]) + 2);
		sprintf(host_dir, "%s/%s", root, hosts[h]);
		char **days = list_dir(host_dir, &nd);
		for (size_t d = 0; days && !ret && d < nd; d++) {
			if (!is_day(days[d]) || (first_day && strcmp(days[d], first_day) < 0) ||
			    (last_day && strcmp(days[d], last_day) > 0))
				continue;
			char *day_dir = xmalloc(strlen(host_dir) + strlen(days[d]) + 2);
			sprintf(day_dir, "%s/%s", host_dir, days[d]);
			ret = walk_index(day_dir, fn, ctx);
			free(day_dir);
		}
		if (days)
			free_list(days, nd);
		free(host_dir);
	}
	free_list(hosts, nh);
	return ret;
}
