/* Symbol tables: perf's fix-ups, the replayed red-black tree, lookups. */
#include "harness.h"
#include "symbolize/demangle.h"
#include "symbolize/symtab.h"

#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX

/* Black height of the subtree at n, or -1 when a rule is broken. */
static int check_node(const struct symtab *t, uint32_t n, uint32_t parent, uint64_t lo, uint64_t hi)
{
	if (n == NIL)
		return 1;
	const struct rb_links *l = &t->rb[n];
	uint64_t start = t->v[n].start;
	if (l->parent != parent || start < lo || start > hi)
		return -1;
	if (!l->black && ((l->child[0] != NIL && !t->rb[l->child[0]].black) ||
			  (l->child[1] != NIL && !t->rb[l->child[1]].black)))
		return -1; /* red node with a red child */
	int a = check_node(t, l->child[0], n, lo, start);
	int b = check_node(t, l->child[1], n, start, hi);
	if (a < 0 || b < 0 || a != b)
		return -1;
	return a + l->black;
}

static size_t count_nodes(const struct symtab *t, uint32_t n)
{
	return n == NIL ? 0 : 1 + count_nodes(t, t->rb[n].child[0]) + count_nodes(t, t->rb[n].child[1]);
}

/* In-order walk: starts ascending, equal starts in insertion order (where
 * perf's descent puts them: to the right). False when out of order. */
static bool in_order(const struct symtab *t, uint32_t n, uint32_t *last)
{
	if (n == NIL)
		return true;
	if (!in_order(t, t->rb[n].child[0], last))
		return false;
	if (*last != NIL && (t->v[*last].start > t->v[n].start ||
			     (t->v[*last].start == t->v[n].start && *last > n)))
		return false;
	*last = n;
	return in_order(t, t->rb[n].child[1], last);
}

TEST(symtab_tree_stays_a_red_black_tree)
{
	struct symtab t;
	symtab_init(&t);
	unsigned seed = 12345;
	/* many duplicates (erased by the fix-up) and overlaps (tree lookups) */
	for (int i = 0; i < 3000; i++) {
		seed = seed * 1103515245u + 12345u;
		uint64_t start = (seed >> 8) % 2000 * 16;
		char name[32];
		int n = snprintf(name, sizeof(name), "f%d", i);
		symtab_add(&t, start, (seed >> 4) % 3 ? 8 : 40, (int)(seed % 3), name, (size_t)n, (size_t)n, 0);
	}
	symtab_finish(&t, false);
	for (int i = 0; i < 200; i++) /* added after the fix-up, like PLT entries */
		symtab_add(&t, 32000 + (uint64_t)i * 16, 0, SYM_BIND_GLOBAL, "p@plt", 5, 5, 0);
	/* a lookup inside an overlap builds the exact tree */
	uint64_t probe = 0;
	for (size_t i = 0; i < t.nr_at_finish && !probe; i++)
		for (size_t j = i + 1; j < t.nr_at_finish; j++)
			if (!t.dead[i] && !t.dead[j] && t.v[i].start < t.v[j].start &&
			    t.v[j].start < t.v[i].end) {
				probe = t.v[j].start;
				break;
			}
	REQUIRE(probe);
	CHECK(symtab_find(&t, probe) != NULL);
	REQUIRE(t.tree_built);
	CHECK(t.rb[t.root].black);
	CHECK(check_node(&t, t.root, NIL, 0, UINT64_MAX) > 0);
	uint32_t last = NIL;
	CHECK(in_order(&t, t.root, &last));
	CHECK_EQ_U64(count_nodes(&t, t.root), t.nr - t.nr_erased);
	CHECK_EQ_U64(t.live, t.nr - t.nr_erased);
	symtab_release(&t);
}

