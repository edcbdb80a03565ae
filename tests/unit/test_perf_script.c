/* perf script collapsing: the line matchers against the regex behaviour
 * described in shared/reference/flamegraph-pl.md section 3 (including the
 * "verified odd cases" there), frame tidying, thread-count independence of
 * perf_collapse, and --inline's addr2line emulation against binutils'
 * addr2line itself. */
#include "harness.h"
#include "frame_parts_text.h"

#include "base/alloc.h"
#include "base/out.h"
#include "collapse/collapse.h"
#include "collapse/perf_cache.h"
#include "collapse/perf_line.h"
#include "collapse/perf_script.h"
#include "profile/folded.h"
#ifdef HAVE_ELFUTILS
#include "symbolize/inline.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool slice_is(struct frame_slice s, const char *want)
{
	return s.n == strlen(want) && !memcmp(s.s, want, s.n);
}

static bool event(const char *line, struct perf_event_line *ev)
{
	return perf_match_event_line(line, strlen(line), ev);
}

TEST(perf_event_line_comm_and_ids)
{
	struct perf_event_line ev;
	REQUIRE(event("java 25607 4794564.109216: 1 cycles:", &ev));
	CHECK(slice_is(ev.comm, "java"));
	CHECK(slice_is(ev.first, "25607"));
	CHECK(ev.second.n == 0);
	CHECK(ev.has_event && slice_is(ev.event, "cycles") && slice_is(ev.period, "1"));

	REQUIRE(event("V8 WorkerThread 24636/25607 [000] 94564.109216: 100 cycles:", &ev));
	CHECK(slice_is(ev.comm, "V8 WorkerThread"));
	CHECK(slice_is(ev.first, "24636") && slice_is(ev.second, "25607"));

	/* comm with a space and a number: the lazy comm stops at the first
	 * " DIGITS " (the doc's "Web Content 2 777" case). */
	REQUIRE(event("Web Content 2 777 [000] 1.0: 1 cycles:", &ev));
	CHECK(slice_is(ev.comm, "Web Content"));
	CHECK(slice_is(ev.first, "2"));

	/* A one-character comm cannot end at column 1. */
	REQUIRE(event("a 123 [000] 1.0: 1 cycles:", &ev));
	CHECK(slice_is(ev.comm, "a 123 [000] 1.0:"));
	CHECK(slice_is(ev.first, "1"));

	/* Exited task: "-1" is not \d+, so the comm runs to the timestamp. */
	REQUIRE(event(":-1    -1 [000]   627.780782:     250000 cpu-clock:pppH:", &ev));
	CHECK(slice_is(ev.comm, ":-1    -1 [000]   627.780782:"));
	CHECK(slice_is(ev.first, "250000"));
	CHECK(slice_is(ev.event, "cpu-clock:pppH") && slice_is(ev.period, "250000"));

	/* Indented comm: not an event line. */
	CHECK(!event("   java 25607 1.0: 1 cycles:", &ev));
	/* No number after the comm. */
	CHECK(!event("hello world", &ev));
	/* Slashes with nothing after them. */
	REQUIRE(event("x1 12// 1.0: cycles:", &ev));
	CHECK(slice_is(ev.first, "12") && ev.second.n == 0);
}

static uint64_t period_of(const struct perf_event_line *ev)
{
	uint64_t v;
	return perf_period(ev, &v) ? v : UINT64_MAX - 1;
}

TEST(perf_event_name_and_period)
{
	struct perf_event_line ev;
	REQUIRE(event("java 19983 cycles:", &ev));
	CHECK(!ev.has_event); /* no ':' before the period part */
	REQUIRE(event("java 25607 4794564.109216: cycles:", &ev));
	CHECK(ev.has_event && slice_is(ev.event, "cycles") && ev.period.n == 0);
	CHECK(period_of(&ev) == 1);
	REQUIRE(event("bash 17490   702.148586:          1 page-faults: ", &ev));
	CHECK(slice_is(ev.event, "page-faults") && period_of(&ev) == 1);
	REQUIRE(event("dd 1 1.0: 0 cpu-clock:", &ev));
	CHECK(period_of(&ev) == 1); /* "0" is false in Perl */
	REQUIRE(event("dd 1 1.0: 00 cpu-clock:", &ev));
	CHECK(period_of(&ev) == 0); /* "00" is true, and numerically 0 */
	REQUIRE(event("dd 1 1.0: 10101010 cpu-clock:", &ev));
	CHECK(period_of(&ev) == 10101010);
	/* exact past 2^53, as Perl's integers; past 2^64 - 1 refused */
	uint64_t v;
	REQUIRE(event("dd 1 1.0: 18446744073709551615 cpu-clock:", &ev));
	CHECK(perf_period(&ev, &v) && v == UINT64_MAX);
	REQUIRE(event("dd 1 1.0: 9007199254740993 cpu-clock:", &ev));
	CHECK(period_of(&ev) == 9007199254740993ull);
	REQUIRE(event("dd 1 1.0: 18446744073709551616 cpu-clock:", &ev));
	CHECK(!perf_period(&ev, &v));
	/* Tracepoint with arguments: the event must end the line. */
	REQUIRE(event("sh 5 [000] 1.0: sched:sched_switch: prev_comm=sh prev_pid=5", &ev));
	CHECK(!ev.has_event);
	/* Trailing whitespace and \r are \s. */
	REQUIRE(event("sh 5 1.0: 7 cycles:u:\r", &ev));
	CHECK(slice_is(ev.event, "cycles:u") && slice_is(ev.period, "7"));
}

