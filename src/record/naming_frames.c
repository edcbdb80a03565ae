/* The naming step's frames (naming_impl.h): one address -> the names
 * perf script prints for it, as stackcollapse-perf.pl splits them, cached
 * per address. User frames of new stacks are named while sampling runs
 * (naming_preload_user: their files' symbols read then), so that little
 * is left when it ends. */
#include "record/naming.h"
#include "record/naming_impl.h"

#include "addrspace/procmaps.h"
#include "base/alloc.h"
#include "base/hashmap.h"
#include "base/strpool.h"
#include "profile/frame_rules.h"
#include "profile/frame_sites.h"
#include "record/recorder_impl.h"
#include "record/symbols.h"
#include "symbolize/symbolize.h" /* struct sym_inline */

#include <stdint.h>
#include <string.h>

/* The symbolizer's view of the image a user ref fell in (one address
 * space per image). */
static const struct symbols_map *user_map(const struct recorder *r, const struct mapping *m, uint32_t pid,
					  uint64_t ref, struct symbols_map *sm)
{
	*sm = (struct symbols_map){ (uint32_t)((ref >> PROCMAPS_REF_SHIFT) - 1), m->pid ? m->pid : pid, m->start,
				    m->end, m->pgoff, strpool_str(&r->maps.paths, m->path),
				    m->start + procmaps_ref_offset(ref) };
	return sm;
}

/* A user frame of a new stack: read its file's symbols now, while
 * sampling (JIT maps are read at the end: they grow as code is made). */
enum { NAMED_LATER = UINT32_MAX - 1 };

/* The key of a DWARF-unwound frame in the named and user_cache maps:
 * perf expands the inlined functions of those frames only (refs use
 * bits 0-62). */
#define DWARF_FRAME_KEY (1ull << 63)

/* A name from user_syms, copied into r->name_text (user_syms may drop
 * the file's symbols at its next lookup in another file). */
static const char *keep_name(struct recorder *r, const char *name)
{
	return name ? strpool_str(&r->name_text, strpool_intern(&r->name_text, name, strlen(name))) : NULL;
}

/* A DWARF-unwound frame's inlined functions, as report expands them:
 * copied into r->inlines (the symbolizer's array moves); none with
 * --no-inline. */
static void note_inlines(struct recorder *r, const struct symbols_map *sm, struct user_name *un)
{
	if (r->opts->no_inline)
		return;
	const struct sym_inline *chain;
	int n = symbols_user_inlines(r->user_syms, sm, sm->addr, &chain);
	un->inlines = (uint32_t)r->nr_inlines;
	un->nr_inlines = n > 0 ? (uint32_t)n : 0;
	VEC_GROW(r->inlines, r->nr_inlines + un->nr_inlines, r->alloc_inlines);
	for (uint32_t i = 0; i < un->nr_inlines; i++)
		r->inlines[r->nr_inlines++] = (struct sym_inline){ keep_name(r, chain[i].name), chain[i].inlined };
}

bool naming_preload_user(struct recorder *r, uint32_t pid, uint64_t ref, bool dwarf)
{
	const struct mapping *m = images_mapping(&r->images, ref);
	bool inserted;
	if (!m)
		return true;
	uint32_t *slot = hashmap_upsert(&r->named, dwarf ? ref | DWARF_FRAME_KEY : ref, NAMED_LATER, &inserted);
	if (!inserted)
		return *slot != NAMED_LATER;
	struct symbols_map sm;
	struct user_name un = { 0 };
	if (!symbols_user_preload(r->user_syms, user_map(r, m, pid, ref, &sm), &un.name, &un.module))
		return false;
	un.name = keep_name(r, un.name);
	if (dwarf)
		note_inlines(r, &sm, &un);
	VEC_GROW(r->names, r->nr_names + 1, r->alloc_names);
	r->names[r->nr_names] = un;
	*slot = (uint32_t)r->nr_names++;
	return true;
}

/* Append the names of the frame perf script prints as "SYMBOL (MODULE)"
 * to b->seq; returns how many. */
static uint32_t append_names(struct builder *b, const char *symbol, const char *module)
{
	const struct record_opts *o = b->r->opts;
	struct frame_opts fo = { .kernel = o->annotate_kernel, .jit = o->annotate_jit, .java = b->java };
	struct frame_fields fr = { .symbol = symbol, .module = module };
	b->parts.len = b->parts.nr = 0;
	if (!frame_names_of(&fr, &fo, &b->parts, &b->line, &b->line_alloc))
		return 0;
	for (size_t i = 0; i < b->parts.nr; i++) {
		struct frame_slice part = frame_part(&b->parts, i);
		VEC_GROW(b->seq, b->nr_seq + 1, b->seq_alloc);
		b->seq[b->nr_seq++] = profile_sym(b->p, part.s, part.n);
	}
	return (uint32_t)b->parts.nr;
}

