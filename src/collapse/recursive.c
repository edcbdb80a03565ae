/* stackcollapse-recursive: folded stacks in, folded stacks out, with runs of
 * the same frame merged into one (main;rec;rec;rec;leaf -> main;rec;leaf),
 * counts summed. Lines are read with flamegraph.pl's count rule (one count;
 * fractions allowed); a line without a count is reported and skipped, and an
 * empty or "0" stack is skipped as the Perl script's truth test does. */
#include "collapse/common.h"

#include "base/lines.h"
#include "profile/folded.h"

static int probe(const char *head, size_t n)
{
	(void)head;
	(void)n;
	return 0; /* a transformation of folded input: only when asked for */
}

static int parse(struct profile *p, const struct collapse_source *src,
		 const struct collapse_opts *opts)
{
	struct cx_diag d;
	cx_diag_init(&d, src, opts);
	struct lines it;
	const char *line;
	size_t len;
	int ret = 0;
	lines_init(&it, src->data, src->len);
	while (lines_next(&it, &line, &len)) {
		struct folded_count count;
		size_t stack_len = len;
		size_t blank = len;
		cx_trim_end(line, &blank);
		if (!blank)
			continue;
		if (!folded_take_count(line, &stack_len, &count)) {
			ret = cx_bad(&d, it.lineno, "expected 'STACK COUNT', found '%.*s'",
				     (int)(len > 80 ? 80 : len), line);
			if (ret)
				break;
			continue;
		}
		if (stack_len == 0 || (stack_len == 1 && line[0] == '0'))
			continue;
		/* Split on ';' (Perl's split drops trailing empty fields). */
		size_t end = stack_len;
		while (end && line[end - 1] == ';')
			end--;
		node_t node = PROFILE_ROOT;
		const char *s = line, *e = line + end, *prev = NULL;
		size_t prev_len = 0;
		for (;;) {
			const char *semi = memchr(s, ';', (size_t)(e - s));
			const char *fe = semi ? semi : e;
			size_t fl = (size_t)(fe - s);
			if (!prev || fl != prev_len || memcmp(prev, s, fl))
				node = profile_push_str(p, node, s, fl);
			prev = s;
			prev_len = fl;
			if (!semi)
				break;
			s = semi + 1;
		}
		ret = folded_add(p, node, &count, &count, src->name, it.lineno);
		if (ret)
			break;
	}
	cx_diag_finish(&d);
	return ret;
}

const struct collapse_format collapse_format_recursive = {
	.name = "recursive",
	.description = "folded stacks with direct recursion merged (stackcollapse-recursive)",
	.probe = probe,
	.parse = parse,
};
