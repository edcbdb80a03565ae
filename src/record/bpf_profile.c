/* profile.bpf.c's user side (bpf_profile.h): the program configured from
 * the options and loaded, its filters, one cpu-clock (or cycles) event
 * per CPU it is attached to, its statistics, and its counts read back.
 * Built only with libbpf (HAVE_LIBBPF). */
#include "record/bpf_profile.h"

#include "base/alloc.h"
#include "base/error.h"
#include "gen/profile.skel.h"
#include "record/backend.h"
#include "record/bpf_stacks.h"
#include "record/host.h"
#include "record/perf_attr.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

/* Cells of the counts when time is asked: 1 ms when samples are kept one
 * by one in time order (--flamechart, --time: the order within a cell is
 * lost), the heat map's 20 ms otherwise (fewer keys). Both divide the
 * heat map's cells (profile/time_cells.h), from a whole second. */
#define TIME_CELL_ORDER_NS 1000000ull
#define TIME_CELL_MAP_NS 20000000ull
/* A cell is drained this long after it ended: no program is still adding
 * to it (a program runs for microseconds, with its time read first). */
#define TIME_DRAIN_AFTER_NS 250000000ull

struct bpf_profile {
	struct profile_bpf *skel;
	int *fds;
	struct bpf_link **links;
	int nr;
	int ncpu;
	/* Time asked: the counts' cells (0: none), the stacks read by the
	 * drains while sampling, and the pids of the keys they took (for the
	 * last look at the processes' maps). */
	uint64_t time_base, time_cell_ns;
	struct bpf_stack_cache drained_stacks;
	struct hashmap drained_pids;
	struct bpf_counts_seen seen; /* the counts as last read (bpf_profile_drain_new) */
};

static uint64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts); /* bpf_ktime_get_ns's clock */
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void bpf_profile_detach(struct bpf_profile *b)
{
	for (int i = 0; i < b->nr; i++) {
		if (b->links[i])
			bpf_link__destroy(b->links[i]);
		b->links[i] = NULL;
		if (b->fds[i] >= 0)
			close(b->fds[i]);
		b->fds[i] = -1;
	}
	b->nr = 0;
}

uint64_t bpf_profile_stat(struct bpf_profile *b, uint32_t idx)
{
	uint64_t *vals = xcalloc((size_t)b->ncpu, sizeof(uint64_t)), sum = 0;
	if (!bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.stats), &idx, vals))
		for (int i = 0; i < b->ncpu; i++)
			sum += vals[i];
	free(vals);
	return sum;
}

/* Samples the recording may take: rate x CPUs x duration (30 s when
 * open-ended). */
static double expected_samples(const struct record_opts *o, int ncpu)
{
	double cpus = o->nr_cpus ? (double)o->nr_cpus : (double)(ncpu > 0 ? ncpu : 1);
	return (double)o->freq * cpus * (o->duration > 0 ? o->duration : 30.0);
}

/* Default most entries of each of profile.bpf.c's stack classes and of
 * its counts: as many as samples expected (there cannot be more distinct
 * stacks), from PROFILE_STACK_ENTRIES to 1 << 21. Their entries are
 * allocated as stacks are first seen, so the limit costs only the bucket
 * array (16 bytes per entry, a power of two); past it, samples are sent
 * whole rather than counted. */
static uint32_t default_class_entries(const struct record_opts *o, int ncpu)
{
	double expected = expected_samples(o, ncpu);
	uint32_t entries = PROFILE_STACK_ENTRIES;
	while (entries < expected && entries < 1u << 21)
		entries *= 2;
	return entries;
}

