#include "base/hashmap.h"

#include "base/alloc.h"
#include "base/hash.h"

#include <stdlib.h>
#include <string.h>

static struct hashmap_slot *alloc_slots(size_t n)
{
	struct hashmap_slot *s = xreallocarray(NULL, n, sizeof(*s));
	for (size_t i = 0; i < n; i++)
		s[i].value = HASHMAP_EMPTY;
	return s;
}

void hashmap_init(struct hashmap *m)
{
	m->mask = 255;
	m->nr = 0;
	m->slots = alloc_slots(m->mask + 1);
}

void hashmap_release(struct hashmap *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

static void rehash(struct hashmap *m, size_t mask)
{
	struct hashmap_slot *slots = alloc_slots(mask + 1);
	for (size_t i = 0; i <= m->mask; i++) {
		if (m->slots[i].value == HASHMAP_EMPTY)
			continue;
		size_t j = hash_u64(m->slots[i].key) & mask;
		while (slots[j].value != HASHMAP_EMPTY)
			j = (j + 1) & mask;
		slots[j] = m->slots[i];
	}
	free(m->slots);
	m->slots = slots;
	m->mask = mask;
}

static void grow(struct hashmap *m)
{
	rehash(m, m->mask * 2 + 1);
}

void hashmap_reserve(struct hashmap *m, size_t n)
{
	size_t mask = m->mask;
	while (n * 10 > (mask + 1) * 7 && mask < SIZE_MAX / 32)
		mask = mask * 2 + 1;
	if (mask != m->mask)
		rehash(m, mask);
}

uint32_t *hashmap_upsert(struct hashmap *m, uint64_t key, uint32_t fresh, bool *inserted)
{
	if ((m->nr + 1) * 10 > (m->mask + 1) * 7)
		grow(m);
	size_t i = hash_u64(key) & m->mask;
	while (m->slots[i].value != HASHMAP_EMPTY) {
		if (m->slots[i].key == key) {
			*inserted = false;
			return &m->slots[i].value;
		}
		i = (i + 1) & m->mask;
	}
	m->slots[i].key = key;
	m->slots[i].value = fresh;
	m->nr++;
	*inserted = true;
	return &m->slots[i].value;
}

bool hashmap_remove(struct hashmap *m, uint64_t key)
{
	size_t i = hash_u64(key) & m->mask;
	while (m->slots[i].value != HASHMAP_EMPTY && m->slots[i].key != key)
		i = (i + 1) & m->mask;
	if (m->slots[i].value == HASHMAP_EMPTY)
		return false;
	/* Linear probing without tombstones: the slots after the hole move
	 * back into it unless their home lies cyclically in (hole, slot]. */
	for (size_t j = (i + 1) & m->mask; m->slots[j].value != HASHMAP_EMPTY; j = (j + 1) & m->mask) {
		size_t home = hash_u64(m->slots[j].key) & m->mask;
		bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
		if (stays)
			continue;
		m->slots[i] = m->slots[j];
		i = j;
	}
	m->slots[i].value = HASHMAP_EMPTY;
	m->nr--;
	return true;
}
