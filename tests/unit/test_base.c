/* Unit tests for base/: strpool, hashmap, lines, out, arena, word_ring,
 * the heap grown ahead (alloc.h). */
#include "harness.h"

#include "base/alloc.h"
#include "base/arena.h"
#include "base/hashmap.h"
#include "base/lines.h"
#include "base/out.h"
#include "base/strpool.h"
#include "base/word_ring.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

TEST(strpool_dedups_and_grows)
{
	struct strpool sp;
	strpool_init(&sp);
	uint32_t a = strpool_intern(&sp, "main", 4);
	uint32_t b = strpool_intern(&sp, "mainx", 4); /* same 4 bytes */
	CHECK_EQ_U64(a, b);
	const char *stable = strpool_str(&sp, a);
	char buf[32];
	for (int i = 0; i < 100000; i++) {
		int n = snprintf(buf, sizeof(buf), "frame_%d", i);
		uint32_t id = strpool_intern(&sp, buf, (size_t)n);
		CHECK_EQ_U64(strpool_find(&sp, buf, (size_t)n), id);
	}
	CHECK_EQ_U64(sp.nr, 100001);
	CHECK(stable == strpool_str(&sp, a)); /* pointers survive growth */
	CHECK_STR(strpool_str(&sp, a), "main");
	CHECK_EQ_U64(strpool_find(&sp, "absent", 6), UINT32_MAX);
	/* empty string and embedded NUL */
	uint32_t e = strpool_intern(&sp, "", 0);
	uint32_t z = strpool_intern(&sp, "a\0b", 3);
	CHECK(e != z);
	CHECK_EQ_U64(strpool_len(&sp, z), 3);
	strpool_release(&sp);
}

TEST(hashmap_collisions_and_growth)
{
	struct hashmap m;
	hashmap_init(&m);
	bool ins;
	for (uint64_t k = 0; k < 50000; k++) {
		uint32_t *v = hashmap_upsert(&m, k << 32, (uint32_t)k, &ins);
		CHECK(ins);
		CHECK_EQ_U64(*v, k);
	}
	uint32_t v = 0;
	CHECK(hashmap_get(&m, 1234ull << 32, &v));
	CHECK_EQ_U64(v, 1234);
	CHECK(!hashmap_get(&m, 1, &v));
	hashmap_upsert(&m, 7ull << 32, 99, &ins);
	CHECK(!ins);
	CHECK_EQ_U64(m.nr, 50000);
	hashmap_release(&m);
}

/* hashmap_remove against a reference (an array of what should be in):
 * random inserts and removals in a small map (long probe runs that wrap
 * around its end), every key checked after each step. */
TEST(hashmap_remove_keeps_the_rest)
{
	enum { KEYS = 600 };
	static uint32_t want[KEYS]; /* 0: absent, else value + 1 */
	memset(want, 0, sizeof(want));
	struct hashmap m;
	hashmap_init(&m);
	uint64_t x = 88172645463325252ull;
	for (int step = 0; step < 20000; step++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint32_t k = (uint32_t)(x % KEYS);
		bool ins;
		if (x & (1ull << 40)) {
			*hashmap_upsert(&m, k, (uint32_t)step, &ins) = (uint32_t)step;
			want[k] = (uint32_t)step + 1;
		} else {
			CHECK(hashmap_remove(&m, k) == (want[k] != 0));
			want[k] = 0;
		}
		if (step % 97)
			continue;
		size_t n = 0;
		for (uint32_t j = 0; j < KEYS; j++) {
			uint32_t v = 0;
			bool got = hashmap_get(&m, j, &v);
			CHECK(got == (want[j] != 0));
			if (got)
				CHECK_EQ_U64(v, want[j] - 1);
			n += want[j] != 0;
		}
		CHECK_EQ_U64(m.nr, n);
	}
	hashmap_release(&m);
}

/* hashmap_reserve: the keys already in keep their values, and the n
 * reserved for go in without the map growing (its slots stay put). */
