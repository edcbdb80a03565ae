/* The eBPF backend: profile.bpf.c (bpf_profile.c) attached to one
 * cpu-clock (or cycles) event per CPU counts stacks in the kernel, and
 * offcpu.bpf.c (bpf_offcpu.c) sums blocked time for --off-cpu/--wall;
 * user space only wakes up to read the user-stack copies (DWARF), to draw
 * progress and to capture the maps of processes while they live (so that
 * they can be symbolized after they exit): /proc/PID/maps of pids new in
 * the counts, and the mmap/comm/fork records of a sample-less perf side
 * band (perf_sideband.c). At the end the programs are detached first,
 * then the maps are read once (with time asked, the counts are per time
 * cell, and the cells that are over are read while sampling too).
 * Built only with libbpf (HAVE_LIBBPF). */
#include "base/alloc.h"
#include "base/error.h"
#include "record/backend.h"
#include "record/bpf_python.h"
#include "record/bpf_offcpu.h"
#include "record/bpf_profile.h"
#include "record/bpf_stacks.h"
#include "record/host.h"
#include "record/perf_attr.h"
#include "record/perf_sideband.h"
#include "record/profile_abi.h"
#include "record/session.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* libbpf's own messages are not for our users; we explain failures. */
static int quiet_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	if (getenv("SCORCH_DEBUG_BPF")) /* the verifier's log, for developers */
		return vfprintf(stderr, fmt, ap);
	return 0;
}

struct spill_ctx {
	struct recorder *r;
	uint64_t lost;
	uint32_t depth; /* frames the stack map holds per stack */
	uint32_t limit; /* a stack this deep reached the limit (root end lost) */
	struct bpf_python *python; /* runtime frames the program read */
	const struct record_bound *bound; /* finishing: a second signal leaves the rest unread */
	uint64_t unread;
};

/* User stacks copied out by the program (--call-graph auto or dwarf): on
 * their way in, queued with the side band's records by time; on their way
 * out, unwound by the recorder with their kernel stack from the map. */
struct ustack_ctx {
	struct recorder *r;
	struct perf_sideband *sideband;
	int class_fds[PROFILE_CLASSES]; /* the stacks (both programs') */
	struct bpf_stack_cache kernel; /* by stack id, since kernel_cut */
	uint64_t kernel_cut;           /* recorder_next_cut when the cache was started */
	uint64_t bytes, samples;
	uint32_t limit; /* frame-pointer chains this deep lost their root end */
	struct bpf_offcpu *offcpu; /* --off-cpu: its copies and block ends too */
	/* Records one ring_buffer__consume may still take: libbpf's consume
	 * goes on while the programs write, which at a high rate (-F 30000
	 * with stack copies) is forever; a negative return ends it, and the
	 * sampling loop gets to its deadline and stop checks. */
	uint32_t budget;
	struct record_bound *bound; /* while sampling: -d's deadline and Ctrl-C end a read too */
	struct bpf_python *python; /* runtime frames the program read */
};

enum { USTACK_BUDGET = 1 << 14 };

/* How often the in-kernel counts are read while sampling (seconds): what
 * they gained, handed to the recorder, so that the processes that exited
 * meanwhile can be forgotten. */
#define COUNTS_READ_S 1.0

static int on_ustack_in(void *ctx, void *data, size_t size)
{
	struct ustack_ctx *uc = ctx;
	if (uc->budget == 0 || (!uc->bound->finishing && record_bound_over(uc->bound)))
		return -EAGAIN; /* this record is taken; the rest wait */
	uc->budget--;
	uint64_t time;
	if (uc->offcpu && !(data = (void *)bpf_offcpu_ring_record(uc->offcpu, data, &size)))
		return 0;
	if (size < PROFILE_USTACK_HEAD)
		return 0;
	memcpy(&time, data, sizeof(time));
	uc->bytes += size;
	perf_sideband_push(uc->sideband, time, data, size);
	return 0;
}

/* The kernel frames of a stack id, read once per id (ids are stable while
 * the programs run: a stored stack is never replaced). */
