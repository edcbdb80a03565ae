/* The classic stackcollapse-perf.pl frame rules; see frame_rules.h. Each
 * function states the Perl expression it stands for. */
#include "profile/frame_rules.h"

#include "base/alloc.h"
#include "base/numfmt.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool has_sub(const char *s, size_t n, const char *sub, size_t k)
{
	if (k > n)
		return false;
	return memmem(s, n, sub, k) != NULL;
}

/* The first "ab" in s[0, n), or NULL: memmem for two bytes, with memchr
 * finding the candidates (names are long, and most hold neither). */
static const char *find_pair(const char *s, size_t n, char a, char b)
{
	const char *end = s + n;
	while ((size_t)(end - s) >= 2) {
		const char *p = memchr(s, a, (size_t)(end - s) - 1);
		if (!p)
			return NULL;
		if (p[1] == b)
			return p;
		s = p + 1;
	}
	return NULL;
}

static size_t skip_spaces(const char *s, size_t i, size_t n)
{
	while (i < n && frame_is_space(s[i]))
		i++;
	return i;
}

static size_t skip_digits(const char *s, size_t i, size_t n)
{
	while (i < n && frame_is_digit(s[i]))
		i++;
	return i;
}

/* ^(\S.+?)\s+(\d+)\/{0,}(\d+){0,}\s+
 * The lazy comm grows one byte at a time from length 2; at each end k the
 * rest must be: whitespace, digits, slashes, digits, whitespace. Whitespace
 * and digits are disjoint classes, so each greedy run has one possible
 * extent and a failure at k cannot be rescued by backtracking inside the
 * tail. Inside a run of whitespace every k gives the same tail, so only the
 * first k of each run is tried. */
bool frame_match_header(const char *s, size_t n, struct frame_slice *comm, struct frame_slice *first,
			struct frame_slice *second)
{
	if (n < 3 || frame_is_space(s[0]))
		return false;
	for (size_t k = 2; k < n; k++) {
		if (!frame_is_space(s[k]))
			continue;
		if (k > 2 && frame_is_space(s[k - 1]))
			continue;
		size_t d0 = skip_spaces(s, k, n);
		size_t d1 = skip_digits(s, d0, n);
		if (d1 == d0)
			continue;
		size_t t0 = d1;
		while (t0 < n && s[t0] == '/')
			t0++;
		size_t t1 = skip_digits(s, t0, n);
		if (t1 >= n || !frame_is_space(s[t1]))
			continue;
		*comm = (struct frame_slice){ s, k };
		*first = (struct frame_slice){ s + d0, d1 - d0 };
		*second = (struct frame_slice){ s + t0, t1 - t0 };
		return true;
	}
	return false;
}

void frame_parts_release(struct frame_parts *pp)
{
	free(pp->buf);
	free(pp->ends);
	memset(pp, 0, sizeof(*pp));
}

static void parts_bytes(struct frame_parts *pp, const char *s, size_t n)
{
	VEC_GROW(pp->buf, pp->len + n + 1, pp->alloc);
	if (n)
		memcpy(pp->buf + pp->len, s, n);
	pp->len += n;
}

void frame_parts_push(struct frame_parts *pp, const char *s, size_t n)
{
	parts_bytes(pp, s, n);
	VEC_GROW(pp->ends, pp->nr + 1, pp->nr_alloc);
	pp->ends[pp->nr++] = pp->len;
}

void frame_parts_append_last(struct frame_parts *pp, const char *s, size_t n)
{
	parts_bytes(pp, s, n);
	pp->ends[pp->nr - 1] = pp->len;
}

