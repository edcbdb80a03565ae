/* DTrace aggregations of stack()/ustack() (stackcollapse.pl, inferno's
 * collapse-dtrace): after a header ending at the first blank line, frames are
 * printed leaf first, one per line, and a line holding only a number ends
 * the stack with its count.
 *
 *   CPU     ID                    FUNCTION:NAME
 *     0  64091                        :tick-60s
 *
 *                 unix`mutex_enter+0x10
 *                 genunix`cv_wait+0x3c
 *                   17
 */
#include "collapse/common.h"

#include "base/lines.h"

#include <stdlib.h>

/* What one frame line holds, found in one pass (inferno's rules). */
struct frame_scan {
	bool inlines, cpp, semicolon;
	size_t len; /* up to the last '+', or all */
};

/* Is there a `a` immediately followed by `b` in s[0..n)? (memchr: the
 * hot path of this format.) */
static bool has_pair(const char *s, size_t n, char a, char b)
{
	const char *p = s, *end = s + n;
	while (p < end && (p = memchr(p, a, (size_t)(end - p))) != NULL) {
		if (p + 1 < end && p[1] == b)
			return true;
		p++;
	}
	return false;
}

static struct frame_scan scan_frame(const char *s, size_t n)
{
	struct frame_scan f;
	f.inlines = has_pair(s, n, '-', '>');
	f.cpp = has_pair(s, n, ':', ':');
	f.semicolon = memchr(s, ';', n) != NULL;
	const char *plus = memrchr(s, '+', n);
	f.len = plus ? (size_t)(plus - s) : n;
	return f;
}

/* The C++ tidy of stackcollapse.pl: after the first "::", cut at the last '(' or
 * '<'. */
static size_t uncpp(const char *s, size_t n)
{
	const char *scope = NULL;
	for (size_t i = 0; i + 1 < n; i++)
		if (s[i] == ':' && s[i + 1] == ':') {
			scope = s + i;
			break;
		}
	if (!scope)
		return n;
	size_t from = (size_t)(scope - s) + 2;
	for (size_t i = n; i-- > from;)
		if (s[i] == '(' || s[i] == '<')
			return i;
	return n;
}

/* Repair half-demangled Rust names after the module's backtick; the frame
 * goes to out (always). */
static void fix_rust(const char *s, size_t n, bool includeoffset, struct cx_buf *out)
{
	const char *tick = memchr(s, '`', n);
	if (tick) {
		size_t plen = (size_t)(tick - s);
		const char *func = tick + 1;
		size_t flen = n - plen - 1;
		size_t start = out->n;
		if (includeoffset) {
			const char *plus = NULL;
			for (size_t i = flen; i-- > 0;)
				if (func[i] == '+') {
					plus = func + i;
					break;
				}
			if (plus) {
				size_t fl = (size_t)(plus - func);
				cx_trim_end(func, &fl);
				cx_buf_add(out, s, plen + 1);
				if (cx_fix_rust_symbol(func, fl, out)) {
					cx_buf_add(out, plus, (size_t)(func + flen - plus));
					return;
				}
				out->n = start;
				cx_buf_add(out, s, n);
				return;
			}
		}
		size_t fl = flen;
		cx_trim_end(func, &fl);
		cx_buf_add(out, s, plen + 1);
		if (cx_fix_rust_symbol(func, fl, out))
			return;
		out->n = start;
	}
	cx_buf_add(out, s, n);
}

struct dtrace_state {
	struct profile *p;
	bool includeoffset;
	struct cx_stack rev; /* frames leaf first: rev.syms[0] is the leaf */
	struct cx_buf name, part;
};

static sym_t intern_part(struct dtrace_state *st, const char *s, size_t n, bool semicolon,
			 bool inlined)
{
	struct cx_buf *b = &st->part;
	b->n = 0;
	cx_buf_add(b, s, n);
	if (semicolon)
		for (size_t i = 0; i < b->n; i++)
			if (b->s[i] == ';')
				b->s[i] = ':';
	if (inlined)
		cx_buf_adds(b, "_[i]");
	return profile_sym(st->p, b->s, b->n);
}

