/* scorch diff: two folded profiles -> the differential folded form
 * "STACK BEFORE AFTER" (difffolded.pl), for `scorch flamegraph` to draw
 * red for growth and blue for reduction. Output is sorted by stack (difffolded.pl
 * writes hash order) so runs are reproducible. */
#include "cmd/cmd.h"
#include "cmd/load.h"
#include "cmd/output_format.h"
#include "cmd/time_arg.h"
#include "cmd/usage.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/input.h"
#include "profile/profile.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char diff_usage[] =
	"usage: scorch diff [-n] [-s] [-o FILE] BEFORE AFTER > diff.folded\n"
	"       scorch diff [-n] [-s] [-o FILE] --time A --time B FILE  (two ranges of one capture)\n"
	"\n"
	"Write every stack of either profile as \"STACK BEFORE AFTER\" (0 where\n"
	"absent), like difffolded.pl. Draw it with `scorch flamegraph`: widths follow\n"
	"AFTER, red frames grew, blue ones shrank. BEFORE and AFTER may be any input\n"
	"scorch reads (folded, a collapse format, perf.data, pprof; compressed or not),\n"
	"or a store's range (file://DIR?from=-2h&to=-1h, or a clickhouse:// URL\n"
	"with ?from=...: doc/fleet.md).\n"
	"(`scorch diff AFTER BEFORE |\n"
	"scorch flamegraph --negate` gives widths from BEFORE instead.)\n"
	"  -n, --normalize   scale BEFORE counts to AFTER's total (truncated to integers)\n"
	"  -s, --strip-hex   replace hex addresses 0x1234abcd by 0x... before matching\n"
	"  -o, --output FILE write here (only when the run succeeds) instead of stdout\n"
	"      --time RANGE  twice, with one FILE (perf.data or perf script text): BEFORE\n"
	"                    is the first range's samples, AFTER the second's (perf report's\n"
	"                    --time spelling, as scorch report --time)\n"
	"      --sample-index=I  pprof input: the value to compare, by sample type name\n"
	"                    (cpu, alloc_space, ...) or number from 0 (default: the\n"
	"                    profile's default type, else its last, as go tool pprof)\n";

static const struct option long_options[] = {
	{ "normalize", no_argument, NULL, 'n' },
	{ "normalise", no_argument, NULL, 'n' },
	{ "strip-hex", no_argument, NULL, 's' },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ "sample-index", required_argument, NULL, 'S' },
	{ "time", required_argument, NULL, 'T' },
	{ NULL, 0, NULL, 0 },
};

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Copy s with every 0x[0-9a-fA-F]+ replaced by "0x...". */
static size_t strip_hex(const char *s, size_t n, char **buf, size_t *alloc)
{
	VEC_GROW(*buf, n + 4, *alloc);
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		if (s[i] == '0' && i + 2 < n && s[i + 1] == 'x' && is_hex(s[i + 2])) {
			size_t j = i + 2;
			while (j < n && is_hex(s[j]))
				j++;
			VEC_GROW(*buf, o + 5 + (n - j), *alloc);
			memcpy(*buf + o, "0x...", 5);
			o += 5;
			i = j;
		} else {
			VEC_GROW(*buf, o + 1 + (n - i), *alloc);
			(*buf)[o++] = s[i++];
		}
	}
	return o;
}

/* Add every stack of src to dst's column `col`; false when a whole sum
 * passes 2^64 - 1. */
static bool add_side(struct profile *dst, const struct profile *src, int col, bool strip)
{
	node_t *map = xreallocarray(NULL, src->nr, sizeof(*map));
	char *buf = NULL;
	size_t alloc = 0;
	map[0] = PROFILE_ROOT;
	for (node_t i = 1; i < src->nr; i++) {
		const char *s = profile_name(src, i);
		size_t n = profile_name_len(src, i);
		if (strip && memmem(s, n, "0x", 2)) {
			n = strip_hex(s, n, &buf, &alloc);
			s = buf;
		}
		map[i] = profile_push_str(dst, map[src->nodes[i].parent], s, n);
	}
	bool ok = true;
	for (node_t i = 0; i < src->nr; i++)
		if (profile_has_self(src, i))
			ok &= profile_add_column(dst, map[i], col, src, i, 1);
	free(buf);
	free(map);
	return ok;
}

