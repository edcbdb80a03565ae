/* Mapped files as images, whatever their address (images.h). */
#include "record/images.h"

#include "base/alloc.h"
#include "base/hash.h"

#include <stdlib.h>
#include <string.h>

void images_init(struct images *im)
{
	memset(im, 0, sizeof(*im));
	hashmap_init(&im->by_key);
}

void images_release(struct images *im)
{
	free(im->v);
	free(im->free_ids);
	hashmap_release(&im->by_key);
}

/* As symbols.c decides what perf names "/tmp/perf-PID.map": anonymous
 * memory, the heap, stacks, SysV segments, and memfd code (a JIT's double
 * mapping). */
bool images_anonymous(const char *path)
{
	return !path[0] || !strncmp(path, "//anon", 6) || !strncmp(path, "[anon", 5) || !strcmp(path, "[heap]") ||
	       !strncmp(path, "[stack", 6) || !strncmp(path, "/SYSV", 5) || !strncmp(path, "/memfd:", 7);
}

static bool same_image(const struct mapping *a, const struct mapping *b, bool anon)
{
	return a->path == b->path && a->pgoff == b->pgoff && a->end - a->start == b->end - b->start &&
	       (!anon || (a->pid == b->pid && a->start == b->start));
}

static uint64_t image_key(const struct mapping *m, bool anon)
{
	uint64_t h = hash_mix(hash_u64((uint64_t)m->path << 32 ^ (m->end - m->start)), m->pgoff);
	return anon ? hash_mix(h, (uint64_t)m->pid << 48 ^ m->start) : h;
}

/* A new image's id: a dropped anonymous one's, else the next. */
static uint32_t image_new(struct images *im, const struct mapping *m, bool anon)
{
	uint32_t id;
	if (anon && im->nr_free) {
		id = im->free_ids[--im->nr_free];
	} else {
		VEC_GROW(im->v, im->nr + 1, im->alloc);
		id = im->nr++;
	}
	im->v[id] = *m;
	im->v[id].note = 0;
	im->v[id].tag = anon ? IMAGE_ANON : 0;
	return id;
}

static uint32_t image_of(struct images *im, const struct procmaps *pm, const struct mapping *m)
{
	bool anon = images_anonymous(strpool_str(&pm->paths, m->path));
	for (uint64_t probe = image_key(m, anon);; probe = hash_u64(probe)) {
		bool inserted;
		uint32_t *slot = hashmap_upsert(&im->by_key, probe, 0, &inserted);
		if (inserted)
			return *slot = image_new(im, m, anon); /* (image_new leaves by_key alone) */
		if (same_image(&im->v[*slot], m, anon))
			return *slot;
	}
}

/* Its key out of by_key: the probe that holds id. */
static void image_unkey(struct images *im, uint32_t id)
{
	uint32_t at;
	for (uint64_t probe = image_key(&im->v[id], true); hashmap_get(&im->by_key, probe, &at); probe = hash_u64(probe))
		if (at == id) {
			hashmap_remove(&im->by_key, probe);
			return;
		}
}

void images_drop_unheld(struct images *im, const struct procmaps *pm,
			void (*dropped)(void *arg, const struct mapping *m, uint32_t id), void *arg)
{
	/* The images a live mapping notes (a fork's child can hold its
	 * exited parent's mapping). */
	uint8_t *held = xcalloc(im->nr ? im->nr : 1, 1);
	for (uint32_t i = 0; i < pm->nr; i++)
		if (pm->maps[i].note && pm->maps[i].note <= im->nr && (!pm->recycle || pm->uses[i]))
			held[pm->maps[i].note - 1] = 1;
	for (uint32_t id = 0; id < im->nr; id++) {
		struct mapping *m = &im->v[id];
		if ((m->tag & (IMAGE_ANON | IMAGE_DROPPED)) != IMAGE_ANON || held[id])
			continue;
		image_unkey(im, id);
		m->tag |= IMAGE_DROPPED;
		VEC_GROW(im->free_ids, im->nr_free + 1, im->alloc_free);
		im->free_ids[im->nr_free++] = id;
		dropped(arg, m, id);
	}
	free(held);
}

uint64_t images_ref(struct images *im, struct procmaps *pm, uint32_t pid, uint64_t addr)
{
	uint32_t space = procmaps_space_of(pm, pid);
	if (space == UINT32_MAX)
		return 0;
	const struct mapping *found = procmaps_space_find(pm, space, addr);
	if (!found)
		return 0;
	uint64_t off = addr - found->start;
	if (off >> PROCMAPS_REF_SHIFT)
		return 0;
	struct mapping *m = &pm->maps[found - pm->maps];
	if (!m->note)
		m->note = image_of(im, pm, m) + 1;
	return (uint64_t)m->note << PROCMAPS_REF_SHIFT | off;
}
