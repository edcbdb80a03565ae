#include "cmd/output_format.h"

#include "cmd/usage.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Formats people may name that scorch does not write: images, documents,
 * other profilers' files, compressed text. (A graph format scorch learns to
 * write goes to render/graph.c's graph_format_for_path instead.) */
static const char *const not_written[] = {
	".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".tif", ".tiff", ".pdf", ".ps",
	".eps", ".json", ".pb", ".pprof", ".proto", ".speedscope", ".data", ".perf", ".trace",
	".gz", ".xz", ".zst", ".bz2", ".lz4", ".zip", NULL,
};

static const char *const folded_ext[] = { ".folded", ".collapsed", NULL };

static const char *listed(const char *ext, const char *const *list)
{
	for (; *list; list++)
		if (!strcasecmp(ext, *list))
			return *list;
	return NULL;
}

static _Noreturn void unsupported(const char *cmd, const char *path, unsigned writes,
				  const char *why)
{
	/* graph_format_names is "svg, html": as extensions ".svg, .html". */
	char graphs[64];
	size_t n = 0;
	for (const char *s = graph_format_names; *s && n + 2 < sizeof(graphs); s++) {
		if (s == graph_format_names || s[-1] == ' ')
			graphs[n++] = '.';
		graphs[n++] = *s;
	}
	graphs[n] = '\0';
	if (writes == WRITES_GRAPH)
		usage_error(cmd, "-o %s: %s; %s writes flame graphs as %s", path, why, cmd, graphs);
	if (writes == WRITES_FOLDED)
		usage_error(cmd, "-o %s: %s; %s writes folded stacks, as .folded or any other name "
			    "('scorch flamegraph' draws them)", path, why, cmd);
	usage_error(cmd, "-o %s: %s; %s writes flame graphs as %s, or folded stacks as .folded "
		    "or any other name", path, why, cmd, graphs);
}

enum graph_format output_format(const char *cmd, const char *path, unsigned writes)
{
	if (!path || !strcmp(path, "-"))
		return GRAPH_FORMAT_NONE;
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(slash ? slash : path, '.');
	if (!dot || dot == (slash ? slash + 1 : path)) /* no extension, or .hidden */
		return GRAPH_FORMAT_NONE;
	enum graph_format f = graph_format_for_path(path);
	if (f != GRAPH_FORMAT_NONE) {
		if (!(writes & WRITES_GRAPH))
			unsupported(cmd, path, writes, "not a format this command writes");
		return f;
	}
	if (listed(dot, folded_ext)) {
		if (!(writes & WRITES_FOLDED))
			unsupported(cmd, path, writes, "not a format this command writes");
		return GRAPH_FORMAT_NONE;
	}
	if (listed(dot, not_written))
		unsupported(cmd, path, writes, "unsupported output format");
	return GRAPH_FORMAT_NONE;
}
