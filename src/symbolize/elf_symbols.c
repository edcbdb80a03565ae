/* ELF symbols through elfutils' libelf (see elf_symbols.h). */
#include "symbolize/elf_symbols.h"
#include "symbolize/debuginfod_client.h"

#include "base/alloc.h"
#include "symbolize/demangle.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct elf_file {
	int fd;
	Elf *elf;
	GElf_Ehdr ehdr;
	Elf_Scn *symtab, *dynsym;
	char *path;
	int open_errno; /* the file is there, open(2) failed with this */
};

static void ef_close(struct elf_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	free(f->path);
	memset(f, 0, sizeof(*f));
	f->fd = -1;
}

static Elf_Scn *find_section_type(Elf *elf, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			return scn;
	return NULL;
}

static Elf_Scn *find_section_name(Elf *elf, const char *name, GElf_Shdr *out)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, out))
			continue;
		const char *n = elf_strptr(elf, shstrndx, out->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

static bool ef_setup(struct elf_file *f, const uint8_t *want_id, size_t want_len)
{
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF || !gelf_getehdr(f->elf, &f->ehdr))
		return false;
	if (want_id && want_len) {
		const void *id;
		ssize_t n = dwelf_elf_gnu_build_id(f->elf, &id);
		if (n <= 0 || (size_t)n < want_len || memcmp(id, want_id, want_len))
			return false;
	}
	f->symtab = find_section_type(f->elf, SHT_SYMTAB);
	f->dynsym = find_section_type(f->elf, SHT_DYNSYM);
	return true;
}

static bool ef_open(struct elf_file *f, const char *path, const uint8_t *want_id, size_t want_len)
{
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	struct stat st;
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return false;
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0) {
		f->open_errno = errno;
		return false;
	}
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!ef_setup(f, want_id, want_len)) {
		ef_close(f);
		return false;
	}
	f->path = xstrdup(path);
	return true;
}

size_t elf_file_build_id(const char *path, uint8_t id[20])
{
	elf_version(EV_CURRENT);
	struct elf_file f;
	if (!ef_open(&f, path, NULL, 0))
		return 0;
	const void *p;
	ssize_t n = dwelf_elf_gnu_build_id(f.elf, &p);
	size_t len = n > 0 ? (size_t)(n > 20 ? 20 : n) : 0;
	if (len)
		memcpy(id, p, len);
	ef_close(&f);
	return len;
}

/* ---- symbol extraction ------------------------------------------------- */

struct phdrs {
	GElf_Phdr *v;
	size_t nr;
	size_t first_overlap; /* segments from here on overlap an earlier one */
};

static void read_phdrs(Elf *elf, struct phdrs *ph)
{
	size_t n = 0;
	ph->v = NULL;
	ph->nr = ph->first_overlap = 0;
	if (elf_getphdrnum(elf, &n) || !n)
		return;
	ph->v = xcalloc(n, sizeof(*ph->v));
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr p;
		if (gelf_getphdr(elf, (int)i, &p) && p.p_type == PT_LOAD)
			ph->v[ph->nr++] = p;
	}
	ph->first_overlap = ph->nr;
	for (size_t i = 0; i < ph->nr && ph->first_overlap == ph->nr; i++)
		for (size_t j = 0; j < i; j++)
			if (ph->v[i].p_vaddr < ph->v[j].p_vaddr + ph->v[j].p_memsz &&
			    ph->v[j].p_vaddr < ph->v[i].p_vaddr + ph->v[i].p_memsz) {
				ph->first_overlap = i;
				break;
			}
}

/* vaddr -> file offset through the PT_LOAD holding it (perf's
 * elf_read_program_header adjustment); false when none holds it. The
 * first that holds it counts; *hint is where the last answer came from
 * (neighbouring symbols are in the same segment), tried first when no
 * earlier segment could also hold v. */
static bool vaddr_to_offset(const struct phdrs *ph, uint64_t v, uint64_t *off, size_t *hint)
{
	if (*hint < ph->first_overlap) {
		const GElf_Phdr *p = &ph->v[*hint];
		if (v >= p->p_vaddr && v < p->p_vaddr + p->p_memsz) {
			*off = v - (p->p_vaddr - p->p_offset);
			return true;
		}
	}
	for (size_t i = 0; i < ph->nr; i++) {
		const GElf_Phdr *p = &ph->v[i];
		if (v >= p->p_vaddr && v < p->p_vaddr + p->p_memsz) {
			*off = v - (p->p_vaddr - p->p_offset);
			*hint = i;
			return true;
		}
	}
	return false;
}

