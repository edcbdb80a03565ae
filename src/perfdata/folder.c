/* The folder (folder.h): one thread's folding state, its caches, the
 * event kept, and the folded symbols of each distinct frame. What folds a
 * sample is above it (fold_sample.c, fold_chain.c). */
#include "perfdata/folder.h"

#include "base/alloc.h"
#include "perfdata/perfdata.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The folded frames of a resolved frame: appends their symbols to
 * seq_syms and returns the start index and count (count 0: the frame is
 * dropped). */
static void fold_frame(struct folder *f, const struct resolved_frame *r, bool java, uint32_t *first,
		       uint32_t *count)
{
	struct frame_fields fields = { .symbol = r->name, .offset = r->offset, .module = r->dso, .pc = r->addr };
	struct frame_opts fo = { .kernel = f->o->kernel, .jit = f->o->jit, .addrs = f->o->addrs, .java = java };
	*first = (uint32_t)f->nr_seq_syms;
	*count = 0;
	f->parts.len = f->parts.nr = 0;
	if (!frame_names_of(&fields, &fo, &f->parts, &f->line, &f->line_alloc))
		return;
	for (size_t i = 0; i < f->parts.nr; i++) {
		struct frame_slice part = frame_part(&f->parts, i);
		VEC_GROW(f->seq_syms, f->nr_seq_syms + 1, f->seq_syms_alloc);
		f->seq_syms[f->nr_seq_syms++] = profile_sym(f->p, part.s, part.n);
		(*count)++;
	}
}

/* Symbol names and module names are owned by the symbolizer at fixed
 * addresses: the pointer plus a tag identifies the names, unless the
 * [unknown <PC>] shows the address, or the module holds " (" (the script
 * then reads the offset into the name). */
void frame_syms(struct folder *f, const struct resolved_frame *r, bool java, uint32_t *first, uint32_t *count)
{
	uint64_t key = r->name ? (uint64_t)(uintptr_t)r->name * 4 + (r->inlined ? 2 : 0)
			       : (uint64_t)(uintptr_t)r->dso * 4 + 1;
	bool cacheable = !(f->o->addrs && !r->name) && !java;
	uint32_t packed;
	if (cacheable && hashmap_get(&f->frame_cache, key, &packed)) {
		*first = packed >> 4;
		*count = packed & 15;
		return;
	}
	fold_frame(f, r, java, first, count);
	if (cacheable && *count < 16 && *first < (1u << 28) && !strstr(r->dso, " (")) {
		bool ins;
		*hashmap_upsert(&f->frame_cache, key, *first << 4 | *count, &ins) = *first << 4 | *count;
	}
}

static int longest_event_name(const struct perf_data *pd)
{
	int w = 0;
	for (size_t i = 0; i < pd->nr_attrs; i++) {
		int l = (int)strlen(pd->attrs[i].name);
		if (l > w)
			w = l;
	}
	return w;
}

struct folder *folder_new(const struct report_opts *o, const struct perf_data *pd, struct profile *p,
			  struct report_stats *st, struct symbolizer *sym, struct sym_reader *reader,
			  enum fold_pushes_mode pushes)
{
	/* sized for SAMPLE_FRAMES_MAX frames: on the heap */
	struct folder *f = xcalloc(1, sizeof(*f));
	*f = (struct folder){ .o = o, .p = p, .st = st, .filter = o->event_filter, .sym = sym,
			      .look = { .sym = sym, .reader = reader }, .unit_seq = UINT64_MAX };
	f->script = (struct script_text){ .with_pid = o->script_pid, .name_width = longest_event_name(pd) };
	hashmap_init(&f->frame_cache);
	hashmap_init(&f->pname_cache);
	hashmap_init(&f->chain_cache);
	f->ip_cache = xmalloc(IP_SLOTS * sizeof(*f->ip_cache));
	for (size_t i = 0; i < IP_SLOTS; i++)
		f->ip_cache[i].count = UINT32_MAX;
	f->file_cache = xcalloc(FILE_SLOTS, sizeof(*f->file_cache));
	f->unknown_run[1] = UINT32_MAX;
	f->runs = xmalloc(SAMPLE_FRAMES_MAX * sizeof(*f->runs));
	f->ips = xmalloc(SAMPLE_FRAMES_MAX * sizeof(*f->ips));
	if (o->inline_addr2line)
		f->inlines = inline_frames_new();
	f->pushes = fold_pushes_new(p, pushes);
	return f;
}

void folder_free(struct folder *f)
{
	if (!f)
		return;
	fold_pushes_free(f->pushes);
	inline_frames_free(f->inlines);
	script_text_release(&f->script);
	hashmap_release(&f->frame_cache);
	hashmap_release(&f->pname_cache);
	hashmap_release(&f->chain_cache);
	free(f->chains);
	frame_parts_release(&f->parts);
	free(f->line);
	free(f->seq_syms);
	free(f->pnames);
	free(f->ip_cache);
	free(f->file_cache);
	for (size_t i = 0; f->memos && i < CHAIN_MEMOS; i++)
		free(f->memos[i].ips);
	free(f->memos);
	free(f->runs);
	free(f->ips);
	free(f->held);
	free(f->held_ips);
	sym_preload_stop(f->kernel_wait);
	free(f->runs_made);
	free(f);
}

/* The first event seen is kept unless one was given. */
bool folder_keep_event(struct folder *f, const struct pd_sample *s)
{
	const char *ev = s->attr->name;
	if (s->attr == f->kept_attr)
		return true;
	if (!f->filter) {
		f->filter = ev;
		f->filter_defaulted = true;
	}
	if (!strcmp(ev, f->filter)) {
		f->kept_attr = s->attr;
		return true;
	}
	if (f->filter_defaulted && !f->filter_noted && !f->o->quiet) {
		fprintf(stderr, "Filtering for events of type: %s\n", ev);
		f->filter_noted = true;
	}
	f->st->skipped_event++;
	return false;
}

const char *folder_event(const struct folder *f)
{
	return f->filter;
}

const struct profile_run *folder_runs(const struct folder *f, size_t *nr)
{
	*nr = f->nr_runs_made;
	return f->runs_made;
}

void folder_add_stats(const struct folder *f, struct report_stats *st, uint64_t *unit_seq)
{
	if (f->st != st) {
		st->folded += f->st->folded;
		st->skipped_event += f->st->skipped_event;
	}
	st->unwound += f->frames.unwound;
	st->unwind_failed += f->frames.unwind_failed;
	if (f->st->count_unit && f->unit_seq < *unit_seq) {
		*unit_seq = f->unit_seq;
		st->count_unit = f->st->count_unit;
	}
}
