/* Demangling as perf 6.1 does it. perf calls libiberty's cplus_demangle
 * with no options (DMGL_NO_OPTS: the top-level function's parameters,
 * qualifiers and return type are left out, so "foo(int) const" prints as
 * "foo"), and libiberty also handles Rust (legacy and v0) in its "auto"
 * style. libiberty is not packaged as a shared library, but binutils'
 * libbfd (installed with gcc) exports cplus_demangle, so it is looked up
 * at run time with dlopen/dlsym: no link-time dependency, and the very code
 * perf runs. Without it, libstdc++'s __cxa_demangle (the same cp-demangle
 * code, always with parameters) is used and the outermost parameter list
 * is cut off by hand, which matches except for return types of template
 * functions. The lookup happens once (pthread_once, which ThreadSanitizer sees).
 *
 * cplus_demangle builds its answer with realloc, one piece at a time; its
 * callback forms (rust_demangle_callback, cplus_demangle_v3_callback, the
 * two it tries in turn in its "auto" style) hand over the same pieces,
 * which are gathered here in a buffer on the caller's stack instead. */
#include "symbolize/demangle.h"

#include "base/alloc.h"

#include <dirent.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <setjmp.h>

typedef char *(*cplus_demangle_fn)(const char *, int);
typedef void (*demangle_piece_fn)(const char *, size_t, void *);
typedef int (*demangle_callback_fn)(const char *, int, demangle_piece_fn, void *);
typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);

/* libiberty's DMGL_AUTO: the options cplus_demangle passes on when called
 * without any (its default style). */
enum { LIBIBERTY_DMGL_AUTO = 1 << 8 };

struct demanglers {
	cplus_demangle_fn cplus;
	demangle_callback_fn rust_cb, v3_cb; /* both, or neither */
	cxa_demangle_fn cxa;
};

static struct demanglers dm; /* written once under pthread_once */
static pthread_once_t dm_once = PTHREAD_ONCE_INIT;

static void *sym_from(const char *lib, const char *name)
{
	void *h = dlopen(lib, RTLD_LAZY | RTLD_LOCAL);
	return h ? dlsym(h, name) : NULL;
}

static void dm_init(void)
{
	static const char *const dirs[] = { "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib",
					    "/lib/x86_64-linux-gnu" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && !dm.cplus; i++) {
		DIR *d = opendir(dirs[i]);
		if (!d)
			continue;
		struct dirent *e;
		while ((e = readdir(d)) && !dm.cplus) {
			if (strncmp(e->d_name, "libbfd", 6) || !strstr(e->d_name, ".so"))
				continue;
			char path[1024];
			snprintf(path, sizeof(path), "%s/%s", dirs[i], e->d_name);
			void *f = sym_from(path, "cplus_demangle");
			memcpy(&dm.cplus, &f, sizeof(f));
			void *r = f ? sym_from(path, "rust_demangle_callback") : NULL;
			void *v = f ? sym_from(path, "cplus_demangle_v3_callback") : NULL;
			if (r && v) {
				memcpy(&dm.rust_cb, &r, sizeof(r));
				memcpy(&dm.v3_cb, &v, sizeof(v));
			}
		}
		closedir(d);
	}
	void *f = sym_from("libstdc++.so.6", "__cxa_demangle");
	memcpy(&dm.cxa, &f, sizeof(f));
}

/* "ret f<T>(int) const" -> "f<T>" as far as can be told from the text. */
static void strip_params(char *s)
{
	size_t n = strlen(s);
	static const char *const quals[] = { " const", " volatile", " &&", " &", " noexcept" };
	for (bool again = true; again;) {
		again = false;
		for (size_t q = 0; q < sizeof(quals) / sizeof(quals[0]); q++) {
			size_t l = strlen(quals[q]);
			if (n > l && !memcmp(s + n - l, quals[q], l)) {
				n -= l;
				again = true;
			}
		}
	}
	if (!n || s[n - 1] != ')')
		return;
	int depth = 0;
	for (size_t i = n; i-- > 0;) {
		if (s[i] == ')')
			depth++;
		else if (s[i] == '(' && --depth == 0) {
			s[i] = 0;
			return;
		}
	}
}

