/* GHC profiling reports, `prog +RTS -p` -> prog.prof (inferno's
 * collapse-ghcprof). The call-centre tree follows a header line whose words
 * start "COST CENTRE MODULE SRC no. entries %time %alloc %time %alloc"; each
 * row is indented one space per level. A frame is "MODULE.COST_CENTRE"; the
 * weight is the row's own (individual) cost: %time by default (in tenths of
 * a percent, truncated), or the ticks or bytes column. Columns are located
 * from the header's character positions. A row out of place is an error. */
#include "collapse/common.h"

#include "base/lines.h"

#include <math.h>

static const char *const header_words[] = {
	"COST", "CENTRE", "MODULE", "SRC", "no.", "entries", "%time", "%alloc", "%time", "%alloc",
};
enum { NR_HEADER_WORDS = sizeof(header_words) / sizeof(header_words[0]) };

enum source { SRC_TIME, SRC_TICKS, SRC_BYTES };

static bool is_header(const char *s, size_t n)
{
	size_t i = 0;
	for (size_t w = 0; w < NR_HEADER_WORDS; w++) {
		while (i < n && cx_is_space(s[i]))
			i++;
		size_t st = i;
		while (i < n && !cx_is_space(s[i]))
			i++;
		size_t wl = strlen(header_words[w]);
		if (i - st != wl || memcmp(s + st, header_words[w], wl))
			return false;
	}
	return true;
}

static size_t find(const char *s, size_t n, const char *word, bool *found)
{
	size_t wl = strlen(word);
	for (size_t i = 0; i + wl <= n; i++)
		if (!memcmp(s + i, word, wl)) {
			*found = true;
			return i;
		}
	*found = false;
	return 0;
}

/* The character after the last non-space before `col` (ticks and bytes
 * values are right-aligned and may be wider than their heading). */
static int end_of_col_before(struct cx_diag *d, size_t lineno, const char *s, size_t n,
			     const char *col, size_t *out)
{
	bool found;
	size_t at = find(s, n, col, &found);
	if (!found)
		return cx_fatal(d, lineno, "Expected '%s' column but it was not present", col);
	while (at > 0 && cx_is_space(s[at - 1]))
		at--;
	if (!at)
		return cx_fatal(d, lineno, "Expected a column before '%s' but there was none", col);
	*out = at;
	return 0;
}

/* Header positions are bytes but rows are cut by characters (names may be
 * UTF-8), as the reference does: skip `col` characters, then spaces, then
 * take the word. */
static void word_at(const char *s, size_t n, size_t col, const char **w, size_t *wl)
{
	size_t i = 0;
	for (size_t c = 0; i < n && c < col; c++) {
		i++;
		while (i < n && ((unsigned char)s[i] & 0xc0) == 0x80)
			i++;
	}
	while (i < n && cx_is_space(s[i]))
		i++;
	size_t st = i;
	while (i < n && !cx_is_space(s[i]))
		i++;
	*w = s + st;
	*wl = i - st;
}

static int probe(const char *head, size_t n)
{
	struct lines it;
	const char *line;
	size_t len;
	lines_init(&it, head, n);
	while (lines_next(&it, &line, &len))
		if (is_header(line, len))
			return 95;
	return 0;
}

static int parse(struct profile *p, const struct collapse_source *src,
		 const struct collapse_opts *opts)
{
	struct cx_diag d;
	cx_diag_init(&d, src, opts);
	enum source source = SRC_TIME;
	const char *col = opts->ghcprof_column;
	if (col && !strcmp(col, "ticks"))
		source = SRC_TICKS;
	else if (col && !strcmp(col, "bytes"))
		source = SRC_BYTES;
	else if (col && strcmp(col, "time"))
		return error("ghcprof: unknown column '%s' (time, ticks or bytes)", col);

	struct lines it;
	const char *line;
	size_t len;
	bool found = false;
	size_t module_col = 0, source_col = 0;
	int ret = 0;
	lines_init(&it, src->data, src->len);
	while (lines_next(&it, &line, &len)) {
		if (!is_header(line, len))
			continue;
		found = true;
		bool f;
		module_col = find(line, len, "MODULE", &f);
		if (source == SRC_TIME)
			source_col = find(line, len, "%time", &f);
		else
			ret = end_of_col_before(&d, it.lineno, line, len,
						source == SRC_TICKS ? "ticks" : "bytes", &source_col);
		break;
	}
	if (!found) {
		warn("%s: File ended before start of call graph (no cost-centre tree header)", d.name);
		return 0;
	}
	if (ret)
		return ret;
	lines_next(&it, &line, &len); /* the blank line under the header */

	struct cx_stack stack = { 0 };
	struct cx_buf b = { 0 };
	while (lines_next(&it, &line, &len)) {
		cx_trim_end(line, &len);
		if (!len)
			break; /* the tree ends at the first blank line */
		size_t depth = 0;
		while (depth < len && line[depth] == ' ')
			depth++;
		if (depth < stack.n) {
			stack.n = depth;
		} else if (depth != stack.n) {
			b.n = 0;
			cx_buf_add(&b, line, len > 200 ? 200 : len);
			ret = cx_fatal(&d, it.lineno, "Skipped indentation level at line: '%s'", b.s);
			break;
		}
		const char *w, *fn, *mod;
		size_t wl, fl, ml;
		word_at(line, len, source_col, &w, &wl);
		double cost;
		if (!cx_parse_f64(w, wl, &cost)) {
			b.n = 0;
			cx_buf_add(&b, w, wl);
			ret = cx_fatal(&d, it.lineno, "Invalid cost field: \"%s\"", b.s);
			break;
		}
		word_at(line, len, 0, &fn, &fl);
		word_at(line, len, module_col, &mod, &ml);
		if (source == SRC_TIME)
			cost *= 10.0; /* tenths of a percent, as integers */
		cost = cost > 0 ? floor(cost) : 0;
		b.n = 0;
		cx_buf_add(&b, mod, ml);
		cx_buf_addc(&b, '.');
		cx_buf_add(&b, fn, fl);
		cx_stack_push(&stack, profile_sym(p, b.s, b.n));
		/* Identical paths from other threads add up. */
		profile_count(p, cx_stack_commit(p, &stack), cost);
	}
	cx_stack_release(&stack);
	cx_buf_release(&b);
	return ret;
}

const struct collapse_format collapse_format_ghcprof = {
	.name = "ghcprof",
	.description = "GHC profiling reports (.prof)",
	.probe = probe,
	.parse = parse,
};
