/* scorch flamegraph: a drop-in flamegraph.pl. Options keep flamegraph.pl's
 * names and meanings (long options, single-dash and unique prefixes as
 * Getopt::Long); input is folded stacks, or any format collapse detects. */
#include "cmd/cmd.h"
#include "cmd/graph_opts.h"
#include "cmd/output_format.h"
#include "cmd/usage.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/input.h"
#include "base/out.h"
#include "collapse/collapse.h"
#include "profile/folded.h"
#include "profile/folded_stream.h"
#include "profile/ops.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char flamegraph_usage[] =
	"usage: scorch flamegraph [OPTIONS] [FILE...] > graph.svg\n"
	"\n"
	"Draw folded stacks (\"a;b;c COUNT\", or \"STACK BEFORE AFTER\" for a\n"
	"differential graph) from the FILEs (summed) or stdin as an SVG flame graph.\n"
	"Input in another supported profiler format is collapsed first.\n"
	"Options are flamegraph.pl's (--opt=value or --opt value, unique prefixes):\n"
	"  --title TEXT        title (default \"Flame Graph\")\n"
	"  --subtitle TEXT     second title line\n"
	"  --width N           image width in px (1200)\n"
	"  --height N          frame height in px (16)\n"
	"  --minwidth N[%]     omit frames narrower than N px, or N% of the total (0.1;\n"
	"                      SVG only: the HTML viewer keeps every frame)\n"
	"  --fonttype FONT     font family (Verdana)\n"
	"  --fontsize N        font size (12)\n"
	"  --fontwidth F       average glyph width relative to the size (0.59)\n"
	"  --countname TEXT    count unit in tooltips (samples)\n"
	"  --nametype TEXT     tooltip prefix (Function:)\n"
	"  --colors PALETTE    hot mem io wakeup chain java js perl red green blue\n"
	"                      aqua yellow purple orange (hot)\n"
	"  --bgcolors COLOR    yellow blue green grey or #rrggbb\n"
	"  --hash              colour by name hash (stable across graphs)\n"
	"  --random            random colours\n"
	"  --cp                consistent palette: read and update ./palette.map\n"
	"  --reverse           reverse stacks (leaf becomes the root)\n"
	"  --inverted          icicle graph (root at the top)\n"
	"  --flamechart        flame chart: input order, only adjacent stacks merge\n"
	"  --negate            swap the differential colours (blue = growth)\n"
	"  --notes TEXT        notes embedded in a comment\n"
	"  --factor F          multiply displayed counts by F\n"
	"  --total N           full width = N (when above the real total)\n"
	"  --nameattr FILE     per-function SVG attributes (NAME<TAB>key=value...)\n"
	"  --encoding ENC      XML encoding declaration\n"
	"scorch additions:\n"
	"  -o, --output FILE   write here (only when the run succeeds) instead of stdout;\n"
	"                      FILE.pb.gz: pprof, FILE.speedscope.json: speedscope\n"
	"  --include REGEX     keep only stacks matching REGEX (POSIX extended,\n"
	"                      on \"a;b;c\"); --exclude REGEX drops matching stacks\n"
	"  --search-color C    search highlight colour (rgb(230,0,230))\n"
	"  --truncate-text-left  long labels keep their end (\"..name\")\n"
	"  --truncate-text-right long labels keep their start (the default)\n"
	"  --no-js             omit the interactive script\n"
	"  -o FILE.html        the interactive HTML viewer instead of an SVG (one\n"
	"                      self-contained file; also --format html)\n"
	"  -o FILE.png         the SVG's picture as PNG (cairo); -o FILE.pb.gz: pprof;\n"
	"                      -o FILE.speedscope.json: speedscope\n"
	"  --format NAME       output format (svg, html, png, pprof, speedscope), or the input\n"
	"                      format instead of detecting it (see scorch collapse --list)\n"
	"  --threads N         1 (default): one thread; 2: one thread splits and hashes\n"
	"                      lines while the other builds the profile (faster on idle\n"
	"                      cores, slower when they are busy)\n";

enum { OPT_HELP = 256, OPT_DUMP_FRAMES };

/* Followed by the graph options (cmd/graph_opts.c). */
static const struct option own_options[] = {
	{ "help", no_argument, NULL, OPT_HELP },
	{ "output", required_argument, NULL, 'o' },
	{ "dump-frames", no_argument, NULL, OPT_DUMP_FRAMES },
	{ NULL, 0, NULL, 0 },
};

struct fg_opts {
	struct graph_opts graph;
	const char *output;
	char **files;
	int nr_files;
};

static int parse_args(int argc, char **argv, struct fg_opts *o)
{
	struct option *options = graph_options_with(own_options, NULL);
	graph_opts_init(&o->graph);
	optind = 1;
	opterr = 0;
	int c, ret = 0;
	while (!ret && (c = getopt_long_only(argc, argv, ":o:h", options, NULL)) != -1) {
		if (graph_opt_code(c)) {
			ret = graph_opts_set(&o->graph, c, optarg);
			continue;
		}
		switch (c) {
		case OPT_DUMP_FRAMES: o->graph.dump_frames = true; break;
		case 'o': o->output = optarg; break;
		case 'h':
		case OPT_HELP:
			fputs(flamegraph_usage, stdout);
			ret = 1;
			break;
		default:
			usage_bad_option("flamegraph", c, argv);
		}
	}
	free(options);
	if (ret)
		return ret;
	o->files = argv + optind;
	o->nr_files = argc - optind;
	if (o->graph.format == GRAPH_FORMAT_NONE && !o->graph.dump_frames)
		output_format("flamegraph", o->output, WRITES_PICTURE | WRITES_DATA);
	return graph_opts_finish(&o->graph);
}

