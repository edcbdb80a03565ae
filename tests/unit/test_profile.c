/* Unit tests for profile/: the trie, folded parsing and writing, ordering. */
#include "harness.h"

#include "base/alloc.h"
#include "profile/folded.h"
#include "profile/order.h"
#include "profile/profile.h"

#include <stdlib.h>

static char *fold(const char *text, bool *differential)
{
	struct profile p;
	profile_init(&p);
	struct folded_stats st = { 0 };
	folded_parse(&p, "t", text, strlen(text), NULL, &st);
	if (differential)
		*differential = p.differential;
	struct out *o = out_open_mem();
	folded_write(&p, o);
	profile_release(&p);
	return out_mem_detach(o, NULL);
}

TEST(folded_merges_and_sorts)
{
	char *s = fold("b;c 2\na;b 1\nb;c 3\na 4\n", NULL);
	CHECK_STR(s, "a 4\na;b 1\nb;c 5\n");
	free(s);
}

TEST(folded_count_rules)
{
	/* flamegraph.pl's regex: digits with optional fraction after whitespace */
	struct folded_count c;
	size_t n;
	n = 5;
	CHECK(folded_take_count("a;b 7", &n, &c) && n == 3 && c.whole && c.u == 7);
	n = 7;
	CHECK(folded_take_count("a;b 12.", &n, &c) && !c.whole && c.d == 12);
	n = 6;
	CHECK(folded_take_count("a;b 12.", &n, &c) && c.whole && c.u == 12);
	n = 7;
	CHECK(folded_take_count("a;b 1.5", &n, &c) && !c.whole && c.d == 1.5);
	n = 6;
	CHECK(!folded_take_count("a;b .5", &n, &c));
	n = 6;
	CHECK(!folded_take_count("a;b -3", &n, &c));
	n = 4;
	CHECK(!folded_take_count("a;b7", &n, &c));
	n = 3;
	CHECK(!folded_take_count("a;b", &n, &c));
	n = 2;
	CHECK(folded_take_count("\t9", &n, &c) && n == 0 && c.whole && c.u == 9);
	/* whole numbers past 15 digits stay exact, past 2^64 - 1 say so */
	n = 24;
	CHECK(folded_take_count("a;b 18446744073709551615", &n, &c) && n == 3 && c.whole &&
	      !c.too_big && c.u == UINT64_MAX);
	n = 24;
	CHECK(folded_take_count("a;b 18446744073709551616", &n, &c) && c.whole && c.too_big);
}

TEST(folded_counts_are_exact)
{
	/* Perl adds these as 64-bit integers: ...993, not the double ...992 */
	char *s = fold("a;b 9007199254740992\na;b 1\n", NULL);
	CHECK_STR(s, "a;b 9007199254740993\n");
	free(s);
	s = fold("a 18446744073709551615\n", NULL);
	CHECK_STR(s, "a 18446744073709551615\n");
	free(s);
	/* a fraction switches the profile to doubles: today's sums */
	s = fold("a 1\nb 0.5\nb 0.25\n", NULL);
	CHECK_STR(s, "a 1\nb 0.75\n");
	free(s);
}

TEST(folded_count_overflow_is_an_error)
{
	struct profile p;
	profile_init(&p);
	const char *text = "a 18446744073709551615\nb 1\na 1\n";
	CHECK(folded_parse(&p, "t", text, strlen(text), NULL, NULL) != 0);
	profile_release(&p);
	profile_init(&p);
	text = "a 1\nb 99999999999999999999\n";
	CHECK(folded_parse(&p, "t", text, strlen(text), NULL, NULL) != 0);
	profile_release(&p);
	/* the sum over stacks is checked where it is used */
	profile_init(&p);
	text = "a 18446744073709551615\nb 1\n";
	CHECK(folded_parse(&p, "t", text, strlen(text), NULL, NULL) == 0);
	uint64_t sum;
	CHECK(!profile_total_whole(&p, 0, &sum));
	profile_release(&p);
}

