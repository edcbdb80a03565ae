/* The only types shared by the BPF program (profile.bpf.c) and user space
 * (bpf_profile.c, bpf_backend.c, bpf_stacks.c). Fixed-width kernel types
 * so both compilers agree on the layout. */
#ifndef SCORCH_RECORD_PROFILE_ABI_H
#define SCORCH_RECORD_PROFILE_ABI_H

#include <linux/types.h>

#define PROFILE_COMM_LEN 16
#define PROFILE_MAX_DEPTH 127       /* frames per stack, as perf's default */
#define PROFILE_STACK_ENTRIES 16384 /* stacks kept at least (bcc's default) */
#define PROFILE_COUNT_ENTRIES 40960 /* distinct keys in the counts hash */
#define PROFILE_FILTER_ENTRIES 1024 /* pids or tids to sample */
#define PROFILE_NEW_PIDS 4096       /* pids counted since user space last looked */

/* profile.bpf.c keeps its stacks (kernel and user) in hash maps of its own,
 * keyed by a hash of the frames it computes, one map per size class so
 * that a short stack takes a small allocation (the maps allocate an entry
 * when a stack is first seen: kernel memory grows with distinct stacks).
 * A stack id is (class << PROFILE_CLASS_SHIFT) | 29 bits of hash: -EEXIST
 * only when two different stacks share a class and 29 bits (chained
 * buckets: no collision on a shared bucket). Class values hold up to
 * PROFILE_CLASS_FRAMES_n frames, zero-filled. offcpu.bpf.c stores its
 * stacks in the same maps. */
#define PROFILE_CLASS_SHIFT 29
#define PROFILE_CLASSES 3
#define PROFILE_CLASS_FRAMES_0 24  /* 192-byte value: a 256-byte slab object */
#define PROFILE_CLASS_FRAMES_1 56  /* 448: 512 */
#define PROFILE_CLASS_FRAMES_2 PROFILE_MAX_DEPTH /* 1016: 2048 */

/* One aggregation key. A stack id is >= 0, or a negative errno
 * (-EFAULT: no such stack, -EEXIST: hash collision, -ENOMEM: map full);
 * PROFILE_NO_STACK when that side was not asked for. */
struct profile_key {
	__u32 pid;  /* tgid */
	__u32 tid;  /* 0 unless per-thread keys were asked for */
	__u32 cpu;  /* 0 unless per-CPU keys were asked for */
	__s32 user_stack;
	__s32 kernel_stack;
	char comm[PROFILE_COMM_LEN];
	__s32 python_stack; /* CPython frames in py_stacks (python.bpf.h): id > 0, 0 none, or -errno */
	/* When time is asked (time_cell_ns set): 1 + the sample's time cell,
	 * (bpf_ktime_get_ns() - time_base) / time_cell_ns, so that counts
	 * are per (cell, stack); 0 otherwise (one key per stack, as before). */
	__u32 cell;
};

#define PROFILE_NO_STACK (-1000)

/* A sample that could not be counted in the kernel (its stack's hash
 * taken by another stack, a stack map or the counts hash full): the
 * program sends it whole, stacks included, through a perf event array
 * instead, so nothing is lost.
 * nr_* are frame counts (bpf_get_stack's byte counts / 8; 0 when absent). */
struct profile_spill {
	__u32 pid;
	__u32 tid;
	__u32 cpu;
	__u32 nr_user;
	__u32 nr_kernel;
	char comm[PROFILE_COMM_LEN];
	__s32 python_stack; /* as in profile_key */
	__u64 time;         /* bpf_ktime_get_ns: CLOCK_MONOTONIC */
	__u64 user[PROFILE_MAX_DEPTH];
	__u64 kernel[PROFILE_MAX_DEPTH];
};

/* A sample whose user stack is unwound in user space (--call-graph auto or
 * dwarf): the user registers and a copy of the user stack, sent through
 * the `ustacks` ring buffer; the kernel stack stays in the stack map (its
 * id), or comes inline when its bucket was taken. Only the first
 * PROFILE_USTACK_HEAD + stack_len bytes are sent. Registers are in
 * perf_regs order (ax bx cx dx si di bp sp ip r8..r15). */
#define PROFILE_USTACK_MAX 65536   /* the most stack bytes one sample copies */
#define PROFILE_USTACK_REGS 17
struct profile_ustack {
	__u64 time;         /* bpf_ktime_get_ns: CLOCK_MONOTONIC */
	__u32 pid;
	__u32 tid;
	__u32 cpu;
	__s32 kernel_stack; /* stack id, PROFILE_NO_STACK, or -errno */
	char comm[PROFILE_COMM_LEN];
	__u32 nr_user;      /* frame-pointer chain (auto), for joining */
	__u32 nr_kernel;    /* inline kernel frames (kernel_stack -EEXIST) */
	__u32 stack_len;
	__u32 off_cpu;      /* offcpu.bpf.c: a thread's stack as it blocked (its
			       struct offcpu_end follows when it runs again);
			       PROFILE_USTACK_RUNNABLE: switched out runnable */
	__u32 stack_holes;  /* bit i: the i-th page from sp's page could not be
			       read (never touched, so not present): its bytes
			       in stack[] are not the stack's */
	__s32 python_stack; /* as in profile_key (on-CPU samples; 0 for offcpu.bpf.c's) */
	__u64 off_cpu_ns;   /* ...the time it was blocked, set in user space */
	__u64 regs[PROFILE_USTACK_REGS];
	__u64 user[PROFILE_MAX_DEPTH];
	__u64 kernel[PROFILE_MAX_DEPTH];
	__u8 stack[PROFILE_USTACK_MAX + 8192]; /* + slack for the verifier */
};
#define PROFILE_USTACK_RUNNABLE 2 /* off_cpu: a --wall wait for a CPU */
#define PROFILE_USTACK_HEAD (sizeof(struct profile_ustack) - PROFILE_USTACK_MAX - 8192)

/* Indices of the per-CPU statistics array. */
enum profile_stat {
	PROFILE_STAT_SAMPLES,       /* samples counted in the kernel */
	PROFILE_STAT_USER_EEXIST,   /* user stack collided (then spilled, or lost) */
	PROFILE_STAT_USER_ENOMEM,   /* user stack map full (then spilled, or lost) */
	PROFILE_STAT_KERNEL_EEXIST, /* kernel stack collided (then spilled, or lost) */
	PROFILE_STAT_KERNEL_ENOMEM, /* kernel stack map full (then spilled, or lost) */
	PROFILE_STAT_COUNTS_FULL,   /* counts hash full (then spilled, or lost) */
	PROFILE_STAT_SPILLED,       /* sent whole, not counted in the kernel */
	PROFILE_STAT_LOST,          /* could be neither counted nor sent */
	PROFILE_STAT_COPIED,        /* user stack copied out for unwinding */
	PROFILE_STAT_COPY_FULL,     /* ring buffer full: counted with frame pointers */
	PROFILE_STAT_NR
};

#endif