static bool frame(const char *line, struct frame_text *fr)
{
	return perf_match_frame_line(line, strlen(line), fr);
}

TEST(perf_frame_line_regex)
{
	struct frame_text fr;
	REQUIRE(frame("\t    7f12 main+0x1f (/usr/bin/x)", &fr));
	CHECK(slice_is(fr.pc, "7f12") && slice_is(fr.symbol, "main+0x1f") &&
	      slice_is(fr.module, "/usr/bin/x"));
	/* No symbol: \w+ gives back its last character. */
	REQUIRE(frame("\t7f00ab (/usr/bin/x)", &fr));
	CHECK(slice_is(fr.pc, "7f00a") && slice_is(fr.symbol, "b"));
	/* The symbol ends at the last " (" that has a ')' after it. */
	REQUIRE(frame("\t1 f(int) const (/opt/my app (v2)/lib.so)", &fr));
	CHECK(slice_is(fr.symbol, "f(int) const (/opt/my app"));
	CHECK(slice_is(fr.module, "v2)/lib.so"));
	REQUIRE(frame("\t1 std::function<unsigned long (unsigned long)>::operator() (/x)", &fr));
	CHECK(slice_is(fr.symbol, "std::function<unsigned long (unsigned long)>::operator()"));
	CHECK(slice_is(fr.module, "/x"));
	/* Extra text after the module's ')' is allowed (unanchored). */
	REQUIRE(frame("\t1 f (m) trailing", &fr));
	CHECK(slice_is(fr.module, "m"));
	/* Empty module. */
	REQUIRE(frame("\t1 f ()", &fr));
	CHECK(fr.module.n == 0);
	CHECK(!frame("   ", &fr));
	CHECK(!frame("\t1 f", &fr));
	CHECK(!frame("\t1 (m)", &fr)); /* one-char \w+ cannot give a symbol */
	CHECK(!frame("\t?? (m)", &fr));
}

static char *names(const char *line, struct frame_opts o)
{
	struct frame_text fr;
	if (!perf_match_frame_line(line, strlen(line), &fr))
		return xstrdup("NOFRAME");
	struct frame_parts pp = { 0 };
	if (!frame_names(&fr, &o, &pp)) {
		frame_parts_release(&pp);
		return xstrdup("SKIPPED");
	}
	char *out = frame_parts_joined(&pp);
	frame_parts_release(&pp);
	return out;
}

#define CHECK_NAMES(line, opts, want)                  \
	do {                                           \
		char *got_ = names((line), (opts));    \
		CHECK_STR(got_, (want));               \
		free(got_);                            \
	} while (0)

