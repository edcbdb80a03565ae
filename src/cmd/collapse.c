/* scorch collapse: profiler text output -> folded stacks.
 *
 *   scorch collapse --list
 *   scorch collapse FORMAT [OPTIONS] [FILE...]
 *   scorch collapse [OPTIONS] [FILE...]       (format detected from the input)
 *
 * argv -> options -> find or detect the format -> parse every input into one
 * profile -> folded_write -> out_commit. The output file is only opened once
 * every input parsed, and replaced atomically. */
#include "cmd/cmd.h"
#include "cmd/output_format.h"
#include "cmd/usage.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/input.h"
#include "base/out.h"
#include "collapse/collapse.h"
#include "collapse/perf_script.h"
#include "profile/folded.h"
#include "profile/profile.h"
#include "render/graph.h"

#include <errno.h>
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

struct args {
	struct collapse_opts opts;
	const char *output;
	const char *format;
	const char **files;
	size_t nfiles, files_alloc;
	size_t skip; /* files[0] was the format name */
	bool list, help;
};

/* "--name=value" or "--name value": returns the value, advancing *i. */
static const char *take_value(int argc, char **argv, int *i, const char *arg, size_t namelen)
{
	if (arg[namelen] == '=')
		return arg + namelen + 1;
	if (*i + 1 >= argc)
		usage_error("collapse", "option '%s' needs a value", arg);
	return argv[++*i];
}

static bool is_opt(const char *arg, const char *name)
{
	size_t n = strlen(name);
	return !strncmp(arg, name, n) && (arg[n] == '\0' || arg[n] == '=');
}

static void parse_args(int argc, char **argv, struct args *a)
{
	struct collapse_opts *o = &a->opts;
	bool only_files = false;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (only_files || arg[0] != '-' || !strcmp(arg, "-")) {
			VEC_GROW(a->files, a->nfiles + 1, a->files_alloc);
			a->files[a->nfiles++] = arg;
			continue;
		}
#define FLAG(name, field)                                                                  \
	if (!strcmp(arg, name)) {                                                          \
		field = true;                                                              \
		continue;                                                                  \
	}
		if (!strcmp(arg, "--")) {
			only_files = true;
			continue;
		}
		FLAG("--pid", o->pid)
		FLAG("--tid", o->tid)
		FLAG("--kernel", o->kernel)
		FLAG("--jit", o->jit)
		FLAG("--all", o->all)
		FLAG("--addrs", o->addrs)
		FLAG("--inline", o->inline_frames)
		FLAG("--context", o->context)
		FLAG("--srcline", o->srcline)
		FLAG("--strict", o->strict)
		FLAG("--include-offsets", o->include_offsets)
		FLAG("--no-modules", o->no_modules)
		FLAG("--list", a->list)
		FLAG("--help", a->help)
		FLAG("-h", a->help)
#undef FLAG
		if (is_opt(arg, "--event-filter")) {
			o->event_filter = take_value(argc, argv, &i, arg, strlen("--event-filter"));
		} else if (is_opt(arg, "--ghcprof-column")) {
			o->ghcprof_column = take_value(argc, argv, &i, arg, strlen("--ghcprof-column"));
		} else if (is_opt(arg, "--sample-index")) {
			o->sample_index = take_value(argc, argv, &i, arg, strlen("--sample-index"));
		} else if (is_opt(arg, "--output")) {
			a->output = take_value(argc, argv, &i, arg, strlen("--output"));
		} else if (!strncmp(arg, "-o", 2)) {
			a->output = arg[2] ? arg + 2 : take_value(argc, argv, &i, arg, strlen(arg));
		} else if (is_opt(arg, "--threads") || !strncmp(arg, "-j", 2)) {
			const char *v = arg[1] == 'j' ? (arg[2] ? arg + 2 : take_value(argc, argv, &i, arg, 2))
						      : take_value(argc, argv, &i, arg, strlen("--threads"));
			char *end;
			errno = 0;
			long t = strtol(v, &end, 10);
			if (errno || *end || end == v || t < 0 || t > 1024)
				usage_error("collapse", "bad thread count '%s'", v);
			o->threads = (int)t;
		} else {
			usage_error("collapse", "unknown option '%s'", arg);
		}
	}
}

