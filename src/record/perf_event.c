/* The perf_event backend: one sampling event per CPU (and per target task),
 * each CPU's events sharing one mmap'ed ring buffer; samples carry the
 * frame-pointer callchain, tid, time, cpu and period, and the kernel's
 * MMAP2/COMM/FORK records keep the process table current. No dependency
 * beyond the kernel's uapi header. */
#include "base/alloc.h"
#include "base/error.h"
#include "record/backend.h"
#include "record/host.h"
#include "record/offcpu.h"
#include "record/perf_attr.h"
#include "record/perf_parse.h"
#include "record/perf_sideband.h"
#include "record/session.h"
#include "record/target.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Data pages per CPU: 512 KiB as perf's default for frame-pointer samples
 * (about 200 bytes each); stack copies are 8-64 KiB each, so they get 8 MiB
 * where locked memory allows it (root), and less otherwise. */
enum { RING_PAGES = 128, RING_PAGES_STACKS = 2048, RING_PAGES_MIN = 16 };
/* --off-cpu with stack copies: a 16 KiB sample per block, up to 100,000
 * blocks a second on two threads passing a byte (bench/offcpu.sh), and a
 * reader that waits tens of ms for a CPU on a busy machine: the rings
 * share up to 64 MiB, 8 to 32 MiB each. */
enum { RING_PAGES_OFFCPU_ALL = 16384, RING_PAGES_OFFCPU_MAX = 8192 };
/* A counted event with stack copies (-e page-faults: every fault) comes
 * in bursts faster than the copies are unwound: the rings share up to
 * 256 MiB, 8 to 32 MiB each (faults workload, 40 x 1,536 faults: 25-33k
 * of 61k samples lost with 8 MiB, 0-8k with 32 MiB). */
enum { RING_PAGES_BURSTS_ALL = 65536, RING_PAGES_BURSTS_MAX = 8192 };
/* Samples are read every POLL_MS at least (more often when a ring fills
 * to its watermark); records newer than FLUSH_MARGIN_NS wait a round. */
enum { POLL_MS = 100, POLL_MS_STACKS = 20 };
#define FLUSH_MARGIN_NS 2000000u

int record_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group, unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group, flags | PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -1 : (int)fd;
}

/* When the task belongs to another user, the kernel's ptrace access check
 * is in the way, not only the paranoid level. */
int record_refused_other_user(pid_t task)
{
	char path[32];
	struct stat st;
	snprintf(path, sizeof(path), "/proc/%d", (int)task);
	if (stat(path, &st) || st.st_uid == geteuid())
		return 0;
	return error("sampling process %d: not permitted: it belongs to uid %u, scorch runs as uid "
		     "%u. Sampling another user's process needs root, or CAP_SYS_PTRACE (the kernel "
		     "checks ptrace access) with CAP_PERFMON or kernel.perf_event_paranoid <= 1",
		     (int)task, (unsigned)st.st_uid, (unsigned)geteuid());
}

int record_perf_error(int err, const char *what)
{
	switch (err) {
	case EACCES:
	case EPERM: {
		int level = 4;
		FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
		if (f) {
			if (fscanf(f, "%d", &level) != 1)
				level = 4;
			fclose(f);
		}
		return error("%s: not permitted (kernel.perf_event_paranoid = %d). Run as root, grant "
			     "CAP_PERFMON (setcap cap_perfmon+ep on the binary), or lower the sysctl: "
			     "'sysctl kernel.perf_event_paranoid=1' allows kernel stacks of your own "
			     "processes, 0 allows system-wide sampling (-a)",
			     what, level);
	}
	case ESRCH:
		return error("%s: no such process", what);
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		return error("%s: event not supported on this machine (no hardware PMU, as in most "
			     "virtual machines?); -e cpu-clock works everywhere", what);
	case EMFILE:
		return error("%s: too many open files (raise 'ulimit -n')", what);
	case ENOSYS:
		return error("%s: perf_event_open is not available in this kernel", what);
	default:
		return error("%s: perf_event_open: %s", what, strerror(err));
	}
}

