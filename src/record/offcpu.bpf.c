// SPDX-License-Identifier: GPL-2.0-or-later
/* Kernel side of `record --off-cpu` on the eBPF backend: time blocked per
 * stack, summed in the kernel.
 *
 * At each context switch (tp_btf/sched_switch, which runs while the
 * outgoing task is still current, so its user stack can be walked):
 * - switch-out of a task that goes to sleep in a counted state: remember
 *   when, and its stacks (ids in the size-class maps it shares with
 *   profile.bpf.c) under its tid;
 * - switch-in of a task remembered so: the time it was off the CPU (the
 *   sleep and then the wait on the run queue after its wakeup), kept when
 *   within [min_ns, max_ns], is added in nanoseconds to `counts` under the
 *   same key as the on-CPU profile's (struct profile_key); with --wall, a
 *   task switched out runnable (preempted, or yielded) counts its wait for
 *   a CPU in `runnable_counts` instead.
 * Only the counts and the stacks cross into user space, once, after
 * detaching, as for profile.bpf.c.
 *
 * Task fields are read through CO-RE (the kernel's BTF), from the three
 * fields declared below: no vmlinux.h. */
#include <linux/bpf.h>
#include <linux/types.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <linux/ptrace.h>

#include "offcpu_abi.h"
#include "common.bpf.h"

/* The kernel's task states (include/linux/sched.h), as sched_switch's
 * prev_state gives them; the report mapping below is the one the
 * tracepoint's own text output (and so perf's raw prev_state) uses. */
#define TASK_INTERRUPTIBLE 0x0001
#define TASK_UNINTERRUPTIBLE 0x0002
#define TASK_DEAD 0x0080
#define TASK_NOLOAD 0x0400
#define TASK_IDLE (TASK_UNINTERRUPTIBLE | TASK_NOLOAD)
#define TASK_RTLOCK_WAIT 0x1000
#define TASK_REPORT 0x7f

struct sched_entity {
	__u64 sum_exec_runtime;
} __attribute__((preserve_access_index));

struct task_struct {
	int pid;
	int tgid;
	struct sched_entity se;
} __attribute__((preserve_access_index));

const volatile int want_user = 1;
const volatile int want_kernel = 1;
const volatile int per_tid = 0;
const volatile int per_cpu = 0;
const volatile int filter_pid = 0;  /* only tgids in `pids` (and their forks) */
const volatile int filter_tid = 0;  /* only tids in `tids` */
const volatile __u32 states = OFFCPU_STATE_S | OFFCPU_STATE_D;
const volatile __u64 min_ns = 0;
const volatile __u64 max_ns = 0;    /* 0: no maximum */
const volatile int copy_stack = 0;   /* send user regs + stack (DWARF) */
const volatile int copy_fp = 0;      /* ...with the frame-pointer chain */
const volatile __u32 stack_size = 16384;
const volatile int wakers = 0;       /* --wakers: wake_counts, keyed with the waker */
#ifdef SCORCH_TEST_HOOKS
/* The test-hooks build only (make's $(O)/test-hooks/scorch, for
 * tests/record/t730, SCORCH_TEST_UNSEEN_SWITCH_IN=N): ignore the switch-in
 * of a block that began on a multiple of N us, as when the kernel runs no
 * program for it (see switch_out). 0: never. */
const volatile __u32 test_unseen_every = 0;
#define TEST_UNSEEN(s) (test_unseen_every && (s)->time / 1000 % test_unseen_every == 0)
#else
#define TEST_UNSEEN(s) 0
#endif

/* Time off the CPU per key. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PROFILE_COUNT_ENTRIES);
	__type(key, struct profile_key);
	__type(value, struct offcpu_sum);
} counts SEC(".maps");

/* --wall: time switched out runnable (waiting for a CPU) per key. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PROFILE_COUNT_ENTRIES);
	__type(key, struct profile_key);
	__type(value, struct offcpu_sum);
} runnable_counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OFFCPU_START_ENTRIES);
	__type(key, __u32);
	__type(value, struct offcpu_start);
} start SEC(".maps");

/* The command, a target from its exec on (see on_exec). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u8);
} exec_pids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, OFFCPU_STAT_NR);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

static __always_inline void stat_add(__u32 idx, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &idx);
	if (v)
		*v += n; /* per-CPU slot: no atomic needed */
}

