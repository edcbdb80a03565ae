/* One line of `perf script` text, classified the way stackcollapse-perf.pl
 * classifies it, without regexes: each matcher below reproduces what the
 * script's regex (including its backtracking) captures, written out as
 * * byte scans. The rules are described in shared/reference/flamegraph-pl.md
 * section 3; the comments name the regex each function stands for.
 *
 * "Whitespace" is Perl's \s on bytes: space, \t, \n, \r, \f, \v. "Word" is
 * \w: [A-Za-z0-9_]. Lines are passed without their '\n' but with any '\r'
 * (the script only chomps "\n"). */
#ifndef SCORCH_COLLAPSE_PERF_LINE_H
#define SCORCH_COLLAPSE_PERF_LINE_H

#include "profile/frame_rules.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An event (sample header) line: ^(\S.+?)\s+(\d+)\/{0,}(\d+){0,}\s+ and, on the
 * same line, :\s*(\d+){0,}\s+(\S+):\s*$ for the period and event name. */
struct perf_event_line {
	struct frame_slice comm;
	struct frame_slice first;  /* $2: the tid, or the pid when two numbers */
	struct frame_slice second; /* $3: the tid after '/', n == 0 when absent */
	bool has_event;           /* the event-name regex matched */
	struct frame_slice event;  /* event name with modifiers, e.g. cpu-clock:pppH */
	struct frame_slice period; /* digits before the event, n == 0 when absent */
};

bool perf_match_event_line(const char *s, size_t n, struct perf_event_line *ev);

/* A stack frame line: ^\s*(\w+)\s*(.+) \((.*)\) */
bool perf_match_frame_line(const char *s, size_t n, struct frame_text *fr);

/* Only the event-name part, for a line already known to be an event line. */
bool perf_match_event_name(const char *s, size_t n, struct perf_event_line *ev);

/* The sample's timestamp (the token ending in the ':' before the period
 * and event name: perf's "seconds.micros:") as ns; false when the line
 * has none. line: where the event line starts. */
bool perf_event_time(const char *line, const struct perf_event_line *ev, uint64_t *ns);

/* The sample weight: the period, or 1 when it is absent or "0". False
 * (and *v saturated) when it passes 2^64 - 1. */
bool perf_period(const struct perf_event_line *ev, uint64_t *v);

#endif
