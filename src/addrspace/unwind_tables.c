/* Per-file unwind tables (see unwind_tables.h). */
#include "addrspace/unwind_tables.h"

#include "addrspace/unwind_cfi_check.h"
#include "base/alloc.h"
#include "base/hash.h"
#include "base/hashmap.h"

#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

/* Bytes of tables kept at once, over every file: past them the least
 * recently used file's go (its mapping unmapped, its kept rules freed),
 * to be opened again if its code turns up again. What a file's tables
 * hold is counted: the sections libdw reads in place from the mapping
 * (.eh_frame, .eh_frame_hdr, and .debug_frame once it is opened, each
 * brought resident as it is read), the vdso's copy, the rows of rules
 * kept (a few hundred bytes of libdw's each, one per row of a function's
 * CFI) and an entry per address seen. A system-wide recording of a busy
 * machine meets tens of thousands of distinct return addresses in a few
 * dozen files; 32 MiB holds those, where a host that builds and runs new
 * binaries all day would otherwise keep every one it ran. A file opened
 * again costs little (its rules are found again one CFI walk each). */
#ifndef UNWIND_TABLES_BYTES /* (-DUNWIND_TABLES_BYTES=1: a build that drops a file's tables at each change of file) */
#define UNWIND_TABLES_BYTES ((size_t)32 << 20)
#endif

struct segment {
	uint64_t offset, filesz, vaddr;
};

/* An address seen, and the row of CFI rules that holds there. */
struct kept {
	uint64_t off;
	uint32_t rule; /* index in rules, NO_RULE: no CFI there */
};

struct unwind_file {
	uint32_t id;        /* index in unwind_tables.files */
	uint32_t key;       /* the caller's (unwind_source.key) */
	char *image;        /* the vdso's copy, or NULL */
	size_t image_len;
	Elf *elf;
	Dwarf_CFI *eh;      /* .eh_frame (owned by elf's CFI cache: dwarf_cfi_end) */
	Dwarf *dwarf;       /* for .debug_frame, opened when .eh_frame has no FDE */
	Dwarf_CFI *debug;
	bool debug_tried;
	struct segment *segs;
	size_t nr_segs;
	struct hashmap frames; /* hash of the offset -> index in kept (probing on clash) */
	struct kept *kept;
	size_t nr_kept, alloc_kept;
	/* The rows kept, each once: a row of a function's CFI holds for a
	 * range of addresses (between two changes of the stack pointer,
	 * usually the whole body), so the call sites in one function share
	 * one, where a row per return address cost libdw's few hundred bytes
	 * each (bench/NOTES.md). */
	Dwarf_Frame **rules;
	size_t nr_rules, alloc_rules;
	struct hashmap rows; /* hash of a row's start -> index in rules (probing on clash) */
	size_t bytes;       /* what its tables hold (UNWIND_TABLES_BYTES) */
	size_t bytes_pending; /* .debug_frame, once opened: counted with the next rule */
	uint32_t newer, older; /* the LRU list (indexes in files, NO_FILE at the ends) */
};

struct unwind_tables {
	struct unwind_file **files; /* NULL: a free slot (in free_ids) */
	size_t nr_files, alloc_files;
	uint32_t *free_ids;
	size_t nr_free, alloc_free;
	struct hashmap by_key;    /* caller's key -> index in files, NO_FILE: none */
	size_t bytes, budget;
	uint32_t newest, oldest;  /* the LRU list's ends */
	uint64_t evicted;         /* files whose tables went for the budget */
	Dwarf_Frame *scratch;     /* the last frame not kept */
};

enum { NO_FILE = UINT32_MAX - 1, NO_RULE = UINT32_MAX - 1 };

/* The heap bytes of a frame from libdw (allocated there, freed here). */
static size_t frame_bytes(Dwarf_Frame *frame)
{
#ifdef __GLIBC__
	return frame ? malloc_usable_size(frame) + 16 : 0; /* + malloc's own word and rounding */
#else
	return frame ? 256 : 0;
#endif
}

