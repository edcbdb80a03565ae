/* perf.data -> folded stacks (see fold.h): the file's records collected
 * and sorted by time (replay.h) with the symbol tables read meanwhile, then
 * replayed and each sample folded, on this thread by a folder (folder.h,
 * fold_sample.h) or on several (fold_threads.h). */
#include "perfdata/fold.h"

#include "base/alloc.h"
#include "base/error.h"
#include "perfdata/fold_chain.h"
#include "perfdata/fold_sample.h"
#include "perfdata/fold_testing.h"
#include "perfdata/fold_threads.h"
#include "perfdata/folder.h"
#include "perfdata/perfdata.h"
#include "perfdata/replay.h"
#include "profile/time_cells.h"

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The build-ids of pd from the from-th on (the header's, then those the
 * record stream brought: the first one of a path counts). */
static void add_build_ids(struct symbolizer *sym, const struct perf_data *pd, size_t from)
{
	for (size_t i = from; i < pd->nr_build_ids; i++)
		sym_add_build_id(sym, pd->build_ids[i].filename, pd->build_ids[i].id, pd->build_ids[i].id_len);
}

/* How the symbol tables are read ahead: for report -j's fold threads
 * (sym_preload_start), or at -j1 on one thread, the kernel's or the
 * files' first (sym_preload_kernel). */
enum preload_kind { PRELOAD_FOR_FOLD_THREADS, PRELOAD_KERNEL_FIRST, PRELOAD_FILES_FIRST };

/* The preload of `kind` for the kernel and the user-space files of the
 * header's build-id table (perf lists those that had samples; modules are
 * not resolved). */
static struct sym_preload *preload_header_files(struct symbolizer *sym, const struct perf_data *pd,
						enum preload_kind kind)
{
	const char **paths = xreallocarray(NULL, pd->nr_build_ids + 1, sizeof(*paths));
	size_t n = 0;
	for (size_t i = 0; i < pd->nr_build_ids; i++) {
		uint16_t mode = pd->build_ids[i].misc & PD_CPUMODE_MASK;
		const char *name = pd->build_ids[i].filename;
		if ((mode != PD_CPUMODE_KERNEL && mode != PD_CPUMODE_GUEST_KERNEL) ||
		    !strcmp(name, "[kernel.kallsyms]"))
			paths[n++] = name;
	}
	struct sym_preload *p = kind == PRELOAD_FOR_FOLD_THREADS
					? sym_preload_start(sym, paths, n)
					: sym_preload_kernel(sym, paths, n, kind == PRELOAD_FILES_FIRST);
	free(paths);
	return p;
}

/* -j1: whether the replay may go on without the kernel's symbols
 * (fold_callchain holds the samples that need them) as far as the options
 * say; the records must also bring no build-id (that could be the
 * kernel's), known once they are read. */
static bool kernel_may_come_late(const struct report_opts *o, const struct fold_testing *t)
{
	return !o->script && !o->sites && !o->time && !o->inline_addr2line && t->kernel != KERNEL_TEST_AT_ONCE;
}

/* Threads that fold (report_opts.threads), or 1 where the output needs
 * the samples one by one in order: perf script's text, stackcollapse-perf's
 * --inline (one engine's memory), pprof sites, sample times. */
static int fold_threads(const struct report_opts *o)
{
	if (o->script || o->inline_addr2line || o->sites || o->time || o->threads < 1)
		return 1;
	return o->threads;
}

static long usable_cpus(void)
{
	cpu_set_t set;
	return sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : sysconf(_SC_NPROCESSORS_ONLN);
}

/* Where report -j1's trie pushes go (fold_pushes.h): to a thread of
 * their own when it pays, if its samples may fold straight from their
 * callchains and the process may run on two CPUs or more. */
static enum fold_pushes_mode pushes_mode(const struct report_opts *o, const struct fold_testing *t)
{
	if (t->pushes == PUSHES_TEST_HERE || o->script || o->sites || o->time || o->inline_addr2line)
		return PUSHES_HERE;
	if (t->pushes == PUSHES_TEST_THREAD)
		return PUSHES_ON_A_THREAD;
	return usable_cpus() >= 2 ? PUSHES_MAY_THREAD : PUSHES_HERE;
}

static void warn_unopened(void *arg, const char *dso, const char *file, int err)
{
	(void)arg;
	if (file && strcmp(file, dso))
		warn("cannot open %s for the symbols of %s: %s%s", file, dso, strerror(err),
		     err == EMFILE || err == ENFILE ? " (raise the limit: ulimit -n)" : "");
	else
		warn("cannot open %s for its symbols: %s%s", dso, strerror(err),
		     err == EMFILE || err == ENFILE ? " (raise the limit: ulimit -n)" : "");
}

