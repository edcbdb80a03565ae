/* Loading symbol tables ahead of need (report -j): perf record lists in
 * perf.data's header (build-id table) the files that had samples, so their
 * symbol tables will be wanted; a thread of its own reads and sorts them
 * while the calling thread reads the records, instead of the first lookup
 * that lands in each (what a table holds does not depend on when it is
 * read: its path and the header's build-id decide). Lookups that need a
 * table being read wait for it (the DSO's lock). At report's default -j1
 * (sym_preload_kernel) the thread reads the kernel's symbols and the
 * files', the calling thread joins in on the files when it has read the
 * records, and it leaves the kernel's DSO alone until the thread is done
 * with it: each table is read by one thread (a DSO is listed once,
 * however often the header names its path), nothing is locked. */
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
/* report -j1: the kernel's symbols and the files' tables read on a
 * thread of their own while the calling thread reads and sorts the
 * records, the files' DSOs of paths[0..n) made (as sym_preload_start).
 * The thread reads the kernel's first, or with files_first the files'
 * first: for a replay that will not wait for the kernel's symbols
 * (sym_preload_files), whose first lookups want the files' tables and
 * whose kernel samples can wait. Reading /proc/kallsyms is mostly the
 * kernel formatting it; with files_first the replay of a capture of many
 * short-lived processes, whose files' tables the calling thread would
 * otherwise read alone, starts sooner.
 * NULL when there is nothing to read or no thread could be started. s is
 * not made `threaded`: the caller leaves s alone until
 * sym_preload_finish (or, for all but the kernel's DSO and map,
 * sym_preload_files) returned. */
struct sym_preload *sym_preload_kernel(struct symbolizer *s, const char *const *paths, size_t n, bool files_first);
/* The files' tables the thread has not taken yet, largest first, read on
 * the calling thread too (work the replay's first lookups would do, done
 * while it would wait); then wait for the thread, free. */
void sym_preload_finish(struct sym_preload *p);
/* report -j1 with a replay that does not wait for the kernel's symbols:
 * the files' tables not taken yet are read on the calling thread (as
 * sym_preload_finish), and with files_first it waits for the thread to
 * finish the file it is reading; the calling thread may then use s for
 * everything but the kernel's DSO and map while the thread may still be
 * reading the kernel's symbols (it takes no file after this). Before the
 * first kernel lookup: sym_preload_finish. Returns p. */
struct sym_preload *sym_preload_files(struct sym_preload *p);
/* Whether the kernel's symbols are read (sym_preload_files's thread is
 * past them). */
bool sym_preload_kernel_ready(struct sym_preload *p);
/* Stop after the table being read, wait for the thread, free. */
void sym_preload_stop(struct sym_preload *p);

#endif
