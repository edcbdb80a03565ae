/* Already-folded input (bcc profile -f, inferno, other scorch runs): merge
 * duplicate stacks. */
#include "collapse/collapse.h"
#include "profile/folded.h"

#include <string.h>

static int probe(const char *head, size_t n)
{
	/* The first non-blank line ends in " COUNT" and has no leading space. */
	const char *p = head, *end = head + n;
	while (p < end && (*p == '\n' || *p == '\r'))
		p++;
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
	if (len && p[len - 1] == '\r')
		len--;
	if (!len || p[0] == ' ' || p[0] == '\t')
		return 0;
	struct folded_count c;
	size_t stack = len;
	if (!folded_take_count(p, &stack, &c) || stack == 0)
		return 0;
	return memchr(p, ';', stack) ? 60 : 30;
}

static int parse(struct profile *p, const struct collapse_source *src,
		 const struct collapse_opts *opts)
{
	struct folded_opts fo = { .strict = opts->strict };
	struct folded_stats st = { 0 };
	return folded_parse(p, src->name, src->data, src->len, &fo, &st);
}

const struct collapse_format collapse_format_folded = {
	.name = "folded",
	.description = "folded stacks (bcc profile -f, inferno, scorch): merge duplicates",
	.probe = probe,
	.parse = parse,
};
