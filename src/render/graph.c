/* The render path shared by flamegraph, record and report (render/graph.h). */
#include "render/graph.h"

#include "base/error.h"
#include "base/out.h"
#include "profile/ops.h"
#include "render/html.h"
#include "render/palette.h"

#include <string.h>
#include <strings.h>

const char graph_format_names[] = "svg, html";

enum graph_format graph_format_find(const char *name)
{
	if (!strcmp(name, "svg"))
		return GRAPH_FORMAT_SVG;
	if (!strcmp(name, "html"))
		return GRAPH_FORMAT_HTML;
	return GRAPH_FORMAT_NONE;
}

enum graph_format graph_format_for_path(const char *path)
{
	const char *dot = path ? strrchr(path, '.') : NULL;
	if (!dot || strchr(dot, '/'))
		return GRAPH_FORMAT_NONE;
	if (!strcasecmp(dot, ".svg"))
		return GRAPH_FORMAT_SVG;
	if (!strcasecmp(dot, ".html") || !strcasecmp(dot, ".htm"))
		return GRAPH_FORMAT_HTML;
	return GRAPH_FORMAT_NONE;
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

/* The graph itself, into an open output. */
static void write_graph(struct out *out, const struct profile *p, const struct layout *l,
			struct graph_opts *o, enum graph_format f)
{
	if (f == GRAPH_FORMAT_HTML)
		write_html(out, p, l, o);
	else if (o->dump_frames)
		svg_dump_frames(out, p, l, &o->svg);
	else
		svg_write(out, p, l, &o->svg);
}

int graph_render(struct profile *p, struct graph_opts *o, enum graph_format f, const char *output)
{
	if (o->reverse) {
		replace_profile(p, profile_reverse);
		o->reverse = false;
	}
	if ((o->include || o->exclude) && filter(p, o))
		return -2;
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
		write_graph(out, p, &l, o, f);
		ret = out_commit(out);
	}
	if (!ret && cp && palette_map_save(cp, "palette.map"))
		ret = -1;
	o->svg.cp = NULL;
	palette_map_free(cp);
	layout_release(&l);
	return ret;
}
