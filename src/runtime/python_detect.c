/* Finding the interpreter a process runs: the mapped file (the
 * executable, or a libpython for embedders and some distributions'
 * builds) that exports _PyRuntime in its .dynsym, the load bias of that
 * file, and the version (Py_Version, else the file name; 3.13+ carry
 * their own offsets at the start of _PyRuntime, _Py_DebugOffsets). */
#include "runtime/elf_exports.h"
#include "runtime/python.h"
#include "runtime/python_layouts.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct py_file {
	char path[256];
	uint64_t start; /* its mapping at file offset 0 */
};

/* A file name that may hold the interpreter: python3.11, python3,
 * libpython3.11.so.1.0 ... (the symbol lookup decides). */
static bool python_like(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return !strncmp(base, "python", 6) || !strncmp(base, "libpython", 9);
}

/* glibc's libc.so.6 (libc-2.NN.so before 2.34): where the tid's offset
 * in struct pthread is, for versions whose thread states do not carry
 * the tid. */
static bool libc_like(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return !strncmp(base, "libc.so", 7) || (!strncmp(base, "libc-", 5) && strstr(base, ".so"));
}

/* The mapped files that look like Python (and the libc, last), from
 * /proc/PID/maps. */
static size_t python_files(const char *maps, struct py_file *out, size_t max, struct py_file *libc)
{
	FILE *f = fopen(maps, "re");
	if (!f)
		return 0;
	char line[4096];
	size_t n = 0;
	while (n < max && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff;
		char perms[8];
		int path_at = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &pgoff, &path_at) < 4 ||
		    !path_at || line[path_at] != '/' || pgoff != 0)
			continue;
		char *path = line + path_at;
		path[strcspn(path, "\n")] = 0;
		if (strlen(path) >= sizeof(out->path))
			continue;
		if (libc_like(path) && !libc->path[0]) {
			snprintf(libc->path, sizeof(libc->path), "%s", path);
			libc->start = start;
		}
		if (!python_like(path))
			continue;
		bool seen = false;
		for (size_t i = 0; i < n; i++)
			seen |= !strcmp(out[i].path, path);
		if (seen)
			continue;
		snprintf(out[n].path, sizeof(out[n].path), "%s", path);
		out[n].start = start;
		n++;
	}
	fclose(f);
	return n;
}

#ifdef HAVE_ELFUTILS
struct py_syms {
	uint64_t runtime, version; /* symbol values (0: absent) */
	uint64_t initialize;       /* Py_Initialize: a Python, even without _PyRuntime (< 3.7) */
	uint64_t pthread_tid;      /* glibc's _thread_db_pthread_tid */
	uint64_t bias_base;        /* the first PT_LOAD's page-aligned vaddr */
	bool dyn;                  /* ET_DYN: add the load bias */
};

static bool read_syms(const char *path, struct py_syms *s)
{
	static const char *const names[] = { "_PyRuntime", "Py_Version", "Py_Initialize", "_thread_db_pthread_tid" };
	uint64_t v[4];
	struct elf_exports info;
	if (elf_exports_read(path, names, 4, v, &info) < 0)
		return false;
	*s = (struct py_syms){ v[0], v[1], v[2], v[3], info.bias_base, info.dyn };
	return (s->runtime || s->initialize || s->pthread_tid) && (!s->dyn || s->bias_base != UINT64_MAX);
}
#endif

/* "python3.11", "libpython3.11.so.1.0" -> 0x030b0000 ("python2.7":
 * 0x02070000); 0 when the name says no version. */
static uint32_t version_from_name(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *v = strstr(base, "python");
	if (!v)
		return 0;
	v += 6;
	char *end;
	long major = strtol(v, &end, 10);
	if (end == v || *end != '.' || !isdigit((unsigned char)end[1]))
		return 0;
	long minor = strtol(end + 1, NULL, 10);
	if (major < 2 || major > 3 || minor < 0 || minor > 99)
		return 0;
	return (uint32_t)(major << 24 | minor << 16);
}

