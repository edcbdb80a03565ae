/* profile/frame_rules: the structured entry points report and record use
 * give the names `collapse perf` gives for the same frame written as perf
 * script text (the perf_line matchers are the independent reading of that
 * text), plus the process-name and inline rules of stackcollapse-perf.pl
 * (shared/reference/flamegraph-pl.md section 3.3). */
#include "harness.h"
#include "frame_parts_text.h"

#include "base/alloc.h"
#include "collapse/perf_line.h"
#include "profile/frame_rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The names of a frame, joined with '|' ("DROPPED" when the script drops it). */
static char *join(const struct frame_text *fr, struct frame_opts o)
{
	struct frame_parts pp = { 0 };
	char *out = frame_names(fr, &o, &pp) ? frame_parts_joined(&pp) : xstrdup("DROPPED");
	frame_parts_release(&pp);
	return out;
}

/* The frame as report holds it: symbol (NULL for "[unknown]"), offset
 * 0x1f, module, pc. */
static char *structured(const char *sym, const char *mod, const char *pc, struct frame_opts o)
{
	char *line = NULL;
	size_t alloc = 0;
	struct frame_fields ff = { .symbol = strcmp(sym, "[unknown]") ? sym : NULL, .offset = 0x1f,
				   .module = mod, .pc = strtoull(pc, NULL, 16) };
	struct frame_parts pp = { 0 };
	char *out = frame_names_of(&ff, &o, &pp, &line, &alloc) ? frame_parts_joined(&pp) : xstrdup("DROPPED");
	frame_parts_release(&pp);
	free(line);
	return out;
}

/* The same frame as perf script prints it ("PC SYMBOL+0x1f (MODULE)"),
 * read by collapse's matcher. */
static char *as_text(const char *sym, const char *mod, const char *pc, struct frame_opts o)
{
	size_t n = strlen(sym) + strlen(mod) + strlen(pc) + 16;
	char *line = xmalloc(n);
	snprintf(line, n, "\t%s %s%s (%s)", pc, sym, strcmp(sym, "[unknown]") ? "+0x1f" : "", mod);
	struct frame_text fr;
	char *out = perf_match_frame_line(line, strlen(line), &fr) ? join(&fr, o) : xstrdup("NOFRAME");
	free(line);
	return out;
}

#define CHECK_FRAME(sym, mod, opts, want)                                  \
	do {                                                               \
		char *got_ = structured((sym), (mod), "7f0a", (opts));     \
		CHECK_STR(got_, (want));                                   \
		free(got_);                                                \
	} while (0)

TEST(frame_rules_structured_frames)
{
	struct frame_opts none = { 0 }, kernel = { .kernel = true }, jit = { .jit = true };
	struct frame_opts addrs = { .addrs = true }, java = { .java = true };
	/* An unknown symbol is named after its module's basename, brackets and all. */
	CHECK_FRAME("[unknown]", "[vdso]", none, "[[vdso]]");
	CHECK_FRAME("[unknown]", "//anon", none, "[anon]");
	CHECK_FRAME("[unknown]", "/usr/lib/x86_64-linux-gnu/libc.so.6", none, "[libc.so.6]");
	CHECK_FRAME("[unknown]", "/usr/lib/libc.so.6", addrs, "[libc.so.6 <7f0a>]");
	CHECK_FRAME("[unknown]", "[unknown]", none, "[unknown]");
	CHECK_FRAME("[unknown]", "[kernel.kallsyms]", kernel, "[[kernel.kallsyms]]_[k]");
	CHECK_FRAME("schedule", "[kernel.kallsyms]", kernel, "schedule_[k]");
	CHECK_FRAME("schedule", "[kernel.kallsyms]", none, "schedule");
	CHECK_FRAME("f", "/tmp/perf-42.map", jit, "f_[j]");
	/* Go methods keep their parentheses; C++ argument lists go. */
	CHECK_FRAME("main.(*T).Run", "/bin/x", none, "main.(*T).Run");
	CHECK_FRAME("std::vector<int>::push_back(int const&)", "/bin/x", none, "std::vector<int>::push_back");
	CHECK_FRAME("ns::(anonymous namespace)::f(int)", "/bin/x", none, "ns::(anonymous namespace)::f");
	/* A symbol starting with '(' is dropped, whatever follows. */
	CHECK_FRAME("(anonymous namespace)::f(int)", "/bin/x", none, "DROPPED");
	CHECK_FRAME("Lcom/x/Y;.z(I)V", "/tmp/perf-1.map", java, "com/x/Y:.z");
	/* perf's inline chains: "->" splits, inner parts get _[i]. */
	CHECK_FRAME("a->b", "/bin/x", none, "a|b_[i]");
	/* A module with " (" moves text into the symbol, as the regex reads it
	 * (the offset is then not at the end, and the argument-list rule cuts
	 * the rest). */
	CHECK_FRAME("f", "/opt/my (app)/x", none, "f+0x1f ");
	/* A name that ends like an offset keeps it: perf script prints the
	 * real offset after it, which is all the script strips. */
	CHECK_FRAME("f+0x10", "/bin/x", none, "f+0x10");
	CHECK_FRAME("  f", "/bin/x", none, "f");

	/* Long names are kept whole (record cut them at 1 KiB). */
	char *longname = xmalloc(5001);
	memset(longname, 'n', 5000);
	longname[5000] = '\0';
	char *got = structured(longname, "/bin/x", "1", none);
	CHECK(strlen(got) == 5000);
	free(got);
	free(longname);
}

/* For every pair, the structured frame and the same frame as perf script
 * text give the same names. */
