/* Intel VTune top-down CSV (inferno's collapse-vtune), as written by
 *   amplxe-cl -R top-down -call-stack-mode all
 *     -column="CPU Time:Self","Module" -report-out result.csv -format csv
 *     -csv-delimiter comma
 * After the header "Function Stack,CPU Time:Self,Module", each row is a frame
 * indented by one space per level; names with spaces are quoted. Self time
 * in seconds becomes milliseconds (rounded); rows with no self time add
 * nothing. Frames are "module`function", or the function alone with
 * --no-modules. A malformed row breaks the tree and is an error. */
#include "collapse/common.h"

#include "base/lines.h"

#include <math.h>

static const char header[] = "Function Stack,CPU Time:Self,Module";

static const char *show(const char *s, size_t n, struct cx_buf *b)
{
	b->n = 0;
	cx_buf_add(b, s, n > 200 ? 200 : n);
	return b->s;
}

static int probe(const char *head, size_t n)
{
	struct lines it;
	const char *line;
	size_t len;
	lines_init(&it, head, n);
	while (lines_next(&it, &line, &len))
		if (cx_starts(line, len, header))
			return 95;
	return 0;
}

static int parse(struct profile *p, const struct collapse_source *src,
		 const struct collapse_opts *opts)
{
	struct cx_diag d;
	cx_diag_init(&d, src, opts);
	struct lines it;
	const char *line;
	size_t len;
	bool found = false;
	lines_init(&it, src->data, src->len);
	while (lines_next(&it, &line, &len))
		if (cx_starts(line, len, header)) {
			found = true;
			break;
		}
	if (!found) {
		warn("%s: File ended before header \"%s\"", d.name, header);
		return 0;
	}
	struct cx_stack stack = { 0 };
	struct cx_last last = { 0 };
	struct cx_buf b = { 0 }, msg = { 0 };
	int ret = 0;
	while (!ret && lines_next(&it, &line, &len)) {
		cx_trim_end(line, &len);
		if (!len)
			continue;
		size_t spaces = 0;
		while (spaces < len && line[spaces] == ' ')
			spaces++;
		size_t prev = stack.n, depth = spaces + 1;
		if (depth <= prev) {
			stack.n = depth - 1;
		} else if (depth > prev + 1) {
			ret = cx_fatal(&d, it.lineno, "Skipped indentation level at line: '%s'",
				       show(line, len, &msg));
			break;
		}
		const char *s = line + spaces, *end = line + len;
		const char *func, *fend, *rest;
		if (*s == '"') {
			/* Quoted name: up to the first "\",". */
			func = s + 1;
			fend = NULL;
			for (const char *q = func; q + 1 < end; q++)
				if (q[0] == '"' && q[1] == ',') {
					fend = q;
					break;
				}
			rest = fend ? fend + 2 : NULL;
		} else {
			func = s;
			fend = memchr(s, ',', (size_t)(end - s));
			rest = fend ? fend + 1 : NULL;
		}
		const char *tend = rest ? memchr(rest, ',', (size_t)(end - rest)) : NULL;
		if (!rest || (!tend && !opts->no_modules)) {
			ret = cx_fatal(&d, it.lineno, "Unable to parse stack line: '%s'",
				       show(line, len, &msg));
			break;
		}
		if (!tend)
			tend = end;
		double secs;
		if (!cx_parse_f64(rest, (size_t)(tend - rest), &secs)) {
			ret = cx_fatal(&d, it.lineno, "Invalid `CPU Time:Self` field: '%s'",
				       show(rest, (size_t)(tend - rest), &msg));
			break;
		}
		double ms = round(secs * 1000.0);
		if (!(ms > 0))
			ms = 0; /* negative and NaN saturate to 0 as in the reference */
		b.n = 0;
		if (!opts->no_modules && tend + 1 < end) {
			cx_buf_add(&b, tend + 1, (size_t)(end - tend - 1));
			cx_buf_addc(&b, '`');
		}
		cx_buf_add(&b, func, (size_t)(fend - func));
		cx_stack_push(&stack, profile_sym(p, b.s, b.n));
		if (ms > 0)
			cx_last_set(&last, cx_stack_commit(p, &stack), ms);
	}
	if (!ret)
		cx_last_flush(&last, p);
	cx_stack_release(&stack);
	cx_last_release(&last);
	cx_buf_release(&b);
	cx_buf_release(&msg);
	return ret;
}

const struct collapse_format collapse_format_vtune = {
	.name = "vtune",
	.description = "Intel VTune top-down CSV (amplxe-cl -format csv)",
	.probe = probe,
	.parse = parse,
};
