/* Record's symbol lookup (symbols.h): /proc/kallsyms for the kernel,
 * .symtab/.dynsym through libelf for files, /tmp/perf-PID.map for JIT code.
 * Each table is loaded on first use and binary-searched. */
#include "record/symbols.h"

#include "base/alloc.h"
#include "base/arena.h"
#include "base/hashmap.h"
#include "base/strpool.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_ELFUTILS
#include <gelf.h>
#include <libelf.h>
#endif

struct sym {
	uint64_t start, size; /* size 0: up to the next symbol */
	const char *name;
};

struct table {
	struct sym *syms;
	size_t nr, alloc;
	/* ELF only: file offset -> address through the PT_LOAD headers. */
	struct seg { uint64_t off, filesz, vaddr; } *segs;
	size_t nr_segs;
	bool loaded;
};

struct symbols {
	struct arena names;
	struct table kernel;
	struct strpool paths;       /* file or "perf-PID" -> table index */
	struct table *tables;
	uint32_t nr_tables, alloc_tables;
};

struct symbols *symbols_new(void)
{
	struct symbols *s = xcalloc(1, sizeof(*s));
	arena_init(&s->names);
	strpool_init(&s->paths);
	return s;
}

static void table_release(struct table *t)
{
	free(t->syms);
	free(t->segs);
}

void symbols_free(struct symbols *s)
{
	if (!s)
		return;
	table_release(&s->kernel);
	for (uint32_t i = 0; i < s->nr_tables; i++)
		table_release(&s->tables[i]);
	free(s->tables);
	strpool_release(&s->paths);
	arena_release(&s->names);
	free(s);
}

static void table_add(struct symbols *s, struct table *t, uint64_t start, uint64_t size,
		      const char *name, size_t len)
{
	VEC_GROW(t->syms, t->nr + 1, t->alloc);
	t->syms[t->nr++] = (struct sym){ start, size, arena_memdup0(&s->names, name, len) };
}

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* Prefer sized symbols, then the shorter name (aliases). */
	if ((x->size != 0) != (y->size != 0))
		return x->size ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void table_sort(struct table *t)
{
	/* kallsyms is mostly in address order already: skip the sort then. */
	bool sorted = true;
	for (size_t i = 1; i < t->nr && sorted; i++)
		sorted = cmp_sym(&t->syms[i - 1], &t->syms[i]) <= 0;
	if (!sorted)
		qsort(t->syms, t->nr, sizeof(t->syms[0]), cmp_sym);
	/* Keep one symbol per address. */
	size_t w = 0;
	for (size_t i = 0; i < t->nr; i++)
		if (!w || t->syms[w - 1].start != t->syms[i].start)
			t->syms[w++] = t->syms[i];
	t->nr = w;
	t->loaded = true;
}

static const char *table_find(const struct table *t, uint64_t addr, bool sized_only)
{
	size_t lo = 0, hi = t->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	const struct sym *sm = &t->syms[lo - 1];
	if (sm->size ? addr - sm->start >= sm->size : sized_only)
		return NULL;
	return sm->name;
}

static void load_kallsyms(struct symbols *s)
{
	struct table *t = &s->kernel;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f = fopen("/proc/kallsyms", "re");

	t->loaded = true;
	if (!f)
		return;
	while ((n = getline(&line, &cap, f)) > 0) {
		/* ADDR TYPE NAME [MODULE] */
		char *end;
		uint64_t addr = strtoull(line, &end, 16);
		if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		char type = end[1];
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		char *name = end + 3;
		size_t len = strcspn(name, " \t\n");
		if (!addr)
			continue; /* hidden by kptr_restrict */
		table_add(s, t, addr, 0, name, len);
	}
	free(line);
	fclose(f);
	table_sort(t);
}

const char *symbols_kernel(struct symbols *s, uint64_t addr)
{
	if (!s->kernel.loaded)
		load_kallsyms(s);
	return table_find(&s->kernel, addr, false);
}

#ifdef HAVE_ELFUTILS
static void load_elf(struct symbols *s, struct table *t, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t nph = 0;
	if (e && !elf_getphdrnum(e, &nph)) {
		t->segs = xcalloc(nph ? nph : 1, sizeof(*t->segs));
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
				t->segs[t->nr_segs++] = (struct seg){ ph.p_offset, ph.p_filesz, ph.p_vaddr };
		}
		/* .symtab when present, else .dynsym (stripped libraries). */
		for (int pass = 0; pass < 2 && !t->nr; pass++) {
			Elf_Scn *scn = NULL;
			while ((scn = elf_nextscn(e, scn))) {
				GElf_Shdr sh;
				if (!gelf_getshdr(scn, &sh))
					continue;
				if (sh.sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB) || !sh.sh_entsize)
					continue;
				Elf_Data *d = elf_getdata(scn, NULL);
				size_t n = d ? sh.sh_size / sh.sh_entsize : 0;
				for (size_t i = 0; i < n; i++) {
					GElf_Sym sym;
					if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
					    !sym.st_value || sym.st_shndx == SHN_UNDEF)
						continue;
					const char *name = elf_strptr(e, sh.sh_link, sym.st_name);
					if (name && *name)
						table_add(s, t, sym.st_value, sym.st_size, name, strlen(name));
				}
			}
		}
	}
	if (e)
		elf_end(e);
	close(fd);
}
#endif

/* perf-PID.map: "START SIZE NAME" per line, hex without 0x. */
static void load_perf_map(struct symbols *s, struct table *t, uint32_t pid)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	snprintf(path, sizeof(path), "/tmp/perf-%" PRIu32 ".map", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	while ((n = getline(&line, &cap, f)) > 0) {
		char *end, *end2;
		uint64_t start = strtoull(line, &end, 16);
		uint64_t size = strtoull(end, &end2, 16);
		if (end == line || end2 == end || *end2 != ' ')
			continue;
		char *name = end2 + 1;
		size_t len = strcspn(name, "\n");
		table_add(s, t, start, size, name, len);
	}
	free(line);
	fclose(f);
}

static struct table *table_for(struct symbols *s, const char *key, size_t len)
{
	uint32_t id = strpool_intern(&s->paths, key, len);
	if (id >= s->nr_tables) {
		VEC_GROW(s->tables, id + 1, s->alloc_tables);
		memset(s->tables + s->nr_tables, 0, (id + 1 - s->nr_tables) * sizeof(s->tables[0]));
		s->nr_tables = id + 1;
	}
	return &s->tables[id];
}

const char *symbols_user(struct symbols *s, const char *path, uint64_t file_offset, uint64_t addr,
			 uint32_t pid)
{
	if (path[0] != '/' || !strncmp(path, "//anon", 6)) {
		/* Anonymous executable memory: JIT code, if it left a map. */
		if (path[0] && strcmp(path, "//anon") && strncmp(path, "[anon", 5))
			return NULL;
		char key[32];
		int n = snprintf(key, sizeof(key), "perf-%" PRIu32, pid);
		struct table *t = table_for(s, key, (size_t)n);
		if (!t->loaded) {
			load_perf_map(s, t, pid);
			table_sort(t);
		}
		return table_find(t, addr, true);
	}
	struct table *t = table_for(s, path, strlen(path));
	if (!t->loaded) {
#ifdef HAVE_ELFUTILS
		load_elf(s, t, path);
#endif
		table_sort(t);
	}
	for (size_t i = 0; i < t->nr_segs; i++) {
		const struct seg *g = &t->segs[i];
		if (file_offset >= g->off && file_offset - g->off < g->filesz)
			return table_find(t, file_offset - g->off + g->vaddr, false);
	}
	return NULL;
}
