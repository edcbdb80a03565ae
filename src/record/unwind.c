/* record's live DWARF unwinder (see unwind.h). */
#include "record/unwind.h"

#include "base/alloc.h"
#include "base/hashmap.h"
#include "record/record.h"
#include "symbolize/symbolize.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

struct record_unwinder {
	struct symbolizer *sym;
	struct hashmap loaded; /* pid -> 1: /proc/PID/maps read */
	bool read_proc;
};

struct record_unwinder *record_unwinder_new(bool read_proc)
{
#ifndef HAVE_ELFUTILS
	return NULL; /* symbolize/unwind_dwarf.c needs libdw */
#endif
	struct record_unwinder *u = xcalloc(1, sizeof(*u));
	struct sym_options o = { 0 };
	o.kallsyms = "/proc/kallsyms"; /* never read: user frames only */
	u->sym = symbolizer_new(&o);
	hashmap_init(&u->loaded);
	u->read_proc = read_proc;
	return u;
}

void record_unwinder_free(struct record_unwinder *u)
{
	if (!u)
		return;
	symbolizer_free(u->sym);
	hashmap_release(&u->loaded);
	free(u);
}

void record_unwinder_comm(struct record_unwinder *u, uint32_t pid, uint32_t tid, const char *comm,
			  bool exec)
{
	sym_comm(u->sym, (int32_t)pid, (int32_t)tid, comm, strnlen(comm, 16), exec);
}

void record_unwinder_fork(struct record_unwinder *u, uint32_t ppid, uint32_t ptid, uint32_t pid,
			  uint32_t tid)
{
	if (ppid)
		record_unwinder_load(u, ppid);
	sym_fork(u->sym, (int32_t)pid, (int32_t)ppid, (int32_t)tid, (int32_t)ptid);
	bool inserted;
	hashmap_upsert(&u->loaded, pid, 1, &inserted);
}

void record_unwinder_mmap(struct record_unwinder *u, uint32_t pid, uint64_t start, uint64_t len,
			  uint64_t pgoff, const char *path)
{
	struct sym_mmap m = { 0 };
	m.pid = m.tid = (int32_t)pid;
	m.start = start;
	m.len = len;
	m.pgoff = pgoff;
	m.prot = PROT_READ | PROT_EXEC;
	m.flags = MAP_PRIVATE;
	m.filename = path;
	sym_mmap(u->sym, &m);
}

void record_unwinder_exit(struct record_unwinder *u, uint32_t pid)
{
	sym_unwind_forget(u->sym, (int32_t)pid);
}

void record_unwinder_load(struct record_unwinder *u, uint32_t pid)
{
	bool inserted;
	hashmap_upsert(&u->loaded, pid, 1, &inserted);
	if (inserted && pid && u->read_proc)
		sym_load_proc(u->sym, (int32_t)pid);
}

int record_unwind(struct record_unwinder *u, const struct record_sample *s, uint64_t *ips, int max,
		  bool *complete)
{
	*complete = false;
	if (!s->pid)
		return 0;
	record_unwinder_load(u, s->pid);
	struct sym_user_regs regs = { .abi = s->regs_abi, .mask = s->regs_mask, .regs = s->regs };
	int n = sym_unwind_user(u->sym, (int32_t)s->pid, (int32_t)s->tid, &regs, s->stack, s->stack_len,
				ips, max, complete);
	if (n < 0)
		return 0;
	/* The unwinder gives callers as pc - 1; the collector expects return
	 * addresses, as in a frame-pointer chain. */
	for (int i = 1; i < n; i++)
		ips[i]++;
	return n;
}