/* What report_fold holds while it runs, released in one place
 * (fold_run_release). */
struct fold_run {
	struct perf_data pd;
	bool pd_open;
	struct replay r;
	struct symbolizer *sym;
	struct sym_preload *preload;     /* reading symbol tables ahead */
	struct sym_preload *kernel_wait; /* -j1: the kernel's, read meanwhile */
	size_t header_ids;               /* build-ids in pd's header */
	int threads;                     /* that fold */
};

/* Open the file, collect its records and sort them by time, with the
 * symbol tables read meanwhile (file mode: the header's build-ids are all
 * there now): the kernel's and those of the files the header says had
 * samples. report -j reads them on a thread of their own; at -j1 one
 * thread reads the kernel's and the files', which the calling thread joins
 * in on once it has sorted the records (sym_preload_finish,
 * sym_preload_files): the files first when the replay may go on without
 * the kernel's symbols, else the kernel's first (the first kernel sample
 * needs them as soon as the records are sorted). Returns 0, or -1 when
 * nothing is to be folded. */
static int fold_run_prepare(struct fold_run *run, const char *path, const void *buf, size_t len,
			    const struct report_opts *o, const struct fold_testing *t, struct report_stats *st)
{
	struct perf_data *pd = &run->pd;
	if (perf_data_open(pd, path, buf, len) < 0)
		return -1;
	run->pd_open = true;
	if (pd->damaged) {
		st->damaged = true;
		if (!o->keep_going)
			return -1;
	}
	run->threads = fold_threads(o);
	run->header_ids = pd->nr_build_ids;
	if (!pd->pipe) {
		run->sym = symbolizer_new(&o->sym);
		add_build_ids(run->sym, pd, 0);
		enum preload_kind kind = PRELOAD_FOR_FOLD_THREADS;
		if (run->threads == 1)
			kind = kernel_may_come_late(o, t) ? PRELOAD_FILES_FIRST : PRELOAD_KERNEL_FIRST;
		run->preload = preload_header_files(run->sym, pd, kind);
	}
	run->r = (struct replay){ .pd = pd };
	int ret = replay_collect(&run->r);
	st->records = run->r.records;
	if (ret < 0) {
		st->damaged = true;
		if (!o->keep_going)
			return -1;
		warn("%s: --keep-going: using the %" PRIu64 " records read before the damage", pd->path,
		     st->records);
	}
	/* -j1 with a CPU to spare: the heap the replay is about to take is
	   faulted in there (alloc_heap_fault_in), three quarters of the ~1.1
	   KB a process takes (an address space, a thread, names, hash
	   entries), so that little is faulted in for nothing. */
	if (run->threads == 1 && usable_cpus() >= 2)
		alloc_heap_fault_in(o->heap,
				    (size_t)(run->r.forks < SIZE_MAX / 800 ? run->r.forks * 800 : SIZE_MAX));
	st->sort_moves = replay_sort_by_time(&run->r);
	return 0;
}

/* The symbolizer for the replay. -j1: the replay need not wait for the
 * kernel's symbols when its samples fold straight from their callchains
 * (fold_callchain) and the records brought no build-id (that could be the
 * kernel's): they are then read meanwhile (kernel_wait). */
static void fold_run_symbolizer(struct fold_run *run, const struct report_opts *o, const struct fold_testing *t)
{
	struct perf_data *pd = &run->pd;
	if (run->sym) {
		if (run->threads == 1) {
			if (kernel_may_come_late(o, t) && pd->nr_build_ids == run->header_ids)
				run->kernel_wait = sym_preload_files(run->preload);
			else
				sym_preload_finish(run->preload); /* sym is ours again */
			run->preload = NULL;
		}
		add_build_ids(run->sym, pd, run->header_ids);
	} else {
		run->sym = symbolizer_new(&o->sym);
		add_build_ids(run->sym, pd, 0);
		if (run->threads > 1)
			run->preload = preload_header_files(run->sym, pd, PRELOAD_FOR_FOLD_THREADS);
	}
}

/* Fold the replay on this thread into p; returns the event folded (NULL:
 * none). */
