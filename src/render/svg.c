#include "render/svg.h"

#include "base/alloc.h"
#include "base/numfmt.h"
#include "render/escape.h"
#include "gen/flamegraph_js.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void svg_opts_defaults(struct svg_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->notes = "";
	o->fonttype = "Verdana";
	o->countname = "samples";
	o->nametype = "Function:";
	o->searchcolor = "rgb(230,0,230)";
	o->width = 1200;
	o->frame_height = 16;
	o->fontsize = 12;
	o->fontwidth = 0.59;
	o->factor = 1;
	o->palette = PAL_HOT;
	o->seed = SEED_NAME;
}

/* Perl's default number stringification. */
static void put_num(struct out *o, double v)
{
	char b[NUMFMT_BUF];
	out_write(o, b, numfmt_g15(b, v));
}

/* printf's "%.<decimals>f" */
static void put_fixed(struct out *o, double v, int decimals)
{
	char b[NUMFMT_BUF];
	out_write(o, b, numfmt_fixed(b, v, decimals));
}

static double round1(double v)
{
	return numfmt_round(v, 1);
}

struct svg_geometry svg_geometry(const struct layout *l, const struct svg_opts *s)
{
	struct svg_geometry g;
	g.fs = s->fontsize;
	g.H = s->frame_height;
	g.ypad1 = g.fs * 3;
	g.ypad2 = g.fs * 2 + 10;
	g.ypad3 = g.fs * 2;
	g.imageheight = (l->depthmax + 1) * g.H + g.ypad1 + g.ypad2;
	if (s->subtitle && *s->subtitle)
		g.imageheight += g.ypad3;
	g.wpt = l->timemax > 0 ? (s->width - 2 * LAYOUT_XPAD) / l->timemax : 0;
	return g;
}

const char *svg_title(const struct svg_opts *s)
{
	if (s->title)
		return s->title;
	if (s->flamechart)
		return "Flame Chart";
	return s->inverted ? "Icicle Graph" : "Flame Graph";
}

/* Name shown: without a trailing _[k] _[w] _[i] _[j] annotation. */
static size_t display_len(const char *name, size_t n)
{
	if (n >= 4 && name[n - 4] == '_' && name[n - 3] == '[' && name[n - 1] == ']' &&
	    strchr("kwij", name[n - 2]) && name[n - 2])
		return n - 4;
	return n;
}

static void put_commified(struct out *o, const char *digits)
{
	size_t n = strlen(digits), lead = 0;
	if (digits[0] == '-') {
		out_putc(o, '-');
		digits++, n--;
	}
	lead = n % 3 ? n % 3 : 3;
	out_write(o, digits, lead);
	for (size_t i = lead; i < n; i += 3) {
		out_putc(o, ',');
		out_write(o, digits + i, 3);
	}
}

/* The last number written at one place in the frames and its text:
 * frames come sorted by depth, so consecutive ones often repeat their y
 * coordinates and heights. */
struct num_memo {
	double v;
	size_t n; /* 0: nothing yet */
	char s[NUMFMT_BUF];
};

static void put_num_memo(struct out *o, struct num_memo *m, double v)
{
	if (!m->n || memcmp(&m->v, &v, sizeof(v))) {
		m->v = v;
		m->n = numfmt_g15(m->s, v);
	}
	out_write(o, m->s, m->n);
}

static void put_fixed1_memo(struct out *o, struct num_memo *m, double v)
{
	if (!m->n || memcmp(&m->v, &v, sizeof(v))) {
		m->v = v;
		m->n = numfmt_fixed(m->s, v, 1);
	}
	out_write(o, m->s, m->n);
}

/* What write_frame keeps from one frame to the next. */
struct frame_writer {
	struct num_memo y, text_y, height;
	char *countname; /* escaped once (ESC_QUOT) */
	size_t countname_len;
};

static void put_countname(struct out *o, const struct svg_opts *s, const struct frame_writer *w)
{
	if (w)
		out_write(o, w->countname, w->countname_len);
	else
		xml_escape_str(o, s->countname, ESC_QUOT);
}

/* Whether f's count is its exact width (whole counts, no --factor, not a
 * root widened by --total). */
static bool exact_width(const struct layout *l, const struct frame *f, const struct svg_opts *s)
{
	return l->whole && s->factor == 1 && (f->node != PROFILE_ROOT || l->timemax == l->total);
}

