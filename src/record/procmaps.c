/* Per-process executable mappings for record (see procmaps.h). */
#include "record/procmaps.h"

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
	for (uint32_t i = 0; i < pm->nr_procs; i++)
		free(pm->procs[i].maps);
	free(pm->procs);
	free(pm->maps);
	hashmap_release(&pm->by_pid);
	strpool_release(&pm->paths);
}

static struct proc_maps *proc_get(struct procmaps *pm, uint32_t pid)
{
	bool inserted;
	uint32_t *slot = hashmap_upsert(&pm->by_pid, pid, pm->nr_procs, &inserted);
	uint32_t idx = *slot;
	if (inserted) {
		VEC_GROW(pm->procs, pm->nr_procs + 1, pm->alloc_procs);
		memset(&pm->procs[pm->nr_procs], 0, sizeof(pm->procs[0]));
		pm->nr_procs++;
	}
	return &pm->procs[idx];
}

static const struct proc_maps *proc_find(const struct procmaps *pm, uint32_t pid)
{
	uint32_t idx;
	return hashmap_get(&pm->by_pid, pid, &idx) ? &pm->procs[idx] : NULL;
}

static void proc_push(struct proc_maps *pr, uint32_t id)
{
	VEC_GROW(pr->maps, pr->nr + 1, pr->alloc);
	pr->maps[pr->nr++] = id;
}

static void add(struct procmaps *pm, struct proc_maps *pr, uint32_t pid, uint64_t start,
		uint64_t end, uint64_t pgoff, const char *path, size_t path_len)
{
	uint32_t sym = strpool_intern(&pm->paths, path, path_len);
	/* The same mapping again (maps file after MMAP2, or the reverse). */
	for (uint32_t i = pr->nr; i-- > 0;) {
		const struct mapping *m = &pm->maps[pr->maps[i]];
		if (m->start == start && m->end == end && m->pgoff == pgoff && m->path == sym)
			return;
	}
	VEC_GROW(pm->maps, pm->nr + 1, pm->alloc);
	pm->maps[pm->nr] = (struct mapping){ pid, sym, start, end, pgoff };
	proc_push(pr, pm->nr++);
}

void procmaps_add(struct procmaps *pm, uint32_t pid, uint64_t start, uint64_t len,
		  uint64_t pgoff, const char *path)
{
	add(pm, proc_get(pm, pid), pid, start, start + len, pgoff, path, strlen(path));
}

bool procmaps_was_read(const struct procmaps *pm, uint32_t pid)
{
	const struct proc_maps *pr = proc_find(pm, pid);
	return pr && pr->read;
}

void procmaps_read(struct procmaps *pm, uint32_t pid)
{
	struct proc_maps *pr = proc_get(pm, pid);
	char path[4200], *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (pr->read)
		return;
	pr->read = true;
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
		add(pm, pr, pid, start, end, pgoff, name, len);
	}
	free(line);
	fclose(f);
}

void procmaps_reread(struct procmaps *pm, uint32_t pid)
{
	proc_get(pm, pid)->read = false;
	procmaps_read(pm, pid);
}

void procmaps_exec(struct procmaps *pm, uint32_t pid)
{
	struct proc_maps *pr = proc_get(pm, pid);
	pr->nr = 0;
	pr->read = true; /* the new image's mappings follow as MMAP2 records */
}

void procmaps_fork(struct procmaps *pm, uint32_t ppid, uint32_t pid)
{
	if (ppid == pid)
		return;
	const struct proc_maps *parent = proc_find(pm, ppid);
	if (!parent || !parent->nr)
		return;
	/* Copy the parent's list: proc_get may move the array. */
	uint32_t nr = parent->nr;
	uint32_t *ids = xreallocarray(NULL, nr, sizeof(uint32_t));
	memcpy(ids, parent->maps, nr * sizeof(uint32_t));
	struct proc_maps *child = proc_get(pm, pid);
	for (uint32_t i = 0; i < nr; i++)
		proc_push(child, ids[i]);
	child->read = true;
	free(ids);
}

uint64_t procmaps_ref(const struct procmaps *pm, uint32_t pid, uint64_t addr)
{
	const struct proc_maps *pr = proc_find(pm, pid);
	if (!pr)
		return 0;
	/* Newest first: a later mapping replaces what it overlaps. */
	for (uint32_t i = pr->nr; i-- > 0;) {
		uint32_t id = pr->maps[i];
		const struct mapping *m = &pm->maps[id];
		if (addr >= m->start && addr < m->end) {
			uint64_t off = addr - m->start;
			if (off >> PROCMAPS_REF_SHIFT)
				return 0;
			return ((uint64_t)id + 1) << PROCMAPS_REF_SHIFT | off;
		}
	}
	return 0;
}
