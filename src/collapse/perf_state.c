/* The line-by-line state machine of stackcollapse-perf.pl (flamegraph-pl.md
 * 3.2): event lines start a sample, frame lines are prepended to its stack,
 * a blank line emits "pname;stack" += period. Used for everything the fast
 * path (perf_fast.c) does not take: first sight of unusual blocks,
 * --srcline, --inline. */
#include "collapse/perf_chunk.h"

#include "base/alloc.h"
#include "profile/time_cells.h"
#include "profile/time_ranges.h"
#ifdef HAVE_ELFUTILS
#include "symbolize/inline.h"
#endif

#include <string.h>

void perf_clear_sample(struct perf_chunk *c)
{
	c->have_pname = false;
	c->in_dropped = false;
	c->orphan_seen = false;
	c->frames.len = 0;
	c->frames.nr = 0;
	c->ngroups = 0;
}

void perf_push_split(struct perf_chunk *c, const char *s, size_t n)
{
	/* The script joins frames with ';' into one key; a name holding ';'
	 * (a process name, --inline or --srcline text) is several levels. */
	for (;;) {
		const char *semi = memchr(s, ';', n);
		size_t k = semi ? (size_t)(semi - s) : n;
		VEC_GROW(c->syms, c->nsyms + 1, c->syms_alloc);
		c->syms[c->nsyms++] = profile_sym(c->p, s, k);
		if (!semi)
			return;
		s = semi + 1;
		n -= k + 1;
	}
}

node_t perf_pname_node(struct perf_chunk *c, const char *s, size_t n)
{
	sym_t sym = profile_sym(c->p, s, n);
	bool inserted;
	uint32_t *slot = hashmap_upsert(&c->pnames, sym, 0, &inserted);
	if (!inserted)
		return *slot;
	node_t node = PROFILE_ROOT;
	if (!memchr(s, ';', n)) {
		node = profile_push(c->p, node, sym);
	} else {
		size_t mark = c->nsyms;
		perf_push_split(c, s, n);
		for (size_t i = mark; i < c->nsyms; i++)
			node = profile_push(c->p, node, c->syms[i]);
		c->nsyms = mark;
	}
	slot = hashmap_upsert(&c->pnames, sym, node, &inserted);
	*slot = node;
	return node;
}

static void emit(struct perf_chunk *c)
{
	c->nsyms = 0;
	for (size_t g = c->ngroups; g-- > 0;) {
		size_t last = g + 1 < c->ngroups ? c->groups[g + 1] : c->frames.nr;
		for (size_t k = c->groups[g]; k < last; k++) {
			struct frame_slice part = frame_part(&c->frames, k);
			perf_push_split(c, part.s, part.n);
		}
	}
	struct frame_slice pn = frame_part(&c->pname, 0);
	node_t pnode = perf_pname_node(c, pn.s, pn.n);
	node_t node = pnode;
	for (size_t i = 0; i < c->nsyms; i++)
		node = profile_push(c->p, node, c->syms[i]);
	if (c->have_time)
		profile_count_at(c->p, node, c->period, c->time);
	else
		profile_count_whole(c->p, node, c->period);
}

static void report_bad(struct perf_chunk *c, const char *line, size_t n, bool orphan)
{
	struct perf_diag *d = c->diag;
	if (d->bad < MAX_REPORTED) {
		d->bad_orphan[d->bad] = orphan;
		d->bad_at[d->bad] = line;
		d->bad_len[d->bad] = n;
	}
	d->bad++;
	c->rec_simple = false;
	if (c->cfg->opts->strict)
		d->failed = true;
}

static bool filter_drops(struct perf_chunk *c, const struct perf_event_line *ev)
{
	struct perf_filter *f = c->cfg->filter;
	if (!ev->has_event)
		return false;
	if (!f->set) {
		/* Sequential mode only: the first event seen becomes the filter. */
		f->name = ev->event.s;
		f->len = ev->event.n;
		f->set = true;
		f->defaulted = true;
		return false;
	}
	if (ev->event.n == f->len && !memcmp(ev->event.s, f->name, f->len))
		return false;
	if (!c->diag->dropped) {
		c->diag->dropped = ev->event.s;
		c->diag->dropped_len = ev->event.n;
	}
	return true;
}

