/* scorch flamegraph: a drop-in flamegraph.pl. Options keep flamegraph.pl's
 * names and meanings (long options, single-dash and unique prefixes as
 * Getopt::Long); input is folded stacks, or any format collapse detects. */
#include "cmd/cmd.h"
#include "cmd/graph_forward.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/input.h"
#include "base/out.h"
#include "collapse/collapse.h"
#include "layout/layout.h"
#include "profile/folded.h"
#include "profile/folded_stream.h"
#include "profile/ops.h"
#include "render/nameattr.h"
#include "render/palette.h"
#include "render/svg.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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
	"  --minwidth N[%]     omit frames narrower than N px, or N% of the total (0.1)\n"
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
	"  -o, --output FILE   write here (only when the run succeeds) instead of stdout\n"
	"  --include REGEX     keep only stacks matching REGEX (POSIX extended,\n"
	"                      on \"a;b;c\"); --exclude REGEX drops matching stacks\n"
	"  --search-color C    search highlight colour (rgb(230,0,230))\n"
	"  --truncate-text-left  long labels keep their end (\"..name\")\n"
	"  --truncate-text-right long labels keep their start (the default)\n"
	"  --no-js             omit the interactive script\n"
	"  --format NAME       input format instead of detecting it (see scorch collapse --list)\n"
	"  --threads N         1 (default): one thread; 2: one thread splits and hashes\n"
	"                      lines while the other builds the profile (faster on idle\n"
	"                      cores, slower when they are busy)\n";

enum {
	OPT_TITLE = 256, OPT_SUBTITLE, OPT_WIDTH, OPT_HEIGHT, OPT_MINWIDTH, OPT_FONTTYPE,
	OPT_FONTSIZE, OPT_FONTWIDTH, OPT_COUNTNAME, OPT_NAMETYPE, OPT_COLORS, OPT_BGCOLORS,
	OPT_HASH, OPT_RANDOM, OPT_CP, OPT_REVERSE, OPT_INVERTED, OPT_FLAMECHART, OPT_NEGATE,
	OPT_NOTES, OPT_FACTOR, OPT_TOTAL, OPT_NAMEATTR, OPT_ENCODING, OPT_HELP, OPT_INCLUDE,
	OPT_EXCLUDE, OPT_SEARCH_COLOR, OPT_TRUNC_RIGHT, OPT_TRUNC_LEFT, OPT_NO_JS,
	OPT_DUMP_FRAMES, OPT_FORMAT, OPT_THREADS,
};

/* Also the options record and report forward (cmd/graph_forward.c). */
const struct option flamegraph_long_options[] = {
	{ "title", required_argument, NULL, OPT_TITLE },
	{ "subtitle", required_argument, NULL, OPT_SUBTITLE },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ "height", required_argument, NULL, OPT_HEIGHT },
	{ "minwidth", required_argument, NULL, OPT_MINWIDTH },
	{ "fonttype", required_argument, NULL, OPT_FONTTYPE },
	{ "fontsize", required_argument, NULL, OPT_FONTSIZE },
	{ "fontwidth", required_argument, NULL, OPT_FONTWIDTH },
	{ "countname", required_argument, NULL, OPT_COUNTNAME },
	{ "nametype", required_argument, NULL, OPT_NAMETYPE },
	{ "colors", required_argument, NULL, OPT_COLORS },
	{ "bgcolors", required_argument, NULL, OPT_BGCOLORS },
	{ "hash", no_argument, NULL, OPT_HASH },
	{ "random", no_argument, NULL, OPT_RANDOM },
	{ "cp", no_argument, NULL, OPT_CP },
	{ "reverse", no_argument, NULL, OPT_REVERSE },
	{ "inverted", no_argument, NULL, OPT_INVERTED },
	{ "flamechart", no_argument, NULL, OPT_FLAMECHART },
	{ "negate", no_argument, NULL, OPT_NEGATE },
	{ "notes", required_argument, NULL, OPT_NOTES },
	{ "factor", required_argument, NULL, OPT_FACTOR },
	{ "total", required_argument, NULL, OPT_TOTAL },
	{ "nameattr", required_argument, NULL, OPT_NAMEATTR },
	{ "encoding", required_argument, NULL, OPT_ENCODING },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "output", required_argument, NULL, 'o' },
	{ "include", required_argument, NULL, OPT_INCLUDE },
	{ "exclude", required_argument, NULL, OPT_EXCLUDE },
	{ "search-color", required_argument, NULL, OPT_SEARCH_COLOR },
	{ "truncate-text-right", no_argument, NULL, OPT_TRUNC_RIGHT },
	{ "truncate-text-left", no_argument, NULL, OPT_TRUNC_LEFT },
	{ "no-js", no_argument, NULL, OPT_NO_JS },
	{ "no-javascript", no_argument, NULL, OPT_NO_JS },
	{ "dump-frames", no_argument, NULL, OPT_DUMP_FRAMES },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ NULL, 0, NULL, 0 },
};

