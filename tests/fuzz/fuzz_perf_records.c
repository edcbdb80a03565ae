/* Fuzz target: record's parser of perf ring-buffer records (samples with
 * callchains, or with user registers and a stack copy that the DWARF
 * unwinder walks; MMAP2, COMM, FORK, LOST) and the collector behind it.
 * /proc is replaced by a directory that does not exist, so nothing about
 * the real machine is read. */
#include "record/record.h"

#include <linux/perf_event.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct record_opts opts = { .freq = 99, .annotate_tid = size & 1, .per_cpu = size & 2,
				    .keep_order = size & 4 };
	struct recorder *r = recorder_new(&opts, "/nonexistent-proc");
	struct perf_parser ps = { .r = r };
	if (size & 8) { /* samples with user registers and a stack copy to unwind */
		ps.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
				 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
				 PERF_SAMPLE_STACK_USER;
		ps.regs_mask = record_user_regs_mask();
	}
	perf_parse_records(&ps, data, size);
	perf_parser_release(&ps);
	recorder_free(r);
	return 0;
}
