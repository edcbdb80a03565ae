/* Go pprof text, in both forms `go tool pprof` prints:
 *
 * -raw (stackcollapse-go.pl): samples as location ids, leaf first, then
 * the location table:
 *
 *   Samples:
 *   samples/count cpu/nanoseconds
 *             8   80000000: 1 2 3 4
 *   Locations
 *        1: 0x4a8b52 M=1 main.leaf /tmp/main.go:14 s=0
 *   Mappings
 *
 *   The weight is the first sample value (samples/count for CPU profiles;
 *   the current Perl script asks for --sample_index when there are several,
 *   older ones took the first). A location's name is its first function
 *   (the innermost when inlined, as the script reads it); a location with no
 *   name stays its id.
 *
 * -traces: one block per sample between separator lines, the value (with
 * its unit) on the leaf's line:
 *
 *   -----------+-------------------------------------------------------
 *         80ms   main.leaf
 *                main.middle
 *
 *   Values are turned back into numbers in the unit's base: nanoseconds for
 *   times, bytes for sizes (pprof's 1024-based kB/MB/...), plain counts as
 *   they are. "(inline)" marks are dropped; label lines are skipped. There
 *   is no reference collapser for this form. */
#include "collapse/common.h"
#include "collapse/pprof_proto.h"

#include "base/alloc.h"
#include "base/lines.h"

#include <math.h>
#include <stdlib.h>

static const char separator[] = "-----------+----";

/* ---- -raw ---- */

struct raw_sample {
	size_t off, len; /* the stack's id list in the input */
	double count;
};

struct loc {
	uint64_t id;
	const char *name;
	size_t len;
};

