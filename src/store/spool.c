/* The on-disk spool (store/spool.h). */
#include "store/spool.h"

#include "base/alloc.h"
#include "base/error.h"
#include "store/dir_walk.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char magic[] = "scorch spool 1\n";

static bool is_entry(const char *name)
{
	size_t n = strlen(name);
	return n > 6 && !strcmp(name + n - 6, ".spool") && name[0] != '.';
}

/* The entry names, sorted (oldest first), or NULL. */
static char **entries(const char *dir, size_t *nr)
{
	DIR *d = opendir(dir);
	char **names = NULL;
	size_t n = 0, alloc = 0;
	*nr = 0;
	if (!d)
		return NULL;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!is_entry(de->d_name))
			continue;
		VEC_GROW(names, n + 1, alloc);
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	for (size_t i = 1; i < n; i++) /* few entries: insertion sort */
		for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char *t = names[j];
			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	*nr = n;
	return names;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static char *entry_path(const struct spool *s, const char *name)
{
	char *p = xmalloc(strlen(s->dir) + strlen(name) + 2);
	sprintf(p, "%s/%s", s->dir, name);
	return p;
}

static int mkdirs(const char *path)
{
	char *p = xstrdup(path);
	int ret = 0;
	for (char *s = p + 1; !ret; s++) {
		if (*s == '/' || !*s) {
			char c = *s;
			*s = 0;
			if (mkdir(p, 0700) && errno != EEXIST)
				ret = -1;
			*s = c;
			if (!c)
				break;
		}
	}
	free(p);
	return ret;
}

int spool_open(struct spool *s, const char *dir, uint64_t max_bytes)
{
	*s = (struct spool){ xstrdup(dir), max_bytes, 0, 0, 0, 0 };
	if (mkdirs(dir) || access(dir, W_OK | X_OK)) {
		error("%s: cannot keep a spool there: %s", dir, strerror(errno));
		free(s->dir);
		s->dir = NULL;
		return -1;
	}
	size_t n;
	char **names = entries(dir, &n);
	for (size_t i = 0; i < n; i++) {
		char *p = entry_path(s, names[i]);
		struct stat st;
		if (!stat(p, &st)) {
			s->bytes += (uint64_t)st.st_size;
			s->entries++;
		}
		free(p);
	}
	free_names(names, n);
	return 0;
}

void spool_close(struct spool *s)
{
	free(s->dir);
	s->dir = NULL;
}

/* Remove the oldest entry; false when there is none. */
static bool drop_oldest(struct spool *s)
{
	size_t n;
	char **names = entries(s->dir, &n);
	bool dropped = false;
	if (n) {
		char *p = entry_path(s, names[0]);
		struct stat st;
		uint64_t size = stat(p, &st) ? 0 : (uint64_t)st.st_size;
		if (!unlink(p)) {
			s->bytes -= size < s->bytes ? size : s->bytes;
			s->entries--;
			s->dropped++;
			dropped = true;
		}
		free(p);
	}
	free_names(names, n);
	return dropped;
}

static int write_all(FILE *f, const void *p, size_t n)
{
	return fwrite(p, 1, n, f) == n ? 0 : -1;
}

int spool_add(struct spool *s, const char *const data[SPOOL_PARTS], const size_t len[SPOOL_PARTS])
{
	uint64_t size = sizeof(magic) - 1;
	for (int i = 0; i < SPOOL_PARTS; i++)
		size += 8 + len[i];
	if (size > s->max_bytes)
		return error("%s: an interval of %" PRIu64 " bytes is larger than the spool's bound", s->dir, size);
	while (s->entries && s->bytes + size > s->max_bytes && drop_oldest(s))
		;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	char name[96], tmp[112];
	snprintf(name, sizeof(name), "%016" PRIx64 "-%08x-%06" PRIu64 ".spool",
		 (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec, (unsigned)getpid(), s->seq++ % 1000000);
	snprintf(tmp, sizeof(tmp), ".%s.tmp", name);
	char *path = entry_path(s, name), *tpath = entry_path(s, tmp);
	FILE *f = fopen(tpath, "wb");
	int ret = f ? write_all(f, magic, sizeof(magic) - 1) : -1;
	for (int i = 0; !ret && i < SPOOL_PARTS; i++) {
		unsigned char le[8];
		for (int b = 0; b < 8; b++)
			le[b] = (unsigned char)((uint64_t)len[i] >> (8 * b));
		ret = write_all(f, le, 8) || write_all(f, data[i], len[i]);
	}
	if (f && fclose(f))
		ret = -1;
	if (!ret && rename(tpath, path))
		ret = -1;
	if (ret) {
		error("%s: cannot spool an interval: %s", s->dir, strerror(errno));
		unlink(tpath);
	} else {
		s->bytes += size;
		s->entries++;
	}
	free(path);
	free(tpath);
	return ret;
}

static int parse_entry(struct spool_entry *e, char *buf, size_t len)
{
	size_t off = sizeof(magic) - 1;
	if (len < off || memcmp(buf, magic, off))
		return -1;
	for (int i = 0; i < SPOOL_PARTS; i++) {
		if (len - off < 8)
			return -1;
		uint64_t n = 0;
		for (int b = 7; b >= 0; b--)
			n = n << 8 | (unsigned char)buf[off + (size_t)b];
		off += 8;
		if (n > len - off)
			return -1;
		e->data[i] = xmemdup0(buf + off, (size_t)n);
		e->len[i] = (size_t)n;
		off += (size_t)n;
	}
	return off == len ? 0 : -1;
}

int spool_oldest(struct spool *s, struct spool_entry *e)
{
	*e = (struct spool_entry){ 0 };
	size_t n, len;
	char **names = entries(s->dir, &n);
	if (!n) {
		free_names(names, n);
		s->entries = 0;
		s->bytes = 0;
		return 0;
	}
	e->path = entry_path(s, names[0]);
	free_names(names, n);
	char *buf = dir_read_file(e->path, &len);
	if (!buf || parse_entry(e, buf, len)) {
		error("%s: a damaged spool entry: removed (counted as dropped)", e->path);
		free(buf);
		spool_done(s, e);
		s->dropped++;
		spool_entry_release(e);
		return -1;
	}
	free(buf);
	return 1;
}

void spool_done(struct spool *s, struct spool_entry *e)
{
	struct stat st;
	uint64_t size = stat(e->path, &st) ? 0 : (uint64_t)st.st_size;
	if (!unlink(e->path)) {
		s->bytes -= size < s->bytes ? size : s->bytes;
		if (s->entries)
			s->entries--;
	}
}

void spool_entry_release(struct spool_entry *e)
{
	for (int i = 0; i < SPOOL_PARTS; i++)
		free(e->data[i]);
	free(e->path);
	*e = (struct spool_entry){ 0 };
}
