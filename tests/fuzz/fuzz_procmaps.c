/* Fuzz target: the address-space model record and report keep
 * (addrspace/procmaps.c): /proc/PID/maps text (a process names its own
 * files, spaces and all), mappings added over others, fork, exec, and
 * record's recycling of exited processes' mappings (procmaps_forget).
 *
 * Input: a flag byte (bit 0: recycle), then operations of 6 bytes each,
 * on pids 1..8: add a mapping, fork, exec, forget, read or reread the
 * maps file, which holds the input's bytes after a "--\n" line (in a
 * private /proc of its own). After each operation every space must be
 * sorted, disjoint pieces inside their mappings, and every lookup must
 * land in a mapping holding the address. */
#include "addrspace/procmaps.h"
#include "private_dir.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { PIDS = 8, OP = 6 };

static const char *proc_root(void)
{
	static char dir[64];
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "%s", private_dir("procmaps"));
		for (int pid = 1; pid <= PIDS; pid++) {
			char sub[96];
			snprintf(sub, sizeof(sub), "%s/%d", dir, pid);
			mkdir(sub, 0700);
		}
	}
	return dir;
}

static void check(const struct procmaps *pm)
{
	for (uint32_t pid = 1; pid <= PIDS; pid++) {
		uint32_t space = procmaps_space_of(pm, pid);
		if (space == UINT32_MAX)
			continue;
		uint32_t max = procmaps_space_pieces_max(pm, space);
		struct map_piece *v = malloc((max ? max : 1) * sizeof(*v));
		uint32_t n = procmaps_space_pieces(pm, space, v);
		if (n > max)
			__builtin_trap();
		for (uint32_t i = 0; i < n; i++) {
			const struct mapping *m = &pm->maps[v[i].id];
			if (v[i].id >= pm->nr || v[i].start >= v[i].end || v[i].start < m->start || v[i].end > m->end ||
			    (i && v[i].start < v[i - 1].end))
				__builtin_trap(); /* not sorted, overlapping, or outside its mapping */
			uint64_t probe[] = { v[i].start, v[i].end - 1, v[i].start + (v[i].end - v[i].start) / 2 };
			for (int k = 0; k < 3; k++) {
				const struct mapping *f = procmaps_space_find(pm, space, probe[k]);
				if (!f || probe[k] < f->start || probe[k] >= f->end)
					__builtin_trap(); /* a lookup outside what it found */
				uint64_t ref = procmaps_ref(pm, pid, probe[k]);
				const struct mapping *r = procmaps_ref_mapping(pm, ref);
				if (!ref && (probe[k] - f->start) >> PROCMAPS_REF_SHIFT)
					continue; /* an offset past what a ref holds */
				if (r != f || procmaps_ref_offset(ref) != probe[k] - r->start)
					__builtin_trap();
			}
		}
		free(v);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	const char *root = proc_root();
	/* the maps text: what follows the first "--\n", for every pid */
	const uint8_t *text = memmem(data, size, "--\n", 3);
	size_t ops_len = text ? (size_t)(text - data) : size;
	if (text) {
		text += 3;
		for (int pid = 1; pid <= PIDS; pid++) {
			char path[128];
			snprintf(path, sizeof(path), "%s/%d/maps", root, pid);
			FILE *f = fopen(path, "wb");
			if (!f || fwrite(text, 1, size - (size_t)(text - data), f) != size - (size_t)(text - data))
				abort();
			fclose(f);
		}
	}
	struct procmaps pm;
	procmaps_init(&pm);
	pm.proc_root = root;
	pm.recycle = data[0] & 1;
	for (size_t at = 1; at + OP <= ops_len; at += OP) {
		const uint8_t *o = data + at;
		uint32_t pid = o[1] % PIDS + 1, other = o[2] % PIDS + 1;
		uint64_t start = (uint64_t)(o[2] | o[3] << 8) << 12, len = (uint64_t)(o[4] + 1) << 12;
		switch (o[0] % 7) {
		case 0: {
			char path[16];
			snprintf(path, sizeof(path), "/lib/f%u.so", o[5] % 4);
			procmaps_add(&pm, pid, start, len, (uint64_t)o[5] << 12, path);
			break;
		}
		case 1: procmaps_fork(&pm, pid, other); break;
		case 2: procmaps_exec(&pm, pid); break;
		case 3:
			if (pm.recycle)
				procmaps_forget(&pm, pid);
			break;
		case 4: procmaps_read(&pm, pid); break;
		case 5: procmaps_reread(&pm, pid); break;
		default: (void)procmaps_ref(&pm, pid, start + (o[5] << 4)); break;
		}
		check(&pm);
	}
	(void)procmaps_live(&pm);
	procmaps_release(&pm);
	return 0;
}
