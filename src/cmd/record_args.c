/* scorch record's options: the help text, the option table, and the
 * checks of values and combinations (cmd/record_args.h). */
#include "cmd/cmd.h"
#include "cmd/count_arg.h"
#include "cmd/frame_opts.h"
#include "cmd/graph_opts.h"
#include "cmd/option_table.h"
#include "cmd/output_format.h"
#include "cmd/record_args.h"
#include "cmd/record_every.h"
#include "cmd/time_arg.h"
#include "cmd/usage.h"

#include "base/alloc.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char record_usage[] =
	"usage: scorch record [OPTIONS] [-- COMMAND [ARGS...]]\n"
	"\n"
	"Sample on-CPU stacks (user and kernel) and write\n"
	"folded stacks, or a flame graph when the output file ends in .svg (SVG)\n"
	"or .html (interactive viewer).\n"
	"Without a target, the whole system is sampled (-a) until -d or Ctrl-C.\n"
	"\n"
	"targets:\n"
	"  -a, --all-cpus          every process on every CPU (the default)\n"
	"  -p, --pid PID[,PID]     these processes (their threads, and threads and\n"
	"                          children they create) until the last of them\n"
	"                          exits (children still running are not waited for)\n"
	"  -t, -L, --tid TID[,TID] these threads, until the last of them exits\n"
	"  -C, --cpu CPU[,CPU]     only samples taken on these CPUs (N or N-M ranges;\n"
	"                          with any target)\n"
	"  COMMAND [ARGS]          run it, sampling it and its threads and children,\n"
	"                          until it exits. When the profile goes to stdout\n"
	"                          (no -o, or -o -), the command's stdout is sent to\n"
	"                          stderr, so `record -- cmd > out.folded` holds only\n"
	"                          stacks and cmd's output still shows\n"
	"\n"
	"sampling:\n"
	"  -F, --freq HZ           samples per second per CPU (default 99)\n"
	"  -d, --duration SECONDS  stop after this long (Ctrl-C also stops; the\n"
	"                          output is written either way; a command still\n"
	"                          running then is sent SIGTERM)\n"
	"  -e, --event EVENT       cpu-clock or cycles (default: cycles where there is\n"
	"                          a hardware PMU, else cpu-clock, with a notice), or\n"
	"                          counted per stack: page-faults (faults),\n"
	"                          minor-faults, major-faults, context-switches (cs),\n"
	"                          cpu-migrations (migrations), alignment-faults,\n"
	"                          emulation-faults, or a tracepoint SYS:NAME\n"
	"                          (sched:sched_process_exec; perf backend only: bpf\n"
	"                          falls back with a notice). A graph's unit and\n"
	"                          palette follow the event (page faults: mem)\n"
	"  -c, --count N           counted events: a sample every N events (default 1;\n"
	"                          each sample counts 1)\n"
	"      --off-cpu           off-CPU time instead of samples: each time a thread\n"
	"                          blocks (switched out asleep, S, or in uninterruptible\n"
	"                          wait, D; not when preempted), its stack counts the\n"
	"                          microseconds until it runs again. A thread still\n"
	"                          blocked when sampling ends counts up to then; the\n"
	"                          idle task never counts. The graph counts \"us\" in\n"
	"                          the io palette\n"
	"      --wall              wall-clock time: off-CPU time as --off-cpu, plus\n"
	"                          cpu-clock samples at -F HZ counted as 1/HZ s each,\n"
	"                          in one graph, and the time a thread waits for a CPU\n"
	"                          (switched out runnable: preempted or yielded); every\n"
	"                          stack ends in a frame [on-cpu], [off-cpu] or\n"
	"                          [runnable]\n"
	"      --wakers            off-CPU time with who ended each block (BPF backend):\n"
	"                          above the blocked stack, a \"--\" frame, then the\n"
	"                          stack of the task that woke it, from where it woke\n"
	"                          it (its leaf) down, and its name on top (a wake-up\n"
	"                          from an interrupt shows the interrupted task, often\n"
	"                          swapper). Drawn in the chain palette: the blocked\n"
	"                          part blue, the waker's aqua. Not with --wall\n"
	"      --min-block USEC    off-CPU: leave out blocks shorter than USEC\n"
	"      --max-block USEC    off-CPU: leave out blocks longer than USEC\n"
	"      --state STATES      off-CPU: the sleep states counted, S (interruptible\n"
	"                          sleep: sleep, poll, pipes, locks), D (uninterruptible:\n"
	"                          disk I/O, page faults) or SD (the default)\n"
	"      --call-graph MODE   how user stacks are walked: auto (the default:\n"
	"                          DWARF unwinding from .eh_frame of a copy of the\n"
	"                          stack, continued along frame pointers where the\n"
	"                          two meet), dwarf[,SIZE] (DWARF only, as perf\n"
	"                          --call-graph dwarf) or fp (frame pointers only:\n"
	"                          cheapest, but code built without them, as most\n"
	"                          distribution binaries are, loses its callers).\n"
	"                          SIZE: bytes of stack copied per sample (default\n"
	"                          16384, at most 65528; auto,SIZE also works)\n"
	"  -U, --user-only         user-space stacks only\n"
	"  -K, --kernel-only       kernel stacks only\n"
	"  -g                      accepted for perf's habit: stacks are always recorded\n"
	"      --max-stack N       frames per stack. The kernel's frame-pointer walk\n"
	"                          (kernel stacks, and user stacks with --call-graph\n"
	"                          fp) stops at kernel.perf_event_max_stack (127\n"
	"                          unless raised, as root: sysctl\n"
	"                          kernel.perf_event_max_stack=N; bpf with fp: 127 at\n"
	"                          most); DWARF unwinding goes on to N (default 1024).\n"
	"                          A stack that reaches its limit lost its root end:\n"
	"                          a [truncated] frame stands at the cut, under the\n"
	"                          process name\n"
	"      --backend B         bpf (in-kernel aggregation; the default where it\n"
	"                          loads: root or CAP_BPF+CAP_PERFMON) or perf (ring\n"
	"                          buffers; what bpf falls back to, with a notice)\n"
	"      --stack-map-size N  bpf: the most distinct stacks (and counts keys)\n"
	"                          kept in the kernel, which allocates 0.3-2 KiB per\n"
	"                          stack as it first sees it (default: rate x CPUs x\n"
	"                          -d, or 30 s, rounded up to a power of two, 16384\n"
	"                          to 2097152); a sample that finds them full is sent\n"
	"                          up whole instead (--stack-storage-size N: bcc\n"
	"                          profile's name). --off-cpu keeps its stacks in the\n"
	"                          same maps (a block whose stack finds them full\n"
	"                          loses it, and the summary says so)\n"
	"\n"
	"output:\n"
	"  -o, --output FILE       write here instead of stdout; FILE.svg: a flame graph,\n"
	"                          FILE.html: the interactive viewer (one file), FILE.png,\n"
	"                          FILE.pb.gz: pprof, FILE.speedscope.json: speedscope\n"
	"      --format F          svg, html, png, pprof or speedscope whatever the -o name\n"
	"                          (stdout too)\n"
	"  -f, --folded            folded stacks (the default, bcc profile's -f); not\n"
	"                          with a graph output\n"
	"      --annotate-pid      append -PID to the process name (collapse --pid)\n"
	"      --annotate-tid      append -PID/TID (collapse --tid)\n"
	"      --kernel            annotate kernel frames with _[k] (collapse --kernel)\n"
	"      --jit               annotate JIT frames (/tmp/perf-PID.map) with _[j]\n"
	"                          (collapse --jit)\n"
	"      --no-debuginfod     never ask debuginfod servers (DEBUGINFOD_URLS) for the\n"
	"                          debug files of binaries without symbols\n"
	"      --force             read /tmp/perf-PID.map files whoever owns them (by\n"
	"                          default only the process's user's or root's, never\n"
	"                          through a symbolic link; perf's -f)\n"
	"      --no-inline         no inlined-function frames in DWARF-unwound stacks\n"
	"                          (by default they are expanded as perf script and\n"
	"                          'scorch report' do; the expansion costs CPU)\n"
	"      --per-cpu           a \"CPU N\" frame at the root of each stack\n"
	"  every option of 'scorch flamegraph' (graph output), e.g. --inverted (icicle),\n"
	"  --title TEXT, --colors PALETTE, --width PX, --minwidth PX, and\n"
	"      --flamechart        time order (the BPF backend orders to the millisecond)\n"
	"      --time START,END    write only the samples in this range (perf report's\n"
	"                          spelling, as scorch report --time: seconds since the\n"
	"                          first sample, 10%/2, ...)\n"
	"  A graph's default title says what was recorded (\"scorch record: make -j2\",\n"
	"  \"PID 1234 (burn)\", \"all CPUs\"), its subtitle the host, start date (UTC),\n"
	"  event, rate, duration and sample count; --title/--subtitle replace them.\n"
	"      --every [DURATION]  always on: one profile per interval (default 10s),\n"
	"                          cut at the wall clock's multiples of DURATION,\n"
	"                          each put into the stores --to names, until\n"
	"                          Ctrl-C/SIGTERM (which stores the last, partial\n"
	"                          interval) or -d; -a, -p or -t (doc/fleet.md)\n"
	"      --to STORE          with --every: a directory, clickhouse://HOST:PORT/DB\n"
	"                          or pyroscope://HOST:PORT (repeatable)\n"
	"      --host NAME         with --every: the host the intervals are of\n"
	"                          (default: this machine's host name)\n"
	"      --label K=V         with --every: a label on every interval (repeatable)\n"
	"      --keep AGE, --max-size SIZE, --spool DIR, --spool-size SIZE\n"
	"                          with --every: as for 'scorch store put'\n"
	"  -q, --quiet             no notices or progress\n"
	"      --no-progress       no progress line (it is drawn only on a terminal)\n"
	"  -h, --help              this text\n"
	"\n"
	"Stacks are counted in samples, one per sample whatever the event (a graph\n"
	"says \"samples\" in its tooltips; --countname overrides it). Lost samples\n"
	"and the share the bpf backend counted in the kernel are reported on stderr\n"
	"at the end, with the share of user stacks that reached a thread's start\n"
	"(main, _start, start_thread, clone3...); a stack that broke before shows an\n"
	"[unknown] caller where it broke. User addresses are resolved against the\n"
	"mappings captured while each process lived (/proc/PID/maps when first\n"
	"seen, then the kernel's mmap, comm and fork records), so processes that\n"
	"exit early keep their names. The bpf backend counts by pid: samples taken\n"
	"before a process's exec are resolved against its new program (perf keeps\n"
	"them apart).\n"
	"\n"
	"Exit status: the command's, when it ended on its own (128+N when signal N\n"
	"killed it); otherwise 0 when the output was written. 1 when recording or\n"
	"writing failed, or when nothing was sampled (the message says why; no\n"
	"output is written, in any format); 2 usage error; 126/127 the command\n"
	"cannot be run or found. When -d or Ctrl-C ends sampling first, the command\n"
	"is sent SIGTERM and its status is not used: the output is written while it\n"
	"exits (a JVM's exit is awaited first: it may write its perf map then), and\n"
	"it gets SIGKILL if it still runs 2 s after the SIGTERM, or at one more Ctrl-C.\n";

