/* record's use of the shared symbolizer (symbols.h). */
#include "record/symbols.h"

#include "base/alloc.h"
#include "base/hashmap.h"
#include "symbolize/symbolize.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Address-space ids for file mappings: above any real pid (pid_max is at
 * most 2^22), below the symbolizer's int32 range. */
#define FAKE_PID_BASE 0x40000000u

struct symbols {
	struct symbolizer *sym;
	struct hashmap fed; /* mapping id -> 1: already given to the symbolizer */
};

struct symbols *symbols_new(void)
{
	struct symbols *s = xcalloc(1, sizeof(*s));
	struct sym_options o = { 0 };
	o.kallsyms = "/proc/kallsyms"; /* the running kernel, not a build-id cache */
	s->sym = symbolizer_new(&o);
	hashmap_init(&s->fed);
	return s;
}

void symbols_free(struct symbols *s)
{
	if (!s)
		return;
	symbolizer_free(s->sym);
	hashmap_release(&s->fed);
	free(s);
}

const char *symbols_kernel(struct symbols *s, uint64_t addr)
{
	struct sym_frame f;
	return sym_lookup(s->sym, -1, -1, addr, true, &f) ? NULL : f.name;
}

static bool anonymous(const char *path)
{
	return !path[0] || !strncmp(path, "//anon", 6) || !strncmp(path, "[anon", 5) ||
	       !strncmp(path, "/memfd:", 7);
}

const char *symbols_user(struct symbols *s, const struct symbols_map *m, uint64_t addr)
{
	/* JIT code is looked up in /tmp/perf-PID.map of its own process;
	 * everything else in an address space holding just this mapping. */
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
	struct sym_frame f;
	return sym_lookup(s->sym, as, as, addr, false, &f) ? NULL : f.name;
}
