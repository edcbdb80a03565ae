/* --inline for perf script text: binutils addr2line's -i -f -s -C answer
 * computed with libdw (line table, inline scopes) and libelf (symbol table
 * fallback), plus the stackcollapse-perf.pl logic around it (nm lookup of
 * func+0xOFF when the address is unknown, frame order, --context). */
#include "symbolize/inline.h"

#include "base/alloc.h"
#include "base/hash.h"
#include "base/hashmap.h"

#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


struct a2l_module {
	char *path;
	int fd;
	Elf *elf;
	Dwarf *dw;
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
	cxa_demangle_fn cxa;
	void *libstdcxx;
	struct a2l_module *mods;
	size_t nmods, mods_alloc;
	struct a2l_entry *ents;
	size_t nents, ents_alloc;
	struct hashmap cache; /* hash(pc, mod) -> entry */
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
	elf_version(EV_CURRENT);
	return r;
}

void inline_resolver_free(struct inline_resolver *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nmods; i++) {
		if (r->mods[i].dw)
			dwarf_end(r->mods[i].dw);
		if (r->mods[i].elf)
			elf_end(r->mods[i].elf);
		if (r->mods[i].fd >= 0)
			close(r->mods[i].fd);
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
	if (r->libstdcxx)
		dlclose(r->libstdcxx);
	free(r);
}

static char *demangle(const struct inline_resolver *r, const char *name)
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

static struct a2l_module *module(struct inline_resolver *r, const char *path)
{
	for (size_t i = 0; i < r->nmods; i++)
		if (!strcmp(r->mods[i].path, path))
			return &r->mods[i];
	VEC_GROW(r->mods, r->nmods + 1, r->mods_alloc);
	struct a2l_module *m = &r->mods[r->nmods++];
	m->path = xstrdup(path);
	m->fd = open(path, O_RDONLY | O_CLOEXEC);
	m->elf = NULL;
	m->dw = NULL;
	if (m->fd >= 0) {
		m->elf = elf_begin(m->fd, ELF_C_READ_MMAP, NULL);
		if (m->elf && elf_kind(m->elf) != ELF_K_ELF) {
			elf_end(m->elf);
			m->elf = NULL;
		}
		if (m->elf)
			m->dw = dwarf_begin_elf(m->elf, DWARF_C_READ, NULL);
	}
	return m;
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

/* The function name binutils prints: the linkage name when there is one
 * (demangled, with parameters, for -C), else DW_AT_name. */
static void add_func_name(const struct inline_resolver *r, struct strbuf *b, Dwarf_Die *die)
{
	Dwarf_Attribute at;
	const char *name = NULL;
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &at) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &at))
		name = dwarf_formstring(&at);
	if (name) {
		char *d = demangle(r, name);
		sb_str(b, d ? d : name);
		free(d);
		sb_add(b, "\n", 1);
		return;
	}
	if (dwarf_attr_integrate(die, DW_AT_name, &at))
		name = dwarf_formstring(&at);
	sb_str(b, name && *name ? name : "??");
	sb_add(b, "\n", 1);
}

static void add_location(struct strbuf *b, const char *file, int line)
{
	sb_str(b, file && *file ? base_name(file) : "??");
	char num[32];
	if (line > 0)
		snprintf(num, sizeof(num), ":%d\n", line);
	else
		snprintf(num, sizeof(num), ":?\n");
	sb_str(b, num);
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

/* Symbol-table lookup when there is no line information: the function
 * symbol of the section at or before addr, and the STT_FILE before it. */
static bool symtab_function(const struct inline_resolver *r, Elf *elf, size_t shndx, uint64_t addr,
			    struct strbuf *b)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		if (!data || !sh.sh_entsize)
			continue;
		size_t n = sh.sh_size / sh.sh_entsize;
		const char *best = NULL, *best_file = NULL, *file = NULL;
		uint64_t best_value = 0;
		for (size_t i = 0; i < n; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(data, (int)i, &sym))
				continue;
			int type = GELF_ST_TYPE(sym.st_info);
			const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (type == STT_FILE) {
				file = name;
				continue;
			}
			if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx != shndx)
				continue;
			if (sym.st_value > addr || (sym.st_size && addr >= sym.st_value + sym.st_size))
				continue;
			if (!best || sym.st_value > best_value) {
				best = name;
				best_value = sym.st_value;
				best_file = file;
			}
		}
		if (!best)
			return false;
		char *d = demangle(r, best);
		sb_str(b, d ? d : best);
		free(d);
		sb_add(b, "\n", 1);
		add_location(b, best_file, 0);
		return true;
	}
	return false;
}

