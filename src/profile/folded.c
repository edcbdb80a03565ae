#include "profile/folded.h"

#include "base/alloc.h"
#include "base/error.h"
#include "profile/order.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

static bool is_perl_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* The digits line[from..to) as a whole number; false past 2^64 - 1. */
static bool whole_digits(const char *line, size_t from, size_t to, uint64_t *v)
{
	uint64_t u = 0;
	for (size_t k = from; k < to; k++)
		if (__builtin_mul_overflow(u, 10, &u) || __builtin_add_overflow(u, (uint64_t)(line[k] - '0'), &u))
			return false;
	*v = u;
	return true;
}

bool folded_take_count(const char *line, size_t *n, struct folded_count *count)
{
	size_t end = *n;
	size_t i = end;
	/* Fast path: a whole number of at most 15 digits after a space. */
	uint64_t whole = 0, place = 1;
	while (i > 0 && end - i < 15 && (unsigned char)(line[i - 1] - '0') < 10) {
		whole += (uint64_t)(line[i - 1] - '0') * place;
		place *= 10;
		i--;
	}
	if (i < end && i > 0 && is_perl_space(line[i - 1])) {
		*count = (struct folded_count){ .whole = true, .u = whole, .d = (double)whole };
		*n = i - 1;
		return true;
	}
	i = end;
	/* Fraction part (optional): digits* after a '.' */
	while (i > 0 && line[i - 1] >= '0' && line[i - 1] <= '9')
		i--;
	size_t frac_start = i;
	size_t int_end = end;
	if (i > 0 && line[i - 1] == '.') {
		int_end = i - 1;
		i--;
		while (i > 0 && line[i - 1] >= '0' && line[i - 1] <= '9')
			i--;
		if (i == int_end) {
			/* ".5": no integer digits before the dot */
			return false;
		}
	} else if (frac_start == end) {
		return false; /* no digits at all */
	} else {
		int_end = end;
	}
	if (i == 0 || !is_perl_space(line[i - 1]))
		return false;
	/* Parse integer and fraction by hand: no locale, no strtod. */
	double v = 0;
	for (size_t k = i; k < int_end; k++)
		v = v * 10 + (line[k] - '0');
	if (int_end < end) {
		double scale = 0.1;
		for (size_t k = int_end + 1; k < end; k++) {
			v += (line[k] - '0') * scale;
			scale /= 10;
		}
	}
	*count = (struct folded_count){ .d = v };
	if (int_end == end) {
		count->whole = true;
		count->too_big = !whole_digits(line, i, end, &count->u);
	}
	*n = i - 1;
	return true;
}

int folded_add(struct profile *p, node_t leaf, const struct folded_count *c0,
	       const struct folded_count *c1, const char *name, size_t lineno)
{
	if (c0->too_big || c1->too_big)
		return error_at(name, lineno, "count exceeds %" PRIu64 " (2^64 - 1)", UINT64_MAX);
	if (!c0->whole || !c1->whole) {
		profile_add(p, leaf, c0->d, c1->d);
		return 0;
	}
	if (!profile_add_whole(p, leaf, c0->u, c1->u))
		return error_at(name, lineno, "the stack's count passes %" PRIu64 " (2^64 - 1)",
				UINT64_MAX);
	return 0;
}

struct folded_frame {
	const char *s;
	size_t n;
};

void folded_reader_init(struct folded_reader *r, struct profile *p, const char *name,
			const struct folded_opts *opts)
{
	memset(r, 0, sizeof(*r));
	r->p = p;
	r->name = name;
	if (opts)
		r->opts = *opts;
	if (!r->opts.max_warnings)
		r->opts.max_warnings = 10;
	r->repeats = r->opts.reverse;
	stackcache_init(&r->cache);
}

/* The first ';' in s[0..end), or end, where the bytes from lo up to end
 * may be read: inline, 16 bytes a step (the last step reads the 16 bytes
 * before end when lo allows), as frame names are short and a call to
 * memchr costs as much as the search. */
static inline const char *next_semi(const char *s, const char *end, const char *lo)
{
#ifdef __SSE2__
	const __m128i semi = _mm_set1_epi8(';');
	for (; end - s >= 16; s += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, semi));
		if (m)
			return s + __builtin_ctz(m);
	}
	if (s < end && end - lo >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(end - 16));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, semi));
		m >>= 16 - (end - s); /* bits of s[0..end - s) */
		return m ? s + __builtin_ctz(m) : end;
	}
#else
	(void)lo;
