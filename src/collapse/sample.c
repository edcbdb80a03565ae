/* macOS `sample` reports (inferno's collapse-sample): the call tree between
 * "Call graph:" and "Total number in stack", one frame per line, indented by
 * two characters of " +|:!" per level after four spaces, each line starting
 * with its inclusive sample count:
 *
 *   Call graph:
 *       825 Thread_15758535
 *       + 825 thread_start  (in libsystem_pthread.dylib) + 13  [0x7fff739c240d]
 *       +   825 _pthread_start  (in libsystem_pthread.dylib) + 66  [0x7fff739c6249]
 *   Total number in stack (recursive counted multiple, when >=5):
 *
 * Every leaf of the tree becomes one stack with the leaf's count, except
 * leaves that are idle waits (a fixed list of symbols). A frame is
 * "module`function" (".dylib" dropped), or the function alone with
 * --no-modules. The tree's structure must be intact: a malformed line is an
 * error, as in the reference. */
#include "collapse/common.h"

#include "base/lines.h"

static const char *const idle_symbols[] = {
	"__psynch_cvwait", "__select", "__semwait_signal", "__ulock_wait",
	"__wait4", "__workq_kernreturn", "kevent", "mach_msg_trap", "read",
	"semaphore_wait_trap",
};

static const char start_line[] = "Call graph:";
static const char end_line[] = "Total number in stack";

struct sample_state {
	struct profile *p;
	bool no_modules;
	struct cx_stack stack;
	double current;
	struct cx_last last;
	struct cx_buf buf;
};

static bool is_indent(char c)
{
	return c == ' ' || c == '+' || c == '|' || c == ':' || c == '!';
}

static void write_stack(struct sample_state *st)
{
	if (st->stack.n) {
		sym_t leaf = st->stack.syms[st->stack.n - 1];
		const char *s = strpool_str(&st->p->names, leaf);
		size_t n = strpool_len(&st->p->names, leaf);
		for (size_t i = 0; i < sizeof(idle_symbols) / sizeof(idle_symbols[0]); i++)
			if (cx_ends(s, n, idle_symbols[i]))
				return;
	}
	cx_last_set(&st->last, cx_stack_commit(st->p, &st->stack), st->current);
}

static const char *show(const char *s, size_t n, struct cx_buf *b)
{
	b->n = 0;
	cx_buf_add(b, s, n > 200 ? 200 : n);
	return b->s;
}

/* One call-graph line: "    [indent]COUNT FUNC  (in MODULE) + OFF  [ADDR]". */
static int on_line(struct sample_state *st, struct cx_diag *d, size_t lineno,
		   const char *line, size_t n)
{
	size_t ind = 4;
	while (ind < n && is_indent(line[ind]))
		ind++;
	if (ind == n)
		return cx_fatal(d, lineno, "Found stack line with only indent characters: '%s'",
				show(line, n, &st->buf));
	size_t indent = ind - 4;
	if (indent % 2)
		return cx_fatal(d, lineno, "Odd number of indentation characters for line: '%s'",
				show(line, n, &st->buf));
	size_t prev = st->stack.n, depth = indent / 2 + 1;
	if (depth <= prev) {
		write_stack(st);
		st->stack.n = depth - 1;
	} else if (depth > prev + 1) {
		return cx_fatal(d, lineno, "Skipped indentation level at line: '%s'",
				show(line, n, &st->buf));
	}

	const char *s = line + ind;
	size_t len = n - ind;
	cx_trim_start(&s, &len);
	const char *sp = memchr(s, ' ', len);
	if (!sp)
		return cx_fatal(d, lineno, "Unable to parse stack line: '%s'", show(line, n, &st->buf));
	size_t tlen = (size_t)(sp - s);
	cx_trim_end(s, &tlen);
	const char *rest = sp + 1;
	size_t rlen = len - (size_t)(rest - s);

	const char *paren = memchr(rest, '(', rlen);
	size_t flen = paren ? (size_t)(paren - rest) : rlen;
	cx_trim_end(rest, &flen);

	const char *mod = NULL;
	size_t mlen = 0;
	if (!st->no_modules) {
		/* The text after the last "(in ", up to its first ')'. */
		const char *after = rest;
		for (const char *q = rest; q + 4 <= rest + rlen; q++)
			if (!memcmp(q, "(in ", 4))
				after = q + 4;
		const char *close = memchr(after, ')', (size_t)(rest + rlen - after));
		if (close) {
			mod = after;
			mlen = (size_t)(close - after);
			if (cx_ends(mod, mlen, ".dylib"))
				mlen -= 6;
		}
	}

	uint64_t samples;
	if (!cx_parse_u64(s, tlen, &samples))
		return cx_fatal(d, lineno, "Invalid samples field: '%s'", show(s, tlen, &st->buf));
	st->current = (double)samples;

	struct cx_buf *b = &st->buf;
	b->n = 0;
	if (mlen) {
		cx_buf_add(b, mod, mlen);
		cx_buf_addc(b, '`');
	}
	if (!cx_fix_rust_symbol(rest, flen, b))
		cx_buf_add(b, rest, flen);
	cx_stack_push(&st->stack, profile_sym(st->p, b->s, b->n));
	return 0;
}

static int probe(const char *head, size_t n)
{
	struct lines it;
	const char *line;
	size_t len;
	bool started = false;
	lines_init(&it, head, n);
	while (lines_next(&it, &line, &len)) {
		if (cx_starts(line, len, start_line))
			started = true;
		else if (cx_starts(line, len, end_line))
			return started ? 95 : 0;
	}
	return started ? 80 : 0;
}

static int parse(struct profile *p, const struct collapse_source *src,
		 const struct collapse_opts *opts)
{
	struct cx_diag d;
	cx_diag_init(&d, src, opts);
	struct sample_state st = { .p = p, .no_modules = opts->no_modules };
	struct lines it;
	const char *line;
	size_t len;
	int ret = 0;
	bool started = false, ended = false;
	lines_init(&it, src->data, src->len);
	while (lines_next(&it, &line, &len))
		if (cx_starts(line, len, start_line)) {
			started = true;
			break;
		}
	if (!started) {
		warn("%s: File ended before start of call graph (no \"%s\" line)", d.name,
		     start_line);
		return 0;
	}
	while (!ret && lines_next(&it, &line, &len)) {
		cx_trim_end(line, &len);
		if (!len)
			continue;
		if (cx_starts(line, len, "    ")) {
			ret = on_line(&st, &d, it.lineno, line, len);
		} else if (cx_starts(line, len, end_line)) {
			write_stack(&st);
			ended = true;
			break;
		} else {
			ret = cx_fatal(&d, it.lineno, "Stack line doesn't start with 4 spaces: '%s'",
				       show(line, len, &st.buf));
		}
	}
	if (!ret && !ended)
		ret = cx_fatal(&d, it.lineno, "File ended before end of call graph (no \"%s\" line)",
			       end_line);
	if (!ret)
		cx_last_flush(&st.last, p);
	cx_stack_release(&st.stack);
	cx_last_release(&st.last);
	cx_buf_release(&st.buf);
	return ret;
}

const struct collapse_format collapse_format_sample = {
	.name = "sample",
	.description = "macOS sample call graphs",
	.probe = probe,
	.parse = parse,
};