char *inline_addr2line(struct inline_resolver *r, const char *path, unsigned long long addr)
{
	struct a2l_module *m = module(r, path);
	struct strbuf b = { 0 };
	sb_add(&b, "", 0);
	if (!m->elf)
		return b.s; /* addr2line prints an error and nothing on stdout */
	size_t shndx = 0;
	if (!in_section(m->elf, addr, &shndx)) {
		sb_str(&b, "??\n??:0\n");
		return b.s;
	}
	Dwarf_Die cu;
	if (m->dw && dwarf_addrdie(m->dw, addr, &cu)) {
		/* dwarf_getscopes follows an inline's abstract origin; the chain
		 * of callers is the concrete nesting of the innermost scope. */
		Dwarf_Die *scopes = NULL;
		int ns = dwarf_getscopes(&cu, addr, &scopes);
		if (ns > 0) {
			Dwarf_Die inner = scopes[0];
			free(scopes);
			scopes = NULL;
			ns = dwarf_getscopes_die(&inner, &scopes);
		}
		Dwarf_Line *ln = dwarf_getsrc_die(&cu, addr);
		const char *file = ln ? dwarf_linesrc(ln, NULL, NULL) : NULL;
		int line = 0;
		if (ln)
			dwarf_lineno(ln, &line);
		Dwarf_Files *files = NULL;
		size_t nfiles = 0;
		dwarf_getsrcfiles(&cu, &files, &nfiles);
		/* binutils names the first frame after the function (inline or
		 * not) whose address range around addr is the smallest, which is
		 * not always the innermost inline; the rest of the chain is the
		 * inlines' call sites. */
		int first_name = -1;
		Dwarf_Addr best_len = 0;
		for (int i = 0; i < ns; i++) {
			int tag = dwarf_tag(&scopes[i]);
			if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
				continue;
			Dwarf_Addr base, lo, hi;
			ptrdiff_t off = 0;
			while ((off = dwarf_ranges(&scopes[i], off, &base, &lo, &hi)) > 0) {
				if (addr >= lo && addr < hi) {
					if (first_name < 0 || hi - lo < best_len) {
						first_name = i;
						best_len = hi - lo;
					}
					break;
				}
			}
			if (tag == DW_TAG_subprogram)
				break;
		}
		bool any = false;
		for (int i = 0; i < ns; i++) {
			int tag = dwarf_tag(&scopes[i]);
			if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
				continue;
			add_func_name(r, &b, &scopes[!any && first_name >= 0 ? first_name : i]);
			add_location(&b, file, line);
			any = true;
			if (tag == DW_TAG_subprogram)
				break;
			/* The caller's location is this inline's call site. */
			Dwarf_Attribute at;
			Dwarf_Word fidx = 0, cl = 0;
			file = NULL;
			line = 0;
			if (dwarf_attr(&scopes[i], DW_AT_call_file, &at) && !dwarf_formudata(&at, &fidx) &&
			    files && fidx < nfiles)
				file = dwarf_filesrc(files, fidx, NULL, NULL);
			if (dwarf_attr(&scopes[i], DW_AT_call_line, &at) && !dwarf_formudata(&at, &cl))
				line = (int)cl;
		}
		free(scopes);
		if (any)
			return b.s;
		if (ln) {
			sb_str(&b, "??\n");
			add_location(&b, file, line);
			return b.s;
		}
	}
	if (!symtab_function(r, m->elf, shndx, addr, &b))
		sb_str(&b, "??\n??:0\n");
	return b.s;
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

static char *script_inline(struct inline_resolver *r, const char *pc, const char *rawfunc,
			   const char *mod)
{
	unsigned long long addr = strtoull(pc, NULL, 16);
	char *out = inline_addr2line(r, mod, addr);
	if (strstr(out, "??\n??:0")) {
		/* ^(.+)\+0x([0-9a-f]+)$ */
		const char *plus = NULL;
		size_t rn = strlen(rawfunc);
		for (size_t i = rn; i-- > 1;) {
			if (rawfunc[i] == '+' && i + 3 < rn && rawfunc[i + 1] == '0' && rawfunc[i + 2] == 'x') {
				plus = rawfunc + i;
				break;
			}
		}
		bool hex = plus != NULL;
		for (const char *q = plus ? plus + 3 : NULL; hex && *q; q++)
			hex = (*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f');
		uint64_t base;
		if (hex && nm_lookup(module(r, mod), rawfunc, (size_t)(plus - rawfunc), &base)) {
			free(out);
			out = inline_addr2line(r, mod, base + strtoull(plus + 3, NULL, 16));
		}
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
	char *f = xmemdup0(rawfunc, rawfunc_len);
	char *res = script_inline(r, p, f, m);
	free(f);
	VEC_GROW(r->ents, r->nents + 1, r->ents_alloc);
	r->ents[r->nents] = (struct a2l_entry){ p, m, res };
	bool inserted;
	uint32_t *slot = hashmap_upsert(&r->cache, h, (uint32_t)r->nents, &inserted);
	if (inserted)
		*slot = (uint32_t)r->nents;
	r->nents++;
	return res;
}
