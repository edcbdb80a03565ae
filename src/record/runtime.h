/* Runtimes inside recorded processes (Python, Java, Node...): how an
 * unwinder from src/runtime/ plugs into record without touching the
 * backends (record-private). The table is in runtimes.c; README.md has
 * the recipe.
 *
 * A runtime's unwinder lives in src/runtime/<name>.[ch] and depends only
 * on base/, addrspace/, symbolize/ and profile/ (never on record/). It is
 * plugged in by an adapter, src/record/runtime_<name>.c, that defines
 * `const struct record_runtime record_runtime_<name>` from its hooks, and
 * by one line in runtimes.c's table. Calls go one way: the collector
 * (recorder.c) and the naming step (naming.c) -> runtimes.c -> the
 * adapters -> src/runtime/.
 *
 * The contract, hook by hook, in the order they run. Every hook may be
 * NULL. All run on the recording thread, one at a time.
 *
 * - open(opts): once, before sampling. Returns the runtime's state for
 *   the whole run (its tables, its statistics; NULL is a valid state).
 *   Every other hook gets it as `run`.
 * - detect(run, proc): a process met for the first time (its first
 *   sample, a -p target, a child seen forking) and again after each exec
 *   (the previous state is released first). A fork child is asked
 *   whether or not its parent was yours. The process is alive: read
 *   /proc/PID/exe, its maps (proc->maps, which is empty right after an
 *   exec: then the files under proc->proc_root), its memory. Returns a
 *   state of its own for this process when the runtime runs in it, else
 *   NULL. The first entry of the table whose detect returns a state owns
 *   the process; the others are not asked again until it execs.
 * - bpf_params(run, proc, buf, cap): BPF backend: the bytes (at most
 *   cap) the kernel program needs to read this process's runtime frames
 *   (a map from pid to runtime parameters: offsets, the interpreter
 *   state's address); returns how many, 0 for none. The program walks
 *   the frames at the sample and stores them beside the stacks; they
 *   reach sample() as struct runtime_sample.payload (Python:
 *   python.bpf.h and bpf_python.c, the only kernel side so far; the
 *   bytes are its struct python_walk_params).
 * - sample(run, proc, smp, tokens, cap): a sample of an owned process, as
 *   it is collected (the process is most likely alive: its memory can be
 *   read now, not later). Appends up to cap tokens, 64-bit values that
 *   mean something to the runtime only (an interned (code object, line)
 *   pair, an index into its own table), leaf first; returns how many.
 *   Tokens must mean the same in every process and outlive proc: merge
 *   runs after exit, with run alone, so name what the process's memory
 *   says now (python_frame_name) and intern it in run (a token is then
 *   an index into run's names, with the line if wanted).
 *   Tokens are part of the stack's identity: samples with the same
 *   native frames and the same tokens are counted as one stack.
 * - payload_now(run, proc, smp, buf, cap): perf backend (no program at
 *   the sample): what the BPF program would have sent for sample smp
 *   (its pid, tid, and user registers and stack copy when it has them;
 *   no stacks, no payload), read from user space now, as soon as the
 *   sample is read from its ring (at most cap bytes; returns how many).
 *   The sample then carries it as its payload, as a BPF sample would.
 *   What is read now may be newer than the sample: the registers and
 *   stack say what ran then.
 * - exit(run, proc, pid): the process exited (a backend saw its exit) or
 *   the recording ended with it alive: the last call for proc, which the
 *   runtime frees here. Read what a runtime writes at exit now (a perf
 *   map: /tmp/perf-PID.map). Runs before naming.
 * - sampling_end(run): sampling has ended and a command has not been
 *   stopped yet: a last look at the live processes (a JVM's last
 *   perf-map dump). Runs before exit().
 * - await_exit(run): right after sampling_end: true when a process
 *   the runtime met needs its exit seen before naming (a JVM writes its
 *   perf map as it exits with -XX:+DumpPerfMapAtExit, and the maps its
 *   dumps made are removed once it is gone). record then waits for the
 *   command's exit (within the grace period, or until a second Ctrl-C)
 *   before it builds and writes the output; without such a runtime the
 *   output is written first (doc/recording.md).
 * - perfmaps(run, add, arg): before naming: perf-map lines the runtime
 *   knows for a process beyond its /tmp/perf-PID.map (what every dump of
 *   a JVM's map gave, since each dump replaces the last), as
 *   add(arg, pid, text, len) calls; JIT frames are then named from both.
 * - merge(run, stack, emit, arg): the naming step, at the end of the
 *   recording (after every exit), once per distinct stack that carries
 *   tokens: stack->native are the names the native user frames got (root
 *   first, after the stackcollapse rules), stack->tokens what sample()
 *   returned. Calls emit(arg, name, len) for each frame of the stack's
 *   user part, root first: its own frames where they replace native ones
 *   (an interpreter's eval loop), native ones elsewhere. (sample() is
 *   asked only when there is a merge() to name its tokens.)
 * - source(run, name, len, out): naming, for pprof output (opts->sites):
 *   a frame name merge() emitted, and where it is in the program's source
 *   (the function's name, its file, its first line), into out; false when
 *   the name is not one of the runtime's frames.
 * - summary(run, buf, cap): after naming: a line for the summary on
 *   stderr ("python: 3 processes, 92% of their samples named"), or "".
 * - close(run): the end; free what open allocated.
 *
 * Memory read from another process is untrusted input: bound every
 * length, check every pointer, never crash on garbage. */
