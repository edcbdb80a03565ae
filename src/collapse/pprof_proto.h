/* Binary pprof (profile.proto, as Go, Pyroscope, Parca and scorch write
 * it; gzip is already undone by input_load) -> profile. Reached through
 * the "pprof" collapse format, which also reads go tool pprof's text. */
#ifndef SCORCH_COLLAPSE_PPROF_PROTO_H
#define SCORCH_COLLAPSE_PPROF_PROTO_H

#include "collapse/collapse.h"

/* 95 when head is a plausible profile.proto message (every top-level
 * field a Profile field with its wire type, sample types well formed),
 * else 0. */
int pprof_proto_probe(const char *head, size_t n);

/* Every sample's stack, root first (a location's inlined lines outermost
 * first), counted with the value opts->sample_index names (a sample type
 * such as "cpu" or "alloc_space", or its 0-based number; default: the
 * profile's default_sample_type, else its last, as go tool pprof does).
 * A frame is its function's name; a location without one is "[file]" of
 * its mapping, else "[unknown]". Mappings with a file name, and the
 * addresses of their locations, become the profile's frame sites
 * (profile/frame_sites.h), so that pprof written back keeps them. Returns 0, or -1 with an error naming the
 * byte offset. */
int pprof_proto_parse(struct profile *p, const struct collapse_source *src,
		      const struct collapse_opts *opts);

#endif