TEST(folded_differential_and_spaces)
{
	bool diff;
	char *s = fold("a;b 10 30\na;c d 5 5\n", &diff);
	CHECK(diff);
	CHECK_STR(s, "a;b 10 30\na;c d 5 5\n");
	free(s);
	/* extra whitespace stays in the last frame */
	s = fold("x;y  3\n", &diff);
	CHECK(!diff);
	CHECK_STR(s, "x;y  3\n");
	free(s);
}

TEST(folded_empty_frames_and_bad_lines)
{
	struct profile p;
	profile_init(&p);
	struct folded_stats st = { 0 };
	const char *text = "a;;b 1\nc;; 2\nno count\n\n";
	folded_parse(&p, "t", text, strlen(text), &(struct folded_opts){ .max_warnings = -1 }, &st);
	CHECK_EQ_U64(st.lines, 3);
	CHECK_EQ_U64(st.ignored, 1);
	struct out *o = out_open_mem();
	folded_write(&p, o);
	char *s = out_mem_detach(o, NULL);
	CHECK_STR(s, "a;;b 1\nc 2\n");
	free(s);
	profile_release(&p);
}

TEST(profile_totals_and_merge)
{
	struct profile a, b;
	profile_init(&a);
	profile_init(&b);
	const char *ta = "x;y 2\nx;z 3\nw 1\n";
	const char *tb = "x;y 10\nq 1\n";
	struct folded_stats st = { 0 };
	folded_parse(&a, "a", ta, strlen(ta), NULL, &st);
	folded_parse(&b, "b", tb, strlen(tb), NULL, &st);
	double *t = profile_totals(&a, 0);
	CHECK(t[0] == 6);
	free(t);
	profile_merge(&a, &b);
	CHECK(profile_total(&a, 0) == 17);
	struct out *o = out_open_mem();
	folded_write(&a, o);
	char *s = out_mem_detach(o, NULL);
	CHECK_STR(s, "q 1\nw 1\nx;y 12\nx;z 3\n");
	free(s);
	profile_release(&a);
	profile_release(&b);
}

TEST(order_matches_sorted_lines)
{
	/* flamegraph.pl sorts whole lines: "a;foo 1" < "a;foo.c 1" < "a;foo;x 1"
	 * ('.' < ';'), while the key sort of the collapsers puts "a;foo" first
	 * too but "a;foo.c" before "a;foo;x" as well. */
	struct profile p;
	profile_init(&p);
	const char *text = "a;foo;x 1\na;foo 1\na;foo.c 1\n";
	struct folded_stats st = { 0 };
	folded_parse(&p, "t", text, strlen(text), NULL, &st);
	size_t nr;
	node_t *order = profile_sorted_leaves(&p, ORDER_LINE_SPACE, &nr);
	REQUIRE(nr == 3);
	char *buf = NULL;
	size_t alloc = 0;
	profile_path(&p, order[0], &buf, &alloc);
	CHECK_STR(buf, "a;foo");
	profile_path(&p, order[1], &buf, &alloc);
	CHECK_STR(buf, "a;foo.c");
	profile_path(&p, order[2], &buf, &alloc);
	CHECK_STR(buf, "a;foo;x");
	free(buf);
	free(order);
	profile_release(&p);
}

/* Property: the trie order equals qsort of the whole lines, for random
 * names drawn from an alphabet full of bytes around ' ' and ';'. */
