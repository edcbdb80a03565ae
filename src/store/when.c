/* Parsing and printing of times, durations and sizes (store/when.h). */
#include "store/when.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NS 1000000000ull

/* A number followed by one of the units; unit "" multiplies by plain. */
static int scaled(const char *s, const char *const *units, const uint64_t *mult, uint64_t plain, uint64_t *v)
{
	char *end;
	errno = 0;
	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	double x = strtod(s, &end);
	if (errno || end == s || x < 0)
		return -1;
	uint64_t m = *end ? 0 : plain;
	for (int i = 0; !m && units[i]; i++)
		if (!strcmp(end, units[i]))
			m = mult[i];
	if (!m || x * (double)m > 1.8e19)
		return -1;
	*v = (uint64_t)(x * (double)m + 0.5);
	return 0;
}

int when_duration(const char *s, uint64_t *ns)
{
	static const char *const units[] = { "ns", "us", "ms", "s", "m", "min", "h", "d", "w", NULL };
	static const uint64_t mult[] = { 1, 1000, 1000000, NS, 60 * NS, 60 * NS, 3600 * NS, 86400 * NS,
					 7 * 86400 * NS };
	return scaled(s, units, mult, NS, ns);
}

int when_size(const char *s, uint64_t *bytes)
{
	static const char *const units[] = { "K", "KB", "KiB", "M", "MB", "MiB", "G", "GB", "GiB", "T", NULL };
	static const uint64_t mult[] = { 1ull << 10, 1ull << 10, 1ull << 10, 1ull << 20, 1ull << 20, 1ull << 20,
					 1ull << 30, 1ull << 30, 1ull << 30, 1ull << 40 };
	return scaled(s, units, mult, 1, bytes);
}

uint64_t when_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * NS + (uint64_t)ts.tv_nsec;
}

static int iso_time(const char *s, uint64_t *ns)
{
	struct tm tm = { 0 };
	int n = 0, sec = 0;
	if (sscanf(s, "%4d-%2d-%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &n) != 3 || n != 10)
		return -1;
	s += n;
	if (*s == 'T' || *s == ' ') {
		int m = 0;
		if (sscanf(s + 1, "%2d:%2d%n", &tm.tm_hour, &tm.tm_min, &m) != 2 || m != 5)
			return -1;
		s += 1 + m;
		if (*s == ':') {
			if (sscanf(s + 1, "%2d%n", &sec, &m) != 1 || m != 2)
				return -1;
			s += 3;
		}
	}
	if (*s == 'Z')
		s++;
	if (*s || tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
	    tm.tm_min > 59 || sec > 60 || tm.tm_year < 1970)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	tm.tm_sec = sec;
	time_t t = timegm(&tm);
	if (t < 0)
		return -1;
	*ns = (uint64_t)t * NS;
	return 0;
}

int when_time(const char *s, uint64_t now_ns, uint64_t *ns)
{
	uint64_t d;
	char *end;
	if (!strcmp(s, "now")) {
		*ns = now_ns;
		return 0;
	}
	if (*s == '-') {
		if (when_duration(s + 1, &d) || d > now_ns)
			return -1;
		*ns = now_ns - d;
		return 0;
	}
	if (*s == '@') {
		if (when_duration(s + 1, &d))
			return -1;
		*ns = d;
		return 0;
	}
	if (strlen(s) > 10 && s[4] == '-')
		return iso_time(s, ns);
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || end == s || v < 1000000000000000ull)
		return -1;
	*ns = v;
	return 0;
}

void when_day(uint64_t ns, char *buf)
{
	time_t t = (time_t)(ns / NS);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, 11, "%Y-%m-%d", &tm);
}

void when_iso(uint64_t ns, char *buf)
{
	time_t t = (time_t)(ns / NS);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, 21, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