/* Any input scorch reads (cmd/load.c): folded, a collapse format,
 * perf.data, pprof. */
static int load(struct profile *p, const char *path, const char *sample_index, struct time_ranges *ranges)
{
	int ret = load_profile_in(p, path, sample_index, NULL, ranges, "diff");
	if (!ret && p->differential)
		warn("%s: has two-count (differential) lines; using the second count", path);
	return ret;
}

struct args {
	bool normalize, strip;
	const char *output;
	const char *sample_index;
	const char *before, *after;
	struct time_ranges *time[2]; /* --time A --time B (one input), or NULL */
	int ntime;
	bool help;
};

static void parse_args(int argc, char **argv, struct args *a)
{
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":nso:h", long_options, NULL)) != -1) {
		switch (c) {
		case 'n': a->normalize = true; break;
		case 's': a->strip = true; break;
		case 'o': a->output = optarg; break;
		case 'S': a->sample_index = optarg; break;
		case 'T':
			if (a->ntime == 2)
				usage_error("diff", "--time: give two ranges, BEFORE and AFTER (a third: '%s')", optarg);
			a->time[a->ntime++] = time_arg_parse("diff", optarg);
			break;
		case 'h': a->help = true; return;
		default: usage_bad_option("diff", c, argv);
		}
	}
	if (a->ntime == 1)
		usage_error("diff", "--time: give two ranges, BEFORE and AFTER, of one input");
	if (a->ntime == 2) {
		if (argc - optind != 1)
			usage_error("diff", "--time A --time B compares two ranges of one input (%s)",
				    argc - optind < 1 ? "none given" : "more given");
		a->before = a->after = argv[optind];
	} else if (argc - optind != 2) {
		usage_error("diff", "needs two folded profiles, BEFORE and AFTER (%s)",
			    argc - optind < 2 ? "too few" : "too many");
	} else {
		a->before = argv[optind];
		a->after = argv[optind + 1];
	}
	output_format("diff", a->output, WRITES_FOLDED);
	usage_stdin_not_terminal("diff", a->before, "stacks");
	usage_stdin_not_terminal("diff", a->after, "stacks");
}

/* out gets every stack of both sides, BEFORE's counts in column 0 and
 * AFTER's in column 1 (BEFORE scaled to AFTER's total with normalize). */
static int diff_profiles(struct profile *out, const struct profile *before, const struct profile *after,
			 const struct args *a)
{
	if (!add_side(out, before, 0, a->strip))
		return error("%s: the counts of one stack pass 2^64 - 1", a->before);
	if (!add_side(out, after, 1, a->strip))
		return error("%s: the counts of one stack pass 2^64 - 1", a->after);
	out->differential = true;
	double t0 = profile_total(out, 0), t1 = profile_total(out, 1);
	if (a->normalize && t0 != t1 && t0 != 0) {
		/* In doubles, as always: the scaled counts are estimates. */
		for (node_t i = 0; i < out->nr; i++) {
			union count *c = &out->nodes[i].self[0];
			if (out->fractional)
				c->d = trunc(c->d * t1 / t0);
			else
				c->u = (uint64_t)trunc((double)c->u * t1 / t0);
		}
	}
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	struct args a = { 0 };
	parse_args(argc, argv, &a);
	if (a.help) {
		fputs(diff_usage, stdout);
		return 0;
	}
	struct profile before, after, out;
	profile_init(&before);
	profile_init(&after);
	profile_init(&out);
	int ret = load(&before, a.before, a.sample_index, a.time[0]) || load(&after, a.after, a.sample_index, a.time[1]);
	if (!ret) {
		ret = diff_profiles(&out, &before, &after, &a) ? 1 : 0;
		if (!ret)
			ret = save_profile(&out, a.output, GRAPH_FORMAT_NONE, NULL) ? 1 : 0;
	}
	profile_release(&before);
	profile_release(&after);
	profile_release(&out);
	free(a.time[0]);
	free(a.time[1]);
	return ret;
}
