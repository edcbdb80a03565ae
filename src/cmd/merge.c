/* scorch merge: many profiles (any input scorch reads: folded, any collapse
 * format, perf.data, pprof) summed into one, optionally with a root frame
 * per input (NAME=FILE, or --label for the file's name), written in any
 * output format: ten hosts' profiles become one graph with a root per host.
 *
 * argv -> options -> every input loaded (cmd/load.c) into its own profile,
 * then grafted under its root -> folded text, or graph_render. */
#include "cmd/cmd.h"
#include "cmd/graph_opts.h"
#include "cmd/load.h"
#include "cmd/usage.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/out.h"
#include "profile/folded.h"
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
	"at its '='.\n"
	"\n"
	"options:\n"
	"  -o, --output FILE   write here (replaced only when all went well); FILE.svg,\n"
	"                      FILE.html, FILE.png, FILE.pb.gz, FILE.speedscope.json:\n"
	"                      that format, anything else: folded stacks\n"
	"      --format F      svg, html, png, pprof or speedscope whatever the -o name\n"
	"  -l, --label         a root frame for every FILE given without NAME=: its file\n"
	"                      name without directory and extensions (.folded, .gz, ...)\n"
	"  -h, --help          this help\n"
	"  every option of 'scorch flamegraph' for graph output (--title, --width, ...)\n"
	"\n"
	"Exit status: 0 ok, 1 an input could not be read, 2 usage error or nothing\n"
	"to draw.\n";

static const struct option own_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "label", no_argument, NULL, 'l' },
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

static int merge_inputs(struct profile *p, const struct merge_input *ins, int n, const char **unit)
{
	*unit = NULL;
	for (int i = 0; i < n; i++) {
		struct profile one;
		profile_init(&one);
		const char *u = NULL;
		if (load_profile(&one, ins[i].path, &u)) {
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
		profile_merge_under(p, &one, under);
		profile_release(&one);
	}
	return 0;
}

int cmd_merge(int argc, char **argv)
{
	const char *output = NULL;
	bool label = false;
	struct graph_opts g;
	graph_opts_init(&g);
	struct option *long_opts = graph_options_with(own_opts, NULL);
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:lh", long_opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'l':
			label = true;
			break;
		case 'h':
			fputs(merge_usage, stdout);
			free(long_opts);
			graph_opts_release(&g);
			return 0;
		default: {
			int rc = graph_opts_take(&g, "merge", c, optarg, argv);
			if (rc) {
				free(long_opts);
				graph_opts_release(&g);
				return rc;
			}
			break;
		}
		}
	}
	free(long_opts);
	if (optind >= argc)
		usage_error("merge", "give the profiles to merge");
	enum graph_format graph;
	int usage_rc = graph_opts_for_output(&g, "merge", output, false, &graph);
	if (usage_rc) {
		graph_opts_release(&g);
		return usage_rc;
	}

	int n = argc - optind;
	struct merge_input *ins = xcalloc((size_t)n, sizeof(*ins));
	for (int i = 0; i < n; i++)
		ins[i] = split_arg(argv[optind + i], label);
	struct profile p;
	profile_init(&p);
	const char *unit;
	int rc = merge_inputs(&p, ins, n, &unit) ? 1 : 0;
	if (!rc && graph) {
		g.count_unit = unit;
		rc = graph_exit_code(graph_render(&p, &g, graph, output));
	} else if (!rc) {
		struct out *out = out_open(output);
		if (!out) {
			rc = 1;
		} else {
			folded_write(&p, out);
			rc = out_commit(out) ? 1 : 0;
		}
	}
	profile_release(&p);
	for (int i = 0; i < n; i++)
		free(ins[i].root);
	free(ins);
	graph_opts_release(&g);
	return rc;
}
