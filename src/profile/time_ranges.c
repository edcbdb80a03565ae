/* --time ranges (profile/time_ranges.h). */
#include "profile/time_ranges.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define NS_PER_S ((uint64_t)1000000000)
#define PERCENT_ONE ((uint64_t)1000000) /* 1%, in millionths of a percent */

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

bool time_parse_seconds(const char *s, size_t n, uint64_t *ns)
{
	size_t i = 0;
	uint64_t sec = 0, frac = 0;
	while (i < n && is_digit(s[i])) {
		if (sec > (UINT64_MAX / NS_PER_S - 10) / 10)
			return false;
		sec = sec * 10 + (uint64_t)(s[i++] - '0');
	}
	if (i == 0)
		return false;
	if (i < n && s[i] == '.') {
		i++;
		size_t digits = 0;
		while (i < n && is_digit(s[i]) && digits < 9) {
			frac = frac * 10 + (uint64_t)(s[i++] - '0');
			digits++;
		}
		if (i < n && is_digit(s[i]))
			return false; /* finer than a nanosecond */
		for (; digits < 9; digits++)
			frac *= 10;
	}
	if (i != n)
		return false;
	*ns = sec * NS_PER_S + frac;
	return true;
}

/* "12.5%" -> millionths of a percent. */
static bool parse_percent(const char *s, size_t n, uint64_t *v)
{
	uint64_t ns;
	if (n < 2 || s[n - 1] != '%' || !time_parse_seconds(s, n - 1, &ns) || ns > 100 * NS_PER_S)
		return false;
	*v = ns / 1000; /* seconds.nanos read as percent: 1% = 1e9 -> 1e6 */
	return true;
}

static int fail(char *err, size_t errlen, const char *what, const char *s, size_t n)
{
	snprintf(err, errlen, "%s: '%.*s'", what, (int)n, s);
	return -1;
}

static int add(struct time_ranges *t, struct time_bound from, struct time_bound to, char *err, size_t errlen)
{
	if (t->n == TIME_RANGES_MAX) {
		snprintf(err, errlen, "more than %d ranges", TIME_RANGES_MAX);
		return -1;
	}
	t->from[t->n] = from;
	t->to[t->n] = to;
	t->n++;
	return 0;
}

/* One percent item: A%/N or A%-B%. */
static int percent_item(struct time_ranges *t, const char *s, size_t n, char *err, size_t errlen)
{
	const char *slash = memchr(s, '/', n), *dash = memchr(s, '-', n);
	uint64_t a, b;
	if (slash) {
		size_t k = (size_t)(slash - s);
		uint64_t nth = 0;
		if (!parse_percent(s, k, &a) || a == 0 || k + 1 == n)
			return fail(err, errlen, "not a percent slice (A%/N)", s, n);
		for (size_t i = k + 1; i < n; i++) {
			if (!is_digit(s[i]) || nth > 1000000)
				return fail(err, errlen, "not a percent slice (A%/N)", s, n);
			nth = nth * 10 + (uint64_t)(s[i] - '0');
		}
		if (nth == 0 || (nth - 1) * a >= 100 * PERCENT_ONE)
			return fail(err, errlen, "slice outside the recording", s, n);
		uint64_t end = nth * a > 100 * PERCENT_ONE ? 100 * PERCENT_ONE : nth * a;
		return add(t, (struct time_bound){ TIME_PERCENT, (nth - 1) * a }, (struct time_bound){ TIME_PERCENT, end },
			   err, errlen);
	}
	if (!dash)
		return fail(err, errlen, "not a percent range (A%/N or A%-B%)", s, n);
	size_t k = (size_t)(dash - s);
	if (!parse_percent(s, k, &a) || !parse_percent(dash + 1, n - k - 1, &b))
		return fail(err, errlen, "not a percent range (A%-B%)", s, n);
	if (b < a)
		return fail(err, errlen, "ends before it starts", s, n);
	return add(t, (struct time_bound){ TIME_PERCENT, a }, (struct time_bound){ TIME_PERCENT, b }, err, errlen);
}

static int bound(const char *s, size_t n, struct time_bound *b)
{
	if (n == 0) {
		*b = (struct time_bound){ TIME_OPEN, 0 };
		return 0;
	}
	b->kind = TIME_SECONDS;
	return time_parse_seconds(s, n, &b->value) ? 0 : -1;
}

/* Items of a group (no spaces), comma-separated: percent items, or
 * START,END pairs. */