struct fg_opts {
	struct svg_opts svg;
	struct layout_opts layout;
	const char *output;
	const char *colors;
	const char *bgcolors;
	const char *nameattr_path;
	const char *include, *exclude;
	const char *format;
	bool hash, random, cp, reverse, dump_frames;
	int threads;
	double total;
	char **files;
	int nr_files;
};

static int bad_value(const char *opt, const char *arg, const char *what)
{
	error("--%s: '%s' is not %s", opt, arg, what);
	return -1;
}

static int parse_int(const char *opt, const char *arg, int *v)
{
	char *end;
	long x = strtol(arg, &end, 10);
	if (!*arg || *end || x <= 0 || x > 1000000)
		return bad_value(opt, arg, "a positive integer");
	*v = (int)x;
	return 0;
}

static int parse_float(const char *opt, const char *arg, double *v, bool positive)
{
	char *end;
	double x = strtod(arg, &end);
	if (!*arg || *end || x != x || (positive && !(x > 0)) || x > 1e300 || x < -1e300)
		return bad_value(opt, arg, positive ? "a positive number" : "a number");
	*v = x;
	return 0;
}

/* flamegraph.pl: ^([0-9.]+)%?$ */
static int parse_minwidth(const char *arg, struct layout_opts *l)
{
	size_t n = strlen(arg);
	bool pct = n && arg[n - 1] == '%';
	size_t digits = strspn(arg, "0123456789.");
	if (!digits || digits != n - pct)
		return bad_value("minwidth", arg, "a number of pixels or a percentage");
	l->minwidth = strtod(arg, NULL);
	l->minwidth_pct = pct;
	return 0;
}

