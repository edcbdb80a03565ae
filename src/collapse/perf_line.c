/* perf script line matchers and frame tidying; see perf_line.h. Each
 * function states the regex it stands for and why the scan finds the same
 * match as Perl's backtracking engine. */
#include "collapse/perf_line.h"

#include "base/alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || perf_is_digit(c) || c == '_';
}

static bool has_sub(const char *s, size_t n, const char *sub, size_t k)
{
	if (k > n)
		return false;
	return memmem(s, n, sub, k) != NULL;
}

/* ^(\S.+?)\s+(\d+)\/{0,}(\d+){0,}\s+
 * The lazy comm grows one byte at a time from length 2; at each end k the
 * rest must be: whitespace, digits, slashes, digits, whitespace. Whitespace
 * and digits are disjoint classes, so each greedy run has one possible
 * extent and a failure at k cannot be rescued by backtracking inside the
 * tail. Inside a run of whitespace every k gives the same tail, so only the
 * first k of each run is tried. */
static bool match_header(const char *s, size_t n, struct perf_event_line *ev)
{
	if (n < 3 || perf_is_space(s[0]))
		return false;
	for (size_t k = 2; k < n; k++) {
		if (!perf_is_space(s[k]))
			continue;
		if (k > 2 && perf_is_space(s[k - 1]))
			continue;
		size_t i = k;
		while (i < n && perf_is_space(s[i]))
			i++;
		size_t d0 = i;
		while (i < n && perf_is_digit(s[i]))
			i++;
		if (i == d0)
			continue;
		size_t d1 = i;
		while (i < n && s[i] == '/')
			i++;
		size_t t0 = i;
		while (i < n && perf_is_digit(s[i]))
			i++;
		size_t t1 = i;
		if (i >= n || !perf_is_space(s[i]))
			continue;
		ev->comm = (struct perf_slice){ s, k };
		ev->first = (struct perf_slice){ s + d0, d1 - d0 };
		ev->second = (struct perf_slice){ s + t0, t1 - t0 };
		return true;
	}
	return false;
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
	ev->event = (struct perf_slice){ NULL, 0 };
	ev->period = (struct perf_slice){ NULL, 0 };
	size_t e = n;
	while (e > 0 && perf_is_space(s[e - 1]))
		e--;
	if (e < 2 || s[e - 1] != ':')
		return false;
	size_t colon = e - 1;
	size_t ts = colon;
	while (ts > 0 && !perf_is_space(s[ts - 1]))
		ts--;
	if (ts == colon || ts == 0)
		return false;
	size_t i = ts;
	while (i > 0 && perf_is_space(s[i - 1]))
		i--;
	size_t dend = i;
	while (i > 0 && perf_is_digit(s[i - 1]))
		i--;
	size_t dstart = i;
	while (i > 0 && perf_is_space(s[i - 1]))
		i--;
	if (i == 0 || s[i - 1] != ':')
		return false;
	ev->has_event = true;
	ev->event = (struct perf_slice){ s + ts, colon - ts };
	ev->period = (struct perf_slice){ s + dstart, dend - dstart };
	return true;
}

