/* The address spaces of sampled processes (see procmaps.h). */
#include "addrspace/procmaps.h"

#include "base/alloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void procmaps_init(struct procmaps *pm)
{
	memset(pm, 0, sizeof(*pm));
	strpool_init(&pm->paths);
	hashmap_init(&pm->by_pid);
	pm->proc_root = "/proc";
}

void procmaps_release(struct procmaps *pm)
{
	for (uint32_t i = 0; i < pm->nr_spaces; i++)
		free(pm->spaces[i].v);
	free(pm->spaces);
	for (uint32_t i = 0; i < pm->nr_bases; i++)
		free(pm->bases[i].v);
	free(pm->bases);
	free(pm->maps);
	free(pm->uses);
	free(pm->free_maps);
	free(pm->free_spaces);
	free(pm->free_bases);
	hashmap_release(&pm->by_pid);
	strpool_release(&pm->paths);
}

void procmaps_reserve(struct procmaps *pm, uint64_t n, uint64_t spaces)
{
	/* (ids are 32-bit: past that the arrays grow as they go, and fail) */
	if (n < UINT32_MAX - pm->nr)
		VEC_RESERVE(pm->maps, pm->nr + (uint32_t)n, pm->alloc);
	if (spaces < UINT32_MAX - pm->nr_spaces)
		VEC_RESERVE(pm->spaces, pm->nr_spaces + (uint32_t)spaces, pm->alloc_spaces);
}

uint32_t procmaps_space_new(struct procmaps *pm)
{
	if (pm->nr_free_spaces) {
		uint32_t id = pm->free_spaces[--pm->nr_free_spaces];
		memset(&pm->spaces[id], 0, sizeof(pm->spaces[0]));
		return id;
	}
	VEC_GROW(pm->spaces, pm->nr_spaces + 1, pm->alloc_spaces);
	memset(&pm->spaces[pm->nr_spaces], 0, sizeof(pm->spaces[0]));
	return pm->nr_spaces++;
}

/* The first piece that ends after addr (nr when none). Without branches
 * on the comparisons: report looks up random addresses (return addresses,
 * and stack words in frame-pointer-less chains), which a branch predicts
 * badly. */
static uint32_t first_after_in(const struct map_piece *v, uint32_t n, uint64_t addr)
{
	uint32_t lo = 0;
	if (!n)
		return 0;
	while (n > 1) {
		uint32_t half = n / 2;
		lo += half & -(uint32_t)(v[lo + half - 1].end <= addr);
		n -= half;
	}
	return lo + (v[lo].end <= addr);
}

static uint32_t first_after(const struct addr_space *as, uint64_t addr)
{
	return first_after_in(as->v, as->nr, addr);
}

static const struct map_base *base_of(const struct procmaps *pm, const struct addr_space *as)
{
	return as->base ? &pm->bases[as->base - 1] : NULL;
}

/* The piece of v[0..n) that holds addr, or NULL. */
static const struct map_piece *piece_in(const struct map_piece *v, uint32_t n, uint64_t addr)
{
	uint32_t i = first_after_in(v, n, addr);
	return i < n && v[i].start <= addr ? &v[i] : NULL;
}

/* The piece of space as that holds addr: its own, else its base's. */
static const struct map_piece *piece_at(const struct procmaps *pm, const struct addr_space *as, uint64_t addr)
{
	const struct map_piece *p = piece_in(as->v, as->nr, addr);
	const struct map_base *b = base_of(pm, as);
	if (!p && b)
		p = piece_in(b->v, b->nr, addr);
	return p;
}

/* recycle: one piece more or less holds mapping id; at none it is free. */
static void map_use(struct procmaps *pm, uint32_t id)
{
	if (pm->recycle)
		pm->uses[id]++;
}

static void map_unuse(struct procmaps *pm, uint32_t id)
{
	if (!pm->recycle || --pm->uses[id])
		return;
	VEC_GROW(pm->free_maps, pm->nr_free_maps + 1, pm->alloc_free_maps);
	pm->free_maps[pm->nr_free_maps++] = id;
}

static void pieces_unuse(struct procmaps *pm, const struct map_piece *v, uint32_t n)
{
	for (uint32_t i = 0; pm->recycle && i < n; i++)
		map_unuse(pm, v[i].id);
}

