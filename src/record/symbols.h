/* Address -> function name for record, after sampling: kernel addresses
 * through /proc/kallsyms, user addresses as (file, offset) through the
 * file's ELF symbol tables, anonymous (JIT) code through /tmp/perf-PID.map.
 * Names are borrowed and valid until symbols_free(); NULL = unknown. */
#ifndef SCORCH_RECORD_SYMBOLS_H
#define SCORCH_RECORD_SYMBOLS_H

#include <stdint.h>

struct symbols;

struct symbols *symbols_new(void);
void symbols_free(struct symbols *s);

const char *symbols_kernel(struct symbols *s, uint64_t addr);
/* path: a mapping's name from /proc/PID/maps or MMAP2; file_offset: the
 * address's offset in that file; addr: the absolute address (for JIT maps). */
const char *symbols_user(struct symbols *s, const char *path, uint64_t file_offset,
			 uint64_t addr, uint32_t pid);

#endif
