/* perf_event attributes and opening (record-private), for both backends:
 * the sampling event's attributes, the user stack copy (DWARF), opening
 * with the fix explained when the kernel refuses, and the choice of
 * cycles or cpu-clock ("try cycles, fall back to cpu-clock", once). */
#ifndef SCORCH_RECORD_PERF_ATTR_H
#define SCORCH_RECORD_PERF_ATTR_H

#include "record/record.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct perf_event_attr;

/* The sampling event (cycles or cpu-clock at -F, or the -e event every
 * -c), frame-pointer callchains, on CLOCK_MONOTONIC. */
void record_fill_attr(struct perf_event_attr *attr, const struct record_opts *opts, bool cycles);
/* Ask for the user registers and a copy of the user stack (DWARF). */
void record_attr_user_stack(struct perf_event_attr *attr, const struct record_opts *opts);
uint64_t record_user_regs_mask(void);
int record_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group, unsigned long flags);
/* Explain a perf_event_open failure (errno) with the fix; returns -1. */
int record_perf_error(int err, const char *what);
/* perf_event_open refused task (EACCES/EPERM): when it belongs to another
 * user, say what is missing and return -1; 0 when the task is ours. */
int record_refused_other_user(pid_t task);

/* Cycles or cpu-clock: -e says, or (auto) cycles until the first open
 * says there is no PMU for it. */
struct event_choice {
	bool cycles;  /* what to open now */
	bool probing; /* auto, and no event opened yet */
};
void event_choice_init(struct event_choice *c, const struct record_opts *o);
/* The open of the event failed with err: true when it should be tried
 * again with cpu-clock (after a notice, unless quiet). Any other outcome
 * ends the probing. */
bool event_choice_retry(struct event_choice *c, const struct record_opts *o, bool failed, int err);
/* stats->event's name for what was opened. */
const char *event_choice_name(const struct event_choice *c, const struct record_opts *o);

#endif
