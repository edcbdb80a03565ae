/* Unit tests for render/palette: flamegraph.pl's colour formulas. Expected
 * values come from flamegraph.pl runs (the conformance TSVs and the
 * reference's worked examples). */
#include "harness.h"

#include "render/palette.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *rgb(struct rgb c)
{
	static char buf[4][32];
	static int k;
	char *b = buf[k++ & 3];
	snprintf(b, 32, "rgb(%u,%u,%u)", c.r, c.g, c.b);
	return b;
}

static struct rgb color(enum palette_id pal, enum palette_seed seed, const char *name)
{
	return palette_color(pal, seed, NULL, name, strlen(name));
}

TEST(perl_drand48_first_value)
{
	/* Values from Perl 5.36: srand(0); rand() and srand(97); rand(). */
	CHECK(fabs(palette_perl_rand_first(0) - 0.170828) < 1e-6);
	CHECK(fabs(palette_perl_rand_first(97) - 0.638652) < 1e-6);
}

TEST(default_palette_matches_flamegraph_pl)
{
	CHECK_STR(rgb(color(PAL_HOT, SEED_NAME, "a")), "rgb(236,146,35)");
	CHECK_STR(rgb(color(PAL_HOT, SEED_NAME, "")), "rgb(213,39,9)");      /* root */
	CHECK_STR(rgb(color(PAL_HOT, SEED_NAME, "main")), "rgb(243,179,42)");
	/* Code points, not bytes: "café" sums U+00E9. */
	CHECK_STR(rgb(color(PAL_HOT, SEED_NAME, "caf\xC3\xA9")), "rgb(233,130,31)");
	/* The annotation takes part in the colour (misc-default.tsv: the
	 * frame drawn as "foo" comes from "foo_[j]"). */
	CHECK_STR(rgb(color(PAL_HOT, SEED_NAME, "foo_[j]")), "rgb(233,131,31)");
	CHECK(strcmp(rgb(color(PAL_HOT, SEED_NAME, "foo")), "rgb(233,131,31)"));
	CHECK_STR(rgb(color(PAL_HOT, SEED_NAME, "a&b<c>\"d'")), "rgb(213,37,9)");
}

TEST(palettes_are_deterministic)
{
	for (int pal = PAL_HOT; pal < PAL_UNKNOWN; pal++) {
		struct rgb a = color((enum palette_id)pal, SEED_NAME, "some::function");
		struct rgb b = color((enum palette_id)pal, SEED_NAME, "some::function");
		CHECK(!memcmp(&a, &b, sizeof(a)));
		a = color((enum palette_id)pal, SEED_HASH, "java/lang/Thread:::run");
		b = color((enum palette_id)pal, SEED_HASH, "java/lang/Thread:::run");
		CHECK(!memcmp(&a, &b, sizeof(a)));
	}
}

TEST(java_palette_families)
{
	/* misc-java.tsv (flamegraph.pl --colors=java): green for JIT and
	 * java packages, aqua for inlined, red otherwise. */
	struct rgb c = color(PAL_JAVA, SEED_NAME, "java/lang/Thread:::run");
	CHECK(c.g >= 200 && c.r == c.b);             /* green */
	c = color(PAL_JAVA, SEED_NAME, "long_[i]");
	CHECK(c.g == c.b && c.g >= 165 && c.r < c.g); /* aqua */
	c = color(PAL_JAVA, SEED_NAME, "kernel_[k]");
	CHECK(c.b == 0 && c.r >= 190);               /* orange */
	c = color(PAL_JAVA, SEED_NAME, "main");
	CHECK(c.r >= 200 && c.g == c.b);             /* red */
	c = color(PAL_JAVA, SEED_NAME, "Foo::bar");
	CHECK(c.r == c.g && c.b <= 70);              /* yellow */
}

