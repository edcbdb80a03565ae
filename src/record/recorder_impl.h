/* Inside the collector (record-private): the distinct raw stacks and the
 * tables they point into, shared by recorder.c (which fills them),
 * processes.c (the process table they name) and the naming step
 * (naming*.c, which turns them into profile nodes). Nothing else includes
 * this: backends see recorder.h only. */
#ifndef SCORCH_RECORD_RECORDER_IMPL_H
#define SCORCH_RECORD_RECORDER_IMPL_H

#include "addrspace/procmaps.h"
#include "base/hashmap.h"
#include "base/strpool.h"
#include "profile/profile.h"
#include "profile/time_cells.h"
#include "record/images.h"
#include "record/recorder.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct builder;
struct runtime_set;
struct sym_inline;
struct unwinder;

enum {
	STACK_USER_MISSING = 1,
	STACK_KERNEL_MISSING = 2,
	STACK_USER_TRUNCATED = 4,
	STACK_KERNEL_TRUNCATED = 8,
	STACK_USER_COMPLETE = 16,
	STACK_OFF_CPU = 32,          /* --wall: time switched out, not a sample */
	STACK_WAKER = 64,            /* --wakers: the waker's frames follow */
	STACK_RUNNABLE = 128,        /* --wall: switched out runnable, waiting for a CPU */
};

/* One distinct raw stack. Frames live in recorder.frames: the user part
 * (image refs, images.h: the same in every process, leaf first) then the kernel part (addresses, leaf
 * first); callers' return addresses are already moved back by one byte so
 * they land inside the calling function. */
struct rstack {
	uint64_t hash;
	uint64_t count;
	uint64_t ns;                 /* --off-cpu/--wall: time this stack stands for */
	uint32_t pid, tid, cpu, comm;
	uint32_t nr_user, nr_kernel;
	uint32_t nr_dwarf;           /* leading user frames unwound with DWARF */
	/* --wakers: who woke the thread; its user part, then its kernel
	 * part, follow the thread's frames (leaf first too). */
	uint32_t waker_pid, waker_comm, nr_waker_user, nr_waker_kernel;
	/* A runtime's tokens for the stack (runtime.h), after all the frames;
	 * runtime: its owner (runtime_set_owner), 0 for none. */
	uint32_t runtime, nr_tokens;
	size_t frames;
	uint32_t flags;
	node_t leaf;                 /* its profile node once built, else 0 */
	bool later;                  /* goes through code named at the end (JIT) */
	bool has_user, reached;      /* set when built: a user part, reaching a thread's start */
};

/* --every (recorder_cut.c): the first interval begins now. */
void recorder_intervals_begin(struct recorder *r);

static inline uint32_t rstack_frames(const struct rstack *s)
{
	return s->nr_user + s->nr_kernel + s->nr_waker_user + s->nr_waker_kernel + s->nr_tokens;
}

struct order_event {
	uint64_t time;
	uint32_t stack;
	uint32_t seq;
};

