/* One line of `perf script` text, classified the way stackcollapse-perf.pl
 * classifies it, without regexes: each matcher below reproduces what the
 * script's regex (including its backtracking) captures, written out as
 * byte scans. The rules are described in shared/reference/flamegraph-pl.md
 * section 3; the comments name the regex each function stands for.
 *
 * "Whitespace" is Perl's \s on bytes: space, \t, \n, \r, \f, \v. "Word" is
 * \w: [A-Za-z0-9_]. Lines are passed without their '\n' but with any '\r'
 * (the script only chomps "\n"). */
#ifndef SCORCH_COLLAPSE_PERF_LINE_H
#define SCORCH_COLLAPSE_PERF_LINE_H

#include <stdbool.h>
#include <stddef.h>

struct perf_slice {
	const char *s;
	size_t n;
};

/* An event (sample header) line: ^(\S.+?)\s+(\d+)\/{0,}(\d+){0,}\s+ and, on the
 * same line, :\s*(\d+){0,}\s+(\S+):\s*$ for the period and event name. */
struct perf_event_line {
	struct perf_slice comm;
	struct perf_slice first;  /* $2: the tid, or the pid when two numbers */
	struct perf_slice second; /* $3: the tid after '/', n == 0 when absent */
	bool has_event;           /* the event-name regex matched */
	struct perf_slice event;  /* event name with modifiers, e.g. cpu-clock:pppH */
	struct perf_slice period; /* digits before the event, n == 0 when absent */
};

/* A stack frame line: ^\s*(\w+)\s*(.+) \((.*)\) */
struct perf_frame_line {
	struct perf_slice pc, rawfunc, module;
};

static inline bool perf_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static inline bool perf_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

bool perf_match_event_line(const char *s, size_t n, struct perf_event_line *ev);
bool perf_match_frame_line(const char *s, size_t n, struct perf_frame_line *fr);

/* Only the event-name part, for a line already known to be an event line. */
bool perf_match_event_name(const char *s, size_t n, struct perf_event_line *ev);

/* Options that change how a frame line becomes frame names. */
struct perf_tidy_opts {
	bool kernel, jit, addrs;
	bool java; /* the process name starts with "java" */
};

/* A growing byte buffer for frame names built from one line. */
struct perf_parts {
	char *buf;
	size_t len, alloc;
	size_t *ends; /* end offset in buf of each part */
	size_t nr, nr_alloc;
	size_t first_unknown; /* set by perf_frame_names: index of the first
			       * part that was an [unknown] symbol, or SIZE_MAX */
};

void perf_parts_release(struct perf_parts *pp);

/* The frame processing of the script (flamegraph-pl.md section 3.3 steps
 * 2-5): strip a +0x offset, drop frames starting with '(', split perf's
 * inline chains at "->", rename [unknown], tidy (';' -> ':', argument lists,
 * quotes, Java), annotate. Appends each resulting frame to pp, in the order
 * written on the line. Returns false when the script skips the line (the
 * symbol starts with '('); the parts appended then are none. */
bool perf_frame_names(const struct perf_frame_line *fr, const struct perf_tidy_opts *o,
		      struct perf_parts *pp);

/* The length of a symbol without a trailing +0x<lowercase hex> offset. */
size_t perf_strip_offset(const char *s, size_t n);

/* Append one part, or append text to the last part. */
void perf_parts_push(struct perf_parts *pp, const char *s, size_t n);
void perf_parts_append_last(struct perf_parts *pp, const char *s, size_t n);

static inline struct perf_slice perf_part(const struct perf_parts *pp, size_t i)
{
	size_t start = i ? pp->ends[i - 1] : 0;
	return (struct perf_slice){ pp->buf + start, pp->ends[i] - start };
}

/* The process-name frame: comm, comm-PID or comm-PID/TID (with "?" for a
 * missing pid, and a tid of "0" read as absent, as Perl's truth test does),
 * spaces turned into '_'. Writes into pp as one new part. */
void perf_pname(const struct perf_event_line *ev, bool pid, bool tid, struct perf_parts *pp);

/* The sample weight: the period, or 1 when it is absent or "0". */
double perf_period(const struct perf_event_line *ev);

/* --srcline: the source line read after a frame, cleaned as the script does
 * (every [...] group deleted, then trimmed). Appends ":SRC" to the last part
 * when something is left. */
void perf_append_srcline(struct perf_parts *pp, const char *s, size_t n);

/* --inline applies only to modules that are not perf maps, kernel images or
 * [bracketed] pseudo-modules: (perf-\d+.map|kernel\.|\[[^\]]+\]). */
bool perf_inline_applies(const char *mod, size_t n);

#endif
