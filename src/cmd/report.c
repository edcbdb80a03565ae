/* scorch report: perf.data -> folded stacks (or an SVG flame graph),
 * without running perf. */
#include "cmd/cmd.h"
#include "cmd/graph_opts.h"
#include "cmd/output_format.h"
#include "cmd/usage.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/input.h"
#include "base/numfmt.h"
#include "base/out.h"
#include "perfdata/fold.h"
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
	"running perf. Symbols come from /proc/kallsyms (or a kallsyms in the\n"
	"build-id cache), ELF .symtab/.dynsym, debug files by build-id and\n"
	".gnu_debuglink, [vdso] and /tmp/perf-PID.map. --call-graph dwarf samples\n"
	"are unwound with libdw.\n"
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
	"      --inline            stackcollapse-perf.pl --inline: each frame of a file-backed\n"
	"                          module becomes addr2line -i -f -s -C's function chain\n"
	"                          (computed with libdw, as collapse perf --inline)\n"
	"      --no-inline         no inlined frames for DWARF-unwound stacks (perf script\n"
	"                          adds them, through addr2line, as scorch does by default)\n"
	"  -k, --keep-going        on a damaged file, use what was read before the damage\n"
	"      --stats             print record/sample counts to stderr\n"
	"      --script            write perf script's default text instead of folded stacks\n"
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
	"offset; with --keep-going the output is still written and the status is 0),\n"
	"2 usage error.\n";

enum {
	OPT_PID = 256,
	OPT_TID,
	OPT_KERNEL,
	OPT_JIT,
	OPT_ALL,
	OPT_ADDRS,
	OPT_EVENT_FILTER,
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
};

/* Followed by the flame-graph options (cmd/graph_opts.h) except
 * --flamechart: the folded profile keeps no sample order. */
static const struct option own_opts[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "output", required_argument, NULL, 'o' },
	{ "pid", no_argument, NULL, OPT_PID },
	{ "tid", no_argument, NULL, OPT_TID },
	{ "kernel", no_argument, NULL, OPT_KERNEL },
	{ "jit", no_argument, NULL, OPT_JIT },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "addrs", no_argument, NULL, OPT_ADDRS },
	{ "event-filter", required_argument, NULL, OPT_EVENT_FILTER },
	{ "script-pid", no_argument, NULL, OPT_SCRIPT_PID },
	{ "max-stack", required_argument, NULL, OPT_MAX_STACK },
	{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
	{ "symfs", required_argument, NULL, OPT_SYMFS },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
	{ "inline", no_argument, NULL, OPT_INLINE },
	{ "keep-going", no_argument, NULL, 'k' },
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "per-cpu", no_argument, NULL, OPT_PER_CPU },
	{ "script", no_argument, NULL, OPT_SCRIPT },
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

