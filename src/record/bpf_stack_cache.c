/* See bpf_stack_cache.h. Built only with libbpf (HAVE_LIBBPF), with the
 * other readers of the programs' maps. */
#include "record/bpf_stack_cache.h"

#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

void bpf_stack_cache_init(struct bpf_stack_cache *c)
{
	memset(c, 0, sizeof(*c));
	hashmap_init(&c->at);
}

void bpf_stack_cache_release(struct bpf_stack_cache *c)
{
	hashmap_release(&c->at);
	free(c->frames);
}

const uint64_t *bpf_stack_cache_get(const struct bpf_stack_cache *c, uint64_t key, uint32_t *nr)
{
	uint32_t at;
	if (!hashmap_get(&c->at, key, &at))
		return NULL;
	*nr = (uint32_t)c->frames[at];
	return c->frames + at + 1;
}

const uint64_t *bpf_stack_cache_put(struct bpf_stack_cache *c, uint64_t key, const uint64_t *ips, uint32_t nr)
{
	VEC_GROW(c->frames, c->nr + 1 + nr, c->alloc);
	uint32_t at = (uint32_t)c->nr;
	c->frames[at] = nr;
	memcpy(c->frames + at + 1, ips, nr * sizeof(uint64_t));
	c->nr += 1 + nr;
	bool inserted;
	*hashmap_upsert(&c->at, key, at, &inserted) = at;
	return c->frames + at + 1;
}
