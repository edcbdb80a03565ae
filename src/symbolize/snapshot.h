/* A thread's view of the machine frozen at one sample, so that another
 * thread can resolve the sample's addresses while the replay moves on
 * (report -j). The replay's thread takes the view (sym_snapshot_take)
 * after the records before the sample; any thread then looks addresses up
 * in it (sym_snapshot_lookup) and gets what sym_lookup would have given at
 * that point: the same maps, the same kernel map, the same DSOs.
 *
 * What a view cannot answer is left to the replay's thread: a lookup that
 * would load the kernel's symbols (sym_kernel_lookup_loads: that moves the
 * kernel map in the middle of a sample), DWARF unwinding and inline chains.
 * Views are immutable and live as long as their set. */
#ifndef SCORCH_SYMBOLIZE_SNAPSHOT_H
#define SCORCH_SYMBOLIZE_SNAPSHOT_H

#include "symbolize/symbolize.h"

#include <stdbool.h>
#include <stdint.h>

struct space_view;  /* a thread's maps at one generation */
struct kernel_view; /* the kernel map at one generation */

struct sym_snapshot {
	const struct space_view *space;
	const struct kernel_view *kernel;
	uint64_t version; /* as sym_space_version then */
};

/* The views taken from one symbolizer (owned by the replay's thread). */
struct sym_snapshots;

/* Marks s as read by other threads: DSOs are then locked around loading
 * and lookups, and quiesce(arg) is called before a change that lookups of
 * samples already handed out must not see. */
struct sym_snapshots *sym_snapshots_new(struct symbolizer *s, void (*quiesce)(void *arg), void *arg);
void sym_snapshots_free(struct sym_snapshots *ss);

/* The view of thread (pid, tid) now (creating the thread as sym_lookup
 * would). Views of an unchanged space are shared. */
void sym_snapshot_take(struct sym_snapshots *ss, int32_t pid, int32_t tid, struct sym_snapshot *out);

/* Whether a kernel lookup of ip now would load the kernel's symbols, and
 * whether they are loaded (then no lookup loads them again). */
bool sym_kernel_lookup_loads(struct symbolizer *s, uint64_t ip);
bool sym_kernel_loaded(const struct symbolizer *s);

/* One thread's lookups: a cache of recent answers. */
struct sym_reader;
struct sym_reader *sym_reader_new(struct symbolizer *s);
void sym_reader_free(struct sym_reader *r);

/* sym_lookup at the time of the view (see symbolize.h). Safe to call from
 * several threads, each with its own reader. */
int sym_snapshot_lookup(struct sym_reader *r, const struct sym_snapshot *v, uint64_t ip, bool is_kernel,
			struct sym_frame *f);

#endif
