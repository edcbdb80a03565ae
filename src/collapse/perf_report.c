/* `perf report` folded call chains, as printed by
 *
 *   perf report --stdio --no-children -n -g folded,0,caller,count -s comm
 *
 *   # Overhead       Samples  Command
 *       25.24%          7581  qsort:cb
 *   3393 msort_with_tmp.part.0
 *   217 __vfprintf_internal;__GI___printf_fp_l
 *
 * Each histogram line names the command (the rest of the line after the
 * overhead percentages and, with -n, the sample count); each chain line
 * under it is "COUNT caller;...;callee" and becomes "comm;caller;...;callee
 * COUNT". Without -n the command follows the percentages directly. Chains
 * in percent (the default value=percent) cannot be turned into counts and
 * are reported. Lines starting with '#' and blank lines are skipped. */
#include "collapse/common.h"

#include "base/lines.h"

/* A percentage token "NN.NN%" at s; returns its length or 0. */
static size_t percent_token(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.'))
		i++;
	return i > 0 && i < n && s[i] == '%' ? i + 1 : 0;
}

static size_t skip_spaces(const char *s, size_t n, size_t i)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

/* A histogram line: leading space, one or more percentages, optionally a
 * sample count (when the header said so, or when unknown and a number is
 * followed by more text), then the command. */
static bool hist_line(const char *s, size_t n, int samples_col, const char **comm, size_t *comm_len)
{
	if (!n || (s[0] != ' ' && s[0] != '\t'))
		return false;
	size_t i = skip_spaces(s, n, 0), k, pcts = 0;
	while ((k = percent_token(s + i, n - i)) > 0) {
		i = skip_spaces(s, n, i + k);
		pcts++;
	}
	if (!pcts)
		return false;
	size_t j = i;
	while (j < n && s[j] >= '0' && s[j] <= '9')
		j++;
	bool number = j > i && (j == n || s[j] == ' ' || s[j] == '\t');
	if (samples_col == 1 || (samples_col < 0 && number && skip_spaces(s, n, j) < n)) {
		if (!number)
			return false;
		i = skip_spaces(s, n, j);
	}
	size_t e = n;
	cx_trim_end(s, &e);
	if (i >= e)
		return false;
	*comm = s + i;
	*comm_len = e - i;
	return true;
}

/* A chain line "COUNT frames": returns the frames' offset or 0. */
static size_t chain_line(const char *s, size_t n, uint64_t *count)
{
	size_t i = 0;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	if (!i || i >= n || s[i] != ' ' || !cx_parse_u64(s, i, count))
		return 0;
	return i + 1 < n ? i + 1 : 0;
}

static int probe(const char *head, size_t n)
{
	struct lines it;
	const char *line, *comm;
	size_t len, cl;
	bool header = false, hist = false;
	lines_init(&it, head, n);
	while (lines_next(&it, &line, &len)) {
		uint64_t c;
		if (cx_starts(line, len, "# Overhead"))
			header = true;
		else if (hist_line(line, len, -1, &comm, &cl))
			hist = true;
		else if (hist && chain_line(line, len, &c))
			return header ? 90 : 70;
	}
	return 0;
}

static int parse(struct profile *p, const struct collapse_source *src,
		 const struct collapse_opts *opts)
{
	struct cx_diag d;
	cx_diag_init(&d, src, opts);
	struct lines it;
	const char *line;
	size_t len;
	int samples_col = -1; /* unknown until a "# Overhead" header says */
	sym_t comm = 0;
	bool have_comm = false;
	int ret = 0;
	lines_init(&it, src->data, src->len);
	while (!ret && lines_next(&it, &line, &len)) {
		if (len && line[0] == '#') {
			if (cx_starts(line, len, "# Overhead")) {
				samples_col = 0;
				for (size_t i = 0; i + 7 <= len; i++)
					if (!memcmp(line + i, "Samples", 7))
						samples_col = 1;
			}
			continue;
		}
		size_t n = len;
		cx_trim_end(line, &n);
		if (!n)
			continue;
		const char *c;
		size_t cl;
		if (hist_line(line, n, samples_col, &c, &cl)) {
			comm = profile_sym(p, c, cl);
			have_comm = true;
			continue;
		}
		uint64_t count;
		size_t at = chain_line(line, n, &count);
		if (!at || !have_comm) {
			const char *why = !have_comm && at ? "call chain before any histogram line"
				: percent_token(line, n) ? "call chain values are percentages (use -g folded,0,caller,count)"
				: "expected a histogram line or 'COUNT caller;...;callee'";
			ret = cx_bad(&d, it.lineno, "%s: '%.*s'", why, (int)(n > 80 ? 80 : n), line);
			continue;
		}
		node_t node = profile_push(p, PROFILE_ROOT, comm);
		const char *s = line + at, *end = line + n;
		for (;;) {
			const char *semi = memchr(s, ';', (size_t)(end - s));
			const char *fe = semi ? semi : end;
			node = profile_push_str(p, node, s, (size_t)(fe - s));
			if (!semi)
				break;
			s = semi + 1;
		}
		profile_count(p, node, (double)count);
	}
	cx_diag_finish(&d);
	return ret;
}

const struct collapse_format collapse_format_perf_report = {
	.name = "perf-report",
	.description = "perf report -g folded,0,caller,count -s comm call chains",
	.probe = probe,
	.parse = parse,
};
