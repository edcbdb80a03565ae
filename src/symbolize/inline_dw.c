/* --inline for perf script text: binutils addr2line's -i -f -s -C answer
 * computed with libdw (line table, inline scopes) and libelf (symbol table
 * fallback), plus the stackcollapse-perf.pl logic around it (nm lookup of
 * func+0xOFF when the address is unknown, frame order, --context). */
#include "symbolize/inline.h"
#include "symbolize/inline_scopes.h"

#include "base/alloc.h"
#include "base/hash.h"
#include "base/hashmap.h"

#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


/* What a long-running addr2line has learnt of a function without a
 * linkage name (binutils' funcinfo): once named from the symbol table, it
 * keeps is_linkage set, and its name becomes the symbol's when the symbol
 * starts where the function does. */
struct learnt_name {
	const char *renamed; /* NULL: keeps its DWARF name */
};

/* One candidate of a symbol table for elf_find_function: a function or
 * untyped symbol with a name, the STT_FILE before it in the table, and its
 * place in the table (ties are decided in table order). */
struct table_sym {
	uint64_t value, size;
	size_t shndx, order;
	const char *name, *file;
	bool func;
};

/* A symbol table's candidates sorted by (section, value, table order),
 * built the first time the table is asked (a linear scan per address
 * made report --inline take minutes on a system-wide capture). */
struct sym_index {
	bool built;
	struct table_sym *syms;
	size_t n;
};

struct a2l_module {
	char *path;
	int fd, debug_fd;
	Elf *elf, *debug_elf; /* the file; its separate debug file, or NULL */
	Dwarf *dw;
	struct scope_cache *scopes; /* of dw's units */
	struct sym_index symtab, debug_symtab, dynsym; /* of elf, debug_elf, elf */
	struct hashmap learnt; /* function DIE offset -> index into names */
	struct learnt_name *names;
	size_t nr_names, names_alloc;
	bool open;             /* the fields above are there (inline_resolver_limit) */
	uint64_t used;         /* when last asked */
};

struct a2l_entry {
	char *pc, *mod; /* key */
	char *result;
};

/* addr2line -C demangles with parameters (libiberty's cp-demangle, the
 * same code as libstdc++'s __cxa_demangle, looked up at run time so that
 * scorch does not link the C++ runtime). */
typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);

struct inline_resolver {
	bool context;
	bool libdw_walks; /* scopes by libdw's walks, not the units' index */
	cxa_demangle_fn cxa;
	void *libstdcxx;
	struct a2l_module *mods;
	size_t nmods, mods_alloc;
	struct a2l_entry *ents;
	size_t nents, ents_alloc;
	struct hashmap cache; /* hash(pc, mod) -> entry */
	/* addr2line -C's names, by the address of the name demangled (the
	 * files' string tables, open as long as the resolver) */
	struct hashmap demangled; /* name address -> index into dm */
	char **dm;		  /* NULL: not a mangled name */
	size_t ndm, dm_alloc;
	size_t max_open, nr_open; /* inline_resolver_limit; modules open now */
	uint64_t tick;
};

struct inline_resolver *inline_resolver_new(bool context)
{
	struct inline_resolver *r = xcalloc(1, sizeof(*r));
	r->context = context;
	r->libstdcxx = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	if (r->libstdcxx) {
		void *f = dlsym(r->libstdcxx, "__cxa_demangle");
		memcpy(&r->cxa, &f, sizeof(f));
	}
	hashmap_init(&r->cache);
	hashmap_init(&r->demangled);
	elf_version(EV_CURRENT);
	return r;
}

void inline_resolver_use_libdw_walks(struct inline_resolver *r)
{
	r->libdw_walks = true;
}

void inline_resolver_limit(struct inline_resolver *r, size_t max_open)
{
	r->max_open = max_open;
}

/* Everything of m but its path: unmapped, closed, freed. */
static void module_close(struct inline_resolver *r, struct a2l_module *m)
{
	if (!m->open)
		return;
	scope_cache_free(m->scopes);
	if (m->dw)
		dwarf_end(m->dw);
	if (m->elf)
		elf_end(m->elf);
	if (m->fd >= 0)
		close(m->fd);
	if (m->debug_elf)
		elf_end(m->debug_elf);
	if (m->debug_fd >= 0)
		close(m->debug_fd);
	hashmap_release(&m->learnt);
	free(m->symtab.syms);
	free(m->debug_symtab.syms);
	free(m->dynsym.syms);
	free(m->names);
	m->open = false;
	r->nr_open--;
}

/* The demangled names, by the address of names in the files' string
 * tables: forgotten when a file is closed (another may be mapped there). */