/* "NAME (S countname, P%[; D%])" with flamegraph.pl's rounding. w: NULL,
 * or what is kept between frames. */
static void put_title(struct out *o, const struct profile *p, const struct layout *l,
		      const struct frame *f, const struct svg_opts *s, const struct frame_writer *w)
{
	char num[NUMFMT_BUF];
	double samples = (f->etime - f->stime) * s->factor;
	if (exact_width(l, f, s))
		num[numfmt_u64(num, f->width)] = '\0';
	else
		numfmt_fixed(num, samples, 0);
	if (f->node == PROFILE_ROOT) {
		out_puts(o, "all (");
		put_commified(o, num);
		out_putc(o, ' ');
		put_countname(o, s, w);
		out_puts(o, ", 100%)");
		return;
	}
	const char *name = profile_name(p, f->node);
	size_t n = display_len(name, profile_name_len(p, f->node));
	xml_escape(o, name, n, ESC_QUOT);
	out_puts(o, " (");
	put_commified(o, num);
	out_putc(o, ' ');
	put_countname(o, s, w);
	double denom = l->timemax * s->factor;
	out_puts(o, ", ");
	put_fixed(o, 100 * numfmt_round(samples, 0) / denom, 2);
	out_putc(o, '%');
	if (l->differential) {
		double d = s->negate ? -f->delta : f->delta;
		if (d == 0)
			d = 0; /* no "-0.00%" */
		out_puts(o, d > 0 ? "; +" : "; ");
		put_fixed(o, 100 * d / denom, 2);
		out_putc(o, '%');
	}
	out_putc(o, ')');
}

struct svg_label svg_label(const struct profile *p, const struct frame *f, double width_px,
			   const struct svg_opts *s)
{
	struct svg_label lb = { "", 0, 0 };
	if (f->node == PROFILE_ROOT)
		return lb; /* flamegraph.pl leaves the root label empty */
	double cw = s->fontsize * s->fontwidth;
	double fit = cw > 0 ? width_px / cw : 0;
	if (!(fit >= 3))
		return lb;
	size_t chars = fit > 1e9 ? (size_t)1e9 : (size_t)fit;
	const char *name = profile_name(p, f->node);
	size_t n = display_len(name, profile_name_len(p, f->node));
	size_t have = utf8_chars(name, n);
	lb.text = name;
	lb.len = n;
	if (have <= chars)
		return lb;
	if (s->truncate_left) {
		size_t off = utf8_offset(name, n, have - (chars - 2));
		lb.text = name + off;
		lb.len = n - off;
		lb.dots = -1;
	} else {
		lb.len = utf8_offset(name, n, chars - 2);
		lb.dots = 1;
	}
	return lb;
}

static void put_label(struct out *o, const struct profile *p, const struct frame *f,
		      double width_px, const struct svg_opts *s)
{
	struct svg_label lb = svg_label(p, f, width_px, s);
	if (lb.dots < 0)
		out_puts(o, "..");
	xml_escape(o, lb.text, lb.len, 0);
	if (lb.dots > 0)
		out_puts(o, "..");
}

/* The "--" and "-" separator frames are grey whatever the palette. */
static bool separator_fill(const char *name, size_t n, struct rgb *c)
{
	if (n == 2 && name[0] == '-' && name[1] == '-')
		*c = (struct rgb){ 160, 160, 160 };
	else if (n == 1 && name[0] == '-')
		*c = (struct rgb){ 200, 200, 200 };
	else
		return false;
	return true;
}

struct rgb svg_name_fill(const struct profile *p, node_t node, struct svg_opts *s)
{
	const char *name = profile_name(p, node);
	size_t n = profile_name_len(p, node);
	struct rgb c;
	if (separator_fill(name, n, &c))
		return c;
	if (s->cp && palette_map_get(s->cp, name, n, &c))
		return c;
	c = palette_color(s->palette, s->seed, &s->rng, name, n);
	if (s->cp)
		palette_map_put(s->cp, name, n, c);
	return c;
}

struct rgb svg_frame_fill(const struct profile *p, const struct layout *l, const struct frame *f,
			  struct svg_opts *s)
{
	struct rgb c;
	if (separator_fill(profile_name(p, f->node), profile_name_len(p, f->node), &c))
		return c;
	if (l->differential)
		return palette_diff(s->negate ? -f->delta : f->delta, l->maxdelta);
	return svg_name_fill(p, f->node, s);
}

