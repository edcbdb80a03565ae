/* PNG output: the SVG's picture (render/svg.h: same geometry, fills,
 * labels and title; background gradient; --width, --height, --fonttype,
 * --fontsize apply) rasterised with cairo, text laid out by pango. Built
 * only with cairo and pangocairo (HAVE_CAIRO); the interactive parts of the
 * SVG (tooltips, search, zoom) have no picture. */
#ifndef SCORCH_RENDER_PNG_H
#define SCORCH_RENDER_PNG_H

#include "base/out.h"
#include "layout/layout.h"
#include "render/svg.h"

/* Draw layout l of profile p into out as a PNG. Returns 0, or -1 with the
 * error printed (cairo could not draw an image of that size). */
int png_write(struct out *out, const struct profile *p, const struct layout *l, struct svg_opts *s);

#endif
