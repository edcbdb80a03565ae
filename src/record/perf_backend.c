/* The perf_event backend: one sampling event per CPU (and per target task),
 * each CPU's events sharing one mmap'ed ring buffer (perf_ring.c); samples
 * carry the frame-pointer callchain (and the user stack copy, DWARF), tid,
 * time, cpu and period, and the kernel's MMAP2/COMM/FORK/EXIT records keep
 * the process table current (perf_parse.c). This file opens the events
 * and runs the loop. */
#include "base/alloc.h"
#include "base/error.h"
#include "record/backend.h"
#include "record/host.h"
#include "record/perf_offcpu.h"
#include "record/perf_attr.h"
#include "record/perf_parse.h"
#include "record/perf_python.h"
#include "record/perf_ring.h"
#include "record/session.h"
#include "record/target.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* Data pages per CPU: 512 KiB as perf's default for frame-pointer samples
 * (about 200 bytes each); stack copies are 8-64 KiB each, so they get 8 MiB
 * where locked memory allows it (root), and less otherwise. */
enum { RING_PAGES = 128, RING_PAGES_STACKS = 2048, RING_PAGES_MIN = 16 };
/* --off-cpu with stack copies: a 16 KiB sample per block, up to 100,000
 * blocks a second on two threads passing a byte, and a reader that waits
 * tens of ms for a CPU on a busy machine: the rings share up to 64 MiB,
 * 8 to 32 MiB each. */
enum { RING_PAGES_OFFCPU_ALL = 16384, RING_PAGES_OFFCPU_MAX = 8192 };
/* A counted event with stack copies (-e page-faults: every fault) comes
 * in bursts faster than the copies are unwound: the rings share up to
 * 256 MiB, 8 to 32 MiB each. */
enum { RING_PAGES_BURSTS_ALL = 65536, RING_PAGES_BURSTS_MAX = 8192 };
/* Samples are read every POLL_MS at least (more often when a ring fills
 * to its watermark); with a runtime's frames to read, every POLL_MS_PYTHON:
 * they are read as the sample is (perf_python.h), the sooner the nearer
 * its instant. */
enum { POLL_MS = 100, POLL_MS_STACKS = 20, POLL_MS_PYTHON = 2 };

struct perf_state {
	const struct record_opts *opts;
	struct recorder *r;
	struct record_stats *stats;
	struct perf_rings rs;
	size_t ring_pages;
	bool user_only; /* fell back to user space (perf_event_paranoid) */
	const struct offcpu_format *offcpu_fmt; /* --off-cpu: the tracepoint */
	struct perf_parser parser;
	struct record_bound bound; /* when its drains give way (session.h) */
};

/* ---- opening ---------------------------------------------------------- */

/* The tasks collect_targets gives. */
struct task_list {
	pid_t *tasks;
	size_t nr;
	bool inherit;
};

/* Tasks to follow: -1 (every task on each CPU), the command, or the threads
 * of -p / the -t list. inherit follows threads and children created later. */
static int collect_targets(const struct record_opts *o, const struct record_target *t,
			   pid_t **tasks, size_t *nr, bool *inherit)
{
	size_t alloc = 0;
	*tasks = NULL;
	*nr = 0;
	*inherit = false;
	if (t->child > 0) {
		VEC_GROW(*tasks, 1, alloc);
		(*tasks)[(*nr)++] = t->child;
		*inherit = true;
	} else if (o->nr_pids) {
		*inherit = true;
		for (size_t i = 0; i < o->nr_pids; i++)
			if (target_threads_of(o->pids[i], tasks, nr, &alloc, true)) {
				free(*tasks);
				*tasks = NULL;
				return -1;
			}
	} else if (o->nr_tids) {
		for (size_t i = 0; i < o->nr_tids; i++) {
			if (target_check_thread(o->tids[i])) {
				free(*tasks);
				*tasks = NULL;
				return -1;
			}
			VEC_GROW(*tasks, *nr + 1, alloc);
			(*tasks)[(*nr)++] = o->tids[i];
		}
	} else {
		VEC_GROW(*tasks, 1, alloc);
		(*tasks)[(*nr)++] = -1;
	}
	return 0;
}