struct unwind_tables *unwind_tables_new(void)
{
	struct unwind_tables *t = xcalloc(1, sizeof(*t));
	elf_version(EV_CURRENT);
	hashmap_init(&t->by_key);
	t->budget = UNWIND_TABLES_BYTES;
	t->newest = t->oldest = NO_FILE;
	return t;
}

static void file_free(struct unwind_file *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nr_rules; i++)
		free(f->rules[i]);
	free(f->rules);
	hashmap_release(&f->rows);
	free(f->kept);
	hashmap_release(&f->frames);
	if (f->eh)
		dwarf_cfi_end(f->eh);
	if (f->dwarf)
		dwarf_end(f->dwarf);
	if (f->elf)
		elf_end(f->elf);
	free(f->image);
	free(f->segs);
	free(f);
}

void unwind_tables_free(struct unwind_tables *t)
{
	if (!t)
		return;
	free(t->scratch);
	for (size_t i = 0; i < t->nr_files; i++)
		file_free(t->files[i]);
	free(t->files);
	free(t->free_ids);
	hashmap_release(&t->by_key);
	free(t);
}

void unwind_tables_budget(struct unwind_tables *t, size_t bytes)
{
	t->budget = bytes;
}

void unwind_tables_held(const struct unwind_tables *t, struct unwind_tables_held *h)
{
	h->bytes = t->bytes;
	h->files = (uint32_t)(t->nr_files - t->nr_free);
	h->evicted = t->evicted;
}

/* ---- the LRU list ---- */

static void lru_unlink(struct unwind_tables *t, struct unwind_file *f)
{
	if (f->newer != NO_FILE)
		t->files[f->newer]->older = f->older;
	else
		t->newest = f->older;
	if (f->older != NO_FILE)
		t->files[f->older]->newer = f->newer;
	else
		t->oldest = f->newer;
}

static void lru_push(struct unwind_tables *t, struct unwind_file *f)
{
	f->newer = NO_FILE;
	f->older = t->newest;
	if (t->newest != NO_FILE)
		t->files[t->newest]->newer = f->id;
	t->newest = f->id;
	if (t->oldest == NO_FILE)
		t->oldest = f->id;
}

static void lru_touch(struct unwind_tables *t, struct unwind_file *f)
{
	if (t->newest == f->id)
		return;
	lru_unlink(t, f);
	lru_push(t, f);
}

/* The oldest files' tables go until the budget holds the rest (keep, the
 * file in use, stays whatever it holds). */
static void evict_over_budget(struct unwind_tables *t, const struct unwind_file *keep)
{
	while (t->bytes > t->budget && t->oldest != NO_FILE && t->oldest != keep->id) {
		struct unwind_file *old = t->files[t->oldest];
		lru_unlink(t, old);
		hashmap_remove(&t->by_key, old->key);
		t->bytes -= old->bytes;
		t->files[old->id] = NULL;
		VEC_GROW(t->free_ids, t->nr_free + 1, t->alloc_free);
		t->free_ids[t->nr_free++] = old->id;
		t->evicted++;
		file_free(old);
	}
}

static void file_grew(struct unwind_tables *t, struct unwind_file *f, size_t more)
{
	f->bytes += more;
	t->bytes += more;
	evict_over_budget(t, f);
}

/* The size of the section called name in elf, 0 when none. */
static size_t section_size(Elf *elf, const char *name)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		const char *n = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		if (n && !strcmp(n, name))
			return sh.sh_type == SHT_NOBITS ? 0 : (size_t)sh.sh_size;
	}
	return 0;
}

/* This process's vdso, copied (the same image is in every 64-bit process
 * of this kernel). Its size: the end of its last loadable segment. */
