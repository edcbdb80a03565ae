/* Unit tests for base/: strpool, hashmap, lines, out, arena. */
#include "harness.h"

#include "base/arena.h"
#include "base/hashmap.h"
#include "base/lines.h"
#include "base/out.h"
#include "base/strpool.h"

#include <stdlib.h>

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
