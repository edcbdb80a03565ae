#include "base/out.h"

#include "base/alloc.h"
#include "base/numfmt.h"
#include "base/tempfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static struct out *out_new(int fd)
{
	struct out *o = xcalloc(1, sizeof(*o));
	o->fd = fd;
	o->tmp_slot = -1;
	o->rewrite_fd = -1;
	return o;
}

/* path with the symbolic links at its end followed, as open() would (a
 * relative link is read from the link's folder); NULL after an error. */
static char *follow_links(const char *path)
{
	char *cur = xstrdup(path);
	for (int hops = 0;; hops++) {
		struct stat st;
		if (lstat(cur, &st) || !S_ISLNK(st.st_mode))
			return cur;
		char link[PATH_MAX];
		ssize_t n = hops < 40 ? readlink(cur, link, sizeof(link) - 1) : -1;
		if (n < 0) {
			error("cannot write '%s': %s", path, strerror(hops < 40 ? errno : ELOOP));
			free(cur);
			return NULL;
		}
		link[n] = '\0';
		const char *slash = strrchr(cur, '/');
		char *next;
		if (link[0] == '/' || !slash) {
			next = xstrdup(link);
		} else {
			size_t dir = (size_t)(slash - cur) + 1;
			next = xmalloc(dir + (size_t)n + 1);
			memcpy(next, cur, dir);
			memcpy(next + dir, link, (size_t)n + 1);
		}
		free(cur);
		cur = next;
	}
}

/* A new temporary file, in target's folder (TARGET.tmp.XXXXXX) or, with
 * in_tmpdir, in $TMPDIR (or /tmp); registered for removal on a fatal
 * signal. Returns its descriptor (path in o->tmp_path) or -1 with errno. */
static int make_temp(struct out *o, bool in_tmpdir)
{
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	in_tmpdir |= !o->target;
	size_t n = in_tmpdir ? strlen(dir) + 1 : strlen(o->target);
	char *tmp = xmalloc(n + 16);
	if (in_tmpdir) {
		memcpy(tmp, dir, n - 1);
		memcpy(tmp + n - 1, "/scorch-XXXXXX", 15);
	} else {
		memcpy(tmp, o->target, n);
		memcpy(tmp + n, ".tmp.XXXXXX", 12);
	}
	int fd = tempfile_mkstemp(tmp, &o->tmp_slot);
	if (fd < 0) {
		int e = errno;
		free(tmp);
		errno = e;
		return -1;
	}
	o->tmp_path = tmp;
	return fd;
}

static void drop_temp(struct out *o)
{
	close(o->fd);
	o->fd = -1;
	unlink(o->tmp_path);
	tempfile_forget(o->tmp_slot);
	o->tmp_slot = -1;
	free(o->tmp_path);
	o->tmp_path = NULL;
}

static void out_free(struct out *o)
{
	free(o->path);
	free(o->target);
	free(o->tmp_path);
	free(o->mem);
	free(o);
}

/* Print "cannot WHAT 'path': strerror(err)" (nothing when what is NULL:
 * already said) and free o. */
static struct out *fail(struct out *o, const char *what, int err)
{
	if (what)
		error("cannot %s '%s': %s", what, o->path, strerror(err));
	if (o->rewrite_fd >= 0)
		close(o->rewrite_fd);
	out_free(o);
	return NULL;
}

/* Kept in place (hard links, an owner we cannot give, no room for a
 * temporary beside it): open it now, so that a file we cannot write fails
 * before the run, and rewrite it at commit from a temporary file. */
