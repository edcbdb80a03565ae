/* perf map files, read and opened as perf does (perfmap.h). */
#include "symbolize/perfmap.h"

#include "base/alloc.h"
#include "base/input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* perf's hex2u64: strtoull in base 16 (blanks, a sign and "0x" accepted),
 * returning how many bytes it read. */
static size_t hex_field(const char *s, uint64_t *v)
{
	char *end;
	*v = strtoull(s, &end, 16);
	return (size_t)(end - s);
}

/* One line, NUL-terminated, its newline (or last byte) already dropped,
 * with perf's length checks: a name of fewer than three bytes, or a line
 * too short for both numbers, is skipped. */
static bool perfmap_line(struct symtab *t, const char *line, size_t line_len)
{
	uint64_t start, size;
	size_t len = hex_field(line, &start) + 1;
	if (len + 2 >= line_len)
		return false;
	len += hex_field(line + len, &size) + 1;
	if (len + 2 >= line_len)
		return false;
	const char *name = line + len;
	size_t nl = strlen(name);
	symtab_add(t, start, size, SYM_BIND_GLOBAL, name, nl, nl, 0);
	return true;
}

size_t perfmap_parse(struct symtab *t, const char *buf, size_t len)
{
	size_t added = 0, cap = 0;
	char *line = NULL;
	const char *p = buf, *end = buf + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		/* getline's line, then perf's line[--line_len] = '\0' */
		if (n + 1 > cap) {
			cap = n + 1 > 256 ? n + 1 : 256;
			free(line);
			line = xmalloc(cap);
		}
		memcpy(line, p, n);
		line[n - 1] = 0;
		added += perfmap_line(t, line, n - 1);
		p += n;
	}
	free(line);
	return added;
}

int perfmap_open(const char *path, uid_t owner, bool force, enum perfmap_refusal *why,
		 struct stat *st)
{
	/* O_NONBLOCK: a FIFO planted at the path must not block the open */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		*why = errno == ENOENT || errno == ENOTDIR ? PERFMAP_ABSENT
		     : errno == ELOOP			 ? PERFMAP_LINK
							 : PERFMAP_UNREADABLE;
		return -1;
	}
	if (fstat(fd, st) || !S_ISREG(st->st_mode)) {
		close(fd);
		*why = PERFMAP_NOT_REG;
		return -1;
	}
	if (!force && st->st_uid != 0 && st->st_uid != owner) {
		close(fd);
		*why = PERFMAP_OWNER;
		return -1;
	}
	*why = PERFMAP_OPENED;
	return fd;
}

const char *perfmap_refusal_text(enum perfmap_refusal why, char *buf, size_t cap, uid_t owner,
				 const struct stat *st)
{
	switch (why) {
	case PERFMAP_OPENED:
	case PERFMAP_ABSENT:
		return NULL;
	case PERFMAP_LINK:
		return "a symbolic link, not followed";
	case PERFMAP_NOT_REG:
		return "not a regular file";
	case PERFMAP_OWNER:
		snprintf(buf, cap, "owned by uid %u, not by the process's user (uid %u) or root",
			 (unsigned)st->st_uid, (unsigned)owner);
		return buf;
	case PERFMAP_UNREADABLE:
		return "cannot be opened";
	}
	return NULL;
}

static int64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int perfmap_refresh(struct symtab *t, const char *path, struct perfmap_state *st,
		    int64_t min_interval_ns)
{
	int64_t now = monotonic_ns();
	if (st->checked_ns && min_interval_ns && now - st->checked_ns < min_interval_ns)
		return st->read ? 0 : -1;
	st->checked_ns = now;
	struct stat sb;
	int fd = perfmap_open(path, st->owner, st->force, &st->refusal, &sb);
	if (fd < 0)
		return -1;
	int64_t mtime = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
	bool same_file = st->read && sb.st_dev == st->dev && sb.st_ino == st->ino;
	if (same_file && sb.st_size == st->size && mtime == st->mtime_ns) {
		close(fd);
		return 0;
	}
	/* grown: only the new bytes; rewritten or shrunk: all of it */
	off_t from = same_file && sb.st_size > st->size ? st->size : 0;
	char *buf = NULL;
	size_t len = 0, alloc = 0;
	int ret = -1;
	if (lseek(fd, from, SEEK_SET) == from && !input_read_rest(fd, path, &buf, &len, &alloc)) {
		ret = (int)perfmap_parse(t, buf, len);
		st->read = true;
		st->dev = sb.st_dev;
		st->ino = sb.st_ino;
		st->size = from + (off_t)len;
		st->mtime_ns = mtime;
	} else {
		st->refusal = PERFMAP_UNREADABLE;
	}
	free(buf);
	close(fd);
	return ret;
}
