#include "base/alloc.h"

#include "base/tempfile.h"

#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void alloc_fail(const char *what)
{
	/* No stdio (its buffers may need memory, another thread may hold its
	 * lock) and no exit handlers: the message, the temporaries, _exit. */
	static const char head[] = "scorch: out of memory: ";
	static const char tail[] = " (a limit such as ulimit -v, or the system's memory)\n";
	ssize_t ignored = write(STDERR_FILENO, head, sizeof(head) - 1);
	ignored = write(STDERR_FILENO, what, strlen(what));
	ignored = write(STDERR_FILENO, tail, sizeof(tail) - 1);
	(void)ignored;
	tempfile_remove_all();
	_exit(1);
}

static void out_of_memory(size_t n)
{
	char what[64];
	snprintf(what, sizeof(what), "allocating %zu bytes", n);
	alloc_fail(what);
}

/* Blocks of BIG_FROM bytes or more are aligned on and a multiple of the
 * huge page, and asked for transparent huge pages (see alloc.h). */
enum { HUGE_PAGE = 2 << 20, BIG_FROM = 1 << 20 };

/* alloc_big_blocks_on_small_pages: the one setting of this file, read by
 * every big allocation (set before threads start, never changed back) */
static bool big_blocks_small;

void alloc_big_blocks_on_small_pages(void)
{
	big_blocks_small = true;
}

/* A block of at least n bytes on huge pages, or NULL when the system
 * would not give that much or big blocks stay on small pages (the caller
 * then asks malloc for n). */
static void *big_block(size_t n)
{
	if (big_blocks_small)
		return NULL;
	if (n > SIZE_MAX - HUGE_PAGE)
		return NULL;
	size_t len = (n + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
	void *p = aligned_alloc(HUGE_PAGE, len);
	if (p)
		madvise(p, len, MADV_HUGEPAGE);
	return p;
}

void *xmalloc(size_t n)
{
	void *p = n >= BIG_FROM ? big_block(n) : NULL;
	if (!p)
		p = malloc(n ? n : 1);
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
	size_t have = p ? malloc_usable_size(p) : 0;
	if (n >= BIG_FROM && have < BIG_FROM) {
		/* Moves onto huge pages once, copying less than BIG_FROM bytes.
		 * A block already there grows by realloc (which copies: see
		 * alloc.h), writing no page that the caller did not write
		 * (copying a block's whole usable size
		 * into a new one, and growing it to twice the size asked, made
		 * `collapse` from a pipe hold +10-20 MB and spend 0.2 s more in
		 * the kernel on a cold start, found in review). */
		void *q = big_block(n);
		if (q) {
			if (have)
				memcpy(q, p, have);
			free(p);
			return q;
		}
	}
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
	void *p = n >= HUGE_PAGE ? big_block(n) : NULL;
	if (!p)
		return xcalloc_dense(1, n);
	memset(p, 0, (n + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1));
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

struct heap_ahead alloc_small_blocks_on_huge_pages(size_t pad)
{
	struct heap_ahead h = { 0, 0 };
#if !FREE_AT_EXIT
	if (pad < HUGE_PAGE || pad > INT_MAX / 2)
		return h;
	mallopt(M_TOP_PAD, (int)pad);
	mallopt(M_TRIM_THRESHOLD, (int)(2 * pad)); /* (not given back at once) */
	/* Blocks under the mmap threshold come from the heap's top: take them
	 * until it grows (by pad and more), then give them back. */
	enum { STEP = 64 << 10, MOST = 64 };
	void *volatile held[MOST];
	uintptr_t before = (uintptr_t)sbrk(0);
	int n = 0;
	while (n < MOST && (uintptr_t)sbrk(0) == before)
		held[n++] = malloc(STEP);
	uintptr_t after = (uintptr_t)sbrk(0);
	while (n > 0)
		free(held[--n]);
	uintptr_t from = (before + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	if (after > from + HUGE_PAGE &&
	    !madvise((void *)from, (after - from) & ~(uintptr_t)(HUGE_PAGE - 1), MADV_HUGEPAGE)) {
		h.from = from;
		h.len = (after - from) & ~(uintptr_t)(HUGE_PAGE - 1);
	}
#else
	(void)pad;
#endif
	return h;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older kernels refuse it (EINVAL) */
#endif

struct fault_in {
	uintptr_t at, end;
};

static void *fault_in_main(void *arg)
{
	struct fault_in *job = arg;
	/* a huge page at a time, from the low end: the heap is used upwards */
	for (uintptr_t at = job->at; at < job->end; at += HUGE_PAGE)
		if (madvise((void *)at, HUGE_PAGE, MADV_POPULATE_WRITE) && errno != EINTR && errno != EAGAIN)
			break;
	free(job);
	return NULL;
}

void alloc_heap_fault_in(const struct heap_ahead *h, size_t bytes)
{
	if (!h || !h->len || bytes < HUGE_PAGE)
		return;
	/* What the heap uses of h now: up to its last page in memory (its
	 * blocks come from the top, upwards). */
	size_t pages = h->len / 4096;
	unsigned char *in = malloc(pages);
	if (!in || mincore((void *)h->from, h->len, in)) {
		free(in);
		return;
	}
	size_t used = 0;
	for (size_t i = pages; i-- > 0;)
		if (in[i] & 1) {
			used = (i + 1) * 4096;
			break;
		}
	free(in);
	uintptr_t at = (h->from + used + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	uintptr_t end = h->from + h->len;
	if (at >= end)
		return;
	if (bytes < end - at)
		end = at + (bytes & ~(size_t)(HUGE_PAGE - 1));
	struct fault_in *job = malloc(sizeof(*job));
	if (!job)
		return;
	*job = (struct fault_in){ at, end };
	pthread_attr_t attr;
	pthread_t thread;
	bool started = !pthread_attr_init(&attr) && !pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) &&
		       !pthread_create(&thread, &attr, fault_in_main, job);
	pthread_attr_destroy(&attr);
	if (!started)
		free(job);
}
