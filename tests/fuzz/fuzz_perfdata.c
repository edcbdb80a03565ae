/* Fuzz target: the perf.data reader (header, attributes, features, record
 * walk, zstd records, sample parsing) and everything report does with the
 * records (thread and map bookkeeping, folding, the trie's pushes on a
 * thread of their own, DWARF unwinding of the copied stack). Symbol files
 * are pointed at nowhere so that inputs do not depend on this machine's
 * files. */
#include "perfdata/fold.h"
#include "profile/profile.h"

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
		/* inputs this small never reach the chains after which the trie's
		   pushes go to a thread of their own: half of them (by size)
		   send them there from the first, through the ring's messages */
		.pushes_test = size & 1 ? PUSHES_TEST_THREAD : PUSHES_TEST_OFF,
	};
	struct profile p;
	profile_init(&p);
	struct report_stats st;
	report_fold("fuzz", data, size, &o, &p, &st);
	profile_release(&p);
	return 0;
}
