/* Index lines and directory names of the directory store (dir_index.h). */
#include "store/dir_index.h"

#include "base/alloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *dir_host_name(const char *host)
{
	size_t n = strlen(host);
	char *out = xmalloc(3 * n + 1), *o = out;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)host[i];
		bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			     c == '-' || c == '_' || (c == '.' && i > 0);
		if (plain)
			*o++ = (char)c;
		else
			o += sprintf(o, "%%%02X", c);
	}
	*o = 0;
	return out;
}

static void put_field(char **buf, size_t *len, size_t *alloc, const char *s)
{
	VEC_GROW(*buf, *len + 2 * strlen(s) + 2, *alloc);
	char *o = *buf + *len;
	*o++ = '\t';
	for (; *s; s++) {
		char e = *s == '\t' ? 't' : *s == '\n' ? 'n' : *s == '\r' ? 'r' : *s == '\\' ? '\\' : 0;
		if (e) {
			*o++ = '\\';
			*o++ = e;
		} else {
			*o++ = *s;
		}
	}
	*len = (size_t)(o - *buf);
}

char *dir_index_line(const struct store_meta *m, const char *file, size_t *len)
{
	char *buf = NULL;
	size_t n = 0, alloc = 0;
	char num[64];
	VEC_GROW(buf, 64, alloc);
	n = (size_t)snprintf(buf, alloc, "%" PRIu64 "\t%" PRIu64, m->start_ns, m->end_ns);
	put_field(&buf, &n, &alloc, file);
	put_field(&buf, &n, &alloc, m->host);
	put_field(&buf, &n, &alloc, m->event ? m->event : "");
	snprintf(num, sizeof(num), "%" PRIu32, m->rate_hz);
	put_field(&buf, &n, &alloc, num);
	put_field(&buf, &n, &alloc, m->unit ? m->unit : "samples");
	for (size_t i = 0; i < m->nr_labels; i++)
		put_field(&buf, &n, &alloc, m->labels[i]);
	VEC_GROW(buf, n + 2, alloc);
	buf[n++] = '\n';
	buf[n] = 0;
	*len = n;
	return buf;
}

/* Undo put_field's escapes in place. */
static void unescape(char *s)
{
	char *o = s;
	for (; *s; s++) {
		if (*s == '\\' && s[1]) {
			s++;
			*o++ = *s == 't' ? '\t' : *s == 'n' ? '\n' : *s == 'r' ? '\r' : *s;
		} else {
			*o++ = *s;
		}
	}
	*o = 0;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;
	if (!*s || *s == '-')
		return -1;
	*v = strtoull(s, &end, 10);
	return *end ? -1 : 0;
}

int dir_index_parse(char *line, struct dir_entry *e)
{
	char *f[7 + 32];
	size_t n = 0;
	for (char *s = line;; s++) {
		f[n++] = s;
		s = strchr(s, '\t');
		if (!s || n == sizeof(f) / sizeof(f[0]))
			break;
		*s = 0;
	}
	uint64_t rate;
	*e = (struct dir_entry){ 0 };
	if (n < 7 || parse_u64(f[0], &e->start_ns) || parse_u64(f[1], &e->end_ns) || parse_u64(f[5], &rate) ||
	    rate > UINT32_MAX || e->end_ns < e->start_ns)
		return -1;
	for (size_t i = 2; i < n; i++)
		unescape(f[i]);
	e->file = f[2];
	e->host = f[3];
	e->event = f[4];
	e->rate_hz = (uint32_t)rate;
	e->unit = f[6];
	for (size_t i = 7; i < n; i++)
		e->labels[e->nr_labels++] = f[i];
	if (!*e->file || strchr(e->file, '/') || e->file[0] == '.')
		return -1;
	return 0;
}