enum {
	OPT_BACKEND = 256,
	OPT_ANNOTATE_PID,
	OPT_ANNOTATE_TID,
	OPT_NO_INLINE,
	OPT_FORCE,
	OPT_NO_DEBUGINFOD,
	OPT_PER_CPU,
	OPT_NO_PROGRESS,
	OPT_STACK_MAP_SIZE,
	OPT_TIME,
	OPT_MAX_STACK,
	OPT_CALL_GRAPH,
	OPT_OFF_CPU,
	OPT_WALL,
	OPT_WAKERS,
	OPT_MIN_BLOCK,
	OPT_MAX_BLOCK,
	OPT_STATE,
};

/* Followed by --every's options (cmd/record_every.h), the frame options
 * --kernel and --jit (cmd/frame_opts.h:
 * here --pid and --tid name targets, --annotate-pid/--annotate-tid the
 * frames), then the flame-graph options (cmd/graph_opts.h). */
static const struct option own_opts[] = {
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "pid", required_argument, NULL, 'p' },
	{ "pids", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 't' },
	{ "tids", required_argument, NULL, 't' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "folded", no_argument, NULL, 'f' },
	{ "freq", required_argument, NULL, 'F' },
	{ "duration", required_argument, NULL, 'd' },
	{ "event", required_argument, NULL, 'e' },
	{ "count", required_argument, NULL, 'c' },
	{ "output", required_argument, NULL, 'o' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "user-only", no_argument, NULL, 'U' },
	{ "user-stacks-only", no_argument, NULL, 'U' },
	{ "kernel-only", no_argument, NULL, 'K' },
	{ "kernel-stacks-only", no_argument, NULL, 'K' },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "annotate-pid", no_argument, NULL, OPT_ANNOTATE_PID },
	{ "annotate-tid", no_argument, NULL, OPT_ANNOTATE_TID },
	{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "no-debuginfod", no_argument, NULL, OPT_NO_DEBUGINFOD },
	{ "per-cpu", no_argument, NULL, OPT_PER_CPU },
	{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
	{ "max-stack", required_argument, NULL, OPT_MAX_STACK },
	{ "stack-map-size", required_argument, NULL, OPT_STACK_MAP_SIZE },
	{ "time", required_argument, NULL, OPT_TIME },
	{ "stack-storage-size", required_argument, NULL, OPT_STACK_MAP_SIZE },
	{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
	{ "off-cpu", no_argument, NULL, OPT_OFF_CPU },
	{ "wall", no_argument, NULL, OPT_WALL },
	{ "wakers", no_argument, NULL, OPT_WAKERS },
	{ "min-block", required_argument, NULL, OPT_MIN_BLOCK },
	{ "max-block", required_argument, NULL, OPT_MAX_BLOCK },
	{ "state", required_argument, NULL, OPT_STATE },
	{ NULL, 0, NULL, 0 },
};

/* -p/-t: "N" or "N,M,...", each a positive id. */
static void parse_ids(const char *arg, const char *what, pid_t **ids, size_t *nr)
{
	size_t alloc = *nr;
	const char *p = arg;
	while (*p) {
		char *end;
		errno = 0;
		long v = strtol(p, &end, 10);
		if (end == p || errno || v <= 0 || v > INT32_MAX || (*end && *end != ','))
			usage_error("record", "%s: not a list of ids: '%s'", what, arg);
		VEC_GROW(*ids, *nr + 1, alloc);
		(*ids)[(*nr)++] = (pid_t)v;
		p = *end ? end + 1 : end;
	}
	if (!*nr)
		usage_error("record", "%s: empty id list", what);
}

/* --call-graph fp | dwarf[,SIZE] | auto[,SIZE] (perf's spelling). */
static void parse_call_graph(const char *arg, struct record_opts *o)
{
	const char *comma = strchr(arg, ',');
	size_t n = comma ? (size_t)(comma - arg) : strlen(arg);
	if (n == 2 && !strncmp(arg, "fp", 2) && !comma)
		o->unwind = RECORD_UNWIND_FP;
	else if (n == 5 && !strncmp(arg, "dwarf", 5))
		o->unwind = RECORD_UNWIND_DWARF;
	else if (n == 4 && !strncmp(arg, "auto", 4))
		o->unwind = RECORD_UNWIND_AUTO;
	else
		usage_error("record", "--call-graph: fp, dwarf[,SIZE] or auto[,SIZE], not '%s'", arg);
	if (comma) {
		char *end;
		errno = 0;
		unsigned long v = strtoul(comma + 1, &end, 0);
		if (*end || end == comma + 1 || errno || v < 8 || v > RECORD_STACK_SIZE_MAX)
			usage_error("record", "--call-graph: stack size must be 8..%d bytes, not '%s'", RECORD_STACK_SIZE_MAX,
				  comma + 1);
		o->stack_size = (unsigned)(v + 7) / 8 * 8;
		if (o->stack_size > RECORD_STACK_SIZE_MAX)
			o->stack_size = RECORD_STACK_SIZE_MAX;
	}
}

/* --state: S, D, or both (ps's letters for those sleep states). */
static unsigned parse_states(const char *arg)
{
	unsigned states = 0;
	const char *p = arg;
	for (; *p == 'S' || *p == 'D'; p++)
		states |= *p == 'S' ? RECORD_OFFCPU_SLEEPING : RECORD_OFFCPU_UNINTERRUPTIBLE;
	if (*p || !states)
		usage_error("record", "--state: S (sleeping), D (uninterruptible) or SD, not '%s'", arg);
	return states;
}

/* --min-block/--max-block: microseconds, 1..10^12. */
static uint64_t parse_usec(const char *arg, const char *what)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(arg, &end, 10);
	if (*end || end == arg || errno || !v || v > 1000000000000ull || arg[0] == '-')
		usage_error("record", "%s: microseconds, 1..1000000000000, not '%s'", what, arg);
	return v;
}

