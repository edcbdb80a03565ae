/* Frames -> one self-contained HTML file: the canvas viewer
 * (render/viewer/html.js, html.css) and the profile in a compact form that
 * it decodes into typed arrays (the format is described in html.c). */
#ifndef SCORCH_RENDER_HTML_H
#define SCORCH_RENDER_HTML_H

#include "base/out.h"
#include "layout/layout.h"
#include "render/svg.h"

/* l must keep every frame (minwidth 0): the viewer merges narrow frames as
 * it draws. chart: the same profile laid out in input order (--flamechart),
 * or NULL. Colours follow s as the SVG's do. */
void html_write(struct out *o, const struct profile *p, const struct layout *l, struct svg_opts *s,
		const struct layout *chart);

#endif
