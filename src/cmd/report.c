/* scorch report: perf.data -> folded stacks (or an SVG flame graph),
 * without running perf. */
#include "cmd/cmd.h"
#include "cmd/count_arg.h"
#include "cmd/frame_opts.h"
#include "cmd/graph_opts.h"
#include "cmd/output_format.h"
#include "cmd/time_arg.h"
#include "cmd/usage.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/input.h"
#include "base/numfmt.h"
#include "base/out.h"
#include "perfdata/fold.h"
#include "perfdata/sample_span.h"
#include "profile/folded.h"
#include "profile/profile.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char report_usage[] =
	"usage: scorch report [OPTIONS] [FILE]\n"
	"\n"
	"Read perf.data (default ./perf.data; '-' reads a pipe-mode stream from\n"
	"stdin) and write folded stacks identical to\n"
	"`perf script -i FILE | stackcollapse-perf.pl [same options]`, without\n"
	"running perf. Kernel symbols come from /proc/kallsyms, or the copy perf\n"
	"record left in the build-id cache (~/.debug) when it is of another kernel\n"
	"or of this boot's (then the same symbols, read faster); user symbols from\n"
	"ELF .symtab/.dynsym, debug files by build-id and\n"
	".gnu_debuglink, [vdso] and /tmp/perf-PID.map. --call-graph dwarf samples\n"
	"are unwound with each file's CFI (read by libdw), as perf does.\n"
	"\n"
	"options:\n"
	"  -i, --input FILE        perf.data to read (same as the FILE argument)\n"
	"  -o, --output FILE       write here instead of stdout; FILE.svg: a flame graph,\n"
	"                          FILE.html: the interactive viewer (one file), FILE.png,\n"
	"                          FILE.pb.gz: pprof, FILE.speedscope.json: speedscope\n"
	"      --format F          svg, html, png, pprof or speedscope whatever the -o name\n"
	"                          (stdout too)\n"
	"      --pid               root frame comm-PID (as the script sees perf script's header)\n"
	"      --tid               root frame comm-PID/TID\n"
	"      --kernel            annotate kernel frames with _[k]\n"
	"      --per-cpu           a \"CPU N\" frame at the root of each stack (as record)\n"
	"      --jit               annotate JIT frames with _[j]\n"
	"      --all               --kernel and --jit\n"
	"      --addrs             [unknown <PC>] for unresolved frames\n"
	"      --event-filter EV   keep only samples of event EV (default: the first seen)\n"
	"      --script-pid        fold as if perf script printed 'pid/tid' (perf script -F +pid)\n"
	"      --max-stack N       frames per callchain (default 127, as perf script)\n"
	"      --kallsyms FILE     kernel symbols from FILE\n"
	"      --symfs DIR         look for every DSO under DIR\n"
	"      --no-demangle       keep mangled C++/Rust names\n"
	"      --no-debuginfod     never ask debuginfod servers (DEBUGINFOD_URLS) for the\n"
	"                          debug files of binaries without symbols\n"
	"  -f, --force             read /tmp/perf-PID.map files whoever owns them (by default\n"
	"                          only yours or root's, never through a symbolic link)\n"
	"      --inline            stackcollapse-perf.pl --inline: each frame of a file-backed\n"
	"                          module becomes addr2line -i -f -s -C's function chain\n"
	"                          (computed with libdw, as collapse perf --inline)\n"
	"      --no-inline         no inlined frames for DWARF-unwound stacks (perf script\n"
	"                          adds them, through addr2line, as scorch does by default)\n"
	"  -j, --threads N         threads that fold samples (default 1: fold on the reading\n"
	"                          thread, with the profile's updates on a second one when\n"
	"                          two CPUs may be used; 0: one per CPU). The output is the\n"
	"                          same for any N; --script, --inline and pprof output fold\n"
	"                          on one\n"
	"  -k, --keep-going        on a damaged file, use what was read before the damage\n"
	"      --stats             print record/sample counts to stderr\n"
	"      --script            write perf script's default text instead of folded stacks\n"
	"      --time START,END    only samples in this time range (perf report's spelling:\n"
	"                          seconds since the first sample or perf's timestamps,\n"
	"                          10%/2 for the second tenth, 0%-10%, several ranges)\n"
	"  -q, --quiet             no notes on stderr\n"
	"  -h, --help              this text\n"
	"\n"
	"With -o FILE.svg or FILE.html every option of 'scorch flamegraph' applies (--title,\n"
	"--width, --colors, --inverted, ...).\n"
	"\n"
	"Counts are what stackcollapse-perf counts: the sum of the samples' periods,\n"
	"so nanoseconds for cpu-clock and task-clock, cycles for cycles, events for\n"
	"other events (1 per sample when the file has no periods). A graph names\n"
	"that unit in its tooltips (--countname overrides it). Its title is perf's\n"
	"command line from the file's header, its subtitle the host, event and\n"
	"sample count (--title/--subtitle replace them).\n"
	"\n"
	"Exit status: 0 ok, 1 unreadable or damaged input (the error names the byte\n"
	"offset), or a file wanted for symbols that could not be opened (each named;\n"
	"out of descriptors: ulimit -n); with --keep-going the output is still written\n"
	"and the status is 0,\n"
	"2 usage error.\n";

