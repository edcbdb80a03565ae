#include "collapse/common.h"

#include "base/alloc.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

enum { CX_MAX_WARNINGS = 10 };

void cx_trim_end(const char *s, size_t *n)
{
	while (*n && cx_is_space(s[*n - 1]))
		(*n)--;
}

void cx_trim_start(const char **s, size_t *n)
{
	while (*n && cx_is_space(**s)) {
		(*s)++;
		(*n)--;
	}
}

void cx_trim(const char **s, size_t *n)
{
	cx_trim_start(s, n);
	cx_trim_end(*s, n);
}

bool cx_parse_u64(const char *s, size_t n, uint64_t *out)
{
	if (!n)
		return false;
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

void cx_diag_init(struct cx_diag *d, const struct collapse_source *src,
		  const struct collapse_opts *opts)
{
	d->name = src->name ? src->name : "<stdin>";
	d->strict = opts && opts->strict;
	d->bad = 0;
}

static void report(const char *name, size_t line, bool is_error, const char *fmt, va_list ap)
{
	char msg[1024];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (is_error)
		error_at(name, line, "%s", msg);
	else
		warn_at(name, line, "%s", msg);
}

int cx_bad(struct cx_diag *d, size_t line, const char *fmt, ...)
{
	va_list ap;
	d->bad++;
	if (d->strict) {
		va_start(ap, fmt);
		report(d->name, line, true, fmt, ap);
		va_end(ap);
		return -1;
	}
	if (d->bad <= CX_MAX_WARNINGS) {
		va_start(ap, fmt);
		report(d->name, line, false, fmt, ap);
		va_end(ap);
	}
	return 0;
}

int cx_fatal(struct cx_diag *d, size_t line, const char *fmt, ...)
{
	va_list ap;
	d->bad++;
	va_start(ap, fmt);
	report(d->name, line, true, fmt, ap);
	va_end(ap);
	return -1;
}

void cx_diag_finish(struct cx_diag *d)
{
	if (!d->strict && d->bad > CX_MAX_WARNINGS)
		warn("%s: skipped %zu malformed lines in all", d->name, d->bad);
}

void cx_stack_push(struct cx_stack *st, sym_t s)
{
	VEC_GROW(st->syms, st->n + 1, st->alloc);
	st->syms[st->n++] = s;
}

void cx_stack_release(struct cx_stack *st)
{
	free(st->syms);
	memset(st, 0, sizeof(*st));
}

node_t cx_stack_commit(struct profile *p, const struct cx_stack *st)
{
	node_t node = PROFILE_ROOT;
	for (size_t i = 0; i < st->n; i++)
		node = profile_push(p, node, st->syms[i]);
	return node;
}

node_t cx_stack_commit_reversed(struct profile *p, const struct cx_stack *st)
{
	node_t node = PROFILE_ROOT;
	for (size_t i = st->n; i-- > 0;)
		node = profile_push(p, node, st->syms[i]);
	return node;
}

void cx_buf_add(struct cx_buf *b, const char *s, size_t n)
{
	VEC_GROW(b->s, b->n + n + 1, b->alloc);
	if (n)
		memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = '\0';
}

void cx_buf_release(struct cx_buf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}

void cx_last_set(struct cx_last *l, node_t leaf, double v)
{
	if (leaf >= l->alloc) {
		size_t old = l->alloc;
		VEC_GROW(l->val, (size_t)leaf + 1, l->alloc);
		for (size_t i = old; i < l->alloc; i++)
			l->val[i] = NAN;
	}
	if (isnan(l->val[leaf])) {
		VEC_GROW(l->touched, l->n + 1, l->talloc);
		l->touched[l->n++] = leaf;
	}
	l->val[leaf] = v;
}

void cx_last_flush(struct cx_last *l, struct profile *p)
{
	for (size_t i = 0; i < l->n; i++) {
		node_t leaf = l->touched[i];
		profile_count(p, leaf, l->val[leaf]);
		l->val[leaf] = NAN;
	}
	l->n = 0;
}

void cx_last_release(struct cx_last *l)
{
	free(l->val);
	free(l->touched);
	memset(l, 0, sizeof(*l));
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Escapes of the legacy Rust mangling, "$XX$" -> text. */
static const struct {
	const char *esc, *text;
} rust_escapes[] = {
	{ "$SP$", "@" },   { "$BP$", "*" },   { "$RF$", "&" },   { "$LT$", "<" },
	{ "$GT$", ">" },   { "$LP$", "(" },   { "$RP$", ")" },   { "$C$", "," },
	{ "$u7e$", "~" },  { "$u20$", " " },  { "$u27$", "'" },  { "$u3d$", "=" },
	{ "$u5b$", "[" },  { "$u5d$", "]" },  { "$u7b$", "{" },  { "$u7d$", "}" },
	{ "$u3b$", ";" },  { "$u2b$", "+" },  { "$u21$", "!" },  { "$u22$", "\"" },
};

bool cx_fix_rust_symbol(const char *s, size_t n, struct cx_buf *out)
{
	enum { HASH_LEN = 17 }; /* 'h' + 16 hex digits */
	if (n < HASH_LEN || s[n - HASH_LEN] != 'h')
		return false;
	for (size_t i = n - HASH_LEN + 1; i < n; i++)
		if (!is_hex(s[i]))
			return false;
	size_t len = n - HASH_LEN;
	if (len >= 2 && s[len - 2] == ':' && s[len - 1] == ':')
		len -= 2;
	const char *r = s, *end = s + len;
	if (len >= 2 && r[0] == '_' && r[1] == '$')
		r++;
	while (r < end) {
		if (*r == '.') {
			if (r + 1 < end && r[1] == '.') {
				cx_buf_add(out, "::", 2);
				r += 2;
			} else {
				cx_buf_addc(out, '.');
				r++;
			}
		} else if (*r == '$') {
			size_t left = (size_t)(end - r);
			bool done = false;
			for (size_t k = 0; k < sizeof(rust_escapes) / sizeof(rust_escapes[0]); k++) {
				size_t el = strlen(rust_escapes[k].esc);
				if (left >= el && !memcmp(r, rust_escapes[k].esc, el)) {
					cx_buf_adds(out, rust_escapes[k].text);
					r += el;
					done = true;
					break;
				}
			}
			if (!done) {
				/* Unknown escape: the rest is kept verbatim. */
				cx_buf_add(out, r, left);
				break;
			}
		} else {
			const char *q = r;
			while (q < end && *q != '$' && *q != '.')
				q++;
			cx_buf_add(out, r, (size_t)(q - r));
			r = q;
		}
	}
	return true;
}

static bool ieq(const char *s, size_t n, const char *word)
{
	if (strlen(word) != n)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c != word[i])
			return false;
	}
	return true;
}

