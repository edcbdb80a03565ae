/* Process tracking without samples (record-private): the BPF backend's
 * side band, one dummy perf event per CPU whose mmap, comm, fork and exit
 * records keep the recorder's process table current. */
#ifndef SCORCH_RECORD_PERF_SIDEBAND_H
#define SCORCH_RECORD_PERF_SIDEBAND_H

#include "record/recorder.h"
#include "record/target.h"

#include <stddef.h>
#include <stdint.h>

struct perf_sideband;
struct perf_sideband *perf_sideband_open(const struct record_opts *o, struct recorder *r,
					 const struct record_target *t);
void perf_sideband_drain(struct perf_sideband *sb);
/* Every record older than this was handed over by the last drain
 * (CLOCK_MONOTONIC ns; 0 before the first, or without a side band). */
uint64_t perf_sideband_horizon(const struct perf_sideband *sb);
/* Records from elsewhere (the BPF program's user stacks), merged with the
 * side band's by time (CLOCK_MONOTONIC ns) and handed to fn in order. */
void perf_sideband_on_push(struct perf_sideband *sb, void (*fn)(void *arg, const void *data, size_t len),
			   void *arg);
void perf_sideband_push(struct perf_sideband *sb, uint64_t time, const void *data, size_t len);
/* Its flushes give way at bound (session.h; the pushed records' unwinding
 * is most of their work). */
struct record_bound;
void perf_sideband_bound(struct perf_sideband *sb, struct record_bound *bound);
/* Drains first; returns the samples (pushed records) left unread then. */
uint64_t perf_sideband_close(struct perf_sideband *sb);

#endif
