/* What scorch record says about a recording: the graph's default title and
 * subtitle, why there are no samples, and the summary line on stderr
 * (cmd/record_describe.c). */
#ifndef SCORCH_CMD_RECORD_DESCRIBE_H
#define SCORCH_CMD_RECORD_DESCRIBE_H

#include "record/record.h"

#include <stddef.h>
#include <time.h>

/* The default title: what was recorded ("scorch record: make -j2",
 * "scorch record: PID 1234 (burn)", "scorch record: all CPUs"). Names of
 * -p/-t targets are read now, while they live. */
void describe_target(const struct record_opts *o, char *buf, size_t cap);
/* The default subtitle: where, when and how ("host x · 2026-11-23 19:40
 * UTC · cpu-clock 99 Hz · 10.0 s · 1,234 samples"). */
void describe_run(const struct record_opts *o, const struct record_stats *st, time_t started, char *buf,
		  size_t cap);
/* One error message: why a recording has no samples. */
void explain_no_samples(const struct record_opts *o, const struct record_stats *st);
/* The summary line on stderr ("scorch: bpf backend, cycles 99 Hz: 1,234
 * samples in 10.0 s, ..."); finish_seconds/finish_cpu: from the end of
 * sampling to the output written (wall, and CPU of all threads). */
void print_summary(const struct record_opts *o, const struct record_stats *st, double finish_seconds,
		   double finish_cpu);
/* "scorch: make exited with status 2" (or "was killed by signal N") when
 * the command failed. */
void print_command_status(const struct record_opts *o, const struct record_stats *st);

#endif
