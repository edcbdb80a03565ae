/* DWARF unwinding of perf --call-graph dwarf samples with libdw (stub). */
#include "symbolize/internal.h"
#include "symbolize/symbolize.h"

int sym_inlines(struct symbolizer *s, int32_t pid, int32_t tid, uint64_t ip,
		void (*fn)(const char *name, void *arg), void *arg)
{
	(void)s, (void)pid, (void)tid, (void)ip, (void)fn, (void)arg;
	return 0;
}

int sym_unwind_user(struct symbolizer *s, int32_t pid, int32_t tid, const struct sym_user_regs *regs,
		    const uint8_t *stack, size_t stack_len, uint64_t *ips, int max)
{
	(void)s, (void)pid, (void)tid, (void)regs, (void)stack, (void)stack_len, (void)ips, (void)max;
	return -1;
}

void sym_unwind_free(struct symbolizer *s)
{
	(void)s;
}
