/* Unit tests for profile/stackcache and the folded reader's use of it:
 * a cached leaf is only returned when the caller's check accepts it, and
 * repeated tricky stacks (empty frames, trailing ';', --reverse) land on
 * the same leaves as when first seen. */
#include "harness.h"

#include "profile/folded.h"
#include "profile/stackcache.h"

#include <stdlib.h>
#include <string.h>

static bool accept_leaf_7(void *ctx, node_t leaf, const char *s, size_t n)
{
	(void)ctx, (void)s, (void)n;
	return leaf == 7;
}

TEST(stackcache_collisions_are_checked)
{
	struct stackcache c;
	stackcache_init(&c);
	/* Two entries with the same hash and length: the check decides. */
	stackcache_put(&c, 42, 3, 5);
	CHECK(stackcache_get(&c, 42, "abc", 3, accept_leaf_7, NULL) == UINT32_MAX);
	stackcache_put(&c, 42, 3, 7);
	CHECK(stackcache_get(&c, 42, "abc", 3, accept_leaf_7, NULL) == 7);
	/* Different length: never a candidate. */
	CHECK(stackcache_get(&c, 42, "abcd", 4, accept_leaf_7, NULL) == UINT32_MAX);
	/* Many entries: growth keeps them all. */
	for (uint32_t i = 0; i < 100000; i++)
		stackcache_put(&c, stackcache_hash((const char *)&i, sizeof(i)), 4, i == 7 ? 8 : 7);
	uint32_t k = 123;
	CHECK(stackcache_get(&c, stackcache_hash((const char *)&k, sizeof(k)), "x", 4, accept_leaf_7,
			     NULL) == 7);
	stackcache_release(&c);
}

static char *fold(const char *text, bool reverse)
{
	struct profile p;
	profile_init(&p);
	struct folded_opts fo = { .max_warnings = -1, .reverse = reverse };
	folded_parse(&p, "t", text, strlen(text), &fo, NULL);
	struct out *o = out_open_mem();
	folded_write(&p, o);
	profile_release(&p);
	return out_mem_detach(o, NULL);
}

TEST(stackcache_repeated_tricky_stacks)
{
	const char *text = "a;;b 1\n;a 1\na;b; 1\na;b 2\n; 3\na;;b 1\n;a 1\na;b;; 4\n; 1\nab 1\na;b 1\n";
	char *s = fold(text, false);
	/* ";" is an empty stack: the root's own count, written first. */
	CHECK_STR(s, " 4\n;a 2\na;;b 2\na;b 8\nab 1\n");
	free(s);
	s = fold(text, true);
	CHECK_STR(s, " 4\na; 2\nab 1\nb;;a 2\nb;a 8\n");
	free(s);
}

TEST(stackcache_same_text_different_files_and_order)
{
	/* The same stacks in any order and repetition give the same profile. */
	char *a = fold("x;y;z 1\nx;y 2\nx;y;z 3\nx;w 4\nx;y 5\n", false);
	char *b = fold("x;y 5\nx;w 4\nx;y;z 3\nx;y;z 1\nx;y 2\n", false);
	CHECK_STR(a, b);
	CHECK_STR(a, "x;w 4\nx;y 7\nx;y;z 4\n");
	free(a);
	free(b);
}