void record_fill_attr(struct perf_event_attr *attr, const struct record_opts *o, bool cycles)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	if (cycles) {
		attr->type = PERF_TYPE_HARDWARE;
		attr->config = PERF_COUNT_HW_CPU_CYCLES;
	} else {
		attr->type = PERF_TYPE_SOFTWARE;
		attr->config = PERF_COUNT_SW_CPU_CLOCK;
	}
	attr->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			    PERF_SAMPLE_CALLCHAIN;
	if (o->event == RECORD_EVENT_COUNTED) {
		/* No PERF_SAMPLE_PERIOD: with it, the kernel makes every
		 * software event a sample whatever the period (-c N ignored). */
		attr->type = o->counted.type;
		attr->config = o->counted.config;
		attr->sample_period = o->period ? o->period : 1;
	} else {
		attr->sample_type |= PERF_SAMPLE_PERIOD;
		attr->freq = 1;
		attr->sample_freq = o->freq;
	}
	attr->disabled = 1;
	attr->exclude_user = o->kernel_only;
	attr->exclude_kernel = o->user_only;
	attr->exclude_callchain_user = o->kernel_only;
	attr->exclude_callchain_kernel = o->user_only;
	attr->exclude_hv = 1;
	attr->sample_id_all = 1;
	/* 0: perf_event_max_stack (more is refused; DWARF unwinding goes on) */
	attr->sample_max_stack = (uint16_t)(o->max_stack ? record_max_stack(o) : 0);
	/* One clock for every ring (and for the BPF program's records):
	 * records are merged across CPUs by time. */
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
}

void event_choice_init(struct event_choice *c, const struct record_opts *o)
{
	c->probing = o->event == RECORD_EVENT_AUTO;
	c->cycles = c->probing || o->event == RECORD_EVENT_CYCLES;
}

bool event_choice_retry(struct event_choice *c, const struct record_opts *o, bool failed, int err)
{
	if (failed && c->probing && c->cycles &&
	    (err == ENOENT || err == EOPNOTSUPP || err == ENODEV || err == EINVAL)) {
		c->cycles = false;
		c->probing = false;
		if (!o->quiet)
			fprintf(stderr, "scorch: no hardware PMU for cycles here; sampling cpu-clock instead\n");
		return true;
	}
	c->probing = false;
	return false;
}

const char *event_choice_name(const struct event_choice *c, const struct record_opts *o)
{
	return o->event == RECORD_EVENT_COUNTED ? o->counted.name : c->cycles ? "cycles" : "cpu-clock";
}

/* The user registers libdw needs to start unwinding on x86-64: ip, sp,
 * the frame pointer and the other callee-saved registers (bx, r12-r15)
 * that CFI may restore (perf_regs.h numbering). */
#define USER_REGS_MASK 0xff01ffull

uint64_t record_user_regs_mask(void)
{
	return USER_REGS_MASK;
}

void record_attr_user_stack(struct perf_event_attr *attr, const struct record_opts *o)
{
	attr->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	attr->sample_regs_user = USER_REGS_MASK;
	attr->sample_stack_user = record_stack_size(o);
	/* DWARF alone, as perf does: no frame-pointer chain to join. */
	if (o->unwind == RECORD_UNWIND_DWARF)
		attr->exclude_callchain_user = 1;
}

struct ring {
	int fd;
	int cpu;
	void *base;
	size_t size; /* data area bytes, a power of two */
	char *data;
};

struct queued {
	uint64_t time, seq;
	size_t off, len; /* in perf_state.queue */
	bool foreign;    /* a perf_sideband_push record, not a perf one */
};

struct perf_state {
	const struct record_opts *opts;
	struct recorder *r;
	struct record_stats *stats;
	struct ring *rings;
	int nr_rings;
	int *fds;
	size_t nr_fds, alloc_fds;
	size_t ring_pages;
	/* Records of every ring, merged by time before they reach the
	 * recorder (a process's exec on one CPU must come before its samples
	 * on another): a round reads every ring, then hands over the records
	 * older than the round (drain_all); the rest wait for the next. */
	char *queue;
	size_t queue_len, queue_alloc;
	struct queued *pending;
	size_t nr_pending, alloc_pending;
	uint64_t seq;
	/* The handler of perf_sideband_push records. */
	void (*foreign)(void *arg, const void *data, size_t len);
	void *foreign_arg;
	bool user_only; /* fell back to user space (perf_event_paranoid) */
	const struct offcpu_format *offcpu_fmt; /* --off-cpu: the tracepoint */
	struct perf_parser parser;
};

static void add_fd(struct perf_state *st, int fd)
{
	VEC_GROW(st->fds, st->nr_fds + 1, st->alloc_fds);
	st->fds[st->nr_fds++] = fd;
}

static void close_all(struct perf_state *st)
{
	for (int i = 0; i < st->nr_rings; i++)
		if (st->rings[i].base)
			munmap(st->rings[i].base, st->rings[i].size + (size_t)sysconf(_SC_PAGESIZE));
	for (size_t i = 0; i < st->nr_fds; i++)
		close(st->fds[i]);
	free(st->rings);
	free(st->fds);
	free(st->queue);
	free(st->pending);
	perf_parser_release(&st->parser);
}