static void forget_demangled(struct inline_resolver *r)
{
	for (size_t i = 0; i < r->ndm; i++)
		free(r->dm[i]);
	r->ndm = 0;
	hashmap_release(&r->demangled);
	hashmap_init(&r->demangled);
}

/* Room for one more open module under the limit: the least recently
 * asked is closed (opened again when asked). */
static void make_room(struct inline_resolver *r)
{
	if (!r->max_open || r->nr_open < r->max_open)
		return;
	struct a2l_module *lru = NULL;
	for (size_t i = 0; i < r->nmods; i++)
		if (r->mods[i].open && (!lru || r->mods[i].used < lru->used))
			lru = &r->mods[i];
	if (lru) {
		module_close(r, lru);
		forget_demangled(r);
	}
}

void inline_resolver_free(struct inline_resolver *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nmods; i++) {
		module_close(r, &r->mods[i]);
		free(r->mods[i].path);
	}
	for (size_t i = 0; i < r->nents; i++) {
		free(r->ents[i].pc);
		free(r->ents[i].mod);
		free(r->ents[i].result);
	}
	free(r->mods);
	free(r->ents);
	hashmap_release(&r->cache);
	for (size_t i = 0; i < r->ndm; i++)
		free(r->dm[i]);
	free(r->dm);
	hashmap_release(&r->demangled);
	if (r->libstdcxx)
		dlclose(r->libstdcxx);
	free(r);
}

static char *demangle_full(const struct inline_resolver *r, const char *name)
{
	if (!r->cxa || strncmp(name, "_Z", 2))
		return NULL;
	int status = 0;
	char *d = r->cxa(name, NULL, NULL, &status);
	if (status) {
		free(d);
		return NULL;
	}
	return d;
}

/* Whether elf has a .debug_info section with contents. */
static bool has_debug_info(Elf *elf)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".debug_info"))
			return true;
	}
	return false;
}

/* elf's file held in memory (mapped, as ELF_C_READ_MMAP maps it, or read
 * whole where it could not be), so that its descriptor can be closed now:
 * a system-wide recording meets more files than a process may keep open,
 * one descriptor each for as long as the resolver lives. -1: closed. */
static int fd_done(Elf *elf, int fd)
{
	if (elf_cntl(elf, ELF_C_FDREAD)) /* (which also says the descriptor is done with) */
		return fd; /* (kept: libelf still reads from it) */
	close(fd);
	return -1;
}

/* DWARF from the file at path, when it is an ELF file with some. */
static bool try_debug_file(struct a2l_module *m, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Dwarf *dw = elf && elf_kind(elf) == ELF_K_ELF ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
	if (!dw) {
		if (elf)
			elf_end(elf);
		close(fd);
		return false;
	}
	m->debug_fd = fd_done(elf, fd);
	m->debug_elf = elf;
	m->dw = dw;
	return true;
}

/* A file without DWARF: binutils reads it from the separate debug file,
 * by build-id (/usr/lib/debug/.build-id/xx/yyyy.debug), else by
 * .gnu_debuglink (next to the file, in its .debug/, under /usr/lib/debug). */
static void open_debug_file(struct a2l_module *m)
{
	const void *id;
	ssize_t n = dwelf_elf_gnu_build_id(m->elf, &id);
	char buf[4096];
	if (n > 1 && n <= 64) {
		char hex[130];
		for (ssize_t i = 0; i < n; i++)
			snprintf(hex + 2 * i, 3, "%02x", ((const unsigned char *)id)[i]);
		snprintf(buf, sizeof(buf), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
		if (try_debug_file(m, buf))
			return;
	}
	GElf_Word crc;
	const char *link = dwelf_elf_gnu_debuglink(m->elf, &crc);
	if (!link || !*link)
		return;
	const char *slash = strrchr(m->path, '/');
	int dl = slash ? (int)(slash - m->path) : 0;
	static const char *const fmts[] = { "%.*s/%s", "%.*s/.debug/%s", "/usr/lib/debug%.*s/%s" };
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		snprintf(buf, sizeof(buf), fmts[i], dl, m->path, link);
		if (try_debug_file(m, buf))
			return;
	}
}

static void module_open(struct inline_resolver *r, struct a2l_module *m);

static struct a2l_module *module(struct inline_resolver *r, const char *path)
{
	struct a2l_module *m = NULL;
	for (size_t i = 0; i < r->nmods && !m; i++)
		if (!strcmp(r->mods[i].path, path))
			m = &r->mods[i];
	if (!m) {
		VEC_GROW(r->mods, r->nmods + 1, r->mods_alloc);
		m = &r->mods[r->nmods++];
		m->path = xstrdup(path);
		m->open = false;
	}
	m->used = ++r->tick;
	if (!m->open) {
		make_room(r);
		module_open(r, m);
	}
	return m;
}

