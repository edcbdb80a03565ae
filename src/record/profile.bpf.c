// SPDX-License-Identifier: GPL-2.0-or-later
/* Kernel side of the eBPF backend: on every cpu-clock (or cycles) overflow,
 * store the kernel and user stacks (hash maps of their own, by a hash of
 * the frames) and count the sample under {pid, tid, cpu, user stack,
 * kernel stack, comm}, and its time cell when time is asked. A sample
 * that cannot be counted there is sent whole (spills); with --call-graph
 * auto or dwarf the user stack is copied out instead (common.bpf.h).
 * User space reads the counts and stacks once, after detaching; with time
 * cells, also while sampling, the cells that are over (bpf_profile.c), so
 * that the counts hold no more than a few cells' distinct stacks.
 *
 * No vmlinux.h or CO-RE: a stack sampler needs nothing but uapi headers. */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>

#include "profile_abi.h"
#include "common.bpf.h"
#include "python.bpf.h"

/* Set from user space before load (the verifier drops dead branches). */
const volatile int want_user = 1;
const volatile int want_kernel = 1;
const volatile int per_tid = 0;
const volatile int per_cpu = 0;
const volatile int filter_pid = 0;  /* only tgids in `pids` */
const volatile int filter_tid = 0;  /* only tids in `tids` */
const volatile int include_idle = 0;
const volatile int copy_stack = 0;   /* send user regs + stack (DWARF) */
const volatile int copy_fp = 0;      /* ...with the frame-pointer chain */
const volatile __u32 stack_size = 16384;
/* Time asked (the heat map, --time, --flamechart): counts keyed by time
 * cell too, cells of time_cell_ns from time_base (CLOCK_MONOTONIC ns,
 * set a little before the events are enabled); 0: no time in the keys. */
const volatile __u64 time_cell_ns = 0;
const volatile __u64 time_base = 0;

/* max_entries set by user space; entries allocated as keys are first seen. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, PROFILE_COUNT_ENTRIES);
	__type(key, struct profile_key);
	__type(value, __u64);
} counts SEC(".maps");

/* Pids counted since user space last took them (bpf.c's scan_new_pids):
 * it reads a process's maps while the process lives. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PROFILE_NEW_PIDS);
	__type(key, __u32);
	__type(value, __u8);
} new_pids SEC(".maps");

/* Samples that could not be counted, sent whole (see struct profile_spill). */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} spills SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct profile_spill);
} spill_buf SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PROFILE_STAT_NR);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

static __always_inline void stat_inc(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &idx);
	if (v)
		*v += 1; /* per-CPU slot: no atomic needed */
}

static __always_inline void stack_error(int id, __u32 eexist, __u32 enomem)
{
	if (id == -EEXIST)
		stat_inc(eexist);
	else if (id == -ENOMEM)
		stat_inc(enomem);
}

static __always_inline int stack_lost(__s32 id)
{
	return id == -EEXIST || id == -ENOMEM;
}

/* Add one to key's count; 0 when counted, -1 when the hash is full. */
static __always_inline int count(struct profile_key *key)
{
	__u64 one = 1, *n = bpf_map_lookup_elem(&counts, key);
	if (!n && bpf_map_update_elem(&counts, key, &one, BPF_NOEXIST) == 0)
		return 0;
	if (!n) /* another CPU inserted the same key first, or full */
		n = bpf_map_lookup_elem(&counts, key);
	if (!n)
		return -1;
	__sync_fetch_and_add(n, 1);
	return 0;
}

/* The user registers of the interrupted task: the sample's own when it
 * was in user mode, else those saved on kernel entry. 0 when there are
 * none (a kernel thread). */
static __always_inline int user_regs(struct bpf_perf_event_data *ctx, struct pt_regs *out)
{
	if ((ctx->regs.cs & 3) == 3) {
		*out = ctx->regs;
		return 1;
	}
	struct task_struct *task = bpf_get_current_task_btf();
	long p = bpf_task_pt_regs(task);
	if (!p || bpf_probe_read_kernel(out, sizeof(*out), (const void *)p))
		return 0;
	return out->rsp != 0 && (out->cs & 3) == 3;
}

