/* The eBPF backend: profile.bpf.c attached to one cpu-clock (or cycles)
 * event per CPU counts stacks in the kernel; user space only wakes up to
 * draw progress and to capture the maps of processes while they live (so
 * that they can be symbolized after they exit): /proc/PID/maps of pids new
 * in the counts, and the mmap/comm/fork records of a sample-less perf side
 * band (perf_sideband_*). At the end the
 * program is detached first, then the maps are read once. Built only with
 * libbpf (HAVE_LIBBPF). */
#include "base/alloc.h"
#include "base/error.h"
#include "base/hashmap.h"
#include "gen/profile.skel.h"
#include "record/backend.h"
#include "record/bpf.h"
#include "record/host.h"
#include "record/perf_attr.h"
#include "record/perf_sideband.h"
#include "record/profile_abi.h"
#include "record/session.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stddef.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

/* libbpf's own messages are not for our users; we explain failures. */
static int quiet_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	if (getenv("SCORCH_DEBUG_BPF")) /* the verifier's log, for developers */
		return vfprintf(stderr, fmt, ap);
	return 0;
}

struct bpf_state {
	struct profile_bpf *skel;
	int *fds;
	struct bpf_link **links;
	int nr;
	int ncpu;
};

static void detach(struct bpf_state *b)
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

/* Sum one per-CPU statistic over the CPUs. */
static uint64_t stat_sum(struct bpf_state *b, uint32_t idx)
{
	uint64_t *vals = xcalloc((size_t)b->ncpu, sizeof(uint64_t)), sum = 0;
	if (!bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.stats), &idx, vals))
		for (int i = 0; i < b->ncpu; i++)
			sum += vals[i];
	free(vals);
	return sum;
}

/* Read the maps of processes counted since the last call, unless read
 * already (the program notes their pids in new_pids: cheaper than walking
 * the counts, which grow to one key per distinct stack). */
static void scan_new_pids(struct bpf_state *b, struct recorder *r)
{
	static const size_t pid_at = 0;
	bpf_scan_key_pids(bpf_map__fd(b->skel->maps.new_pids), &pid_at, 1, r, false, true);
}

static int open_events(struct bpf_state *b, const struct record_opts *o, const struct record_target *t,
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
			return record_perf_error(e, what);
		}
		b->fds[b->nr] = fd;
		b->links[b->nr] = bpf_program__attach_perf_event(b->skel->progs.sample, fd);
		b->nr++;
		if (!b->links[b->nr - 1]) {
			int e = errno;
			return error("cannot attach the BPF program to CPU %d: %s", cpu, strerror(e));
		}
	}
	*event = event_choice_name(&ev, o);
	return 0;
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

struct spill_ctx {
	struct recorder *r;
	uint64_t lost;
	uint32_t depth; /* frames the stack map holds per stack */
	uint32_t limit; /* a stack this deep reached the limit (root end lost) */
};

/* User stacks copied out by the program (--call-graph auto or dwarf): on
 * their way in, queued with the side band's records by time; on their way
 * out, unwound by the recorder with their kernel stack from the map. */
struct ustack_ctx {
	struct recorder *r;
	struct perf_sideband *sideband;
	int class_fds[PROFILE_CLASSES]; /* the stacks (both programs') */
	struct bpf_stack_cache kernel; /* by stack id */
	uint64_t bytes, samples;
	uint32_t limit; /* frame-pointer chains this deep lost their root end */
	struct bpf_offcpu *offcpu; /* --off-cpu: its copies and block ends too */
};

static int on_ustack_in(void *ctx, void *data, size_t size)
{
	struct ustack_ctx *uc = ctx;
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
	memcpy(&sp, data, sizeof(sp));
	char comm[PROFILE_COMM_LEN + 1];
	memcpy(comm, sp.comm, PROFILE_COMM_LEN);
	comm[PROFILE_COMM_LEN] = 0;
	struct record_sample s = { 0 };
	s.pid = sp.pid;
	s.tid = sp.tid;
	s.cpu = sp.cpu;
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
	recorder_sample(sc->r, &s);
}

static void on_spill_lost(void *ctx, int cpu, __u64 n)
{
	struct spill_ctx *sc = ctx;
	(void)cpu;
	sc->lost += n;
}

static void class_fds(struct bpf_state *b, int *fds)
{
	fds[0] = bpf_map__fd(b->skel->maps.stacks_0);
	fds[1] = bpf_map__fd(b->skel->maps.stacks_1);
	fds[2] = bpf_map__fd(b->skel->maps.stacks_2);
}

/* The counts to the recorder, once sampling is over: the stacks are read
 * in batches first (a few system calls rather than two per key), then the
 * counts. */
