/* scorch collapse: profiler text output -> folded stacks.
 *
 *   scorch collapse --list
 *   scorch collapse FORMAT [OPTIONS] [FILE...]
 *   scorch collapse [OPTIONS] [FILE...]       (format detected from the input)
 *
 * Parse the options, then run: name or detect the format, read every input
 * into one profile, write it (cmd/load.h); then clean up. The output file is
 * only opened once every input parsed, and replaced atomically. */
#include "cmd/cmd.h"
#include "cmd/frame_opts.h"
#include "cmd/load.h"
#include "cmd/output_format.h"
#include "cmd/time_arg.h"
#include "cmd/usage.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/input.h"
#include "collapse/collapse.h"
#include "collapse/perf_script.h"
#include "profile/profile.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

extern const struct collapse_format collapse_format_perf;

const char collapse_usage[] =
	"usage: scorch collapse FORMAT [OPTIONS] [FILE...]\n"
	"       scorch collapse [OPTIONS] [FILE...]    (detect the format)\n"
	"       scorch collapse --list\n"
	"\n"
	"Turn a profiler's text output into folded stacks (\"a;b;c COUNT\" lines,\n"
	"sorted), the input of `scorch flamegraph`. Several files are summed; no\n"
	"FILE or \"-\" reads stdin. gzip, xz and zstd input is decompressed.\n"
	"\n"
	"options:\n"
	"  -o, --output FILE     write to FILE (replaced only when all went well);\n"
	"                        FILE.pb.gz: pprof, FILE.speedscope.json: speedscope\n"
	"      --format NAME     pprof or speedscope output whatever the -o name; or the\n"
	"                        input format (as the FORMAT operand)\n"
	"      --strict          a line that cannot be parsed is an error (exit 1)\n"
	"  -j, --threads N       parser threads (perf; default: one per CPU)\n"
	"      --list            list the formats\n"
	"  -h, --help            this help\n"
	"\n"
	"perf (stackcollapse-perf.pl's options, same output byte for byte):\n"
	"      --pid             append -PID to the process name\n"
	"      --tid             append -PID/TID to the process name\n"
	"      --kernel          annotate kernel frames with _[k]\n"
	"      --jit             annotate JIT frames (/tmp/perf-PID.map) with _[j]\n"
	"      --all             --kernel and --jit\n"
	"      --addrs           keep the address of unknown frames: [mod <addr>]\n"
	"      --event-filter=EV only samples of event EV (default: the first seen)\n"
	"      --inline          expand inlined functions (libdw, like addr2line -i)\n"
	"      --context         with --inline: frames as func:file:line\n"
	"      --srcline         input from `perf script -F+srcline`: add file:line\n"
	"      --time START,END  only samples in this range (perf report's spelling, as\n"
	"                        scorch report --time)\n"
	"\n"
	"other formats:\n"
	"      --include-offsets keep +0x offsets where the format has them\n"
	"      --no-modules      frames without their module name (sample, vtune)\n"
	"      --ghcprof-column=C  ghcprof: time (default), ticks or bytes\n"
	"      --sample-index=I  pprof: the value to count, by sample type name (cpu,\n"
	"                        alloc_space, ...) or number (default: the profile's\n"
	"                        default type, else its last, as go tool pprof)\n";

static void list_formats(FILE *f)
{
	for (size_t i = 0; collapse_formats[i]; i++)
		fprintf(f, "  %-12s %s\n", collapse_formats[i]->name, collapse_formats[i]->description);
}

enum {
	OPT_INLINE = 256, OPT_CONTEXT, OPT_SRCLINE, OPT_STRICT, OPT_INCLUDE_OFFSETS, OPT_NO_MODULES, OPT_LIST,
	OPT_EVENT_FILTER, OPT_GHCPROF_COLUMN, OPT_SAMPLE_INDEX, OPT_FORMAT, OPT_TIME,
};

/* Followed by the frame options (cmd/frame_opts.h). */
static const struct option own_options[] = {
	{ "inline", no_argument, NULL, OPT_INLINE },
	{ "context", no_argument, NULL, OPT_CONTEXT },
	{ "srcline", no_argument, NULL, OPT_SRCLINE },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "include-offsets", no_argument, NULL, OPT_INCLUDE_OFFSETS },
	{ "no-modules", no_argument, NULL, OPT_NO_MODULES },
	{ "list", no_argument, NULL, OPT_LIST },
	{ "help", no_argument, NULL, 'h' },
	{ "event-filter", required_argument, NULL, OPT_EVENT_FILTER },
	{ "ghcprof-column", required_argument, NULL, OPT_GHCPROF_COLUMN },
	{ "sample-index", required_argument, NULL, OPT_SAMPLE_INDEX },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "time", required_argument, NULL, OPT_TIME },
	{ "output", required_argument, NULL, 'o' },
	{ NULL, 0, NULL, 0 },
};

