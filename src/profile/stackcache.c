#include "profile/stackcache.h"

#include "base/alloc.h"
#include "base/hash.h"

#include <stdlib.h>
#include <string.h>

static void clear(struct stackcache_entry *slots, size_t n)
{
	for (size_t i = 0; i < n; i++)
		slots[i].leaf = UINT32_MAX;
}

void stackcache_init(struct stackcache *c)
{
	memset(c, 0, sizeof(*c));
	c->mask = 1023;
	c->slots = xreallocarray(NULL, c->mask + 1, sizeof(*c->slots));
	clear(c->slots, c->mask + 1);
}

void stackcache_release(struct stackcache *c)
{
	free(c->slots);
	memset(c, 0, sizeof(*c));
}

uint64_t stackcache_hash(const char *s, size_t n)
{
	return hash_bytes(s, n);
}

node_t stackcache_get(const struct stackcache *c, uint64_t hash, const char *s, size_t n,
		      stackcache_match_fn match, void *ctx)
{
	for (size_t i = hash & c->mask;; i = (i + 1) & c->mask) {
		const struct stackcache_entry *e = &c->slots[i];
		if (e->leaf == UINT32_MAX)
			return UINT32_MAX;
		if (e->hash == hash && e->len == n && match(ctx, e->leaf, s, n))
			return e->leaf;
	}
}

static void grow(struct stackcache *c)
{
	size_t mask = c->mask * 2 + 1;
	struct stackcache_entry *slots = xcalloc_table((mask + 1) * sizeof(*slots));
	clear(slots, mask + 1);
	for (size_t i = 0; i <= c->mask; i++) {
		struct stackcache_entry *e = &c->slots[i];
		if (e->leaf == UINT32_MAX)
			continue;
		size_t j = e->hash & mask;
		while (slots[j].leaf != UINT32_MAX)
			j = (j + 1) & mask;
		slots[j] = *e;
	}
	free(c->slots);
	c->slots = slots;
	c->mask = mask;
}

void stackcache_put(struct stackcache *c, uint64_t hash, size_t n, node_t leaf)
{
	if (n > UINT32_MAX || leaf == UINT32_MAX)
		return; /* absurd line: just not cached */
	if ((c->nr + 1) * 2 > c->mask + 1)
		grow(c);
	size_t i = hash & c->mask;
	while (c->slots[i].leaf != UINT32_MAX)
		i = (i + 1) & c->mask;
	c->slots[i] = (struct stackcache_entry){ hash, (uint32_t)n, leaf };
	c->nr++;
}
