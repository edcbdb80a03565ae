/* record -e EVENT: the perf events scorch record can sample by name.
 *
 * cpu-clock and cycles are sampled at a frequency (-F); the others
 * (software events such as page-faults, and tracepoints SYS:NAME) every
 * Nth occurrence (-c N, 1 by default), each sample counting 1. */
#ifndef SCORCH_RECORD_EVENTS_H
#define SCORCH_RECORD_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

struct record_event_spec {
	uint32_t type;          /* PERF_TYPE_SOFTWARE or PERF_TYPE_TRACEPOINT */
	uint64_t config;        /* PERF_COUNT_SW_* or the tracepoint's id */
	char name[128];         /* as given: "page-faults", "sched:sched_switch" */
	const char *countname;  /* a graph's unit: "page faults", "events"... */
	const char *palette;    /* a graph's default palette: "mem", "hot"... */
};

/* The names -e accepts, for messages: "cpu-clock, cycles, ..., or a
 * tracepoint SYS:NAME". */
extern const char record_event_choices[];

/* Is name one of perf's software event names, or shaped as a tracepoint
 * (SYS:NAME, checked by record_event_parse)? Prints nothing: the caller
 * reports an unknown name as a usage error, with record_event_choices. */
bool record_event_known(const char *name);

/* Fill *spec for a software event name (perf's spellings) or a tracepoint
 * SYS:NAME (its id read from tracefs). 0, or -1 after one message. */
int record_event_parse(const char *name, struct record_event_spec *spec);

#endif
