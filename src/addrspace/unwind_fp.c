/* Frame pointers of an unwound chain's frames, and words of a sample's
 * stack copy (unwind.h). Needs no DWARF: both builds have it. */
#include "addrspace/unwind.h"

#include <string.h>

enum { PERF_REG_BP = 6, PERF_REG_SP = 7, NR_PERF_REGS = 24 };

/* The register of perf_regs number bit, when the sample holds it. */
static bool perf_reg(const struct unwind_stack *s, int bit, uint64_t *out)
{
	if (!s->regs || !(s->regs_mask >> bit & 1))
		return false;
	*out = s->regs[__builtin_popcountll(s->regs_mask & ((1ull << bit) - 1))];
	return true;
}

bool unwind_stack_word(const struct unwind_stack *s, uint64_t addr, uint64_t *out)
{
	uint64_t sp;
	if (!s->stack || s->stack_len < 8 || !perf_reg(s, PERF_REG_SP, &sp) || addr < sp ||
	    addr - sp > s->stack_len - 8)
		return false;
	uint64_t first = (addr >> 12) - (sp >> 12), last = ((addr + 7) >> 12) - (sp >> 12);
	if ((first < 32 && s->stack_holes >> first & 1) || (last < 32 && s->stack_holes >> last & 1))
		return false;
	memcpy(out, s->stack + (addr - sp), 8);
	return true;
}

void unwind_frame_pointers(const struct unwind_stack *s, const uint64_t *ips, uint32_t n, uint64_t *fps,
			   uint32_t known)
{
	if (!n)
		return;
	if (!known) { /* a frame-pointer chain: the leaf's is the sampled rbp */
		fps[0] = 0;
		perf_reg(s, PERF_REG_BP, &fps[0]);
		known = 1;
	}
	uint32_t k = known - 1;
	for (; k + 1 < n && fps[k]; k++) {
		uint64_t saved, ret;
		if (fps[k] > UINT64_MAX - 8 || !unwind_stack_word(s, fps[k], &saved) ||
		    !unwind_stack_word(s, fps[k] + 8, &ret) || ret != ips[k + 1] || saved <= fps[k])
			break; /* not the chain the frames came from: unknown from here on */
		fps[k + 1] = saved;
	}
	for (k++; k < n; k++)
		fps[k] = 0;
}