/* The program's read-only settings and map sizes, from the options. */
static void configure(struct bpf_profile *b, const struct record_opts *o, const struct record_target *t,
		      bool copy, uint32_t depth)
{
	b->skel->rodata->want_user = !o->kernel_only;
	b->skel->rodata->want_kernel = !o->user_only;
	b->skel->rodata->per_tid = o->annotate_tid;
	b->skel->rodata->per_cpu = o->per_cpu;
	b->skel->rodata->filter_pid = t->child <= 0 && o->nr_pids > 0;
	b->skel->rodata->filter_tid = t->child <= 0 && !o->nr_pids && o->nr_tids > 0;
	b->skel->rodata->include_idle = 1;
	b->skel->rodata->max_depth = depth;
	/* DWARF: user regs and stack copied out and unwound here. */
	b->skel->rodata->copy_stack = copy;
	b->skel->rodata->copy_fp = o->unwind == RECORD_UNWIND_AUTO;
	unsigned size = record_stack_size(o);
	b->skel->rodata->stack_size = size < PROFILE_USTACK_MAX ? size : PROFILE_USTACK_MAX;
	bpf_map__set_max_entries(b->skel->maps.ustack_buf, copy ? (uint32_t)b->ncpu : 1);
	if (!copy)
		bpf_map__set_max_entries(b->skel->maps.ustacks, (uint32_t)sysconf(_SC_PAGESIZE));
	/* The stacks (both programs') and counts grow as they fill, up to this. */
	uint32_t class_entries = o->stack_map_size ? o->stack_map_size : default_class_entries(o, b->ncpu);
	bpf_map__set_max_entries(b->skel->maps.stacks_0, class_entries);
	bpf_map__set_max_entries(b->skel->maps.stacks_1, class_entries);
	bpf_map__set_max_entries(b->skel->maps.stacks_2, class_entries);
	bpf_map__set_max_entries(b->skel->maps.counts, class_entries);
	/* Time: counts per (cell, stack) from a whole second before now.
	 * (--off-cpu's samples keep no time: record.h.) */
	if ((o->keep_time || o->keep_order || o->time_ranges) && !o->off_cpu) {
		b->time_cell_ns = o->keep_order || o->time_ranges ? TIME_CELL_ORDER_NS : TIME_CELL_MAP_NS;
		b->time_base = monotonic_ns() / 1000000000u * 1000000000u;
		b->skel->rodata->time_cell_ns = b->time_cell_ns;
		b->skel->rodata->time_base = b->time_base;
	}
}

int bpf_profile_open(const struct record_opts *o, const struct record_target *t, bool copy, uint32_t depth,
		     struct bpf_profile **out)
{
	struct bpf_profile *b = xcalloc(1, sizeof(*b));
	bpf_counts_seen_init(&b->seen);
	b->ncpu = libbpf_num_possible_cpus();
	if (b->ncpu <= 0)
		b->ncpu = record_nr_cpus();
	bpf_stack_cache_init(&b->drained_stacks);
	hashmap_init(&b->drained_pids);
	b->skel = profile_bpf__open();
	if (!b->skel) {
		int e = errno;
		bpf_profile_close(b);
		return record_bpf_unavailable(o, "cannot open the BPF object: %s", strerror(e));
	}
	configure(b, o, t, copy, depth);
	if (profile_bpf__load(b->skel)) {
		int e = errno;
		bpf_profile_close(b);
		if (e == EPERM || e == EACCES)
			return record_bpf_unavailable(o, "loading it is not permitted: needs root, or CAP_BPF "
						      "and CAP_PERFMON (setcap cap_bpf,cap_perfmon+ep)");
		return record_bpf_unavailable(o, "cannot load the program: %s", strerror(e));
	}
	*out = b;
	return 0;
}

int bpf_profile_filter(struct bpf_profile *b, const struct record_opts *o, const struct record_target *t,
		       struct recorder *r)
{
	uint8_t one = 1;
	for (size_t i = 0; i < o->nr_pids && t->child <= 0; i++) {
		if (target_check_process(o->pids[i]))
			return -1;
		uint32_t pid = (uint32_t)o->pids[i];
		bpf_map_update_elem(bpf_map__fd(b->skel->maps.pids), &pid, &one, BPF_ANY);
		recorder_seen(r, pid);
	}
	for (size_t i = 0; i < o->nr_tids && t->child <= 0 && !o->nr_pids; i++) {
		if (target_check_thread(o->tids[i]))
			return -1;
		uint32_t tid = (uint32_t)o->tids[i];
		bpf_map_update_elem(bpf_map__fd(b->skel->maps.tids), &tid, &one, BPF_ANY);
	}
	return 0;
}

