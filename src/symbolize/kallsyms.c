/* kallsyms and /sys/kernel/notes: small text/binary files. */
#include "symbolize/kallsyms.h"

#include "base/alloc.h"
#include "base/input.h"
#include "base/lines.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A hex digit's value plus one; 0 for any other byte. */
static const uint8_t hex_digit_1[256] = {
	['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,	['4'] = 5,  ['5'] = 6,	['6'] = 7,  ['7'] = 8,
	['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* Eight hex digits (either case) at s into *v; false when one is not a
 * hex digit. Byte by byte without carries: a letter's nibble is its low
 * four bits plus 9; a byte is a digit exactly when writing that nibble
 * back as a lowercase digit gives the byte (letters compared with the
 * case bit set) and the nibble is below 16. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "hex8 reads the first digit from the low byte");

static bool hex8(const char *s, uint32_t *v)
{
	const uint64_t ones = 0x0101010101010101ull;
	uint64_t x;
	memcpy(&x, s, 8); /* little-endian: the first digit in the low byte */
	uint64_t nib = (x & 0x0f * ones) + (x >> 6 & ones) * 9;
	uint64_t letter = ((nib + 6 * ones) & 0x10 * ones) >> 4;
	uint64_t lower = nib + 0x30 * ones + letter * 0x27;
	if ((x | letter * 0x20) != lower || (nib & 0x10 * ones))
		return false;
	uint64_t pairs = ((nib << 4) + (nib >> 8)) & 0x00ff00ff00ff00ffull;
	uint64_t quads = ((pairs << 8) + (pairs >> 16)) & 0x0000ffff0000ffffull;
	*v = (uint32_t)((quads << 16) + (quads >> 32));
	return true;
}

/* Up to 16 hex digits (a 17th is an error). */
static int parse_hex(const char **p, const char *end, uint64_t *v)
{
	uint64_t x = 0;
	const char *s = *p;
	uint32_t hi, lo;
	/* a 64-bit kernel's addresses: 16 digits, then not one */
	if (end - s > 16 && hex8(s, &hi) && hex8(s + 8, &lo) && !hex_digit_1[(unsigned char)s[16]]) {
		*p = s + 16;
		*v = (uint64_t)hi << 32 | lo;
		return 0;
	}
	int n = 0;
	while (s < end && n < 17) {
		unsigned d = hex_digit_1[(unsigned char)*s];
		if (!d)
			break;
		x = x << 4 | (d - 1);
		s++;
		n++;
	}
	if (!n || n > 16)
		return -1;
	*p = s;
	*v = x;
	return 0;
}

/* Read a small or pseudo file (size unknown: /proc) into memory, into
 * room for `expect` bytes first (0: a small file); NULL when it cannot be
 * opened (quietly: a perf map may not exist). */
static char *slurp(const char *path, size_t *len, size_t expect)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	char *buf = input_read_fd(fd, path, expect, len);
	close(fd);
	return buf;
}

/* Call fn(line, length, arg) on each line of a small or pseudo file (of
 * about `expect` bytes, 0: small), after sized(file length, arg) when
 * given; -1 when it cannot be read. */
static int each_line(const char *path, size_t expect, void (*fn)(const char *line, size_t n, void *arg),
		     void (*sized)(size_t len, void *arg), void *arg)
{
	size_t len;
	char *buf = slurp(path, &len, expect);
	if (!buf)
		return -1;
	if (sized)
		sized(len, arg);
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
	char c = k->type, up = c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
	if (up != 'T' && up != 'W' && up != 'D' && up != 'B')
		return false;
	if (k->name[0] == '$')
		return false;
	int bind = c == 'W' ? SYM_BIND_WEAK : c == up ? SYM_BIND_GLOBAL : SYM_BIND_LOCAL;
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

/* Room for a symbol per 20 bytes (a 64-bit kernel's lines are longer:
 * 16 digits, type, name): no regrowing while loading. */
static void kernel_sized(size_t len, void *arg)
{
	struct kernel_load *l = arg;
	symtab_reserve(l->t, l->t->nr + len / 20 + 1);
}

/* /proc/kallsyms is 5.4 MB on a distribution kernel (122,000 lines, with
 * modules): read into room for that at once, it is not copied through
 * seven doublings from 64 KiB (1,300 page faults on the thread that reads
 * it, each ~1.3 us here; the room is on huge pages, alloc.h). */
enum { KALLSYMS_EXPECT = 8 << 20 };

int kallsyms_load(struct symtab *t, const char *path, uint64_t *text)
{
	struct kernel_load l = { t, text, 0, false };
	*text = 0;
	if (each_line(path, KALLSYMS_EXPECT, kernel_line, kernel_sized, &l) < 0)
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
	if (each_line(path, KALLSYMS_EXPECT, module_line, NULL, &l) < 0)
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

enum { LAYOUT_MAX = 256 << 10 };

bool kallsyms_same_layout(const char *copy, const char *live)
{
	FILE *a = fopen(copy, "re");
	FILE *b = a ? fopen(live, "re") : NULL;
	bool same = false;
	char la[512], lb[512];
	size_t read = 0;
	/* (A line longer than the buffers comes in pieces, the same pieces
	 * from both when they are the same.) */
	while (b && read < LAYOUT_MAX && fgets(la, sizeof(la), a) && fgets(lb, sizeof(lb), b) && !strcmp(la, lb)) {
		size_t n = strlen(la);
		read += n;
		if (n && la[n - 1] == '\n')
			n--;
		struct kallsyms_line k;
		if (kallsyms_line(la, n, &k) && k.addr && (k.type == 'T' || k.type == 't') && !k.module_len) {
			same = true;
			break;
		}
	}
	if (b)
		fclose(b);
	if (a)
		fclose(a);
	return same;
}

size_t kernel_build_id(uint8_t id[20])
{
	size_t len;
	char *buf = slurp("/sys/kernel/notes", &len, 0);
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
