/* Line iterator over an in-memory buffer: memchr, no copies, counts lines.
 * A trailing '\r' is stripped; a last line without '\n' is still returned. */
#ifndef SCORCH_BASE_LINES_H
#define SCORCH_BASE_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

struct lines {
	const char *p, *end;
	size_t lineno; /* 1-based number of the line last returned */
};

static inline void lines_init(struct lines *it, const char *data, size_t len)
{
	it->p = data;
	it->end = data + len;
	it->lineno = 0;
}

static inline bool lines_next(struct lines *it, const char **line, size_t *len)
{
	if (it->p >= it->end)
		return false;
	const char *s = it->p;
	const char *nl = memchr(s, '\n', (size_t)(it->end - s));
	size_t n;
	if (nl) {
		n = (size_t)(nl - s);
		it->p = nl + 1;
	} else {
		n = (size_t)(it->end - s);
		it->p = it->end;
	}
	if (n && s[n - 1] == '\r')
		n--;
	it->lineno++;
	*line = s;
	*len = n;
	return true;
}

#endif