int cmd_report(int argc, char **argv)
{
	struct report_opts o = { 0 };
	const char *input = NULL, *output = NULL;
	bool stats = false, script = false;
	struct graph_opts g;
	graph_opts_init(&g);
	/* The default unit, to know whether --countname changed it. */
	const char *default_countname = g.svg.countname;
	static const char *const not_accepted[] = { "flamechart", NULL };
	struct option *long_opts = graph_options_with(own_opts, not_accepted);
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:o:kqh", long_opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case OPT_PID:
			o.pid = true;
			break;
		case OPT_TID:
			o.tid = true;
			break;
		case OPT_KERNEL:
			o.kernel = true;
			break;
		case OPT_JIT:
			o.jit = true;
			break;
		case OPT_ALL:
			o.kernel = o.jit = true;
			break;
		case OPT_ADDRS:
			o.addrs = true;
			break;
		case OPT_EVENT_FILTER:
			o.event_filter = optarg;
			break;
		case OPT_SCRIPT_PID:
			o.script_pid = true;
			break;
		case OPT_MAX_STACK: {
			char *end;
			errno = 0;
			long v = strtol(optarg, &end, 10);
			if (*end || errno || v < 1 || v > 100000)
				usage_error("report", "--max-stack: not a frame count: '%s'", optarg);
			o.max_stack = (int)v;
			break;
		}
		case OPT_KALLSYMS:
			o.sym.kallsyms = optarg;
			break;
		case OPT_SYMFS:
			o.sym.symfs = optarg;
			break;
		case OPT_NO_DEMANGLE:
			o.sym.no_demangle = true;
			break;
		case OPT_NO_INLINE:
			o.no_inline = true;
			break;
		case OPT_INLINE:
			o.inline_addr2line = true;
			break;
		case 'k':
			o.keep_going = true;
			break;
		case OPT_PER_CPU:
			o.per_cpu = true;
			break;
		case OPT_STATS:
			stats = true;
			break;
		case OPT_SCRIPT:
			script = true;
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'h':
			fputs(report_usage, stdout);
			free(long_opts);
			graph_opts_release(&g);
			return 0;
		default: {
			int rc = graph_opts_take(&g, "report", c, optarg, argv);
			if (rc) {
				free(long_opts);
				graph_opts_release(&g);
				return rc;
			}
			break;
		}
		}
	}
	free(long_opts);
	if (optind < argc) {
		if (input)
			usage_error("report", "give the input once (-i or FILE)");
		input = argv[optind++];
	}
	if (optind < argc)
		usage_error("report", "unexpected argument '%s'", argv[optind]);
	if (!input)
		input = "perf.data";
	usage_stdin_not_terminal("report", input, "a perf.data stream");
	/* Named files that are not there: said now, not silently unused. */
	struct stat sst;
	if (o.sym.kallsyms && access(o.sym.kallsyms, R_OK)) {
		error("--kallsyms: cannot open '%s': %s", o.sym.kallsyms, strerror(errno));
		graph_opts_release(&g);
		return 1;
	}
	int symfs_err = !o.sym.symfs ? 0 : stat(o.sym.symfs, &sst) ? errno
				   : S_ISDIR(sst.st_mode) ? 0 : ENOTDIR;
	if (symfs_err) {
		error("--symfs: '%s': %s", o.sym.symfs, strerror(symfs_err));
		graph_opts_release(&g);
		return 1;
	}
	enum graph_format graph;
	int usage_rc = graph_opts_for_output(&g, "report", output, o.quiet, &graph);
	if (usage_rc) {
		graph_opts_release(&g);
		return usage_rc;
	}

	struct input in;
	int rc = 0;
	if (input_load(&in, !strcmp(input, "-") ? NULL : input) < 0) {
		rc = 1;
		goto out_args;
	}
	struct profile p;
	profile_init(&p);
	struct report_stats st;
	struct out *script_out = NULL;
	if (script) {
		if (graph)
			usage_error("report", "--script writes text, not a graph");
		script_out = out_open(output);
		if (!script_out) {
			input_release(&in);
			profile_release(&p);
			rc = 1;
			goto out_args;
		}
		o.script = script_out;
	}
	o.sites = graph == GRAPH_FORMAT_PPROF; /* Mappings with build-ids */
	rc = report_fold(in.name, in.data, in.len, &o, &p, &st) < 0 ? 1 : 0;
	if (rc && st.damaged && !o.keep_going)
		fprintf(stderr, "scorch: %s is damaged or truncated (a perf record that was killed?); "
				"--keep-going uses what was read before the damage\n", in.name);
	if (script_out) {
		if (rc)
			out_abort(script_out);
		else
			rc = out_commit(script_out) ? 1 : 0;
	}
	if (stats)
		fprintf(stderr,
			"scorch: report: %" PRIu64 " records, %" PRIu64 " samples, %" PRIu64
			" folded, %" PRIu64 " of other events, %" PRIu64 " unwound (%" PRIu64
			" not), %" PRIu64 " out of time order\n",
			st.records, st.samples, st.folded, st.skipped_event, st.unwound, st.unwind_failed,
			st.sort_moves);
	if (!rc && o.per_cpu && strpool_find(&p.names, "CPU ?", 5) != UINT32_MAX)
		warn("report: --per-cpu: %s has samples without CPU numbers (CPU ?): record with "
		     "-a or --sample-cpu", in.name);
	if (!rc && !script) {
		if (graph) {
			/* The graph says what it counts: the event's unit. */
			if (g.svg.countname == default_countname && st.count_unit)
				g.svg.countname = st.count_unit;
			/* What, where and how, from the file's header, unless
			 * --title/--subtitle say. */
			char title[600], subtitle[600];
			if (!g.svg.title) {
				describe_capture(&st, in.name, title, sizeof(title));
				g.svg.title = title;
			}
			if (!g.svg.subtitle) {
				describe_samples(&st, in.name, subtitle, sizeof(subtitle));
				g.svg.subtitle = subtitle;
			}
			g.count_unit = st.count_unit;
			rc = graph_exit_code(graph_render(&p, &g, graph, output));
		} else {
			struct out *out = out_open(output);
			if (!out) {
				rc = 1;
			} else {
				folded_write(&p, out);
				rc = out_commit(out) ? 1 : 0;
			}
		}
	}
	profile_release(&p);
	input_release(&in);
out_args:
	graph_opts_release(&g);
	return rc;
}
