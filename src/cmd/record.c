/* scorch record: sample stacks and write folded stacks or a flame graph. */
#include "cmd/cmd.h"
#include "cmd/graph_opts.h"
#include "cmd/output_format.h"
#include "cmd/usage.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/numfmt.h"
#include "base/out.h"
#include "profile/folded.h"
#include "record/record.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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
	"      --stack-map-size N  bpf: stack-trace map entries, about 1 KiB of kernel\n"
	"                          memory each (default: rate x CPUs x -d, or 30 s,\n"
	"                          rounded up to a power of two, 16384 to 65536); a\n"
	"                          sample whose stack finds its hash bucket taken is\n"
	"                          sent up whole instead (--stack-storage-size N:\n"
	"                          bcc profile's name)\n"
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
	"      --per-cpu           a \"CPU N\" frame at the root of each stack\n"
	"  every option of 'scorch flamegraph' (graph output), e.g. --inverted (icicle),\n"
	"  --title TEXT, --colors PALETTE, --width PX, --minwidth PX, and\n"
	"      --flamechart        time order (perf backend; implies --backend perf)\n"
	"  A graph's default title says what was recorded (\"scorch record: make -j2\",\n"
	"  \"PID 1234 (burn)\", \"all CPUs\"), its subtitle the host, start date (UTC),\n"
	"  event, rate, duration and sample count; --title/--subtitle replace them.\n"
	"  -q, --quiet             no notices or progress\n"
	"      --no-progress       no progress line (it is drawn only on a terminal)\n"
	"  -h, --help              this text\n"
	"\n"
	"Stacks are counted in samples, one per sample whatever the event (a graph\n"
	"says \"samples\" in its tooltips; --countname overrides it). Lost samples\n"
	"and stack-map collisions are reported on stderr at the end, with the share\n"
	"of user stacks that reached a thread's start (main, _start, start_thread,\n"
	"clone3...); a stack that broke before shows an [unknown] caller where it\n"
	"broke. User\n"
	"addresses are resolved against the mappings captured while each process\n"
	"lived (/proc/PID/maps when first seen, then the kernel's mmap, comm and\n"
	"fork records), so processes that exit early keep their names. The bpf\n"
	"backend counts by pid: samples taken before a process's exec are resolved\n"
	"against its new program (perf keeps them apart).\n"
	"\n"
	"Exit status: the command's, when it ended on its own (128+N when signal N\n"
	"killed it); otherwise 0 when the output was written. 1 when recording or\n"
	"writing failed, or when nothing was sampled (the message says why; no\n"
	"output is written, in any format); 2 usage error; 126/127 the command\n"
	"cannot be run or found. When -d or Ctrl-C ends sampling first, the command\n"
	"is sent SIGTERM and its status is not used.\n";

/* Set by the SIGINT/SIGTERM/SIGHUP handler (a handler reaches no context;
 * base/tempfile.c is the only other such global). */
static volatile sig_atomic_t record_stop;

static void on_signal(int sig)
{
	(void)sig;
	record_stop = 1;
}

enum {
	OPT_BACKEND = 256,
	OPT_ANNOTATE_PID,
	OPT_ANNOTATE_TID,
	OPT_KERNEL,
	OPT_JIT,
	OPT_PER_CPU,
	OPT_NO_PROGRESS,
	OPT_STACK_MAP_SIZE,
	OPT_MAX_STACK,
	OPT_CALL_GRAPH,
	OPT_OFF_CPU,
	OPT_WALL,
	OPT_WAKERS,
	OPT_MIN_BLOCK,
	OPT_MAX_BLOCK,
	OPT_STATE,
};

