/* The DWARF unwinder of user stacks (see unwind.h). */
#include "addrspace/unwind.h"

#include "addrspace/procmaps.h"
#include "addrspace/unwind_expr.h"
#include "addrspace/unwind_tables.h"
#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

enum { PERF_REG_ABI_64 = 2, NR_PERF_REGS = 24, DWREG_RBP = 6, DWREG_RSP = 7, DWREG_RA = 16 };

struct unwinder {
	struct unwind_tables *tables;
};

struct unwinder *unwinder_new(void)
{
	struct unwinder *u = xcalloc(1, sizeof(*u));
	u->tables = unwind_tables_new();
	return u;
}

void unwinder_free(struct unwinder *u)
{
	if (!u)
		return;
	unwind_tables_free(u->tables);
	free(u);
}

void unwinder_set_budget(struct unwinder *u, size_t bytes)
{
	unwind_tables_budget(u->tables, bytes);
}

void unwinder_held(const struct unwinder *u, size_t *bytes, uint64_t *dropped)
{
	struct unwind_tables_held h;
	unwind_tables_held(u->tables, &h);
	*bytes = h.bytes;
	*dropped = h.evicted;
}

/* The sample's registers in DWARF numbering (rax rdx rcx rbx rsi rdi rbp
 * rsp r8..r15, then the return-address column holding the pc), from
 * perf_regs order (ax bx cx dx si di bp sp ip .. r8..r15), keeping the
 * registers the sample's mask holds. */
static bool initial_regs(const struct unwind_stack *s, struct unwind_regs *out)
{
	static const int from_perf[UNWIND_NR_REGS] = { 0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8 };
	uint64_t by_perf[NR_PERF_REGS];
	uint32_t have = 0;
	size_t k = 0;
	for (int bit = 0; bit < 64; bit++) {
		if (!(s->regs_mask >> bit & 1))
			continue;
		if (bit < NR_PERF_REGS) {
			by_perf[bit] = s->regs[k];
			have |= 1u << bit;
		}
		k++;
	}
	memset(out, 0, sizeof(*out));
	for (int r = 0; r < UNWIND_NR_REGS; r++)
		if (have >> from_perf[r] & 1) {
			out->reg[r] = by_perf[from_perf[r]];
			out->have |= 1u << r;
		}
	return (out->have >> DWREG_RSP & 1) && (out->have >> DWREG_RA & 1);
}

enum step { STEP_OK, STEP_END, STEP_FAILED };

/* The caller's registers from the CFI rules of this frame. */
static enum step cfi_step(Dwarf_Frame *fr, const struct unwind_regs *r, const struct unwind_memory *m,
			  struct unwind_regs *next, bool *signal)
{
	Dwarf_Op *ops;
	size_t nops;
	uint64_t cfa;
	bool is_value;
	if (dwarf_frame_cfa(fr, &ops, &nops) || !nops || !unwind_eval(ops, nops, r, m, 0, false, &cfa, &is_value))
		return STEP_FAILED;
	int ra = dwarf_frame_info(fr, NULL, NULL, signal);
	if (ra < 0 || ra >= UNWIND_NR_REGS)
		return STEP_FAILED;
	memset(next, 0, sizeof(*next));
	for (int reg = 0; reg < UNWIND_NR_REGS; reg++) {
		Dwarf_Op mem[3], *rops;
		size_t rn;
		uint64_t v;
		if (dwarf_frame_register(fr, reg, mem, &rops, &rn))
			continue;
		if (!rn) {
			if (rops == mem) { /* undefined: the caller's is lost */
				if (reg == ra)
					return STEP_END; /* the outermost frame */
				continue;
			}
			if (!(r->have >> reg & 1)) /* same value */
				continue;
			v = r->reg[reg];
		} else if (!unwind_eval(rops, rn, r, m, cfa, true, &v, &is_value) ||
			   (!is_value && !unwind_read(m, v, &v))) {
			continue;
		}
		next->reg[reg] = v;
		next->have |= 1u << reg;
	}
	if (!(next->have >> ra & 1))
		return STEP_FAILED;
	next->reg[DWREG_RA] = next->reg[ra];
	next->have |= 1u << DWREG_RA;
	if (!(next->have >> DWREG_RSP & 1)) { /* the ABI's rule: sp is the CFA */
		next->reg[DWREG_RSP] = cfa;
		next->have |= 1u << DWREG_RSP;
	}
	return next->reg[DWREG_RA] ? STEP_OK : STEP_END; /* a zero return address ends the stack too */
}