static char *own_vdso(size_t *len)
{
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	if (!base)
		return NULL;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64)
		return NULL;
	uint64_t end = 0;
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(base + eh->e_phoff + (size_t)i * eh->e_phentsize);
		if (ph->p_type == PT_LOAD && ph->p_offset + ph->p_filesz > end)
			end = ph->p_offset + ph->p_filesz;
	}
	if (!end || end > (64u << 10))
		return NULL;
	*len = (size_t)end;
	return xmemdup0((const void *)base, *len);
}

static struct unwind_file *file_open(const struct unwind_source *src)
{
	struct unwind_file *f = xcalloc(1, sizeof(*f));
	const char *path = src->path ? src->path : "";
	if (src->image) {
		f->image = xmemdup0(src->image, src->image_len);
		f->image_len = src->image_len;
		f->elf = elf_memory(f->image, src->image_len);
	} else if (!strcmp(path, "[vdso]")) {
		size_t len = 0;
		f->image = own_vdso(&len);
		f->image_len = len;
		if (f->image)
			f->elf = elf_memory(f->image, len);
	} else if (path[0] == '/') {
		/* Mapped whole, so the descriptor can go at once: a
		 * system-wide recording meets more files than a process may
		 * keep open. */
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			f->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
			if (f->elf)
				elf_cntl(f->elf, ELF_C_FDDONE);
			close(fd);
		}
	}
	GElf_Ehdr ehdr;
	size_t phnum;
	if (!f->elf || !gelf_getehdr(f->elf, &ehdr) || ehdr.e_ident[EI_CLASS] != ELFCLASS64 ||
	    ehdr.e_machine != EM_X86_64 || elf_getphdrnum(f->elf, &phnum))
		goto none;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		f->segs = xreallocarray(f->segs, f->nr_segs + 1, sizeof(*f->segs));
		f->segs[f->nr_segs++] = (struct segment){ ph.p_offset, ph.p_filesz, ph.p_vaddr };
	}
	/* CFI that names huge registers costs libdw gigabytes per frame */
	f->eh = cfi_registers_bounded(f->elf, true) ? dwarf_getcfi_elf(f->elf) : NULL;
	if (!f->nr_segs)
		goto none;
	hashmap_init(&f->frames);
	hashmap_init(&f->rows);
	f->bytes = sizeof(*f) + f->nr_segs * sizeof(*f->segs) + f->image_len;
	if (f->eh)
		f->bytes += section_size(f->elf, ".eh_frame") + section_size(f->elf, ".eh_frame_hdr");
	return f;
none:
	hashmap_init(&f->frames);
	hashmap_init(&f->rows);
	file_free(f);
	return NULL;
}

struct unwind_file *unwind_tables_file(struct unwind_tables *t, const struct unwind_source *src)
{
	uint32_t idx, key = src->key;
	if (hashmap_get(&t->by_key, key, &idx)) {
		if (idx == NO_FILE)
			return NULL;
		lru_touch(t, t->files[idx]);
		return t->files[idx];
	}
	struct unwind_file *f = file_open(src);
	idx = NO_FILE;
	if (f) {
		if (t->nr_free) {
			idx = t->free_ids[--t->nr_free];
		} else {
			VEC_GROW(t->files, t->nr_files + 1, t->alloc_files);
			idx = (uint32_t)t->nr_files++;
		}
		f->id = idx;
		f->key = key;
		t->files[idx] = f;
		lru_push(t, f);
	}
	bool inserted;
	*hashmap_upsert(&t->by_key, key, idx, &inserted) = idx;
	if (f) {
		size_t opened = f->bytes;
		f->bytes = 0;
		file_grew(t, f, opened);
	}
	return f;
}

/* The ELF address of file offset off (the segment that holds it). */
static bool file_vaddr(const struct unwind_file *f, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < f->nr_segs; i++) {
		const struct segment *s = &f->segs[i];
		if (off >= s->offset && off - s->offset < s->filesz) {
			*vaddr = off - s->offset + s->vaddr;
			return true;
		}
	}
	return false;
}

