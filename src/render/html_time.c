/* The heat map's data in the HTML file (render/html_time.h). */
#include "render/html_time.h"

#include "base/alloc.h"
#include "base/error.h"
#include "profile/order.h"
#include "profile/time_cells.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

bool html_time_wanted(const struct profile *p, const struct layout *l)
{
	if (p->time && p->time->overflow && !l->differential) {
		warn("sample times span more than a day: no heat map");
		return false;
	}
	return p->time && p->time->started && p->time->nr && !l->differential;
}

struct cell_line {
	uint32_t cell, line;
	uint64_t count;
};

static int by_cell_line(const void *a, const void *b)
{
	const struct cell_line *x = a, *y = b;
	if (x->cell != y->cell)
		return (x->cell > y->cell) - (x->cell < y->cell);
	return (x->line > y->line) - (x->line < y->line);
}

uint32_t html_time_encode(struct bytes *v, const struct profile *p, double scale, uint32_t *entries)
{
	const struct time_cells *t = p->time;
	size_t nleaves;
	node_t *leaves = profile_sorted_leaves(p, ORDER_LINE_SPACE, &nleaves);
	uint32_t *line_of = xreallocarray(NULL, p->nr, sizeof(*line_of));
	for (node_t i = 0; i < p->nr; i++)
		line_of[i] = UINT32_MAX;
	uint32_t lines = 0;
	for (size_t i = 0; i < nleaves; i++)
		if (profile_self(p, leaves[i], 1) > 0)
			line_of[leaves[i]] = lines++;
	free(leaves);
	struct cell_line *e = xreallocarray(NULL, t->nr ? t->nr : 1, sizeof(*e));
	uint32_t n = 0;
	for (uint32_t i = 0; i < t->nr; i++) {
		const struct time_entry *te = &t->entries[i];
		if (te->node < p->nr && line_of[te->node] != UINT32_MAX && te->count)
			e[n++] = (struct cell_line){ te->cell, line_of[te->node], te->count };
	}
	free(line_of);
	qsort(e, n, sizeof(*e), by_cell_line);
	for (uint32_t i = 0; i < n;) {
		uint32_t end = i;
		while (end < n && e[end].cell == e[i].cell)
			end++;
		put_varint(v, i ? e[i].cell - e[i - 1].cell : e[i].cell);
		put_varint(v, end - i);
		for (uint32_t k = i; k < end; k++) {
			put_varint(v, k > i ? e[k].line - e[k - 1].line : e[k].line);
			/* exact when the frames' counts are (scale 1) */
			put_varint(v, scale == 1 ? e[k].count : (uint64_t)llround((double)e[k].count * scale));
		}
		i = end;
	}
	free(e);
	*entries = n;
	return lines;
}

void html_time_config(struct out *o, const struct profile *p, uint32_t lines, uint32_t entries)
{
	const struct time_cells *t = p->time;
	out_printf(o, ",\"time\":{\"seconds\":%" PRIu32 ",\"rows\":%u,\"cellms\":%llu", time_cells_seconds(t),
		   TIME_CELLS_PER_SECOND, TIME_CELL_NS / 1000000);
	out_printf(o, ",\"first\":%.9f,\"last\":%.9f", (double)(t->first - t->origin) / 1e9,
		   (double)(t->last - t->origin) / 1e9);
	if (t->epoch_known)
		out_printf(o, ",\"origin\":\"%" PRId64 "\"", (int64_t)t->origin + t->epoch_offset);
	else
		out_puts(o, ",\"origin\":null");
	out_printf(o, ",\"cells\":%" PRIu32 ",\"lines\":%" PRIu32 ",\"entries\":%" PRIu32 "}", t->cells, lines,
		   entries);
}