static void base_release(struct procmaps *pm, uint32_t base)
{
	if (base && !--pm->bases[base - 1].refs) {
		pieces_unuse(pm, pm->bases[base - 1].v, pm->bases[base - 1].nr);
		free(pm->bases[base - 1].v);
		pm->bases[base - 1].v = NULL;
		if (pm->recycle) {
			VEC_GROW(pm->free_bases, pm->nr_free_bases + 1, pm->alloc_free_bases);
			pm->free_bases[pm->nr_free_bases++] = base - 1;
		}
	}
}

/* Put piece p in, cutting what it overlaps: the pieces [i, j) it meets
 * become the part of the first left of p, p, and the part of the last
 * right of it. i is first_after(as, p.start). */
static void insert_piece_at(struct procmaps *pm, struct addr_space *as, struct map_piece p, uint32_t i)
{
	uint32_t j = i;
	while (j < as->nr && as->v[j].start < p.end)
		j++;
	struct map_piece put[3];
	uint32_t n = 0;
	if (i < j && as->v[i].start < p.start)
		put[n++] = (struct map_piece){ as->v[i].start, p.start, as->v[i].id };
	put[n++] = p;
	if (i < j && as->v[j - 1].end > p.end)
		put[n++] = (struct map_piece){ p.end, as->v[j - 1].end, as->v[j - 1].id };
	if (pm->recycle) {
		for (uint32_t k = 0; k < n; k++)
			map_use(pm, put[k].id);
		if (j > i) /* v is NULL in a space with no pieces yet */
			pieces_unuse(pm, as->v + i, j - i);
	}
	uint32_t nr = as->nr - (j - i) + n;
	if (nr > as->alloc) {
		/* Most spaces keep a few pieces of their own (a process's
		   executable mappings since its exec: on bench/report.sh churn
		   31k of 34k spaces have 4-6): VEC_GROW's first 16 took 13 MB
		   of report's heap there, 8 of them never used. */
		uint64_t alloc = as->alloc ? (uint64_t)as->alloc * 2 : 6;
		if (alloc > UINT32_MAX)
			alloc = UINT32_MAX;
		if (alloc < nr)
			alloc = nr;
		as->v = xreallocarray(as->v, (size_t)alloc, sizeof(*as->v));
		as->alloc = (uint32_t)alloc;
	}
	memmove(as->v + i + n, as->v + j, (as->nr - j) * sizeof(*as->v));
	memcpy(as->v + i, put, n * sizeof(*put));
	as->nr = nr;
	as->gen++;
}

static void insert_piece(struct procmaps *pm, struct addr_space *as, struct map_piece p)
{
	insert_piece_at(pm, as, p, first_after(as, p.start));
}

uint32_t procmaps_path(struct procmaps *pm, const char *path, size_t len)
{
	return strpool_intern(&pm->paths, path, len);
}

void procmaps_space_add(struct procmaps *pm, uint32_t space, uint32_t pid, uint64_t start, uint64_t end,
			uint64_t pgoff, const char *path, size_t path_len, uint32_t tag)
{
	if (end > start)
		procmaps_space_add_path(pm, space, pid, start, end, pgoff, procmaps_path(pm, path, path_len), tag);
}

void procmaps_space_add_path(struct procmaps *pm, uint32_t space, uint32_t pid, uint64_t start, uint64_t end,
			     uint64_t pgoff, uint32_t sym, uint32_t tag)
{
	if (end <= start)
		return;
	struct addr_space *as = &pm->spaces[space];
	/* The same mapping again (maps file after MMAP2, or the reverse): a
	   piece of its own, or of its base where no own piece lies over it. */
	uint32_t at = first_after(as, start);
	const struct map_piece *same = NULL;
	const struct map_base *b = base_of(pm, as);
	if (at < as->nr && as->v[at].start < end)
		same = &as->v[at];
	else if (b)
		same = piece_in(b->v, b->nr, start);
	if (same && same->start == start && same->end == end) {
		const struct mapping *m = &pm->maps[same->id];
		if (m->start == start && m->end == end && m->pgoff == pgoff && m->path == sym && m->tag == tag)
			return;
	}
	uint32_t id;
	if (pm->nr_free_maps) {
		id = pm->free_maps[--pm->nr_free_maps];
	} else {
		VEC_GROW(pm->maps, pm->nr + 1, pm->alloc);
		if (pm->recycle)
			VEC_GROW_ZEROED(pm->uses, pm->nr + 1, pm->alloc_uses);
		id = pm->nr++;
	}
	pm->maps[id] = (struct mapping){ pid, sym, tag, 0, start, end, pgoff };
	insert_piece_at(pm, as, (struct map_piece){ start, end, id }, at);
}