enum {
	OPT_EVENT_FILTER = 256,
	OPT_SCRIPT_PID,
	OPT_MAX_STACK,
	OPT_KALLSYMS,
	OPT_SYMFS,
	OPT_NO_DEMANGLE,
	OPT_NO_INLINE,
	OPT_INLINE,
	OPT_STATS,
	OPT_PER_CPU,
	OPT_SCRIPT,
	OPT_TIME,
	OPT_NO_DEBUGINFOD,
};

/* Followed by the frame options (cmd/frame_opts.h), then the flame-graph
 * options (cmd/graph_opts.h) except --threads (-j: fold threads). */
static const struct option own_opts[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "output", required_argument, NULL, 'o' },
	{ "event-filter", required_argument, NULL, OPT_EVENT_FILTER },
	{ "script-pid", no_argument, NULL, OPT_SCRIPT_PID },
	{ "max-stack", required_argument, NULL, OPT_MAX_STACK },
	{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
	{ "symfs", required_argument, NULL, OPT_SYMFS },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "force", no_argument, NULL, 'f' },
	{ "no-debuginfod", no_argument, NULL, OPT_NO_DEBUGINFOD },
	{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
	{ "inline", no_argument, NULL, OPT_INLINE },
	{ "keep-going", no_argument, NULL, 'k' },
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "per-cpu", no_argument, NULL, OPT_PER_CPU },
	{ "script", no_argument, NULL, OPT_SCRIPT },
	{ "time", required_argument, NULL, OPT_TIME },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* "scorch report: perf record -g -- make" (perf's command line, its
 * program named by its base name), or the file's name without one. */
static void describe_capture(const struct report_stats *st, const char *file, char *buf, size_t cap)
{
	const char *cmd = st->cmdline;
	const char *space = strchr(cmd, ' ');
	const char *slash = memrchr(cmd, '/', space ? (size_t)(space - cmd) : strlen(cmd));
	if (slash)
		cmd = slash + 1;
	snprintf(buf, cap, "scorch report: %s", *cmd ? cmd : file ? file : "stdin");
}

/* "host x · cpu-clock · 1,234 samples · perf.data". */
static void describe_samples(const struct report_stats *st, const char *file, char *buf, size_t cap)
{
	char n[32];
	numfmt_grouped(n, sizeof(n), st->folded);
	snprintf(buf, cap, "%s%s%s%s \xc2\xb7 %s sample%s \xc2\xb7 %s", st->hostname[0] ? "host " : "",
		 st->hostname, st->hostname[0] ? " \xc2\xb7 " : "", st->event[0] ? st->event : "?", n,
		 st->folded == 1 ? "" : "s", file ? file : "stdin");
}

/* What the command line asked for. */
struct report_args {
	struct report_opts o;
	const char *input, *output;
	bool stats, script;
	struct graph_opts g;
	struct time_ranges *time; /* --time, or NULL */
	const char *default_countname; /* to know whether --countname changed it */
	enum graph_format graph;
};

/* The options, checked. Returns 0 to run, -1 after --help, or an exit
 * code: usage errors exit through cmd/usage.h (code 2), unreadable named
 * files give 1. */
