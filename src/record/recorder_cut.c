/* record --every inside one recording (recorder.h: recorder_advance): at
 * each multiple of the interval on the wall clock, the stacks collected
 * since the last cut are named into the profile, handed over
 * (record_opts.on_interval), and dropped with their counts; the process
 * table, the images, the symbols and the unwind tables stay for the next
 * interval (the files' tables within their byte budgets, symbols.c and
 * unwind_tables.c; the anonymous images of exited processes go), so a
 * cut costs the naming of one interval's stacks and nothing is left
 * unsampled between two intervals. */
#include "record/recorder.h"

#include "addrspace/unwind.h"
#include "base/hashmap.h"
#include "base/strpool.h"
#include "profile/profile.h"
#include "profile/time_cells.h"
#include "record/naming.h"
#include "record/recorder_impl.h"
#include "record/symbols.h"
#include "symbolize/symbolize.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The next cut: the first multiple of every after wall, in both clocks
 * (the monotonic one from their offset now, so that a clock step moves
 * the cuts with the wall clock). */
static void schedule(struct recorder *r, uint64_t wall)
{
	uint64_t every = r->opts->every_ns;
	r->cut_wall = (wall / every + 1) * every;
	uint64_t real = clock_ns(CLOCK_REALTIME), mono = clock_ns(CLOCK_MONOTONIC);
	r->cut_mono = r->cut_wall > real ? mono + (r->cut_wall - real) : mono;
	if (!r->cut_mono)
		r->cut_mono = 1;
}

void recorder_intervals_begin(struct recorder *r)
{
	if (!r->opts->every_ns || !r->opts->on_interval || r->opts->off_cpu)
		return;
	r->interval_start = r->interval_real = clock_ns(CLOCK_REALTIME);
	r->interval_mono = clock_ns(CLOCK_MONOTONIC);
	r->interval_base = r->samples;
	schedule(r, r->interval_start);
}

uint64_t recorder_next_cut(const struct recorder *r)
{
	return r->cut_mono;
}

/* Past this many bytes, a table of one interval's stacks is given back
 * at the cut rather than kept for the next: kept, each table stays as
 * large as the busiest interval so far made it, and a long recording
 * grows by a step at every new record (the 30-minute soak's big blocks:
 * five steps of about 1 MiB, bench/NOTES.md). Growing one again costs a
 * few copies in an interval. */
enum { KEEP_TABLE_BYTES = 64 << 10 };

#define SHED(ptr, alloc)                                                             \
	do {                                                                         \
		if ((size_t)(alloc) * sizeof(*(ptr)) > KEEP_TABLE_BYTES) {           \
			free(ptr);                                                   \
			(ptr) = NULL;                                                \
			(alloc) = 0;                                                 \
		}                                                                    \
	} while (0)

static void shed_tables(struct recorder *r)
{
	SHED(r->stacks, r->alloc_stacks);
	SHED(r->frames, r->alloc_frames);
	SHED(r->events, r->alloc_events);
	SHED(r->names, r->alloc_names);
	SHED(r->inlines, r->alloc_inlines);
	SHED(r->folded_leaves, r->alloc_folded_leaves);
}

/* What grows with the stacks goes; what follows the processes and the
 * files they run stays (the files' tables within their budgets). */
static void drop_stacks(struct recorder *r)
{
	r->nr_stacks = 0;
	r->nr_frames = 0;
	r->nr_examined = 0;
	r->nr_events = 0;
	hashmap_release(&r->by_hash);
	hashmap_init(&r->by_hash);
	hashmap_release(&r->named);
	hashmap_init(&r->named);
	recorder_fold_reset(r);
	shed_tables(r);
	r->nr_names = 0;
	r->nr_inlines = 0;
	strpool_release(&r->name_text);
	strpool_init(&r->name_text);
	if (r->times) {
		time_cells_free(r->times);
		r->times = time_cells_new();
		r->untimed = false;
	}
}

/* Cuts between two returns of freed memory to the system at most
 * (malloc_trim walks the whole heap: under churn, files' tables are
 * dropped in most intervals). */
enum { TRIM_EVERY_CUTS = 6 };

/* What the files' tables dropped for their budgets (symbols.c,
 * unwind_tables.c) freed goes back to the system (else it stays
 * resident, free in the heap, until reused). */