TEST(symtab_lookups_match_a_linear_scan)
{
	struct symtab t;
	symtab_init(&t);
	/* non-overlapping symbols with gaps; zero sizes extend to the next */
	for (int i = 0; i < 500; i++) {
		uint64_t start = 1000 + (uint64_t)i * 100;
		uint64_t size = i % 5 == 0 ? 0 : 60;
		symtab_add(&t, start, size, SYM_BIND_GLOBAL, "f", 1, 1, 0);
	}
	symtab_finish(&t, false);
	for (uint64_t a = 900; a < 1000 + 500 * 100 + 200; a += 7) {
		const struct symbol *want = NULL;
		for (size_t i = 0; i < t.nr; i++)
			if (t.v[i].start <= a && a < t.v[i].end)
				want = &t.v[i];
		CHECK(symtab_find(&t, a) == want);
	}
	/* zero-sized symbols reach the next one; sized ones keep their size */
	CHECK_EQ_U64(t.v[0].end, t.v[1].start);
	CHECK_EQ_U64(t.v[1].end, t.v[1].start + 60);
	CHECK(!t.tree_built); /* nothing overlaps: binary search only */
	symtab_release(&t);
	/* two clusters far apart (the index's buckets are mostly empty) */
	symtab_init(&t);
	for (int i = 0; i < 300; i++) {
		uint64_t start = i < 150 ? 0x1000 + (uint64_t)i * 16 : 0x7f0000000000 + (uint64_t)i * i * 8;
		symtab_add(&t, start, 8, SYM_BIND_GLOBAL, "g", 1, 1, 0);
	}
	symtab_finish(&t, false);
	for (size_t k = 0; k < 6 * t.nr; k++) { /* around each start, and between */
		static const int64_t around[] = { -1, 0, 7, 8, 9, 1000 };
		uint64_t a = t.v[k / 6].start + (uint64_t)around[k % 6];
		const struct symbol *want = NULL;
		for (size_t i = 0; i < t.nr; i++)
			if (t.v[i].start <= a && a < t.v[i].end)
				want = &t.v[i];
		CHECK(symtab_find(&t, a) == want);
	}
	CHECK(symtab_find(&t, 0xfff) == NULL);
	CHECK(symtab_find(&t, UINT64_MAX - 1) == NULL);
	symtab_release(&t);
}

TEST(symtab_duplicates_keep_perfs_choice)
{
	struct symtab t;
	symtab_init(&t);
	/* same address: weak loses to global, then fewer '_' wins, then the
	 * longer name, then the first one */
	symtab_add(&t, 0x100, 16, SYM_BIND_WEAK, "weakling", 8, 8, 0);
	symtab_add(&t, 0x100, 16, SYM_BIND_GLOBAL, "__libc_free", 11, 11, 2);
	symtab_add(&t, 0x100, 16, SYM_BIND_GLOBAL, "free", 4, 4, 0);
	symtab_add(&t, 0x100, 16, SYM_BIND_GLOBAL, "cfree", 5, 5, 0);
	symtab_add(&t, 0x200, 16, SYM_BIND_GLOBAL, "aaa", 3, 3, 0);
	symtab_add(&t, 0x200, 16, SYM_BIND_GLOBAL, "bbb", 3, 3, 0);
	/* kallsyms-style zero sizes: the last of equal addresses survives */
	symtab_add(&t, 0x300, 0, SYM_BIND_GLOBAL, "first", 5, 5, 0);
	symtab_add(&t, 0x300, 0, SYM_BIND_GLOBAL, "second", 6, 6, 0);
	symtab_add(&t, 0x400, 16, SYM_BIND_GLOBAL, "after", 5, 5, 0);
	/* duplicates at the table's last start too */
	symtab_add(&t, 0x500, 16, SYM_BIND_GLOBAL, "longer_last", 11, 11, 0);
	symtab_add(&t, 0x500, 16, SYM_BIND_GLOBAL, "last", 4, 4, 0);
	symtab_finish(&t, false);
	struct symbol *s = symtab_find(&t, 0x104);
	REQUIRE(s);
	CHECK_STR(symtab_name(&t, s), "cfree");
	s = symtab_find(&t, 0x200);
	REQUIRE(s);
	CHECK_STR(symtab_name(&t, s), "aaa");
	s = symtab_find(&t, 0x3ff);
	REQUIRE(s);
	CHECK_STR(symtab_name(&t, s), "second");
	CHECK(symtab_find(&t, 0x210) == NULL); /* gap after a sized symbol */
	s = symtab_find(&t, 0x508);
	REQUIRE(s);
	CHECK_STR(symtab_name(&t, s), "longer_last");
	CHECK_EQ_U64(t.nr_sorted, 5); /* one per start */
	CHECK(!t.tree_built);         /* so nothing overlaps */
	symtab_release(&t);
}

