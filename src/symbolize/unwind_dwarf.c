/* DWARF unwinding of perf --call-graph dwarf samples with libdw's CFI
 * unwinder (.eh_frame / .debug_frame), the way perf's unwind-libdw.c does
 * it: the user registers seed the initial frame, memory reads come from the
 * copied stack (or from the mapped file), modules are reported lazily at
 * start - pgoff of their map, and every caller's pc is decremented unless
 * the frame is an activation (signal frame).
 *
 * Unlike perf, which builds a Dwfl for every sample, one Dwfl is kept per
 * address space and reused until the space's maps change: the CFI of each
 * module is then parsed once instead of once per sample. x86-64 only. */
#include "symbolize/internal.h"
#include "symbolize/symbolize.h"

#include "base/alloc.h"

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { PERF_REG_ABI_64 = 2, NR_X86_REGS = 24 };

struct unwind_ctx {
	Dwfl *dwfl;
	struct symbolizer *s;
	uint32_t as;      /* address space */
	uint32_t gen;     /* its generation when built */
	bool attached;
	/* the sample being unwound */
	int32_t pid, tid;
	uint64_t regs[NR_X86_REGS];
	bool have[NR_X86_REGS];
	const uint8_t *stack;
	size_t stack_len;
	uint64_t *ips;
	int max, n;
	bool thread_given;
	bool read_failed; /* libdw takes an unreadable return address for the end */
};

struct unwinder {
	struct unwind_ctx **ctx; /* by address space index */
	size_t nr;
	/* The architecture, told to libdw explicitly: left to guess, it takes
	 * the first module reported, and one of another machine (any file a
	 * process maps executable) fails an assertion inside libdw. */
	Elf64_Ehdr arch_header;
	Elf *arch;
	char *debuginfo_path;    /* NULL: libdw's default search path */
	Dwfl_Callbacks callbacks; /* modules are reported with dwfl_report_elf */
};

/* ---- thread callbacks ---------------------------------------------------- */

static pid_t next_thread(Dwfl *dwfl, void *dwfl_arg, void **thread_argp)
{
	(void)dwfl;
	struct unwind_ctx *c = dwfl_arg;
	if (*thread_argp)
		return 0;
	*thread_argp = c;
	return c->tid > 0 ? c->tid : 1;
}

/* Report the module that holds pc (perf's report_module). */
static void report_module(struct unwind_ctx *c, uint64_t pc)
{
	const struct mapping *m = sym_find_map(c->s, c->pid, c->tid, pc);
	if (!m || map_identity(m))
		return;
	uint64_t base = m->start - m->pgoff;
	Dwfl_Module *mod = dwfl_addrmodule(c->dwfl, pc);
	if (mod) {
		Dwarf_Addr start;
		dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
		if (start == base)
			return;
	}
	struct dso *d = sym_dso_loaded(c->s, map_dso(m));
	const char *path = d->runtime_path ? d->runtime_path : d->name;
	int fd = -1;
	if (d->kind == DSO_VDSO && d->image) {
		/* our own vdso, the recorded one by build-id: hand libdw a copy */
		fd = memfd_create("scorch-vdso", MFD_CLOEXEC);
		if (fd < 0 || write(fd, d->image, d->image_len) != (ssize_t)d->image_len) {
			if (fd >= 0)
				close(fd);
			return;
		}
		path = d->name;
	} else if (d->kind != DSO_FILE && !d->runtime_path) {
		return;
	}
	dwfl_report_begin_add(c->dwfl);
	if (!dwfl_report_elf(c->dwfl, d->name, path, fd, base, false) && fd >= 0)
		close(fd);
	dwfl_report_end(c->dwfl, NULL, NULL);
}

