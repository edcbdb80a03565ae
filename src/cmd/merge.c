/* scorch merge: many profiles (any input scorch reads: folded, any collapse
 * format, perf.data, pprof) summed into one, optionally with a root frame
 * per input (NAME=FILE, or --label for the file's name), written in any
 * output format: ten hosts' profiles become one graph with a root per host.
 *
 * Parse the options, then run: every input loaded (cmd/load.c) into its own
 * profile and grafted under its root, written as folded text or a graph;
 * then clean up. */
#include "cmd/cmd.h"
#include "cmd/graph_opts.h"
#include "cmd/load.h"
#include "cmd/usage.h"

#include "base/alloc.h"
#include "base/error.h"
#include "profile/profile.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char merge_usage[] =
	"usage: scorch merge [OPTIONS] [NAME=]FILE... > merged.folded\n"
	"\n"
	"Sum profiles into one: folded stacks, any format `scorch collapse` reads\n"
	"(detected), perf.data (folded as `scorch report` folds it) and pprof\n"
	"(gzipped or not), compressed or not, mixed freely. NAME=FILE puts FILE's\n"
	"stacks under a root frame NAME (one root per host, per CPU, per run);\n"
	"FILE alone adds its stacks at the top. A FILE that exists is never split\n"
	"at its '='. A store (a directory, or file://DIR?from=-1h, or\n"
	"clickhouse://HOST:PORT/DB?from=-1h; also to, host, label) gives the\n"
	"stacks of its range (doc/fleet.md).\n"
	"\n"
	"options:\n"
	"  -o, --output FILE   write here (replaced only when all went well); FILE.svg,\n"
	"                      FILE.html, FILE.png, FILE.pb.gz, FILE.speedscope.json:\n"
	"                      that format, anything else: folded stacks\n"
	"      --format F      svg, html, png, pprof or speedscope whatever the -o name\n"
	"  -l, --label         a root frame for every FILE given without NAME=: its file\n"
	"                      name without directory and extensions (.folded, .gz, ...)\n"
	"      --sample-index I  pprof inputs: the value to sum, by sample type name (cpu,\n"
	"                      alloc_space, ...) or number from 0 (default: each\n"
	"                      profile's default type, else its last, as go tool pprof)\n"
	"  -h, --help          this help\n"
	"  every option of 'scorch flamegraph' for graph output (--title, --width, ...)\n"
	"\n"
	"Exit status: 0 ok, 1 an input could not be read, 2 usage error or nothing\n"
	"to draw.\n";

static const struct option own_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "label", no_argument, NULL, 'l' },
	{ "sample-index", required_argument, NULL, 'S' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* One input: its root frame name (NULL: none) and path. */
struct merge_input {
	char *root;
	const char *path;
};

/* "host1=a.folded" -> root "host1", path "a.folded"; an existing file, or an
 * argument without '=' (or starting with it), is a path. */
static struct merge_input split_arg(const char *arg, bool label)
{
	struct merge_input in = { NULL, arg };
	struct stat st;
	const char *eq = strchr(arg, '=');
	if (eq && eq != arg && stat(arg, &st) != 0) {
		in.root = xmemdup0(arg, (size_t)(eq - arg));
		in.path = eq + 1;
	} else if (label) {
		const char *base = strrchr(arg, '/');
		base = base ? base + 1 : arg;
		const char *dot = strchr(base, '.');
		size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
		in.root = xmemdup0(base, n);
	}
	return in;
}

static int merge_inputs(struct profile *p, const struct merge_input *ins, int n, const char *sample_index,
			const char **unit)
{
	*unit = NULL;
	for (int i = 0; i < n; i++) {
		struct profile one;
		profile_init(&one);
		const char *u = NULL;
		if (load_profile(&one, ins[i].path, sample_index, &u)) {
			profile_release(&one);
			return -1;
		}
		if (*unit && strcmp(*unit, u))
			warn("merge: %s counts %s, an earlier input counts %s: summed as they are",
			     ins[i].path, u, *unit);
		if (!*unit)
			*unit = u;
		node_t under = PROFILE_ROOT;
		if (ins[i].root)
			under = profile_push_str(p, PROFILE_ROOT, ins[i].root, strlen(ins[i].root));
		bool ok = profile_merge_under(p, &one, under);
		profile_release(&one);
		if (!ok)
			return error("merge: %s: the counts of one stack pass 2^64 - 1 with those before it",
				      ins[i].path);
	}
	return 0;
}

struct args {
	struct graph_opts graph;
	enum graph_format format; /* NONE: folded stacks */
	const char *output;
	const char *sample_index; /* pprof inputs: the value summed */
	const char *default_countname; /* to know whether --countname was given */
	bool label, help;
	char **files;
	int nr_files;
};

/* 0, or the exit status after a usage error the graph options reported. */
static int parse_args(int argc, char **argv, struct args *a)
{
	struct option *long_opts = graph_options_with(own_opts, NULL);
	int c, rc = 0;
	optind = 1;
	opterr = 0;
	while (!rc && !a->help && (c = getopt_long(argc, argv, ":o:lh", long_opts, NULL)) != -1) {
		switch (c) {
		case 'o': a->output = optarg; break;
		case 'l': a->label = true; break;
		case 'S': a->sample_index = optarg; break;
		case 'h': a->help = true; break;
		default:
			if (!graph_opt_code(c)) {
				free(long_opts); /* exits: nothing left behind for LeakSanitizer */
				usage_bad_option("merge", c, argv);
			}
			rc = graph_opts_take(&a->graph, "merge", c, optarg, argv);
		}
	}
	free(long_opts);
	if (rc || a->help)
		return rc;
	if (optind >= argc)
		usage_error("merge", "give the profiles to merge");
	a->files = argv + optind;
	a->nr_files = argc - optind;
	return graph_opts_for_output(&a->graph, "merge", a->output, false, &a->format);
}

/* Sum the inputs and write them: a graph, or folded stacks. */
static int run(struct args *a)
{
	int n = a->nr_files;
	struct merge_input *ins = xcalloc((size_t)n, sizeof(*ins));
	for (int i = 0; i < n; i++)
		ins[i] = split_arg(a->files[i], a->label);
	struct profile p;
	profile_init(&p);
	const char *unit;
	int rc = merge_inputs(&p, ins, n, a->sample_index, &unit) ? 1 : 0;
	if (!rc && a->format) {
		a->graph.count_unit = unit;
		if (unit && a->graph.svg.countname == a->default_countname)
			a->graph.svg.countname = unit;
		rc = graph_exit_code(graph_render(&p, &a->graph, a->format, a->output));
	} else if (!rc) {
		rc = save_profile(&p, a->output, GRAPH_FORMAT_NONE, unit) ? 1 : 0;
	}
	profile_release(&p);
	for (int i = 0; i < n; i++)
		free(ins[i].root);
	free(ins);
	return rc;
}

int cmd_merge(int argc, char **argv)
{
	struct args a = { 0 };
	graph_opts_init(&a.graph);
	a.default_countname = a.graph.svg.countname;
	int rc = parse_args(argc, argv, &a);
	if (!rc && a.help)
		fputs(merge_usage, stdout);
	else if (!rc)
		rc = run(&a);
	graph_opts_release(&a.graph);
	return rc;
}
