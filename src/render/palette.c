#include "render/palette.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/input.h"
#include "base/out.h"
#include "base/strpool.h"
#include "render/escape.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const names[] = {
	[PAL_HOT] = "hot",	 [PAL_MEM] = "mem",	  [PAL_IO] = "io",
	[PAL_WAKEUP] = "wakeup", [PAL_CHAIN] = "chain",	  [PAL_JAVA] = "java",
	[PAL_JS] = "js",	 [PAL_PERL] = "perl",	  [PAL_RED] = "red",
	[PAL_GREEN] = "green",	 [PAL_BLUE] = "blue",	  [PAL_AQUA] = "aqua",
	[PAL_YELLOW] = "yellow", [PAL_PURPLE] = "purple", [PAL_ORANGE] = "orange",
	[PAL_WALL] = "wall",	 [PAL_PYTHON] = "python",
};

const char palette_names[] =
	"hot mem io wakeup chain java js perl red green blue aqua yellow purple orange wall python";

enum palette_id palette_find(const char *name)
{
	for (int i = 0; i < PAL_UNKNOWN; i++)
		if (!strcmp(names[i], name))
			return (enum palette_id)i;
	return PAL_UNKNOWN;
}

const char *palette_name(enum palette_id id)
{
	return id < PAL_UNKNOWN ? names[id] : "unknown";
}

bool palette_background(const char *bg, enum palette_id pal, char top[8], char bottom[8])
{
	if (!bg || !*bg) {
		if (pal == PAL_MEM)
			bg = "green";
		else if (pal == PAL_IO || pal == PAL_WAKEUP || pal == PAL_CHAIN)
			bg = "blue";
		else if (pal >= PAL_RED && pal <= PAL_ORANGE)
			bg = "grey";
		else
			bg = "yellow";
	}
	static const struct {
		const char *name, *top, *bottom;
	} bgs[] = {
		{ "yellow", "#eeeeee", "#eeeeb0" },
		{ "blue", "#eeeeee", "#e0e0ff" },
		{ "green", "#eef2ee", "#e0ffe0" },
		{ "grey", "#f8f8f8", "#e8e8e8" },
	};
	for (size_t i = 0; i < sizeof(bgs) / sizeof(bgs[0]); i++) {
		if (!strcmp(bg, bgs[i].name)) {
			memcpy(top, bgs[i].top, 8);
			memcpy(bottom, bgs[i].bottom, 8);
			return true;
		}
	}
	/* flamegraph.pl accepts "#" and any 6 characters as a flat colour; we
	 * require hex digits so the value is a colour, not markup. */
	if (bg[0] == '#' && strlen(bg) == 7 && strspn(bg + 1, "0123456789abcdefABCDEF") == 6) {
		memcpy(top, bg, 8);
		memcpy(bottom, bg, 8);
		return true;
	}
	return false;
}

void palette_rng_seed(struct palette_rng *r, uint64_t seed)
{
	r->state = seed ? seed : 0x9e3779b97f4a7c15ull;
}

static double rng_next(struct palette_rng *r)
{
	/* xorshift64*: enough for --random's throwaway colours. */
	uint64_t x = r->state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->state = x;
	return (double)((x * 0x2545F4914F6CDD1Dull) >> 11) / 9007199254740992.0;
}

double palette_perl_rand_first(uint32_t seed)
{
	/* Perl >= 5.20 implements rand() with its own drand48: srand(s) sets
	 * X = s << 16 | 0x330E and rand() steps X = (a X + c) mod 2^48. */
	uint64_t x = ((uint64_t)seed << 16 | 0x330E) & 0xFFFFFFFFFFFFull;
	x = (0x5DEECE66Dull * x + 0xB) & 0xFFFFFFFFFFFFull;
	return (double)x / 281474976710656.0;
}

double palette_namehash(const uint32_t *cps, size_t n)
{
	/* Drop a "module`" prefix: one character, the shortest run, a backtick. */
	for (size_t i = 1; i < n; i++) {
		if (cps[i] == '`') {
			cps += i + 1;
			n -= i + 1;
			break;
		}
	}
	double vector = 0, weight = 1, max = 1;
	unsigned mod = 10;
	for (size_t i = 0; i < n && i < 3; i++, mod++) {
		vector += (double)(cps[i] % mod) / (double)(mod - 1) * weight;
		max += weight;
		weight *= 0.70;
	}
	return 1 - vector / max;
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);
	return n >= k && !memcmp(s + n - k, suffix, k);
}