static const uint64_t *kernel_frames(struct ustack_ctx *uc, int32_t id, uint32_t *nr)
{
	uint32_t key = (uint32_t)id;
	/* Under --every the cache starts again at each cut: it would
	 * otherwise hold every kernel stack of a days-long recording, where
	 * reading an interval's stacks again costs a lookup each. */
	uint64_t cut = recorder_next_cut(uc->r);
	if (cut != uc->kernel_cut) {
		bpf_stack_cache_release(&uc->kernel);
		bpf_stack_cache_init(&uc->kernel);
		uc->kernel_cut = cut;
	}
	const uint64_t *got = bpf_stack_cache_get(&uc->kernel, key, nr);
	if (got)
		return got;
	uint64_t ips[PROFILE_MAX_DEPTH] = { 0 };
	uint32_t class = key >> PROFILE_CLASS_SHIFT;
	*nr = class < PROFILE_CLASSES && !bpf_map_lookup_elem(uc->class_fds[class], &key, ips)
		      ? bpf_stack_depth(ips, PROFILE_MAX_DEPTH)
		      : 0;
	return bpf_stack_cache_put(&uc->kernel, key, ips, *nr);
}

static void on_ustack_out(void *ctx, const void *data, size_t size)
{
	struct ustack_ctx *uc = ctx;
	const struct profile_ustack *u = data; /* 8-byte aligned in the queue */
	if (size < PROFILE_USTACK_HEAD || u->stack_len > size - PROFILE_USTACK_HEAD)
		return;
	char comm[PROFILE_COMM_LEN + 1];
	memcpy(comm, u->comm, PROFILE_COMM_LEN);
	comm[PROFILE_COMM_LEN] = 0;
	struct record_sample s = { 0 };
	s.pid = u->pid;
	s.tid = u->tid;
	s.cpu = u->cpu;
	s.time = u->time;
	s.weight = 1;
	s.off_cpu = u->off_cpu;
	s.runnable = u->off_cpu == PROFILE_USTACK_RUNNABLE;
	s.ns = u->off_cpu_ns;
	struct record_sample waker;
	s.waker = bpf_offcpu_waker(uc->offcpu, u, size, &waker);
	s.comm = comm;
	s.user = (const uint64_t *)u->user;
	s.nr_user = u->nr_user < PROFILE_MAX_DEPTH ? u->nr_user : PROFILE_MAX_DEPTH;
	s.user_truncated = s.nr_user >= uc->limit;
	if (u->kernel_stack >= 0) {
		s.kernel = kernel_frames(uc, u->kernel_stack, &s.nr_kernel);
	} else if (u->nr_kernel) {
		s.kernel = (const uint64_t *)u->kernel;
		s.nr_kernel = u->nr_kernel < PROFILE_MAX_DEPTH ? u->nr_kernel : PROFILE_MAX_DEPTH;
	} else if (u->kernel_stack == -ENOMEM) {
		s.kernel_missing = true;
	}
	s.kernel_truncated = s.nr_kernel >= uc->limit;
	s.regs_abi = 2; /* PERF_SAMPLE_REGS_ABI_64 */
	s.regs_mask = record_user_regs_mask();
	s.regs = (const uint64_t *)u->regs;
	s.stack = u->stack;
	s.stack_len = u->stack_len;
	s.stack_holes = u->stack_holes;
	if (!u->off_cpu && uc->python)
		bpf_python_sample(uc->python, u->python_stack, &s);
	uc->samples++;
	recorder_sample(uc->r, &s);
}

/* A sample the program sent whole after a stack-map collision. */
static void on_spill(void *ctx, int cpu, void *data, __u32 size)
{
	struct spill_ctx *sc = ctx;
	struct profile_spill sp;
	(void)cpu;
	if (size < sizeof(sp))
		return;
	if (record_bound_signalled(sc->bound)) {
		sc->unread++;
		return;
	}
	memcpy(&sp, data, sizeof(sp));
	char comm[PROFILE_COMM_LEN + 1];
	memcpy(comm, sp.comm, PROFILE_COMM_LEN);
	comm[PROFILE_COMM_LEN] = 0;
	struct record_sample s = { 0 };
	s.pid = sp.pid;
	s.tid = sp.tid;
	s.cpu = sp.cpu;
	s.time = sp.time;
	s.weight = 1;
	s.comm = sp.pid || sp.tid ? comm : "swapper";
	uint64_t user[PROFILE_MAX_DEPTH], kernel[PROFILE_MAX_DEPTH];
	memcpy(user, sp.user, sizeof(user));
	memcpy(kernel, sp.kernel, sizeof(kernel));
	s.user = user;
	s.nr_user = sp.nr_user < sc->depth ? sp.nr_user : sc->depth;
	s.kernel = kernel;
	s.nr_kernel = sp.nr_kernel < sc->depth ? sp.nr_kernel : sc->depth;
	s.user_truncated = s.nr_user >= sc->limit;
	s.kernel_truncated = s.nr_kernel >= sc->limit;
	if (sc->python)
		bpf_python_sample(sc->python, sp.python_stack, &s);
	recorder_sample(sc->r, &s);
}

