/* Unit tests for profile/time_cells: counts per (20 ms cell, leaf), cell 0
 * at the first sample's second, cells moving when an earlier sample
 * comes, and the table carried by merges, filters and reversal. The
 * expectations are sums computed here from the samples themselves. */
#include "harness.h"

#include "profile/ops.h"
#include "profile/profile.h"
#include "profile/time_cells.h"
#include "render/html_time.h"

#include <stdlib.h>
#include <string.h>

#define S TIME_SECOND_NS
#define MS 1000000ull

static node_t leaf(struct profile *p, const char *a, const char *b)
{
	node_t n = profile_push_str(p, PROFILE_ROOT, a, strlen(a));
	return profile_push_str(p, n, b, strlen(b));
}

/* The count of (cell, node), or 0. */
static uint64_t at(const struct profile *p, uint32_t cell, node_t node)
{
	uint64_t sum = 0;
	for (uint32_t i = 0; i < p->time->nr; i++)
		if (p->time->entries[i].cell == cell && p->time->entries[i].node == node)
			sum += p->time->entries[i].count;
	return sum;
}

static uint64_t cells_total(const struct profile *p)
{
	uint64_t sum = 0;
	for (uint32_t i = 0; i < p->time->nr; i++)
		sum += p->time->entries[i].count;
	return sum;
}

TEST(time_cells_absent_unless_asked)
{
	struct profile p;
	profile_init(&p);
	node_t a = leaf(&p, "x", "a");
	profile_count_at(&p, a, 1, 5 * S);
	CHECK(p.time == NULL);
	CHECK(profile_self(&p, a, 0) == 1);
	profile_release(&p);
}

TEST(time_cells_cells_and_origin)
{
	struct profile p;
	profile_init(&p);
	profile_keep_time(&p);
	node_t a = leaf(&p, "x", "a"), b = leaf(&p, "x", "b");
	uint64_t t0 = 1000 * S + 730 * MS; /* cell 0 starts at 1000 s */
	profile_count_at(&p, a, 1, t0);            /* 730 ms: cell 36 */
	profile_count_at(&p, a, 1, t0 + 5 * MS);   /* 735 ms: cell 36 */
	profile_count_at(&p, b, 3, t0 + 10 * MS);  /* 740 ms: cell 37 */
	profile_count_at(&p, a, 1, t0 + 2 * S);    /* 2.730 s: cell 136 */
	const struct time_cells *t = p.time;
	CHECK_EQ_U64(t->origin, 1000 * S);
	CHECK_EQ_U64(t->first, t0);
	CHECK_EQ_U64(t->last, t0 + 2 * S);
	CHECK_EQ_U64(t->nr, 3);
	CHECK_EQ_U64(at(&p, 36, a), 2);
	CHECK_EQ_U64(at(&p, 37, b), 3);
	CHECK_EQ_U64(at(&p, 136, a), 1);
	CHECK_EQ_U64(t->cells, 137);
	CHECK_EQ_U64(time_cells_seconds(t), 3);
	CHECK(!t->epoch_known);
	CHECK(profile_self(&p, a, 0) == 3 && profile_self(&p, b, 0) == 3);
	/* an earlier sample: cell 0 moves back to its second */
	profile_count_at(&p, b, 1, 998 * S + 10 * MS);
	CHECK_EQ_U64(t->origin, 998 * S);
	CHECK_EQ_U64(t->first, 998 * S + 10 * MS);
	CHECK_EQ_U64(at(&p, 100 + 36, a), 2);
	CHECK_EQ_U64(at(&p, 0, b), 1);
	CHECK_EQ_U64(t->cells, 237);
	profile_count_at(&p, a, 1, t0 + 1 * MS); /* found again after the move */
	CHECK_EQ_U64(at(&p, 136, a), 3);
	CHECK_EQ_U64(t->nr, 4);
	struct time_entry *e = time_cells_sorted(t);
	for (uint32_t i = 1; i < t->nr; i++)
		CHECK(e[i - 1].cell < e[i].cell || (e[i - 1].cell == e[i].cell && e[i - 1].node < e[i].node));
	free(e);
	profile_release(&p);
}