static unsigned count_underscores(const char *s)
{
	unsigned n = 0;
	while (s[n] == '_')
		n++;
	return n;
}

static int elf_bind(unsigned char info)
{
	switch (GELF_ST_BIND(info)) {
	case STB_GLOBAL:
		return SYM_BIND_GLOBAL;
	case STB_WEAK:
		return SYM_BIND_WEAK;
	default:
		return SYM_BIND_LOCAL;
	}
}

/* A symbol table's string table, when its names can be read in place
 * (NUL-terminated at its end, as elf_strptr requires of each name). */
static bool string_table(Elf *elf, size_t link, const char **strs, size_t *size)
{
	Elf_Scn *scn = elf_getscn(elf, link);
	GElf_Shdr sh;
	Elf_Data *d = scn && gelf_getshdr(scn, &sh) && sh.sh_type == SHT_STRTAB ? elf_getdata(scn, NULL) : NULL;
	if (!d || !d->d_buf || !d->d_size || ((const char *)d->d_buf)[d->d_size - 1])
		return false;
	*strs = d->d_buf;
	*size = d->d_size;
	return true;
}

/* The symbols perf loads from one table, of its entries before `limit`
 * (SIZE_MAX: all). With held, names are not copied: the table's data must
 * outlive t (symtab_hold). */
static int load_table(struct symtab *t, Elf *elf, Elf_Scn *scn, const struct phdrs *ph,
		      bool demangle_names, bool held, size_t limit, size_t *in_place)
{
	GElf_Shdr sh;
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d || !gelf_getshdr(scn, &sh) || !sh.sh_entsize)
		return 0;
	size_t shstrndx = 0;
	elf_getshdrstrndx(elf, &shstrndx);
	size_t n = sh.sh_size / sh.sh_entsize;
	if (n > limit)
		n = limit;
	/* 64-bit tables in the host's layout are read in place */
	const char *strs = NULL;
	size_t strs_size = 0;
	const Elf64_Sym *direct = NULL;
	if (gelf_getclass(elf) == ELFCLASS64 && d->d_type == ELF_T_SYM &&
	    string_table(elf, sh.sh_link, &strs, &strs_size)) {
		direct = d->d_buf;
		if (n > d->d_size / sizeof(*direct))
			n = d->d_size / sizeof(*direct);
	}
	held &= direct != NULL;
	if (held) /* the symbols read here, their names when looked up */
		*in_place += n * sizeof(*direct) + strs_size;
	symtab_reserve(t, t->nr + n);
	int added = 0;
	size_t nsec = 0;
	if (elf_getshdrnum(elf, &nsec))
		nsec = 0;
	/* per section: where perf 6.1 keeps functions and data objects (for
	 * perf mem; the section exists) and zero-sized untyped labels (a text
	 * or data section) */
	uint8_t *sec_keeps = xcalloc(nsec ? nsec : 1, 1);
	enum { KEEPS_FUNC = 1, KEEPS_LABEL = 2 };
	for (size_t i = 1; i < nsec && i < SHN_LORESERVE; i++) {
		Elf_Scn *sec = elf_getscn(elf, i);
		GElf_Shdr ssh;
		if (!sec || !gelf_getshdr(sec, &ssh))
			continue;
		const char *secname = elf_strptr(elf, shstrndx, ssh.sh_name);
		sec_keeps[i] = KEEPS_FUNC;
		if (secname && (strstr(secname, "text") || strstr(secname, "data")))
			sec_keeps[i] |= KEEPS_LABEL;
	}
	size_t hint = 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym s;
		if (direct)
			s = direct[i];
		else if (!gelf_getsym(d, (int)i, &s))
			continue;
		if (!s.st_name || s.st_shndx >= SHN_LORESERVE || s.st_shndx >= nsec)
			continue;
		int type = GELF_ST_TYPE(s.st_info);
		unsigned need = type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_OBJECT ? KEEPS_FUNC
				: type == STT_NOTYPE && s.st_size == 0				? KEEPS_LABEL
													: 0;
		if (!(sec_keeps[s.st_shndx] & need))
			continue;
		const char *raw;
		if (direct)
			raw = s.st_name < strs_size ? strs + s.st_name : NULL;
		else
			raw = elf_strptr(elf, sh.sh_link, s.st_name);
		if (!raw)
			continue;
		uint64_t start;
		if (!vaddr_to_offset(ph, s.st_value, &start, &hint))
			continue;
		if (held) {
			symtab_add_held(t, start, s.st_size, elf_bind(s.st_info), raw, demangle_names);
		} else {
			size_t len = strlen(raw);
			if (demangle_names)
				symtab_add_mangled(t, start, s.st_size, elf_bind(s.st_info), raw, len);
			else
				symtab_add(t, start, s.st_size, elf_bind(s.st_info), raw, len, len,
					   count_underscores(raw));
		}
		added++;
	}
	free(sec_keeps);
	return added;
}