TEST(perf_frame_tidy)
{
	struct frame_opts none = { 0 }, all = { .kernel = true, .jit = true };
	struct frame_opts java = { .java = true }, addrs = { .addrs = true };
	CHECK_NAMES("\t1 foo(int, char*) (/x)", none, "foo");
	CHECK_NAMES("\t1 ns::(anonymous namespace)::bar(int) const (/x)", none,
		    "ns::(anonymous namespace)::bar");
	CHECK_NAMES("\t1 (anonymous namespace)::f+0x1 (/x)", none, "SKIPPED");
	CHECK_NAMES("\t1 net/http.(*Client).Do (/x)", none, "net/http.(*Client).Do");
	CHECK_NAMES("\t1 a;b\"c'd (/x)", none, "a:bcd");
	CHECK_NAMES("\t1 f+0xABC (/x)", none, "f+0xABC"); /* uppercase is not an offset */
	CHECK_NAMES("\t1 f+0x1+0x2 (/x)", none, "f+0x1");
	CHECK_NAMES("\t1 a->b->c_[i] (/x)", none, "a|b_[i]|c_[i]");
	CHECK_NAMES("\t1 a->->b-> (/x)", none, "a|_[i]|b_[i]");
	CHECK_NAMES("\t1 ->a (/x)", none, "|a_[i]");
	CHECK_NAMES("\t1 -> (/x)", none, "");
	CHECK_NAMES("\t7 [unknown] (/usr/lib/libc.so.6)", none, "[libc.so.6]");
	CHECK_NAMES("\t7 [unknown] ([unknown])", none, "[unknown]");
	CHECK_NAMES("\t7 [unknown] (/usr/lib/libc.so.6)", addrs, "[libc.so.6 <7>]");
	CHECK_NAMES("\t7 [unknown] ([unknown])", all, "[unknown]"); /* contains "unknown" */
	CHECK_NAMES("\t1 f ([kernel.kallsyms])", all, "f_[k]");
	CHECK_NAMES("\t1 f ([vdso])", all, "f_[k]");
	CHECK_NAMES("\t1 f (/boot/vmlinux)", all, "f_[k]");
	CHECK_NAMES("\t1 f (/boot/vmlinux-6.1)", all, "f");
	CHECK_NAMES("\t1 f (/tmp/perf-42.map)", all, "f_[j]");
	CHECK_NAMES("\t1 f_[j] (/tmp/perf-42.map)", all, "f_[j]");
	CHECK_NAMES("\t1 f (/tmp/perf-.map)", all, "f");
	CHECK_NAMES("\t1 Lcom/foo/Bar;.baz(I)V (/tmp/perf-1.map)", java, "com/foo/Bar:.baz");
	CHECK_NAMES("\t1 Lnoslash (/x)", java, "Lnoslash");
	CHECK_NAMES("\t1 Lcom/foo/Bar;.baz(I)V (/x)", none, "Lcom/foo/Bar:.baz");
	CHECK_NAMES("\t1 '(x)' (/x)", none, "");
	/* every match, not only the first: ';', quotes of one kind, "->" and
	   ".(" after bytes that start them */
	CHECK_NAMES("\t1 a;b;c;d (/x)", none, "a:b:c:d");
	CHECK_NAMES("\t1 it's 'q' (/x)", none, "its q");
	CHECK_NAMES("\t1 x-y-->z- (/x)", none, "x-y-|z-_[i]");
	CHECK_NAMES("\t1 a.b..(T).m (/x)", none, "a.b..(T).m");
	CHECK_NAMES("\t1 (anonymous namespace)x::f(int)(char) (/x)", none, "SKIPPED");
	CHECK_NAMES("\t1 x::(anonymous namespace)::(anonymous namespace)::f(int) (/x)", none,
		    "x::(anonymous namespace)::(anonymous namespace)::f");
}

TEST(perf_srcline_and_inline_rules)
{
	struct frame_parts pp = { 0 };
	frame_parts_push(&pp, "f", 1);
	const char *src = "  libc-2.28.so[26d0a] x[1]y  ";
	frame_append_srcline(&pp, src, strlen(src));
	struct frame_slice s = frame_part(&pp, 0);
	CHECK(slice_is(s, "f:libc-2.28.so xy"));
	frame_parts_push(&pp, "g", 1);
	frame_append_srcline(&pp, " [only] ", 8);
	CHECK(slice_is(frame_part(&pp, 1), "g"));
	frame_parts_release(&pp);

	CHECK(frame_inline_applies("/usr/bin/x", 10));
	CHECK(!frame_inline_applies("/tmp/perf-12.map", 16));
	CHECK(!frame_inline_applies("/tmp/perf-12Xmap", 16)); /* '.' is any byte */
	CHECK(!frame_inline_applies("/tmp/perf-123map", 16)); /* \d+ gives one back */
	CHECK(!frame_inline_applies("[kernel.kallsyms]", 17));
	CHECK(!frame_inline_applies("[vdso]", 6));
	CHECK(frame_inline_applies("[]", 2));
}

TEST(perf_fingerprint_distinguishes)
{
	struct perf_fp a = perf_fingerprint("abc", 3, false);
	struct perf_fp b = perf_fingerprint("abc", 3, true);
	struct perf_fp c = perf_fingerprint("abd", 3, false);
	struct perf_fp d = perf_fingerprint("abc\0", 4, false);
	struct perf_fp e = perf_fingerprint("abc", 3, false);
	CHECK(a.key != b.key && a.key != c.key && a.key != d.key);
	CHECK(a.key == e.key && a.check == e.check);
}

static char *collapse_text(const char *text, int threads, const struct collapse_opts *base)
{
	struct collapse_opts o = *base;
	o.threads = threads;
	struct profile p;
	profile_init(&p);
	struct perf_input in = { "unit", text, strlen(text), false };
	char *res = NULL;
	if (perf_collapse(&p, &in, 1, &o) == 0) {
		struct out *out = out_open_mem();
		folded_write(&p, out);
		res = out_mem_detach(out, NULL);
	}
	profile_release(&p);
	return res;
}

