/* The HTML viewer file (render/html.h).
 *
 * Layout of the file: the viewer's CSS and script (render/viewer/html.css,
 * html.js, embedded at build time), and three data blocks the script reads
 * by id, each inert (<script type="application/json"> or "text/plain"):
 *  - scorch-config: JSON, the options that shape the drawing (title,
 *    palette background, counts unit, ...) and, per data set, its frame and
 *    row counts;
 *  - scorch-names: JSON array of frame names, id 0 being the root "all",
 *    the others by decreasing frame count (small ids for common names);
 *  - scorch-data: base64 of, per data set, for each row (depth 0 up) a
 *    varint frame count, then per frame in row order a varint name id * 2
 *    + 1 if a gap follows, the varint gap from the previous frame's end
 *    (only then), the varint width, and for a differential profile a
 *    zigzag varint delta (exclusive after - before);
 *    followed by 3 bytes (r, g, b) per name: the colour the SVG gives it,
 *    then, when the profile keeps time, the heat map's cells
 *    (render/html_time.h; config.time says how many).
 * Counts are integers times config.scale (1 unless some count has a
 * fraction, then 1000). A profile kept in input order (--flamechart) has
 * two data sets: the merged graph and the chart in time order. */
#include "render/html.h"

#include "base/alloc.h"
#include "render/escape.h"
#include "render/html_time.h"
#include "render/varint.h"
#include "gen/html_css.h"
#include "gen/heatmap_js.h"
#include "gen/html_js.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int64_t scaled(double v, double scale)
{
	return (int64_t)llround(v * scale);
}

/* Frame edges exact as whole counts (and within the varints' int64). */
static bool exact_edges(const struct layout *l)
{
	return l->whole && l->total_whole <= INT64_MAX;
}

/* 1 when every frame edge is a whole count, else 1000. */
static double pick_scale(const struct layout *const *ls, int nr)
{
	for (int k = 0; k < nr; k++)
		for (size_t i = 0; i < ls[k]->nr && !exact_edges(ls[k]); i++) {
			const struct frame *f = &ls[k]->frames[i];
			if (f->stime != floor(f->stime) || f->etime != floor(f->etime) ||
			    f->delta != floor(f->delta) || f->etime > 9e15)
				return 1000;
		}
	return 1;
}

struct names {
	uint32_t *id_of_sym;   /* profile sym -> name id + 1 (0: unseen) */
	uint32_t *sym_of_id;   /* name id -> sym (id 0: the root) */
	node_t *node_of_id;    /* a node with that name (for its colour) */
	uint32_t nr;
};

struct sym_count {
	uint32_t sym, count;
	node_t node;
};

/* By decreasing count, then by name (not by sym, whose order is the
 * order the profile met the names in). */
static int by_count(const void *a, const void *b, void *names)
{
	const struct sym_count *x = a, *y = b;
	if (x->count != y->count)
		return (x->count < y->count) - (x->count > y->count);
	if (!x->count)
		return (x->sym > y->sym) - (x->sym < y->sym);
	const struct strpool *pool = names;
	uint32_t xl = strpool_len(pool, x->sym), yl = strpool_len(pool, y->sym);
	int c = memcmp(strpool_str(pool, x->sym), strpool_str(pool, y->sym), xl < yl ? xl : yl);
	return c ? c : (xl > yl) - (xl < yl);
}