/* --off-cpu: the event is the sched_switch tracepoint, every hit a sample
 * with its raw fields (prev_pid, prev_state), and the kernel adds a record
 * at each context switch (the switch-in ends a block). The sample layout
 * stays record_fill_attr's plus RAW, which --wall's cpu-clock event shares
 * (its raw data is 4 empty bytes). */
/* --off-cpu without --wall: the sched_switch event fd sends only the
 * switch-outs to sleep (where refused, user space filters alone). */
static void filter_switches(const struct record_opts *o, int fd)
{
	if (o->off_cpu && !o->wall)
		ioctl(fd, PERF_EVENT_IOC_SET_FILTER, OFFCPU_SWITCH_FILTER);
}

static void offcpu_attr(struct perf_event_attr *attr, const struct offcpu_format *fmt)
{
	attr->type = PERF_TYPE_TRACEPOINT;
	attr->config = fmt->id;
	attr->freq = 0;
	attr->sample_period = 1;
	attr->sample_type |= PERF_SAMPLE_RAW;
	attr->context_switch = 1;
	/* A tracepoint fires in the kernel: excluding it would drop every
	 * hit (-U and -K still select the callchain's halves). */
	attr->exclude_kernel = attr->exclude_user = 0;
}

/* --wall: a cpu-clock event beside the tracepoint, on the same task and
 * CPU, into the same ring, with the same layout but no side band (the
 * tracepoint's event carries it). */
static int open_wall_clock(struct perf_state *st, const struct perf_event_attr *tp, pid_t task, int cpu,
			   int ring_fd)
{
	struct perf_event_attr attr = *tp;
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.freq = 1;
	attr.sample_freq = st->opts->freq;
	attr.mmap = attr.mmap2 = attr.comm = attr.comm_exec = attr.task = attr.context_switch = 0;
	int fd = record_perf_open(&attr, task, cpu, -1, 0);
	if (fd < 0) {
		char what[64];
		snprintf(what, sizeof(what), "--wall: cpu-clock on CPU %d", cpu);
		return record_perf_error(errno, what);
	}
	perf_rings_add_fd(&st->rs, fd);
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring_fd))
		return error("cannot share the sample buffer of CPU %d: %s", cpu, strerror(errno));
	return 0;
}

/* -p: a thread the process created while its events were being opened
 * has none (inherit covers only threads created after their creator's
 * event): list the threads again, and open events for the new ones on
 * every ring's CPU, until no new thread shows up. */
static int open_new_threads(struct perf_state *st, const struct perf_event_attr *attr, pid_t **tasks,
			    size_t *nr_tasks)
{
	const struct record_opts *o = st->opts;
	size_t alloc_tasks = *nr_tasks;
	for (int round = 0; round < 16; round++) {
		pid_t *now = NULL;
		size_t nr_now = 0, alloc_now = 0, added = 0;
		for (size_t i = 0; i < o->nr_pids; i++)
			target_threads_of(o->pids[i], &now, &nr_now, &alloc_now, false);
		for (size_t j = 0; j < nr_now; j++) {
			bool known = false;
			for (size_t i = 0; i < *nr_tasks && !known; i++)
				known = (*tasks)[i] == now[j];
			if (known)
				continue;
			VEC_GROW(*tasks, *nr_tasks + 1, alloc_tasks);
			(*tasks)[(*nr_tasks)++] = now[j];
			added++;
			for (int k = 0; k < st->rs.nr_rings; k++) {
				struct perf_event_attr a = *attr;
				int fd = record_perf_open(&a, now[j], st->rs.rings[k].cpu, -1, 0);
				if (fd < 0)
					break; /* exited meanwhile */
				perf_rings_add_fd(&st->rs, fd);
				filter_switches(st->opts, fd);
				if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, st->rs.rings[k].fd)) {
					int e = errno;
					free(now);
					return error("cannot share the sample buffer of CPU %d: %s", st->rs.rings[k].cpu,
						     strerror(e));
				}
				if (o->wall && open_wall_clock(st, &a, now[j], st->rs.rings[k].cpu, st->rs.rings[k].fd)) {
					free(now);
					return -1;
				}
			}
		}
		free(now);
		if (!added)
			break;
	}
	return 0;
}

