/* report --inline: stackcollapse-perf.pl --inline's expansion of a frame of
 * a file-backed module into the function chain addr2line -i -f -s -C gives
 * for its address (with the script's nm fallback), cached per (module,
 * address). Without elfutils every frame is kept as it is. */
#ifndef SCORCH_PERFDATA_INLINE_FRAMES_H
#define SCORCH_PERFDATA_INLINE_FRAMES_H

#include "profile/profile.h"

#include <stdbool.h>
#include <stdint.h>

struct inline_frames;

struct inline_frames *inline_frames_new(void);
void inline_frames_free(struct inline_frames *x);

/* The frames for the frame perf script prints "PC SYMBOL+0xOFFSET (DSO)"
 * (symbol NULL: [unknown]; dso a string whose address identifies it),
 * outermost first, as symbols of p in (*syms)[0..*count); false when the
 * script keeps the frame as it is. *syms is valid until the next call. */
bool inline_frames_of(struct inline_frames *x, struct profile *p, const char *symbol, uint64_t offset,
		      const char *dso, uint64_t pc, const uint32_t **syms, uint32_t *count);

#endif
