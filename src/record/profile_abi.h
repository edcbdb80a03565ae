/* The only types shared by the BPF program (profile.bpf.c) and user space
 * (bpf.c). Fixed-width kernel types so both compilers agree on the layout. */
#ifndef SCORCH_RECORD_PROFILE_ABI_H
#define SCORCH_RECORD_PROFILE_ABI_H

#include <linux/types.h>

#define PROFILE_COMM_LEN 16
#define PROFILE_MAX_DEPTH 127       /* frames per stack, as perf's default */
#define PROFILE_STACK_ENTRIES 16384 /* stack-trace map entries (bcc's default) */
#define PROFILE_COUNT_ENTRIES 40960 /* distinct keys in the counts hash */
#define PROFILE_FILTER_ENTRIES 1024 /* pids or tids to sample */

/* One aggregation key. A stack id is >= 0, or a negative errno from
 * bpf_get_stackid (-EFAULT: no such stack, -EEXIST: hash collision,
 * -ENOMEM: map full); PROFILE_NO_STACK when that side was not asked for. */
struct profile_key {
	__u32 pid;  /* tgid */
	__u32 tid;  /* 0 unless per-thread keys were asked for */
	__u32 cpu;  /* 0 unless per-CPU keys were asked for */
	__s32 user_stack;
	__s32 kernel_stack;
	char comm[PROFILE_COMM_LEN];
};

#define PROFILE_NO_STACK (-1000)

/* A sample whose stack could not be stored in the stack map (hash bucket
 * taken by another stack): the program sends it whole, stacks included,
 * through a perf event array instead of counting it, so nothing is lost.
 * nr_* are frame counts (bpf_get_stack's byte counts / 8; 0 when absent). */
struct profile_spill {
	__u32 pid;
	__u32 tid;
	__u32 cpu;
	__u32 nr_user;
	__u32 nr_kernel;
	char comm[PROFILE_COMM_LEN];
	__u32 pad;
	__u64 user[PROFILE_MAX_DEPTH];
	__u64 kernel[PROFILE_MAX_DEPTH];
};

/* Indices of the per-CPU statistics array. */
enum profile_stat {
	PROFILE_STAT_SAMPLES,       /* program runs that were counted */
	PROFILE_STAT_USER_EEXIST,   /* user stack collided (then spilled, or lost) */
	PROFILE_STAT_USER_ENOMEM,   /* user stack lost: stack map full */
	PROFILE_STAT_KERNEL_EEXIST, /* kernel stack collided (then spilled, or lost) */
	PROFILE_STAT_KERNEL_ENOMEM, /* kernel stack lost: stack map full */
	PROFILE_STAT_COUNTS_FULL,   /* sample dropped: counts hash full */
	PROFILE_STAT_SPILLED,       /* sent whole after a collision */
	PROFILE_STAT_NR
};

#endif