/* ---- parsing records -------------------------------------------------- */

/* The sample layout record_fill_attr asks for when the parser is not told. */
#define DEFAULT_SAMPLE_TYPE                                                                      \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | \
	 PERF_SAMPLE_CALLCHAIN)

static void handle_sample(struct perf_parser *st, const char *p, const char *end)
{
	struct record_sample s = { 0 };
	uint64_t v;
	uint32_t u[2];
	uint64_t type = st->sample_type ? st->sample_type : DEFAULT_SAMPLE_TYPE;

#define TAKE(dst) do { if ((size_t)(end - p) < sizeof(dst)) return; memcpy(&(dst), p, sizeof(dst)); p += sizeof(dst); } while (0)
	TAKE(v); /* ip */
	TAKE(u);
	s.pid = u[0];
	s.tid = u[1];
	TAKE(s.time);
	TAKE(u);
	s.cpu = u[0];
	if (type & PERF_SAMPLE_PERIOD)
		TAKE(v); /* period */
	uint64_t nr;
	TAKE(nr);
	if (nr > (uint64_t)(end - p) / 8)
		return;
	const char *chain = p;
	p += nr * 8;
	const char *raw = NULL;
	uint32_t raw_len = 0;
	if (type & PERF_SAMPLE_RAW) {
		TAKE(raw_len);
		if (raw_len > (uint64_t)(end - p))
			return;
		raw = p;
		p += raw_len;
	}
	if (type & PERF_SAMPLE_REGS_USER) {
		TAKE(s.regs_abi);
		if (s.regs_abi) {
			size_t n = (size_t)__builtin_popcountll(st->regs_mask);
			if (n > (size_t)(end - p) / 8)
				return;
			s.regs_mask = st->regs_mask;
			s.regs = (const uint64_t *)(const void *)p; /* records are 8-byte aligned */
			p += n * 8;
		}
	}
	if (type & PERF_SAMPLE_STACK_USER) {
		uint64_t size, dyn;
		TAKE(size);
		if (size) {
			/* the stack, then its dynamic size (8 bytes) */
			if ((uint64_t)(end - p) < 8 || size > (uint64_t)(end - p) - 8)
				return;
			const char *data = p;
			p += size;
			TAKE(dyn);
			s.stack = (const uint8_t *)data;
			s.stack_len = (size_t)(dyn < size ? dyn : size);
		}
	}
	if (!s.stack_len)
		s.regs_abi = 0;
#undef TAKE
	size_t nk = 0, nu = 0;
	VEC_GROW(st->kips, nr, st->alloc_kips);
	VEC_GROW(st->uips, nr, st->alloc_uips);
	int ctx = 0; /* 1 kernel, 2 user, 0 other */
	for (uint64_t i = 0; i < nr; i++, chain += 8) {
		uint64_t ip;
		memcpy(&ip, chain, 8);
		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			ctx = ip == (uint64_t)PERF_CONTEXT_KERNEL ? 1 : ip == (uint64_t)PERF_CONTEXT_USER ? 2 : 0;
			continue;
		}
		if (ctx == 1)
			st->kips[nk++] = ip;
		else if (ctx == 2)
			st->uips[nu++] = ip;
	}
	/* The kernel stores kernel frames, then user frames, up to the limit
	 * (context markers not counted): at the limit the root end is lost,
	 * the user side's when there is one. */
	if (st->max_stack && nk + nu >= st->max_stack) {
		s.user_truncated = nu > 0;
		s.kernel_truncated = nu == 0;
	}
	s.weight = 1;
	s.kernel = st->kips;
	s.nr_kernel = (uint32_t)nk;
	s.user = st->uips;
	s.nr_user = (uint32_t)nu;
	if (st->offcpu) {
		/* sched_switch: a block starts; else a --wall cpu-clock sample
		 * (its raw data is empty), of a CPU -C asks for. */
		if (offcpu_is_switch(st->offcpu, raw, raw_len))
			offcpu_switch_out(st->offcpu, &s, raw, raw_len);
		else
			offcpu_on_cpu(st->offcpu, &s);
		return;
	}
	recorder_sample(st->r, &s);
}

/* A context-switch record: with --off-cpu, a switch-in ends a block. The
 * task is the sample_id trailer's (TID ... CPU, as the layout asks), which
 * for a switch-in is the task switched in. */
