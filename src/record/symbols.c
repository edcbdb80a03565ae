/* record's use of the shared symbolizer (symbols.h). */
#include "record/symbols.h"

#include "base/alloc.h"
#include "base/hashmap.h"
#include "symbolize/kallsyms.h"
#include "symbolize/symbolize.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>

/* Address-space ids for file mappings: above any real pid (pid_max is at
 * most 2^22), below the symbolizer's int32 range. */
#define FAKE_PID_BASE 0x40000000u

/* Files whose inlined functions are read, held open at once (the least
 * recently asked closed first; addresses named once stay named). */
enum { USER_INLINE_FILES = 32 };

/* Bytes of user files' symbol tables held at once (sym_options'
 * symbols_budget: the least recently used file's dropped past it, read
 * again if its code comes back). A table costs about 100 bytes a symbol
 * (its arrays, and the symbol and string tables it reads in place from
 * the mapped file): libc's 3,000 about 0.5 MB, the largest libraries a
 * host runs (a browser's, LLVM's, 100k-300k symbols) 10-30 MB each. 64
 * MiB keeps the files a busy host runs all the time, where a host that
 * builds and runs new binaries all day would otherwise keep every one it
 * ever ran; a file read again costs a few milliseconds. */
#ifndef USER_SYMBOLS_BYTES /* (-DUSER_SYMBOLS_BYTES=1: a build that drops a table at each change of file) */
#define USER_SYMBOLS_BYTES ((size_t)64 << 20)
#endif

struct symbols {
	struct symbolizer *sym;
	struct hashmap fed; /* mapping id -> 1: already given to the symbolizer */
	struct hashmap noted; /* pid -> 1: its user noted (symbols_note_process) */
	struct kmodules modules;
	bool modules_read;
};

struct symbols *symbols_new(void)
{
	return symbols_new_user(false, true, false);
}

struct symbols *symbols_new_user(bool force, bool no_debuginfod, bool warn)
{
	struct symbols *s = xcalloc(1, sizeof(*s));
	struct sym_options o = { 0 };
	o.kallsyms = "/proc/kallsyms"; /* the running kernel, not a build-id cache */
	o.perfmap_force = force;
	o.perfmap_warn = warn;
	o.no_debuginfod = no_debuginfod;
	o.debuginfod_notices = warn;
	/* A recording that runs for hours meets every binary the machine
	 * runs: the inline expansion's files (mapped, their DWARF read)
	 * would stay resident for each (bench/NOTES.md). */
	o.inline_max_open = USER_INLINE_FILES;
	o.symbols_budget = USER_SYMBOLS_BYTES;
	s->sym = symbolizer_new(&o);
	hashmap_init(&s->fed);
	hashmap_init(&s->noted);
	return s;
}

void symbols_free(struct symbols *s)
{
	if (!s)
		return;
	symbolizer_free(s->sym);
	hashmap_release(&s->fed);
	hashmap_release(&s->noted);
	kmodules_release(&s->modules);
	free(s);
}

void symbols_held(const struct symbols *s, size_t *bytes, uint64_t *dropped)
{
	sym_symbols_held(s->sym, bytes, dropped);
}

void symbols_note_process(struct symbols *s, uint32_t pid, bool exec)
{
	char path[32];
	struct stat st;
	bool inserted;
	hashmap_upsert(&s->noted, pid, 1, &inserted);
	if (!inserted && !exec)
		return;
	snprintf(path, sizeof(path), "/proc/%u", (unsigned)pid);
	if (pid && !stat(path, &st)) /* a /proc/PID directory is owned by the process's euid */
		sym_perfmap_owner(s->sym, (int32_t)pid, (uint32_t)st.st_uid);
}

void symbols_forget_process(struct symbols *s, uint32_t pid)
{
	hashmap_remove(&s->noted, pid);
	sym_perfmap_owner_gone(s->sym, (int32_t)pid);
}

void symbols_forget_map(struct symbols *s, uint32_t id, uint32_t pid)
{
	hashmap_remove(&s->fed, id);
	sym_perfmap_release(s->sym, (int32_t)pid);
}

void symbols_add_perfmap(struct symbols *s, uint32_t pid, const char *text, size_t len)
{
	sym_perfmap_extra(s->sym, (int32_t)pid, text, len);
}

const char *symbols_kernel(struct symbols *s, uint64_t addr, const char **module)
{
	struct sym_frame f;
	*module = "[kernel.kallsyms]";
	if (!sym_lookup(s->sym, -1, -1, addr, true, &f))
		return f.name;
	/* Outside the kernel image: a loaded module's function, named against
	 * the module as perf script names it ("[ext4]"). */
	if (!s->modules_read) {
		s->modules_read = true;
		kmodules_load(&s->modules, "/proc/kallsyms");
	}
	return kmodules_lookup(&s->modules, addr, module);
}

/* Mappings perf names "/tmp/perf-PID.map" when executable: anonymous
 * memory, the heap, stacks and SysV segments (perf's map__new). */
static bool perf_map_named(const char *path)
{
	return !path[0] || !strncmp(path, "//anon", 6) || !strncmp(path, "[anon", 5) ||
	       !strcmp(path, "[heap]") || !strncmp(path, "[stack", 6) || !strncmp(path, "/SYSV", 5);
}

/* Mappings whose code is named from /tmp/perf-PID.map: those, and memfd
 * code (a JIT's double mapping, which perf names by its path). */
static bool anonymous(const char *path)
{
	return perf_map_named(path) || !strncmp(path, "/memfd:", 7);
}

/* The symbolizer's address space for m, given m's mapping at first use:
 * JIT code is looked up in /tmp/perf-PID.map of its own process;
 * everything else in an address space holding just this mapping. */
static int32_t user_space(struct symbols *s, const struct symbols_map *m)
{
	int32_t as = anonymous(m->path) ? (int32_t)m->pid : (int32_t)(FAKE_PID_BASE + m->id);
	bool inserted;
	hashmap_upsert(&s->fed, m->id, 1, &inserted);
	if (inserted) {
		struct sym_mmap mm = { 0 };
		mm.pid = mm.tid = as;
		mm.start = m->start;
		mm.len = m->end - m->start;
		mm.pgoff = m->pgoff;
		mm.prot = PROT_READ | PROT_EXEC;
		mm.flags = MAP_PRIVATE;
		mm.filename = anonymous(m->path) ? "//anon" : m->path;
		sym_mmap(s->sym, &mm);
	}
	return as;
}

const char *symbols_user(struct symbols *s, const struct symbols_map *m, uint64_t addr,
			 const char **module)
{
	int32_t as = user_space(s, m);
	struct sym_frame f;
	int unknown = sym_lookup(s->sym, as, as, addr, false, &f);
	/* An anonymous mapping is named as perf names it ("/tmp/perf-PID.map",
	 * found or not); a file mapping keeps its path. */
	*module = f.have_map && perf_map_named(m->path) ? f.dso : m->path;
	return unknown ? NULL : f.name;
}

int symbols_user_inlines(struct symbols *s, const struct symbols_map *m, uint64_t addr,
			 const struct sym_inline **chain)
{
	int32_t as = user_space(s, m);
	return sym_inline_chain(s->sym, as, as, addr, chain);
}

size_t symbols_build_id(void *symbols, const char *module, uint8_t id[20])
{
	struct symbols *s = symbols;
	return sym_dso_build_id(s->sym, module, true, id);
}

bool symbols_user_preload(struct symbols *s, const struct symbols_map *m, const char **name, const char **module)
{
	if (anonymous(m->path))
		return false;
	*name = symbols_user(s, m, m->addr, module);
	return true;
}
