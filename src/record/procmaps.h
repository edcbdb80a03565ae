/* Executable mappings of the sampled processes, captured while they live
 * (from /proc/PID/maps when a pid is first seen, and from the perf
 * backend's MMAP2/COMM/FORK records), so that a process that exits before
 * sampling ends can still be symbolized.
 *
 * A user address is turned into a `ref` at sampling time: the mapping it
 * fell in plus the offset into that mapping. Refs stay valid to the end,
 * whatever the process does afterwards (exec, munmap, exit); names are
 * looked up from refs once, after sampling. */
#ifndef SCORCH_RECORD_PROCMAPS_H
#define SCORCH_RECORD_PROCMAPS_H

#include "base/hashmap.h"
#include "base/strpool.h"

#include <stdbool.h>
#include <stdint.h>

struct mapping {
	uint32_t pid;
	uint32_t path;   /* strpool id: a file, "[vdso]", "//anon", "" ... */
	uint64_t start, end, pgoff;
};

struct proc_maps {
	uint32_t *maps;  /* mapping ids, oldest first */
	uint32_t nr, alloc;
	bool read;       /* /proc/PID/maps was read (or the pid is gone) */
};

struct procmaps {
	struct strpool paths;
	struct mapping *maps;
	uint32_t nr, alloc;
	struct proc_maps *procs;
	uint32_t nr_procs, alloc_procs;
	struct hashmap by_pid; /* pid -> index in procs */
	const char *proc_root; /* "/proc" */
};

void procmaps_init(struct procmaps *pm);
void procmaps_release(struct procmaps *pm);

/* Read /proc/PID/maps once per pid (no-op afterwards). */
void procmaps_read(struct procmaps *pm, uint32_t pid);
/* Read it again (mappings added since; known ones are not duplicated). */
void procmaps_reread(struct procmaps *pm, uint32_t pid);
bool procmaps_was_read(const struct procmaps *pm, uint32_t pid);
/* An executable mapping reported by the kernel. */
void procmaps_add(struct procmaps *pm, uint32_t pid, uint64_t start, uint64_t len,
		  uint64_t pgoff, const char *path);
/* exec: the old image is gone (later mappings come as MMAP2 records). */
void procmaps_exec(struct procmaps *pm, uint32_t pid);
/* fork: the child starts with the parent's mappings. */
void procmaps_fork(struct procmaps *pm, uint32_t ppid, uint32_t pid);

/* The ref for a user address of pid: (mapping id + 1) << 40 | offset into
 * the mapping; 0 when no known mapping holds it. */
uint64_t procmaps_ref(const struct procmaps *pm, uint32_t pid, uint64_t addr);

#define PROCMAPS_REF_SHIFT 40
static inline const struct mapping *procmaps_ref_mapping(const struct procmaps *pm, uint64_t ref)
{
	uint64_t id = ref >> PROCMAPS_REF_SHIFT;
	return id && id <= pm->nr ? &pm->maps[id - 1] : 0;
}
static inline uint64_t procmaps_ref_offset(uint64_t ref)
{
	return ref & ((1ull << PROCMAPS_REF_SHIFT) - 1);
}

#endif
