/* Fuzz target: the folded-stack reader and writer. */
#include "base/out.h"
#include "profile/folded.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile p;
	profile_init(&p);
	struct folded_stats st = { 0 };
	struct folded_opts opts = { .max_warnings = -1 };
	folded_parse(&p, "fuzz", (const char *)data, size, &opts, &st);
	struct out *o = out_open_null();
	folded_write(&p, o);
	out_commit(o);
	profile_release(&p);
	return 0;
}
