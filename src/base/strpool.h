/* String interning: equal byte strings get the same small integer id.
 * Strings are NUL-terminated copies owned by the pool; pointers returned by
 * strpool_str() stay valid until strpool_release(). */
#ifndef SCORCH_BASE_STRPOOL_H
#define SCORCH_BASE_STRPOOL_H

#include "base/arena.h"

#include <stddef.h>
#include <stdint.h>

struct strpool_entry {
	const char *str;
	uint32_t len;
	uint32_t hash32;
};

struct strpool {
	struct arena arena;
	struct strpool_entry *entries; /* id -> string */
	uint32_t nr, alloc;
	uint32_t *slots; /* open addressing: id + 1, 0 = empty */
	uint32_t mask;
};

void strpool_init(struct strpool *sp);
void strpool_release(struct strpool *sp);
uint32_t strpool_intern(struct strpool *sp, const char *s, size_t n);
/* The bytes it holds: its strings, their entries and its slots. */
size_t strpool_bytes(const struct strpool *sp);
/* Look up without inserting; returns UINT32_MAX when absent. */
uint32_t strpool_find(const struct strpool *sp, const char *s, size_t n);

static inline const char *strpool_str(const struct strpool *sp, uint32_t id)
{
	return sp->entries[id].str;
}

static inline uint32_t strpool_len(const struct strpool *sp, uint32_t id)
{
	return sp->entries[id].len;
}

#endif
