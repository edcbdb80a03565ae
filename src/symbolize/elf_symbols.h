/* ELF symbol loading for one DSO, the way perf's dso__load() picks its
 * files: candidates in perf's order (.gnu_debuglink targets, ~/.debug
 * build-id cache, /usr/lib/debug by path and by build-id, then the file
 * itself, then a debuginfod server), each rejected when its build-id differs from the recorded one;
 * symbols from the first candidate with a .symtab, else the .dynsym, plus
 * synthesized name@plt entries.
 * Symbol addresses are stored as file offsets, so a lookup uses
 * ip - map.start + map.pgoff. Built only with elfutils; without it every
 * function here reports "not available". */
#ifndef SCORCH_SYMBOLIZE_ELF_SYMBOLS_H
#define SCORCH_SYMBOLIZE_ELF_SYMBOLS_H

#include "symbolize/symtab.h"

struct debuginfo_client;

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elf_load_req {
	const char *path;          /* the DSO's path as recorded */
	const char *symfs;         /* prefix, or NULL */
	const uint8_t *build_id;   /* recorded build-id, or NULL */
	size_t build_id_len;
	const char *debug_home;    /* ~/.debug */
	bool demangle;
	const void *image;         /* in-memory ELF (vdso), or NULL */
	struct debuginfo_client *debuginfod; /* asked last, when no candidate has a
					       .symtab (by build-id), or NULL */
	size_t image_len;
};

struct elf_load_info {
	char *runtime_path; /* file matching the running code (unwinding), malloc'd or NULL */
	char *symsrc_path;  /* file the symbols came from (addr2line), malloc'd or NULL */
	uint64_t text_offset; /* .text sh_addr - sh_offset of the runtime file */
	int open_errno;       /* a file that is there (the file, or a debug file
			       * for it) could not be opened (EMFILE, EACCES...):
			       * errno, the symbols may lack its names; else 0 */
	char *unopened_path;  /* ... that file, malloc'd, or NULL */
};

/* Fill t (finished: fix-ups applied before the PLT entries are added,
 * as perf does). Returns the number of symbols added, or -1 when no usable
 * file was found; info receives the paths (free them), also when it returns -1. */
int elf_load_symbols(struct symtab *t, const struct elf_load_req *r, struct elf_load_info *info);

/* Build-id of an ELF file; returns its length (0 when none or unreadable). */
size_t elf_file_build_id(const char *path, uint8_t id[20]);

#endif
