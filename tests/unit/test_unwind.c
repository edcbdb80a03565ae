/* record's DWARF unwinder: the CFI expression evaluator on the expressions
 * compilers emit, and a real walk of this test's own stack (registers and
 * a stack copy taken inside nested calls) against its return addresses. */
#include "harness.h"

#ifdef HAVE_ELFUTILS
#include "addrspace/procmaps.h"
#include "record/perf_attr.h"
#include "record/record.h"
#include "addrspace/unwind.h"
#include "addrspace/unwind_expr.h"

#include <dwarf.h>
#include <pthread.h>
#include <unistd.h>

static Dwarf_Op op(uint8_t atom, uint64_t number, uint64_t number2, uint64_t offset)
{
	Dwarf_Op o = { atom, number, number2, offset };
	return o;
}

TEST(unwind_expr_plt_cfa)
{
	/* .plt's CFA: rsp + 8, + 8 more once past the 11th byte of a 16-byte
	 * entry (rsp+8 + ((rip & 15) >= 11) << 3). */
	Dwarf_Op ops[] = {
		op(DW_OP_breg7, 8, 0, 0), op(DW_OP_breg16, 0, 0, 2), op(DW_OP_lit15, 0, 0, 4),
		op(DW_OP_and, 0, 0, 5), op(DW_OP_lit11, 0, 0, 6), op(DW_OP_ge, 0, 0, 7),
		op(DW_OP_lit3, 0, 0, 8), op(DW_OP_shl, 0, 0, 9), op(DW_OP_plus, 0, 0, 10),
	};
	struct unwind_regs r = { .have = 1u << 7 | 1u << 16 };
	struct unwind_memory m = { 0 };
	uint64_t v;
	bool is_value;
	r.reg[7] = 0x7ffd0000;
	r.reg[16] = 0x401026; /* byte 6 of its entry */
	CHECK(unwind_eval(ops, 9, &r, &m, 0, false, &v, &is_value));
	CHECK_EQ_U64(v, 0x7ffd0008);
	r.reg[16] = 0x40102b; /* byte 11 */
	CHECK(unwind_eval(ops, 9, &r, &m, 0, false, &v, &is_value));
	CHECK_EQ_U64(v, 0x7ffd0010);
	r.have = 1u << 7; /* rip unknown: no answer rather than a wrong one */
	CHECK(!unwind_eval(ops, 9, &r, &m, 0, false, &v, &is_value));
}

TEST(unwind_read_holes)
{
	/* A copy from sp 0x10ff0 over three pages, the middle one (0x11000)
	 * never read: words there are not the stack's. */
	static uint64_t words[1024];
	words[0] = 5;
	words[2 + 512] = 7; /* 0x12000 */
	struct unwind_memory m = { (const uint8_t *)words, 0x10ff0, sizeof(words), 1u << 1 };
	uint64_t v;
	CHECK(unwind_read(&m, 0x10ff0, &v));
	CHECK_EQ_U64(v, 5);
	CHECK(!unwind_read(&m, 0x11000, &v));
	CHECK(!unwind_read(&m, 0x11ff8, &v));
	CHECK(!unwind_read(&m, 0x10ffc, &v)); /* a word across into the hole */
	CHECK(unwind_read(&m, 0x12000, &v));
	CHECK_EQ_U64(v, 7);
}

