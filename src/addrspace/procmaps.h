/* The address spaces of the sampled processes: which file (and offset into
 * it) each address of a process holds. One model, fed by both commands:
 *   - record, while processes live: /proc/PID/maps when a pid is first
 *     seen, the perf backend's MMAP2/COMM(exec)/FORK records;
 *   - report, from perf.data's MMAP/MMAP2/FORK records (its thread table,
 *     symbolize/, says which space a thread uses, as perf's does).
 *
 * A space is a sorted list of disjoint pieces, each a part of one mapping:
 * a new mapping cuts the parts of older ones it overlaps, as the kernel
 * (and perf's maps__fixup_overlappings) does. A mapping, once added, is
 * never changed or freed: its id stays valid to the end.
 *
 * fork gives the child its parent's pieces without copying them: both
 * then lie over one frozen list (a `base`), and each space's own pieces,
 * added later, cover the base's where they overlap. A lookup tries the
 * own pieces, then the base. The parent's own pieces are frozen into a new
 * base at a fork only if it added some since the last: a shell that
 * starts thousands of processes shares one list with all of them (perf
 * copies the parent's maps into each child, and keeps them after exec).
 *
 * A `ref` names an address for good: the mapping it fell in plus the
 * offset into that mapping. report keeps refs to the end.
 *
 * record, which follows processes that come and go for hours, sets
 * `recycle` before adding anything: a process's space is then dropped
 * when it exits (procmaps_forget), and a mapping no space holds any more
 * is freed and its id reused, so the table follows the live processes.
 * Its refs are then valid only while the process lives: record keeps
 * its own by file instead (record/images.h). */
#ifndef SCORCH_ADDRSPACE_PROCMAPS_H
#define SCORCH_ADDRSPACE_PROCMAPS_H

#include "base/hashmap.h"
#include "base/strpool.h"

#include <stdbool.h>
#include <stdint.h>

struct mapping {
	uint32_t pid;    /* the process that mapped it (0: unknown) */
	uint32_t path;   /* strpool id: a file, "[vdso]", "//anon", "" ... */
	uint32_t tag;    /* the feeder's own value (report: its DSO), else 0 */
	uint32_t note;   /* the user's, 0 when added (record: its image + 1) */
	uint64_t start, end, pgoff;
};

struct map_piece {
	uint64_t start, end; /* a part of mapping id */
	uint32_t id;
};

/* A frozen list of pieces that spaces lie over (refs of them). */
struct map_base {
	struct map_piece *v; /* sorted by start, disjoint; NULL once unused */
	uint32_t nr, refs;
};

struct addr_space {
	struct map_piece *v; /* its own: sorted by start, disjoint */
	uint32_t nr, alloc;
	uint32_t base;       /* 1 + the index of the base under v, or 0 */
	uint32_t gen;        /* bumped whenever a lookup could answer otherwise */
	bool read;           /* /proc/PID/maps was read (or the pid is gone) */
};

struct procmaps {
	struct strpool paths;
	struct mapping *maps;
	uint32_t nr, alloc;
	struct addr_space *spaces;
	uint32_t nr_spaces, alloc_spaces;
	struct map_base *bases;
	uint32_t nr_bases, alloc_bases;
	struct hashmap by_pid; /* pid -> space (record's binding) */
	const char *proc_root; /* "/proc" */
	/* recycle: ids free for reuse, and how many pieces (of spaces and
	 * bases) hold each mapping. */
	bool recycle;
	uint32_t *uses;
	size_t alloc_uses;
	uint32_t *free_maps, nr_free_maps, alloc_free_maps;
	uint32_t *free_spaces, nr_free_spaces, alloc_free_spaces;
	uint32_t *free_bases, nr_free_bases, alloc_free_bases;
};

void procmaps_init(struct procmaps *pm);
void procmaps_release(struct procmaps *pm);

/* ---- spaces by id (report: one per process of its thread table) ---- */

/* Room for n more mappings and spaces more spaces. */
void procmaps_reserve(struct procmaps *pm, uint64_t n, uint64_t spaces);
/* A new, empty space; returns its id. */
uint32_t procmaps_space_new(struct procmaps *pm);
/* Add a mapping [start, end) to space, cutting what it overlaps (the same
 * mapping again is not added twice). */
void procmaps_space_add(struct procmaps *pm, uint32_t space, uint32_t pid, uint64_t start, uint64_t end,
			uint64_t pgoff, const char *path, size_t path_len, uint32_t tag);
/* The same with the path as procmaps_path gave it (for a caller that adds
 * many mappings of few files). */
uint32_t procmaps_path(struct procmaps *pm, const char *path, size_t len);
void procmaps_space_add_path(struct procmaps *pm, uint32_t space, uint32_t pid, uint64_t start, uint64_t end,
			     uint64_t pgoff, uint32_t path, uint32_t tag);
/* fork: dst gets src's mappings (over its own, if it has any). */
void procmaps_space_copy(struct procmaps *pm, uint32_t dst, uint32_t src);
/* The mapping that holds addr in space, or NULL. */
const struct mapping *procmaps_space_find(const struct procmaps *pm, uint32_t space, uint64_t addr);
/* The most pieces procmaps_space_pieces writes for space. */
uint32_t procmaps_space_pieces_max(const struct procmaps *pm, uint32_t space);
/* The pieces of space as one sorted, disjoint list (its own and the parts
 * of its base they leave) into out; returns how many. */
uint32_t procmaps_space_pieces(const struct procmaps *pm, uint32_t space, struct map_piece *out);
static inline uint32_t procmaps_space_gen(const struct procmaps *pm, uint32_t space)
{
	return pm->spaces[space].gen;
}

/* ---- spaces by pid (record: a pid's current space) ---- */

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
/* The space of pid (UINT32_MAX: none known). */
uint32_t procmaps_space_of(const struct procmaps *pm, uint32_t pid);
/* recycle: pid exited; its space goes, and the mappings only it held
 * (their ids, and refs to them, are reused from now on). */
void procmaps_forget(struct procmaps *pm, uint32_t pid);
/* Mappings held now (recycle: those of the live processes). */
uint32_t procmaps_live(const struct procmaps *pm);

/* The ref for a user address of pid: (mapping id + 1) << 40 | offset into
 * the mapping; 0 when no known mapping holds it. */
uint64_t procmaps_ref(const struct procmaps *pm, uint32_t pid, uint64_t addr);
uint64_t procmaps_space_ref(const struct procmaps *pm, uint32_t space, uint64_t addr);

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