static bool contains(const char *s, size_t n, const char *needle)
{
	return memmem(s, n, needle, strlen(needle)) != NULL;
}

static bool java_ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

/* A Java method as HotSpot's perf map names it once stackcollapse's rules
 * ran (and as record names interpreted frames): "TYPE Class.method", e.g.
 * "void Phases$Alpha.run", "java.lang.String[] K.<init>". */
static bool java_method_name(const char *s, size_t n)
{
	const char *sp = memchr(s, ' ', n);
	if (!sp || sp == s)
		return false;
	for (const char *c = s; c < sp; c++) /* the type: a qualified name, [] allowed */
		if (!java_ident_char(*c) && *c != '.' && *c != '[' && *c != ']')
			return false;
	const char *m = sp + 1, *end = s + n, *dot = NULL;
	if (m == end)
		return false;
	for (const char *c = m; c < end; c++) {
		if (*c == '.')
			dot = c;
		else if (!java_ident_char(*c) && *c != '<' && *c != '>')
			return false;
	}
	return dot && dot > m && dot + 1 < end;
}

/* A frame of a runtime's own code, as record names them (doc/runtimes.md):
 * Python "qualname (file.py)", "(<frozen ...>)", "[python]"; Java methods
 * and HotSpot's "Interpreter"; V8's "JS:..." (and older "LazyCompile:",
 * "Function:", "Script:"). */
bool palette_runtime_frame(const char *s, size_t n)
{
	if (ends_with(s, n, ".py)") || contains(s, n, " (<") || (n == 8 && !memcmp(s, "[python]", 8)))
		return true;
	if ((n == 11 && !memcmp(s, "Interpreter", 11)) || java_method_name(s, n))
		return true;
	static const char *const js[] = { "JS:", "LazyCompile:", "Function:", "Script:" };
	for (size_t i = 0; i < sizeof(js) / sizeof(js[0]); i++)
		if (n >= strlen(js[i]) && !memcmp(s, js[i], strlen(js[i])))
			return true;
	return false;
}

/* The flat palette a multi palette picks for this name. */
static enum palette_id pick_flat(enum palette_id pal, const char *s, size_t n)
{
	switch (pal) {
	case PAL_JAVA: {
		if (ends_with(s, n, "_[j]"))
			return PAL_GREEN;
		if (ends_with(s, n, "_[i]"))
			return PAL_AQUA;
		static const char *const pkgs[] = { "java/", "javax/", "jdk/", "net/",
						    "org/",  "com/",   "io/",  "sun/" };
		/* ^L?(java|javax|jdk|net|org|com|io|sun)/ */
		const char *t = s;
		size_t tn = n;
		if (tn && *t == 'L')
			t++, tn--;
		for (size_t i = 0; i < sizeof(pkgs) / sizeof(pkgs[0]); i++) {
			size_t k = strlen(pkgs[i]);
			if (tn >= k && !memcmp(t, pkgs[i], k))
				return PAL_GREEN;
		}
		if (contains(s, n, ":::"))
			return PAL_GREEN;
		if (contains(s, n, "::"))
			return PAL_YELLOW;
		if (ends_with(s, n, "_[k]"))
			return PAL_ORANGE;
		return PAL_RED;
	}
	case PAL_PERL:
		if (contains(s, n, "::"))
			return PAL_YELLOW;
		if (contains(s, n, "Perl") || contains(s, n, ".pl"))
			return PAL_GREEN;
		if (ends_with(s, n, "_[k]"))
			return PAL_ORANGE;
		return PAL_RED;
	case PAL_JS: {
		if (ends_with(s, n, "_[j]"))
			return memchr(s, '/', n) ? PAL_GREEN : PAL_AQUA;
		if (contains(s, n, "::"))
			return PAL_YELLOW;
		const char *slash = memchr(s, '/', n);
		if (slash && contains(slash, n - (size_t)(slash - s), ".js"))
			return PAL_GREEN;
		if (memchr(s, ':', n))
			return PAL_AQUA;
		if (n == 1 && s[0] == ' ')
			return PAL_GREEN;
		if (contains(s, n, "_[k]"))
			return PAL_ORANGE;
		return PAL_RED;
	}
	case PAL_PYTHON:
		if (palette_runtime_frame(s, n))
			return PAL_GREEN;
		if (ends_with(s, n, "_[k]"))
			return PAL_ORANGE;
		return PAL_HOT;
	case PAL_WAKEUP:
		return PAL_AQUA;
	case PAL_CHAIN:
		return contains(s, n, "_[w]") ? PAL_AQUA : PAL_BLUE;
	case PAL_WALL:
		/* record --wall's leaf frames, by the kind of time under them
		 * (whole names only: the palettes a user knows for each). */
		if (n == 8 && !memcmp(s, "[on-cpu]", 8))
			return PAL_RED;
		if (n == 9 && !memcmp(s, "[off-cpu]", 9))
			return PAL_IO;
		if (n == 10 && !memcmp(s, "[runnable]", 10))
			return PAL_PURPLE;
		return PAL_HOT;
	default:
		return pal;
	}
}