static int parse_args(int argc, char **argv, struct report_args *a)
{
	struct report_opts *o = &a->o;
	static const char *const not_accepted[] = { "threads", NULL }; /* -j: fold threads */
	struct option *with_frames = frame_options_with(own_opts, NULL);
	struct option *long_opts = graph_options_with(with_frames, not_accepted);
	free(with_frames);
	struct frame_args fa = { .threads = -1,
				 .threads_error = "-j/--threads: not a thread count (0-1024, 0: one per CPU): '%s'" };
	int c, rc = 0;
	optind = 1;
	opterr = 0;
	while (!rc && (c = getopt_long(argc, argv, ":i:o:j:fkqh", long_opts, NULL)) != -1) {
		if (frame_opt_code(c)) {
			frame_args_set(&fa, "report", c, optarg);
			continue;
		}
		switch (c) {
		case 'i':
			a->input = optarg;
			break;
		case 'o':
			a->output = optarg;
			break;
		case OPT_EVENT_FILTER:
			o->event_filter = optarg;
			break;
		case OPT_SCRIPT_PID:
			o->script_pid = true;
			break;
		case OPT_MAX_STACK: {
			long v;
			if (!count_arg(optarg, 1, 100000, &v))
				usage_error("report", "--max-stack: not a frame count: '%s'", optarg);
			o->max_stack = (int)v;
			break;
		}
		case OPT_KALLSYMS:
			o->sym.kallsyms = optarg;
			break;
		case OPT_SYMFS:
			o->sym.symfs = optarg;
			break;
		case OPT_NO_DEMANGLE:
			o->sym.no_demangle = true;
			break;
		case OPT_NO_INLINE:
			o->no_inline = true;
			break;
		case OPT_INLINE:
			o->inline_addr2line = true;
			break;
		case 'f':
			o->sym.perfmap_force = true;
			break;
		case OPT_NO_DEBUGINFOD:
			o->sym.no_debuginfod = true;
			break;
		case 'k':
			o->keep_going = true;
			break;
		case OPT_PER_CPU:
			o->per_cpu = true;
			break;
		case OPT_STATS:
			a->stats = true;
			break;
		case OPT_SCRIPT:
			a->script = true;
			break;
		case OPT_TIME:
			free(a->time);
			a->time = time_arg_parse("report", optarg);
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			fputs(report_usage, stdout);
			rc = -1;
			break;
		default:
			rc = graph_opts_take(&a->g, "report", c, optarg, argv);
			break;
		}
	}
	free(long_opts);
	if (rc)
		return rc;
	o->pid = fa.pid;
	o->tid = fa.tid;
	o->kernel = fa.kernel;
	o->jit = fa.jit;
	o->addrs = fa.addrs;
	if (fa.threads == 0) { /* one per CPU */
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		o->threads = cpus > 0 ? (cpus > 64 ? 64 : (int)cpus) : 1;
	} else if (fa.threads > 0) {
		o->threads = fa.threads;
	}
	if (optind < argc) {
		if (a->input)
			usage_error("report", "give the input once (-i or FILE)");
		a->input = argv[optind++];
	}
	if (optind < argc)
		usage_error("report", "unexpected argument '%s'", argv[optind]);
	if (!a->input)
		a->input = "perf.data";
	usage_stdin_not_terminal("report", a->input, "a perf.data stream");
#ifndef HAVE_ELFUTILS
	if (o->inline_addr2line)
		usage_error("report", "--inline needs scorch built with elfutils (libdw)");
#endif
	rc = graph_opts_for_output(&a->g, "report", a->output, o->quiet, &a->graph);
	if (rc)
		return rc;
	o->sym.perfmap_warn = o->sym.debuginfod_notices = !o->quiet;
	if (a->script && a->graph)
		usage_error("report", "--script writes text, not a graph");
	/* Named files that are not there: said now, not silently unused. */
	struct stat sst;
	if (o->sym.kallsyms && access(o->sym.kallsyms, R_OK))
		return error("--kallsyms: cannot open '%s': %s", o->sym.kallsyms, strerror(errno)), 1;
	int symfs_err = !o->sym.symfs ? 0 : stat(o->sym.symfs, &sst) ? errno
				    : S_ISDIR(sst.st_mode) ? 0 : ENOTDIR;
	if (symfs_err)
		return error("--symfs: '%s': %s", o->sym.symfs, strerror(symfs_err)), 1;
	return 0;
}