static void handle_switch(struct perf_parser *st, const struct perf_event_header *h)
{
	uint64_t type = st->sample_type ? st->sample_type : DEFAULT_SAMPLE_TYPE;
	if (!st->offcpu || (h->misc & PERF_RECORD_MISC_SWITCH_OUT) || !(type & PERF_SAMPLE_TID) ||
	    !(type & PERF_SAMPLE_TIME))
		return;
	size_t after = 8 * (2 + !!(type & PERF_SAMPLE_ID) + !!(type & PERF_SAMPLE_STREAM_ID) +
			    !!(type & PERF_SAMPLE_CPU) + !!(type & PERF_SAMPLE_IDENTIFIER));
	if (h->size < sizeof(*h) + after)
		return;
	const char *trailer = (const char *)h + h->size - after;
	uint32_t u[2];
	uint64_t time;
	memcpy(u, trailer, 8);
	memcpy(&time, trailer + 8, 8);
	offcpu_switch_in(st->offcpu, u[1], time);
}

void perf_parse_record(struct perf_parser *st, const struct perf_event_header *h)
{
	const char *p = (const char *)(h + 1);
	const char *end = (const char *)h + h->size;
	uint32_t u[4];

	st->bytes += h->size;
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		handle_sample(st, p, end);
		break;
	case PERF_RECORD_MMAP2: {
		/* pid tid addr len pgoff maj min ino ino_gen (or build id) prot flags name */
		uint64_t addr, len, pgoff;
		if (end - p < 8 + 24 + 24 + 8 + 1)
			break;
		memcpy(u, p, 8);
		memcpy(&addr, p + 8, 8);
		memcpy(&len, p + 16, 8);
		memcpy(&pgoff, p + 24, 8);
		const char *name = p + 8 + 24 + 24 + 8;
		if (!memchr(name, 0, (size_t)(end - name)))
			break;
		if (!(h->misc & PERF_RECORD_MISC_USER))
			break; /* kernel modules: kallsyms has them */
		recorder_mmap(st->r, u[0], addr, len, pgoff, name);
		break;
	}
	case PERF_RECORD_COMM: {
		if (end - p < 9)
			break;
		memcpy(u, p, 8);
		const char *name = p + 8;
		if (!memchr(name, 0, (size_t)(end - name)))
			break;
		recorder_comm(st->r, u[0], u[1], name, (h->misc & PERF_RECORD_MISC_COMM_EXEC) != 0);
		break;
	}
	case PERF_RECORD_FORK: {
		if (end - p < 16)
			break;
		memcpy(u, p, 16); /* pid ppid tid ptid */
		recorder_fork(st->r, u[1], u[3], u[0], u[2]);
		break;
	}
	case PERF_RECORD_EXIT: {
		if (end - p < 16)
			break;
		memcpy(u, p, 16); /* pid ppid tid ptid */
		recorder_exit(st->r, u[0], u[2]);
		break;
	}
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		handle_switch(st, h);
		break;
	case PERF_RECORD_LOST: {
		uint64_t n[2];
		if (end - p >= 16) {
			memcpy(n, p, 16);
			st->lost += n[1];
		}
		break;
	}
	case PERF_RECORD_LOST_SAMPLES: {
		uint64_t n;
		if (end - p >= 8) {
			memcpy(&n, p, 8);
			st->lost += n;
		}
		break;
	}
	default:
		break;
	}
}

uint64_t perf_record_time(const struct perf_parser *ps, const struct perf_event_header *h)
{
	uint64_t type = ps->sample_type ? ps->sample_type : DEFAULT_SAMPLE_TYPE, t = 0;
	if (!(type & PERF_SAMPLE_TIME))
		return 0;
	if (h->type == PERF_RECORD_SAMPLE) {
		size_t at = sizeof(*h) + (type & PERF_SAMPLE_IDENTIFIER ? 8 : 0) + (type & PERF_SAMPLE_IP ? 8 : 0) +
			    (type & PERF_SAMPLE_TID ? 8 : 0);
		if (h->size >= at + 8)
			memcpy(&t, (const char *)h + at, 8);
		return t;
	}
	/* trailer: TID TIME ID STREAM_ID CPU IDENTIFIER, those asked for */
	size_t after = 8 * (1 + !!(type & PERF_SAMPLE_ID) + !!(type & PERF_SAMPLE_STREAM_ID) +
			    !!(type & PERF_SAMPLE_CPU) + !!(type & PERF_SAMPLE_IDENTIFIER));
	if (h->size >= sizeof(*h) + after + 8)
		memcpy(&t, (const char *)h + h->size - after, 8);
	return t;
}

