/* Frames -> the classic flamegraph.pl SVG: same chrome, element ids and
 * per-frame shape (<g> holding <title>, <rect>, <text>), same number
 * formatting, so existing tools and the viewer keep working. Every string
 * from the input or the command line is escaped (render/escape.h). */
#ifndef SCORCH_RENDER_SVG_H
#define SCORCH_RENDER_SVG_H

#include "base/out.h"
#include "layout/layout.h"
#include "render/nameattr.h"
#include "render/palette.h"

#include <stdbool.h>

struct svg_opts {
	const char *title;      /* NULL: by mode (Flame Graph / Icicle Graph / Flame Chart) */
	const char *subtitle;   /* NULL or "": none */
	const char *notes;
	const char *fonttype;
	const char *countname;
	const char *nametype;
	const char *encoding;   /* NULL: none */
	const char *searchcolor;
	int width;              /* px */
	int frame_height;       /* px per row */
	double fontsize;
	double fontwidth;
	double factor;
	bool inverted;
	bool flamechart;
	bool negate;
	bool truncate_left;     /* labels keep the tail ("..name") */
	bool no_js;
	enum palette_id palette;
	enum palette_seed seed;
	struct palette_rng rng;
	struct palette_map *cp; /* --cp map, or NULL */
	const struct nameattr *nameattr; /* or NULL */
	char bg_top[8], bg_bottom[8];
};

void svg_opts_defaults(struct svg_opts *o);

/* The whole SVG for a layout of profile p. */
void svg_write(struct out *o, const struct profile *p, const struct layout *l,
	       struct svg_opts *opts);
/* The colour of a frame named as node is (not differential): the
 * separators' grey, the --cp map's, or the palette's (which, for --cp, is
 * added to the map). */
struct rgb svg_name_fill(const struct profile *p, node_t node, struct svg_opts *s);
/* The picture the SVG draws, for other writers of the same picture (PNG):
 * the image geometry, each frame's box, fill and label, and the title. */
struct svg_geometry {
	double fs, H, ypad1, ypad2, ypad3, imageheight, wpt;
};
struct svg_box {
	double x1, x2, y1, y2;
};
/* A frame's label: text[0..len) (UTF-8 from the input, unescaped), with
 * ".." before it (dots < 0) or after it (dots > 0) when truncated. */
struct svg_label {
	const char *text;
	size_t len;
	int dots;
};
struct svg_geometry svg_geometry(const struct layout *l, const struct svg_opts *s);
struct svg_box svg_frame_box(const struct frame *f, const struct svg_geometry *g, const struct svg_opts *s);
struct rgb svg_frame_fill(const struct profile *p, const struct layout *l, const struct frame *f,
			  struct svg_opts *s);
struct svg_label svg_label(const struct profile *p, const struct frame *f, double width_px,
			   const struct svg_opts *s);
/* --title, or the default for the mode (Flame Graph, Icicle Graph, ...). */
const char *svg_title(const struct svg_opts *s);

/* The small SVG flamegraph.pl writes when there is nothing to draw. */
void svg_write_error(struct out *o, const struct svg_opts *opts, const char *message);
/* One TSV row per frame (title, x, y, width, height, fill, text_x, text_y,
 * text), the format of the conformance data. */
void svg_dump_frames(struct out *o, const struct profile *p, const struct layout *l,
		     struct svg_opts *opts);

#endif