void bpf_profile_enable(struct bpf_profile *b)
{
	for (int i = 0; i < b->nr; i++)
		ioctl(b->fds[i], PERF_EVENT_IOC_ENABLE, 0);
}

int bpf_profile_ring_fd(const struct bpf_profile *b)
{
	return bpf_map__fd(b->skel->maps.ustacks);
}

int bpf_profile_spill_fd(const struct bpf_profile *b)
{
	return bpf_map__fd(b->skel->maps.spills);
}

int bpf_profile_counts_fd(const struct bpf_profile *b)
{
	return bpf_map__fd(b->skel->maps.counts);
}

void bpf_profile_close(struct bpf_profile *b)
{
	if (!b)
		return;
	bpf_profile_detach(b);
	free(b->fds);
	free(b->links);
	bpf_counts_seen_release(&b->seen);
	profile_bpf__destroy(b->skel);
	bpf_stack_cache_release(&b->drained_stacks);
	hashmap_release(&b->drained_pids);
	free(b);
}

void bpf_profile_scan_new_pids(struct bpf_profile *b, struct recorder *r)
{
	static const size_t pid_at = 0;
	bpf_scan_key_pids(bpf_map__fd(b->skel->maps.new_pids), &pid_at, 1, r, false, true);
}

int bpf_profile_attach(struct bpf_profile *b, const struct record_opts *o, const struct record_target *t,
		       const char **event)
{
	struct event_choice ev;
	event_choice_init(&ev, o);
	b->fds = xcalloc((size_t)b->ncpu, sizeof(int));
	b->links = xcalloc((size_t)b->ncpu, sizeof(*b->links));
	for (int cpu = 0; cpu < b->ncpu; cpu++) {
		if (!record_cpu_wanted(o, cpu))
			continue;
		struct perf_event_attr attr;
		record_fill_attr(&attr, o, ev.cycles);
		attr.sample_type = 0;
		attr.exclude_callchain_user = attr.exclude_callchain_kernel = 0;
		attr.inherit = t->child > 0;
		attr.enable_on_exec = t->child > 0;
		int fd = record_perf_open(&attr, t->child > 0 ? t->child : -1, cpu, -1, 0);
		if (event_choice_retry(&ev, o, fd < 0, errno)) {
			cpu--;
			continue;
		}
		if (fd < 0) {
			int e = errno;
			if (e == ENODEV)
				continue; /* offline CPU */
			char what[32];
			snprintf(what, sizeof(what), "sampling CPU %d", cpu);
			if (e == EMFILE || e == ENFILE) /* the perf backend needs fewer */
				return record_bpf_unavailable(o, "%s: %s", what, strerror(e));
			return record_perf_error(e, what);
		}
		b->fds[b->nr] = fd;
		b->links[b->nr] = bpf_program__attach_perf_event(b->skel->progs.sample, fd);
		b->nr++;
		if (!b->links[b->nr - 1]) {
			int e = errno;
			if (e == EMFILE || e == ENFILE)
				return record_bpf_unavailable(o, "attaching to CPU %d: %s", cpu, strerror(e));
			return error("cannot attach the BPF program to CPU %d: %s", cpu, strerror(e));
		}
	}
	*event = event_choice_name(&ev, o);
	return 0;
}

void bpf_profile_class_fds(const struct bpf_profile *b, int fds[PROFILE_CLASSES])
{
	fds[0] = bpf_map__fd(b->skel->maps.stacks_0);
	fds[1] = bpf_map__fd(b->skel->maps.stacks_1);
	fds[2] = bpf_map__fd(b->skel->maps.stacks_2);
}

/* The stacks are read in batches first (a few system calls rather than
 * two per key), then the counts. */
void bpf_profile_python_fds(const struct bpf_profile *b, int *procs, int *stacks, int *seen)
{
	*procs = bpf_map__fd(b->skel->maps.py_procs);
	*stacks = bpf_map__fd(b->skel->maps.py_stacks);
	*seen = bpf_map__fd(b->skel->maps.py_seen);
}