TEST(hashmap_reserve_keeps_keys_and_room)
{
	struct hashmap m;
	hashmap_init(&m);
	bool ins;
	for (uint64_t k = 0; k < 100; k++)
		hashmap_upsert(&m, k * 7919, (uint32_t)k, &ins);
	hashmap_reserve(&m, 50000);
	const struct hashmap_slot *slots = m.slots;
	for (uint64_t k = 0; k < 100; k++) {
		uint32_t v = UINT32_MAX;
		CHECK(hashmap_get(&m, k * 7919, &v) && v == k);
	}
	for (uint64_t k = 100; k < 50000; k++)
		hashmap_upsert(&m, k * 7919, (uint32_t)k, &ins);
	CHECK(m.slots == slots);
	CHECK_EQ_U64(m.nr, 50000);
	hashmap_reserve(&m, 10); /* never shrinks */
	CHECK(m.slots == slots);
	hashmap_release(&m);
}

TEST(lines_crlf_and_no_final_newline)
{
	const char text[] = "a\r\nbb\n\nccc";
	struct lines it;
	const char *s;
	size_t n;
	lines_init(&it, text, sizeof(text) - 1);
	REQUIRE(lines_next(&it, &s, &n));
	CHECK_EQ_U64(n, 1);
	REQUIRE(lines_next(&it, &s, &n));
	CHECK_EQ_U64(n, 2);
	REQUIRE(lines_next(&it, &s, &n));
	CHECK_EQ_U64(n, 0);
	REQUIRE(lines_next(&it, &s, &n));
	CHECK_EQ_U64(n, 3);
	CHECK_EQ_U64(it.lineno, 4);
	CHECK(!lines_next(&it, &s, &n));
	lines_init(&it, text, 0);
	CHECK(!lines_next(&it, &s, &n));
}

TEST(out_memory_and_numbers)
{
	struct out *o = out_open_mem();
	out_u64(o, 0);
	out_putc(o, ' ');
	out_u64(o, UINT64_MAX);
	out_printf(o, " %s", "x");
	size_t len;
	char *s = out_mem_detach(o, &len);
	CHECK_STR(s, "0 18446744073709551615 x");
	free(s);
	/* Larger than the buffer. */
	o = out_open_mem();
	char *big = malloc(OUT_BUF_SIZE * 3);
	memset(big, 'q', OUT_BUF_SIZE * 3);
	out_putc(o, 'a');
	out_write(o, big, OUT_BUF_SIZE * 3);
	s = out_mem_detach(o, &len);
	CHECK_EQ_U64(len, OUT_BUF_SIZE * 3 + 1);
	CHECK(s[0] == 'a' && s[len - 1] == 'q');
	free(s);
	free(big);
}

TEST(arena_alignment)
{
	struct arena a;
	arena_init(&a);
	for (int i = 0; i < 10000; i++) {
		void *p = arena_alloc(&a, (size_t)(i % 37) + 1, 8);
		CHECK(((uintptr_t)p & 7) == 0);
	}
	void *huge = arena_alloc(&a, 1 << 20, 16);
	memset(huge, 1, 1 << 20);
	arena_release(&a);
}

/* Pages of h in memory now. */
static size_t heap_resident(const struct heap_ahead *h)
{
	size_t pages = h->len / 4096, n = 0;
	unsigned char *in = malloc(pages);
	if (in && !mincore((void *)h->from, h->len, in))
		for (size_t i = 0; i < pages; i++)
			n += in[i] & 1;
	free(in);
	return n;
}

/* report's heap, grown ahead on huge pages and faulted in ahead of its
 * use by a thread of its own: the 8 MiB past what is in memory come in,
 * and the blocks written before and meanwhile keep what they hold
 * (MADV_POPULATE_WRITE writes nothing). It fails when the thread faults
 * nothing in. Under the sanitizers (their allocator is not glibc's) there
 * is no such heap. */