#endif
	for (; s < end; s++)
		if (*s == ';')
			return s;
	return end;
}

/* Split s[0..end) on ';' into r->frames from index `nf`; returns the new
 * count. The line starts at lo. */
static size_t split_frames(struct folded_reader *r, size_t nf, const char *lo, const char *s,
			   const char *end)
{
	if (s > end)
		return nf; /* after the last frame's end */
	for (;;) {
		const char *fe = next_semi(s, end, lo);
		VEC_GROW(r->frames, nf + 1, r->frames_alloc);
		r->frames[nf++] = (struct folded_frame){ s, (size_t)(fe - s) };
		if (fe == end)
			break;
		s = fe + 1;
	}
	return nf;
}

/* Length of the common prefix of a[0..n) and b[0..n), a word at a time. */
static size_t common_prefix(const char *a, const char *b, size_t n)
{
	size_t i = 0;
#ifdef __SSE2__
	for (; i + 16 <= n; i += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(a + i));
		__m128i y = _mm_loadu_si128((const __m128i *)(const void *)(b + i));
		unsigned same = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, y));
		if (same != 0xffff)
			return i + (size_t)__builtin_ctz(~same);
	}
#endif
	for (; i + 8 <= n; i += 8) {
		uint64_t x, y;
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
			return i + (size_t)__builtin_clzll(x ^ y) / 8;
#else
			return i + (size_t)__builtin_ctzll(x ^ y) / 8;
#endif
		}
	}
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* How many leading frames of the previous stack pushed the stack
 * line[0..n) shares, given d, the length of their common byte prefix: a
 * frame that ends before d is shared; one that ends at d only if both
 * stacks end it there (by ';' or by their end). */
static size_t shared_frames(const struct folded_reader *r, const char *line, size_t n, size_t d)
{
	size_t k = 0;
	for (; k < r->prev_nf; k++) {
		size_t end = r->prev[k].off + r->prev[k].n;
		if (end < d)
			continue;
		if (end == d && (d == n || line[d] == ';') &&
		    (d == r->prev_len || r->prev_line[d] == ';'))
			k++;
		break;
	}
	return k;
}

/* Find or create the trie path of stack[0..n) (frames split on ';',
 * trailing empty frames dropped as Perl's split drops them), given d, the
 * length of its common prefix with the previous stack pushed. */
static node_t push_stack(struct folded_reader *r, const char *line, size_t stack_len, size_t d)
{
	struct profile *p = r->p;
	const char *stack_end = line + stack_len;
	node_t node = PROFILE_ROOT;
	if (r->opts.reverse) {
		size_t nf = split_frames(r, 0, line, line, stack_end);
		while (nf && r->frames[nf - 1].n == 0)
			nf--;
		for (size_t k = nf; k-- > 0;)
			node = profile_push_str(p, node, r->frames[k].s, r->frames[k].n);
		return node;
	}
	/* Sorted input: a new stack usually shares its first frames with the
	 * previous new one, and often the names of some later ones too. Find
	 * the shared frames with one byte comparison and reuse their nodes;
	 * split and look up only the rest. */
	size_t k = shared_frames(r, line, stack_len, d);
	/* frames[0..k) stay unset: they are prev[0..k) */
	const char *rest = k ? line + r->prev[k - 1].off + r->prev[k - 1].n + 1 : line;
	size_t nf = split_frames(r, k, line, rest, stack_end);
	while (nf > k && r->frames[nf - 1].n == 0)
		nf--;
	if (nf == k) {
		while (nf && r->prev[nf - 1].n == 0)
			nf--;
		k = nf; /* shared frames that are trailing empty ones here */
	}
	if (k)
		node = r->prev[k - 1].node;
	VEC_GROW(r->prev, nf, r->prev_alloc);
	for (size_t i = k; i < nf; i++) {
		const struct folded_frame *f = &r->frames[i];
		sym_t sym;
		if (i < r->prev_nf && f->n == r->prev[i].n &&
		    !memcmp(f->s, r->prev_line + r->prev[i].off, f->n))
			sym = r->prev[i].sym;
		else
			sym = profile_sym(p, f->s, f->n);
		node = profile_push(p, node, sym);
		r->prev[i] = (struct folded_prev){ (size_t)(f->s - line), f->n, node, sym };
	}
	r->prev_line = line; /* copied when the batch of lines is done */
	r->prev_len = stack_len;
	r->prev_nf = nf;
	return node;
}

/* Is the stack text s[0..n) (split as push_stack splits it) the path from
 * the root to leaf? Compared from the leaf up, by the names' lengths. */
