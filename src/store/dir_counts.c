/* The directory store's interval file (dir_counts.h). */
#include "store/dir_counts.h"
#include "store/rowbinary.h"

#include "base/alloc.h"
#include "base/error.h"

#include <stdlib.h>
#include <string.h>
#ifdef HAVE_ZSTD
#include <zstd.h>
#endif

/* A small file, written once: zstd's slowest levels cost a millisecond. */
enum { COUNTS_ZSTD_LEVEL = 19 };

static int by_stack(const void *a, const void *b)
{
	const struct dir_count *x = a, *y = b;
	return (x->stack > y->stack) - (x->stack < y->stack);
}

char *dir_counts_encode(struct dir_count *c, size_t n, size_t *len)
{
#ifdef HAVE_ZSTD
	if (n)
		qsort(c, n, sizeof(*c), by_stack);
	struct rb_buf b = { xmalloc(64), 8, 64 };
	memcpy(b.data, DIR_COUNTS_MAGIC, 8);
	rb_leb(&b, n);
	for (size_t i = 0, prev = 0; i < n; prev = c[i].stack, i++) {
		rb_leb(&b, c[i].stack - prev);
		rb_leb(&b, c[i].count);
	}
	size_t cap = ZSTD_compressBound(b.len);
	char *out = xmalloc(cap);
	size_t got = ZSTD_compress(out, cap, b.data, b.len, COUNTS_ZSTD_LEVEL);
	rb_release(&b);
	if (ZSTD_isError(got)) {
		free(out);
		error("zstd: %s", ZSTD_getErrorName(got));
		return NULL;
	}
	*len = got;
	return out;
#else
	(void)c;
	(void)n;
	(void)len;
	error("scorch was built without libzstd (install libzstd-dev and rebuild)");
	return NULL;
#endif
}

int dir_counts_decode(const char *path, const char *data, size_t len, uint32_t nr_stacks, struct dir_count **c,
		      size_t *n)
{
	struct rb_reader r = { (const unsigned char *)data, (const unsigned char *)data + len, false };
	if (len < 8 || memcmp(data, DIR_COUNTS_MAGIC, 8))
		return error("%s: not a scorch interval file (no %s at its start)", path, DIR_COUNTS_MAGIC);
	r.p += 8;
	uint64_t nr = rb_read_leb(&r);
	/* each pair takes two bytes at least */
	if (r.bad || nr > (size_t)(r.end - r.p) / 2)
		return error("%s: byte 8: a count of %llu stacks that the file cannot hold", path,
			     (unsigned long long)nr);
	struct dir_count *out = xmalloc((nr ? nr : 1) * sizeof(*out));
	uint64_t stack = 0;
	for (uint64_t i = 0; i < nr; i++) {
		size_t at = (size_t)(r.p - (const unsigned char *)data);
		uint64_t d = rb_read_leb(&r), count = rb_read_leb(&r);
		if (r.bad || d == 0 || d >= nr_stacks - stack || count == 0) {
			free(out);
			return error("%s: byte %zu: %s", path, at,
				     r.bad		     ? "cut short"
				     : count == 0 && d && d < nr_stacks - stack ? "a count of 0"
				     : "a stack that the day's stack table does not hold");
		}
		stack += d;
		out[i] = (struct dir_count){ (uint32_t)stack, count };
	}
	if (r.p != r.end) {
		free(out);
		return error("%s: byte %zu: bytes after the last count", path,
			     (size_t)(r.p - (const unsigned char *)data));
	}
	*c = out;
	*n = (size_t)nr;
	return 0;
}
