/* Unit tests for layout/: flamegraph.pl's flow over the sorted lines. */
#include "harness.h"

#include "layout/layout.h"
#include "profile/folded.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void load(struct profile *p, const char *text, bool events)
{
	profile_init(p);
	p->keep_events = events;
	struct folded_opts fo = { .max_warnings = -1 };
	folded_parse(p, "t", text, strlen(text), &fo, NULL);
}

static void build(struct layout *l, struct profile *p, const char *text, bool chart, double minwidth,
		  bool pct)
{
	load(p, text, chart);
	struct layout_opts o = { .flamechart = chart, .image_width = 1200, .minwidth = minwidth,
				 .minwidth_pct = pct };
	layout_build(l, p, &o);
}

/* Frames named `name`, in x order. */
static size_t find(const struct profile *p, const struct layout *l, const char *name,
		   const struct frame **out, size_t max)
{
	size_t k = 0;
	for (size_t i = 0; i < l->nr && k < max; i++)
		if (l->frames[i].node && !strcmp(profile_name(p, l->frames[i].node), name))
			out[k++] = &l->frames[i];
	return k;
}

TEST(layout_children_inside_parents)
{
	struct profile p;
	struct layout l;
	build(&l, &p, "a;b;c 3\na;b 2\na;d 5\ne 1\na;b;c;f 4\n", false, 0, false);
	CHECK(l.total == 15 && l.timemax == 15);
	CHECK_EQ_U64(l.depthmax, 4);
	for (size_t i = 0; i < l.nr; i++) {
		const struct frame *f = &l.frames[i];
		CHECK(f->etime >= f->stime);
		if (!f->depth) {
			CHECK(f->stime == 0 && f->etime == l.timemax);
			continue;
		}
		/* some frame one level down spans it, and is its trie parent */
		bool inside = false;
		for (size_t j = 0; j < l.nr; j++) {
			const struct frame *g = &l.frames[j];
			if (g->depth + 1 == f->depth && g->stime <= f->stime && f->etime <= g->etime &&
			    g->node == p.nodes[f->node].parent)
				inside = true;
		}
		CHECK(inside);
		/* sorted by depth, then start */
		if (i)
			CHECK(l.frames[i - 1].depth < f->depth ||
			      (l.frames[i - 1].depth == f->depth && l.frames[i - 1].stime <= f->stime));
	}
	const struct frame *b[2];
	REQUIRE(find(&p, &l, "b", b, 2) == 1);
	CHECK(b[0]->stime == 0 && b[0]->etime == 9); /* b: 2 + c 3 + f 4 */
	layout_release(&l);
	profile_release(&p);
}

TEST(layout_minwidth_prunes)
{
	struct profile p;
	struct layout l;
	/* 1180 px for 1000 samples: 1 sample = 1.18 px */
	build(&l, &p, "a;big 998\na;tiny 1\nb 1\n", false, 2, false);
	const struct frame *f[2];
	CHECK(find(&p, &l, "tiny", f, 2) == 0);
	CHECK(find(&p, &l, "b", f, 2) == 0);
	CHECK(find(&p, &l, "big", f, 2) == 1);
	CHECK_EQ_U64(l.depthmax, 2);
	layout_release(&l);
	profile_release(&p);
	build(&l, &p, "a;big 998\na;tiny 1\nb 1\n", false, 1, false);
	CHECK(find(&p, &l, "tiny", f, 2) == 1); /* 1.18 px >= 1 px */
	layout_release(&l);
	profile_release(&p);
	build(&l, &p, "a;big 900\na;small 99\nb 1\n", false, 10, true);
	CHECK(find(&p, &l, "small", f, 2) == 0); /* 9.9% < 10% */
	CHECK(find(&p, &l, "big", f, 2) == 1);
	layout_release(&l);
	profile_release(&p);
}

TEST(layout_flamechart_merges_only_adjacent)
{
	struct profile p;
	struct layout l;
	build(&l, &p, "a;b 1\na;b 1\na;c 1\na;b 1\n", true, 0, false);
	const struct frame *f[4];
	REQUIRE(find(&p, &l, "b", f, 4) == 2);
	CHECK(f[0]->stime == 0 && f[0]->etime == 2);
	CHECK(f[1]->stime == 3 && f[1]->etime == 4);
	REQUIRE(find(&p, &l, "a", f, 4) == 1);
	CHECK(f[0]->stime == 0 && f[0]->etime == 4);
	layout_release(&l);
	profile_release(&p);
	/* sorted (no flame chart): b merges */
	build(&l, &p, "a;b 1\na;b 1\na;c 1\na;b 1\n", false, 0, false);
	REQUIRE(find(&p, &l, "b", f, 4) == 1);
	CHECK(f[0]->etime - f[0]->stime == 3);
	layout_release(&l);
	profile_release(&p);
}

