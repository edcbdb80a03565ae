/* scorch record: live stack sampling into a struct profile. The API that
 * src/cmd/ uses; the rest of record/ has private headers (README.md there
 * says which file does what).
 *
 * record_run() picks a backend (eBPF with in-kernel aggregation, or the
 * perf_event ring buffer), samples until the duration ends, the command
 * exits or *opts->stop is set, then symbolizes and fills a profile whose
 * stacks read like stackcollapse-perf's: [CPU N;]comm[-PID[/TID]];user
 * frames root..leaf;kernel frames root..leaf[_[k]]. */
#ifndef SCORCH_RECORD_RECORD_H
#define SCORCH_RECORD_RECORD_H

#include "base/error.h"
#include "profile/profile.h"
#include "record/events.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum record_backend_choice {
	RECORD_BACKEND_AUTO, /* BPF where it loads, else perf with a notice */
	RECORD_BACKEND_PERF,
	RECORD_BACKEND_BPF,
};

/* How user stacks are walked (--call-graph). */
enum record_unwind {
	RECORD_UNWIND_AUTO,  /* copy registers + stack and unwind with DWARF CFI,
				falling back to (and continuing along) the
				frame-pointer chain where CFI gives out */
	RECORD_UNWIND_FP,    /* frame pointers only (in-kernel walk) */
	RECORD_UNWIND_DWARF, /* DWARF CFI only, like perf --call-graph dwarf */
};

/* Default bytes of user stack copied per sample (perf_attr.c). */
#define RECORD_STACK_SIZE_DEFAULT 16384
#define RECORD_STACK_SIZE_MAX 65528

enum record_event {
	RECORD_EVENT_AUTO, /* cycles where there is a PMU, else cpu-clock */
	RECORD_EVENT_CPU_CLOCK,
	RECORD_EVENT_CYCLES,
	RECORD_EVENT_COUNTED, /* record_opts.counted: every Nth software event or tracepoint hit */
};

/* ---- Off-CPU and wall-clock profiles (--off-cpu, --wall) ----
 *
 * Both backends give a profile of the same shape:
 *
 * - What is measured: the time a thread spends switched out in a state
 *   of opts->off_cpu_states, from its switch-out (sched_switch with it as
 *   prev) to its next switch-in (sched_switch with it as next, on any
 *   CPU). A preempted thread (still runnable: R, R+) is not off-CPU
 *   (but see --wall below), nor are other states (T stopped, t traced, P parked, I idle kernel
 *   threads, X/Z dying). States are the sched_switch tracepoint's report
 *   bits, which equal the raw task bits for S and D; a raw state with
 *   TASK_NOLOAD (TASK_IDLE = D|NOLOAD) is I, not D. The idle task (pid 0)
 *   is never counted.
 * - Blocks shorter than min_block_us or longer than max_block_us (when
 *   not 0) are left out, each block judged alone. A thread still switched
 *   out when sampling ends is counted up to that moment (it was off-CPU
 *   all that time), as a block ending then (the filters judge that
 *   length). A thread asleep since before sampling began is seen only
 *   from its next switch-out.
 * - The stack is the one the thread had when it switched out, in the
 *   on-CPU layout: [CPU N;]comm[-PID[/TID]];user frames root..leaf;kernel
 *   frames root..leaf[_[k]] (the kernel part ends in schedule's frames;
 *   -U/-K apply). CPU N is the CPU it left.
 * - Backends hand each block (or an in-kernel sum of blocks) to
 *   recorder_sample with .off_cpu set, .weight = the number of blocks and
 *   .ns = the nanoseconds blocked. The recorder sums ns per distinct stack
 *   and the profile counts microseconds (rounded to the nearest at the
 *   end; a stack that totals under 0.5 us is dropped).
 * - --wall: on-CPU samples at -F HZ count 1e9/HZ ns each (.off_cpu
 *   false, .ns 0: the recorder does the conversion), in the same graph.
 *   A thread switched out runnable (preempted, R+, or yielded, R) is
 *   counted too, whatever --state, from that switch-out to its next
 *   switch-in: time waiting for a CPU, handed over as off-CPU time with
 *   .runnable set (the block filters judge these waits too; they are not
 *   counted as blocks in record_stats). Each stack then ends in a leaf
 *   frame "[on-cpu]", "[off-cpu]" or "[runnable]", so a function's width
 *   is its wall time (a thread's three kinds add up to the time it
 *   lived while sampled, less the lost records and the -F sampling's
 *   error) and its top says where the time went.
 * - The graph (cmd/record.c): unit "us", palette io for --off-cpu and
 *   wall for --wall (hot, its three leaf frames red, blue, purple; unless
 *   --colors), title "Off-CPU Time · <target>" or
 *   "Wall-Clock Time · <target>".
 * - Lost records are counted in record_stats.lost and said in the
 *   summary. A block whose switch-in was lost is dropped at the thread's
 *   next switch-out (its end is unknown) and counted in
 *   record_stats.offcpu_lost_end (perf); the bpf backend, which sees its
 *   switch-ins only when the kernel runs its program in the context of
 *   the task leaving the CPU, ends such a block at that next switch-out
 *   less the thread's CPU time since, counts it under its stack, and
 *   says so in record_stats.offcpu_unseen_in. A switch-in without a
 *   switch-out seen (the thread blocked before sampling began, or the
 *   record was lost) counts nothing. */

