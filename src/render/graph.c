/* The render path shared by flamegraph, record and report (render/graph.h). */
#include "render/graph.h"

#include "base/error.h"
#include "base/out.h"
#include "profile/ops.h"
#include "render/html.h"
#include "render/palette.h"
#ifdef HAVE_CAIRO
#include "render/png.h"
#endif
#include "render/pprof.h"
#include "render/speedscope.h"

#include <inttypes.h>
#include <string.h>
#include <strings.h>

const char graph_format_names[] = "svg, html, png, pprof, speedscope";

static const struct {
	const char *name;
	enum graph_format format;
} format_names[] = {
	{ "svg", GRAPH_FORMAT_SVG },
	{ "html", GRAPH_FORMAT_HTML },
	{ "png", GRAPH_FORMAT_PNG },
	{ "pprof", GRAPH_FORMAT_PPROF },
	{ "speedscope", GRAPH_FORMAT_SPEEDSCOPE },
};

/* Output file name endings; the longest that matches wins. */
static const struct {
	const char *suffix;
	enum graph_format format;
} format_suffixes[] = {
	{ ".svg", GRAPH_FORMAT_SVG },
	{ ".html", GRAPH_FORMAT_HTML },
	{ ".htm", GRAPH_FORMAT_HTML },
	{ ".png", GRAPH_FORMAT_PNG },
	{ ".pb.gz", GRAPH_FORMAT_PPROF },
	{ ".pprof", GRAPH_FORMAT_PPROF },
	{ ".speedscope.json", GRAPH_FORMAT_SPEEDSCOPE },
};

enum graph_format graph_format_find(const char *name)
{
	for (size_t i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++)
		if (!strcmp(name, format_names[i].name))
			return format_names[i].format;
	return GRAPH_FORMAT_NONE;
}

const char *graph_format_suffix(enum graph_format f)
{
	for (size_t i = 0; i < sizeof(format_suffixes) / sizeof(format_suffixes[0]); i++)
		if (format_suffixes[i].format == f)
			return format_suffixes[i].suffix;
	return "";
}

enum graph_format graph_format_for_path(const char *path)
{
	size_t n = path ? strlen(path) : 0;
	for (size_t i = 0; i < sizeof(format_suffixes) / sizeof(format_suffixes[0]); i++) {
		size_t k = strlen(format_suffixes[i].suffix);
		if (n > k && path[n - k - 1] != '/' && !strcasecmp(path + n - k, format_suffixes[i].suffix))
			return format_suffixes[i].format;
	}
	return GRAPH_FORMAT_NONE;
}

/* Formats that carry the stacks themselves rather than a picture of them. */
bool graph_format_is_data(enum graph_format f)
{
	return f == GRAPH_FORMAT_PPROF || f == GRAPH_FORMAT_SPEEDSCOPE;
}

void graph_write_data(struct out *out, const struct profile *p, enum graph_format f,
		      const struct pprof_opts *po)
{
	if (f == GRAPH_FORMAT_PPROF) {
		pprof_write(out, p, po);
	} else if (f == GRAPH_FORMAT_SPEEDSCOPE) {
		speedscope_write(out, p, po ? po->count_unit : NULL);
	} else {
		BUG("not a data format");
	}
}

static int render_data(struct profile *p, struct graph_opts *o, enum graph_format f, const char *output)
{
	if (profile_total(p, 0) == 0 && profile_total(p, 1) == 0) {
		error("no stack counts found in the input");
		return -2;
	}
	struct out *out = out_open(output);
	if (!out)
		return -1;
	struct pprof_opts po = { .count_unit = o->count_unit, .period_ns = o->period_ns,
				 .time_ns = o->time_ns, .duration_ns = o->duration_ns };
	graph_write_data(out, p, f, &po);
	return out_commit(out);
}

static void replace_profile(struct profile *p, void (*op)(struct profile *, const struct profile *))
{
	struct profile q;
	profile_init(&q);
	op(&q, p);
	profile_release(p);
	*p = q;
}

static int filter(struct profile *p, const struct graph_opts *o)
{
	regex_t inc, exc;
	struct stack_filter f = { NULL, NULL };
	if (o->include) {
		if (stack_filter_compile(&inc, o->include, "--include"))
			return -1;
		f.include = &inc;
	}
	if (o->exclude) {
		if (stack_filter_compile(&exc, o->exclude, "--exclude")) {
			if (f.include)
				regfree(&inc);
			return -1;
		}
		f.exclude = &exc;
	}
	struct profile q;
	profile_init(&q);
	profile_filter(&q, p, &f);
	profile_release(p);
	*p = q;
	if (f.include)
		regfree(&inc);
	if (f.exclude)
		regfree(&exc);
	return 0;
}

