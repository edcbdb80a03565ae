/* Where a frame name's code lives: an optional side table of struct
 * profile, for the writers that can say it (pprof's Mappings and Location
 * addresses, so that a server can symbolise again). `report` and `record`
 * fill it when their output is pprof; folded, SVG and HTML never touch it
 * (profile.sites stays NULL and costs nothing).
 *
 * A frame name gets at most one site: its module (file name and build-id)
 * and one address in that module. Folded stacks merge every pc of a
 * function into one frame name, so one address per name is the honest
 * granularity; it is the first pc seen for that name (a return address for
 * callers), in the module's own terms: a file offset for ELF files (perf's
 * dso address: pc - map start + map pgoff, the same in every process), the
 * runtime address for the kernel, JIT maps and anonymous code. The first
 * note for a name wins: two functions of one name in two modules keep the
 * first module. Frames with no module (the process name, "[unknown]"
 * without a map, markers, inlined callers) have no site. */
#ifndef SCORCH_PROFILE_FRAME_SITES_H
#define SCORCH_PROFILE_FRAME_SITES_H

#include "base/strpool.h"
#include "profile/profile.h"

#include <stdbool.h>
#include <stdint.h>

#define FRAME_BUILD_ID_MAX 20

struct frame_module {
	uint32_t file_len;
	uint8_t build_id_len;
	const char *file;                   /* owned by the table's pool */
	const uint8_t *build_id;            /* idem; build_id_len bytes */
	bool runtime;                       /* addresses are runtime addresses (kernel, JIT) */
	uint64_t lo, hi;                    /* lowest address noted, highest + 1 */
};

struct frame_site {
	uint32_t module; /* 1..nr_modules; 0: no site */
	uint64_t address;
};

/* Where an interpreted (runtime) frame's function is in its source: no
 * module or address (its code is the interpreter's), but a function name,
 * a file and its first line, which pprof's Function and Line carry
 * (record's Python frames: "qualname (file.py)" is function "qualname" in
 * file "/path/to/file.py"). */
struct frame_source {
	uint32_t function, file; /* ids in frame_sites.sources_text, 0: none */
	int32_t line;            /* the function's first line, or 0 when unknown */
};

struct frame_sites {
	struct strpool keys;           /* "file\0build-id" -> module id (0 is "") */
	struct strpool files;          /* file -> first module with that file (by_file) */
	uint32_t *by_file;
	uint32_t by_file_alloc;
	struct frame_module *modules;  /* by module id; [0] unused */
	uint32_t nr_modules, modules_alloc;
	struct frame_site *of_sym;     /* by sym_t */
	uint32_t of_sym_alloc;
	struct strpool sources_text;   /* functions' and files' names (0 is "") */
	struct frame_source *source_of_sym; /* by sym_t */
	uint32_t source_of_sym_alloc;
};

/* The module (file, build-id), made if new (the table too); an id >= 1.
 * runtime: its addresses are runtime addresses, not file offsets. */
uint32_t frame_sites_module(struct profile *p, const char *file, size_t n, const uint8_t *id,
			    size_t id_len, bool runtime);
/* The first module made for file whatever its build-id, or 0: lets a
 * producer look a module's build-id up once. */
uint32_t frame_sites_find_file(const struct profile *p, const char *file, size_t n);

/* Name `name` lives in module at address, unless it has a site already. */
void frame_sites_note(struct profile *p, sym_t name, uint32_t module, uint64_t address);

static inline bool frame_sites_has(const struct profile *p, sym_t name)
{
	return p->sites && name < p->sites->of_sym_alloc && p->sites->of_sym[name].module;
}

/* The site of name, or NULL. */
static inline const struct frame_site *frame_sites_get(const struct profile *p, sym_t name)
{
	return frame_sites_has(p, name) ? &p->sites->of_sym[name] : NULL;
}

static inline const struct frame_module *frame_sites_module_of(const struct profile *p, uint32_t module)
{
	return &p->sites->modules[module];
}

/* Name `name` is the frame of function in file, which starts at line
 * (0: unknown), unless it has a source already (the first note wins). */
void frame_sites_note_source(struct profile *p, sym_t name, const char *function, size_t function_len,
			     const char *file, size_t file_len, int32_t line);

/* The source of name, or NULL. */
static inline const struct frame_source *frame_sites_source(const struct profile *p, sym_t name)
{
	if (!p->sites || name >= p->sites->source_of_sym_alloc || !p->sites->source_of_sym[name].function)
		return NULL;
	return &p->sites->source_of_sym[name];
}

static inline const char *frame_sites_text(const struct profile *p, uint32_t id, size_t *len)
{
	*len = strpool_len(&p->sites->sources_text, id);
	return strpool_str(&p->sites->sources_text, id);
}

/* For report and record: names[0..n) (the folded names of one frame) live
 * in the module perf names dso, at address (perf's dso address). The
 * module is looked up by file name; build_id(arg, dso, id) is asked once
 * per new module (0: none known). Names with a site already are left, and
 * dso names that are no module ("[unknown]": no map; "inlined") note
 * nothing. Kernel, JIT and anonymous modules have runtime addresses. */
/* perf's names for modules whose addresses stay runtime addresses: the
 * kernel and its modules ("[kernel.kallsyms]", "[ext4]"; "[vdso]" is an
 * image with offsets), JIT maps (/tmp/perf-PID.map) and anonymous memory. */
bool frame_sites_runtime_module(const char *dso);

typedef size_t frame_build_id_fn(void *arg, const char *dso, uint8_t id[FRAME_BUILD_ID_MAX]);
void frame_sites_note_dso(struct profile *p, const char *dso, uint64_t address, const sym_t *names,
			  size_t n, frame_build_id_fn *build_id, void *arg);

/* The sites of src's names that dst has too (merge, filters, reversal). */
void frame_sites_copy(struct profile *dst, const struct profile *src);

void frame_sites_free(struct frame_sites *s);

#endif
