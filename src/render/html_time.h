/* The HTML viewer's time data (the heat map): a profile's time cells
 * (profile/time_cells.h), by line of the flame graph.
 *
 * A line is a stack with a count of its own, the leaf of a folded line:
 * the viewer finds them in its frames (each frame whose children do not
 * fill it holds its stack's line at its start) and numbers them by x, as
 * here in the graph's sorted-line order (profile_sorted_leaves), so the
 * two numberings are the same. Format, appended to scorch-data: for each
 * cell holding samples, by increasing cell, the varint cell - previous
 * cell (the first: its cell), the varint number of lines, then per line by
 * increasing line the varint line - previous line (the first: its line)
 * and the varint count times the data's scale. */
#ifndef SCORCH_RENDER_HTML_TIME_H
#define SCORCH_RENDER_HTML_TIME_H

#include "base/out.h"
#include "layout/layout.h"
#include "profile/profile.h"
#include "render/varint.h"

#include <stdbool.h>

/* Whether the file gets a heat map: p keeps time, has a sample with one,
 * and is not differential (a warning when its samples span over a day). */
bool html_time_wanted(const struct profile *p, const struct layout *l);

/* Appends the cells to v; returns the number of lines (stacks) and sets
 * *entries to the number of (cell, line) counts. */
uint32_t html_time_encode(struct bytes *v, const struct profile *p, double scale, uint32_t *entries);

/* The config's "time" member: ,"time":{...} (seconds, rows, cell, first
 * and last sample offsets, origin, lines and entries). */
void html_time_config(struct out *o, const struct profile *p, uint32_t lines, uint32_t entries);

#endif
