/* bpftrace map dumps of stacks (stackcollapse-bpftrace.pl), as printed at
 * exit by e.g.
 *
 *   bpftrace -e 'profile:hz:99 { @[kstack, ustack, comm] = count(); }'
 *
 *   @[
 *       _raw_spin_unlock_irqrestore+25      <- kernel stack, leaf first
 *       exc_page_fault+374
 *   ,
 *       0x7f52d7b300ba                      <- user stack, leaf first
 *       main+18
 *   , chromium]: 1                          <- last key element and count
 *
 * Each entry becomes one stack, root first: the trailing key element (comm)
 * as the root, then the key's stacks in reverse (user below kernel).
 * Offsets such as "+808" are kept, as the reference keeps them. A
 * single-line entry "@[, X]: N" or "@[X]: N" gives "X N".
 *
 * Differences from the Perl script, which only knows one stack per key:
 * the "," lines that separate the stacks of a multi-stack key are not
 * frames, an entry whose first stack is empty ("@[, ") is read rather than
 * dropped, named maps (@name[...]) are read too, an entry left open when
 * the next one starts is reported rather than swallowing it, and equal
 * stacks are summed and sorted like every collapser's output. */
#include "collapse/common.h"

#include "base/lines.h"

/* "@" [name] "[" at the start of a line: returns the offset after '['. */
static size_t map_open(const char *s, size_t n)
{
	if (!n || s[0] != '@')
		return 0;
	size_t i = 1;
	while (i < n && (s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
			 (s[i] >= '0' && s[i] <= '9')))
		i++;
	return i < n && s[i] == '[' ? i + 1 : 0;
}

/* "...]: COUNT" at the end of a line: *key_len is the text before "]: ". */
static bool map_close(const char *s, size_t n, size_t *key_len, uint64_t *count)
{
	cx_trim_end(s, &n);
	size_t i = n;
	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	if (i == n || i < 3 || memcmp(s + i - 3, "]: ", 3))
		return false;
	if (!cx_parse_u64(s + i, n - i, count))
		return false;
	*key_len = i - 3;
	return true;
}

/* The key text before "]:" on a closing line: ", comm" -> "comm". */
static void key_tail(const char **s, size_t *n)
{
	if (*n && **s == ',') {
		(*s)++;
		(*n)--;
	}
	if (*n && cx_is_space(**s)) {
		(*s)++;
		(*n)--;
	}
}

static int probe(const char *head, size_t n)
{
	struct lines it;
	const char *line;
	size_t len;
	bool open = false;
	size_t frames = 0;
	lines_init(&it, head, n);
	while (lines_next(&it, &line, &len)) {
		size_t kl;
		uint64_t c;
		if (!open) {
			size_t at = map_open(line, len);
			if (!at)
				continue;
			if (map_close(line, len, &kl, &c))
				return 50;
			open = true;
			continue;
		}
		if (map_close(line, len, &kl, &c))
			return frames ? 90 : 50;
		frames++;
	}
	return frames ? 60 : 0;
}

static int parse(struct profile *p, const struct collapse_source *src,
		 const struct collapse_opts *opts)
{
	struct cx_diag d;
	cx_diag_init(&d, src, opts);
	struct lines it;
	const char *line;
	size_t len;
	struct cx_stack rev = { 0 }; /* leaf first, as printed */
	bool open = false;
	size_t open_line = 0;
	int ret = 0;
	lines_init(&it, src->data, src->len);
	while (lines_next(&it, &line, &len)) {
		size_t kl;
		uint64_t count;
		if (open && map_open(line, len)) {
			/* A new entry while one is open: the open one never got its
			 * "]: COUNT" (the script would read on, taking this line as a
			 * frame). */
			ret = cx_bad(&d, open_line, "map entry not closed by ']: COUNT' before line %zu",
				     it.lineno);
			if (ret)
				break;
			open = false;
		}
		if (!open) {
			size_t at = map_open(line, len);
			if (!at)
				continue; /* "Attaching 1 probe...", blank lines, other output */
			if (map_close(line, len, &kl, &count)) {
				const char *k = line + at;
				size_t kn = kl - at;
				key_tail(&k, &kn);
				node_t leaf = kn ? profile_push_str(p, PROFILE_ROOT, k, kn) : PROFILE_ROOT;
				profile_count(p, leaf, (double)count);
				continue;
			}
			const char *rest = line + at;
			size_t rn = len - at;
			cx_trim(&rest, &rn);
			if (rn && !(rn == 1 && rest[0] == ',')) {
				ret = cx_bad(&d, it.lineno, "unexpected text after the map's '[': '%.*s'",
					     (int)(rn > 80 ? 80 : rn), rest);
				if (ret)
					break;
				continue;
			}
			open = true;
			open_line = it.lineno;
			rev.n = 0;
			continue;
		}
		if (map_close(line, len, &kl, &count)) {
			const char *k = line;
			key_tail(&k, &kl);
			if (kl)
				cx_stack_push(&rev, profile_sym(p, k, kl));
			profile_count(p, cx_stack_commit_reversed(p, &rev), (double)count);
			open = false;
			continue;
		}
		cx_trim_start(&line, &len);
		size_t n = len;
		cx_trim_end(line, &n);
		if (!n || (n == 1 && line[0] == ','))
			continue; /* separator between the stacks of one key */
		cx_stack_push(&rev, profile_sym(p, line, len));
	}
	if (!ret && open)
		ret = cx_bad(&d, open_line, "map entry not closed by ']: COUNT' before the end of input");
	cx_diag_finish(&d);
	cx_stack_release(&rev);
	return ret;
}

const struct collapse_format collapse_format_bpftrace = {
	.name = "bpftrace",
	.description = "bpftrace maps keyed by kstack/ustack (stackcollapse-bpftrace.pl)",
	.probe = probe,
	.parse = parse,
};