TEST(time_cells_merge_rebases)
{
	struct profile a, b;
	profile_init(&a);
	profile_init(&b);
	profile_keep_time(&a);
	profile_keep_time(&b);
	time_cells_set_epoch(&b, 7);
	profile_count_at(&a, leaf(&a, "p", "f"), 2, 50 * S + 30 * MS);
	leaf(&b, "q", "zzz"); /* other node ids in b */
	profile_count_at(&b, leaf(&b, "p", "f"), 1, 49 * S + 990 * MS);
	profile_count_at(&b, leaf(&b, "p", "g"), 4, 51 * S);
	profile_merge(&a, &b);
	node_t f = leaf(&a, "p", "f"), g = leaf(&a, "p", "g");
	CHECK_EQ_U64(a.time->origin, 49 * S);
	CHECK(a.time->epoch_known && a.time->epoch_offset == 7);
	CHECK_EQ_U64(at(&a, 50 + 1, f), 2);
	CHECK_EQ_U64(at(&a, 49, f), 1);
	CHECK_EQ_U64(at(&a, 100, g), 4);
	CHECK_EQ_U64(a.time->first, 49 * S + 990 * MS);
	CHECK_EQ_U64(a.time->last, 51 * S);
	CHECK_EQ_U64(cells_total(&a), 7);
	profile_release(&a);
	profile_release(&b);
}

TEST(time_cells_filter_and_reverse)
{
	struct profile p, q, r;
	profile_init(&p);
	profile_keep_time(&p);
	profile_count_at(&p, leaf(&p, "p", "keep"), 1, 3 * S);
	profile_count_at(&p, leaf(&p, "p", "drop"), 5, 3 * S + 100 * MS);
	profile_count_at(&p, leaf(&p, "p", "keep"), 2, 4 * S);
	regex_t ex;
	REQUIRE(stack_filter_compile(&ex, "drop", "--exclude") == 0);
	struct stack_filter flt = { NULL, &ex };
	profile_init(&q);
	profile_filter(&q, &p, &flt);
	REQUIRE(q.time != NULL);
	CHECK_EQ_U64(cells_total(&q), 3);
	CHECK_EQ_U64(at(&q, 0, leaf(&q, "p", "keep")), 1);
	CHECK_EQ_U64(at(&q, 50, leaf(&q, "p", "keep")), 2);
	profile_init(&r);
	profile_reverse(&r, &p);
	REQUIRE(r.time != NULL);
	CHECK_EQ_U64(at(&r, 5, leaf(&r, "drop", "p")), 5);
	CHECK_EQ_U64(cells_total(&r), 8);
	regfree(&ex);
	profile_release(&p);
	profile_release(&q);
	profile_release(&r);
}

TEST(time_cells_span_at_most_a_day)
{
	struct profile p;
	profile_init(&p);
	profile_keep_time(&p);
	node_t a = leaf(&p, "x", "a");
	profile_count_at(&p, a, 1, 100000 * S);
	profile_count_at(&p, a, 1, 100000 * S + 86399 * S); /* the day's last second */
	CHECK(!p.time->overflow);
	CHECK_EQ_U64(cells_total(&p), 2);
	profile_count_at(&p, a, 1, 100000 * S + 86400 * S); /* past it: left out */
	profile_count_at(&p, a, 1, 1 * S);                  /* long before: left out */
	profile_count_at(&p, a, 1, UINT64_MAX - 5);
	CHECK(p.time->overflow);
	CHECK_EQ_U64(cells_total(&p), 2);
	CHECK_EQ_U64(p.time->origin, 100000 * S);
	CHECK_EQ_U64(p.time->last, 100000 * S + 86399 * S);
	CHECK(profile_self(&p, a, 0) == 5); /* the profile still counts them */
	profile_release(&p);
}

