#include "base/arena.h"

#include "base/alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct arena_block {
	struct arena_block *next;
	size_t size;
	max_align_t data[];
};

enum { ARENA_MIN_BLOCK = 64 * 1024 };

void arena_init(struct arena *a)
{
	memset(a, 0, sizeof(*a));
}

void arena_release(struct arena *a)
{
	struct arena_block *b = a->head;
	while (b) {
		struct arena_block *next = b->next;
		free(b);
		b = next;
	}
	arena_init(a);
}

void *arena_alloc(struct arena *a, size_t n, size_t align)
{
	uintptr_t p = (uintptr_t)a->cur;
	uintptr_t aligned = (p + (align - 1)) & ~(uintptr_t)(align - 1);
	if (!a->cur || aligned + n > (uintptr_t)a->end || aligned < p) {
		size_t size = a->total < ARENA_MIN_BLOCK ? ARENA_MIN_BLOCK : a->total;
		if (size > (size_t)1 << 26)
			size = (size_t)1 << 26;
		if (size < n + align)
			size = n + align;
		struct arena_block *b = xmalloc(sizeof(*b) + size);
		b->next = a->head;
		b->size = size;
		a->head = b;
		a->cur = (char *)b->data;
		a->end = a->cur + size;
		a->total += size;
		p = (uintptr_t)a->cur;
		aligned = (p + (align - 1)) & ~(uintptr_t)(align - 1);
	}
	a->cur = (char *)(aligned + n);
	return (void *)aligned;
}

char *arena_memdup0(struct arena *a, const void *p, size_t n)
{
	char *s = arena_alloc(a, n + 1, 1);
	if (n)
		memcpy(s, p, n);
	s[n] = '\0';
	return s;
}