TEST(unwind_expr_rules)
{
	uint64_t words[4] = { 11, 22, 33, 44 };
	struct unwind_memory m = { (const uint8_t *)words, 0x1000, sizeof(words), 0 };
	struct unwind_regs r = { .have = 1u << 6 };
	r.reg[6] = 0x1010;
	uint64_t v;
	bool is_value;
	/* offset(-8): a location at CFA - 8, read by the caller */
	Dwarf_Op at[] = { op(DW_OP_call_frame_cfa, 0, 0, 0), op(DW_OP_plus_uconst, (uint64_t)-8, 0, 1) };
	CHECK(unwind_eval(at, 2, &r, &m, 0x1020, true, &v, &is_value));
	CHECK(!is_value);
	CHECK_EQ_U64(v, 0x1018);
	CHECK(!unwind_eval(at, 2, &r, &m, 0, false, &v, &is_value)); /* no CFA here */
	/* val_offset(16): a value */
	Dwarf_Op val[] = { op(DW_OP_call_frame_cfa, 0, 0, 0), op(DW_OP_plus_uconst, 16, 0, 1),
			   op(DW_OP_stack_value, 0, 0, 3) };
	CHECK(unwind_eval(val, 3, &r, &m, 0x1020, true, &v, &is_value));
	CHECK(is_value);
	CHECK_EQ_U64(v, 0x1030);
	/* a realigned frame's CFA: *(rbp - 8), from the copy */
	Dwarf_Op deref[] = { op(DW_OP_breg6, (uint64_t)-8, 0, 0), op(DW_OP_deref, 0, 0, 2) };
	CHECK(unwind_eval(deref, 2, &r, &m, 0, false, &v, &is_value));
	CHECK_EQ_U64(v, 22);
	r.reg[6] = 0x1100; /* outside the copy */
	CHECK(!unwind_eval(deref, 2, &r, &m, 0, false, &v, &is_value));
	/* bra over a literal: lit1; bra +1; lit5; lit7 -> 7 on top, 5 skipped */
	Dwarf_Op bra[] = { op(DW_OP_lit1, 0, 0, 0), op(DW_OP_bra, 1, 0, 1), op(DW_OP_lit5, 0, 0, 4),
			   op(DW_OP_lit7, 0, 0, 5) };
	CHECK(unwind_eval(bra, 4, &r, &m, 0, false, &v, &is_value));
	CHECK_EQ_U64(v, 7);
	/* a branch onto itself never ends: refused */
	Dwarf_Op loop[] = { op(DW_OP_skip, (uint64_t)-3, 0, 0) };
	CHECK(!unwind_eval(loop, 1, &r, &m, 0, false, &v, &is_value));
	/* an operation CFI does not use */
	Dwarf_Op odd[] = { op(DW_OP_piece, 8, 0, 0) };
	CHECK(!unwind_eval(odd, 1, &r, &m, 0, false, &v, &is_value));
}

#if defined(__x86_64__)
/* The registers and stack of the innermost call, as a sample carries them,
 * and the return addresses the walk must find. */
struct captured {
	uint64_t regs[17]; /* perf order: ax bx cx dx si di bp sp ip r8..r15 */
	uint8_t stack[16384];
	size_t stack_len;
	uint64_t ret[3];
};

/* The kernel's copy of a stack reads across every frame, redzones
 * included: AddressSanitizer must not check this one (its memcpy
 * interceptor reported a stack-buffer-underflow on capture's own frame). */
__attribute__((no_sanitize("address"))) static void copy_raw_stack(uint8_t *to, uintptr_t from, size_t len)
{
	const volatile uint8_t *p = (const volatile uint8_t *)from;
	for (size_t i = 0; i < len; i++)
		to[i] = p[i];
}

