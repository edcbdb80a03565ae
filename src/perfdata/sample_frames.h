/* A sample's frames, leaf first, resolved as perf script resolves them
 * (thread__resolve_callchain, and the DWARF unwinder with perf's inline
 * expansion): symbol, offset, module and address per frame. */
#ifndef SCORCH_PERFDATA_SAMPLE_FRAMES_H
#define SCORCH_PERFDATA_SAMPLE_FRAMES_H

#include "perfdata/perfdata.h"
#include "symbolize/snapshot.h"
#include "symbolize/symbolize.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { SAMPLE_FRAMES_MAX = 1024, SAMPLE_FRAMES_DEFAULT_DEPTH = 127 /* perf script's */ };

struct resolved_frame {
	const char *name; /* symbol (owned by the symbolizer), NULL when unknown */
	const char *dso;  /* module as perf script names it ("inlined" for inlines) */
	uint64_t ip;      /* the address in the sample */
	uint64_t offset;  /* into the symbol */
	uint64_t addr;    /* as perf script prints it: dso-relative in a map */
	bool inlined;     /* an inlined function: printed "NAME+0xOFF (inlined)" */
};

struct sample_frames {
	struct resolved_frame f[SAMPLE_FRAMES_MAX];
	size_t nr;
	uint64_t ips[SAMPLE_FRAMES_MAX]; /* the unwinder's scratch */
	uint64_t unwound, unwind_failed; /* DWARF samples, counted */
};

/* A kernel-provided callchain entry by entry, as perf reads it: context
 * markers switch between kernel and user addresses (no maps for the
 * hypervisor's), at most max_stack entries (0: perf script's 127). */
struct callchain_walk {
	const struct pd_sample *s;
	uint64_t i;
	int entries, max;
	bool kernel, hv;
};

static inline void callchain_walk_start(struct callchain_walk *w, const struct pd_sample *s, int max_stack)
{
	*w = (struct callchain_walk){ .s = s, .max = max_stack > 0 ? max_stack : SAMPLE_FRAMES_DEFAULT_DEPTH };
}

/* 1: *ip is the next entry, w->kernel and w->hv its context; 0: the end;
 * -1: an unknown marker, for which perf drops the whole chain. */
static inline int callchain_walk_next(struct callchain_walk *w, uint64_t *ip)
{
	while (w->i < w->s->nr_callchain && w->entries < w->max) {
		uint64_t v = pd_u64(w->s->callchain + 8 * w->i++);
		if (v < PD_CONTEXT_MAX) {
			w->entries++;
			*ip = v;
			return 1;
		}
		if (v == PD_CONTEXT_KERNEL) {
			w->kernel = true;
			w->hv = false;
		} else if (v == PD_CONTEXT_USER) {
			w->kernel = false;
			w->hv = false;
		} else if (v == PD_CONTEXT_HV) {
			w->hv = true; /* perf has no maps for it */
		} else {
			return -1;
		}
	}
	return 0;
}

/* Where a sample's addresses are looked up: the symbolizer as it is now
 * (snap NULL: the replay's own thread, the only one that may unwind DWARF
 * stacks), or a view taken at the sample (report -j's fold threads). */
struct frame_lookup {
	struct symbolizer *sym;
	struct sym_reader *reader;
	const struct sym_snapshot *snap;
};

static inline int frame_lookup_ip(const struct frame_lookup *l, const struct pd_sample *s, uint64_t ip,
				  bool kernel, struct sym_frame *f)
{
	if (l->snap)
		return sym_snapshot_lookup(l->reader, l->snap, ip, kernel, f);
	return sym_lookup(l->sym, s->pid, s->tid, ip, kernel, f);
}

/* Resolve s into fr->f[0..fr->nr): at most max_stack callchain entries
 * (0: perf script's 127), perf's inline expansion of DWARF-unwound frames
 * unless no_inline. */
void sample_frames_resolve(struct sample_frames *fr, const struct frame_lookup *look, const struct pd_sample *s,
			   int max_stack, bool no_inline);

#endif
