/* perf script --header's clock reference (collapse/perf_clock.h). */
#include "collapse/perf_clock.h"

#include "profile/time_ranges.h"

#include <string.h>

/* The seconds at s[0..n) up to `end` (which must follow them) as ns. */
static bool seconds_before(const char *s, size_t n, const char *end, uint64_t *ns, size_t *used)
{
	size_t el = strlen(end);
	for (size_t i = 0; i + el <= n; i++)
		if (!memcmp(s + i, end, el)) {
			*used = i + el;
			return i && time_parse_seconds(s, i, ns);
		}
	return false;
}

bool perf_text_epoch(const char *data, size_t len, int64_t *offset)
{
	static const char key[] = "# reference time: ";
	const char *p = data, *end = data + len;
	while (p < end && *p == '#') {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *eq = n > sizeof(key) - 1 && !memcmp(p, key, sizeof(key) - 1) ? memchr(p, '=', n) : NULL;
		if (eq && eq + 2 < p + n && eq[1] == ' ') {
			const char *s = eq + 2;
			size_t left = (size_t)(p + n - s), used;
			uint64_t wall, clock;
			if (seconds_before(s, left, " (TOD) = ", &wall, &used) &&
			    seconds_before(s + used, left - used, " (", &clock, &used) && wall <= INT64_MAX &&
			    clock <= INT64_MAX && wall) {
				*offset = (int64_t)wall - (int64_t)clock;
				return true;
			}
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return false;
}