static void on_spill_lost(void *ctx, int cpu, __u64 n)
{
	struct spill_ctx *sc = ctx;
	(void)cpu;
	sc->lost += n;
}

/* One run of the backend. */
struct bpf_run {
	const struct record_opts *o;
	struct recorder *r;
	struct record_target *t;
	struct record_stats *stats;
	struct bpf_profile *prof;
	struct bpf_offcpu *offcpu; /* --off-cpu, --wall */
	struct perf_sideband *sideband;
	struct perf_buffer *spill_buf;
	struct ring_buffer *ustack_ring;
	struct spill_ctx spills;
	struct ustack_ctx ustacks;
	struct bpf_python python;
	struct record_bound bound; /* when the drains give way (session.h) */
};

/* The programs loaded, or why they cannot be here (RECORD_UNAVAILABLE). */
static int load(struct bpf_run *s)
{
	const struct record_opts *o = s->o;
	/* A perf_event program attaches to sampling events only; a tracepoint
	 * would need a program of the tracepoint type. */
	if (o->event == RECORD_EVENT_COUNTED && o->counted.type == PERF_TYPE_TRACEPOINT)
		return record_bpf_unavailable(o, "tracepoint -e %s is recorded by the perf backend only",
					      o->counted.name);
	/* Each stack-map entry holds a fixed number of frames (bpf_get_stackid
	 * stores no more, and no more than perf_event_max_stack either). */
	if (o->max_stack > PROFILE_MAX_DEPTH && o->unwind == RECORD_UNWIND_FP)
		return record_bpf_unavailable(o, "its stack map holds at most %d frames per stack "
					      "(--max-stack %u)", PROFILE_MAX_DEPTH, o->max_stack);
	if (o->max_stack && o->max_stack < PROFILE_MAX_DEPTH)
		s->spills.depth = o->max_stack;
	unsigned kernel_max = record_kernel_max_stack();
	s->spills.limit = s->spills.depth < kernel_max ? s->spills.depth : kernel_max;

	libbpf_set_print(quiet_libbpf);
	bool copy = recorder_unwinds(s->r);
	int e = bpf_profile_open(o, s->t, copy, s->spills.depth, &s->prof);
	if (e)
		return e;
	if (o->off_cpu) {
		int fds[PROFILE_CLASSES];
		bpf_profile_class_fds(s->prof, fds);
		e = bpf_offcpu_open(o, s->t, fds, s->spills.depth, bpf_profile_ring_fd(s->prof), copy, &s->offcpu);
		if (e) {
			bpf_profile_close(s->prof);
			return e;
		}
	}
	return 0;
}

/* A buffer could not be opened (errno): out of descriptors, the perf
 * backend (which needs fewer) may still run, as when the programs do not
 * load; anything else is an error. */
static int buffer_failed(struct bpf_run *s, const char *what)
{
	int e = errno;
	if (e == EMFILE || e == ENFILE)
		return record_bpf_unavailable(s->o, "cannot open its %s: %s", what, strerror(e));
	return error("cannot open the BPF backend's %s: %s", what, strerror(e));
}

/* Filters, events, and the buffers the programs write to. */
static int open_inputs(struct bpf_run *s)
{
	const struct record_opts *o = s->o;
	if (bpf_profile_filter(s->prof, o, s->t, s->r))
		return -1;
	if (!o->off_cpu || o->wall) {
		int e = bpf_profile_attach(s->prof, o, s->t, &s->stats->event);
		if (e)
			return e == RECORD_UNAVAILABLE ? e : -1;
	}
	if (s->offcpu && bpf_offcpu_attach(s->offcpu, o, s->t))
		return -1;
	s->sideband = perf_sideband_open(o, s->r, s->t);
	s->ustacks.sideband = s->sideband;
	s->ustacks.bound = &s->bound;
	s->spills.bound = &s->bound;
	perf_sideband_bound(s->sideband, &s->bound);
	s->ustacks.limit = s->spills.limit;
	bpf_profile_class_fds(s->prof, s->ustacks.class_fds);
	s->ustacks.offcpu = s->offcpu;
	perf_sideband_on_push(s->sideband, on_ustack_out, &s->ustacks);
	s->ustack_ring = ring_buffer__new(bpf_profile_ring_fd(s->prof), on_ustack_in, &s->ustacks, NULL);
	if (!s->ustack_ring)
		return buffer_failed(s, "ring buffer");
	s->spill_buf = perf_buffer__new(bpf_profile_spill_fd(s->prof), 64, on_spill, on_spill_lost, &s->spills, NULL);
	if (!s->spill_buf)
		return buffer_failed(s, "perf buffer");
	return 0;
}