/* Tidy the part that occupies buf[start, len): in place, it only shrinks. */
static void tidy_generic(struct frame_parts *pp, size_t start)
{
	char *f = pp->buf + start;
	size_t n = pp->len - start;
	for (char *c = memchr(f, ';', n); c; c = memchr(c + 1, ';', (size_t)(f + n - c - 1)))
		*c = ':';
	/* Go methods keep their parentheses: m/\.\(.*\)\./ */
	bool go = false;
	const char *dp = find_pair(f, n, '.', '(');
	if (dp) {
		size_t i = (size_t)(dp - f);
		for (size_t k = n; k-- > i + 2;) {
			if (f[k] == '.' && f[k - 1] == ')') {
				go = k - 1 >= i + 2;
				break;
			}
		}
	}
	if (!go) {
		/* s/\((?!anonymous namespace\)).{0,}//: cut at the first '(' that does\n		 * not open \"(anonymous namespace)\". */
		static const char anon[] = "anonymous namespace)";
		for (const char *c = memchr(f, '(', n); c; c = memchr(c + 1, '(', (size_t)(f + n - c - 1))) {
			size_t i = (size_t)(c - f);
			if (n - i - 1 >= sizeof(anon) - 1 && !memcmp(c + 1, anon, sizeof(anon) - 1))
				continue;
			n = i;
			break;
		}
	}
	/* tr/"'//d */
	size_t w = n;
	if (memchr(f, '"', n) || memchr(f, '\'', n)) {
		w = 0;
		for (size_t i = 0; i < n; i++)
			if (f[i] != '"' && f[i] != '\'')
				f[w++] = f[i];
	}
	pp->len = start + w;
}

/* m:/tmp/perf-\d+\.map: */
static bool is_jit_module(const char *m, size_t n)
{
	static const char pre[] = "/tmp/perf-";
	const char *end = m + n;
	const char *p = m;
	while ((size_t)(end - p) >= sizeof(pre) - 1) {
		const char *hit = memmem(p, (size_t)(end - p), pre, sizeof(pre) - 1);
		if (!hit)
			return false;
		const char *d = hit + sizeof(pre) - 1, *q = d;
		while (q < end && frame_is_digit(*q))
			q++;
		if (q > d && end - q >= 4 && !memcmp(q, ".map", 4))
			return true;
		p = hit + 1;
	}
	return false;
}

static bool is_kernel_module(const char *m, size_t n)
{
	/* m/(^\[|vmlinux$)/ && !~ /unknown/ */
	bool k = (n && m[0] == '[') || (n >= 7 && !memcmp(m + n - 7, "vmlinux", 7));
	return k && !has_sub(m, n, "unknown", 7);
}

bool frame_inline_applies(const char *m, size_t n)
{
	/* !~ m/(perf-\d+.map|kernel\.|\[[^\]]+\])/ */
	for (size_t i = 0; i + 5 <= n; i++) {
		if (memcmp(m + i, "perf-", 5))
			continue;
		size_t q = i + 5;
		while (q < n && frame_is_digit(m[q]))
			q++;
		/* \d+ then any byte then "map"; \d+ may give back its last digit. */
		if (q > i + 5 && q + 4 <= n && !memcmp(m + q + 1, "map", 3))
			return false;
		if (q > i + 6 && q + 3 <= n && !memcmp(m + q, "map", 3))
			return false;
	}
	if (has_sub(m, n, "kernel.", 7))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (m[i] != '[')
			continue;
		size_t q = i + 1;
		while (q < n && m[q] != ']')
			q++;
		if (q < n && q > i + 1)
			return false;
	}
	return true;
}

static void one_part(const struct frame_text *fr, const struct frame_opts *o,
		     struct frame_parts *pp, const char *s, size_t n, bool first)
{
	size_t start = pp->len;
	if (n == 9 && !memcmp(s, "[unknown]", 9)) {
		if (pp->first_unknown == SIZE_MAX)
			pp->first_unknown = pp->nr;
		const char *m = fr->module.s;
		size_t mn = fr->module.n;
		const char *name = "unknown";
		size_t nn = 7;
		if (!(mn == 9 && !memcmp(m, "[unknown]", 9))) {
			const char *slash = memrchr(m, '/', mn);
			name = slash ? slash + 1 : m;
			nn = mn - (size_t)(name - m);
		}
		parts_bytes(pp, "[", 1);
		parts_bytes(pp, name, nn);
		if (o->addrs) {
			parts_bytes(pp, " <", 2);
			parts_bytes(pp, fr->pc.s, fr->pc.n);
			parts_bytes(pp, ">", 1);
		}
		parts_bytes(pp, "]", 1);
	} else {
		parts_bytes(pp, s, n);
	}
	tidy_generic(pp, start);
	char *f = pp->buf + start;
	size_t fn = pp->len - start;
	if (o->java && fn && f[0] == 'L' && memchr(f, '/', fn)) {
		memmove(f, f + 1, fn - 1);
		pp->len--;
		fn--;
	}
	if (!first) {
		if (!has_sub(f, fn, "_[i]", 4))
			parts_bytes(pp, "_[i]", 4);
	} else if (o->kernel && is_kernel_module(fr->module.s, fr->module.n)) {
		parts_bytes(pp, "_[k]", 4);
	} else if (o->jit && is_jit_module(fr->module.s, fr->module.n)) {
		if (!has_sub(f, fn, "_[j]", 4))
			parts_bytes(pp, "_[j]", 4);
	}
	VEC_GROW(pp->ends, pp->nr + 1, pp->nr_alloc);
	pp->ends[pp->nr++] = pp->len;
}

