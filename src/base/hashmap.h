/* Open-addressing map from a 64-bit key to a 32-bit value. */
#ifndef SCORCH_BASE_HASHMAP_H
#define SCORCH_BASE_HASHMAP_H

#include "base/hash.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The value that marks an empty slot: not a value the map can hold. */
#define HASHMAP_EMPTY UINT32_MAX

struct hashmap_slot {
	uint64_t key;
	uint32_t value; /* HASHMAP_EMPTY: an empty slot */
};

struct hashmap {
	struct hashmap_slot *slots;
	size_t mask, nr;
};

void hashmap_init(struct hashmap *m);
void hashmap_release(struct hashmap *m);
/* Returns a pointer to the value for key, inserting `fresh` when absent;
 * *inserted says which happened. The pointer is valid until the next insert. */
uint32_t *hashmap_upsert(struct hashmap *m, uint64_t key, uint32_t fresh, bool *inserted);
/* Room for n keys without growing (for a count known ahead: each growth
 * rehashes everything into new memory). */
void hashmap_reserve(struct hashmap *m, size_t n);
/* The bytes its slots take. */
static inline size_t hashmap_bytes(const struct hashmap *m)
{
	return (m->mask + 1) * sizeof(*m->slots);
}
/* Remove key (false: it was not there). Pointers from hashmap_upsert are
 * invalid afterwards. */
bool hashmap_remove(struct hashmap *m, uint64_t key);

/* Inline: report looks up an id, a thread or a frame for every sample. */
static inline bool hashmap_get(const struct hashmap *m, uint64_t key, uint32_t *value)
{
	size_t i = hash_u64(key) & m->mask;
	while (m->slots[i].value != HASHMAP_EMPTY) {
		if (m->slots[i].key == key) {
			*value = m->slots[i].value;
			return true;
		}
		i = (i + 1) & m->mask;
	}
	return false;
}

#endif