__attribute__((noinline)) static void capture(struct captured *c)
{
	uint64_t sp, ip, bp, bx, r12, r13, r14, r15;
	__asm__ volatile("mov %%rsp, %0\n\tlea 0(%%rip), %1\n\tmov %%rbp, %2\n\tmov %%rbx, %3\n\t"
			 "mov %%r12, %4\n\tmov %%r13, %5\n\tmov %%r14, %6\n\tmov %%r15, %7"
			 : "=m"(sp), "=r"(ip), "=m"(bp), "=m"(bx), "=m"(r12), "=m"(r13), "=m"(r14), "=m"(r15));
	memset(c->regs, 0, sizeof(c->regs));
	c->regs[1] = bx;
	c->regs[6] = bp;
	c->regs[7] = sp;
	c->regs[8] = ip;
	c->regs[13] = r12;
	c->regs[14] = r13;
	c->regs[15] = r14;
	c->regs[16] = r15;
	/* Up to the stack's top at most, as the kernel's copy stops. */
	pthread_attr_t a;
	void *base = NULL;
	size_t size = 0;
	c->stack_len = 0;
	if (!pthread_getattr_np(pthread_self(), &a)) {
		pthread_attr_getstack(&a, &base, &size);
		pthread_attr_destroy(&a);
	}
	uint64_t top = (uint64_t)(uintptr_t)base + size;
	c->stack_len = top > sp ? (size_t)(top - sp) : 0;
	if (c->stack_len > sizeof(c->stack))
		c->stack_len = sizeof(c->stack);
	copy_raw_stack(c->stack, (uintptr_t)sp, c->stack_len);
	c->ret[0] = (uint64_t)(uintptr_t)__builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void middle(struct captured *c)
{
	capture(c);
	c->ret[1] = (uint64_t)(uintptr_t)__builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void outer(struct captured *c)
{
	middle(c);
	c->ret[2] = (uint64_t)(uintptr_t)__builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

static bool mapped_path(void *arg, const struct mapping *m, struct unwind_source *src)
{
	const struct procmaps *pm = arg;
	*src = (struct unwind_source){ .key = m->path, .path = strpool_str(&pm->paths, m->path) };
	return true;
}

TEST(unwind_own_stack)
{
	static struct captured c;
	outer(&c);
	struct procmaps pm;
	procmaps_init(&pm);
	procmaps_read(&pm, (uint32_t)getpid());
	struct unwinder *u = unwinder_new();
	REQUIRE(u);
	struct unwind_stack s = { 0 };
	s.regs_abi = 2;
	s.regs_mask = record_user_regs_mask();
	s.regs = c.regs;
	s.stack = c.stack;
	s.stack_len = c.stack_len;
	uint64_t ips[64];
	bool complete;
	uint32_t space = procmaps_space_of(&pm, (uint32_t)getpid());
	int n = unwind_user_stack(u, &pm, space, &s, mapped_path, &pm, ips, 64, &complete);
	REQUIRE(n >= 4);
	CHECK_EQ_U64(ips[0], c.regs[8]);
	CHECK_EQ_U64(ips[1], c.ret[0]);
	CHECK_EQ_U64(ips[2], c.ret[1]);
	CHECK_EQ_U64(ips[3], c.ret[2]);
	/* A copy cut short of the callers' frames stops the walk early. */
	s.stack_len = 8;
	n = unwind_user_stack(u, &pm, space, &s, mapped_path, &pm, ips, 64, &complete);
	CHECK(n >= 1 && n < 4);
	CHECK(!complete);
	unwinder_free(u);
	procmaps_release(&pm);
}

/* With a byte budget smaller than one file's tables, each step into
 * another file drops the last one's (reopened when its code comes back):
 * the walk finds the same frames, and the tables hold the file in use
 * only. */
TEST(unwind_budget_drops_and_reopens)
{
	static struct captured c;
	outer(&c);
	struct procmaps pm;
	procmaps_init(&pm);
	procmaps_read(&pm, (uint32_t)getpid());
	struct unwinder *u = unwinder_new(), *open = unwinder_new();
	REQUIRE(u && open);
	unwinder_set_budget(u, 1);
	struct unwind_stack s = { 0 };
	s.regs_abi = 2;
	s.regs_mask = record_user_regs_mask();
	s.regs = c.regs;
	s.stack = c.stack;
	s.stack_len = c.stack_len;
	uint32_t space = procmaps_space_of(&pm, (uint32_t)getpid());
	uint64_t want[64], ips[64];
	bool complete, want_complete;
	int nw = unwind_user_stack(open, &pm, space, &s, mapped_path, &pm, want, 64, &want_complete);
	REQUIRE(nw >= 4);
	for (int round = 0; round < 3; round++) {
		int n = unwind_user_stack(u, &pm, space, &s, mapped_path, &pm, ips, 64, &complete);
		CHECK_EQ_U64(n, nw);
		CHECK_EQ_U64(complete, want_complete);
		for (int i = 0; i < n && i < nw; i++)
			CHECK_EQ_U64(ips[i], want[i]);
	}
	size_t bytes, open_bytes;
	uint64_t dropped, open_dropped;
	unwinder_held(u, &bytes, &dropped);
	unwinder_held(open, &open_bytes, &open_dropped);
	CHECK(dropped >= 3); /* the walk crosses from the unit binary into libc and back each round */
	CHECK_EQ_U64(open_dropped, 0);
	CHECK(bytes > 0 && bytes < open_bytes); /* one file's, of the two or more */
	unwinder_free(u);
	unwinder_free(open);
	procmaps_release(&pm);
}
#endif
#endif