static void enqueue_bytes(struct perf_state *st, uint64_t t, bool foreign, const char *a, size_t a_len,
			  const char *b, size_t b_len)
{
	/* 8-byte aligned copies: the parser reads u64 fields in place. */
	size_t len = (a_len + b_len + 7) & ~(size_t)7;
	VEC_GROW(st->queue, st->queue_len + len, st->queue_alloc);
	memcpy(st->queue + st->queue_len, a, a_len);
	if (b_len)
		memcpy(st->queue + st->queue_len + a_len, b, b_len);
	VEC_GROW(st->pending, st->nr_pending + 1, st->alloc_pending);
	st->pending[st->nr_pending++] = (struct queued){ t, st->seq++, st->queue_len, a_len + b_len, foreign };
	st->queue_len += len;
}

static void enqueue(struct perf_state *st, const char *a, size_t a_len, const char *b, size_t b_len)
{
	struct perf_event_header h;
	memcpy(&h, a, sizeof(h)); /* a_len >= sizeof(h): drain() read it whole */
	uint64_t t;
	if (b_len) {
		/* Wrapped: the time is read from a joined copy. */
		enqueue_bytes(st, 0, false, a, a_len, b, b_len);
		struct queued *q = &st->pending[st->nr_pending - 1];
		q->time = perf_record_time(&st->parser, (const void *)(st->queue + q->off));
		return;
	}
	t = perf_record_time(&st->parser, (const void *)a);
	enqueue_bytes(st, t, false, a, a_len, NULL, 0);
}