/* A whole number in 1..max, or a usage error "what, not 'arg'". */
static unsigned parse_count(const char *arg, long max, const char *what)
{
	long v;
	if (!count_arg(arg, 1, max, &v))
		usage_error("record", "%s, not '%s'", what, arg);
	return (unsigned)v;
}

/* -C: "N", "N,M", "N-M" (perf's CPU list), each CPU present here. */
static void parse_cpus(const char *arg, int **cpus, size_t *nr)
{
	int ncpu = record_nr_cpus();
	size_t alloc = *nr;
	const char *p = arg;
	while (*p) {
		char *end;
		errno = 0;
		long lo = strtol(p, &end, 10), hi = lo;
		if (end != p && *end == '-') {
			const char *q = end + 1;
			hi = strtol(q, &end, 10);
			if (end == q)
				hi = -1;
		}
		if (end == p || errno || lo < 0 || hi < lo || (*end && *end != ','))
			usage_error("record", "-C: not a CPU list (N, N-M, N,M...): '%s'", arg);
		if (hi >= ncpu)
			usage_error("record", "-C: no CPU %ld here (CPUs 0-%d)", hi, ncpu - 1);
		for (long c = lo; c <= hi; c++) {
			VEC_GROW(*cpus, *nr + 1, alloc);
			(*cpus)[(*nr)++] = (int)c;
		}
		p = *end ? end + 1 : end;
	}
	if (!*nr)
		usage_error("record", "-C: empty CPU list");
}

