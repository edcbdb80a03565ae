/* Visual Studio profiler "Call Tree Summary" CSV (inferno's
 * collapse-vsprof):
 *
 *   Level,Function Name,Number of Calls,Elapsed Inclusive Time %,...,Module Name,
 *   0,"Raytracer.exe",0,100.00,0.00,0.00,0.00,"",
 *   1,"Raytracer.Main()",471,91.25,...
 *   2,"Raytracer.Intersect()","2,893,824",54.37,...
 *
 * The level gives the depth; each stack's weight is the number of calls of
 * its leaf, with a caller's count reduced by its callees' as the tree
 * unwinds (the reference's rule, so that callers are not counted twice).
 * Counts of 1000 or more are quoted with thousands separators, which are
 * checked. A malformed row breaks the tree and is an error. */
#include "collapse/common.h"

#include "base/alloc.h"
#include "base/lines.h"

#include <stdlib.h>

static const char header[] =
	"Level,Function Name,Number of Calls,Elapsed Inclusive Time %,Elapsed Exclusive Time %,"
	"Avg Elapsed Inclusive Time,Avg Elapsed Exclusive Time,Module Name,";

struct vs_frame {
	sym_t name;
	uint64_t calls;
};

struct vs_state {
	struct profile *p;
	struct vs_frame *stack;
	size_t n, alloc;
	struct cx_last last;
	struct cx_stack syms;
	struct cx_buf msg;
};

static const char *show(const char *s, size_t n, struct cx_buf *b)
{
	b->n = 0;
	cx_buf_add(b, s, n > 200 ? 200 : n);
	return b->s;
}

static bool header_line(const char *s, size_t n)
{
	cx_trim(&s, &n);
	while (n >= 3 && (unsigned char)s[0] == 0xef && (unsigned char)s[1] == 0xbb &&
	       (unsigned char)s[2] == 0xbf) {
		s += 3;
		n -= 3;
	}
	return cx_starts(s, n, header);
}

/* A number at the start of s (after an optional comma): plain "471," or
 * quoted with separators "\"2,893,824\",". Advances *s past it and its
 * trailing comma. Returns 0, 1 when there is no field separator (missing
 * field), -1 when the number is malformed. */
static int next_number(const char **s, const char *end, uint64_t *out, const char **bad,
		       size_t *bad_len)
{
	const char *p = *s;
	if (p < end && *p == ',')
		p++;
	const char *num, *num_end, *after;
	bool quoted = p < end && *p == '"';
	if (quoted) {
		num = p + 1;
		num_end = memchr(num, '"', (size_t)(end - num));
		if (!num_end)
			return 1;
		after = num_end + 1;
		if (after < end && *after == ',')
			after++;
	} else {
		num = p;
		num_end = memchr(num, ',', (size_t)(end - num));
		if (!num_end)
			return 1;
		after = num_end + 1;
	}
	*bad = num;
	*bad_len = (size_t)(num_end - num);
	/* Groups of digits split by any other byte: the first 1-3 digits,
	 * the others exactly 3. */
	uint64_t v = 0;
	bool first = true;
	const char *g = num;
	for (;;) {
		const char *ge = g;
		while (ge < num_end && *ge >= '0' && *ge <= '9')
			ge++;
		size_t gl = (size_t)(ge - g);
		if (gl == 0 || (first && gl > 3) || (!first && gl != 3))
			return -1;
		uint64_t gv;
		if (!cx_parse_u64(g, gl, &gv) || v > (UINT64_MAX - gv) / 1000)
			return -1;
		v = v * 1000 + gv;
		first = false;
		if (ge == num_end)
			break;
		g = ge + 1;
		if (g > num_end)
			return -1;
	}
	*out = v;
	*s = after;
	return 0;
}

static void write_stack(struct vs_state *st)
{
	if (!st->n || st->stack[st->n - 1].calls == 0)
		return;
	st->syms.n = 0;
	for (size_t i = 0; i < st->n; i++)
		cx_stack_push(&st->syms, st->stack[i].name);
	cx_last_set(&st->last, cx_stack_commit(st->p, &st->syms), (double)st->stack[st->n - 1].calls);
}