/* The folded stacks, or the graph, of p (read from the file called name). */
static int write_profile(struct report_args *a, struct profile *p, const struct report_stats *st,
			 const char *name)
{
	struct graph_opts *g = &a->g;
	if (!a->graph) {
		struct out *out = out_open(a->output);
		if (!out)
			return 1;
		folded_write(p, out);
		return out_commit(out) ? 1 : 0;
	}
	/* The graph says what it counts: the event's unit. */
	if (g->svg.countname == a->default_countname && st->count_unit)
		g->svg.countname = st->count_unit;
	/* What, where and how, from the file's header, unless --title/--subtitle say. */
	char title[600], subtitle[600];
	if (!g->svg.title) {
		describe_capture(st, name, title, sizeof(title));
		g->svg.title = title;
	}
	if (!g->svg.subtitle) {
		describe_samples(st, name, subtitle, sizeof(subtitle));
		g->svg.subtitle = subtitle;
	}
	g->count_unit = st->count_unit;
	return graph_exit_code(graph_render(p, g, a->graph, a->output));
}

/* Read the input, fold it, write the result. */
static int run(struct report_args *a)
{
	struct heap_ahead heap = alloc_small_blocks_on_huge_pages(128u << 20);
	a->o.heap = &heap;
	struct input in;
	if (input_load(&in, !strcmp(a->input, "-") ? NULL : a->input) < 0)
		return 1;
	struct profile p;
	profile_init(&p);
	struct report_stats st;
	struct out *script_out = NULL;
	int rc = 0;
	if (a->script) {
		script_out = out_open(a->output);
		if (!script_out) {
			rc = 1;
			goto out;
		}
		a->o.script = script_out;
	}
	a->o.sites = a->graph == GRAPH_FORMAT_PPROF; /* Mappings with build-ids */
	/* Time: the HTML viewer's heat map, and the flame chart's order (the
	 * samples then fold one by one, in time order). */
	a->o.time = a->graph == GRAPH_FORMAT_HTML || a->g.layout.flamechart || a->time;
	if (a->time) {
		struct perf_data_span span;
		int found = perf_data_sample_span(in.name, in.data, in.len, &span);
		if (found < 0) {
			rc = 1;
			goto out;
		}
		if (!found)
			usage_error("report", "--time %s: %s has no sample times", a->time->text, in.name);
		if (span.epoch_known) /* perf record -k: epoch times too */
			time_ranges_set_epoch(a->time, span.epoch_offset);
		time_arg_resolve("report", a->time, span.first, span.last);
		a->o.ranges = a->time;
	}
	p.keep_events = a->g.layout.flamechart;
	rc = report_fold(in.name, in.data, in.len, &a->o, &p, &st) < 0 ? 1 : 0;
	if (rc && st.damaged && !a->o.keep_going)
		fprintf(stderr, "scorch: %s is damaged or truncated (a perf record that was killed?); "
				"--keep-going uses what was read before the damage\n", in.name);
	if (script_out) {
		if (rc)
			out_abort(script_out);
		else
			rc = out_commit(script_out) ? 1 : 0;
	}
	if (a->stats)
		fprintf(stderr,
			"scorch: report: %" PRIu64 " records, %" PRIu64 " samples, %" PRIu64
			" folded, %" PRIu64 " of other events, %" PRIu64 " unwound (%" PRIu64
			" not), %" PRIu64 " out of time order\n",
			st.records, st.samples, st.folded, st.skipped_event, st.unwound, st.unwind_failed,
			st.sort_moves);
	if (!rc && a->o.per_cpu && strpool_find(&p.names, "CPU ?", 5) != UINT32_MAX)
		warn("report: --per-cpu: %s has samples without CPU numbers (CPU ?): record with "
		     "-a or --sample-cpu", in.name);
	if (!rc && !a->script)
		rc = write_profile(a, &p, &st, in.name);
out:
	a->o.heap = NULL; /* (heap is this function's) */
	profile_release(&p);
	input_release(&in);
	return rc;
}

int cmd_report(int argc, char **argv)
{
	struct report_args a = { 0 };
	graph_opts_init(&a.g);
	/* The default unit, to know whether --countname changed it. */
	a.default_countname = a.g.svg.countname;
	int rc = parse_args(argc, argv, &a);
	/* One fold thread unless -j asks (report_opts.threads 0): on 2 cores,
	 * -j2 took as long by wall as -j1 on 275k-315k-sample system-wide
	 * captures with 1.4-1.7x the CPU (the replay, the merge and one large
	 * symbol table's first lookup stay on one thread; bench/report.sh
	 * times both). */
	if (!rc)
		rc = run(&a);
	graph_opts_release(&a.g);
	free(a.time);
	return rc < 0 ? 0 : rc;
}
