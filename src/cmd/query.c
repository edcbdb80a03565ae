/* scorch query: the stacks of any hosts and time range of a store (a
 * directory written by `record --every`/`store put`, or ClickHouse), summed
 * in the store, drawn through the one render path (or folded text); with
 * --diff-from/--diff-to a second range, as a differential profile.
 *
 * Parse the options, query the range (and the second one), write. */
#include "cmd/cmd.h"
#include "cmd/graph_opts.h"
#include "cmd/load.h"
#include "cmd/usage.h"

#include "base/alloc.h"
#include "base/error.h"
#include "profile/time_cells.h"
#include "store/store.h"
#include "store/when.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char query_usage[] =
	"usage: scorch query [OPTIONS] SOURCE > stacks.folded\n"
	"\n"
	"The stacks a store holds for a time range and some hosts, summed (by the\n"
	"store: GROUP BY in ClickHouse), as folded stacks or any graph format.\n"
	"SOURCE is a directory that `scorch record --every` or `scorch store put`\n"
	"wrote, or clickhouse://HOST:PORT/DB (user and password from\n"
	"SCORCH_CLICKHOUSE_USER and SCORCH_CLICKHOUSE_PASSWORD, or\n"
	"SCORCH_CLICKHOUSE_PASSWORD_FILE). An interval counts when it overlaps the\n"
	"range; the store's resolution is its intervals. HTML output has the heat\n"
	"map of the range: each interval's samples at its start (in buckets of 20 ms\n"
	"to 5 min: at most 720 over the range; none past a day).\n"
	"\n"
	"options:\n"
	"      --from TIME     start of the range (default -1h): now, -DURATION (-15m,\n"
	"                      -2h, -7d), 2026-12-02T14:00:00Z, @UNIX_SECONDS or ns\n"
	"      --to TIME       end of the range, excluded (default now)\n"
	"      --host PATTERN  only hosts matching PATTERN (* and ? wildcards)\n"
	"      --label K=V     only intervals carrying this label (repeatable: all of them)\n"
	"      --group-by host a root frame per host (as `scorch merge NAME=FILE`)\n"
	"      --diff-from TIME, --diff-to TIME\n"
	"                      a second range: the output is differential, the first\n"
	"                      range before, the second after (as `scorch diff`)\n"
	"  -o, --output FILE   write here; FILE.svg, .html, .png, .pb.gz,\n"
	"                      .speedscope.json: that format, else folded stacks\n"
	"      --format F      svg, html, png, pprof or speedscope whatever the -o name\n"
	"  -h, --help          this help\n"
	"  every option of 'scorch flamegraph' for graph output (--title, --width, ...)\n"
	"\n"
	"Exit status: 0 ok, 1 the store could not be read, 2 usage error or nothing\n"
	"in the range.\n";

enum { OPT_FROM = 0x200, OPT_TO, OPT_HOST, OPT_LABEL, OPT_GROUP, OPT_DIFF_FROM, OPT_DIFF_TO };

static const struct option own_opts[] = {
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ "host", required_argument, NULL, OPT_HOST },
	{ "label", required_argument, NULL, OPT_LABEL },
	{ "group-by", required_argument, NULL, OPT_GROUP },
	{ "diff-from", required_argument, NULL, OPT_DIFF_FROM },
	{ "diff-to", required_argument, NULL, OPT_DIFF_TO },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct args {
	struct graph_opts graph;
	enum graph_format format;
	const char *output, *source;
	const char *default_countname;
	struct store_query q, diff;
	bool diffing, help;
	const char **labels;
	size_t nr_labels, labels_alloc;
};

static uint64_t time_arg(const char *opt, const char *arg, uint64_t now)
{
	uint64_t ns;
	if (when_time(arg, now, &ns))
		usage_error("query", "%s: not a time: '%s' (now, -1h, 2026-12-02T14:00:00Z, @SECONDS)", opt, arg);
	return ns;
}

static void take(struct args *a, int c, const char *arg, uint64_t now)
{
	switch (c) {
	case OPT_FROM: a->q.from_ns = time_arg("--from", arg, now); break;
	case OPT_TO: a->q.to_ns = time_arg("--to", arg, now); break;
	case OPT_DIFF_FROM: a->diff.from_ns = time_arg("--diff-from", arg, now); a->diffing = true; break;
	case OPT_DIFF_TO: a->diff.to_ns = time_arg("--diff-to", arg, now); a->diffing = true; break;
	case OPT_HOST: a->q.host_pattern = arg; break;
	case OPT_GROUP:
		if (strcmp(arg, "host"))
			usage_error("query", "--group-by: only 'host', not '%s'", arg);
		a->q.group_by_host = true;
		break;
	case OPT_LABEL:
		if (!strchr(arg, '=') || arg[0] == '=')
			usage_error("query", "--label: K=V, not '%s'", arg);
		VEC_GROW(a->labels, a->nr_labels + 1, a->labels_alloc);
		a->labels[a->nr_labels++] = arg;
		break;
	}
}