/* opts->off_cpu_states bits (--state S, D or SD). */
enum {
	RECORD_OFFCPU_SLEEPING = 0x1,      /* S: interruptible sleep */
	RECORD_OFFCPU_UNINTERRUPTIBLE = 0x2, /* D: uninterruptible (disk, some locks) */
	RECORD_OFFCPU_STATES_ALL = 0x3,
};

struct time_ranges; /* profile/time_ranges.h */

/* One interval of --every: [start_ns, end_ns) of the wall clock (ns since
 * the epoch; one interval's end is the next one's start) and the samples
 * in it. */
struct record_interval {
	uint64_t start_ns, end_ns;
	uint64_t samples;
};

struct record_opts {
	unsigned freq;        /* samples per second per CPU */
	double duration;      /* seconds; 0 = until the command exits / stop */
	bool all_cpus;        /* -a (also the default with no other target) */
	pid_t *pids;          /* -p, nr_pids entries */
	size_t nr_pids;
	pid_t *tids;          /* -t, nr_tids entries */
	size_t nr_tids;
	int *cpus;            /* -C: sample only these CPUs (nr_cpus entries; none: all) */
	size_t nr_cpus;
	char **command;       /* NULL-terminated argv, or NULL */
	bool command_stdout_to_stderr; /* the profile goes to stdout: keep it clean */
	bool user_only, kernel_only;
	bool per_cpu;         /* a "CPU N" frame at the root */
	bool keep_order;      /* keep sample order (flame charts) */
	struct time_ranges *time_ranges; /* --time (profile/time_ranges.h): only samples in
				 these, resolved against the first and last sample
				 when sampling ends (every sample's time is kept:
				 the perf backend's own, the BPF backend's to the
				 millisecond); bad and why set when they cannot be */
	bool keep_time;       /* samples per 20 ms cell into profile.time (the HTML
				 heat map; profile/time_cells.h): only when every
				 sample has a time (both backends' do, the BPF
				 backend counting per cell in the kernel) */
	bool annotate_pid, annotate_tid, annotate_kernel, annotate_jit;
	bool no_inline;       /* no inlined-function frames for DWARF-unwound frames */
	bool force;           /* --force: perf maps whoever owns them (perf -f) */
	bool no_debuginfod;   /* never ask debuginfod servers */
	bool sites;           /* note frames' modules, build-ids and addresses
				 (profile/frame_sites.h), for pprof output */
	enum record_backend_choice backend;
	enum record_event event;
	struct record_event_spec counted; /* RECORD_EVENT_COUNTED: which */
	uint64_t period;      /* RECORD_EVENT_COUNTED: a sample every period events (-c) */
	unsigned stack_map_size; /* bpf: most stacks (each class) and counts keys, 0 = default */
	unsigned max_stack;   /* frames per stack, 0 = the kernel's perf_event_max_stack */
	enum record_unwind unwind;
	unsigned stack_size;  /* bytes of user stack per sample, 0 = default */
	bool progress;        /* elapsed/remaining/samples/lost on stderr */
	bool quiet;           /* no notices */
	bool leave_memory;    /* the caller exits after the output: what the run
				 allocated is left to the exit, not freed */
	/* --off-cpu / --wall (see the contract above). */
	bool off_cpu;         /* time switched out, per stack (--wall sets it too) */
	bool wall;            /* off-CPU time and on-CPU samples as time, marked */
	bool wakers;          /* off-CPU: each block's waker above it (record_sample.waker) */
	uint64_t min_block_us; /* blocks shorter are left out (0: none) */
	uint64_t max_block_us; /* blocks longer are left out (0: no limit) */
	unsigned off_cpu_states; /* RECORD_OFFCPU_* bits; 0 means both */
	const volatile sig_atomic_t *stop; /* set asynchronously (Ctrl-C) */
	/* --every (cmd/record_every.c), on-CPU samples: one recording, a
	 * profile cut at each multiple of every_ns of the wall clock while
	 * sampling runs. on_interval gets each interval that ends (the
	 * profile is emptied when it returns: the process table, symbols
	 * and unwind tables stay, the stacks and counts go); the last one,
	 * from the last cut to the end, is the profile record_run fills
	 * (record_stats.interval_start_ns to end_ns). Samples are cut by
	 * their time; those counted in the kernel without one (BPF) count
	 * in the interval they are read in, read just before each cut. */
	uint64_t every_ns;
	void (*on_interval)(void *arg, struct profile *p, const struct record_interval *iv);
	void *interval_arg;
	bool cut_stats; /* --every: a line on stderr per cut of what the recorder holds (SCORCH_CUT_STATS, a bench aid) */
};