/* m's file, its debug file and DWARF, opened (again, after a close). */
static void module_open(struct inline_resolver *r, struct a2l_module *m)
{
	const char *path = m->path;
	m->open = true;
	r->nr_open++;
	m->fd = open(path, O_RDONLY | O_CLOEXEC);
	m->elf = m->debug_elf = NULL;
	m->debug_fd = -1;
	m->dw = NULL;
	m->scopes = NULL;
	m->symtab = m->debug_symtab = m->dynsym = (struct sym_index){ 0 };
	hashmap_init(&m->learnt);
	m->names = NULL;
	m->nr_names = m->names_alloc = 0;
	if (m->fd >= 0) {
		m->elf = elf_begin(m->fd, ELF_C_READ_MMAP, NULL);
		if (m->elf && elf_kind(m->elf) != ELF_K_ELF) {
			elf_end(m->elf);
			m->elf = NULL;
		}
		if (m->elf)
			m->fd = fd_done(m->elf, m->fd);
		if (m->elf)
			m->dw = dwarf_begin_elf(m->elf, DWARF_C_READ, NULL);
		if (m->elf && !has_debug_info(m->elf)) {
			if (m->dw)
				dwarf_end(m->dw);
			m->dw = NULL;
			open_debug_file(m);
		}
		if (m->dw)
			m->scopes = scope_cache_new(!r->libdw_walks);
	}
}

struct strbuf {
	char *s;
	size_t len, alloc;
};

static void sb_add(struct strbuf *b, const char *s, size_t n)
{
	VEC_GROW(b->s, b->len + n + 1, b->alloc);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void sb_str(struct strbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* One addr2line record: the function name (NULL: the "??" / "??:0" of an
 * address nothing is known of), its file (NULL: "??") and line (0: "?"). */
typedef void (*record_fn)(void *arg, const char *func, const char *file, int line);

/* binutils' mangle_style() == 0: languages whose DW_AT_name is a linkage
 * name (C, assembler, ...); other languages' are not. */
static bool name_is_linkage(int lang)
{
	switch (lang) {
	case DW_LANG_C89: case DW_LANG_C: case DW_LANG_Cobol74: case DW_LANG_Cobol85:
	case DW_LANG_Fortran77: case DW_LANG_Pascal83: case DW_LANG_PLI: case DW_LANG_C99:
	case DW_LANG_UPC: case DW_LANG_C11: case DW_LANG_Mips_Assembler:
	case 0x8765 /* DW_LANG_Upc */: case 0x8003 /* HP_Basic91 */: case 0x8005 /* HP_IMacro */:
	case 0x8007 /* HP_Assembler */:
		return true;
	default:
		return false;
	}
}

/* binutils' funcinfo name: the DIE's attributes in order, DW_AT_name only
 * while there is no name yet, a linkage name always, and the DIE that
 * DW_AT_specification (or at the top, DW_AT_abstract_origin) names read
 * where the reference stands. */
struct dwarf_name {
	const char *name;
	bool is_linkage;
};

struct name_walk {
	struct dwarf_name *n;
	Dwarf_Die *die;
	bool top;
	int depth;
};

static void read_dwarf_name(Dwarf_Die *die, bool top, int depth, struct dwarf_name *n);

static int name_attr(Dwarf_Attribute *at, void *arg)
{
	struct name_walk *w = arg;
	const char *str;
	Dwarf_Die ref;
	switch (dwarf_whatattr(at)) {
	case DW_AT_abstract_origin:
	case DW_AT_specification:
		if ((w->top || dwarf_whatattr(at) == DW_AT_specification) && w->depth < 100 &&
		    dwarf_formref_die(at, &ref))
			read_dwarf_name(&ref, false, w->depth + 1, w->n);
		break;
	case DW_AT_name:
		if (!w->n->name && (str = dwarf_formstring(at))) {
			w->n->name = str;
			Dwarf_Die cu;
			if (dwarf_diecu(w->die, &cu, NULL, NULL) && name_is_linkage(dwarf_srclang(&cu)))
				w->n->is_linkage = true;
		}
		break;
	case DW_AT_linkage_name:
	case DW_AT_MIPS_linkage_name:
		if ((str = dwarf_formstring(at))) {
			w->n->name = str;
			w->n->is_linkage = true;
		}
		break;
	default:
		break;
	}
	return DWARF_CB_OK;
}

static void read_dwarf_name(Dwarf_Die *die, bool top, int depth, struct dwarf_name *n)
{
	struct name_walk w = { n, die, top, depth };
	dwarf_getattrs(die, name_attr, &w, 0);
}

/* The name an inline chain's caller shows: its DWARF name, or the symbol
 * name a long-running addr2line gave it (NULL: "??"). */
static const char *chain_name(const struct a2l_module *m, bool learn, Dwarf_Die *die)
{
	uint32_t idx;
	if (learn && hashmap_get(&m->learnt, dwarf_dieoffset(die), &idx) && m->names[idx].renamed)
		return m->names[idx].renamed;
	struct dwarf_name n = { 0 };
	read_dwarf_name(die, true, 0, &n);
	return n.name && *n.name ? n.name : NULL;
}

/* demangle_full(name), once per name string. */
static const char *demangled(struct inline_resolver *r, const char *name)
{
	uint32_t idx;
	uint64_t key = (uint64_t)(uintptr_t)name;
	if (hashmap_get(&r->demangled, key, &idx))
		return r->dm[idx];
	VEC_GROW(r->dm, r->ndm + 1, r->dm_alloc);
	r->dm[r->ndm] = demangle_full(r, name);
	bool ins;
	*hashmap_upsert(&r->demangled, key, (uint32_t)r->ndm, &ins) = (uint32_t)r->ndm;
	return r->dm[r->ndm++];
}

/* Emit a record named `name` (a linkage or symbol name), demangled with
 * parameters when `demangle` (addr2line -C). */
static void emit_named(struct inline_resolver *r, bool demangle, record_fn fn, void *arg, const char *name,
		       const char *file, int line)
{
	const char *d = demangle && name ? demangled(r, name) : NULL;
	fn(arg, d ? d : name ? name : "??", file, line);
}

/* Is addr inside an allocated section (addr2line finds nothing outside)? */
static bool in_section(Elf *elf, uint64_t addr, size_t *shndx)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
			continue;
		if (addr >= sh.sh_addr && addr < sh.sh_addr + sh.sh_size) {
			*shndx = elf_ndxscn(scn);
			return true;
		}
	}
	return false;
}