static void release_elf(void *elf)
{
	elf_end(elf);
}

/* perf 6.1 reads .dynsym after .symtab. When that second pass completes,
 * its fix-ups keep the same survivors (the names are the same); only the
 * tree's shape changes, which matters where symbols overlap, and that is
 * not replayed here. But the pass stops with an error at the first kept
 * symbol whose section index names no section (a file rewritten by BOLT
 * keeps stale indices in .dynsym): the entries read until then stay in
 * its tree without fix-ups, and it adds no PLT symbols. The index of that
 * entry, or SIZE_MAX when the pass completes. */
static size_t dynsym_stop(Elf *elf, Elf_Scn *scn)
{
	GElf_Shdr sh;
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	size_t nsec = 0;
	if (!d || !gelf_getshdr(scn, &sh) || !sh.sh_entsize || elf_getshdrnum(elf, &nsec))
		return SIZE_MAX;
	size_t n = sh.sh_size / sh.sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym s;
		if (!gelf_getsym(d, (int)i, &s) || !s.st_name)
			continue;
		int type = GELF_ST_TYPE(s.st_info);
		bool kept = ((type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_OBJECT) &&
			     s.st_shndx != SHN_UNDEF) ||
			    (type == STT_NOTYPE && s.st_shndx != SHN_UNDEF && s.st_shndx != SHN_ABS && s.st_size == 0);
		if (kept && s.st_shndx >= nsec && s.st_shndx < SHN_LORESERVE)
			return i;
	}
	return SIZE_MAX;
}

/* name@plt symbols for the PLT entries, as perf 6.1 lays them out on
 * x86-64: the .plt section's sh_entsize is both the header and the entry
 * size (lld leaves it 0, which makes every entry empty, as in perf), and
 * .plt.sec is not consulted. */
static int synthesize_plt(struct symtab *t, Elf *elf, bool demangle_names)
{
	GElf_Shdr plt, rel;
	Elf_Scn *splt = find_section_name(elf, ".plt", &plt);
	Elf_Scn *srel = find_section_name(elf, ".rela.plt", &rel);
	if (!splt || !srel || rel.sh_type != SHT_RELA)
		return 0;
	Elf_Scn *dyn = elf_getscn(elf, rel.sh_link);
	GElf_Shdr dsh;
	Elf_Data *rd = elf_getdata(srel, NULL);
	Elf_Data *dd = dyn ? elf_getdata(dyn, NULL) : NULL;
	if (!rd || !dd || !gelf_getshdr(dyn, &dsh) || dsh.sh_type != SHT_DYNSYM || !rel.sh_entsize)
		return 0;
	uint64_t entry = plt.sh_entsize, off = plt.sh_offset + plt.sh_entsize;
	size_t n = rel.sh_size / rel.sh_entsize;
	int added = 0;
	for (size_t i = 0; i < n; i++, off += entry) {
		GElf_Rela r;
		if (!gelf_getrela(rd, (int)i, &r))
			break;
		const char *name = "";
		size_t si = GELF_R_SYM(r.r_info);
		GElf_Sym s;
		if (si && gelf_getsym(dd, (int)si, &s)) {
			const char *nm = elf_strptr(elf, dsh.sh_link, s.st_name);
			if (nm)
				name = nm;
		}
		char *dm = demangle_names ? demangle(name, strlen(name)) : NULL;
		const char *base = dm ? dm : name;
		size_t bl = strlen(base);
		char *full = xmalloc(bl + 5);
		memcpy(full, base, bl);
		memcpy(full + bl, "@plt", 5);
		symtab_add(t, off, entry, SYM_BIND_GLOBAL, full, bl + 4, bl + 4, count_underscores(full));
		free(full);
		free(dm);
		added++;
	}
	return added;
}

