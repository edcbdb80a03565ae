/* Format detection over every conformance and golden input of the text
 * collapsers: collapse_detect must name the right format, and no text
 * format's probe may claim perf script output (perf's own format decides
 * those) or plain folded stacks. */
#include "harness.h"

#include "base/input.h"
#include "collapse/collapse.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

/* FlameGraph's and inferno's test data, unpacked from
 * tests/data/conformance.tar.xz by tests/run (CONFORMANCE) or by
 * tests/data/unpack into its default folder. */
static const char *conformance_dir(void)
{
	const char *s = getenv("CONFORMANCE");
	return s && *s ? s : "build/test-data/conformance";
}

/* Detect the format of a file; NULL name when none claims it. Returns false
 * when the file cannot be read. */
static bool detect_file(const char *path, const char **name)
{
	struct input in;
	if (input_load(&in, path))
		return false;
	const struct collapse_format *f = collapse_detect(in.data, in.len);
	*name = f ? f->name : NULL;
	input_release(&in);
	return true;
}

static const struct {
	const char *path; /* under CONFORMANCE/inferno/ */
	const char *format;
} conformance[] = {
	{ "flamegraph/example-dtrace-stacks.txt", "dtrace" },
	{ "tests/data/collapse-dtrace/java.txt", "dtrace" },
	{ "tests/data/collapse-dtrace/hex-addresses.txt", "dtrace" },
	{ "tests/data/collapse-dtrace/flamegraph-bug.txt", "dtrace" },
	{ "tests/data/collapse-dtrace/stack-ustack.txt", "dtrace" },
	{ "tests/data/collapse-dtrace/scope_with_no_argument_list.txt", "dtrace" },
	{ "tests/data/collapse-dtrace/rust-names.txt", "dtrace" },
	{ "tests/data/collapse-sample/sample.txt", "sample" },
	{ "tests/data/collapse-sample/bad-stack-line.txt", "sample" },
	{ "tests/data/collapse-sample/odd-indentation.txt", "sample" },
	{ "tests/data/collapse-vtune/vtune.csv", "vtune" },
	{ "tests/data/collapse-vtune/bad-stack-line.csv", "vtune" },
	{ "tests/data/collapse-vsprof/CallTreeSummary.csv", "vsprof" },
	{ "tests/data/collapse-vsprof/invalid-depth.csv", "vsprof" },
	{ "tests/data/collapse-ghcprof/percent.prof", "ghcprof" },
	{ "tests/data/collapse-ghcprof/ticks.prof", "ghcprof" },
	{ "tests/data/collapse-ghcprof/utf8.prof", "ghcprof" },
	{ "tests/data/collapse-xctrace/basic.xml", "xctrace" },
	{ "tests/data/collapse-xctrace/simple_frame_without_binary_info.xml", "xctrace" },
	/* already folded: the folded format, never a text collapser */
	{ "tests/data/collapse-recursive/basic.txt", "folded" },
	{ "tests/data/collapse-dtrace/results/java.txt", "folded" },
	{ "tests/data/collapse-sample/results/sample-default.txt", "folded" },
	/* nothing claims these */
	{ "tests/data/collapse-guess/unknown-format.txt", NULL },
};

TEST(collapse_detect_conformance_inputs)
{
	char path[4096];
	for (size_t i = 0; i < sizeof(conformance) / sizeof(conformance[0]); i++) {
		snprintf(path, sizeof(path), "%s/inferno/%s", conformance_dir(), conformance[i].path);
		const char *got;
		if (!detect_file(path, &got)) {
			unit_fail(t_, __FILE__, __LINE__, "%s: cannot read (run tests/data/unpack)", path);
			continue;
		}
		const char *want = conformance[i].format;
		if (!want) {
			if (got)
				unit_fail(t_, __FILE__, __LINE__, "%s: detected %s, expected none", path, got);
			continue;
		}
		if (!got || strcmp(got, want))
			unit_fail(t_, __FILE__, __LINE__, "%s: detected %s, expected %s", path,
				  got ? got : "(none)", want);
	}
}

/* Every golden input of the text collapsers: tests/golden/collapse-FMT/
 * CASE.in is FMT unless the case is a malformed or hand-made corner case
 * (those are listed). */