enum { MAX_HASH_CPS = 4096 };

struct rgb palette_color(enum palette_id pal, enum palette_seed seed, struct palette_rng *rng,
			 const char *name, size_t n)
{
	double v1, v2, v3;
	if (seed == SEED_RANDOM && rng) {
		v1 = rng_next(rng);
		v2 = rng_next(rng);
		v3 = rng_next(rng);
	} else if (seed == SEED_HASH) {
		/* Only the first and last few characters matter, but the module
		 * prefix strip needs the first backtick: decode what we need. */
		uint32_t cps[MAX_HASH_CPS] = { 0 };
		size_t nc = 0, i = 0;
		while (i < n && nc < MAX_HASH_CPS) {
			uint32_t raw;
			utf8_decode(name, n, &i, &raw);
			cps[nc++] = raw;
		}
		v1 = palette_namehash(cps, nc);
		for (size_t a = 0, b = nc ? nc - 1 : 0; a < b; a++, b--) {
			uint32_t t = cps[a];
			cps[a] = cps[b];
			cps[b] = t;
		}
		v2 = v3 = palette_namehash(cps, nc);
	} else {
		uint32_t sum = 0;
		size_t i = 0;
		while (i < n) {
			uint32_t raw;
			if ((unsigned char)name[i] < 0x80) {
				sum += (unsigned char)name[i++];
				continue;
			}
			utf8_decode(name, n, &i, &raw);
			sum += raw;
		}
		v1 = v2 = v3 = palette_perl_rand_first(sum);
	}
	struct rgb c = { 0, 0, 0 };
	switch (pick_flat(pal, name, n)) {
	case PAL_HOT:
		c = (struct rgb){ (uint8_t)(205 + (int)(50 * v3)), (uint8_t)(int)(230 * v1),
				  (uint8_t)(int)(55 * v2) };
		break;
	case PAL_MEM:
		c = (struct rgb){ 0, (uint8_t)(190 + (int)(50 * v2)), (uint8_t)(int)(210 * v1) };
		break;
	case PAL_IO: {
		uint8_t r = (uint8_t)(80 + (int)(60 * v1));
		c = (struct rgb){ r, r, (uint8_t)(190 + (int)(55 * v2)) };
		break;
	}
	case PAL_RED: {
		uint8_t g = (uint8_t)(50 + (int)(80 * v1));
		c = (struct rgb){ (uint8_t)(200 + (int)(55 * v1)), g, g };
		break;
	}
	case PAL_GREEN: {
		uint8_t r = (uint8_t)(50 + (int)(60 * v1));
		c = (struct rgb){ r, (uint8_t)(200 + (int)(55 * v1)), r };
		break;
	}
	case PAL_BLUE: {
		uint8_t r = (uint8_t)(80 + (int)(60 * v1));
		c = (struct rgb){ r, r, (uint8_t)(205 + (int)(50 * v1)) };
		break;
	}
	case PAL_YELLOW: {
		uint8_t r = (uint8_t)(175 + (int)(55 * v1));
		c = (struct rgb){ r, r, (uint8_t)(50 + (int)(20 * v1)) };
		break;
	}
	case PAL_PURPLE: {
		uint8_t r = (uint8_t)(190 + (int)(65 * v1));
		c = (struct rgb){ r, (uint8_t)(80 + (int)(60 * v1)), r };
		break;
	}
	case PAL_AQUA: {
		uint8_t g = (uint8_t)(165 + (int)(55 * v1));
		c = (struct rgb){ (uint8_t)(50 + (int)(60 * v1)), g, g };
		break;
	}
	case PAL_ORANGE:
		c = (struct rgb){ (uint8_t)(190 + (int)(65 * v1)), (uint8_t)(90 + (int)(65 * v1)), 0 };
		break;
	default:
		break; /* unknown palette: black, as flamegraph.pl */
	}
	return c;
}