static void drain(struct bpf_state *b, struct recorder *r, struct record_stats *stats, uint32_t limit)
{
	static const uint32_t frames[PROFILE_CLASSES] = { PROFILE_CLASS_FRAMES_0, PROFILE_CLASS_FRAMES_1,
							  PROFILE_CLASS_FRAMES_2 };
	struct bpf_stack_cache cache;
	struct bpf_stacks from = { .cache = &cache };
	bpf_stack_cache_init(&cache);
	class_fds(b, from.fds);
	for (int i = 0; i < PROFILE_CLASSES; i++)
		if (bpf_stack_cache_load(&cache, from.fds[i], frames[i]))
			break; /* (then read one by one) */
	bpf_stacks_drain(&from, bpf_map__fd(b->skel->maps.counts), r, stats, limit);
	bpf_stack_cache_release(&cache);
}

static int bpf_run(const struct record_opts *o, struct recorder *r, struct record_target *t,
		   struct record_stats *stats)
{
	struct bpf_state b = { 0 };
	struct perf_sideband *sideband = NULL;
	struct perf_buffer *spill_buf = NULL;
	struct spill_ctx spills = { r, 0, PROFILE_MAX_DEPTH, 0 };
	struct ustack_ctx ustacks = { .r = r };
	struct ring_buffer *ustack_ring = NULL;
	struct bpf_offcpu *offcpu = NULL; /* --off-cpu, --wall: bpf_offcpu.c */
	int ret = -1;

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
		spills.depth = o->max_stack;
	unsigned kernel_max = record_kernel_max_stack();
	spills.limit = spills.depth < kernel_max ? spills.depth : kernel_max;

	libbpf_set_print(quiet_libbpf);
	b.ncpu = libbpf_num_possible_cpus();
	if (b.ncpu <= 0)
		b.ncpu = record_nr_cpus();
	b.skel = profile_bpf__open();
	if (!b.skel)
		return record_bpf_unavailable(o, "cannot open the BPF object: %s", strerror(errno));
	b.skel->rodata->want_user = !o->kernel_only;
	b.skel->rodata->want_kernel = !o->user_only;
	b.skel->rodata->per_tid = o->annotate_tid;
	b.skel->rodata->per_cpu = o->per_cpu;
	b.skel->rodata->filter_pid = t->child <= 0 && o->nr_pids > 0;
	b.skel->rodata->filter_tid = t->child <= 0 && !o->nr_pids && o->nr_tids > 0;
	b.skel->rodata->include_idle = 1;
	b.skel->rodata->max_depth = spills.depth;
	/* DWARF: user regs and stack copied out and unwound here. */
	bool copy = recorder_unwinds(r);
	b.skel->rodata->copy_stack = copy;
	b.skel->rodata->copy_fp = o->unwind == RECORD_UNWIND_AUTO;
	unsigned size = record_stack_size(o);
	b.skel->rodata->stack_size = size < PROFILE_USTACK_MAX ? size : PROFILE_USTACK_MAX;
	bpf_map__set_max_entries(b.skel->maps.ustack_buf, copy ? (uint32_t)b.ncpu : 1);
	if (!copy)
		bpf_map__set_max_entries(b.skel->maps.ustacks, (uint32_t)sysconf(_SC_PAGESIZE));
	/* The stacks (both programs') and counts grow as they fill, up to this. */
	uint32_t class_entries = o->stack_map_size ? o->stack_map_size : default_class_entries(o, b.ncpu);
	bpf_map__set_max_entries(b.skel->maps.stacks_0, class_entries);
	bpf_map__set_max_entries(b.skel->maps.stacks_1, class_entries);
	bpf_map__set_max_entries(b.skel->maps.stacks_2, class_entries);
	bpf_map__set_max_entries(b.skel->maps.counts, class_entries);
	if (profile_bpf__load(b.skel)) {
		int e = errno;
		profile_bpf__destroy(b.skel);
		if (e == EPERM || e == EACCES)
			return record_bpf_unavailable(o, "loading it is not permitted: needs root, or CAP_BPF "
						      "and CAP_PERFMON (setcap cap_bpf,cap_perfmon+ep)");
		return record_bpf_unavailable(o, "cannot load the program: %s", strerror(e));
	}
	if (o->off_cpu) {
		int fds[PROFILE_CLASSES];
		class_fds(&b, fds);
		int e = bpf_offcpu_open(o, t, fds, spills.depth, bpf_map__fd(b.skel->maps.ustacks), copy, &offcpu);
		if (e) {
			profile_bpf__destroy(b.skel);
			return e;
		}
	}
	stats->backend = "bpf";
	bpf_stack_cache_init(&ustacks.kernel);

	/* Filters, checked against /proc so that a typo is an error. */
	uint8_t one = 1;
	for (size_t i = 0; i < o->nr_pids && t->child <= 0; i++) {
		if (target_check_process(o->pids[i]))
			goto out;
		uint32_t pid = (uint32_t)o->pids[i];
		bpf_map_update_elem(bpf_map__fd(b.skel->maps.pids), &pid, &one, BPF_ANY);
		recorder_seen(r, pid);
	}
	for (size_t i = 0; i < o->nr_tids && t->child <= 0 && !o->nr_pids; i++) {
		if (target_check_thread(o->tids[i]))
			goto out;
		uint32_t tid = (uint32_t)o->tids[i];
		bpf_map_update_elem(bpf_map__fd(b.skel->maps.tids), &tid, &one, BPF_ANY);
	}