static int loc_cmp(const void *a, const void *b)
{
	const struct loc *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

/* "  ID: 0xADDR [M=N ]NAME rest": Perl's
 * ^\s*([0-9]+): 0x[0-9a-f]+ (M=[0-9]+ )?([^ ]+) .* */
static bool location_line(const char *s, size_t n, struct loc *out)
{
	size_t i = 0;
	while (i < n && cx_is_space(s[i]))
		i++;
	size_t d = i;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	if (i == d || !cx_parse_u64(s + d, i - d, &out->id))
		return false;
	if (i + 4 > n || memcmp(s + i, ": 0x", 4))
		return false;
	i += 4;
	size_t h = i;
	while (i < n && ((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
		i++;
	if (i == h || i >= n || s[i] != ' ')
		return false;
	i++;
	/* Optional "M=digits " (only when the name that follows still fits). */
	size_t j = i;
	if (j + 2 < n && s[j] == 'M' && s[j + 1] == '=') {
		size_t k = j + 2;
		while (k < n && s[k] >= '0' && s[k] <= '9')
			k++;
		if (k > j + 2 && k < n && s[k] == ' ') {
			size_t e = k + 1;
			while (e < n && s[e] != ' ')
				e++;
			if (e > k + 1 && e < n)
				i = k + 1;
		}
	}
	size_t e = i;
	while (e < n && s[e] != ' ')
		e++;
	if (e == i || e >= n)
		return false;
	out->name = s + i;
	out->len = e - i;
	return true;
}

static int parse_raw(struct profile *p, const struct collapse_source *src, struct cx_diag *d)
{
	struct lines it;
	const char *line;
	size_t len;
	enum { IGNORE, SAMPLE, LOCATION } state = IGNORE;
	struct raw_sample *samples = NULL;
	size_t ns = 0, sa = 0;
	struct loc *locs = NULL;
	size_t nl = 0, la = 0;
	int ret = 0;
	lines_init(&it, src->data, src->len);
	while (!ret && lines_next(&it, &line, &len)) {
		if (len && line[0] == '#')
			continue;
		if (state == IGNORE) {
			if (cx_starts(line, len, "Samples:")) {
				if (!lines_next(&it, &line, &len)) {
					ret = cx_fatal(d, it.lineno, "no sample types after 'Samples:'");
					break;
				}
				state = SAMPLE;
			}
		} else if (state == SAMPLE) {
			if (cx_starts(line, len, "Locations")) {
				state = LOCATION;
				continue;
			}
			/* ^\s*(.+):\s+(.+) -- the last ':' followed by space and more. */
			size_t colon = 0;
			bool found = false;
			for (size_t i = len; i-- > 1;) {
				if (line[i] == ':' && i + 1 < len && cx_is_space(line[i + 1])) {
					size_t k = i + 1;
					while (k < len && cx_is_space(line[k]))
						k++;
					if (k < len) {
						colon = i;
						found = true;
						break;
					}
				}
			}
			const char *v = line;
			size_t vn = colon;
			cx_trim_start(&v, &vn);
			if (!found || !vn)
				continue; /* e.g. a label line under a sample */
			size_t w = 0;
			while (w < vn && !cx_is_space(v[w]))
				w++;
			double count;
			if (!cx_parse_f64(v, w, &count)) {
				ret = cx_bad(d, it.lineno, "sample value '%.*s' is not a number", (int)w, v);
				continue;
			}
			if (!(count > 0))
				continue;
			size_t k = colon + 1;
			while (k < len && cx_is_space(line[k]))
				k++;
			VEC_GROW(samples, ns + 1, sa);
			samples[ns++] = (struct raw_sample){ (size_t)(line + k - src->data), len - k, count };
		} else {
			struct loc l;
			if (location_line(line, len, &l)) {
				VEC_GROW(locs, nl + 1, la);
				locs[nl++] = l;
			} else if (cx_starts(line, len, "Mappings")) {
				break;
			}
		}
	}
	if (!ret && state == IGNORE)
		warn("%s: no 'Samples:' section (not go tool pprof -raw output?)", d->name);
	if (nl)
		qsort(locs, nl, sizeof(*locs), loc_cmp);

	struct cx_stack rev = { 0 };
	for (size_t s = 0; !ret && s < ns; s++) {
		const char *ids = src->data + samples[s].off, *end = ids + samples[s].len;
		rev.n = 0;
		/* split / / dropping trailing empty fields */
		while (end > ids && end[-1] == ' ')
			end--;
		const char *q = ids;
		while (q < end) {
			const char *sp = memchr(q, ' ', (size_t)(end - q));
			const char *fe = sp ? sp : end;
			struct loc key = { 0 };
			const struct loc *hit = NULL;
			if (nl && cx_parse_u64(q, (size_t)(fe - q), &key.id))
				hit = bsearch(&key, locs, nl, sizeof(*locs), loc_cmp);
			if (hit && !(hit->len == 1 && hit->name[0] == '0'))
				cx_stack_push(&rev, profile_sym(p, hit->name, hit->len));
			else
				cx_stack_push(&rev, profile_sym(p, q, (size_t)(fe - q)));
			if (!sp)
				break;
			q = sp + 1;
		}
		profile_count(p, cx_stack_commit_reversed(p, &rev), samples[s].count);
	}
	cx_stack_release(&rev);
	free(samples);
	free(locs);
	return ret;
}

/* ---- -traces ---- */

static const struct unit {
	const char *name;
	double scale;
} units[] = {
	{ "ns", 1 },
	{ "us", 1e3 },
	{ "\xc2\xb5s", 1e3 },
	{ "ms", 1e6 },
	{ "s", 1e9 },
	{ "mins", 60e9 },
	{ "hrs", 3600e9 },
	{ "days", 86400e9 },
	{ "wks", 604800e9 },
	{ "yrs", 31536000e9 },
	{ "B", 1 },
	{ "kB", 1024.0 },
	{ "KB", 1024.0 },
	{ "MB", 1024.0 * 1024 },
	{ "GB", 1024.0 * 1024 * 1024 },
	{ "TB", 1024.0 * 1024 * 1024 * 1024 },
	{ "PB", 1024.0 * 1024 * 1024 * 1024 * 1024 },
};

static bool trace_value(const char *s, size_t n, double *out)
{
	cx_trim(&s, &n);
	size_t i = 0;
	while (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '-' || s[i] == '+' ||
			 s[i] == 'e'))
		i++;
	/* "e" may start no unit we know; back off if the number ends badly. */
	double v;
	while (i > 0 && !cx_parse_f64(s, i, &v))
		i--;
	if (!i)
		return false;
	if (i == n) {
		*out = v;
		return true;
	}
	for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++)
		if (n - i == strlen(units[u].name) && !memcmp(s + i, units[u].name, n - i)) {
			*out = round(v * units[u].scale);
			return true;
		}
	return false;
}

static int parse_traces(struct profile *p, const struct collapse_source *src, struct cx_diag *d)
{
	struct lines it;
	const char *line;
	size_t len;
	struct cx_stack rev = { 0 };
	double value = 0;
	bool in_block = false, have_value = false;
	size_t block_line = 0;
	int ret = 0;
	lines_init(&it, src->data, src->len);
	while (!ret && lines_next(&it, &line, &len)) {
		if (cx_starts(line, len, separator)) {
			if (in_block && rev.n) {
				if (have_value)
					profile_count(p, cx_stack_commit_reversed(p, &rev), value);
				else
					ret = cx_bad(d, block_line, "trace without a value");
			}
			in_block = true;
			rev.n = 0;
			have_value = false;
			block_line = it.lineno + 1;
			continue;
		}
		if (!in_block)
			continue; /* File:, Type:, Time:, Duration: header */
		size_t n = len;
		cx_trim_end(line, &n);
		if (!n)
			continue;
		if (n > 12 && line[10] == ':' && line[11] == ' ')
			continue; /* label line "%10s:  %s" */
		if (n <= 13 || memcmp(line + 10, "   ", 3)) {
			ret = cx_bad(d, it.lineno, "expected '%%10s   FRAME', found '%.*s'",
				     (int)(n > 80 ? 80 : n), line);
			continue;
		}
		const char *v = line;
		size_t vn = 10;
		cx_trim(&v, &vn);
		if (vn) {
			if (rev.n || !trace_value(v, vn, &value)) {
				ret = cx_bad(d, it.lineno, "bad trace value '%.*s'", (int)vn, v);
				continue;
			}
			have_value = true;
		}
		const char *name = line + 13;
		size_t nn = n - 13;
		if (cx_ends(name, nn, " (inline)"))
			nn -= 9;
		cx_stack_push(&rev, profile_sym(p, name, nn));
	}
	cx_stack_release(&rev);
	return ret;
}

static bool is_traces(const char *head, size_t n)
{
	struct lines it;
	const char *line;
	size_t len;
	lines_init(&it, head, n);
	for (int k = 0; k < 200 && lines_next(&it, &line, &len); k++)
		if (cx_starts(line, len, separator))
			return true;
	return false;
}

static int probe(const char *head, size_t n)
{
	if (pprof_proto_probe(head, n))
		return pprof_proto_probe(head, n);
	struct lines it;
	const char *line;
	size_t len;
	bool samples = false, header = false;
	lines_init(&it, head, n);
	while (lines_next(&it, &line, &len)) {
		if (cx_starts(line, len, "PeriodType:") || cx_starts(line, len, "Type:") ||
		    cx_starts(line, len, "File:"))
			header = true;
		else if (cx_starts(line, len, "Samples:"))
			samples = true;
		else if (samples && cx_starts(line, len, "Locations"))
			return 90;
		else if (header && cx_starts(line, len, separator))
			return 90;
	}
	return samples || header ? 30 : 0;
}

static int parse(struct profile *p, const struct collapse_source *src,
		 const struct collapse_opts *opts)
{
	if (pprof_proto_probe(src->data, src->len < 65536 ? src->len : 65536))
		return pprof_proto_parse(p, src, opts);
	struct cx_diag d;
	cx_diag_init(&d, src, opts);
	int ret = is_traces(src->data, src->len) ? parse_traces(p, src, &d) : parse_raw(p, src, &d);
	cx_diag_finish(&d);
	return ret;
}

const struct collapse_format collapse_format_pprof = {
	.name = "pprof",
	.description = "pprof: profile.proto (gzipped or not), or go tool pprof -raw/-traces text",
	.probe = probe,
	.parse = parse,
};
