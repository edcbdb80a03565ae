/* Kernel symbols from a kallsyms file (/proc/kallsyms or a copy in perf's
 * build-id cache), with perf's filter (text, weak, data and bss symbols)
 * and fix-ups. Module symbols ("name\t[mod]") are read apart (kmodules). */
#ifndef SCORCH_SYMBOLIZE_KALLSYMS_H
#define SCORCH_SYMBOLIZE_KALLSYMS_H

#include "symbolize/symtab.h"

#include <stdbool.h>
#include <stdint.h>

/* Load path into t (finished). *text gets the address of _text (0 if
 * absent). Returns the number of symbols, or -1 when unreadable. */
int kallsyms_load(struct symtab *t, const char *path, uint64_t *text);
/* Kernel-module symbols of a kallsyms file, one table per module, each
 * module named as perf script names its dso ("[ext4]"). Pseudo-modules
 * ([bpf], [__builtin__ftrace]) are left out. */
struct kmodule {
	char *name; /* "[ext4]" */
	struct symtab syms;
	uint64_t lo, hi; /* first symbol's start, last one's end */
};
struct kmodules {
	struct kmodule *v;
	size_t nr, alloc;
};
/* Returns the number of modules, or -1 when path is unreadable. */
int kmodules_load(struct kmodules *m, const char *path);
void kmodules_release(struct kmodules *m);
/* The module function at addr, with *module set to its module's name;
 * NULL when no module symbol holds addr. */
const char *kmodules_lookup(struct kmodules *m, uint64_t addr, const char **module);
/* The running kernel's build-id from /sys/kernel/notes; returns its length. */
size_t kernel_build_id(uint8_t id[20]);
/* Whether the kallsyms at copy begins line for line as the one at live,
 * up to and including live's first kernel text symbol with an address
 * (read no further than 256 KiB): a copy of the same kernel made in the
 * same boot (the same KASLR offset) lists its own symbols the same. */
bool kallsyms_same_layout(const char *copy, const char *live);

#endif
