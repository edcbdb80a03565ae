/* When a perf.data file's samples start and end: what --time's relative
 * times and percentages are measured against. */
#ifndef SCORCH_PERFDATA_SAMPLE_SPAN_H
#define SCORCH_PERFDATA_SAMPLE_SPAN_H

#include <stddef.h>
#include <stdint.h>

/* The earliest and latest sample time (perf's clock, ns) in buf[0..len)
 * (named path in messages). Returns 1 when found, 0 when no sample has a
 * time, or -1 after printing an error (unreadable file). */
int perf_data_sample_span(const char *path, const void *buf, size_t len, uint64_t *first, uint64_t *last);

#endif
