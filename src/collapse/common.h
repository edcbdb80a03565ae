/* Helpers shared by the text collapsers (not perf's hot path): byte-level
 * trimming, a per-parse diagnostic budget, a stack under construction, and
 * "last value wins" leaf counts for formats whose reference tools overwrite
 * rather than sum a repeated stack. */
#ifndef SCORCH_COLLAPSE_COMMON_H
#define SCORCH_COLLAPSE_COMMON_H

#include "base/error.h"
#include "collapse/collapse.h"
#include "profile/profile.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline bool cx_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Trim ASCII whitespace in place on a (pointer, length) slice. */
void cx_trim(const char **s, size_t *n);
void cx_trim_end(const char *s, size_t *n);
void cx_trim_start(const char **s, size_t *n);

static inline bool cx_starts(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);
	return n >= k && !memcmp(s, prefix, k);
}

/* A line made only of decimal digits that fits in 64 bits. */
bool cx_parse_u64(const char *s, size_t n, uint64_t *out);

/* A decimal floating-point number as Rust's f64 parser takes it (optional
 * sign, digits with an optional fraction and exponent, inf, nan), with no
 * surrounding space; converted with strtod. */
bool cx_parse_f64(const char *s, size_t n, double *out);

/* Does s[0..n) end with the NUL-terminated suffix? */
static inline bool cx_ends(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);
	return n >= k && !memcmp(s + n - k, suffix, k);
}

/* Malformed-input reporting for one parse: each bad line is reported with
 * file and line (up to a budget, then a summary), or with --strict the first
 * one is an error. */
struct cx_diag {
	const char *name;
	bool strict;
	size_t bad;
};

void cx_diag_init(struct cx_diag *d, const struct collapse_source *src,
		  const struct collapse_opts *opts);
/* Report a bad line. Returns -1 (error printed) with --strict, else 0 after
 * a warning: the caller then skips what it was parsing. */
int cx_bad(struct cx_diag *d, size_t line, const char *fmt, ...) PRINTF_LIKE(3, 4);
/* An error that stops the parse whatever --strict says (structure broken). */
int cx_fatal(struct cx_diag *d, size_t line, const char *fmt, ...) PRINTF_LIKE(3, 4);
/* Print the "N more" summary if the budget ran out. */
void cx_diag_finish(struct cx_diag *d);

/* A stack under construction as interned frame names. */
struct cx_stack {
	sym_t *syms;
	size_t n, alloc;
};

void cx_stack_push(struct cx_stack *st, sym_t s);
void cx_stack_release(struct cx_stack *st);
/* Push syms[0..n) root first into p and return the leaf (root when empty). */
node_t cx_stack_commit(struct profile *p, const struct cx_stack *st);
/* Same, taking syms in reverse (syms[n-1] is the root). */
node_t cx_stack_commit_reversed(struct profile *p, const struct cx_stack *st);

/* A growable byte buffer for building frame names. */
struct cx_buf {
	char *s;
	size_t n, alloc;
};

void cx_buf_add(struct cx_buf *b, const char *s, size_t n);
static inline void cx_buf_addc(struct cx_buf *b, char c)
{
	cx_buf_add(b, &c, 1);
}
static inline void cx_buf_adds(struct cx_buf *b, const char *s)
{
	cx_buf_add(b, s, strlen(s));
}
void cx_buf_release(struct cx_buf *b);

/* Leaf counts where a later value for the same stack replaces the earlier
 * one (inferno's sample/vtune/vsprof collapsers insert rather than add).
 * Values are kept aside and added to the profile by cx_last_flush. */
struct cx_last {
	double *val; /* by node id; NAN = unset */
	size_t alloc;
	node_t *touched;
	size_t n, talloc;
};

void cx_last_set(struct cx_last *l, node_t leaf, double v);
void cx_last_flush(struct cx_last *l, struct profile *p);
void cx_last_release(struct cx_last *l);

/* inferno's repair of Rust symbols that DTrace and macOS sample print
 * half-demangled: with a trailing "::h<16 hex>" hash, drop the hash and
 * decode "..", "$LT$" and friends. Appends the result to out and returns
 * true when the symbol was such a symbol; returns false (out untouched)
 * otherwise. */
bool cx_fix_rust_symbol(const char *s, size_t n, struct cx_buf *out);

#endif