static const char *fold_on_one_thread(struct fold_run *run, const struct report_opts *o,
				      enum fold_pushes_mode pushes, bool kernel_late_test, struct profile *p,
				      struct report_stats *st)
{
	struct replay *r = &run->r;
	struct folder *f = folder_new(o, &run->pd, p, st, run->sym, NULL, pushes);
	f->kernel_wait = run->kernel_wait;
	run->kernel_wait = NULL;
	f->kernel_late_test = kernel_late_test;
	f->replay = r;
	/* a process name per sampled thread: at most one per FORK record,
	   and those already there (each growth rehashes) */
	if (r->forks < SIZE_MAX / 64) {
		hashmap_reserve(&f->pname_cache, (size_t)r->forks);
		VEC_RESERVE(f->pnames, (size_t)r->forks, f->pnames_alloc);
	}
	r->defer_kernel_map = defer_kernel_map;
	r->hook_arg = f;
	replay_run(r, run->sym, fold_sample, f);
	kernel_catch_up(f);
	fold_pushes_sync(f->pushes); /* p is whole */
	st->pushes_threaded = fold_pushes_threaded(f->pushes);
	uint64_t unit_seq = UINT64_MAX;
	folder_add_stats(f, st, &unit_seq);
	const char *event = folder_event(f);
	folder_free(f);
	return event;
}

/* Fold the replay into p on run->threads threads; returns the event
 * folded (NULL: none). */
static const char *fold_all(struct fold_run *run, const struct report_opts *o, const struct fold_testing *t,
			    struct profile *p, struct report_stats *st)
{
	if (run->threads > 1) {
		struct report_stats before = *st;
		const char *event = fold_threads_run(&run->r, run->sym, o, &run->pd, p, st, run->threads);
		if (!p->fractional || profile_total(p, 0) < 0x1p53)
			return event;
		/* Sums of doubles this large are rounded, and how depends on the
		   order they were added in: fold again on one thread (notes were
		   printed the first time). */
		sym_preload_stop(run->preload);
		run->preload = NULL;
		symbolizer_free(run->sym);
		run->sym = symbolizer_new(&o->sym);
		add_build_ids(run->sym, &run->pd, 0);
		profile_release(p);
		profile_init(p);
		*st = before;
		run->r.samples = 0;
		run->pd.damage_reported = true;
		struct report_opts again = *o;
		again.quiet = true;
		return fold_on_one_thread(run, &again, pushes_mode(o, t), t->kernel == KERNEL_TEST_LATE, p, st);
	}
	return fold_on_one_thread(run, o, pushes_mode(o, t), t->kernel == KERNEL_TEST_LATE, p, st);
}

static void fold_run_release(struct fold_run *run)
{
	sym_preload_stop(run->kernel_wait);
	sym_preload_stop(run->preload);
	symbolizer_free(run->sym);
	replay_release(&run->r);
	if (run->pd_open)
		perf_data_close(&run->pd);
}

int report_fold_testing(const char *path, const void *buf, size_t len, const struct report_opts *o,
			const struct fold_testing *t, struct profile *p, struct report_stats *st)
{
	static const struct fold_testing none;
	if (!t)
		t = &none;
	memset(st, 0, sizeof(*st));
	if (o->time)
		profile_keep_time(p);
	struct fold_run run = { 0 };
	int ret = fold_run_prepare(&run, path, buf, len, o, t, st);
	if (ret == 0) {
		fold_run_symbolizer(&run, o, t);
		const char *event = fold_all(&run, o, t, p, st);
		st->samples = run.r.samples;
		/* perf record -k: the samples' clock maps to the epoch (pipe
		 * mode brings the feature during the walk) */
		if (p->time && run.pd.epoch_known)
			time_cells_set_epoch(p, run.pd.epoch_offset);
		if (run.r.damaged)
			st->damaged = true;
		ret = st->damaged && !o->keep_going ? -1 : 0;
		st->unopened = sym_unopened(run.sym, warn_unopened, NULL);
		if (st->unopened && !ret && !o->keep_going)
			ret = error("%s: %" PRIu64 " file%s wanted for symbols could not be opened (above): their "
				    "frames would be named by file only; --keep-going draws them so", path,
				    st->unopened, st->unopened == 1 ? "" : "s");
		/* For a graph's title (pipe mode delivers these during the walk). */
		snprintf(st->hostname, sizeof(st->hostname), "%s", run.pd.hostname);
		snprintf(st->cmdline, sizeof(st->cmdline), "%s", run.pd.cmdline);
		snprintf(st->event, sizeof(st->event), "%s", event ? event : "");
	}
	fold_run_release(&run);
	return ret;
}

int report_fold(const char *path, const void *buf, size_t len, const struct report_opts *o,
		struct profile *p, struct report_stats *st)
{
	return report_fold_testing(path, buf, len, o, NULL, p, st);
}
