/* Flame-graph options shared by flamegraph, record and report (graph_opts.h). */
#include "cmd/graph_opts.h"
#include "cmd/option_table.h"
#include "cmd/output_format.h"
#include "cmd/usage.h"

#include "base/alloc.h"
#include "base/error.h"
#include "profile/ops.h"
#include "render/palette.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum {
	OPT_TITLE = GRAPH_OPT_FIRST, OPT_SUBTITLE, OPT_WIDTH, OPT_HEIGHT, OPT_MINWIDTH,
	OPT_FONTTYPE, OPT_FONTSIZE, OPT_FONTWIDTH, OPT_COUNTNAME, OPT_NAMETYPE, OPT_COLORS,
	OPT_BGCOLORS, OPT_HASH, OPT_RANDOM, OPT_CP, OPT_REVERSE, OPT_INVERTED, OPT_FLAMECHART,
	OPT_NEGATE, OPT_NOTES, OPT_FACTOR, OPT_TOTAL, OPT_NAMEATTR, OPT_ENCODING, OPT_INCLUDE,
	OPT_EXCLUDE, OPT_SEARCH_COLOR, OPT_TRUNC_RIGHT, OPT_TRUNC_LEFT, OPT_NO_JS, OPT_FORMAT,
	OPT_THREADS,
};

static const struct option graph_options[] = {
	{ "title", required_argument, NULL, OPT_TITLE },
	{ "subtitle", required_argument, NULL, OPT_SUBTITLE },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ "height", required_argument, NULL, OPT_HEIGHT },
	{ "minwidth", required_argument, NULL, OPT_MINWIDTH },
	{ "fonttype", required_argument, NULL, OPT_FONTTYPE },
	{ "fontsize", required_argument, NULL, OPT_FONTSIZE },
	{ "fontwidth", required_argument, NULL, OPT_FONTWIDTH },
	{ "countname", required_argument, NULL, OPT_COUNTNAME },
	{ "nametype", required_argument, NULL, OPT_NAMETYPE },
	{ "colors", required_argument, NULL, OPT_COLORS },
	{ "bgcolors", required_argument, NULL, OPT_BGCOLORS },
	{ "hash", no_argument, NULL, OPT_HASH },
	{ "random", no_argument, NULL, OPT_RANDOM },
	{ "cp", no_argument, NULL, OPT_CP },
	{ "reverse", no_argument, NULL, OPT_REVERSE },
	{ "inverted", no_argument, NULL, OPT_INVERTED },
	{ "flamechart", no_argument, NULL, OPT_FLAMECHART },
	{ "negate", no_argument, NULL, OPT_NEGATE },
	{ "notes", required_argument, NULL, OPT_NOTES },
	{ "factor", required_argument, NULL, OPT_FACTOR },
	{ "total", required_argument, NULL, OPT_TOTAL },
	{ "nameattr", required_argument, NULL, OPT_NAMEATTR },
	{ "encoding", required_argument, NULL, OPT_ENCODING },
	{ "include", required_argument, NULL, OPT_INCLUDE },
	{ "exclude", required_argument, NULL, OPT_EXCLUDE },
	{ "search-color", required_argument, NULL, OPT_SEARCH_COLOR },
	{ "truncate-text-right", no_argument, NULL, OPT_TRUNC_RIGHT },
	{ "truncate-text-left", no_argument, NULL, OPT_TRUNC_LEFT },
	{ "no-js", no_argument, NULL, OPT_NO_JS },
	{ "no-javascript", no_argument, NULL, OPT_NO_JS },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ NULL, 0, NULL, 0 },
};

struct option *graph_options_with(const struct option *own, const char *const *skip)
{
	return option_table_join(own, graph_options, skip);
}

void graph_opts_init(struct graph_opts *o)
{
	*o = (struct graph_opts){ 0 };
	svg_opts_defaults(&o->svg);
	o->layout.minwidth = 0.1;
	o->threads = 1; /* 2 helps only on idle cores: measured slower when they are busy */
}

static int bad_value(const char *opt, const char *arg, const char *what)
{
	error("--%s: '%s' is not %s", opt, arg, what);
	return -1;
}

static int parse_int(const char *opt, const char *arg, int *v)
{
	char *end;
	long x = strtol(arg, &end, 10);
	if (!*arg || *end || x <= 0 || x > 1000000)
		return bad_value(opt, arg, "a positive integer");
	*v = (int)x;
	return 0;
}

static int parse_float(const char *opt, const char *arg, double *v, bool positive)
{
	char *end;
	double x = strtod(arg, &end);
	if (!*arg || *end || x != x || (positive && !(x > 0)) || x > 1e300 || x < -1e300)
		return bad_value(opt, arg, positive ? "a positive number" : "a number");
	*v = x;
	return 0;
}

/* flamegraph.pl: ^([0-9.]+)%?$ */
static int parse_minwidth(const char *arg, struct layout_opts *l)
{
	size_t n = strlen(arg);
	bool pct = n && arg[n - 1] == '%';
	size_t digits = strspn(arg, "0123456789.");
	if (!digits || digits != n - pct)
		return bad_value("minwidth", arg, "a number of pixels or a percentage");
	l->minwidth = strtod(arg, NULL);
	l->minwidth_pct = pct;
	return 0;
}