static void names_build(struct names *nm, const struct profile *p, const struct layout *const *ls, int nr)
{
	uint32_t nsyms = p->names.nr + 1;
	struct sym_count *c = xcalloc(nsyms, sizeof(*c));
	for (uint32_t s = 0; s < nsyms; s++)
		c[s].sym = s;
	for (int k = 0; k < nr; k++)
		for (size_t i = 0; i < ls[k]->nr; i++) {
			node_t n = ls[k]->frames[i].node;
			if (n == PROFILE_ROOT)
				continue;
			struct sym_count *e = &c[p->nodes[n].name];
			if (!e->count++)
				e->node = n;
		}
	qsort_r(c, nsyms, sizeof(*c), by_count, (void *)&p->names);
	nm->id_of_sym = xcalloc(nsyms, sizeof(uint32_t));
	nm->sym_of_id = xreallocarray(NULL, nsyms + 1, sizeof(uint32_t));
	nm->node_of_id = xreallocarray(NULL, nsyms + 1, sizeof(node_t));
	nm->nr = 1;
	nm->sym_of_id[0] = 0;
	nm->node_of_id[0] = PROFILE_ROOT;
	for (uint32_t s = 0; s < nsyms && c[s].count; s++) {
		nm->id_of_sym[c[s].sym] = nm->nr + 1;
		nm->sym_of_id[nm->nr] = c[s].sym;
		nm->node_of_id[nm->nr++] = c[s].node;
	}
	free(c);
}

static void names_release(struct names *nm)
{
	free(nm->id_of_sym);
	free(nm->sym_of_id);
	free(nm->node_of_id);
}

static uint32_t name_id(const struct names *nm, const struct profile *p, node_t n)
{
	return n == PROFILE_ROOT ? 0 : nm->id_of_sym[p->nodes[n].name] - 1;
}

static void encode_layout(struct bytes *v, const struct profile *p, const struct layout *l,
			  const struct names *nm, double scale)
{
	size_t i = 0;
	for (uint32_t d = 0; d <= l->depthmax; d++) {
		size_t end = i;
		while (end < l->nr && l->frames[end].depth == d)
			end++;
		put_varint(v, end - i);
		int64_t prev_end = 0;
		for (; i < end; i++) {
			const struct frame *f = &l->frames[i];
			int64_t s = scaled(f->stime, scale), e = scaled(f->etime, scale);
			if (exact_edges(l) && (f->node != PROFILE_ROOT || l->timemax == l->total)) {
				/* scale is 1; a root widened by --total keeps timemax */
				s = (int64_t)f->start;
				e = (int64_t)(f->start + f->width);
			}
			uint64_t gap = (uint64_t)(s > prev_end ? s - prev_end : 0);
			put_varint(v, (uint64_t)name_id(nm, p, f->node) << 1 | (gap != 0));
			if (gap)
				put_varint(v, gap);
			put_varint(v, (uint64_t)(e > s ? e - s : 0));
			if (l->differential)
				put_zigzag(v, scaled(f->delta, scale));
			prev_end = e > s ? e : s;
		}
	}
}

static void put_base64(struct out *o, const unsigned char *b, size_t n)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char q[4];
	size_t i = 0;
	for (; i + 3 <= n; i += 3) {
		uint32_t x = (uint32_t)b[i] << 16 | (uint32_t)b[i + 1] << 8 | b[i + 2];
		q[0] = a[x >> 18], q[1] = a[(x >> 12) & 63], q[2] = a[(x >> 6) & 63], q[3] = a[x & 63];
		out_write(o, q, 4);
		if (i % 57 == 54)
			out_putc(o, '\n'); /* 76 characters a line */
	}
	if (i < n) {
		uint32_t x = (uint32_t)b[i] << 16 | (i + 1 < n ? (uint32_t)b[i + 1] << 8 : 0);
		q[0] = a[x >> 18], q[1] = a[(x >> 12) & 63];
		q[2] = i + 1 < n ? a[(x >> 6) & 63] : '=';
		q[3] = '=';
		out_write(o, q, 4);
	}
}

static void json_key_str(struct out *o, const char *key, const char *v, bool comma)
{
	out_printf(o, "%s\"%s\":", comma ? "," : "", key);
	if (v)
		json_string(o, v, strlen(v));
	else
		out_puts(o, "null");
}

struct time_data {
	bool present;
	uint32_t lines, entries;
};