static uint64_t monotonic_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts); /* the samples' and the cuts' clock */
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The poll's timeout: ms, or less when the cut (monotonic ns, 0: none)
 * whose untimed counts are still to be read comes sooner. */
static int until_cut_ms(bool untimed, uint64_t cut, uint64_t counts_cut, int ms)
{
	uint64_t now = monotonic_now();
	if (!untimed || !cut || cut == counts_cut)
		return ms;
	if (cut <= now)
		return 0;
	uint64_t left = (cut - now + 999999) / 1000000;
	return left < (uint64_t)ms ? (int)left : ms;
}

/* Until record_should_stop: read the copies, the side band and the
 * spills, scan for new processes, draw progress. */
static double sample(struct bpf_run *s)
{
	const struct record_opts *o = s->o;
	double start = record_now(), last_scan = start, last_progress = 0, last_counts = start;
	uint64_t counts_cut = 0; /* the cut whose counts were read (--every) */
	record_bound_start(&s->bound, o, start);
	struct pollfd *pfd = xcalloc(s->t->nr_watch + 2, sizeof(*pfd));
	while (!record_should_stop(o, s->t, start, s->stats)) {
		/* Sleep, or wake at once when a target exits or the program
		 * finds the stack-copy ring a quarter full (ustack_send). */
		size_t npfd = target_pollfds(s->t, pfd);
		pfd[npfd++] = (struct pollfd){ .fd = ring_buffer__epoll_fd(s->ustack_ring), .events = POLLIN };
		/* --every: the in-kernel counts have no time (unless the heat
		 * map keys them by cell): they count in the interval they are
		 * read in. So they are read as soon as the cut's time has
		 * passed (the poll wakes then), before the records after it
		 * (copies, spills: timed, the first past the cut makes it)
		 * are taken, and not again until the cut is made. */
		bool untimed = !s->offcpu && !bpf_profile_timed(s->prof); /* (timed: the cells over are read below) */
		uint64_t cut = recorder_next_cut(s->r);
		poll(pfd, (nfds_t)npfd, record_poll_ms(o, start, until_cut_ms(untimed, cut, counts_cut, 50)));
		double now = record_now();
		cut = recorder_next_cut(s->r);
		if (untimed && cut && cut != counts_cut && monotonic_now() >= cut) {
			bpf_profile_drain_new(s->prof, s->r, s->stats, s->spills.limit, &s->python, NULL); /* (whole) */
			counts_cut = cut;
			last_counts = now;
		}
		s->ustacks.budget = USTACK_BUDGET;
		/* First, so that the program walks a new interpreter's frames
		 * from its next sample on (the rest can take a while). */
		bpf_python_update(&s->python, s->r);
		ring_buffer__consume(s->ustack_ring); /* copies in, before the side band's records go out */
		perf_sideband_drain(s->sideband);
		perf_buffer__consume(s->spill_buf);
		if (now - last_scan >= 0.25) {
			bpf_profile_scan_new_pids(s->prof, s->r);
			if (s->offcpu)
				bpf_offcpu_scan_pids(s->offcpu, s->r, false);
			if (bpf_profile_timed(s->prof)) /* the cells that are over */
				bpf_profile_drain_over(s->prof, s->r, s->stats, s->spills.limit, &s->python);
			last_scan = now;
		}
		/* Exited processes are forgotten once nothing of theirs is
		 * left to read: their copies and side-band records went
		 * through above (unless the budget cut the ring's reading
		 * short), their counts are read now. --off-cpu's sums are
		 * read at the end only: its processes stay to the end. */
		/* --every: an interval is over once the records before its
		 * end are in (the counts were read at its time, above). */
		uint64_t horizon = perf_sideband_horizon(s->sideband);
		cut = recorder_next_cut(s->r);
		bool over = cut && horizon >= cut && s->ustacks.budget;
		bool cut_due = cut && monotonic_now() >= cut;
		if (!s->offcpu && !cut_due && now - last_counts >= COUNTS_READ_S) {
			if (untimed)
				bpf_profile_drain_new(s->prof, s->r, s->stats, s->spills.limit, &s->python, &s->bound);
			/* (an exited process's counts were read: it can go, unless
			 * the bound cut the read short) */
			if (s->ustacks.budget && !record_bound_over(&s->bound))
				recorder_reap(s->r);
			last_counts = now;
		}
		if (over)
			recorder_advance(s->r, horizon);
		if (o->progress && now - last_progress >= 0.25) {
			uint64_t lost = bpf_profile_stat(s->prof, PROFILE_STAT_LOST);
			uint64_t taken = bpf_profile_stat(s->prof, PROFILE_STAT_SAMPLES) +
					 bpf_profile_stat(s->prof, PROFILE_STAT_SPILLED) +
					 bpf_profile_stat(s->prof, PROFILE_STAT_COPIED);
			record_progress(o, now - start, taken, lost);
			last_progress = now;
		}
	}
	free(pfd);
	return start;
}