/* Time after sampling ended: each record_phase() charges the wall and CPU
 * time (all threads) since the previous mark to the phase it names. */
enum { RECORD_MAX_PHASES = 24 };
struct record_phases {
	double stopped_wall, stopped_cpu; /* the end of sampling; 0: not yet */
	double last_wall, last_cpu;       /* the previous mark */
	int nr;
	struct record_phase {
		const char *what;
		double wall, cpu;
	} at[RECORD_MAX_PHASES];
};
void record_phase(struct record_phases *ph, const char *what);

struct record_stats {
	const char *backend;  /* "bpf" or "perf" */
	const char *event;    /* "cpu-clock" or "cycles" */
	uint64_t samples;     /* samples that reached the profile */
	uint64_t lost;        /* samples the kernel dropped (ring full, map full),
				 and those left unread */
	uint64_t unread;      /* ...left in the rings (or maps) when draining them
				 after sampling ran out of time or a second
				 signal came (record/session.h: record_bound) */
	bool unread_signalled; /* ...because of that signal */
	uint64_t collisions;  /* samples whose stack was lost to a collision */
	uint64_t map_full;    /* stacks lost because the stack map was full */
	uint64_t spilled;     /* bpf: samples sent whole, not counted in the kernel
				 (a stack-map collision, a map full; not lost) */
	uint64_t in_kernel;   /* bpf: samples counted in the kernel */
	uint64_t copied;      /* bpf: on-CPU samples whose user stack was copied
				 out (DWARF), not counted in the kernel */
	uint64_t unique;      /* distinct raw stacks */
	uint64_t named;       /* distinct stacks once named (the profile's leaves) */
	uint64_t built_late;  /* ...turned into profile nodes after sampling ended */
	uint64_t user_samples;/* samples with a user stack */
	uint64_t reached;     /* ...whose stack reached a thread's start */
	uint64_t unwound;     /* samples unwound with DWARF CFI */
	uint64_t bytes;       /* bytes of sample data read from the kernel */
	uint64_t copy_full;   /* bpf: stack copies refused by a full ring buffer
				 (counted with frame-pointer stacks instead) */
	const char *unwind_note; /* why DWARF unwinding is not used, or NULL */
	uint64_t offcpu_blocks;  /* --off-cpu: blocks counted (part of samples) */
	uint64_t offcpu_waits;   /* --wall: waits for a CPU counted (part of samples) */
	double offcpu_wait_seconds; /* ...their time */
	double offcpu_seconds;   /* their total time */
	uint64_t offcpu_filtered;/* blocks left out by --min-block/--max-block/--state */
	uint64_t offcpu_open;    /* threads still switched out at the end (counted to it) */
	uint64_t offcpu_lost_end;/* blocks dropped: their switch-in record was lost */
	uint64_t offcpu_unseen_in;/* bpf: blocks whose switch-in was not seen, ended by
				    the thread's CPU time at its next switch-out */
	double seconds;       /* sampling time */
	int command_status;   /* wait status of the command, -1 if none */
	double command_cpu;   /* CPU seconds the command (and its reaped children) used */
	enum record_end {
		RECORD_END_STOP,     /* *opts->stop (a signal) */
		RECORD_END_DURATION, /* -d elapsed */
		RECORD_END_COMMAND,  /* the command exited */
		RECORD_END_TARGETS,  /* every -p process or -t thread exited */
	} ended;
	/* The runtimes met (record/runtime.h), a line each ending in a
	 * newline ("" when none), for the summary. */
	char runtimes[512];
	/* --every: where the last interval (the profile) starts, and when
	 * sampling ended (ns since the epoch); intervals cut before it. */
	uint64_t interval_start_ns, end_ns;
	uint64_t intervals;
	/* From the end of sampling (the instant the stop condition was
	 * seen) on, where the wall and CPU time went, phase by phase. */
	struct record_phases phases;
};

