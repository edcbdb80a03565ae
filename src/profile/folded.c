#include "profile/folded.h"

#include "base/alloc.h"
#include "base/error.h"
#include "profile/order.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool is_perl_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool folded_take_count(const char *line, size_t *n, double *count)
{
	size_t end = *n;
	size_t i = end;
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
	*count = v;
	*n = i - 1;
	return true;
}

enum { MAX_FRAMES_ON_STACK = 256 };

struct frame_slice {
	const char *s;
	size_t n;
};

int folded_parse(struct profile *p, const char *name, const char *data, size_t len,
		 const struct folded_opts *opts, struct folded_stats *stats)
{
	static const struct folded_opts defaults;
	if (!opts)
		opts = &defaults;
	int max_warnings = opts->max_warnings ? opts->max_warnings : 10;
	size_t lineno = 0;
	const char *cur = data, *end = data + len;
	struct frame_slice *frames = NULL;
	size_t frames_alloc = 0;
	int ret = 0;

	while (cur < end) {
		const char *nl = memchr(cur, '\n', (size_t)(end - cur));
		const char *line = cur;
		size_t n = nl ? (size_t)(nl - cur) : (size_t)(end - cur);
		cur = nl ? nl + 1 : end;
		lineno++;
		if (n && line[n - 1] == '\r')
			n--;
		if (n == 0)
			continue;
		stats->lines++;

		double c1, c0;
		size_t stack_len = n;
		if (!folded_take_count(line, &stack_len, &c1)) {
			stats->ignored++;
			if (opts->strict) {
				ret = error_at(name, lineno, "expected 'STACK COUNT', found '%.*s'",
					       (int)(n > 80 ? 80 : n), line);
				break;
			}
			if (max_warnings > 0 && stats->ignored <= (size_t)max_warnings)
				warn_at(name, lineno, "ignored line without a sample count: '%.*s'",
					(int)(n > 80 ? 80 : n), line);
			continue;
		}
		size_t before_len = stack_len;
		if (folded_take_count(line, &before_len, &c0)) {
			stack_len = before_len;
			p->differential = true;
		} else {
			c0 = c1;
		}

		/* Split on ';', dropping trailing empty fields as Perl's split. */
		size_t nf = 0;
		const char *s = line, *stack_end = line + stack_len;
		while (s <= stack_end) {
			const char *semi = memchr(s, ';', (size_t)(stack_end - s));
			const char *fe = semi ? semi : stack_end;
			VEC_GROW(frames, nf + 1, frames_alloc);
			frames[nf++] = (struct frame_slice){ s, (size_t)(fe - s) };
			if (!semi)
				break;
			s = semi + 1;
		}
		while (nf && frames[nf - 1].n == 0)
			nf--;

		node_t node = PROFILE_ROOT;
		if (opts->reverse) {
			for (size_t k = nf; k-- > 0;)
				node = profile_push_str(p, node, frames[k].s, frames[k].n);
		} else {
			for (size_t k = 0; k < nf; k++)
				node = profile_push_str(p, node, frames[k].s, frames[k].n);
		}
		profile_add(p, node, c0, c1);
	}
	free(frames);
	if (!ret && max_warnings > 0 && stats->ignored > (size_t)max_warnings)
		warn("%s: ignored %zu lines with invalid format", name, stats->ignored);
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

void folded_write(const struct profile *p, struct out *o)
{
	size_t nr;
	node_t *leaves = profile_sorted_leaves(p, ORDER_KEY_END, &nr);
	char *buf = NULL;
	size_t alloc = 0;
	for (size_t i = 0; i < nr; i++) {
		node_t n = leaves[i];
		size_t len = profile_path(p, n, &buf, &alloc);
		out_write(o, buf, len);
		out_putc(o, ' ');
		if (p->differential) {
			folded_write_count(o, p->nodes[n].self[0]);
			out_putc(o, ' ');
		}
		folded_write_count(o, p->nodes[n].self[1]);
		out_putc(o, '\n');
	}
	free(buf);
	free(leaves);
}