static Dwarf_Frame *lookup(struct unwind_file *f, uint64_t off)
{
	uint64_t vaddr;
	Dwarf_Frame *frame = NULL;
	if (!file_vaddr(f, off, &vaddr))
		return NULL;
	if (f->eh && !dwarf_cfi_addrframe(f->eh, vaddr, &frame))
		return frame;
	/* No FDE in .eh_frame: the file's own .debug_frame, if it has one
	 * (separate debug files are not searched). */
	if (!f->debug_tried) {
		f->debug_tried = true;
		f->dwarf = cfi_registers_bounded(f->elf, false) ? dwarf_begin_elf(f->elf, DWARF_C_READ, NULL) : NULL;
		if (f->dwarf)
			f->debug = dwarf_getcfi(f->dwarf);
		if (f->debug)
			f->bytes_pending += section_size(f->elf, ".debug_frame");
	}
	if (f->debug && !dwarf_cfi_addrframe(f->debug, vaddr, &frame))
		return frame;
	return NULL;
}

/* The index in f->rules of the row frame is (frame given to the file, or
 * freed for the same row kept before), and the bytes a new row adds. */
static uint32_t keep_row(struct unwind_file *f, Dwarf_Frame *frame, size_t *more)
{
	Dwarf_Addr start, end;
	bool signal;
	if (dwarf_frame_info(frame, &start, &end, &signal) < 0)
		start = end = 0, signal = false;
	uint64_t h = hash_u64(start);
	for (uint64_t probe = h;; probe = hash_u64(probe)) {
		uint32_t at;
		if (!hashmap_get(&f->rows, probe, &at))
			break;
		Dwarf_Addr s2, e2;
		bool sig2;
		if (dwarf_frame_info(f->rules[at], &s2, &e2, &sig2) >= 0 && s2 == start && e2 == end &&
		    sig2 == signal && start != end) {
			free(frame);
			return at;
		}
	}
	VEC_GROW(f->rules, f->nr_rules + 1, f->alloc_rules);
	f->rules[f->nr_rules] = frame;
	for (uint64_t probe = h;; probe = hash_u64(probe)) {
		bool inserted;
		hashmap_upsert(&f->rows, probe, (uint32_t)f->nr_rules, &inserted);
		if (inserted)
			break;
	}
	/* the rule, its pointer and its hash slots (the map is kept at most
	 * half full) */
	*more += frame_bytes(frame) + sizeof(*f->rules) + 2 * sizeof(struct hashmap_slot);
	return (uint32_t)f->nr_rules++;
}

Dwarf_Frame *unwind_file_frame(struct unwind_tables *t, struct unwind_file *f, uint64_t off)
{
	uint64_t h = hash_u64(off);
	for (uint64_t probe = h;; probe = hash_u64(probe)) {
		uint32_t at;
		if (!hashmap_get(&f->frames, probe, &at))
			break;
		if (f->kept[at].off == off)
			return f->kept[at].rule == NO_RULE ? NULL : f->rules[f->kept[at].rule];
	}
	Dwarf_Frame *frame = lookup(f, off);
	size_t more = f->bytes_pending;
	f->bytes_pending = 0;
	if (f->bytes + more > t->budget) {
		/* a file bigger than the budget alone: its rules are not kept */
		free(t->scratch);
		t->scratch = frame;
		if (more)
			file_grew(t, f, more);
		return frame;
	}
	uint32_t rule = frame ? keep_row(f, frame, &more) : NO_RULE;
	VEC_GROW(f->kept, f->nr_kept + 1, f->alloc_kept);
	f->kept[f->nr_kept] = (struct kept){ off, rule };
	for (uint64_t probe = h;; probe = hash_u64(probe)) {
		bool inserted;
		hashmap_upsert(&f->frames, probe, (uint32_t)f->nr_kept, &inserted);
		if (inserted)
			break;
	}
	f->nr_kept++;
	/* the address's entry and its hash slots */
	more += sizeof(struct kept) + 2 * sizeof(struct hashmap_slot);
	file_grew(t, f, more);
	return rule == NO_RULE ? NULL : f->rules[rule];
}
