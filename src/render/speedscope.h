/* speedscope output (https://www.speedscope.app, file format
 * jlfwong/speedscope src/lib/file-format-spec.ts): one "sampled" profile, a
 * shared frame table with one entry per distinct frame name, and one
 * weighted sample per distinct stack (frame indexes root first), in sorted
 * folded order, so the file grows with distinct stacks, never with the
 * number of samples. Unit "nanoseconds" when count_unit is "ns" (report's
 * cpu-clock period sums, a pprof input's nanoseconds: render/pprof.h),
 * "microseconds" for "us" (record's off-CPU time), "bytes" for "bytes", else "none": weights are counts.
 * A differential profile is two profiles over the same frames: "before"
 * (its first column) and "after" (the second, active when the file is
 * opened, as flamegraph's widths follow it); speedscope switches between
 * them. */
#ifndef SCORCH_RENDER_SPEEDSCOPE_H
#define SCORCH_RENDER_SPEEDSCOPE_H

#include "base/out.h"
#include "profile/profile.h"

void speedscope_write(struct out *out, const struct profile *p, const char *count_unit);

#endif
