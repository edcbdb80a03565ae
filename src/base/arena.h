/* Bump allocator: many small allocations freed all at once. Pointers stay
 * valid until arena_release(). */
#ifndef SCORCH_BASE_ARENA_H
#define SCORCH_BASE_ARENA_H

#include <stddef.h>

struct arena_block;

struct arena {
	struct arena_block *head;
	char *cur, *end;
	size_t total;
};

void arena_init(struct arena *a);
void arena_release(struct arena *a);
void *arena_alloc(struct arena *a, size_t n, size_t align);
/* Copy n bytes and add a NUL terminator. */
char *arena_memdup0(struct arena *a, const void *p, size_t n);

#endif