uint32_t procmaps_space_pieces_max(const struct procmaps *pm, uint32_t space)
{
	const struct addr_space *as = &pm->spaces[space];
	const struct map_base *b = base_of(pm, as);
	/* an own piece splits at most one of the base's in two */
	return as->nr + (b ? b->nr + as->nr : 0);
}

uint32_t procmaps_space_pieces(const struct procmaps *pm, uint32_t space, struct map_piece *out)
{
	const struct addr_space *as = &pm->spaces[space];
	const struct map_base *b = base_of(pm, as);
	if (!b) {
		if (as->nr)
			memcpy(out, as->v, as->nr * sizeof(*out));
		return as->nr;
	}
	/* the base's pieces cut by the own ones, merged with those in order */
	uint32_t n = 0, own = 0, j = 0;
	for (uint32_t i = 0; i < b->nr; i++) {
		uint64_t at = b->v[i].start, end = b->v[i].end;
		while (at < end) {
			while (j < as->nr && as->v[j].end <= at)
				j++;
			if (j < as->nr && as->v[j].start <= at) {
				at = as->v[j].end; /* under an own piece */
				continue;
			}
			uint64_t to = j < as->nr && as->v[j].start < end ? as->v[j].start : end;
			while (own < as->nr && as->v[own].start < at)
				out[n++] = as->v[own++];
			out[n++] = (struct map_piece){ at, to, b->v[i].id };
			at = to;
		}
	}
	while (own < as->nr)
		out[n++] = as->v[own++];
	return n;
}

/* The pieces of space, flattened (procmaps_space_pieces), in a new array. */
static struct map_piece *pieces_copy(const struct procmaps *pm, uint32_t space, uint32_t *n)
{
	struct map_piece *all = xreallocarray(NULL, procmaps_space_pieces_max(pm, space) + 1, sizeof(*all));
	*n = procmaps_space_pieces(pm, space, all);
	return all;
}

/* fork onto an empty space: the child lies over the parent's pieces. If
 * the parent has pieces of its own, they and its base are frozen into a
 * new base that both lie over (the parent's lookups answer the same). */
void procmaps_space_copy(struct procmaps *pm, uint32_t dst, uint32_t src)
{
	if (dst == src)
		return;
	struct addr_space *d = &pm->spaces[dst], *s = &pm->spaces[src];
	if (d->nr || d->base) {
		/* over pieces it has: each of the parent's put in (rare) */
		uint32_t n;
		struct map_piece *all = pieces_copy(pm, src, &n);
		for (uint32_t i = 0; i < n; i++)
			insert_piece(pm, &pm->spaces[dst], all[i]);
		free(all);
		return;
	}
	if (s->nr) {
		uint32_t n;
		struct map_piece *all = pieces_copy(pm, src, &n);
		for (uint32_t i = 0; pm->recycle && i < n; i++)
			map_use(pm, all[i].id);
		uint32_t base;
		if (pm->nr_free_bases) {
			base = pm->free_bases[--pm->nr_free_bases];
		} else {
			VEC_GROW(pm->bases, pm->nr_bases + 1, pm->alloc_bases);
			base = pm->nr_bases++;
		}
		pm->bases[base] = (struct map_base){ all, n, 1 };
		s = &pm->spaces[src];
		pieces_unuse(pm, s->v, s->nr);
		base_release(pm, s->base);
		s->base = base + 1;
		s->nr = 0;
	}
	d = &pm->spaces[dst];
	d->base = s->base;
	if (d->base)
		pm->bases[d->base - 1].refs++;
	d->gen++;
}

const struct mapping *procmaps_space_find(const struct procmaps *pm, uint32_t space, uint64_t addr)
{
	const struct map_piece *p = piece_at(pm, &pm->spaces[space], addr);
	return p ? &pm->maps[p->id] : NULL;
}

uint64_t procmaps_space_ref(const struct procmaps *pm, uint32_t space, uint64_t addr)
{
	const struct mapping *m = procmaps_space_find(pm, space, addr);
	if (!m)
		return 0;
	uint64_t off = addr - m->start;
	if (off >> PROCMAPS_REF_SHIFT)
		return 0;
	return ((uint64_t)(m - pm->maps) + 1) << PROCMAPS_REF_SHIFT | off;
}

/* ---- by pid ---- */

