/* Address -> function name for record, after sampling, through the shared
 * symbolizer (src/symbolize: kallsyms, ELF .symtab/.dynsym with debug files
 * by build-id and debuglink, [vdso], /tmp/perf-PID.map, demangling).
 *
 * record resolves user addresses against the mapping they fell in when
 * sampled (procmaps.h), not against a process's maps at the end: each
 * file mapping gets an address space of its own in the symbolizer, so an
 * exec or munmap after the sample changes nothing. User files' symbol
 * tables are kept within a byte budget (symbols.c), the least recently
 * used dropped past it: a function name is borrowed and valid until the
 * next lookup in another file (copy what is kept longer); module names
 * until symbols_free(). NULL = unknown. */
#ifndef SCORCH_RECORD_SYMBOLS_H
#define SCORCH_RECORD_SYMBOLS_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

struct symbols;
struct sym_inline;

struct symbols *symbols_new(void);
/* For user code: perf maps are read whoever owns them when force;
 * debuginfod servers (DEBUGINFOD_URLS) are asked for the debug files of
 * binaries without symbols unless no_debuginfod; a refused map or a
 * failing server is named on stderr when warn. symbols_new: neither. */
struct symbols *symbols_new_user(bool force, bool no_debuginfod, bool warn);
/* Note the user of process pid while it runs (once, and again after an
 * exec): its /tmp/perf-PID.map, read at the end, must be that user's or
 * root's (symbolize/perfmap.h). */
void symbols_note_process(struct symbols *s, uint32_t pid, bool exec);
/* pid exited: a process later with its pid is noted afresh (the user
 * noted stays with the symbolizer for the perf map read at the end, if
 * the process left one). */
void symbols_forget_process(struct symbols *s, uint32_t pid);
/* Mapping id (symbols_map.id) of anonymous code of process pid, which
 * exited, is no longer used: the id may come back for another mapping,
 * and what was read of pid's perf map goes. */
void symbols_forget_map(struct symbols *s, uint32_t id, uint32_t pid);
/* Perf-map lines for process pid known otherwise than by its file (what
 * every dump of a JVM's map gave). */
void symbols_add_perfmap(struct symbols *s, uint32_t pid, const char *text, size_t len);
void symbols_free(struct symbols *s);
/* What the user files' symbol tables hold now (bytes, within their
 * budget: symbols.c), and how many were dropped for it so far. */
void symbols_held(const struct symbols *s, size_t *bytes, uint64_t *dropped);

/* The kernel function at addr; *module gets perf script's name for its
 * module: "[kernel.kallsyms]", or a loaded module's ("[ext4]"). */
const char *symbols_kernel(struct symbols *s, uint64_t addr, const char **module);

struct symbols_map {
	uint32_t id;     /* procmaps mapping id: one address space per id */
	uint32_t pid;    /* the process it belonged to (JIT maps are per pid) */
	uint64_t start, end, pgoff;
	const char *path;
	uint64_t addr;   /* an address inside it */
};

/* The build-id of module (a mapping's path, or "[kernel.kallsyms]": the
 * running kernel's); returns its length, 0 when none. The signature of
 * frame_build_id_fn (profile/frame_sites.h). */
size_t symbols_build_id(void *symbols, const char *module, uint8_t id[20]);

/* The function at addr (an absolute address inside m); *module gets the
 * module perf script names: m's path, or "/tmp/perf-PID.map" for an
 * anonymous mapping (JIT code). */
const char *symbols_user(struct symbols *s, const struct symbols_map *m, uint64_t addr,
			 const char **module);
/* perf's expansion of the inlined functions at addr in m, which it applies
 * to DWARF-unwound frames only (report's: sym_inline_chain, through the
 * libdw engine, cached per address): *chain gets the names innermost
 * first, valid until the next call; returns how many (0: no expansion). */
int symbols_user_inlines(struct symbols *s, const struct symbols_map *m, uint64_t addr,
			 const struct sym_inline **chain);
/* Name m->addr now, reading the symbols of m's file at its first use (as
 * symbols_user does); false for JIT code, which is left for the end, when
 * its perf map file is complete. */
bool symbols_user_preload(struct symbols *s, const struct symbols_map *m, const char **name,
			  const char **module);

#endif