struct rgb palette_diff(double delta, double maxdelta)
{
	if (delta > 0) {
		uint8_t g = (uint8_t)(int)(210 * (maxdelta - delta) / maxdelta);
		return (struct rgb){ 255, g, g };
	}
	if (delta < 0) {
		uint8_t v = (uint8_t)(int)(210 * (maxdelta + delta) / maxdelta);
		return (struct rgb){ v, v, 255 };
	}
	return (struct rgb){ 255, 255, 255 };
}

struct palette_map {
	struct strpool names;
	struct rgb *colors;
	uint32_t alloc;
};

struct palette_map *palette_map_new(void)
{
	struct palette_map *m = xcalloc(1, sizeof(*m));
	strpool_init(&m->names);
	return m;
}

void palette_map_free(struct palette_map *m)
{
	if (!m)
		return;
	strpool_release(&m->names);
	free(m->colors);
	free(m);
}

bool palette_map_get(struct palette_map *m, const char *name, size_t n, struct rgb *c)
{
	uint32_t id = strpool_find(&m->names, name, n);
	if (id == UINT32_MAX)
		return false;
	*c = m->colors[id];
	return true;
}

void palette_map_put(struct palette_map *m, const char *name, size_t n, struct rgb c)
{
	uint32_t id = strpool_intern(&m->names, name, n);
	VEC_GROW(m->colors, (size_t)id + 1, m->alloc);
	m->colors[id] = c;
}

static bool parse_rgb(const char *s, size_t n, struct rgb *c)
{
	unsigned v[3];
	char tail;
	char buf[64];
	if (n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (sscanf(buf, "rgb(%u,%u,%u%c", &v[0], &v[1], &v[2], &tail) != 4 || tail != ')' ||
	    v[0] > 255 || v[1] > 255 || v[2] > 255)
		return false;
	/* sscanf consumed through ')': reject trailing text. */
	const char *close = memchr(buf, ')', n);
	if (!close || (size_t)(close - buf) != n - 1)
		return false;
	*c = (struct rgb){ (uint8_t)v[0], (uint8_t)v[1], (uint8_t)v[2] };
	return true;
}

int palette_map_load(struct palette_map *m, const char *path, size_t *ignored)
{
	struct stat st;
	if (stat(path, &st) && errno == ENOENT)
		return 0;
	struct input in;
	if (input_load(&in, path))
		return -1;
	const char *p = in.data, *end = in.data + in.len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		size_t n = (size_t)(le - p);
		if (n && p[n - 1] == '\r')
			n--;
		const char *arrow = n >= 2 ? memmem(p, n, "->", 2) : NULL;
		struct rgb c;
		if (n) {
			if (arrow) {
				/* Further "->" fields are dropped, as flamegraph.pl. */
				const char *val = arrow + 2;
				const char *vend = p + n;
				const char *more = memmem(val, (size_t)(vend - val), "->", 2);
				if (more)
					vend = more;
				if (parse_rgb(val, (size_t)(vend - val), &c))
					palette_map_put(m, p, (size_t)(arrow - p), c);
				else
					(*ignored)++;
			} else {
				(*ignored)++;
			}
		}
		p = nl ? nl + 1 : end;
	}
	input_release(&in);
	return 0;
}

struct sort_ctx {
	const struct strpool *sp;
};

static int cmp_names(const void *a, const void *b, void *ctx)
{
	const struct strpool *sp = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint32_t lx = strpool_len(sp, x), ly = strpool_len(sp, y);
	int c = memcmp(strpool_str(sp, x), strpool_str(sp, y), lx < ly ? lx : ly);
	if (c)
		return c;
	return (lx > ly) - (lx < ly);
}

int palette_map_save(struct palette_map *m, const char *path)
{
	uint32_t nr = m->names.nr;
	uint32_t *ids = xreallocarray(NULL, nr ? nr : 1, sizeof(*ids));
	for (uint32_t i = 0; i < nr; i++)
		ids[i] = i;
	qsort_r(ids, nr, sizeof(*ids), cmp_names, &m->names);
	struct out *o = out_open(path);
	if (!o) {
		free(ids);
		return -1;
	}
	for (uint32_t i = 0; i < nr; i++) {
		struct rgb c = m->colors[ids[i]];
		out_write(o, strpool_str(&m->names, ids[i]), strpool_len(&m->names, ids[i]));
		out_printf(o, "->rgb(%u,%u,%u)\n", c.r, c.g, c.b);
	}
	free(ids);
	return out_commit(o);
}
