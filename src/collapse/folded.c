/* Already-folded input (bcc profile -f, inferno, other scorch runs): merge
 * duplicate stacks. */
#include "collapse/collapse.h"
#include "profile/folded.h"

#include <stdbool.h>
#include <string.h>

/* How many of the first lines detection reads. */
enum { PROBE_LINES = 16 };

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static int probe(const char *head, size_t n)
{
	/* Most of the first lines (blank lines and '#' comments aside) are
	 * "STACK COUNT" with no leading space: one odd line, a trailing space
	 * (a line flamegraph.pl skips) or a comment, decides nothing. */
	const char *p = head, *end = head + n;
	int lines = 0, folded = 0, with_frames = 0;
	while (p < end && lines < PROBE_LINES) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *line = p;
		p = nl ? nl + 1 : end;
		if (!nl && p == end && line != head && n == 65536)
			break; /* cut by the 64 KiB head: not a whole line */
		while (len && is_blank(line[len - 1]))
			len--;
		if (!len || line[0] == '#')
			continue;
		lines++;
		struct folded_count c;
		size_t stack = len;
		if (line[0] == ' ' || line[0] == '\t' || !folded_take_count(line, &stack, &c) || !stack)
			continue;
		folded++;
		with_frames += memchr(line, ';', stack) != NULL;
	}
	if (!folded || folded * 2 <= lines)
		return 0;
	return with_frames * 2 > folded ? 60 : 30;
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
