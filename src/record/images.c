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

static uint32_t image_of(struct images *im, const struct procmaps *pm, const struct mapping *m)
{
	bool anon = images_anonymous(strpool_str(&pm->paths, m->path));
	uint64_t h = hash_mix(hash_u64((uint64_t)m->path << 32 ^ (m->end - m->start)), m->pgoff);
	if (anon)
		h = hash_mix(h, (uint64_t)m->pid << 48 ^ m->start);
	for (uint64_t probe = h;; probe = hash_u64(probe)) {
		bool inserted;
		uint32_t *slot = hashmap_upsert(&im->by_key, probe, im->nr, &inserted);
		if (inserted) {
			VEC_GROW(im->v, im->nr + 1, im->alloc);
			im->v[im->nr] = *m;
			im->v[im->nr].note = 0;
			return im->nr++;
		}
		if (same_image(&im->v[*slot], m, anon))
			return *slot;
	}
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
