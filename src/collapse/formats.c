/* The table of text formats, and lookup and detection over it. */
#include "collapse/collapse.h"

#include <string.h>

extern const struct collapse_format collapse_format_folded;
extern const struct collapse_format collapse_format_dtrace;
extern const struct collapse_format collapse_format_perf;
extern const struct collapse_format collapse_format_sample;
extern const struct collapse_format collapse_format_vtune;
extern const struct collapse_format collapse_format_vsprof;
extern const struct collapse_format collapse_format_ghcprof;
extern const struct collapse_format collapse_format_recursive;
extern const struct collapse_format collapse_format_stap;
extern const struct collapse_format collapse_format_bpftrace;
extern const struct collapse_format collapse_format_perf_report;
extern const struct collapse_format collapse_format_gdb;
extern const struct collapse_format collapse_format_jstack;
extern const struct collapse_format collapse_format_pprof;
extern const struct collapse_format collapse_format_chrome;
extern const struct collapse_format collapse_format_xctrace;

const struct collapse_format *const collapse_formats[] = {
	&collapse_format_perf,
	&collapse_format_folded,
	&collapse_format_dtrace,
	&collapse_format_sample,
	&collapse_format_vtune,
	&collapse_format_vsprof,
	&collapse_format_ghcprof,
	&collapse_format_recursive,
	&collapse_format_stap,
	&collapse_format_bpftrace,
	&collapse_format_perf_report,
	&collapse_format_gdb,
	&collapse_format_jstack,
	&collapse_format_pprof,
	&collapse_format_chrome,
	&collapse_format_xctrace,
	NULL,
};

const struct collapse_format *collapse_find(const char *name)
{
	for (size_t i = 0; collapse_formats[i]; i++)
		if (!strcmp(collapse_formats[i]->name, name))
			return collapse_formats[i];
	return NULL;
}

const struct collapse_format *collapse_detect(const char *data, size_t len)
{
	size_t head = len < 65536 ? len : 65536;
	/* A first line longer than that (a stack of 100,000 frames) is read
	 * whole: cut, it looks like no format at all. */
	if (head < len && !memchr(data, '\n', head)) {
		const char *nl = memchr(data + head, '\n', len - head);
		head = nl ? (size_t)(nl - data) + 1 : len;
	}
	const struct collapse_format *best = NULL;
	int best_score = 0;
	for (size_t i = 0; collapse_formats[i]; i++) {
		int s = collapse_formats[i]->probe(data, head);
		if (s > best_score) {
			best_score = s;
			best = collapse_formats[i];
		}
	}
	return best;
}
