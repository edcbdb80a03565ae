/* Fuzz target: the binary pprof reader (collapse/pprof_proto.c) on raw
 * profile.proto bytes (sample types and units, mappings and addresses into
 * frame sites), then the pprof and folded writers on what it read (the
 * writer's Mappings from those sites). */
#include "base/out.h"
#include "collapse/pprof_proto.h"
#include "profile/folded.h"
#include "render/pprof.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *bytes = (const char *)data;
	pprof_proto_probe(bytes, size < 65536 ? size : 65536);
	/* the sample index by number or name, or the default */
	static const char *const indexes[] = { NULL, "1", "samples" };
	const char *unit = NULL;
	struct collapse_opts opts = { .threads = 1, .sample_index = indexes[size % 3], .unit = &unit };
	struct collapse_source src = { "fuzz", bytes, size };
	struct profile p;
	profile_init(&p);
	if (pprof_proto_parse(&p, &src, &opts) == 0) {
		struct out *o = out_open_null();
		folded_write(&p, o);
		pprof_write(o, &p, &(struct pprof_opts){ .count_unit = unit });
		out_commit(o);
	}
	profile_release(&p);
	return 0;
}
