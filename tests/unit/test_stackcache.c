/* Unit tests for profile/stackcache and the folded reader's use of it:
 * a cached leaf is only returned when the caller's check accepts it, and
 * repeated tricky stacks (empty frames, trailing ';', --reverse) land on
 * the same leaves as when first seen, also when the cache starts late
 * (sorted distinct stacks first). */
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

TEST(stackcache_sorted_input_then_repeats)
{
	/* Sorted distinct stacks are folded without the cache until one does
	 * not sort after the one before it; from then on with it. The
	 * profile is the same as in any other order. */
	const char *sorted = "a 1\na b 2\na; 3\na;b 4\na;b;c 5\na;b;c; 6\nb 7\nb;a 8\n";
	char *want = fold("b;a 8\na;b;c; 6\na 1\nb 7\na;b 4\na b 2\na;b;c 5\na; 3\n", false);
	char *s = fold(sorted, false);
	CHECK_STR(s, want);
	CHECK_STR(s, "a 4\na b 2\na;b 4\na;b;c 11\nb 7\nb;a 8\n");
	free(s);
	/* the same stacks again after the sorted run, and a repeat in it */
	char *twice = malloc(2 * strlen(sorted) + 1);
	strcpy(twice, sorted);
	strcat(twice, sorted);
	s = fold(twice, false);
	CHECK_STR(s, "a 8\na b 4\na;b 8\na;b;c 22\nb 14\nb;a 16\n");
	free(s);
	s = fold("a;b 1\na;b 2\na;b;c 3\na;b 4\n", false);
	CHECK_STR(s, "a;b 7\na;b;c 3\n");
	free(s);
	free(twice);
	free(want);
	/* Random profiles: sorted distinct lines, then some of them again,
	 * fold as the same lines shuffled. */
	const char *names[] = { "a", "b", "a b", "a;", "", "ab", "b;", "-", "z" };
	uint64_t seed = 42;
	for (int round = 0; round < 300; round++) {
		char lines[40][64];
		int n = 0;
		for (int i = 0; i < 40; i++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			int depth = (int)(seed >> 60) % 5 + 1;
			char *l = lines[n];
			l[0] = '\0';
			for (int d = 0; d < depth; d++) {
				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				if (d)
					strcat(l, ";");
				strcat(l, names[(seed >> 33) % 9]);
			}
			n++;
		}
		qsort(lines, (size_t)n, sizeof(lines[0]), (int (*)(const void *, const void *))strcmp);
		char in[8192] = "", shuffled[8192] = "";
		int kept = 0;
		for (int i = 0; i < n; i++) {
			if (i && !strcmp(lines[i], lines[kept - 1]))
				continue; /* distinct, sorted */
			memmove(lines[kept++], lines[i], sizeof(lines[0]));
		}
		char line[96];
		for (int i = 0; i < kept; i++) {
			snprintf(line, sizeof(line), "%.63s %d\n", lines[i], i + 1);
			strcat(in, line);
		}
		for (int i = 0; i < kept; i += 3) { /* repeats after the sorted run */
			snprintf(line, sizeof(line), "%.63s %d\n", lines[i], 100);
			strcat(in, line);
		}
		for (int i = kept; i-- > 0;) {
			snprintf(line, sizeof(line), "%.63s %d\n", lines[i], i + 1 + (i % 3 ? 0 : 100));
			strcat(shuffled, line);
		}
		char *x = fold(in, false), *y = fold(shuffled, false);
		CHECK_STR(x, y);
		free(x);
		free(y);
	}
}