TEST(frame_rules_structured_equals_text)
{
	static const char *const syms[] = {
		"main", "[unknown]", "f(int)", "main.(*T).Run", "(anon)", "a->b->c", "x;y\"z'",
		"operator() (int)", "f+0x1f", "Lcom/a/B;.c", "g_[i]", "h (i)", " lead", "  ", "", "f+0x10+0x2",
		"ns::(anonymous namespace)::f", "f(a (b))",
	};
	static const char *const mods[] = {
		"/usr/bin/x", "[kernel.kallsyms]", "[vdso]", "[unknown]", "/tmp/perf-9.map",
		"/boot/vmlinux", "//anon", "/a (b)/c", "",
	};
	struct frame_opts opts[] = { { 0 }, { .kernel = true, .jit = true }, { .addrs = true }, { .java = true } };
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
		for (size_t j = 0; j < sizeof(mods) / sizeof(mods[0]); j++)
			for (size_t k = 0; k < sizeof(opts) / sizeof(opts[0]); k++) {
				char *a = structured(syms[i], mods[j], "55d0", opts[k]);
				char *b = as_text(syms[i], mods[j], "55d0", opts[k]);
				if (strcmp(a, b))
					unit_fail(t_, __FILE__, __LINE__, "'%s' (%s) opts %zu: %s vs text %s",
						  syms[i], mods[j], k, a, b);
				free(a);
				free(b);
			}
}

static char *pname(const char *comm, long long pid, long long tid, bool have_pid, bool opid, bool otid)
{
	struct frame_parts pp = { 0 };
	char *out = frame_thread_pname(comm, pid, tid, have_pid, opid, otid, &pp)
			    ? xmemdup0(pp.buf, pp.len)
			    : xstrdup("NOMATCH");
	frame_parts_release(&pp);
	return out;
}

#define CHECK_PNAME(want, ...)                      \
	do {                                        \
		char *got_ = pname(__VA_ARGS__);    \
		CHECK_STR(got_, (want));            \
		free(got_);                         \
	} while (0)

TEST(frame_rules_process_names)
{
	CHECK_PNAME("bash", "bash", 10, 11, true, false, false);
	CHECK_PNAME("bash-10", "bash", 10, 11, true, true, false);
	CHECK_PNAME("bash-10/11", "bash", 10, 11, true, false, true);
	/* perf script's default header has no pid: "?" */
	CHECK_PNAME("bash-?/11", "bash", 0, 11, false, false, true);
	/* a tid of 0 is false to Perl: the pid moves to the tid, pid "?" */
	CHECK_PNAME("swapper-?/0", "swapper", 0, 0, true, false, true);
	/* spaces become '_'; the lazy comm stops at the first " DIGITS " */
	CHECK_PNAME("V8_WorkerThread-5/6", "V8 WorkerThread", 5, 6, true, false, true);
	CHECK_PNAME("Web_Content-?", "Web Content 2 x", 5, 6, true, true, false); /* $3 absent */
	/* ';' is kept, as the script keeps it */
	CHECK_PNAME("a;b", "a;b", 5, 6, true, false, false);
	/* a one-byte comm cannot end the regex's comm: no match in this text */
	CHECK_PNAME("NOMATCH", "a", 5, 6, true, false, false);
	CHECK_PNAME("NOMATCH", "ab\ncd", 5, 6, true, false, false);
	CHECK(frame_pname_is_java("java-1", 6) && !frame_pname_is_java("jav", 3));
}

/* The process name read from the header text "COMM PID/TID " (or
 * "COMM TID ") by the header regex, as the script reads it. */
static char *pname_from_text(const char *comm, long long pid, long long tid, bool have_pid, bool opid,
			     bool otid)
{
	char text[256];
	int n = have_pid ? snprintf(text, sizeof(text), "%s %5lld/%-5lld 123.456789: ", comm, pid, tid)
			 : snprintf(text, sizeof(text), "%s %5lld 123.456789: ", comm, tid);
	struct frame_slice c, a, b;
	if (!frame_match_header(text, (size_t)n, &c, &a, &b))
		return xstrdup("NOMATCH");
	struct frame_parts pp = { 0 };
	frame_pname(c, a, b, opid, otid, &pp);
	char *out = xmemdup0(pp.buf, pp.len);
	frame_parts_release(&pp);
	return out;
}

/* The thread's fields and the header text give the same process names. */
TEST(frame_rules_thread_names_equal_header_text)
{
	static const char *const comms[] = { "bash", "ab", "a;b", "swapper", "deep chain 24", "cpu [thread] 2",
					     "x/1", "12", "java", "V8 WorkerThread", "a\tb", "kworker/0:1" };
	static const long long ids[][2] = { { 10, 11 }, { 0, 0 }, { 7, 0 }, { 0, 5 }, { 123456, 1 } };
	for (size_t i = 0; i < sizeof(comms) / sizeof(comms[0]); i++)
		for (size_t j = 0; j < sizeof(ids) / sizeof(ids[0]); j++)
			for (int opt = 0; opt < 3; opt++)
				for (int hp = 0; hp < 2; hp++) {
					char *a = pname(comms[i], ids[j][0], ids[j][1], hp, opt == 1, opt == 2);
					char *b = pname_from_text(comms[i], ids[j][0], ids[j][1], hp, opt == 1,
								  opt == 2);
					if (strcmp(a, b))
						unit_fail(t_, __FILE__, __LINE__, "'%s' %lld/%lld: %s vs text %s",
							  comms[i], ids[j][0], ids[j][1], a, b);
					free(a);
					free(b);
				}
}

TEST(frame_rules_inline_answers)
{
	CHECK(frame_inline_usable("f", 1));
	CHECK(!frame_inline_usable("", 0));
	CHECK(!frame_inline_usable("??", 2));
	CHECK(!frame_inline_usable("??:??:0", 7));
	CHECK(frame_inline_usable("??:1", 4));
}
