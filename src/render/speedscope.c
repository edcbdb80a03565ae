/* speedscope output (render/speedscope.h). */
#include "render/speedscope.h"

#include "base/alloc.h"
#include "base/numfmt.h"
#include "profile/order.h"
#include "render/escape.h"

#include <stdlib.h>
#include <string.h>

static void put_number(struct out *out, double v)
{
	char buf[NUMFMT_BUF];
	out_write(out, buf, numfmt_g15(buf, v));
}

/* Node n's count in a column, exact unless the profile is fractional. */
static void put_self(struct out *out, const struct profile *p, node_t n, int column)
{
	if (p->fractional)
		put_number(out, p->nodes[n].self[column].d);
	else
		out_u64(out, p->nodes[n].self[column].u);
}

/* The column's total: exact when whole (graph_render checked the sum). */
static void put_total(struct out *out, const struct profile *p, int column)
{
	uint64_t sum;
	if (profile_total_whole(p, column, &sum))
		out_u64(out, sum);
	else
		put_number(out, profile_total(p, column));
}

/* The nodes from the root's child down to leaf into (*path)[0..depth);
 * returns depth. */
static size_t leaf_path(const struct profile *p, node_t leaf, node_t **path, size_t *alloc)
{
	size_t depth = p->nodes[leaf].depth;
	VEC_GROW(*path, depth, *alloc);
	for (node_t m = leaf; m != PROFILE_ROOT; m = p->nodes[m].parent)
		(*path)[p->nodes[m].depth - 1] = m;
	return depth;
}

void speedscope_write(struct out *out, const struct profile *p, const char *count_unit)
{
	/* speedscope's units: counts of anything are "none" */
	const char *unit = !count_unit ? "none" : !strcmp(count_unit, "ns") ? "nanoseconds"
					 : !strcmp(count_unit, "us") ? "microseconds"
					 : !strcmp(count_unit, "bytes") ? "bytes" : "none";
	size_t nleaves;
	node_t *leaves = profile_sorted_leaves(p, ORDER_KEY_END, &nleaves);
	/* Frame indexes: 0.. in order of first use by the sorted stacks,
	 * outermost frame first (not in the order the profile made its nodes:
	 * the file does not depend on the order samples were folded in);
	 * stored +1 (0 = none yet). */
	uint32_t *frame_of_sym = xcalloc(p->names.nr + 1, sizeof(*frame_of_sym));
	sym_t *sym_of_frame = xreallocarray(NULL, p->names.nr + 1, sizeof(*sym_of_frame));
	uint32_t nframes = 0;
	node_t *path = NULL;
	size_t path_alloc = 0;
	for (size_t i = 0; i < nleaves; i++) {
		size_t depth = leaf_path(p, leaves[i], &path, &path_alloc);
		for (size_t d = 0; d < depth; d++) {
			sym_t s = p->nodes[path[d]].name;
			if (!frame_of_sym[s]) {
				sym_of_frame[nframes] = s;
				frame_of_sym[s] = ++nframes;
			}
		}
	}
	out_puts(out, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
		      "\"exporter\":\"scorch\",\"name\":\"scorch\",\"activeProfileIndex\":");
	out_puts(out, p->differential ? "1," : "0,");
	out_puts(out, "\"shared\":{\"frames\":[");
	for (uint32_t k = 0; k < nframes; k++) {
		sym_t s = sym_of_frame[k];
		if (k)
			out_putc(out, ',');
		out_puts(out, "\n{\"name\":");
		json_string(out, strpool_str(&p->names, s), strpool_len(&p->names, s));
		out_putc(out, '}');
	}
	free(sym_of_frame);
	out_puts(out, "]},\"profiles\":[");
	/* A differential profile: "before" (column 0) and "after" (column 1,
	 * the active one, as flamegraph's widths follow it). */
	int ncols = p->differential ? 2 : 1;
	for (int col = 0; col < ncols; col++) {
		const char *name = !p->differential ? "scorch" : col ? "after" : "before";
		out_printf(out, "%s{\"type\":\"sampled\",\"name\":\"%s\",\"unit\":\"%s\",", col ? ",\n" : "",
			   name, unit);
		out_puts(out, "\"startValue\":0,\"endValue\":");
		put_total(out, p, col);
		out_puts(out, ",\"samples\":[");
		bool first = true;
		for (size_t i = 0; i < nleaves; i++) {
			if (profile_self(p, leaves[i], col) == 0)
				continue;
			size_t depth = leaf_path(p, leaves[i], &path, &path_alloc);
			out_puts(out, first ? "\n[" : ",\n[");
			first = false;
			for (size_t d = 0; d < depth; d++) {
				if (d)
					out_putc(out, ',');
				out_u64(out, frame_of_sym[p->nodes[path[d]].name] - 1);
			}
			out_putc(out, ']');
		}
		out_puts(out, "],\"weights\":[");
		first = true;
		for (size_t i = 0; i < nleaves; i++) {
			if (profile_self(p, leaves[i], col) == 0)
				continue;
			if (!first)
				out_putc(out, ',');
			first = false;
			put_self(out, p, leaves[i], col);
		}
		out_puts(out, "]}");
	}
	out_puts(out, "]}\n");
	free(path);
	free(leaves);
	free(frame_of_sym);
}