/* ---- candidate files, in perf's order --------------------------------- */

static void hex(char *out, const uint8_t *id, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = 0;
}

/* Candidate path for the roles still open; *opened, when it holds the
 * file already opened as ef_open(path, build-id) would, is taken instead
 * of opening it again. */
/* A file that is there could not be opened: the first such is kept. */
static void note_unopened(struct elf_load_info *info, const char *path, int err)
{
	if (err && !info->open_errno) {
		info->open_errno = err;
		info->unopened_path = xstrdup(path);
	}
}

static bool try_candidate(struct elf_file *syms, struct elf_file *runtime, const char *path,
			  const struct elf_load_req *r, struct elf_file *opened, struct elf_load_info *info)
{
	struct elf_file f;
	if (opened && opened->elf) {
		f = *opened;
		memset(opened, 0, sizeof(*opened));
		opened->fd = -1;
	} else if (!ef_open(&f, path, r->build_id, r->build_id_len)) {
		note_unopened(info, path, f.open_errno);
		return false;
	}
	bool used = false;
	if (!syms->elf && f.symtab) {
		*syms = f;
		used = true;
	}
	if (!runtime->elf && f.dynsym) {
		if (used) {
			/* Same file in both roles: one Elf, closed once (the
			   end of elf_load_symbols), the descriptor syms's. */
			*runtime = f;
			runtime->fd = -1;
			runtime->path = xstrdup(f.path);
		} else {
			*runtime = f;
			used = true;
		}
	}
	if (!used)
		ef_close(&f);
	return syms->elf && runtime->elf;
}

static char *join(const char *a, const char *b, const char *c)
{
	size_t la = strlen(a), lb = strlen(b), lc = c ? strlen(c) : 0;
	char *s = xmalloc(la + lb + lc + 1);
	memcpy(s, a, la);
	memcpy(s + la, b, lb);
	if (c)
		memcpy(s + la + lb, c, lc);
	s[la + lb + lc] = 0;
	return s;
}