struct args {
	struct collapse_opts opts;
	const char *output;
	const char *format;           /* --format: an output or an input format */
	enum graph_format out_format; /* --format pprof/speedscope; NONE: by -o's name */
	char **files; /* the operands: [FORMAT] FILE... */
	int nr_files;
	bool list, help;
};

static void parse_args(int argc, char **argv, struct args *a)
{
	struct collapse_opts *o = &a->opts;
	struct frame_args fa = { .threads = -1, .threads_error = "bad thread count '%s'" };
	struct option *long_options = frame_options_with(own_options, NULL);
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:j:h", long_options, NULL)) != -1) {
		if (frame_opt_code(c)) {
			frame_args_set(&fa, "collapse", c, optarg);
			continue;
		}
		switch (c) {
		case OPT_INLINE: o->inline_frames = true; break;
		case OPT_CONTEXT: o->context = true; break;
		case OPT_SRCLINE: o->srcline = true; break;
		case OPT_STRICT: o->strict = true; break;
		case OPT_INCLUDE_OFFSETS: o->include_offsets = true; break;
		case OPT_NO_MODULES: o->no_modules = true; break;
		case OPT_LIST: a->list = true; break;
		case 'h': a->help = true; break;
		case OPT_EVENT_FILTER: o->event_filter = optarg; break;
		case OPT_GHCPROF_COLUMN: o->ghcprof_column = optarg; break;
		case OPT_SAMPLE_INDEX: o->sample_index = optarg; break;
		case OPT_FORMAT: a->format = optarg; break;
		case OPT_TIME: free(o->time_ranges); o->time_ranges = time_arg_parse("collapse", optarg); break;
		case 'o': a->output = optarg; break;
		default: free(long_options); usage_bad_option("collapse", c, argv);
		}
	}
	free(long_options);
	o->pid = fa.pid;
	o->tid = fa.tid;
	o->kernel = fa.kernel;
	o->jit = fa.jit;
	o->addrs = fa.addrs;
	o->threads = fa.threads < 0 ? 0 : fa.threads; /* 0: one per CPU */
	a->files = argv + optind;
	a->nr_files = argc - optind;
	/* The script accepts --context alone and ignores it; so do we. */
	if (o->context && !o->inline_frames)
		o->context = false;
}

static bool file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* The format named by the first operand (which then is no input), or NULL
 * to detect it. A first operand that is neither a format nor a file, and
 * looks like a format name, is a usage error. */
static const struct collapse_format *named_format(struct args *a)
{
	if (!a->nr_files || !strcmp(a->files[0], "-"))
		return NULL;
	const struct collapse_format *fmt = collapse_find(a->files[0]);
	if (fmt) {
		a->files++;
		a->nr_files--;
	} else if (!file_exists(a->files[0]) && !strchr(a->files[0], '/') && !strchr(a->files[0], '.')) {
		char names[512] = "";
		for (size_t i = 0; collapse_formats[i]; i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", i ? ", " : "",
				 collapse_formats[i]->name);
		usage_error("collapse", "'%s' is neither a format (%s) nor a file (no such file)", a->files[0],
			    names);
	}
	return fmt;
}

/* The format of the loaded inputs: empty input is folded (nothing to
 * detect, nothing to write), else what the first input looks like. */
static const struct collapse_format *detected_format(const struct input *in, size_t n)
{
	bool empty = true;
	for (size_t i = 0; i < n; i++)
		empty &= in[i].len == 0;
	const struct collapse_format *fmt = empty ? collapse_find("folded") : collapse_detect(in[0].data, in[0].len);
	if (!fmt)
		error("cannot tell the format of '%s'; name it: scorch collapse FORMAT "
		      "(scorch collapse --list)", in[0].name);
	return fmt;
}

