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
 * address, gets an image per process and address instead. File images
 * are never freed (they are as many as the distinct files run; their ids
 * name the symbolizer's address spaces for good); anonymous ones go with
 * their process (images_drop_unheld) and their ids are reused. */
#ifndef SCORCH_RECORD_IMAGES_H
#define SCORCH_RECORD_IMAGES_H

#include "addrspace/procmaps.h"
#include "base/hashmap.h"

#include <stdbool.h>
#include <stdint.h>

struct images {
	struct mapping *v; /* the first mapping seen of each (tag: IMAGE_* bits) */
	uint32_t nr, alloc;
	struct hashmap by_key; /* hash of the key -> index (probing on clash) */
	uint32_t *free_ids;    /* dropped anonymous images, for reuse */
	uint32_t nr_free, alloc_free;
};

enum { IMAGE_ANON = 1, IMAGE_DROPPED = 2 };

void images_init(struct images *im);
void images_release(struct images *im);
/* The image ref of pid's user address addr (0: no known mapping holds
 * it). Caches the image in the mapping (its note). */
uint64_t images_ref(struct images *im, struct procmaps *pm, uint32_t pid, uint64_t addr);
/* Drop the anonymous images no mapping of pm holds any more (their
 * processes exited and were forgotten), when no stack refers to them
 * (record --every, between two intervals): dropped(arg, image, id) for each,
 * and their ids are reused. */
void images_drop_unheld(struct images *im, const struct procmaps *pm,
			void (*dropped)(void *arg, const struct mapping *m, uint32_t id), void *arg);
/* Code named by address from a process's perf map (JIT), not from a file. */
bool images_anonymous(const char *path);

static inline const struct mapping *images_mapping(const struct images *im, uint64_t ref)
{
	uint64_t id = ref >> PROCMAPS_REF_SHIFT;
	return id && id <= im->nr && !(im->v[id - 1].tag & IMAGE_DROPPED) ? &im->v[id - 1] : 0;
}

static inline uint32_t images_id(uint64_t ref)
{
	return (uint32_t)(ref >> PROCMAPS_REF_SHIFT) - 1;
}

#endif