TEST(alloc_heap_fault_in_brings_pages_in_and_keeps_data)
{
	struct heap_ahead h = alloc_small_blocks_on_huge_pages(32u << 20);
	if (!h.len)
		SKIP("no heap grown ahead here (sanitizers, or no huge-page advice)");
	enum { BLOCKS = 2000, SIZE = 1000 };
	unsigned char **blocks = malloc(BLOCKS * sizeof(*blocks));
	REQUIRE(blocks);
	for (int i = 0; i < BLOCKS / 2; i++) {
		blocks[i] = malloc(SIZE);
		memset(blocks[i], i & 255, SIZE);
	}
	size_t before = heap_resident(&h);
	alloc_heap_fault_in(&h, 8u << 20);
	for (int i = BLOCKS / 2; i < BLOCKS; i++) {
		blocks[i] = malloc(SIZE);
		memset(blocks[i], i & 255, SIZE);
	}
	size_t after = heap_resident(&h);
	for (int waited = 0; after < before + (8u << 20) / 4096 && waited < 500; waited++) {
		nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
		after = heap_resident(&h);
	}
	CHECK(after >= before + (8u << 20) / 4096);
	int bad = 0;
	for (int i = 0; i < BLOCKS; i++) {
		for (int k = 0; k < SIZE; k++)
			bad += blocks[i][k] != (i & 255);
		free(blocks[i]);
	}
	CHECK(bad == 0);
	free(blocks);
}

/* word_ring's consumer: checks that each message is the one sent (its
 * length, then words derived from its number) and counts them. */
struct ring_check {
	uint32_t handled; /* messages */
	uint32_t bad;     /* messages not as sent */
	uint64_t words;
};

static uint32_t ring_word(uint32_t msg, uint32_t i)
{
	return msg * 2654435761u ^ i * 40503u;
}

/* Message m's length: 1 to 48 words (the ring in the test holds 64),
 * irregular so that messages straddle the ring's end. */
static uint32_t ring_len(uint32_t m)
{
	return 1 + (m * 7919u >> 3) % 48;
}

static void ring_handle(void *arg, struct word_ring *r)
{
	struct ring_check *c = arg;
	uint32_t n = word_ring_take(r), m = c->handled;
	bool ok = n == ring_len(m);
	for (uint32_t i = 1; i < n; i++)
		ok &= word_ring_take(r) == ring_word(m, i);
	c->bad += !ok;
	c->words += n;
	c->handled++;
}

static void ring_send(struct word_ring *r, uint32_t m)
{
	uint32_t n = ring_len(m);
	word_ring_reserve(r, n);
	word_ring_put(r, n);
	for (uint32_t i = 1; i < n; i++)
		word_ring_put(r, ring_word(m, i));
	word_ring_commit(r);
}

/* Messages from this thread to the ring's (and, unthreaded, handled as
 * each is committed) arrive whole and in order through a ring of 64 words
 * (most messages wait for room); after word_ring_sync every message sent
 * is handled, and the producer may read what the consumer wrote. */
TEST(word_ring_delivers_in_order_and_syncs)
{
	for (int threaded = 0; threaded < 2; threaded++) {
		struct ring_check c = { 0 };
		struct word_ring r;
		word_ring_start(&r, 6, threaded, ring_handle, &c);
		uint32_t sent = 0;
		for (int round = 0; round < 50; round++) {
			for (int i = 0; i < 1000; i++)
				ring_send(&r, sent++);
			word_ring_sync(&r);
			CHECK_EQ_U64(c.handled, sent);
		}
		for (int i = 0; i < 777; i++)
			ring_send(&r, sent++);
		word_ring_stop(&r);
		CHECK_EQ_U64(c.handled, sent);
		CHECK_EQ_U64(c.bad, 0);
		CHECK(c.words > 50 * 1000 * 64 / 4); /* many times round the ring */
	}
}