/* Fill p's layout from the version, or from _Py_DebugOffsets. */
static void choose_layout(struct python_proc *p)
{
	uint8_t block[PYTHON_DEBUG_OFFSETS_SIZE];
	if (python_read(p->pid, p->runtime, block, sizeof(block)) && !memcmp(block, "xdebugpy", 8)) {
		uint64_t v;
		memcpy(&v, block + 8, 8);
		p->version = (uint32_t)v;
		p->supported = python_layout_from_debug(block, sizeof(block), &p->off);
		return;
	}
	p->supported = p->version && python_layout_of(p->version, &p->off);
}

/* Versions before 3.11 know a thread by its pthread_t: the tid is in
 * glibc's struct pthread at the offset libthread_db is told,
 * _thread_db_pthread_tid = { bits, count, offset } (read from the
 * process: its own libc). */
static void find_pthread_tid(struct python_proc *p, const char *proc_root, const struct py_file *libc)
{
	char path[4096];
	struct py_syms s;
	uint32_t desc[3];
	if (!libc->path[0]) {
		p->why = "no glibc mapped (the thread ids are glibc's)";
		p->supported = false;
		return;
	}
	snprintf(path, sizeof(path), "%s/%u/root%s", proc_root ? proc_root : "/proc", p->pid, libc->path);
	if ((!read_syms(path, &s) && !read_syms(libc->path, &s)) || !s.pthread_tid ||
	    !python_read(p->pid, s.pthread_tid + (s.dyn ? libc->start - s.bias_base : 0), desc, sizeof(desc)) ||
	    desc[0] != 32 || desc[1] != 1 || desc[2] > 4096 - 4) {
		p->why = "its libc does not say where a thread's id is (_thread_db_pthread_tid)";
		p->supported = false;
		return;
	}
	p->off.pthread_tid = desc[2];
}

enum python_found python_detect(struct python_proc *p, uint32_t pid, const char *proc_root)
{
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	hashmap_init(&p->code_by_addr);
	strpool_init(&p->names);
	char maps[4096];
	snprintf(maps, sizeof(maps), "%s/%u/maps", proc_root ? proc_root : "/proc", pid);
	struct py_file files[8], libc = { { 0 }, 0 };
	size_t nf = python_files(maps, files, sizeof(files) / sizeof(files[0]), &libc);
#ifdef HAVE_ELFUTILS
	for (size_t i = 0; i < nf; i++) {
		char path[4096];
		struct py_syms s;
		/* the file as the process sees it (its mount namespace) */
		snprintf(path, sizeof(path), "%s/%u/root%s", proc_root ? proc_root : "/proc", pid, files[i].path);
		if ((!read_syms(path, &s) && !read_syms(files[i].path, &s)) || (!s.runtime && !s.initialize))
			continue;
		uint64_t bias = s.dyn ? files[i].start - s.bias_base : 0;
		memcpy(p->path, files[i].path, sizeof(p->path));
		if (!s.runtime) { /* 2.7, 3.6: the interpreter's state is elsewhere */
			p->version = version_from_name(files[i].path);
			p->why = "versions before 3.8 are not read";
			return PYTHON_UNSUPPORTED;
		}
		p->runtime = s.runtime + bias;
		uint32_t hex = 0;
		if (s.version && python_read(pid, s.version + bias, &hex, sizeof(hex)) && (hex >> 24) == 3)
			p->version = hex;
		else
			p->version = version_from_name(files[i].path);
		choose_layout(p);
		/* A process met as it execs has its binary mapped before the
		 * loader maps libc: not a verdict yet (met again later). */
		if (p->supported && p->off.tstate_native_thread_id == PYTHON_NO_OFFSET && !libc.path[0])
			return PYTHON_NONE;
		if (p->supported && p->off.tstate_native_thread_id == PYTHON_NO_OFFSET)
			find_pthread_tid(p, proc_root, &libc);
		else if (!p->supported && !p->why)
			p->why = p->version < 0x03080000 ? "versions before 3.8 are not read"
							  : "a layout scorch does not know";
		return p->supported ? PYTHON_SUPPORTED : PYTHON_UNSUPPORTED;
	}
#else
	(void)version_from_name;
	(void)choose_layout;
	if (nf) {
		memcpy(p->path, files[0].path, sizeof(p->path));
		return PYTHON_UNSUPPORTED; /* no ELF reader: _PyRuntime cannot be found */
	}
#endif
	return PYTHON_NONE;
}
