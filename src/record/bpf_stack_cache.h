/* A cache of the stacks read back from the BPF programs' maps
 * (record-private, libbpf only), shared by bpf_stacks.c and bpf_python.c. */
#ifndef SCORCH_RECORD_BPF_STACK_CACHE_H
#define SCORCH_RECORD_BPF_STACK_CACHE_H

#include "base/hashmap.h"

#include <stddef.h>
#include <stdint.h>

/* Stacks read back from the maps. A cache of stacks by a
 * 64-bit key (the caller's: a stack id, or a map and an id), each its
 * frame count then its frames. */
struct bpf_stack_cache {
	struct hashmap at; /* key -> index of the count in frames */
	uint64_t *frames;
	size_t nr, alloc;
};
void bpf_stack_cache_init(struct bpf_stack_cache *c);
void bpf_stack_cache_release(struct bpf_stack_cache *c);
/* The frames under key (*nr of them), NULL when absent; valid until the
 * next put. */
const uint64_t *bpf_stack_cache_get(const struct bpf_stack_cache *c, uint64_t key, uint32_t *nr);
const uint64_t *bpf_stack_cache_put(struct bpf_stack_cache *c, uint64_t key, const uint64_t *ips, uint32_t nr);

#endif
