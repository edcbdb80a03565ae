/* The records of a perf ring buffer -> the recorder (record-private):
 * samples (callchain, user registers and stack copy, raw tracepoint
 * data), MMAP2, COMM, FORK, EXIT, context switches and lost counts. */
#ifndef SCORCH_RECORD_PERF_PARSE_H
#define SCORCH_RECORD_PERF_PARSE_H

#include "record/recorder.h"

#include <stddef.h>
#include <stdint.h>

struct offcpu;
struct perf_event_header;

struct perf_parser {
	struct recorder *r;
	struct offcpu *offcpu;  /* --off-cpu: sched_switch samples and switch-in records go here */
	uint32_t max_stack;     /* frames a callchain holds at most (0: unknown) */
	/* The sample layout: 0 = record_fill_attr's frame-pointer layout;
	 * else attr.sample_type and attr.sample_regs_user. */
	uint64_t sample_type, regs_mask;
	uint64_t lost;          /* from LOST and LOST_SAMPLES records */
	uint64_t bytes;         /* of the records parsed */
	uint64_t *kips, *uips;  /* one sample's callchain, split */
	size_t alloc_kips, alloc_uips;
	struct perf_python_stash *python; /* a runtime's payload for the next sample (perf_python.h), or NULL */
};
/* Parse len bytes of whole records (as the ring holds them, with the
 * sample layout record_fill_attr asks for); stops at a malformed header. */
void perf_parse_records(struct perf_parser *ps, const void *data, size_t len);
/* The sample layout the parser reads (attr.sample_type). */
uint64_t perf_sample_type(const struct perf_parser *ps);
/* One whole record, 8-byte aligned. */
void perf_parse_record(struct perf_parser *ps, const struct perf_event_header *h);
/* The fields of one whole sample record h that a runtime's reader needs
 * now (pid, tid, time, user registers and stack copy; pointers into h):
 * false when it is malformed. */
bool perf_parse_sample_regs(const struct perf_parser *ps, const struct perf_event_header *h, struct record_sample *s);
/* The time of a record: a sample's own field, or the sample_id trailer
 * (sample_id_all) of the others; 0 when it has none. */
uint64_t perf_record_time(const struct perf_parser *ps, const struct perf_event_header *h);
void perf_parser_release(struct perf_parser *ps);

#endif
