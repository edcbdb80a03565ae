/* scorch record: live stack sampling into a struct profile.
 *
 * record_run() picks a backend (eBPF with in-kernel aggregation, or the
 * perf_event ring buffer), samples until the duration ends, the command
 * exits or *opts->stop is set, then symbolizes and fills a profile whose
 * stacks read like stackcollapse-perf's: [CPU N;]comm[-PID[/TID]];user
 * frames root..leaf;kernel frames root..leaf[_[k]].
 *
 * The backends deliver raw samples to the backend-neutral collector in
 * record.c (struct recorder); they know nothing about symbols or output. */
#ifndef SCORCH_RECORD_RECORD_H
#define SCORCH_RECORD_RECORD_H

#include "base/error.h"
#include "profile/profile.h"
#include "record/events.h"

#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum record_backend {
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

/* Default bytes of user stack copied per sample (see record.c). */
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
	bool keep_order;      /* keep sample order (flame charts; perf backend) */
	bool annotate_pid, annotate_tid, annotate_kernel, annotate_jit;
	bool no_inline;       /* no inlined-function frames for DWARF-unwound frames */
	bool sites;           /* note frames' modules, build-ids and addresses
				 (profile/frame_sites.h), for pprof output */
	enum record_backend backend;
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
	uint64_t lost;        /* samples the kernel dropped (ring full, map full) */
	uint64_t collisions;  /* samples whose stack was lost to a collision */
	uint64_t map_full;    /* stacks lost because the stack map was full */
	uint64_t spilled;     /* bpf: samples sent whole, not counted in the kernel
				 (a stack-map collision, a map full; not lost) */
	uint64_t in_kernel;   /* bpf: samples counted in the kernel */
	uint64_t copied;      /* bpf: on-CPU samples whose user stack was copied
				 out (DWARF), not counted in the kernel */
	uint64_t unique;      /* distinct raw stacks */
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
	/* From the end of sampling (the instant the stop condition was
	 * seen) on, where the wall and CPU time went, phase by phase. */
	struct record_phases phases;
};

/* Exit-code hints from record_run's failures. */
enum {
	RECORD_OK = 0,
	RECORD_ERROR = -1,         /* message printed */
	RECORD_NOT_FOUND = -127,   /* the command could not be executed */
};

int record_run(const struct record_opts *opts, struct profile *out, struct record_stats *stats);

/* ---- Between the driver and the backends (record-private). ---- */

struct recorder;

/* One sample or one in-kernel aggregate. Stacks are leaf first. */
struct record_sample {
	uint32_t pid, tid, cpu;
	uint64_t time;          /* ns (perf backend), 0 when unknown */
	uint64_t weight;        /* number of samples (or off-CPU blocks) this stands for */
	uint64_t ns;            /* off_cpu: nanoseconds blocked (see the contract above) */
	bool off_cpu;           /* a block of off-CPU time, not an on-CPU sample */
	bool runnable;          /* off_cpu, --wall: preempted (R), waiting for a CPU */
	/* --wakers: the task that woke this one, as it was then (pid, tid,
	 * comm, stacks; its own waker and counts are not read), or NULL:
	 * drawn as offwaketime draws it, above a "--" frame, leaf first. */
	const struct record_sample *waker;
	const char *comm;       /* NULL: the last COMM seen for tid */
	const uint64_t *kernel;
	uint32_t nr_kernel;
	const uint64_t *user;
	uint32_t nr_user;
	/* A user register set and stack copy to unwind (perf's
	 * PERF_SAMPLE_REGS_USER / STACK_USER), or regs_abi 0. user[] is then
	 * the frame-pointer chain, if any, that DWARF unwinding extends. */
	uint64_t regs_abi, regs_mask;
	const uint64_t *regs;   /* popcount(regs_mask) values */
	const uint8_t *stack;
	size_t stack_len;
	uint32_t stack_holes;   /* bit i: the i-th page from the sp's page is
				   not in the copy (BPF: not present) */
	bool kernel_missing;    /* kernel stack asked for but lost */
	bool user_missing;      /* user stack asked for but lost */
	bool kernel_truncated;  /* reached the depth limit: its root end may be lost */
	bool user_truncated;
};