struct recorder {
	const struct record_opts *opts;
	struct procmaps maps;       /* the live processes' (recycle) */
	struct images images;       /* what user frames are kept against */
	/* Threads and processes that exited since recorder_reap last ran,
	 * as (pid, tid) pairs; exiting: their pids. */
	uint32_t *gone;
	size_t nr_gone, alloc_gone;
	size_t reap_from;           /* the next recorder_reap forgets gone[0, reap_from) */
	struct hashmap exiting;
	uint64_t reaped;            /* processes forgotten so far */
	/* --every: the profile stacks are built into, the kernel's symbols,
	 * the next cut (wall clock and CLOCK_MONOTONIC ns, 0: none), where
	 * the interval began, and the samples before it. */
	struct profile *out;
	struct symbols *kernel_syms;
	uint64_t cut_wall, cut_mono, interval_start, interval_base, intervals;
	/* CLOCK_MONOTONIC and CLOCK_REALTIME read together at the last cut
	 * (or the start): the two advance alike unless the wall clock is
	 * stepped (recorder_cut.c) */
	uint64_t interval_mono, interval_real;
	uint64_t tables_dropped;    /* files' symbol and unwind tables dropped for their budgets, at the last trim */
	uint64_t trimmed_at;        /* intervals at the last trim (recorder_cut.c) */
	struct strpool comms;
	struct hashmap comm_by_tid; /* tid -> comms id */
	struct rstack *stacks;
	uint32_t nr_stacks, alloc_stacks;
	struct hashmap by_hash;     /* hash -> stacks index (probing on clash) */
	uint64_t *frames;
	size_t nr_frames, alloc_frames;
	uint64_t *scratch;          /* one sample's frames */
	uint64_t *tokens;           /* one sample's runtime tokens (RUNTIME_MAX_TOKENS) */
	size_t alloc_scratch;
	struct order_event *events; /* keep_order only */
	size_t nr_events, alloc_events;
	struct time_cells *times;   /* keep_time: counts per (cell, stack index) */
	bool untimed;               /* keep_time: a sample came without a time */
	uint64_t samples;
	uint64_t blocks, block_ns;  /* the off-CPU part of samples, and its time */
	uint64_t waits, wait_ns;    /* --wall: the runnable part of samples, and its time */
	struct unwinder *unwinder; /* NULL: frame pointers only */
	/* User frames are named from here; each file's symbols are read the
	 * first time one of its addresses enters a new stack, while sampling
	 * runs, so that little is left to do when it ends. */
	struct symbols *user_syms;
	struct hashmap named;       /* user ref -> index in names, or NAMED_LATER */
	struct user_name {
		const char *name;   /* in name_text */
		const char *module; /* owned by user_syms or maps */
		uint32_t inlines, nr_inlines; /* a DWARF frame's expansion, in inlines */
	} *names;
	size_t nr_names, alloc_names;
	struct sym_inline *inlines; /* names in name_text, innermost first */
	size_t nr_inlines, alloc_inlines;
	/* The function names of names and inlines, copied: user_syms keeps
	 * a file's symbols only while they fit its budget (symbols.h). */
	struct strpool name_text;
	uint64_t *unwound;          /* one sample's DWARF-unwound frames */
	uint64_t *unwound_fp;       /* their frame pointers (0: unknown), then the chain's (runtime_tokens) */
	size_t nr_unwound_alloc, nr_unwound_fp_alloc;
	uint64_t nr_unwound;        /* samples unwound with DWARF */
	uint64_t user_samples, reached; /* set by build_profile */
	/* Stacks become profile nodes while sampling runs, as they come in
	 * (recorder_build_early), once the kernel's symbols are loaded; those
	 * through JIT code wait for the end, when its names are known. */
	struct builder *builder;    /* NULL: everything is built at the end */
	const atomic_bool *kernel_ready;
	uint32_t nr_examined;       /* stacks built early or left for the end */
	uint32_t nr_built_late;     /* stacks built after sampling ended */
	/* Stacks folded into the builder's profile while sampling runs
	 * (recorder_fold.c): how many, their leaves (a byte per profile
	 * node, for the named count), whether their times went into the
	 * profile's table, and the raw tables' bytes at which the next fold
	 * is due. */
	uint64_t nr_folded;
	uint8_t *folded_leaves;
	size_t alloc_folded_leaves;
	bool times_folded;
	size_t fold_at;
	struct runtime_set *runtimes; /* runtimes.c: per-process runtime state */
	/* Processes no runtime owns, as last looked at (recorder_runtime_recheck). */
	struct hashmap looked;      /* pid -> index in look */
	struct looked { uint64_t exe, ns; } *look;
	size_t nr_look, alloc_look;
	uint32_t *free_look;        /* entries of forgotten processes */
	size_t nr_free_look, alloc_free_look;
};

/* Folding (recorder_fold.c): the stacks already built, their counts and
 * times moved into the builder's profile, leave the raw tables, so that
 * what a long recording holds follows its named stacks. Due when the raw
 * tables pass r->fold_at bytes; only between samples (stack indices
 * change); recorder_fold_reset: the profile was handed over (a cut). */
bool recorder_fold_due(const struct recorder *r);
void recorder_fold(struct recorder *r);
void recorder_fold_reset(struct recorder *r);
/* Whether leaf (of the builder's profile) was a folded stack's. */
bool recorder_folded_leaf(const struct recorder *r, node_t leaf);

/* The process table (processes.c), below recorder.c's stacks. */
/* A process met (fresh: just forked or exec'ed): the runtimes look at it
 * (runtime.h). */
void recorder_meet(struct recorder *r, uint32_t pid, bool fresh);
/* comm (up to 16 bytes, as the kernel keeps it) in r->comms. */
uint32_t recorder_intern_comm(struct recorder *r, const char *comm);
/* The comm of thread tid of pid: as an event named it, else read now. */
uint32_t recorder_comm_of(struct recorder *r, uint32_t pid, uint32_t tid);

#endif