/* ---- Rust legacy symbols (after C++ demangling), as perf does -------------- */

static bool is_prefixed_hash(const char *s)
{
	if (strncmp(s, "::h", 3))
		return false;
	s += 3;
	bool seen[16] = { 0 };
	for (int i = 0; i < 16; i++, s++) {
		if (*s >= '0' && *s <= '9')
			seen[*s - '0'] = true;
		else if (*s >= 'a' && *s <= 'f')
			seen[*s - 'a' + 10] = true;
		else
			return false;
	}
	int count = 0;
	for (int i = 0; i < 16; i++)
		count += seen[i];
	return count >= 5;
}

static const char *const rust_escapes[][2] = {
	{ "$C$", "," },	  { "$SP$", "@" },  { "$BP$", "*" },  { "$RF$", "&" },	{ "$LT$", "<" },
	{ "$GT$", ">" },  { "$LP$", "(" },  { "$RP$", ")" },  { "$u20$", " " }, { "$u27$", "'" },
	{ "$u5b$", "[" }, { "$u5d$", "]" }, { "$u7b$", "{" }, { "$u7d$", "}" }, { "$u7e$", "~" },
	{ "$u3b$", ";" }, { "$u2b$", "+" }, { "$u22$", "\"" },
};
enum { NR_RUST_ESCAPES = sizeof(rust_escapes) / sizeof(rust_escapes[0]) };

static bool looks_like_rust(const char *s, size_t n)
{
	const char *end = s + n;
	while (s < end) {
		if (*s == '$') {
			size_t k;
			for (k = 0; k < NR_RUST_ESCAPES; k++) {
				size_t l = strlen(rust_escapes[k][0]);
				if ((size_t)(end - s) >= l && !strncmp(s, rust_escapes[k][0], l)) {
					s += l;
					break;
				}
			}
			if (k == NR_RUST_ESCAPES)
				return false;
		} else if (*s == '.') {
			if (end - s >= 3 && !strncmp(s, "...", 3))
				return false;
			s++;
		} else if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
			   (*s >= '0' && *s <= '9') || *s == '_' || *s == ':') {
			s++;
		} else {
			return false;
		}
	}
	return true;
}

/* In place: drop the hash and decode escapes. */
static void rust_demangle_in_place(char *s)
{
	size_t n = strlen(s) - 19;
	char *in = s, *out = s, *end = s + n;
	while (in < end) {
		if (*in == '$') {
			size_t k;
			for (k = 0; k < NR_RUST_ESCAPES; k++) {
				size_t l = strlen(rust_escapes[k][0]);
				if ((size_t)(end - in) >= l && !strncmp(in, rust_escapes[k][0], l)) {
					*out++ = rust_escapes[k][1][0];
					in += l;
					break;
				}
			}
			if (k == NR_RUST_ESCAPES)
				*out++ = *in++;
		} else if (*in == '.') {
			if (end - in >= 2 && in[1] == '.') {
				*out++ = ':';
				*out++ = ':';
				in += 2;
			} else {
				*out++ = '-';
				in++;
			}
		} else {
			*out++ = *in++;
		}
	}
	*out = 0;
}

static bool rust_is_mangled(const char *s)
{
	size_t n = strlen(s);
	if (n <= 19)
		return false;
	if (!is_prefixed_hash(s + n - 19))
		return false;
	return looks_like_rust(s, n - 19);
}

