/* gdb backtraces, the "poor man's profiler" (stackcollapse-gdb.pl):
 *
 *   for i in $(seq 500); do
 *     gdb -ex "set pagination 0" -ex "thread apply all bt" -batch -p $PID
 *     sleep 0.01
 *   done
 *
 *   Thread 2 (Thread 0x7f67bf1466c0 (LWP 20401) "mt"):
 *   #0  0x0000556178d52160 in spin () at mt.c:5
 *   #1  0x0000556178d52172 in worker (arg=<optimized out>) at mt.c:6
 *   #2  0x00007f67bf1d31f5 in start_thread (arg=<optimized out>) at ...
 *
 * Each thread's frames (leaf first) become one stack counted once; a stack
 * ends at the first line that is neither a frame nor a "Thread" line. The
 * function is the word after "in" when the frame starts with an address,
 * else the frame's first word. The Perl script's exact reading is kept:
 * its pattern wants four words after "#N", a "Thread" line discards the
 * frames gathered so far, and a frame with fewer words names an empty
 * function. */
#include "collapse/common.h"

#include "base/lines.h"

#include <stdlib.h>

/* The function a frame line names, as the script's pattern
 * ^#[0-9]* *([^ ]*) ([^ ]*) ([^ ]*) ([^ ]*) picks it: returns false when
 * the line does not match; *fn may be empty. */
static bool frame_function(const char *s, size_t n, const char **fn, size_t *fl)
{
	if (!n || s[0] != '#')
		return false;
	size_t i = 1;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	size_t k = 0; /* the run of spaces ` *` can take */
	while (i + k < n && s[i + k] == ' ')
		k++;
	const char *r = s + i + k;
	size_t rn = n - i - k;
	/* Greedy try: all k spaces taken, $1 is the first word of the rest. */
	size_t t1 = 0;
	while (t1 < rn && r[t1] != ' ')
		t1++;
	size_t spaces = 0, sp[3] = { 0, 0, 0 };
	for (size_t j = t1; j < rn && spaces < 3; j++)
		if (r[j] == ' ')
			sp[spaces++] = j;
	if (spaces == 3) {
		bool addr = false;
		for (size_t j = 0; j + 1 < t1; j++)
			if (r[j] == '0' && r[j + 1] == 'x') {
				addr = true;
				break;
			}
		if (addr) {
			*fn = r + sp[1] + 1;
			*fl = sp[2] - sp[1] - 1;
		} else {
			*fn = r;
			*fl = t1;
		}
		return true;
	}
	/* Backtracking: ` *` gives spaces back, $1 is then empty. */
	if (k >= 1 && k + spaces >= 3) {
		*fn = r;
		*fl = 0;
		return true;
	}
	return false;
}

/* The script's "$current" string is function;...;leaf, built by
 * prepending. Kept here as a list, leaf first, for linear time: prepending
 * to an empty string replaces it, so a list that reads as "" (nothing, or a
 * single empty name) is replaced by the next function. */
struct gdb_state {
	struct profile *p;
	struct cx_stack cur;
	sym_t empty;
};

static bool reads_empty(const struct gdb_state *st)
{
	return st->cur.n == 0 || (st->cur.n == 1 && st->cur.syms[0] == st->empty);
}

static void push_function(struct gdb_state *st, const char *fn, size_t fl)
{
	if (reads_empty(st))
		st->cur.n = 0;
	cx_stack_push(&st->cur, profile_sym(st->p, fn, fl));
}

static void save(struct gdb_state *st)
{
	if (!reads_empty(st))
		profile_count(st->p, cx_stack_commit_reversed(st->p, &st->cur), 1);
	st->cur.n = 0;
}

static int probe(const char *head, size_t n)
{
	struct lines it;
	const char *line, *fn;
	size_t len, fl;
	bool thread = false;
	size_t frames = 0;
	lines_init(&it, head, n);
	while (lines_next(&it, &line, &len)) {
		if (cx_starts(line, len, "Thread ") && memchr(line, '(', len))
			thread = true;
		else if (len > 1 && line[0] == '#' && line[1] >= '0' && line[1] <= '9' &&
			 frame_function(line, len, &fn, &fl))
			frames++;
	}
	if (thread && frames)
		return 85;
	return frames >= 2 ? 50 : 0;
}

static int parse(struct profile *p, const struct collapse_source *src,
		 const struct collapse_opts *opts)
{
	(void)opts;
	struct gdb_state st = { .p = p, .empty = profile_sym(p, "", 0) };
	struct lines it;
	const char *line, *fn;
	size_t len, fl;
	lines_init(&it, src->data, src->len);
	while (lines_next(&it, &line, &len)) {
		if (cx_starts(line, len, "Thread"))
			st.cur.n = 0;
		else if (frame_function(line, len, &fn, &fl))
			push_function(&st, fn, fl); /* the caller of what came before */
		else
			save(&st);
	}
	save(&st);
	cx_stack_release(&st.cur);
	return 0;
}

const struct collapse_format collapse_format_gdb = {
	.name = "gdb",
	.description = "gdb 'thread apply all bt' dumps (poor man's profiler, stackcollapse-gdb.pl)",
	.probe = probe,
	.parse = parse,
};
