/* Loading symbol tables ahead of need (report -j): perf record lists in
 * perf.data's header (build-id table) the files that had samples, so their
 * symbol tables will be wanted; a thread of its own reads and sorts them
 * while the calling thread reads the records, instead of the first lookup
 * that lands in each (what a table holds does not depend on when it is
 * read: its path and the header's build-id decide). Lookups that need a
 * table being read wait for it (the DSO's lock). At report's default -j1
 * the thread reads the kernel's symbols first (sym_preload_kernel), the
 * calling thread joins in on the files when it has read the records, and
 * the thread is joined before the first lookup: each table is read by
 * one thread (a DSO is listed once, however often the header names its
 * path), nothing is locked. */
#ifndef SCORCH_SYMBOLIZE_PRELOAD_H
#define SCORCH_SYMBOLIZE_PRELOAD_H

#include "symbolize/symbolize.h"

#include <stdbool.h>
#include <stddef.h>

struct sym_preload;

/* Start reading the tables of paths[0..n) ("[kernel.kallsyms]": the
 * kernel's symbols; other names than files' paths are left alone). s is then `threaded` (snapshot.h). Returns NULL
 * when there is nothing to read or no thread could be started. */
struct sym_preload *sym_preload_start(struct symbolizer *s, const char *const *paths, size_t n);
/* report -j1: the kernel's symbols, then the files' tables, read on a
 * thread of their own while the calling thread reads and sorts the
 * records (reading /proc/kallsyms is mostly the kernel formatting it: ~30
 * ms of a system-wide capture's ~45 ms to read and sort it; a capture of
 * another kernel has the files read meanwhile instead), the files' DSOs of
 * paths[0..n) made (as sym_preload_start). NULL when there is nothing to
 * read or no thread could be started. s is not made `threaded`: the
 * caller leaves s alone until sym_preload_finish returned. */
struct sym_preload *sym_preload_kernel(struct symbolizer *s, const char *const *paths, size_t n);
/* The files' tables the thread has not taken yet, largest first, read on
 * the calling thread too (work the replay's first lookups would do, done
 * while it would wait); then wait for the thread, free. */
void sym_preload_finish(struct sym_preload *p);
/* report -j1 with a replay that does not wait for the kernel's symbols:
 * the files' tables not taken yet are read on the calling thread (as
 * sym_preload_finish), which may then use s for everything but the
 * kernel's DSO and map while the thread may still be reading the kernel's
 * symbols (it takes no file after this). Before the first kernel lookup:
 * sym_preload_finish. Returns p. */
struct sym_preload *sym_preload_files(struct sym_preload *p);
/* Whether the kernel's symbols are read (sym_preload_files's thread is
 * past them). */
bool sym_preload_kernel_ready(struct sym_preload *p);
/* Stop after the table being read, wait for the thread, free. */
void sym_preload_stop(struct sym_preload *p);

#endif
