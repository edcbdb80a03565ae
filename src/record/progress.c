/* The progress line of scorch record on a terminal: elapsed and remaining
 * time, samples, lost samples; redrawn at most a few times a second. */
#include "record/session.h"

#include <inttypes.h>
#include <stdio.h>

void record_progress(const struct record_opts *opts, double elapsed, uint64_t samples, uint64_t lost)
{
	char remaining[32] = "";
	if (opts->duration > 0) {
		double left = opts->duration - elapsed;
		snprintf(remaining, sizeof(remaining), ", %.0fs left", left > 0 ? left : 0);
	}
	fprintf(stderr, "\rscorch: recording %.1fs%s, %" PRIu64 " samples, %" PRIu64 " lost\033[K",
		elapsed, remaining, samples, lost);
	fflush(stderr);
}

void record_progress_end(const struct record_opts *opts)
{
	(void)opts;
	fputs("\r\033[K", stderr);
	fflush(stderr);
}