struct svg_box svg_frame_box(const struct frame *f, const struct svg_geometry *g, const struct svg_opts *s)
{
	struct svg_box b;
	b.x1 = LAYOUT_XPAD + f->stime * g->wpt;
	b.x2 = LAYOUT_XPAD + f->etime * g->wpt;
	if (s->inverted) {
		b.y1 = g->ypad1 + f->depth * g->H;
		b.y2 = g->ypad1 + (f->depth + 1) * g->H - 1;
	} else {
		b.y1 = g->imageheight - g->ypad2 - (f->depth + 1) * g->H + 1;
		b.y2 = g->imageheight - g->ypad2 - f->depth * g->H;
	}
	return b;
}

static void put_attr(struct out *o, const char *k, const char *v)
{
	out_putc(o, ' ');
	out_puts(o, k);
	out_puts(o, "=\"");
	xml_escape_str(o, v, ESC_QUOT);
	out_putc(o, '"');
}

static void write_frame(struct out *o, const struct profile *p, const struct layout *l,
			const struct frame *f, const struct svg_geometry *g, struct svg_opts *s,
			struct frame_writer *w)
{
	const struct nameattr_entry *na = NULL;
	if (s->nameattr)
		na = nameattr_find(s->nameattr, profile_name(p, f->node), profile_name_len(p, f->node));
	struct svg_box b = svg_frame_box(f, g, s);
	if (na && na->href) {
		out_puts(o, "<a");
		put_attr(o, "xlink:href", na->href);
		put_attr(o, "target", na->target ? na->target : "_top");
		for (size_t i = 0; i < na->g_nr; i++)
			put_attr(o, na->g_attrs[i].key, na->g_attrs[i].value);
		for (size_t i = 0; i < na->a_nr; i++)
			put_attr(o, na->a_attrs[i].key, na->a_attrs[i].value);
		out_puts(o, ">\n");
	} else if (na) {
		out_puts(o, "<g");
		for (size_t i = 0; i < na->g_nr; i++)
			put_attr(o, na->g_attrs[i].key, na->g_attrs[i].value);
		out_puts(o, ">\n");
	} else {
		out_puts(o, "<g >\n");
	}
	out_puts(o, "<title>");
	if (na && na->title)
		xml_escape_str(o, na->title, ESC_QUOT);
	else
		put_title(o, p, l, f, s, w);
	out_puts(o, "</title><rect x=\"");
	double rx1 = round1(b.x1), rx2 = round1(b.x2);
	put_fixed(o, rx1, 1);
	out_puts(o, "\" y=\"");
	put_num_memo(o, &w->y, b.y1);
	struct rgb c = svg_frame_fill(p, l, f, s);
	out_puts(o, "\" width=\"");
	put_fixed(o, rx2 - rx1, 1);
	out_puts(o, "\" height=\"");
	put_fixed1_memo(o, &w->height, b.y2 - b.y1);
	out_puts(o, "\" fill=\"rgb(");
	out_u64(o, c.r);
	out_putc(o, ',');
	out_u64(o, c.g);
	out_putc(o, ',');
	out_u64(o, c.b);
	out_puts(o, ")\" rx=\"2\" ry=\"2\" />\n<text  x=\"");
	put_fixed(o, b.x1 + 3, 2);
	out_puts(o, "\" y=\"");
	put_num_memo(o, &w->text_y, 3 + (b.y1 + b.y2) / 2);
	out_puts(o, "\" >");
	put_label(o, p, f, b.x2 - b.x1, s);
	out_puts(o, "</text>\n");
	out_puts(o, na && na->href ? "</a>\n" : "</g>\n");
}