static bool path_matches(void *ctx, node_t leaf, const char *s, size_t n)
{
	const struct profile *p = ctx;
	while (n && s[n - 1] == ';')
		n--; /* trailing empty frames are dropped */
	if (!n)
		return leaf == PROFILE_ROOT;
	for (node_t node = leaf; node != PROFILE_ROOT; node = p->nodes[node].parent) {
		const struct strpool_entry *e = &p->names.entries[p->nodes[node].name];
		if (e->len > n || memcmp(s + n - e->len, e->str, e->len))
			return false;
		n -= e->len;
		if (p->nodes[node].parent == PROFILE_ROOT)
			return n == 0;
		if (!n || s[n - 1] != ';')
			return false;
		n--;
	}
	return false;
}

/* The same for --reverse: the first frame of the text is the leaf. */
static bool path_matches_reversed(void *ctx, node_t leaf, const char *s, size_t n)
{
	const struct profile *p = ctx;
	while (n && s[n - 1] == ';')
		n--;
	if (!n)
		return leaf == PROFILE_ROOT;
	size_t at = 0;
	for (node_t node = leaf; node != PROFILE_ROOT; node = p->nodes[node].parent) {
		const struct strpool_entry *e = &p->names.entries[p->nodes[node].name];
		if (e->len > n - at || memcmp(s + at, e->str, e->len))
			return false;
		at += e->len;
		if (p->nodes[node].parent == PROFILE_ROOT)
			return at == n;
		if (at == n || s[at] != ';')
			return false;
		at++;
	}
	return false;
}

/* Length of the common prefix of line[0..n) and the previous stack pushed. */
static size_t prefix_with_previous(const struct folded_reader *r, const char *line, size_t n)
{
	return common_prefix(line, r->prev_line, n < r->prev_len ? n : r->prev_len);
}

/* Does a[0..na) sort after b[0..nb), given d, the length of their common
 * prefix? */
static bool sorts_after(const char *a, size_t na, const char *b, size_t nb, size_t d)
{
	return d < na && (d == nb || (unsigned char)a[d] > (unsigned char)b[d]);
}

/* Does line[0..n), whose first d bytes are those of an earlier stack,
 * share at least half its bytes with it and differ in at most
 * FOLDED_NEAR_FRAMES frames? Then walking the trie from their shared
 * frames costs less than hashing the whole line for the cache (in random
 * order, the cache's batched lookups win). */
enum { FOLDED_NEAR_FRAMES = 3 };

static bool is_near(const char *line, size_t n, size_t d)
{
	if ((n - d) * 2 > n)
		return false;
	const char *s = line + d, *end = line + n;
	for (int frames = 1; (s = next_semi(s, end, line)) != end; s++)
		if (++frames > FOLDED_NEAR_FRAMES)
			return false;
	return true;
}