/* binutils' better_fit (elf_find_function): is a symbol at value of size
 * a better name for addr than the best so far? Nearer wins; at the same
 * address, one that covers addr, then functions, then the smaller. */
static bool better_fit(bool have, uint64_t best_value, uint64_t best_size, bool best_func, uint64_t value,
		       uint64_t size, bool func, uint64_t addr)
{
	if (value > addr)
		return false;
	if (!have || value > best_value)
		return true;
	if (value < best_value)
		return false;
	if (best_value + best_size <= addr)
		return size > best_size;
	if (value + size <= addr)
		return false;
	if (!best_func && func)
		return true;
	if (best_func && !func)
		return false;
	return size < best_size;
}

static int table_sym_cmp(const void *a, const void *b)
{
	const struct table_sym *x = a, *y = b;
	if (x->shndx != y->shndx)
		return x->shndx < y->shndx ? -1 : 1;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* A symbol's sort key: its section and value, and its place in the
 * table; the byte `pass` of (section, value), the least significant first. */
struct sym_key {
	uint64_t value;
	uint32_t at;
	uint16_t shndx;
};

static unsigned key_byte(const struct sym_key *k, int pass)
{
	return pass < 8 ? (unsigned)(k->value >> (8 * pass)) & 0xff : (unsigned)(k->shndx >> (8 * (pass - 8))) & 0xff;
}

/* syms, in table order, sorted as table_sym_cmp sorts them: by a stable
 * radix sort on (section, value) a byte at a time (qsort's comparisons
 * were most of the index's cost on tables of 10^5 symbols). */
static void sort_table_syms(struct table_sym *syms, size_t n)
{
	bool radix = n >= 64 && n <= UINT32_MAX;
	for (size_t i = 0; i < n && radix; i++)
		radix = syms[i].shndx <= 0xffff && (!i || syms[i - 1].order < syms[i].order);
	if (!radix) {
		qsort(syms, n, sizeof(*syms), table_sym_cmp);
		return;
	}
	struct sym_key *keys = xreallocarray(NULL, n, sizeof(*keys)), *tmp = xreallocarray(NULL, n, sizeof(*tmp));
	for (size_t i = 0; i < n; i++)
		keys[i] = (struct sym_key){ syms[i].value, (uint32_t)i, (uint16_t)syms[i].shndx };
	for (int pass = 0; pass < 10; pass++) {
		size_t count[257] = { 0 };
		for (size_t i = 0; i < n; i++)
			count[key_byte(&keys[i], pass) + 1]++;
		if (count[key_byte(&keys[0], pass) + 1] == n)
			continue; /* all alike in this byte */
		for (int b = 0; b < 256; b++)
			count[b + 1] += count[b];
		for (size_t i = 0; i < n; i++)
			tmp[count[key_byte(&keys[i], pass)]++] = keys[i];
		struct sym_key *swap = keys;
		keys = tmp;
		tmp = swap;
	}
	struct table_sym *sorted = xreallocarray(NULL, n, sizeof(*sorted));
	for (size_t i = 0; i < n; i++)
		sorted[i] = syms[keys[i].at];
	memcpy(syms, sorted, n * sizeof(*syms));
	free(sorted);
	free(keys);
	free(tmp);
}

/* The first table of type `type` in elf with contents, as its candidates. */
static void build_sym_index(Elf *elf, Elf64_Word type, struct sym_index *ix)
{
	ix->built = true;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		if (!data || !sh.sh_entsize)
			continue;
		size_t n = sh.sh_size / sh.sh_entsize, alloc = 0;
		const char *cur_file = NULL;
		for (size_t i = 1; i < n; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(data, (int)i, &sym))
				continue;
			int t = GELF_ST_TYPE(sym.st_info);
			const char *nm = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (t == STT_FILE) {
				cur_file = nm;
				continue;
			}
			if ((t != STT_FUNC && t != STT_GNU_IFUNC && t != STT_NOTYPE) || !nm || !*nm)
				continue;
			VEC_GROW(ix->syms, ix->n + 1, alloc);
			ix->syms[ix->n++] = (struct table_sym){ sym.st_value, sym.st_size, sym.st_shndx, i,
								nm, cur_file, t != STT_NOTYPE };
		}
		if (ix->n > 1)
			sort_table_syms(ix->syms, ix->n);
		return;
	}
}

