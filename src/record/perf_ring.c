/* perf's ring buffers and their time-order queue (perf_ring.h). */
#include "record/perf_ring.h"
#include "record/perf_python.h"

#include "base/alloc.h"
#include "record/session.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Records newer than FLUSH_MARGIN_NS wait a round. */
#define FLUSH_MARGIN_NS 2000000u

void perf_rings_init(struct perf_rings *rs, int ncpu, struct perf_parser *parser)
{
	memset(rs, 0, sizeof(*rs));
	rs->rings = xcalloc((size_t)ncpu, sizeof(rs->rings[0]));
	rs->parser = parser;
}

void perf_rings_add_fd(struct perf_rings *rs, int fd)
{
	VEC_GROW(rs->fds, rs->nr_fds + 1, rs->alloc_fds);
	rs->fds[rs->nr_fds++] = fd;
}

int perf_rings_map(struct perf_rings *rs, int fd, int cpu, size_t pages)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *base = mmap(NULL, (pages + 1) * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		return -1;
	struct perf_ring *rg = &rs->rings[rs->nr_rings++];
	*rg = (struct perf_ring){ fd, cpu, base, pages * page, (char *)base + page };
	return 0;
}

void perf_rings_release(struct perf_rings *rs)
{
	for (int i = 0; i < rs->nr_rings; i++)
		if (rs->rings[i].base)
			munmap(rs->rings[i].base, rs->rings[i].size + (size_t)sysconf(_SC_PAGESIZE));
	for (size_t i = 0; i < rs->nr_fds; i++)
		close(rs->fds[i]);
	free(rs->rings);
	free(rs->fds);
	free(rs->queue);
	free(rs->pending);
	free(rs->python_buf);
	free(rs->python_join);
}

static void enqueue_bytes(struct perf_rings *st, uint64_t t, bool foreign, const char *a, size_t a_len,
			  const char *b, size_t b_len)
{
	/* 8-byte aligned copies: the parser reads u64 fields in place. */
	size_t len = (a_len + b_len + 7) & ~(size_t)7;
	VEC_GROW(st->queue, st->queue_len + len, st->queue_alloc);
	memcpy(st->queue + st->queue_len, a, a_len);
	if (b_len)
		memcpy(st->queue + st->queue_len + a_len, b, b_len);
	VEC_GROW(st->pending, st->nr_pending + 1, st->alloc_pending);
	st->pending[st->nr_pending++] = (struct perf_queued){ t, st->seq++, st->queue_len, a_len + b_len, foreign };
	st->queue_len += len;
}

/* A sample (a, joined with b when it wrapped) of a process a runtime
 * owns: the runtime's payload now, queued just before it (perf_python.h). */
static void enqueue_python(struct perf_rings *st, const char *a, size_t a_len, const char *b, size_t b_len)
{
	const char *rec = a;
	if (b_len) { /* wrapped: joined (the registers and stack copy are read whole) */
		VEC_GROW(st->python_join, a_len + b_len, st->python_join_alloc);
		memcpy(st->python_join, a, a_len);
		memcpy(st->python_join + a_len, b, b_len);
		rec = st->python_join;
	}
	struct record_sample s;
	if (!perf_parse_sample_regs(st->parser, (const struct perf_event_header *)(const void *)rec, &s))
		return;
	if (!st->python_buf)
		st->python_buf = xmalloc(PERF_PYTHON_RECORD_MAX);
	size_t len = perf_python_record(st->parser->r, &s, st->python_buf);
	if (len)
		enqueue_bytes(st, perf_record_time(st->parser, (const void *)rec), false, (const char *)st->python_buf,
			      len, NULL, 0);
}

