/* The collector the backends feed (record-private): raw samples in,
 * aggregated by content into distinct stacks, each unwound (DWARF) and
 * interned once; at the end (or while sampling runs) naming.c turns them
 * into profile nodes. Backends know nothing about symbols or output: they
 * hand over struct record_sample and the processes' comm/fork/mmap events.
 *
 * Calls go one way: backends -> recorder.c -> naming.c, runtimes.c ->
 * symbols.c, addrspace/, profile/. */
#ifndef SCORCH_RECORD_RECORDER_H
#define SCORCH_RECORD_RECORDER_H

#include "record/record.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct recorder;
struct symbols;

/* One sample or one in-kernel aggregate. Stacks are leaf first. */
struct record_sample {
	uint32_t pid, tid, cpu;
	/* When it was taken: CLOCK_MONOTONIC ns (perf's clock, which every
	 * ring is opened with, and bpf_ktime_get_ns's), 0 when unknown (the
	 * BPF backend's in-kernel aggregates and spills). */
	uint64_t time;
	uint64_t weight;        /* number of samples (or off-CPU blocks) this stands for */
	uint64_t ns;            /* off_cpu: nanoseconds blocked (see record.h's contract) */
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
	/* Bytes a runtime's kernel-side reader sent after the stack copy
	 * (runtime.h), or NULL. */
	const void *payload;
	size_t payload_len;
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
/* A process (pid == tid) or thread exited. Its state is dropped at the
 * second recorder_reap from now: the backend calls that once no sample
 * of what exited can still come, bar what is read a call late (the perf
 * backend: after a round of its rings, which hands records over in time
 * order; the BPF backend: after its in-kernel counts were read too).
 * Its stacks stay, kept by file. */
void recorder_exit(struct recorder *r, uint32_t pid, uint32_t tid);
void recorder_reap(struct recorder *r);
/* Has pid exited since the last recorder_reap? */
bool recorder_exiting(const struct recorder *r, uint32_t pid);
/* What the collector holds now (tests, and bench/record-churn.sh's
 * reasoning): live address spaces and mappings, images, distinct stacks,
 * threads named, processes forgotten so far. */
struct recorder_held {
	uint32_t spaces, mappings, images, stacks, threads;
	uint64_t reaped;
};
void recorder_held(const struct recorder *r, struct recorder_held *h);
/* A pid seen for the first time: capture /proc/PID/maps while it lives. */
void recorder_seen(struct recorder *r, uint32_t pid);
/* Read /proc/PID/maps again if it lives (libraries loaded late). */
void recorder_refresh(struct recorder *r, uint32_t pid);
bool recorder_knows(const struct recorder *r, uint32_t pid);
/* Runtimes (runtime.h), as the backends see them. Does a runtime own a
 * process (the perf backend reads its rings more often then)? */
bool recorder_runtimes_active(const struct recorder *r);
/* Does a runtime own pid? */
bool recorder_runtime_owns(const struct recorder *r, uint32_t pid);
/* Processes a runtime owns since the last call: at most max pids. */
size_t recorder_runtimes_owned(struct recorder *r, uint32_t *pids, size_t max);
/* What the BPF program needs for pid's runtime (bpf_params), 0 for none. */
size_t recorder_runtime_params(struct recorder *r, uint32_t pid, void *buf, size_t cap);
/* perf: the payload of sample s (pid, tid, user registers and stack
 * copy: the rest is not read) read now (payload_now). */
size_t recorder_runtime_payload_now(struct recorder *r, const struct record_sample *s, void *buf, size_t cap);
/* A process just sampled: if no runtime owns it, offer it to them again
 * when its executable changed (an exec whose record is still on its way)
 * or a second went by (a runtime library loaded late). */
void recorder_runtime_recheck(struct recorder *r, uint32_t pid);
/* Does it unwind user stacks with DWARF (samples should carry regs and a
 * stack copy)? If not while asked to, why not (else NULL). */
bool recorder_unwinds(const struct recorder *r);
const char *recorder_unwind_note(const struct recorder *r);
uint64_t recorder_samples(const struct recorder *r);

/* A recorder on its own (the run makes one; so do tests and fuzzers).
 * proc_root replaces "/proc" for the maps and names it reads (NULL: /proc). */
struct recorder *recorder_new(const struct record_opts *opts, const char *proc_root);
void recorder_free(struct recorder *r);
/* Tests: use these runtimes (runtime.h) instead of runtimes.c's table. */
struct record_runtime;
void recorder_use_runtimes(struct recorder *r, const struct record_runtime *const *table, size_t nr);
/* Symbolize what was collected into p (record_run does this at the end). */
void recorder_build(struct recorder *r, struct profile *p);
/* Symbolize stacks into p as they come in, from now on, so that little is
 * left for recorder_build (the same profile) when sampling ends. Kernel
 * frames are named from kernel_syms once *kernel_ready (NULL: now). Stacks
 * through JIT code still wait for the end (their names grow meanwhile),
 * and so does everything with --off-cpu (a stack's node depends on its
 * total time). Node ids then follow the order stacks were built in. */
void recorder_build_early(struct recorder *r, struct profile *p, struct symbols *kernel_syms,
			  const atomic_bool *kernel_ready);
/* The end of the run, for record_run: every stack into p (kernel frames
 * from kernel_syms), then the collector's figures into stats. */
/* Sampling has ended, a command is still running: the runtimes' last
 * look (runtime.h: sampling_end); true when one of them asks that the
 * command's exit be awaited before naming (runtime.h: await_exit). */
bool recorder_sampling_ended(struct recorder *r);
/* --every (record_opts.every_ns): every sample taken before mono
 * (CLOCK_MONOTONIC ns) has been handed over: cut the intervals that
 * ended by then (record_opts.on_interval). recorder_sample cuts too,
 * when a sample comes from past the next cut. The next cut, in the same
 * clock (0: none). */
void recorder_advance(struct recorder *r, uint64_t mono);
uint64_t recorder_next_cut(const struct recorder *r);
void recorder_finish(struct recorder *r, struct profile *p, struct symbols *kernel_syms,
		     struct record_stats *stats);

#endif