/* The state letter sched_switch reports for prev (S, D, R, or another). */
static __always_inline __u32 state_of(bool preempt, unsigned int prev_state)
{
	if (preempt)
		return OFFCPU_STATE_R; /* R+: preempted, still runnable */
	if ((prev_state & TASK_IDLE) == TASK_IDLE)
		return 0; /* I: an idle kernel worker, not a wait */
	if (prev_state & TASK_DEAD)
		return 0; /* its last switch-out (Z or X: the report bits are in
			     exit_state), not a yield */
	if (prev_state & TASK_RTLOCK_WAIT)
		return OFFCPU_STATE_D;
	__u32 s = prev_state & TASK_REPORT;
	if (s == TASK_INTERRUPTIBLE)
		return OFFCPU_STATE_S;
	if (s == TASK_UNINTERRUPTIBLE || s == (TASK_UNINTERRUPTIBLE | TASK_INTERRUPTIBLE))
		return OFFCPU_STATE_D;
	if (!s)
		return OFFCPU_STATE_R; /* R: yielded, still runnable */
	return 0; /* stopped, traced, dead... */
}

static __always_inline int wanted(__u32 tgid, __u32 tid)
{
	if (!tid)
		return 0; /* the idle task */
	if (filter_pid && !bpf_map_lookup_elem(&pids, &tgid))
		return 0;
	if (filter_tid && !bpf_map_lookup_elem(&tids, &tid))
		return 0;
	return 1;
}

/* The tracepoint's own kernel frames, above the code that hit it: the
 * program's, bpf_trace_runN's, and __traceiter_EVENT's when the
 * tracepoint has other probes too (perf's, another tracer's) and iterates
 * over them. Weak: absent from kallsyms, never matched. */
extern const void __traceiter_sched_switch __ksym __weak;
extern const void __traceiter_sched_waking __ksym __weak;

static __always_inline __u64 tracepoint_skip(void *ctx, const void *traceiter)
{
	__u64 ip[1];
	if (bpf_get_stack(ctx, ip, sizeof(ip), 2) == sizeof(ip) && traceiter && ip[0] - (__u64)traceiter < 512)
		return 3;
	return 2;
}

static __always_inline void stack_error(int id, __u32 eexist, __u32 enomem)
{
	if (id == -EEXIST)
		stat_add(eexist, 1);
	else if (id == -ENOMEM)
		stat_add(enomem, 1);
}

/* Room for a stack per CPU: [0] for sched_switch, [1] for sched_waking,
 * which may run in an interrupt (not while sched_switch holds the run
 * queue's lock, but a slot each needs no such argument). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct stack_frames);
} frames_buf SEC(".maps");

/* The current stack (kernel, or user with BPF_F_USER_STACK; skip in
 * flags) stored in the class maps: its id, or a negative errno. Before,
 * a stack-trace map: one stack per hash bucket, so two stacks that
 * shared a bucket lost the second's every block; the class maps chain
 * their buckets and clash only on 29 bits of hash. */
static __always_inline int take_stack(void *ctx, __u32 slot, __u64 flags)
{
	struct stack_frames *f = bpf_map_lookup_elem(&frames_buf, &slot);
	__u32 nr;
	return f ? stack_id(ctx, f, flags, &nr) : -EFAULT;
}

/* --wakers: the task that wakes a blocked target (see on_waking). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OFFCPU_START_ENTRIES);
	__type(key, __u32);
	__type(value, struct offcpu_waker);
} waker_of SEC(".maps");

/* --wakers: time off the CPU per blocked stack and waker. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PROFILE_COUNT_ENTRIES);
	__type(key, struct offcpu_wake_key);
	__type(value, struct offcpu_sum);
} wake_counts SEC(".maps");

/* try_to_wake_up, in the waker's context: remember it for a target that
 * is blocked (in `start`), until its switch-in. */
SEC("tp_btf/sched_waking")
int BPF_PROG(on_waking, struct task_struct *p)
{
	if (!wakers)
		return 0;
	__u32 tid = p->pid;
	if (!bpf_map_lookup_elem(&start, &tid))
		return 0;
	struct offcpu_waker w = {};
	w.user_stack = w.kernel_stack = PROFILE_NO_STACK;
	if (want_kernel) {
		w.kernel_stack = take_stack(ctx, 1, tracepoint_skip(ctx, &__traceiter_sched_waking));
		stack_error(w.kernel_stack, OFFCPU_STAT_KERNEL_EEXIST, OFFCPU_STAT_KERNEL_ENOMEM);
	}
	/* From an interrupt (a timer, I/O completion), current is the task
	 * it interrupted, often the idle task: the kernel stack shows the
	 * interrupt; the user stack, if any, is that task's (as offwaketime). */
	__u64 id = bpf_get_current_pid_tgid();
	w.pid = id >> 32;
	w.tid = (__u32)id;
	bpf_get_current_comm(w.comm, sizeof(w.comm));
	if (want_user && w.pid) {
		w.user_stack = take_stack(ctx, 1, BPF_F_USER_STACK);
		stack_error(w.user_stack, OFFCPU_STAT_USER_EEXIST, OFFCPU_STAT_USER_ENOMEM);
	}
	w.tid = per_tid ? w.tid : 0;
	bpf_map_update_elem(&waker_of, &tid, &w, BPF_ANY);
	return 0;
}

