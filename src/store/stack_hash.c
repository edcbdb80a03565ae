/* Stack hashes (store/stack_hash.h): a node's is its parent's mixed with
 * its own name's, in id order (parents come first). */
#include "store/stack_hash.h"

#include "base/alloc.h"
#include "base/hash.h"

uint64_t *stack_hashes(const struct profile *p)
{
	uint64_t *h = xreallocarray(NULL, p->nr ? p->nr : 1, sizeof(*h));
	h[0] = 0x736361726368ull; /* the root */
	for (node_t i = 1; i < p->nr; i++)
		h[i] = hash_mix(h[p->nodes[i].parent] ^ 0x9e3779b97f4a7c15ull,
				hash_bytes(profile_name(p, i), profile_name_len(p, i)) | 1);
	return h;
}