bool cx_parse_f64(const char *s, size_t n, double *out)
{
	size_t i = 0;
	bool neg = false;
	if (i < n && (s[i] == '+' || s[i] == '-')) {
		neg = s[i] == '-';
		i++;
	}
	if (ieq(s + i, n - i, "inf") || ieq(s + i, n - i, "infinity")) {
		*out = neg ? -INFINITY : INFINITY;
		return true;
	}
	if (ieq(s + i, n - i, "nan")) {
		*out = NAN;
		return true;
	}
	size_t digits = 0;
	while (i < n && s[i] >= '0' && s[i] <= '9') {
		i++;
		digits++;
	}
	if (i < n && s[i] == '.') {
		i++;
		while (i < n && s[i] >= '0' && s[i] <= '9') {
			i++;
			digits++;
		}
	}
	if (!digits)
		return false;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		size_t ed = 0;
		while (i < n && s[i] >= '0' && s[i] <= '9') {
			i++;
			ed++;
		}
		if (!ed)
			return false;
	}
	if (i != n)
		return false;
	char tmp[128];
	if (n >= sizeof(tmp)) {
		char *big = xmemdup0(s, n);
		*out = strtod(big, NULL);
		free(big);
	} else {
		memcpy(tmp, s, n);
		tmp[n] = '\0';
		*out = strtod(tmp, NULL);
	}
	return true;
}
