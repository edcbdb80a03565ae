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

/* Read a small or pseudo file (size unknown: /proc) into memory; NULL
 * when it cannot be opened (quietly: a perf map may not exist). */
static char *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	char *buf = NULL;
	size_t alloc = 0;
	*len = 0;
	int ret = input_read_rest(fd, path, &buf, len, &alloc);
	close(fd);
	if (ret) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Call fn(line, length, arg) on each line of a small or pseudo file;
 * -1 when it cannot be read. */
static int each_line(const char *path, void (*fn)(const char *line, size_t n, void *arg), void *arg)
{
	size_t len;
	char *buf = slurp(path, &len);
	if (!buf)
		return -1;
	struct lines it;
	const char *line;
	size_t n;
	lines_init(&it, buf, len);
	while (lines_next(&it, &line, &n))
		fn(line, n, arg);
	free(buf);
	return 0;
}

/* One kallsyms line "ADDR TYPE NAME[\t[MODULE]]"; module is empty for the
 * kernel's own symbols. false when the line has another shape. */
struct kallsyms_line {
	uint64_t addr;
	char type;
	const char *name, *module;
	size_t name_len, module_len;
};

static bool kallsyms_line(const char *line, size_t n, struct kallsyms_line *k)
{
	const char *p = line, *end = line + n;
	if (parse_hex(&p, end, &k->addr) || end - p < 4 || p[0] != ' ' || p[2] != ' ')
		return false;
	k->type = p[1];
	k->name = p + 3;
	const char *tab = memchr(k->name, '\t', (size_t)(end - k->name));
	k->name_len = (size_t)((tab ? tab : end) - k->name);
	k->module = tab ? tab + 1 : end;
	k->module_len = (size_t)(end - k->module);
	return true;
}

/* perf's kallsyms filter: text, weak, data and bss symbols; perf's
 * binding: only 'W' is weak, lowercase is local. */
static bool kallsyms_add(struct symtab *t, const struct kallsyms_line *k)
{
	char up = (char)toupper((unsigned char)k->type);
	if (up != 'T' && up != 'W' && up != 'D' && up != 'B')
		return false;
	if (k->name[0] == '$')
		return false;
	int bind = k->type == 'W' ? SYM_BIND_WEAK : isupper((unsigned char)k->type) ? SYM_BIND_GLOBAL : SYM_BIND_LOCAL;
	unsigned us = 0;
	while (us < k->name_len && k->name[us] == '_')
		us++;
	symtab_add(t, k->addr, 0, bind, k->name, k->name_len, k->name_len, us);
	return true;
}

struct kernel_load {
	struct symtab *t;
	uint64_t *text;
	int count;
	bool nonzero;
};

static void kernel_line(const char *line, size_t n, void *arg)
{
	struct kernel_load *l = arg;
	struct kallsyms_line k;
	if (!kallsyms_line(line, n, &k) || k.module_len)
		return; /* module symbols: kmodules_load */
	if (k.name_len == 5 && !memcmp(k.name, "_text", 5))
		*l->text = k.addr;
	if (!kallsyms_add(l->t, &k))
		return;
	if (k.addr)
		l->nonzero = true;
	l->count++;
}

int kallsyms_load(struct symtab *t, const char *path, uint64_t *text)
{
	struct kernel_load l = { t, text, 0, false };
	*text = 0;
	if (each_line(path, kernel_line, &l) < 0)
		return -1;
	if (!l.nonzero) { /* kptr_restrict hides addresses */
		symtab_release(t);
		symtab_init(t);
		return -1;
	}
	symtab_finish(t, true);
	return l.count;
}

/* Pseudo-modules perf names from other records ([bpf] programs from
 * PERF_RECORD_KSYMBOL, ftrace trampolines): left out. */
static bool pseudo_module(const char *m, size_t n)
{
	return (n == 5 && !memcmp(m, "[bpf]", 5)) || (n >= 11 && !memcmp(m, "[__builtin_", 11));
}

struct module_load {
	struct kmodules *m;
	struct kmodule *cur; /* a module's symbols are listed together */
};

static struct kmodule *module_named(struct kmodules *m, const char *name, size_t n)
{
	for (size_t i = 0; i < m->nr; i++)
		if (strlen(m->v[i].name) == n && !memcmp(m->v[i].name, name, n))
			return &m->v[i];
	VEC_GROW(m->v, m->nr + 1, m->alloc);
	struct kmodule *km = &m->v[m->nr++];
	km->name = xmemdup0(name, n);
	symtab_init(&km->syms);
	return km;
}

static void module_line(const char *line, size_t n, void *arg)
{
	struct module_load *l = arg;
	struct kallsyms_line k;
	if (!kallsyms_line(line, n, &k) || !k.module_len || !k.addr || pseudo_module(k.module, k.module_len))
		return;
	if (!l->cur || strlen(l->cur->name) != k.module_len || memcmp(l->cur->name, k.module, k.module_len))
		l->cur = module_named(l->m, k.module, k.module_len);
	kallsyms_add(&l->cur->syms, &k);
}

int kmodules_load(struct kmodules *m, const char *path)
{
	struct module_load l = { m, NULL };
	if (each_line(path, module_line, &l) < 0)
		return -1;
	for (size_t i = 0; i < m->nr; i++) {
		symtab_finish(&m->v[i].syms, true);
		if (!symtab_bounds(&m->v[i].syms, &m->v[i].lo, &m->v[i].hi))
			m->v[i].lo = m->v[i].hi = 0;
	}
	return (int)m->nr;
}

void kmodules_release(struct kmodules *m)
{
	for (size_t i = 0; i < m->nr; i++) {
		free(m->v[i].name);
		symtab_release(&m->v[i].syms);
	}
	free(m->v);
	*m = (struct kmodules){ 0 };
}

const char *kmodules_lookup(struct kmodules *m, uint64_t addr, const char **module)
{
	for (size_t i = 0; i < m->nr; i++) {
		struct kmodule *km = &m->v[i];
		if (addr < km->lo || addr >= km->hi)
			continue;
		struct symbol *sy = symtab_find(&km->syms, addr);
		if (!sy)
			return NULL;
		*module = km->name;
		return symtab_name(&km->syms, sy);
	}
	return NULL;
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

static void jitmap_line(const char *line, size_t n, void *arg)
{
	struct symtab *t = arg;
	const char *p = line, *end = line + n;
	uint64_t start, size;
	if (parse_hex(&p, end, &start) || p >= end || *p != ' ')
		return;
	p++;
	if (parse_hex(&p, end, &size) || p >= end || *p != ' ')
		return;
	p++;
	size_t nl = (size_t)(end - p);
	symtab_add(t, start, size, SYM_BIND_GLOBAL, p, nl, nl, 0);
}

int jitmap_load(struct symtab *t, const char *path)
{
	size_t before = t->nr;
	if (each_line(path, jitmap_line, t) < 0)
		return -1;
	symtab_finish(t, false);
	return (int)(t->nr - before);
}