int folded_reader_apply(struct folded_reader *r, const struct folded_lines *lines)
{
	if (lines->differential)
		r->p->differential = true;
	/* A line near the previous stack pushed (sorted input) walks the trie
	 * from their shared frames; the others are looked up whole in the
	 * cache first. A batch at a time: guess which lines will use the
	 * cache (those not near the line before them), prefetch their cache
	 * slots, then their leaves, then look up in order, so the misses of
	 * several lines overlap. */
	for (size_t at = 0; at < lines->nr; at += FOLDED_BATCH) {
		size_t n = lines->nr - at < FOLDED_BATCH ? lines->nr - at : FOLDED_BATCH;
		const struct folded_pending *q = lines->v + at;
		uint64_t hash[FOLDED_BATCH];
		bool hashed[FOLDED_BATCH];
		size_t before[FOLDED_BATCH]; /* common prefix with the line before */
		for (size_t i = 0; i < n; i++) {
			before[i] = r->opts.reverse ? 0
				  : i ? common_prefix(q[i].line, q[i - 1].line,
						      q[i].len < q[i - 1].len ? q[i].len : q[i - 1].len)
				      : prefix_with_previous(r, q[i].line, q[i].len);
		}
		bool cached[FOLDED_BATCH], near_before[FOLDED_BATCH];
		for (size_t i = 0; i < n; i++) {
			if (!r->repeats) {
				bool after = i ? sorts_after(q[i].line, q[i].len, q[i - 1].line, q[i - 1].len, before[i])
					       : sorts_after(q[i].line, q[i].len, r->prev_line, r->prev_len, before[i]);
				r->repeats = !after;
			}
			cached[i] = r->repeats;
			near_before[i] = !r->opts.reverse && is_near(q[i].line, q[i].len, before[i]);
			hashed[i] = cached[i] && !near_before[i];
			if (!hashed[i])
				continue;
			hash[i] = stackcache_hash(q[i].line, q[i].len);
			stackcache_prefetch(&r->cache, hash[i]);
		}
		for (size_t i = 0; i < n; i++) {
			if (!hashed[i])
				continue;
			node_t leaf = stackcache_peek(&r->cache, hash[i]);
			if (leaf < r->p->nr)
				__builtin_prefetch(&r->p->nodes[leaf]);
		}
		for (size_t i = 0; i < n; i++) {
			/* Usually the line before is the previous stack pushed. */
			size_t d = 0;
			if (!r->opts.reverse)
				d = !i || r->prev_line == q[i - 1].line
					    ? before[i]
					    : prefix_with_previous(r, q[i].line, q[i].len);
			node_t node;
			bool near = !r->opts.reverse &&
				    (d == before[i] ? near_before[i] : is_near(q[i].line, q[i].len, d));
			if (near || !cached[i]) {
				node = push_stack(r, q[i].line, q[i].len, d);
			} else {
				if (!hashed[i])
					hash[i] = stackcache_hash(q[i].line, q[i].len);
				node = stackcache_get(&r->cache, hash[i], q[i].line, q[i].len,
						      r->opts.reverse ? path_matches_reversed : path_matches,
						      r->p);
				if (node == UINT32_MAX) {
					node = push_stack(r, q[i].line, q[i].len, d);
					stackcache_put(&r->cache, hash[i], q[i].len, node);
				}
			}
			if (folded_add(r->p, node, &q[i].c0, &q[i].c1, r->name, q[i].lineno))
				return -1;
		}
	}
	/* The input may go away: keep the previous stack. */
	if (r->prev_line && r->prev_line != r->prev_text) {
		VEC_GROW(r->prev_text, r->prev_len + 1, r->prev_text_alloc);
		memcpy(r->prev_text, r->prev_line, r->prev_len);
		r->prev_line = r->prev_text;
	}
	return 0;
}

int folded_reader_scan(struct folded_reader *r, const char *data, size_t len, struct folded_lines *out)
{
	const struct folded_opts *opts = &r->opts;
	struct folded_stats *stats = &r->stats;
	int max_warnings = opts->max_warnings;
	const char *cur = data, *end = data + len;

	while (cur < end) {
		const char *nl = memchr(cur, '\n', (size_t)(end - cur));
		const char *line = cur;
		size_t n = nl ? (size_t)(nl - cur) : (size_t)(end - cur);
		cur = nl ? nl + 1 : end;
		r->lineno++;
		if (n && line[n - 1] == '\r')
			n--;
		if (n == 0)
			continue;
		stats->lines++;

		struct folded_count c1, c0;
		size_t stack_len = n;
		if (!folded_take_count(line, &stack_len, &c1)) {
			stats->ignored++;
			if (opts->strict)
				return error_at(r->name, r->lineno, "expected 'STACK COUNT', found '%.*s'",
						(int)(n > 80 ? 80 : n), line);
			if (max_warnings > 0 && stats->ignored <= (size_t)max_warnings)
				warn_at(r->name, r->lineno, "ignored line without a sample count: '%.*s'",
					(int)(n > 80 ? 80 : n), line);
			continue;
		}
		size_t before_len = stack_len;
		if (folded_take_count(line, &before_len, &c0)) {
			stack_len = before_len;
			out->differential = true;
		} else {
			c0 = c1;
		}
		VEC_GROW(out->v, out->nr + 1, out->alloc);
		out->v[out->nr++] = (struct folded_pending){ line, stack_len, c0, c1, r->lineno };
	}
	return 0;
}

int folded_reader_feed(struct folded_reader *r, const char *data, size_t len)
{
	/* In slices, so the parsed lines stay small and cache-warm. */
	enum { SLICE = 1 << 20 };
	const char *cur = data, *end = data + len;
	int ret = 0;
	while (cur < end && !ret) {
		const char *stop = end;
		if ((size_t)(end - cur) > SLICE) {
			const char *nl = memchr(cur + SLICE, '\n', (size_t)(end - cur - SLICE));
			stop = nl ? nl + 1 : end;
		}
		r->scratch.nr = 0;
		r->scratch.differential = false;
		ret = folded_reader_scan(r, cur, (size_t)(stop - cur), &r->scratch);
		if (folded_reader_apply(r, &r->scratch))
			ret = -1;
		cur = stop;
	}
	return ret;
}

