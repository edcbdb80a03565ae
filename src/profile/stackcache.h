/* A cache from the text of a folded stack ("a;b;c", exactly as on the line)
 * to its trie leaf, so a stack seen before costs one hash and one memcmp
 * instead of one intern and one edge lookup per frame. Real profiles repeat
 * the same stacks many times (the bench input: 5.9M lines, 1.1M distinct).
 * The cache owns copies of the keys: memory is proportional to the
 * distinct stacks, and it outlives the buffer the lines came from, so input
 * can be streamed in chunks. */
#ifndef SCORCH_PROFILE_STACKCACHE_H
#define SCORCH_PROFILE_STACKCACHE_H

#include "base/arena.h"
#include "profile/profile.h"

#include <stddef.h>
#include <stdint.h>

struct stackcache_entry {
	uint64_t hash;
	const char *key;
	uint32_t len;
	node_t leaf;
};

struct stackcache {
	struct arena keys;
	struct stackcache_entry *slots; /* open addressing; key == NULL: empty */
	size_t mask, nr;
};

void stackcache_init(struct stackcache *c);
void stackcache_release(struct stackcache *c);
uint64_t stackcache_hash(const char *s, size_t n);
/* The leaf for this stack text, or UINT32_MAX. */
node_t stackcache_get(const struct stackcache *c, uint64_t hash, const char *s, size_t n);
/* Batched lookups: start loading the slot for a hash, then (once it has
 * arrived) the key it holds, before calling stackcache_get. Hints only. */
static inline void stackcache_prefetch(const struct stackcache *c, uint64_t hash)
{
	__builtin_prefetch(&c->slots[hash & c->mask]);
}
static inline void stackcache_probe(const struct stackcache *c, uint64_t hash)
{
	const struct stackcache_entry *e = &c->slots[hash & c->mask];
	if (e->key)
		__builtin_prefetch(e->key);
}
void stackcache_put(struct stackcache *c, uint64_t hash, const char *s, size_t n, node_t leaf);

#endif
