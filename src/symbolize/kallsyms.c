/* kallsyms, /sys/kernel/notes and perf JIT maps: small text/binary files. */
#include "symbolize/kallsyms.h"

#include "base/alloc.h"
#include "base/input.h"
#include "base/lines.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int parse_hex(const char **p, const char *end, uint64_t *v)
{
	uint64_t x = 0;
	const char *s = *p;
	int n = 0;
	while (s < end && n < 17) {
		int c = *s, d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			break;
		x = x << 4 | (uint64_t)d;
		s++;
		n++;
	}
	if (!n || n > 16)
		return -1;
	*p = s;
	*v = x;
	return 0;
}

/* Read a small or pseudo file (size unknown: /proc) into memory. */
static char *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t n = 0, alloc = 1 << 16;
	char *buf = xmalloc(alloc);
	for (;;) {
		if (n == alloc) {
			alloc *= 2;
			buf = xrealloc(buf, alloc);
		}
		ssize_t r = read(fd, buf + n, alloc - n);
		if (r < 0) {
			free(buf);
			close(fd);
			return NULL;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	close(fd);
	*len = n;
	return buf;
}

int kallsyms_load(struct symtab *t, const char *path, uint64_t *text)
{
	size_t len;
	char *buf = slurp(path, &len);
	if (!buf)
		return -1;
	*text = 0;
	struct lines it;
	const char *line;
	size_t n;
	int count = 0;
	bool nonzero = false;
	lines_init(&it, buf, len);
	while (lines_next(&it, &line, &n)) {
		const char *p = line, *end = line + n;
		uint64_t addr;
		if (parse_hex(&p, end, &addr) || end - p < 4 || p[0] != ' ' || p[2] != ' ')
			continue;
		char type = p[1];
		const char *name = p + 3;
		size_t nl = (size_t)(end - name);
		if (memchr(name, '\t', nl))
			continue; /* module symbol */
		if (nl == 5 && !memcmp(name, "_text", 5))
			*text = addr;
		char up = (char)toupper((unsigned char)type);
		if (up != 'T' && up != 'W' && up != 'D' && up != 'B')
			continue;
		if (name[0] == '$')
			continue;
		if (addr)
			nonzero = true;
		int bind = type == 'W' || type == 'w' ? SYM_BIND_WEAK
			   : isupper((unsigned char)type) ? SYM_BIND_GLOBAL : SYM_BIND_LOCAL;
		/* perf's kallsyms binding: only 'W' is weak; lowercase is local. */
		if (type == 'w')
			bind = SYM_BIND_LOCAL;
		unsigned us = 0;
		while (us < nl && name[us] == '_')
			us++;
		symtab_add(t, addr, 0, bind, name, nl, nl, us);
		count++;
	}
	free(buf);
	if (!nonzero) { /* kptr_restrict hides addresses */
		symtab_release(t);
		symtab_init(t);
		return -1;
	}
	symtab_finish(t, true);
	return count;
}

size_t kernel_build_id(uint8_t id[20])
{
	size_t len;
	char *buf = slurp("/sys/kernel/notes", &len);
	if (!buf)
		return 0;
	size_t off = 0, got = 0;
	while (len - off >= 12) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		size_t nsz = ((size_t)namesz + 3) & ~(size_t)3, dsz = ((size_t)descsz + 3) & ~(size_t)3;
		if (nsz > len - off - 12 || dsz > len - off - 12 - nsz)
			break;
		const char *name = buf + off + 12;
		if (type == 3 && namesz == 4 && !memcmp(name, "GNU", 4)) {
			got = descsz > 20 ? 20 : descsz;
			memcpy(id, name + nsz, got);
			break;
		}
		off += 12 + nsz + dsz;
	}
	free(buf);
	return got;
}

int jitmap_load(struct symtab *t, const char *path)
{
	size_t len;
	char *buf = slurp(path, &len);
	if (!buf)
		return -1;
	struct lines it;
	const char *line;
	size_t n;
	int count = 0;
	lines_init(&it, buf, len);
	while (lines_next(&it, &line, &n)) {
		const char *p = line, *end = line + n;
		uint64_t start, size;
		if (parse_hex(&p, end, &start) || p >= end || *p != ' ')
			continue;
		p++;
		if (parse_hex(&p, end, &size) || p >= end || *p != ' ')
			continue;
		p++;
		size_t nl = (size_t)(end - p);
		symtab_add(t, start, size, SYM_BIND_GLOBAL, p, nl, nl, 0);
		count++;
	}
	free(buf);
	symtab_finish(t, false);
	return count;
}
