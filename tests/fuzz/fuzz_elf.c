/* Fuzz target: the ELF symbol reader that report and record run on the
 * binaries a profile names (symbolize/elf_symbols.c: section and program
 * headers, .symtab/.dynsym, PLT synthesis, build-id notes, the
 * .gnu_debuglink candidates), both ways it reads one: as an in-memory
 * image (the vdso) and as a file on disk, whose names the table keeps in
 * place. The table is then looked up across its range, which demangles
 * the names found and applies perf's duplicate fix-ups. */
#include "symbolize/elf_symbols.h"
#include "symbolize/symtab.h"
#include "private_dir.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void probe(struct symtab *t)
{
	uint64_t lo, hi;
	if (!symtab_bounds(t, &lo, &hi))
		return;
	uint64_t step = (hi - lo) / 32 + 1;
	for (uint64_t a = lo; a <= hi; a += step) {
		struct symbol *s = symtab_find(t, a);
		if (s)
			(void)symtab_name(t, s);
		if (a > UINT64_MAX - step)
			break;
	}
	/* every symbol's own start: each duplicate group decided */
	for (size_t i = 0; i < t->nr && i < 256; i++) {
		struct symbol *s = symtab_find(t, t->v[i].start);
		if (s)
			(void)symtab_name(t, s);
	}
}

static void load(const struct elf_load_req *r)
{
	struct symtab t;
	struct elf_load_info info;
	symtab_init(&t);
	if (elf_load_symbols(&t, r, &info) >= 0)
		probe(&t);
	free(info.runtime_path);
	free(info.symsrc_path);
	free(info.unopened_path);
	symtab_release(&t);
}

/* A private directory for the file form (its .gnu_debuglink candidates
 * are looked for beside it, where nothing else is). */
static const char *file_path(void)
{
	static char path[96];
	if (!path[0])
		snprintf(path, sizeof(path), "%s/dso", private_dir("elf"));
	return path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	/* The image form: a copy of exactly size bytes, as the vdso is. */
	uint8_t *image = malloc(size);
	memcpy(image, data, size);
	struct elf_load_req r = { .path = "[vdso]", .demangle = true, .image = image, .image_len = size };
	load(&r);
	/* With a build-id that the input must carry to be read. */
	static const uint8_t want[20] = { 0xde, 0xad, 0xbe, 0xef };
	r.build_id = want;
	r.build_id_len = sizeof(want);
	load(&r);
	free(image);

	/* The file form. */
	const char *path = file_path();
	FILE *f = fopen(path, "wb");
	if (!f)
		abort();
	if (fwrite(data, 1, size, f) != size)
		abort();
	fclose(f);
	struct elf_load_req fr = { .path = path, .demangle = true };
	load(&fr);
	uint8_t id[20];
	(void)elf_file_build_id(path, id);
	return 0;
}