static bool file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

int cmd_collapse(int argc, char **argv)
{
	struct args a;
	memset(&a, 0, sizeof(a));
	parse_args(argc, argv, &a);
	if (a.help) {
		fputs(collapse_usage, stdout);
		free(a.files);
		return 0;
	}
	if (a.list) {
		list_formats(stdout);
		free(a.files);
		return 0;
	}
	output_format("collapse", a.output, WRITES_FOLDED | WRITES_DATA);
	const struct collapse_format *fmt = NULL;
	if (a.nfiles && strcmp(a.files[0], "-")) {
		fmt = collapse_find(a.files[0]);
		if (fmt) {
			a.skip = 1;
		} else if (!file_exists(a.files[0]) && !strchr(a.files[0], '/') &&
			   !strchr(a.files[0], '.')) {
			char names[512] = "";
			for (size_t i = 0; collapse_formats[i]; i++)
				snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
					 i ? ", " : "", collapse_formats[i]->name);
			usage_error("collapse", "'%s' is neither a format (%s) nor a file (no such file)",
				    a.files[0], names);
		}
	}
	if (a.opts.context && !a.opts.inline_frames) {
		/* The script accepts --context alone and ignores it; so do we. */
		a.opts.context = false;
	}

	static const char *const stdin_only[] = { "-" };
	size_t nnamed = a.nfiles - a.skip;
	const char *const *files = nnamed ? a.files + a.skip : stdin_only;
	size_t nfiles = nnamed ? nnamed : 1;
	for (size_t i = 0; i < nfiles; i++)
		usage_stdin_not_terminal("collapse", files[i], "profiler output");
	struct input *in = xcalloc(nfiles, sizeof(*in));
	int ret = 0;
	size_t loaded = 0;
	for (; loaded < nfiles; loaded++) {
		if (input_load(&in[loaded], files[loaded])) {
			ret = 1;
			break;
		}
	}
	if (!ret && !fmt) {
		/* Nothing to detect in empty input, and nothing to write. */
		bool empty = true;
		for (size_t i = 0; i < nfiles; i++)
			empty &= in[i].len == 0;
		fmt = empty ? collapse_find("folded") : collapse_detect(in[0].data, in[0].len);
		if (!fmt) {
			error("cannot tell the format of '%s'; name it: scorch collapse FORMAT "
			      "(scorch collapse --list)", in[0].name);
			ret = 1;
		}
	}

	struct profile p;
	profile_init(&p);
	if (!ret && fmt == &collapse_format_perf) {
		struct perf_input *pi = xcalloc(nfiles, sizeof(*pi));
		for (size_t i = 0; i < nfiles; i++)
			pi[i] = (struct perf_input){ in[i].name, in[i].data, in[i].len,
						     in[i].map != NULL && in[i].data == in[i].map };
		if (perf_collapse(&p, pi, nfiles, &a.opts))
			ret = 1;
		free(pi);
	} else if (!ret) {
		for (size_t i = 0; i < nfiles && !ret; i++) {
			struct collapse_source src = { in[i].name, in[i].data, in[i].len };
			if (fmt->parse(&p, &src, &a.opts))
				ret = 1;
		}
	}
	for (size_t i = 0; i < loaded; i++)
		input_release(&in[i]);
	free(in);

	if (!ret) {
		enum graph_format f = graph_format_for_path(a.output);
		struct out *o = out_open(a.output);
		if (!o) {
			ret = 1;
		} else {
			if (graph_format_is_data(f))
				graph_write_data(o, &p, f, &(struct pprof_opts){ 0 });
			else
				folded_write(&p, o);
			if (out_commit(o))
				ret = 1;
		}
	}
	profile_release(&p);
	free(a.files);
	return ret;
}
