/* Frozen views of threads' address spaces (see snapshot.h). */
#include "symbolize/snapshot.h"
#include "symbolize/internal.h"

#include "base/alloc.h"
#include "base/arena.h"
#include "base/hash.h"

#include <stdlib.h>
#include <string.h>

/* A piece of a space with what a lookup needs of its mapping (the
 * mappings array moves as the replay adds to it). */
struct view_piece {
	uint64_t start, end, map_start, pgoff;
	struct dso *dso;
	bool identity;
};

struct space_view {
	uint32_t nr;
	struct view_piece v[];
};

struct kernel_view {
	uint64_t start, end;
	int64_t delta;
	struct dso *dso; /* NULL: no kernel map yet */
	bool loaded;
	uint32_t gen;
};

struct last_view {
	const struct space_view *view;
	uint32_t gen;
};

struct sym_snapshots {
	struct symbolizer *s;
	struct arena mem;
	struct last_view *last; /* by space id */
	size_t last_alloc;
	struct kernel_view *kernel;
	struct map_piece *pieces; /* scratch: a space's pieces, its base's in */
	size_t pieces_alloc;
};

struct sym_snapshots *sym_snapshots_new(struct symbolizer *s, void (*quiesce)(void *arg), void *arg)
{
	struct sym_snapshots *ss = xcalloc(1, sizeof(*ss));
	ss->s = s;
	arena_init(&ss->mem);
	if (!s->threaded) /* a preload thread may be reading it */
		s->threaded = true;
	s->quiesce = quiesce;
	s->quiesce_arg = arg;
	return ss;
}

void sym_snapshots_free(struct sym_snapshots *ss)
{
	if (!ss)
		return;
	ss->s->quiesce = NULL; /* stays `threaded`: a preload may still run */
	arena_release(&ss->mem);
	free(ss->pieces);
	free(ss->last);
	free(ss);
}

bool sym_kernel_lookup_loads(struct symbolizer *s, uint64_t ip)
{
	if (s->kernel_dso == UINT32_MAX)
		return true; /* the lookup makes a map of everything, then loads */
	return !s->dsos[s->kernel_dso]->loaded && ip >= s->kmap_start && ip < s->kmap_end;
}

bool sym_kernel_loaded(const struct symbolizer *s)
{
	return s->kernel_dso != UINT32_MAX && s->dsos[s->kernel_dso]->loaded;
}

static const struct space_view *space_view(struct sym_snapshots *ss, uint32_t as)
{
	const struct addr_space *sp = &ss->s->maps.spaces[as];
	VEC_GROW_ZEROED(ss->last, (size_t)as + 1, ss->last_alloc);
	struct last_view *l = &ss->last[as];
	if (l->view && l->gen == sp->gen)
		return l->view;
	uint32_t max = procmaps_space_pieces_max(&ss->s->maps, as);
	VEC_RESERVE(ss->pieces, max, ss->pieces_alloc);
	uint32_t nr = procmaps_space_pieces(&ss->s->maps, as, ss->pieces);
	struct space_view *v = arena_alloc(&ss->mem, sizeof(*v) + nr * sizeof(v->v[0]), 8);
	v->nr = nr;
	for (uint32_t i = 0; i < nr; i++) {
		const struct map_piece *p = &ss->pieces[i];
		const struct mapping *m = &ss->s->maps.maps[p->id];
		v->v[i] = (struct view_piece){ .start = p->start, .end = p->end, .map_start = m->start,
					       .pgoff = m->pgoff, .dso = ss->s->dsos[map_dso(m)],
					       .identity = map_identity(m) };
	}
	*l = (struct last_view){ v, sp->gen };
	return v;
}

static const struct kernel_view *kernel_view(struct sym_snapshots *ss)
{
	const struct symbolizer *s = ss->s;
	struct dso *d = s->kernel_dso == UINT32_MAX ? NULL : s->dsos[s->kernel_dso];
	struct kernel_view now = { .start = s->kmap_start, .end = s->kmap_end, .delta = s->kdelta, .dso = d,
				   .loaded = d && d->loaded, .gen = s->kgen };
	const struct kernel_view *k = ss->kernel;
	if (k && k->start == now.start && k->end == now.end && k->delta == now.delta && k->dso == now.dso &&
	    k->loaded == now.loaded && k->gen == now.gen)
		return k;
	ss->kernel = arena_alloc(&ss->mem, sizeof(*ss->kernel), 8);
	*ss->kernel = now;
	return ss->kernel;
}

