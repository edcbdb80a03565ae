/* Resolving a sample's frames (see sample_frames.h). */
#include "perfdata/sample_frames.h"

static void set_frame(struct resolved_frame *r, const struct sym_frame *fr, uint64_t ip)
{
	*r = (struct resolved_frame){ .name = fr->name, .dso = fr->dso, .ip = ip, .offset = fr->offset,
				      .addr = fr->dso_addr };
}

/* The kernel-provided callchain, with its context markers. */
static void callchain_frames(struct sample_frames *fr, const struct frame_lookup *look, const struct pd_sample *s,
			     int max_stack)
{
	struct callchain_walk w;
	callchain_walk_start(&w, s, max_stack);
	uint64_t ip;
	int got;
	while ((got = callchain_walk_next(&w, &ip)) > 0 && fr->nr < SAMPLE_FRAMES_MAX) {
		struct sym_frame f = { .dso = "[unknown]", .dso_addr = ip };
		if (!w.hv)
			frame_lookup_ip(look, s, ip, w.kernel, &f);
		set_frame(&fr->f[fr->nr++], &f, ip);
	}
	if (got < 0)
		fr->nr = 0; /* perf drops the chain */
}

/* The user stack unwound from a DWARF sample's registers and stack copy. */
static void unwound_frames(struct sample_frames *fr, struct symbolizer *sym, const struct pd_sample *s,
			   int max_stack, bool no_inline)
{
	struct sym_user_regs regs = { .abi = s->regs_abi, .mask = s->attr->sample_regs_user };
	uint64_t rv[64];
	uint32_t nr = s->nr_regs < 64 ? s->nr_regs : 64;
	for (uint32_t i = 0; i < nr; i++)
		rv[i] = pd_u64(s->regs + 8 * i);
	regs.regs = rv;
	int n = sym_unwind_user(sym, s->pid, s->tid, &regs, s->stack, (size_t)s->stack_size, fr->ips,
				max_stack, NULL);
	if (n > 0)
		fr->unwound++;
	else
		fr->unwind_failed++;
	for (int i = 0; i < n && fr->nr < SAMPLE_FRAMES_MAX; i++) {
		struct sym_frame f;
		sym_lookup(sym, s->pid, s->tid, fr->ips[i], false, &f);
		/* perf expands inlined functions of these frames (only these) */
		const struct sym_inline *chain;
		int nc = no_inline ? 0 : sym_inline_chain(sym, s->pid, s->tid, fr->ips[i], &chain);
		for (int k = 0; k < nc && fr->nr < SAMPLE_FRAMES_MAX; k++) {
			struct resolved_frame *r = &fr->f[fr->nr++];
			set_frame(r, &f, fr->ips[i]);
			r->name = chain[k].name;
			r->inlined = chain[k].inlined;
			if (r->inlined)
				r->dso = "inlined";
		}
		if (nc <= 0)
			set_frame(&fr->f[fr->nr++], &f, fr->ips[i]);
	}
}

void sample_frames_resolve(struct sample_frames *fr, const struct frame_lookup *look, const struct pd_sample *s,
			   int max_stack, bool no_inline)
{
	if (max_stack <= 0)
		max_stack = SAMPLE_FRAMES_DEFAULT_DEPTH;
	fr->nr = 0;
	if (s->callchain) {
		callchain_frames(fr, look, s, max_stack);
	} else {
		struct sym_frame f;
		bool kernel = (s->misc & PD_CPUMODE_MASK) == PD_CPUMODE_KERNEL;
		frame_lookup_ip(look, s, s->ip, kernel, &f);
		set_frame(&fr->f[fr->nr++], &f, s->ip);
	}
	if (s->regs && s->stack && s->stack_size && (s->attr->sample_type & PD_SAMPLE_STACK_USER))
		unwound_frames(fr, look->sym, s, max_stack, no_inline); /* never with a view */
}