/* --wakers: add a block to wake_counts; 0 when counted. */
static __always_inline int count_wake(const struct profile_key *key, const struct offcpu_waker *w, __u64 delta)
{
	struct offcpu_wake_key k = {};
	k.key = *key;
	k.waker = *w;
	struct offcpu_sum *sum = bpf_map_lookup_elem(&wake_counts, &k);
	if (!sum) {
		struct offcpu_sum zero = {};
		bpf_map_update_elem(&wake_counts, &k, &zero, BPF_NOEXIST);
		sum = bpf_map_lookup_elem(&wake_counts, &k);
	}
	if (!sum)
		return -1;
	__sync_fetch_and_add(&sum->ns, delta);
	__sync_fetch_and_add(&sum->blocks, 1);
	return 0;
}

/* Send prev's user registers and stack (it is current, in the kernel: its
 * user registers are those saved at kernel entry); 0 when sent. */
static __always_inline int send_user_stack(void *ctx, struct offcpu_start *s, __u32 tid)
{
	struct pt_regs regs;
	long p = bpf_task_pt_regs(bpf_get_current_task_btf());
	if (!p || bpf_probe_read_kernel(&regs, sizeof(regs), (const void *)p) || !regs.rsp ||
	    (regs.cs & 3) != 3)
		return -1;
	__u32 cpu = bpf_get_smp_processor_id();
	struct profile_ustack *u = bpf_map_lookup_elem(&ustack_buf, &cpu);
	if (!u)
		return -1;
	u->time = s->time;
	u->pid = s->key.pid;
	u->tid = tid;
	u->cpu = s->key.cpu;
	__builtin_memcpy(u->comm, s->key.comm, sizeof(u->comm));
	u->kernel_stack = s->key.kernel_stack;
	u->nr_user = u->nr_kernel = 0;
	u->off_cpu = s->runnable ? PROFILE_USTACK_RUNNABLE : 1;
	u->off_cpu_ns = 0;
	int sent = ustack_send(ctx, u, &regs, stack_size, copy_fp);
	if (sent < 0)
		return -1;
	if (sent > 0) {
		stat_add(OFFCPU_STAT_COPY_FULL, 1);
		return -1;
	}
	stat_add(OFFCPU_STAT_COPIED, 1);
	return 0;
}

/* tid's block s (its entry in `start`) lasted delta ns: add it to its key
 * (or send its end record, for its copied stack), and forget s. */
static __always_inline void end_block(struct offcpu_start *s, __u32 tid, __u64 delta)
{
	struct profile_key key = s->key;
	struct offcpu_end end = { s->time, delta, key.pid, tid };
	int copied = s->copied, runnable = s->runnable;
	bpf_map_delete_elem(&start, &tid);
	struct offcpu_waker *w = NULL;
	if (wakers) {
		w = bpf_map_lookup_elem(&waker_of, &tid);
		if (w)
			end.waker = *w;
		else
			end.waker.user_stack = end.waker.kernel_stack = PROFILE_NO_STACK;
		bpf_map_delete_elem(&waker_of, &tid);
	}
	if (delta < min_ns || (max_ns && delta > max_ns)) {
		stat_add(OFFCPU_STAT_FILTERED, 1);
		return;
	}
	if (copied) {
		/* Wake user space as ustack_send does: from a quarter full. */
		__u64 wake = bpf_ringbuf_query(&ustacks, BPF_RB_AVAIL_DATA) >
					     bpf_ringbuf_query(&ustacks, BPF_RB_RING_SIZE) / 4
				     ? BPF_RB_FORCE_WAKEUP
				     : BPF_RB_NO_WAKEUP;
		if (!bpf_ringbuf_output(&ustacks, &end, sizeof(end), wake)) {
			stat_add(OFFCPU_STAT_BLOCKS, 1);
			return;
		}
		stat_add(OFFCPU_STAT_END_FULL, 1); /* counted here, without user frames */
	}
	if (wakers && !runnable) {
		if (count_wake(&key, &end.waker, delta))
			stat_add(OFFCPU_STAT_COUNTS_FULL, 1);
		else
			stat_add(OFFCPU_STAT_BLOCKS, 1);
		return;
	}
	void *map = runnable ? (void *)&runnable_counts : (void *)&counts;
	struct offcpu_sum *sum = bpf_map_lookup_elem(map, &key);
	if (!sum) {
		struct offcpu_sum zero = {};
		/* BPF_NOEXIST: another CPU may have added the key meanwhile. */
		bpf_map_update_elem(map, &key, &zero, BPF_NOEXIST);
		sum = bpf_map_lookup_elem(map, &key);
	}
	if (!sum) {
		stat_add(OFFCPU_STAT_COUNTS_FULL, 1);
		return;
	}
	__sync_fetch_and_add(&sum->ns, delta);
	__sync_fetch_and_add(&sum->blocks, 1);
	stat_add(OFFCPU_STAT_BLOCKS, 1);
}

