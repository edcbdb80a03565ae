#include "base/strpool.h"

#include "base/alloc.h"
#include "base/hash.h"

#include <stdlib.h>
#include <string.h>

void strpool_init(struct strpool *sp)
{
	memset(sp, 0, sizeof(*sp));
	arena_init(&sp->arena);
	sp->mask = 255;
	sp->slots = xcalloc_dense(sp->mask + 1, sizeof(*sp->slots));
}

void strpool_release(struct strpool *sp)
{
	arena_release(&sp->arena);
	free(sp->entries);
	free(sp->slots);
	memset(sp, 0, sizeof(*sp));
}

size_t strpool_bytes(const struct strpool *sp)
{
	size_t n = sp->arena.total + sp->alloc * sizeof(*sp->entries);
	return sp->slots ? n + ((size_t)sp->mask + 1) * sizeof(*sp->slots) : n;
}

static void grow_slots(struct strpool *sp)
{
	uint32_t mask = sp->mask * 2 + 1;
	uint32_t *slots = xcalloc_dense((size_t)mask + 1, sizeof(*slots));
	for (uint32_t id = 0; id < sp->nr; id++) {
		uint32_t i = sp->entries[id].hash32 & mask;
		while (slots[i])
			i = (i + 1) & mask;
		slots[i] = id + 1;
	}
	free(sp->slots);
	sp->slots = slots;
	sp->mask = mask;
}

uint32_t strpool_find(const struct strpool *sp, const char *s, size_t n)
{
	uint32_t h = (uint32_t)hash_bytes(s, n);
	for (uint32_t i = h & sp->mask;; i = (i + 1) & sp->mask) {
		uint32_t slot = sp->slots[i];
		if (!slot)
			return UINT32_MAX;
		const struct strpool_entry *e = &sp->entries[slot - 1];
		if (e->hash32 == h && e->len == n && !memcmp(e->str, s, n))
			return slot - 1;
	}
}

uint32_t strpool_intern(struct strpool *sp, const char *s, size_t n)
{
	uint32_t h = (uint32_t)hash_bytes(s, n);
	uint32_t i = h & sp->mask;
	for (;; i = (i + 1) & sp->mask) {
		uint32_t slot = sp->slots[i];
		if (!slot)
			break;
		const struct strpool_entry *e = &sp->entries[slot - 1];
		if (e->hash32 == h && e->len == n && !memcmp(e->str, s, n))
			return slot - 1;
	}
	if (n > UINT32_MAX - 1) {
		/* Names longer than 4 GiB cannot come from a line of real input. */
		n = UINT32_MAX - 1;
	}
	VEC_GROW(sp->entries, (size_t)sp->nr + 1, sp->alloc);
	uint32_t id = sp->nr++;
	sp->entries[id].str = arena_memdup0(&sp->arena, s, n);
	sp->entries[id].len = (uint32_t)n;
	sp->entries[id].hash32 = h;
	sp->slots[i] = id + 1;
	if ((uint64_t)sp->nr * 10 > (uint64_t)(sp->mask + 1) * 7)
		grow_slots(sp);
	return id;
}
