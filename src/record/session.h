/* The recording's clock, phases, poll timeouts and stop check
 * (record-private): what every backend's loop asks, so that no backend
 * calls up into the driver (run.c). */
#ifndef SCORCH_RECORD_SESSION_H
#define SCORCH_RECORD_SESSION_H

#include "record/record.h"
#include "record/target.h"

#include <stdbool.h>
#include <stdint.h>

double record_now(void);     /* CLOCK_MONOTONIC, seconds */
double record_cpu_now(void); /* CPU time of the process */
/* CLOCK_MONOTONIC in ns: the clock of perf's rings (use_clockid) and of
 * bpf_ktime_get_ns, that is, of struct record_sample.time. */
uint64_t record_now_ns(void);
/* CLOCK_REALTIME less CLOCK_MONOTONIC now, in ns: added to a sample's
 * time, nanoseconds since the epoch (read it once per recording: the
 * realtime clock may be stepped while it runs). */
int64_t record_realtime_offset_ns(void);
/* A backend's poll timeout: ms, or less so that -d ends on time. */
int record_poll_ms(const struct record_opts *opts, double start, int ms);
/* Has sampling ended (stop flag, duration, command exit, targets gone)?
 * Says why in stats->ended, and marks the end of sampling in
 * stats->phases (what follows is finishing time, see record_phase). */
bool record_should_stop(const struct record_opts *opts, struct record_target *t, double start,
			struct record_stats *stats);

/* Progress line on stderr (progress.c). */
void record_progress(const struct record_opts *opts, double elapsed, uint64_t samples, uint64_t lost);
void record_progress_end(const struct record_opts *opts);

#endif