TEST(wall_palette_kinds)
{
	/* record --wall: hot, but for its three leaf frames (whole names). */
	struct rgb c = color(PAL_WALL, SEED_NAME, "[on-cpu]");
	CHECK(c.r >= 200 && c.g == c.b);                            /* red */
	c = color(PAL_WALL, SEED_NAME, "[off-cpu]");
	CHECK(c.r == c.g && c.r >= 80 && c.r <= 140 && c.b >= 190); /* io */
	c = color(PAL_WALL, SEED_NAME, "[runnable]");
	CHECK(c.r == c.b && c.r >= 190 && c.g < c.r);               /* purple */
	struct rgb a = color(PAL_WALL, SEED_NAME, "main"), b = color(PAL_HOT, SEED_NAME, "main");
	CHECK(!memcmp(&a, &b, sizeof(a)));
	a = color(PAL_WALL, SEED_NAME, "[off-cpu]x");
	b = color(PAL_HOT, SEED_NAME, "[off-cpu]x");
	CHECK(!memcmp(&a, &b, sizeof(a)));
	CHECK(palette_find("wall") == PAL_WALL);
}

TEST(python_palette_kinds)
{
	/* record with a CPython met: its frames green, the rest as hot. */
	const char *py[] = { "py_handler (app.py)", "Thread.run (threading.py)",
			     "_find_and_load (<frozen importlib._bootstrap>)", "[python]" };
	for (size_t i = 0; i < sizeof(py) / sizeof(py[0]); i++) {
		struct rgb c = color(PAL_PYTHON, SEED_NAME, py[i]), g = color(PAL_GREEN, SEED_NAME, py[i]);
		CHECK(!memcmp(&c, &g, sizeof(c)));
		CHECK(c.g > c.r && c.g > c.b);
	}
	struct rgb a = color(PAL_PYTHON, SEED_NAME, "_PyEval_EvalFrameDefault"),
		   b = color(PAL_HOT, SEED_NAME, "_PyEval_EvalFrameDefault");
	CHECK(!memcmp(&a, &b, sizeof(a)));
	a = color(PAL_PYTHON, SEED_NAME, "main.py"); /* not a frame's "(file.py)" */
	b = color(PAL_HOT, SEED_NAME, "main.py");
	CHECK(!memcmp(&a, &b, sizeof(a)));
	a = color(PAL_PYTHON, SEED_NAME, "do_syscall_64_[k]");
	b = color(PAL_ORANGE, SEED_NAME, "do_syscall_64_[k]");
	CHECK(!memcmp(&a, &b, sizeof(a)));
	CHECK(palette_find("python") == PAL_PYTHON);
}

TEST(runtime_palette_java_and_js)
{
	/* Java methods as HotSpot's map names them (after stackcollapse's
	 * rules), HotSpot's interpreter, V8's JS frames: green; native names
	 * that look close stay hot. */
	const char *rt[] = { "void Phases$Alpha.run", "long Work.fib", "java.lang.String[] K.<init>",
			     "void java.lang.Thread.run", "Interpreter", "JS:~fib /tmp/w.js:1:13",
			     "JS:*main /tmp/w.js:3:1", "LazyCompile:~f /a.js:1" };
	for (size_t i = 0; i < sizeof(rt) / sizeof(rt[0]); i++) {
		struct rgb c = color(PAL_PYTHON, SEED_NAME, rt[i]), g = color(PAL_GREEN, SEED_NAME, rt[i]);
		CHECK(!memcmp(&c, &g, sizeof(c)));
		CHECK(palette_runtime_frame(rt[i], strlen(rt[i])));
	}
	const char *native[] = { "JavaCalls::call_helper", "operator new", "std::vector<int, std::allocator<int> >::push_back",
				 "StubRoutines ", "Builtins_InterpreterEntryTrampoline", "node::Start", "start_thread",
				 "a b.", "a .b", "Interpreter2", "(anonymous namespace)::f", "x y.z()" };
	for (size_t i = 0; i < sizeof(native) / sizeof(native[0]); i++) {
		struct rgb a = color(PAL_PYTHON, SEED_NAME, native[i]), b = color(PAL_HOT, SEED_NAME, native[i]);
		CHECK(!memcmp(&a, &b, sizeof(a)));
		CHECK(!palette_runtime_frame(native[i], strlen(native[i])));
	}
}