static bool is_hex_lower(char c)
{
	return frame_is_digit(c) || (c >= 'a' && c <= 'f');
}

size_t frame_strip_offset(const char *s, size_t n)
{
	/* s/\+0x[\da-f]+$// */
	size_t i = n;
	while (i > 0 && is_hex_lower(s[i - 1]))
		i--;
	if (i < n && i >= 3 && s[i - 1] == 'x' && s[i - 2] == '0' && s[i - 3] == '+')
		return i - 3;
	return n;
}

/* frame_names, with the offset stripped from the symbol or not (a
 * structured symbol has none to strip). */
static bool names_of(const struct frame_text *fr, const struct frame_opts *o, struct frame_parts *pp,
		     bool strip_offset)
{
	const char *s = fr->symbol.s;
	size_t n = fr->symbol.n;
	pp->first_unknown = SIZE_MAX;
	if (strip_offset)
		n = frame_strip_offset(s, n);
	if (n && s[0] == '(')
		return false;
	/* split /\->/: fields in order, trailing empty fields dropped. */
	size_t keep = n;
	size_t nf = 0;
	/* Trailing empty fields are dropped: strip trailing "->" pairs. */
	while (keep >= 2 && s[keep - 2] == '-' && s[keep - 1] == '>')
		keep -= 2;
	if (keep == 0)
		return true; /* every field empty: nothing to add */
	const char *p = s, *end = s + keep;
	for (;;) {
		const char *arrow = find_pair(p, (size_t)(end - p), '-', '>');
		const char *fe = arrow ? arrow : end;
		one_part(fr, o, pp, p, (size_t)(fe - p), nf == 0);
		nf++;
		if (!arrow)
			break;
		p = arrow + 2;
	}
	return true;
}

bool frame_names(const struct frame_text *fr, const struct frame_opts *o, struct frame_parts *pp)
{
	return names_of(fr, o, pp, true);
}

void frame_pname(struct frame_slice comm, struct frame_slice first, struct frame_slice second, bool pid,
		 bool tid, struct frame_parts *pp)
{
	size_t start = pp->len;
	struct frame_slice p = first, t = second;
	/* not $tid: absent or "0" -> tid = $2, pid = "?" */
	bool one = t.n == 0 || (t.n == 1 && t.s[0] == '0');
	if (one) {
		t = p;
		p = (struct frame_slice){ "?", 1 };
	}
	parts_bytes(pp, comm.s, comm.n);
	if (tid) {
		parts_bytes(pp, "-", 1);
		parts_bytes(pp, p.s, p.n);
		parts_bytes(pp, "/", 1);
		parts_bytes(pp, t.s, t.n);
	} else if (pid) {
		parts_bytes(pp, "-", 1);
		parts_bytes(pp, p.s, p.n);
	}
	for (size_t i = start; i < pp->len; i++)
		if (pp->buf[i] == ' ')
			pp->buf[i] = '_';
	VEC_GROW(pp->ends, pp->nr + 1, pp->nr_alloc);
	pp->ends[pp->nr++] = pp->len;
}

void frame_append_srcline(struct frame_parts *pp, const char *s, size_t n)
{
	/* s/\[.*?\]//g, then trim \s at both ends. */
	char *tmp = xmalloc(n + 1);
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '[') {
			const char *close = memchr(s + i + 1, ']', n - i - 1);
			if (close) {
				i = (size_t)(close - s);
				continue;
			}
		}
		tmp[w++] = s[i];
	}
	size_t a = 0, b = w;
	while (a < b && frame_is_space(tmp[a]))
		a++;
	while (b > a && frame_is_space(tmp[b - 1]))
		b--;
	if (b > a) {
		frame_parts_append_last(pp, ":", 1);
		frame_parts_append_last(pp, tmp + a, b - a);
	}
	free(tmp);
}