void folded_reader_finish(struct folded_reader *r, struct folded_stats *stats)
{
	int max_warnings = r->opts.max_warnings;
	if (max_warnings > 0 && r->stats.ignored > (size_t)max_warnings)
		warn("%s: ignored %zu lines with invalid format", r->name, r->stats.ignored);
	if (stats) {
		stats->lines += r->stats.lines;
		stats->ignored += r->stats.ignored;
	}
	stackcache_release(&r->cache);
	free(r->frames);
	free(r->prev);
	free(r->prev_text);
	free(r->scratch.v);
	r->scratch.v = NULL;
	r->frames = NULL;
	r->prev = NULL;
	r->prev_text = NULL;
	r->prev_line = NULL;
}

int folded_parse(struct profile *p, const char *name, const char *data, size_t len,
		 const struct folded_opts *opts, struct folded_stats *stats)
{
	struct folded_reader r;
	folded_reader_init(&r, p, name, opts);
	int ret = folded_reader_feed(&r, data, len);
	if (ret)
		r.opts.max_warnings = -1; /* no summary after a --strict error */
	folded_reader_finish(&r, stats);
	return ret;
}

void folded_write_count(struct out *o, double v)
{
	if (v >= 0 && v < 1.8e19 && v == floor(v)) {
		out_u64(o, (uint64_t)v);
		return;
	}
	out_printf(o, "%.15g", v);
}

void folded_write_self(struct out *o, const struct profile *p, node_t n, int column)
{
	if (p->fractional)
		folded_write_count(o, p->nodes[n].self[column].d);
	else
		out_u64(o, p->nodes[n].self[column].u);
}

/* The line of each leaf is written into one buffer frame by frame: the
 * leaves come depth first, so a line shares most of its frames with the
 * line before; only the frames below the shared ones are copied. */
struct path_writer {
	const struct profile *p;
	uint32_t *depth_of; /* by node: its depth + 1 on the current path, or 0 */
	struct path_frame {
		node_t node;
		size_t end; /* the line's length through this frame */
	} *path;
	size_t depth, depth_alloc;
	node_t *below;      /* the leaf's frames not on the path, leaf first */
	size_t below_alloc;
	char *buf;
	size_t alloc;
};

/* The line of leaf n (its frames from the root's child down, ';' between)
 * in w->buf; returns its length. */
static size_t path_to(struct path_writer *w, node_t n)
{
	const struct profile *p = w->p;
	size_t k = 0;
	node_t at = n;
	for (; at != PROFILE_ROOT && !w->depth_of[at]; at = p->nodes[at].parent) {
		VEC_GROW(w->below, k + 1, w->below_alloc);
		w->below[k++] = at;
	}
	size_t keep = at == PROFILE_ROOT ? 0 : w->depth_of[at];
	while (w->depth > keep)
		w->depth_of[w->path[--w->depth].node] = 0;
	size_t len = w->depth ? w->path[w->depth - 1].end : 0;
	while (k) {
		node_t c = w->below[--k];
		uint32_t l = profile_name_len(p, c);
		VEC_GROW(w->buf, len + l + 1, w->alloc);
		if (w->depth)
			w->buf[len++] = ';';
		memcpy(w->buf + len, profile_name(p, c), l);
		len += l;
		VEC_GROW(w->path, w->depth + 1, w->depth_alloc);
		w->path[w->depth] = (struct path_frame){ c, len };
		w->depth_of[c] = (uint32_t)++w->depth;
	}
	return len;
}

void folded_write(const struct profile *p, struct out *o)
{
	size_t nr;
	node_t *leaves = profile_sorted_leaves(p, ORDER_KEY_END, &nr);
	struct path_writer w = { .p = p, .depth_of = xcalloc_dense(p->nr ? p->nr : 1, sizeof(*w.depth_of)) };
	VEC_GROW(w.buf, 256, w.alloc); /* never NULL: the root's line is empty */
	for (size_t i = 0; i < nr; i++) {
		node_t n = leaves[i];
		size_t len = path_to(&w, n);
		out_write(o, w.buf, len);
		out_putc(o, ' ');
		if (p->differential) {
			folded_write_self(o, p, n, 0);
			out_putc(o, ' ');
		}
		folded_write_self(o, p, n, 1);
		out_putc(o, '\n');
	}
	free(w.buf);
	free(w.below);
	free(w.path);
	free(w.depth_of);
	free(leaves);
}