/* Data pages per ring for this recording (before locked memory says). */
static size_t ring_pages_for(const struct perf_state *st, int ncpu)
{
	const struct record_opts *o = st->opts;
	size_t pages = recorder_unwinds(st->r) ? RING_PAGES_STACKS : RING_PAGES;
	if (o->off_cpu && recorder_unwinds(st->r))
		while (pages < RING_PAGES_OFFCPU_MAX && pages * 2 * (size_t)ncpu <= RING_PAGES_OFFCPU_ALL)
			pages *= 2;
	else if (o->event == RECORD_EVENT_COUNTED && recorder_unwinds(st->r))
		while (pages < RING_PAGES_BURSTS_MAX && pages * 2 * (size_t)ncpu <= RING_PAGES_BURSTS_ALL)
			pages *= 2;
	return pages;
}

/* The attributes of a target task's event (the same for every task). */
static void task_attr(struct perf_state *st, const struct record_target *t, bool inherit,
		      const struct event_choice *ev, struct perf_event_attr *attr)
{
	const struct record_opts *o = st->opts;
	record_fill_attr(attr, o, ev->cycles);
	if (o->off_cpu)
		offcpu_attr(attr, st->offcpu_fmt);
	attr->inherit = inherit;
	attr->enable_on_exec = t->child > 0;
	/* Process tracking: a side-band record goes only to the event of the
	 * task and CPU where it happened, so every event may carry it
	 * without duplicates. */
	attr->mmap = attr->mmap2 = attr->comm = attr->comm_exec = attr->task = 1;
	attr->mmap_data = 0;
	attr->watermark = 1;
	attr->exclude_kernel |= st->user_only;
	attr->exclude_callchain_kernel |= st->user_only;
	if (recorder_unwinds(st->r))
		record_attr_user_stack(attr, o);
	st->parser.sample_type = attr->sample_type;
	st->parser.regs_mask = attr->sample_regs_user;
	attr->wakeup_watermark = (uint32_t)(st->ring_pages * (size_t)sysconf(_SC_PAGESIZE) / 4);
}

enum open_result {
	OPEN_OK,
	OPEN_RETRY,  /* try again with what the failure changed (user space only, cpu-clock) */
	OPEN_NO_CPU, /* an offline CPU */
	OPEN_EXITED, /* a -p thread exited meanwhile */
	OPEN_FAILED, /* after a message */
};

/* Open task's event on cpu (*fd), with the kernel's refusals explained
 * or worked around. */
static enum open_result open_task(struct perf_state *st, const struct record_target *t, const struct task_list *tl,
				  size_t i, int cpu, struct event_choice *ev, struct perf_event_attr *attr, int *fd)
{
	const struct record_opts *o = st->opts;
	pid_t task = tl->tasks[i];
	task_attr(st, t, tl->inherit, ev, attr);
	*fd = record_perf_open(attr, task, cpu, -1, 0);
	if (*fd < 0 && (errno == EACCES || errno == EPERM) && task > 0 && record_refused_other_user(task))
		return OPEN_FAILED;
	if (*fd < 0 && errno == EACCES && task > 0 && !st->user_only && !o->kernel_only && !st->rs.nr_fds &&
	    !o->off_cpu) {
		/* perf_event_paranoid 2: own processes, user space only. */
		st->user_only = true;
		if (!o->quiet)
			fprintf(stderr, "scorch: kernel.perf_event_paranoid allows user-space "
					"sampling only; recording user stacks (run as root or "
					"set it to 1 for kernel stacks)\n");
		return OPEN_RETRY;
	}
	if (event_choice_retry(ev, o, *fd < 0, errno))
		return OPEN_RETRY;
	if (*fd >= 0)
		return OPEN_OK;
	int e = errno;
	if (e == ENODEV) /* offline CPU */
		return OPEN_NO_CPU;
	if (e == ESRCH && task > 0 && o->nr_pids)
		return OPEN_EXITED;
	char what[64];
	if (task > 0)
		snprintf(what, sizeof(what), "sampling task %d", (int)task);
	else
		snprintf(what, sizeof(what), "sampling CPU %d", cpu);
	record_perf_error(e, what);
	return OPEN_FAILED;
}