static int cmp_queued(const void *a, const void *b)
{
	const struct queued *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Hand the queued records up to limit to the recorder, in time order. */
static void flush_queue(struct perf_state *st, uint64_t limit)
{
	if (!st->nr_pending)
		return; /* (qsort of a NULL array is undefined even when empty) */
	qsort(st->pending, st->nr_pending, sizeof(st->pending[0]), cmp_queued);
	size_t i = 0;
	for (; i < st->nr_pending && st->pending[i].time <= limit; i++) {
		const struct queued *q = &st->pending[i];
		if (q->foreign)
			st->foreign(st->foreign_arg, st->queue + q->off, q->len);
		else
			perf_parse_record(&st->parser, (const void *)(st->queue + q->off));
	}
	/* Keep the rest (few: one round's newest records) at the front. */
	size_t keep = st->nr_pending - i, len = 0;
	char *rest = keep ? xmalloc(st->queue_len) : NULL;
	for (size_t k = 0; k < keep; k++) {
		struct queued q = st->pending[i + k];
		size_t padded = (q.len + 7) & ~(size_t)7;
		memcpy(rest + len, st->queue + q.off, padded);
		q.off = len;
		len += padded;
		st->pending[k] = q;
	}
	if (rest)
		memcpy(st->queue, rest, len);
	free(rest);
	st->queue_len = len;
	st->nr_pending = keep;
}

static void drain(struct perf_state *st, struct ring *rg)
{
	struct perf_event_mmap_page *pg = rg->base;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;
	size_t mask = rg->size - 1;

	while (tail < head) {
		struct perf_event_header hdr;
		size_t off = tail & mask;
		if (head - tail < sizeof(hdr))
			break;
		if (off + sizeof(hdr) <= rg->size) {
			memcpy(&hdr, rg->data + off, sizeof(hdr));
		} else {
			size_t first = rg->size - off;
			memcpy(&hdr, rg->data + off, first);
			memcpy((char *)&hdr + first, rg->data, sizeof(hdr) - first);
		}
		if (hdr.size < sizeof(hdr) || hdr.size > head - tail)
			break;
		if (off + hdr.size <= rg->size) {
			enqueue(st, rg->data + off, hdr.size, NULL, 0);
		} else {
			size_t first = rg->size - off;
			enqueue(st, rg->data + off, first, rg->data, hdr.size - first);
		}
		tail += hdr.size;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
}

/* One round: read every ring, hand over what is old enough: what happened
 * before the round began (less a margin for a record being written as
 * the round reads its ring) cannot still be missing from the rings. The
 * samples then reach the unwinder while their process still runs. */
static void drain_all(struct perf_state *st, bool last)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	uint64_t limit = now > FLUSH_MARGIN_NS ? now - FLUSH_MARGIN_NS : 0;
	for (int i = 0; i < st->nr_rings; i++)
		drain(st, &st->rings[i]);
	flush_queue(st, last ? UINT64_MAX : limit);
}

void perf_parser_release(struct perf_parser *ps)
{
	free(ps->kips);
	free(ps->uips);
}

void perf_parse_records(struct perf_parser *ps, const void *data, size_t len)
{
	const char *p = data, *end = p + len;
	while ((size_t)(end - p) >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		memcpy(&h, p, sizeof(h));
		if (h.size < sizeof(h) || h.size > (size_t)(end - p) || h.size % 8)
			break;
		/* Records sit 8-byte aligned in the ring; keep that here.
		 * (h.size is 16 bits: 64 KiB holds any record.) */
		uint64_t rec[65536 / 8];
		memcpy(rec, p, h.size);
		perf_parse_record(ps, (const struct perf_event_header *)rec);
		p += h.size;
	}
}

/* ---- opening ---------------------------------------------------------- */

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
	add_fd(st, fd);
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
			for (int k = 0; k < st->nr_rings; k++) {
				struct perf_event_attr a = *attr;
				int fd = record_perf_open(&a, now[j], st->rings[k].cpu, -1, 0);
				if (fd < 0)
					break; /* exited meanwhile */
				add_fd(st, fd);
				filter_switches(st->opts, fd);
				if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, st->rings[k].fd)) {
					int e = errno;
					free(now);
					return error("cannot share the sample buffer of CPU %d: %s", st->rings[k].cpu,
						     strerror(e));
				}
				if (o->wall && open_wall_clock(st, &a, now[j], st->rings[k].cpu, st->rings[k].fd)) {
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

static int open_events(struct perf_state *st, const struct record_target *t, struct event_choice *ev)
{
	const struct record_opts *o = st->opts;
	pid_t *tasks;
	size_t nr_tasks;
	bool inherit;
	int ncpu = record_nr_cpus();
	long page = sysconf(_SC_PAGESIZE);

	size_t exited = 0; /* -p threads gone before their event was opened */
	struct perf_event_attr task_attr; /* as opened (the same for every task) */
	bool opened = false;
	if (collect_targets(o, t, &tasks, &nr_tasks, &inherit))
		return -1;
	st->rings = xcalloc((size_t)ncpu, sizeof(st->rings[0]));
	st->ring_pages = recorder_unwinds(st->r) ? RING_PAGES_STACKS : RING_PAGES;
	if (o->off_cpu && recorder_unwinds(st->r))
		while (st->ring_pages < RING_PAGES_OFFCPU_MAX && st->ring_pages * 2 * (size_t)ncpu <= RING_PAGES_OFFCPU_ALL)
			st->ring_pages *= 2;
	else if (o->event == RECORD_EVENT_COUNTED && recorder_unwinds(st->r))
		while (st->ring_pages < RING_PAGES_BURSTS_MAX && st->ring_pages * 2 * (size_t)ncpu <= RING_PAGES_BURSTS_ALL)
			st->ring_pages *= 2;
	event_choice_init(ev, o);

	for (int cpu = 0; cpu < ncpu; cpu++) {
		/* Off-CPU: every CPU, as a thread may leave one and come back
		 * on another; -C then selects by the CPU it left. */
		if (!o->off_cpu && !record_cpu_wanted(o, cpu))
			continue;
		struct ring *rg = &st->rings[st->nr_rings];
		rg->fd = -1;
		for (size_t i = 0; i < nr_tasks; i++) {
			struct perf_event_attr attr;
			record_fill_attr(&attr, o, ev->cycles);
			if (o->off_cpu)
				offcpu_attr(&attr, st->offcpu_fmt);
			attr.inherit = inherit;
			attr.enable_on_exec = t->child > 0;
			bool leader = rg->fd < 0;
			/* Process tracking: a side-band record goes only to the
			 * event of the task and CPU where it happened, so every
			 * event may carry it without duplicates. */
			attr.mmap = attr.mmap2 = attr.comm = attr.comm_exec = attr.task = 1;
			attr.mmap_data = 0;
			attr.watermark = 1;
			attr.exclude_kernel |= st->user_only;
			attr.exclude_callchain_kernel |= st->user_only;
			if (recorder_unwinds(st->r))
				record_attr_user_stack(&attr, o);
			st->parser.sample_type = attr.sample_type;
			st->parser.regs_mask = attr.sample_regs_user;
			attr.wakeup_watermark = (uint32_t)(st->ring_pages * page / 4);
			int fd = record_perf_open(&attr, tasks[i], cpu, -1, 0);
			if (fd < 0 && (errno == EACCES || errno == EPERM) && tasks[i] > 0 &&
			    record_refused_other_user(tasks[i])) {
				free(tasks);
				return -1;
			}
			if (fd < 0 && errno == EACCES && tasks[i] > 0 && !st->user_only && !o->kernel_only &&
			    !st->nr_fds && !o->off_cpu) {
				/* perf_event_paranoid 2: own processes, user space only. */
				st->user_only = true;
				if (!o->quiet)
					fprintf(stderr, "scorch: kernel.perf_event_paranoid allows user-space "
							"sampling only; recording user stacks (run as root or "
							"set it to 1 for kernel stacks)\n");
				i--;
				continue;
			}
			if (event_choice_retry(ev, o, fd < 0, errno)) {
				i--;
				continue;
			}
			if (fd < 0) {
				int e = errno;
				if (e == ENODEV) /* offline CPU */
					break;
				if (e == ESRCH && tasks[i] > 0 && o->nr_pids) {
					exited++;
					continue; /* a thread exited meanwhile */
				}
				char what[64];
				if (tasks[i] > 0)
					snprintf(what, sizeof(what), "sampling task %d", (int)tasks[i]);
				else
					snprintf(what, sizeof(what), "sampling CPU %d", cpu);
				free(tasks);
				return record_perf_error(e, what);
			}
			add_fd(st, fd);
			filter_switches(o, fd);
			task_attr = attr;
			opened = true;
			if (leader) {
				void *base = MAP_FAILED;
				int e = 0;
				/* Smaller rings where locked memory is limited. */
				for (;;) {
					size_t len = (st->ring_pages + 1) * (size_t)page;
					base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
					e = errno;
					if (base != MAP_FAILED || (e != EPERM && e != ENOMEM) ||
					    st->nr_rings || st->ring_pages <= RING_PAGES_MIN)
						break;
					st->ring_pages /= 2;
				}
				if (base == MAP_FAILED) {
					free(tasks);
					return error("cannot map the sample buffer of CPU %d: %s%s", cpu, strerror(e),
						     e == EPERM ? " (locked memory limit: raise "
								  "kernel.perf_event_mlock_kb or 'ulimit -l')"
								: "");
				}
				rg->fd = fd;
				rg->cpu = cpu;
				rg->base = base;
				rg->size = st->ring_pages * (size_t)page;
				rg->data = (char *)base + page;
				st->nr_rings++;
			} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, rg->fd)) {
				int e = errno;
				free(tasks);
				return error("cannot share the sample buffer of CPU %d: %s", cpu, strerror(e));
			}
			if (o->wall && open_wall_clock(st, &attr, tasks[i], cpu, rg->fd)) {
				free(tasks);
				return -1;
			}
		}
	}
	if (o->nr_pids && opened && open_new_threads(st, &task_attr, &tasks, &nr_tasks)) {
		free(tasks);
		return -1;
	}
	free(tasks);
	if (!st->nr_rings && exited)
		return error("no samples: the process%s exited before sampling started",
			     o->nr_pids > 1 ? "es" : "");
	if (!st->nr_rings)
		return error("no CPU could be sampled");
	return 0;
}

