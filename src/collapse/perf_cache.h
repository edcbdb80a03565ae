/* The caches of the perf script fast path (see perf_script.c):
 *   blocks  a sample's frame-line block (by fingerprint) -> its frame
 *           sequence, plus the process node of its last samples and their
 *           periods not yet counted, all in one slot so that a repeated
 *           sample costs one cache miss;
 *   lines   a frame line (by fingerprint) -> the frame names it gives;
 *   seqs    a sequence of frame names (root first) -> a small id, exact.
 * One set per chunk; nothing is shared between threads (another chunk
 * reads a chunk's outbox only once that chunk ran: perf_chunk.h). */
#ifndef SCORCH_COLLAPSE_PERF_CACHE_H
#define SCORCH_COLLAPSE_PERF_CACHE_H

#include "base/hash.h"
#include "base/hashmap.h"
#include "profile/profile.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PERF_NONE UINT32_MAX
/* block.seq: PERF_FOREIGN | outbox record, a block another chunk parses
 * (perf_chunk.h); frame sequence ids stay below it. */
#define PERF_FOREIGN 0x80000000u

/* 128-bit fingerprint of a byte string (length and a flag mixed in). */
struct perf_fp {
	uint64_t key, check;
};

struct perf_fp perf_fingerprint(const char *p, size_t n, bool flag);

/* The same fingerprint computed in pieces: begin, any number of whole
 * 16-byte words, then the last 0..15 bytes. */
struct perf_fp_state {
	uint64_t h[4]; /* two lanes for even words, two for odd words: the
			* multiply chains of consecutive words overlap */
	size_t n;
};

struct perf_fp_state perf_fp_begin(bool flag);

static inline void perf_fp_word(struct perf_fp_state *st, const char *p)
{
	uint64_t x, y;
	memcpy(&x, p, 8);
	memcpy(&y, p + 8, 8);
	uint64_t *l = st->h + 2 * ((st->n >> 4) & 1);
	l[0] = hash_mix(x ^ 0xa4093822299f31d0ull, y ^ l[0]);
	l[1] = hash_mix(y ^ 0x082efa98ec4e6c89ull, x ^ l[1] ^ 0x452821e638d01377ull);
	st->n += 16;
}

struct perf_fp perf_fp_end(struct perf_fp_state *st, const char *tail, size_t n);

/* 32 bytes, two to a cache line: the table is probed at random once per
 * sample, and with one table per thread its size is what decides whether
 * the threads' tables stay in the shared cache (and how many fresh pages
 * each thread must fault in). The block's length and Java flag are mixed
 * into its fingerprint; a zero fingerprint marks an empty slot (such a
 * block is never cached). */
struct perf_block {
	uint64_t key, check; /* the block's fingerprint */
	uint64_t acc;        /* periods not yet counted */
	node_t pnode;        /* their process node (foreign block: their process
			      * name's index in pnames_out); PERF_NONE: none */
	uint32_t seq;        /* frame sequence; PERF_NONE while only seen filtered
			      * out; PERF_FOREIGN | record: another chunk parses it */
};

static inline bool perf_block_used(const struct perf_block *b)
{
	return (b->key | b->check) != 0;
}

static inline bool perf_block_foreign(const struct perf_block *b)
{
	return b->seq != PERF_NONE && (b->seq & PERF_FOREIGN);
}

struct perf_blocks {
	struct perf_block *slots;
	size_t mask, nr;
};

void perf_blocks_init(struct perf_blocks *t);
void perf_blocks_release(struct perf_blocks *t);
struct perf_block *perf_blocks_find(const struct perf_blocks *t, struct perf_fp fp);
/* NULL when the table reached its size limit (or fp is zero). The pointer
 * is valid until the next add. */
struct perf_block *perf_blocks_add(struct perf_blocks *t, struct perf_fp fp);
static inline void perf_blocks_prefetch(const struct perf_blocks *t, struct perf_fp fp)
{
	__builtin_prefetch(&t->slots[fp.key & t->mask]);
}

/* Frame lines -> runs of syms in a pool. */
struct perf_lines {
	struct hashmap map; /* fp.key -> entry */
	struct perf_line_ent {
		uint64_t check;
		uint32_t off, n;
	} *ents;
	size_t nents, ents_alloc;
	sym_t *pool;
	size_t npool, pool_alloc;
};

void perf_lines_init(struct perf_lines *t);
void perf_lines_release(struct perf_lines *t);
/* Returns true and the syms of a cached line. */
bool perf_lines_get(const struct perf_lines *t, struct perf_fp fp, const sym_t **syms, uint32_t *n);
void perf_lines_add(struct perf_lines *t, struct perf_fp fp, const sym_t *syms, uint32_t n);

/* Exact interning of sym sequences. */
struct perf_seqs {
	struct hashmap map; /* hash (rehashed on collision) -> id */
	struct perf_seq_ent {
		uint32_t off, n;
	} *ents;
	size_t nents, ents_alloc;
	sym_t *pool;
	size_t npool, pool_alloc;
};

void perf_seqs_init(struct perf_seqs *t);
void perf_seqs_release(struct perf_seqs *t);
/* The id (below PERF_FOREIGN), or PERF_NONE past 2^31 sequences. */
uint32_t perf_seqs_intern(struct perf_seqs *t, const sym_t *syms, uint32_t n);

static inline const sym_t *perf_seq(const struct perf_seqs *t, uint32_t id, uint32_t *n)
{
	*n = t->ents[id].n;
	return t->pool ? t->pool + t->ents[id].off : NULL;
}

#endif