#ifndef SCORCH_RECORD_RUNTIME_H
#define SCORCH_RECORD_RUNTIME_H

#include "record/record.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct procmaps;

/* A process as detect() meets it. */
struct runtime_process {
	uint32_t pid;
	const char *proc_root;       /* "/proc", or a test's copy of it */
	const struct procmaps *maps; /* its mappings as read so far (addrspace/procmaps.h) */
};

/* One sample of an owned process, as sample() sees it (leaf first). */
struct runtime_sample {
	uint32_t pid, tid;
	uint64_t time;               /* CLOCK_MONOTONIC ns, 0 when unknown */
	const uint64_t *user;        /* native user frames (return addresses) */
	uint32_t nr_user;
	uint64_t regs_abi, regs_mask; /* the user registers and stack copy, if any */
	const uint64_t *regs;
	const uint8_t *stack;
	size_t stack_len;
	const void *payload;         /* what the BPF program read for it (bpf_params), or NULL */
	size_t payload_len;
	/* user[i]'s frame pointer (rbp) at the sample, 0 when not known:
	 * from the DWARF walk, then along the frame-pointer chain in the
	 * stack copy (addrspace/unwind.h: unwind_frame_pointers); NULL
	 * without a stack copy */
	const uint64_t *user_fp;
	uint32_t stack_holes;        /* bit i: the i-th page from the sp's page is not in the copy */
};

/* One distinct stack at naming time (stacks of several processes are one
 * when their frames and tokens are the same, unless -p/--tid keep them
 * apart: tokens must mean the same in every process). */
struct runtime_stack {
	const char *const *native;   /* native user frames' names, root first */
	uint32_t nr_native;
	const uint64_t *tokens;      /* sample()'s tokens, leaf first */
	uint32_t nr_tokens;
	bool whole;                  /* the native frames reach a thread's start (no root end lost) */
};

/* Where a runtime frame is in its source (source()). */
struct runtime_source {
	const char *function, *file; /* NUL-terminated; file may be "" */
	int line;                    /* the function's first line, 0 when unknown */
};