static uint32_t space_get(struct procmaps *pm, uint32_t pid)
{
	bool inserted;
	uint32_t *slot = hashmap_upsert(&pm->by_pid, pid, pm->nr_spaces, &inserted);
	if (inserted)
		*slot = procmaps_space_new(pm); /* (a freed one, when there is) */
	return *slot;
}

uint32_t procmaps_space_of(const struct procmaps *pm, uint32_t pid)
{
	uint32_t idx;
	return hashmap_get(&pm->by_pid, pid, &idx) ? idx : UINT32_MAX;
}

void procmaps_add(struct procmaps *pm, uint32_t pid, uint64_t start, uint64_t len,
		  uint64_t pgoff, const char *path)
{
	procmaps_space_add(pm, space_get(pm, pid), pid, start, start + len, pgoff, path, strlen(path), 0);
}

bool procmaps_was_read(const struct procmaps *pm, uint32_t pid)
{
	uint32_t space = procmaps_space_of(pm, pid);
	return space != UINT32_MAX && pm->spaces[space].read;
}

void procmaps_read(struct procmaps *pm, uint32_t pid)
{
	uint32_t space = space_get(pm, pid);
	char path[4200], *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (pm->spaces[space].read)
		return;
	pm->spaces[space].read = true;
	snprintf(path, sizeof(path), "%s/%" PRIu32 "/maps", pm->proc_root, pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return; /* gone already (or a kernel thread): its frames stay unknown */
	while ((n = getline(&line, &cap, f)) > 0) {
		uint64_t start, end, pgoff;
		char perms[8];
		int name_at = 0;
		if (line[n - 1] == '\n')
			line[--n] = 0;
		/* start-end perms offset dev inode   name */
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n", &start, &end,
			   perms, &pgoff, &name_at) < 4)
			continue;
		if (!strchr(perms, 'x'))
			continue;
		const char *name = name_at > 0 && name_at <= n ? line + name_at : "";
		/* A deleted file keeps its name in maps with " (deleted)". */
		size_t len = strlen(name);
		static const char deleted[] = " (deleted)";
		if (len > sizeof(deleted) - 1 && !strcmp(name + len - (sizeof(deleted) - 1), deleted))
			len -= sizeof(deleted) - 1;
		if (!len)
			name = "//anon", len = 6;
		procmaps_space_add(pm, space, pid, start, end, pgoff, name, len, 0);
	}
	free(line);
	fclose(f);
}

void procmaps_reread(struct procmaps *pm, uint32_t pid)
{
	uint32_t space = space_get(pm, pid); /* may move pm->spaces */
	pm->spaces[space].read = false;
	procmaps_read(pm, pid);
}

void procmaps_exec(struct procmaps *pm, uint32_t pid)
{
	uint32_t space = space_get(pm, pid); /* may move pm->spaces */
	struct addr_space *as = &pm->spaces[space];
	pieces_unuse(pm, as->v, as->nr);
	as->nr = 0;
	base_release(pm, as->base);
	as->base = 0;
	as->gen++;
	as->read = true; /* the new image's mappings follow as MMAP2 records */
}

void procmaps_fork(struct procmaps *pm, uint32_t ppid, uint32_t pid)
{
	if (ppid == pid)
		return;
	uint32_t parent = procmaps_space_of(pm, ppid);
	if (parent == UINT32_MAX || (!pm->spaces[parent].nr && !pm->spaces[parent].base))
		return;
	uint32_t child = space_get(pm, pid);
	procmaps_space_copy(pm, child, parent);
	pm->spaces[child].read = true;
}

uint64_t procmaps_ref(const struct procmaps *pm, uint32_t pid, uint64_t addr)
{
	uint32_t space = procmaps_space_of(pm, pid);
	return space == UINT32_MAX ? 0 : procmaps_space_ref(pm, space, addr);
}

void procmaps_forget(struct procmaps *pm, uint32_t pid)
{
	uint32_t space = procmaps_space_of(pm, pid);
	if (!pm->recycle || space == UINT32_MAX)
		return;
	struct addr_space *as = &pm->spaces[space];
	pieces_unuse(pm, as->v, as->nr);
	free(as->v);
	base_release(pm, as->base);
	memset(as, 0, sizeof(*as));
	hashmap_remove(&pm->by_pid, pid);
	VEC_GROW(pm->free_spaces, pm->nr_free_spaces + 1, pm->alloc_free_spaces);
	pm->free_spaces[pm->nr_free_spaces++] = space;
}

uint32_t procmaps_live(const struct procmaps *pm)
{
	return pm->nr - pm->nr_free_maps;
}