void sym_snapshot_take(struct sym_snapshots *ss, int32_t pid, int32_t tid, struct sym_snapshot *out)
{
	uint32_t as = sym_thread_space(ss->s, pid, tid);
	out->space = space_view(ss, as);
	out->kernel = kernel_view(ss);
	out->version = sym_version_of(as, ss->s->maps.spaces[as].gen, ss->s->kgen);
}

/* ---- lookups ---------------------------------------------------------------- */

struct reader_slot {
	uint64_t ip;
	const void *view; /* the space or kernel view answered from; NULL: empty */
	const char *name, *dso;
	uint64_t offset, dso_addr;
	uint8_t have_map, ret;
};

/* A symbol found in a DSO: the same file addresses recur in every process
 * that maps it, and asking the DSO takes its lock and writes its memo
 * (cache lines the threads would pass back and forth). */
struct dso_slot {
	const struct dso *d; /* NULL: empty */
	uint64_t a;
	const char *name;
	uint64_t offset;
	int ret;
};

enum { READER_SLOTS = 1 << 16, DSO_SLOTS = 1 << 15 };

struct sym_reader {
	struct symbolizer *s;
	struct reader_slot *cache;
	struct dso_slot *dso_cache;
};

struct sym_reader *sym_reader_new(struct symbolizer *s)
{
	struct sym_reader *r = xmalloc(sizeof(*r));
	r->s = s;
	r->cache = xcalloc(READER_SLOTS, sizeof(*r->cache));
	r->dso_cache = xcalloc(DSO_SLOTS, sizeof(*r->dso_cache));
	return r;
}

void sym_reader_free(struct sym_reader *r)
{
	if (!r)
		return;
	free(r->cache);
	free(r->dso_cache);
	free(r);
}

static const struct view_piece *piece_at(const struct space_view *v, uint64_t ip)
{
	uint32_t lo = 0, hi = v->nr;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (v->v[mid].end <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < v->nr && v->v[lo].start <= ip ? &v->v[lo] : NULL;
}

/* sym_dso_symbol through r's cache. */
static int dso_symbol(struct sym_reader *r, struct dso *d, uint64_t a, bool load, struct sym_frame *f)
{
	struct dso_slot *c = &r->dso_cache[(hash_u64(a ^ (uint64_t)(uintptr_t)d) >> 20) & (DSO_SLOTS - 1)];
	if (c->d == d && c->a == a) {
		f->name = c->name;
		f->offset = c->offset;
		return c->ret;
	}
	int ret = sym_dso_symbol(r->s, d, a, load, f);
	*c = (struct dso_slot){ d, a, f->name, f->offset, ret };
	return ret;
}

/* sym_lookup_in (symbolize.c) against the view. */
static int lookup_view(struct sym_reader *r, const struct sym_snapshot *v, uint64_t ip, bool is_kernel,
		       struct sym_frame *f)
{
	sym_frame_unknown(f, ip);
	if (is_kernel) {
		/* not loaded: the replay's thread saw that no address of the
		   sample is in the map (one that is would load it) */
		const struct kernel_view *k = v->kernel;
		if (!k->loaded || ip < k->start || ip >= k->end)
			return 1;
		f->dso = k->dso->name;
		f->have_map = true;
		return dso_symbol(r, k->dso, ip + (uint64_t)k->delta, false, f);
	}
	const struct view_piece *p = piece_at(v->space, ip);
	if (!p)
		return 1;
	uint64_t a = p->identity ? ip : ip - p->map_start + p->pgoff;
	f->dso = p->dso->name;
	f->dso_addr = a;
	f->have_map = true;
	return dso_symbol(r, p->dso, a, true, f);
}

int sym_snapshot_lookup(struct sym_reader *r, const struct sym_snapshot *v, uint64_t ip, bool is_kernel,
			struct sym_frame *f)
{
	const void *view = is_kernel ? (const void *)v->kernel : (const void *)v->space;
	struct reader_slot *c =
		&r->cache[(hash_u64(ip ^ (uint64_t)(uintptr_t)view * 0x9e3779b97f4a7c15ull) >> 20) & (READER_SLOTS - 1)];
	if (c->view == view && c->ip == ip) {
		*f = (struct sym_frame){ .name = c->name, .dso = c->dso, .offset = c->offset,
					 .dso_addr = c->dso_addr, .have_map = c->have_map };
		return c->ret;
	}
	int ret = lookup_view(r, v, ip, is_kernel, f);
	*c = (struct reader_slot){ .ip = ip, .view = view, .name = f->name, .dso = f->dso, .offset = f->offset,
				   .dso_addr = f->dso_addr, .have_map = f->have_map, .ret = (uint8_t)ret };
	return ret;
}