TEST(perf_collapse_state_machine)
{
	struct collapse_opts o = { 0 };
	/* Event line inside a sample: the stack carries on; a filtered one
	 * keeps the earlier process and period. */
	const char *text = "pp 1 1.0: 3 ev1:\n\t1 a (m)\npp 2 1.1: 5 ev2:\n\t2 b (m)\n\n"
			   "qq 1 2.0: 4 ev1:\n\t3 c (m)\n\n";
	char *got = collapse_text(text, 1, &o);
	CHECK_STR(got, "pp;b;a 3\nqq;c 4\n");
	free(got);
	/* A name holding ';' (the comm) splits like the script's key. */
	got = collapse_text("aa;b 1 1.0: 1 ev:\n\t1 f (m)\n\naa 1 1.0: 1 ev:\n\t1 f (m)\n\t1 b (m)\n\n", 1, &o);
	CHECK_STR(got, "aa;b;f 2\n");
	free(got);
	/* Empty frame names still make levels. */
	got = collapse_text("pp 1 1.0: 1 ev:\n\t1 \"\" (m)\n\t1 f (m)\n\n", 1, &o);
	CHECK_STR(got, "pp;f; 1\n");
	free(got);
}

TEST(perf_collapse_threads_agree)
{
	/* Many samples with repeats, odd lines and two event types; split
	 * into 1..8 chunks the output must not change. */
	size_t cap = 1 << 20, n = 0;
	char *text = xmalloc(cap);
	for (int i = 0; i < 2000; i++) {
		n += (size_t)snprintf(text + n, cap - n,
				      "comm %d/%d [000] %d.0: %d %s:\n\t%x f%d+0x%x (/lib/l%d.so)\n"
				      "\t%x g%d (/lib/l.so)\n%s\n",
				      i % 7, i % 5, i, i % 3, i % 11 ? "cycles" : "instructions",
				      i, i % 13, i, i % 4, i + 16, i % 17, i % 997 ? "" : "junk line\n");
	}
	struct collapse_opts o = { .tid = true, .all = true };
	/* The junk lines are reported on stderr by each run. */
	char *one = collapse_text(text, 1, &o);
	REQUIRE(one != NULL);
	for (int t = 2; t <= 8; t++) {
		char *many = collapse_text(text, t, &o);
		CHECK(many && !strcmp(one, many));
		free(many);
	}
	free(one);
	free(text);
}

#ifdef HAVE_ELFUTILS
/* --inline: our addr2line against binutils' on this very binary. */
TEST(perf_inline_matches_addr2line)
{
	if (system("command -v addr2line >/dev/null 2>&1")) {
		SKIP("no addr2line on PATH");
	}
	char exe[4096];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	REQUIRE(len > 0);
	exe[len] = '\0';
	/* File addresses of functions: the PIE load base from /proc/self/maps. */
	FILE *maps = fopen("/proc/self/maps", "r");
	REQUIRE(maps);
	unsigned long long base = 0;
	char line[8192];
	while (fgets(line, sizeof(line), maps)) {
		unsigned long long lo, off;
		char path[4096] = "";
		if (sscanf(line, "%llx-%*x %*s %llx %*s %*s %4095s", &lo, &off, path) == 3 &&
		    !strcmp(path, exe) && off == 0) {
			base = lo;
			break;
		}
	}
	fclose(maps);
	REQUIRE(base != 0);
	struct inline_resolver *r = inline_resolver_new(false);
	uintptr_t fns[] = { (uintptr_t)perf_match_frame_line, (uintptr_t)frame_names,
			    (uintptr_t)perf_collapse, (uintptr_t)folded_write };
	int compared = 0, differ = 0;
	for (size_t f = 0; f < sizeof(fns) / sizeof(fns[0]); f++) {
		for (unsigned k = 0; k < 12; k++) {
			unsigned long long a = fns[f] - base + k * 23;
			char cmd[8300];
			snprintf(cmd, sizeof(cmd), "addr2line -i -f -s -C -e '%s' %llx", exe, a);
			FILE *pipe = popen(cmd, "r");
			if (!pipe)
				continue;
			char want[8192] = "";
			size_t got_n = fread(want, 1, sizeof(want) - 1, pipe);
			want[got_n] = '\0';
			pclose(pipe);
			/* The script drops " (discriminator N)"; so do we. */
			for (char *d; (d = strstr(want, " (discriminator "));) {
				char *e = strchr(d, ')');
				memmove(d, e + 1, strlen(e + 1) + 1);
			}
			char *mine = inline_addr2line(r, exe, a);
			compared++;
			if (strcmp(mine, want)) {
				differ++;
				if (differ <= 3)
					unit_fail(t_, __FILE__, __LINE__, "%llx: ours '%s' addr2line '%s'", a,
						  mine, want);
			}
			free(mine);
		}
	}
	CHECK(compared > 0);
	CHECK(differ == 0);
	inline_resolver_free(r);
}
#endif
