/* perf script line matchers and frame tidying; see perf_line.h. Each
 * function states the regex it stands for and why the scan finds the same
 * match as Perl's backtracking engine. */
#include "collapse/perf_line.h"

#include "base/alloc.h"
#include "profile/time_ranges.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || frame_is_digit(c) || c == '_';
}

/* :\s*(\d+){0,}\s+(\S+):\s*$
 * (\S+): followed by optional whitespace to the end means the last
 * whitespace-separated token (trailing whitespace ignored) ends in ':' and
 * has at least one byte before it; \s+ before it pins (\S+) to the token's
 * start. Between the earlier ':' and the token there must be exactly
 * \s* digits* \s+, which a backward scan of maximal runs decides. */
bool perf_match_event_name(const char *s, size_t n, struct perf_event_line *ev)
{
	ev->has_event = false;
	ev->event = (struct frame_slice){ NULL, 0 };
	ev->period = (struct frame_slice){ NULL, 0 };
	size_t e = n;
	while (e > 0 && frame_is_space(s[e - 1]))
		e--;
	if (e < 2 || s[e - 1] != ':')
		return false;
	size_t colon = e - 1;
	size_t ts = colon;
	while (ts > 0 && !frame_is_space(s[ts - 1]))
		ts--;
	if (ts == colon || ts == 0)
		return false;
	size_t i = ts;
	while (i > 0 && frame_is_space(s[i - 1]))
		i--;
	size_t dend = i;
	while (i > 0 && frame_is_digit(s[i - 1]))
		i--;
	size_t dstart = i;
	while (i > 0 && frame_is_space(s[i - 1]))
		i--;
	if (i == 0 || s[i - 1] != ':')
		return false;
	ev->has_event = true;
	ev->event = (struct frame_slice){ s + ts, colon - ts };
	ev->period = (struct frame_slice){ s + dstart, dend - dstart };
	return true;
}

bool perf_match_event_line(const char *s, size_t n, struct perf_event_line *ev)
{
	if (!frame_match_header(s, n, &ev->comm, &ev->first, &ev->second))
		return false;
	perf_match_event_name(s, n, ev);
	return true;
}

/* ^\s*(\w+)\s*(.+) \((.*)\)
 * The module ends at the last ')' of the line (greedy .*), and the symbol
 * ends at the last " (" that still has a ')' after its '('. The symbol must
 * be at least one byte, so when the greedy \w+ and \s* leave nothing before
 * that " (", they give bytes back: the symbol then starts at
 * min(end of \w+\s*, " (" - 1), which must leave \w+ at least one byte
 * (this is how "7f00ab (/bin/x)" gets the symbol "b"). */
bool perf_match_frame_line(const char *s, size_t n, struct frame_text *fr)
{
	size_t a = 0;
	while (a < n && frame_is_space(s[a]))
		a++;
	size_t b = a;
	while (b < n && is_word(s[b]))
		b++;
	if (b == a)
		return false;
	const char *rp = memrchr(s + b, ')', n - b);
	if (!rp)
		return false;
	size_t last = (size_t)(rp - s);
	if (last < 2)
		return false;
	/* The last '(' at or before last - 1 that has a space before it. */
	size_t j;
	const char *lp = s + last;
	for (;;) {
		lp = memrchr(s, '(', (size_t)(lp - s));
		if (!lp || lp == s)
			return false;
		if (lp[-1] == ' ') {
			j = (size_t)(lp - s) - 1;
			break;
		}
	}
	if (j < a + 2)
		return false;
	size_t e = b;
	while (e < n && frame_is_space(s[e]))
		e++;
	size_t c = e < j - 1 ? e : j - 1;
	size_t pc_end = b < c ? b : c;
	fr->pc = (struct frame_slice){ s + a, pc_end - a };
	fr->symbol = (struct frame_slice){ s + c, j - c };
	fr->module = (struct frame_slice){ s + j + 2, last - (j + 2) };
	return true;
}

bool perf_event_time(const char *line, const struct perf_event_line *ev, uint64_t *ns)
{
	if (!ev->has_event)
		return false;
	/* Back from the event name over \s* digits \s+ to the ':' that
	 * perf_match_event_name found, then the token before it. */
	const char *p = ev->period.n ? ev->period.s : ev->event.s;
	while (p > line && frame_is_space(p[-1]))
		p--;
	if (p == line || p[-1] != ':')
		return false;
	const char *end = --p;
	while (p > line && !frame_is_space(p[-1]))
		p--;
	return time_parse_seconds(p, (size_t)(end - p), ns);
}

bool perf_period(const struct perf_event_line *ev, uint64_t *v)
{
	struct frame_slice d = ev->period;
	*v = 1;
	if (d.n == 0 || (d.n == 1 && d.s[0] == '0'))
		return true;
	uint64_t u = 0;
	for (size_t i = 0; i < d.n; i++)
		if (__builtin_mul_overflow(u, 10, &u) || __builtin_add_overflow(u, (uint64_t)(d.s[i] - '0'), &u)) {
			*v = UINT64_MAX;
			return false;
		}
	*v = u;
	return true;
}