static int cmp_lines(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One round: 40 random lines of 1-4 frames, each frame `prefix` followed
 * by 1-3 bytes of the alphabet (or 1-3 and nothing else without prefix). */
static void check_random_order(struct unit_test *t_, unsigned *seed, const char *prefix, int round)
{
	static const char alphabet[] = "ab.:,0 ";
	struct profile p;
	profile_init(&p);
	char *lines[40];
	int nlines = 0;
	for (int i = 0; i < 40; i++) {
		char line[128];
		int len = 0, frames = 1 + (int)((*seed = *seed * 1103515245 + 12345) >> 16) % 4;
		for (int f = 0; f < frames; f++) {
			if (f)
				line[len++] = ';';
			if ((*seed >> 20) & 1)
				len += snprintf(line + len, sizeof(line) - (size_t)len, "%s", prefix);
			int nl = 1 + (int)((*seed = *seed * 1103515245 + 12345) >> 16) % 3;
			for (int k = 0; k < nl; k++)
				line[len++] = alphabet[((*seed = *seed * 1103515245 + 12345) >> 16) % 6];
		}
		line[len] = 0;
		/* skip duplicates: a merged duplicate has no single line */
		int dup = 0;
		for (int k = 0; k < nlines; k++)
			if (!strncmp(lines[k], line, (size_t)len) && lines[k][len] == ' ')
				dup = 1;
		if (dup)
			continue;
		char full[160];
		snprintf(full, sizeof(full), "%s 1", line);
		lines[nlines++] = strdup(full);
		folded_parse(&p, "t", full, strlen(full), NULL, &(struct folded_stats){ 0 });
	}
	qsort(lines, (size_t)nlines, sizeof(char *), cmp_lines);
	size_t nr;
	node_t *order = profile_sorted_leaves(&p, ORDER_LINE_SPACE, &nr);
	CHECK_EQ_U64(nr, (uint64_t)nlines);
	char *buf = NULL;
	size_t alloc = 0;
	for (size_t i = 0; i < nr && i < (size_t)nlines; i++) {
		size_t l = profile_path(&p, order[i], &buf, &alloc);
		if (strncmp(lines[i], buf, l) || lines[i][l] != ' ') {
			unit_fail(t_, __FILE__, __LINE__, "prefix '%s' round %d line %zu: '%s' vs '%s'",
				  prefix, round, i, lines[i], buf);
			break;
		}
	}
	free(buf);
	free(order);
	for (int k = 0; k < nlines; k++)
		free(lines[k]);
	profile_release(&p);
}

TEST(order_property_random)
{
	unsigned seed = 12345;
	for (int round = 0; round < 50; round++)
		check_random_order(t_, &seed, "", round);
	/* names longer than 8 bytes that share their first 8 (or 7, so that
	 * the terminator falls inside them) */
	for (int round = 0; round < 50; round++)
		check_random_order(t_, &seed, round % 2 ? "0123456" : "01234567:", round);
}

/* A node with hundreds of children (siblings are sorted by insertion when
 * few, by radix sort when more): the folded lines come out as sorted
 * whole lines. Names share long prefixes and differ in the last bytes. */
TEST(folded_many_siblings_sorted)
{
	for (int kids = 20; kids <= 700; kids = kids * 3 / 2) {
		char *text = NULL, **lines = malloc((size_t)kids * sizeof(*lines));
		size_t len = 0, alloc = 0;
		unsigned seed = (unsigned)kids;
		int nlines = 0;
		for (int i = 0; i < kids; i++) {
			char line[64];
			seed = seed * 1103515245 + 12345;
			int l = snprintf(line, sizeof(line), "root;std::vector<int>::push_%u;x%u %d", (seed >> 8) % 100000,
					 (seed >> 4) % 3, 1 + i % 5);
			int dup = 0;
			for (int k = 0; k < nlines && !dup; k++)
				dup = !strncmp(lines[k], line, (size_t)(strrchr(line, ' ') - line + 1));
			if (dup)
				continue;
			lines[nlines++] = strdup(line);
			VEC_GROW(text, len + (size_t)l + 2, alloc);
			memcpy(text + len, line, (size_t)l);
			len += (size_t)l;
			text[len++] = '\n';
		}
		qsort(lines, (size_t)nlines, sizeof(char *), cmp_lines);
		struct profile p;
		profile_init(&p);
		folded_parse(&p, "t", text, len, NULL, NULL);
		struct out *o = out_open_mem();
		folded_write(&p, o);
		char *got = out_mem_detach(o, NULL), *at = got;
		for (int k = 0; k < nlines; k++) {
			size_t l = strlen(lines[k]);
			if (strncmp(at, lines[k], l) || at[l] != '\n') {
				unit_fail(t_, __FILE__, __LINE__, "%d children: line %d is not '%s'", kids, k, lines[k]);
				break;
			}
			at += l + 1;
		}
		CHECK(!*at);
		free(got);
		for (int k = 0; k < nlines; k++)
			free(lines[k]);
		free(lines);
		free(text);
		profile_release(&p);
	}
}

/* Random folded text over "ab;" (empty frames, leading and trailing ';',
 * repeated and near-repeated stacks) folds as a naive fold does: split on
 * ';', drop trailing empty frames, sum per stack, sort. And the trie has
 * no two children of one node with the same name. */
struct naive_stack {
	char key[32];
	double count;
};

static int naive_cmp(const void *a, const void *b)
{
	return strcmp(((const struct naive_stack *)a)->key, ((const struct naive_stack *)b)->key);
}

static int edge_cmp(const void *a, const void *b)
{
	const struct node *x = a, *y = b;
	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	return (x->name > y->name) - (x->name < y->name);
}

TEST(folded_trie_random_matches_naive_fold)
{
	unsigned seed = 777;
	for (int round = 0; round < 200; round++) {
		char text[4096];
		size_t len = 0;
		struct naive_stack st[64];
		size_t nst = 0;
		char prev[16] = "";
		for (int i = 0; i < 60; i++) {
			char line[16];
			int n = 0;
			seed = seed * 1103515245 + 12345;
			if ((seed >> 16) % 3 == 0 && prev[0]) {
				/* an edit of the previous line: likely to share a prefix */
				n = (int)strlen(prev);
				memcpy(line, prev, (size_t)n);
				n = n ? (int)((seed >> 8) % (unsigned)n) : 0;
			}
			int extra = (int)((seed = seed * 1103515245 + 12345) >> 16) % 7;
			for (int k = 0; k < extra && n < 12; k++)
				line[n++] = "ab;;"[((seed = seed * 1103515245 + 12345) >> 16) % 4];
			line[n] = 0;
			memcpy(prev, line, (size_t)n + 1);
			int count = 1 + (int)((seed = seed * 1103515245 + 12345) >> 16) % 5;
			len += (size_t)snprintf(text + len, sizeof(text) - len, "%s %d\n", line, count);
			/* naive key: drop trailing empty frames = trailing ';' */
			while (n && line[n - 1] == ';')
				line[--n] = 0;
			size_t j = 0;
			while (j < nst && strcmp(st[j].key, line))
				j++;
			if (j == nst) {
				memcpy(st[nst].key, line, (size_t)n + 1);
				st[nst++].count = 0;
			}
			st[j].count += count;
		}
		qsort(st, nst, sizeof(st[0]), naive_cmp);
		char want[4096];
		size_t wl = 0;
		for (size_t j = 0; j < nst; j++)
			wl += (size_t)snprintf(want + wl, sizeof(want) - wl, "%s %.0f\n", st[j].key,
					       st[j].count);
		struct profile p;
		profile_init(&p);
		folded_parse(&p, "t", text, len, NULL, NULL);
		struct out *o = out_open_mem();
		folded_write(&p, o);
		char *got = out_mem_detach(o, NULL);
		if (strcmp(got, want)) {
			unit_fail(t_, __FILE__, __LINE__, "round %d: input\n%s\nwant\n%s\ngot\n%s", round,
				  text, want, got);
			free(got);
			profile_release(&p);
			break;
		}
		free(got);
		struct node *sorted = malloc(p.nr * sizeof(*sorted));
		memcpy(sorted, p.nodes, p.nr * sizeof(*sorted));
		qsort(sorted + 1, p.nr - 1, sizeof(*sorted), edge_cmp);
		for (node_t i = 2; i < p.nr; i++)
			if (!edge_cmp(&sorted[i - 1], &sorted[i]))
				unit_fail(t_, __FILE__, __LINE__, "round %d: duplicate child", round);
		free(sorted);
		profile_release(&p);
	}
}
