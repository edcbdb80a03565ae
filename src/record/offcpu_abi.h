/* What offcpu.bpf.c (record --off-cpu on the eBPF backend) shares with
 * user space (bpf_offcpu.c), beside profile_abi.h's key and limits. */
#ifndef SCORCH_RECORD_OFFCPU_ABI_H
#define SCORCH_RECORD_OFFCPU_ABI_H

#include "profile_abi.h"

/* Task states counted (the `states` bit set). */
#define OFFCPU_STATE_S 1 /* interruptible sleep */
#define OFFCPU_STATE_D 2 /* uninterruptible sleep (not TASK_IDLE kernel workers) */
#define OFFCPU_STATE_R 4 /* --wall: runnable (preempted, R+, or yielded, R), in `runnable_counts` */

#define OFFCPU_START_ENTRIES 16384 /* threads off the CPU at once */

/* The value of `counts` (keyed by struct profile_key): blocked time. */
struct offcpu_sum {
	__u64 ns;
	__u64 blocks;
};

/* A thread off the CPU now (`start`, by tid): since when, and its key. */
struct offcpu_start {
	__u64 time; /* bpf_ktime_get_ns: CLOCK_MONOTONIC */
	struct profile_key key;
	__u32 copied; /* its user stack went out in a profile_ustack */
	__u32 runnable; /* switched out runnable (OFFCPU_STATE_R) */
	__u64 runtime; /* its CPU time then (se.sum_exec_runtime, ns) */
};

/* --wakers: who woke a blocked thread (sched_waking runs in the waker's
 * context): its ids and stacks, as it was when it woke the thread. From
 * an interrupt, the interrupted task's (often the idle task, pid 0). */
struct offcpu_waker {
	__u32 pid;  /* tgid */
	__u32 tid;
	__s32 user_stack;
	__s32 kernel_stack;
	char comm[PROFILE_COMM_LEN];
};

/* The key of `wake_counts` (--wakers): the blocked stack, its waker's. */
struct offcpu_wake_key {
	struct profile_key key;
	struct offcpu_waker waker;
};

/* DWARF (--call-graph auto, dwarf): at switch-out the program sends the
 * thread's registers and user stack (a struct profile_ustack with off_cpu
 * set) through the ring buffer; at switch-in, this record with the time it
 * was blocked, which user space joins to the copy (same tid and time).
 * Blocks the minimum or maximum leave out send none. */
struct offcpu_end {
	__u64 time; /* the switch-out's, as in the copy */
	__u64 ns;
	__u32 pid;
	__u32 tid;
	struct offcpu_waker waker; /* --wakers; else pid 0 and no stacks */
};

/* Indices of the per-CPU statistics array. */
enum offcpu_stat {
	OFFCPU_STAT_BLOCKS,         /* blocked intervals counted */
	OFFCPU_STAT_FILTERED,       /* ...left out by the minimum or maximum */
	OFFCPU_STAT_USER_EEXIST,    /* user stack lost: stack-map collision */
	OFFCPU_STAT_USER_ENOMEM,    /* user stack lost: stack map full */
	OFFCPU_STAT_KERNEL_EEXIST,  /* kernel stack lost: stack-map collision */
	OFFCPU_STAT_KERNEL_ENOMEM,  /* kernel stack lost: stack map full */
	OFFCPU_STAT_START_FULL,     /* switch-out not remembered: too many threads off the CPU */
	OFFCPU_STAT_COUNTS_FULL,    /* interval dropped: counts hash full */
	OFFCPU_STAT_COPIED,         /* user stacks copied out at switch-out */
	OFFCPU_STAT_COPY_FULL,      /* ...refused by a full ring: frame pointers used */
	OFFCPU_STAT_END_FULL,       /* end record refused: counted without user frames */
	OFFCPU_STAT_IN_UNSEEN,      /* switch-in not seen: ended at the next switch-out less the CPU time since */
	OFFCPU_STAT_NR
};

#endif
