/* scorch flamegraph: a drop-in flamegraph.pl. Options keep flamegraph.pl's
 * names and meanings (long options, single-dash and unique prefixes as
 * Getopt::Long); input is folded stacks, or any format collapse detects. */
#include "cmd/cmd.h"
#include "cmd/graph_opts.h"
#include "cmd/load.h"
#include "cmd/output_format.h"
#include "cmd/time_arg.h"
#include "cmd/usage.h"
#include "profile/time_cells.h"


#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

const char flamegraph_usage[] =
	"usage: scorch flamegraph [OPTIONS] [FILE...] > graph.svg\n"
	"\n"
	"Draw folded stacks (\"a;b;c COUNT\", or \"STACK BEFORE AFTER\" for a\n"
	"differential graph) from the FILEs (summed) or stdin as an SVG flame graph.\n"
	"Input in another supported profiler format is collapsed first.\n"
	"Options are flamegraph.pl's (--opt=value or --opt value, unique prefixes):\n"
	"  --title TEXT        title (default \"Flame Graph\")\n"
	"  --subtitle TEXT     second title line\n"
	"  --width N           image width in px (1200)\n"
	"  --height N          frame height in px (16)\n"
	"  --minwidth N[%]     omit frames narrower than N px, or N% of the total (0.1;\n"
	"                      SVG only: the HTML viewer keeps every frame)\n"
	"  --fonttype FONT     font family (Verdana)\n"
	"  --fontsize N        font size (12)\n"
	"  --fontwidth F       average glyph width relative to the size (0.59)\n"
	"  --countname TEXT    count unit in tooltips (samples)\n"
	"  --nametype TEXT     tooltip prefix (Function:)\n"
	"  --colors PALETTE    hot mem io wakeup chain java js perl red green blue\n"
	"                      aqua yellow purple orange wall (hot; wall: record --wall's)\n"
	"  --bgcolors COLOR    yellow blue green grey or #rrggbb\n"
	"  --hash              colour by name hash (stable across graphs)\n"
	"  --random            random colours\n"
	"  --cp                consistent palette: read and update ./palette.map\n"
	"  --reverse           reverse stacks (leaf becomes the root)\n"
	"  --inverted          icicle graph (root at the top)\n"
	"  --flamechart        flame chart: input order, only adjacent stacks merge\n"
	"  --negate            swap the differential colours (blue = growth)\n"
	"  --notes TEXT        notes embedded in a comment\n"
	"  --factor F          multiply displayed counts by F\n"
	"  --total N           full width = N (when above the real total)\n"
	"  --nameattr FILE     per-function SVG attributes (NAME<TAB>key=value...)\n"
	"  --encoding ENC      XML encoding declaration\n"
	"scorch additions:\n"
	"  -o, --output FILE   write here (only when the run succeeds) instead of stdout;\n"
	"                      FILE.pb.gz: pprof, FILE.speedscope.json: speedscope\n"
	"  --include REGEX     keep only stacks matching REGEX (POSIX extended,\n"
	"                      on \"a;b;c\"); --exclude REGEX drops matching stacks\n"
	"  --search-color C    search highlight colour (rgb(230,0,230))\n"
	"  --truncate-text-left  long labels keep their end (\"..name\")\n"
	"  --truncate-text-right long labels keep their start (the default)\n"
	"  --no-js             omit the interactive script\n"
	"  -o FILE.html        the interactive HTML viewer instead of an SVG (one\n"
	"                      self-contained file; also --format html)\n"
	"  -o FILE.png         the SVG's picture as PNG (cairo); -o FILE.pb.gz: pprof;\n"
	"                      -o FILE.speedscope.json: speedscope\n"
	"  --format NAME       output format (svg, html, png, pprof, speedscope), or the input\n"
	"                      format instead of detecting it (see scorch collapse --list)\n"
	"  --sample-index I    pprof input: the value to draw, by sample type name (cpu,\n"
	"                      alloc_space, ...) or number from 0 (default: the profile's\n"
	"                      default type, else its last); tooltips say its unit (ns)\n"
	"  --time START,END    perf script text: only samples in this range (perf report's\n"
	"                      spelling, as scorch report --time)\n"
	"  --threads N         1 (default): one thread; 2: one thread splits and hashes\n"
	"                      lines while the other builds the profile (faster on idle\n"
	"                      cores, slower when they are busy)\n";

enum { OPT_HELP = 256, OPT_DUMP_FRAMES, OPT_SAMPLE_INDEX, OPT_TIME };

