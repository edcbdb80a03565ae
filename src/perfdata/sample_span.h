/* When a perf.data file's samples start and end: what --time's relative
 * times and percentages are measured against. */
#ifndef SCORCH_PERFDATA_SAMPLE_SPAN_H
#define SCORCH_PERFDATA_SAMPLE_SPAN_H

#include <stddef.h>
#include <stdint.h>

#include <stdbool.h>

/* The earliest and latest sample time (perf's clock, ns) in buf[0..len)
 * (named path in messages), and how that clock maps to the epoch when the
 * file says (perf record -k: epoch ns = time + epoch_offset). Returns 1
 * when found, 0 when no sample has a time, or -1 after printing an error
 * (unreadable file). */
struct perf_data_span {
	uint64_t first, last;
	bool epoch_known;
	int64_t epoch_offset;
};
int perf_data_sample_span(const char *path, const void *buf, size_t len, struct perf_data_span *span);

#endif