/* Remember fs under key in cache (not for Java processes, whose names
 * differ). */
static void cache_seq(struct builder *b, struct hashmap *cache, uint64_t key, struct frame_seq fs)
{
	if (!b->java) {
		VEC_GROW(b->seqs, b->nr_seqs + 1, b->seqs_alloc);
		b->seqs[b->nr_seqs] = fs;
		bool inserted;
		*hashmap_upsert(cache, key, (uint32_t)b->nr_seqs, &inserted) = (uint32_t)b->nr_seqs;
		b->nr_seqs++;
	}
}

/* The names of the frame perf script prints as "SYMBOL (MODULE)", cached
 * under key in cache. */
static struct frame_seq frame_seq_of(struct builder *b, struct hashmap *cache, uint64_t key,
				     const char *symbol, const char *module)
{
	uint32_t idx;
	if (!b->java && hashmap_get(cache, key, &idx))
		return b->seqs[idx];
	struct frame_seq fs = { (uint32_t)b->nr_seq, 0 };
	fs.count = append_names(b, symbol, module);
	cache_seq(b, cache, key, fs);
	return fs;
}

/* A DWARF-unwound frame whose inlined functions perf expands: one frame
 * per function, outermost first, each named as perf script prints it
 * ("FUNC (inlined)" for the inlined ones). The names of the frame's own
 * symbol are *own. */
static struct frame_seq inlined_seq_of(struct builder *b, uint64_t key, const struct user_name *un,
				       struct frame_seq *own)
{
	uint32_t idx;
	if (!b->java && hashmap_get(&b->user_cache, key, &idx)) {
		*own = b->seqs[idx + 1];
		return b->seqs[idx];
	}
	struct frame_seq fs = { (uint32_t)b->nr_seq, 0 };
	*own = (struct frame_seq){ fs.first, 0 };
	for (uint32_t i = un->nr_inlines; i-- > 0;) {
		const struct sym_inline *it = &b->r->inlines[un->inlines + i];
		uint32_t first = (uint32_t)b->nr_seq;
		uint32_t n = append_names(b, it->name, it->inlined ? "inlined" : un->module);
		if (!it->inlined)
			*own = (struct frame_seq){ first, n };
		fs.count += n;
	}
	if (!b->java) {
		cache_seq(b, &b->user_cache, key, fs);
		VEC_GROW(b->seqs, b->nr_seqs + 1, b->seqs_alloc);
		b->seqs[b->nr_seqs++] = *own; /* right after fs's entry */
	}
	return fs;
}

/* dwarf: the frame was unwound with DWARF (its inlined functions are
 * expanded, as perf and report do for such frames). */
struct frame_seq naming_user_frame(struct builder *b, uint32_t pid, uint64_t ref, bool dwarf)
{
	struct recorder *r = b->r;
	const struct mapping *m = images_mapping(&r->images, ref);
	uint64_t key = dwarf ? ref | DWARF_FRAME_KEY : ref;
	struct user_name un = { NULL, "[unknown]", 0, 0 };
	uint32_t at;
	if (m && hashmap_get(&r->named, key, &at) && at != NAMED_LATER) {
		un = r->names[at]; /* named while sampling */
	} else if (m) {
		struct symbols_map sm;
		user_map(r, m, pid, ref, &sm);
		un.name = symbols_user(r->user_syms, &sm, sm.addr, &un.module);
		if (dwarf)
			note_inlines(r, &sm, &un);
	}
	struct frame_seq own, fs;
	if (un.nr_inlines)
		fs = inlined_seq_of(b, key, &un, &own);
	else
		own = fs = frame_seq_of(b, &b->user_cache, key, un.name ? un.name : "[unknown]", un.module);
	if (r->opts->sites && m) {
		/* file offset in the module, or the address for JIT code */
		uint64_t off = procmaps_ref_offset(ref);
		uint64_t addr = frame_sites_runtime_module(un.module) ? m->start + off : m->pgoff + off;
		frame_sites_note_dso(b->p, un.module, addr, b->seq + own.first, own.count, symbols_build_id,
				     r->user_syms);
	}
	return fs;
}

struct frame_seq naming_kernel_frame(struct builder *b, uint64_t addr)
{
	const char *module;
	const char *name = symbols_kernel(b->kernel_syms, addr, &module);
	struct frame_seq fs = frame_seq_of(b, &b->kernel_cache, addr, name ? name : "[unknown]", module);
	if (b->r->opts->sites)
		frame_sites_note_dso(b->p, module, addr, b->seq + fs.first, fs.count, symbols_build_id,
				     b->kernel_syms);
	return fs;
}