/* Followed by the graph options (cmd/graph_opts.c). */
static const struct option own_options[] = {
	{ "help", no_argument, NULL, OPT_HELP },
	{ "output", required_argument, NULL, 'o' },
	{ "dump-frames", no_argument, NULL, OPT_DUMP_FRAMES },
	{ "sample-index", required_argument, NULL, OPT_SAMPLE_INDEX },
	{ "time", required_argument, NULL, OPT_TIME },
	{ NULL, 0, NULL, 0 },
};

struct fg_opts {
	struct graph_opts graph;
	const char *output;
	const char *sample_index; /* pprof input: the value drawn */
	struct time_ranges *time; /* --time, or NULL */
	char **files;
	int nr_files;
	bool help;
};

/* 0, or -1 after a bad option value was printed (a usage error). */
static int parse_args(int argc, char **argv, struct fg_opts *o)
{
	struct option *options = graph_options_with(own_options, NULL);
	optind = 1;
	opterr = 0;
	int c, ret = 0;
	while (!ret && !o->help && (c = getopt_long_only(argc, argv, ":o:h", options, NULL)) != -1) {
		if (graph_opt_code(c)) {
			ret = graph_opts_set(&o->graph, c, optarg);
			continue;
		}
		switch (c) {
		case OPT_DUMP_FRAMES: o->graph.dump_frames = true; break;
		case OPT_SAMPLE_INDEX: o->sample_index = optarg; break;
		case OPT_TIME: free(o->time); o->time = time_arg_parse("flamegraph", optarg); break;
		case 'o': o->output = optarg; break;
		case 'h':
		case OPT_HELP: o->help = true; break;
		default:
			free(options); /* usage_bad_option exits */
			usage_bad_option("flamegraph", c, argv);
		}
	}
	free(options);
	if (ret || o->help)
		return ret;
	o->files = argv + optind;
	o->nr_files = argc - optind;
	if (o->graph.format == GRAPH_FORMAT_NONE && !o->graph.dump_frames)
		output_format("flamegraph", o->output, WRITES_PICTURE | WRITES_DATA);
	return graph_opts_finish(&o->graph);
}

/* Read the inputs (stdin when none) into one profile and draw it. */
static int run(struct fg_opts *o)
{
	if (graph_opts_load(&o->graph))
		return 1;
	static char *stdin_only[] = { "-" };
	char **files = o->nr_files ? o->files : stdin_only;
	int nr_files = o->nr_files ? o->nr_files : 1;
	for (int i = 0; i < nr_files; i++)
		usage_stdin_not_terminal("flamegraph", files[i], "stacks");
	const char *unit = NULL; /* what a pprof input counts */
	struct stacks_opts so = { o->graph.input_format, o->graph.reverse, o->graph.threads, o->sample_index,
				  &unit, o->time };
	enum graph_format f = graph_opts_format(&o->graph, "flamegraph", o->output, WRITES_PICTURE | WRITES_DATA);
	struct svg_opts defaults;
	svg_opts_defaults(&defaults); /* to know whether --countname was given */
	struct profile p;
	profile_init(&p);
	p.keep_events = o->graph.layout.flamechart;
	if (f == GRAPH_FORMAT_HTML) /* the heat map, when the input has times */
		profile_keep_time(&p);
	int ret = 0;
	for (int i = 0; i < nr_files && !ret; i++)
		if (load_stacks(&p, files[i], &so)) {
			time_arg_check("flamegraph", o->time);
			ret = 1;
		}
	if (!ret) {
		o->graph.reverse = false; /* done while reading */
		/* A pprof input says what it counts (nanoseconds of CPU, bytes) */
		if (unit && o->graph.svg.countname == defaults.countname)
			o->graph.svg.countname = unit;
		o->graph.count_unit = unit;
		ret = graph_exit_code(graph_render(&p, &o->graph, f ? f : GRAPH_FORMAT_SVG, o->output));
	}
	profile_release(&p);
	return ret;
}

int cmd_flamegraph(int argc, char **argv)
{
	struct fg_opts o = { 0 };
	graph_opts_init(&o.graph);
	int ret = parse_args(argc, argv, &o);
	if (ret)
		ret = usage_hint("flamegraph");
	else if (o.help)
		fputs(flamegraph_usage, stdout);
	else
		ret = run(&o);
	graph_opts_release(&o.graph);
	free(o.time);
	return ret;
}
