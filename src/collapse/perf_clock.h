/* How perf script text's sample times map to the Unix epoch, when the
 * text says: `perf script --header` of a perf record -k capture prints
 * "# reference time: DATE = S.US (TOD) = S.NS (CLOCK)", the wall clock and
 * the samples' clock read together (perf.data's CLOCK_DATA feature). */
#ifndef SCORCH_COLLAPSE_PERF_CLOCK_H
#define SCORCH_COLLAPSE_PERF_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The offset (epoch ns = sample ns + offset) from that line of the
 * comment block that opens data[0..len); false when it has none. */
bool perf_text_epoch(const char *data, size_t len, int64_t *offset);

#endif