/* Parse every input with fmt (perf: all at once, on its threads) into p. */
static int collapse_inputs(struct profile *p, const struct collapse_format *fmt, const struct input *in,
			   size_t n, const struct collapse_opts *o)
{
	if (fmt == &collapse_format_perf) {
		struct perf_input *pi = xcalloc(n, sizeof(*pi));
		for (size_t i = 0; i < n; i++)
			pi[i] = (struct perf_input){ in[i].name, in[i].data, in[i].len,
						     in[i].map != NULL && in[i].data == in[i].map };
		int ret = perf_collapse(p, pi, n, o);
		free(pi);
		if (!ret && p->overflow) /* a period, or a stack's periods, past 2^64 - 1 */
			ret = n == 1 ? error("%s: the counts of one stack pass 2^64 - 1", in[0].name)
				     : error("the counts of one stack pass 2^64 - 1");
		return ret;
	}
	for (size_t i = 0; i < n; i++) {
		struct collapse_source src = { in[i].name, in[i].data, in[i].len };
		if (fmt->parse(p, &src, o))
			return -1;
	}
	return 0;
}

/* Nothing collapsed from a detected format: an error unless every input
 * was blank, so that input detection got wrong, or none of whose lines
 * could be read, does not pass as an empty profile. (A format named on
 * the command line keeps its reference script's exit 0.) */
static int check_some_stack(const struct input *in, size_t n, const struct collapse_format *fmt)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < in[i].len; k++)
			if (!isspace((unsigned char)in[i].data[k]))
				return error("%s: no stacks found (read as %s: scorch collapse --list names "
					     "the formats)", in[i].name, fmt->name);
	return 0;
}

/* Read the inputs (stdin when none), collapse them, write the result. */
static int run(struct args *a, const struct collapse_format *fmt)
{
	static char *stdin_only[] = { "-" };
	char **files = a->nr_files ? a->files : stdin_only;
	size_t n = a->nr_files ? (size_t)a->nr_files : 1;
	for (size_t i = 0; i < n; i++)
		usage_stdin_not_terminal("collapse", files[i], "profiler output");
	struct input *in = xcalloc(n, sizeof(*in));
	size_t loaded = 0;
	int ret = 0;
	while (loaded < n && !ret)
		ret = input_load(&in[loaded], files[loaded]) ? -1 : (loaded++, 0);
	bool detected = !fmt;
	if (!ret && !fmt && !(fmt = detected_format(in, n)))
		ret = -1;
	struct profile p;
	profile_init(&p);
	const char *unit = NULL; /* what the counts are, when the input says (pprof) */
	a->opts.unit = &unit;
	if (!ret && a->opts.time_ranges && fmt != &collapse_format_perf) {
		/* (released first: usage_error exits, and what is held then
		 * is a leak to LeakSanitizer, as the sanitizer pass saw) */
		for (size_t i = 0; i < loaded; i++)
			input_release(&in[i]);
		free(in);
		profile_release(&p);
		usage_error("collapse", "--time: %s input carries no sample times (perf script text does)",
			    fmt->name);
	}
	if (!ret)
		ret = collapse_inputs(&p, fmt, in, n, &a->opts);
	if (ret)
		time_arg_check("collapse", a->opts.time_ranges);
	if (!ret && p.nr == 1 && detected && !a->opts.time_ranges)
		ret = check_some_stack(in, n, fmt); /* (--time may select nothing) */
	for (size_t i = 0; i < loaded; i++)
		input_release(&in[i]);
	free(in);
	if (!ret)
		ret = save_profile(&p, a->output, a->out_format, unit);
	profile_release(&p);
	return ret ? 1 : 0;
}

int cmd_collapse(int argc, char **argv)
{
	struct args a = { 0 };
	parse_args(argc, argv, &a);
	if (a.help) {
		fputs(collapse_usage, stdout);
		return 0;
	}
	if (a.list) {
		list_formats(stdout);
		return 0;
	}
	output_format("collapse", a.output, WRITES_FOLDED | WRITES_DATA);
	const struct collapse_format *fmt = NULL;
	if (a.format) {
		/* as flamegraph's --format: an output format, else the input's */
		enum graph_format gf = graph_format_find(a.format);
		if (graph_format_is_data(gf))
			a.out_format = gf;
		else if (!(fmt = collapse_find(a.format)))
			usage_error("collapse", "--format: '%s' is neither an output format collapse writes "
				    "(pprof, speedscope) nor an input format (scorch collapse --list)", a.format);
	}
	if (!fmt)
		fmt = named_format(&a);
	int rc = run(&a, fmt);
	free(a.opts.time_ranges);
	return rc;
}
