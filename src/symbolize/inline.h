/* Inlined-frame expansion, binutils addr2line's answers computed
 * in-process: for `scorch collapse perf --inline` and `scorch report
 * --inline`, what stackcollapse-perf.pl gets by running `addr2line -a PC
 * -e MODULE -i -f -s -C` (with its `nm` fallback for func+0xOFF symbols);
 * for report's DWARF-unwound frames, perf's own `addr2line -i -f`. With
 * libdw and libelf, the way binutils answers: DWARF from the file or its
 * separate debug file (build-id, then .gnu_debuglink), of equal
 * subprograms the last one, else the nearest symbol of .symtab (the debug
 * file's) or .dynsym. Built only with elfutils (src/symbolize/inline*.c). */
#ifndef SCORCH_SYMBOLIZE_INLINE_H
#define SCORCH_SYMBOLIZE_INLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct inline_resolver;

/* context: frames become "func:file:line" (--context). */
struct inline_resolver *inline_resolver_new(bool context);
void inline_resolver_free(struct inline_resolver *r);
/* At most max_open files held open at once (mapped, with their DWARF and
 * indexes): the least recently asked is closed when another is opened,
 * and opened again when asked. 0 (the default): no limit. */
void inline_resolver_limit(struct inline_resolver *r, size_t max_open);
/* For tests, before the first question: find the scopes around each
 * address with libdw's own walks of the unit (dwarf_getscopes), as the
 * engine did before its per-unit index, whose answers must be the same. */
void inline_resolver_use_libdw_walks(struct inline_resolver *r);

/* The frames for pc (hex text, as perf printed it) in the file `mod`,
 * outermost first, joined with ';': the script's inline() result. "" when
 * the file cannot be read, "??" / "??:??:0" when nothing is known. The
 * string is owned by the resolver (cached per pc and module). */
const char *inline_resolve(struct inline_resolver *r, const char *pc, size_t pc_len,
			   const char *rawfunc, size_t rawfunc_len, const char *mod, size_t mod_len);

/* inline_resolve for a frame held as fields (report): pc, the symbol perf
 * script prints with +0x<offset> (NULL: [unknown]), the module. Not
 * cached; returns a malloc'd string. */
char *inline_resolve_frame(struct inline_resolver *r, uint64_t pc, const char *symbol, uint64_t offset,
			   const char *mod);

/* perf's inline expansion of a DWARF-unwound frame (perf 6.1 without
 * libbfd runs `addr2line -e FILE -i -f`, without -C): the function names of
 * addr2line's records for addr in the file at path, innermost first, as
 * binutils prints them (linkage names mangled, else DW_AT_name, else the
 * symbol table's name; "??" for a line without a function). Calls fn for
 * each and returns how many: 0 when nothing is known of addr or the file
 * cannot be read. */
int inline_chain(struct inline_resolver *r, const char *path, uint64_t addr,
		 void (*fn)(const char *func, void *arg), void *arg);

/* addr2line's -i -f -s -C answer for one address, as lines without the
 * leading address line: "func\nfile:line\n" per frame, innermost first.
 * Exposed for tests. Returns a malloc'd string. */
char *inline_addr2line(struct inline_resolver *r, const char *path, unsigned long long addr);

#endif
