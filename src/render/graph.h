/* One render path: a profile and the flame-graph options (parsed once, by
 * cmd/graph_opts.c, for flamegraph, record and report) -> one output
 * writer, chosen by --format or by the output file's extension. */
#ifndef SCORCH_RENDER_GRAPH_H
#define SCORCH_RENDER_GRAPH_H

#include "base/out.h"
#include "layout/layout.h"
#include "profile/profile.h"
#include "render/nameattr.h"
#include "render/pprof.h"
#include "render/svg.h"

#include <stdbool.h>

enum graph_format {
	GRAPH_FORMAT_NONE = 0, /* not a graph (record/report: folded stacks) */
	GRAPH_FORMAT_SVG,
	GRAPH_FORMAT_HTML,
	GRAPH_FORMAT_PNG,        /* the SVG's picture as PNG (render/png.h; cairo) */
	GRAPH_FORMAT_PPROF,      /* gzipped profile.proto (render/pprof.h) */
	GRAPH_FORMAT_SPEEDSCOPE, /* speedscope JSON (render/speedscope.h) */
};

/* "svg, pprof, ...": the names graph_format_find knows, for messages. */
extern const char graph_format_names[];

/* By name ("svg", "html"); GRAPH_FORMAT_NONE if unknown. */
enum graph_format graph_format_find(const char *name);
/* By the extension of an output path (.svg; .html or .htm; .png; .pb.gz, .speedscope.json); NONE for
 * anything else, or no path (stdout). */
enum graph_format graph_format_for_path(const char *path);
/* The usual file name ending of f (".svg", ".pb.gz", ...), for messages. */
const char *graph_format_suffix(enum graph_format f);

/* pprof and speedscope carry the stacks, not a picture: no layout, and the
 * picture options do not apply. */
bool graph_format_is_data(enum graph_format f);
/* Write p in data format f (po: what pprof says the counts are; NULL for
 * plain sample counts). */
void graph_write_data(struct out *out, const struct profile *p, enum graph_format f,
		      const struct pprof_opts *po);

struct graph_opts {
	struct svg_opts svg;
	struct layout_opts layout;
	enum graph_format format;   /* --format; NONE: by the -o extension */
	const char *input_format;   /* --format NAME that is not an output format */
	const char *colors;
	const char *bgcolors;
	const char *nameattr_path;
	const char *include, *exclude;
	bool hash, random, cp, dump_frames;
	bool reverse;               /* still to do: cleared by a reader that reversed */
	int threads;
	int given;                  /* how many graph options the command line gave */
	double total;
	double period_ns;           /* CPU time one sample stands for, 0 unknown (pprof) */
	int64_t time_ns, duration_ns; /* when the profile was taken and how long, 0 unknown (pprof) */
	const char *count_unit;     /* what the counts are (render/pprof.h), NULL samples */
	struct nameattr nameattr;   /* loaded by graph_opts_finish */
	bool have_nameattr;
};

/* Draw p (filtered, reversed, chained as the options say; p is replaced)
 * in format f to output (NULL: stdout). Returns 0; -1 when the output could
 * not be written or palette.map not read (error printed); -2 when there is
 * nothing to draw or a filter is not a valid regex (error printed; with no
 * output file the SVG writer prints flamegraph.pl's error image). */
int graph_render(struct profile *p, struct graph_opts *o, enum graph_format f, const char *output);

#endif