bool perf_match_event_line(const char *s, size_t n, struct perf_event_line *ev)
{
	if (!match_header(s, n, ev))
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
bool perf_match_frame_line(const char *s, size_t n, struct perf_frame_line *fr)
{
	size_t a = 0;
	while (a < n && perf_is_space(s[a]))
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
	while (e < n && perf_is_space(s[e]))
		e++;
	size_t c = e < j - 1 ? e : j - 1;
	size_t pc_end = b < c ? b : c;
	fr->pc = (struct perf_slice){ s + a, pc_end - a };
	fr->rawfunc = (struct perf_slice){ s + c, j - c };
	fr->module = (struct perf_slice){ s + j + 2, last - (j + 2) };
	return true;
}

void perf_parts_release(struct perf_parts *pp)
{
	free(pp->buf);
	free(pp->ends);
	memset(pp, 0, sizeof(*pp));
}

static void parts_bytes(struct perf_parts *pp, const char *s, size_t n)
{
	VEC_GROW(pp->buf, pp->len + n + 1, pp->alloc);
	if (n)
		memcpy(pp->buf + pp->len, s, n);
	pp->len += n;
}

void perf_parts_push(struct perf_parts *pp, const char *s, size_t n)
{
	parts_bytes(pp, s, n);
	VEC_GROW(pp->ends, pp->nr + 1, pp->nr_alloc);
	pp->ends[pp->nr++] = pp->len;
}

void perf_parts_append_last(struct perf_parts *pp, const char *s, size_t n)
{
	parts_bytes(pp, s, n);
	pp->ends[pp->nr - 1] = pp->len;
}

/* Tidy the part that occupies buf[start, len): in place, it only shrinks. */
static void tidy_generic(struct perf_parts *pp, size_t start)
{
	char *f = pp->buf + start;
	size_t n = pp->len - start;
	for (size_t i = 0; i < n; i++)
		if (f[i] == ';')
			f[i] = ':';
	/* Go methods keep their parentheses: m/\.\(.*\)\./ */
	bool go = false;
	const char *dp = n >= 2 ? memmem(f, n, ".(", 2) : NULL;
	if (dp) {
		size_t i = (size_t)(dp - f);
		for (size_t k = n; k-- > i + 2;) {
			if (f[k] == '.' && f[k - 1] == ')') {
				go = k - 1 >= i + 2;
				break;
			}
		}
	}
	if (!go) {
		/* s/\((?!anonymous namespace\)).{0,}//: cut at the first '(' that does\n		 * not open \"(anonymous namespace)\". */
		static const char anon[] = "anonymous namespace)";
		for (size_t i = 0; i < n; i++) {
			if (f[i] != '(')
				continue;
			if (n - i - 1 >= sizeof(anon) - 1 && !memcmp(f + i + 1, anon, sizeof(anon) - 1))
				continue;
			n = i;
			break;
		}
	}
	/* tr/"'//d */
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		if (f[i] != '"' && f[i] != '\'')
			f[w++] = f[i];
	pp->len = start + w;
}

/* m:/tmp/perf-\d+\.map: */
static bool is_jit_module(const char *m, size_t n)
{
	static const char pre[] = "/tmp/perf-";
	const char *end = m + n;
	const char *p = m;
	while ((size_t)(end - p) >= sizeof(pre) - 1) {
		const char *hit = memmem(p, (size_t)(end - p), pre, sizeof(pre) - 1);
		if (!hit)
			return false;
		const char *d = hit + sizeof(pre) - 1, *q = d;
		while (q < end && perf_is_digit(*q))
			q++;
		if (q > d && end - q >= 4 && !memcmp(q, ".map", 4))
			return true;
		p = hit + 1;
	}
	return false;
}

static bool is_kernel_module(const char *m, size_t n)
{
	/* m/(^\[|vmlinux$)/ && !~ /unknown/ */
	bool k = (n && m[0] == '[') || (n >= 7 && !memcmp(m + n - 7, "vmlinux", 7));
	return k && !has_sub(m, n, "unknown", 7);
}

bool perf_inline_applies(const char *m, size_t n)
{
	/* !~ m/(perf-\d+.map|kernel\.|\[[^\]]+\])/ */
	for (size_t i = 0; i + 5 <= n; i++) {
		if (memcmp(m + i, "perf-", 5))
			continue;
		size_t q = i + 5;
		while (q < n && perf_is_digit(m[q]))
			q++;
		/* \d+ then any byte then "map"; \d+ may give back its last digit. */
		if (q > i + 5 && q + 4 <= n && !memcmp(m + q + 1, "map", 3))
			return false;
		if (q > i + 6 && q + 3 <= n && !memcmp(m + q, "map", 3))
			return false;
	}
	if (has_sub(m, n, "kernel.", 7))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (m[i] != '[')
			continue;
		size_t q = i + 1;
		while (q < n && m[q] != ']')
			q++;
		if (q < n && q > i + 1)
			return false;
	}
	return true;
}

static void one_part(const struct perf_frame_line *fr, const struct perf_tidy_opts *o,
		     struct perf_parts *pp, const char *s, size_t n, bool first)
{
	size_t start = pp->len;
	if (n == 9 && !memcmp(s, "[unknown]", 9)) {
		if (pp->first_unknown == SIZE_MAX)
			pp->first_unknown = pp->nr;
		const char *m = fr->module.s;
		size_t mn = fr->module.n;
		const char *name = "unknown";
		size_t nn = 7;
		if (!(mn == 9 && !memcmp(m, "[unknown]", 9))) {
			const char *slash = memrchr(m, '/', mn);
			name = slash ? slash + 1 : m;
			nn = mn - (size_t)(name - m);
		}
		parts_bytes(pp, "[", 1);
		parts_bytes(pp, name, nn);
		if (o->addrs) {
			parts_bytes(pp, " <", 2);
			parts_bytes(pp, fr->pc.s, fr->pc.n);
			parts_bytes(pp, ">", 1);
		}
		parts_bytes(pp, "]", 1);
	} else {
		parts_bytes(pp, s, n);
	}
	tidy_generic(pp, start);
	char *f = pp->buf + start;
	size_t fn = pp->len - start;
	if (o->java && fn && f[0] == 'L' && memchr(f, '/', fn)) {
		memmove(f, f + 1, fn - 1);
		pp->len--;
		fn--;
	}
	if (!first) {
		if (!has_sub(f, fn, "_[i]", 4))
			parts_bytes(pp, "_[i]", 4);
	} else if (o->kernel && is_kernel_module(fr->module.s, fr->module.n)) {
		parts_bytes(pp, "_[k]", 4);
	} else if (o->jit && is_jit_module(fr->module.s, fr->module.n)) {
		if (!has_sub(f, fn, "_[j]", 4))
			parts_bytes(pp, "_[j]", 4);
	}
	VEC_GROW(pp->ends, pp->nr + 1, pp->nr_alloc);
	pp->ends[pp->nr++] = pp->len;
}

