/* perf --call-graph dwarf samples unwound with the unwinder record uses
 * (addrspace/unwind.h), against the symbolizer's address spaces (the same
 * procmaps model) and the files its DSOs resolved to: the file that holds
 * the running code (the build-id cache's copy, the --symfs one, ...), or
 * for [vdso] the recorded image when this kernel's matches it. The CFI of
 * each file is parsed once for the whole capture, whatever the number of
 * processes mapping it. x86-64 only. */
#include "symbolize/internal.h"
#include "symbolize/symbolize.h"

#include "addrspace/unwind.h"

enum { PERF_REG_ABI_64 = 2, PERF_REG_SP = 7, PERF_REG_IP = 8 };

/* The file to unwind a mapping's frames with; none for JIT and anonymous
 * maps, or a DSO without a file (perf's unwinder stops there too). */
static bool dso_file(void *arg, const struct mapping *m, struct unwind_source *src)
{
	struct symbolizer *s = arg;
	if (map_identity(m))
		return false;
	uint32_t di = map_dso(m);
	const struct dso *d = sym_dso_loaded(s, di);
	if (d->kind == DSO_VDSO && d->image) {
		*src = (struct unwind_source){ .key = di, .path = d->name, .image = d->image, .image_len = d->image_len };
		return true;
	}
	if (d->kind != DSO_FILE && !d->runtime_path)
		return false;
	*src = (struct unwind_source){ .key = di, .path = d->runtime_path ? d->runtime_path : d->name };
	return true;
}

int sym_unwind_user(struct symbolizer *s, int32_t pid, int32_t tid, const struct sym_user_regs *regs,
		    const uint8_t *stack, size_t stack_len, uint64_t *ips, int max, bool *complete)
{
	if (complete)
		*complete = false;
	if (!regs || regs->abi != PERF_REG_ABI_64 || !regs->regs || max <= 0 ||
	    !(regs->mask >> PERF_REG_SP & 1) || !(regs->mask >> PERF_REG_IP & 1))
		return -1;
	if (!s->unwinder_tried) {
		s->unwinder_tried = true;
		s->unwinder = unwinder_new();
	}
	if (!s->unwinder)
		return -1;
	struct unwind_stack us = { regs->abi, regs->mask, regs->regs, stack, stack_len, 0 };
	bool done;
	int n = unwind_user_stack(s->unwinder, &s->maps, sym_thread_space(s, pid, tid), &us, dso_file, s, ips, max,
				  &done);
	/* perf reports a caller at its call (return address - 1); a frame a
	 * signal interrupted, at its own pc (the unwinder gave it + 1). */
	for (int i = 1; i < n; i++)
		ips[i]--;
	if (complete)
		*complete = done;
	return n;
}