void svg_dump_frames(struct out *o, const struct profile *p, const struct layout *l,
		     struct svg_opts *s)
{
	struct svg_geometry g = svg_geometry(l, s);
	out_puts(o, "# title\tx\ty\twidth\theight\tfill\ttext_x\ttext_y\ttext\n");
	for (size_t i = 0; i < l->nr; i++) {
		const struct frame *f = &l->frames[i];
		struct svg_box b = svg_frame_box(f, &g, s);
		const struct nameattr_entry *na = NULL;
		if (s->nameattr)
			na = nameattr_find(s->nameattr, profile_name(p, f->node),
					   profile_name_len(p, f->node));
		if (na && na->title)
			xml_escape_str(o, na->title, ESC_QUOT);
		else
			put_title(o, p, l, f, s, NULL);
		double rx1 = round1(b.x1), rx2 = round1(b.x2);
		out_printf(o, "\t%.1f\t", rx1);
		put_num(o, b.y1);
		struct rgb c = svg_frame_fill(p, l, f, s);
		out_printf(o, "\t%.1f\t%.1f\trgb(%u,%u,%u)\t%.2f\t", rx2 - rx1, b.y2 - b.y1, c.r, c.g,
			   c.b, b.x1 + 3);
		put_num(o, 3 + (b.y1 + b.y2) / 2);
		out_putc(o, '\t');
		put_label(o, p, f, b.x2 - b.x1, s);
		out_putc(o, '\n');
	}
}

static void write_header(struct out *o, const struct svg_opts *s, double height)
{
	out_puts(o, "<?xml version=\"1.0\"");
	if (s->encoding) {
		out_puts(o, " encoding=\"");
		xml_escape_str(o, s->encoding, ESC_QUOT);
		out_putc(o, '"');
	}
	out_puts(o, " standalone=\"no\"?>\n"
		    "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
		    "\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n");
	out_printf(o, "<svg version=\"1.1\" width=\"%d\" height=\"", s->width);
	put_num(o, height);
	/* Without the script there is no init() to call. */
	out_printf(o, "\"%s viewBox=\"0 0 %d ", s->no_js ? "" : " onload=\"init(evt)\"", s->width);
	put_num(o, height);
	out_puts(o, "\" xmlns=\"http://www.w3.org/2000/svg\" "
		    "xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n"
		    "<!-- Flame graph stack visualization. See "
		    "https://github.com/brendangregg/FlameGraph for latest version, and "
		    "http://www.brendangregg.com/flamegraphs.html for examples. -->\n"
		    "<!-- NOTES: ");
	/* A comment cannot contain "--" or end in "-": escape what would. */
	for (const char *c = s->notes; *c; c++) {
		if (*c == '-' && (c[1] == '-' || c[1] == '\0'))
			out_puts(o, "&#45;");
		else
			xml_escape(o, c, 1, 0);
	}
	out_puts(o, " -->\n");
}

void svg_write_error(struct out *o, const struct svg_opts *s, const char *message)
{
	write_header(o, s, s->fontsize * 5);
	out_printf(o, "<text  x=\"%.2f\" y=\"", (double)(s->width / 2));
	put_num(o, s->fontsize * 2);
	out_puts(o, "\" >");
	xml_escape_str(o, message, 0);
	out_puts(o, "</text>\n</svg>\n");
}

static void write_style(struct out *o, const struct svg_opts *s)
{
	out_puts(o, "<style type=\"text/css\">\n\ttext { font-family:");
	/* A font list, not CSS: drop what would end the declaration or rule. */
	for (const char *c = s->fonttype; *c; c++)
		if (!strchr(";{}\\", *c))
			xml_escape(o, c, 1, 0);
	out_puts(o, "; font-size:");
	put_num(o, s->fontsize);
	out_puts(o, "px; fill:rgb(0,0,0); }\n"
		    "\t#search, #ignorecase { opacity:0.1; cursor:pointer; }\n"
		    "\t#search:hover, #search.show, #ignorecase:hover, #ignorecase.show { opacity:1; }\n"
		    "\t#subtitle { text-anchor:middle; font-color:rgb(160,160,160); }\n"
		    "\t#title { text-anchor:middle; font-size:");
	put_num(o, s->fontsize + 5);
	out_puts(o, "px}\n"
		    "\t#unzoom { cursor:pointer; }\n"
		    "\t#frames > *:hover { stroke:black; stroke-width:0.5; cursor:pointer; }\n"
		    "\t.hide { display:none; }\n"
		    "\t.parent { opacity:0.5; }\n"
		    "</style>\n");
}