/* The HTML viewer: l is the merged graph with every frame; a profile kept
 * in input order (--flamechart) also gets its flame chart. */
static void write_html(struct out *out, const struct profile *p, const struct layout *l,
		       struct graph_opts *o)
{
	if (!(o->layout.flamechart && p->keep_events)) {
		html_write(out, p, l, &o->svg, NULL);
		return;
	}
	struct layout_opts lo = o->layout;
	lo.minwidth = 0;
	struct layout chart;
	layout_build(&chart, p, &lo);
	html_write(out, p, l, &o->svg, &chart);
	layout_release(&chart);
}

/* The graph itself, into an open output: 0, or -1 (error printed). */
static int write_graph(struct out *out, const struct profile *p, const struct layout *l,
		       struct graph_opts *o, enum graph_format f)
{
	if (o->dump_frames)
		svg_dump_frames(out, p, l, &o->svg);
	else if (f == GRAPH_FORMAT_HTML)
		write_html(out, p, l, o);
	else if (f == GRAPH_FORMAT_PNG)
#ifdef HAVE_CAIRO
		return png_write(out, p, l, &o->svg);
#else
		return error("PNG output needs cairo and pango, which this scorch was built "
			     "without (scorch version; Debian: libcairo2-dev libpango1.0-dev)");
#endif
	else
		svg_write(out, p, l, &o->svg);
	return 0;
}

/* Whole counts whose sum passes 2^64 - 1 (or that did so while they were
 * added) cannot be drawn or written truthfully. */
static int check_sums(const struct profile *p)
{
	uint64_t sum;
	if (p->overflow || (!p->fractional && (!profile_total_whole(p, 0, &sum) ||
					       !profile_total_whole(p, 1, &sum))))
		return error("the counts sum past %" PRIu64 " (2^64 - 1)", UINT64_MAX);
	return 0;
}

int graph_render(struct profile *p, struct graph_opts *o, enum graph_format f, const char *output)
{
	if (check_sums(p))
		return -1;
	if (o->reverse) {
		replace_profile(p, profile_reverse);
		o->reverse = false;
	}
	if ((o->include || o->exclude) && filter(p, o))
		return -2;
	if (graph_format_is_data(f))
		return render_data(p, o, f, output);
	if (o->svg.palette == PAL_CHAIN)
		replace_profile(p, profile_chain);

	struct layout_opts lo = o->layout;
	if (f == GRAPH_FORMAT_HTML) {
		lo.minwidth = 0;        /* the viewer merges narrow frames as it draws */
		lo.flamechart = false;  /* the merged graph; the chart comes second */
	}
	struct layout l;
	layout_build(&l, p, &lo);
	if (l.total == 0) {
		error("no stack counts found in the input");
		layout_release(&l);
		if (!output && !o->dump_frames && f == GRAPH_FORMAT_SVG) {
			struct out *e = out_open(NULL);
			svg_write_error(e, &o->svg, "ERROR: No valid input provided to flamegraph.");
			out_commit(e);
		}
		return -2;
	}
	if (o->total && o->total < l.total)
		warn("specified --total %.15g is less than the actual total %.15g, so ignored",
		     o->total, l.total);

	o->svg.nameattr = o->have_nameattr ? &o->nameattr : NULL;
	if (o->have_nameattr && f == GRAPH_FORMAT_HTML)
		warn("--nameattr applies to SVG output only; the HTML viewer ignores it");
	struct palette_map *cp = NULL;
	if (o->cp) {
		size_t ignored = 0;
		cp = palette_map_new();
		if (palette_map_load(cp, "palette.map", &ignored)) {
			palette_map_free(cp);
			layout_release(&l);
			return -1;
		}
		if (ignored)
			warn("palette.map: ignored %zu lines with invalid format", ignored);
		o->svg.cp = cp;
	}
	struct out *out = out_open(output);
	int ret = -1;
	if (out) {
		if (write_graph(out, p, &l, o, f))
			out_abort(out);
		else
			ret = out_commit(out);
	}
	if (!ret && cp && palette_map_save(cp, "palette.map"))
		ret = -1;
	o->svg.cp = NULL;
	palette_map_free(cp);
	layout_release(&l);
	return ret;
}
