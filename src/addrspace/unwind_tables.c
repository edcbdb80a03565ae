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
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

/* Rules kept per address at most, over every file (each a few hundred
 * bytes of libdw's): a system-wide recording meets some tens of
 * thousands of distinct return addresses. */
enum { FRAMES_KEPT_MAX = 200000 };

struct segment {
	uint64_t offset, filesz, vaddr;
};

struct unwind_file {
	uint32_t id;        /* index in unwind_tables.files */
	char *image;        /* the vdso's copy, or NULL */
	Elf *elf;
	Dwarf_CFI *eh;      /* .eh_frame (owned by elf's CFI cache: dwarf_cfi_end) */
	Dwarf *dwarf;       /* for .debug_frame, opened when .eh_frame has no FDE */
	Dwarf_CFI *debug;
	bool debug_tried;
	struct segment *segs;
	size_t nr_segs;
};

struct unwind_tables {
	struct unwind_file **files;
	size_t nr_files, alloc_files;
	struct hashmap by_key;    /* caller's key -> index in files, UINT32_MAX - 1: none */
	struct hashmap frames;    /* hash(file, offset) -> index in kept (probing on clash) */
	struct kept {
		uint64_t off;
		uint32_t file;
		Dwarf_Frame *frame; /* NULL: no CFI there */
	} *kept;
	size_t nr_kept, alloc_kept;
	Dwarf_Frame *scratch; /* the last frame not kept */
};

enum { NO_FILE = UINT32_MAX - 1 };

struct unwind_tables *unwind_tables_new(void)
{
	struct unwind_tables *t = xcalloc(1, sizeof(*t));
	elf_version(EV_CURRENT);
	hashmap_init(&t->by_key);
	hashmap_init(&t->frames);
	return t;
}

static void file_free(struct unwind_file *f)
{
	if (!f)
		return;
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
	for (size_t i = 0; i < t->nr_kept; i++)
		free(t->kept[i].frame);
	free(t->kept);
	free(t->scratch);
	for (size_t i = 0; i < t->nr_files; i++)
		file_free(t->files[i]);
	free(t->files);
	hashmap_release(&t->by_key);
	hashmap_release(&t->frames);
	free(t);
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
		f->elf = elf_memory(f->image, src->image_len);
	} else if (!strcmp(path, "[vdso]")) {
		size_t len = 0;
		f->image = own_vdso(&len);
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
	return f;
none:
	file_free(f);
	return NULL;
}

struct unwind_file *unwind_tables_file(struct unwind_tables *t, const struct unwind_source *src)
{
	uint32_t idx, key = src->key;
	if (!hashmap_get(&t->by_key, key, &idx)) {
		struct unwind_file *f = file_open(src);
		idx = NO_FILE;
		if (f) {
			VEC_GROW(t->files, t->nr_files + 1, t->alloc_files);
			idx = f->id = (uint32_t)t->nr_files;
			t->files[t->nr_files++] = f;
		}
		bool inserted;
		*hashmap_upsert(&t->by_key, key, idx, &inserted) = idx;
	}
	return idx == NO_FILE ? NULL : t->files[idx];
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
	}
	if (f->debug && !dwarf_cfi_addrframe(f->debug, vaddr, &frame))
		return frame;
	return NULL;
}

Dwarf_Frame *unwind_file_frame(struct unwind_tables *t, struct unwind_file *f, uint64_t off)
{
	uint32_t file = f->id;
	uint64_t h = hash_u64(off ^ (uint64_t)file << 48);
	for (uint64_t probe = h;; probe = hash_u64(probe)) {
		uint32_t at;
		if (!hashmap_get(&t->frames, probe, &at))
			break;
		if (t->kept[at].off == off && t->kept[at].file == file)
			return t->kept[at].frame;
	}
	Dwarf_Frame *frame = lookup(f, off);
	if (t->nr_kept >= FRAMES_KEPT_MAX) {
		free(t->scratch);
		t->scratch = frame;
		return frame;
	}
	VEC_GROW(t->kept, t->nr_kept + 1, t->alloc_kept);
	t->kept[t->nr_kept] = (struct kept){ off, file, frame };
	for (uint64_t probe = h;; probe = hash_u64(probe)) {
		bool inserted;
		hashmap_upsert(&t->frames, probe, (uint32_t)t->nr_kept, &inserted);
		if (inserted)
			break;
	}
	t->nr_kept++;
	return frame;
}
