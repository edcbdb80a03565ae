/* The perf backend's side of runtime frames: no program runs at the
 * sample, so what a runtime's BPF reader would send (runtime.h's
 * payload_now: a CPython thread's frames) is read from user space as
 * soon as the sample is read from its ring, before the samples are put
 * in time order, and travels to it as a record of its own
 * (PERF_PYTHON_FRAMES, queued just before the sample, same time). It is
 * what the frames were at that moment, not at the sample's: how far
 * apart the two are is measured in tests/record/t800-python.sh. */
#ifndef SCORCH_RECORD_PERF_PYTHON_H
#define SCORCH_RECORD_PERF_PYTHON_H

#include "record/recorder.h"
#include "runtime/python_abi.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Not a type the kernel writes (they stay below PERF_RECORD_USER_TYPE_START). */
#define PERF_PYTHON_FRAMES 0x7e01
#define PERF_PYTHON_RECORD_MAX (16 + 8 * PYTHON_MAX_FRAMES)

/* For sample s (its pid, tid, user registers and stack copy) of a
 * process a runtime owns: its payload now, as a PERF_PYTHON_FRAMES
 * record in buf (PERF_PYTHON_RECORD_MAX bytes of 8-byte aligned room);
 * its size, or 0 when no runtime owns the process. */
size_t perf_python_record(struct recorder *r, const struct record_sample *s, void *buf);

/* The payload of the last PERF_PYTHON_FRAMES record, for its thread's
 * sample, which comes next. */
struct perf_python_stash {
	uint32_t tid;
	uint32_t len;
	bool full;
	uint64_t payload[PYTHON_MAX_FRAMES];
};
void perf_python_keep(struct perf_python_stash *st, const void *rec, size_t len);
/* Give s the kept payload if it is its thread's. */
void perf_python_take(struct perf_python_stash *st, struct record_sample *s);

#endif