/* What was given, beyond its value: for the combination checks. */
struct given {
	bool folded;              /* -f */
	bool freq, event;         /* -F, -e */
	const char *block_filter; /* the last off-CPU filter given, or NULL */
};

/* The getopt loop: each value read and checked on its own. 0, -1 after
 * --help, or the usage exit code after a value rejected outside cmd/. */
static int read_options(int argc, char **argv, struct record_args *a, struct given *given)
{
	struct record_opts *o = &a->o;
	static const char *const frames_elsewhere[] = { "pid", "tid", "all", "addrs", "threads", NULL };
	struct option *every = option_table_join(own_opts, record_every_options, NULL);
	struct option *with_frames = frame_options_with(every, frames_elsewhere);
	struct option *long_opts = graph_options_with(with_frames, NULL);
	free(every);
	free(with_frames);
	struct frame_args fa = { .threads = -1 };
	int c, rc = 0;
	optind = 1;
	opterr = 0;
	while (!rc && (c = getopt_long(argc, argv, "+:ap:t:L:C:F:d:e:c:o:qhgUKf", long_opts, NULL)) != -1) {
		char *end;
		if (frame_opt_code(c)) {
			frame_args_set(&fa, "record", c, optarg);
			continue;
		}
		switch (c) {
		case 'a':
			o->all_cpus = true;
			break;
		case 'p':
			parse_ids(optarg, "-p", &o->pids, &o->nr_pids);
			break;
		case 't':
		case 'L':
			parse_ids(optarg, "-t", &o->tids, &o->nr_tids);
			break;
		case 'F':
			o->freq = parse_count(optarg, 100000, "-F: frequency must be 1..100000 Hz");
			given->freq = true;
			break;
		case 'd':
			errno = 0;
			o->duration = strtod(optarg, &end);
			if (*end || end == optarg || errno || !(o->duration > 0))
				usage_error("record", "-d: not a positive number of seconds: '%s'", optarg);
			break;
		case 'e':
			given->event = true;
			if (!strcmp(optarg, "cpu-clock"))
				o->event = RECORD_EVENT_CPU_CLOCK;
			else if (!strcmp(optarg, "cycles"))
				o->event = RECORD_EVENT_CYCLES;
			else if (!record_event_known(optarg))
				usage_error("record", "-e %s: unknown event (%s)", optarg, record_event_choices);
			else if (record_event_parse(optarg, &o->counted))
				rc = usage_hint("record");
			else
				o->event = RECORD_EVENT_COUNTED;
			break;
		case 'c':
			o->period = parse_count(optarg, 1000000000, "-c: a sample every 1..1000000000 events");
			break;
		case 'o':
			a->output = optarg;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			fputs(record_usage, stdout);
			rc = -1;
			break;
		case 'U':
			o->user_only = true;
			break;
		case 'K':
			o->kernel_only = true;
			break;
		case 'C':
			parse_cpus(optarg, &o->cpus, &o->nr_cpus);
			break;
		case 'g': /* perf's "record call graphs": always done */
			break;
		case 'f':
			given->folded = true;
			break;
		case OPT_BACKEND:
			if (!strcmp(optarg, "perf"))
				o->backend = RECORD_BACKEND_PERF;
			else if (!strcmp(optarg, "bpf"))
				o->backend = RECORD_BACKEND_BPF;
			else
				usage_error("record", "--backend must be perf or bpf, not '%s'", optarg);
			break;
		case OPT_ANNOTATE_PID:
			o->annotate_pid = true;
			break;
		case OPT_ANNOTATE_TID:
			o->annotate_tid = true;
			break;
		case OPT_NO_INLINE:
			o->no_inline = true;
			break;
		case OPT_FORCE:
			o->force = true;
			break;
		case OPT_NO_DEBUGINFOD:
			o->no_debuginfod = true;
			break;
		case OPT_PER_CPU:
			o->per_cpu = true;
			break;
		case OPT_NO_PROGRESS:
			a->no_progress = true;
			break;
		case OPT_MAX_STACK:
			o->max_stack = parse_count(optarg, 8000, "--max-stack: 1..8000 frames");
			break;
		case OPT_STACK_MAP_SIZE:
			o->stack_map_size = parse_count(optarg, 1l << 22, "--stack-map-size: 1..4194304 entries");
			break;
		case OPT_CALL_GRAPH:
			parse_call_graph(optarg, o);
			break;
		case OPT_OFF_CPU:
			o->off_cpu = true;
			break;
		case OPT_TIME:
			free(o->time_ranges);
			o->time_ranges = time_arg_parse("record", optarg);
			break;
		case OPT_WAKERS:
			o->wakers = o->off_cpu = true;
			break;
		case OPT_WALL:
			o->wall = o->off_cpu = true;
			break;
		case OPT_MIN_BLOCK:
			o->min_block_us = parse_usec(optarg, "--min-block");
			given->block_filter = "--min-block";
			break;
		case OPT_MAX_BLOCK:
			o->max_block_us = parse_usec(optarg, "--max-block");
			given->block_filter = "--max-block";
			break;
		case OPT_STATE:
			o->off_cpu_states = parse_states(optarg);
			given->block_filter = "--state";
			break;
		default:
			if (a->every && record_every_take(a->every, c, optarg, argv))
				break;
			rc = graph_opts_take(&a->g, "record", c, optarg, argv);
			break;
		}
	}
	free(long_opts);
	o->annotate_kernel = fa.kernel;
	o->annotate_jit = fa.jit;
	return rc;
}