static int perf_run(const struct record_opts *o, struct recorder *r, struct record_target *t,
		    struct record_stats *stats)
{
	struct perf_state st = { .opts = o, .r = r, .stats = stats };
	st.parser.r = r;
	st.parser.max_stack = record_max_stack(o);
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

	/* Processes that exist now: their names and maps (perf synthesizes
	 * these from /proc the same way). New ones come as records. */
	for (size_t i = 0; i < o->nr_pids; i++)
		recorder_seen(r, (uint32_t)o->pids[i]);

	if (t->child <= 0)
		for (size_t i = 0; i < st.nr_fds; i++)
			ioctl(st.fds[i], PERF_EVENT_IOC_ENABLE, 0);
	if (t->child > 0) {
		int e = target_start(t, o->command[0]);
		if (e) {
			ret = e;
			goto out;
		}
	}

	/* Every event is polled (a ring wakes all the events writing to it):
	 * an event whose task exited reports POLLHUP from then on and is
	 * dropped from the set, or poll would return at once forever. After
	 * the events come the descriptors of the targets' exits. */
	size_t nr_events = st.nr_fds;
	struct pollfd *pfd = xcalloc(nr_events + t->nr_watch + 1, sizeof(*pfd));
	for (size_t i = 0; i < nr_events; i++)
		pfd[i] = (struct pollfd){ .fd = st.fds[i], .events = POLLIN };
	double start = record_now(), last_progress = 0;
	while (!record_should_stop(o, t, start, stats)) {
		size_t n = nr_events + target_pollfds(t, pfd + nr_events);
		poll(pfd, (nfds_t)n, record_poll_ms(o, start, recorder_unwinds(r) ? POLL_MS_STACKS : POLL_MS));
		for (size_t i = 0; i < nr_events; i++)
			if (pfd[i].revents & (POLLHUP | POLLERR))
				pfd[i].fd = -1;
		drain_all(&st, false);
		double now = record_now();
		if (o->progress && now - last_progress >= 0.25) {
			record_progress(o, now - start, recorder_samples(r), st.parser.lost);
			last_progress = now;
		}
	}
	for (size_t i = 0; i < st.nr_fds; i++)
		ioctl(st.fds[i], PERF_EVENT_IOC_DISABLE, 0);
	record_phase(&stats->phases, "events disabled");
	stats->seconds = record_now() - start;
	struct timespec stopped;
	clock_gettime(CLOCK_MONOTONIC, &stopped);
	drain_all(&st, true);
	record_phase(&stats->phases, "rings drained");
	if (st.parser.offcpu) {
		struct offcpu_counts counts;
		offcpu_finish(st.parser.offcpu, (uint64_t)stopped.tv_sec * 1000000000u + (uint64_t)stopped.tv_nsec,
			      &counts);
		stats->offcpu_filtered = counts.filtered;
		stats->offcpu_open = counts.open;
		stats->offcpu_lost_end = counts.lost_end;
	}
	if (o->progress)
		record_progress_end(o);
	free(pfd);
	stats->lost = st.parser.lost;
	stats->bytes = st.parser.bytes;
	ret = 0;
out:
	offcpu_free(st.parser.offcpu);
	close_all(&st);
	record_phase(&stats->phases, "events closed");
	return ret;
}

