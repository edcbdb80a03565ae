/* A frame_parts as one string, its parts joined with '|', for the unit
 * tests that compare frame names (test_frame_rules.c, test_perf_script.c). */
#ifndef SCORCH_TESTS_FRAME_PARTS_TEXT_H
#define SCORCH_TESTS_FRAME_PARTS_TEXT_H

#include "base/alloc.h"
#include "profile/frame_rules.h"

#include <string.h>

static inline char *frame_parts_joined(const struct frame_parts *pp)
{
	char *out = xstrdup("");
	for (size_t i = 0; i < pp->nr; i++) {
		struct frame_slice s = frame_part(pp, i);
		size_t n = strlen(out);
		out = xrealloc(out, n + s.n + 2);
		if (i)
			out[n++] = '|';
		memcpy(out + n, s.s, s.n);
		out[n + s.n] = '\0';
	}
	return out;
}

#endif