int elf_load_symbols(struct symtab *t, const struct elf_load_req *r, struct elf_load_info *info)
{
	elf_version(EV_CURRENT);
	struct elf_file syms = { .fd = -1 }, runtime = { .fd = -1 }, main_file = { .fd = -1 };
	memset(info, 0, sizeof(*info));
	if (r->image) {
		main_file.elf = elf_memory((char *)r->image, r->image_len);
		if (!ef_setup(&main_file, r->build_id, r->build_id_len)) {
			ef_close(&main_file);
			return -1;
		}
		runtime = main_file;
		if (main_file.symtab) {
			syms = runtime;
			syms.elf = elf_memory((char *)r->image, r->image_len);
			syms.path = NULL;
		}
	} else {
		char *real = join(r->symfs ? r->symfs : "", r->path, NULL);
		char idhex[41] = "";
		if (r->build_id && r->build_id_len) {
			hex(idhex, r->build_id, r->build_id_len);
		} else {
			/* No recorded build-id: perf reads the file's own. */
			uint8_t own[20];
			size_t ol = elf_file_build_id(real, own);
			if (ol)
				hex(idhex, own, ol);
		}
		/* 1. .gnu_debuglink of the file itself. */
		struct elf_file self;
		if (ef_open(&self, real, r->build_id, r->build_id_len)) {
			GElf_Word crc;
			const char *link = dwelf_elf_gnu_debuglink(self.elf, &crc);
			if (link && !strchr(link, '/')) {
				char *dir = xstrdup(real);
				char *slash = strrchr(dir, '/');
				if (slash)
					slash[1] = 0;
				else
					dir[0] = 0;
				char *c1 = join(dir, link, NULL);
				char *c2 = join(dir, ".debug/", link);
				char *d2 = join("/usr/lib/debug", dir, NULL);
				char *c3 = join(d2, link, NULL);
				const char *cands[] = { c1, c2, c3 };
				for (size_t i = 0; i < 3; i++)
					if (strcmp(cands[i], real))
						try_candidate(&syms, &runtime, cands[i], r, NULL, info);
				free(c1);
				free(c2);
				free(d2);
				free(c3);
				free(dir);
			}
		}
		/* 2. build-id cache, 3. /usr/lib/debug, 4. the file. */
		char *cands[6] = { 0 };
		size_t nc = 0;
		if (idhex[0] && r->debug_home) {
			char rel[64];
			snprintf(rel, sizeof(rel), "/.build-id/%.2s/%s", idhex, idhex + 2);
			char *base = join(r->debug_home, rel, NULL);
			cands[nc++] = join(base, "/elf", NULL);
			cands[nc++] = join(base, "/debug", NULL);
			free(base);
		}
		cands[nc++] = join("/usr/lib/debug", r->path, ".debug");
		cands[nc++] = join("/usr/lib/debug", r->path, NULL);
		if (idhex[0]) {
			char rel[80];
			snprintf(rel, sizeof(rel), "/usr/lib/debug/.build-id/%.2s/%s.debug", idhex, idhex + 2);
			cands[nc++] = xstrdup(rel);
		}
		cands[nc++] = xstrdup(real);
		for (size_t i = 0; i < nc; i++) {
			/* the file itself (last) is self, open already */
			if (!(syms.elf && runtime.elf))
				try_candidate(&syms, &runtime, cands[i], r, i == nc - 1 ? &self : NULL, info);
			free(cands[i]);
		}
		note_unopened(info, real, self.open_errno);
		ef_close(&self);
		/* 5. a debuginfod server, when no file above has a .symtab */
		if (!syms.elf && idhex[0] && r->debuginfod) {
			char *fetched = debuginfo_client_find(r->debuginfod, idhex, r->path);
			if (fetched)
				try_candidate(&syms, &runtime, fetched, r, NULL, info);
			free(fetched);
		}
		free(real);
	}
	if (!syms.elf && !runtime.elf)
		return -1;
	struct phdrs ph;
	read_phdrs(runtime.elf ? runtime.elf : syms.elf, &ph);
	/* A file's names are read in place; the table keeps the file mapped
	 * (an in-memory image is not ours to keep: its names are copied). */
	struct elf_file *src = syms.elf ? &syms : &runtime;
	bool held = !r->image;
	size_t in_place = 0;
	int n = load_table(t, src->elf, syms.elf ? syms.symtab : runtime.dynsym, &ph, r->demangle, held,
			   SIZE_MAX, &in_place);
	/* perf fixes sizes and duplicates, then adds the PLT entries. */
	symtab_finish(t, false);
	size_t stop = syms.elf ? dynsym_stop(syms.elf, syms.dynsym) : SIZE_MAX;
	if (stop != SIZE_MAX)
		load_table(t, syms.elf, syms.dynsym, &ph, r->demangle, held, stop, &in_place);
	else if (n > 0 && runtime.elf)
		n += synthesize_plt(t, runtime.elf, r->demangle);
	if (runtime.path)
		info->runtime_path = xstrdup(runtime.path);
	else if (syms.path)
		info->runtime_path = xstrdup(syms.path);
	if (syms.path)
		info->symsrc_path = xstrdup(syms.path);
	else if (runtime.path)
		info->symsrc_path = xstrdup(runtime.path);
	GElf_Shdr tsh;
	if (runtime.elf && find_section_name(runtime.elf, ".text", &tsh))
		info->text_offset = tsh.sh_addr - tsh.sh_offset;
	free(ph.v);
	if (held && src->elf) {
		/* the names stay with t; the descriptor is not needed */
		Elf *kept = src->elf;
		elf_cntl(kept, ELF_C_FDDONE);
		symtab_hold(t, kept, release_elf, in_place);
		if (runtime.elf == kept)
			runtime.elf = NULL;
		if (syms.elf == kept)
			syms.elf = NULL;
	}
	if (syms.elf == runtime.elf)
		syms.elf = NULL;
	ef_close(&syms);
	ef_close(&runtime);
	return n;
}