/* 0, or the exit status after a usage error the graph options reported. */
static int parse_args(int argc, char **argv, struct args *a)
{
	struct option *long_opts = graph_options_with(own_opts, NULL);
	uint64_t now = when_now();
	int c, rc = 0;
	a->q.from_ns = now - 3600ull * 1000000000ull;
	a->q.to_ns = now;
	optind = 1;
	opterr = 0;
	while (!rc && !a->help && (c = getopt_long(argc, argv, ":o:h", long_opts, NULL)) != -1) {
		if (c == 'o')
			a->output = optarg;
		else if (c == 'h')
			a->help = true;
		else if (c >= OPT_FROM && c <= OPT_DIFF_TO)
			take(a, c, optarg, now);
		else if (graph_opt_code(c))
			rc = graph_opts_take(&a->graph, "query", c, optarg, argv);
		else {
			free(long_opts);
			usage_bad_option("query", c, argv);
		}
	}
	free(long_opts);
	if (rc || a->help)
		return rc;
	if (argc - optind != 1)
		usage_error("query", "give one SOURCE (a directory or clickhouse://HOST:PORT/DB)");
	a->source = argv[optind];
	a->q.labels = a->labels;
	a->q.nr_labels = a->nr_labels;
	if (a->q.from_ns >= a->q.to_ns)
		usage_error("query", "--from must come before --to");
	if (a->diffing) {
		struct store_query d = a->q;
		d.from_ns = a->diff.from_ns ? a->diff.from_ns : a->q.from_ns;
		d.to_ns = a->diff.to_ns ? a->diff.to_ns : a->q.to_ns;
		if (d.from_ns >= d.to_ns)
			usage_error("query", "--diff-from must come before --diff-to");
		a->diff = d;
	}
	return graph_opts_for_output(&a->graph, "query", a->output, false, &a->format);
}

/* before's counts in column 0, after's in column 1 (as scorch diff). */
static void differential(struct profile *out, const struct profile *before, const struct profile *after)
{
	const struct profile *side[2] = { before, after };
	for (int col = 0; col < 2; col++) {
		const struct profile *src = side[col];
		node_t *map = xreallocarray(NULL, src->nr, sizeof(*map));
		map[0] = PROFILE_ROOT;
		for (node_t i = 1; i < src->nr; i++)
			map[i] = profile_push_str(out, map[src->nodes[i].parent], profile_name(src, i),
						  profile_name_len(src, i));
		/* one stack of out per stack of src: no sum grows */
		for (node_t i = 0; i < src->nr; i++)
			(void)profile_add_column(out, map[i], col, src, i, 0);
		free(map);
	}
	out->differential = true;
}

static int write_result(struct args *a, struct profile *p, const char *unit)
{
	if (!a->format)
		return save_profile(p, a->output, GRAPH_FORMAT_NONE, unit) ? 1 : 0;
	a->graph.count_unit = unit;
	if (unit && a->graph.svg.countname == a->default_countname)
		a->graph.svg.countname = unit;
	return graph_exit_code(graph_render(p, &a->graph, a->format, a->output));
}

/* The heat map's buckets for a range: the finest of 20 ms ... 5 min that
 * gives at most 720 of them (what ClickHouse sends back is a row per
 * bucket and stack); 0 (no heat map) past a day, which no time table
 * spans. The stores keep no time finer than their intervals. */
static uint64_t time_bucket(uint64_t from, uint64_t to)
{
	static const uint64_t ms[] = { 20, 100, 1000, 10000, 60000, 300000 };
	uint64_t span = to - from;
	if (span > 86400ull * 1000000000ull) {
		warn("query: the range is longer than a day: no heat map");
		return 0;
	}
	for (size_t i = 0; i < sizeof(ms) / sizeof(ms[0]); i++)
		if (span / (ms[i] * 1000000ull) <= 720)
			return ms[i] * 1000000ull;
	return 300000ull * 1000000ull;
}

static int run(struct args *a)
{
	struct source *src = source_open(a->source);
	if (!src)
		return 1;
	struct profile p, before, out;
	profile_init(&p);
	profile_init(&before);
	profile_init(&out);
	struct store_found found, found2 = { 0 };
	/* HTML: the heat map over the range (not for a diff, which has none) */
	if (a->format == GRAPH_FORMAT_HTML && !a->diffing)
		a->q.time_bucket_ns = time_bucket(a->q.from_ns, a->q.to_ns);
	int rc = source_query(src, &a->q, a->diffing ? &before : &p, &found) ? 1 : 0;
	if (!rc && p.time) { /* times are epoch ns; the map spans the range */
		time_cells_set_epoch(&p, 0);
		time_cells_span(&p, a->q.from_ns);
		time_cells_span(&p, a->q.to_ns - 1);
	}
	if (!rc && a->diffing)
		rc = source_query(src, &a->diff, &p, &found2) ? 1 : 0;
	if (!rc && !found.intervals && !found2.intervals) {
		error("%s: no intervals in the range", a->source);
		rc = 2;
	}
	if (!rc && a->diffing)
		differential(&out, &before, &p);
	if (!rc)
		rc = write_result(a, a->diffing ? &out : &p, found.unit ? found.unit : found2.unit);
	source_close(src);
	profile_release(&p);
	profile_release(&before);
	profile_release(&out);
	return rc;
}

int cmd_query(int argc, char **argv)
{
	struct args a = { 0 };
	graph_opts_init(&a.graph);
	a.default_countname = a.graph.svg.countname;
	int rc = parse_args(argc, argv, &a);
	if (!rc && a.help)
		fputs(query_usage, stdout);
	else if (!rc)
		rc = run(&a);
	graph_opts_release(&a.graph);
	free(a.labels);
	return rc;
}