/* The ring of cpu's first event: smaller where locked memory is limited. */
static int map_ring(struct perf_state *st, int fd, int cpu)
{
	for (;;) {
		if (!perf_rings_map(&st->rs, fd, cpu, st->ring_pages))
			return 0;
		int e = errno;
		if ((e != EPERM && e != ENOMEM) || st->rs.nr_rings || st->ring_pages <= RING_PAGES_MIN)
			return error("cannot map the sample buffer of CPU %d: %s%s", cpu, strerror(e),
				     e == EPERM ? " (locked memory limit: raise "
						  "kernel.perf_event_mlock_kb or 'ulimit -l')"
						: "");
		st->ring_pages /= 2;
	}
}

/* Every task's event on cpu, into one ring. *attr: the last opened. */
static int open_cpu(struct perf_state *st, const struct record_target *t, const struct task_list *tl, int cpu,
		    struct event_choice *ev, struct perf_event_attr *opened, bool *any, size_t *exited)
{
	const struct record_opts *o = st->opts;
	int ring_fd = -1;
	for (size_t i = 0; i < tl->nr; i++) {
		struct perf_event_attr attr;
		int fd;
		enum open_result got = open_task(st, t, tl, i, cpu, ev, &attr, &fd);
		if (got == OPEN_RETRY) {
			i--;
			continue;
		}
		if (got == OPEN_NO_CPU)
			break;
		if (got == OPEN_EXITED) {
			(*exited)++;
			continue;
		}
		if (got == OPEN_FAILED)
			return -1;
		perf_rings_add_fd(&st->rs, fd);
		filter_switches(o, fd);
		*opened = attr;
		*any = true;
		if (ring_fd < 0) {
			if (map_ring(st, fd, cpu))
				return -1;
			ring_fd = fd;
		} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring_fd)) {
			int e = errno;
			return error("cannot share the sample buffer of CPU %d: %s", cpu, strerror(e));
		}
		if (o->wall && open_wall_clock(st, &attr, tl->tasks[i], cpu, ring_fd))
			return -1;
	}
	return 0;
}

static int open_events(struct perf_state *st, const struct record_target *t, struct event_choice *ev)
{
	const struct record_opts *o = st->opts;
	struct task_list tl;
	int ncpu = record_nr_cpus();
	size_t exited = 0; /* -p threads gone before their event was opened */
	struct perf_event_attr opened; /* as opened (the same for every task) */
	bool any = false;
	if (collect_targets(o, t, &tl.tasks, &tl.nr, &tl.inherit))
		return -1;
	perf_rings_init(&st->rs, ncpu, &st->parser);
	st->ring_pages = ring_pages_for(st, ncpu);
	event_choice_init(ev, o);
	int ret = 0;
	/* Off-CPU: every CPU, as a thread may leave one and come back on
	 * another; -C then selects by the CPU it left. */
	for (int cpu = 0; cpu < ncpu && !ret; cpu++)
		if (o->off_cpu || record_cpu_wanted(o, cpu))
			ret = open_cpu(st, t, &tl, cpu, ev, &opened, &any, &exited);
	if (!ret && o->nr_pids && any)
		ret = open_new_threads(st, &opened, &tl.tasks, &tl.nr);
	free(tl.tasks);
	if (ret)
		return -1;
	if (!st->rs.nr_rings && exited)
		return error("no samples: the process%s exited before sampling started",
			     o->nr_pids > 1 ? "es" : "");
	if (!st->rs.nr_rings)
		return error("no CPU could be sampled");
	return 0;
}

/* ---- the loop --------------------------------------------------------- */

/* Enable the events, or let the command exec (enable_on_exec). */
static int start(struct perf_state *st, struct record_target *t)
{
	const struct record_opts *o = st->opts;
	/* Processes that exist now: their names and maps (perf synthesizes
	 * these from /proc the same way). New ones come as records. */
	for (size_t i = 0; i < o->nr_pids; i++)
		recorder_seen(st->r, (uint32_t)o->pids[i]);
	if (t->child <= 0)
		for (size_t i = 0; i < st->rs.nr_fds; i++)
			ioctl(st->rs.fds[i], PERF_EVENT_IOC_ENABLE, 0);
	if (t->child > 0)
		return target_start(t, o->command[0]);
	return 0;
}