/* The end: detach before reading (nothing changes the maps while we walk
 * them), then everything the programs left to the recorder. */
static void finish(struct bpf_run *s, double start)
{
	struct record_stats *stats = s->stats;
	bpf_profile_detach(s->prof);
	if (s->offcpu)
		bpf_offcpu_detach(s->offcpu);
	record_phase(&stats->phases, "programs detached");
	stats->seconds = record_now() - start; /* (sampled until the programs were detached) */
	record_bound_finish(&s->bound, stats);
	s->ustacks.budget = UINT32_MAX; /* nothing writes now: the ring's rest */
	ring_buffer__consume(s->ustack_ring);
	record_phase(&stats->phases, "stack copies read");
	stats->unread = perf_sideband_close(s->sideband);
	s->sideband = NULL;
	record_phase(&stats->phases, "side band read");
	if (s->o->progress)
		record_progress_end(s->o);
	/* Maps of processes still alive, again: libraries loaded late. */
	bpf_scan_pids(bpf_profile_counts_fd(s->prof), s->r, true);
	bpf_profile_refresh_drained(s->prof, s->r);
	if (s->offcpu)
		bpf_offcpu_scan_pids(s->offcpu, s->r, true);
	record_phase(&stats->phases, "processes scanned");
	stats->lost = bpf_profile_stat(s->prof, PROFILE_STAT_LOST);
	perf_buffer__consume(s->spill_buf);
	stats->spilled = bpf_profile_stat(s->prof, PROFILE_STAT_SPILLED);
	stats->copied = bpf_profile_stat(s->prof, PROFILE_STAT_COPIED);
	record_phase(&stats->phases, "spills read");
	bpf_profile_drain(s->prof, s->r, stats, s->spills.limit, &s->python);
	if (s->offcpu)
		bpf_offcpu_drain(s->offcpu, s->r, stats, s->spills.limit, on_ustack_out, &s->ustacks);
	record_phase(&stats->phases, "maps drained");
	stats->unread += s->spills.unread;
	stats->unread_signalled = record_bound_signalled(&s->bound);
	stats->lost += s->spills.lost + stats->unread;
	stats->copy_full += bpf_profile_stat(s->prof, PROFILE_STAT_COPY_FULL); /* (+ bpf_offcpu_drain's) */
	stats->bytes = s->ustacks.bytes;
}

static int bpf_run(const struct record_opts *o, struct recorder *r, struct record_target *t,
		   struct record_stats *stats)
{
	struct bpf_run s = { .o = o, .r = r, .t = t, .stats = stats };
	s.spills = (struct spill_ctx){ .r = r, .depth = PROFILE_MAX_DEPTH, .python = &s.python };
	s.ustacks = (struct ustack_ctx){ .r = r, .python = &s.python };
	int ret = load(&s);
	if (ret)
		return ret;
	stats->backend = "bpf";
	bpf_stack_cache_init(&s.ustacks.kernel);
	int py_procs, py_stacks, py_seen;
	bpf_profile_python_fds(s.prof, &py_procs, &py_stacks, &py_seen);
	bpf_python_init(&s.python, py_procs, py_stacks, py_seen);
	ret = open_inputs(&s);
	if (ret) {
		if (ret != RECORD_UNAVAILABLE)
			ret = -1;
		goto out;
	}
	ret = -1;
	bpf_python_update(&s.python, r); /* the -p processes' */
	if (t->child > 0) {
		int e = target_start(t, o->command[0]);
		if (e) {
			ret = e;
			goto out;
		}
	} else {
		bpf_profile_enable(s.prof);
	}
	finish(&s, sample(&s));
	ret = 0;
out:
	ring_buffer__free(s.ustack_ring);
	bpf_stack_cache_release(&s.ustacks.kernel);
	if (s.python.value)
		bpf_python_release(&s.python);
	perf_buffer__free(s.spill_buf);
	perf_sideband_close(s.sideband);
	bpf_profile_close(s.prof);
	bpf_offcpu_close(s.offcpu);
	record_phase(&stats->phases, "programs closed");
	return ret;
}

const struct record_backend record_backend_bpf = { "bpf", bpf_run };