	if ((!o->off_cpu || o->wall) && open_events(&b, o, t, &stats->event))
		goto out;
	if (offcpu && bpf_offcpu_attach(offcpu, o, t))
		goto out;
	sideband = perf_sideband_open(o, r, t);
	ustacks.sideband = sideband;
	ustacks.limit = spills.limit;
	class_fds(&b, ustacks.class_fds);
	ustacks.offcpu = offcpu;
	perf_sideband_on_push(sideband, on_ustack_out, &ustacks);
	ustack_ring = ring_buffer__new(bpf_map__fd(b.skel->maps.ustacks), on_ustack_in, &ustacks, NULL);
	if (!ustack_ring) {
		error("cannot open the BPF backend's ring buffer: %s", strerror(errno));
		goto out;
	}
	spill_buf = perf_buffer__new(bpf_map__fd(b.skel->maps.spills), 64, on_spill, on_spill_lost, &spills, NULL);
	if (!spill_buf) {
		error("cannot open the BPF backend's perf buffer: %s", strerror(errno));
		goto out;
	}
	if (t->child > 0) {
		int e = target_start(t, o->command[0]);
		if (e) {
			ret = e;
			goto out;
		}
	} else {
		for (int i = 0; i < b.nr; i++)
			ioctl(b.fds[i], PERF_EVENT_IOC_ENABLE, 0);
	}

	double start = record_now(), last_scan = start, last_progress = 0;
	struct pollfd *pfd = xcalloc(t->nr_watch + 2, sizeof(*pfd));
	while (!record_should_stop(o, t, start, stats)) {
		/* Sleep, or wake at once when a target exits or the program
		 * finds the stack-copy ring a quarter full (ustack_send). */
		size_t npfd = target_pollfds(t, pfd);
		pfd[npfd++] = (struct pollfd){ .fd = ring_buffer__epoll_fd(ustack_ring), .events = POLLIN };
		poll(pfd, (nfds_t)npfd, record_poll_ms(o, start, 50));
		double now = record_now();
		ring_buffer__consume(ustack_ring); /* copies in, before the side band's records go out */
		perf_sideband_drain(sideband);
		perf_buffer__consume(spill_buf);
		if (now - last_scan >= 0.25) {
			scan_new_pids(&b, r);
			if (offcpu)
				bpf_offcpu_scan_pids(offcpu, r, false);
			last_scan = now;
		}
		if (o->progress && now - last_progress >= 0.25) {
			uint64_t lost = stat_sum(&b, PROFILE_STAT_LOST);
			uint64_t taken = stat_sum(&b, PROFILE_STAT_SAMPLES) + stat_sum(&b, PROFILE_STAT_SPILLED) +
					 stat_sum(&b, PROFILE_STAT_COPIED);
			record_progress(o, now - start, taken, lost);
			last_progress = now;
		}
	}
	free(pfd);
	/* Detach before reading: nothing changes the maps while we walk them. */
	detach(&b);
	if (offcpu)
		bpf_offcpu_detach(offcpu);
	record_phase(&stats->phases, "programs detached");
	ring_buffer__consume(ustack_ring);
	record_phase(&stats->phases, "stack copies read");
	perf_sideband_close(sideband);
	sideband = NULL;
	record_phase(&stats->phases, "side band read");
	stats->seconds = record_now() - start;
	if (o->progress)
		record_progress_end(o);
	/* Maps of processes still alive, again: libraries loaded late. */
	bpf_scan_pids(bpf_map__fd(b.skel->maps.counts), r, true);
	if (offcpu)
		bpf_offcpu_scan_pids(offcpu, r, true);
	record_phase(&stats->phases, "processes scanned");
	stats->lost = stat_sum(&b, PROFILE_STAT_LOST);
	perf_buffer__consume(spill_buf);
	stats->spilled = stat_sum(&b, PROFILE_STAT_SPILLED);
	stats->copied = stat_sum(&b, PROFILE_STAT_COPIED);
	record_phase(&stats->phases, "spills read");
	drain(&b, r, stats, spills.limit);
	if (offcpu)
		bpf_offcpu_drain(offcpu, r, stats, spills.limit, on_ustack_out, &ustacks);
	record_phase(&stats->phases, "maps drained");
	stats->lost += spills.lost;
	stats->copy_full += stat_sum(&b, PROFILE_STAT_COPY_FULL); /* (+ bpf_offcpu_drain's) */
	stats->bytes = ustacks.bytes;
	ret = 0;
out:
	ring_buffer__free(ustack_ring);
	bpf_stack_cache_release(&ustacks.kernel);
	perf_buffer__free(spill_buf);
	perf_sideband_close(sideband);
	detach(&b);
	free(b.fds);
	free(b.links);
	profile_bpf__destroy(b.skel);
	bpf_offcpu_close(offcpu);
	record_phase(&stats->phases, "programs closed");
	return ret;
}

const struct record_backend record_backend_bpf = { "bpf", bpf_run };
