/* SystemTap stacks (stackcollapse-stap.pl): print_stack()/print_backtrace()
 * lines, leaf first, then a line holding only the count, as the classic
 * profiling one-liner prints them:
 *
 *   probe timer.profile { s[backtrace()] <<< 1 }
 *   probe end { foreach (i in s+) { print_stack(i); printf("\t%d\n", @count(s[i])) } }
 *
 *    0xffffffff8103ce3b : native_safe_halt+0xb/0x10 [kernel]
 *    0xffffffff8101c6a3 : default_idle+0x53/0x1d0 [kernel]
 *   	2404
 *
 * A frame loses its address (everything up to the last " : ") and its
 * offset (from the last '+'); an empty one becomes "-". Counts of equal
 * stacks add up. Unlike the Perl script, a '%' in a name is printed as is
 * (the script passes each output line to printf as the format). */
#include "collapse/common.h"

#include "base/lines.h"

static bool count_line(const char *s, size_t n, uint64_t *count)
{
	while (n && cx_is_space(*s)) {
		s++;
		n--;
	}
	return cx_parse_u64(s, n, count);
}

/* "0xHEX : " at the start of a trimmed line. */
static bool addr_frame(const char *s, size_t n)
{
	if (n < 4 || s[0] != '0' || s[1] != 'x')
		return false;
	size_t i = 2;
	while (i < n && ((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
		i++;
	return i > 2 && i + 3 <= n && !memcmp(s + i, " : ", 3);
}

static int probe(const char *head, size_t n)
{
	struct lines it;
	const char *line;
	size_t len;
	size_t frames = 0;
	lines_init(&it, head, n);
	while (lines_next(&it, &line, &len)) {
		uint64_t c;
		cx_trim(&line, &len);
		if (!len)
			continue;
		if (addr_frame(line, len)) {
			frames++;
			continue;
		}
		if (count_line(line, len, &c))
			return frames ? 85 : 0;
		return 0; /* anything else is not a stap stack */
	}
	return frames ? 40 : 0;
}

static int parse(struct profile *p, const struct collapse_source *src,
		 const struct collapse_opts *opts)
{
	struct cx_diag d;
	cx_diag_init(&d, src, opts);
	struct lines it;
	const char *line;
	size_t len;
	struct cx_stack rev = { 0 }; /* leaf first */
	size_t stack_line = 0;
	int ret = 0;
	lines_init(&it, src->data, src->len);
	while (lines_next(&it, &line, &len)) {
		uint64_t count;
		if (count_line(line, len, &count)) {
			profile_count(p, cx_stack_commit_reversed(p, &rev), (double)count);
			rev.n = 0;
			stack_line = 0;
			continue;
		}
		cx_trim_start(&line, &len);
		size_t n = len;
		cx_trim_end(line, &n);
		if (!n)
			continue;
		if (!stack_line)
			stack_line = it.lineno;
		/* Offset: from the last '+' to the end. */
		for (size_t i = len; i-- > 0;)
			if (line[i] == '+') {
				len = i;
				break;
			}
		/* Address: up to the last " : ". */
		for (size_t i = len; i >= 3; i--)
			if (!memcmp(line + i - 3, " : ", 3)) {
				line += i;
				len -= i;
				break;
			}
		if (len)
			cx_stack_push(&rev, profile_sym(p, line, len));
		else
			cx_stack_push(&rev, profile_sym(p, "-", 1));
	}
	if (rev.n)
		ret = cx_bad(&d, stack_line, "input ends in the middle of a stack (no count line)");
	cx_diag_finish(&d);
	cx_stack_release(&rev);
	return ret;
}

const struct collapse_format collapse_format_stap = {
	.name = "stap",
	.description = "SystemTap print_stack() output with counts (stackcollapse-stap.pl)",
	.probe = probe,
	.parse = parse,
};
