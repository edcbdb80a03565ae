/* perf script's default text for samples (`scorch report --script`): the
 * header line "COMM TID [CPU] TIME: PERIOD EVENT: " (or "COMM PID/TID ..."
 * as perf script -F +pid prints it) and one "\tADDR SYMBOL+0xOFF (DSO)"
 * line per frame. */
#ifndef SCORCH_PERFDATA_SCRIPT_TEXT_H
#define SCORCH_PERFDATA_SCRIPT_TEXT_H

#include "base/out.h"
#include "perfdata/perfdata.h"
#include "perfdata/sample_frames.h"

#include <stdbool.h>
#include <stddef.h>

struct script_text {
	bool with_pid;  /* "PID/TID" (perf script -F +pid) */
	int name_width; /* perf pads event names to the longest one in the file */
	char *buf;      /* the last header line */
	size_t alloc;
};

/* The header line of s (no newline), in t->buf; returns its length. */
size_t script_header(struct script_text *t, const char *comm, const struct pd_sample *s);

/* The header, the frames and a blank line, as perf script prints them. */
void script_write_sample(struct script_text *t, struct out *o, const char *comm, const struct pd_sample *s,
			 const struct resolved_frame *fr, size_t nr);

void script_text_release(struct script_text *t);

#endif