enum { CHUNK = 8 << 20 };

static bool compressed(const char *d, size_t n)
{
	static const unsigned char gz[] = { 0x1f, 0x8b }, xz[] = { 0xfd, '7', 'z', 'X', 'Z', 0 },
				   zst[] = { 0x28, 0xb5, 0x2f, 0xfd };
	return (n >= 2 && !memcmp(d, gz, 2)) || (n >= 6 && !memcmp(d, xz, 6)) ||
	       (n >= 4 && !memcmp(d, zst, 4));
}

/* Read until buf holds `want` bytes or EOF; returns bytes now held or -1. */
static ssize_t fill(int fd, const char *name, char *buf, size_t have, size_t want)
{
	while (have < want) {
		ssize_t r = read(fd, buf + have, want - have);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			error("cannot read '%s': %s", name, strerror(errno));
			return -1;
		}
		if (r == 0)
			break;
		have += (size_t)r;
	}
	return (ssize_t)have;
}

/* A non-folded (or compressed) input: the whole of it, then the detected
 * collapse format. */
static int read_whole(struct profile *p, int fd, const char *name, char *buf, size_t have,
		      const struct collapse_format *fmt, const struct graph_opts *o)
{
	size_t alloc = CHUNK;
	for (;;) {
		if (have == alloc) {
			alloc *= 2;
			buf = xrealloc(buf, alloc);
		}
		ssize_t r = fill(fd, name, buf, have, alloc);
		if (r < 0) {
			free(buf);
			return -1;
		}
		if ((size_t)r < alloc) {
			have = (size_t)r;
			break;
		}
		have = (size_t)r;
	}
	char *data = buf;
	size_t len = have;
	if (compressed(buf, have)) {
		char *plain;
		size_t plain_len;
		if (input_decompress(name, buf, have, &plain, &plain_len) < 0) {
			free(buf);
			return -1;
		}
		free(buf);
		data = buf = plain;
		len = plain_len;
		if (!fmt)
			fmt = collapse_detect(data, len);
	}
	int ret;
	if (!fmt || !strcmp(fmt->name, "folded")) {
		struct folded_opts fo = { .reverse = o->reverse };
		ret = folded_parse(p, name, data, len, &fo, NULL);
	} else {
		struct profile tmp;
		profile_init(&tmp);
		tmp.keep_events = p->keep_events;
		struct collapse_opts co = { 0 };
		struct collapse_source src = { name, data, len };
		ret = fmt->parse(&tmp, &src, &co);
		if (!ret && o->reverse) {
			struct profile rev;
			profile_init(&rev);
			profile_reverse(&rev, &tmp);
			profile_release(&tmp);
			tmp = rev;
		}
		if (!ret)
			profile_merge(p, &tmp);
		profile_release(&tmp);
	}
	free(buf);
	return ret;
}

/* Read one input into p. Folded text is streamed in chunks through a
 * folded_reader (memory follows the distinct stacks, not the input size);
 * compressed input and other formats are read whole. */
static int read_input(struct profile *p, const char *path, const struct graph_opts *o)
{
	bool is_stdin = !strcmp(path, "-");
	const char *name = is_stdin ? "<stdin>" : path;
	int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return error("cannot open '%s': %s", path, strerror(errno));
	char *buf = xmalloc(CHUNK);
	int ret = -1;
	ssize_t got = fill(fd, name, buf, 0, CHUNK);
	if (got < 0) {
		free(buf);
		goto out;
	}
	size_t have = (size_t)got;
	const struct collapse_format *fmt = NULL;
	if (o->input_format) {
		fmt = collapse_find(o->input_format);
		if (!fmt) {
			free(buf);
			ret = error("unknown input format '%s'", o->input_format);
			goto out;
		}
	} else if (have && !compressed(buf, have)) {
		fmt = collapse_detect(buf, have);
	}
	if ((fmt && strcmp(fmt->name, "folded")) || compressed(buf, have)) {
		ret = read_whole(p, fd, name, buf, have, fmt, o);
		goto out;
	}
	struct folded_opts fo = { .reverse = o->reverse };
	ret = folded_read_fd(p, fd, name, buf, have, &fo, o->threads);
out:
	if (!is_stdin)
		close(fd);
	return ret;
}

int cmd_flamegraph(int argc, char **argv)
{
	struct fg_opts o = { 0 };
	int r = parse_args(argc, argv, &o);
	if (r)
		return r > 0 ? 0 : usage_hint("flamegraph");
	if (graph_opts_load(&o.graph)) {
		graph_opts_release(&o.graph);
		return 1;
	}
	struct profile p;
	profile_init(&p);
	p.keep_events = o.graph.layout.flamechart;
	int ret = 0;
	for (int i = 0; i < o.nr_files; i++)
		usage_stdin_not_terminal("flamegraph", o.files[i], "stacks");
	if (o.nr_files == 0) {
		usage_stdin_not_terminal("flamegraph", "-", "stacks");
		if (read_input(&p, "-", &o.graph))
			ret = 1;
	}
	for (int i = 0; i < o.nr_files && !ret; i++)
		if (read_input(&p, o.files[i], &o.graph))
			ret = 1;
	if (!ret) {
		o.graph.reverse = false; /* done while reading */
		enum graph_format f = graph_opts_format(&o.graph, "flamegraph", o.output, WRITES_PICTURE | WRITES_DATA);
		ret = graph_exit_code(graph_render(&p, &o.graph, f ? f : GRAPH_FORMAT_SVG, o.output));
	}
	profile_release(&p);
	graph_opts_release(&o.graph);
	return ret;
}