static int on_line(struct vs_state *st, struct cx_diag *d, size_t lineno, const char *line,
		   size_t len)
{
	const char *s = line, *end = line + len, *bad;
	size_t bad_len;
	uint64_t depth, calls;
	int r = next_number(&s, end, &depth, &bad, &bad_len);
	if (r > 0)
		return cx_fatal(d, lineno, "Missing function name in line: '%s'",
				show(line, len, &st->msg));
	if (r < 0)
		return cx_fatal(d, lineno, "Unable to parse integer from '%s'",
				show(bad, bad_len, &st->msg));
	const char *close = s < end && *s == '"' ? memchr(s + 1, '"', (size_t)(end - s - 1)) : NULL;
	if (!close)
		return cx_fatal(d, lineno, "Unable to parse function name from line: '%s'",
				show(line, len, &st->msg));
	sym_t name = profile_sym(st->p, s + 1, (size_t)(close - s - 1));
	s = close + 1;
	r = next_number(&s, end, &calls, &bad, &bad_len);
	if (r > 0)
		return cx_fatal(d, lineno, "Unable to parse integer from line: '%s'",
				show(line, len, &st->msg));
	if (r < 0)
		return cx_fatal(d, lineno, "Unable to parse integer from '%s'",
				show(bad, bad_len, &st->msg));

	size_t prev = st->n;
	if (prev < depth) {
		if (prev + 1 != depth)
			return cx_fatal(d, lineno, "Skipped indentation level at line: '%s'",
					show(line, len, &st->msg));
	} else if (prev == depth) {
		write_stack(st);
		if (st->n)
			st->n--;
	} else {
		/* Unwind to the parent, writing each finished stack and taking
		 * a callee's calls off its caller. */
		uint64_t prev_calls = 0;
		for (size_t k = 0; k < prev - depth + 1; k++) {
			if (prev_calls != st->stack[st->n - 1].calls)
				write_stack(st);
			prev_calls = st->stack[--st->n].calls;
			if (!st->n)
				break;
			if (prev_calls < st->stack[st->n - 1].calls)
				st->stack[st->n - 1].calls -= prev_calls;
		}
	}
	VEC_GROW(st->stack, st->n + 1, st->alloc);
	st->stack[st->n++] = (struct vs_frame){ name, calls };
	return 0;
}

static int probe(const char *head, size_t n)
{
	const char *nl = memchr(head, '\n', n);
	return header_line(head, nl ? (size_t)(nl - head) : n) ? 95 : 0;
}

static int parse(struct profile *p, const struct collapse_source *src,
		 const struct collapse_opts *opts)
{
	struct cx_diag d;
	cx_diag_init(&d, src, opts);
	struct lines it;
	const char *line;
	size_t len;
	lines_init(&it, src->data, src->len);
	if (!lines_next(&it, &line, &len)) {
		warn("%s: File ended before start of call graph (empty input)", d.name);
		return 0;
	}
	struct vs_state st = { .p = p };
	int ret = 0;
	if (!header_line(line, len))
		ret = cx_fatal(&d, 1, "Expected first line to be header line '%s', found '%s'",
			       header, show(line, len, &st.msg));
	while (!ret && lines_next(&it, &line, &len)) {
		cx_trim_end(line, &len);
		if (len)
			ret = on_line(&st, &d, it.lineno, line, len);
	}
	if (!ret) {
		write_stack(&st);
		cx_last_flush(&st.last, p);
	}
	free(st.stack);
	cx_stack_release(&st.syms);
	cx_last_release(&st.last);
	cx_buf_release(&st.msg);
	return ret;
}

const struct collapse_format collapse_format_vsprof = {
	.name = "vsprof",
	.description = "Visual Studio profiler call tree summary CSV",
	.probe = probe,
	.parse = parse,
};
