/* record --off-cpu, perf backend: sched_switch samples and switch-in
 * records -> blocked time per stack in the recorder (the profile's shape
 * is in record.h). Records must arrive in time order across CPUs. */
#ifndef SCORCH_RECORD_PERF_OFFCPU_H
#define SCORCH_RECORD_PERF_OFFCPU_H

#include "record/recorder.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where sched_switch's fields sit in its raw sample data (from tracefs). */
struct offcpu_format {
	uint64_t id;              /* the tracepoint's id (perf_event attr.config) */
	uint32_t prev_pid, prev_state, prev_state_size, next_pid;
	uint32_t min_size;        /* raw bytes the fields need */
};

struct offcpu_counts {
	uint64_t filtered;        /* blocks left out by --state/--min/--max-block/-C */
	uint64_t open;            /* threads still blocked at the end */
	uint64_t lost_end;        /* blocks whose switch-in was lost */
};

/* The sched_switch event's filter without --wall: the switch-outs to
 * sleep (S, D: the report bits offcpu_switch_out reads), so the kernel
 * neither copies nor sends the others' stacks (preempted, yielded: about
 * half the switch-outs of a busy machine, dropped in user space anyway).
 * --state is still applied in user space (its blocks counted as filtered). */
#define OFFCPU_SWITCH_FILTER "prev_state & 3"

/* Read the tracepoint's id and field offsets; 0, or -1 after a message. */
int offcpu_format_read(struct offcpu_format *f);

struct offcpu;
struct offcpu *offcpu_new(const struct record_opts *o, struct recorder *r, const struct offcpu_format *fmt);
void offcpu_free(struct offcpu *oc);
/* Is this raw data a sched_switch record (rather than, with --wall, the
 * empty raw data of a cpu-clock sample)? */
bool offcpu_is_switch(const struct offcpu *oc, const void *raw, size_t raw_len);
/* A sched_switch sample, taken in prev's context (its stack). Sets
 * s->off_cpu when it starts a block. */
void offcpu_switch_out(struct offcpu *oc, struct record_sample *s, const void *raw, size_t raw_len);
/* --wall: an on-CPU (cpu-clock) sample; counted unless idle or -C says. */
void offcpu_on_cpu(struct offcpu *oc, const struct record_sample *s);
/* tid runs again at time (a context-switch record, switch-in). */
void offcpu_switch_in(struct offcpu *oc, uint32_t tid, uint64_t time);
/* Sampling ended at end (ns): threads still blocked count up to it. */
void offcpu_finish(struct offcpu *oc, uint64_t end, struct offcpu_counts *counts);

#endif
