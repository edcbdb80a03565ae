/* A shared object's exported symbols, by name, as a runtime finds its
 * interpreter's state (_PyRuntime, gHotSpotVMStructs...) in a process:
 * the symbols' values, and what the load bias is measured from. */
#ifndef SCORCH_RUNTIME_ELF_EXPORTS_H
#define SCORCH_RUNTIME_ELF_EXPORTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elf_exports {
	uint64_t bias_base; /* the page-aligned vaddr of the PT_LOAD at file offset 0 (UINT64_MAX: none) */
	bool dyn;           /* ET_DYN: the values are relative to the load bias */
};

/* The st_value of each of names[0..n) defined in path's .dynsym into
 * values[] (0 where absent; the first definition of a name). The number
 * found, or -1 when path is not a readable ELF file (then nothing is set).
 * Without elfutils, always -1. */
int elf_exports_read(const char *path, const char *const *names, size_t n, uint64_t *values,
		     struct elf_exports *info);

#endif
