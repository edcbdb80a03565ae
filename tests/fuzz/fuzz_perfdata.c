/* Fuzz target: the perf.data reader (header, attributes, features, record
 * walk, zstd records, sample parsing) and everything report does with the
 * records (thread and map bookkeeping, folding, the trie's pushes on a
 * thread of their own, DWARF unwinding of the copied stack). Symbol files
 * are pointed at nowhere so that inputs do not depend on this machine's
 * files. A third of the inputs (by size) are folded keeping sample times
 * (the one-by-one path of the heat map and --time), half of those also
 * with a --time range from the first to the last sample, and the
 * sample span walk (perfdata/sample_span.c) runs on every input. */
#include "perfdata/fold_testing.h"
#include "perfdata/sample_span.h"
#include "profile/profile.h"
#include "profile/time_ranges.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct report_opts o = {
		.keep_going = true,
		.quiet = true,
		.no_inline = true,
		.sym = { .kallsyms = "/nonexistent/kallsyms", .symfs = "/nonexistent",
			 .debug_home = "/nonexistent" },
	};
	struct time_ranges r;
	struct perf_data_span sp;
	bool span = perf_data_sample_span("fuzz", data, size, &sp) == 1;
	if (size % 3 == 0) {
		o.time = true;
		char err[320];
		if (span && size % 2 == 0 && !time_ranges_parse(&r, "0%-100%", err, sizeof(err))) {
			if (sp.epoch_known)
				time_ranges_set_epoch(&r, sp.epoch_offset);
			if (!time_ranges_resolve(&r, sp.first, sp.last, err, sizeof(err)))
				o.ranges = &r;
		}
	}
	/* inputs this small never reach the chains after which the trie's
	   pushes go to a thread of their own: half of them (by size) send
	   them there from the first, through the ring's messages */
	struct fold_testing t = { .pushes = size & 1 ? PUSHES_TEST_THREAD : PUSHES_TEST_OFF };
	struct profile p;
	profile_init(&p);
	struct report_stats st;
	report_fold_testing("fuzz", data, size, &o, &t, &p, &st);
	profile_release(&p);
	return 0;
}