static struct out *open_rewrite(struct out *o)
{
	o->rewrite_fd = open(o->path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (o->rewrite_fd < 0)
		return fail(o, "write", errno);
	o->fd = make_temp(o, false);
	if (o->fd < 0)
		o->fd = make_temp(o, true);
	if (o->fd < 0)
		return fail(o, "create a temporary file for", errno);
	return o;
}

/* An existing regular file: a temporary beside it, with its mode and
 * owner, renamed over it at commit. */
static struct out *open_replace(struct out *o, const struct stat *st)
{
	o->fd = make_temp(o, false);
	if (o->fd < 0)
		return open_rewrite(o);
	bool same_owner = st->st_uid == geteuid() && st->st_gid == getegid();
	if ((!same_owner && fchown(o->fd, st->st_uid, st->st_gid)) ||
	    fchmod(o->fd, st->st_mode & 07777)) {
		drop_temp(o);
		return open_rewrite(o);
	}
	return o;
}

/* A file that does not exist yet: a temporary with the usual
 * umask-based mode, renamed at commit. */
static struct out *open_new(struct out *o)
{
	o->fd = make_temp(o, false);
	if (o->fd < 0)
		return fail(o, "create", errno);
	mode_t mask = umask(0);
	umask(mask);
	fchmod(o->fd, 0666 & ~mask);
	return o;
}

/* o ready for the kind of file o->path is, or NULL after an error; with
 * check_only, a device or FIFO is not opened. The kind comes from stat() on
 * the path itself, which follows every link as open() will (including
 * /proc's, such as /dev/stdout, that readlink cannot name); the links are
 * only followed by hand (o->target) to find where a regular file lives. */
static struct out *open_target(struct out *o, bool check_only)
{
	struct stat st, at_target;
	if (stat(o->path, &st)) {
		if (errno != ENOENT)
			return fail(o, "write", errno);
		o->target = follow_links(o->path);
		return o->target ? open_new(o) : fail(o, NULL, 0);
	}
	if (S_ISDIR(st.st_mode))
		return fail(o, "write", EISDIR);
	if (S_ISSOCK(st.st_mode)) {
		error("cannot write '%s': it is a socket", o->path);
		return fail(o, NULL, 0);
	}
	if (!S_ISREG(st.st_mode)) {
		/* Device or FIFO: written directly (a FIFO waits for a reader). */
		if (check_only)
			return access(o->path, W_OK) ? fail(o, "write", errno) : o;
		o->fd = open(o->path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
		return o->fd < 0 ? fail(o, "write", errno) : o;
	}
	o->target = follow_links(o->path);
	if (!o->target)
		return fail(o, NULL, 0);
	/* A link readlink cannot follow to this file (/proc/PID/fd/N of a
	 * deleted file): no name to rename over, so rewrite it. */
	bool found = !stat(o->target, &at_target) && at_target.st_dev == st.st_dev &&
		     at_target.st_ino == st.st_ino;
	if (!found) {
		free(o->target);
		o->target = NULL; /* the temporary goes to $TMPDIR */
		return open_rewrite(o);
	}
	return st.st_nlink > 1 ? open_rewrite(o) : open_replace(o, &st);
}

static struct out *open_path(const char *path, bool check_only)
{
	if (!path || !strcmp(path, "-"))
		return out_new(STDOUT_FILENO);
	struct out *o = out_new(-1);
	o->path = xstrdup(path);
	return open_target(o, check_only);
}

struct out *out_open(const char *path)
{
	return open_path(path, false);
}

int out_check(const char *path)
{
	struct out *o = open_path(path, true);
	if (!o)
		return -1;
	out_abort(o);
	return 0;
}

struct out *out_open_null(void)
{
	return out_new(-1);
}

struct out *out_open_mem(void)
{
	struct out *o = out_new(-1);
	o->mem = xmalloc(1);
	o->mem_alloc = 1;
	return o;
}

char *out_mem_detach(struct out *o, size_t *len)
{
	out_flush(o);
	char *m = o->mem;
	VEC_GROW(m, o->mem_len + 1, o->mem_alloc);
	m[o->mem_len] = '\0';
	if (len)
		*len = o->mem_len;
	free(o);
	return m;
}

void out_flush(struct out *o)
{
	if (o->mem) {
		VEC_GROW(o->mem, o->mem_len + o->n, o->mem_alloc);
		memcpy(o->mem + o->mem_len, o->buf, o->n);
		o->mem_len += o->n;
		o->n = 0;
		return;
	}
	if (o->fd < 0 || o->err) {
		o->n = 0;
		return;
	}
	const char *p = o->buf;
	size_t left = o->n;
	while (left) {
		ssize_t w = write(o->fd, p, left);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			o->err = errno;
			break;
		}
		p += w;
		left -= (size_t)w;
	}
	o->n = 0;
}

void out_write_slow(struct out *o, const void *p, size_t n)
{
	if (n > OUT_BUF_SIZE - o->n) {
		out_flush(o);
		if (n >= OUT_BUF_SIZE) {
			const char *s = p;
			while (n) {
				size_t chunk = n < OUT_BUF_SIZE ? n : OUT_BUF_SIZE;
				memcpy(o->buf, s, chunk);
				o->n = chunk;
				out_flush(o);
				s += chunk;
				n -= chunk;
			}
			return;
		}
	}
	memcpy(o->buf + o->n, p, n);
	o->n += n;
}

void out_printf(struct out *o, const char *fmt, ...)
{
	char small[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		out_write(o, small, (size_t)n);
		return;
	}
	char *big = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	out_write(o, big, (size_t)n);
	free(big);
}

void out_u64(struct out *o, uint64_t v)
{
	char digits[24];
	out_write(o, digits, numfmt_u64(digits, v));
}

/* Copy the finished temporary over the kept file's content. */
static int rewrite_in_place(struct out *o)
{
	if (lseek(o->fd, 0, SEEK_SET) || ftruncate(o->rewrite_fd, 0))
		return error("cannot write '%s': %s", o->path, strerror(errno));
	for (;;) {
		ssize_t r = read(o->fd, o->buf, OUT_BUF_SIZE);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return error("cannot write '%s': %s", o->path, strerror(errno));
		if (r == 0)
			return 0;
		for (ssize_t done = 0; done < r;) {
			ssize_t w = write(o->rewrite_fd, o->buf + done, (size_t)(r - done));
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return error("cannot write '%s': %s", o->path, strerror(errno));
			done += w;
		}
	}
}

int out_commit(struct out *o)
{
	out_flush(o);
	int ret = 0;
	if (o->err)
		ret = error("cannot write '%s': %s", o->path ? o->path : "<stdout>", strerror(o->err));
	if (o->tmp_path && o->rewrite_fd >= 0) {
		if (!ret)
			ret = rewrite_in_place(o);
		if (close(o->rewrite_fd) && !ret)
			ret = error("cannot write '%s': %s", o->path, strerror(errno));
		drop_temp(o);
	} else if (o->tmp_path) {
		if (close(o->fd) && !ret)
			ret = error("cannot write '%s': %s", o->path, strerror(errno));
		o->fd = -1;
		if (!ret && rename(o->tmp_path, o->target))
			ret = error("cannot replace '%s': %s", o->path, strerror(errno));
		if (ret)
			unlink(o->tmp_path);
		tempfile_forget(o->tmp_slot);
	} else if (o->path && o->fd >= 0 && close(o->fd) && !ret) {
		ret = error("cannot write '%s': %s", o->path, strerror(errno));
	}
	out_free(o);
	return ret;
}

void out_abort(struct out *o)
{
	if (o->tmp_path)
		drop_temp(o);
	else if (o->path && o->fd >= 0)
		close(o->fd);
	if (o->rewrite_fd >= 0)
		close(o->rewrite_fd);
	out_free(o);
}
