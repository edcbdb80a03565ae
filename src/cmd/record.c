/* scorch record: sample stacks and write folded stacks or a flame graph. */
#include "cmd/cmd.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/out.h"
#include "layout/layout.h"
#include "profile/folded.h"
#include "record/record.h"
#include "render/svg.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const char record_usage[] =
	"usage: scorch record [OPTIONS] [-- COMMAND [ARGS...]]\n"
	"\n"
	"Sample on-CPU stacks (user and kernel, frame-pointer callchains) and write\n"
	"folded stacks, or an SVG flame graph when the output file ends in .svg.\n"
	"Without a target, the whole system is sampled (-a) until -d or Ctrl-C.\n"
	"\n"
	"targets:\n"
	"  -a, --all-cpus          every process on every CPU (the default)\n"
	"  -p, --pids PID[,PID]    these processes (their threads, and threads and\n"
	"                          children they create)\n"
	"  -t, --tids TID[,TID]    these threads\n"
	"  COMMAND [ARGS]          run it, sampling it and its threads and children,\n"
	"                          until it exits (exit 127 when it cannot be found)\n"
	"\n"
	"sampling:\n"
	"  -F, --freq HZ           samples per second per CPU (default 99)\n"
	"  -d, --duration SECONDS  stop after this long (Ctrl-C also stops; the\n"
	"                          output is written either way)\n"
	"  -e, --event EVENT       cpu-clock or cycles (default: cycles where there is\n"
	"                          a hardware PMU, else cpu-clock, with a notice)\n"
	"      --user-only         user-space stacks only\n"
	"      --kernel-only       kernel stacks only\n"
	"      --backend B         bpf (in-kernel aggregation; the default where it\n"
	"                          loads: root or CAP_BPF+CAP_PERFMON) or perf (ring\n"
	"                          buffers; what bpf falls back to, with a notice)\n"
	"\n"
	"output:\n"
	"  -o, --output FILE       write here instead of stdout; FILE.svg: a flame graph\n"
	"      --pid               append -PID to the process name (collapse --pid)\n"
	"      --tid               append -PID/TID (collapse --tid)\n"
	"      --kernel            annotate kernel frames with _[k] (collapse --kernel)\n"
	"      --per-cpu           a \"CPU N\" frame at the root of each stack\n"
	"      --flamechart        keep time order (perf backend; implies --backend perf)\n"
	"      --inverted          icicle graph (SVG)\n"
	"      --title TEXT, --subtitle TEXT, --width PX, --minwidth PX (SVG)\n"
	"  -q, --quiet             no notices or progress\n"
	"      --no-progress       no progress line (it is drawn only on a terminal)\n"
	"  -h, --help              this text\n"
	"\n"
	"Stacks are counted in samples. Lost samples and stack-map collisions are\n"
	"reported on stderr at the end.\n";

/* The one mutable global scorch allows: set by the SIGINT/SIGTERM handler. */
static volatile sig_atomic_t record_stop;

static void on_signal(int sig)
{
	(void)sig;
	record_stop = 1;
}

enum {
	OPT_USER_ONLY = 256,
	OPT_KERNEL_ONLY,
	OPT_BACKEND,
	OPT_PID,
	OPT_TID,
	OPT_KERNEL,
	OPT_PER_CPU,
	OPT_FLAMECHART,
	OPT_INVERTED,
	OPT_TITLE,
	OPT_SUBTITLE,
	OPT_WIDTH,
	OPT_MINWIDTH,
	OPT_NO_PROGRESS,
};

static const struct option long_opts[] = {
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "pids", required_argument, NULL, 'p' },
	{ "tids", required_argument, NULL, 't' },
	{ "freq", required_argument, NULL, 'F' },
	{ "duration", required_argument, NULL, 'd' },
	{ "event", required_argument, NULL, 'e' },
	{ "output", required_argument, NULL, 'o' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "user-only", no_argument, NULL, OPT_USER_ONLY },
	{ "kernel-only", no_argument, NULL, OPT_KERNEL_ONLY },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "pid", no_argument, NULL, OPT_PID },
	{ "tid", no_argument, NULL, OPT_TID },
	{ "kernel", no_argument, NULL, OPT_KERNEL },
	{ "per-cpu", no_argument, NULL, OPT_PER_CPU },
	{ "flamechart", no_argument, NULL, OPT_FLAMECHART },
	{ "inverted", no_argument, NULL, OPT_INVERTED },
	{ "title", required_argument, NULL, OPT_TITLE },
	{ "subtitle", required_argument, NULL, OPT_SUBTITLE },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ "minwidth", required_argument, NULL, OPT_MINWIDTH },
	{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
	{ NULL, 0, NULL, 0 },
};