/* Exit-code hints from record_run's failures. */
enum {
	RECORD_OK = 0,
	RECORD_ERROR = -1,         /* message printed */
	RECORD_NOT_EXECUTABLE = -126, /* the command exists but cannot be executed */
	RECORD_NOT_FOUND = -127,   /* the command could not be found */
};

/* A command still running when sampling ended: record_run sent it SIGTERM
 * and leaves its end to the caller, so that the output is written first
 * (unless a runtime asked that its exit be seen before naming: a JVM,
 * runtime.h's await_exit; record_run waited for it then, within the
 * grace period). */
struct record_command {
	pid_t pid;                         /* 0: nothing left to end */
	double term_at;                    /* when it got SIGTERM (CLOCK_MONOTONIC s) */
	const volatile sig_atomic_t *stop; /* record_opts.stop */
	sig_atomic_t signals;              /* the stop signals sampling's end accounts for */
};

/* Sample, then build the profile into out. left: where a command still
 * running is handed over (end it with record_command_end); NULL: ended
 * here before returning (after its grace period). */
int record_run(const struct record_opts *opts, struct profile *out, struct record_stats *stats,
	       struct record_command *left);
/* The command's end: what is left of its grace period (RECORD_GRACE_MS
 * after its SIGTERM) waited out, cut short by a stop signal beyond those
 * c->signals counts (a second Ctrl-C), then SIGKILL, said on stderr. */
enum { RECORD_GRACE_MS = 2000 };
void record_command_end(struct record_command *c);

/* Small helpers cmd/ shares with record/ (host.c). */
int record_nr_cpus(void);
/* The first line of a small file (a /proc comm), without its newline;
 * "" when it cannot be read. */
void record_read_line(const char *path, char *buf, size_t cap);

#endif
