/* The records of a perf ring buffer -> the recorder (perf_parse.h). */
#include "record/perf_parse.h"
#include "record/perf_python.h"

#include "base/alloc.h"
#include "record/perf_offcpu.h"

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The sample layout record_fill_attr asks for when the parser is not told. */
#define DEFAULT_SAMPLE_TYPE                                                                      \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | \
	 PERF_SAMPLE_CALLCHAIN)

/* The fields of a sample record the layout asks for; false when it is cut
 * short. The callchain (nr entries at chain) and raw data are left for
 * the caller. */
struct sample_fields {
	uint64_t nr;
	const char *chain;
	const char *raw;
	uint32_t raw_len;
};

static bool take_fields(const struct perf_parser *st, const char *p, const char *end, struct record_sample *s,
			struct sample_fields *f)
{
	uint64_t v;
	uint32_t u[2];
	uint64_t type = st->sample_type ? st->sample_type : DEFAULT_SAMPLE_TYPE;

#define TAKE(dst) do { if ((size_t)(end - p) < sizeof(dst)) return false; memcpy(&(dst), p, sizeof(dst)); p += sizeof(dst); } while (0)
	TAKE(v); /* ip */
	TAKE(u);
	s->pid = u[0];
	s->tid = u[1];
	TAKE(s->time);
	TAKE(u);
	s->cpu = u[0];
	if (type & PERF_SAMPLE_PERIOD)
		TAKE(v); /* period */
	TAKE(f->nr);
	if (f->nr > (uint64_t)(end - p) / 8)
		return false;
	f->chain = p;
	p += f->nr * 8;
	if (type & PERF_SAMPLE_RAW) {
		TAKE(f->raw_len);
		if (f->raw_len > (uint64_t)(end - p))
			return false;
		f->raw = p;
		p += f->raw_len;
	}
	if (type & PERF_SAMPLE_REGS_USER) {
		TAKE(s->regs_abi);
		if (s->regs_abi) {
			size_t n = (size_t)__builtin_popcountll(st->regs_mask);
			if (n > (size_t)(end - p) / 8)
				return false;
			s->regs_mask = st->regs_mask;
			s->regs = (const uint64_t *)(const void *)p; /* records are 8-byte aligned */
			p += n * 8;
		}
	}
	if (type & PERF_SAMPLE_STACK_USER) {
		uint64_t size, dyn;
		TAKE(size);
		if (size) {
			/* the stack, then its dynamic size (8 bytes) */
			if ((uint64_t)(end - p) < 8 || size > (uint64_t)(end - p) - 8)
				return false;
			const char *data = p;
			p += size;
			TAKE(dyn);
			s->stack = (const uint8_t *)data;
			s->stack_len = (size_t)(dyn < size ? dyn : size);
		}
	}
	if (!s->stack_len)
		s->regs_abi = 0;
#undef TAKE
	return true;
}

/* The callchain split at its context markers into the kernel's frames
 * and the user's (in st's buffers). */
static void split_chain(struct perf_parser *st, const struct sample_fields *f, struct record_sample *s)
{
	size_t nk = 0, nu = 0;
	const char *chain = f->chain;
	VEC_GROW(st->kips, f->nr, st->alloc_kips);
	VEC_GROW(st->uips, f->nr, st->alloc_uips);
	int ctx = 0; /* 1 kernel, 2 user, 0 other */
	for (uint64_t i = 0; i < f->nr; i++, chain += 8) {
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
		s->user_truncated = nu > 0;
		s->kernel_truncated = nu == 0;
	}
	s->kernel = st->kips;
	s->nr_kernel = (uint32_t)nk;
	s->user = st->uips;
	s->nr_user = (uint32_t)nu;
}

bool perf_parse_sample_regs(const struct perf_parser *ps, const struct perf_event_header *h, struct record_sample *s)
{
	struct sample_fields f = { 0 };
	const char *p = (const char *)(h + 1), *end = (const char *)h + h->size;
	*s = (struct record_sample){ 0 };
	return h->type == PERF_RECORD_SAMPLE && h->size >= sizeof(*h) && take_fields(ps, p, end, s, &f);
}

uint64_t perf_sample_type(const struct perf_parser *ps)
{
	return ps->sample_type ? ps->sample_type : DEFAULT_SAMPLE_TYPE;
}

static void handle_sample(struct perf_parser *st, const char *p, const char *end)
{
	struct record_sample s = { 0 };
	struct sample_fields f = { 0 };
	if (!take_fields(st, p, end, &s, &f))
		return;
	split_chain(st, &f, &s);
	s.weight = 1;
	if (st->offcpu) {
		/* sched_switch: a block starts; else a --wall cpu-clock sample
		 * (its raw data is empty), of a CPU -C asks for. */
		if (offcpu_is_switch(st->offcpu, f.raw, f.raw_len))
			offcpu_switch_out(st->offcpu, &s, f.raw, f.raw_len);
		else
			offcpu_on_cpu(st->offcpu, &s);
		return;
	}
	if (st->python)
		perf_python_take(st->python, &s);
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

static void handle_mmap2(struct perf_parser *st, const struct perf_event_header *h, const char *p, const char *end)
{
	/* pid tid addr len pgoff maj min ino ino_gen (or build id) prot flags name */
	uint32_t u[2];
	uint64_t addr, len, pgoff;
	if (end - p < 8 + 24 + 24 + 8 + 1)
		return;
	memcpy(u, p, 8);
	memcpy(&addr, p + 8, 8);
	memcpy(&len, p + 16, 8);
	memcpy(&pgoff, p + 24, 8);
	const char *name = p + 8 + 24 + 24 + 8;
	if (!memchr(name, 0, (size_t)(end - name)))
		return;
	if (!(h->misc & PERF_RECORD_MISC_USER))
		return; /* kernel modules: kallsyms has them */
	recorder_mmap(st->r, u[0], addr, len, pgoff, name);
}

void perf_parse_record(struct perf_parser *st, const struct perf_event_header *h)
{
	const char *p = (const char *)(h + 1);
	const char *end = (const char *)h + h->size;
	uint32_t u[4];

	st->bytes += h->size;
	switch (h->type) {
	case PERF_PYTHON_FRAMES:
		st->bytes -= h->size; /* (not the kernel's) */
		if (st->python)
			perf_python_keep(st->python, h, h->size);
		break;
	case PERF_RECORD_SAMPLE:
		handle_sample(st, p, end);
		break;
	case PERF_RECORD_MMAP2:
		handle_mmap2(st, h, p, end);
		break;
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

