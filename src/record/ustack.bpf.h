/* BPF-side helpers shared by profile.bpf.c and offcpu.bpf.c: a user
 * register set and stack copy for unwinding in user space (struct
 * profile_ustack). Included by BPF programs only. */
#ifndef SCORCH_RECORD_USTACK_BPF_H
#define SCORCH_RECORD_USTACK_BPF_H

/* Copy the user stack from sp up, a page at a time, stopping at the first
 * page that cannot be read (as perf's copy does); returns the bytes. */
static __always_inline __u32 ustack_copy(struct profile_ustack *u, __u64 sp, __u32 stack_size)
{
	__u32 len = 0, want = stack_size;
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
		if (!n || bpf_probe_read_user(&u->stack[off], (__u32)n, (const void *)(sp + len)))
			break;
		len += chunk;
	}
	return len;
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

#endif