static void write_config(struct out *o, const struct profile *p, const struct layout *const *ls, int nr,
			 double scale, const struct svg_opts *s, const struct time_data *td)
{
	out_puts(o, "{");
	json_key_str(o, "title", s->title, false);
	json_key_str(o, "subtitle", s->subtitle, true);
	json_key_str(o, "countname", s->countname, true);
	json_key_str(o, "nametype", s->nametype, true);
	json_key_str(o, "fonttype", s->fonttype, true);
	json_key_str(o, "searchcolor", s->searchcolor, true);
	json_key_str(o, "bgtop", s->bg_top, true);
	json_key_str(o, "bgbottom", s->bg_bottom, true);
	out_printf(o, ",\"factor\":%.17g,\"scale\":%.17g,\"fontsize\":%.17g,\"frameheight\":%d",
		   s->factor, scale, s->fontsize, s->frame_height);
	out_printf(o, ",\"inverted\":%s,\"flamechart\":%s,\"negate\":%s,\"truncateleft\":%s",
		   s->inverted ? "true" : "false", s->flamechart ? "true" : "false",
		   s->negate ? "true" : "false", s->truncate_left ? "true" : "false");
	out_printf(o, ",\"differential\":%s,\"maxdelta\":%.17g,\"sets\":[",
		   ls[0]->differential ? "true" : "false", ls[0]->maxdelta * scale);
	for (int k = 0; k < nr; k++)
		out_printf(o, "%s{\"kind\":\"%s\",\"frames\":%zu,\"rows\":%u}", k ? "," : "",
			   k ? "chart" : s->flamechart && nr == 1 ? "chart" : "graph", ls[k]->nr,
			   ls[k]->depthmax + 1);
	out_puts(o, "]");
	if (td->present)
		html_time_config(o, p, td->lines, td->entries);
	out_puts(o, "}");
}

void html_write(struct out *o, const struct profile *p, const struct layout *l, struct svg_opts *s,
		const struct layout *chart)
{
	const struct layout *ls[2] = { l, chart };
	int nr = chart ? 2 : 1;
	double scale = pick_scale(ls, nr);
	struct names nm;
	names_build(&nm, p, ls, nr);
	struct bytes v = { 0 };
	for (int k = 0; k < nr; k++)
		encode_layout(&v, p, ls[k], &nm, scale);
	for (uint32_t i = 0; i < nm.nr; i++) {
		struct rgb c = svg_name_fill(p, nm.node_of_id[i], s);
		put_byte(&v, c.r);
		put_byte(&v, c.g);
		put_byte(&v, c.b);
	}
	struct time_data td = { .present = html_time_wanted(p, l) };
	if (td.present)
		td.lines = html_time_encode(&v, p, scale, &td.entries);

	out_puts(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		    "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n<title>");
	xml_escape_str(o, s->title ? s->title : s->flamechart ? "Flame Chart" : "Flame Graph", 0);
	out_puts(o, "</title>\n<style>\n");
	out_write(o, viewer_html_css, viewer_html_css_len);
	out_puts(o, "</style>\n</head>\n<body>\n<script type=\"application/json\" id=\"scorch-config\">");
	write_config(o, p, ls, nr, scale, s, &td);
	out_puts(o, "</script>\n<script type=\"application/json\" id=\"scorch-names\">[");
	for (uint32_t i = 0; i < nm.nr; i++) {
		if (i)
			out_putc(o, ',');
		if (i == 0) {
			out_puts(o, "\"all\"");
			continue;
		}
		uint32_t sym = nm.sym_of_id[i];
		json_string(o, strpool_str(&p->names, sym), strpool_len(&p->names, sym));
		if (i % 16 == 0)
			out_putc(o, '\n');
	}
	out_puts(o, "]</script>\n<script type=\"text/plain\" id=\"scorch-data\">\n");
	put_base64(o, v.b, v.n);
	out_puts(o, "\n</script>\n<script>\n");
	if (td.present) /* the heat map, which html.js finds as scorchTime */
		out_write(o, viewer_heatmap_js, viewer_heatmap_js_len);
	out_write(o, viewer_html_js, viewer_html_js_len);
	out_puts(o, "</script>\n</body>\n</html>\n");
	free(v.b);
	names_release(&nm);
}