static int parse_args(int argc, char **argv, struct fg_opts *o)
{
	svg_opts_defaults(&o->svg);
	o->layout.minwidth = 0.1;
	optind = 1;
	opterr = 1;
	int c;
	while ((c = getopt_long_only(argc, argv, "o:h", flamegraph_long_options, NULL)) != -1) {
		const char *a = optarg;
		int r = 0;
		switch (c) {
		case OPT_TITLE: o->svg.title = a; break;
		case OPT_SUBTITLE: o->svg.subtitle = a; break;
		case OPT_WIDTH: r = parse_int("width", a, &o->svg.width); break;
		case OPT_HEIGHT: r = parse_int("height", a, &o->svg.frame_height); break;
		case OPT_MINWIDTH: r = parse_minwidth(a, &o->layout); break;
		case OPT_FONTTYPE: o->svg.fonttype = a; break;
		case OPT_FONTSIZE: r = parse_float("fontsize", a, &o->svg.fontsize, true); break;
		case OPT_FONTWIDTH: r = parse_float("fontwidth", a, &o->svg.fontwidth, true); break;
		case OPT_COUNTNAME: o->svg.countname = a; break;
		case OPT_NAMETYPE: o->svg.nametype = a; break;
		case OPT_COLORS: o->colors = a; break;
		case OPT_BGCOLORS: o->bgcolors = a; break;
		case OPT_HASH: o->hash = true; break;
		case OPT_RANDOM: o->random = true; break;
		case OPT_CP: o->cp = true; break;
		case OPT_REVERSE: o->reverse = true; break;
		case OPT_INVERTED: o->svg.inverted = true; break;
		case OPT_FLAMECHART: o->svg.flamechart = o->layout.flamechart = true; break;
		case OPT_NEGATE: o->svg.negate = true; break;
		case OPT_NOTES: o->svg.notes = a; break;
		case OPT_FACTOR: r = parse_float("factor", a, &o->svg.factor, true); break;
		case OPT_TOTAL: r = parse_float("total", a, &o->total, false); break;
		case OPT_NAMEATTR: o->nameattr_path = a; break;
		case OPT_ENCODING: o->svg.encoding = a; break;
		case OPT_INCLUDE: o->include = a; break;
		case OPT_EXCLUDE: o->exclude = a; break;
		case OPT_SEARCH_COLOR: o->svg.searchcolor = a; break;
		case OPT_TRUNC_RIGHT: o->svg.truncate_left = false; break;
		case OPT_TRUNC_LEFT: o->svg.truncate_left = true; break;
		case OPT_NO_JS: o->svg.no_js = true; break;
		case OPT_DUMP_FRAMES: o->dump_frames = true; break;
		case OPT_FORMAT: o->format = a; break;
		case OPT_THREADS: r = parse_int("threads", a, &o->threads); break;
		case 'o': o->output = a; break;
		case 'h':
		case OPT_HELP:
			fputs(flamegraph_usage, stdout);
			return 1;
		default:
			fputs(flamegraph_usage, stderr);
			return -1;
		}
		if (r)
			return -1;
	}
	o->files = argv + optind;
	o->nr_files = argc - optind;
	if (o->colors) {
		o->svg.palette = palette_find(o->colors);
		if (o->svg.palette == PAL_UNKNOWN)
			warn("unknown palette '%s' (known: %s): frames will be black, as flamegraph.pl",
			     o->colors, palette_names);
	}
	if (!palette_background(o->bgcolors, o->svg.palette, o->svg.bg_top, o->svg.bg_bottom))
		return bad_value("bgcolors", o->bgcolors, "yellow, blue, green, grey or #rrggbb");
	o->svg.seed = o->hash ? SEED_HASH : o->random ? SEED_RANDOM : SEED_NAME;
	if (o->random)
		palette_rng_seed(&o->svg.rng, (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32);
	if (!o->threads)
		o->threads = 1; /* 2 helps only on idle cores: measured slower when they are busy */
	o->layout.image_width = o->svg.width;
	o->layout.total = o->total;
	return 0;
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
		      const struct collapse_format *fmt, const struct fg_opts *o)
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
static int read_input(struct profile *p, const char *path, const struct fg_opts *o)
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
	if (o->format) {
		fmt = collapse_find(o->format);
		if (!fmt) {
			free(buf);
			ret = error("unknown input format '%s'", o->format);
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

static void replace_profile(struct profile *p, void (*op)(struct profile *, const struct profile *))
{
	struct profile q;
	profile_init(&q);
	op(&q, p);
	profile_release(p);
	*p = q;
}

static int render(struct fg_opts *o, struct profile *p, struct nameattr *na)
{
	if (o->include || o->exclude) {
		regex_t inc, exc;
		struct stack_filter f = { NULL, NULL };
		if (o->include) {
			if (stack_filter_compile(&inc, o->include, "--include"))
				return 2;
			f.include = &inc;
		}
		if (o->exclude) {
			if (stack_filter_compile(&exc, o->exclude, "--exclude")) {
				if (f.include)
					regfree(&inc);
				return 2;
			}
			f.exclude = &exc;
		}
		struct profile q;
		profile_init(&q);
		profile_filter(&q, p, &f);
		profile_release(p);
		*p = q;
		if (f.include)
			regfree(&inc);
		if (f.exclude)
			regfree(&exc);
	}
	if (o->svg.palette == PAL_CHAIN)
		replace_profile(p, profile_chain);

	struct layout l;
	layout_build(&l, p, &o->layout);
	if (l.total == 0) {
		error("no stack counts found in the input");
		layout_release(&l);
		if (!o->output && !o->dump_frames) {
			struct out *e = out_open(NULL);
			svg_write_error(e, &o->svg, "ERROR: No valid input provided to flamegraph.");
			out_commit(e);
		}
		return 2;
	}
	if (o->total && o->total < l.total)
		warn("specified --total %.15g is less than the actual total %.15g, so ignored",
		     o->total, l.total);

	if (o->nameattr_path)
		o->svg.nameattr = na;
	struct palette_map *cp = NULL;
	if (o->cp) {
		size_t ignored = 0;
		cp = palette_map_new();
		if (palette_map_load(cp, "palette.map", &ignored)) {
			palette_map_free(cp);
			layout_release(&l);
			return 1;
		}
		if (ignored)
			warn("palette.map: ignored %zu lines with invalid format", ignored);
		o->svg.cp = cp;
	}
	struct out *out = out_open(o->output);
	if (!out) {
		palette_map_free(cp);
		layout_release(&l);
		return 1;
	}
	if (o->dump_frames)
		svg_dump_frames(out, p, &l, &o->svg);
	else
		svg_write(out, p, &l, &o->svg);
	int ret = out_commit(out) ? 1 : 0;
	if (!ret && cp && palette_map_save(cp, "palette.map"))
		ret = 1;
	palette_map_free(cp);
	layout_release(&l);
	return ret;
}

int cmd_flamegraph(int argc, char **argv)
{
	struct fg_opts o = { 0 };
	int r = parse_args(argc, argv, &o);
	if (r)
		return r > 0 ? 0 : 2;

	struct nameattr na = { 0 };
	bool have_na = false;
	if (o.nameattr_path) {
		if (nameattr_load(&na, o.nameattr_path)) {
			nameattr_release(&na);
			return 1;
		}
		have_na = true;
	}

	struct profile p;
	profile_init(&p);
	p.keep_events = o.layout.flamechart;
	int ret = 0;
	if (o.nr_files == 0) {
		if (read_input(&p, "-", &o))
			ret = 1;
	}
	for (int i = 0; i < o.nr_files && !ret; i++)
		if (read_input(&p, o.files[i], &o))
			ret = 1;
	if (!ret)
		ret = render(&o, &p, &na);
	profile_release(&p);
	if (have_na)
		nameattr_release(&na);
	return ret;
}
