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
 * The rules found for an address are kept (a few hundred bytes each, up
 * to a bound), so a return address seen again costs a hash lookup, not a
 * CFI walk. x86-64 ELF files only: others get no tables. */
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
 * CFI covers it. Owned by the tables; valid until the next call. */
Dwarf_Frame *unwind_file_frame(struct unwind_tables *t, struct unwind_file *f, uint64_t off);

#endif
