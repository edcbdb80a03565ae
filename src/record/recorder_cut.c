/* record --every inside one recording (recorder.h: recorder_advance): at
 * each multiple of the interval on the wall clock, the stacks collected
 * since the last cut are named into the profile, handed over
 * (record_opts.on_interval), and dropped with their counts; the process
 * table, the images, the symbols and the unwind tables stay for the next
 * interval, so a cut costs the naming of one interval's stacks and
 * nothing is left unsampled between two intervals. */
#include "record/recorder.h"

#include "addrspace/unwind.h"
#include "base/hashmap.h"
#include "profile/profile.h"
#include "profile/time_cells.h"
#include "record/naming.h"
#include "record/recorder_impl.h"
#include "record/symbols.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdatomic.h>
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
	r->interval_start = clock_ns(CLOCK_REALTIME);
	r->interval_mono = clock_ns(CLOCK_MONOTONIC);
	r->interval_base = r->samples;
	schedule(r, r->interval_start);
}

uint64_t recorder_next_cut(const struct recorder *r)
{
	return r->cut_mono;
}

/* What grows with the stacks goes; what follows the processes and the
 * files they run stays. */
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
	r->nr_names = 0;
	r->nr_inlines = 0;
	if (r->times) {
		time_cells_free(r->times);
		r->times = time_cells_new();
		r->untimed = false;
	}
}

/* New files met since the symbols and unwind tables were last renewed,
 * past which they are renewed at the next cut. Each file read costs its
 * symbol table, inline index and unwind rules (and its pages mapped) for
 * as long as they are kept: a host whose binaries change (builds, tests,
 * deploys) would keep every one it ever ran. Renewed, they are read again
 * for the files the next interval meets (bench/NOTES.md). */
enum { RENEW_AFTER_FILES = 128 };

/* Between two intervals nothing borrows from them: the names went into
 * the profile, the names by address were dropped. */
static void renew_files(struct recorder *r)
{
	const struct record_opts *o = r->opts;
	symbols_free(r->user_syms);
	r->user_syms = symbols_new_user(o->force, o->no_debuginfod, !o->quiet);
	const struct hashmap *live = &r->maps.by_pid;
	for (size_t i = 0; live->nr && i <= live->mask; i++)
		if (live->slots[i].value != HASHMAP_EMPTY && live->slots[i].key)
			symbols_note_process(r->user_syms, (uint32_t)live->slots[i].key, false);
	if (r->unwinder) {
		unwinder_free(r->unwinder);
		r->unwinder = unwinder_new();
	}
	r->images_renewed = r->images.nr;
#ifdef __GLIBC__
	malloc_trim(0); /* what they held, back to the system (else it stays resident, free in the heap) */
#endif
}

/* A wall clock this far off the cut it was aimed at has been stepped. */
#define STEP_NS 1000000000ull

static void cut(struct recorder *r)
{
	/* (the kernel's symbols are read on a thread at the start: the
	 * first cut waits for them, seconds later) */
	while (r->kernel_ready && !atomic_load_explicit(r->kernel_ready, memory_order_acquire))
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	naming_build_all(r, r->out, r->kernel_syms);
	/* The wall clock stepped since the cut was aimed (it is more than a
	 * second off it): the interval is stamped as it ran, ending now and
	 * starting as long before as it sampled (monotonic), and the next
	 * cut is aimed from now on the new clock (doc/fleet.md, Clock steps). */
	uint64_t real = clock_ns(CLOCK_REALTIME), mono = clock_ns(CLOCK_MONOTONIC);
	uint64_t start = r->interval_start, end = r->cut_wall;
	if (real > end + STEP_NS || end > real + STEP_NS) {
		uint64_t ran = mono - r->interval_mono;
		end = real;
		start = ran < end ? end - ran : 0;
	}
	struct record_interval iv = { start, end, r->samples - r->interval_base };
	r->opts->on_interval(r->opts->interval_arg, r->out, &iv);
	profile_release(r->out);
	profile_init(r->out);
	drop_stacks(r);
	if (r->images.nr - r->images_renewed >= RENEW_AFTER_FILES)
		renew_files(r);
	r->intervals++;
	r->interval_start = end;
	r->interval_mono = mono;
	r->interval_base = r->samples;
	naming_build_early(r, r->out, r->kernel_syms, r->kernel_ready);
	schedule(r, end);
}

void recorder_advance(struct recorder *r, uint64_t mono)
{
	while (r->cut_mono && mono >= r->cut_mono)
		cut(r);
}