static void out_append(struct demangled *d, const char *s, size_t n)
{
	if (d->len + n + 1 > d->cap) {
		size_t cap = d->cap * 2;
		while (cap < d->len + n + 1)
			cap *= 2;
		if (d->s == d->inline_buf) {
			d->s = xmalloc(cap);
			memcpy(d->s, d->inline_buf, d->len);
		} else {
			d->s = xrealloc(d->s, cap);
		}
		d->cap = cap;
	}
	memcpy(d->s + d->len, s, n);
	d->len += n;
	d->s[d->len] = 0;
}

/* A demangling in progress: the answer, and where to go when it grows
 * past DEMANGLED_MAX. libiberty's Rust v0 demangler expands back
 * references without a bound on its output: a 67-byte name
 * (tests/fuzz/corpus/demangle/slow-rust-backrefs) writes gigabytes over
 * minutes. Its callback forms allocate nothing (their state is on the
 * stack), so leaving them by longjmp from the callback loses nothing. */
enum { DEMANGLED_MAX = 1 << 20 };

struct demangling {
	struct demangled *d;
	jmp_buf too_long;
};

/* libiberty hands over pieces of a few bytes: copied inline */
static void piece(const char *s, size_t n, void *opaque)
{
	struct demangling *dg = opaque;
	struct demangled *d = dg->d;
	if (d->len + n > DEMANGLED_MAX)
		longjmp(dg->too_long, 1);
	if (n > 16 || d->len + n + 1 > d->cap) {
		out_append(d, s, n);
		return;
	}
	char *o = d->s + d->len;
	d->len += n;
	while (n--)
		*o++ = *s++;
	*o = 0;
}

static void out_reset(struct demangled *d)
{
	if (d->s && d->s != d->inline_buf)
		free(d->s);
	d->s = d->inline_buf;
	d->cap = sizeof(d->inline_buf);
	d->len = 0;
	d->s[0] = 0;
}

void demangled_release(struct demangled *d)
{
	out_reset(d);
}

/* One callback demangler's answer into d: false when it has none, or
 * one longer than DEMANGLED_MAX (then d is empty). */
static bool demangle_bounded(demangle_callback_fn fn, const char *name, struct demangled *d)
{
	struct demangling dg = { .d = d };
	if (setjmp(dg.too_long)) {
		out_reset(d);
		return false;
	}
	if (fn(name, LIBIBERTY_DMGL_AUTO, piece, &dg))
		return true;
	out_reset(d);
	return false;
}

/* libiberty's answer (as cplus_demangle(name, 0) gives it) into d. */
static bool libiberty_demangle(const char *name, struct demangled *d)
{
	if (dm.rust_cb)
		return demangle_bounded(dm.rust_cb, name, d) || demangle_bounded(dm.v3_cb, name, d);
	char *s = dm.cplus(name, 0);
	if (s)
		out_append(d, s, strlen(s));
	free(s);
	return s != NULL;
}

bool demangle_into(const char *name, struct demangled *d)
{
	d->s = NULL;
	out_reset(d);
	if (name[0] != '_' || (name[1] != 'Z' && name[1] != 'R' && name[1] != 'G'))
		return false;
	pthread_once(&dm_once, dm_init);
	bool ok = false;
	if (dm.cplus) {
		ok = libiberty_demangle(name, d);
	} else if (dm.cxa && name[1] == 'Z') {
		int status = 0;
		char *s = dm.cxa(name, NULL, NULL, &status);
		if (s && !status) {
			strip_params(s);
			out_append(d, s, strlen(s));
			ok = true;
		}
		free(s);
	}
	if (ok && rust_is_mangled(d->s)) {
		rust_demangle_in_place(d->s);
		d->len = strlen(d->s);
	}
	return ok;
}

char *demangle(const char *name, size_t n)
{
	if (n < 2 || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R' && name[1] != 'G'))
		return NULL;
	char *tmp = xmemdup0(name, n);
	struct demangled d;
	char *out = demangle_into(tmp, &d) ? xmemdup0(d.s, d.len) : NULL;
	demangled_release(&d);
	free(tmp);
	return out;
}