TEST(hash_palette_values)
{
	/* namehash weights the first 3 characters and skips a module` prefix */
	uint32_t a[] = { 'a', 'b', 'c' };
	uint32_t m[] = { 'm', 'o', 'd', '`', 'a', 'b', 'c' };
	CHECK(palette_namehash(a, 3) == palette_namehash(m, 7));
	double v = palette_namehash(a, 3);
	CHECK(v >= 0 && v <= 1);
	CHECK(palette_namehash(NULL, 0) == 1);
}

TEST(differential_scale)
{
	CHECK_STR(rgb(palette_diff(10, 10)), "rgb(255,0,0)");
	CHECK_STR(rgb(palette_diff(-10, 10)), "rgb(0,0,255)");
	CHECK_STR(rgb(palette_diff(0, 10)), "rgb(255,255,255)");
	CHECK_STR(rgb(palette_diff(5, 10)), "rgb(255,105,105)");
	CHECK_STR(rgb(palette_diff(-5, 10)), "rgb(105,105,255)");
}

TEST(unknown_palette_is_black)
{
	CHECK(palette_find("nosuch") == PAL_UNKNOWN);
	CHECK_STR(rgb(color(PAL_UNKNOWN, SEED_NAME, "x")), "rgb(0,0,0)");
	CHECK(palette_find("aqua") == PAL_AQUA);
}

TEST(backgrounds)
{
	char t[8], b[8];
	CHECK(palette_background(NULL, PAL_HOT, t, b) && !strcmp(t, "#eeeeee") && !strcmp(b, "#eeeeb0"));
	CHECK(palette_background(NULL, PAL_MEM, t, b) && !strcmp(b, "#e0ffe0"));
	CHECK(palette_background(NULL, PAL_IO, t, b) && !strcmp(b, "#e0e0ff"));
	CHECK(palette_background(NULL, PAL_RED, t, b) && !strcmp(b, "#e8e8e8"));
	CHECK(palette_background("#123abc", PAL_HOT, t, b) && !strcmp(t, "#123abc") && !strcmp(b, "#123abc"));
	CHECK(!palette_background("#12\"><x", PAL_HOT, t, b));
	CHECK(!palette_background("pink", PAL_HOT, t, b));
}

TEST(palette_map_round_trip)
{
	char dir[] = "/tmp/scorch-palette-XXXXXX";
	REQUIRE(mkdtemp(dir));
	char path[64];
	snprintf(path, sizeof(path), "%s/palette.map", dir);
	struct palette_map *m = palette_map_new();
	palette_map_put(m, "zeta", 4, (struct rgb){ 1, 2, 3 });
	palette_map_put(m, "", 0, (struct rgb){ 4, 5, 6 });
	palette_map_put(m, "alpha->x", 8, (struct rgb){ 7, 8, 9 });
	REQUIRE(palette_map_save(m, path) == 0);
	palette_map_free(m);
	FILE *f = fopen(path, "r");
	REQUIRE(f);
	char buf[256] = { 0 };
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* sorted by name; the empty (root) name first */
	CHECK_STR(buf, "->rgb(4,5,6)\nalpha->x->rgb(7,8,9)\nzeta->rgb(1,2,3)\n");
	m = palette_map_new();
	size_t ignored = 0;
	CHECK(palette_map_load(m, path, &ignored) == 0);
	struct rgb c;
	CHECK(palette_map_get(m, "zeta", 4, &c) && c.r == 1 && c.g == 2 && c.b == 3);
	CHECK(palette_map_get(m, "", 0, &c) && c.r == 4);
	/* "NAME->rgb" splits at the first "->", as flamegraph.pl */
	CHECK(!palette_map_get(m, "alpha->x", 8, &c));
	CHECK(ignored == 1);
	palette_map_free(m);
	unlink(path);
	rmdir(dir);
}
