/* Fuzz target: record's parser of perf ring-buffer records (samples with
 * callchains, or with user registers and a stack copy that the DWARF
 * unwinder walks, or --off-cpu's sched_switch samples with raw fields and
 * context-switch records; MMAP2, COMM, FORK, LOST) and the collector
 * behind it.
 * /proc is replaced by a directory that does not exist, so nothing about
 * the real machine is read. */
#include "record/perf_attr.h"
#include "record/perf_offcpu.h"
#include "record/perf_parse.h"
#include "record/record.h"

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct record_opts opts = { .freq = 99, .annotate_tid = size & 1, .per_cpu = size & 2,
				    .keep_order = size & 4 };
	/* --off-cpu (--wall too when size & 32), at Linux 6.x's sched_switch offsets. */
	const struct offcpu_format fmt = { .id = 372, .prev_pid = 24, .prev_state = 32, .prev_state_size = 8,
					   .next_pid = 56, .min_size = 60 };
	bool off_cpu = (size & 24) == 16;
	if (off_cpu) {
		opts.off_cpu = true;
		opts.wall = size & 32;
		opts.keep_order = false;
		opts.off_cpu_states = RECORD_OFFCPU_STATES_ALL;
	}
	struct recorder *r = recorder_new(&opts, "/nonexistent-proc");
	struct perf_parser ps = { .r = r };
	if (size & 8) { /* samples with user registers and a stack copy to unwind */
		ps.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
				 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
				 PERF_SAMPLE_STACK_USER;
		ps.regs_mask = record_user_regs_mask();
	}
	if (off_cpu) {
		ps.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
				 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW;
		ps.offcpu = offcpu_new(&opts, r, &fmt);
	}
	perf_parse_records(&ps, data, size);
	if (ps.offcpu) {
		struct offcpu_counts counts;
		offcpu_finish(ps.offcpu, UINT64_MAX / 2, &counts);
		offcpu_free(ps.offcpu);
	}
	perf_parser_release(&ps);
	recorder_free(r);
	return 0;
}
