/* What profile.bpf.c and offcpu.bpf.c share: the stacks by size class,
 * the target filters, and a user register set and stack copy for
 * unwinding in user space (struct profile_ustack). Included by BPF
 * programs only. */
#ifndef SCORCH_RECORD_COMMON_BPF_H
#define SCORCH_RECORD_COMMON_BPF_H

#define EFAULT 14
#define EEXIST 17
#define ENOMEM 12

/* Frames kept per stack (--max-stack), set from user space before load. */
const volatile __u32 max_depth = PROFILE_MAX_DEPTH;

/* The stacks by size class (see PROFILE_CLASS_SHIFT), kernel and user,
 * keyed by a hash of their frames. User space sets max_entries, and
 * gives the off-CPU program the on-CPU program's maps: one id space. An
 * entry is allocated when a stack is first seen. */
#define STACK_CLASS(name, frames)                      \
	struct {                                       \
		__uint(type, BPF_MAP_TYPE_HASH);       \
		__uint(map_flags, BPF_F_NO_PREALLOC);  \
		__uint(max_entries, PROFILE_STACK_ENTRIES); \
		__type(key, __u32);                    \
		__type(value, __u64[frames]);          \
	} name SEC(".maps")
STACK_CLASS(stacks_0, PROFILE_CLASS_FRAMES_0);
STACK_CLASS(stacks_1, PROFILE_CLASS_FRAMES_1);
STACK_CLASS(stacks_2, PROFILE_CLASS_FRAMES_2);

/* Store ips (frames of them, zero-filled) under id in one class's map;
 * returns id, -EEXIST when another stack has it, -ENOMEM when the map is
 * full. */
static __always_inline __s32 class_store(void *map, __u32 id, const __u64 *ips, __u32 frames)
{
	const __u64 *have = bpf_map_lookup_elem(map, &id);
	if (!have) {
		if (!bpf_map_update_elem(map, &id, ips, BPF_NOEXIST))
			return (__s32)id;
		have = bpf_map_lookup_elem(map, &id); /* another CPU stored it first? */
		if (!have)
			return -ENOMEM;
	}
	for (__u32 i = 0; i < frames; i++)
		if (have[i] != ips[i])
			return -EEXIST;
	return (__s32)id;
}

struct stack_frames {
	__u64 ip[PROFILE_MAX_DEPTH];
};

/* The stack in f (*nr frames, as bpf_get_stack left it: zero-filled past
 * them) stored in the class maps: its id >= 0, -EFAULT when there is
 * none, -EEXIST or -ENOMEM when it could not be stored (f still holds
 * it). Past max_depth frames only the leaf end is kept (*nr says how
 * many). A global function: the verifier checks it once, not at each of
 * its callers (its loops made profile.bpf.c take 1.5 s to load). */
__noinline int stack_store(struct stack_frames *f, __u32 *nr)
{
	if (!f || !nr)
		return -EFAULT;
	__u64 *ips = f->ip;
	if (!*nr)
		return -EFAULT;
	if (*nr > max_depth) {
		for (__u32 i = 0; i < PROFILE_MAX_DEPTH; i++)
			if (i >= max_depth)
				ips[i] = 0;
		*nr = max_depth;
	}
	__u64 h = *nr;
	for (__u32 i = 0; i < PROFILE_MAX_DEPTH && i < *nr; i++) {
		h = (h ^ ips[i]) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 31;
	}
	__u32 id = (__u32)(h ^ (h >> 32)) & ((1u << PROFILE_CLASS_SHIFT) - 1);
	if (*nr <= PROFILE_CLASS_FRAMES_0)
		return class_store(&stacks_0, id, ips, PROFILE_CLASS_FRAMES_0);
	if (*nr <= PROFILE_CLASS_FRAMES_1)
		return class_store(&stacks_1, id | 1u << PROFILE_CLASS_SHIFT, ips, PROFILE_CLASS_FRAMES_1);
	return class_store(&stacks_2, id | 2u << PROFILE_CLASS_SHIFT, ips, PROFILE_CLASS_FRAMES_2);
}

/* The current stack (kernel, or user with BPF_F_USER_STACK; a skip count
 * in flags) into f (zero-filled), *nr its frames, and its id in the class
 * maps (stack_store). ctx: either program's context. */
static __always_inline int stack_id(void *ctx, struct stack_frames *f, __u64 flags, __u32 *nr)
{
	long n = bpf_get_stack(ctx, f->ip, sizeof(f->ip), flags);
	*nr = n > 0 ? (__u32)n / 8 : 0;
	return stack_store(f, nr);
}

