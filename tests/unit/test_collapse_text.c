/* Unit tests of the subtle parts of the text collapsers: the Rust symbol
 * repair, the JSON reader, number parsing, and a few format rules checked
 * on tiny inputs through the format table. Expected values are worked out
 * by hand from the reference tools' documented rules. */
#include "harness.h"

#include "base/out.h"
#include "collapse/collapse.h"
#include "collapse/common.h"
#include "collapse/json.h"
#include "profile/folded.h"

#include <math.h>
#include <stdlib.h>

/* Collapse `text` with format `fmt`; returns the folded output (malloc'd)
 * or NULL when the parse failed. */
static char *collapse(const char *fmt, const char *text, const struct collapse_opts *o)
{
	static const struct collapse_opts none;
	const struct collapse_format *f = collapse_find(fmt);
	if (!f)
		return NULL;
	struct profile p;
	profile_init(&p);
	struct collapse_source src = { "test", text, strlen(text) };
	char *res = NULL;
	if (f->parse(&p, &src, o ? o : &none) == 0) {
		struct out *out = out_open_mem();
		folded_write(&p, out);
		size_t len;
		res = out_mem_detach(out, &len); /* frees out */
	}
	profile_release(&p);
	return res;
}

#define CHECK_COLLAPSE(fmt, in, opts, want)              \
	do {                                             \
		char *got_ = collapse(fmt, in, opts);    \
		CHECK_STR(got_, want);                   \
		free(got_);                              \
	} while (0)

static const char *rust(const char *sym, struct cx_buf *b)
{
	b->n = 0;
	if (!cx_fix_rust_symbol(sym, strlen(sym), b))
		return "(unchanged)";
	return b->n ? b->s : "";
}

TEST(collapse_rust_symbol_repair)
{
	struct cx_buf b = { 0 };
	CHECK_STR(rust("_$LT$grep_searcher..searcher..glue..ReadByLine$LT$$u27$s$C$$u20$M$C$$u20$R$C$$u20$S$GT$$GT$::run::h30ecedc997ad7e32", &b),
		  "<grep_searcher::searcher::glue::ReadByLine<'s, M, R, S>>::run");
	CHECK_STR(rust("std::rt::lang_start::h0123456789abcdef", &b), "std::rt::lang_start");
	CHECK_STR(rust("plain_c_function", &b), "(unchanged)");
	CHECK_STR(rust("almost::h0123456789abcdeg", &b), "(unchanged)"); /* not hex */
	CHECK_STR(rust("a$BAD$b::h0123456789abcdef", &b), "a$BAD$b");      /* unknown escape kept */
	CHECK_STR(rust("x.y::h0123456789abcdef", &b), "x.y");
	cx_buf_release(&b);
}

TEST(collapse_parse_f64_like_rust)
{
	double v;
	CHECK(cx_parse_f64("1.5", 3, &v) && v == 1.5);
	CHECK(cx_parse_f64("-2e3", 4, &v) && v == -2000);
	CHECK(cx_parse_f64(".5", 2, &v) && v == 0.5);
	CHECK(cx_parse_f64("5.", 2, &v) && v == 5);
	CHECK(cx_parse_f64("inf", 3, &v) && isinf(v));
	CHECK(cx_parse_f64("NaN", 3, &v) && isnan(v));
	CHECK(!cx_parse_f64("", 0, &v));
	CHECK(!cx_parse_f64(" 1", 2, &v));
	CHECK(!cx_parse_f64("0x10", 4, &v)); /* strtod would take it */
	CHECK(!cx_parse_f64("1e", 2, &v));
	CHECK(!cx_parse_f64("INVALID TIME", 12, &v));
}

TEST(collapse_json_reader)
{
	struct json_doc d;
	const char *text = "{\"a\":[1,-2.5e1,\"x\\u00e9\\ud83d\\ude00\\n\"],\"b\":{\"c\":true,\"d\":null},\"a\":0}";
	REQUIRE(json_parse(&d, "t", text, strlen(text)) == 0);
	json_id a = json_get(&d, d.root, "a");
	CHECK(json_is(&d, a, JSON_NUMBER)); /* the last of a repeated key */
	json_id arr = d.v[d.root].first;
	REQUIRE(json_is(&d, arr, JSON_ARRAY));
	CHECK_EQ_U64(d.v[arr].count, 3);
	json_id n1 = d.v[arr].first, n2 = d.v[n1].next, s = d.v[n2].next;
	CHECK(d.v[n1].num == 1 && d.v[n2].num == -25);
	CHECK_STR(d.v[s].str, "x\xc3\xa9\xf0\x9f\x98\x80\n");
	CHECK(json_is(&d, json_get(&d, json_get(&d, d.root, "b"), "c"), JSON_TRUE));
	json_release(&d);

	static const char *const bad[] = {
		"", "{", "[1,]", "{\"a\" 1}", "01", "1.", "-", "\"\\x\"", "\"a\nb\"", "[1] 2",
		"tru", "{\"a\":1,}", "\"\\ud800\"x", "[\"\\u12\"]",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = json_parse(&d, "bad", bad[i], strlen(bad[i]));
		if (r == 0)
			unit_fail(t_, __FILE__, __LINE__, "accepted invalid JSON '%s'", bad[i]);
		json_release(&d);
	}
	/* Depth is bounded: no stack overflow on hostile nesting. */
	size_t deep = 100000;
	char *many = malloc(deep);
	memset(many, '[', deep);
	CHECK(json_parse(&d, "deep", many, deep) == -1);
	json_release(&d);
	free(many);
}

