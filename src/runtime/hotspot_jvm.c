/* Finding a JVM's vmStructs (hotspot_jvm.h). */
#include "runtime/hotspot_jvm.h"

#include "runtime/elf_exports.h"
#include "runtime/hotspot_method.h"

#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>


bool hotspot_read_process(void *arg, uint64_t addr, void *buf, size_t len)
{
	uint32_t pid = *(const uint32_t *)arg;
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	if (!addr || !len)
		return false;
	return process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0) == (ssize_t)len;
}

void hotspot_read_words(uint32_t pid, const uint64_t *addrs, uint64_t *out, size_t n)
{
	enum { BATCH = 256 };
	struct iovec local[BATCH], remote[BATCH];
	size_t done = 0;
	while (done < n) {
		size_t k = n - done < BATCH ? n - done : BATCH;
		for (size_t i = 0; i < k; i++) {
			local[i] = (struct iovec){ out + done + i, 8 };
			remote[i] = (struct iovec){ (void *)(uintptr_t)addrs[done + i], 8 };
		}
		/* (a read stops at the first word it cannot read: that one is 0,
		 * and the next read starts after it) */
		ssize_t got = process_vm_readv((pid_t)pid, local, k, remote, k, 0);
		size_t words = got > 0 ? (size_t)got / 8 : 0;
		done += words;
		if (words < k)
			out[done++] = 0;
	}
}

/* libjvm.so's mapping at file offset 0: its path and start. */
static bool find_libjvm(const char *maps_path, char *path, size_t cap, uint64_t *start)
{
	FILE *f = fopen(maps_path, "re");
	if (!f)
		return false;
	char line[4096];
	bool found = false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, pgoff;
		int at = 0;
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &lo, &hi, &pgoff, &at) < 3 || !at ||
		    line[at] != '/' || pgoff)
			continue;
		char *p = line + at;
		p[strcspn(p, "\n")] = 0;
		const char *slash = strrchr(p, '/');
		if (strcmp(slash, "/libjvm.so") || strlen(p) >= cap)
			continue;
		snprintf(path, cap, "%s", p);
		*start = lo;
		found = true;
	}
	fclose(f);
	return found;
}

/* The exported variables, by name, and where their values go. */
static const struct {
const char *name;
size_t at;
} export_names[] = {
#define X(n, m) { n, offsetof(struct hotspot_exports, m) }
	X("gHotSpotVMStructs", structs),
	X("gHotSpotVMStructEntryTypeNameOffset", s_type_name),
	X("gHotSpotVMStructEntryFieldNameOffset", s_field_name),
	X("gHotSpotVMStructEntryIsStaticOffset", s_is_static),
	X("gHotSpotVMStructEntryOffsetOffset", s_offset),
	X("gHotSpotVMStructEntryAddressOffset", s_address),
	X("gHotSpotVMStructEntryArrayStride", s_stride),
	X("gHotSpotVMTypes", types),
	X("gHotSpotVMTypeEntryTypeNameOffset", t_type_name),
	X("gHotSpotVMTypeEntrySizeOffset", t_size),
	X("gHotSpotVMTypeEntryArrayStride", t_stride),
#undef X
};

enum { NR_EXPORTS = sizeof(export_names) / sizeof(export_names[0]) };
_Static_assert(sizeof(struct hotspot_exports) == NR_EXPORTS * sizeof(uint64_t), "the exports are read as an array");

#ifdef HAVE_ELFUTILS
/* The exports' symbol values (st_value) into *ex, and the first PT_LOAD's
 * page-aligned vaddr (what the load bias is measured from). */
static bool read_exports(const char *path, struct hotspot_exports *ex, uint64_t *bias_base)
{
	const char *names[NR_EXPORTS];
	uint64_t values[NR_EXPORTS];
	for (size_t i = 0; i < NR_EXPORTS; i++)
		names[i] = export_names[i].name;
	struct elf_exports info;
	if (elf_exports_read(path, names, NR_EXPORTS, values, &info) != NR_EXPORTS ||
	    info.bias_base == UINT64_MAX)
		return false;
	for (size_t i = 0; i < NR_EXPORTS; i++)
		*(uint64_t *)((char *)ex + export_names[i].at) = values[i];
	*bias_base = info.bias_base;
	return true;
}
#endif

enum hotspot_found hotspot_jvm_find(struct hotspot_jvm *j, uint32_t pid, const char *proc_root, const char **why)
{
	memset(j, 0, sizeof(*j));
	j->pid = pid;
	const char *root = proc_root ? proc_root : "/proc";
	char path[4096];
	uint64_t start;
	snprintf(path, sizeof(path), "%s/%u/maps", root, pid);
	if (!find_libjvm(path, j->path, sizeof(j->path), &start))
		return HOTSPOT_NONE;
#ifdef HAVE_ELFUTILS
	struct hotspot_exports where = { 0 }, ex;
	uint64_t bias_base;
	/* the file as the process sees it (its mount namespace) */
	snprintf(path, sizeof(path), "%s/%u/root%s", root, pid, j->path);
	if (!read_exports(path, &where, &bias_base) && !read_exports(j->path, &where, &bias_base)) {
		*why = "its libjvm.so exports no vmStructs";
		return HOTSPOT_REFUSED;
	}
	uint64_t bias = start - bias_base;
	for (size_t i = 0; i < NR_EXPORTS; i++) {
		uint64_t at = ((uint64_t *)&where)[i], *v = (uint64_t *)&ex + i;
		if (!hotspot_read_process(&j->pid, at + bias, v, sizeof(*v))) {
			*why = "its memory could not be read";
			return HOTSPOT_REFUSED;
		}
	}
	if (!hotspot_structs_read(hotspot_read_process, &j->pid, &ex, &j->layout, why))
		return HOTSPOT_REFUSED;
	hotspot_jvm_interpreter(j);
	return HOTSPOT_FOUND;
#else
	*why = "this build of scorch has no ELF reader (elfutils)";
	return HOTSPOT_REFUSED;
#endif
}

bool hotspot_jvm_interpreter(struct hotspot_jvm *j)
{
	if (!j->interp_hi)
		hotspot_interpreter_range(hotspot_read_process, &j->pid, &j->layout, &j->interp_lo, &j->interp_hi);
	return j->interp_hi != 0;
}