/* prev leaves the CPU: remember when and where, if it is to be counted. */
static __always_inline void switch_out(void *ctx, bool preempt, struct task_struct *prev,
				       unsigned int prev_state, __u64 now)
{
	__u32 tid = prev->pid, tgid = prev->tgid;
	__u64 runtime = prev->se.sum_exec_runtime; /* (updated before the tracepoint) */
	/* prev runs, so it came back since its last switch-out; if that is
	 * still in `start`, its switch-in never reached this program: the
	 * kernel runs no tracepoint program in some tasks' context (a
	 * sandbox's own supervisor, seen with perf too), and sched_switch
	 * runs in the context of the task leaving the CPU. Since it came
	 * back it has been on the CPU (a switch-out in between would be seen
	 * here), for the CPU time it has used since: its block ended that
	 * long ago. Counted so rather than overwritten below (lost). */
	struct offcpu_start *old = tid ? bpf_map_lookup_elem(&start, &tid) : NULL; /* (not the idle task) */
	if (old) {
		__u64 ran = runtime - old->runtime, away = now - old->time;
		stat_add(OFFCPU_STAT_IN_UNSEEN, 1);
		end_block(old, tid, ran < away ? away - ran : 0);
	}
	__u32 state = state_of(preempt, prev_state);
	if (!(state & states) || !wanted(tgid, tid))
		return;
	struct offcpu_start s = {};
	s.time = now;
	s.runtime = runtime;
	s.runnable = state == OFFCPU_STATE_R;
	s.key.pid = tgid;
	s.key.tid = per_tid ? tid : 0;
	s.key.cpu = per_cpu ? bpf_get_smp_processor_id() : 0;
	bpf_get_current_comm(s.key.comm, sizeof(s.key.comm)); /* prev is current */
	s.key.user_stack = PROFILE_NO_STACK;
	s.key.kernel_stack = PROFILE_NO_STACK;
	if (want_kernel) {
		s.key.kernel_stack = take_stack(ctx, 0, tracepoint_skip(ctx, &__traceiter_sched_switch));
		stack_error(s.key.kernel_stack, OFFCPU_STAT_KERNEL_EEXIST, OFFCPU_STAT_KERNEL_ENOMEM);
	}
	/* A copied user stack is unwound in user space: no frame-pointer
	 * walk is kept for it. (Through code built without frame pointers
	 * such a walk ends in whatever the frame register held, a new
	 * "stack" at nearly every block, which filled the maps.) Should its
	 * end record not fit in the ring, the block counts without user
	 * frames. */
	if (copy_stack && want_user && !send_user_stack(ctx, &s, tid)) {
		s.copied = 1;
	} else if (want_user) {
		s.key.user_stack = take_stack(ctx, 0, BPF_F_USER_STACK);
		stack_error(s.key.user_stack, OFFCPU_STAT_USER_EEXIST, OFFCPU_STAT_USER_ENOMEM);
	}
	if (bpf_map_update_elem(&start, &tid, &s, BPF_ANY))
		stat_add(OFFCPU_STAT_START_FULL, 1);
}

/* next comes back: add the time it was away to its key. */
static __always_inline void switch_in(struct task_struct *next, __u64 now)
{
	__u32 tid = next->pid;
	struct offcpu_start *s = bpf_map_lookup_elem(&start, &tid);
	if (!s || TEST_UNSEEN(s))
		return;
	end_block(s, tid, now - s->time);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	__u64 now = bpf_ktime_get_ns();
	switch_out(ctx, preempt, prev, prev_state, now);
	switch_in(next, now);
	return 0;
}

/* A process forked by a target is a target too (a command's children, as
 * the on-CPU events follow them with inherit). */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	__u8 one = 1;
	if (filter_pid && ptgid != ctgid && bpf_map_lookup_elem(&pids, &ptgid))
		bpf_map_update_elem(&pids, &ctgid, &one, BPF_ANY);
	return 0;
}

/* The command spawned by record waits for a go-ahead before its exec:
 * that wait is scorch's. It is a target from its exec on (as the on-CPU
 * events are enabled on exec). */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p)
{
	__u32 tgid = p->tgid;
	__u8 one = 1;
	if (filter_pid && bpf_map_lookup_elem(&exec_pids, &tgid))
		bpf_map_update_elem(&pids, &tgid, &one, BPF_ANY);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
