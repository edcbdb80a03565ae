/* perf's mmap'ed ring buffers and the time-order queue their records
 * pass through (record-private), for the perf backend and the BPF
 * backend's side band. */
#ifndef SCORCH_RECORD_PERF_RING_H
#define SCORCH_RECORD_PERF_RING_H

#include "record/perf_parse.h"

struct record_bound;

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One CPU's ring, written by the events of that CPU. */
struct perf_ring {
	int fd;
	int cpu;
	void *base;  /* the header page, then the data */
	size_t size; /* data area bytes, a power of two */
	char *data;
};

struct perf_queued {
	uint64_t time, seq;
	size_t off, len; /* in perf_rings.queue */
	bool foreign;    /* a perf_rings_push record, not a perf one */
};

struct perf_rings {
	struct perf_ring *rings;
	int nr_rings;
	int *fds;                  /* every event opened (closed with the rings) */
	size_t nr_fds, alloc_fds;
	struct perf_parser *parser; /* where the records go */
	/* Records of every ring, merged by time before they reach the
	 * recorder (a process's exec on one CPU must come before its samples
	 * on another): a round reads every ring, then hands over the records
	 * older than the round (perf_rings_drain); the rest wait for the next. */
	char *queue;
	size_t queue_len, queue_alloc;
	struct perf_queued *pending;
	size_t nr_pending, alloc_pending;
	uint64_t seq;
	uint64_t horizon;          /* every record older was handed over (CLOCK_MONOTONIC ns) */
	/* The handler of perf_rings_push records. */
	void (*foreign)(void *arg, const void *data, size_t len);
	void *foreign_arg;
	/* When flushing gives way (session.h; NULL: never): while sampling
	 * the rest waits for the next round; finishing, the samples left are
	 * counted in unread (other records are still read: they are cheap
	 * and name what was read). */
	struct record_bound *bound;
	uint64_t unread;
	uint64_t *python_buf;      /* one PERF_PYTHON_FRAMES record (perf_python.h), when parser->python */
	char *python_join;         /* a wrapped sample, joined for it */
	size_t python_join_alloc;
};

/* Room for a ring per CPU; records go to parser. */
void perf_rings_init(struct perf_rings *rs, int ncpu, struct perf_parser *parser);
void perf_rings_add_fd(struct perf_rings *rs, int fd);
/* Map fd's ring of pages data pages (a power of two) as the next ring;
 * 0, or -1 with errno set by mmap. */
int perf_rings_map(struct perf_rings *rs, int fd, int cpu, size_t pages);
/* One round (last: everything, the end of sampling). */
void perf_rings_drain(struct perf_rings *rs, bool last);
/* A record from elsewhere, queued by time with the rings' records. */
void perf_rings_push(struct perf_rings *rs, uint64_t time, const void *data, size_t len);
/* Unmap the rings, close the events, free the queue. */
void perf_rings_release(struct perf_rings *rs);

#endif