struct record_runtime {
	const char *name;            /* "python", "java": messages, the summary */
	void *(*open)(const struct record_opts *opts);
	void *(*detect)(void *run, const struct runtime_process *proc);
	size_t (*bpf_params)(void *run, void *proc, void *buf, size_t cap);
	uint32_t (*sample)(void *run, void *proc, const struct runtime_sample *smp, uint64_t *tokens,
			   uint32_t cap);
	void (*exit)(void *run, void *proc, uint32_t pid);
	void (*sampling_end)(void *run);
	bool (*await_exit)(void *run);
	void (*perfmaps)(void *run, void (*add)(void *arg, uint32_t pid, const char *text, size_t len),
			 void *arg);
	size_t (*payload_now)(void *run, void *proc, const struct runtime_sample *smp, void *buf, size_t cap);
	void (*merge)(void *run, const struct runtime_stack *stack,
		     void (*emit)(void *arg, const char *name, size_t len), void *arg);
	bool (*source)(void *run, const char *name, size_t len, struct runtime_source *out);
	void (*summary)(void *run, char *buf, size_t cap);
	void (*close)(void *run);
};

/* ---- The set the collector keeps (runtimes.c) ---- */

/* Most tokens one sample carries. */
enum { RUNTIME_MAX_TOKENS = 1024 };

struct runtime_set;
/* The runtimes of the table, opened (NULL when the table is empty: every
 * call below accepts NULL and does nothing). table: NULL for runtimes.c's
 * own; tests pass theirs. */
struct runtime_set *runtime_set_open(const struct record_opts *opts, const struct record_runtime *const *table,
				     size_t nr);
/* A process met: detect it unless known. fresh: it was just created
 * (fork) or replaced its program (exec): its previous state, if any, is
 * released and it is detected again. */
void runtime_set_meet(struct runtime_set *set, const struct runtime_process *proc, bool fresh);
/* Which runtime owns pid: its index + 1, 0 for none. */
uint32_t runtime_set_owner(const struct runtime_set *set, uint32_t pid);
/* sample() of pid's owner; returns the tokens written (0 without one). */
uint32_t runtime_set_sample(struct runtime_set *set, const struct runtime_sample *smp, uint64_t *tokens,
			    uint32_t cap);
/* bpf_params() of pid's owner (0 without one). */
size_t runtime_set_bpf_params(struct runtime_set *set, uint32_t pid, void *buf, size_t cap);
/* payload_now() of pid's owner (0 without one). */
size_t runtime_set_payload_now(struct runtime_set *set, const struct runtime_sample *smp, void *buf, size_t cap);
/* Processes owned since the last call (for the BPF program's table):
 * at most max pids into pids; how many. */
size_t runtime_set_take_owned(struct runtime_set *set, uint32_t *pids, size_t max);
/* Does a runtime own a process (or did one)? */
bool runtime_set_any(const struct runtime_set *set);
/* pid exited: exit() of its owner. */
void runtime_set_exit(struct runtime_set *set, uint32_t pid);
/* pid's exit was seen and its samples taken: the set forgets it (a
 * process later with the same pid is met afresh). */
void runtime_set_forget(struct runtime_set *set, uint32_t pid);
/* The end of sampling: exit() of every process still owned. */
void runtime_set_end(struct runtime_set *set);
/* sampling_end() of every runtime. */
void runtime_set_sampling_end(struct runtime_set *set);
/* Whether a runtime's await_exit() is true. */
bool runtime_set_await_exit(struct runtime_set *set);
/* perfmaps() of every runtime. */
void runtime_set_perfmaps(struct runtime_set *set, void (*add)(void *arg, uint32_t pid, const char *text, size_t len),
			  void *arg);
/* merge() of runtime owner (runtime_set_owner's value) for one stack. */
void runtime_set_merge(struct runtime_set *set, uint32_t owner, const struct runtime_stack *stack,
		      void (*emit)(void *arg, const char *name, size_t len), void *arg);
/* source() of runtime owner for one frame name merge() emitted. */
bool runtime_set_source(struct runtime_set *set, uint32_t owner, const char *name, size_t len,
			struct runtime_source *out);
/* Every runtime's summary line, each ending in a newline, into buf. */
void runtime_set_summary(struct runtime_set *set, char *buf, size_t cap);
void runtime_set_close(struct runtime_set *set);

#endif