static bool golden_exempt(const char *fmt, const char *file)
{
	static const char *const exempt[] = {
		/* not detectable by design or too broken to be recognised */
		"recursive/", "dtrace/truncated", "stap/no-final-count", "gdb/empty",
		"gdb/pattern-quirks", "sample/no-end", "sample/skipped-level",
		"vtune/bad-line", "chrome/bad-json", "perf-report/malformed",
		"bpftrace/unclosed", "bpftrace/single-line-keys", "pprof/traces-units",
		"jstack/filters", "ghcprof/", "xctrace/bad", /* ghcprof cases: checked below */
	};
	char key[512];
	snprintf(key, sizeof(key), "%s/%s", fmt, file);
	for (size_t i = 0; i < sizeof(exempt) / sizeof(exempt[0]); i++)
		if (!strncmp(key, exempt[i], strlen(exempt[i])))
			return true;
	return false;
}

TEST(collapse_detect_golden_inputs)
{
	DIR *top = opendir("tests/golden");
	if (!top)
		SKIP("run from the repository root");
	struct dirent *e;
	int checked = 0;
	while ((e = readdir(top))) {
		if (strncmp(e->d_name, "collapse-", 9))
			continue;
		const char *fmt = e->d_name + 9;
		if (!collapse_find(fmt))
			continue;
		char dir[1024];
		snprintf(dir, sizeof(dir), "tests/golden/%s", e->d_name);
		DIR *d = opendir(dir);
		struct dirent *f;
		while (d && (f = readdir(d))) {
			size_t l = strlen(f->d_name);
			if (l < 4 || strcmp(f->d_name + l - 3, ".in") || golden_exempt(fmt, f->d_name))
				continue;
			char path[2048];
			snprintf(path, sizeof(path), "%s/%s", dir, f->d_name);
			const char *got;
			if (!detect_file(path, &got))
				continue;
			checked++;
			if (!got || strcmp(got, fmt))
				unit_fail(t_, __FILE__, __LINE__, "%s: detected %s, expected %s", path,
					  got ? got : "(none)", fmt);
		}
		if (d)
			closedir(d);
	}
	closedir(top);
	CHECK(checked >= 20);
}

/* perf script output belongs to the perf format: every other format's
 * probe stays below any confident claim. */
TEST(collapse_probes_leave_perf_script_alone)
{
	static const char *const perf_inputs[] = {
		"flamegraph/test/perf-cycles-instructions-01.txt",
		"flamegraph/test/perf-java-stacks-02.txt",
		"flamegraph/test/perf-iperf-stacks-pidtid-01.txt",
		"flamegraph/test/perf-js-stacks-01.txt",
		"flamegraph/test/perf-rust-Yamakaky-dcpu.txt",
		"inferno/tests/data/collapse-perf/go-stacks.txt",
		"inferno/tests/data/collapse-perf/single-line-stacks.txt",
		"inferno/tests/data/collapse-perf/java-inline.txt",
		"inferno/tests/data/collapse-guess/invalid-perf-with-empty-line-after-event-line.txt",
		"flamegraph/example-perf-stacks.txt.gz",
	};
	char path[4096];
	for (size_t i = 0; i < sizeof(perf_inputs) / sizeof(perf_inputs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", conformance_dir(), perf_inputs[i]);
		struct input in;
		if (input_load(&in, path)) {
			unit_fail(t_, __FILE__, __LINE__, "%s: cannot read (run tests/data/unpack)", path);
			continue;
		}
		size_t head = in.len < 65536 ? in.len : 65536;
		for (size_t k = 0; collapse_formats[k]; k++) {
			const struct collapse_format *f = collapse_formats[k];
			if (!strcmp(f->name, "perf") || !strcmp(f->name, "folded"))
				continue;
			int s = f->probe(in.data, head);
			if (s >= 30)
				unit_fail(t_, __FILE__, __LINE__, "%s: probe of %s says %d", path, f->name, s);
		}
		/* (inferno's guess claims nothing for the invalid-perf input) */
		if (collapse_find("perf") && !strstr(path, "invalid-perf")) {
			const struct collapse_format *f = collapse_detect(in.data, in.len);
			if (!f || strcmp(f->name, "perf"))
				unit_fail(t_, __FILE__, __LINE__, "%s: detected %s, expected perf", path,
					  f ? f->name : "(none)");
		}
		input_release(&in);
	}
}

TEST(collapse_detect_ghcprof_and_empty)
{
	const char *got = "x";
	if (detect_file("tests/golden/collapse-ghcprof/small.in", &got))
		CHECK_STR(got, "ghcprof");
	CHECK(collapse_detect("", 0) == NULL);
	CHECK(collapse_detect("\n\n", 2) == NULL);
}