/* Until record_should_stop: poll, read the rings, draw progress. */
static double sample(struct perf_state *st, struct record_target *t)
{
	const struct record_opts *o = st->opts;
	/* Every event is polled (a ring wakes all the events writing to it):
	 * an event whose task exited reports POLLHUP from then on and is
	 * dropped from the set, or poll would return at once forever. After
	 * the events come the descriptors of the targets' exits. */
	size_t nr_events = st->rs.nr_fds;
	struct pollfd *pfd = xcalloc(nr_events + t->nr_watch + 1, sizeof(*pfd));
	for (size_t i = 0; i < nr_events; i++)
		pfd[i] = (struct pollfd){ .fd = st->rs.fds[i], .events = POLLIN };
	double start = record_now(), last_progress = 0;
	record_bound_start(&st->bound, o, start);
	st->rs.bound = &st->bound;
	while (!record_should_stop(o, t, start, st->stats)) {
		size_t n = nr_events + target_pollfds(t, pfd + nr_events);
		int ms = recorder_runtimes_active(st->r) ? POLL_MS_PYTHON : recorder_unwinds(st->r) ? POLL_MS_STACKS : POLL_MS;
		poll(pfd, (nfds_t)n, record_poll_ms(o, start, ms));
		for (size_t i = 0; i < nr_events; i++)
			if (pfd[i].revents & (POLLHUP | POLLERR))
				pfd[i].fd = -1;
		perf_rings_drain(&st->rs, false);
		recorder_reap(st->r); /* what exited in that round sent its last sample before */
		recorder_advance(st->r, st->rs.horizon); /* --every: the intervals over */
		double now = record_now();
		if (o->progress && now - last_progress >= 0.25) {
			record_progress(o, now - start, recorder_samples(st->r), st->parser.lost);
			last_progress = now;
		}
	}
	free(pfd);
	return start;
}

/* The end of sampling: disable, read what is left, close the blocks. */
static void finish(struct perf_state *st, double start)
{
	struct record_stats *stats = st->stats;
	for (size_t i = 0; i < st->rs.nr_fds; i++)
		ioctl(st->rs.fds[i], PERF_EVENT_IOC_DISABLE, 0);
	record_phase(&stats->phases, "events disabled");
	stats->seconds = record_now() - start;
	uint64_t stopped = record_now_ns();
	record_bound_finish(&st->bound, stats);
	perf_rings_drain(&st->rs, true);
	record_phase(&stats->phases, "rings drained");
	if (st->parser.offcpu) {
		struct offcpu_counts counts;
		offcpu_finish(st->parser.offcpu, stopped, &counts);
		stats->offcpu_filtered = counts.filtered;
		stats->offcpu_open = counts.open;
		stats->offcpu_lost_end = counts.lost_end;
	}
	if (st->opts->progress)
		record_progress_end(st->opts);
	stats->unread = st->rs.unread;
	stats->unread_signalled = record_bound_signalled(&st->bound);
	stats->lost = st->parser.lost + st->rs.unread;
	stats->bytes = st->parser.bytes;
}

static int perf_run(const struct record_opts *o, struct recorder *r, struct record_target *t,
		    struct record_stats *stats)
{
	struct perf_state st = { .opts = o, .r = r, .stats = stats };
	st.parser.r = r;
	st.parser.max_stack = record_max_stack(o);
	if (!o->kernel_only && !o->off_cpu) /* on-CPU samples' runtime frames (perf_python.h) */
		st.parser.python = xcalloc(1, sizeof(*st.parser.python));
	struct event_choice ev = { 0 };
	int ret = -1;

	stats->backend = "perf";
	struct offcpu_format fmt;
	if (o->off_cpu) {
		if (offcpu_format_read(&fmt))
			return -1;
		st.offcpu_fmt = &fmt;
		st.parser.offcpu = offcpu_new(o, r, &fmt);
	}
	if (open_events(&st, t, &ev))
		goto out;
	stats->event = event_choice_name(&ev, o);
	ret = start(&st, t);
	if (ret)
		goto out;
	finish(&st, sample(&st, t));
out:
	offcpu_free(st.parser.offcpu);
	perf_rings_release(&st.rs);
	free(st.parser.python);
	perf_parser_release(&st.parser);
	record_phase(&stats->phases, "events closed");
	return ret;
}

const struct record_backend record_backend_perf = { "perf", perf_run };