void recorder_sample(struct recorder *r, const struct record_sample *s);
/* The two halves of recorder_sample, for a stack known before its count
 * (off-CPU: the stack at switch-out, the time at switch-in): the index of
 * s's stack (unwound and interned now, counted 0), then counting it.
 * s->weight, s->ns and s->time are not read by recorder_stack. */
uint32_t recorder_stack(struct recorder *r, const struct record_sample *s);
void recorder_count(struct recorder *r, uint32_t stack, uint64_t weight, uint64_t ns);
/* Process events: names, exec, fork and executable mappings. */
void recorder_comm(struct recorder *r, uint32_t pid, uint32_t tid, const char *comm, bool exec);
void recorder_fork(struct recorder *r, uint32_t ppid, uint32_t ptid, uint32_t pid, uint32_t tid);
void recorder_mmap(struct recorder *r, uint32_t pid, uint64_t start, uint64_t len,
		   uint64_t pgoff, const char *path);
/* A pid seen for the first time: capture /proc/PID/maps while it lives. */
void recorder_seen(struct recorder *r, uint32_t pid);
/* Read /proc/PID/maps again if it lives (libraries loaded late). */
void recorder_refresh(struct recorder *r, uint32_t pid);
bool recorder_knows(const struct recorder *r, uint32_t pid);
/* Does it unwind user stacks with DWARF (samples should carry regs and a
 * stack copy)? If not while asked to, why not (else NULL). */
bool recorder_unwinds(const struct recorder *r);
const char *recorder_unwind_note(const struct recorder *r);
uint64_t recorder_samples(const struct recorder *r);

/* A recorder on its own (the run makes one; so do tests and fuzzers).
 * proc_root replaces "/proc" for the maps and names it reads (NULL: /proc). */
struct recorder *recorder_new(const struct record_opts *opts, const char *proc_root);
void recorder_free(struct recorder *r);
/* Symbolize what was collected into p (record_run does this at the end). */
void recorder_build(struct recorder *r, struct profile *p);
/* Symbolize stacks into p as they come in, from now on, so that little is
 * left for recorder_build (the same profile) when sampling ends. Kernel
 * frames are named from kernel_syms once *kernel_ready (NULL: now). Stacks
 * through JIT code still wait for the end (their names grow meanwhile),
 * and so does everything with --off-cpu (a stack's node depends on its
 * total time). Node ids then follow the order stacks were built in. */
struct symbols;
void recorder_build_early(struct recorder *r, struct profile *p, struct symbols *kernel_syms,
			  const atomic_bool *kernel_ready);

/* perf_event.c: the records of a perf ring buffer -> the recorder. */
struct offcpu;
struct perf_parser {
	struct recorder *r;
	struct offcpu *offcpu;  /* --off-cpu: sched_switch samples and switch-in records go here */
	uint32_t max_stack;     /* frames a callchain holds at most (0: unknown) */
	/* The sample layout: 0 = record_fill_attr's frame-pointer layout;
	 * else attr.sample_type and attr.sample_regs_user. */
	uint64_t sample_type, regs_mask;
	uint64_t lost;          /* from LOST and LOST_SAMPLES records */
	uint64_t bytes;         /* of the records parsed */
	uint64_t *kips, *uips;  /* one sample's callchain, split */
	size_t alloc_kips, alloc_uips;
};
/* Parse len bytes of whole records (as the ring holds them, with the
 * sample layout record_fill_attr asks for); stops at a malformed header. */
void perf_parse_records(struct perf_parser *ps, const void *data, size_t len);
void perf_parser_release(struct perf_parser *ps);

/* A -p process or -t thread watched for its exit. */
struct target_watch {
	pid_t id;
	int fd;     /* its pidfd (readable once it exited), or -1: /proc is read */
	bool thread;
	bool gone;
};

/* The common loop state shared by both backends. */
struct record_target {
	pid_t child;      /* the command, or 0 */
	int go_fd;        /* write a byte to let the command exec, -1 after */
	int exec_err_fd;  /* EOF on exec, or the child's errno */
	int child_fd;     /* the command's pidfd (wakes the loops at its exit), or -1 */
	double child_cpu; /* CPU seconds the command and its reaped children used */
	struct target_watch *watch; /* -p processes or -t threads */
	size_t nr_watch, nr_live;
};