/* Send the sample's user regs and stack for unwinding; 0 when sent. */
static __always_inline int send_user_stack(struct bpf_perf_event_data *ctx, __u32 tgid, __u32 tid,
					   __s32 python)
{
	struct pt_regs regs;
	if (!user_regs(ctx, &regs))
		return -1;
	__u32 cpu = bpf_get_smp_processor_id();
	struct profile_ustack *u = bpf_map_lookup_elem(&ustack_buf, &cpu);
	if (!u)
		return -1;
	u->time = bpf_ktime_get_ns();
	u->pid = tgid;
	u->tid = tid;
	u->cpu = cpu;
	bpf_get_current_comm(u->comm, sizeof(u->comm));
	u->nr_user = u->nr_kernel = 0;
	u->kernel_stack = PROFILE_NO_STACK;
	if (want_kernel) {
		__u32 nr;
		u->kernel_stack = stack_id(ctx, (struct stack_frames *)u->kernel, 0, &nr);
		stack_error(u->kernel_stack, PROFILE_STAT_KERNEL_EEXIST, PROFILE_STAT_KERNEL_ENOMEM);
		if (stack_lost(u->kernel_stack))
			u->nr_kernel = nr; /* its frames come inline */
	}
	u->off_cpu = 0;
	u->off_cpu_ns = 0;
	u->python_stack = python;
	int sent = ustack_send(ctx, u, &regs, stack_size, copy_fp);
	if (sent < 0)
		return -1;
	if (sent > 0) {
		stat_inc(PROFILE_STAT_COPY_FULL);
		return -1;
	}
	stat_inc(PROFILE_STAT_COPIED);
	return 0;
}

SEC("perf_event")
int sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	struct profile_key key = {};

	if (!include_idle && tid == 0)
		return 0;
	if (filter_pid && !bpf_map_lookup_elem(&pids, &tgid))
		return 0;
	if (filter_tid && !bpf_map_lookup_elem(&tids, &tid))
		return 0;

	__s32 python = want_user && tgid ? python_stack(tgid, tid) : 0;
	if (copy_stack && want_user && tgid && !send_user_stack(ctx, tgid, tid, python))
		return 0;

	__u32 zero = 0;
	struct profile_spill *sp = bpf_map_lookup_elem(&spill_buf, &zero);
	if (!sp)
		return 0;
	key.pid = tgid;
	key.tid = per_tid ? tid : 0;
	key.cpu = per_cpu ? bpf_get_smp_processor_id() : 0;
	bpf_get_current_comm(key.comm, sizeof(key.comm));
	key.user_stack = PROFILE_NO_STACK;
	key.kernel_stack = PROFILE_NO_STACK;
	key.python_stack = python;
	if (time_cell_ns) {
		__u64 now = bpf_ktime_get_ns();
		key.cell = (__u32)((now > time_base ? now - time_base : 0) / time_cell_ns) + 1;
	}
	sp->nr_user = sp->nr_kernel = 0;
	if (want_kernel) {
		key.kernel_stack = stack_id(ctx, (struct stack_frames *)sp->kernel, 0, &sp->nr_kernel);
		stack_error(key.kernel_stack, PROFILE_STAT_KERNEL_EEXIST, PROFILE_STAT_KERNEL_ENOMEM);
	}
	if (want_user) {
		key.user_stack = stack_id(ctx, (struct stack_frames *)sp->user, BPF_F_USER_STACK, &sp->nr_user);
		stack_error(key.user_stack, PROFILE_STAT_USER_EEXIST, PROFILE_STAT_USER_ENOMEM);
	}
	int lost_stack = stack_lost(key.user_stack) || stack_lost(key.kernel_stack);
	if (!lost_stack && !count(&key)) {
		stat_inc(PROFILE_STAT_SAMPLES);
		if (!bpf_map_lookup_elem(&new_pids, &tgid)) {
			__u8 seen = 1;
			bpf_map_update_elem(&new_pids, &tgid, &seen, BPF_NOEXIST);
		}
		return 0;
	}
	if (!lost_stack)
		stat_inc(PROFILE_STAT_COUNTS_FULL);
	/* Not counted here: send the sample whole (its frames are in sp). */
	sp->pid = key.pid;
	sp->tid = key.tid;
	sp->cpu = key.cpu;
	__builtin_memcpy(sp->comm, key.comm, sizeof(sp->comm));
	sp->python_stack = python;
	sp->time = bpf_ktime_get_ns();
	if (!bpf_perf_event_output(ctx, &spills, BPF_F_CURRENT_CPU, sp, sizeof(*sp))) {
		stat_inc(PROFILE_STAT_SPILLED);
		return 0;
	}
	/* The perf buffer is full too: count it with its stack marked lost. */
	if (lost_stack && !count(&key)) {
		stat_inc(PROFILE_STAT_SAMPLES);
		return 0;
	}
	stat_inc(PROFILE_STAT_LOST);
	return 0;
}

/* GPL-compatible, as the kernel requires of a program that calls
 * bpf_perf_event_output, bpf_get_stackid or bpf_get_stack. */
char LICENSE[] SEC("license") = "GPL";