/* The symbol binutils' elf_find_function names addr with, from the symbol
 * table of type `type` in elf (functions and untyped symbols of section
 * shndx), with the STT_FILE before it. binutils scans the whole table
 * keeping the better_fit; only the symbols at the greatest value not above
 * addr can win, and among them the scan's choice is the same when they are
 * taken in table order, so the index is searched for them. */
static bool table_function(Elf *elf, Elf64_Word type, struct sym_index *ix, size_t shndx, uint64_t addr,
			   const char **name, const char **file, uint64_t *value)
{
	if (!ix->built)
		build_sym_index(elf, type, ix);
	/* the first symbol after (shndx, addr) */
	size_t lo = 0, hi = ix->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct table_sym *s = &ix->syms[mid];
		if (s->shndx < shndx || (s->shndx == shndx && s->value <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || ix->syms[lo - 1].shndx != shndx)
		return false;
	uint64_t top = ix->syms[lo - 1].value;
	size_t first = lo - 1;
	while (first > 0 && ix->syms[first - 1].shndx == shndx && ix->syms[first - 1].value == top)
		first--;
	const struct table_sym *best = NULL;
	for (size_t i = first; i < lo; i++) {
		const struct table_sym *s = &ix->syms[i];
		if (better_fit(best != NULL, best ? best->value : 0, best ? best->size : 0, best && best->func,
			       s->value, s->size, s->func, addr))
			best = s;
	}
	*name = best->name;
	*file = best->file;
	*value = best->value;
	return true;
}

/* A function's address ranges as binutils keeps them (arange_add): empty
 * ranges dropped, a range that continues one already held (end to start)
 * merged into it, checked in binutils' list order (the first range read,
 * then the others newest first). */
#define ARANGES_MAX 64

struct aranges {
	Dwarf_Addr lo[ARANGES_MAX], hi[ARANGES_MAX];
	int n;
};

static void read_aranges(Dwarf_Die *die, struct aranges *a)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	a->n = 0;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (lo == hi)
			continue;
		bool merged = false;
		for (int k = 0; k < a->n && !merged; k++) {
			int i = k ? a->n - k : 0;
			if (lo == a->hi[i]) {
				a->hi[i] = hi;
				merged = true;
			} else if (hi == a->lo[i]) {
				a->lo[i] = lo;
				merged = true;
			}
		}
		if (!merged && a->n < ARANGES_MAX) {
			a->lo[a->n] = lo;
			a->hi[a->n++] = hi;
		}
	}
}

/* The length of die's range around addr, or 0 when it does not hold addr. */
static Dwarf_Addr range_around(Dwarf_Die *die, uint64_t addr)
{
	struct aranges a;
	read_aranges(die, &a);
	for (int i = 0; i < a.n; i++)
		if (addr >= a.lo[i] && addr < a.hi[i])
			return a.hi[i] - a.lo[i];
	return 0;
}

/* Where binutils says die starts (its first range's low address). */
static bool first_low(Dwarf_Die *die, Dwarf_Addr *low)
{
	struct aranges a;
	read_aranges(die, &a);
	*low = a.n ? a.lo[0] : 0;
	return a.n > 0;
}

