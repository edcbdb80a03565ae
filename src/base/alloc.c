#include "base/alloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static void out_of_memory(size_t n)
{
	fprintf(stderr, "scorch: out of memory allocating %zu bytes\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		out_of_memory(n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		out_of_memory(nmemb * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		out_of_memory(n);
	return q;
}

void *xreallocarray(void *p, size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size)
		out_of_memory(SIZE_MAX);
	return xrealloc(p, nmemb * size);
}

void *xcalloc_dense(size_t nmemb, size_t size)
{
	void *p = xreallocarray(NULL, nmemb ? nmemb : 1, size ? size : 1);
	memset(p, 0, (nmemb ? nmemb : 1) * (size ? size : 1));
	return p;
}

void *xcalloc_table(size_t n)
{
	enum { HUGE = 2 << 20 };
	if (n < HUGE)
		return xcalloc_dense(1, n);
	size_t len = (n + HUGE - 1) & ~(size_t)(HUGE - 1);
	void *p = aligned_alloc(HUGE, len);
	if (!p)
		return xcalloc_dense(1, n);
	madvise(p, len, MADV_HUGEPAGE);
	memset(p, 0, len);
	return p;
}

char *xstrdup(const char *s)
{
	return xmemdup0(s, strlen(s));
}

char *xmemdup0(const void *p, size_t n)
{
	char *s = xmalloc(n + 1);
	if (n)
		memcpy(s, p, n);
	s[n] = '\0';
	return s;
}