TEST(demangle_like_perf)
{
	/* libstdc++ (build-essential, which scripts/setup installs) demangles:
	 * none found is a failure */
	char *d = demangle("_ZN4work6stage16shapesEi", 24);
	REQUIRE(d != NULL);
	/* perf prints C++ names without parameter lists */
	CHECK_STR(d, "work::stage1::shapes");
	free(d);
	CHECK(demangle("main", 4) == NULL);
	d = demangle("_ZdlPvm", 7);
	CHECK_STR(d, "operator delete");
	free(d);
}

TEST(demangle_bounded)
{
	/* A Rust v0 name whose back references libiberty expands without end
	 * (gigabytes over minutes, found by tests/fuzz/fuzz_demangle.c): left
	 * mangled once the answer passes 1 MiB. A real v0 name still reads. */
	static const char slow[] = "_RINvCsen_08rustc_s_ouRFGetxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxitB_orspr";
	char *d = demangle("_RNvCs1234_7mycrate3foo", 23);
	if (!d) {
		t_->skip = "no Rust demangler (libbfd) found";
		return;
	}
	CHECK_STR(d, "mycrate::foo");
	free(d);
	CHECK(demangle(slow, sizeof(slow) - 1) == NULL);
}

/* Mangled names whose demangled forms order differently by leading '_' and
 * length than the raw names do. */
static const char *const mangled_pool[] = {
	"_ZN3foo3barEv",      "_ZN1a1bEv",	   "_ZN5__foo1xEv",   "_Z3fooi",
	"_ZN9__gnu_cxx3fooEv", "_ZNK3Foo3getEv",   "_ZN3FooC1Ev",     "_ZN3FooC2Ev",
	"_ZN3FooD1Ev",	       "_ZN3FooD2Ev",	   "__libc_free",     "free",
	"_ZN2ab2cdEv",	       "_ZN4abcd1eEv",	   "_ZN1x2__3fooEv",  "_Z1fv",
};

/* The same shape, colours and extents; the same symbol at each node except
 * where the lazy table's node still stands for an undecided group. */
static bool same_tree(struct symtab *a, uint32_t na, struct symtab *b, uint32_t nb)
{
	if (na == NIL || nb == NIL)
		return na == nb;
	const struct rb_links *x = &a->rb[na], *y = &b->rb[nb];
	if (x->black != y->black || a->v[na].start != b->v[nb].start ||
	    symtab_node_end(a, na) != symtab_node_end(b, nb) || (!x->stand_in && na != nb))
		return false;
	return same_tree(a, x->child[0], b, y->child[0]) && same_tree(a, x->child[1], b, y->child[1]);
}

/* One symbol table filled with raw names (symtab_add_held or
 * symtab_add_mangled: perf's choice among duplicates is made when a lookup
 * needs it) and one with the
 * names demangled up front: every lookup, and the exact tree with its
 * erasures, must agree. */
