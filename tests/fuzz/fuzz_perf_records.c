/* Fuzz target: record's parser of perf ring-buffer records (samples with
 * callchains, MMAP2, COMM, FORK, LOST) and the collector behind it.
 * /proc is replaced by a directory that does not exist, so nothing about
 * the real machine is read. */
#include "record/record.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct record_opts opts = { .freq = 99, .annotate_tid = size & 1, .per_cpu = size & 2,
				    .keep_order = size & 4 };
	struct recorder *r = recorder_new(&opts, "/nonexistent-proc");
	struct perf_parser ps = { .r = r };
	perf_parse_records(&ps, data, size);
	perf_parser_release(&ps);
	recorder_free(r);
	return 0;
}
