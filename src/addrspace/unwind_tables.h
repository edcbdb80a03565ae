/* The unwind tables of the files that sampled processes map, opened once
 * per file and shared by every process that maps it (unwind.c).
 *
 * A file is its ELF image (libelf), its call-frame information (libdw:
 * .eh_frame through dwarf_getcfi_elf, else the file's own .debug_frame)
 * and its loadable segments, which turn a file offset (what a mapping
 * gives: address - start + pgoff) into the ELF address the CFI is written
 * in. "[vdso]" is this process's own vdso: the kernel maps the same one
 * into every 64-bit process.
 *
 * The rules found for an address are kept (a row of a few hundred bytes,
 * shared by the addresses it covers), so a return address seen again
 * costs a hash lookup, not a CFI walk. The files' tables live in a cache
 * bounded by bytes (unwind_tables.c), the least recently used file's
 * dropped past it (unmapped) and opened again when its code comes back.
 * x86-64 ELF files only: others get no tables. */
#ifndef SCORCH_ADDRSPACE_UNWIND_TABLES_H
#define SCORCH_ADDRSPACE_UNWIND_TABLES_H

#include "addrspace/unwind.h"

#include <elfutils/libdw.h>
#include <stdint.h>

struct unwind_tables;
struct unwind_file;

struct unwind_tables *unwind_tables_new(void);
void unwind_tables_free(struct unwind_tables *t);

/* The tables of the file src names (src->key: one key, one file, e.g. an
 * interned path's id). NULL when it has none: not readable, not an x86-64
 * ELF file, or without loadable segments. */
struct unwind_file *unwind_tables_file(struct unwind_tables *t, const struct unwind_source *src);

/* The CFI rules for the instruction at file offset off, or NULL when no
 * CFI covers it. Owned by the tables; valid until the next call. A file
 * from unwind_tables_file is valid until the next unwind_tables_file
 * (which may drop it for the budget). */
Dwarf_Frame *unwind_file_frame(struct unwind_tables *t, struct unwind_file *f, uint64_t off);

/* The tables' byte budget (default UNWIND_TABLES_BYTES, unwind_tables.c). */
void unwind_tables_budget(struct unwind_tables *t, size_t bytes);

struct unwind_tables_held {
	size_t bytes;     /* what the files' tables hold */
	uint32_t files;   /* files open */
	uint64_t evicted; /* files dropped for the budget so far */
};
void unwind_tables_held(const struct unwind_tables *t, struct unwind_tables_held *h);

#endif