/* Where a file has no CFI for the frame: one frame-pointer step, as
 * libdw's x86-64 fallback takes (saved rbp at [rbp], return address
 * above it). */
static enum step fp_step(const struct unwind_regs *r, const struct unwind_memory *m, struct unwind_regs *next)
{
	uint64_t rbp, saved, ret;
	if (!(r->have >> DWREG_RBP & 1))
		return STEP_FAILED;
	rbp = r->reg[DWREG_RBP];
	if (!unwind_read(m, rbp, &saved) || !unwind_read(m, rbp + 8, &ret))
		return STEP_FAILED;
	memset(next, 0, sizeof(*next));
	next->reg[DWREG_RBP] = saved;
	next->reg[DWREG_RSP] = rbp + 16;
	next->reg[DWREG_RA] = ret;
	next->have = 1u << DWREG_RBP | 1u << DWREG_RSP | 1u << DWREG_RA;
	return ret ? STEP_OK : STEP_FAILED;
}

/* The unwind tables of mapping m, or NULL. */
static struct unwind_file *file_of(struct unwinder *u, const struct mapping *m, unwind_source_of source_of, void *arg)
{
	struct unwind_source src = { 0 };
	if (!m || !source_of(arg, m, &src))
		return NULL;
	return unwind_tables_file(u->tables, &src);
}

int unwind_user_stack(struct unwinder *u, const struct procmaps *maps, uint32_t space, const struct unwind_stack *s,
		      unwind_source_of source_of, void *arg, uint64_t *ips, int max, bool *complete)
{
	return unwind_user_stack_fp(u, maps, space, s, source_of, arg, ips, NULL, max, complete);
}

int unwind_user_stack_fp(struct unwinder *u, const struct procmaps *maps, uint32_t space,
			 const struct unwind_stack *s, unwind_source_of source_of, void *arg, uint64_t *ips,
			 uint64_t *fps, int max, bool *complete)
{
	struct unwind_regs regs, next;
	*complete = false;
	if (space == UINT32_MAX || s->regs_abi != PERF_REG_ABI_64 || !s->regs || max <= 0 || !initial_regs(s, &regs))
		return 0;
	struct unwind_memory mem = { s->stack, regs.reg[DWREG_RSP], s->stack_len, s->stack_holes };
	bool exact = true; /* the sampled pc, or one a signal interrupted */
	int n = 0;
	while (n < max) {
		uint64_t pc = regs.reg[DWREG_RA];
		/* A caller's pc is a return address: the call is just before. */
		uint64_t at = exact ? pc : pc - 1;
		ips[n] = n && exact ? pc + 1 : pc; /* the collector moves callers back by one */
		if (fps)
			fps[n] = regs.have >> DWREG_RBP & 1 ? regs.reg[DWREG_RBP] : 0;
		n++;
		const struct mapping *m = procmaps_space_find(maps, space, at);
		struct unwind_file *f = file_of(u, m, source_of, arg);
		if (!f)
			break; /* no file: no CFI, stop (as perf's unwinder does) */
		Dwarf_Frame *fr = unwind_file_frame(u->tables, f, at - m->start + m->pgoff);
		bool signal = false;
		/* Rules that fail (a saved register outside the copy) end the
		 * walk, as in libdw's unwinder: only a pc without rules takes
		 * the frame-pointer step, which would read garbage here. */
		enum step st = fr ? cfi_step(fr, &regs, &mem, &next, &signal) : fp_step(&regs, &mem, &next);
		if (st == STEP_END) {
			*complete = true;
			break;
		}
		if (st == STEP_FAILED)
			break;
		if (next.reg[DWREG_RA] == pc && next.reg[DWREG_RSP] == regs.reg[DWREG_RSP])
			break; /* no progress */
		if (signal && n > 1)
			ips[n - 1] = pc + 1; /* a signal trampoline's own pc is exact too */
		exact = signal;
		regs = next;
	}
	return n;
}