/* binutils' lookup_address_in_function_table: of the functions of equal
 * smallest range around addr, the one read last names it (assemblers emit
 * one subprogram per alias of a routine). The CU's subprograms after fd
 * with a range as small as fd's: the last one in *out. */
static bool last_equal_subprogram(struct a2l_module *m, Dwarf_Die *cu, Dwarf_Die *fd, uint64_t addr,
				  Dwarf_Die *out)
{
	Dwarf_Addr len = range_around(fd, addr);
	if (!len)
		return false;
	/* a range around addr of non-zero length holds addr */
	Dwarf_Die *subs;
	int n = scope_unit_subprograms(m->scopes, cu, addr, &subs);
	bool found = false;
	for (int i = 0; i < n; i++) {
		if (dwarf_dieoffset(&subs[i]) > dwarf_dieoffset(fd) && range_around(&subs[i], addr) == len) {
			*out = subs[i];
			found = true;
		}
	}
	free(subs);
	return found;
}

/* The function binutils names for addr from the symbol tables: the
 * file's .symtab, else its separate debug file's, else its .dynsym. */
static bool symbol_function(struct a2l_module *m, size_t shndx, uint64_t addr, const char **name,
			    const char **file, uint64_t *value)
{
	return table_function(m->elf, SHT_SYMTAB, &m->symtab, shndx, addr, name, file, value) ||
	       (m->debug_elf &&
		table_function(m->debug_elf, SHT_SYMTAB, &m->debug_symtab, shndx, addr, name, file, value)) ||
	       table_function(m->elf, SHT_DYNSYM, &m->dynsym, shndx, addr, name, file, value);
}

/* The name binutils gives the function that fits addr best: its DWARF
 * name when that is a linkage name; otherwise the name of the symbol at
 * addr the first time, its DWARF name afterwards, unless the symbol
 * starts where the function does (then the symbol's for good). With
 * `learn`, as one long-running addr2line answers (perf's); without, as a
 * fresh one (stackcollapse-perf.pl's). NULL: "??". */
static const char *best_fit_name(struct a2l_module *m, bool learn, size_t shndx, uint64_t addr, Dwarf_Die *die)
{
	uint32_t idx;
	if (learn && hashmap_get(&m->learnt, dwarf_dieoffset(die), &idx))
		return chain_name(m, true, die);
	struct dwarf_name n = { 0 };
	read_dwarf_name(die, true, 0, &n);
	const char *dwarf = n.name && *n.name ? n.name : NULL;
	if (n.is_linkage)
		return dwarf;
	const char *sym, *sfile;
	uint64_t value = 0;
	bool found = symbol_function(m, shndx, addr, &sym, &sfile, &value);
	if (learn) {
		Dwarf_Addr low;
		VEC_GROW(m->names, m->nr_names + 1, m->names_alloc);
		m->names[m->nr_names].renamed = found && first_low(die, &low) && low == value ? sym : NULL;
		bool ins;
		*hashmap_upsert(&m->learnt, dwarf_dieoffset(die), (uint32_t)m->nr_names, &ins) = (uint32_t)m->nr_names;
		m->nr_names++;
	}
	return found ? sym : dwarf;
}

/* addr2line -i -f's records for addr in module m, innermost first: -C
 * when `demangle`, one long-running process when `learn` (see
 * best_fit_name); without `lines`, the records' file and line are not
 * looked up (NULL, 0). Nothing when the file cannot be read. */
