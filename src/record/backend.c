/* What the backends share above their own files (backend.h): saying
 * that BPF cannot be used, and the BPF backend's stand-in when scorch is
 * built without libbpf. */
#include "record/backend.h"

#include "base/error.h"

#include <stdarg.h>
#include <stdio.h>

int record_bpf_unavailable(const struct record_opts *opts, const char *fmt, ...)
{
	char why[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (opts->backend == RECORD_BACKEND_BPF)
		error("BPF unavailable: %s", why);
	else if (!opts->quiet)
		fprintf(stderr, "scorch: BPF backend unavailable (%s); using perf_event ring buffers\n", why);
	return RECORD_UNAVAILABLE;
}

#ifndef HAVE_LIBBPF
static int bpf_not_built(const struct record_opts *opts, struct recorder *r, struct record_target *t,
			 struct record_stats *stats)
{
	(void)r;
	(void)t;
	(void)stats;
	return record_bpf_unavailable(opts, "scorch was built without libbpf");
}

const struct record_backend record_backend_bpf = { "bpf", bpf_not_built };
#endif
