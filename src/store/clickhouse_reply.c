/* Reading the stacks query's RowBinary reply (store/clickhouse_reply.h). */
#include "store/clickhouse_reply.h"
#include "store/rowbinary.h"

#include "base/alloc.h"
#include "base/error.h"

#include <stdlib.h>
#include <string.h>

/* A name from the server into p: a line break or NUL would end a folded
 * line early, so those bytes become '?' (every other byte is kept, and
 * each writer escapes it for its format). */
static node_t push_name(struct profile *p, node_t at, const char *s, size_t n, char **buf, size_t *alloc)
{
	if (memchr(s, '\n', n) || memchr(s, '\r', n) || memchr(s, 0, n)) {
		VEC_GROW(*buf, n, *alloc);
		for (size_t i = 0; i < n; i++)
			(*buf)[i] = s[i] == '\n' || s[i] == '\r' || !s[i] ? '?' : s[i];
		s = *buf;
	}
	return profile_push_str(p, at, s, n);
}

/* The rows (host, frames, count) into p. */
int ch_reply_stacks(const char *name, const char *data, size_t len, bool group_by_host, struct profile *p)
{
	struct rb_reader in = { (const unsigned char *)data, (const unsigned char *)data + len, false };
	char *buf = NULL;
	size_t alloc = 0;
	while (in.p < in.end && !in.bad) {
		size_t n;
		const char *host = rb_read_str(&in, &n);
		node_t at = group_by_host && !in.bad ? push_name(p, PROFILE_ROOT, host, n, &buf, &alloc) : PROFILE_ROOT;
		uint64_t depth = rb_read_leb(&in);
		for (uint64_t d = 0; d < depth && !in.bad; d++) {
			const char *f = rb_read_str(&in, &n);
			if (!in.bad)
				at = push_name(p, at, f, n, &buf, &alloc);
		}
		uint64_t c = rb_read_u64(&in);
		if (!in.bad && at != PROFILE_ROOT && c)
			profile_count_whole(p, at, c);
	}
	free(buf);
	if (in.bad)
		return error("%s: a malformed reply at byte %zu of %zu", name,
			     (size_t)(in.p - (const unsigned char *)data), len);
	return 0;
}

