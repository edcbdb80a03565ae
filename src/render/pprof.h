/* pprof output: the profile as a gzipped profile.proto message
 * (github.com/google/pprof/proto/profile.proto), the format of go tool
 * pprof, Pyroscope, Parca and Google Cloud Profiler.
 *
 * One Function and one Location per distinct frame name (Location id =
 * Function id); one Sample per distinct stack, locations leaf first, the
 * process name (the folded root frame) its last location, so `go tool
 * pprof -raw` gives back the folded stacks. When the profile knows where
 * frames live (profile/frame_sites.h: report and record fill it), their
 * Locations carry a mapping id and an address, and each module is a
 * Mapping with its file name and build-id (has_functions set: the names
 * are ours, a server may still symbolise the address again). A frame
 * with a source (frame_sites.h: a Python function) is a Function named
 * by its function, with its file and first line (Line.line too) and the
 * frame name as its system_name. */
#ifndef SCORCH_RENDER_PPROF_H
#define SCORCH_RENDER_PPROF_H

#include "base/out.h"
#include "profile/profile.h"

struct pprof_opts {
	/* What the counts are: NULL or "samples" (samples/count), "ns"
	 * (cpu/nanoseconds: report's cpu-clock period sums), "us"
	 * (time/microseconds: record's off-CPU and wall time), "bytes"
	 * (space/bytes), or another unit name X (X/count: cycles,
	 * instructions, events, objects). */
	const char *count_unit;
	/* Nanoseconds of CPU one sample stands for (1e9 / sampling Hz), or 0
	 * when unknown: with it the samples carry cpu/nanoseconds beside
	 * samples/count, as Go's CPU profiles do. */
	double period_ns;
	/* When the profile was taken (ns since the Unix epoch) and for how
	 * long, or 0 when unknown. */
	int64_t time_ns, duration_ns;
};

/* Write p to out, gzipped when scorch has zlib (pprof reads either).
 * Counts are rounded to integers (a warning says so when some were not).
 * A differential profile gets two values per sample: "before" and the
 * counts' own type (the default). */
void pprof_write(struct out *out, const struct profile *p, const struct pprof_opts *o);

#endif
