/* Fuzz target: format detection over the whole table (every format's
 * probe runs on the input), then the detected format parses it. */
#include "base/out.h"
#include "collapse/collapse.h"
#include "profile/folded.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	for (size_t i = 0; collapse_formats[i]; i++)
		collapse_formats[i]->probe(text, size < 65536 ? size : 65536);
	const struct collapse_format *f = collapse_detect(text, size);
	if (!f)
		return 0;
	struct collapse_opts opts = { .threads = 1 };
	struct collapse_source src = { "fuzz", text, size };
	struct profile p;
	profile_init(&p);
	if (f->parse(&p, &src, &opts) == 0) {
		struct out *o = out_open_null();
		folded_write(&p, o);
		out_commit(o);
	}
	profile_release(&p);
	return 0;
}
