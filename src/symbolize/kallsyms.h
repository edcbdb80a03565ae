/* Kernel symbols from a kallsyms file (/proc/kallsyms or a copy in perf's
 * build-id cache), with perf's filter (text, weak, data and bss symbols)
 * and fix-ups. Module symbols ("name\t[mod]") are skipped. */
#ifndef SCORCH_SYMBOLIZE_KALLSYMS_H
#define SCORCH_SYMBOLIZE_KALLSYMS_H

#include "symbolize/symtab.h"

#include <stdint.h>

/* Load path into t (finished). *text gets the address of _text (0 if
 * absent). Returns the number of symbols, or -1 when unreadable. */
int kallsyms_load(struct symtab *t, const char *path, uint64_t *text);
/* The running kernel's build-id from /sys/kernel/notes; returns its length. */
size_t kernel_build_id(uint8_t id[20]);
/* Symbols of a perf JIT map (/tmp/perf-PID.map: "START SIZE name" in hex),
 * finished. Returns the count, or -1 when unreadable. */
int jitmap_load(struct symtab *t, const char *path);

#endif
