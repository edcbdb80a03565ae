/* Caches of the perf script fast path; see perf_cache.h. */
#include "collapse/perf_cache.h"

#include "base/alloc.h"
#include "base/hash.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
	BLOCKS_MAX_SLOTS = 1 << 21, /* 64 MiB of slots: beyond, blocks are folded uncached */
};

static uint64_t read64(const char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

/* Two independent lanes of hash.h's multiply-fold mix over 16-byte words;
 * the length is mixed in at the end so that the fingerprint can be
 * computed while the end is still being searched for. */
struct perf_fp_state perf_fp_begin(bool flag)
{
	return (struct perf_fp_state){ { 0x243f6a8885a308d3ull ^ (flag ? 0x6a617661ull : 0),
					 0x13198a2e03707344ull ^ (flag ? 1 : 0), 0x3707344a40938222ull,
					 0x299f31d0082efa98ull },
				       0 };
}

struct perf_fp perf_fp_end(struct perf_fp_state *st, const char *p, size_t n)
{
	uint64_t x = 0, y = 0;
	if (n >= 8) {
		x = read64(p);
		y = read64(p + n - 8);
	} else if (n) {
		memcpy(&x, p, n);
	}
	size_t total = st->n + n;
	uint64_t h1 = hash_mix(x ^ 0xbe5466cf34e90c6cull ^ st->h[0], y ^ 0xc0ac29b7c97c50ddull ^ total);
	uint64_t h2 = hash_mix(y ^ 0x3f84d5b5b5470917ull ^ st->h[1],
			       x ^ 0x9216d5d98979fb1bull ^ (total * 0x9e3779b97f4a7c15ull));
	h1 = hash_mix(h1 ^ st->h[2], 0xd1310ba698dfb5acull) ^ h1;
	h2 = hash_mix(h2 ^ st->h[3], 0x2ffd72dbd01adfb7ull) ^ h2;
	return (struct perf_fp){ hash_mix(h1, 0xb8e1afed6a267e96ull) ^ h1,
				 hash_mix(h2, 0xba7c9045f12c7f99ull) ^ h2 };
}

struct perf_fp perf_fingerprint(const char *p, size_t n, bool flag)
{
	struct perf_fp_state st = perf_fp_begin(flag);
	while (n >= 16) {
		perf_fp_word(&st, p);
		p += 16;
		n -= 16;
	}
	return perf_fp_end(&st, p, n);
}

/* ---- blocks ---- */

/* Zeroed slots, written page by page now: calloc's fresh zero pages would
 * be read first (the probe loop) and copied on the first store, and each
 * such copy flushes the TLB of every CPU running one of our threads. On huge
 * pages when big: one probe per sample at random in tens of MiB otherwise
 * misses the TLB too, and two threads on the cores of a shared machine
 * miss it twice as often. */
static struct perf_block *alloc_slots(size_t n)
{
	if (n > SIZE_MAX / sizeof(struct perf_block))
		return xreallocarray(NULL, n, sizeof(struct perf_block)); /* dies */
	return xcalloc_table(n * sizeof(struct perf_block));
}

void perf_blocks_init(struct perf_blocks *t)
{
	t->mask = 1023;
	t->nr = 0;
	t->slots = alloc_slots(t->mask + 1);
}

void perf_blocks_release(struct perf_blocks *t)
{
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

struct perf_block *perf_blocks_find(const struct perf_blocks *t, struct perf_fp fp)
{
	size_t i = fp.key & t->mask;
	while (perf_block_used(&t->slots[i])) {
		if (t->slots[i].key == fp.key && t->slots[i].check == fp.check)
			return &t->slots[i];
		i = (i + 1) & t->mask;
	}
	return NULL;
}

static void blocks_grow(struct perf_blocks *t)
{
	size_t mask = t->mask * 2 + 1;
	struct perf_block *slots = alloc_slots(mask + 1);
	for (size_t i = 0; i <= t->mask; i++) {
		if (!perf_block_used(&t->slots[i]))
			continue;
		size_t j = t->slots[i].key & mask;
		while (perf_block_used(&slots[j]))
			j = (j + 1) & mask;
		slots[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = slots;
	t->mask = mask;
}

struct perf_block *perf_blocks_add(struct perf_blocks *t, struct perf_fp fp)
{
	if ((fp.key | fp.check) == 0)
		return NULL;
	if ((t->nr + 1) * 5 > (t->mask + 1) * 4) {
		if (t->mask + 1 >= BLOCKS_MAX_SLOTS)
			return NULL;
		blocks_grow(t);
	}
	size_t i = fp.key & t->mask;
	while (perf_block_used(&t->slots[i]))
		i = (i + 1) & t->mask;
	t->slots[i] = (struct perf_block){
		.key = fp.key, .check = fp.check, .acc = 0, .pnode = PERF_NONE, .seq = PERF_NONE,
	};
	t->nr++;
	return &t->slots[i];
}

/* ---- lines ---- */

void perf_lines_init(struct perf_lines *t)
{
	memset(t, 0, sizeof(*t));
	hashmap_init(&t->map);
}

void perf_lines_release(struct perf_lines *t)
{
	hashmap_release(&t->map);
	free(t->ents);
	free(t->pool);
	memset(t, 0, sizeof(*t));
}

bool perf_lines_get(const struct perf_lines *t, struct perf_fp fp, const sym_t **syms, uint32_t *n)
{
	uint32_t idx;
	if (!hashmap_get(&t->map, fp.key, &idx) || t->ents[idx].check != fp.check)
		return false;
	*syms = t->pool ? t->pool + t->ents[idx].off : NULL;
	*n = t->ents[idx].n;
	return true;
}

void perf_lines_add(struct perf_lines *t, struct perf_fp fp, const sym_t *syms, uint32_t n)
{
	if (t->nents >= UINT32_MAX - 1 || t->npool + n >= UINT32_MAX)
		return;
	bool inserted;
	uint32_t *slot = hashmap_upsert(&t->map, fp.key, (uint32_t)t->nents, &inserted);
	if (!inserted)
		return; /* another line with this key: leave it uncached */
	(void)slot;
	VEC_GROW(t->pool, t->npool + n, t->pool_alloc);
	if (n)
		memcpy(t->pool + t->npool, syms, n * sizeof(*syms));
	VEC_GROW(t->ents, t->nents + 1, t->ents_alloc);
	t->ents[t->nents++] = (struct perf_line_ent){ fp.check, (uint32_t)t->npool, n };
	t->npool += n;
}

/* ---- sequences ---- */

void perf_seqs_init(struct perf_seqs *t)
{
	memset(t, 0, sizeof(*t));
	hashmap_init(&t->map);
}

void perf_seqs_release(struct perf_seqs *t)
{
	hashmap_release(&t->map);
	free(t->ents);
	free(t->pool);
	memset(t, 0, sizeof(*t));
}

uint32_t perf_seqs_intern(struct perf_seqs *t, const sym_t *syms, uint32_t n)
{
	if (t->nents >= PERF_FOREIGN)
		return PERF_NONE; /* ids must stay below PERF_FOREIGN: the general path */
	uint64_t h = hash_bytes(syms, (size_t)n * sizeof(*syms));
	for (;;) {
		bool inserted;
		uint32_t *slot = hashmap_upsert(&t->map, h, (uint32_t)t->nents, &inserted);
		if (!inserted) {
			const struct perf_seq_ent *e = &t->ents[*slot];
			if (e->n == n && (n == 0 || !memcmp(t->pool + e->off, syms, (size_t)n * sizeof(*syms))))
				return *slot;
			h = hash_u64(h); /* a different sequence with this hash: next key */
			continue;
		}
		VEC_GROW(t->pool, t->npool + n, t->pool_alloc);
		if (n)
			memcpy(t->pool + t->npool, syms, (size_t)n * sizeof(*syms));
		VEC_GROW(t->ents, t->nents + 1, t->ents_alloc);
		t->ents[t->nents] = (struct perf_seq_ent){ (uint32_t)t->npool, n };
		t->npool += n;
		return (uint32_t)t->nents++;
	}
}