static bool is_hex_lower(char c)
{
	return perf_is_digit(c) || (c >= 'a' && c <= 'f');
}

size_t perf_strip_offset(const char *s, size_t n)
{
	/* s/\+0x[\da-f]+$// */
	size_t i = n;
	while (i > 0 && is_hex_lower(s[i - 1]))
		i--;
	if (i < n && i >= 3 && s[i - 1] == 'x' && s[i - 2] == '0' && s[i - 3] == '+')
		return i - 3;
	return n;
}

bool perf_frame_names(const struct perf_frame_line *fr, const struct perf_tidy_opts *o,
		      struct perf_parts *pp)
{
	const char *s = fr->rawfunc.s;
	size_t n = fr->rawfunc.n;
	pp->first_unknown = SIZE_MAX;
	n = perf_strip_offset(s, n);
	if (n && s[0] == '(')
		return false;
	/* split /\->/: fields in order, trailing empty fields dropped. */
	size_t keep = n;
	size_t nf = 0;
	/* Trailing empty fields are dropped: strip trailing "->" pairs. */
	while (keep >= 2 && s[keep - 2] == '-' && s[keep - 1] == '>')
		keep -= 2;
	if (keep == 0)
		return true; /* every field empty: nothing to add */
	const char *p = s, *end = s + keep;
	for (;;) {
		const char *arrow = NULL;
		for (const char *q = p; q + 1 < end; q++)
			if (q[0] == '-' && q[1] == '>') {
				arrow = q;
				break;
			}
		const char *fe = arrow ? arrow : end;
		one_part(fr, o, pp, p, (size_t)(fe - p), nf == 0);
		nf++;
		if (!arrow)
			break;
		p = arrow + 2;
	}
	return true;
}

void perf_pname(const struct perf_event_line *ev, bool pid, bool tid, struct perf_parts *pp)
{
	size_t start = pp->len;
	struct perf_slice p = ev->first, t = ev->second;
	/* not $tid: absent or "0" -> tid = $2, pid = "?" */
	bool one = t.n == 0 || (t.n == 1 && t.s[0] == '0');
	if (one) {
		t = p;
		p = (struct perf_slice){ "?", 1 };
	}
	parts_bytes(pp, ev->comm.s, ev->comm.n);
	if (tid) {
		parts_bytes(pp, "-", 1);
		parts_bytes(pp, p.s, p.n);
		parts_bytes(pp, "/", 1);
		parts_bytes(pp, t.s, t.n);
	} else if (pid) {
		parts_bytes(pp, "-", 1);
		parts_bytes(pp, p.s, p.n);
	}
	for (size_t i = start; i < pp->len; i++)
		if (pp->buf[i] == ' ')
			pp->buf[i] = '_';
	VEC_GROW(pp->ends, pp->nr + 1, pp->nr_alloc);
	pp->ends[pp->nr++] = pp->len;
}

double perf_period(const struct perf_event_line *ev)
{
	struct perf_slice d = ev->period;
	if (d.n == 0 || (d.n == 1 && d.s[0] == '0'))
		return 1;
	double v = 0;
	for (size_t i = 0; i < d.n; i++)
		v = v * 10 + (d.s[i] - '0');
	return v;
}

void perf_append_srcline(struct perf_parts *pp, const char *s, size_t n)
{
	/* s/\[.*?\]//g, then trim \s at both ends. */
	char *tmp = xmalloc(n + 1);
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '[') {
			const char *close = memchr(s + i + 1, ']', n - i - 1);
			if (close) {
				i = (size_t)(close - s);
				continue;
			}
		}
		tmp[w++] = s[i];
	}
	size_t a = 0, b = w;
	while (a < b && perf_is_space(tmp[a]))
		a++;
	while (b > a && perf_is_space(tmp[b - 1]))
		b--;
	if (b > a) {
		perf_parts_append_last(pp, ":", 1);
		perf_parts_append_last(pp, tmp + a, b - a);
	}
	free(tmp);
}