/* Followed by the flame-graph options (cmd/graph_opts.h). */
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
	{ "kernel", no_argument, NULL, OPT_KERNEL },
	{ "jit", no_argument, NULL, OPT_JIT },
	{ "per-cpu", no_argument, NULL, OPT_PER_CPU },
	{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
	{ "max-stack", required_argument, NULL, OPT_MAX_STACK },
	{ "stack-map-size", required_argument, NULL, OPT_STACK_MAP_SIZE },
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

/* The exit code of a command that ended on its own: its status, or 128+N
 * when signal N killed it; -1 when there was no command or scorch ended it
 * (-d, Ctrl-C). */
static int command_exit_code(const struct record_stats *st)
{
	if (st->ended != RECORD_END_COMMAND || st->command_status < 0)
		return -1;
	if (WIFEXITED(st->command_status))
		return WEXITSTATUS(st->command_status);
	if (WIFSIGNALED(st->command_status))
		return 128 + WTERMSIG(st->command_status);
	return -1;
}

/* Append printf output to buf (of cap bytes, holding *len), cut at cap. */
PRINTF_LIKE(4, 5) static void append(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
	va_list ap;
	if (*len + 1 >= cap)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(buf + *len, cap - *len, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len = *len + (size_t)n < cap ? *len + (size_t)n : cap - 1;
}

/* How often a sample is taken: "99 Hz", "every event", "every 10 events". */
static const char *describe_rate(const struct record_opts *o, char *buf, size_t cap)
{
	if (o->event != RECORD_EVENT_COUNTED)
		snprintf(buf, cap, "%u Hz", o->freq);
	else if (o->period > 1)
		snprintf(buf, cap, "every %" PRIu64 " events", o->period);
	else
		snprintf(buf, cap, "every event");
	return buf;
}

/* What was recorded: "cycles 99 Hz", "page-faults every event", "off-CPU
 * S+D >= 10 us", "cpu-clock 99 Hz + off-CPU S+D + runnable". */
static const char *describe_event(const struct record_opts *o, const struct record_stats *st, char *buf,
				  size_t cap)
{
	char rate[48];
	size_t len = 0;
	buf[0] = 0;
	if (!o->off_cpu || o->wall)
		append(buf, cap, &len, "%s %s%s", st->event ? st->event : "?", describe_rate(o, rate, sizeof(rate)),
		       o->wall ? " + " : "");
	if (o->off_cpu) {
		unsigned s = o->off_cpu_states;
		append(buf, cap, &len, "off-CPU %s", s == RECORD_OFFCPU_STATES_ALL ? "S+D"
						     : s & RECORD_OFFCPU_SLEEPING ? "S" : "D");
		if (o->min_block_us)
			append(buf, cap, &len, " \xe2\x89\xa5 %" PRIu64 " us", o->min_block_us);
		if (o->max_block_us)
			append(buf, cap, &len, " \xe2\x89\xa4 %" PRIu64 " us", o->max_block_us);
		if (o->wakers)
			append(buf, cap, &len, " with wakers");
		if (o->wall)
			append(buf, cap, &len, " + runnable");
	}
	return buf;
}

/* How much: "1,234 samples", "567 blocks", "1,234 samples + 567 blocks"
 * (--wall: "... + 89 waits for a CPU"). */
static const char *describe_count(const struct record_stats *st, char *buf, size_t cap)
{
	char samples[32], blocks[32], waits[32];
	uint64_t on = st->samples - st->offcpu_blocks - st->offcpu_waits;
	size_t len = 0;
	buf[0] = 0;
	numfmt_grouped(samples, sizeof(samples), on);
	numfmt_grouped(blocks, sizeof(blocks), st->offcpu_blocks);
	if (on || !st->offcpu_blocks)
		append(buf, cap, &len, "%s sample%s%s", samples, on == 1 ? "" : "s", st->offcpu_blocks ? " + " : "");
	if (st->offcpu_blocks)
		append(buf, cap, &len, "%s block%s", blocks, st->offcpu_blocks == 1 ? "" : "s");
	numfmt_grouped(waits, sizeof(waits), st->offcpu_waits);
	if (st->offcpu_waits)
		append(buf, cap, &len, "%s%s wait%s for a CPU", len ? " + " : "", waits, st->offcpu_waits == 1 ? "" : "s");
	return buf;
}

/* One message: why a recording has no samples. */
static void explain_no_samples(const struct record_opts *o, const struct record_stats *st)
{
	if (o->off_cpu) {
		const char *filtered = o->min_block_us || o->max_block_us || o->nr_cpus ||
					       o->off_cpu_states != RECORD_OFFCPU_STATES_ALL
				       ? " in a way the filters keep (--state, --min-block, --max-block, -C)"
				       : "";
		if (o->all_cpus)
			error("no off-CPU time in %.1f s: no thread blocked%s", st->seconds, filtered);
		else
			error("no off-CPU time in %.1f s: the %s did not block%s (a thread asleep since before "
			      "sampling began counts only from its next switch-out)", st->seconds,
			      o->command ? "command" : o->nr_pids ? "process" : "thread", filtered);
		return;
	}
	switch (st->ended) {
	case RECORD_END_COMMAND:
		if (o->event == RECORD_EVENT_COUNTED)
			error("no samples: '%s' ran %.1f s and caused no %s event", o->command[0], st->seconds,
			      o->counted.name);
		else if (st->command_cpu < 0.0005)
			error("no samples: '%s' ran %.1f s and used no CPU", o->command[0], st->seconds);
		else
			error("no samples: '%s' ran %.1f s but used only %.0f ms of CPU (at %u Hz a "
			      "sample is taken every %.0f ms of CPU; raise -F for short commands)",
			      o->command[0], st->seconds, st->command_cpu * 1000, o->freq, 1000.0 / o->freq);
		break;
	case RECORD_END_TARGETS:
		error("no samples: the %s exited %.1f s after sampling started, without running on a CPU "
		      "meanwhile", o->nr_pids ? (o->nr_pids > 1 ? "processes" : "process")
					      : (o->nr_tids > 1 ? "threads" : "thread"),
		      st->seconds);
		break;
	default:
		if (o->all_cpus)
			error("no samples in %.1f s of sampling", st->seconds);
		else
			error("no samples in %.1f s: the %s did not run on a CPU (idle or blocked)", st->seconds,
			      o->command ? "command" : o->nr_pids ? "process" : "thread");
		break;
	}
}

/* A whole number in 1..max, or a usage error "what, not 'arg'". */
static unsigned parse_count(const char *arg, unsigned long max, const char *what)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(arg, &end, 10);
	if (*end || end == arg || errno || !v || v > max || arg[0] == '-')
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

/* The default title: what was recorded ("scorch record: make -j2",
 * "scorch record: PID 1234 (burn)", "scorch record: all CPUs"). Names of
 * -p/-t targets are read now, while they live. */
static void describe_target(const struct record_opts *o, char *buf, size_t cap)
{
	size_t len = 0;
	append(buf, cap, &len, "scorch record:");
	if (o->command) {
		for (char **a = o->command; *a && len < 100; a++)
			append(buf, cap, &len, " %s", *a);
		if (len >= 100 && cap > 104)
			strcpy(buf + 100, "...");
	} else if (o->nr_pids || o->nr_tids) {
		bool pids = o->nr_pids;
		size_t n = pids ? o->nr_pids : o->nr_tids;
		append(buf, cap, &len, " %s%s", pids ? "PID" : "TID", n > 1 ? "s" : "");
		for (size_t i = 0; i < n && len < 100; i++) {
			pid_t id = pids ? o->pids[i] : o->tids[i];
			char path[64], comm[64];
			snprintf(path, sizeof(path), "/proc/%d/comm", (int)id);
			record_read_line(path, comm, sizeof(comm));
			append(buf, cap, &len, "%s %d", i ? "," : "", (int)id);
			if (comm[0])
				append(buf, cap, &len, " (%s)", comm);
		}
	} else {
		append(buf, cap, &len, " all CPUs");
	}
	if (o->nr_cpus) {
		append(buf, cap, &len, " on CPU%s", o->nr_cpus > 1 ? "s" : "");
		for (size_t i = 0; i < o->nr_cpus; i++)
			append(buf, cap, &len, "%s%d", i ? "," : " ", o->cpus[i]);
	}
}

/* The default subtitle: where, when and how ("host x · 2026-11-23 19:40
 * UTC · cpu-clock 99 Hz · 10.0 s · 1,234 samples"). */
static void describe_run(const struct record_opts *o, const struct record_stats *st, time_t started,
			 char *buf, size_t cap)
{
	char host[256] = "?", date[64] = "?", lost[32], what[128], count[96];
	struct tm tm;
	if (gethostname(host, sizeof(host) - 1))
		strcpy(host, "?");
	host[sizeof(host) - 1] = 0;
	if (gmtime_r(&started, &tm))
		strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", &tm);
	size_t len = 0;
	append(buf, cap, &len, "host %s \xc2\xb7 %s \xc2\xb7 %s \xc2\xb7 %.1f s \xc2\xb7 %s", host, date,
	       describe_event(o, st, what, sizeof(what)), st->seconds, describe_count(st, count, sizeof(count)));
	if (st->lost) {
		numfmt_grouped(lost, sizeof(lost), st->lost);
		append(buf, cap, &len, " (%s lost)", lost);
	}
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = { .freq = 99, .backend = RECORD_BACKEND_AUTO, .event = RECORD_EVENT_AUTO };
	struct graph_opts g;
	graph_opts_init(&g);
	struct option *long_opts = graph_options_with(own_opts, NULL);
	const char *output = NULL;
	bool no_progress = false, folded = false, freq_given = false, event_given = false;
	/* An off-CPU filter given, for the usage error without --off-cpu. */
	const char *block_filter = NULL;
	/* The default unit, to know whether --countname changed it. */
	const char *default_countname = g.svg.countname;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:ap:t:L:C:F:d:e:c:o:qhgUKf", long_opts, NULL)) != -1) {
		char *end;
		switch (c) {
		case 'a':
			o.all_cpus = true;
			break;
		case 'p':
			parse_ids(optarg, "-p", &o.pids, &o.nr_pids);
			break;
		case 't':
		case 'L':
			parse_ids(optarg, "-t", &o.tids, &o.nr_tids);
			break;
		case 'F':
			o.freq = parse_count(optarg, 100000, "-F: frequency must be 1..100000 Hz");
			freq_given = true;
			break;
		case 'd':
			errno = 0;
			o.duration = strtod(optarg, &end);
			if (*end || end == optarg || errno || !(o.duration > 0))
				usage_error("record", "-d: not a positive number of seconds: '%s'", optarg);
			break;
		case 'e':
			event_given = true;
			if (!strcmp(optarg, "cpu-clock"))
				o.event = RECORD_EVENT_CPU_CLOCK;
			else if (!strcmp(optarg, "cycles"))
				o.event = RECORD_EVENT_CYCLES;
			else if (record_event_parse(optarg, &o.counted)) {
				free(long_opts);
				graph_opts_release(&g);
				free(o.pids);
				free(o.tids);
				free(o.cpus);
				return usage_hint("record");
			} else
				o.event = RECORD_EVENT_COUNTED;
			break;
		case 'c':
			o.period = parse_count(optarg, 1000000000, "-c: a sample every 1..1000000000 events");
			break;
		case 'o':
			output = optarg;
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'h':
			fputs(record_usage, stdout);
			free(long_opts);
			graph_opts_release(&g);
			free(o.pids);
			free(o.tids);
			return 0;
		case 'U':
			o.user_only = true;
			break;
		case 'K':
			o.kernel_only = true;
			break;
		case 'C':
			parse_cpus(optarg, &o.cpus, &o.nr_cpus);
			break;
		case 'g': /* perf's "record call graphs": always done */
			break;
		case 'f':
			folded = true;
			break;
		case OPT_BACKEND:
			if (!strcmp(optarg, "perf"))
				o.backend = RECORD_BACKEND_PERF;
			else if (!strcmp(optarg, "bpf"))
				o.backend = RECORD_BACKEND_BPF;
			else
				usage_error("record", "--backend must be perf or bpf, not '%s'", optarg);
			break;
		case OPT_ANNOTATE_PID:
			o.annotate_pid = true;
			break;
		case OPT_ANNOTATE_TID:
			o.annotate_tid = true;
			break;
		case OPT_KERNEL:
			o.annotate_kernel = true;
			break;
		case OPT_JIT:
			o.annotate_jit = true;
			break;
		case OPT_PER_CPU:
			o.per_cpu = true;
			break;
		case OPT_NO_PROGRESS:
			no_progress = true;
			break;
		case OPT_MAX_STACK:
			o.max_stack = parse_count(optarg, 8000, "--max-stack: 1..8000 frames");
			break;
		case OPT_STACK_MAP_SIZE:
			o.stack_map_size = parse_count(optarg, 1ul << 22, "--stack-map-size: 1..4194304 entries");
			break;
		case OPT_CALL_GRAPH:
			parse_call_graph(optarg, &o);
			break;
		case OPT_OFF_CPU:
			o.off_cpu = true;
			break;
		case OPT_WAKERS:
			o.wakers = o.off_cpu = true;
			break;
		case OPT_WALL:
			o.wall = o.off_cpu = true;
			break;
		case OPT_MIN_BLOCK:
			o.min_block_us = parse_usec(optarg, "--min-block");
			block_filter = "--min-block";
			break;
		case OPT_MAX_BLOCK:
			o.max_block_us = parse_usec(optarg, "--max-block");
			block_filter = "--max-block";
			break;
		case OPT_STATE:
			o.off_cpu_states = parse_states(optarg);
			block_filter = "--state";
			break;
		default: {
			int rc = graph_opts_take(&g, "record", c, optarg, argv);
			if (rc) {
				free(long_opts);
				graph_opts_release(&g);
				free(o.pids);
				free(o.tids);
				return rc;
			}
			break;
		}
		}
	}
	free(long_opts);
	o.keep_order = g.layout.flamechart;
	if (o.period && o.event != RECORD_EVENT_COUNTED)
		usage_error("record", "-c counts software events or tracepoints (-e page-faults...); "
				      "cpu-clock and cycles are sampled at -F HZ");
	if (block_filter && !o.off_cpu)
		usage_error("record", "%s filters off-CPU time: add --off-cpu (or --wall)", block_filter);
	if (o.min_block_us && o.max_block_us && o.min_block_us > o.max_block_us)
		usage_error("record", "--min-block %" PRIu64 " is above --max-block %" PRIu64, o.min_block_us,
			    o.max_block_us);
	if (o.off_cpu && !o.off_cpu_states)
		o.off_cpu_states = RECORD_OFFCPU_STATES_ALL;
	if (o.off_cpu && !o.wall && (event_given || freq_given))
		usage_error("record", "--off-cpu records blocked time, not samples: no %s (--wall adds "
				      "cpu-clock samples at -F HZ)", event_given ? "-e" : "-F");
	if (o.wall && event_given && o.event != RECORD_EVENT_CPU_CLOCK)
		usage_error("record", "--wall counts on-CPU time with cpu-clock samples: no -e %s",
			    o.event == RECORD_EVENT_COUNTED ? o.counted.name : "cycles");
	if (o.wall && o.wakers)
		usage_error("record", "--wakers draws off-CPU time only: not with --wall");
	if (o.wakers && o.backend == RECORD_BACKEND_PERF)
		usage_error("record", "--wakers needs the BPF backend (sched_waking's stacks): not with --backend perf");
	if (o.wall)
		o.event = RECORD_EVENT_CPU_CLOCK; /* a sample stands for 1/HZ s of CPU */
	if (o.off_cpu && g.layout.flamechart)
		usage_error("record", "--flamechart draws samples in time order; not with --%s",
			    o.wall ? "wall" : "off-cpu");
	/* Off-CPU time: microseconds, in the io palette (--wall: hot; the
	 * [on-cpu]/[off-cpu] leaf frames tell the kinds apart, not their
	 * colour), unless --colors says. */
	if (o.off_cpu && !g.colors)
		g.colors = o.wall ? "hot" : o.wakers ? "chain" : "io";
	/* A page-fault graph in the memory palette, unless --colors says. */
	if (o.event == RECORD_EVENT_COUNTED && !g.colors)
		g.colors = o.counted.palette;
	if (g.input_format)
		usage_error("record", "--format: '%s' is not an output format (%s)", g.input_format, graph_format_names);
	if (graph_opts_finish(&g) || graph_opts_load(&g)) {
		graph_opts_release(&g);
		free(o.pids);
		free(o.tids);
		return usage_hint("record");
	}
	if (optind < argc)
		o.command = argv + optind;
	if (o.user_only && o.kernel_only)
		usage_error("record", "--user-only and --kernel-only exclude each other");
	int targets = !!o.command + !!o.nr_pids + !!o.nr_tids;
	if (targets > 1 || (targets && o.all_cpus))
		usage_error("record", "give one target: -a, -p, -t or a command");
	if (!targets)
		o.all_cpus = true;
	if (o.keep_order) {
		if (o.backend == RECORD_BACKEND_BPF)
			usage_error("record", "--flamechart needs sample order, which only --backend perf keeps");
		o.backend = RECORD_BACKEND_PERF;
	}
	if (o.all_cpus && !o.duration && !isatty(STDIN_FILENO) && !o.quiet)
		fprintf(stderr, "scorch: sampling the whole system until Ctrl-C (or use -d SECONDS)\n");
	o.progress = !no_progress && !o.quiet && isatty(STDERR_FILENO);
	/* The profile on stdout: the command's stdout goes to our stderr, so
	 * that `scorch record -- cmd > out.folded` holds only stacks. */
	o.command_stdout_to_stderr = !output || !strcmp(output, "-");
	o.stop = &record_stop;

	enum graph_format graph = graph_opts_format(&g, "record", output, WRITES_FOLDED | WRITES_PICTURE | WRITES_DATA);
	if (folded && graph)
		usage_error("record", "-f asks for folded stacks, but the output is a graph (-o %s)", output ? output : "-");
	if (g.given && !graph && !o.quiet)
		warn("flame graph options apply to graph output only (-o FILE.svg or FILE.html)");
	/* Open the output first: a bad path fails before minutes of sampling
	 * (for a graph this only checks that it can be created: it is written
	 * at the end, and opening a FIFO now would make its reader see EOF). */
	struct out *out = graph ? NULL : out_open(output);
	if (graph ? out_check(output) != 0 : !out) {
		graph_opts_release(&g);
		free(o.pids);
		free(o.tids);
		return 1;
	}

	/* INT, TERM and HUP stop sampling and the output is still written;
	 * the previous actions (base/tempfile.h's cleanup of out's temporary
	 * file, when it has one) come back afterwards. */
	static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa = { 0 }, old_sa[3];
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 3; i++)
		sigaction(stop_signals[i], &sa, &old_sa[i]);
	/* A reader of our stdout going away must not kill us mid-record. */
	signal(SIGPIPE, SIG_IGN);

	struct profile p;
	struct record_stats st;
	profile_init(&p);
	char title[256], mode_title[300], subtitle[512];
	describe_target(&o, title, sizeof(title));
	time_t started = time(NULL);
	struct timespec wall_start;
	clock_gettime(CLOCK_REALTIME, &wall_start);
	o.sites = graph == GRAPH_FORMAT_PPROF; /* Mappings with build-ids */
	int ret = record_run(&o, &p, &st);
	for (int i = 0; i < 3; i++)
		sigaction(stop_signals[i], &old_sa[i], NULL);
	if (!ret && st.unwind_note && !o.quiet)
		fprintf(stderr, "scorch: %s\n", st.unwind_note);
	int rc;
	double t0 = record_now(), c0 = record_cpu_now();
	if (ret) {
		if (!graph)
			out_abort(out);
		rc = ret == RECORD_NOT_FOUND ? 127 : ret == -126 ? 126 : 1;
	} else if (!st.samples) {
		/* Nothing to draw: no output, whatever its format. */
		if (!graph)
			out_abort(out);
		explain_no_samples(&o, &st);
		rc = 1;
	} else if (graph) {
		/* Each sample counts 1, whatever the event: say so. */
		if (g.svg.countname == default_countname)
			g.svg.countname = o.off_cpu ? "us" : o.event == RECORD_EVENT_COUNTED ? o.counted.countname : "samples";
		if (o.event != RECORD_EVENT_COUNTED && !o.off_cpu)
			g.period_ns = 1e9 / o.freq;
		if (o.off_cpu) /* pprof and speedscope say microseconds too */
			g.count_unit = "us";
		g.time_ns = (int64_t)wall_start.tv_sec * 1000000000 + wall_start.tv_nsec;
		g.duration_ns = (int64_t)(st.seconds * 1e9);
		/* What, where, when and how, unless --title/--subtitle say. */
		if (!g.svg.title) {
			/* A flame chart or icicle graph still says so first. */
			const char *mode = g.svg.flamechart ? "Flame Chart" : g.svg.inverted ? "Icicle Graph" : NULL;
			if (o.off_cpu)
				mode = o.wall	  ? (g.svg.inverted ? "Wall-Clock Time (icicle)" : "Wall-Clock Time")
				       : o.wakers ? (g.svg.inverted ? "Off-Wake Time (icicle)" : "Off-Wake Time")
						  : (g.svg.inverted ? "Off-CPU Time (icicle)" : "Off-CPU Time");
			if (mode)
				snprintf(mode_title, sizeof(mode_title), "%s \xc2\xb7 %s", mode, title);
			g.svg.title = mode ? mode_title : title;
		}
		if (!g.svg.subtitle) {
			describe_run(&o, &st, started, subtitle, sizeof(subtitle));
			g.svg.subtitle = subtitle;
		}
		rc = graph_exit_code(graph_render(&p, &g, graph, output));
	} else {
		folded_write(&p, out);
		rc = out_commit(out) ? 1 : 0;
	}
	double write_seconds = record_now() - t0, write_cpu = record_cpu_now() - c0;
	graph_opts_release(&g);
	if (ret) {
		profile_release(&p);
		free(o.pids);
		free(o.tids);
		return rc;
	}

	if (!o.quiet && st.samples) {
		char what[128], count[96], unique[32];
		numfmt_grouped(unique, sizeof(unique), st.unique);
		fprintf(stderr, "scorch: %s backend, %s: %s in %.1f s, %s distinct stack%s", st.backend,
			describe_event(&o, &st, what, sizeof(what)), describe_count(&st, count, sizeof(count)),
			st.seconds, unique, st.unique == 1 ? "" : "s");
		if (o.off_cpu) {
			fprintf(stderr, ", %.2f s off-CPU", st.offcpu_seconds);
			if (st.offcpu_waits)
				fprintf(stderr, ", %.2f s waiting for a CPU", st.offcpu_wait_seconds);
			if (st.offcpu_filtered)
				fprintf(stderr, ", %" PRIu64 " blocks filtered out", st.offcpu_filtered);
			if (st.offcpu_open)
				fprintf(stderr, ", %" PRIu64 " thread%s still blocked at the end (counted up to it)",
					st.offcpu_open, st.offcpu_open == 1 ? "" : "s");
			if (st.offcpu_lost_end)
				fprintf(stderr, ", %" PRIu64 " blocks dropped (their wake-up record was lost)",
					st.offcpu_lost_end);
			if (st.offcpu_unseen_in)
				fprintf(stderr, ", %" PRIu64 " block%s whose switch-in was not seen (ended by its CPU time since)",
					st.offcpu_unseen_in, st.offcpu_unseen_in == 1 ? "" : "s");
		}
		if (st.lost)
			fprintf(stderr, ", %" PRIu64 " lost", st.lost);
		if (st.spilled)
			fprintf(stderr, ", %" PRIu64 " sent whole after stack-map collisions", st.spilled);
		if (st.collisions)
			fprintf(stderr, ", %" PRIu64 " with a stack lost to stack-map collisions (see --stack-map-size)",
				st.collisions);
		if (st.map_full)
			fprintf(stderr, ", %" PRIu64 " with a stack lost to a full stack map", st.map_full);
		if (st.user_samples)
			fprintf(stderr, "; %.1f%% of user stacks reached a thread's start (%s)",
				100.0 * (double)st.reached / (double)st.user_samples,
				st.unwound ? "DWARF" : "frame pointers");
		if (st.unwound && st.bytes)
			fprintf(stderr, ", %.1f KiB copied per sample", (double)st.bytes / 1024.0 / (double)st.unwound);
		if (st.copy_full)
			fprintf(stderr, ", %" PRIu64 " stack copies refused by a full ring buffer (frame pointers used)",
				st.copy_full);
		fprintf(stderr, "; output written %.2f s (%.2f s CPU) after sampling ended\n",
			st.finish_seconds + write_seconds, st.finish_cpu_seconds + write_cpu);
	}
	if (o.command && st.command_status > 0 && !o.quiet) {
		if (WIFEXITED(st.command_status))
			fprintf(stderr, "scorch: %s exited with status %d\n", o.command[0],
				WEXITSTATUS(st.command_status));
		else if (WIFSIGNALED(st.command_status))
			fprintf(stderr, "scorch: %s was killed by signal %d\n", o.command[0],
				WTERMSIG(st.command_status));
	}
	/* The command's own failure is the status, unless scorch failed to
	 * write the profile. With no samples and a command that succeeded,
	 * the status stays 1. */
	int command_rc = command_exit_code(&st);
	if (command_rc > 0 && (rc == 0 || !st.samples))
		rc = command_rc;
	profile_release(&p);
	free(o.pids);
	free(o.tids);
	free(o.cpus);
	return rc;
}