/* The options together, in one place: the first combination that does
 * not hold is the usage error; then what they imply (target, backend,
 * event, palette, writer). 0, or the usage exit code after a graph
 * option rejected outside cmd/. */
static int check_options(int argc, char **argv, struct record_args *a, const struct given *given)
{
	struct record_opts *o = &a->o;
	struct graph_opts *g = &a->g;

	/* Sampling and off-CPU options. */
	if (o->period && o->event != RECORD_EVENT_COUNTED)
		usage_error("record", "-c counts software events or tracepoints (-e page-faults...); "
				      "cpu-clock and cycles are sampled at -F HZ");
	if (given->block_filter && !o->off_cpu)
		usage_error("record", "%s filters off-CPU time: add --off-cpu (or --wall)", given->block_filter);
	if (o->min_block_us && o->max_block_us && o->min_block_us > o->max_block_us)
		usage_error("record", "--min-block %" PRIu64 " is above --max-block %" PRIu64, o->min_block_us,
			    o->max_block_us);
	if (o->off_cpu && !o->wall && (given->event || given->freq))
		usage_error("record", "--off-cpu records blocked time, not samples: no %s (--wall adds "
				      "cpu-clock samples at -F HZ)", given->event ? "-e" : "-F");
	if (o->wall && given->event && o->event != RECORD_EVENT_CPU_CLOCK)
		usage_error("record", "--wall counts on-CPU time with cpu-clock samples: no -e %s",
			    o->event == RECORD_EVENT_COUNTED ? o->counted.name : "cycles");
	if (o->wall && o->wakers)
		usage_error("record", "--wakers draws off-CPU time only: not with --wall");
	if (o->wakers && o->backend == RECORD_BACKEND_PERF)
		usage_error("record", "--wakers needs the BPF backend (sched_waking's stacks): not with --backend perf");
	if (o->off_cpu && g->layout.flamechart)
		usage_error("record", "--flamechart draws samples in time order; not with --%s",
			    o->wall ? "wall" : "off-cpu");
	if (o->off_cpu && o->time_ranges)
		usage_error("record", "--time keeps samples by their time; not with --%s", o->wall ? "wall" : "off-cpu");
	if (o->off_cpu && !o->off_cpu_states)
		o->off_cpu_states = RECORD_OFFCPU_STATES_ALL;
	if (o->wall)
		o->event = RECORD_EVENT_CPU_CLOCK; /* a sample stands for 1/HZ s of CPU */
	o->keep_order = g->layout.flamechart;

	/* Graph options. Off-CPU time: microseconds, in the io palette
	 * (--wall: wall, hot with its [on-cpu]/[off-cpu]/[runnable] leaf
	 * frames red, blue and purple), unless --colors says. */
	if (o->off_cpu && !g->colors)
		g->colors = o->wall ? "wall" : o->wakers ? "chain" : "io";
	/* A page-fault graph in the memory palette, unless --colors says. */
	if (o->event == RECORD_EVENT_COUNTED && !g->colors)
		g->colors = o->counted.palette;
	if (g->input_format)
		usage_error("record", "--format: '%s' is not an output format (%s)", g->input_format, graph_format_names);
	if (graph_opts_finish(g) || graph_opts_load(g))
		return usage_hint("record");

	/* Targets and backend. */
	if (optind < argc)
		o->command = argv + optind;
	if (o->user_only && o->kernel_only)
		usage_error("record", "--user-only and --kernel-only exclude each other");
	int targets = !!o->command + !!o->nr_pids + !!o->nr_tids;
	if (targets > 1 || (targets && o->all_cpus))
		usage_error("record", "give one target: -a, -p, -t or a command");
	if (!targets)
		o->all_cpus = true;

	/* Output: its writer, by --format or the name of -o. */
	a->graph = graph_opts_format(g, "record", a->output, WRITES_FOLDED | WRITES_PICTURE | WRITES_DATA);
	if (given->folded && a->graph)
		usage_error("record", "-f asks for folded stacks, but the output is a graph (-o %s)",
			    a->output ? a->output : "-");
	return 0;
}

void record_args_init(struct record_args *a)
{
	*a = (struct record_args){ .o = { .freq = 99, .backend = RECORD_BACKEND_AUTO, .event = RECORD_EVENT_AUTO } };
	graph_opts_init(&a->g);
	a->default_countname = a->g.svg.countname;
}

int record_args_parse(int argc, char **argv, struct record_args *a)
{
	struct given given = { 0 };
	int rc = read_options(argc, argv, a, &given);
	if (!rc)
		rc = check_options(argc, argv, a, &given);
	if (!rc && a->every)
		record_every_check(a->every, a);
	return rc;
}

void record_args_release(struct record_args *a)
{
	graph_opts_release(&a->g);
	free(a->o.time_ranges);
	free(a->o.pids);
	free(a->o.tids);
	free(a->o.cpus);
}
