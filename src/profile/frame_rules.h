/* The classic stackcollapse-perf.pl frame rules, in one place: how a
 * sample's thread and frames become folded frame names. `collapse perf`
 * (from perf script text), `report` (from perf.data) and `record` (from
 * its own samples) all hand these functions structured frames and get the
 * names `perf script | stackcollapse-perf.pl` would print for the same
 * sample. The rules are described in shared/reference/flamegraph-pl.md
 * section 3.3; each function names the Perl expression it stands for.
 *
 * "Whitespace" is Perl's \s on bytes: space, \t, \n, \r, \f, \v. */
#ifndef SCORCH_PROFILE_FRAME_RULES_H
#define SCORCH_PROFILE_FRAME_RULES_H

#include <stdbool.h>
#include <stddef.h>

struct frame_slice {
	const char *s;
	size_t n;
};

/* One frame as perf script prints it: "PC SYMBOL (MODULE)". The symbol may
 * carry perf's +0x<offset>; the pc is the text [unknown <PC>] shows. */
struct frame_text {
	struct frame_slice pc, symbol, module;
};

/* Options that change how a frame becomes frame names. */
struct frame_opts {
	bool kernel, jit, addrs; /* _[k], _[j], [unknown <PC>] */
	bool java;               /* the process name starts with "java" */
};

/* A growing byte buffer for the frame names built from one frame. */
struct frame_parts {
	char *buf;
	size_t len, alloc;
	size_t *ends; /* end offset in buf of each part */
	size_t nr, nr_alloc;
	size_t first_unknown; /* set by frame_names: index of the first part
			       * that was an [unknown] symbol, or SIZE_MAX */
};

static inline bool frame_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static inline bool frame_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

void frame_parts_release(struct frame_parts *pp);

/* Append one part, or append text to the last part. */
void frame_parts_push(struct frame_parts *pp, const char *s, size_t n);
void frame_parts_append_last(struct frame_parts *pp, const char *s, size_t n);

static inline struct frame_slice frame_part(const struct frame_parts *pp, size_t i)
{
	size_t start = i ? pp->ends[i - 1] : 0;
	return (struct frame_slice){ pp->buf + start, pp->ends[i] - start };
}

/* The script's frame processing (steps 2-5): strip a +0x offset, drop
 * frames starting with '(', split perf's inline chains at "->", rename
 * [unknown], tidy (';' -> ':', argument lists unless a Go method, quotes,
 * Java), annotate (_[k], _[j], _[i]). Appends each resulting name to pp, in
 * the order written on the line (outermost inline caller first). Returns
 * false when the script drops the frame (nothing appended). */
bool frame_names(const struct frame_text *fr, const struct frame_opts *o, struct frame_parts *pp);

/* A frame as report and record hold it: the fields perf script prints as
 * "PC SYMBOL+0xOFFSET (MODULE)" ("PC [unknown] (MODULE)" without a
 * symbol). */
struct frame_fields {
	const char *symbol; /* NULL: unknown */
	unsigned long long offset;
	const char *module;
	unsigned long long pc;
};

/* frame_names for a structured frame: the names the script gives the line
 * perf script prints for it, without building that line. Only a module
 * holding " (" needs the line (the script's regex then moves text from the
 * module into the symbol): it is built in *scratch (grown as needed, freed
 * by the caller). */
bool frame_names_of(const struct frame_fields *fr, const struct frame_opts *o, struct frame_parts *pp,
		    char **scratch, size_t *scratch_alloc);

/* The length of a symbol without a trailing +0x<lowercase hex> offset. */
size_t frame_strip_offset(const char *s, size_t n);

/* The sample header regex of the script, ^(\S.+?)\s+(\d+)\/{0,}(\d+){0,}\s+ ,
 * which decides the process name: comm, $2 and $3 (n == 0 when absent). */
bool frame_match_header(const char *s, size_t n, struct frame_slice *comm, struct frame_slice *first,
			struct frame_slice *second);

/* The process-name frame: comm, comm-PID or comm-PID/TID, from the header
 * regex's groups ($2 the tid, or the pid when $3 holds the tid; "?" for a
 * missing pid, and a tid of "0" read as absent, as Perl's truth test does),
 * spaces turned into '_'. Appends one part. */
void frame_pname(struct frame_slice comm, struct frame_slice first, struct frame_slice second, bool pid,
		 bool tid, struct frame_parts *pp);

/* The process-name frame of a thread, read as the script reads perf
 * script's header "COMM TID " (or "COMM PID/TID " with have_pid, as
 * perf script -F +pid prints): the header regex decides what is comm and
 * what are numbers, then frame_pname. A comm of two or more bytes without
 * whitespace and ids >= 0 are what the regex captures as they are; only
 * other comms are matched as header text. Appends one part; false (nothing
 * appended) when the regex does not match that text, or would need to
 * cross a line (a comm holding '\n'). */
bool frame_thread_pname(const char *comm, long long pid, long long tid, bool have_pid, bool opt_pid,
			bool opt_tid, struct frame_parts *pp);

/* The script's Java test on a process name. */
static inline bool frame_pname_is_java(const char *s, size_t n)
{
	return n >= 4 && s[0] == 'j' && s[1] == 'a' && s[2] == 'v' && s[3] == 'a';
}

/* --srcline: the source line read after a frame, cleaned as the script does
 * (every [...] group deleted, then trimmed). Appends ":SRC" to the last part
 * when something is left. */
void frame_append_srcline(struct frame_parts *pp, const char *s, size_t n);

/* --inline applies only to modules that are not perf maps, kernel images or
 * [bracketed] pseudo-modules: !~ (perf-\d+.map|kernel\.|\[[^\]]+\]). */
bool frame_inline_applies(const char *mod, size_t n);

/* The script's test on addr2line's answer: empty, "??" or "??:??:0" keep
 * the frame as it was. */
bool frame_inline_usable(const char *answer, size_t n);

#endif