void bpf_profile_drain(struct bpf_profile *b, struct recorder *r, struct record_stats *stats, uint32_t limit,
		       struct bpf_python *python)
{
	static const uint32_t frames[PROFILE_CLASSES] = { PROFILE_CLASS_FRAMES_0, PROFILE_CLASS_FRAMES_1,
							  PROFILE_CLASS_FRAMES_2 };
	struct bpf_stack_cache cache;
	struct bpf_stacks from = { .cache = &cache, .python = python, .time_base = b->time_base,
				   .time_cell_ns = b->time_cell_ns };
	bpf_stack_cache_init(&cache);
	bpf_profile_class_fds(b, from.fds);
	for (int i = 0; i < PROFILE_CLASSES; i++)
		if (bpf_stack_cache_load(&cache, from.fds[i], frames[i]))
			break; /* (then read one by one) */
	bpf_stacks_drain(&from, bpf_map__fd(b->skel->maps.counts), r, stats, limit, &b->seen);
	bpf_stack_cache_release(&cache);
}


/* The pids of exited processes out of pids: their maps are not read
 * again at the end (they are gone), so the set follows the live
 * processes, not every process the recording met. */
static void forget_exited_pids(struct hashmap *pids, const struct recorder *r)
{
	uint32_t gone[256];
	size_t nr;
	do {
		nr = 0;
		for (size_t i = 0; pids->nr && i <= pids->mask && nr < sizeof(gone) / sizeof(gone[0]); i++) {
			const struct hashmap_slot *sl = &pids->slots[i];
			if (sl->value != HASHMAP_EMPTY && (!recorder_knows(r, (uint32_t)sl->key) ||
							   recorder_exiting(r, (uint32_t)sl->key)))
				gone[nr++] = (uint32_t)sl->key;
		}
		for (size_t i = 0; i < nr; i++)
			hashmap_remove(pids, gone[i]);
	} while (nr == sizeof(gone) / sizeof(gone[0]));
}

bool bpf_profile_timed(const struct bpf_profile *b)
{
	return b->time_cell_ns != 0;
}

void bpf_profile_drain_over(struct bpf_profile *b, struct recorder *r, struct record_stats *stats, uint32_t limit,
			    struct bpf_python *python)
{
	uint64_t now = monotonic_ns();
	if (!b->time_cell_ns || now < b->time_base + TIME_DRAIN_AFTER_NS)
		return;
	/* Keys hold cell index + 1: those of cells ended by now - the margin. */
	uint64_t over = (now - TIME_DRAIN_AFTER_NS - b->time_base) / b->time_cell_ns;
	if (over == 0)
		return;
	struct bpf_stacks from = { .cache = &b->drained_stacks, .fill = true, .python = python,
				   .time_base = b->time_base, .time_cell_ns = b->time_cell_ns };
	bpf_profile_class_fds(b, from.fds);
	bpf_stacks_drain_before(&from, bpf_map__fd(b->skel->maps.counts), over < UINT32_MAX ? (uint32_t)over + 1 : UINT32_MAX,
				r, stats, limit, &b->drained_pids);
	forget_exited_pids(&b->drained_pids, r);
}

void bpf_profile_refresh_drained(struct bpf_profile *b, struct recorder *r)
{
	const struct hashmap *m = &b->drained_pids;
	for (size_t i = 0; m->nr && i <= m->mask; i++)
		if (m->slots[i].value != HASHMAP_EMPTY && m->slots[i].key)
			recorder_refresh(r, (uint32_t)m->slots[i].key);
}

void bpf_profile_drain_new(struct bpf_profile *b, struct recorder *r, struct record_stats *stats, uint32_t limit,
			   struct bpf_python *python, struct record_bound *bound)
{
	/* (stacks one by one: the few keys that gained samples since the
	 * last read, not the whole stack maps) */
	struct bpf_stacks from = { .python = python, .bound = bound };
	bpf_profile_class_fds(b, from.fds);
	bpf_stacks_drain(&from, bpf_map__fd(b->skel->maps.counts), r, stats, limit, &b->seen);
}