TEST(collapse_dtrace_rules)
{
	const char *in = "HEADER\n\n"
			 "  m`Foo::bar(int)+0x10\n"
			 "  m`Lcom/Foo;::a->Lcom/Bar;::b+0x3\n"
			 "  +0x4\n"
			 "  3\n"
			 "  m`Foo::bar(int)+0x10\n"
			 "  m`Lcom/Foo;::a->Lcom/Bar;::b+0x3\n"
			 "  +0x4\n"
			 "  2\n";
	/* leaf first in the input; "-" for an empty frame; Java inlining
	 * split with _[i]; ';' -> ':'; C++ arguments cut. */
	CHECK_COLLAPSE("dtrace", in, NULL, "-;m`Lcom/Foo:::a;com/Bar:::b_[i];m`Foo::bar 5\n");
	struct collapse_opts o = { .include_offsets = true };
	CHECK_COLLAPSE("dtrace", "H\n\n a`f+0x1\n a`g+0x2\n 1\n", &o, "a`g+0x2;a`f 1\n");
}

TEST(collapse_gdb_pattern)
{
	/* The script's pattern wants four words after "#N"; with three, the
	 * spaces after "#N" are given back and the function is empty. */
	CHECK_COLLAPSE("gdb", "#0  0x1 in leaf (a=1) at x.c:1\n#1  main () at x.c:9\n\n", NULL,
		       "main;leaf 1\n");
	CHECK_COLLAPSE("gdb", "#1  main () at x.c:9\n#0  a b\n#2  top () at y.c:1\n", NULL,
		       "top;;main 1\n");
	/* One space after "#0" leaves too few: not a frame, the stack ends. */
	CHECK_COLLAPSE("gdb", "#1  main () at x.c:9\n#0 a b\n#2  top () at y.c:1\n", NULL,
		       "main 1\ntop 1\n");
}

TEST(collapse_vsprof_numbers)
{
	const char *h = "Level,Function Name,Number of Calls,Elapsed Inclusive Time %,Elapsed Exclusive Time %,"
			"Avg Elapsed Inclusive Time,Avg Elapsed Exclusive Time,Module Name,\n";
	char buf[1024];
	snprintf(buf, sizeof(buf), "%s1,\"a\",\"1,234,567\",0,0,0,0,\"m\",\n", h);
	CHECK_COLLAPSE("vsprof", buf, NULL, "a 1234567\n");
	snprintf(buf, sizeof(buf), "%s1,\"a\",\"1234\",0,0,0,0,\"m\",\n", h);
	CHECK(collapse("vsprof", buf, NULL) == NULL); /* separators required */
	snprintf(buf, sizeof(buf), "%s1,\"a\",\"1,23\",0,0,0,0,\"m\",\n", h);
	CHECK(collapse("vsprof", buf, NULL) == NULL); /* groups of three */
}

TEST(collapse_sample_overwrites_repeated_stack)
{
	/* inferno inserts (last value wins) rather than adds for a stack seen
	 * twice in one call graph. */
	const char *in = "Call graph:\n"
			 "    5 T\n"
			 "    + 5 f  (in m) + 1  [0x1]\n"
			 "    3 T\n"
			 "    + 3 f  (in m) + 1  [0x1]\n"
			 "Total number in stack\n";
	CHECK_COLLAPSE("sample", in, NULL, "T;m`f 3\n");
}

TEST(collapse_chrome_trace_self_time)
{
	const char *in = "[{\"pid\":1,\"tid\":1,\"ts\":0,\"ph\":\"X\",\"name\":\"a\",\"dur\":10},"
			 "{\"pid\":1,\"tid\":1,\"ts\":2,\"ph\":\"X\",\"name\":\"b\",\"dur\":3},"
			 "{\"pid\":1,\"tid\":1,\"ts\":5,\"ph\":\"X\",\"name\":\"c\",\"dur\":5},"
			 "{\"pid\":1,\"tid\":1,\"ts\":20,\"ph\":\"X\",\"name\":\"a\",\"dur\":1}]";
	/* b stops at 5 <= c's start: c is a's child, not b's. */
	CHECK_COLLAPSE("chrome", in, NULL, "a 3\na;b 3\na;c 5\n");
}