static void addr2line_records(struct inline_resolver *r, struct a2l_module *m, uint64_t addr, bool demangle,
			      bool learn, bool lines, record_fn fn, void *arg)
{
	if (!m->elf)
		return; /* addr2line prints an error and nothing on stdout */
	size_t shndx = 0;
	if (!in_section(m->elf, addr, &shndx)) {
		fn(arg, NULL, NULL, 0);
		return;
	}
	const char *name, *sfile;
	uint64_t value;
	Dwarf_Die cu;
	if (m->dw && dwarf_addrdie(m->dw, addr, &cu)) {
		/* dwarf_getscopes follows an inline's abstract origin; the chain
		 * of callers is the concrete nesting of the innermost scope. */
		Dwarf_Die *scopes;
		int ns = scope_nesting(m->scopes, &cu, addr, &scopes);
		/* the functions around addr, innermost first, up to the
		 * subprogram (binutils' funcinfo and its caller_func chain) */
		int nf = 0;
		for (int i = 0; i < ns; i++) {
			int tag = dwarf_tag(&scopes[i]);
			if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
				continue;
			scopes[nf++] = scopes[i];
			if (tag == DW_TAG_subprogram)
				break;
		}
		/* the line table (parsed the first time a unit is asked) only
		 * for file:line, or to know whether addr has a line */
		Dwarf_Line *ln = lines ? dwarf_getsrc_die(&cu, addr) : NULL;
		const char *file = ln ? dwarf_linesrc(ln, NULL, NULL) : NULL;
		int line = 0;
		if (ln)
			dwarf_lineno(ln, &line);
		/* binutils names the first record after the function whose
		 * address range around addr is the smallest (of equal ones the
		 * inner), not always the innermost inline; the others are its
		 * callers, at their call sites */
		int best = -1;
		Dwarf_Addr best_len = 0;
		for (int i = 0; i < nf; i++) {
			Dwarf_Addr len = range_around(&scopes[i], addr);
			if (len && (best < 0 || len < best_len)) {
				best = i;
				best_len = len;
			}
		}
		if (best >= 0) {
			Dwarf_Die *fd = &scopes[best], last;
			if (dwarf_tag(fd) == DW_TAG_subprogram && last_equal_subprogram(m, &cu, fd, addr, &last))
				fd = &last;
			emit_named(r, demangle, fn, arg, best_fit_name(m, learn, shndx, addr, fd), file, line);
			Dwarf_Files *files = NULL;
			size_t nfiles = 0;
			if (lines)
				dwarf_getsrcfiles(&cu, &files, &nfiles);
			for (int i = best; i + 1 < nf; i++) {
				Dwarf_Attribute at;
				Dwarf_Word fidx = 0, cl = 0;
				file = NULL;
				line = 0;
				if (lines && dwarf_attr(&scopes[i], DW_AT_call_file, &at) && !dwarf_formudata(&at, &fidx) &&
				    files && fidx < nfiles)
					file = dwarf_filesrc(files, fidx, NULL, NULL);
				if (lines && dwarf_attr(&scopes[i], DW_AT_call_line, &at) && !dwarf_formudata(&at, &cl))
					line = (int)cl;
				emit_named(r, demangle, fn, arg, chain_name(m, learn, &scopes[i + 1]), file, line);
			}
			free(scopes);
			return;
		}
		free(scopes);
		if (!lines)
			ln = dwarf_getsrc_die(&cu, addr);
		if (ln) {
			/* line information without a function (assembly):
			 * the name comes from the symbol tables */
			emit_named(r, demangle, fn, arg,
				   symbol_function(m, shndx, addr, &name, &sfile, &value) ? name : NULL, file, line);
			return;
		}
	}
	if (symbol_function(m, shndx, addr, &name, &sfile, &value))
		emit_named(r, demangle, fn, arg, name, sfile, 0);
	else
		fn(arg, NULL, NULL, 0);
}

/* addr2line's text for a record: "func\nfile:line\n" (-s: the file's base
 * name), "??\n??:0\n" for an unknown address. */
static void add_record_text(void *arg, const char *func, const char *file, int line)
{
	struct strbuf *b = arg;
	if (!func) {
		sb_str(b, "??\n??:0\n");
		return;
	}
	sb_str(b, func);
	sb_add(b, "\n", 1);
	sb_str(b, file && *file ? base_name(file) : "??");
	char num[32];
	if (line > 0)
		snprintf(num, sizeof(num), ":%d\n", line);
	else
		snprintf(num, sizeof(num), ":?\n");
	sb_str(b, num);
}

char *inline_addr2line(struct inline_resolver *r, const char *path, unsigned long long addr)
{
	struct strbuf b = { 0 };
	sb_add(&b, "", 0);
	addr2line_records(r, module(r, path), addr, true, false, true, add_record_text, &b);
	return b.s;
}

struct chain_sink {
	void (*fn)(const char *func, void *arg);
	void *arg;
	int count;
};

static void add_chain_name(void *arg, const char *func, const char *file, int line)
{
	(void)file, (void)line;
	struct chain_sink *c = arg;
	if (!func)
		return;
	c->fn(func, c->arg);
	c->count++;
}

int inline_chain(struct inline_resolver *r, const char *path, uint64_t addr,
		 void (*fn)(const char *func, void *arg), void *arg)
{
	struct chain_sink c = { fn, arg, 0 };
	addr2line_records(r, module(r, path), addr, false, true, false, add_chain_name, &c);
	return c.count;
}
/* `nm MODULE` then /^([0-9a-f]+) . \Qfunc\E$/m: a defined .symtab symbol. */
static bool nm_lookup(struct a2l_module *m, const char *func, size_t n, uint64_t *value)
{
	if (!m->elf)
		return false;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(m->elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		size_t cnt = sh.sh_size / sh.sh_entsize;
		for (size_t i = 1; data && i < cnt; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
				continue;
			const char *name = elf_strptr(m->elf, sh.sh_link, sym.st_name);
			if (name && strlen(name) == n && !memcmp(name, func, n)) {
				*value = sym.st_value;
				return true;
			}
		}
	}
	return false;
}