static void write_script(struct out *o, const struct layout *l, const struct svg_opts *s)
{
	if (s->no_js)
		return;
	out_puts(o, "<script type=\"text/ecmascript\"><![CDATA[\nvar scorchConfig = {\"nametype\": ");
	json_string(o, s->nametype, strlen(s->nametype));
	out_puts(o, ", \"fontsize\": ");
	put_num(o, s->fontsize);
	out_puts(o, ", \"fontwidth\": ");
	put_num(o, s->fontwidth);
	out_puts(o, ", \"xpad\": 10, \"inverted\": ");
	out_puts(o, s->inverted ? "true" : "false");
	out_puts(o, ", \"searchcolor\": ");
	json_string(o, s->searchcolor, strlen(s->searchcolor));
	out_puts(o, ", \"countname\": ");
	json_string(o, s->countname, strlen(s->countname));
	out_puts(o, ", \"factor\": ");
	put_num(o, s->factor);
	out_puts(o, ", \"total\": ");
	if (l->whole && l->timemax == l->total)
		out_u64(o, l->total_whole);
	else
		put_num(o, l->timemax);
	out_printf(o, ", \"differential\": %s, \"truncateRight\": %s};\n",
		   l->differential ? "true" : "false", s->truncate_left ? "false" : "true");
	/* The viewer must not end the CDATA section; split any "]]>". */
	const char *js = (const char *)viewer_flamegraph_js;
	size_t n = viewer_flamegraph_js_len, i = 0;
	while (i < n) {
		const char *m = memmem(js + i, n - i, "]]>", 3);
		if (!m) {
			out_write(o, js + i, n - i);
			break;
		}
		out_write(o, js + i, (size_t)(m - js - i));
		out_puts(o, "]]]]><![CDATA[>");
		i = (size_t)(m - js) + 3;
	}
	out_puts(o, "\n]]></script>\n");
}

void svg_write(struct out *o, const struct profile *p, const struct layout *l, struct svg_opts *s)
{
	struct svg_geometry g = svg_geometry(l, s);
	double W = s->width;
	write_header(o, s, g.imageheight);
	out_printf(o, "<defs>\n\t<linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\" >\n"
		      "\t\t<stop stop-color=\"%s\" offset=\"5%%\" />\n"
		      "\t\t<stop stop-color=\"%s\" offset=\"95%%\" />\n"
		      "\t</linearGradient>\n</defs>\n",
		   s->bg_top, s->bg_bottom);
	write_style(o, s);
	write_script(o, l, s);
	out_printf(o, "<rect x=\"0.0\" y=\"0\" width=\"%.1f\" height=\"%.1f\" fill=\"url(#background)\"  />\n",
		   W, g.imageheight);
	double mid = (double)(s->width / 2);
	out_printf(o, "<text id=\"title\" x=\"%.2f\" y=\"", mid);
	put_num(o, g.fs * 2);
	out_puts(o, "\" >");
	xml_escape_str(o, svg_title(s), 0);
	out_puts(o, "</text>\n");
	if (s->subtitle && *s->subtitle) {
		out_printf(o, "<text id=\"subtitle\" x=\"%.2f\" y=\"", mid);
		put_num(o, g.fs * 4);
		out_puts(o, "\" >");
		xml_escape_str(o, s->subtitle, 0);
		out_puts(o, "</text>\n");
	}
	double bottom = g.imageheight - g.ypad2 / 2;
	out_printf(o, "<text id=\"details\" x=\"%.2f\" y=\"", LAYOUT_XPAD);
	put_num(o, bottom);
	out_printf(o, "\" > </text>\n<text id=\"unzoom\" x=\"%.2f\" y=\"", LAYOUT_XPAD);
	put_num(o, g.fs * 2);
	out_printf(o, "\" class=\"hide\">Reset Zoom</text>\n<text id=\"search\" x=\"%.2f\" y=\"", W - 110);
	put_num(o, g.fs * 2);
	out_printf(o, "\" >Search</text>\n<text id=\"ignorecase\" x=\"%.2f\" y=\"", W - 26);
	put_num(o, g.fs * 2);
	out_printf(o, "\" >ic</text>\n<text id=\"matched\" x=\"%.2f\" y=\"", W - 110);
	put_num(o, bottom);
	out_puts(o, "\" > </text>\n<g id=\"frames\">\n");
	struct frame_writer *w = xcalloc(1, sizeof(*w));
	struct out *mem = out_open_mem();
	xml_escape_str(mem, s->countname, ESC_QUOT);
	w->countname = out_mem_detach(mem, &w->countname_len);
	for (size_t i = 0; i < l->nr; i++)
		write_frame(o, p, l, &l->frames[i], &g, s, w);
	free(w->countname);
	free(w);
	out_puts(o, "</g>\n</svg>\n");
}