/* target.c: run a command that waits until the events are in place; its
 * stdout goes to our stderr with stdout_to_stderr. */
int target_spawn(struct record_target *t, char **argv, bool stdout_to_stderr);
/* Release the command; returns 0, or RECORD_NOT_FOUND / RECORD_ERROR. */
int target_start(struct record_target *t, const char *name);
/* Poll for the command's exit; returns true once it has exited. */
bool target_exited(struct record_target *t, int *status);
void target_kill(struct record_target *t);
/* Watch the -p processes (or -t threads) of o for their exit. */
void target_watch(struct record_target *t, const struct record_opts *o);
/* True once every watched process or thread has exited (false when
 * nothing is watched). */
bool target_gone(struct record_target *t);
/* The descriptors that become readable when a target exits (the command
 * and the watched processes still alive), for a loop's poll(): at most
 * nr_watch + 1 entries. Returns how many were written. */
size_t target_pollfds(const struct record_target *t, struct pollfd *pfd);
/* Close what target_watch and target_spawn opened. */
void target_release(struct record_target *t);

/* Process tracking without samples (the BPF backend's side band). */
struct perf_sideband;
struct perf_sideband *perf_sideband_open(const struct record_opts *o, struct recorder *r,
					 const struct record_target *t);
void perf_sideband_drain(struct perf_sideband *sb);
/* Records from elsewhere (the BPF program's user stacks), merged with the
 * side band's by time (CLOCK_MONOTONIC ns) and handed to fn in order. */
void perf_sideband_on_push(struct perf_sideband *sb, void (*fn)(void *arg, const void *data, size_t len),
			   void *arg);
void perf_sideband_push(struct perf_sideband *sb, uint64_t time, const void *data, size_t len);
void perf_sideband_close(struct perf_sideband *sb); /* drains first */

/* perf_event.c helpers shared with bpf.c. */
struct perf_event_attr;
void record_fill_attr(struct perf_event_attr *attr, const struct record_opts *opts, bool cycles);
/* Ask for the user registers and a copy of the user stack (DWARF). */
void record_attr_user_stack(struct perf_event_attr *attr, const struct record_opts *opts);
uint64_t record_user_regs_mask(void);
unsigned record_stack_size(const struct record_opts *opts);
int record_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group, unsigned long flags);
/* Explain a perf_event_open failure (errno) with the fix; returns -1. */
int record_perf_error(int err, const char *what);
int record_nr_cpus(void);
/* The kernel's frame limit per callchain (kernel.perf_event_max_stack). */
unsigned record_kernel_max_stack(void);
/* Frames per stack the kernel's walk records: --max-stack, else (and at
 * most) the kernel's limit. */
unsigned record_max_stack(const struct record_opts *o);
/* Is this CPU sampled (-C)? */
bool record_cpu_wanted(const struct record_opts *o, int cpu);

/* Progress line on stderr (progress.c). */
void record_progress(const struct record_opts *opts, double elapsed, uint64_t samples, uint64_t lost);
void record_progress_end(const struct record_opts *opts);

/* The first line of a small file (a /proc comm), without its newline;
 * "" when it cannot be read. */
void record_read_line(const char *path, char *buf, size_t cap);

double record_now(void);
double record_cpu_now(void); /* CPU time of the process */
/* A backend's poll timeout: ms, or less so that -d ends on time. */
int record_poll_ms(const struct record_opts *opts, double start, int ms);
/* Has sampling ended (stop flag, duration, command exit)? */
bool record_should_stop(const struct record_opts *opts, struct record_target *t, double start,
			struct record_stats *stats);

/* Backends: return 0, -1 after an error, or -2 when the backend is not
 * available here (BPF only: the driver then falls back to perf). */
int record_perf_backend(const struct record_opts *opts, struct recorder *r,
			struct record_target *t, struct record_stats *stats);
/* BPF cannot be used: an error when it was asked for, else a one-line
 * notice that perf is used instead. Returns -2. */
int record_bpf_unavailable(const struct record_opts *opts, const char *fmt, ...) PRINTF_LIKE(2, 3);
int record_bpf_backend(const struct record_opts *opts, struct recorder *r,
		       struct record_target *t, struct record_stats *stats);

#endif
