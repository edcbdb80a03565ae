/* A cache from the text of a folded stack ("a;b;c", exactly as on the line)
 * to its trie leaf, so a stack seen before costs one hash and a check
 * instead of one intern and one edge lookup per frame. Real profiles repeat
 * the same stacks many times (the bench input: 5.9M lines, 1.1M distinct).
 * It keeps no copy of the text: a candidate leaf (same hash and length) is
 * confirmed by the caller against the trie path, so 16 bytes per distinct
 * stack, and input can be streamed in chunks. */
#ifndef SCORCH_PROFILE_STACKCACHE_H
#define SCORCH_PROFILE_STACKCACHE_H

#include "profile/profile.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stackcache_entry {
	uint64_t hash;
	uint32_t len;
	node_t leaf; /* UINT32_MAX: empty slot */
};

struct stackcache {
	struct stackcache_entry *slots; /* open addressing */
	size_t mask, nr;
};

/* Does the stack text s[0..n) end at this leaf? */
typedef bool (*stackcache_match_fn)(void *ctx, node_t leaf, const char *s, size_t n);

void stackcache_init(struct stackcache *c);
void stackcache_release(struct stackcache *c);
uint64_t stackcache_hash(const char *s, size_t n);
/* The leaf for this stack text, or UINT32_MAX. */
node_t stackcache_get(const struct stackcache *c, uint64_t hash, const char *s, size_t n,
		      stackcache_match_fn match, void *ctx);
/* Batched lookups: start loading the slot for a hash before calling
 * stackcache_get (a hint only). */
static inline void stackcache_prefetch(const struct stackcache *c, uint64_t hash)
{
	__builtin_prefetch(&c->slots[hash & c->mask]);
}
/* The leaf in the home slot (to prefetch what the check will read). */
static inline node_t stackcache_peek(const struct stackcache *c, uint64_t hash)
{
	return c->slots[hash & c->mask].leaf;
}
void stackcache_put(struct stackcache *c, uint64_t hash, size_t n, node_t leaf);

#endif