static bool read_file_word(struct unwind_ctx *c, uint64_t addr, Dwarf_Word *out)
{
	const struct mapping *m = sym_find_map(c->s, c->pid, c->tid, addr);
	if (!m || map_identity(m))
		return false;
	struct dso *d = sym_dso_loaded(c->s, map_dso(m));
	const char *path = d->runtime_path ? d->runtime_path : d->name;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t r = pread(fd, out, sizeof(*out), (off_t)(addr - m->start + m->pgoff));
	close(fd);
	return r == (ssize_t)sizeof(*out);
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	(void)dwfl;
	struct unwind_ctx *c = arg;
	uint64_t sp = c->regs[7];
	if (addr + sizeof(Dwarf_Word) < addr)
		return false;
	if (addr < sp || addr + sizeof(Dwarf_Word) > sp + c->stack_len) {
		if (read_file_word(c, addr, result))
			return true;
		c->read_failed = true;
		return false;
	}
	memcpy(result, c->stack + (addr - sp), sizeof(*result));
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwind_ctx *c = arg;
	/* DWARF numbering: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip, from
	 * perf's AX BX CX DX SI DI BP SP IP .. R8..R15 (indices below). */
	static const int from_perf[17] = { 0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8 };
	Dwarf_Word r[17];
	for (int i = 0; i < 17; i++)
		r[i] = c->have[from_perf[i]] ? c->regs[from_perf[i]] : 0;
	return dwfl_thread_state_registers(thread, 0, 17, r);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static int frame_callback(Dwfl_Frame *state, void *arg)
{
	struct unwind_ctx *c = arg;
	Dwarf_Addr pc;
	bool activation;
	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	report_module(c, pc);
	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	bool known = dwfl_addrmodule(c->dwfl, pc) != NULL;
	if (!activation)
		pc--;
	c->ips[c->n++] = pc;
	/* Without a module there is no CFI for this frame: stop here, as perf
	 * does, rather than let libdw guess through frame pointers. */
	if (!known)
		return DWARF_CB_ABORT;
	return c->n >= c->max ? DWARF_CB_ABORT : DWARF_CB_OK;
}

/* ---- contexts --------------------------------------------------------------- */

static void ctx_free(struct unwind_ctx *c)
{
	if (!c)
		return;
	if (c->dwfl)
		dwfl_end(c->dwfl);
	free(c);
}

static struct unwind_ctx *get_ctx(struct symbolizer *s, uint32_t as)
{
	struct unwinder *u = s->unwinder;
	if (!u) {
		u = s->unwinder = xcalloc(1, sizeof(*u));
		u->callbacks.find_debuginfo = dwfl_standard_find_debuginfo;
		u->callbacks.debuginfo_path = &u->debuginfo_path;
		u->callbacks.section_address = dwfl_offline_section_address;
		Elf64_Ehdr *h = &u->arch_header;
		memcpy(h->e_ident, ELFMAG, SELFMAG);
		h->e_ident[EI_CLASS] = ELFCLASS64;
		h->e_ident[EI_DATA] = ELFDATA2LSB;
		h->e_ident[EI_VERSION] = EV_CURRENT;
		h->e_type = ET_EXEC;
		h->e_machine = EM_X86_64;
		h->e_version = EV_CURRENT;
		h->e_ehsize = sizeof(*h);
		elf_version(EV_CURRENT);
		u->arch = elf_memory((char *)h, sizeof(*h));
	}
	if (as >= u->nr) {
		u->ctx = xreallocarray(u->ctx, as + 1, sizeof(*u->ctx));
		memset(u->ctx + u->nr, 0, (as + 1 - u->nr) * sizeof(*u->ctx));
		u->nr = as + 1;
	}
	struct unwind_ctx *c = u->ctx[as];
	if (c && c->gen != procmaps_space_gen(&s->maps, as)) {
		ctx_free(c);
		c = u->ctx[as] = NULL;
	}
	if (!c) {
		c = u->ctx[as] = xcalloc(1, sizeof(*c));
		c->s = s;
		c->as = as;
		c->gen = procmaps_space_gen(&s->maps, as);
		c->dwfl = dwfl_begin(&u->callbacks);
	}
	return c;
}

void sym_unwind_free(struct symbolizer *s)
{
	struct unwinder *u = s->unwinder;
	if (!u)
		return;
	for (size_t i = 0; i < u->nr; i++)
		ctx_free(u->ctx[i]);
	free(u->ctx);
	if (u->arch)
		elf_end(u->arch);
	free(u);
	s->unwinder = NULL;
}

int sym_unwind_user(struct symbolizer *s, int32_t pid, int32_t tid, const struct sym_user_regs *regs,
		    const uint8_t *stack, size_t stack_len, uint64_t *ips, int max, bool *complete)
{
	if (complete)
		*complete = false;
	if (!regs || regs->abi != PERF_REG_ABI_64 || !regs->regs || max <= 0)
		return -1;
	uint32_t as = sym_thread_space(s, pid, tid);
	struct unwind_ctx *c = get_ctx(s, as);
	if (!c->dwfl)
		return -1;
	c->pid = pid;
	c->tid = tid;
	memset(c->have, 0, sizeof(c->have));
	size_t k = 0;
	for (int bit = 0; bit < 64; bit++) {
		if (!(regs->mask >> bit & 1))
			continue;
		if (bit < NR_X86_REGS) {
			c->regs[bit] = regs->regs[k];
			c->have[bit] = true;
		}
		k++;
	}
	if (!c->have[8] || !c->have[7])
		return -1;
	c->stack = stack;
	c->stack_len = stack_len;
	c->ips = ips;
	c->max = max;
	c->n = 0;
	c->read_failed = false;
	report_module(c, c->regs[8]);
	if (!c->attached) {
		if (!dwfl_attach_state(c->dwfl, s->unwinder ? ((struct unwinder *)s->unwinder)->arch : NULL,
				       pid > 0 ? pid : 1, &thread_callbacks, c))
			return -1;
		c->attached = true;
	}
	/* 0: the walk ended where the CFI says the stack ends (the return
	 * address of _start or of a thread's start is undefined). */
	int end = dwfl_getthread_frames(c->dwfl, tid > 0 ? tid : 1, frame_callback, c);
	if (complete)
		*complete = end == 0 && c->n > 0 && !c->read_failed;
	return c->n;
}