int graph_opts_set(struct graph_opts *o, int code, const char *a)
{
	o->given++;
	switch (code) {
	case OPT_TITLE: o->svg.title = a; return 0;
	case OPT_SUBTITLE: o->svg.subtitle = a; return 0;
	case OPT_WIDTH: return parse_int("width", a, &o->svg.width);
	case OPT_HEIGHT: return parse_int("height", a, &o->svg.frame_height);
	case OPT_MINWIDTH: return parse_minwidth(a, &o->layout);
	case OPT_FONTTYPE: o->svg.fonttype = a; return 0;
	case OPT_FONTSIZE: return parse_float("fontsize", a, &o->svg.fontsize, true);
	case OPT_FONTWIDTH: return parse_float("fontwidth", a, &o->svg.fontwidth, true);
	case OPT_COUNTNAME: o->svg.countname = a; return 0;
	case OPT_NAMETYPE: o->svg.nametype = a; return 0;
	case OPT_COLORS: o->colors = a; return 0;
	case OPT_BGCOLORS: o->bgcolors = a; return 0;
	case OPT_HASH: o->hash = true; return 0;
	case OPT_RANDOM: o->random = true; return 0;
	case OPT_CP: o->cp = true; return 0;
	case OPT_REVERSE: o->reverse = true; return 0;
	case OPT_INVERTED: o->svg.inverted = true; return 0;
	case OPT_FLAMECHART: o->svg.flamechart = o->layout.flamechart = true; return 0;
	case OPT_NEGATE: o->svg.negate = true; return 0;
	case OPT_NOTES: o->svg.notes = a; return 0;
	case OPT_FACTOR: return parse_float("factor", a, &o->svg.factor, true);
	case OPT_TOTAL: return parse_float("total", a, &o->total, false);
	case OPT_NAMEATTR: o->nameattr_path = a; return 0;
	case OPT_ENCODING: o->svg.encoding = a; return 0;
	case OPT_INCLUDE: o->include = a; return 0;
	case OPT_EXCLUDE: o->exclude = a; return 0;
	case OPT_SEARCH_COLOR: o->svg.searchcolor = a; return 0;
	case OPT_TRUNC_RIGHT: o->svg.truncate_left = false; return 0;
	case OPT_TRUNC_LEFT: o->svg.truncate_left = true; return 0;
	case OPT_NO_JS: o->svg.no_js = true; return 0;
	case OPT_FORMAT:
		o->given--; /* chooses the writer, shapes no graph */
		o->format = graph_format_find(a);
		if (o->format == GRAPH_FORMAT_NONE)
			o->input_format = a;
		return 0;
	case OPT_THREADS: return parse_int("threads", a, &o->threads);
	}
	return error("internal: unknown graph option code %d", code);
}

static int check_regex(const char *pattern, const char *option)
{
	regex_t re;
	if (!pattern)
		return 0;
	if (stack_filter_compile(&re, pattern, option))
		return -1;
	regfree(&re);
	return 0;
}

int graph_opts_finish(struct graph_opts *o)
{
	if (o->colors) {
		o->svg.palette = palette_find(o->colors);
		if (o->svg.palette == PAL_UNKNOWN)
			warn("unknown palette '%s' (known: %s): frames will be black, as flamegraph.pl",
			     o->colors, palette_names);
	}
	if (!palette_background(o->bgcolors, o->svg.palette, o->svg.bg_top, o->svg.bg_bottom))
		return bad_value("bgcolors", o->bgcolors, "yellow, blue, green, grey or #rrggbb");
	o->svg.seed = o->hash ? SEED_HASH : o->random ? SEED_RANDOM : SEED_NAME;
	if (o->random)
		palette_rng_seed(&o->svg.rng, (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32);
	o->layout.image_width = o->svg.width;
	o->layout.total = o->total;
	return check_regex(o->include, "--include") || check_regex(o->exclude, "--exclude") ? -1 : 0;
}

int graph_opts_load(struct graph_opts *o)
{
	if (o->nameattr_path) {
		o->have_nameattr = true;
		if (nameattr_load(&o->nameattr, o->nameattr_path))
			return -1;
	}
	return 0;
}

void graph_opts_release(struct graph_opts *o)
{
	if (o->have_nameattr)
		nameattr_release(&o->nameattr);
	o->have_nameattr = false;
}

enum graph_format graph_opts_format(const struct graph_opts *o, const char *cmd, const char *output,
				     unsigned writes)
{
	return o->format != GRAPH_FORMAT_NONE ? o->format : output_format(cmd, output, writes);
}

int graph_opts_take(struct graph_opts *o, const char *cmd, int code, const char *arg,
		    char *const *argv)
{
	if (!graph_opt_code(code))
		usage_bad_option(cmd, code, argv);
	return graph_opts_set(o, code, arg) ? usage_hint(cmd) : 0;
}

int graph_opts_for_output(struct graph_opts *o, const char *cmd, const char *output, bool quiet,
			  enum graph_format *f)
{
	if (o->input_format)
		usage_error(cmd, "--format: '%s' is not an output format (%s)", o->input_format,
			    graph_format_names);
	if (graph_opts_finish(o))
		return usage_hint(cmd);
	*f = graph_opts_format(o, cmd, output, WRITES_FOLDED | WRITES_PICTURE | WRITES_DATA);
	if (o->given && !*f && !quiet)
		warn("flame graph options apply to graph output only (-o FILE.svg or FILE.html)");
	if (*f && graph_opts_load(o))
		return 1;
	return 0;
}