bool frame_thread_pname(const char *comm, long long pid, long long tid, bool have_pid, bool opt_pid,
			bool opt_tid, struct frame_parts *pp)
{
	char pids[24], tids[24];
	size_t cl = strlen(comm);
	bool plain = cl >= 2 && pid >= 0 && tid >= 0;
	for (size_t i = 0; plain && i < cl; i++)
		plain = !frame_is_space(comm[i]);
	if (plain) {
		/* The lazy comm cannot end inside a comm without whitespace: the
		 * regex captures the comm and the numbers as they are. */
		struct frame_slice c = { comm, cl };
		struct frame_slice t = { tids, numfmt_u64(tids, (uint64_t)tid) };
		if (!have_pid) {
			frame_pname(c, t, (struct frame_slice){ "", 0 }, opt_pid, opt_tid, pp);
		} else {
			struct frame_slice p = { pids, numfmt_u64(pids, (uint64_t)pid) };
			frame_pname(c, p, t, opt_pid, opt_tid, pp);
		}
		return true;
	}
	/* Otherwise the regex reads "COMM PID/TID " (it only sees whitespace
	 * runs, so perf's column padding does not change what it captures). */
	char nums[48];
	int k = have_pid ? snprintf(nums, sizeof(nums), " %lld/%lld ", pid, tid)
			 : snprintf(nums, sizeof(nums), " %lld ", tid);
	size_t n = cl + (size_t)k;
	char *text = xmalloc(n);
	memcpy(text, comm, cl);
	memcpy(text + cl, nums, (size_t)k);
	struct frame_slice c, first, second;
	bool ok = frame_match_header(text, n, &c, &first, &second) && !memchr(c.s, '\n', c.n);
	if (ok)
		frame_pname(c, first, second, opt_pid, opt_tid, pp);
	free(text);
	return ok;
}

bool frame_inline_usable(const char *answer, size_t n)
{
	return n && !(n == 2 && !memcmp(answer, "??", 2)) && !(n == 7 && !memcmp(answer, "??:??:0", 7));
}

/* The frame the script's regex ^\s*(\w+)\s*(.+) \((.*)\) reads from perf
 * script's line "PC SYMBOL (MODULE)" built in *line: the symbol ends at
 * the last " (" of the line, and its leading whitespace goes to \s* while
 * something remains. */
static struct frame_text read_back(const char *symbol, const char *module, struct frame_slice pc, char **line,
				   size_t *line_alloc)
{
	size_t rl = strlen(symbol), dl = strlen(module);
	size_t ll = rl + dl + 3;
	VEC_GROW(*line, ll + 1, *line_alloc);
	char *l = *line;
	memcpy(l, symbol, rl);
	memcpy(l + rl, " (", 2);
	memcpy(l + rl + 2, module, dl);
	l[ll - 1] = ')';
	l[ll] = 0;
	size_t cut = rl;
	for (size_t i = ll - 1; i-- > 1;)
		if (l[i] == '(' && l[i - 1] == ' ') {
			cut = i - 1;
			break;
		}
	const char *func = l;
	size_t fn = cut;
	while (fn > 1 && frame_is_space(*func)) {
		func++;
		fn--;
	}
	return (struct frame_text){ .pc = pc, .symbol = { func, fn }, .module = { l + cut + 2, ll - 1 - (cut + 2) } };
}

bool frame_names_of(const struct frame_fields *f, const struct frame_opts *o, struct frame_parts *pp,
		    char **scratch, size_t *scratch_alloc)
{
	char pc[24] = "";
	if (o->addrs)
		snprintf(pc, sizeof(pc), "%llx", f->pc);
	struct frame_slice pcs = { pc, strlen(pc) };
	const char *symbol = f->symbol ? f->symbol : "[unknown]";
	bool plain = !strstr(f->module, " (") && !frame_is_space(symbol[0]);
	if (plain) {
		/* The regex reads back the fields as they are. */
		struct frame_text fr = { .pc = pcs, .symbol = { symbol, strlen(symbol) },
					 .module = { f->module, strlen(f->module) } };
		return names_of(&fr, o, pp, false);
	}
	/* The line perf script prints, read back as the script reads it. */
	char *withoff = NULL;
	if (f->symbol) {
		size_t n = strlen(f->symbol) + 24;
		withoff = xmalloc(n);
		snprintf(withoff, n, "%s+0x%llx", f->symbol, f->offset);
	}
	struct frame_text fr = read_back(withoff ? withoff : symbol, f->module, pcs, scratch, scratch_alloc);
	bool kept = names_of(&fr, o, pp, true);
	free(withoff);
	return kept;
}