/* A varint of the heat map's data (render/varint.h's layout). */
static uint64_t get_varint(const unsigned char **p)
{
	uint64_t x = 0;
	for (unsigned shift = 0;; shift += 7) {
		unsigned char b = *(*p)++;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return x;
	}
}

TEST(time_cells_counts_past_2_53_exact)
{
	/* 2^53 + 1 and 2^63 + 7 cannot pass through a double: the table, its
	 * merge and the HTML heat map's data keep them exact. */
	const uint64_t big = (1ull << 53) + 1, bigger = (1ull << 63) + 7;
	struct profile p;
	profile_init(&p);
	profile_keep_time(&p);
	node_t a = leaf(&p, "x", "a"), b = leaf(&p, "x", "b");
	profile_count_at(&p, a, big, 7 * S);
	profile_count_at(&p, a, 2, 7 * S + 5 * MS);
	profile_count_at(&p, b, bigger, 8 * S);
	CHECK(!p.time->overflow);
	CHECK(!p.overflow && !p.fractional);
	CHECK_EQ_U64(at(&p, 0, a), big + 2);
	CHECK_EQ_U64(at(&p, 50, b), bigger);
	CHECK_EQ_U64(p.nodes[a].self[1].u, big + 2);

	struct profile m;
	profile_init(&m);
	REQUIRE(profile_merge(&m, &p));
	CHECK_EQ_U64(at(&m, 0, leaf(&m, "x", "a")), big + 2);
	CHECK_EQ_U64(at(&m, 50, leaf(&m, "x", "b")), bigger);

	struct bytes v = { 0 };
	uint32_t entries;
	uint32_t lines = html_time_encode(&v, &p, 1, &entries);
	CHECK_EQ_U64(lines, 2);
	REQUIRE(entries == 2);
	/* cell 0: one line (a is line 0), then cell 50: one line (b, line 1) */
	const unsigned char *q = v.b;
	CHECK_EQ_U64(get_varint(&q), 0);
	CHECK_EQ_U64(get_varint(&q), 1);
	CHECK_EQ_U64(get_varint(&q), 0);
	CHECK_EQ_U64(get_varint(&q), big + 2);
	CHECK_EQ_U64(get_varint(&q), 50);
	CHECK_EQ_U64(get_varint(&q), 1);
	CHECK_EQ_U64(get_varint(&q), 1);
	CHECK_EQ_U64(get_varint(&q), bigger);
	CHECK(q == v.b + v.n);
	free(v.b);
	profile_release(&m);
	profile_release(&p);
}

/* Two tables on the epoch through clocks of their own (perf.data of two
 * boots): the same wall-clock time lands in the same cell. a: epoch =
 * its clock + 100 s; b: + 90 s, so b's 61.5 s is a's 51.5 s. */
TEST(time_cells_merge_moves_clocks)
{
	struct profile a, b;
	profile_init(&a);
	profile_init(&b);
	profile_keep_time(&a);
	profile_keep_time(&b);
	time_cells_set_epoch(&a, 100 * (int64_t)S);
	time_cells_set_epoch(&b, 90 * (int64_t)S);
	profile_count_at(&a, leaf(&a, "p", "f"), 2, 50 * S + 30 * MS); /* epoch 150.03 */
	profile_count_at(&b, leaf(&b, "p", "f"), 3, 61 * S + 530 * MS); /* epoch 151.53 */
	profile_merge(&a, &b);
	node_t f = leaf(&a, "p", "f");
	CHECK(a.time->epoch_known && a.time->epoch_offset == 100 * (int64_t)S);
	CHECK_EQ_U64(a.time->origin, 50 * S);
	CHECK_EQ_U64(at(&a, 1, f), 2);
	CHECK_EQ_U64(at(&a, 50 + 26, f), 3); /* 51.53 s: second 1, row 26 */
	CHECK_EQ_U64(a.time->last, 51 * S + 530 * MS);
	CHECK_EQ_U64(cells_total(&a), 5);
	profile_release(&a);
	profile_release(&b);
}