TEST(layout_sibling_order_splits_frames)
{
	/* flamegraph.pl sorts whole lines: "a;foo 1" < "a;foo.c 1" < "a;foo;x 1",
	 * so foo is drawn twice with foo.c between (sibling-order.tsv). */
	struct profile p;
	struct layout l;
	build(&l, &p, "a;foo;x 1\na;foo.c 1\na;foo 1\n", false, 0, false);
	const struct frame *f[3];
	REQUIRE(find(&p, &l, "foo", f, 3) == 2);
	CHECK(f[0]->stime == 0 && f[0]->etime == 1);
	CHECK(f[1]->stime == 2 && f[1]->etime == 3);
	REQUIRE(find(&p, &l, "foo.c", f, 3) == 1);
	CHECK(f[0]->stime == 1);
	layout_release(&l);
	profile_release(&p);
}

TEST(layout_differential_delta_is_exclusive)
{
	struct profile p;
	struct layout l;
	build(&l, &p, "m;a 10 30\nm;a;b 5 1\nm;c 4 4\n", false, 0, false);
	CHECK(l.differential);
	CHECK(l.total == 35);          /* widths follow the second column */
	CHECK(l.maxdelta == 20);
	const struct frame *f[2];
	REQUIRE(find(&p, &l, "a", f, 2) == 1);
	CHECK(f[0]->delta == 20);
	REQUIRE(find(&p, &l, "b", f, 2) == 1);
	CHECK(f[0]->delta == -4);
	REQUIRE(find(&p, &l, "m", f, 2) == 1);
	CHECK(f[0]->delta == 0);       /* no own line */
	layout_release(&l);
	profile_release(&p);
}

TEST(layout_total_widens_and_empty_input)
{
	struct profile p;
	struct layout l;
	load(&p, "a 10\n", false);
	struct layout_opts o = { .image_width = 1200, .minwidth = 0.1, .total = 40 };
	layout_build(&l, &p, &o);
	CHECK(l.total == 10 && l.timemax == 40);
	REQUIRE(l.nr == 2);
	CHECK(l.frames[0].etime == 40); /* the root spans the full width */
	CHECK(l.frames[1].etime == 10);
	layout_release(&l);
	profile_release(&p);
	load(&p, "", false);
	layout_build(&l, &p, &o);
	CHECK(l.total == 0 && l.nr == 0);
	layout_release(&l);
	profile_release(&p);
}

/* With integer counts, a graph with a minimum width orders only the wide
 * frames' lines (profile_flow_steps): its frames must be exactly those of
 * the full flow over every sorted line (minimum width 0) that are at least
 * that wide. Random profiles over names that sort around their own
 * terminators ("a" "a-" "a b" "ab": own lines and subtrees split), empty
 * frames, zero and differential counts. */
TEST(layout_pruned_flow_is_the_full_flow_pruned)
{
	static const char *names[] = { "a", "a-", "a b", "ab", "a.b", "b", "--", "-", "", "x_[k]", "zz" };
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	char *text = NULL;
	size_t cap = 0;
	for (int round = 0; round < 300; round++) {
		size_t n = 0;
		int lines = 1 + (int)(rng % 40);
		bool diff = rng % 5 == 0;
		for (int i = 0; i < lines; i++) {
			if (cap < n + 512) {
				cap = cap * 2 + 1024;
				text = realloc(text, cap);
			}
			rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
			int depth = 1 + (int)(rng % 6);
			for (int d = 0; d < depth; d++) {
				rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
				n += (size_t)sprintf(text + n, "%s%s", d ? ";" : "",
						     names[rng % (sizeof(names) / sizeof(*names))]);
			}
			static const unsigned counts[] = { 0, 1, 2, 3, 10, 100, 1000, 54321 };
			rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
			unsigned c = counts[rng % 8], before = counts[(rng >> 8) % 8];
			if (diff)
				n += (size_t)sprintf(text + n, " %u %u\n", before, c);
			else
				n += (size_t)sprintf(text + n, " %u\n", c);
		}
		text[n] = '\0';
		static const double widths[] = { 0.5, 2, 7, 40 };
		double minwidth = widths[round % 4];
		bool pct = round % 7 == 0;
		struct profile p0, p1;
		struct layout full, pruned;
		build(&full, &p0, text, false, 0, false);
		build(&pruned, &p1, text, false, pct ? minwidth / 10 : minwidth, pct);
		double min_time = pct ? full.timemax * minwidth / 10 / 100
				      : minwidth / ((1200 - 2 * LAYOUT_XPAD) / full.timemax);
		size_t k = 0;
		bool same = true;
		for (size_t i = 0; i < full.nr && full.total > 0; i++) {
			const struct frame *f = &full.frames[i];
			double w = f->depth ? f->etime - f->stime : full.total;
			if (w < min_time)
				continue;
			const struct frame *g = k < pruned.nr ? &pruned.frames[k] : NULL;
			k++;
			if (!g || g->node != f->node || g->depth != f->depth || g->stime != f->stime ||
			    g->etime != f->etime || g->delta != f->delta)
				same = false;
		}
		if (!same || k != pruned.nr || full.maxdelta != pruned.maxdelta || full.total != pruned.total) {
			CHECK(same && k == pruned.nr);
			fprintf(stderr, "# minwidth %g%s on:\n%s", minwidth, pct ? "/10 %" : "", text);
			round = 300;
		}
		layout_release(&full);
		layout_release(&pruned);
		profile_release(&p0);
		profile_release(&p1);
	}
	free(text);
}
