/* Loading symbol tables ahead of need (report -j): perf record lists in
 * perf.data's header (build-id table) the files that had samples, so their
 * symbol tables will be wanted; a thread of its own reads and sorts them
 * while the calling thread reads the records, instead of the first lookup
 * that lands in each (what a table holds does not depend on when it is
 * read: its path and the header's build-id decide). Lookups that need a
 * table being read wait for it (the DSO's lock). */
#ifndef SCORCH_SYMBOLIZE_PRELOAD_H
#define SCORCH_SYMBOLIZE_PRELOAD_H

#include "symbolize/symbolize.h"

#include <stddef.h>

struct sym_preload;

/* Start reading the tables of paths[0..n) ("[kernel.kallsyms]": the
 * kernel's symbols; other names than files' paths are left alone). s is then `threaded` (snapshot.h). Returns NULL
 * when there is nothing to read or no thread could be started. */
struct sym_preload *sym_preload_start(struct symbolizer *s, const char *const *paths, size_t n);
/* The kernel's symbols alone read on a thread of their own (report -j1:
 * reading /proc/kallsyms is mostly the kernel formatting it, ~40 ms for a
 * system-wide capture, while the calling thread reads and sorts the
 * records). s is not made `threaded`: the caller leaves s alone until
 * sym_preload_stop returned. NULL when no thread could be started (the
 * first kernel lookup reads them then). */
struct sym_preload *sym_preload_kernel(struct symbolizer *s);
/* Stop after the table being read, wait for the thread, free. */
void sym_preload_stop(struct sym_preload *p);

#endif