static void on_frame(struct dtrace_state *st, const char *line, size_t n)
{
	struct frame_scan f;
	if (st->includeoffset)
		f = (struct frame_scan){ true, true, true, n };
	else
		f = scan_frame(line, n);
	size_t len = f.len;
	if (f.cpp)
		len = uncpp(line, len);
	struct cx_buf *nm = &st->name;
	nm->n = 0;
	if (len == 0)
		cx_buf_addc(nm, '-');
	else
		fix_rust(line, len, st->includeoffset, nm);

	if (!f.inlines) {
		cx_stack_push(&st->rev, intern_part(st, nm->s, nm->n, f.semicolon, false));
		return;
	}
	/* "a->b->c" (Java inlining): a, b_[i], c_[i] root to leaf; each part
	 * loses its leading 'L's. Pushed in reverse onto the leaf-first list. */
	size_t first_new = st->rev.n;
	const char *s = nm->s, *end = nm->s + nm->n;
	bool inlined = false;
	for (;;) {
		const char *arrow = NULL;
		for (const char *q = s; q + 1 < end; q++)
			if (q[0] == '-' && q[1] == '>') {
				arrow = q;
				break;
			}
		const char *pe = arrow ? arrow : end;
		const char *ps = s;
		while (ps < pe && *ps == 'L')
			ps++;
		cx_stack_push(&st->rev, intern_part(st, ps, (size_t)(pe - ps), f.semicolon, inlined));
		inlined = true;
		if (!arrow)
			break;
		s = arrow + 2;
	}
	/* Reverse the parts just added so the list stays leaf first. */
	for (size_t i = first_new, j = st->rev.n - 1; i < j; i++, j--) {
		sym_t t = st->rev.syms[i];
		st->rev.syms[i] = st->rev.syms[j];
		st->rev.syms[j] = t;
	}
}

static void on_count(struct dtrace_state *st, uint64_t count)
{
	if (st->includeoffset && st->rev.n) {
		/* Offsets are kept on every frame but the leaf. */
		sym_t leaf = st->rev.syms[0];
		const char *s = strpool_str(&st->p->names, leaf);
		size_t n = strpool_len(&st->p->names, leaf);
		st->rev.syms[0] = profile_sym(st->p, s, scan_frame(s, n).len);
	}
	node_t node = cx_stack_commit_reversed(st->p, &st->rev);
	profile_count(st->p, node, (double)count);
	st->rev.n = 0;
}

/* A count line: digits (inferno's usize parse also takes a leading '+'). */
static bool count_line(const char *s, size_t n, uint64_t *count)
{
	if (n && s[0] == '+') {
		s++;
		n--;
	}
	return cx_parse_u64(s, n, count);
}

static int probe(const char *head, size_t n)
{
	struct lines it;
	const char *line;
	size_t len;
	bool seen_blank = false, seen_frame = false;
	lines_init(&it, head, n);
	while (lines_next(&it, &line, &len)) {
		if (it.p >= it.end && head[n - 1] != '\n')
			break; /* the head may cut the last line */
		cx_trim(&line, &len);
		if (!len) {
			seen_blank = true;
			continue;
		}
		if (!seen_blank)
			continue;
		uint64_t c;
		if (count_line(line, len, &c))
			return seen_frame ? 90 : 0;
		if (memchr(line, '`', len)) {
			seen_frame = true;
			continue;
		}
		if (len > 2 && line[0] == '0' && line[1] == 'x') {
			size_t i = 2;
			while (i < len && ((line[i] >= '0' && line[i] <= '9') ||
					   (line[i] >= 'a' && line[i] <= 'f') ||
					   (line[i] >= 'A' && line[i] <= 'F')))
				i++;
			if (i == len) {
				seen_frame = true;
				continue;
			}
		}
		return 0;
	}
	return seen_frame ? 40 : 0;
}

static int parse(struct profile *p, const struct collapse_source *src,
		 const struct collapse_opts *opts)
{
	struct cx_diag d;
	cx_diag_init(&d, src, opts);
	struct dtrace_state st = { .p = p, .includeoffset = opts->include_offsets };
	struct lines it;
	const char *line;
	size_t len;
	int ret = 0;
	lines_init(&it, src->data, src->len);

	bool header = true;
	while (header && lines_next(&it, &line, &len)) {
		cx_trim(&line, &len);
		if (!len)
			header = false;
	}
	if (header) {
		warn("%s: File ended while skipping headers (no blank line ends the DTrace header)", d.name);
		return 0;
	}
	size_t stack_line = 0;
	while (lines_next(&it, &line, &len)) {
		cx_trim(&line, &len);
		if (!len)
			continue;
		uint64_t count;
		if (count_line(line, len, &count)) {
			on_count(&st, count);
			stack_line = 0;
		} else {
			if (!stack_line)
				stack_line = it.lineno;
			on_frame(&st, line, len);
		}
	}
	if (st.rev.n) {
		ret = cx_bad(&d, stack_line, "input ends in the middle of a stack (no count line)");
		st.rev.n = 0;
	}
	cx_diag_finish(&d);
	cx_stack_release(&st.rev);
	cx_buf_release(&st.name);
	cx_buf_release(&st.part);
	return ret;
}

const struct collapse_format collapse_format_dtrace = {
	.name = "dtrace",
	.description = "DTrace stack()/ustack() aggregations (stackcollapse.pl)",
	.probe = probe,
	.parse = parse,
};
