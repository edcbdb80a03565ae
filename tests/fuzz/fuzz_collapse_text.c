/* Fuzz target for every text collapser but perf (one target for all of
 * them): the first byte picks the format and the options, the rest is the
 * input. Every input also goes through format detection, which runs every
 * format's probe (perf's included). */
#include "base/out.h"
#include "collapse/collapse.h"
#include "profile/folded.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const formats[] = {
	"dtrace", "stap",   "bpftrace", "perf-report", "recursive", "gdb",     "jstack",
	"pprof",  "sample", "vtune",    "vsprof",      "ghcprof",   "chrome",  "xctrace",
};
enum { NR_FORMATS = sizeof(formats) / sizeof(formats[0]) };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned sel = data[0];
	const char *text = (const char *)data + 1;
	size_t len = size - 1;

	collapse_detect(text, len);

	const struct collapse_format *f = collapse_find(formats[sel % NR_FORMATS]);
	if (!f)
		return 0;
	unsigned bits = sel / NR_FORMATS; /* 0..18 */
	static const char *const columns[] = { NULL, "ticks", "bytes" };
	struct collapse_opts opts = {
		.strict = bits & 1,
		.include_offsets = (bits >> 1) & 1,
		.no_modules = (bits >> 2) & 1,
		.ghcprof_column = columns[(bits >> 3) % 3],
	};
	struct collapse_source src = { "fuzz", text, len };
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