TEST(symtab_deferred_duplicates_match_eager_choice)
{
	char *probe = demangle("_ZN3foo3barEv", 13);
	REQUIRE(probe != NULL); /* libstdc++ demangles (demangle_like_perf) */
	free(probe);
	const size_t npool = sizeof(mangled_pool) / sizeof(mangled_pool[0]);
	unsigned seed = 777;
	int trees = 0, pending_seen = 0;
	for (int round = 0; round < 300; round++) {
		struct symtab lazy, eager;
		symtab_init(&lazy);
		symtab_init(&eager);
		eager.decide_every_erase = true; /* perf's own steps */
		int nsym = 5 + round % 40;
		for (int i = 0; i < nsym; i++) {
			seed = seed * 1103515245u + 12345u;
			uint64_t start = 0x1000 + (seed >> 9) % 12 * 0x20;
			static const uint64_t sizes[] = { 0x20, 0x20, 0x20, 0x10, 0, 0x50 };
			uint64_t size = sizes[(seed >> 5) % (round % 3 ? 4 : 6)];
			int bind = (int)((seed >> 13) % (round % 2 ? 1 : 3));
			const char *raw = mangled_pool[(seed >> 17) % npool];
			if (round % 4 < 2) /* names read in place, or copied */
				symtab_add_held(&lazy, start, size, bind, raw, true);
			else
				symtab_add_mangled(&lazy, start, size, bind, raw, strlen(raw));
			char *dm = demangle(raw, strlen(raw));
			const char *name = dm ? dm : raw;
			unsigned us = 0;
			while (name[us] == '_')
				us++;
			symtab_add(&eager, start, size, bind, name, strlen(name), strlen(name), us);
			free(dm);
		}
		symtab_finish(&lazy, false);
		symtab_finish(&eager, false);
		for (size_t i = 0; i < lazy.nr; i++)
			pending_seen += lazy.v[i].pending;
		/* symbols added after the fix-up (PLT entries, a stopped .dynsym
		 * pass): on starts already there too, and in index order not
		 * sorted; inserted by neighbours here, by descents there */
		for (int i = 0; i < round % 7; i++) {
			seed = seed * 1103515245u + 12345u;
			uint64_t start = 0x1000 + (seed >> 9) % 12 * 0x20 + (seed >> 3) % 2 * 0x10;
			uint64_t size = (seed >> 7) % 3 ? 0x20 : 0;
			const char *raw = mangled_pool[(seed >> 17) % npool];
			symtab_add(&lazy, start, size, SYM_BIND_GLOBAL, raw, strlen(raw), strlen(raw), 0);
			symtab_add(&eager, start, size, SYM_BIND_GLOBAL, raw, strlen(raw), strlen(raw), 0);
		}
		/* a few lookups first (deciding some groups), then all of them */
		for (int pass = 0; pass < 2; pass++) {
			for (uint64_t a = 0xff0; a < 0x1000 + 14 * 0x20; a += pass ? 1 : 0x1d) {
				struct symbol *x = symtab_find(&lazy, a), *y = symtab_find(&eager, a);
				REQUIRE((x == NULL) == (y == NULL));
				if (x) {
					CHECK_EQ_U64(x - lazy.v, y - eager.v);
					CHECK_STR(symtab_name(&lazy, x), symtab_name(&eager, y));
				}
			}
		}
		CHECK(lazy.tree_built == eager.tree_built);
		if (lazy.tree_built) {
			trees++;
			CHECK_EQ_U64(lazy.nr_erased, eager.nr_erased);
			CHECK(same_tree(&lazy, lazy.root, &eager, eager.root));
		}
		symtab_release(&lazy);
		symtab_release(&eager);
	}
	CHECK(trees > 20);        /* overlaps: the exact tree was compared */
	CHECK(pending_seen > 100); /* and choices were really deferred */
}

/* Lookups are remembered, but a symbol added later (perf's PLT entries)
 * is found, also by symtab_bounds' preparation. */
TEST(symtab_remembered_lookups_follow_later_symbols)
{
	struct symtab t;
	symtab_init(&t);
	symtab_add(&t, 0x100, 0x10, SYM_BIND_GLOBAL, "a", 1, 1, 0);
	symtab_finish(&t, false);
	CHECK(symtab_find(&t, 0x200) == NULL);
	CHECK(symtab_find(&t, 0x200) == NULL);
	symtab_add(&t, 0x200, 0x10, SYM_BIND_GLOBAL, "b@plt", 5, 5, 0);
	uint64_t lo, hi;
	REQUIRE(symtab_bounds(&t, &lo, &hi));
	CHECK_EQ_U64(hi, 0x210);
	struct symbol *s = symtab_find(&t, 0x200);
	REQUIRE(s);
	CHECK_STR(symtab_name(&t, s), "b@plt");
	CHECK_STR(symtab_name(&t, symtab_find(&t, 0x105)), "a");
	symtab_release(&t);
}
