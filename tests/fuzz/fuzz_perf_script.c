/* Fuzz target: perf script collapsing. The first byte picks the options;
 * the rest is the input, folded with one thread and with three (chunks cut
 * at blank lines), which must give the same folded output: the parallel
 * split may never change the result. The input is also folded with a line
 * "!" added after every line: the script ignores such a line, but it keeps
 * every sample off the cached fast path, so this compares the fast path
 * with the plain state machine, as does folding with sample times kept
 * (profile/time_cells.h), whose cells may count no more than the profile.
 * --srcline and --inline are left out
 * (--inline opens the files the input names). */
#include "base/out.h"
#include "collapse/perf_script.h"
#include "profile/folded.h"
#include "profile/time_cells.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *fold_kept(const char *text, size_t len, struct collapse_opts o, int threads, size_t *n, bool time)
{
	o.threads = threads;
	struct profile p;
	profile_init(&p);
	if (time)
		profile_keep_time(&p);
	struct perf_input in = { "fuzz", text, len, false };
	char *res = NULL;
	*n = 0;
	if (perf_collapse(&p, &in, 1, &o) == 0) {
		struct out *out = out_open_mem();
		folded_write(&p, out);
		res = out_mem_detach(out, n);
		/* the cells count no more than the profile does */
		if (p.time) {
			double cells = 0;
			for (uint32_t i = 0; i < p.time->nr; i++)
				cells += (double)p.time->entries[i].count;
			if (cells > profile_total(&p, 1) + 0.5)
				abort();
		}
	}
	profile_release(&p);
	return res;
}

static char *fold(const char *text, size_t len, struct collapse_opts o, int threads, size_t *n)
{
	return fold_kept(text, len, o, threads, n, false);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned sel = data[0];
	const char *text = (const char *)data + 1;
	size_t len = size - 1;
	struct collapse_opts o = {
		.pid = sel & 1,
		.tid = (sel >> 1) & 1,
		.kernel = (sel >> 2) & 1,
		.jit = (sel >> 3) & 1,
		.addrs = (sel >> 4) & 1,
		.strict = (sel >> 5) & 1,
		.event_filter = (sel >> 6) & 1 ? "cycles" : NULL,
	};
	size_t n1, n3;
	char *one = fold(text, len, o, 1, &n1);
	char *three = fold(text, len, o, 3, &n3);
	if ((one == NULL) != (three == NULL) || n1 != n3 || (one && memcmp(one, three, n1)))
		abort();
	/* keeping sample times (the sequential path) folds the same stacks */
	size_t nt;
	char *timed = fold_kept(text, len, o, 1, &nt, true);
	if ((one == NULL) != (timed == NULL) || n1 != nt || (one && memcmp(one, timed, n1)))
		abort();
	free(timed);
	if (!o.strict) {
		char *slow = malloc(len * 3 + 3);
		size_t w = 0;
		for (size_t i = 0; i < len; i++) {
			slow[w++] = text[i];
			if (text[i] == '\n') {
				slow[w++] = '!';
				slow[w++] = '\n';
			}
		}
		if (len && text[len - 1] != '\n') {
			slow[w++] = '\n';
			slow[w++] = '!';
		}
		size_t ns;
		char *general = fold(slow, w, o, 1, &ns);
		/* both fail alike (input scorch refuses, such as a perf.data
		   file's magic) or give the same profile */
		if ((one == NULL) != (general == NULL) || (one && (ns != n1 || memcmp(one, general, n1))))
			abort();
		free(general);
		free(slow);
	}
	free(one);
	free(three);
	return 0;
}