/* Targets: tgids (pids) or tids, when filter_pid or filter_tid is set. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PROFILE_FILTER_ENTRIES);
	__type(key, __u32);
	__type(value, __u8);
} pids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PROFILE_FILTER_ENTRIES);
	__type(key, __u32);
	__type(value, __u8);
} tids SEC(".maps");

/* User stacks to unwind in user space (struct profile_ustack), and
 * offcpu.bpf.c's end records (struct offcpu_end): user space gives both
 * programs the same ring. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} ustacks SEC(".maps");

/* One profile_ustack per CPU, indexed by CPU (too big for a per-CPU
 * map's 32 KiB); user space sets max_entries to the number of CPUs.
 * Each program has its own (a sample may interrupt sched_switch). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct profile_ustack);
} ustack_buf SEC(".maps");

/* Copy the user stack from sp up, a page at a time; returns the bytes,
 * up to the last page read. A page that cannot be read is skipped and
 * marked in u->stack_holes rather than ending the copy (perf's copy ends
 * there): a big stack buffer that was never touched (coreutils sort's
 * compare keeps 8 KiB) leaves pages that are not present between the
 * leaf's frames and its callers'. */
static __always_inline __u32 ustack_copy(struct profile_ustack *u, __u64 sp, __u32 stack_size)
{
	__u32 len = 0, read = 0, want = stack_size;
	u->stack_holes = 0;
	if (want > PROFILE_USTACK_MAX)
		want = PROFILE_USTACK_MAX;
	for (int i = 0; i < PROFILE_USTACK_MAX / 4096 + 1; i++) {
		if (len >= want)
			break;
		__u32 chunk = 4096 - ((sp + len) & 4095);
		if (chunk > want - len)
			chunk = want - len;
		/* Masks the verifier can follow: off < MAX, chunk < 8192, and
		 * the buffer has 8 KiB of slack past MAX. */
		__u64 off = len, n = chunk;
		asm volatile("" : "+r"(off), "+r"(n)); /* hide the ranges from clang */
		off &= PROFILE_USTACK_MAX - 1;
		n &= 8191;
		if (!n)
			break;
		/* Without branches: a branch per page multiplies the states
		 * the verifier walks (the program took 0.3 s to load, not 0.1). */
		__u32 bad = (__u32)((__u64)bpf_probe_read_user(&u->stack[off], (__u32)n, (const void *)(sp + len)) >> 63);
		u->stack_holes |= bad << i;
		len += chunk;
		read += (len - read) & (bad - 1); /* up to here when read */
	}
	u->stack_holes &= read ? (1u << ((read + (sp & 4095) - 1) / 4096)) - 1 : 0; /* past the end: not holes */
	return read;
}

/* The user registers, in perf_regs order (ax bx cx dx si di bp sp ip r8..r15). */
static __always_inline void ustack_set_regs(struct profile_ustack *u, const struct pt_regs *regs)
{
	u->regs[0] = regs->rax;
	u->regs[1] = regs->rbx;
	u->regs[2] = regs->rcx;
	u->regs[3] = regs->rdx;
	u->regs[4] = regs->rsi;
	u->regs[5] = regs->rdi;
	u->regs[6] = regs->rbp;
	u->regs[7] = regs->rsp;
	u->regs[8] = regs->rip;
	u->regs[9] = regs->r8;
	u->regs[10] = regs->r9;
	u->regs[11] = regs->r10;
	u->regs[12] = regs->r11;
	u->regs[13] = regs->r12;
	u->regs[14] = regs->r13;
	u->regs[15] = regs->r14;
	u->regs[16] = regs->r15;
}

/* Fill in u's user part (the frame-pointer chain with fp, the registers,
 * the stack copy) and send it through `ustacks`; the caller set the rest.
 * Returns 0 when sent, 1 when the ring is full, -1 when there is no copy. */
static __always_inline int ustack_send(void *ctx, struct profile_ustack *u, const struct pt_regs *regs,
				       __u32 stack_size, int fp)
{
	if (fp) {
		long n = bpf_get_stack(ctx, u->user, sizeof(u->user), BPF_F_USER_STACK);
		u->nr_user = n > 0 ? (__u32)n / 8 : 0;
	}
	ustack_set_regs(u, regs);
	/* A ring filling up (a burst of events, each with its copy, as
	 * page faults come): copy less the fuller it is, half from half
	 * full, an eighth from seven eighths. The leaf end of the stack is
	 * kept, and the copy is sent rather than refused. */
	__u64 used = bpf_ringbuf_query(&ustacks, BPF_RB_AVAIL_DATA);
	__u64 ring = bpf_ringbuf_query(&ustacks, BPF_RB_RING_SIZE);
	if (used > ring / 2)
		stack_size /= 2;
	if (used > ring / 4 * 3)
		stack_size /= 2;
	if (used > ring / 8 * 7)
		stack_size /= 2;
	__u32 len = ustack_copy(u, regs->rsp, stack_size);
	u->stack_len = len;
	__u64 size = len;
	asm volatile("" : "+r"(size)); /* keep the bound check for the verifier */
	if (size > PROFILE_USTACK_MAX)
		return -1;
	size += PROFILE_USTACK_HEAD;
	/* Wake user space once the ring is a quarter full, not per copy. */
	__u64 wake = used > ring / 4 ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
	return bpf_ringbuf_output(&ustacks, u, size, wake) ? 1 : 0;
}

#endif
