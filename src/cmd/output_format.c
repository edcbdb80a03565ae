#include "cmd/output_format.h"

#include "cmd/usage.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Formats people may name that scorch does not write: images, documents,
 * other tools' files, compressed text. (A format scorch learns to write
 * goes to render/graph.c's table of endings, which is looked up first: a
 * .speedscope.json or .pb.gz is written, a plain .json or .gz refused.) */
static const char *const not_written[] = {
	".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".tif", ".tiff", ".pdf", ".ps",
	".eps", ".json", ".pb", ".proto", ".data", ".perf", ".trace", ".gz", ".xz", ".zst",
	".bz2", ".lz4", ".zip", NULL,
};

static const char *const folded_ext[] = { ".folded", ".collapsed", NULL };

static bool listed(const char *ext, const char *const *list)
{
	for (; *list; list++)
		if (!strcasecmp(ext, *list))
			return true;
	return false;
}

static unsigned kind(enum graph_format f)
{
	return f == GRAPH_FORMAT_NONE ? WRITES_FOLDED
	       : graph_format_is_data(f) ? WRITES_DATA : WRITES_PICTURE;
}

static _Noreturn void refuse(const char *cmd, const char *path, unsigned writes, const char *why)
{
	/* The endings of the formats cmd writes, from graph_format_names
	 * ("svg, html, ..."), then folded stacks. */
	char list[256] = "";
	char names[128];
	snprintf(names, sizeof(names), "%s", graph_format_names);
	for (char *save, *name = strtok_r(names, ", ", &save); name; name = strtok_r(NULL, ", ", &save)) {
		enum graph_format f = graph_format_find(name);
		if (writes & kind(f))
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 *list ? ", " : "", graph_format_suffix(f));
	}
	if (writes & WRITES_FOLDED)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%sfolded stacks as .folded "
			 "or any other name", *list ? ", or " : "");
	usage_error(cmd, "-o %s: %s; %s writes %s", path, why, cmd, list);
}

enum graph_format output_format(const char *cmd, const char *path, unsigned writes)
{
	if (!path || !strcmp(path, "-"))
		return GRAPH_FORMAT_NONE;
	enum graph_format f = graph_format_for_path(path);
	if (f != GRAPH_FORMAT_NONE) {
		if (!(writes & kind(f)))
			refuse(cmd, path, writes, "not a format this command writes");
		return f;
	}
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	const char *dot = strrchr(base, '.');
	if (!dot || dot == base) /* no extension, or .hidden */
		return GRAPH_FORMAT_NONE;
	if (listed(dot, folded_ext)) {
		if (!(writes & WRITES_FOLDED))
			refuse(cmd, path, writes, "not a format this command writes");
		return GRAPH_FORMAT_NONE;
	}
	if (listed(dot, not_written))
		refuse(cmd, path, writes, "unsupported output format");
	return GRAPH_FORMAT_NONE;
}
