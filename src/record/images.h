/* The files user frames are kept against (record-private): one image per
 * mapped file piece (path, file offset, length), whatever address each
 * process mapped it at, so that a stack of /usr/bin/sort's is the same
 * stack in every sort process address randomisation moved: the
 * collector's distinct stacks, names and symbol spaces follow the code
 * that ran, not the processes that ran it (procmaps.h's mappings, which
 * follow the processes, are freed when they exit).
 *
 * An image ref is (image id + 1) << PROCMAPS_REF_SHIFT | offset into the
 * image, as procmaps' refs are (procmaps_ref_offset reads it). Anonymous
 * and memfd code (JIT), named from its own process's perf map by
 * address, gets an image per process and address instead. Images are
 * never freed: they are as many as the distinct files run. */
#ifndef SCORCH_RECORD_IMAGES_H
#define SCORCH_RECORD_IMAGES_H

#include "addrspace/procmaps.h"
#include "base/hashmap.h"

#include <stdbool.h>
#include <stdint.h>

struct images {
	struct mapping *v; /* the first mapping seen of each */
	uint32_t nr, alloc;
	struct hashmap by_key; /* hash of the key -> index (probing on clash) */
};

void images_init(struct images *im);
void images_release(struct images *im);
/* The image ref of pid's user address addr (0: no known mapping holds
 * it). Caches the image in the mapping (its note). */
uint64_t images_ref(struct images *im, struct procmaps *pm, uint32_t pid, uint64_t addr);
/* Code named by address from a process's perf map (JIT), not from a file. */
bool images_anonymous(const char *path);

static inline const struct mapping *images_mapping(const struct images *im, uint64_t ref)
{
	uint64_t id = ref >> PROCMAPS_REF_SHIFT;
	return id && id <= im->nr ? &im->v[id - 1] : 0;
}

static inline uint32_t images_id(uint64_t ref)
{
	return (uint32_t)(ref >> PROCMAPS_REF_SHIFT) - 1;
}

#endif