/* --time: whether the sample is in a range (one without a time is not);
 * and its time noted when the profile keeps time. */
static bool time_kept(struct perf_chunk *c, const char *line, const struct perf_event_line *ev)
{
	const struct time_ranges *r = c->cfg->opts->time_ranges;
	c->have_time = false;
	if (!r && !c->p->time)
		return true;
	uint64_t t;
	if (!perf_event_time(line, ev, &t))
		return !r;
	c->have_time = c->p->time != NULL;
	c->time = t;
	return !r || time_ranges_keep(r, t);
}

void perf_start_sample(struct perf_chunk *c, const struct perf_event_line *ev)
{
	if (!perf_period(ev, &c->period))
		c->p->overflow = true; /* reported by whoever reads the profile */
	c->pname.len = 0;
	c->pname.nr = 0;
	frame_pname(ev->comm, ev->first, ev->second, c->cfg->pid, c->cfg->tid, &c->pname);
	c->java = frame_pname_is_java(c->pname.buf, c->pname.len);
	c->have_pname = true;
}

static void frame_line(struct perf_chunk *c, const struct frame_text *fr, struct perf_cursor *cur)
{
	const struct collapse_opts *o = c->cfg->opts;
	size_t first = c->frames.nr;
#ifdef HAVE_ELFUTILS
	if (o->inline_frames && frame_inline_applies(fr->module.s, fr->module.n)) {
		const char *r = inline_resolve(c->cfg->resolver, fr->pc.s, fr->pc.n, fr->symbol.s,
					       fr->symbol.n, fr->module.s, fr->module.n);
		if (r && frame_inline_usable(r, strlen(r))) {
			frame_parts_push(&c->frames, r, strlen(r));
			goto added;
		}
	}
#endif
	struct frame_opts t = c->cfg->tidy;
	t.java = c->java;
	if (!o->srcline) {
		if (!frame_names(fr, &t, &c->frames))
			return;
	} else {
		/* Each part reads the next input line as its source line, up
		 * to the first part that was an [unknown] symbol. */
		struct frame_parts *sp = &c->scratch;
		sp->len = sp->nr = 0;
		if (!frame_names(fr, &t, sp))
			return;
		for (size_t i = 0; i < sp->nr; i++) {
			struct frame_slice part = frame_part(sp, i);
			frame_parts_push(&c->frames, part.s, part.n);
			if (i < sp->first_unknown) {
				const char *sl = "";
				size_t sn = 0;
				if (cur)
					perf_next_line(cur, &sl, &sn);
				frame_append_srcline(&c->frames, sl, sn);
			}
		}
	}
#ifdef HAVE_ELFUTILS
added:
#endif
	if (c->frames.nr == first)
		return;
	/* The line's parts go in front of the stack: record the group. */
	VEC_GROW(c->groups, c->ngroups + 1, c->groups_alloc);
	c->groups[c->ngroups++] = first;
}

void perf_process_line(struct perf_chunk *c, const char *line, size_t n, struct perf_cursor *cur)
{
	if (n && line[0] == '#')
		return;
	if (n == 0) {
		if (c->have_pname)
			emit(c);
		perf_clear_sample(c);
		return;
	}
	struct perf_event_line ev;
	if (perf_match_event_line(line, n, &ev)) {
		c->rec_simple = false;
		if (filter_drops(c, &ev) || !time_kept(c, line, &ev)) {
			c->in_dropped = true;
			return;
		}
		perf_start_sample(c, &ev);
		return;
	}
	struct frame_text fr;
	if (perf_match_frame_line(line, n, &fr)) {
		if (!c->have_pname) {
			/* The script skips it silently. Frames of a filtered
			 * event are expected; others have lost their event line
			 * (report the first of each run). */
			if (!c->in_dropped && !c->orphan_seen) {
				c->orphan_seen = true;
				report_bad(c, line, n, true);
			}
			return;
		}
		frame_line(c, &fr, cur);
		return;
	}
	report_bad(c, line, n, false);
}

void perf_process_range(struct perf_chunk *c, const char *from, const char *to)
{
	struct perf_cursor cur = { from, to };
	const char *line;
	size_t n;
	while (!c->diag->failed && perf_next_line(&cur, &line, &n))
		perf_process_line(c, line, n, &cur);
}