static int group(struct time_ranges *t, const char *s, size_t n, char *err, size_t errlen)
{
	if (memchr(s, '%', n)) {
		while (n) {
			const char *comma = memchr(s, ',', n);
			size_t k = comma ? (size_t)(comma - s) : n;
			if (percent_item(t, s, k, err, errlen))
				return -1;
			if (!comma)
				break;
			s += k + 1;
			n -= k + 1;
			if (!n)
				return fail(err, errlen, "a range after the last comma is missing", s - 1, 1);
		}
		return 0;
	}
	const char *c = s, *end = s + n;
	for (;;) {
		const char *comma = memchr(c, ',', (size_t)(end - c));
		if (!comma)
			return fail(err, errlen, "not START,END", c, (size_t)(end - c));
		const char *after = comma + 1, *next = memchr(after, ',', (size_t)(end - after));
		const char *stop = next ? next : end;
		struct time_bound from, to;
		if (bound(c, (size_t)(comma - c), &from) || bound(after, (size_t)(stop - after), &to))
			return fail(err, errlen, "not START,END in seconds", c, (size_t)(stop - c));
		if (from.kind == TIME_SECONDS && to.kind == TIME_SECONDS && to.value < from.value)
			return fail(err, errlen, "ends before it starts", c, (size_t)(stop - c));
		if (add(t, from, to, err, errlen))
			return -1;
		if (!next)
			return 0;
		c = next + 1;
		if (c == end)
			return fail(err, errlen, "a range after the last comma is missing", next, 1);
	}
}

int time_ranges_parse(struct time_ranges *t, const char *text, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	t->text = text;
	const char *s = text;
	while (*s) {
		while (*s == ' ')
			s++;
		if (!*s)
			break;
		size_t k = strcspn(s, " ");
		if (group(t, s, k, err, errlen))
			return -1;
		s += k;
	}
	if (!t->n) {
		snprintf(err, errlen, "no range in '%s'", text);
		return -1;
	}
	return 0;
}

void time_ranges_set_epoch(struct time_ranges *t, int64_t offset)
{
	t->epoch_known = true;
	t->epoch_offset = offset;
}

static uint64_t resolve_bound(const struct time_ranges *t, const struct time_bound *b, uint64_t first, uint64_t last,
			      bool is_end)
{
	switch (b->kind) {
	case TIME_OPEN:
		return is_end ? last : first;
	case TIME_PERCENT: {
		/* perf: first + span * percent, in whole nanoseconds */
		double span = (double)(last - first);
		return first + (uint64_t)(span * (double)b->value / (100.0 * PERCENT_ONE));
	}
	case TIME_SECONDS:
		break;
	}
	/* perf's timestamps count from boot, and a recording's lie close
	 * together: a time below half the first sample's is a duration */
	if (b->value < first / 2)
		return first + b->value;
	/* Epoch times are far above a clock counting from boot: one above
	 * half the first sample's epoch time is one (a clock that is the
	 * epoch's, -k CLOCK_REALTIME, has an offset of about 0). */
	if (t->epoch_known) {
		int64_t first_epoch = (int64_t)first + t->epoch_offset;
		if (first_epoch > 0 && b->value >= (uint64_t)first_epoch / 2) {
			int64_t source = (int64_t)b->value - t->epoch_offset;
			return source > 0 ? (uint64_t)source : 0;
		}
	}
	return b->value;
}

/* " (UTC 2026-12-02 06:18:34.507 to ...)" when the epoch is known. */
static void utc_span(const struct time_ranges *t, uint64_t first, uint64_t last, char *out, size_t len)
{
	out[0] = 0;
	if (!t->epoch_known)
		return;
	char a[40], b[40];
	uint64_t ends[2] = { first, last };
	char *dst[2] = { a, b };
	for (int i = 0; i < 2; i++) {
		int64_t ns = (int64_t)ends[i] + t->epoch_offset;
		time_t sec = (time_t)(ns / (int64_t)NS_PER_S);
		struct tm tm;
		if (ns < 0 || !gmtime_r(&sec, &tm))
			return;
		size_t n = strftime(dst[i], 40, "%Y-%m-%d %H:%M:%S", &tm);
		snprintf(dst[i] + n, 40 - n, ".%03" PRIu64, (uint64_t)ns % NS_PER_S / 1000000);
	}
	snprintf(out, len, "; UTC %s to %s, epoch %" PRId64 ".%06" PRId64 " to %" PRId64 ".%06" PRId64, a, b,
		 ((int64_t)first + t->epoch_offset) / (int64_t)NS_PER_S,
		 ((int64_t)first + t->epoch_offset) % (int64_t)NS_PER_S / 1000,
		 ((int64_t)last + t->epoch_offset) / (int64_t)NS_PER_S,
		 ((int64_t)last + t->epoch_offset) % (int64_t)NS_PER_S / 1000);
}

int time_ranges_resolve(struct time_ranges *t, uint64_t first, uint64_t last, char *err, size_t errlen)
{
	for (size_t i = 0; i < t->n; i++) {
		uint64_t a = resolve_bound(t, &t->from[i], first, last, false);
		uint64_t b = resolve_bound(t, &t->to[i], first, last, true);
		if (b < a) {
			snprintf(err, errlen, "range %zu ends before it starts", i + 1);
			return -1;
		}
		if (a > last || b < first) {
			char utc[256];
			utc_span(t, first, last, utc, sizeof(utc));
			snprintf(err, errlen, "range %zu is outside the recording (%.6f s long, from %" PRIu64 ".%06" PRIu64
				 " to %" PRIu64 ".%06" PRIu64 "%s)",
				 i + 1, (double)(last - first) / 1e9, first / NS_PER_S, first % NS_PER_S / 1000,
				 last / NS_PER_S, last % NS_PER_S / 1000, utc);
			return -1;
		}
		t->r[i] = (struct time_range){ a, b };
	}
	t->resolved = true;
	return 0;
}