const struct record_backend record_backend_perf = { "perf", perf_run };

/* ---- side band for the BPF backend ------------------------------------- */

/* One dummy software event per CPU (no samples) with the process-tracking
 * records on: the BPF backend aggregates samples in the kernel but still
 * learns every mapping, name and fork while the processes live, even those
 * that exit between two of its scans. */
struct perf_sideband {
	struct perf_state st;
};

struct perf_sideband *perf_sideband_open(const struct record_opts *o, struct recorder *r,
					 const struct record_target *t)
{
	struct perf_sideband *sb = xcalloc(1, sizeof(*sb));
	struct perf_state *st = &sb->st;
	int ncpu = record_nr_cpus();
	long page = sysconf(_SC_PAGESIZE);
	enum { SIDEBAND_PAGES = 16 };

	st->opts = o;
	st->r = r;
	st->parser.r = r;
	st->rings = xcalloc((size_t)ncpu, sizeof(st->rings[0]));
	for (int cpu = 0; cpu < ncpu; cpu++) {
		struct perf_event_attr attr;
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = PERF_COUNT_SW_DUMMY;
		/* Timed records, on the samples' clock, merged with them. */
		attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
		attr.sample_id_all = 1;
		attr.use_clockid = 1;
		attr.clockid = CLOCK_MONOTONIC;
		st->parser.sample_type = attr.sample_type;
		attr.mmap = attr.mmap2 = attr.comm = attr.comm_exec = attr.task = 1;
		attr.inherit = t->child > 0;
		attr.enable_on_exec = t->child > 0;
		attr.disabled = t->child > 0;
		attr.watermark = 1;
		attr.wakeup_watermark = (uint32_t)(SIDEBAND_PAGES * page / 2);
		int fd = record_perf_open(&attr, t->child > 0 ? t->child : -1, cpu, -1, 0);
		if (fd < 0)
			continue; /* offline CPU, or not permitted: scans still work */
		add_fd(st, fd);
		size_t len = (size_t)(SIDEBAND_PAGES + 1) * (size_t)page;
		void *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (base == MAP_FAILED)
			continue;
		struct ring *rg = &st->rings[st->nr_rings++];
		rg->fd = fd;
		rg->base = base;
		rg->size = (size_t)SIDEBAND_PAGES * (size_t)page;
		rg->data = (char *)base + page;
	}
	return sb;
}

void perf_sideband_on_push(struct perf_sideband *sb, void (*fn)(void *arg, const void *data, size_t len),
			   void *arg)
{
	sb->st.foreign = fn;
	sb->st.foreign_arg = arg;
}

void perf_sideband_push(struct perf_sideband *sb, uint64_t time, const void *data, size_t len)
{
	enqueue_bytes(&sb->st, time, true, data, len, NULL, 0);
}

void perf_sideband_drain(struct perf_sideband *sb)
{
	drain_all(&sb->st, false);
}

void perf_sideband_close(struct perf_sideband *sb)
{
	if (!sb)
		return;
	drain_all(&sb->st, true);
	close_all(&sb->st);
	free(sb);
}
