#include "base/out.h"

#include "base/alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static struct out *out_new(int fd)
{
	struct out *o = xcalloc(1, sizeof(*o));
	o->fd = fd;
	return o;
}

struct out *out_open(const char *path)
{
	if (!path || !strcmp(path, "-"))
		return out_new(STDOUT_FILENO);
	size_t n = strlen(path);
	char *tmp = xmalloc(n + 16);
	memcpy(tmp, path, n);
	memcpy(tmp + n, ".tmp.XXXXXX", 12);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		error("cannot create '%s': %s", tmp, strerror(errno));
		free(tmp);
		return NULL;
	}
	/* mkstemp makes 0600; give the file the usual umask-based mode. */
	mode_t mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	struct out *o = out_new(fd);
	o->path = xstrdup(path);
	o->tmp_path = tmp;
	return o;
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

void out_write(struct out *o, const void *p, size_t n)
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
	char tmp[24];
	int i = sizeof(tmp);
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	out_write(o, tmp + i, sizeof(tmp) - (size_t)i);
}

static void out_free(struct out *o)
{
	free(o->path);
	free(o->tmp_path);
	free(o->mem);
	free(o);
}

int out_commit(struct out *o)
{
	out_flush(o);
	int ret = 0;
	if (o->err) {
		ret = error("cannot write '%s': %s", o->path ? o->path : "<stdout>", strerror(o->err));
	}
	if (o->tmp_path) {
		if (close(o->fd) && !ret)
			ret = error("cannot write '%s': %s", o->path, strerror(errno));
		if (!ret && rename(o->tmp_path, o->path))
			ret = error("cannot rename '%s' to '%s': %s", o->tmp_path, o->path,
				    strerror(errno));
		if (ret)
			unlink(o->tmp_path);
	}
	out_free(o);
	return ret;
}

void out_abort(struct out *o)
{
	if (o->tmp_path) {
		close(o->fd);
		unlink(o->tmp_path);
	}
	out_free(o);
}