struct graph {
	bool inverted, flamechart;
	const char *title, *subtitle;
	int width;
	double minwidth;
	bool minwidth_pct;
};

static void parse_ids(const char *arg, const char *what, pid_t **ids, size_t *nr)
{
	size_t alloc = *nr;
	const char *p = arg;
	while (*p) {
		char *end;
		errno = 0;
		long v = strtol(p, &end, 10);
		if (end == p || errno || v <= 0 || v > INT32_MAX || (*end && *end != ','))
			die_usage("%s: not a list of ids: '%s'", what, arg);
		VEC_GROW(*ids, *nr + 1, alloc);
		(*ids)[(*nr)++] = (pid_t)v;
		p = *end ? end + 1 : end;
	}
	if (!*nr)
		die_usage("%s: empty id list", what);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

static int write_svg(struct out *o, const struct profile *p, const struct graph *g)
{
	struct svg_opts so;
	struct layout l;
	struct layout_opts lo = { 0 };

	svg_opts_defaults(&so);
	so.inverted = g->inverted;
	so.flamechart = g->flamechart;
	so.title = g->title;
	so.subtitle = g->subtitle;
	so.countname = "samples";
	if (g->width > 0)
		so.width = g->width;
	lo.flamechart = g->flamechart;
	lo.image_width = so.width;
	lo.minwidth = g->minwidth;
	lo.minwidth_pct = g->minwidth_pct;
	layout_build(&l, p, &lo);
	if (l.total <= 0)
		svg_write_error(o, &so, "ERROR: No valid input provided to flamegraph");
	else
		svg_write(o, p, &l, &so);
	layout_release(&l);
	return 0;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = { .freq = 99, .backend = RECORD_BACKEND_AUTO, .event = RECORD_EVENT_AUTO };
	struct graph g = { .minwidth = 0.1 };
	const char *output = NULL;
	bool no_progress = false;
	int c;

	while ((c = getopt_long(argc, argv, "+ap:t:F:d:e:o:qh", long_opts, NULL)) != -1) {
		char *end;
		switch (c) {
		case 'a':
			o.all_cpus = true;
			break;
		case 'p':
			parse_ids(optarg, "-p", &o.pids, &o.nr_pids);
			break;
		case 't':
			parse_ids(optarg, "-t", &o.tids, &o.nr_tids);
			break;
		case 'F': {
			errno = 0;
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || end == optarg || errno || !v || v > 100000)
				die_usage("-F: frequency must be 1..100000 Hz, not '%s'", optarg);
			o.freq = (unsigned)v;
			break;
		}
		case 'd':
			errno = 0;
			o.duration = strtod(optarg, &end);
			if (*end || end == optarg || errno || !(o.duration > 0))
				die_usage("-d: not a positive number of seconds: '%s'", optarg);
			break;
		case 'e':
			if (!strcmp(optarg, "cpu-clock"))
				o.event = RECORD_EVENT_CPU_CLOCK;
			else if (!strcmp(optarg, "cycles"))
				o.event = RECORD_EVENT_CYCLES;
			else
				die_usage("-e: event must be cpu-clock or cycles, not '%s'", optarg);
			break;
		case 'o':
			output = optarg;
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'h':
			fputs(record_usage, stdout);
			return 0;
		case OPT_USER_ONLY:
			o.user_only = true;
			break;
		case OPT_KERNEL_ONLY:
			o.kernel_only = true;
			break;
		case OPT_BACKEND:
			if (!strcmp(optarg, "perf"))
				o.backend = RECORD_BACKEND_PERF;
			else if (!strcmp(optarg, "bpf"))
				o.backend = RECORD_BACKEND_BPF;
			else
				die_usage("--backend must be perf or bpf, not '%s'", optarg);
			break;
		case OPT_PID:
			o.annotate_pid = true;
			break;
		case OPT_TID:
			o.annotate_tid = true;
			break;
		case OPT_KERNEL:
			o.annotate_kernel = true;
			break;
		case OPT_PER_CPU:
			o.per_cpu = true;
			break;
		case OPT_FLAMECHART:
			g.flamechart = true;
			o.keep_order = true;
			break;
		case OPT_INVERTED:
			g.inverted = true;
			break;
		case OPT_TITLE:
			g.title = optarg;
			break;
		case OPT_SUBTITLE:
			g.subtitle = optarg;
			break;
		case OPT_WIDTH:
			g.width = atoi(optarg);
			if (g.width <= 0)
				die_usage("--width: not a positive number: '%s'", optarg);
			break;
		case OPT_MINWIDTH:
			g.minwidth = strtod(optarg, &end);
			g.minwidth_pct = *end == '%';
			if (end == optarg || (*end && !g.minwidth_pct) || g.minwidth < 0)
				die_usage("--minwidth: not a number: '%s'", optarg);
			break;
		case OPT_NO_PROGRESS:
			no_progress = true;
			break;
		default:
			fputs(record_usage, stderr);
			return 2;
		}
	}
	if (optind < argc)
		o.command = argv + optind;
	if (o.user_only && o.kernel_only)
		die_usage("--user-only and --kernel-only exclude each other");
	int targets = !!o.command + !!o.nr_pids + !!o.nr_tids;
	if (targets > 1 || (targets && o.all_cpus))
		die_usage("give one target: -a, -p, -t or a command");
	if (!targets)
		o.all_cpus = true;
	if (o.keep_order) {
		if (o.backend == RECORD_BACKEND_BPF)
			die_usage("--flamechart needs sample order, which only --backend perf keeps");
		o.backend = RECORD_BACKEND_PERF;
	}
	if (o.all_cpus && !o.duration && !isatty(STDIN_FILENO) && !o.quiet)
		fprintf(stderr, "scorch: sampling the whole system until Ctrl-C (or use -d SECONDS)\n");
	o.progress = !no_progress && !o.quiet && isatty(STDERR_FILENO);
	o.stop = &record_stop;

	bool svg = output && ends_with(output, ".svg");
	/* Open the output first: a bad path fails before minutes of sampling. */
	struct out *out = out_open(output);
	if (!out)
		return 1;

	struct sigaction sa = { 0 };
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* A reader of our stdout going away must not kill us mid-record. */
	signal(SIGPIPE, SIG_IGN);

	struct profile p;
	struct record_stats st;
	profile_init(&p);
	int ret = record_run(&o, &p, &st);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (ret) {
		out_abort(out);
		profile_release(&p);
		free(o.pids);
		free(o.tids);
		return ret == RECORD_NOT_FOUND ? 127 : ret == -126 ? 126 : 1;
	}
	if (svg)
		write_svg(out, &p, &g);
	else
		folded_write(&p, out);
	int rc = out_commit(out) ? 1 : 0;

	if (!o.quiet) {
		fprintf(stderr, "scorch: %s backend, %s at %u Hz: %" PRIu64 " samples in %.1f s, %" PRIu64
				" distinct stacks",
			st.backend, st.event ? st.event : "?", o.freq, st.samples, st.seconds, st.unique);
		if (st.lost)
			fprintf(stderr, ", %" PRIu64 " lost", st.lost);
		if (st.collisions)
			fprintf(stderr, ", %" PRIu64 " stacks lost to stack-map collisions", st.collisions);
		if (st.map_full)
			fprintf(stderr, ", %" PRIu64 " stacks lost to a full stack map", st.map_full);
		fputc('\n', stderr);
	}
	if (o.command && st.command_status > 0 && !o.quiet) {
		if (WIFEXITED(st.command_status))
			fprintf(stderr, "scorch: %s exited with status %d\n", o.command[0],
				WEXITSTATUS(st.command_status));
		else if (WIFSIGNALED(st.command_status))
			fprintf(stderr, "scorch: %s was killed by signal %d\n", o.command[0],
				WTERMSIG(st.command_status));
	}
	profile_release(&p);
	free(o.pids);
	free(o.tids);
	return rc;
}