/* The script's inline(): addr2line on the address, and when it knows
 * nothing, on the address nm gives the function (func, func_len; NULL:
 * none) plus the offset. Returns the frames, outermost first, joined with
 * ';' (malloc'd). */
static char *script_inline(struct inline_resolver *r, uint64_t addr, const char *func, size_t func_len,
			   uint64_t off, const char *mod)
{
	char *out = inline_addr2line(r, mod, addr);
	uint64_t base;
	if (strstr(out, "??\n??:0") && func && nm_lookup(module(r, mod), func, func_len, &base)) {
		free(out);
		out = inline_addr2line(r, mod, base + off);
	}
	/* Pairs (function, file:line), innermost first; emit outermost first. */
	char **items = NULL;
	size_t nitems = 0, alloc = 0;
	char *one = NULL;
	for (char *line = out; *line;) {
		char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char *l = xmemdup0(line, len);
		char *disc = strstr(l, " (discriminator ");
		if (disc) {
			char *close = strchr(disc + 16, ')');
			if (close && close > disc + 16)
				memmove(disc, close + 1, strlen(close + 1) + 1);
		}
		if (!one) {
			one = l;
		} else {
			VEC_GROW(items, nitems + 1, alloc);
			if (r->context) {
				size_t a = strlen(one), c = strlen(l);
				char *it = xmalloc(a + c + 2);
				memcpy(it, one, a);
				it[a] = ':';
				memcpy(it + a + 1, l, c + 1);
				items[nitems++] = it;
				free(one);
			} else {
				items[nitems++] = one;
			}
			free(l);
			one = NULL;
		}
		line = nl ? nl + 1 : line + len;
	}
	free(one);
	free(out);
	struct strbuf b = { 0 };
	sb_add(&b, "", 0);
	for (size_t i = nitems; i-- > 0;) {
		if (i + 1 < nitems)
			sb_add(&b, ";", 1);
		sb_str(&b, items[i]);
		free(items[i]);
	}
	free(items);
	return b.s;
}

const char *inline_resolve(struct inline_resolver *r, const char *pc, size_t pc_len,
			   const char *rawfunc, size_t rawfunc_len, const char *mod, size_t mod_len)
{
	uint64_t h = hash_mix(hash_bytes(pc, pc_len), hash_bytes(mod, mod_len) | 1);
	uint32_t idx;
	/* Collisions fall back to a linear check of equal keys. */
	if (hashmap_get(&r->cache, h, &idx)) {
		struct a2l_entry *e = &r->ents[idx];
		if (strlen(e->pc) == pc_len && !memcmp(e->pc, pc, pc_len) && strlen(e->mod) == mod_len &&
		    !memcmp(e->mod, mod, mod_len))
			return e->result;
	}
	char *p = xmemdup0(pc, pc_len), *m = xmemdup0(mod, mod_len);
	/* ^(.+)\+0x([0-9a-f]+)$ on the symbol perf printed */
	const char *plus = NULL;
	for (size_t i = rawfunc_len; i-- > 1;) {
		if (rawfunc[i] == '+' && i + 3 < rawfunc_len && rawfunc[i + 1] == '0' && rawfunc[i + 2] == 'x') {
			plus = rawfunc + i;
			break;
		}
	}
	bool hex = plus != NULL;
	for (const char *q = plus ? plus + 3 : NULL; hex && q < rawfunc + rawfunc_len; q++)
		hex = (*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f');
	uint64_t off = 0;
	if (hex) {
		char *o = xmemdup0(plus + 3, (size_t)(rawfunc + rawfunc_len - plus - 3));
		off = strtoull(o, NULL, 16);
		free(o);
	}
	char *res = script_inline(r, strtoull(p, NULL, 16), hex ? rawfunc : NULL,
				  hex ? (size_t)(plus - rawfunc) : 0, off, m);
	VEC_GROW(r->ents, r->nents + 1, r->ents_alloc);
	r->ents[r->nents] = (struct a2l_entry){ p, m, res };
	bool inserted;
	uint32_t *slot = hashmap_upsert(&r->cache, h, (uint32_t)r->nents, &inserted);
	if (inserted)
		*slot = (uint32_t)r->nents;
	r->nents++;
	return res;
}

char *inline_resolve_frame(struct inline_resolver *r, uint64_t pc, const char *symbol, uint64_t offset,
			   const char *mod)
{
	bool named = symbol && *symbol; /* (.+) needs a byte */
	return script_inline(r, pc, named ? symbol : NULL, named ? strlen(symbol) : 0, offset, mod);
}