static void trim_if_dropped(struct recorder *r)
{
	if (r->intervals < r->trimmed_at + TRIM_EVERY_CUTS)
		return;
	size_t bytes;
	uint64_t dropped = 0, unwind_dropped = 0;
	symbols_held(r->user_syms, &bytes, &dropped);
	if (r->unwinder)
		unwinder_held(r->unwinder, &bytes, &unwind_dropped);
	dropped += unwind_dropped;
	if (dropped == r->tables_dropped)
		return;
	r->tables_dropped = dropped;
	r->trimmed_at = r->intervals;
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}

/* SCORCH_CUT_STATS: what the recorder holds after a cut, to find what
 * grows over a long run (bench/fleet-soak.sh): the heap (glibc's count),
 * the files' tables against their budgets, the process table, the
 * images, and the process's resident set by kind. */
static void print_cut_stats(const struct recorder *r)
{
	size_t sym_bytes = 0, unwind_bytes = 0;
	uint64_t dropped = 0;
	symbols_held(r->user_syms, &sym_bytes, &dropped);
	if (r->unwinder)
		unwinder_held(r->unwinder, &unwind_bytes, &dropped);
	fprintf(stderr, "scorch: cut %" PRIu64 ": symbols %zu unwind %zu paths %zu maps %u spaces %u images %u",
		r->intervals, sym_bytes, unwind_bytes, strpool_bytes(&r->maps.paths), r->maps.nr, r->maps.nr_spaces,
		r->images.nr);
#ifdef __GLIBC__
	struct mallinfo2 mi = mallinfo2();
	fprintf(stderr, " heap-used %zu heap-free %zu mmapped %zu", mi.uordblks, mi.fordblks, mi.hblkhd);
#endif
	FILE *f = fopen("/proc/self/status", "r");
	char line[128];
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long kb;
		char key[32];
		if (sscanf(line, "%31[^:]: %lu", key, &kb) == 2 && !strncmp(key, "Rss", 3))
			fprintf(stderr, " %s %lu", key, kb);
	}
	if (f)
		fclose(f);
	fputc('\n', stderr);
}

static void forget_map(void *syms, const struct mapping *m, uint32_t id)
{
	symbols_forget_map(syms, id, m->pid);
}

/* The wall clock moved this much more (or less) than the monotonic one
 * over an interval: it was stepped. (NTP's slewing moves it by 0.05 % at
 * most; a cut that comes late, on a loaded machine, moves both alike.) */
#define STEP_NS 1000000000ull

static uint64_t abs_diff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

static void cut(struct recorder *r)
{
	uint64_t real = clock_ns(CLOCK_REALTIME), mono = clock_ns(CLOCK_MONOTONIC);
	/* (the kernel's symbols are read on a thread at the start: the
	 * first cut waits for them, seconds later) */
	while (r->kernel_ready && !atomic_load_explicit(r->kernel_ready, memory_order_acquire))
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	naming_build_all(r, r->out, r->kernel_syms);
	/* The wall clock stepped since the last cut: the interval is stamped
	 * as it ran, ending at the cut on the new clock and starting as long
	 * before as it sampled (monotonic), and the next cut is aimed from
	 * there on the new clock (doc/fleet.md, Clock steps). Otherwise it
	 * ends at the multiple it was aimed at, however late the cut came,
	 * and the next starts there: they meet. */
	uint64_t start = r->interval_start, end = r->cut_wall;
	uint64_t ran = mono - r->interval_mono;
	if (abs_diff(real - r->interval_real, ran) > STEP_NS) {
		end = real;
		start = ran < end ? end - ran : 0;
	}
	struct record_interval iv = { start, end, r->samples - r->interval_base };
	r->opts->on_interval(r->opts->interval_arg, r->out, &iv);
	profile_release(r->out);
	profile_init(r->out);
	drop_stacks(r);
	images_drop_unheld(&r->images, &r->maps, forget_map, r->user_syms);
	trim_if_dropped(r);
	if (r->opts->cut_stats)
		print_cut_stats(r);
	r->intervals++;
	r->interval_start = end;
	r->interval_mono = mono;
	r->interval_real = real;
	r->interval_base = r->samples;
	naming_build_early(r, r->out, r->kernel_syms, r->kernel_ready);
	schedule(r, end);
}

void recorder_advance(struct recorder *r, uint64_t mono)
{
	while (r->cut_mono && mono >= r->cut_mono)
		cut(r);
}