static void enqueue(struct perf_rings *st, const char *a, size_t a_len, const char *b, size_t b_len)
{
	struct perf_event_header h;
	memcpy(&h, a, sizeof(h)); /* a_len >= sizeof(h): drain() read it whole */
	uint64_t t;
	if (st->parser && st->parser->python && h.type == PERF_RECORD_SAMPLE)
		enqueue_python(st, a, a_len, b, b_len);
	if (b_len) {
		/* Wrapped: the time is read from a joined copy. */
		enqueue_bytes(st, 0, false, a, a_len, b, b_len);
		struct perf_queued *q = &st->pending[st->nr_pending - 1];
		q->time = perf_record_time(st->parser, (const void *)(st->queue + q->off));
		return;
	}
	t = perf_record_time(st->parser, (const void *)a);
	enqueue_bytes(st, t, false, a, a_len, NULL, 0);
}

static int cmp_queued(const void *a, const void *b)
{
	const struct perf_queued *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Finishing past the bound: is q a sample, counted as unread and left? */
static bool left_unread(struct perf_rings *st, const struct perf_queued *q)
{
	struct perf_event_header h;
	if (!q->foreign) {
		memcpy(&h, st->queue + q->off, sizeof(h));
		if (h.type != PERF_RECORD_SAMPLE)
			return false;
	}
	st->unread++; /* (a foreign record: a BPF sample's stack copy) */
	return true;
}

/* The queue holds a few milliseconds of records; a burst (a cut, a
 * backlog after a stall) grows it to megabytes of stack copies, which
 * would stay resident for the rest of a long recording. Once little is
 * left, what the burst took goes back. */
enum { QUEUE_KEEP_BYTES = 256 << 10, QUEUE_KEEP_PENDING = 4096 };

static void shrink_after_burst(struct perf_rings *st)
{
	if (st->queue_alloc > 4 * QUEUE_KEEP_BYTES && st->queue_len <= QUEUE_KEEP_BYTES) {
		st->queue = xrealloc(st->queue, QUEUE_KEEP_BYTES);
		st->queue_alloc = QUEUE_KEEP_BYTES;
	}
	if (st->alloc_pending > 4 * QUEUE_KEEP_PENDING && st->nr_pending <= QUEUE_KEEP_PENDING) {
		st->pending = xreallocarray(st->pending, QUEUE_KEEP_PENDING, sizeof(*st->pending));
		st->alloc_pending = QUEUE_KEEP_PENDING;
	}
}

/* Hand the queued records up to limit to the recorder, in time order,
 * until the bound says stop. */
static void flush_queue(struct perf_rings *st, uint64_t limit)
{
	if (!st->nr_pending)
		return; /* (qsort of a NULL array is undefined even when empty) */
	qsort(st->pending, st->nr_pending, sizeof(st->pending[0]), cmp_queued);
	size_t i = 0;
	for (; i < st->nr_pending && st->pending[i].time <= limit; i++) {
		const struct perf_queued *q = &st->pending[i];
		if (record_bound_over(st->bound)) {
			if (!st->bound->finishing)
				break; /* the rest waits for the next round */
			if (left_unread(st, q))
				continue;
		}
		if (q->foreign)
			st->foreign(st->foreign_arg, st->queue + q->off, q->len);
		else
			perf_parse_record(st->parser, (const void *)(st->queue + q->off));
	}
	if (i == 0)
		return; /* (all kept, where they are: a bound can stop a round at once) */
	/* Keep the rest (few: one round's newest records) at the front. */
	size_t keep = st->nr_pending - i, len = 0;
	char *rest = keep ? xmalloc(st->queue_len) : NULL;
	for (size_t k = 0; k < keep; k++) {
		struct perf_queued q = st->pending[i + k];
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
	shrink_after_burst(st);
}

static void drain(struct perf_rings *st, struct perf_ring *rg)
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
void perf_rings_drain(struct perf_rings *st, bool last)
{
	uint64_t now = record_now_ns();
	uint64_t limit = now > FLUSH_MARGIN_NS ? now - FLUSH_MARGIN_NS : 0;
	for (int i = 0; i < st->nr_rings; i++)
		drain(st, &st->rings[i]);
	flush_queue(st, last ? UINT64_MAX : limit);
	st->horizon = limit;
}


void perf_rings_push(struct perf_rings *rs, uint64_t time, const void *data, size_t len)
{
	enqueue_bytes(rs, time, true, data, len, NULL, 0);
}
